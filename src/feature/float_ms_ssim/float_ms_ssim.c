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

typedef struct FloatMsSsimState {
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    /* derived at init */
    unsigned bpc;
    int w[MS_SSIM_SCALES], h[MS_SSIM_SCALES];
    double max_db;
    float *mem;
    float *ref[MS_SSIM_SCALES], *dis[MS_SSIM_SCALES];
    void *scratch; /* ssim_evaluate's */
    double *acc;   /* ssim_down_sample's, w[1] */
} FloatMsSsimState;

static const TvmafOption options[] = {
    { "enable_lcs", "enable luminance, contrast and structure intermediate output",
      offsetof(FloatMsSsimState, enable_lcs), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "enable_db", "write MS-SSIM values as dB",
      offsetof(FloatMsSsimState, enable_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "clip_db", "clip dB scores",
      offsetof(FloatMsSsimState, clip_db), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
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

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatMsSsimState *s = priv;
    if (ssim_hbd_divisor(vi->bpc) == 0.0f && vi->bpc != 8) {
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
    s->bpc = vi->bpc;
    s->max_db = ssim_db_max(s->clip_db, vi->bpc, vi->w, vi->h);

    size_t total = 0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        s->w[i] = i ? ms_ssim_next_len(s->w[i - 1]) : (int)vi->w;
        s->h[i] = i ? ms_ssim_next_len(s->h[i - 1]) : (int)vi->h;
        total += 2 * (size_t)s->w[i] * s->h[i];
    }
    s->mem = malloc(total * sizeof(float));
    s->scratch = malloc(ssim_scratch_bytes(s->w[0]));
    s->acc = malloc((size_t)s->w[1] * sizeof(double));
    if (!s->mem || !s->scratch || !s->acc) {
        close_ms_ssim(s);
        return -ENOMEM;
    }
    float *p = s->mem;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        s->ref[i] = p;
        p += (size_t)s->w[i] * s->h[i];
        s->dis[i] = p;
        p += (size_t)s->w[i] * s->h[i];
    }
    return 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatMsSsimState *s = priv;
    ssim_load_plane(s->ref[0], ref->data[0], ref->stride[0], ref->w[0], ref->h[0], s->bpc);
    ssim_load_plane(s->dis[0], dis->data[0], dis->stride[0], dis->w[0], dis->h[0], s->bpc);
    for (int i = 1; i < MS_SSIM_SCALES; i++) {
        ssim_down_sample(s->ref[i - 1], s->w[i - 1], s->h[i - 1], 2, ms_ssim_lpf, MS_SSIM_LPF_LEN,
                         MS_SSIM_LPF_LEN, s->ref[i], s->w[i], s->h[i], s->acc);
        ssim_down_sample(s->dis[i - 1], s->w[i - 1], s->h[i - 1], 2, ms_ssim_lpf, MS_SSIM_LPF_LEN,
                         MS_SSIM_LPF_LEN, s->dis[i], s->w[i], s->h[i], s->acc);
    }

    double l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], st[MS_SSIM_SCALES];
    double score = 1.0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        float m[4];
        ssim_evaluate(s->ref[i], s->dis[i], s->w[i], s->h[i], s->scratch, m);
        score *= ms_ssim_factor(m[1], m[2], m[3], (unsigned)i);
        l[i] = m[1];
        c[i] = m[2];
        st[i] = m[3];
        /* the reference gives up on a frame whose product overflows */
        if (score == INFINITY) return -ERANGE;
    }

    if (s->enable_db) score = ssim_to_db(score, s->max_db);
    int err = tvmaf_sink_append(sink, "float_ms_ssim", index, score);
    if (s->enable_lcs) {
        static const char *const keys[3][MS_SSIM_SCALES] = {
            { "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
              "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4" },
            { "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
              "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4" },
            { "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
              "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4" },
        };
        const double *v[3] = { l, c, st };
        for (int t = 0; t < 3; t++)
            for (int i = 0; i < MS_SSIM_SCALES; i++)
                err |= tvmaf_sink_append(sink, keys[t][i], index, v[t][i]);
    }
    return err ? -EINVAL : 0;
}

static const char *const provided[] = { "float_ms_ssim", NULL };

const TvmafExtractor tvmaf_fex_float_ms_ssim = {
    .name = "float_ms_ssim",
    .backend = TVMAF_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(FloatMsSsimState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_ms_ssim,
    .provided_features = provided,
};
