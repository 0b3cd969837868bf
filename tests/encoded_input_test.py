#!/usr/bin/env python3
"""Encoded input: `tvmaf -r CLIP.ref.mkv -d CLIP.dis.mkv` with no size flags.

For every clip of SHARED/testdata/clips.tsv (the small ones under
TVMAF_TEST_QUICK=1), the streams in SHARED/testdata/streams are scored as they
are, decoded by tvmaf through FFmpeg, with the goldens' feature set and the
vmaf_v0.6.1 model; every value of CLIP.features.json must be reproduced bit for
bit, as the raw-file run reproduces it (make_clips.sh decodes those streams
into the raw clips). A clip without a features golden (tiny_177x99, which
crashes the reference) must give the raw run's output exactly. Then bad
encoded input: a truncated stream, a stream with no video, a reference and
distorted of different frame rates (refused unless --ignore_frame_rate).
Last, a distorted stream at half the reference's size: refused without
--scale, and with --scale bicubic|lanczos|bilinear scored exactly as the
raw file `ffmpeg -i HALF -vf scale=576:324[:flags=F] -f rawvideo` writes.
FFmpeg's libraries are loaded at run time: `tvmaf --version` loads none of
them (LD_DEBUG=libs); with TVMAF_FFMPEG_LIBDIR naming a directory without
them an .mkv is refused in one line naming the library, while a raw pair
scores; naming the directory where they are, the .mkv pair scores as before.

Exits 77 (skip) when this build has no FFmpeg.

usage: encoded_input_test.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

from golden_common import Result, bits, choose_adm_division, read_clips, test_arg_parser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# feature -> a key it writes (as in the goldens' run, goldens/README.md)
FEATURES = {
    'psnr': 'psnr_y', 'float_psnr': 'float_psnr', 'float_ssim': 'float_ssim',
    'float_ms_ssim': 'float_ms_ssim', 'ciede': 'ciede2000', 'cambi': 'cambi',
    'psnr_hvs': 'psnr_hvs', 'float_ansnr': 'float_ansnr', 'float_moment': 'float_moment_ref1st',
    'speed_chroma': 'speed_chroma_uv', 'speed_temporal': 'speed_temporal', 'float_adm': 'adm2',
    'float_vif': 'vif_scale0', 'float_motion': 'motion2',
}


ADM_DIV = []  # the --adm-div arguments of every run (choose_adm_division)


def run(exe, inputs, args, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.json')
        cmd = [exe] + inputs + ['-q', '--json', '-o', out, '--precision', 'max'] + args + ADM_DIV
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return None, ' '.join(cmd) + '\n' + p.stderr.strip()
        with open(out) as f:
            return json.load(f), None


def ffmpeg_libdir():
    """The directory of this machine's libavformat (ldconfig's cache), or None."""
    try:
        out = subprocess.run(['ldconfig', '-p'], capture_output=True, text=True).stdout
    except OSError:
        return None
    for line in out.splitlines():
        name, _, path = line.strip().partition(' => ')
        if name.startswith('libavformat.so.') and os.path.isabs(path):
            return os.path.dirname(path)
    return None


def unloadable_ffmpeg(exe, streams, clips, clip, res):
    """FFmpeg's libraries are loaded at run time, when encoded input is opened:
    the CLI starts without them, and where they cannot be loaded
    (TVMAF_FFMPEG_LIBDIR names a directory without them) an encoded input is
    refused in one line naming the library, while raw input still scores."""
    p = subprocess.run([exe, '--version'], capture_output=True, text=True,
                       env=dict(os.environ, LD_DEBUG='libs'))
    loaded = sorted({w for w in p.stderr.split() if w.startswith(('libavformat', 'libavcodec'))})
    res.check(p.returncode == 0 and 'calling init' in p.stderr and not loaded,
              'tvmaf --version loads none of FFmpeg\'s libraries (LD_DEBUG=libs)',
              ' '.join(loaded) or p.stderr[-300:])
    enc = ['-r', os.path.join(streams, 'cups_576x324.ref.mkv'),
           '-d', os.path.join(streams, 'cups_576x324.dis.mkv')]
    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, TVMAF_FFMPEG_LIBDIR=empty)
        p = subprocess.run([exe] + enc + ['-q', '-o', os.devnull], capture_output=True, text=True,
                           env=env)
        res.check(p.returncode != 0 and p.stderr.count('\n') == 1 and 'cups_576x324.ref.mkv' in p.stderr
                  and 'cannot load libav' in p.stderr and empty in p.stderr,
                  'FFmpeg unloadable (TVMAF_FFMPEG_LIBDIR without it): an .mkv is refused in one '
                  'line naming the library and why, non-zero exit', p.stderr.strip())
        raw = ['-r', os.path.join(clips, 'cups_576x324.ref.yuv'), '-d', os.path.join(clips, 'cups_576x324.dis.yuv'),
               '-w', str(clip['w']), '-h', str(clip['h']), '-p', clip['layout'], '-b', str(clip['bits']),
               '--frame_cnt', '3', '--feature', 'psnr', '-n', '-q', '--json', '-o', '-']
        p = subprocess.run([exe] + raw, capture_output=True, text=True, env=env)
        try:
            frames = len(json.loads(p.stdout)['frames']) if p.returncode == 0 else 0
        except ValueError:
            frames = 0
        res.check(frames == 3, '... while a raw .yuv pair still scores (3 frames)',
                  p.stderr.strip())
    libdir = ffmpeg_libdir()
    if libdir:
        args = ['--frame_cnt', '3', '--feature', 'psnr', '-n']
        got, err1 = run(exe, enc, args, env=dict(os.environ, TVMAF_FFMPEG_LIBDIR=libdir))
        want, err2 = run(exe, enc, args)
        if not (err1 or err2):
            for d in (got, want):
                d.pop('fps', None)
        res.check(not (err1 or err2) and got == want,
                  f'TVMAF_FFMPEG_LIBDIR={libdir} (where they are): the .mkv pair scores as without it',
                  err1 or err2 or '')


def main():
    ap = test_arg_parser()
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    shared = os.path.abspath(a.shared)
    streams = os.path.join(shared, 'testdata', 'streams')
    goldens = os.path.join(shared, 'testdata', 'goldens')
    res = Result()

    p = subprocess.run([exe, '--version'], capture_output=True, text=True)
    if 'ffmpeg=yes' not in p.stdout:
        print('this build reads no encoded video (no FFmpeg): skipped')
        return 77
    subprocess.run(['bash', os.path.join(shared, 'testdata', 'make_clips.sh'), a.clips], check=True)
    ADM_DIV[:] = choose_adm_division(exe)

    for clip in read_clips(shared):
        name = clip['name']
        enc = ['-r', os.path.join(streams, name + '.ref.mkv'), '-d', os.path.join(streams, name + '.dis.mkv')]
        raw = ['-r', os.path.join(a.clips, name + '.ref.yuv'), '-d', os.path.join(a.clips, name + '.dis.yuv'),
               '-w', str(clip['w']), '-h', str(clip['h']), '-p', clip['layout'], '-b', str(clip['bits'])]
        gpath = os.path.join(goldens, name + '.features.json')
        if os.path.exists(gpath):
            with open(gpath) as f:
                golden = json.load(f)
            keys = golden['frames'][0]['metrics']
            feats = [f for f, k in FEATURES.items() if k in keys]
            args = ['-m', 'version=vmaf_v0.6.1'] + sum((['--feature', f] for f in feats), [])
            got, err = run(exe, enc, args + ['--threads', '2'])
            if err:
                res.check(False, f'{name}: encoded input', err)
                continue
            bad, n = [], 0
            if len(got['frames']) != len(golden['frames']):
                bad.append(f"{len(got['frames'])} frames, golden {len(golden['frames'])}")
            for fg, fw in zip(got['frames'], golden['frames']):
                for k, v in fw['metrics'].items():
                    n += 1
                    if bits(fg['metrics'].get(k)) != bits(v) or k not in fg['metrics']:
                        bad.append(f"frame {fw['frameNum']} {k}: {fg['metrics'].get(k)!r} != {v!r}")
            res.check(n > 0 and not bad, f'{name}: .mkv pair, no size flags, equals the golden '
                      f'({n - len(bad)}/{n} values identical)', '; '.join(bad[:5]))
        else:
            args = ['--feature', 'psnr', '--feature', 'ciede', '-m', 'version=vmaf_v0.6.1']
            got, err1 = run(exe, enc, args)
            want, err2 = run(exe, raw, args)
            if err1 or err2:
                res.check(False, f'{name}: encoded and raw runs', err1 or err2)
                continue
            for d in (got, want):
                d.pop('fps', None)
            res.check(got == want, f'{name}: .mkv pair (no golden) scores as the raw clips '
                      f"({len(got['frames'])} frames)")

    # frame alignment on encoded input: --frame_skip_ref/_dist as for raw files
    cups_clip = next(c for c in read_clips(shared) if c['name'] == 'cups_576x324')
    skip = ['--frame_skip_ref', '2', '--frame_skip_dist', '3', '--frame_cnt', '10', '--feature', 'psnr', '-n']
    got, err1 = run(exe, ['-r', os.path.join(streams, 'cups_576x324.ref.mkv'),
                          '-d', os.path.join(streams, 'cups_576x324.dis.mkv')], skip)
    want, err2 = run(exe, ['-r', os.path.join(a.clips, 'cups_576x324.ref.yuv'),
                           '-d', os.path.join(a.clips, 'cups_576x324.dis.yuv'), '-w', str(cups_clip['w']),
                           '-h', str(cups_clip['h']), '-p', '420', '-b', '8'], skip)
    if not (err1 or err2):
        for d in (got, want):
            d.pop('fps', None)
    res.check(not (err1 or err2) and got == want,
              '--frame_skip_ref 2 --frame_skip_dist 3 on the .mkv pair scores as on the raw clips',
              err1 or err2 or '')

    # bad encoded input
    cups = os.path.join(streams, 'cups_576x324.ref.mkv')
    with tempfile.TemporaryDirectory() as tmp:
        trunc = os.path.join(tmp, 'trunc.mkv')
        with open(cups, 'rb') as f, open(trunc, 'wb') as g:
            g.write(f.read()[:3000])
        p = subprocess.run([exe, '-r', cups, '-d', trunc, '-q', '-o', os.devnull],
                           capture_output=True, text=True)
        res.check(p.returncode != 0 and p.stderr.count('\n') == 1 and 'trunc.mkv' in p.stderr,
                  'a truncated stream: one line naming it, non-zero exit', p.stderr.strip())
        junk = os.path.join(tmp, 'junk.bin')
        with open(junk, 'wb') as g:
            g.write(bytes(range(256)) * 40)
        p = subprocess.run([exe, '-r', cups, '-d', junk, '-q', '-o', os.devnull],
                           capture_output=True, text=True)
        res.check(p.returncode != 0 and 'junk.bin' in p.stderr and 'raw YUV' in p.stderr
                  and p.stderr.count('\n') == 1,
                  'a file that is no video: one line saying raw YUV needs its format', p.stderr.strip())
        for pix_fmt, word in [('yuv420p9le', '9-bit'), ('rgb24', 'rgb24'), ('yuva420p', 'alpha')]:
            odd = os.path.join(tmp, pix_fmt + '.nut')
            subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-y', '-i', cups, '-frames:v', '2',
                            '-pix_fmt', pix_fmt, '-c:v', 'rawvideo', odd], check=True)
            p = subprocess.run([exe, '-r', odd, '-d', odd, '-q', '-o', os.devnull],
                               capture_output=True, text=True)
            res.check(p.returncode != 0 and word in p.stderr and p.stderr.count('\n') == 1,
                      f'a {pix_fmt} stream is refused in one line', p.stderr.strip())
        nv12 = os.path.join(tmp, 'nv12.nut')
        subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-y', '-i', cups, '-frames:v', '3',
                        '-pix_fmt', 'nv12', '-c:v', 'rawvideo', nv12], check=True)
        got, err1 = run(exe, ['-r', nv12, '-d', os.path.join(streams, 'cups_576x324.dis.mkv')],
                        ['--frame_cnt', '3', '--feature', 'psnr', '-n'])
        want, err2 = run(exe, ['-r', cups, '-d', os.path.join(streams, 'cups_576x324.dis.mkv')],
                         ['--frame_cnt', '3', '--feature', 'psnr', '-n'])
        if not (err1 or err2):
            for d in (got, want):
                d.pop('fps', None)
        res.check(not (err1 or err2) and got == want,
                  'an nv12 stream (semi-planar) scores as its planar yuv420p original', err1 or err2 or '')
        fast = os.path.join(tmp, 'fast.mkv')
        subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-y', '-i', os.path.join(
            streams, 'cups_576x324.dis.mkv'), '-c', 'copy', '-frames:v', '10'] + [] + [fast], check=True)
        fast30 = os.path.join(tmp, 'fast30.mkv')
        subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-y', '-r', '30', '-i', fast,
                        '-c:v', 'ffv1', fast30], check=True)
        p = subprocess.run([exe, '-r', cups, '-d', fast30, '-q', '-o', os.devnull, '--frame_cnt', '10'],
                           capture_output=True, text=True)
        res.check(p.returncode != 0 and 'frame rate' in p.stderr and p.stderr.count('\n') == 1,
                  'streams of different frame rates are refused', p.stderr.strip())
        p = subprocess.run([exe, '-r', cups, '-d', fast30, '-q', '-o', os.devnull, '--frame_cnt', '10',
                            '--ignore_frame_rate'], capture_output=True, text=True)
        res.check(p.returncode == 0, '... and scored with --ignore_frame_rate', p.stderr.strip())

    # a distorted stream at half the reference's size: refused, then scaled
    ff = ['ffmpeg', '-nostdin', '-loglevel', 'error', '-y']
    with tempfile.TemporaryDirectory() as tmp:
        for name, layout, depth in [('cups_576x324', '420', 8), ('cups_576x324_10b', '420', 10)]:
            ref = os.path.join(streams, name + '.ref.mkv')
            half = os.path.join(tmp, name + '.half.mkv')
            subprocess.run(ff + ['-i', os.path.join(streams, name + '.dis.mkv'), '-frames:v', '6',
                                 '-vf', 'scale=288:162', '-c:v', 'ffv1', half], check=True)
            p = subprocess.run([exe, '-r', ref, '-d', half, '-q', '-o', os.devnull],
                               capture_output=True, text=True)
            res.check(p.returncode != 0 and '--scale' in p.stderr and '288x162' in p.stderr and
                      p.stderr.count('\n') == 1,
                      f'{name}: a half-size distorted stream is refused without --scale', p.stderr.strip())
            args = ['--frame_cnt', '6', '--feature', 'psnr', '-m', 'version=vmaf_v0.6.1']
            for flt, flags in [('bicubic', ''), ('lanczos', ':flags=lanczos'), ('bilinear', ':flags=bilinear')]:
                up = os.path.join(tmp, 'up.yuv')
                # ffmpeg's scale filter; its default (no flags) is bicubic
                subprocess.run(ff + ['-i', half, '-vf', 'scale=576:324' + flags, '-f', 'rawvideo', up],
                               check=True)
                got, err1 = run(exe, ['-r', ref, '-d', half, '--scale', flt], args)
                want, err2 = run(exe, ['-r', os.path.join(a.clips, name + '.ref.yuv'), '-d', up, '-w', '576',
                                       '-h', '324', '-p', layout, '-b', str(depth)], args)
                if err1 or err2:
                    res.check(False, f'{name}: --scale {flt}', err1 or err2)
                    continue
                for d in (got, want):
                    d.pop('fps', None)
                res.check(got == want, f'{name}: --scale {flt} scores as ffmpeg -vf scale=576:324{flags} '
                          f'(6 frames, vmaf and psnr identical)')
        p = subprocess.run([exe, '-r', ref, '-d', half, '--scale', 'cubic', '-q', '-o', os.devnull],
                           capture_output=True, text=True)
        res.check(p.returncode != 0 and 'lanczos' in p.stderr and p.stderr.count('\n') == 1,
                  'an unknown --scale filter is refused naming the valid ones', p.stderr.strip())

    unloadable_ffmpeg(exe, streams, a.clips, cups_clip, res)

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
