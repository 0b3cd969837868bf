/*
 * float_vif (libvmaf's floating-point VIF): the arithmetic, written once for
 * the CPU extractor (float_vif.c) and the twin (float_vif_kernels.h, see "The
 * twin's decomposition" below). float_motion borrows the separable
 * filter and the bilinear scaler from here (its blur and its half-size pass
 * are these exact operations).
 *
 * Pipeline of one frame (luma only):
 *   samples become floats centred on zero: 8-bit v -> v + (-128), deeper
 *   samples are divided by 2^(bpc-8) first (4, 16 or 256), in float;
 *   an optional prescale resizes both planes (nearest, bilinear, bicubic or
 *   lanczos4, see the scalers below; an unchanged size is a plain copy);
 *   four scales: scale s+1 is scale s low-passed with the Gaussian of scale
 *   s+1 and decimated by 2 (even rows and columns, sizes rounded down); at
 *   every scale the Gaussian of that scale gives local means mu1, mu2 and
 *   second moments xx, yy, xy, from which each pixel gets a num and a den.
 *
 * Everything up to the per-scale totals is float, in this order:
 *   filtering is separable, the vertical pass first. An output sample is
 *   0 + f[0]*x[0] + f[1]*x[1] + ... (taps in index order, each product
 *   rounded, then each sum). Borders mirror without repeating the edge
 *   sample: index -k reads k, index n-1+k reads n-1-k. The squared and cross
 *   moments multiply the two samples first and then the tap:
 *   f[k] * (x*x), f[k] * (x*y).
 *   The reference's AVX2 convolution (which produced the goldens) vectorises
 *   across output columns only, so every output sample is the same chain of
 *   float operations as its C path and as here; no FMA is involved (its
 *   AVX2 objects are built in ISO C mode, which does not contract).
 *   Per scale, each row's nums are added left to right into a float that
 *   starts at 0, and the row sums are added top to bottom into another float
 *   (the same for dens). These float totals are the scale's num and den.
 *
 * The per-pixel statistic mixes float and double the way the reference's
 * expressions promote: see fvif_pixel(). The logarithm is the reference's
 * polynomial approximation (fvif_log2f), evaluated in float, so no libm call
 * is made per pixel. The Gaussian taps (exp, sqrt) and the lanczos4 weights
 * (sin) do call libm; the taps are computed once on the host.
 */
#ifndef TVMAF_FLOAT_VIF_MATH_H
#define TVMAF_FLOAT_VIF_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"
#include "numerics/float_bits.h"

/* The statistic's doubles (sigma_nsq and the two log arguments): an
 * fp64-free program (OpenCL without cl_khr_fp64) forms their bit patterns in
 * integers (numerics/soft_double.h) and reads sigma_nsq's bits (FvifF64)
 * where the host passed a double. */
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
typedef tvmaf_sd FvifF64;
#else
typedef double FvifF64;
#endif

#define FVIF_N_SCALES 4

/* Room for the widest Gaussian: (2^4 + 1) * the largest accepted
 * kernelscale (360/97) rounded up to odd is 65 taps; the reference sizes its
 * tap array for 128. */
#define FVIF_MAX_TAPS 128

/* the offset that centres 8-bit-range samples on zero */
#define FVIF_SAMPLE_OFFSET (-128)

/* floor of the statistic's denominators and threshold of "no variance" */
#define FVIF_EPS 1.0e-10f

/* pi as the reference's M_PI (a double) */
#define FVIF_PI 3.14159265358979323846

/* The bilinear scaler's widest output; the reference refuses wider ones
 * (its column tables live on the stack). */
#define FVIF_BILINEAR_MAX_WIDTH 7680

/* Coefficients of the log2 approximation on [1, 2), highest power first.
 * The reference initialises a float array from the decimal doubles of
 * FVIF_LOG2_POLY_DECIMAL, so each is rounded to float; FVIF_LOG2_POLY holds
 * those floats as hex literals, which every program can name (an fp64-free
 * one has no double literals; tests/test_soft_double.c compares the two
 * lists). (Lists, not arrays, so that device code can hold its own copy.) */
#define FVIF_LOG2_POLY_LEN 9
#define FVIF_LOG2_POLY { \
    -0x1.9f3962p-7f, 0x1.0996e8p-4f, -0x1.41a2d2p-3f, 0x1.0756fap-2f, \
    -0x1.6a4ab2p-2f, 0x1.eba792p-2f, -0x1.71501cp-1f, 0x1.715472p+0f, 0.0f }
#define FVIF_LOG2_POLY_DECIMAL { \
    -0.012671635276421, 0.064841182402670, -0.157048836463065, 0.257167726303123, \
    -0.353800560300520, 0.480131410397451, -0.721314327952201, 1.442694803896991, 0 }

enum FvifScaler {
    FVIF_SCALE_NEAREST = 0,
    FVIF_SCALE_BICUBIC = 1,
    FVIF_SCALE_LANCZOS4 = 2,
    FVIF_SCALE_BILINEAR = 3,
};

/* ------------------------------------------------------------------------ */
/* Samples                                                                  */
/* ------------------------------------------------------------------------ */

/* One row of 8-bit samples as floats: (float)v + (float)-128. */
TVMAF_HD void fvif_load_row_8(TVMAF_GLOBAL const uint8_t *src, float *dst, int w)
{
    for (int j = 0; j < w; j++)
        dst[j] = (float)src[j] + (float)FVIF_SAMPLE_OFFSET;
}

/* One row of 10/12/16-bit samples: (float)v / divisor + (float)-128, the
 * divisor being 2^(bpc-8) (fvif_sample_divisor). */
TVMAF_HD void fvif_load_row_16(TVMAF_GLOBAL const uint16_t *src, float *dst, int w, float divisor)
{
    for (int j = 0; j < w; j++)
        dst[j] = (float)src[j] / divisor + (float)FVIF_SAMPLE_OFFSET;
}

/* 2^(bpc-8) for the depths the reference converts (10, 12, 16); 0 for 8-bit
 * (read as bytes) and for any other depth (not supported). */
TVMAF_HD float fvif_sample_divisor(unsigned bpc)
{
    return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 0.0f;
}

/* ------------------------------------------------------------------------ */
/* Separable filter                                                         */
/* ------------------------------------------------------------------------ */

/* Index of tap position m in a line of n samples, mirrored once at each end
 * without repeating the edge sample. Valid for -n < m < 2n - 1. */
TVMAF_HD int fvif_mirror(int m, int n)
{
    return m < 0 ? -m : (m >= n ? 2 * n - m - 2 : m);
}

/* Row pointers under the taps of a filter of fw taps centred on row i of an
 * image of h rows, w floats apart (each row mirrored by fvif_mirror). */
TVMAF_HD void fvif_tap_rows(const float *img, int w, int h, int i, int fw, const float **rows)
{
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) rows[k] = img + (ptrdiff_t)fvif_mirror(i - rad + k, h) * w;
}

/*
 * Vertical pass of one output row: rows[k] is the input row under tap k
 * (already mirrored by the caller), out[j] = sum over k of f[k] * rows[k][j]
 * from k = 0 up. The k-outer loop keeps each output's order and runs along
 * contiguous rows.
 */
TVMAF_HD void fvif_vpass(TVMAF_GLOBAL const float *f, int fw, const float *const *rows, float *out,
                         int w)
{
    for (int j = 0; j < w; j++) out[j] = 0.0f;
    for (int k = 0; k < fw; k++) {
        const float c = f[k];
        const float *r = rows[k];
        for (int j = 0; j < w; j++) out[j] += c * r[j];
    }
}

/*
 * Vertical pass of the five VIF quantities at once: the means of ref (a) and
 * dis (b), and the moments a*a, b*b, a*b, each product formed before the tap
 * multiplies it.
 */
TVMAF_HD void fvif_vpass5(TVMAF_GLOBAL const float *f, int fw, const float *const *a,
                          const float *const *b, int w, float *mu1, float *mu2, float *xx,
                          float *yy, float *xy)
{
    for (int j = 0; j < w; j++) mu1[j] = mu2[j] = xx[j] = yy[j] = xy[j] = 0.0f;
    for (int k = 0; k < fw; k++) {
        const float c = f[k];
        const float *ra = a[k], *rb = b[k];
        for (int j = 0; j < w; j++) {
            const float x = ra[j], y = rb[j];
            mu1[j] += c * x;
            mu2[j] += c * y;
            xx[j] += c * (x * x);
            yy[j] += c * (y * y);
            xy[j] += c * (x * y);
        }
    }
}

/*
 * Fills the mirrored margins of a row stored at ext[half .. half + w): the
 * `half` samples on each side that a horizontal pass of 2*half+1 taps reads
 * (needs w > half).
 */
TVMAF_HD void fvif_mirror_margins(float *ext, int w, int rad)
{
    float *row = ext + rad;
    for (int m = 1; m <= rad; m++) {
        row[-m] = row[m];
        row[w - 1 + m] = row[w - 1 - m];
    }
}

/*
 * Horizontal pass over a row with mirrored margins (fvif_mirror_margins):
 * out[j] = sum over k of f[k] * ext[j*step + k], for j < n. step 2 gives the
 * even columns only (filter then decimate).
 */
TVMAF_HD void fvif_hpass(TVMAF_GLOBAL const float *f, int fw, const float *ext, float *out, int n,
                         int step)
{
    for (int j = 0; j < n; j++) out[j] = 0.0f;
    if (step == 1) {
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *e = ext + k;
            for (int j = 0; j < n; j++) out[j] += c * e[j];
        }
    } else {
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *e = ext + k;
            for (int j = 0; j < n; j++) out[j] += c * e[j * step];
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Per-pixel statistic                                                      */
/* ------------------------------------------------------------------------ */

/*
 * The reference's log2 approximation: the unbiased exponent plus a degree-8
 * polynomial (Horner, in float) of (mantissa in [1, 2)) - 1. Zero gives
 * -inf and negatives NaN; other bit patterns (inf, NaN) go through the
 * bit arithmetic as they are.
 */
TVMAF_HD float fvif_log2f(float x)
{
    if (x == 0) return -INFINITY;
    if (x < 0) return NAN;
    const uint32_t u = tvmaf_f2bits(x);
    const uint32_t exponent = (u & 0x7F800000u) >> 23;
    const float mant = tvmaf_bits2f((u & 0x007FFFFFu) | 0x3F800000u);
    const float base = (float)((int32_t)exponent - 127);
    const float t = mant - 1.0f;
    const float poly[FVIF_LOG2_POLY_LEN] = FVIF_LOG2_POLY;
    float p = 0;
    for (int i = 0; i < FVIF_LOG2_POLY_LEN; i++) p = p * t + poly[i];
    return base + p;
}

/* Per-stream constants of the statistic. */
typedef struct FvifStatParams {
    float gain_limit;    /* vif_enhn_gain_limit rounded to float */
    float sigma_max_inv; /* powf((float)sigma_nsq, 2) / 65025.0, rounded to float */
    FvifF64 sigma_nsq;   /* stays double: the reference divides and compares by it in double */
} FvifStatParams;

/*
 * num and den of one pixel. Types follow the reference's expressions: the
 * variances and the gain are float; the two log arguments are formed in
 * double (a float over sigma_nsq, a double, plus 1.0f) and rounded to float
 * when passed to the float logarithm; the "sigma1_sq < sigma_nsq" test is a
 * double comparison. min/max are plain comparisons (a NaN variance becomes
 * 0, as the reference's MAX macro does).
 */
TVMAF_HD void fvif_pixel(float mu1, float mu2, float xx, float yy, float xy,
                         const FvifStatParams *p, float *num, float *den)
{
    const float eps = FVIF_EPS;
    float s1 = xx - mu1 * mu1;
    float s2 = yy - mu2 * mu2;
    const float s12 = xy - mu1 * mu2;

    s1 = s1 > 0.0f ? s1 : 0.0f;
    s2 = s2 > 0.0f ? s2 : 0.0f;

    float g = s12 / (s1 + eps);
    float sv = s2 - g * s12;
    if (s1 < eps) {
        g = 0.0f;
        sv = s2;
        s1 = 0.0f;
    }
    if (s2 < eps) {
        g = 0.0f;
        sv = 0.0f;
    }
    if (g < 0.0f) {
        sv = s2;
        g = 0.0f;
    }
    sv = sv > eps ? sv : eps;
    g = g < p->gain_limit ? g : p->gain_limit;

    const float gain_term = g * g * s1;
#if defined(TVMAF_FP64_FREE)
    const tvmaf_sd s1d = tvmaf_sd_from_float(s1);
    float n = fvif_log2f(tvmaf_sd_to_float(tvmaf_sd_add(
        TVMAF_SD_ONE, tvmaf_sd_div(tvmaf_sd_from_float(gain_term),
                                    tvmaf_sd_add(tvmaf_sd_from_float(sv), p->sigma_nsq)))));
    float d = fvif_log2f(
        tvmaf_sd_to_float(tvmaf_sd_add(TVMAF_SD_ONE, tvmaf_sd_div(s1d, p->sigma_nsq))));
    const int below_noise = tvmaf_sd_lt(s1d, p->sigma_nsq);
#else
    float n = fvif_log2f((float)(1.0 + (double)gain_term / ((double)sv + p->sigma_nsq)));
    float d = fvif_log2f((float)(1.0 + (double)s1 / p->sigma_nsq));
    const int below_noise = (double)s1 < p->sigma_nsq;
#endif
    if (s12 < 0.0f) n = 0.0f;
    if (below_noise) {
        n = 1.0f - s2 * p->sigma_max_inv;
        d = 1.0f;
    }
    *num = n;
    *den = d;
}

/* Sums of num and den over one row, left to right, each in a float that
 * starts at 0 (the host adds the rows top to bottom into float totals). */
TVMAF_HD void fvif_stat_row(const float *mu1, const float *mu2, const float *xx,
                            const float *yy, const float *xy, int w,
                            const FvifStatParams *p, float *row_num, float *row_den)
{
    float an = 0, ad = 0;
    for (int j = 0; j < w; j++) {
        float n, d;
        fvif_pixel(mu1[j], mu2[j], xx[j], yy[j], xy[j], p, &n, &d);
        an += n;
        ad += d;
    }
    *row_num = an;
    *row_den = ad;
}

/* The float sum of n values, left to right from 0: the CPU's and the
 * device's row sums of num and den, and the host's sum of a scale's rows. */
TVMAF_HD float fvif_sum(TVMAF_GLOBAL const float *v, int n)
{
    float acc = 0.0f;
    for (int i = 0; i < n; i++) acc += v[i];
    return acc;
}

/* ------------------------------------------------------------------------ */
/* Scalers (prescale; float_motion's half-size pass)                        */
/* ------------------------------------------------------------------------ */

/* Source-to-destination size ratio: (float)src / (float)dst. */
TVMAF_HD float fvif_scale_ratio(int src, int dst)
{
    return (float)src / (float)dst;
}

/*
 * fvif_scale_pos without fp64, for 0 <= x < 2^24 and a normal ratio in
 * [2^-38, 2^23]. With ratio = R 2^e (R the 24-bit significand, an integer),
 * the reference's double is exact: (x + 0.5) ratio - 0.5 = V 2^(e - 1) with
 * V = (2x + 1) R - 2^-e, an integer below 2^49 (at most 49 significant bits,
 * so neither the double product nor the difference rounds). Its float is V
 * rounded once to float (integer-to-float conversion rounds to nearest, ties
 * to even) times 2^(e - 1), exact in the normal range. tests/test_scale_pos.c
 * compares the two over every size and position of the half-size pass.
 */
TVMAF_HD float fvif_scale_pos_int(int x, float ratio)
{
    const uint32_t u = tvmaf_f2bits(ratio);
    const int e = tvmaf_ilogbf(ratio) - 23;
    const int64_t v = (int64_t)(2 * x + 1) * (int64_t)((u & 0x7fffffu) | 0x800000u) -
                      ((int64_t)1 << -e);
#if defined(__OPENCL_VERSION__)
    const float f = convert_float_rte(v);
#else
    const float f = (float)v;
#endif
    return f * tvmaf_pow2f(e - 1);
}

/* Source position of destination sample x: ((x + 0.5) * ratio - 0.5)
 * evaluated in double, rounded to float (fp64-free programs: the same float
 * from integers, fvif_scale_pos_int). */
TVMAF_HD float fvif_scale_pos(int x, float ratio)
{
#if defined(TVMAF_FP64_FREE)
    return fvif_scale_pos_int(x, ratio);
#else
    return (float)(((double)x + 0.5) * (double)ratio - 0.5);
#endif
}

/* The scalers' border rule, in float: below left reflects about 0, above
 * right about right (one reflection). */
TVMAF_HD float fvif_scale_mirror(float i, float left, float right)
{
    return i < left ? -i : (i > right ? 2 * right - i : i);
}

/* nearest: destination x reads source (int)(x * ratio), the product in float */
TVMAF_HD int fvif_nearest_index(int x, float ratio)
{
    return (int)((float)x * ratio);
}

/*
 * bilinear along one axis: the two source indices (floor and ceil of the
 * position, mirrored, truncated to int) and the weight of the second, which
 * is the position minus the mirrored first index.
 */
TVMAF_HD void fvif_bilinear_axis(int x, float ratio, int src_n, int *i1, int *i2, float *d)
{
    const float pos = fvif_scale_pos(x, ratio);
    const float last = (float)(src_n - 1);
    /* floorf, ceilf: the reference's floor and ceil of the float in double,
     * exactly (an integral float is a float) */
    *i1 = (int)fvif_scale_mirror(floorf(pos), 0.0f, last);
    *i2 = (int)fvif_scale_mirror(ceilf(pos), 0.0f, last);
    *d = pos - (float)*i1;
}

/* The bilinear scaler's column tables for a src_w-wide source scaled to
 * dst_w columns (dst_w entries each). */
TVMAF_HD void fvif_bilinear_columns(int src_w, int dst_w, int *col1, int *col2, float *coldx)
{
    const float rx = fvif_scale_ratio(src_w, dst_w);
    for (int x = 0; x < dst_w; x++) fvif_bilinear_axis(x, rx, src_w, &col1[x], &col2[x], &coldx[x]);
}

/* One destination row of the bilinear scaler from source rows r1, r2 (the
 * row pair and dy of fvif_bilinear_axis on the vertical axis) and the
 * per-column tables x1, x2, dx. Products and sums in float, left to right. */
TVMAF_HD void fvif_bilinear_row(TVMAF_GLOBAL const float *r1, TVMAF_GLOBAL const float *r2,
                                float dy, TVMAF_GLOBAL const int *x1, TVMAF_GLOBAL const int *x2,
                                TVMAF_GLOBAL const float *dx, float *out, int n)
{
    for (int x = 0; x < n; x++) {
        const int a = x1[x], b = x2[x];
        const float w = dx[x];
        out[x] = (1 - dy) * (1 - w) * r1[a] + (1 - dy) * w * r1[b] +
                 dy * (1 - w) * r2[a] + dy * w * r2[b];
    }
}

/* Keys cubic kernel with a = -0.75, in float. */
TVMAF_HD float fvif_bicubic_weight(float t)
{
    const float a = -0.75f;
    if (t < 0) t = -t;
    if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

/* Bicubic sample at source position (x, y): 4x4 taps, rows outer, the
 * weight of a tap being wx * wy, added into a float from 0. Needs a source of
 * at least 3x3. */
TVMAF_HD float fvif_bicubic_sample(TVMAF_GLOBAL const float *src, int w, int h, int stride, float x,
                                   float y)
{
    const int x0 = (int)floorf(x);
    const int y0 = (int)floorf(y);
    const float dx = x - (float)x0;
    const float dy = y - (float)y0;
    float wx[4], wy[4];
    for (int i = -1; i <= 2; i++) {
        wx[i + 1] = fvif_bicubic_weight((float)i - dx);
        wy[i + 1] = fvif_bicubic_weight((float)i - dy);
    }
    float v = 0.0f;
    for (int j = -1; j <= 2; j++) {
        for (int i = -1; i <= 2; i++) {
            const int xi = (int)fvif_scale_mirror((float)(x0 + i), 0.0f, (float)(w - 1));
            const int yi = (int)fvif_scale_mirror((float)(y0 + j), 0.0f, (float)(h - 1));
            const float wt = wx[i + 1] * wy[j + 1];
            v += src[yi * stride + xi] * wt;
        }
    }
    return v;
}

#if !defined(TVMAF_FP64_FREE)
/* Lanczos window of radius a at x: a sin(pi x) sin(pi x / a) / (pi^2 x^2)
 * in double, rounded to float; 1 at 0, 0 outside (-a, a). */
TVMAF_HD float fvif_lanczos_weight(float x, float a)
{
    if (x == 0.0f) return 1.0f;
    if (x > -a && x < a) {
        const double px = FVIF_PI * (double)x;
        return (float)((double)a * sin(px) * sin(px / (double)a) /
                       (FVIF_PI * FVIF_PI * (double)x * (double)x));
    }
    return 0.0f;
}
#endif /* !TVMAF_FP64_FREE */

#define FVIF_LANCZOS_A 4

#define FVIF_LANCZOS_TAPS (2 * FVIF_LANCZOS_A + 1)

#if !defined(TVMAF_FP64_FREE)

/* The Lanczos4 taps along one axis at source position pos: returns the
 * integer position (floor) and writes the 9 weights of positions -4..4
 * around it. Calls libm (sin): the CUDA twin takes these from the host. */
TVMAF_HD int fvif_lanczos_axis(float pos, float *wts)
{
    const int a = FVIF_LANCZOS_A;
    const int p0 = (int)floorf(pos);
    const float d = pos - (float)p0;
    for (int i = -a; i <= a; i++) wts[i + a] = fvif_lanczos_weight((float)i - d, (float)a);
    return p0;
}
#endif /* !TVMAF_FP64_FREE */

/* Lanczos4 sample from the two axes' taps (fvif_lanczos_axis): 9x9 taps,
 * rows outer, value and weight sums in float, then their quotient. Needs a
 * source of at least 6x6. */
TVMAF_HD float fvif_lanczos_apply(TVMAF_GLOBAL const float *src, int w, int h, int stride, int x0,
                                  int y0, TVMAF_GLOBAL const float *wx,
                                  TVMAF_GLOBAL const float *wy)
{
    const int a = FVIF_LANCZOS_A;
    float value = 0.0f, weight_sum = 0.0f;
    for (int iy = -a; iy <= a; iy++) {
        for (int ix = -a; ix <= a; ix++) {
            const float wt = wx[ix + a] * wy[iy + a];
            weight_sum += wt;
            const int xi = (int)fvif_scale_mirror((float)(x0 + ix), 0.0f, (float)(w - 1));
            const int yi = (int)fvif_scale_mirror((float)(y0 + iy), 0.0f, (float)(h - 1));
            value += src[yi * stride + xi] * wt;
        }
    }
    return value / weight_sum;
}

/* Lanczos4 sample at source position (x, y) (the CPU's: the device reads
 * the host's taps, fvif_lanczos_apply). */
#ifndef __OPENCL_VERSION__
TVMAF_HD float fvif_lanczos_sample(const float *src, int w, int h, int stride, float x, float y)
{
    float wx[FVIF_LANCZOS_TAPS], wy[FVIF_LANCZOS_TAPS];
    const int x0 = fvif_lanczos_axis(x, wx);
    const int y0 = fvif_lanczos_axis(y, wy);
    return fvif_lanczos_apply(src, w, h, stride, x0, y0, wx, wy);
}
#endif

/* Smallest source side each scaler reads inside of (with its one-step
 * mirror), when the size changes. */
TVMAF_HD int fvif_scaler_min_side(enum FvifScaler m)
{
    return m == FVIF_SCALE_LANCZOS4 ? 6 : m == FVIF_SCALE_BICUBIC ? 3 : m == FVIF_SCALE_BILINEAR ? 2 : 1;
}

/* ------------------------------------------------------------------------ */
/* The twin's decomposition (float_vif_kernels.h)                           */
/* ------------------------------------------------------------------------ */

/*
 * Every sample is one thread (FVIF_BLOCK_W x FVIF_BLOCK_H blocks,
 * FVIF_GRID_Y(h) blocks in y striding over further rows) running the CPU's
 * row functions on a one-sample row, so each value is the CPU's chain of
 * float operations:
 *   load: fvif_load_row_* with w = 1 (fvif_load_sample);
 *   prescale: the scalers' per-sample functions; bilinear reads the host's
 *   column tables, lanczos4 the host's taps of every column and row
 *   (fvif_lanczos_axis calls sin; the host's libm computes them);
 *   vertical pass: fvif_vpass / fvif_vpass5 with w = 1 over the column's
 *   mirrored samples (fvif_tap_column), written into a row with the margins the
 *   CPU mirrors: ext column m holds image column fvif_mirror(m - half, w),
 *   which is the value the CPU copies there (fvif_ext_column);
 *   horizontal pass: fvif_hpass with n = 1 at ext + step * j;
 *   statistic: fvif_pixel per sample into num and den planes; then one
 *   thread per row adds the row left to right (fvif_sum, as fvif_stat_row
 *   does), and the host adds each scale's rows top to bottom (fvif_sum).
 * Nothing is reduced in a tree; every float sum keeps the CPU's order.
 */
#define FVIF_BLOCK_W 32
#define FVIF_BLOCK_H 8
#define FVIF_ROW_THREADS 64
#define FVIF_GRID_Y(h) \
    ((h) + FVIF_BLOCK_H - 1 > 65535u * FVIF_BLOCK_H ? 65535u \
                                                    : ((h) + FVIF_BLOCK_H - 1) / FVIF_BLOCK_H)
/* The widest filter a thread holds row pointers for: scale 0 at the largest
 * accepted kernel scale, (2^4 + 1) * (360/97 + 1e-3) rounded up to odd. */
#define FVIF_MAX_FW 65

/* Sample (x, y) of a plane of bpc-bit samples (rows pitch bytes apart) as a
 * float. */
TVMAF_HD float fvif_load_sample(TVMAF_GLOBAL const unsigned char *src, ptrdiff_t pitch,
                                unsigned bpc, float divisor, int x, int y)
{
    TVMAF_GLOBAL const unsigned char *r = src + (ptrdiff_t)y * pitch;
    float out;
    if (bpc == 8) fvif_load_row_8(r + x, &out, 1);
    else
        fvif_load_row_16((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)r + x, &out, 1,
                         divisor);
    return out;
}

/* The image column that column m of a w-wide row with half-sample mirrored
 * margins holds (fvif_mirror_margins). */
TVMAF_HD int fvif_ext_column(int m, int w, int rad)
{
    return fvif_mirror(m - rad, w);
}

/* The fw samples under a vertical filter centred on row yc of column x of an
 * image of h rows `stride` floats apart (rows mirrored by fvif_mirror),
 * copied into col, and the rows a one-sample row function reads them
 * through. On the device the row functions read private memory (OpenCL C
 * 1.2 has no generic address space), so a work-item copies what it filters. */
TVMAF_HD void fvif_tap_column(TVMAF_GLOBAL const float *img, ptrdiff_t stride, int h, int yc,
                              int fw, int x, float *col, const float **rows)
{
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) {
        col[k] = img[(ptrdiff_t)fvif_mirror(yc - rad + k, h) * stride + x];
        rows[k] = &col[k];
    }
}

/* Vertical pass of column x, filter centred on row yc of a w x h image. */
TVMAF_HD float fvif_vpass_sample(TVMAF_GLOBAL const float *f, int fw, TVMAF_GLOBAL const float *img,
                                 int w, int h, int yc, int x)
{
    float col[FVIF_MAX_FW], out;
    const float *rows[FVIF_MAX_FW];
    fvif_tap_column(img, w, h, yc, fw, x, col, rows);
    fvif_vpass(f, fw, rows, &out, 1);
    return out;
}

/* Vertical pass of the five quantities at column x, row y of two w x h
 * images: v = mu1, mu2, xx, yy, xy. */
TVMAF_HD void fvif_vpass5_sample(TVMAF_GLOBAL const float *f, int fw, TVMAF_GLOBAL const float *a,
                                 TVMAF_GLOBAL const float *b, int w, int h, int y, int x,
                                 float v[5])
{
    float ca[FVIF_MAX_FW], cb[FVIF_MAX_FW];
    const float *ra[FVIF_MAX_FW], *rb[FVIF_MAX_FW];
    fvif_tap_column(a, w, h, y, fw, x, ca, ra);
    fvif_tap_column(b, w, h, y, fw, x, cb, rb);
    fvif_vpass5(f, fw, ra, rb, 1, &v[0], &v[1], &v[2], &v[3], &v[4]);
}

/* Horizontal pass of output column j of a row with mirrored margins (ext),
 * reading every step-th column: fvif_hpass with n = 1 over the fw samples
 * from ext + step * j (copied, as fvif_tap_column). */
TVMAF_HD float fvif_hpass_sample(TVMAF_GLOBAL const float *f, int fw, TVMAF_GLOBAL const float *ext,
                                 int j, int step)
{
    float win[FVIF_MAX_FW], out;
    for (int k = 0; k < fw; k++) win[k] = ext[(ptrdiff_t)j * step + k];
    fvif_hpass(f, fw, win, &out, 1, 1);
    return out;
}

/* Prescaled sample (x, y) by the nearest, bilinear or bicubic scaler from a
 * sw x sh source (rx, ry: fvif_scale_ratio; col*: the bilinear column
 * tables). */
TVMAF_HD float fvif_prescale_sample(int method, TVMAF_GLOBAL const float *src, int sw, int sh,
                                    float rx, float ry, TVMAF_GLOBAL const int *col1,
                                    TVMAF_GLOBAL const int *col2, TVMAF_GLOBAL const float *coldx,
                                    int x, int y)
{
    if (method == FVIF_SCALE_NEAREST)
        return src[(ptrdiff_t)fvif_nearest_index(y, ry) * sw + fvif_nearest_index(x, rx)];
    if (method == FVIF_SCALE_BILINEAR) {
        int y1, y2;
        float dy, out;
        fvif_bilinear_axis(y, ry, sh, &y1, &y2, &dy);
        fvif_bilinear_row(src + (ptrdiff_t)y1 * sw, src + (ptrdiff_t)y2 * sw, dy, col1 + x,
                          col2 + x, coldx + x, &out, 1);
        return out;
    }
    return fvif_bicubic_sample(src, sw, sh, sw, fvif_scale_pos(x, rx), fvif_scale_pos(y, ry));
}

/* ------------------------------------------------------------------------ */
/* Host: filters and per-stream constants                                   */
/* ------------------------------------------------------------------------ */

#if !TVMAF_DEVICE_CODE

/* Kernel scales the reference accepts (within 1e-3, compared in float).
 * Kept as the same float expressions, each rounded to float as written. */
#define FVIF_N_KERNELSCALES 21
static const float fvif_kernelscales[FVIF_N_KERNELSCALES] = {
    1.0, 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,
    1.0f / 2.25f, 1.4746f, 1.54f, 1.6f, 1.06667f, 0.711111f, 0.740740f, 1.111111f,
};

/* Whether kernelscale (rounded to float) is within 1e-3 of an accepted one. */
static inline int fvif_kernelscale_valid(float ks)
{
    for (int i = 0; i < FVIF_N_KERNELSCALES; i++)
        if (fabsf(ks - fvif_kernelscales[i]) < 1e-3) return 1;
    return 0;
}

/* Taps of scale s: (2^(4-s) + 1) * kernelscale (a float product), rounded
 * up to an odd integer, at least 3. */
static inline int fvif_filter_width(int scale, float ks)
{
    const int n = (1 << (4 - scale)) + 1;
    int c = (int)ceil((double)((float)n * ks));
    if (c % 2 == 0) c += 1;
    return c > 3 ? c : 3;
}

/*
 * Gaussian of `size` taps (odd) with deviation size / 5 (float), normalised
 * to sum 1 in float. Each tap is exp(-0.5 * x / sd * x / sd) (double, to
 * float) divided by 1 / (sd * sqrt(2 pi)) (double, to float), in float.
 */
static inline void fvif_gaussian(float *out, int size)
{
    const float sd = (float)size / 5.0f;
    const int rad = (size - 1) / 2;
    float sum = 0;
    for (int i = 0; i < size; i++) {
        const float x = (float)(i - rad);
        const float num = (float)exp(-0.5 * (double)x / (double)sd * (double)x / (double)sd);
        const float den = (float)(1 / ((double)sd * sqrt(2 * FVIF_PI)));
        out[i] = num / den;
        sum += out[i];
    }
    for (int i = 0; i < size; i++) out[i] /= sum;
}

/* The statistic's constants for the options given. */
static inline FvifStatParams fvif_stat_params(double gain_limit, double sigma_nsq)
{
    FvifStatParams p;
    p.gain_limit = (float)gain_limit;
    p.sigma_max_inv = (float)((double)powf((float)sigma_nsq, 2.0f) / (255.0 * 255.0));
    p.sigma_nsq = sigma_nsq;
    return p;
}

#endif /* !TVMAF_DEVICE_CODE */

#endif
