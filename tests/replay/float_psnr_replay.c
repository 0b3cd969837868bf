/*
 * float_psnr twin on the host executor: its plan and kernels
 * (float_psnr_plan.c, float_psnr_kernels.h) run through the public API
 * against the CPU extractor, every output compared as bits, under both
 * capability profiles (groups folded by warp shuffles; by a tree in local
 * memory); the operations per frame checked against the former CUDA host
 * side's.
 *
 * Large cases make the device's saturated total reach its limit for real,
 * so the finish kernel's fallback (the CPU's loop in one work-item) runs:
 * 16-bit 4K pictures, and 10-bit pictures whose samples are far above 10
 * bits (twin_host_past_limit). Their sources check that the exact total is
 * past the limit.
 *
 * Poison: all-ones (TVD_HOST_SEED odd). A unit count read from memory no
 * kernel wrote is then 2^64 - 1, which wraps the saturating fold to a wrong
 * total; the other poison (0xa5...) is above the limit, and the fallback
 * would recompute the right sum and hide the unwritten slot.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_psnr/float_psnr_math.h"
#include "../twin_host.h"

/* 1 when the frame's exact total reaches the twin's limit */
static unsigned past(const TvmafPicture *r, const TvmafPicture *d)
{
    const float divisor = sample_divisor(r->bpc);
    const double noise = fpsnr_plane_noise(r->data[0], d->data[0], r->stride[0], d->stride[0],
                                           r->w[0], r->h[0], r->bpc, divisor);
    const unsigned q = r->bpc == 8 ? 0 : fpic_frac_bits(divisor, 2);
    return ldexp(noise, (int)q) >= (double)FPIC_UNITS_EXACT;
}

/* Per frame: the rows and the finish kernels, one read-back, the wait (the
 * old float_psnr_cuda.c: 2 launches, a d2h, the sync), under both profiles. */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                                  .opts = "", .n_frames = 3, .what = "float_psnr counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_RANDOM } };
    static const TwinHostOps ops = { 0, 2, 1, 0, 1 };
    twin_host_counts(&c, "float_psnr", &ops, 1);
}

int main(void)
{
    twin_host_init("float_psnr");
    setenv("TVD_HOST_SEED", "1", 1);
    replay_seed(0x9e3779b97f4a7c15ull);
    /* one group per row: a row one sample past a group */
    replay_picture_matrices("float_psnr", FPIC_THREADS, 1, twin_host_run);

    /* 10-bit pictures holding 16-bit samples: the 10-bit unit is 2^-4
     * (fpic_frac_bits), the reference's samples sit at 0xe000 and above and
     * the distorted's below 0x2000, so every term is above 2^26.8, 2^30.8
     * units, and 4096x2048 of them pass 2^53; each 4K fill's frame passes */
    static const ReplayFill inv[][REPLAY_MAX_FRAMES] = { { REPLAY_INVERT }, { REPLAY_EXTREMES } };
    const TwinHostLimit limit = { "float_psnr", "frames", inv, REPLAY_COUNT(inv),
                                  { 0xe000, 0 }, { 0x1fff, 0x1fff }, { 0, 0 }, past, 2, 1 };
    twin_host_past_limit(&limit);
    counts();
    return replay_report("float_psnr");
}
