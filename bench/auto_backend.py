#!/usr/bin/env python3
"""What the default --backend auto costs over --backend cpu on a tiny pair.

On a machine without a usable GPU, auto scores on the CPU, so the whole
difference is the backend choice: finding the GPU drivers (and, before the
probe was made cheap, loading PoCL, a CPU-only OpenCL driver, on every run).

  bench/auto_backend.py [--tvmaf EXE] [--clips DIR] [--runs 41] [--frames 2]
                        [--clip cups_576x324] [--backend-b auto]

Runs the same command with --backend cpu and with --backend auto (--backend-b)
in alternating pairs, the order swapped every pair so that drifting load hits
both alike, and prints the median wall time and peak RSS of each, and the
median over the pairs of (auto - cpu) wall time in milliseconds and of
auto / cpu. Not a test: it prints numbers and fails only when a command does.
`ninja -C BUILD bench-auto-backend` runs it on the build's tvmaf.
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
    'cups_576x324': (576, 324),
    'forest_1920x1080': (1920, 1080),
}


def run(cmd):
    """(returncode, stderr, wall seconds, peak RSS in kB) of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.stderr.close()
    return os.waitstatus_to_exitcode(status), err.decode(errors='replace'), dt, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tvmaf', default=os.path.join(ROOT, 'build', 'tools', 'tvmaf'))
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS',
                                                      os.path.join(ROOT, '.cache', 'clips')))
    ap.add_argument('--clip', default='cups_576x324', choices=sorted(CLIPS))
    ap.add_argument('--frames', type=int, default=2)
    ap.add_argument('--runs', type=int, default=41, help='pairs of runs (default 41)')
    ap.add_argument('--backend-b', default='auto',
                    help='the backend compared with cpu (default auto)')
    a = ap.parse_args()
    w, h = CLIPS[a.clip]
    paths = [os.path.join(a.clips, f'{a.clip}.{s}.yuv') for s in ('ref', 'dis')]
    for p in paths:
        if not os.path.exists(p):
            print(f'{p}: missing (decode the clips into --clips / TVMAF_CLIPS)', file=sys.stderr)
            return 1
    base = [a.tvmaf, '-r', paths[0], '-d', paths[1], '-w', str(w), '-h', str(h), '-p', '420',
            '-b', '8', '--frame_cnt', str(a.frames), '-q', '-o', '/dev/null', '--backend']
    cmds = {'cpu': base + ['cpu'], a.backend_b: base + [a.backend_b]}
    names = ['cpu', a.backend_b]
    # one untimed run of each: page cache, the dynamic loader's caches
    for n in names:
        rc, err, _, _ = run(cmds[n])
        if rc:
            print(' '.join(cmds[n]) + f': exit status {rc}\n' + err, file=sys.stderr)
            return 1
    wall = {n: [] for n in names}
    rss = {n: [] for n in names}
    diff, ratio = [], []
    for i in range(a.runs):
        order = names if i % 2 == 0 else names[::-1]
        got = {}
        for n in order:
            rc, err, dt, kb = run(cmds[n])
            if rc:
                print(' '.join(cmds[n]) + f': exit status {rc}\n' + err, file=sys.stderr)
                return 1
            got[n] = dt
            wall[n].append(dt)
            rss[n].append(kb)
        diff.append(got[a.backend_b] - got['cpu'])
        ratio.append(got[a.backend_b] / got['cpu'])
    med = {n: statistics.median(wall[n]) for n in names}
    for n in names:
        print(f'{n:5s} wall {med[n] * 1e3:7.2f} ms (median of {a.runs}; '
              f'{min(wall[n]) * 1e3:.2f}-{max(wall[n]) * 1e3:.2f})  '
              f'peak RSS {statistics.median(rss[n]) / 1024:6.1f} MB')
    print(f'{a.backend_b} overhead over cpu: {statistics.median(diff) * 1e3:+.2f} ms wall '
          f'(median of {a.runs} alternating pairs), ratio {statistics.median(ratio):.3f}, '
          f'peak RSS {(statistics.median(rss[a.backend_b]) - statistics.median(rss["cpu"])) / 1024:+.1f} MB')
    print('  command: ' + ' '.join(cmds[a.backend_b]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
