/*
 * motion twin on the host executor: its plan and kernels (motion_plan.c,
 * motion_kernels.h) run through the public API against the CPU extractor,
 * every output compared as bits, under both capability profiles (the
 * group's fold by warp shuffles; by a tree in local memory), over frame
 * sequences of random and edge inputs, every option set and length; the
 * operations per frame checked against the former host sides'.
 */
#include <stdio.h>
#include <stdlib.h>

#include "feature/motion/motion_kernels.h"
#include "../twin_host.h"

/* Per frame that compares: the luma into its slot (a copy), the rows'
 * zeroing (a fill), one launch, the rows' read-back (a copy), the frame's
 * wait. The old motion_cuda.c waited once more in the middle of the frame
 * (for the SAD, then again at its end); the plan waits there only in a
 * ladder, where another pair may take the SAD (motion_plan.c). Frame 0
 * compares with nothing: its copy and the wait. */
static void counts(void)
{
    static const ReplayCase c[2] = {
        { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36, .opts = "", .n_frames = 1,
          .fills = { REPLAY_RANDOM }, .what = "motion counts frame 0" },
        { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36, .opts = "", .n_frames = 4,
          .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_NEAR },
          .what = "motion counts 4 frames" },
    };
    /* 4 frames: 4 copies into slots, 3 comparisons (each a fill, a launch, a
     * read-back), 4 waits */
    static const TwinHostOps ops[2] = { { 0, 0, 1, 0, 1 }, { 4, 3, 4 + 3, 3, 4 } };
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        for (unsigned i = 0; i < 2; i++)
            twin_host_count(&c[i], "motion", twin_host_profiles[p], NULL, NULL, NULL, &ops[i]);
}

int main(void)
{
    static const ReplaySize sizes[] = {
        { 3, 3 }, { 4, 3 }, { 3, 7 }, { 5, 5 }, { 64, 36 }, { 177, 99 }, { 254, 4 },
        { 256, 5 }, { 257, 9 }, { 258, 3 }, { 259, 6 }, { 511, 4 }, { 513, 17 },
        { MOTION_TILE + MOTION_RADIUS + 1, 4 },
    };
    static const ReplaySize s37[] = { { 37, 11 } }, s259[] = { { 259, 5 } };
    static const ReplaySize s177[] = { { 177, 99 } }, s257[] = { { 257, 9 } };
    static const ReplaySize s513[] = { { 513, 17 } }, s1283[] = { { 1283, 131 } };
    /* frame sequences: first entry is frame 0's fill (relative fills derive
     * frame k from frame k - 1, replay_fill_next) */
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM,
          REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM },
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_EQUAL, REPLAY_NEAR, REPLAY_SMOOTH,
          REPLAY_EQUAL, REPLAY_NEAR },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_CONSTMAX, REPLAY_CONST0, REPLAY_EXTREMES,
          REPLAY_INVERT, REPLAY_INVERT, REPLAY_EQUAL },
        { REPLAY_EDGES, REPLAY_INVERT, REPLAY_EDGES, REPLAY_LEVELS, REPLAY_EQUAL,
          REPLAY_EXTREMES, REPLAY_CONSTMAX, REPLAY_EDGES },
    };
    static const unsigned lengths[] = { 1, 2, 3, 5, 8 };
    static const char *const opt_sets[] = {
        "",
        "motion_five_frame_window=true",
        "motion_force_zero=true",
        "motion_five_frame_window=true:motion_moving_average=true:motion_max_val=18",
        "motion_fps_weight=2.0:motion_blend_factor=0.5:motion_blend_offset=20",
        "motion_moving_average=true:debug=true",
        "motion_max_val=0.5:motion_fps_weight=5",
        "motion_blend_factor=0:motion_blend_offset=0.25:motion_five_frame_window=true",
    };
    static const char *const five[] = { "motion_five_frame_window=true" };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence at full length */
        { .name = "motion sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8 },
        /* every option set and sequence length, two sizes, every depth */
        { .name = "motion options 37x11", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s37), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          REPLAY_SET(lengths, lengths) },
        { .name = "motion options 259x5 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s259), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), REPLAY_SET(lengths, lengths) },
        /* other layouts (luma is all motion reads), and the kernel's row stride */
        { .name = "motion 400", REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s177),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8 },
        { .name = "motion 422", REPLAY_SET(opts, five), REPLAY_SET(fmts, replay_422),
          REPLAY_SET(sizes, s257), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 8 },
        { .name = "motion 513x17", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, s513),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8 },
        /* a larger frame, 8 and 16 bits */
        { .name = "motion 1283x131", REPLAY_SET(opts, five), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s1283), REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, seqs),
          .n_frames = 6 },
    };
    twin_host_init("motion");
    replay_seed(0x2545f4914f6cdd1dull);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], twin_host_run);
    counts();
    return replay_report("motion");
}
