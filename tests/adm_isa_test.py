#!/usr/bin/env python3
"""Width sweep of adm against libvmaf's three ISA builds (issue 19, item 5).

Usage: tests/adm_isa_test.py TVMAF_EXE [--backend cuda]
       tests/adm_isa_test.py --generate LIBVMAF_VMAF_EXE  (rewrites adm_isa_expected.txt)

libvmaf picks its ADM kernels by CPU and its AVX-512, AVX2 and scalar builds give different
scores at some widths (src/feature/adm/adm_math.h, "Which reference build"). tvmaf's adm
reproduces each with reference_isa=avx512|avx2|c (CLI: --reference-isa).

The inputs are synthetic (made here, integer arithmetic only): two frames of a 2048 x H picture
pair, cropped to every width of the sweep, written as raw 4:4:4 (libvmaf's CLI cannot read odd
widths in 4:2:0; adm reads luma only). adm_isa_expected.txt holds, per bit depth, width and ISA,
a hash of libvmaf's printed adm outputs (debug=true: every scale's num and den too) of both frames
and, where the reference gave other outputs with its heap filled differently (MALLOC_PERTURB_=165:
it read memory nothing wrote), also of frame 0 alone.
The check: at a deterministic width, tvmaf's outputs hash to the same value and it prints no note; at a
heap-dependent width, it prints its note on stderr and frame 0 matches (tvmaf reads such memory as 0, as a
fresh libvmaf process does; later frames may read what the previous frame left there).

--generate runs the given libvmaf `vmaf` (built with its asm, on a CPU with AVX-512) with
--cpumask 0 (AVX-512), 48 (AVX2) and 56 (C). Standard library only.

Sampled by default, whole with TVMAF_TEST_FULL=1. The full sweep is every width of the expected
file: option set 0 at 33..2048, set 1 at its 220 widths, 2 depths, 3 ISAs (13416 runs, about
10 minutes on 2 cores; each run is mostly process start-up). By default (and with
TVMAF_TEST_QUICK=1) each option set and depth checks, with all three ISAs, a fixed sample of its
widths (sample_widths):
  - every width up to 84: the heap-dependent widths (33..36, 49..52, 65..68, 81..84), the widths
    where cm is scalar at some scale, the first DWT defect of each ISA and scale;
  - the first and the last width of every width class (width_class: at which scales each vector
    build has the DWT defect, and at which scales cm has vector lanes), so the defect of each
    ISA at each scale and depth is checked at its smallest and its largest width;
  - every 61st (set 0) or 13th (set 1) width of the rest: primes, so the lane leftovers
    (blocks of 16, 14, 8, 6, 4, 2) go through their residues up to 2048.
check() fails when the sample misses a width class or a pattern of the expected file (which ISAs
agree, which are heap-dependent), so it stays complete when the constants change. Every run is
still compared exactly (the hash of every printed output).
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

BASE_W, H, FRAMES = 2048, 40, 2
W_MIN = 33
DEPTHS = (8, 10)
ISAS = (("avx512", "0"), ("avx2", "48"), ("c", "56"))
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "adm_isa_expected.txt")
NOTE = "tvmaf NOTE adm:"


# Option sets: 0, default options on natural-ish content, every width; 1, Barten's CSF with
# scaled weights and a gain limit on full-swing lines (where the builds' vector forms differ,
# adm_math.h V0..V5), a sample of widths. Lines of set 1 start with "o1".
SETS = ((0, "adm=debug=true", "texture"),
        (1, "adm=debug=true:adm_csf_mode=1:adm_enhn_gain_limit=1.2:adm_csf_scale=3:"
            "adm_csf_diag_scale=0.25", "lines"))


def widths(opt_set=0):
    """Every width of an option set (what --generate writes, what TVMAF_TEST_FULL=1 checks)."""
    ws = range(W_MIN, BASE_W + 1)
    if opt_set:
        return [w for w in ws if w <= 140 or w % 17 == 0]
    return list(ws)


# The default sample (module docstring): every width up to SAMPLE_ALL_UP_TO, the first and last
# width of each width class, and every SAMPLE_STRIDE[opt_set]-th width of the rest.
SAMPLE_ALL_UP_TO = 84
SAMPLE_STRIDE = (61, 13)
# outputs per vector block of the DWT's horizontal pass (adm_math.h, adm_dwt_block; 0: no
# vector blocks), per vector build, scale and depth
DWT_BLOCK = {"avx512": lambda k, bits: 8 if k else (32 if bits == 8 else 64),
             "avx2": lambda k, bits: 4 if k else (0 if bits == 8 else 16)}


def width_class(w, bits):
    """What the width decides in adm's code paths (adm_math.h, "Which reference build"): the
    (ISA, scale) pairs whose DWT reads past a row (adm_dwt_reads_past: the last output of a row
    ends a vector block), and the scales whose cm has vector lanes (adm_border >= 1)."""
    n, sides = w, []
    for _ in range(4):
        n = (n + 1) // 2
        sides.append(n)
    defect = tuple((isa, k) for isa, block in DWT_BLOCK.items() for k, n in enumerate(sides)
                   if block(k, bits) and n > 1 and (n - 1) % block(k, bits) == 0)
    cm_vector = tuple(int(n * 0.1 - 0.5) >= 1 for n in sides)
    return defect, cm_vector


def sample_widths(opt_set, bits):
    ws = widths(opt_set)
    first, last = {}, {}
    for w in ws:
        c = width_class(w, bits)
        first.setdefault(c, w)
        last[c] = w
    rest = [w for w in ws if w > SAMPLE_ALL_UP_TO]
    pick = {w for w in ws if w <= SAMPLE_ALL_UP_TO} | set(first.values()) | set(last.values())
    pick |= set(rest[::SAMPLE_STRIDE[opt_set]])
    return sorted(pick)


def expected_pattern(exp, opt_set, bits, w):
    """Which ISAs the reference agrees between at a width, and where its heap decides."""
    toks = [exp[(opt_set, bits, w, isa)] for isa, _ in ISAS]
    return (tuple(toks[i][0] == toks[j][0] for i, j in ((0, 1), (0, 2), (1, 2))),
            "".join(t[2] for t in toks))


def sample_gaps(exp, opt_set, bits, sample):
    """What the sample misses of the full sweep: width classes, patterns of the expected file
    (each named with the first width that has it)."""
    full = [w for w in widths(opt_set) if all((opt_set, bits, w, isa) in exp for isa, _ in ISAS)]
    gaps = []
    for what, f in (("width class", lambda w: width_class(w, bits)),
                    ("pattern of the expected file", lambda w: expected_pattern(exp, opt_set, bits, w))):
        have = {f(w) for w in sample if w in full}
        missing = {}
        for w in full:
            if f(w) not in have:
                missing.setdefault(f(w), w)
        gaps += [f"{what} {c} (first at width {w})" for c, w in missing.items()]
    return gaps


def lcg(seed):
    x = seed & 0xffffffff
    while True:
        x = (1664525 * x + 1013904223) & 0xffffffff
        yield x >> 16


def base_frames(bits, kind="texture"):
    """FRAMES reference and distorted luma planes, BASE_W x H, as lists of row lists."""
    maxv = (1 << bits) - 1
    sh = bits - 8
    rnd = lcg(12345 + bits)
    ref, dis = [], []
    if kind == "lines":
        # full-swing one-sample lines on black; the distorted flips 1 sample in 16
        for f in range(FRAMES):
            rp = [[maxv if x % 7 == 0 or (y + f) % 11 == 0 else 0 for x in range(BASE_W)]
                  for y in range(H)]
            dp = [[maxv - v if next(rnd) % 16 == 0 else v for v in row] for row in rp]
            ref.append(rp)
            dis.append(dp)
        return ref, dis
    for f in range(FRAMES):
        rp, dp = [], []
        for y in range(H):
            rrow, drow = [], []
            for x in range(BASE_W):
                # smooth ramps, a moving diagonal grating, edges every 37 columns, fine noise
                v = ((x * 3 + y * 5 + f * 7) % 256) // 2 + (64 if ((x + 2 * y + 3 * f) // 9) % 2 else 0)
                v += 40 if (x // 37) % 2 else 0
                v = (v << sh) + (next(rnd) & ((8 << sh) - 1))
                v = min(v, maxv)
                rrow.append(v)
                d = v + ((next(rnd) & ((32 << sh) - 1)) - (16 << sh))
                drow.append(min(max(d, 0), maxv))
            rp.append(rrow)
            dp.append(drow)
        ref.append(rp)
        dis.append(dp)
    return ref, dis


def encode(frames, bits):
    """Per frame: the luma rows as bytes (8 bits: one byte, else 16-bit little-endian)."""
    out = []
    for plane in frames:
        if bits == 8:
            out.append([bytes(r) for r in plane])
        else:
            out.append([b"".join(v.to_bytes(2, "little") for v in r) for r in plane])
    return out


def write_crop(path, rows_per_frame, w, bits):
    bps = 1 if bits == 8 else 2
    grey = ((1 << (bits - 1)).to_bytes(bps, "little")) * (w * H)
    with open(path, "wb") as f:
        for rows in rows_per_frame:
            for r in rows:
                f.write(r[:w * bps])
            f.write(grey)
            f.write(grey)


def canon(frames):
    """Printed outputs, key order free: one line per frame."""
    return ["".join(f"{k}={v};" for k, v in sorted(fr["metrics"].items())) for fr in frames]


def digest(lines):
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:10]


def run(exe, args, env=None):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as t:
        out = t.name
    try:
        p = subprocess.run([exe] + args + ["--json", "-o", out], capture_output=True, text=True,
                           env=env, timeout=120)
        if p.returncode:
            return None, p.stderr
        with open(out) as f:
            j = json.load(f, parse_float=str, parse_int=str)
        return canon(j["frames"]), p.stderr
    finally:
        if os.path.exists(out):
            os.unlink(out)


def common(r, d, w, bits, feature="adm=debug=true"):
    return ["-r", r, "-d", d, "-w", str(w), "-h", str(H), "-p", "444", "-b", str(bits),
            "--feature", feature, "-n", "-q"]


def generate(ref_exe):
    tmp = tempfile.mkdtemp(prefix="adm_isa_")
    r, d = os.path.join(tmp, "r.yuv"), os.path.join(tmp, "d.yuv")
    lines = ["# adm outputs of libvmaf f85a8536 (release, asm, AVX-512 host) on "
             "adm_isa_test.py's inputs:",
             "# bits width, then per ISA (avx512 avx2 c) a hash of both frames' outputs, \":\" "
             "and frame 0's",
             "# where the reference depends on its heap; \"=\" repeats the token before it;",
             "# lines of option set N > 0 (SETS in the script) start with oN.",
             "# Made by: tests/adm_isa_test.py --generate path/to/libvmaf/build/tools/vmaf"]
    env_p = dict(os.environ, MALLOC_PERTURB_="165")
    env_0 = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    for opt_set, feature, kind in SETS:
        for bits in DEPTHS:
            ref, dis = (encode(x, bits) for x in base_frames(bits, kind))
            for w in widths(opt_set):
                write_crop(r, ref, w, bits)
                write_crop(d, dis, w, bits)
                toks = []
                for isa, mask in ISAS:
                    args = common(r, d, w, bits, feature) + ["--cpumask", mask]
                    a, err = run(ref_exe, args, env_0)
                    b, _ = run(ref_exe, args, env_p)
                    if a is None:
                        sys.exit(f"reference failed at {bits} bits, width {w}, {isa}: "
                                 f"{err.strip()}")
                    toks.append(digest(a) + ("" if a == b else ":" + digest(a[:1])))
                lines.append(("o%d " % opt_set if opt_set else "") + f"{bits} {w} " + " ".join(
                    "=" if k and t == toks[k - 1] else t for k, t in enumerate(toks)))
                print(opt_set, bits, w, flush=True)
    os.unlink(r)
    os.unlink(d)
    os.rmdir(tmp)
    with open(EXPECTED, "w") as f:
        f.write("\n".join(lines) + "\n")


def load_expected():
    exp = {}
    with open(EXPECTED) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            opt_set = int(fields.pop(0)[1:]) if fields[0].startswith("o") else 0
            bits, w, *toks = fields
            prev = None
            for (isa, _), t in zip(ISAS, toks):
                t = prev if t == "=" else t
                prev = t
                h_all, _, h0 = t.partition(":")
                exp[(opt_set, int(bits), int(w), isa)] = (h_all, h0, "n" if h0 else "d")
    return exp


def check(exe, extra=()):
    full = os.environ.get("TVMAF_TEST_FULL") == "1"
    exp = load_expected()
    tmp = tempfile.mkdtemp(prefix="adm_isa_")
    r, d = os.path.join(tmp, "r.yuv"), os.path.join(tmp, "d.yuv")
    failures, n, n_nondet, n_widths, n_all = [], 0, 0, 0, 0
    for opt_set, feature, kind in SETS:
        for bits in DEPTHS:
            ws = widths(opt_set) if full else sample_widths(opt_set, bits)
            n_widths += len(ws)
            n_all += len(widths(opt_set))
            if not full:
                failures += [f"set {opt_set}, {bits} bits: the sample misses a {g}"
                             for g in sample_gaps(exp, opt_set, bits, ws)]
            ref, dis = (encode(x, bits) for x in base_frames(bits, kind))
            for w in ws:
                write_crop(r, ref, w, bits)
                write_crop(d, dis, w, bits)
                for isa, _ in ISAS:
                    key = (opt_set, bits, w, isa)
                    where = f"set {opt_set}, {bits} bits, width {w}, {isa}"
                    if key not in exp:
                        failures.append(f"{where}: no expected value")
                        continue
                    h_all, h0, det = exp[key]
                    got, err = run(exe, common(r, d, w, bits, feature) + ["--reference-isa", isa]
                                   + list(extra))
                    n += 1
                    if got is None:
                        failures.append(f"{where}: tvmaf failed: {err.strip()}")
                        continue
                    noted = NOTE in err
                    if det == "d":
                        if digest(got) != h_all:
                            failures.append(f"{where}: outputs differ from the reference")
                        if noted:
                            failures.append(f"{where}: note printed where the reference is "
                                            "deterministic")
                    else:
                        n_nondet += 1
                        if digest(got[:1]) != h0:
                            failures.append(f"{where}: frame 0 differs from a fresh reference process")
                        if not noted:
                            failures.append(f"{where}: the reference reads unwritten memory here, "
                                            "and tvmaf printed no note")
    os.unlink(r)
    os.unlink(d)
    os.rmdir(tmp)
    for f in failures[:40]:
        print("FAIL", f)
    print(f"adm_isa: {n} runs ({n_nondet} at heap-dependent widths), {len(failures)} failures; "
          + (f"every width ({n_widths} widths x 3 ISAs)" if full else
             f"a sample: {n_widths} of {n_all} widths x 3 ISAs (TVMAF_TEST_FULL=1: all)"))
    return 1 if failures or n == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--generate":
        generate(sys.argv[2])
    elif len(sys.argv) == 2:
        # the CPU extractor, named: --backend auto would probe the GPU backends in each of
        # the ~12000 runs (about 50 ms each with an OpenCL loader installed), doubling the
        # test's time for the same scores
        sys.exit(check(sys.argv[1], ["--backend", "cpu"]))
    elif len(sys.argv) == 4 and sys.argv[2] == "--backend":
        sys.exit(check(sys.argv[1], ["--backend", sys.argv[3]]))
    else:
        sys.exit(__doc__)
