/*
 * ciede twin on OpenCL, host side: the device computes every pixel's dE00 on
 * fp32 pairs (ciede.cl with ciede_pair.h; no fp64 needed), the plane is read
 * back and added here in raster order with ciede_sum_raster(), the CPU's sum,
 * then scored by ciede_score().
 *
 * The reference's double constants for the input's bit depth are made here
 * (ciede_pair_constants) and uploaded once; so is the table that makes the
 * device's powf(x, 7) the build host's glibc's (numerics/powf_table.h), after
 * the check that the running glibc is that one (as the CUDA twin does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_pair.h"
#include "feature/ciede/ciede_plane.h"
#include "gpu/opencl/opencl_twin.h"
#include "numerics/powf_table.h"

extern const char tvmaf_ciede_cl[];

enum { FN_DE8, FN_DE16 };
static const char *const fn_names[] = { "ciede_de00_8", "ciede_de00_16", NULL };

typedef struct CiedeOpencl {
    TvmafOpenclTwin t;
    cl_mem d_de, d_k, d_powf7;
    float *h_de; /* w * h */
    cl_uint w, h, cw, ch, n_powf7;
    cl_int layout;
    unsigned bpc;
} CiedeOpencl;

static void close_twin(void *priv)
{
    CiedeOpencl *s = priv;
    tvmaf_opencl_twin_close(&s->t);
    free(s->h_de);
    s->h_de = NULL;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    CiedeOpencl *s = priv;
    int err = tvmaf_ciede_check(vi, msg, len);
    if (err) return err;
    unsigned pw[3], ph[3];
    tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph);
    s->w = vi->w; s->h = vi->h; s->cw = pw[1]; s->ch = ph[1]; s->bpc = vi->bpc;
    s->layout = tvmaf_ciede_layout(vi->pix_fmt);
    /* the pairs' operations and the reference's own float divisions need
     * correctly rounded float division and square root (OpenCL 1.2 allows
     * 2.5 and 3 ulp without -cl-fp32-correctly-rounded-divide-sqrt) */
    const TvmafClDeviceInfo *dev = tvmaf_opencl_gpu_device(gpu);
    if (!dev->cr_divide_sqrt) {
        snprintf(msg, len, "feature \"ciede\" (opencl): %s has no correctly rounded float "
                 "division and square root (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT); its results "
                 "would not be the CPU's", dev->name);
        return -ENOTSUP;
    }
    char why[384];
    if ((err = tvmaf_powf7_table_check(4096, why, sizeof(why)))) {
        snprintf(msg, len, "feature \"ciede\" (opencl): %s", why);
        return err;
    }
    CiedePairK k;
    ciede_pair_constants(&k, s->bpc);
    s->n_powf7 = tvmaf_powf7_table_n;
    const size_t bytes = sizeof(float) * s->w * s->h;
    /* (an empty table is generated as one unused element) */
    const size_t tab_bytes = sizeof(uint32_t) * (tvmaf_powf7_table_n ? tvmaf_powf7_table_n : 1);
    if ((err = tvmaf_opencl_twin_open(&s->t, gpu, "ciede", tvmaf_ciede_cl, NULL, fn_names, msg,
                                      len)) ||
        (err = tvmaf_opencl_twin_alloc(&s->t, &s->d_k, sizeof(k), msg, len)) ||
        (err = tvmaf_opencl_twin_upload(&s->t, s->d_k, &k, sizeof(k), msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&s->t, &s->d_powf7, tab_bytes, msg, len)) ||
        (err = tvmaf_opencl_twin_upload(&s->t, s->d_powf7, tvmaf_powf7_table, tab_bytes, msg,
                                        len)) ||
        (err = tvmaf_opencl_twin_alloc(&s->t, &s->d_de, bytes, msg, len)))
        return err;
    if (!(s->h_de = malloc(bytes))) return -ENOMEM;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init releases
 * what it holds itself. */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    CiedeOpencl *s = priv;
    if (f->n_planes < 3) return -EINVAL;
    const unsigned fn = s->bpc == 8 ? FN_DE8 : FN_DE16;
    cl_ulong luma_pitch = f->pitch[0], chroma_pitch = f->pitch[1];
    const TvmafClArg args[] = {
        TVMAF_CL_ARG(f->buf),        TVMAF_CL_ARG(f->off_ref[0]), TVMAF_CL_ARG(f->off_ref[1]),
        TVMAF_CL_ARG(f->off_ref[2]), TVMAF_CL_ARG(f->off_dis[0]), TVMAF_CL_ARG(f->off_dis[1]),
        TVMAF_CL_ARG(f->off_dis[2]), TVMAF_CL_ARG(luma_pitch),    TVMAF_CL_ARG(chroma_pitch),
        TVMAF_CL_ARG(s->w),          TVMAF_CL_ARG(s->h),          TVMAF_CL_ARG(s->cw),
        TVMAF_CL_ARG(s->ch),         TVMAF_CL_ARG(s->layout),     TVMAF_CL_ARG(s->d_k),
        TVMAF_CL_ARG(s->d_powf7),    TVMAF_CL_ARG(s->n_powf7),    TVMAF_CL_ARG(s->d_de),
    };
    int err = tvmaf_opencl_twin_begin(&s->t, f);
    if (!err) err = tvmaf_opencl_twin_args(&s->t, fn, sizeof(args) / sizeof(args[0]), args);
    if (!err) {
        const size_t gx = (s->w + CIEDE_PAIR_BLOCK_W - 1) / CIEDE_PAIR_BLOCK_W * CIEDE_PAIR_BLOCK_W;
        const size_t gy = (s->h + CIEDE_PAIR_BLOCK_H - 1) / CIEDE_PAIR_BLOCK_H * CIEDE_PAIR_BLOCK_H;
        err = tvmaf_opencl_twin_launch(&s->t, fn, gx, gy, CIEDE_PAIR_BLOCK_W, CIEDE_PAIR_BLOCK_H);
    }
    if (!err)
        err = tvmaf_opencl_twin_read(&s->t, s->h_de, s->d_de, sizeof(float) * s->w * s->h);
    if ((err = tvmaf_opencl_twin_end(&s->t, err))) return err;
    const double sum = ciede_sum_raster(s->h_de, s->w, s->h);
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, s->w, s->h));
}

static const char *const provided[] = { "ciede2000", NULL };

const TvmafExtractor tvmaf_fex_ciede_opencl = {
    .name = "ciede",
    .backend = TVMAF_BACKEND_OPENCL,
    .options = NULL,
    .priv_size = sizeof(CiedeOpencl),
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
