"""Loading libtvmaf and declaring the part of its public API (tvmaf/tvmaf.h)
the bindings call. Nothing here computes a score."""
import ctypes
import ctypes.util
import os

# enum TvmafPixelFormat
PIX_FMT = {'420': 1, '422': 2, '444': 3, '400': 4}
# enum TvmafBackend
BACKEND = {'auto': 0, 'cpu': 1, 'cuda': 2, 'opencl': 3}
# enum TvmafPoolMethod
POOL = {'min': 1, 'max': 2, 'mean': 3, 'harmonic_mean': 4}
# enum TvmafLogLevel
LOG_LEVEL = {'none': 0, 'error': 1, 'warning': 2, 'info': 3, 'debug': 4}
# enum TvmafModelFlags
MODEL_FLAGS = {'disable_clip': 1, 'enable_transform': 2}
MODEL_DISABLE_CLIP = MODEL_FLAGS['disable_clip']
MODEL_ENABLE_TRANSFORM = MODEL_FLAGS['enable_transform']
LOG_WARNING = LOG_LEVEL['warning']
# the anonymous enum of TVMAF_GPU_* flags
GPU_FLAGS = {'pinned_pictures': 1, 'stats': 2, 'shared_reference': 4}
OPENCL_FP64 = {'auto': 0, 'on': 1, 'off': 2}
GPU_PINNED_PICTURES = GPU_FLAGS['pinned_pictures']
GPU_SHARED_REFERENCE = GPU_FLAGS['shared_reference']


class Picture(ctypes.Structure):
    _fields_ = [
        ('pix_fmt', ctypes.c_int),
        ('bpc', ctypes.c_uint),
        ('w', ctypes.c_uint * 3),
        ('h', ctypes.c_uint * 3),
        ('stride', ctypes.c_ssize_t * 3),
        ('data', ctypes.c_void_p * 3),
        ('priv', ctypes.c_void_p),
    ]


class Configuration(ctypes.Structure):
    _fields_ = [
        ('n_threads', ctypes.c_uint),
        ('n_subsample', ctypes.c_uint),
        ('backend', ctypes.c_int),
        ('log_level', ctypes.c_int),
        ('cpumask', ctypes.c_uint64),
        ('gpu_index', ctypes.c_uint),
        ('gpu_flags', ctypes.c_uint),
        ('gpu_mem_limit', ctypes.c_size_t),
        ('feature_defaults', ctypes.c_char_p),
        ('warmup_frames', ctypes.c_uint),
        ('range_frames', ctypes.c_uint),
        ('cuda_context', ctypes.c_void_p),
        ('opencl_fp64', ctypes.c_int),
    ]


class ModelConfig(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('flags', ctypes.c_uint)]


# tvmaf/reader.h
class VideoFormat(ctypes.Structure):
    _fields_ = [
        ('pix_fmt', ctypes.c_int),
        ('bpc', ctypes.c_uint),
        ('w', ctypes.c_uint),
        ('h', ctypes.c_uint),
    ]


class ReaderConfig(ctypes.Structure):
    _fields_ = [('raw', VideoFormat), ('max_frame_bytes', ctypes.c_uint64)]


_c = ctypes
_P = ctypes.c_void_p
_SIGNATURES = {
    'tvmaf_version': (_c.c_char_p, []),
    'tvmaf_build_info': (_c.c_char_p, []),
    'tvmaf_init': (_c.c_int, [_c.POINTER(_P), _c.POINTER(Configuration)]),
    'tvmaf_close': (None, [_P]),
    'tvmaf_last_error': (_c.c_char_p, [_P]),
    'tvmaf_use_feature': (_c.c_int, [_P, _c.c_char_p]),
    'tvmaf_picture_alloc': (_c.c_int, [_c.POINTER(Picture), _c.c_int, _c.c_uint, _c.c_uint,
                                       _c.c_uint]),
    'tvmaf_picture_unref': (None, [_c.POINTER(Picture)]),
    'tvmaf_read_pictures': (_c.c_int, [_P, _c.POINTER(Picture), _c.POINTER(Picture), _c.c_uint]),
    'tvmaf_flush': (_c.c_int, [_P]),
    'tvmaf_luma_only': (_c.c_int, [_P]),
    'tvmaf_feature_backend': (_c.c_char_p, [_P, _c.c_char_p]),
    'tvmaf_feature_score_at_index': (_c.c_int, [_P, _c.c_char_p, _c.POINTER(_c.c_double),
                                                _c.c_uint]),
    'tvmaf_feature_score_pooled': (_c.c_int, [_P, _c.c_char_p, _c.c_int,
                                              _c.POINTER(_c.c_double), _c.c_uint, _c.c_uint]),
    'tvmaf_aggregate_score': (_c.c_int, [_P, _c.c_char_p, _c.POINTER(_c.c_double)]),
    'tvmaf_frame_count': (_c.c_uint, [_P]),
    'tvmaf_score_key_count': (_c.c_uint, [_P]),
    'tvmaf_score_key': (_c.c_char_p, [_P, _c.c_uint]),
    'tvmaf_score_key_label': (_c.c_char_p, [_P, _c.c_uint]),
    'tvmaf_aggregate_count': (_c.c_uint, [_P]),
    'tvmaf_aggregate_key': (_c.c_char_p, [_P, _c.c_uint]),
    'tvmaf_model_load': (_c.c_int, [_c.POINTER(_P), _c.c_char_p, _c.c_char_p,
                                    _c.POINTER(ModelConfig), _c.c_char_p, _c.c_size_t]),
    'tvmaf_model_destroy': (None, [_P]),
    'tvmaf_model_feature_overload': (_c.c_int, [_P, _c.c_char_p, _c.c_char_p, _c.c_char_p]),
    'tvmaf_use_model': (_c.c_int, [_P, _P]),
    'tvmaf_score_model': (_c.c_int, [_P, _P]),
    'tvmaf_model_name': (_c.c_char_p, [_P]),
    'tvmaf_model_last_error': (_c.c_char_p, [_P]),
    'tvmaf_feature_count': (_c.c_uint, []),
    'tvmaf_feature_name': (_c.c_char_p, [_c.c_uint]),
    'tvmaf_feature_backends': (_c.c_char_p, [_c.c_uint]),
    'tvmaf_cuda_available': (_c.c_int, []),
    'tvmaf_picture_ref': (_c.c_int, [_c.POINTER(Picture), _c.POINTER(Picture)]),
    'tvmaf_cuda_picture_alloc': (_c.c_int, [_P, _c.POINTER(Picture), _c.c_int, _c.c_uint,
                                            _c.c_uint, _c.c_uint, _c.c_uint]),
    'tvmaf_import_score': (_c.c_int, [_P, _c.c_char_p, _c.c_double, _c.c_uint]),
    'tvmaf_score_model_at_index': (_c.c_int, [_P, _P, _c.c_uint, _c.POINTER(_c.c_double)]),
    'tvmaf_score_collection_at_index': (_c.c_int, [_P, _P, _c.c_uint,
                                                   _c.POINTER(_c.c_double)]),
    'tvmaf_model_members': (_c.c_uint, [_P]),
    'tvmaf_reader_open': (_c.c_int, [_c.POINTER(_P), _c.c_char_p, _c.POINTER(ReaderConfig),
                                     _c.c_char_p, _c.c_size_t]),
    'tvmaf_reader_format': (_c.POINTER(VideoFormat), [_P]),
    'tvmaf_reader_kind': (_c.c_char_p, [_P]),
    'tvmaf_reader_frame_rate': (None, [_P, _c.POINTER(_c.c_int), _c.POINTER(_c.c_int)]),
    'tvmaf_reader_set_scale': (_c.c_int, [_P, _c.c_uint, _c.c_uint, _c.c_char_p, _c.c_char_p,
                                          _c.c_size_t]),
    'tvmaf_reader_scale_filters': (_c.c_char_p, []),
    'tvmaf_reader_read': (_c.c_int, [_P, _c.POINTER(Picture), _c.c_char_p, _c.c_size_t]),
    'tvmaf_reader_skip': (_c.c_int, [_P, _c.c_uint, _c.c_char_p, _c.c_size_t]),
    'tvmaf_reader_set_luma_only': (None, [_P, _c.c_int]),
    'tvmaf_reader_above_depth_frame': (_c.c_uint64, [_P]),
    'tvmaf_reader_close': (None, [_P]),
}

_lib = None


def _candidates():
    # the installed package (pip install): the library meson put beside this file
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'libtvmaf.so')
    bundled = [here] if os.path.exists(here) else []
    env = os.environ.get('TVMAF_LIBRARY')
    if env:
        # a file, or a directory holding libtvmaf.so
        return bundled + [os.path.join(env, 'libtvmaf.so') if os.path.isdir(env) else env]
    if bundled:
        return bundled
    found = ctypes.util.find_library('tvmaf')
    return ([found] if found else []) + ['libtvmaf.so', 'libtvmaf.so.0']


def load_library(path=None):
    """Loads libtvmaf (from `path`, else the one installed in this package,
    else $TVMAF_LIBRARY, else where the dynamic loader finds it) and returns
    it; later calls return the same one."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    errors = []
    for cand in ([path] if path else _candidates()):
        try:
            lib = ctypes.CDLL(cand)
            break
        except OSError as e:
            errors.append(f'{cand}: {e}')
    else:
        raise OSError('cannot load libtvmaf (set TVMAF_LIBRARY to the path of libtvmaf.so): '
                      + '; '.join(errors))
    for name, (res, args) in _SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise OSError(f'{getattr(lib, "_name", path)} lacks {name}: '
                          'a libtvmaf older than these bindings') from None
        fn.restype = res
        fn.argtypes = args
    _lib = lib
    return lib
