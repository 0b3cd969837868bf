"""The package's calls beyond one raw pair: encoded input and scale= through
libtvmaf's reader, score_ladder, score_batch, Result.to_dict() and
to_pandas(), and the Ray driver's table columns, each against the CLI's
JSON at --precision max, as bits."""
import csv
import io
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tvmaf
from tvmaf import batch
from common import (EXE, assert_same, bits, cli_json, clip, dict_as_json, json_doc, raw_args,
                    same_bits, stream)

RAW = dict(width=576, height=324, pix_fmt='420', bitdepth=8)
FEATURES = ['psnr=enable_apsnr=true', 'float_ssim']


def ffmpeg_build():
    return tvmaf.build_info()['ffmpeg']


needs_ffmpeg = pytest.mark.skipif('not ffmpeg_build()', reason='libtvmaf built without FFmpeg')


def test_to_dict_is_the_cli_json():
    ref, dis, info = clip()
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + [
        '--backend', 'cpu', '--subsample', '2', '-m', 'version=vmaf_v0.6.1',
        '-m', 'version=vmaf_b_v0.6.3:name=b'] + sum((['--feature', f] for f in FEATURES), []))
    r = tvmaf.score_files(ref, dis, **RAW, models=['vmaf_v0.6.1',
                                                   {'version': 'vmaf_b_v0.6.3', 'name': 'b'}],
                          features=FEATURES, backend='cpu', subsample=2)
    d = r.to_dict()
    assert list(d) == ['frames', 'pooled_metrics', 'aggregate_metrics']
    assert same_bits(dict_as_json(d), json_doc(doc))
    assert d['aggregate_metrics'] and d['pooled_metrics']['b_ci_p95_lo']
    # the attributes are the same values
    assert bits(r.pooled['vmaf']['mean']) == bits(d['pooled_metrics']['vmaf']['mean'])
    assert r.aggregate == d['aggregate_metrics']


def test_to_pandas():
    pandas = pytest.importorskip('pandas')
    ref, dis, _ = clip()
    r = tvmaf.score_files(ref, dis, **RAW, features=['psnr'], backend='cpu', subsample=3)
    df = r.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns) == ['frame'] + list(r.keys())
    assert list(df['frame']) == list(range(0, 48, 3)) == [int(f) for f in r.frames]
    for k in r.keys():
        assert df[k].dtype == np.float64
        assert df[k].to_numpy().tobytes() == r[k].tobytes(), k


def test_to_pandas_without_pandas(monkeypatch):
    a = np.zeros((1, 16, 16), np.uint8)
    r = tvmaf.score_frames(a, a, models=(), features=['psnr'], backend='cpu')
    monkeypatch.setitem(sys.modules, 'pandas', None)  # import pandas raises ImportError
    with pytest.raises(ImportError, match=r'pip install tvmaf\[pandas\]'):
        r.to_pandas()


@pytest.mark.parametrize('threads', [0, 3])
def test_ladder_is_single_pairs(tmp_path, threads):
    """score_ladder gives each pair the bits of its own score_files run and of
    the CLI's ladder."""
    ref, dis, info = clip()
    # a third input: the distorted clip with its first frames' luma darkened
    data = bytearray(open(dis, 'rb').read())
    for i in range(0, 576 * 324):
        data[i] = data[i] // 2
    other = str(tmp_path / 'other.yuv')
    open(other, 'wb').write(bytes(data))
    dists = [dis, ref, other]
    kw = dict(RAW, features=['psnr', 'float_motion'], backend='cpu', threads=threads)
    ladder = tvmaf.score_ladder(ref, dists, **kw)
    assert len(ladder) == 3
    pattern = str(tmp_path / 'ladder_%d.json')
    p = subprocess.run([EXE, '-r', ref] + sum((['-d', d] for d in dists), []) + raw_args(info) +
                       ['--backend', 'cpu', '--threads', str(threads), '--feature', 'psnr',
                        '--feature', 'float_motion', '--json', '--precision', 'max', '-o',
                        pattern, '-q'], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    import json
    for i, (d, r) in enumerate(zip(dists, ladder)):
        single = tvmaf.score_files(ref, d, **kw)
        assert same_bits(single.to_dict(), r.to_dict()), d
        assert_same(r, json.load(open(pattern % (i + 1))))


def test_ladder_frame_options():
    ref, dis, info = clip()
    kw = dict(RAW, features=['psnr'], models=(), backend='cpu', frame_cnt=5, frame_skip_ref=2,
              frame_skip_dist=1)
    a, b = tvmaf.score_ladder(ref, [dis, dis], **kw)
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + [
        '--backend', 'cpu', '--feature', 'psnr', '--frame_cnt', '5', '--frame_skip_ref', '2',
        '--frame_skip_dist', '1', '-n'])
    assert_same(a, doc)
    assert_same(b, doc)


@needs_ffmpeg
@pytest.mark.parametrize('name', ['cups_576x324', 'cups_576x324_10b'])
def test_encoded_input_matches_cli(name):
    ref, dis = stream(name)
    if not os.path.exists(ref):
        pytest.skip(f'no stream {ref}')
    doc = cli_json(['-r', ref, '-d', dis, '--backend', 'cpu', '--feature', 'psnr'])
    r = tvmaf.score_files(ref, dis, features=['psnr'], backend='cpu')
    assert_same(r, doc)
    # a raw reference beside the encoded distorted input (the CLI's --ref-format)
    raw_ref, _, info = clip(name)
    fmt = f'{info["width"]}x{info["height"]}:{info["layout"]}:{info["bitdepth"]}'
    doc2 = cli_json(['-r', raw_ref, '--ref-format', fmt, '-d', dis, '--backend', 'cpu',
                     '--feature', 'psnr'])
    r2 = tvmaf.score_files(raw_ref, dis, ref_format=fmt, features=['psnr'], backend='cpu')
    assert_same(r2, doc2)


@needs_ffmpeg
def test_scale_matches_cli(tmp_path):
    ref, dis = stream()
    ff = shutil.which('ffmpeg')
    if not ff or not os.path.exists(ref):
        pytest.skip('needs the ffmpeg program and the streams')
    half = str(tmp_path / 'half.mkv')
    subprocess.run([ff, '-v', 'error', '-i', dis, '-vf', 'scale=288:162', '-c:v', 'ffv1', half],
                   check=True)
    with pytest.raises(tvmaf.TvmafError, match='scale=FILTER'):
        tvmaf.score_files(ref, half, features=['psnr'], models=(), backend='cpu')
    for flt in ('bicubic', 'lanczos'):
        doc = cli_json(['-r', ref, '-d', half, '--scale', flt, '--backend', 'cpu',
                        '--feature', 'psnr'])
        r = tvmaf.score_files(ref, half, scale=flt, features=['psnr'], backend='cpu')
        assert_same(r, doc)
    # raw input is not scaled: the library says how to scale it
    raw_ref, raw_dis, _ = clip()
    with pytest.raises(tvmaf.TvmafError):
        tvmaf.score_files(raw_ref, raw_dis, ref_format='576x324:420:8', scale='bicubic',
                          dis_format='288x162:420:8', features=['psnr'], models=())


def test_encoded_input_without_ffmpeg():
    """A build without FFmpeg refuses encoded input with the library's
    sentence and how to get a build that reads it."""
    if ffmpeg_build():
        pytest.skip('libtvmaf has FFmpeg')
    ref, dis = stream()
    if not os.path.exists(ref):
        pytest.skip(f'no stream {ref}')
    with pytest.raises(tvmaf.TvmafError) as e:
        tvmaf.score_files(ref, dis, features=['psnr'], models=())
    msg = str(e.value)
    assert 'pip install .' in msg and 'libavformat-dev' in msg
    assert msg.split(' Encoded input needs')[0], msg


def write_manifest(tmp_path):
    ref, dis, _ = clip()
    m = tmp_path / 'pairs.csv'
    m.write_text('ref,dis,width,height,pix_fmt,bitdepth,model\n'
                 f'{ref},{dis},576,324,420,8,\n'
                 f'{ref},{dis}.missing,576,324,420,8,\n'
                 f'{ref},{dis},576,324,nv12,8,\n'
                 f'{dis},{ref},576,324,420,8,version=vmaf_v0.6.1neg:name=neg\n')
    return str(m)


@pytest.mark.parametrize('jobs', [1, 2])
def test_batch(tmp_path, jobs):
    m = write_manifest(tmp_path)
    ref, dis, _ = clip()
    rows = tvmaf.score_batch(m, jobs=jobs, features=['psnr'], backend='cpu', frame_cnt=6)
    assert [r['line'] for r in rows] == [2, 3, 4, 5]
    assert [r['status'] for r in rows] == ['ok', 'failed', 'bad_row', 'ok']
    assert '.missing' in rows[1]['error'] and 'nv12' in rows[2]['error']
    single = tvmaf.score_files(ref, dis, **RAW, features=['psnr'], backend='cpu', frame_cnt=6)
    assert same_bits(rows[0]['result'].to_dict(), single.to_dict())
    assert rows[0]['frames'] == 6
    for k, p in single.pooled.items():
        assert bits(rows[0][f'{k}_mean']) == bits(p['mean']), k
    assert rows[0]['vmaf_mean'] == single.pooled['vmaf']['mean']
    # the row's model replaces the option's
    assert rows[3]['vmaf_mean'] is None and 'neg_mean' in rows[3] and 'psnr_y_mean' in rows[3]
    assert rows[1]['result'] is None and rows[1]['vmaf_mean'] is None


def test_ray_table_has_every_pooled_mean(tmp_path):
    """The Ray driver's task (run here without Ray) puts each pooled key's
    mean in the table, printed exactly, under KEY_mean."""
    ref, dis, info = clip()
    values = {'ref': ref, 'dis': dis, 'width': '576', 'height': '324', 'pix_fmt': '420',
              'bitdepth': '8'}
    opts = ['--backend', 'cpu', '--feature', 'psnr', '--frame_cnt', '4',
            '-m', 'version=vmaf_v0.6.1', '-m', 'version=vmaf_v0.6.1neg:name=neg']
    got = batch.score_pair(EXE, values, opts, {})
    assert got['status'] == 'ok', got
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + opts)
    for k, p in doc['pooled_metrics'].items():
        assert got[f'{k}_mean'] == repr(float(p['mean'])), k
    rows = [batch.Row(2), batch.Row(3)]
    rows[0].values, rows[1].values = values, dict(values, dis='x')
    buf = io.StringIO()
    batch.write_table(rows, {2: got, 3: {'status': 'failed', 'error': 'no'}}, buf)
    table = list(csv.DictReader(io.StringIO(buf.getvalue())))
    header = buf.getvalue().splitlines()[0].split(',')
    means = [f'{k}_mean' for k in doc['pooled_metrics'] if k != 'vmaf']
    assert header == ['line', 'ref', 'dis', 'status', 'vmaf_mean'] + means + \
        ['frames', 'error', 'output', 'worker']
    assert table[0]['psnr_y_mean'] == got['psnr_y_mean'] and table[1]['psnr_y_mean'] == ''


def test_y4m_frame_rates_do_not_refuse(tmp_path):
    """Y4M headers' F differing is no refusal (the CLI and libvmaf score such
    pairs frame by frame); only encoded streams' rates are compared."""
    w, h = 64, 48
    frame = np.full(w * h * 3 // 2, 90, np.uint8).tobytes()
    paths = []
    for name, rate in (('a.y4m', '30:1'), ('b.y4m', '25:1')):
        p = tmp_path / name
        p.write_bytes(f'YUV4MPEG2 W{w} H{h} F{rate} Ip A1:1 C420jpeg\n'.encode() +
                      (b'FRAME\n' + frame) * 2)
        paths.append(str(p))
    r = tvmaf.score_files(*paths, models=(), features=['psnr'], backend='cpu')
    assert len(r.frames) == 2


def test_raw_geometry_for_an_encoded_file_is_refused():
    """width/height/pix_fmt/bitdepth describe raw YUV: given for an .mkv,
    the reader refuses rather than score the container's bytes as YUV."""
    ref, dis = stream('cups_576x324')
    with pytest.raises(tvmaf.TvmafError, match='encoded video'):
        tvmaf.score_files(ref, dis, **RAW, models=(), features=['psnr'], backend='cpu')
