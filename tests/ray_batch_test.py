"""The Ray driver (python -m tvmaf.batch) on a local Ray cluster of two worker
processes, CPU backend: every pair's score equals a direct one-pair run of the
CLI (as doubles, and its kept JSON byte for byte less the fps line); a
missing input fails that pair alone; a task whose tvmaf dies is retried by
Ray, and one that dies every time fails after its attempts; a bad row is
reported; the exit status says whether every pair was scored.

Outputs follow the rule of every file tvmaf writes (python/tvmaf/_outputs.py):
a row whose output is one of the run's inputs (its own dis or ref, by name,
through a symbolic link, another row's through a hard link) or an earlier
row's output (another spelling of the path) is refused and the input is left
as it was (bytes and mtime); an --out that is an input refuses the run; under
umask 022 new outputs (and the table) get 0644, an existing output keeps its
mode, a symbolic link is written through; a row whose worker is SIGKILLed
(once, or on every attempt) while its temporary file exists leaves none, nor
does any other row. Without Ray: the writer under umask 022 and 077, an
existing file, a link, a FIFO (in place, exempt from the identity rule), a
file size limit (EFBIG named, the file unchanged), and a writer killed by
SIGTERM, SIGINT (no temporary left) or SIGKILL (its temporary removed by the
driver's remove_temporary). Each waits on the writer's own report, never on
time.

usage: ray_batch_test.py TVMAF_EXE [--clips DIR] [--shared DIR]

Ray comes from PyPI: scripts/bootstrap installs it into .cache/venv. Without
an interpreter that imports ray the test skips (exit 77), unless
TVMAF_REQUIRE_RAY=1 (CI sets it), where that is a failure.

No timing decides the result. Ray's start-up waits are made generous (RAY_*
settings below), each run of the driver gets a Ray directory of its own (no
other cluster of the machine is joined or disturbed), and a run whose cluster
did not start -- the driver failed or hung before any task ran (no attempt
marked, no table written) -- is run again, up to START_ATTEMPTS times in all.
Ray gives its node 30 s to register (not configurable; on a loaded 2-core
machine it once ran out). A run that started scores as before: its results
are checked, never retried.
"""
import csv
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import Result, parse_clip_info, strip_volatile, test_arg_parser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A start-up failure is retried (the cluster did not come up); a run is given DRIVER_TIMEOUT_S
# (it takes about 6 s alone on 2 cores; tests/meson.build's timeout allows every attempt).
START_ATTEMPTS = 3
DRIVER_TIMEOUT_S = 300
# Ray's own waits (its defaults: 30 s for the GCS port, 60 s for a worker process to register,
# health checks failing a node after about 50 s of silence), stretched so that load cannot
# fail the run
RAY_WAITS = {
    'RAY_gcs_server_port_wait_time_s': '600',
    'RAY_worker_register_timeout_seconds': '600',
    'RAY_gcs_rpc_server_reconnect_timeout_s': '600',
    'RAY_health_check_timeout_ms': '60000',
    'RAY_health_check_failure_threshold': '20',
}

# Stands in for tvmaf in the tasks: SIGKILLs itself on the first attempt of
# every pair (a marker per distorted input), and on every attempt of a
# distorted input whose name holds "alwayscrash"; otherwise runs tvmaf. A
# distorted input whose name holds "killworker" SIGKILLs the Ray worker that
# runs it (its parent, holding the output's temporary file) instead, on the
# first attempt, or on every attempt for "alwayskillworker". One whose name
# holds "fsizelimit" runs tvmaf under a file size limit of 512 bytes (SIGXFSZ
# ignored: its writes fail with EFBIG).
FLAKY = r'''#!/bin/sh
dis=
prev=
for a in "$@"; do [ "$prev" = "-d" ] && dis=$a; prev=$a; done
mark="$FLAKY_DIR/$(printf '%s' "$dis" | md5sum | cut -c1-16)"
case "$dis" in
*alwayscrash*) kill -9 $$ ;;
*alwayskillworker*) kill -9 $PPID; exit 1 ;;
*killworker*) if [ ! -e "$mark" ]; then : > "$mark"; kill -9 $PPID; exit 1; fi ;;
*fsizelimit*) ulimit -f 1; trap '' XFSZ ;;
esac
if [ ! -e "$mark" ]; then : > "$mark"; kill -9 $$; fi
exec "$TVMAF_REAL" "$@"
'''

# Children of the writer checks (python/tvmaf/_outputs.py), run by the interpreter that imports
# ray and numpy. WRITER writes argv[1] with tag argv[2], prints its temporary file's name once
# it holds a part of the data, then waits for stdin to close (or a signal)
WRITER = r'''
import signal, sys
from tvmaf._outputs import Output, terminate_raises
signal.signal(signal.SIGINT, signal.default_int_handler)
with terminate_raises(), Output(sys.argv[1], tag=sys.argv[2]) as out:
    out.write(b'partial')
    print(out.tmp, flush=True)
    sys.stdin.read()
    out.write(b' and the rest')
    out.commit()
'''
# UMASK: under umask argv[1] (octal), writes each later argument (reading the umask as the
# driver does)
UMASK = r'''
import os, sys
from tvmaf._outputs import write_file
os.umask(int(sys.argv[1], 8))
for p in sys.argv[2:]:
    write_file(p, b'{"new": true}\n')
'''
# FSIZE: writes 10000 bytes to argv[1] under a file size limit of 4096 bytes
FSIZE = r'''
import resource, signal, sys
from tvmaf._outputs import OutputError, write_file
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    write_file(sys.argv[1], b'x' * 10000)
except OutputError as e:
    print(e)
    sys.exit(3)
'''
# CHECK: the driver's checks of a manifest's rows before scoring, {line: error} as JSON
CHECK = r'''
import json, sys
from tvmaf.batch import check_files, read_manifest
rows = read_manifest(sys.argv[1])
check_files(rows, sys.argv[1], None)
print(json.dumps({r.line: r.error for r in rows}))
'''
# REMOVE: the driver's removal of what a writer killed outright left (argv[1], tag argv[2])
REMOVE = r'''
import sys
from tvmaf._outputs import remove_temporary
print(remove_temporary(sys.argv[1], sys.argv[2]))
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
        writer_checks(py, args.clips, os.path.join(tmp, 'writer'), res)
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
    # lines 8-16: the outputs' rule. The inputs the refused rows name are copies (a wrong fix
    # writes over them) with an old mtime; an existing output (mode 0640), a link to an existing
    # one (0604) in another folder; a row whose worker is SIGKILLed once, one every time
    own_ref, own_dis = os.path.join(tmp, 'own_ref.yuv'), os.path.join(tmp, 'own_dis.yuv')
    shutil.copyfile(path('tiny_177x99', 'ref'), own_ref)
    shutil.copyfile(path('tiny_177x99', 'dis'), own_dis)
    for f in (own_ref, own_dis):
        os.utime(f, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
    os.symlink('own_ref.yuv', os.path.join(tmp, 'ref_link.yuv'))
    os.link(own_ref, os.path.join(tmp, 'own_ref_hard.yuv'))
    make_file(os.path.join(tmp, 'kept.json'), 'old', 0o640)
    os.makedirs(os.path.join(tmp, 'real'))
    make_file(os.path.join(tmp, 'real', 'real.json'), 'old', 0o604)
    os.symlink(os.path.join('real', 'real.json'), os.path.join(tmp, 'link.json'))
    make_file(os.path.join(tmp, 'limited.json'), 'old', 0o644)
    for name in ('killworker.yuv', 'alwayskillworker.yuv', 'fsizelimit.yuv'):
        os.symlink(path('tiny_177x99', 'dis'), os.path.join(tmp, name))
    tiny = [path('tiny_177x99', 'ref'), path('tiny_177x99', 'dis')]
    t = raw('tiny_177x99')
    rows += [
        [own_ref, own_dis, 'own_dis.yuv'] + t,               # 8: its own dis
        [own_ref, own_dis, 'ref_link.yuv'] + t,              # 9: its own ref, through a link
        tiny + ['own_ref_hard.yuv'] + t,                     # 10: line 8's ref, a hard link
        tiny + ['same.json'] + t,                            # 11
        tiny + ['./same.json'] + t,                          # 12: line 11's output
        tiny + ['kept.json'] + t,                            # 13: existing, 0640
        tiny + ['link.json'] + t,                            # 14: a link, written through
        [tiny[0], 'killworker.yuv', 'killed.json'] + t,      # 15: its worker killed once
        [tiny[0], 'alwayskillworker.yuv', 'dead.json'] + t,  # 16: killed on every attempt
        [tiny[0], 'fsizelimit.yuv', 'limited.json'] + t,     # 17: EFBIG
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
               TVMAF_REAL=exe, FLAKY_DIR=marks, RAY_USAGE_STATS_ENABLED='0', **RAY_WAITS)
    env.pop('RAY_ADDRESS', None)  # a cluster of its own, not one the environment names
    cmd = [py, '-m', 'tvmaf.batch', man, '--ray', 'local', '--num-cpus', '2', '--out', table,
           '--max-retries', '1', '--backend', 'cpu', '--tvmaf', flaky, '--'] + options
    # an --out that is an input: the whole run refused before it starts (no Ray, no task)
    refused_marks = os.path.join(tmp, 'refused_marks')
    os.makedirs(refused_marks)
    refuse = cmd[:cmd.index('--out') + 1] + ['own_dis.yuv'] + cmd[cmd.index('--out') + 2:]
    p = driver(refuse, dict(env, FLAKY_DIR=refused_marks), tmp, umask=0o022)
    res.check(p.returncode == 1 and 'line 8\'s distorted input' in p.stderr and
              'nothing was scored' in p.stderr and not os.listdir(refused_marks),
              '--out naming an input refuses the run before it starts', p.stderr[-2000:])
    for attempt in range(1, START_ATTEMPTS + 1):
        # Ray's sockets live under it: only a short path (a Unix socket path has at most 107
        # bytes), else Ray's default
        ray_tmp = tempfile.mkdtemp(prefix='r', dir=tmp)
        if len(ray_tmp) <= 40:
            env['RAY_TMPDIR'] = ray_tmp
        p = driver(cmd, env, tmp, umask=0o022)
        started = os.path.exists(table) or os.listdir(marks)
        if started or attempt == START_ATTEMPTS:
            break
        print(f'driver attempt {attempt}: the local cluster did not start (no task ran); '
              f'running it again. Its stderr ends: {p.stderr.strip()[-1500:]}')
    err = p.stderr.strip().splitlines()
    res.check(p.returncode == 1, 'exit status 1 when a pair failed', p.stderr[-2000:])
    res.check(err and err[-1] == 'tvmaf.batch: 16 pairs, 7 scored, 9 failed '
              '(lines 4, 6, 7, 8, 9, 10, 12, 16, 17)', 'summary line', err[-1] if err else p.stderr)
    if not os.path.exists(table):
        res.check(False, 'results table written', p.stderr[-2000:])
        return
    with open(table, newline='') as f:
        got = {int(r['line']): r for r in csv.DictReader(f)}
    res.check(sorted(got) == list(range(2, 18)), 'one table row per manifest row',
              str(sorted(got)))

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
    # lines 2-5 died once (line 6 dies before its mark) and Ray ran them again, and lines 15
    # and 17 (lines 11, 13, 14 share line 5's dis and mark)
    res.check(len(os.listdir(marks)) == 6, 'each task that ran was retried after its first '
              'attempt died', str(os.listdir(marks)))
    print(f'workers used: {sorted(w for w in workers if w)}')
    output_checks(exe, tmp, tiny, raw('tiny_177x99'), options, got, res)


OLD_MTIME_NS = 1_000_000_000 * 10 ** 9  # 2001-09-09


def make_file(path, text, mode):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def leftovers(*folders):
    """Temporary files in `folders`: the rule's `.NAME.tmp-...`, mkstemp's `tmp...`."""
    return sorted(os.path.join(d, n) for d in folders for n in os.listdir(d)
                  if '.tmp-' in n or n.startswith('tmp'))


def output_checks(exe, tmp, tiny, raw, options, got, res):
    """Lines 8-16 of the Ray run and the files it left (umask 022)."""
    for line, want in ((8, 'is its own distorted input'), (9, 'is its own reference input'),
                       (10, 'is line 8\'s reference input'), (12, 'is line 11\'s output too')):
        r = got.get(line, {})
        res.check(r.get('status') == 'bad_row' and want in r.get('error', ''),
                  f'line {line}: refused, its output {want}', str(r))
    own = os.path.join(tmp, 'own_ref.yuv')
    for f, clip in ((own, tiny[0]), (os.path.join(tmp, 'own_dis.yuv'), tiny[1])):
        with open(f, 'rb') as a, open(clip, 'rb') as b:
            same = a.read() == b.read()
        res.check(same and os.stat(f).st_mtime_ns == OLD_MTIME_NS,
                  f'{os.path.basename(f)}: the refused rows\' input is unchanged (bytes, mtime)',
                  f'same bytes {same}, mtime {os.stat(f).st_mtime_ns}')
    res.check(os.path.islink(os.path.join(tmp, 'ref_link.yuv')) and
              os.stat(os.path.join(tmp, 'own_ref_hard.yuv')).st_ino == os.stat(own).st_ino,
              'the refused outputs naming an input (a link, a hard link) are as they were')

    single = os.path.join(tmp, 'single_tiny.json')
    q = subprocess.run([exe, '-r', tiny[0], '-d', tiny[1], '-w', raw[0], '-h', raw[1], '-p', raw[2],
                        '-b', raw[3], '--backend', 'cpu', '--precision', 'max', '--json', '-o',
                        single, '-q'] + options, capture_output=True, text=True)
    with open(single) as f:
        want = strip_volatile(f.read(), 'json') if not q.returncode else None

    def holds_scores(p):
        with open(p) as f:
            return want is not None and strip_volatile(f.read(), 'json') == want

    for line, name in ((11, 'same.json'), (13, 'kept.json'), (14, 'link.json'),
                       (15, 'killed.json')):
        r = got.get(line, {})
        p = os.path.join(tmp, name)
        res.check(r.get('status') == 'ok' and os.path.exists(p) and holds_scores(p),
                  f'line {line}: scored, {name} holds its scores', str(r))
    for name in ('cups.json', 'tiny.json', 'same.json', 'killed.json', 'table.csv'):
        p = os.path.join(tmp, name)
        res.check(os.path.exists(p) and mode_of(p) == 0o644,
                  f'{name}: a new file gets 0666 & ~umask (022: 0644)',
                  oct(mode_of(p)) if os.path.exists(p) else 'missing')
    p = os.path.join(tmp, 'kept.json')
    res.check(mode_of(p) == 0o640, 'kept.json: an existing output keeps its mode (0640)',
              oct(mode_of(p)))
    link, real = os.path.join(tmp, 'link.json'), os.path.join(tmp, 'real', 'real.json')
    res.check(os.path.islink(link) and os.readlink(link) == os.path.join('real', 'real.json') and
              holds_scores(real) and mode_of(real) == 0o604,
              'link.json: a symbolic link is written through (link kept, its file replaced, '
              'mode kept)', f'link {os.path.islink(link)}, mode {oct(mode_of(real))}')
    r = got.get(16, {})
    res.check(r.get('status') == 'failed' and not os.path.lexists(os.path.join(tmp, 'dead.json')),
              'line 16: its worker killed on every attempt, fails, writes nothing', str(r))
    r = got.get(17, {})
    want = f'writing "{os.path.join(tmp, "limited.json")}" failed: File too large (the existing ' \
        'file is unchanged)'
    with open(os.path.join(tmp, 'limited.json')) as f:
        kept = f.read()
    res.check(r.get('status') == 'failed' and r.get('error') == want and kept == 'old',
              'line 17: a failed write names errno ("File too large"), leaves the output as it was',
              f'{r}, output {kept[:40]!r}')
    left = leftovers(tmp, os.path.join(tmp, 'real'))
    res.check(not left, 'no temporary file left (workers killed on lines 15 and 16, a failed '
              'write on line 17)', str(left))


def writer_checks(py, clip_dir, wdir, res):
    """The writer (python/tvmaf/_outputs.py) and the driver's checks, without Ray."""
    os.makedirs(os.path.join(wdir, 'real'))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, 'python'), PYTHONDONTWRITEBYTECODE='1')

    def w(name):
        return os.path.join(wdir, name)

    def child(code, *argv):
        return subprocess.run([py, '-c', code] + list(argv), capture_output=True, text=True,
                              env=env)

    def text(p):
        with open(p) as f:
            return f.read()

    new = '{"new": true}\n'
    # modes: umask 022 and 077 (the writer reads the umask as the driver does)
    make_file(w('kept.json'), 'old', 0o640)
    make_file(w('real/real.json'), 'old', 0o604)
    os.symlink(os.path.join('real', 'real.json'), w('link.json'))
    q = child(UMASK, '022', w('new022.json'), w('kept.json'))
    q2 = child(UMASK, '077', w('new077.json'), w('link.json'))
    res.check(q.returncode == 0 and q2.returncode == 0, 'writer: writes', q.stderr + q2.stderr)
    for name, mode in (('new022.json', 0o644), ('new077.json', 0o600)):
        ok = os.path.exists(w(name)) and mode_of(w(name)) == mode and text(w(name)) == new
        res.check(ok, f'writer: a new file under umask {name[3:6]} gets {oct(mode)}',
                  oct(mode_of(w(name))) if os.path.exists(w(name)) else 'missing')
    res.check(text(w('kept.json')) == new and mode_of(w('kept.json')) == 0o640,
              'writer: an existing file keeps its mode (0640 under umask 022)',
              oct(mode_of(w('kept.json'))))
    res.check(os.path.islink(w('link.json')) and text(w('real/real.json')) == new and
              mode_of(w('real/real.json')) == 0o604,
              'writer: a symbolic link is written through (link kept, its file replaced)',
              f'link {os.path.islink(w("link.json"))}')

    # a FIFO is written in place, and is exempt from the identity rule
    os.mkfifo(w('pipe'))
    rfd = os.open(w('pipe'), os.O_RDONLY | os.O_NONBLOCK)
    q = child(UMASK, '022', w('pipe'))
    try:
        got = os.read(rfd, 4096)
    except OSError:
        got = b''
    os.close(rfd)
    res.check(q.returncode == 0 and got == new.encode() and
              stat.S_ISFIFO(os.lstat(w('pipe')).st_mode),
              'writer: a FIFO is written in place', f'{got!r} {q.stderr[-500:]}')
    tiny = [os.path.join(clip_dir, f'tiny_177x99.{k}.yuv') for k in ('ref', 'dis')]
    with open(w('pipes.csv'), 'w') as f:
        f.write('ref,dis,output,width,height,pix_fmt,bitdepth\n')
        for out in ('pipe', 'pipe', '/dev/null', '/dev/null'):
            f.write(f'{tiny[0]},{tiny[1]},{out},177,99,420,8\n')
    q = child(CHECK, w('pipes.csv'))
    try:
        errors = json.loads(q.stdout)
    except ValueError:
        errors = None
    res.check(errors == {'2': None, '3': None, '4': None, '5': None},
              'driver: special files (a FIFO, /dev/null) are exempt from the identity rule',
              q.stdout + q.stderr[-1000:])

    # a file size limit: EFBIG named, the existing file unchanged, no temporary left
    make_file(w('big.json'), 'old', 0o644)
    q = child(FSIZE, w('big.json'))
    res.check(q.returncode == 3 and 'File too large' in q.stdout and
              '(the existing file is unchanged)' in q.stdout and text(w('big.json')) == 'old',
              'writer: a failed write names errno ("File too large"), leaves the file as it was',
              q.stdout + q.stderr[-1000:])

    # a writer interrupted while it holds its temporary file: SIGTERM and SIGINT remove it,
    # SIGKILL cannot (remove_temporary, what the driver runs after a task, does); none: commits
    for name, sig in (('none', None), ('term', signal.SIGTERM), ('int', signal.SIGINT),
                      ('kill', signal.SIGKILL)):
        out = w(f'sig_{name}.json')
        make_file(out, 'old', 0o644)
        p = subprocess.Popen([py, '-c', WRITER, out, f'test-{name}'], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        held = p.stdout.readline().strip()  # the writer holds its temporary file
        ok = bool(held) and os.path.exists(held)
        if sig is None:
            p.stdin.close()
        else:
            p.send_signal(sig)
        p.wait()
        err = p.communicate()[1] if sig is not None else p.stderr.read()
        if sig is None:
            res.check(ok and p.returncode == 0 and text(out) == 'partial and the rest' and
                      not os.path.exists(held), 'writer: completes (the harness)', err[-1000:])
        elif sig == signal.SIGKILL:
            res.check(ok and os.path.exists(held) and text(out) == 'old',
                      'writer: SIGKILLed, leaves its temporary file (nothing can catch it)', held)
            q = child(REMOVE, out, f'test-{name}')
            res.check(q.stdout.strip() == 'True' and not os.path.exists(held),
                      'driver: removes the temporary file of a writer killed outright',
                      q.stdout + q.stderr[-1000:])
        else:
            res.check(ok and p.returncode != 0 and not os.path.exists(held) and
                      text(out) == 'old',
                      f'writer: {signal.Signals(sig).name} removes its temporary file, leaves the '
                      'file as it was', f'held {held!r}, rc {p.returncode}, {err[-1000:]}')
    left = leftovers(wdir, w('real'))
    res.check(not left, 'writer: no temporary file left', str(left))


def driver(cmd, env, cwd, umask=-1):
    """One run of the driver (a CompletedProcess), in a process group of its own so that a run
    past DRIVER_TIMEOUT_S is ended with the Ray processes it started (then returncode None);
    umask: the driver's (-1: this process's)."""
    t0 = time.time()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          cwd=cwd, start_new_session=True, umask=umask) as proc:
        try:
            out, err = proc.communicate(timeout=DRIVER_TIMEOUT_S)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            err += f'\n(ended after {DRIVER_TIMEOUT_S} s)'
            rc = None
    print(f'driver: {time.time() - t0:.1f} s, exit {rc}')
    return subprocess.CompletedProcess(cmd, rc, out, err)


if __name__ == '__main__':
    sys.exit(main())
