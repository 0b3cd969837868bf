#!/usr/bin/env python3
"""The drop-in's scores (libvmaf.so.3, read back through libvmaf's API)
against libvmaf's goldens and tvmaf's CLI, compared as doubles.

compat_score (a program written for libvmaf's API) scores each quick clip
(up to 576x324) and writes every per-frame and pooled value it reads back
through vmaf_feature_score_at_index() and vmaf_feature_score_pooled():

1. every extractor of the clip's golden and the vmaf_v0.6.1 model
   (goldens/NAME.features.json), 2 threads; cups_576x324's first 8 frames
   also on the caller's thread, from preallocated pictures;
2. the four models of goldens/NAME.models.json, the bootstrap collection
   vmaf_b through vmaf_model_collection_load_from_path;
3. the v1.0.16 models (tests/data/vmaf_v1.0.16_scores.tsv);
4. vmaf_write_output in the four formats against goldens/formats
   (fps and version aside);
5. the clips without a golden (tiny_177x99) against the CLI at
   --precision max, key by key.

usage: scores_test.py TVMAF_EXE --compat COMPAT_SCORE [--clips DIR] [--shared DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from golden_common import (Result, choose_adm_division, is_quick, parse_clips_tsv, same,  # noqa: E402
                           strip_volatile, test_arg_parser)
from golden_test import FEATURE_KEYS, POOLS, ensure_clips  # noqa: E402

# libvmaf's output names and the names its API takes (feature/alias.c's
# table, as src/core/feature_name.c has it): vmaf_feature_score_at_index()
# takes the latter
ALIASES = {
    'adm2': 'VMAF_feature_adm2_score', 'aim': 'VMAF_feature_aim_score',
    'adm3': 'VMAF_feature_adm3_score', 'motion': 'VMAF_feature_motion_score',
    'motion2': 'VMAF_feature_motion2_score', 'motion3': 'VMAF_feature_motion3_score',
    'integer_adm2': 'VMAF_integer_feature_adm2_score', 'integer_aim': 'VMAF_integer_feature_aim_score',
    'integer_adm3': 'VMAF_integer_feature_adm3_score',
    'integer_motion': 'VMAF_integer_feature_motion_score',
    'integer_motion2': 'VMAF_integer_feature_motion2_score',
    'integer_motion3': 'VMAF_integer_feature_motion3_score',
    'cambi': 'Cambi_feature_cambi_score',
    'speed_chroma_u': 'Speed_chroma_feature_speed_chroma_u_score',
    'speed_chroma_v': 'Speed_chroma_feature_speed_chroma_v_score',
    'speed_chroma_uv': 'Speed_chroma_feature_speed_chroma_uv_score',
    'speed_temporal': 'Speed_temporal_feature_speed_temporal_score',
}
for _i in range(4):
    ALIASES[f'adm_scale{_i}'] = f'VMAF_feature_adm_scale{_i}_score'
    ALIASES[f'vif_scale{_i}'] = f'VMAF_feature_vif_scale{_i}_score'
    ALIASES[f'integer_vif_scale{_i}'] = f'VMAF_integer_feature_vif_scale{_i}_score'
UNALIAS = {v: k for k, v in ALIASES.items()}

V1016 = ['vmaf_v1.0.16_3d0h', 'vmaf_v1.0.16_5d0h', 'vmaf_v1.0.16_3d0h_2160',
         'vmaf_v1.0.16_1d5h_2160', 'vmaf_v1.0.16_hfr_3d0h', 'vmaf_v1.0.16_hfr_5d0h',
         'vmaf_v1.0.16_hfr_3d0h_2160', 'vmaf_v1.0.16_hfr_1d5h_2160']


def run_compat(exe, clip, clips_dir, args, keys, env):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.json')
        cmd = [exe, '--ref', os.path.join(clips_dir, clip['name'] + '.ref.yuv'),
               '--dis', os.path.join(clips_dir, clip['name'] + '.dis.yuv'),
               '--w', str(clip['w']), '--h', str(clip['h']), '--layout', clip['layout'],
               '--bits', str(clip['bits']), '--json', out] + args
        for k in keys:
            cmd += ['--key', ALIASES.get(k, k)]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode:
            return None, ' '.join(cmd) + '\n' + p.stderr.strip()[-2000:]
        with open(out) as f:
            d = json.load(f)
    # back to the output names the goldens use
    for fr in d['frames']:
        fr['metrics'] = {UNALIAS.get(k, k): v for k, v in fr['metrics'].items()}
    d['pooled_metrics'] = {UNALIAS.get(k, k): v for k, v in d['pooled_metrics'].items()}
    return d, None


def compare(ours, gold, keys, label, res):
    """Every golden value of `keys`, per frame and pooled, identical as a double."""
    bad, n = [], 0
    if len(ours['frames']) != len(gold['frames']):
        res.check(False, label, f"{len(ours['frames'])} frames, golden {len(gold['frames'])}")
        return 0
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
            o = ours['pooled_metrics'].get(k, {})
            if m not in o:
                bad.append(f'pooled {k}.{m} missing')
            elif not same(o[m], gold['pooled_metrics'][k][m]):
                bad.append(f"pooled {k}.{m} {o[m]!r} != {gold['pooled_metrics'][k][m]!r}")
    if not n:
        res.check(False, label, 'no value compared')
        return 0
    res.check(not bad, f'{label} ({n - len(bad)}/{n} identical)', '; '.join(bad[:5]))
    return n - len(bad)


def main():
    ap = test_arg_parser()
    ap.add_argument('--compat', required=True, help='the compat_score program')
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    compat = os.path.abspath(a.compat)
    shared = os.path.abspath(a.shared)
    goldens = os.path.join(shared, 'testdata', 'goldens')
    ensure_clips(shared, a.clips)
    # float_adm divides as the goldens host did: its option adm_div (tvmaf's own),
    # on the feature and through the vmaf_float model's overload
    div = choose_adm_division(exe)[1]
    env = dict(os.environ)
    res = Result()
    identical = 0
    clips = [c for c in parse_clips_tsv(os.path.join(shared, 'testdata', 'clips.tsv')) if is_quick(c)]
    by_name = {c['name']: c for c in clips}

    for clip in clips:
        fpath = os.path.join(goldens, clip['name'] + '.features.json')
        if not os.path.exists(fpath):
            continue
        # 1. the extractors and vmaf_v0.6.1
        with open(fpath) as f:
            gold = json.load(f)
        gkeys = list(gold['frames'][0]['metrics'])
        present = [x for x in FEATURE_KEYS if x not in ('vif', 'adm', 'motion')
                   and any(k in gkeys for k in FEATURE_KEYS[x])]
        args = ['--model', 'version=vmaf_v0.6.1'] + \
            [x for p in present for x in ('--feature', p + (f':adm_div={div}' if p == 'float_adm' else ''))]
        runs = [['--threads', '2']]
        if clip['name'] == 'cups_576x324':
            # on the caller's thread, from preallocated pictures: the first frames
            runs.append(['--threads', '0', '--prealloc', '--frames', '8'])
        for extra in runs:
            label = f"{clip['name']} features + vmaf_v0.6.1 ({' '.join(extra)})"
            ours, err = run_compat(compat, clip, a.clips, args + extra, gkeys, env)
            if err:
                res.check(False, label, err)
                continue
            g = gold
            if '--frames' in extra:
                g = {'frames': gold['frames'][:int(extra[extra.index('--frames') + 1])],
                     'pooled_metrics': {}}
            identical += compare(ours, g, gkeys, label, res)

        # 2. the models and the bootstrap collection
        with open(os.path.join(goldens, clip['name'] + '.models.json')) as f:
            gold = json.load(f)
        gkeys = list(gold['frames'][0]['metrics'])
        args = ['--threads', '2',
                '--model', 'version=vmaf_v0.6.1neg:name=vmaf_neg',
                '--model', f'version=vmaf_float_v0.6.1:name=vmaf_float:float_adm.adm_div={div}',
                '--model', 'version=vmaf_4k_v0.6.1:name=vmaf_4k',
                '--model', 'path=' + os.path.join(shared, 'models', 'vmaf_b_v0.6.3.json')
                + ':name=vmaf_b:collection']
        label = f"{clip['name']} models, vmaf_b through vmaf_model_collection_load_from_path"
        ours, err = run_compat(compat, clip, a.clips, args, gkeys, env)
        if err:
            res.check(False, label, err)
        else:
            identical += compare(ours, gold, gkeys, label, res)

    # 3. the v1.0.16 models
    v1016 = {}
    with open(os.path.join(HERE, '..', 'data', 'vmaf_v1.0.16_scores.tsv')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            c, m, i, v = line.rstrip('\n').split('\t')
            v1016.setdefault((c, m), []).append((int(i), float(v)))
    # every model of a clip in one context, each under its version's name
    for c in sorted({c for c, _ in v1016}):
        if c not in by_name:
            continue
        models = sorted(m for cc, m in v1016 if cc == c)
        frames = {}
        for m in models:
            for i, v in v1016[(c, m)]:
                frames.setdefault(i, {})[m] = v
        gold = {'frames': [{'frameNum': i, 'metrics': frames[i]} for i in sorted(frames)],
                'pooled_metrics': {}}
        label = f"{c} {', '.join(models)}"
        args = ['--threads', '2'] + [x for m in models for x in ('--model', f'version={m}:name={m}')]
        ours, err = run_compat(compat, by_name[c], a.clips, args, models, env)
        if err:
            res.check(False, label, err)
        else:
            identical += compare(ours, gold, models, label, res)

    # 4. vmaf_write_output against the format goldens
    cups = by_name['cups_576x324']
    for kind, args in (('psnr', ['--feature', 'psnr']),
                       ('vmaf_psnr', ['--model', 'version=vmaf_v0.6.1', '--feature', 'psnr'])):
        with tempfile.TemporaryDirectory() as tmp:
            outs = [x for fmt in ('json', 'xml', 'csv', 'sub')
                    for x in ('--output', f'{fmt}={os.path.join(tmp, "out." + fmt)}')]
            _, err = run_compat(compat, cups, a.clips, args + ['--frames', '5'] + outs, [], env)
            for fmt in ('json', 'xml', 'csv', 'sub'):
                label = f'vmaf_write_output {fmt} equals cups_576x324.5frames.{kind}.{fmt} (fps, version aside)'
                if err:
                    res.check(False, label, err)
                    continue
                with open(os.path.join(goldens, 'formats', f'cups_576x324.5frames.{kind}.{fmt}')) as f:
                    g = strip_volatile(f.read(), fmt)
                with open(os.path.join(tmp, 'out.' + fmt)) as f:
                    text = f.read()
                o = strip_volatile(text, fmt)
                detail = ''
                if g != o:
                    gl, ol = g.splitlines(), o.splitlines()
                    j = next(j for j in range(max(len(gl), len(ol)))
                             if j >= len(gl) or j >= len(ol) or gl[j] != ol[j])
                    detail = f'line {j + 1}: golden {gl[j] if j < len(gl) else "<eof>"!r} ' \
                             f'ours {ol[j] if j < len(ol) else "<eof>"!r}'
                res.check(g == o, label, detail)
                if fmt in ('json', 'xml'):
                    res.check('3.2.0-tvmaf-' in text.split('\n', 3)[1 if fmt == 'json' else 0],
                              f'vmaf_write_output {fmt} names vmaf_version()', text[:120])

    # 5. clips without a golden: the CLI's doubles, key by key
    for clip in clips:
        if os.path.exists(os.path.join(goldens, clip['name'] + '.features.json')):
            continue
        feats = ['psnr', 'ciede', 'float_ssim', 'float_psnr', 'float_moment', 'float_ansnr']
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'cli.json')
            cmd = [exe, '-r', os.path.join(a.clips, clip['name'] + '.ref.yuv'),
                   '-d', os.path.join(a.clips, clip['name'] + '.dis.yuv'), '-w', str(clip['w']),
                   '-h', str(clip['h']), '-p', clip['layout'], '-b', str(clip['bits']), '-q',
                   '--json', '-o', out, '--precision', 'max'] + \
                  [x for f in feats for x in ('--feature', f)]
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            label = f"{clip['name']} (no golden) {'+'.join(feats)} + vmaf_v0.6.1 against the CLI"
            if p.returncode:
                res.check(False, label, p.stderr)
                continue
            with open(out) as f:
                gold = json.load(f)
        gkeys = list(gold['frames'][0]['metrics'])
        ours, err = run_compat(compat, clip, a.clips,
                               ['--model', 'version=vmaf_v0.6.1', '--threads', '2'] +
                               [x for f in feats for x in ('--feature', f)], gkeys, env)
        if err:
            res.check(False, label, err)
        else:
            identical += compare(ours, gold, gkeys, label, res)

    print(f'{identical} values compared, all identical' if not res.failed else
          f'{identical} values identical')
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
