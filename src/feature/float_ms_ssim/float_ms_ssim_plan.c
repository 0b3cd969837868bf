/*
 * float_ms_ssim twin, plan (gpu/tvd.h): both five-scale pyramids, every
 * scale's SSIM windows and their running sums of l, c and s on the device
 * (float_ms_ssim_kernels.h), nothing read back in between; the host reads
 * the 15 sums and finishes with the CPU extractor's code (the means, pow,
 * log10). The Gaussian taps, the low-pass and the windows' layout are the
 * host's, uploaded once.
 */
#include <errno.h>

#include "feature/float_ms_ssim/float_ms_ssim_kernels.h"
#include "feature/float_ms_ssim/float_ms_ssim_state.h"

TVD_MODULE(float_ms_ssim, FLOAT_MS_SSIM_KERNELS)

_Static_assert(MS_SSIM_SUM_THREADS > 32 && MS_SSIM_SUM_THREADS % 32 == 0,
               "the sum groups: one warp adding, the others staging");

#define N_SUMS (MS_SSIM_SCALES * MS_SSIM_TERMS)

typedef struct MsSsimPlan {
    FloatMsSsimParams p; /* first: the CPU extractor's state */
    MsSsimSumLayout lay;
    size_t pyr_off[MS_SSIM_SCALES]; /* bytes to a scale's ref plane; its dis plane follows */
    TvdBuf pyr;                     /* per scale: ref, then dis, w x h floats each */
    TvdBuf rows;                    /* 5 x (w - 10) x h of scale 0, reused by each scale */
    TvdBuf l, c, s;                 /* every scale's windows, at lay.off */
    TvdBuf taps, lpf, layout, sums; /* sums: [scale * 3 + term], mirrored */
    /* OpenCL's (fp64-free) program: l, c and s read back and added on the
     * host, in the same order (float_ms_ssim_math.h, ms_ssim_sum_run) */
    bool host_sums;
} MsSsimPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    MsSsimPlan *s = priv;
    const FloatMsSsimParams *p = &s->p;
    int err = tvmaf_float_ms_ssim_setup(&s->p, vi, msg, len);
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
    const TvdCaps *caps = tvd_caps(t);
    s->host_sums = !(caps->warp == 32 && caps->atomic64);
    const unsigned win_flags = s->host_sums ? TVD_MIRROR : 0;
    if ((err = tvd_buffer(t, &s->pyr, pyr, 0)) || (err = tvd_buffer(t, &s->rows, rows, 0)) ||
        (err = tvd_buffer(t, &s->l, sizeof(double) * nwin, win_flags)) ||
        (err = tvd_buffer(t, &s->c, sizeof(double) * nwin, win_flags)) ||
        (err = tvd_buffer(t, &s->s, sizeof(float) * nwin, win_flags)) ||
        (err = tvd_buffer(t, &s->taps, sizeof(ssim_win_taps), 0)) ||
        (err = tvd_buffer(t, &s->lpf, sizeof(ms_ssim_lpf), 0)) ||
        (err = tvd_buffer(t, &s->layout, sizeof(s->lay), 0)))
        return err;
    return tvd_buffer(t, &s->sums, sizeof(double) * N_SUMS, TVD_MIRROR);
}

static int setup(void *priv, TvdTwin *t)
{
    MsSsimPlan *s = priv;
    int err = tvd_upload(t, tvd_whole(t, s->taps), ssim_win_taps);
    if (!err) err = tvd_upload(t, tvd_whole(t, s->lpf), ms_ssim_lpf);
    return err ? err : tvd_upload(t, tvd_whole(t, s->layout), &s->lay);
}

#define GX(n) (((unsigned)(n) + SSIM_BLOCK_W - 1) / SSIM_BLOCK_W)
#define GY(n) SSIM_GRID_Y((unsigned)(n))

/* Image d (0 ref, 1 dis) of scale i. */
static TvdView image(const MsSsimPlan *s, int i, int d)
{
    const size_t n = sizeof(float) * (size_t)s->p.w[i] * (size_t)s->p.h[i];
    return tvd_view(s->pyr, s->pyr_off[i] + (size_t)d * n, n);
}

/* A scale's windows in l, c or s (elements of `elem` bytes). */
static TvdView windows(const MsSsimPlan *s, TvdBuf b, int i, size_t elem)
{
    return tvd_view(b, elem * (size_t)s->lay.off[i], elem * (size_t)s->lay.n[i]);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    MsSsimPlan *s = priv;
    const FloatMsSsimParams *p = &s->p;
    if (tvd_planes(t, f) < 1) return -EINVAL;
    const MsLoadArgs la = {
        .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0), .pitch = tvd_pitch(t, f, 0),
        .w = p->w[0], .h = p->h[0], .divisor = sample_divisor(p->bpc),
        .img0 = image(s, 0, 0), .img1 = image(s, 0, 1),
    };
    int err = tvd_launch(t, p->bpc == 8 ? TVD_K_float_ms_ssim_load_8 : TVD_K_float_ms_ssim_load_16,
                         TVD_GRID(GX(p->w[0]), GY(p->h[0])), &la);
    for (int i = 1; i < MS_SSIM_SCALES && !err; i++) {
        const MsDownArgs da = {
            .src0 = image(s, i - 1, 0), .src1 = image(s, i - 1, 1), .w = p->w[i - 1],
            .h = p->h[i - 1], .lpf = tvd_whole(t, s->lpf), .dst0 = image(s, i, 0),
            .dst1 = image(s, i, 1), .dw = p->w[i], .dh = p->h[i],
        };
        err = tvd_launch(t, TVD_K_float_ms_ssim_down, TVD_GRID(GX(p->w[i]), GY(p->h[i])), &da);
    }
    for (int i = 0; i < MS_SSIM_SCALES && !err; i++) {
        const int ow = p->w[i] - SSIM_WIN + 1, oh = p->h[i] - SSIM_WIN + 1;
        const uint64_t rows_n = (uint64_t)ow * (uint64_t)p->h[i];
        const MsRowsArgs ra = {
            .img0 = image(s, i, 0), .img1 = image(s, i, 1), .w = p->w[i], .h = p->h[i],
            .taps = tvd_whole(t, s->taps), .rows = tvd_view(s->rows, 0, 5 * sizeof(float) * rows_n),
            .rows_n = rows_n,
        };
        const MsWinArgs wa = {
            .rows = ra.rows, .rows_n = rows_n, .ow = ow, .oh = oh, .taps = ra.taps,
            .l = windows(s, s->l, i, sizeof(double)), .c = windows(s, s->c, i, sizeof(double)),
            .s = windows(s, s->s, i, sizeof(float)),
        };
        err = tvd_launch(t, TVD_K_float_ms_ssim_rows, TVD_GRID(GX(ow), GY(p->h[i])), &ra);
        if (!err) err = tvd_launch(t, TVD_K_float_ms_ssim_windows, TVD_GRID(GX(ow), GY(oh)), &wa);
    }
    if (s->host_sums) {
        if (!err) err = tvd_download(t, tvd_whole(t, s->l));
        if (!err) err = tvd_download(t, tvd_whole(t, s->c));
        return err ? err : tvd_download(t, tvd_whole(t, s->s));
    }
    const MsSumsArgs sa = {
        .l = tvd_whole(t, s->l), .c = tvd_whole(t, s->c), .s = tvd_whole(t, s->s),
        .lay = tvd_whole(t, s->layout), .sums = tvd_whole(t, s->sums),
    };
    if (!err) err = tvd_launch(t, TVD_K_float_ms_ssim_sums, TVD_GRID(N_SUMS, 1), &sa);
    return err ? err : tvd_download(t, tvd_whole(t, s->sums));
}

#undef GX
#undef GY

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    MsSsimPlan *s = priv;
    double host[N_SUMS];
    const double *sums = s->host_sums ? host : tvd_mirror(t, s->sums);
    if (s->host_sums) {
        const double *wl = tvd_mirror(t, s->l), *wc = tvd_mirror(t, s->c);
        const float *ws = tvd_mirror(t, s->s);
        for (int i = 0; i < MS_SSIM_SCALES; i++) {
            const size_t off = (size_t)s->lay.off[i];
            double acc[MS_SSIM_TERMS] = { 0.0, 0.0, 0.0 };
            for (size_t j = off; j < off + (size_t)s->lay.n[i]; j++) {
                acc[0] += wl[j];
                acc[1] += wc[j];
                acc[2] += (double)ws[j];
            }
            for (int q = 0; q < MS_SSIM_TERMS; q++) host[MS_SSIM_TERMS * i + q] = acc[q];
        }
    }
    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], sv[MS_SSIM_SCALES];
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        const double *sum = sums + MS_SSIM_TERMS * i;
        l[i] = ssim_mean(sum[0], s->lay.n[i]);
        c[i] = ssim_mean(sum[1], s->lay.n[i]);
        sv[i] = ssim_mean(sum[2], s->lay.n[i]);
    }
    return tvmaf_float_ms_ssim_report(&s->p, l, c, sv, index, sink);
}

TVD_PLAN(float_ms_ssim, float_ms_ssim, MsSsimPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
