#!/usr/bin/env python3
"""Encoded input under --max-memory: a header's claim is refused before it is decoded.

Three PNGs of a few hundred bytes claiming 16000x16000 (8-bit gray, 16-bit gray,
16-bit RGBA; SHARED/testdata/repros) are each given as both inputs with
`--max-memory 64M`: every run must fail (exit status != 0, not a signal, no
sanitizer report) with exactly one line on stderr that names --max-memory, and
its peak RSS must stay below 150 MB (unlimited, FFmpeg decodes them into 0.28 to
2 GB before it fails). A 4K stream under `--max-memory 16M` is refused the same
way, naming its size. The control: a normal encoded pair
(SHARED/testdata/streams/cups_576x324.{ref,dis}.mkv, --frame_cnt 3) still scores
with `--max-memory 64M`.

Each run's peak RSS is ru_maxrss of RUSAGE_CHILDREN in a fresh Python process
that runs only that command.

Exits 77 (skip) when this build has no FFmpeg or the shared test data is absent.

usage: ffmpeg_memory_test.py TVMAF_EXE [--shared DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RSS_LIMIT_KB = 150 * 1000  # 150 MB
TIMEOUT_S = 120
PNGS = ['hugepng_trunc.png', 'gray16_16k_trunc.png', 'rgba64_16k_trunc.png']
CRASH_MARKERS = ('Sanitizer', 'runtime error', 'Segmentation fault', 'core dumped', 'Assertion',
                 'double free', 'corrupted', 'stack smashing')

# Runs argv[1:] and prints its exit status, peak RSS (KiB) and output as JSON.
MEASURE = r'''
import json, resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True)
print(json.dumps({'rc': p.returncode,
                  'maxrss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  'stdout': p.stdout.decode('utf-8', 'replace'),
                  'stderr': p.stderr.decode('utf-8', 'replace')}))
'''


def measured(cmd):
    p = subprocess.run([sys.executable, '-c', MEASURE] + cmd, capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    if p.returncode != 0:
        raise RuntimeError('measuring %s failed: %s' % (' '.join(cmd), p.stderr.strip()))
    return json.loads(p.stdout)


class Result:
    def __init__(self):
        self.failures = 0

    def check(self, ok, what):
        print(('ok    ' if ok else 'FAIL  ') + what)
        if not ok:
            self.failures += 1


def check_refused(res, name, r, want=()):
    """A run that must be refused under the limit, cheaply and with one clear line."""
    rc, rss, err = r['rc'], r['maxrss_kb'], r['stderr']
    lines = [ln for ln in err.splitlines() if ln.strip()]
    res.check(0 < rc < 128, '%s: exit status %d (refused, not a signal)' % (name, rc))
    res.check(not any(m in err for m in CRASH_MARKERS), '%s: no crash report' % name)
    res.check(len(lines) == 1, '%s: one line on stderr (%d: %r)' % (name, len(lines), err[-600:]))
    res.check('--max-memory' in err, '%s: the message names --max-memory (%r)' % (name, err.strip()))
    for w in want:
        res.check(w in err, '%s: the message names %s' % (name, w))
    res.check(rss < RSS_LIMIT_KB, '%s: peak RSS %.1f MB < %.0f MB' % (name, rss / 1000,
                                                                         RSS_LIMIT_KB / 1000))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('tvmaf')
    ap.add_argument('--shared', default=os.environ.get('TVMAF_SHARED',
                                                       os.path.join(ROOT, '..', 'shared')))
    a = ap.parse_args()
    exe = os.path.abspath(a.tvmaf)
    testdata = os.path.join(os.path.abspath(a.shared), 'testdata')
    repros, streams = os.path.join(testdata, 'repros'), os.path.join(testdata, 'streams')

    p = subprocess.run([exe, '--version'], capture_output=True, text=True)
    if 'ffmpeg=yes' not in p.stdout:
        print('this build reads no encoded video (no FFmpeg): skipped')
        return 77
    inputs = [os.path.join(repros, f) for f in PNGS] + [
        os.path.join(streams, 'cups_576x324.%s.mkv' % s) for s in ('ref', 'dis')] + [
        os.path.join(streams, 'meadow_3840x2160.ref.mkv')]
    missing = [f for f in inputs if not os.path.exists(f)]
    if missing:
        print('test data missing (%s): skipped' % ', '.join(missing))
        return 77

    res = Result()
    for f in PNGS:
        png = os.path.join(repros, f)
        r = measured([exe, '-r', png, '-d', png, '--max-memory', '64M', '-o', os.devnull])
        check_refused(res, f, r)

    meadow = os.path.join(streams, 'meadow_3840x2160.ref.mkv')
    r = measured([exe, '-r', meadow, '-d', meadow, '--max-memory', '16M', '-o', os.devnull])
    check_refused(res, 'meadow_3840x2160 at 16M', r, want=('3840x2160',))

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.json')
        ref, dis = (os.path.join(streams, 'cups_576x324.%s.mkv' % s) for s in ('ref', 'dis'))
        r = measured([exe, '-r', ref, '-d', dis, '--frame_cnt', '3', '--max-memory', '64M',
                      '-q', '--json', '-o', out])
        res.check(r['rc'] == 0, 'cups_576x324 at 64M: scores (exit status %d%s)' % (
            r['rc'], ': ' + r['stderr'].strip()[-600:] if r['rc'] else ''))
        frames = []
        if r['rc'] == 0:
            with open(out) as fp:
                frames = json.load(fp).get('frames', [])
        res.check(len(frames) == 3 and all('vmaf' in fr.get('metrics', {}) for fr in frames),
                  'cups_576x324 at 64M: 3 frames with a vmaf score (%d frames)' % len(frames))
        res.check(r['maxrss_kb'] < RSS_LIMIT_KB, 'cups_576x324 at 64M: peak RSS %.1f MB' % (
            r['maxrss_kb'] / 1000))

    if res.failures:
        print('%d check(s) failed' % res.failures)
        return 1
    print('all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
