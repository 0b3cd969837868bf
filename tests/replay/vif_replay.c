/*
 * vif twin on the host executor: its plan and kernels (vif_plan.c,
 * vif_kernels.h) run through the public API against the CPU extractor,
 * every output compared as bits, under both capability profiles (sums by
 * warp shuffles and 64-bit atomics; per-group sums the host adds), over
 * every size class around a tile, every depth, option set and layout and a
 * full HD frame; the refusals; the operations per frame checked against the
 * former host sides'. A third profile, "ladder", runs every frame as a
 * ladder's reference pass into an area and pair pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/vif/vif_kernels.h"
#include "feature/vif/vif_state.h"
#include "../twin_host.h"

static void run_case(const ReplayCase *c)
{
    twin_host_frames_in(c, "vif", replay_fill_frames, (void *)c, twin_host_ladder_profiles, 3);
}

/* Per frame: a launch per scale and one read-back, the wait; with the
 * atomics' sums one fill of them first (the old vif_cuda.c: memset, 4
 * launches, a d2h; vif_opencl.c: 4 launches, a read). */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                                  .opts = "", .n_frames = 2, .what = "vif counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    /* a ladder's pair that fills the area: its zeroing and the four
     * reference passes more, and the reference pass's sums read back */
    static const TwinHostOps ops[] = { { 0, 4, 1, 1, 1 }, { 0, 4, 1, 0, 1 }, { 0, 8, 2, 2, 1 } };
    for (unsigned p = 0; p < 3; p++)
        twin_host_count(&c, "vif", twin_host_ladder_profiles[p], NULL, NULL, NULL, &ops[p]);
}

/* The shared setup (a twin_host_setup_refusals setup; vif's cases take no
 * options). */
static int setup(const char *opts, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    VifParams p;
    (void)opts;
    memset(&p, 0, sizeof(p));
    tvmaf_options_set_defaults(tvmaf_vif_options, &p);
    return tvmaf_vif_setup(&p, vi, msg, len);
}

int main(void)
{
    static const ReplaySize sizes[] = {
        { 16, 16 }, { 17, 17 }, { 177, 99 }, { 16, 40 }, { 41, 16 }, { 64, 16 }, { 65, 33 },
        { 128, 32 }, { 130, 34 }, { 23, 71 }, { 199, 18 }, { 31, 31 }, { 96, 80 },
        /* one past a tile (at least vif's 16 rows), one short of a tile */
        { VIF_TILE_W + 1, VIF_TILE_H < 15 ? 16 : VIF_TILE_H + 1 },
        { VIF_TILE_W - 1, 2 * VIF_TILE_H - 1 },
    };
    static const ReplaySize s17[] = { { 17, 17 } }, s177[] = { { 177, 99 } };
    static const ReplaySize s33[] = { { 33, 19 } }, s67[] = { { 67, 45 } };
    static const ReplaySize s353[] = { { 353, 147 } };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_LEVELS, REPLAY_EXTREMES, REPLAY_EDGES },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_EQUAL },
        { REPLAY_REF_FLAT, REPLAY_SMOOTH, REPLAY_NEAR },
    };
    static const char *const opt_sets[] = {
        "vif_enhn_gain_limit=1.0",
        "vif_skip_scale0=true:debug=true",
        "debug=true",
        "vif_enhn_gain_limit=1.5:debug=true",
        "vif_skip_scale0=true",
    };
    static const unsigned two[] = { 2 };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence */
        { .name = "vif sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* every option set, every depth and sequence, two sizes */
        { .name = "vif options 17x17", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s17), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "vif options 177x99 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s177), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* other layouts (vif reads luma only), and larger frames */
        { .name = "vif 400", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_400),
          REPLAY_SET(sizes, s33), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "vif 422", REPLAY_SET(fmts, replay_422), REPLAY_SET(sizes, s67),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        { .name = "vif 353x147", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s353), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          REPLAY_SET(lengths, two) },
        /* a full HD frame, 8 and 16 bits */
        { .name = "vif 1920x1080", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, replay_8_16),
          REPLAY_SET(seqs, replay_near) },
    };
    twin_host_init("vif");
    replay_seed(0x9b05688c2b3e6c1full);
    for (unsigned s = 0; s < VIF_N_SCALES; s++)
        if (2 * VIF_HALF(s) + 1 != vif_filter_width[s])
            replay_fail("VIF_HALF(%u) is not half of the filter", s);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], run_case);
    static const TwinHostSetupCase refusals[] = {
        { 15, 16, 8, "", 0 },  { 16, 15, 8, "", 0 },  { 8, 8, 10, "", 0 },   { 1, 100, 8, "", 0 },
        { 16, 16, 8, "", 1 },  { 16, 16, 16, "", 1 }, { 16, 16, 7, "", 0 },  { 16, 16, 17, "", 0 },
    };
    twin_host_setup_refusals("vif", refusals, REPLAY_COUNT(refusals), setup);
    counts();
    return replay_report("vif");
}
