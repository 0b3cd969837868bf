/*
 * libtvmaf public API.
 *
 * Every function returns 0 on success or a negative errno value; the context
 * keeps a readable message of the last failure (tvmaf_last_error()).
 * Scores are doubles; the CPU backend reproduces Netflix libvmaf bit for bit
 * and every GPU backend reproduces the CPU bit for bit.
 */
#ifndef TVMAF_TVMAF_H
#define TVMAF_TVMAF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: what this header declares is
 * its whole exported interface. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define TVMAF_VERSION "0.1.0"

typedef struct TvmafContext TvmafContext;

enum TvmafPixelFormat {
    TVMAF_PIX_FMT_UNKNOWN = 0,
    TVMAF_PIX_FMT_YUV420P,
    TVMAF_PIX_FMT_YUV422P,
    TVMAF_PIX_FMT_YUV444P,
    TVMAF_PIX_FMT_YUV400P, /* luma only */
};

enum TvmafBackend {
    TVMAF_BACKEND_AUTO = 0, /* CUDA where a device is usable, else OpenCL, else CPU */
    TVMAF_BACKEND_CPU,
    TVMAF_BACKEND_CUDA,
    TVMAF_BACKEND_OPENCL,   /* any OpenCL 1.2 device (GPU or CPU: PoCL) */
};

enum TvmafLogLevel {
    TVMAF_LOG_NONE = 0,
    TVMAF_LOG_ERROR,
    TVMAF_LOG_WARNING,
    TVMAF_LOG_INFO,
    TVMAF_LOG_DEBUG,
};

enum TvmafPoolMethod {
    TVMAF_POOL_MIN = 1,
    TVMAF_POOL_MAX,
    TVMAF_POOL_MEAN,
    TVMAF_POOL_HARMONIC_MEAN,
};

/* Whether OpenCL twins may compute in fp64 (TvmafConfiguration.opencl_fp64). */
enum TvmafOpenclFp64 {
    TVMAF_OPENCL_FP64_AUTO = 0, /* where the device has cl_khr_fp64 */
    TVMAF_OPENCL_FP64_ON,       /* required: a device without it is refused */
    TVMAF_OPENCL_FP64_OFF,      /* never, as on a device without it */
};

typedef struct TvmafConfiguration {
    unsigned n_threads;        /* worker threads; 0 or 1: score frames on the calling thread
                                  (0 on the CUDA backend: min(cores, 8) frames in flight) */
    unsigned n_subsample;      /* score every Nth frame; 0 or 1: every frame */
    enum TvmafBackend backend;
    enum TvmafLogLevel log_level;
    uint64_t cpumask;          /* SIMD levels to disable (libvmaf's --cpumask) */
    /* GPU backends (ignored by the CPU backend) */
    unsigned gpu_index;        /* device ordinal on the chosen backend (0: the first) */
    unsigned gpu_flags;        /* TVMAF_GPU_* flags below */
    size_t gpu_mem_limit;      /* device memory the context may allocate, in bytes (0: no
                                  limit); an allocation past it fails as out of memory */
    /* Option defaults for every instance of a feature, those a model registers
     * included: "name=opt=val[:opt=val]", several separated by ';'. Options a
     * registration names itself still win. NULL: none. Copied by tvmaf_init. */
    const char *feature_defaults;
    /* One frame range of a longer video (a pair split across devices,
     * tvmaf_append_scores()). The first `warmup_frames` frames submitted only
     * prime the extractors that keep state from frame to frame (TEMPORAL:
     * motion, float_motion, speed_temporal); every output they give for those
     * frames is discarded and the other extractors skip them. The next
     * `range_frames` frames (0: every later frame) are scored as the
     * context's frames 0, 1, ...; frames submitted after them are seen by the
     * temporal extractors only, to finish their outputs for the range's last
     * frames (motion2 of the last frame needs the next one), and their own
     * outputs are discarded. 0 and 0: an ordinary context. */
    unsigned warmup_frames;
    unsigned range_frames;
    /* CUDA: a CUcontext of the caller's (cuCtxCreate, an FFmpeg device's
     * context) that the context scores in, instead of the primary context of
     * device gpu_index (gpu_index is then not used). It must stay valid
     * until tvmaf_close and until every picture of tvmaf_cuda_picture_alloc
     * is released. NULL: the primary context. Other backends ignore it. */
    void *cuda_context;
    /* OpenCL: AUTO lets twins use fp64 where the device has it. OFF treats
     * the device as one without it (Intel and Apple GPUs): a twin runs its
     * fp64-free program, and a twin that has none is refused (the context
     * fails at the first picture, naming the feature and fp64); it is how
     * the fp64-free programs are tested on devices that do have fp64. ON
     * fails to open a device without fp64. Other backends ignore it. */
    enum TvmafOpenclFp64 opencl_fp64;
} TvmafConfiguration;

enum {
    /* pictures from tvmaf_picture_alloc are page-locked and uploaded straight
     * from there (default: ordinary memory, copied into per-worker staging) */
    TVMAF_GPU_PINNED_PICTURES = 1u << 0,
    /* at flush and close, print the per-frame counts of device work, each twin's
     * device time and the start-up times to stderr */
    TVMAF_GPU_STATS = 1u << 1,
    /* the reference pictures are shared (tvmaf_picture_ref) with other
     * contexts with this flag on the same device, a ladder: each is uploaded
     * once for all of them (CUDA), the others read that copy, and work on the
     * reference alone is done once for all (CUDA: vif, adm and motion; CPU:
     * motion's SAD and adm's reference DWT); the scores are the same bits
     * either way. Any backend (the name is historical). */
    TVMAF_GPU_SHARED_REFERENCE = 1u << 2,
};

/*
 * A picture: planar YUV, 8 bits in uint8_t samples, 9..16 bits in uint16_t
 * samples (native endianness). Chroma of 4:2:0 is ((w+1)/2) x ((h+1)/2),
 * of 4:2:2 ((w+1)/2) x h. stride is in bytes.
 */
typedef struct TvmafPicture {
    enum TvmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    void *priv; /* owned by the library */
} TvmafPicture;

/* "4:2:0", "4:2:2", "4:4:4", "4:0:0" or "unknown", for messages. */
const char *tvmaf_pix_fmt_name(enum TvmafPixelFormat fmt);

/* Plane sizes of a format; returns -EINVAL for a bad format or size. */
int tvmaf_plane_dims(enum TvmafPixelFormat fmt, unsigned w, unsigned h,
                     unsigned pw[3], unsigned ph[3]);

int tvmaf_picture_alloc(TvmafPicture *pic, enum TvmafPixelFormat fmt,
                        unsigned bpc, unsigned w, unsigned h);
/*
 * A second reference to src's buffer in dst (no copy): each reference is
 * released by its own tvmaf_picture_unref(), the buffer with the last one.
 * One reference picture can so be submitted to several contexts (an encoding
 * ladder: one reference, several distorted inputs); the planes must not be
 * written while more than one reference exists (the library only reads
 * submitted pictures). A picture the library did not allocate (priv NULL)
 * is copied as a plain description: its memory stays the caller's.
 */
int tvmaf_picture_ref(TvmafPicture *dst, const TvmafPicture *src);
/* Releases this reference (the buffer when it is the last). */
void tvmaf_picture_unref(TvmafPicture *pic);

/*
 * A picture in the device memory of a context on the CUDA backend, scored
 * there with no copy to the host: data[p] holds the plane's device address
 * (a CUdeviceptr) in the context's CUDA context, stride[p] its row pitch in
 * bytes. The caller writes the planes on the device (cuMemcpy2D and the
 * like, in that CUDA context); work it queued on that context's legacy
 * default stream is complete before the library reads them; work on other
 * streams the caller synchronises before tvmaf_read_pictures. Released as
 * any picture (tvmaf_picture_unref, or by the context it is submitted to);
 * the memory is reused for later pictures of the context's device.
 *
 * flags: TVMAF_PICTURE_LUMA_ONLY allocates the luma plane alone (data[1]
 * and data[2] NULL; w[] and h[] still those of fmt): a context refuses such
 * pictures unless every feature it computes reads luma only.
 *
 * A context takes device pictures only when every feature it computes runs
 * on its device (tvmaf_read_pictures fails naming the first that does not).
 * Returns -ENODEV when the context is not on the CUDA backend.
 */
#define TVMAF_PICTURE_LUMA_ONLY (1u << 0)
int tvmaf_cuda_picture_alloc(TvmafContext *ctx, TvmafPicture *pic, enum TvmafPixelFormat fmt,
                             unsigned bpc, unsigned w, unsigned h, unsigned flags);

int tvmaf_init(TvmafContext **ctx, const TvmafConfiguration *cfg);
void tvmaf_close(TvmafContext *ctx);

/* Message of the last error reported by a call on ctx ("" if none). */
const char *tvmaf_last_error(const TvmafContext *ctx);

/*
 * Registers an extractor, libvmaf style: "name" or "name=opt=val:opt=val".
 * Unknown names, options or values are refused with -EINVAL.
 */
int tvmaf_use_feature(TvmafContext *ctx, const char *spec);

/*
 * Submits frame `index` (0, 1, 2, ... in order). The context takes ownership
 * of both pictures whatever the result. May block while too many frames are in
 * flight. Errors of earlier frames may be reported here or by tvmaf_flush().
 */
int tvmaf_read_pictures(TvmafContext *ctx, TvmafPicture *ref, TvmafPicture *dis,
                        unsigned index);

/* Waits for every submitted frame and runs the extractors' end-of-stream work. */
int tvmaf_flush(TvmafContext *ctx);

/*
 * Puts the scores of `src` after the frames of `dst`, as though dst had
 * scored src's frames itself: one video scored in consecutive frame ranges
 * by several contexts (each on its own device; see warmup_frames and
 * range_frames in TvmafConfiguration), then joined in frame order before
 * the models, pooling and outputs. Both contexts registered the same
 * features, in the same order, with the same options and subsample; src
 * is flushed (tvmaf_flush) and dst is not yet: its flush, after the last
 * append, computes the stream-level values (aggregates) over every frame,
 * from the extractors' totals merged exactly (integer sums). dst takes no
 * more frames afterwards. With each range after the first given enough
 * warm-up frames (4 cover every temporal extractor of this build) and one
 * frame after it, the joined scores are the bits of one context scoring the
 * whole video. -EINVAL (with a message in dst) when the contexts differ.
 */
int tvmaf_append_scores(TvmafContext *dst, TvmafContext *src);

/*
 * Frames of warm-up a range after the first needs (warmup_frames) so that
 * every temporal extractor registered in ctx gives the whole video's values
 * for the range's frames.
 */
unsigned tvmaf_warmup_frames_needed(const TvmafContext *ctx);

/*
 * 1 when every feature registered so far reads only the luma plane of the
 * pictures (VMAF's vif, adm and motion, and most float features): a caller
 * may then leave the chroma planes of the pictures it submits unfilled,
 * which saves reading a third of a 4:2:0 file. 0 otherwise, or with no
 * feature registered.
 */
int tvmaf_luma_only(const TvmafContext *ctx);

/* Backend that the extractor called `name` runs on ("cpu", "cuda"), or NULL. */
const char *tvmaf_feature_backend(const TvmafContext *ctx, const char *name);

int tvmaf_feature_score_at_index(TvmafContext *ctx, const char *key,
                                 double *score, unsigned index);
int tvmaf_feature_score_pooled(TvmafContext *ctx, const char *key,
                               enum TvmafPoolMethod method, double *score,
                               unsigned index_low, unsigned index_high);
int tvmaf_aggregate_score(TvmafContext *ctx, const char *key, double *score);

/*
 * Adds a per-frame value computed elsewhere under `key` at frame `index`
 * (libvmaf's vmaf_import_feature_score). The outputs list the key where a
 * one-thread run would first have added it: after the keys of the frames
 * submitted so far, before those of later frames; after the flush, after
 * every key there is. -EINVAL where the key has a value at that frame.
 * The score readers above and tvmaf_write_output() wait for the frames in
 * flight, so they may be called before tvmaf_flush() too.
 */
int tvmaf_import_score(TvmafContext *ctx, const char *key, double value, unsigned index);

/*
 * What a run collected, for callers that read every score (the report writer,
 * language bindings); call after tvmaf_flush() (and tvmaf_score_model()).
 * tvmaf_frame_count: frames submitted (the index range of the scores).
 * tvmaf_score_key_count / tvmaf_score_key: the per-frame keys, in the order
 * the outputs list them, as tvmaf_feature_score_at_index() and
 * tvmaf_feature_score_pooled() take them (NULL past the end);
 * tvmaf_score_key_label: the name the outputs print for key k (libvmaf's
 * alias, e.g. "integer_adm2"). tvmaf_aggregate_count / tvmaf_aggregate_key:
 * the stream-level keys tvmaf_aggregate_score() takes (e.g. "apsnr_y").
 */
unsigned tvmaf_frame_count(const TvmafContext *ctx);
unsigned tvmaf_score_key_count(TvmafContext *ctx);
const char *tvmaf_score_key(TvmafContext *ctx, unsigned k);
const char *tvmaf_score_key_label(TvmafContext *ctx, unsigned k);
unsigned tvmaf_aggregate_count(TvmafContext *ctx);
const char *tvmaf_aggregate_key(TvmafContext *ctx, unsigned i);

/* Models ------------------------------------------------------------------ */

typedef struct TvmafModel TvmafModel;

enum TvmafModelFlags {
    TVMAF_MODEL_DISABLE_CLIP = 1u << 0,
    TVMAF_MODEL_ENABLE_TRANSFORM = 1u << 1,
};

typedef struct TvmafModelConfig {
    const char *name; /* key of its scores; NULL: "vmaf" */
    unsigned flags;   /* TvmafModelFlags */
} TvmafModelConfig;

/*
 * Loads a VMAF model (a single SVM model or a bootstrap collection) from a
 * JSON file: `path` is a file path, or `version` a name (e.g. "vmaf_v0.6.1")
 * looked up as NAME.json in $TVMAF_MODEL_PATH (colon-separated), then among
 * the models built into the library (every file of the repository's models/:
 * vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_*, vmaf_float_*, vmaf_b_v0.6.3, the
 * v1.0.16 family), then in the install's data directory. Exactly one of path and version is non-NULL.
 * On failure returns a negative errno and writes a message: -ENOENT for a
 * version not found (naming every directory searched), -EINVAL for a file
 * that is not a usable model, -ENOTSUP for a model feature that no extractor
 * of this build provides (naming it).
 */
int tvmaf_model_load(TvmafModel **model, const char *path, const char *version,
                     const TvmafModelConfig *cfg, char *msg, size_t msg_len);
void tvmaf_model_destroy(TvmafModel *model);

/* Overrides option `opt` of the extractor `feature` for this model's
 * features (libvmaf's -m ...:feature.opt=val); a numeric value is normalised
 * as libvmaf does ("1.0" -> "1"). -ENOENT if the model reads no feature of
 * that extractor, -EINVAL if the extractor has no such option. */
int tvmaf_model_feature_overload(TvmafModel *model, const char *feature,
                                 const char *opt, const char *val);

/* Registers the extractors the model needs (with the model's options). */
int tvmaf_use_model(TvmafContext *ctx, TvmafModel *model);

/* After tvmaf_flush(): computes the model's score of every frame (of the
 * subsample grid) and adds them (and a collection's member/bagging/stddev/CI
 * keys) to the scores, listed after every feature; a single model's key before
 * any collection's member and statistics keys, as libvmaf's vmaf lists them.
 * A frame lacking one of the model's features is an error naming it. */
int tvmaf_score_model(TvmafContext *ctx, TvmafModel *model);

/*
 * One frame at a time, as libvmaf scores on request (vmaf_score_at_index):
 * the model's score of frame `index` (a collection's model "0"), the value
 * kept under its key if there is one, else predicted from the frame's feature
 * values and kept (listed after the keys there are, like every key these
 * calls keep). Waits for the frames in flight. -EINVAL, with a message,
 * where one of the model's features has no value at that frame.
 */
int tvmaf_score_model_at_index(TvmafContext *ctx, TvmafModel *model, unsigned index,
                               double *score);

/*
 * A bootstrap collection at frame `index` (libvmaf's
 * vmaf_score_at_index_model_collection): every member's score, kept as
 * NAME_0001, NAME_0002, ..., then stats[] = bagging, stddev, ci_p95_lo,
 * ci_p95_hi, kept as NAME_bagging, NAME_stddev, NAME_ci_p95_lo,
 * NAME_ci_p95_hi (values kept by an earlier call are returned as they are).
 * -EINVAL for a single model.
 */
int tvmaf_score_collection_at_index(TvmafContext *ctx, TvmafModel *model, unsigned index,
                                    double stats[4]);

/* The number of members of a bootstrap collection; 0 for a single model. */
unsigned tvmaf_model_members(const TvmafModel *model);

/* The model's key (its name). */
const char *tvmaf_model_name(const TvmafModel *model);

/* Message of the last failure of tvmaf_model_feature_overload(),
 * tvmaf_use_model() or tvmaf_score_model() on this model ("" if none). */
const char *tvmaf_model_last_error(const TvmafModel *model);

/* Output ------------------------------------------------------------------ */

enum TvmafOutputFormat {
    TVMAF_OUTPUT_XML = 0,
    TVMAF_OUTPUT_JSON,
    TVMAF_OUTPUT_CSV,
    TVMAF_OUTPUT_SUB,
};

/*
 * precision: 0 prints as libvmaf ("%.6f", or "%.16f" where the value has more
 * than six leading zeros after the point); N > 0 prints "%.Ng"; 17 is exact.
 */
int tvmaf_write_output(TvmafContext *ctx, FILE *out, enum TvmafOutputFormat fmt,
                       int precision, double fps, unsigned width, unsigned height);

/* Report ------------------------------------------------------------------ */

enum TvmafReportFormat {
    TVMAF_REPORT_HTML = 0, /* self-contained page: settings, pooled values, one inline SVG
                              panel per key, the worst frames of each model; no script */
    TVMAF_REPORT_SVG,      /* the panels alone, stacked in one SVG image */
};

typedef struct TvmafReportConfig {
    const char *title;            /* heading; NULL: "tvmaf report" */
    const char *const *settings;  /* name, value, name, value, ..., NULL: the run's
                                     settings, shown as given (may be NULL) */
    const char *const *models;    /* model keys (tvmaf_model_name()), NULL-terminated, or
                                     NULL: drawn first, each with its worst frames */
    unsigned n_worst;             /* lowest-scoring frames listed per model; 0: 10 */
    int precision;                /* numbers as tvmaf_write_output() prints them */
} TvmafReportConfig;

/* Writes the report of a scored run (after tvmaf_flush() and the models'
 * tvmaf_score_model()). Its numbers are printed as the JSON output prints
 * them at the same precision. */
int tvmaf_write_report(TvmafContext *ctx, FILE *out, enum TvmafReportFormat fmt,
                       const TvmafReportConfig *cfg);

/* Registry --------------------------------------------------------------- */

/* Number of extractors built into the library, and their descriptions. */
unsigned tvmaf_feature_count(void);
const char *tvmaf_feature_name(unsigned i);
/* Space-separated backends of extractor i, e.g. "cpu cuda". */
const char *tvmaf_feature_backends(unsigned i);

/* One option of an extractor, as --feature NAME=help lists it. */
typedef struct TvmafFeatureOptionInfo {
    const char *name;
    const char *help;
    const char *type;       /* "bool", "int", "double" or "string" */
    double def;             /* default of a bool (0 or 1), int or double option */
    const char *def_string; /* default of a string option */
    double min, max;        /* accepted range of an int or double option */
} TvmafFeatureOptionInfo;

/*
 * The options of the extractor called `name` (every backend's twin takes the
 * same ones): returns their number, or -ENOENT for an unknown name. With
 * info non-NULL and j below that number, fills *info with option j (its
 * strings belong to the library and live as long as it is loaded).
 */
int tvmaf_feature_option(const char *name, unsigned j, TvmafFeatureOptionInfo *info);

/* 1 when a CUDA device can be used by this build on this machine. */
int tvmaf_cuda_available(void);

/*
 * Devices of a GPU backend (TVMAF_BACKEND_CUDA or TVMAF_BACKEND_OPENCL) this
 * build can open on this machine, numbered 0..n-1 as gpu_index takes them;
 * 0 when the backend is missing or has no device; -EINVAL for the CPU and
 * auto.
 */
int tvmaf_gpu_count(enum TvmafBackend backend);

/* "cpu", "cuda", "opencl" or "auto", as --backend spells them. */
const char *tvmaf_backend_name(enum TvmafBackend backend);

/* The backend spelled `name` (tvmaf_backend_name's words) into *backend;
 * -EINVAL for any other name. */
int tvmaf_backend_parse(const char *name, enum TvmafBackend *backend);

/*
 * The backend a context configured with `backend` and device `gpu_index`
 * would score on, without opening any device: the CPU, or a GPU backend
 * (for auto, the one tvmaf_init would choose; an explicit GPU backend is
 * returned as it is, whether or not its device can be opened).
 */
enum TvmafBackend tvmaf_backend_choose(enum TvmafBackend backend, unsigned gpu_index);

/* The backend a context scores on (auto resolved by tvmaf_init). */
enum TvmafBackend tvmaf_context_backend(const TvmafContext *ctx);

/* The versions of the models built into the library (what -m version=NAME
 * finds without a file), i = 0, 1, ...; NULL past the last. */
const char *tvmaf_builtin_model_version(unsigned i);

const char *tvmaf_version(void);

/* What this build of the library holds, as one line of space-separated
 * key=value pairs, always these keys in this order (a later version may
 * append keys):
 *   version=0.1.0 ffmpeg=yes|no cuda=yes|no opencl=yes|no simd=LIST|none
 * ffmpeg: encoded input through FFmpeg (tvmaf/reader.h; its libraries are
 * loaded when the first encoded input is opened); cuda, opencl: the
 * GPU backends compiled in (whether a device is usable is a run-time matter:
 * tvmaf_cuda_available); simd: the x86-64 kernel sets compiled in,
 * comma-separated (avx2,avx512,avx512icl), chosen at run time by the CPU. */
const char *tvmaf_build_info(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
