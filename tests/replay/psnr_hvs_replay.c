/*
 * Host replay of the psnr_hvs CUDA twin (psnr_hvs.cu), compared bit for bit
 * with the CPU extractor; no GPU needed.
 *
 * psnr_hvs_math.h is included with the device's scalar lanes
 * (PHVS_SCALAR_LANES: one block per thread, as the kernels compile it),
 * while the CPU extractor runs the same arithmetic four blocks per vector.
 * The decomposition is the header's: per plane, ceil(n / PHVS_THREADS) CUDA
 * blocks in a scrambled order, their threads in a scrambled order between
 * barriers: thread t computes block b's terms (phvs_block_at) into its
 * row of the shared stage and counts the non-zero ones (phvs_nonzero),
 * thread 0 sums the counts up, the threads pack their rows (phvs_pack) and
 * store the packed terms to the CUDA block's region, with its count; every
 * buffer, shared ones included, starts as garbage. The host adds each
 * plane's regions in order (phvs_regions_sum), scores (phvs_plane_score)
 * and converts as the CPU reports (phvs_db, phvs_combined). Cases: every layout x depth (16 bits and 4:0:0 must be
 * refused by the twin's setup and by the CPU alike) x sizes from one block
 * to several CUDA blocks of blocks (odd sizes, chroma just 8 wide, sizes
 * the CPU refuses) x fills; samples beyond the bit depth (malformed input,
 * whose DCT products wrap); and the test clips (TVMAF_CLIPS, else the
 * source tree's .cache/clips; with TVMAF_TEST_QUICK those up to 576x324).
 */
#define PHVS_SCALAR_LANES 1

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/psnr_hvs/psnr_hvs_math.h"
#include "feature/psnr_hvs/psnr_hvs_state.h"
#include "../replay_common.h"

_Static_assert(PHVS_NL == 1, "the replay runs the device's one-block lanes");

/* terms computed, and those packed (not zero), over every replayed plane */
static uint64_t n_terms, n_kept;

static const char *const keys[4] = { "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs" };

static int setup(const TvmafPicture *r, PsnrHvsParams *p, char *msg, size_t len)
{
    const TvmafVideoInfo vi = { r->pix_fmt, r->bpc, r->w[0], r->h[0], 0, false };
    return tvmaf_psnr_hvs_setup(p, &vi, msg, len);
}

/* One plane as the kernel and the host side compute it: the plane score. */
static float replay_plane(const PsnrHvsParams *p, int pl, const TvmafPicture *r,
                          const TvmafPicture *d, const char *what)
{
    const int bx = phvs_block_count((int)r->w[pl]);
    const int64_t n = (int64_t)bx * phvs_block_count((int)r->h[pl]);
    const unsigned bytes = r->bpc > 8 ? 2 : 1;
    const unsigned grid = (unsigned)((n + PHVS_THREADS - 1) / PHVS_THREADS);
    if (r->stride[pl] != d->stride[pl]) { /* the device frame has one pitch per plane */
        replay_fail("%s: strides differ", what);
        return 0.0f;
    }
    float *terms = malloc(sizeof(float) * PHVS_REGION * (grid ? grid : 1));
    uint32_t *counts = malloc(sizeof(uint32_t) * (grid ? grid : 1));
    unsigned *order = malloc(sizeof(unsigned) * (grid ? grid : 1));
    if (!terms || !counts || !order) {
        replay_fail("out of memory");
        free(terms);
        free(counts);
        free(order);
        return 0.0f;
    }
    replay_garbage(terms, sizeof(float) * PHVS_REGION * grid);
    replay_garbage(counts, sizeof(uint32_t) * grid);
    replay_scramble(order, grid);
    for (unsigned i = 0; i < grid; i++) {
        /* CUDA block g; shared memory starts as garbage */
        static float stage[PHVS_THREADS * PHVS_STAGE_ROW], packed[PHVS_REGION];
        static int start[PHVS_THREADS + 1];
        unsigned threads[PHVS_THREADS];
        const unsigned g = order[i];
        replay_garbage(stage, sizeof(stage));
        replay_garbage(packed, sizeof(packed));
        replay_garbage(start, sizeof(start));
        /* up to the first barrier */
        replay_scramble(threads, PHVS_THREADS);
        for (unsigned j = 0; j < PHVS_THREADS; j++) {
            const unsigned t = threads[j];
            const int64_t b = (int64_t)g * PHVS_THREADS + t;
            float *row = stage + t * PHVS_STAGE_ROW;
            if (b < n) {
                float out[64];
                phvs_block_at(r->data[pl], d->data[pl], (size_t)r->stride[pl], bytes, bx, b,
                              &p->weights[pl], out);
                for (int k = 0; k < 64; k++) row[k] = out[k];
                start[t + 1] = phvs_nonzero(row);
            } else {
                start[t + 1] = 0;
            }
        }
        /* thread 0's prefix sum */
        start[0] = 0;
        for (int k = 1; k <= PHVS_THREADS; k++) start[k] += start[k - 1];
        /* the packing, then the stores, threads in any order */
        replay_scramble(threads, PHVS_THREADS);
        for (unsigned j = 0; j < PHVS_THREADS; j++) {
            const unsigned t = threads[j];
            if ((int64_t)g * PHVS_THREADS + t < n)
                phvs_pack(stage + t * PHVS_STAGE_ROW, packed, start[t]);
        }
        const int total = start[PHVS_THREADS];
        replay_scramble(threads, PHVS_THREADS);
        for (unsigned j = 0; j < PHVS_THREADS; j++)
            for (int k = (int)threads[j]; k < total; k += PHVS_THREADS)
                terms[(size_t)g * PHVS_REGION + (size_t)k] = packed[k];
        counts[g] = (uint32_t)total;
    }
    for (unsigned g = 0; g < grid; g++) {
        if (counts[g] > PHVS_REGION) replay_fail("%s: region %u counts %u", what, g, counts[g]);
        n_terms += 64 * (uint64_t)(n - (int64_t)g * PHVS_THREADS < PHVS_THREADS
                                       ? n - (int64_t)g * PHVS_THREADS : PHVS_THREADS);
        n_kept += counts[g];
    }
    const float score = phvs_plane_score(phvs_regions_sum(terms, counts, grid), 64 * n, p->bpc);
    free(terms);
    free(counts);
    free(order);
    return score;
}

/* tvmaf_psnr_hvs_report's values, in its order. */
static unsigned replay_pair(const PsnrHvsParams *p, const TvmafPicture *r, const TvmafPicture *d,
                            const char *what, double *out)
{
    double score[3];
    for (int pl = 0; pl < 3; pl++) score[pl] = replay_plane(p, pl, r, d, what);
    for (int pl = 0; pl < 3; pl++) out[pl] = phvs_db(score[pl]);
    out[3] = phvs_db(phvs_combined(score[0], score[1], score[2]));
    return 4;
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    PsnrHvsParams p;
    char msg[512];
    if (setup(r, &p, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return 0;
    }
    return replay_pair(&p, r, d, c->what, out);
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    return keys[q];
}

static unsigned n_refused;

/* The twin's setup refuses (then the CPU must too) or both score it. */
static int refused(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h)
{
    PsnrHvsParams p;
    char msg[512];
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0, false };
    if (!tvmaf_psnr_hvs_setup(&p, &vi, msg, sizeof(msg))) return 0;
    replay_check_cpu_refuses("psnr_hvs", "", fmt, bpc, w, h);
    n_refused++;
    return 1;
}

static void run_case(const ReplayCase *c)
{
    if (refused(c->fmt, c->bpc, c->w, c->h)) return;
    const ReplayPairTwin twin = { "psnr_hvs", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* A sequence of given picture pairs, replayed and read by the CPU, every
 * output compared. */
static void run_pairs(TvmafPicture *ref, TvmafPicture *dis, unsigned n, const char *what)
{
    static double values[REPLAY_MAX_FRAMES][4];
    PsnrHvsParams p;
    char msg[512];
    unsigned k = 0;
    if (setup(&ref[0], &p, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", what, msg);
        return;
    }
    TvmafContext *ctx = replay_cpu_open("psnr_hvs", "", what);
    if (!ctx) return;
    for (; k < n; k++) {
        replay_pair(&p, &ref[k], &dis[k], what, values[k]);
        if (replay_cpu_read(ctx, &ref[k], &dis[k], k, what)) break;
    }
    if (k == n && !replay_cpu_flush(ctx, what))
        for (unsigned i = 0; i < n; i++)
            for (unsigned q = 0; q < 4; q++) replay_check_key(ctx, keys[q], i, values[i][q], what);
    tvmaf_close(ctx);
}

/* Samples anywhere in 0..65535 in pictures declaring 10 or 12 bits (input
 * the reference does not check): the DCT's products wrap as on the CPU. */
static void wild_samples(void)
{
    static const unsigned depths[] = { 9, 10, 12 };
    static const ReplaySize sizes[] = { { 64, 64 }, { 177, 99 } };
    unsigned n = 0;
    for (unsigned b = 0; b < REPLAY_COUNT(depths); b++)
        for (unsigned s = 0; s < REPLAY_COUNT(sizes); s++) {
            TvmafPicture r[2], d[2];
            char what[128];
            snprintf(what, sizeof(what), "wild samples %ux%u %u-bit 444", sizes[s].w, sizes[s].h,
                     depths[b]);
            unsigned k = 0;
            for (; k < 2; k++) {
                if (tvmaf_picture_alloc(&r[k], TVMAF_PIX_FMT_YUV444P, depths[b], sizes[s].w,
                                        sizes[s].h))
                    break;
                if (tvmaf_picture_alloc(&d[k], TVMAF_PIX_FMT_YUV444P, depths[b], sizes[s].w,
                                        sizes[s].h)) {
                    tvmaf_picture_unref(&r[k]);
                    break;
                }
                for (int pl = 0; pl < 3; pl++)
                    for (unsigned y = 0; y < r[k].h[pl]; y++)
                        for (unsigned x = 0; x < r[k].w[pl]; x++) {
                            /* frame 1: extremes, the largest DCT values */
                            const unsigned a = replay_next() & 0xffff, e = replay_next();
                            replay_put(&r[k], pl, x, y, k ? (e & 1 ? 0xffff : 0) : a);
                            replay_put(&d[k], pl, x, y, k ? (e & 2 ? 0xffff : 0) : e & 0xffff);
                        }
            }
            if (k < 2) replay_fail("%s: picture alloc", what);
            else run_pairs(r, d, 2, what);
            for (unsigned i = 0; i < k; i++) {
                tvmaf_picture_unref(&r[i]);
                tvmaf_picture_unref(&d[i]);
            }
            n++;
        }
    replay_count("psnr_hvs samples beyond the bit depth", n);
}

/* ---- the test clips ---- */

static int info_value(const char *text, const char *key_name, char *out, size_t len)
{
    const char *p = strstr(text, key_name);
    if (!p) return -1;
    p += strlen(key_name);
    size_t i = 0;
    while (p[i] && p[i] != '\n' && i + 1 < len) {
        out[i] = p[i];
        i++;
    }
    out[i] = 0;
    return 0;
}

static void clip(const char *dir, const char *name, int quick, unsigned *n_clips)
{
    char path[1024], text[1024], v[64], what[256];
    FILE *f = NULL;
    if (snprintf(path, sizeof(path), "%s/%s.info", dir, name) < (int)sizeof(path))
        f = fopen(path, "r");
    if (!f) {
        replay_fail("clip %s: no %s", name, path);
        return;
    }
    const size_t got = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[got] = 0;
    unsigned w = 0, h = 0, bpc = 0, frames = 0;
    enum TvmafPixelFormat fmt;
    if (info_value(text, "width=", v, sizeof(v)) || !(w = (unsigned)atoi(v)) ||
        info_value(text, "height=", v, sizeof(v)) || !(h = (unsigned)atoi(v)) ||
        info_value(text, "bitdepth=", v, sizeof(v)) || !(bpc = (unsigned)atoi(v)) ||
        info_value(text, "frames=", v, sizeof(v)) || !(frames = (unsigned)atoi(v)) ||
        info_value(text, "layout=", v, sizeof(v))) {
        replay_fail("clip %s: unreadable %s", name, path);
        return;
    }
    if (!strcmp(v, "420")) fmt = TVMAF_PIX_FMT_YUV420P;
    else if (!strcmp(v, "422")) fmt = TVMAF_PIX_FMT_YUV422P;
    else if (!strcmp(v, "444")) fmt = TVMAF_PIX_FMT_YUV444P;
    else return; /* not a layout psnr_hvs scores (none such among the clips now) */
    if (quick && (size_t)w * h > 576 * 324) return;
    (*n_clips)++;
    if (refused(fmt, bpc, w, h)) return;
    const unsigned n = frames < 3 ? frames : 3;
    TvmafPicture r[3], d[3];
    FILE *fr = NULL, *fd = NULL;
    snprintf(what, sizeof(what), "clip %s (%u frames)", name, n);
    if (snprintf(path, sizeof(path), "%s/%s.ref.yuv", dir, name) < (int)sizeof(path))
        fr = fopen(path, "rb");
    if (snprintf(path, sizeof(path), "%s/%s.dis.yuv", dir, name) < (int)sizeof(path))
        fd = fopen(path, "rb");
    unsigned k = 0;
    if (fr && fd)
        for (; k < n; k++) {
            if (tvmaf_picture_alloc(&r[k], fmt, bpc, w, h)) break;
            if (tvmaf_picture_alloc(&d[k], fmt, bpc, w, h)) {
                tvmaf_picture_unref(&r[k]);
                break;
            }
            if (replay_read_frame(fr, &r[k], k) || replay_read_frame(fd, &d[k], k)) {
                tvmaf_picture_unref(&r[k]);
                tvmaf_picture_unref(&d[k]);
                break;
            }
        }
    if (k < n) replay_fail("%s: cannot read its frames", what);
    else run_pairs(r, d, n, what);
    for (unsigned i = 0; i < k; i++) {
        tvmaf_picture_unref(&r[i]);
        tvmaf_picture_unref(&d[i]);
    }
    if (fr) fclose(fr);
    if (fd) fclose(fd);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void clips(void)
{
    char dir[1024];
    const char *env = getenv("TVMAF_CLIPS"), *root = getenv("TVMAF_SOURCE_ROOT");
    const char *q = getenv("TVMAF_TEST_QUICK");
    const int quick = q && q[0] && strcmp(q, "0");
    if (env && env[0]) snprintf(dir, sizeof(dir), "%s", env);
    else snprintf(dir, sizeof(dir), "%s/.cache/clips", root && root[0] ? root : ".");
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
        clip(dir, names[i], quick, &n_clips);
        free(names[i]);
    }
    if (!n_clips) replay_fail("no clip in %s", dir);
    replay_count("psnr_hvs test clips", n_clips);
}

int main(void)
{
    replay_seed(0x5eed0f9a1c3b7d21ull);
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    /* one block; one sample short of a second; 4:2:0 chroma just 8 (and 7)
     * wide; odd sizes; more blocks than one CUDA block's threads */
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
                               REPLAY_SET(fmts, fmts), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, depths), REPLAY_SET(seqs, fills),
                               .n_frames = 2 };
    replay_matrix(&all, run_case);
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    static const unsigned d8_12[] = { 8, 12 };
    const ReplayMatrix big = { .name = "psnr_hvs 1920x1080", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, s1080), REPLAY_SET(depths, d8_12),
                               REPLAY_SET(seqs, near) };
    replay_matrix(&big, run_case);
    wild_samples();
    clips();
    printf("refused by both: %u cases\n", n_refused);
    printf("terms packed: %llu of %llu\n", (unsigned long long)n_kept,
           (unsigned long long)n_terms);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("psnr_hvs");
}
