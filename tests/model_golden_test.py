#!/usr/bin/env python3
"""Model golden test: tvmaf's VMAF scores from the CLI against libvmaf's.

1. Bad model input (no extractor needed): missing file, corrupt JSON, missing
   keys, a feature no extractor provides, an unknown version, bad -m options
   -> a non-zero exit and a message naming the problem.
2. Every clip with a golden: `-m version=vmaf_v0.6.1` against
   CLIP.features.json (vmaf, per frame and pooled), and the models of
   CLIP.models.json (vmaf_neg, vmaf_4k, vmaf_b, vmaf_b_0001..0020,
   vmaf_b_bagging/_stddev/_ci_p95_lo/_ci_p95_hi) run together as the reference
   ran them, compared as doubles, with the key order of the golden. vmaf_float
   joins when float_adm, float_vif and float_motion are built; until then its
   model must be refused naming the missing feature. A run without -m or -n
   scores the default model; a run with --threads 2 is identical.
3. The output formats with a model at default precision
   (goldens/formats/cups_576x324.5frames.vmaf_psnr.*), fps and version aside.

Model files are found through TVMAF_MODEL_PATH=SHARED/models.

usage: model_golden_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

from golden_common import Result, bits, choose_adm_division, read_clips, strip_volatile, test_arg_parser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
POOLS = ['min', 'max', 'mean', 'harmonic_mean']
INTEGER_EXTRACTORS = ['vif', 'adm', 'motion']
FLOAT_EXTRACTORS = ['float_vif', 'float_adm', 'float_motion']
MODELS_RUN = [('vmaf_v0.6.1neg', 'vmaf_neg'), ('vmaf_float_v0.6.1', 'vmaf_float'),
              ('vmaf_4k_v0.6.1', 'vmaf_4k'), ('vmaf_b_v0.6.3', 'vmaf_b')]
ADM_DIV = []  # the --adm-div arguments of every scoring run (choose_adm_division)
COLLECTION_KEYS = (['vmaf_b'] + [f'vmaf_b_{i:04d}' for i in range(1, 21)] +
                   ['vmaf_b_bagging', 'vmaf_b_stddev', 'vmaf_b_ci_p95_lo', 'vmaf_b_ci_p95_hi'])


def clip_args(clip, clip_dir):
    return ['-r', os.path.join(clip_dir, clip['name'] + '.ref.yuv'),
            '-d', os.path.join(clip_dir, clip['name'] + '.dis.yuv'),
            '-w', str(clip['w']), '-h', str(clip['h']), '-p', clip['layout'], '-b', str(clip['bits'])]


def run(exe, clip, clip_dir, args, env, fmt='--json', precision='max'):
    """Returns (output text, None) or (None, error text)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out')
        cmd = [exe] + clip_args(clip, clip_dir) + ['-q', fmt, '-o', out] + ADM_DIV + args
        if precision:
            cmd += ['--precision', precision]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return None, ' '.join(cmd) + '\n' + p.stderr.strip()
        with open(out) as f:
            return f.read(), None


def compare(ours, gold, keys, label, res):
    """Every golden value of `keys` must be in `ours`, identical as a double."""
    bad, n = [], 0
    if len(ours['frames']) != len(gold['frames']):
        res.check(False, label, f"{len(ours['frames'])} frames, golden has {len(gold['frames'])}")
        return
    for fo, fg in zip(ours['frames'], gold['frames']):
        for k in keys:
            if k not in fg['metrics']:
                continue
            n += 1
            if k not in fo['metrics']:
                bad.append(f"frame {fg['frameNum']} {k} missing")
            elif bits(fo['metrics'][k]) != bits(fg['metrics'][k]):
                bad.append(f"frame {fg['frameNum']} {k} {fo['metrics'][k]!r} != {fg['metrics'][k]!r}")
    for k in keys:
        if k not in gold['pooled_metrics']:
            continue
        for m in POOLS:
            n += 1
            o = ours['pooled_metrics'].get(k, {})
            if m not in o:
                bad.append(f'pooled {k}.{m} missing')
            elif bits(o[m]) != bits(gold['pooled_metrics'][k][m]):
                bad.append(f"pooled {k}.{m} {o[m]!r} != {gold['pooled_metrics'][k][m]!r}")
    if n == 0:
        res.check(False, label, 'no golden value compared')
        return
    res.check(not bad, f'{label} ({n - len(bad)}/{n} identical)', '; '.join(bad[:5]))


def first_difference(g, o):
    gl, ol = g.splitlines(), o.splitlines()
    for j in range(max(len(gl), len(ol))):
        x = gl[j] if j < len(gl) else '<eof>'
        y = ol[j] if j < len(ol) else '<eof>'
        if x != y:
            return f'line {j + 1}: golden {x!r} ours {y!r}'
    return ''


def bad_input(exe, clip, clip_dir, env, res):
    """Bad models: non-zero exit, a message with every expected word."""
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(env['TVMAF_MODEL_PATH'].split(':')[0], 'vmaf_v0.6.1.json')
        with open(good) as f:
            model = json.load(f)

        def write(name, obj=None, text=None):
            path = os.path.join(tmp, name)
            with open(path, 'w') as f:
                f.write(text if text is not None else json.dumps(obj))
            return path

        def variant(change):
            m = json.loads(json.dumps(model))
            change(m['model_dict'])
            return m

        cases = [
            ('missing model file', ['-m', 'path=' + os.path.join(tmp, 'nope.json')],
             ['nope.json', 'No such file']),
            ('corrupt JSON', ['-m', 'path=' + write('corrupt.json', text='{"model_dict": {"norm_type": ')],
             ['corrupt.json', 'not valid JSON']),
            ('missing model_dict', ['-m', 'path=' + write('nodict.json', {'param_dict': {}})],
             ['model_dict']),
            ('missing feature_names', ['-m', 'path=' + write('nonames.json', variant(lambda d: d.pop('feature_names')))],
             ['feature_names']),
            ('missing libsvm model', ['-m', 'path=' + write('nosvm.json', variant(lambda d: d.pop('model')))],
             ['no model']),
            ('missing norm_type', ['-m', 'path=' + write('nonorm.json', variant(lambda d: d.pop('norm_type')))],
             ['norm_type']),
            ('unknown norm_type', ['-m', 'path=' + write('norm.json', variant(lambda d: d.update(norm_type='log')))],
             ['unknown norm_type', 'log']),
            ('slopes of the wrong type', ['-m', 'path=' + write('slopes.json', variant(lambda d: d.update(slopes='1')))],
             ['slopes']),
            ('libsvm text that does not parse',
             ['-m', 'path=' + write('svm.json', variant(lambda d: d.update(model=d['model'].replace('rho', 'rhoo'))))],
             ['libsvm', 'rhoo']),
            ('a feature that does not exist',
             ['-m', 'path=' + write('feat.json', variant(lambda d: d['feature_names'].__setitem__(0, 'VMAF_no_such_feature')))],
             ['VMAF_no_such_feature', 'no extractor']),
            ('unknown version', ['-m', 'version=vmaf_v9.9.9'],
             ['vmaf_v9.9.9', 'not found', env['TVMAF_MODEL_PATH'].split(':')[0]]),
            ('bad -m option', ['-m', 'version=vmaf_v0.6.1:bogus'], ['bogus']),
            ('-m without path or version', ['-m', 'name=x'], ['path', 'version']),
            ('two models of the same name', ['-m', 'version=vmaf_v0.6.1', '-m', 'version=vmaf_4k_v0.6.1'],
             ['named', 'vmaf']),
            ('overload of an unknown option', ['-m', 'version=vmaf_v0.6.1:psnr.x=1'], ['psnr']),
        ]
        for label, args, words in cases:
            cmd = [exe] + clip_args(clip, clip_dir) + ['-q', '--frame_cnt', '2', '--json',
                                                        '-o', os.path.join(tmp, 'out.json')] + args
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            msg = p.stderr.strip()
            ok = p.returncode != 0 and all(w.lower() in msg.lower() for w in words) and \
                'Traceback' not in msg and p.returncode < 128
            res.check(ok, f'bad model input: {label} refused', f'rc={p.returncode} stderr={msg!r}')
            res.check(not os.path.exists(os.path.join(tmp, 'out.json')),
                      f'bad model input: {label} writes no output', 'output file exists')



def main():
    ap = test_arg_parser()
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    ADM_DIV[:] = choose_adm_division(exe)
    shared = os.path.abspath(a.shared)
    goldens = os.path.join(shared, 'testdata', 'goldens')
    subprocess.run(['bash', os.path.join(shared, 'testdata', 'make_clips.sh'), a.clips], check=True)
    env = dict(os.environ, TVMAF_MODEL_PATH=os.path.join(shared, 'models'))
    res = Result()
    clips = read_clips(shared)
    by_name = {c['name']: c for c in clips}

    bad_input(exe, by_name['cups_576x324'], a.clips, env, res)

    listed = subprocess.run([exe, '--list-features'], capture_output=True, text=True, check=True).stdout
    implemented = {l.split()[0] for l in listed.splitlines() if l.strip()}
    missing = [f for f in INTEGER_EXTRACTORS if f not in implemented]
    if missing:
        res.check(False, 'integer extractors built', f'missing {missing}: no model can be scored')
        print(f'{res.passed} passed, {res.failed} failed')
        return 1
    have_float = all(f in implemented for f in FLOAT_EXTRACTORS)

    for clip in clips:
        # vmaf_v0.6.1 by version, against the features golden
        gpath = os.path.join(goldens, clip['name'] + '.features.json')
        if not os.path.exists(gpath):
            continue
        with open(gpath) as f:
            gold = json.load(f)
        text, err = run(exe, clip, a.clips, ['-m', 'version=vmaf_v0.6.1'], env)
        label = f"{clip['name']} vmaf_v0.6.1"
        if err:
            res.check(False, label, err)
        else:
            compare(json.loads(text), gold, ['vmaf'], label, res)

        # the models golden: the reference's four models in one run
        gpath = os.path.join(goldens, clip['name'] + '.models.json')
        with open(gpath) as f:
            gold = json.load(f)
        runs = [(v, n) for v, n in MODELS_RUN if have_float or n != 'vmaf_float']
        args = [x for v, n in runs for x in ('-m', f'version={v}:name={n}')]
        text, err = run(exe, clip, a.clips, args, env)
        label = f"{clip['name']} {'+'.join(n for _, n in runs)}"
        if err:
            res.check(False, label, err)
            continue
        ours = json.loads(text)
        keys = [n for _, n in runs if n != 'vmaf_b'] + COLLECTION_KEYS
        compare(ours, gold, keys, label, res)
        gkeys = list(gold['frames'][0]['metrics'])
        okeys = list(ours['frames'][0]['metrics'])
        res.check(okeys == [k for k in gkeys if k in okeys] and set(keys) <= set(okeys),
                  f"{clip['name']}: model keys in the golden's order", f'ours {okeys}')
        feats = [k for k in okeys if k not in keys]
        compare(ours, gold, feats, f"{clip['name']} features pulled in by the models", res)

    if not have_float:
        clip = by_name['cups_576x324']
        cmd = [exe] + clip_args(clip, a.clips) + ['-q', '-m', 'version=vmaf_float_v0.6.1']
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        res.check(p.returncode != 0 and 'VMAF_feature_adm2_score' in p.stderr,
                  'vmaf_float refused without float extractors, naming the feature', p.stderr.strip())

    # the default model, and threads
    clip = by_name['cups_576x324']
    with open(os.path.join(goldens, clip['name'] + '.features.json')) as f:
        gold = json.load(f)
    for args, label in (([], 'no -m: default model vmaf_v0.6.1'),
                        (['--threads', '2'], 'vmaf_v0.6.1 with --threads 2'),
                        (['--threads', '3', '-m', 'version=vmaf_b_v0.6.3:name=vmaf_b'], None)):
        text, err = run(exe, clip, a.clips, args, env)
        if label is None:
            with open(os.path.join(goldens, clip['name'] + '.models.json')) as f:
                gb = json.load(f)
            label = 'vmaf_b_v0.6.3 alone with --threads 3'
            if err:
                res.check(False, label, err)
            else:
                compare(json.loads(text), gb, COLLECTION_KEYS, label, res)
            continue
        if err:
            res.check(False, label, err)
        else:
            compare(json.loads(text), gold, ['vmaf'], label, res)

    # output formats with a model, at default precision
    for fmt in ('json', 'xml', 'csv', 'sub'):
        gpath = os.path.join(goldens, 'formats', f'cups_576x324.5frames.vmaf_psnr.{fmt}')
        with open(gpath) as f:
            gtext = f.read()
        text, err = run(exe, clip, a.clips, ['-m', 'version=vmaf_v0.6.1', '--feature', 'psnr',
                                             '--frame_cnt', '5'], env, fmt='--' + fmt, precision=None)
        label = f'format {fmt} equals {os.path.basename(gpath)} (fps, version aside)'
        if err:
            res.check(False, label, err)
            continue
        g, o = strip_volatile(gtext, fmt), strip_volatile(text, fmt)
        res.check(g == o, label, first_difference(g, o))

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
