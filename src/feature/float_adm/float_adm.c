/*
 * float_adm on the CPU: libvmaf's floating-point ADM (adm2, aim, adm3,
 * adm_scale0..3 and the debug outputs), equal to the reference bit for bit.
 *
 * The arithmetic is in float_adm_math.h. This file holds the options, the
 * buffers and the loops: per scale, the DWT of both pictures row by row;
 * decouple and csf fused over the work region (they cover the same region
 * and csf only reads the decoupled values of its own position); den; and the
 * DLM and AIM masking sums in one pass, each with its own accumulators.
 *
 * Division mode (option adm_div, not part of the output names): the reference
 * divides through the processor's RCPSS estimate, so its scores depend on the
 * processor family (numerics/rcpss.h). "host" uses this processor's
 * instruction (the scores libvmaf gives on this machine), "table" replays the
 * goldens host's estimates (the goldens' scores on any machine), "ieee"
 * divides (libvmaf built without SSE2). The default, "auto", is "host";
 * without an RCPSS instruction "host" falls back to "table"
 * (tvmaf_rcp_div_resolve). A run sets the mode of every instance, those a
 * model registers included, through TvmafConfiguration.feature_defaults
 * (the CLI's --adm-div).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/float_adm/float_adm_math.h"
#include "feature/float_adm/float_adm_state.h"

/* Output names, in the order the reference appends them. */
enum {
    KEY_ADM2, KEY_AIM, KEY_ADM3, KEY_SCALE0, /* .. +3 */
    KEY_ADM = 7, KEY_NUM, KEY_DEN, KEY_NUM_SCALE0, /* num, den alternating per scale */
};

static const char *const key_names[FADM_N_KEYS] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
    "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score", "adm", "adm_num",
    "adm_den", "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
    "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3",
};

/* Bands of one picture at one scale: a (two buffers, alternating between
 * scales: one scale's a is the next one's input), h, v, d. */
typedef struct Pyramid {
    float *a[2];
    float *b[3]; /* h, v, d */
} Pyramid;

typedef struct FloatAdm {
    FloatAdmParams p; /* first: the option table's offsets point into it */

    /* buffers; band planes have the stride of scale 0's band width */
    void *mem;
    ptrdiff_t bstride;
    float *rows[4];     /* the four input rows of a DWT output row (scale 0) */
    float *lo, *hi;     /* vertical pass of one output row */
    float *tmp[8];      /* per-row scratch, band width: gains, terms, thresholds */
    Pyramid pyr[2];     /* reference, distorted */
    float *csf_r[3], *flt_r[3], *csf_a[3], *flt_a[3];
} FloatAdm;

#define FP TVMAF_OPT_FEATURE_PARAM

const TvmafOption tvmaf_float_adm_options[] = {
    { "debug", "debug mode: enable additional output",
      offsetof(FloatAdmParams, debug), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "adm_enhn_gain_limit", "enhancement gain imposed on adm, must be >= 1.0, "
      "where 1.0 means the gain is completely disabled",
      offsetof(FloatAdmParams, gain_limit), TVMAF_OPT_DOUBLE, { .d = 100.0 }, 1.0, 100.0, FP, "egl" },
    { "adm_norm_view_dist",
      "normalized viewing distance = viewing distance / ref display's physical height",
      offsetof(FloatAdmParams, norm_view_dist), TVMAF_OPT_DOUBLE, { .d = 3.0 }, 0.75, 24.0, FP, "nvd" },
    { "adm_noise_weight", "noise weight",
      offsetof(FloatAdmParams, noise_weight), TVMAF_OPT_DOUBLE, { .d = 0.03125 }, 0.0, 1500.0, FP,
      "nw" },
    { "adm_csf_scale", "scale factor for the CSF",
      offsetof(FloatAdmParams, csf_scale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 50.0, FP, "scf" },
    { "adm_csf_diag_scale", "scale factor for the CSF diag",
      offsetof(FloatAdmParams, csf_diag_scale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 50.0, FP,
      "scfd" },
    { "adm_ref_display_height", "reference display height in pixels",
      offsetof(FloatAdmParams, ref_display_height), TVMAF_OPT_INT, { .i = 1080 }, 1, 4320, FP, "rdf" },
    { "adm_csf_mode", "contrast sensitivity function",
      offsetof(FloatAdmParams, csf_mode), TVMAF_OPT_INT, { .i = FADM_CSF_WATSON97 }, 0, 9, FP, "csf" },
    { "adm_bypass_cm", "bypass contrast masking (CM)",
      offsetof(FloatAdmParams, bypass_cm), TVMAF_OPT_INT, { .i = 0 }, 0, 1, FP, "bcm" },
    { "adm_adm3_apply_hm", "apply harmonic mean to combine DLM and AIM",
      offsetof(FloatAdmParams, adm3_apply_hm), TVMAF_OPT_BOOL, { .b = false }, 0, 0, FP, "aah" },
    { "adm_p_norm", "p-norm for energy vector",
      offsetof(FloatAdmParams, p_norm), TVMAF_OPT_DOUBLE, { .d = 3.0 }, 1.0, 20.0, FP, "apn" },
    { "adm_dlm_weight", "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
      offsetof(FloatAdmParams, dlm_weight), TVMAF_OPT_DOUBLE, { .d = 0.5 }, 0.0, 1.0, FP, "dlmw" },
    { "adm_min_val", "minimum value allowed; lower values will be clipped to this value",
      offsetof(FloatAdmParams, min_val), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 1.0, FP, "min" },
    { "adm_f1s0", "factor1 scale0", offsetof(FloatAdmParams, f1[0]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f1s0" },
    { "adm_f1s1", "factor1 scale1", offsetof(FloatAdmParams, f1[1]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f1s1" },
    { "adm_f1s2", "factor1 scale2", offsetof(FloatAdmParams, f1[2]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f1s2" },
    { "adm_f1s3", "factor1 scale3", offsetof(FloatAdmParams, f1[3]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f1s3" },
    { "adm_f2s0", "factor2 scale0", offsetof(FloatAdmParams, f2[0]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f2s0" },
    { "adm_f2s1", "factor2 scale1", offsetof(FloatAdmParams, f2[1]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f2s1" },
    { "adm_f2s2", "factor2 scale2", offsetof(FloatAdmParams, f2[2]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f2s2" },
    { "adm_f2s3", "factor2 scale3", offsetof(FloatAdmParams, f2[3]), TVMAF_OPT_DOUBLE, { .d = -1.0 },
      -1.0, 10.0, FP, "f2s3" },
    { "adm_skip_aim_scale", "when set, skip AIM calculations for that scale",
      offsetof(FloatAdmParams, skip_aim_scale), TVMAF_OPT_INT, { .i = -1 }, 0, 3, FP, "sasc" },
    { "adm_skip_scale0", "skip the calculation of scale 0",
      offsetof(FloatAdmParams, skip_scale0), TVMAF_OPT_BOOL, { .b = false }, 0, 0, FP, "ssz" },
    { "adm_div", "division t / o: host (this processor's RCPSS reciprocal estimate plus one "
      "Newton step, as libvmaf on this machine), table (the goldens host's estimates), ieee "
      "(plain division), auto (host); not part of output names; the CLI's --adm-div sets it for "
      "every instance",
      offsetof(FloatAdmParams, div_name), TVMAF_OPT_STRING, { .s = "auto" }, 0, 0, 0, NULL },
    { 0 },
};

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */
/* ------------------------------------------------------------------------ */

static int resolve_div(FloatAdmParams *p, char *msg, size_t len)
{
    const int div = tvmaf_rcp_div_resolve(p->div_name, msg, len);
    if (div < 0) return -EINVAL;
    p->div = div;
    p->table = tvmaf_rcpss_goldens_table;
    return 0;
}

int tvmaf_float_adm_setup(FloatAdmParams *p, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (vi->w < FADM_MIN_SIDE || vi->h < FADM_MIN_SIDE) {
        snprintf(msg, len, "feature \"float_adm\" needs a frame of at least %dx%d (its coarsest "
                 "wavelet band needs 2 samples per side); the input is %ux%u", FADM_MIN_SIDE,
                 FADM_MIN_SIDE, vi->w, vi->h);
        return -EINVAL;
    }
    if (vi->bpc != 8 && vi->bpc != 10 && vi->bpc != 12 && vi->bpc != 16) {
        snprintf(msg, len, "feature \"float_adm\" supports 8, 10, 12 and 16 bits per sample; the "
                 "input has %u", vi->bpc);
        return -EINVAL;
    }
    int err = resolve_div(p, msg, len);
    if (err) return err;
    p->w = (int)vi->w;
    p->h = (int)vi->h;
    p->bpc = vi->bpc;
    p->cos_1deg_sq = cos(1.0 * M_PI / 180.0) * cos(1.0 * M_PI / 180.0);
    p->cube = p->p_norm == 3.0;
    for (int k = 0; k < FADM_N_SCALES; k++)
        fadm_csf_weights(p->csf_mode, k, p->norm_view_dist, p->ref_display_height, p->csf_scale,
                         p->csf_diag_scale, p->f1[k], p->f2[k], p->rfactor[k]);
    for (int i = 0; i < FADM_N_KEYS; i++) {
        /* "adm" is not among the reference's provided features, so it never
         * takes option suffixes */
        const int e = i == KEY_ADM
            ? (snprintf(p->key[i], FADM_KEY_LEN, "%s", key_names[i]) >= FADM_KEY_LEN)
            : tvmaf_feature_key(p->key[i], FADM_KEY_LEN, key_names[i], tvmaf_float_adm_options,
                                p);
        if (e) {
            snprintf(msg, len, "feature \"float_adm\": output key name too long");
            return -EINVAL;
        }
    }
    return 0;
}

static int alloc_buffers(FloatAdm *s)
{
    const size_t bw = (size_t)(s->p.w + 1) / 2, bh = (size_t)(s->p.h + 1) / 2;
    const size_t band = bw * bh;
    const size_t row = (size_t)s->p.w;
    /* 6 rows of the frame width, 8 of the band width; per picture 2 + 3
     * bands; 12 csf/flt bands */
    const size_t n = 6 * row + 8 * bw + (2 * 5 + 12) * band;
    float *p = malloc(n * sizeof(float));
    if (!p) return -ENOMEM;
    s->mem = p;
    s->bstride = (ptrdiff_t)bw;
    for (int k = 0; k < 4; k++) { s->rows[k] = p; p += row; }
    s->lo = p; p += row;
    s->hi = p; p += row;
    for (int k = 0; k < 8; k++) { s->tmp[k] = p; p += bw; }
    for (int q = 0; q < 2; q++) {
        s->pyr[q].a[0] = p; p += band;
        s->pyr[q].a[1] = p; p += band;
        for (int b = 0; b < 3; b++) { s->pyr[q].b[b] = p; p += band; }
    }
    for (int b = 0; b < 3; b++) {
        s->csf_r[b] = p; p += band;
        s->flt_r[b] = p; p += band;
        s->csf_a[b] = p; p += band;
        s->flt_a[b] = p; p += band;
    }
    return 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatAdm *s = priv;
    int err = tvmaf_float_adm_setup(&s->p, vi, msg, len);
    if (err) return err;
    if (alloc_buffers(s)) {
        snprintf(msg, len, "feature \"float_adm\": out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Stages                                                                   */
/* ------------------------------------------------------------------------ */

/* Row y of the picture's luma as the reference's floats. */
static void load_row(const TvmafPicture *pic, int y, int w, float *dst)
{
    const unsigned char *row = (const unsigned char *)pic->data[0] + (ptrdiff_t)y * pic->stride[0];
    if (pic->bpc == 8) {
        for (int j = 0; j < w; j++) dst[j] = fadm_sample8(row[j]);
    } else {
        const uint16_t *r16 = (const uint16_t *)row;
        const float divisor = sample_divisor(pic->bpc);
        for (int j = 0; j < w; j++) dst[j] = fadm_sample16(r16[j], divisor);
    }
}

/*
 * One scale's DWT of one picture: the input is the picture itself (pic, at
 * scale 0) or the previous scale's a band (src, stride bstride), iw x ih.
 * Writes a (to a_out) and, unless lo_only, h, v, d. Output columns whose
 * taps 2j - 1 .. 2j + 2 lie inside the line, [1, (iw - 1) / 2), read them
 * directly; the others through mirror_skip_first_repeat_last.
 */
static void dwt(FloatAdm *s, const TvmafPicture *pic, const float *src, int iw, int ih,
                float *a_out, float *const hvd[3], int lo_only)
{
    const int bw = (iw + 1) / 2, bh = (ih + 1) / 2;
    const int inner_end = (iw - 1) / 2;
    const ptrdiff_t bs = s->bstride;
    float *restrict lo = s->lo, *restrict hi = s->hi;
    for (int i = 0; i < bh; i++) {
        const float *r[4];
        for (int k = 0; k < 4; k++) {
            const int y = mirror_skip_first_repeat_last(2 * i - 1 + k, ih);
            if (pic) {
                load_row(pic, y, iw, s->rows[k]);
                r[k] = s->rows[k];
            } else {
                r[k] = src + y * bs;
            }
        }
        const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
        float *a = a_out + i * bs;
        if (lo_only) {
            for (int j = 0; j < iw; j++) lo[j] = fadm_fir_lo(r0[j], r1[j], r2[j], r3[j]);
            for (int j = 0; j < bw; j++) {
                if (j >= 1 && j < inner_end) {
                    a[j] = fadm_fir_lo(lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
                    continue;
                }
                const int j0 = mirror_skip_first_repeat_last(2 * j - 1, iw);
                const int j1 = mirror_skip_first_repeat_last(2 * j, iw);
                const int j2 = mirror_skip_first_repeat_last(2 * j + 1, iw);
                const int j3 = mirror_skip_first_repeat_last(2 * j + 2, iw);
                a[j] = fadm_fir_lo(lo[j0], lo[j1], lo[j2], lo[j3]);
            }
            continue;
        }
        for (int j = 0; j < iw; j++) {
            lo[j] = fadm_fir_lo(r0[j], r1[j], r2[j], r3[j]);
            hi[j] = fadm_fir_hi(r0[j], r1[j], r2[j], r3[j]);
        }
        float *restrict dh = hvd[0] + i * bs, *restrict dv = hvd[1] + i * bs;
        float *restrict dd = hvd[2] + i * bs;
        /* low vertical: a (low horizontal), v (high horizontal);
         * high vertical: h (low horizontal), d (high horizontal) */
        for (int j = 1; j < inner_end; j++) {
            const float *l4 = lo + 2 * j - 1, *h4 = hi + 2 * j - 1;
            a[j] = fadm_fir_lo(l4[0], l4[1], l4[2], l4[3]);
            dv[j] = fadm_fir_hi(l4[0], l4[1], l4[2], l4[3]);
            dh[j] = fadm_fir_lo(h4[0], h4[1], h4[2], h4[3]);
            dd[j] = fadm_fir_hi(h4[0], h4[1], h4[2], h4[3]);
        }
        for (int j = 0; j < bw; j = (j == 0 && inner_end > 1) ? inner_end : j + 1) {
            const int j0 = mirror_skip_first_repeat_last(2 * j - 1, iw);
            const int j1 = mirror_skip_first_repeat_last(2 * j, iw);
            const int j2 = mirror_skip_first_repeat_last(2 * j + 1, iw);
            const int j3 = mirror_skip_first_repeat_last(2 * j + 2, iw);
            a[j] = fadm_fir_lo(lo[j0], lo[j1], lo[j2], lo[j3]);
            dv[j] = fadm_fir_hi(lo[j0], lo[j1], lo[j2], lo[j3]);
            dh[j] = fadm_fir_lo(hi[j0], hi[j1], hi[j2], hi[j3]);
            dd[j] = fadm_fir_hi(hi[j0], hi[j1], hi[j2], hi[j3]);
        }
    }
}

/* The gains of a row's work columns [l, r), into s->tmp[0..2]; `div` is a
 * constant at each call so that each mode gets its own loop. */
static inline void gains_row_div(FloatAdm *s, ptrdiff_t row, int l, int r, int div)
{
    for (int q = 0; q < 3; q++) {
        const float *o = s->pyr[0].b[q] + row, *t = s->pyr[1].b[q] + row;
        float *k = s->tmp[q];
        for (int j = l; j < r; j++) k[j] = fadm_gain(o[j], t[j], div, s->p.table);
    }
}

/* Decouple and csf over the work region of scale k (w x h). */
static void decouple_csf(FloatAdm *s, int k, int w, int h)
{
    const ptrdiff_t bs = s->bstride;
    int l, r, t, b;
    fadm_work_range(w, &l, &r);
    fadm_work_range(h, &t, &b);
    const float *rf = s->p.rfactor[k];
    for (int i = t; i < b; i++) {
        const ptrdiff_t row = i * bs;
        switch (s->p.div) {
        case TVMAF_RCP_DIV_HOST: gains_row_div(s, row, l, r, TVMAF_RCP_DIV_HOST); break;
        case TVMAF_RCP_DIV_TABLE: gains_row_div(s, row, l, r, TVMAF_RCP_DIV_TABLE); break;
        default: gains_row_div(s, row, l, r, TVMAF_RCP_DIV_IEEE); break;
        }
        const float *oh = s->pyr[0].b[0] + row, *ov = s->pyr[0].b[1] + row;
        const float *od = s->pyr[0].b[2] + row;
        const float *th = s->pyr[1].b[0] + row, *tv = s->pyr[1].b[1] + row;
        const float *td = s->pyr[1].b[2] + row;
        const float *kh = s->tmp[0], *kv = s->tmp[1], *kd = s->tmp[2];
        float *restrict cr0 = s->csf_r[0] + row, *restrict cr1 = s->csf_r[1] + row;
        float *restrict cr2 = s->csf_r[2] + row;
        float *restrict fr0 = s->flt_r[0] + row, *restrict fr1 = s->flt_r[1] + row;
        float *restrict fr2 = s->flt_r[2] + row;
        float *restrict ca0 = s->csf_a[0] + row, *restrict ca1 = s->csf_a[1] + row;
        float *restrict ca2 = s->csf_a[2] + row;
        float *restrict fa0 = s->flt_a[0] + row, *restrict fa1 = s->flt_a[1] + row;
        float *restrict fa2 = s->flt_a[2] + row;
        for (int j = l; j < r; j++) {
            const float o3[3] = { oh[j], ov[j], od[j] };
            const float t3[3] = { th[j], tv[j], td[j] };
            const float k3[3] = { kh[j], kv[j], kd[j] };
            float cr[3], fr[3], ca[3], fa[3];
            fadm_split_csf(o3, t3, k3, s->p.cos_1deg_sq, s->p.gain_limit, rf, cr, fr, ca, fa);
            cr0[j] = cr[0]; cr1[j] = cr[1]; cr2[j] = cr[2];
            fr0[j] = fr[0]; fr1[j] = fr[1]; fr2[j] = fr[2];
            ca0[j] = ca[0]; ca1[j] = ca[1]; ca2[j] = ca[2];
            fa0[j] = fa[0]; fa1[j] = fa[1]; fa2[j] = fa[2];
        }
    }
}

/* den of scale k (w x h): the reference's weighted bands to the power p over
 * the pooled region, a float per row and orientation, rows into a float
 * (acc[3]). */
static void den_scale(FloatAdm *s, int k, int w, int h, float acc[3])
{
    const ptrdiff_t bs = s->bstride;
    const int l = fadm_border(w), r = w - l, t = fadm_border(h), b = h - t;
    const float *rf = s->p.rfactor[k];
    acc[0] = acc[1] = acc[2] = 0.0f;
    for (int i = t; i < b; i++) {
        for (int q = 0; q < 3; q++) {
            const float *o = s->pyr[0].b[q] + i * bs;
            float *restrict term = s->tmp[q];
            for (int j = l; j < r; j++)
                term[j] = fadm_den_term(rf[q], o[j], s->p.cube, s->p.p_norm);
        }
        /* three independent sums, each left to right */
        const float *t0 = s->tmp[0], *t1 = s->tmp[1], *t2 = s->tmp[2];
        float r0 = 0.0f, r1 = 0.0f, r2 = 0.0f;
        for (int j = l; j < r; j++) {
            r0 += t0[j];
            r1 += t1[j];
            r2 += t2[j];
        }
        acc[0] += r0;
        acc[1] += r1;
        acc[2] += r2;
    }
}

/* Thresholds of row i over [l, r) into out: the flt bands `flt`, the csf
 * bands `csf` (centres); neighbours mirrored at the band's edges. */
static void thr_row(float *const flt[3], float *const csf[3], ptrdiff_t bs, int i, int h, int l,
                    int r, int w, float *restrict out)
{
    const float *up[3], *mid[3], *dn[3], *c[3];
    const ptrdiff_t ru = fadm_prev(i) * bs, rm = i * bs, rd = fadm_next(i, h) * bs;
    for (int q = 0; q < 3; q++) {
        up[q] = flt[q] + ru;
        mid[q] = flt[q] + rm;
        dn[q] = flt[q] + rd;
        c[q] = csf[q] + rm;
    }
    int j = l;
    if (j == 0) {
        out[0] = fadm_thr_at(up, mid, dn, c, fadm_prev(0), 0, fadm_next(0, w));
        j = 1;
    }
    const int inner_end = r < w - 1 ? r : w - 1;
    for (; j < inner_end; j++) out[j] = fadm_thr_at(up, mid, dn, c, j - 1, j, j + 1);
    for (; j < r; j++) out[j] = fadm_thr_at(up, mid, dn, c, fadm_prev(j), j, fadm_next(j, w));
}

/*
 * cm of a w x h scale: the DLM numerator masks csf(r) by the threshold of
 * csf(a); AIM masks csf(a) by the threshold of csf(r). Rows of the pooled
 * region top to bottom, each left to right, into a float per orientation;
 * the row totals into another (acc_n[3], acc_a[3]).
 */
static void cm_scale(FloatAdm *s, int w, int h, float acc_n[3], float acc_a[3])
{
    const ptrdiff_t bs = s->bstride;
    const int l = fadm_border(w), r = w - l, t = fadm_border(h), b = h - t;
    float *thr_n = s->tmp[6], *thr_a = s->tmp[7];
    for (int q = 0; q < 3; q++) acc_n[q] = acc_a[q] = 0.0f;
    if (s->p.bypass_cm) {
        for (int j = l; j < r; j++) thr_n[j] = thr_a[j] = 0.0f;
    }
    for (int i = t; i < b; i++) {
        if (!s->p.bypass_cm) {
            thr_row(s->flt_a, s->csf_a, bs, i, h, l, r, w, thr_n);
            thr_row(s->flt_r, s->csf_r, bs, i, h, l, r, w, thr_a);
        }
        for (int q = 0; q < 3; q++) {
            const float *xr = s->csf_r[q] + i * bs, *xa = s->csf_a[q] + i * bs;
            float *restrict tn = s->tmp[q], *restrict ta = s->tmp[3 + q];
            for (int j = l; j < r; j++) {
                tn[j] = fadm_cm_term(xr[j], thr_n[j], s->p.cube, s->p.p_norm);
                ta[j] = fadm_cm_term(xa[j], thr_a[j], s->p.cube, s->p.p_norm);
            }
        }
        /* six independent sums, each left to right */
        const float *tn0 = s->tmp[0], *tn1 = s->tmp[1], *tn2 = s->tmp[2];
        const float *ta0 = s->tmp[3], *ta1 = s->tmp[4], *ta2 = s->tmp[5];
        float rn0 = 0.0f, rn1 = 0.0f, rn2 = 0.0f, ra0 = 0.0f, ra1 = 0.0f, ra2 = 0.0f;
        for (int j = l; j < r; j++) {
            rn0 += tn0[j];
            rn1 += tn1[j];
            rn2 += tn2[j];
            ra0 += ta0[j];
            ra1 += ta1[j];
            ra2 += ta2[j];
        }
        acc_n[0] += rn0;
        acc_n[1] += rn1;
        acc_n[2] += rn2;
        acc_a[0] += ra0;
        acc_a[1] += ra1;
        acc_a[2] += ra2;
    }
}

FadmScaleSums tvmaf_float_adm_pool(const FloatAdmParams *p, int w, int h, const float den[3],
                                   const float num[3], const float aim[3])
{
    const int l = fadm_border(w), r = w - l, t = fadm_border(h), b = h - t;
    const int area = (r - l) * (b - t);
    float sd = 0.0f, sn = 0.0f, sa = 0.0f;
    for (int q = 0; q < 3; q++) {
        const float vd = fadm_pool(den[q], area, p->noise_weight, p->p_norm);
        sd = q ? sd + vd : vd;
    }
    for (int q = 0; q < 3; q++) {
        const float vn = fadm_pool(num[q], area, p->noise_weight, p->p_norm);
        const float va = fadm_pool(aim[q], area, 0.0, p->p_norm); /* AIM: no noise floor */
        sn = q ? sn + vn : vn;
        sa = q ? sa + va : va;
    }
    return (FadmScaleSums){ .num = sn, .den = sd, .aim = sa };
}

FadmScaleSums tvmaf_float_adm_skipped(void)
{
    return (FadmScaleSums){ .num = 0.0f, .den = 1e-10, .aim = 0.0f };
}

/* ------------------------------------------------------------------------ */
/* Frame                                                                    */
/* ------------------------------------------------------------------------ */

unsigned tvmaf_float_adm_outputs(const FloatAdmParams *p, const FadmScaleSums sc[FADM_N_SCALES],
                                 double out[FADM_N_KEYS])
{
    double num = 0, den = 0, aim_num = 0, aim_den = 0;
    double part[2 * FADM_N_SCALES];
    for (int k = 0; k < FADM_N_SCALES; k++) {
        const float n = sc[k].num, d = sc[k].den, a = sc[k].aim;
        num += n;
        den += d;
        if (p->skip_aim_scale != k) {
            aim_den += d;
            aim_num += a;
        }
        part[2 * k] = n;
        part[2 * k + 1] = d;
    }

    const double limit = 1e-10 * (p->w * p->h) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    double score, score_aim;
    if (den == 0.0) {
        /* the reference leaves its AIM score unset here; 0 (no additive
         * impairment) goes with the score of 1 */
        score = 1.0f;
        score_aim = 0.0;
    } else {
        const double q = aim_num / aim_den;
        score_aim = q < 1.0f ? q : 1.0f;
        score = num / den;
    }
    double adm3;
    if (p->adm3_apply_hm)
        adm3 = 2 * score * score_aim / (score + score_aim);
    else
        adm3 = score * p->dlm_weight + (1 - score_aim) * (1 - p->dlm_weight);
    adm3 = adm3 > p->min_val ? adm3 : p->min_val;

    out[KEY_ADM2] = score;
    out[KEY_AIM] = score_aim;
    out[KEY_ADM3] = adm3;
    for (int k = 0; k < FADM_N_SCALES; k++) out[KEY_SCALE0 + k] = part[2 * k] / part[2 * k + 1];
    if (!p->debug) return KEY_ADM;
    out[KEY_ADM] = score;
    out[KEY_NUM] = num;
    out[KEY_DEN] = den;
    for (int i = 0; i < 2 * FADM_N_SCALES; i++) out[KEY_NUM_SCALE0 + i] = part[i];
    return FADM_N_KEYS;
}

int tvmaf_float_adm_report(const FloatAdmParams *p, const FadmScaleSums sc[FADM_N_SCALES],
                           unsigned index, TvmafSink *sink)
{
    double out[FADM_N_KEYS];
    const unsigned n = tvmaf_float_adm_outputs(p, sc, out);
    int err = 0;
    for (unsigned i = 0; i < n; i++) err |= tvmaf_sink_append(sink, p->key[i], index, out[i]);
    return err ? -EINVAL : 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatAdm *s = priv;
    const TvmafPicture *pic[2] = { ref, dis };
    FadmScaleSums sc[FADM_N_SCALES];
    int iw = s->p.w, ih = s->p.h;
    for (int k = 0; k < FADM_N_SCALES; k++) {
        const int w = (iw + 1) / 2, h = (ih + 1) / 2;
        const int lo_only = k == 0 && s->p.skip_scale0;
        for (int q = 0; q < 2; q++) {
            const Pyramid *p = &s->pyr[q];
            dwt(s, k ? NULL : pic[q], k ? p->a[(k - 1) & 1] : NULL, iw, ih, p->a[k & 1], p->b,
                lo_only);
        }
        if (lo_only) {
            sc[k] = tvmaf_float_adm_skipped();
        } else {
            float den[3], num[3], aim[3];
            decouple_csf(s, k, w, h);
            den_scale(s, k, w, h, den);
            cm_scale(s, w, h, num, aim);
            sc[k] = tvmaf_float_adm_pool(&s->p, w, h, den, num, aim);
        }
        iw = w;
        ih = h;
    }
    return tvmaf_float_adm_report(&s->p, sc, index, sink);
}

static void close_(void *priv)
{
    FloatAdm *s = priv;
    free(s->mem);
    s->mem = NULL;
}

/* The reference's list (which names "adm_scale0" and leaves out "adm"). */
const char *const tvmaf_float_adm_provided[] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
    "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score", "adm_num", "adm_den",
    "adm_scale0", "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
    "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3", NULL,
};

const TvmafExtractor tvmaf_fex_float_adm = {
    .name = "float_adm",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_float_adm_options,
    .priv_size = sizeof(FloatAdm),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_,
    .provided_features = tvmaf_float_adm_provided,
};
