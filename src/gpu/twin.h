/*
 * The twin base and its executors (internal to src/gpu/): a plan
 * (gpu/tvd.h) runs on any executor that implements TvdExec. An executor is
 * one backend's way to allocate, copy, launch and wait; the base does the
 * rest once: the instance's life (init, close on failure, close), the
 * arena layout of the plan's buffers, the views' checks, the per-frame
 * order (begin, run, end, report) and the messages.
 *
 * Life of an instance: plan->init declares buffers; x->open(module);
 * x->bind allocates the buffers (addresses into buf[i].addr, mirrors into
 * buf[i].mirror); plan->setup uploads; per frame x->begin, plan->run (the
 * tvd_* calls become x->fill/copy/download/launch/sync), x->end (waits),
 * plan->report; at the end x->close.
 */
#ifndef TVMAF_GPU_TWIN_H
#define TVMAF_GPU_TWIN_H

#include "gpu/tvd.h"

typedef struct TvdBufInfo {
    size_t size;
    unsigned flags;
    uint64_t off;    /* in the arena (executors that use one) */
    uint64_t addr;   /* the executor's address of the buffer */
    void *mirror;    /* TVD_MIRROR: the host copy */
} TvdBufInfo;

/* Per-frame operations the instance queued (the host executor's counts). */
typedef struct TvdCounts {
    unsigned long long launches, copies, fills, syncs;
} TvdCounts;

typedef struct TvdExec TvdExec;

struct TvdTwin {
    const TvdPlan *plan;
    const TvdExec *x;
    const void *code;   /* the module as the executor loads it */
    TvmafGpu *gpu;
    TvdCaps caps;
    TvdBufInfo *buf;
    unsigned n_buf, cap_buf;
    bool bound;
    const TvmafDeviceFrame *frame; /* between begin and end */
    const TvmafPicture *host[2];   /* the frame's host pictures, run to report */
    TvdCounts counts;
    size_t ref_slot_bytes; /* the one reference area a twin may have */
    void *xs;           /* the executor's state, xs_size bytes */
    int err;            /* the phase's first failure (gpu/tvd.h), 0 if none */
};

struct TvdExec {
    enum TvmafBackend backend;
    const char *name;       /* for messages: "cuda" */
    size_t xs_size;
    /* the device's caps for the instance (before the plan's init) */
    int (*open)(TvdTwin *t, char *why, size_t len);
    /* every declared buffer allocated, its mirror too */
    int (*bind)(TvdTwin *t, char *why, size_t len);
    int (*upload)(TvdTwin *t, uint64_t addr, const void *src, size_t size);
    int (*begin)(TvdTwin *t, const TvmafDeviceFrame *f);
    void (*plane)(TvdTwin *t, const TvmafDeviceFrame *f, int dis, unsigned p, TvdView *v,
                  uint64_t *pitch);
    unsigned (*planes)(const TvmafDeviceFrame *f);
    int (*fill)(TvdTwin *t, const TvdView *v, uint64_t addr, uint8_t byte);
    int (*copy)(TvdTwin *t, const TvdView *dst, uint64_t dst_addr, const TvdView *src,
                uint64_t src_addr);
    int (*download)(TvdTwin *t, const TvdView *v, uint64_t addr, void *host);
    /* `kargs`: the kernel's struct with views resolved to addresses; `views`
     * the plan's views, in the order of the kernel's view arguments */
    int (*launch)(TvdTwin *t, unsigned k, TvdGrid g, const void *kargs, const TvdView *views);
    int (*sync)(TvdTwin *t);
    /* waits for the frame's work unless err; always leaves the frame */
    int (*end)(TvdTwin *t, int err);
    void (*close)(TvdTwin *t);
    /* optional (a ladder's shared references, gpu/tvd.h): whether the
     * context shares them, the frame's host reference and serial, a count */
    bool (*shares_reference)(TvdTwin *t);
    const TvmafPicture *(*ref_picture)(const TvmafDeviceFrame *f, uint64_t *serial);
    void (*count_shared)(const TvmafDeviceFrame *f, bool computed);
    /* optional (a ladder's reference-side areas, gpu/tvd.h): an area's
     * address is the executor's, as a frame plane's */
    int (*ref_slot)(TvdTwin *t, const char *key, size_t bytes, unsigned *slot);
    int (*ref_area)(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, uint64_t *addr,
                    bool *fill);
    int (*ref_area_done)(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, bool ok);
    /* why the calling thread's last call failed, "" if unknown */
    const char *(*last_error)(void);
    /* optional: tvd_count_decided's counts, for the statistics */
    void (*count_decided)(TvdTwin *t, unsigned long long n, unsigned long long of);
};

/* The executor's address of a view (buffer address + offset, or the frame
 * plane's address). */
uint64_t tvd_addr(const TvdTwin *t, const TvdView *v);

/* Offsets of a kernel's arguments in its resolved struct (off: n_args). */
void tvd_kern_offsets(const TvdKernel *k, size_t *off);
#define TVD_MAX_ARGS 64

/* The generic extractor functions (core calls them for an extractor whose
 * `twin` is set). */
int tvd_twin_init(const TvmafExtractor *ex, void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu,
                  char *msg, size_t len);
int tvd_twin_extract(const TvmafExtractor *ex, void *priv, const TvmafDeviceFrame *f,
                     const TvmafPicture *ref, const TvmafPicture *dis, unsigned index,
                     TvmafSink *sink);
void tvd_twin_close(const TvmafExtractor *ex, void *priv);
/* bytes of an instance's state (the plan's, the base's, the executor's) */
size_t tvd_twin_priv_size(const TvdPlan *plan, const TvdExec *x);
/* The instance of an extractor's state (tests: the counts). */
TvdTwin *tvd_twin_of(const TvmafExtractor *ex, void *priv);

/* The executor of a backend, NULL if the build has none. */
const TvdExec *tvd_exec(enum TvmafBackend backend);

extern const TvdExec tvd_exec_cuda, tvd_exec_opencl;

#endif
