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

Deliberate departures from libvmaf's `vmaf` (docs/cli.md), where its behaviour is a trap:
- the pooled model scores go to stdout whether or not anything is a terminal (libvmaf prints them
  to stderr, and only on a terminal); -q silences them; with -o - they go to stderr, the
  per-frame scores alone on stdout;
- -o FILE without a format flag takes the format from the extension (.json, .csv, .sub, .xml;
  any other name: XML); a format flag wins over the extension; two different flags are an error;
- -w/-h/-p/-b with an encoded file: one line naming the flags to drop; --ref-format/--dis-format
  make one input raw, so a raw reference pairs with an encoded distorted stream, with the bits of
  the encoded pair; -h without a value points to --help;
- --list-models lists the built-in models and those on TVMAF_MODEL_PATH;
- a pair of different depths says how to convert (one line, naming ffmpeg's -pix_fmt);
- the default thread count is the cores this process may use (the report's settings show it).

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
            and "--scale bicubic" in out and "--ref-format" in out else "--help lacks the examples")
    rc, out, _ = run(t.exe, ["-v"])
    t.check("version_still_works", None if rc == 0 and out.startswith("tvmaf ") else "-v printed %r" % out)


def pattern_frames(frames, w, h, seed):
    """8-bit 4:2:0 frames of a smooth moving pattern, large enough for the default model."""
    out = bytearray()
    for f in range(frames):
        for y in range(h):
            out += bytes(((x * 3 + y * 5 + (x * y) // 7 + 4 * f + seed) % 200) + 16 for x in range(w))
        out += bytes([128]) * ((w // 2) * (h // 2) * 2)
    return bytes(out)


def shared_streams():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shared = os.environ.get("TVMAF_SHARED", os.path.join(root, "..", "shared"))
    return os.path.join(shared, "testdata", "streams")


def test_pooled_stdout(t):
    w, h = 176, 144
    ref = t.put("p_ref.yuv", pattern_frames(3, w, h, 0))
    dis = t.put("p_dis.yuv", pattern_frames(3, w, h, 9))
    base = ["-r", ref, "-d", dis, "-w", str(w), "-h", str(h), "-p", "420", "-b", "8"]
    rc, out, err = run(t.exe, base)
    t.check("pooled_on_stdout_not_a_terminal",
            None if rc == 0 and re.fullmatch(r"vmaf_v0\.6\.1: \d+\.\d{6}\n", out)
            else "exit %d, stdout %r, stderr %r" % (rc, out, err))
    rc, out, err = run(t.exe, base + ["-q"])
    t.check("pooled_quiet", None if rc == 0 and out == "" and err == "" else
            "exit %d, stdout %r, stderr %r" % (rc, out, err))
    rc, out, err = run(t.exe, base + ["-o", "-", "--json"])
    ok = rc == 0 and out.startswith("{") and re.fullmatch(r"vmaf_v0\.6\.1: \d+\.\d{6}\n", err)
    t.check("pooled_on_stderr_with_log_on_stdout", None if ok else "exit %d, stderr %r" % (rc, err))
    # the format from the extension; a flag wins; two different flags are refused
    starts = {"json": "{", "csv": "Frame,", "xml": "<VMAF", "sub": "{", "txt": "<VMAF"}
    for ext, want in starts.items():
        o = os.path.join(t.d, "fmt." + ext)
        rc, _, err = run(t.exe, base + ["-q", "-o", o])
        got = open(o).read(64) if rc == 0 and os.path.exists(o) else ""
        if ext == "sub":  # MicroDVD subtitles: {start}{end}text
            ok = re.match(r"\{\d+\}\{\d+\}", got) is not None
        else:
            ok = got.startswith(want)
        t.check("format_from_extension_" + ext, None if ok else "exit %d, %r, %r" % (rc, got, err))
    o = os.path.join(t.d, "flag_wins.json")
    rc, _, _ = run(t.exe, base + ["-q", "--csv", "-o", o])
    t.check("format_flag_wins", None if rc == 0 and open(o).read().startswith("Frame,") else "exit %d" % rc)
    rc, _, err = run(t.exe, base + ["--json", "--csv", "-o", os.path.join(t.d, "two.json")])
    t.check("two_format_flags_refused",
            None if rc != 0 and len(lines(err)) == 1 and "--json" in err and "--csv" in err
            and not os.path.exists(os.path.join(t.d, "two.json")) else "exit %d, %r" % (rc, err))
    rc, _, _ = run(t.exe, base + ["--json", "--json", "-q", "-o", os.path.join(t.d, "same.json")])
    t.check("same_format_flag_twice", None if rc == 0 else "exit %d" % rc)
    # every core this process may use, as the report's settings show
    rep = os.path.join(t.d, "threads.html")
    rc, _, err = run(t.exe, base + ["-q", "--backend", "cpu", "--report", rep])
    want = len(os.sched_getaffinity(0))
    html = open(rep).read() if rc == 0 else ""
    t.check("default_threads_are_the_cores",
            None if re.search(r'data-setting="threads">%d<' % want, html) else
            "exit %d, %r; report's threads cell not %d" % (rc, err, want))


def test_geometry_hints(t):
    fake = t.put("fake.mkv", b"\x1a\x45\xdf\xa3" + bytes(4096))
    raw_ref = t.put("g_ref.yuv", raw(2, 0))
    rc, _, err = run(t.exe, ["-r", raw_ref, "-d", fake, "-w", str(W), "-h", str(H), "-p", "420",
                             "-b", "8"])
    t.check("geometry_flags_with_encoded_input",
            None if rc != 0 and len(lines(err)) == 1 and "fake.mkv" in err and "-w/-h/-p/-b" in err
            and "--ref-format" in err else "exit %d, %r" % (rc, err))
    rc, _, err = run(t.exe, ["-r", raw_ref, "-d", fake, "--ref-format", "%dx%d:420:8" % (W, H),
                             "--dis-format", "%dx%d:420:8" % (W, H)])
    t.check("dis_format_with_encoded_input",
            None if rc != 0 and len(lines(err)) == 1 and "--dis-format" in err else "exit %d, %r" % (rc, err))
    rc, _, err = run(t.exe, ["-r", raw_ref, "-d", raw_ref, "--ref-format", "16x8:420"])
    t.check("ref_format_malformed", None if rc != 0 and len(lines(err)) == 1 and "WIDTHxHEIGHT" in err
            else "exit %d, %r" % (rc, err))
    rc, _, err = run(t.exe, ["-r", raw_ref, "-d", raw_ref, "-w", "16", "-h"])
    t.check("h_without_value_points_to_help",
            None if rc != 0 and len(lines(err)) == 1 and "--help" in err else "exit %d, %r" % (rc, err))
    ref10 = t.put("g_ref10.y4m", b"YUV4MPEG2 W16 H8 F25:1 Ip A1:1 C420p10 XYSCSS=420P10\nFRAME\n" +
                  raw(1, 0, bits=10))
    dis8 = t.put("g_dis8.y4m", y4m(1, 3))
    rc, _, err = run(t.exe, ["-r", ref10, "-d", dis8, "-n", "--feature", "psnr"])
    t.check("depth_mismatch_says_how_to_convert",
            None if rc != 0 and len(lines(err)) == 1 and "ffmpeg" in err and "-pix_fmt yuv420p10le" in err
            else "exit %d, %r" % (rc, err))
    if "ffmpeg=yes" not in run(t.exe, ["--version"])[1]:
        return  # this build reads no encoded video: the mixed pair below needs FFmpeg
    streams = shared_streams()
    enc_ref = os.path.join(streams, "cups_576x324.ref.mkv")
    enc_dis = os.path.join(streams, "cups_576x324.dis.mkv")
    if not os.path.exists(enc_dis):
        t.check("raw_reference_with_encoded_distorted", "no streams at %s (TVMAF_SHARED)" % streams)
        return
    # the raw reference: the decoded reference stream, as ffmpeg -f rawvideo writes it
    dec = os.path.join(t.d, "cups_ref.yuv")
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", enc_ref, "-frames:v", "4", "-f", "rawvideo",
                        "-y", dec], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    if p.returncode != 0:
        t.check("raw_reference_with_encoded_distorted", "ffmpeg failed: %r" % p.stderr)
        return
    common = ["-d", enc_dis, "--frame_cnt", "4", "--feature", "psnr", "--json", "-o", "-",
              "--precision", "max", "-q"]
    rc1, mixed, e1 = run(t.exe, ["-r", dec, "--ref-format", "576x324:420:8"] + common)
    rc2, both, e2 = run(t.exe, ["-r", enc_ref] + common)
    strip = lambda s: re.sub(r'"fps": [^,]*,', "", s)
    t.check("raw_reference_with_encoded_distorted",
            None if rc1 == 0 and rc2 == 0 and strip(mixed) == strip(both) and '"vmaf"' in both
            else "exit %d/%d, %r %r" % (rc1, rc2, e1, e2))


def test_list_models(t):
    mdir = os.path.join(t.d, "models")
    os.makedirs(mdir, exist_ok=True)
    t.put(os.path.join("models", "my_model.json"), b"{}")
    env = dict(os.environ, TVMAF_MODEL_PATH=mdir)
    p = subprocess.run([t.exe, "--list-models"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=TIMEOUT_S)
    out = p.stdout.decode()
    names = [l.split()[0] for l in out.splitlines() if l.strip()]
    why = None
    for want in ("vmaf_v0.6.1", "vmaf_4k_v0.6.1neg", "vmaf_v1.0.16_3d0h", "vmaf_float_b_v0.6.3", "my_model"):
        if want not in names:
            why = "%s missing from --list-models: %r" % (want, out)
    if p.returncode != 0 or not re.search(r"^vmaf_v0\.6\.1\s+built in$", out, re.M):
        why = why or "exit %d, %r" % (p.returncode, out)
    t.check("list_models", why)


def main():
    exe = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="tvmaf_cli_") as d:
        t = T(exe, d)
        for f in (test_frame_counts, test_no_feature, test_y4m_flags, test_depth_warning,
                  test_progress, test_help, test_pooled_stdout, test_geometry_hints,
                  test_list_models):
            try:
                f(t)
            except Exception as e:  # a crash of the test is a failure, not a skip
                t.check(f.__name__, "raised %r" % e)
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
