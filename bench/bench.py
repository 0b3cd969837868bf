#!/usr/bin/env python3
"""Throughput of the whole tvmaf command, as DEVICE.md's figures were taken.

fps = frames / wall seconds of the command (start-up included), median of
--runs runs, each input read once beforehand so it comes from page cache.

  bench/bench.py [--tvmaf EXE] [--clips DIR] [--threads 1,2] [--backend cpu]
                 [--runs 5] [--long] [--model version=vmaf_v0.6.1] [--features ...]
                 [--cpumask N] [--gpu N] [--compare REF_EXE]

--compare REF_EXE runs libvmaf's `vmaf` (same options, no tvmaf-only ones)
in alternating pairs with tvmaf (the order swapped every pair, so drifting
load hits both alike) and prints, per row, both fps and the median over the
pairs of ref/tvmaf for wall time and for CPU time (user + system of the
command): above 1 means tvmaf is faster. On a shared, loaded machine the CPU
ratio is the steadier of the two.

Default clips: forest_1920x1080 (10 frames) and meadow_3840x2160 (3 frames)
as decoded. --long builds the issue's long clips in --work: forest repeated to
300 frames, frame 0 of meadow repeated to 100 frames; --longer the steady-state
ones, 1500 frames of forest and 500 of meadow (about 9 and 12 GB in --work),
each followed by a row `read-only`, the same command with -n and no feature
(tvmaf reads both inputs and scores nothing: the file-read ceiling). The 4K run
uses vmaf_4k_v0.6.1 when the model is vmaf_v0.6.1.

Several pairs (fps aggregate = pairs x frames / wall seconds):
  --ladder N   one command `-r REF -d DIS ... (N times)` against N one-pair
               commands, one after the other and all at once
  --batch N    one command `--batch MANIFEST` of N rows (the same pair N times)
               with --jobs J for each J of --jobs, against the same N one-pair
               commands
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from benchlib import CLIPS, make_long, run_timed, warm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

def median_wall(cmds_per_run, runs, concurrent=False):
    """Median over runs of the wall time of a list of commands, run one after
    the other (or all started at once); None after printing a failure."""
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        if concurrent:
            procs = [(c, subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
                     for c in cmds_per_run]
            for c, p in procs:
                err = p.stderr.read()
                if p.wait():
                    print(' '.join(c), err.decode(errors='replace'), file=sys.stderr)
                    return None
        else:
            for c in cmds_per_run:
                rc, err, _dt, _cpu = run_timed(c)
                if rc:
                    print(' '.join(c), err, file=sys.stderr)
                    return None
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls)


def several(a, name, frames, paths, cmd):
    """--ladder / --batch: N pairs in one command against N one-pair commands.
    cmd is the one-pair command (its -r/-d/-o are replaced). Returns 1 on a
    failure."""
    out = os.path.join(a.work, 'several')
    os.makedirs(out, exist_ok=True)
    i_r, i_d, i_o = cmd.index('-r'), cmd.index('-d'), cmd.index('-o')
    opts = [x for k, x in enumerate(cmd[1:], 1) if k not in (i_r, i_r + 1, i_d, i_d + 1, i_o, i_o + 1)]
    single = [cmd[0], '-r', paths['ref'], '-d', paths['dis'], '-o', '/dev/null'] + opts
    n = a.ladder or a.batch
    total = n * frames
    rows = []
    if a.ladder:
        ladder = [cmd[0], '-r', paths['ref']] + ['-d', paths['dis']] * n + \
                 ['-o', os.path.join(out, 'ladder_%d.xml')] + opts
        rows.append((f'ladder of {n} (one command)', [ladder], False))
    if a.batch:
        man = os.path.join(out, f'batch{n}.csv')
        with open(man, 'w') as f:
            f.write('ref,dis,output\n')
            for i in range(n):
                f.write(f"{paths['ref']},{paths['dis']},{os.path.join(out, f'batch_{i}.xml')}\n")
        for j in a.jobs.split(','):
            rows.append((f'batch of {n}, --jobs {j}', [[cmd[0], '--batch', man, '--jobs', j] + opts],
                         False))
    rows.append((f'{n} commands, one after the other', [single] * n, False))
    rows.append((f'{n} commands at once', [single] * n, True))
    if a.compare:
        # libvmaf's vmaf: the same one-pair command, less tvmaf's own options
        ref_single = [a.compare] + [x for x in single[1:] if x not in ('--backend', a.backend)]
        if a.cpumask is not None:
            ref_single = ref_single[:-2]
        rows.append((f'libvmaf: {n} commands, one after the other', [ref_single] * n, False))
    for label, cmds, conc in rows:
        wall = median_wall(cmds, a.runs, conc)
        if wall is None:
            return 1
        print(f'{name:18s} frames={frames:4d} backend={a.backend:4s} {label:36s} '
              f'fps aggregate={total / wall:8.2f} (wall {wall:.3f} s, median of {a.runs})')
        print('  command: ' + ' '.join(cmds[0]) + (f'  (x{len(cmds)})' if len(cmds) > 1 else ''))
        sys.stdout.flush()
    return 0


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
    ap.add_argument('--cpumask', help="tvmaf's --cpumask (SIMD levels to disable)")
    ap.add_argument('--gpu', help="tvmaf's --gpu N (device index on the GPU backend)")
    ap.add_argument('--compare', metavar='REF_EXE',
                    help="libvmaf's vmaf tool: alternating paired runs, ratios printed")
    ap.add_argument('--longer', action='store_true',
                    help='the steady-state clips: 1500 frames of 1080p, 500 of 4K, and the '
                         'read-only ceiling beside each')
    ap.add_argument('--ladder', type=int, metavar='N',
                    help='one reference against N distorted inputs in one command, against N commands')
    ap.add_argument('--batch', type=int, metavar='N',
                    help='a manifest of N pairs in one command (--jobs), against N commands')
    ap.add_argument('--jobs', default='1', help='--batch: comma-separated --jobs values')
    ap.add_argument('--stats', action='store_true',
                    help='after the timed runs, one more with --gpu-stats, printing its '
                         'per-frame counts and device times')
    a = ap.parse_args()
    rows = []
    for name in a.clip or list(CLIPS):
        c = CLIPS[name]
        if a.long or a.longer:
            n_long = (1500 if a.longer else 300) if name.startswith('forest') else (500 if a.longer else 100)
            paths, frames = make_long(a.clips, a.work, name, n_long,
                                      first_only=name.startswith('meadow'))
        else:
            paths = {s: os.path.join(a.clips, f'{name}.{s}.yuv') for s in ('ref', 'dis')}
            frames = c['frames']
        warm(paths.values())
        model = a.model
        if model == 'version=vmaf_v0.6.1' and c['w'] >= 3840:
            model = 'version=vmaf_4k_v0.6.1'
        for t in a.threads.split(','):
            # threads 'default': no --threads option (the issue's command line)
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
            if a.cpumask is not None:
                cmd += ['--cpumask', a.cpumask]
            if a.gpu is not None:
                cmd += ['--gpu', a.gpu]
            if a.ladder or a.batch:
                if several(a, name, frames, paths, cmd):
                    return 1
                continue
            if a.compare:
                ref_cmd = [a.compare] + [x for x in cmd[1:] if x not in ('--backend', a.backend)]
                if a.gpu is not None:
                    ref_cmd = ref_cmd[:-2]
                if a.cpumask is not None:
                    ref_cmd = ref_cmd[:-2]
                tv, rf, ratio_wall, ratio_cpu = [], [], [], []
                for i in range(a.runs):
                    order = [('tvmaf', cmd), ('ref', ref_cmd)]
                    if i % 2:
                        order.reverse()
                    got = {}
                    for who, c_ in order:
                        rc, err, wall, cpu = run_timed(c_)
                        if rc:
                            print(' '.join(c_), err, file=sys.stderr)
                            return 1
                        got[who] = (wall, cpu)
                    tv.append(got['tvmaf'])
                    rf.append(got['ref'])
                    ratio_wall.append(got['ref'][0] / got['tvmaf'][0])
                    ratio_cpu.append(got['ref'][1] / got['tvmaf'][1])
                med_t = statistics.median(x[0] for x in tv)
                med_r = statistics.median(x[0] for x in rf)
                print(f'{name:18s} frames={frames:4d} threads={t:>7s} tvmaf fps={frames / med_t:8.2f} '
                      f'ref fps={frames / med_r:8.2f}  ref/tvmaf: wall {statistics.median(ratio_wall):.3f} '
                      f'cpu {statistics.median(ratio_cpu):.3f} (medians of {a.runs} pairs; cpu s '
                      f'tvmaf {statistics.median(x[1] for x in tv):.3f} ref '
                      f'{statistics.median(x[1] for x in rf):.3f})')
                print('  tvmaf: ' + ' '.join(cmd))
                print('  ref:   ' + ' '.join(ref_cmd))
                sys.stdout.flush()
                continue
            times = []
            for _ in range(a.runs):
                rc, err, dt, _cpu = run_timed(cmd)
                if rc:
                    print(' '.join(cmd), err, file=sys.stderr)
                    return 1
                times.append(dt)
            med = statistics.median(times)
            rows.append((name, frames, a.backend, t, frames / med, min(times), max(times)))
            print(f'{name:18s} frames={frames:4d} backend={a.backend:4s} threads={t:>7s} '
                  f'fps={frames / med:8.2f} (median of {a.runs}; wall {min(times):.3f}-{max(times):.3f} s)')
            print('  command: ' + ' '.join(cmd))
            sys.stdout.flush()
            if a.longer:
                # the same inputs read and nothing scored: what reading costs
                ro = [x for x in cmd]
                i = 0
                keep = []
                while i < len(ro):
                    if ro[i] in ('--feature', '-m'):
                        i += 2
                        continue
                    if ro[i] != '-n':
                        keep.append(ro[i])
                    i += 1
                keep.append('-n')
                ro_times = []
                for _ in range(a.runs):
                    rc, err, dt, _cpu = run_timed(keep)
                    if rc:
                        print(' '.join(keep), err, file=sys.stderr)
                        return 1
                    ro_times.append(dt)
                med = statistics.median(ro_times)
                print(f'{name:18s} frames={frames:4d} read-only          '
                      f'fps={frames / med:8.2f} (median of {a.runs}; wall {min(ro_times):.3f}-'
                      f'{max(ro_times):.3f} s)')
                print('  command: ' + ' '.join(keep))
            if a.stats:
                p = subprocess.run(cmd + ['--gpu-stats'], capture_output=True, text=True)
                for line in p.stderr.splitlines():
                    if 'stats' in line:
                        print('  ' + line)
                sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
