/*
 * psnr twin, host side: on the frame's device copy (the context uploads it
 * once for every twin), runs psnr.cu's per-plane SSE
 * kernels and finishes with the CPU extractor's own code (tvmaf_psnr_report),
 * so everything after the integer SSE is literally the same.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "feature/psnr/psnr_plane.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/twin_frame.h"

extern const unsigned char tvmaf_psnr_fatbin[];

typedef struct PsnrCuda {
    PsnrParams p; /* first: the option table's offsets point into it */
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    CUfunction sse8, sse16;
    CUstream stream;
    TvmafCudaSpan span;
    CUdeviceptr d_sse;          /* 3 x uint64 */
    unsigned long long *h_sse;  /* pinned */
    unsigned bpc;
} PsnrCuda;

static void close_twin(void *priv)
{
    PsnrCuda *s = priv;
    if (!s->dev) return;
    tvmaf_cuda_push(s->dev);
    tvmaf_cuda_span_destroy(&s->span);
    tvmaf_cuda_mem_free(s->d_sse);
    tvmaf_cuda_host_free(s->h_sse);
    tvmaf_cuda_stream_destroy(s->stream);
    tvmaf_cuda_pop(s->dev);
    tvmaf_cuda_module_unload(s->mod);
    tvmaf_cuda_release(s->dev);
    s->dev = NULL;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    PsnrCuda *s = priv;
    int err = tvmaf_psnr_params_init(&s->p, vi);
    if (err) return err;
    s->bpc = vi->bpc;
    if ((err = tvmaf_cuda_acquire(&s->dev, msg, len))) return err;
    if ((err = tvmaf_cuda_module_load(s->dev, tvmaf_psnr_fatbin, &s->mod, msg, len))) goto fail;
    if ((err = tvmaf_cuda_module_function(s->mod, "psnr_sse_8", &s->sse8)) ||
        (err = tvmaf_cuda_module_function(s->mod, "psnr_sse_16", &s->sse16)))
        goto fail_msg;
    if ((err = tvmaf_cuda_push(s->dev))) goto fail_msg;
    err = tvmaf_cuda_stream_create(&s->stream);
    if (!err) err = tvmaf_cuda_span_init(&s->span);
    if (!err) err = tvmaf_cuda_mem_alloc(&s->d_sse, 3 * sizeof(unsigned long long));
    if (!err) err = tvmaf_cuda_host_alloc((void **)&s->h_sse, 3 * sizeof(unsigned long long));
    tvmaf_cuda_pop(s->dev);
    if (err) goto fail_msg;
    return 0;
fail_msg:
    snprintf(msg, len, "feature \"psnr\" (cuda): %s", tvmaf_cuda_last_error());
fail:
    close_twin(s);
    return err;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    PsnrCuda *s = priv;
    (void)ref;
    (void)dis;
    const TvmafTwinFrame *f = tvmaf_twin_frame_of(sink);
    if (!f || f->n_planes < s->p.n_planes) return -EINVAL;
    int err = tvmaf_cuda_push(s->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(s->stream, f->ready);
    if (!err) err = tvmaf_cuda_span_begin(&s->span, s->stream);
    if (!err) err = tvmaf_cuda_memset(s->d_sse, 0, 3 * sizeof(unsigned long long), s->stream);
    for (unsigned p = 0; p < s->p.n_planes && !err; p++) {
        CUdeviceptr r = f->d_ref[p], d = f->d_dis[p], t = s->d_sse + p * 8;
        size_t pitch = f->pitch[p];
        unsigned w = s->p.pw[p];
        void *args[] = { &r, &d, &pitch, &pitch, &w, &t };
        err = tvmaf_cuda_launch(s->bpc == 8 ? s->sse8 : s->sse16, s->p.ph[p], 1, 1, 256, 1, 1, 0,
                                s->stream, args);
    }
    if (!err) err = tvmaf_cuda_span_end(&s->span, s->stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_sse, s->d_sse, 3 * sizeof(unsigned long long), s->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(s->stream);
    if (!err) err = tvmaf_cuda_span_add(&s->span, "psnr");
    tvmaf_cuda_pop(s->dev);
    if (err) return err;
    const uint64_t sse[3] = { s->h_sse[0], s->h_sse[1], s->h_sse[2] };
    return tvmaf_psnr_report(&s->p, sse, index, sink);
}

static int merge(void *dst, const void *src)
{
    return tvmaf_psnr_merge(&((PsnrCuda *)dst)->p, &((const PsnrCuda *)src)->p);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_psnr_flush(&((PsnrCuda *)priv)->p, sink);
}

static const char *const provided[] = { "psnr_y", "psnr_cb", "psnr_cr", NULL };

const TvmafExtractor tvmaf_fex_psnr_cuda = {
    .name = "psnr",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_psnr_options,
    .priv_size = sizeof(PsnrCuda),
    .flags = TVMAF_FEX_ALL_FRAMES,
    .init = init,
    .extract = extract,
    .merge = merge,
    .flush = flush,
    .close = close_twin,
    .provided_features = provided,
};
