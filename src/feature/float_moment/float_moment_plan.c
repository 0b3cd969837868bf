/*
 * float_moment twin, plan (gpu/tvd.h): the four double sums from the device
 * (float_moment_kernels.h: the CPU's values exactly), reported by the CPU
 * extractor's own code (tvmaf_float_moment_report). The groups fold by warp
 * shuffles with CUDA's caps, by a tree elsewhere: the same saturated integer
 * totals either way. With CUDA's caps the device turns them into the doubles;
 * elsewhere (an fp64-free program) the host does, with the same function
 * (fmoment_finish), on the frame's host pictures where a total saturated.
 */
#include <errno.h>

#include "feature/float_moment/float_moment_kernels.h"
#include "feature/float_moment/float_moment_state.h"

TVD_MODULE(float_moment, FLOAT_MOMENT_KERNELS)

typedef struct FloatMomentPlan {
    FloatMomentSetup p; /* first: the CPU extractor's state */
    TvdBuf rows;        /* h x FMOMENT_SLOTS x uint64 */
    TvdBuf sums;        /* 4 doubles, or with `units` 4 totals of units */
    unsigned k[2];      /* rows, finish */
    bool units;
} FloatMomentPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatMomentPlan *s = priv;
    int err = tvmaf_float_moment_setup(&s->p, vi, msg, len);
    if (err) return err;
    s->units = fpic_pick(t, TVD_K_float_moment_rows, TVD_K_float_moment_rows_tree, s->k);
    if ((err = tvd_buffer(t, &s->rows, sizeof(uint64_t) * FMOMENT_SLOTS * s->p.h, 0)))
        return err;
    _Static_assert(sizeof(double) == sizeof(uint64_t), "a slot holds either");
    return tvd_buffer(t, &s->sums, 4 * sizeof(double), TVD_MIRROR);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatMomentPlan *s = priv;
    return fpic_run(t, f, s->k, s->units, s->rows, s->sums, s->p.w, s->p.h, s->p.bpc,
                    s->p.divisor);
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatMomentPlan *s = priv;
    if (!s->units) {
        const double *v = tvd_mirror(t, s->sums);
        const FMomentSums rs = { v[0], v[1] }, ds = { v[2], v[3] };
        return tvmaf_float_moment_report(&s->p, &rs, &ds, index, sink);
    }
    const uint64_t *u = tvd_mirror(t, s->sums);
    const TvmafPicture *pic[2] = { tvd_host_picture(t, 0), tvd_host_picture(t, 1) };
    FMomentSums m[2];
    for (int d = 0; d < 2; d++) {
        const uint64_t *total = u + 2 * d;
        if ((total[0] >= FPIC_UNITS_EXACT || total[1] >= FPIC_UNITS_EXACT) && !pic[d])
            return -EINVAL;
        m[d] = fmoment_finish(total, FPIC_UNITS_EXACT, pic[d] ? pic[d]->data[0] : NULL,
                              pic[d] ? pic[d]->stride[0] : 0, s->p.w, s->p.h, s->p.bpc,
                              s->p.divisor);
    }
    return tvmaf_float_moment_report(&s->p, &m[0], &m[1], index, sink);
}

TVD_PLAN(float_moment, float_moment, FloatMomentPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .run = run, .report = report);
