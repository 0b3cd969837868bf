/*
 * float_moment twin, host side: float_moment.cu makes the four double sums
 * on the device (the CPU's values exactly: float_psnr_math.h, "Exact double
 * sums"); the host reads them back and reports them with the CPU extractor's
 * own code (tvmaf_float_moment_report).
 */
#include <errno.h>

#include "feature/float_moment/float_moment_math.h"
#include "feature/float_moment/float_moment_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_moment_fatbin[];

enum { FN_ROWS, FN_FINISH };
static const char *const fn_names[] = { "float_moment_rows", "float_moment_finish", NULL };

typedef struct FloatMomentCuda {
    FloatMomentSetup p;
    TvmafCudaTwin t;
    CUdeviceptr d_rows; /* h x FMOMENT_SLOTS x uint64 */
    CUdeviceptr d_sums; /* 4 doubles */
    double *h_sums;     /* page-locked */
} FloatMomentCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatMomentCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatMomentCuda *s = priv;
    int err = tvmaf_float_moment_setup(&s->p, vi, msg, len);
    if (err) return err;
    const size_t rows = sizeof(uint64_t) * FMOMENT_SLOTS * s->p.h;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_moment", tvmaf_float_moment_fatbin,
                                    fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, rows, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_sums, 4 * sizeof(double), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_sums, 4 * sizeof(double), msg,
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
    FloatMomentCuda *s = priv;
    if (f->n_planes < 1) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    size_t pitch = f->pitch[0];
    unsigned long long limit = FPIC_UNITS_EXACT;
    void *rows_args[] = { &r, &d, &pitch, &pitch, &s->p.w, &s->p.bpc, &s->p.divisor, &limit,
                          &s->d_rows };
    void *fin_args[] = { &r, &d, &pitch, &pitch, &s->p.w, &s->p.h, &s->p.bpc, &s->p.divisor,
                         &limit, &s->d_rows, &s->d_sums };
    err = tvmaf_cuda_twin_launch(&s->t, FN_ROWS, s->p.h, 1, FPIC_THREADS, 1, rows_args);
    if (!err) err = tvmaf_cuda_twin_launch(&s->t, FN_FINISH, 1, 1, 32, 1, fin_args);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_sums, s->d_sums, 4 * sizeof(double), s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    const FMomentSums rs = { s->h_sums[0], s->h_sums[1] }, ds = { s->h_sums[2], s->h_sums[3] };
    return tvmaf_float_moment_report(&s->p, &rs, &ds, index, sink);
}

static const char *const provided[] = {
    "float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd",
    NULL,
};

const TvmafExtractor tvmaf_fex_float_moment_cuda = {
    .name = "float_moment",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(FloatMomentCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
