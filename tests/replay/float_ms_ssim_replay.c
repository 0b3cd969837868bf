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

static unsigned n_refused, every = 1, n_seen, n_skipped;

static void run_case(const ReplayCase *c)
{
    if (twin_host_refused(c, "float_ms_ssim")) n_refused++;
    else twin_host_case(c, "float_ms_ssim");
}

static void run_sampled(const ReplayCase *c)
{
    if (every > 1 && (++n_seen * 2654435761u >> 16) % every) n_skipped++;
    else run_case(c);
}

static void clip(const char *dir, const char *name, enum TvmafPixelFormat fmt, unsigned bpc,
                 unsigned w, unsigned h, unsigned n, const char *opts)
{
    ReplayClip cl;
    if (!replay_clip_open(&cl, dir, name, NULL, fmt, w, h, bpc, n, opts)) {
        replay_fail("the test clip %s is not in %s", name, dir);
        return;
    }
    if (twin_host_refused(&cl.c, "float_ms_ssim")) {
        n_refused++;
    } else {
        twin_host_frames(&cl.c, "float_ms_ssim", replay_clip_frames, &cl);
        replay_count(cl.c.what, 1);
    }
    replay_clip_close(&cl);
}

static void clips(void)
{
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir || !dir[0]) {
        replay_fail("neither TVMAF_CLIPS nor TVMAF_CLIPS_DEFAULT is set");
        return;
    }
    const enum TvmafPixelFormat f420 = TVMAF_PIX_FMT_YUV420P;
    clip(dir, "cups_576x324", f420, 8, 576, 324, 4, "enable_lcs=true");
    clip(dir, "cups_576x324_10b", f420, 10, 576, 324, 3, "enable_lcs=true");
    clip(dir, "cups_576x324_12b", f420, 12, 576, 324, 3, "enable_db=true:clip_db=true");
    clip(dir, "cups_576x324_16b", f420, 16, 576, 324, 3, "enable_lcs=true");
    clip(dir, "cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 8, 576, 324, 3, "enable_db=true");
    clip(dir, "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 3, "enable_lcs=true");
    clip(dir, "noise_320x180", f420, 8, 320, 180, 8, "enable_lcs=true");
    clip(dir, "forest_1920x1080", f420, 8, 1920, 1080, 1, "enable_lcs=true");
    clip(dir, "tiny_177x99", f420, 8, 177, 99, 8, "");
    clip(dir, "flat_64x64", f420, 8, 64, 64, 4, "");
}

/* Per frame (4:2:0, default options): a load, 4 down-samplings, a rows and a
 * windows launch per scale, the sums; one read-back and the wait (the old
 * float_ms_ssim_cuda.c: 1 + 4 + 5 x 2 + 1 launches, a d2h, a sync). Under
 * OpenCL's profile the windows' l, c and s are read back and added on the
 * host instead of the sums launch: 15 launches, 3 read-backs. */
static void counts(void)
{
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++) {
        tvd_host_totals_reset();
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 176, .h = 176, .opts = "",
                         .n_frames = 2, .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
        snprintf(c.what, sizeof(c.what), "float_ms_ssim counts");
        twin_host_profile(&c, "float_ms_ssim", replay_fill_frames, &c, twin_host_profiles[p]);
        char what[64];
        snprintf(what, sizeof(what), "float_ms_ssim counts {%s}", twin_host_profiles[p]);
        const int host_sums = !strcmp(twin_host_profiles[p], "opencl");
        twin_host_check_counts("float_ms_ssim", what, host_sums ? 15 : 16, host_sums ? 3 : 1, 0, 1);
    }
}

int main(void)
{
    twin_host_init();
    replay_seed(0x2545f4914f6cdd1dull);
    const char *full = getenv("TVMAF_TEST_FULL");
    every = full && !strcmp(full, "1") ? 1 : EVERY;

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
    replay_matrix(&options, run_sampled);

    static const char *const lcs[] = { "enable_lcs=true" };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize sizes[] = {
        { 176, 176 }, { 177, 179 }, { 2 * SSIM_BLOCK_W * 4 + 1, 191 }, { 241, 183 },
        { 177, 99 },  { 64, 64 },   { 175, 400 },                      { 400, 175 },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH },   { REPLAY_EXTREMES },
        { REPLAY_EDGES },               { REPLAY_REF_FLAT }, { REPLAY_CONST0 },
    };
    const ReplayMatrix layouts = { .name = "float_ms_ssim layouts x sizes x depths x fills",
                                   REPLAY_SET(opts, lcs), REPLAY_SET(fmts, fmts),
                                   REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                                   REPLAY_SET(seqs, fills) };
    replay_matrix(&layouts, run_sampled);
    every = 1;

    static const unsigned odd_depths[] = { 9, 11, 13, 14, 15 };
    static const ReplaySize one[] = { { 176, 176 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    const ReplayMatrix depths = { .name = "float_ms_ssim depths it refuses",
                                  REPLAY_SET(opts, lcs), REPLAY_SET(fmts, replay_420),
                                  REPLAY_SET(sizes, one), REPLAY_SET(depths, odd_depths),
                                  REPLAY_SET(seqs, rnd) };
    const unsigned before = n_refused;
    replay_matrix(&depths, run_case);
    if (n_refused - before != REPLAY_COUNT(odd_depths))
        replay_fail("depths 9, 11, 13, 14, 15: not all refused");

    /* scale 0 of 1080p has many tiles of the sum groups, a partial last one */
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    static const unsigned d8_10[] = { 8, 10 };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    const ReplayMatrix big = { .name = "float_ms_ssim 1920x1080", REPLAY_SET(opts, lcs),
                               REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, s1080),
                               REPLAY_SET(depths, d8_10), REPLAY_SET(seqs, near) };
    replay_matrix(&big, run_case);

    clips();
    counts();
    printf("refused by both: %u cases; sampled out: %u cases\n", n_refused, n_skipped);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_ms_ssim");
}
