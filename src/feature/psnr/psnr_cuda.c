/*
 * psnr twin, host side: on the frame's device copy (uploaded once for every
 * twin by the backend), runs psnr.cu's per-plane SSE kernels and finishes
 * with the CPU extractor's own code (tvmaf_psnr_report), so everything after
 * the integer SSE is literally the same.
 */
#include <errno.h>

#include "feature/psnr/psnr_math.h"
#include "feature/psnr/psnr_plane.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_psnr_fatbin[];

enum { FN_SSE8, FN_SSE16 };
static const char *const fn_names[] = { "psnr_sse_8", "psnr_sse_16", NULL };

typedef struct PsnrCuda {
    PsnrParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    CUdeviceptr d_sse;          /* 3 x uint64 */
    unsigned long long *h_sse;  /* page-locked */
    unsigned bpc;
} PsnrCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((PsnrCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    PsnrCuda *s = priv;
    int err = tvmaf_psnr_params_init(&s->p, vi);
    if (err) return err;
    s->bpc = vi->bpc;
    const size_t bytes = 3 * sizeof(unsigned long long);
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "psnr", tvmaf_psnr_fatbin, fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_sse, bytes, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_sse, bytes, msg, len)))
        return err;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init
 * releases what it holds (the twin base's close takes a partial set-up). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    PsnrCuda *s = priv;
    if (f->n_planes < s->p.n_planes) return -EINVAL;
    const size_t bytes = 3 * sizeof(unsigned long long);
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    err = tvmaf_cuda_memset(s->d_sse, 0, bytes, s->t.stream);
    for (unsigned p = 0; p < s->p.n_planes && !err; p++) {
        CUdeviceptr r = f->d_ref[p], d = f->d_dis[p], t = s->d_sse + p * 8;
        size_t pitch = f->pitch[p];
        unsigned w = s->p.pw[p];
        void *args[] = { &r, &d, &pitch, &pitch, &w, &t };
        err = tvmaf_cuda_twin_launch(&s->t, s->bpc == 8 ? FN_SSE8 : FN_SSE16, PSNR_GRID_X(s->p.ph[p]), 1,
                                     PSNR_THREADS, 1, args);
    }
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_sse, s->d_sse, bytes, s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
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
    .init_device = init,
    .extract_device = extract,
    .merge = merge,
    .flush = flush,
    .close = close_twin,
    .provided_features = provided,
};
