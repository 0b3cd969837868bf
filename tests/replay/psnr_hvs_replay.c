/*
 * psnr_hvs twin on the host executor: its plan and kernels (psnr_hvs_plan.c,
 * psnr_hvs_kernels.h: one work-item per block, scalar lanes, the group's
 * non-zero terms packed between barriers) run through the public API
 * against the CPU extractor (four blocks per vector), every output compared
 * as bits, under both capability profiles (one decomposition serves both).
 * Cases: every layout x depth (16 bits and 4:0:0 refused by the twin and by
 * the CPU alike) x sizes from one block to several groups of blocks (odd
 * sizes, chroma just 8 wide, sizes both refuse) x fills; 1920x1080;
 * samples beyond the bit depth (malformed input, whose DCT products wrap);
 * the test clips (TVMAF_CLIPS, else the source tree's .cache/clips) up to
 * 1920x1080, three frames each (with TVMAF_TEST_QUICK those up to 576x324).
 * The operations per frame are checked against the former psnr_hvs_cuda.c's.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/psnr_hvs/psnr_hvs_math.h"
#include "feature/psnr_hvs/psnr_hvs_state.h"
#include "../twin_host.h"

/* The CPU's setup decides; a refused case must be refused by both. */
static void run_frames(const ReplayCase *c, ReplayFrameSource source, void *src)
{
    PsnrHvsParams p;
    char msg[512];
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false, NULL };
    if (tvmaf_psnr_hvs_setup(&p, &vi, msg, sizeof(msg))) twin_host_must_refuse(c, "psnr_hvs");
    else twin_host_frames(c, "psnr_hvs", source, src);
}

static void run_case(const ReplayCase *c)
{
    run_frames(c, replay_fill_frames, (void *)c);
}

/* Samples anywhere in 0..65535 in pictures declaring 9 to 12 bits (input
 * the reference does not check): frame 0 random, frame 1 extremes, the
 * largest DCT values. */
static int wild_frames(void *src, TvmafPicture *ref, TvmafPicture *dis, unsigned k)
{
    (void)src;
    for (int pl = 0; pl < 3; pl++)
        for (unsigned y = 0; y < ref->h[pl]; y++)
            for (unsigned x = 0; x < ref->w[pl]; x++) {
                const unsigned a = replay_next() & 0xffff, e = replay_next();
                replay_put(ref, pl, x, y, k ? (e & 1 ? 0xffff : 0) : a);
                replay_put(dis, pl, x, y, k ? (e & 2 ? 0xffff : 0) : e & 0xffff);
            }
    return 0;
}

static void wild_samples(void)
{
    static const unsigned depths[] = { 9, 10, 12 };
    static const ReplaySize sizes[] = { { 64, 64 }, { 177, 99 } };
    for (unsigned b = 0; b < REPLAY_COUNT(depths); b++)
        for (unsigned s = 0; s < REPLAY_COUNT(sizes); s++) {
            ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV444P, .bpc = depths[b], .w = sizes[s].w,
                             .h = sizes[s].h, .opts = "", .n_frames = 2 };
            snprintf(c.what, sizeof(c.what), "wild samples %ux%u %u-bit 444", c.w, c.h, c.bpc);
            twin_host_frames(&c, "psnr_hvs", wild_frames, NULL);
        }
    replay_count("psnr_hvs samples beyond the bit depth",
                 REPLAY_COUNT(depths) * REPLAY_COUNT(sizes));
}

/* ---- the test clips ---- */

/* Clip NAME as its NAME.info describes it (KEY=VALUE lines), if psnr_hvs
 * scores its layout and it is no larger than max_area. */
static void clip(const char *dir, const char *name, size_t max_area, unsigned *n_clips)
{
    char path[1024], key[64], v[64];
    FILE *f = NULL;
    if (snprintf(path, sizeof(path), "%s/%s.info", dir, name) < (int)sizeof(path))
        f = fopen(path, "r");
    if (!f) {
        replay_fail("clip %s: no %s", name, path);
        return;
    }
    unsigned w = 0, h = 0, bpc = 0, frames = 0, layout = 0;
    while (fscanf(f, " %63[^=]=%63s", key, v) == 2) {
        unsigned *to = !strcmp(key, "width") ? &w : !strcmp(key, "height") ? &h
                     : !strcmp(key, "bitdepth") ? &bpc : !strcmp(key, "frames") ? &frames
                     : !strcmp(key, "layout") ? &layout : NULL;
        if (to) *to = (unsigned)atoi(v);
    }
    fclose(f);
    if (!w || !h || !bpc || !frames || !layout) {
        replay_fail("clip %s: unreadable %s", name, path);
        return;
    }
    const enum TvmafPixelFormat fmt = layout == 420 ? TVMAF_PIX_FMT_YUV420P
                                    : layout == 422 ? TVMAF_PIX_FMT_YUV422P
                                                    : TVMAF_PIX_FMT_YUV444P;
    /* not a layout psnr_hvs scores (none such among the clips now) */
    if (layout != 420 && layout != 422 && layout != 444) return;
    if ((size_t)w * h > max_area) return;
    (*n_clips)++;
    const ReplayClipSpec s = { name, fmt, bpc, w, h, frames < 3 ? frames : 3, "" };
    ReplayClip cl;
    if (!replay_clip_open(&cl, &s, NULL, 0)) return;
    run_frames(&cl.c, replay_clip_frames, &cl);
    replay_clip_close(&cl);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void clips(void)
{
    const char *dir = replay_clips_dir();
    const size_t max_area = replay_env_on("TVMAF_TEST_QUICK") ? 576 * 324 : 1920 * 1080;
    DIR *dp = opendir(dir);
    if (!dp) {
        replay_fail("no clips in %s (set TVMAF_CLIPS)", dir);
        return;
    }
    char *names[256];
    unsigned n = 0, n_clips = 0;
    for (struct dirent *e; (e = readdir(dp)) && n < REPLAY_COUNT(names);) {
        const size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".info")) {
            names[n] = malloc(len - 4);
            if (!names[n]) break;
            memcpy(names[n], e->d_name, len - 5);
            names[n++][len - 5] = 0;
        }
    }
    closedir(dp);
    qsort(names, n, sizeof(names[0]), by_name);
    for (unsigned i = 0; i < n; i++) {
        clip(dir, names[i], max_area, &n_clips);
        free(names[i]);
    }
    if (!n_clips) replay_fail("no clip in %s", dir);
    replay_count("psnr_hvs test clips", n_clips);
}

/* Per frame on 4:2:0: a launch per plane, two read-backs (counts, terms),
 * the wait; an instance clears the terms on its first frame (the old
 * psnr_hvs_cuda.c: memset once, 3 launches, 2 d2h, a sync). */
static void counts(void)
{
    static const TwinHostOptOps set = { "", { 3, 3 * 3, 3 * 2, 1, 3 * 1 } };
    const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                           .n_frames = 3, .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_RANDOM } };
    twin_host_counts_opts(c, "psnr_hvs", &set, 1, twin_host_one_instance);
}

int main(void)
{
    twin_host_init("psnr_hvs");
    replay_seed(0x5eed0f9a1c3b7d21ull);
    /* one block; one sample short of a second; 4:2:0 chroma just 8 (and 7)
     * wide; odd sizes; more blocks than one group's work-items */
    static const ReplaySize sizes[] = {
        { 8, 8 }, { 14, 14 }, { 15, 16 }, { 16, 16 }, { 64, 64 }, { 177, 99 }, { 99, 177 },
        { 7 * PHVS_THREADS + 8, 15 }, { 8, 7 }, { 1, 1 },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH, REPLAY_LEVELS },
        { REPLAY_EXTREMES, REPLAY_EQUAL }, { REPLAY_CONST0, REPLAY_CONSTMAX },
        { REPLAY_REF_FLAT, REPLAY_EDGES }, { REPLAY_INVERT, REPLAY_LINES },
        { REPLAY_LINES_DIM, REPLAY_SWEEP },
    };
    static const unsigned depths[] = { 8, 9, 10, 12, 16 };
    const ReplayMatrix all = { .name = "psnr_hvs layouts x sizes x depths x fills",
                               REPLAY_SET(fmts, replay_fmts), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, depths), REPLAY_SET(seqs, fills),
                               .n_frames = 2 };
    replay_matrix(&all, run_case);
    static const unsigned d8_12[] = { 8, 12 };
    const ReplayMatrix big = { .name = "psnr_hvs 1920x1080", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, replay_1080p), REPLAY_SET(depths, d8_12),
                               REPLAY_SET(seqs, replay_near) };
    replay_matrix(&big, run_case);
    wild_samples();
    clips();
    twin_host_report_refused();
    counts();
    return replay_report("psnr_hvs");
}
