/*
 * float_vif's CPU row kernels: its five-quantity vertical pass and its
 * statistic (float_vif_math.h's fvif_vpass5 and fvif_pixel), written for the
 * SIMD level of the translation unit that includes this header: float_vif.c
 * (the baseline) and float_vif_x86.c (compiled once per x86 level). The
 * filter passes and row sums it shares with float_motion are
 * common/float_rows.h's, whose vector types these use.
 *
 * Why every level gives the reference's bits: as common/float_rows.h's, one
 * lane per output sample, each lane the scalar code's float operations in
 * its order. The statistic is fvif_pixel's expression, branch free (each
 * `if` becomes a select of the same values, in the same order), so that the
 * compiler can vectorise it across pixels.
 */
#ifndef TVMAF_FLOAT_VIF_CPU_H
#define TVMAF_FLOAT_VIF_CPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tvmaf_config.h"
#include "feature/common/float_rows.h"
#include "feature/float_vif/float_vif_math.h"

/* fvif_vpass5: the means of a and b and the moments a*a, b*b, a*b, each
 * product formed before the tap multiplies it */
static inline void frows_vpass5(const float *f, int fw, const float *const *a,
                                const float *const *b, int w, float *mu1, float *mu2, float *xx,
                                float *yy, float *xy)
{
    const int L = FROWS_L;
    int j = 0;
    for (; j + 2 * L <= w; j += 2 * L) {
        frows_vf m1a = { 0 }, m1b = { 0 }, m2a = { 0 }, m2b = { 0 };
        frows_vf xxa = { 0 }, xxb = { 0 }, yya = { 0 }, yyb = { 0 }, xya = { 0 }, xyb = { 0 };
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const frows_vf x0 = FROWS_LD(a[k] + j), x1 = FROWS_LD(a[k] + j + L);
            const frows_vf y0 = FROWS_LD(b[k] + j), y1 = FROWS_LD(b[k] + j + L);
            m1a = m1a + c * x0;
            m1b = m1b + c * x1;
            m2a = m2a + c * y0;
            m2b = m2b + c * y1;
            xxa = xxa + c * (x0 * x0);
            xxb = xxb + c * (x1 * x1);
            yya = yya + c * (y0 * y0);
            yyb = yyb + c * (y1 * y1);
            xya = xya + c * (x0 * y0);
            xyb = xyb + c * (x1 * y1);
        }
        FROWS_ST(mu1 + j, m1a);
        FROWS_ST(mu1 + j + L, m1b);
        FROWS_ST(mu2 + j, m2a);
        FROWS_ST(mu2 + j + L, m2b);
        FROWS_ST(xx + j, xxa);
        FROWS_ST(xx + j + L, xxb);
        FROWS_ST(yy + j, yya);
        FROWS_ST(yy + j + L, yyb);
        FROWS_ST(xy + j, xya);
        FROWS_ST(xy + j + L, xyb);
    }
    for (; j < w; j++) {
        float m1 = 0.0f, m2 = 0.0f, sxx = 0.0f, syy = 0.0f, sxy = 0.0f;
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float x = a[k][j], y = b[k][j];
            m1 += c * x;
            m2 += c * y;
            sxx += c * (x * x);
            syy += c * (y * y);
            sxy += c * (x * y);
        }
        mu1[j] = m1;
        mu2[j] = m2;
        xx[j] = sxx;
        yy[j] = syy;
        xy[j] = sxy;
    }
}

/* Register vectors of the statistic: FROWS_L floats, the int32 and uint32
 * lanes of the same size (comparison masks, bit patterns) and FROWS_L
 * doubles. */
typedef float frows_f __attribute__((vector_size(FROWS_VBYTES)));
typedef int32_t frows_i __attribute__((vector_size(FROWS_VBYTES)));
typedef uint32_t frows_u __attribute__((vector_size(FROWS_VBYTES)));
typedef double frows_d __attribute__((vector_size(2 * FROWS_VBYTES)));

/* m ? a : b per lane, m a comparison's mask (all ones or zero) */
static inline frows_f frows_sel(frows_i m, frows_f a, frows_f b)
{
    return (frows_f)((m & (frows_i)a) | (~m & (frows_i)b));
}

/* fvif_log2f per lane: 0 gives -inf, a negative NaN, anything else the
 * exponent plus the same polynomial, in float */
static inline frows_f frows_log2v(frows_f x)
{
    const frows_u u = (frows_u)x;
    const frows_u exponent = (u & 0x7F800000u) >> 23;
    const frows_f mant = (frows_f)((u & 0x007FFFFFu) | 0x3F800000u);
    const frows_f base = __builtin_convertvector((frows_i)exponent - 127, frows_f);
    const frows_f t = mant - 1.0f;
    const float poly[FVIF_LOG2_POLY_LEN] = FVIF_LOG2_POLY;
    frows_f p = { 0 };
    for (int i = 0; i < FVIF_LOG2_POLY_LEN; i++) p = p * t + poly[i];
    const frows_f r = base + p;
    const frows_f zero = { 0 };
    const frows_f neg = frows_sel(x < zero, zero + NAN, r);
    return frows_sel(x == zero, zero - INFINITY, neg);
}

/* fvif_pixel of a row into num[j], den[j]: FROWS_L pixels at a time, each
 * lane fvif_pixel's operations with its `if`s as selects between the same
 * values, in the same order; the last pixels through fvif_pixel itself */
static inline void frows_stat_px(const float *restrict mu1, const float *restrict mu2,
                                 const float *restrict xx, const float *restrict yy,
                                 const float *restrict xy, int w, const FvifStatParams *p,
                                 float *restrict num, float *restrict den)
{
    const int L = FROWS_L;
    const frows_f zero = { 0 };
    const frows_f eps = zero + FVIF_EPS;
    const frows_f gain_limit = zero + p->gain_limit;
    const float sigma_max_inv = p->sigma_max_inv;
    const double sigma_nsq = p->sigma_nsq;
    const frows_d dsigma_nsq = (frows_d){ 0 } + sigma_nsq;
    int j = 0;
    for (; j + L <= w; j += L) {
        const frows_f m1 = FROWS_LD(mu1 + j), m2 = FROWS_LD(mu2 + j);
        frows_f s1 = FROWS_LD(xx + j) - m1 * m1;
        frows_f s2 = FROWS_LD(yy + j) - m2 * m2;
        const frows_f s12 = FROWS_LD(xy + j) - m1 * m2;
        s1 = frows_sel(s1 > zero, s1, zero);
        s2 = frows_sel(s2 > zero, s2, zero);
        frows_f g = s12 / (s1 + eps);
        frows_f sv = s2 - g * s12;
        const frows_i c1 = s1 < eps;
        g = frows_sel(c1, zero, g);
        sv = frows_sel(c1, s2, sv);
        s1 = frows_sel(c1, zero, s1);
        const frows_i c2 = s2 < eps;
        g = frows_sel(c2, zero, g);
        sv = frows_sel(c2, zero, sv);
        const frows_i c3 = g < zero;
        sv = frows_sel(c3, s2, sv);
        g = frows_sel(c3, zero, g);
        sv = frows_sel(sv > eps, sv, eps);
        g = frows_sel(g < gain_limit, g, gain_limit);
        const frows_f gain_term = g * g * s1;
        const frows_d s1d = __builtin_convertvector(s1, frows_d);
        const frows_d qn = __builtin_convertvector(gain_term, frows_d) /
                           (__builtin_convertvector(sv, frows_d) + dsigma_nsq);
        frows_f n = frows_log2v(__builtin_convertvector(1.0 + qn, frows_f));
        frows_f d = frows_log2v(__builtin_convertvector(1.0 + s1d / dsigma_nsq, frows_f));
        const frows_i below_noise = __builtin_convertvector(s1d < dsigma_nsq, frows_i);
        n = frows_sel(s12 < zero, zero, n);
        n = frows_sel(below_noise, 1.0f - s2 * sigma_max_inv, n);
        d = frows_sel(below_noise, zero + 1.0f, d);
        FROWS_ST(num + j, n);
        FROWS_ST(den + j, d);
    }
    for (; j < w; j++) fvif_pixel(mu1[j], mu2[j], xx[j], yy[j], xy[j], p, &num[j], &den[j]);
}

/* float_vif's kernels of one SIMD level, behind pointers (selected once per
 * stream by tvmaf_fvif_rows_dsp_init). */
typedef struct FvifRowsKernels {
    void (*vpass5)(const float *f, int fw, const float *const *a, const float *const *b, int w,
                   float *mu1, float *mu2, float *xx, float *yy, float *xy);
    void (*stat_px)(const float *mu1, const float *mu2, const float *xx, const float *yy,
                    const float *xy, int w, const FvifStatParams *p, float *num, float *den);
} FvifRowsKernels;

/* Out-of-line copies of the kernels in the including translation unit's
 * instruction set, as the set `name`. */
#define FVIF_ROWS_KERNELS_DEFINE(name)                                                       \
    static void fvif_o_vpass5(const float *f, int fw, const float *const *a,                 \
                              const float *const *b, int w, float *mu1, float *mu2,          \
                              float *xx, float *yy, float *xy)                               \
    { frows_vpass5(f, fw, a, b, w, mu1, mu2, xx, yy, xy); }                                  \
    static void fvif_o_stat_px(const float *mu1, const float *mu2, const float *xx,          \
                               const float *yy, const float *xy, int w,                      \
                               const FvifStatParams *p, float *num, float *den)              \
    { frows_stat_px(mu1, mu2, xx, yy, xy, w, p, num, den); }                                 \
    const FvifRowsKernels name = { fvif_o_vpass5, fvif_o_stat_px }

extern const FvifRowsKernels tvmaf_fvif_rows_kernels_c;
#if TVMAF_X86_SIMD
extern const FvifRowsKernels tvmaf_fvif_rows_kernels_avx2, tvmaf_fvif_rows_kernels_avx512,
    tvmaf_fvif_rows_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set, then
 * each x86 level (TVMAF_DSP_INIT_X86). float_vif and tests/checkasm call
 * it. */
void tvmaf_fvif_rows_dsp_init(FvifRowsKernels *c, unsigned cpu_flags);

#endif
