/*
 * Integer motion on the CPU: motion_sad_score per frame, integer_motion2 and
 * integer_motion3 at the end of the stream, equal to libvmaf's integer motion
 * extractor bit for bit.
 *
 * Frame i compares the reference luma of frame i with that of frame i - 1
 * (i - 2 with the five-frame window). The extractor is temporal: its single
 * instance sees the frames in index order and keeps the last two reference
 * luma planes in a ring, so each frame is copied once and never re-read from
 * an earlier picture. (The reference blurs the difference of the two planes
 * with a rounding step in the middle, see motion_math.h, so raw planes are what
 * has to be kept, not blurred ones.) It runs on every frame under --subsample
 * too, as the reference's previous-reference extractors do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/feature_name.h"
#include "feature/motion/motion_kernels.h"
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

int tvmaf_motion_record(MotionState *s, uint64_t sad, unsigned index, double *out)
{
    if (index != s->n_sad) return -EINVAL; /* frames must come in order */
    const double score = tvmaf_motion_compares(s, index)
        ? motion_sad_score(sad, s->w, s->h, s->fps_weight, s->max_val) : 0.;
    if (s->n_sad == s->cap_sad) {
        const unsigned cap = s->cap_sad ? 2 * s->cap_sad : 256;
        double *v = realloc(s->sad, cap * sizeof(*v));
        if (!v) return -ENOMEM;
        s->sad = v;
        s->cap_sad = cap;
    }
    s->sad[s->n_sad++] = score;
    *out = score;
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
    s->sad = NULL;
    s->n_sad = s->cap_sad = 0;
}

/* CPU extractor ---------------------------------------------------------- */

typedef struct MotionCpu {
    MotionState s; /* first: the option offsets are relative to it */
    int32_t *y;    /* one row of the vertical pass */
    unsigned char *luma[2]; /* reference luma of frame k in luma[k % 2] */
    size_t row_bytes;
    const MotionKernels *k;
} MotionCpu;

static void close_cpu(void *priv)
{
    MotionCpu *m = priv;
    free(m->y);
    free(m->luma[0]);
    free(m->luma[1]);
    m->y = NULL;
    m->luma[0] = m->luma[1] = NULL;
    tvmaf_motion_release(&m->s);
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    MotionCpu *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    m->row_bytes = (size_t)vi->w * (vi->bpc > 8 ? 2 : 1);
    m->k = tvmaf_motion_kernels(vi->cpu_flags);
    m->y = malloc(sizeof(*m->y) * vi->w);
    m->luma[0] = malloc(m->row_bytes * vi->h);
    m->luma[1] = malloc(m->row_bytes * vi->h);
    if (!m->y || !m->luma[0] || !m->luma[1]) {
        close_cpu(m);
        return -ENOMEM;
    }
    return 0;
}

MOTION_KERNELS_DEFINE(tvmaf_motion_kernels_c);

const MotionKernels *tvmaf_motion_kernels(unsigned cpu_flags)
{
#if TVMAF_X86_SIMD
    if (cpu_flags & TVMAF_CPU_FLAG_AVX512) return &tvmaf_motion_kernels_avx512;
    if (cpu_flags & TVMAF_CPU_FLAG_AVX2) return &tvmaf_motion_kernels_avx2;
#endif
    (void)cpu_flags;
    return &tvmaf_motion_kernels_c;
}

/* SAD of the blurred difference of two luma planes (prev - cur). */
static uint64_t plane_sad(const MotionCpu *m, const unsigned char *prev, size_t prev_stride,
                          const unsigned char *cur, ptrdiff_t cur_stride)
{
    const unsigned w = m->s.w, h = m->s.h, bpc = m->s.bpc;
    uint64_t sad = 0;
    for (unsigned i = 0; i < h; i++) {
        int32_t any;
        int rows[5];
        motion_tap_rows((int)i, (int)h, rows);
        if (bpc == 8) {
            const uint8_t *p[5], *c[5];
            for (int k = 0; k < 5; k++) {
                p[k] = prev + (size_t)rows[k] * prev_stride;
                c[k] = cur + (ptrdiff_t)rows[k] * cur_stride;
            }
            any = m->k->vrow_8(p, c, m->y, w);
        } else {
            const uint16_t *p[5], *c[5];
            for (int k = 0; k < 5; k++) {
                p[k] = (const uint16_t *)(prev + (size_t)rows[k] * prev_stride);
                c[k] = (const uint16_t *)(cur + (ptrdiff_t)rows[k] * cur_stride);
            }
            any = m->k->vrow_16(p, c, m->y, w, bpc);
        }
        /* a row of zeros adds zero: (0 + 2^15) >> 16 = 0 */
        if (any) sad += m->k->hrow_sad(m->y, w);
    }
    return sad;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    MotionCpu *m = priv;
    (void)dis;
    if (m->s.force_zero) return tvmaf_motion_report(&m->s, 0, index, sink);
    if (index != m->s.n_sad) return -EINVAL;
    const unsigned char *cur = ref->data[0];
    uint64_t sad = 0;
    if (tvmaf_motion_compares(&m->s, index))
        sad = plane_sad(m, m->luma[(index - motion_lag(&m->s)) % 2], m->row_bytes, cur,
                        ref->stride[0]);
    /* keep this frame's luma for the frames that compare with it (with lag 2
     * its slot is the one just read) */
    unsigned char *keep = m->luma[index % 2];
    for (unsigned i = 0; i < m->s.h; i++)
        memcpy(keep + (size_t)i * m->row_bytes, cur + (ptrdiff_t)i * ref->stride[0],
               m->row_bytes);
    return tvmaf_motion_report(&m->s, sad, index, sink);
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
    .flags = TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES | TVMAF_FEX_LUMA_ONLY,
    .warmup_frames = MOTION_WARMUP_FRAMES,
    .init = init,
    .extract = extract,
    .flush = flush,
    .close = close_cpu,
    .provided_features = tvmaf_motion_provided,
};
