/*
 * vif on the CPU: integer_vif_scale0..3 (and the debug outputs), equal to
 * libvmaf's integer VIF extractor bit for bit.
 *
 * Scale 0 is read straight from the picture; scales 1..3 are kept in this
 * instance's buffers as 16-bit images, one sample per decimated position
 * (only the even rows and columns of the low-pass are computed: the others
 * are discarded by the decimation anyway). Borders are mirrored by index
 * vertically and by padding the row buffers horizontally.
 *
 * The loops are arranged for the compiler's vectoriser, never changing a
 * value: the vertical passes take the taps in the outer loop over blocks of
 * VIF_BLOCK contiguous columns; the horizontal pass of the statistic is
 * inlined per scale with a constant tap count; and products are split so
 * that every multiply is 16 by 16 bits into 32 (exact integer sums, equal to
 * the reference's wider products whatever the grouping).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"

/* libvmaf's DEFAULT_VIF_ENHN_GAIN_LIMIT, also the option's maximum */
#define VIF_GAIN_LIMIT_DEFAULT 100.0

#define VIF_BLOCK 64

const char *const tvmaf_vif_provided[VIF_N_KEYS + 1] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_vif", "integer_vif_num", "integer_vif_den",
    "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
    NULL,
};

/*
 * One row of vertical-pass results, 16-bit each, with VIF_MAX_HALF samples of
 * mirrored padding on both sides. A mean fits 16 bits; a 32-bit moment is
 * kept as its low and high halves, so the horizontal pass multiplies 16 by 16
 * bits only (sum of c * v = sum of c * lo + 2^16 * sum of c * hi, each partial
 * sum below 65536 * 65535 < 2^32). The low-pass uses rows MU1 and MU2 for its
 * reference and distorted.
 */
enum { MU1, MU2, XX_LO, XX_HI, YY_LO, YY_HI, XY_LO, XY_HI, N_ROWS };

typedef struct VifState {
    VifParams p; /* first: the option offsets are relative to it */
    uint16_t *img[VIF_N_SCALES][2]; /* scales 1..3: reference, distorted (w[s] x h[s]) */
    uint16_t *row[N_ROWS];
    void *mem;
    uint16_t log2_table[VIF_LOG2_TABLE_LEN];
} VifState;

const TvmafOption tvmaf_vif_options[] = {
    { "debug", "debug mode: enable additional output",
      offsetof(VifParams, debug), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "vif_enhn_gain_limit", "enhancement gain imposed on vif, must be >= 1.0, "
      "where 1.0 means the gain is completely disabled",
      offsetof(VifParams, gain_limit), TVMAF_OPT_DOUBLE, { .d = VIF_GAIN_LIMIT_DEFAULT },
      1.0, VIF_GAIN_LIMIT_DEFAULT, TVMAF_OPT_FEATURE_PARAM, "egl" },
    { "vif_skip_scale0", "when set, skip scale 0 calculations",
      offsetof(VifParams, skip_scale0), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "ssclz" },
    { 0 },
};

static void pad_row(uint16_t *row, unsigned w, unsigned half)
{
    for (unsigned f = 1; f <= half; f++) {
        row[-(int)f] = row[f];
        row[w - 1 + f] = row[w - 1 - f];
    }
}

static inline const void *row_at(const void *base, ptrdiff_t stride, int r)
{
    return (const char *)base + r * stride;
}

/* Stores a moment (at most 32 bits) as its two 16-bit halves. */
static inline void put_split(uint16_t *const *row, unsigned which, unsigned j, uint32_t v)
{
    row[which][j] = (uint16_t)v;
    row[which + 1][j] = (uint16_t)(v >> 16);
}

/* ---- statistic: vertical pass of output row i ---------------------------- */

/* 8-bit scale 0: a squared or cross sample fits 16 bits and every sum fits
 * 32 bits (65536 * 255^2 < 2^32). Out of line: inlined into extract(), GCC
 * compiles it into about 7% more instructions. */
static __attribute__((noinline)) void
stat_vertical_8(uint16_t *const *out, const uint8_t *ref, ptrdiff_t ref_stride,
                const uint8_t *dis, ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[0];
    const uint16_t *taps = vif_filter_taps[0];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t m1[VIF_BLOCK] = { 0 }, m2[VIF_BLOCK] = { 0 };
        uint32_t xx[VIF_BLOCK] = { 0 }, yy[VIF_BLOCK] = { 0 }, xy[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_mirror((int)i - (int)(fw / 2) + (int)k, (int)h);
            const uint8_t *pr = (const uint8_t *)row_at(ref, ref_stride, r) + j0;
            const uint8_t *pd = (const uint8_t *)row_at(dis, dis_stride, r) + j0;
            const uint16_t c = taps[k];
            for (unsigned b = 0; b < n; b++) {
                const uint16_t x = pr[b], y = pd[b];
                m1[b] += (uint32_t)c * x;
                m2[b] += (uint32_t)c * y;
                xx[b] += (uint32_t)c * (uint16_t)(x * x);
                yy[b] += (uint32_t)c * (uint16_t)(y * y);
                xy[b] += (uint32_t)c * (uint16_t)(x * y);
            }
        }
        for (unsigned b = 0; b < n; b++) {
            const unsigned j = j0 + b;
            out[MU1][j] = (uint16_t)vif_round_shift32(m1[b], mu_shift);
            out[MU2][j] = (uint16_t)vif_round_shift32(m2[b], mu_shift);
            put_split(out, XX_LO, j, vif_round_shift32(xx[b], sq_shift));
            put_split(out, YY_LO, j, vif_round_shift32(yy[b], sq_shift));
            put_split(out, XY_LO, j, vif_round_shift32(xy[b], sq_shift));
        }
    }
}

/* 9..16-bit samples (input above 8 bits, and every scale after 0): the means
 * fit 32 bits; a moment's sum reaches 48 bits before its shift and is kept
 * as the sums of the low and high halves of the 32-bit sample products. */
static void stat_vertical_16(uint16_t *const *out, const uint16_t *ref, ptrdiff_t ref_stride,
                             const uint16_t *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                             unsigned i, unsigned scale, unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t m1[VIF_BLOCK] = { 0 }, m2[VIF_BLOCK] = { 0 };
        uint32_t xl[VIF_BLOCK] = { 0 }, xh[VIF_BLOCK] = { 0 }, yl[VIF_BLOCK] = { 0 };
        uint32_t yh[VIF_BLOCK] = { 0 }, cl[VIF_BLOCK] = { 0 }, ch[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_mirror((int)i - (int)(fw / 2) + (int)k, (int)h);
            const uint16_t *pr = (const uint16_t *)row_at(ref, ref_stride, r) + j0;
            const uint16_t *pd = (const uint16_t *)row_at(dis, dis_stride, r) + j0;
            const uint16_t c = taps[k];
            for (unsigned b = 0; b < n; b++) {
                const uint16_t x = pr[b], y = pd[b];
                const uint32_t x2 = (uint32_t)x * x, y2 = (uint32_t)y * y, xy = (uint32_t)x * y;
                m1[b] += (uint32_t)c * x;
                m2[b] += (uint32_t)c * y;
                xl[b] += (uint32_t)c * (uint16_t)x2;
                xh[b] += (uint32_t)c * (uint16_t)(x2 >> 16);
                yl[b] += (uint32_t)c * (uint16_t)y2;
                yh[b] += (uint32_t)c * (uint16_t)(y2 >> 16);
                cl[b] += (uint32_t)c * (uint16_t)xy;
                ch[b] += (uint32_t)c * (uint16_t)(xy >> 16);
            }
        }
        for (unsigned b = 0; b < n; b++) {
            const unsigned j = j0 + b;
            out[MU1][j] = (uint16_t)vif_round_shift32(m1[b], mu_shift);
            out[MU2][j] = (uint16_t)vif_round_shift32(m2[b], mu_shift);
            put_split(out, XX_LO, j, vif_round_shift64(xl[b] + ((uint64_t)xh[b] << 16), sq_shift));
            put_split(out, YY_LO, j, vif_round_shift64(yl[b] + ((uint64_t)yh[b] << 16), sq_shift));
            put_split(out, XY_LO, j, vif_round_shift64(cl[b] + ((uint64_t)ch[b] << 16), sq_shift));
        }
    }
}

/* ---- statistic: horizontal pass and per-pixel terms of one row ----------- */

/* out[b] = sum over k < fw of taps[k] * v[b + k], for b < n. Inlined with a
 * constant fw, so the tap loop unrolls and the sums stay in registers. */
static inline __attribute__((always_inline)) void
filter_row(uint32_t *out, const uint16_t *v, unsigned n, const uint16_t *taps, unsigned fw)
{
    for (unsigned b = 0; b < n; b++) {
        uint32_t a = 0;
        for (unsigned k = 0; k < fw; k++) a += (uint32_t)taps[k] * v[b + k];
        out[b] = a;
    }
}

static inline __attribute__((always_inline)) void
filter_rows(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
            const uint16_t *taps, unsigned fw)
{
    for (unsigned q = 0; q < N_ROWS; q++) filter_row(acc[q], row[q] + o, n, taps, fw);
}

static void stat_horizontal(const VifState *s, unsigned w, unsigned scale, VifSums *sums)
{
    const unsigned fw = vif_filter_width[scale];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[scale];
    /* this row's terms, kept local so they can live in registers */
    VifSums row = { 0, 0, 0, 0 };
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        const int o = (int)j0 - half;
        uint32_t acc[N_ROWS][VIF_BLOCK];
        switch (scale) {
        case 0: filter_rows(acc, s->row, o, n, taps, 17); break;
        case 1: filter_rows(acc, s->row, o, n, taps, 9); break;
        case 2: filter_rows(acc, s->row, o, n, taps, 5); break;
        default: filter_rows(acc, s->row, o, n, taps, 3); break;
        }
        for (unsigned b = 0; b < n; b++) {
            const uint64_t xx = acc[XX_LO][b] + ((uint64_t)acc[XX_HI][b] << 16);
            const uint64_t yy = acc[YY_LO][b] + ((uint64_t)acc[YY_HI][b] << 16);
            const uint64_t xy = acc[XY_LO][b] + ((uint64_t)acc[XY_HI][b] << 16);
            vif_pixel(&row, acc[MU1][b], acc[MU2][b], xx, yy, xy, s->log2_table,
                      s->p.gain_limit);
        }
    }
    vif_sums_add(sums, &row);
}

/* The sums of one scale. `is8`: 8-bit samples (scale 0 of 8-bit input only). */
static void statistic(const VifState *s, unsigned scale, const void *ref, ptrdiff_t ref_stride,
                      const void *dis, ptrdiff_t dis_stride, bool is8, VifSums *sums)
{
    const unsigned w = s->p.w[scale], h = s->p.h[scale];
    const unsigned mu_shift = vif_stat_mu_shift(scale, s->p.bpc);
    const unsigned sq_shift = vif_stat_sq_shift(scale, s->p.bpc);
    const unsigned half = vif_filter_width[scale] / 2;
    *sums = (VifSums){ 0, 0, 0, 0 };
    for (unsigned i = 0; i < h; i++) {
        if (is8)
            stat_vertical_8(s->row, ref, ref_stride, dis, dis_stride, w, h, i, mu_shift,
                            sq_shift);
        else
            stat_vertical_16(s->row, ref, ref_stride, dis, dis_stride, w, h, i, scale,
                             mu_shift, sq_shift);
        for (unsigned q = 0; q < N_ROWS; q++) pad_row(s->row[q], w, half);
        stat_horizontal(s, w, scale, sums);
    }
}

/* ---- low-pass and decimation: scale src -> src + 1 ----------------------- */

/* Vertical pass of one source row for all columns; sums fit 32 bits and the
 * shifted results 16. */
static void down_vertical(uint16_t *out_r, uint16_t *out_d, const void *ref, ptrdiff_t ref_stride,
                          const void *dis, ptrdiff_t dis_stride, bool is8, unsigned w, unsigned h,
                          unsigned i, unsigned next, unsigned shift)
{
    const unsigned fw = vif_filter_width[next];
    const uint16_t *taps = vif_filter_taps[next];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t ar[VIF_BLOCK] = { 0 }, ad[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_mirror((int)i - (int)(fw / 2) + (int)k, (int)h);
            const uint16_t c = taps[k];
            if (is8) {
                const uint8_t *pr = (const uint8_t *)row_at(ref, ref_stride, r) + j0;
                const uint8_t *pd = (const uint8_t *)row_at(dis, dis_stride, r) + j0;
                for (unsigned b = 0; b < n; b++) {
                    ar[b] += (uint32_t)c * (uint16_t)pr[b];
                    ad[b] += (uint32_t)c * (uint16_t)pd[b];
                }
            } else {
                const uint16_t *pr = (const uint16_t *)row_at(ref, ref_stride, r) + j0;
                const uint16_t *pd = (const uint16_t *)row_at(dis, dis_stride, r) + j0;
                for (unsigned b = 0; b < n; b++) {
                    ar[b] += (uint32_t)c * pr[b];
                    ad[b] += (uint32_t)c * pd[b];
                }
            }
        }
        for (unsigned b = 0; b < n; b++) {
            out_r[j0 + b] = (uint16_t)vif_round_shift32(ar[b], shift);
            out_d[j0 + b] = (uint16_t)vif_round_shift32(ad[b], shift);
        }
    }
}

static void downsample(VifState *s, unsigned src, const void *ref, ptrdiff_t ref_stride,
                       const void *dis, ptrdiff_t dis_stride, bool is8)
{
    const unsigned next = src + 1;
    const unsigned w = s->p.w[src], h = s->p.h[src];
    const unsigned w2 = s->p.w[next], h2 = s->p.h[next];
    const unsigned fw = vif_filter_width[next];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[next];
    const unsigned shift = vif_down_shift(src, s->p.bpc);
    uint16_t *rr = s->row[MU1], *rd = s->row[MU2];
    uint16_t *out_r = s->img[next][0], *out_d = s->img[next][1];
    for (unsigned oi = 0; oi < h2; oi++) {
        down_vertical(rr, rd, ref, ref_stride, dis, dis_stride, is8, w, h, 2 * oi, next, shift);
        pad_row(rr, w, (unsigned)half);
        pad_row(rd, w, (unsigned)half);
        for (unsigned oj = 0; oj < w2; oj++) {
            const uint16_t *pr = rr + 2 * (int)oj - half, *pd = rd + 2 * (int)oj - half;
            uint32_t ar = 0, ad = 0;
            for (unsigned k = 0; k < fw; k++) {
                ar += (uint32_t)taps[k] * pr[k];
                ad += (uint32_t)taps[k] * pd[k];
            }
            out_r[(size_t)oi * w2 + oj] = vif_down_sample(ar);
            out_d[(size_t)oi * w2 + oj] = vif_down_sample(ad);
        }
    }
}

/* ---- extractor ------------------------------------------------------------ */

static void release(VifState *s)
{
    free(s->mem);
    s->mem = NULL;
}

int tvmaf_vif_setup(VifParams *p, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (vi->bpc < 8 || vi->bpc > 16) {
        snprintf(msg, len, "feature \"vif\" supports 8 to 16 bits per sample, not %u", vi->bpc);
        return -EINVAL;
    }
    if (vi->w < VIF_MIN_DIM || vi->h < VIF_MIN_DIM) {
        snprintf(msg, len, "feature \"vif\" needs a frame of at least %ux%u (its 4 scales and "
                 "their filters must fit), got %ux%u", VIF_MIN_DIM, VIF_MIN_DIM, vi->w, vi->h);
        return -EINVAL;
    }
    p->bpc = vi->bpc;
    p->w[0] = vi->w;
    p->h[0] = vi->h;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        p->w[k] = p->w[k - 1] / 2;
        p->h[k] = p->h[k - 1] / 2;
    }
    for (unsigned k = 0; k < VIF_N_KEYS; k++) {
        if (tvmaf_feature_key(p->key[k], sizeof(p->key[k]), tvmaf_vif_provided[k],
                              tvmaf_vif_options, p)) {
            snprintf(msg, len, "feature \"vif\": output name too long");
            return -EINVAL;
        }
    }
    return 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    VifState *s = priv;
    int err = tvmaf_vif_setup(&s->p, vi, msg, len);
    if (err) return err;

    const size_t row_len = (size_t)s->p.w[0] + 2 * VIF_MAX_HALF;
    size_t img_len = 0;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) img_len += (size_t)s->p.w[k] * s->p.h[k];
    s->mem = malloc((N_ROWS * row_len + 2 * img_len) * sizeof(uint16_t));
    if (!s->mem) return -ENOMEM;
    uint16_t *p = s->mem;
    for (unsigned q = 0; q < N_ROWS; q++, p += row_len) s->row[q] = p + VIF_MAX_HALF;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        for (unsigned c = 0; c < 2; c++, p += (size_t)s->p.w[k] * s->p.h[k]) s->img[k][c] = p;
    }

    vif_log2_table_fill(s->log2_table, vif_log2_steps);
    return 0;
}

unsigned tvmaf_vif_values(const VifParams *p, const VifSums sums[VIF_N_SCALES],
                          double out[VIF_N_KEYS])
{
    float num[VIF_N_SCALES] = { 0 }, den[VIF_N_SCALES] = { 0 };
    for (unsigned k = 0; k < VIF_N_SCALES; k++)
        if (vif_scale_scored(p, k)) vif_num_den(&sums[k], &num[k], &den[k]);

    /* the scores are float quotients; a skipped scale 0 reads 0 */
    const float score0 = p->skip_scale0 ? 0.0f : num[0] / den[0];
    out[VIF_KEY_SCALE0] = score0;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        const float score = num[k] / den[k];
        out[VIF_KEY_SCALE0 + k] = score;
    }
    if (!p->debug) return VIF_N_BASIC_KEYS;

    /* whole-frame num and den: the scales' floats added in double, in order */
    const unsigned first = p->skip_scale0 ? 1 : 0;
    double sum_num = (double)num[first], sum_den = (double)den[first];
    for (unsigned k = first + 1; k < VIF_N_SCALES; k++) {
        sum_num += (double)num[k];
        sum_den += (double)den[k];
    }
    out[VIF_KEY_VIF] = sum_den == 0.0 ? 1.0 : sum_num / sum_den;
    out[VIF_KEY_NUM] = sum_num;
    out[VIF_KEY_DEN] = sum_den;
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        /* a skipped scale 0 reports num 0, den -1 */
        const bool skipped = !vif_scale_scored(p, k);
        out[VIF_KEY_NUM0 + 2 * k] = skipped ? 0.0f : num[k];
        out[VIF_KEY_DEN0 + 2 * k] = skipped ? -1.0f : den[k];
    }
    return VIF_N_KEYS;
}

int tvmaf_vif_report(const VifParams *p, const VifSums sums[VIF_N_SCALES], unsigned index,
                     TvmafSink *sink)
{
    double v[VIF_N_KEYS];
    const unsigned n = tvmaf_vif_values(p, sums, v);
    int err = 0;
    for (unsigned k = 0; k < n; k++) err |= tvmaf_sink_append(sink, p->key[k], index, v[k]);
    return err;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    VifState *s = priv;
    const bool is8 = s->p.bpc == 8;
    VifSums sums[VIF_N_SCALES] = { { 0, 0, 0, 0 } };
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        const void *r, *d;
        ptrdiff_t rs, ds;
        if (k == 0) {
            r = ref->data[0];
            d = dis->data[0];
            rs = ref->stride[0];
            ds = dis->stride[0];
        } else {
            r = s->img[k][0];
            d = s->img[k][1];
            rs = ds = (ptrdiff_t)(s->p.w[k] * sizeof(uint16_t));
        }
        const bool samples8 = is8 && k == 0;
        if (vif_scale_scored(&s->p, k)) statistic(s, k, r, rs, d, ds, samples8, &sums[k]);
        if (k + 1 < VIF_N_SCALES) downsample(s, k, r, rs, d, ds, samples8);
    }
    return tvmaf_vif_report(&s->p, sums, index, sink) ? -EINVAL : 0;
}

static void close_vif(void *priv) { release(priv); }

const TvmafExtractor tvmaf_fex_vif = {
    .name = "vif",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_vif_options,
    .priv_size = sizeof(VifState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_vif,
    .provided_features = tvmaf_vif_provided,
};
