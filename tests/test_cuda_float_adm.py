#!/usr/bin/env python3
"""float_adm: CPU vs CUDA over its options and division modes (exits 77 without a GPU).

The gate's cuda columns compare float_adm with its default options on every clip. This test
covers what they do not: every option of float_adm's option table (gain limit, viewing
distance, display height, the CSF modes and scales, p-norms, bypass_cm, noise weight, the
per-scale factors, skip_scale0, skip_aim_scale, the adm3 combinations), each with debug=true
(every output: the frame and per-scale sums too), in the three division modes (--adm-div host:
this processor's RCPSS estimates, table: the goldens host's, ieee), on clips of every depth and
layout and the odd sizes; with several frames in flight (--threads 3) as well. Every value of
every frame, pooled and aggregate, must be identical as a double (no LIBM entry: the twin raises
p-norms other than 3 with glibc's powf on the host). What the CPU refuses (frames below
17x17, an unknown division, an option out of range) the twin must refuse too, with a non-zero
exit naming the feature.

usage: test_cuda_float_adm.py TVMAF_EXE [--clips DIR] [--backend B]
(--backend cpu compares the CPU with itself: a check of this script without a GPU)
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SKIP = 77
NO_DEVICE = re.compile(r"no usable \S+ device", re.I)

OPTIONS = [
    "",
    "adm_enhn_gain_limit=1.2",
    "adm_enhn_gain_limit=1.0",
    "adm_norm_view_dist=1.5:adm_ref_display_height=720",
    "adm_norm_view_dist=24:adm_ref_display_height=4320",
    "adm_csf_mode=1",
    "adm_csf_mode=2",
    "adm_p_norm=2",
    "adm_p_norm=4.5",
    "adm_p_norm=1",
    "adm_p_norm=20",
    "adm_bypass_cm=1",
    "adm_noise_weight=0.5:adm_csf_scale=2:adm_csf_diag_scale=0.5",
    "adm_skip_scale0=true",
    "adm_skip_aim_scale=2:adm_adm3_apply_hm=true",
    "adm_dlm_weight=0.3:adm_min_val=0.2",
    "adm_f1s0=0.5:adm_f2s3=2:adm_f1s2=0:adm_f2s1=10",
]
MODES = ["host", "table", "ieee"]
# (name, w, h, layout, depth, frames)
CLIPS = [
    ("tiny_177x99", 177, 99, "420", 8, 8),
    ("flat_64x64", 64, 64, "420", 8, 4),
    ("cups_576x324", 576, 324, "420", 8, 6),
    ("cups_576x324_10b", 576, 324, "420", 10, 3),
    ("cups_576x324_12b", 576, 324, "420", 12, 3),
    ("cups_576x324_16b", 576, 324, "420", 16, 3),
    ("cups_576x324_422", 576, 324, "422", 8, 3),
    ("cups_576x324_444_10b", 576, 324, "444", 10, 3),
    ("noise_320x180", 320, 180, "420", 8, 8),
]
# all options on these; the others with the default options in every mode
OPTION_CLIPS = ("tiny_177x99", "cups_576x324", "cups_576x324_16b")


def bits(v):
    return None if v is None else struct.pack("<d", float(v))


def flatten(doc):
    """{(section, frame, key): bits} of every number of a tvmaf JSON document."""
    out = {}
    for f in doc.get("frames", []):
        for k, v in f.get("metrics", {}).items():
            out[("frame", f.get("frameNum"), k)] = bits(v)
    for sec in ("pooled_metrics", "aggregate_metrics"):
        for k, v in (doc.get(sec) or {}).items():
            if isinstance(v, dict):
                for s, x in v.items():
                    out[(sec, s, k)] = bits(x)
            else:
                out[(sec, None, k)] = bits(v)
    return out


class Runner:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.n = exe, tmp, 0

    def run(self, argv):
        self.n += 1
        out = os.path.join(self.tmp, "out%d.json" % self.n)
        cmd = [self.exe] + argv + ["-n", "--json", "-o", out, "--precision", "max", "-q"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        err = p.stderr.decode("utf-8", "replace").strip()
        doc = None
        if p.returncode == 0:
            with open(out) as f:
                doc = json.loads(re.sub(r"(?<=[\s:\[,])-?(nan|inf|infinity)(?=[\s,\]}])", "null",
                                        f.read(), flags=re.I))
        return p.returncode, doc, err, cmd


def clip_argv(clips, c):
    name, w, h, layout, depth, frames = c
    return ["-r", os.path.join(clips, name + ".ref.yuv"), "-d", os.path.join(clips, name + ".dis.yuv"),
            "-w", str(w), "-h", str(h), "-p", layout, "-b", str(depth), "--frame_cnt", str(frames)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvmaf")
    ap.add_argument("--clips", default=os.environ.get("TVMAF_CLIPS", os.path.join(ROOT, ".cache", "clips")))
    ap.add_argument("--backend", default="cuda", help="the twin's backend (default cuda)")
    a = ap.parse_args()
    clips = [c for c in CLIPS if os.path.isfile(os.path.join(a.clips, c[0] + ".ref.yuv"))]
    if not clips:
        print("no clip of %s in %s" % ([c[0] for c in CLIPS], a.clips))
        return 1
    failures = 0
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(os.path.abspath(a.tvmaf), tmp)
        # the device: 77 when tvmaf says there is none
        rc, _, err, _ = r.run(clip_argv(a.clips, clips[0]) + ["--backend", a.backend, "--feature", "float_adm"])
        if rc:
            if NO_DEVICE.search(err):
                print("no usable CUDA device: %s" % err.splitlines()[-1])
                return SKIP
            print("FAIL probe: exit %d: %s" % (rc, err))
            return 1

        def compare(c, opts, mode, extra):
            nonlocal failures, compared
            feat = "float_adm=" + ":".join(x for x in (opts, "debug=true") if x)
            argv = clip_argv(a.clips, c) + ["--feature", feat, "--adm-div", mode]
            rc0, d0, e0, _ = r.run(argv + ["--backend", "cpu", "--threads", "1"])
            rc1, d1, e1, cmd = r.run(argv + ["--backend", a.backend] + extra)
            what = "%s [%s] %s %s" % (c[0], feat, mode, " ".join(extra))
            if rc0 or rc1:
                if rc0 and rc1:
                    print("ok %s: refused by both" % what)
                    return
                failures += 1
                print("FAIL %s: cpu exit %d, cuda exit %d: %s" % (what, rc0, rc1, (e0 or e1).splitlines()[-1:]))
                return
            v0, v1 = flatten(d0), flatten(d1)
            diff = [k for k in v0 if v0[k] != v1.get(k)] + [k for k in v1 if k not in v0]
            compared += len(v0)
            if diff:
                failures += 1
                k = diff[0]
                def show(b):
                    return "missing" if b is None and k not in v0 else ("null" if b is None else repr(struct.unpack("<d", b)[0]))
                print("FAIL %s: %d of %d values differ, first %s: cpu %s cuda %s\n  %s"
                      % (what, len(diff), len(v0), k, show(v0.get(k)), show(v1.get(k)), " ".join(cmd)))
            else:
                print("ok %s: %d values identical" % (what, len(v0)))

        for c in clips:
            for mode in MODES:
                for opts in (OPTIONS if c[0] in OPTION_CLIPS else [""]):
                    compare(c, opts, mode, [])
        cups = [c for c in clips if c[0] == "cups_576x324"]
        for c in cups:
            for mode in MODES:
                compare(c, "adm_p_norm=2.5", mode, ["--threads", "3"])
                compare(c, "", mode, ["--threads", "3", "--pinned-pictures"])

        # refusals: both backends, non-zero exit naming float_adm
        small = os.path.join(tmp, "small.yuv")
        with open(small, "wb") as f:
            f.write(bytes(range(256)) * 4)
        cases = [
            (["-r", small, "-d", small, "-w", "16", "-h", "17", "-p", "420", "-b", "8"], "float_adm"),
            (["-r", small, "-d", small, "-w", "17", "-h", "16", "-p", "420", "-b", "8"], "float_adm"),
            (clip_argv(a.clips, clips[0]), "float_adm=adm_div=fast"),
            (clip_argv(a.clips, clips[0]), "float_adm=adm_p_norm=0.5"),
            (clip_argv(a.clips, clips[0]), "float_adm=adm_csf_mode=10"),
        ]
        for argv, feat in cases:
            for backend in ("cpu", a.backend):
                rc, _, err, cmd = r.run(argv + ["--feature", feat, "--backend", backend])
                named = "float_adm" in err
                if rc == 0 or rc >= 128 or rc < 0 or not named:
                    failures += 1
                    print("FAIL refusal on %s: exit %d (%s): %s" % (backend, rc, err.splitlines()[-1:], " ".join(cmd)))
                else:
                    print("ok refused on %s: %s" % (backend, err.splitlines()[-1]))
    print("float_adm cpu vs %s: %d values compared, %d failures" % (a.backend, compared, failures))
    return 1 if failures or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
