/*
 * Host replay of the float_adm CUDA twin (float_adm.cu), compared bit for bit
 * with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_adm_tile.h's, the one the kernels compile: per
 * scale the dwt, decouple, terms and (p = 3) rows launches, one thread per
 * coefficient or per (term, row), blocks of FADM_BLOCK_W x FADM_BLOCK_H with
 * FADM_GRID_Y blocks in y striding over further rows, blocks and threads in
 * scrambled orders; the device buffers start as garbage at the instance's
 * set-up and keep what earlier frames left. The host side is the twin's:
 * the device's division and table (fadm_tile_division: in "host" mode this
 * processor's estimates, probed into a table and replayed through the model,
 * as the device does, where the CPU extractor calls the instruction), the
 * read-back of the row totals (p = 3) or of the terms' bases (other p), the
 * rows added top to bottom, the pooling and the outputs of the CPU's code.
 *
 * Cases: every option of the option table (division modes host, table, ieee
 * and the default; the gain limit, viewing distance, display height, CSF
 * modes, p-norms, bypass_cm, noise weight, CSF scales, per-scale factors,
 * skip_scale0, skip_aim_scale, the adm3 combinations, debug: every output),
 * layouts 4:2:0 .. 4:0:0, 8 to 16 bits, sizes from the smallest the CPU
 * accepts to odd ones past a block, random and edge planes, the real clips of
 * .cache/clips in the three modes; sizes, depths and option values the CPU
 * refuses are refused by the twin's setup (the CPU's own) too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_adm/float_adm_math.h"
#include "feature/float_adm/float_adm_state.h"
#include "feature/float_adm/float_adm_tile.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u /* 2 blocks in y: the threads' row stride */

/* The twin's device state of one instance (one case). */
typedef struct Dev {
    FloatAdmParams p;
    FadmTileScale sc[FADM_N_SCALES];
    const uint32_t *table;
    size_t plane, n_terms, n_rows;
    float *bands, *terms, *rows;
    unsigned gy_small;
    const TvmafPicture *r, *d; /* the frame's luma */
    size_t pitch;
} Dev;

typedef void (*CoefFn)(Dev *v, const FadmTileScale *c, int i, int j);

/* A per-coefficient launch over [x0, x1) x [y0, y1): the kernels' grid. */
static void fadm_grid(Dev *v, const FadmTileScale *c, int x0, int x1, int y0, int y1, CoefFn fn)
{
    const int w = x1 - x0, h = y1 - y0;
    const unsigned gx = FADM_GRID_X(w), gy = v->gy_small ? v->gy_small : FADM_GRID_Y(h);
    const unsigned nb = gx * gy, nt = FADM_BLOCK_W * FADM_BLOCK_H;
    unsigned *blocks = malloc(sizeof(unsigned) * nb), threads[FADM_BLOCK_W * FADM_BLOCK_H];
    if (!blocks) {
        replay_fail("out of memory");
        return;
    }
    replay_scramble(blocks, nb);
    for (unsigned b = 0; b < nb; b++) {
        const unsigned bx = blocks[b] % gx, by = blocks[b] / gx;
        replay_scramble(threads, nt);
        for (unsigned t = 0; t < nt; t++) {
            const int j = x0 + (int)(bx * FADM_BLOCK_W + threads[t] % FADM_BLOCK_W);
            if (j >= x1) continue;
            for (int i = y0 + (int)(by * FADM_BLOCK_H + threads[t] / FADM_BLOCK_W); i < y1;
                 i += (int)(gy * FADM_BLOCK_H))
                fn(v, c, i, j);
        }
    }
    free(blocks);
}

static void dwt_thread(Dev *v, const FadmTileScale *c, int i, int j)
{
    fadm_tile_dwt_at(c, v->r->data[0], v->d->data[0], v->pitch, v->bands, v->plane, i, j);
}

static void decouple_thread(Dev *v, const FadmTileScale *c, int i, int j)
{
    fadm_tile_decouple_at(c, v->bands, v->plane, v->table, i, j);
}

static void terms_thread(Dev *v, const FadmTileScale *c, int i, int j)
{
    fadm_tile_terms_at(c, v->bands, v->plane, v->terms, i, j);
}

static int params(const char *opts, const TvmafVideoInfo *vi, FloatAdmParams *p, char *msg,
                  size_t len)
{
    memset(p, 0, sizeof(*p));
    tvmaf_options_set_defaults(tvmaf_float_adm_options, p);
    if (tvmaf_options_parse(tvmaf_float_adm_options, p, opts, "float_adm", msg, len)) return -2;
    return tvmaf_float_adm_setup(p, vi, msg, len) ? -1 : 0;
}

static void dev_free(Dev *v)
{
    free(v->bands);
    free(v->terms);
    free(v->rows);
    memset(v, 0, sizeof(*v));
}

/* The twin's init: setup, the division, the buffers (garbage). */
static int dev_init(Dev *v, const ReplayCase *c)
{
    char msg[512];
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (params(c->opts, &vi, &v->p, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return -1;
    }
    const int div = fadm_tile_division(&v->p, &v->table, msg, sizeof(msg));
    if (div < 0) {
        replay_fail("%s: %s", c->what, msg);
        return -1;
    }
    fadm_tile_init(v->sc, &v->p, div, &v->n_terms, &v->n_rows);
    v->plane = (size_t)((v->p.w + 1) / 2) * (size_t)((v->p.h + 1) / 2);
    v->bands = malloc(FADM_N_PLANES * v->plane * sizeof(float));
    v->terms = malloc(v->n_terms * sizeof(float));
    v->rows = malloc(v->n_rows * sizeof(float));
    if (!v->bands || !v->terms || !v->rows) {
        replay_fail("out of memory");
        return -1;
    }
    replay_garbage(v->bands, FADM_N_PLANES * v->plane * sizeof(float));
    replay_garbage(v->terms, v->n_terms * sizeof(float));
    replay_garbage(v->rows, v->n_rows * sizeof(float));
    v->gy_small = (c->flags & FLAG_SMALL_GRID) ? 2u : 0u;
    return 0;
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    Dev *v = priv;
    if (k == 0 && dev_init(v, c)) return 0;
    if (!v->bands) return 0;
    if (r->stride[0] != d->stride[0]) {
        replay_fail("%s: the pictures' luma strides differ", c->what);
        return 0;
    }
    v->r = r;
    v->d = d;
    v->pitch = (size_t)r->stride[0];
    for (int s = 0; s < FADM_N_SCALES; s++) {
        const FadmTileScale *sc = &v->sc[s];
        fadm_grid(v, sc, 0, sc->w, 0, sc->h, dwt_thread);
        if (sc->lo_only) continue;
        fadm_grid(v, sc, sc->work_l, sc->work_r, sc->work_t, sc->work_b, decouple_thread);
        fadm_grid(v, sc, sc->l, sc->r, sc->t, sc->b, terms_thread);
        if (!sc->cube) continue;
        const unsigned n = (unsigned)(FADM_N_TERMS * sc->ph);
        const unsigned nb = (n + FADM_ROW_THREADS - 1) / FADM_ROW_THREADS;
        unsigned *ids = malloc(sizeof(unsigned) * nb * FADM_ROW_THREADS);
        if (!ids) {
            replay_fail("out of memory");
            return 0;
        }
        replay_scramble(ids, nb * FADM_ROW_THREADS);
        for (unsigned t = 0; t < nb * FADM_ROW_THREADS; t++)
            if (ids[t] < n) fadm_tile_row(sc, v->terms, v->rows, (int)ids[t]);
        free(ids);
    }
    /* the read-back: only what the twin copies to the host */
    const size_t n_back = v->p.cube ? v->n_rows : v->n_terms;
    float *back = malloc((n_back ? n_back : 1) * sizeof(float));
    if (!back) {
        replay_fail("out of memory");
        return 0;
    }
    memcpy(back, v->p.cube ? v->rows : v->terms, n_back * sizeof(float));
    FadmScaleSums sums[FADM_N_SCALES];
    fadm_tile_scales(v->sc, &v->p, back, back, sums);
    free(back);
    return tvmaf_float_adm_outputs(&v->p, sums, out);
}

static const char *key(void *priv, unsigned q)
{
    return ((Dev *)priv)->p.key[q];
}

static unsigned n_refused;

static void run_case(const ReplayCase *c)
{
    FloatAdmParams p;
    char msg[512];
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    const int e = params(c->opts, &vi, &p, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses("float_adm", c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        return;
    }
    if (e) {
        replay_fail("%s: options: %s", c->what, msg);
        return;
    }
    Dev v;
    memset(&v, 0, sizeof(v));
    const ReplayPairTwin twin = { "float_adm", &v, replay_frame, key };
    replay_pair_case(c, &twin);
    dev_free(&v);
}

/* ---- real clips ---- */

static const char *clips_dir(void)
{
    const char *env = getenv("TVMAF_CLIPS");
    return env && env[0] ? env : TVMAF_SOURCE_ROOT "/.cache/clips";
}

typedef struct Clip {
    const char *name;
    unsigned w, h, bpc;
    enum TvmafPixelFormat fmt;
    unsigned frames;
} Clip;

/* Frame k's luma of a raw clip into pic (chroma zeroed: float_adm reads luma only). */
static int read_luma(FILE *f, const Clip *cl, unsigned k, TvmafPicture *pic)
{
    const unsigned bps = cl->bpc > 8 ? 2 : 1;
    const unsigned cw = cl->fmt == TVMAF_PIX_FMT_YUV444P ? cl->w : (cl->w + 1) / 2;
    const unsigned ch = cl->fmt == TVMAF_PIX_FMT_YUV420P ? (cl->h + 1) / 2 : cl->h;
    const size_t luma = (size_t)cl->w * cl->h * bps, chroma = (size_t)cw * ch * bps;
    if (fseek(f, (long)((luma + 2 * chroma) * k), SEEK_SET)) return -1;
    for (unsigned y = 0; y < cl->h; y++)
        if (fread((unsigned char *)pic->data[0] + (size_t)y * pic->stride[0], 1,
                  (size_t)cl->w * bps, f) != (size_t)cl->w * bps)
            return -1;
    for (int pl = 1; pl < replay_n_planes(pic); pl++)
        memset(pic->data[pl], 0, (size_t)pic->stride[pl] * pic->h[pl]);
    return 0;
}

static void clip_case(const Clip *cl, const char *opts)
{
    char what[256], path[2][1200];
    snprintf(what, sizeof(what), "clip %s [%s] %u frames", cl->name, opts, cl->frames);
    const char *dir = clips_dir();
    snprintf(path[0], sizeof(path[0]), "%s/%s.ref.yuv", dir, cl->name);
    snprintf(path[1], sizeof(path[1]), "%s/%s.dis.yuv", dir, cl->name);
    FILE *fr = fopen(path[0], "rb"), *fd = fopen(path[1], "rb");
    if (!fr || !fd) {
        replay_fail("%s: cannot open %s (set TVMAF_CLIPS)", what, fr ? path[1] : path[0]);
        if (fr) fclose(fr);
        if (fd) fclose(fd);
        return;
    }
    ReplayCase c;
    memset(&c, 0, sizeof(c));
    c.fmt = cl->fmt;
    c.bpc = cl->bpc;
    c.w = cl->w;
    c.h = cl->h;
    c.opts = opts;
    c.n_frames = cl->frames;
    snprintf(c.what, sizeof(c.what), "%s", what);
    Dev v;
    memset(&v, 0, sizeof(v));
    static double values[REPLAY_MAX_FRAMES][REPLAY_MAX_KEYS];
    unsigned n_values[REPLAY_MAX_FRAMES] = { 0 }, k = 0;
    TvmafContext *ctx = replay_cpu_open("float_adm", opts, what);
    for (; ctx && k < cl->frames; k++) {
        TvmafPicture ref, dis;
        if (replay_pictures(&c, &ref, &dis)) break;
        if (read_luma(fr, cl, k, &ref) || read_luma(fd, cl, k, &dis)) {
            replay_fail("%s: short read at frame %u", what, k);
            tvmaf_picture_unref(&ref);
            tvmaf_picture_unref(&dis);
            break;
        }
        n_values[k] = replay_frame(&v, &c, &ref, &dis, k, values[k]);
        const int err = replay_cpu_read(ctx, &ref, &dis, k, what);
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
        if (err) break;
    }
    if (ctx && k == cl->frames && !replay_cpu_flush(ctx, what)) {
        for (unsigned i = 0; i < cl->frames; i++) {
            if (!n_values[i]) replay_fail("%s: frame %u has no replayed values", what, i);
            for (unsigned q = 0; q < n_values[i]; q++)
                replay_check_key(ctx, key(&v, q), i, values[i][q], what);
        }
    }
    tvmaf_close(ctx);
    dev_free(&v);
    fclose(fr);
    fclose(fd);
    printf("%s: compared\n", what);
    replay_cases++;
}

/* An option value the parser refuses is refused for both (one option table):
 * the CPU context must refuse it too. */
static void option_refusal(const char *opts)
{
    FloatAdmParams p;
    char msg[512];
    const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, 8, 64, 64, 0, false };
    if (params(opts, &vi, &p, msg, sizeof(msg)) == 0) {
        replay_fail("option refusal [%s]: the twin's setup accepted it", opts);
        return;
    }
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
    TvmafContext *ctx = NULL;
    char spec[256];
    snprintf(spec, sizeof(spec), "float_adm=%s", opts);
    if (tvmaf_init(&ctx, &cfg))
        replay_fail("option refusal [%s]: CPU context: init", opts);
    else if (!tvmaf_use_feature(ctx, spec))
        replay_fail("option refusal [%s]: the CPU accepted it", opts);
    tvmaf_close(ctx);
    n_refused++;
    replay_cases++;
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);

    /* every option, each division mode with the default options and with the outputs' debug
     * values */
    static const char *const opts[] = {
        "",
        "adm_div=host:debug=true",
        "adm_div=table:debug=true",
        "adm_div=ieee:debug=true",
        "adm_enhn_gain_limit=1.2:debug=true",
        "adm_enhn_gain_limit=1.0:adm_div=table",
        "adm_norm_view_dist=1.5:adm_ref_display_height=720:debug=true",
        "adm_norm_view_dist=24:adm_ref_display_height=4320:adm_div=ieee",
        "adm_csf_mode=1:debug=true",
        "adm_csf_mode=2:adm_div=ieee:debug=true",
        "adm_p_norm=2:debug=true",
        "adm_p_norm=4.5:adm_div=table:debug=true",
        "adm_p_norm=1:adm_div=ieee:debug=true",
        "adm_p_norm=20:adm_div=host",
        "adm_bypass_cm=1:debug=true",
        "adm_noise_weight=0.5:adm_csf_scale=2:adm_csf_diag_scale=0.5:debug=true",
        "adm_skip_scale0=true:debug=true",
        "adm_skip_aim_scale=2:adm_adm3_apply_hm=true:debug=true",
        "adm_dlm_weight=0.3:adm_min_val=0.2:adm_div=table",
        "adm_f1s0=0.5:adm_f2s3=2:adm_f1s2=0:adm_f2s1=10:debug=true",
    };
    static const ReplaySize sizes[] = { { 17, 17 }, { 64, 64 }, { 177, 99 } };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_LINES, REPLAY_LINES_DIM },
        { REPLAY_EDGES, REPLAY_SMOOTH },
    };
    const ReplayMatrix all = { .name = "float_adm options x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    replay_matrix(&all, run_case);

    /* the division modes over layouts, more sizes and every fill */
    static const char *const modes[] = { "adm_div=host:debug=true", "adm_div=table:debug=true",
                                         "adm_div=ieee:debug=true" };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
    static const ReplaySize more[] = { { 18, 31 }, { 33, 65 },
                                       { 2 * FADM_BLOCK_W + 5, 2 * FADM_BLOCK_H + 3 } };
    static const ReplayFill every[][REPLAY_MAX_FRAMES] = {
        { REPLAY_EXTREMES }, { REPLAY_CONST0 }, { REPLAY_CONSTMAX }, { REPLAY_EQUAL },
        { REPLAY_REF_FLAT }, { REPLAY_INVERT }, { REPLAY_LEVELS }, { REPLAY_SWEEP },
    };
    const ReplayMatrix layouts = { .name = "float_adm division modes x layouts x sizes x fills",
                                   REPLAY_SET(opts, modes), REPLAY_SET(fmts, fmts),
                                   REPLAY_SET(sizes, more), REPLAY_SET(depths, replay_8_16),
                                   REPLAY_SET(seqs, every) };
    replay_matrix(&layouts, run_case);

    /* rows beyond the grid: 2 blocks in y, every thread strides */
    static const ReplaySize tall[] = { { 40, 150 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM, REPLAY_NEAR } };
    static const char *const grid_opts[] = { "adm_div=table:debug=true", "adm_p_norm=2.5" };
    const ReplayMatrix grid = { .name = "float_adm row stride (2 blocks in y)",
                                REPLAY_SET(opts, grid_opts), REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, rnd), .n_frames = 2, .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);

    /* what the CPU refuses: too small, an unknown division */
    static const char *const ref_opts[] = { "", "adm_div=fast" };
    static const ReplaySize small[] = { { 16, 17 }, { 17, 16 }, { 1, 1 } };
    const ReplayMatrix refused = { .name = "float_adm refusals", REPLAY_SET(opts, ref_opts),
                                   REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, small),
                                   REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd) };
    replay_matrix(&refused, run_case);
    option_refusal("adm_p_norm=0.5");
    option_refusal("adm_enhn_gain_limit=0.9");
    option_refusal("adm_csf_mode=10");
    option_refusal("adm_no_such_option=1");

    /* real clips, first frames, in the three modes (and a p-norm read back as bases) */
    static const Clip clips[] = {
        { "cups_576x324", 576, 324, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "cups_576x324_10b", 576, 324, 10, TVMAF_PIX_FMT_YUV420P, 2 },
        { "cups_576x324_16b", 576, 324, 16, TVMAF_PIX_FMT_YUV420P, 1 },
        { "cups_576x324_444_10b", 576, 324, 10, TVMAF_PIX_FMT_YUV444P, 1 },
        { "tiny_177x99", 177, 99, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "flat_64x64", 64, 64, 8, TVMAF_PIX_FMT_YUV420P, 3 },
        { "noise_320x180", 320, 180, 8, TVMAF_PIX_FMT_YUV420P, 2 },
    };
    static const char *const clip_opts[] = { "debug=true:adm_div=host", "debug=true:adm_div=table",
                                             "debug=true:adm_div=ieee" };
    for (size_t i = 0; i < REPLAY_COUNT(clips); i++)
        for (size_t o = 0; o < REPLAY_COUNT(clip_opts); o++) clip_case(&clips[i], clip_opts[o]);
    clip_case(&clips[0], "debug=true:adm_p_norm=2.5:adm_enhn_gain_limit=1.2");

    printf("refused by both: %u cases\n", n_refused);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_adm");
}
