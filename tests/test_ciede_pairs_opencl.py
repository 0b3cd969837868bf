#!/usr/bin/env python3
"""The colour pairs the fp32 pairs get wrong, through the OpenCL ciede twin (exits 77 without an
OpenCL device).

tests/data/ciede_pairs.tsv lists colour pairs (bit depth, reference Y U V, distorted Y U V) on
which the fp64-free evaluation (src/feature/ciede/ciede_pair.h) computes a float that is not the
CPU's: the full sweep of ciede_pair_replay (TVMAF_CIEDE_SWEEP) found them. The device must leave
each of them undecided, and the host must compute it with the CPU's code. For each bit depth the
test writes a 4:4:4 clip with one 16x16 frame per pair, every pixel that pair, and scores it with
--backend cpu and with --backend opencl under --opencl-fp64 off and on (ciede has one program,
fp64-free, for both; on is skipped where the device has no fp64). Every frame's ciede2000 must be
the CPU's as a double, and --gpu-stats must count every pixel as decided on the host. A frame of
one repeated pixel makes a one-step difference of that pixel's float visible in the score.

usage: test_ciede_pairs_opencl.py TVMAF_EXE TABLE
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

SIDE = 16


def read_table(path):
    pairs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            v = line.split()
            if len(v) != 7:
                raise SystemExit("%s:%d: want 7 fields, got %r" % (path, n, line))
            bpc = int(v[0])
            samples = [int(float(x)) for x in v[1:]]
            if bpc not in (8, 10, 12, 16) or not all(0 <= s < (1 << bpc) for s in samples):
                raise SystemExit("%s:%d: bad pair %r" % (path, n, line))
            pairs.setdefault(bpc, []).append(samples)
    return pairs


def write_clip(path, colours, bpc):
    """One SIDE x SIDE 4:4:4 frame per colour (Y, U, V), every sample the colour's."""
    fmt = "<%dH" % (SIDE * SIDE) if bpc > 8 else "%dB" % (SIDE * SIDE)
    with open(path, "wb") as f:
        for c in colours:
            for s in c:
                f.write(struct.pack(fmt, *([s] * (SIDE * SIDE))))


def score(tvmaf, ref, dis, bpc, extra, out):
    cmd = [tvmaf, "-r", ref, "-d", dis, "-w", str(SIDE), "-h", str(SIDE), "-p", "444", "-b",
           str(bpc), "-n", "--feature", "ciede", "--json", "--precision", "max", "-q",
           "-o", out] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode()
    if p.returncode:
        return None, err
    with open(out) as f:
        doc = json.load(f)
    return [fr["metrics"]["ciede2000"] for fr in doc["frames"]], err


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    tvmaf, table = sys.argv[1:]
    pairs = read_table(table)
    if not pairs:
        raise SystemExit("%s holds no pair" % table)
    bad = 0
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for bpc, rows in sorted(pairs.items()):
            ref, dis, out = (os.path.join(tmp, "%d.%s" % (bpc, k)) for k in ("ref", "dis", "json"))
            write_clip(ref, [r[:3] for r in rows], bpc)
            write_clip(dis, [r[3:] for r in rows], bpc)
            cpu, err = score(tvmaf, ref, dis, bpc, ["--backend", "cpu"], out)
            if cpu is None:
                print("FAIL: %d bits on the CPU: %s" % (bpc, err.strip()))
                return 1
            for mode in ("off", "on"):
                got, err = score(tvmaf, ref, dis, bpc, ["--backend", "opencl", "--opencl-fp64",
                                                        mode, "--gpu-stats"], out)
                if got is None and "no usable OpenCL device" in err:
                    print("no OpenCL device: %s" % err.strip())
                    return 77
                if got is None and mode == "on" and "fp64" in err:
                    print("%d bits, --opencl-fp64 on: the device has no fp64, skipped" % bpc)
                    continue
                if got is None:
                    print("FAIL: %d bits, --opencl-fp64 %s: %s" % (bpc, mode, err.strip()))
                    bad += 1
                    continue
                m = re.search(r"computed on the host: (\d+) of (\d+)", err)
                decided = (int(m.group(1)), int(m.group(2))) if m else None
                want = (len(rows) * SIDE * SIDE,) * 2
                differ = [i for i, (a, b) in enumerate(zip(cpu, got))
                          if struct.pack("<d", a) != struct.pack("<d", b)]
                compared += len(got)
                if len(got) != len(cpu) or differ or decided != want:
                    bad += 1
                    print("FAIL: %d bits, --opencl-fp64 %s: %d of %d frames differ from the "
                          "CPU (first: pair %s), host-decided pixels %s (want %s)" % (
                              bpc, mode, len(differ), len(cpu),
                              rows[differ[0]] if differ else "-", decided, want))
                else:
                    print("%d bits, --opencl-fp64 %s: %d pairs, every frame the CPU's, every "
                          "pixel decided on the host" % (bpc, mode, len(rows)))
    print("ciede pairs on OpenCL: %d frames compared, %s" % (compared, "FAIL" if bad else "PASS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
