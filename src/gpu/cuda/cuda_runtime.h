/*
 * The CUDA runtime shared by every CUDA twin: one device, its primary context,
 * streams, events, memory and modules. It knows nothing about features.
 *
 * The library never links libcuda: the driver is opened with dlopen at run
 * time, so a machine without it (or without a device) gets -ENODEV and the
 * CPU backend. cuda.h is included for its types only; calling a cu* function
 * directly from a twin would not link.
 *
 * Every call other than tvmaf_cuda_device_count, tvmaf_cuda_acquire and
 * tvmaf_cuda_last_error needs a device acquired (the driver is loaded then).
 *
 * Threads. tvmaf_cuda_acquire/release, module load/unload and function lookup
 * may be called from any thread. Every other call works on the context that
 * is current on the calling thread: a worker brackets its CUDA work with
 * tvmaf_cuda_push(dev) ... tvmaf_cuda_pop(dev). A stream must not be used by
 * two threads at once; distinct streams may run concurrently.
 *
 * Errors. Every function returning int returns 0 or a negative errno:
 * -ENODEV (no driver, no device, driver too old), -ENOMEM (device or pinned
 * memory exhausted), -EINVAL (bad argument), -EIO (any other CUDA error).
 * The message of the last failure on the calling thread, naming the CUDA
 * call and error (e.g. "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY"), is
 * returned by tvmaf_cuda_last_error(); acquire and module load also copy it
 * into the caller's buffer.
 */
#ifndef TVMAF_GPU_CUDA_RUNTIME_H
#define TVMAF_GPU_CUDA_RUNTIME_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>

#include "core/picture_pool.h"

typedef struct TvmafCudaDevice TvmafCudaDevice;
typedef struct TvmafCudaModule TvmafCudaModule;

typedef struct TvmafCudaDeviceInfo {
    int ordinal;          /* CUDA device index */
    char name[256];
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    size_t total_mem;     /* bytes */
} TvmafCudaDeviceInfo;

/* Message of the last failed call on this thread ("" if none yet); set
 * stores a caller's own failure there. */
const char *tvmaf_cuda_last_error(void);
void tvmaf_cuda_set_last_error(const char *what);

/* Devices present (0 without a driver). */
int tvmaf_cuda_device_count(void);

/*
 * Takes a reference to device `ordinal`, shared in the process. The first
 * reference retains the device's primary context; the last release lets it
 * go (free the device memory, streams and events first; modules hold their
 * own reference). retain adds a reference to a device already acquired.
 */
int tvmaf_cuda_acquire(unsigned ordinal, TvmafCudaDevice **dev, char *msg, size_t msg_len);
/*
 * The same for a caller's own context (TvmafConfiguration.cuda_context):
 * shared by every acquisition of that context; the context stays the
 * caller's (never destroyed here).
 */
int tvmaf_cuda_acquire_context(CUcontext ctx, TvmafCudaDevice **dev, char *msg, size_t msg_len);
void tvmaf_cuda_retain(TvmafCudaDevice *dev);
void tvmaf_cuda_release(TvmafCudaDevice *dev);
const TvmafCudaDeviceInfo *tvmaf_cuda_device_info(const TvmafCudaDevice *dev);

/* Make dev's context current on the calling thread / undo it (nestable). */
int tvmaf_cuda_push(TvmafCudaDevice *dev);
int tvmaf_cuda_pop(TvmafCudaDevice *dev);

/* Streams are non-blocking (they never wait for the legacy default stream). */
int tvmaf_cuda_stream_create(CUstream *stream);
int tvmaf_cuda_stream_destroy(CUstream stream); /* a null stream is ignored */
int tvmaf_cuda_stream_synchronize(CUstream stream);

/* Events with timing; elapsed time between two recorded events. */
int tvmaf_cuda_event_create(CUevent *event);
int tvmaf_cuda_event_destroy(CUevent event); /* a null event is ignored */
int tvmaf_cuda_event_record(CUevent event, CUstream stream);
int tvmaf_cuda_event_synchronize(CUevent event);
int tvmaf_cuda_event_elapsed_ms(float *ms, CUevent start, CUevent end);

/* An event for ordering only (no timing: cheaper to record and wait on). */
int tvmaf_cuda_event_create_sync_only(CUevent *event);
/* Work queued on `stream` after this call waits for `event`'s last record. */
int tvmaf_cuda_stream_wait_event(CUstream stream, CUevent event);

/* Device memory. */
int tvmaf_cuda_mem_alloc(CUdeviceptr *ptr, size_t size);
int tvmaf_cuda_mem_free(CUdeviceptr ptr); /* 0 is ignored */

/* Device pictures' memory on dev (any thread: dev's context is pushed
 * here): a buffer kept from an earlier picture of that size, or a new one.
 * Each buffer holds a reference to dev until it is put back. */
int tvmaf_cuda_picture_mem_get(TvmafCudaDevice *dev, size_t size, CUdeviceptr *d);
void tvmaf_cuda_picture_mem_put(TvmafCudaDevice *dev, CUdeviceptr d, size_t size);
/* An event recorded on the legacy default stream of dev's context (after
 * the caller's writes of device pictures with cuMemcpy2D and the like):
 * a stream that waits for it waits for those writes. The event comes from
 * the device's pool; put it back once a stream waits for it (a wait takes
 * the record made before it, so the event may be recorded again). */
int tvmaf_cuda_fence_legacy_stream(TvmafCudaDevice *dev, CUevent *fence);
void tvmaf_cuda_fence_put(TvmafCudaDevice *dev, CUevent fence);

/* Page-locked host memory (needed for truly asynchronous copies). */
int tvmaf_cuda_host_alloc(void **ptr, size_t size);
int tvmaf_cuda_host_free(void *ptr); /* NULL is ignored */

/* Asynchronous copies and fill, ordered on `stream`. */
int tvmaf_cuda_copy_h2d(CUdeviceptr dst, const void *src, size_t size, CUstream stream);
int tvmaf_cuda_copy_d2h(void *dst, CUdeviceptr src, size_t size, CUstream stream);
/* `height` rows of `width_bytes` bytes between buffers with the given pitches. */
int tvmaf_cuda_copy_h2d_2d(CUdeviceptr dst, size_t dst_pitch, const void *src,
                           size_t src_pitch, size_t width_bytes, size_t height,
                           CUstream stream);
int tvmaf_cuda_copy_d2h_2d(void *dst, size_t dst_pitch, CUdeviceptr src, size_t src_pitch,
                           size_t width_bytes, size_t height, CUstream stream);
int tvmaf_cuda_copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream);
int tvmaf_cuda_memset(CUdeviceptr dst, unsigned char value, size_t size, CUstream stream);

/*
 * Loads an embedded fatbin (SASS for the device's architecture, or PTX the
 * driver compiles) into dev's context. The module keeps a reference to dev.
 */
int tvmaf_cuda_module_load(TvmafCudaDevice *dev, const unsigned char *fatbin,
                           TvmafCudaModule **module, char *msg, size_t msg_len);
void tvmaf_cuda_module_unload(TvmafCudaModule *module);
int tvmaf_cuda_module_function(TvmafCudaModule *module, const char *name,
                               CUfunction *fn);

/* Launches fn (args: pointers to each kernel argument, as cuLaunchKernel).
 * (Tests make launches fail through the driver stand-in, tests/standin/.) */
int tvmaf_cuda_launch(CUfunction fn, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                      unsigned block_x, unsigned block_y, unsigned block_z,
                      unsigned shared_bytes, CUstream stream, void **args);

/* Page-locked staging buffers, cheaper to create than tvmaf_cuda_host_alloc
 * for large sizes (huge pages where available); free with the same size. */
int tvmaf_cuda_stage_alloc(void **ptr, size_t size);
void tvmaf_cuda_stage_free(void *ptr, size_t size);

/*
 * Page-locked host memory for pictures (core/picture_pool.h) on `dev`: a
 * context with TVMAF_GPU_PINNED_PICTURES installs it, so frames are read
 * straight into memory the device copies from (by default the workers copy
 * into their staging buffers instead). Each block keeps the device acquired
 * while it lives.
 */
const TvmafHostAllocator *tvmaf_cuda_pinned_allocator(TvmafCudaDevice *dev);
/* Buffers it allocated on `dev` so far (for every context on the device) and
 * the milliseconds that took. */
void tvmaf_cuda_pinned_stats(TvmafCudaDevice *dev, unsigned long long *n, double *ms);

/*
 * Steady-state accounting (a context's TVMAF_GPU_STATS). Every call of this
 * runtime that launches, synchronises, allocates or copies is counted in
 * the statistics the calling thread is bound to: the backend binds a context's statistics on the
 * threads that work for it (at open, ready, frames_alloc and each frame's
 * upload), so contexts that run at the same time (a batch, a ladder, the
 * ranges of a split pair) count apart. Spans time a twin's device work with
 * a pair of events, only when the bound statistics are enabled (otherwise
 * they cost nothing), and add to the statistics bound when they were made.
 */
typedef struct TvmafCudaCounts {
    unsigned long long launches, syncs, dev_allocs, host_allocs, copies;
} TvmafCudaCounts;

#define TVMAF_CUDA_SPAN_NAMES 32
typedef struct TvmafCudaStats {
    unsigned refs;           /* the context, thread bindings, spans */
    int enabled;             /* spans time device work */
    TvmafCudaCounts counts;  /* updated atomically */
    pthread_mutex_t lock;    /* the spans' totals */
    unsigned n_spans;
    struct { char name[48]; double ms; unsigned long long count; } spans[TVMAF_CUDA_SPAN_NAMES];
} TvmafCudaStats;
/* New statistics (one reference, the caller's), NULL when out of memory. */
TvmafCudaStats *tvmaf_cuda_stats_new(int enabled);
void tvmaf_cuda_stats_unref(TvmafCudaStats *st);
/* The calling thread's calls count in `st` from now on (NULL: in none). */
void tvmaf_cuda_stats_bind(TvmafCudaStats *st);
/* Drops the calling thread's binding if it is to `st` (a context closing). */
void tvmaf_cuda_stats_unbind(TvmafCudaStats *st);
void tvmaf_cuda_stats_counts(TvmafCudaStats *st, TvmafCudaCounts *c);
/* Milliseconds the device took to open (driver load, cuInit, primary context). */
double tvmaf_cuda_open_ms(void);

typedef struct TvmafCudaSpan {
    CUevent start, end;
    int on;
    TvmafCudaStats *stats; /* where its times go (a reference) */
} TvmafCudaSpan;
int tvmaf_cuda_span_init(TvmafCudaSpan *s);
void tvmaf_cuda_span_destroy(TvmafCudaSpan *s);
int tvmaf_cuda_span_begin(TvmafCudaSpan *s, CUstream stream);
int tvmaf_cuda_span_end(TvmafCudaSpan *s, CUstream stream);
/* After the stream passed `end`: adds the elapsed time to `name`'s total. */
int tvmaf_cuda_span_add(TvmafCudaSpan *s, const char *name);
/* One line per name: mean device time per call. */
void tvmaf_cuda_spans_print(TvmafCudaStats *st, FILE *f);

#endif
