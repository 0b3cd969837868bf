#!/usr/bin/env python3
"""CPU vs OpenCL: the gate's opencl columns on the quick clips (exits 77 without an OpenCL device).

Runs scripts/gate --quick --columns 'opencl*' --skip-without opencl: every feature (each has an
OpenCL twin) and every model of the gate (vmaf_v0.6.1, vmaf_neg, vmaf_4k, vmaf_b with its
bootstrap keys, vmaf_float, the eight v1.0.16 models) on the clips up to 576x324 of clips.tsv
(every layout and depth), per frame, pooled and aggregate, against the CPU reference (1 thread),
in two columns: opencl (default frames in flight) and opencl-1t (--threads 1). A run in which an
extractor with an OpenCL twin ran on the CPU fails its cells (the gate reads each run's --meta
sidecar). Every value must be identical as a double; there is no LIBM entry for OpenCL (ciede's
twin leaves the pixels its fp32 pairs cannot decide to the host, which computes them with the
CPU's code).
In CI the device is PoCL's CPU device (scripts/bootstrap installs pocl-opencl-icd), so the
real backend runs without a GPU. The gate exits 77 only when tvmaf says there is no usable
OpenCL device (no ICD loader or no platform); any other failure of its probe fails.

Before the gate, with the loader made unreachable (TVMAF_OPENCL_LIBRARY names a file that does
not exist, as on a machine without OpenCL): --backend opencl must fail saying "no usable OpenCL
device", and --backend auto must score on the CPU with the CPU's output.

TVMAF_TEST_QUICK=1 (the sanitizer pass of .ci/run, which looks for memory errors in the host
code) runs the opencl column on the sample's clips only, and the nofp64 column on the same.
Sampled by default, whole with TVMAF_TEST_FULL=1: by default the opencl column scores every
quick clip's first 16 frames (only cups_576x324 has more, 48: 16 are eight times the frames in
flight of a 2-core machine, so every ring of pictures and results turns over) and the opencl-1t
column every quick clip but the longest (the other clips hold every layout and depth, and 3 to
8 frames), in two runs of the gate; TVMAF_TEST_FULL=1 runs both columns on every quick clip,
every frame, in one. The
suite's gate_quick leaves these columns to this test (--skip-columns 'opencl*').
The opencl-nofp64 column (--opencl-fp64 off: the device taken as one without fp64, as Intel and
Apple GPUs) runs every feature (the build makes each OpenCL program fp64-free: FP64_FREE lists
them all, so the models run too, outside the sanitizer pass), identical to the CPU; a feature
outside FP64_FREE would have to be refused there (the run failing, its message naming the
feature and fp64), so the list cannot claim a feature the device does not run. An fp64-free program
is also the one the opencl column runs, so what this column adds is the device's fp64 cap
withheld; while no plan reads that cap (plans_read_fp64: checked on every run) the plans make
the opencl column's decisions, and the column runs on NOFP64_SAMPLE (8-bit 4:2:0 at an odd size,
16-bit, 4:4:4 10-bit); a plan that reads the cap gets the opencl-1t column's sample; every quick
clip with TVMAF_TEST_FULL=1.

usage: test_opencl_parity.py TVMAF_EXE [--clips DIR] [--shared DIR] [--gpu N]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GATE = os.path.join(ROOT, "scripts", "gate")
sys.path.insert(0, HERE)
from golden_common import clip_paths, full_env, is_quick, parse_clips_tsv  # noqa: E402


def sample_clips(a):
    """The clips of the opencl-1t column by default: the quick set less its longest clip (None:
    no clip list, then both columns run on every clip)."""
    tsv = os.path.join(a.shared, "testdata", "clips.tsv")
    if not os.path.isfile(tsv):
        return None
    clips = [c for c in parse_clips_tsv(tsv)
             if is_quick(c) and all(os.path.isfile(p) for p in clip_paths(c, a.clips))]
    if len(clips) < 2:
        return None
    longest = max(clips, key=lambda c: c["frames"] * c["w"] * c["h"])
    return [c["name"] for c in clips if c is not longest]


def without_loader(tvmaf, clips):
    """The run-time loading: no loader, no OpenCL backend, and auto falls back to the CPU."""
    ref, dis = (os.path.join(clips, "tiny_177x99.%s.yuv" % k) for k in ("ref", "dis"))
    if not os.path.isfile(ref):
        print("no %s: loader check not run" % ref)
        return 0
    env = dict(os.environ, TVMAF_OPENCL_LIBRARY="/nonexistent/libOpenCL.so.1")
    base = [tvmaf, "-r", ref, "-d", dis, "-w", "177", "-h", "99", "-p", "420", "-b", "8", "-n",
            "--feature", "psnr", "--feature", "motion", "--precision", "max", "--csv", "-o", "-"]
    p = subprocess.run(base + ["--backend", "opencl"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode()
    if p.returncode == 0 or "no usable OpenCL device" not in err:
        print("FAIL: --backend opencl without a loader: rc %d, stderr %r" % (p.returncode, err))
        return 1
    auto = subprocess.run(base + ["--backend", "auto"], env=env, stdout=subprocess.PIPE)
    cpu = subprocess.run(base + ["--backend", "cpu"], stdout=subprocess.PIPE)
    if auto.returncode or cpu.returncode or auto.stdout != cpu.stdout:
        print("FAIL: --backend auto without a loader does not give the CPU's output")
        return 1
    print("without a loader: --backend opencl refused (%s), auto = cpu" % err.strip())
    return 0


# The features whose OpenCL program computes without fp64: every one, as the build requires. A
# twin added here must score under --opencl-fp64 off (fp64_refusals below).
FP64_FREE = ["psnr", "ciede", "motion", "float_ansnr", "cambi", "psnr_hvs", "float_motion",
             "float_psnr", "float_moment", "float_ssim", "adm", "vif", "float_adm", "float_vif",
             "float_ms_ssim", "speed_chroma", "speed_temporal"]


# The opencl-nofp64 column's clips while no plan reads the fp64 cap (the docstring says why).
NOFP64_SAMPLE = ["tiny_177x99", "cups_576x324_16b", "cups_576x324_444_10b"]


def plans_read_fp64():
    """The plan sources (src/feature/*/*_plan.c) whose code, comments aside, names fp64: a
    plan that may decide by the cap."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "feature", "*", "*_plan.c"))):
        with open(path) as f:
            code = re.sub(r"/\*.*?\*/|//[^\n]*", "", f.read(), flags=re.S)
        if re.search(r"fp64", code):
            found.append(os.path.relpath(path, ROOT))
    return found


def opencl_features(tvmaf):
    """The features whose --list-features line names opencl."""
    feats = subprocess.run([tvmaf, "--list-features"], stdout=subprocess.PIPE,
                           check=True).stdout.decode().split("\n")
    return [l.split()[0] for l in feats if l.strip() and "opencl" in l.split()[1:]]


def fp64_refusals(tvmaf, clips, gpu):
    """Every OpenCL feature outside FP64_FREE is refused under --opencl-fp64 off, naming
    fp64; every one inside is not."""
    ref, dis = (os.path.join(clips, "cups_576x324.%s.yuv" % k) for k in ("ref", "dis"))
    if not os.path.isfile(ref):
        print("no %s: fp64 refusals not checked" % ref)
        return 0
    names = opencl_features(tvmaf)
    bad = 0
    for name in names:
        cmd = [tvmaf, "-r", ref, "-d", dis, "-w", "576", "-h", "324", "-p", "420", "-b", "8",
               "--frame_cnt", "1", "-n", "--feature", name, "--backend", "opencl",
               "--opencl-fp64", "off", "-q", "-o", "/dev/null"] + (["--gpu", gpu] if gpu else [])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode()
        refused = p.returncode != 0 and ('feature "%s"' % name) in err and "fp64" in err
        want = name not in FP64_FREE
        if refused != want or (not want and p.returncode):
            bad += 1
            print("FAIL: %s under --opencl-fp64 off: rc %d, %s (want %s): %r" % (
                name, p.returncode, "refused" if refused else "on OpenCL",
                "refused" if want else "on OpenCL", err.strip()))
    print("--opencl-fp64 off: %d features on OpenCL, %d refused naming fp64%s" % (
        len([n for n in names if n in FP64_FREE]), len([n for n in names if n not in FP64_FREE]),
        "" if not bad else ", %d wrong" % bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvmaf")
    ap.add_argument("--clips", default=os.environ.get("TVMAF_CLIPS", os.path.join(ROOT, ".cache", "clips")))
    ap.add_argument("--shared", default=os.environ.get("TVMAF_SHARED", os.path.join(ROOT, "..", "shared")))
    ap.add_argument("--gpu", default=os.environ.get("TVMAF_OPENCL_GPU"))
    a = ap.parse_args()
    if without_loader(a.tvmaf, a.clips):
        return 1
    cmd = [sys.executable, GATE, "--tvmaf", a.tvmaf, "--clips", a.clips, "--shared", a.shared,
           "--quick", "--skip-without", "opencl"]
    if a.gpu is not None:
        cmd += ["--gpu", a.gpu]
    sample = None if full_env() else sample_clips(a)
    sanitizer_pass = os.environ.get("TVMAF_TEST_QUICK") == "1" and sample is not None
    if sample is None:
        runs = [cmd + ["--columns", "opencl,opencl-1t"]]
    elif sanitizer_pass:
        # the sanitizer pass (.ci/run) looks for memory errors in the host code, not for values
        # the full run checks: the opencl column on the sample only
        runs = [cmd + ["--columns", "opencl"] + [x for name in sample for x in ("--clip", name)]]
    else:
        runs = [cmd + ["--columns", "opencl", "--frames", "16"],
                cmd + ["--columns", "opencl-1t"] + [x for name in sample for x in ("--clip", name)]]
    # the same programs as the opencl column's (an fp64-free program serves both modes), so
    # the sample's clips unless TVMAF_TEST_FULL=1: the FP64_FREE features, and the models where
    # that is every OpenCL feature (not in the sanitizer pass: its opencl column runs them)
    every = set(opencl_features(a.tvmaf)) <= set(FP64_FREE)
    readers = plans_read_fp64()
    nofp64 = sample
    if sample is not None and not readers:
        nofp64 = [c for c in NOFP64_SAMPLE if c in sample] or sample
    print("opencl-nofp64 column: %s" % (
        "every quick clip" if nofp64 is None else
        "%d clips (%s)" % (len(nofp64), "plans reading the fp64 cap: " + ", ".join(readers)
                           if readers else "no plan reads the fp64 cap")))
    runs.append(cmd + ["--columns", "opencl-nofp64"] +
                ([] if every and not sanitizer_pass else
                 ["--no-models", "--features", ",".join(FP64_FREE)]) +
                [x for name in (nofp64 or []) for x in ("--clip", name)])
    rcs = []
    for run in runs:
        print(" ".join(run), flush=True)
        rcs.append(subprocess.call(run))
        if rcs[-1] == 77:  # no OpenCL device: the first run says so
            return 77
    fp64_rc = fp64_refusals(a.tvmaf, a.clips, a.gpu)
    if sanitizer_pass:
        print("opencl_parity: the sanitizer pass (TVMAF_TEST_QUICK=1): the opencl and "
              "opencl-nofp64 columns on %d clips" % len(sample))
    else:
        print("opencl_parity: " + ("a sample: opencl-1t on %d clips (TVMAF_TEST_FULL=1: every "
                                   "column on every quick clip)" % len(sample) if sample else
                                   "every opencl column on every quick clip"))
    return 1 if any(rcs) or fp64_rc else 0


if __name__ == "__main__":
    sys.exit(main())
