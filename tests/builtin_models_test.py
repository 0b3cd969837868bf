#!/usr/bin/env python3
"""Built-in models: the copies in models/ and what the library embeds from them.

1. models/ holds exactly the files of SHARED/models, byte for byte, and
   src/model/meson.build embeds every one of them.
2. With TVMAF_MODEL_PATH unset, `-m version=NAME` finds every built-in model:
   vmaf_v0.6.1 scores CLIP.features.json's vmaf, and vmaf_v0.6.1neg,
   vmaf_float_v0.6.1, vmaf_4k_v0.6.1, vmaf_b_v0.6.3 run together score every
   value of CLIP.models.json (cups_576x324, compared as doubles).
3. The v1.0.16 models score tests/data/vmaf_v1.0.16_scores.tsv (the reference's
   values, exact) on every clip listed there, one by one and (cups_576x324) all
   eight in one run.
4. Overrides: a NAME.json on TVMAF_MODEL_PATH is used instead of the built-in
   model, `-m path=` reads its file, and an unknown version is refused naming
   the built-in models.

usage: builtin_models_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from golden_common import Result, bits, choose_adm_division, read_clips, test_arg_parser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def env_without_path():
    env = dict(os.environ)
    env.pop('TVMAF_MODEL_PATH', None)
    return env


ADM_DIV = []  # the --adm-div arguments of every run (choose_adm_division)


def score(exe, clip, clip_dir, args, env):
    """Runs tvmaf; returns (parsed JSON, None) or (None, error)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.json')
        cmd = [exe, '-r', os.path.join(clip_dir, clip['name'] + '.ref.yuv'),
               '-d', os.path.join(clip_dir, clip['name'] + '.dis.yuv'),
               '-w', str(clip['w']), '-h', str(clip['h']), '-p', clip['layout'],
               '-b', str(clip['bits']), '-q', '--json', '-o', out, '--precision', 'max'] + args + ADM_DIV
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return None, ' '.join(cmd) + '\n' + p.stderr.strip()
        with open(out) as f:
            return json.load(f), None


def compare_frames(res, label, got, want, keys=None):
    bad, n = [], 0
    if len(got['frames']) != len(want['frames']):
        res.check(False, label, f"{len(got['frames'])} frames, expected {len(want['frames'])}")
        return
    for fg, fw in zip(got['frames'], want['frames']):
        for k, v in fw['metrics'].items():
            if keys is not None and k not in keys:
                continue
            n += 1
            if k not in fg['metrics']:
                bad.append(f"frame {fw['frameNum']}: {k} missing")
            elif bits(fg['metrics'][k]) != bits(v):
                bad.append(f"frame {fw['frameNum']}: {k} {fg['metrics'][k]!r} != {v!r}")
    res.check(n > 0 and not bad, f'{label} ({n - len(bad)}/{n} identical)', '; '.join(bad[:5]))


def main():
    ap = test_arg_parser()
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    shared = os.path.abspath(a.shared)
    res = Result()

    # 1. the copies
    mine = sorted(f for f in os.listdir(os.path.join(ROOT, 'models')) if f.endswith('.json'))
    theirs = sorted(f for f in os.listdir(os.path.join(shared, 'models')) if f.endswith('.json'))
    res.check(mine == theirs, 'models/ holds the files of shared/models',
              f'only in models/: {sorted(set(mine) - set(theirs))}, '
              f'only in shared: {sorted(set(theirs) - set(mine))}')
    for f in sorted(set(mine) & set(theirs)):
        with open(os.path.join(ROOT, 'models', f), 'rb') as x, \
                open(os.path.join(shared, 'models', f), 'rb') as y:
            res.check(x.read() == y.read(), f'models/{f} equals shared/models/{f} byte for byte')
    with open(os.path.join(ROOT, 'src', 'model', 'meson.build')) as f:
        embedded = sorted(set(re.findall(r"'\.\./\.\./models/([^']+\.json)'", f.read())))
    res.check(embedded == mine, 'src/model/meson.build embeds every file of models/',
              f'embedded {embedded}, folder {mine}')

    subprocess.run(['bash', os.path.join(shared, 'testdata', 'make_clips.sh'), a.clips], check=True)
    ADM_DIV[:] = choose_adm_division(exe)
    clips = {c['name']: c for c in read_clips(shared)}
    cups = clips['cups_576x324']
    goldens = os.path.join(shared, 'testdata', 'goldens')
    env = env_without_path()

    # 2. the v0.6.x models from the library alone
    with open(os.path.join(goldens, 'cups_576x324.features.json')) as f:
        want = json.load(f)
    got, err = score(exe, cups, a.clips, ['-m', 'version=vmaf_v0.6.1'], env)
    if err:
        res.check(False, 'built-in vmaf_v0.6.1 without TVMAF_MODEL_PATH', err)
    else:
        compare_frames(res, 'built-in vmaf_v0.6.1 on cups_576x324: vmaf', got, want, {'vmaf'})
    with open(os.path.join(goldens, 'cups_576x324.models.json')) as f:
        want = json.load(f)
    args = ['-m', 'version=vmaf_v0.6.1neg:name=vmaf_neg', '-m', 'version=vmaf_float_v0.6.1:name=vmaf_float',
            '-m', 'version=vmaf_4k_v0.6.1:name=vmaf_4k', '-m', 'version=vmaf_b_v0.6.3:name=vmaf_b']
    got, err = score(exe, cups, a.clips, args, env)
    if err:
        res.check(False, 'built-in vmaf_neg/float/4k/b without TVMAF_MODEL_PATH', err)
    else:
        compare_frames(res, 'built-in vmaf_v0.6.1neg, vmaf_float_v0.6.1, vmaf_4k_v0.6.1, '
                       'vmaf_b_v0.6.3 on cups_576x324: every value', got, want)
    # the models without goldens at least load and score
    for v in ['vmaf_4k_v0.6.1neg', 'vmaf_float_v0.6.1neg', 'vmaf_float_4k_v0.6.1', 'vmaf_float_b_v0.6.3']:
        got, err = score(exe, cups, a.clips, ['-m', f'version={v}', '--frame_cnt', '2'], env)
        res.check(not err and 'vmaf' in got['frames'][1]['metrics'], f'built-in {v} scores', err or '')

    # 3. v1.0.16 against the reference
    expected = {}
    with open(os.path.join(HERE, 'data', 'vmaf_v1.0.16_scores.tsv')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            clip, model, frame, value = line.rstrip('\n').split('\t')
            expected.setdefault((clip, model), {})[int(frame)] = float(value)
    for (clip, model), frames in expected.items():
        got, err = score(exe, clips[clip], a.clips, ['-m', f'version={model}'], env)
        if err:
            res.check(False, f'built-in {model} on {clip}', err)
            continue
        bad = [f'frame {i}: {got["frames"][i]["metrics"].get("vmaf")!r} != {v!r}'
               for i, v in frames.items()
               if i >= len(got['frames']) or bits(got['frames'][i]['metrics'].get('vmaf')) != bits(v)]
        if len(got['frames']) != len(frames):
            bad.append(f"{len(got['frames'])} frames, expected {len(frames)}")
        res.check(not bad, f'built-in {model} on {clip} equals the reference ({len(frames)} frames)',
                  '; '.join(bad[:5]))

    # ... and all eight in one run (their feature options are written differently but
    # some are equal in value, e.g. speed_kernelscale=1.0 and its default: one instance)
    together = sorted({m for (c, m) in expected if c == 'cups_576x324'})
    args = sum((['-m', f'version={m}:name={m}'] for m in together), [])
    got, err = score(exe, cups, a.clips, args, env)
    if err:
        res.check(False, 'the v1.0.16 models in one run', err)
    else:
        bad = [f'{m} frame {i}' for m in together for i, v in expected[('cups_576x324', m)].items()
               if bits(got['frames'][i]['metrics'].get(m)) != bits(v)]
        res.check(not bad and len(got['frames']) == 48,
                  f'the {len(together)} v1.0.16 models in one run on cups_576x324 equal the reference',
                  '; '.join(bad[:5]))

    # 4. overrides
    with tempfile.TemporaryDirectory() as tmp:
        # a "vmaf_v0.6.1" on the path that is really the 4k model
        shutil.copy(os.path.join(ROOT, 'models', 'vmaf_4k_v0.6.1.json'), os.path.join(tmp, 'vmaf_v0.6.1.json'))
        got_env, err1 = score(exe, cups, a.clips, ['-m', 'version=vmaf_v0.6.1', '--frame_cnt', '3'],
                              dict(env, TVMAF_MODEL_PATH=tmp))
        got_4k, err2 = score(exe, cups, a.clips, ['-m', 'version=vmaf_4k_v0.6.1', '--frame_cnt', '3'], env)
        got_bi, err3 = score(exe, cups, a.clips, ['-m', 'version=vmaf_v0.6.1', '--frame_cnt', '3'], env)
        got_path, err4 = score(exe, cups, a.clips, ['-m', 'path=' + os.path.join(tmp, 'vmaf_v0.6.1.json'),
                                                     '--frame_cnt', '3'], env)
        if err1 or err2 or err3 or err4:
            res.check(False, 'override runs', err1 or err2 or err3 or err4)
        else:
            v = lambda j: [bits(f['metrics']['vmaf']) for f in j['frames']]
            res.check(v(got_env) == v(got_4k) and v(got_env) != v(got_bi),
                      'a NAME.json on TVMAF_MODEL_PATH overrides the built-in NAME')
            res.check(v(got_path) == v(got_4k), '-m path=FILE reads the file')
    _, err = score(exe, cups, a.clips, ['-m', 'version=vmaf_v9.9'], env)
    msg = (err or '').split('\n', 1)[-1]
    res.check(err is not None and 'vmaf_v9.9' in msg and 'vmaf_v1.0.16_3d0h' in msg
              and len(msg.strip().splitlines()) == 1,
              'an unknown version is refused in one line naming the built-in models', msg)

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
