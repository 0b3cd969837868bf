/*
 * The drop-in's internals: how libvmaf's handles wrap libtvmaf's.
 *
 * Everything here is built on libtvmaf's public API (tvmaf/tvmaf.h); the
 * drop-in adds libvmaf's conventions: its argument checks and error codes,
 * its dictionaries, its model and collection handles, its picture structure
 * and its log lines.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_SRC_COMPAT_H
#define TVMAF_COMPAT_LIBVMAF_SRC_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "tvmaf/tvmaf.h"

/* Messages on stderr, "libvmaf LEVEL: ...", up to the level the last
 * vmaf_init() set (libvmaf's logger is process-wide too; INFO before any). */
void compat_log(enum VmafLogLevel level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void compat_set_log_level(enum VmafLogLevel level);

/* libvmaf's error code for a libtvmaf failure: -ENOMEM stays, the rest is
 * -EINVAL (libvmaf's answer to every input it cannot use). */
int compat_error(int tvmaf_err);

/* The backend of host pictures: VmafConfiguration.gpumask nonzero keeps
 * them on the CPU, else TVMAF_LIBVMAF_BACKEND (cpu, auto, cuda, opencl;
 * default auto). */
enum TvmafBackend compat_backend_of(const VmafConfiguration *cfg);
/* libtvmaf's configuration of a drop-in context on `backend` (cuda_context:
 * a caller's CUcontext for the CUDA backend, or NULL). */
TvmafConfiguration compat_tv_config(const VmafConfiguration *cfg, enum TvmafBackend backend,
                                    void *cuda_context);

/* key -> value, in the order the keys were first set. */
typedef struct CompatEntry {
    char *key, *val;
} CompatEntry;

struct VmafFeatureDictionary {
    CompatEntry *entry;
    unsigned n, cap;
};

/* A libvmaf model handle: one libtvmaf model. A collection's model "0" and its
 * members are two handles on two loads of one file, so that an option set on
 * one (vmaf_model_feature_overload) leaves the other as it was, as in libvmaf. */
struct VmafModel {
    TvmafModel *tm;
};

struct VmafModelCollection {
    TvmafModel *tm;
};

/* Sets the options of `dict` on the model's features computed by extractor
 * `feature` as libvmaf merges them: entries naming no option of that
 * extractor are ignored (with a warning); a model without such a feature is
 * left as it is. */
int compat_model_overload(TvmafModel *tm, const char *feature, const VmafFeatureDictionary *dict);

/* Pictures. A picture of the drop-in holds a libtvmaf picture: the plane
 * fields are the same, `priv` is libtvmaf's and `ref` marks it as the
 * drop-in's (it points to the same block). */
int compat_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                         unsigned w, unsigned h, bool clear);
/* libvmaf's structure for a picture of libtvmaf's (this reference moves
 * into pic). */
void compat_picture_from_tvmaf(const TvmafPicture *tp, VmafPicture *pic);
/* Whether pic was made by this library and is still held. */
bool compat_picture_valid(const VmafPicture *pic);
/* The libtvmaf picture behind pic (a description of the same buffer). */
void compat_picture_to_tvmaf(const VmafPicture *pic, TvmafPicture *tp);

/* Pictures of one format handed out on request (vmaf_preallocate_pictures,
 * vmaf_cuda_preallocate_pictures with host memory). */
typedef struct CompatPicParams {
    bool set;
    unsigned w, h, bpc;
    enum VmafPixelFormat pix_fmt;
} CompatPicParams;

struct VmafContext {
    TvmafContext *tv;
    VmafConfiguration cfg;
    unsigned pic_cnt;      /* calls with pictures, as libvmaf counts them */
    unsigned next_index;   /* the index the next pair must have */
    unsigned submitted;    /* pairs handed to libtvmaf */
    unsigned registered;   /* features and models registered */
    bool flushed;
    CompatPicParams params; /* of the first pair: every pair must match */
    long long clock_begin, clock_end; /* processor time of the scoring, for fps */
    CompatPicParams pool;  /* vmaf_preallocate_pictures */
    /* CUDA entry points */
    bool cuda_imported;
    bool cuda_bound; /* scoring on CUDA in the imported state's CUcontext */
    CompatPicParams cuda_pool;
    enum VmafCudaPicturePreallocationMethod cuda_method;
};

#endif
