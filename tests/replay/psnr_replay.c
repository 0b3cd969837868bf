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

static const char *const keys[3] = { "psnr_y", "psnr_cb", "psnr_cr" };

/* The twin on one frame: the three planes' psnr as the host makes them. */
static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    const uint32_t peak = psnr_peak(c->bpc, 0);
    for (int pl = 0; pl < 3; pl++) {
        const double mse = psnr_mse(replay_plane_sse(r, d, pl), r->w[pl], r->h[pl]);
        out[pl] = psnr_db(mse, peak, psnr_max_db(peak, c->bpc, 0.0, r->w[pl], r->h[pl]));
    }
    return 3;
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    return keys[q];
}

static void run_case(const ReplayCase *c)
{
    const ReplayPairTwin twin = { "psnr", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);
    /* one block per row: a row one sample past a block */
    replay_picture_matrices("psnr", PSNR_THREADS, 1, run_case);
    return replay_report("psnr");
}
