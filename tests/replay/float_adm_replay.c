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

static unsigned n_refused;

static void run_case(const ReplayCase *c)
{
    if (twin_host_refused(c, "float_adm")) n_refused++;
    else twin_host_case(c, "float_adm");
}

/* An option value the CPU refuses, refused by the twin too. */
static void option_refusal(const char *opts)
{
    ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64, .opts = opts,
                     .n_frames = 1 };
    snprintf(c.what, sizeof(c.what), "float_adm option refusal [%s]", opts);
    if (twin_host_refused(&c, "float_adm")) n_refused++;
    else replay_fail("%s: the CPU accepted it", c.what);
}

typedef struct Clip {
    const char *name;
    unsigned w, h, bpc;
    enum TvmafPixelFormat fmt;
    unsigned frames;
} Clip;

/* The first frames of a clip pair with opts; a missing clip fails. */
static void clip(const char *dir, const Clip *c, const char *opts)
{
    ReplayClip cl;
    if (!replay_clip_open(&cl, dir, c->name, NULL, c->fmt, c->w, c->h, c->bpc, c->frames, opts)) {
        replay_fail("the test clip %s is not in %s", c->name, dir);
        return;
    }
    twin_host_frames(&cl.c, "float_adm", replay_clip_frames, &cl);
    replay_count(cl.c.what, 1);
    replay_clip_close(&cl);
}

/* Per frame (4:2:0): per scale a dwt, a decouple, a terms and (p = 3) a rows
 * launch; scale 0 only its dwt under adm_skip_scale0; one read-back and the
 * wait (the old float_adm_cuda.c: 4 per scale, a d2h, a sync). */
static void counts(void)
{
    static const struct { const char *opts; unsigned launches; } sets[] = {
        { "", 16 }, { "adm_skip_scale0=true", 13 }, { "adm_p_norm=2", 12 },
    };
    for (unsigned s = 0; s < REPLAY_COUNT(sets); s++)
        for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++) {
            tvd_host_totals_reset();
            ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64,
                             .opts = sets[s].opts, .n_frames = 2,
                             .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
            snprintf(c.what, sizeof(c.what), "float_adm counts [%s]", sets[s].opts);
            twin_host_profile(&c, "float_adm", replay_fill_frames, &c, twin_host_profiles[p]);
            char what[300];
            snprintf(what, sizeof(what), "%s {%s}", c.what, twin_host_profiles[p]);
            twin_host_check_counts("float_adm", what, sets[s].launches, 1, 0, 1);
        }
}

int main(void)
{
    twin_host_init();
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
    replay_matrix(&all, run_case);

    /* the division modes over layouts, more sizes and every fill */
    static const char *const modes[] = { "adm_div=host:debug=true", "adm_div=table:debug=true",
                                         "adm_div=ieee:debug=true" };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize more[] = { { 18, 31 }, { 33, 65 },
                                       { 2 * FADM_BLOCK_W + 5, 2 * FADM_BLOCK_H + 3 } };
    static const ReplayFill every[][REPLAY_MAX_FRAMES] = {
        { REPLAY_EXTREMES }, { REPLAY_CONST0 }, { REPLAY_CONSTMAX }, { REPLAY_EQUAL },
        { REPLAY_REF_FLAT }, { REPLAY_INVERT }, { REPLAY_LEVELS }, { REPLAY_SWEEP },
    };
    const ReplayMatrix layouts = { .name = "float_adm division modes x layouts x sizes x fills",
                                   REPLAY_SET(opts, modes), REPLAY_SET(fmts, fmts),
                                   REPLAY_SET(sizes, more), REPLAY_SET(depths, replay_8_16),
                                   REPLAY_SET(seqs, every) };
    replay_matrix(&layouts, run_case);

    /* what the CPU refuses: too small, an unknown division, option values */
    static const char *const ref_opts[] = { "", "adm_div=fast" };
    static const ReplaySize small[] = { { 16, 17 }, { 17, 16 }, { 1, 1 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM, REPLAY_NEAR } };
    const ReplayMatrix refused = { .name = "float_adm refusals", REPLAY_SET(opts, ref_opts),
                                   REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, small),
                                   REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd) };
    const unsigned before = n_refused;
    replay_matrix(&refused, run_case);
    if (n_refused - before != 2 * REPLAY_COUNT(small) * REPLAY_COUNT(replay_8_16))
        replay_fail("float_adm refusals: not all refused");
    option_refusal("adm_p_norm=0.5");
    option_refusal("adm_enhn_gain_limit=0.9");
    option_refusal("adm_csf_mode=10");
    option_refusal("adm_no_such_option=1");

    /* real clips, first frames, in the three modes (and a p-norm read back as bases) */
    static const Clip clips[] = {
        { "cups_576x324", 576, 324, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "cups_576x324_10b", 576, 324, 10, TVMAF_PIX_FMT_YUV420P, 2 },
        { "cups_576x324_16b", 576, 324, 16, TVMAF_PIX_FMT_YUV420P, 1 },
        { "cups_576x324_444_10b", 576, 324, 10, TVMAF_PIX_FMT_YUV444P, 1 },
        { "tiny_177x99", 177, 99, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "flat_64x64", 64, 64, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "noise_320x180", 320, 180, 8, TVMAF_PIX_FMT_YUV420P, 2 },
    };
    static const char *const clip_opts[] = { "debug=true:adm_div=host", "debug=true:adm_div=table",
                                             "debug=true:adm_div=ieee" };
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir || !dir[0]) {
        replay_fail("neither TVMAF_CLIPS nor TVMAF_CLIPS_DEFAULT is set");
    } else {
        for (size_t i = 0; i < REPLAY_COUNT(clips); i++)
            for (size_t o = 0; o < REPLAY_COUNT(clip_opts); o++) clip(dir, &clips[i], clip_opts[o]);
        clip(dir, &clips[0], "debug=true:adm_p_norm=2.5:adm_enhn_gain_limit=1.2");
    }
    counts();

    printf("refused by both: %u cases\n", n_refused);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_adm");
}
