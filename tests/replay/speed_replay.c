/*
 * Host replay of the speed_chroma and speed_temporal CUDA twins (speed.cu,
 * speed_cuda.c), compared bit for bit with the CPU extractors run through
 * the public API; no GPU needed.
 *
 * The decomposition is speed_math.h's ("The CUDA twin's decomposition"),
 * the functions the kernels compile, with the twin's buffers and launches:
 * every device buffer starts as garbage (the prescaled images are zeroed
 * once, as the twin does on its first frame); per-sample kernels run one
 * thread per sample in blocks of SPEED_BLOCK_W x SPEED_BLOCK_H, the grid's
 * y striding over further rows, images, blocks and threads in scrambled
 * orders: the load (fvif_load_sample; speed_temporal's two luma slots, the
 * previous frame's kept across frames, and the differences), the prescale
 * at the listed columns and rows from the host's tables (speed_resample),
 * the anti-alias passes (speed_vpass_sample at fvif_ext_column, then
 * fvif_hpass_sample at step 16), the local mean's (step 1, subtracted);
 * the covariance block (25 mean threads, then one thread per entry of the
 * lower triangle, each group in a scrambled order); the factor kernel (the
 * eigenvalues on one thread; the QR's barrier phases with the entries of a
 * phase in a scrambled order and speed_qr_vector on one thread); one thread
 * per block (speed_block_vector, speed_solve_column or a zero solution,
 * speed_block_variance). Then the host's part as the twin does it: per
 * image the variances and speed_pipeline_entropies, speed_pipeline_score,
 * and the extractors' outputs. Cases: option sets (every prescale method
 * shrinking and growing, the unit prescale's crop, kernel scales at both
 * ends, noise, floor, every variance weighting mode, speed_use_ref_diff,
 * clipping), layouts, depths 8 to 16, odd and minimum sizes (the smallest
 * accepted and the largest refused: a size the twin's setup refuses must be
 * refused by the CPU too), flat and one-sided-flat images (singular
 * covariances), a grid of 2 blocks in y, and frames of the test clips.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "feature/speed/speed_math.h"
#include "feature/speed/speed_state.h"
#include "../replay_common.h"

#define FLAG_SMALL_GRID 1u

/* ---- the device, emulated ---- */

typedef struct Dev {
    const SpeedPipeline *pl;
    unsigned n_img, small_grid;
    size_t n_plane, n_scaled, n_ext, n_dec, n_ext2, n_out;
    float *img, *scaled, *ext, *dec, *res, *ext2, *kqr, *out;
    float *luma;    /* speed_temporal: 4 planes, slots of ref and dis */
    int *eig;
    int *cols, *rows, nc, nr;
    int zeroed;
    /* the launch in progress */
    unsigned z;
    const TvmafPicture *pic[2];
    int plane;
    unsigned frame;
    int urd;
} Dev;

typedef void (*SampleFn)(Dev *v, int x, int y);

/* A per-sample kernel over w x h for every image: images, blocks and
 * threads in scrambled orders, the grid's y striding. */
static void spd_grid(Dev *v, unsigned n_img, int w, int h, SampleFn fn)
{
    const unsigned gx = ((unsigned)w + SPEED_BLOCK_W - 1) / SPEED_BLOCK_W;
    const unsigned gy = v->small_grid ? 2u : ((unsigned)h + SPEED_BLOCK_H - 1) / SPEED_BLOCK_H;
    const unsigned nb = gx * (gy ? gy : 1), nt = SPEED_BLOCK_W * SPEED_BLOCK_H;
    unsigned *blocks = malloc(sizeof(unsigned) * nb), threads[SPEED_BLOCK_W * SPEED_BLOCK_H];
    unsigned imgs[4];
    if (!blocks || h <= 0) {
        if (!blocks) replay_fail("out of memory");
        free(blocks);
        return;
    }
    replay_scramble(imgs, n_img);
    for (unsigned zi = 0; zi < n_img; zi++) {
        v->z = imgs[zi];
        replay_scramble(blocks, nb);
        for (unsigned b = 0; b < nb; b++) {
            const unsigned bx = blocks[b] % gx, by = blocks[b] / gx;
            replay_scramble(threads, nt);
            for (unsigned t = 0; t < nt; t++) {
                const int x = (int)(bx * SPEED_BLOCK_W + threads[t] % SPEED_BLOCK_W);
                if (x >= w) continue;
                for (int y = (int)(by * SPEED_BLOCK_H + threads[t] / SPEED_BLOCK_W); y < h;
                     y += (int)(gy * SPEED_BLOCK_H))
                    fn(v, x, y);
            }
        }
    }
    free(blocks);
}

static void load_thread(Dev *v, int x, int y)
{
    const TvmafPicture *p = v->pic[v->z & 1];
    v->img[v->n_plane * (v->z + 2 * (unsigned)(v->plane - 1)) + (size_t)y * v->pl->pw + x] =
        fvif_load_sample(p->data[v->plane], p->stride[v->plane], p->bpc,
                         fvif_sample_divisor(p->bpc), x, y);
}

static void tload_thread(Dev *v, int x, int y)
{
    const size_t i = (size_t)y * v->pl->pw + x, n = v->n_plane;
    float *cur = v->luma + 2 * n * (v->frame % 2), *prev = v->luma + 2 * n * !(v->frame % 2);
    const TvmafPicture *r = v->pic[0], *d = v->pic[1];
    const float div = fvif_sample_divisor(r->bpc);
    const float rv = fvif_load_sample(r->data[0], r->stride[0], r->bpc, div, x, y);
    const float dv = fvif_load_sample(d->data[0], d->stride[0], d->bpc, div, x, y);
    cur[i] = rv;
    cur[n + i] = dv;
    if (v->frame) {
        v->img[i] = prev[i] - rv;
        v->img[n + i] = prev[n + i] - (v->urd ? rv : dv);
    }
}

static void resample_thread(Dev *v, int x, int y)
{
    const SpeedPipeline *pl = v->pl;
    const int cx = v->cols[x], ry = v->rows[y], t = pl->taps;
    v->scaled[v->n_scaled * v->z + (size_t)ry * pl->sw + cx] =
        speed_resample(pl->method, v->img + v->n_plane * v->z, pl->pw, pl->xi + (size_t)cx * t,
                       pl->xw + (size_t)cx * t, pl->yi + (size_t)ry * t, pl->yw + (size_t)ry * t);
}

static void aa_v_thread(Dev *v, int x, int y)
{
    const SpeedPipeline *pl = v->pl;
    const int half = pl->aa_w / 2, ew = pl->sw + 2 * half;
    const float *src = pl->resize ? v->scaled + v->n_scaled * v->z : v->img + v->n_plane * v->z;
    const int stride = pl->resize ? pl->sw : pl->pw;
    v->ext[v->n_ext * v->z + (size_t)y * ew + x] =
        speed_vpass_sample(pl->aa, pl->aa_w, src, stride, pl->sh, y * SPEED_DECIMATION,
                           fvif_ext_column(x, pl->sw, half));
}

static void aa_h_thread(Dev *v, int x, int y)
{
    const SpeedPipeline *pl = v->pl;
    const int ew = pl->sw + 2 * (pl->aa_w / 2);
    v->dec[v->n_dec * v->z + (size_t)y * pl->g.ow + x] = fvif_hpass_sample(
        pl->aa, pl->aa_w, v->ext + v->n_ext * v->z + (size_t)y * ew, x, SPEED_DECIMATION);
}

static void lm_v_thread(Dev *v, int x, int y)
{
    const SpeedPipeline *pl = v->pl;
    const int half = pl->lm_w / 2, ow = pl->g.ow, ew = ow + 2 * half;
    v->ext2[v->n_ext2 * v->z + (size_t)y * ew + x] =
        speed_vpass_sample(pl->lm, pl->lm_w, v->dec + v->n_dec * v->z, ow, pl->g.oh, y,
                           fvif_ext_column(x, ow, half));
}

static void lm_h_thread(Dev *v, int x, int y)
{
    const SpeedPipeline *pl = v->pl;
    const int ow = pl->g.ow, ew = ow + 2 * (pl->lm_w / 2);
    const size_t i = v->n_dec * v->z + (size_t)y * ow + x;
    v->res[i] = v->dec[i] - fvif_hpass_sample(pl->lm, pl->lm_w,
                                              v->ext2 + v->n_ext2 * v->z + (size_t)y * ew, x, 1);
}

/* speed_cov: one block per image. */
static void cov_launch(Dev *v)
{
    const SpeedGrid *g = &v->pl->g;
    unsigned order[SPEED_COV_THREADS];
    for (unsigned z = 0; z < v->n_img; z++) {
        float means[SPEED_NE];
        replay_garbage(means, sizeof(means));
        const float *img = v->res + v->n_dec * z;
        float *k = v->kqr + (size_t)SPEED_NE * SPEED_NE * z;
        replay_scramble(order, SPEED_NE);
        for (int i = 0; i < SPEED_NE; i++) {
            const int t = (int)order[i];
            means[t] = speed_window_mean(img, g->ow, g, t / SPEED_BLOCK, t % SPEED_BLOCK);
        }
        replay_scramble(order, SPEED_COV_THREADS);
        for (int i = 0; i < SPEED_COV_THREADS; i++) {
            const int t = (int)order[i];
            if (t >= SPEED_PAIRS) continue;
            int x, y;
            speed_pair(t, &x, &y);
            const float c = speed_window_cov(img, g->ow, g, x / SPEED_BLOCK, x % SPEED_BLOCK,
                                             y / SPEED_BLOCK, y % SPEED_BLOCK, means[x], means[y]);
            k[x * SPEED_NE + y] = c;
            k[y * SPEED_NE + x] = c;
        }
    }
}

/* speed_factor: block 0 the eigenvalues, block 1 the QR phases. */
static void factor_launch(Dev *v)
{
    const int n = SPEED_NE, nn = n * n;
    const size_t zq = (size_t)v->n_img * nn;
    unsigned order[SPEED_NE * SPEED_NE];
    for (unsigned z = 0; z < v->n_img; z++) {
        const float *k = v->kqr + (size_t)nn * z;
        float scratch[SPEED_EIG_SCRATCH(SPEED_NE)];
        replay_garbage(scratch, sizeof(scratch));
        float *ev = v->out + v->n_out * z;
        speed_eigenvalues(k, ev, n, scratch);
        v->eig[z] = speed_regular(ev);

        float a[SPEED_NE * SPEED_NE], zm[SPEED_NE * SPEED_NE], h[SPEED_NE * SPEED_NE];
        float t1[SPEED_NE * SPEED_NE], t2[SPEED_NE * SPEED_NE], qm[SPEED_NE * SPEED_NE];
        float vv[SPEED_NE];
        replay_garbage(h, sizeof(h));
        replay_garbage(t1, sizeof(t1));
        replay_garbage(t2, sizeof(t2));
        replay_garbage(vv, sizeof(vv));
#define PHASE(stmt)                                   \
    do {                                              \
        replay_scramble(order, (unsigned)nn);         \
        for (int e = 0; e < nn; e++) {                \
            const int t = (int)order[e], i = t / n, j = t % n; \
            (void)i;                                  \
            (void)j;                                  \
            stmt;                                     \
        }                                             \
    } while (0)
        PHASE((a[t] = k[t], zm[t] = k[t], qm[t] = (i == j ? 1 : 0)));
        for (int s = 0; s + 1 < n; s++) {
            PHASE(speed_qr_mask(zm, n, s, i, j));
            speed_qr_vector(zm, a, vv, n, s);
            PHASE(h[t] = speed_qr_reflector(vv, i, j));
            PHASE((t1[t] = speed_matmul_entry(h, zm, n, i, j),
                   t2[t] = speed_matmul_entry(h, qm, n, i, j)));
            PHASE((zm[t] = t1[t], qm[t] = t2[t]));
        }
        float *q = v->kqr + zq + (size_t)nn * z, *r = v->kqr + 2 * zq + (size_t)nn * z;
        PHASE((q[t] = qm[t], r[t] = speed_matmul_entry(qm, a, n, i, j)));
#undef PHASE
    }
}

/* speed_blocks: one thread per block. */
static void blocks_launch(Dev *v)
{
    const SpeedGrid *g = &v->pl->g;
    const size_t nn = SPEED_NE * SPEED_NE, zq = v->n_img * nn;
    unsigned *order = malloc(sizeof(unsigned) * (size_t)g->nb);
    if (!order) {
        replay_fail("out of memory");
        return;
    }
    for (unsigned z = 0; z < v->n_img; z++) {
        const float *q = v->kqr + zq + nn * z, *r = v->kqr + 2 * zq + nn * z;
        replay_scramble(order, (unsigned)g->nb);
        for (int e = 0; e < g->nb; e++) {
            const int blk = (int)order[e];
            float b[SPEED_NE], qb[SPEED_NE], x[SPEED_NE];
            replay_garbage(qb, sizeof(qb));
            replay_garbage(x, sizeof(x));
            speed_block_vector(v->res + v->n_dec * z, g->ow, g, blk, b, 1);
            const int singular = !v->eig[z] || speed_r_singular(r, SPEED_NE);
            if (singular)
                for (int p = 0; p < SPEED_NE; p++) x[p] = 0.0f;
            else
                speed_solve_column(q, r, b, 1, qb, x, 1, SPEED_NE);
            float *o = v->out + v->n_out * z;
            o[SPEED_NE + 1 + blk] = speed_block_variance(x, b, 1, 0);
            if (blk == 0) o[SPEED_NE] = singular ? 1.0f : 0.0f;
        }
    }
    free(order);
}

static void dev_free(Dev *v)
{
    free(v->img);
    free(v->scaled);
    free(v->ext);
    free(v->dec);
    free(v->ext2);
    free(v->kqr);
    free(v->out);
    free(v->luma);
    free(v->eig);
    free(v->cols);
    memset(v, 0, sizeof(*v));
}

static void *garbage(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p) replay_garbage(p, bytes);
    return p;
}

/* The twin's buffers (dev_open in speed_cuda.c) for n_img images. */
static int dev_alloc(Dev *v, const SpeedPipeline *pl, unsigned n_img, int temporal, int small)
{
    memset(v, 0, sizeof(*v));
    const SpeedGrid *g = &pl->g;
    const size_t f = sizeof(float), nn = SPEED_NE * SPEED_NE;
    v->pl = pl;
    v->n_img = n_img;
    v->small_grid = (unsigned)small;
    v->n_plane = (size_t)pl->pw * (size_t)pl->ph;
    v->n_scaled = pl->resize ? (size_t)pl->sw * (size_t)pl->sh : 0;
    v->n_ext = (size_t)g->oh * (size_t)(pl->sw + 2 * (pl->aa_w / 2));
    v->n_dec = (size_t)g->ow * (size_t)g->oh;
    v->n_ext2 = (size_t)g->oh * (size_t)(g->ow + 2 * (pl->lm_w / 2));
    v->n_out = (size_t)SPEED_NE + 1 + (size_t)g->nb;
    int ok = (v->img = garbage(f * n_img * v->n_plane)) != NULL;
    ok &= (v->scaled = garbage(f * n_img * v->n_scaled)) != NULL;
    ok &= (v->ext = garbage(f * n_img * v->n_ext)) != NULL;
    ok &= (v->dec = garbage(2 * f * n_img * v->n_dec)) != NULL;
    ok &= (v->ext2 = garbage(f * n_img * v->n_ext2)) != NULL;
    ok &= (v->kqr = garbage(3 * f * n_img * nn)) != NULL;
    ok &= (v->out = garbage(f * n_img * v->n_out)) != NULL;
    ok &= (v->eig = garbage(sizeof(int) * n_img)) != NULL;
    if (temporal) ok &= (v->luma = garbage(4 * f * v->n_plane)) != NULL;
    if (ok) v->res = v->dec + n_img * v->n_dec;
    if (ok && pl->resize) {
        for (int x = 0; x < pl->sw; x++) v->nc += pl->need_col[x];
        for (int y = 0; y < pl->sh; y++) v->nr += pl->need_row[y];
        ok = (v->cols = malloc(sizeof(int) * (size_t)(v->nc + v->nr))) != NULL;
        if (ok) {
            v->rows = v->cols + v->nc;
            for (int x = 0, k = 0; x < pl->sw; x++)
                if (pl->need_col[x]) v->cols[k++] = x;
            for (int y = 0, k = 0; y < pl->sh; y++)
                if (pl->need_row[y]) v->rows[k++] = y;
        }
    }
    if (!ok) {
        dev_free(v);
        replay_fail("out of memory");
        return -1;
    }
    return 0;
}

/* dev_run: the statistics of the n_img images in v->img. */
static void dev_run(Dev *v)
{
    const SpeedPipeline *pl = v->pl;
    const SpeedGrid *g = &pl->g;
    if (pl->resize) {
        if (!v->zeroed) {
            memset(v->scaled, 0, sizeof(float) * v->n_img * v->n_scaled);
            v->zeroed = 1;
        }
        spd_grid(v, v->n_img, v->nc, v->nr, resample_thread);
    }
    spd_grid(v, v->n_img, pl->sw + 2 * (pl->aa_w / 2), g->oh, aa_v_thread);
    spd_grid(v, v->n_img, g->ow, g->oh, aa_h_thread);
    spd_grid(v, v->n_img, g->ow + 2 * (pl->lm_w / 2), g->oh, lm_v_thread);
    spd_grid(v, v->n_img, g->ow, g->oh, lm_h_thread);
    cov_launch(v);
    factor_launch(v);
    blocks_launch(v);
}

/* The host's part for image img as side `side` (dev_side). */
static int dev_side(const Dev *v, SpeedPipeline *pl, unsigned img, int side)
{
    const float *o = v->out + v->n_out * img;
    memcpy(pl->var[side], o + SPEED_NE + 1, sizeof(float) * (size_t)pl->g.nb);
    speed_pipeline_entropies(pl, o, side);
    return o[SPEED_NE] != 0.0f;
}

/* ---- the two twins ---- */

typedef struct Twin {
    int temporal;
    SpeedChromaParams c;
    SpeedTemporalParams t;
    Dev dev;
} Twin;

static Twin twin;
static unsigned n_refused, n_singular_frames, n_scored;

static double clip(float score, double limit)
{
    return (double)score < limit ? (double)score : limit;
}

static unsigned chroma_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)c;
    (void)k;
    Twin *tw = priv;
    SpeedChromaParams *p = &tw->c;
    Dev *v = &tw->dev;
    v->pic[0] = r;
    v->pic[1] = d;
    for (v->plane = 1; v->plane <= 2; v->plane++) spd_grid(v, 2, p->pw, p->ph, load_thread);
    dev_run(v);
    float score[2];
    int sing[2];
    for (int q = 0; q < 2; q++) {
        const int sr = dev_side(v, &p->pl, 2 * q, 0), sd = dev_side(v, &p->pl, 2 * q + 1, 1);
        sing[q] = sr || sd;
        score[q] = speed_pipeline_score(&p->pl, sr, sd);
    }
    n_singular_frames += sing[0] || sing[1];
    n_scored++;
    float uv;
    if (sing[0] && !sing[1]) uv = score[1];
    else if (sing[1] && !sing[0]) uv = score[0];
    else uv = (float)((double)(score[0] + score[1]) / 2.0);
    out[0] = clip(score[0], p->max_val);
    out[1] = clip(score[1], p->max_val);
    out[2] = clip(uv, p->max_val);
    return 3;
}

static unsigned temporal_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                               const TvmafPicture *d, unsigned k, double *out)
{
    (void)c;
    Twin *tw = priv;
    SpeedTemporalParams *p = &tw->t;
    Dev *v = &tw->dev;
    if (tvmaf_speed_temporal_next(p, k)) {
        replay_fail("frame %u out of order", k);
        return 0;
    }
    v->pic[0] = r;
    v->pic[1] = d;
    v->frame = k;
    v->urd = p->use_ref_diff;
    spd_grid(v, 1, p->w, p->h, tload_thread);
    if (k == 0) {
        out[0] = 0.0;
        return 1;
    }
    dev_run(v);
    const int sr = dev_side(v, &p->pl, 0, 0), sd = dev_side(v, &p->pl, 1, 1);
    n_singular_frames += sr || sd;
    n_scored++;
    out[0] = (double)speed_pipeline_score(&p->pl, sr, sd);
    return 1;
}

static const char *key(void *priv, unsigned q)
{
    const Twin *tw = priv;
    return tw->temporal ? tw->t.key : tw->c.key[q];
}

/* The twin's setup for case c: 0, -1 refused (msg), -2 bad options. */
static int setup(Twin *tw, int temporal, const ReplayCase *c, char *msg, size_t len)
{
    memset(tw, 0, sizeof(*tw));
    tw->temporal = temporal;
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    const TvmafOption *o = temporal ? tvmaf_speed_temporal_options : tvmaf_speed_chroma_options;
    void *p = temporal ? (void *)&tw->t : (void *)&tw->c;
    const char *name = temporal ? "speed_temporal" : "speed_chroma";
    tvmaf_options_set_defaults(o, p);
    if (tvmaf_options_parse(o, p, c->opts, name, msg, len)) return -2;
    const int e = temporal ? tvmaf_speed_temporal_setup(&tw->t, &vi, 0, msg, len)
                           : tvmaf_speed_chroma_setup(&tw->c, &vi, 0, msg, len);
    if (e) return -1;
    const SpeedPipeline *pl = temporal ? &tw->t.pl : &tw->c.pl;
    if (pl->aa_w > SPEED_MAX_FW || pl->lm_w > SPEED_MAX_FW) {
        snprintf(msg, len, "a %d-tap filter is wider than SPEED_MAX_FW", pl->aa_w);
        return -2;
    }
    return dev_alloc(&tw->dev, pl, temporal ? 2 : 4, temporal, 0) ? -2 : 0;
}

static void teardown(Twin *tw)
{
    dev_free(&tw->dev);
    speed_pipeline_close(&tw->c.pl);
    speed_pipeline_close(&tw->t.pl);
}

static void run_case_as(const ReplayCase *c, int temporal)
{
    char msg[512];
    const char *name = temporal ? "speed_temporal" : "speed_chroma";
    const int e = setup(&twin, temporal, c, msg, sizeof(msg));
    if (e == -1) { /* the twin's setup refuses: so must the CPU */
        replay_check_cpu_refuses(name, c->opts, c->fmt, c->bpc, c->w, c->h);
        n_refused++;
        teardown(&twin);
        return;
    }
    if (e) {
        replay_fail("%s: setup: %s", c->what, msg);
        teardown(&twin);
        return;
    }
    twin.dev.small_grid = (c->flags & FLAG_SMALL_GRID) != 0;
    const ReplayPairTwin t = { name, &twin, temporal ? temporal_frame : chroma_frame, key };
    replay_pair_case(c, &t);
    teardown(&twin);
}

static void run_temporal(const ReplayCase *c)
{
    run_case_as(c, 1);
}

static void run_chroma(const ReplayCase *c)
{
    run_case_as(c, 0);
}

/* ---- frames of the test clips ---- */

/* The first n frames of a clip pair scored by the replay and by the CPU
 * extractor with opts; returns 0 when the clip is not there. */
static unsigned clip_case(const char *dir, const char *name, enum TvmafPixelFormat fmt,
                          unsigned w, unsigned h, unsigned bpc, unsigned n, int temporal,
                          const char *opts)
{
    const char *fname = temporal ? "speed_temporal" : "speed_chroma";
    ReplayClip cl;
    if (!replay_clip_open(&cl, dir, name, fname, fmt, w, h, bpc, n, opts)) return 0;
    char msg[512];
    if (setup(&twin, temporal, &cl.c, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", cl.c.what, msg);
    } else {
        const ReplayPairTwin t = { fname, &twin, temporal ? temporal_frame : chroma_frame, key };
        replay_pair_frames(&cl.c, &t, replay_clip_frames, &cl);
    }
    teardown(&twin);
    replay_clip_close(&cl);
    return 1;
}

int main(void)
{
    replay_seed(0x5eed5eed12345678ull);

    /* every accepted kernel scale keeps the filters within SPEED_MAX_FW, and
     * speed_pair enumerates the lower triangle */
    static const double ks_list[] = { 1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 4.0 / 3,
                                      3.5 / 3, 3.75 / 3, 4.25 / 3, 5.0 / 3, 3.0, 1 / 2.25,
                                      1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111 };
    for (unsigned i = 0; i < REPLAY_COUNT(ks_list); i++)
        for (int e = -1; e <= 1; e++) {
            const float ks = (float)(ks_list[i] + e * 0.00099);
            if (fvif_kernelscale_valid(ks) &&
                (fvif_filter_width(1, ks) > SPEED_MAX_FW ||
                 fvif_filter_width(SPEED_N_SCALES, ks) > SPEED_MAX_FW))
                replay_fail("kernel scale %g: %d taps > SPEED_MAX_FW", (double)ks,
                            fvif_filter_width(1, ks));
        }
    for (int t = 0, x = 0; x < SPEED_NE; x++)
        for (int y = 0; y <= x; y++, t++) {
            int px, py;
            speed_pair(t, &px, &py);
            if (px != x || py != y) replay_fail("speed_pair(%d) = (%d, %d)", t, px, py);
        }
    replay_count("speed filter widths of every accepted kernel scale, speed_pair", 2);

    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P };
    static const enum TvmafPixelFormat fmts4[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                   TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P };

    /* speed_temporal: layouts x sizes (the minimum 80x80 and one short of
     * it, odd) x depths x sequences */
    static const ReplaySize t_sizes[] = { { 80, 80 }, { 79, 80 }, { 80, 79 }, { 97, 161 },
                                          { 177, 99 }, { 243, 171 } };
    static const ReplayFill t_seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_SMOOTH, REPLAY_EDGES, REPLAY_LINES },
        { REPLAY_CONST0, REPLAY_CONST0, REPLAY_REF_FLAT }, /* still scenes: singular */
        { REPLAY_EXTREMES, REPLAY_INVERT, REPLAY_LEVELS },
    };
    const ReplayMatrix t_all = { .name = "speed_temporal layouts x sizes x depths x sequences",
                                 REPLAY_SET(fmts, fmts4), REPLAY_SET(sizes, t_sizes),
                                 REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, t_seqs),
                                 .n_frames = 3 };
    replay_matrix(&t_all, run_temporal);

    static const char *const t_opts[] = {
        "speed_use_ref_diff=true", "speed_kernelscale=0.5", "speed_kernelscale=3.711340",
        "speed_kernelscale=1.5:speed_sigma_nn=0.9:speed_nn_floor=0.5",
        "speed_prescale=0.5", "speed_prescale=0.5:speed_prescale_method=bilinear",
        "speed_prescale=0.7:speed_prescale_method=bicubic",
        "speed_prescale=0.6:speed_prescale_method=lanczos4",
        "speed_prescale=1.5:speed_prescale_method=bicubic",
        "speed_prescale=1.3:speed_prescale_method=lanczos4",
        "speed_prescale=2.0:speed_prescale_method=bilinear", "speed_prescale=1.7",
        "speed_prescale=0.9995", "speed_prescale=1.0:speed_prescale_method=lanczos4",
        "speed_max_val=0.5",
    };
    static const ReplaySize t_osizes[] = { { 177, 133 }, { 161, 160 } };
    static const ReplayFill t_oseqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_EDGES },
    };
    const ReplayMatrix t_opt = { .name = "speed_temporal options", REPLAY_SET(opts, t_opts),
                                 REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, t_osizes),
                                 REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, t_oseqs),
                                 .n_frames = 3 };
    replay_matrix(&t_opt, run_temporal);

    /* speed_chroma: layouts x sizes (each layout's minimum and one short of
     * it) x depths x fills */
    static const ReplaySize c_sizes[] = { { 159, 159 }, { 158, 159 }, { 159, 158 },
                                          { 160, 80 }, { 80, 80 }, { 193, 171 }, { 331, 250 } };
    static const ReplayFill c_fills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR }, { REPLAY_SMOOTH }, { REPLAY_EDGES },
        { REPLAY_CONST0 }, { REPLAY_REF_FLAT }, { REPLAY_EQUAL }, { REPLAY_LINES_DIM },
        { REPLAY_EXTREMES },
    };
    const ReplayMatrix c_all = { .name = "speed_chroma layouts x sizes x depths x fills",
                                 REPLAY_SET(fmts, fmts4), REPLAY_SET(sizes, c_sizes),
                                 REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, c_fills),
                                 .n_frames = 2 };
    replay_matrix(&c_all, run_chroma);

    static const char *const c_opts[] = {
        "speed_weight_var_mode=1", "speed_weight_var_mode=2", "speed_weight_var_mode=3",
        "speed_weight_var_mode=4", "speed_weight_var_mode=5", "speed_weight_var_mode=6",
        "speed_kernelscale=0.5", "speed_kernelscale=3.711340", "speed_kernelscale=0.711111",
        "speed_sigma_nn=0.1:speed_nn_floor=1.0", "speed_max_val=1.0",
        "speed_prescale=0.5", "speed_prescale=0.5:speed_prescale_method=bilinear",
        "speed_prescale=0.6:speed_prescale_method=bicubic",
        "speed_prescale=0.8:speed_prescale_method=lanczos4",
        "speed_prescale=1.5:speed_prescale_method=bicubic",
        "speed_prescale=1.3:speed_prescale_method=lanczos4",
        "speed_prescale=2.0:speed_prescale_method=bilinear", "speed_prescale=2.5",
        "speed_prescale=0.9995:speed_weight_var_mode=3",
    };
    static const ReplaySize c_osizes[] = { { 331, 250 }, { 241, 201 } };
    static const ReplayFill c_ofills[][REPLAY_MAX_FRAMES] = {
        { REPLAY_NEAR, REPLAY_RANDOM }, { REPLAY_REF_FLAT },
    };
    const ReplayMatrix c_opt = { .name = "speed_chroma options", REPLAY_SET(opts, c_opts),
                                 REPLAY_SET(fmts, fmts), REPLAY_SET(sizes, c_osizes),
                                 REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, c_ofills),
                                 .n_frames = 2 };
    replay_matrix(&c_opt, run_chroma);

    /* the grid's y stride (2 blocks in y) */
    static const ReplaySize tall[] = { { 161, 340 } };
    static const ReplayFill rnd[][REPLAY_MAX_FRAMES] = { { REPLAY_RANDOM, REPLAY_NEAR } };
    const ReplayMatrix g_t = { .name = "speed_temporal row stride (2 blocks in y)",
                               REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, tall),
                               REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd),
                               .n_frames = 2, .flags = FLAG_SMALL_GRID };
    replay_matrix(&g_t, run_temporal);
    const ReplayMatrix g_c = { .name = "speed_chroma row stride (2 blocks in y)",
                               REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, tall),
                               REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, rnd),
                               .n_frames = 1, .flags = FLAG_SMALL_GRID };
    replay_matrix(&g_c, run_chroma);

    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir || !dir[0]) dir = TVMAF_SOURCE_ROOT "/.cache/clips";
    const enum TvmafPixelFormat f420 = TVMAF_PIX_FMT_YUV420P;
    unsigned n_clips = 0, n_tried = 0;
#define CLIP(...) (n_tried++, n_clips += clip_case(dir, __VA_ARGS__))
    CLIP("cups_576x324", f420, 576, 324, 8, 4, 1, "");
    CLIP("cups_576x324", f420, 576, 324, 8, 3, 0, "");
    CLIP("cups_576x324_10b", f420, 576, 324, 10, 3, 1, "");
    CLIP("cups_576x324_10b", f420, 576, 324, 10, 3, 0, "");
    CLIP("cups_576x324_12b", f420, 576, 324, 12, 3, 1, "");
    CLIP("cups_576x324_12b", f420, 576, 324, 12, 3, 0, "");
    CLIP("cups_576x324_16b", f420, 576, 324, 16, 3, 1, "");
    CLIP("cups_576x324_16b", f420, 576, 324, 16, 3, 0, "");
    CLIP("cups_576x324_422", TVMAF_PIX_FMT_YUV422P, 576, 324, 8, 3, 0,
         "");
    CLIP("cups_576x324_444_10b", TVMAF_PIX_FMT_YUV444P, 576, 324, 10, 3, 0, "");
    CLIP("cups_576x324", f420, 576, 324, 8, 3, 0,
         "speed_prescale=1.5:speed_prescale_method=lanczos4");
    CLIP("cups_576x324", f420, 576, 324, 8, 3, 1,
         "speed_prescale=0.5:speed_prescale_method=bicubic");
    /* the option goldens' sets (testdata/options.tsv) */
    CLIP("cups_576x324", f420, 576, 324, 8, 2, 0,
         "speed_prescale=0.5:speed_prescale_method=bicubic");
    CLIP("cups_576x324", f420, 576, 324, 8, 2, 0,
         "speed_prescale=0.6:speed_prescale_method=lanczos4");
    CLIP("cups_576x324", f420, 576, 324, 8, 2, 0,
         "speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45");
    CLIP("forest_1920x1080", f420, 1920, 1080, 8, 2, 0,
         "speed_prescale=0.5:speed_prescale_method=bilinear");
    CLIP("forest_1920x1080", f420, 1920, 1080, 8, 3, 1, "");
    CLIP("forest_1920x1080", f420, 1920, 1080, 8, 2, 0, "");
    CLIP("checker_1920x1080", f420, 1920, 1080, 8, 3, 1, "");
    CLIP("sky_1920x1080_10b", f420, 1920, 1080, 10, 2, 0, "");
    CLIP("meadow_3840x2160", f420, 3840, 2160, 8, 2, 1, "");
    CLIP("meadow_3840x2160", f420, 3840, 2160, 8, 1, 0, "");
#undef CLIP
    replay_count("speed clip cases", n_clips);
    printf("clip cases found in %s: %u of %u\n", dir, n_clips, n_tried);

    printf("refused by both: %u cases; frames scored: %u, with a singular image: %u\n",
           n_refused, n_scored, n_singular_frames);
    if (!n_refused) replay_fail("no refused case was exercised");
    if (!n_singular_frames) replay_fail("no singular covariance was exercised");
    if (n_singular_frames == n_scored) replay_fail("no regular covariance was exercised");
    return replay_report("speed");
}
