/*
 * float_ms_ssim twin on the host executor: its plan and kernels
 * (float_ms_ssim_plan.c, float_ms_ssim_kernels.h) run through the public API
 * against the CPU extractor, every output compared as bits under both
 * capability profiles; sizes and depths the CPU refuses are refused by the
 * twin too; the operations per frame are checked against the former CUDA
 * host side's.
 *
 * Cases: every option set, 4:2:0 / 4:2:2 / 4:4:4 / 4:0:0 at 8, 10, 12 and
 * 16 bits, sizes from the smallest scored (176x176) to odd ones and 1080p,
 * random and edge planes, and the test clips (TVMAF_CLIPS, else
 * TVMAF_CLIPS_DEFAULT; a missing clip fails). The two large matrices are
 * sampled, one case in EVERY by a fixed hash of the case's number
 * (TVMAF_TEST_FULL=1 runs them whole).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_ms_ssim/float_ms_ssim_math.h"
#include "../twin_host.h"

#define EVERY 6

/* The clips: a frame smaller than the scales need is refused by both. */
static void clips(void)
{
    static const ReplayClipSpec clips[] = {
        { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 4, "enable_lcs=true" },
        { "cups_576x324_10b", TVMAF_PIX_FMT_YUV420P, 10, 576, 324, 3, "enable_lcs=true" },
        { "cups_576x324_12b", TVMAF_PIX_FMT_YUV420P, 12, 576, 324, 3,
          "enable_db=true:clip_db=true" },
        { "cups_576x324_16b", TVMAF_PIX_FMT_YUV420P, 16, 576, 324, 3, "enable_lcs=true" },
        { "cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 8, 576, 324, 3, "enable_db=true" },
        { "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 3, "enable_lcs=true" },
        { "noise_320x180", TVMAF_PIX_FMT_YUV420P, 8, 320, 180, 8, "enable_lcs=true" },
        { "forest_1920x1080", TVMAF_PIX_FMT_YUV420P, 8, 1920, 1080, 1, "enable_lcs=true" },
        { "tiny_177x99", TVMAF_PIX_FMT_YUV420P, 8, 177, 99, 8, "" },
        { "flat_64x64", TVMAF_PIX_FMT_YUV420P, 8, 64, 64, 4, "" },
    };
    for (unsigned i = 0; i < REPLAY_COUNT(clips); i++) {
        ReplayClip cl;
        if (!replay_clip_open(&cl, &clips[i], NULL, 0)) continue;
        if (twin_host_refused(&cl.c, "float_ms_ssim")) {
            twin_host_n_refused++;
        } else {
            twin_host_frames(&cl.c, "float_ms_ssim", replay_clip_frames, &cl);
            replay_count(cl.c.what, 1);
        }
        replay_clip_close(&cl);
    }
}

/* Per frame (4:2:0, default options): a load, 4 down-samplings, a rows and a
 * windows launch per scale, the sums; one read-back and the wait (the old
 * float_ms_ssim_cuda.c: 1 + 4 + 5 x 2 + 1 launches, a d2h, a sync). Under
 * OpenCL's profile the windows' l, c and s are read back and added on the
 * host instead of the sums launch: 15 launches, 3 read-backs. */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 176, .h = 176,
                                  .opts = "", .n_frames = 2, .what = "float_ms_ssim counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    static const TwinHostOps ops[] = { { 0, 16, 1, 0, 1 }, { 0, 15, 3, 0, 1 } };
    twin_host_counts(&c, "float_ms_ssim", ops, 2);
}

int main(void)
{
    twin_host_init("float_ms_ssim");
    replay_seed(0x2545f4914f6cdd1dull);

    static const char *const all_opts[] = {
        "", "enable_lcs=true", "enable_db=true", "enable_db=true:clip_db=true", "clip_db=true",
        "enable_db=true:clip_db=true:enable_lcs=true",
    };
    static const ReplaySize two[] = { { 176, 176 }, { 181, 177 } };
    static const ReplayFill opt_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_EQUAL }, { REPLAY_INVERT },
    };
    const ReplayMatrix options = { .name = "float_ms_ssim options", REPLAY_SET(opts, all_opts),
                                   REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, two),
                                   REPLAY_SET(depths, replay_8_16),
                                   REPLAY_SET(seqs, opt_fills), .n_frames = 2 };
    twin_host_sampled_matrix(&options, EVERY, twin_host_run_sampled);

    static const char *const lcs[] = { "enable_lcs=true" };
    static const ReplaySize sizes[] = {
        { 176, 176 }, { 177, 179 }, { 2 * SSIM_BLOCK_W * 4 + 1, 191 }, { 241, 183 },
        { 177, 99 },  { 64, 64 },   { 175, 400 },                      { 400, 175 },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH },   { REPLAY_EXTREMES },
        { REPLAY_EDGES },               { REPLAY_REF_FLAT }, { REPLAY_CONST0 },
    };
    const ReplayMatrix layouts = { .name = "float_ms_ssim layouts x sizes x depths x fills",
                                   REPLAY_SET(opts, lcs), REPLAY_SET(fmts, replay_fmts),
                                   REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                                   REPLAY_SET(seqs, fills) };
    twin_host_sampled_matrix(&layouts, EVERY, twin_host_run_sampled);

    static const unsigned odd_depths[] = { 9, 11, 13, 14, 15 };
    static const ReplaySize one[] = { { 176, 176 } };
    const ReplayMatrix depths = { .name = "float_ms_ssim depths it refuses",
                                  REPLAY_SET(opts, lcs), REPLAY_SET(fmts, replay_420),
                                  REPLAY_SET(sizes, one), REPLAY_SET(depths, odd_depths),
                                  REPLAY_SET(seqs, replay_random) };
    const unsigned before = twin_host_n_refused;
    replay_matrix(&depths, twin_host_run_or_refused);
    if (twin_host_n_refused - before != REPLAY_COUNT(odd_depths))
        replay_fail("depths 9, 11, 13, 14, 15: not all refused");

    /* scale 0 of 1080p has many tiles of the sum groups, a partial last one */
    static const unsigned d8_10[] = { 8, 10 };
    const ReplayMatrix big = { .name = "float_ms_ssim 1920x1080", REPLAY_SET(opts, lcs),
                               REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, replay_1080p),
                               REPLAY_SET(depths, d8_10), REPLAY_SET(seqs, replay_near) };
    replay_matrix(&big, twin_host_run_or_refused);

    clips();
    counts();
    twin_host_report_refused();
    return replay_report("float_ms_ssim");
}
