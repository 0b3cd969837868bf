/*
 * Host-executor drivers of the twins written once (gpu/tvd.h): a case's
 * frames go through the public API twice, on the CPU and on the host
 * executor (src/gpu/host/: the twin's own plan and kernels, every work-item
 * run on the CPU), and every output key of every frame, and the key sets,
 * are compared as bits. Each case runs under both capability profiles
 * (TVD_HOST_PROFILE=cuda: warp shuffles and 64-bit atomics; opencl: none),
 * so each decomposition a plan can choose is checked.
 *
 * The drivers' shared checks are here too: the operations counted against
 * the old twins' (TwinHostOps), refusals alike, a shared setup's refusals,
 * sampled matrices, totals past a twin's exact limit and clips.
 * The cases, fills and clips are replay_common.h's.
 */
#ifndef TVMAF_TESTS_TWIN_HOST_H
#define TVMAF_TESTS_TWIN_HOST_H

#include <stdlib.h>

#include "core/backend.h"
#include "gpu/host/host.h"
#include "replay_common.h"

static const char *const twin_host_profiles[] = { "cuda", "opencl" };
/* with a ladder's: each frame as the reference pass into an area and the
 * pair pass (the twins that serve ladders) */
static const char *const twin_host_ladder_profiles[] = { "cuda", "opencl", "ladder" };

/* The driver's feature (NULL when its cases name theirs): the one the
 * matrices' runners below score. */
static const char *twin_host_feature;

static inline void twin_host_init(const char *feature)
{
    twin_host_feature = feature;
    if (tvd_host_register()) {
        fprintf(stderr, "cannot register the host executor\n");
        exit(1);
    }
}

/* A context of backend b (replay_open); on the host executor, the feature
 * must run there. */
static inline TvmafContext *twin_host_open(enum TvmafBackend b, const char *feature,
                                           const char *opts, const char *what)
{
    TvmafContext *ctx = replay_open(b, feature, opts, what);
    if (ctx && b != TVMAF_BACKEND_CPU) {
        const char *ran = tvmaf_feature_backend(ctx, feature);
        if (!ran || strcmp(ran, tvmaf_backend_name(b)))
            replay_fail("%s: feature %s runs on %s, not on the host executor", what, feature,
                        ran ? ran : "nothing");
    }
    return ctx;
}

/* Every key of every frame, and the aggregates, of both contexts as bits. */
static inline void twin_host_compare(TvmafContext *cpu, TvmafContext *dev, unsigned n_frames,
                                     const char *what)
{
    const unsigned nk = tvmaf_score_key_count(cpu);
    if (nk != tvmaf_score_key_count(dev))
        replay_fail("%s: %u keys on the CPU, %u on the host executor", what, nk,
                    tvmaf_score_key_count(dev));
    for (unsigned k = 0; k < nk; k++) {
        const char *key = tvmaf_score_key(cpu, k);
        for (unsigned i = 0; i < n_frames; i++) {
            double a, b;
            const int ea = tvmaf_feature_score_at_index(cpu, key, &a, i);
            const int eb = tvmaf_feature_score_at_index(dev, key, &b, i);
            if (ea != eb) replay_fail("%s: %s frame %u: present on one side only", what, key, i);
            else if (!ea) replay_check_bits(what, key, i, a, b);
        }
    }
    const unsigned na = tvmaf_aggregate_count(cpu);
    for (unsigned i = 0; i < na; i++) {
        const char *key = tvmaf_aggregate_key(cpu, i);
        double a, b;
        if (tvmaf_aggregate_score(cpu, key, &a) || tvmaf_aggregate_score(dev, key, &b))
            replay_fail("%s: aggregate %s missing", what, key);
        else replay_check_bits(what, key, 0, a, b);
    }
}

/* Case c of `feature` on frames from source, under one profile. */
static inline void twin_host_profile(const ReplayCase *c, const char *feature,
                                     ReplayFrameSource source, void *src, const char *profile)
{
    char what[320];
    snprintf(what, sizeof(what), "%s {%s}", c->what, profile);
    setenv("TVD_HOST_PROFILE", profile, 1);
    TvmafContext *cpu = twin_host_open(TVMAF_BACKEND_CPU, feature, c->opts, what);
    TvmafContext *dev = cpu ? twin_host_open(TVMAF_BACKEND_HOST, feature, c->opts, what) : NULL;
    unsigned k = 0;
    for (; dev && k < c->n_frames; k++) {
        TvmafPicture ref, dis;
        if (replay_pictures(c, &ref, &dis)) break;
        int err = source(src, &ref, &dis, k);
        if (err) replay_fail("%s: cannot read frame %u", what, k);
        if (!err) err = replay_cpu_read(cpu, &ref, &dis, k, what);
        if (!err && (err = replay_cpu_read(dev, &ref, &dis, k, what)))
            replay_fail("%s: host executor frame %u: %s", what, k, tvmaf_last_error(dev));
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
        if (err) break;
    }
    if (dev && k == c->n_frames) {
        if (tvmaf_flush(cpu) || tvmaf_flush(dev))
            replay_fail("%s: flush: %s / %s", what, tvmaf_last_error(cpu), tvmaf_last_error(dev));
        else twin_host_compare(cpu, dev, c->n_frames, what);
    }
    tvmaf_close(dev);
    tvmaf_close(cpu);
}

/* Case c under the given profiles: every one with TVMAF_TEST_FULL=1 (the
 * whole sweep, as scripts/test's header says), else one per case in turn,
 * so a matrix still runs every profile on every class of its cases within
 * the tests' time budget. */
static unsigned twin_host_turn;

static inline void twin_host_frames_in(const ReplayCase *c, const char *feature,
                                       ReplayFrameSource source, void *src,
                                       const char *const *profiles, unsigned n)
{
    if (replay_env_on("TVMAF_TEST_FULL")) {
        for (unsigned p = 0; p < n; p++) twin_host_profile(c, feature, source, src, profiles[p]);
        return;
    }
    twin_host_profile(c, feature, source, src, profiles[twin_host_turn++ % n]);
}

/* Case c under every profile, whatever TVMAF_TEST_FULL says (a case a
 * driver counts on in each). */
static inline void twin_host_frames_all(const ReplayCase *c, const char *feature,
                                        ReplayFrameSource source, void *src)
{
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        twin_host_profile(c, feature, source, src, twin_host_profiles[p]);
}

static inline void twin_host_frames(const ReplayCase *c, const char *feature,
                                    ReplayFrameSource source, void *src)
{
    twin_host_frames_in(c, feature, source, src, twin_host_profiles,
                        REPLAY_COUNT(twin_host_profiles));
}

static inline void twin_host_case(const ReplayCase *c, const char *feature)
{
    twin_host_frames(c, feature, replay_fill_frames, (void *)c);
}

/* Whether case c is refused: the CPU extractor refuses its options when the
 * feature is named, or its first frame or the flush; then the twin on the
 * host executor must refuse it too (counted as a case). 0 when the CPU
 * scores it (nothing counted: the caller runs the case). */
static inline int twin_host_refused(const ReplayCase *c, const char *feature)
{
    static const enum TvmafBackend backends[2] = { TVMAF_BACKEND_CPU, TVMAF_BACKEND_HOST };
    char spec[256];
    replay_spec(spec, sizeof(spec), feature, c->opts);
    for (int i = 0; i < 2; i++) {
        const char *name = tvmaf_backend_name(backends[i]), *ran;
        TvmafConfiguration cfg = { .backend = backends[i] };
        TvmafContext *ctx = NULL;
        TvmafPicture ref, dis;
        int refused = 1;
        if (tvmaf_init(&ctx, &cfg)) {
            replay_fail("%s: %s context: init", c->what, name);
        } else if (tvmaf_use_feature(ctx, spec)) { /* refused by the options */
        } else if (!(ran = tvmaf_feature_backend(ctx, feature)) || strcmp(ran, name)) {
            replay_fail("%s: feature %s does not run on %s", c->what, feature, name);
        } else if (!replay_pictures(c, &ref, &dis)) {
            replay_fill(&ref, &dis, c->fills[0], 0);
            refused = tvmaf_read_pictures(ctx, &ref, &dis, 0) || tvmaf_flush(ctx);
        }
        tvmaf_close(ctx);
        if (!refused && i == 0) return 0;
        if (!refused) replay_fail("%s: scored on %s, refused on the CPU", c->what, name);
    }
    replay_cases++;
    return 1;
}

/* Case c's frames on the host executor alone, under one profile, scored on
 * the calling thread (n_threads 1: one instance of the twin, the frames in
 * order): for the totals of a twin that clears a buffer on each instance's
 * first frame, which a context's several instances would split as they
 * happen to take the frames. */
static inline void twin_host_one_instance(const ReplayCase *c, const char *feature,
                                          ReplayFrameSource source, void *src,
                                          const char *profile)
{
    char spec[256];
    setenv("TVD_HOST_PROFILE", profile, 1);
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_HOST, .n_threads = 1 };
    TvmafContext *ctx = NULL;
    int err = tvmaf_init(&ctx, &cfg) ||
              tvmaf_use_feature(ctx, replay_spec(spec, sizeof(spec), feature, c->opts));
    for (unsigned k = 0; !err && k < c->n_frames; k++) {
        TvmafPicture ref, dis;
        if ((err = replay_pictures(c, &ref, &dis))) break;
        if ((err = source(src, &ref, &dis, k))) {
            tvmaf_picture_unref(&ref);
            tvmaf_picture_unref(&dis);
        } else {
            err = tvmaf_read_pictures(ctx, &ref, &dis, k);
        }
    }
    if (err || tvmaf_flush(ctx))
        replay_fail("%s {%s}: host executor: %s", c->what, profile,
                    ctx ? tvmaf_last_error(ctx) : "init");
    tvmaf_close(ctx);
}

/* The operations a case of the old CUDA twin made, read from its code: per
 * frame (frames 0: every frame alike), or in all over `frames` frames (a
 * twin whose first frames differ from its steady state: a buffer cleared
 * once, a temporal twin's first frame). */
typedef struct TwinHostOps {
    unsigned long long frames, launches, copies, fills, syncs;
} TwinHostOps;

/* The operations the host executor counted for `feature` since the last
 * reset, under the profile last used, against want (a case). */
static inline void twin_host_check_ops(const char *feature, const char *what,
                                       const TwinHostOps *want)
{
    TvdCounts c;
    unsigned long long frames = 0;
    const int err = tvd_host_totals(feature, &c, &frames);
    if (err || !frames || (want->frames && frames != want->frames)) {
        replay_fail("%s: counts for %s over %llu frames, expected %llu", what, feature,
                    err ? 0 : frames, want->frames);
        return;
    }
    const unsigned long long per = want->frames ? 1 : frames; /* want's multiple */
    const unsigned long long got[4] = { c.launches, c.copies, c.fills, c.syncs };
    const unsigned long long exp[4] = { want->launches, want->copies, want->fills, want->syncs };
    static const char *const names[4] = { "launches", "copies", "fills", "syncs" };
    for (int i = 0; i < 4; i++)
        if (got[i] != exp[i] * per)
            replay_fail("%s: %s: %llu over %llu frames, expected %llu%s", what, names[i], got[i],
                        frames, exp[i], want->frames ? "" : " per frame");
    if (want->frames)
        printf("%s: over %llu frames %llu launches, %llu copies, %llu fills, %llu syncs\n", what,
               frames, c.launches, c.copies, c.fills, c.syncs);
    else
        printf("%s: per frame %llu launches, %llu copies, %llu fills, %llu syncs\n", what,
               c.launches / frames, c.copies / frames, c.fills / frames, c.syncs / frames);
    replay_cases++;
}

/* How a case runs under one profile: twin_host_profile (both sides, compared),
 * twin_host_one_instance or a driver's own. */
typedef void (*TwinHostRun)(const ReplayCase *c, const char *feature, ReplayFrameSource source,
                            void *src, const char *profile);

/* Case c's operations under `profile`: the totals reset, c run by `run`
 * (NULL: twin_host_profile) on frames from source (NULL: c's fills), checked
 * against want as "WHAT {PROFILE}". */
static inline void twin_host_count(const ReplayCase *c, const char *feature,
                                   const char *profile, TwinHostRun run,
                                   ReplayFrameSource source, void *src, const TwinHostOps *want)
{
    char what[400];
    snprintf(what, sizeof(what), "%s {%s}", c->what, profile);
    tvd_host_totals_reset();
    (run ? run : twin_host_profile)(c, feature, source ? source : replay_fill_frames,
                                    source ? src : (void *)c, profile);
    twin_host_check_ops(feature, what, want);
}

/* Case c's operations on its fills under each of twin_host_profiles: want[p]
 * for the p-th, the last of the n_want for those after. */
static inline void twin_host_counts(const ReplayCase *c, const char *feature,
                                    const TwinHostOps *want, unsigned n_want)
{
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        twin_host_count(c, feature, twin_host_profiles[p], NULL, NULL, NULL,
                        &want[p < n_want ? p : n_want - 1]);
}

/* An option set's operations: the case "FEATURE counts [OPTS]". */
typedef struct TwinHostOptOps {
    const char *opts;
    TwinHostOps ops;
} TwinHostOptOps;

/* Case c (its layout, size, frames and fills) under each option set of
 * sets in turn, each under every profile, run by `run` (NULL:
 * twin_host_profile) and checked against the set's operations. */
static inline void twin_host_counts_opts(ReplayCase c, const char *feature,
                                         const TwinHostOptOps *sets, unsigned n, TwinHostRun run)
{
    for (unsigned i = 0; i < n; i++) {
        c.opts = sets[i].opts;
        snprintf(c.what, sizeof(c.what), "%s counts [%s]", feature, c.opts);
        for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
            twin_host_count(&c, feature, twin_host_profiles[p], run, NULL, NULL, &sets[i].ops);
    }
}

/* ---- the cases a driver checks beyond the bits ---- */

/* Cases refused by both sides, and the matrices' sampling: a sampled case is
 * run one in twin_host_every, by a fixed hash of its number (a driver sets
 * twin_host_every to 1 under TVMAF_TEST_FULL=1). */
static unsigned twin_host_n_refused, twin_host_every = 1, twin_host_seen, twin_host_skipped;

static inline int twin_host_sampled_out(void)
{
    if (twin_host_every < 2 || !((++twin_host_seen * 2654435761u >> 16) % twin_host_every))
        return 0;
    twin_host_skipped++;
    return 1;
}

/* Matrix m run by `run`, a sampled runner: one scored case in `every`
 * (every one under TVMAF_TEST_FULL=1). */
static inline void twin_host_sampled_matrix(const ReplayMatrix *m, unsigned every,
                                            void (*run)(const ReplayCase *))
{
    const unsigned before = twin_host_every;
    twin_host_every = replay_env_on("TVMAF_TEST_FULL") ? 1 : every;
    replay_matrix(m, run);
    twin_host_every = before;
}

/* Case c refused by both sides (counted), or else scored and compared. */
static inline void twin_host_case_or_refused(const ReplayCase *c, const char *feature)
{
    if (twin_host_refused(c, feature)) twin_host_n_refused++;
    else twin_host_case(c, feature);
}

/* Runners of a matrix (replay_matrix) of the driver's feature: every case
 * scored; refused by both or scored; the same, sampled. */
static inline void twin_host_run(const ReplayCase *c)
{
    twin_host_case(c, twin_host_feature);
}

static inline void twin_host_run_or_refused(const ReplayCase *c)
{
    twin_host_case_or_refused(c, twin_host_feature);
}

static inline void twin_host_run_sampled(const ReplayCase *c)
{
    if (!twin_host_sampled_out()) twin_host_case_or_refused(c, twin_host_feature);
}

/* Case c, which the CPU extractor must refuse: both sides refuse it. */
static inline void twin_host_must_refuse(const ReplayCase *c, const char *feature)
{
    if (!twin_host_refused(c, feature)) replay_fail("%s: the CPU extractor scored it", c->what);
    twin_host_n_refused++;
}

/* The refused and sampled-out cases' line; a driver that has refusals must
 * have exercised one. */
static inline void twin_host_report_refused(void)
{
    printf("refused by both: %u cases; sampled out: %u cases\n", twin_host_n_refused,
           twin_host_skipped);
    if (!twin_host_n_refused) replay_fail("no refused case was exercised");
}

/* ---- totals past a twin's exact limit ---- */

/*
 * A twin whose device totals saturate at a limit (FPIC_UNITS_EXACT), past
 * which its finish kernel falls back to the CPU's loop in one work-item.
 * Large cases reach the limit for real: 4:0:0 16-bit 4K pictures of the
 * given fills, and one 4096x2048 10-bit picture pair whose samples are far
 * above 10 bits (scored as they are), each sample `base | (random & mask)
 * << shift` (ref [0], dis [1]). `past` counts the totals of a frame pair
 * past the limit from the exact sums (so the cases check that they reach
 * it); at least want_big (the 4K fills) and want_above (the 10-bit pair)
 * are expected per profile.
 */
typedef struct TwinHostLimit {
    const char *feature, *unit; /* unit: what `past` counts, for the report */
    const ReplayFill (*fills)[REPLAY_MAX_FRAMES];
    unsigned n_fills;
    unsigned base[2], mask[2], shift[2];
    unsigned (*past)(const TvmafPicture *ref, const TvmafPicture *dis);
    unsigned want_big, want_above;
} TwinHostLimit;

static const TwinHostLimit *twin_host_limit; /* the one twin_host_past_limit runs */
static unsigned twin_host_n_past;

static inline int twin_host_limit_fills(void *src, TvmafPicture *ref, TvmafPicture *dis,
                                        unsigned k)
{
    replay_fill_frames(src, ref, dis, k);
    twin_host_n_past += twin_host_limit->past(ref, dis);
    return 0;
}

static inline int twin_host_limit_above(void *src, TvmafPicture *ref, TvmafPicture *dis,
                                        unsigned k)
{
    const TwinHostLimit *l = twin_host_limit;
    (void)src;
    (void)k;
    for (unsigned y = 0; y < ref->h[0]; y++)
        for (unsigned x = 0; x < ref->w[0]; x++) {
            replay_put(ref, 0, x, y, l->base[0] | (replay_next() & l->mask[0]) << l->shift[0]);
            replay_put(dis, 0, x, y, l->base[1] | (replay_next() & l->mask[1]) << l->shift[1]);
        }
    twin_host_n_past += l->past(ref, dis);
    return 0;
}

/* Each source runs once per profile, whatever TVMAF_TEST_FULL says. */
static inline void twin_host_limit_run(const ReplayCase *c)
{
    twin_host_frames_all(c, twin_host_limit->feature, twin_host_limit_fills, (void *)c);
}

static inline void twin_host_past_limit(const TwinHostLimit *l)
{
    static const ReplaySize s4k[] = { { 3840, 2160 } };
    const unsigned np = REPLAY_COUNT(twin_host_profiles);
    char name[96];
    snprintf(name, sizeof(name), "%s 4K 16-bit past the limit", l->feature);
    const ReplayMatrix big = { .name = name, REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s4k),
                               REPLAY_SET(depths, replay_d16), .seqs = l->fills,
                               .n_seqs = l->n_fills };
    twin_host_limit = l;
    replay_matrix(&big, twin_host_limit_run);
    const unsigned n_big = twin_host_n_past;
    ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 10, .w = 4096, .h = 2048,
                     .opts = "", .n_frames = 1 };
    snprintf(c.what, sizeof(c.what), "%s 4096x2048 10-bit with 16-bit samples", l->feature);
    twin_host_frames_all(&c, l->feature, twin_host_limit_above, NULL);
    replay_count(c.what, 1);
    if (n_big < l->want_big * np || twin_host_n_past - n_big < l->want_above * np)
        replay_fail("the large cases did not reach the limit (%u and %u %s)", n_big,
                    twin_host_n_past - n_big, l->unit);
    printf("%s past the limit: %u\n", l->unit, twin_host_n_past);
}

/* ---- a shared setup's refusals ---- */

/* A 4:2:0 video of this size and depth with these options, and whether the
 * feature's shared setup accepts it. */
typedef struct TwinHostSetupCase {
    unsigned w, h, bpc;
    const char *opts;
    int ok;
} TwinHostSetupCase;

/* Each case through `setup` (the options parsed and the setup run: 0, or an
 * error and msg): accepted as the table says, or refused with -EINVAL and a
 * message naming the feature; a refused case of a depth the API takes is
 * refused by the CPU extractor too (replay_check_cpu_refuses). Counted as
 * one case, "FEATURE refusals". */
static inline void twin_host_setup_refusals(const char *feature, const TwinHostSetupCase *cases,
                                            unsigned n,
                                            int (*setup)(const char *opts,
                                                         const TvmafVideoInfo *vi, char *msg,
                                                         size_t len))
{
    char name[96];
    for (unsigned i = 0; i < n; i++) {
        const TwinHostSetupCase *t = &cases[i];
        const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, t->bpc, t->w, t->h, 0, false, NULL };
        char msg[256] = "";
        const int err = setup(t->opts, &vi, msg, sizeof(msg));
        if (t->ok ? err != 0 : (err != -EINVAL || !strstr(msg, feature)))
            replay_fail("refusal %ux%u %u-bit [%s]: err %d msg \"%s\"", t->w, t->h, t->bpc,
                        t->opts, err, msg);
        if (!t->ok && t->bpc >= 8 && t->bpc <= 16)
            replay_check_cpu_refuses(feature, t->opts, vi.pix_fmt, vi.bpc, vi.w, vi.h);
    }
    snprintf(name, sizeof(name), "%s refusals", feature);
    replay_count(name, 1);
}

/* Clip s under the profiles (twin_host_frames), counted as a case; a missing
 * clip fails. */
static inline void twin_host_clip(const ReplayClipSpec *s, const char *feature)
{
    ReplayClip cl;
    if (!replay_clip_open(&cl, s, NULL, 0)) return;
    twin_host_frames(&cl.c, feature, replay_clip_frames, &cl);
    replay_count(cl.c.what, 1);
    replay_clip_close(&cl);
}

#endif
