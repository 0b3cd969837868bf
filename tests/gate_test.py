#!/usr/bin/env python3
"""CI entry of the cross-backend gate: scripts/gate --quick, the clips up to 576x324, every
column (the CPU's: threads and the SIMD levels of --quick; the GPU's where a GPU is usable).

Usage: tests/gate_test.py [TVMAF_EXE] [GATE ARGUMENTS...]
       (TVMAF_EXE default: $TVMAF_EXE, else the gate's default)
Prints the gate's matrix and exits with the gate's status. The arguments after TVMAF_EXE go to
the gate: where the build has OpenCL, tests/meson.build passes --skip-columns 'opencl*', as the
opencl_parity test runs those columns on the same clips against the same reference (the same
comparison twice was about two thirds of this test's time on PoCL).
"""

import os
import subprocess
import sys

GATE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "gate")


def main():
    cmd = [sys.executable, GATE, "--quick"]
    exe = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TVMAF_EXE")
    if exe:
        cmd += ["--tvmaf", exe]
    cmd += sys.argv[2:]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
