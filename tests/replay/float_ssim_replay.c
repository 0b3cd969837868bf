/*
 * float_ssim twin on the host executor: its plan and kernels
 * (float_ssim_plan.c, float_ssim_kernels.h) run through the public API
 * against the CPU extractor, every output compared as bits, under both
 * capability profiles (one decomposition serves both); the operations per
 * frame checked against the former CUDA host side's, unscaled and scaled.
 *
 * Option sets cover the scale factors (auto at 1080p), enable_lcs and the
 * dB outputs; a case the extractor's setup refuses for its size must be
 * refused by the CPU and by the twin alike. The per-sample kernels' loop
 * over further rows (a grid capped at 65535 groups in y) needs frames of
 * more than 524,280 rows and is not reached: the plan's grid covers every
 * row here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_ssim/float_ssim_math.h"
#include "feature/float_ssim/float_ssim_state.h"
#include "../twin_host.h"

/* Whether the extractor's setup accepts case c (its options parsed). */
static int accepted(const ReplayCase *c)
{
    FloatSsimParams p;
    char msg[512];
    memset(&p, 0, sizeof(p));
    tvmaf_options_set_defaults(tvmaf_float_ssim_options, &p);
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false, NULL };
    if (tvmaf_options_parse(tvmaf_float_ssim_options, &p, c->opts, "float_ssim", msg,
                            sizeof(msg))) {
        replay_fail("%s: options: %s", c->what, msg);
        return 0;
    }
    return !tvmaf_float_ssim_setup(&p, &vi, msg, sizeof(msg));
}

static void run_case(const ReplayCase *c)
{
    if (accepted(c)) twin_host_case(c, "float_ssim");
    else twin_host_must_refuse(c, "float_ssim");
}

/* Per frame: load, (down-sample,) products, row pass, windows, the three
 * read-backs, the wait (the old float_ssim_cuda.c: 4 launches, or 5 when the
 * picture is scaled, 3 d2h, the sync). */
static void counts(void)
{
    static const char *const opts[2] = { "scale=1", "scale=2" };
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        for (unsigned scaled = 0; scaled < 2; scaled++) {
            ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                             .opts = opts[scaled], .n_frames = 3,
                             .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH } };
            snprintf(c.what, sizeof(c.what), "float_ssim counts [%s]", c.opts);
            const TwinHostOps ops = { 0, 4 + scaled, 3, 0, 1 };
            twin_host_count(&c, "float_ssim", twin_host_profiles[p], NULL, NULL, NULL, &ops);
        }
}

int main(void)
{
    twin_host_init("float_ssim");
    replay_seed(0x9e3779b97f4a7c15ull);
    static const char *const opts[] = {
        "", "enable_lcs=true", "scale=2:enable_lcs=true", "scale=3", "scale=1",
        "enable_db=true", "enable_db=true:clip_db=true:scale=2", "scale=10",
    };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize sizes[] = {
        { 11, 11 }, { 12, 13 }, { 23, 22 }, { 64, 36 }, { 177, 99 }, { 43, 11 }, { 240, 130 },
        { SSIM_BLOCK_W + SSIM_WIN, SSIM_BLOCK_H + SSIM_WIN },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_EQUAL },               { REPLAY_CONST0 }, { REPLAY_EDGES },
        { REPLAY_REF_FLAT },            { REPLAY_INVERT },
    };
    const ReplayMatrix all = { .name = "float_ssim options x layouts x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, fmts),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    replay_matrix(&all, run_case);
    static const char *const tall_opts[] = { "", "scale=2:enable_lcs=true" };
    static const ReplaySize tall[] = { { 40, 60 }, { 30, 97 } };
    const ReplayMatrix grid = { .name = "float_ssim tall frames", REPLAY_SET(opts, tall_opts),
                                REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, tall),
                                REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, replay_random) };
    replay_matrix(&grid, run_case);
    static const char *const big_opts[] = { "enable_lcs=true" };
    const ReplayMatrix big = { .name = "float_ssim 1920x1080 (auto factor 4)",
                               REPLAY_SET(opts, big_opts), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, replay_near) };
    replay_matrix(&big, run_case);
    twin_host_report_refused();
    counts();
    return replay_report("float_ssim");
}
