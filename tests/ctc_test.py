#!/usr/bin/env python3
"""libvmaf's CLI presets and --gpumask.

1. `--aom_ctc v6.0` and `--nflx_ctc v1.0` on cups_576x324 print what the
   reference's CLI printed (tests/data/ctc/, the command in its README), line by
   line at the default precision, fps and version aside.
2. Every other aom_ctc version runs; bad versions and `proposed` are refused
   in one line.
3. --gpumask: a non-zero mask scores on the CPU, with identical output; a
   non-zero mask with --backend cuda is refused.

usage: ctc_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import os
import subprocess
import sys
import tempfile

from golden_common import Result, choose_adm_division, strip_volatile, test_arg_parser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = test_arg_parser()
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    res = Result()
    subprocess.run(['bash', os.path.join(a.shared, 'testdata', 'make_clips.sh'), a.clips], check=True)
    adm_div = choose_adm_division(exe)
    clip = ['-r', os.path.join(a.clips, 'cups_576x324.ref.yuv'), '-d', os.path.join(a.clips, 'cups_576x324.dis.yuv'),
            '-w', '576', '-h', '324', '-p', '420', '-b', '8', '-q', '--json']

    def run(args):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'out.json')
            p = subprocess.run([exe] + clip + ['-o', out] + args + adm_div, capture_output=True, text=True)
            if p.returncode:
                return None, p.stderr.strip()
            with open(out) as f:
                return f.read(), None

    for flag, version in [('--aom_ctc', 'v6.0'), ('--nflx_ctc', 'v1.0')]:
        name = f"cups_576x324.{flag[2:]}_{version}.json"
        with open(os.path.join(HERE, 'data', 'ctc', name)) as f:
            want = strip_volatile(f.read(), 'json').splitlines()
        got, err = run([flag, version])
        if err:
            res.check(False, f'{flag} {version}', err)
            continue
        got = strip_volatile(got, 'json').splitlines()
        diff = [f'line {i + 1}: {g!r} != {w!r}' for i, (g, w) in enumerate(zip(got, want)) if g != w]
        if len(got) != len(want):
            diff.append(f'{len(got)} lines, expected {len(want)}')
        res.check(not diff, f"{flag} {version}: the reference CLI's keys and values "
                  f"({len(want)} lines identical)", '; '.join(diff[:5]))

    for v in ['v1.0', 'v2.0', 'v3.0', 'v4.0', 'v5.0', 'v7.0']:
        got, err = run(['--aom_ctc', v, '--frame_cnt', '2'])
        keys = ['"vmaf"', '"vmaf_neg"', '"psnr_y"', '"float_ssim"', '"float_ms_ssim"', '"psnr_hvs"', '"ciede2000"']
        if v >= 'v3.0':
            keys.append('"cambi"')
        res.check(not err and all(k in got for k in keys), f'--aom_ctc {v} runs with its keys', err or '')
    for args in (['--aom_ctc', 'v8.0'], ['--aom_ctc', 'proposed'], ['--nflx_ctc', 'v2.0']):
        got, err = run(args)
        res.check(got is None and err and len(err.splitlines()) == 1 and args[1] in err,
                  f'{" ".join(args)} is refused in one line', err or 'accepted')

    base, err1 = run(['--frame_cnt', '3', '--feature', 'psnr'])
    masked, err2 = run(['--frame_cnt', '3', '--feature', 'psnr', '--gpumask', '1'])
    res.check(not err1 and not err2 and strip_volatile(base, 'json') == strip_volatile(masked, 'json'),
              '--gpumask 1 scores (on the CPU) with identical output', err1 or err2 or '')
    got, err = run(['--frame_cnt', '3', '--gpumask', '1', '--backend', 'cuda'])
    res.check(got is None and err and '--gpumask' in err, '--gpumask 1 with --backend cuda is refused',
              err or 'accepted')

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
