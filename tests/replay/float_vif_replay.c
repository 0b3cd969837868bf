/*
 * float_vif twin on the host executor: its plan and kernels (float_vif_plan.c,
 * float_vif_kernels.h) run through the public API against the CPU extractor,
 * every output (the debug sums included) compared as bits under both
 * capability profiles, over option sets (kernel scales, gain limit, noise
 * variance, skipped scale 0, minimum values, each prescale method), layouts,
 * depths, odd and minimum sizes and fills; what the CPU refuses the twin
 * refuses too. Frames of the test clips are run as well, and the operations
 * per frame are checked against the former CUDA host side's.
 *
 * The two large matrices are sampled, one case in EVERY by a fixed hash of
 * the case's number (TVMAF_TEST_FULL=1 runs them whole).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_vif/float_vif_math.h"
#include "../twin_host.h"

#define EVERY 12

/* Per frame (4:2:0): a load, per scale the moments, the statistic and the
 * rows' sums, and the decimation's two passes into scales 1 to 3; one
 * read-back and the wait (the old float_vif_cuda.c: 1 + 3 + 3 x 5 launches,
 * +1 with a rescale, 3 x 5 + 1 with scale 0 skipped, a d2h, a sync). */
static void counts(void)
{
    static const TwinHostOptOps sets[] = {
        { "", { 0, 19, 1, 0, 1 } },
        { "vif_prescale=1.5:vif_prescale_method=bilinear", { 0, 20, 1, 0, 1 } },
        { "vif_skip_scale0=true", { 0, 16, 1, 0, 1 } },
    };
    const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64,
                           .n_frames = 2, .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    twin_host_counts_opts(c, "float_vif", sets, REPLAY_COUNT(sets), NULL);
}

int main(void)
{
    twin_host_init("float_vif");
    replay_seed(0x2545f4914f6cdd1dull);

    /* every accepted kernel scale keeps the filters within FFILTER_MAX_FW */
    static const double ks_list[] = { 1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 4.0 / 3,
                                      3.5 / 3, 3.75 / 3, 4.25 / 3, 5.0 / 3, 3.0, 1 / 2.25,
                                      1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111 };
    for (unsigned i = 0; i < REPLAY_COUNT(ks_list); i++)
        for (int e = -1; e <= 1; e++) {
            const float ks = (float)(ks_list[i] + e * 0.00099);
            if (ffilter_kernelscale_valid(ks) && ffilter_gaussian_width(0, ks) > FFILTER_MAX_FW)
                replay_fail("kernel scale %g: %d taps > FFILTER_MAX_FW", (double)ks,
                            ffilter_gaussian_width(0, ks));
        }
    replay_count("float_vif filter widths of every accepted kernel scale", 1);

    static const char *const opts[] = {
        "", "debug=true", "debug=true:vif_skip_scale0=true",
        "debug=true:vif_enhn_gain_limit=1.0", "debug=true:vif_sigma_nsq=0.5",
        "debug=true:vif_scale1_min_val=0.9:vif_scale2_min_val=0.5:vif_scale3_min_val=1.0",
        "debug=true:vif_kernelscale=0.5",
    };
    static const ReplaySize sizes[] = { { 64, 64 }, { 177, 99 }, { 16, 16 }, { 15, 40 },
                                        { 33, 2 }, { FVIF_BLOCK_W + 17, FVIF_BLOCK_H + 17 } };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_EQUAL },  { REPLAY_CONST0 }, { REPLAY_EDGES }, { REPLAY_REF_FLAT },
        { REPLAY_INVERT }, { REPLAY_LINES_DIM },
    };
    const ReplayMatrix all = { .name = "float_vif options x layouts x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, replay_yuv),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    twin_host_sampled_matrix(&all, EVERY, twin_host_run_sampled);

    /* wide kernels, the noise variance at its ends and the prescale methods */
    static const char *const wide_opts[] = {
        "debug=true:vif_kernelscale=2.0", "debug=true:vif_kernelscale=3.711340",
        "debug=true:vif_kernelscale=1.5:vif_skip_scale0=true",
        "debug=true:vif_kernelscale=0.711111",
        "debug=true:vif_sigma_nsq=0.0", "debug=true:vif_sigma_nsq=5.0",
        "debug=true:vif_prescale=2.0:vif_prescale_method=bilinear",
        "debug=true:vif_prescale=0.7:vif_prescale_method=bilinear",
        "debug=true:vif_prescale=1.5:vif_prescale_method=bicubic",
        "debug=true:vif_prescale=0.5:vif_prescale_method=bicubic",
        "debug=true:vif_prescale=1.3:vif_prescale_method=lanczos4",
        "debug=true:vif_prescale=0.8:vif_prescale_method=lanczos4",
        "debug=true:vif_prescale=1.7", "debug=true:vif_prescale=0.6:vif_skip_scale0=true",
        "vif_prescale=1.0:vif_prescale_method=lanczos4",
    };
    static const ReplaySize wide_sizes[] = { { 177, 99 }, { 130, 260 }, { 64, 64 }, { 7, 7 },
                                             { 3, 300 } };
    static const ReplayFill wide_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_NEAR, REPLAY_RANDOM }, { REPLAY_EDGES }, { REPLAY_LINES },
    };
    const ReplayMatrix wide = { .name = "float_vif kernel scales, noise, prescale",
                                REPLAY_SET(opts, wide_opts), REPLAY_SET(fmts, replay_420),
                                REPLAY_SET(sizes, wide_sizes), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, wide_fills), .n_frames = 2 };
    twin_host_sampled_matrix(&wide, EVERY / 3, twin_host_run_sampled);

    /* the bilinear scaler's widest output (7680) and one past it */
    static const char *const bil_opts[] = { "vif_prescale=2.0:vif_prescale_method=bilinear" };
    static const ReplaySize bil_sizes[] = { { 3840, 17 }, { 3841, 17 } };
    const ReplayMatrix bil = { .name = "float_vif bilinear width limit",
                               REPLAY_SET(opts, bil_opts), REPLAY_SET(fmts, replay_400),
                               REPLAY_SET(sizes, bil_sizes), REPLAY_SET(depths, replay_d8),
                               REPLAY_SET(seqs, replay_random) };
    replay_matrix(&bil, twin_host_run_or_refused);

    const ReplayMatrix big = { .name = "float_vif 1920x1080",
                               REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, replay_near) };
    replay_matrix(&big, twin_host_run_or_refused);

    static const ReplayClipSpec clips[] = {
        { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 3, "debug=true" },
        { "cups_576x324_10b", TVMAF_PIX_FMT_YUV420P, 10, 576, 324, 2, "debug=true" },
        { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 2,
          "debug=true:vif_prescale=1.5:vif_prescale_method=lanczos4" },
    };
    for (unsigned i = 0; i < REPLAY_COUNT(clips); i++) twin_host_clip(&clips[i], "float_vif");
    counts();

    twin_host_report_refused();
    return replay_report("float_vif");
}
