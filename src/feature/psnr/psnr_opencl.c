/*
 * psnr twin on OpenCL, host side: on the frame's device copy, runs psnr.cl's
 * per-row SSE kernels, adds the rows of each plane (integers: exact) and
 * finishes with the CPU extractor's own code (tvmaf_psnr_report).
 */
#include <errno.h>
#include <stdlib.h>

#include "feature/psnr/psnr_math.h"
#include "feature/psnr/psnr_plane.h"
#include "gpu/opencl/opencl_twin.h"

extern const char tvmaf_psnr_cl[];

enum { FN_SSE8, FN_SSE16 };
static const char *const fn_names[] = { "psnr_sse_8", "psnr_sse_16", NULL };

typedef struct PsnrOpencl {
    PsnrParams p; /* first: the option table's offsets point into it */
    TvmafOpenclTwin t;
    cl_mem d_rows;       /* one uint64 per row of every plane */
    cl_ulong *h_rows;
    unsigned rows;       /* rows of every plane */
    unsigned bpc;
} PsnrOpencl;

static void close_twin(void *priv)
{
    PsnrOpencl *s = priv;
    tvmaf_opencl_twin_close(&s->t);
    free(s->h_rows);
    s->h_rows = NULL;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                     size_t len)
{
    PsnrOpencl *s = priv;
    int err = tvmaf_psnr_params_init(&s->p, vi);
    if (err) return err;
    s->bpc = vi->bpc;
    s->rows = 0;
    for (unsigned p = 0; p < s->p.n_planes; p++) s->rows += s->p.ph[p];
    const size_t bytes = (size_t)s->rows * sizeof(cl_ulong);
    if ((err = tvmaf_opencl_twin_open(&s->t, gpu, "psnr", tvmaf_psnr_cl, NULL, fn_names, msg,
                                      len)) ||
        (err = tvmaf_opencl_twin_alloc(&s->t, &s->d_rows, bytes, msg, len)))
        return err;
    if (!(s->h_rows = malloc(bytes))) return -ENOMEM;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init releases
 * what it holds itself (device buffers keep the OpenCL context alive). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    PsnrOpencl *s = priv;
    if (f->n_planes < s->p.n_planes) return -EINVAL;
    const unsigned fn = s->bpc == 8 ? FN_SSE8 : FN_SSE16;
    int err = tvmaf_opencl_twin_begin(&s->t, f);
    cl_uint row0 = 0;
    for (unsigned p = 0; p < s->p.n_planes && !err; p++) {
        cl_ulong pitch = f->pitch[p];
        cl_uint w = s->p.pw[p];
        const TvmafClArg args[] = { TVMAF_CL_ARG(f->buf), TVMAF_CL_ARG(f->off_ref[p]),
                                    TVMAF_CL_ARG(f->off_dis[p]), TVMAF_CL_ARG(pitch),
                                    TVMAF_CL_ARG(w), TVMAF_CL_ARG(s->d_rows),
                                    TVMAF_CL_ARG(row0) };
        err = tvmaf_opencl_twin_args(&s->t, fn, 7, args);
        if (!err)
            err = tvmaf_opencl_twin_launch(&s->t, fn, PSNR_THREADS,
                                           PSNR_GRID_X(s->p.ph[p]), PSNR_THREADS, 1);
        row0 += s->p.ph[p];
    }
    if (!err) err = tvmaf_opencl_twin_read(&s->t, s->h_rows, s->d_rows,
                                           (size_t)s->rows * sizeof(cl_ulong));
    if ((err = tvmaf_opencl_twin_end(&s->t, err))) return err;
    uint64_t sse[3] = { 0, 0, 0 };
    const cl_ulong *r = s->h_rows;
    for (unsigned p = 0; p < s->p.n_planes; p++)
        for (unsigned y = 0; y < s->p.ph[p]; y++) sse[p] += *r++;
    return tvmaf_psnr_report(&s->p, sse, index, sink);
}

static int merge(void *dst, const void *src)
{
    return tvmaf_psnr_merge(&((PsnrOpencl *)dst)->p, &((const PsnrOpencl *)src)->p);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_psnr_flush(&((PsnrOpencl *)priv)->p, sink);
}

static const char *const provided[] = { "psnr_y", "psnr_cb", "psnr_cr", NULL };

const TvmafExtractor tvmaf_fex_psnr_opencl = {
    .name = "psnr",
    .backend = TVMAF_BACKEND_OPENCL,
    .options = tvmaf_psnr_options,
    .priv_size = sizeof(PsnrOpencl),
    .flags = TVMAF_FEX_ALL_FRAMES,
    .init_device = init,
    .extract_device = extract,
    .merge = merge,
    .flush = flush,
    .close = close_twin,
    .provided_features = provided,
};
