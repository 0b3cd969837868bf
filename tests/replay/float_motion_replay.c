/*
 * Host replay of the float_motion CUDA twin (float_motion.cu and
 * float_motion_cuda.c's frame handling), compared bit for bit with the CPU
 * extractor run through the public API; no GPU needed.
 *
 * What is replayed, as the twin does it (float_motion_math.h's decomposition,
 * the header the kernels compile):
 * - the ring of blurred reference planes in one device buffer: slot k % 3
 *   for frame k, each plane at the CPU's stride (the luma width rounded up
 *   to 32 bytes, chroma too), garbage until the twin zeroes it on its first
 *   frame;
 * - the blur of every plane: the vertical pass (fmot_vpass_sample) into a
 *   w-wide plane that starts as garbage, then the horizontal pass
 *   (fmot_hpass_sample) into the slot, one thread per sample in blocks of
 *   FMOT_BLOCK_W x FMOT_BLOCK_H, FMOT_GRID_Y(h) blocks in y striding over
 *   further rows, blocks and threads in scrambled orders;
 * - per motion the frame needs (between slots prev and cur, then prev and
 *   prev2) and per plane: one thread per row (fmot_sad_row, any order), with
 *   motion_add_scale1 the two half-size images (fmot_half_sample, rows read
 *   at the plane's own aligned width as the CPU reads them) and their rows;
 * - the read-back and the host's fmot_plane_value / fmot_frame_value, then
 *   the CPU's own plan and outputs (tvmaf_float_motion_plan/_outputs/_end).
 * Option sets cover the filter sizes, motion_add_uv and motion_add_scale1
 * (alone and together, on 4:2:0, 4:2:2 and 4:4:4), motion_force_zero and the
 * scaling options; a grid of 2 blocks in y checks the row stride.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_motion/float_motion_math.h"
#include "feature/float_motion/float_motion_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u

/* One thread per row, rows in any order. */
static void replay_rows(const float *a, const float *b, int stride, int w, int h, float *sums)
{
    unsigned *order = malloc(sizeof(unsigned) * (unsigned)h);
    if (!order) {
        replay_fail("out of memory");
        return;
    }
    replay_scramble(order, (unsigned)h);
    for (int q = 0; q < h; q++) {
        const int y = (int)order[q];
        sums[y] = fmot_sad_row(a + (size_t)y * stride, b + (size_t)y * stride, w);
    }
    free(order);
}

typedef struct Device {
    const FloatMotionParams *p;
    float *ring;                       /* FMOT_RING slots */
    size_t slot_floats, ring_off[FMOT_MAX_PLANES];
    float *tmp, *half;                 /* garbage until written */
    int *col1[FMOT_MAX_PLANES], *col2[FMOT_MAX_PLANES];
    float *coldx[FMOT_MAX_PLANES];
    float *sums;
    size_t sums_off[2][FMOT_MAX_PLANES], sums_n;
    int zeroed;
    /* the kernel being replayed */
    const TvmafPicture *pic;
    int q;
    float *dst, *src_f;
    int rs, h_src, hw;
    float ry;
} Device;

static float *slot_plane(Device *d, unsigned slot, int q)
{
    return d->ring + slot * d->slot_floats + d->ring_off[q];
}

static void vpass_thread(void *ctx, int x, int y)
{
    Device *d = ctx;
    const FloatMotionParams *p = d->p;
    d->tmp[(size_t)y * (size_t)p->pw[d->q] + (size_t)x] =
        fmot_vpass_sample(d->pic->data[d->q], d->pic->stride[d->q], p->bpc,
                          fvif_sample_divisor(p->bpc), p->ph[d->q], p->taps, p->fw, x, y);
}

static void hpass_thread(void *ctx, int x, int y)
{
    Device *d = ctx;
    const FloatMotionParams *p = d->p;
    d->dst[(size_t)y * (size_t)p->stride + (size_t)x] =
        fmot_hpass_sample(d->tmp, p->pw[d->q], p->taps, p->fw, x, y);
}

static void half_thread(void *ctx, int x, int y)
{
    Device *d = ctx;
    d->dst[(size_t)y * (size_t)d->hw + (size_t)x] =
        fmot_half_sample(d->src_f, d->rs, d->h_src, d->ry, d->col1[d->q], d->col2[d->q],
                         d->coldx[d->q], x, y);
}

static int device_alloc(Device *d, const FloatMotionParams *p)
{
    memset(d, 0, sizeof(*d));
    d->p = p;
    size_t tmp = 0, half = 0;
    for (int q = 0; q < p->n_planes; q++) {
        d->ring_off[q] = d->slot_floats;
        d->slot_floats += (size_t)p->stride * (size_t)p->ph[q];
        const size_t n = (size_t)p->pw[q] * (size_t)p->ph[q];
        tmp = n > tmp ? n : tmp;
        const size_t hn = (size_t)fmot_half_side(p->pw[q]) * (size_t)fmot_half_side(p->ph[q]);
        half = hn > half ? hn : half;
    }
    for (int m = 0; m < 2; m++)
        for (int q = 0; q < p->n_planes; q++) {
            d->sums_off[m][q] = d->sums_n;
            d->sums_n += (size_t)p->ph[q] + (size_t)fmot_half_side(p->ph[q]);
        }
    d->ring = malloc(sizeof(float) * FMOT_RING * d->slot_floats);
    d->tmp = malloc(sizeof(float) * tmp);
    d->half = malloc(sizeof(float) * 2 * half);
    d->sums = malloc(sizeof(float) * d->sums_n);
    if (!d->ring || !d->tmp || !d->half || !d->sums) return -1;
    replay_garbage(d->ring, sizeof(float) * FMOT_RING * d->slot_floats);
    replay_garbage(d->tmp, sizeof(float) * tmp);
    replay_garbage(d->half, sizeof(float) * 2 * half);
    replay_garbage(d->sums, sizeof(float) * d->sums_n);
    if (p->add_scale1)
        for (int q = 0; q < p->n_planes; q++) {
            const size_t hw = (size_t)fmot_half_side(p->pw[q]);
            d->col1[q] = malloc(sizeof(int) * hw);
            d->col2[q] = malloc(sizeof(int) * hw);
            d->coldx[q] = malloc(sizeof(float) * hw);
            if (!d->col1[q] || !d->col2[q] || !d->coldx[q]) return -1;
            fmot_half_columns(p->pw[q], d->col1[q], d->col2[q], d->coldx[q]);
        }
    return 0;
}

static void device_free(Device *d)
{
    free(d->ring);
    free(d->tmp);
    free(d->half);
    free(d->sums);
    for (int q = 0; q < FMOT_MAX_PLANES; q++) {
        free(d->col1[q]);
        free(d->col2[q]);
        free(d->coldx[q]);
    }
}

/* motion_rows of float_motion_cuda.c: motion m of plane q between two slots. */
static void motion_rows(Device *d, int m, int q, unsigned a_slot, unsigned b_slot, unsigned gy)
{
    const FloatMotionParams *p = d->p;
    const int w = p->pw[q], h = p->ph[q];
    float *a = slot_plane(d, a_slot, q), *b = slot_plane(d, b_slot, q);
    float *sums = d->sums + d->sums_off[m][q];
    replay_rows(a, b, p->stride, w, h, sums);
    if (!p->add_scale1) return;
    const int hw = fmot_half_side(w), hh = fmot_half_side(h);
    float *ha = d->half, *hb = ha + (size_t)hw * (size_t)hh;
    d->q = q;
    d->rs = fmot_aligned_floats(w);
    d->h_src = h;
    d->hw = hw;
    d->ry = fvif_scale_ratio(h, hh);
    d->src_f = a;
    d->dst = ha;
    replay_grid(hw, hh, gy ? gy : FMOT_GRID_Y((unsigned)hh), FMOT_BLOCK_W, FMOT_BLOCK_H, half_thread, d);
    d->src_f = b;
    d->dst = hb;
    replay_grid(hw, hh, gy ? gy : FMOT_GRID_Y((unsigned)hh), FMOT_BLOCK_W, FMOT_BLOCK_H, half_thread, d);
    replay_rows(ha, hb, hw, hw, hh, sums + h);
}

static void run_case(const ReplayCase *c)
{
    const char *what = c->what;
    char msg[512] = "";
    FloatMotionParams st;
    memset(&st, 0, sizeof(st));
    tvmaf_options_set_defaults(tvmaf_float_motion_options, &st);
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_options_parse(tvmaf_float_motion_options, &st, c->opts, "float_motion", msg,
                            sizeof(msg)) ||
        tvmaf_float_motion_setup(&st, &vi, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", what, msg);
        return;
    }
    Device d;
    TvmafContext *ctx = NULL;
    TvmafPicture prev = { 0 };
    const unsigned gy_small = c->flags & FLAG_SMALL_GRID ? 2 : 0;
    if (device_alloc(&d, &st)) {
        replay_fail("%s: out of memory", what);
        goto done;
    }
    if (!(ctx = replay_cpu_open("float_motion", c->opts, what))) goto done;
    FmotOutput outs[REPLAY_MAX_FRAMES * FMOT_MAX_OUTPUTS + FMOT_MAX_OUTPUTS];
    unsigned n_outs = 0, k = 0;
    for (; k < c->n_frames; k++) {
        TvmafPicture f;
        if (tvmaf_picture_alloc(&f, c->fmt, c->bpc, c->w, c->h)) {
            replay_fail("%s: picture alloc", what);
            break;
        }
        replay_fill_next(&f, k ? &prev : NULL, c->fills[k], k);
        if (k) tvmaf_picture_unref(&prev);
        prev = f;
        /* the replayed twin (float_motion_cuda.c's extract) */
        FmotFrame fr;
        if (tvmaf_float_motion_plan(&st, k, &fr)) {
            replay_fail("%s: plan frame %u", what, k);
            break;
        }
        double motion[2] = { 0.0, 0.0 };
        if (fr.blur) {
            if (!d.zeroed) {
                memset(d.ring, 0, sizeof(float) * FMOT_RING * d.slot_floats);
                d.zeroed = 1;
            }
            d.pic = &f;
            for (int q = 0; q < st.n_planes; q++) {
                d.q = q;
                const unsigned gy = gy_small ? gy_small : FMOT_GRID_Y((unsigned)st.ph[q]);
                replay_grid(st.pw[q], st.ph[q], gy, FMOT_BLOCK_W, FMOT_BLOCK_H, vpass_thread, &d);
                d.dst = slot_plane(&d, fr.cur, q);
                replay_grid(st.pw[q], st.ph[q], gy, FMOT_BLOCK_W, FMOT_BLOCK_H, hpass_thread, &d);
            }
            for (int m = 0; m < fr.n_motions; m++)
                for (int q = 0; q < st.n_planes; q++)
                    motion_rows(&d, m, q, fr.prev, m == 0 ? fr.cur : fr.prev2, gy_small);
            for (int m = 0; m < fr.n_motions; m++) {
                float v[FMOT_MAX_PLANES] = { 0.0f, 0.0f, 0.0f };
                for (int q = 0; q < st.n_planes; q++) {
                    const float *rows = d.sums + d.sums_off[m][q];
                    v[q] = fmot_plane_value(rows, st.pw[q], st.ph[q], rows + st.ph[q],
                                            st.add_scale1);
                }
                motion[m] = fmot_frame_value(v, st.n_planes);
            }
        }
        n_outs += tvmaf_float_motion_outputs(&st, k, motion, outs + n_outs);
        /* the CPU extractor reads the reference only */
        if (replay_cpu_read(ctx, &f, &f, k, what)) break;
    }
    if (c->n_frames) tvmaf_picture_unref(&prev);
    if (k < c->n_frames || replay_cpu_flush(ctx, what)) goto done;
    n_outs += tvmaf_float_motion_end(&st, outs + n_outs);
    for (unsigned i = 0; i < n_outs; i++)
        replay_check_key(ctx, outs[i].key, outs[i].index, outs[i].value, what);
    if (!n_outs) replay_fail("%s: no output to compare", what);
done:
    tvmaf_close(ctx);
    device_free(&d);
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);
    static const char *const opts[] = {
        "",
        "motion_filter_size=3",
        "motion_filter_size=1",
        "motion_add_scale1=true",
        "motion_add_uv=true",
        "motion_add_uv=true:motion_add_scale1=true",
        "motion_add_uv=true:motion_add_scale1=true:motion_filter_size=3",
        "motion_force_zero=true",
        "debug=false:motion_fps_weight=2.5:motion_blend_factor=0.5:motion_blend_offset=3:"
        "motion_max_val=4",
    };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P };
    static const ReplaySize sizes[] = {
        { 6, 6 }, { 7, 5 }, { 9, 11 }, { 64, 36 }, { 177, 99 },
        { FMOT_BLOCK_W + 1, FMOT_BLOCK_H + 1 }, { 2 * FMOT_BLOCK_W + 3, 7 },
    };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_RANDOM },
        { REPLAY_SMOOTH, REPLAY_SMOOTH, REPLAY_EDGES, REPLAY_LEVELS },
        { REPLAY_EXTREMES, REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_INVERT },
    };
    static const unsigned lengths[] = { 1, 2, 4 };
    const ReplayMatrix all = { .name = "float_motion options x layouts x sizes x depths x "
                                       "sequences x lengths",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, fmts),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, seqs), REPLAY_SET(lengths, lengths) };
    replay_matrix(&all, run_case);
    static const char *const luma_opts[] = { "", "motion_add_scale1=true" };
    static const ReplaySize tall[] = { { 37, 53 }, { 9, 200 } };
    const ReplayMatrix grid = { .name = "float_motion row stride (2 blocks in y)",
                                REPLAY_SET(opts, opts), REPLAY_SET(fmts, replay_420),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, seqs), .n_frames = 3,
                                .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    const ReplayMatrix big = { .name = "float_motion 1920x1080", REPLAY_SET(opts, luma_opts),
                               REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s1080),
                               REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, seqs),
                               .n_frames = 3 };
    replay_matrix(&big, run_case);
    /* the CPU's refusals are the shared setup's: a luma-only picture with motion_add_uv */
    replay_check_cpu_refuses("float_motion", "motion_add_uv=true", TVMAF_PIX_FMT_YUV400P, 8, 64,
                             36);
    replay_check_cpu_refuses("float_motion", "", TVMAF_PIX_FMT_YUV420P, 8, 2, 2);
    replay_count("float_motion refusals", 2);
    return replay_report("float_motion");
}
