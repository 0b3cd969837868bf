/*
 * float_motion on the CPU: motion, motion2 and motion3, equal to libvmaf's
 * float_motion extractor bit for bit. The arithmetic is in
 * float_motion_math.h.
 *
 * Temporal: the single instance sees the frames in index order and keeps the
 * blurred reference planes of the last three frames in a ring (frame k in
 * slot k % 3). Frame i >= 1 gives motion(i) = the difference of frames i-1
 * and i; frame i >= 2 settles motion2(i-1), the smaller of motion(i) and the
 * difference of frames i-2 and i-1. Outputs are appended in the reference's
 * order and at its indices:
 *   frame 0: motion2(0) = 0, motion(0) = 0
 *   frame 1: motion(1), motion3(0) (from motion(1))
 *   frame i: motion(i), motion2(i-1), motion3(i-1)
 *   end:     motion2(n-1), motion3(n-1) from motion(n-1); motion3(0) = 0
 *            for a single frame
 * (motion is written only with debug, which is on by default; with
 * motion_force_zero every frame writes zeros for motion2, motion3 and
 * motion, and the end writes nothing). Every value is scaled by
 * motion_fps_weight and clipped to motion_max_val; motion3 is the blended
 * value, clipped.
 *
 * Planes are kept with the reference's padded row length (the luma width
 * rounded up to 32 bytes, for the chroma planes too) and zero padding. This
 * matters only with motion_add_uv and motion_add_scale1 on subsampled
 * chroma: there the reference's half-size pass reads a chroma plane as if its
 * rows were padded from the chroma width, so it walks into the padding of
 * the real rows. The reference never writes that padding (its value is
 * whatever the allocation held, zero for fresh pages); here it is zero.
 *
 * The blur's row passes and the rows' absolute differences and sums are the
 * float filter row kernels of common/float_rows.h, chosen by the
 * stream's CPU flags (--cpumask); every level gives the same bits (that
 * header says why).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/common/float_rows.h"
#include "feature/float_motion/float_motion_math.h"
#include "feature/float_motion/float_motion_state.h"

#define MAX_PLANES FMOT_MAX_PLANES
#define RING FMOT_RING

static const char *const provided[] = {
    "VMAF_feature_motion_score", "VMAF_feature_motion2_score",
    "VMAF_feature_motion3_score", NULL,
};

typedef struct FloatMotion {
    FloatMotionParams p; /* first: the option table's offsets point into it */

    /* buffers */
    float *plane;               /* the current plane as floats */
    float *blur[RING][MAX_PLANES];
    float *ext;                 /* a vertical-pass row with mirrored margins */
    const float *rows[FMOT_MAX_TAPS];
    int *col1[MAX_PLANES], *col2[MAX_PLANES];
    float *coldx[MAX_PLANES];   /* half-size pass column tables */
    float *half_a, *half_b;     /* half-size rows */
    float *row_sums;            /* a plane's row sums, then its half-size rows' */
    float *absdiff;             /* |a - b| of FMOT_ROW_GROUP rows */
    FrowsKernels k;             /* the row kernels of the stream's SIMD level */
} FloatMotion;

/* rows whose absolute differences are formed before their sums are taken,
 * side by side (frows_sum_rows) */
#define FMOT_ROW_GROUP 8

const TvmafOption tvmaf_float_motion_options[] = {
    { "debug", "debug mode: enable additional output",
      offsetof(FloatMotionParams, debug), TVMAF_OPT_BOOL, { .b = true }, 0, 0, 0, NULL },
    { "motion_force_zero", "forcing motion score to zero",
      offsetof(FloatMotionParams, force_zero), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "force_0" },
    { "motion_fps_weight", "fps-aware multiplicative weight/correction",
      offsetof(FloatMotionParams, fps_weight), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 5.0,
      TVMAF_OPT_FEATURE_PARAM, "mfw" },
    { "motion_blend_factor", "blend motion score given an offset",
      offsetof(FloatMotionParams, blend_factor), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "mbf" },
    { "motion_blend_offset", "blend motion score starting from this offset",
      offsetof(FloatMotionParams, blend_offset), TVMAF_OPT_DOUBLE, { .d = 40.0 }, 0.0, 1000.0,
      TVMAF_OPT_FEATURE_PARAM, "mbo" },
    { "motion_add_scale1", "add motion score from scale1",
      offsetof(FloatMotionParams, add_scale1), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "mdc" },
    { "motion_filter_size", "filtering size",
      offsetof(FloatMotionParams, filter_size), TVMAF_OPT_INT, { .i = FMOT_DEFAULT_FILTER_SIZE }, 0, 9,
      TVMAF_OPT_FEATURE_PARAM, "mfs" },
    { "motion_add_uv", "include U and V terms",
      offsetof(FloatMotionParams, add_uv), TVMAF_OPT_BOOL, { .b = false }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "mau" },
    { "motion_max_val", "maximum value allowed; larger values will be clipped to this value",
      offsetof(FloatMotionParams, max_val), TVMAF_OPT_DOUBLE, { .d = 10000.0 }, 0.0, 10000.0,
      TVMAF_OPT_FEATURE_PARAM, "mmxv" },
    { 0 },
};

static void close_motion(void *priv)
{
    FloatMotion *s = priv;
    free(s->plane);
    free(s->ext);
    free(s->half_a);
    free(s->half_b);
    free(s->row_sums);
    free(s->absdiff);
    s->plane = s->ext = s->half_a = s->half_b = s->row_sums = s->absdiff = NULL;
    for (int p = 0; p < MAX_PLANES; p++) {
        for (int k = 0; k < RING; k++) {
            free(s->blur[k][p]);
            s->blur[k][p] = NULL;
        }
        free(s->col1[p]);
        free(s->col2[p]);
        free(s->coldx[p]);
        s->col1[p] = s->col2[p] = NULL;
        s->coldx[p] = NULL;
    }
}

int tvmaf_float_motion_setup(FloatMotionParams *s, const TvmafVideoInfo *vi, char *msg,
                             size_t len)
{
    if (sample_divisor(vi->bpc) == 0.0f) {
        snprintf(msg, len, "feature \"float_motion\" supports 8, 10, 12 and 16-bit input, "
                 "not %u-bit", vi->bpc);
        return -EINVAL;
    }
    if (s->add_uv && vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) {
        snprintf(msg, len, "feature \"float_motion\": motion_add_uv needs chroma planes; "
                 "the input is luma only");
        return -EINVAL;
    }
    if (s->add_scale1 && fmot_half_side((int)vi->w) > FFILTER_BILINEAR_MAX_WIDTH) {
        snprintf(msg, len, "feature \"float_motion\": motion_add_scale1 supports a width of at "
                 "most %d (half-size width %d); the input is %u wide",
                 2 * FFILTER_BILINEAR_MAX_WIDTH, FFILTER_BILINEAR_MAX_WIDTH, vi->w);
        return -EINVAL;
    }
    unsigned pw[3], ph[3];
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph)) {
        snprintf(msg, len, "feature \"float_motion\": unsupported picture format");
        return -EINVAL;
    }
    s->bpc = vi->bpc;
    s->n_planes = s->add_uv ? 3 : 1;
    s->taps = fmot_taps(s->filter_size, &s->fw);
    const int half = s->fw / 2;
    for (int p = 0; p < s->n_planes; p++) {
        s->pw[p] = (int)pw[p];
        s->ph[p] = (int)ph[p];
        /* with motion_force_zero no sample is read */
        if (!s->force_zero && (s->pw[p] <= half || s->ph[p] <= half)) {
            snprintf(msg, len, "feature \"float_motion\" needs planes of at least %dx%d samples "
                     "(its %d-tap blur mirrors %d at each edge); plane %d is %dx%d",
                     half + 1, half + 1, s->fw, half, p, s->pw[p], s->ph[p]);
            return -EINVAL;
        }
    }
    s->stride = fmot_aligned_floats(s->pw[0]);
    s->n_frames = 0;
    s->last = 0.0;

    if (tvmaf_feature_key(s->key_motion, FMOT_KEY_LEN, provided[0], tvmaf_float_motion_options,
                          s) ||
        tvmaf_feature_key(s->key_motion2, FMOT_KEY_LEN, provided[1], tvmaf_float_motion_options,
                          s) ||
        tvmaf_feature_key(s->key_motion3, FMOT_KEY_LEN, provided[2], tvmaf_float_motion_options,
                          s)) {
        snprintf(msg, len, "feature \"float_motion\": output key name too long");
        return -EINVAL;
    }
    return 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatMotion *m = priv;
    FloatMotionParams *s = &m->p;
    int err = tvmaf_float_motion_setup(s, vi, msg, len);
    if (err || s->force_zero) return err;

    bool ok = true;
    const size_t n0 = (size_t)s->stride * s->ph[0];
    ok &= (m->plane = malloc(n0 * sizeof(float))) != NULL;
    ok &= (m->ext = malloc(((size_t)s->pw[0] + FMOT_MAX_TAPS) * sizeof(float))) != NULL;
    ok &= (m->row_sums = malloc(((size_t)s->ph[0] + (size_t)fmot_half_side(s->ph[0])) *
                                sizeof(float))) != NULL;
    ok &= (m->absdiff = malloc((size_t)FMOT_ROW_GROUP * s->pw[0] * sizeof(float))) != NULL;
    tvmaf_frows_dsp_init(&m->k, vi->cpu_flags);
    for (int p = 0; p < s->n_planes && ok; p++) {
        const size_t n = (size_t)s->stride * s->ph[p];
        for (int k = 0; k < RING; k++)
            ok &= (m->blur[k][p] = calloc(n, sizeof(float))) != NULL;
        if (s->add_scale1) {
            const int hw = fmot_half_side(s->pw[p]);
            ok &= (m->col1[p] = malloc((size_t)hw * sizeof(int))) != NULL;
            ok &= (m->col2[p] = malloc((size_t)hw * sizeof(int))) != NULL;
            ok &= (m->coldx[p] = malloc((size_t)hw * sizeof(float))) != NULL;
            if (ok) fmot_half_columns(s->pw[p], m->col1[p], m->col2[p], m->coldx[p]);
        }
    }
    if (ok && s->add_scale1) {
        const size_t hw = (size_t)fmot_half_side(s->pw[0]);
        ok &= (m->half_a = malloc(hw * sizeof(float))) != NULL;
        ok &= (m->half_b = malloc(hw * sizeof(float))) != NULL;
    }
    if (!ok) {
        close_motion(m);
        return -ENOMEM;
    }
    return 0;
}

/* Plane p of the reference picture, as floats, blurred into dst. */
static void blur_plane(FloatMotion *m, const TvmafPicture *pic, int p, float *dst)
{
    const FloatMotionParams *s = &m->p;
    const int w = s->pw[p], h = s->ph[p], st = s->stride, fw = s->fw, half = fw / 2;
    const float div = sample_divisor(s->bpc);
    for (int i = 0; i < h; i++) {
        const unsigned char *r = (const unsigned char *)pic->data[p] + (ptrdiff_t)i * pic->stride[p];
        float *d = m->plane + (size_t)i * st;
        if (s->bpc == 8) ffilter_load_row_8(r, d, w);
        else ffilter_load_row_16((const uint16_t *)r, d, w, div);
    }
    for (int i = 0; i < h; i++) {
        for (int k = 0; k < fw; k++)
            m->rows[k] = m->plane + (size_t)mirror_skip_edge(i - half + k, h) * st;
        m->k.vpass(s->taps, fw, m->rows, m->ext + half, w);
        ffilter_mirror_margins(m->ext, w, half);
        m->k.hpass(s->taps, fw, m->ext, dst + (size_t)i * st, w);
    }
}

/* Motion of plane p between two blurred planes: their rows' sums (and their
 * half-size images' with motion_add_scale1), added by fmot_plane_value. */
static float plane_motion(const FloatMotion *m, int p, const float *a, const float *b)
{
    const FloatMotionParams *s = &m->p;
    const int w = s->pw[p], h = s->ph[p], st = s->stride;
    float *half_sums = m->row_sums + h;
    /* fmot_sad_row of each row: |a - b| summed left to right from 0 */
    for (int i0 = 0; i0 < h; i0 += FMOT_ROW_GROUP) {
        const int n = h - i0 < FMOT_ROW_GROUP ? h - i0 : FMOT_ROW_GROUP;
        m->k.absdiff_rows(a + (size_t)i0 * st, b + (size_t)i0 * st, st, n, w, m->absdiff);
        m->k.sum_rows(m->absdiff, w, n, w, m->row_sums + i0);
    }
    if (s->add_scale1) {
        /* The half-size pass reads rows padded from this plane's own width
         * (see the top of the file). */
        const int rs = fmot_aligned_floats(w);
        const int hw = fmot_half_side(w), hh = fmot_half_side(h);
        const float ry = ffilter_scale_ratio(h, hh);
        for (int y = 0; y < hh; y++) {
            int y1, y2;
            float dy;
            ffilter_bilinear_axis(y, ry, h, &y1, &y2, &dy);
            ffilter_bilinear_row(a + (size_t)y1 * rs, a + (size_t)y2 * rs, dy, m->col1[p],
                                 m->col2[p], m->coldx[p], m->half_a, hw);
            ffilter_bilinear_row(b + (size_t)y1 * rs, b + (size_t)y2 * rs, dy, m->col1[p],
                                 m->col2[p], m->coldx[p], m->half_b, hw);
            half_sums[y] = fmot_sad_row(m->half_a, m->half_b, hw);
        }
    }
    return fmot_plane_value(m->row_sums, w, h, half_sums, s->add_scale1);
}

/* Motion between ring slots (plane sum with motion_add_uv, in double). */
static double frame_motion(const FloatMotion *m, unsigned prev, unsigned cur)
{
    float v[MAX_PLANES] = { 0.0f, 0.0f, 0.0f };
    for (int p = 0; p < m->p.n_planes; p++)
        v[p] = plane_motion(m, p, m->blur[prev][p], m->blur[cur][p]);
    return fmot_frame_value(v, m->p.n_planes);
}

static double clip(const FloatMotionParams *s, double v)
{
    return v < s->max_val ? v : s->max_val;
}

static double blended(const FloatMotionParams *s, double m)
{
    return clip(s, fmot_blend(m * s->fps_weight, s->blend_factor, s->blend_offset));
}

int tvmaf_float_motion_plan(FloatMotionParams *s, unsigned index, FmotFrame *f)
{
    if (index != s->n_frames) return -EINVAL; /* frames must come in order */
    s->n_frames++;
    f->cur = index % RING;
    f->prev = (index + 2) % RING;
    f->prev2 = (index + 1) % RING;
    f->n_motions = s->force_zero ? 0 : index == 0 ? 0 : index == 1 ? 1 : 2;
    f->blur = !s->force_zero;
    return 0;
}

/* Appends n outputs, in order. */
static int append(TvmafSink *sink, const FmotOutput *out, unsigned n)
{
    int err = 0;
    for (unsigned i = 0; i < n; i++) err |= tvmaf_sink_append(sink, out[i].key, out[i].index,
                                                              out[i].value);
    return err ? -EINVAL : 0;
}

unsigned tvmaf_float_motion_outputs(FloatMotionParams *s, unsigned index, const double motion[2],
                                    FmotOutput out[FMOT_MAX_OUTPUTS])
{
    unsigned n = 0;
#define OUT(k, i, v) (out[n].key = (k), out[n].index = (i), out[n].value = (v), n++)
    if (s->force_zero) {
        OUT(s->key_motion2, index, 0.0);
        OUT(s->key_motion3, index, 0.0);
        if (s->debug) OUT(s->key_motion, index, 0.0);
        return n;
    }
    if (index == 0) {
        OUT(s->key_motion2, 0, 0.0);
        if (s->debug) OUT(s->key_motion, 0, 0.0);
        return n;
    }

    const double m = motion[0];
    if (s->debug) OUT(s->key_motion, index, clip(s, m * s->fps_weight));
    s->last = m;
    if (index == 1) {
        OUT(s->key_motion3, 0, blended(s, m));
        return n;
    }

    double m2 = motion[1];
    m2 = m2 < m ? m2 : m;
    OUT(s->key_motion2, index - 1, clip(s, m2 * s->fps_weight));
    OUT(s->key_motion3, index - 1, blended(s, m2));
    return n;
}

unsigned tvmaf_float_motion_end(const FloatMotionParams *s, FmotOutput out[FMOT_MAX_OUTPUTS])
{
    unsigned n = 0;
    if (s->force_zero || s->n_frames == 0) return 0;
    const unsigned last = s->n_frames - 1;
    if (last > 0) {
        OUT(s->key_motion2, last, clip(s, s->last * s->fps_weight));
        OUT(s->key_motion3, last, blended(s, s->last));
    } else {
        OUT(s->key_motion3, 0, 0.0);
    }
#undef OUT
    return n;
}

int tvmaf_float_motion_report(FloatMotionParams *s, unsigned index, const double motion[2],
                              TvmafSink *sink)
{
    FmotOutput out[FMOT_MAX_OUTPUTS];
    return append(sink, out, tvmaf_float_motion_outputs(s, index, motion, out));
}

int tvmaf_float_motion_flush(FloatMotionParams *s, TvmafSink *sink)
{
    FmotOutput out[FMOT_MAX_OUTPUTS];
    return append(sink, out, tvmaf_float_motion_end(s, out));
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatMotion *m = priv;
    (void)dis;
    FmotFrame f;
    int err = tvmaf_float_motion_plan(&m->p, index, &f);
    if (err) return err;
    if (f.blur)
        for (int p = 0; p < m->p.n_planes; p++) blur_plane(m, ref, p, m->blur[f.cur][p]);
    double motion[2] = { 0.0, 0.0 };
    if (f.n_motions > 0) motion[0] = frame_motion(m, f.prev, f.cur);
    /* motion[1] is the previous frame's motion[0] with the planes swapped,
     * the same value, but the reference computes it again and so does this
     * (no result is kept across frames where the reference keeps none) */
    if (f.n_motions > 1) motion[1] = frame_motion(m, f.prev, f.prev2);
    return tvmaf_float_motion_report(&m->p, index, motion, sink);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_float_motion_flush(&((FloatMotion *)priv)->p, sink);
}

const TvmafExtractor tvmaf_fex_float_motion = {
    .name = "float_motion",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_float_motion_options,
    .priv_size = sizeof(FloatMotion),
    .flags = TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES,
    .warmup_frames = FMOT_WARMUP_FRAMES,
    .init = init,
    .extract = extract,
    .flush = flush,
    .close = close_motion,
    .provided_features = provided,
};
