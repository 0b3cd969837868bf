/*
 * float_vif on the CPU: vif_scale0..3 (and with debug the num/den sums),
 * equal to libvmaf's float_vif extractor bit for bit. The arithmetic is in
 * float_vif_math.h; the options, checks and outputs (tvmaf_float_vif_setup,
 * tvmaf_float_vif_report) are shared with the CUDA twin (float_vif_state.h).
 *
 * The work is done a row at a time: for each output row the vertical pass
 * fills one row of each quantity (with room for the mirrored margins), the
 * horizontal pass turns it into the filtered row, and the statistic adds it
 * up. Every filtered sample is computed exactly as the reference's
 * whole-plane passes compute it, so only the memory layout differs. Between
 * scales only the even rows and columns of the low-passed image are
 * computed, which are all the decimation keeps.
 *
 * The row passes are common/float_rows.h's kernels and the five-quantity
 * pass and the statistic float_vif_cpu.h's, compiled for the baseline
 * (float_rows.c, here) and once per x86 SIMD level (float_rows_x86.c,
 * float_vif_x86.c), and chosen by the stream's CPU flags (--cpumask): every level computes each
 * sample with the same float operations in the same order, so every level
 * gives the same bits. The statistic of FVIF_ROW_GROUP rows is formed
 * before their sums, which are then taken side by side, each row left to
 * right from 0.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/float_vif/float_vif_cpu.h"
#include "feature/float_vif/float_vif_math.h"
#include "feature/float_vif/float_vif_state.h"

enum {
    KEY_SCALE0, KEY_SCALE1, KEY_SCALE2, KEY_SCALE3,
    KEY_VIF, KEY_NUM, KEY_DEN,
    KEY_NUM0, KEY_DEN0, KEY_NUM1, KEY_DEN1, KEY_NUM2, KEY_DEN2, KEY_NUM3, KEY_DEN3,
    N_KEYS,
};
_Static_assert(N_KEYS == FVIF_N_KEYS, "the outputs");

const char *const tvmaf_float_vif_provided[N_KEYS + 1] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0",
    "vif_num_scale1", "vif_den_scale1", "vif_num_scale2", "vif_den_scale2",
    "vif_num_scale3", "vif_den_scale3",
    NULL,
};

typedef struct FloatVif {
    FloatVifParams p; /* first: the option table's offsets point into it */

    /* buffers */
    float *in_ref, *in_dis;   /* input as floats (in_w x in_h), when prescaled */
    float *img_ref[FVIF_N_SCALES], *img_dis[FVIF_N_SCALES]; /* w[s] x h[s] */
    float *ext[5];            /* vertical-pass rows with mirrored margins */
    float *row[5];            /* filtered rows */
    const float **taps_a, **taps_b; /* row pointers of the vertical pass */
    int *col1, *col2;         /* bilinear prescale column tables */
    float *coldx;
    float *row_num, *row_den; /* the rows' sums of one scale */
    float *px_num, *px_den;   /* per-pixel num and den of FVIF_ROW_GROUP rows */
    FrowsKernels k;           /* the row kernels of the stream's SIMD level */
    FvifRowsKernels kv;       /* and float_vif's own */
} FloatVif;

/* rows whose statistic is computed before their sums are taken, side by
 * side (frows_sum_rows) */
#define FVIF_ROW_GROUP 8

FVIF_ROWS_KERNELS_DEFINE(tvmaf_fvif_rows_kernels_c);

void tvmaf_fvif_rows_dsp_init(FvifRowsKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_fvif_rows_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, fvif_rows);
}

const TvmafOption tvmaf_float_vif_options[] = {
    { "debug", "debug mode: enable additional output",
      offsetof(FloatVifParams, debug), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "vif_enhn_gain_limit", "enhancement gain imposed on vif, must be >= 1.0, "
      "where 1.0 means the gain is completely disabled",
      offsetof(FloatVifParams, enhn_gain_limit), TVMAF_OPT_DOUBLE, { .d = 100.0 }, 1.0, 100.0,
      TVMAF_OPT_FEATURE_PARAM, "egl" },
    { "vif_kernelscale", "scaling factor for the gaussian kernel (2.0 means multiplying "
      "the standard deviation by 2 and enlarge the kernel size accordingly",
      offsetof(FloatVifParams, kernelscale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.1, 4.0,
      TVMAF_OPT_FEATURE_PARAM, "ks" },
    { "vif_prescale", "scaling factor for the frame (2.0 means making the image twice as "
      "large on each dimension)",
      offsetof(FloatVifParams, prescale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.1, 4.0,
      TVMAF_OPT_FEATURE_PARAM, "ps" },
    { "vif_scale1_min_val", "minimum value allowed; smaller values will be set to this value",
      offsetof(FloatVifParams, scale1_min), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "s1miv" },
    { "vif_scale2_min_val", "minimum value allowed; smaller values will be set to this value",
      offsetof(FloatVifParams, scale2_min), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "s2miv" },
    { "vif_scale3_min_val", "minimum value allowed; smaller values will be set to this value",
      offsetof(FloatVifParams, scale3_min), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "s3miv" },
    { "vif_prescale_method", "scaling method for the frame, supported options: "
      "[nearest, bilinear, bicubic, lanczos4]",
      offsetof(FloatVifParams, prescale_method), TVMAF_OPT_STRING, { .s = "nearest" }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "pm" },
    { "vif_sigma_nsq", "neural noise variance",
      offsetof(FloatVifParams, sigma_nsq), TVMAF_OPT_DOUBLE, { .d = 2.0 }, 0.0, 5.0,
      TVMAF_OPT_FEATURE_PARAM, "snsq" },
    { "vif_skip_scale0", "when set, skip scale 0 calculations",
      offsetof(FloatVifParams, skip_scale0), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "ssclz" },
    { 0 },
};

static void close_vif(void *priv)
{
    FloatVif *s = priv;
    free(s->in_ref);
    free(s->in_dis);
    for (int i = 0; i < FVIF_N_SCALES; i++) {
        free(s->img_ref[i]);
        free(s->img_dis[i]);
        s->img_ref[i] = s->img_dis[i] = NULL;
    }
    for (int i = 0; i < 5; i++) {
        free(s->ext[i]);
        free(s->row[i]);
        s->ext[i] = s->row[i] = NULL;
    }
    free(s->taps_a);
    free(s->taps_b);
    free(s->col1);
    free(s->col2);
    free(s->coldx);
    free(s->row_num);
    free(s->row_den);
    free(s->px_num);
    free(s->px_den);
    s->row_num = s->row_den = NULL;
    s->px_num = s->px_den = NULL;
    s->in_ref = s->in_dis = NULL;
    s->taps_a = s->taps_b = NULL;
    s->col1 = s->col2 = NULL;
    s->coldx = NULL;
}

static int parse_scaler(const char *name, enum FfilterScaler *m)
{
    if (!strcmp(name, "nearest")) *m = FFILTER_SCALE_NEAREST;
    else if (!strcmp(name, "bilinear")) *m = FFILTER_SCALE_BILINEAR;
    else if (!strcmp(name, "bicubic")) *m = FFILTER_SCALE_BICUBIC;
    else if (!strcmp(name, "lanczos4")) *m = FFILTER_SCALE_LANCZOS4;
    else return -EINVAL;
    return 0;
}

int tvmaf_float_vif_setup(FloatVifParams *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (parse_scaler(s->prescale_method, &s->scaler)) {
        snprintf(msg, len, "feature \"float_vif\": vif_prescale_method \"%s\" is not one of "
                 "nearest, bilinear, bicubic, lanczos4", s->prescale_method);
        return -EINVAL;
    }
    const float ks = (float)s->kernelscale;
    if (!ffilter_kernelscale_valid(ks)) {
        snprintf(msg, len, "feature \"float_vif\": vif_kernelscale %g is not one of the "
                 "supported scales (1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, "
                 "4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, "
                 "1.111111)", s->kernelscale);
        return -EINVAL;
    }
    if (sample_divisor(vi->bpc) == 0.0f) {
        snprintf(msg, len, "feature \"float_vif\" supports 8, 10, 12 and 16-bit input, "
                 "not %u-bit", vi->bpc);
        return -EINVAL;
    }
    s->bpc = vi->bpc;
    s->in_w = (int)vi->w;
    s->in_h = (int)vi->h;
    s->w[0] = (int)(vi->w * s->prescale + 0.5);
    s->h[0] = (int)(vi->h * s->prescale + 0.5);
    s->rescale = s->w[0] != s->in_w || s->h[0] != s->in_h;
    if (s->scaler == FFILTER_SCALE_BILINEAR && s->w[0] > FFILTER_BILINEAR_MAX_WIDTH) {
        snprintf(msg, len, "feature \"float_vif\": bilinear prescale to a width of %d exceeds "
                 "the limit of %d", s->w[0], FFILTER_BILINEAR_MAX_WIDTH);
        return -EINVAL;
    }
    if (s->rescale) {
        const int m = ffilter_scaler_min_side(s->scaler);
        if (s->in_w < m || s->in_h < m) {
            snprintf(msg, len, "feature \"float_vif\": prescale method %s needs an input of "
                     "at least %dx%d; the input is %dx%d", s->prescale_method, m, m,
                     s->in_w, s->in_h);
            return -EINVAL;
        }
    }

    /* scale sizes and filters; every filter must fit (mirror once) in the
     * image it runs over: the previous scale's before decimation, and its
     * own scale's for the statistic */
    s->start = s->skip_scale0 ? 1 : 0;
    s->max_fw = 0;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        if (sc > 0) {
            s->w[sc] = s->w[sc - 1] / 2;
            s->h[sc] = s->h[sc - 1] / 2;
        }
        s->fw[sc] = ffilter_gaussian_width(sc, ks);
        ffilter_gaussian(s->taps[sc], s->fw[sc], (float)s->fw[sc] / 5.0f);
        if (s->fw[sc] > s->max_fw) s->max_fw = s->fw[sc];
    }
    for (int sc = s->start; sc < FVIF_N_SCALES; sc++) {
        const int half = s->fw[sc] / 2;
        const int pw = sc > 0 ? s->w[sc - 1] : s->w[0], ph = sc > 0 ? s->h[sc - 1] : s->h[0];
        if (s->w[sc] <= half || s->h[sc] <= half || pw <= half || ph <= half) {
            snprintf(msg, len, "feature \"float_vif\": the input (%dx%d, %dx%d after prescale) "
                     "is too small: scale %d is %dx%d and its %d-tap filter needs more than %d "
                     "samples each way (16x16 at the default kernel scale)",
                     s->in_w, s->in_h, s->w[0], s->h[0], sc, s->w[sc], s->h[sc], s->fw[sc], half);
            return -EINVAL;
        }
    }
    s->stat = fvif_stat_params(s->enhn_gain_limit, s->sigma_nsq);

    for (int i = 0; i < N_KEYS; i++) {
        if (tvmaf_feature_key(s->key[i], FVIF_KEY_LEN, tvmaf_float_vif_provided[i],
                              tvmaf_float_vif_options, s)) {
            snprintf(msg, len, "feature \"float_vif\": output key name too long");
            return -EINVAL;
        }
    }
    return 0;
}

int tvmaf_float_vif_report(const FloatVifParams *s, const float sums[2 * FVIF_N_SCALES],
                           unsigned index, TvmafSink *sink)
{
    const int start = s->start;
    double scores[2 * FVIF_N_SCALES] = { 0 };
    for (int sc = start; sc < FVIF_N_SCALES; sc++) {
        scores[2 * sc] = sums[2 * sc];
        scores[2 * sc + 1] = sums[2 * sc + 1];
    }

    double total_num = 0.0, total_den = 0.0;
    for (int sc = start; sc < FVIF_N_SCALES; sc++) {
        total_num += scores[2 * sc];
        total_den += scores[2 * sc + 1];
    }
    const double vif = total_den == 0.0 ? 1.0 : total_num / total_den;

    const double mins[FVIF_N_SCALES] = { 0.0, s->scale1_min, s->scale2_min, s->scale3_min };
    int err = 0;
    err |= tvmaf_sink_append(sink, s->key[KEY_SCALE0], index,
                             s->skip_scale0 ? 0.0 : scores[0] / scores[1]);
    for (int sc = 1; sc < FVIF_N_SCALES; sc++) {
        const double q = scores[2 * sc] / scores[2 * sc + 1];
        err |= tvmaf_sink_append(sink, s->key[KEY_SCALE0 + sc], index, q > mins[sc] ? q : mins[sc]);
    }
    if (!s->debug) return err ? -EINVAL : 0;

    err |= tvmaf_sink_append(sink, s->key[KEY_VIF], index, vif);
    err |= tvmaf_sink_append(sink, s->key[KEY_NUM], index, total_num);
    err |= tvmaf_sink_append(sink, s->key[KEY_DEN], index, total_den);
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        /* a skipped scale 0 reports num 0 and den -1 */
        const double n = sc < start ? 0.0 : scores[2 * sc];
        const double d = sc < start ? -1.0 : scores[2 * sc + 1];
        err |= tvmaf_sink_append(sink, s->key[KEY_NUM0 + 2 * sc], index, n);
        err |= tvmaf_sink_append(sink, s->key[KEY_DEN0 + 2 * sc], index, d);
    }
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatVif *st = priv;
    FloatVifParams *s = &st->p;
    const int err = tvmaf_float_vif_setup(s, vi, msg, len);
    if (err) return err;

    const size_t n0 = (size_t)s->w[0] * s->h[0];
    bool ok = true;
    if (s->rescale) {
        const size_t nin = (size_t)s->in_w * s->in_h;
        ok &= (st->in_ref = malloc(nin * sizeof(float))) != NULL;
        ok &= (st->in_dis = malloc(nin * sizeof(float))) != NULL;
    }
    ok &= (st->img_ref[0] = malloc(n0 * sizeof(float))) != NULL;
    ok &= (st->img_dis[0] = malloc(n0 * sizeof(float))) != NULL;
    for (int sc = 1; sc < FVIF_N_SCALES; sc++) {
        const size_t n = (size_t)s->w[sc] * s->h[sc];
        ok &= (st->img_ref[sc] = malloc((n ? n : 1) * sizeof(float))) != NULL;
        ok &= (st->img_dis[sc] = malloc((n ? n : 1) * sizeof(float))) != NULL;
    }
    const size_t ext_len = (size_t)s->w[0] + (size_t)s->max_fw;
    for (int i = 0; i < 5; i++) {
        ok &= (st->ext[i] = malloc(ext_len * sizeof(float))) != NULL;
        ok &= (st->row[i] = malloc((size_t)s->w[0] * sizeof(float))) != NULL;
    }
    ok &= (st->row_num = malloc((size_t)s->h[0] * sizeof(float))) != NULL;
    ok &= (st->row_den = malloc((size_t)s->h[0] * sizeof(float))) != NULL;
    ok &= (st->px_num = malloc((size_t)FVIF_ROW_GROUP * s->w[0] * sizeof(float))) != NULL;
    ok &= (st->px_den = malloc((size_t)FVIF_ROW_GROUP * s->w[0] * sizeof(float))) != NULL;
    tvmaf_frows_dsp_init(&st->k, vi->cpu_flags);
    tvmaf_fvif_rows_dsp_init(&st->kv, vi->cpu_flags);
    ok &= (st->taps_a = malloc((size_t)s->max_fw * sizeof(*st->taps_a))) != NULL;
    ok &= (st->taps_b = malloc((size_t)s->max_fw * sizeof(*st->taps_b))) != NULL;
    if (s->rescale && s->scaler == FFILTER_SCALE_BILINEAR) {
        ok &= (st->col1 = malloc((size_t)s->w[0] * sizeof(int))) != NULL;
        ok &= (st->col2 = malloc((size_t)s->w[0] * sizeof(int))) != NULL;
        ok &= (st->coldx = malloc((size_t)s->w[0] * sizeof(float))) != NULL;
        if (ok) ffilter_bilinear_columns(s->in_w, s->w[0], st->col1, st->col2, st->coldx);
    }
    if (!ok) {
        close_vif(st);
        return -ENOMEM;
    }
    return 0;
}

/* The luma of a picture as floats, w x h, rows packed. */
static void load_plane(const FloatVifParams *s, const TvmafPicture *pic, float *dst)
{
    const unsigned char *src = pic->data[0];
    const float div = sample_divisor(s->bpc);
    for (int i = 0; i < s->in_h; i++) {
        const unsigned char *r = src + (ptrdiff_t)i * pic->stride[0];
        float *d = dst + (size_t)i * s->in_w;
        if (s->bpc == 8) ffilter_load_row_8(r, d, s->in_w);
        else ffilter_load_row_16((const uint16_t *)r, d, s->in_w, div);
    }
}

/* The prescaled image (w[0] x h[0]) from the input as floats. */
static void prescale(const FloatVif *st, const float *src, float *dst)
{
    const FloatVifParams *s = &st->p;
    const int sw = s->in_w, sh = s->in_h, dw = s->w[0], dh = s->h[0];
    const float rx = ffilter_scale_ratio(sw, dw), ry = ffilter_scale_ratio(sh, dh);
    for (int y = 0; y < dh; y++) {
        float *out = dst + (size_t)y * dw;
        switch (s->scaler) {
        case FFILTER_SCALE_NEAREST: {
            const float *r = src + (size_t)ffilter_nearest_index(y, ry) * sw;
            for (int x = 0; x < dw; x++) out[x] = r[ffilter_nearest_index(x, rx)];
            break;
        }
        case FFILTER_SCALE_BILINEAR: {
            int y1, y2;
            float dy;
            ffilter_bilinear_axis(y, ry, sh, &y1, &y2, &dy);
            ffilter_bilinear_row(src + (size_t)y1 * sw, src + (size_t)y2 * sw, dy, st->col1,
                                 st->col2, st->coldx, out, dw);
            break;
        }
        case FFILTER_SCALE_BICUBIC: {
            const float yy = ffilter_scale_pos(y, ry);
            for (int x = 0; x < dw; x++)
                out[x] = ffilter_bicubic_sample(src, sw, sh, sw, ffilter_scale_pos(x, rx), yy);
            break;
        }
        case FFILTER_SCALE_LANCZOS4: {
            const float yy = ffilter_scale_pos(y, ry);
            for (int x = 0; x < dw; x++)
                out[x] = ffilter_lanczos_sample(src, sw, sh, sw, ffilter_scale_pos(x, rx), yy);
            break;
        }
        }
    }
}

/* Scale sc's image from scale sc-1's: its own filter, even rows and columns.
 * The horizontal pass filters every column of the row (as ffilter_hpass
 * with step 1, each output the same operations as with step 2) and keeps
 * the even ones. */
static void next_scale(FloatVif *st, int sc, const float *src, float *dst)
{
    const FloatVifParams *s = &st->p;
    const FrowsKernels *k = &st->k;
    const int pw = s->w[sc - 1], ph = s->h[sc - 1], w = s->w[sc], h = s->h[sc];
    const int fw = s->fw[sc], half = fw / 2;
    const float *f = s->taps[sc];
    float *ext = st->ext[0], *full = st->row[0];
    for (int i = 0; i < h; i++) {
        ffilter_tap_rows(src, pw, ph, 2 * i, fw, st->taps_a);
        k->vpass(f, fw, st->taps_a, ext + half, pw);
        ffilter_mirror_margins(ext, pw, half);
        k->hpass(f, fw, ext, full, 2 * w - 1);
        float *d = dst + (size_t)i * w;
        for (int j = 0; j < w; j++) d[j] = full[2 * j];
    }
}

/* num and den of one scale: the rows' float sums of the per-pixel statistic
 * (row_num, row_den), then their float totals (fvif_sum). */
static void scale_stat(FloatVif *st, int sc, float *num, float *den)
{
    const FloatVifParams *s = &st->p;
    const int w = s->w[sc], h = s->h[sc], fw = s->fw[sc], half = fw / 2;
    const float *f = s->taps[sc];
    const FrowsKernels *k = &st->k;
    const FvifRowsKernels *kv = &st->kv;
    float *const *ext = st->ext;
    float *const *row = st->row;
    for (int i0 = 0; i0 < h; i0 += FVIF_ROW_GROUP) {
        const int n = h - i0 < FVIF_ROW_GROUP ? h - i0 : FVIF_ROW_GROUP;
        for (int r = 0; r < n; r++) {
            const int i = i0 + r;
            ffilter_tap_rows(st->img_ref[sc], w, h, i, fw, st->taps_a);
            ffilter_tap_rows(st->img_dis[sc], w, h, i, fw, st->taps_b);
            kv->vpass5(f, fw, st->taps_a, st->taps_b, w, ext[0] + half, ext[1] + half,
                      ext[2] + half, ext[3] + half, ext[4] + half);
            for (int q = 0; q < 5; q++) {
                ffilter_mirror_margins(ext[q], w, half);
                k->hpass(f, fw, ext[q], row[q], w);
            }
            kv->stat_px(row[0], row[1], row[2], row[3], row[4], w, &s->stat,
                        st->px_num + (size_t)r * w, st->px_den + (size_t)r * w);
        }
        /* each row's sums left to right from 0 (fvif_sum's order) */
        k->sum_rows(st->px_num, w, n, w, st->row_num + i0);
        k->sum_rows(st->px_den, w, n, w, st->row_den + i0);
    }
    *num = fvif_sum(st->row_num, h);
    *den = fvif_sum(st->row_den, h);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatVif *st = priv;
    const FloatVifParams *s = &st->p;
    if (s->rescale) {
        load_plane(s, ref, st->in_ref);
        load_plane(s, dis, st->in_dis);
        prescale(st, st->in_ref, st->img_ref[0]);
        prescale(st, st->in_dis, st->img_dis[0]);
    } else {
        load_plane(s, ref, st->img_ref[0]);
        load_plane(s, dis, st->img_dis[0]);
    }

    float sums[2 * FVIF_N_SCALES] = { 0 };
    for (int sc = s->start; sc < FVIF_N_SCALES; sc++) {
        if (sc > 0) {
            next_scale(st, sc, st->img_ref[sc - 1], st->img_ref[sc]);
            next_scale(st, sc, st->img_dis[sc - 1], st->img_dis[sc]);
        }
        scale_stat(st, sc, &sums[2 * sc], &sums[2 * sc + 1]);
    }
    return tvmaf_float_vif_report(s, sums, index, sink);
}

const TvmafExtractor tvmaf_fex_float_vif = {
    .name = "float_vif",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_float_vif_options,
    .priv_size = sizeof(FloatVif),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_vif,
    .provided_features = tvmaf_float_vif_provided,
};
