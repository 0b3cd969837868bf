"""The Python package returns the CLI's numbers bit for bit (CPU backend),
from files and from numpy frames, and raises the library's errors."""
import os
import subprocess

import numpy as np
import pytest

import tvmaf
from common import as_json_value, assert_same, bits, cli_error, cli_json, clip, raw_args

FEATURES = ['psnr=enable_apsnr=true', 'float_ssim', 'ciede', 'float_motion']


def read_raw(path, info):
    """Frames of a raw clip as (Y, U, V) numpy planes."""
    w, h, bd = int(info['width']), int(info['height']), int(info['bitdepth'])
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h),
              '444': (w, h)}[info['layout']]
    dt = np.dtype(np.uint8 if bd == 8 else '<u2')
    data = np.fromfile(path, dtype=dt)
    size = w * h + 2 * cw * ch
    frames = []
    for f in range(data.size // size):
        d = data[f * size:(f + 1) * size]
        frames.append((d[:w * h].reshape(h, w), d[w * h:w * h + cw * ch].reshape(ch, cw),
                       d[w * h + cw * ch:].reshape(ch, cw)))
    return frames


def test_files_match_cli_json():
    ref, dis, info = clip()
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + ['--backend', 'cpu']
                   + sum((['--feature', f] for f in FEATURES), []))
    r = tvmaf.score_files(ref, dis, width=576, height=324, pix_fmt='420', bitdepth=8,
                          features=FEATURES, backend='cpu')
    assert isinstance(r['vmaf'], np.ndarray) and r['vmaf'].dtype == np.float64
    assert isinstance(r.pooled['vmaf']['mean'], float)
    assert len(r.frames) == 48
    n = assert_same(r, doc)
    assert n == 48 * len(doc['frames'][0]['metrics'])
    assert r.backends['adm'] == 'cpu'


def test_numpy_frames_match_cli_json():
    ref, dis, info = clip()
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + ['--backend', 'cpu',
                                                               '--feature', 'psnr'])
    r = tvmaf.score_frames(read_raw(ref, info), read_raw(dis, info), features=['psnr'],
                           backend='cpu')
    assert_same(r, doc)


def test_threads_subsample_and_models_match_cli_json():
    ref, dis, info = clip()
    args = ['-r', ref, '-d', dis] + raw_args(info) + [
        '--backend', 'cpu', '--threads', '4', '--subsample', '3',
        '-m', 'version=vmaf_v0.6.1:name=vmaf', '-m', 'version=vmaf_v0.6.1neg:name=neg',
        '--feature', 'float_psnr']
    doc = cli_json(args)
    r = tvmaf.score_files(ref, dis, width=576, height=324, pix_fmt='420', bitdepth=8,
                          models=['vmaf_v0.6.1', {'version': 'vmaf_v0.6.1neg', 'name': 'neg'}],
                          features=['float_psnr'], backend='cpu', threads=4, subsample=3)
    assert list(r.frames) == list(range(0, 48, 3))
    assert_same(r, doc)


@pytest.mark.parametrize('div', ['table', 'ieee'])
def test_adm_division_matches_cli_json(div):
    ref, dis, info = clip()
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + [
        '--backend', 'cpu', '--frame_cnt', '4', '--adm-div', div, '-m', 'version=vmaf_float_v0.6.1'])
    r = tvmaf.score_files(ref, dis, width=576, height=324, pix_fmt='420', bitdepth=8,
                          models=['vmaf_float_v0.6.1'], backend='cpu', frame_cnt=4, adm_div=div)
    assert 'adm2' in r
    assert_same(r, doc)


@pytest.mark.parametrize('name', ['cups_576x324_10b', 'cups_576x324_422',
                                  'cups_576x324_444_10b'])
def test_other_layouts_match_cli_json(name):
    ref, dis, info = clip(name)
    doc = cli_json(['-r', ref, '-d', dis] + raw_args(info) + ['--backend', 'cpu',
                                                               '--feature', 'psnr'])
    r = tvmaf.score_files(ref, dis, width=int(info['width']), height=int(info['height']),
                          pix_fmt=info['layout'], bitdepth=int(info['bitdepth']),
                          features=['psnr'], backend='cpu')
    assert_same(r, doc)
    r2 = tvmaf.score_frames(read_raw(ref, info), read_raw(dis, info),
                            bitdepth=int(info['bitdepth']), features=['psnr'], backend='cpu')
    assert_same(r2, doc)


def test_y4m_and_luma_only(tmp_path):
    """A Y4M written here and a 4:0:0 raw file (luma of the clip) give the
    CLI's numbers; numpy luma frames (a 3-D array) give the 4:0:0 ones."""
    ref, dis, info = clip()
    frames = {p: read_raw(p, info)[:6] for p in (ref, dis)}
    paths = {}
    for p, fr in frames.items():
        y4m = tmp_path / (os.path.basename(p) + '.y4m')
        with open(y4m, 'wb') as f:
            f.write(b'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n')
            for planes in fr:
                f.write(b'FRAME\n')
                for pl in planes:
                    f.write(pl.tobytes())
        luma = tmp_path / (os.path.basename(p) + '.400.yuv')
        with open(luma, 'wb') as f:
            for planes in fr:
                f.write(planes[0].tobytes())
        paths[p] = (str(y4m), str(luma))
    (ry, rl), (dy, dl) = paths[ref], paths[dis]
    doc = cli_json(['-r', ry, '-d', dy, '--backend', 'cpu', '--feature', 'psnr'])
    assert_same(tvmaf.score_files(ry, dy, features=['psnr'], backend='cpu'), doc)
    doc = cli_json(['-r', rl, '-d', dl, '-w', '576', '-h', '324', '-p', '400', '-b', '8',
                    '--backend', 'cpu', '--feature', 'float_psnr'])
    r = tvmaf.score_files(rl, dl, width=576, height=324, pix_fmt='400', bitdepth=8,
                          features=['float_psnr'], backend='cpu')
    assert_same(r, doc)
    ref3 = np.stack([f[0] for f in frames[ref]])
    dis3 = np.stack([f[0] for f in frames[dis]])
    assert_same(tvmaf.score_frames(ref3, dis3, features=['float_psnr'], backend='cpu'), doc)


def test_features_only_and_listing():
    ref, dis, info = clip()
    r = tvmaf.score_files(ref, dis, width=576, height=324, pix_fmt='420', bitdepth=8,
                          models=(), features=['psnr'], frame_cnt=5, backend='cpu')
    assert list(r.keys()) == ['psnr_y', 'psnr_cb', 'psnr_cr'] and len(r.frames) == 5
    assert 'cpu' in tvmaf.features()['psnr']
    cli = subprocess.run([os.environ['TVMAF_EXE'], '--version'], capture_output=True, text=True)
    # "tvmaf VERSION (BUILD INFO)": the CLI's library is the package's
    info = tvmaf._lib.load_library().tvmaf_build_info().decode()
    assert cli.stdout.strip() == f'tvmaf {tvmaf.version()} ({info})'


def test_library_errors_carry_its_message():
    ref, dis, info = clip()
    base = dict(width=576, height=324, pix_fmt='420', bitdepth=8, backend='cpu')
    cases = [
        (dict(features=['no_such_feature']), ['--feature', 'no_such_feature']),
        (dict(features=['psnr=no_such_option=1']), ['--feature', 'psnr=no_such_option=1']),
        (dict(models=['vmaf_no_such_model']), ['-m', 'version=vmaf_no_such_model']),
    ]
    for kw, cli in cases:
        with pytest.raises(tvmaf.TvmafError) as e:
            tvmaf.score_files(ref, dis, **dict(base, **kw))
        want = cli_error(['-r', ref, '-d', dis] + raw_args(info) + ['--backend', 'cpu'] + cli)
        assert str(e.value) and want.startswith(str(e.value)), (str(e.value), want)


def test_bad_input_raises():
    ref, dis, info = clip()
    # the library's sentence, then the arguments that describe raw YUV
    with pytest.raises(tvmaf.TvmafError, match='give width=, height=, pix_fmt= and bitdepth='):
        tvmaf.score_files(ref, dis)
    with pytest.raises(tvmaf.TvmafError):
        tvmaf.score_files(ref + '.missing', dis, width=576, height=324, pix_fmt='420',
                          bitdepth=8)
    a = np.zeros((2, 32, 32), np.uint8)
    with pytest.raises(tvmaf.TvmafError, match='ends after'):
        tvmaf.score_frames(a, a[:1], features=['psnr'], models=())
    with pytest.raises(tvmaf.TvmafError, match='planes'):
        tvmaf.score_frames(a, np.zeros((2, 32, 30), np.uint8), features=['psnr'], models=())
    with pytest.raises(tvmaf.TvmafError, match='bitdepth'):
        tvmaf.score_frames(a.astype(np.uint16), a.astype(np.uint16), features=['psnr'],
                           models=())
    with pytest.raises(tvmaf.TvmafError, match='backend'):
        tvmaf.score_frames(a, a, backend='tpu')
    # a feature that cannot score the input stops the run with the library's message
    tiny = np.zeros((1, 8, 8), np.uint8)
    with pytest.raises(tvmaf.TvmafError) as e:
        tvmaf.score_frames(tiny, tiny, features=['float_ms_ssim'], models=())
    assert 'float_ms_ssim' in str(e.value) or 'ms_ssim' in str(e.value)
