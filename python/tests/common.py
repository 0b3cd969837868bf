"""What the Python tests share: the CLI's JSON at --precision max and a
comparison of a Result with it, value by value, as bits."""
import json
import os
import struct
import subprocess
import tempfile

import numpy as np

EXE = os.environ.get('TVMAF_EXE')
CLIPS = os.environ.get('TVMAF_CLIPS')
STREAMS = os.environ.get('TVMAF_STREAMS')
CLIP = 'cups_576x324'


def clip(name=CLIP):
    """(ref path, dis path, info dict) of a decoded test clip."""
    base = os.path.join(CLIPS, name)
    info = dict(line.strip().split('=', 1) for line in open(base + '.info') if '=' in line)
    return base + '.ref.yuv', base + '.dis.yuv', info


def stream(name=CLIP):
    """(ref path, dis path) of an encoded public stream (FFV1 in Matroska)."""
    base = os.path.join(STREAMS, name)
    return base + '.ref.mkv', base + '.dis.mkv'


def json_doc(doc):
    """The CLI's JSON without its run's fyi (version, fps): the keys
    Result.to_dict() gives."""
    return {k: doc[k] for k in ('frames', 'pooled_metrics', 'aggregate_metrics')}


def dict_as_json(d):
    """Result.to_dict() with non-finite floats as None (the JSON's null)."""
    if isinstance(d, dict):
        return {k: dict_as_json(v) for k, v in d.items()}
    if isinstance(d, list):
        return [dict_as_json(v) for v in d]
    return as_json_value(d) if isinstance(d, float) else d


def same_bits(a, b):
    """Two to_dict()-shaped values equal as bits (floats by their bytes), in
    the same key order."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and \
            all(same_bits(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same_bits, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return bits(a) == bits(b)
    return a == b and type(a) is type(b)


def raw_args(info):
    return ['-w', info['width'], '-h', info['height'], '-p', info['layout'], '-b',
            info['bitdepth']]


def cli_json(args):
    """The CLI's JSON at --precision max (doubles parse back exactly)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.json')
        p = subprocess.run([EXE] + args + ['--json', '--precision', 'max', '-o', out, '-q'],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return json.load(open(out))


def cli_error(args):
    """The CLI's one-line error message, without the "tvmaf: " prefix."""
    p = subprocess.run([EXE] + args + ['-q'], capture_output=True, text=True)
    assert p.returncode != 0
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith('tvmaf: ')
    return line[len('tvmaf: '):]


def bits(v):
    return None if v is None else struct.pack('<d', v)


def as_json_value(v):
    """A double as the JSON holds it: non-finite values are null."""
    return float(v) if np.isfinite(v) else None


def assert_same(result, doc):
    """Every frame, key (in the same order), per-frame, pooled and aggregate
    value of `result` is the JSON's, as bits."""
    frames = [f['frameNum'] for f in doc['frames']]
    assert [int(f) for f in result.frames] == frames
    assert list(result.pooled) == list(doc['pooled_metrics'])
    n_values = 0
    for i, f in enumerate(doc['frames']):
        listed = [k for k in result.scores if not np.isnan(result.scores[k][i])
                  or k in f['metrics']]
        assert listed == list(f['metrics']), f'frame {f["frameNum"]}: keys'
        for k, v in f['metrics'].items():
            got = as_json_value(result.scores[k][i])
            assert bits(got) == bits(v), f'frame {f["frameNum"]} {k}: {got!r} != {v!r}'
            n_values += 1
    for k, pools in doc['pooled_metrics'].items():
        assert list(result.pooled[k]) == list(pools)
        for m, v in pools.items():
            got = as_json_value(result.pooled[k][m])
            assert bits(got) == bits(v), f'pooled {k} {m}: {got!r} != {v!r}'
    assert list(result.aggregate) == list(doc['aggregate_metrics'])
    for k, v in doc['aggregate_metrics'].items():
        assert bits(as_json_value(result.aggregate[k])) == bits(v), f'aggregate {k}'
    return n_values
