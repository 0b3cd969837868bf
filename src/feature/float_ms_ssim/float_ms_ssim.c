/*
 * float_ms_ssim on the CPU: five-scale MS-SSIM of the luma plane (and, with
 * enable_lcs, each scale's mean l, c and s), equal to libvmaf's float_ms_ssim
 * bit for bit. The pyramid and the product are float_ms_ssim_math.h's, the
 * SSIM of each scale float_ssim_math.h's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/feature.h"
#include "feature/float_ms_ssim/float_ms_ssim_math.h"
#include "feature/float_ms_ssim/float_ms_ssim_state.h"

typedef struct FloatMsSsimState {
    FloatMsSsimParams p; /* first: the option table's offsets point into it */
    float *mem;
    float *ref[MS_SSIM_SCALES], *dis[MS_SSIM_SCALES];
    void *scratch; /* ssim_evaluate's */
    double *acc;   /* ssim_down_sample's, w[1] */
} FloatMsSsimState;

const TvmafOption tvmaf_float_ms_ssim_options[] = {
    { "enable_lcs", "enable luminance, contrast and structure intermediate output",
      offsetof(FloatMsSsimParams, enable_lcs), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "enable_db", "write MS-SSIM values as dB",
      offsetof(FloatMsSsimParams, enable_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "clip_db", "clip dB scores",
      offsetof(FloatMsSsimParams, clip_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { 0 },
};

static void close_ms_ssim(void *priv)
{
    FloatMsSsimState *s = priv;
    free(s->mem);
    free(s->scratch);
    free(s->acc);
    s->mem = NULL;
    s->scratch = NULL;
    s->acc = NULL;
}

int tvmaf_float_ms_ssim_setup(FloatMsSsimParams *p, const TvmafVideoInfo *vi, char *msg,
                              size_t len)
{
    if (sample_divisor(vi->bpc) == 0.0f) {
        snprintf(msg, len, "feature \"float_ms_ssim\" supports 8, 10, 12 and 16 bits per "
                 "sample, not %u", vi->bpc);
        return -EINVAL;
    }
    if (vi->w < MS_SSIM_MIN_DIM || vi->h < MS_SSIM_MIN_DIM) {
        snprintf(msg, len, "feature \"float_ms_ssim\" needs a frame of at least %ux%u (its %d "
                 "scales must each hold the 11x11 window), got %ux%u", MS_SSIM_MIN_DIM,
                 MS_SSIM_MIN_DIM, MS_SSIM_SCALES, vi->w, vi->h);
        return -EINVAL;
    }
    p->bpc = vi->bpc;
    p->max_db = ssim_db_max(p->clip_db, vi->bpc, vi->w, vi->h);
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        p->w[i] = i ? ms_ssim_next_len(p->w[i - 1]) : (int)vi->w;
        p->h[i] = i ? ms_ssim_next_len(p->h[i - 1]) : (int)vi->h;
    }
    return 0;
}

int tvmaf_float_ms_ssim_report(const FloatMsSsimParams *p, const float l[MS_SSIM_SCALES],
                               const float c[MS_SSIM_SCALES], const float s[MS_SSIM_SCALES],
                               unsigned index, TvmafSink *sink)
{
    double score = 1.0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        score *= ms_ssim_factor(l[i], c[i], s[i], (unsigned)i);
        /* the reference gives up on a frame whose product overflows */
        if (score == INFINITY) return -ERANGE;
    }

    if (p->enable_db) score = ssim_to_db(score, p->max_db);
    int err = tvmaf_sink_append(sink, "float_ms_ssim", index, score);
    if (p->enable_lcs) {
        static const char *const keys[3][MS_SSIM_SCALES] = {
            { "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
              "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4" },
            { "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
              "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4" },
            { "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
              "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4" },
        };
        const float *v[3] = { l, c, s };
        for (int t = 0; t < 3; t++)
            for (int i = 0; i < MS_SSIM_SCALES; i++)
                err |= tvmaf_sink_append(sink, keys[t][i], index, v[t][i]);
    }
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatMsSsimState *st = priv;
    FloatMsSsimParams *s = &st->p;
    const int err = tvmaf_float_ms_ssim_setup(s, vi, msg, len);
    if (err) return err;

    size_t total = 0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) total += 2 * (size_t)s->w[i] * s->h[i];
    st->mem = malloc(total * sizeof(float));
    st->scratch = malloc(ssim_scratch_bytes(s->w[0]));
    st->acc = malloc((size_t)s->w[1] * sizeof(double));
    if (!st->mem || !st->scratch || !st->acc) {
        close_ms_ssim(st);
        return -ENOMEM;
    }
    float *p = st->mem;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        st->ref[i] = p;
        p += (size_t)s->w[i] * s->h[i];
        st->dis[i] = p;
        p += (size_t)s->w[i] * s->h[i];
    }
    return 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatMsSsimState *st = priv;
    const FloatMsSsimParams *s = &st->p;
    ssim_load_plane(st->ref[0], ref->data[0], ref->stride[0], ref->w[0], ref->h[0], s->bpc);
    ssim_load_plane(st->dis[0], dis->data[0], dis->stride[0], dis->w[0], dis->h[0], s->bpc);
    for (int i = 1; i < MS_SSIM_SCALES; i++) {
        ssim_down_sample(st->ref[i - 1], s->w[i - 1], s->h[i - 1], MS_SSIM_DOWN, ms_ssim_lpf,
                         MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN, st->ref[i], s->w[i], s->h[i], st->acc);
        ssim_down_sample(st->dis[i - 1], s->w[i - 1], s->h[i - 1], MS_SSIM_DOWN, ms_ssim_lpf,
                         MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN, st->dis[i], s->w[i], s->h[i], st->acc);
    }

    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], sv[MS_SSIM_SCALES];
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        float m[4];
        ssim_evaluate(st->ref[i], st->dis[i], s->w[i], s->h[i], st->scratch, m);
        l[i] = m[1];
        c[i] = m[2];
        sv[i] = m[3];
    }
    return tvmaf_float_ms_ssim_report(s, l, c, sv, index, sink);
}

static const char *const provided[] = { "float_ms_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ms_ssim = {
    .name = "float_ms_ssim",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_float_ms_ssim_options,
    .priv_size = sizeof(FloatMsSsimState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_ms_ssim,
    .provided_features = provided,
};
