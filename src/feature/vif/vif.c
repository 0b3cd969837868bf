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
 * The row kernels (vif_cpu.h) are selected per instance from the CPU
 * flags: C, or the same code compiled for AVX2 or AVX-512 (vif_x86.c).
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
#include "core/cpu.h"
#include "core/team.h"
#define VIF_KERNELS_IMPL
#include "feature/vif/vif_cpu.h"
#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"

/* The fewest rows of a band of a team job (the statistic's; half for the
 * downsampling's output rows): smaller ones would cost more to hand out than
 * they share. */
#define VIF_MIN_BAND_ROWS 32

/* libvmaf's DEFAULT_VIF_ENHN_GAIN_LIMIT, also the option's maximum */
#define VIF_GAIN_LIMIT_DEFAULT 100.0

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

/* What one thread of a frame's team works with (core/team.h): the rows of
 * the vertical passes, and the statistic's sums of the bands it ran. */
typedef struct VifSlot {
    uint16_t *row[VIF_N_ROWS];
    uint16_t *row2[VIF_N_ROWS]; /* the next output row's, for the pair kernels */
    uint16_t *drow[2];          /* the low-pass rows the 8-bit pair kernel adds */
    VifSums sums;
    char pad[64]; /* slots written by different threads on separate lines */
} VifSlot;

typedef struct VifState {
    VifParams p; /* first: the option offsets are relative to it */
    uint16_t *img[VIF_N_SCALES][2]; /* scales 1..3: reference, distorted (w[s] x h[s]) */
    VifSlot *slot;                  /* tvmaf_team_size(team) of them */
    unsigned n_slots;
    TvmafTeam *team;
    void *mem;
    VifKernels k;
    VifLog2 log2;
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

/* ---- low-pass and decimation: scale src -> src + 1 ---------------------- */

/* Row oi of scale src + 1: the low-pass's vertical pass at row 2 oi of
 * scale src into the padded scratch rows rr, rd (unless `vertical_done`:
 * the 8-bit pair kernel made it), then its horizontal pass at the even
 * columns into scale src + 1's images. */
static void down_row(const VifState *s, uint16_t *rr, uint16_t *rd, unsigned src,
                     const void *ref, ptrdiff_t ref_stride, const void *dis,
                     ptrdiff_t dis_stride, bool is8, unsigned oi, bool vertical_done)
{
    const unsigned next = src + 1, w = s->p.w[src], w2 = s->p.w[next];
    if (!vertical_done)
        s->k.down_vertical(rr, rd, ref, ref_stride, dis, dis_stride, is8, w, s->p.h[src],
                           2 * oi, next, vif_down_shift(src, s->p.bpc));
    pad_row(rr, w, vif_filter_width[next] / 2);
    pad_row(rd, w, vif_filter_width[next] / 2);
    s->k.down_horizontal(s->img[next][0] + (size_t)oi * w2, s->img[next][1] + (size_t)oi * w2,
                         rr, rd, w2, next);
}

/* Output rows [o0, o1) of scale src + 1, with the rows of one slot. */
static void downsample(const VifState *s, uint16_t *const *row, unsigned src, const void *ref,
                       ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride, bool is8,
                       unsigned o0, unsigned o1)
{
    for (unsigned oi = o0; oi < o1; oi++)
        down_row(s, row[VIF_MU1], row[VIF_MU2], src, ref, ref_stride, dis, dis_stride, is8, oi,
                 false);
}

/* ---- statistic ---------------------------------------------------------- */

/* The statistic of rows [i0, i1) of one scale, added into *sums, with the
 * rows of one slot (row2 for the pair kernels; drow: 8-bit samples only).
 * `is8`: 8-bit samples (scale 0 of 8-bit input only). `down` (is8 only, i0
 * even): also scale 1's rows i / 2 for the even rows i of the range, which
 * the pair kernel's sample rows already hold. Whole rows a pass: strips of
 * 256 or 512 columns, whose rows stay in the L1 cache from the vertical
 * pass to the horizontal one, were no faster on Zen 4 (the passes are bound
 * by their multiplies, not by the cache). */
static void statistic(const VifState *s, VifSlot *sl, unsigned scale, const void *ref,
                      ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride, bool is8,
                      bool down, unsigned i0, unsigned i1, VifSums *sums)
{
    uint16_t *const *row = sl->row, *const *row2 = sl->row2;
    const unsigned w = s->p.w[scale], h = s->p.h[scale];
    const unsigned mu_shift = vif_stat_mu_shift(scale, s->p.bpc);
    const unsigned sq_shift = vif_stat_sq_shift(scale, s->p.bpc);
    const unsigned half = vif_filter_width[scale] / 2;
    unsigned i = i0;
    if (is8) {
        /* two rows a call (the kernel reads their 18 sample rows once) */
        for (; i + 1 < i1; i += 2) {
            const bool dn = down && i / 2 < s->p.h[1];
            s->k.stat_vertical_8x2(row, row2, ref, ref_stride, dis, dis_stride, w, h, i,
                                   mu_shift, sq_shift, dn ? sl->drow[0] : NULL,
                                   dn ? sl->drow[1] : NULL, vif_down_shift(0, s->p.bpc));
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                pad_row(row[q], w, half);
                pad_row(row2[q], w, half);
            }
            s->k.stat_horizontal(row, w, scale, &s->log2, s->p.gain_limit, sums);
            s->k.stat_horizontal(row2, w, scale, &s->log2, s->p.gain_limit, sums);
            if (dn)
                down_row(s, sl->drow[0], sl->drow[1], 0, ref, ref_stride, dis, dis_stride, true,
                         i / 2, true);
        }
    }
    if (!is8) {
        /* two rows a call: a level's pair kernel forms each sample row's
         * products once for both */
        for (; i + 1 < i1; i += 2) {
            s->k.stat_vertical_16x2(row, row2, ref, ref_stride, dis, dis_stride, w, h, i, scale,
                                    mu_shift, sq_shift);
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                pad_row(row[q], w, half);
                pad_row(row2[q], w, half);
            }
            s->k.stat_horizontal(row, w, scale, &s->log2, s->p.gain_limit, sums);
            s->k.stat_horizontal(row2, w, scale, &s->log2, s->p.gain_limit, sums);
        }
    }
    for (; i < i1; i++) {
        if (is8)
            s->k.stat_vertical_8(row, ref, ref_stride, dis, dis_stride, w, h, i, mu_shift,
                                 sq_shift);
        else
            s->k.stat_vertical_16(row, ref, ref_stride, dis, dis_stride, w, h, i, scale,
                                  mu_shift, sq_shift);
        for (unsigned q = 0; q < VIF_N_ROWS; q++) pad_row(row[q], w, half);
        s->k.stat_horizontal(row, w, scale, &s->log2, s->p.gain_limit, sums);
        if (down && !(i & 1) && i / 2 < s->p.h[1])
            down_row(s, sl->drow[0], sl->drow[1], 0, ref, ref_stride, dis, dis_stride, true,
                     i / 2, false);
    }
}

/* ---- a scale's work, shared by a team ----------------------------------- */

/* One scale's work as team items (core/team.h): bands of the statistic's
 * rows, then bands of the next scale's rows. A band's sums are integers, so
 * the slots' totals are the one-thread sums whichever thread ran which band;
 * a downsampled row is written by exactly one band. */
typedef struct VifScaleJob {
    VifState *s;
    unsigned scale;
    const void *ref, *dis;
    ptrdiff_t ref_stride, dis_stride;
    bool is8;
    bool fused; /* scale 1's rows made by the statistic's bands (even-aligned) */
    unsigned n_stat, n_down; /* bands of each */
} VifScaleJob;

static void scale_item(void *arg, unsigned item, unsigned slot)
{
    const VifScaleJob *j = arg;
    const VifState *s = j->s;
    VifSlot *sl = &j->s->slot[slot];
    if (item < j->n_stat) {
        const unsigned h = s->p.h[j->scale];
        unsigned i0 = tvmaf_band_row(item, j->n_stat, h);
        unsigned i1 = tvmaf_band_row(item + 1, j->n_stat, h);
        if (j->fused) {
            /* bands of row pairs: each even row's scale-1 row in one band */
            const unsigned pairs = (h + 1) / 2;
            i0 = 2 * tvmaf_band_row(item, j->n_stat, pairs);
            i1 = 2 * tvmaf_band_row(item + 1, j->n_stat, pairs);
            i1 = i1 < h ? i1 : h;
        }
        statistic(s, sl, j->scale, j->ref, j->ref_stride, j->dis, j->dis_stride, j->is8,
                  j->fused, i0, i1, &sl->sums);
    } else {
        const unsigned b = item - j->n_stat, h2 = s->p.h[j->scale + 1];
        downsample(s, sl->row, j->scale, j->ref, j->ref_stride, j->dis, j->dis_stride, j->is8,
                   tvmaf_band_row(b, j->n_down, h2), tvmaf_band_row(b + 1, j->n_down, h2));
    }
}

/* ---- extractor ---------------------------------------------------------- */

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

    if (!vif_log2_fill(&s->log2)) {
        snprintf(msg, len, "feature \"vif\": internal error: a log2 residual outside a byte");
        return -EINVAL;
    }
    s->team = vi->team;
    s->n_slots = tvmaf_team_size(vi->team);
    /* a row: its padding on both sides and VIF_ROW_SLACK more readable
     * samples (vif_cpu.h), 64-byte lines from its left padding on, so that
     * scale 0's horizontal pass reads its blocks from aligned addresses */
    const size_t row_len =
        ((size_t)s->p.w[0] + 2 * VIF_MAX_HALF + VIF_ROW_SLACK + 31) & ~(size_t)31;
    size_t img_len = 0;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) img_len += (size_t)s->p.w[k] * s->p.h[k];
    const size_t slots_bytes = (s->n_slots * sizeof(VifSlot) + 63) & ~(size_t)63;
    const size_t total = slots_bytes + (s->n_slots * (2 * VIF_N_ROWS + 2) * row_len + 2 * img_len)
                                       * sizeof(uint16_t);
    s->mem = aligned_alloc(64, (total + 63) & ~(size_t)63);
    if (!s->mem) return -ENOMEM;
    s->slot = s->mem;
    uint16_t *p = (uint16_t *)((char *)s->mem + slots_bytes);
    for (unsigned t = 0; t < s->n_slots; t++) {
        for (unsigned q = 0; q < VIF_N_ROWS; q++, p += row_len) s->slot[t].row[q] = p + VIF_MAX_HALF;
        for (unsigned q = 0; q < VIF_N_ROWS; q++, p += row_len)
            s->slot[t].row2[q] = p + VIF_MAX_HALF;
        for (unsigned q = 0; q < 2; q++, p += row_len) s->slot[t].drow[q] = p + VIF_MAX_HALF;
    }
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        for (unsigned c = 0; c < 2; c++, p += (size_t)s->p.w[k] * s->p.h[k]) s->img[k][c] = p;
    }

    tvmaf_vif_dsp_init(&s->k, vi->cpu_flags);
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
        const bool stat = vif_scale_scored(&s->p, k), down = k + 1 < VIF_N_SCALES;
        /* 8-bit scale 0: the statistic's pair kernel makes scale 1's rows */
        const bool fused = stat && is8 && k == 0;
        VifScaleJob job = {
            s, k, r, d, rs, ds, is8 && k == 0, fused,
            stat ? tvmaf_team_bands(s->team, s->p.h[k], VIF_MIN_BAND_ROWS) : 0,
            down && !fused ? tvmaf_team_bands(s->team, s->p.h[k + 1], VIF_MIN_BAND_ROWS / 2) : 0,
        };
        for (unsigned t = 0; t < s->n_slots; t++) s->slot[t].sums = (VifSums){ 0, 0, 0, 0 };
        tvmaf_team_run(s->team, job.n_stat + job.n_down, scale_item, &job);
        for (unsigned t = 0; t < s->n_slots; t++) vif_sums_add(&sums[k], &s->slot[t].sums);
    }
    return tvmaf_vif_report(&s->p, sums, index, sink) ? -EINVAL : 0;
}

#define VIF_KERNELS_SET
#include "feature/vif/vif_cpu.h"

const VifKernels tvmaf_vif_kernels_c = VIF_KERNELS_INIT;

void tvmaf_vif_dsp_init(VifKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_vif_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, vif);
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
