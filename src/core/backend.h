/*
 * The interface between core and a GPU backend (src/gpu/<backend>/).
 *
 * Core drives a context's frames through these calls and never learns what
 * the device is: a backend opens its device for the context, keeps one copy
 * of the frame on the device per worker (uploaded once for every twin of the
 * frame) and hands it to the twins (gpu/twin.h) as a TvmafDeviceFrame.
 * The twins set themselves up on the open device (TvmafGpu) at init. Both
 * types are opaque here; each backend defines them for
 * its own twins.
 *
 * Order of calls for one context: open (may return while the device is still
 * opening), ready (waits), frames_alloc once the video format is known, per
 * frame frame_upload then the twins then frame_done, stats at flush, close
 * after every twin instance has been closed. frame_upload/frame_done of one
 * worker never run concurrently; different workers run concurrently.
 */
#ifndef TVMAF_CORE_BACKEND_H
#define TVMAF_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "core/picture_pool.h"

typedef struct TvmafBackendOps {
    enum TvmafBackend id;
    const char *name;                       /* "cuda", as the CLI spells it */
    /* whether device `gpu_index` can be opened (driver and device present) */
    int (*available)(unsigned gpu_index);
    /* whether --backend auto may choose device `gpu_index` (NULL: when
     * available): OpenCL declines CPU devices (PoCL), which the CPU backend
     * outruns. Every default run asks it, so on a machine without the
     * backend's device it must be cheap (no driver loaded: OpenCL looks for
     * a GPU device node and a GPU platform first) and must not let a driver
     * kill the process (OpenCL lists its devices in a child process first;
     * opencl_runtime.h) */
    int (*auto_ok)(unsigned gpu_index);
    /* starts opening the device for a context with these settings */
    int (*open)(TvmafGpu **gpu, const TvmafConfiguration *cfg, char *msg, size_t msg_len);
    /* waits until the device is open; on failure writes why */
    int (*ready)(TvmafGpu *gpu, char *msg, size_t msg_len);
    /* one device frame per worker; n_planes 1 (luma) or 3 */
    int (*frames_alloc)(TvmafGpu *gpu, const TvmafVideoInfo *vi, unsigned n_planes,
                        unsigned n_workers, char *msg, size_t msg_len);
    /* queues the upload of worker `w`'s frame and returns its device copy;
     * `fence`: pictures_written's for device pictures (consumed), else NULL */
    int (*frame_upload)(TvmafGpu *gpu, unsigned w, const TvmafPicture *ref,
                        const TvmafPicture *dis, void *fence, const TvmafDeviceFrame **frame,
                        char *msg, size_t msg_len);
    /* after every twin of worker `w` has finished frame `index` */
    void (*frame_done)(TvmafGpu *gpu, unsigned w, unsigned index);
    /* frame `index` was submitted (statistics start counting at a frame) */
    void (*frame_submitted)(TvmafGpu *gpu, unsigned index);
    /* end of stream after `n_frames` frames: prints the statistics if asked */
    void (*stats)(TvmafGpu *gpu, unsigned n_frames);
    void (*close)(TvmafGpu *gpu);
    /* pictures in the device's memory (tvmaf_cuda_picture_alloc; NULL: the
     * backend takes host pictures only). Waits until the device is open. */
    int (*picture_alloc)(TvmafGpu *gpu, TvmafPicture *pic, enum TvmafPixelFormat fmt,
                         unsigned bpc, unsigned w, unsigned h, bool luma_only, char *msg,
                         size_t msg_len);
    /* the device of the context (tvmaf_picture_device of its pictures) */
    void *(*device)(TvmafGpu *gpu);
    /* called by the submitting thread as device pictures are queued: a
     * fence after the work the caller queued on the device to write them,
     * which the frame's upload waits for (never the caller's thread) */
    int (*pictures_written)(TvmafGpu *gpu, void **fence, char *msg, size_t msg_len);
    /* why the calling thread's last device call failed ("" if unknown): core
     * adds it to the message when a twin fails on a frame */
    const char *(*last_error)(void);
} TvmafBackendOps;

/* The host executor's backend (src/gpu/host/): registered only by tests
 * (tvmaf_registry_test_backend), never by the library. */
#define TVMAF_BACKEND_HOST ((enum TvmafBackend)16)

struct TvdExec;
struct TvdPlan;
/* Before the first use of the registry: adds a test backend and its twins
 * (plans[i] on exec, module codes[i]). */
int tvmaf_registry_test_backend(const TvmafBackendOps *ops, const struct TvdExec *exec,
                                const struct TvdPlan *const *plans, const void *const *codes,
                                unsigned n);

/* The backends this build has, NULL-terminated (generated list). */
extern const TvmafBackendOps *const tvmaf_gpu_backends[];

/* The backend `id` of this build, or NULL. */
const TvmafBackendOps *tvmaf_backend_ops(enum TvmafBackend id);
/* "cpu", or the backend's name ("cuda"); for messages "CPU", "CUDA". */
const char *tvmaf_backend_name(enum TvmafBackend id);
/* The GPU backend --backend auto takes for device `gpu_index`, NULL: the CPU. */
const TvmafBackendOps *tvmaf_auto_backend(unsigned gpu_index);
const char *tvmaf_backend_label(enum TvmafBackend id);

#endif
