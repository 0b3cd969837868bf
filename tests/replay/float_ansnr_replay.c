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

static void run_case(const ReplayCase *c)
{
    twin_host_case(c, "float_ansnr");
}

/* Per frame: the conversion, the filters, the rows' sums, one read-back,
 * the wait (the old float_ansnr_cuda.c: 3 launches, a d2h, the sync). */
static void counts(void)
{
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++) {
        tvd_host_totals_reset();
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                         .opts = "", .n_frames = 3,
                         .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH } };
        snprintf(c.what, sizeof(c.what), "float_ansnr counts");
        twin_host_profile(&c, "float_ansnr", replay_fill_frames, &c, twin_host_profiles[p]);
        char what[64];
        snprintf(what, sizeof(what), "float_ansnr counts {%s}", twin_host_profiles[p]);
        twin_host_check_counts("float_ansnr", what, 3, 1, 0, 1);
    }
}

int main(void)
{
    twin_host_init();
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
    /* rows past a rows group (FANSNR_ROW_THREADS) and several groups in y */
    static const ReplaySize tall[] = { { 37, 53 }, { 5, 200 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    const ReplayMatrix grid = { .name = "float_ansnr tall frames", REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, rnd) };
    replay_matrix(&grid, run_case);
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    const ReplayMatrix big = { .name = "float_ansnr 1920x1080", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, s1080), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, rnd) };
    replay_matrix(&big, run_case);

    static const ReplaySize small[] = { { 2, 2 }, { 1, 1 }, { 2, 40 }, { 40, 2 } };
    for (unsigned i = 0; i < REPLAY_COUNT(small); i++) {
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = small[i].w,
                         .h = small[i].h, .opts = "", .n_frames = 1 };
        snprintf(c.what, sizeof(c.what), "float_ansnr refusal %ux%u", c.w, c.h);
        if (!twin_host_refused(&c, "float_ansnr"))
            replay_fail("%s: the CPU extractor scored it", c.what);
    }
    counts();
    return replay_report("float_ansnr");
}
