/*
 * Host replay of the float_ms_ssim CUDA twin (float_ms_ssim.cu), compared
 * bit for bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_ms_ssim_math.h's, the one the kernels compile
 * ("The CUDA twin's decomposition"): one thread per output, blocks of
 * SSIM_BLOCK_W x SSIM_BLOCK_H, SSIM_GRID_Y(h) blocks in y striding over
 * further rows, blocks and threads in scrambled orders, every buffer starting
 * as garbage: the luma planes loaded as floats, the pyramid down-sampled
 * (ssim_filter_at at (2 x, 2 y) with the host's low-pass), per scale the row
 * pass (ms_ssim_rows_at) and the windows (ms_ssim_window_at) with the host's
 * taps, which the twin uploads; then the sum blocks in any order, each
 * staging its tiles into a garbage double buffer before thread 0 adds them
 * (ms_ssim_sum_run). The host's part is the twin's: ssim_mean of the 15 sums,
 * then the report. Besides the outputs, every scale of the replayed pyramid
 * and every one of the 15 sums is compared as bits with the CPU's own
 * (ssim_load_plane, ssim_down_sample, ssim_evaluate_sums): the outputs are
 * rounded to float and would hide a different order of addition.
 *
 * Cases: every option set, 4:2:0 / 4:2:2 / 4:4:4 / 4:0:0 at 8, 10, 12 and
 * 16 bits, sizes from the smallest scored (176x176) to odd ones and 1080p,
 * random and edge planes, and the test clips (TVMAF_CLIPS, else
 * TVMAF_CLIPS_DEFAULT, which the build's test sets; a missing clip fails);
 * sizes and depths the CPU refuses (177x99, 64x64, 175 lines, 9..15 bits)
 * must be refused by the twin's setup too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_ms_ssim/float_ms_ssim_math.h"
#include "feature/float_ms_ssim/float_ms_ssim_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u
#define N_SUMS (MS_SSIM_SCALES * MS_SSIM_TERMS)


typedef struct Dev {
    const FloatMsSsimParams *p;
    const TvmafPicture *r, *d;
    MsSsimSumLayout lay;
    float *img0[MS_SSIM_SCALES], *img1[MS_SSIM_SCALES]; /* the pyramid */
    float *rows;
    double *l, *c;
    float *s;
    double sums[N_SUMS];
    int scale;    /* of the launch being replayed */
    size_t rows_n;
} Dev;

static void load_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const size_t i = (size_t)y * (size_t)v->p->w[0] + (size_t)x;
    const unsigned a = replay_get(v->r, 0, (unsigned)x, (unsigned)y);
    const unsigned b = replay_get(v->d, 0, (unsigned)x, (unsigned)y);
    if (v->p->bpc == 8) {
        v->img0[0][i] = ssim_sample_8((uint8_t)a);
        v->img1[0][i] = ssim_sample_8((uint8_t)b);
    } else {
        const float div = ssim_hbd_divisor(v->p->bpc);
        v->img0[0][i] = ssim_sample_hbd((uint16_t)a, div);
        v->img1[0][i] = ssim_sample_hbd((uint16_t)b, div);
    }
}

static void down_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const int i = v->scale, w = v->p->w[i - 1], h = v->p->h[i - 1];
    const int cx = x * MS_SSIM_DOWN, cy = y * MS_SSIM_DOWN;
    v->img0[i][(size_t)y * v->p->w[i] + x] =
        ssim_filter_at(v->img0[i - 1], w, h, cx, cy, ms_ssim_lpf, MS_SSIM_LPF_LEN,
                       MS_SSIM_LPF_LEN);
    v->img1[i][(size_t)y * v->p->w[i] + x] =
        ssim_filter_at(v->img1[i - 1], w, h, cx, cy, ms_ssim_lpf, MS_SSIM_LPF_LEN,
                       MS_SSIM_LPF_LEN);
}

static void rows_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const int w = v->p->w[v->scale], ow = w - SSIM_WIN + 1;
    float out[5];
    ms_ssim_rows_at(v->img0[v->scale] + (size_t)y * w + x, v->img1[v->scale] + (size_t)y * w + x,
                    ssim_win_taps, out);
    for (int q = 0; q < 5; q++) v->rows[q * v->rows_n + (size_t)y * ow + x] = out[q];
}

static void windows_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const int ow = v->p->w[v->scale] - SSIM_WIN + 1;
    const SsimLcs o = ms_ssim_window_at(v->rows + (size_t)y * ow + x, v->rows_n, ow,
                                        ssim_win_taps, ssim_consts());
    const size_t i = (size_t)v->lay.off[v->scale] + (size_t)y * ow + x;
    v->l[i] = o.l;
    v->c[i] = o.c;
    v->s[i] = (float)o.s;
}

/* float_ms_ssim_sums: the blocks in any order; in a block, tile t + 1 is
 * staged before tile t is added (a staging that wrote the tile being added
 * would change the sum here). */
static void replay_sums(Dev *v)
{
    static double tile[2][MS_SSIM_SUM_TILE];
    unsigned order[N_SUMS];
    replay_scramble(order, N_SUMS);
    for (unsigned b = 0; b < N_SUMS; b++) {
        const int blk = (int)order[b], scale = blk / MS_SSIM_TERMS, term = blk % MS_SSIM_TERMS;
        const size_t off = (size_t)v->lay.off[scale];
        const int n = v->lay.n[scale];
        const double *vd = (term == 0 ? v->l : v->c) + off;
        const float *vf = v->s + off;
        const int n_tiles = (n + MS_SSIM_SUM_TILE - 1) / MS_SSIM_SUM_TILE;
        replay_garbage(tile, sizeof(tile));
        for (int i = 0; i < MS_SSIM_SUM_TILE && i < n; i++)
            tile[0][i] = term == 2 ? (double)vf[i] : vd[i];
        double acc = 0.0;
        for (int t = 0; t < n_tiles; t++) {
            const int base = t * MS_SSIM_SUM_TILE, next = base + MS_SSIM_SUM_TILE;
            for (int i = 0; i < MS_SSIM_SUM_TILE && next + i < n; i++)
                tile[(t + 1) & 1][i] = term == 2 ? (double)vf[next + i] : vd[next + i];
            const int m = n - base < MS_SSIM_SUM_TILE ? n - base : MS_SSIM_SUM_TILE;
            acc = ms_ssim_sum_run(acc, tile[t & 1], m);
        }
        v->sums[blk] = acc;
    }
}

/* The CPU's pyramid and running sums of this frame must equal the replay's
 * as bits. */
static void cpu_check(const char *what, const Dev *v)
{
    const FloatMsSsimParams *p = v->p;
    size_t total = 0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) total += 2 * (size_t)p->w[i] * (size_t)p->h[i];
    float *mem = malloc(sizeof(float) * total), *ref[MS_SSIM_SCALES], *dis[MS_SSIM_SCALES];
    void *scratch = malloc(ssim_scratch_bytes(p->w[0]));
    double *acc = malloc(sizeof(double) * (size_t)p->w[1]);
    if (!mem || !scratch || !acc) {
        replay_fail("out of memory");
        goto out;
    }
    float *q = mem;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        ref[i] = q;
        q += (size_t)p->w[i] * (size_t)p->h[i];
        dis[i] = q;
        q += (size_t)p->w[i] * (size_t)p->h[i];
    }
    ssim_load_plane(ref[0], v->r->data[0], v->r->stride[0], v->r->w[0], v->r->h[0], p->bpc);
    ssim_load_plane(dis[0], v->d->data[0], v->d->stride[0], v->d->w[0], v->d->h[0], p->bpc);
    for (int i = 1; i < MS_SSIM_SCALES; i++) {
        ssim_down_sample(ref[i - 1], p->w[i - 1], p->h[i - 1], MS_SSIM_DOWN, ms_ssim_lpf,
                         MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN, ref[i], p->w[i], p->h[i], acc);
        ssim_down_sample(dis[i - 1], p->w[i - 1], p->h[i - 1], MS_SSIM_DOWN, ms_ssim_lpf,
                         MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN, dis[i], p->w[i], p->h[i], acc);
    }
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        const size_t n = (size_t)p->w[i] * (size_t)p->h[i];
        if (memcmp(ref[i], v->img0[i], n * sizeof(float)) ||
            memcmp(dis[i], v->img1[i], n * sizeof(float)))
            replay_fail("%s: scale %d of the pyramid differs from the CPU's", what, i);
        SsimSums cpu;
        ssim_evaluate_sums(ref[i], dis[i], p->w[i], p->h[i], scratch, &cpu);
        const double *got = v->sums + MS_SSIM_TERMS * i;
        if (!replay_same_bits(cpu.l, got[0]) || !replay_same_bits(cpu.c, got[1]) ||
            !replay_same_bits(cpu.s, got[2]))
            replay_fail("%s: scale %d sums: cpu %.17g %.17g %.17g replay %.17g %.17g %.17g",
                        what, i, cpu.l, cpu.c, cpu.s, got[0], got[1], got[2]);
    }
out:
    free(mem);
    free(scratch);
    free(acc);
}

/*
 * tvmaf_float_ms_ssim_report's outputs, in its order, from the 15 float means
 * as the twin passes them (in memory; not inlined, as float_ssim's replay
 * explains: GCC once kept means unrounded across an inlined report).
 */
static __attribute__((noinline)) unsigned report(const FloatMsSsimParams *p, const float *l,
                                                 const float *c, const float *s, double *out)
{
    double score = 1.0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        score *= ms_ssim_factor(l[i], c[i], s[i], (unsigned)i);
        if (score == INFINITY) return 0;
    }
    unsigned n = 0;
    out[n++] = p->enable_db ? ssim_to_db(score, p->max_db) : score;
    if (p->enable_lcs) {
        const float *v[3] = { l, c, s };
        for (int t = 0; t < 3; t++)
            for (int i = 0; i < MS_SSIM_SCALES; i++) out[n++] = v[t][i];
    }
    return n;
}

static int params(const char *opts, enum TvmafPixelFormat fmt, unsigned bpc, unsigned w,
                  unsigned h, FloatMsSsimParams *p, char *msg, size_t len)
{
    memset(p, 0, sizeof(*p));
    tvmaf_options_set_defaults(tvmaf_float_ms_ssim_options, p);
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0, false };
    if (tvmaf_options_parse(tvmaf_float_ms_ssim_options, p, opts, "float_ms_ssim", msg, len))
        return -2;
    return tvmaf_float_ms_ssim_setup(p, &vi, msg, len) ? -1 : 0;
}

/* Replays one frame of the twin; its outputs in key order. */
static unsigned replay_pair(const FloatMsSsimParams *p, const char *what, int small_grid,
                            const TvmafPicture *r, const TvmafPicture *d, double *out)
{
    Dev v = { .p = p, .r = r, .d = d };
    size_t pyr = 0, nwin = 0;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        pyr += 2 * (size_t)p->w[i] * (size_t)p->h[i];
        v.lay.off[i] = nwin;
        v.lay.n[i] = ms_ssim_n_windows(p->w[i], p->h[i]);
        nwin += (size_t)v.lay.n[i];
    }
    const size_t rows = 5 * (size_t)(p->w[0] - SSIM_WIN + 1) * (size_t)p->h[0];
    float *mem = malloc(sizeof(float) * pyr);
    v.rows = malloc(sizeof(float) * rows);
    v.l = malloc(sizeof(double) * nwin);
    v.c = malloc(sizeof(double) * nwin);
    v.s = malloc(sizeof(float) * nwin);
    unsigned n = 0;
    if (!mem || !v.rows || !v.l || !v.c || !v.s) {
        replay_fail("out of memory");
        goto out;
    }
    replay_garbage(mem, sizeof(float) * pyr);
    replay_garbage(v.rows, sizeof(float) * rows);
    replay_garbage(v.l, sizeof(double) * nwin);
    replay_garbage(v.c, sizeof(double) * nwin);
    replay_garbage(v.s, sizeof(float) * nwin);
    replay_garbage(v.sums, sizeof(v.sums));
    float *q = mem;
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        v.img0[i] = q;
        q += (size_t)p->w[i] * (size_t)p->h[i];
        v.img1[i] = q;
        q += (size_t)p->w[i] * (size_t)p->h[i];
    }
#define GY(h) (small_grid ? 2u : SSIM_GRID_Y((unsigned)(h)))
    replay_grid(p->w[0], p->h[0], GY(p->h[0]), SSIM_BLOCK_W, SSIM_BLOCK_H, load_thread, &v);
    for (v.scale = 1; v.scale < MS_SSIM_SCALES; v.scale++)
        replay_grid(p->w[v.scale], p->h[v.scale], GY(p->h[v.scale]), SSIM_BLOCK_W, SSIM_BLOCK_H, down_thread, &v);
    for (v.scale = 0; v.scale < MS_SSIM_SCALES; v.scale++) {
        const int sw = p->w[v.scale], sh = p->h[v.scale];
        const int ow = sw - SSIM_WIN + 1, oh = sh - SSIM_WIN + 1;
        v.rows_n = (size_t)ow * (size_t)sh;
        replay_grid(ow, sh, GY(sh), SSIM_BLOCK_W, SSIM_BLOCK_H, rows_thread, &v);
        replay_grid(ow, oh, GY(oh), SSIM_BLOCK_W, SSIM_BLOCK_H, windows_thread, &v);
    }
#undef GY
    replay_sums(&v);
    cpu_check(what, &v);
    /* the host's part (float_ms_ssim_cuda.c) */
    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], s[MS_SSIM_SCALES];
    for (int i = 0; i < MS_SSIM_SCALES; i++) {
        const double *sum = v.sums + MS_SSIM_TERMS * i;
        l[i] = ssim_mean(sum[0], v.lay.n[i]);
        c[i] = ssim_mean(sum[1], v.lay.n[i]);
        s[i] = ssim_mean(sum[2], v.lay.n[i]);
    }
    n = report(p, l, c, s, out);
    if (!n) replay_fail("%s: the product overflowed", what);
out:
    free(mem);
    free(v.rows);
    free(v.l);
    free(v.c);
    free(v.s);
    return n;
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    FloatMsSsimParams p;
    char msg[512];
    if (params(c->opts, c->fmt, c->bpc, c->w, c->h, &p, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return 0;
    }
    return replay_pair(&p, c->what, c->flags & FLAG_SMALL_GRID, r, d, out);
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    static const char *const keys[1 + 3 * MS_SSIM_SCALES] = {
        "float_ms_ssim",
        "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
        "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4",
        "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
        "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4",
        "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
        "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4",
    };
    return keys[q];
}

static unsigned n_refused;

static void run_case(const ReplayCase *c)
{
    FloatMsSsimParams p;
    char msg[512];
    const int e = params(c->opts, c->fmt, c->bpc, c->w, c->h, &p, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses("float_ms_ssim", c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        return;
    }
    if (e) {
        replay_fail("%s: options: %s", c->what, msg);
        return;
    }
    const ReplayPairTwin twin = { "float_ms_ssim", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* ---- the test clips (raw planar YUV, clips/NAME.{ref,dis}.yuv) ---- */

typedef struct Clip {
    const char *name;
    enum TvmafPixelFormat fmt;
    unsigned bpc, w, h, frames;
    const char *opts;
} Clip;

/* Reads frame k of a raw file into pic (allocated here); 0 on success. */
static int read_frame(FILE *f, const Clip *cl, unsigned k, TvmafPicture *pic)
{
    if (tvmaf_picture_alloc(pic, cl->fmt, cl->bpc, cl->w, cl->h)) return -1;
    if (!replay_read_frame(f, pic, k)) return 0;
    tvmaf_picture_unref(pic);
    return -1;
}

static void run_clip(const char *dir, const Clip *cl)
{
    char what[256], path[2][1024];
    snprintf(what, sizeof(what), "clip %s [%s]", cl->name, cl->opts);
    FloatMsSsimParams p;
    char msg[512];
    replay_cases++;
    const int e = params(cl->opts, cl->fmt, cl->bpc, cl->w, cl->h, &p, msg, sizeof(msg));
    if (e == -1) {
        replay_check_cpu_refuses("float_ms_ssim", cl->opts, cl->fmt, cl->bpc, cl->w, cl->h);
        n_refused++;
        printf("%s: refused by both\n", what);
        return;
    }
    if (e) {
        replay_fail("%s: options: %s", what, msg);
        return;
    }
    snprintf(path[0], sizeof(path[0]), "%s/%s.ref.yuv", dir, cl->name);
    snprintf(path[1], sizeof(path[1]), "%s/%s.dis.yuv", dir, cl->name);
    FILE *fr = fopen(path[0], "rb"), *fd = fopen(path[1], "rb");
    TvmafContext *ctx = NULL;
    static double values[REPLAY_MAX_FRAMES][REPLAY_MAX_KEYS];
    unsigned n_values[REPLAY_MAX_FRAMES] = { 0 }, k = 0;
    if (!fr || !fd) {
        replay_fail("%s: cannot open %s or %s", what, path[0], path[1]);
        goto out;
    }
    if (!(ctx = replay_cpu_open("float_ms_ssim", cl->opts, what))) goto out;
    for (; k < cl->frames && k < REPLAY_MAX_FRAMES; k++) {
        TvmafPicture ref, dis;
        if (read_frame(fr, cl, k, &ref)) {
            replay_fail("%s: cannot read frame %u", what, k);
            break;
        }
        if (read_frame(fd, cl, k, &dis)) {
            tvmaf_picture_unref(&ref);
            replay_fail("%s: cannot read frame %u", what, k);
            break;
        }
        n_values[k] = replay_pair(&p, what, 0, &ref, &dis, values[k]);
        const int err = replay_cpu_read(ctx, &ref, &dis, k, what);
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
        if (err) break;
    }
    if (k == cl->frames && !replay_cpu_flush(ctx, what))
        for (unsigned i = 0; i < k; i++)
            for (unsigned q = 0; q < n_values[i]; q++)
                replay_check_key(ctx, key(NULL, q), i, values[i][q], what);
    printf("%s: %u frame(s)\n", what, k);
out:
    if (fr) fclose(fr);
    if (fd) fclose(fd);
    tvmaf_close(ctx);
}

static void run_clips(void)
{
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir || !dir[0]) {
        printf("neither TVMAF_CLIPS nor TVMAF_CLIPS_DEFAULT is set: the clip cases are not run\n");
        return;
    }
    static const Clip clips[] = {
        { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 4, "enable_lcs=true" },
        { "cups_576x324_10b", TVMAF_PIX_FMT_YUV420P, 10, 576, 324, 3, "enable_lcs=true" },
        { "cups_576x324_12b", TVMAF_PIX_FMT_YUV420P, 12, 576, 324, 3,
          "enable_db=true:clip_db=true" },
        { "cups_576x324_16b", TVMAF_PIX_FMT_YUV420P, 16, 576, 324, 3, "enable_lcs=true" },
        { "cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 8, 576, 324, 3, "enable_db=true" },
        { "cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 10, 576, 324, 3, "enable_lcs=true" },
        { "noise_320x180", TVMAF_PIX_FMT_YUV420P, 8, 320, 180, 8, "enable_lcs=true" },
        { "forest_1920x1080", TVMAF_PIX_FMT_YUV420P, 8, 1920, 1080, 1, "enable_lcs=true" },
        { "tiny_177x99", TVMAF_PIX_FMT_YUV420P, 8, 177, 99, 8, "" },
        { "flat_64x64", TVMAF_PIX_FMT_YUV420P, 8, 64, 64, 4, "" },
    };
    for (size_t i = 0; i < REPLAY_COUNT(clips); i++) run_clip(dir, &clips[i]);
}

int main(void)
{
    replay_seed(0x2545f4914f6cdd1dull);
    static const char *const all_opts[] = {
        "", "enable_lcs=true", "enable_db=true", "enable_db=true:clip_db=true", "clip_db=true",
        "enable_db=true:clip_db=true:enable_lcs=true",
    };
    static const ReplaySize two[] = { { 176, 176 }, { 181, 177 } };
    static const ReplayFill opt_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_EQUAL }, { REPLAY_INVERT },
    };
    const ReplayMatrix options = { .name = "float_ms_ssim options", REPLAY_SET(opts, all_opts),
                                   REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, two),
                                   REPLAY_SET(depths, replay_8_16),
                                   REPLAY_SET(seqs, opt_fills), .n_frames = 2 };
    replay_matrix(&options, run_case);

    static const char *const lcs[] = { "enable_lcs=true" };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize sizes[] = {
        { 176, 176 }, { 177, 179 }, { 2 * SSIM_BLOCK_W * 4 + 1, 191 }, { 241, 183 },
        { 177, 99 },  { 64, 64 },   { 175, 400 },                      { 400, 175 },
    };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH },   { REPLAY_EXTREMES },
        { REPLAY_EDGES },               { REPLAY_REF_FLAT }, { REPLAY_CONST0 },
    };
    const ReplayMatrix layouts = { .name = "float_ms_ssim layouts x sizes x depths x fills",
                                   REPLAY_SET(opts, lcs), REPLAY_SET(fmts, fmts),
                                   REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                                   REPLAY_SET(seqs, fills) };
    replay_matrix(&layouts, run_case);

    static const unsigned odd_depths[] = { 9, 11, 13, 14, 15 };
    static const ReplaySize one[] = { { 176, 176 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    const ReplayMatrix depths = { .name = "float_ms_ssim depths it refuses",
                                  REPLAY_SET(opts, lcs), REPLAY_SET(fmts, replay_420),
                                  REPLAY_SET(sizes, one), REPLAY_SET(depths, odd_depths),
                                  REPLAY_SET(seqs, rnd) };
    const unsigned before = n_refused;
    replay_matrix(&depths, run_case);
    if (n_refused - before != REPLAY_COUNT(odd_depths))
        replay_fail("depths 9, 11, 13, 14, 15: not all refused by the twin's setup");

    static const ReplaySize tall[] = { { 180, 400 } };
    const ReplayMatrix grid = { .name = "float_ms_ssim row stride (2 blocks in y)",
                                REPLAY_SET(opts, lcs), REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, rnd), .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);

    /* scale 0 of 1080p has many tiles of the sum blocks, a partial last one */
    static const ReplaySize s1080[] = { { 1920, 1080 } };
    static const unsigned d8_10[] = { 8, 10 };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    const ReplayMatrix big = { .name = "float_ms_ssim 1920x1080", REPLAY_SET(opts, lcs),
                               REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, s1080),
                               REPLAY_SET(depths, d8_10), REPLAY_SET(seqs, near) };
    replay_matrix(&big, run_case);

    run_clips();
    printf("refused by both: %u cases\n", n_refused);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_ms_ssim");
}
