/*
 * Host replay of the float_ssim CUDA twin (float_ssim.cu), compared bit for
 * bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_ssim_math.h's, the one the kernels compile:
 * one thread per output, blocks of SSIM_BLOCK_W x SSIM_BLOCK_H,
 * SSIM_GRID_Y(h) blocks in y striding over further rows, blocks and threads
 * in scrambled orders, every buffer starting as garbage: the luma planes
 * loaded as floats (ssim_sample_*), down-sampled by the factor with the box
 * (ssim_filter_at at (f x, f y)), the products (ssim_products on one
 * sample), the row pass of the five images and per window the column pass
 * and ssim_window (ssim_gauss_one with the host's taps, which the twin
 * uploads); the host adds the windows in raster order (ssim_sums_add,
 * ssim_means) and reports as the CPU. The four running sums are also
 * compared as bits with the CPU's own (ssim_evaluate_sums), which the
 * float-rounded outputs alone would not catch. Option sets cover the scale factors
 * (auto at 1080p), enable_lcs and the dB outputs; an option set the CPU
 * refuses for a size must be refused by the twin's setup too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_ssim/float_ssim_math.h"
#include "feature/float_ssim/float_ssim_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u


typedef struct Dev {
    const FloatSsimParams *p;
    const TvmafPicture *r, *d;
    float *img0, *img1;  /* loaded: full planes when factor > 1, else five's first two */
    float *five, *rows;
    size_t small, rows_n;
    double *l, *c;
    float *s;
    int ow, oh;
} Dev;

static void load_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const size_t i = (size_t)y * (size_t)v->p->w + (size_t)x;
    const unsigned a = replay_get(v->r, 0, (unsigned)x, (unsigned)y);
    const unsigned b = replay_get(v->d, 0, (unsigned)x, (unsigned)y);
    if (v->p->bpc == 8) {
        v->img0[i] = ssim_sample_8((uint8_t)a);
        v->img1[i] = ssim_sample_8((uint8_t)b);
    } else {
        const float div = ssim_hbd_divisor(v->p->bpc);
        v->img0[i] = ssim_sample_hbd((uint16_t)a, div);
        v->img1[i] = ssim_sample_hbd((uint16_t)b, div);
    }
}

static void down_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const FloatSsimParams *p = v->p;
    const int f = p->factor;
    v->five[(size_t)y * p->sw + x] = ssim_filter_at(v->img0, p->w, p->h, x * f, y * f, p->box, f, f);
    v->five[v->small + (size_t)y * p->sw + x] =
        ssim_filter_at(v->img1, p->w, p->h, x * f, y * f, p->box, f, f);
}

static void products_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const size_t i = (size_t)y * v->p->sw + x, n = v->small;
    ssim_products(v->five + i, v->five + n + i, 1, v->five + 2 * n + i, v->five + 3 * n + i,
                  v->five + 4 * n + i);
}

static void rows_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    for (int q = 0; q < 5; q++) {
        const float *src[SSIM_WIN];
        const float *row = v->five + q * v->small + (size_t)y * v->p->sw;
        for (int k = 0; k < SSIM_WIN; k++) src[k] = row + k;
        v->rows[q * v->rows_n + (size_t)y * v->ow + x] = ssim_gauss_one(src, x, ssim_win_taps);
    }
}

static void windows_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    float m[5];
    for (int q = 0; q < 5; q++) {
        const float *src[SSIM_WIN];
        for (int j = 0; j < SSIM_WIN; j++) src[j] = v->rows + q * v->rows_n + (size_t)(y + j) * v->ow;
        m[q] = ssim_gauss_one(src, x, ssim_win_taps);
    }
    const SsimLcs o = ssim_window(m[0], m[1], m[2], m[3], m[4], ssim_consts());
    const size_t i = (size_t)y * v->ow + x;
    v->l[i] = o.l;
    v->c[i] = o.c;
    v->s[i] = (float)o.s;
}

/*
 * tvmaf_float_ssim_report's outputs, in its order, from the four float means
 * as the twin passes them (in memory). Not inlined: GCC 12.2 at -O3, given
 * ssim_means and these stores in one function, vectorised the l and c means
 * and stored the double quotients without rounding them to float (seen in
 * this replay's assembly: divpd, then the doubles stored as they were).
 */
static __attribute__((noinline)) unsigned report(const FloatSsimParams *p, const float *m,
                                                 double *out)
{
    unsigned n = 0;
    out[n++] = p->enable_db ? ssim_to_db(m[0], p->max_db) : m[0];
    if (p->enable_lcs) {
        out[n++] = m[1];
        out[n++] = m[2];
        out[n++] = m[3];
    }
    return n;
}

/* The CPU's own running sums of this frame (its load, down-sampling and
 * ssim_evaluate_sums) must equal the replay's as bits: the outputs are
 * rounded to float and would hide an addition order that differs. */
static void cpu_sums_check(const ReplayCase *c, const FloatSsimParams *p, const TvmafPicture *r,
                           const TvmafPicture *d, const SsimSums *got)
{
    const size_t full = (size_t)p->w * (size_t)p->h, small = (size_t)p->sw * (size_t)p->sh;
    float *img = malloc(sizeof(float) * (2 * full + 2 * small));
    void *scratch = malloc(ssim_scratch_bytes(p->sw));
    double *acc = malloc(sizeof(double) * (size_t)p->sw);
    if (!img || !scratch || !acc) {
        replay_fail("out of memory");
        goto out;
    }
    float *rs = img, *ds = img + full;
    ssim_load_plane(rs, r->data[0], r->stride[0], r->w[0], r->h[0], p->bpc);
    ssim_load_plane(ds, d->data[0], d->stride[0], d->w[0], d->h[0], p->bpc);
    if (p->factor > 1) {
        const int f = p->factor;
        ssim_down_sample(rs, p->w, p->h, f, p->box, f, f, img + 2 * full, p->sw, p->sh, acc);
        ssim_down_sample(ds, p->w, p->h, f, p->box, f, f, img + 2 * full + small, p->sw, p->sh,
                         acc);
        rs = img + 2 * full;
        ds = rs + small;
    }
    SsimSums cpu;
    ssim_evaluate_sums(rs, ds, p->sw, p->sh, scratch, &cpu);
    if (!replay_same_bits(cpu.ssim, got->ssim) || !replay_same_bits(cpu.l, got->l) ||
        !replay_same_bits(cpu.c, got->c) || !replay_same_bits(cpu.s, got->s))
        replay_fail("%s: window sums: cpu %.17g %.17g %.17g %.17g replay %.17g %.17g %.17g %.17g",
                    c->what, cpu.ssim, cpu.l, cpu.c, cpu.s, got->ssim, got->l, got->c, got->s);
out:
    free(img);
    free(scratch);
    free(acc);
}

static int params(const ReplayCase *c, FloatSsimParams *p, char *msg, size_t len)
{
    memset(p, 0, sizeof(*p));
    tvmaf_options_set_defaults(tvmaf_float_ssim_options, p);
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_options_parse(tvmaf_float_ssim_options, p, c->opts, "float_ssim", msg, len))
        return -2;
    return tvmaf_float_ssim_setup(p, &vi, msg, len) ? -1 : 0;
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    FloatSsimParams p;
    char msg[512];
    if (params(c, &p, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return 0;
    }
    Dev v = { .p = &p, .r = r, .d = d };
    v.small = (size_t)p.sw * (size_t)p.sh;
    v.ow = p.sw - SSIM_WIN + 1;
    v.oh = p.sh - SSIM_WIN + 1;
    v.rows_n = (size_t)v.ow * (size_t)p.sh;
    const size_t full = (size_t)p.w * (size_t)p.h, nwin = (size_t)v.ow * (size_t)v.oh;
    float *full_buf = p.factor > 1 ? malloc(2 * sizeof(float) * full) : NULL;
    v.five = malloc(5 * sizeof(float) * v.small);
    v.rows = malloc(5 * sizeof(float) * v.rows_n);
    v.l = malloc(sizeof(double) * nwin);
    v.c = malloc(sizeof(double) * nwin);
    v.s = malloc(sizeof(float) * nwin);
    unsigned n = 0;
    if ((p.factor > 1 && !full_buf) || !v.five || !v.rows || !v.l || !v.c || !v.s) {
        replay_fail("out of memory");
        goto out;
    }
    if (full_buf) replay_garbage(full_buf, 2 * sizeof(float) * full);
    replay_garbage(v.five, 5 * sizeof(float) * v.small);
    replay_garbage(v.rows, 5 * sizeof(float) * v.rows_n);
    replay_garbage(v.l, sizeof(double) * nwin);
    replay_garbage(v.c, sizeof(double) * nwin);
    replay_garbage(v.s, sizeof(float) * nwin);
    v.img0 = p.factor > 1 ? full_buf : v.five;
    v.img1 = p.factor > 1 ? full_buf + full : v.five + v.small;
    const int small_grid = c->flags & FLAG_SMALL_GRID;
#define GY(h) (small_grid ? 2u : SSIM_GRID_Y((unsigned)(h)))
    replay_grid(p.w, p.h, GY(p.h), SSIM_BLOCK_W, SSIM_BLOCK_H, load_thread, &v);
    if (p.factor > 1) replay_grid(p.sw, p.sh, GY(p.sh), SSIM_BLOCK_W, SSIM_BLOCK_H, down_thread, &v);
    replay_grid(p.sw, p.sh, GY(p.sh), SSIM_BLOCK_W, SSIM_BLOCK_H, products_thread, &v);
    replay_grid(v.ow, p.sh, GY(p.sh), SSIM_BLOCK_W, SSIM_BLOCK_H, rows_thread, &v);
    replay_grid(v.ow, v.oh, GY(v.oh), SSIM_BLOCK_W, SSIM_BLOCK_H, windows_thread, &v);
#undef GY
    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (size_t i = 0; i < nwin; i++) ssim_sums_add(&sums, ssim_lcs_make(v.l[i], v.c[i], v.s[i]));
    cpu_sums_check(c, &p, r, d, &sums);
    float m[4];
    ssim_means(&sums, (int)nwin, m);
    n = report(&p, m, out);
out:
    free(full_buf);
    free(v.five);
    free(v.rows);
    free(v.l);
    free(v.c);
    free(v.s);
    return n;
}

static const char *const keys[4] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                     "float_ssim_s" };

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    return keys[q];
}

static unsigned n_refused;

static void run_case(const ReplayCase *c)
{
    FloatSsimParams p;
    char msg[512];
    const int e = params(c, &p, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses("float_ssim", c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        return;
    }
    if (e) {
        replay_fail("%s: options: %s", c->what, msg);
        return;
    }
    const ReplayPairTwin twin = { "float_ssim", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);
    static const char *const opts[] = {
        "", "enable_lcs=true", "scale=2:enable_lcs=true", "scale=3", "scale=1",
        "enable_db=true", "enable_db=true:clip_db=true:scale=2", "scale=10",
    };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize sizes[] = {
        { 11, 11 }, { 12, 13 }, { 23, 22 }, { 64, 36 }, { 177, 99 }, { 43, 11 }, { 240, 130 },
        { SSIM_BLOCK_W + SSIM_WIN, SSIM_BLOCK_H + SSIM_WIN },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_EQUAL },               { REPLAY_CONST0 }, { REPLAY_EDGES },
        { REPLAY_REF_FLAT },            { REPLAY_INVERT },
    };
    const ReplayMatrix all = { .name = "float_ssim options x layouts x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, fmts),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    replay_matrix(&all, run_case);
    static const char *const grid_opts[] = { "", "scale=2:enable_lcs=true" };
    static const ReplaySize tall[] = { { 40, 60 }, { 30, 97 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    const ReplayMatrix grid = { .name = "float_ssim row stride (2 blocks in y)",
                                REPLAY_SET(opts, grid_opts), REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, rnd), .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);
    static const char *const big_opts[] = { "enable_lcs=true" };
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    const ReplayMatrix big = { .name = "float_ssim 1920x1080 (auto factor 4)",
                               REPLAY_SET(opts, big_opts), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, s1080), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, near) };
    replay_matrix(&big, run_case);
    printf("refused by both: %u cases\n", n_refused);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_ssim");
}
