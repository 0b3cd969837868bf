"""The Ray driver (python -m tvmaf.batch) on a local Ray cluster of two worker
processes, CPU backend: every pair's score equals a direct one-pair run of the
CLI (as doubles, and its kept JSON byte for byte less the fps line); a
missing input fails that pair alone; a task whose tvmaf dies is retried by
Ray, and one that dies every time fails after its attempts; a bad row is
reported; the exit status says whether every pair was scored.

usage: ray_batch_test.py TVMAF_EXE [--clips DIR] [--shared DIR]

Ray comes from PyPI: scripts/bootstrap installs it into .cache/venv. Without
an interpreter that imports ray the test skips (exit 77), unless
TVMAF_REQUIRE_RAY=1 (CI sets it), where that is a failure.
"""
import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import Result, parse_clip_info, strip_volatile, test_arg_parser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Stands in for tvmaf in the tasks: SIGKILLs itself on the first attempt of
# every pair (a marker per distorted input), and on every attempt of a
# distorted input whose name holds "alwayscrash"; otherwise runs tvmaf.
FLAKY = r'''#!/bin/sh
dis=
prev=
for a in "$@"; do [ "$prev" = "-d" ] && dis=$a; prev=$a; done
mark="$FLAKY_DIR/$(printf '%s' "$dis" | md5sum | cut -c1-16)"
case "$dis" in *alwayscrash*) kill -9 $$ ;; esac
if [ ! -e "$mark" ]; then : > "$mark"; kill -9 $$; fi
exec "$TVMAF_REAL" "$@"
'''


def ray_python():
    """An interpreter that imports ray (and numpy, which the tvmaf package imports)."""
    for py in (os.environ.get('TVMAF_RAY_PYTHON'), os.path.join(ROOT, '.cache', 'venv', 'bin', 'python'),
               sys.executable, '/usr/bin/python3'):
        if py and os.path.exists(py) and subprocess.run(
                [py, '-c', 'import ray, numpy'], capture_output=True).returncode == 0:
            return py
    return None


def main():
    args = test_arg_parser().parse_args()
    exe = os.path.abspath(args.tvmaf)
    py = ray_python()
    if not py:
        if os.environ.get('TVMAF_REQUIRE_RAY') == '1':
            print('FAIL: no Python imports ray (scripts/bootstrap installs it into .cache/venv)')
            return 1
        print('SKIP: no Python imports ray (scripts/bootstrap installs it into .cache/venv)')
        return 77
    clips = {n: parse_clip_info(os.path.join(args.clips, n + '.info'), n)
             for n in ('cups_576x324', 'noise_320x180', 'tiny_177x99')}
    res = Result()
    tmp = tempfile.mkdtemp(prefix='tvmaf_ray_')
    try:
        run(py, exe, args.clips, clips, tmp, res)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


def run(py, exe, clip_dir, clips, tmp, res):
    def path(name, which):
        return os.path.join(clip_dir, f'{name}.{which}.yuv')

    def raw(name):
        c = clips[name]
        return [str(c['w']), str(c['h']), c['layout'], str(c['bits'])]

    options = ['--feature', 'psnr']
    os.symlink(path('tiny_177x99', 'dis'), os.path.join(tmp, 'alwayscrash.yuv'))
    rows = [  # ref, dis, output, width, height, pix_fmt, bitdepth
        [path('cups_576x324', 'ref'), path('cups_576x324', 'dis'), 'cups.json'] + raw('cups_576x324'),
        [path('noise_320x180', 'ref'), path('noise_320x180', 'dis'), ''] + raw('noise_320x180'),
        [path('tiny_177x99', 'ref'), os.path.join(tmp, 'missing.yuv'), ''] + raw('tiny_177x99'),
        [path('tiny_177x99', 'ref'), path('tiny_177x99', 'dis'), 'tiny.json'] + raw('tiny_177x99'),
        [path('tiny_177x99', 'ref'), 'alwayscrash.yuv', ''] + raw('tiny_177x99'),
        [path('tiny_177x99', 'ref'), path('tiny_177x99', 'dis'), ''] + ['177', 'abc', '420', '8'],
    ]
    man = os.path.join(tmp, 'pairs.csv')
    with open(man, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['ref', 'dis', 'output', 'width', 'height', 'pix_fmt', 'bitdepth'])
        w.writerows(rows)
    flaky = os.path.join(tmp, 'flaky_tvmaf')
    with open(flaky, 'w') as f:
        f.write(FLAKY)
    os.chmod(flaky, os.stat(flaky).st_mode | stat.S_IXUSR)
    marks = os.path.join(tmp, 'marks')
    os.makedirs(marks)
    table = os.path.join(tmp, 'table.csv')
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, 'python'), PYTHONDONTWRITEBYTECODE='1',
               TVMAF_REAL=exe, FLAKY_DIR=marks, RAY_USAGE_STATS_ENABLED='0')
    cmd = [py, '-m', 'tvmaf.batch', man, '--ray', 'local', '--num-cpus', '2', '--out', table,
           '--max-retries', '1', '--backend', 'cpu', '--tvmaf', flaky, '--'] + options
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    print(f'driver: {time.time() - t0:.1f} s, exit {p.returncode}')
    err = p.stderr.strip().splitlines()
    res.check(p.returncode == 1, 'exit status 1 when a pair failed', p.stderr[-2000:])
    res.check(err and err[-1] == 'tvmaf.batch: 6 pairs, 3 scored, 3 failed (lines 4, 6, 7)',
              'summary line', err[-1] if err else p.stderr)
    if not os.path.exists(table):
        res.check(False, 'results table written', p.stderr[-2000:])
        return
    with open(table, newline='') as f:
        got = {int(r['line']): r for r in csv.DictReader(f)}
    res.check(sorted(got) == [2, 3, 4, 5, 6, 7], 'one table row per manifest row', str(sorted(got)))

    workers = set()
    for line, row in zip(range(2, 8), rows):
        r = got.get(line, {})
        name = f'line {line} ({os.path.basename(row[1])})'
        if line in (2, 3, 5):
            # a direct one-pair run of the real CLI
            single = os.path.join(tmp, 'single.json')
            q = subprocess.run([exe, '-r', row[0], '-d', row[1], '-w', row[3], '-h', row[4],
                                '-p', row[5], '-b', row[6], '--backend', 'cpu', '--precision',
                                'max', '--json', '-o', single, '-q'] + options,
                               capture_output=True, text=True)
            if q.returncode:
                res.check(False, f'{name}: single run', q.stderr)
                continue
            with open(single) as f:
                text = f.read()
            doc = json.loads(text)
            mean = doc['pooled_metrics']['vmaf']['mean']
            res.check(r.get('status') == 'ok', f'{name}: status ok', str(r))
            res.check(r.get('vmaf_mean') and float(r['vmaf_mean']) == mean and
                      r['vmaf_mean'] == repr(float(mean)),
                      f'{name}: vmaf mean equals the single run as a double',
                      f'{r.get("vmaf_mean")} vs {mean!r}')
            res.check(r.get('frames') == str(len(doc['frames'])), f'{name}: frame count',
                      f'{r.get("frames")} vs {len(doc["frames"])}')
            if row[2]:
                kept = os.path.join(tmp, row[2])
                same = os.path.exists(kept) and \
                    strip_volatile(open(kept).read(), 'json') == strip_volatile(text, 'json')
                res.check(same, f'{name}: the kept JSON equals the single run\'s', kept)
            workers.add(r.get('worker'))
        elif line == 4:
            res.check(r.get('status') == 'failed' and 'missing.yuv' in r.get('error', ''),
                      f'{name}: fails with tvmaf\'s message', str(r))
        elif line == 6:
            res.check(r.get('status') == 'failed' and 'after 2 attempts' in r.get('error', '')
                      and 'signal 9' in r.get('error', ''),
                      f'{name}: dies every time, fails after its 2 attempts', str(r))
        elif line == 7:
            res.check(r.get('status') == 'bad_row' and 'height "abc"' in r.get('error', ''),
                      f'{name}: a bad row is reported as such', str(r))
    # lines 2-5 died once (line 6 dies before its mark) and Ray ran them again
    res.check(len(os.listdir(marks)) == 4, 'each task that ran was retried after its first '
              'attempt died', str(os.listdir(marks)))
    print(f'workers used: {sorted(w for w in workers if w)}')


if __name__ == '__main__':
    sys.exit(main())
