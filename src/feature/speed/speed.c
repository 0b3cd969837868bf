/*
 * speed_chroma and speed_temporal on the CPU, equal to libvmaf's extractors
 * of those names bit for bit (the pipeline is in speed_pipeline.c, the
 * arithmetic in speed_math.h). The options, checks and outputs below are
 * shared with the GPU twins (speed_state.h, speed_plan.c).
 *
 * speed_chroma scores the U plane and the V plane of each frame (reference
 * against distorted) and writes speed_chroma_u, _v and _uv, each clipped to
 * speed_max_val (the float score compared with the double limit, in
 * double). speed_chroma_uv is the mean of the two in double, rounded to
 * float, except that a plane whose pair had exactly one singular covariance
 * matrix (see below) is left out: uv is then the other plane's score.
 *
 * speed_temporal scores the luma difference of consecutive frames: for
 * frame i >= 1 the images are ref(i-1) - ref(i) and dis(i-1) - dis(i) (with
 * speed_use_ref_diff, dis(i-1) - ref(i)), differences in float; frame 0
 * scores 0. Its score is not clipped (speed_max_val only names the output)
 * and it always weighs variances in mode 0.
 *
 * Singular covariance: a flat image (a constant plane, a still scene for
 * speed_temporal) or one with too few placements of the 5x5 window to
 * estimate a 25x25 covariance (at most 25: the 160x90 chroma planes of a
 * 320x180 4:2:0 frame decimate to 10x5 and give 6) has an eigenvalue below
 * 1e-6. The reference then warns "covariance matrix is singular" and
 * takes every variance of that image as 0. A pair where both sides are
 * singular scores as usual (every block's weight log2(1 + 0) is 0, so the
 * score is 0); a pair where exactly one side is singular scores 0. The
 * warning is printed here once per extractor and process, not once per
 * image.
 *
 * Sizes. The reference decimates by 16 and needs one 5x5 block, so each
 * side of the scored plane must reach 80 samples after the prescale. Below
 * that the reference does not refuse: its block count is 0 and the size of
 * its block-placement window, (sides - 5 + 1) computed in size_t, wraps
 * around, so its covariance loop walks off its buffers (the SIGSEGV on a
 * 64x64 4:2:0 frame, whose 32x32 chroma planes decimate to 2x2). Here such
 * input is refused with the minimum frame size. Planes are the picture's
 * own: (w+1)/2 for subsampled chroma of odd sizes (the reference, whose
 * pictures have w/2, never sees the extra column).
 *
 * Other refusals, where the reference fails later or reads memory it never
 * wrote: a kernel scale outside the reference's list, an unknown prescale
 * method, luma-only input for speed_chroma, a prescale within 1e-3 of 1
 * that still makes a side grow (the reference skips the resize but filters
 * the grown size). speed_temporal with a prescale above 1 is scored here:
 * the reference sizes two of its buffers for the unscaled height and
 * overruns them (a heap corruption); the result here is the one its
 * arithmetic defines, the same pipeline as speed_chroma's.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/speed/speed_state.h"

#define DEFAULT_KERNELSCALE 1.0
#define DEFAULT_PRESCALE 1.0
#define DEFAULT_METHOD "nearest"
#define DEFAULT_SIGMA_NN 0.29
#define DEFAULT_NN_FLOOR 0.0
#define DEFAULT_MAX_VAL 1000.0

/* The reference's warning, once per stream: speed_temporal's frames come in
 * order, so it goes out at the first; speed_chroma's are scored by several
 * workers in any order, so each instance keeps its first frame and the
 * stream's first (the least) is named at the end (chroma_flush), the same
 * whatever the threads. */
static void warn_singular(const char *name, unsigned index)
{
    fprintf(stderr, "tvmaf WARNING %s: covariance matrix is singular (first at frame %u; "
            "a flat image or too few 5x5 block placements; such an image's variances "
            "are 0)\n", name, index);
}

/* ------------------------------------------------------------------------ */
/* Shared init                                                              */
/* ------------------------------------------------------------------------ */

/* Checks the depth and starts the pipeline on planes of pw x ph (with the
 * CPU's work buffers when host_buffers, else only its plan: a device twin);
 * on failure writes the refusal. plane: "chroma" or "luma"; sub_x / sub_y: whether that
 * plane is subsampled across / down (for the minimum frame size). */
static int start_pipeline(SpeedPipeline *pl, const char *name, const SpeedParams *prm,
                          const TvmafVideoInfo *vi, const char *plane, int pw, int ph,
                          int sub_x, int sub_y, int host_buffers, char *msg, size_t len)
{
    if (sample_divisor(vi->bpc) == 0.0f) {
        snprintf(msg, len, "feature \"%s\" does not support %u-bit input (8, 10, 12 or 16)",
                 name, vi->bpc);
        return -EINVAL;
    }
    switch (host_buffers ? speed_pipeline_init(pl, prm, pw, ph)
                         : speed_pipeline_plan(pl, prm, pw, ph)) {
    case SPEED_INIT_OK:
        if (host_buffers) tvmaf_speed_dsp_init(&pl->kern, vi->cpu_flags);
        return 0;
    case SPEED_INIT_NOMEM:
        return -ENOMEM;
    case SPEED_INIT_BAD_KERNELSCALE:
        snprintf(msg, len, "feature \"%s\" does not support speed_kernelscale=%g: the "
                 "reference accepts only its 21 kernel scales (1, 0.5, 1.5, 2, 2/3, 2.4, "
                 "360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, "
                 "1.06667, 0.711111, 0.74074, 1.111111, within 1e-3)", name, prm->kernelscale);
        return -EINVAL;
    case SPEED_INIT_BAD_METHOD:
        snprintf(msg, len, "feature \"%s\" does not support speed_prescale_method=%s "
                 "(nearest, bilinear, bicubic or lanczos4)", name, prm->method);
        return -EINVAL;
    case SPEED_INIT_TOO_SMALL: {
        const int n = speed_min_plane_side(prm->prescale);
        const int fw = sub_x ? 2 * n - 1 : n, fh = sub_y ? 2 * n - 1 : n;
        char scaled[96] = "";
        if (prm->prescale != 1.0)
            snprintf(scaled, sizeof(scaled), ", %d after speed_prescale=%g", SPEED_MIN_SIDE,
                     prm->prescale);
        snprintf(msg, len, "feature \"%s\" needs a frame of at least %dx%d for %s input "
                 "(its %s plane must have at least %d samples on each side%s: SpEED "
                 "decimates by %d and needs one %dx%d block); the input is %ux%u, the "
                 "plane %dx%d", name, fw, fh, tvmaf_pix_fmt_name(vi->pix_fmt),
                 plane, n,
                 scaled, SPEED_DECIMATION, SPEED_BLOCK, SPEED_BLOCK, vi->w, vi->h, pw, ph);
        return -EINVAL;
    }
    case SPEED_INIT_UNSCALED_GROWTH:
        snprintf(msg, len, "feature \"%s\" does not support speed_prescale=%g on a %dx%d "
                 "plane: within 1e-3 of 1 the reference does not resize, yet filters a "
                 "%dx%d image, reading samples it never wrote", name, prm->prescale, pw, ph,
                 speed_scaled_side(pw, prm->prescale), speed_scaled_side(ph, prm->prescale));
        return -EINVAL;
    }
    return -EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

#define OPT_KERNELSCALE(T, field) \
    { "speed_kernelscale", "Gaussian kernel scale (2.0 doubles its deviation and widens it " \
      "to match)", offsetof(T, field), TVMAF_OPT_DOUBLE, { .d = DEFAULT_KERNELSCALE }, 0.1, \
      4.0, TVMAF_OPT_FEATURE_PARAM, "ks" }
#define OPT_PRESCALE(T, field) \
    { "speed_prescale", "frame resize factor applied first (2.0 doubles each side)", \
      offsetof(T, field), TVMAF_OPT_DOUBLE, { .d = DEFAULT_PRESCALE }, 0.1, 4.0, \
      TVMAF_OPT_FEATURE_PARAM, "ps" }
#define OPT_METHOD(T, field) \
    { "speed_prescale_method", "resize method: nearest, bilinear, bicubic or lanczos4", \
      offsetof(T, field), TVMAF_OPT_STRING, { .s = DEFAULT_METHOD }, 0, 0, \
      TVMAF_OPT_FEATURE_PARAM, "psm" }
#define OPT_SIGMA_NN(T, field) \
    { "speed_sigma_nn", "standard deviation of the neural noise", offsetof(T, field), \
      TVMAF_OPT_DOUBLE, { .d = DEFAULT_SIGMA_NN }, 0.1, 2.0, TVMAF_OPT_FEATURE_PARAM, "snn" }
#define OPT_NN_FLOOR(T, field) \
    { "speed_nn_floor", "neural noise floor, as a fraction of speed_sigma_nn", \
      offsetof(T, field), TVMAF_OPT_DOUBLE, { .d = DEFAULT_NN_FLOOR }, 0.0, 1.0, \
      TVMAF_OPT_FEATURE_PARAM, "nnf" }
#define OPT_MAX_VAL(T, field, help) \
    { "speed_max_val", help, offsetof(T, field), TVMAF_OPT_DOUBLE, { .d = DEFAULT_MAX_VAL }, \
      0.0, 1000.0, TVMAF_OPT_FEATURE_PARAM, "mxv" }

/* ------------------------------------------------------------------------ */
/* speed_chroma                                                             */
/* ------------------------------------------------------------------------ */

const char *const tvmaf_speed_chroma_provided[] = {
    "Speed_chroma_feature_speed_chroma_u_score",
    "Speed_chroma_feature_speed_chroma_v_score",
    "Speed_chroma_feature_speed_chroma_uv_score",
    NULL,
};

const TvmafOption tvmaf_speed_chroma_options[] = {
    OPT_KERNELSCALE(SpeedChromaParams, kernelscale),
    OPT_PRESCALE(SpeedChromaParams, prescale),
    OPT_METHOD(SpeedChromaParams, method),
    OPT_SIGMA_NN(SpeedChromaParams, sigma_nn),
    OPT_NN_FLOOR(SpeedChromaParams, nn_floor),
    OPT_MAX_VAL(SpeedChromaParams, max_val, "scores above this value are clipped to it"),
    { "speed_weight_var_mode", "variance weighting: 0 each side its own, 1 the reference's, "
      "2 the distorted's, 3 their mean, 4 own for ref and mean for dis, 5 / 6 3:1 / 1:3 "
      "blends for dis", offsetof(SpeedChromaParams, weight_var_mode), TVMAF_OPT_INT, { .i = 0 },
      0, 6, TVMAF_OPT_FEATURE_PARAM, "wvm" },
    { 0 },
};

int tvmaf_speed_chroma_setup(SpeedChromaParams *s, const TvmafVideoInfo *vi, int host_buffers,
                             char *msg, size_t len)
{
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) {
        snprintf(msg, len, "feature \"speed_chroma\" does not support luma-only (4:0:0) "
                 "input: it scores the chroma planes");
        return -EINVAL;
    }
    unsigned pw[3], ph[3];
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph)) {
        snprintf(msg, len, "feature \"speed_chroma\" does not support this picture format");
        return -EINVAL;
    }
    for (int k = 0; k < 3; k++)
        if (tvmaf_feature_key(s->key[k], SPEED_KEY_LEN, tvmaf_speed_chroma_provided[k],
                              tvmaf_speed_chroma_options, s)) {
            snprintf(msg, len, "feature \"speed_chroma\": output key name too long");
            return -EINVAL;
        }
    const SpeedParams prm = {
        .kernelscale = s->kernelscale, .prescale = s->prescale, .method = s->method,
        .sigma_nn = s->sigma_nn, .nn_floor = s->nn_floor, .weight_var_mode = s->weight_var_mode,
    };
    s->bpc = vi->bpc;
    s->pw = (int)pw[1];
    s->ph = (int)ph[1];
    s->first_singular = UINT_MAX;
    s->singular_warned = false;
    const int sub_x = vi->pix_fmt != TVMAF_PIX_FMT_YUV444P;
    const int sub_y = vi->pix_fmt == TVMAF_PIX_FMT_YUV420P;
    return start_pipeline(&s->pl, "speed_chroma", &prm, vi, "chroma", s->pw, s->ph, sub_x, sub_y,
                          host_buffers, msg, len);
}

/* min(score, limit) as the reference's macro forms it: in double, a NaN
 * score giving the limit. */
static double clip(float score, double limit)
{
    return (double)score < limit ? (double)score : limit;
}

int tvmaf_speed_chroma_report(SpeedChromaParams *s, float u, int su, float v, int sv,
                              unsigned index, TvmafSink *sink)
{
    if ((su || sv) && index < s->first_singular) s->first_singular = index;
    float uv;
    if (su && !sv) uv = v;
    else if (sv && !su) uv = u;
    else uv = (float)((double)(u + v) / 2.0);
    int err = 0;
    err |= tvmaf_sink_append(sink, s->key[0], index, clip(u, s->max_val));
    err |= tvmaf_sink_append(sink, s->key[1], index, clip(v, s->max_val));
    err |= tvmaf_sink_append(sink, s->key[2], index, clip(uv, s->max_val));
    return err ? -EINVAL : 0;
}

typedef struct SpeedChroma {
    SpeedChromaParams p; /* first: the option table's offsets point into it */
    float *ref, *dis;    /* one plane each */
} SpeedChroma;

static void chroma_close(void *priv)
{
    SpeedChroma *s = priv;
    speed_pipeline_close(&s->p.pl);
    free(s->ref);
    free(s->dis);
    s->ref = s->dis = NULL;
}

static int chroma_init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    SpeedChroma *s = priv;
    int err = tvmaf_speed_chroma_setup(&s->p, vi, 1, msg, len);
    if (err) return err;
    const size_t n = (size_t)s->p.pw * s->p.ph;
    /* zeros in the rows never loaded (speed_load_plane) */
    s->ref = calloc(n, sizeof(float));
    s->dis = calloc(n, sizeof(float));
    if (!s->ref || !s->dis) {
        chroma_close(s);
        return -ENOMEM;
    }
    return 0;
}

/* Score of chroma plane `plane`; *singular: whether one of its images was. */
static float chroma_plane(SpeedChroma *s, const TvmafPicture *ref, const TvmafPicture *dis,
                          int plane, int *singular)
{
    SpeedChromaParams *p = &s->p;
    speed_load_plane(&p->pl, ref, plane, p->pw, p->ph, s->ref);
    speed_load_plane(&p->pl, dis, plane, p->pw, p->ph, s->dis);
    const int sr = speed_pipeline_image(&p->pl, s->ref, p->pw, 0);
    const int sd = speed_pipeline_image(&p->pl, s->dis, p->pw, 1);
    *singular = sr || sd;
    return speed_pipeline_score(&p->pl, sr, sd);
}

static int chroma_extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                          unsigned index, TvmafSink *sink)
{
    SpeedChroma *s = priv;
    int su, sv;
    const float u = chroma_plane(s, ref, dis, 1, &su);
    const float v = chroma_plane(s, ref, dis, 2, &sv);
    return tvmaf_speed_chroma_report(&s->p, u, su, v, sv, index, sink);
}

/* merge and flush receive the state every instance begins with, the CPU's
 * (SpeedChroma) or a twin's (speed_plan.c): its SpeedChromaParams. An
 * instance whose warning went out (a flushed context appended to another)
 * passes nothing on. */
static int chroma_merge(void *dst, const void *src)
{
    SpeedChromaParams *d = dst;
    const SpeedChromaParams *s = src;
    if (!s->singular_warned && s->first_singular < d->first_singular)
        d->first_singular = s->first_singular;
    return 0;
}

static int chroma_flush(void *priv, TvmafSink *sink)
{
    (void)sink;
    SpeedChromaParams *p = priv;
    if (p->first_singular != UINT_MAX && !p->singular_warned) {
        warn_singular("speed_chroma", p->first_singular);
        p->singular_warned = true;
    }
    return 0;
}

const TvmafExtractor tvmaf_fex_speed_chroma = {
    .name = "speed_chroma",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_speed_chroma_options,
    .priv_size = sizeof(SpeedChroma),
    .init = chroma_init,
    .extract = chroma_extract,
    .merge = chroma_merge,
    .flush = chroma_flush,
    .close = chroma_close,
    .provided_features = tvmaf_speed_chroma_provided,
};

/* ------------------------------------------------------------------------ */
/* speed_temporal                                                           */
/* ------------------------------------------------------------------------ */

const char *const tvmaf_speed_temporal_provided[] = {
    "Speed_temporal_feature_speed_temporal_score",
    NULL,
};

const TvmafOption tvmaf_speed_temporal_options[] = {
    OPT_KERNELSCALE(SpeedTemporalParams, kernelscale),
    OPT_PRESCALE(SpeedTemporalParams, prescale),
    OPT_METHOD(SpeedTemporalParams, method),
    OPT_SIGMA_NN(SpeedTemporalParams, sigma_nn),
    OPT_NN_FLOOR(SpeedTemporalParams, nn_floor),
    OPT_MAX_VAL(SpeedTemporalParams, max_val, "accepted and part of the output name; the "
                "reference does not clip speed_temporal"),
    { "speed_use_ref_diff", "difference the distorted frame against the current reference "
      "frame instead of the current distorted one", offsetof(SpeedTemporalParams, use_ref_diff),
      TVMAF_OPT_BOOL, { .b = false }, 0, 0, TVMAF_OPT_FEATURE_PARAM, "urd" },
    { 0 },
};

int tvmaf_speed_temporal_setup(SpeedTemporalParams *s, const TvmafVideoInfo *vi,
                               int host_buffers, char *msg, size_t len)
{
    if (tvmaf_feature_key(s->key, SPEED_KEY_LEN, tvmaf_speed_temporal_provided[0],
                          tvmaf_speed_temporal_options, s)) {
        snprintf(msg, len, "feature \"speed_temporal\": output key name too long");
        return -EINVAL;
    }
    const SpeedParams prm = {
        .kernelscale = s->kernelscale, .prescale = s->prescale, .method = s->method,
        .sigma_nn = s->sigma_nn, .nn_floor = s->nn_floor, .weight_var_mode = 0,
    };
    s->bpc = vi->bpc;
    s->w = (int)vi->w;
    s->h = (int)vi->h;
    s->n_frames = 0;
    s->singular_warned = false;
    return start_pipeline(&s->pl, "speed_temporal", &prm, vi, "luma", s->w, s->h, 0, 0,
                          host_buffers, msg, len);
}

int tvmaf_speed_temporal_next(SpeedTemporalParams *s, unsigned index)
{
    if (index != s->n_frames) return -EINVAL; /* frames must come in order */
    s->n_frames++;
    return 0;
}

int tvmaf_speed_temporal_report(SpeedTemporalParams *s, unsigned index, float score,
                                int singular, TvmafSink *sink)
{
    if (singular && !s->singular_warned) {
        warn_singular("speed_temporal", index);
        s->singular_warned = true;
    }
    return tvmaf_sink_append(sink, s->key, index, (double)score) ? -EINVAL : 0;
}

typedef struct SpeedTemporal {
    SpeedTemporalParams p;  /* first: the option table's offsets point into it */
    float *ref[2], *dis[2]; /* luma of frame k in slot k % 2 */
    float *diff;
} SpeedTemporal;

static void temporal_close(void *priv)
{
    SpeedTemporal *s = priv;
    speed_pipeline_close(&s->p.pl);
    for (int k = 0; k < 2; k++) {
        free(s->ref[k]);
        free(s->dis[k]);
        s->ref[k] = s->dis[k] = NULL;
    }
    free(s->diff);
    s->diff = NULL;
}

static int temporal_init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    SpeedTemporal *s = priv;
    int err = tvmaf_speed_temporal_setup(&s->p, vi, 1, msg, len);
    if (err) return err;
    const size_t n = (size_t)s->p.w * s->p.h;
    bool ok = true;
    for (int k = 0; k < 2; k++) {
        /* zeros in the rows never loaded (speed_load_plane), whose
         * differences are then zeros too and are never read either */
        ok &= (s->ref[k] = calloc(n, sizeof(float))) != NULL;
        ok &= (s->dis[k] = calloc(n, sizeof(float))) != NULL;
    }
    ok &= (s->diff = malloc(n * sizeof(float))) != NULL;
    if (!ok) {
        temporal_close(s);
        return -ENOMEM;
    }
    return 0;
}

static void subtract(const float *a, const float *b, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = a[i] - b[i];
}

static int temporal_extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                            unsigned index, TvmafSink *sink)
{
    SpeedTemporal *s = priv;
    SpeedTemporalParams *p = &s->p;
    if (tvmaf_speed_temporal_next(p, index)) return -EINVAL;
    const int cur = index % 2, prev = !cur;
    speed_load_plane(&p->pl, ref, 0, p->w, p->h, s->ref[cur]);
    speed_load_plane(&p->pl, dis, 0, p->w, p->h, s->dis[cur]);
    if (index == 0) return tvmaf_speed_temporal_report(p, index, 0.0f, 0, sink);

    const size_t n = (size_t)p->w * p->h;
    subtract(s->ref[prev], s->ref[cur], s->diff, n);
    const int sr = speed_pipeline_image(&p->pl, s->diff, p->w, 0);
    subtract(s->dis[prev], p->use_ref_diff ? s->ref[cur] : s->dis[cur], s->diff, n);
    const int sd = speed_pipeline_image(&p->pl, s->diff, p->w, 1);
    const float score = speed_pipeline_score(&p->pl, sr, sd);
    return tvmaf_speed_temporal_report(p, index, score, sr || sd, sink);
}

const TvmafExtractor tvmaf_fex_speed_temporal = {
    .name = "speed_temporal",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_speed_temporal_options,
    .priv_size = sizeof(SpeedTemporal),
    .flags = SPEED_TEMPORAL_FLAGS,
    /* a frame is scored against the one before it: one frame rebuilds the state */
    .warmup_frames = SPEED_TEMPORAL_WARMUP_FRAMES,
    .init = temporal_init,
    .extract = temporal_extract,
    .close = temporal_close,
    .provided_features = tvmaf_speed_temporal_provided,
};
