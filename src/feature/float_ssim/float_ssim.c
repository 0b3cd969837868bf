/*
 * float_ssim on the CPU: mean SSIM of the luma plane with an 11x11 Gaussian
 * window (and, with enable_lcs, the mean l, c and s terms), equal to libvmaf's
 * float_ssim bit for bit.
 *
 * Frames of at least 384 lines are first down-sampled by round(min(w, h)/256)
 * (or the `scale` option): a box filter of f x f taps of 1/f^2 sampled at
 * every f-th row and column, borders mirrored. The reference does that in
 * place, but never reads a sample it has already overwritten (the first row
 * read for output row y is at least y, and its first column at least x), so
 * writing to a second buffer gives the same values.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/feature.h"
#include "feature/float_ssim/float_ssim_math.h"

typedef struct FloatSsimState {
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    int scale;
    /* derived at init */
    unsigned bpc;
    int w, h;       /* luma */
    int factor;     /* down-sampling factor, 1 = none */
    int sw, sh;     /* size SSIM is evaluated at */
    double max_db;
    float box[SSIM_MAX_FACTOR * SSIM_MAX_FACTOR];
    float *mem;
    float *ref, *dis;     /* loaded luma, w x h */
    float *ref_s, *dis_s; /* down-sampled, sw x sh (or ref, dis) */
    void *scratch; /* ssim_evaluate's */
    double *acc;   /* ssim_down_sample's, sw */
} FloatSsimState;

static const TvmafOption options[] = {
    { "enable_lcs", "enable luminance, contrast and structure intermediate output",
      offsetof(FloatSsimState, enable_lcs), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "enable_db", "write SSIM values as dB",
      offsetof(FloatSsimState, enable_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "clip_db", "clip dB scores",
      offsetof(FloatSsimState, clip_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "scale", "decimation scale factor (0=auto, 1=no downscaling, 2-10=explicit)",
      offsetof(FloatSsimState, scale), TVMAF_OPT_INT, { .i = 0 }, 0, SSIM_MAX_FACTOR, 0, NULL },
    { 0 },
};

static void close_ssim(void *priv)
{
    FloatSsimState *s = priv;
    free(s->mem);
    free(s->scratch);
    free(s->acc);
    s->mem = NULL;
    s->scratch = NULL;
    s->acc = NULL;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatSsimState *s = priv;
    if (ssim_hbd_divisor(vi->bpc) == 0.0f && vi->bpc != 8) {
        snprintf(msg, len, "feature \"float_ssim\" supports 8, 10, 12 and 16 bits per sample, "
                 "not %u", vi->bpc);
        return -EINVAL;
    }
    s->bpc = vi->bpc;
    s->w = (int)vi->w;
    s->h = (int)vi->h;
    s->factor = s->scale > 0 ? s->scale : ssim_auto_factor(s->w, s->h);
    s->sw = s->factor > 1 ? ssim_decimated_len(s->w, s->factor) : s->w;
    s->sh = s->factor > 1 ? ssim_decimated_len(s->h, s->factor) : s->h;
    if (s->sw < SSIM_WIN || s->sh < SSIM_WIN) {
        snprintf(msg, len, "feature \"float_ssim\" needs the luma plane, down-sampled by %d, to "
                 "hold its %dx%d window: at least %dx%d, got %dx%d from %ux%u", s->factor,
                 SSIM_WIN, SSIM_WIN, SSIM_WIN, SSIM_WIN, s->sw, s->sh, vi->w, vi->h);
        return -EINVAL;
    }
    s->max_db = ssim_db_max(s->clip_db, vi->bpc, vi->w, vi->h);

    /* the box low-pass: every tap 1/f^2, rounded to float */
    const int taps = s->factor * s->factor;
    for (int i = 0; i < taps; i++) s->box[i] = 1.0f / (float)taps;

    const size_t full = (size_t)s->w * s->h;
    const size_t small = s->factor > 1 ? (size_t)s->sw * s->sh : 0;
    s->mem = malloc((2 * full + 2 * small) * sizeof(float));
    s->scratch = malloc(ssim_scratch_bytes(s->sw));
    s->acc = malloc((size_t)s->sw * sizeof(double));
    if (!s->mem || !s->scratch || !s->acc) {
        close_ssim(s);
        return -ENOMEM;
    }
    s->ref = s->mem;
    s->dis = s->ref + full;
    s->ref_s = s->factor > 1 ? s->dis + full : s->ref;
    s->dis_s = s->factor > 1 ? s->ref_s + small : s->dis;
    return 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatSsimState *s = priv;
    ssim_load_plane(s->ref, ref->data[0], ref->stride[0], ref->w[0], ref->h[0], s->bpc);
    ssim_load_plane(s->dis, dis->data[0], dis->stride[0], dis->w[0], dis->h[0], s->bpc);
    if (s->factor > 1) {
        const int f = s->factor;
        ssim_down_sample(s->ref, s->w, s->h, f, s->box, f, f, s->ref_s, s->sw, s->sh, s->acc);
        ssim_down_sample(s->dis, s->w, s->h, f, s->box, f, f, s->dis_s, s->sw, s->sh, s->acc);
    }
    float m[4];
    ssim_evaluate(s->ref_s, s->dis_s, s->sw, s->sh, s->scratch, m);

    double score = m[0];
    if (s->enable_db) score = ssim_to_db(score, s->max_db);
    int err = tvmaf_sink_append(sink, "float_ssim", index, score);
    if (s->enable_lcs) {
        err |= tvmaf_sink_append(sink, "float_ssim_l", index, m[1]);
        err |= tvmaf_sink_append(sink, "float_ssim_c", index, m[2]);
        err |= tvmaf_sink_append(sink, "float_ssim_s", index, m[3]);
    }
    return err ? -EINVAL : 0;
}

static const char *const provided[] = { "float_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ssim = {
    .name = "float_ssim",
    .backend = TVMAF_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(FloatSsimState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_ssim,
    .provided_features = provided,
};
