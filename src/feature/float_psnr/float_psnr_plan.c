/*
 * float_psnr twin, plan (gpu/tvd.h): the luma plane's noise sum from the
 * device (float_psnr_kernels.h: the CPU's double exactly), scored by the CPU
 * extractor's own code (tvmaf_float_psnr_report). The groups fold by warp
 * shuffles with CUDA's caps, by a tree in local memory elsewhere: the same
 * saturated integer totals either way. With CUDA's caps the device turns the
 * total into the double; elsewhere (an fp64-free program) the host does, with
 * the same function (fpsnr_finish), on the frame's host pictures where the
 * total saturated.
 */
#include <errno.h>

#include "feature/float_psnr/float_psnr_kernels.h"
#include "feature/float_psnr/float_psnr_state.h"

TVD_MODULE(float_psnr, FLOAT_PSNR_KERNELS)

_Static_assert(FPIC_THREADS % 32 == 0 && !(FPIC_THREADS & (FPIC_THREADS - 1)) &&
               FPIC_THREADS <= 1024, "a group is whole warps, a power of two of them");

typedef struct FloatPsnrPlan {
    FloatPsnrSetup p; /* first: the CPU extractor's state */
    TvdBuf rows;      /* h x uint64: each row's units */
    TvdBuf noise;     /* one double, or with `units` one total of units */
    unsigned k[2];    /* rows, finish */
    bool units;
} FloatPsnrPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatPsnrPlan *s = priv;
    int err = tvmaf_float_psnr_setup(&s->p, vi, msg, len);
    if (err) return err;
    s->units = fpic_pick(t, TVD_K_float_psnr_rows, TVD_K_float_psnr_rows_tree, s->k);
    if ((err = tvd_buffer(t, &s->rows, sizeof(uint64_t) * s->p.h, 0))) return err;
    return tvd_buffer(t, &s->noise, sizeof(double), TVD_MIRROR);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatPsnrPlan *s = priv;
    return fpic_run(t, f, s->k, s->units, s->rows, s->noise, s->p.w, s->p.h, s->p.bpc,
                    s->p.divisor);
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatPsnrPlan *s = priv;
    const void *out = tvd_mirror(t, s->noise);
    if (!s->units) return tvmaf_float_psnr_report(&s->p, *(const double *)out, index, sink);
    const uint64_t total = *(const uint64_t *)out;
    const TvmafPicture *ref = tvd_host_picture(t, 0), *dis = tvd_host_picture(t, 1);
    if (total >= FPIC_UNITS_EXACT && (!ref || !dis)) return -EINVAL;
    const double noise = fpsnr_finish(total, FPIC_UNITS_EXACT, ref ? ref->data[0] : NULL,
                                      dis ? dis->data[0] : NULL, ref ? ref->stride[0] : 0,
                                      dis ? dis->stride[0] : 0, s->p.w, s->p.h, s->p.bpc,
                                      s->p.divisor);
    return tvmaf_float_psnr_report(&s->p, noise, index, sink);
}

TVD_PLAN(float_psnr, float_psnr, FloatPsnrPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .run = run, .report = report);
