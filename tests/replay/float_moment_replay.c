/*
 * float_moment twin on the host executor: its plan and kernels
 * (float_moment_plan.c, float_moment_kernels.h, float_psnr's folds) run
 * through the public API against the CPU extractor, the four outputs
 * compared as bits, under both capability profiles (groups folded by warp
 * shuffles; by a tree in local memory); the operations per frame checked
 * against the former CUDA host side's.
 *
 * Large cases make totals reach the device's limit for real, so the finish
 * kernel's fallback (the CPU's loop in one work-item) runs: 16-bit 4K
 * pictures at full scale, and 10-bit pictures whose samples are far above
 * 10 bits (twin_host_past_limit). Their sources count the totals past the
 * limit.
 *
 * Poison: all-ones (TVD_HOST_SEED odd), as float_psnr_replay.c says: a unit
 * count no kernel wrote then wraps the saturating fold instead of sending
 * the finish to its (right) fallback.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_moment/float_moment_math.h"
#include "../twin_host.h"

/* how many of a picture's two totals reach the twin's limit */
static unsigned past_one(const TvmafPicture *p)
{
    const float divisor = sample_divisor(p->bpc);
    FMomentSums m = { 0., 0. };
    fmoment_plane(p->data[0], p->stride[0], p->w[0], p->h[0], p->bpc, divisor, &m);
    const double limit = (double)FPIC_UNITS_EXACT;
    return (ldexp(m.s1, (int)fmoment_frac_bits(p->bpc, divisor, 1)) >= limit) +
           (ldexp(m.s2, (int)fmoment_frac_bits(p->bpc, divisor, 2)) >= limit);
}

static unsigned past(const TvmafPicture *ref, const TvmafPicture *dis)
{
    return past_one(ref) + past_one(dis);
}

/* Per frame: the rows and the finish kernels, one read-back, the wait (the
 * old float_moment_cuda.c: 2 launches, a d2h, the sync), under both
 * profiles. */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 10, .w = 300, .h = 20,
                                  .opts = "", .n_frames = 3, .what = "float_moment counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_LEVELS, REPLAY_NEAR } };
    static const TwinHostOps ops = { 0, 2, 1, 0, 1 };
    twin_host_counts(&c, "float_moment", &ops, 1);
}

int main(void)
{
    twin_host_init("float_moment");
    setenv("TVD_HOST_SEED", "1", 1);
    replay_seed(0x9e3779b97f4a7c15ull);
    /* one group per row: a row one sample past a group */
    replay_picture_matrices("float_moment", FPIC_THREADS, 1, twin_host_run);

    /* 10-bit pictures holding 16-bit samples: the 10-bit unit of a square
     * is 2^-4 (fpic_frac_bits), both pictures' samples are at 0xc000 and
     * above, so every square is above 2^27.1, 2^31.1 units, and 4096x2048 of
     * them pass 2^53 (the samples' sums stay far below): both squares pass.
     * 4K: constmax both squares, random both too (mean ~ 2^14.4 a pixel). */
    static const ReplayFill big_fills[][REPLAY_MAX_FRAMES] = { { REPLAY_CONSTMAX },
                                                               { REPLAY_RANDOM } };
    const TwinHostLimit limit = { "float_moment", "totals", big_fills, REPLAY_COUNT(big_fills),
                                  { 0xc000, 0xc000 }, { 0x3fff, 0x3f }, { 0, 8 }, past, 4, 2 };
    twin_host_past_limit(&limit);
    counts();
    return replay_report("float_moment");
}
