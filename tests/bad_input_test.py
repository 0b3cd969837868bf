#!/usr/bin/env python3
"""Malformed-input test for the tvmaf CLI.

Usage: tests/bad_input_test.py [TVMAF_EXE]   (default: $TVMAF_EXE, else build-nocuda/tools/tvmaf)

Every case in CASES is a run that must be refused: exit code != 0, no crash (no signal, no exit
code >= 128, no sanitizer report), exactly one non-empty line on stderr that names the cause (a
keyword per case, matched case-insensitively; a tuple means "any of"), and with -o: no file
created, and an existing file left byte for byte as it was.  The positive controls are runs that
must succeed, so the test fails when the tool refuses everything.

Inputs are generated in a temporary directory (16x8 frames).  Standard library only.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

W, H = 16, 8
TIMEOUT_S = 60
CRASH_MARKERS = ("Sanitizer", "runtime error", "Segmentation fault", "core dumped",
                 "Assertion", "double free", "corrupted", "stack smashing")


# ---------------------------------------------------------------- input generation

def plane_sizes(w, h, layout):
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h),
              "444": (w, h), "400": (0, 0)}[layout]
    return w * h, cw * ch


def frame_bytes(w, h, layout, bits, seed):
    """One planar frame; samples vary with position and seed so scores are finite and differ."""
    luma, chroma = plane_sizes(w, h, layout)
    n = luma + 2 * chroma
    maxv = (1 << bits) - 1
    vals = [((i * 7 + seed * 13 + (i * i) % 11) * (maxv // 255 or 1)) % (maxv + 1) for i in range(n)]
    if bits == 8:
        return bytes(vals)
    return b"".join(v.to_bytes(2, "little") for v in vals)


def raw_video(w, h, layout, bits, frames, seed):
    return b"".join(frame_bytes(w, h, layout, bits, seed + f) for f in range(frames))


def y4m_video(w, h, colorspace, layout, bits, frames, seed, header=None):
    hdr = header if header is not None else \
        "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n" % (w, h, colorspace)
    out = [hdr.encode("ascii")]
    for f in range(frames):
        out.append(b"FRAME\n")
        out.append(frame_bytes(w, h, layout, bits, seed + f))
    return b"".join(out)


class Inputs:
    def __init__(self, d):
        self.d = d
        self.n = 0

    def put(self, name, data):
        # neutral file names (f00.yuv, ...): a keyword must come from the message, not the path
        self.n += 1
        p = os.path.join(self.d, "f%02d%s" % (self.n, os.path.splitext(name)[1]))
        with open(p, "wb") as f:
            f.write(data)
        return p

    def build(self):
        P = self.put
        fs = W * H * 3 // 2
        self.raw_ref = P("ref.yuv", raw_video(W, H, "420", 8, 2, 0))
        self.raw_dis = P("dis.yuv", raw_video(W, H, "420", 8, 2, 5))
        self.raw_trunc = P("trunc.yuv", raw_video(W, H, "420", 8, 2, 5)[: 2 * fs - 50])
        self.raw_3f = P("dis3.yuv", raw_video(W, H, "420", 8, 3, 5))
        self.raw_1f = P("dis1.yuv", raw_video(W, H, "420", 8, 1, 5))
        self.empty = P("empty.yuv", b"")
        self.y4m_ref = P("ref.y4m", y4m_video(W, H, "420jpeg", "420", 8, 2, 0))
        self.y4m_dis = P("dis.y4m", y4m_video(W, H, "420jpeg", "420", 8, 2, 5))
        self.y4m_wide = P("wide.y4m", y4m_video(W + 2, H, "420jpeg", "420", 8, 2, 5))
        self.y4m_10b = P("dis10.y4m", y4m_video(W, H, "420p10", "420", 10, 2, 5))
        self.y4m_p9 = P("p9.y4m", y4m_video(W, H, "420p9", "420", 10, 2, 5))
        self.y4m_garbage = P("garbage.y4m", y4m_video(
            W, H, "420", "420", 8, 2, 5, header="YUV4MPEG2 Wxyz H#8 F25:1 \x01\x02\n"))
        self.y4m_nowidth = P("nowidth.y4m", y4m_video(
            W, H, "420", "420", 8, 2, 5, header="YUV4MPEG2 H%d F25:1 C420jpeg\n" % H))
        self.y4m_zero = P("zero.y4m", y4m_video(
            W, H, "420", "420", 8, 1, 5, header="YUV4MPEG2 W0 H%d F25:1 C420jpeg\n" % H))
        self.y4m_huge = P("huge.y4m", y4m_video(
            W, H, "420", "420", 8, 1, 5, header="YUV4MPEG2 W4000000000 H4000000000 C420jpeg\n"))
        self.y4m_colorspace = P("cs.y4m", y4m_video(W, H, "411", "420", 8, 2, 5))
        self.y4m_noeol = P("noeol.y4m", b"YUV4MPEG2 W16 H8 F25:1 C420jpeg " + b"X" * 100000)
        self.y4m_badframe = P("badframe.y4m", y4m_video(W, H, "420jpeg", "420", 8, 2, 5)
                              .replace(b"FRAME\n", b"FRAMX\n"))
        self.y4m_trunc = P("trunc.y4m", y4m_video(W, H, "420jpeg", "420", 8, 2, 5)[:-7])
        self.y4m_mono_ref = P("mono_ref.y4m", y4m_video(W, H, "mono", "400", 8, 2, 0))
        self.y4m_mono_dis = P("mono_dis.y4m", y4m_video(W, H, "mono", "400", 8, 2, 5))
        self.raw10_ref = P("ref10.yuv", raw_video(W, H, "420", 10, 2, 0))
        self.raw10_ovf = P("ovf10.yuv", b"\xff" * (W * H * 3 // 2 * 2 * 2))
        self.y4m_odd_ref = P("odd_ref.y4m", y4m_video(17, 9, "420jpeg", "420", 8, 2, 0))
        self.y4m_odd_dis = P("odd_dis.y4m", y4m_video(17, 9, "420jpeg", "420", 8, 2, 5))
        self.y4m_1x1_ref = P("px_ref.y4m", y4m_video(1, 1, "444", "444", 8, 2, 0))
        self.y4m_1x1_dis = P("px_dis.y4m", y4m_video(1, 1, "444", "444", 8, 2, 5))
        self.hdr_only = P("hdronly.y4m", b"YUV4MPEG2 W16 H8 F25:1 C420jpeg\n")
        self.dir = os.path.join(self.d, "d00")
        os.mkdir(self.dir)
        self.missing = os.path.join(self.d, "f99.yuv")


# ---------------------------------------------------------------- cases

def raw_args(ref, dis, extra=()):
    return ["-r", ref, "-d", dis, "-w", str(W), "-h", str(H), "-p", "420", "-b", "8"] + list(extra)


def cases(i, gpu_present):
    """(name, argv without the executable and -o/format, keyword or tuple of alternatives)."""
    F = ["-n", "--feature", "psnr"]
    c = [
        ("truncated_raw_frame", raw_args(i.raw_ref, i.raw_trunc, F),
         ("truncat", "incomplete", "partial", "multiple of", "not a whole")),
        ("size_mismatch_y4m", ["-r", i.y4m_ref, "-d", i.y4m_wide] + F, ("differ", "mismatch")),
        ("depth_mismatch_y4m", ["-r", i.y4m_ref, "-d", i.y4m_10b] + F, ("differ", "mismatch")),
        ("missing_file", raw_args(i.raw_ref, i.missing, F), ("no such file", "not exist", "not found")),
        ("missing_ref_file", raw_args(i.missing, i.raw_dis, F), ("no such file", "not exist", "not found")),
        ("directory_input", raw_args(i.raw_ref, i.dir, F), "directory"),
        ("garbage_y4m_header", ["-r", i.y4m_ref, "-d", i.y4m_garbage] + F, ("header", "y4m", "yuv4mpeg")),
        ("y4m_without_width", ["-r", i.y4m_ref, "-d", i.y4m_nowidth] + F, ("width", " w")),
        ("y4m_zero_width", ["-r", i.y4m_ref, "-d", i.y4m_zero] + F, ("width", "size", " w")),
        ("y4m_huge_size", ["-r", i.y4m_ref, "-d", i.y4m_huge] + F,
         ("size", "width", "large", "memory", "dimension")),
        ("y4m_unsupported_depth_420p9", ["-r", i.y4m_ref, "-d", i.y4m_p9] + F, ("420p9", "depth")),
        ("y4m_unknown_colorspace", ["-r", i.y4m_ref, "-d", i.y4m_colorspace] + F, ("411", "colorspace", "chroma")),
        ("y4m_header_without_newline", ["-r", i.y4m_ref, "-d", i.y4m_noeol] + F, ("header", "y4m", "yuv4mpeg")),
        ("y4m_bad_frame_marker", ["-r", i.y4m_ref, "-d", i.y4m_badframe] + F, ("frame",)),
        ("y4m_truncated_frame", ["-r", i.y4m_ref, "-d", i.y4m_trunc] + F,
         ("truncat", "incomplete", "partial", "ended", "short")),
        ("unknown_feature", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "nosuchfeature"]),
         "nosuchfeature"),
        ("unknown_feature_option", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "psnr=bogus_opt=1"]),
         "bogus_opt"),
        ("bad_option_value", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "psnr=enable_mse=maybe"]),
         "maybe"),
        ("out_of_range_option", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "psnr=min_sse=-1"]),
         "min_sse"),
        # both instances print psnr_y: refused up front, naming the clash, not "failed on frame 0"
        ("duplicate_feature", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "psnr",
                                                              "--feature", "psnr=enable_mse=true"]),
         ("twice", "duplicate", "already", "more than once", "psnr_y")),
        ("malformed_feature_spec", raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "psnr=enable_mse"]),
         ("enable_mse", "value", "=")),
        ("unsupported_raw_bitdepth_9", ["-r", i.raw_ref, "-d", i.raw_dis, "-w", str(W), "-h", str(H),
                                        "-p", "420", "-b", "9"] + F, ("bit depth", "bitdepth", "9")),
        ("bad_pixel_format", ["-r", i.raw_ref, "-d", i.raw_dis, "-w", str(W), "-h", str(H),
                              "-p", "411", "-b", "8"] + F, ("pixel format", "411")),
        ("missing_width_raw", ["-r", i.raw_ref, "-d", i.raw_dis, "-h", str(H), "-p", "420", "-b", "8"] + F,
         ("width", "-w")),
        ("zero_height_raw", ["-r", i.raw_ref, "-d", i.raw_dis, "-w", str(W), "-h", "0",
                             "-p", "420", "-b", "8"] + F, ("height", "-h")),
        ("invalid_precision", raw_args(i.raw_ref, i.raw_dis, F + ["--precision", "foo"]), "precision"),
        ("precision_out_of_range", raw_args(i.raw_ref, i.raw_dis, F + ["--precision", "18"]), "precision"),
        ("invalid_threads", raw_args(i.raw_ref, i.raw_dis, F + ["--threads", "x"]), "threads"),
        ("invalid_backend", raw_args(i.raw_ref, i.raw_dis, F + ["--backend", "vulkan"]), ("backend", "vulkan")),
        ("ciede_on_mono_y4m", ["-r", i.y4m_mono_ref, "-d", i.y4m_mono_dis, "-n", "--feature", "ciede"], "ciede"),
        ("ciede_on_raw_400", ["-r", i.raw_ref, "-d", i.raw_dis, "-w", str(W), "-h", str(H),
                              "-p", "400", "-b", "8", "-n", "--feature", "ciede"], "ciede"),
        # inputs of different lengths are scored on their common frames, as libvmaf does
        # (cli_dropin_test.py); --strict-frame-count refuses them
        ("frame_count_mismatch", raw_args(i.raw_ref, i.raw_3f, F + ["--strict-frame-count"]),
         "--frame_cnt"),
        ("frame_count_mismatch_dis_short", raw_args(i.raw_3f, i.raw_1f, F + ["--strict-frame-count"]),
         "--frame_cnt"),
        ("frame_count_mismatch_stdin", raw_args(i.raw_ref, "-", F + ["--strict-frame-count"]),
         "--frame_cnt", "stdin:3f"),
        # an empty file is named as such; "--frame_cnt 0" (no limit) is no way out of it
        ("empty_input_file", raw_args(i.raw_ref, i.empty, F), ("empty", "no frame")),
        ("empty_reference_file", raw_args(i.empty, i.raw_dis, F), ("empty", "no frame")),
        ("both_inputs_empty", raw_args(i.empty, i.empty, F), ("empty", "no frame")),
        ("y4m_header_only", ["-r", i.hdr_only, "-d", i.hdr_only] + F, ("empty", "no frame")),
        ("stdin_truncated_raw", raw_args("-", i.raw_dis, F),
         ("truncat", "incomplete", "partial", "multiple of", "not a whole"), "stdin:trunc"),
        ("both_inputs_stdin", raw_args("-", "-", F), "stdin"),
        ("skip_past_end", raw_args(i.raw_ref, i.raw_dis, F + ["--frame_skip_ref", "5"]),
         ("skip", "fewer frames")),
        ("unknown_cli_option", raw_args(i.raw_ref, i.raw_dis, F + ["--bogus-option"]), "bogus-option"),
        ("option_missing_value", raw_args(i.raw_ref, i.raw_dis, F + ["--threads"]), "threads"),
        # -w/-h/-p/-b that contradict a Y4M header (libvmaf would read the file as raw YUV)
        ("y4m_header_contradicts_width", ["-r", i.y4m_ref, "-d", i.y4m_dis, "-w", str(W + 2)] + F,
         ("header", "-w")),
        ("y4m_header_contradicts_depth", ["-r", i.y4m_ref, "-d", i.raw_dis, "-w", str(W), "-h", str(H),
                                          "-p", "420", "-b", "10"] + F, ("header", "-b")),
        ("reference_isa_bad_value", raw_args(i.raw_ref, i.raw_dis, F + ["--reference-isa", "sse9"]),
         "sse9"),
        ("adm_reference_isa_bad_value",
         raw_args(i.raw_ref, i.raw_dis, ["-n", "--feature", "adm=reference_isa=sse9"]), "sse9"),
        # without -n the default model runs; its adm cannot score a 16x8 frame
        ("default_model_frame_too_small", raw_args(i.raw_ref, i.raw_dis, ["--feature", "psnr"]),
         ("adm", "33x33", "model")),
        ("model_missing_file", raw_args(i.raw_ref, i.raw_dis, ["-m", "path=/nonexistent/m.json"]),
         ("m.json",)),
        ("model_unknown_version", raw_args(i.raw_ref, i.raw_dis, ["-m", "version=no_such_model"]),
         ("no_such_model",)),
        ("missing_distorted", ["-r", i.raw_ref, "-w", str(W), "-h", str(H), "-p", "420", "-b", "8"] + F,
         ("distorted", "-d")),
        ("output_is_directory", raw_args(i.raw_ref, i.raw_dis, F), "directory"),
        ("output_dir_missing", raw_args(i.raw_ref, i.raw_dis, F), ("no such file", "cannot write")),
    ]
    if not gpu_present:
        c.append(("backend_cuda_without_gpu", raw_args(i.raw_ref, i.raw_dis, F + ["--backend", "cuda"]),
                  ("no usable cuda device",)))
    return c


# ---------------------------------------------------------------- checks

def run(exe, argv, stdin_data=None):
    try:
        p = subprocess.run([exe] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           input=stdin_data if stdin_data is not None else b"", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def crash_reason(rc, err):
    if rc is None:
        return "timed out after %d s" % TIMEOUT_S
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc >= 128:
        return "exit code %d (crash?)" % rc
    for m in CRASH_MARKERS:
        if m in err:
            return "stderr contains %r" % m
    return None


def check_refusal(exe, tmp, name, argv, keyword, stdin_data=None):
    """Run twice: -o to a fresh path (must not appear), -o to an existing file (must stay)."""
    keywords = keyword if isinstance(keyword, tuple) else (keyword,)
    if name == "output_is_directory":
        targets = [("dir", os.path.join(tmp, "d00"))]
    elif name == "output_dir_missing":
        targets = [("fresh", os.path.join(tmp, "d99", "o.json"))]
    else:
        targets = [("fresh", os.path.join(tmp, "o.json")), ("existing", os.path.join(tmp, "k.json"))]
    for kind, out in targets:
        if kind == "fresh" and os.path.exists(out):
            os.unlink(out)
        sentinel = ("sentinel for %s: \x00\xff must survive\n" % name).encode("latin-1")
        if kind == "existing":
            with open(out, "wb") as f:
                f.write(sentinel)
        rc, _, err = run(exe, ["--json", "-o", out, "--precision", "max", "-q"] + argv, stdin_data)
        why = crash_reason(rc, err)
        if why:
            return why
        if rc == 0:
            return "exit code 0 (expected a refusal)"
        lines = [l for l in err.splitlines() if l.strip()]
        if len(lines) != 1:
            return "expected one error line on stderr, got %d: %r" % (len(lines), err[:300])
        text = lines[0].replace(tmp, "").lower()
        if not any(k.lower() in text for k in keywords):
            return "error %r does not mention %s" % (lines[0].replace(tmp + os.sep, ""),
                                                     " / ".join(repr(k) for k in keywords))
        if kind == "fresh" and os.path.exists(out):
            os.unlink(out)
            return "output file written by a failed run"
        if kind == "existing":
            with open(out, "rb") as f:
                if f.read() != sentinel:
                    return "existing output file modified by a failed run"
    return None


def check_robust(exe, tmp, name, argv):
    """Inputs a feature may or may not accept: either a complete result or a clean refusal."""
    out = os.path.join(tmp, "robust_%s.json" % name)
    rc, _, err = run(exe, ["--json", "-o", out, "--precision", "max", "-q"] + argv)
    why = crash_reason(rc, err)
    if why:
        return why
    if rc == 0:
        try:
            with open(out) as f:
                json.load(f)
        except (OSError, ValueError) as e:
            return "exit code 0 but the output does not parse as JSON: %s" % e
        return None
    lines = [l for l in err.splitlines() if l.strip()]
    if len(lines) != 1:
        return "refused without one error line: %r" % err[:300]
    if os.path.exists(out):
        return "output file written by a failed run"
    return None


def check_success(exe, tmp, name, argv, n_frames, keys):
    out = os.path.join(tmp, "ok_%s.json" % name)
    rc, _, err = run(exe, argv + ["--json", "-o", out, "--precision", "max", "-q"])
    why = crash_reason(rc, err)
    if why:
        return why
    if rc != 0:
        return "exit code %d: %s" % (rc, err.strip()[:300])
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return "output does not parse as JSON: %s" % e
    frames = doc.get("frames", [])
    if len(frames) != n_frames:
        return "expected %d frames, got %d" % (n_frames, len(frames))
    for fr in frames:
        m = fr.get("metrics", {})
        for k in keys:
            if not isinstance(m.get(k), (int, float)):
                return "frame %s: %s missing or not a number" % (fr.get("frameNum"), k)
    for k in keys:
        if k not in doc.get("pooled_metrics", {}):
            return "pooled %s missing" % k
    return None


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TVMAF_EXE") or \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build-nocuda", "tools", "tvmaf")
    exe = os.path.abspath(exe)
    if not os.access(exe, os.X_OK):
        print("FAIL setup: %s is not an executable" % exe)
        print("0 passed, 1 failed")
        return 1
    gpu_present = shutil.which("nvidia-smi") is not None
    passed = failed = 0

    def report(name, why):
        nonlocal passed, failed
        if why is None:
            passed += 1
            print("ok  %s" % name)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, why))
        sys.stdout.flush()

    with tempfile.TemporaryDirectory(prefix="tvmaf_bi_") as tmp:
        i = Inputs(tmp)
        i.build()
        # positive controls: the refusals below mean nothing if everything is refused
        F = ["-n", "--feature", "psnr", "--feature", "ciede"]
        psnr_keys = ["psnr_y", "psnr_cb", "psnr_cr"]
        report("control_y4m_pair", check_success(exe, tmp, "y4m", ["-r", i.y4m_ref, "-d", i.y4m_dis] + F,
                                                 2, psnr_keys + ["ciede2000"]))
        report("control_raw_pair", check_success(exe, tmp, "raw", raw_args(i.raw_ref, i.raw_dis, F),
                                                 2, psnr_keys + ["ciede2000"]))
        report("control_frame_cnt", check_success(exe, tmp, "frame_cnt",
                                                  raw_args(i.raw_ref, i.raw_3f, F + ["--frame_cnt", "2"]),
                                                  2, psnr_keys))
        report("control_mono_psnr", check_success(exe, tmp, "mono",
                                                  ["-r", i.y4m_mono_ref, "-d", i.y4m_mono_dis,
                                                   "-n", "--feature", "psnr"], 2, ["psnr_y"]))
        report("control_odd_size_y4m", check_success(exe, tmp, "odd",
                                                     ["-r", i.y4m_odd_ref, "-d", i.y4m_odd_dis] + F,
                                                     2, psnr_keys + ["ciede2000"]))
        # sample values above the declared depth (libvmaf does not check them) and a 1x1 frame:
        # score or refuse, never crash
        report("robust_10bit_samples_above_range",
               check_robust(exe, tmp, "ovf", ["-r", i.raw10_ref, "-d", i.raw10_ovf, "-w", str(W),
                                              "-h", str(H), "-p", "420", "-b", "10"] + F))
        report("robust_1x1_frame", check_robust(exe, tmp, "1x1",
                                                ["-r", i.y4m_1x1_ref, "-d", i.y4m_1x1_dis] + F))
        for case in cases(i, gpu_present):
            name, argv, kw = case[:3]
            stdin_data = None
            if len(case) > 3:  # "stdin:NAME": feed that generated input on stdin
                with open(getattr(i, "raw_" + case[3].split(":", 1)[1]), "rb") as f:
                    stdin_data = f.read()
            report(name, check_refusal(exe, tmp, name, argv, kw, stdin_data))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
