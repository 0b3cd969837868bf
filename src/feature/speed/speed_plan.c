/*
 * speed_chroma and speed_temporal twins, plans (gpu/tvd.h), one per
 * extractor. speed_kernels.h computes each image's statistics up to the
 * first call of log2 (speed_math.h, "The twins' decomposition"): the
 * per-pixel work (load, prescale, filters, decimation, local mean) and the
 * per-block work (covariance, eigenvalues, QR factors, each block's
 * solution and variance). The host reads back, per image, 25 eigenvalues, a
 * singular flag and the nb block variances, never a plane, and runs the
 * CPU's own code from there: speed_pipeline_entropies (log2 per eigenvalue
 * and block), speed_pipeline_score and the extractors' outputs. The split
 * is at the first log2 because that is the C library's double log2 on the
 * CPU: the host's glibc gives the same bits where a device's log2 would
 * not. The scaler's tables (speed_axis: floor, and sin for lanczos4) and
 * the Gaussian taps (exp) are the host's too, uploaded once.
 * speed_temporal's previous frame stays on the device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_kernels.h"
#include "feature/speed/speed_state.h"

TVD_MODULE(speed, SPEED_KERNELS)

/* What both plans hold on the device: n_img images of a frame, each n_*
 * floats after the previous in its buffer. */
typedef struct SpeedDev {
    unsigned n_img;
    size_t n_plane;   /* pw x ph: an input image */
    size_t n_scaled;  /* sw x sh (resize) */
    size_t n_ext;     /* oh x (sw + 2 half): the anti-alias vertical pass */
    size_t n_dec;     /* ow x oh */
    size_t n_ext2;    /* oh x (ow + 2 half): the local mean's vertical pass */
    size_t n_out;     /* 25 eigenvalues, the singular flag, nb variances */
    int nc, nr;       /* columns and rows the anti-alias pass reads (resize) */
    size_t yi_off, cols_off, rows_off, n_itab, yw_off, n_ftab; /* table entries */
    bool zeroed;      /* the prescaled images' unread samples set to 0 */
    TvdBuf img, scaled, ext, dec, ext2, kqr, eig, out;
    TvdBuf taps;      /* anti-alias at 0, local mean at SPEED_MAX_FW */
    TvdBuf itab;      /* xi, yi, cols, rows */
    TvdBuf ftab;      /* xw, yw */
} SpeedDev;

/* The buffers of n_img images of the pipeline's geometry. */
static int dev_init(SpeedDev *d, TvdTwin *t, const SpeedPipeline *pl, const char *name,
                    unsigned n_img, char *msg, size_t len)
{
    const SpeedGrid *g = &pl->g;
    if (pl->aa_w > SPEED_MAX_FW || pl->lm_w > SPEED_MAX_FW) { /* no accepted kernel scale */
        snprintf(msg, len, "feature \"%s\": a %d-tap filter is wider than the twin's %d", name,
                 pl->aa_w > pl->lm_w ? pl->aa_w : pl->lm_w, SPEED_MAX_FW);
        return -EINVAL;
    }
    d->n_img = n_img;
    d->n_plane = (size_t)pl->pw * (size_t)pl->ph;
    d->n_scaled = pl->resize ? (size_t)pl->sw * (size_t)pl->sh : 0;
    d->n_ext = (size_t)g->oh * (size_t)(pl->sw + 2 * (pl->aa_w / 2));
    d->n_dec = (size_t)g->ow * (size_t)g->oh;
    d->n_ext2 = (size_t)g->oh * (size_t)(g->ow + 2 * (pl->lm_w / 2));
    d->n_out = (size_t)SPEED_NE + 1 + (size_t)g->nb;
    d->nc = d->nr = 0;
    d->n_itab = d->n_ftab = 0;
    if (pl->resize) {
        const size_t nx = (size_t)pl->sw * (size_t)pl->taps;
        const size_t ny = (size_t)pl->sh * (size_t)pl->taps;
        for (int x = 0; x < pl->sw; x++) d->nc += pl->need_col[x];
        for (int y = 0; y < pl->sh; y++) d->nr += pl->need_row[y];
        d->yi_off = nx;
        d->cols_off = nx + ny;
        d->rows_off = d->cols_off + (size_t)d->nc;
        d->n_itab = d->rows_off + (size_t)d->nr;
        d->yw_off = nx;
        d->n_ftab = nx + ny;
    }
    d->zeroed = false;
    const size_t f = sizeof(float), n = n_img;
    int err;
    if ((err = tvd_buffer(t, &d->img, f * n * d->n_plane, 0)) ||
        (pl->resize && (err = tvd_buffer(t, &d->scaled, f * n * d->n_scaled, 0))) ||
        (err = tvd_buffer(t, &d->ext, f * n * d->n_ext, 0)) ||
        (err = tvd_buffer(t, &d->dec, 2 * f * n * d->n_dec, 0)) ||
        (err = tvd_buffer(t, &d->ext2, f * n * d->n_ext2, 0)) ||
        (err = tvd_buffer(t, &d->kqr, 3 * f * n * SPEED_NN, 0)) ||
        (err = tvd_buffer(t, &d->eig, sizeof(int32_t) * n, 0)) ||
        (err = tvd_buffer(t, &d->out, f * n * d->n_out, TVD_MIRROR)) ||
        (err = tvd_buffer(t, &d->taps, 2 * f * SPEED_MAX_FW, 0)))
        return err;
    if (pl->resize && ((err = tvd_buffer(t, &d->itab, sizeof(int32_t) * d->n_itab, 0)) ||
                       (err = tvd_buffer(t, &d->ftab, f * d->n_ftab, 0))))
        return err;
    return 0;
}

/* The taps; with a resize, the scaler's tables and the lists of the columns
 * and rows it computes. */
static int dev_setup(SpeedDev *d, TvdTwin *t, const SpeedPipeline *pl)
{
    float taps[2 * SPEED_MAX_FW] = { 0 };
    memcpy(taps, pl->aa, sizeof(float) * (size_t)pl->aa_w);
    memcpy(taps + SPEED_MAX_FW, pl->lm, sizeof(float) * (size_t)pl->lm_w);
    int err = tvd_upload(t, tvd_whole(t, d->taps), taps);
    if (err || !pl->resize) return err;
    int32_t *it = malloc(sizeof(int32_t) * d->n_itab);
    float *ft = malloc(sizeof(float) * d->n_ftab);
    if (it && ft) {
        const size_t nx = d->yi_off, ny = d->cols_off - nx;
        for (size_t i = 0; i < nx; i++) it[i] = pl->xi[i];
        for (size_t i = 0; i < ny; i++) it[nx + i] = pl->yi[i];
        memcpy(ft, pl->xw, sizeof(float) * nx);
        memcpy(ft + nx, pl->yw, sizeof(float) * ny);
        int32_t *cols = it + d->cols_off, *rows = it + d->rows_off;
        for (int x = 0, k = 0; x < pl->sw; x++)
            if (pl->need_col[x]) cols[k++] = x;
        for (int y = 0, k = 0; y < pl->sh; y++)
            if (pl->need_row[y]) rows[k++] = y;
        err = tvd_upload(t, tvd_whole(t, d->itab), it);
        if (!err) err = tvd_upload(t, tvd_whole(t, d->ftab), ft);
    } else {
        err = -ENOMEM;
    }
    free(it);
    free(ft);
    return err;
}

#define GX(n) (((uint32_t)(n) + SPEED_BLOCK_W - 1) / SPEED_BLOCK_W)
/* a per-sample kernel over w x h samples of each of z images */
#define SAMPLES(w, h, z) ((TvdGrid){ GX(w), SPEED_GRID_Y(h), (z) })

static TvdView floats(TvdBuf b, size_t at, size_t n)
{
    return tvd_view(b, sizeof(float) * at, sizeof(float) * n);
}

/* The statistics of the n_img images in img (pw x ph each, rows of pw),
 * then their read-back into out's mirror. */
static int dev_run(SpeedDev *d, TvdTwin *t, const SpeedPipeline *pl)
{
    const SpeedGrid *g = &pl->g;
    const uint32_t z = d->n_img;
    const size_t nn = SPEED_NN;
    int err = 0;
    TvdView src = tvd_whole(t, d->img);
    uint64_t n_src = d->n_plane;
    int stride = pl->pw;
    if (pl->resize) {
        if (!d->zeroed) {
            if ((err = tvd_fill(t, tvd_whole(t, d->scaled), 0))) return err;
            d->zeroed = true;
        }
        const size_t nx = d->yi_off, ny = d->cols_off - nx;
        const SpeedResample a = {
            .img = src, .n_img = n_src, .stride = stride, .method = (int32_t)pl->method,
            .taps = pl->taps, .xi = tvd_view(d->itab, 0, sizeof(int32_t) * nx),
            .xw = floats(d->ftab, 0, nx),
            .yi = tvd_view(d->itab, sizeof(int32_t) * d->yi_off, sizeof(int32_t) * ny),
            .yw = floats(d->ftab, d->yw_off, ny),
            .cols = tvd_view(d->itab, sizeof(int32_t) * d->cols_off, sizeof(int32_t) * d->nc),
            .nc = d->nc,
            .rows = tvd_view(d->itab, sizeof(int32_t) * d->rows_off, sizeof(int32_t) * d->nr),
            .nr = d->nr, .sw = pl->sw, .scaled = tvd_whole(t, d->scaled),
            .n_scaled = d->n_scaled,
        };
        if ((err = tvd_launch(t, TVD_K_speed_resample_kernel, SAMPLES(d->nc, d->nr, z), &a)))
            return err;
        src = tvd_whole(t, d->scaled);
        n_src = d->n_scaled;
        stride = pl->sw;
    }
    const TvdView aa = floats(d->taps, 0, SPEED_MAX_FW);
    const TvdView lm = floats(d->taps, SPEED_MAX_FW, SPEED_MAX_FW);
    const int ew = pl->sw + 2 * (pl->aa_w / 2), ew2 = g->ow + 2 * (pl->lm_w / 2);
    const TvdView dec = floats(d->dec, 0, z * d->n_dec);
    const TvdView res = floats(d->dec, z * d->n_dec, z * d->n_dec);
    const TvdView k = floats(d->kqr, 0, z * nn), q = floats(d->kqr, z * nn, z * nn);
    const TvdView r = floats(d->kqr, 2 * z * nn, z * nn);
    const TvdView ext = tvd_whole(t, d->ext), ext2 = tvd_whole(t, d->ext2);
    const TvdView out = tvd_whole(t, d->out), eig = tvd_whole(t, d->eig);
    const SpeedAaV av = { .src = src, .n_src = n_src, .stride = stride, .sw = pl->sw,
                          .sh = pl->sh, .oh = g->oh, .taps = aa, .fw = pl->aa_w, .ext = ext,
                          .n_ext = d->n_ext };
    const SpeedAaH ah = { .ext = ext, .n_ext = d->n_ext, .ew = ew, .ow = g->ow, .oh = g->oh,
                          .taps = aa, .fw = pl->aa_w, .dec = dec, .n_dec = d->n_dec };
    const SpeedLmV lv = { .dec = dec, .n_dec = d->n_dec, .ow = g->ow, .oh = g->oh, .taps = lm,
                          .fw = pl->lm_w, .ext = ext2, .n_ext = d->n_ext2 };
    const SpeedLmH lh = { .ext = ext2, .n_ext = d->n_ext2, .ew = ew2, .dec = dec, .ow = g->ow,
                          .oh = g->oh, .taps = lm, .fw = pl->lm_w, .res = res,
                          .n_dec = d->n_dec };
    const SpeedCov cv = { .res = res, .n_dec = d->n_dec, .ow = g->ow, .oh = g->oh, .k = k };
    const SpeedFactor fa = { .k = k, .out = out, .n_out = d->n_out, .eig_ok = eig, .qf = q,
                             .rf = r };
    const SpeedBlocks bl = { .res = res, .n_dec = d->n_dec, .ow = g->ow, .oh = g->oh,
                             .eig_ok = eig, .qf = q, .rf = r, .out = out, .n_out = d->n_out };
    const uint32_t gb = ((uint32_t)g->nb + SPEED_BLOCK_THREADS - 1) / SPEED_BLOCK_THREADS;
    if ((err = tvd_launch(t, TVD_K_speed_aa_v, SAMPLES(ew, g->oh, z), &av)) ||
        (err = tvd_launch(t, TVD_K_speed_aa_h, SAMPLES(g->ow, g->oh, z), &ah)) ||
        (err = tvd_launch(t, TVD_K_speed_lm_v, SAMPLES(ew2, g->oh, z), &lv)) ||
        (err = tvd_launch(t, TVD_K_speed_lm_h, SAMPLES(g->ow, g->oh, z), &lh)) ||
        (err = tvd_launch(t, TVD_K_speed_cov, TVD_GRID(z, 1), &cv)) ||
        (err = tvd_launch(t, TVD_K_speed_factor, TVD_GRID(2, z), &fa)) ||
        (err = tvd_launch(t, TVD_K_speed_blocks, TVD_GRID(gb, z), &bl)))
        return err;
    return tvd_download(t, out);
}

/* Image img's read-back as side `side` of the pipeline: its variances and
 * the CPU's entropies. Returns whether it was singular. */
static int dev_side(const SpeedDev *d, TvdTwin *t, SpeedPipeline *pl, unsigned img, int side)
{
    const float *o = (const float *)tvd_mirror(t, d->out) + d->n_out * img;
    memcpy(pl->var[side], o + SPEED_NE + 1, sizeof(float) * (size_t)pl->g.nb);
    speed_pipeline_entropies(pl, o, side);
    return o[SPEED_NE] != 0.0f;
}

/* ------------------------------------------------------------------------ */
/* speed_temporal                                                           */
/* ------------------------------------------------------------------------ */

typedef struct SpeedTemporalPlan {
    SpeedTemporalParams p; /* first: the CPU extractor's state */
    SpeedDev d;            /* images: the reference's and the distorted's difference */
    TvdBuf luma;           /* ref and dis of frame k in slot k % 2: 4 planes */
    unsigned index;        /* the frame run() queued */
} SpeedTemporalPlan;

static int temporal_init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg,
                         size_t len)
{
    SpeedTemporalPlan *s = priv;
    int err = tvmaf_speed_temporal_setup(&s->p, vi, 0, msg, len);
    if (!err) err = dev_init(&s->d, t, &s->p.pl, "speed_temporal", 2, msg, len);
    return err ? err : tvd_buffer(t, &s->luma, 4 * sizeof(float) * s->d.n_plane, 0);
}

static int temporal_setup(void *priv, TvdTwin *t)
{
    SpeedTemporalPlan *s = priv;
    return dev_setup(&s->d, t, &s->p.pl);
}

static int temporal_run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    SpeedTemporalPlan *s = priv;
    SpeedTemporalParams *p = &s->p;
    SpeedDev *d = &s->d;
    if (tvd_planes(t, f) < 1 || tvmaf_speed_temporal_next(p, index)) return -EINVAL;
    s->index = index;
    const size_t n = d->n_plane, cur = index % 2, prev = !cur;
    const SpeedTload a = {
        .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0),
        .pitch = tvd_pitch(t, f, 0), .bpc = p->bpc, .w = p->w, .h = p->h,
        .divisor = sample_divisor(p->bpc), .first = index == 0,
        .use_ref_diff = p->use_ref_diff,
        .cur_ref = floats(s->luma, 2 * n * cur, n), .cur_dis = floats(s->luma, 2 * n * cur + n, n),
        .prev_ref = floats(s->luma, 2 * n * prev, n),
        .prev_dis = floats(s->luma, 2 * n * prev + n, n),
        .img0 = floats(d->img, 0, n), .img1 = floats(d->img, n, n),
    };
    int err = tvd_launch(t, TVD_K_speed_temporal_load, SAMPLES(p->w, p->h, 1), &a);
    return err || index == 0 ? err : dev_run(d, t, &p->pl);
}

static int temporal_report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    SpeedTemporalPlan *s = priv;
    SpeedTemporalParams *p = &s->p;
    if (index == 0) return tvmaf_speed_temporal_report(p, index, 0.0f, 0, sink);
    const int sr = dev_side(&s->d, t, &p->pl, 0, 0);
    const int sd = dev_side(&s->d, t, &p->pl, 1, 1);
    const float score = speed_pipeline_score(&p->pl, sr, sd);
    return tvmaf_speed_temporal_report(p, index, score, sr || sd, sink);
}

static void temporal_close(void *priv)
{
    speed_pipeline_close(&((SpeedTemporalPlan *)priv)->p.pl);
}

TVD_PLAN(speed, speed_temporal, SpeedTemporalPlan, .needs = TVD_NEEDS_CR_DIV_SQRT,
         .init = temporal_init, .setup = temporal_setup, .run = temporal_run,
         .report = temporal_report, .close = temporal_close);

/* ------------------------------------------------------------------------ */
/* speed_chroma                                                             */
/* ------------------------------------------------------------------------ */

typedef struct SpeedChromaPlan {
    SpeedChromaParams p; /* first: the CPU extractor's state */
    SpeedDev d;          /* images: U ref, U dis, V ref, V dis */
} SpeedChromaPlan;

static int chroma_init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    SpeedChromaPlan *s = priv;
    int err = tvmaf_speed_chroma_setup(&s->p, vi, 0, msg, len);
    return err ? err : dev_init(&s->d, t, &s->p.pl, "speed_chroma", 4, msg, len);
}

static int chroma_setup(void *priv, TvdTwin *t)
{
    SpeedChromaPlan *s = priv;
    return dev_setup(&s->d, t, &s->p.pl);
}

static int chroma_run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    SpeedChromaPlan *s = priv;
    SpeedChromaParams *p = &s->p;
    SpeedDev *d = &s->d;
    if (tvd_planes(t, f) < 3) return -EINVAL;
    int err = 0;
    /* image 2 (plane - 1) + dis */
    for (unsigned pl = 1; pl <= 2 && !err; pl++)
        for (int dis = 0; dis < 2 && !err; dis++) {
            const SpeedLoad a = {
                .src = tvd_plane(t, f, dis, pl), .pitch = tvd_pitch(t, f, pl), .bpc = p->bpc,
                .w = p->pw, .h = p->ph, .divisor = sample_divisor(p->bpc),
                .dst = floats(d->img, d->n_plane * (2 * (pl - 1) + (unsigned)dis), d->n_plane),
            };
            err = tvd_launch(t, TVD_K_speed_load, SAMPLES(p->pw, p->ph, 1), &a);
        }
    return err ? err : dev_run(d, t, &p->pl);
}

static int chroma_report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    SpeedChromaPlan *s = priv;
    SpeedChromaParams *p = &s->p;
    float score[2];
    int singular[2];
    for (unsigned k = 0; k < 2; k++) {
        const int sr = dev_side(&s->d, t, &p->pl, 2 * k, 0);
        const int sd = dev_side(&s->d, t, &p->pl, 2 * k + 1, 1);
        singular[k] = sr || sd;
        score[k] = speed_pipeline_score(&p->pl, sr, sd);
    }
    return tvmaf_speed_chroma_report(p, score[0], singular[0], score[1], singular[1], index, sink);
}

static void chroma_close(void *priv)
{
    speed_pipeline_close(&((SpeedChromaPlan *)priv)->p.pl);
}

TVD_PLAN(speed, speed_chroma, SpeedChromaPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = chroma_init,
         .setup = chroma_setup, .run = chroma_run, .report = chroma_report, .close = chroma_close);
