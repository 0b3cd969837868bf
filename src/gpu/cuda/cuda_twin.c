#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda_twin.h"

static int too_many(TvmafCudaTwin *t, const char *what, unsigned limit, char *msg, size_t len)
{
    snprintf(msg, len, "feature \"%s\" (cuda): more than %u %s (a limit of the twin base, "
             "cuda_twin.h)", t->feature, limit, what);
    return -EINVAL;
}

static int failed(TvmafCudaTwin *t, int err, char *msg, size_t len)
{
    const char *why = tvmaf_cuda_last_error();
    snprintf(msg, len, "feature \"%s\" (cuda): %s", t->feature,
             *why ? why : err == -ENOMEM ? "out of memory" : strerror(-err));
    return err;
}

int tvmaf_cuda_twin_open(TvmafCudaTwin *t, TvmafGpu *gpu, const char *feature,
                         const unsigned char *fatbin, const char *const *fn_names,
                         char *msg, size_t len)
{
    memset(t, 0, sizeof(*t));
    t->feature = feature;
    t->gpu = gpu;
    t->dev = tvmaf_cuda_gpu_device(gpu);
    tvmaf_cuda_retain(t->dev);
    char why[320] = "";
    int err = tvmaf_cuda_module_load(t->dev, fatbin, &t->mod, why, sizeof(why));
    if (err) {
        snprintf(msg, len, "feature \"%s\" (cuda): %s", feature, why);
        return err;
    }
    for (unsigned k = 0; fn_names[k]; k++) {
        if (k == TVMAF_CUDA_TWIN_MAX_FN)
            return too_many(t, "kernels", TVMAF_CUDA_TWIN_MAX_FN, msg, len);
        if ((err = tvmaf_cuda_module_function(t->mod, fn_names[k], &t->fn[k])))
            return failed(t, err, msg, len);
    }
    if ((err = tvmaf_cuda_push(t->dev))) return failed(t, err, msg, len);
    err = tvmaf_cuda_stream_create(&t->stream);
    if (!err) err = tvmaf_cuda_span_init(&t->span);
    tvmaf_cuda_pop(t->dev);
    return err ? failed(t, err, msg, len) : 0;
}

int tvmaf_cuda_twin_alloc(TvmafCudaTwin *t, CUdeviceptr *ptr, size_t size, char *msg,
                          size_t len)
{
    *ptr = 0;
    if (t->n_dbuf == TVMAF_CUDA_TWIN_MAX_BUF)
        return too_many(t, "device buffers", TVMAF_CUDA_TWIN_MAX_BUF, msg, len);
    int err = tvmaf_cuda_push(t->dev);
    if (err) return failed(t, err, msg, len);
    err = tvmaf_cuda_gpu_alloc(t->gpu, ptr, size);
    tvmaf_cuda_pop(t->dev);
    if (err) return failed(t, err, msg, len);
    t->dbuf[t->n_dbuf].ptr = *ptr;
    t->dbuf[t->n_dbuf++].size = size;
    return 0;
}

int tvmaf_cuda_twin_alloc_host(TvmafCudaTwin *t, void **ptr, size_t size, char *msg, size_t len)
{
    *ptr = NULL;
    if (t->n_hbuf == TVMAF_CUDA_TWIN_MAX_BUF)
        return too_many(t, "page-locked buffers", TVMAF_CUDA_TWIN_MAX_BUF, msg, len);
    int err = tvmaf_cuda_push(t->dev);
    if (err) return failed(t, err, msg, len);
    err = tvmaf_cuda_host_alloc(ptr, size);
    tvmaf_cuda_pop(t->dev);
    if (err) return failed(t, err, msg, len);
    t->hbuf[t->n_hbuf++] = *ptr;
    return 0;
}

int tvmaf_cuda_twin_upload(TvmafCudaTwin *t, CUdeviceptr dst, const void *src, size_t size,
                           char *msg, size_t len)
{
    int err = tvmaf_cuda_push(t->dev);
    if (err) return failed(t, err, msg, len);
    err = tvmaf_cuda_copy_h2d(dst, src, size, t->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(t->stream);
    tvmaf_cuda_pop(t->dev);
    return err ? failed(t, err, msg, len) : 0;
}

void tvmaf_cuda_twin_close(TvmafCudaTwin *t)
{
    if (!t->dev) return;
    if (!tvmaf_cuda_push(t->dev)) {
        if (t->stream) tvmaf_cuda_stream_synchronize(t->stream);
        tvmaf_cuda_span_destroy(&t->span);
        for (unsigned i = 0; i < t->n_dbuf; i++)
            tvmaf_cuda_gpu_free(t->gpu, t->dbuf[i].ptr, t->dbuf[i].size);
        for (unsigned i = 0; i < t->n_hbuf; i++) tvmaf_cuda_host_free(t->hbuf[i]);
        tvmaf_cuda_stream_destroy(t->stream);
        tvmaf_cuda_pop(t->dev);
    }
    if (t->mod) tvmaf_cuda_module_unload(t->mod);
    tvmaf_cuda_release(t->dev);
    memset(t, 0, sizeof(*t));
}

int tvmaf_cuda_twin_begin(TvmafCudaTwin *t, const TvmafDeviceFrame *frame)
{
    int err = tvmaf_cuda_push(t->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(t->stream, frame->ready);
    if (!err) err = tvmaf_cuda_span_begin(&t->span, t->stream);
    if (err) tvmaf_cuda_pop(t->dev);
    return err;
}

int tvmaf_cuda_twin_launch(TvmafCudaTwin *t, unsigned fn, unsigned grid_x, unsigned grid_y,
                           unsigned block_x, unsigned block_y, void **args)
{
    return tvmaf_cuda_launch(t->fn[fn], grid_x, grid_y, 1, block_x, block_y, 1, 0, t->stream,
                             args);
}

int tvmaf_cuda_twin_end(TvmafCudaTwin *t, int err)
{
    if (!err) err = tvmaf_cuda_span_end(&t->span, t->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(t->stream);
    if (!err) err = tvmaf_cuda_span_add(&t->span, t->feature);
    tvmaf_cuda_pop(t->dev);
    return err;
}
