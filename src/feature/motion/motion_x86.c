/*
 * motion's row kernels compiled for one x86 SIMD level (the build compiles
 * this file once per level, TVMAF_SIMD_SUFFIX naming the set); the code is
 * motion_math.h's integer arithmetic. Both levels write out the horizontal
 * pass in 32-bit lanes, each sample split in two parts that vpmaddwd takes
 * (motion_hrow_sad_avx512), and the 8-bit vertical pass in int16 lanes with
 * vpmaddwd (motion_vrow_8_avx512), 32 or 16 columns a step.
 */
#include "core/cpu.h"
#include "feature/common/prefetch.h"
#include "feature/motion/motion_math.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#include "feature/common/x86_avx512.h"

/*
 * The horizontal pass 16 columns a step in 32-bit lanes: the symmetric taps'
 * samples are added first (o = y[j-2] + y[j+2], i = y[j-1] + y[j+1], c =
 * y[j], |each| < 2^17: a vertical-pass sample is below 2^16 in magnitude),
 * each split as 256 h + l (l = x & 255, h = x >> 8, both within int16), so
 * the row sum S = 256 A + B with A = t0 oh + t1 ih + t2 ch (|A| < 2^25) and
 * B = t0 ol + t1 il + t2 cl (0 <= B < 2^24), each one vpmaddwd of (c, 0) by
 * (t2, 0) and one vpdpwssd (tvmaf_dpwssd512) of the pair (o, i) by
 * (t0, t1). (S + 2^15) >> 16 is then (A + ((B + 2^15) >> 8)) >> 8, both
 * shifts flooring as the C's. The absolute values are summed in 32-bit
 * lanes, modulo 2^32 as the C's uint32 row sum.
 */
static inline __m512i hrow_pair(__m512i lo, __m512i hi)
{
    return _mm512_mask_blend_epi16(0xaaaaaaaau, lo, _mm512_slli_epi32(hi, 16));
}

static uint32_t motion_hrow_sad_avx512(const int32_t *y, unsigned w)
{
    unsigned head, tail;
    motion_hrow_bounds(w, &head, &tail);
    uint32_t sad = motion_hrow_sad_cols(y, w, 0, head);
    const __m512i t01 = _mm512_set1_epi32(MOTION_TAP_OUTER | MOTION_TAP_INNER << 16);
    const __m512i t2 = _mm512_set1_epi32(MOTION_TAP_CENTRE), rnd = _mm512_set1_epi32(1 << 15);
    const __m512i byte = _mm512_set1_epi32(255);
    __m512i acc = _mm512_setzero_si512();
    unsigned j = head;
#define LD(o) _mm512_loadu_si512((const void *)(y + j + (o)))
    for (; j + 16 <= tail; j += 16) {
        const __m512i o = _mm512_add_epi32(LD(-2), LD(2)), i = _mm512_add_epi32(LD(-1), LD(1));
        const __m512i c = LD(0);
        const __m512i b = tvmaf_dpwssd512(
            _mm512_madd_epi16(_mm512_and_si512(c, byte), t2),
            hrow_pair(_mm512_and_si512(o, byte), _mm512_and_si512(i, byte)), t01);
        const __m512i a = tvmaf_dpwssd512(
            _mm512_madd_epi16(_mm512_srai_epi32(c, 8), t2),
            hrow_pair(_mm512_srai_epi32(o, 8), _mm512_srai_epi32(i, 8)), t01);
        const __m512i v = _mm512_srai_epi32(
            _mm512_add_epi32(a, _mm512_srli_epi32(_mm512_add_epi32(b, rnd), 8)), 8);
        acc = _mm512_add_epi32(acc, _mm512_abs_epi32(v));
    }
#undef LD
    /* the lanes as uint32, added in 64 bits: the row's total modulo 2^32
     * without a signed int sum that could overflow on very wide rows */
    sad += (uint32_t)tvmaf_sum_u64x8(_mm512_add_epi64(
        _mm512_cvtepu32_epi64(_mm512_castsi512_si256(acc)),
        _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(acc, 1))));
    return sad + motion_hrow_sad_cols(y, w, j, w);
}
#define MOTION_HROW_SAD motion_hrow_sad_avx512

#if defined(__AVX512BW__)
/* motion_vrow_8, 32 columns a step: the differences in int16 lanes (within
 * +-255) and the symmetric taps' two differences added first (+-510, the
 * same integer sum), then vpmaddwd on pairs (d0 + d4, d1 + d3) times
 * (outer, inner) and (d2, 0) times (centre, 0): every tap is below 2^15 and
 * every sum exact in int32, as the C's. The unpacks take halves of the
 * 128-bit blocks; one two-source permute per 16 outputs puts them back in
 * column order. The last w % 32 columns are the C's. */
static int32_t motion_vrow_8_avx512(const uint8_t *const p[5], const uint8_t *const c[5],
                                    int32_t *y, unsigned w)
{
    const __m512i oi = _mm512_set1_epi32(MOTION_TAP_OUTER | MOTION_TAP_INNER << 16);
    const __m512i cz = _mm512_set1_epi32(MOTION_TAP_CENTRE);
    const __m512i rnd = _mm512_set1_epi32(1 << 7), zero = _mm512_setzero_si512();
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    __m512i any = zero;
    unsigned j = 0;
    const ptrdiff_t sp = tvmaf_row_step(p[3], p[4]), sc = tvmaf_row_step(c[3], c[4]);
    for (; j + 32 <= w; j += 32) {
        tvmaf_prefetch_next_rows(p[4], sp, 1, j); /* the next call's rows */
        tvmaf_prefetch_next_rows(c[4], sc, 1, j);
        __m512i d[5];
        for (int k = 0; k < 5; k++)
            d[k] = _mm512_sub_epi16(
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p[k] + j))),
                _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(c[k] + j))));
        const __m512i o = _mm512_add_epi16(d[0], d[4]), i = _mm512_add_epi16(d[1], d[3]);
        __m512i lo = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpacklo_epi16(o, i), oi),
                                      _mm512_madd_epi16(_mm512_unpacklo_epi16(d[2], zero), cz));
        __m512i hi = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpackhi_epi16(o, i), oi),
                                      _mm512_madd_epi16(_mm512_unpackhi_epi16(d[2], zero), cz));
        lo = _mm512_srai_epi32(_mm512_add_epi32(lo, rnd), 8);
        hi = _mm512_srai_epi32(_mm512_add_epi32(hi, rnd), 8);
        const __m512i a = _mm512_permutex2var_epi64(lo, first, hi);
        const __m512i b = _mm512_permutex2var_epi64(lo, second, hi);
        _mm512_storeu_si512(y + j, a);
        _mm512_storeu_si512(y + j + 16, b);
        any = _mm512_or_si512(any, _mm512_or_si512(a, b));
    }
    int32_t r = _mm512_reduce_or_epi32(any);
    for (; j < w; j++) {
        y[j] = motion_v_col_8(p, c, j);
        r |= y[j];
    }
    return r;
}
#define MOTION_VROW_8 motion_vrow_8_avx512
#endif
#elif defined(__AVX2__)
#include <immintrin.h>

/* The horizontal pass eight columns a step, as motion_hrow_sad_avx512 (the
 * split into 256 h + l and two vpmaddwd for each of A and B), with
 * vpmaddwd + vpaddd for vpdpwssd. */
static uint32_t motion_hrow_sad_avx2(const int32_t *y, unsigned w)
{
    unsigned head, tail;
    motion_hrow_bounds(w, &head, &tail);
    uint32_t sad = motion_hrow_sad_cols(y, w, 0, head);
    const __m256i t01 = _mm256_set1_epi32(MOTION_TAP_OUTER | MOTION_TAP_INNER << 16);
    const __m256i t2 = _mm256_set1_epi32(MOTION_TAP_CENTRE), rnd = _mm256_set1_epi32(1 << 15);
    const __m256i byte = _mm256_set1_epi32(255);
    __m256i acc = _mm256_setzero_si256();
    unsigned j = head;
#define LD(o) _mm256_loadu_si256((const __m256i *)(y + j + (o)))
#define PAIR(lo, hi) _mm256_blend_epi16((lo), _mm256_slli_epi32((hi), 16), 0xaa)
    for (; j + 8 <= tail; j += 8) {
        const __m256i o = _mm256_add_epi32(LD(-2), LD(2)), i = _mm256_add_epi32(LD(-1), LD(1));
        const __m256i c = LD(0);
        const __m256i b = _mm256_add_epi32(
            _mm256_madd_epi16(_mm256_and_si256(c, byte), t2),
            _mm256_madd_epi16(PAIR(_mm256_and_si256(o, byte), _mm256_and_si256(i, byte)), t01));
        const __m256i a = _mm256_add_epi32(
            _mm256_madd_epi16(_mm256_srai_epi32(c, 8), t2),
            _mm256_madd_epi16(PAIR(_mm256_srai_epi32(o, 8), _mm256_srai_epi32(i, 8)), t01));
        const __m256i v = _mm256_srai_epi32(
            _mm256_add_epi32(a, _mm256_srli_epi32(_mm256_add_epi32(b, rnd), 8)), 8);
        acc = _mm256_add_epi32(acc, _mm256_abs_epi32(v));
    }
#undef PAIR
#undef LD
    uint32_t lanes[8];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    for (int k = 0; k < 8; k++) sad += lanes[k];
    return sad + motion_hrow_sad_cols(y, w, j, w);
}
#define MOTION_HROW_SAD motion_hrow_sad_avx2

/* motion_vrow_8 16 columns a step, as motion_vrow_8_avx512 (int16
 * differences, the symmetric pairs added first, vpmaddwd into int32); the
 * unpacks work within 128-bit lanes, and two lane permutes restore the
 * column order. The last w % 16 columns are the C's. */
static int32_t motion_vrow_8_avx2(const uint8_t *const p[5], const uint8_t *const c[5],
                                  int32_t *y, unsigned w)
{
    const __m256i oi = _mm256_set1_epi32(MOTION_TAP_OUTER | MOTION_TAP_INNER << 16);
    const __m256i cz = _mm256_set1_epi32(MOTION_TAP_CENTRE);
    const __m256i rnd = _mm256_set1_epi32(1 << 7), zero = _mm256_setzero_si256();
    __m256i any = zero;
    unsigned j = 0;
    const ptrdiff_t sp = tvmaf_row_step(p[3], p[4]), sc = tvmaf_row_step(c[3], c[4]);
    for (; j + 16 <= w; j += 16) {
        tvmaf_prefetch_next_rows(p[4], sp, 1, j); /* the next call's rows */
        tvmaf_prefetch_next_rows(c[4], sc, 1, j);
        __m256i d[5];
        for (int k = 0; k < 5; k++)
            d[k] = _mm256_sub_epi16(
                _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p[k] + j))),
                _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(c[k] + j))));
        const __m256i o = _mm256_add_epi16(d[0], d[4]), i = _mm256_add_epi16(d[1], d[3]);
        __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(o, i), oi),
                                      _mm256_madd_epi16(_mm256_unpacklo_epi16(d[2], zero), cz));
        __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(o, i), oi),
                                      _mm256_madd_epi16(_mm256_unpackhi_epi16(d[2], zero), cz));
        lo = _mm256_srai_epi32(_mm256_add_epi32(lo, rnd), 8);
        hi = _mm256_srai_epi32(_mm256_add_epi32(hi, rnd), 8);
        const __m256i a = _mm256_permute2x128_si256(lo, hi, 0x20);
        const __m256i b = _mm256_permute2x128_si256(lo, hi, 0x31);
        _mm256_storeu_si256((__m256i *)(y + j), a);
        _mm256_storeu_si256((__m256i *)(y + j + 8), b);
        any = _mm256_or_si256(any, _mm256_or_si256(a, b));
    }
    int32_t lanes[8], r = 0;
    _mm256_storeu_si256((__m256i *)lanes, any);
    for (int k = 0; k < 8; k++) r |= lanes[k];
    for (; j < w; j++) {
        y[j] = motion_v_col_8(p, c, j);
        r |= y[j];
    }
    return r;
}
#define MOTION_VROW_8 motion_vrow_8_avx2
#endif

#include "feature/motion/motion_cpu.h"

MOTION_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_motion_kernels));
