"""--gpus: every listed device of a GPU backend scores, with the bits of one
device.

- a manifest (--batch) and a ladder over `--gpus 0,0` (two contexts on device
  0; on a multi-GPU host `--gpus 0,1`): every pair's output equals, byte for
  byte less the fps timing, a one-pair run on the CPU and on the backend;
- a ladder of three pairs on one device (default model, psnr, float_motion,
  ciede): each pair equals its one-pair CPU run, and on CUDA the statistics
  show the reference pictures uploaded once and shared by the other pairs;
- one long pair split into frame ranges, one per listed device, each range
  after the first primed with warm-up frames (cups_576x324, 48 frames: motion,
  float_motion, speed_temporal, psnr with its stream aggregate, the vmaf and
  vmaf_float models): the JSON and CSV outputs equal the unsplit run's,
  per-frame values, pooled means and model scores included, with 2 and 3
  ranges, with --subsample, and with --frame_skip/--frame_cnt; the negative
  control (the test build tvmaf-test-hooks with TVMAF_TEST_SPLIT_WARMUP=0: ranges
  without warm-up) must differ, so the comparison can fail, and the plain CLI
  ignores that variable;
- refusals: a device number past the device count, a malformed list, --gpus
  with --backend cpu, --gpus with --gpu: one clear line, exit status 1.

Sampled by default, whole with TVMAF_TEST_FULL=1 (about half the time by default):
- the three-pair ladder on cups_576x324 scores its first 16 frames on CUDA (--frame_cnt 16, the
  fewest for CUDA's upload counts), 8 on OpenCL (which reports no counts), all 48 with
  TVMAF_TEST_FULL=1; the 10-bit ladder is whole;
- the split checks each of its four variants in one format and each format against the
  unsplit and CPU runs: JSON with 2 ranges and with --subsample, CSV with 3 ranges and with
  --frame_skip/--frame_cnt; TVMAF_TEST_FULL=1 checks every variant in both formats.
TVMAF_TEST_QUICK=1 (the sanitizer pass) checks the JSON half of the split only.

usage: gpus_test.py TVMAF_EXE --backend opencl|cuda [--clips DIR]
TVMAF_TEST_GPUS=LIST replaces the two-entry list 0,0 (a multi-GPU host: 0,1);
the three-range split uses LIST,0. TVMAF_TEST_GPU_FRAMES=N scores the first N frames in the
split and the memory-limited ladder (tests/meson.build sets it: the CUDA driver stand-in and PoCL
run every work-item on the CPU).
Exits 77 (skip) when the backend has no device here (CUDA without a GPU); on
PoCL (OpenCL's CPU device) it runs in CI.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import (Result, full_env, load_clips, quick_env, strip_volatile,  # noqa: E402
                           test_arg_parser)

FMT_FLAG = {'json': '--json', 'csv': '--csv', 'xml': '--xml'}
SPLIT_FEATURES = ['--feature', 'motion', '--feature', 'float_motion', '--feature', 'speed_temporal',
                  '--feature', 'psnr=enable_apsnr=true',
                  '-m', 'version=vmaf_v0.6.1', '-m', 'version=vmaf_float_v0.6.1:name=vmaf_float']


def main():
    ap = test_arg_parser()
    ap.add_argument('--backend', required=True, choices=('opencl', 'cuda'))
    args = ap.parse_args()
    exe = os.path.abspath(args.tvmaf)
    clips = load_clips(args.clips, ('cups_576x324', 'cups_576x324_10b', 'tiny_177x99'))
    if clips is None:
        return 1
    res = Result()
    tmp = tempfile.mkdtemp(prefix='tvmaf_gpus_')
    try:
        t = Test(exe, args.backend, args.clips, clips, tmp, res)
        t.refusals()  # these need no device
        if not t.device_present():
            print(f'{res.passed} passed, {res.failed} failed')
            if res.failed:
                return 1
            print(f'SKIP: no {args.backend} device here')
            return 77
        t.batch()
        t.ladder()
        t.ladder_shared()
        t.ladder_shared('cups_576x324_10b')
        t.ladder_no_room()
        t.split()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


class Test:
    def __init__(self, exe, backend, clip_dir, clips, tmp, res):
        self.exe, self.backend, self.clip_dir = exe, backend, clip_dir
        self.clips, self.tmp, self.res = clips, tmp, res
        self.quick = quick_env()
        self.full = full_env()
        self.gpus = os.environ.get('TVMAF_TEST_GPUS', '0,0')
        # the split and the memory-limited ladder score this many frames of their 48; 0: all
        self.cap = int(os.environ.get('TVMAF_TEST_GPU_FRAMES', '0'))
        self.capped = ['--frame_cnt', str(self.cap)] if self.cap else []
        self.gpus3 = self.gpus + ',0'

    def path(self, name, which):
        return os.path.join(self.clip_dir, f'{name}.{which}.yuv')

    def raw(self, name):
        c = self.clips[name]
        return ['-w', str(c['w']), '-h', str(c['h']), '-p', c['layout'], '-b', str(c['bits'])]

    def pair(self, name):
        return ['-r', self.path(name, 'ref'), '-d', self.path(name, 'dis')] + self.raw(name)

    def run(self, argv, env=None, stdin=None):
        e = dict(os.environ)
        e.update(env or {})
        with open(stdin or os.devnull, 'rb') as f:
            p = subprocess.run([self.exe] + argv, capture_output=True, text=True, env=e, stdin=f)
        return p.returncode, p.stderr

    def output(self, argv, fmt, env=None):
        """The output of a run (fps and version dropped), or raises with its stderr."""
        out = os.path.join(self.tmp, 'one.out')
        if os.path.exists(out):
            os.unlink(out)
        rc, err = self.run(argv + [FMT_FLAG[fmt], '-o', out, '-q'], env)
        if rc:
            raise RuntimeError(f'tvmaf {" ".join(argv)} failed: {err.strip()}')
        with open(out) as f:
            return strip_volatile(f.read(), fmt)

    def read(self, path, fmt):
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return strip_volatile(f.read(), fmt)

    def same(self, name, got, expected):
        if got is None:
            self.res.check(False, name, 'no output written')
            return
        if got == expected:
            self.res.check(True, name)
            return
        a, b = got.splitlines(), expected.splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                self.res.check(False, name, f'line {i + 1}: {x.strip()!r} != {y.strip()!r}')
                return
        self.res.check(False, name, f'{len(a)} lines against {len(b)}')

    def device_present(self):
        rc, err = self.run(self.pair('tiny_177x99') + ['--backend', self.backend, '--gpus', '0',
                                                       '-n', '--feature', 'psnr', '-o', '/dev/null'])
        if rc and 'no usable' not in err and 'no usable device' not in err:
            self.res.check(False, 'device probe', err.strip())
        return rc == 0

    # ------------------------------------------------------------ cases

    def refusals(self):
        tiny = self.pair('tiny_177x99') + ['-n', '--feature', 'psnr', '-o', '/dev/null']
        be = ['--backend', self.backend]
        cases = [
            ('a device past the count', be + ['--gpus', '7'], ('--gpus 7',)),
            ('a device far past the count', be + ['--gpus', '0,4096'], ('--gpus 0,4096',)),
            ('not a number', be + ['--gpus', 'x'], ('invalid value "x" for --gpus',)),
            ('an empty entry', be + ['--gpus', '0,'], ('invalid value "0," for --gpus',)),
            ('a negative number', be + ['--gpus', '-1'], ('invalid value "-1" for --gpus',)),
            ('an empty list', be + ['--gpus', ''], ('invalid value "" for --gpus',)),
            ('--backend cpu', ['--backend', 'cpu', '--gpus', '0'], ('--backend cpu',)),
            ('--gpu and --gpus', be + ['--gpu', '0', '--gpus', '0'], ('not both',)),
        ]
        for what, argv, needles in cases:
            rc, err = self.run(tiny + argv)
            lines = [l for l in err.splitlines() if l.strip()]
            ok = rc == 1 and len(lines) == 1 and all(n in err for n in needles)
            self.res.check(ok, f'refused: {what}', f'rc {rc}, stderr {err.strip()!r}')
        # a device past the count names the backend and what the machine has
        rc, err = self.run(tiny + be + ['--gpus', '7'])
        self.res.check(rc == 1 and (f'no {self.backend} device 7' in err or 'no usable device' in err),
                       'past the count: says which devices exist', err.strip())

    def batch(self):
        """A manifest over --gpus 0,0: a worker per listed device, each pair
        the bits of its one-pair runs (CPU and the backend)."""
        rows = [('cups_576x324', 'a.json'), ('cups_576x324_10b', 'b.json'), ('tiny_177x99', 'c.json')]
        d = os.path.join(self.tmp, 'batch')
        os.makedirs(d)
        man = os.path.join(d, 'pairs.csv')
        with open(man, 'w') as f:
            f.write('ref,dis,output,width,height,pix_fmt,bitdepth\n')
            for name, out in rows:
                c = self.clips[name]
                f.write(f'{self.path(name, "ref")},{self.path(name, "dis")},{out},{c["w"]},{c["h"]},'
                        f'{c["layout"]},{c["bits"]}\n')
        opts = ['--feature', 'psnr', '--feature', 'float_motion', '--precision', 'max']
        rc, err = self.run(['--batch', man, '--json', '--backend', self.backend, '--gpus', self.gpus]
                           + opts)
        self.res.check(rc == 0 and 'batch: 3 pairs, 3 scored, 0 failed' in err,
                       f'batch over --gpus {self.gpus}: every pair scored', err.strip())
        for name, out in rows:
            got = self.read(os.path.join(d, out), 'json')
            self.same(f'batch --gpus {self.gpus}: {name} = one-pair CPU run', got,
                      self.output(self.pair(name) + ['--backend', 'cpu'] + opts, 'json'))
            self.same(f'batch --gpus {self.gpus}: {name} = one-pair {self.backend} run', got,
                      self.output(self.pair(name) + ['--backend', self.backend] + opts, 'json'))

    def ladder(self):
        """A ladder of two distorted inputs over --gpus 0,0: pair i on device i mod 2."""
        name = 'cups_576x324'
        d = os.path.join(self.tmp, 'ladder')
        os.makedirs(d)
        opts = ['--precision', 'max', '--feature', 'psnr']
        rc, err = self.run(['-r', self.path(name, 'ref'), '-d', self.path(name, 'dis'),
                            '-d', self.path(name, 'ref')] + self.raw(name) +
                           ['--backend', self.backend, '--gpus', self.gpus, '--csv', '-q',
                            '-o', os.path.join(d, 'l_%d.csv')] + opts)
        self.res.check(rc == 0, f'ladder over --gpus {self.gpus}', err.strip())
        for i, dis in ((1, 'dis'), (2, 'ref')):
            exp = self.output(['-r', self.path(name, 'ref'), '-d', self.path(name, dis)] +
                              self.raw(name) + ['--backend', 'cpu'] + opts, 'csv')
            self.same(f'ladder --gpus {self.gpus}: pair {i} = one-pair CPU run',
                      self.read(os.path.join(d, f'l_{i}.csv'), 'csv'), exp)

    def ladder_shared(self, name='cups_576x324'):
        """A ladder of three pairs on one device (default model and more): the
        reference's pictures are uploaded once for the pairs (CUDA: the
        statistics count them), and so are the twins' reference-side results
        (CUDA: vif's and adm's reference passes, motion's SAD), and every pair is the bits of its
        one-pair CPU run. A cache keyed wrongly (a constant key, a stale
        entry) gives a pair another frame's reference, which the comparison
        sees."""
        frames = self.clips[name]['frames']
        d = os.path.join(self.tmp, 'ladder_shared_' + name)
        os.makedirs(d)
        opts = ['--precision', 'max', '--feature', 'psnr', '--feature', 'float_motion',
                '--feature', 'ciede']
        # the sample (module docstring): 16 frames keep every count checked below, which
        # only CUDA reports; elsewhere the pairs' bits are the check, and 8 frames are
        # twice the frames in flight of --threads 4
        sample = 16 if self.backend == 'cuda' else 8
        if frames > sample and not self.full:
            frames = sample
            opts += ['--frame_cnt', str(frames)]
        dis = ('dis', 'ref', 'dis')
        argv = ['-r', self.path(name, 'ref')]
        for w in dis:
            argv += ['-d', self.path(name, w)]
        rc, err = self.run(argv + self.raw(name) + ['--backend', self.backend, '--gpu-stats',
                                                    '--threads', '4', '--json', '-q',
                                                    '-o', os.path.join(d, 's_%d.json')] + opts)
        self.res.check(rc == 0, f'ladder of three on one device ({name})', err.strip()[-2000:])
        for i, w in enumerate(dis, 1):
            exp = self.output(['-r', self.path(name, 'ref'), '-d', self.path(name, w)] +
                              self.raw(name) + ['--backend', 'cpu'] + opts, 'json')
            self.same(f'shared-reference ladder ({name}): pair {i} = one-pair CPU run',
                      self.read(os.path.join(d, f's_{i}.json'), 'json'), exp)
        if self.backend != 'cuda':
            return
        # vif's and adm's reference passes: each once per uploaded picture
        # (an entry given to a picture is filled once, then read by every
        # pair holding it); every pair counts two per frame
        res = re.findall(r'reference-side results: (\d+) computed, (\d+) shared', err)
        made = sum(int(m) for m, _ in res)
        ups = sum(int(u) for u in re.findall(r'of the ladder: (\d+) uploaded', err))
        self.res.check(len(res) == len(dis) and all(int(m) + int(s) == 2 * frames for m, s in res)
                       and made == 2 * ups,
                       f'shared-reference ladder ({name}): vif\'s and adm\'s reference passes '
                       'once per uploaded picture, every pair counting each frame once',
                       f'{res}, {ups} uploaded, {frames} frames')
        # motion's SAD of two reference pictures, kept with the host picture
        # (tvmaf_picture_once): each pair counts every frame after the first
        # once, computed or read; every pair holds the picture until it has
        # scored it, and kept results stay while a context holds it, so each
        # SAD is computed once
        host = re.findall(r'results kept with the host reference pictures: (\d+) computed, '
                          r'(\d+) shared', err)
        hmade = sum(int(m) for m, _ in host)
        self.res.check(len(host) == len(dis) and
                       all(int(m) + int(s) == frames - 1 for m, s in host) and
                       hmade == frames - 1,
                       f'shared-reference ladder ({name}): motion\'s SAD computed once per frame, '
                       'every pair counting each frame once',
                       f'{host}, {frames} frames')
        if frames < 16:
            return
        counts = re.findall(r'reference pictures of the ladder: (\d+) uploaded, (\d+) shared', err)
        up = sum(int(u) for u, _ in counts)
        shared = sum(int(s) for _, s in counts)
        self.res.check(len(counts) == len(dis) and all(int(u) + int(s) == frames for u, s in counts),
                       'shared-reference ladder: every pair counts each reference picture once',
                       f'{counts}, {frames} frames')
        # each picture is uploaded at least once; the pairs run together, so
        # most are shared (a cache that never hits uploads 3 x frames)
        self.res.check(frames <= up < 2 * frames and shared > frames,
                       'shared-reference ladder: the reference pictures mostly uploaded once',
                       f'{up} uploaded, {shared} shared, {frames} frames x {len(dis)} pairs')

    def ladder_no_room(self):
        """A ladder whose shared reference pictures and results do not fit the
        memory limit (CUDA): with exactly the memory its pairs use unshared,
        each pair says so and uploads and computes its own, and every pair is
        still the bits of its one-pair CPU run (the sharing saves work, it
        must not make a ladder fail)."""
        if self.backend != 'cuda':
            return
        name = 'cups_576x324'
        d = os.path.join(self.tmp, 'ladder_no_room')
        os.makedirs(d)
        dis = ('dis', 'ref')
        argv = ['-r', self.path(name, 'ref')]
        for w in dis:
            argv += ['-d', self.path(name, w)]
        argv += self.raw(name) + ['--backend', 'cuda', '--gpu-stats', '--threads', '4', '--json',
                                  '-q', '--precision', 'max', '-o', os.path.join(d, 'n_%d.json')]
        argv += self.capped
        rc, err = self.run(argv + ['--no-reference-sharing'])
        used = [int(x) for x in re.findall(r'device memory of this context (\d+) bytes', err)]
        ok = rc == 0 and len(used) == len(dis)
        self.res.check(ok, 'ladder without sharing reports its device memory', err[-1500:])
        if not ok:
            return
        rc, err = self.run(argv + ['--gpu-mem-limit', str(max(used))])
        notes = re.findall(r'tvmaf NOTE cuda: .*shared reference.*do not fit.*', err)
        self.res.check(rc == 0 and len(notes) == 2 * len(dis) and
                       'reference pictures of the ladder' not in err,
                       'ladder past the memory limit for sharing: every pair notes it and runs '
                       'unshared', err[-1500:])
        for i, w in enumerate(dis, 1):
            exp = self.output(['-r', self.path(name, 'ref'), '-d', self.path(name, w)] +
                              self.raw(name) + ['--backend', 'cpu', '--precision', 'max'] +
                              self.capped, 'json')
            self.same(f'ladder past the memory limit for sharing: pair {i} = one-pair CPU run',
                      self.read(os.path.join(d, f'n_{i}.json'), 'json'), exp)

    def split(self):
        """One pair in frame ranges, one per listed device."""
        name = 'cups_576x324'
        base = self.pair(name) + ['--precision', 'max'] + SPLIT_FEATURES + self.capped
        be = ['--backend', self.backend]
        variants = [('2 ranges', ['--gpus', self.gpus], []), ('3 ranges', ['--gpus', self.gpus3], []),
                    ('2 ranges, --subsample 5', ['--gpus', self.gpus], ['--subsample', '5']),
                    ('2 ranges, skip 3 and 2, --frame_cnt 40', ['--gpus', self.gpus],
                     ['--frame_skip_ref', '3', '--frame_skip_dist', '2', '--frame_cnt', '40'])]
        # (format, variants): everything with TVMAF_TEST_FULL=1, else each variant in one format
        if self.full:
            plan = [('json', variants), ('csv', variants)]
        else:
            plan = [('json', variants[0::2]), ('csv', variants[1::2])]
            if self.quick:
                plan = plan[:1]
        whole = {}
        for fmt, fmt_variants in plan:
            whole[fmt] = self.output(base + be, fmt)
            cpu = self.output(base + ['--backend', 'cpu'], fmt)
            self.same(f'split: the unsplit {self.backend} run = the CPU run ({fmt})', whole[fmt], cpu)
            for what, gpus, extra in fmt_variants:
                exp = whole[fmt] if not extra else self.output(base + be + extra, fmt)
                got = self.output(base + be + gpus + extra, fmt)
                self.same(f'split {what} = unsplit ({fmt})', got, exp)
        # the comparison can fail: ranges without warm-up frames differ
        # (motion's first sad score of a range, motion2, speed_temporal, vmaf)
        # (the hook is in the test build only: the installed CLI ignores it)
        hooks = os.path.join(os.path.dirname(self.exe), 'tvmaf-test-hooks')
        plain_exe, self.exe = self.exe, hooks
        try:
            got = self.output(base + be + ['--gpus', self.gpus], 'json', {'TVMAF_TEST_SPLIT_WARMUP': '0'})
        finally:
            self.exe = plain_exe
        unsplit = whole['json']
        self.res.check(got != unsplit,
                       'negative control: ranges without warm-up differ from the unsplit run')
        got = self.output(base + be + ['--gpus', self.gpus], 'json', {'TVMAF_TEST_SPLIT_WARMUP': '0'})
        self.same('the installed CLI has no test hook (TVMAF_TEST_SPLIT_WARMUP ignored)', got, unsplit)
        # a model-less, feature-less run (-n alone) and a pipe take the plain path
        rc, err = self.run(['-r', '-', '-d', self.path(name, 'dis')] + self.raw(name) + be +
                           ['--gpus', self.gpus, '-n', '--feature', 'psnr', '-o', '/dev/null'],
                           stdin=self.path(name, 'ref'))
        self.res.check(rc == 0 and 'a pipe does not allow' in err,
                       'a pipe is scored on the first device, with a note', err.strip())


if __name__ == '__main__':
    sys.exit(main())
