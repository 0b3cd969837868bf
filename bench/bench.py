#!/usr/bin/env python3
"""Throughput of the whole tvmaf command, as DEVICE.md's figures were taken.

fps = frames / wall seconds of the command (start-up included), median of
--runs runs, each input read once beforehand so it comes from page cache.

  bench/bench.py [--tvmaf EXE] [--clips DIR] [--threads 1,2] [--backend cpu]
                 [--runs 5] [--long] [--model version=vmaf_v0.6.1] [--features ...]

Default clips: forest_1920x1080 (10 frames) and meadow_3840x2160 (3 frames)
as decoded. --long builds the issue's long clips in --work: forest repeated to
300 frames, frame 0 of meadow repeated to 100 frames. The 4K run uses
vmaf_4k_v0.6.1 when the model is vmaf_v0.6.1.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CLIPS = {
    'forest_1920x1080': dict(w=1920, h=1080, frames=10),
    'meadow_3840x2160': dict(w=3840, h=2160, frames=3),
}


def frame_bytes(w, h):
    return w * h * 3 // 2


def make_long(src_dir, work, name, frames, first_only):
    os.makedirs(work, exist_ok=True)
    c = CLIPS[name]
    fb = frame_bytes(c['w'], c['h'])
    out = {}
    for side in ('ref', 'dis'):
        dst = os.path.join(work, f'{name}.long{frames}.{side}.yuv')
        out[side] = dst
        if os.path.exists(dst) and os.path.getsize(dst) == fb * frames:
            continue
        with open(os.path.join(src_dir, f'{name}.{side}.yuv'), 'rb') as f:
            data = f.read()
        chunk = data[:fb] if first_only else data
        n = len(chunk) // fb
        with open(dst, 'wb') as f:
            for i in range(frames):
                j = i % n
                f.write(chunk[j * fb:(j + 1) * fb])
    return out, frames


def warm(paths):
    for p in paths:
        with open(p, 'rb') as f:
            while f.read(1 << 24):
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tvmaf', default=os.path.join(ROOT, 'build', 'tools', 'tvmaf'))
    ap.add_argument('--clips', default=os.path.join(ROOT, '.cache', 'clips'))
    ap.add_argument('--work', default=os.path.join(ROOT, '.cache', 'bench'))
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--backend', default='cpu')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--long', action='store_true')
    ap.add_argument('--model', default='version=vmaf_v0.6.1')
    ap.add_argument('--features', default='', help='comma-separated --feature list (with -n when no model)')
    ap.add_argument('--clip', action='append')
    ap.add_argument('--stats', action='store_true',
                    help='after the timed runs, one more with --gpu-stats, printing its '
                         'per-frame counts and device times')
    a = ap.parse_args()
    rows = []
    for name in a.clip or list(CLIPS):
        c = CLIPS[name]
        if a.long:
            paths, frames = make_long(a.clips, a.work, name, 300 if name.startswith('forest') else 100,
                                      first_only=name.startswith('meadow'))
        else:
            paths = {s: os.path.join(a.clips, f'{name}.{s}.yuv') for s in ('ref', 'dis')}
            frames = c['frames']
        warm(paths.values())
        model = a.model
        if model == 'version=vmaf_v0.6.1' and c['w'] >= 3840:
            model = 'version=vmaf_4k_v0.6.1'
        for t in a.threads.split(','):
            # threads 'default': no --threads option (the command line)
            cmd = [a.tvmaf, '-r', paths['ref'], '-d', paths['dis'], '-w', str(c['w']), '-h', str(c['h']),
                   '-p', '420', '-b', '8', '-q', '-o', '/dev/null', '--backend', a.backend]
            if t != 'default':
                cmd += ['--threads', t]
            if a.features:
                for f in a.features.split(','):
                    cmd += ['--feature', f]
            if model and model != 'none':
                cmd += ['-m', model]
            else:
                cmd += ['-n']
            times = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                dt = time.perf_counter() - t0
                if p.returncode:
                    print(' '.join(cmd), p.stderr, file=sys.stderr)
                    return 1
                times.append(dt)
            med = statistics.median(times)
            rows.append((name, frames, a.backend, t, frames / med, min(times), max(times)))
            print(f'{name:18s} frames={frames:4d} backend={a.backend:4s} threads={t:>7s} '
                  f'fps={frames / med:8.2f} (median of {a.runs}; wall {min(times):.3f}-{max(times):.3f} s)')
            print('  command: ' + ' '.join(cmd))
            sys.stdout.flush()
            if a.stats:
                p = subprocess.run(cmd + ['--gpu-stats'], capture_output=True, text=True)
                for line in p.stderr.splitlines():
                    if 'stats' in line:
                        print('  ' + line)
                sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
