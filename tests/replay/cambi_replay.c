/*
 * cambi twin on the host executor: its plan and kernels (cambi_plan.c,
 * cambi_kernels.h) run through the public API against the CPU extractor,
 * every output of every frame compared as bits and the heat maps byte for
 * byte, under both capability profiles (the top-k passes with 64-bit
 * atomics; with 32-bit pairs). A case one side refuses (the options, the
 * geometry, a sample past the input's depth) must fail alike on the other,
 * with the same message. Cases: banded ramps (which score), the common
 * fills, layouts, depths 8 to 16, the smallest accepted sizes and the
 * largest refused, narrow and short frames whose scales are narrower than
 * half the window, the options, the high-resolution speed-up, samples past
 * the depth, and frames of the test clips (TVMAF_CLIPS, else
 * TVMAF_CLIPS_DEFAULT, else the source tree's .cache/clips). Then the
 * operations per frame against the old CUDA twin's, on cases compared as
 * bits too, among them pictures whose top-k sums reach 2^53 units (their
 * c-values read back and pooled by the CPU's quickselect): where the
 * device's select goes wrong in a way that sends a scale to that pooling,
 * the bits stay right and the extra read-back is what shows it.
 *
 * The host executor runs each work-item of the top-k passes as a fiber, so
 * the matrices are sampled, one case in twin_host_every by a fixed hash of the
 * case's number, and the clips are three short ones; TVMAF_TEST_FULL=1 runs
 * everything (4 minutes here, unloaded), TVMAF_TEST_QUICK no clip above 576x324.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feature/cambi/cambi_math.h"
#include "../twin_host.h"

/* the driver's own fills (after replay_common.h's) */
enum {
    FILL_BANDS = REPLAY_N_FILLS, /* slow ramps: flat bands one code apart */
    FILL_BANDS_NOISY,            /* ramps with noisy patches and dither */
    FILL_STEPS,                  /* bands of 1 to 6 codes, both directions */
    FILL_RANGE_BAD,              /* bands, one sample past the depth (9..15 bits) */
    FILL_BLOCKS,                 /* 8x8 blocks 23 codes apart: top-k sums past 2^53 units */
};

/* a 10-bit code as a sample of depth bpc that converts back to it */
static unsigned from10(unsigned v10, unsigned bpc)
{
    if (bpc <= 8) return v10 >> 2;
    if (bpc == 9) return v10 >> 1;
    return v10 << (bpc - 10);
}

static void fill_own(TvmafPicture *pic, int kind, unsigned seed, int is_ref)
{
    const unsigned bpc = pic->bpc, maxv = (1u << bpc) - 1;
    const unsigned w = pic->w[0], h = pic->h[0];
    const unsigned step8 = bpc <= 8 ? 1 : 0; /* 8-bit: one code is 4 at 10 bits */
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            unsigned v10;
            switch (kind) {
            case FILL_BANDS_NOISY: {
                const unsigned base = 200 + (seed * 37) % 500;
                v10 = base + ((x * 3 + y * (1 + seed % 3)) / (17 + seed % 11)) * (step8 ? 4 : 1);
                if (((x / 24 + y / 20 + seed) % 5) == 0) v10 += replay_next() % 9;
                if (!is_ref && (replay_next() % 7) == 0) v10 += 1;
                break;
            }
            case FILL_STEPS: {
                const unsigned band = (x + (seed % 2 ? y : h - y)) / (13 + seed % 7);
                const unsigned amp = 1 + (band + seed) % 6;
                v10 = 300 + (seed * 91) % 400 + (band % 9) * amp * (step8 ? 4 : 1);
                if (!is_ref && x % 31 == 0) v10 += 2;
                break;
            }
            case FILL_BLOCKS: /* the largest contrast weight, 9, in every window */
                v10 = 400 + 23 * ((x / 8 + y / 8 + (is_ref ? 0 : seed)) % 2);
                break;
            default: { /* FILL_BANDS, FILL_RANGE_BAD */
                const unsigned base = 64 + (seed * 53) % 700;
                v10 = base + ((x + 2 * y + seed) / (21 + seed % 5)) * (step8 ? 4 : 1);
                if (!is_ref && ((x ^ y) % 13) == 0) v10 += 4;
                break;
            }
            }
            unsigned s = from10(v10 > 1023 ? 1023 - (v10 % 64) : v10, bpc);
            replay_put(pic, 0, x, y, s > maxv ? maxv : s);
        }
    if (kind == FILL_RANGE_BAD && bpc > 8 && bpc < 16)
        replay_put(pic, 0, (seed * 7) % w, (seed * 3) % h, maxv + 1 + seed % 5);
    for (int pl = 1; pl < replay_n_planes(pic); pl++)
        for (unsigned y = 0; y < pic->h[pl]; y++)
            for (unsigned x = 0; x < pic->w[pl]; x++) replay_put(pic, pl, x, y, (maxv + 1) / 2);
}

static int fill_source(void *src, TvmafPicture *r, TvmafPicture *d, unsigned k)
{
    const ReplayCase *c = src;
    const int kind = (int)c->fills[k];
    const unsigned seed = k + c->w;
    if (kind < REPLAY_N_FILLS) {
        replay_fill(r, d, (ReplayFill)kind, seed);
    } else {
        fill_own(r, kind, seed, 1);
        fill_own(d, kind, seed + 1, 0);
    }
    return 0;
}

/* ---- heat maps ---- */

static char heat_dir[300];

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        const int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* opts with heatmaps_path=DIR replaced by DIR/which */
static const char *heat_opts(const char *opts, const char *which, char *buf, size_t len)
{
    const char *at = strstr(opts, "heatmaps_path=");
    if (!at) return opts;
    const char *end = strchr(at, ':');
    snprintf(buf, len, "%.*s%.*s/%s%s", (int)(at - opts), opts,
             (int)(end ? end - at : (ptrdiff_t)strlen(at)), at, which, end ? end : "");
    return buf;
}

/* Every heat map file (named by the encode size) the same on both sides. */
static void check_heatmaps(const ReplayCase *c, const char *what)
{
    unsigned w = c->w, h = c->h;
    const char *e = strstr(c->opts, "enc_width=");
    if (e) { /* a downscaled encode is scored at its own size */
        const unsigned ew = (unsigned)atoi(e + 10);
        const unsigned eh = (unsigned)atoi(strstr(c->opts, "enc_height=") + 11);
        if (ew <= w && eh <= h) w = ew, h = eh;
    }
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        char a[600], b[600];
        snprintf(a, sizeof(a), "%s/twin/cambi_heatmap_scale_%d_%ux%u_16b.gray", heat_dir, k, w, h);
        snprintf(b, sizeof(b), "%s/cpu/cambi_heatmap_scale_%d_%ux%u_16b.gray", heat_dir, k, w, h);
        if (!same_file(a, b)) replay_fail("%s: heat map %d differs (%s, %s)", what, k, a, b);
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
}

/* ---- cases ---- */

static unsigned n_range, n_scored, n_nonzero;

/* Case c on frames from source under one profile: the CPU and the host
 * executor both score every frame, identically, or both fail alike (a
 * TwinHostRun: the feature is cambi). */
static void run_profile(const ReplayCase *c, const char *feature, ReplayFrameSource source,
                        void *src, const char *profile)
{
    char what[320], ob[2][240];
    snprintf(what, sizeof(what), "%s {%s}", c->what, profile);
    setenv("TVD_HOST_PROFILE", profile, 1);
    TvmafContext *ctx[2] = {
        twin_host_open(TVMAF_BACKEND_CPU, feature, heat_opts(c->opts, "cpu", ob[0], 240), what),
        twin_host_open(TVMAF_BACKEND_HOST, feature, heat_opts(c->opts, "twin", ob[1], 240), what),
    };
    int failed[2] = { !ctx[0], !ctx[1] };
    for (unsigned k = 0; k < c->n_frames && !failed[0] && !failed[1]; k++) {
        TvmafPicture ref, dis;
        if (replay_pictures(c, &ref, &dis)) {
            failed[0] = failed[1] = 1; /* a failure already */
            break;
        }
        if (source(src, &ref, &dis, k)) {
            replay_fail("%s: cannot read frame %u", what, k);
            failed[0] = failed[1] = 1;
        } else {
            for (int i = 0; i < 2; i++)
                failed[i] = replay_read_copies(ctx[i], &ref, &dis, k) != 0;
        }
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
    }
    for (int i = 0; i < 2; i++)
        if (ctx[i] && !failed[i]) failed[i] = tvmaf_flush(ctx[i]) != 0;
    if (failed[0] != failed[1]) {
        replay_fail("%s: %s", what, failed[0] ? "the CPU refused, the host executor scored"
                                              : "the host executor refused, the CPU scored");
    } else if (failed[0] && ctx[0] && ctx[1]) {
        const char *m[2] = { tvmaf_last_error(ctx[0]), tvmaf_last_error(ctx[1]) };
        if (strcmp(m[0], m[1])) replay_fail("%s: refused as \"%s\" and \"%s\"", what, m[0], m[1]);
        if (strstr(m[0], "failed on frame")) n_range++;
        else twin_host_n_refused++;
    } else if (!failed[0]) {
        twin_host_compare(ctx[0], ctx[1], c->n_frames, what);
        if (strstr(c->opts, "heatmaps_path=")) check_heatmaps(c, what);
        for (unsigned k = 0; k < tvmaf_score_key_count(ctx[0]); k++)
            for (unsigned i = 0; i < c->n_frames; i++) {
                double v;
                n_scored++;
                if (!tvmaf_feature_score_at_index(ctx[0], tvmaf_score_key(ctx[0], k), &v, i))
                    n_nonzero += v != 0;
            }
    }
    tvmaf_close(ctx[1]);
    tvmaf_close(ctx[0]);
}

static void run_frames(const ReplayCase *c, ReplayFrameSource source, void *src)
{
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        run_profile(c, "cambi", source, src, twin_host_profiles[p]);
}

static void run_case(const ReplayCase *c)
{
    run_frames(c, fill_source, (void *)c);
}

static void run_sampled(const ReplayCase *c)
{
    if (!twin_host_sampled_out()) run_case(c);
}

/* ---- operations per frame ---- */

/*
 * The old CUDA twin's per frame (cambi_cuda.c at 37a0d7d, read from its code),
 * with P pictures (2 with full_ref):
 *   launches P x ([9 <= bpc <= 15] check + 1 load + [work_bits < 10] 2x2 mean
 *            + 2 flatness and mask + (4 + [halved]) decimations + 5 mode filters
 *            + 5 x [any gate] c-values + 5 scales x 3 passes x 2 top-k)
 *   copies   2 (top-k states, flags) + [heat maps] + 1 per picture read back
 *   fills    2 (flags, top-k states) + 5 x P x [no gate] (c-values set to 0)
 *   syncs    1 + [a picture read back]
 * The plan's syncs are 2 wherever the host decides on a read-back (full_ref,
 * or no heat maps): a wait for the states, then the frame's end, which the
 * old twin made only when a picture went back.
 */
typedef struct CountCase {
    const char *opts;
    enum TvmafPixelFormat fmt;
    unsigned bpc, w, h, fill;
    unsigned pics, check, dither, halved, gate, heat, back;
} CountCase;

static void counts(const CountCase *cc)
{
    const unsigned per_pic = cc->check + 1 + cc->dither + 2 + 4 + cc->halved + 5 +
                             5 * cc->gate + CAMBI_NUM_SCALES * CAMBI_TOPK_PASSES * 2;
    const unsigned launches = cc->pics * per_pic, copies = 2 + cc->heat + cc->back;
    const unsigned fills = 2 + 5 * cc->pics * !cc->gate, old_syncs = 1 + (cc->back > 0);
    const unsigned syncs = old_syncs + (!cc->back && (cc->pics == 2 || !cc->heat));
    ReplayCase c = { .fmt = cc->fmt, .bpc = cc->bpc, .w = cc->w, .h = cc->h, .opts = cc->opts,
                     .n_frames = 1, .fills = { (ReplayFill)cc->fill } };
    snprintf(c.what, sizeof(c.what), "cambi counts %ux%u %u-bit [%s] (old twin: %u/%u/%u/%u)",
             cc->w, cc->h, cc->bpc, cc->opts, launches, copies, fills, old_syncs);
    const TwinHostOps ops = { 0, launches, copies, fills, syncs };
    for (unsigned p = 0; p < REPLAY_COUNT(twin_host_profiles); p++)
        twin_host_count(&c, "cambi", twin_host_profiles[p], run_profile, fill_source, &c, &ops);
}

/* ---- frames of the test clips ---- */

/* The clips: a case marked `sampled` only with TVMAF_TEST_FULL=1, and with
 * TVMAF_TEST_QUICK none above 576x324 (the sanitizer pass); a missing clip
 * fails. */
static void clips(int full)
{
    const enum TvmafPixelFormat f420 = TVMAF_PIX_FMT_YUV420P;
    const struct { int sampled; ReplayClipSpec s; } clips[] = {
        { 0, { "cups_576x324", f420, 8, 576, 324, 2, "" } },
        { 1, { "cups_576x324", f420, 8, 576, 324, 2, "full_ref=true" } },
        { 1, { "cups_576x324_10b", f420, 10, 576, 324, 3, "" } },
        { 1, { "cups_576x324_12b", f420, 12, 576, 324, 3, "" } },
        { 0, { "cups_576x324_16b", f420, 16, 576, 324, 1, "" } },
        { 1, { "cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 8, 576, 324, 3, "" } },
        { 1, { "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 3, "" } },
        /* the option goldens' sets (testdata/options.tsv) */
        { 1, { "cups_576x324", f420, 8, 576, 324, 2, "topk=0.2:tvi_threshold=0.01" } },
        { 0, { "cups_576x324_10b", f420, 10, 576, 324, 1, "eotf=pq:max_log_contrast=3" } },
        { 1, { "forest_1920x1080", f420, 8, 1920, 1080, 2,
               "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17" } },
        { 1, { "forest_1920x1080", f420, 8, 1920, 1080, 2, "" } },
        { 1, { "sky_1920x1080_10b", f420, 10, 1920, 1080, 2, "" } },
        { 1, { "sky_1920x1080_10b", f420, 10, 1920, 1080, 1,
               "full_ref=true:src_width=1280:src_height=720" } },
        { 1, { "meadow_3840x2160", f420, 8, 3840, 2160, 1, "" } },
        { 1, { "meadow_3840x2160", f420, 8, 3840, 2160, 1, "cambi_high_res_speedup=2160" } },
    };
    const int quick = replay_env_on("TVMAF_TEST_QUICK");
    unsigned n = 0;
    for (unsigned i = 0; i < REPLAY_COUNT(clips); i++) {
        const ReplayClipSpec *s = &clips[i].s;
        ReplayClip cl;
        if ((clips[i].sampled && !full) || (quick && (size_t)s->w * s->h > 576 * 324) ||
            !replay_clip_open(&cl, s, NULL, 0))
            continue;
        run_frames(&cl.c, replay_clip_frames, &cl);
        replay_clip_close(&cl);
        n++;
    }
    replay_count("cambi clip cases", n);
}

int main(void)
{
    twin_host_init("cambi");
    replay_seed(0xcab1cab1cab1cab1ull);
    const int full = replay_env_on("TVMAF_TEST_FULL");
    char heat_opt[320];
    snprintf(heat_dir, sizeof(heat_dir), "/tmp/cambi_replay_%d", (int)getpid());
    mkdir(heat_dir, 0700);
    snprintf(heat_opt, sizeof(heat_opt), "heatmaps_path=%s", heat_dir);

    static const unsigned depths[] = { 8, 9, 10, 12, 16 };

    /* sizes: the smallest accepted (216 on one side; the height half a
     * window needs) and refused ones, narrow and short frames */
    static const ReplaySize sizes[] = { { 216, 216 }, { 215, 215 }, { 216, 2 }, { 216, 1 },
                                        { 2, 216 }, { 1, 216 }, { 300, 40 }, { 40, 300 },
                                        { 333, 217 }, { 577, 325 } };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS, (ReplayFill)FILL_BANDS_NOISY },
        { (ReplayFill)FILL_STEPS, REPLAY_CONST0 },
        { REPLAY_EDGES, (ReplayFill)FILL_BANDS },
    };
    const ReplayMatrix all = { .name = "cambi layouts x sizes x depths x sequences",
                               REPLAY_SET(fmts, replay_fmts), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, depths), REPLAY_SET(seqs, seqs),
                               .n_frames = 2 };
    twin_host_sampled_matrix(&all, 24, run_sampled);

    static const ReplayFill fills_more[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM }, { REPLAY_LEVELS }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_CONSTMAX }, { REPLAY_LINES }, { REPLAY_SWEEP },
    };
    static const ReplaySize s_more[] = { { 256, 256 }, { 217, 160 } };
    const ReplayMatrix more = { .name = "cambi common fills", REPLAY_SET(fmts, replay_420),
                                REPLAY_SET(sizes, s_more), REPLAY_SET(depths, replay_depths),
                                REPLAY_SET(seqs, fills_more), .n_frames = 1 };
    twin_host_sampled_matrix(&more, 8, run_sampled);

    /* options (the option goldens' sets among them) */
    const char *opts[] = {
        "topk=0.2:tvi_threshold=0.01", "full_ref=true", "eotf=pq:max_log_contrast=3",
        "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
        "topk=1.0", "cambi_topk=0.0001", "topk=0.3:cambi_topk=0.9", "tvi_threshold=1.0",
        "tvi_threshold=0.0001", "cambi_eotf=pq", "eotf=pq:cambi_eotf=bt1886",
        "max_log_contrast=0", "max_log_contrast=5", "max_log_contrast=4:tvi_threshold=0.005",
        "cambi_vis_lum_threshold=5", "cambi_vis_lum_threshold=100",
        "cambi_vis_lum_threshold=300", "eotf=pq:cambi_vis_lum_threshold=50",
        "window_size=15", "window_size=127", "window_size=100:max_log_contrast=5",
        "enc_width=320:enc_height=200", "enc_width=400:enc_height=180:enc_bitdepth=8",
        "enc_bitdepth=10", "enc_bitdepth=6", "enc_bitdepth=16", "enc_width=7680:enc_height=7680",
        "full_ref=true:src_width=400:src_height=240",
        "full_ref=true:src_width=320:src_height=200:enc_width=300:enc_height=180",
        "full_ref=true:src_width=640:src_height=400", "src_width=400:src_height=240",
        "full_ref=true:enc_bitdepth=8:topk=0.5", "cambi_max_val=0.5",
        "cambi_max_val=0:full_ref=true", "cambi_high_res_speedup=1440",
        "cambi_high_res_speedup=2160", "cambi_high_res_speedup=1080:window_size=127",
        heat_opt,
    };
    static const ReplaySize o_sizes[] = { { 577, 325 }, { 240, 216 } };
    static const ReplayFill o_seqs[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS_NOISY, (ReplayFill)FILL_STEPS },
    };
    const ReplayMatrix o_all = { .name = "cambi options", REPLAY_SET(opts, opts),
                                 REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, o_sizes),
                                 REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, o_seqs),
                                 .n_frames = 2 };
    twin_host_sampled_matrix(&o_all, 16, run_sampled);

    /* narrow frames with large windows: the last scales are narrower than
     * half the window, and the histograms read columns past them (what the
     * earlier scales left there) */
    static const char *const n_opts[] = { "window_size=127", "window_size=100:max_log_contrast=5",
                                          "window_size=127:full_ref=true" };
    static const ReplaySize n_sizes[] = { { 20, 300 }, { 12, 260 }, { 24, 216 }, { 9, 500 } };
    static const ReplayFill n_seqs[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS, (ReplayFill)FILL_STEPS },
    };
    const ReplayMatrix narrow = { .name = "cambi narrow frames", REPLAY_SET(opts, n_opts),
                                  REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, n_sizes),
                                  REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, n_seqs),
                                  .n_frames = 2 };
    twin_host_sampled_matrix(&narrow, 4, run_sampled);

    /* the high-resolution speed-up where it acts (the first scale halved) */
    const char *hr_opts[] = { "cambi_high_res_speedup=1080",
                              "cambi_high_res_speedup=1080:full_ref=true:src_width=1280:"
                              "src_height=720" };
    static const unsigned d10[] = { 10 };
    static const ReplayFill hr_seqs[][REPLAY_MAX_FRAMES] = { { (ReplayFill)FILL_BANDS_NOISY } };
    const ReplayMatrix hr = { .name = "cambi high-resolution speed-up", REPLAY_SET(opts, hr_opts),
                              REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, replay_1080p),
                              REPLAY_SET(depths, d10), REPLAY_SET(seqs, hr_seqs),
                              .n_frames = 1 };
    twin_host_sampled_matrix(&hr, 2, run_sampled);

    /* samples past the input's depth: both refuse the frame */
    static const unsigned d_bad[] = { 9, 10, 12, 15 };
    static const ReplayFill bad[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS, (ReplayFill)FILL_RANGE_BAD } };
    static const char *const bad_opts[] = { "", "full_ref=true" };
    static const ReplaySize bad_sizes[] = { { 240, 216 } };
    const ReplayMatrix m_bad = { .name = "cambi samples past the depth", REPLAY_SET(opts, bad_opts),
                                 REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, bad_sizes),
                                 REPLAY_SET(depths, d_bad), REPLAY_SET(seqs, bad),
                                 .n_frames = 2 };
    twin_host_sampled_matrix(&m_bad, 2, run_sampled);

    clips(full);

    /* default 8-bit; 10-bit full_ref; 16-bit heat maps; no gate; top-k sums
     * past 2^53 units (one picture read back, then both) */
    const char *big[] = { "window_size=127:topk=1.0:max_log_contrast=5",
                          "window_size=127:topk=1.0:max_log_contrast=5:full_ref=true" };
    const CountCase cc[] = {
        { "", TVMAF_PIX_FMT_YUV420P, 8, 320, 216, FILL_BANDS, 1, 0, 1, 0, 1, 0, 0 },
        { "full_ref=true", TVMAF_PIX_FMT_YUV420P, 10, 320, 216, FILL_BANDS, 2, 1, 0, 0, 1, 0, 0 },
        { heat_opt, TVMAF_PIX_FMT_YUV420P, 16, 320, 216, FILL_BANDS, 1, 0, 0, 0, 1, 1, 0 },
        { "cambi_vis_lum_threshold=300", TVMAF_PIX_FMT_YUV420P, 12, 320, 216, FILL_BANDS, 1, 1,
          0, 0, 0, 0, 0 },
        { big[0], TVMAF_PIX_FMT_YUV400P, 10, 960, 540, FILL_BLOCKS, 1, 1, 0, 0, 1, 0, 1 },
        { big[1], TVMAF_PIX_FMT_YUV400P, 10, 960, 540, FILL_BLOCKS, 2, 1, 0, 0, 1, 0, 2 },
    };
    for (unsigned i = 0; i < REPLAY_COUNT(cc); i++) counts(&cc[i]);

    printf("sampled: %u cases skipped (TVMAF_TEST_FULL=1 runs them); refused alike: %u; "
           "frames refused for their samples: %u; scores: %u, non-zero: %u\n", twin_host_skipped,
           twin_host_n_refused, n_range, n_scored, n_nonzero);
    if (!twin_host_n_refused) replay_fail("no refused case was exercised");
    if (!n_range) replay_fail("no sample past the depth was exercised");
    if (!n_nonzero) replay_fail("no case scored above 0");
    replay_cases -= twin_host_skipped;
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", heat_dir);
    if (system(cmd)) printf("could not remove %s\n", heat_dir);
    return replay_report("cambi");
}
