#!/usr/bin/env python3
"""Count the lines of twin code: what exists only because features have GPU twins.

Twin code is
  - every file under src/gpu/;
  - every file under src/feature/ that a CPU-only build (-Dcuda=disabled -Dopencl=disabled)
    neither compiles nor includes (found from that build's compile commands with the
    compiler's -M, so nothing is guessed from names);
  - the twins' host tests: tests/replay/, tests/replay_common.h, tests/twin_host.h,
    tests/test_twin_faults.c;
  - twin code kept elsewhere: the kernel generators (scripts/cuda_kernels.py,
    scripts/opencl_kernels.py) and any other file under src/ that only twin builds reach
    (listed with --other).
A line counts when it is neither blank nor comment only (C: // and /* */; Python and meson: #).

usage: scripts/twin_lines.py [--build DIR] [--other FILE ...] [--files]
DIR is a CPU-only build directory (configured here when missing).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_lines_c(text):
    n = 0
    in_block = False
    for line in text.splitlines():
        out = []
        i = 0
        in_str = None
        while i < len(line):
            c = line[i]
            if in_block:
                if line.startswith('*/', i):
                    in_block = False
                    i += 2
                else:
                    i += 1
                continue
            if in_str:
                out.append(c)
                if c == '\\':
                    i += 2
                    continue
                if c == in_str:
                    in_str = None
                i += 1
                continue
            if line.startswith('//', i):
                break
            if line.startswith('/*', i):
                in_block = True
                i += 2
                continue
            if c in '"\'':
                in_str = c
            out.append(c)
            i += 1
        if ''.join(out).strip():
            n += 1
    return n


def code_lines_hash(text):
    return sum(1 for l in text.splitlines() if l.strip() and not l.strip().startswith('#'))


def count(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if path.endswith(('.py', 'meson.build')):
        return code_lines_hash(text)
    return code_lines_c(text)


def cpu_only_reached(build):
    """Every source and header a CPU-only build compiles or includes (absolute paths)."""
    if not os.path.exists(os.path.join(build, 'compile_commands.json')):
        subprocess.run(['meson', 'setup', build, '-Dcuda=disabled', '-Dopencl=disabled'],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    # generated headers (tvmaf_builtins.h, embedded models) must exist for -M to follow them
    subprocess.run(['ninja', '-C', build], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(build, 'compile_commands.json')) as f:
        cmds = json.load(f)
    reached = set()
    for c in cmds:
        argv = shlex.split(c['command'])
        keep = []
        skip = 0
        for a in argv:
            if skip:
                skip -= 1
                continue
            if a in ('-o', '-MQ', '-MF'):
                skip = 1
                continue
            if a in ('-MD', '-c'):
                continue
            keep.append(a)
        out = subprocess.run(keep + ['-M', '-MG'], cwd=c['directory'], check=True,
                             capture_output=True, text=True).stdout
        for tok in out.replace('\\\n', ' ').split()[1:]:
            reached.add(os.path.realpath(os.path.join(c['directory'], tok)))
    return reached


def walk(d):
    for dp, dn, fn in os.walk(os.path.join(ROOT, d)):
        dn.sort()
        for f in sorted(fn):
            yield os.path.join(dp, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build-cpuonly'))
    ap.add_argument('--other', nargs='*', default=[],
                    help='more twin-only files, relative to the root')
    ap.add_argument('--files', action='store_true', help='list every file counted')
    a = ap.parse_args()
    reached = cpu_only_reached(os.path.abspath(a.build))

    roles = {}

    def add(role, path):
        roles.setdefault(role, []).append((os.path.relpath(path, ROOT), count(path)))

    for p in walk('src/gpu'):
        sub = os.path.relpath(p, os.path.join(ROOT, 'src/gpu')).split(os.sep)
        add('src/gpu/' + (sub[0] if len(sub) > 1 else '(base)'), p)
    for p in walk('src/feature'):
        if os.path.realpath(p) in reached or p.endswith('meson.build'):
            continue
        base = os.path.basename(p)
        role = ('feature plans' if base.endswith('_plan.c') else
                'feature kernels' if base.endswith('_kernels.h') else 'feature, other')
        add(role, p)
    for p in list(walk('tests/replay')) + [os.path.join(ROOT, 'tests', f) for f in
                                           ('replay_common.h', 'twin_host.h',
                                            'test_twin_faults.c')]:
        add('host tests', p)
    for p in ['scripts/cuda_kernels.py', 'scripts/opencl_kernels.py'] + a.other:
        add('generators and elsewhere', os.path.join(ROOT, p))

    total = 0
    for role in sorted(roles):
        n = sum(c for _, c in roles[role])
        total += n
        print(f'{role:28s} {n:6d}  ({len(roles[role])} files)')
        if a.files:
            for f, c in roles[role]:
                print(f'    {c:6d} {f}')
    print(f'{"total":28s} {total:6d}')


if __name__ == '__main__':
    sys.exit(main())
