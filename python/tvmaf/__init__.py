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
import errno
import os
import warnings

import numpy as np

from ._lib import (BACKEND, GPU_PINNED_PICTURES, GPU_SHARED_REFERENCE, LOG_WARNING, MODEL_FLAGS,
                   OPENCL_FP64, PIX_FMT, POOL, Configuration, ModelConfig, Picture, ReaderConfig, VideoFormat,
                   load_library)

__all__ = ['TvmafError', 'ArgumentError', 'Result', 'score_files', 'score_ladder', 'score_batch',
           'score_frames', 'features', 'cuda_available', 'version', 'build_info',
           'load_library', 'POOL_METHODS']

POOL_METHODS = ('min', 'max', 'mean', 'harmonic_mean')


class TvmafError(RuntimeError):
    """A failure reported by libtvmaf (its message), or inputs that cannot be
    scored together."""


class ArgumentError(TvmafError, ValueError):
    """A bad argument (value or type), refused before any library call. A
    ValueError, and a TvmafError as bad arguments were before these checks."""


def _s(b):
    return b.decode('utf-8', 'replace') if b is not None else None


def _b(s):
    return s.encode('utf-8') if s is not None else None


def version():
    """libtvmaf's version string."""
    return _s(load_library().tvmaf_version())


def build_info():
    """What this libtvmaf was built with: {'version': '0.1.0', 'ffmpeg': bool
    (encoded input), 'cuda': bool, 'opencl': bool (the GPU backends compiled
    in; cuda_available() says whether a device is usable), 'simd': [x86-64
    kernel sets, e.g. 'avx2', 'avx512'; [] for none]}. Keys the library adds
    later appear as strings."""
    info = dict(kv.split('=', 1) for kv in _s(load_library().tvmaf_build_info()).split())
    for k in ('ffmpeg', 'cuda', 'opencl'):
        info[k] = info[k] == 'yes'
    info['simd'] = [] if info['simd'] == 'none' else info['simd'].split(',')
    return info


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
      to_dict(): the CLI's JSON as Python objects; to_pandas(): a table.
    """

    def __init__(self, frames, scores, pooled, aggregate, backends, present=None):
        self.frames = frames
        self.scores = scores
        self.pooled = pooled
        self.aggregate = aggregate
        self.backends = backends
        # {key: bool array aligned with frames}: where the key has a value
        # (a NaN score is a value the JSON lists as null; no value is no entry)
        self._present = present if present is not None else \
            {k: ~np.isnan(v) for k, v in scores.items()}

    def __getitem__(self, key):
        return self.scores[key]

    def __contains__(self, key):
        return key in self.scores

    def keys(self):
        return self.scores.keys()

    def to_dict(self):
        """The libvmaf JSON's shape, as the CLI writes it with --json:
        {'frames': [{'frameNum': n, 'metrics': {key: value}}], 'pooled_metrics':
        {key: {'min', 'max', 'mean', 'harmonic_mean'}}, 'aggregate_metrics':
        {key: value}}, keys in the CLI's order, every value the library's
        double (a non-finite value, which the JSON writes as null, stays a
        float here)."""
        frames = []
        for i, n in enumerate(self.frames):
            frames.append({'frameNum': int(n),
                           'metrics': {k: float(v[i]) for k, v in self.scores.items()
                                       if self._present[k][i]}})
        return {'frames': frames,
                'pooled_metrics': {k: dict(p) for k, p in self.pooled.items()},
                'aggregate_metrics': dict(self.aggregate)}

    def to_pandas(self):
        """A pandas.DataFrame, one row per scored frame: the column 'frame'
        (the frame number), then one float64 column per key in the CLI's
        order (NaN where a key has no value on a frame)."""
        try:
            import pandas
        except ImportError:
            raise ImportError('Result.to_pandas() needs pandas: pip install tvmaf[pandas] '
                              '(or pip install pandas)') from None
        columns = {'frame': self.frames.copy()}
        columns.update((k, v.copy()) for k, v in self.scores.items())
        return pandas.DataFrame(columns)

    def __repr__(self):
        return f'<tvmaf.Result {len(self.frames)} frames, keys {list(self.scores)}>'


# Arguments are checked here, before any library call: the library takes C
# integers (a Python int past their range would wrap, 2**40 threads -> 0) and
# C strings (a NUL would cut one short: 'psnr\0x' would run psnr).
_UINT_MAX = 2 ** 32 - 1
MAX_THREADS = 1024  # the CLI's --threads bound (tools/cli_parse.c)
MAX_JOBS = 64       # the CLI's --jobs bound (tools/run.h)
PIX_FMTS = {'420': '420', 'yuv420p': '420', '422': '422', 'yuv422p': '422',
            '444': '444', 'yuv444p': '444', '400': '400', 'gray': '400'}
BITDEPTHS = (8, 10, 12, 16)
ADM_DIVS = ('host', 'table', 'ieee', 'auto')


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def _int_arg(name, v, lo, hi, none_ok=False):
    if v is None and none_ok:
        return None
    if _is_bool(v) or not isinstance(v, (int, np.integer)):
        raise ArgumentError(f'{name}={v!r}: expected an integer in [{lo}, {hi}], not '
                            f'{type(v).__name__}')
    if not lo <= v <= hi:
        raise ArgumentError(f'{name}={v}: out of range [{lo}, {hi}]')
    return int(v)


def _bool_arg(name, v):
    if not _is_bool(v):
        raise ArgumentError(f'{name}={v!r}: expected True or False, not {type(v).__name__}')
    return bool(v)


def _str_arg(name, v, none_ok=False, choices=None):
    if v is None and none_ok:
        return None
    if not isinstance(v, str):
        raise ArgumentError(f'{name}={v!r}: expected a string, not {type(v).__name__}')
    if '\0' in v:
        raise ArgumentError(f'{name}={v!r}: holds a NUL character')
    if choices is not None and v not in choices:
        raise ArgumentError(f'{name}={v!r}: expected one of {", ".join(choices)}')
    return v


def _path_arg(name, v):
    """A path (str, bytes or os.PathLike) as the bytes the library opens."""
    try:
        p = os.fspath(v)
    except TypeError:
        raise ArgumentError(f'{name}={v!r}: expected a path, not {type(v).__name__}') from None
    if not p:
        raise ArgumentError(f'{name}: an empty path')
    if ('\0' if isinstance(p, str) else b'\0') in p:
        raise ArgumentError(f'{name}={v!r}: holds a NUL character')
    return os.fsencode(p)


def _str_list(name, v):
    if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
        raise ArgumentError(f'{name}={v!r}: expected a list or tuple of strings')
    return [_str_arg(f'{name}[{i}]', s) for i, s in enumerate(v)]


def _model_spec(m, what='models'):
    """(path, version, name, flags, overloads) of a model argument: a version
    name ('vmaf_v0.6.1'), a path to a .json file, or a dict with path= or
    version=, and optionally name=, disable_clip=, enable_transform= and
    options={'FEATURE.OPTION': value}."""
    if isinstance(m, str):
        _str_arg(what, m)
        if not m:
            raise ArgumentError(f'{what}: an empty model name')
        if m.endswith('.json') or '/' in m:
            return m, None, 'vmaf', 0, []
        return None, m, 'vmaf', 0, []
    if not isinstance(m, dict):
        raise ArgumentError(f'{what}: a model is a version name, a path or a dict, not '
                            f'{type(m).__name__}')
    unknown = set(m) - {'path', 'version', 'name', 'disable_clip', 'enable_transform', 'options'}
    if unknown:
        raise ArgumentError(f'{what}: unknown model setting(s) {sorted(map(str, unknown))}')
    if (m.get('path') is None) == (m.get('version') is None):
        raise ArgumentError(f'{what}: model {m}: needs exactly one of path and version')
    path = _str_arg(f'{what} path', m.get('path'), none_ok=True)
    ver = _str_arg(f'{what} version', m.get('version'), none_ok=True)
    name = _str_arg(f'{what} name', m.get('name', 'vmaf'))
    flags = 0
    for k in ('disable_clip', 'enable_transform'):
        if _bool_arg(f'{what} {k}', m.get(k, False)):
            flags |= MODEL_FLAGS[k]
    opts = m.get('options') or {}
    if not isinstance(opts, dict):
        raise ArgumentError(f'{what} options: expected a dict, not {type(opts).__name__}')
    overloads = []
    for k, v in opts.items():
        _str_arg(f'{what} option', k)
        feat, dot, opt = k.partition('.')
        if not dot or not feat or not opt or '.' in opt:
            raise ArgumentError(f'{what}: model option {k!r}: expected FEATURE.OPTION')
        if _is_bool(v):
            v = 'true' if v else 'false'
        elif isinstance(v, (int, float, np.integer, np.floating)):
            v = str(v)
        overloads.append((feat, opt, _str_arg(f'{what} option {k}', v)))
    return path, ver, name, flags, overloads


def _cli_model(arg, what):
    """A -m argument ('version=NAME:name=KEY:disable_clip:FEATURE.OPT=VAL'),
    as a manifest's model column holds it, into a model dict."""
    m, options = {}, {}
    for kv in arg.split(':'):
        key, eq, val = kv.partition('=')
        if not eq and key in ('disable_clip', 'enable_transform'):
            val = 'true'
        elif not key or not val or '=' in val:
            raise ArgumentError(f'{what}: bad model option "{kv}" in "{arg}" (expected '
                                'key=value: path=, version=, name=, disable_clip, '
                                'enable_transform or FEATURE.OPTION=VALUE)')
        if key in ('path', 'version', 'name'):
            m[key] = val
        elif key in ('disable_clip', 'enable_transform'):
            if val not in ('true', 'false'):
                raise ArgumentError(f'{what}: model option {key} takes true or false, not '
                                    f'"{val}"')
            m[key] = val == 'true'
        else:
            options[key] = val
    if options:
        m['options'] = options
    return m


def _settings(models, features, backend, threads, subsample, gpu, pinned_pictures, adm_div,
              feature_defaults, opencl_fp64='auto'):
    """The options every scoring call shares, checked: a dict for _Run."""
    if isinstance(models, (str, bytes, dict)) or not isinstance(models, (list, tuple)):
        raise ArgumentError(f'models={models!r}: expected a list or tuple of models')
    specs = [_model_spec(m, f'models[{i}]') for i, m in enumerate(models)]
    names = [s[2] for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ArgumentError(f'two models are named "{dup[0]}"; each model needs its own name')
    return dict(
        specs=specs, features=_str_list('features', features),
        backend=_str_arg('backend', backend, choices=tuple(BACKEND)),
        threads=_int_arg('threads', threads, 0, MAX_THREADS),
        subsample=_int_arg('subsample', subsample, 1, _UINT_MAX),
        gpu=_int_arg('gpu', gpu, 0, _UINT_MAX),
        pinned_pictures=_bool_arg('pinned_pictures', pinned_pictures),
        adm_div=_str_arg('adm_div', adm_div, none_ok=True, choices=ADM_DIVS),
        feature_defaults=_str_arg('feature_defaults', feature_defaults, none_ok=True),
        opencl_fp64=_str_arg('opencl_fp64', opencl_fp64, choices=tuple(OPENCL_FP64)))


class _Run:
    """One library context with its models and features; closed by close()."""

    def __init__(self, specs, features, backend, threads, subsample, gpu, pinned_pictures,
                 adm_div, feature_defaults, opencl_fp64='auto', shared_reference=False):
        self.lib = load_library()
        self.ctx = ctypes.c_void_p()
        self.models = []
        defaults = [d for d in (feature_defaults,
                                f'float_adm=adm_div={adm_div}' if adm_div else None) if d]
        flags = (GPU_PINNED_PICTURES if pinned_pictures else 0) | \
                (GPU_SHARED_REFERENCE if shared_reference else 0)
        cfg = Configuration(n_threads=threads, n_subsample=subsample,
                            backend=BACKEND[backend], log_level=LOG_WARNING, cpumask=0,
                            gpu_index=gpu, gpu_flags=flags, gpu_mem_limit=0,
                            feature_defaults=_b(';'.join(defaults)) if defaults else None,
                            opencl_fp64=OPENCL_FP64[opencl_fp64])
        if self.lib.tvmaf_init(ctypes.byref(self.ctx), ctypes.byref(cfg)):
            msg = _s(self.lib.tvmaf_last_error(self.ctx)) if self.ctx else ''
            self.close()
            raise TvmafError(msg or 'tvmaf_init failed')
        try:
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
        self.subsample = subsample
        self.luma_only = bool(self.lib.tvmaf_luma_only(self.ctx))
        self.n = 0

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
        self.submit_pictures(pr, pd)

    def submit_pictures(self, pr, pd):
        """Hands two library pictures to the context, which owns them from
        here whatever the result (tvmaf_read_pictures)."""
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
        present = {label: has[k, frames].copy() for k, (_, label) in enumerate(keys)}
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
        return Result(frames, scores, pooled, aggregate, backends, present)

    def close(self):
        if self.ctx:
            self.lib.tvmaf_close(self.ctx)
            self.ctx = ctypes.c_void_p()
        for m in self.models:
            self.lib.tvmaf_model_destroy(m)
        self.models = []


def _plane_dims(fmt, w, h):
    """(width, height) of each plane (tvmaf.h: 4:2:0 chroma is (w+1)/2 x (h+1)/2)."""
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h),
              '444': (w, h), '400': (0, 0)}[fmt]
    return [(w, h)] + ([(cw, ch)] * 2 if fmt != '400' else [])


def _as_frame(x, what):
    """A frame as a tuple of 2-D planes: a 2-D array (luma only) or a
    sequence of three 2-D arrays (Y, U, V)."""
    if isinstance(x, np.ndarray) and x.ndim == 2:
        return (x,)
    try:
        planes = tuple(np.asarray(p) for p in x)
    except TypeError:
        raise ArgumentError(f'{what}: a frame is a 2-D array (luma) or three 2-D planes '
                            f'(Y, U, V), not {type(x).__name__}') from None
    if len(planes) not in (1, 3) or any(p.ndim != 2 for p in planes):
        raise ArgumentError(f'{what}: a frame is a 2-D array (luma) or three 2-D planes '
                            f'(Y, U, V); got shapes {[p.shape for p in planes]}')
    return planes


def _layout(planes, what):
    h, w = planes[0].shape
    if not w or not h:
        raise ArgumentError(f'{what}: an empty {w}x{h} luma plane')
    if len(planes) == 1:
        return '400'
    if planes[1].shape != planes[2].shape:
        raise ArgumentError(f'{what}: the U and V planes differ in size')
    for fmt in ('420', '422', '444'):
        cw, ch = _plane_dims(fmt, w, h)[1]
        if tuple(planes[1].shape) == (ch, cw):
            return fmt
    raise ArgumentError(f'{what}: chroma {planes[1].shape[1]}x{planes[1].shape[0]} fits no '
                        f'layout of a {w}x{h} frame (4:2:0, 4:2:2 or 4:4:4)')


def _iter_frames(frames, what):
    if isinstance(frames, np.ndarray):
        if frames.ndim != 3:
            raise ArgumentError(f'{what}: frames are a 3-D array (frames, height, width) or a '
                                f'sequence of frames, not a {frames.ndim}-D array')
        return iter(frames)
    try:
        return iter(frames)
    except TypeError:
        raise ArgumentError(f'{what}: frames are a 3-D array (frames, height, width) or a '
                            f'sequence of frames, not {type(frames).__name__}') from None


def _run_pairs(pairs, bitdepth, settings):
    """Scores (ref planes, dis planes) pairs; the first pair fixes the layout."""
    run = None
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
                        raise ArgumentError(f'{dt} samples need bitdepth= (10, 12 or 16)')
            for name, pic in (('reference', ref), ('distorted', dis)):
                if [p.shape for p in pic] != shapes:
                    raise ArgumentError(f'{what}: the {name} planes are '
                                        f'{[p.shape for p in pic]}, frame 0 of the reference '
                                        f'{shapes}')
                for p in pic:
                    want = np.uint8 if bitdepth == 8 else np.uint16
                    if p.dtype != want:
                        raise ArgumentError(f'{what}: {p.dtype} samples for {bitdepth}-bit '
                                            f'video (uint8 for 8 bits, uint16 above)')
            if run is None:  # the context after the first frame's checks
                run = _Run(**settings)
            run.submit(ref, dis, fmt, bitdepth)
        if run is None:
            raise TvmafError('the inputs hold no frame to score')
        return run.finish()
    finally:
        if run is not None:
            run.close()


def score_frames(ref, dis, *, bitdepth=None, models=('vmaf_v0.6.1',), features=(),
                 backend='auto', threads=0, subsample=1, gpu=0, pinned_pictures=False,
                 adm_div=None, feature_defaults=None, opencl_fp64='auto'):
    """Scores numpy frames. ref and dis: a 3-D array (frames, height, width)
    of luma, or equal-length sequences of frames, each a 2-D luma array or
    (Y, U, V) planes (4:2:0, 4:2:2 or 4:4:4, told from their sizes). Samples
    are uint8 (8 bits) or uint16 (bitdepth=10, 12 or 16 required).

    models: version names, .json paths or dicts (see _model_spec); () for
    features only. features: extractor specs as the CLI's --feature takes
    them ('psnr', 'float_ssim=enable_lcs=true'). backend: 'cpu', 'cuda', 'opencl' or
    'auto'. threads (0..1024), subsample (>= 1), gpu, pinned_pictures, adm_div,
    opencl_fp64 ('auto', 'on', 'off'): as the CLI's --threads, --subsample,
    --gpu, --pinned-pictures, --adm-div and --opencl-fp64;
    feature_defaults: TvmafConfiguration.feature_defaults
    ('name=opt=val[:opt=val]', several separated by ';').
    Returns a Result. Bad arguments raise ArgumentError (a ValueError)."""
    settings = _settings(models, features, backend, threads, subsample, gpu, pinned_pictures,
                         adm_div, feature_defaults, opencl_fp64)
    if bitdepth is not None:
        _int_arg('bitdepth', bitdepth, 0, 64)
        if bitdepth not in BITDEPTHS:
            raise ArgumentError(f'bitdepth={bitdepth}: expected 8, 10, 12 or 16')
    if hasattr(ref, '__len__') and hasattr(dis, '__len__') and len(ref) != len(dis):
        short = 'reference' if len(ref) < len(dis) else 'distorted'
        raise ArgumentError(f'the {short} ends after {min(len(ref), len(dis))} frames, before '
                            'the other')
    ri, di = _iter_frames(ref, 'reference'), _iter_frames(dis, 'distorted')

    def pairs():
        i = 0
        while True:
            r, d = next(ri, None), next(di, None)
            if r is None and d is None:
                return
            if r is None or d is None:
                raise ArgumentError(f'the {"reference" if r is None else "distorted"} ends '
                                    f'after {i} frames, before the other')
            yield _as_frame(r, f'reference frame {i}'), _as_frame(d, f'distorted frame {i}')
            i += 1
    return _run_pairs(pairs(), bitdepth, settings)


FFMPEG_HINT = ('Encoded input needs a libtvmaf built with FFmpeg: install tvmaf from source '
               '(pip install . in a source checkout) on a machine with FFmpeg\'s development '
               'libraries (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev).')


def _has_ffmpeg():
    try:
        return bool(build_info()['ffmpeg'])
    except Exception:  # a library without tvmaf_build_info: say nothing of it
        return True


def _geometry(width, height, pix_fmt, bitdepth, what):
    """(pix_fmt name, bitdepth, w, h) of raw input, or None when not given."""
    given = {k: v for k, v in (('width', width), ('height', height), ('pix_fmt', pix_fmt),
                               ('bitdepth', bitdepth)) if v is not None}
    if not given:
        return None
    missing = [k for k in ('width', 'height', 'pix_fmt', 'bitdepth') if k not in given]
    if missing:
        raise ArgumentError(f'{what}: raw YUV needs width, height, pix_fmt and bitdepth '
                            f'together ({", ".join(missing)} missing)')
    w = _int_arg(f'{what} width', width, 1, 65536)
    h = _int_arg(f'{what} height', height, 1, 65536)
    fmt = _str_arg(f'{what} pix_fmt', pix_fmt, choices=tuple(PIX_FMTS))
    bd = _int_arg(f'{what} bitdepth', bitdepth, 0, 64)
    if bd not in BITDEPTHS:
        raise ArgumentError(f'{what} bitdepth={bd}: expected 8, 10, 12 or 16')
    return PIX_FMTS[fmt], bd, w, h


def _format_arg(name, v):
    """ref_format / dis_format: 'WxH:PIX:BITS' as the CLI's --ref-format, or
    a (width, height, pix_fmt, bitdepth) tuple."""
    if v is None:
        return None
    if isinstance(v, str):
        _str_arg(name, v)
        parts = v.split(':')
        size = parts[0].split('x') if parts else []
        if len(parts) != 3 or len(size) != 2 or not all(s.isdigit() for s in size + parts[2:]):
            raise ArgumentError(f'{name}={v!r}: expected WIDTHxHEIGHT:PIX:BITS, e.g. '
                                '1920x1080:420:8')
        v = (int(size[0]), int(size[1]), parts[1], int(parts[2]))
    if not isinstance(v, tuple) or len(v) != 4:
        raise ArgumentError(f'{name}={v!r}: expected "WxH:PIX:BITS" or (width, height, '
                            'pix_fmt, bitdepth)')
    return _geometry(*v, name)


_PIX_NAMES = {v: k for k, v in PIX_FMT.items()}


class _Reader:
    """One input read through libtvmaf's reader (tvmaf/reader.h)."""

    def __init__(self, lib, path, raw, what):
        self.lib, self.path, self.what = lib, path, what
        self.r = ctypes.c_void_p()
        cfg = ReaderConfig()
        if raw is not None:
            cfg.raw = VideoFormat(pix_fmt=PIX_FMT[raw[0]], bpc=raw[1], w=raw[2], h=raw[3])
        msg = ctypes.create_string_buffer(1024)
        rc = lib.tvmaf_reader_open(ctypes.byref(self.r), path, ctypes.byref(cfg), msg, len(msg))
        if rc:
            self.r = ctypes.c_void_p()
            text = _s(msg.value) or f'{what}: cannot open "{_s(path)}" ({os.strerror(-rc)})'
            if rc == -errno.ENOTSUP and not _has_ffmpeg():
                text += ' ' + FFMPEG_HINT
            elif rc == -errno.EINVAL and raw is None:
                text += (' (raw YUV: give width=, height=, pix_fmt= and bitdepth=, or '
                         'ref_format= / dis_format=)')
            raise TvmafError(text)
        f = lib.tvmaf_reader_format(self.r).contents
        self.format = (_PIX_NAMES.get(f.pix_fmt, '?'), f.bpc, f.w, f.h)
        self.kind = _s(lib.tvmaf_reader_kind(self.r))

    def frame_rate(self):
        num, den = ctypes.c_int(), ctypes.c_int()
        self.lib.tvmaf_reader_frame_rate(self.r, ctypes.byref(num), ctypes.byref(den))
        return num.value, den.value

    def set_scale(self, w, h, filt):
        msg = ctypes.create_string_buffer(1024)
        if self.lib.tvmaf_reader_set_scale(self.r, w, h, _b(filt), msg, len(msg)):
            raise TvmafError(_s(msg.value))
        f = self.lib.tvmaf_reader_format(self.r).contents
        self.format = (_PIX_NAMES.get(f.pix_fmt, '?'), f.bpc, f.w, f.h)

    def read(self):
        """The next picture (the caller owns it), or None at the end."""
        pic = Picture()
        msg = ctypes.create_string_buffer(1024)
        rc = self.lib.tvmaf_reader_read(self.r, ctypes.byref(pic), msg, len(msg))
        if rc < 0:
            raise TvmafError(_s(msg.value))
        return pic if rc == 1 else None

    def skip(self, n):
        if not n:
            return
        msg = ctypes.create_string_buffer(1024)
        rc = self.lib.tvmaf_reader_skip(self.r, n, msg, len(msg))
        if rc < 0:
            raise TvmafError(_s(msg.value))
        if rc == 0:
            raise TvmafError(f'"{_s(self.path)}" has fewer frames than it is asked to skip ({n})')

    def above_depth_frame(self):
        k = self.lib.tvmaf_reader_above_depth_frame(self.r)
        return None if k == 2 ** 64 - 1 else k

    def close(self):
        if self.r:
            self.lib.tvmaf_reader_close(self.r)
            self.r = ctypes.c_void_p()


def _fmt_text(f):
    return f'{f[2]}x{f[3]} {f[0]} {f[1]}-bit'


def _check_pair(ref, dis, raw_given, scale, ignore_frame_rate):
    """The distorted input against the reference, as the CLI checks a pair
    (tools/run.c): the frame rates, the size (scaled where scale= says so),
    then the format. Raises TvmafError naming both."""
    for rd in (ref, dis):
        # a Y4M header wins over a given raw geometry: one contradicting it is refused,
        # as the CLI refuses it (libvmaf would read the file as raw YUV with it)
        given = raw_given[rd is dis]
        if rd.kind == 'y4m' and given is not None and given != rd.format:
            raise TvmafError(f'"{_s(rd.path)}" is Y4M and its header says '
                             f'{_fmt_text(rd.format)}, not {_fmt_text(given)} (width, height, '
                             'pix_fmt and bitdepth describe raw YUV: leave them out for Y4M '
                             'input)')
    # encoded streams' rates only: libvmaf and the CLI score Y4M pairs whatever
    # their headers' F
    (nr, dr), (nd, dd) = [rd.frame_rate() if rd.kind == 'ffmpeg' else (0, 0)
                          for rd in (ref, dis)]
    if not ignore_frame_rate and dr and dd and nr * dd != nd * dr:
        raise TvmafError(f'the reference ({nr}/{dr} fps) and the distorted ({nd}/{dd} fps) '
                         'differ in frame rate, so their frames do not line up; '
                         'ignore_frame_rate=True scores them frame by frame anyway')
    fr, fd = ref.format, dis.format
    if fr[2:] != fd[2:] and scale is not None:
        dis.set_scale(fr[2], fr[3], scale)
        fd = dis.format
    elif fr[2:] != fd[2:] and dis.kind == 'ffmpeg' and fr[:2] == fd[:2]:
        raise TvmafError(f'the distorted video is {fd[2]}x{fd[3]}, the reference {fr[2]}x{fr[3]}:'
                         ' give scale=FILTER (e.g. scale=\'bicubic\', ffmpeg\'s default) to '
                         'scale it to the reference\'s size')
    if fr != fd:
        raise TvmafError(f'reference ({_fmt_text(fr)}) and distorted ({_fmt_text(fd)}) differ '
                         'in size or format')


def _score_group(ref_path, dis_paths, *, width, height, pix_fmt, bitdepth, ref_format,
                 dis_format, scale, ignore_frame_rate, frame_cnt, frame_skip_ref,
                 frame_skip_dist, settings):
    """Scores every distorted input against one reading of the reference (the
    CLI's ladder, tools/group.c): each reference picture goes to every
    context (tvmaf_picture_ref, no copy). Returns a Result per input."""
    ref_b = _path_arg('ref', ref_path)
    dis_b = [_path_arg(f'dis[{i}]' if len(dis_paths) > 1 else 'dis', d)
             for i, d in enumerate(dis_paths)]
    raw = _geometry(width, height, pix_fmt, bitdepth, 'raw')
    raw_ref = _format_arg('ref_format', ref_format) or raw
    raw_dis = _format_arg('dis_format', dis_format) or raw
    scale = _str_arg('scale', scale, none_ok=True)
    ignore_frame_rate = _bool_arg('ignore_frame_rate', ignore_frame_rate)
    frame_cnt = _int_arg('frame_cnt', frame_cnt, 0, _UINT_MAX, none_ok=True)
    skip_ref = _int_arg('frame_skip_ref', frame_skip_ref, 0, _UINT_MAX)
    skip_dis = _int_arg('frame_skip_dist', frame_skip_dist, 0, _UINT_MAX)
    lib = load_library()
    if scale is not None:
        names = (_s(lib.tvmaf_reader_scale_filters()) or '').split('|')
        if names != [''] and scale not in names:
            raise ArgumentError(f'scale={scale!r}: expected one of {", ".join(names)}')
    readers, runs = [], []
    try:
        ref = _Reader(lib, ref_b, raw_ref, 'reference')
        readers.append(ref)
        dis = []
        for p in dis_b:
            dis.append(_Reader(lib, p, raw_dis, 'distorted'))
            readers.append(dis[-1])
        for d in dis:
            _check_pair(ref, d, (raw_ref, raw_dis), scale, ignore_frame_rate)
        ladder = len(dis) > 1
        runs = []
        for _ in dis:
            runs.append(_Run(**settings, shared_reference=ladder))
        # the readers fill the chroma planes only where some feature reads them
        if all(r.luma_only for r in runs):
            for rd in readers:
                lib.tvmaf_reader_set_luma_only(rd.r, 1)
        ref.skip(skip_ref)
        for d in dis:
            d.skip(skip_dis)
        i = 0
        while not frame_cnt or i < frame_cnt:
            _submit_frame(lib, ref, dis, runs, i)
            if runs[0].n == i:  # every input ended
                break
            i += 1
        results = [r.finish() for r in runs]
        for rd in readers:
            k = rd.above_depth_frame()
            if k is not None:
                warnings.warn(f'"{_s(rd.path)}" holds samples above {rd.format[1]} bits '
                              f'(frame {k} and maybe others); they are scored as they are',
                              stacklevel=3)
        return results
    finally:
        for r in runs:
            r.close()
        for rd in readers:
            rd.close()


def _submit_frame(lib, ref, dis, runs, i):
    """Reads frame i of every input and submits it to every context; submits
    nothing when all have ended. Every picture read is owned by a context or
    released, whatever fails."""
    pics = []  # pictures read and not yet handed over
    try:
        pr = ref.read()
        if pr is not None:
            pics.append(pr)
        pds = []
        for d in dis:
            pd = d.read()
            pds.append(pd)
            if pd is not None:
                pics.append(pd)
        ended = [rd for rd, p in zip([ref] + dis, [pr] + pds) if p is None]
        if len(ended) == len(dis) + 1:
            return
        if ended:
            longer = next(rd for rd, p in zip([ref] + dis, [pr] + pds) if p is not None)
            raise TvmafError(f'"{_s(ended[0].path)}" ended after {i} frames, before '
                             f'"{_s(longer.path)}"')
        for run, pd in zip(runs, pds):
            if len(runs) == 1:
                r = pr
            else:
                r = Picture()
                if lib.tvmaf_picture_ref(ctypes.byref(r), ctypes.byref(pr)):
                    raise TvmafError('cannot share a reference picture between contexts')
            pics.remove(pd)
            if r is pr:
                pics.remove(pr)
            run.submit_pictures(r, pd)
    finally:
        for p in pics:
            lib.tvmaf_picture_unref(ctypes.byref(p))


def score_files(ref_path, dis_path, *, width=None, height=None, pix_fmt=None, bitdepth=None,
                ref_format=None, dis_format=None, scale=None, ignore_frame_rate=False,
                models=('vmaf_v0.6.1',), features=(), backend='auto', threads=0, subsample=1,
                gpu=0, pinned_pictures=False, adm_div=None, feature_defaults=None,
                frame_cnt=None, frame_skip_ref=0, frame_skip_dist=0, opencl_fp64='auto'):
    """Scores two files (or '-', standard input) read by libtvmaf's reader,
    as the CLI reads them: raw YUV, Y4M or encoded video.

    width, height, pix_fmt ('420', '422', '444', '400' or yuv420p, ...), bitdepth
    (8, 10, 12, 16): the geometry of raw planar YUV input (16-bit little-endian
    samples above 8 bits); give none of them for Y4M and encoded input, which
    say their own. ref_format / dis_format: one input's raw geometry
    ('1920x1080:420:8' or a tuple), as the CLI's --ref-format/--dis-format
    (e.g. a raw reference beside an encoded distorted input). Encoded input
    (anything this libtvmaf's FFmpeg decodes; build_info()['ffmpeg']) is
    recognised from its first bytes. scale: a swscale filter ('bicubic',
    'lanczos', ...) that scales an encoded distorted input to the reference's
    size, as the CLI's --scale. ignore_frame_rate: score inputs whose frame
    rates differ. frame_cnt, frame_skip_ref, frame_skip_dist: the CLI's
    --frame_cnt (0 or None: every frame) and --frame_skip_ref/_dist. Other
    arguments as score_frames.

    Returns a Result. Bad arguments raise ArgumentError (a ValueError); what
    the library refuses raises TvmafError with its message."""
    settings = _settings(models, features, backend, threads, subsample, gpu, pinned_pictures,
                         adm_div, feature_defaults, opencl_fp64)
    return _score_group(ref_path, [dis_path], width=width, height=height, pix_fmt=pix_fmt,
                        bitdepth=bitdepth, ref_format=ref_format, dis_format=dis_format,
                        scale=scale, ignore_frame_rate=ignore_frame_rate, frame_cnt=frame_cnt,
                        frame_skip_ref=frame_skip_ref, frame_skip_dist=frame_skip_dist,
                        settings=settings)[0]


def score_ladder(ref_path, dis_paths, **options):
    """Scores several distorted inputs against one reference read once, as
    the CLI's `-r REF -d A -d B ...`: one library context per input, each
    reference picture shared by all of them (tvmaf_picture_ref). Options as
    score_files. Returns a list of Result, one per distorted input, in order,
    each the bits score_files gives for that pair."""
    if isinstance(dis_paths, (str, bytes, os.PathLike)) or \
            not isinstance(dis_paths, (list, tuple)) or not dis_paths:
        raise ArgumentError(f'dis_paths={dis_paths!r}: expected a non-empty list of paths')
    unknown = set(options) - set(_GROUP_OPTIONS) - set(_SETTING_OPTIONS)
    if unknown:
        raise ArgumentError(f'score_ladder: unknown option(s) {", ".join(sorted(unknown))}')
    o = dict(_SETTING_OPTIONS, **{k: v for k, v in options.items() if k in _SETTING_OPTIONS})
    settings = _settings(**o)
    g = dict(_GROUP_OPTIONS, **{k: v for k, v in options.items() if k in _GROUP_OPTIONS})
    return _score_group(ref_path, list(dis_paths), settings=settings, **g)


# score_files' keywords and defaults, split as _settings and _score_group take them
_SETTING_OPTIONS = dict(models=('vmaf_v0.6.1',), features=(), backend='auto', threads=0,
                        subsample=1, gpu=0, pinned_pictures=False, adm_div=None,
                        feature_defaults=None, opencl_fp64='auto')
_GROUP_OPTIONS = dict(width=None, height=None, pix_fmt=None, bitdepth=None, ref_format=None,
                      dis_format=None, scale=None, ignore_frame_rate=False, frame_cnt=None,
                      frame_skip_ref=0, frame_skip_dist=0)


def score_batch(manifest, *, jobs=1, **options):
    """Scores the rows of a manifest as the CLI's `tvmaf --batch MANIFEST`
    (docs/batch.md; read by tvmaf.batch.read_manifest: CSV with a header or
    JSON lines, columns ref, dis, output, width, height, pix_fmt, bitdepth,
    model), `jobs` pairs at a time (threads of this process; 1 to 64).
    Options as score_files apply to every row; a row's geometry and models
    win (a row's model column holds -m arguments, ';'-separated).

    Returns one dict per manifest row, in manifest order, with the columns of
    the batch table (tvmaf.batch.TABLE: line, ref, dis, status 'ok', 'failed'
    or 'bad_row', vmaf_mean, frames, error, output), one KEY_mean column per
    pooled key of the row ('psnr_y_mean', ...: the pooled mean, a float) and
    'result', the row's Result (None unless ok). A failed or bad row carries
    its error and does not stop the others; nothing is written (a row's
    output is the path the caller may write to_dict() to). Bad options raise
    ArgumentError before any row is scored; an unreadable manifest raises
    TvmafError."""
    from . import batch as _batch
    jobs = _int_arg('jobs', jobs, 1, MAX_JOBS)
    path = _path_arg('manifest', manifest)
    unknown = set(options) - set(_GROUP_OPTIONS) - set(_SETTING_OPTIONS)
    unknown |= set(options) & {'ref_format', 'dis_format'}
    if unknown:
        raise ArgumentError(f'score_batch: unknown option(s) {", ".join(sorted(unknown))}')
    base = dict(_SETTING_OPTIONS, **{k: v for k, v in options.items() if k in _SETTING_OPTIONS})
    group = dict(_GROUP_OPTIONS, **{k: v for k, v in options.items() if k in _GROUP_OPTIONS})
    _settings(**base)          # the options themselves, checked once before any row
    _score_group_check(group)
    try:
        rows = _batch.read_manifest(os.fsdecode(path))
    except _batch.ManifestError as e:
        raise TvmafError(str(e)) from None

    def one(row):
        out = {'line': row.line, 'ref': row.values.get('ref', ''),
               'dis': row.values.get('dis', ''), 'output': row.values.get('output', ''),
               'result': None}
        if row.error is not None:
            return dict(out, status='bad_row', error=row.error)
        try:
            o = dict(base)
            if row.values.get('model'):
                o['models'] = [_cli_model(m, f'line {row.line} model')
                               for m in row.values['model'].split(';') if m]
            g = dict(group)
            for k in ('width', 'height', 'bitdepth'):
                if k in row.values:
                    g[k] = int(row.values[k])
            if 'pix_fmt' in row.values:
                g['pix_fmt'] = row.values['pix_fmt']
            r = _score_group(row.values['ref'], [row.values['dis']], settings=_settings(**o),
                             **g)[0]
        except (TvmafError, OSError) as e:
            return dict(out, status='failed', error=str(e))
        return dict(out, status='ok', result=r, frames=len(r.frames),
                    **_batch.pooled_columns(r.pooled))
    if jobs == 1:
        done = [one(row) for row in rows]
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            done = list(ex.map(one, rows))
    for d in done:
        d.setdefault('vmaf_mean', None)
        d.setdefault('frames', None)
        d.setdefault('error', '')
    return done


def _score_group_check(group):
    """score_files' input options, checked without opening anything."""
    _geometry(group['width'], group['height'], group['pix_fmt'], group['bitdepth'], 'raw')
    _str_arg('scale', group['scale'], none_ok=True)
    _bool_arg('ignore_frame_rate', group['ignore_frame_rate'])
    _int_arg('frame_cnt', group['frame_cnt'], 0, _UINT_MAX, none_ok=True)
    _int_arg('frame_skip_ref', group['frame_skip_ref'], 0, _UINT_MAX)
    _int_arg('frame_skip_dist', group['frame_skip_dist'], 0, _UINT_MAX)
