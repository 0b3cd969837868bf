#!/usr/bin/env python3
"""TVMAF_CUDA_SYNC=poll through the CUDA driver stand-in: the backend waits for its streams by
querying them (cuStreamQuery) instead of cuStreamSynchronize, and scores as the CPU does.

The stand-in runs one queued operation per query, so the waits loop. The test compares the
default model's output (every frame, pooled) with --backend cpu, and reads the stand-in's
counts (TVMAF_STANDIN_COUNTS): queries made, no stream synchronisation.

usage: cuda_sync_poll_test.py TVMAF_EXE CLIPS_DIR (TVMAF_CLIPS, where set, instead)
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    tvmaf, clips = sys.argv[1], os.environ.get("TVMAF_CLIPS") or sys.argv[2]
    base = os.path.join(clips, "tiny_177x99")
    if not os.path.isfile(base + ".ref.yuv"):
        print("no %s.ref.yuv" % base)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        outs = {}
        for mode in ("cpu", "poll"):
            out, counts = os.path.join(tmp, mode + ".json"), os.path.join(tmp, "counts.txt")
            env = dict(os.environ, TVMAF_CUDA_SYNC="poll", TVMAF_STANDIN_COUNTS=counts)
            cmd = [tvmaf, "-r", base + ".ref.yuv", "-d", base + ".dis.yuv", "-w", "177", "-h",
                   "99", "-p", "420", "-b", "8", "--json", "--precision", "max", "-q", "-o", out,
                   "--backend", "cpu" if mode == "cpu" else "cuda"]
            p = subprocess.run(cmd, env=env, stderr=subprocess.PIPE)
            if p.returncode:
                print("FAIL: %s: %s" % (mode, p.stderr.decode().strip()))
                return 1
            with open(out) as f:
                doc = json.load(f)
            outs[mode] = ([fr["metrics"] for fr in doc["frames"]], doc["pooled_metrics"])
        with open(counts) as f:
            n = dict((l.split()[0], int(l.split()[1])) for l in f if len(l.split()) == 2)
    same = outs["cpu"] == outs["poll"]
    polled = n.get("stream_queries", 0) > 0 and n.get("stream_syncs", -1) == 0
    print("TVMAF_CUDA_SYNC=poll: %d frames %s the CPU's; stand-in: %d stream queries, %d stream "
          "synchronisations" % (len(outs["cpu"][0]), "equal to" if same else "NOT",
                                n.get("stream_queries", 0), n.get("stream_syncs", -1)))
    return 0 if same and polled else 1


if __name__ == "__main__":
    sys.exit(main())
