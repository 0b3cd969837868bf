/*
 * The SpEED pipeline's per-image work (speed_pipeline.h: the plane loaded as
 * floats, then speed_pipeline_image), written for the SIMD level of the
 * translation unit that includes this header: speed_pipeline.c (the
 * baseline) and speed_x86.c (compiled once per x86 level), each defining its
 * set with SPEED_KERNELS_DEFINE.
 *
 * Why every level gives the baseline's bits: the compiler's vectors run
 * across independent values (output samples, covariance pairs, blocks),
 * each lane doing the scalar code's chain of float or double operations for
 * its own value in the same order; the build forbids contraction into FMA
 * (-ffp-contract=off) and reassociation, so no sum is regrouped and no
 * product fused. tests/checkasm/speed.c compares every level's statistics
 * with the baseline's, bit for bit.
 */
#ifndef TVMAF_SPEED_IMAGE_H
#define TVMAF_SPEED_IMAGE_H

#include <stdint.h>
#include <string.h>

#include "feature/speed/speed_pipeline.h"

/* speed_load_plane (speed_pipeline.h): the rows marked in rows, or all */
static void speed_load_plane_(const TvmafPicture *pic, int plane, int pw, int ph,
                              const unsigned char *rows, float *dst)
{
    const unsigned char *src = pic->data[plane];
    const float div = sample_divisor(pic->bpc);
    for (int i = 0; i < ph; i++) {
        if (rows && !rows[i]) continue;
        const unsigned char *row = src + (ptrdiff_t)i * pic->stride[plane];
        if (pic->bpc == 8) ffilter_load_row_8(row, dst + (size_t)i * pw, pw);
        else ffilter_load_row_16((const uint16_t *)row, dst + (size_t)i * pw, pw, div);
    }
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
 * doubles at every level's width (the extra lanes sum products never read). */
#define COV_COLS 32
/* Window positions whose products a pass adds into the accumulators at once */
#define COV_POSITIONS 4

#if defined(__AVX512F__)
#define COV_LANES 8
#elif defined(__AVX2__)
#define COV_LANES 4
#else
#define COV_LANES 2
#endif
typedef double speed_cov_vd __attribute__((vector_size(COV_LANES * 8), aligned(8), may_alias));
#define COV_LD(p) (*(const speed_cov_vd *)(const void *)(p))
#define COV_ST(p, v) (*(speed_cov_vd *)(void *)(p) = (v))

/*
 * The 25x25 covariance matrix k (symmetric) of the block positions and the
 * 25 window means: each mean speed_window_mean, each entry speed_window_cov,
 * every bit the same. speed_window_cov sums one pair's products in double,
 * position by position (the window's rows, then its columns), and each add
 * waits for the one before; it is written for the device, one work-item per
 * entry. Here every pair keeps its own accumulator, a vector lane, and
 * still receives its products in that order, with the same operations
 * ((double)sample - mean, times, plus): the pairs are side by side, and the
 * products of COV_POSITIONS consecutive positions are added while a pair's
 * sum is in a register (loaded and stored once for them, not once each).
 * The pair (x, y) is accumulated as d[x] * d[y]; the reference's x-y order
 * is the same product (multiplication is commutative in IEEE arithmetic).
 */
static void covariance(const float *img, int stride, const SpeedGrid *g, float *k, float *means)
{
    for (int r = 0; r < SPEED_BLOCK; r++)
        for (int c = 0; c < SPEED_BLOCK; c++)
            means[r * SPEED_BLOCK + c] = speed_window_mean(img, stride, g, r, c);
    double mean[SPEED_NE];
    for (int x = 0; x < SPEED_NE; x++) mean[x] = means[x];
    _Alignas(64) double acc[SPEED_NE][COV_COLS] = { { 0 } };
    _Alignas(64) double d[COV_POSITIONS][COV_COLS] = { { 0 } };
    const int subw = g->subw;
    const long n_pos = (long)g->subh * subw;
    int i = 0, j = 0; /* the next position */
    for (long p0 = 0; p0 < n_pos; p0 += COV_POSITIONS) {
        const int np = n_pos - p0 < COV_POSITIONS ? (int)(n_pos - p0) : COV_POSITIONS;
        for (int q = 0; q < np; q++) {
            for (int r = 0; r < SPEED_BLOCK; r++) {
                const float *row = img + (size_t)(r + i) * stride + j;
                for (int c = 0; c < SPEED_BLOCK; c++)
                    d[q][r * SPEED_BLOCK + c] = (double)row[c] - mean[r * SPEED_BLOCK + c];
            }
            if (++j == subw) j = 0, i++;
        }
        /* the pairs y <= x, and a few past x to end on a vector */
        for (int x = 0; x < SPEED_NE; x++) {
            const int nv = x / COV_LANES + 1;
            for (int v = 0; v < nv; v++) {
                speed_cov_vd a = COV_LD(&acc[x][v * COV_LANES]);
                for (int q = 0; q < np; q++) a = a + d[q][x] * COV_LD(&d[q][v * COV_LANES]);
                COV_ST(&acc[x][v * COV_LANES], a);
            }
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

/* speed_pipeline_image (speed_pipeline.h) */
static int speed_pipeline_image_(SpeedPipeline *p, const float *img, ptrdiff_t stride, int side)
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

#define SPEED_KERNELS_DEFINE(name) \
    const SpeedKernels name = { speed_load_plane_, speed_pipeline_image_ }

#endif /* TVMAF_SPEED_IMAGE_H */
