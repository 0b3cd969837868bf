/*
 * The twin base: what every CUDA twin's host side does the same way, in one
 * place, so a twin's _cuda.c holds only what is particular to it (its
 * buffers, its launches, the read-back it finishes on the host).
 *
 * Life of a twin instance (one per worker thread):
 *   init_device:    tvmaf_cuda_twin_open(&t, gpu, "vif", fatbin, fn_names, ...)
 *                   tvmaf_cuda_twin_alloc / _alloc_host / _upload (freed by close)
 *   extract_device: tvmaf_cuda_twin_begin(&t, frame)   context current, the
 *                                                      stream waits for the frame
 *                   launches and copies on t.stream    (tvmaf_cuda_twin_launch)
 *                   tvmaf_cuda_twin_end(&t, err)       read-backs complete
 *   close:          tvmaf_cuda_twin_close(&t)
 *
 * A failure in open or alloc writes "feature \"NAME\" (cuda): why" into the
 * caller's message and the caller returns the error (close still runs).
 */
#ifndef TVMAF_GPU_CUDA_TWIN_H
#define TVMAF_GPU_CUDA_TWIN_H

#include <stddef.h>

#include "gpu/cuda/cuda_backend.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/device_frame.h"

/* A twin's kernels and its device and page-locked buffers (each list's
 * capacity; cambi with full_ref holds 17 device buffers). Going past one is
 * a programming error that init reports by name, not a user's input. */
#define TVMAF_CUDA_TWIN_MAX_FN 16
#define TVMAF_CUDA_TWIN_MAX_BUF 32
/* CUDA's limit on a grid's y dimension. */
#define TVMAF_CUDA_GRID_Y_MAX 65535u

typedef struct TvmafCudaTwin {
    const char *feature;   /* for messages; the statistics' span name */
    TvmafGpu *gpu;
    TvmafCudaDevice *dev;  /* a reference, released by close */
    TvmafCudaModule *mod;
    CUfunction fn[TVMAF_CUDA_TWIN_MAX_FN]; /* in the order of fn_names */
    CUstream stream;
    TvmafCudaSpan span;
    struct { CUdeviceptr ptr; size_t size; } dbuf[TVMAF_CUDA_TWIN_MAX_BUF];
    void *hbuf[TVMAF_CUDA_TWIN_MAX_BUF];
    unsigned n_dbuf, n_hbuf;
} TvmafCudaTwin;

/* Loads the twin's module (fatbin: its embedded kernels) on the context's
 * device, looks up fn_names (NULL-terminated) into t->fn, creates the stream
 * and the statistics span. */
int tvmaf_cuda_twin_open(TvmafCudaTwin *t, TvmafGpu *gpu, const char *feature,
                         const unsigned char *fatbin, const char *const *fn_names,
                         char *msg, size_t msg_len);
/* Device memory (counted against the context's limit) and page-locked host
 * memory, freed by close. */
int tvmaf_cuda_twin_alloc(TvmafCudaTwin *t, CUdeviceptr *ptr, size_t size, char *msg,
                          size_t msg_len);
int tvmaf_cuda_twin_alloc_host(TvmafCudaTwin *t, void **ptr, size_t size, char *msg,
                               size_t msg_len);
/* Copies host data to the device and waits (set-up: tables, constants). */
int tvmaf_cuda_twin_upload(TvmafCudaTwin *t, CUdeviceptr dst, const void *src, size_t size,
                           char *msg, size_t msg_len);
void tvmaf_cuda_twin_close(TvmafCudaTwin *t);

/* Per frame: makes the device's context current, has the stream wait for
 * the frame's upload and starts the span. On failure nothing is left
 * current. */
int tvmaf_cuda_twin_begin(TvmafCudaTwin *t, const TvmafDeviceFrame *frame);
/* Launches t->fn[fn] on the twin's stream. */
int tvmaf_cuda_twin_launch(TvmafCudaTwin *t, unsigned fn, unsigned grid_x, unsigned grid_y,
                           unsigned block_x, unsigned block_y, void **args);
/* Ends the span; unless `err`, synchronises the stream (the read-backs
 * queued on it are then in host memory) and adds the span; always leaves the
 * context. Returns `err` or the first new error. */
int tvmaf_cuda_twin_end(TvmafCudaTwin *t, int err);

#endif
