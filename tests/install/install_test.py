#!/usr/bin/env python3
"""`meson install` into a temporary directory, then use what it installed.

1. The layout: PREFIX/bin/tvmaf, PREFIX/include/tvmaf/tvmaf.h, the shared library
   with a versioned soname (libtvmaf.so.MAJOR, readelf), PREFIX/LIBDIR/pkgconfig/tvmaf.pc;
   no libcuda.so* anywhere (the tests' CUDA driver stand-in stays in the build tree).
2. consumer.c (public API only) compiles and links against the installed
   library through `pkg-config --cflags --libs tvmaf` and runs on it.
3. Without TVMAF_MODEL_PATH, the consumer (tvmaf_model_load by version) and the
   installed CLI (`-m version=vmaf_4k_v0.6.1`) score the first frames of
   cups_576x324 as the golden's vmaf_4k, bit for bit.

usage: install_test.py BUILD_DIR PREFIX LIBDIR CC [SANITIZE] [--clips DIR] [--shared DIR]
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from golden_common import Result, bits  # noqa: E402

# frames compared; one more is scored (a frame's motion2 reads the next frame)
FRAMES = 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('prefix')
    ap.add_argument('libdir')
    ap.add_argument('cc')
    ap.add_argument('sanitize', nargs='?', default='none')
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS', os.path.join(ROOT, '.cache', 'clips')))
    ap.add_argument('--shared', default=os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared')))
    a = ap.parse_args()
    res = Result()
    env = dict(os.environ)
    env.pop('TVMAF_MODEL_PATH', None)

    with tempfile.TemporaryDirectory() as dest:
        p = subprocess.run(['meson', 'install', '-C', a.build, '--no-rebuild', '--destdir', dest],
                           capture_output=True, text=True)
        res.check(p.returncode == 0, 'meson install --destdir', p.stdout[-2000:] + p.stderr[-2000:])
        if p.returncode:
            print(f'{res.passed} passed, {res.failed} failed')
            return 1
        root = dest + a.prefix
        libdir = a.libdir if os.path.isabs(a.libdir) else os.path.join(a.prefix, a.libdir)
        lib = dest + libdir
        for rel in ['bin/tvmaf', 'include/tvmaf/tvmaf.h']:
            res.check(os.path.isfile(os.path.join(root, rel)), f'installed PREFIX/{rel}')
        # the tests' CUDA driver stand-in (tests/standin/) is never installed: a user's run
        # must find the real driver or none
        standins = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
                    if f.startswith('libcuda.so')]
        res.check(not standins, 'the CUDA driver stand-in is not installed', ' '.join(standins))
        pc = os.path.join(lib, 'pkgconfig', 'tvmaf.pc')
        res.check(os.path.isfile(pc), 'installed LIBDIR/pkgconfig/tvmaf.pc')
        so = os.path.join(lib, 'libtvmaf.so')
        soname = None
        if os.path.exists(so):
            out = subprocess.run(['readelf', '-d', so], capture_output=True, text=True).stdout
            for line in out.splitlines():
                if '(SONAME)' in line:
                    soname = line.split('[', 1)[1].split(']', 1)[0]
        res.check(bool(soname) and soname.startswith('libtvmaf.so.') and
                  os.path.exists(os.path.join(lib, soname)),
                  f'the shared library has a versioned soname ({soname}) installed beside it')

        # a program against the installed library, through pkg-config
        penv = dict(env, PKG_CONFIG_PATH=os.path.join(lib, 'pkgconfig'), PKG_CONFIG_SYSROOT_DIR=dest)
        p = subprocess.run(['pkg-config', '--cflags', '--libs', 'tvmaf'], capture_output=True,
                           text=True, env=penv)
        res.check(p.returncode == 0 and '-ltvmaf' in p.stdout, 'pkg-config --cflags --libs tvmaf',
                  p.stdout + p.stderr)
        flags = shlex.split(p.stdout)
        exe = os.path.join(dest, 'consumer')
        san = [] if a.sanitize in ('', 'none') else [f'-fsanitize={a.sanitize}']
        cmd = shlex.split(a.cc) + ['-std=c11', '-Wall', '-Werror', os.path.join(HERE, 'consumer.c'),
                                   '-o', exe] + san + flags
        p = subprocess.run(cmd, capture_output=True, text=True)
        res.check(p.returncode == 0, 'consumer.c builds against the installed library',
                  ' '.join(cmd) + '\n' + p.stderr)
        if p.returncode:
            print(f'{res.passed} passed, {res.failed} failed')
            return 1
        renv = dict(env, LD_LIBRARY_PATH=lib)
        ldd = subprocess.run(['ldd', exe], capture_output=True, text=True, env=renv).stdout
        res.check(f'{lib}/libtvmaf.so.' in ldd, 'the consumer loads the installed libtvmaf.so', ldd)

        subprocess.run(['bash', os.path.join(a.shared, 'testdata', 'make_clips.sh'), a.clips], check=True)
        ref = os.path.join(a.clips, 'cups_576x324.ref.yuv')
        dis = os.path.join(a.clips, 'cups_576x324.dis.yuv')
        with open(os.path.join(a.shared, 'testdata', 'goldens', 'cups_576x324.models.json')) as f:
            golden = [fr['metrics']['vmaf_4k'] for fr in json.load(f)['frames'][:FRAMES]]

        p = subprocess.run([exe, ref, dis, '576', '324', str(FRAMES + 1), 'vmaf_4k_v0.6.1'],
                           capture_output=True, text=True, env=renv)
        lines = p.stdout.split('\n')
        got = [float(x) for x in lines[:FRAMES]] if p.returncode == 0 else []
        res.check(p.returncode == 0 and [bits(x) for x in got] == [bits(x) for x in golden],
                  'the consumer, TVMAF_MODEL_PATH unset: built-in vmaf_4k_v0.6.1 equals the golden',
                  f'{p.stdout}{p.stderr} expected {golden}')

        out = os.path.join(dest, 'out.json')
        p = subprocess.run([os.path.join(root, 'bin', 'tvmaf'), '-r', ref, '-d', dis, '-w', '576', '-h', '324',
                            '-p', '420', '-b', '8', '-q', '--frame_cnt', str(FRAMES + 1), '--json', '-o', out,
                            '--precision', 'max', '-m', 'version=vmaf_4k_v0.6.1'],
                           capture_output=True, text=True, env=renv)
        got = []
        if p.returncode == 0:
            with open(out) as f:
                got = [fr['metrics']['vmaf'] for fr in json.load(f)['frames'][:FRAMES]]
        res.check(p.returncode == 0 and [bits(x) for x in got] == [bits(x) for x in golden],
                  'the installed tvmaf, TVMAF_MODEL_PATH unset: -m version=vmaf_4k_v0.6.1 equals the golden',
                  f'{p.stderr} got {got} expected {golden}')

    print(f'{res.passed} passed, {res.failed} failed')
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
