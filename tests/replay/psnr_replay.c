/*
 * Host replay of the psnr CUDA twin (psnr.cu), compared bit for bit with the
 * CPU extractor; no GPU needed.
 *
 * The decomposition is psnr_math.h's (PSNR_THREADS, PSNR_GRID_X,
 * psnr_lane_sse_*), the one the kernel compiles: per plane, one block per
 * row, visited in a scrambled order (atomics land in any order); in a block
 * thread t adds its lane (psnr_lane_sse_*), the warps fold by shuffles and
 * the warp sums are added (replay_block_fold), and the row goes into the
 * plane's uint64 total. The host's psnr_mse / psnr_db turn the three totals
 * into the outputs, compared with psnr_y, psnr_cb, psnr_cr of the CPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/psnr/psnr_math.h"
#include "../replay_common.h"

_Static_assert(PSNR_THREADS % REPLAY_WARP == 0, "a block is whole warps");

/* One plane's sum of squared errors, as the device adds it. */
static uint64_t replay_plane_sse(const TvmafPicture *r, const TvmafPicture *d, int pl)
{
    const unsigned w = r->w[pl], h = r->h[pl], rows = PSNR_GRID_X(h);
    unsigned *order = malloc(sizeof(unsigned) * (rows ? rows : 1));
    uint64_t lane[PSNR_THREADS], total = 0;
    if (!order) {
        replay_fail("out of memory");
        return 0;
    }
    replay_scramble(order, rows);
    for (unsigned b = 0; b < rows; b++) {
        const unsigned y = order[b];
        const unsigned char *rr = (const unsigned char *)r->data[pl] + (size_t)y * r->stride[pl];
        const unsigned char *dr = (const unsigned char *)d->data[pl] + (size_t)y * d->stride[pl];
        for (unsigned t = 0; t < PSNR_THREADS; t++)
            lane[t] = r->bpc == 8 ? psnr_lane_sse_8(rr, dr, t, w)
                                  : psnr_lane_sse_16((const uint16_t *)(const void *)rr,
                                                     (const uint16_t *)(const void *)dr, t, w);
        total += replay_block_fold(lane, PSNR_THREADS); /* 64-bit atomicAdd */
    }
    free(order);
    return total;
}

static void run_case(const ReplayCase *c)
{
    static const char *const keys[3] = { "psnr_y", "psnr_cb", "psnr_cr" };
    TvmafPicture r, d;
    if (replay_pictures(c, &r, &d)) return;
    replay_fill(&r, &d, c->fills[0], 0);
    const uint32_t peak = psnr_peak(c->bpc, 0);
    double dev[3];
    for (int pl = 0; pl < 3; pl++) {
        const double mse = psnr_mse(replay_plane_sse(&r, &d, pl), r.w[pl], r.h[pl]);
        dev[pl] = psnr_db(mse, peak, psnr_max_db(peak, c->bpc, 0.0, r.w[pl], r.h[pl]));
    }
    TvmafContext *ctx = replay_cpu_open("psnr", c->opts, c->what);
    if (ctx && !replay_cpu_read(ctx, &r, &d, 0, c->what) && !replay_cpu_flush(ctx, c->what))
        for (int pl = 0; pl < 3; pl++) replay_check_key(ctx, keys[pl], 0, dev[pl], c->what);
    tvmaf_close(ctx);
    tvmaf_picture_unref(&r);
    tvmaf_picture_unref(&d);
}

int main(void)
{
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const ReplaySize sizes[] = { { 64, 36 }, { 177, 99 }, { 33, 2 }, { 1, 1 },
                                        { PSNR_THREADS + 1, 3 } };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM },   { REPLAY_NEAR },  { REPLAY_LEVELS },
        { REPLAY_EXTREMES }, { REPLAY_EQUAL },
    };
    static const ReplayFill sweep[][REPLAY_MAX_FRAMES] = { { REPLAY_SWEEP } };
    static const enum TvmafPixelFormat f444[] = { TVMAF_PIX_FMT_YUV444P };
    static const unsigned d16[] = { 16 };
    static const ReplaySize s256[] = { { 256, 256 } };
    replay_seed(0x9e3779b97f4a7c15ull);
    const ReplayMatrix all = { .name = "psnr layouts x depths x sizes x fills",
                               .fmts = fmts, .n_fmts = REPLAY_COUNT(fmts),
                               .sizes = sizes, .n_sizes = REPLAY_COUNT(sizes),
                               .depths = depths, .n_depths = REPLAY_COUNT(depths),
                               .seqs = fills, .n_seqs = REPLAY_COUNT(fills) };
    /* every 16-bit level in every plane */
    const ReplayMatrix levels = { .name = "psnr every 16-bit level", .fmts = f444, .n_fmts = 1,
                                  .sizes = s256, .n_sizes = 1, .depths = d16, .n_depths = 1,
                                  .seqs = sweep, .n_seqs = 1 };
    replay_matrix(&all, run_case);
    replay_matrix(&levels, run_case);
    return replay_report("psnr");
}
