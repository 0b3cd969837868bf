"""What the golden tests and the gate (scripts/gate) share: results, clips,
comparisons of doubles as bits, the output's volatile lines, the float_adm
division to use, and the one table of allowed math-library residuals (LIBM).

Standard library only; importable from tests/ and, through sys.path, from
scripts/gate."""
import math
import os
import struct
import subprocess
import sys


# ---------------------------------------------------------------- doubles as bits

def bits(v):
    """A value as comparable bits: None for JSON null (non-finite)."""
    if v is None:
        return None
    return struct.pack('<d', float(v))


def same(a, b):
    return bits(a) == bits(b)


def difference(a, b):
    """|a - b| for two output values (None is JSON null): 0 for null == null
    and for +0 vs -0, inf where one side is null (or NaN) and the other not."""
    if a is None or b is None:
        return 0.0 if a is b else math.inf
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return 0.0 if math.isnan(x) and math.isnan(y) else math.inf
    if x == y:
        return 0.0
    return abs(x - y)


class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, name, detail=''):
        if ok:
            self.passed += 1
            print(f'ok    {name}')
        else:
            self.failed += 1
            print(f'FAIL  {name}: {detail}')
        sys.stdout.flush()


# ---------------------------------------------------------------- clips

# The quick set (TVMAF_TEST_QUICK=1, the sanitizer pass of .ci/run, and the
# gate's --quick): the clips up to 576x324; every layout and depth is among them.
QUICK_MAX_PIXELS = 576 * 324


def test_arg_parser():
    """The arguments every clip test takes: the tvmaf executable, the decoded
    clips (TVMAF_CLIPS, else .cache/clips) and the shared folder (TVMAF_SHARED,
    else ../shared beside the checkout)."""
    import argparse
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument('tvmaf')
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS', os.path.join(root, '.cache', 'clips')))
    ap.add_argument('--shared', default=os.environ.get('TVMAF_SHARED', os.path.join(root, '..', 'shared')))
    return ap


def quick_env():
    return os.environ.get('TVMAF_TEST_QUICK') == '1'


def full_env():
    """TVMAF_TEST_FULL=1: the tests that check a sample of a sweep by default (adm_isa,
    gpus_*, opencl_parity; each test's header says what) run the whole sweep."""
    return os.environ.get('TVMAF_TEST_FULL') == '1'


def is_quick(clip):
    return clip['w'] * clip['h'] <= QUICK_MAX_PIXELS


def parse_clips_tsv(path):
    """The clips of a clips.tsv, in its order: dicts with name, w, h, frames,
    layout, bits."""
    clips = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            c = line.rstrip('\n').split('\t')
            clips.append(dict(name=c[0], w=int(c[2]), h=int(c[3]), frames=int(c[4]),
                              layout=c[5], bits=int(c[6])))
    return clips


def parse_clip_info(path, name):
    """A clip described by the NAME.info that make_clips.sh writes beside it."""
    info = {}
    with open(path) as f:
        for line in f:
            if '=' in line:
                k, v = line.strip().split('=', 1)
                info[k] = v
    return dict(name=name, w=int(info['width']), h=int(info['height']),
                frames=int(info['frames']), layout=info['layout'], bits=int(info['bitdepth']))


def read_clips(shared):
    """The clips of SHARED/testdata/clips.tsv; only the quick set under
    TVMAF_TEST_QUICK=1."""
    clips = parse_clips_tsv(os.path.join(shared, 'testdata', 'clips.tsv'))
    if quick_env():
        # the sanitizer pass (.ci/run): the clips up to 576x324 only; the plain
        # pass runs every clip
        big = [c['name'] for c in clips if not is_quick(c)]
        clips = [c for c in clips if is_quick(c)]
        print(f"TVMAF_TEST_QUICK=1: leaving out {', '.join(big)}")
    return clips


def load_clips(clip_dir, names):
    """The .info of each named clip in clip_dir, by name; None (after saying which is missing)
    when one is not there."""
    clips = {}
    for name in names:
        info = os.path.join(clip_dir, name + '.info')
        if not os.path.exists(info):
            print(f'clip {name} missing in {clip_dir} (scripts/bootstrap decodes the clips)')
            return None
        clips[name] = parse_clip_info(info, name)
    return clips


def clip_paths(clip, clip_dir):
    return (os.path.join(clip_dir, clip['name'] + '.ref.yuv'),
            os.path.join(clip_dir, clip['name'] + '.dis.yuv'))


def clip_args(clip, clip_dir):
    """tvmaf's input arguments for a decoded clip."""
    ref, dis = clip_paths(clip, clip_dir)
    return ['-r', ref, '-d', dis, '-w', str(clip['w']), '-h', str(clip['h']),
            '-p', clip['layout'], '-b', str(clip['bits'])]


def strip_volatile(text, fmt):
    """Drops what is not to be matched: fps and the version string."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if fmt == 'json' and (s.startswith('"fps"') or s.startswith('"version"')):
            continue
        if fmt == 'xml' and (s.startswith('<fyi fps=') or s.startswith('<VMAF version=')):
            continue
        out.append(line)
    return '\n'.join(out)


# ---------------------------------------------------------------- float_adm's division

def choose_adm_division(exe, quiet=False):
    """float_adm divides through the processor's reciprocal estimate, as the
    reference did on the goldens host. Where this processor's estimate is that
    host's (equal fingerprints) its own instruction reproduces the goldens;
    elsewhere the goldens host's table is replayed. Prints the choice and
    returns the tvmaf arguments that make it (`--adm-div MODE`, which applies
    to every float_adm instance, those of models included)."""
    p = subprocess.run([exe, '--rcpss-fingerprint'], capture_output=True, text=True)
    info = dict(l.split(None, 1) for l in p.stdout.splitlines() if ' ' in l)
    mode = 'host' if info.get('host') == info.get('goldens') else 'table'
    if not quiet:
        print(f"float_adm division: {mode} (this processor's RCPSS fingerprint {info.get('host')}, "
              f"goldens host {info.get('goldens')})")
    return ['--adm-div', mode]


# ---------------------------------------------------------------- LIBM: allowed residuals

# The math library is the only allowed residual between two backends (DESIGN.md, "The exactness
# contract", point 5). Every other value must be identical as a double.
#
# (output key, backend) -> bound. The backend is a column's backend ("cuda", later "opencl"), so
# one entry covers every column of that backend (threads, page-locked pictures, ...). A number is
# an absolute bound on |value - reference|; a callable is called as bound(reference_value, where)
# and returns the absolute bound, where `where` is a dict: clip, width, height, layout, bitdepth,
# frames, frame (index, or None for a pooled/aggregate value), stat ("frame", "min", "max",
# "mean", "harmonic_mean" or "aggregate"). Each entry is derived before it is measured.

CIEDE_LIBM_CALLS = 22


def ciede_device_bound(ref, where):
    """ciede2000 on a GPU backend against the CPU.

    The device evaluates the CPU's arithmetic in the CPU's types and the host
    adds the per-pixel floats in the CPU's order, so a pixel's dE00 can differ
    only where a math-library call returns a different value: glibc on the host,
    on the device a correctly rounded pow(x, 7) and CUDA's fp64 atan2 (2 calls),
    sin (2), cos (4), exp (1), pow(x, 2.4) (6) and pow(x, 1/3) (6): L = 22 calls
    per pixel whose rounding can differ. powf(x, 7) is not among them: the device
    reproduces the build host's glibc powf(x, 7) bit for bit (correctly rounded
    value plus the table of glibc's departures, made from every float at build
    time and checked against the running glibc at init; numerics/powf_table.h).
    Each call's result is rounded to float before it reaches dE00 through
    well-conditioned steps (products, quotients, a square root of a sum of
    squares), so one differing call moves the pixel's float dE00 by at most one
    float step, and a pixel by at most L steps: |d de_i| <= L * 2^-23 * de_i.
    Over the frame (worst case: every pixel differs) the sum moves by at most
    L * 2^-23 * S, plus the re-rounding of the N double additions,
    2 * N * 2^-53 * S. The score 45 - 20 log10(S / N) then moves by at most
        (20 / ln 10) * (L * 2^-23 + N * 2^-52)  (first order, relative error)
    applied per frame with a 1.01 margin for the second order.

    Pooled values are means and extremes of the per-frame values, so the
    per-frame bound holds for them too; the harmonic mean's slope
    ((s+1)/(m+1))^2 is within 1.01 of 1 for scores in the 20-60 range, so the
    harmonic mean (and the aggregates) get a 1.02 margin instead."""
    n = where['width'] * where['height']
    margin = 1.01 if where['stat'] in ('frame', 'min', 'max', 'mean') else 1.02
    return margin * (20 / math.log(10)) * (CIEDE_LIBM_CALLS * 2.0 ** -23 + n * 2.0 ** -52)


LIBM = {
    ('ciede2000', 'cuda'): ciede_device_bound,
}


def libm_bound(key, backend, ref, where):
    """The allowed |difference| of one value, or None where it must be identical."""
    bound = LIBM.get((key, backend))
    if bound is None:
        return None
    return bound(ref, where) if callable(bound) else bound
