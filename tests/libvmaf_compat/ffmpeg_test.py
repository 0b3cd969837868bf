#!/usr/bin/env python3
"""FFmpeg 7.1 built against the installed drop-in (libvmaf.so.3), on every
public stream pair: its libvmaf filter's log against libvmaf's goldens and
tvmaf's CLI.

1. FFmpeg 7.1's source comes from Debian's package for trixie (a deb-src
   entry of its own in /etc/apt/sources.list.d/, written when run as root;
   `apt-get source`); the drop-in is installed (meson install --destdir) and
   FFmpeg is configured with libvmaf.pc, minimally: the libvmaf filter, the
   decoders, parsers and demuxers of the public streams (h264, hevc, ffv1,
   libdav1d; matroska, mov, yuv4mpegpipe, rawvideo), the filters
   ffmpeg-quality-metrics puts in its graphs and -f null. The build is kept
   in the cache (TVMAF_FFMPEG_CACHE, default .cache/ffmpeg-compat) and
   reused while its configuration is the same; FFmpeg finds libvmaf.so.3
   through LD_LIBRARY_PATH, as an installed FFmpeg would find the drop-in.
2. For every pair of ../shared/testdata/streams, three runs of
   `ffmpeg -i DIS -i REF -lavfi libvmaf=log_fmt=json:log_path=...`:
   the default model with feature=name=psnr|name=ciede; vmaf_v0.6.1neg with
   n_threads=2; a v1.0.16 model with n_threads=2. Every per-frame, pooled and
   aggregate value of the log must equal the golden's printed as libvmaf
   prints it ("%.6f") where a golden has it, and where a golden lacks any
   value of the log, every value must equal the CLI's run of the same pair and
   options as printed; the "VMAF score" FFmpeg prints must be that pooled
   mean. Where the CLI refuses the pair (the v1.0.16 model's cambi on frames
   under 216 pixels), FFmpeg must fail and write no log. Then the XML, CSV
   and SUB logs of one pair against the CLI's, line for line.
3. ffmpeg-quality-metrics (PyPI, in a virtual environment in the cache) with
   that FFmpeg reports the CLI's VMAF (-m vmaf).

Not part of `meson test`: .ci/run runs it (it takes minutes, most of them
building FFmpeg the first time).

usage: ffmpeg_test.py [--build DIR] [--shared DIR] [--cache DIR] [--jobs N]
Ends with "N passed, N failed".
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
T0 = time.monotonic()

sys.path.insert(0, os.path.dirname(HERE))
from golden_common import Result  # noqa: E402

FFMPEG_SUITE = 'trixie'
FFMPEG_VERSION_PREFIX = '7:7.1'
FQM_VERSION = '3.13.0'
APT_SOURCE = '/etc/apt/sources.list.d/tvmaf-trixie-src.sources'
APT_SOURCE_TEXT = f"""# tvmaf's FFmpeg test (tests/libvmaf_compat/ffmpeg_test.py): FFmpeg 7.1's source
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: {FFMPEG_SUITE}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
CONFIGURE = [
    '--disable-everything', '--disable-autodetect', '--disable-doc', '--disable-debug',
    '--disable-network', '--disable-avdevice', '--disable-postproc', '--disable-swresample',
    '--disable-ffplay',
    # C only, -O1: a third of the build time; the decoders' output is the same
    '--disable-x86asm', '--optflags=-O1',
    '--enable-libvmaf', '--enable-libdav1d',
    '--enable-decoder=h264,hevc,ffv1,libdav1d,rawvideo',
    '--enable-parser=h264,hevc,av1',
    '--enable-demuxer=matroska,mov,yuv4mpegpipe,rawvideo',
    '--enable-muxer=null', '--enable-encoder=wrapped_avframe',
    '--enable-protocol=file,pipe',
    # the libvmaf filter and what ffmpeg-quality-metrics puts around it
    '--enable-filter=libvmaf,scale,settb,setpts,select,format,split,trim,null',
]
RUNS = [
    # (label, libvmaf filter options, the CLI's options, keys the log must have)
    ('default model, psnr, ciede', 'feature=name=psnr|name=ciede',
     ['--feature', 'psnr', '--feature', 'ciede'],
     ['integer_adm2', 'integer_vif_scale0', 'integer_motion2', 'psnr_y', 'psnr_cb', 'psnr_cr',
      'ciede2000', 'vmaf']),
    # a ':' inside an option value is escaped twice in a filter graph (graph, then options)
    ('vmaf_v0.6.1neg, n_threads=2', 'model=version=vmaf_v0.6.1neg\\\\:name=vmaf_neg:n_threads=2',
     ['-m', 'version=vmaf_v0.6.1neg:name=vmaf_neg', '--threads', '2'],
     ['integer_adm2_egl_1', 'integer_vif_scale0_egl_1', 'integer_motion2', 'vmaf_neg']),
    ('vmaf_v1.0.16_3d0h, n_threads=2', 'model=version=vmaf_v1.0.16_3d0h:n_threads=2',
     ['-m', 'version=vmaf_v1.0.16_3d0h', '--threads', '2'], ['vmaf']),
]


def say(msg):
    print(f'[{time.monotonic() - T0:6.1f} s] {msg}')
    sys.stdout.flush()


def run(cmd, **kw):
    kw.setdefault('check', True)
    return subprocess.run(cmd, **kw)


def skip(why):
    print(f'skipped: {why}')
    print('0 passed, 0 failed, 1 skipped')
    sys.exit(77)


# ------------------------------------------------------------------ preparing

def ensure_packages():
    """The build's tools: dpkg-source, pkg-config, make, dav1d's headers."""
    missing = []
    if not shutil.which('dpkg-source'):
        missing.append('dpkg-dev')
    if not shutil.which('pkg-config'):
        missing.append('pkgconf')
    if not shutil.which('make'):
        missing.append('make')
    if subprocess.run(['pkg-config', '--exists', 'dav1d'], capture_output=True).returncode \
            if shutil.which('pkg-config') else True:
        missing.append('libdav1d-dev')
    if not missing:
        return
    if os.geteuid() != 0:
        skip(f"needs {' '.join(missing)} (run as root to install them)")
    say(f"installing {' '.join(missing)}")
    install = ['apt-get', 'install', '-y', '--no-install-recommends'] + missing
    if run(install, stdout=subprocess.DEVNULL, check=False).returncode:
        run(['apt-get', 'update'], stdout=subprocess.DEVNULL)  # lists older than the archive
        run(install, stdout=subprocess.DEVNULL)


def ensure_source(cache):
    """FFmpeg 7.1's source from Debian's trixie package, unpacked in cache/src."""
    src = os.path.join(cache, 'src')
    if os.path.exists(os.path.join(src, 'configure')):
        return src
    dl = os.path.join(cache, 'dl')
    os.makedirs(dl, exist_ok=True)
    if not glob.glob(os.path.join(dl, 'ffmpeg_*.dsc')):
        if os.geteuid() != 0:
            skip("FFmpeg 7.1's source is not in the cache and fetching it needs root (apt)")
        if not os.path.exists(APT_SOURCE):
            with open(APT_SOURCE, 'w') as f:
                f.write(APT_SOURCE_TEXT)
        say(f'apt-get update ({APT_SOURCE} only)')
        run(['apt-get', 'update', '-o', f'Dir::Etc::sourcelist={APT_SOURCE}',
             '-o', 'Dir::Etc::sourceparts=-', '-o', 'APT::Get::List-Cleanup=0'],
            stdout=subprocess.DEVNULL)
        say(f'apt-get source ffmpeg/{FFMPEG_SUITE}')
        run(['apt-get', 'source', '--download-only', f'ffmpeg/{FFMPEG_SUITE}'], cwd=dl,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dsc = sorted(glob.glob(os.path.join(dl, 'ffmpeg_*.dsc')))[-1]
    with open(dsc) as f:
        version = re.search(r'^Version: (\S+)', f.read(), re.M).group(1)
    if not version.startswith(FFMPEG_VERSION_PREFIX):
        raise SystemExit(f'{dsc}: version {version}, not FFmpeg 7.1')
    say(f'unpacking {os.path.basename(dsc)} (FFmpeg {version})')
    shutil.rmtree(src, ignore_errors=True)
    run(['dpkg-source', '--no-check', '-x', dsc, src], stdout=subprocess.DEVNULL)
    return src


def install_dropin(build, cache):
    """meson install into cache/dest; a libvmaf.pc whose prefix is there."""
    dest = os.path.join(cache, 'dest')
    shutil.rmtree(dest, ignore_errors=True)
    run(['meson', 'install', '-C', build, '--destdir', dest, '--no-rebuild'],
        stdout=subprocess.DEVNULL)
    pcs = glob.glob(os.path.join(dest, '**', 'libvmaf.pc'), recursive=True)
    libs = glob.glob(os.path.join(dest, '**', 'libvmaf.so.3'), recursive=True)
    if len(pcs) != 1 or len(libs) != 1:
        raise SystemExit(f'{build}: no single libvmaf.pc and libvmaf.so.3 installed '
                         f'({pcs}, {libs}); is -Dlibvmaf_compat disabled?')
    pcdir = os.path.join(cache, 'pkgconfig')
    os.makedirs(pcdir, exist_ok=True)
    with open(pcs[0]) as f:
        text = f.read()
    prefix = re.search(r'^prefix=(.*)$', text, re.M).group(1)
    with open(os.path.join(pcdir, 'libvmaf.pc'), 'w') as f:
        f.write(re.sub(r'^prefix=.*$', 'prefix=' + dest + prefix, text, flags=re.M))
    return pcdir, os.path.dirname(libs[0])


def build_ffmpeg(src, cache, pcdir, jobs):
    """Configures and builds FFmpeg in cache/build, unless the build there has
    the same source and configuration (the stamp)."""
    bdir = os.path.join(cache, 'build')
    exe = os.path.join(bdir, 'ffmpeg')
    stamp_text = '\n'.join([src, pcdir] + CONFIGURE)
    stamp = os.path.join(bdir, '.tvmaf-stamp')
    if os.path.exists(exe) and os.path.exists(stamp) and open(stamp).read() == stamp_text:
        say('FFmpeg: the cached build')
        return exe
    shutil.rmtree(bdir, ignore_errors=True)
    os.makedirs(bdir)
    env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
    say('FFmpeg: configure')
    p = subprocess.run([os.path.join(src, 'configure'), '--prefix=' + os.path.join(cache, 'prefix')]
                       + CONFIGURE, cwd=bdir, env=env, capture_output=True, text=True)
    if p.returncode:
        print(p.stdout[-3000:], p.stderr[-3000:])
        log = os.path.join(bdir, 'ffbuild', 'config.log')
        if os.path.exists(log):
            print(open(log).read()[-3000:])
        raise SystemExit('FFmpeg configure failed')
    say(f'FFmpeg: make -j{jobs}')
    t = time.monotonic()
    p = subprocess.run(['make', f'-j{jobs}', 'ffmpeg', 'ffprobe'], cwd=bdir, capture_output=True,
                       text=True)
    if p.returncode:
        print(p.stdout[-3000:], p.stderr[-3000:])
        raise SystemExit('FFmpeg build failed')
    say(f'FFmpeg: built in {time.monotonic() - t:.0f} s')
    with open(stamp, 'w') as f:
        f.write(stamp_text)
    return exe


# ------------------------------------------------------------------ comparing

def leading_zeros(x):
    """libvmaf's count of zeros after the point before the first digit."""
    x = abs(x)
    frac = x - int(x)
    n = 0
    while frac < 1.0 and frac != 0:
        frac *= 10
        n += 1
    return n


def printed(v):
    """A double as libvmaf's JSON prints it."""
    if v is None or v != v or v in (float('inf'), float('-inf')):
        return 'null'
    return ('%.6f' if leading_zeros(v) <= 6 else '%.16f') % v


def load_text_numbers(path):
    """A JSON log with every number kept as its text."""
    with open(path) as f:
        return json.load(f, parse_float=str, parse_int=str)


def as_text(v):
    return 'null' if v is None else v


def compare_logs(ours, cli, label, res):
    """Every value of the CLI's log in FFmpeg's, the same text; the same keys."""
    bad, n = [], 0
    if len(ours['frames']) != len(cli['frames']):
        res.check(False, f'{label}: frames', f"{len(ours['frames'])} != {len(cli['frames'])}")
        return 0
    for fo, fc in zip(ours['frames'], cli['frames']):
        if list(fo['metrics']) != list(fc['metrics']):
            bad.append(f"frame {fc['frameNum']} keys {list(fo['metrics'])} != {list(fc['metrics'])}")
            continue
        for k, v in fc['metrics'].items():
            n += 1
            if as_text(fo['metrics'][k]) != as_text(v):
                bad.append(f"frame {fc['frameNum']} {k} {fo['metrics'][k]} != {v}")
    if list(ours['pooled_metrics']) != list(cli['pooled_metrics']):
        bad.append(f"pooled keys {list(ours['pooled_metrics'])} != {list(cli['pooled_metrics'])}")
    else:
        for k, pm in cli['pooled_metrics'].items():
            for m, v in pm.items():
                n += 1
                if as_text(ours['pooled_metrics'][k].get(m)) != as_text(v):
                    bad.append(f'pooled {k}.{m} {ours["pooled_metrics"][k].get(m)} != {v}')
    for k, v in cli.get('aggregate_metrics', {}).items():
        n += 1
        if as_text(ours.get('aggregate_metrics', {}).get(k)) != as_text(v):
            bad.append(f'aggregate {k}')
    res.check(not bad, f'{label}: {n} values equal to the CLI\'s', '; '.join(bad[:4]))
    return n - min(len(bad), n)


def compare_golden(ours, gold, label, res):
    """Every value a golden has for a key of FFmpeg's log, printed as libvmaf
    prints it, equal to the log's text. Returns the values found equal and
    whether the golden had every value of the log."""
    bad, n = [], 0
    total = sum(len(f['metrics']) for f in ours['frames']) + \
        sum(len(p) for p in ours['pooled_metrics'].values()) + len(ours.get('aggregate_metrics', {}))
    gf = {f['frameNum']: f['metrics'] for f in gold['frames']}
    for fo in ours['frames']:
        g = gf.get(int(fo['frameNum']), {})
        for k, v in fo['metrics'].items():
            if k in g:
                n += 1
                if printed(g[k]) != as_text(v):
                    bad.append(f"frame {fo['frameNum']} {k} {v} != {printed(g[k])}")
    for k, pm in ours['pooled_metrics'].items():
        if k in gold.get('pooled_metrics', {}):
            for m, v in pm.items():
                n += 1
                if printed(gold['pooled_metrics'][k][m]) != as_text(v):
                    bad.append(f'pooled {k}.{m} {v} != {printed(gold["pooled_metrics"][k][m])}')
    if n:
        res.check(not bad, f'{label}: {n} values equal to the goldens', '; '.join(bad[:4]))
    return n - min(len(bad), n), n == total and len(ours['frames']) == len(gold['frames'])


def goldens_of(shared, name, model_run):
    """The golden values of a pair (features and models files, the v1.0.16
    table), keyed as the logs key them."""
    frames, pooled = {}, {}
    gdir = os.path.join(shared, 'testdata', 'goldens')
    for kind in ('features', 'models'):
        path = os.path.join(gdir, f'{name}.{kind}.json')
        if not os.path.exists(path):
            continue
        with open(path) as f:
            g = json.load(f)
        for fr in g['frames']:
            frames.setdefault(fr['frameNum'], {}).update(fr['metrics'])
        pooled.update(g['pooled_metrics'])
    if model_run == 'vmaf_v1.0.16_3d0h':
        # vmaf of this run is the v1.0.16 model's, not vmaf_v0.6.1's
        for fr in frames.values():
            fr.pop('vmaf', None)
        pooled.pop('vmaf', None)
        with open(os.path.join(ROOT, 'tests', 'data', 'vmaf_v1.0.16_scores.tsv')) as f:
            for line in f:
                c = line.rstrip('\n').split('\t')
                if len(c) == 4 and c[0] == name and c[1] == model_run:
                    frames.setdefault(int(c[2]), {})['vmaf'] = float(c[3])
    return {'frames': [{'frameNum': i, 'metrics': m} for i, m in sorted(frames.items())],
            'pooled_metrics': pooled}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--shared', default=os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared')))
    ap.add_argument('--cache', default=os.environ.get('TVMAF_FFMPEG_CACHE',
                                                      os.path.join(ROOT, '.cache', 'ffmpeg-compat')))
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    build, shared, cache = (os.path.abspath(p) for p in (a.build, a.shared, a.cache))
    tvmaf = os.path.join(build, 'tools', 'tvmaf')
    os.makedirs(cache, exist_ok=True)
    res = Result()

    ensure_packages()
    src = ensure_source(cache)
    pcdir, libdir = install_dropin(build, cache)
    ffmpeg = build_ffmpeg(src, cache, pcdir, a.jobs)
    env = dict(os.environ, LD_LIBRARY_PATH=libdir + (':' + os.environ['LD_LIBRARY_PATH']
                                                       if os.environ.get('LD_LIBRARY_PATH') else ''))
    ldd = subprocess.run(['ldd', ffmpeg], capture_output=True, text=True, env=env).stdout
    res.check(os.path.join(libdir, 'libvmaf.so.3') in ldd,
              f'ffmpeg loads libvmaf.so.3 from {libdir} through LD_LIBRARY_PATH',
              ' '.join(l.strip() for l in ldd.splitlines() if 'vmaf' in l))

    pairs = sorted(os.path.basename(p)[:-len('.ref.mkv')]
                   for p in glob.glob(os.path.join(shared, 'testdata', 'streams', '*.ref.mkv')))
    n_cli = n_gold = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in pairs:
            ref = os.path.join(shared, 'testdata', 'streams', name + '.ref.mkv')
            dis = os.path.join(shared, 'testdata', 'streams', name + '.dis.mkv')
            for label, opts, cli_args, keys in RUNS:
                what = f'{name} [{label}]'
                log = os.path.join(tmp, f'{name}.ffmpeg.json')
                cli_log = os.path.join(tmp, f'{name}.cli.json')
                for p in (log, cli_log):
                    if os.path.exists(p):
                        os.unlink(p)
                fp = subprocess.run([ffmpeg, '-nostdin', '-hide_banner', '-i', dis, '-i', ref,
                                     '-lavfi', f'libvmaf=log_fmt=json:log_path={log}:{opts}',
                                     '-f', 'null', '-'], capture_output=True, text=True, env=env)
                ok = fp.returncode == 0 and os.path.exists(log)
                ours = load_text_numbers(log) if ok else None
                model = re.search(r'version=([\w.]+)', opts)
                gold = goldens_of(shared, name, model.group(1) if model else 'vmaf_v0.6.1')
                covered = False
                if ok:
                    missing = [k for k in keys if any(k not in f['metrics'] for f in ours['frames'])]
                    res.check(ours['frames'] and not missing,
                              f"{what}: {len(ours['frames'])} frames, each with {', '.join(keys)}",
                              f'missing {missing}')
                    n, covered = compare_golden(ours, gold, what, res)
                    n_gold += n
                # the CLI's run where a golden does not have every value (or FFmpeg failed)
                cli = None
                if not covered:
                    cp = subprocess.run([tvmaf, '-r', ref, '-d', dis, '-q', '--json', '-o', cli_log]
                                        + cli_args, capture_output=True, text=True)
                    if cp.returncode:
                        # the CLI refuses the pair: FFmpeg fails the same way, without a log
                        last = cp.stderr.strip().splitlines()[-1] if cp.stderr.strip() else ''
                        res.check(not ok, f'{what}: refused as the CLI refuses it ({last[:100]})',
                                  f'ffmpeg exit {fp.returncode}, log written: {os.path.exists(log)}')
                        continue
                    cli = load_text_numbers(cli_log)
                if not ok:
                    res.check(False, what, f'ffmpeg exit {fp.returncode}: {fp.stderr[-800:]}')
                    continue
                if cli:
                    n_cli += compare_logs(ours, cli, what, res)
                # the pooled score FFmpeg prints for its model
                said = re.findall(r'VMAF score: (\S+)', fp.stderr)
                key = 'vmaf_neg' if 'name=vmaf_neg' in opts else 'vmaf'
                want = cli['pooled_metrics'][key]['mean'] if cli else \
                    printed(gold['pooled_metrics'][key]['mean'])
                res.check(said == [want], f'{what}: "VMAF score: {said[0] if said else "?"}" is the '
                          f"{'CLI' if cli else 'golden'}'s mean", f'{said} != {want}')
        # the other log formats, line for line (fps and version aside)
        ref = os.path.join(shared, 'testdata', 'streams', 'cups_576x324.ref.mkv')
        dis = os.path.join(shared, 'testdata', 'streams', 'cups_576x324.dis.mkv')
        for fmt in ('xml', 'csv', 'sub'):
            log, cli_log = os.path.join(tmp, 'ffmpeg.' + fmt), os.path.join(tmp, 'cli.' + fmt)
            fp = subprocess.run([ffmpeg, '-nostdin', '-hide_banner', '-i', dis, '-i', ref, '-lavfi',
                                 f'libvmaf=log_fmt={fmt}:log_path={log}:feature=name=psnr',
                                 '-f', 'null', '-'], capture_output=True, text=True, env=env)
            subprocess.run([tvmaf, '-r', ref, '-d', dis, '-q', '--feature', 'psnr', '--' + fmt,
                            '-o', cli_log], check=True, capture_output=True)
            if fp.returncode:
                res.check(False, f'log_fmt={fmt}', fp.stderr[-800:])
                continue
            volatile = re.compile(r'^\s*(<VMAF version=|<fyi fps=)')
            texts = []
            for path in (log, cli_log):
                with open(path) as f:
                    texts.append([l for l in f.read().splitlines() if not volatile.match(l)])
            res.check(texts[0] == texts[1] and len(texts[0]) >= 48,
                      f"cups_576x324 log_fmt={fmt}: {len(texts[0])} lines equal to the CLI's "
                      f"(fps, version aside)",
                      next((f'{x!r} != {y!r}' for x, y in zip(*texts) if x != y), 'lengths'))
        say(f'libvmaf filter: {n_cli} values compared with the CLI, {n_gold} with the goldens')

        # ffmpeg-quality-metrics with this FFmpeg
        venv = os.path.join(cache, 'venv')
        fqm = os.path.join(venv, 'bin', 'ffmpeg-quality-metrics')
        if not os.path.exists(fqm):
            say(f'pip install ffmpeg-quality-metrics=={FQM_VERSION} (virtual environment in the cache)')
            run([sys.executable, '-m', 'venv', venv])
            run([os.path.join(venv, 'bin', 'pip'), 'install', '-q',
                 f'ffmpeg-quality-metrics=={FQM_VERSION}'], stdout=subprocess.DEVNULL)
        for name in ('cups_576x324', 'cups_576x324_10b'):
            ref = os.path.join(shared, 'testdata', 'streams', name + '.ref.mkv')
            dis = os.path.join(shared, 'testdata', 'streams', name + '.dis.mkv')
            out = os.path.join(tmp, f'{name}.fqm.json')
            fp = subprocess.run([fqm, dis, ref, '-m', 'vmaf', '--ffmpeg-path', ffmpeg, '-o', out,
                                 '--no-summary'], capture_output=True, text=True, env=env)
            cli_log = os.path.join(tmp, f'{name}.cli.json')
            subprocess.run([tvmaf, '-r', ref, '-d', dis, '-q', '--json', '-o', cli_log,
                            '--precision', 'max'], check=True, capture_output=True)
            what = f'ffmpeg-quality-metrics -m vmaf {name}'
            if fp.returncode:
                res.check(False, what, fp.stderr[-1500:])
                continue
            with open(out) as f:
                got = json.load(f)
            with open(cli_log) as f:
                cli = json.load(f)
            per_frame = [fr['vmaf'] for fr in got['vmaf']]
            want = [float(printed(fr['metrics']['vmaf'])) for fr in cli['frames']]
            res.check(per_frame == want, f"{what}: {len(per_frame)} per-frame VMAF equal to the CLI's",
                      f'{per_frame[:3]} != {want[:3]}')
            mean = got['global']['vmaf']['vmaf']['average']
            res.check(abs(mean - cli['pooled_metrics']['vmaf']['mean']) < 5e-4,
                      f"{what}: average {mean} is the CLI's mean "
                      f"{cli['pooled_metrics']['vmaf']['mean']:.6f} (to its 3 decimals)",
                      f"{mean} vs {cli['pooled_metrics']['vmaf']['mean']}")
    say('done')
    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
