/*
 * vif on the CPU: the row kernels, written once and compiled once per SIMD
 * level (vif.c: the C baseline; vif_x86.c: AVX2 and AVX-512). Every kernel is
 * integer arithmetic up to vif_pixel, whose double operations are per pixel
 * and in the C order (-ffp-contract=off), and whose sums are integers; so the
 * code a level's compiler makes of it returns the C kernel's bits (checked by
 * tests/checkasm/vif.c).
 *
 * The loops are arranged for the compiler's vectoriser, never changing a
 * value: the vertical passes take the taps in the outer loop over blocks of
 * VIF_BLOCK contiguous columns; the horizontal pass of the statistic is
 * inlined per scale with a constant tap count; and products are split so
 * that every multiply is 16 by 16 bits into 32 (exact integer sums, equal to
 * the reference's wider products whatever the grouping).
 *
 * One row of vertical-pass results is 16-bit, with VIF_MAX_HALF samples of
 * mirrored padding on both sides. A mean fits 16 bits; a 32-bit moment is
 * kept as its low and high halves, so the horizontal pass multiplies 16 by 16
 * bits only (sum of c * v = sum of c * lo + 2^16 * sum of c * hi, each partial
 * sum below 65536 * 65535 < 2^32). The low-pass uses rows VIF_MU1 and VIF_MU2
 * for its reference and distorted.
 *
 * A row holds each value v as v ^ VIF_ROW_FLIP, its top bit flipped: the
 * vector horizontal passes read a word as the signed factor v - 2^15 of
 * vpmaddwd, so the flip is made once, by the store of the vertical pass,
 * rather than at each of the filter's loads of the value or in a copy of
 * the row (vif_row_put, vif_row_get). A row buffer is readable
 * VIF_ROW_SLACK samples past its right padding: a vector horizontal pass
 * loads whole vectors there, whose words meet no tap of a column it keeps.
 */
#ifndef TVMAF_VIF_CPU_H
#define TVMAF_VIF_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "feature/vif/vif_math.h"

/* Columns a kernel takes as one block. The statistic reduces its vector sums
 * once a block (128 took 3% less time than 64 with AVX-512; 256 no less);
 * the 32-bit lane sums of vif_x86.c stay far inside their bounds at any
 * block of a few thousand columns. */
#define VIF_BLOCK 128

/*
 * The log2 table in the two forms the statistic reads. entry is
 * vif_log2_table_fill's (2048 log2 of 2^15 + i). resid is the same entry
 * less VIF_LOG2_BASE and the chord i / 16 of 2048 log2 over the table's
 * octave: entry[i] = VIF_LOG2_BASE + (i >> 4) + resid[i], resid[i] in
 * [0, 177] (log2 lies above its chord by at most 0.0861 of the octave, 176.3
 * of 2048; vif_log2_fill checks the bound). The vector levels add the
 * chord term in their lanes and only the residual bytes by table look-up: 32
 * KB instead of 64 KB, so that the look-ups miss the L1 cache less.
 */
typedef struct VifLog2 {
    uint16_t entry[VIF_LOG2_TABLE_LEN];
    uint8_t resid[VIF_LOG2_TABLE_LEN];
} VifLog2;

/* Fills *t; false if a residual fell outside a byte (it cannot for the
 * reference's table: tests/checkasm/vif.c checks it at every run). */
static inline __attribute__((unused)) bool vif_log2_fill(VifLog2 *t)
{
    bool ok = true;
    vif_log2_table_fill(t->entry, vif_log2_steps);
    for (unsigned i = 0; i < VIF_LOG2_TABLE_LEN; i++) {
        const int r = (int)t->entry[i] - VIF_LOG2_BASE - (int)(i >> 4);
        ok &= r >= 0 && r <= 255;
        t->resid[i] = (uint8_t)r;
    }
    return ok;
}

#define VIF_ROW_FLIP 0x8000u
#define VIF_ROW_SLACK 32u

/* The stored form of a value of a vertical-pass row (its low 16 bits), and
 * the value back from it. */
static inline __attribute__((unused)) uint16_t vif_row_put(uint32_t v)
{
    return (uint16_t)((uint16_t)v ^ VIF_ROW_FLIP);
}
static inline __attribute__((unused)) uint32_t vif_row_get(uint16_t s)
{
    return (uint16_t)(s ^ VIF_ROW_FLIP);
}

enum { VIF_MU1, VIF_MU2, VIF_XX_LO, VIF_XX_HI, VIF_YY_LO, VIF_YY_HI, VIF_XY_LO, VIF_XY_HI,
       VIF_N_ROWS };

/*
 * The horizontal pass hands the statistic each low-half row's sums plus
 * VIF_MOMENT_HALF, the rounding term of the moment's final >> 16
 * (vif_pixel_ref's (xx + 2^15) >> 16), so the vector statistic takes a moment
 * as hi + (lo >> 16) with no carry to form: the 32-bit halves' sum plus the
 * term is the same integer. It fits 32 bits: a low-half sum is at most
 * 65536 * 65535 = 2^32 - 2^16 (the taps sum to 2^16). Every level's
 * VIF_FILTER_ROWS adds it and its VIF_PIXELS takes it.
 */
#define VIF_MOMENT_HALF 32768u
static inline __attribute__((unused)) bool vif_low_half_row(unsigned q)
{
    return q == VIF_XX_LO || q == VIF_YY_LO || q == VIF_XY_LO;
}

/* The moment of column b before its >> 16, from the halves' sums (the low
 * one carrying VIF_MOMENT_HALF). */
static inline __attribute__((unused)) uint64_t
vif_moment_at(uint32_t (*acc)[VIF_BLOCK], unsigned lo, unsigned b)
{
    return acc[lo][b] - VIF_MOMENT_HALF + ((uint64_t)acc[lo + 1][b] << 16);
}

typedef struct VifKernels {
    /* statistic, vertical pass of output row i into rows out[VIF_N_ROWS][0..w):
     * 8-bit samples (scale 0 of 8-bit input) */
    void (*stat_vertical_8)(uint16_t *const *out, const uint8_t *ref, ptrdiff_t ref_stride,
                            const uint8_t *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                            unsigned i, unsigned mu_shift, unsigned sq_shift);
    /* ... output rows i and i + 1 at once (i + 1 < h) into out0 and out1:
     * 18 sample rows feed both, each read and squared once; with down_r
     * non-NULL, also down_vertical's row i into scale 1 (down_r, down_d,
     * shifted by down_shift), whose 9 sample rows are among the 18 */
    void (*stat_vertical_8x2)(uint16_t *const *out0, uint16_t *const *out1, const uint8_t *ref,
                              ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
                              unsigned w, unsigned h, unsigned i, unsigned mu_shift,
                              unsigned sq_shift, uint16_t *down_r, uint16_t *down_d,
                              unsigned down_shift);
    /* ... 16-bit samples, with scale's filter */
    void (*stat_vertical_16)(uint16_t *const *out, const uint16_t *ref, ptrdiff_t ref_stride,
                             const uint16_t *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                             unsigned i, unsigned scale, unsigned mu_shift, unsigned sq_shift);
    /* ... output rows i and i + 1 at once (i + 1 < h) into out0 and out1 */
    void (*stat_vertical_16x2)(uint16_t *const *out0, uint16_t *const *out1,
                               const uint16_t *ref, ptrdiff_t ref_stride, const uint16_t *dis,
                               ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                               unsigned scale, unsigned mu_shift, unsigned sq_shift);
    /* statistic, horizontal pass and per-pixel terms of one row of padded
     * vertical-pass rows, added into *sums */
    void (*stat_horizontal)(uint16_t *const *row, unsigned w, unsigned scale,
                            const VifLog2 *log2, double gain_limit, VifSums *sums);
    /* low-pass into scale next, vertical pass of source row i */
    void (*down_vertical)(uint16_t *out_r, uint16_t *out_d, const void *ref, ptrdiff_t ref_stride,
                          const void *dis, ptrdiff_t dis_stride, bool is8, unsigned w, unsigned h,
                          unsigned i, unsigned next, unsigned shift);
    /* low-pass into scale next, horizontal pass at the even columns of the
     * padded rows rr, rd: w2 samples each into out_r, out_d */
    void (*down_horizontal)(uint16_t *out_r, uint16_t *out_d, const uint16_t *rr,
                            const uint16_t *rd, unsigned w2, unsigned next);
} VifKernels;

extern const VifKernels tvmaf_vif_kernels_c;
#if TVMAF_X86_SIMD
extern const VifKernels tvmaf_vif_kernels_avx2, tvmaf_vif_kernels_avx512,
    tvmaf_vif_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set,
 * then each x86 level (TVMAF_DSP_INIT_X86, core/cpu.h). The extractor and
 * tests/checkasm call it. */
void tvmaf_vif_dsp_init(VifKernels *c, unsigned cpu_flags);

#endif /* TVMAF_VIF_CPU_H */

/* The kernels' code, for the file that instantiates a set (once per file). */
#if defined(VIF_KERNELS_IMPL) && !defined(TVMAF_VIF_KERNELS_IMPL_H)
#define TVMAF_VIF_KERNELS_IMPL_H

static inline const void *vif_row_at(const void *base, ptrdiff_t stride, int r)
{
    return (const char *)base + r * stride;
}

/* Stores a moment (at most 32 bits) as its two 16-bit halves. */
static inline void vif_put_split(uint16_t *const *row, unsigned which, unsigned j, uint32_t v)
{
    row[which][j] = vif_row_put(v);
    row[which + 1][j] = vif_row_put(v >> 16);
}

/* 8-bit scale 0: a squared or cross sample fits 16 bits and every sum fits
 * 32 bits (65536 * 255^2 < 2^32). */
static __attribute__((unused)) void vif_stat_vertical_8(uint16_t *const *out, const uint8_t *ref, ptrdiff_t ref_stride,
                                const uint8_t *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                                unsigned i, unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[0];
    const uint16_t *taps = vif_filter_taps[0];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t m1[VIF_BLOCK] = { 0 }, m2[VIF_BLOCK] = { 0 };
        uint32_t xx[VIF_BLOCK] = { 0 }, yy[VIF_BLOCK] = { 0 }, xy[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_tap_row(i, k, fw, h);
            const uint8_t *pr = (const uint8_t *)vif_row_at(ref, ref_stride, r) + j0;
            const uint8_t *pd = (const uint8_t *)vif_row_at(dis, dis_stride, r) + j0;
            const uint16_t c = taps[k];
            for (unsigned b = 0; b < n; b++) {
                const uint16_t x = pr[b], y = pd[b];
                m1[b] += (uint32_t)c * x;
                m2[b] += (uint32_t)c * y;
                xx[b] += (uint32_t)c * (uint16_t)(x * x);
                yy[b] += (uint32_t)c * (uint16_t)(y * y);
                xy[b] += (uint32_t)c * (uint16_t)(x * y);
            }
        }
        for (unsigned b = 0; b < n; b++) {
            const unsigned j = j0 + b;
            out[VIF_MU1][j] = vif_row_put(vif_round_shift32(m1[b], mu_shift));
            out[VIF_MU2][j] = vif_row_put(vif_round_shift32(m2[b], mu_shift));
            vif_put_split(out, VIF_XX_LO, j, vif_round_shift32(xx[b], sq_shift));
            vif_put_split(out, VIF_YY_LO, j, vif_round_shift32(yy[b], sq_shift));
            vif_put_split(out, VIF_XY_LO, j, vif_round_shift32(xy[b], sq_shift));
        }
    }
}

/* 9..16-bit samples (input above 8 bits, and every scale after 0): the means
 * fit 32 bits; a moment's sum reaches 48 bits before its shift and is kept
 * as the sums of the low and high halves of the 32-bit sample products. */
static __attribute__((unused)) void vif_stat_vertical_16(uint16_t *const *out, const uint16_t *ref, ptrdiff_t ref_stride,
                                 const uint16_t *dis, ptrdiff_t dis_stride, unsigned w,
                                 unsigned h, unsigned i, unsigned scale, unsigned mu_shift,
                                 unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t m1[VIF_BLOCK] = { 0 }, m2[VIF_BLOCK] = { 0 };
        uint32_t xl[VIF_BLOCK] = { 0 }, xh[VIF_BLOCK] = { 0 }, yl[VIF_BLOCK] = { 0 };
        uint32_t yh[VIF_BLOCK] = { 0 }, cl[VIF_BLOCK] = { 0 }, ch[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_tap_row(i, k, fw, h);
            const uint16_t *pr = (const uint16_t *)vif_row_at(ref, ref_stride, r) + j0;
            const uint16_t *pd = (const uint16_t *)vif_row_at(dis, dis_stride, r) + j0;
            const uint16_t c = taps[k];
            for (unsigned b = 0; b < n; b++) {
                const uint16_t x = pr[b], y = pd[b];
                const uint32_t x2 = (uint32_t)x * x, y2 = (uint32_t)y * y, xy = (uint32_t)x * y;
                m1[b] += (uint32_t)c * x;
                m2[b] += (uint32_t)c * y;
                xl[b] += (uint32_t)c * (uint16_t)x2;
                xh[b] += (uint32_t)c * (uint16_t)(x2 >> 16);
                yl[b] += (uint32_t)c * (uint16_t)y2;
                yh[b] += (uint32_t)c * (uint16_t)(y2 >> 16);
                cl[b] += (uint32_t)c * (uint16_t)xy;
                ch[b] += (uint32_t)c * (uint16_t)(xy >> 16);
            }
        }
        for (unsigned b = 0; b < n; b++) {
            const unsigned j = j0 + b;
            out[VIF_MU1][j] = vif_row_put(vif_round_shift32(m1[b], mu_shift));
            out[VIF_MU2][j] = vif_row_put(vif_round_shift32(m2[b], mu_shift));
            vif_put_split(out, VIF_XX_LO, j,
                          vif_round_shift64(xl[b] + ((uint64_t)xh[b] << 16), sq_shift));
            vif_put_split(out, VIF_YY_LO, j,
                          vif_round_shift64(yl[b] + ((uint64_t)yh[b] << 16), sq_shift));
            vif_put_split(out, VIF_XY_LO, j,
                          vif_round_shift64(cl[b] + ((uint64_t)ch[b] << 16), sq_shift));
        }
    }
}

/* out[b] = sum over k < fw of taps[k] * v[b + k], for b < n. Inlined with a
 * constant fw, so the tap loop unrolls and the sums stay in registers. The
 * taps are symmetric: the two samples of a tap pair are added first (below
 * 2^17, times a tap below 2^15), the same integer with half the products. */
static inline __attribute__((always_inline)) void
vif_filter_row(uint32_t *out, const uint16_t *v, unsigned n, const uint16_t *taps, unsigned fw)
{
    const unsigned half = fw / 2;
    for (unsigned b = 0; b < n; b++) {
        uint32_t a = (uint32_t)taps[half] * vif_row_get(v[b + half]);
        for (unsigned k = 0; k < half; k++)
            a += (uint32_t)taps[k] * (vif_row_get(v[b + k]) + vif_row_get(v[b + fw - 1 - k]));
        out[b] = a;
    }
}

static inline __attribute__((always_inline, unused)) void
vif_filter_rows(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                const uint16_t *taps, unsigned fw)
{
    for (unsigned q = 0; q < VIF_N_ROWS; q++) {
        vif_filter_row(acc[q], row[q] + o, n, taps, fw);
        if (vif_low_half_row(q))
            for (unsigned b = 0; b < n; b++) acc[q][b] += VIF_MOMENT_HALF;
    }
}

/* vif_pixel over the n positions of one block of horizontal-pass sums. A
 * level may define VIF_PIXELS to a vector version of this loop before
 * including this header (same integers, the same double operations per
 * pixel). */
static inline __attribute__((always_inline)) void
vif_pixels(VifSums *row, uint32_t (*acc)[VIF_BLOCK], unsigned n, const VifLog2 *log2,
           double gain_limit)
{
    for (unsigned b = 0; b < n; b++) {
        vif_pixel(row, acc[VIF_MU1][b], acc[VIF_MU2][b], vif_moment_at(acc, VIF_XX_LO, b),
                  vif_moment_at(acc, VIF_YY_LO, b), vif_moment_at(acc, VIF_XY_LO, b), log2->entry,
                  gain_limit);
    }
}
#ifndef VIF_PIXELS
#define VIF_PIXELS vif_pixels
#endif

/* A level may define VIF_FILTER_ROWS likewise. Its sums may be stored in
 * any order of columns within a block, the same order in every row q: each
 * column's terms in vif_pixels are integers added to the row's integer sums,
 * so the order of the columns does not change them. */
#ifndef VIF_FILTER_ROWS
#define VIF_FILTER_ROWS vif_filter_rows
#endif

static void vif_stat_horizontal(uint16_t *const *rows, unsigned w, unsigned scale,
                                const VifLog2 *log2, double gain_limit, VifSums *sums)
{
    const unsigned fw = vif_filter_width[scale];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[scale];
    /* this row's terms, kept local so they can live in registers */
    VifSums row = { 0, 0, 0, 0 };
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        const int o = (int)j0 - half;
        uint32_t acc[VIF_N_ROWS][VIF_BLOCK];
        switch (scale) {
        case 0: VIF_FILTER_ROWS(acc, rows, o, n, taps, 17); break;
        case 1: VIF_FILTER_ROWS(acc, rows, o, n, taps, 9); break;
        case 2: VIF_FILTER_ROWS(acc, rows, o, n, taps, 5); break;
        default: VIF_FILTER_ROWS(acc, rows, o, n, taps, 3); break;
        }
        VIF_PIXELS(&row, acc, n, log2, gain_limit);
    }
    vif_sums_add(sums, &row);
}

/* Sums fit 32 bits and the shifted results 16. */
static __attribute__((unused)) void vif_down_vertical(uint16_t *out_r, uint16_t *out_d, const void *ref,
                              ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                              bool is8, unsigned w, unsigned h, unsigned i, unsigned next,
                              unsigned shift)
{
    const unsigned fw = vif_filter_width[next];
    const uint16_t *taps = vif_filter_taps[next];
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t ar[VIF_BLOCK] = { 0 }, ad[VIF_BLOCK] = { 0 };
        for (unsigned k = 0; k < fw; k++) {
            const int r = vif_tap_row(i, k, fw, h);
            const uint16_t c = taps[k];
            if (is8) {
                const uint8_t *pr = (const uint8_t *)vif_row_at(ref, ref_stride, r) + j0;
                const uint8_t *pd = (const uint8_t *)vif_row_at(dis, dis_stride, r) + j0;
                for (unsigned b = 0; b < n; b++) {
                    ar[b] += (uint32_t)c * (uint16_t)pr[b];
                    ad[b] += (uint32_t)c * (uint16_t)pd[b];
                }
            } else {
                const uint16_t *pr = (const uint16_t *)vif_row_at(ref, ref_stride, r) + j0;
                const uint16_t *pd = (const uint16_t *)vif_row_at(dis, dis_stride, r) + j0;
                for (unsigned b = 0; b < n; b++) {
                    ar[b] += (uint32_t)c * pr[b];
                    ad[b] += (uint32_t)c * pd[b];
                }
            }
        }
        for (unsigned b = 0; b < n; b++) {
            out_r[j0 + b] = (uint16_t)vif_round_shift32(ar[b], shift);
            out_d[j0 + b] = (uint16_t)vif_round_shift32(ad[b], shift);
        }
    }
}

static __attribute__((unused)) void vif_down_horizontal(uint16_t *out_r, uint16_t *out_d, const uint16_t *rr,
                                const uint16_t *rd, unsigned w2, unsigned next)
{
    const unsigned fw = vif_filter_width[next];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[next];
    for (unsigned oj = 0; oj < w2; oj++) {
        const uint16_t *pr = rr + 2 * (int)oj - half, *pd = rd + 2 * (int)oj - half;
        uint32_t ar = 0, ad = 0;
        for (unsigned k = 0; k < fw; k++) {
            ar += (uint32_t)taps[k] * pr[k];
            ad += (uint32_t)taps[k] * pd[k];
        }
        out_r[oj] = vif_down_sample(ar);
        out_d[oj] = vif_down_sample(ad);
    }
}

#endif /* VIF_KERNELS_IMPL */

/*
 * A set's table, for the end of the file that instantiates it (with
 * VIF_KERNELS_SET defined), after its level's kernels: a level replaces a
 * kernel by defining its name (VIF_STAT_VERTICAL_8, ...) to its own; the
 * others are the C kernels. The pair kernels, unless a level has its own,
 * are two calls of the set's one-row kernel (and, for 8-bit samples, one of
 * its low-pass kernel).
 */
#if defined(VIF_KERNELS_SET) && !defined(TVMAF_VIF_KERNELS_SET_H)
#define TVMAF_VIF_KERNELS_SET_H

#ifndef VIF_STAT_VERTICAL_8
#define VIF_STAT_VERTICAL_8 vif_stat_vertical_8
#endif
#ifndef VIF_STAT_VERTICAL_16
#define VIF_STAT_VERTICAL_16 vif_stat_vertical_16
#endif
#ifndef VIF_DOWN_VERTICAL
#define VIF_DOWN_VERTICAL vif_down_vertical
#endif
#ifndef VIF_DOWN_HORIZONTAL
#define VIF_DOWN_HORIZONTAL vif_down_horizontal
#endif

#ifndef VIF_STAT_VERTICAL_8X2
static void vif_stat_vertical_8x2(uint16_t *const *out0, uint16_t *const *out1,
                                  const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                                  ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                  unsigned mu_shift, unsigned sq_shift, uint16_t *down_r,
                                  uint16_t *down_d, unsigned down_shift)
{
    VIF_STAT_VERTICAL_8(out0, ref, ref_stride, dis, dis_stride, w, h, i, mu_shift, sq_shift);
    VIF_STAT_VERTICAL_8(out1, ref, ref_stride, dis, dis_stride, w, h, i + 1, mu_shift, sq_shift);
    if (down_r)
        VIF_DOWN_VERTICAL(down_r, down_d, ref, ref_stride, dis, dis_stride, true, w, h, i, 1,
                          down_shift);
}
#define VIF_STAT_VERTICAL_8X2 vif_stat_vertical_8x2
#endif

#ifndef VIF_STAT_VERTICAL_16X2
static void vif_stat_vertical_16x2(uint16_t *const *out0, uint16_t *const *out1,
                                   const uint16_t *ref, ptrdiff_t ref_stride, const uint16_t *dis,
                                   ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                   unsigned scale, unsigned mu_shift, unsigned sq_shift)
{
    VIF_STAT_VERTICAL_16(out0, ref, ref_stride, dis, dis_stride, w, h, i, scale, mu_shift,
                         sq_shift);
    VIF_STAT_VERTICAL_16(out1, ref, ref_stride, dis, dis_stride, w, h, i + 1, scale, mu_shift,
                         sq_shift);
}
#define VIF_STAT_VERTICAL_16X2 vif_stat_vertical_16x2
#endif

#define VIF_KERNELS_INIT { VIF_STAT_VERTICAL_8, VIF_STAT_VERTICAL_8X2, VIF_STAT_VERTICAL_16, \
                           VIF_STAT_VERTICAL_16X2, vif_stat_horizontal, \
                           VIF_DOWN_VERTICAL, VIF_DOWN_HORIZONTAL }

#endif /* VIF_KERNELS_SET */
