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
#include "feature/float_ssim/float_ssim_state.h"

typedef struct FloatSsimState {
    FloatSsimParams p; /* first: the option table's offsets point into it */
    float *mem;
    float *ref, *dis;     /* loaded luma, w x h */
    float *ref_s, *dis_s; /* down-sampled, sw x sh (or ref, dis) */
    void *scratch; /* ssim_evaluate's */
    double *acc;   /* ssim_down_sample's, sw */
} FloatSsimState;

const TvmafOption tvmaf_float_ssim_options[] = {
    { "enable_lcs", "enable luminance, contrast and structure intermediate output",
      offsetof(FloatSsimParams, enable_lcs), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "enable_db", "write SSIM values as dB",
      offsetof(FloatSsimParams, enable_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "clip_db", "clip dB scores",
      offsetof(FloatSsimParams, clip_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "scale", "decimation scale factor (0=auto, 1=no downscaling, 2-10=explicit)",
      offsetof(FloatSsimParams, scale), TVMAF_OPT_INT, { .i = 0 }, 0, SSIM_MAX_FACTOR, 0, NULL },
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

int tvmaf_float_ssim_setup(FloatSsimParams *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (sample_divisor(vi->bpc) == 0.0f) {
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
    return 0;
}

int tvmaf_float_ssim_report(const FloatSsimParams *s, const float m[4], unsigned index,
                            TvmafSink *sink)
{
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

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatSsimState *st = priv;
    FloatSsimParams *s = &st->p;
    int err = tvmaf_float_ssim_setup(s, vi, msg, len);
    if (err) return err;
    const size_t full = (size_t)s->w * s->h;
    const size_t small = s->factor > 1 ? (size_t)s->sw * s->sh : 0;
    st->mem = malloc((2 * full + 2 * small) * sizeof(float));
    st->scratch = malloc(ssim_scratch_bytes(s->sw));
    st->acc = malloc((size_t)s->sw * sizeof(double));
    if (!st->mem || !st->scratch || !st->acc) {
        close_ssim(st);
        return -ENOMEM;
    }
    st->ref = st->mem;
    st->dis = st->ref + full;
    st->ref_s = s->factor > 1 ? st->dis + full : st->ref;
    st->dis_s = s->factor > 1 ? st->ref_s + small : st->dis;
    return 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatSsimState *st = priv;
    const FloatSsimParams *s = &st->p;
    ssim_load_plane(st->ref, ref->data[0], ref->stride[0], ref->w[0], ref->h[0], s->bpc);
    ssim_load_plane(st->dis, dis->data[0], dis->stride[0], dis->w[0], dis->h[0], s->bpc);
    if (s->factor > 1) {
        const int f = s->factor;
        ssim_down_sample(st->ref, s->w, s->h, f, s->box, f, f, st->ref_s, s->sw, s->sh, st->acc);
        ssim_down_sample(st->dis, s->w, s->h, f, s->box, f, f, st->dis_s, s->sw, s->sh, st->acc);
    }
    float m[4];
    ssim_evaluate(st->ref_s, st->dis_s, s->sw, s->sh, st->scratch, m);
    return tvmaf_float_ssim_report(s, m, index, sink);
}

static const char *const provided[] = { "float_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ssim = {
    .name = "float_ssim",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_float_ssim_options,
    .priv_size = sizeof(FloatSsimState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_ssim,
    .provided_features = provided,
};
