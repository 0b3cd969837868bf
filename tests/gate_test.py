#!/usr/bin/env python3
"""CI entry of the cross-backend gate: scripts/gate --quick, the clips up to 576x324, every
column (the CPU's: threads and the SIMD levels of --quick; the GPU's where a GPU is usable).

Usage: tests/gate_test.py [TVMAF_EXE]   (default: $TVMAF_EXE, else the gate's default)
Prints the gate's matrix and exits with the gate's status.
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
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
