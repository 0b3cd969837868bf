#!/usr/bin/env python3
"""tvmaf's CPU against libvmaf's `vmaf` tool, in one command: a Markdown table.

  bench/cpu_vs_libvmaf.py --ref VMAF [--quick] [--out table.md] [--list]
      [--models M,M] [--features F,F] [--inputs 1080p-10,1080p-100,4k-30]
      [--threads 1,2,all] [--feature-inputs IN,IN] [--feature-threads 1]
      [--isa default,avx2] [--repeats 3] [--only ROW_ID,ROW_ID] [--work DIR]
      [--tvmaf EXE] [--clips DIR] [--no-isa-check]

VMAF is libvmaf's `vmaf` tool (default $LIBVMAF_VMAF), EXE tvmaf's (default
build/tools/tvmaf, always run with --backend cpu), DIR the decoded clips
(default $TVMAF_CLIPS, else .cache/clips).

The rows (`--list` prints them and their commands without running anything):

- each model (vmaf_v0.6.1, vmaf_v1.0.16_3d0h, vmaf_4k_v0.6.1) on each of
  --inputs at each of --threads;
- each feature alone (psnr, float_psnr, ciede, psnr_hvs, float_ssim,
  float_ms_ssim, float_moment, float_ansnr, vif, float_vif, adm, float_adm,
  motion, float_motion, cambi, speed_chroma, speed_temporal), with no model
  (`-n --feature NAME`), on 30 frames of 1080p (ciede, about 1 fps in
  libvmaf, on 10) at 1 thread, or on --feature-inputs at --feature-threads;
- each of those at each --isa: `default` (each program's own choice) and
  `avx2` (both given --cpumask 48: see below).

Inputs are named SIZE-FRAMES: 1080p is forest_1920x1080 (10 frames), 4k is
meadow_3840x2160 (3 frames), their frames cycled to FRAMES (1080p-100 is
forest ten times) and written once to --work (default /tmp/tvmaf-bench) from
the decoded clips in --clips (default .cache/clips). Every row reads its
inputs once before it is timed, so they come from the page cache. `all`
threads is the number of cores this process may use; where that equals a
count already listed the row is not repeated.

Timing: the wall time of the whole command (start-up included), --repeats
pairs (default 3), libvmaf and tvmaf alternating, the order swapped every
pair so that drifting load hits both alike. The table gives each program's
median seconds and the ratio: the median over the pairs of libvmaf's wall
time / tvmaf's (above 1: tvmaf is faster), and the same for CPU time (user
+ system), the steadier of the two on a loaded machine. Both write their
per-frame scores as JSON; a row's `scores` column says `same` when the two
files are the same but for the version and fps lines, in every pair: a
ratio between runs that did different work means nothing.

Targets: libvmaf/tvmaf at least 2.0 for the three models at 1 and 2
threads on 1080p-100 and 4k-30, and at least 1.0 for each feature alone at
1 thread on its input above; both at each --isa. Other rows have no target.
With --quick (1 pair, models on 1080p-10 and 4k-10, features on 1080p-10)
the target is judged on those and marked `(quick)`: a smoke run, not a
measurement.

--cpumask: both programs take libvmaf's bits, a set bit disabling that SIMD
level (8 AVX2, 16 AVX-512, 32 AVX-512 with VNNI). libvmaf at f85a8536
selects its AVX-512 kernels by bit 16 alone; tvmaf runs its VNNI kernels
only where bits 16 and 32 are both enabled. 48 disables every AVX-512 level
in both and leaves AVX2. Before the avx2 rows the script checks this with
`perf record` where perf can profile (perf_event_paranoid at most 2): each
program scores 3 frames of vmaf_v0.6.1 at each mask, and the samples in its
own code are sorted by SIMD level (a kernel's name ends `_avx512`, `_avx2`,
...; a helper compiled once per level under one name takes the level of the
kernels beside it): under the mask some must be AVX2 and none AVX-512. The
notes give each level's share. The C library's own routines (memcpy and
such) are not the programs' code and may still use AVX-512.
On a processor without AVX-512 the avx2 rows are the default ones again
(said in the notes); without AVX2 they are skipped.

Exit status: 0 when every command ran and every row's scores matched (a
missed target is reported, not an error), 1 otherwise.

libvmaf's `vmaf` is built from Netflix/vmaf at commit f85a8536 (nasm and
meson installed), in its libvmaf folder:

  meson setup build --buildtype=release -Denable_float=true -Denable_avx512=true
  ninja -C build        # the tool: build/tools/vmaf

Example (one row, as --list names it):

  bench/cpu_vs_libvmaf.py --ref ../vmaf/libvmaf/build/tools/vmaf \\
      --only vmaf_v0.6.1/1080p-100/t1/default
"""
import argparse
import bisect
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import CLIPS, make_long, run_timed, warm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MODELS = ['vmaf_v0.6.1', 'vmaf_v1.0.16_3d0h', 'vmaf_4k_v0.6.1']
FEATURES = ['psnr', 'float_psnr', 'ciede', 'psnr_hvs', 'float_ssim', 'float_ms_ssim',
            'float_moment', 'float_ansnr', 'vif', 'float_vif', 'adm', 'float_adm', 'motion',
            'float_motion', 'cambi', 'speed_chroma', 'speed_temporal']
SOURCES = {'1080p': 'forest_1920x1080', '4k': 'meadow_3840x2160'}
AVX2_MASK = 48          # 16 AVX-512 | 32 AVX-512 with VNNI
MODEL_TARGET, FEATURE_TARGET = 2.0, 1.0
MODEL_INPUTS, MODEL_INPUTS_QUICK = '1080p-10,1080p-100,4k-30', '1080p-10,4k-10'
# the inputs a target is judged on (full run, --quick)
MODEL_TARGET_INPUTS = ({'1080p-100', '4k-30'}, {'1080p-10', '4k-10'})
SLOW_FEATURES = {'ciede': '1080p-10'}   # features judged on fewer frames
FEATURE_INPUT, FEATURE_INPUT_QUICK = '1080p-30', '1080p-10'
PROBE_CLIP = 'cups_576x324'     # the feature probe's small input (1 frame)


def split(s):
    return [x.strip() for x in s.split(',') if x.strip()] if s else []


def parse_input(name):
    """'1080p-100' -> (source clip, frames)."""
    m = re.fullmatch(r'(1080p|4k)-([1-9][0-9]*)', name)
    if not m:
        raise SystemExit(f'{name}: an input is 1080p-N or 4k-N (N frames)')
    return SOURCES[m.group(1)], int(m.group(2))


def input_paths(a, name):
    """The input's reference and distorted files (built by build_input)."""
    clip, frames = parse_input(name)
    if frames == CLIPS[clip]['frames']:
        return {s: os.path.join(a.clips, f'{clip}.{s}.yuv') for s in ('ref', 'dis')}
    return {s: os.path.join(a.work, f'{clip}.cycle{frames}.{s}.yuv') for s in ('ref', 'dis')}


def build_input(a, name):
    clip, frames = parse_input(name)
    for s in ('ref', 'dis'):
        src = os.path.join(a.clips, f'{clip}.{s}.yuv')
        c = CLIPS[clip]
        want = c['w'] * c['h'] * 3 // 2 * c['frames']
        if not os.path.exists(src) or os.path.getsize(src) != want:
            raise SystemExit(f'{src}: missing or not {c["frames"]} frames of {c["w"]}x{c["h"]} '
                             '8-bit 4:2:0 (decode the clips into --clips)')
    if frames != CLIPS[clip]['frames']:
        make_long(a.clips, a.work, clip, frames, first_only=False, tag='cycle')
    return input_paths(a, name)


def parse_threads(s, notes):
    """'1,2,all' -> [(n, label)]; 'all' is this process's cores, dropped
    (with a note) where that count is listed already."""
    cores = len(os.sched_getaffinity(0))
    out = []
    for t in split(s):
        n, label = (cores, f'{cores} (all)') if t == 'all' else (int(t), t)
        if any(n == m for m, _ in out):
            if t == 'all':
                notes.append(f'`all` threads is {cores} here: the {cores}-thread rows.')
            continue
        out.append((n, label))
    return out


class Row:
    def __init__(self, kind, name, inp, threads, label, isa, target):
        self.kind, self.name, self.inp = kind, name, inp
        self.threads, self.thr_label, self.isa, self.target = threads, label, isa, target
        self.id = f'{name}/{inp}/t{threads}/{isa}'
        self.result = None

    def commands(self, a):
        p = input_paths(a, self.inp)
        clip, _ = parse_input(self.inp)
        c = CLIPS[clip]
        opts = ['-r', p['ref'], '-d', p['dis'], '-w', str(c['w']), '-h', str(c['h']),
                '-p', '420', '-b', '8', '-q', '--threads', str(self.threads)]
        if self.isa == 'avx2':
            opts += ['--cpumask', str(AVX2_MASK)]
        opts += ['-m', f'version={self.name}'] if self.kind == 'model' else \
            ['-n', '--feature', self.name]
        out = os.path.join(a.work, 'out', self.id.replace('/', '.'))
        return {'libvmaf': [a.ref] + opts + ['--json', '-o', out + '.libvmaf.json'],
                'tvmaf': [a.tvmaf, '--backend', 'cpu'] + opts + ['--json', '-o', out + '.tvmaf.json']}


def make_rows(a, notes):
    isas = split(a.isa)
    for i in isas:
        if i not in ('default', 'avx2'):
            raise SystemExit(f'--isa: {i}: default or avx2')
    rows = []
    threads = parse_threads(a.threads, notes) if split(a.models) else []
    m_inputs = split(a.inputs or (MODEL_INPUTS_QUICK if a.quick else MODEL_INPUTS))
    for m in split(a.models):
        for inp in m_inputs:
            parse_input(inp)
            for n, label in threads:
                for isa in isas:
                    target = MODEL_TARGET if (n in (1, 2) and
                                              inp in MODEL_TARGET_INPUTS[a.quick]) else None
                    rows.append(Row('model', m, inp, n, label, isa, target))
    f_threads = parse_threads(a.feature_threads, notes) if split(a.features) else []
    for f in split(a.features):
        if a.feature_inputs:
            f_inputs = split(a.feature_inputs)
        else:
            f_inputs = [FEATURE_INPUT_QUICK if a.quick else SLOW_FEATURES.get(f, FEATURE_INPUT)]
        judged = FEATURE_INPUT_QUICK if a.quick else SLOW_FEATURES.get(f, FEATURE_INPUT)
        for inp in f_inputs:
            parse_input(inp)
            for n, label in f_threads:
                for isa in isas:
                    target = FEATURE_TARGET if (n == 1 and inp == judged) else None
                    rows.append(Row('feature', f, inp, n, label, isa, target))
    if a.only:
        want = set(split(a.only))
        unknown = want - {r.id for r in rows}
        if unknown:
            raise SystemExit('--only: no such row (see --list): ' + ', '.join(sorted(unknown)))
        rows = [r for r in rows if r.id in want]
    return rows


def cpu_flags():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_name():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown processor'


def version(exe):
    p = subprocess.run([exe, '--version'], capture_output=True, text=True)
    return (p.stdout + p.stderr).strip().splitlines()[0] if (p.stdout + p.stderr).strip() else '?'


def probe_features(a, names, notes):
    """The features both programs run (one frame of the small clip, no model):
    also the untimed first run of each program."""
    p = {s: os.path.join(a.clips, f'{PROBE_CLIP}.{s}.yuv') for s in ('ref', 'dis')}
    if not all(os.path.exists(x) for x in p.values()):
        notes.append(f'Features not probed ({PROBE_CLIP} missing from --clips).')
        return names
    ok = []
    for f in names:
        missing = []
        for who, cmd in (('libvmaf', [a.ref]), ('tvmaf', [a.tvmaf, '--backend', 'cpu'])):
            cmd = cmd + ['-r', p['ref'], '-d', p['dis'], '-w', '576', '-h', '324', '-p', '420',
                         '-b', '8', '-q', '--frame_cnt', '2', '--threads', '1', '-n',
                         '--feature', f, '-o', '/dev/null']
            rc, err, _, _ = run_timed(cmd)
            if rc:
                missing.append(who)
        if missing:
            notes.append(f'`{f}` skipped: {" and ".join(missing)} could not run it '
                         f'(`--feature {f}` failed on {PROBE_CLIP}).')
        else:
            ok.append(f)
    return ok


PERF_LINE = re.compile(r'^\s*([\d.]+)%\s+(\S+)\s+(0x[0-9a-f]+)\s+\S+\s+\[\.\]\s+(\S+)')
LEVEL = re.compile(r'_(avx512icl|avx512|avx2|sse41|ssse3|sse2)(?:_|$|\.)')
AVX512 = ('avx512', 'avx512icl')


def symbol_levels(exe):
    """The program's code symbols by address, each with its SIMD level: the
    one its name ends with, or, for a helper compiled once per level under one
    name (tvmaf's <feature>_x86.c), the level of the named kernels on both
    sides of it. [(address, name, level or None)]; [] without nm."""
    try:
        out = subprocess.run(['nm', '-n', exe], capture_output=True, text=True).stdout
    except OSError:
        return []
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW':
            m = LEVEL.search(f[2])
            syms.append([int(f[0], 16), f[2], m.group(1) if m else None])
    named = [i for i, x in enumerate(syms) if x[2]]
    for k in range(len(named) - 1):
        lo, hi = named[k], named[k + 1]
        if syms[lo][2] == syms[hi][2]:
            for i in range(lo + 1, hi):
                syms[i][2] = syms[lo][2]
    return syms


def sampled_levels(a, exe, mask):
    """Where the program's samples fell, scoring 3 frames of vmaf_v0.6.1 at 1
    thread: {SIMD level: percent of all samples} over its own code (the C
    library's routines are not counted); None where perf could not profile."""
    clip = 'forest_1920x1080'
    p = {s: os.path.join(a.clips, f'{clip}.{s}.yuv') for s in ('ref', 'dis')}
    data = os.path.join(a.work, 'isa-check.perf.data')
    cmd = [exe] + (['--backend', 'cpu'] if exe == a.tvmaf else []) + \
        ['-r', p['ref'], '-d', p['dis'], '-w', '1920', '-h', '1080', '-p', '420', '-b', '8', '-q',
         '--frame_cnt', '3', '--threads', '1', '-m', 'version=vmaf_v0.6.1', '-o', '/dev/null']
    if mask:
        cmd += ['--cpumask', str(mask)]
    try:
        r = subprocess.run(['perf', 'record', '-q', '-F', '2000', '-o', data, '--'] + cmd,
                           capture_output=True, text=True)
        if r.returncode:
            return None
        # -v (and no -q): each line with the DSO's path and an address in the
        # symbol, so that the copies of one name (one per SIMD level) stay apart
        r = subprocess.run(['perf', 'report', '-i', data, '--stdio', '--sort', 'dso,sym', '-v'],
                           capture_output=True, text=True)
    finally:
        if os.path.exists(data):
            os.unlink(data)
    if r.returncode:
        return None
    syms = symbol_levels(exe)
    addrs = [x[0] for x in syms]
    levels = {}
    for line in r.stdout.splitlines():
        m = PERF_LINE.match(line)
        if not m or os.path.realpath(m.group(2)) != os.path.realpath(exe):
            continue
        pct, addr, name = float(m.group(1)), int(m.group(3), 16), m.group(4)
        i = bisect.bisect_right(addrs, addr) - 1
        if i >= 0 and syms[i][1] == name:
            lv = syms[i][2]
        else:
            lv = LEVEL.search(name)
            lv = lv and lv.group(1)
        lv = lv or 'other'
        levels[lv] = levels.get(lv, 0.0) + pct
    return levels


def describe(levels):
    return ', '.join(f'{k} {v:.0f}%' for k, v in sorted(levels.items(), key=lambda x: -x[1])) \
        or 'nothing sampled'


def check_isa(a, isas, notes):
    """Whether the avx2 rows mean something here; returns the ISAs to run."""
    flags = cpu_flags()
    if 'avx2' not in isas:
        return isas
    if 'avx2' not in flags:
        notes.append('No AVX2 on this processor: the avx2 rows are skipped.')
        return [i for i in isas if i != 'avx2']
    if 'avx512f' not in flags:
        notes.append('No AVX-512 on this processor: the avx2 rows run what the default ones run.')
    if not shutil.which('perf'):
        notes.append(f'ISA check skipped (no perf): --cpumask {AVX2_MASK} is taken on the '
                     'programs\' documented bits.')
        return isas
    bad = False
    for who, exe in (('libvmaf', a.ref), ('tvmaf', a.tvmaf)):
        got = {mask: sampled_levels(a, exe, mask) for mask in (0, AVX2_MASK)}
        if got[0] is None or got[AVX2_MASK] is None:
            notes.append(f'ISA check skipped for {who}: perf could not profile it '
                         '(perf_event_paranoid above 2?).')
            continue
        d, m = got[0], got[AVX2_MASK]
        text = (f'{who}\'s own code, share of the samples scoring 3 frames of vmaf_v0.6.1 '
                f'(perf): by default {describe(d)}; with --cpumask {AVX2_MASK} {describe(m)}')
        if any(k in AVX512 for k in m):
            bad = True
            notes.append(f'**ISA check failed**: AVX-512 code ran under the mask. {text}.')
        elif 'avx2' not in m:
            notes.append(f'ISA check: no AVX2 code sampled under the mask, the avx2 rows may run '
                         f'C code. {text}.')
        else:
            notes.append(f'ISA check passed: {text}.')
        if 'avx512f' in flags and not any(k in AVX512 for k in d):
            notes.append(f'{who} ran no AVX-512 code by default (built without it?): its '
                         'default and avx2 rows run the same code.')
    if bad:
        raise SystemExit('\n'.join(notes) + '\nthe avx2 rows would not be AVX2-only: stopping')
    return isas


VERSION_FPS = re.compile(r'^\s*"(version|fps)":.*\n', re.M)
NONFINITE = re.compile(r'(?<=[:\[,\s])(-?)(nan|inf)(?=[,\s\]}])')


def load_scores(path):
    with open(path) as f:
        text = f.read()
    return VERSION_FPS.sub('', text)


def parse_scores(text):
    return json.loads(NONFINITE.sub(lambda m: ('-' if m.group(1) else '') +
                                    ('NaN' if m.group(2) == 'nan' else 'Infinity'), text))


def compare_scores(lib_path, tv_path):
    """'same', or what first differs."""
    try:
        a, b = load_scores(lib_path), load_scores(tv_path)
    except OSError as e:
        return f'DIFFER (no output: {e.filename})'
    if a == b:
        return 'same'
    try:
        ja, jb = parse_scores(a), parse_scores(b)
    except ValueError:
        return 'DIFFER (unreadable JSON)'
    pa, pb = ja.get('pooled_metrics', {}), jb.get('pooled_metrics', {})
    if set(pa) != set(pb):
        return 'DIFFER (metrics: ' + ', '.join(sorted(set(pa) ^ set(pb))[:3]) + ')'
    for k in pa:
        if pa[k] != pb[k]:
            return f'DIFFER ({k} mean {pa[k].get("mean")} / {pb[k].get("mean")})'
    fa, fb = ja.get('frames', []), jb.get('frames', [])
    if len(fa) != len(fb):
        return f'DIFFER ({len(fa)} / {len(fb)} frames)'
    for x, y in zip(fa, fb):
        if x != y:
            return f'DIFFER (frame {x.get("frameNum")})'
    return 'same' if ja.get('aggregate_metrics') == jb.get('aggregate_metrics') else \
        'DIFFER (aggregate metrics)'


def run_row(a, row):
    cmds = row.commands(a)
    os.makedirs(os.path.join(a.work, 'out'), exist_ok=True)
    warm(input_paths(a, row.inp).values())
    wall = {'libvmaf': [], 'tvmaf': []}
    cpu = {'libvmaf': [], 'tvmaf': []}
    ratio_wall, ratio_cpu = [], []
    scores = 'same'
    for i in range(a.repeats):
        order = ['tvmaf', 'libvmaf'] if i % 2 == 0 else ['libvmaf', 'tvmaf']
        for who in order:
            out = cmds[who][-1]
            if os.path.exists(out):
                os.unlink(out)
            rc, err, w, c = run_timed(cmds[who])
            if rc:
                sys.stderr.write(f'{shlex.join(cmds[who])}: exit status {rc}\n{err}\n')
                return dict(error=f'{who} exit status {rc}')
            wall[who].append(w)
            cpu[who].append(c)
        ratio_wall.append(wall['libvmaf'][-1] / wall['tvmaf'][-1])
        ratio_cpu.append(cpu['libvmaf'][-1] / cpu['tvmaf'][-1])
        got = compare_scores(cmds['libvmaf'][-1], cmds['tvmaf'][-1])
        if got != 'same':
            scores = got
    return dict(lib=statistics.median(wall['libvmaf']), tv=statistics.median(wall['tvmaf']),
                ratio=statistics.median(ratio_wall), cpu_ratio=statistics.median(ratio_cpu),
                scores=scores)


HEADER = ('| row | input | threads | ISA | libvmaf s | tvmaf s | ratio | CPU ratio | target | result '
          '| scores |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |')


def verdict(a, row, res):
    if 'error' in res:
        return 'error'
    if res['scores'] != 'same':
        return 'FAIL (scores differ)'
    if row.target is None:
        return '—'
    v = 'pass' if res['ratio'] >= row.target else 'FAIL'
    return v + (' (quick)' if a.quick else '')


def table_line(a, row):
    r = row.result
    name = f'`{row.name}`' + ('' if row.kind == 'model' else ' alone')
    target = '—' if row.target is None else f'{row.target:.1f}'
    if 'error' in r:
        return (f'| {name} | {row.inp} | {row.thr_label} | {row.isa} | — | — | — | — | {target} | '
                f'error | {r["error"]} |')
    return (f'| {name} | {row.inp} | {row.thr_label} | {row.isa} | {r["lib"]:.3f} | {r["tv"]:.3f} | '
            f'{r["ratio"]:.2f} | {r["cpu_ratio"]:.2f} | {target} | {verdict(a, row, r)} | '
            f'{r["scores"]} |')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    ap.add_argument('--ref', default=os.environ.get('LIBVMAF_VMAF'),
                    help="libvmaf's vmaf tool (default $LIBVMAF_VMAF)")
    ap.add_argument('--tvmaf', default=os.path.join(ROOT, 'build', 'tools', 'tvmaf'))
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS',
                                                      os.path.join(ROOT, '.cache', 'clips')))
    ap.add_argument('--work', default='/tmp/tvmaf-bench',
                    help='where the long inputs and the score files go')
    ap.add_argument('--models', default=','.join(MODELS), help="comma-separated; '' for none")
    ap.add_argument('--features', default=','.join(FEATURES), help="comma-separated; '' for none")
    ap.add_argument('--inputs', help=f'the models\' inputs (default {MODEL_INPUTS}; '
                                     f'--quick {MODEL_INPUTS_QUICK})')
    ap.add_argument('--threads', default='1,2,all', help='the models\' thread counts')
    ap.add_argument('--feature-inputs',
                    help=f'the features\' inputs (default {FEATURE_INPUT}, ciede '
                         f'{SLOW_FEATURES["ciede"]}; --quick {FEATURE_INPUT_QUICK})')
    ap.add_argument('--feature-threads', default='1')
    ap.add_argument('--isa', default='default,avx2', help='default, avx2 (both: --cpumask 48)')
    ap.add_argument('--repeats', type=int, help='alternating pairs per row (default 3, --quick 1)')
    ap.add_argument('--quick', action='store_true',
                    help='smoke run: 1 pair, 10-frame inputs')
    ap.add_argument('--only', help='run just these rows (ids as --list prints them)')
    ap.add_argument('--out', help='also write the report (Markdown) to this file')
    ap.add_argument('--list', action='store_true', help='print the rows and commands, run nothing')
    ap.add_argument('--no-isa-check', action='store_true', help='skip the perf check of --cpumask')
    a = ap.parse_args()
    if a.repeats is None:
        a.repeats = 1 if a.quick else 3
    if not a.ref and not a.list:
        ap.error('--ref VMAF (libvmaf\'s vmaf tool) is required')
    a.ref = os.path.abspath(a.ref) if a.ref else 'VMAF'
    a.tvmaf = os.path.abspath(a.tvmaf)
    a.work = os.path.abspath(a.work)
    a.clips = os.path.abspath(a.clips)

    notes = []
    rows = make_rows(a, notes)
    if a.list:
        for n in notes:
            print(n)
        for r in rows:
            t = '' if r.target is None else f'  target {r.target:.1f}'
            print(f'{r.id}{t}')
            c = r.commands(a)
            print('  libvmaf: ' + shlex.join(c['libvmaf']))
            print('  tvmaf:   ' + shlex.join(c['tvmaf']))
        print(f'{len(rows)} rows, {a.repeats} pair(s) each')
        return 0
    for exe in (a.ref, a.tvmaf):
        if not os.access(exe, os.X_OK):
            ap.error(f'{exe}: not an executable')
    os.makedirs(a.work, exist_ok=True)

    t_start = time.time()
    isas = sorted({r.isa for r in rows}, key=['default', 'avx2'].index)
    if a.no_isa_check and 'avx2' in isas:
        notes.append(f'ISA check skipped (--no-isa-check): --cpumask {AVX2_MASK} is taken on '
                     'the programs\' documented bits.')
    elif isas:
        isas = check_isa(a, isas, notes)
    feats = list(dict.fromkeys(r.name for r in rows if r.kind == 'feature'))
    have = set(probe_features(a, feats, notes))
    rows = [r for r in rows if r.isa in isas and (r.kind == 'model' or r.name in have)]
    for inp in sorted({r.inp for r in rows}):
        build_input(a, inp)

    flags = cpu_flags()
    head = [
        '# tvmaf CPU against libvmaf',
        '',
        f'{cpu_name()}, {len(os.sched_getaffinity(0))} cores available, '
        f'{"AVX-512" if "avx512f" in flags else "no AVX-512"}, '
        f'{"AVX2" if "avx2" in flags else "no AVX2"}. '
        f'tvmaf: {version(a.tvmaf)}; libvmaf: {version(a.ref)}.',
        '',
        f'Wall seconds of the whole command, medians of {a.repeats} alternating pair(s); ratio: '
        'median over the pairs of libvmaf / tvmaf (above 1: tvmaf is faster), for wall and CPU '
        f'time. ISA avx2: both run with --cpumask {AVX2_MASK}.' +
        (' **--quick: a smoke run (10-frame inputs), not a measurement.**' if a.quick else ''),
        '',
    ]
    print('\n'.join(head))
    print(HEADER)
    sys.stdout.flush()
    lines = []
    try:
        for i, row in enumerate(rows):
            sys.stderr.write(f'[{i + 1}/{len(rows)}] {row.id}\n')
            row.result = run_row(a, row)
            lines.append(table_line(a, row))
            print(lines[-1])
            sys.stdout.flush()
    except KeyboardInterrupt:
        notes.insert(0, f'Interrupted after {len(lines)} of {len(rows)} rows.')
        rows = [r for r in rows if r.result is not None]

    judged = [r for r in rows if r.target is not None and 'error' not in r.result]
    passed = [r for r in judged if verdict(a, r, r.result).startswith('pass')]
    errors = [r for r in rows if 'error' in r.result]
    differ = [r for r in rows if 'error' not in r.result and r.result['scores'] != 'same']
    tail = ['', f'Targets met: {len(passed)} of {len(judged)}'
            + (' (--quick: indicative only)' if a.quick else '') +
            f'. Scores differ: {len(differ)} row(s). Failed commands: {len(errors)}. '
            f'{time.time() - t_start:.0f} s in all.']
    if notes:
        tail += [''] + [f'- {n}' for n in notes]
    tail += ['', 'Commands (`libvmaf`, then `tvmaf`, per row):', '']
    for r in rows:
        c = r.commands(a)
        tail += [f'    # {r.id}', '    ' + shlex.join(c['libvmaf']), '    ' + shlex.join(c['tvmaf'])]
    print('\n'.join(tail))
    if a.out:
        with open(a.out, 'w') as f:
            f.write('\n'.join(head + [HEADER] + lines + tail) + '\n')
    return 1 if errors or differ else 0


if __name__ == '__main__':
    sys.exit(main())
