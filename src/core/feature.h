/*
 * The extractor interface every feature implements, on every backend.
 *
 * The context keeps one instance of an extractor per worker thread (its
 * private state is `priv_size` bytes, options already parsed into it), so
 * extract() of one instance is never called concurrently. An extractor that
 * needs frames in order sets TVMAF_FEX_TEMPORAL and gets one instance that
 * sees every frame in index order. Per-stream totals kept by several
 * instances are combined with merge() before flush() runs on the first one.
 */
#ifndef TVMAF_CORE_FEATURE_H
#define TVMAF_CORE_FEATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "tvmaf/tvmaf.h"
#include "core/options.h"
#include "core/team.h"

typedef struct TvmafSink TvmafSink;

/* A GPU backend's open device, and a frame's copy on it: opaque to core and
 * to CPU extractors; each backend defines them for its twins (core/backend.h). */
typedef struct TvmafGpu TvmafGpu;
typedef struct TvmafDeviceFrame TvmafDeviceFrame;

typedef struct TvmafVideoInfo {
    enum TvmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w, h;
    unsigned cpu_flags; /* SIMD levels the kernels may use (core/cpu.h); 0: C only */
    /* the reference pictures are shared with other contexts, a ladder
     * (TVMAF_GPU_SHARED_REFERENCE): an extractor may keep a result of the
     * reference alone with the picture (tvmaf_picture_once_area) for the
     * others to read; without it, that would cost memory for nothing */
    bool shared_reference;
    /* idle workers that may share a frame's work (core/team.h); NULL: the
     * instance runs alone */
    TvmafTeam *team;
} TvmafVideoInfo;

enum {
    /* frames reach the (single) instance in index order */
    TVMAF_FEX_TEMPORAL = 1u << 0,
    /* extracted on every frame even with --subsample (libvmaf does so for its
     * temporal extractors, psnr among them, whose stream totals count every
     * frame); only the output skips the frames */
    TVMAF_FEX_ALL_FRAMES = 1u << 1,
    /* reads only the luma planes of the pictures: when every registered
     * extractor says so, readers may leave chroma unread and device
     * uploads carry luma only */
    TVMAF_FEX_LUMA_ONLY = 1u << 2,
    /* reads the reference pictures of the frames before (extract_prev): the
     * context keeps the last TVMAF_PREV_REFS of them, so the extractor need
     * not see the frames in order and has an instance per worker, as
     * libvmaf's PREV_REF extractors. It runs on every submitted frame
     * (warm-up frames of a range included), as a temporal one does. */
    TVMAF_FEX_PREV_REF = 1u << 3,
};

/* Reference pictures before the current one a PREV_REF extractor receives. */
#define TVMAF_PREV_REFS 2

typedef struct TvmafExtractor {
    const char *name;
    enum TvmafBackend backend; /* TVMAF_BACKEND_CPU, or the GPU backend of a twin */
    const TvmafOption *options; /* terminated by an entry with name NULL */
    size_t priv_size;
    unsigned flags;
    /* CPU extractors. init checks the input and prepares state; on refusal
     * it returns a negative errno and writes a message naming the feature and
     * the limit. */
    int (*init)(void *priv, const TvmafVideoInfo *vi, char *msg, size_t msg_len);
    int (*extract)(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink);
    /* PREV_REF extractors, instead of extract: prev[k] is the reference
     * picture of frame index - 1 - k, NULL before the first frame */
    int (*extract_prev)(void *priv, const TvmafPicture *ref,
                        const TvmafPicture *const prev[TVMAF_PREV_REFS],
                        const TvmafPicture *dis, unsigned index, TvmafSink *sink);
    /* optional, PREV_REF extractors: take the per-frame records of instance
     * `src` (the frames its worker scored) into `dst`; the context gathers
     * every instance into the first before merge() and flush(). Unlike
     * merge() this is never called across contexts. */
    int (*gather)(void *dst, const void *src);
    /* optional: add the stream totals of `src` into `dst` */
    int (*merge)(void *dst, const void *src);
    /* optional: end of stream (aggregates, last-frame outputs) */
    int (*flush)(void *priv, TvmafSink *sink);
    void (*close)(void *priv);
    const char *const *provided_features; /* NULL-terminated */
    /* TEMPORAL extractors: frames before a range's first frame that rebuild
     * the state the range's outputs depend on (TvmafConfiguration's
     * warmup_frames); 0: the extractor cannot score a range of a video */
    unsigned warmup_frames;
    /* A twin (a GPU backend's extractor), written once (gpu/tvd.h): its plan,
     * the executor that runs it and its module as that executor loads it. The
     * registry makes it from the CPU extractor's descriptor; core calls the
     * twin base (gpu/twin.h) instead of init, extract and close, on the
     * frame's device copy, which the backend uploaded once for every twin. */
    const struct TvdPlan *twin;
    const struct TvdExec *twin_exec;
    const void *twin_code;
} TvmafExtractor;

/* Appends a per-frame score; a second value for the same key and index fails. */
int tvmaf_sink_append(TvmafSink *sink, const char *key, unsigned index, double value);
/* Sets a stream-level value (libvmaf's aggregate_metrics). */
int tvmaf_sink_aggregate(TvmafSink *sink, const char *key, double value);

#endif
