/*
 * float_vif (libvmaf's floating-point VIF): the arithmetic, written once for
 * the CPU extractor (float_vif.c) and the twin (float_vif_kernels.h, see "The
 * twin's decomposition" below). The samples, the separable filter, its
 * Gaussians and the scalers are common/float_filter.h's, which float_motion
 * and speed share.
 *
 * Pipeline of one frame (luma only):
 *   samples become floats centred on zero: 8-bit v -> v + (-128), deeper
 *   samples are divided by 2^(bpc-8) first (4, 16 or 256), in float;
 *   an optional prescale resizes both planes (nearest, bilinear, bicubic or
 *   lanczos4, common/float_filter.h's scalers; an unchanged size is a plain
 *   copy);
 *   four scales: scale s+1 is scale s low-passed with the Gaussian of scale
 *   s+1 and decimated by 2 (even rows and columns, sizes rounded down); at
 *   every scale the Gaussian of that scale gives local means mu1, mu2 and
 *   second moments xx, yy, xy, from which each pixel gets a num and a den.
 *
 * Everything up to the per-scale totals is float, in this order:
 *   filtering is separable, the vertical pass first (common/float_filter.h:
 *   taps in index order from 0, borders mirrored without repeating the edge
 *   sample). The squared and cross moments multiply the two samples first
 *   and then the tap: f[k] * (x*x), f[k] * (x*y) (fvif_vpass5).
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
#include "feature/common/float_filter.h"
#include "feature/common/sample.h"
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

/* floor of the statistic's denominators and threshold of "no variance" */
#define FVIF_EPS 1.0e-10f

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

/* ------------------------------------------------------------------------ */
/* Separable filter (common/float_filter.h's, and the five quantities)      */
/* ------------------------------------------------------------------------ */

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

/* The float sum of n values, left to right from 0: a row's sums of num and
 * den (the CPU's common/float_rows.h adds each row in this order too), and the
 * host's sum of a scale's rows. */
TVMAF_HD float fvif_sum(TVMAF_GLOBAL const float *v, int n)
{
    float acc = 0.0f;
    for (int i = 0; i < n; i++) acc += v[i];
    return acc;
}

/* ------------------------------------------------------------------------ */
/* The twin's decomposition (float_vif_kernels.h)                           */
/* ------------------------------------------------------------------------ */

/*
 * Every sample is one thread (FVIF_BLOCK_W x FVIF_BLOCK_H blocks,
 * FVIF_GRID_Y(h) blocks in y striding over further rows) running the CPU's
 * row functions on a one-sample row, so each value is the CPU's chain of
 * float operations:
 *   load: ffilter_load_row_* with w = 1 (ffilter_load_sample);
 *   prescale: the scalers' per-sample functions; bilinear reads the host's
 *   column tables, lanczos4 the host's taps of every column and row
 *   (ffilter_lanczos_axis calls sin; the host's libm computes them);
 *   vertical pass: ffilter_vpass / fvif_vpass5 with w = 1 over the column's
 *   mirrored samples (ffilter_tap_column), written into a row with the
 *   margins the CPU mirrors: ext column m holds image column
 *   mirror_skip_edge(m - half, w), which is the value the CPU copies there
 *   (ffilter_ext_column);
 *   horizontal pass: ffilter_hpass with n = 1 at ext + step * j;
 *   statistic: fvif_pixel per sample into num and den planes; then one
 *   thread per row adds the row left to right (fvif_sum, as the CPU
 *   does), and the host adds each scale's rows top to bottom (fvif_sum).
 * Nothing is reduced in a tree; every float sum keeps the CPU's order.
 */
#define FVIF_BLOCK_W 32
#define FVIF_BLOCK_H 8
#define FVIF_ROW_THREADS 64
#define FVIF_GRID_Y(h) \
    ((h) + FVIF_BLOCK_H - 1 > 65535u * FVIF_BLOCK_H ? 65535u \
                                                    : ((h) + FVIF_BLOCK_H - 1) / FVIF_BLOCK_H)

/* Vertical pass of column x, filter centred on row yc of a w x h image. */
TVMAF_HD float fvif_vpass_sample(TVMAF_GLOBAL const float *f, int fw, TVMAF_GLOBAL const float *img,
                                 int w, int h, int yc, int x)
{
    float col[FFILTER_MAX_FW], out;
    const float *rows[FFILTER_MAX_FW];
    ffilter_tap_column(img, w, h, yc, fw, x, col, rows);
    ffilter_vpass(f, fw, rows, &out, 1);
    return out;
}

/* Vertical pass of the five quantities at column x, row y of two w x h
 * images: v = mu1, mu2, xx, yy, xy. */
TVMAF_HD void fvif_vpass5_sample(TVMAF_GLOBAL const float *f, int fw, TVMAF_GLOBAL const float *a,
                                 TVMAF_GLOBAL const float *b, int w, int h, int y, int x,
                                 float v[5])
{
    float ca[FFILTER_MAX_FW], cb[FFILTER_MAX_FW];
    const float *ra[FFILTER_MAX_FW], *rb[FFILTER_MAX_FW];
    ffilter_tap_column(a, w, h, y, fw, x, ca, ra);
    ffilter_tap_column(b, w, h, y, fw, x, cb, rb);
    fvif_vpass5(f, fw, ra, rb, 1, &v[0], &v[1], &v[2], &v[3], &v[4]);
}

/* Prescaled sample (x, y) by the nearest, bilinear or bicubic scaler from a
 * sw x sh source (rx, ry: ffilter_scale_ratio; col*: the bilinear column
 * tables). */
TVMAF_HD float fvif_prescale_sample(int method, TVMAF_GLOBAL const float *src, int sw, int sh,
                                    float rx, float ry, TVMAF_GLOBAL const int *col1,
                                    TVMAF_GLOBAL const int *col2, TVMAF_GLOBAL const float *coldx,
                                    int x, int y)
{
    if (method == FFILTER_SCALE_NEAREST)
        return src[(ptrdiff_t)ffilter_nearest_index(y, ry) * sw + ffilter_nearest_index(x, rx)];
    if (method == FFILTER_SCALE_BILINEAR) {
        int y1, y2;
        float dy, out;
        ffilter_bilinear_axis(y, ry, sh, &y1, &y2, &dy);
        ffilter_bilinear_row(src + (ptrdiff_t)y1 * sw, src + (ptrdiff_t)y2 * sw, dy, col1 + x,
                             col2 + x, coldx + x, &out, 1);
        return out;
    }
    return ffilter_bicubic_sample(src, sw, sh, sw, ffilter_scale_pos(x, rx),
                                  ffilter_scale_pos(y, ry));
}

/* ------------------------------------------------------------------------ */
/* Host: per-stream constants                                               */
/* ------------------------------------------------------------------------ */

#if !TVMAF_DEVICE_CODE

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
