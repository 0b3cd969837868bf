/*
 * Scaffolding shared by the twins' host-executor drivers (tests/replay/,
 * tests/twin_host.h) and test_ciede_pair: one random generator, the fill
 * patterns, picture helpers, the test clips, the case loop and the bit
 * comparison with its report. No GPU is needed.
 *
 * Header only (each driver is one executable); every function is static.
 */
#ifndef TVMAF_TESTS_REPLAY_COMMON_H
#define TVMAF_TESTS_REPLAY_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"

#define REPLAY_MAX_FRAMES 8
#define REPLAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int replay_failures;
static unsigned replay_cases;

/* ---- failures and the report ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void replay_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    replay_failures++;
}

static inline int replay_same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

/* Compares a replayed output with the CPU's, as bits. */
static inline void replay_check_bits(const char *what, const char *key, unsigned frame,
                                     double cpu, double replay)
{
    if (!replay_same_bits(cpu, replay))
        replay_fail("%s: %s frame %u: cpu %.17g replay %.17g", what, key, frame, cpu, replay);
}

/* The last line of every replay; the exit status. */
static inline int replay_report(const char *feature)
{
    printf("%s replay: %u cases, %d failures\n", feature, replay_cases, replay_failures);
    return replay_failures ? 1 : 0;
}

/* ---- the random generator (xorshift64) ---- */

static uint64_t replay_rng = 0x9e3779b97f4a7c15ull;

static inline void replay_seed(uint64_t seed)
{
    replay_rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

static inline uint32_t replay_next(void)
{
    replay_rng ^= replay_rng << 13;
    replay_rng ^= replay_rng >> 7;
    replay_rng ^= replay_rng << 17;
    return (uint32_t)(replay_rng >> 11);
}

/* Random bytes: device memory or shared memory before anything wrote it. */
static inline void replay_garbage(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)replay_next();
}

/* A permutation of 0..n-1 (blocks and threads run in any order). */
static inline void replay_scramble(unsigned *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++) order[i] = i;
    for (unsigned i = n; i > 1; i--) {
        const unsigned j = replay_next() % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

/* ---- pictures ---- */

static inline unsigned replay_get(const TvmafPicture *p, int pl, unsigned x, unsigned y)
{
    const unsigned char *row = (const unsigned char *)p->data[pl] + (size_t)y * p->stride[pl];
    return p->bpc == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
}

static inline void replay_put(TvmafPicture *p, int pl, unsigned x, unsigned y, unsigned v)
{
    unsigned char *row = (unsigned char *)p->data[pl] + (size_t)y * p->stride[pl];
    if (p->bpc == 8) row[x] = (unsigned char)v;
    else ((uint16_t *)(void *)row)[x] = (uint16_t)v;
}

static inline int replay_n_planes(const TvmafPicture *p)
{
    return p->pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
}

/* A picture with src's format and samples (the CPU extractor takes its own). */
static inline int replay_copy_picture(TvmafPicture *dst, const TvmafPicture *src)
{
    int err = tvmaf_picture_alloc(dst, src->pix_fmt, src->bpc, src->w[0], src->h[0]);
    if (err) return err;
    for (int pl = 0; pl < replay_n_planes(src); pl++) {
        const size_t row = (size_t)src->w[pl] * (src->bpc > 8 ? 2 : 1);
        for (unsigned y = 0; y < src->h[pl]; y++)
            memcpy((unsigned char *)dst->data[pl] + (size_t)y * dst->stride[pl],
                   (const unsigned char *)src->data[pl] + (size_t)y * src->stride[pl], row);
    }
    return 0;
}

/* ---- fill patterns ---- */

typedef enum ReplayFill {
    REPLAY_RANDOM,    /* independent random samples */
    REPLAY_NEAR,      /* dis: ref plus noise of at most +-8 (clamped) */
    REPLAY_SMOOTH,    /* gentle gradients, dis +-1: much below vif's noise floor */
    REPLAY_LEVELS,    /* ref: a hash of the position; dis: a ramp through every level */
    REPLAY_EXTREMES,  /* 0 or max at random */
    REPLAY_CONST0,    /* both 0 */
    REPLAY_CONSTMAX,  /* both max */
    REPLAY_EQUAL,     /* dis = ref, random */
    REPLAY_REF_FLAT,  /* ref mid-grey, dis random */
    REPLAY_EDGES,     /* full-swing stripes and a checker touching every border */
    REPLAY_INVERT,    /* dis = max - ref */
    REPLAY_LINES,     /* lone one-pixel lines on black; dis: some moved, plus noise */
    REPLAY_LINES_DIM, /* as lines, dis's lines dimmed */
    REPLAY_SWEEP,     /* every level of a plane of 2^bpc samples, permuted per plane */
    REPLAY_N_FILLS
} ReplayFill;

static const char *const replay_fill_names[REPLAY_N_FILLS] = {
    "random", "near", "smooth", "levels", "extremes", "const0", "constmax",
    "equal", "ref-flat", "edges", "invert", "lines", "lines-dim", "sweep",
};

/* Whether dis is derived from ref (used by replay_fill_next). */
static inline int replay_fill_relative(ReplayFill f)
{
    return f == REPLAY_NEAR || f == REPLAY_SMOOTH || f == REPLAY_EQUAL || f == REPLAY_INVERT;
}

static inline unsigned replay_clamp(int v, unsigned maxv)
{
    return v < 0 ? 0 : v > (int)maxv ? maxv : (unsigned)v;
}

/* Sample (x, y) of plane pl (k: its raster index) of ref (*a) and dis (*b);
 * with fixed_a, ref's sample is *a already (relative fills only). */
static inline void replay_sample(ReplayFill how, unsigned bpc, int pl, unsigned x, unsigned y,
                                 unsigned k, unsigned seed, int fixed_a, unsigned *a, unsigned *b)
{
    const unsigned maxv = (1u << bpc) - 1;
    unsigned ra = fixed_a ? *a : 0, rb;
    switch (how) {
    case REPLAY_RANDOM: ra = replay_next() & maxv; rb = replay_next() & maxv; break;
    case REPLAY_NEAR:
        if (!fixed_a) ra = replay_next() & maxv;
        rb = replay_clamp((int)ra + (int)(replay_next() % 17) - 8, maxv);
        break;
    case REPLAY_SMOOTH:
        if (!fixed_a) ra = (((x * 3 + y * 5 + seed * 7 + (unsigned)pl) % 256) << (bpc - 8)) & maxv;
        rb = replay_clamp((int)ra + (int)(replay_next() % 3) - 1, maxv);
        break;
    case REPLAY_LEVELS:
        ra = ((x + 1) * 2654435761u ^ (y + seed) * 40503u ^ (unsigned)pl * 97u) & maxv;
        rb = (k + 1 + (unsigned)pl + seed) & maxv;
        break;
    case REPLAY_EXTREMES:
        ra = (replay_next() & 1) ? maxv : 0;
        rb = (replay_next() & 1) ? maxv : 0;
        break;
    case REPLAY_CONST0: ra = rb = 0; break;
    case REPLAY_CONSTMAX: ra = rb = maxv; break;
    case REPLAY_EQUAL:
        if (!fixed_a) ra = replay_next() & maxv;
        rb = ra;
        break;
    case REPLAY_REF_FLAT: ra = maxv / 2; rb = replay_next() & maxv; break;
    case REPLAY_EDGES:
        ra = ((x + seed) % 3 == 0) ^ ((y / (1 + seed % 2)) % 2 == 0) ? maxv : 0;
        rb = ((x / 2 + y) % 4 < 2) ? maxv : ra;
        break;
    case REPLAY_INVERT:
        if (!fixed_a) ra = replay_next() & maxv;
        rb = maxv - ra;
        break;
    case REPLAY_LINES:
    case REPLAY_LINES_DIM: {
        /* full swing on black (adm's threshold centre exceeds 2^15 there) */
        const int on = (x % 23 == 5 + seed % 3) || (y % 19 == 7) || (x == y + seed);
        const int on_d = (x % 23 == 6 + seed % 3) || (y % 19 == 7) || (x == y + seed);
        ra = on ? maxv : 0;
        rb = on_d ? (how == REPLAY_LINES_DIM ? maxv / 2 + (replay_next() & 15) : maxv)
                  : (replay_next() & 3);
        rb = rb > maxv ? maxv : rb;
        break;
    }
    default: /* REPLAY_SWEEP */
        ra = (k * (pl == 1 ? 40503u : 1u) + (pl == 2 ? maxv / 3 : 0)) & maxv;
        rb = pl == 0 ? (k * 7u) & maxv : pl == 1 ? k & maxv : maxv - (k & maxv);
        if (pl == 1) ra = maxv - ra;
        break;
    }
    *a = ra;
    *b = rb;
}

/* Every plane of ref and dis from one fill. */
static inline void replay_fill(TvmafPicture *r, TvmafPicture *d, ReplayFill how, unsigned seed)
{
    for (int pl = 0; pl < replay_n_planes(r); pl++)
        for (unsigned y = 0, k = 0; y < r->h[pl]; y++)
            for (unsigned x = 0; x < r->w[pl]; x++, k++) {
                unsigned a, b;
                replay_sample(how, r->bpc, pl, x, y, k, seed, 0, &a, &b);
                replay_put(r, pl, x, y, a);
                replay_put(d, pl, x, y, b);
            }
}

/* A frame of a sequence: from the previous frame for a relative fill (dis of
 * the pair whose ref is prev), else ref's pattern. prev NULL: a relative fill
 * gives random samples. */
static inline void replay_fill_next(TvmafPicture *f, const TvmafPicture *prev, ReplayFill how,
                                    unsigned seed)
{
    const int rel = replay_fill_relative(how);
    if (rel && !prev) how = REPLAY_RANDOM;
    for (int pl = 0; pl < replay_n_planes(f); pl++)
        for (unsigned y = 0, k = 0; y < f->h[pl]; y++)
            for (unsigned x = 0; x < f->w[pl]; x++, k++) {
                unsigned a = rel && prev ? replay_get(prev, pl, x, y) : 0, b;
                replay_sample(how, f->bpc, pl, x, y, k, seed, rel && prev, &a, &b);
                replay_put(f, pl, x, y, rel && prev ? b : a);
            }
}

/* ---- the CPU extractor through the public API ---- */

/* The feature's spec for tvmaf_use_feature: "FEATURE" or "FEATURE=OPTS". */
static inline const char *replay_spec(char *spec, size_t len, const char *feature,
                                      const char *opts)
{
    snprintf(spec, len, "%s%s%s", feature, opts && opts[0] ? "=" : "", opts ? opts : "");
    return spec;
}

/* A context of backend b using `feature` with options `opts` ("" for none);
 * NULL (and a failure) when the library refuses. */
static inline TvmafContext *replay_open(enum TvmafBackend b, const char *feature,
                                        const char *opts, const char *what)
{
    TvmafConfiguration cfg = { .backend = b };
    TvmafContext *ctx = NULL;
    char spec[256];
    if (tvmaf_init(&ctx, &cfg) ||
        tvmaf_use_feature(ctx, replay_spec(spec, sizeof(spec), feature, opts))) {
        replay_fail("%s: %s context: %s", what, tvmaf_backend_name(b),
                    ctx ? tvmaf_last_error(ctx) : "init");
        tvmaf_close(ctx);
        return NULL;
    }
    return ctx;
}

/* Feeds copies of ref and dis as frame `index` (the context takes its own):
 * 0, -ENOMEM, or -EINVAL when the library refuses the frame. */
static inline int replay_read_copies(TvmafContext *ctx, const TvmafPicture *ref,
                                     const TvmafPicture *dis, unsigned index)
{
    TvmafPicture rc, dc;
    if (replay_copy_picture(&rc, ref)) return -ENOMEM;
    if (replay_copy_picture(&dc, dis)) {
        tvmaf_picture_unref(&rc);
        return -ENOMEM;
    }
    return tvmaf_read_pictures(ctx, &rc, &dc, index) ? -EINVAL : 0;
}

/* replay_read_copies, a failure when it fails. */
static inline int replay_cpu_read(TvmafContext *ctx, const TvmafPicture *ref,
                                  const TvmafPicture *dis, unsigned index, const char *what)
{
    const int err = replay_read_copies(ctx, ref, dis, index);
    if (err == -ENOMEM) replay_fail("%s: picture alloc", what);
    else if (err) replay_fail("%s: CPU frame %u: %s", what, index, tvmaf_last_error(ctx));
    return err;
}

static inline int replay_cpu_flush(TvmafContext *ctx, const char *what)
{
    if (!tvmaf_flush(ctx)) return 0;
    replay_fail("%s: CPU flush: %s", what, tvmaf_last_error(ctx));
    return -EINVAL;
}

/* Compares the replay's value of `key` at `frame` with the CPU's, as bits. */
static inline void replay_check_key(TvmafContext *ctx, const char *key, unsigned frame,
                                    double replay, const char *what)
{
    double cpu;
    if (tvmaf_feature_score_at_index(ctx, key, &cpu, frame))
        replay_fail("%s: CPU has no %s at frame %u", what, key, frame);
    else
        replay_check_bits(what, key, frame, cpu, replay);
}

/* ---- the case loop ---- */

typedef struct ReplaySize {
    unsigned w, h;
} ReplaySize;

/* One case: a sequence of n_frames pictures of one format and options. */
typedef struct ReplayCase {
    enum TvmafPixelFormat fmt;
    unsigned bpc, w, h;
    const char *opts;
    ReplayFill fills[REPLAY_MAX_FRAMES];
    unsigned n_frames;
    unsigned flags; /* the replay's own (e.g. another grid) */
    char what[256]; /* for the reports */
} ReplayCase;

/*
 * A matrix of cases: every option set x layout x size x depth x sequence x
 * length. Absent lists (NULL) mean: options "", the length of the sequence
 * (n_frames, or 1).
 */
typedef struct ReplayMatrix {
    const char *name;
    const char *const *opts;
    unsigned n_opts;
    const enum TvmafPixelFormat *fmts;
    unsigned n_fmts;
    const ReplaySize *sizes;
    unsigned n_sizes;
    const unsigned *depths;
    unsigned n_depths;
    const ReplayFill (*seqs)[REPLAY_MAX_FRAMES];
    unsigned n_seqs;
    const unsigned *lengths;
    unsigned n_lengths;
    unsigned n_frames; /* without lengths: frames of every sequence */
    unsigned flags;
} ReplayMatrix;

static inline const char *replay_fmt_name(enum TvmafPixelFormat f)
{
    return f == TVMAF_PIX_FMT_YUV420P ? "420" : f == TVMAF_PIX_FMT_YUV422P ? "422"
         : f == TVMAF_PIX_FMT_YUV444P ? "444" : f == TVMAF_PIX_FMT_YUV400P ? "400" : "?";
}

/* Allocates ref and dis for case c, or fails the case. */
static inline int replay_pictures(const ReplayCase *c, TvmafPicture *ref, TvmafPicture *dis)
{
    if (tvmaf_picture_alloc(ref, c->fmt, c->bpc, c->w, c->h)) goto fail;
    if (tvmaf_picture_alloc(dis, c->fmt, c->bpc, c->w, c->h)) {
        tvmaf_picture_unref(ref);
        goto fail;
    }
    return 0;
fail:
    replay_fail("%s: picture alloc", c->what);
    return -ENOMEM;
}

/* The CPU extractor refuses a zero frame of this format (it is the twin's
 * shared setup that refused it too). */
static inline void replay_check_cpu_refuses(const char *feature, const char *opts,
                                            enum TvmafPixelFormat fmt, unsigned bpc,
                                            unsigned w, unsigned h)
{
    ReplayCase c = { .fmt = fmt, .bpc = bpc, .w = w, .h = h, .opts = opts };
    snprintf(c.what, sizeof(c.what), "refusal %ux%u %u-bit [%s]", w, h, bpc, opts);
    TvmafContext *ctx = replay_open(TVMAF_BACKEND_CPU, feature, opts, c.what);
    TvmafPicture r, d;
    if (ctx && !replay_pictures(&c, &r, &d)) {
        replay_fill(&r, &d, REPLAY_CONST0, 0); /* takes no random numbers */
        const int e1 = tvmaf_read_pictures(ctx, &r, &d, 0);
        if (!e1 && !tvmaf_flush(ctx)) replay_fail("%s: the CPU extractor scored it", c.what);
    }
    tvmaf_close(ctx);
}

/* A twin scoring (ref, dis) pairs: the replay of one frame and its keys. */
#define REPLAY_MAX_KEYS 32
typedef struct ReplayPairTwin {
    const char *feature;
    void *priv;
    /* Replays frame k; writes its outputs in key order into out (at most
     * REPLAY_MAX_KEYS) and returns how many. */
    unsigned (*frame)(void *priv, const ReplayCase *c, const TvmafPicture *ref,
                      const TvmafPicture *dis, unsigned k, double *out);
    const char *(*key)(void *priv, unsigned q);
} ReplayPairTwin;

/* Frame k of a raw planar file (the layout of pic) into pic; 0 or -1. */
static inline int replay_read_frame(FILE *f, TvmafPicture *pic, unsigned k)
{
    const unsigned bps = pic->bpc > 8 ? 2 : 1;
    const int np = replay_n_planes(pic);
    size_t frame = 0;
    for (int pl = 0; pl < np; pl++) frame += (size_t)pic->w[pl] * pic->h[pl] * bps;
    if (fseek(f, (long)(frame * k), SEEK_SET)) return -1;
    for (int pl = 0; pl < np; pl++)
        for (unsigned y = 0; y < pic->h[pl]; y++)
            if (fread((unsigned char *)pic->data[pl] + (size_t)y * pic->stride[pl], bps,
                      pic->w[pl], f) != pic->w[pl])
                return -1;
    return 0;
}

/* Where a case's frames come from: frame k into (ref, dis), allocated for
 * the case; 0, or an error when the frame cannot be had. */
typedef int (*ReplayFrameSource)(void *src, TvmafPicture *ref, TvmafPicture *dis, unsigned k);

/* The test clips' directory: TVMAF_CLIPS, else TVMAF_CLIPS_DEFAULT (as
 * tests/meson.build sets it), else the source tree's .cache/clips. */
static inline const char *replay_clips_dir(void)
{
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
#ifdef TVMAF_SOURCE_ROOT
    if (!dir || !dir[0]) dir = TVMAF_SOURCE_ROOT "/.cache/clips";
#endif
    return dir && dir[0] ? dir : ".";
}

/* A test clip pair, DIR/NAME.ref.yuv and DIR/NAME.dis.yuv, of that layout,
 * depth and size, scored on its first n frames with opts. */
typedef struct ReplayClipSpec {
    const char *name;
    enum TvmafPixelFormat fmt;
    unsigned bpc, w, h, n;
    const char *opts;
} ReplayClipSpec;

/* A clip opened for reading frames (replay_clip_frames); the case it makes. */
typedef struct ReplayClip {
    FILE *fr, *fd;
    ReplayCase c;
} ReplayClip;

/* Opens clip s of replay_clips_dir() and sets up its case (n frames, at most
 * REPLAY_MAX_FRAMES; what: "clip NAME [OPTS]", or "clip NAME LABEL [OPTS]");
 * 0 when the clip is not there (nothing to close then), a failure unless
 * `optional`. */
static inline int replay_clip_open(ReplayClip *cl, const ReplayClipSpec *s, const char *label,
                                   int optional)
{
    const char *dir = replay_clips_dir();
    char rp[1024], dp[1024];
    snprintf(rp, sizeof(rp), "%s/%s.ref.yuv", dir, s->name);
    snprintf(dp, sizeof(dp), "%s/%s.dis.yuv", dir, s->name);
    memset(cl, 0, sizeof(*cl));
    cl->fr = fopen(rp, "rb");
    cl->fd = fopen(dp, "rb");
    if (!cl->fr || !cl->fd) {
        if (cl->fr) fclose(cl->fr);
        if (cl->fd) fclose(cl->fd);
        if (!optional) replay_fail("the test clip %s is not in %s", s->name, dir);
        return 0;
    }
    const ReplayCase c = { .fmt = s->fmt, .bpc = s->bpc, .w = s->w, .h = s->h, .opts = s->opts,
                           .n_frames = s->n < REPLAY_MAX_FRAMES ? s->n : REPLAY_MAX_FRAMES };
    cl->c = c;
    snprintf(cl->c.what, sizeof(cl->c.what), "clip %s%s%s [%s]", s->name, label ? " " : "",
             label ? label : "", s->opts);
    return 1;
}

static inline void replay_clip_close(ReplayClip *cl)
{
    fclose(cl->fr);
    fclose(cl->fd);
}

/* A ReplayFrameSource: frame k of the clip (src: a
 * ReplayClip). */
static inline int replay_clip_frames(void *src, TvmafPicture *ref, TvmafPicture *dis,
                                     unsigned k)
{
    ReplayClip *cl = src;
    return replay_read_frame(cl->fr, ref, k) || replay_read_frame(cl->fd, dis, k);
}

/* Case c for a pair twin on its synthetic frames (c->fills): each frame
 * replayed by t->frame and read by the CPU extractor; then every output of
 * every frame is compared with the CPU's, as bits. */
static inline void replay_pair_case(const ReplayCase *c, const ReplayPairTwin *t)
{
    static double values[REPLAY_MAX_FRAMES][REPLAY_MAX_KEYS];
    unsigned n_values[REPLAY_MAX_FRAMES] = { 0 }, k = 0;
    TvmafContext *ctx = replay_open(TVMAF_BACKEND_CPU, t->feature, c->opts, c->what);
    if (!ctx) return;
    for (; k < c->n_frames; k++) {
        TvmafPicture ref, dis;
        if (replay_pictures(c, &ref, &dis)) break;
        replay_fill(&ref, &dis, c->fills[k], k);
        n_values[k] = t->frame(t->priv, c, &ref, &dis, k, values[k]);
        const int err = replay_cpu_read(ctx, &ref, &dis, k, c->what);
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
        if (err) break;
    }
    if (k == c->n_frames && !replay_cpu_flush(ctx, c->what))
        for (unsigned i = 0; i < c->n_frames; i++)
            for (unsigned q = 0; q < n_values[i]; q++)
                replay_check_key(ctx, t->key(t->priv, q), i, values[i][q], c->what);
    tvmaf_close(ctx);
}

/* The synthetic source: frame k filled by c->fills[k] with seed k. */
static inline int replay_fill_frames(void *src, TvmafPicture *ref, TvmafPicture *dis,
                                     unsigned k)
{
    const ReplayCase *c = src;
    replay_fill(ref, dis, c->fills[k], k);
    return 0;
}

/* One-entry and common lists for matrices. */
static const enum TvmafPixelFormat replay_420[] = { TVMAF_PIX_FMT_YUV420P };
static const enum TvmafPixelFormat replay_422[] = { TVMAF_PIX_FMT_YUV422P };
static const enum TvmafPixelFormat replay_444[] = { TVMAF_PIX_FMT_YUV444P };
static const enum TvmafPixelFormat replay_400[] = { TVMAF_PIX_FMT_YUV400P };
static const enum TvmafPixelFormat replay_yuv[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                    TVMAF_PIX_FMT_YUV444P };
static const enum TvmafPixelFormat replay_fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                     TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
static const unsigned replay_depths[] = { 8, 10, 12, 16 };
static const unsigned replay_8_16[] = { 8, 16 }, replay_d8[] = { 8 }, replay_d16[] = { 16 };
static const ReplaySize replay_1080p[] = { { 1920, 1080 } };
static const ReplayFill replay_random[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
static const ReplayFill replay_near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
static const char *const replay_debug[] = { "debug=true" };

/* A list of a ReplayMatrix: REPLAY_SET(sizes, my_sizes) sets sizes and n_sizes. */
#define REPLAY_SET(field, array) .field = (array), .n_##field = REPLAY_COUNT(array)

/* Runs every case of m; prints and returns how many. */
static inline unsigned replay_matrix(const ReplayMatrix *m, void (*run)(const ReplayCase *))
{
    static const char *const no_opts[] = { "" };
    const char *const *opts = m->opts ? m->opts : no_opts;
    const unsigned n_opts = m->opts ? m->n_opts : 1;
    const unsigned n_len = m->lengths ? m->n_lengths : 1;
    unsigned n = 0;
    for (unsigned o = 0; o < n_opts; o++)
        for (unsigned f = 0; f < m->n_fmts; f++)
            for (unsigned s = 0; s < m->n_sizes; s++)
                for (unsigned b = 0; b < m->n_depths; b++)
                    for (unsigned q = 0; q < m->n_seqs; q++)
                        for (unsigned l = 0; l < n_len; l++, n++) {
                            ReplayCase c;
                            memset(&c, 0, sizeof(c));
                            c.fmt = m->fmts[f];
                            c.bpc = m->depths[b];
                            c.w = m->sizes[s].w;
                            c.h = m->sizes[s].h;
                            c.opts = opts[o];
                            c.n_frames = m->lengths ? m->lengths[l]
                                       : m->n_frames ? m->n_frames : 1;
                            if (c.n_frames > REPLAY_MAX_FRAMES) c.n_frames = REPLAY_MAX_FRAMES;
                            memcpy(c.fills, m->seqs[q], sizeof(c.fills));
                            c.flags = m->flags;
                            /* a replay's own fills come after the common ones */
                            char own[32];
                            snprintf(own, sizeof(own), "its fill %d",
                                     (int)c.fills[0] - REPLAY_N_FILLS);
                            snprintf(c.what, sizeof(c.what), "%s: %ux%u %u-bit %s [%s] %u "
                                     "frame(s) from %s", m->name, c.w, c.h, c.bpc,
                                     replay_fmt_name(c.fmt), c.opts, c.n_frames,
                                     (unsigned)c.fills[0] < REPLAY_N_FILLS
                                         ? replay_fill_names[c.fills[0]] : own);
                            run(&c);
                        }
    printf("%s: %u cases (%u option sets x %u layouts x %u sizes x %u depths x %u sequences"
           " x %u lengths)\n", m->name, n, n_opts, m->n_fmts, m->n_sizes, m->n_depths,
           m->n_seqs, n_len);
    replay_cases += n;
    return n;
}

/*
 * The matrix of a twin scoring single pictures of every layout:
 * 4:2:0, 4:2:2, 4:4:4 x 8, 10, 12, 16 bits x five sizes (including one
 * block and one sample past a block of block_w x block_h) x five fills, and
 * one 4:4:4 16-bit picture holding every level in every plane.
 */
static inline void replay_picture_matrices(const char *feature, unsigned block_w,
                                           unsigned block_h, void (*run)(const ReplayCase *))
{
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM },   { REPLAY_NEAR },  { REPLAY_LEVELS },
        { REPLAY_EXTREMES }, { REPLAY_EQUAL },
    };
    static const ReplayFill sweep[][REPLAY_MAX_FRAMES] = { { REPLAY_SWEEP } };
    static const ReplaySize s256[] = { { 256, 256 } };
    const ReplaySize sizes[] = { { 64, 36 }, { 177, 99 }, { 33, 2 }, { 1, 1 },
                                 { block_w + 1, block_h + 1 } };
    char name[2][96];
    snprintf(name[0], sizeof(name[0]), "%s layouts x depths x sizes x fills", feature);
    snprintf(name[1], sizeof(name[1]), "%s every 16-bit level", feature);
    const ReplayMatrix all = { .name = name[0], REPLAY_SET(fmts, replay_yuv),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills) };
    const ReplayMatrix levels = { .name = name[1], REPLAY_SET(fmts, replay_444),
                                  REPLAY_SET(sizes, s256), REPLAY_SET(depths, replay_d16),
                                  REPLAY_SET(seqs, sweep) };
    replay_matrix(&all, run);
    replay_matrix(&levels, run);
}

/* Whether the environment variable is set to something other than "" or "0"
 * (TVMAF_TEST_FULL, TVMAF_TEST_QUICK). */
static inline int replay_env_on(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0");
}

/* A check outside the matrices counts as one case. */
static inline void replay_count(const char *name, unsigned n)
{
    printf("%s: %u case(s)\n", name, n);
    replay_cases += n;
}

#endif
