/*
 * CPU row kernels of the separable float filter (common/float_filter.h's
 * ffilter_vpass and ffilter_hpass), of float_vif's five-quantity vertical
 * pass and statistic (float_vif_math.h's fvif_vpass5 and fvif_pixel), and a
 * row SAD (float_motion_math.h's fmot_sad_row), written for the SIMD level
 * of the translation unit that includes this header: float_vif.c and
 * float_motion.c (the baseline), and float_vif_x86.c / float_motion_x86.c
 * (compiled once per x86 level).
 *
 * Why every level gives the reference's bits: the vectors run ACROSS output
 * samples, one lane per sample. Each lane performs the scalar code's chain
 * of float operations for its sample: the accumulator starts at +0.0f and
 * takes acc + f[k] * x (a separate multiply and add, rounded each; the build
 * forbids contraction with -ffp-contract=off and no level enables FMA), taps
 * in index order. Blocks of columns only change which samples are computed
 * together, never the operations of one. The statistic is fvif_pixel's
 * expression, branch free (each `if` becomes a select of the same values,
 * in the same order), so that the compiler can vectorise it across pixels;
 * the row and plane sums stay sequential float sums in the reference's
 * order (several rows may be summed side by side, each in its own
 * accumulator, left to right).
 */
#ifndef TVMAF_FLOAT_ROWS_CPU_H
#define TVMAF_FLOAT_ROWS_CPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tvmaf_config.h"
#include "feature/float_vif/float_vif_math.h"

#if defined(__AVX512F__)
#define FROWS_VBYTES 64
#elif defined(__AVX2__)
#define FROWS_VBYTES 32
#else
#define FROWS_VBYTES 16
#endif
#define FROWS_L (FROWS_VBYTES / (int)sizeof(float))

/* a vector of FROWS_L floats at any float-aligned address */
typedef float frows_vf __attribute__((vector_size(FROWS_VBYTES), aligned(4), may_alias));

#define FROWS_LD(p) (*(const frows_vf *)(const void *)(p))
#define FROWS_ST(p, v) (*(frows_vf *)(void *)(p) = (v))

/* ffilter_vpass: out[j] = 0 + f[0]*rows[0][j] + f[1]*rows[1][j] + ... */
static inline void frows_vpass(const float *f, int fw, const float *const *rows, float *out,
                               int w)
{
    const int L = FROWS_L;
    int j = 0;
    for (; j + 4 * L <= w; j += 4 * L) {
        frows_vf o0 = { 0 }, o1 = { 0 }, o2 = { 0 }, o3 = { 0 };
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *r = rows[k] + j;
            o0 = o0 + c * FROWS_LD(r);
            o1 = o1 + c * FROWS_LD(r + L);
            o2 = o2 + c * FROWS_LD(r + 2 * L);
            o3 = o3 + c * FROWS_LD(r + 3 * L);
        }
        FROWS_ST(out + j, o0);
        FROWS_ST(out + j + L, o1);
        FROWS_ST(out + j + 2 * L, o2);
        FROWS_ST(out + j + 3 * L, o3);
    }
    for (; j + L <= w; j += L) {
        frows_vf o = { 0 };
        for (int k = 0; k < fw; k++) o = o + f[k] * FROWS_LD(rows[k] + j);
        FROWS_ST(out + j, o);
    }
    for (; j < w; j++) {
        float o = 0.0f;
        for (int k = 0; k < fw; k++) o += f[k] * rows[k][j];
        out[j] = o;
    }
}

/* ffilter_hpass with step 1: out[j] = 0 + f[0]*ext[j] + f[1]*ext[j+1] + ... */
static inline void frows_hpass(const float *f, int fw, const float *ext, float *out, int n)
{
    const int L = FROWS_L;
    int j = 0;
    for (; j + 4 * L <= n; j += 4 * L) {
        frows_vf o0 = { 0 }, o1 = { 0 }, o2 = { 0 }, o3 = { 0 };
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *e = ext + j + k;
            o0 = o0 + c * FROWS_LD(e);
            o1 = o1 + c * FROWS_LD(e + L);
            o2 = o2 + c * FROWS_LD(e + 2 * L);
            o3 = o3 + c * FROWS_LD(e + 3 * L);
        }
        FROWS_ST(out + j, o0);
        FROWS_ST(out + j + L, o1);
        FROWS_ST(out + j + 2 * L, o2);
        FROWS_ST(out + j + 3 * L, o3);
    }
    for (; j + L <= n; j += L) {
        frows_vf o = { 0 };
        for (int k = 0; k < fw; k++) o = o + f[k] * FROWS_LD(ext + j + k);
        FROWS_ST(out + j, o);
    }
    for (; j < n; j++) {
        float o = 0.0f;
        for (int k = 0; k < fw; k++) o += f[k] * ext[j + k];
        out[j] = o;
    }
}

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

/* Each of n rows (pitch floats apart) added left to right in float from 0,
 * into sums[r]: fvif_sum / fmot_sad_row's order per row; eight rows side by
 * side, each in its own accumulator. */
static inline void frows_sum_rows(const float *v, ptrdiff_t pitch, int n, int w, float *sums)
{
    int r = 0;
    for (; r + 8 <= n; r += 8) {
        const float *p = v + r * pitch;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f,
              a7 = 0.0f;
        for (int j = 0; j < w; j++) {
            a0 += p[j];
            a1 += p[pitch + j];
            a2 += p[2 * pitch + j];
            a3 += p[3 * pitch + j];
            a4 += p[4 * pitch + j];
            a5 += p[5 * pitch + j];
            a6 += p[6 * pitch + j];
            a7 += p[7 * pitch + j];
        }
        sums[r] = a0;
        sums[r + 1] = a1;
        sums[r + 2] = a2;
        sums[r + 3] = a3;
        sums[r + 4] = a4;
        sums[r + 5] = a5;
        sums[r + 6] = a6;
        sums[r + 7] = a7;
    }
    for (; r < n; r++) {
        const float *p = v + r * pitch;
        float a = 0.0f;
        for (int j = 0; j < w; j++) a += p[j];
        sums[r] = a;
    }
}

/* |a[j] - b[j]| of n rows of w samples (pitch floats apart) into d (rows
 * of w, packed) */
static inline void frows_absdiff_rows(const float *restrict a, const float *restrict b,
                                      ptrdiff_t pitch, int n, int w, float *restrict d)
{
    for (int r = 0; r < n; r++) {
        const float *pa = a + r * pitch, *pb = b + r * pitch;
        float *pd = d + (ptrdiff_t)r * w;
        for (int j = 0; j < w; j++) pd[j] = fabsf(pa[j] - pb[j]);
    }
}

/* The kernels of one SIMD level, behind pointers (selected once per stream
 * by tvmaf_frows_dsp_init). */
typedef struct FrowsKernels {
    void (*vpass)(const float *f, int fw, const float *const *rows, float *out, int w);
    void (*hpass)(const float *f, int fw, const float *ext, float *out, int n);
    void (*vpass5)(const float *f, int fw, const float *const *a, const float *const *b, int w,
                   float *mu1, float *mu2, float *xx, float *yy, float *xy);
    void (*stat_px)(const float *mu1, const float *mu2, const float *xx, const float *yy,
                    const float *xy, int w, const FvifStatParams *p, float *num, float *den);
    void (*sum_rows)(const float *v, ptrdiff_t pitch, int n, int w, float *sums);
    void (*absdiff_rows)(const float *a, const float *b, ptrdiff_t pitch, int n, int w,
                         float *d);
} FrowsKernels;

/* Out-of-line copies of the kernels in the including translation unit's
 * instruction set, as the set `name`. */
#define FROWS_KERNELS_DEFINE(name)                                                           \
    static void frows_o_vpass(const float *f, int fw, const float *const *rows, float *out,  \
                              int w)                                                         \
    { frows_vpass(f, fw, rows, out, w); }                                                    \
    static void frows_o_hpass(const float *f, int fw, const float *ext, float *out, int n)   \
    { frows_hpass(f, fw, ext, out, n); }                                                     \
    static void frows_o_vpass5(const float *f, int fw, const float *const *a,                \
                               const float *const *b, int w, float *mu1, float *mu2,         \
                               float *xx, float *yy, float *xy)                              \
    { frows_vpass5(f, fw, a, b, w, mu1, mu2, xx, yy, xy); }                                  \
    static void frows_o_stat_px(const float *mu1, const float *mu2, const float *xx,         \
                                const float *yy, const float *xy, int w,                     \
                                const FvifStatParams *p, float *num, float *den)             \
    { frows_stat_px(mu1, mu2, xx, yy, xy, w, p, num, den); }                                 \
    static void frows_o_sum_rows(const float *v, ptrdiff_t pitch, int n, int w, float *sums) \
    { frows_sum_rows(v, pitch, n, w, sums); }                                                \
    static void frows_o_absdiff_rows(const float *a, const float *b, ptrdiff_t pitch, int n, \
                                     int w, float *d)                                        \
    { frows_absdiff_rows(a, b, pitch, n, w, d); }                                            \
    const FrowsKernels name = { frows_o_vpass, frows_o_hpass, frows_o_vpass5,               \
                                frows_o_stat_px, frows_o_sum_rows, frows_o_absdiff_rows }

extern const FrowsKernels tvmaf_frows_kernels_c;
#if TVMAF_X86_SIMD
extern const FrowsKernels tvmaf_frows_kernels_avx2, tvmaf_frows_kernels_avx512,
    tvmaf_frows_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set, then
 * each x86 level (TVMAF_DSP_INIT_X86). Defined in float_vif.c; float_vif
 * and float_motion call it. */
void tvmaf_frows_dsp_init(FrowsKernels *c, unsigned cpu_flags);

#endif
