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
 * 10 bits. Their sources count the totals past the limit.
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

static unsigned n_saturated; /* totals (of 4 a frame) that reached the twin's limit */

static void count_saturated(const TvmafPicture *p)
{
    const float divisor = float_pic_divisor(p->bpc);
    FMomentSums m = { 0., 0. };
    fmoment_plane(p->data[0], p->stride[0], p->w[0], p->h[0], p->bpc, divisor, &m);
    const double limit = (double)FPIC_UNITS_EXACT;
    n_saturated += ldexp(m.s1, (int)fmoment_frac_bits(p->bpc, divisor, 1)) >= limit;
    n_saturated += ldexp(m.s2, (int)fmoment_frac_bits(p->bpc, divisor, 2)) >= limit;
}

static int big_frames(void *src, TvmafPicture *ref, TvmafPicture *dis, unsigned k)
{
    replay_fill_frames(src, ref, dis, k);
    count_saturated(ref);
    count_saturated(dis);
    return 0;
}

/* 10-bit pictures holding 16-bit samples (scored as they are): the 10-bit
 * unit of a square is 2^-4 (fpic_frac_bits), both pictures' samples are at
 * 0xc000 and above, so every square is above 2^27.1, 2^31.1 units, and
 * 4096x2048 of them pass 2^53 (the samples' sums stay far below). */
static int above_depth_frames(void *src, TvmafPicture *ref, TvmafPicture *dis, unsigned k)
{
    (void)src;
    (void)k;
    for (unsigned y = 0; y < ref->h[0]; y++)
        for (unsigned x = 0; x < ref->w[0]; x++) {
            replay_put(ref, 0, x, y, 0xc000 | (replay_next() & 0x3fff));
            replay_put(dis, 0, x, y, (0xc0 | (replay_next() & 0x3f)) << 8);
        }
    count_saturated(ref);
    count_saturated(dis);
    return 0;
}

static void run_big(const ReplayCase *c)
{
    twin_host_frames_all(c, "float_moment", big_frames, (void *)c);
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

    static const ReplayFill big_fills[][REPLAY_MAX_FRAMES] = { { REPLAY_CONSTMAX },
                                                               { REPLAY_RANDOM } };
    static const ReplaySize s4k[] = { { 3840, 2160 } };
    const ReplayMatrix big = { .name = "float_moment 4K 16-bit past the limit",
                               REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s4k),
                               REPLAY_SET(depths, replay_d16), REPLAY_SET(seqs, big_fills) };
    replay_matrix(&big, run_big);
    const unsigned n_big = n_saturated;
    ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 10, .w = 4096, .h = 2048,
                     .opts = "", .n_frames = 1 };
    snprintf(c.what, sizeof(c.what), "float_moment 4096x2048 10-bit with 16-bit samples");
    twin_host_frames_all(&c, "float_moment", above_depth_frames, NULL);
    replay_count(c.what, 1);
    /* per profile: constmax both squares, random both too (mean ~ 2^14.4 a
     * pixel); above the depth both squares */
    const unsigned np = REPLAY_COUNT(twin_host_profiles);
    if (n_big < 4 * np || n_saturated - n_big < 2 * np)
        replay_fail("the large cases did not reach the limit (%u and %u totals)", n_big,
                    n_saturated - n_big);
    printf("totals past the limit: %u\n", n_saturated);
    counts();
    return replay_report("float_moment");
}
