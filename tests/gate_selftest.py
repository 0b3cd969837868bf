#!/usr/bin/env python3
"""The gate can fail: scripts/gate against a stand-in GPU backend, on a machine without a GPU.

The stand-in is a wrapper around tvmaf that lists a "cuda" twin for psnr, ciede, vif, adm and
motion, runs --backend cuda on the CPU (dropping --pinned-pictures, --gpu N) and, when told,
changes one value of its output or says it has no device. The gate must then:
  pass when the stand-in changes nothing (every cuda column, the models included);
  fail when one value moves by one ulp (a feature key; a model key; a frame and a pooled value);
  pass a ciede2000 difference inside its LIBM bound, marked (LIBM), and fail one outside;
  fail when an extractor with a cuda twin ran on the CPU (the run's --meta sidecar says so),
  though every value is identical;
  fail when a column refuses a clip the reference scores;
  exit 77 under --skip-without cuda and fail under --require-cuda without a device, show the
  cuda columns as n/a without a device when nothing requires them, and fail when the device
  probe fails for another reason.

usage: gate_selftest.py TVMAF_EXE [--clips DIR] [--shared DIR]
"""
import argparse
import os
import re
import stat
import subprocess
import sys
import tempfile

from golden_common import Result

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GATE = os.path.join(ROOT, "scripts", "gate")

FAKE = r'''#!/usr/bin/env python3
import json, os, struct, subprocess, sys
REAL = %(real)r
TWINS = ("psnr", "ciede", "vif", "adm", "motion")
argv = sys.argv[1:]
if argv == ["--list-features"]:
    out = subprocess.run([REAL] + argv, stdout=subprocess.PIPE, check=True).stdout.decode()
    for line in out.splitlines():
        p = line.split()
        if p and p[0] in TWINS and "cuda" not in p:
            line += " cuda"
        print(line)
    sys.exit(0)
cuda = "cuda" in [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "--backend"]
clean = []
i = 0
while i < len(argv):
    a = argv[i]
    if a == "--pinned-pictures":
        i += 1
        continue
    if a == "--gpu":
        i += 2
        continue
    clean.append("cpu" if cuda and i > 0 and argv[i - 1] == "--backend" else a)
    i += 1
mode = os.environ.get("FAKE_MODE", "")
if cuda and mode == "nodevice":
    sys.exit(print("tvmaf: backend cuda: no usable CUDA device (stand-in)", file=sys.stderr) or 1)
if cuda and mode == "broken":
    sys.exit(print("tvmaf: cuda: kernel launch failed (stand-in)", file=sys.stderr) or 1)
if cuda and mode.startswith("refuse:") and any(mode[7:] in a for a in argv):
    sys.exit(print("tvmaf: stand-in refuses this clip", file=sys.stderr) or 1)
rc = subprocess.call([REAL] + clean)
if not rc and cuda and "--meta" in argv:
    # the sidecar says where each extractor ran: on "cuda", but fallback:NAME's on the CPU
    side = argv[argv.index("-o") + 1] + ".meta.json"
    with open(side) as f:
        meta = json.load(f)
    keep = mode[9:] if mode.startswith("fallback:") else None
    for st in meta["settings"]:
        if st[0] == "extractors":
            st[1] = ", ".join(e if e.split(" ")[0] == keep else e.replace("(cpu)", "(cuda)")
                              for e in st[1].split(", "))
    with open(side, "w") as f:
        json.dump(meta, f)
if rc or not cuda or not mode.startswith("move:"):
    sys.exit(rc)
# move:KEY:WHERE:DELTA  WHERE frame0 | pooled; DELTA ulp (one ulp) or an absolute amount
_, key, where, delta = mode.split(":")
out = argv[argv.index("-o") + 1]
with open(out) as f:
    doc = json.load(f)

def moved(v):
    if delta == "ulp":
        b = struct.unpack("<q", struct.pack("<d", v))[0]
        return struct.unpack("<d", struct.pack("<q", b + 1))[0]
    return v + float(delta)

if where == "frame0":
    m = doc["frames"][0]["metrics"]
    if key in m:
        m[key] = moved(m[key])
elif key in doc.get("pooled_metrics", {}):
    doc["pooled_metrics"][key]["mean"] = moved(doc["pooled_metrics"][key]["mean"])
with open(out, "w") as f:
    json.dump(doc, f)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvmaf")
    ap.add_argument("--clips", default=os.environ.get("TVMAF_CLIPS", os.path.join(ROOT, ".cache", "clips")))
    ap.add_argument("--shared", default=os.environ.get("TVMAF_SHARED", os.path.join(ROOT, "..", "shared")))
    a = ap.parse_args()
    res = Result()
    with tempfile.TemporaryDirectory(prefix="gate_selftest_") as tmp:
        fake = os.path.join(tmp, "tvmaf")
        with open(fake, "w") as f:
            f.write(FAKE % {"real": os.path.abspath(a.tvmaf)})
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        base = [sys.executable, GATE, "--tvmaf", fake, "--clips", a.clips, "--shared", a.shared,
                "--clip", "tiny_177x99", "--columns", "cuda*"]
        req = ["--require-cuda"]
        models = ["--clip", "flat_64x64"]

        def only(feature):
            # the one feature row a case is about (no models): the first case runs every
            # feature and model through the same comparison
            return ["--features", feature]
        if not os.environ.get("TVMAF_MODEL_PATH"):
            os.environ["TVMAF_MODEL_PATH"] = os.path.join(a.shared, "models")

        def gate(label, extra, mode, want_rc, want=(), unwanted=()):
            env = dict(os.environ, FAKE_MODE=mode)
            p = subprocess.run(base + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, text=True)
            out = p.stdout
            bad = [w for w in want if not re.search(w, out)] + \
                  [w for w in unwanted if re.search(w, out)]
            ok = p.returncode == want_rc and not bad
            if not ok:
                print(out)
                print(p.stderr[-3000:])
            res.check(ok, label, "exit %d (want %d); missing/unexpected: %s"
                      % (p.returncode, want_rc, bad))
            return out

        out = gate("identical stand-in: PASS, models included", req + models, "", 0,
                   [r"gate: PASS", r"\nciede\s+ciede2000\s+\d+/\d+\s+(\d+)/\1\s+\1/\1\s+\1/\1\s+\1/\1",
                    r"vmaf_v0.6.1 \(model\)\s+\S+\s+\d+/\d+\s+\d+/\d+",
                    r"\n\s+vmaf_b_ci_p95_hi\s", r"column cuda-pinned\s+--backend cuda --pinned-pictures"],
                   [r"FAIL"])
        print(out, flush=True)
        gate("adm moved one ulp on frame 0: FAIL", req + only("adm"), "move:integer_adm2:frame0:ulp", 1,
             [r"integer_adm2\s+\d+/\d+\s+FAIL \d+/\d+ max\|d\|", r"gate: FAIL .*adm/integer_adm2/cuda"])
        gate("psnr pooled mean moved one ulp: FAIL", req + only("psnr"), "move:psnr_y:pooled:ulp", 1,
             [r"psnr_y\s+\d+/\d+\s+FAIL", r"gate: FAIL"])
        gate("model score moved one ulp: FAIL", req + models, "move:vmaf:frame0:ulp", 1,
             [r"gate: FAIL .*vmaf_v0.6.1/vmaf/cuda"])
        gate("ciede2000 moved inside its LIBM bound: PASS (LIBM)", req + only("ciede"), "move:ciede2000:frame0:1e-9", 0,
             [r"ciede2000\s+\d+/\d+\s+\d+/\d+ max\|d\|=1e-09 \(LIBM\)", r"gate: PASS"])
        gate("ciede2000 moved outside its LIBM bound: FAIL", req + only("ciede"), "move:ciede2000:frame0:1e-4", 1,
             [r"ciede2000\s+\d+/\d+\s+FAIL", r"gate: FAIL"])
        gate("an extractor with a cuda twin that ran on the CPU: FAIL, its scores identical", req + only("vif"),
             "fallback:vif", 1,
             [r"integer_vif_scale0\s+\d+/\d+\s+FAIL", r"gate: FAIL",
              r"error vif/integer_vif_scale0/cuda: tiny_177x99: vif ran on cpu"])
        gate("a column refusing a clip the reference scores: FAIL", req + only("psnr"), "refuse:tiny_177x99", 1,
             [r"gate: FAIL", r"error psnr/psnr_y/cuda: tiny_177x99: exit 1"])
        gate("no device, --skip-without cuda: exit 77", ["--skip-without", "cuda"] + only("psnr"), "nodevice", 77,
             [r"gate: skipped: cuda unusable: .*no usable CUDA device"])
        gate("no device, --require-cuda: FAIL", req + only("psnr"), "nodevice", 1, [r"gate: FAIL \(cuda unusable"])
        gate("no device, nothing required: PASS, cuda columns n/a", only("psnr"), "nodevice", 0,
             [r"column cuda-7t\s.*n/a \(cuda unusable", r"gate: PASS"])
        gate("a device whose probe fails otherwise: FAIL, nothing required", only("psnr"), "broken", 1,
             [r"gate: FAIL \(cuda unusable"])
    print(f"{res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
