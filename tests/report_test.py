"""The comparison report (--report, --plot, --meta, `tvmaf report`).

1. One pair, cups_576x324 raw (model vmaf_v0.6.1, psnr with apsnr), at the default
   precision and at --precision max:
   - every number the page prints (pooled, aggregate, per-frame, lowest frames) is the
     JSON output's number, character for character, and none is missing;
   - the lowest frames of the model are its lowest values, lowest first;
   - the page has no script and no external resource (pictures are data: URIs);
   - the model is drawn on 0-100 and the features it reads are folded (<details>);
   - the --plot SVG is well formed, with one panel per key.
2. A ladder of three CRFs of a public stream (testdata/streams/cups_576x324.ref.mkv,
   encoded here by the ffmpeg CLI with libx264; skipped, with a note, where it has no
   libx264), scored in one run with --meta --report --plot, then the same page built by
   `tvmaf report` from the saved outputs:
   - every number on both pages equals its encode's JSON, as printed;
   - the encodes are sorted by pooled VMAF, each with the bitrate the sidecar holds, which
     equals the stream's packets' bytes over its duration as ffprobe reads them;
   - one curve per encode in every per-frame panel; the rate-quality curve has one point
     per encode; five pictured lowest frames per encode (JPEG data: URIs);
   - the JSON outputs hold libvmaf's keys only (the sidecar holds the rest);
   - headless Chromium renders the page: not blank, each encode's colour drawn.
3. Refusals: a missing output, a JSON that is not libvmaf's, a ladder of fewer than 4
   encodes for BD-rate, a page that would replace an input; each one line, exit 1,
   nothing written or changed.

usage: report_test.py TVMAF_EXE [--clips DIR]   (models: $TVMAF_SHARED/models, else ../shared/models)
Exits 77 (skip) only when no Chromium can be found (scripts/bootstrap
installs Debian's chromium when run as root).
"""
import argparse
import base64
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
SVG = '{http://www.w3.org/2000/svg}'
# the page's colours of encodes 0, 1, 2 (src/output/report.c's palette)
COLOURS = ((0x1f, 0x5f, 0xbf), (0xd9, 0x48, 0x0f), (0x2b, 0x8a, 0x3e))


class Collect(html.parser.HTMLParser):
    """The numbers the page tags, per encode: pooled (data-pool), aggregate
    (data-aggregate), lowest frames (data-worst) and the per-frame tables (a header
    row naming each column's key); the tags, external references and images."""

    def __init__(self):
        super().__init__()
        self.pooled, self.frames, self.aggregate, self.worst = {}, {}, {}, {}
        self.bitrate, self.bd, self.rank = {}, {}, []
        self.tags, self.refs, self.images = set(), [], []
        self.details_depth, self.internal_panels, self.open_panels = 0, [], []
        self._cur = None
        self._text = ''
        self._table = None   # (encode, [keys]) of the per-frame table being read
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        a = dict(attrs)
        for name in ('src', 'href'):
            if name in a and not a[name].startswith(('data:', '#')):
                self.refs.append(a[name])
        if tag == 'img':
            self.images.append(a.get('src', ''))
        if tag == 'details':
            self.details_depth += 1
        if tag == 'section' and a.get('class') == 'panel':
            (self.internal_panels if self.details_depth else self.open_panels).append(
                (a.get('data-key'), a.get('data-class')))
        if tag == 'tr' and 'data-rank' in a:
            self.rank.append(int(a['data-enc']))
        if tag == 'table' and a.get('class') == 'frames':
            self._table = (int(a['data-enc']), [])
        if self._table is not None and tag == 'th' and 'data-key' in a:
            self._table[1].append(a['data-key'])
        if self._table is not None and tag == 'tr':
            self._row = []
        if tag == 'td' and ('data-pool' in a or 'data-aggregate' in a or 'data-worst' in a
                            or 'data-bitrate' in a or 'data-bd-rate' in a
                            or 'data-bd-quality' in a or self._row is not None):
            self._cur = a
            self._text = ''

    def handle_data(self, data):
        if self._cur is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == 'details':
            self.details_depth -= 1
        if tag == 'table' and self._table is not None:
            self._table = None
            self._row = None
        if tag == 'tr' and self._row is not None and self._table is not None:
            enc, keys = self._table
            if self._row:
                frame = int(self._row[0])
                for k, v in zip(keys, self._row[1:]):
                    if v != '':
                        self.frames[(enc, k, frame)] = v
            self._row = []
        if tag != 'td' or self._cur is None:
            return
        a, t = self._cur, self._text
        self._cur = None
        if 'data-aggregate' in a:
            self.aggregate[(int(a['data-enc']), a['data-aggregate'])] = t
        elif 'data-pool' in a:
            self.pooled[(int(a['data-enc']), a['data-key'], a['data-pool'])] = t
        elif 'data-worst' in a:
            self.worst.setdefault((int(a['data-enc']), a['data-key']), []).append(
                (int(a['data-frame']), t))
        elif 'data-bitrate' in a:
            self.bitrate[int(a['data-enc'])] = a['data-bitrate']
        elif 'data-bd-rate' in a or 'data-bd-quality' in a:
            self.bd[(int(a['data-group']), 'rate' if 'data-bd-rate' in a else 'quality')] = \
                float(a.get('data-bd-rate', a.get('data-bd-quality')))
        elif self._row is not None:
            self._row.append(t)


def decode_png(path):
    """(width, height, bytes per pixel, rows) of an 8-bit RGB or RGBA PNG."""
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


def load_json_text(path):
    """The JSON output with every number as the characters it was printed with."""
    return json.load(open(path), parse_float=str, parse_int=str,
                     object_pairs_hook=lambda kv: {k: 'null' if v is None else v for k, v in kv})


def parse_page(path):
    c = Collect()
    c.feed(open(path, encoding='utf-8').read())
    c.close()
    return c


def screenshot(chromium, tmp, page, png, size):
    env = dict(os.environ, HOME=tmp)
    p = subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu',
                        '--disable-dev-shm-usage', '--hide-scrollbars',
                        f'--user-data-dir={os.path.join(tmp, "profile")}',
                        f'--window-size={size}', f'--screenshot={png}', 'file://' + page],
                       capture_output=True, text=True, env=env, timeout=180)
    return p.returncode


def pixel_counts(png, colours):
    """Non-white pixels and, per colour, the pixels within 40 of it."""
    w, h, bpp, rows = decode_png(png)
    nonwhite, near = 0, [0] * len(colours)
    for row in rows:
        for i in range(0, len(row), bpp):
            r, g, b = row[i], row[i + 1], row[i + 2]
            if r < 240 or g < 240 or b < 240:
                nonwhite += 1
                for k, (cr, cg, cb) in enumerate(colours):
                    if abs(r - cr) + abs(g - cg) + abs(b - cb) < 40:
                        near[k] += 1
    return w, h, nonwhite, near


class Checker:
    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what):
        print(('ok    ' if ok else 'FAIL  ') + what)
        self.failed += not ok


def check_numbers(check, tag, page, docs):
    """Every number of the page against the JSON outputs (docs[i]: encode i's)."""
    c = parse_page(page)
    check('script' not in c.tags and not c.refs,
          f'[{tag}] no script, no external reference ({c.refs[:3]})')
    want_pool = {(i, k, m): v for i, doc in enumerate(docs)
                 for k, d in doc['pooled_metrics'].items() for m, v in d.items()}
    check(want_pool == c.pooled,
          f'[{tag}] {len(c.pooled)} pooled values equal the JSON\'s {len(want_pool)}'
          + ('' if want_pool == c.pooled else
             f' (first mismatch {sorted(set(want_pool.items()) ^ set(c.pooled.items()))[:2]})'))
    want_frames = {(i, k, int(f['frameNum'])): v for i, doc in enumerate(docs)
                   for f in doc['frames'] for k, v in f['metrics'].items()}
    bad = [k for k in want_frames if c.frames.get(k) != want_frames[k]]
    check(not bad and len(c.frames) == len(want_frames),
          f'[{tag}] {len(c.frames)} per-frame values equal the JSON\'s {len(want_frames)}'
          + (f' (first mismatch {bad[0]}: {c.frames.get(bad[0])} != {want_frames[bad[0]]})'
             if bad else ''))
    want_agg = {(i, k): v for i, doc in enumerate(docs)
                for k, v in doc.get('aggregate_metrics', {}).items()}
    check(c.aggregate == want_agg, f'[{tag}] {len(c.aggregate)} aggregate values equal the JSON\'s')
    for i, doc in enumerate(docs):
        worst = c.worst.get((i, 'vmaf'), [])
        vm = sorted((float(f['metrics']['vmaf']), int(f['frameNum'])) for f in doc['frames'])
        check(len(worst) == 5 and [n for n, _ in worst] == [n for _, n in vm[:5]] and
              all(want_frames[(i, 'vmaf', n)] == t for n, t in worst),
              f'[{tag}] encode {i}: the 5 lowest vmaf frames, lowest first, with the JSON\'s '
              f'numbers ({[n for n, _ in worst]})')
    return c


def single_pair(a, check, tmp):
    ref = os.path.join(a.clips, CLIP + '.ref.yuv')
    dis = os.path.join(a.clips, CLIP + '.dis.yuv')
    for prec in ([], ['--precision', 'max']):
        tag = 'one pair, ' + ('max' if prec else 'default')
        js, page, svg = (os.path.join(tmp, f'one_{len(prec)}.{e}') for e in ('json', 'html', 'svg'))
        run([a.exe, '-r', ref, '-d', dis, '-w', '576', '-h', '324', '-p', '420', '-b', '8',
             '--feature', 'psnr=enable_apsnr=true', '--json', '-o', js, '--report', page,
             '--plot', svg, '-q'] + prec)
        doc = load_json_text(js)
        c = check_numbers(check, tag, page, [doc])
        check(c.open_panels[0] == ('vmaf', 'model') and
              [k for k, _ in c.open_panels[1:]] == ['psnr_y', 'psnr_cb', 'psnr_cr'] and
              'integer_adm2' in [k for k, _ in c.internal_panels],
              f'[{tag}] the model first, then the features asked for; the model\'s inputs '
              f'folded ({c.open_panels}, {len(c.internal_panels)} folded)')
        root = ET.parse(svg).getroot()
        panels = root.findall(SVG + 'svg')
        n_keys = len(doc['pooled_metrics'])
        check(root.tag == SVG + 'svg' and len(panels) == n_keys,
              f'[{tag}] the --plot SVG holds {len(panels)} panels, one per key ({n_keys})')
        # the model's axis: 0 to 100 in round steps
        labels = [t.text for t in panels[0].iter(SVG + 'text')]
        check('0' in labels and '100' in labels and '20' in labels,
              f'[{tag}] vmaf\'s axis runs 0..100 in round steps ({labels[:8]})')
    return page


def make_ladder(a, tmp):
    """Three CRFs of the public stream (libx264 through the ffmpeg CLI), or None."""
    src = os.path.join(a.shared, 'testdata', 'streams', CLIP + '.ref.mkv')
    ffmpeg = shutil.which('ffmpeg')
    if not ffmpeg or not os.path.exists(src):
        return None, None, 'no ffmpeg CLI or no public stream'
    out = []
    for crf in (22, 32, 42):
        p = os.path.join(tmp, f'crf{crf}.mkv')
        r = subprocess.run([ffmpeg, '-v', 'error', '-y', '-i', src, '-c:v', 'libx264',
                            '-preset', 'ultrafast', '-crf', str(crf), p], capture_output=True)
        if r.returncode:
            return None, None, 'ffmpeg has no libx264'
        out.append(p)
    return src, out, None


def packets_bitrate(path):
    """The video stream's bytes over its duration, from ffprobe's packet list."""
    p = run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
             'packet=size,pts_time,duration_time', '-of', 'json', path])
    pk = json.loads(p.stdout)['packets']
    size = sum(int(x['size']) for x in pk)
    start = min(float(x['pts_time']) for x in pk)
    end = max(float(x['pts_time']) + float(x['duration_time']) for x in pk)
    return size * 8 / (end - start)


def ladder(a, check, tmp, chromium):
    ref, encodes, why = make_ladder(a, tmp)
    if why:
        print(f'note  the ladder part is skipped: {why}')
        return
    names = [os.path.splitext(os.path.basename(e))[0] for e in encodes]
    page, svg = os.path.join(tmp, 'ladder.html'), os.path.join(tmp, 'ladder.svg')
    run([a.exe, '-r', ref] + sum((['-d', e] for e in encodes), []) +
        ['--feature', 'psnr', '--feature', 'float_ssim', '--json', '--meta', '-q',
         '-o', os.path.join(tmp, '%s.json'), '--report', page, '--plot', svg])
    outs = [os.path.join(tmp, n + '.json') for n in names]
    docs = [load_json_text(o) for o in outs]
    check(all(set(d) == {'version', 'fps', 'frames', 'pooled_metrics', 'aggregate_metrics'}
              for d in docs) and all(os.path.exists(o + '.meta.json') for o in outs),
          '[ladder] the outputs hold libvmaf\'s keys alone; a sidecar beside each')
    rebuilt = os.path.join(tmp, 'rebuilt.html')
    run([a.exe, 'report'] + outs + ['-o', rebuilt])
    for tag, pg in (('ladder, --report', page), ('ladder, tvmaf report', rebuilt)):
        c = check_numbers(check, tag, pg, docs)
        means = [float(d['pooled_metrics']['vmaf']['mean']) for d in docs]
        check(c.rank == sorted(range(3), key=lambda i: -means[i]),
              f'[{tag}] the encodes sorted by pooled vmaf ({c.rank})')
        metas = [json.load(open(o + '.meta.json')) for o in outs]
        check(all(c.bitrate.get(i) == '%.0f' % m['distorted']['bitrate']
                  for i, m in enumerate(metas)),
              f'[{tag}] each encode\'s bitrate is its sidecar\'s ({c.bitrate})')
        pictures = [s for s in c.images if s.startswith('data:image/jpeg;base64,')]
        check(len(pictures) == 2 * 5 * 3 and len(pictures) == len(c.images) and
              all(base64.b64decode(s.split(',', 1)[1])[:2] == b'\xff\xd8' for s in pictures),
              f'[{tag}] 5 lowest frames x 3 encodes, each a side-by-side and a crop JPEG '
              f'({len(pictures)} of {len(c.images)} images)')
    for i, e in enumerate(encodes):
        m = json.load(open(outs[i] + '.meta.json'))
        want = packets_bitrate(e)
        check(m['distorted']['bitrate_source'] == 'packets' and
              abs(m['distorted']['bitrate'] - want) <= 1,
              f'[ladder] {names[i]}: bitrate {m["distorted"]["bitrate"]} bit/s = the packets\' '
              f'bytes over the duration by ffprobe ({want:.1f})')
    # the plots: one curve per encode in every per-frame panel, one point per encode
    root = ET.parse(svg).getroot()
    panels = root.findall(SVG + 'svg')
    rq = [g for p in panels for g in p.iter(SVG + 'g') if g.get('class') == 'rq']
    check(len(rq) == 1 and len(rq[0].findall(SVG + 'circle')) == 3,
          '[ladder] the rate-quality curve: one ladder, a point per encode')
    per_frame = [p for p in panels if any(g.get('class') == 'curve' for g in p.iter(SVG + 'g'))]
    curves = [sorted(int(g.get('data-enc')) for g in p.iter(SVG + 'g') if g.get('class') == 'curve')
              for p in per_frame]
    check(per_frame and all(c == [0, 1, 2] for c in curves),
          f'[ladder] each of the {len(per_frame)} per-frame panels has one curve per encode')
    png = os.path.join(tmp, 'ladder.png')
    rc = screenshot(chromium, tmp, page, png, '1000,1600')
    check(rc == 0 and os.path.exists(png), f'[ladder] chromium renders the page (exit {rc})')
    if os.path.exists(png):
        w, h, nonwhite, near = pixel_counts(png, COLOURS)
        print(f'      screenshot {w}x{h}: {100 * nonwhite / (w * h):.1f}% non-white, pixels of '
              f'each encode\'s colour {near}')
        check(nonwhite > w * h * 0.03, '[ladder] the screenshot is not blank (> 3% non-white)')
        check(all(n > 150 for n in near), '[ladder] every encode\'s curve is drawn (> 150 '
              'pixels of its colour)')
    return outs


def refusals(a, check, tmp, outs):
    """Bad inputs of tvmaf report: one line, exit 1, nothing written or changed."""
    bogus = os.path.join(tmp, 'bogus.json')
    with open(bogus, 'w') as f:
        json.dump({'frames': 3}, f)
    page = os.path.join(tmp, 'refused.html')
    cases = [('a missing output', [os.path.join(tmp, 'missing.json')], 'cannot read'),
             ('a JSON that is not libvmaf\'s', [bogus], 'not a libvmaf JSON output'),
             ('no output given', [], 'give the JSON outputs')]
    if outs:
        cases += [('BD-rate with 3 encodes a ladder', ['--ladder', 'a'] + outs +
                   ['--ladder', 'b'] + outs, 'at least 4 points'),
                  ('--ladder after an output', outs[:1] + ['--ladder', 'a'] + outs[1:],
                   'before the first output')]
    for what, args, want in cases:
        p = subprocess.run([a.exe, 'report'] + args + ['-o', page], capture_output=True,
                           text=True)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 1 and len(lines) == 1 and want in lines[0] and
              not os.path.exists(page), f'refused: {what} ({lines})')
    if outs:
        before = open(outs[0], 'rb').read()
        p = subprocess.run([a.exe, 'report'] + outs + ['-o', outs[0]], capture_output=True,
                           text=True)
        check(p.returncode == 1 and 'would replace an input' in p.stderr and
              open(outs[0], 'rb').read() == before,
              'refused: a page that would replace an input; the input unchanged')
        keep = os.path.join(tmp, 'keep.html')
        with open(keep, 'w') as f:
            f.write('previous')
        p = subprocess.run([a.exe, 'report', bogus, '-o', keep], capture_output=True, text=True)
        check(p.returncode == 1 and open(keep).read() == 'previous',
              'a refused report leaves an existing page untouched')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('exe')
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS', os.path.join(ROOT, '.cache', 'clips')))
    a = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print('SKIP: no chromium (scripts/bootstrap installs it as root)')
        return 77
    a.shared = os.path.abspath(os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared')))
    os.environ['TVMAF_MODEL_PATH'] = os.path.join(a.shared, 'models')
    check = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        page = single_pair(a, check, tmp)
        # bad report paths fail up front with one line; a failed run leaves an
        # existing report untouched
        ref = os.path.join(a.clips, CLIP + '.ref.yuv')
        dis = os.path.join(a.clips, CLIP + '.dis.yuv')
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
        p = subprocess.run(base + ['--meta'], capture_output=True, text=True)
        check(p.returncode == 1 and '--meta' in p.stderr, '--meta without -o FILE is refused')
        png = os.path.join(tmp, 'one.png')
        rc = screenshot(chromium, tmp, page, png, '1000,1400')
        check(rc == 0 and os.path.exists(png), f'[one pair] chromium renders the page (exit {rc})')
        if os.path.exists(png):
            w, h, nonwhite, near = pixel_counts(png, COLOURS[:1])
            print(f'      screenshot {w}x{h}: {100 * nonwhite / (w * h):.1f}% non-white, '
                  f'{near[0]} of the curve\'s blue')
            check(w == 1000 and h == 1400, '[one pair] the screenshot has the window size')
            check(nonwhite > w * h * 0.03, '[one pair] the screenshot is not blank')
            check(near[0] > 200, '[one pair] the curves are drawn (> 200 blue pixels)')
        outs = ladder(a, check, tmp, chromium)
        refusals(a, check, tmp, outs)
    print(f'{"FAILED" if check.failed else "passed"}: {check.failed} failure(s)')
    return 1 if check.failed else 0


if __name__ == '__main__':
    sys.exit(main())
