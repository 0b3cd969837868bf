/*
 * Integer motion on the CPU: motion_sad_score per frame, integer_motion2 and
 * integer_motion3 at the end of the stream, equal to libvmaf's integer motion
 * extractor bit for bit.
 *
 * Frame i compares the reference luma of frame i with that of frame i - 1
 * (i - 2 with the five-frame window). The CPU extractor is a PREV_REF one, as
 * in the reference: the context keeps the last two reference pictures and
 * hands them to whichever worker scores frame i, so frames are scored in
 * parallel (a temporal extractor, whose frames wait for their turn, capped
 * the throughput at many threads). The reference blurs the difference of the
 * two planes with a rounding step in the middle, see motion_math.h, so raw
 * planes are what is compared, not blurred ones. Each instance records the
 * sad scores of its frames; the context gathers them before flush computes
 * motion2 and motion3. It runs on every frame under --subsample too, as the
 * reference's previous-reference extractors do.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/team.h"
#include "core/feature_name.h"
#include "core/picture_pool.h"
#include "feature/motion/motion_cpu.h"
#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"

const TvmafOption tvmaf_motion_options[] = {
    { "motion_force_zero", "forcing motion score to zero",
      offsetof(MotionState, force_zero), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "force_0" },
    { "motion_blend_factor", "blend motion score given an offset",
      offsetof(MotionState, blend_factor), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "mbf" },
    { "motion_blend_offset", "blend motion score starting from this offset",
      offsetof(MotionState, blend_offset), TVMAF_OPT_DOUBLE, { .d = 40.0 }, 0.0, 1000.0,
      TVMAF_OPT_FEATURE_PARAM, "mbo" },
    { "motion_fps_weight", "fps-aware multiplicative weight/correction",
      offsetof(MotionState, fps_weight), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 5.0,
      TVMAF_OPT_FEATURE_PARAM, "mfw" },
    { "motion_max_val", "maximum value allowed; larger values will be clipped to this value",
      offsetof(MotionState, max_val), TVMAF_OPT_DOUBLE, { .d = 10000.0 }, 0.0, 10000.0,
      TVMAF_OPT_FEATURE_PARAM, "mmxv" },
    { "motion_five_frame_window", "use five-frame temporal window",
      offsetof(MotionState, five_frame_window), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "mffw" },
    { "motion_moving_average", "use moving average for motion scores after first frame",
      offsetof(MotionState, moving_average), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "mma" },
    { "debug", "debug mode: enable additional output",
      offsetof(MotionState, debug), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { 0 },
};

int tvmaf_motion_setup(MotionState *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (vi->w < MOTION_MIN_SIDE || vi->h < MOTION_MIN_SIDE) {
        snprintf(msg, len, "feature \"motion\" needs a luma plane of at least %ux%u samples "
                 "(its 5-tap filter mirrors 2 samples at each edge); the input is %ux%u",
                 MOTION_MIN_SIDE, MOTION_MIN_SIDE, vi->w, vi->h);
        return -EINVAL;
    }
    s->w = vi->w;
    s->h = vi->h;
    s->bpc = vi->bpc;
    s->sad = NULL;
    s->have = NULL;
    s->n_sad = s->cap_sad = 0;
    const TvmafOption *o = tvmaf_motion_options;
    if (tvmaf_feature_key(s->key_sad, MOTION_KEY_LEN, "VMAF_integer_feature_motion_sad_score", o, s) ||
        tvmaf_feature_key(s->key_motion, MOTION_KEY_LEN, "VMAF_integer_feature_motion_score", o, s) ||
        tvmaf_feature_key(s->key_motion2, MOTION_KEY_LEN, "VMAF_integer_feature_motion2_score", o, s) ||
        tvmaf_feature_key(s->key_motion3, MOTION_KEY_LEN, "VMAF_integer_feature_motion3_score", o, s)) {
        snprintf(msg, len, "feature \"motion\": output key name too long");
        return -EINVAL;
    }
    return 0;
}

bool tvmaf_motion_compares(const MotionState *s, unsigned index)
{
    return !s->force_zero && index >= motion_lag(s);
}

/* Keeps a score for frame `index` (once). */
static int keep_score(MotionState *s, unsigned index, double score)
{
    if (index == UINT_MAX) return -EINVAL;
    if (index >= s->cap_sad) {
        unsigned cap = s->cap_sad ? s->cap_sad : 256;
        while (cap <= index) {
            if (cap > UINT_MAX / 2) return -ENOMEM;
            cap *= 2;
        }
        double *v = realloc(s->sad, cap * sizeof(*v));
        if (!v) return -ENOMEM;
        s->sad = v;
        unsigned char *h = realloc(s->have, cap);
        if (!h) return -ENOMEM;
        memset(h + s->cap_sad, 0, cap - s->cap_sad);
        s->have = h;
        s->cap_sad = cap;
    }
    if (s->have[index]) return -EINVAL; /* a frame scored twice */
    s->have[index] = 1;
    s->sad[index] = score;
    if (index >= s->n_sad) s->n_sad = index + 1;
    return 0;
}

int tvmaf_motion_record(MotionState *s, uint64_t sad, unsigned index, double *out)
{
    const double score = tvmaf_motion_compares(s, index)
        ? motion_sad_score(sad, s->w, s->h, s->fps_weight, s->max_val) : 0.;
    int err = keep_score(s, index, score);
    if (!err) *out = score;
    return err;
}

int tvmaf_motion_gather(MotionState *dst, const MotionState *src)
{
    for (unsigned i = 0; i < src->n_sad; i++) {
        if (!src->have[i]) continue;
        int err = keep_score(dst, i, src->sad[i]);
        if (err) return err;
    }
    return 0;
}

int tvmaf_motion_report(MotionState *s, uint64_t sad, unsigned index, TvmafSink *sink)
{
    double score;
    int err = tvmaf_motion_record(s, sad, index, &score);
    if (!err) err = tvmaf_sink_append(sink, s->key_sad, index, score);
    if (!err && s->debug) err = tvmaf_sink_append(sink, s->key_motion, index, score);
    return err;
}

/* A motion value blended towards the offset and clipped to max_val. */
static double blend_clip(const MotionState *s, double v)
{
    const double b = motion_blend(v, s->blend_factor, s->blend_offset);
    return b < s->max_val ? b : s->max_val;
}

/*
 * With lag L (1, or 2 with the five-frame window), frames below L have no
 * motion2; frame i >= L takes the smaller of the sad scores of frames
 * i - L + 1 and i + 1 (only i + 1 when i - L + 1 < L, only i itself when it is
 * the last frame). motion3 is motion2 blended and clipped (with the moving
 * average: the mean of this and the previous such value); frames below L take
 * the blended, clipped sad score of frame L.
 */
void tvmaf_motion_window(const MotionState *s, unsigned i, double *carry, double *m2,
                         double *m3)
{
    const unsigned n = s->n_sad, lag = motion_lag(s);
    const double *sad = s->sad;
    *m2 = 0.;
    if (i >= lag) {
        const unsigned lo = i + 1 - lag, hi = i + 1;
        if (hi >= n) *m2 = sad[i];
        else if (lo >= lag) *m2 = sad[lo] < sad[hi] ? sad[lo] : sad[hi];
        else *m2 = sad[hi];
    }
    if (i < lag) {
        *m3 = n > lag ? blend_clip(s, sad[lag]) : 0.;
        *carry = *m3;
    } else {
        const double cur = blend_clip(s, *m2);
        *m3 = s->moving_average ? (cur + *carry) / 2.0 : cur;
        *carry = cur;
    }
}

int tvmaf_motion_flush(MotionState *s, TvmafSink *sink)
{
    double carry = 0.;
    int err = 0;
    for (unsigned i = 0; i < s->n_sad; i++)
        if (!s->have[i]) return -EINVAL; /* a frame's score never came */
    for (unsigned i = 0; i < s->n_sad && !err; i++) {
        double m2, m3;
        tvmaf_motion_window(s, i, &carry, &m2, &m3);
        err = tvmaf_sink_append(sink, s->key_motion2, i, m2);
        if (!err) err = tvmaf_sink_append(sink, s->key_motion3, i, m3);
    }
    return err;
}

void tvmaf_motion_release(MotionState *s)
{
    free(s->sad);
    free(s->have);
    s->sad = NULL;
    s->have = NULL;
    s->n_sad = s->cap_sad = 0;
}

/* CPU extractor ---------------------------------------------------------- */

/* The fewest rows of a band of a team job (core/team.h): smaller ones
 * would cost more to hand out than they share. */
#define MOTION_MIN_BAND_ROWS 32

typedef struct MotionCpu {
    MotionState s; /* first: the option offsets are relative to it */
    int32_t *y;    /* one row of the vertical pass per slot of the team */
    uint64_t *slot_sad; /* per slot: the SAD of the bands it ran */
    TvmafTeam *team;
    unsigned n_slots;
    MotionKernels k;
} MotionCpu;

static void close_cpu(void *priv)
{
    MotionCpu *m = priv;
    free(m->y);
    free(m->slot_sad);
    m->y = NULL;
    m->slot_sad = NULL;
    tvmaf_motion_release(&m->s);
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    MotionCpu *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    tvmaf_motion_dsp_init(&m->k, vi->cpu_flags);
    m->team = vi->team;
    m->n_slots = tvmaf_team_size(vi->team);
    m->y = malloc(sizeof(*m->y) * vi->w * m->n_slots);
    m->slot_sad = malloc(sizeof(*m->slot_sad) * m->n_slots);
    if (!m->y || !m->slot_sad) {
        close_cpu(m);
        return -ENOMEM;
    }
    return 0;
}

MOTION_KERNELS_DEFINE(tvmaf_motion_kernels_c);

void tvmaf_motion_dsp_init(MotionKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_motion_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, motion);
}

/* SAD of the blurred difference of two luma planes (prev - cur), rows
 * [i0, i1), with the vertical-pass row y. */
static uint64_t plane_sad(const MotionCpu *m, int32_t *y, const unsigned char *prev,
                          ptrdiff_t prev_stride, const unsigned char *cur, ptrdiff_t cur_stride,
                          unsigned i0, unsigned i1)
{
    const unsigned w = m->s.w, h = m->s.h, bpc = m->s.bpc;
    uint64_t sad = 0;
    for (unsigned i = i0; i < i1; i++) {
        int32_t any;
        int rows[5];
        motion_tap_rows((int)i, (int)h, rows);
        if (bpc == 8) {
            const uint8_t *p[5], *c[5];
            for (int k = 0; k < 5; k++) {
                p[k] = prev + (ptrdiff_t)rows[k] * prev_stride;
                c[k] = cur + (ptrdiff_t)rows[k] * cur_stride;
            }
            any = m->k.vrow_8(p, c, y, w);
        } else {
            const uint16_t *p[5], *c[5];
            for (int k = 0; k < 5; k++) {
                p[k] = (const uint16_t *)(prev + (ptrdiff_t)rows[k] * prev_stride);
                c[k] = (const uint16_t *)(cur + (ptrdiff_t)rows[k] * cur_stride);
            }
            any = m->k.vrow_16(p, c, y, w, bpc);
        }
        /* a row of zeros adds zero: (0 + 2^15) >> 16 = 0 */
        if (any) sad += m->k.hrow_sad(y, w);
    }
    return sad;
}

/* names motion's SAD among the results kept on a picture (its address) */
static const char sad_tag = 0;

typedef struct SadJob {
    const MotionCpu *m;
    const TvmafPicture *prev, *cur;
    unsigned n_bands;
} SadJob;

static void sad_band(void *arg, unsigned b, unsigned slot)
{
    const SadJob *j = arg;
    const unsigned h = j->m->s.h;
    j->m->slot_sad[slot] += plane_sad(j->m, j->m->y + (size_t)slot * j->m->s.w, j->prev->data[0],
                               j->prev->stride[0], j->cur->data[0], j->cur->stride[0],
                               tvmaf_band_row(b, j->n_bands, h),
                               tvmaf_band_row(b + 1, j->n_bands, h));
}

static int sad_job(void *arg, uint64_t *sad)
{
    SadJob *j = arg;
    const MotionCpu *m = j->m;
    for (unsigned t = 0; t < m->n_slots; t++) m->slot_sad[t] = 0;
    tvmaf_team_run(m->team, j->n_bands, sad_band, j);
    /* integers: the bands' sum whichever slot ran which */
    *sad = 0;
    for (unsigned t = 0; t < m->n_slots; t++) *sad += m->slot_sad[t];
    return 0;
}

/* Frame `index` against the reference `lag` frames before, which the context
 * keeps for this (PREV_REF): any worker scores any frame. */
static int extract_prev(void *priv, const TvmafPicture *ref,
                        const TvmafPicture *const prev[TVMAF_PREV_REFS],
                        const TvmafPicture *dis, unsigned index, TvmafSink *sink)
{
    MotionCpu *m = priv;
    (void)dis;
    uint64_t sad = 0;
    if (tvmaf_motion_compares(&m->s, index)) {
        const TvmafPicture *before = prev[motion_lag(&m->s) - 1];
        if (!before) return -EINVAL;
        SadJob job = { m, before, ref, tvmaf_team_bands(m->team, m->s.h, MOTION_MIN_BAND_ROWS) };
        /* A function of the two reference pictures alone: in a ladder the
         * contexts that share them compute it once (the value is plane_sad's
         * whoever runs it: every kernel level gives the same integer). The
         * key is the earlier picture's serial; without one, no sharing. */
        const uint64_t key = tvmaf_picture_serial(before);
        const int err = key ? tvmaf_picture_once(ref, &sad_tag, key, sad_job, &job, &sad)
                            : sad_job(&job, &sad);
        if (err) return err;
    }
    return tvmaf_motion_report(&m->s, sad, index, sink);
}

static int gather(void *dst, const void *src)
{
    return tvmaf_motion_gather(&((MotionCpu *)dst)->s, &((const MotionCpu *)src)->s);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_motion_flush(&((MotionCpu *)priv)->s, sink);
}

const char *const tvmaf_motion_provided[] = {
    "VMAF_integer_feature_motion_sad_score",
    "VMAF_integer_feature_motion_score",
    "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_motion3_score",
    NULL,
};

const TvmafExtractor tvmaf_fex_motion = {
    .name = "motion",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_motion_options,
    .priv_size = sizeof(MotionCpu),
    .flags = TVMAF_FEX_PREV_REF | TVMAF_FEX_ALL_FRAMES | TVMAF_FEX_LUMA_ONLY,
    .warmup_frames = MOTION_WARMUP_FRAMES,
    .init = init,
    .extract_prev = extract_prev,
    .gather = gather,
    .flush = flush,
    .close = close_cpu,
    .provided_features = tvmaf_motion_provided,
};
