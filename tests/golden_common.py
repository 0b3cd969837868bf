"""What the golden tests share: results, clips, comparisons of doubles as
bits, the output's volatile lines and the float_adm division to use."""
import os
import struct
import subprocess
import sys


def bits(v):
    """A value as comparable bits: None for JSON null (non-finite)."""
    if v is None:
        return None
    return struct.pack('<d', float(v))


def same(a, b):
    return bits(a) == bits(b)


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


def read_clips(shared):
    clips = []
    with open(os.path.join(shared, 'testdata', 'clips.tsv')) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            c = line.rstrip('\n').split('\t')
            clips.append(dict(name=c[0], w=int(c[2]), h=int(c[3]), frames=int(c[4]),
                              layout=c[5], bits=int(c[6])))
    if os.environ.get('TVMAF_TEST_QUICK') == '1':
        # the sanitizer pass (.ci/run): the clips up to 576x324 only (every
        # layout and depth is among them); the plain pass runs every clip
        big = [c['name'] for c in clips if c['w'] * c['h'] > 576 * 324]
        clips = [c for c in clips if c['w'] * c['h'] <= 576 * 324]
        print(f"TVMAF_TEST_QUICK=1: leaving out {', '.join(big)}")
    return clips


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



def choose_adm_division(exe):
    """float_adm divides through the processor's reciprocal estimate, as the
    reference did on the goldens host. Where this processor's estimate is that
    host's (equal fingerprints) its own instruction reproduces the goldens;
    elsewhere the goldens host's table is replayed. Prints the choice."""
    p = subprocess.run([exe, '--rcpss-fingerprint'], capture_output=True, text=True)
    info = dict(l.split(None, 1) for l in p.stdout.splitlines() if ' ' in l)
    mode = 'host' if info.get('host') == info.get('goldens') else 'table'
    os.environ['TVMAF_ADM_DIV'] = mode
    print(f"float_adm division: {mode} (this processor's RCPSS fingerprint {info.get('host')}, "
          f"goldens host {info.get('goldens')})")
