"""BD-rate and BD-VMAF of `tvmaf report --ladder A ... --ladder B ...` against an
independent computation: scipy.interpolate.PchipInterpolator over the same points
(log10 bitrate as a function of the pooled VMAF mean, and the mean as a function of
log10 bitrate, integrated over the shared range), on known curves: two ladders of
four encodes, ladders of different lengths and partial overlap, qualities that are not
monotone in rate (PCHIP's zero slopes at extrema, its end-point rule). The outputs are
synthetic libvmaf-format JSON files with the sidecar --meta writes.

Then the refusals: ladders of two references, no shared quality range, two encodes of
one ladder with one quality: one line each, exit 1, no page.

usage: report_bdrate_test.py TVMAF_EXE
Runs under .cache/venv's Python (scripts/bootstrap installs scipy there) when
the one running it has no scipy; exits 77 (skip) when neither has it.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy.interpolate import PchipInterpolator
except ImportError:
    # scripts/bootstrap installs scipy into the checkout's .cache/venv
    venv = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        '.cache', 'venv', 'bin', 'python')
    if os.path.exists(venv) and os.path.realpath(sys.executable) != os.path.realpath(venv) \
            and subprocess.run([venv, '-c', 'import scipy']).returncode == 0:
        os.execv(venv, [venv] + sys.argv)
    print('SKIP: scipy is not installed (pip install scipy; scripts/bootstrap puts it in '
          '.cache/venv)')
    sys.exit(77)

REF = '/nonexistent/source_1080p.y4m'


def write_encode(d, name, rate, vmaf, ref=REF):
    """A libvmaf-format output whose pooled vmaf mean is `vmaf` (printed %.6f), with
    its sidecar giving the distorted stream's bitrate (bit/s)."""
    mean = '%.6f' % vmaf
    frames = ',\n'.join('    {\n      "frameNum": %d,\n      "metrics": {\n        "vmaf": %s\n'
                        '      }\n    }' % (i, mean) for i in range(3))
    text = ('{\n  "version": "0.1.0",\n  "fps": 10.00,\n  "frames": [\n%s\n  ],\n'
            '  "pooled_metrics": {\n    "vmaf": {\n      "min": %s,\n      "max": %s,\n'
            '      "mean": %s,\n      "harmonic_mean": %s\n    }\n  },\n'
            '  "aggregate_metrics": {\n  }\n}\n' % (frames, mean, mean, mean, mean))
    path = os.path.join(d, name + '.json')
    with open(path, 'w') as f:
        f.write(text)
    meta = {'tvmaf_meta': 1, 'output': path,
            'reference': {'path': ref, 'absolute': ref, 'kind': 'y4m', 'skip': 0},
            'distorted': {'path': name + '.mkv', 'absolute': os.path.join(d, name + '.mkv'),
                          'kind': 'ffmpeg', 'skip': 0, 'bitrate': rate,
                          'bitrate_source': 'packets'},
            'frames': 3, 'precision': 0,
            'models': [{'label': 'vmaf_v0.6.1', 'key': 'vmaf', 'inputs': []}],
            'features': [], 'settings': [['threads', '1']]}
    with open(path + '.meta.json', 'w') as f:
        json.dump(meta, f)
    return path, float(mean)


def scipy_bd(ra, qa, rt, qt):
    """(BD-rate %, BD-quality) by scipy's PCHIP."""
    la, lt = np.log10(np.array(ra, float)), np.log10(np.array(rt, float))
    qa, qt = np.array(qa, float), np.array(qt, float)

    def avg_gap(xa, ya, xt, yt):
        ia, it = np.argsort(xa), np.argsort(xt)
        pa, pt = PchipInterpolator(xa[ia], ya[ia]), PchipInterpolator(xt[it], yt[it])
        lo, hi = max(xa.min(), xt.min()), min(xa.max(), xt.max())
        return (pt.integrate(lo, hi) - pa.integrate(lo, hi)) / (hi - lo)

    return (10 ** avg_gap(qa, la, qt, lt) - 1) * 100, avg_gap(la, qa, lt, qt)


def page_bd(page):
    """{group: (rate, quality)} from the page's data-bd-rate / data-bd-quality."""
    import re
    text = open(page, encoding='utf-8').read()
    rate = {int(g): float(v) for v, g in re.findall(r'data-bd-rate="([^"]+)" data-group="(\d+)"', text)}
    qual = {int(g): float(v) for v, g in re.findall(r'data-bd-quality="([^"]+)" data-group="(\d+)"', text)}
    return {g: (rate[g], qual.get(g)) for g in rate}


def main():
    exe = sys.argv[1]
    failed = 0

    def check(ok, what):
        nonlocal failed
        print(('ok    ' if ok else 'FAIL  ') + what)
        failed += not ok

    rnd = random.Random(39)
    cases = [
        ('two ladders of 4', [1000e3, 2000e3, 4000e3, 8000e3], [70, 80, 88, 93],
         [[800e3, 1600e3, 3200e3, 6400e3]], [[71, 81.5, 89, 94.2]]),
        ('lengths 4 and 6, partial overlap', [1500e3, 3000e3, 4500e3, 9000e3], [76, 84, 88, 94],
         [[500e3, 900e3, 1800e3, 2500e3, 5000e3, 12000e3]], [[60, 68, 79, 83, 90, 97]]),
        ('not monotone (zero slopes, end rule)', [1000e3, 1100e3, 3000e3, 3500e3, 8000e3],
         [70, 85, 84, 92, 91], [[900e3, 2000e3, 2100e3, 7000e3]], [[72, 88, 80, 95]]),
        ('three ladders', [1000e3, 2000e3, 4000e3, 8000e3], [70, 80, 88, 93],
         [[900e3, 1800e3, 3600e3, 7200e3], [1200e3, 2600e3, 5000e3, 9000e3]],
         [[72, 81, 89, 93.5], [69, 80, 87, 92]]),
    ]
    for k in range(6):  # random ladders, qualities in any order
        n_a, n_t = rnd.randint(4, 7), rnd.randint(4, 7)
        ra = sorted(rnd.uniform(2e5, 2e7) for _ in range(n_a))
        rt = sorted(rnd.uniform(2e5, 2e7) for _ in range(n_t))
        qa = [rnd.uniform(40, 99) for _ in range(n_a)]
        qt = [rnd.uniform(40, 99) for _ in range(n_t)]
        cases.append((f'random {k} ({n_a} and {n_t} points)', ra, qa, [rt], [qt]))
    with tempfile.TemporaryDirectory() as d:
        for name, ra, qa, rts, qts in cases:
            sub = os.path.join(d, 'c%d' % cases.index((name, ra, qa, rts, qts)))
            os.makedirs(sub)
            args = ['--ladder', 'anchor']
            qa_p = []
            for i, (r, q) in enumerate(zip(ra, qa)):
                p, qp = write_encode(sub, f'a{i}', round(r), q)
                args.append(p)
                qa_p.append(qp)
            want = []
            for t, (rt, qt) in enumerate(zip(rts, qts)):
                args += ['--ladder', f'test{t}']
                qt_p = []
                for i, (r, q) in enumerate(zip(rt, qt)):
                    p, qp = write_encode(sub, f't{t}_{i}', round(r), q)
                    args.append(p)
                    qt_p.append(qp)
                want.append(scipy_bd([round(r) for r in ra], qa_p, [round(r) for r in rt], qt_p))
            page = os.path.join(sub, 'bd.html')
            p = subprocess.run([exe, 'report', '--no-pictures'] + args + ['-o', page],
                               capture_output=True, text=True)
            if p.returncode:
                check(False, f'{name}: tvmaf report exited {p.returncode}: {p.stderr.strip()}')
                continue
            got = page_bd(page)
            for t, (wr, wq) in enumerate(want):
                gr, gq = got.get(t + 1, (None, None))
                ok = (gr is not None and abs(gr - wr) <= 1e-9 * max(1, abs(wr)) and
                      abs(gq - wq) <= 1e-9 * max(1, abs(wq)))
                check(ok, f'{name}: ladder {t + 1}: BD-rate {gr} % (scipy {wr:.12g}), '
                      f'BD-VMAF {gq} (scipy {wq:.12g})')
        # refusals
        sub = os.path.join(d, 'bad')
        os.makedirs(sub)
        a = [write_encode(sub, f'a{i}', r, q)[0] for i, (r, q) in
             enumerate(zip([1e6, 2e6, 4e6, 8e6], [70, 80, 88, 93]))]
        other = [write_encode(sub, f'o{i}', r, q, ref='/nonexistent/other.y4m')[0] for i, (r, q)
                 in enumerate(zip([1e6, 2e6, 4e6, 8e6], [71, 81, 89, 94]))]
        high = [write_encode(sub, f'h{i}', r, q)[0] for i, (r, q) in
                enumerate(zip([1e6, 2e6, 4e6, 8e6], [94, 95, 96, 97]))]
        dup = [write_encode(sub, f'd{i}', r, q)[0] for i, (r, q) in
               enumerate(zip([1e6, 2e6, 4e6, 8e6], [70, 80, 80, 93]))]
        page = os.path.join(sub, 'refused.html')
        for what, b, want in (('ladders of two references', other, 'one reference'),
                              ('no shared quality range', high, 'share no quality range'),
                              ('two encodes of one quality', dup, 'the same quality')):
            p = subprocess.run([exe, 'report', '--ladder', 'a'] + a + ['--ladder', 'b'] + b +
                               ['-o', page], capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            check(p.returncode == 1 and len(lines) == 1 and want in lines[0] and
                  not os.path.exists(page), f'refused: {what} ({lines})')
    print(f'{"FAILED" if failed else "passed"}: {failed} failure(s)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
