"""Batch mode of the CLI: a ladder (-r REF -d DIS1 -d DIS2 ...) and a
manifest (--batch FILE, CSV or JSON lines) give every pair the output a
one-pair run gives it, byte for byte (less the fps line, which is a timing);
a pair that fails is reported with its line or number and the others go on;
bad manifests are refused with a clear message.

usage: batch_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import Result, load_clips, strip_volatile, test_arg_parser  # noqa: E402

CLIPS = ('cups_576x324', 'cups_576x324_10b', 'noise_320x180', 'tiny_177x99')
FMT_FLAG = {'json': '--json', 'xml': '--xml', 'csv': '--csv'}


def main():
    args = test_arg_parser().parse_args()
    exe = os.path.abspath(args.tvmaf)
    clips = load_clips(args.clips, CLIPS)
    if clips is None:
        return 1
    res = Result()
    tmp = tempfile.mkdtemp(prefix='tvmaf_batch_')
    try:
        Test(exe, args.clips, clips, tmp, res).run_cases()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


class Test:
    def __init__(self, exe, clip_dir, clips, tmp, res):
        self.exe, self.clip_dir, self.clips, self.tmp, self.res = exe, clip_dir, clips, tmp, res

    # ------------------------------------------------------------ helpers

    def path(self, name, which):
        return os.path.join(self.clip_dir, f'{name}.{which}.yuv')

    def raw(self, name):
        c = self.clips[name]
        return ['-w', str(c['w']), '-h', str(c['h']), '-p', c['layout'], '-b', str(c['bits'])]

    def run(self, argv, cwd=None):
        p = subprocess.run([self.exe] + argv, capture_output=True, text=True, cwd=cwd)
        return p.returncode, p.stderr

    def single(self, ref, dis, raw, fmt, extra=()):
        """The output of one plain run of ref/dis, as text (fps dropped)."""
        out = os.path.join(self.tmp, 'single.out')
        rc, err = self.run(['-r', ref, '-d', dis] + raw + [FMT_FLAG[fmt], '-o', out, '-q'] + list(extra))
        if rc:
            raise RuntimeError(f'single run failed: {err}')
        with open(out) as f:
            text = f.read()
        os.unlink(out)
        return strip_volatile(text, fmt)

    @staticmethod
    def compare(got_path, expected, fmt):
        """(same, why not) for an output file against a one-pair run's text."""
        if not os.path.exists(got_path):
            return False, f'{got_path} was not written'
        with open(got_path) as f:
            got = strip_volatile(f.read(), fmt)
        if got == expected:
            return True, ''
        a, b = got.splitlines(), expected.splitlines()
        k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        return False, (f'differs from the one-pair run at line {k + 1}: '
                       f'{a[k] if k < len(a) else "<end>"!r} vs {b[k] if k < len(b) else "<end>"!r}')

    def same_output(self, name, got_path, expected, fmt):
        same, why = self.compare(got_path, expected, fmt)
        self.res.check(same, name, why)

    def expect_fail(self, name, argv, *needles, cwd=None):
        """A run that must fail (exit 1) with every needle in one line of stderr."""
        rc, err = self.run(argv, cwd=cwd)
        lines = err.strip().splitlines()
        ok = rc == 1 and all(any(n in l for l in lines) for n in needles)
        self.res.check(ok, name, f'rc {rc}, stderr: {err.strip()[-600:]!r}')
        return err

    # ------------------------------------------------------------ cases

    def run_cases(self):
        self.self_check()
        self.manifest_csv()
        self.manifest_jsonl()
        self.bad_manifests()
        self.ladder()
        self.ladder_refusals()

    def self_check(self):
        """The comparison sees a one-digit change (so the test can fail)."""
        exp = self.single(self.path('tiny_177x99', 'ref'), self.path('tiny_177x99', 'dis'),
                          self.raw('tiny_177x99'), 'json', ['--precision', 'max'])
        changed = os.path.join(self.tmp, 'changed.json')
        with open(changed, 'w') as f:
            f.write(exp.replace('"vmaf": 9', '"vmaf": 8', 1))
        same, _ = self.compare(changed, exp, 'json')
        self.res.check(exp.count('"vmaf": 9') and not same, 'the comparison catches a one-digit change')

    def manifest_csv(self):
        """CSV, four pairs and a missing file in the middle, two at a time."""
        d = os.path.join(self.tmp, 'csv')
        os.makedirs(d)
        c8, c10 = self.clips['cups_576x324'], self.clips['cups_576x324_10b']
        rows = [
            # ref, dis, output, width, height, pix_fmt, bitdepth, model
            (self.path('cups_576x324', 'ref'), self.path('cups_576x324', 'dis'), 'cups.json',
             c8['w'], c8['h'], '420', 8, ''),
            (self.path('noise_320x180', 'ref'), os.path.join(d, 'missing.yuv'), 'missing.json',
             320, 180, '420', 8, ''),
            (self.path('cups_576x324_10b', 'ref'), self.path('cups_576x324_10b', 'dis'), '',
             c10['w'], c10['h'], 'yuv420p', 10, ''),
            (self.path('tiny_177x99', 'ref'), self.path('tiny_177x99', 'dis'), 'sub/tiny.json',
             177, 99, '420', 8, 'version=vmaf_v0.6.1neg:name=neg;version=vmaf_v0.6.1'),
            # the reference against itself, relative paths (from the manifest's folder)
            (os.path.relpath(self.path('noise_320x180', 'ref'), d),
             os.path.relpath(self.path('noise_320x180', 'ref'), d), 'noise_self.json',
             '', '', '', '', ''),
        ]
        os.makedirs(os.path.join(d, 'sub'))
        man = os.path.join(d, 'pairs.csv')
        with open(man, 'w') as f:
            f.write('# a comment, then the header\nref,dis,output,width,height,pix_fmt,bitdepth,model\n')
            for r in rows:
                f.write(','.join(f'"{v}"' if ';' in str(v) or ',' in str(v) else str(v) for v in r) + '\n')
            f.write('\n')
        outdir = os.path.join(d, 'outdir')
        # noise_self has no size in its row: the command line's -w/-h/-p/-b apply
        rc, err = self.run(['--batch', man, '--json', '--precision', 'max', '--feature', 'psnr',
                            '--output-dir', outdir, '--jobs', '2', '-q'] + self.raw('noise_320x180'))
        lines = err.strip().splitlines()
        self.res.check(rc == 1, 'csv: exit status 1 with a failed pair', f'rc {rc}: {err}')
        self.res.check(any(l.startswith(f'tvmaf: {man}:4: ') and 'missing.yuv' in l for l in lines),
                       'csv: the missing file is reported with its line', err)
        self.res.check(lines and lines[-1] == 'tvmaf: batch: 5 pairs, 4 scored, 1 failed (line 4)',
                       'csv: summary line', lines[-1] if lines else '')
        self.res.check(not os.path.exists(os.path.join(d, 'missing.json')),
                       'csv: no output for the failed pair')
        common = ['--precision', 'max', '--feature', 'psnr']
        self.same_output('csv: cups_576x324 (output column)', os.path.join(d, 'cups.json'),
                         self.single(rows[0][0], rows[0][1], self.raw('cups_576x324'), 'json', common),
                         'json')
        self.same_output('csv: cups_576x324_10b (--output-dir, named after the distorted input)',
                         os.path.join(outdir, 'cups_576x324_10b.dis.json'),
                         self.single(rows[2][0], rows[2][1], self.raw('cups_576x324_10b'), 'json',
                                     common), 'json')
        self.same_output('csv: tiny_177x99 with the row\'s two models', os.path.join(d, 'sub', 'tiny.json'),
                         self.single(rows[3][0], rows[3][1], self.raw('tiny_177x99'), 'json',
                                     common + ['-m', 'version=vmaf_v0.6.1neg:name=neg',
                                               '-m', 'version=vmaf_v0.6.1']), 'json')
        self.same_output('csv: noise_320x180 against itself (relative paths, command-line size)',
                         os.path.join(d, 'noise_self.json'),
                         self.single(self.path('noise_320x180', 'ref'), self.path('noise_320x180', 'ref'),
                                     self.raw('noise_320x180'), 'json', common), 'json')

    def manifest_jsonl(self):
        """JSON lines, XML output through -o PATTERN, one pair at a time."""
        d = os.path.join(self.tmp, 'jsonl')
        os.makedirs(d)
        entries = [
            {'ref': self.path('noise_320x180', 'ref'), 'dis': self.path('noise_320x180', 'dis'),
             'width': 320, 'height': 180, 'pix_fmt': '420', 'bitdepth': 8},
            {'ref': self.path('tiny_177x99', 'ref'), 'dis': self.path('tiny_177x99', 'dis'),
             'width': '177', 'height': 99, 'pix_fmt': 420, 'bitdepth': 8,
             'model': ['version=vmaf_v0.6.1:name=vmaf', 'version=vmaf_v0.6.1neg:name=neg']},
        ]
        man = os.path.join(d, 'pairs.jsonl')
        with open(man, 'w') as f:
            for e in entries:
                f.write(json.dumps(e) + '\n')
        pattern = os.path.join(d, 'out_%02d_%s.xml')
        rc, err = self.run(['--batch', man, '--xml', '-o', pattern, '-q'])
        self.res.check(rc == 0 and err.strip() == 'tvmaf: batch: 2 pairs, 2 scored, 0 failed',
                       'jsonl: exit 0 and the summary', f'rc {rc}: {err}')
        self.same_output('jsonl: noise_320x180 (-o out_%02d_%s.xml)', os.path.join(d, 'out_01_noise_320x180.dis.xml'),
                         self.single(entries[0]['ref'], entries[0]['dis'], self.raw('noise_320x180'), 'xml'),
                         'xml')
        self.same_output('jsonl: tiny_177x99 with a model list', os.path.join(d, 'out_02_tiny_177x99.dis.xml'),
                         self.single(entries[1]['ref'], entries[1]['dis'], self.raw('tiny_177x99'), 'xml',
                                     ['-m', 'version=vmaf_v0.6.1:name=vmaf',
                                      '-m', 'version=vmaf_v0.6.1neg:name=neg']), 'xml')

    def bad_manifests(self):
        d = os.path.join(self.tmp, 'bad')
        os.makedirs(d)
        ref, dis = self.path('tiny_177x99', 'ref'), self.path('tiny_177x99', 'dis')
        raw = self.raw('tiny_177x99')

        def write(name, text):
            p = os.path.join(d, name)
            with open(p, 'w') as f:
                f.write(text)
            return p

        # whole-manifest problems: refused before anything is scored
        m = write('unknown.csv', f'ref,dis,outptu\n{ref},{dis},x.json\n')
        self.expect_fail('unknown column', ['--batch', m] + raw, f'{m}:1: unknown column "outptu"')
        self.res.check(not os.path.exists(os.path.join(d, 'x.json')), 'unknown column: nothing written')
        m = write('nodis.csv', f'ref,output\n{ref},x.json\n')
        self.expect_fail('header without dis', ['--batch', m] + raw, 'must name the columns ref and dis')
        m = write('empty.csv', 'ref,dis\n\n# nothing\n')
        self.expect_fail('header only', ['--batch', m] + raw, 'holds no pair (only a header)')
        self.expect_fail('missing manifest', ['--batch', os.path.join(d, 'nope.csv')] + raw,
                         'cannot open the manifest', 'nope.csv')
        self.expect_fail('--batch with -r', ['--batch', m, '-r', ref] + raw, 'give no -r/-d with it')
        self.expect_fail('--batch with -o -', ['--batch', m, '-o', '-'] + raw, '-o - writes one pair')

        # row problems: that row fails with its line, the good rows are scored
        m = write('rows.csv', 'ref,dis,output,width\n'
                              f'{ref},{dis},good1.json,\n'                       # line 2: good
                              f'{ref},{dis},w.json,abc\n'                        # 3: bad width
                              f'{ref},{dis}\n'                                   # 4: 2 fields
                              f'"{ref},{dis},q.json,\n'                          # 5: open quote
                              f',{dis},noref.json,\n'                            # 6: no ref
                              f'{ref},{dis},good1.json,\n'                       # 7: same output
                              f'{ref},-,stdin.json,\n'                           # 8: stdin
                              f'{ref},{dis},good2.json,177\n')                   # 9: good
        err = self.expect_fail('bad rows', ['--batch', m, '--json', '-q'] + raw,
                               f'{m}:3: width "abc" is not an integer',
                               f'{m}:4: 2 fields, the header has 4',
                               f'{m}:5: a quoted field is not closed',
                               f'{m}:6: no ref',
                               f'{m}:7: output "{os.path.join(d, "good1.json")}" is line 2\'s output too',
                               f'{m}:8: dis "-": a batch reads no input from stdin',
                               'tvmaf: batch: 8 pairs, 2 scored, 6 failed (lines 3, 4, 5, 6, 7, 8)')
        exp = self.single(ref, dis, raw, 'json')
        self.same_output('bad rows: line 2 scored', os.path.join(d, 'good1.json'), exp, 'json')
        self.same_output('bad rows: line 9 scored', os.path.join(d, 'good2.json'), exp, 'json')

        m = write('rows.jsonl', f'{{"ref": "{ref}", "dis": "{dis}", "output": "j1.json"}}\n'
                                f'{{"ref": "{ref}", "dis": "{dis}", "output": "j2.json", "widht": 177}}\n'
                                f'{{"ref": "{ref}", "dis": \n'
                                f'["{ref}", "{dis}"]\n'
                                f'{{"ref": "{ref}", "dis": "{dis}", "output": "j5.json", "width": 1.5}}\n'
                                f'{{"ref": "{ref}", "dis": "{dis}", "output": "j6.json", "model": "version=nope"}}\n')
        self.expect_fail('bad JSON lines', ['--batch', m, '--json', '-q'] + raw,
                         f'{m}:2: unknown key "widht"', f'{m}:3: bad JSON', f'{m}:4: not a JSON object',
                         f'{m}:5: width: expected a number', f'{m}:6: ', 'nope',
                         'tvmaf: batch: 6 pairs, 1 scored, 5 failed (lines 2, 3, 4, 5, 6)')
        self.same_output('bad JSON lines: line 1 scored', os.path.join(d, 'j1.json'), exp, 'json')

        m = write('noout.csv', f'ref,dis\n{ref},{dis}\n')
        self.expect_fail('no output anywhere', ['--batch', m] + raw, f'{m}:2: no output')

    def ladder(self):
        """One reference, several distorted inputs: a missing file and a
        shorter input among them, two threads per pair."""
        d = os.path.join(self.tmp, 'ladder')
        os.makedirs(d)
        ref, dis = self.path('cups_576x324', 'ref'), self.path('cups_576x324', 'dis')
        raw = self.raw('cups_576x324')
        short = os.path.join(d, 'short.yuv')  # the distorted input's first 20 frames
        frame = 576 * 324 * 3 // 2
        with open(dis, 'rb') as f, open(short, 'wb') as g:
            g.write(f.read(20 * frame))
        inputs = [dis, ref, os.path.join(d, 'missing.yuv'), short, dis]
        common = ['--feature', 'psnr', '--feature', 'float_ssim', '--threads', '2']
        argv = ['-r', ref] + sum((['-d', x] for x in inputs), []) + raw + common
        for fmt in ('xml', 'csv'):
            rc, err = self.run(argv + [FMT_FLAG[fmt], '-o', os.path.join(d, f'pair%d.{fmt}'), '-q'])
            lines = err.strip().splitlines()
            self.res.check(rc == 1, f'ladder {fmt}: exit status 1 with a failed pair', f'rc {rc}: {err}')
            self.res.check(any(l.startswith('tvmaf: pair 3 (') and 'missing.yuv' in l for l in lines),
                           f'ladder {fmt}: the missing input is reported as pair 3', err)
            self.res.check(f'"{short}" ended before "{ref}".' in lines,
                           f'ladder {fmt}: the short input ends early, as libvmaf says', err)
            self.res.check(lines and lines[-1] == 'tvmaf: batch: 5 pairs, 4 scored, 1 failed (pair 3)',
                           f'ladder {fmt}: summary line', lines[-1] if lines else '')
            for i, x in enumerate(inputs):
                if i == 2:
                    self.res.check(not os.path.exists(os.path.join(d, f'pair3.{fmt}')),
                                   f'ladder {fmt}: no output for the failed pair')
                    continue
                self.same_output(f'ladder {fmt}: pair {i + 1} ({os.path.basename(x)})',
                                 os.path.join(d, f'pair{i + 1}.{fmt}'),
                                 self.single(ref, x, raw, fmt, common), fmt)
        # luma-only features (the default model): the reference's chroma is not read
        rc, err = self.run(['-r', ref, '-d', dis, '-d', ref] + raw +
                           ['--json', '--output-dir', os.path.join(d, 'od'), '-q'])
        self.res.check(rc == 0, 'ladder --output-dir: exit 0', err)
        for x in (dis, ref):
            name = os.path.splitext(os.path.basename(x))[0] + '.json'
            self.same_output(f'ladder --output-dir: {name}', os.path.join(d, 'od', name),
                             self.single(ref, x, raw, 'json'), 'json')
        # motion's SAD is computed once per frame for all pairs (a result kept on the shared
        # reference picture, keyed by the earlier picture): with one and two frames back in
        # the same ladder, each pair still equals its one-pair run
        mot = ['-n', '--feature', 'motion=motion_five_frame_window=true', '--feature', 'motion']
        rc, err = self.run(['-r', ref, '-d', dis, '-d', ref, '-d', dis] + raw + mot +
                           ['--json', '-o', os.path.join(d, 'motion%d.json'), '-q', '--threads', '3'])
        self.res.check(rc == 0, 'ladder, motion at lags 1 and 2: exit 0', err)
        for i, x in enumerate((dis, ref, dis)):
            self.same_output(f'ladder, motion at lags 1 and 2: pair {i + 1}',
                             os.path.join(d, f'motion{i + 1}.json'),
                             self.single(ref, x, raw, 'json', mot), 'json')
        # a distorted input of another size fails alone
        rc, err = self.run(['-r', ref, '-d', dis, '-d', self.path('noise_320x180', 'dis'), '-d', ref]
                           + raw + ['--json', '-o', os.path.join(d, 'mixed%d.json'), '-q'])
        self.res.check(rc == 1 and 'tvmaf: pair 2 (' in err and 'pairs, 2 scored, 1 failed' in err,
                       'ladder: a pair whose input cannot be read at this size fails alone', err)
        self.same_output('ladder: the pair after it is scored', os.path.join(d, 'mixed3.json'),
                         self.single(ref, ref, raw, 'json'), 'json')

    def ladder_refusals(self):
        d = os.path.join(self.tmp, 'refuse')
        os.makedirs(d)
        ref, dis = self.path('tiny_177x99', 'ref'), self.path('tiny_177x99', 'dis')
        raw = self.raw('tiny_177x99')
        base = ['-r', ref, '-d', dis, '-d', ref] + raw
        self.expect_fail('ladder: -o without %d or %s', base + ['-o', os.path.join(d, 'same.json')],
                         'pairs 1 and 2 would both write')
        self.expect_fail('ladder: -o -', base + ['-o', '-'], '-o - writes one pair')
        self.expect_fail('ladder: a bad pattern', base + ['-o', os.path.join(d, '%x.json')],
                         "'%' starts %d")
        self.expect_fail('ladder: --output-dir with two inputs of one name',
                         ['-r', ref, '-d', dis, '-d', dis] + raw + ['--output-dir', d],
                         'pairs 1 and 2 would both write')
        self.expect_fail('ladder: two stdin inputs', ['-r', '-', '-d', dis, '-d', '-'] + raw,
                         'only one of the inputs can be stdin')
        self.res.check(not os.listdir(d), 'ladder refusals: nothing written', str(os.listdir(d)))


if __name__ == '__main__':
    sys.exit(main())
