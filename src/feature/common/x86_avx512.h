/*
 * Operations the AVX-512 kernels of several features share (include it only
 * where __AVX512F__ is defined).
 *
 * tvmaf_sum_u64x8: horizontal sum of eight 64-bit lanes, modulo 2^64. The
 * compiler's _mm512_reduce_add_epi64 is written in C over signed lanes (gcc 13 adds them as long long), so a sum that wraps, as
 * adm's cm accumulators may by design, is undefined behaviour there and
 * UBSan stops on it. Here the halves are added by vector instructions and
 * the last two lanes as uint64_t: the same integer mod 2^64, defined.
 *
 * tvmaf_dpwssd512: acc + vpmaddwd(a, b) in 32-bit lanes. Built with
 * AVX512-VNNI (the avx512icl level) it is one vpdpwssd, which adds the two
 * products and the accumulator with wraparound: vpmaddwd's sum (its one
 * wrap, both factors -2^15, included) added modulo 2^32, the same integer.
 */
#ifndef TVMAF_FEATURE_COMMON_X86_AVX512_H
#define TVMAF_FEATURE_COMMON_X86_AVX512_H

#include <stdint.h>
#include <immintrin.h>

static inline uint64_t tvmaf_sum_u64x8(__m512i v)
{
    const __m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    const __m128i q = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return (uint64_t)_mm_cvtsi128_si64(q) + (uint64_t)_mm_extract_epi64(q, 1);
}

static inline __m512i tvmaf_dpwssd512(__m512i acc, __m512i a, __m512i b)
{
#if defined(__AVX512VNNI__)
    return _mm512_dpwssd_epi32(acc, a, b);
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
#endif
}

#endif
