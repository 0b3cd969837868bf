/*
 * float_adm twin on the host executor: its plan and kernels
 * (float_adm_plan.c, float_adm_kernels.h) run through the public API against
 * the CPU extractor, every output compared as bits under both capability
 * profiles; what the CPU refuses the twin refuses too; the operations per
 * frame are checked against the former CUDA host side's.
 *
 * Cases: every option of the option table (division modes host, table, ieee
 * and the default; the gain limit, viewing distance, display height, CSF
 * modes, p-norms, bypass_cm, noise weight, CSF scales, per-scale factors,
 * skip_scale0, skip_aim_scale, the adm3 combinations, debug: every output),
 * layouts 4:2:0 .. 4:0:0, 8 to 16 bits, sizes from the smallest the CPU
 * accepts to odd ones past a group, random and edge planes, the real clips
 * in the three modes; sizes, depths and option values the CPU refuses. In
 * "host" mode the twin divides through this processor's estimates as a
 * table, where the CPU extractor calls the instruction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_adm/float_adm_kernels.h"
#include "../twin_host.h"

/* Per frame (4:2:0): per scale a dwt, a decouple, a terms and (p = 3) a rows
 * launch; scale 0 only its dwt under adm_skip_scale0; one read-back and the
 * wait (the old float_adm_cuda.c: 4 per scale, a d2h, a sync). */
static void counts(void)
{
    static const TwinHostOptOps sets[] = {
        { "", { 0, 16, 1, 0, 1 } },
        { "adm_skip_scale0=true", { 0, 13, 1, 0, 1 } },
        { "adm_p_norm=2", { 0, 12, 1, 0, 1 } },
    };
    const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64,
                           .n_frames = 2, .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    twin_host_counts_opts(c, "float_adm", sets, REPLAY_COUNT(sets), NULL);
}

int main(void)
{
    twin_host_init("float_adm");
    replay_seed(0x9e3779b97f4a7c15ull);

    /* every option, each division mode with the default options and with the outputs' debug
     * values */
    static const char *const opts[] = {
        "",
        "adm_div=host:debug=true",
        "adm_div=table:debug=true",
        "adm_div=ieee:debug=true",
        "adm_enhn_gain_limit=1.2:debug=true",
        "adm_enhn_gain_limit=1.0:adm_div=table",
        "adm_norm_view_dist=1.5:adm_ref_display_height=720:debug=true",
        "adm_norm_view_dist=24:adm_ref_display_height=4320:adm_div=ieee",
        "adm_csf_mode=1:debug=true",
        "adm_csf_mode=2:adm_div=ieee:debug=true",
        "adm_p_norm=2:debug=true",
        "adm_p_norm=4.5:adm_div=table:debug=true",
        "adm_p_norm=1:adm_div=ieee:debug=true",
        "adm_p_norm=20:adm_div=host",
        "adm_bypass_cm=1:debug=true",
        "adm_noise_weight=0.5:adm_csf_scale=2:adm_csf_diag_scale=0.5:debug=true",
        "adm_skip_scale0=true:debug=true",
        "adm_skip_aim_scale=2:adm_adm3_apply_hm=true:debug=true",
        "adm_dlm_weight=0.3:adm_min_val=0.2:adm_div=table",
        "adm_f1s0=0.5:adm_f2s3=2:adm_f1s2=0:adm_f2s1=10:debug=true",
    };
    static const ReplaySize sizes[] = { { 17, 17 }, { 64, 64 }, { 177, 99 } };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_LINES, REPLAY_LINES_DIM },
        { REPLAY_EDGES, REPLAY_SMOOTH },
    };
    const ReplayMatrix all = { .name = "float_adm options x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    replay_matrix(&all, twin_host_run_or_refused);

    /* the division modes over layouts, more sizes and every fill */
    static const char *const modes[] = { "adm_div=host:debug=true", "adm_div=table:debug=true",
                                         "adm_div=ieee:debug=true" };
    static const ReplaySize more[] = { { 18, 31 }, { 33, 65 },
                                       { 2 * FADM_BLOCK_W + 5, 2 * FADM_BLOCK_H + 3 } };
    static const ReplayFill every[][REPLAY_MAX_FRAMES] = {
        { REPLAY_EXTREMES }, { REPLAY_CONST0 }, { REPLAY_CONSTMAX }, { REPLAY_EQUAL },
        { REPLAY_REF_FLAT }, { REPLAY_INVERT }, { REPLAY_LEVELS }, { REPLAY_SWEEP },
    };
    const ReplayMatrix layouts = { .name = "float_adm division modes x layouts x sizes x fills",
                                   REPLAY_SET(opts, modes), REPLAY_SET(fmts, replay_fmts),
                                   REPLAY_SET(sizes, more), REPLAY_SET(depths, replay_8_16),
                                   REPLAY_SET(seqs, every) };
    replay_matrix(&layouts, twin_host_run_or_refused);

    /* what the CPU refuses: too small, an unknown division, option values */
    static const char *const ref_opts[] = { "", "adm_div=fast" };
    static const ReplaySize small[] = { { 16, 17 }, { 17, 16 }, { 1, 1 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM, REPLAY_NEAR } };
    const ReplayMatrix refused = { .name = "float_adm refusals", REPLAY_SET(opts, ref_opts),
                                   REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, small),
                                   REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd) };
    const unsigned before = twin_host_n_refused;
    replay_matrix(&refused, twin_host_run_or_refused);
    if (twin_host_n_refused - before != 2 * REPLAY_COUNT(small) * REPLAY_COUNT(replay_8_16))
        replay_fail("float_adm refusals: not all refused");
    static const char *const bad_opts[] = { "adm_p_norm=0.5", "adm_enhn_gain_limit=0.9",
                                            "adm_csf_mode=10", "adm_no_such_option=1" };
    for (unsigned i = 0; i < REPLAY_COUNT(bad_opts); i++) {
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64,
                         .opts = bad_opts[i], .n_frames = 1 };
        snprintf(c.what, sizeof(c.what), "float_adm option refusal [%s]", c.opts);
        twin_host_must_refuse(&c, "float_adm");
    }

    /* real clips, first frames, in the three modes (and a p-norm read back as bases) */
    static const ReplayClipSpec clips[] = {
        { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 3, NULL },
        { "cups_576x324_10b", TVMAF_PIX_FMT_YUV420P, 10, 576, 324, 2, NULL },
        { "cups_576x324_16b", TVMAF_PIX_FMT_YUV420P, 16, 576, 324, 1, NULL },
        { "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 1, NULL },
        { "tiny_177x99", TVMAF_PIX_FMT_YUV420P, 8, 177, 99, 3, NULL },
        { "flat_64x64", TVMAF_PIX_FMT_YUV420P, 8, 64, 64, 3, NULL },
        { "noise_320x180", TVMAF_PIX_FMT_YUV420P, 8, 320, 180, 2, NULL },
    };
    static const char *const clip_opts[] = { "debug=true:adm_div=host", "debug=true:adm_div=table",
                                             "debug=true:adm_div=ieee" };
    ReplayClipSpec s;
    for (unsigned i = 0; i < 3 * REPLAY_COUNT(clips); i++) {
        s = clips[i / 3];
        s.opts = clip_opts[i % 3];
        twin_host_clip(&s, "float_adm");
    }
    s = clips[0];
    s.opts = "debug=true:adm_p_norm=2.5:adm_enhn_gain_limit=1.2";
    twin_host_clip(&s, "float_adm");
    counts();

    twin_host_report_refused();
    return replay_report("float_adm");
}
