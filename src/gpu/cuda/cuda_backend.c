/*
 * The CUDA backend: opens the context's device on a thread of its own (the
 * driver's start-up and the primary context take a few hundred milliseconds
 * on the H200 host, spent while the caller loads models and reads the first
 * frames), keeps the per-worker device frames, counts device memory against
 * the context's limit and prints the statistics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/device_budget.h"
#include "gpu/cuda/cuda_backend.h"
#include "gpu/cuda/device_frame.h"
#include "gpu/exec_common.h"

/* Steady-state statistics count from this frame on. */
#define STATS_FROM 64u

struct TvmafGpu {
    unsigned ordinal;
    CUcontext ext_ctx; /* the caller's context (cuda_context), or NULL: the primary */
    bool pinned; /* pictures come from page-locked memory */
    bool stats;
    /* the open, on its own thread until ready() */
    pthread_t opener;
    pthread_mutex_t open_lock; /* ready() may be reached from two threads */
    bool opening;
    int open_err;
    char open_msg[320];
    TvmafCudaDevice *dev;
    /* device memory of this context */
    TvmafDeviceBudget mem;
    /* one device copy of the frame per worker */
    TvmafDeviceFrame *frames;
    unsigned n_frames;
    /* a ladder's context: the reference pictures come from the device's
     * shared cache, where this context brought the entries of ref_block */
    bool share_ref;
    TvmafCudaRefCache *ref_cache;
    TvmafCudaRefBlock *ref_block;
    size_t ref_reserve_bytes;
    /* the twins' reference-side areas of each entry, declared at their init */
    TvmafCudaRefDerivedSpec derived[TVMAF_CUDA_REF_MAX_DERIVED];
    unsigned n_derived;
    enum TvmafLogLevel log_level;
    /* statistics: this context's own (the threads working for it are bound
     * to them, core never runs two contexts' frames on one thread at once) */
    TvmafCudaStats *st;
    TvmafCudaCounts counts0;
    unsigned long long pic_allocs0;
    struct timespec t0;
    double t_open, t_ready, t_frames, t_first_done; /* ms, monotonic */
};

TvmafCudaDevice *tvmaf_cuda_gpu_device(TvmafGpu *gpu)
{
    return gpu->dev;
}

int tvmaf_cuda_gpu_alloc(TvmafGpu *gpu, CUdeviceptr *ptr, size_t size)
{
    *ptr = 0;
    char why[200];
    if (tvmaf_budget_take(&gpu->mem, size, why, sizeof(why))) {
        tvmaf_cuda_set_last_error(why);
        return -ENOMEM;
    }
    int err = tvmaf_cuda_mem_alloc(ptr, size);
    if (err) tvmaf_budget_give(&gpu->mem, size);
    return err;
}

void tvmaf_cuda_gpu_free(TvmafGpu *gpu, CUdeviceptr ptr, size_t size)
{
    if (!ptr) return; /* never allocated */
    tvmaf_cuda_mem_free(ptr);
    tvmaf_budget_give(&gpu->mem, size);
}

bool tvmaf_cuda_gpu_shares_reference(TvdTwin *t)
{
    return t->gpu->share_ref;
}

int tvmaf_cuda_gpu_ref_derived(TvdTwin *t, const char *key, size_t bytes, unsigned *slot)
{
    TvmafGpu *gpu = t->gpu;
    *slot = TVD_NO_SLOT;
    if (!gpu->share_ref) return 0;
    for (unsigned k = 0; k < gpu->n_derived; k++) {
        if (strcmp(gpu->derived[k].key, key)) continue;
        if (gpu->derived[k].bytes != bytes) {
            tvmaf_cuda_set_last_error("reference-side results declared twice with two sizes");
            return -EINVAL;
        }
        *slot = k;
        return 0;
    }
    /* more kinds than slots, or a long key: computed per pair, as without a ladder */
    if (gpu->n_derived == TVMAF_CUDA_REF_MAX_DERIVED || strlen(key) >= TVMAF_CUDA_REF_KEY_LEN)
        return 0;
    TvmafCudaRefDerivedSpec *d = &gpu->derived[gpu->n_derived];
    snprintf(d->key, sizeof(d->key), "%s", key);
    d->bytes = bytes;
    *slot = gpu->n_derived++;
    return 0;
}

/* When not, the reason is this thread's last error (the driver's failure,
 * or the devices present). */
static int available(unsigned gpu_index)
{
    tvmaf_cuda_set_last_error("");
    const int n = tvmaf_cuda_device_count();
    if ((int)gpu_index < n) return 1;
    if (n > 0 || !tvmaf_cuda_last_error()[0]) {
        char why[96];
        snprintf(why, sizeof(why), "%d CUDA device%s present", n, n == 1 ? "" : "s");
        tvmaf_cuda_set_last_error(why);
    }
    return 0;
}

static void *open_device(void *arg)
{
    TvmafGpu *gpu = arg;
    gpu->open_err = gpu->ext_ctx ? tvmaf_cuda_acquire_context(gpu->ext_ctx, &gpu->dev,
                                                              gpu->open_msg,
                                                              sizeof(gpu->open_msg))
                                 : tvmaf_cuda_acquire(gpu->ordinal, &gpu->dev, gpu->open_msg,
                                                      sizeof(gpu->open_msg));
    return NULL;
}

static int open_gpu(TvmafGpu **out, const TvmafConfiguration *cfg, char *msg, size_t len)
{
    TvmafGpu *gpu = calloc(1, sizeof(*gpu));
    if (!gpu || !(gpu->st = tvmaf_cuda_stats_new(!!(cfg->gpu_flags & TVMAF_GPU_STATS)))) {
        free(gpu);
        snprintf(msg, len, "out of memory");
        return -ENOMEM;
    }
    gpu->ordinal = cfg->gpu_index;
    gpu->ext_ctx = cfg->cuda_context;
    pthread_mutex_init(&gpu->open_lock, NULL);
    gpu->pinned = cfg->gpu_flags & TVMAF_GPU_PINNED_PICTURES;
    gpu->stats = cfg->gpu_flags & TVMAF_GPU_STATS;
    gpu->share_ref = cfg->gpu_flags & TVMAF_GPU_SHARED_REFERENCE;
    gpu->mem.limit = cfg->gpu_mem_limit;
    gpu->log_level = cfg->log_level;
    tvmaf_cuda_stats_bind(gpu->st);
    gpu->t_open = tvd_mono_ms();
    /* with page-locked pictures the allocator (of the device) is needed
     * before the first picture is read: open now */
    gpu->opening = !gpu->pinned && !pthread_create(&gpu->opener, NULL, open_device, gpu);
    if (!gpu->opening) {
        open_device(gpu);
        gpu->t_ready = tvd_mono_ms();
    }
    /* Pictures stay in ordinary memory and each worker copies the frame into
     * its own page-locked staging buffer (device_frame.c): page-locking every
     * picture buffer costs 2-7 ms each (3-12 MB, H200 host) for the dozens in
     * flight, which a run of a few hundred frames never earns back.
     * TVMAF_GPU_PINNED_PICTURES page-locks them instead (uploaded straight
     * from them), to measure the trade. */
    if (gpu->pinned && !gpu->open_err)
        tvmaf_picture_allocator_install(tvmaf_cuda_pinned_allocator(gpu->dev));
    *out = gpu;
    return 0;
}

static int ready(TvmafGpu *gpu, char *msg, size_t len)
{
    /* the twins set up next on this thread: their spans time for this context */
    tvmaf_cuda_stats_bind(gpu->st);
    pthread_mutex_lock(&gpu->open_lock);
    if (gpu->opening) {
        pthread_join(gpu->opener, NULL);
        gpu->opening = false;
        gpu->t_ready = tvd_mono_ms();
    }
    pthread_mutex_unlock(&gpu->open_lock);
    if (gpu->open_err) snprintf(msg, len, "%s", gpu->open_msg);
    return gpu->open_err;
}

static int frames_alloc(TvmafGpu *gpu, const TvmafVideoInfo *vi, unsigned planes, unsigned n,
                        char *msg, size_t len)
{
    tvmaf_cuda_stats_bind(gpu->st);
    gpu->frames = calloc(n, sizeof(*gpu->frames));
    if (!gpu->frames) {
        snprintf(msg, len, "out of memory for %u device frames", n);
        return -ENOMEM;
    }
    int err = tvmaf_cuda_push(gpu->dev);
    if (err) {
        snprintf(msg, len, "%s", tvmaf_cuda_last_error());
        return err;
    }
    for (; gpu->n_frames < n; gpu->n_frames++)
        if ((err = tvmaf_cuda_frame_alloc(&gpu->frames[gpu->n_frames], gpu, vi, planes)))
            break;
    if (err)
        snprintf(msg, len, "cannot allocate the device frames (%s)", tvmaf_cuda_last_error());
    if (!err && gpu->share_ref) {
        /* two cache entries per worker, counted against this context's limit
         * as its frames are. The sharing saves work, it is not needed: when
         * the entries with the twins' reference-side areas do not fit, the
         * pictures alone are shared; when those do not fit either, nothing
         * is (each says so once), rather than the pair failing. */
        const size_t bytes = gpu->frames[0].copy_bytes;
        for (int plain = 0; plain < 2 && !gpu->ref_cache; plain++) {
            const unsigned n_spec = plain ? 0 : gpu->n_derived;
            if (plain && !gpu->n_derived) break;
            const size_t one = tvmaf_cuda_ref_entry_bytes(bytes, gpu->derived, n_spec);
            char why[200] = "";
            int e = tvmaf_budget_take(&gpu->mem, 2 * (size_t)n * one, why, sizeof(why));
            if (!e) {
                e = tvmaf_cuda_ref_cache_attach(gpu->dev, bytes, gpu->derived, n_spec, 2 * n,
                                                &gpu->ref_cache, &gpu->ref_block);
                if (e) {
                    tvmaf_budget_give(&gpu->mem, 2 * (size_t)n * one);
                    snprintf(why, sizeof(why), "%s", *tvmaf_cuda_last_error()
                                                         ? tvmaf_cuda_last_error()
                                                         : "out of device memory");
                }
            }
            if (e) {
                if (gpu->log_level >= TVMAF_LOG_WARNING)
                    fprintf(stderr, "tvmaf NOTE cuda: %zu bytes for the ladder's shared reference "
                            "%s do not fit (%s): this pair %s\n", 2 * (size_t)n * one,
                            n_spec ? "pictures and results" : "pictures", why,
                            n_spec && !plain ? "shares the pictures only, if they fit"
                                             : "uploads its own");
                continue;
            }
            gpu->ref_reserve_bytes = 2 * (size_t)n * one;
            for (unsigned i = 0; i < n; i++) {
                gpu->frames[i].cache = gpu->ref_cache;
                gpu->frames[i].n_derived = n_spec;
            }
        }
    }
    tvmaf_cuda_pop(gpu->dev);
    gpu->t_frames = tvd_mono_ms();
    return err;
}

static int frame_upload(TvmafGpu *gpu, unsigned w, const TvmafPicture *ref,
                        const TvmafPicture *dis, void *fence, const TvmafDeviceFrame **frame,
                        char *msg, size_t len)
{
    TvmafDeviceFrame *f = &gpu->frames[w];
    *frame = f;
    /* the frame's twins run next on this thread */
    tvmaf_cuda_stats_bind(gpu->st);
    int err = tvmaf_cuda_push(gpu->dev);
    if (!err) {
        /* device pictures: the frame's stream waits for the caller's writes */
        if (fence) {
            err = tvmaf_cuda_stream_wait_event(f->stream, fence);
            tvmaf_cuda_fence_put(gpu->dev, fence);
        }
        if (!err)
            err = tvmaf_cuda_frame_upload(f, ref, dis, tvmaf_cuda_pinned_allocator(gpu->dev));
        tvmaf_cuda_pop(gpu->dev);
    } else if (fence) {
        tvmaf_cuda_fence_put(gpu->dev, fence);
    }
    if (err) snprintf(msg, len, "%s", tvmaf_cuda_last_error());
    return err;
}

static void frame_done(TvmafGpu *gpu, unsigned w, unsigned index)
{
    tvmaf_cuda_frame_release(&gpu->frames[w]);
    if (!gpu->stats) return;
    /* the last upload's device time: the twins have synchronised on work
     * that waited for `ready`, so both of the span's events have completed */
    tvmaf_cuda_span_add(&gpu->frames[w].span, "upload");
    if (index == 0) gpu->t_first_done = tvd_mono_ms();
}

static void frame_submitted(TvmafGpu *gpu, unsigned index)
{
    if (!gpu->stats || index != STATS_FROM) return;
    tvmaf_cuda_stats_counts(gpu->st, &gpu->counts0);
    gpu->pic_allocs0 = tvmaf_picture_alloc_count();
    clock_gettime(CLOCK_MONOTONIC, &gpu->t0);
}

/* Per frame from STATS_FROM on: calls of the runtime and picture buffers
 * allocated, then the device time of each twin and of the uploads. */
static void stats(TvmafGpu *gpu, unsigned n_frames)
{
    if (!gpu->stats) return;
    if (n_frames > STATS_FROM) {
        TvmafCudaCounts c;
        tvmaf_cuda_stats_counts(gpu->st, &c);
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double n = n_frames - STATS_FROM;
        const double s = (t1.tv_sec - gpu->t0.tv_sec) + 1e-9 * (t1.tv_nsec - gpu->t0.tv_nsec);
        fprintf(stderr, "tvmaf cuda stats: frames %u..%u, %.1f fps; per frame: host "
                "allocations %.3f (picture buffers %.3f), device allocations %.3f, kernel "
                "launches %.2f, synchronisations %.2f, copies %.2f\n", STATS_FROM, n_frames - 1,
                n / s, (c.host_allocs - gpu->counts0.host_allocs) / n,
                (tvmaf_picture_alloc_count() - gpu->pic_allocs0) / n,
                (c.dev_allocs - gpu->counts0.dev_allocs) / n,
                (c.launches - gpu->counts0.launches) / n, (c.syncs - gpu->counts0.syncs) / n,
                (c.copies - gpu->counts0.copies) / n);
    }
    tvmaf_cuda_spans_print(gpu->st, stderr);
    if (gpu->ref_cache) {
        unsigned long long up = 0, shared = 0, made = 0, dshared = 0, hmade = 0, hshared = 0;
        for (unsigned i = 0; i < gpu->n_frames; i++) {
            up += gpu->frames[i].ref_uploads;
            shared += gpu->frames[i].ref_shared;
            made += gpu->frames[i].derived_made;
            dshared += gpu->frames[i].derived_shared;
            hmade += gpu->frames[i].host_made;
            hshared += gpu->frames[i].host_shared;
        }
        fprintf(stderr, "tvmaf cuda stats: reference pictures of the ladder: %llu uploaded, "
                "%llu shared (uploaded by another pair); reference-side results: %llu "
                "computed, %llu shared (computed by another pair); results kept with the "
                "host reference pictures: %llu computed, %llu shared\n", up, shared, made,
                dshared, hmade, hshared);
    }
    unsigned long long np = 0;
    double pms = 0;
    if (gpu->dev) tvmaf_cuda_pinned_stats(gpu->dev, &np, &pms);
    fprintf(stderr, "tvmaf cuda stats: start-up: device %u ready at %.1f ms, frames allocated "
            "at %.1f ms, first frame scored at %.1f ms, flush at %.1f ms; page-locked picture "
            "buffers of the device %llu (%.1f ms); device opened in %.1f ms; device memory "
            "of this context %zu bytes\n", gpu->ordinal,
            gpu->t_ready - gpu->t_open, gpu->t_frames - gpu->t_open,
            gpu->t_first_done - gpu->t_open, tvd_mono_ms() - gpu->t_open, np, pms,
            tvmaf_cuda_open_ms(), atomic_load(&gpu->mem.used));
}

static void close_gpu(TvmafGpu *gpu)
{
    if (!gpu) return;
    const double t_close = tvd_mono_ms();
    char msg[sizeof(gpu->open_msg)];
    ready(gpu, msg, sizeof(msg));
    if ((gpu->n_frames || gpu->ref_cache) && !tvmaf_cuda_push(gpu->dev)) {
        /* the frames put their cache entries back before the cache may go */
        for (unsigned i = 0; i < gpu->n_frames; i++) tvmaf_cuda_frame_free(&gpu->frames[i], gpu);
        tvmaf_cuda_ref_cache_detach(gpu->ref_cache, gpu->ref_block);
        tvmaf_budget_give(&gpu->mem, gpu->ref_reserve_bytes);
        tvmaf_cuda_pop(gpu->dev);
    }
    free(gpu->frames);
    /* with the last context that installed it, the device's allocator and
     * its cached page-locked buffers go; pictures still held keep theirs */
    if (gpu->pinned && gpu->dev)
        tvmaf_picture_allocator_uninstall(tvmaf_cuda_pinned_allocator(gpu->dev));
    if (gpu->dev) tvmaf_cuda_release(gpu->dev);
    if (gpu->stats)
        fprintf(stderr, "tvmaf cuda stats: device released in %.1f ms\n", tvd_mono_ms() - t_close);
    tvmaf_cuda_stats_unbind(gpu->st);
    tvmaf_cuda_stats_unref(gpu->st);
    pthread_mutex_destroy(&gpu->open_lock);
    free(gpu);
}

/* Device pictures (tvmaf_cuda_picture_alloc): buffers of the device's own
 * cache, each holding a reference to the device until the picture goes. */
static void picture_mem_free(void *dev, uintptr_t d, size_t size)
{
    tvmaf_cuda_picture_mem_put(dev, (CUdeviceptr)d, size);
}
static const TvmafDeviceMemory picture_mem = { picture_mem_free };

static int picture_alloc(TvmafGpu *gpu, TvmafPicture *pic, enum TvmafPixelFormat fmt,
                         unsigned bpc, unsigned w, unsigned h, bool luma_only, char *msg,
                         size_t len)
{
    int err = ready(gpu, msg, len);
    if (err) return err;
    size_t stride[3], off[3], total;
    unsigned pw[3], ph[3];
    if (tvmaf_plane_dims(fmt, w, h, pw, ph) ||
        tvmaf_picture_layout(fmt, bpc, w, h, stride, off, &total)) {
        snprintf(msg, len, "%ux%u %s %u-bit is not a picture format", w, h,
                 tvmaf_pix_fmt_name(fmt), bpc);
        return -EINVAL;
    }
    const size_t size = luma_only ? stride[0] * ph[0] : total;
    CUdeviceptr d;
    if ((err = tvmaf_cuda_picture_mem_get(gpu->dev, size, &d))) {
        snprintf(msg, len, "%s", tvmaf_cuda_last_error());
        return err;
    }
    err = tvmaf_picture_wrap_device(pic, fmt, bpc, w, h, luma_only, (uintptr_t)d, size,
                                    &picture_mem, gpu->dev);
    if (err) {
        tvmaf_cuda_picture_mem_put(gpu->dev, d, size);
        snprintf(msg, len, "out of memory");
    }
    return err;
}

static void *device_of(TvmafGpu *gpu)
{
    return gpu->dev;
}

static int pictures_written(TvmafGpu *gpu, void **fence, char *msg, size_t len)
{
    const int err = tvmaf_cuda_fence_legacy_stream(gpu->dev, (CUevent *)fence);
    if (err) snprintf(msg, len, "%s", tvmaf_cuda_last_error());
    return err;
}

const TvmafBackendOps tvmaf_backend_cuda = {
    .id = TVMAF_BACKEND_CUDA,
    .name = "cuda",
    TVD_BACKEND_OPS,
    .picture_alloc = picture_alloc,
    .device = device_of,
    .pictures_written = pictures_written,
    .last_error = tvmaf_cuda_last_error,
};
