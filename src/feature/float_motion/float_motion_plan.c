/*
 * float_motion twin, plan (gpu/tvd.h). The ring of blurred reference planes
 * lives on the device (slot k % FMOT_RING for frame k, rows at the CPU's
 * stride, the padding zeroed on the first frame as the CPU's calloc leaves
 * it); float_motion_kernels.h blurs the frame's planes into its slot and
 * makes the rows' sums of the motions the frame needs, which are read back
 * and added here in the CPU's order (fmot_plane_value, fmot_frame_value).
 * The frame plan, the outputs and the end of the stream are the CPU
 * extractor's own code. Temporal: one instance sees the frames in order.
 */
#include <errno.h>
#include <stdlib.h>

#include "feature/float_motion/float_motion_kernels.h"
#include "feature/float_motion/float_motion_state.h"

TVD_MODULE(float_motion, FLOAT_MOTION_KERNELS)

typedef struct FmotPlan {
    FloatMotionParams p;                 /* first: the CPU extractor's state */
    FmotFrame fr;                        /* the frame run() queued */
    size_t ring_off[FMOT_MAX_PLANES];    /* a plane's offset in a slot, bytes */
    size_t slot_bytes;
    size_t sums_off[2][FMOT_MAX_PLANES]; /* [motion][plane]: ph rows, then half-size rows */
    size_t sums_n;                       /* floats */
    size_t half_n;                       /* floats of one half-size plane, at most */
    size_t tab_off[FMOT_MAX_PLANES];     /* a plane's col1, col2, coldx in tabs, entries */
    size_t tab_n;
    TvdBuf ring, tmp, half, taps, tabs, sums;
    bool zeroed;
} FmotPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FmotPlan *s = priv;
    FloatMotionParams *p = &s->p;
    int err = tvmaf_float_motion_setup(p, vi, msg, len);
    if (err || p->force_zero) return err;
    size_t tmp = 0;
    s->slot_bytes = s->sums_n = s->half_n = s->tab_n = 0;
    for (int q = 0; q < p->n_planes; q++) {
        s->ring_off[q] = s->slot_bytes;
        s->slot_bytes += sizeof(float) * (size_t)p->stride * (size_t)p->ph[q];
        const size_t n = (size_t)p->pw[q] * (size_t)p->ph[q];
        tmp = n > tmp ? n : tmp;
        const size_t hw = (size_t)fmot_half_side(p->pw[q]);
        const size_t hn = hw * (size_t)fmot_half_side(p->ph[q]);
        s->half_n = hn > s->half_n ? hn : s->half_n;
        s->tab_off[q] = s->tab_n;
        s->tab_n += 3 * hw;
    }
    for (int m = 0; m < 2; m++)
        for (int q = 0; q < p->n_planes; q++) {
            s->sums_off[m][q] = s->sums_n;
            s->sums_n += (size_t)p->ph[q] + (size_t)fmot_half_side(p->ph[q]);
        }
    s->zeroed = false;
    if ((err = tvd_buffer(t, &s->ring, FMOT_RING * s->slot_bytes, 0)) ||
        (err = tvd_buffer(t, &s->tmp, sizeof(float) * tmp, 0)) ||
        (err = tvd_buffer(t, &s->taps, sizeof(float) * (size_t)p->fw, 0)) ||
        (err = tvd_buffer(t, &s->sums, sizeof(float) * s->sums_n, TVD_MIRROR)))
        return err;
    if (p->add_scale1 && ((err = tvd_buffer(t, &s->half, 2 * sizeof(float) * s->half_n, 0)) ||
                          (err = tvd_buffer(t, &s->tabs, 4 * s->tab_n, 0))))
        return err;
    return 0;
}

/* The taps, and with motion_add_scale1 each plane's half-size column tables
 * (int col1, int col2, float coldx; 4 bytes an entry). */
static int setup(void *priv, TvdTwin *t)
{
    FmotPlan *s = priv;
    const FloatMotionParams *p = &s->p;
    if (p->force_zero) return 0;
    int err = tvd_upload(t, tvd_whole(t, s->taps), p->taps);
    if (err || !p->add_scale1) return err;
    _Static_assert(sizeof(int) == 4 && sizeof(float) == 4, "4 bytes an entry");
    /* allocated memory takes the type of what is stored into it */
    void *tab = malloc(4 * s->tab_n);
    if (!tab) return -ENOMEM;
    for (int q = 0; q < p->n_planes; q++) {
        int *c1 = (int *)tab + s->tab_off[q], *c2 = c1 + fmot_half_side(p->pw[q]);
        fmot_half_columns(p->pw[q], c1, c2, (float *)(c2 + fmot_half_side(p->pw[q])));
    }
    err = tvd_upload(t, tvd_whole(t, s->tabs), tab);
    free(tab);
    return err;
}

static TvdView ring(const FmotPlan *s, unsigned slot, int q)
{
    return tvd_view(s->ring, slot * s->slot_bytes + s->ring_off[q],
                    sizeof(float) * (size_t)s->p.stride * (size_t)s->p.ph[q]);
}

static TvdView tab(const FmotPlan *s, int q, unsigned k)
{
    const size_t hw = (size_t)fmot_half_side(s->p.pw[q]);
    return tvd_view(s->tabs, 4 * (s->tab_off[q] + k * hw), 4 * hw);
}

#define GX(n) (((uint32_t)(n) + FMOT_BLOCK_W - 1) / FMOT_BLOCK_W)
#define GROWS(n) (((uint32_t)(n) + FMOT_ROW_THREADS - 1) / FMOT_ROW_THREADS)

/* Blurs plane q of the frame's reference into ring slot `slot`. */
static int blur(FmotPlan *s, TvdTwin *t, const TvmafDeviceFrame *f, int q, unsigned slot)
{
    const FloatMotionParams *p = &s->p;
    const int w = p->pw[q], h = p->ph[q];
    const TvdGrid g = TVD_GRID(GX(w), FMOT_GRID_Y((uint32_t)h));
    const TvdView tmp = tvd_view(s->tmp, 0, sizeof(float) * (size_t)w * (size_t)h);
    const FmotVpass v = {
        .src = tvd_plane(t, f, 0, (unsigned)q), .pitch = tvd_pitch(t, f, (unsigned)q),
        .w = w, .h = h, .divisor = sample_divisor(p->bpc),
        .taps = tvd_whole(t, s->taps), .fw = p->fw, .tmp = tmp,
    };
    const FmotHpass hp = {
        .tmp = tmp, .w = w, .h = h, .taps = tvd_whole(t, s->taps), .fw = p->fw,
        .dst = ring(s, slot, q), .st = p->stride,
    };
    int err = tvd_launch(t, p->bpc == 8 ? TVD_K_float_motion_vpass_8 : TVD_K_float_motion_vpass_16,
                         g, &v);
    return err ? err : tvd_launch(t, TVD_K_float_motion_hpass, g, &hp);
}

/* The rows' sums of motion m of plane q between slots a and b. */
static int motion_rows(FmotPlan *s, TvdTwin *t, int m, int q, unsigned a, unsigned b)
{
    const FloatMotionParams *p = &s->p;
    const int w = p->pw[q], h = p->ph[q];
    const FmotSad rows = {
        .a = ring(s, a, q), .b = ring(s, b, q), .stride = p->stride, .w = w, .h = h,
        .sums = tvd_view(s->sums, sizeof(float) * s->sums_off[m][q], sizeof(float) * (size_t)h),
    };
    int err = tvd_launch(t, TVD_K_float_motion_sad_rows, TVD_GRID(GROWS(h), 1), &rows);
    if (err || !p->add_scale1) return err;
    /* the half-size pass reads rows padded from the plane's own width */
    const int hw = fmot_half_side(w), hh = fmot_half_side(h);
    const size_t hn = sizeof(float) * (size_t)hw * (size_t)hh;
    const TvdView ha = tvd_view(s->half, 0, hn), hb = tvd_view(s->half, hn, hn);
    FmotHalf half = {
        .a = ring(s, a, q), .rs = fmot_aligned_floats(w), .h = h, .hw = hw, .hh = hh,
        .ry = ffilter_scale_ratio(h, hh), .col1 = tab(s, q, 0), .col2 = tab(s, q, 1),
        .coldx = tab(s, q, 2), .out = ha,
    };
    const TvdGrid g = TVD_GRID(GX(hw), FMOT_GRID_Y((uint32_t)hh));
    err = tvd_launch(t, TVD_K_float_motion_half, g, &half);
    half.a = ring(s, b, q);
    half.out = hb;
    if (!err) err = tvd_launch(t, TVD_K_float_motion_half, g, &half);
    const FmotSad half_rows = {
        .a = ha, .b = hb, .stride = hw, .w = hw, .h = hh,
        .sums = tvd_view(s->sums, sizeof(float) * (s->sums_off[m][q] + (size_t)h),
                         sizeof(float) * (size_t)hh),
    };
    return err ? err : tvd_launch(t, TVD_K_float_motion_sad_rows, TVD_GRID(GROWS(hh), 1),
                                  &half_rows);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    FmotPlan *s = priv;
    FloatMotionParams *p = &s->p;
    const FmotFrame *fr = &s->fr;
    int err = tvmaf_float_motion_plan(p, index, &s->fr);
    if (err || !fr->blur) return err;
    if (tvd_planes(t, f) < (unsigned)p->n_planes) return -EINVAL;
    if (!s->zeroed) {
        /* the sums too: a frame with fewer motions than the buffer holds
         * reads back slots no kernel wrote yet (never used) */
        err = tvd_fill(t, tvd_whole(t, s->ring), 0);
        if (!err) err = tvd_fill(t, tvd_whole(t, s->sums), 0);
        s->zeroed = !err;
    }
    for (int q = 0; q < p->n_planes && !err; q++) err = blur(s, t, f, q, fr->cur);
    for (int m = 0; m < fr->n_motions && !err; m++)
        for (int q = 0; q < p->n_planes && !err; q++)
            err = motion_rows(s, t, m, q, fr->prev, m == 0 ? fr->cur : fr->prev2);
    if (!err && fr->n_motions) err = tvd_download(t, tvd_whole(t, s->sums));
    return err;
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    FmotPlan *s = priv;
    FloatMotionParams *p = &s->p;
    double motion[2] = { 0.0, 0.0 };
    const float *sums = tvd_mirror(t, s->sums);
    for (int m = 0; s->fr.blur && m < s->fr.n_motions; m++) {
        float v[FMOT_MAX_PLANES] = { 0.0f, 0.0f, 0.0f };
        for (int q = 0; q < p->n_planes; q++) {
            const float *rows = sums + s->sums_off[m][q];
            v[q] = fmot_plane_value(rows, p->pw[q], p->ph[q], rows + p->ph[q], p->add_scale1);
        }
        motion[m] = fmot_frame_value(v, p->n_planes);
    }
    return tvmaf_float_motion_report(p, index, motion, sink);
}

TVD_PLAN(float_motion, float_motion, FmotPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init,
         .setup = setup, .run = run, .report = report);
