/*
 * float_ssim twin, host side: float_ssim.cu loads, down-samples and filters
 * the luma planes and computes every window's l, c and s on the device; the
 * host reads the windows back, adds them in raster order (ssim_sums_add, the
 * CPU's four running doubles) and reports with the CPU extractor's code.
 * The Gaussian taps and the box are the host's own floats, uploaded once.
 */
#include <errno.h>

#include "feature/float_ssim/float_ssim_math.h"
#include "feature/float_ssim/float_ssim_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_ssim_fatbin[];

enum { FN_LOAD8, FN_LOAD16, FN_DOWN, FN_PRODUCTS, FN_ROWS, FN_WINDOWS };
static const char *const fn_names[] = { "float_ssim_load_8", "float_ssim_load_16",
                                        "float_ssim_down", "float_ssim_products",
                                        "float_ssim_rows", "float_ssim_windows", NULL };

typedef struct FloatSsimCuda {
    FloatSsimParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    CUdeviceptr d_full;    /* factor > 1: the loaded planes, 2 x w x h */
    CUdeviceptr d_five;    /* 5 x sw x sh: ref, dis, r*r, d*d, r*d */
    CUdeviceptr d_rows;    /* 5 x ow x sh */
    CUdeviceptr d_l, d_c, d_s;
    CUdeviceptr d_taps, d_box;
    double *h_l, *h_c;     /* page-locked, ow x oh */
    float *h_s;
} FloatSsimCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatSsimCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatSsimCuda *s = priv;
    FloatSsimParams *p = &s->p;
    int err = tvmaf_float_ssim_setup(p, vi, msg, len);
    if (err) return err;
    const size_t full = (size_t)p->w * (size_t)p->h, small = (size_t)p->sw * (size_t)p->sh;
    const size_t ow = (size_t)(p->sw - SSIM_WIN + 1), oh = (size_t)(p->sh - SSIM_WIN + 1);
    const size_t nwin = ow * oh;
    const size_t box = sizeof(float) * (size_t)p->factor * (size_t)p->factor;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_ssim", tvmaf_float_ssim_fatbin, fn_names,
                                    msg, len)) ||
        (p->factor > 1 &&
         (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_full, 2 * sizeof(float) * full, msg, len))) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_five, 5 * sizeof(float) * small, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, 5 * sizeof(float) * ow * (size_t)p->sh,
                                     msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_l, sizeof(double) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_c, sizeof(double) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_s, sizeof(float) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_taps, sizeof(ssim_win_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_taps, ssim_win_taps, sizeof(ssim_win_taps),
                                      msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_box, box, msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_box, p->box, box, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_l, sizeof(double) * nwin, msg,
                                          len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_c, sizeof(double) * nwin, msg,
                                          len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_s, sizeof(float) * nwin, msg,
                                          len)))
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
    FloatSsimCuda *s = priv;
    FloatSsimParams *p = &s->p;
    if (f->n_planes < 1) return -EINVAL;
    int w = p->w, h = p->h, sw = p->sw, sh = p->sh, fct = p->factor;
    int ow = sw - SSIM_WIN + 1, oh = sh - SSIM_WIN + 1;
    size_t small = (size_t)sw * (size_t)sh, rows_n = (size_t)ow * (size_t)sh;
    const size_t nwin = (size_t)ow * (size_t)oh;
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    size_t pitch = f->pitch[0];
    float divisor = ssim_hbd_divisor(p->bpc);
    CUdeviceptr img0 = fct > 1 ? s->d_full : s->d_five;
    CUdeviceptr img1 = fct > 1 ? s->d_full + sizeof(float) * (size_t)w * (size_t)h
                               : s->d_five + sizeof(float) * small;
    CUdeviceptr five0 = s->d_five, five1 = s->d_five + sizeof(float) * small;
    void *load_args[] = { &r, &d, &pitch, &pitch, &w, &h, &divisor, &img0, &img1 };
    void *down_args[] = { &img0, &img1, &w, &h, &fct, &s->d_box, &five0, &five1, &sw, &sh };
    void *prod_args[] = { &s->d_five, &small, &sw, &sh };
    void *rows_args[] = { &s->d_five, &small, &sw, &sh, &s->d_taps, &s->d_rows, &rows_n };
    void *win_args[] = { &s->d_rows, &rows_n, &ow, &oh, &s->d_taps, &s->d_l, &s->d_c, &s->d_s };
#define GX(n) (((unsigned)(n) + SSIM_BLOCK_W - 1) / SSIM_BLOCK_W)
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    err = tvmaf_cuda_twin_launch(&s->t, p->bpc == 8 ? FN_LOAD8 : FN_LOAD16, GX(w),
                                 SSIM_GRID_Y((unsigned)h), SSIM_BLOCK_W, SSIM_BLOCK_H, load_args);
    if (!err && fct > 1)
        err = tvmaf_cuda_twin_launch(&s->t, FN_DOWN, GX(sw), SSIM_GRID_Y((unsigned)sh),
                                     SSIM_BLOCK_W, SSIM_BLOCK_H, down_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_PRODUCTS, GX(sw), SSIM_GRID_Y((unsigned)sh),
                                     SSIM_BLOCK_W, SSIM_BLOCK_H, prod_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_ROWS, GX(ow), SSIM_GRID_Y((unsigned)sh),
                                     SSIM_BLOCK_W, SSIM_BLOCK_H, rows_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_WINDOWS, GX(ow), SSIM_GRID_Y((unsigned)oh),
                                     SSIM_BLOCK_W, SSIM_BLOCK_H, win_args);
#undef GX
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_l, s->d_l, sizeof(double) * nwin, s->t.stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_c, s->d_c, sizeof(double) * nwin, s->t.stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_s, s->d_s, sizeof(float) * nwin, s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (size_t i = 0; i < nwin; i++)
        ssim_sums_add(&sums, ssim_lcs_make(s->h_l[i], s->h_c[i], s->h_s[i]));
    float m[4];
    ssim_means(&sums, (int)nwin, m);
    return tvmaf_float_ssim_report(p, m, index, sink);
}

static const char *const provided[] = { "float_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ssim_cuda = {
    .name = "float_ssim",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_float_ssim_options,
    .priv_size = sizeof(FloatSsimCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
