/*
 * float_adm: the arithmetic of libvmaf's floating-point ADM, written once for
 * the CPU extractor and its twin (the decomposition of float_adm_kernels.h).
 *
 * One frame, luma only, four scales (0 = finest). Per scale:
 *   dwt       Daubechies-2 analysis of reference (o) and distorted (t), with
 *             mirrored edges: bands a (the next scale's input), h, v, d
 *   decouple  per detail coefficient, t = r + a: the restored part
 *             r = clamp(t / o, 0, 1) * o (or, within one degree of o's
 *             direction, t itself up to the enhancement gain limit) and the
 *             additive part a = t - r
 *   csf       each band times its contrast-sensitivity weight, and the
 *             weighted value's "flt" companion |x| / 30
 *   den       sum over the reference's weighted bands of |x|^p
 *   cm        contrast masking: sum of max(|x| - thr, 0)^p, where thr is a
 *             3x3 neighbourhood sum of the masking band's flt values (the
 *             centre counted as |x| / 15), over all three orientations. The
 *             DLM numerator masks r by a; AIM masks a by r.
 * den and cm pool each orientation as sum^(1/p) + (area * noise_weight)^(1/p)
 * and add the three; the scales add into doubles.
 *
 * Types and order are the reference's (libvmaf adm_tools.c, adm.c), which
 * is what makes the scores equal bit for bit:
 *   - coefficients are float; the taps are double literals stored as float;
 *   - FADM_ONE_BY_30 and FADM_ONE_BY_15 are double constants: the flt value is
 *     a double product rounded once to float, and the threshold's centre term
 *     is a double addend (float sum + double product, rounded to float);
 *   - the threshold adds, per orientation, the nine taps of its 3x3 window in
 *     raster order into one float (centre fifth), then the three orientation
 *     sums into another float, h first;
 *   - the angle test compares (u.v)^2 with (cos^2(1 deg) * |u|^2) * |v|^2,
 *     left to right, in float; the gain limit multiplies in double;
 *   - den and cm add a row left to right into one float per orientation and
 *     the row totals top to bottom into another;
 *   - t / o is t * rcp(o), the x86 RCPSS estimate refined by one Newton
 *     step, on the build the goldens came from (see numerics/rcpss.h and
 *     fadm_div below).
 * The only libm call per coefficient is powf for p-norms other than 3; the
 * twin makes it on the host, from the bases the device computes.
 */
#ifndef TVMAF_FLOAT_ADM_MATH_H
#define TVMAF_FLOAT_ADM_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/mirror.h"
#include "feature/common/sample.h"

/* The device's doubles (the gain limit, the flt and threshold products): an
 * fp64-free program (OpenCL without cl_khr_fp64) forms their bit patterns in
 * integers (numerics/soft_double.h) and reads the gain limit's bits (FadmF64)
 * where the host wrote a double. */
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
typedef tvmaf_sd FadmF64;
#else
typedef double FadmF64;
#endif
#if !TVMAF_DEVICE_CODE
#include "feature/adm/adm_csf.h" /* the CSF weights: the host computes them */
#endif
#include "numerics/rcpss.h"

#define FADM_N_SCALES 4

/* Smallest frame side: the coarsest band (ceil(side / 16)) needs two samples,
 * or the mirrored 3x3 window and the DWT's mirrored taps fall outside it. */
#define FADM_MIN_SIDE 17

/* share of each side left out of the pooled region */
#define FADM_BORDER_FACTOR 0.1

/* Daubechies-2 analysis filters: low pass and high pass (double literals
 * rounded to float, as stored by the reference). An fp64-free program takes
 * the same floats as hex literals (FADM_*_HEX, which test_soft_double
 * compares with the host's). */
#define FADM_A_HEX 0x1.ee8dd4p-2f  /* (float)0.482962913144690 */
#define FADM_B_HEX 0x1.ac4bdep-1f  /* (float)0.836516303737469 */
#define FADM_C_HEX 0x1.cb0bfp-3f   /* (float)0.224143868041857 */
#define FADM_D_HEX 0x1.0907dcp-3f  /* (float)0.129409522550921 */
#if defined(TVMAF_FP64_FREE)
#define FADM_LO0 FADM_A_HEX
#define FADM_LO1 FADM_B_HEX
#define FADM_LO2 FADM_C_HEX
#define FADM_LO3 (-FADM_D_HEX)
#define FADM_HI0 (-FADM_D_HEX)
#define FADM_HI1 (-FADM_C_HEX)
#define FADM_HI2 FADM_B_HEX
#define FADM_HI3 (-FADM_A_HEX)
#else
#define FADM_LO0 ((float)0.482962913144690)
#define FADM_LO1 ((float)0.836516303737469)
#define FADM_LO2 ((float)0.224143868041857)
#define FADM_LO3 ((float)-0.129409522550921)
#define FADM_HI0 ((float)-0.129409522550921)
#define FADM_HI1 ((float)-0.224143868041857)
#define FADM_HI2 ((float)0.836516303737469)
#define FADM_HI3 ((float)-0.482962913144690)
#endif

/* 1/30 and 1/15 rounded to float, then written (and used) as doubles; the
 * fp64-free programs use their bits (test_soft_double checks them) */
#define FADM_ONE_BY_30 0.0333333351
#define FADM_ONE_BY_15 0.0666666701
#define FADM_ONE_BY_30_BITS UINT64_C(0x3fa11111203e01fc)
#define FADM_ONE_BY_15_BITS UINT64_C(0x3fb111111fd00e7d)

/* keeps t / o finite where o is 0 (the fp64-free programs: the same float) */
#define FADM_EPS_HEX 0x1.4484cp-100f
#if defined(TVMAF_FP64_FREE)
#define FADM_EPS FADM_EPS_HEX
#else
#define FADM_EPS ((float)1e-30)
#endif

/* ------------------------------------------------------------------------ */
/* Samples and geometry                                                     */
/* ------------------------------------------------------------------------ */

/* A luma sample as the float the reference works on: centred by -128 after
 * scaling high bit depths to 8-bit range by their sample_divisor (exact in
 * float). */
TVMAF_HD float fadm_sample8(uint8_t v)
{
    return (float)v + (float)-128;
}

TVMAF_HD float fadm_sample16(uint16_t v, float divisor)
{
    return (float)v / divisor + (float)-128;
}

/* Tap k of DWT output j reads input sample 2j - 1 + k of its line, mirrored
 * at both ends by mirror_skip_first_repeat_last (-1 -> 1, n -> n - 1,
 * n + 1 -> n - 2). */

#if !defined(TVMAF_FP64_FREE)
/* First pooled index of an n-sample band; the region is [lo, n - lo). */
TVMAF_HD int fadm_border(int n)
{
    return (int)(n * FADM_BORDER_FACTOR - 0.5);
}

/* The region decouple and csf fill: the pooled region widened by the 3x3
 * window (one sample before, and the reference's two after), clipped. */
TVMAF_HD void fadm_work_range(int n, int *lo, int *hi)
{
    const int l = (int)(n * FADM_BORDER_FACTOR - 0.5 - 1);
    const int r = n - l + 2;
    *lo = l < 0 ? 0 : l;
    *hi = r > n ? n : r;
}
#endif

/* Neighbours of index i in an n-sample band for the 3x3 window: mirrored at
 * the start (-1 -> 1), repeated at the end (n -> n - 1). */
TVMAF_HD int fadm_prev(int i) { return i == 0 ? 1 : i - 1; }
TVMAF_HD int fadm_next(int i, int n) { return i == n - 1 ? n - 1 : i + 1; }

/* ------------------------------------------------------------------------ */
/* DWT                                                                      */
/* ------------------------------------------------------------------------ */

/* One 4-tap output: the products added in tap order into a float from 0. */
TVMAF_HD float fadm_fir_lo(float s0, float s1, float s2, float s3)
{
    float acc = 0.0f;
    acc += FADM_LO0 * s0;
    acc += FADM_LO1 * s1;
    acc += FADM_LO2 * s2;
    acc += FADM_LO3 * s3;
    return acc;
}

TVMAF_HD float fadm_fir_hi(float s0, float s1, float s2, float s3)
{
    float acc = 0.0f;
    acc += FADM_HI0 * s0;
    acc += FADM_HI1 * s1;
    acc += FADM_HI2 * s2;
    acc += FADM_HI3 * s3;
    return acc;
}

/* ------------------------------------------------------------------------ */
/* Decouple and csf                                                         */
/* ------------------------------------------------------------------------ */

/*
 * n / d as the reference computes it for the chosen mode: n * rcp(d) with
 * rcp the Newton-refined RCPSS estimate (this processor's instruction, or a
 * table's), or the IEEE quotient. Without the instruction (every kernel
 * build, the host executor's included, and non-x86 hosts) "host" means the
 * table.
 */
TVMAF_HD float fadm_div(float n, float d, int div, TVMAF_GLOBAL const uint32_t *table)
{
    if (div == TVMAF_RCP_DIV_IEEE) return n / d;
#if TVMAF_RCPSS_HAVE_INSTRUCTION && !TVMAF_KERNEL_CODE
    if (div == TVMAF_RCP_DIV_HOST) return n * tvmaf_rcp_newton(d, tvmaf_rcpss_instruction(d));
#endif
    return n * tvmaf_rcp_newton(d, tvmaf_rcpss_model(d, table));
}

TVMAF_HD float fadm_clamp01(float k)
{
    return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
}

/* Whether (th, tv) lies within one degree of (oh, ov): u.v >= 0 and
 * (u.v)^2 >= cos^2(1 deg) |u|^2 |v|^2, every product in float, the right
 * side multiplied left to right. */
TVMAF_HD int fadm_within_1deg(float oh, float ov, float th, float tv, float cos_1deg_sq)
{
    const float dot = oh * th + ov * tv;
    const float o_sq = oh * oh + ov * ov;
    const float t_sq = th * th + tv * tv;
    return (dot >= 0.0f) & (dot * dot >= cos_1deg_sq * o_sq * t_sq);
}

/* Within one degree the restored value may grow towards t, by at most the
 * gain limit: min/max in double, stored to float. The two tests run one
 * after the other on the updated value, as in the reference (written as
 * selects: both candidates are computed, which changes no result). */
TVMAF_HD float fadm_gain_limit(float rst, float t, int within, FadmF64 gain_limit)
{
#if defined(TVMAF_FP64_FREE)
    const tvmaf_sd td = tvmaf_sd_from_float(t);
    const tvmaf_sd g1 = tvmaf_sd_mul(tvmaf_sd_from_float(rst), gain_limit);
    const float up = tvmaf_sd_to_float(tvmaf_sd_lt(g1, td) ? g1 : td);
    const float r1 = (within & (rst > 0.0f)) ? up : rst;
    const tvmaf_sd g2 = tvmaf_sd_mul(tvmaf_sd_from_float(r1), gain_limit);
    const float down = tvmaf_sd_to_float(tvmaf_sd_lt(td, g2) ? g2 : td);
    return (within & (r1 < 0.0f)) ? down : r1;
#else
    const double g1 = rst * gain_limit;
    const float up = (float)(g1 < t ? g1 : (double)t);
    const float r1 = (within & (rst > 0.0)) ? up : rst;
    const double g2 = r1 * gain_limit;
    const float down = (float)(g2 > t ? g2 : (double)t);
    return (within & (r1 < 0.0)) ? down : r1;
#endif
}

/* csf weighting of one value, and its flt companion (double product). */
TVMAF_HD float fadm_csf(float rfactor, float x)
{
    return rfactor * x;
}

TVMAF_HD float fadm_flt(float csf)
{
#if defined(TVMAF_FP64_FREE)
    return tvmaf_sd_to_float(tvmaf_sd_mul(FADM_ONE_BY_30_BITS, tvmaf_sd_from_float(fabsf(csf))));
#else
    return (float)(FADM_ONE_BY_30 * fabsf(csf));
#endif
}

/* The restoring gain of one coefficient: t / o clamped to [0, 1] (o offset
 * by FADM_EPS). */
TVMAF_HD float fadm_gain(float o, float t, int div, TVMAF_GLOBAL const uint32_t *table)
{
    return fadm_clamp01(fadm_div(t, o + FADM_EPS, div, table));
}

/*
 * One coefficient position, given the gains k[3] = fadm_gain(o, t): reference
 * o[3] and distorted t[3] (h, v, d) in, the csf-weighted restored and
 * additive parts and their flt values out.
 */
TVMAF_HD void fadm_split_csf(const float o[3], const float t[3], const float k[3],
                             float cos_1deg_sq, FadmF64 gain_limit, const float rfactor[3],
                             float csf_r[3], float flt_r[3], float csf_a[3], float flt_a[3])
{
    const int within = fadm_within_1deg(o[0], o[1], t[0], t[1], cos_1deg_sq);
    for (int b = 0; b < 3; b++) {
        const float r = fadm_gain_limit(k[b] * o[b], t[b], within, gain_limit);
        const float a = t[b] - r;
        csf_r[b] = fadm_csf(rfactor[b], r);
        flt_r[b] = fadm_flt(csf_r[b]);
        csf_a[b] = fadm_csf(rfactor[b], a);
        flt_a[b] = fadm_flt(csf_a[b]);
    }
}

/* Both steps at one position. */
TVMAF_HD void fadm_decouple_csf(const float o[3], const float t[3], float cos_1deg_sq,
                                FadmF64 gain_limit, const float rfactor[3], int div,
                                TVMAF_GLOBAL const uint32_t *table, float csf_r[3], float flt_r[3],
                                float csf_a[3], float flt_a[3])
{
    float k[3];
    for (int b = 0; b < 3; b++) k[b] = fadm_gain(o[b], t[b], div, table);
    fadm_split_csf(o, t, k, cos_1deg_sq, gain_limit, rfactor, csf_r, flt_r, csf_a, flt_a);
}

/* ------------------------------------------------------------------------ */
/* den and cm terms                                                         */
/* ------------------------------------------------------------------------ */

/* A term's base is raised to the power p: for p = 3 as (x * x) * x, in float
 * (fadm_cube, device and host); otherwise by glibc's powf with p in float
 * (fadm_pow_p, host only: the twins compute the bases on the device and
 * raise them on the host, so that every p is the CPU's). */
TVMAF_HD float fadm_cube(float x)
{
    return x * x * x;
}

/* Masking threshold of one orientation: the 3x3 window of its flt band
 * (rows up, mid, dn; columns jl, j, jr) in raster order, the centre replaced
 * by |centre csf| / 15 added in double. */
TVMAF_HD float fadm_thr_band(TVMAF_GLOBAL const float *up, TVMAF_GLOBAL const float *mid,
                             TVMAF_GLOBAL const float *dn, float centre, int jl, int j, int jr)
{
    float sum = 0.0f;
    sum += up[jl];
    sum += up[j];
    sum += up[jr];
    sum += mid[jl];
#if defined(TVMAF_FP64_FREE)
    sum = tvmaf_sd_to_float(tvmaf_sd_add(
        tvmaf_sd_from_float(sum),
        tvmaf_sd_mul(FADM_ONE_BY_15_BITS, tvmaf_sd_from_float(fabsf(centre)))));
#else
    sum = (float)(sum + FADM_ONE_BY_15 * fabsf(centre));
#endif
    sum += mid[jr];
    sum += dn[jl];
    sum += dn[j];
    sum += dn[jr];
    return sum;
}

/* The masking threshold at column j: the three orientations' windows (flt
 * rows up, mid, dn and csf centre rows c), added into a float, h first. */
TVMAF_HD float fadm_thr_at(TVMAF_GLOBAL const float *const up[3],
                           TVMAF_GLOBAL const float *const mid[3],
                           TVMAF_GLOBAL const float *const dn[3],
                           TVMAF_GLOBAL const float *const c[3], int jl, int j, int jr)
{
    float thr = 0.0f;
    for (int q = 0; q < 3; q++) thr += fadm_thr_band(up[q], mid[q], dn[q], c[q][j], jl, j, jr);
    return thr;
}

/* cm base: what of |x| exceeds the threshold */
TVMAF_HD float fadm_cm_base(float x, float thr)
{
    const float e = fabsf(x) - thr;
    return e < 0.0f ? 0.0f : e;
}

/* den base of a reference coefficient */
TVMAF_HD float fadm_den_base(float rfactor, float o)
{
    return fabsf(rfactor * o);
}

#if !TVMAF_DEVICE_CODE
/* ------------------------------------------------------------------------ */
/* Host only: the powers, pooling and the CSF weights                       */
/* ------------------------------------------------------------------------ */

/* |x|^p: the cube when p is 3, glibc's powf otherwise (p in float) */
static inline float fadm_pow_p(float x, int cube, double p_norm)
{
    return cube ? fadm_cube(x) : powf(x, (float)p_norm);
}

/* cm term: what of |x| exceeds the threshold, to the power p */
static inline float fadm_cm_term(float x, float thr, int cube, double p_norm)
{
    return fadm_pow_p(fadm_cm_base(x, thr), cube, p_norm);
}

/* den term of a reference coefficient */
static inline float fadm_den_term(float rfactor, float o, int cube, double p_norm)
{
    return fadm_pow_p(fadm_den_base(rfactor, o), cube, p_norm);
}

/* One orientation's pooled value: total^(1/p) plus the noise floor
 * (area * weight)^(1/p); the exponent is the double 1/p rounded to float. */
static inline float fadm_pool(float total, int area, double noise_weight, double p_norm)
{
    const float e = (float)(1.0f / p_norm);
    return powf(total, e) + powf((float)(area * noise_weight), e);
}

enum FadmCsfMode {
    FADM_CSF_WATSON97 = 0,
    FADM_CSF_BARTEN = 1,
    FADM_CSF_ADM = 2, /* the DLM paper's CSF; any other mode is Watson's */
};

/* luminance (cd/m2) the reference evaluates its CSFs at */
#define FADM_CSF_LUMINANCE 100.0

/* The DLM paper's CSF (Li, Zhang, Ma, Ngan 2011); diagonal bands see a
 * frequency 1/0.7 times higher (oblique effect). */
static inline float fadm_native_csf(int lambda, double norm_view_dist, int ref_display_height,
                                    int diag)
{
    const float r = adm_pixels_per_degree(norm_view_dist, ref_display_height);
    float freq = r / pow(2, lambda + 1);
    if (diag) freq /= 0.7;
    return (0.31 + 0.69 * freq) * exp(-0.29 * freq);
}

/*
 * The csf weights of scale lambda, h/v (w[0], w[1]) and d (w[2]), for the
 * mode, then replaced by the per-scale overrides f1 (h/v) and f2 (d) where
 * those are >= 0.
 */
static inline void fadm_csf_weights(int mode, int lambda, double norm_view_dist,
                                    int ref_display_height, double csf_scale,
                                    double csf_diag_scale, double f1, double f2, float w[3])
{
    float hv, d;
    if (mode == FADM_CSF_BARTEN) {
        hv = adm_barten_csf(lambda, norm_view_dist, ref_display_height, FADM_CSF_LUMINANCE,
                             csf_scale);
        d = adm_barten_csf(lambda, norm_view_dist, ref_display_height, FADM_CSF_LUMINANCE,
                            csf_diag_scale);
    } else if (mode == FADM_CSF_ADM) {
        hv = fadm_native_csf(lambda, norm_view_dist, ref_display_height, 0);
        d = fadm_native_csf(lambda, norm_view_dist, ref_display_height, 1);
    } else {
        hv = 1.0f / adm_watson_step(lambda, 1, norm_view_dist, ref_display_height);
        d = 1.0f / adm_watson_step(lambda, 2, norm_view_dist, ref_display_height);
    }
    if (f1 >= 0) hv = f1;
    if (f2 >= 0) d = f2;
    w[0] = hv;
    w[1] = hv;
    w[2] = d;
}
#endif

#endif
