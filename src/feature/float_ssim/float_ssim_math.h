/*
 * SSIM as libvmaf's float_ssim and float_ms_ssim compute it (their copy of
 * the iqa library): the arithmetic, written once. float_ms_ssim includes this
 * header for everything but its own low-pass filter and exponents.
 *
 * One SSIM evaluation on a pair of float luma images of w x h:
 *   1. Each image, and the three products r*r, d*d, r*d (float), is filtered
 *      with an 11-tap Gaussian along rows, then along columns (separable).
 *      Only windows that lie fully inside the image are kept, so the maps are
 *      (w - 10) x (h - 10); no border handling is involved.
 *      Every tap adds the FLOAT product sample * tap into a DOUBLE sum, taps
 *      in order; each pass rounds its sum to float.
 *   2. Per window (ssim_window): variances and covariance in float, the
 *      variances clamped at 0, then l and c as double quotients of float
 *      denominators and s as a float quotient (exact types below).
 *   3. l*c*s, l, c and s are added, windows in raster order, into four
 *      doubles (one running sum each, so a device must keep that order); each
 *      mean is that sum over the window count, rounded to float.
 *
 * Down-sampling (float_ssim's scale factor, float_ms_ssim's pyramid) filters
 * with a full 2-D kernel at (f x, f y) and mirrors out-of-image samples
 * without repeating the edge (index -1 reads 0, index n reads n-1); the taps
 * run row by row, each float product added into a double (ssim_filter_at).
 */
#ifndef TVMAF_FLOAT_SSIM_MATH_H
#define TVMAF_FLOAT_SSIM_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/mirror.h"
#include "feature/common/sample.h"
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
#endif

/* The Gaussian window (sigma 1.5), as its one-dimensional taps; the same
 * taps serve the row and the column pass. */
#define SSIM_WIN 11
#define SSIM_WIN_TAPS { 0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f, \
                        0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f }
#if !TVMAF_DEVICE_CODE
static const float ssim_win_taps[SSIM_WIN] = SSIM_WIN_TAPS;
#endif

/* Stabilising constants: C1 = (K1 L)^2, C2 = (K2 L)^2, C3 = C2 / 2 in float,
 * with the dynamic range L = 255 at every bit depth (samples above 8 bits are
 * scaled to [0, 255] when loaded). */
#define SSIM_K1 0.01f
#define SSIM_K2 0.03f
#define SSIM_L 255

/* float_ssim's automatic down-sampling divides min(w, h) by this */
#define SSIM_AUTO_SCALE_DIV 256.0f
/* largest explicit factor float_ssim accepts */
#define SSIM_MAX_FACTOR 10

typedef struct SsimConsts {
    float c1, c2, c3;
} SsimConsts;

#if defined(TVMAF_FP64_FREE)
/* An fp64-free program (OpenCL without cl_khr_fp64) forms the same doubles
 * as their bit patterns with numerics/soft_double.h: a tap sum (SsimAcc) and
 * a window's l and c. Its l and c buffers (SSIM_F64) hold those patterns,
 * which the host reads as the doubles they are. */
typedef tvmaf_sd SsimAcc;
#define SSIM_F64 uint64_t
typedef struct SsimLcs {
    tvmaf_sd l, c;
    float s;
} SsimLcs;
#else
/* a tap sum */
typedef double SsimAcc;
#define SSIM_F64 double

/* Per-window luminance, contrast and structure terms. */
typedef struct SsimLcs {
    double l, c, s;
} SsimLcs;

/* Running sums over the windows of one evaluation. */
typedef struct SsimSums {
    double ssim, l, c, s;
} SsimSums;
#endif

TVMAF_HD SsimConsts ssim_consts(void)
{
    const float k1 = SSIM_K1, k2 = SSIM_K2;
    const int range = SSIM_L;
    const float a = k1 * (float)range, b = k2 * (float)range;
    SsimConsts k;
    k.c1 = a * a;
    k.c2 = b * b;
    k.c3 = k.c2 / 2.0f;
    return k;
}

/* ---- loading ------------------------------------------------------------- */

/* 8-bit samples are used as they are. */
TVMAF_HD float ssim_sample_8(uint8_t v)
{
    return (float)v;
}

/* Deeper samples are brought to the 8-bit range by an exact power-of-two
 * division: 4 for 10 bits, 16 for 12, 256 for 16 (sample_divisor). */
TVMAF_HD float ssim_sample_hbd(uint16_t v, float divisor)
{
    return (float)v / divisor;
}

/* ---- geometry ------------------------------------------------------------ */

#if !defined(TVMAF_FP64_FREE)
/* iqa's rounding of a positive float: the integer part, plus one when the
 * fraction (a float) is at least one half. */
TVMAF_HD int ssim_round(float a)
{
    const int sign = a > 0.0f ? 1 : -1;
    const int t = (int)a;
    return (double)(a - (float)t) >= 0.5 ? t + sign : t;
}

/* float_ssim's default down-sampling factor: round(min(w, h) / 256), at
 * least 1 (so 1 below 384 lines, 4 at 1080p, 8 at 2160p). */
TVMAF_HD int ssim_auto_factor(int w, int h)
{
    const int r = ssim_round((float)(w <= h ? w : h) / SSIM_AUTO_SCALE_DIV);
    return r >= 1 ? r : 1;
}
#endif

/* Samples of a line of n after down-sampling by f. The odd-length term adds
 * one for any odd n whatever f is, as the reference does, so the last centre,
 * f * (len - 1), can be n itself (n odd, f dividing it); it and the taps past
 * it are read mirrored, one reflection being enough while n > f / 2 + 5. */
TVMAF_HD int ssim_decimated_len(int n, int f)
{
    return n / f + (n & 1);
}

/* One tap: the float product v * tap added into the double a. */
TVMAF_HD SsimAcc ssim_tap(SsimAcc a, float v, float tap)
{
    const float t = v * tap;
#if defined(TVMAF_FP64_FREE)
    return tvmaf_sd_add(a, tvmaf_sd_from_float(t));
#else
    return a + t;
#endif
}

/* A tap sum rounded to float. */
TVMAF_HD float ssim_acc_float(SsimAcc a)
{
#if defined(TVMAF_FP64_FREE)
    return tvmaf_sd_to_float(a);
#else
    return (float)a;
#endif
}

/*
 * The kw x kh kernel k (row-major) applied around (x, y) of img (w x h,
 * contiguous rows): rows y - kh/2 .. y + kh/2 - (kh even), columns likewise.
 * Positions outside the image are mirrored, the edge sample repeated
 * (inside it, mirroring is the identity, so the fast path reads the same
 * samples). Each float product is added to a double in kernel order; the sum
 * is rounded to float.
 */
TVMAF_HD float ssim_filter_at(TVMAF_GLOBAL const float *img, int w, int h, int x, int y,
                              TVMAF_GLOBAL const float *k, int kw, int kh)
{
    const int uc = kw / 2, vc = kh / 2;
    const int u_last = uc - ((kw & 1) ? 0 : 1), v_last = vc - ((kh & 1) ? 0 : 1);
    const int inside = x >= uc && y >= vc && x < w - uc && y < h - vc;
    SsimAcc sum = 0; /* +0.0, also as a bit pattern */
    for (int v = -vc; v <= v_last; v++) {
        const int yy = inside ? y + v : mirror_repeat_edge(y + v, h);
        TVMAF_GLOBAL const float *row = img + (ptrdiff_t)yy * w;
        for (int u = -uc; u <= u_last; u++, k++) {
            sum = ssim_tap(sum, row[inside ? x + u : mirror_repeat_edge(x + u, w)], *k);
        }
    }
    return ssim_acc_float(sum);
}

/* ---- the Gaussian window ------------------------------------------------- */

/* Products of a row, in float: what the reference filters as its r*r, d*d and
 * r*d images. */
TVMAF_HD void ssim_products(const float *r, const float *d, int n, float *rr, float *dd,
                            float *rd)
{
    for (int x = 0; x < n; x++) {
        rr[x] = r[x] * r[x];
        dd[x] = d[x] * d[x];
        rd[x] = r[x] * d[x];
    }
}

#if !defined(TVMAF_FP64_FREE)
/* One tap of a filter for a run of n outputs: acc[x] gets the float product
 * src[x * step] * tap added. A filter starts each acc at 0.0, adds its taps
 * in kernel order and rounds with ssim_round_run: per output, exactly the
 * sum ssim_filter_at forms. */
TVMAF_HD void ssim_tap_run(double *acc, const float *src, ptrdiff_t step, float tap, int n)
{
    for (int x = 0; x < n; x++) acc[x] = ssim_tap(acc[x], src[x * step], tap);
}

TVMAF_HD void ssim_round_run(float *dst, const double *acc, int n)
{
    for (int x = 0; x < n; x++) dst[x] = (float)acc[x];
}
#endif

/*
 * One window's terms from its filtered moments: means mu1, mu2 and filtered
 * r*r, d*d, r*d. Types as the reference:
 *   variances   float xx - mu1*mu1 (clamped at 0), yy - mu2*mu2;
 *   covariance  float xy - mu1*mu2;
 *   sd          float, sqrt(var1 * var2) through double;
 *   l = (2.0 mu1 mu2 + C1) / (float)(mu1^2 + mu2^2 + C1)     in double;
 *   c = (2.0 sd + C2) / (float)(var1 + var2 + C2)            in double;
 *   s = (cov' + C3) / (sd + C3)                               in FLOAT,
 * where cov' is 0 when the covariance is negative and sd is not positive (a
 * flat window of identical images must give s = 1, not a rounding residue).
 */
TVMAF_HD SsimLcs ssim_window(float mu1, float mu2, float xx, float yy, float xy, SsimConsts k)
{
    float var1 = xx - mu1 * mu1;
    float var2 = yy - mu2 * mu2;
    var1 = var1 < 0.0f ? 0.0f : var1;
    var2 = var2 < 0.0f ? 0.0f : var2;
    const float cov = xy - mu1 * mu2;
#if defined(TVMAF_FP64_FREE)
    /* a float's root rounded through double is its correctly rounded float
     * root (53 >= 2 * 24 + 2 bits), which sqrtf is on an OpenCL device built
     * with correctly rounded divide and sqrt */
    const float sd = sqrtf(var1 * var2);
#else
    const float sd = (float)sqrt((double)(var1 * var2));
#endif

    const float l_den = mu1 * mu1 + mu2 * mu2 + k.c1;
    const float c_den = var1 + var2 + k.c2;
    const float cov_c = (cov < 0.0f && sd <= 0.0f) ? 0.0f : cov;
    const float s = (cov_c + k.c3) / (sd + k.c3);

    SsimLcs o;
#if defined(TVMAF_FP64_FREE)
    const tvmaf_sd two = UINT64_C(0x4000000000000000); /* 2.0 */
    o.l = tvmaf_sd_div(
        tvmaf_sd_add(tvmaf_sd_mul(tvmaf_sd_mul(two, tvmaf_sd_from_float(mu1)),
                                  tvmaf_sd_from_float(mu2)),
                     tvmaf_sd_from_float(k.c1)),
        tvmaf_sd_from_float(l_den));
    o.c = tvmaf_sd_div(
        tvmaf_sd_add(tvmaf_sd_mul(two, tvmaf_sd_from_float(sd)), tvmaf_sd_from_float(k.c2)),
        tvmaf_sd_from_float(c_den));
    o.s = s;
#else
    o.l = (2.0 * (double)mu1 * (double)mu2 + (double)k.c1) / (double)l_den;
    o.c = (2.0 * (double)sd + (double)k.c2) / (double)c_den;
    o.s = (double)s;
#endif
    return o;
}

#if !defined(TVMAF_FP64_FREE)
TVMAF_HD void ssim_sums_add(SsimSums *a, SsimLcs v)
{
    a->ssim += v.l * v.c * v.s;
    a->l += v.l;
    a->c += v.c;
    a->s += v.s;
}
#endif

/* One output of a pass of the Gaussian: sum over k of src[k][x] * t[k], the
 * taps in order, each float product added into a double from 0, rounded to
 * float (the row pass: src[k] = row + k; the column pass: src[k] = row k of
 * the window). */
TVMAF_HD float ssim_gauss_one(const float *const *src, int x, TVMAF_GLOBAL const float *t)
{
    SsimAcc a = 0;
    for (int k = 0; k < SSIM_WIN; k++) a = ssim_tap(a, src[k][x], t[k]);
    return ssim_acc_float(a);
}

#if !defined(TVMAF_FP64_FREE)

/* A window's terms as the CUDA twin stores them: l and c are doubles, s is a
 * float quotient (SsimLcs holds it widened, exactly). */
TVMAF_HD SsimLcs ssim_lcs_make(double l, double c, float s)
{
    SsimLcs o;
    o.l = l;
    o.c = c;
    o.s = (double)s;
    return o;
}
#endif

/*
 * The twin's decomposition (float_ssim_kernels.h): one thread per sample,
 * blocks of SSIM_BLOCK_W x SSIM_BLOCK_H, SSIM_GRID_Y(h) blocks in y
 * striding over further rows: the luma planes loaded as floats
 * (ssim_sample_*), down-sampled (ssim_filter_at at (f x, f y)), the three
 * products (ssim_products on one sample), the row pass of the five images
 * (ssim_gauss_one), then per window the column pass of the five and
 * ssim_window, storing l, c and s. The host reads the windows back and adds
 * them in raster order (ssim_sums_add), as ssim_evaluate does.
 */
#define SSIM_BLOCK_W 32
#define SSIM_BLOCK_H 8
#define SSIM_GRID_Y(h) \
    ((h) + SSIM_BLOCK_H - 1 > 65535u * SSIM_BLOCK_H ? 65535u \
                                                    : ((h) + SSIM_BLOCK_H - 1) / SSIM_BLOCK_H)

#if !defined(TVMAF_FP64_FREE)
/* Mean of n windows, rounded to float as the reference returns it. */
TVMAF_HD float ssim_mean(double sum, int n_windows)
{
    return (float)(sum / (double)n_windows);
}

/* The four means of an evaluation of n windows (ssim, l, c, s). */
TVMAF_HD void ssim_means(const SsimSums *sums, int n, float out[4])
{
    out[0] = ssim_mean(sums->ssim, n);
    out[1] = ssim_mean(sums->l, n);
    out[2] = ssim_mean(sums->c, n);
    out[3] = ssim_mean(sums->s, n);
}
#endif

#if !TVMAF_DEVICE_CODE
/* ---- host drivers ------------------------------------------------------- */

/* Bytes of scratch ssim_evaluate needs for images of width w (>= 11). */
static inline size_t ssim_scratch_bytes(int w)
{
    const size_t ow = (size_t)(w - SSIM_WIN + 1);
    return (5 * SSIM_WIN * ow + 3 * (size_t)w + 5 * ow) * sizeof(float);
}

/* One pass of the Gaussian over n outputs: out[x] = sum_k src[k][x] tap_k
 * (src[k] = row + k for the row pass, the k-th ring row for the column
 * pass), taps in order, each output's sum held in a register. */
static inline void ssim_gauss_run(float *restrict out, const float *const *src, int n)
{
    for (int x = 0; x < n; x++) out[x] = ssim_gauss_one(src, x, ssim_win_taps);
}

/*
 * One SSIM evaluation of r and d (w x h, contiguous rows, w and h >= 11):
 * the four running sums over the windows (ssim_evaluate: their means). The
 * row passes of the last 11 rows sit in a ring in scratch
 * (ssim_scratch_bytes(w)); each output row is finished, left to right, before
 * the next input row is read, which is the reference's raster order of the
 * sums. Every filtered value has its taps in the reference's order.
 */
static inline void ssim_evaluate_sums(const float *r, const float *d, int w, int h,
                                      void *scratch, SsimSums *sums_out)
{
    const SsimConsts k = ssim_consts();
    const int ow = w - SSIM_WIN + 1;
    float *ring = scratch;                              /* [5][11][ow] */
    float *prod = ring + (size_t)5 * SSIM_WIN * ow;     /* [3][w] */
    float *col = prod + (size_t)3 * w;                  /* [5][ow] */
    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (int y = 0; y < h; y++) {
        const float *src[5] = { r + (size_t)y * w, d + (size_t)y * w, prod, prod + w,
                                prod + 2 * w };
        ssim_products(src[0], src[1], w, prod, prod + w, prod + 2 * w);
        for (int q = 0; q < 5; q++) {
            const float *taps_src[SSIM_WIN];
            for (int j = 0; j < SSIM_WIN; j++) taps_src[j] = src[q] + j;
            ssim_gauss_run(ring + ((size_t)q * SSIM_WIN + y % SSIM_WIN) * ow, taps_src, ow);
        }
        if (y < SSIM_WIN - 1) continue;
        const int top = y - (SSIM_WIN - 1);
        for (int q = 0; q < 5; q++) {
            const float *rows[SSIM_WIN];
            for (int j = 0; j < SSIM_WIN; j++)
                rows[j] = ring + ((size_t)q * SSIM_WIN + (top + j) % SSIM_WIN) * ow;
            ssim_gauss_run(col + (size_t)q * ow, rows, ow);
        }
        const float *mu1 = col, *mu2 = col + ow, *xx = col + 2 * ow, *yy = col + 3 * ow,
                    *xy = col + 4 * ow;
        for (int x = 0; x < ow; x++)
            ssim_sums_add(&sums, ssim_window(mu1[x], mu2[x], xx[x], yy[x], xy[x], k));
    }
    *sums_out = sums;
}

/* ssim_evaluate_sums, then the four means: out = { ssim, l, c, s }. */
static inline void ssim_evaluate(const float *r, const float *d, int w, int h, void *scratch,
                                 float out[4])
{
    SsimSums sums;
    ssim_evaluate_sums(r, d, w, h, scratch, &sums);
    ssim_means(&sums, (w - SSIM_WIN + 1) * (h - SSIM_WIN + 1), out);
}

/*
 * Down-sampling of src (w x h) by f with the kw x kh kernel k into dst
 * (dw x dh): dst(x, y) = ssim_filter_at(src, .., f x, f y, ..). Where the
 * kernel lies inside the image, a row of outputs is formed tap by tap over
 * the whole run (acc: dw doubles), the same sums in the same order; the
 * border outputs go through ssim_filter_at itself.
 */
static inline void ssim_down_sample(const float *src, int w, int h, int f, const float *k, int kw,
                                    int kh, float *dst, int dw, int dh, double *acc)
{
    const int uc = kw / 2, vc = kh / 2;
    const int u_last = uc - ((kw & 1) ? 0 : 1), v_last = vc - ((kh & 1) ? 0 : 1);
    /* outputs x0 .. x1-1 have uc <= f x < w - uc */
    const int x0 = (uc + f - 1) / f;
    int x1 = w - uc > 0 ? (w - uc + f - 1) / f : 0;
    if (x1 > dw) x1 = dw;
    for (int y = 0; y < dh; y++) {
        const int yc = y * f;
        float *out = dst + (size_t)y * dw;
        const int rows_inside = yc >= vc && yc < h - vc && x0 < x1;
        const int a = rows_inside ? x0 : dw, b = rows_inside ? x1 : dw;
        for (int x = 0; x < a; x++) out[x] = ssim_filter_at(src, w, h, x * f, yc, k, kw, kh);
        if (rows_inside) {
            const int n = b - a;
            const float *kp = k;
            for (int x = 0; x < n; x++) acc[x] = 0.0;
            for (int v = -vc; v <= v_last; v++) {
                const float *row = src + (size_t)(yc + v) * w + (size_t)a * f;
                for (int u = -uc; u <= u_last; u++) ssim_tap_run(acc, row + u, f, *kp++, n);
            }
            ssim_round_run(out + a, acc, n);
        }
        for (int x = b; x < dw; x++) out[x] = ssim_filter_at(src, w, h, x * f, yc, k, kw, kh);
    }
}

/* Copies luma of a picture into a contiguous float image (see loading). */
static inline void ssim_load_plane(float *dst, const void *src, ptrdiff_t stride, unsigned w,
                                   unsigned h, unsigned bpc)
{
    const unsigned char *p = src;
    if (bpc == 8) {
        for (unsigned i = 0; i < h; i++, p += stride, dst += w)
            for (unsigned j = 0; j < w; j++) dst[j] = ssim_sample_8(p[j]);
        return;
    }
    const float div = sample_divisor(bpc);
    for (unsigned i = 0; i < h; i++, p += stride, dst += w) {
        const uint16_t *q = (const uint16_t *)p;
        for (unsigned j = 0; j < w; j++) dst[j] = ssim_sample_hbd(q[j], div);
    }
}

/* Upper clamp of the dB output: with clip_db, the dB of a mean squared error
 * of 1/2 over the frame at the input's peak (2^bpc - 1), rounded up;
 * otherwise none. */
static inline double ssim_db_max(int clip_db, unsigned bpc, unsigned w, unsigned h)
{
    if (!clip_db) return INFINITY;
    const unsigned peak = (1u << bpc) - 1u;
    const double mse = 0.5 / (w * h);
    return ceil(10. * log10((peak * peak) / mse));
}

/* -10 log10(1 - score), at most max_db (a NaN gives max_db, as the
 * reference's comparison does). */
static inline double ssim_to_db(double score, double max_db)
{
    const double db = -10. * log10(1 - score);
    return db < max_db ? db : max_db;
}
#endif

#endif
