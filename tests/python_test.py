"""Runs the Python package's pytest suite (python/tests) against this build:
libtvmaf (TVMAF_LIBRARY) and the CLI (TVMAF_EXE) the tests compare with.

usage: python_test.py LIBTVMAF TVMAF_EXE [--cuda]

Without --cuda: every test but the CUDA ones. With --cuda: the CUDA
comparison only; exits 77 (skip) when no CUDA device is usable. Exits 77
too when no Python with numpy and pytest is found (scripts/bootstrap
installs Debian's python3-numpy and python3-pytest as root).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def interpreter():
    """This Python, or Debian's, whichever has numpy and pytest."""
    for py in (sys.executable, '/usr/bin/python3'):
        if os.path.exists(py) and subprocess.run(
                [py, '-c', 'import numpy, pytest'], capture_output=True).returncode == 0:
            return py
    return None


def main():
    lib, exe = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cuda = '--cuda' in sys.argv[3:]
    py = interpreter()
    if not py:
        print('SKIP: no Python with numpy and pytest (scripts/bootstrap installs them as root)')
        return 77
    env = dict(os.environ, TVMAF_LIBRARY=lib, TVMAF_EXE=exe,
               PYTHONPATH=os.path.join(ROOT, 'python'), PYTHONDONTWRITEBYTECODE='1')
    # the models of the shared data, as the golden tests find them
    shared = os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared'))
    env['TVMAF_MODEL_PATH'] = os.path.join(os.path.abspath(shared), 'models')
    # the encoded public streams the encoded-input tests read
    env['TVMAF_STREAMS'] = os.path.join(os.path.abspath(shared), 'testdata', 'streams')
    tests = os.path.join(ROOT, 'python', 'tests')
    if cuda:
        probe = subprocess.run([py, '-c', 'import tvmaf, sys; sys.exit(0 if tvmaf.cuda_available() else 3)'],
                               env=env, capture_output=True, text=True)
        if probe.returncode == 3:
            print('SKIP: no usable CUDA device')
            return 77
        if probe.returncode:
            print(probe.stderr)
            return 1
        args = [os.path.join(tests, 'test_cuda.py')]
    else:
        args = [tests, '--ignore', os.path.join(tests, 'test_cuda.py')]
    p = subprocess.run([py, '-m', 'pytest', '-v', '-p', 'no:cacheprovider', '-rs'] + args,
                       env=env, cwd=ROOT)
    return p.returncode


if __name__ == '__main__':
    sys.exit(main())
