/*
 * adm twin on the host executor: its plan and kernels (adm_plan.c,
 * adm_kernels.h) run through the public API against the CPU extractor,
 * every output compared as bits, under three profiles: CUDA's caps (row
 * accumulators by 64-bit atomics), a ladder's (the same, each coef launch as
 * the reference pass into an area and the pair pass) and none (a slot per
 * group, added by the finish); over every size class of the lane blocks,
 * every depth, option set, reference build and layout and a full HD frame;
 * the refusals; the operations per frame checked against the former host
 * sides'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/adm/adm_kernels.h"
#include "feature/adm/adm_state.h"
#include "../twin_host.h"

/* run_case's flags: a matrix CI samples (1 case in 8, every case with
 * TVMAF_TEST_FULL=1), and one the sanitizer pass leaves out
 * (TVMAF_TEST_QUICK=1: a full HD frame; that pass also takes 1 case in 2 of
 * the others) */
#define SAMPLED 1u
#define LARGE 2u

static void run_case(const ReplayCase *c)
{
    static unsigned n_sampled, n_quick;
    if ((c->flags & SAMPLED) && !replay_env_on("TVMAF_TEST_FULL") && n_sampled++ % 8) return;
    if (replay_env_on("TVMAF_TEST_QUICK") && ((c->flags & LARGE) || n_quick++ % 2)) return;
    twin_host_frames_in(c, "adm", replay_fill_frames, (void *)c, twin_host_ladder_profiles, 3);
}

/* Per frame with statistics at every scale: a coef and a cm launch per
 * scale and the finish, the rows' zeroing, one read-back, the wait (the old
 * adm_cuda.c and adm_opencl.c alike); as a ladder's pair that fills the
 * area: the area's zeroing and the four reference passes more. */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 64,
                                  .opts = "", .n_frames = 2, .what = "adm counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    static const TwinHostOps ops[] = { { 0, 9, 1, 1, 1 }, { 0, 9, 1, 1, 1 }, { 0, 13, 1, 2, 1 } };
    for (unsigned p = 0; p < 3; p++)
        twin_host_count(&c, "adm", twin_host_ladder_profiles[p], NULL, NULL, NULL, &ops[p]);
}

/* The options parsed, then the shared setup (a twin_host_setup_refusals
 * setup). */
static int setup(const char *opts, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    AdmState s;
    memset(&s, 0, sizeof(s));
    tvmaf_options_set_defaults(tvmaf_adm_options, &s);
    const int err = tvmaf_options_parse(tvmaf_adm_options, &s, opts, "adm", msg, len);
    return err ? err : tvmaf_adm_setup(&s, vi, msg, len);
}

int main(void)
{
    /* widths chosen so the lane blocks (16 over the work range, 14 / 6 over
     * the cm columns) end differently at every scale, plus odd sizes */
    static const ReplaySize sizes[] = {
        { 33, 33 }, { 34, 35 }, { 177, 99 }, { 130, 70 }, { 144, 41 }, { 200, 52 },
        { 64, 64 }, { 257, 37 }, { 45, 120 }, { 97, 33 }, { 321, 45 },
        { 2 * ADM_THREADS + 1, 40 },
    };
    static const ReplaySize s33[] = { { 33, 33 } }, s177[] = { { 177, 99 } };
    static const ReplaySize s130[] = { { 130, 70 } }, s67[] = { { 67, 45 } };
    static const ReplaySize s99[] = { { 99, 40 } };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_LEVELS, REPLAY_EXTREMES, REPLAY_EDGES },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_EQUAL },
        { REPLAY_REF_FLAT, REPLAY_LINES, REPLAY_LINES_DIM },
    };
    static const ReplayFill lines[][REPLAY_MAX_FRAMES] = { { REPLAY_LINES } };
    static const char *const opt_sets[] = {
        "debug=true",
        "adm_csf_mode=1:debug=true",
        "adm_csf_mode=2:debug=true",
        "adm_csf_mode=3:debug=true",
        "adm_enhn_gain_limit=1.2:debug=true",
        "adm_enhn_gain_limit=1.2:adm_csf_mode=1",
        "adm_enhn_gain_limit=1.0:adm_skip_aim=true:debug=true",
        "adm_skip_aim=true",
        "adm_skip_scale0=true:debug=true",
        "adm_skip_scale0=true:adm_csf_mode=1:adm_enhn_gain_limit=1.7",
        "adm_noise_weight=0.5:adm_min_val=0.9:adm_dlm_weight=0.8:debug=true",
        "adm_csf_mode=2:adm_norm_view_dist=5:adm_ref_display_height=2160",
        "adm_csf_mode=3:adm_norm_view_dist=4:adm_ref_display_height=1000:debug=true",
        "adm_csf_mode=1:adm_csf_scale=3:adm_csf_diag_scale=0.25:debug=true",
        "adm_norm_view_dist=6:adm_ref_display_height=2160:debug=true",
        /* the other reference builds (DWT blocks, lanes, Q32 conversion) */
        "reference_isa=avx2:debug=true",
        "reference_isa=c:debug=true",
        "reference_isa=c:adm_csf_mode=1:adm_enhn_gain_limit=1.2:debug=true",
        "reference_isa=avx2:adm_csf_mode=1:debug=true",
    };
    static const char *const hd16_opts[] = { "adm_csf_mode=1:debug=true" };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence */
        { .name = "adm sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* every option set, every depth and sequence, three sizes */
        { .name = "adm options 33x33", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s33), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "adm options 177x99 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s177), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), .n_frames = 3, .flags = SAMPLED },
        { .name = "adm options 130x70", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s130), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3, .flags = SAMPLED },
        /* other layouts (adm reads luma only) */
        { .name = "adm 400", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_400),
          REPLAY_SET(sizes, s67), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "adm 422", REPLAY_SET(fmts, replay_422), REPLAY_SET(sizes, s99),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* a full HD frame, 8 and 16 bits */
        { .name = "adm 1920x1080 8-bit", REPLAY_SET(opts, replay_debug),
          REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, replay_1080p),
          REPLAY_SET(depths, replay_d8), REPLAY_SET(seqs, replay_near), .flags = LARGE },
        { .name = "adm 1920x1080 16-bit", REPLAY_SET(opts, hd16_opts), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, replay_d16), REPLAY_SET(seqs, lines),
          .flags = LARGE },
    };
    twin_host_init("adm");
    replay_seed(0x3c6ef372fe94f82bull);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], run_case);
    static const TwinHostSetupCase refusals[] = {
        { 32, 33, 8, "", 0 },  { 33, 32, 8, "", 0 },  { 33, 33, 8, "", 1 },
        { 33, 33, 16, "", 1 }, { 33, 33, 7, "", 0 },  { 33, 33, 17, "", 0 },
        { 64, 64, 8, "adm_norm_view_dist=2.9", 0 },
        { 64, 64, 8, "adm_ref_display_height=720", 0 },
        { 64, 64, 8, "adm_norm_view_dist=1.5:adm_ref_display_height=2160", 1 },
    };
    twin_host_setup_refusals("adm", refusals, REPLAY_COUNT(refusals), setup);
    counts();
    return replay_report("adm");
}
