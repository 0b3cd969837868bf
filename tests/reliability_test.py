#!/usr/bin/env python3
"""Regression tests for the failures a fuzzing and fault campaign found (one case each).

Usage: tests/reliability_test.py TVMAF_EXE [REPROS_DIR]
(REPROS_DIR default: $TVMAF_SHARED/testdata/repros, else ../shared/testdata/repros beside the
source tree.)

Cases B to I are the second campaign's (../shared/testdata/repros/README.md): outputs that
would replace inputs or other outputs (B, G: every output flag against every input role,
refused with every file unchanged; /dev/null allowed everywhere), an interrupted batch (C: no
temporary left, the summary, death by the signal), a manifest with a byte-order mark (D),
threads that cannot start (H: the message names errno), report and plot text from bytes that
are not UTF-8 (I: the SVG parses as XML, the HTML is well-formed UTF-8). Case A (the FFmpeg
reader's memory) is ffmpeg_memory_test.py; case F (the Ray driver) is ray_batch_test.py.

Each case runs the CLI on a reproducer and checks the outcome: a clear one-line error and a
non-zero exit, or a correct result; never a crash or a sanitizer report, never data loss. A
case whose condition cannot be created here (a memory limit under AddressSanitizer) is reported
as "skip" and counted apart, never as passed.  Standard library only.
"""

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile

TIMEOUT_S = 120
CRASH_MARKERS = ("Sanitizer", "runtime error", "Segmentation fault", "core dumped",
                 "Assertion", "double free", "corrupted", "stack smashing")


def find_repros(argv):
    if len(argv) > 2:
        return argv[2]
    shared = os.environ.get("TVMAF_SHARED") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")
    return os.path.join(shared, "testdata", "repros")


class Run:
    def __init__(self, rc, out, err, maxrss_kb=None):
        self.rc, self.out, self.err, self.maxrss_kb = rc, out, err, maxrss_kb

    def lines(self):
        return [l for l in self.err.splitlines() if l.strip()]


def run(exe, args, cwd=None, stdin=None, stdout=subprocess.PIPE, preexec=None, env=None):
    """Runs exe; returns a Run with the child's own peak RSS (wait4)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.Popen([exe] + args, cwd=cwd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         stdout=stdout, stderr=subprocess.PIPE, preexec_fn=preexec, env=e)
    try:
        out, err = p.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return Run(None, b"", "timed out after %d s" % TIMEOUT_S)
    # communicate() reaped the child; its peak RSS is in RUSAGE_CHILDREN's maximum only when it
    # is the largest so far, so the memory case below uses run_rss() instead
    return Run(p.returncode, out or b"", err.decode("utf-8", "replace"))


def run_rss(exe, args, stdin_path=None):
    """Runs exe with stdin from a file and returns (rc, stderr, peak RSS in KiB) via wait4."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(w, 2)
            os.close(r)
            fd = os.open(stdin_path or os.devnull, os.O_RDONLY)
            os.dup2(fd, 0)
            nul = os.open(os.devnull, os.O_WRONLY)
            os.dup2(nul, 1)
            os.execv(exe, [exe] + args)
        finally:
            os._exit(127)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status, ru = os.wait4(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    return Run(rc, b"", b"".join(chunks).decode("utf-8", "replace"), ru.ru_maxrss)


def crash_reason(r):
    if r.rc is None:
        return r.err
    if r.rc < 0:
        return "killed by signal %d" % -r.rc
    if r.rc >= 128:
        return "exit code %d (crash?)" % r.rc
    for m in CRASH_MARKERS:
        if m in r.err:
            return "stderr contains %r: %s" % (m, r.err.strip()[:400])
    return None


def refused(r, *keywords):
    """None when r is a clean refusal: exit 1, one stderr line naming one of the keywords."""
    why = crash_reason(r)
    if why:
        return why
    if r.rc == 0:
        return "exit code 0 (expected a refusal); stderr %r" % r.err[:300]
    lines = r.lines()
    if len(lines) != 1:
        return "expected one error line, got %d: %r" % (len(lines), r.err[:400])
    if not any(k.lower() in lines[0].lower() for k in keywords):
        return "error %r names none of %r" % (lines[0], keywords)
    return None


def succeeded(r):
    why = crash_reason(r)
    if why:
        return why
    if r.rc != 0:
        return "exit code %d: %s" % (r.rc, r.err.strip()[:300])
    return None


def sanitized(exe):
    with open(exe, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"AddressSanitizer" in data


# ---------------------------------------------------------------- inputs

def y4m(w, h, cs, frames, sample_bytes=1, fill=None):
    """A Y4M of `frames` frames; fill(i) gives sample i (default: a position pattern)."""
    cw, ch = {"420jpeg": ((w + 1) // 2, (h + 1) // 2), "444": (w, h)}[cs.replace("p10", "")
                                                                      .replace("p16", "")]
    n = w * h + 2 * cw * ch
    maxv = 255 if sample_bytes == 1 else 65535
    out = [("YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n" % (w, h, cs)).encode()]
    for f in range(frames):
        vals = [(fill(i + f) if fill else (i * 7 + f * 13 + (i * i) % 11)) % (maxv + 1) for i in range(n)]
        out.append(b"FRAME\n")
        out.append(bytes(vals) if sample_bytes == 1 else
                   b"".join(v.to_bytes(2, "little") for v in vals))
    return b"".join(out)


def put(d, name, data):
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


# ---------------------------------------------------------------- cases

# vif on the 12-bit repro whose samples exceed the declared depth (the distorted one a fixed
# permutation of its samples): the values the tree gave before the signed-overflow fix on x86
# (the wrapped sums), %.17g. The fix must keep them.
VIF_OVERFLOW_BITS = [[0.634658932685852, 0.004766032565385103, 0.013632678426802158,
                      0.029597733169794083]]


def case_vif_overflow(exe, d, R):
    ref = os.path.join(R, "vif_overflow_160x160_12b.y4m")
    with open(ref, "rb") as f:
        data = f.read()
    hdr_end = data.index(b"\n") + 1
    body = bytearray(data[hdr_end:])
    # permute the samples of every frame (FRAME markers kept): v -> (v * 7 + 12345) mod 2^16
    pos, out = 0, bytearray()
    while pos < len(body):
        nl = body.index(b"\n", pos) + 1
        out += body[pos:nl]
        fb = 160 * 160 * 3 // 2 * 2
        for k in range(nl, nl + fb, 2):
            v = body[k] | body[k + 1] << 8
            v = (v * 7 + 12345) & 0xffff
            out += bytes((v & 0xff, v >> 8))
        pos = nl + fb
    dis = put(d, "vif_dis.y4m", data[:hdr_end] + bytes(out))
    o = os.path.join(d, "vif.json")
    r = run(exe, ["-r", ref, "-d", dis, "-n", "--feature", "vif", "--json", "--precision", "max",
                  "-o", o, "-q"])
    why = succeeded(r)
    if why:
        return why
    with open(o) as f:
        doc = json.load(f)
    got = [[fr["metrics"]["integer_vif_scale%d" % s] for s in range(4)] for fr in doc["frames"]]
    if got != VIF_OVERFLOW_BITS:
        return "scores %r differ from the pre-fix values %r" % (got, VIF_OVERFLOW_BITS)
    return None


def case_output_is_input(exe, d, R):
    ref = put(d, "oi_ref.y4m", y4m(16, 16, "420jpeg", 2))
    dis_data = y4m(16, 16, "420jpeg", 2, fill=lambda i: i * 3 + 1)
    dis = put(d, "oi_dis.y4m", dis_data)
    for out in (dis, os.path.join(d, ".", "oi_dis.y4m"), ref):
        r = run(exe, ["-r", ref, "-d", dis, "-n", "--feature", "psnr", "-o", out])
        why = refused(r, "input")
        if why:
            return "-o %s: %s" % (out, why)
    with open(dis, "rb") as f:  # stdin redirected from the file -o names
        r = run(exe, ["-r", ref, "-d", "-", "-n", "--feature", "psnr", "-o", dis], stdin=f)
    why = refused(r, "input")
    if why:
        return "-d - < FILE -o FILE: " + why
    with open(dis, "rb") as f:
        if f.read() != dis_data:
            return "the distorted input was modified"
    return None


def write_failure_args(d):
    ref = put(d, "wf_ref.y4m", y4m(64, 64, "420jpeg", 30))
    dis = put(d, "wf_dis.y4m", y4m(64, 64, "420jpeg", 30, fill=lambda i: i * 5 + 3))
    return ["-r", ref, "-d", dis, "-n", "--feature", "psnr", "--feature", "ciede", "--json"]


def leftovers(d, name):
    return [f for f in os.listdir(d) if f.startswith("." + name + ".tmp")]


def case_write_failure_keeps_file(exe, d, R):
    args = write_failure_args(d)
    keep = put(d, "keep.json", b"previous scores\n")
    os.chmod(keep, 0o640)

    def limit():  # file size limit of 2 KiB: the JSON of 30 frames is larger
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
    r = run(exe, args + ["-o", keep], preexec=limit)
    why = refused(r, "too large", "writing")
    if why:
        return "file size limit: " + why
    with open(keep, "rb") as f:
        if f.read() != b"previous scores\n":
            return "the existing output was modified by the failed write"
    if leftovers(d, "keep.json"):
        return "temporary file left behind: %r" % leftovers(d, "keep.json")
    r = run(exe, args + ["-o", "/dev/full"])
    why = refused(r, "no space")
    if why:
        return "/dev/full: " + why
    # and a successful run replaces the file, keeping its mode
    r = run(exe, args + ["-o", keep])
    why = succeeded(r)
    if why:
        return why
    with open(keep) as f:
        if len(json.load(f)["frames"]) != 30:
            return "the replaced output does not hold 30 frames"
    if stat.S_IMODE(os.stat(keep).st_mode) != 0o640:
        return "the replaced output lost its mode (0%o)" % stat.S_IMODE(os.stat(keep).st_mode)
    if leftovers(d, "keep.json"):
        return "temporary file left behind after success"
    # a symbolic link is written through, and stays a link
    link = os.path.join(d, "link.json")
    os.symlink("keep.json", link)
    put(d, "keep.json", b"previous scores\n")
    r = run(exe, args + ["-o", link])
    why = succeeded(r)
    if why:
        return "through a link: " + why
    if not os.path.islink(link):
        return "writing through a link replaced the link"
    with open(keep, "rb") as f:
        if f.read(1) != b"{":
            return "writing through a link did not replace the file it names"
    return None


def case_huge_y4m_claim(exe, d, R):
    msgs = []
    for cs, frame in (("444p16", 32768 * 32768 * 6), ("420jpeg", 32768 * 32768 * 3 // 2)):
        hdr = b"YUV4MPEG2 W32768 H32768 F25:1 Ip A1:1 C" + cs.encode() + b"\nFRAME\n"
        p = put(d, "huge_%s.y4m" % cs, hdr + b"\x80" * (130 - len(hdr)))
        # the default limit refuses the claim before any picture is allocated
        r = run_rss(exe, ["-r", p, "-d", p, "-n", "--feature", "psnr", "-o", os.devnull])
        why = refused(r, "max-memory")
        if why:
            return "%s, default limit: %s" % (cs, why)
        # above the limit the data decides: a file, and the same bytes on a pipe
        for stdin in (None, p):
            args = ["-r", "-" if stdin else p, "-d", p, "-n", "--feature", "psnr",
                    "--max-memory", "1024G", "-o", os.devnull]
            r = run_rss(exe, args, stdin_path=stdin)
            why = refused(r, "truncated")
            if why:
                return "%s%s: %s" % (cs, " on stdin" if stdin else "", why)
            if r.maxrss_kb > 400 * 1024:
                return "%s%s: peak memory %d MiB for a 130-byte input (frame %d MiB)" % (
                    cs, " on stdin" if stdin else "", r.maxrss_kb // 1024, frame >> 20)
            msgs.append(r.maxrss_kb)
    r = run(exe, ["-r", p, "-d", p, "-n", "--feature", "psnr", "--max-memory", "lots"])
    return refused(r, "max-memory")


def case_model_writes_files(exe, d, R):
    inp = put(d, "hm.y4m", y4m(232, 232, "420jpeg", 1))  # cambi scores from 216 up
    r = run(exe, ["-r", inp, "-d", inp, "-m", "path=" + os.path.join(R, "heatmaps_path_model.json"),
                  "-o", os.devnull], cwd=d)
    why = refused(r, "heatmaps_path")
    if why:
        return why
    if os.path.exists(os.path.join(d, "evil_dir")):
        return "the model created a directory"
    return None


def case_degenerate_models(exe, d, R):
    inp = put(d, "dm.y4m", y4m(64, 64, "420jpeg", 1))
    for name in ("slope0.json", "b_tiny_slope.json"):
        r = run(exe, ["-r", inp, "-d", inp, "-m", "path=" + os.path.join(R, name), "-o", os.devnull])
        why = refused(r, "slopes[0]")
        if why:
            return "%s: %s" % (name, why)
    return None


def case_nonfinite(exe, d, R):
    r = run(exe, ["-r", os.path.join(R, "psnr_hvs_97x1.ref.y4m"), "-d",
                  os.path.join(R, "psnr_hvs_97x1.dis.y4m"), "-n", "--feature", "psnr_hvs",
                  "-o", os.path.join(d, "phvs.json")])
    why = refused(r, "psnr_hvs")
    if why:
        return "psnr_hvs 97x1: " + why
    # the smallest accepted: 16x16 4:2:0 (8x8 chroma), finite scores
    a = put(d, "p16a.y4m", y4m(16, 16, "420jpeg", 1))
    b = put(d, "p16b.y4m", y4m(16, 16, "420jpeg", 1, fill=lambda i: i * 3 + 1))
    o = os.path.join(d, "p16.json")
    r = run(exe, ["-r", a, "-d", b, "-n", "--feature", "psnr_hvs", "--json", "-o", o, "-q"])
    why = succeeded(r)
    if why:
        return "psnr_hvs 16x16: " + why
    with open(o) as f:
        m = json.load(f)["frames"][0]["metrics"]
    if not all(isinstance(m.get(k), float) for k in ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs")):
        return "psnr_hvs 16x16 gives %r" % m
    # ciede on identical frames is +inf, as in the reference: kept, and said once
    r = run(exe, ["-r", a, "-d", a, "-n", "--feature", "ciede", "--json", "-o", os.devnull, "-q"])
    why = succeeded(r)
    if why:
        return "ciede identical: " + why
    lines = r.lines()
    if len(lines) != 1 or "ciede2000" not in lines[0] or "infinite" not in lines[0]:
        return "ciede identical: expected one warning naming ciede2000, got %r" % r.err
    # float_ms_ssim of a picture against its negative: the scale-0 structure term is negative
    # and pow() of it NaN, as in the reference: kept, and said once
    side = 192
    n = side * side * 3 // 2
    noise = bytes((i * 1103515245 + 12345) >> 16 & 255 for i in range(n))
    hdr = b"YUV4MPEG2 W%d H%d F25:1 C420jpeg\nFRAME\n" % (side, side)
    a = put(d, "ms_a.y4m", hdr + noise)
    b = put(d, "ms_b.y4m", hdr + bytes(255 - v for v in noise))
    r = run(exe, ["-r", a, "-d", b, "-n", "--feature", "float_ms_ssim", "--json", "-o", os.devnull,
                  "-q"])
    why = succeeded(r)
    if why:
        return "float_ms_ssim negative: " + why
    lines = r.lines()
    if len(lines) != 1 or "float_ms_ssim" not in lines[0] or "NaN" not in lines[0]:
        return "float_ms_ssim negative: expected one warning naming it, got %r" % r.err
    return None


def case_out_of_memory(exe, d, R):
    if sanitized(exe):
        return "skip: an address-space limit cannot be set under AddressSanitizer"
    w, h = 3840, 2160
    big = put(d, "big.y4m", b"YUV4MPEG2 W%d H%d F25:1 C420jpeg\nFRAME\n" % (w, h) + bytes(w * h * 3 // 2))

    # The address space the program needs to load (its shared libraries: FFmpeg's
    # are large) and score this frame with psnr, found by steps of 25 MiB; with
    # that much plus 25 MiB the frames fit but float_vif's buffers (several
    # float planes of 33 MB) do not.
    def with_limit(mb):
        return lambda: resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    base = None
    for mb in range(100, 2000, 25):
        r = run(exe, ["-r", big, "-d", big, "-n", "--feature", "psnr", "-o", os.devnull],
                preexec=with_limit(mb))
        if r.rc == 0:
            base = mb
            break
    if base is None:
        return "FAIL: psnr on one 3840x2160 frame did not run under any limit up to 2 GiB"
    r = run(exe, ["-r", big, "-d", big, "-n", "--feature", "float_vif", "-o", os.devnull],
            preexec=with_limit(base + 25))
    return refused(r, "out of memory")


def case_broken_pipe(exe, d, R):
    a = put(d, "bp_a.y4m", y4m(16, 16, "420jpeg", 2))
    rd, wr = os.pipe()
    os.close(rd)  # nobody reads stdout
    try:
        r = run(exe, ["-r", a, "-d", a, "-n", "--feature", "psnr", "--json", "-o", "-"],
                stdout=wr)
    finally:
        os.close(wr)
    return refused(r, "broken pipe")


def case_model_arg_leak(exe, d, R):
    # every early exit after -m (LeakSanitizer reports any copy left behind in an ASan build)
    a = put(d, "lk.y4m", y4m(16, 16, "420jpeg", 1))
    for args, kw in ((["-m", "version=vmaf_v0.6.1", "--bogus"], "bogus"),
                     (["-m", "version=vmaf_v0.6.1", "-m", "path=x:oops"], "oops"),
                     (["-m", "version=vmaf_v0.6.1", "--threads", "x"], "threads"),
                     (["-m", "version=vmaf_v0.6.1:vif.x=1:name=a", "-m", "version=v:name=a"],
                      "named")):
        r = run(exe, ["-r", a, "-d", a] + args)
        why = refused(r, kw)
        if why:
            return "%r: %s" % (args, why)
    r = run(exe, ["-m", "version=vmaf_v0.6.1", "--version"])
    return succeeded(r)


def snapshot(paths):
    """Bytes and mtime of each path (None where there is no file)."""
    out = {}
    for p in paths:
        try:
            with open(p, "rb") as f:
                out[p] = (f.read(), os.stat(p).st_mtime_ns)
        except OSError:
            out[p] = None
    return out


def changed(before):
    after = snapshot(before)
    return [p for p in before if before[p] != after[p]]


def case_outputs_never_replace_inputs(exe, d, R):
    """Every output flag against every input role and every other output, naming one regular
    file: refused (exit != 0, a message naming both), every file unchanged; /dev/null works
    everywhere."""
    w = os.path.join(d, "oi")
    os.makedirs(w, exist_ok=True)
    ref = put(w, "ref.y4m", y4m(16, 16, "420jpeg", 2))
    dis = put(w, "dis.y4m", y4m(16, 16, "420jpeg", 2, fill=lambda i: i * 3 + 1))
    dis2 = put(w, "1.json", y4m(16, 16, "420jpeg", 2, fill=lambda i: i * 5 + 2))
    odir_ref = put(w, "dis.xml", y4m(16, 16, "420jpeg", 2))  # --output-dir's name for dis.y4m
    prev = put(w, "prev.json", b"previous scores\n")
    ref2 = put(w, "2.y4m", y4m(16, 16, "420jpeg", 2))  # a ladder's "%d.y4m" for pair 2
    man = os.path.join(w, "m.csv")
    feat = ["-n", "--feature", "psnr"]
    cases = [
        ("-o = the reference", ["-r", ref, "-d", dis, "-o", ref]),
        ("-o = the distorted", ["-r", ref, "-d", dis, "-o", dis]),
        ("--report = the reference", ["-r", ref, "-d", dis, "--report", ref]),
        ("--report = the distorted", ["-r", ref, "-d", dis, "--report", dis]),
        ("--plot = the reference", ["-r", ref, "-d", dis, "--plot", ref]),
        ("--report = -o", ["-r", ref, "-d", dis, "--json", "-o", prev, "--report", prev]),
        ("--plot = -o", ["-r", ref, "-d", dis, "--json", "-o", prev, "--plot", prev]),
        ("--report = --plot", ["-r", ref, "-d", dis, "--report", prev, "--plot", prev]),
        ("ladder pattern = another pair's input", ["-r", ref, "-d", dis, "-d", dis2, "--json",
                                                   "-o", os.path.join(w, "%d.json")]),
        ("ladder pattern = the reference", ["-r", ref2, "-d", dis, "-d", dis2,
                                            "-o", os.path.join(w, "%d.y4m")]),
        ("--output-dir name = the reference", ["-r", odir_ref, "-d", dis, "--output-dir", w]),
    ]
    files = [ref, dis, dis2, odir_ref, prev, ref2]
    for name, args in cases:
        before = snapshot(files)
        r = run(exe, args + feat)
        why = crash_reason(r) or (None if r.rc != 0 and "same file" in r.err else
                                  "exit %d, stderr %r" % (r.rc, r.err[:300]))
        if why or changed(before):
            return "%s: %s" % (name, why or "changed %r" % changed(before))
    with open(dis, "rb") as f:  # stdin is the file -o names
        before = snapshot(files)
        r = run(exe, ["-r", ref, "-d", "-", "-o", dis] + feat, stdin=f)
    if r.rc == 0 or changed(before):
        return "-d - < FILE -o FILE: exit %d, changed %r" % (r.rc, changed(before))
    # manifests: a row's output against every row's inputs, the manifest and other outputs
    rows = {
        "a row's output = a later row's input": "ref,dis,output\n%s,%s,%s\n%s,%s,out2.json\n"
        % (ref, dis, dis2, ref, dis2),
        "a row's output = its reference": "ref,dis,output\n%s,%s,%s\n" % (ref, dis, ref),
        "a row's output = the manifest": "ref,dis,output\n%s,%s,%s\n" % (ref, dis, man),
        "two rows, one output": "ref,dis,output\n%s,%s,%s\n%s,%s,%s\n"
        % (ref, dis, os.path.join(w, "same.json"), ref, dis2, os.path.join(".", w, "same.json")),
    }
    for name, text in rows.items():
        put(w, "m.csv", text.encode())
        before = snapshot(files + [man])
        r = run(exe, ["--batch", man, "--jobs", "1"] + feat)
        if r.rc == 0 or crash_reason(r) or changed(before) or "m.csv:" not in r.err:
            return "%s: exit %d, changed %r, %r" % (name, r.rc, changed(before), r.err[:300])
    put(w, "m.csv", ("ref,dis\n%s,%s\n" % (ref, dis)).encode())
    before = snapshot(files + [man])
    r = run(exe, ["--batch", man, "-o", man] + feat)
    if r.rc == 0 or changed(before):
        return "--batch M -o M: exit %d, changed %r" % (r.rc, changed(before))
    # /dev/null is no file of the run: every output may be it
    put(w, "m.csv", ("ref,dis,output\n%s,%s,/dev/null\n%s,%s,/dev/null\n"
                     % (ref, dis, ref, dis2)).encode())
    for args in (["-r", ref, "-d", dis, "-o", "/dev/null", "--report", "/dev/null",
                  "--plot", "/dev/null"],
                 ["-r", ref, "-d", dis, "-d", dis2, "-o", "/dev/null"],
                 ["--batch", man]):
        r = run(exe, args + feat)
        why = succeeded(r)
        if why:
            return "/dev/null: %r: %s" % (args, why)
    return None


def case_interrupted_batch(exe, d, R):
    """SIGTERM while a batch runs: no temporary left, the summary printed, the signal's status.
    The last row reads a FIFO nobody writes, so the batch is still running, whatever the
    machine's speed, once the other rows' outputs exist."""
    w = os.path.join(d, "sig")
    os.makedirs(w, exist_ok=True)
    ref = put(w, "ref.y4m", y4m(16, 16, "420jpeg", 2))
    fifo = os.path.join(w, "never.y4m")
    os.mkfifo(fifo)
    rows = ["ref,dis,output"] + ["%s,%s,%s" % (ref, ref, os.path.join(w, "o%d.json" % i))
                                 for i in range(6)] + ["%s,%s,%s" % (ref, fifo, os.path.join(w, "last.json"))]
    man = put(w, "m.csv", ("\n".join(rows) + "\n").encode())
    p = subprocess.Popen([exe, "--batch", man, "--jobs", "2", "-n", "--feature", "psnr", "--json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    waited = 0.0
    while not all(os.path.exists(os.path.join(w, "o%d.json" % i)) for i in range(6)):
        if p.poll() is not None or waited > TIMEOUT_S:
            p.kill()
            return "the batch ended (%r) before the FIFO row" % p.returncode
        import time
        time.sleep(0.05)
        waited += 0.05
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        return "still running after SIGTERM"
    err = err.decode("utf-8", "replace")
    temps = [f for f in os.listdir(w) if ".tmp-" in f]
    if p.returncode != -signal.SIGTERM:
        return "exit status %r, not death by SIGTERM; %r" % (p.returncode, err)
    if temps:
        return "temporaries left: %r" % temps
    if "interrupted by SIGTERM" not in err or "6 scored" not in err or "1 not scored" not in err:
        return "no summary: %r" % err
    return None


def case_manifest_bom(exe, d, R):
    w = os.path.join(d, "bom")
    os.makedirs(w, exist_ok=True)
    ref = put(w, "ref.y4m", y4m(16, 16, "420jpeg", 2))
    out = os.path.join(w, "o.json")
    man = put(w, "m.csv", b"\xef\xbb\xbfref,dis,output\n" + ("%s,%s,%s\n" % (ref, ref, out)).encode())
    r = run(exe, ["--batch", man, "-n", "--feature", "psnr", "--json"])
    why = succeeded(r)
    if why or not os.path.exists(out):
        return "a manifest with a byte-order mark: %s" % (why or "no output")
    man = put(w, "z.csv", b"ref,\xe2\x80\x8bdis\n")
    r = run(exe, ["--batch", man, "-n", "--feature", "psnr"])
    why = refused(r, "\\u200B")
    return "an invisible character is shown escaped: " + why if why else None


def case_thread_errno(exe, d, R):
    """Threads that cannot start: the message names pthread_create's reason, no hang."""
    if sanitized(exe):
        return "skip: an address-space limit under AddressSanitizer"
    ref = put(d, "th.y4m", y4m(64, 64, "420jpeg", 2))

    def limit():  # room for the process, not for a thousand 8 MiB thread stacks
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    r = run(exe, ["-r", ref, "-d", ref, "-n", "--feature", "psnr", "--threads", "1000",
                  "-o", "/dev/null"], preexec=limit)
    return refused(r, "resource temporarily unavailable", "cannot allocate memory")


class StrictHTML:
    """A well-formedness check of an HTML page: UTF-8 throughout, no control characters, every
    element closed in order (void elements aside). Returns the first problem, or None."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr", "path", "rect", "line", "circle", "polyline", "text", "stop", "use"}

    @staticmethod
    def check(data):
        import html.parser
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return "not UTF-8: %s" % e
        bad = [c for c in text if (ord(c) < 0x20 and c not in "\t\n\r") or ord(c) == 0x7f]
        if bad:
            return "control characters %r" % bad[:3]
        stack, problems = [], []

        class P(html.parser.HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag not in StrictHTML.VOID:
                    stack.append(tag)

            def handle_startendtag(self, tag, attrs):
                pass

            def handle_endtag(self, tag):
                if tag in StrictHTML.VOID and (not stack or stack[-1] != tag):
                    return
                if not stack or stack[-1] != tag:
                    problems.append("</%s> closes %r" % (tag, stack[-1:] or None))
                else:
                    stack.pop()
        P().feed(text)
        if problems:
            return problems[0]
        return "unclosed %r" % stack if stack else None


def case_report_names_escaped(exe, d, R):
    """A model name with a control byte and a byte that is not UTF-8: the SVG parses as XML,
    the HTML is well-formed UTF-8."""
    import xml.etree.ElementTree as ET
    ref = put(d, "rn.y4m", y4m(64, 64, "420jpeg", 2))
    svg, page = os.path.join(d, "rn.svg"), os.path.join(d, "rn.html")
    r = run(exe, ["-r", ref, "-d", ref, "-m", b"version=vmaf_v0.6.1:name=v\x01\xff<&",
                  "--plot", svg, "--report", page, "-q"])
    why = succeeded(r)
    if why:
        return why
    try:
        ET.parse(svg)
    except ET.ParseError as e:
        return "the SVG is not well-formed XML: %s" % e
    with open(page, "rb") as f:
        why = StrictHTML.check(f.read())
    return "the HTML: " + why if why else None


CASES = [
    ("1_vif_samples_above_depth", case_vif_overflow),
    ("2_output_names_an_input", case_output_is_input),
    ("3_write_failure_keeps_existing_output", case_write_failure_keeps_file),
    ("4_huge_y4m_claim_memory", case_huge_y4m_claim),
    ("5_model_option_writing_files", case_model_writes_files),
    ("6_degenerate_model_slopes", case_degenerate_models),
    ("7_nan_inf_scores", case_nonfinite),
    ("8_out_of_memory_named", case_out_of_memory),
    ("9_broken_pipe", case_broken_pipe),
    ("9_model_arg_leak", case_model_arg_leak),
    ("B_G_outputs_never_replace_inputs", case_outputs_never_replace_inputs),
    ("C_interrupted_batch", case_interrupted_batch),
    ("D_manifest_byte_order_mark", case_manifest_bom),
    ("H_thread_failure_names_errno", case_thread_errno),
    ("I_report_names_escaped", case_report_names_escaped),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    exe = os.path.abspath(sys.argv[1])
    R = os.path.abspath(find_repros(sys.argv))
    if not os.path.isdir(R):
        print("FAIL setup: no reproducers at %s (set TVMAF_SHARED)" % R)
        print("0 passed, 1 failed")
        return 1
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory(prefix="tvmaf_rel_") as d:
        for name, fn in CASES:
            try:
                why = fn(exe, d, R)
            except Exception as e:  # a broken case is a failure, not a pass
                why = "test error: %r" % e
            if why is None:
                passed += 1
                print("ok   %s" % name)
            elif why.startswith("skip:"):
                skipped += 1
                print("skip %s (%s)" % (name, why[5:].strip()))
            else:
                failed += 1
                print("FAIL %s: %s" % (name, why))
            sys.stdout.flush()
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
