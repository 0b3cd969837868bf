/*
 * float_motion twin on the host executor: its plan and kernels
 * (float_motion_plan.c, float_motion_kernels.h: the ring of blurred
 * reference planes zeroed on the first frame, one work-item per blurred
 * sample, one per row of |a - b|, the host adding the rows) run through the
 * public API against the CPU extractor, every output of every frame and the
 * end of the stream compared as bits, under both capability profiles (one
 * decomposition serves both). Temporal: each case's frames follow one
 * another (a relative fill is the previous frame plus noise). Option sets
 * cover the filter sizes, motion_add_uv and motion_add_scale1 (alone and
 * together, on 4:2:0, 4:2:2 and 4:4:4), motion_force_zero and the scaling
 * options. The operations are checked against the former
 * float_motion_cuda.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_motion/float_motion_math.h"
#include "../twin_host.h"

/* A case's frames as a sequence: frame k from frame k-1 (replay_fill_next);
 * the CPU extractor reads the reference only, the distorted is the same. */
typedef struct Sequence {
    const ReplayCase *c;
    TvmafPicture prev;
} Sequence;

static int sequence_frames(void *src, TvmafPicture *ref, TvmafPicture *dis, unsigned k)
{
    Sequence *s = src;
    if (k) {
        replay_fill_next(ref, &s->prev, s->c->fills[k], k);
        tvmaf_picture_unref(&s->prev);
    } else {
        replay_fill_next(ref, NULL, s->c->fills[0], 0);
    }
    if (replay_copy_picture(&s->prev, ref)) return -1;
    for (int pl = 0; pl < replay_n_planes(ref); pl++)
        for (unsigned y = 0; y < ref->h[pl]; y++)
            for (unsigned x = 0; x < ref->w[pl]; x++)
                replay_put(dis, pl, x, y, replay_get(ref, pl, x, y));
    /* the last frame's copy is not needed */
    if (k + 1 == s->c->n_frames) tvmaf_picture_unref(&s->prev);
    return 0;
}

static void run_case(const ReplayCase *c)
{
    Sequence s = { c, { 0 } };
    twin_host_frames(c, "float_motion", sequence_frames, &s);
}

/* The old float_motion_cuda.c per frame (n planes): frame 0 the ring and
 * the sums cleared, 2 launches per plane (the blur); then per motion and
 * plane one launch (+3 with motion_add_scale1) and one read-back when the
 * frame has a motion (frame 1: one, later frames: two); a sync per frame. */
static void counts(void)
{
    static const struct {
        const char *opts;
        enum TvmafPixelFormat fmt;
        unsigned planes, per_motion;
    } sets[] = {
        { "", TVMAF_PIX_FMT_YUV420P, 1, 1 },
        { "motion_add_uv=true", TVMAF_PIX_FMT_YUV420P, 3, 1 },
        { "motion_add_uv=true:motion_add_scale1=true", TVMAF_PIX_FMT_YUV444P, 3, 4 },
    };
    const unsigned n = 4, motions = 0 + 1 + 2 * (n - 2);
    for (unsigned i = 0; i < REPLAY_COUNT(sets); i++) {
        ReplayCase c = { .fmt = sets[i].fmt, .bpc = 8, .w = 64, .h = 36, .opts = sets[i].opts,
                         .n_frames = n,
                         .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_RANDOM } };
        snprintf(c.what, sizeof(c.what), "float_motion counts [%s]", sets[i].opts);
        const unsigned np = sets[i].planes;
        const TwinHostOps ops = { n, 2 * np * n + sets[i].per_motion * np * motions, n - 1, 2, n };
        for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++) {
            Sequence s = { &c, { 0 } };
            twin_host_count(&c, "float_motion", twin_host_profiles[p], NULL, sequence_frames, &s,
                            &ops);
        }
    }
}

int main(void)
{
    twin_host_init("float_motion");
    replay_seed(0x9e3779b97f4a7c15ull);
    static const char *const opts[] = {
        "",
        "motion_filter_size=3",
        "motion_filter_size=1",
        "motion_add_scale1=true",
        "motion_add_uv=true",
        "motion_add_uv=true:motion_add_scale1=true",
        "motion_add_uv=true:motion_add_scale1=true:motion_filter_size=3",
        "motion_force_zero=true",
        "debug=false:motion_fps_weight=2.5:motion_blend_factor=0.5:motion_blend_offset=3:"
        "motion_max_val=4",
    };
    static const ReplaySize sizes[] = {
        { 6, 6 }, { 7, 5 }, { 9, 11 }, { 64, 36 }, { 177, 99 },
        { FMOT_BLOCK_W + 1, FMOT_BLOCK_H + 1 }, { 2 * FMOT_BLOCK_W + 3, 7 },
    };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_RANDOM },
        { REPLAY_SMOOTH, REPLAY_SMOOTH, REPLAY_EDGES, REPLAY_LEVELS },
        { REPLAY_EXTREMES, REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_INVERT },
    };
    static const unsigned lengths[] = { 1, 2, 4 };
    const ReplayMatrix all = { .name = "float_motion options x layouts x sizes x depths x "
                                       "sequences x lengths",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, replay_yuv),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, seqs), REPLAY_SET(lengths, lengths) };
    replay_matrix(&all, run_case);
    static const char *const luma_opts[] = { "", "motion_add_scale1=true" };
    static const ReplaySize tall[] = { { 37, 53 }, { 9, 200 } };
    const ReplayMatrix grid = { .name = "float_motion tall planes", REPLAY_SET(opts, opts),
                                REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, tall),
                                REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, seqs),
                                .n_frames = 3 };
    replay_matrix(&grid, run_case);
    const ReplayMatrix big = { .name = "float_motion 1920x1080", REPLAY_SET(opts, luma_opts),
                               REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, replay_1080p),
                               REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, seqs),
                               .n_frames = 3 };
    replay_matrix(&big, run_case);
    /* the shared setup's refusals: a luma-only picture with motion_add_uv,
     * planes too small for the blur */
    static const ReplayCase refusals[] = {
        { .fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 8, .w = 64, .h = 36, .opts = "motion_add_uv=true",
          .n_frames = 1, .what = "float_motion refusal 4:0:0 with motion_add_uv" },
        { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 2, .h = 2, .opts = "", .n_frames = 1,
          .what = "float_motion refusal 2x2" },
    };
    for (unsigned i = 0; i < REPLAY_COUNT(refusals); i++)
        twin_host_must_refuse(&refusals[i], "float_motion");
    counts();
    return replay_report("float_motion");
}
