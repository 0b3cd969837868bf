/*
 * The OpenCL twin base: what every OpenCL twin's host side does the same way,
 * so a twin's _opencl.c holds only what is particular to it (its buffers,
 * its launches, the read-back it finishes on the host).
 *
 * Life of a twin instance (one per worker thread):
 *   init_device:    tvmaf_opencl_twin_open(&t, gpu, "psnr", tvmaf_psnr_cl, NULL, fn_names, ...)
 *                   (the context's program "psnr", built once, and this
 *                   instance's kernel objects: argument setting is per instance)
 *                   tvmaf_opencl_twin_alloc / _upload  (freed by close)
 *   extract_device: tvmaf_opencl_twin_begin(&t, frame)  the frame's queue
 *                   _args, _launch, _read on it         (in order after the upload)
 *                   tvmaf_opencl_twin_end(&t, err)      read-backs complete
 *   close:          tvmaf_opencl_twin_close(&t)
 *
 * A failure in open or alloc writes "feature \"NAME\" (opencl): why" into the
 * caller's message and the caller returns the error (close still runs).
 */
#ifndef TVMAF_GPU_OPENCL_TWIN_H
#define TVMAF_GPU_OPENCL_TWIN_H

#include <stddef.h>

#include "gpu/opencl/device_frame.h"
#include "gpu/opencl/opencl_backend.h"
#include "gpu/opencl/opencl_runtime.h"

#define TVMAF_OPENCL_TWIN_MAX_FN 16
#define TVMAF_OPENCL_TWIN_MAX_BUF 16

typedef struct TvmafOpenclTwin {
    const char *feature;   /* for messages */
    TvmafGpu *gpu;
    cl_kernel fn[TVMAF_OPENCL_TWIN_MAX_FN]; /* in the order of fn_names */
    cl_command_queue q;    /* the frame's queue, between begin and end */
    struct { cl_mem mem; size_t size; } buf[TVMAF_OPENCL_TWIN_MAX_BUF];
    unsigned n_buf;
} TvmafOpenclTwin;

/* A kernel argument: TVMAF_CL_ARG(x) passes variable x by value (a cl_mem,
 * a cl_ulong offset, a cl_uint). */
typedef struct TvmafClArg {
    size_t size;
    const void *value;
} TvmafClArg;
#define TVMAF_CL_ARG(x) { sizeof(x), &(x) }

/* Gets the context's program `feature` (built once from `source` with
 * `options`) and creates this instance's kernels fn_names (NULL-terminated). */
int tvmaf_opencl_twin_open(TvmafOpenclTwin *t, TvmafGpu *gpu, const char *feature,
                           const char *source, const char *options,
                           const char *const *fn_names, char *msg, size_t msg_len);
/* Device memory (counted against the context's limit), released by close. */
int tvmaf_opencl_twin_alloc(TvmafOpenclTwin *t, cl_mem *mem, size_t size, char *msg,
                            size_t msg_len);
/* Copies host data to a buffer and waits (set-up: tables, constants). */
int tvmaf_opencl_twin_upload(TvmafOpenclTwin *t, cl_mem dst, const void *src, size_t size,
                             char *msg, size_t msg_len);
void tvmaf_opencl_twin_close(TvmafOpenclTwin *t);

/* Per frame: work goes on the frame's queue, after its upload. */
int tvmaf_opencl_twin_begin(TvmafOpenclTwin *t, const TvmafDeviceFrame *frame);
/* Sets kernel fn's arguments 0..n-1. */
int tvmaf_opencl_twin_args(TvmafOpenclTwin *t, unsigned fn, unsigned n, const TvmafClArg *args);
/* Launches kernel fn over global work size gx x gy in work-groups lx x ly. */
int tvmaf_opencl_twin_launch(TvmafOpenclTwin *t, unsigned fn, size_t gx, size_t gy, size_t lx,
                             size_t ly);
/* Queues zeros into the first `size` bytes of `mem`. */
int tvmaf_opencl_twin_zero(TvmafOpenclTwin *t, cl_mem mem, size_t size);
/* Queues a copy of `size` bytes between device buffers. */
int tvmaf_opencl_twin_copy(TvmafOpenclTwin *t, cl_mem dst, size_t dst_off, cl_mem src,
                           size_t src_off, size_t size);
/* Queues a read-back into host memory, complete after tvmaf_opencl_twin_end. */
int tvmaf_opencl_twin_read(TvmafOpenclTwin *t, void *dst, cl_mem src, size_t size);
/* Unless `err`, waits for the frame's queue (the read-backs are then in host
 * memory). Returns `err` or the first new error. */
int tvmaf_opencl_twin_end(TvmafOpenclTwin *t, int err);

#endif
