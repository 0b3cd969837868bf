/*
 * speed_chroma and speed_temporal twins on the host executor: their plans
 * and kernels (speed_plan.c, speed_kernels.h: per-sample kernels over the
 * images of a frame in a 3-D grid, the covariance and QR groups with
 * barriers, one work-item per block; the host's log2 and score) run through
 * the public API against the CPU extractors, every output compared as bits,
 * under both capability profiles (one decomposition serves both). Cases:
 * option sets (every prescale method shrinking and growing, the unit
 * prescale's crop, kernel scales at both ends, noise, floor, every variance
 * weighting mode, speed_use_ref_diff, clipping), layouts, depths 8 to 16,
 * odd and minimum sizes (the smallest accepted and the largest refused: a
 * case the CPU refuses the twin must refuse too), flat and one-sided-flat
 * images (singular covariances), tall planes, and frames of the test clips.
 * The scored cases of the matrices are sampled (EVERY; TVMAF_TEST_FULL=1
 * runs them whole): a group of the QR kernel is 640 fibers meeting at 145
 * barriers. The operations are checked against the former speed_cuda.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_math.h"
#include "../twin_host.h"

/* the scored cases of the matrices: one in EVERY by a fixed hash of their
 * number (a case the CPU refuses is always checked) */
#define EVERY 3

static void run_as(const ReplayCase *c, const char *feature)
{
    if (twin_host_refused(c, feature)) twin_host_n_refused++;
    else if (!twin_host_sampled_out()) twin_host_case(c, feature);
}

static void run_temporal(const ReplayCase *c)
{
    run_as(c, "speed_temporal");
}

static void run_chroma(const ReplayCase *c)
{
    run_as(c, "speed_chroma");
}

/* One instance's operations, as the old speed_cuda.c's per frame:
 * speed_chroma 4 loads and 7 statistics launches (+1 prescale, its images
 * cleared on the first frame), one read-back, a sync; speed_temporal frame
 * 0 one load and the sync, later frames the load, 7 (+1) launches and the
 * read-back (its prescaled images cleared on frame 1). */
static void counts(void)
{
    static const TwinHostOptOps chroma[] = {
        { "", { 3, 3 * 11, 3, 0, 3 } },
        { "speed_prescale=1.5", { 3, 3 * 12, 3, 1, 3 } },
    };
    static const TwinHostOptOps temporal[] = {
        { "", { 3, 1 + 2 * 8, 2, 0, 3 } },
        { "speed_prescale=0.5:speed_prescale_method=bicubic", { 3, 1 + 2 * 9, 2, 1, 3 } },
    };
    const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 336, .h = 200,
                           .n_frames = 3, .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH } };
    twin_host_counts_opts(c, "speed_chroma", chroma, REPLAY_COUNT(chroma),
                          twin_host_one_instance);
    twin_host_counts_opts(c, "speed_temporal", temporal, REPLAY_COUNT(temporal),
                          twin_host_one_instance);
}

int main(void)
{
    twin_host_init(NULL); /* two features */
    replay_seed(0x5eed5eed12345678ull);

    /* every accepted kernel scale keeps the filters within SPEED_MAX_FW, and
     * speed_pair enumerates the lower triangle */
    static const double ks_list[] = { 1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 4.0 / 3,
                                      3.5 / 3, 3.75 / 3, 4.25 / 3, 5.0 / 3, 3.0, 1 / 2.25,
                                      1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111 };
    for (unsigned i = 0; i < REPLAY_COUNT(ks_list); i++)
        for (int e = -1; e <= 1; e++) {
            const float ks = (float)(ks_list[i] + e * 0.00099);
            if (ffilter_kernelscale_valid(ks) &&
                (ffilter_gaussian_width(1, ks) > SPEED_MAX_FW ||
                 ffilter_gaussian_width(SPEED_N_SCALES, ks) > SPEED_MAX_FW))
                replay_fail("kernel scale %g: %d taps > SPEED_MAX_FW", (double)ks,
                            ffilter_gaussian_width(1, ks));
        }
    for (int t = 0, x = 0; x < SPEED_NE; x++)
        for (int y = 0; y <= x; y++, t++) {
            int px, py;
            speed_pair(t, &px, &py);
            if (px != x || py != y) replay_fail("speed_pair(%d) = (%d, %d)", t, px, py);
        }
    replay_count("speed filter widths of every accepted kernel scale, speed_pair", 2);


    /* speed_temporal: layouts x sizes (the minimum 80x80 and one short of
     * it, odd) x depths x sequences */
    static const ReplaySize t_sizes[] = { { 80, 80 }, { 79, 80 }, { 80, 79 }, { 97, 161 },
                                          { 177, 99 }, { 243, 171 } };
    static const ReplayFill t_seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_SMOOTH, REPLAY_EDGES, REPLAY_LINES },
        { REPLAY_CONST0, REPLAY_CONST0, REPLAY_REF_FLAT }, /* still scenes: singular */
        { REPLAY_EXTREMES, REPLAY_INVERT, REPLAY_LEVELS },
    };
    const ReplayMatrix t_all = { .name = "speed_temporal layouts x sizes x depths x sequences",
                                 REPLAY_SET(fmts, replay_fmts), REPLAY_SET(sizes, t_sizes),
                                 REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, t_seqs),
                                 .n_frames = 3 };
    twin_host_sampled_matrix(&t_all, EVERY, run_temporal);

    static const char *const t_opts[] = {
        "speed_use_ref_diff=true", "speed_kernelscale=0.5", "speed_kernelscale=3.711340",
        "speed_kernelscale=1.5:speed_sigma_nn=0.9:speed_nn_floor=0.5",
        "speed_prescale=0.5", "speed_prescale=0.5:speed_prescale_method=bilinear",
        "speed_prescale=0.7:speed_prescale_method=bicubic",
        "speed_prescale=0.6:speed_prescale_method=lanczos4",
        "speed_prescale=1.5:speed_prescale_method=bicubic",
        "speed_prescale=1.3:speed_prescale_method=lanczos4",
        "speed_prescale=2.0:speed_prescale_method=bilinear", "speed_prescale=1.7",
        "speed_prescale=0.9995", "speed_prescale=1.0:speed_prescale_method=lanczos4",
        "speed_max_val=0.5",
    };
    static const ReplaySize t_osizes[] = { { 177, 133 }, { 161, 160 } };
    static const ReplayFill t_oseqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_EDGES },
    };
    const ReplayMatrix t_opt = { .name = "speed_temporal options", REPLAY_SET(opts, t_opts),
                                 REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, t_osizes),
                                 REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, t_oseqs),
                                 .n_frames = 3 };
    twin_host_sampled_matrix(&t_opt, EVERY, run_temporal);

    /* speed_chroma: layouts x sizes (each layout's minimum and one short of
     * it) x depths x fills */
    static const ReplaySize c_sizes[] = { { 159, 159 }, { 158, 159 }, { 159, 158 },
                                          { 160, 80 }, { 80, 80 }, { 193, 171 }, { 331, 250 } };
    static const ReplayFill c_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EDGES },
        { REPLAY_CONST0 }, { REPLAY_REF_FLAT }, { REPLAY_EQUAL }, { REPLAY_LINES_DIM },
        { REPLAY_EXTREMES },
    };
    const ReplayMatrix c_all = { .name = "speed_chroma layouts x sizes x depths x fills",
                                 REPLAY_SET(fmts, replay_fmts), REPLAY_SET(sizes, c_sizes),
                                 REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, c_fills),
                                 .n_frames = 2 };
    twin_host_sampled_matrix(&c_all, EVERY, run_chroma);

    static const char *const c_opts[] = {
        "speed_weight_var_mode=1", "speed_weight_var_mode=2", "speed_weight_var_mode=3",
        "speed_weight_var_mode=4", "speed_weight_var_mode=5", "speed_weight_var_mode=6",
        "speed_kernelscale=0.5", "speed_kernelscale=3.711340", "speed_kernelscale=0.711111",
        "speed_sigma_nn=0.1:speed_nn_floor=1.0", "speed_max_val=1.0",
        "speed_prescale=0.5", "speed_prescale=0.5:speed_prescale_method=bilinear",
        "speed_prescale=0.6:speed_prescale_method=bicubic",
        "speed_prescale=0.8:speed_prescale_method=lanczos4",
        "speed_prescale=1.5:speed_prescale_method=bicubic",
        "speed_prescale=1.3:speed_prescale_method=lanczos4",
        "speed_prescale=2.0:speed_prescale_method=bilinear", "speed_prescale=2.5",
        "speed_prescale=0.9995:speed_weight_var_mode=3",
    };
    static const ReplaySize c_osizes[] = { { 331, 250 }, { 241, 201 } };
    static const ReplayFill c_ofills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_NEAR, REPLAY_RANDOM }, { REPLAY_REF_FLAT },
    };
    const ReplayMatrix c_opt = { .name = "speed_chroma options", REPLAY_SET(opts, c_opts),
                                 REPLAY_SET(fmts, replay_yuv), REPLAY_SET(sizes, c_osizes),
                                 REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, c_ofills),
                                 .n_frames = 2 };
    twin_host_sampled_matrix(&c_opt, EVERY, run_chroma);

    /* singular covariances, every case run: flat images, one flat side, a
     * still scene; and a regular pair */
    static const ReplaySize c_min[] = { { 159, 159 } }, t_min[] = { { 80, 80 } };
    static const ReplayFill c_flat[][REPLAY_MAX_FRAMES] = {
        { REPLAY_CONST0 }, { REPLAY_REF_FLAT }, { REPLAY_RANDOM },
    };
    static const ReplayFill t_still[][REPLAY_MAX_FRAMES] = {
        { REPLAY_CONST0, REPLAY_CONST0, REPLAY_REF_FLAT },
    };
    const ReplayMatrix c_sing = { .name = "speed_chroma singular covariances",
                                  REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, c_min),
                                  REPLAY_SET(depths, replay_d8), REPLAY_SET(seqs, c_flat),
                                  .n_frames = 1 };
    replay_matrix(&c_sing, run_chroma);
    const ReplayMatrix t_sing = { .name = "speed_temporal a still scene",
                                  REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, t_min),
                                  REPLAY_SET(depths, replay_d8), REPLAY_SET(seqs, t_still),
                                  .n_frames = 3 };
    replay_matrix(&t_sing, run_temporal);

    /* tall planes: several groups in y */
    static const ReplaySize tall[] = { { 161, 340 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM, REPLAY_NEAR } };
    const ReplayMatrix g_t = { .name = "speed_temporal tall planes", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, rnd), .n_frames = 2 };
    twin_host_sampled_matrix(&g_t, EVERY, run_temporal);
    const ReplayMatrix g_c = { .name = "speed_chroma tall planes", REPLAY_SET(fmts, replay_444),
                               REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, rnd), .n_frames = 1 };
    twin_host_sampled_matrix(&g_c, EVERY, run_chroma);

    const enum TvmafPixelFormat f420 = TVMAF_PIX_FMT_YUV420P;
    const char *const T = "speed_temporal", *const C = "speed_chroma";
    /* a clip not there is left out (the large ones may be) */
    const struct { const char *feature; ReplayClipSpec s; } clips[] = {
        { T, { "cups_576x324", f420, 8, 576, 324, 4, "" } },
        { C, { "cups_576x324", f420, 8, 576, 324, 3, "" } },
        { T, { "cups_576x324_10b", f420, 10, 576, 324, 3, "" } },
        { C, { "cups_576x324_10b", f420, 10, 576, 324, 3, "" } },
        { T, { "cups_576x324_12b", f420, 12, 576, 324, 3, "" } },
        { C, { "cups_576x324_12b", f420, 12, 576, 324, 3, "" } },
        { T, { "cups_576x324_16b", f420, 16, 576, 324, 3, "" } },
        { C, { "cups_576x324_16b", f420, 16, 576, 324, 3, "" } },
        { C, { "cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 8, 576, 324, 3, "" } },
        { C, { "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 3, "" } },
        { C, { "cups_576x324", f420, 8, 576, 324, 3,
               "speed_prescale=1.5:speed_prescale_method=lanczos4" } },
        { T, { "cups_576x324", f420, 8, 576, 324, 3,
               "speed_prescale=0.5:speed_prescale_method=bicubic" } },
        /* the option goldens' sets (testdata/options.tsv) */
        { C, { "cups_576x324", f420, 8, 576, 324, 2,
               "speed_prescale=0.5:speed_prescale_method=bicubic" } },
        { C, { "cups_576x324", f420, 8, 576, 324, 2,
               "speed_prescale=0.6:speed_prescale_method=lanczos4" } },
        { C, { "cups_576x324", f420, 8, 576, 324, 2,
               "speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
               "speed_max_val=45" } },
        { C, { "forest_1920x1080", f420, 8, 1920, 1080, 2,
               "speed_prescale=0.5:speed_prescale_method=bilinear" } },
        { T, { "forest_1920x1080", f420, 8, 1920, 1080, 3, "" } },
        { C, { "forest_1920x1080", f420, 8, 1920, 1080, 2, "" } },
        { T, { "checker_1920x1080", f420, 8, 1920, 1080, 3, "" } },
        { C, { "sky_1920x1080_10b", f420, 10, 1920, 1080, 2, "" } },
        { T, { "meadow_3840x2160", f420, 8, 3840, 2160, 2, "" } },
        { C, { "meadow_3840x2160", f420, 8, 3840, 2160, 1, "" } },
    };
    unsigned n_clips = 0;
    for (unsigned i = 0; i < REPLAY_COUNT(clips); i++) {
        ReplayClip cl;
        if (!replay_clip_open(&cl, &clips[i].s, clips[i].feature, 1)) continue;
        twin_host_frames(&cl.c, clips[i].feature, replay_clip_frames, &cl);
        replay_clip_close(&cl);
        n_clips++;
    }
    replay_count("speed clip cases", n_clips);
    printf("clip cases found in %s: %u of %u\n", replay_clips_dir(), n_clips,
           (unsigned)REPLAY_COUNT(clips));

    printf("refused by both: %u cases; scored cases of the matrices sampled out: %u of %u\n",
           twin_host_n_refused, twin_host_skipped, twin_host_seen);
    if (!twin_host_n_refused) replay_fail("no refused case was exercised");
    counts();
    return replay_report("speed");
}
