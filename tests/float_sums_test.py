#!/usr/bin/env python3
"""float_psnr and float_moment where their exact integer totals saturate.

Usage: tests/float_sums_test.py TVMAF_EXE

Both extractors add float terms into doubles in raster order. The CPU (and every device) sums
those terms as whole units of 2^-q in integers, which gives the same doubles while the total
stays below 2^53 units, and falls back to the raster-order double loop where it does not
(common/float_picture.h). The goldens never reach 2^53; these frames do: one 2048x1025 frame,
the reference's luma at 65535 and the distorted's at 0, read as 16-bit and as 12-bit (samples
above the declared depth). Each expected value is the raster-order double sum formed here: every
term is the same float, and every partial sum is a multiple of 2^-8 below 2^46, so
n * term is that sum exactly. Values are compared as bits (--precision max prints %.17g).
Standard library only.
"""

import csv
import math
import os
import struct
import subprocess
import sys
import tempfile

W, H = 2048, 1025  # w * h * 65534 * 2^16 > 2^53: the 16-bit squares' units saturate


def f32(x):
    """x rounded to float, as C's float arithmetic rounds each result."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected(bpc):
    n = W * H
    divisor = float(1 << (bpc - 8))
    v = f32(65535 / divisor)  # the reference's samples on the 8-bit scale
    sq = f32(v * v)           # its float square, also the psnr's squared difference
    peak = ((1 << bpc) - 1) / divisor
    noise_mean = (n * sq) / n
    psnr = min(10 * math.log10(peak * peak / max(noise_mean, 1e-10)), 6 * bpc + 12)
    return {
        "float_psnr": psnr,
        "float_moment_ref1st": (n * v) / n,
        "float_moment_dis1st": 0.0,
        "float_moment_ref2nd": (n * sq) / n,
        "float_moment_dis2nd": 0.0,
    }


def frame(value):
    cw, ch = (W + 1) // 2, (H + 1) // 2
    return struct.pack("<H", value) * (W * H) + struct.pack("<H", 32768) * (2 * cw * ch)


def main():
    exe = sys.argv[1]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        ref, dis = os.path.join(tmp, "ref.yuv"), os.path.join(tmp, "dis.yuv")
        with open(ref, "wb") as f:
            f.write(frame(65535))
        with open(dis, "wb") as f:
            f.write(frame(0))
        for bpc in (16, 12):
            out = os.path.join(tmp, "out%d.csv" % bpc)
            cmd = [exe, "--backend", "cpu", "-r", ref, "-d", dis, "-w", str(W), "-h", str(H),
                   "-p", "420", "-b", str(bpc), "-q", "-n", "--feature", "float_psnr",
                   "--feature", "float_moment", "--precision", "max", "--csv", "-o", out]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                print("FAIL %d-bit: exit %d: %s" % (bpc, r.returncode, r.stderr.strip()))
                failed += 1
                continue
            with open(out, newline="") as f:
                row = next(csv.DictReader(f))
            for key, want in expected(bpc).items():
                got = float(row[key])
                if struct.pack("<d", got) != struct.pack("<d", want):
                    print("FAIL %d-bit %s: %r, expected %r" % (bpc, key, got, want))
                    failed += 1
                else:
                    print("ok   %d-bit %s = %r" % (bpc, key, got))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
