/*
 * CPU row kernels of the separable float filter (float_filter.h's
 * ffilter_vpass and ffilter_hpass), and rows' sums and absolute differences
 * (float_vif's sums, float_motion's SAD), written for the SIMD level of the
 * translation unit that includes this header: float_rows.c (the baseline)
 * and float_rows_x86.c (compiled once per x86 level). float_vif and
 * float_motion use them; float_vif's own row kernels (its five-quantity
 * vertical pass and statistic) are float_vif/float_vif_cpu.h's.
 *
 * Why every level gives the reference's bits: the vectors run ACROSS output
 * samples, one lane per sample. Each lane performs the scalar code's chain
 * of float operations for its sample: the accumulator starts at +0.0f and
 * takes acc + f[k] * x (a separate multiply and add, rounded each; the build
 * forbids contraction with -ffp-contract=off and no level enables FMA), taps
 * in index order. Blocks of columns only change which samples are computed
 * together, never the operations of one. The row sums stay sequential float
 * sums in the reference's order (several rows may be summed side by side,
 * each in its own accumulator, left to right).
 */
#ifndef TVMAF_FEATURE_COMMON_FLOAT_ROWS_H
#define TVMAF_FEATURE_COMMON_FLOAT_ROWS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tvmaf_config.h"

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
    static void frows_o_sum_rows(const float *v, ptrdiff_t pitch, int n, int w, float *sums) \
    { frows_sum_rows(v, pitch, n, w, sums); }                                                \
    static void frows_o_absdiff_rows(const float *a, const float *b, ptrdiff_t pitch, int n, \
                                     int w, float *d)                                        \
    { frows_absdiff_rows(a, b, pitch, n, w, d); }                                            \
    const FrowsKernels name = { frows_o_vpass, frows_o_hpass, frows_o_sum_rows,             \
                                frows_o_absdiff_rows }

extern const FrowsKernels tvmaf_frows_kernels_c;
#if TVMAF_X86_SIMD
extern const FrowsKernels tvmaf_frows_kernels_avx2, tvmaf_frows_kernels_avx512,
    tvmaf_frows_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set, then
 * each x86 level (TVMAF_DSP_INIT_X86). float_vif, float_motion and
 * tests/checkasm call it. */
void tvmaf_frows_dsp_init(FrowsKernels *c, unsigned cpu_flags);

#endif
