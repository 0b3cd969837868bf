/*
 * float_ms_ssim twin, host side: float_ms_ssim.cu builds both five-scale
 * pyramids, every scale's SSIM windows and their running sums of l, c and s
 * on the device (one upload of the luma planes, nothing in between); the host
 * reads back the 15 sums and finishes with the CPU extractor's code (the
 * means, pow, log10). The Gaussian taps and the low-pass are the host's own
 * floats, uploaded once.
 */
#include <errno.h>

#include "feature/float_ms_ssim/float_ms_ssim_math.h"
#include "feature/float_ms_ssim/float_ms_ssim_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_ms_ssim_fatbin[];

enum { FN_LOAD8, FN_LOAD16, FN_DOWN, FN_ROWS, FN_WINDOWS, FN_SUMS };
static const char *const fn_names[] = { "float_ms_ssim_load_8", "float_ms_ssim_load_16",
                                        "float_ms_ssim_down", "float_ms_ssim_rows",
                                        "float_ms_ssim_windows", "float_ms_ssim_sums", NULL };

#define N_SUMS (MS_SSIM_SCALES * MS_SSIM_TERMS)

typedef struct FloatMsSsimCuda {
    FloatMsSsimParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    MsSsimSumLayout lay;
    CUdeviceptr d_pyr;             /* per scale: ref, then dis, w x h floats each */
    size_t pyr_off[MS_SSIM_SCALES]; /* bytes to a scale's ref plane */
    CUdeviceptr d_rows;            /* 5 x (w - 10) x h of scale 0, reused by each scale */
    CUdeviceptr d_l, d_c, d_s;     /* every scale's windows, at lay.off */
    CUdeviceptr d_taps, d_lpf, d_sums;
    double *h_sums;                /* page-locked: sums[scale * 3 + term] */
} FloatMsSsimCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatMsSsimCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatMsSsimCuda *s = priv;
    FloatMsSsimParams *p = &s->p;
    int err = tvmaf_float_ms_ssim_setup(p, vi, msg, len);
    if (err) return err;
    size_t pyr = 0, nwin = 0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        s->pyr_off[i] = pyr;
        pyr += 2 * sizeof(float) * (size_t)p->w[i] * (size_t)p->h[i];
        s->lay.off[i] = nwin;
        s->lay.n[i] = ms_ssim_n_windows(p->w[i], p->h[i]);
        nwin += (size_t)s->lay.n[i];
    }
    const size_t rows = 5 * sizeof(float) * (size_t)(p->w[0] - SSIM_WIN + 1) * (size_t)p->h[0];
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_ms_ssim", tvmaf_float_ms_ssim_fatbin,
                                    fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_pyr, pyr, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, rows, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_l, sizeof(double) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_c, sizeof(double) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_s, sizeof(float) * nwin, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_sums, sizeof(double) * N_SUMS, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_taps, sizeof(ssim_win_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_taps, ssim_win_taps, sizeof(ssim_win_taps),
                                      msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_lpf, sizeof(ms_ssim_lpf), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_lpf, ms_ssim_lpf, sizeof(ms_ssim_lpf), msg,
                                      len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_sums, sizeof(double) * N_SUMS,
                                          msg, len)))
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

#define GX(n) (((unsigned)(n) + SSIM_BLOCK_W - 1) / SSIM_BLOCK_W)
#define GY(n) SSIM_GRID_Y((unsigned)(n))

static int launch_all(FloatMsSsimCuda *s, const TvmafDeviceFrame *f)
{
    const FloatMsSsimParams *p = &s->p;
    CUdeviceptr img0[MS_SSIM_SCALES], img1[MS_SSIM_SCALES];
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        img0[i] = s->d_pyr + s->pyr_off[i];
        img1[i] = img0[i] + sizeof(float) * (size_t)p->w[i] * (size_t)p->h[i];
    }
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    size_t pitch = f->pitch[0];
    int w = p->w[0], h = p->h[0];
    float divisor = ssim_hbd_divisor(p->bpc);
    void *load_args[] = { &r, &d, &pitch, &w, &h, &divisor, &img0[0], &img1[0] };
    int err = tvmaf_cuda_twin_launch(&s->t, p->bpc == 8 ? FN_LOAD8 : FN_LOAD16, GX(w), GY(h),
                                     SSIM_BLOCK_W, SSIM_BLOCK_H, load_args);
    for (int i = 1; i < MS_SSIM_SCALES && !err; i++) {
        int sw = p->w[i - 1], sh = p->h[i - 1], dw = p->w[i], dh = p->h[i];
        void *args[] = { &img0[i - 1], &img1[i - 1], &sw, &sh, &s->d_lpf,
                         &img0[i],     &img1[i],     &dw, &dh };
        err = tvmaf_cuda_twin_launch(&s->t, FN_DOWN, GX(dw), GY(dh), SSIM_BLOCK_W, SSIM_BLOCK_H,
                                     args);
    }
    for (int i = 0; i < MS_SSIM_SCALES && !err; i++) {
        int sw = p->w[i], sh = p->h[i], ow = sw - SSIM_WIN + 1, oh = sh - SSIM_WIN + 1;
        size_t rows_n = (size_t)ow * (size_t)sh;
        CUdeviceptr l = s->d_l + sizeof(double) * (size_t)s->lay.off[i];
        CUdeviceptr c = s->d_c + sizeof(double) * (size_t)s->lay.off[i];
        CUdeviceptr sv = s->d_s + sizeof(float) * (size_t)s->lay.off[i];
        void *rows_args[] = { &img0[i], &img1[i], &sw, &sh, &s->d_taps, &s->d_rows, &rows_n };
        void *win_args[] = { &s->d_rows, &rows_n, &ow, &oh, &s->d_taps, &l, &c, &sv };
        err = tvmaf_cuda_twin_launch(&s->t, FN_ROWS, GX(ow), GY(sh), SSIM_BLOCK_W, SSIM_BLOCK_H,
                                     rows_args);
        if (!err)
            err = tvmaf_cuda_twin_launch(&s->t, FN_WINDOWS, GX(ow), GY(oh), SSIM_BLOCK_W,
                                         SSIM_BLOCK_H, win_args);
    }
    void *sum_args[] = { &s->d_l, &s->d_c, &s->d_s, &s->lay, &s->d_sums };
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_SUMS, N_SUMS, 1, MS_SSIM_SUM_THREADS, 1, sum_args);
    if (!err)
        err = tvmaf_cuda_copy_d2h(s->h_sums, s->d_sums, sizeof(double) * N_SUMS, s->t.stream);
    return err;
}

#undef GX
#undef GY

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    FloatMsSsimCuda *s = priv;
    if (f->n_planes < 1) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    if ((err = tvmaf_cuda_twin_end(&s->t, launch_all(s, f)))) return err;
    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], sv[MS_SSIM_SCALES];
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        const double *sum = s->h_sums + MS_SSIM_TERMS * i;
        l[i] = ssim_mean(sum[0], s->lay.n[i]);
        c[i] = ssim_mean(sum[1], s->lay.n[i]);
        sv[i] = ssim_mean(sum[2], s->lay.n[i]);
    }
    return tvmaf_float_ms_ssim_report(&s->p, l, c, sv, index, sink);
}

static const char *const provided[] = { "float_ms_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ms_ssim_cuda = {
    .name = "float_ms_ssim",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_float_ms_ssim_options,
    .priv_size = sizeof(FloatMsSsimCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
