/*
 * Host replay of the float_ansnr CUDA twin (float_ansnr.cu), compared bit for
 * bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_ansnr_math.h's, the one the kernels compile:
 * the conversion of both luma planes into float planes and the filtered
 * planes (fansnr_filter_sample with the host's tap arrays, which the twin
 * uploads), one thread per sample in blocks of FANSNR_BLOCK_W x
 * FANSNR_BLOCK_H, FANSNR_GRID_Y(h) blocks in y striding over further rows,
 * blocks and threads visited in scrambled orders into planes that start as
 * garbage (an unwritten sample changes the sums); one thread per row adding
 * its sums (fansnr_row_sums); the host adding the rows top to bottom
 * (fansnr_frame_add) and reporting float_ansnr and float_anpsnr (fansnr_db,
 * fanpsnr_db), compared with the CPU extractor. The sizes run from the
 * smallest the CPU accepts (3x3, where every column reflects) past a block;
 * smaller frames must be refused by the CPU and by the twin's setup alike,
 * and a replay with a grid of 2 blocks in y checks the row stride.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_ansnr/float_ansnr_math.h"
#include "feature/float_ansnr/float_ansnr_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u /* the per-sample kernels with 2 blocks in y */

typedef struct Planes {
    const TvmafPicture *r, *d;
    float divisor;
    int w, h;
    float *fref, *fdis, *rf, *df;
} Planes;

static void convert_sample(void *ctx, int x, int y)
{
    Planes *p = ctx;
    const size_t i = (size_t)y * (size_t)p->w + x;
    const unsigned a = replay_get(p->r, 0, x, y), b = replay_get(p->d, 0, x, y);
    if (p->r->bpc == 8) {
        p->fref[i] = float_pic_sample8((uint8_t)a, FANSNR_OFFSET);
        p->fdis[i] = float_pic_sample8((uint8_t)b, FANSNR_OFFSET);
    } else {
        p->fref[i] = float_pic_sample16((uint16_t)a, p->divisor, FANSNR_OFFSET);
        p->fdis[i] = float_pic_sample16((uint16_t)b, p->divisor, FANSNR_OFFSET);
    }
}

static void filter_sample(void *ctx, int x, int y)
{
    Planes *p = ctx;
    const size_t i = (size_t)y * (size_t)p->w + x;
    p->rf[i] = fansnr_filter_sample(fansnr_ref_taps, FANSNR_REF_WIDTH, p->fref, p->w, p->h,
                                    (int)y, (int)x);
    p->df[i] = fansnr_filter_sample(fansnr_dis_taps, FANSNR_DIS_WIDTH, p->fdis, p->w, p->h,
                                    (int)y, (int)x);
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    FloatAnsnrSetup setup;
    char msg[256];
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_float_ansnr_setup(&setup, &vi, msg, sizeof(msg))) {
        replay_fail("%s: the twin's setup refused: %s", c->what, msg);
        return 0;
    }
    const size_t n = (size_t)c->w * c->h;
    float *mem = malloc(sizeof(float) * (4 * n + 2 * (size_t)c->h));
    if (!mem) {
        replay_fail("out of memory");
        return 0;
    }
    replay_garbage(mem, sizeof(float) * (4 * n + 2 * (size_t)c->h));
    Planes p = { r, d, setup.divisor, setup.w, setup.h, mem, mem + n, mem + 2 * n, mem + 3 * n };
    float *sums = mem + 4 * n;
    const unsigned gy = c->flags & FLAG_SMALL_GRID ? 2 : FANSNR_GRID_Y(c->h);
    replay_grid(c->w, c->h, gy, FANSNR_BLOCK_W, FANSNR_BLOCK_H, convert_sample, &p);
    replay_grid(c->w, c->h, gy, FANSNR_BLOCK_W, FANSNR_BLOCK_H, filter_sample, &p);
    /* the rows kernel: one thread per row, in any order */
    unsigned *order = malloc(sizeof(unsigned) * c->h);
    if (!order) {
        free(mem);
        replay_fail("out of memory");
        return 0;
    }
    replay_scramble(order, c->h);
    for (unsigned q = 0; q < c->h; q++) {
        const unsigned y = order[q];
        fansnr_row_sums(p.rf + (size_t)y * c->w, p.df + (size_t)y * c->w, (int)c->w,
                        &sums[2 * y], &sums[2 * y + 1]);
    }
    float sig = 0.0f, noise = 0.0f;
    for (unsigned y = 0; y < c->h; y++) fansnr_frame_add(&sig, &noise, sums[2 * y], sums[2 * y + 1]);
    out[0] = fansnr_db(sig, noise, setup.psnr_max);
    out[1] = fanpsnr_db(noise, setup.w, setup.h, setup.peak, setup.psnr_max);
    free(order);
    free(mem);
    return 2;
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    return q ? "float_anpsnr" : "float_ansnr";
}

static void run_case(const ReplayCase *c)
{
    const ReplayPairTwin twin = { "float_ansnr", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* A frame the CPU refuses must be refused by the twin's setup too. */
static void check_refusal(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h)
{
    replay_check_cpu_refuses("float_ansnr", "", fmt, bpc, w, h);
    FloatAnsnrSetup setup;
    char msg[256];
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0, false };
    if (!tvmaf_float_ansnr_setup(&setup, &vi, msg, sizeof(msg)))
        replay_fail("float_ansnr %ux%u %u-bit: the twin's setup accepts it", w, h, bpc);
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize sizes[] = {
        { 3, 3 }, { 4, 3 }, { 3, 4 }, { 5, 5 }, { 6, 7 }, { 64, 36 }, { 177, 99 },
        { FANSNR_BLOCK_W + 1, FANSNR_BLOCK_H + 1 }, { 2 * FANSNR_BLOCK_W - 1, 3 }, { 3, 41 },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_LEVELS },   { REPLAY_EXTREMES },
        { REPLAY_EQUAL },               { REPLAY_CONST0 },   { REPLAY_SMOOTH },
        { REPLAY_EDGES },               { REPLAY_INVERT },   { REPLAY_REF_FLAT },
    };
    const ReplayMatrix all = { .name = "float_ansnr layouts x depths x sizes x fills",
                               REPLAY_SET(fmts, fmts), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, fills),
                               .n_frames = 2 };
    replay_matrix(&all, run_case);
    static const ReplaySize tall[] = { { 37, 53 }, { 5, 200 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    const ReplayMatrix grid = { .name = "float_ansnr row stride (2 blocks in y)",
                                REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, tall),
                                REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd),
                                .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    const ReplayMatrix big = { .name = "float_ansnr 1920x1080", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, s1080), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, rnd) };
    replay_matrix(&big, run_case);
    static const ReplaySize small[] = { { 2, 2 }, { 1, 1 }, { 2, 40 }, { 40, 2 } };
    for (unsigned i = 0; i < REPLAY_COUNT(small); i++)
        check_refusal(TVMAF_PIX_FMT_YUV420P, 8, small[i].w, small[i].h);
    replay_count("float_ansnr refusals", REPLAY_COUNT(small));
    return replay_report("float_ansnr");
}
