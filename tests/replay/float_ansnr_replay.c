/*
 * float_ansnr twin on the host executor: its plan and kernels
 * (float_ansnr_plan.c, float_ansnr_kernels.h) run through the public API
 * against the CPU extractor, float_ansnr and float_anpsnr compared as bits,
 * under both capability profiles (one decomposition serves both); the
 * operations per frame checked against the former CUDA host side's.
 *
 * The sizes run from the smallest the CPU accepts (3x3, where every column
 * reflects) past a group; smaller frames must be refused by the CPU and by
 * the twin alike. The per-sample kernels' loop over further rows (a grid
 * capped at 65535 groups in y) needs frames of more than 524,280 rows and is
 * not reached: the plan's grid covers every row here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_ansnr/float_ansnr_math.h"
#include "../twin_host.h"

/* Per frame: the conversion, the filters, the rows' sums, one read-back,
 * the wait (the old float_ansnr_cuda.c: 3 launches, a d2h, the sync). */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                                  .opts = "", .n_frames = 3, .what = "float_ansnr counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH } };
    static const TwinHostOps ops = { 0, 3, 1, 0, 1 };
    twin_host_counts(&c, "float_ansnr", &ops, 1);
}

int main(void)
{
    twin_host_init("float_ansnr");
    replay_seed(0x9e3779b97f4a7c15ull);
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
                               REPLAY_SET(fmts, replay_fmts), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, fills),
                               .n_frames = 2 };
    replay_matrix(&all, twin_host_run);
    /* rows past a rows group (FANSNR_ROW_THREADS) and several groups in y */
    static const ReplaySize tall[] = { { 37, 53 }, { 5, 200 } };
    const ReplayMatrix grid = { .name = "float_ansnr tall frames", REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, replay_random) };
    replay_matrix(&grid, twin_host_run);
    const ReplayMatrix big = { .name = "float_ansnr 1920x1080", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, replay_random) };
    replay_matrix(&big, twin_host_run);

    static const ReplaySize small[] = { { 2, 2 }, { 1, 1 }, { 2, 40 }, { 40, 2 } };
    for (unsigned i = 0; i < REPLAY_COUNT(small); i++) {
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = small[i].w,
                         .h = small[i].h, .opts = "", .n_frames = 1 };
        snprintf(c.what, sizeof(c.what), "float_ansnr refusal %ux%u", c.w, c.h);
        twin_host_must_refuse(&c, "float_ansnr");
    }
    counts();
    return replay_report("float_ansnr");
}
