/*
 * float_psnr twin, host side: float_psnr.cu makes the luma plane's double
 * noise sum on the device (the CPU's value exactly: float_psnr_math.h,
 * "Exact double sums"); the host reads that one double back and scores it
 * with the CPU extractor's own code (tvmaf_float_psnr_report).
 */
#include <errno.h>

#include "feature/float_psnr/float_psnr_math.h"
#include "feature/float_psnr/float_psnr_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_psnr_fatbin[];

enum { FN_ROWS, FN_FINISH };
static const char *const fn_names[] = { "float_psnr_rows", "float_psnr_finish", NULL };

typedef struct FloatPsnrCuda {
    FloatPsnrSetup p;
    TvmafCudaTwin t;
    CUdeviceptr d_rows;  /* h x uint64: each row's units */
    CUdeviceptr d_noise; /* one double */
    double *h_noise;     /* page-locked */
} FloatPsnrCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatPsnrCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatPsnrCuda *s = priv;
    int err = tvmaf_float_psnr_setup(&s->p, vi, msg, len);
    if (err) return err;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_psnr", tvmaf_float_psnr_fatbin, fn_names,
                                    msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, sizeof(uint64_t) * s->p.h, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_noise, sizeof(double), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_noise, sizeof(double), msg, len)))
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
    FloatPsnrCuda *s = priv;
    if (f->n_planes < 1) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    size_t pitch = f->pitch[0];
    unsigned long long limit = FPIC_UNITS_EXACT;
    void *rows_args[] = { &r, &d, &pitch, &pitch, &s->p.w, &s->p.bpc, &s->p.divisor, &limit,
                          &s->d_rows };
    void *fin_args[] = { &r, &d, &pitch, &pitch, &s->p.w, &s->p.h, &s->p.bpc, &s->p.divisor,
                         &limit, &s->d_rows, &s->d_noise };
    err = tvmaf_cuda_twin_launch(&s->t, FN_ROWS, s->p.h, 1, FPIC_THREADS, 1, rows_args);
    if (!err) err = tvmaf_cuda_twin_launch(&s->t, FN_FINISH, 1, 1, 32, 1, fin_args);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_noise, s->d_noise, sizeof(double), s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    return tvmaf_float_psnr_report(&s->p, *s->h_noise, index, sink);
}

static const char *const provided[] = { "float_psnr", NULL };

const TvmafExtractor tvmaf_fex_float_psnr_cuda = {
    .name = "float_psnr",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(FloatPsnrCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
