/*
 * Host replay of the float_vif CUDA twin (float_vif.cu, float_vif_cuda.c),
 * compared bit for bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_vif_math.h's ("The CUDA twin's decomposition"),
 * the functions the kernels compile: one thread per sample, blocks of
 * FVIF_BLOCK_W x FVIF_BLOCK_H, FVIF_GRID_Y(h) blocks in y striding over
 * further rows, blocks and threads in scrambled orders, every device buffer
 * starting as garbage. Per frame, as the twin launches them: the load
 * (fvif_load_sample), the prescale (fvif_prescale_sample with the host's
 * bilinear column tables, or fvif_lanczos_apply with the host's lanczos4
 * taps), then per scale the decimation's vertical pass into rows with
 * mirrored margins (fvif_vpass_sample at fvif_ext_column) and its
 * horizontal pass on even columns (fvif_hpass_sample, step 2), the five
 * moments' vertical pass (fvif_vpass5_sample), the horizontal passes and
 * the statistic (fvif_pixel) into num and den planes, one thread per row
 * adding its row (fvif_sum, rows in a scrambled order); the host adds each
 * scale's rows top to bottom (fvif_sum). Every output, the debug sums
 * included, is compared as bits with the CPU extractor's through the public
 * API, over option sets (kernel scales, gain limit, noise variance, skipped
 * scale 0, minimum values, each prescale method), layouts, depths, odd and
 * minimum sizes and fills; a size or option set the twin's setup refuses must
 * be refused by the CPU extractor too. Frames of the test clips (when
 * TVMAF_CLIPS or ../.cache/clips holds them) are replayed as well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/float_vif/float_vif_math.h"
#include "feature/float_vif/float_vif_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u


typedef struct Dev {
    const FloatVifParams *p;
    const TvmafPicture *r, *d;
    float divisor;
    float *load[2];             /* the loaded planes (in_w x in_h) */
    float *img[FVIF_N_SCALES][2];
    float *ext;                 /* 5 x plane_n */
    size_t plane_n;
    float *num, *den;
    float *rows;                /* rows_n */
    size_t rows_off[FVIF_N_SCALES], rows_n;
    int *col1, *col2, *lx0, *ly0;
    float *coldx, *lwx, *lwy;
    /* the launch in progress */
    int sc, w, h, pw, ph, fw, ew;
    const float *taps;
    float rx, ry;
} Dev;

static void load_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const size_t i = (size_t)y * (size_t)v->p->in_w + (size_t)x;
    v->load[0][i] = fvif_load_sample(v->r->data[0], v->r->stride[0], v->p->bpc, v->divisor, x, y);
    v->load[1][i] = fvif_load_sample(v->d->data[0], v->d->stride[0], v->p->bpc, v->divisor, x, y);
}

static void prescale_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const FloatVifParams *p = v->p;
    const size_t i = (size_t)y * (size_t)p->w[0] + (size_t)x;
    for (int q = 0; q < 2; q++)
        v->img[0][q][i] = fvif_prescale_sample((int)p->scaler, v->load[q], p->in_w, p->in_h,
                                               v->rx, v->ry, v->col1, v->col2, v->coldx, x, y);
}

static void lanczos_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const FloatVifParams *p = v->p;
    const size_t i = (size_t)y * (size_t)p->w[0] + (size_t)x;
    const float *cx = v->lwx + (size_t)FVIF_LANCZOS_TAPS * x;
    const float *cy = v->lwy + (size_t)FVIF_LANCZOS_TAPS * y;
    for (int q = 0; q < 2; q++)
        v->img[0][q][i] = fvif_lanczos_apply(v->load[q], p->in_w, p->in_h, p->in_w, v->lx0[x],
                                             v->ly0[y], cx, cy);
}

static void decimate_v_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const int c = fvif_ext_column(x, v->pw, v->fw / 2);
    for (int q = 0; q < 2; q++)
        v->ext[q * v->plane_n + (size_t)y * v->ew + x] =
            fvif_vpass_sample(v->taps, v->fw, v->img[v->sc - 1][q], v->pw, v->ph, 2 * y, c);
}

static void decimate_h_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    for (int q = 0; q < 2; q++)
        v->img[v->sc][q][(size_t)y * v->w + x] =
            fvif_hpass_sample(v->taps, v->fw, v->ext + q * v->plane_n + (size_t)y * v->ew, x, 2);
}

static void moments_v_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    float m[5];
    fvif_vpass5_sample(v->taps, v->fw, v->img[v->sc][0], v->img[v->sc][1], v->w, v->h, y,
                       fvif_ext_column(x, v->w, v->fw / 2), m);
    for (int q = 0; q < 5; q++) v->ext[q * v->plane_n + (size_t)y * v->ew + x] = m[q];
}

static void stat_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    float m[5];
    for (int q = 0; q < 5; q++)
        m[q] = fvif_hpass_sample(v->taps, v->fw, v->ext + q * v->plane_n + (size_t)y * v->ew, x, 1);
    const size_t i = (size_t)y * v->w + x;
    fvif_pixel(m[0], m[1], m[2], m[3], m[4], &v->p->stat, &v->num[i], &v->den[i]);
}

/* float_vif_rows: one thread per row, in a scrambled order. */
static void rows_launch(Dev *v)
{
    unsigned *order = malloc(sizeof(unsigned) * (size_t)v->h);
    if (!order) {
        replay_fail("out of memory");
        return;
    }
    replay_scramble(order, (unsigned)v->h);
    float *rn = v->rows + v->rows_off[v->sc], *rd = rn + v->h;
    for (int t = 0; t < v->h; t++) {
        const int y = (int)order[t];
        rn[y] = fvif_sum(v->num + (size_t)y * v->w, v->w);
        rd[y] = fvif_sum(v->den + (size_t)y * v->w, v->w);
    }
    free(order);
}

/* The outputs tvmaf_float_vif_report appends, in the order of p->key, from
 * the per-scale float sums as the twin passes them. */
static unsigned outputs(const FloatVifParams *p, const float *sums, double *out)
{
    double sc_[2 * FVIF_N_SCALES] = { 0 };
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        sc_[2 * sc] = sums[2 * sc];
        sc_[2 * sc + 1] = sums[2 * sc + 1];
    }
    double tn = 0.0, td = 0.0;
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        tn += sc_[2 * sc];
        td += sc_[2 * sc + 1];
    }
    const double mins[FVIF_N_SCALES] = { 0.0, p->scale1_min, p->scale2_min, p->scale3_min };
    unsigned n = 0;
    out[n++] = p->skip_scale0 ? 0.0 : sc_[0] / sc_[1];
    for (int sc = 1; sc < FVIF_N_SCALES; sc++) {
        const double q = sc_[2 * sc] / sc_[2 * sc + 1];
        out[n++] = q > mins[sc] ? q : mins[sc];
    }
    if (!p->debug) return n;
    out[n++] = td == 0.0 ? 1.0 : tn / td;
    out[n++] = tn;
    out[n++] = td;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        out[n++] = sc < p->start ? 0.0 : sc_[2 * sc];
        out[n++] = sc < p->start ? -1.0 : sc_[2 * sc + 1];
    }
    return n;
}

static int params(const ReplayCase *c, FloatVifParams *p, char *msg, size_t len)
{
    memset(p, 0, sizeof(*p));
    tvmaf_options_set_defaults(tvmaf_float_vif_options, p);
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_options_parse(tvmaf_float_vif_options, p, c->opts, "float_vif", msg, len))
        return -2;
    return tvmaf_float_vif_setup(p, &vi, msg, len) ? -1 : 0;
}

/* The host's tables, as float_vif_cuda.c computes and uploads them. */
static int tables(Dev *v)
{
    const FloatVifParams *p = v->p;
    const int dw = p->w[0], dh = p->h[0];
    if (!p->rescale) return 0;
    if (p->scaler == FVIF_SCALE_BILINEAR) {
        v->col1 = malloc(sizeof(int) * (size_t)dw);
        v->col2 = malloc(sizeof(int) * (size_t)dw);
        v->coldx = malloc(sizeof(float) * (size_t)dw);
        if (!v->col1 || !v->col2 || !v->coldx) return -1;
        fvif_bilinear_columns(p->in_w, dw, v->col1, v->col2, v->coldx);
    } else if (p->scaler == FVIF_SCALE_LANCZOS4) {
        v->lx0 = malloc(sizeof(int) * (size_t)dw);
        v->ly0 = malloc(sizeof(int) * (size_t)dh);
        v->lwx = malloc(sizeof(float) * FVIF_LANCZOS_TAPS * (size_t)dw);
        v->lwy = malloc(sizeof(float) * FVIF_LANCZOS_TAPS * (size_t)dh);
        if (!v->lx0 || !v->ly0 || !v->lwx || !v->lwy) return -1;
        const float rx = fvif_scale_ratio(p->in_w, dw), ry = fvif_scale_ratio(p->in_h, dh);
        for (int x = 0; x < dw; x++)
            v->lx0[x] = fvif_lanczos_axis(fvif_scale_pos(x, rx), v->lwx + FVIF_LANCZOS_TAPS * x);
        for (int y = 0; y < dh; y++)
            v->ly0[y] = fvif_lanczos_axis(fvif_scale_pos(y, ry), v->lwy + FVIF_LANCZOS_TAPS * y);
    }
    return 0;
}

static void dev_free(Dev *v)
{
    free(v->load[0]);
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) free(v->img[sc][0]);
    free(v->ext);
    free(v->num);
    free(v->rows);
    free(v->col1);
    free(v->col2);
    free(v->coldx);
    free(v->lx0);
    free(v->ly0);
    free(v->lwx);
    free(v->lwy);
}

static int dev_alloc(Dev *v)
{
    const FloatVifParams *p = v->p;
    const size_t n0 = (size_t)p->w[0] * (size_t)p->h[0];
    const size_t nin = (size_t)p->in_w * (size_t)p->in_h;
    v->plane_n = ((size_t)p->w[0] + (size_t)p->max_fw) * (size_t)p->h[0];
    v->rows_n = 0;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        v->rows_off[sc] = v->rows_n;
        v->rows_n += 2 * (size_t)p->h[sc];
    }
    if (p->rescale) {
        if (!(v->load[0] = malloc(2 * sizeof(float) * nin))) return -1;
        replay_garbage(v->load[0], 2 * sizeof(float) * nin);
        v->load[1] = v->load[0] + nin;
    }
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        const size_t n = (size_t)p->w[sc] * (size_t)p->h[sc];
        if (!(v->img[sc][0] = malloc(2 * sizeof(float) * (n ? n : 1)))) return -1;
        replay_garbage(v->img[sc][0], 2 * sizeof(float) * n);
        v->img[sc][1] = v->img[sc][0] + n;
    }
    if (!p->rescale) {
        v->load[0] = NULL; /* the load writes scale 0 directly */
    }
    if (!(v->ext = malloc(5 * sizeof(float) * v->plane_n)) ||
        !(v->num = malloc(2 * sizeof(float) * n0)) || !(v->rows = malloc(sizeof(float) * v->rows_n)))
        return -1;
    replay_garbage(v->ext, 5 * sizeof(float) * v->plane_n);
    replay_garbage(v->num, 2 * sizeof(float) * n0);
    replay_garbage(v->rows, sizeof(float) * v->rows_n);
    v->den = v->num + n0;
    return tables(v);
}

/* One frame as the twin computes it: the per-scale float sums. */
static int replay_sums(const FloatVifParams *p, const TvmafPicture *r, const TvmafPicture *d,
                       int small_grid, float sums[2 * FVIF_N_SCALES])
{
    Dev v;
    memset(&v, 0, sizeof(v));
    v.p = p;
    v.r = r;
    v.d = d;
    v.divisor = fvif_sample_divisor(p->bpc);
    if (dev_alloc(&v)) {
        dev_free(&v);
        replay_fail("out of memory");
        return -1;
    }
#define GY(h) (small_grid ? 2u : FVIF_GRID_Y((unsigned)(h)))
    float *scale0[2] = { v.img[0][0], v.img[0][1] };
    if (!p->rescale) {
        v.load[0] = scale0[0];
        v.load[1] = scale0[1];
    }
    replay_grid(p->in_w, p->in_h, GY(p->in_h), FVIF_BLOCK_W, FVIF_BLOCK_H, load_thread, &v);
    if (p->rescale) {
        v.rx = fvif_scale_ratio(p->in_w, p->w[0]);
        v.ry = fvif_scale_ratio(p->in_h, p->h[0]);
        replay_grid(p->w[0], p->h[0], GY(p->h[0]), FVIF_BLOCK_W, FVIF_BLOCK_H,
                    p->scaler == FVIF_SCALE_LANCZOS4 ? lanczos_thread : prescale_thread, &v);
    } else {
        v.load[0] = NULL; /* not freed: it is scale 0 */
    }
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        v.sc = sc;
        v.w = p->w[sc];
        v.h = p->h[sc];
        v.fw = p->fw[sc];
        v.taps = p->taps[sc];
        if (sc > 0) {
            v.pw = p->w[sc - 1];
            v.ph = p->h[sc - 1];
            v.ew = v.pw + 2 * (v.fw / 2);
            replay_grid(v.ew, v.h, GY(v.h), FVIF_BLOCK_W, FVIF_BLOCK_H, decimate_v_thread, &v);
            replay_grid(v.w, v.h, GY(v.h), FVIF_BLOCK_W, FVIF_BLOCK_H, decimate_h_thread, &v);
        }
        v.ew = v.w + 2 * (v.fw / 2);
        replay_grid(v.ew, v.h, GY(v.h), FVIF_BLOCK_W, FVIF_BLOCK_H, moments_v_thread, &v);
        replay_grid(v.w, v.h, GY(v.h), FVIF_BLOCK_W, FVIF_BLOCK_H, stat_thread, &v);
        rows_launch(&v);
    }
#undef GY
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        const float *rows = v.rows + v.rows_off[sc];
        sums[2 * sc] = fvif_sum(rows, p->h[sc]);
        sums[2 * sc + 1] = fvif_sum(rows + p->h[sc], p->h[sc]);
    }
    dev_free(&v);
    return 0;
}

static FloatVifParams case_params; /* the case in progress: its keys */
static unsigned n_refused;

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)k;
    const FloatVifParams *p = priv;
    float sums[2 * FVIF_N_SCALES] = { 0 };
    if (replay_sums(p, r, d, c->flags & FLAG_SMALL_GRID, sums)) return 0;
    return outputs(p, sums, out);
}

static const char *key(void *priv, unsigned q)
{
    return ((const FloatVifParams *)priv)->key[q];
}

static void run_case(const ReplayCase *c)
{
    char msg[512];
    const int e = params(c, &case_params, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses("float_vif", c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        return;
    }
    if (e) {
        replay_fail("%s: options: %s", c->what, msg);
        return;
    }
    if (case_params.max_fw > FVIF_MAX_FW) {
        replay_fail("%s: a %d-tap filter is wider than FVIF_MAX_FW", c->what, case_params.max_fw);
        return;
    }
    const ReplayPairTwin twin = { "float_vif", &case_params, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* ---- frames of the test clips ---- */

/* The first n frames of a 4:2:0 clip pair, scored by the replay and by the
 * CPU extractor with opts; returns 0 when the clip is not there. */
static unsigned clip_case(const char *dir, const char *name, unsigned w, unsigned h,
                          unsigned bpc, unsigned n, const char *opts)
{
    ReplayClip cl;
    if (!replay_clip_open(&cl, dir, name, NULL, TVMAF_PIX_FMT_YUV420P, w, h, bpc, n, opts))
        return 0;
    char msg[512];
    if (params(&cl.c, &case_params, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", cl.c.what, msg);
    } else {
        const ReplayPairTwin twin = { "float_vif", &case_params, replay_frame, key };
        replay_pair_frames(&cl.c, &twin, replay_clip_frames, &cl);
    }
    replay_clip_close(&cl);
    return 1;
}

int main(void)
{
    replay_seed(0x2545f4914f6cdd1dull);

    /* every accepted kernel scale keeps the filters within FVIF_MAX_FW */
    static const double ks_list[] = { 1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 4.0 / 3,
                                      3.5 / 3, 3.75 / 3, 4.25 / 3, 5.0 / 3, 3.0, 1 / 2.25,
                                      1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111 };
    for (unsigned i = 0; i < REPLAY_COUNT(ks_list); i++)
        for (int e = -1; e <= 1; e++) {
            const float ks = (float)(ks_list[i] + e * 0.00099);
            if (fvif_kernelscale_valid(ks) && fvif_filter_width(0, ks) > FVIF_MAX_FW)
                replay_fail("kernel scale %g: %d taps > FVIF_MAX_FW", (double)ks,
                            fvif_filter_width(0, ks));
        }
    replay_count("float_vif filter widths of every accepted kernel scale", 1);

    static const char *const opts[] = {
        "", "debug=true", "debug=true:vif_skip_scale0=true",
        "debug=true:vif_enhn_gain_limit=1.0", "debug=true:vif_sigma_nsq=0.5",
        "debug=true:vif_scale1_min_val=0.9:vif_scale2_min_val=0.5:vif_scale3_min_val=1.0",
        "debug=true:vif_kernelscale=0.5",
    };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P };
    static const ReplaySize sizes[] = { { 64, 64 }, { 177, 99 }, { 16, 16 }, { 15, 40 },
                                        { 33, 2 }, { FVIF_BLOCK_W + 17, FVIF_BLOCK_H + 17 } };
    static const ReplayFill fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_EQUAL },  { REPLAY_CONST0 }, { REPLAY_EDGES }, { REPLAY_REF_FLAT },
        { REPLAY_INVERT }, { REPLAY_LINES_DIM },
    };
    const ReplayMatrix all = { .name = "float_vif options x layouts x sizes x depths x fills",
                               REPLAY_SET(opts, opts), REPLAY_SET(fmts, fmts),
                               REPLAY_SET(sizes, sizes), REPLAY_SET(depths, replay_depths),
                               REPLAY_SET(seqs, fills), .n_frames = 2 };
    replay_matrix(&all, run_case);

    /* wide kernels, the noise variance at its ends and the prescale methods */
    static const char *const wide_opts[] = {
        "debug=true:vif_kernelscale=2.0", "debug=true:vif_kernelscale=3.711340",
        "debug=true:vif_kernelscale=1.5:vif_skip_scale0=true", "debug=true:vif_kernelscale=0.711111",
        "debug=true:vif_sigma_nsq=0.0", "debug=true:vif_sigma_nsq=5.0",
        "debug=true:vif_prescale=2.0:vif_prescale_method=bilinear",
        "debug=true:vif_prescale=0.7:vif_prescale_method=bilinear",
        "debug=true:vif_prescale=1.5:vif_prescale_method=bicubic",
        "debug=true:vif_prescale=0.5:vif_prescale_method=bicubic",
        "debug=true:vif_prescale=1.3:vif_prescale_method=lanczos4",
        "debug=true:vif_prescale=0.8:vif_prescale_method=lanczos4",
        "debug=true:vif_prescale=1.7", "debug=true:vif_prescale=0.6:vif_skip_scale0=true",
        "vif_prescale=1.0:vif_prescale_method=lanczos4",
    };
    static const ReplaySize wide_sizes[] = { { 177, 99 }, { 130, 260 }, { 64, 64 }, { 7, 7 },
                                             { 3, 300 } };
    static const ReplayFill wide_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_NEAR, REPLAY_RANDOM }, { REPLAY_EDGES }, { REPLAY_LINES },
    };
    const ReplayMatrix wide = { .name = "float_vif kernel scales, noise, prescale",
                                REPLAY_SET(opts, wide_opts), REPLAY_SET(fmts, replay_420),
                                REPLAY_SET(sizes, wide_sizes), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, wide_fills), .n_frames = 2 };
    replay_matrix(&wide, run_case);

    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM } };
    /* the bilinear scaler's widest output (7680) and one past it */
    static const char *const bil_opts[] = { "vif_prescale=2.0:vif_prescale_method=bilinear" };
    static const ReplaySize bil_sizes[] = { { 3840, 17 }, { 3841, 17 } };
    static const unsigned d8[] = { 8 };
    const ReplayMatrix bil = { .name = "float_vif bilinear width limit",
                               REPLAY_SET(opts, bil_opts), REPLAY_SET(fmts, replay_400),
                               REPLAY_SET(sizes, bil_sizes), REPLAY_SET(depths, d8),
                               REPLAY_SET(seqs, rnd) };
    replay_matrix(&bil, run_case);

    static const char *const grid_opts[] = { "debug=true" };
    static const ReplaySize tall[] = { { 40, 70 }, { 33, 97 } };
    const ReplayMatrix grid = { .name = "float_vif row stride (2 blocks in y)",
                                REPLAY_SET(opts, grid_opts), REPLAY_SET(fmts, replay_400),
                                REPLAY_SET(sizes, tall), REPLAY_SET(depths, replay_8_16),
                                REPLAY_SET(seqs, rnd), .flags = FLAG_SMALL_GRID };
    replay_matrix(&grid, run_case);

    static const ReplaySize s1080[] = { { 1920, 1080 } };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    const ReplayMatrix big = { .name = "float_vif 1920x1080",
                               REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, s1080), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, near) };
    replay_matrix(&big, run_case);

    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = TVMAF_SOURCE_ROOT "/.cache/clips";
    unsigned n_clips = 0;
    n_clips += clip_case(dir, "cups_576x324", 576, 324, 8, 3, "debug=true");
    n_clips += clip_case(dir, "cups_576x324_10b", 576, 324, 10, 2, "debug=true");
    n_clips += clip_case(dir, "cups_576x324", 576, 324, 8, 2,
                         "debug=true:vif_prescale=1.5:vif_prescale_method=lanczos4");
    replay_count("float_vif clip frames", n_clips);
    printf("clip cases found in %s: %u of 3\n", dir, n_clips);

    printf("refused by both: %u cases\n", n_refused);
    if (!n_refused) replay_fail("no refused case was exercised");
    return replay_report("float_vif");
}
