/*
 * float_vif twin, plan (gpu/tvd.h): the kernels (float_vif_kernels.h) load
 * (and prescale) the luma planes, build the four scales and compute every
 * sample's num and den, then each row's float sums; the host reads the rows
 * back, adds each scale's rows top to bottom in float (fvif_sum, as the CPU
 * does) and reports with the CPU extractor's code. The Gaussian taps, the
 * bilinear column tables and the lanczos4 taps (which call the host's sin)
 * are the host's own values, uploaded once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_vif/float_vif_kernels.h"
#include "feature/float_vif/float_vif_state.h"

TVD_MODULE(float_vif, FLOAT_VIF_KERNELS)

typedef struct FloatVifPlan {
    FloatVifParams p; /* first: the CPU extractor's state */
    TvdBuf in;                 /* rescale: the loaded planes, 2 x in_w x in_h */
    TvdBuf img[FVIF_N_SCALES]; /* each scale's ref then dis, w x h each */
    TvdBuf ext;                /* 5 x plane_n: vertical passes with margins */
    size_t plane_n;
    TvdBuf nd;                 /* num then den of every sample, w0 x h0 each */
    TvdBuf rows;               /* per scale: h row sums of num, then of den (mirrored) */
    size_t rows_off[FVIF_N_SCALES], rows_n;
    TvdBuf taps;               /* FVIF_N_SCALES x FFILTER_MAX_TAPS */
    TvdBuf scl;                /* the prescale's tables, at tab[] (bytes) */
    size_t tab[4];             /* bilinear: col1, col2, coldx; lanczos4: x0, wx, y0, wy */
} FloatVifPlan;

/* The prescale's tables (bilinear columns, lanczos4 taps) in one buffer, as
 * 4-byte words: their byte offsets and the total. */
static size_t scaler_layout(FloatVifPlan *s)
{
    const FloatVifParams *p = &s->p;
    const size_t nx = (size_t)p->w[0], ny = (size_t)p->h[0], nt = FFILTER_LANCZOS_TAPS;
    size_t n[4] = { 0, 0, 0, 0 }, off = 0;
    if (p->rescale && p->scaler == FFILTER_SCALE_BILINEAR) n[0] = n[1] = n[2] = nx;
    if (p->rescale && p->scaler == FFILTER_SCALE_LANCZOS4) {
        n[0] = nx;
        n[1] = nt * nx;
        n[2] = ny;
        n[3] = nt * ny;
    }
    for (int i = 0; i < 4; i++) {
        s->tab[i] = off;
        off += 4 * n[i];
    }
    return off;
}

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatVifPlan *s = priv;
    FloatVifParams *p = &s->p;
    int err = tvmaf_float_vif_setup(p, vi, msg, len);
    if (err) return err;
    if (p->max_fw > FFILTER_MAX_FW) { /* no accepted kernel scale gets here */
        snprintf(msg, len, "feature \"float_vif\": a %d-tap filter is wider than the "
                 "twin's %d", p->max_fw, FFILTER_MAX_FW);
        return -EINVAL;
    }
    const size_t n0 = (size_t)p->w[0] * (size_t)p->h[0];
    s->plane_n = ((size_t)p->w[0] + (size_t)p->max_fw) * (size_t)p->h[0];
    s->rows_n = 0;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        s->rows_off[sc] = s->rows_n;
        s->rows_n += 2 * (size_t)p->h[sc];
    }
    const size_t nin = p->rescale ? (size_t)p->in_w * (size_t)p->in_h : 0;
    if ((err = tvd_buffer(t, &s->in, 2 * sizeof(float) * nin, 0))) return err;
    for (int sc = 0; sc < FVIF_N_SCALES && !err; sc++)
        err = tvd_buffer(t, &s->img[sc], 2 * sizeof(float) * (size_t)p->w[sc] * (size_t)p->h[sc],
                         0);
    if (err || (err = tvd_buffer(t, &s->ext, 5 * sizeof(float) * s->plane_n, 0)) ||
        (err = tvd_buffer(t, &s->nd, 2 * sizeof(float) * n0, 0)) ||
        (err = tvd_buffer(t, &s->rows, sizeof(float) * s->rows_n, TVD_MIRROR)) ||
        (err = tvd_buffer(t, &s->taps, sizeof(p->taps), 0)))
        return err;
    return tvd_buffer(t, &s->scl, scaler_layout(s), 0);
}

/* The prescale's tables, computed by the host. */
static int setup(void *priv, TvdTwin *t)
{
    FloatVifPlan *s = priv;
    const FloatVifParams *p = &s->p;
    int err = tvd_upload(t, tvd_whole(t, s->taps), p->taps);
    const size_t bytes = scaler_layout(s);
    if (err || !bytes) return err;
    unsigned char *h = malloc(bytes);
    if (!h) return -ENOMEM;
    const int dw = p->w[0], dh = p->h[0];
    if (p->scaler == FFILTER_SCALE_BILINEAR) {
        ffilter_bilinear_columns(p->in_w, dw, (int *)(h + s->tab[0]), (int *)(h + s->tab[1]),
                                 (float *)(h + s->tab[2]));
    } else {
        const float rx = ffilter_scale_ratio(p->in_w, dw), ry = ffilter_scale_ratio(p->in_h, dh);
        int *x0 = (int *)(h + s->tab[0]), *y0 = (int *)(h + s->tab[2]);
        float *wx = (float *)(h + s->tab[1]), *wy = (float *)(h + s->tab[3]);
        for (int x = 0; x < dw; x++)
            x0[x] = ffilter_lanczos_axis(ffilter_scale_pos(x, rx), wx + FFILTER_LANCZOS_TAPS * x);
        for (int y = 0; y < dh; y++)
            y0[y] = ffilter_lanczos_axis(ffilter_scale_pos(y, ry), wy + FFILTER_LANCZOS_TAPS * y);
    }
    err = tvd_upload(t, tvd_whole(t, s->scl), h);
    free(h);
    return err;
}

#define GX(n) (((unsigned)(n) + FVIF_BLOCK_W - 1) / FVIF_BLOCK_W)
#define GY(n) FVIF_GRID_Y((unsigned)(n))

/* Image d (0 ref, 1 dis) of scale sc. */
static TvdView image(const FloatVifPlan *s, int sc, int d)
{
    const size_t n = sizeof(float) * (size_t)s->p.w[sc] * (size_t)s->p.h[sc];
    return tvd_view(s->img[sc], (size_t)d * n, n);
}

/* Table i of the prescale, n words. */
static TvdView table(const FloatVifPlan *s, int i, size_t n)
{
    return tvd_view(s->scl, s->tab[i], 4 * n);
}

/* The load and the prescale. */
static int load(FloatVifPlan *s, TvdTwin *t, const TvmafDeviceFrame *f)
{
    const FloatVifParams *p = &s->p;
    const size_t nin = sizeof(float) * (size_t)p->in_w * (size_t)p->in_h;
    const FvifLoadArgs la = {
        .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0), .pitch = tvd_pitch(t, f, 0),
        .w = p->in_w, .h = p->in_h, .divisor = sample_divisor(p->bpc),
        .img0 = p->rescale ? tvd_view(s->in, 0, nin) : image(s, 0, 0),
        .img1 = p->rescale ? tvd_view(s->in, nin, nin) : image(s, 0, 1),
    };
    int err = tvd_launch(t, p->bpc == 8 ? TVD_K_float_vif_load_8 : TVD_K_float_vif_load_16,
                         TVD_GRID(GX(p->in_w), GY(p->in_h)), &la);
    if (err || !p->rescale) return err;
    const int dw = p->w[0], dh = p->h[0];
    const TvdGrid g = TVD_GRID(GX(dw), GY(dh));
    if (p->scaler == FFILTER_SCALE_LANCZOS4) {
        const FvifLanczosArgs a = {
            .src0 = la.img0, .src1 = la.img1, .sw = p->in_w, .sh = p->in_h, .dw = dw, .dh = dh,
            .x0 = table(s, 0, (size_t)dw), .wx = table(s, 1, FFILTER_LANCZOS_TAPS * (size_t)dw),
            .y0 = table(s, 2, (size_t)dh), .wy = table(s, 3, FFILTER_LANCZOS_TAPS * (size_t)dh),
            .dst0 = image(s, 0, 0), .dst1 = image(s, 0, 1),
        };
        return tvd_launch(t, TVD_K_float_vif_prescale_lanczos, g, &a);
    }
    const size_t nc = p->scaler == FFILTER_SCALE_BILINEAR ? (size_t)dw : 0;
    const FvifScaleArgs a = {
        .src0 = la.img0, .src1 = la.img1, .sw = p->in_w, .sh = p->in_h, .dw = dw, .dh = dh,
        .method = (int)p->scaler, .rx = ffilter_scale_ratio(p->in_w, dw),
        .ry = ffilter_scale_ratio(p->in_h, dh), .col1 = table(s, 0, nc), .col2 = table(s, 1, nc),
        .coldx = table(s, 2, nc), .dst0 = image(s, 0, 0), .dst1 = image(s, 0, 1),
    };
    return tvd_launch(t, TVD_K_float_vif_prescale, g, &a);
}

/* Scale sc: the decimation from the scale above (sc > 0), the moments, the
 * statistic and the rows' sums. */
static int scale(FloatVifPlan *s, TvdTwin *t, int sc)
{
    const FloatVifParams *p = &s->p;
    const int w = p->w[sc], h = p->h[sc], fw = p->fw[sc], ew = w + 2 * (fw / 2);
    const TvdView taps = tvd_view(s->taps, sizeof(float) * FFILTER_MAX_TAPS * (size_t)sc,
                                  sizeof(float) * FFILTER_MAX_TAPS);
    const size_t plane = sizeof(float) * s->plane_n;
    int err = 0;
    if (sc > 0) {
        const int pw = p->w[sc - 1], ph = p->h[sc - 1], pew = pw + 2 * (fw / 2);
        const size_t ext = sizeof(float) * (size_t)pew * (size_t)h;
        const FvifDecVArgs va = {
            .src0 = image(s, sc - 1, 0), .src1 = image(s, sc - 1, 1), .pw = pw, .ph = ph, .oh = h,
            .taps = taps, .fw = fw, .ext0 = tvd_view(s->ext, 0, ext),
            .ext1 = tvd_view(s->ext, plane, ext),
        };
        const FvifDecHArgs ha = {
            .ext0 = va.ext0, .ext1 = va.ext1, .ew = pew, .w = w, .h = h, .taps = taps, .fw = fw,
            .dst0 = image(s, sc, 0), .dst1 = image(s, sc, 1),
        };
        if ((err = tvd_launch(t, TVD_K_float_vif_decimate_v, TVD_GRID(GX(pew), GY(h)), &va)) ||
            (err = tvd_launch(t, TVD_K_float_vif_decimate_h, TVD_GRID(GX(w), GY(h)), &ha)))
            return err;
    }
    const size_t n = sizeof(float) * (size_t)w * (size_t)h;
    const FvifMomArgs ma = {
        .a = image(s, sc, 0), .b = image(s, sc, 1), .w = w, .h = h, .taps = taps, .fw = fw,
        .ext = tvd_whole(t, s->ext), .plane_n = s->plane_n,
    };
    const FvifStatArgs sa = {
        .ext = ma.ext, .plane_n = s->plane_n, .w = w, .h = h, .taps = taps, .fw = fw,
        .gain_limit = p->stat.gain_limit, .sigma_max_inv = p->stat.sigma_max_inv,
        .sigma_nsq = p->stat.sigma_nsq, .num = tvd_view(s->nd, 0, n), .den = tvd_view(s->nd, n, n),
    };
    const size_t row0 = sizeof(float) * s->rows_off[sc], rn = sizeof(float) * (size_t)h;
    const FvifRowsArgs ra = {
        .num = sa.num, .den = sa.den, .w = w, .h = h, .row_num = tvd_view(s->rows, row0, rn),
        .row_den = tvd_view(s->rows, row0 + rn, rn),
    };
    if ((err = tvd_launch(t, TVD_K_float_vif_moments_v, TVD_GRID(GX(ew), GY(h)), &ma)) ||
        (err = tvd_launch(t, TVD_K_float_vif_stat, TVD_GRID(GX(w), GY(h)), &sa)))
        return err;
    return tvd_launch(t, TVD_K_float_vif_rows,
                      TVD_GRID(((unsigned)h + FVIF_ROW_THREADS - 1) / FVIF_ROW_THREADS, 1), &ra);
}

#undef GX
#undef GY

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatVifPlan *s = priv;
    if (tvd_planes(t, f) < 1) return -EINVAL;
    int err = load(s, t, f);
    for (int sc = s->p.start; sc < FVIF_N_SCALES && !err; sc++) err = scale(s, t, sc);
    /* the rows of the scales computed (a skipped scale 0's are never written) */
    const size_t first = sizeof(float) * s->rows_off[s->p.start];
    return err ? err
               : tvd_download(t, tvd_view(s->rows, first, sizeof(float) * s->rows_n - first));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatVifPlan *s = priv;
    const FloatVifParams *p = &s->p;
    const float *back = tvd_mirror(t, s->rows);
    float sums[2 * FVIF_N_SCALES] = { 0 };
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        const float *rows = back + s->rows_off[sc];
        sums[2 * sc] = fvif_sum(rows, p->h[sc]);
        sums[2 * sc + 1] = fvif_sum(rows + p->h[sc], p->h[sc]);
    }
    return tvmaf_float_vif_report(p, sums, index, sink);
}

TVD_PLAN(float_vif, float_vif, FloatVifPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
