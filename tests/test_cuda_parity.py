#!/usr/bin/env python3
"""CPU vs CUDA: the gate's cuda columns on every clip (exits 77 without a GPU).

Runs scripts/gate --columns 'cuda*' --skip-without cuda: every feature with a CUDA twin and every
model (vmaf_v0.6.1, vmaf_neg, vmaf_4k, vmaf_b with its bootstrap keys, vmaf_float; the twins
scoring their features) on every clip of clips.tsv (the clips up to 576x324 under
TVMAF_TEST_QUICK=1), per frame, pooled and aggregate, against the CPU reference (1 thread), in
four columns: cuda (default frames in flight), cuda-pinned (--pinned-pictures: pictures in
page-locked memory), cuda-1t (--threads 1) and cuda-7t (--threads 7). Every value must be
identical as a double except ciede2000, whose math-library residual is bounded by the gate's
LIBM table (tests/golden_common.py, ciede_device_bound, with its derivation). The gate exits 77
when tvmaf says there is no usable CUDA device (or no feature lists cuda); any other failure of
its probe fails.

usage: test_cuda_parity.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GATE = os.path.join(ROOT, "scripts", "gate")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvmaf")
    ap.add_argument("--clips", default=os.environ.get("TVMAF_CLIPS", os.path.join(ROOT, ".cache", "clips")))
    ap.add_argument("--shared", default=os.environ.get("TVMAF_SHARED", os.path.join(ROOT, "..", "shared")))
    a = ap.parse_args()
    cmd = [sys.executable, GATE, "--tvmaf", a.tvmaf, "--clips", a.clips, "--shared", a.shared,
           "--columns", "cuda*", "--skip-without", "cuda"]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
