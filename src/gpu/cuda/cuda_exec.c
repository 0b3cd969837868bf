/*
 * The CUDA executor of the twin base (gpu/twin.h): an instance's buffers
 * are one device allocation and one page-locked block of mirrors; its work
 * goes on its own stream, which waits for the frame's upload; a kernel's
 * resolved argument struct is its one parameter.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda_backend.h"
#include "gpu/cuda/device_frame.h"
#include "gpu/exec_common.h"

typedef struct CudaXs {
    TvmafCudaDevice *dev; /* a reference, released by close */
    TvmafCudaModule *mod;
    CUfunction fn[32];
    CUstream stream;
    TvmafCudaSpan span;
    CUdeviceptr arena;
    size_t arena_size;
    void *host;
} CudaXs;

static int open_x(TvdTwin *t, char *why, size_t len)
{
    CudaXs *x = t->xs;
    if (t->plan->n_kernels > sizeof(x->fn) / sizeof(x->fn[0])) {
        snprintf(why, len, "more than %zu kernels", sizeof(x->fn) / sizeof(x->fn[0]));
        return -EINVAL;
    }
    x->dev = tvmaf_cuda_gpu_device(t->gpu);
    tvmaf_cuda_retain(x->dev);
    int err = tvmaf_cuda_module_load(x->dev, t->code, &x->mod, why, len);
    for (unsigned k = 0; k < t->plan->n_kernels && !err; k++)
        err = tvmaf_cuda_module_function(x->mod, t->plan->kernels[k].name, &x->fn[k]);
    if (err) return err;
    if ((err = tvmaf_cuda_push(x->dev))) return err;
    err = tvmaf_cuda_stream_create(&x->stream);
    if (!err) err = tvmaf_cuda_span_init(&x->span);
    tvmaf_cuda_pop(x->dev);
    t->caps = (TvdCaps){ .warp = 32, .atomic64 = true, .fp64 = true,
                         .cr_div_sqrt = true };
    return err;
}

static int bind(TvdTwin *t, char *why, size_t len)
{
    (void)why;
    (void)len;
    CudaXs *x = t->xs;
    size_t dev, host;
    tvd_exec_arena(t, &dev, &host);
    int err = tvmaf_cuda_push(x->dev);
    if (err) return err;
    if (dev && !(err = tvmaf_cuda_gpu_alloc(t->gpu, &x->arena, dev))) x->arena_size = dev;
    if (!err && host) err = tvmaf_cuda_host_alloc(&x->host, host);
    tvmaf_cuda_pop(x->dev);
    if (!err) tvd_exec_place(t, x->arena, x->host);
    return err;
}

static int upload(TvdTwin *t, uint64_t addr, const void *src, size_t size)
{
    CudaXs *x = t->xs;
    int err = tvmaf_cuda_push(x->dev);
    if (err) return err;
    err = tvmaf_cuda_copy_h2d(addr, src, size, x->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(x->stream);
    tvmaf_cuda_pop(x->dev);
    return err;
}

static int begin(TvdTwin *t, const TvmafDeviceFrame *f)
{
    CudaXs *x = t->xs;
    int err = tvmaf_cuda_push(x->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(x->stream, f->ready);
    if (!err) err = tvmaf_cuda_span_begin(&x->span, x->stream);
    if (err) tvmaf_cuda_pop(x->dev);
    return err;
}

static int fill(TvdTwin *t, const TvdView *v, uint64_t addr, uint8_t byte)
{
    return tvmaf_cuda_memset(addr, byte, v->size, ((CudaXs *)t->xs)->stream);
}

static int copy(TvdTwin *t, const TvdView *dst, uint64_t dst_addr, const TvdView *src,
                uint64_t src_addr)
{
    (void)src;
    return tvmaf_cuda_copy_d2d(dst_addr, src_addr, dst->size, ((CudaXs *)t->xs)->stream);
}

static int download(TvdTwin *t, const TvdView *v, uint64_t addr, void *host)
{
    return tvmaf_cuda_copy_d2h(host, addr, v->size, ((CudaXs *)t->xs)->stream);
}

static int launch(TvdTwin *t, unsigned k, TvdGrid g, const void *kargs, const TvdView *views)
{
    (void)views;
    CudaXs *x = t->xs;
    const TvdKernel *kd = &t->plan->kernels[k];
    void *args[] = { (void *)kargs };
    return tvmaf_cuda_launch(x->fn[k], g.x, g.y, g.z, kd->group[0], kd->group[1], 1, 0,
                             x->stream, args);
}

static int sync_x(TvdTwin *t)
{
    return tvmaf_cuda_stream_synchronize(((CudaXs *)t->xs)->stream);
}

static int end(TvdTwin *t, int err)
{
    CudaXs *x = t->xs;
    if (!err) err = tvmaf_cuda_span_end(&x->span, x->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(x->stream);
    if (!err) err = tvmaf_cuda_span_add(&x->span, t->plan->cpu->name);
    tvmaf_cuda_pop(x->dev);
    return err;
}

static void close_x(TvdTwin *t)
{
    CudaXs *x = t->xs;
    if (!x->dev) return;
    if (!tvmaf_cuda_push(x->dev)) {
        if (x->stream) tvmaf_cuda_stream_synchronize(x->stream);
        tvmaf_cuda_span_destroy(&x->span);
        if (x->arena) tvmaf_cuda_gpu_free(t->gpu, x->arena, x->arena_size);
        if (x->host) tvmaf_cuda_host_free(x->host);
        if (x->stream) tvmaf_cuda_stream_destroy(x->stream);
        tvmaf_cuda_pop(x->dev);
    }
    if (x->mod) tvmaf_cuda_module_unload(x->mod);
    tvmaf_cuda_release(x->dev);
    memset(x, 0, sizeof(*x));
}

static const TvmafPicture *ref_picture(const TvmafDeviceFrame *f, uint64_t *serial)
{
    *serial = f->ref_serial;
    return f->ref_pic;
}

static int ref_area(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, uint64_t *addr,
                    bool *fill)
{
    CUdeviceptr a = 0;
    int err = tvmaf_cuda_frame_ref_derived(f, slot, ((CudaXs *)t->xs)->stream, &a, fill);
    *addr = a;
    return err;
}

static int ref_area_done(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, bool ok)
{
    return tvmaf_cuda_frame_ref_derived_done(f, slot, ((CudaXs *)t->xs)->stream, ok);
}

const TvdExec tvd_exec_cuda = {
    .backend = TVMAF_BACKEND_CUDA,
    .name = "cuda",
    .xs_size = sizeof(CudaXs),
    TVD_EXEC_OPS,
    .last_error = tvmaf_cuda_last_error,
    .shares_reference = tvmaf_cuda_gpu_shares_reference,
    .ref_picture = ref_picture,
    .count_shared = tvmaf_cuda_frame_count_host_result,
    .ref_slot = tvmaf_cuda_gpu_ref_derived,
    .ref_area = ref_area,
    .ref_area_done = ref_area_done,
};
