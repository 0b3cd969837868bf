"""The HTML report of cups_576x324 (model vmaf_v0.6.1, psnr with apsnr), at the
default precision and at --precision max:

- every number the report prints (pooled, aggregate, per-frame, worst frames)
  is the JSON output's number, character for character, and none is missing;
- the worst-frames list of the model holds its lowest values, lowest first;
- the page contains no script and no external resource;
- headless Chromium renders it to a PNG that is not blank: a fair share of
  non-white pixels, and pixels of the model curve's blue and the feature
  curves' red (decoded here with zlib, no imaging library);
- the --plot SVG is a well-formed SVG with one panel per key.

usage: report_test.py TVMAF_EXE [--clips DIR]   (models: $TVMAF_SHARED/models, else ../shared/models)
Exits 77 (skip) only when no Chromium can be found (scripts/bootstrap
installs Debian's chromium when run as root).
"""
import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIP = 'cups_576x324'


class Collect(html.parser.HTMLParser):
    """The numbers the report tags (data-pool / data-frame / data-aggregate),
    the tags it uses and the external references it holds."""

    def __init__(self):
        super().__init__()
        self.pooled, self.frames, self.aggregate, self.worst = {}, {}, {}, {}
        self.tags, self.refs = set(), []
        self._cur = None
        self._text = ''

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        a = dict(attrs)
        for name in ('src', 'href'):
            if name in a:
                self.refs.append(a[name])
        if tag == 'td' and ('data-pool' in a or 'data-frame' in a or 'data-aggregate' in a):
            self._cur = a
            self._text = ''

    def handle_data(self, data):
        if self._cur is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag != 'td' or self._cur is None:
            return
        a, t = self._cur, self._text
        self._cur = None
        if 'data-aggregate' in a:
            self.aggregate[a['data-aggregate']] = t
        elif 'data-pool' in a:
            self.pooled[(a['data-key'], a['data-pool'])] = t
        elif 'data-worst' in a:
            self.worst.setdefault(a['data-key'], []).append((int(a['data-frame']), t))
        else:
            self.frames[(a['data-key'], int(a['data-frame']))] = t


def decode_png(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, ihdr = 8, b'', None
    while pos < len(data):
        n, = struct.unpack('>I', data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f'unexpected PNG layout {ihdr}')
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        elif ftype != 0:
            raise ValueError(f'bad PNG filter {ftype}')
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome', 'chrome'):
        p = shutil.which(name)
        if p:
            return p
    return None


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        raise SystemExit(f'FAIL: {" ".join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}')
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('exe')
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS', os.path.join(ROOT, '.cache', 'clips')))
    a = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print('SKIP: no chromium (scripts/bootstrap installs it as root)')
        return 77
    # the models of the shared data, as the golden tests find them
    shared = os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared'))
    os.environ['TVMAF_MODEL_PATH'] = os.path.join(os.path.abspath(shared), 'models')
    ref = os.path.join(a.clips, CLIP + '.ref.yuv')
    dis = os.path.join(a.clips, CLIP + '.dis.yuv')
    failed = 0

    def check(ok, what):
        nonlocal failed
        print(('ok    ' if ok else 'FAIL  ') + what)
        failed += not ok

    with tempfile.TemporaryDirectory() as tmp:
        for prec in ([], ['--precision', 'max']):
            tag = 'max' if prec else 'default'
            js, page, svg = (os.path.join(tmp, f'{tag}.{e}') for e in ('json', 'html', 'svg'))
            run([a.exe, '-r', ref, '-d', dis, '-w', '576', '-h', '324', '-p', '420', '-b', '8',
                 '--feature', 'psnr=enable_apsnr=true', '--json', '-o', js, '--report', page, '--plot', svg, '-q']
                + prec)
            # the JSON's numbers as the characters it printed
            doc = json.load(open(js), parse_float=str, parse_int=str,
                            object_pairs_hook=lambda kv: {k: 'null' if v is None else v
                                                          for k, v in kv})
            c = Collect()
            c.feed(open(page, encoding='utf-8').read())
            c.close()
            check('script' not in c.tags and not c.refs,
                  f'[{tag}] no script, no external reference ({c.refs[:3]})')
            want_pool = {(k, m): v for k, d in doc['pooled_metrics'].items() for m, v in d.items()}
            check(want_pool == c.pooled,
                  f'[{tag}] {len(c.pooled)} pooled values equal the JSON\'s {len(want_pool)}')
            want_frames = {(k, int(f['frameNum'])): v for f in doc['frames']
                           for k, v in f['metrics'].items()}
            bad = [k for k in want_frames if c.frames.get(k) != want_frames[k]]
            check(not bad and len(c.frames) == len(want_frames),
                  f'[{tag}] {len(c.frames)} per-frame values equal the JSON\'s {len(want_frames)}'
                  + (f' (first mismatch {bad[0]}: {c.frames.get(bad[0])} != {want_frames[bad[0]]})'
                     if bad else ''))
            check(c.aggregate == doc['aggregate_metrics'] and len(c.aggregate) > 0,
                  f'[{tag}] {len(c.aggregate)} aggregate values equal the JSON\'s')
            worst = c.worst.get('vmaf', [])
            vm = sorted(((float(v), n) for (k, n), v in want_frames.items() if k == 'vmaf'))
            check(len(worst) == 10 and
                  [n for n, _ in worst] == [n for _, n in vm[:10]] and
                  all(want_frames[('vmaf', n)] == t for n, t in worst),
                  f'[{tag}] the 10 worst vmaf frames are the lowest, with the JSON\'s numbers '
                  f'({[n for n, _ in worst]})')
            root = ET.parse(svg).getroot()
            panels = root.findall('{http://www.w3.org/2000/svg}svg')
            n_keys = len(doc['pooled_metrics'])
            check(root.tag == '{http://www.w3.org/2000/svg}svg' and len(panels) == n_keys,
                  f'[{tag}] the --plot SVG holds {len(panels)} panels, one per key ({n_keys})')

        # bad report paths fail up front with one line; a failed run leaves an
        # existing report untouched
        base = [a.exe, '-r', ref, '-d', dis, '-w', '576', '-h', '324', '-p', '420', '-b', '8',
                '-q', '--frame_cnt', '2']
        for opt, path in (('--report', os.path.join(tmp, 'no', 'such', 'dir.html')),
                          ('--plot', '-'), ('--report', tmp)):
            p = subprocess.run(base + [opt, path], capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            check(p.returncode == 1 and len(lines) == 1 and 'cannot write' in lines[0],
                  f'{opt} {os.path.basename(path) or path}: one-line error ({lines})')
        keep = os.path.join(tmp, 'keep.html')
        with open(keep, 'w') as f:
            f.write('previous')
        p = subprocess.run(base[:2] + [ref + '.missing'] + base[3:] + ['--report', keep],
                           capture_output=True, text=True)
        check(p.returncode == 1 and open(keep).read() == 'previous',
              'a failed run leaves an existing report untouched')

        png = os.path.join(tmp, 'max.png')
        profile = os.path.join(tmp, 'profile')
        env = dict(os.environ, HOME=tmp)
        p = subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu',
                            '--disable-dev-shm-usage',
                            '--hide-scrollbars', f'--user-data-dir={profile}',
                            '--window-size=1000,1400', f'--screenshot={png}',
                            'file://' + os.path.join(tmp, 'max.html')],
                           capture_output=True, text=True, env=env, timeout=180)
        check(p.returncode == 0 and os.path.exists(png),
              f'chromium renders the report (exit {p.returncode})')
        if os.path.exists(png):
            w, h, bpp, rows = decode_png(png)
            total = w * h
            nonwhite = blue = red = 0
            for row in rows:
                for i in range(0, len(row), bpp):
                    r, g, b = row[i], row[i + 1], row[i + 2]
                    if r < 240 or g < 240 or b < 240:
                        nonwhite += 1
                    if b > 150 and b - r > 80 and b - g > 40:
                        blue += 1
                    if r > 130 and r - g > 80 and r - b > 80:
                        red += 1
            print(f'screenshot {w}x{h}: {nonwhite} non-white pixels ({100 * nonwhite / total:.1f}%), '
                  f'{blue} model-curve blue, {red} feature-curve red')
            check(w == 1000 and h == 1400, 'screenshot has the window size')
            check(nonwhite > total * 0.03, 'the screenshot is not blank (> 3% non-white)')
            check(blue > 200, 'the vmaf curve is drawn (> 200 blue pixels)')
            check(red > 200, 'a feature curve is drawn (> 200 red pixels)')
    print(f'{"FAILED" if failed else "passed"}: {failed} failure(s)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
