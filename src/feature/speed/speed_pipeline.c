/*
 * The SpEED pipeline on the CPU (see speed_math.h for the arithmetic and
 * speed.c for the two extractors).
 *
 * Work saved against a literal port, without changing a bit: the
 * anti-alias filter is evaluated only on the rows and columns that the
 * decimation by 16 keeps (every output sample is computed on its own, so
 * skipping the others changes nothing), and the prescale computes only the
 * samples that filter reads, with its position and weight tables built once
 * per column and per row instead of once per sample. Samples the scaler
 * skips stay 0 and are never read into a kept value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_pipeline.h"

int speed_method(const char *method)
{
    if (!method) return -1;
    if (!strcmp(method, "nearest")) return FFILTER_SCALE_NEAREST;
    if (!strcmp(method, "bilinear")) return FFILTER_SCALE_BILINEAR;
    if (!strcmp(method, "bicubic")) return FFILTER_SCALE_BICUBIC;
    if (!strcmp(method, "lanczos4")) return FFILTER_SCALE_LANCZOS4;
    return -1;
}

int speed_min_plane_side(double prescale)
{
    int n = 1;
    while (n < (1 << 24) && speed_scaled_side(n, prescale) < SPEED_MIN_SIDE) n++;
    return n;
}

void speed_load_plane(const TvmafPicture *pic, int plane, int pw, int ph, float *dst)
{
    const unsigned char *src = pic->data[plane];
    const float div = sample_divisor(pic->bpc);
    for (int i = 0; i < ph; i++) {
        const unsigned char *row = src + (ptrdiff_t)i * pic->stride[plane];
        if (pic->bpc == 8) ffilter_load_row_8(row, dst + (size_t)i * pw, pw);
        else ffilter_load_row_16((const uint16_t *)row, dst + (size_t)i * pw, pw, div);
    }
}

void speed_pipeline_close(SpeedPipeline *p)
{
    free(p->xi);
    free(p->yi);
    free(p->xw);
    free(p->yw);
    free(p->need_col);
    free(p->need_row);
    free(p->scaled);
    free(p->ext);
    free((void *)p->rows);
    free(p->dec);
    free(p->mu);
    free(p->k);
    free(p->means);
    free(p->ev);
    free(p->eig_scratch);
    free(p->solve_scratch);
    free(p->b);
    free(p->x);
    free(p->qb);
    for (int s = 0; s < 2; s++) {
        free(p->ent[s]);
        free(p->var[s]);
    }
    memset(p, 0, sizeof(*p));
}

static void *alloc_floats(size_t n)
{
    return malloc((n ? n : 1) * sizeof(float));
}

enum SpeedInitStatus speed_pipeline_plan(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph)
{
    memset(p, 0, sizeof(*p));
    const float ks = (float)prm->kernelscale;
    if (!ffilter_kernelscale_valid(ks)) return SPEED_INIT_BAD_KERNELSCALE;
    const int m = speed_method(prm->method);
    if (m < 0) return SPEED_INIT_BAD_METHOD;
    p->method = (enum FfilterScaler)m;
    p->sigma_nn = (float)prm->sigma_nn;
    p->nn_floor = (float)prm->nn_floor;
    p->mode = prm->weight_var_mode;

    p->pw = pw;
    p->ph = ph;
    p->sw = speed_scaled_side(pw, prm->prescale);
    p->sh = speed_scaled_side(ph, prm->prescale);
    if (p->sw < SPEED_MIN_SIDE || p->sh < SPEED_MIN_SIDE) return SPEED_INIT_TOO_SMALL;
    const int unity = speed_prescale_is_unity(prm->prescale);
    /* Without resizing the reference filters the plane's top-left sw x sh:
     * a crop when the prescale shrinks it, samples it never wrote when the
     * prescale would grow it. */
    if (unity && (p->sw > pw || p->sh > ph)) return SPEED_INIT_UNSCALED_GROWTH;
    /* a scaler asked for the same size copies the plane */
    p->resize = !unity && !(p->sw == pw && p->sh == ph);
    p->g = speed_grid(p->sw >> SPEED_N_SCALES, p->sh >> SPEED_N_SCALES);
    const SpeedGrid *g = &p->g;

    p->aa_w = ffilter_gaussian_width(1, ks);
    ffilter_gaussian(p->aa, p->aa_w, speed_antialias_sd(p->aa_w));
    p->lm_w = ffilter_gaussian_width(SPEED_N_SCALES, ks);
    ffilter_gaussian(p->lm, p->lm_w, (float)p->lm_w / 5.0f);

    int ok = 1;
    if (p->resize) {
        const int t = p->taps = speed_scaler_taps(p->method);
        ok &= (p->xi = malloc((size_t)p->sw * t * sizeof(int))) != NULL;
        ok &= (p->yi = malloc((size_t)p->sh * t * sizeof(int))) != NULL;
        ok &= (p->xw = alloc_floats((size_t)p->sw * t)) != NULL;
        ok &= (p->yw = alloc_floats((size_t)p->sh * t)) != NULL;
        ok &= (p->need_col = calloc((size_t)p->sw, 1)) != NULL;
        ok &= (p->need_row = calloc((size_t)p->sh, 1)) != NULL;
        if (ok) {
            const float rx = ffilter_scale_ratio(pw, p->sw), ry = ffilter_scale_ratio(ph, p->sh);
            for (int x = 0; x < p->sw; x++)
                speed_axis(p->method, x, rx, pw, p->xi + (size_t)x * t, p->xw + (size_t)x * t);
            for (int y = 0; y < p->sh; y++)
                speed_axis(p->method, y, ry, ph, p->yi + (size_t)y * t, p->yw + (size_t)y * t);
            const int half = p->aa_w / 2;
            for (int r = 0; r < g->oh; r++)
                for (int k = 0; k < p->aa_w; k++)
                    p->need_row[mirror_skip_edge(r * SPEED_DECIMATION - half + k, p->sh)] = 1;
            for (int c = 0; c < g->ow; c++)
                for (int k = 0; k < p->aa_w; k++)
                    p->need_col[mirror_skip_edge(c * SPEED_DECIMATION - half + k, p->sw)] = 1;
        }
    }
    for (int s = 0; s < 2; s++) {
        ok &= (p->ent[s] = alloc_floats((size_t)g->nb)) != NULL;
        ok &= (p->var[s] = alloc_floats((size_t)g->nb)) != NULL;
    }
    if (!ok) {
        speed_pipeline_close(p);
        return SPEED_INIT_NOMEM;
    }
    return SPEED_INIT_OK;
}

enum SpeedInitStatus speed_pipeline_init(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph)
{
    const enum SpeedInitStatus st = speed_pipeline_plan(p, prm, pw, ph);
    if (st != SPEED_INIT_OK) return st;
    const SpeedGrid *g = &p->g;
    int ok = 1;
    if (p->resize) ok &= (p->scaled = calloc((size_t)p->sw * p->sh, sizeof(float))) != NULL;
    const size_t ext_n = (size_t)(p->sw + p->aa_w > g->ow + p->lm_w ? p->sw + p->aa_w
                                                                    : g->ow + p->lm_w);
    const int max_taps = p->aa_w > p->lm_w ? p->aa_w : p->lm_w;
    const size_t area = (size_t)g->ow * g->oh;
    const size_t nbe = (size_t)SPEED_NE * g->nb;
    ok &= (p->ext = alloc_floats(ext_n)) != NULL;
    ok &= (p->rows = malloc((size_t)max_taps * sizeof(*p->rows))) != NULL;
    ok &= (p->dec = alloc_floats(area)) != NULL;
    ok &= (p->mu = alloc_floats(area)) != NULL;
    ok &= (p->k = alloc_floats(SPEED_NE * SPEED_NE)) != NULL;
    ok &= (p->means = alloc_floats(SPEED_NE)) != NULL;
    ok &= (p->ev = alloc_floats(SPEED_NE)) != NULL;
    ok &= (p->eig_scratch = alloc_floats(SPEED_EIG_SCRATCH(SPEED_NE))) != NULL;
    ok &= (p->solve_scratch = alloc_floats(SPEED_SOLVE_SCRATCH(SPEED_NE))) != NULL;
    ok &= (p->b = alloc_floats(nbe)) != NULL;
    ok &= (p->x = alloc_floats(nbe)) != NULL;
    ok &= (p->qb = alloc_floats(nbe)) != NULL;
    if (!ok) {
        speed_pipeline_close(p);
        return SPEED_INIT_NOMEM;
    }
    return SPEED_INIT_OK;
}

/* The prescaled image: only the samples the anti-alias pass reads. */
static void resample(SpeedPipeline *p, const float *img, ptrdiff_t stride)
{
    const int t = p->taps;
    for (int y = 0; y < p->sh; y++) {
        if (!p->need_row[y]) continue;
        const int *yi = p->yi + (size_t)y * t;
        const float *yw = p->yw + (size_t)y * t;
        float *out = p->scaled + (size_t)y * p->sw;
        for (int x = 0; x < p->sw; x++) {
            if (!p->need_col[x]) continue;
            out[x] = speed_resample(p->method, img, stride, p->xi + (size_t)x * t,
                                    p->xw + (size_t)x * t, yi, yw);
        }
    }
}

/* Anti-alias filter and decimation by 16 of src (sw x sh), then the local
 * mean removed: the result in p->dec (ow x oh, rows of ow). */
static void reduce(SpeedPipeline *p, const float *src, ptrdiff_t stride)
{
    const SpeedGrid *g = &p->g;
    const int ow = g->ow, oh = g->oh;

    int half = p->aa_w / 2;
    for (int r = 0; r < oh; r++) {
        const int i = r * SPEED_DECIMATION;
        for (int k = 0; k < p->aa_w; k++)
            p->rows[k] = src + (ptrdiff_t)mirror_skip_edge(i - half + k, p->sh) * stride;
        ffilter_vpass(p->aa, p->aa_w, p->rows, p->ext + half, p->sw);
        ffilter_mirror_margins(p->ext, p->sw, half);
        ffilter_hpass(p->aa, p->aa_w, p->ext, p->dec + (size_t)r * ow, ow, SPEED_DECIMATION);
    }

    half = p->lm_w / 2;
    for (int r = 0; r < oh; r++) {
        for (int k = 0; k < p->lm_w; k++)
            p->rows[k] = p->dec + (size_t)mirror_skip_edge(r - half + k, oh) * ow;
        ffilter_vpass(p->lm, p->lm_w, p->rows, p->ext + half, ow);
        ffilter_mirror_margins(p->ext, ow, half);
        ffilter_hpass(p->lm, p->lm_w, p->ext, p->mu + (size_t)r * ow, ow, 1);
    }
    const size_t area = (size_t)ow * oh;
    for (size_t i = 0; i < area; i++) p->dec[i] -= p->mu[i];
}

/* Columns of an accumulator row: SPEED_NE rounded up to whole vectors of
 * doubles at any width the compiler picks (the extra lanes sum zeros). */
#define COV_COLS 32

/*
 * The 25x25 covariance matrix k (symmetric) of the block positions and the
 * 25 window means: each mean speed_window_mean, each entry speed_window_cov,
 * every bit the same. speed_window_cov sums one pair's products in double,
 * position by position (the window's rows, then its columns), and each add
 * waits for the one before; it is written for the device, one work-item per
 * entry. Here, computed window position by window position, every pair
 * keeps its own accumulator and still receives its products in that order,
 * with the same operations ((double)sample - mean, times, plus): only the
 * pairs are interleaved, so the compiler can put them in vector lanes. The
 * pair (x, y) is accumulated as d[x] * d[y]; the reference's x-y order is the
 * same product (multiplication is commutative in IEEE arithmetic).
 */
static void covariance(const float *img, int stride, const SpeedGrid *g, float *k, float *means)
{
    for (int r = 0; r < SPEED_BLOCK; r++)
        for (int c = 0; c < SPEED_BLOCK; c++)
            means[r * SPEED_BLOCK + c] = speed_window_mean(img, stride, g, r, c);
    double mean[SPEED_NE];
    for (int x = 0; x < SPEED_NE; x++) mean[x] = means[x];
    double acc[SPEED_NE][COV_COLS] = { { 0 } };
    double d[COV_COLS] = { 0 };
    for (int i = 0; i < g->subh; i++)
        for (int j = 0; j < g->subw; j++) {
            for (int x = 0; x < SPEED_NE; x++)
                d[x] = (double)img[(size_t)(x / SPEED_BLOCK + i) * stride + x % SPEED_BLOCK + j] -
                       mean[x];
            /* the pairs y <= x, and a few past x to end on a vector */
            for (int x = 0; x < SPEED_NE; x++) {
                const double dx = d[x];
                const int ny = (x + 8) & ~7;
                for (int y = 0; y < ny; y++) acc[x][y] += dx * d[y];
            }
        }
    const double n = (double)((size_t)g->subw * (size_t)g->subh);
    for (int x = 0; x < SPEED_NE; x++)
        for (int y = 0; y <= x; y++) {
            const float v = (float)(acc[x][y] / n);
            k[x * SPEED_NE + y] = v;
            k[y * SPEED_NE + x] = v;
        }
}

/*
 * Solves K X = B (K 25 x 25; B and X 25 x m, row-major: a column per block)
 * through K = Q' R: X = R^-1 (Q B), each column with speed_solve_column's
 * operations in its order (the device runs that function per block). The
 * columns are independent and side by side in memory (B and X are 25 x nb,
 * row-major), so each step below runs over all the columns at once, one
 * float per column, which the compiler puts in vector lanes. Returns -1
 * (X not written) when a diagonal entry of R is below 1e-6 in magnitude.
 */
static int solve(const float *k, const float *b, float *x, float *qb, int m, float *scratch)
{
    const int n = SPEED_NE;
    float *q = scratch, *r = q + n * n, *qr_scratch = r + n * n;
    speed_qr(k, q, r, n, qr_scratch);
    if (speed_r_singular(r, n)) return -1;
    for (int i = 0; i < n; i++) {
        float *o = qb + (size_t)i * m;
        for (int j = 0; j < m; j++) o[j] = 0.0f;
        for (int l = 0; l < n; l++) {
            const float c = q[i * n + l];
            const float *bl = b + (size_t)l * m;
            for (int j = 0; j < m; j++) o[j] += c * bl[j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        float *o = x + (size_t)i * m;
        const float *t = qb + (size_t)i * m;
        for (int j = 0; j < m; j++) o[j] = t[j];
        for (int l = i + 1; l < n; l++) {
            const float c = r[i * n + l];
            const float *xl = x + (size_t)l * m;
            for (int j = 0; j < m; j++) o[j] -= xl[j] * c;
        }
        const float d = r[i * n + i];
        for (int j = 0; j < m; j++) o[j] /= d;
    }
    return 0;
}

/* speed_block_variance of every block, each block's sum in its order. */
static void block_variances(const float *x, const float *b, int nb, float *var)
{
    for (int blk = 0; blk < nb; blk++) var[blk] = (x[blk] * b[blk]) / 25.0f;
    for (int q = 1; q < SPEED_NE; q++) {
        const float *xq = x + (size_t)q * nb, *bq = b + (size_t)q * nb;
        for (int blk = 0; blk < nb; blk++) var[blk] += (xq[blk] * bq[blk]) / 25.0f;
    }
}

int speed_pipeline_image(SpeedPipeline *p, const float *img, ptrdiff_t stride, int side)
{
    if (p->resize) {
        resample(p, img, stride);
        reduce(p, p->scaled, p->sw);
    } else {
        reduce(p, img, stride);
    }

    const SpeedGrid *g = &p->g;
    covariance(p->dec, g->ow, g, p->k, p->means);
    speed_eigenvalues(p->k, p->ev, SPEED_NE, p->eig_scratch);
    speed_block_samples(p->dec, g->ow, g, p->b);

    int singular = !speed_regular(p->ev);
    if (!singular)
        singular = solve(p->k, p->b, p->x, p->qb, g->nb, p->solve_scratch) != 0;
    if (singular) memset(p->x, 0, (size_t)SPEED_NE * g->nb * sizeof(float));

    block_variances(p->x, p->b, g->nb, p->var[side]);
    speed_pipeline_entropies(p, p->ev, side);
    return singular;
}

void speed_pipeline_entropies(SpeedPipeline *p, const float *ev, int side)
{
    for (int blk = 0; blk < p->g.nb; blk++)
        p->ent[side][blk] = speed_block_entropy(ev, p->var[side][blk], p->sigma_nn);
}

float speed_pipeline_score(const SpeedPipeline *p, int singular_ref, int singular_dis)
{
    if (!singular_ref != !singular_dis) return 0.0f;
    return speed_score(p->ent[0], p->var[0], p->ent[1], p->var[1], p->g.nb, p->sigma_nn,
                       p->nn_floor, p->mode);
}
