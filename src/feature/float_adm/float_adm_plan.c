/*
 * float_adm twin, plan (gpu/tvd.h): each frame, on the luma of both
 * pictures, per scale the kernels (float_adm_kernels.h) run the DWT, the
 * decouple and csf, the nine terms per pooled coefficient and, for p = 3,
 * one float total per pooled row and term. The host reads back the row
 * totals (p = 3) or the terms' bases (other p, raised with glibc's powf
 * here, as the CPU does), adds the rows in the CPU's order and pools and
 * reports with the CPU extractor's code (float_adm_state.h). The scales'
 * constants and the division's table (this processor's probed estimates, or
 * the goldens host's) are uploaded once per instance.
 */
#include <errno.h>
#include <stdio.h>

#include "feature/float_adm/float_adm_kernels.h"
#include "feature/float_adm/float_adm_state.h"

TVD_MODULE(float_adm, FLOAT_ADM_KERNELS)

typedef struct FloatAdmPlan {
    FloatAdmParams p; /* first: the CPU extractor's state */
    FadmTileScale sc[FADM_N_SCALES];
    const uint32_t *table; /* the device's division's estimates */
    size_t plane;
    TvdBuf scales; /* sc, uploaded */
    TvdBuf bands;  /* FADM_N_PLANES x plane floats */
    TvdBuf terms;  /* every scale's terms (mirrored unless p = 3) */
    TvdBuf rows;   /* every scale's row totals (p = 3: mirrored) */
    TvdBuf div;    /* TVMAF_RCPSS_TABLE_LEN words */
} FloatAdmPlan;

/* The scales of a stream; returns the floats of the terms (*n_terms) and of
 * the row totals (*n_rows) of all scales. div: the device's division. */
static void scales_init(FadmTileScale sc[FADM_N_SCALES], const FloatAdmParams *p, int div,
                        size_t *n_terms, size_t *n_rows)
{
    size_t terms = 0, rows = 0;
    int iw = p->w, ih = p->h;
    for (int k = 0; k < FADM_N_SCALES; k++) {
        FadmTileScale *c = &sc[k];
        c->gain_limit = p->gain_limit;
        c->cos_1deg_sq = p->cos_1deg_sq;
        for (int q = 0; q < 3; q++) c->rf[q] = p->rfactor[k][q];
        c->k = k;
        c->iw = iw;
        c->ih = ih;
        c->w = (iw + 1) / 2;
        c->h = (ih + 1) / 2;
        fadm_work_range(c->w, &c->work_l, &c->work_r);
        fadm_work_range(c->h, &c->work_t, &c->work_b);
        c->l = fadm_border(c->w);
        c->r = c->w - c->l;
        c->t = fadm_border(c->h);
        c->b = c->h - c->t;
        c->pw = c->r - c->l;
        c->ph = c->b - c->t;
        c->bs = (p->w + 1) / 2;
        c->bpc = (int)p->bpc;
        c->lo_only = k == 0 && p->skip_scale0;
        c->div = div;
        c->cube = p->cube;
        c->bypass_cm = p->bypass_cm;
        c->terms_off = terms;
        c->rows_off = rows;
        if (!c->lo_only) {
            terms += (size_t)FADM_N_TERMS * (size_t)c->pw * (size_t)c->ph;
            rows += (size_t)FADM_N_TERMS * (size_t)c->ph;
        }
        iw = c->w;
        ih = c->h;
    }
    *n_terms = terms;
    *n_rows = rows;
}

/* The device's division and its table for the stream's mode: "host" is
 * this processor's table (probed and proved once per process), "table" the
 * goldens host's; -EDOM (message written) where the model does not describe
 * this processor, which the device then cannot reproduce. */
static int division(const FloatAdmParams *p, const uint32_t **table, char *msg, size_t len)
{
    *table = tvmaf_rcpss_goldens_table;
    if (p->div == TVMAF_RCP_DIV_IEEE) return TVMAF_RCP_DIV_IEEE;
    if (p->div == TVMAF_RCP_DIV_HOST) {
        char why[192];
        const uint32_t *t = tvmaf_rcpss_host_table(why, sizeof(why));
        if (!t) {
            snprintf(msg, len, "feature \"float_adm\" (GPU): adm_div=host needs this processor's "
                     "RCPSS estimates as a table, and %s; the CPU extractor or adm_div=table or "
                     "ieee can score it", why);
            return -EDOM;
        }
        *table = t;
    }
    return TVMAF_RCP_DIV_TABLE;
}

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatAdmPlan *s = priv;
    FloatAdmParams *p = &s->p;
    int err = tvmaf_float_adm_setup(p, vi, msg, len);
    if (err) return err;
    const int div = division(p, &s->table, msg, len);
    if (div < 0) return div;
    size_t n_terms, n_rows;
    scales_init(s->sc, p, div, &n_terms, &n_rows);
    s->plane = (size_t)((p->w + 1) / 2) * (size_t)((p->h + 1) / 2);
    if ((err = tvd_buffer(t, &s->scales, sizeof(s->sc), 0)) ||
        (err = tvd_buffer(t, &s->bands, FADM_N_PLANES * s->plane * sizeof(float), 0)) ||
        (err = tvd_buffer(t, &s->terms, n_terms * sizeof(float), p->cube ? 0 : TVD_MIRROR)) ||
        (err = tvd_buffer(t, &s->rows, n_rows * sizeof(float), p->cube ? TVD_MIRROR : 0)))
        return err;
    return tvd_buffer(t, &s->div, TVMAF_RCPSS_TABLE_LEN * sizeof(uint32_t), 0);
}

static int setup(void *priv, TvdTwin *t)
{
    FloatAdmPlan *s = priv;
    const int err = tvd_upload(t, tvd_whole(t, s->scales), s->sc);
    return err ? err : tvd_upload(t, tvd_whole(t, s->div), s->table);
}

/* Queues scale k's launches. */
static int launch_scale(FloatAdmPlan *s, TvdTwin *t, const TvmafDeviceFrame *f, int k)
{
    const FadmTileScale *c = &s->sc[k];
    const TvdView sc = tvd_view(s->scales, sizeof(*c) * (size_t)k, sizeof(*c));
    const TvdView bands = tvd_whole(t, s->bands);
    const FadmDwtArgs da = {
        .sc = sc, .ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0),
        .pitch = tvd_pitch(t, f, 0), .bands = bands, .plane = s->plane,
    };
    int err = tvd_launch(t, TVD_K_float_adm_dwt, TVD_GRID(FADM_GRID_X(c->w), FADM_GRID_Y(c->h)),
                         &da);
    if (err || c->lo_only) return err;
    const FadmDecArgs dc = {
        .sc = sc, .bands = bands, .plane = s->plane, .table = tvd_whole(t, s->div),
    };
    err = tvd_launch(t, TVD_K_float_adm_decouple,
                     TVD_GRID(FADM_GRID_X(c->work_r - c->work_l),
                              FADM_GRID_Y(c->work_b - c->work_t)), &dc);
    if (err) return err;
    const FadmTermsArgs ta = {
        .sc = sc, .bands = bands, .plane = s->plane, .terms = tvd_whole(t, s->terms),
    };
    err = tvd_launch(t, TVD_K_float_adm_terms, TVD_GRID(FADM_GRID_X(c->pw), FADM_GRID_Y(c->ph)),
                     &ta);
    if (err || !c->cube) return err;
    const FadmRowsArgs ra = { .sc = sc, .terms = ta.terms, .rows = tvd_whole(t, s->rows) };
    const unsigned rows = (unsigned)(FADM_N_TERMS * c->ph);
    return tvd_launch(t, TVD_K_float_adm_rows,
                      TVD_GRID((rows + FADM_ROW_THREADS - 1) / FADM_ROW_THREADS, 1), &ra);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    FloatAdmPlan *s = priv;
    if (tvd_planes(t, f) < 1) return -EINVAL;
    int err = 0;
    for (int k = 0; k < FADM_N_SCALES && !err; k++) err = launch_scale(s, t, f, k);
    return err ? err : tvd_download(t, tvd_whole(t, s->p.cube ? s->rows : s->terms));
}

/* The CPU's outer accumulators of scale c from the read-back: p = 3 the row
 * totals (rows of all scales), else the bases (terms of all scales) raised
 * with powf and added row by row. acc: den[3], num[3], aim[3]. */
static void finish(const FadmTileScale *c, const FloatAdmParams *p, const float *back,
                   float acc[FADM_N_TERMS])
{
    const size_t n = (size_t)c->pw * (size_t)c->ph;
    for (int q = 0; q < FADM_N_TERMS; q++) {
        acc[q] = 0.0f;
        for (int y = 0; y < c->ph; y++) {
            if (c->cube) {
                acc[q] += back[c->rows_off + (size_t)q * (size_t)c->ph + (size_t)y];
                continue;
            }
            const float *v = back + c->terms_off + (size_t)q * n + (size_t)y * (size_t)c->pw;
            float sum = 0.0f;
            for (int x = 0; x < c->pw; x++) sum += fadm_pow_p(v[x], 0, p->p_norm);
            acc[q] += sum;
        }
    }
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FloatAdmPlan *s = priv;
    const float *back = tvd_mirror(t, s->p.cube ? s->rows : s->terms);
    FadmScaleSums sums[FADM_N_SCALES];
    for (int k = 0; k < FADM_N_SCALES; k++) {
        const FadmTileScale *c = &s->sc[k];
        if (c->lo_only) {
            sums[k] = tvmaf_float_adm_skipped();
            continue;
        }
        float acc[FADM_N_TERMS];
        finish(c, &s->p, back, acc);
        sums[k] = tvmaf_float_adm_pool(&s->p, c->w, c->h, acc, acc + 3, acc + 6);
    }
    return tvmaf_float_adm_report(&s->p, sums, index, sink);
}

TVD_PLAN(float_adm, float_adm, FloatAdmPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
