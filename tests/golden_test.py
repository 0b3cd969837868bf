#!/usr/bin/env python3
"""Golden test: tvmaf's CPU scores against libvmaf's, compared as doubles.

For every clip of ../shared/testdata/clips.tsv with a golden file, runs
`tvmaf --precision max --json` with the features this build implements and
requires every golden key of those features to be present and identical as a
double, per frame and pooled (a missing key fails). Then the option goldens
(goldens/options/) of implemented features, the four output formats at
default precision (goldens/formats/, apart from fps and version), a thread
count other than one, each clip's first frame alone on several threads (the
frame's work shared within it), and the clips without a golden (tiny_177x99: scored on
every frame).

usage: golden_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from golden_common import Result, bits, choose_adm_division, read_clips, same, strip_volatile, test_arg_parser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ADM_DIV = []  # the --adm-div arguments of every run (choose_adm_division)

# Output keys of each extractor, as libvmaf names them. An extractor's keys
# are checked once `tvmaf --list-features` lists it.
FEATURE_KEYS = {
    'psnr': ['psnr_y', 'psnr_cb', 'psnr_cr'],
    'ciede': ['ciede2000'],
    'motion': ['VMAF_integer_feature_motion_sad_score', 'integer_motion2', 'integer_motion3'],
    'vif': ['integer_vif_scale0', 'integer_vif_scale1', 'integer_vif_scale2', 'integer_vif_scale3'],
    'adm': ['integer_adm2', 'integer_aim', 'integer_adm3', 'integer_adm_scale0', 'integer_adm_scale1',
            'integer_adm_scale2', 'integer_adm_scale3'],
    'float_psnr': ['float_psnr'],
    'float_ansnr': ['float_ansnr', 'float_anpsnr'],
    'float_moment': ['float_moment_ref1st', 'float_moment_dis1st', 'float_moment_ref2nd',
                     'float_moment_dis2nd'],
    'float_adm': ['adm2', 'aim', 'adm3', 'adm_scale0', 'adm_scale1', 'adm_scale2', 'adm_scale3'],
    'float_vif': ['vif_scale0', 'vif_scale1', 'vif_scale2', 'vif_scale3'],
    'float_motion': ['motion2', 'motion', 'motion3'],
    'float_ssim': ['float_ssim'],
    'float_ms_ssim': ['float_ms_ssim'],
    'cambi': ['cambi'],
    'psnr_hvs': ['psnr_hvs_y', 'psnr_hvs_cb', 'psnr_hvs_cr', 'psnr_hvs'],
    'speed_chroma': ['speed_chroma_u', 'speed_chroma_v', 'speed_chroma_uv'],
    'speed_temporal': ['speed_temporal'],
}
POOLS = ['min', 'max', 'mean', 'harmonic_mean']


def ensure_clips(shared, clip_dir):
    script = os.path.join(shared, 'testdata', 'make_clips.sh')
    subprocess.run(['bash', script, clip_dir], check=True)


def run_tvmaf(exe, clip, clip_dir, args, fmt='--json', precision='max'):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out')
        cmd = [exe, '-r', os.path.join(clip_dir, clip['name'] + '.ref.yuv'),
               '-d', os.path.join(clip_dir, clip['name'] + '.dis.yuv'),
               '-w', str(clip['w']), '-h', str(clip['h']), '-p', clip['layout'],
               '-b', str(clip['bits']), '-q', '-n', fmt, '-o', out] + ADM_DIV + args
        if precision:
            cmd += ['--precision', precision]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return None, ' '.join(cmd) + '\n' + p.stderr.strip()
        with open(out) as f:
            return f.read(), None


def compare(ours, gold, keys, label, res, aggregates=False):
    """Every golden value of `keys` (and aggregates) must be in `ours`, identical."""
    bad = []
    n = 0
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
            elif not same(fo['metrics'][k], fg['metrics'][k]):
                bad.append(f"frame {fg['frameNum']} {k} {fo['metrics'][k]!r} != {fg['metrics'][k]!r}")
    for k in keys:
        if k not in gold['pooled_metrics']:
            continue
        for m in POOLS:
            n += 1
            g = gold['pooled_metrics'][k][m]
            o = ours['pooled_metrics'].get(k, {})
            if m not in o:
                bad.append(f'pooled {k}.{m} missing')
            elif not same(o[m], g):
                bad.append(f'pooled {k}.{m} {o[m]!r} != {g!r}')
    if aggregates:
        for k, g in gold.get('aggregate_metrics', {}).items():
            n += 1
            o = ours.get('aggregate_metrics', {})
            if k not in o:
                bad.append(f'aggregate {k} missing')
            elif not same(o[k], g):
                bad.append(f'aggregate {k} {o[k]!r} != {g!r}')
    if n == 0:
        res.check(False, label, 'no golden value compared')
        return
    res.check(not bad, f'{label} ({n - len(bad)}/{n} identical)', '; '.join(bad[:5]))


# Workers for the one-frame runs: more than the frame's band count needs is
# harmless; several, so that some band runs off the poster's thread.
TEAM_THREADS = 4
# Keys whose frame 0 reads the frames after it (motion3 takes the next
# frame's motion): a one-frame run cannot have the golden's value.
LOOK_AHEAD_KEYS = {'integer_motion3', 'motion3'}


def main():
    ap = test_arg_parser()
    ap.add_argument('--threads', default='2')
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    ADM_DIV[:] = choose_adm_division(exe)
    shared = os.path.abspath(a.shared)
    goldens = os.path.join(shared, 'testdata', 'goldens')
    ensure_clips(shared, a.clips)
    res = Result()

    listed = subprocess.run([exe, '--list-features'], capture_output=True, text=True, check=True).stdout
    implemented = [l.split()[0] for l in listed.splitlines() if l.strip()]
    features = [f for f in FEATURE_KEYS if f in implemented]
    res.check(bool(features), 'implemented features listed', listed)
    keys = [k for f in features for k in FEATURE_KEYS[f]]
    feat_args = [x for f in features for x in ('--feature', f)]
    clips = read_clips(shared)

    # 1. every clip with a golden, every implemented feature, 1 thread and N threads
    for clip in clips:
        gpath = os.path.join(goldens, clip['name'] + '.features.json')
        if not os.path.exists(gpath):
            continue
        with open(gpath) as f:
            gold = json.load(f)
        present = [f for f in features if any(k in gold['frames'][0]['metrics'] for k in FEATURE_KEYS[f])]
        args = [x for f in present for x in ('--feature', f)]
        for threads in ('1', a.threads):
            text, err = run_tvmaf(exe, clip, a.clips, args + ['--threads', threads])
            label = f"{clip['name']} {'+'.join(present)} threads={threads}"
            if err:
                res.check(False, label, err)
                continue
            compare(json.loads(text), gold, keys, label, res)
        # the first frame alone on TEAM_THREADS workers: one frame in flight, so
        # the idle workers run bands of its work (core/team.h) with their own
        # scratch, and the bands' totals must give the same bits
        text, err = run_tvmaf(exe, clip, a.clips, args + ['--frame_cnt', '1', '--threads',
                                                          str(TEAM_THREADS)])
        label = f"{clip['name']} {'+'.join(present)} frame 0 alone, threads={TEAM_THREADS}"
        if err:
            res.check(False, label, err)
        else:
            compare(json.loads(text), {'frames': gold['frames'][:1], 'pooled_metrics': {}},
                    [k for k in keys if k not in LOOK_AHEAD_KEYS], label, res)
        # a feature the reference refused or crashed on (its keys are absent from the
        # golden: e.g. cambi and speed on flat_64x64, psnr_hvs on 16-bit) must be
        # refused with an error naming the feature and its limit, never scored silently
        for f in features:
            if f in present:
                continue
            text, err = run_tvmaf(exe, clip, a.clips, ['--feature', f])
            label = f"{clip['name']} {f} (absent from the golden)"
            last = err.strip().splitlines()[-1] if err.strip() else '<no error>'
            ok = bool(err) and f'feature "{f}"' in last and ('at least' in last or 'needs' in last
                                                            or 'does not' in last)
            res.check(ok, f'{label}: refused clearly ({last.split(": ", 1)[-1]})', err or text[:200])

    # 2. clips the reference cannot score: every frame scored and every key
    # present, for each feature that accepts the clip; a feature may instead
    # refuse it, with an error that names the feature (e.g. a minimum size)
    for clip in clips:
        if os.path.exists(os.path.join(goldens, clip['name'] + '.features.json')):
            continue
        for f in features:
            text, err = run_tvmaf(exe, clip, a.clips, ['--feature', f, '--threads', a.threads])
            label = f"{clip['name']} (no golden) {f}"
            if err:
                last = err.strip().splitlines()[-1]
                ok = f'feature "{f}"' in last and ('at least' in last or 'needs' in last)
                res.check(ok, f'{label}: refused clearly ({last.split(": ", 1)[-1]})', err)
                continue
            d = json.loads(text)
            ok = len(d['frames']) == clip['frames'] and all(
                k in fr['metrics'] and fr['metrics'][k] is not None and math.isfinite(fr['metrics'][k])
                for fr in d['frames'] for k in FEATURE_KEYS[f])
            res.check(ok, f'{label}: scored on every frame',
                      f"{len(d['frames'])} frames, keys {sorted(d['frames'][0]['metrics']) if d['frames'] else []}")

    # 3. option goldens of implemented features
    with open(os.path.join(shared, 'testdata', 'options.tsv')) as f:
        rows = [l.rstrip('\n').split('\t') for l in f if l.strip() and not l.startswith('#')]
    by_name = {c['name']: c for c in clips}
    for i, (clip_name, spec) in enumerate(rows, 1):
        feature = spec.split('=')[0]
        gpath = os.path.join(goldens, 'options', f'{i:02d}_{clip_name}_{feature}.json')
        if feature not in features or clip_name not in by_name:
            continue
        with open(gpath) as f:
            gold = json.load(f)
        gkeys = list(gold['frames'][0]['metrics'].keys())
        text, err = run_tvmaf(exe, by_name[clip_name], a.clips, ['--feature', spec])
        label = f'option golden {os.path.basename(gpath)} ({spec})'
        if err:
            res.check(False, label, err)
            continue
        ours = json.loads(text)
        compare(ours, gold, gkeys, label, res, aggregates=True)
        extra = set(ours['frames'][0]['metrics']) - set(gkeys)
        res.check(not extra, f'{label}: no key beyond the golden', f'extra keys {sorted(extra)}')

    # 4. output formats at default precision (psnr alone, 5 frames)
    if 'psnr' in features:
        for fmt in ('json', 'xml', 'csv', 'sub'):
            gpath = os.path.join(goldens, 'formats', f'cups_576x324.5frames.psnr.{fmt}')
            with open(gpath) as f:
                gold = f.read()
            text, err = run_tvmaf(exe, by_name['cups_576x324'], a.clips,
                                  ['--feature', 'psnr', '--frame_cnt', '5'], fmt='--' + fmt, precision=None)
            label = f'format {fmt} equals {os.path.basename(gpath)} (fps, version aside)'
            if err:
                res.check(False, label, err)
                continue
            g, o = strip_volatile(gold, fmt), strip_volatile(text, fmt)
            detail = ''
            if g != o:
                gl, ol = g.splitlines(), o.splitlines()
                for j in range(max(len(gl), len(ol))):
                    x = gl[j] if j < len(gl) else '<eof>'
                    y = ol[j] if j < len(ol) else '<eof>'
                    if x != y:
                        detail = f'line {j + 1}: golden {x!r} ours {y!r}'
                        break
            res.check(g == o, label, detail)

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
