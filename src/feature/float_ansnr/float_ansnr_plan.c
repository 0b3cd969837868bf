/*
 * float_ansnr twin, plan (gpu/tvd.h): the device converts and filters the
 * luma planes and adds each row (float_ansnr_kernels.h: the CPU's per-row
 * float sums, left to right); the rows' sums are read back and added here
 * top to bottom in float (fansnr_frame_add, as the CPU) and reported with
 * the CPU extractor's code. The filter taps are the host's own float
 * arrays, uploaded once.
 */
#include "feature/float_ansnr/float_ansnr_kernels.h"
#include "feature/float_ansnr/float_ansnr_state.h"

TVD_MODULE(float_ansnr, FLOAT_ANSNR_KERNELS)

typedef struct FloatAnsnrPlan {
    FloatAnsnrSetup p;            /* first: the CPU extractor's setup */
    TvdBuf planes;                /* fref, fdis, rf, df: w x h floats each */
    TvdBuf ref_taps, dis_taps;
    TvdBuf sums;                  /* 2 x h floats */
    size_t plane;                 /* bytes of one plane */
} FloatAnsnrPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatAnsnrPlan *s = priv;
    int err = tvmaf_float_ansnr_setup(&s->p, vi, msg, len);
    if (err) return err;
    s->plane = sizeof(float) * (size_t)s->p.w * (size_t)s->p.h;
    if ((err = tvd_buffer(t, &s->planes, 4 * s->plane, 0)) ||
        (err = tvd_buffer(t, &s->ref_taps, sizeof(fansnr_ref_taps), 0)) ||
        (err = tvd_buffer(t, &s->dis_taps, sizeof(fansnr_dis_taps), 0)))
        return err;
    return tvd_buffer(t, &s->sums, sizeof(float) * 2 * (size_t)s->p.h, TVD_MIRROR);
}

static int setup(void *priv, TvdTwin *t)
{
    FloatAnsnrPlan *s = priv;
    const int err = tvd_upload(t, tvd_whole(t, s->ref_taps), fansnr_ref_taps);
    return err ? err : tvd_upload(t, tvd_whole(t, s->dis_taps), fansnr_dis_taps);
}

/* Plane k of fref, fdis, rf, df. */
static TvdView plane(const FloatAnsnrPlan *s, unsigned k)
{
    return tvd_view(s->planes, k * s->plane, s->plane);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatAnsnrPlan *s = priv;
    const unsigned w = (unsigned)s->p.w, h = (unsigned)s->p.h;
    const FansnrConvertArgs conv = {
        .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0), .pitch = tvd_pitch(t, f, 0),
        .w = w, .h = h, .divisor = s->p.divisor, .fref = plane(s, 0), .fdis = plane(s, 1),
    };
    const FansnrFilterArgs filt = {
        .fref = plane(s, 0), .fdis = plane(s, 1), .w = s->p.w, .h = s->p.h,
        .ref_taps = tvd_whole(t, s->ref_taps), .dis_taps = tvd_whole(t, s->dis_taps),
        .rf = plane(s, 2), .df = plane(s, 3),
    };
    const FansnrRowsArgs rows = {
        .rf = plane(s, 2), .df = plane(s, 3), .w = s->p.w, .h = s->p.h,
        .sums = tvd_whole(t, s->sums),
    };
    const TvdGrid g = TVD_GRID((w + FANSNR_BLOCK_W - 1) / FANSNR_BLOCK_W, FANSNR_GRID_Y(h));
    int err = tvd_launch(t, s->p.bpc == 8 ? TVD_K_float_ansnr_convert_8
                                          : TVD_K_float_ansnr_convert_16, g, &conv);
    if (!err) err = tvd_launch(t, TVD_K_float_ansnr_filter, g, &filt);
    if (!err)
        err = tvd_launch(t, TVD_K_float_ansnr_rows,
                         TVD_GRID((h + FANSNR_ROW_THREADS - 1) / FANSNR_ROW_THREADS, 1), &rows);
    return err ? err : tvd_download(t, tvd_whole(t, s->sums));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatAnsnrPlan *s = priv;
    const float *v = tvd_mirror(t, s->sums);
    float sig = 0.0f, noise = 0.0f;
    for (int y = 0; y < s->p.h; y++) fansnr_frame_add(&sig, &noise, v[2 * y], v[2 * y + 1]);
    return tvmaf_float_ansnr_report(&s->p, sig, noise, index, sink);
}

TVD_PLAN(float_ansnr, float_ansnr, FloatAnsnrPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
