/*
 * float_ssim twin, plan (gpu/tvd.h): the device loads, down-samples and
 * filters the luma planes and computes every window's l, c and s
 * (float_ssim_kernels.h); the windows are read back and added here in raster
 * order (ssim_sums_add, the CPU's four running doubles) and reported with
 * the CPU extractor's code. The Gaussian taps and the box are the host's own
 * floats, uploaded once.
 */
#include "feature/float_ssim/float_ssim_kernels.h"
#include "feature/float_ssim/float_ssim_state.h"

TVD_MODULE(float_ssim, FLOAT_SSIM_KERNELS)

typedef struct FloatSsimPlan {
    FloatSsimParams p; /* first: the option table's offsets point into it */
    TvdBuf full;       /* factor > 1: the loaded planes, 2 x w x h */
    TvdBuf five;       /* 5 x sw x sh: ref, dis, r*r, d*d, r*d */
    TvdBuf rows;       /* 5 x ow x sh */
    TvdBuf l, c, s;    /* ow x oh each */
    TvdBuf taps, box;
    int ow, oh;
    size_t small, rows_n; /* floats of a plane of five, of rows */
} FloatSsimPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatSsimPlan *s = priv;
    const FloatSsimParams *p = &s->p;
    int err = tvmaf_float_ssim_setup(&s->p, vi, msg, len);
    if (err) return err;
    s->ow = p->sw - SSIM_WIN + 1;
    s->oh = p->sh - SSIM_WIN + 1;
    s->small = (size_t)p->sw * (size_t)p->sh;
    s->rows_n = (size_t)s->ow * (size_t)p->sh;
    const size_t nwin = (size_t)s->ow * (size_t)s->oh;
    if ((p->factor > 1 &&
         (err = tvd_buffer(t, &s->full, 2 * sizeof(float) * (size_t)p->w * (size_t)p->h, 0))) ||
        (err = tvd_buffer(t, &s->five, 5 * sizeof(float) * s->small, 0)) ||
        (err = tvd_buffer(t, &s->rows, 5 * sizeof(float) * s->rows_n, 0)) ||
        (err = tvd_buffer(t, &s->l, sizeof(double) * nwin, TVD_MIRROR)) ||
        (err = tvd_buffer(t, &s->c, sizeof(double) * nwin, TVD_MIRROR)) ||
        (err = tvd_buffer(t, &s->s, sizeof(float) * nwin, TVD_MIRROR)) ||
        (err = tvd_buffer(t, &s->taps, sizeof(ssim_win_taps), 0)))
        return err;
    return tvd_buffer(t, &s->box, sizeof(float) * (size_t)p->factor * (size_t)p->factor, 0);
}

static int setup(void *priv, TvdTwin *t)
{
    FloatSsimPlan *s = priv;
    const int err = tvd_upload(t, tvd_whole(t, s->taps), ssim_win_taps);
    return err ? err : tvd_upload(t, tvd_whole(t, s->box), s->p.box);
}

/* Groups over n columns. */
#define SSIM_GX(n) (((unsigned)(n) + SSIM_BLOCK_W - 1) / SSIM_BLOCK_W)

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatSsimPlan *s = priv;
    const FloatSsimParams *p = &s->p;
    const size_t full = sizeof(float) * (size_t)p->w * (size_t)p->h;
    const size_t small = sizeof(float) * s->small;
    const TvdView five0 = tvd_view(s->five, 0, small), five1 = tvd_view(s->five, small, small);
    const TvdView img0 = p->factor > 1 ? tvd_view(s->full, 0, full) : five0;
    const TvdView img1 = p->factor > 1 ? tvd_view(s->full, full, full) : five1;
    const SsimLoadArgs load = {
        .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0), .pitch = tvd_pitch(t, f, 0),
        .w = p->w, .h = p->h, .divisor = sample_divisor(p->bpc), .img0 = img0, .img1 = img1,
    };
    const SsimDownArgs down = {
        .src0 = img0, .src1 = img1, .w = p->w, .h = p->h, .f = p->factor,
        .box = tvd_whole(t, s->box), .dst0 = five0, .dst1 = five1, .dw = p->sw, .dh = p->sh,
    };
    const SsimProductsArgs prod = {
        .five = tvd_whole(t, s->five), .plane_n = s->small, .w = p->sw, .h = p->sh,
    };
    const SsimRowsArgs rows = {
        .five = tvd_whole(t, s->five), .plane_n = s->small, .w = p->sw, .h = p->sh,
        .taps = tvd_whole(t, s->taps), .rows = tvd_whole(t, s->rows), .rows_n = s->rows_n,
    };
    const SsimWindowsArgs win = {
        .rows = tvd_whole(t, s->rows), .rows_n = s->rows_n, .ow = s->ow, .oh = s->oh,
        .taps = tvd_whole(t, s->taps), .l = tvd_whole(t, s->l), .c = tvd_whole(t, s->c),
        .s = tvd_whole(t, s->s),
    };
    const unsigned gy = SSIM_GRID_Y((unsigned)p->sh);
    int err = tvd_launch(t, p->bpc == 8 ? TVD_K_float_ssim_load_8 : TVD_K_float_ssim_load_16,
                         TVD_GRID(SSIM_GX(p->w), SSIM_GRID_Y((unsigned)p->h)), &load);
    if (!err && p->factor > 1)
        err = tvd_launch(t, TVD_K_float_ssim_down, TVD_GRID(SSIM_GX(p->sw), gy), &down);
    if (!err) err = tvd_launch(t, TVD_K_float_ssim_products, TVD_GRID(SSIM_GX(p->sw), gy), &prod);
    if (!err) err = tvd_launch(t, TVD_K_float_ssim_rows, TVD_GRID(SSIM_GX(s->ow), gy), &rows);
    if (!err)
        err = tvd_launch(t, TVD_K_float_ssim_windows,
                         TVD_GRID(SSIM_GX(s->ow), SSIM_GRID_Y((unsigned)s->oh)), &win);
    if (!err) err = tvd_download(t, tvd_whole(t, s->l));
    if (!err) err = tvd_download(t, tvd_whole(t, s->c));
    return err ? err : tvd_download(t, tvd_whole(t, s->s));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatSsimPlan *s = priv;
    const double *l = tvd_mirror(t, s->l), *c = tvd_mirror(t, s->c);
    const float *sv = tvd_mirror(t, s->s);
    const size_t nwin = (size_t)s->ow * (size_t)s->oh;
    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (size_t i = 0; i < nwin; i++) ssim_sums_add(&sums, ssim_lcs_make(l[i], c[i], sv[i]));
    float m[4];
    ssim_means(&sums, (int)nwin, m);
    return tvmaf_float_ssim_report(&s->p, m, index, sink);
}

TVD_PLAN(float_ssim, float_ssim, FloatSsimPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
