/*
 * SpEED (libvmaf's speed_chroma and speed_temporal): the arithmetic, written
 * once for the CPU extractors and their GPU twins (speed_kernels.h; the twins'
 * decomposition is described near the end of this file).
 *
 * One "image" is scored as follows (the chroma extractor feeds it a U or V
 * plane, the temporal one the difference of two consecutive luma planes):
 *
 *   1. samples become floats centred on zero, as float_vif's input (the
 *      samples, scalers, Gaussians and separable filter float_vif and speed
 *      share are common/float_filter.h's);
 *   2. an optional prescale resizes the image with one of float_vif's
 *      scalers (nearest, bilinear, bicubic, lanczos4) to
 *      (int)(side * prescale + 0.5) per side;
 *   3. an anti-alias Gaussian (the width of float_vif's scale-1 filter, its
 *      deviation widened by sqrt(4)) is applied and every 16th sample of
 *      every 16th row is kept (float_vif's separable filter: vertical pass
 *      first, taps in index order from 0, mirrored borders);
 *   4. the local mean (float_vif's scale-4 Gaussian) of that small image is
 *      subtracted from it;
 *   5. the image is cut into 5x5 blocks (sides truncated to multiples of 5);
 *      the 25x25 covariance of the 25 positions of a block is estimated
 *      over every placement of a 5x5 window; its eigenvalues come from a
 *      Householder tridiagonalisation and implicit QR steps (GSL's
 *      symmetric algorithm, in float); a QR factorisation (Householder, in
 *      float) solves K X = B for the blocks' samples B;
 *   6. per block, the variance is the sum over the 25 positions of X * B / 25
 *      and the entropy the sum over the eigenvalues L of
 *      log2(L * variance + sigma_nn) + log2(2 pi e).
 * The score of a pair of images compares entropies weighted by log2(1 +
 * variance), block by block (speed_score()).
 *
 * Types follow the reference exactly: the image and every matrix are float;
 * the covariance sums are double; several expressions promote to double
 * through a double constant (noted where it happens). log2 is the C
 * library's double log2, exp and sqrt are double too. No operation is fused.
 *
 * A covariance matrix with an eigenvalue below 1e-6 (or a triangular factor
 * with a diagonal entry below 1e-6 in magnitude) is "singular": the solution
 * is taken as zero, so every variance is 0 and every entropy 25 times
 * log2(sigma_nn) + log2(2 pi e) (rounded along the way), and the pair's score
 * follows the rules in speed.c.
 */
#ifndef TVMAF_SPEED_MATH_H
#define TVMAF_SPEED_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#endif

#include "core/hd.h"
#include "feature/common/float_filter.h"
#include "feature/common/sample.h"

/* The device's doubles (the eigen and QR steps' bounds, products and roots,
 * the covariance sums): an fp64-free program (OpenCL without cl_khr_fp64)
 * forms their bit patterns in integers (numerics/soft_double.h); the host
 * code further down (geometry, tables, entropies, scores) is not in it. */
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
#endif
/* bits of the doubles those expressions name: 1e-6, -0.5 and 2.0
 * (tests/test_soft_double.c checks them; 1.0 is TVMAF_SD_ONE) */
#define SPEED_EIG_EPS_BITS UINT64_C(0x3eb0c6f7a0b5ed8d)
#define SPEED_MHALF_BITS UINT64_C(0xbfe0000000000000)
#define SPEED_TWO_BITS UINT64_C(0x4000000000000000)

#define SPEED_BLOCK 5                           /* block side */
#define SPEED_NE (SPEED_BLOCK * SPEED_BLOCK)    /* positions in a block: 25 */
#define SPEED_N_SCALES 4
#define SPEED_DECIMATION (1 << SPEED_N_SCALES) /* 16 */
/* Smallest side of the (prescaled) image: one block after decimation. */
#define SPEED_MIN_SIDE (SPEED_BLOCK << SPEED_N_SCALES) /* 80 */

#define SPEED_EIG_EPS 1e-6          /* a double, as in the reference's comparisons */
#define SPEED_EIG_MAX_ITERS 500

/* log2(2 pi e) as a double: what glibc's log2 returns for the double product
 * 2 * pi * e, which is also the correctly rounded value that the compiler's
 * constant folding gives. */
#define SPEED_LOG2_2PIE 0x1.06073a671183dp+2

/* The scalers' border rule and the separable filter are float_vif's
 * (common/float_filter.h); the values the reference's vif_tools.c computes
 * for speed are the same. */

/* ------------------------------------------------------------------------ */
/* Geometry                                                                 */
/* ------------------------------------------------------------------------ */

#if !defined(TVMAF_FP64_FREE)
/* Side after the prescale: (int)(side * prescale + 0.5), in double. */
TVMAF_HD int speed_scaled_side(int side, double prescale)
{
    return (int)((double)side * prescale + 0.5);
}

/* Whether the reference treats the prescale as 1 (no resizing; the scaled
 * sides are still computed from it). */
TVMAF_HD int speed_prescale_is_unity(double prescale)
{
    return fabs(prescale - 1.0) < 1.0e-3;
}
#endif /* !TVMAF_FP64_FREE */

/* ------------------------------------------------------------------------ */
/* Prescale (common/float_filter.h's scalers, with per-axis tables)         */
/* ------------------------------------------------------------------------ */

/*
 * The reference's scalers compute, for every destination sample, source
 * positions and weights that depend only on its column (x) or only on its
 * row (y). speed_axis() computes them once per column and per row; the
 * per-sample arithmetic (speed_resample()) is the reference's, in its order.
 */

/* Source samples a scaler reads along one axis. */
TVMAF_HD int speed_scaler_taps(enum FfilterScaler m)
{
    return m == FFILTER_SCALE_LANCZOS4 ? 2 * FFILTER_LANCZOS_A + 1
         : m == FFILTER_SCALE_BICUBIC ? 4
         : m == FFILTER_SCALE_BILINEAR ? 2 : 1;
}
#define SPEED_MAX_SCALER_TAPS (2 * FFILTER_LANCZOS_A + 1)

/*
 * Destination index x of an axis of src_n source samples (ratio =
 * ffilter_scale_ratio(src_n, dst_n)): source indices idx[0..taps) and weights
 * w[0..taps). Bilinear keeps its single fraction in w[0]; nearest has none.
 */
#if !defined(TVMAF_FP64_FREE) /* the host's tables */
TVMAF_HD void speed_axis(enum FfilterScaler m, int x, float ratio, int src_n, int *idx, float *w)
{
    if (m == FFILTER_SCALE_NEAREST) {
        idx[0] = ffilter_nearest_index(x, ratio);
        w[0] = 1.0f;
        return;
    }
    if (m == FFILTER_SCALE_BILINEAR) {
        ffilter_bilinear_axis(x, ratio, src_n, &idx[0], &idx[1], &w[0]);
        w[1] = 0.0f;
        return;
    }
    const float pos = ffilter_scale_pos(x, ratio);
    const int x0 = (int)floor((double)pos);
    const float d = pos - (float)x0;
    const float last = (float)(src_n - 1);
    if (m == FFILTER_SCALE_BICUBIC) {
        for (int i = -1; i <= 2; i++) {
            w[i + 1] = ffilter_bicubic_weight((float)i - d);
            idx[i + 1] = (int)ffilter_scale_mirror((float)(x0 + i), 0.0f, last);
        }
        return;
    }
    const int a = FFILTER_LANCZOS_A;
    for (int i = -a; i <= a; i++) {
        w[i + a] = ffilter_lanczos_weight((float)i - d, (float)a);
        idx[i + a] = (int)ffilter_scale_mirror((float)(x0 + i), 0.0f, last);
    }
}
#endif /* !TVMAF_FP64_FREE */

/*
 * One destination sample from the tables of its column (xi, xw) and row
 * (yi, yw):
 *   nearest  the sample at (yi[0], xi[0]);
 *   bilinear (1-dy)(1-dx) a + (1-dy) dx b + dy (1-dx) c + dy dx d, products
 *            left to right, sums left to right;
 *   bicubic  sum over rows j, then columns i, of sample * (wx[i] * wy[j]),
 *            into a float from 0;
 *   lanczos4 the same over 9x9 taps, the weights also summed, then the
 *            quotient of the two sums.
 */
TVMAF_HD float speed_resample(enum FfilterScaler m, TVMAF_GLOBAL const float *src, ptrdiff_t stride,
                              TVMAF_GLOBAL const int *xi, TVMAF_GLOBAL const float *xw,
                              TVMAF_GLOBAL const int *yi, TVMAF_GLOBAL const float *yw)
{
    if (m == FFILTER_SCALE_NEAREST) return src[yi[0] * stride + xi[0]];
    if (m == FFILTER_SCALE_BILINEAR) {
        TVMAF_GLOBAL const float *r1 = src + yi[0] * stride, *r2 = src + yi[1] * stride;
        const float dx = xw[0], dy = yw[0];
        const int a = xi[0], b = xi[1];
        return (1 - dy) * (1 - dx) * r1[a] + (1 - dy) * dx * r1[b] +
               dy * (1 - dx) * r2[a] + dy * dx * r2[b];
    }
    if (m == FFILTER_SCALE_BICUBIC) {
        float v = 0.0f;
        for (int j = 0; j < 4; j++) {
            TVMAF_GLOBAL const float *row = src + yi[j] * stride;
            for (int i = 0; i < 4; i++) {
                const float wt = xw[i] * yw[j];
                v += row[xi[i]] * wt;
            }
        }
        return v;
    }
    const int n = 2 * FFILTER_LANCZOS_A + 1;
    float value = 0.0f, wsum = 0.0f;
    for (int j = 0; j < n; j++) {
        TVMAF_GLOBAL const float *row = src + yi[j] * stride;
        for (int i = 0; i < n; i++) {
            const float wt = xw[i] * yw[j];
            wsum += wt;
            value += row[xi[i]] * wt;
        }
    }
    return value / wsum;
}

/* ------------------------------------------------------------------------ */
/* Small float helpers with the reference's promotions                     */
/* ------------------------------------------------------------------------ */

/* float square root taken in double (the reference calls sqrt on a float).
 * An fp64-free program takes the float root: rounding the exact root to 53
 * bits and then to 24 gives the root rounded once to 24 (53 >= 2 * 24 + 2),
 * so the correctly rounded sqrtf the twin requires is the same float. */
TVMAF_HD float speed_sqrt(float x)
{
#if defined(TVMAF_FP64_FREE)
    return sqrtf(x);
#else
    return (float)sqrt((double)x);
#endif
}

/* sqrt(x*x + y*y): squares and sum in float, root in double */
TVMAF_HD float speed_hypot(float x, float y)
{
    return speed_sqrt(x * x + y * y);
}

TVMAF_HD int speed_sign(float x)
{
    return x >= 0 ? 1 : -1;
}

/* ------------------------------------------------------------------------ */
/* Symmetric eigenvalues (25x25, float)                                     */
/* ------------------------------------------------------------------------ */

/*
 * Householder vector for column `col` of the n x n matrix a, rows r0 .. n-1:
 * scales a[r0+1.., col] in place to the vector's tail, puts beta in
 * a[r0][col] and returns tau (0 when there is nothing to annihilate).
 */
TVMAF_HD float speed_householder(TVMAF_LOCAL float *a, int col, int r0, int n)
{
    if (n - r0 == 1) return 0.0f;
    float tail = 0;
    for (int i = r0 + 1; i < n; i++) tail += a[i * n + col] * a[i * n + col];
    tail = speed_sqrt(tail);
    if (tail == 0.0f) return 0.0f;
    const float alpha = a[r0 * n + col];
    const float beta = (float)(-speed_sign(alpha)) * speed_hypot(alpha, tail);
    const float tau = (beta - alpha) / beta;
    const float s = alpha - beta;
    if (s != 0.0f) {
        for (int i = r0; i < n; i++) a[i * n + col] /= s;
        a[r0 * n + col] = beta;
    }
    return tau;
}

/*
 * Reduces the symmetric n x n matrix a (destroyed) to tridiagonal form:
 * diagonal d[0..n), subdiagonal e[0..n-1). v and x are n-float scratch.
 * Each step i applies the reflection that clears a[i+2.., i] to the trailing
 * block [i+1, n) x [i+1, n): x = tau A v, x += (-tau/2 (x.v)) v (that
 * factor formed in double), A -= x v' + v x'.
 */
TVMAF_HD void speed_tridiagonalize(TVMAF_LOCAL float *a, int n, TVMAF_LOCAL float *d,
                                   TVMAF_LOCAL float *e, TVMAF_LOCAL float *v, TVMAF_LOCAL float *x)
{
    for (int i = 0; i + 2 < n; i++) {
        const float tau = speed_householder(a, i, i + 1, n);
        for (int j = i + 1; j < n; j++) v[j] = a[j * n + i];
        if (tau == 0.0f) continue;
        a[(i + 1) * n + i] = v[i + 1];
        v[i + 1] = 1.0f;
        const int lo = i + 1;
        for (int r = lo; r < n; r++) {
            float acc = 0.0f;
            for (int c = lo; c < n; c++) acc += tau * a[r * n + c] * v[c];
            x[r] = acc;
        }
        float xv = 0;
        for (int r = lo; r < n; r++) xv += x[r] * v[r];
#if defined(TVMAF_FP64_FREE)
        const float k = tvmaf_sd_to_float(tvmaf_sd_mul(
            tvmaf_sd_mul(SPEED_MHALF_BITS, tvmaf_sd_from_float(tau)), tvmaf_sd_from_float(xv)));
#else
        const float k = (float)(-0.5 * (double)tau * (double)xv);
#endif
        for (int r = lo; r < n; r++) x[r] += k * v[r];
        for (int r = lo; r < n; r++)
            for (int c = lo; c < n; c++) a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
    }
    for (int i = 0; i < n; i++) d[i] = a[i * n + i];
    for (int i = 0; i + 1 < n; i++) e[i] = a[(i + 1) * n + i];
}

/* Zeroes the subdiagonal entries that are negligible next to their two
 * diagonal neighbours (the bound formed in double). */
TVMAF_HD void speed_chop(TVMAF_LOCAL const float *d, TVMAF_LOCAL float *e, int n)
{
    for (int i = 0; i + 1 < n; i++) {
#if defined(TVMAF_FP64_FREE)
        const int negligible =
            tvmaf_sd_lt(tvmaf_sd_from_float(fabsf(e[i])),
                        tvmaf_sd_mul(SPEED_EIG_EPS_BITS,
                                     tvmaf_sd_from_float(fabsf(d[i]) + fabsf(d[i + 1]))));
#else
        const int negligible =
            (double)fabsf(e[i]) < SPEED_EIG_EPS * (double)(fabsf(d[i]) + fabsf(d[i + 1]));
#endif
        if (negligible) e[i] = 0.0f;
    }
}

/* Wilkinson shift: the eigenvalue of the trailing 2x2 block closer to its
 * last diagonal entry. */
TVMAF_HD float speed_wilkinson(TVMAF_LOCAL const float *d, TVMAF_LOCAL const float *e, int n)
{
    const float ta = d[n - 2], tb = d[n - 1], tab = e[n - 2];
#if defined(TVMAF_FP64_FREE)
    const float dt =
        tvmaf_sd_to_float(tvmaf_sd_div(tvmaf_sd_from_float(ta - tb), SPEED_TWO_BITS));
#else
    const float dt = (float)((double)(ta - tb) / 2.0);
#endif
    if (dt > 0) return tb - tab * (tab / (dt + speed_hypot(dt, tab)));
    if (dt == 0) return tb - fabsf(tab);
    return tb + tab * (tab / (-dt + speed_hypot(dt, tab)));
}

/* 1 / sqrt(1 + t t): the sum in float, the root and the quotient in double,
 * rounded to float */
TVMAF_HD float speed_givens_scale(float t)
{
#if defined(TVMAF_FP64_FREE)
    return tvmaf_sd_to_float(
        tvmaf_sd_div(TVMAF_SD_ONE, tvmaf_sd_sqrt(tvmaf_sd_from_float(1 + t * t))));
#else
    return (float)(1.0 / sqrt((double)(1 + t * t)));
#endif
}

/* Givens rotation (c, s) for the pair (a, b); the root in double. */
TVMAF_HD void speed_givens(float a, float b, float *c, float *s)
{
    if (b == 0) {
        *c = 1;
        *s = 0;
    } else if (fabsf(b) > fabsf(a)) {
        const float t = -a / b;
        const float u = speed_givens_scale(t);
        *s = u;
        *c = u * t;
    } else {
        const float t = -b / a;
        const float u = speed_givens_scale(t);
        *c = u;
        *s = u * t;
    }
}

/* One implicit symmetric QR step with Wilkinson shift on the unreduced
 * tridiagonal block d[0..n), e[0..n-1), n >= 2 (chasing the bulge down). */
TVMAF_HD void speed_qr_step(TVMAF_LOCAL float *d, TVMAF_LOCAL float *e, int n)
{
    float mu = speed_wilkinson(d, e, n);
#if defined(TVMAF_FP64_FREE)
    if (tvmaf_sd_lt(tvmaf_sd_from_float(fabsf(d[0]) + fabsf(e[0])),
                    tvmaf_sd_mul(SPEED_EIG_EPS_BITS, tvmaf_sd_from_float(fabsf(mu)))))
        mu = 0;
#else
    if (SPEED_EIG_EPS * (double)fabsf(mu) > (double)(fabsf(d[0]) + fabsf(e[0]))) mu = 0;
#endif

    float x = d[0] - mu, z = e[0];
    float bk = 0, zk = 0;
    float ap = d[0], bp = e[0], aq = d[1];

    if (n == 2) {
        float c, s;
        speed_givens(x, z, &c, &s);
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        e[0] = bp1;
        d[1] = aq1;
        return;
    }

    float bq = e[1];
    for (int k = 0; k < n - 1; k++) {
        float c, s;
        speed_givens(x, z, &c, &s);
        const float bk1 = c * bk - s * zk;
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float zp1 = -s * bq;
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        const float bq1 = c * bq;

        const float ak = ap1;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2) aq = d[k + 2];
        if (k < n - 3) bq = e[k + 2];
        d[k] = ak;
        if (k > 0) e[k - 1] = bk1;
        if (k < n - 2) e[k + 1] = bp;
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    e[n - 2] = bk;
}

/*
 * Eigenvalues of the tridiagonal (d, e), into d, in the order the iteration
 * leaves them (unsorted). Works from the bottom: the largest unreduced block
 * ending at row b gets one QR step, then negligible subdiagonals are
 * chopped; at most SPEED_EIG_MAX_ITERS steps. Returns 0, or -1 when the
 * step limit was reached.
 */
TVMAF_HD int speed_tridiagonal_eigen(TVMAF_LOCAL float *d, TVMAF_LOCAL float *e, int n)
{
    speed_chop(d, e, n);
    int b = n - 1, iter = 0;
    while (b > 0 && iter < SPEED_EIG_MAX_ITERS) {
        if (e[b - 1] == 0.0f) {
            b--;
            continue;
        }
        int a = b - 1;
        while (a > 0 && e[a - 1] != 0.0f) a--;
        const int m = b - a + 1;
        speed_qr_step(d + a, e + a, m);
        speed_chop(d + a, e + a, m);
        iter++;
    }
    return iter == SPEED_EIG_MAX_ITERS ? -1 : 0;
}

/* Scratch floats speed_eigenvalues needs for an n x n matrix. */
#define SPEED_EIG_SCRATCH(n) ((n) * (n) + 4 * (n))

/* Eigenvalues of the symmetric n x n matrix k (kept) into ev. */
TVMAF_HD int speed_eigenvalues(TVMAF_GLOBAL const float *k, TVMAF_GLOBAL float *ev, int n,
                               TVMAF_LOCAL float *scratch)
{
    TVMAF_LOCAL float *a = scratch, *d = a + n * n, *e = d + n, *v = e + n, *x = v + n;
    for (int i = 0; i < n * n; i++) a[i] = k[i];
    if (n == 1) {
        ev[0] = a[0];
        return 0;
    }
    speed_tridiagonalize(a, n, d, e, v, x);
    const int r = speed_tridiagonal_eigen(d, e, n);
    for (int i = 0; i < n; i++) ev[i] = d[i];
    return r;
}

/* ------------------------------------------------------------------------ */
/* Linear system K X = B by Householder QR (float)                          */
/* ------------------------------------------------------------------------ */

/* Entry (i, j) of x * y for n x n matrices: summed over the inner index in
 * order, from 0 (a float from 0.0f). */
TVMAF_HD float speed_matmul_entry(TVMAF_LOCAL const float *x, TVMAF_LOCAL const float *y, int n,
                                  int i, int j)
{
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += x[i * n + k] * y[k * n + j];
    return acc;
}

#ifndef __OPENCL_VERSION__ /* the CPU's loop; the device gives each entry a work-item */
/* dst = x * y for n x n matrices (dst apart from both), each entry
 * speed_matmul_entry's sum: from 0.0f, the products added in order of k.
 * The entries of a row are summed side by side (k outside, j inside), so
 * that they can be vector lanes where one entry's sum would wait on each
 * add: in registers for n <= 32 (every CPU call: n is SPEED_NE), else (and
 * where the compiler has no vector extensions) in dst. */
#if !TVMAF_DEVICE_CODE && defined(__GNUC__)
/* Up to 32 entries of a row as vectors of floats as wide as the including
 * translation unit's SIMD level (two, four or eight of them). */
#if defined(__AVX512F__)
#define SPEED_MM_BYTES 64
#elif defined(__AVX2__)
#define SPEED_MM_BYTES 32
#else
#define SPEED_MM_BYTES 16
#endif
typedef float speed_mm_vf __attribute__((vector_size(SPEED_MM_BYTES), aligned(4), may_alias));
#define SPEED_MATMUL_VEC_MAX 32
#endif

TVMAF_HD void speed_matmul_sq(float *dst, const float *x, const float *y, int n)
{
#if !TVMAF_DEVICE_CODE && defined(__GNUC__)
    /* the same sums with a row's entries held in registers from the first
     * product to the last (in memory, each add of a row waited on the store
     * of the one before); y is copied into rows padded with zeros to whole
     * vectors, whose extra lanes are summed and dropped. The accumulators
     * are named, not an array, so that the compiler keeps them in registers;
     * those past V are never used. */
    if (n <= SPEED_MATMUL_VEC_MAX) {
        enum { V = SPEED_MATMUL_VEC_MAX * 4 / SPEED_MM_BYTES };
        speed_mm_vf yp[SPEED_MATMUL_VEC_MAX][V];
        for (int k = 0; k < n; k++) {
            float *row = (float *)yp[k];
            for (int j = 0; j < n; j++) row[j] = y[k * n + j];
            for (int j = n; j < SPEED_MATMUL_VEC_MAX; j++) row[j] = 0.0f;
        }
        for (int i = 0; i < n; i++) {
            speed_mm_vf a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
            speed_mm_vf a4 = { 0 }, a5 = { 0 }, a6 = { 0 }, a7 = { 0 };
            for (int k = 0; k < n; k++) {
                const float c = x[i * n + k];
                const speed_mm_vf *r = yp[k];
                a0 = a0 + c * r[0];
                a1 = a1 + c * r[1];
                if (V > 2) {
                    a2 = a2 + c * r[2 % V];
                    a3 = a3 + c * r[3 % V];
                }
                if (V > 4) {
                    a4 = a4 + c * r[4 % V];
                    a5 = a5 + c * r[5 % V];
                    a6 = a6 + c * r[6 % V];
                    a7 = a7 + c * r[7 % V];
                }
            }
            const speed_mm_vf all[8] = { a0, a1, a2, a3, a4, a5, a6, a7 };
            for (int j = 0; j < n; j++) dst[i * n + j] = ((const float *)all)[j];
        }
        return;
    }
#endif
    for (int i = 0; i < n; i++) {
        float *d = dst + i * n;
        for (int j = 0; j < n; j++) d[j] = 0.0f;
        for (int k = 0; k < n; k++) {
            const float c = x[i * n + k];
            const float *yk = y + k * n;
            for (int j = 0; j < n; j++) d[j] += c * yk[j];
        }
    }
}

#endif

/* Euclidean norm of an n-vector: squares summed in float, root in double. */
TVMAF_HD float speed_norm(TVMAF_LOCAL const float *x, int n)
{
    float sum = 0;
    for (int i = 0; i < n; i++) sum += x[i] * x[i];
    return speed_sqrt(sum);
}

/* Scratch floats speed_qr needs for an n x n matrix. */
#define SPEED_QR_SCRATCH(n) (4 * (n) * (n) + (n))

/*
 * The pieces of one step k of the QR factorisation below, each written once
 * for the CPU's loops and for the device, where one thread takes one entry
 * (i, j) of the 25x25 matrices (speed_kernels.h's speed_factor kernel):
 *   speed_qr_mask: entry (i, j) of the partly reduced matrix z becomes the
 *     identity's when i < k or j < k;
 *   speed_qr_vector: the reflection's vector v from column k of z (one
 *     thread: two norms, each a float sum in order);
 *   speed_qr_reflector: entry (i, j) of I - 2 v v' (the product first, then
 *     1 added on the diagonal, in float);
 *   then z and q are multiplied by it (speed_matmul_entry per entry).
 */
TVMAF_HD void speed_qr_mask(TVMAF_LOCAL float *z, int n, int k, int i, int j)
{
    if (i < k || j < k) z[i * n + j] = (i == j ? 1 : 0);
}

TVMAF_HD void speed_qr_vector(TVMAF_LOCAL const float *z, TVMAF_LOCAL const float *a,
                              TVMAF_LOCAL float *v, int n, int k)
{
    for (int i = 0; i < n; i++) v[i] = z[i * n + k];
    const float norm = speed_norm(v, n);
    v[k] += (float)speed_sign(a[k * n + k]) * norm;
    const float vn = speed_norm(v, n);
    for (int i = 0; i < n; i++) v[i] = v[i] / vn;
}

TVMAF_HD float speed_qr_reflector(TVMAF_LOCAL const float *v, int i, int j)
{
    float h = -2 * v[i] * v[j];
    if (i == j) h += 1;
    return h;
}

#ifndef __OPENCL_VERSION__ /* the CPU's; the device runs its steps (speed_factor) */
/*
 * Householder QR of the n x n matrix a: q receives H_{n-2} ... H_1 H_0 (so
 * that q a = r) and r receives that product times a, in full (the solver
 * reads its upper triangle). Each reflection is the full matrix
 * I - 2 v v' (v = the column below the diagonal of the partly reduced
 * matrix, its first entry moved by sign(a[k][k]) * norm, then normalised),
 * applied by plain matrix products as the reference does; the sign is taken
 * from the original matrix's diagonal.
 */
TVMAF_HD void speed_qr(const float *a, float *q, float *r, int n, float *scratch)
{
    float *z = scratch, *h = z + n * n, *t = h + n * n, *v = t + n * n;
    for (int i = 0; i < n * n; i++) z[i] = a[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) q[i * n + j] = (i == j ? 1 : 0);

    for (int k = 0; k + 1 < n; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) speed_qr_mask(z, n, k, i, j);
        speed_qr_vector(z, a, v, n, k);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) h[i * n + j] = speed_qr_reflector(v, i, j);
        speed_matmul_sq(t, h, z, n);
        for (int i = 0; i < n * n; i++) z[i] = t[i];
        speed_matmul_sq(t, h, q, n);
        for (int i = 0; i < n * n; i++) q[i] = t[i];
    }
    speed_matmul_sq(r, q, a, n);
}

#endif

/* Whether a diagonal entry of the triangular factor r (n x n) is below 1e-6
 * in magnitude (compared in double): the system is then singular. */
TVMAF_HD int speed_r_singular(TVMAF_GLOBAL const float *r, int n)
{
    for (int i = 0; i < n; i++)
#if defined(TVMAF_FP64_FREE)
        if (tvmaf_sd_lt(tvmaf_sd_from_float(fabsf(r[i * n + i])), SPEED_EIG_EPS_BITS)) return 1;
#else
        if ((double)fabsf(r[i * n + i]) < SPEED_EIG_EPS) return 1;
#endif
    return 0;
}

/*
 * One column of K X = B from K's factors (q, r; r regular): b, qb and x are
 * that column's n entries, bs / xs floats apart. qb = Q b, each entry summed
 * over l in order from 0; then back substitution from the last row up, the
 * terms of a row subtracted in increasing column order. Every column is
 * independent of the others (the device gives each its own thread).
 */
TVMAF_HD void speed_solve_column(TVMAF_GLOBAL const float *q, TVMAF_GLOBAL const float *r,
                                 const float *b, ptrdiff_t bs, float *qb, float *x, ptrdiff_t xs,
                                 int n)
{
    for (int i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int l = 0; l < n; l++) acc += q[i * n + l] * b[l * bs];
        qb[i * xs] = acc;
    }
    for (int i = n - 1; i >= 0; i--) {
        float t = qb[i * xs];
        for (int l = i + 1; l < n; l++) t -= x[l * xs] * r[i * n + l];
        x[i * xs] = t / r[i * n + i];
    }
}

/* Scratch floats the CPU's solve (speed_pipeline.c) needs: Q, R and speed_qr's. */
#define SPEED_SOLVE_SCRATCH(n) (2 * (n) * (n) + SPEED_QR_SCRATCH(n))

/* ------------------------------------------------------------------------ */
/* Statistics of one image                                                  */
/* ------------------------------------------------------------------------ */

/* Block grid of an operating image of ow x oh samples (see speed_grid()). */
typedef struct SpeedGrid {
    int ow, oh;       /* operating image */
    int tw, th;       /* truncated to multiples of the block side */
    int nbh, nbv, nb; /* blocks across, down, in all */
    int subw, subh;   /* placements of a block: tw - 4, th - 4 */
} SpeedGrid;

TVMAF_HD SpeedGrid speed_grid(int ow, int oh)
{
    SpeedGrid g;
    g.ow = ow;
    g.oh = oh;
    g.tw = ow / SPEED_BLOCK * SPEED_BLOCK;
    g.th = oh / SPEED_BLOCK * SPEED_BLOCK;
    g.nbh = g.tw / SPEED_BLOCK;
    g.nbv = g.th / SPEED_BLOCK;
    g.nb = g.nbh * g.nbv;
    g.subw = g.tw - SPEED_BLOCK + 1;
    g.subh = g.th - SPEED_BLOCK + 1;
    return g;
}

/* Mean of the subw x subh window at (r, c): a float sum row by row, divided
 * by the (float) count. */
TVMAF_HD float speed_window_mean(TVMAF_GLOBAL const float *img, int stride, const SpeedGrid *g,
                                 int r, int c)
{
    float acc = 0;
    for (int i = 0; i < g->subh; i++) {
        TVMAF_GLOBAL const float *row = img + (size_t)(r + i) * stride + c;
        for (int j = 0; j < g->subw; j++) acc += row[j];
    }
    return acc / (float)((size_t)g->subw * (size_t)g->subh);
}

/* Covariance of the windows at (rx, cx) and (ry, cy) given their means: the
 * products of the centred samples summed in double, divided by the count in
 * double, rounded to float. */
TVMAF_HD float speed_window_cov(TVMAF_GLOBAL const float *img, int stride, const SpeedGrid *g,
                                int rx, int cx, int ry, int cy, float mean_x, float mean_y)
{
#if defined(TVMAF_FP64_FREE)
    const tvmaf_sd mx = tvmaf_sd_from_float(mean_x), my = tvmaf_sd_from_float(mean_y);
    tvmaf_sd acc = 0; /* +0.0 */
    for (int i = 0; i < g->subh; i++) {
        TVMAF_GLOBAL const float *px = img + (size_t)(rx + i) * stride + cx;
        TVMAF_GLOBAL const float *py = img + (size_t)(ry + i) * stride + cy;
        for (int j = 0; j < g->subw; j++)
            acc = tvmaf_sd_add(acc, tvmaf_sd_mul(tvmaf_sd_sub(tvmaf_sd_from_float(px[j]), mx),
                                                 tvmaf_sd_sub(tvmaf_sd_from_float(py[j]), my)));
    }
    /* the count is below 2^31: the sides are ints */
    return tvmaf_sd_to_float(tvmaf_sd_div(acc, tvmaf_sd_from_int32(g->subw * g->subh)));
#else
    const double mx = mean_x, my = mean_y;
    double acc = 0;
    for (int i = 0; i < g->subh; i++) {
        TVMAF_GLOBAL const float *px = img + (size_t)(rx + i) * stride + cx;
        TVMAF_GLOBAL const float *py = img + (size_t)(ry + i) * stride + cy;
        for (int j = 0; j < g->subw; j++) acc += ((double)px[j] - mx) * ((double)py[j] - my);
    }
    return (float)(acc / (double)((size_t)g->subw * (size_t)g->subh));
#endif
}

/* The 25 samples of block blk (row-major over the grid), position p
 * (row-major in the block) at b[p * bs]. */
TVMAF_HD void speed_block_vector(TVMAF_GLOBAL const float *img, int stride, const SpeedGrid *g,
                                 int blk, float *b, ptrdiff_t bs)
{
    const int bi = blk / g->nbh, bj = blk % g->nbh;
    for (int r = 0; r < SPEED_BLOCK; r++)
        for (int c = 0; c < SPEED_BLOCK; c++)
            b[(r * SPEED_BLOCK + c) * bs] =
                img[(size_t)(bi * SPEED_BLOCK + r) * stride + bj * SPEED_BLOCK + c];
}

/* B[p][blk]: the sample at position p (row-major in the block) of block blk
 * (row-major over the grid). */
TVMAF_HD void speed_block_samples(TVMAF_GLOBAL const float *img, int stride, const SpeedGrid *g,
                                  float *b)
{
    for (int blk = 0; blk < g->nb; blk++) speed_block_vector(img, stride, g, blk, b + blk, g->nb);
}

/* Whether every eigenvalue is at least 1e-6 (compared in double; a NaN
 * passes, as in the reference). */
TVMAF_HD int speed_regular(TVMAF_GLOBAL const float *ev)
{
    for (int i = 0; i < SPEED_NE; i++)
#if defined(TVMAF_FP64_FREE)
        if (tvmaf_sd_lt(tvmaf_sd_from_float(ev[i]), SPEED_EIG_EPS_BITS)) return 0;
#else
        if ((double)ev[i] < SPEED_EIG_EPS) return 0;
#endif
    return 1;
}

/*
 * Variance of block blk from the solution x and the samples b (both 25 x nb):
 * the products x*b/25 in float, added from position 0 down.
 */
TVMAF_HD float speed_block_variance(const float *x, const float *b, int nb, int blk)
{
    float s = (x[blk] * b[blk]) / 25.0f;
    for (int p = 1; p < SPEED_NE; p++) {
        const size_t i = (size_t)p * nb + blk;
        s += (x[i] * b[i]) / 25.0f;
    }
    return s;
}

#if !defined(TVMAF_FP64_FREE) /* the host's: log2 */
/* Entropy of a block of variance s: for every eigenvalue L (negatives as 0)
 * in order, entropy = float(entropy + (log2(L*s + sigma_nn) + log2(2 pi e))),
 * the log argument in float, the sum in double. */
TVMAF_HD float speed_block_entropy(const float *ev, float s, float sigma_nn)
{
    float h = 0;
    for (int k = 0; k < SPEED_NE; k++) {
        const float l = ev[k] < 0 ? 0 : ev[k];
        h = (float)((double)h + (log2((double)(l * s + sigma_nn)) + SPEED_LOG2_2PIE));
    }
    return h;
}

/* ------------------------------------------------------------------------ */
/* Score of a pair                                                          */
/* ------------------------------------------------------------------------ */

/* Entropy below which a block counts as invisible:
 * 25 * (log2((1 + nn_floor) * sigma_nn) + log2(2 pi e)), the product inside
 * in float, the rest in double, rounded to float. */
TVMAF_HD float speed_base_entropy(float sigma_nn, float nn_floor)
{
    return (float)((double)SPEED_NE *
                   (log2((double)((1 + nn_floor) * sigma_nn)) + SPEED_LOG2_2PIE));
}

/*
 * Weighted entropies of one block for speed_weight_var_mode 0..6: each side's
 * entropy times log2(1 + a variance), that variance being the side's own (0),
 * the reference's (1), the distorted's (2), their mean (3), the reference's
 * for ref and the mean for dis (4), or 3:1 (5) / 1:3 (6) blends for dis.
 * "1 + v" is float for a single variance and double for a mean or blend
 * (formed with the double constants 2.0, 0.75, 0.25).
 */
TVMAF_HD void speed_weighted(int mode, float he_r, float he_d, float v_r, float v_d,
                             float *w_r, float *w_d)
{
    const double lr = log2((double)(1 + v_r));
    const double ld = log2((double)(1 + v_d));
    switch (mode) {
    case 0:
        *w_r = (float)((double)he_r * lr);
        *w_d = (float)((double)he_d * ld);
        break;
    case 1:
        *w_r = (float)((double)he_r * lr);
        *w_d = (float)((double)he_d * lr);
        break;
    case 2:
        *w_r = (float)((double)he_r * ld);
        *w_d = (float)((double)he_d * ld);
        break;
    case 3: {
        const double lm = log2(1 + (double)(v_r + v_d) / 2.0);
        *w_r = (float)((double)he_r * lm);
        *w_d = (float)((double)he_d * lm);
        break;
    }
    case 4:
        *w_r = (float)((double)he_r * lr);
        *w_d = (float)((double)he_d * log2(1 + (double)(v_r + v_d) / 2.0));
        break;
    case 5:
        *w_r = (float)((double)he_r * lr);
        *w_d = (float)((double)he_d * log2(1 + (0.75 * (double)v_r + 0.25 * (double)v_d)));
        break;
    default: /* 6 */
        *w_r = (float)((double)he_r * lr);
        *w_d = (float)((double)he_d * log2(1 + (0.25 * (double)v_r + 0.75 * (double)v_d)));
        break;
    }
}

/*
 * Score of a pair of images from their per-block entropies and variances:
 * the mean over blocks of |weighted ref - weighted dis| (float sum in block
 * order, divided by the float block count); a block whose two entropies are
 * both below the base entropy adds 0.
 */
TVMAF_HD float speed_score(const float *he_r, const float *v_r, const float *he_d,
                           const float *v_d, int nb, float sigma_nn, float nn_floor, int mode)
{
    const float base = speed_base_entropy(sigma_nn, nn_floor);
    float score = 0;
    for (int i = 0; i < nb; i++) {
        if (he_r[i] < base && he_d[i] < base) {
            score += 0;
            continue;
        }
        float w_r, w_d;
        speed_weighted(mode, he_r[i], he_d[i], v_r[i], v_d[i], &w_r, &w_d);
        score += fabsf(w_r - w_d);
    }
    return score / (float)nb;
}
#endif /* !TVMAF_FP64_FREE */

/* ------------------------------------------------------------------------ */
/* The twins' decomposition (speed_kernels.h, speed_plan.c)                 */
/* ------------------------------------------------------------------------ */

/*
 * The device computes, for each image of a frame (speed_temporal: the two
 * luma differences; speed_chroma: U ref, U dis, V ref, V dis), everything
 * before the first call of the C library's log2: the prescale, the
 * anti-alias filter and decimation, the local mean, the 25x25 covariance,
 * its eigenvalues, the QR factorisation and every block's solution and
 * variance. The host reads back only the 25 eigenvalues, a singular flag
 * and the nb block variances per image, and runs the CPU's own code for the
 * entropies (25 double log2 per block), the pair's score (log2 again) and
 * the outputs: the device's log2 is not glibc's, and the host's is, so the
 * split at the first log2 makes every value the CPU's without a device
 * libm. Each kernel's thread computes one value with the CPU's chain of
 * operations:
 *   load: ffilter_load_sample (and for speed_temporal the float difference
 *     with the previous frame's loaded plane, which stays on the device);
 *   prescale: speed_resample at the samples the anti-alias pass reads,
 *     from the host's per-column and per-row tables (speed_axis calls the
 *     host's floor and, for lanczos4, sin);
 *   anti-alias vertical pass at rows 16 r into rows with mirrored margins
 *     (speed_vpass_sample at ffilter_ext_column), its horizontal pass at
 *     columns 16 c (ffilter_hpass_sample, step 16); the local mean the same way
 *     at step 1, subtracted in float;
 *   covariance: one thread per window mean (speed_window_mean), then one
 *     per entry of the lower triangle (speed_window_cov, speed_pair), each a
 *     sum in the CPU's order;
 *   eigenvalues: one thread (speed_eigenvalues); QR: one thread per matrix
 *     entry (speed_qr_mask, speed_qr_reflector, speed_matmul_entry) with
 *     speed_qr_vector on one thread between barriers;
 *   blocks: one thread per block (speed_block_vector, speed_solve_column,
 *     speed_block_variance), the solution taken as 0 when the covariance is
 *     singular (speed_regular, speed_r_singular), as the CPU does.
 * No float sum is split or reordered.
 */
#define SPEED_BLOCK_W 32
#define SPEED_BLOCK_H 8
#define SPEED_BLOCK_THREADS 64
#define SPEED_PAIRS (SPEED_NE * (SPEED_NE + 1) / 2) /* 325 covariance entries */
#define SPEED_COV_THREADS 352                        /* SPEED_PAIRS in whole warps */
#define SPEED_QR_THREADS 640                         /* 625 entries in whole warps */
/* The widest filter: the anti-alias one at the largest accepted kernel
 * scale, 9 * (360/97 + 1e-3) rounded up to odd (the replay checks it). */
#define SPEED_MAX_FW 35

/* Entry t (0 .. 324) of the covariance's lower triangle: row x, column y <= x,
 * rows in order. */
TVMAF_HD void speed_pair(int t, int *x, int *y)
{
    int r = 0;
    while ((r + 1) * (r + 2) / 2 <= t) r++;
    *x = r;
    *y = t - r * (r + 1) / 2;
}

/* Vertical pass of column x, filter of fw taps centred on row yc of an image
 * of h rows `stride` floats apart (rows mirrored by mirror_skip_edge). */
TVMAF_HD float speed_vpass_sample(TVMAF_GLOBAL const float *f, int fw,
                                  TVMAF_GLOBAL const float *img, ptrdiff_t stride, int h, int yc,
                                  int x)
{
    float col[SPEED_MAX_FW], out;
    const float *rows[SPEED_MAX_FW];
    ffilter_tap_column(img, stride, h, yc, fw, x, col, rows);
    ffilter_vpass(f, fw, rows, &out, 1);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Gaussian taps (host)                                                     */
/* ------------------------------------------------------------------------ */

#if !TVMAF_DEVICE_CODE

/* Deviation of the anti-alias filter of `size` taps (its taps:
 * ffilter_gaussian): sqrt(4) * size / 5 in double, rounded to float. */
static inline float speed_antialias_sd(int size)
{
    return (float)(sqrt((double)SPEED_N_SCALES) * (double)size / (double)5.0f);
}

#endif /* !TVMAF_DEVICE_CODE */

#endif
