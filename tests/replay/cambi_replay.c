/*
 * Host replay of the cambi CUDA twin (cambi.cu, cambi_cuda.c), compared bit
 * for bit with the CPU extractor run through the public API; no GPU needed.
 *
 * The decomposition is cambi_math.h's ("The CUDA twin's decomposition"),
 * the functions the kernels compile, with the twin's buffers and launches:
 * every device buffer starts as garbage and keeps what it holds from frame
 * to frame and from picture to picture; per-sample kernels run one thread
 * per sample in blocks of CAMBI_BLOCK_W x CAMBI_BLOCK_H (the grid's y
 * striding), blocks and threads in scrambled orders: the range check, the
 * load at the host's resampling positions, the 2x2 mean into the other
 * buffer, the flatness flags, the mask, and per scale the decimation and
 * the mode filter (buffer to buffer over the whole picture region) and the
 * c-values, one thread per column and strip (cambi_cvalue_strip), in
 * scrambled order, the number of strips as the twin computes it (and, in
 * some cases, forced to 1 or 3), and the top-k select (each pass's values
 * in a scrambled order into the bins, then the scan of the bins, which the
 * kernel copies to shared memory and clears before one thread scans them). Then the
 * host's part as the twin does it: the exact top-k means (cambi_topk_total,
 * cambi_topk_mean) or, where a scale has none (and in cases that force it),
 * the c-values read back and cambi_pool; cambi_combine_scales and the
 * outputs' clipping, and the heat maps through the CPU's writer (compared
 * with the CPU extractor's files). Cases: banded ramps (which score), the
 * common fills, layouts, depths 8 to 16, the smallest accepted sizes and
 * the largest refused (a size the twin's setup refuses must be refused by
 * the CPU too), narrow and short frames whose scales are narrower than half
 * the window, the options (topk, tvi_threshold, eotf, max_log_contrast,
 * vis_lum_threshold, window_size, enc_ / src_ sizes and bit depth, full_ref,
 * the high-resolution speed-up, heat maps), samples past the input's depth,
 * and frames of the test clips (TVMAF_CLIPS, else the source tree's
 * .cache/clips; with TVMAF_TEST_QUICK those up to 576x324).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/options.h"
#include "feature/cambi/cambi_math.h"
#include "feature/cambi/cambi_state.h"
#include "../replay_common.h"

#define FLAG_ONE_STRIP 1u
#define FLAG_THREE_STRIPS 2u
#define FLAG_HOST_POOL 4u /* every scale pooled on the host (the twin's fallback) */

/* the replay's own fills (after replay_common.h's) */
enum {
    FILL_BANDS = REPLAY_N_FILLS, /* slow ramps: flat bands one code apart */
    FILL_BANDS_NOISY,            /* ramps with noisy patches and dither */
    FILL_STEPS,                  /* bands of 1 to 6 codes, both directions */
    FILL_RANGE_BAD,              /* bands, one sample past the depth (9..15 bits) */
};

#define GY(n)                                                                        \
    ((unsigned)(n) + CAMBI_BLOCK_H - 1 > 65535u * CAMBI_BLOCK_H                         \
         ? 65535u                                                                    \
         : ((unsigned)(n) + CAMBI_BLOCK_H - 1) / CAMBI_BLOCK_H)

/* ---- the device, emulated ---- */

typedef struct Dev {
    CambiParams p;
    unsigned bpc;
    size_t n_pic[2], slab, plane;
    int max_strips;
    uint16_t *img[2], *hist;
    uint8_t *mask[2], *flat;
    float *cval;
    int flag[2];
    unsigned *ix[2], *iy[2];
    uint16_t *heat_row;
    CambiTopk topk[2 * CAMBI_NUM_SCALES];
    uint32_t tcount[CAMBI_TOPK_BINS];
    uint64_t tsum[CAMBI_TOPK_BINS];
    int host_pool;
    /* the launch in progress */
    const TvmafPicture *pic;
    const unsigned *tix, *tiy;
    int which, cur, mcur, gw, gh, w, h, half, rows;
    float *cout;
} Dev;

static Dev dev;

static void dev_free(Dev *v)
{
    for (int i = 0; i < 2; i++) {
        free(v->img[i]);
        free(v->mask[i]);
        free(v->ix[i]);
        free(v->iy[i]);
    }
    free(v->flat);
    free(v->hist);
    free(v->cval);
    free(v->heat_row);
    tvmaf_cambi_params_close(&v->p);
    memset(v, 0, sizeof(*v));
}

static void *garbage(size_t n)
{
    void *b = malloc(n ? n : 1);
    if (b) replay_garbage(b, n);
    return b;
}

static int make_index(Dev *v, int which)
{
    const CambiGeom *g = which ? &v->p.src : &v->p.enc;
    v->ix[which] = malloc(sizeof(unsigned) * (g->w + 1));
    v->iy[which] = malloc(sizeof(unsigned) * (g->h + 1));
    if (!v->ix[which] || !v->iy[which]) return -1;
    if (v->p.in_w == g->w && v->p.in_h == g->h) {
        for (unsigned x = 0; x < g->w; x++) v->ix[which][x] = x;
        for (unsigned y = 0; y < g->h; y++) v->iy[which][y] = y;
    } else {
        cambi_resample_index(v->p.in_w, g->w, v->ix[which]);
        cambi_resample_index(v->p.in_h, g->h, v->iy[which]);
    }
    return 0;
}

/* The twin's setup for case c: 0, -1 refused (msg), -2 bad options or memory. */
static int setup(Dev *v, const ReplayCase *c, const char *opts, char *msg, size_t len)
{
    memset(v, 0, sizeof(*v));
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    tvmaf_options_set_defaults(tvmaf_cambi_options, &v->p);
    if (tvmaf_options_parse(tvmaf_cambi_options, &v->p, opts, "cambi", msg, len)) return -2;
    if (tvmaf_cambi_setup(&v->p, &vi, msg, len)) return -1;
    const CambiParams *p = &v->p;
    v->bpc = c->bpc;
    v->n_pic[0] = cambi_pic_values(p, &p->enc);
    v->n_pic[1] = p->full_ref ? cambi_pic_values(p, &p->src) : 0;
    v->plane = (size_t)p->stride * p->alloc_h;
    v->slab = (size_t)p->band.size * p->alloc_w + 1;
    v->max_strips = cambi_max_strips(v->slab, p->alloc_h);
    v->host_pool = (c->flags & FLAG_HOST_POOL) != 0;
    memset(v->tcount, 0, sizeof(v->tcount));
    memset(v->tsum, 0, sizeof(v->tsum));
    if (c->flags & FLAG_ONE_STRIP) v->max_strips = 1;
    if (c->flags & FLAG_THREE_STRIPS) v->max_strips = 3;
    for (int i = 0; i < 2; i++) {
        v->img[i] = garbage(sizeof(uint16_t) * v->plane);
        v->mask[i] = garbage(v->plane);
    }
    v->flat = garbage(v->plane);
    v->hist = p->any_gate ? garbage(sizeof(uint16_t) * v->slab * (size_t)v->max_strips) : NULL;
    v->cval = garbage(sizeof(float) * (v->n_pic[0] + v->n_pic[1]));
    v->heat_row = malloc(sizeof(uint16_t) * p->alloc_w);
    if (!v->img[0] || !v->img[1] || !v->mask[0] || !v->mask[1] || !v->flat ||
        (p->any_gate && !v->hist) || !v->cval || !v->heat_row || make_index(v, 0) ||
        (p->full_ref && make_index(v, 1))) {
        snprintf(msg, len, "out of memory");
        return -2;
    }
    return 0;
}

/* ---- the kernels' threads ---- */

static void check_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const uint16_t *r = (const uint16_t *)(const void *)((const unsigned char *)v->pic->data[0] +
                                                         (size_t)y * v->pic->stride[0]);
    if (r[x] > (1u << v->bpc) - 1) v->flag[v->which] |= 1;
}

static void load_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const unsigned char *row =
        (const unsigned char *)v->pic->data[0] + (size_t)v->tiy[y] * v->pic->stride[0];
    const unsigned s = v->bpc <= 8 ? row[v->tix[x]] : ((const uint16_t *)(const void *)row)[v->tix[x]];
    v->img[0][(size_t)y * v->p.stride + x] = cambi_to_10bit(s, v->bpc);
}

static void dither_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    v->img[1][(size_t)y * v->p.stride + x] = cambi_dither_sample(
        v->img[0], v->p.stride, (unsigned)v->gw, (unsigned)v->gh, (unsigned)x, (unsigned)y);
}

static void flat_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    v->flat[(size_t)y * v->p.stride + x] = cambi_flat(v->img[v->cur], v->p.stride, v->gw, v->gh,
                                                      x, y);
}

static void mask_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    v->mask[0][(size_t)y * v->p.stride + x] =
        cambi_mask_sample(v->flat, v->p.stride, v->gw, v->gh, x, y,
                          cambi_mask_threshold((unsigned)v->gw, (unsigned)v->gh));
}

static void decimate_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    const size_t i = (size_t)y * v->p.stride + x;
    v->img[!v->cur][i] = cambi_decimate_sample16(v->img[v->cur], v->p.stride, v->w, v->h, x, y);
    v->mask[!v->mcur][i] =
        cambi_decimate_sample8(v->mask[v->mcur], v->p.stride, v->w, v->h, x, y);
}

static void mode_thread(void *ctx, int x, int y)
{
    Dev *v = ctx;
    v->img[!v->cur][(size_t)y * v->p.stride + x] =
        cambi_mode_filter_sample(v->img[v->cur], v->p.stride, v->w, v->h, x, y);
}

static void cvalue_thread(void *ctx, int x, int strip)
{
    Dev *v = ctx;
    const CambiParams *p = &v->p;
    cambi_cvalue_strip(v->img[v->cur], v->mask[v->mcur], p->stride, v->w, v->h, v->half, x,
                       strip * v->rows, v->rows, v->hist + v->slab * (size_t)strip + x, v->w,
                       p->band, p->num_diffs, p->limit, p->vlt_code, p->recip, v->cout);
}

/* The top-k passes of one scale's n c-values: the values in a scrambled
 * order (the kernel's blocks and their atomics), then the one-thread scan. */
static unsigned n_exact, n_host;

static void topk_select(Dev *v, const float *cval, int n, CambiTopk *st, unsigned k)
{
    unsigned *order = malloc(sizeof(unsigned) * (size_t)(n ? n : 1));
    if (!order) {
        replay_fail("out of memory");
        return;
    }
    for (int pass = 0; pass < CAMBI_TOPK_PASSES; pass++) {
        replay_scramble(order, (unsigned)n);
        const uint32_t prefix = st->prefix;
        for (int j = 0; j < n; j++) {
            const float c = cval[order[j]];
            if (c == 0.0f) continue;
            uint32_t bits;
            memcpy(&bits, &c, sizeof(bits));
            const int b = cambi_topk_bin(bits, pass, prefix);
            if (b < 0) continue;
            uint64_t u;
            if (!cambi_units(c, &u) && pass == 0) st->bad |= 1u;
            v->tcount[b] += 1;
            v->tsum[b] += u;
        }
        cambi_topk_scan(st, v->tcount, v->tsum, pass, k);
    }
    free(order);
}

/* A per-sample kernel over w x h, as the twin launches it. */
static void grid(Dev *v, int w, int h, ReplaySampleFn fn)
{
    replay_grid(w, h, GY(h), CAMBI_BLOCK_W, CAMBI_BLOCK_H, fn, v);
}

/* run_picture of cambi_cuda.c, emulated */
static void run_picture(Dev *v, int which, const TvmafPicture *pic, size_t off)
{
    const CambiParams *p = &v->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    v->which = which;
    v->pic = pic;
    v->gw = (int)g->w;
    v->gh = (int)g->h;
    if (v->bpc > 8 && v->bpc < 16) grid(v, (int)p->in_w, (int)p->in_h, check_thread);
    v->tix = v->ix[which];
    v->tiy = v->iy[which];
    grid(v, v->gw, v->gh, load_thread);
    v->cur = v->mcur = 0;
    if (p->work_bits < 10) {
        grid(v, v->gw, v->gh, dither_thread);
        v->cur = 1;
    }
    grid(v, v->gw, v->gh, flat_thread);
    grid(v, v->gw, v->gh, mask_thread);
    unsigned w = g->w, h = g->h;
    v->half = g->window >> 1;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        if (cambi_scale_step(k, p->halved, &w, &h)) {
            v->w = (int)w;
            v->h = (int)h;
            grid(v, v->gw, v->gh, decimate_thread);
            v->cur = !v->cur;
            v->mcur = !v->mcur;
        }
        v->w = (int)w;
        v->h = (int)h;
        grid(v, v->gw, v->gh, mode_thread);
        v->cur = !v->cur;
        v->cout = v->cval + off;
        if (!p->any_gate) {
            memset(v->cout, 0, sizeof(float) * w * h);
        } else {
            v->rows = cambi_strip_rows(v->h, v->max_strips);
            const unsigned strips = (h + (unsigned)v->rows - 1) / (unsigned)v->rows;
            replay_grid(v->w, (int)strips, strips, CAMBI_CVAL_THREADS, 1, cvalue_thread, v);
        }
        topk_select(v, v->cout, v->w * v->h, &v->topk[which * CAMBI_NUM_SCALES + k],
                    (unsigned)cambi_topk_count(p->pool_topk, w, h));
        off += (size_t)w * h;
    }
}

/* pic_exact and pic_score of cambi_cuda.c (cval NULL: not read back) */
static int pic_exact(const Dev *v, int which)
{
    if (v->host_pool) return 0;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        uint64_t total;
        if (!cambi_topk_total(&v->topk[which * CAMBI_NUM_SCALES + k], &total)) return 0;
    }
    return 1;
}

static int pic_score(Dev *v, int which, float *cval, int heatmap, unsigned index, double *score)
{
    const CambiParams *p = &v->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    double scale_score[CAMBI_NUM_SCALES];
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        cambi_scale_step(k, p->halved, &w, &h);
        if (heatmap && tvmaf_cambi_write_heatmap(p, k, w, h, g->window, index, cval, v->heat_row))
            return -1;
        uint64_t total;
        if (!v->host_pool && cambi_topk_total(&v->topk[which * CAMBI_NUM_SCALES + k], &total)) {
            scale_score[k] = cambi_topk_mean(total, cambi_topk_count(p->pool_topk, w, h));
            n_exact++;
        } else if (cval) {
            scale_score[k] = cambi_pool(cval, p->pool_topk, w, h);
            n_host++;
        } else {
            replay_fail("a scale without its exact sum nor its c-values");
            return -1;
        }
        if (cval) cval += (size_t)w * h;
    }
    *score = cambi_combine_scales(scale_score, g->window);
    return 0;
}

static double clip(double v, double m)
{
    return v < m ? v : m;
}

static unsigned n_refused, n_scored, n_nonzero, n_range;

/* The twin's frame: its outputs into out (in key order); 0 outputs when the
 * frame is refused (*refused set). */
static unsigned twin_frame(Dev *v, const TvmafPicture *ref, const TvmafPicture *dis,
                           unsigned index, double *out, int *refused)
{
    const CambiParams *p = &v->p;
    v->flag[0] = v->flag[1] = 0;
    memset(v->topk, 0, sizeof(v->topk));
    run_picture(v, 0, dis, 0);
    if (p->full_ref) run_picture(v, 1, ref, v->n_pic[0]);
    *refused = v->flag[0] || (p->full_ref && v->flag[1]);
    if (v->flag[0]) return 0;
    /* the c-values the host reads: the distorted picture's for heat maps,
     * a picture's whose scales lack an exact sum */
    const int heat = p->heatmaps_path[0] != '\0';
    const int back0 = heat || !pic_exact(v, 0), back1 = p->full_ref && !pic_exact(v, 1);
    double dist, src;
    if (pic_score(v, 0, back0 ? v->cval : NULL, heat, index, &dist)) {
        replay_fail("heat map write");
        return 0;
    }
    out[0] = clip(dist, p->cambi_max_val);
    n_scored++;
    n_nonzero += dist != 0;
    if (!p->full_ref || v->flag[1]) return 1;
    pic_score(v, 1, back1 ? v->cval + v->n_pic[0] : NULL, 0, index, &src);
    const double diff = dist - src;
    out[1] = clip(src, p->cambi_max_val);
    out[2] = clip(0 > diff ? 0 : diff, p->cambi_max_val);
    return 3;
}

/* ---- pictures ---- */

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

static void fill_pair(TvmafPicture *r, TvmafPicture *d, int kind, unsigned seed)
{
    if (kind < REPLAY_N_FILLS) {
        replay_fill(r, d, (ReplayFill)kind, seed);
        return;
    }
    fill_own(r, kind, seed, 1);
    fill_own(d, kind, seed + 1, 0);
}

/* ---- heat maps ---- */

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

static void check_heatmaps(const ReplayCase *c, const Dev *v, const char *dir_twin,
                           const char *dir_cpu)
{
    unsigned w = v->p.enc.w, h = v->p.enc.h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        char a[600], b[600];
        snprintf(a, sizeof(a), "%s/cambi_heatmap_scale_%d_%ux%u_16b.gray", dir_twin, k, w, h);
        snprintf(b, sizeof(b), "%s/cambi_heatmap_scale_%d_%ux%u_16b.gray", dir_cpu, k, w, h);
        if (!same_file(a, b)) replay_fail("%s: heat map %d differs (%s, %s)", c->what, k, a, b);
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
}

/* ---- cases ---- */

static int fill_source(void *src, TvmafPicture *r, TvmafPicture *d, unsigned k)
{
    const ReplayCase *c = src;
    fill_pair(r, d, (int)c->fills[k], k + (unsigned)c->w);
    return 0;
}

/* Case c with frames from `source`: the twin and the CPU extractor, every
 * output compared as bits; a frame the twin refuses (a sample past the
 * depth) must fail the CPU's run too. */
static void run_frames(const ReplayCase *c, ReplayFrameSource source, void *src)
{
    char msg[512], ob_twin[200], ob_cpu[200], dir[2][400];
    const char *o_twin = heat_opts(c->opts, "twin", ob_twin, sizeof(ob_twin));
    const char *o_cpu = heat_opts(c->opts, "cpu", ob_cpu, sizeof(ob_cpu));
    const int e = setup(&dev, c, o_twin, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses("cambi", c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        dev_free(&dev);
        return;
    }
    if (e) {
        replay_fail("%s: setup: %s", c->what, msg);
        dev_free(&dev);
        return;
    }
    const int heat = dev.p.heatmaps_path[0] != '\0';
    if (heat) {
        snprintf(dir[0], sizeof(dir[0]), "%s", dev.p.heatmaps_path);
        const char *slash = strrchr(dir[0], '/');
        snprintf(dir[1], sizeof(dir[1]), "%.*s/cpu", (int)(slash - dir[0]), dir[0]);
    }
    TvmafContext *ctx = replay_cpu_open("cambi", o_cpu, c->what);
    if (!ctx) {
        dev_free(&dev);
        return;
    }
    static double values[REPLAY_MAX_FRAMES][REPLAY_MAX_KEYS];
    unsigned n_values[REPLAY_MAX_FRAMES] = { 0 }, k = 0;
    int any_refused = 0;
    for (; k < c->n_frames; k++) {
        TvmafPicture ref, dis;
        if (replay_pictures(c, &ref, &dis)) break;
        int refused = 0;
        int err = source(src, &ref, &dis, k);
        if (err) replay_fail("%s: cannot read frame %u", c->what, k);
        else n_values[k] = twin_frame(&dev, &ref, &dis, k, values[k], &refused);
        if (refused) {
            /* the CPU must fail this frame */
            TvmafPicture rc, dc;
            any_refused = 1;
            n_range++;
            if (!replay_copy_picture(&rc, &ref) && !replay_copy_picture(&dc, &dis)) {
                const int e1 = tvmaf_read_pictures(ctx, &rc, &dc, k);
                const int e2 = e1 ? e1 : tvmaf_flush(ctx);
                if (!e1 && !e2)
                    replay_fail("%s: the twin refused frame %u, the CPU scored it", c->what, k);
            }
            err = 1;
        } else if (!err) {
            err = replay_cpu_read(ctx, &ref, &dis, k, c->what);
        }
        tvmaf_picture_unref(&ref);
        tvmaf_picture_unref(&dis);
        if (err) break;
    }
    if (!any_refused && k == c->n_frames && !replay_cpu_flush(ctx, c->what)) {
        for (unsigned i = 0; i < c->n_frames; i++)
            for (unsigned q = 0; q < n_values[i]; q++)
                replay_check_key(ctx, dev.p.key[q], i, values[i][q], c->what);
        if (heat) check_heatmaps(c, &dev, dir[0], dir[1]);
    }
    tvmaf_close(ctx);
    dev_free(&dev);
}

static void run_case(const ReplayCase *c)
{
    run_frames(c, fill_source, (void *)c);
}

/* ---- frames of the test clips ---- */

static int quick;

static unsigned clip_case(const char *dir, const char *name, enum TvmafPixelFormat fmt,
                          unsigned w, unsigned h, unsigned bpc, unsigned n, const char *opts)
{
    if (quick && (size_t)w * h > 576 * 324) return 0; /* the sanitizer pass */
    ReplayClip cl;
    if (!replay_clip_open(&cl, dir, name, NULL, fmt, w, h, bpc, n, opts)) return 0;
    run_frames(&cl.c, replay_clip_frames, &cl);
    replay_clip_close(&cl);
    return 1;
}

int main(void)
{
    replay_seed(0xcab1cab1cab1cab1ull);
    const char *q = getenv("TVMAF_TEST_QUICK");
    quick = q && q[0] && strcmp(q, "0");
    char heat_dir[300], heat_opt[400];
    snprintf(heat_dir, sizeof(heat_dir), "/tmp/cambi_replay_%d", (int)getpid());
    mkdir(heat_dir, 0700);
    snprintf(heat_opt, sizeof(heat_opt), "heatmaps_path=%s", heat_dir);

    static const enum TvmafPixelFormat fmts4[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                   TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };
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
                               REPLAY_SET(fmts, fmts4), REPLAY_SET(sizes, sizes),
                               REPLAY_SET(depths, depths), REPLAY_SET(seqs, seqs),
                               .n_frames = 2 };
    replay_matrix(&all, run_case);

    static const ReplayFill fills_more[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM }, { REPLAY_LEVELS }, { REPLAY_SMOOTH }, { REPLAY_EXTREMES },
        { REPLAY_CONSTMAX }, { REPLAY_LINES }, { REPLAY_SWEEP },
    };
    static const ReplaySize s_more[] = { { 256, 256 }, { 217, 160 } };
    const ReplayMatrix more = { .name = "cambi common fills", REPLAY_SET(fmts, replay_420),
                                REPLAY_SET(sizes, s_more), REPLAY_SET(depths, replay_depths),
                                REPLAY_SET(seqs, fills_more), .n_frames = 1 };
    replay_matrix(&more, run_case);

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
    replay_matrix(&o_all, run_case);

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
    replay_matrix(&narrow, run_case);

    /* the high-resolution speed-up where it acts */
    const char *hr_opts[] = { "cambi_high_res_speedup=1080", "cambi_high_res_speedup=1080:full_ref=true:src_width=1280:src_height=720" };
    static const ReplaySize hr_sizes[] = { { 1920, 1080 } };
    static const unsigned d10[] = { 10 };
    static const ReplayFill hr_seqs[][REPLAY_MAX_FRAMES] = { { (ReplayFill)FILL_BANDS_NOISY } };
    const ReplayMatrix hr = { .name = "cambi high-resolution speed-up", REPLAY_SET(opts, hr_opts),
                              REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, hr_sizes),
                              REPLAY_SET(depths, d10), REPLAY_SET(seqs, hr_seqs),
                              .n_frames = 1 };
    replay_matrix(&hr, run_case);

    /* strips: one and three per scale */
    static const ReplaySize st_sizes[] = { { 577, 325 } };
    static const ReplayFill st_seqs[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS, (ReplayFill)FILL_STEPS } };
    const ReplayMatrix st1 = { .name = "cambi one strip", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, st_sizes), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, st_seqs), .n_frames = 2,
                               .flags = FLAG_ONE_STRIP };
    const ReplayMatrix st3 = { .name = "cambi three strips", REPLAY_SET(fmts, replay_420),
                               REPLAY_SET(sizes, st_sizes), REPLAY_SET(depths, replay_8_16),
                               REPLAY_SET(seqs, st_seqs), .n_frames = 2,
                               .flags = FLAG_THREE_STRIPS };
    replay_matrix(&st1, run_case);
    replay_matrix(&st3, run_case);

    /* the twin's fallback: every scale pooled by the CPU's quickselect */
    const char *hp_opts[] = { "", "full_ref=true", "topk=1.0", heat_opt };
    const ReplayMatrix hp = { .name = "cambi pooled on the host", REPLAY_SET(opts, hp_opts),
                              REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, st_sizes),
                              REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, st_seqs),
                              .n_frames = 2, .flags = FLAG_HOST_POOL };
    replay_matrix(&hp, run_case);

    /* samples past the input's depth: the twin's flag, the CPU's failure */
    static const unsigned d_bad[] = { 9, 10, 12, 15 };
    static const ReplayFill bad[][REPLAY_MAX_FRAMES] = {
        { (ReplayFill)FILL_BANDS, (ReplayFill)FILL_RANGE_BAD } };
    static const char *const bad_opts[] = { "", "full_ref=true" };
    static const ReplaySize bad_sizes[] = { { 240, 216 } };
    const ReplayMatrix m_bad = { .name = "cambi samples past the depth", REPLAY_SET(opts, bad_opts),
                                 REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, bad_sizes),
                                 REPLAY_SET(depths, d_bad), REPLAY_SET(seqs, bad),
                                 .n_frames = 2 };
    replay_matrix(&m_bad, run_case);

    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir || !dir[0]) dir = TVMAF_SOURCE_ROOT "/.cache/clips";
    const enum TvmafPixelFormat f420 = TVMAF_PIX_FMT_YUV420P;
    unsigned n_clips = 0, n_tried = 0;
#define CLIP(...) (n_tried++, n_clips += clip_case(dir, __VA_ARGS__))
    CLIP("cups_576x324", f420, 576, 324, 8, 3, "");
    CLIP("cups_576x324", f420, 576, 324, 8, 2, "full_ref=true");
    CLIP("cups_576x324_10b", f420, 576, 324, 10, 3, "");
    CLIP("cups_576x324_12b", f420, 576, 324, 12, 3, "");
    CLIP("cups_576x324_16b", f420, 576, 324, 16, 3, "");
    CLIP("cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 576, 324, 8, 3, "");
    CLIP("cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 576, 324, 10, 3, "");
    /* the option goldens' sets (testdata/options.tsv) */
    CLIP("cups_576x324", f420, 576, 324, 8, 2, "topk=0.2:tvi_threshold=0.01");
    CLIP("cups_576x324", f420, 576, 324, 8, 2, "full_ref=true");
    CLIP("cups_576x324_10b", f420, 576, 324, 10, 2, "eotf=pq:max_log_contrast=3");
    CLIP("forest_1920x1080", f420, 1920, 1080, 8, 2,
         "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17");
    CLIP("forest_1920x1080", f420, 1920, 1080, 8, 2, "");
    CLIP("sky_1920x1080_10b", f420, 1920, 1080, 10, 2, "");
    CLIP("sky_1920x1080_10b", f420, 1920, 1080, 10, 1,
         "full_ref=true:src_width=1280:src_height=720");
    CLIP("meadow_3840x2160", f420, 3840, 2160, 8, 1, "");
    CLIP("meadow_3840x2160", f420, 3840, 2160, 8, 1, "cambi_high_res_speedup=2160");
#undef CLIP
    replay_count("cambi clip cases", n_clips);
    printf("clip cases found in %s: %u of %u\n", dir, n_clips, n_tried);
    printf("refused by both: %u cases; frames refused for their samples: %u; pictures scored: "
           "%u, non-zero: %u\n", n_refused, n_range, n_scored, n_nonzero);
    if (!n_refused) replay_fail("no refused case was exercised");
    if (!n_range) replay_fail("no sample past the depth was exercised");
    printf("scales pooled on the device: %u, on the host: %u\n", n_exact, n_host);
    if (!n_nonzero) replay_fail("no case scored above 0");
    if (!n_exact || !n_host) replay_fail("both poolings must be exercised");
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", heat_dir);
    if (system(cmd)) printf("could not remove %s\n", heat_dir);
    return replay_report("cambi");
}
