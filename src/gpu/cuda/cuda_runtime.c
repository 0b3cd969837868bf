/*
 * CUDA runtime: the driver API reached through dlopen, one shared device.
 * See cuda_runtime.h for the contract.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "gpu/cuda/cuda_runtime.h"

/*
 * The driver functions we call. cuda.h #defines many names to their current
 * versioned symbol (cuMemAlloc -> cuMemAlloc_v2, cuCtxPushCurrent ->
 * cuCtxPushCurrent_v2, ...); a name passed through CU_NAME expands the same
 * way, so the symbol looked up and the prototype used always match the
 * header's choice.
 */
#define CU_STR_(x) #x
#define CU_NAME(x) CU_STR_(x)

#define CU_FUNCTIONS(X)                                                                       \
    X(cuInit) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)         \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                   \
    X(cuDevicePrimaryCtxRelease) X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxGetDevice)     \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)              \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)                 \
    X(cuStreamWaitEvent) X(cuMemHostRegister) X(cuMemHostUnregister) X(cuMemcpyDtoDAsync)     \
    X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost)       \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpy2DAsync) X(cuMemsetD8Async)           \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)

static struct Driver {
#define CU_FIELD(fn) __typeof__(fn) *fn;
    CU_FUNCTIONS(CU_FIELD)
#undef CU_FIELD
    void *lib;
    int status;    /* 0 once loaded and cuInit succeeded, else negative errno */
    bool sync_poll; /* TVMAF_CUDA_SYNC=poll (tvmaf_cuda_stream_synchronize) */
    char msg[320]; /* why status != 0 (as long as last_error) */
} drv;

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* Calls counted for the steady-state figures: those of the context the
 * calling thread works for (tvmaf_cuda_stats_bind). */
static TvmafCudaStats *bound_stats(void);
#define COUNT(field) do {                                                          \
        TvmafCudaStats *bs_ = bound_stats();                                       \
        if (bs_) __atomic_fetch_add(&bs_->counts.field, 1ull, __ATOMIC_RELAXED);   \
    } while (0)

static _Thread_local char last_error[320];

const char *tvmaf_cuda_last_error(void)
{
    return last_error;
}

static int cu_errno(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return -ENOMEM;
    /* no usable device or driver */
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    /* the device cannot run this build's kernels (no SASS for its
     * architecture, or PTX newer than the driver): unusable here too */
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        return -ENODEV;
    default:
        return -EIO;
    }
}

/* Records "what: CUDA_ERROR_NAME" as this thread's last error. */
static int cu_fail(CUresult r, const char *what)
{
    const char *name = NULL;
    if (drv.cuGetErrorName && drv.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (!name && r == CUDA_ERROR_STUB_LIBRARY) /* the stub cannot name its own error */
        name = "CUDA_ERROR_STUB_LIBRARY (libcuda.so.1 is the toolkit's stub, not a driver)";
    if (name)
        snprintf(last_error, sizeof(last_error), "%s: %s", what, name);
    else
        snprintf(last_error, sizeof(last_error), "%s: CUDA error %d", what, (int)r);
    return cu_errno(r);
}

void tvmaf_cuda_set_last_error(const char *what)
{
    snprintf(last_error, sizeof(last_error), "%s", what);
}

static int fail(int err, const char *what)
{
    tvmaf_cuda_set_last_error(what);
    return err;
}

static void copy_msg(char *msg, size_t msg_len)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", last_error);
}

/* Calls drv.fn(...) and returns from the caller on failure. */
#define CU_CHECK(fn, ...)                                                                     \
    do {                                                                                      \
        const CUresult cu_r_ = drv.fn(__VA_ARGS__);                                           \
        if (cu_r_ != CUDA_SUCCESS)                                                            \
            return cu_fail(cu_r_, CU_NAME(fn));                                               \
    } while (0)

static void driver_load(void)
{
    const char *sync = getenv("TVMAF_CUDA_SYNC");
    drv.sync_poll = sync && !strcmp(sync, "poll");
    drv.status = -ENODEV;
    drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv.lib) {
        snprintf(drv.msg, sizeof(drv.msg), "no CUDA driver (%s)", dlerror());
        return;
    }
#define CU_LOAD(fn)                                                                           \
    drv.fn = (__typeof__(fn) *)dlsym(drv.lib, CU_NAME(fn));                                   \
    if (!drv.fn) {                                                                            \
        snprintf(drv.msg, sizeof(drv.msg), "CUDA driver too old: libcuda.so.1 lacks %s",      \
                 CU_NAME(fn));                                                                \
        return;                                                                               \
    }
    CU_FUNCTIONS(CU_LOAD)
#undef CU_LOAD
    const CUresult r = drv.cuInit(0);
    if (r != CUDA_SUCCESS) {
        drv.status = cu_fail(r, "cuInit");
        snprintf(drv.msg, sizeof(drv.msg), "%s", last_error);
        return;
    }
    drv.status = 0;
}

/* Loads the driver once per process; the library stays loaded (contexts may
 * outlive any one caller). */
static int driver_ready(void)
{
    pthread_once(&driver_once, driver_load);
    if (drv.status)
        return fail(drv.status, drv.msg);
    return 0;
}

int tvmaf_cuda_device_count(void)
{
    int count = 0;
    if (driver_ready() || drv.cuDeviceGetCount(&count) != CUDA_SUCCESS)
        return 0;
    return count;
}

/* ---- device ---------------------------------------------------------------- */

/* Device pictures' buffers kept for reuse, per device: a video is a
 * stream of equal pictures, and cuMemFree waits for the whole device. */
#define PIC_MEM_CACHE 32

struct TvmafCudaDevice {
    unsigned refs; /* under device_lock */
    CUdevice device;
    CUcontext ctx; /* the device's primary context, retained while refs > 0,
                      or a caller's context (external) */
    bool external;
    struct { CUdeviceptr d; size_t size; } pic_mem[PIC_MEM_CACHE]; /* under device_lock */
    unsigned n_pic_mem;
    CUevent fences[PIC_MEM_CACHE]; /* free fence events, under device_lock */
    unsigned n_fences;
    TvmafCudaDeviceInfo info;
    TvmafHostAllocator pinned; /* page-locked picture memory on this device */
    /* its blocks allocated and the milliseconds that took (every context on
     * this device: the blocks are the pictures', which belong to no context) */
    unsigned long long pinned_n;
    double pinned_ms;
};

/* One per device ordinal, opened by the first acquisition. */
#define MAX_DEVICES 64
static TvmafCudaDevice devices[MAX_DEVICES];
static double open_ms; /* the last device_open: driver, cuInit, primary context */
static double now_ms(void);

double tvmaf_cuda_open_ms(void)
{
    return open_ms;
}
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;

static int read_info(TvmafCudaDevice *d, int ordinal);

static int device_open(TvmafCudaDevice *d, int ordinal)
{
    int err = driver_ready();
    if (err)
        return err;
    int count = 0;
    CU_CHECK(cuDeviceGetCount, &count);
    if (ordinal >= count) {
        snprintf(last_error, sizeof(last_error), "CUDA device %d requested, %d present",
                 ordinal, count);
        return -ENODEV;
    }
    CU_CHECK(cuDeviceGet, &d->device, ordinal);
    if ((err = read_info(d, ordinal))) return err;
    CU_CHECK(cuDevicePrimaryCtxRetain, &d->ctx, d->device);
    return 0;
}

/* d->info of d->device, the device of that ordinal. */
static int read_info(TvmafCudaDevice *d, int ordinal)
{
    memset(&d->info, 0, sizeof(d->info));
    d->info.ordinal = ordinal;
    CU_CHECK(cuDeviceGetName, d->info.name, (int)sizeof(d->info.name), d->device);
    CU_CHECK(cuDeviceGetAttribute, &d->info.cc_major,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device);
    CU_CHECK(cuDeviceGetAttribute, &d->info.cc_minor,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device);
    CU_CHECK(cuDeviceGetAttribute, &d->info.sm_count,
             CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->device);
    CU_CHECK(cuDeviceTotalMem, &d->info.total_mem, d->device);
    return 0;
}

static void pinned_init(TvmafCudaDevice *d);

int tvmaf_cuda_acquire(unsigned ordinal, TvmafCudaDevice **dev, char *msg, size_t msg_len)
{
    *dev = NULL;
    if (ordinal >= MAX_DEVICES) {
        snprintf(last_error, sizeof(last_error), "CUDA device %u requested, at most %d "
                 "supported", ordinal, MAX_DEVICES);
        copy_msg(msg, msg_len);
        return -ENODEV;
    }
    TvmafCudaDevice *d = &devices[ordinal];
    pthread_mutex_lock(&device_lock);
    if (d->refs == 0) {
        const double t0 = now_ms();
        const int err = device_open(d, (int)ordinal);
        open_ms = now_ms() - t0;
        if (err) {
            pthread_mutex_unlock(&device_lock);
            copy_msg(msg, msg_len);
            return err;
        }
        pinned_init(d);
    }
    d->refs++;
    *dev = d;
    pthread_mutex_unlock(&device_lock);
    return 0;
}

void tvmaf_cuda_retain(TvmafCudaDevice *dev)
{
    pthread_mutex_lock(&device_lock);
    dev->refs++;
    pthread_mutex_unlock(&device_lock);
}

/* Caller's contexts in use (tvmaf_cuda_acquire_context), under device_lock. */
#define MAX_EXTERNAL 64
static TvmafCudaDevice *externals[MAX_EXTERNAL];

int tvmaf_cuda_acquire_context(CUcontext ctx, TvmafCudaDevice **dev, char *msg, size_t msg_len)
{
    *dev = NULL;
    int err = driver_ready();
    if (err) {
        copy_msg(msg, msg_len);
        return err;
    }
    pthread_mutex_lock(&device_lock);
    unsigned free_slot = MAX_EXTERNAL;
    for (unsigned i = 0; i < MAX_EXTERNAL; i++) {
        if (externals[i] && externals[i]->ctx == ctx) {
            externals[i]->refs++;
            *dev = externals[i];
            pthread_mutex_unlock(&device_lock);
            return 0;
        }
        if (!externals[i] && free_slot == MAX_EXTERNAL) free_slot = i;
    }
    TvmafCudaDevice *d = free_slot < MAX_EXTERNAL ? calloc(1, sizeof(*d)) : NULL;
    if (!d) {
        pthread_mutex_unlock(&device_lock);
        snprintf(msg, msg_len, "%s", free_slot < MAX_EXTERNAL ? "out of memory"
                                     : "more than 64 CUDA contexts of the caller in use");
        return free_slot < MAX_EXTERNAL ? -ENOMEM : -EBUSY;
    }
    CUcontext popped = NULL;
    CUresult r = drv.cuCtxPushCurrent(ctx);
    if (r == CUDA_SUCCESS) {
        r = drv.cuCtxGetDevice(&d->device);
        drv.cuCtxPopCurrent(&popped);
    }
    /* the ordinal of the context's device, for messages and statistics */
    int count = 0, ordinal = 0;
    if (r == CUDA_SUCCESS) r = drv.cuDeviceGetCount(&count);
    for (int i = 0; r == CUDA_SUCCESS && i < count; i++) {
        CUdevice di;
        if (drv.cuDeviceGet(&di, i) == CUDA_SUCCESS && di == d->device) ordinal = i;
    }
    if (r != CUDA_SUCCESS || (err = read_info(d, ordinal))) {
        pthread_mutex_unlock(&device_lock);
        free(d);
        if (r != CUDA_SUCCESS)
            cu_fail(r, "the caller's CUDA context (cuCtxPushCurrent/cuCtxGetDevice)");
        copy_msg(msg, msg_len);
        return -EINVAL;
    }
    d->ctx = ctx;
    d->external = true;
    d->refs = 1;
    pinned_init(d);
    externals[free_slot] = d;
    *dev = d;
    pthread_mutex_unlock(&device_lock);
    return 0;
}

/* The buffers and fences kept for device pictures go (device_lock held,
 * refs 0). */
static void pic_mem_drop(TvmafCudaDevice *dev)
{
    if (!dev->n_pic_mem && !dev->n_fences) return;
    CUcontext popped;
    if (drv.cuCtxPushCurrent(dev->ctx) != CUDA_SUCCESS) return;
    for (unsigned i = 0; i < dev->n_pic_mem; i++) drv.cuMemFree(dev->pic_mem[i].d);
    for (unsigned i = 0; i < dev->n_fences; i++) drv.cuEventDestroy(dev->fences[i]);
    dev->n_pic_mem = dev->n_fences = 0;
    drv.cuCtxPopCurrent(&popped);
}

void tvmaf_cuda_release(TvmafCudaDevice *dev)
{
    if (!dev)
        return;
    pthread_mutex_lock(&device_lock);
    if (dev->refs > 0 && --dev->refs == 0) {
        pic_mem_drop(dev);
        if (dev->external) {
            for (unsigned i = 0; i < MAX_EXTERNAL; i++)
                if (externals[i] == dev) externals[i] = NULL;
            free(dev);
        } else {
            drv.cuDevicePrimaryCtxRelease(dev->device);
            dev->ctx = NULL;
        }
    }
    pthread_mutex_unlock(&device_lock);
}

int tvmaf_cuda_picture_mem_get(TvmafCudaDevice *dev, size_t size, CUdeviceptr *d)
{
    pthread_mutex_lock(&device_lock);
    for (unsigned i = 0; i < dev->n_pic_mem; i++) {
        if (dev->pic_mem[i].size != size) continue;
        *d = dev->pic_mem[i].d;
        dev->pic_mem[i] = dev->pic_mem[--dev->n_pic_mem];
        dev->refs++;
        pthread_mutex_unlock(&device_lock);
        return 0;
    }
    pthread_mutex_unlock(&device_lock);
    int err = tvmaf_cuda_push(dev);
    if (err) return err;
    err = tvmaf_cuda_mem_alloc(d, size);
    const int perr = tvmaf_cuda_pop(dev);
    if (!err && perr) {
        tvmaf_cuda_mem_free(*d);
        err = perr;
    }
    if (!err) tvmaf_cuda_retain(dev);
    return err;
}

void tvmaf_cuda_picture_mem_put(TvmafCudaDevice *dev, CUdeviceptr d, size_t size)
{
    pthread_mutex_lock(&device_lock);
    if (dev->n_pic_mem < PIC_MEM_CACHE) {
        dev->pic_mem[dev->n_pic_mem].d = d;
        dev->pic_mem[dev->n_pic_mem++].size = size;
        d = 0;
    }
    pthread_mutex_unlock(&device_lock);
    if (d && !tvmaf_cuda_push(dev)) {
        tvmaf_cuda_mem_free(d);
        tvmaf_cuda_pop(dev);
    }
    tvmaf_cuda_release(dev);
}

int tvmaf_cuda_fence_legacy_stream(TvmafCudaDevice *dev, CUevent *fence)
{
    *fence = NULL;
    pthread_mutex_lock(&device_lock);
    CUevent e = dev->n_fences ? dev->fences[--dev->n_fences] : NULL;
    pthread_mutex_unlock(&device_lock);
    int err = tvmaf_cuda_push(dev);
    if (!err) {
        if (!e) err = tvmaf_cuda_event_create_sync_only(&e);
        if (!err) {
            const CUresult r = drv.cuEventRecord(e, CU_STREAM_LEGACY);
            if (r != CUDA_SUCCESS) err = cu_fail(r, "cuEventRecord (legacy stream)");
        }
        const int perr = tvmaf_cuda_pop(dev);
        if (!err) err = perr;
    }
    if (err && e) tvmaf_cuda_fence_put(dev, e);
    if (!err) *fence = e;
    return err;
}

void tvmaf_cuda_fence_put(TvmafCudaDevice *dev, CUevent fence)
{
    pthread_mutex_lock(&device_lock);
    if (dev->n_fences < PIC_MEM_CACHE) {
        dev->fences[dev->n_fences++] = fence;
        fence = NULL;
    }
    pthread_mutex_unlock(&device_lock);
    if (fence && !tvmaf_cuda_push(dev)) {
        tvmaf_cuda_event_destroy(fence);
        tvmaf_cuda_pop(dev);
    }
}

const TvmafCudaDeviceInfo *tvmaf_cuda_device_info(const TvmafCudaDevice *dev)
{
    return &dev->info;
}

/*
 * The runtime's wrappers of one driver call: int NAME PARAMS calls FN(ARGS)
 * and records its failure as this thread's last error. CU_WRAP_COUNTED
 * counts the call first (COUNT); CU_WRAP_OPT ignores a null argument (a
 * stream, event or pointer never created).
 */
#define CU_WRAP(name, params, fn, ...)                                                        \
    int name params                                                                           \
    {                                                                                         \
        CU_CHECK(fn, __VA_ARGS__);                                                            \
        return 0;                                                                             \
    }
#define CU_WRAP_COUNTED(field, name, params, fn, ...)                                         \
    int name params                                                                           \
    {                                                                                         \
        COUNT(field);                                                                         \
        CU_CHECK(fn, __VA_ARGS__);                                                            \
        return 0;                                                                             \
    }
#define CU_WRAP_OPT(name, type, fn)                                                           \
    int name(type x)                                                                          \
    {                                                                                         \
        if (x)                                                                                \
            CU_CHECK(fn, x);                                                                  \
        return 0;                                                                             \
    }

CU_WRAP(tvmaf_cuda_push, (TvmafCudaDevice *dev), cuCtxPushCurrent, dev->ctx)

int tvmaf_cuda_pop(TvmafCudaDevice *dev)
{
    CUcontext popped = NULL;
    CU_CHECK(cuCtxPopCurrent, &popped);
    if (popped != dev->ctx)
        return fail(-EINVAL, "tvmaf_cuda_pop: the current context was not the device's");
    return 0;
}

/* ---- streams and events ---------------------------------------------------- */

CU_WRAP(tvmaf_cuda_stream_create, (CUstream *stream), cuStreamCreate, stream,
        CU_STREAM_NON_BLOCKING)
CU_WRAP_OPT(tvmaf_cuda_stream_destroy, CUstream, cuStreamDestroy)

int tvmaf_cuda_stream_synchronize(CUstream stream)
{
    COUNT(syncs);
    if (drv.sync_poll) {
        /* TVMAF_CUDA_SYNC=poll, a diagnostic: wait by querying the stream,
         * yielding between queries, whatever the context's scheduling flags.
         * In a caller's context created with CU_CTX_SCHED_BLOCKING_SYNC (as
         * FFmpeg's), cuStreamSynchronize sleeps until an interrupt wakes it;
         * the temporal twins wait once per frame, in series. */
        CUresult r;
        while ((r = drv.cuStreamQuery(stream)) == CUDA_ERROR_NOT_READY) sched_yield();
        if (r != CUDA_SUCCESS) return cu_fail(r, CU_NAME(cuStreamQuery));
        return 0;
    }
    CU_CHECK(cuStreamSynchronize, stream);
    return 0;
}

CU_WRAP(tvmaf_cuda_event_create, (CUevent *event), cuEventCreate, event, CU_EVENT_DEFAULT)
CU_WRAP_OPT(tvmaf_cuda_event_destroy, CUevent, cuEventDestroy)
CU_WRAP(tvmaf_cuda_event_record, (CUevent event, CUstream stream), cuEventRecord, event, stream)
CU_WRAP_COUNTED(syncs, tvmaf_cuda_event_synchronize, (CUevent event), cuEventSynchronize, event)
CU_WRAP(tvmaf_cuda_event_create_sync_only, (CUevent *event), cuEventCreate, event,
        CU_EVENT_DISABLE_TIMING)
CU_WRAP(tvmaf_cuda_stream_wait_event, (CUstream stream, CUevent event), cuStreamWaitEvent,
        stream, event, 0)
CU_WRAP(tvmaf_cuda_event_elapsed_ms, (float *ms, CUevent start, CUevent end),
        cuEventElapsedTime, ms, start, end)

/* ---- memory ---------------------------------------------------------------- */

CU_WRAP_COUNTED(dev_allocs, tvmaf_cuda_mem_alloc, (CUdeviceptr *ptr, size_t size), cuMemAlloc,
                ptr, size)
CU_WRAP_OPT(tvmaf_cuda_mem_free, CUdeviceptr, cuMemFree)
CU_WRAP_COUNTED(host_allocs, tvmaf_cuda_host_alloc, (void **ptr, size_t size), cuMemHostAlloc,
                ptr, size, 0)
CU_WRAP_OPT(tvmaf_cuda_host_free, void *, cuMemFreeHost)
CU_WRAP_COUNTED(copies, tvmaf_cuda_copy_h2d,
                (CUdeviceptr dst, const void *src, size_t size, CUstream stream),
                cuMemcpyHtoDAsync, dst, src, size, stream)
CU_WRAP_COUNTED(copies, tvmaf_cuda_copy_d2h,
                (void *dst, CUdeviceptr src, size_t size, CUstream stream), cuMemcpyDtoHAsync,
                dst, src, size, stream)
CU_WRAP_COUNTED(copies, tvmaf_cuda_copy_d2d,
                (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream),
                cuMemcpyDtoDAsync, dst, src, size, stream)
CU_WRAP(tvmaf_cuda_memset, (CUdeviceptr dst, unsigned char value, size_t size, CUstream stream),
        cuMemsetD8Async, dst, value, size, stream)

/* `height` rows of `width_bytes` between host memory and the device, either
 * way (the host side's fields set by the caller). */
static int copy_2d(CUDA_MEMCPY2D *c, size_t width_bytes, size_t height, CUstream stream)
{
    c->WidthInBytes = width_bytes;
    c->Height = height;
    COUNT(copies);
    CU_CHECK(cuMemcpy2DAsync, c, stream);
    return 0;
}

int tvmaf_cuda_copy_h2d_2d(CUdeviceptr dst, size_t dst_pitch, const void *src,
                           size_t src_pitch, size_t width_bytes, size_t height,
                           CUstream stream)
{
    CUDA_MEMCPY2D c = { .srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = src,
                        .srcPitch = src_pitch, .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                        .dstDevice = dst, .dstPitch = dst_pitch };
    return copy_2d(&c, width_bytes, height, stream);
}

int tvmaf_cuda_copy_d2h_2d(void *dst, size_t dst_pitch, CUdeviceptr src, size_t src_pitch,
                           size_t width_bytes, size_t height, CUstream stream)
{
    CUDA_MEMCPY2D c = { .srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src,
                        .srcPitch = src_pitch, .dstMemoryType = CU_MEMORYTYPE_HOST,
                        .dstHost = dst, .dstPitch = dst_pitch };
    return copy_2d(&c, width_bytes, height, stream);
}

/* ---- modules and launches ---------------------------------------------------- */

/* Modules are shared: every instance of a twin (one per worker) loading the
 * same fatbin gets the same module, loaded once (a load costs milliseconds;
 * functions are per module, launches need no per-instance state). */
struct TvmafCudaModule {
    TvmafCudaDevice *dev; /* a reference, so the context outlives the module */
    CUmodule module;
    const unsigned char *fatbin;
    unsigned uses;        /* under device_lock */
    TvmafCudaModule *next;
};

static TvmafCudaModule *modules; /* loaded modules, under device_lock */

static void module_free(TvmafCudaModule *m);

static int module_load_new(TvmafCudaDevice *dev, const unsigned char *fatbin,
                           TvmafCudaModule **module, char *msg, size_t msg_len)
{
    *module = NULL;
    TvmafCudaModule *m = calloc(1, sizeof(*m));
    if (!m) {
        fail(-ENOMEM, "tvmaf_cuda_module_load: out of host memory");
        copy_msg(msg, msg_len);
        return -ENOMEM;
    }
    tvmaf_cuda_retain(dev);
    m->dev = dev;

    int err = tvmaf_cuda_push(dev);
    if (!err) {
        /* the JIT log explains a PTX that fails to compile for this device */
        char jit_log[1024] = "";
        CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
        void *vals[] = { jit_log, (void *)(uintptr_t)sizeof(jit_log) };
        const CUresult r = drv.cuModuleLoadDataEx(&m->module, fatbin, 2, opts, vals);
        if (r != CUDA_SUCCESS) {
            err = cu_fail(r, CU_NAME(cuModuleLoadDataEx));
            if (jit_log[0]) {
                const size_t n = strlen(last_error);
                snprintf(last_error + n, sizeof(last_error) - n, " (%s)", jit_log);
            }
        }
        const int pop_err = tvmaf_cuda_pop(dev);
        if (!err)
            err = pop_err;
    }
    if (err) {
        copy_msg(msg, msg_len);
        module_free(m);
        return err;
    }
    m->fatbin = fatbin;
    *module = m;
    return 0;
}

int tvmaf_cuda_module_load(TvmafCudaDevice *dev, const unsigned char *fatbin,
                           TvmafCudaModule **module, char *msg, size_t msg_len)
{
    /* one loader at a time, so two instances never load the same fatbin twice */
    static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&load_lock);
    pthread_mutex_lock(&device_lock);
    TvmafCudaModule *m = modules;
    while (m && !(m->fatbin == fatbin && m->dev == dev)) m = m->next;
    if (m) m->uses++;
    pthread_mutex_unlock(&device_lock);
    int err = 0;
    if (!m && !(err = module_load_new(dev, fatbin, &m, msg, msg_len))) {
        pthread_mutex_lock(&device_lock);
        m->uses = 1;
        m->next = modules;
        modules = m;
        pthread_mutex_unlock(&device_lock);
    }
    pthread_mutex_unlock(&load_lock);
    *module = err ? NULL : m;
    return err;
}

void tvmaf_cuda_module_unload(TvmafCudaModule *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&device_lock);
    const bool last = --m->uses == 0;
    if (last) {
        TvmafCudaModule **p = &modules;
        while (*p && *p != m) p = &(*p)->next;
        if (*p) *p = m->next;
    }
    pthread_mutex_unlock(&device_lock);
    if (last) module_free(m);
}

static void module_free(TvmafCudaModule *m)
{
    if (m->module && tvmaf_cuda_push(m->dev) == 0) {
        drv.cuModuleUnload(m->module);
        tvmaf_cuda_pop(m->dev);
    }
    tvmaf_cuda_release(m->dev);
    free(m);
}

int tvmaf_cuda_module_function(TvmafCudaModule *m, const char *name, CUfunction *fn)
{
    int err = tvmaf_cuda_push(m->dev);
    if (err)
        return err;
    const CUresult r = drv.cuModuleGetFunction(fn, m->module, name);
    if (r != CUDA_SUCCESS) {
        char what[160];
        snprintf(what, sizeof(what), "%s(%s)", CU_NAME(cuModuleGetFunction), name);
        err = cu_fail(r, what);
    }
    const int pop_err = tvmaf_cuda_pop(m->dev);
    return err ? err : pop_err;
}

CU_WRAP_COUNTED(launches, tvmaf_cuda_launch,
                (CUfunction fn, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                 unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                 CUstream stream, void **args),
                cuLaunchKernel, fn, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                shared_bytes, stream, args, NULL)

/* ---- page-locked staging memory ------------------------------------------------ */

/* Large page-locked buffers: anonymous memory backed by transparent huge
 * pages where the kernel offers them, faulted in, then registered with the
 * driver. Measured on the H200 host: 12 MB in 3.5 ms, against 6.9 ms for
 * cuMemHostAlloc (page-locking costs per page, and a huge page is one). */
#define HUGE_PAGE ((size_t)2 << 20)

int tvmaf_cuda_stage_alloc(void **ptr, size_t size)
{
    *ptr = NULL;
    const size_t len = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return fail(-ENOMEM, "mmap of a staging buffer failed");
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* a hint: without it the buffer still works */
#endif
    memset(p, 0, len);
    COUNT(host_allocs);
    const CUresult r = drv.cuMemHostRegister(p, len, 0);
    if (r != CUDA_SUCCESS) {
        munmap(p, len);
        return cu_fail(r, CU_NAME(cuMemHostRegister));
    }
    *ptr = p;
    return 0;
}

void tvmaf_cuda_stage_free(void *ptr, size_t size)
{
    if (!ptr) return;
    const size_t len = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    drv.cuMemHostUnregister(ptr);
    munmap(ptr, len);
}

/* ---- page-locked picture memory ----------------------------------------------- */

/* Every block holds a reference to the device, so the primary context (and
 * with it the page-locking) outlives any picture still held. */
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

void tvmaf_cuda_pinned_stats(TvmafCudaDevice *dev, unsigned long long *n, double *ms)
{
    pthread_mutex_lock(&pinned_lock);
    *n = dev->pinned_n;
    *ms = dev->pinned_ms;
    pthread_mutex_unlock(&pinned_lock);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void *pinned_alloc(void *opaque, size_t size)
{
    const double t0 = now_ms();
    TvmafCudaDevice *dev = NULL;
    char msg[8];
    if (tvmaf_cuda_acquire((unsigned)((TvmafCudaDevice *)opaque)->info.ordinal, &dev, msg,
                           sizeof(msg)))
        return NULL;
    void *p = NULL;
    if (!tvmaf_cuda_push(dev)) {
        if (tvmaf_cuda_host_alloc(&p, size)) p = NULL;
        tvmaf_cuda_pop(dev);
    }
    if (!p) tvmaf_cuda_release(dev);
    pthread_mutex_lock(&pinned_lock);
    ((TvmafCudaDevice *)opaque)->pinned_n++;
    ((TvmafCudaDevice *)opaque)->pinned_ms += now_ms() - t0;
    pthread_mutex_unlock(&pinned_lock);
    return p;
}

static void pinned_free(void *opaque, void *ptr)
{
    if (!ptr) return;
    TvmafCudaDevice *dev = opaque;
    if (!tvmaf_cuda_push(dev)) {
        tvmaf_cuda_host_free(ptr);
        tvmaf_cuda_pop(dev);
    }
    tvmaf_cuda_release(dev);
}

/* A device's allocator (opened, or a caller's context taken). */
static void pinned_init(TvmafCudaDevice *d)
{
    d->pinned = (TvmafHostAllocator){ pinned_alloc, pinned_free, d };
}

const TvmafHostAllocator *tvmaf_cuda_pinned_allocator(TvmafCudaDevice *dev)
{
    return &dev->pinned;
}

/* ---- a context's statistics and kernel timing ---------------------------------- */

/* A thread's binding holds a reference, so statistics outlive both their
 * context and the threads that worked for it; the binding of a thread that
 * ends is dropped by the key's destructor. */
static pthread_key_t stats_key;
static pthread_once_t stats_key_once = PTHREAD_ONCE_INIT;

static void stats_key_drop(void *p)
{
    tvmaf_cuda_stats_unref(p);
}

static void stats_key_init(void)
{
    pthread_key_create(&stats_key, stats_key_drop);
}

static TvmafCudaStats *bound_stats(void)
{
    pthread_once(&stats_key_once, stats_key_init);
    return pthread_getspecific(stats_key);
}

TvmafCudaStats *tvmaf_cuda_stats_new(int enabled)
{
    TvmafCudaStats *st = calloc(1, sizeof(*st));
    if (!st) return NULL;
    st->refs = 1;
    st->enabled = enabled;
    pthread_mutex_init(&st->lock, NULL);
    return st;
}

static void stats_ref(TvmafCudaStats *st)
{
    if (st) __atomic_fetch_add(&st->refs, 1u, __ATOMIC_RELAXED);
}

void tvmaf_cuda_stats_unref(TvmafCudaStats *st)
{
    if (!st || __atomic_sub_fetch(&st->refs, 1u, __ATOMIC_ACQ_REL)) return;
    pthread_mutex_destroy(&st->lock);
    free(st);
}

void tvmaf_cuda_stats_bind(TvmafCudaStats *st)
{
    TvmafCudaStats *old = bound_stats();
    if (old == st) return;
    stats_ref(st);
    pthread_setspecific(stats_key, st);
    tvmaf_cuda_stats_unref(old);
}

void tvmaf_cuda_stats_unbind(TvmafCudaStats *st)
{
    if (st && bound_stats() == st) tvmaf_cuda_stats_bind(NULL);
}

void tvmaf_cuda_stats_counts(TvmafCudaStats *st, TvmafCudaCounts *c)
{
    c->launches = __atomic_load_n(&st->counts.launches, __ATOMIC_RELAXED);
    c->syncs = __atomic_load_n(&st->counts.syncs, __ATOMIC_RELAXED);
    c->dev_allocs = __atomic_load_n(&st->counts.dev_allocs, __ATOMIC_RELAXED);
    c->host_allocs = __atomic_load_n(&st->counts.host_allocs, __ATOMIC_RELAXED);
    c->copies = __atomic_load_n(&st->counts.copies, __ATOMIC_RELAXED);
}

int tvmaf_cuda_span_init(TvmafCudaSpan *s)
{
    memset(s, 0, sizeof(*s));
    TvmafCudaStats *st = bound_stats();
    if (!st || !st->enabled) return 0;
    int err = tvmaf_cuda_event_create(&s->start);
    if (!err) err = tvmaf_cuda_event_create(&s->end);
    if (err) {
        tvmaf_cuda_span_destroy(s);
        return err;
    }
    stats_ref(st);
    s->stats = st;
    s->on = 1;
    return 0;
}

void tvmaf_cuda_span_destroy(TvmafCudaSpan *s)
{
    tvmaf_cuda_event_destroy(s->start);
    tvmaf_cuda_event_destroy(s->end);
    tvmaf_cuda_stats_unref(s->stats);
    memset(s, 0, sizeof(*s));
}

int tvmaf_cuda_span_begin(TvmafCudaSpan *s, CUstream stream)
{
    return s->on ? tvmaf_cuda_event_record(s->start, stream) : 0;
}

int tvmaf_cuda_span_end(TvmafCudaSpan *s, CUstream stream)
{
    return s->on ? tvmaf_cuda_event_record(s->end, stream) : 0;
}

int tvmaf_cuda_span_add(TvmafCudaSpan *s, const char *name)
{
    if (!s->on) return 0;
    float ms = 0;
    int err = tvmaf_cuda_event_elapsed_ms(&ms, s->start, s->end);
    if (err) return err;
    TvmafCudaStats *st = s->stats;
    pthread_mutex_lock(&st->lock);
    unsigned i = 0;
    while (i < st->n_spans && strcmp(st->spans[i].name, name)) i++;
    if (i == st->n_spans && st->n_spans < TVMAF_CUDA_SPAN_NAMES) {
        snprintf(st->spans[i].name, sizeof(st->spans[i].name), "%s", name);
        st->n_spans++;
    }
    if (i < st->n_spans) {
        st->spans[i].ms += ms;
        st->spans[i].count++;
    }
    pthread_mutex_unlock(&st->lock);
    return 0;
}

void tvmaf_cuda_spans_print(TvmafCudaStats *st, FILE *f)
{
    pthread_mutex_lock(&st->lock);
    for (unsigned i = 0; i < st->n_spans; i++)
        fprintf(f, "tvmaf cuda stats: %-12s device time %.4f ms per call (%llu calls)\n",
                st->spans[i].name,
                st->spans[i].count ? st->spans[i].ms / st->spans[i].count : 0.0,
                st->spans[i].count);
    pthread_mutex_unlock(&st->lock);
}
