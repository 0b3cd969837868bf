"""tvmaf: VMAF and its elementary features through libtvmaf (ctypes).

    import tvmaf
    r = tvmaf.score_files('ref.yuv', 'dis.yuv', width=576, height=324,
                          pix_fmt='420', bitdepth=8, features=['psnr'])
    r['vmaf']               # numpy float64 array, one value per scored frame
    r.pooled['vmaf']['mean']

Every number is the library's double, untouched: the same bits as the CLI's
`--precision max` output on the same inputs and settings. Errors raise
TvmafError with the library's message.
"""
import ctypes

import numpy as np

from . import _io
from ._lib import (BACKEND, GPU_PINNED_PICTURES, LOG_WARNING, MODEL_DISABLE_CLIP,
                   MODEL_ENABLE_TRANSFORM, PIX_FMT, POOL, Configuration, ModelConfig, Picture,
                   load_library)

__all__ = ['TvmafError', 'Result', 'score_files', 'score_frames', 'features', 'cuda_available',
           'version', 'load_library', 'POOL_METHODS']

POOL_METHODS = ('min', 'max', 'mean', 'harmonic_mean')


class TvmafError(RuntimeError):
    """A failure reported by libtvmaf (its message), or bad input."""


def _s(b):
    return b.decode('utf-8', 'replace') if b is not None else None


def _b(s):
    return s.encode('utf-8') if s is not None else None


def version():
    """libtvmaf's version string."""
    return _s(load_library().tvmaf_version())


def cuda_available():
    """True when this libtvmaf can use a CUDA device on this machine."""
    return bool(load_library().tvmaf_cuda_available())


def features():
    """{extractor name: [backends]} of the extractors built into libtvmaf."""
    lib = load_library()
    return {_s(lib.tvmaf_feature_name(i)): _s(lib.tvmaf_feature_backends(i)).split()
            for i in range(lib.tvmaf_feature_count())}


class Result:
    """Scores of one run.

    frames: numpy uint32 array of the frame numbers scored (the JSON's
      frameNum values). scores: {key: float64 array aligned with frames},
      keys named as the CLI's outputs name them, in the same order (NaN
      where a key has no value on a frame). pooled: {key: {method: float}},
      methods min, max, mean, harmonic_mean. aggregate: {key: float}.
      backends: {extractor: backend it ran on}. result[key] is scores[key].
    """

    def __init__(self, frames, scores, pooled, aggregate, backends):
        self.frames = frames
        self.scores = scores
        self.pooled = pooled
        self.aggregate = aggregate
        self.backends = backends

    def __getitem__(self, key):
        return self.scores[key]

    def __contains__(self, key):
        return key in self.scores

    def keys(self):
        return self.scores.keys()

    def __repr__(self):
        return f'<tvmaf.Result {len(self.frames)} frames, keys {list(self.scores)}>'


def _model_spec(m):
    """(path, version, name, flags, overloads) of a model argument: a version
    name ('vmaf_v0.6.1'), a path to a .json file, or a dict with path= or
    version=, and optionally name=, disable_clip=, enable_transform= and
    options={'FEATURE.OPTION': value}."""
    if isinstance(m, str):
        if m.endswith('.json') or '/' in m:
            return m, None, 'vmaf', 0, []
        return None, m, 'vmaf', 0, []
    if not isinstance(m, dict):
        raise TypeError(f'a model is a version name, a path or a dict, not {type(m).__name__}')
    unknown = set(m) - {'path', 'version', 'name', 'disable_clip', 'enable_transform', 'options'}
    if unknown:
        raise TvmafError(f'unknown model setting(s) {sorted(unknown)}')
    if (m.get('path') is None) == (m.get('version') is None):
        raise TvmafError(f'model {m}: needs exactly one of path and version')
    flags = (MODEL_DISABLE_CLIP if m.get('disable_clip') else 0) | \
            (MODEL_ENABLE_TRANSFORM if m.get('enable_transform') else 0)
    overloads = []
    for k, v in (m.get('options') or {}).items():
        feat, dot, opt = k.partition('.')
        if not dot or not feat or not opt:
            raise TvmafError(f'model option {k!r}: expected FEATURE.OPTION')
        if isinstance(v, bool):
            v = 'true' if v else 'false'
        overloads.append((feat, opt, str(v)))
    return m.get('path'), m.get('version'), m.get('name', 'vmaf'), flags, overloads


class _Run:
    """One library context with its models and features; closed by close()."""

    def __init__(self, models, features, backend, threads, subsample, gpu=0,
                 pinned_pictures=False, adm_div=None, feature_defaults=None):
        self.lib = load_library()
        self.ctx = ctypes.c_void_p()
        self.models = []
        if backend not in BACKEND:
            raise TvmafError(f'invalid backend {backend!r} (cpu, cuda, opencl or auto)')
        defaults = [d for d in (feature_defaults,
                                f'float_adm=adm_div={adm_div}' if adm_div else None) if d]
        cfg = Configuration(n_threads=int(threads), n_subsample=int(subsample or 0),
                            backend=BACKEND[backend], log_level=LOG_WARNING, cpumask=0,
                            gpu_index=int(gpu),
                            gpu_flags=GPU_PINNED_PICTURES if pinned_pictures else 0,
                            gpu_mem_limit=0,
                            feature_defaults=_b(';'.join(defaults)) if defaults else None)
        if self.lib.tvmaf_init(ctypes.byref(self.ctx), ctypes.byref(cfg)):
            msg = _s(self.lib.tvmaf_last_error(self.ctx)) if self.ctx else ''
            self.close()
            raise TvmafError(msg or 'tvmaf_init failed')
        try:
            specs = [_model_spec(m) for m in models]
            names = [s[2] for s in specs]
            dup = {n for n in names if names.count(n) > 1}
            if dup:
                raise TvmafError(f'two models are named "{sorted(dup)[0]}"; each model needs '
                                 'its own name')
            # models first: their extractors come first in the outputs, as in the CLI
            for path, ver, name, flags, overloads in specs:
                model = ctypes.c_void_p()
                mcfg = ModelConfig(name=_b(name), flags=flags)
                msg = ctypes.create_string_buffer(1024)
                if self.lib.tvmaf_model_load(ctypes.byref(model), _b(path), _b(ver),
                                             ctypes.byref(mcfg), msg, len(msg)):
                    raise TvmafError(_s(msg.value))
                self.models.append(model)
                for feat, opt, val in overloads:
                    if self.lib.tvmaf_model_feature_overload(model, _b(feat), _b(opt), _b(val)):
                        raise TvmafError(f'model {ver or path}: '
                                         + _s(self.lib.tvmaf_model_last_error(model)))
                if self.lib.tvmaf_use_model(self.ctx, model):
                    raise TvmafError(_s(self.lib.tvmaf_model_last_error(model)))
            for spec in features:
                if self.lib.tvmaf_use_feature(self.ctx, _b(spec)):
                    raise TvmafError(self.error())
        except BaseException:
            self.close()
            raise
        self.subsample = int(subsample or 0)
        self.luma_only = bool(self.lib.tvmaf_luma_only(self.ctx))
        self.n = 0
        self.shape = None

    def error(self):
        return _s(self.lib.tvmaf_last_error(self.ctx))

    def _picture(self, planes, pix_fmt, bitdepth):
        pic = Picture()
        w, h = planes[0].shape[1], planes[0].shape[0]
        if self.lib.tvmaf_picture_alloc(ctypes.byref(pic), PIX_FMT[pix_fmt], bitdepth, w, h):
            raise TvmafError(f'cannot allocate a {w}x{h} {pix_fmt} {bitdepth}-bit picture')
        dtype = np.uint8 if bitdepth == 8 else np.uint16
        n_planes = 1 if self.luma_only else len(planes)
        for p in range(n_planes):
            src = planes[p]
            ph, pw = src.shape
            stride = pic.stride[p]
            buf = (ctypes.c_uint8 * (stride * ph)).from_address(pic.data[p])
            rows = np.frombuffer(buf, dtype=np.uint8).reshape(ph, stride)
            rows[:, :pw * np.dtype(dtype).itemsize] = \
                np.ascontiguousarray(src, dtype=dtype).view(np.uint8).reshape(ph, -1)
        return pic

    def submit(self, ref, dis, pix_fmt, bitdepth):
        pr = self._picture(ref, pix_fmt, bitdepth)
        try:
            pd = self._picture(dis, pix_fmt, bitdepth)
        except BaseException:
            self.lib.tvmaf_picture_unref(ctypes.byref(pr))
            raise
        # the library owns both pictures from here, whatever the result
        if self.lib.tvmaf_read_pictures(self.ctx, ctypes.byref(pr), ctypes.byref(pd), self.n):
            raise TvmafError(self.error())
        self.n += 1

    def finish(self):
        lib, ctx = self.lib, self.ctx
        if not self.n:
            raise TvmafError('the inputs hold no frame to score')
        if lib.tvmaf_flush(ctx):
            raise TvmafError(self.error())
        for model in self.models:
            if lib.tvmaf_score_model(ctx, model):
                raise TvmafError(_s(lib.tvmaf_model_last_error(model)))
        n = lib.tvmaf_frame_count(ctx)
        keys = [(lib.tvmaf_score_key(ctx, k), _s(lib.tvmaf_score_key_label(ctx, k)))
                for k in range(lib.tvmaf_score_key_count(ctx))]
        v = ctypes.c_double()
        table = np.full((len(keys), n), np.nan)
        has = np.zeros((len(keys), n), dtype=bool)
        for k, (key, _) in enumerate(keys):
            for i in range(n):
                if not lib.tvmaf_feature_score_at_index(ctx, key, ctypes.byref(v), i):
                    table[k, i] = v.value
                    has[k, i] = True
        # a frame is listed when it is on the subsample grid and has a value
        # (the outputs' rule; off the grid the library may hold values that
        # feed later frames)
        if self.subsample > 1:
            has[:, np.arange(n) % self.subsample != 0] = False
        frames = np.flatnonzero(has.any(axis=0)).astype(np.uint32)
        scores = {label: table[k, frames].copy() for k, (_, label) in enumerate(keys)}
        pooled = {}
        for key, label in keys:
            pooled[label] = {}
            for m in POOL_METHODS:
                if not lib.tvmaf_feature_score_pooled(ctx, key, POOL[m], ctypes.byref(v), 0,
                                                      n - 1):
                    pooled[label][m] = v.value
        aggregate = {}
        for i in range(lib.tvmaf_aggregate_count(ctx)):
            key = lib.tvmaf_aggregate_key(ctx, i)
            if not lib.tvmaf_aggregate_score(ctx, key, ctypes.byref(v)):
                aggregate[_s(key)] = v.value
        backends = {}
        for i in range(lib.tvmaf_feature_count()):
            name = lib.tvmaf_feature_name(i)
            b = lib.tvmaf_feature_backend(ctx, name)
            if b is not None:
                backends[_s(name)] = _s(b)
        return Result(frames, scores, pooled, aggregate, backends)

    def close(self):
        if self.ctx:
            self.lib.tvmaf_close(self.ctx)
            self.ctx = ctypes.c_void_p()
        for m in self.models:
            self.lib.tvmaf_model_destroy(m)
        self.models = []


def _as_frame(x, what):
    """A frame as a tuple of 2-D planes: a 2-D array (luma only) or a
    sequence of three 2-D arrays (Y, U, V)."""
    if isinstance(x, np.ndarray) and x.ndim == 2:
        return (x,)
    planes = tuple(np.asarray(p) for p in x)
    if len(planes) not in (1, 3) or any(p.ndim != 2 for p in planes):
        raise TvmafError(f'{what}: a frame is a 2-D array (luma) or three 2-D planes (Y, U, V)')
    return planes


def _layout(planes, what):
    h, w = planes[0].shape
    if len(planes) == 1:
        return '400'
    if planes[1].shape != planes[2].shape:
        raise TvmafError(f'{what}: the U and V planes differ in size')
    for fmt in ('420', '422', '444'):
        dims = _io.plane_dims(fmt, w, h)
        if tuple(planes[1].shape) == (dims[1][1], dims[1][0]):
            return fmt
    raise TvmafError(f'{what}: chroma {planes[1].shape[1]}x{planes[1].shape[0]} fits no layout '
                     f'of a {w}x{h} frame (4:2:0, 4:2:2 or 4:4:4)')


def _iter_frames(frames, what):
    if isinstance(frames, np.ndarray):
        if frames.ndim == 2:
            raise TvmafError(f'{what}: frames are a 3-D array (frames, height, width) or a '
                             'sequence of frames')
        if frames.ndim == 3:
            return iter(frames)
    return iter(frames)


def _run_pairs(pairs, models, features, bitdepth, settings):
    """Scores (ref planes, dis planes) pairs; the first pair fixes the layout."""
    run = _Run(models, features, **settings)
    try:
        fmt = None
        for i, (ref, dis) in enumerate(pairs):
            what = f'frame {i}'
            if fmt is None:
                fmt = _layout(ref, what)
                shapes = [p.shape for p in ref]
                dt = ref[0].dtype
                if bitdepth is None:
                    if dt == np.uint8:
                        bitdepth = 8
                    else:
                        raise TvmafError(f'{dt} samples need bitdepth= (10, 12 or 16)')
                if bitdepth not in (8, 10, 12, 16):
                    raise TvmafError(f'unsupported bit depth {bitdepth} (8, 10, 12, 16)')
            for name, pic in (('reference', ref), ('distorted', dis)):
                if [p.shape for p in pic] != shapes:
                    raise TvmafError(f'{what}: the {name} planes are '
                                     f'{[p.shape for p in pic]}, frame 0 of the reference '
                                     f'{shapes}')
                for p in pic:
                    if p.dtype.kind not in 'ui':
                        raise TvmafError(f'{what}: {p.dtype} samples (integers expected)')
                    if bitdepth == 8 and p.dtype.itemsize != 1 or \
                            bitdepth > 8 and p.dtype.itemsize != 2:
                        raise TvmafError(f'{what}: {p.dtype} samples for {bitdepth}-bit video '
                                         f'(uint8 for 8 bits, uint16 above)')
            run.submit(ref, dis, fmt, bitdepth)
        return run.finish()
    finally:
        run.close()


def score_frames(ref, dis, *, bitdepth=None, models=('vmaf_v0.6.1',), features=(),
                 backend='auto', threads=0, subsample=1, gpu=0, pinned_pictures=False,
                 adm_div=None, feature_defaults=None):
    """Scores numpy frames. ref and dis: a 3-D array (frames, height, width)
    of luma, or equal-length sequences of frames, each a 2-D luma array or
    (Y, U, V) planes (4:2:0, 4:2:2 or 4:4:4, told from their sizes). Samples
    are uint8 (8 bits) or uint16 (bitdepth=10, 12 or 16 required).

    models: version names, .json paths or dicts (see _model_spec); () for
    features only. features: extractor specs as the CLI's --feature takes
    them ('psnr', 'float_ssim=enable_lcs=true'). backend: 'cpu', 'cuda', 'opencl' or
    'auto'. threads, subsample, gpu, pinned_pictures, adm_div: as the CLI's
    --threads, --subsample, --gpu, --pinned-pictures and --adm-div;
    feature_defaults: TvmafConfiguration.feature_defaults
    ('name=opt=val[:opt=val]', several separated by ';').
    Returns a Result."""
    def pairs():
        ri, di = _iter_frames(ref, 'reference'), _iter_frames(dis, 'distorted')
        i = 0
        while True:
            r, d = next(ri, None), next(di, None)
            if r is None and d is None:
                return
            if r is None or d is None:
                raise TvmafError(f'the {"reference" if r is None else "distorted"} ends after '
                                 f'{i} frames, before the other')
            yield _as_frame(r, f'reference frame {i}'), _as_frame(d, f'distorted frame {i}')
            i += 1
    return _run_pairs(pairs(), list(models), list(features), bitdepth, dict(
        backend=backend, threads=threads, subsample=subsample, gpu=gpu,
        pinned_pictures=pinned_pictures, adm_div=adm_div, feature_defaults=feature_defaults))


def score_files(ref_path, dis_path, *, width=None, height=None, pix_fmt=None, bitdepth=None,
                models=('vmaf_v0.6.1',), features=(), backend='auto', threads=0, subsample=1,
                gpu=0, pinned_pictures=False, adm_div=None, feature_defaults=None,
                frame_cnt=None, frame_skip_ref=0, frame_skip_dist=0):
    """Scores two files: raw planar YUV (width, height, pix_fmt '420', '422',
    '444' or '400', bitdepth 8/10/12/16 with 16-bit little-endian samples
    above 8) or Y4M (detected from its header). Other arguments as
    score_frames, plus the CLI's --frame_cnt and --frame_skip_ref/_dist.
    Returns a Result."""
    try:
        fr = _io.VideoFile(ref_path, width, height, pix_fmt, bitdepth)
        fd = _io.VideoFile(dis_path, width, height, pix_fmt, bitdepth)
    except (OSError, _io.FormatError) as e:
        raise TvmafError(str(e)) from None
    with fr, fd:
        if (fr.width, fr.height, fr.pix_fmt, fr.bitdepth) != \
                (fd.width, fd.height, fd.pix_fmt, fd.bitdepth):
            raise TvmafError(f'reference ({fr.width}x{fr.height} {fr.pix_fmt} {fr.bitdepth}-bit)'
                             f' and distorted ({fd.width}x{fd.height} {fd.pix_fmt} '
                             f'{fd.bitdepth}-bit) differ in size or format')

        def pairs():
            try:
                fr.skip(frame_skip_ref)
                fd.skip(frame_skip_dist)
                i = 0
                while not frame_cnt or i < frame_cnt:
                    r, d = fr.read(), fd.read()
                    if r is None and d is None:
                        return
                    if r is None or d is None:
                        short = ref_path if r is None else dis_path
                        raise TvmafError(f'"{short}" ended after {i} frames, before the other')
                    yield r, d
                    i += 1
            except _io.FormatError as e:
                raise TvmafError(str(e)) from None
        return _run_pairs(pairs(), list(models), list(features), fr.bitdepth, dict(
            backend=backend, threads=threads, subsample=subsample, gpu=gpu,
            pinned_pictures=pinned_pictures, adm_div=adm_div, feature_defaults=feature_defaults))
