"""Every bad argument is refused with the exception the table names, before
any library call where it is the argument's fault (ArgumentError, a
ValueError), and with the library's message where the library refuses it
(TvmafError, not a ValueError); never a crash, never a silent wrap (2**40
threads used to become 0, 'psnr\\x00x' used to run psnr)."""
import os

import numpy as np
import pytest

import tvmaf
from common import clip

A8 = np.zeros((2, 16, 16), np.uint8)
A16 = np.zeros((2, 16, 16), np.uint16)
YUV = [(np.zeros((16, 16), np.uint8), np.zeros((8, 8), np.uint8), np.zeros((8, 8), np.uint8))]
RAW = dict(width=576, height=324, pix_fmt='420', bitdepth=8)
BIG = 2 ** 32
V = tvmaf.ArgumentError

# (id, function, positional arguments, keywords, exception, what the message says)
FRAMES = [
    ('threads -1', -1), ('threads 1025', 1025), ('threads 10**6', 10 ** 6),
    ('threads 2**40', 2 ** 40), ('threads True', True), ('threads 1.5', 1.5), ('threads "4"', '4'),
]
CASES = [(i, 'score_frames', (A8, A8), dict(threads=v), V, 'threads') for i, v in FRAMES] + [
    ('subsample 0', 'score_frames', (A8, A8), dict(subsample=0), V, 'subsample'),
    ('subsample -1', 'score_frames', (A8, A8), dict(subsample=-1), V, 'subsample'),
    ('subsample 2**32', 'score_frames', (A8, A8), dict(subsample=BIG), V, 'subsample'),
    ('subsample True', 'score_frames', (A8, A8), dict(subsample=True), V, 'subsample'),
    ('subsample None', 'score_frames', (A8, A8), dict(subsample=None), V, 'subsample'),
    ('gpu -1', 'score_frames', (A8, A8), dict(gpu=-1), V, 'gpu'),
    ('gpu 2**32', 'score_frames', (A8, A8), dict(gpu=BIG), V, 'gpu'),
    ('gpu True', 'score_frames', (A8, A8), dict(gpu=True), V, 'gpu'),
    ('pinned 1', 'score_frames', (A8, A8), dict(pinned_pictures=1), V, 'pinned_pictures'),
    ('opencl_fp64 no', 'score_frames', (A8, A8), dict(opencl_fp64='no'), V, 'opencl_fp64'),
    ('opencl_fp64 bool', 'score_frames', (A8, A8), dict(opencl_fp64=False), V, 'opencl_fp64'),
    ('backend tpu', 'score_frames', (A8, A8), dict(backend='tpu'), V, 'backend'),
    ('backend NUL', 'score_frames', (A8, A8), dict(backend='cpu\0'), V, 'NUL'),
    ('backend int', 'score_frames', (A8, A8), dict(backend=1), V, 'backend'),
    ('features str', 'score_frames', (A8, A8), dict(features='psnr'), V, 'features'),
    ('feature NUL', 'score_frames', (A8, A8), dict(features=['psnr\0x']), V, 'NUL'),
    ('feature int', 'score_frames', (A8, A8), dict(features=[1]), V, 'features'),
    ('models str', 'score_frames', (A8, A8), dict(models='vmaf_v0.6.1'), V, 'models'),
    ('model int', 'score_frames', (A8, A8), dict(models=[1]), V, 'models'),
    ('model NUL', 'score_frames', (A8, A8), dict(models=['vmaf_v0.6.1\0x']), V, 'NUL'),
    ('model name NUL', 'score_frames', (A8, A8),
     dict(models=[{'version': 'vmaf_v0.6.1', 'name': 'a\0b'}]), V, 'NUL'),
    ('model flag int', 'score_frames', (A8, A8),
     dict(models=[{'version': 'vmaf_v0.6.1', 'disable_clip': 1}]), V, 'disable_clip'),
    ('model path and version', 'score_frames', (A8, A8),
     dict(models=[{'version': 'vmaf_v0.6.1', 'path': 'm.json'}]), V, 'exactly one'),
    ('model unknown key', 'score_frames', (A8, A8), dict(models=[{'verison': 'x'}]), V,
     'unknown model setting'),
    ('model option', 'score_frames', (A8, A8),
     dict(models=[{'version': 'vmaf_v0.6.1', 'options': {'adm': 1}}]), V, 'FEATURE.OPTION'),
    ('model option NUL', 'score_frames', (A8, A8),
     dict(models=[{'version': 'vmaf_v0.6.1', 'options': {'adm.x': 'a\0'}}]), V, 'NUL'),
    ('models same name', 'score_frames', (A8, A8),
     dict(models=['vmaf_v0.6.1', 'vmaf_v0.6.1neg']), V, 'named'),
    ('adm_div', 'score_frames', (A8, A8), dict(adm_div='fast'), V, 'adm_div'),
    ('feature_defaults NUL', 'score_frames', (A8, A8), dict(feature_defaults='a\0b'), V, 'NUL'),
    ('bitdepth 9', 'score_frames', (A16, A16), dict(bitdepth=9), V, 'bitdepth'),
    ('bitdepth True', 'score_frames', (A8, A8), dict(bitdepth=True), V, 'bitdepth'),
    ('float32 frames', 'score_frames', (A8.astype(np.float32),) * 2, {}, V, 'bitdepth'),
    ('int16 frames', 'score_frames', (A16.astype(np.int16),) * 2, dict(bitdepth=10), V,
     'uint16'),
    ('uint16 without bitdepth', 'score_frames', (A16, A16), {}, V, 'bitdepth'),
    ('uint8 for 10 bits', 'score_frames', (A8, A8), dict(bitdepth=10), V, 'uint16 above'),
    ('uint16 for 8 bits', 'score_frames', (A16, A16), dict(bitdepth=8), V, 'uint8 for 8'),
    ('shapes differ', 'score_frames', (A8, np.zeros((2, 16, 8), np.uint8)), {}, V, 'planes'),
    ('2-D frames', 'score_frames', (A8[0], A8[0]), {}, V, '3-D'),
    ('4-D frames', 'score_frames', (A8[None], A8[None]), {}, V, '3-D'),
    ('frames None', 'score_frames', (None, None), {}, V, 'frames'),
    ('lengths differ', 'score_frames', (A8, A8[:1]), dict(models=(), features=['psnr']), V,
     'ends after'),
    ('chroma fits no layout', 'score_frames',
     ([(YUV[0][0], YUV[0][1][:, :5], YUV[0][2][:, :5])],) * 2, {}, V, 'fits no layout'),
    ('U and V differ', 'score_frames', ([(YUV[0][0], YUV[0][1], YUV[0][2][:4])],) * 2, {}, V,
     'U and V'),
    ('empty plane', 'score_frames', (np.zeros((1, 0, 4), np.uint8),) * 2, {}, V, 'empty'),
    ('width -1', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, width=-1), V, 'width'),
    ('width 2**40', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, width=2 ** 40), V, 'width'),
    ('width True', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, width=True), V, 'width'),
    ('height 0', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, height=0), V, 'height'),
    ('pix_fmt', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, pix_fmt='420p'), V, 'pix_fmt'),
    ('pix_fmt int', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, pix_fmt=420), V, 'pix_fmt'),
    ('bitdepth 9', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, bitdepth=9), V, 'bitdepth'),
    ('width alone', 'score_files', ('r.yuv', 'd.yuv'), dict(width=576), V, 'missing'),
    ('path NUL', 'score_files', ('r\0.yuv', 'd.yuv'), RAW, V, 'NUL'),
    ('path int', 'score_files', (1, 'd.yuv'), RAW, V, 'path'),
    ('path empty', 'score_files', ('r.yuv', ''), RAW, V, 'empty'),
    ('frame_cnt -1', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, frame_cnt=-1), V, 'frame_cnt'),
    ('frame_cnt 2**32', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, frame_cnt=BIG), V,
     'frame_cnt'),
    ('skip -1', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, frame_skip_ref=-1), V,
     'frame_skip_ref'),
    ('skip True', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, frame_skip_dist=True), V,
     'frame_skip_dist'),
    ('scale NUL', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, scale='bicubic\0'), V, 'NUL'),
    ('scale int', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, scale=1), V, 'scale'),
    ('ignore_frame_rate 1', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, ignore_frame_rate=1),
     V, 'ignore_frame_rate'),
    ('ref_format', 'score_files', ('r.yuv', 'd.mkv'), dict(ref_format='576x324'), V,
     'ref_format'),
    ('dis_format tuple', 'score_files', ('r.mkv', 'd.yuv'), dict(dis_format=(576, 324)), V,
     'dis_format'),
    ('threads via files', 'score_files', ('r.yuv', 'd.yuv'), dict(RAW, threads=2 ** 40), V,
     'threads'),
    ('ladder str', 'score_ladder', ('r.yuv', 'd.yuv'), RAW, V, 'dis_paths'),
    ('ladder empty', 'score_ladder', ('r.yuv', []), RAW, V, 'dis_paths'),
    ('ladder option', 'score_ladder', ('r.yuv', ['d.yuv']), dict(RAW, thread=2), V,
     'unknown option'),
    ('ladder path NUL', 'score_ladder', ('r.yuv', ['d.yuv', 'e\0']), RAW, V, 'NUL'),
    ('ladder subsample', 'score_ladder', ('r.yuv', ['d.yuv']), dict(RAW, subsample=0), V,
     'subsample'),
    ('batch jobs 0', 'score_batch', ('m.csv',), dict(jobs=0), V, 'jobs'),
    ('batch jobs 65', 'score_batch', ('m.csv',), dict(jobs=65), V, 'jobs'),
    ('batch jobs True', 'score_batch', ('m.csv',), dict(jobs=True), V, 'jobs'),
    ('batch manifest NUL', 'score_batch', ('m\0.csv',), {}, V, 'NUL'),
    ('batch option', 'score_batch', ('m.csv',), dict(ref_format='1x1:420:8'), V,
     'unknown option'),
    ('batch threads', 'score_batch', ('m.csv',), dict(threads=-1), V, 'threads'),
]


@pytest.mark.parametrize('fn,args,kw,exc,says', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_argument(monkeypatch, fn, args, kw, exc, says):
    """Refused with `exc` naming the problem, before any library call."""
    def no_library(*a, **k):
        raise AssertionError('the library was called before the arguments were checked')
    monkeypatch.setattr(tvmaf, 'load_library', no_library)
    with pytest.raises(exc, match=None) as e:
        getattr(tvmaf, fn)(*args, **kw)
    assert isinstance(e.value, ValueError)
    assert says in str(e.value), str(e.value)


def library_cases():
    ref, dis, info = clip()
    files = (ref, dis)
    return [
        ('unknown feature', 'score_files', files, dict(RAW, features=['no_such_feature']),
         'no_such_feature'),
        ('unknown option', 'score_files', files, dict(RAW, features=['psnr=nope=1']), 'nope'),
        ('unknown model', 'score_files', files, dict(RAW, models=['vmaf_no_such_model']),
         'vmaf_no_such_model'),
        ('model option', 'score_files', files,
         dict(RAW, models=[{'version': 'vmaf_v0.6.1', 'options': {'adm.nope': 1}}]), 'nope'),
        ('missing file', 'score_files', (ref + '.missing', dis), RAW, '.missing'),
        ('directory', 'score_files', (os.path.dirname(ref), dis), RAW,
         os.path.basename(os.path.dirname(ref))),
        ('ladder missing file', 'score_ladder', (ref, [dis, dis + '.missing']), RAW, '.missing'),
        ('skip past the end', 'score_files', files, dict(RAW, frame_skip_ref=1000), 'skip'),
        ('formats differ', 'score_files', files,
         dict(ref_format='576x324:420:8', dis_format='576x324:444:8'), 'differ'),
        ('missing manifest', 'score_batch', (ref + '.missing.csv',), {}, 'manifest'),
    ]


@pytest.mark.parametrize('case', range(10))
def test_library_refusal(case):
    """What only the library (or the inputs) can refuse raises TvmafError
    with its message, and is no ValueError."""
    name, fn, args, kw, says = library_cases()[case]
    with pytest.raises(tvmaf.TvmafError) as e:
        getattr(tvmaf, fn)(*args, **kw)
    assert not isinstance(e.value, ValueError), (name, str(e.value))
    assert str(e.value) and says in str(e.value), (name, str(e.value))


def test_scale_filter_named():
    """An unknown scale filter is refused naming the valid ones (the
    library's list), before any input is opened."""
    ref, dis, _ = clip()
    if not tvmaf.load_library().tvmaf_reader_scale_filters():
        pytest.skip('a build without FFmpeg has no scale filters')
    with pytest.raises(tvmaf.ArgumentError, match='bicubic'):
        tvmaf.score_files(ref + '.missing', dis, scale='cubic', **RAW)


def test_numpy_integer_and_pathlike_accepted(tmp_path):
    """numpy integers are integers and os.PathLike paths are paths."""
    ref, dis, _ = clip()
    import pathlib
    r = tvmaf.score_files(pathlib.Path(ref), pathlib.Path(dis), width=np.int64(576),
                          height=np.uint16(324), pix_fmt='yuv420p', bitdepth=np.int32(8),
                          models=(), features=['psnr'], threads=np.uint8(2), frame_cnt=2,
                          backend='cpu')
    assert len(r.frames) == 2
