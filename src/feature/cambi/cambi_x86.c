/*
 * cambi's row kernels compiled for one x86 SIMD level (the build compiles
 * this file once per level, TVMAF_SIMD_SUFFIX naming the set). The dense
 * passes are cambi_cpu.h's loops in the level's instruction set. The
 * histogram updates and the c-values are written out below:
 *
 *   - hist_row finds, a vector of columns at a time, the pixels that enter
 *     or leave the histograms (masked, in the band, and not the same value
 *     leaving and entering), gathers them into runs (cambi_cpu.h) and adds
 *     each run's counts to its histogram row in aligned vectors of cells,
 *     the cells outside the run's span left as they are. 16-bit cells
 *     wrapping as the C's uint16_t; integer counts, so the order of the
 *     updates does not matter.
 *   - cval_row computes per lane what cambi_c_value computes: the gates,
 *     p0 and the larger of the two neighbours' counts from the same cells
 *     (a gather of 32 bits at a 16-bit cell, the upper half dropped; the
 *     histogram has padding after its last cell; or, where every active
 *     lane holds the same value, plain loads of the same cells), the exact
 *     integer product converted to float (one rounding, as the C's
 *     conversion), the float product with the same reciprocal entry and the
 *     running maximum (max(c, val) is val when c > val is false, the C's
 *     `if (val > c)`, for values that are never NaN).
 */
#include "core/cpu.h"
#include "feature/cambi/cambi_cpu.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>

static const int16_t iota16[32] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

/* cambi_k_run_cells in aligned vectors of 32 cells (16-bit lanes: every
 * quantity is below 2^15) */
ALWAYS_INLINE void run_cells_avx512(const CambiRows *c, const CambiRun *r, bool leave)
{
    int a, b, lo, hi, cap;
    uint16_t *h = cambi_k_run_span(c, r, &a, &b, &lo, &hi, &cap);
    const __m512i iota = _mm512_loadu_si512(iota16);
    const __m512i ka = _mm512_set1_epi16((short)(1 - a)), kb = _mm512_set1_epi16((short)(b + 1));
    const __m512i kcap = _mm512_set1_epi16((short)cap);
    const __m512i klo = _mm512_set1_epi16((short)lo), khi = _mm512_set1_epi16((short)hi);
    for (int x = lo & ~31; x < hi; x += 32) {
        const __m512i cc = _mm512_add_epi16(_mm512_set1_epi16((short)x), iota);
        const __m512i n = _mm512_min_epi16(
            _mm512_min_epi16(_mm512_add_epi16(cc, ka), _mm512_sub_epi16(kb, cc)), kcap);
        const __mmask32 m = _mm512_cmpge_epi16_mask(cc, klo) & _mm512_cmplt_epi16_mask(cc, khi);
        const __m512i v = _mm512_load_si512(h + x);
        _mm512_store_si512(h + x, leave ? _mm512_mask_sub_epi16(v, m, v, n)
                                        : _mm512_mask_add_epi16(v, m, v, n));
    }
}

/* the lanes of 32 columns whose pixel is masked and in the band */
ALWAYS_INLINE __mmask32 takes_avx512(const CambiRows *c, const uint16_t *img, const uint8_t *mask,
                                     __mmask32 lanes, __m512i *v)
{
    const __m256i m = _mm256_maskz_loadu_epi8(lanes, mask);
    *v = _mm512_maskz_loadu_epi16(lanes, img);
    const __m512i t = _mm512_sub_epi16(*v, _mm512_set1_epi16((short)c->band.base));
    return _mm256_test_epi8_mask(m, m) &
           _mm512_cmplt_epu16_mask(t, _mm512_set1_epi16((short)c->band.size));
}

/*
 * The runs of one side (leaving or entering) in 32 columns: m the columns
 * with a pixel, v their values (img's), prev the values of the 32 columns before
 * (0 before the first). A column continues the run of the column before
 * when both have a pixel of the same value (as cambi_k_run_push decides
 * pixel by pixel); the columns that do not continue start runs. Returns
 * whether the last column has a pixel (the carry into the next 32).
 */
ALWAYS_INLINE bool runs_avx512(const CambiRows *c, CambiRun *run, const uint16_t *img, int x0,
                               uint32_t m, __m512i v, __m512i prev, bool carry, bool leave)
{
    static const int16_t back[32] = {
        63, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
        15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    };
    if (!m) return false;
    /* lane i: the value of column i - 1 */
    const __m512i before = _mm512_permutex2var_epi16(v, _mm512_loadu_si512(back), prev);
    const uint32_t cont = m & ((m << 1) | (uint32_t)carry) & _mm512_cmpeq_epi16_mask(v, before);
    uint32_t starts = m & ~cont;
    /* the columns from 0 that continue the open run */
    run->len += (int)_tzcnt_u32(~cont);
    for (; starts; starts &= starts - 1) {
        const unsigned i = _tzcnt_u32(starts);
        if (run->len) run_cells_avx512(c, run, leave);
        run->x0 = x0 + (int)i;
        run->len = 1 + (i < 31 ? (int)_tzcnt_u32(~(cont >> (i + 1))) : 0);
        run->v = img[x0 + (int)i];
    }
    return m >> 31;
}

static void hist_row_avx512(const CambiRows *c, const uint16_t *io, const uint8_t *mo,
                            const uint16_t *ii, const uint8_t *mi)
{
    CambiRun ro = { 0, 0, 0 }, ri = { 0, 0, 0 };
    __m512i po = _mm512_setzero_si512(), pi = _mm512_setzero_si512();
    bool co = false, ci = false;
    for (int x0 = 0; x0 < c->cols; x0 += 32) {
        const int n = c->cols - x0;
        const __mmask32 lanes = n >= 32 ? ~0u : _bzhi_u32(~0u, (unsigned)n);
        __m512i vo = _mm512_setzero_si512(), vi = _mm512_setzero_si512();
        uint32_t out = io ? takes_avx512(c, io + x0, mo + x0, lanes, &vo) : 0;
        uint32_t in = ii ? takes_avx512(c, ii + x0, mi + x0, lanes, &vi) : 0;
        const uint32_t same = out & in & _mm512_cmpeq_epi16_mask(vo, vi);
        co = runs_avx512(c, &ro, io, x0, out & ~same, vo, po, co, true);
        ci = runs_avx512(c, &ri, ii, x0, in & ~same, vi, pi, ci, false);
        po = vo;
        pi = vi;
    }
    cambi_k_runs_end(c, &ro, &ri, run_cells_avx512);
}
#undef CAMBI_HIST_ROW
#define CAMBI_HIST_ROW hist_row_avx512

/* 32-bit gathers at 16-bit cells, the upper half dropped */
ALWAYS_INLINE __m512i cells_avx512(const uint16_t *hist, __mmask16 m, __m512i row, __m512i pitch,
                                   __m512i col)
{
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(row, pitch), col);
    const __m512i g = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx, hist, 2);
    return _mm512_and_si512(g, _mm512_set1_epi32(0xffff));
}

/* the cells of histogram row `row` at 16 columns (row >= 0) */
ALWAYS_INLINE __m512i row_cells_avx512(const uint16_t *col0, int pitch, __mmask16 m, int row)
{
    return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, col0 + (ptrdiff_t)row * pitch));
}

/* the c-value candidate of step d from its counts, kept where g */
ALWAYS_INLINE __m512 step_max_avx512(const CambiRows *c, __m512 cval, __mmask16 g, int d,
                                     __m512i p0, __m512i pu, __m512i pdn)
{
    const __m512i pd = _mm512_max_epu32(pu, pdn);
    const __m512i prod = _mm512_mullo_epi32(
        _mm512_mullo_epi32(_mm512_set1_epi32(cambi_contrast_weight(d)), p0), pd);
    const __m512 rc = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), g, _mm512_add_epi32(p0, pd),
                                               c->recip, 4);
    const __m512 val = _mm512_mul_ps(_mm512_cvtepi32_ps(prod), rc);
    return _mm512_mask_max_ps(cval, g, cval, val);
}

static void cval_row_avx512(const CambiRows *c, const uint16_t *img, const uint8_t *mask,
                            float *cv, CambiCvalStats *st)
{
    const int w = c->w, nd = c->num_diffs, pitch = c->pitch;
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i base = _mm512_set1_epi32(c->band.base), size = _mm512_set1_epi32(c->band.size);
    const __m512i vpitch = _mm512_set1_epi32(pitch), ndv = _mm512_set1_epi32(nd);
    const __m512i vlt = _mm512_set1_epi32(c->vlt_code), zero = _mm512_setzero_si512();
    const __m512 fzero = _mm512_setzero_ps(), half = _mm512_set1_ps(0.5f);
    __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
    uint32_t nnz = 0, odd = 0;
    for (int x0 = 0; x0 < w; x0 += 16) {
        const int n = w - x0;
        const __mmask16 lanes = n >= 16 ? (__mmask16)0xffff : (__mmask16)_bzhi_u32(~0u, (unsigned)n);
        const __m128i m8 = _mm_maskz_loadu_epi8(lanes, mask + x0);
        __mmask16 act = _mm_test_epi8_mask(m8, m8);
        if (!act) {
            _mm512_mask_storeu_ps(cv + x0, lanes, fzero);
            continue;
        }
        const __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, img + x0));
        const __m512i r0 = _mm512_sub_epi32(v, base);
        act &= _mm512_cmplt_epu32_mask(r0, size);
        __m512 cval = fzero;
        if (act) {
            const int v0 = img[x0 + (int)_tzcnt_u32(act)];
            if ((_mm512_cmpeq_epi32_mask(v, _mm512_set1_epi32(v0)) & act) == act) {
                /* one value: its gates are the same in every lane, its
                 * cells consecutive */
                const int r = v0 - c->band.base, sh = v0 + nd;
                const uint16_t *col0 = c->hist + x0;
                const __m512i p0 = row_cells_avx512(col0, pitch, act, r);
                for (int d = 0; d < nd; d++) {
                    if (!(sh <= c->limit[d] && sh + d + 1 > c->vlt_code)) continue;
                    const __m512i pu = row_cells_avx512(col0, pitch, act, r + d + 1);
                    const __m512i pdn = r - d - 1 >= 0 ? row_cells_avx512(col0, pitch, act, r - d - 1)
                                                       : zero;
                    cval = step_max_avx512(c, cval, act, d, p0, pu, pdn);
                }
            } else {
                const __m512i col = _mm512_add_epi32(_mm512_set1_epi32(x0), lane);
                const __m512i p0 = cells_avx512(c->hist, act, r0, vpitch, col);
                const __m512i sh = _mm512_add_epi32(v, ndv);
                for (int d = 0; d < nd; d++) {
                    const __m512i step = _mm512_set1_epi32(d + 1);
                    const __mmask16 g =
                        act & _mm512_cmple_epi32_mask(sh, _mm512_set1_epi32(c->limit[d])) &
                        _mm512_cmpgt_epi32_mask(_mm512_add_epi32(sh, step), vlt);
                    if (!g) continue;
                    const __m512i down = _mm512_sub_epi32(r0, step);
                    const __m512i pu =
                        cells_avx512(c->hist, g, _mm512_add_epi32(r0, step), vpitch, col);
                    const __m512i pdn = cells_avx512(
                        c->hist, g & _mm512_cmpge_epi32_mask(down, zero), down, vpitch, col);
                    cval = step_max_avx512(c, cval, g, d, p0, pu, pdn);
                }
            }
            const __mmask16 nz = _mm512_cmp_ps_mask(cval, fzero, _CMP_NEQ_UQ);
            nnz += (uint32_t)_mm_popcnt_u32(nz);
            odd |= nz & _mm512_cmp_ps_mask(cval, half, _CMP_NGE_UQ);
            acc0 = _mm512_add_pd(acc0, _mm512_cvtps_pd(_mm512_castps512_ps256(cval)));
            acc1 = _mm512_add_pd(acc1, _mm512_cvtps_pd(_mm256_castpd_ps(
                                           _mm512_extractf64x4_pd(_mm512_castps_pd(cval), 1))));
        }
        _mm512_mask_storeu_ps(cv + x0, lanes, cval);
    }
    double lanes_sum[8];
    _mm512_storeu_pd(lanes_sum, _mm512_add_pd(acc0, acc1));
    for (int i = 0; i < 8; i++) st->sum += lanes_sum[i];
    st->nnz += nnz;
    st->odd |= odd != 0;
}
#undef CAMBI_CVAL_ROW
#define CAMBI_CVAL_ROW cval_row_avx512

#elif defined(__AVX2__)
#include <immintrin.h>

static const int16_t iota16[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* cambi_k_run_cells in aligned vectors of 16 cells (16-bit lanes: every
 * quantity is below 2^15) */
ALWAYS_INLINE void run_cells_avx2(const CambiRows *c, const CambiRun *r, bool leave)
{
    int a, b, lo, hi, cap;
    uint16_t *h = cambi_k_run_span(c, r, &a, &b, &lo, &hi, &cap);
    const __m256i iota = _mm256_loadu_si256((const __m256i *)iota16);
    const __m256i ka = _mm256_set1_epi16((short)(1 - a)), kb = _mm256_set1_epi16((short)(b + 1));
    const __m256i kcap = _mm256_set1_epi16((short)cap);
    const __m256i klo = _mm256_set1_epi16((short)(lo - 1)), khi = _mm256_set1_epi16((short)hi);
    for (int x = lo & ~15; x < hi; x += 16) {
        const __m256i cc = _mm256_add_epi16(_mm256_set1_epi16((short)x), iota);
        const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi16(cc, klo), _mm256_cmpgt_epi16(khi, cc));
        const __m256i n = _mm256_and_si256(
            in, _mm256_min_epi16(_mm256_min_epi16(_mm256_add_epi16(cc, ka), _mm256_sub_epi16(kb, cc)),
                                 kcap));
        const __m256i v = _mm256_load_si256((const __m256i *)(h + x));
        _mm256_store_si256((__m256i *)(h + x),
                           leave ? _mm256_sub_epi16(v, n) : _mm256_add_epi16(v, n));
    }
}

/* one bit per 16-bit lane of a compare's result */
ALWAYS_INLINE uint32_t bits16_avx2(__m256i x)
{
    const __m128i p = _mm_packs_epi16(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (uint32_t)_mm_movemask_epi8(p);
}

/* the columns of 16 whose pixel is masked and in the band */
ALWAYS_INLINE uint32_t takes_avx2(const CambiRows *c, const uint16_t *img, const uint8_t *mask,
                                  __m256i *v)
{
    const __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)mask));
    *v = _mm256_loadu_si256((const __m256i *)img);
    const __m256i t = _mm256_sub_epi16(*v, _mm256_set1_epi16((short)c->band.base));
    /* t < size (unsigned) exactly when max(t, size) is not t */
    const __m256i ge =
        _mm256_cmpeq_epi16(_mm256_max_epu16(t, _mm256_set1_epi16((short)c->band.size)), t);
    const __m256i zero = _mm256_cmpeq_epi16(m, _mm256_setzero_si256());
    return ~bits16_avx2(_mm256_or_si256(ge, zero)) & 0xffff;
}

/* runs_avx512 for 16 columns */
ALWAYS_INLINE bool runs_avx2(const CambiRows *c, CambiRun *run, const uint16_t *img, int x0,
                             uint32_t m, __m256i v, __m256i prev, bool carry, bool leave)
{
    if (!m) return false;
    /* lane i: the value of column i - 1 (lane 0: prev's last) */
    const __m256i before = _mm256_alignr_epi8(v, _mm256_permute2x128_si256(prev, v, 0x21), 14);
    const uint32_t cont =
        m & ((m << 1) | (uint32_t)carry) & bits16_avx2(_mm256_cmpeq_epi16(v, before));
    uint32_t starts = m & ~cont;
    run->len += (int)_tzcnt_u32(~cont);
    for (; starts; starts &= starts - 1) {
        const unsigned i = _tzcnt_u32(starts);
        if (run->len) run_cells_avx2(c, run, leave);
        run->x0 = x0 + (int)i;
        run->len = 1 + (int)_tzcnt_u32(~(cont >> (i + 1)));
        run->v = img[x0 + (int)i];
    }
    return (m >> 15) & 1;
}

static void hist_row_avx2(const CambiRows *c, const uint16_t *io, const uint8_t *mo,
                          const uint16_t *ii, const uint8_t *mi)
{
    CambiRun ro = { 0, 0, 0 }, ri = { 0, 0, 0 };
    __m256i po = _mm256_setzero_si256(), pi = _mm256_setzero_si256();
    bool co = false, ci = false;
    int x0 = 0;
    for (; x0 + 16 <= c->cols; x0 += 16) {
        __m256i vo = _mm256_setzero_si256(), vi = _mm256_setzero_si256();
        const uint32_t out = io ? takes_avx2(c, io + x0, mo + x0, &vo) : 0;
        const uint32_t in = ii ? takes_avx2(c, ii + x0, mi + x0, &vi) : 0;
        const uint32_t same = out & in & bits16_avx2(_mm256_cmpeq_epi16(vo, vi));
        co = runs_avx2(c, &ro, io, x0, out & ~same, vo, po, co, true);
        ci = runs_avx2(c, &ri, ii, x0, in & ~same, vi, pi, ci, false);
        po = vo;
        pi = vi;
    }
    /* the last columns pixel by pixel: a run open at x0 - 1 goes on as
     * cambi_k_run_push decides */
    cambi_k_hist_cols(c, io, mo, ii, mi, x0, c->cols, &ro, &ri, run_cells_avx2);
    cambi_k_runs_end(c, &ro, &ri, run_cells_avx2);
}
#undef CAMBI_HIST_ROW
#define CAMBI_HIST_ROW hist_row_avx2

ALWAYS_INLINE __m256i cells_avx2(const uint16_t *hist, __m256i m, __m256i row, __m256i pitch,
                                 __m256i col)
{
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(row, pitch), col);
    const __m256i g = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)hist, idx,
                                                  m, 2);
    return _mm256_and_si256(g, _mm256_set1_epi32(0xffff));
}

/* the cells of histogram row `row` at 8 columns (row >= 0) */
ALWAYS_INLINE __m256i row_cells_avx2(const uint16_t *col0, int pitch, int row)
{
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(col0 + (ptrdiff_t)row * pitch)));
}

/* the c-value candidate of step d from its counts, kept where g */
ALWAYS_INLINE __m256 step_max_avx2(const CambiRows *c, __m256 cval, __m256i g, int d, __m256i p0,
                                   __m256i pu, __m256i pdn)
{
    const __m256i pd = _mm256_max_epu32(pu, pdn);
    const __m256i prod = _mm256_mullo_epi32(
        _mm256_mullo_epi32(_mm256_set1_epi32(cambi_contrast_weight(d)), p0), pd);
    const __m256 rc = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), c->recip,
                                               _mm256_add_epi32(p0, pd), _mm256_castsi256_ps(g), 4);
    const __m256 val = _mm256_mul_ps(_mm256_cvtepi32_ps(prod), rc);
    return _mm256_blendv_ps(cval, _mm256_max_ps(cval, val), _mm256_castsi256_ps(g));
}

static void cval_row_avx2(const CambiRows *c, const uint16_t *img, const uint8_t *mask,
                          float *cv, CambiCvalStats *st)
{
    const int w = c->w, nd = c->num_diffs, pitch = c->pitch;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i base = _mm256_set1_epi32(c->band.base), size = _mm256_set1_epi32(c->band.size);
    const __m256i vpitch = _mm256_set1_epi32(pitch), ndv = _mm256_set1_epi32(nd);
    const __m256i vlt = _mm256_set1_epi32(c->vlt_code), zero = _mm256_setzero_si256();
    const __m256i minus1 = _mm256_set1_epi32(-1);
    const __m256 fzero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f);
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    uint32_t nnz = 0, odd = 0;
    int x0 = 0;
    for (; x0 + 8 <= w; x0 += 8) {
        if (cambi_k_zero8(mask + x0)) {
            _mm256_storeu_ps(cv + x0, fzero);
            continue;
        }
        const __m256i mk = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(mask + x0)));
        const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(img + x0)));
        const __m256i r0 = _mm256_sub_epi32(v, base);
        /* masked, and 0 <= r0 < size */
        const __m256i act = _mm256_andnot_si256(
            _mm256_cmpeq_epi32(mk, zero),
            _mm256_and_si256(_mm256_cmpgt_epi32(r0, minus1), _mm256_cmpgt_epi32(size, r0)));
        const unsigned actm = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(act));
        __m256 cval = fzero;
        if (actm) {
            const int v0 = img[x0 + (int)_tzcnt_u32(actm)];
            const unsigned eq = (unsigned)_mm256_movemask_ps(
                _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(v0))));
            if ((eq & actm) == actm) {
                /* one value: its gates are the same in every lane, its
                 * cells consecutive */
                const int r = v0 - c->band.base, sh = v0 + nd;
                const uint16_t *col0 = c->hist + x0;
                const __m256i p0 = _mm256_and_si256(act, row_cells_avx2(col0, pitch, r));
                for (int d = 0; d < nd; d++) {
                    if (!(sh <= c->limit[d] && sh + d + 1 > c->vlt_code)) continue;
                    const __m256i pu = row_cells_avx2(col0, pitch, r + d + 1);
                    const __m256i pdn = r - d - 1 >= 0 ? row_cells_avx2(col0, pitch, r - d - 1)
                                                       : zero;
                    cval = step_max_avx2(c, cval, act, d, p0, _mm256_and_si256(act, pu),
                                         _mm256_and_si256(act, pdn));
                }
            } else {
                const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(x0), lane);
                const __m256i p0 = cells_avx2(c->hist, act, r0, vpitch, col);
                const __m256i sh = _mm256_add_epi32(v, ndv);
                for (int d = 0; d < nd; d++) {
                    const __m256i step = _mm256_set1_epi32(d + 1);
                    const __m256i g = _mm256_and_si256(
                        _mm256_andnot_si256(
                            _mm256_cmpgt_epi32(sh, _mm256_set1_epi32(c->limit[d])), act),
                        _mm256_cmpgt_epi32(_mm256_add_epi32(sh, step), vlt));
                    if (_mm256_testz_si256(g, g)) continue;
                    const __m256i down = _mm256_sub_epi32(r0, step);
                    const __m256i pu = cells_avx2(c->hist, g, _mm256_add_epi32(r0, step), vpitch, col);
                    const __m256i pdn = cells_avx2(
                        c->hist, _mm256_and_si256(g, _mm256_cmpgt_epi32(down, minus1)), down,
                        vpitch, col);
                    cval = step_max_avx2(c, cval, g, d, p0, pu, pdn);
                }
            }
            const int nz = _mm256_movemask_ps(_mm256_cmp_ps(cval, fzero, _CMP_NEQ_UQ));
            nnz += (uint32_t)_mm_popcnt_u32((unsigned)nz);
            odd |= (uint32_t)(nz & _mm256_movemask_ps(_mm256_cmp_ps(cval, half, _CMP_NGE_UQ)));
            acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(cval)));
            acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(cval, 1)));
        }
        _mm256_storeu_ps(cv + x0, cval);
    }
    double lanes_sum[4];
    _mm256_storeu_pd(lanes_sum, _mm256_add_pd(acc0, acc1));
    for (int i = 0; i < 4; i++) st->sum += lanes_sum[i];
    st->nnz += nnz;
    st->odd |= odd != 0;
    /* the last columns as the C does them */
    for (; x0 < w; x0++) {
        const float v = mask[x0] ? cambi_c_value(c->hist + x0, pitch, img[x0], c->band, nd,
                                                 c->limit, c->vlt_code, c->recip)
                                 : 0.0f;
        cv[x0] = v;
        cambi_k_stat(st, v);
    }
}
#undef CAMBI_CVAL_ROW
#define CAMBI_CVAL_ROW cval_row_avx2
#endif

CAMBI_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_cambi_kernels));
