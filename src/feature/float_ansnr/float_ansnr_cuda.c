/*
 * float_ansnr twin, host side: float_ansnr.cu converts and filters the luma
 * planes and adds each row (the CPU's per-row float sums, left to right);
 * the host reads the rows' sums back, adds them top to bottom in float
 * (fansnr_frame_add, as the CPU) and reports with the CPU extractor's code.
 * The filter taps are the host's own float arrays, uploaded once.
 */
#include <errno.h>

#include "feature/float_ansnr/float_ansnr_math.h"
#include "feature/float_ansnr/float_ansnr_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_ansnr_fatbin[];

enum { FN_CONVERT8, FN_CONVERT16, FN_FILTER, FN_ROWS };
static const char *const fn_names[] = { "float_ansnr_convert_8", "float_ansnr_convert_16",
                                        "float_ansnr_filter", "float_ansnr_rows", NULL };

typedef struct FloatAnsnrCuda {
    FloatAnsnrSetup p;
    TvmafCudaTwin t;
    CUdeviceptr d_planes;           /* fref, fdis, rf, df: w x h floats each */
    CUdeviceptr d_ref_taps, d_dis_taps;
    CUdeviceptr d_sums;             /* 2 x h floats */
    float *h_sums;                  /* page-locked */
} FloatAnsnrCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatAnsnrCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatAnsnrCuda *s = priv;
    int err = tvmaf_float_ansnr_setup(&s->p, vi, msg, len);
    if (err) return err;
    const size_t plane = sizeof(float) * (size_t)s->p.w * (size_t)s->p.h;
    const size_t sums = sizeof(float) * 2 * (size_t)s->p.h;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_ansnr", tvmaf_float_ansnr_fatbin,
                                    fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_planes, 4 * plane, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_ref_taps, sizeof(fansnr_ref_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_ref_taps, fansnr_ref_taps,
                                      sizeof(fansnr_ref_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_dis_taps, sizeof(fansnr_dis_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_dis_taps, fansnr_dis_taps,
                                      sizeof(fansnr_dis_taps), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_sums, sums, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_sums, sums, msg, len)))
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
    FloatAnsnrCuda *s = priv;
    if (f->n_planes < 1) return -EINVAL;
    const unsigned w = (unsigned)s->p.w, h = (unsigned)s->p.h;
    const size_t plane = sizeof(float) * (size_t)w * h;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    CUdeviceptr fref = s->d_planes, fdis = fref + plane, rf = fdis + plane, df = rf + plane;
    size_t pitch = f->pitch[0];
    unsigned uw = w, uh = h;
    void *conv_args[] = { &r, &d, &pitch, &pitch, &uw, &uh, &s->p.divisor, &fref, &fdis };
    void *filt_args[] = { &fref, &fdis, &s->p.w, &s->p.h, &s->d_ref_taps, &s->d_dis_taps, &rf,
                          &df };
    void *rows_args[] = { &rf, &df, &s->p.w, &s->p.h, &s->d_sums };
    const unsigned gx = (w + FANSNR_BLOCK_W - 1) / FANSNR_BLOCK_W;
    const unsigned gy = FANSNR_GRID_Y(h);
    err = tvmaf_cuda_twin_launch(&s->t, s->p.bpc == 8 ? FN_CONVERT8 : FN_CONVERT16, gx, gy,
                                 FANSNR_BLOCK_W, FANSNR_BLOCK_H, conv_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_FILTER, gx, gy, FANSNR_BLOCK_W, FANSNR_BLOCK_H,
                                     filt_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_ROWS, (h + FANSNR_ROW_THREADS - 1) /
                                     FANSNR_ROW_THREADS, 1, FANSNR_ROW_THREADS, 1, rows_args);
    if (!err)
        err = tvmaf_cuda_copy_d2h(s->h_sums, s->d_sums, sizeof(float) * 2 * h, s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    float sig = 0.0f, noise = 0.0f;
    for (unsigned y = 0; y < h; y++)
        fansnr_frame_add(&sig, &noise, s->h_sums[2 * y], s->h_sums[2 * y + 1]);
    return tvmaf_float_ansnr_report(&s->p, sig, noise, index, sink);
}

static const char *const provided[] = { "float_ansnr", "float_anpsnr", NULL };

const TvmafExtractor tvmaf_fex_float_ansnr_cuda = {
    .name = "float_ansnr",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(FloatAnsnrCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
