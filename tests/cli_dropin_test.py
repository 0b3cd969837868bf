#!/usr/bin/env python3
"""CLI behaviours where tvmaf follows libvmaf's `vmaf` (issue 19), and its help output.

Usage: tests/cli_dropin_test.py TVMAF_EXE

- inputs of different lengths: the common frames are scored (exit 0), and stderr carries libvmaf's
  line '"SHORTER" ended before "LONGER".'; the scores equal a --frame_cnt run bit for bit; from
  files and from stdin (--strict-frame-count keeps the error: see bad_input_test.py).
- -n without --feature: exit 0 and the output libvmaf 3.2.0 (f85a8536) writes in each format (taken
  from its `vmaf`; only the version differs).
- -w/-h/-p/-b given with two Y4M inputs: agreeing values are ignored with one warning (a
  contradicting value is refused: bad_input_test.py); with a raw input beside a Y4M one they are
  needed and no warning is printed.
- samples above the declared depth: one warning line, exit 0; none for clean input.
- the progress line (stderr on a terminal) ends with the number of frames scored.
- --feature NAME=help, --list-features -v, the unknown-option message, --help's examples.

Inputs are generated in a temporary directory (16x8 frames). Standard library only.
"""

import json
import os
import pty
import re
import subprocess
import sys
import tempfile

W, H = 16, 8
TIMEOUT_S = 60


def frame(seed, bits=8, high_at=None):
    """One 4:2:0 frame; with high_at, sample high_at is set above the depth (2^bits)."""
    n = W * H * 3 // 2
    maxv = (1 << bits) - 1
    vals = [((i * 7 + seed * 13 + (i * i) % 11) * (maxv // 255 or 1)) % (maxv + 1) for i in range(n)]
    if high_at is not None:
        vals[high_at] = 1 << bits
    if bits == 8:
        return bytes(vals)
    return b"".join(v.to_bytes(2, "little") for v in vals)


def raw(frames, seed, bits=8, high_frame=None):
    return b"".join(frame(seed + f, bits, 5 if f == high_frame else None) for f in range(frames))


def y4m(frames, seed):
    out = [b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (W, H)]
    for f in range(frames):
        out += [b"FRAME\n", frame(seed + f)]
    return b"".join(out)


def run(exe, argv, stdin_data=b""):
    p = subprocess.run([exe] + argv, input=stdin_data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=TIMEOUT_S)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def run_tty(exe, argv):
    """Runs with stderr on a pseudo-terminal; returns (exit code, what it wrote there)."""
    master, slave = os.openpty()
    p = subprocess.Popen([exe] + argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:  # EIO: the other side is closed
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    return p.wait(timeout=TIMEOUT_S), b"".join(chunks).decode("utf-8", "replace")


def lines(err):
    return [l for l in err.splitlines() if l.strip()]


# libvmaf's output for -n without --feature, per format (version line aside)
EMPTY = {
    "xml": '<VMAF version="V">\n  <params qualityWidth="16" qualityHeight="8" />\n'
           '  <fyi fps="inf" />\n  <frames>\n  </frames>\n  <pooled_metrics>\n'
           '  </pooled_metrics>\n  <aggregate_metrics />\n</VMAF>\n',
    "json": '{\n  "version": "V",\n  "fps": null,\n  "frames": [\n  ],\n  "pooled_metrics": {\n'
            '  },\n  "aggregate_metrics": {\n  }\n}\n',
    "csv": "Frame,\n",
    "sub": "",
}


class T:
    def __init__(self, exe, d):
        self.exe, self.d = exe, d
        self.passed = self.failed = 0

    def put(self, name, data):
        p = os.path.join(self.d, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def check(self, name, why):
        if why is None:
            self.passed += 1
            print("ok  %s" % name)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, why))
        sys.stdout.flush()

    def json_run(self, argv, stdin_data=b""):
        """(exit code, stderr, parsed output or None)."""
        out = os.path.join(self.d, "out.json")
        if os.path.exists(out):
            os.unlink(out)
        rc, _, err = run(self.exe, argv + ["--json", "-o", out, "--precision", "max", "-q"], stdin_data)
        doc = None
        if rc == 0:
            with open(out) as f:
                doc = json.load(f)
        return rc, err, doc


def raw_args(ref, dis, extra=()):
    return ["-r", ref, "-d", dis, "-w", str(W), "-h", str(H), "-p", "420", "-b", "8"] + list(extra)


def test_frame_counts(t):
    F = ["-n", "--feature", "psnr"]
    ref5 = t.put("ref5.yuv", raw(5, 0))
    dis3 = t.put("dis3.yuv", raw(3, 7))
    rc, err, want = t.json_run(raw_args(ref5, dis3, F + ["--frame_cnt", "3"]))
    if rc != 0 or len(want["frames"]) != 3:
        t.check("frame_count_control", "the --frame_cnt 3 run failed: %r" % err)
        return
    t.check("frame_count_control", None)
    data = {ref5: open(ref5, "rb").read(), dis3: open(dis3, "rb").read()}
    cases = [  # name, ref, dis, which is read from stdin
        ("dis_shorter", ref5, dis3, None),
        ("ref_shorter", dis3, ref5, None),
        ("dis_shorter_stdin_ref", ref5, dis3, "r"),
        ("dis_shorter_on_stdin", ref5, dis3, "d"),
    ]
    for name, r, d, pipe in cases:
        stdin_data = b""
        ra, da = r, d
        if pipe == "r":
            ra, stdin_data = "-", data[r]
        if pipe == "d":
            da, stdin_data = "-", data[d]
        rc, err, doc = t.json_run(raw_args(ra, da, F), stdin_data)
        shorter = da if d == dis3 else ra
        longer = ra if d == dis3 else da
        expect = '"%s" ended before "%s".' % (shorter, longer)
        if rc != 0:
            why = "exit code %d: %r" % (rc, err)
        elif lines(err) != [expect]:
            why = "stderr %r, expected the single line %r" % (err, expect)
        elif len(doc["frames"]) != 3:
            why = "%d frames scored, expected the 3 common ones" % len(doc["frames"])
        else:
            # the same bits as scoring the common frames on purpose (the pair is swapped for ref_shorter)
            ok = True
            if name != "ref_shorter":
                ok = doc["frames"] == want["frames"] and doc["pooled_metrics"] == want["pooled_metrics"]
            why = None if ok else "scores differ from the --frame_cnt 3 run"
        t.check("frame_count_" + name, why)


def test_no_feature(t):
    ref = t.put("nf_ref.yuv", raw(2, 0))
    dis = t.put("nf_dis.yuv", raw(2, 5))
    for fmt, want in EMPTY.items():
        out = os.path.join(t.d, "empty." + fmt)
        rc, _, err = run(t.exe, raw_args(ref, dis, ["-n", "--" + fmt, "-o", out, "-q"]))
        why = None
        if rc != 0:
            why = "exit code %d: %r" % (rc, err)
        elif err.strip():
            why = "unexpected stderr %r" % err
        else:
            got = open(out).read()
            got = re.sub(r'version="[^"]*"', 'version="V"', got)
            got = re.sub(r'"version": "[^"]*"', '"version": "V"', got)
            if got != want:
                why = "output %r, expected libvmaf's %r" % (got, want)
        t.check("no_feature_" + fmt, why)


def test_y4m_flags(t):
    ref = t.put("ref.y4m", y4m(2, 0))
    dis = t.put("dis.y4m", y4m(2, 5))
    rawdis = t.put("dis_raw.yuv", raw(2, 5))
    F = ["-n", "--feature", "psnr"]
    rc, err, want = t.json_run(["-r", ref, "-d", dis] + F)
    t.check("y4m_control", None if rc == 0 and not err.strip() else "exit %d, stderr %r" % (rc, err))
    rc, err, doc = t.json_run(["-r", ref, "-d", dis, "-w", str(W), "-h", str(H)] + F)
    el = lines(err)
    why = None
    if rc != 0:
        why = "exit code %d: %r" % (rc, err)
    elif len(el) != 1 or "warning" not in el[0] or "Y4M" not in el[0]:
        why = "expected one warning naming Y4M, got %r" % err
    elif doc["frames"] != want["frames"]:
        why = "scores differ from the run without -w/-h"
    t.check("y4m_agreeing_flags_warn", why)
    # a raw input beside a Y4M one needs the values: no warning
    rc, err, doc = t.json_run(raw_args(ref, rawdis, F))
    t.check("y4m_beside_raw_no_warning",
            None if rc == 0 and not err.strip() and doc["frames"] == want["frames"]
            else "exit %d, stderr %r" % (rc, err))


def test_depth_warning(t):
    F = ["-n", "--feature", "psnr"]
    ref = t.put("ref10.yuv", raw(20, 0, 10))
    clean = t.put("dis10.yuv", raw(20, 5, 10))
    high0 = t.put("dis10_high0.yuv", raw(20, 5, 10, high_frame=0))
    high16 = t.put("dis10_high16.yuv", raw(20, 5, 10, high_frame=16))
    a10 = ["-w", str(W), "-h", str(H), "-p", "420", "-b", "10"]
    rc, err, _ = t.json_run(["-r", ref, "-d", clean] + a10 + F)
    t.check("depth_clean_no_warning", None if rc == 0 and not err.strip() else "exit %d, stderr %r" % (rc, err))
    for name, path, at in (("frame0", high0, 0), ("frame16", high16, 16)):
        rc, err, doc = t.json_run(["-r", ref, "-d", path] + a10 + F)
        el = lines(err)
        why = None
        if rc != 0:
            why = "exit code %d: %r" % (rc, err)
        elif len(el) != 1 or "warning" not in el[0] or "1023" not in el[0] or path not in el[0] \
                or ("frame %d)" % at) not in el[0]:
            why = "expected one warning naming the input, 1023 and frame %d, got %r" % (at, err)
        elif len(doc["frames"]) != 20:
            why = "%d frames scored" % len(doc["frames"])
        t.check("depth_warning_" + name, why)
    # 8-bit data read as 10-bit (the case that overflows vif's integers): both inputs named, once
    ref8 = t.put("ref8.yuv", raw(4, 0))
    dis8 = t.put("dis8.yuv", raw(4, 5))
    rc, err, _ = t.json_run(["-r", ref8, "-d", dis8] + a10 + F)
    el = lines(err)
    t.check("depth_warning_8bit_as_10bit_once",
            None if rc == 0 and len(el) == 1 and ref8 in el[0] and dis8 in el[0]
            else "exit %d, stderr %r" % (rc, err))


def test_progress(t):
    ref = t.put("pg_ref.yuv", raw(13, 0))
    dis = t.put("pg_dis.yuv", raw(13, 5))
    out = os.path.join(t.d, "pg.json")
    rc, err = run_tty(t.exe, raw_args(ref, dis, ["-n", "--feature", "psnr", "--json", "-o", out]))
    updates = [u for u in re.split(r"[\r\n]", err) if "FPS" in u]
    why = None
    if rc != 0:
        why = "exit code %d: %r" % (rc, err)
    elif not updates or not updates[-1].startswith("13 frames "):
        why = "last progress update %r, expected it to count 13 frames" % (updates[-1:] or err)
    t.check("progress_line_final_count", why)


def test_help(t):
    rc, out, err = run(t.exe, ["--feature", "psnr=help"])
    why = None
    if rc != 0:
        why = "exit code %d: %r" % (rc, err)
    else:
        for name, typ, default in (("enable_chroma", "bool", "true"), ("enable_mse", "bool", "false"),
                                   ("min_sse", "double", "0")):
            if not re.search(r"^\s+%s\s+%s\s+default %s\b" % (name, typ, default), out, re.M):
                why = "option %s (%s, default %s) not listed: %r" % (name, typ, default, out)
                break
    t.check("feature_help_psnr", why)
    rc, out, err = run(t.exe, ["--feature", "adm=help"])
    t.check("feature_help_adm_range",
            None if rc == 0 and re.search(r"adm_enhn_gain_limit\s+double\s+default 100, range \[1, 100\]",
                                          out) else "exit %d: %r" % (rc, out + err))
    rc, out, err = run(t.exe, ["--feature", "nosuchfeature=help"])
    t.check("feature_help_unknown", None if rc != 0 and len(lines(err)) == 1 and "nosuchfeature" in err
            else "exit %d, stderr %r" % (rc, err))
    rc, out, err = run(t.exe, ["--list-features", "-v"])
    rc2, plain, _ = run(t.exe, ["--list-features"])
    names = [l.split()[0] for l in plain.splitlines() if l.strip()]
    why = None
    if rc != 0 or rc2 != 0 or not names:
        why = "exit codes %d, %d" % (rc, rc2)
    else:
        for n in names:
            if not re.search(r"^%s\s" % re.escape(n), out, re.M):
                why = "feature %s missing from --list-features -v" % n
        if why is None and not re.search(r"^\s+vif_enhn_gain_limit\s+double\s+default 100", out, re.M):
            why = "vif's options not listed by --list-features -v"
    t.check("list_features_verbose", why)
    ref = t.put("h_ref.yuv", raw(1, 0))
    rc, _, err = run(t.exe, raw_args(ref, ref, ["-n", "--feature", "psnr=bogus=1"]))
    t.check("unknown_option_names_valid_ones",
            None if rc != 0 and len(lines(err)) == 1 and "bogus" in err and "enable_mse" in err
            and "min_sse" in err else "exit %d, stderr %r" % (rc, err))
    rc, _, err = run(t.exe, raw_args(ref, ref, ["-n", "--feature", "ciede=bogus=1"]))
    t.check("unknown_option_of_optionless_feature",
            None if rc != 0 and len(lines(err)) == 1 and "no options" in err else "stderr %r" % err)
    rc, out, _ = run(t.exe, ["--help"])
    t.check("help_examples", None if rc == 0 and "Examples:" in out and "yuv4mpegpipe" in out
            and "<(ffmpeg" in out and "scale=" in out else "--help lacks the examples")
    rc, out, _ = run(t.exe, ["-v"])
    t.check("version_still_works", None if rc == 0 and out.startswith("tvmaf ") else "-v printed %r" % out)


def main():
    exe = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="tvmaf_cli_") as d:
        t = T(exe, d)
        for f in (test_frame_counts, test_no_feature, test_y4m_flags, test_depth_warning,
                  test_progress, test_help):
            try:
                f(t)
            except Exception as e:  # a crash of the test is a failure, not a skip
                t.check(f.__name__, "raised %r" % e)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
