/*
 * The device interface a twin's plan is written against, once for every
 * backend (CUDA, OpenCL, and the host executor the tests run).
 *
 * A twin is a plan (F_plan.c) and its kernels (F_kernels.h, compiled by each
 * backend's compiler through gpu/kernel.h). The plan sees:
 *   buffers  declared in its init (tvd_buffer), allocated by the base
 *            afterwards as one arena per instance on a device; TVD_MIRROR
 *            gives a buffer a host copy of the same size that downloads
 *            land in (page-locked on CUDA);
 *   views    a byte range of a buffer or of a frame plane (TvdView), the
 *            only way an address reaches a kernel;
 *   kernels  named by the ids F_kernels.h's list generates (TVD_K_name),
 *            their arguments a struct the same list generates;
 *   its caps what the executor can do (warp shuffles, 64-bit atomics),
 *            from which it picks a decomposition.
 * Per frame the base makes the device wait for the frame, calls the plan's
 * run (which queues fills, launches, copies and downloads in order), waits
 * for the queue, then calls its report (which reads the mirrors and hands
 * results to the CPU extractor's own report code).
 *
 * Init, close on failure, the descriptor and the statistics' span are the
 * base's (gpu/twin.c); a plan holds no backend code.
 *
 * Failures stick within a phase (the plan's init, its setup, a frame's run):
 * after the first failing tvd_buffer, tvd_upload, tvd_fill, tvd_copy,
 * tvd_download(_into), tvd_launch or tvd_sync, each of them does nothing and
 * returns that error, and the base ends the phase with it (the frame's queue
 * still drained). A plan may therefore queue a phase's calls unchecked and
 * return 0; it checks a result only where it decides something by it.
 */
#ifndef TVMAF_GPU_TVD_H
#define TVMAF_GPU_TVD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/feature.h"

typedef struct TvdTwin TvdTwin;

/* A buffer of the instance (an index into its table), or TVD_FRAME_BUF for a
 * frame plane, whose `off` is the executor's address of the plane. */
typedef struct TvdBuf {
    uint32_t id;
} TvdBuf;
#define TVD_FRAME_BUF 0xffffffffu

typedef struct TvdView {
    TvdBuf buf;
    uint64_t off, size; /* bytes */
} TvdView;

/* Groups of a launch in each dimension (the group's size is the kernel's). */
typedef struct TvdGrid {
    uint32_t x, y, z;
} TvdGrid;
#define TVD_GRID(gx, gy) ((TvdGrid){ (gx), (gy), 1 })

typedef struct TvdCaps {
    unsigned warp;   /* 32: warp shuffles usable; 0: none (OpenCL 1.2) */
    bool atomic64;   /* 64-bit integer atomics on global and local memory */
    bool fp64;
    bool cr_div_sqrt; /* correctly rounded float division and square root */
} TvdCaps;

enum {
    TVD_MIRROR = 1u << 0, /* a host copy that tvd_download fills */
};

/* A kernel argument, a field of the list's structs (gpu/kernel.h): a view
 * (a TvdView in the plan's struct, a pointer in the kernel's) or a value of
 * `size` bytes (the same in both). The fields' offsets follow from the list's
 * order, sizes and alignments as C lays out a struct; tvd_kernels_check
 * compares the result with the compiler's sizes. */
typedef struct TvdArg {
    uint8_t view;
    uint8_t align;   /* of the value; of the element for a view */
    uint16_t size;   /* of the value; of the element for a view */
} TvdArg;

/* One kernel of a module, in the order of the feature's list. */
typedef struct TvdKernel {
    const char *name;
    const TvdArg *args;
    unsigned n_args;
    size_t plan_size;     /* bytes of the plan's struct */
    size_t kern_size;     /* bytes of the kernel's struct */
    unsigned group[2];    /* work-items per group, x and y */
    unsigned flags;       /* TVD_SYNC, TVD_CUDA_CAPS */
} TvdKernel;

/* a kernel's flags (also defined, identically, for kernel builds) */
#define TVD_SYNC 1u      /* barriers, local memory or warp collectives */
#define TVD_CUDA_CAPS 2u /* needs warp shuffles and 64-bit atomics */

typedef struct TvdPlan {
    const TvmafExtractor *cpu; /* name, options, flags, outputs, merge, flush */
    size_t priv_size;          /* the plan's state, which begins with the CPU's */
    const TvdKernel *kernels;  /* the module, in the list's order */
    unsigned n_kernels;
    const char *module;        /* the module's name (F) */
    /* Declares buffers (tvd_buffer); may refuse what the CPU refuses. */
    int (*init)(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len);
    /* optional: after the buffers exist, uploads tables (tvd_upload) */
    int (*setup)(void *priv, TvdTwin *t);
    /* Queues the frame's work. */
    int (*run)(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index);
    /* After the queue has drained: reads the mirrors, reports. */
    int (*report)(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink);
    /* optional: frees what init allocated on the host */
    void (*close)(void *priv);
    /* optional, instead of the CPU extractor's (which receive the state the
     * plan's begins with) */
    int (*merge)(void *dst, const void *src);
    int (*flush)(void *priv, TvmafSink *sink);
    /* TVMAF_FEX_* flags the twin has unlike the CPU extractor (motion: the
     * CPU's PREV_REF, the twin's TEMPORAL) */
    unsigned flags_remove, flags_add;
    /* TVD_NEEDS_*: what the device must have; a device without it refuses
     * the twin, naming the feature and what is missing (fp64 follows from
     * the program itself: gpu/opencl/opencl_exec.c) */
    unsigned needs;
} TvdPlan;

/* The plan of CPU extractor NAME on folder MOD's kernels (TVD_MODULE(MOD, ...)),
 * its state a STATE, the rest of the fields given: the one definition a
 * F_plan.c makes, so the descriptor cannot disagree with the module or the
 * extractor it is the twin of. */
#define TVD_PLAN(MOD, NAME, STATE, ...)                                                        \
    extern const TvmafExtractor tvmaf_fex_##NAME;                                              \
    const TvdPlan tvd_plan_##NAME = { .cpu = &tvmaf_fex_##NAME,                                \
                                      .priv_size = sizeof(STATE),                              \
                                      .kernels = tvd_kernels_##MOD,                            \
                                      .n_kernels = TVD_N_KERNELS_##MOD,                        \
                                      .module = #MOD,                                          \
                                      __VA_ARGS__ }

/* the kernels divide or take square roots in float (the CPU's IEEE results) */
#define TVD_NEEDS_CR_DIV_SQRT 1u

/* ---- for a plan's init ---- */
int tvd_buffer(TvdTwin *t, TvdBuf *b, size_t bytes, unsigned flags);
const TvdCaps *tvd_caps(const TvdTwin *t);

/* ---- after init ---- */
TvdView tvd_view(TvdBuf b, size_t off, size_t bytes);
TvdView tvd_whole(const TvdTwin *t, TvdBuf b);
/* bytes [off, off + bytes) of a view */
TvdView tvd_sub(TvdView v, size_t off, size_t bytes);
void *tvd_mirror(TvdTwin *t, TvdBuf b);
int tvd_upload(TvdTwin *t, TvdView dst, const void *src);

/* ---- per frame, in order on the instance's queue ---- */
/* Plane p of the frame's reference (dis 0) or distorted (dis 1) picture,
 * pitch[p] bytes per row. */
TvdView tvd_plane(TvdTwin *t, const TvmafDeviceFrame *f, int dis, unsigned p);
uint64_t tvd_pitch(TvdTwin *t, const TvmafDeviceFrame *f, unsigned p);
unsigned tvd_planes(TvdTwin *t, const TvmafDeviceFrame *f);
int tvd_fill(TvdTwin *t, TvdView v, uint8_t byte);
int tvd_copy(TvdTwin *t, TvdView dst, TvdView src);
int tvd_download(TvdTwin *t, TvdView v);
/* src (any view) into the mirror of dst's buffer, at dst's range */
int tvd_download_into(TvdTwin *t, TvdView src, TvdView dst);
/* `args`: the struct F_kernels.h's list generates for the kernel. A grid
 * with no group is not launched (and not counted). */
int tvd_launch(TvdTwin *t, unsigned kernel, TvdGrid g, const void *args);
/* A wait in the middle of the frame (a result the host needs before the
 * frame's remaining work). */
int tvd_sync(TvdTwin *t);

/* In a ladder (the context shares its reference pictures with others): the
 * frame's host reference picture and its serial, for a result of the
 * reference alone kept with the picture (tvmaf_picture_once); NULL where the
 * context shares nothing or the executor has no such frames. */
const TvmafPicture *tvd_shared_ref(TvdTwin *t, const TvmafDeviceFrame *f, uint64_t *serial);
/* Such a result was computed by this pair (else read from another's): the
 * statistics count them. */
void tvd_count_shared(TvdTwin *t, const TvmafDeviceFrame *f, bool computed);

/* The frame's host picture, reference (dis 0) or distorted (dis 1), from the
 * plan's run to its report; NULL where the frame's pictures are in device
 * memory. */
const TvmafPicture *tvd_host_picture(TvdTwin *t, int dis);
/* Of `of` per-pixel results, the device left n undecided and the host
 * computed them (--gpu-stats reports the totals). */
void tvd_count_decided(TvdTwin *t, unsigned long long n, unsigned long long of);

/* A ladder's reference-side areas (CUDA's reference cache): at init, a
 * slot of `bytes` per reference picture for results of the reference alone
 * (key: what makes two pairs' areas interchangeable, e.g. the feature, size
 * and depth); TVD_NO_SLOT where the context shares nothing or the executor
 * has no cache. Per frame, the area of the frame's reference (size 0: none,
 * compute everything) and whether this pair must fill it: then it queues the
 * filling work and calls tvd_ref_area_done (ok: queued); otherwise the
 * queue already waits for the pair that fills it. */
#define TVD_NO_SLOT (~0u)
int tvd_ref_slot(TvdTwin *t, const char *key, size_t bytes, unsigned *slot);
int tvd_ref_area(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, TvdView *area,
                 bool *fill);
int tvd_ref_area_done(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, bool ok);

/* A module's kernel list as its table (plan side of F_kernels.h). */
#define TVD_KERNEL_ROW(name, A, L, GX, GY, FLAGS)                                              \
    { #name, A##_table, sizeof(A##_table) / sizeof(A##_table[0]), sizeof(A), sizeof(A##_R),    \
      { GX, GY }, FLAGS },
#define TVD_KERNEL_ID(name, A, L, GX, GY, FLAGS) TVD_K_##name,

#endif
