/*
 * adm's CPU stages compiled for one x86 SIMD level (the build compiles this
 * file once per level, TVMAF_SIMD_SUFFIX naming it): adm.c's stage section,
 * the one copy of that code, taken here with ADM_KERNELS_ONLY so nothing but
 * the stages and tvmaf_adm_frame_sums_<level> is compiled again.
 *
 * At AVX-512, decouple (every scale) is written out below, eight coefficients in
 * 64-bit lanes, operation for operation as adm_decouple16_at: the int64 dot
 * products, their float and double steps (IEEE, no FMA), the reciprocal
 * table entry (scales 1..3: of |o| reduced to 15 bits), the Q15 gain and its clamp, the enhancement (rounded to an
 * integer in the vector lanes, j < jv, as the C's vec flag) and the int16
 * stores.
 */
#include <stdint.h>

#include "core/cpu.h"
#include "feature/adm/adm_math.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__)
#include <immintrin.h>

/* int64 lanes holding int16 values: the low 16 bits, sign-extended */
static inline __m512i s16_64(__m512i v)
{
    return _mm512_srai_epi64(_mm512_slli_epi64(v, 48), 48);
}

/* int64 lanes holding int32 values: the low 32 bits, sign-extended */
static inline __m512i s32_64(__m512i v)
{
    return _mm512_srai_epi64(_mm512_slli_epi64(v, 32), 32);
}

/* The angle test of adm_angle_within_1deg on the (h, v) vectors of eight
 * coefficients (int32 values in int64 lanes): the int64 dot products (their
 * sum modulo 2^64), each to float, to double, / 4096, products left to right. */
static inline __mmask8 angle_8(const __m512i o[3], const __m512i t[3], float cos_1deg_sq)
{
    const __m512d d4096 = _mm512_set1_pd(4096.0), dcos = _mm512_set1_pd((double)cos_1deg_sq);
    const __m512i ot = _mm512_add_epi64(_mm512_mul_epi32(o[0], t[0]), _mm512_mul_epi32(o[1], t[1]));
    const __m512i oo = _mm512_add_epi64(_mm512_mul_epi32(o[0], o[0]), _mm512_mul_epi32(o[1], o[1]));
    const __m512i tt = _mm512_add_epi64(_mm512_mul_epi32(t[0], t[0]), _mm512_mul_epi32(t[1], t[1]));
    const __m512d dp = _mm512_div_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(ot)), d4096);
    const __m512d om = _mm512_div_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(oo)), d4096);
    const __m512d tm = _mm512_div_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(tt)), d4096);
    return _mm512_cmp_pd_mask(dp, _mm512_setzero_pd(), _CMP_GE_OQ) &
           _mm512_cmp_pd_mask(_mm512_mul_pd(dp, dp), _mm512_mul_pd(_mm512_mul_pd(dcos, om), tm),
                              _CMP_GE_OQ);
}

/* adm_enhance's value for lanes it changes: g = r egl (rounded to an
 * integer in the vector lanes), then o > 0: g < t ? g : t; o < 0:
 * g > t ? g : t; truncated to an integer (it lies between r and t). */
static inline __m512i enhance_8(__m512i r, __m512i t, __m512i o, __mmask8 vec, double egl)
{
    const __m512d rd = _mm512_mul_pd(_mm512_cvtepi64_pd(r), _mm512_set1_pd(egl));
    const __m512d g = _mm512_mask_roundscale_pd(rd, vec, rd,
                                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512d td = _mm512_cvtepi64_pd(t);
    const __mmask8 pos = _mm512_cmpgt_epi64_mask(o, _mm512_setzero_si512());
    const __mmask8 take_g = (pos & _mm512_cmp_pd_mask(g, td, _CMP_LT_OQ)) |
                            ((__mmask8)~pos & _mm512_cmp_pd_mask(g, td, _CMP_GT_OQ));
    return _mm512_cvttpd_epi64(_mm512_mask_blend_pd(take_g, td, g));
}

static void adm_decouple16_row_avx512(const int16_t *const o[3], const int16_t *const t[3],
                                      int16_t *const r[3], int16_t *const a[3], int jb, int je,
                                      int jv, const int32_t *recip, float cos_1deg_sq,
                                      double egl)
{
    const __m512i zero = _mm512_setzero_si512(), q15 = _mm512_set1_epi64(32768);
    const __m512i half = _mm512_set1_epi64(16384);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = jb; j < je; j += 8) {
        const __mmask8 m = je - j >= 8 ? 0xff : (__mmask8)((1u << (je - j)) - 1);
        /* lanes j + l < jv take the vector-lane rounding */
        const __mmask8 vec = _mm512_cmplt_epi64_mask(_mm512_add_epi64(lane, _mm512_set1_epi64(j)),
                                                     _mm512_set1_epi64(jv));
        __m512i vo[3], vt[3];
        for (int k = 0; k < 3; k++) {
            vo[k] = _mm512_cvtepi16_epi64(_mm_maskz_loadu_epi16(m, o[k] + j));
            vt[k] = _mm512_cvtepi16_epi64(_mm_maskz_loadu_epi16(m, t[k] + j));
        }
        const __mmask8 angle = angle_8(vo, vt, cos_1deg_sq);
        for (int k = 0; k < 3; k++) {
            const __m512i ov = vo[k], tv = vt[k];
            const __mmask8 nz = _mm512_mask_cmpneq_epi64_mask(m, ov, zero);
            /* k = clip((recip[o] t + 2^14) >> 15, 0, 2^15), 2^15 where o = 0 */
            const __m256i rc = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), nz, ov, recip, 4);
            const __m512i q = _mm512_srai_epi64(
                _mm512_add_epi64(_mm512_mul_epi32(_mm512_cvtepi32_epi64(rc), tv), half), 15);
            const __m512i kk = _mm512_mask_blend_epi64(nz, q15,
                                                       _mm512_min_epi64(_mm512_max_epi64(q, zero), q15));
            /* r = (int16)((k o + 2^14) >> 15) */
            __m512i rv = s16_64(_mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(kk, ov), half), 15));
            /* enhancement where the angle passed, k > 0 and o != 0 */
            const __mmask8 en = angle & nz & _mm512_cmpgt_epi64_mask(kk, zero);
            if (en) rv = _mm512_mask_mov_epi64(rv, en, s16_64(enhance_8(rv, tv, ov, vec, egl)));
            _mm512_mask_cvtepi64_storeu_epi16(r[k] + j, m, rv);
            _mm512_mask_cvtepi64_storeu_epi16(a[k] + j, m, _mm512_sub_epi64(tv, rv));
        }
    }
}
#define ADM_DECOUPLE16_ROW adm_decouple16_row_avx512

/* Scales 1..3, as adm_decouple32_at: |o| >= 2^15 reduced to its top 15 bits
 * (rounded) for the table, the quotient shifted back, the rounding constant
 * an int32 (negative when it reaches bit 31, as the C's conversion). */
static void adm_decouple32_row_avx512(const int32_t *const o[3], const int32_t *const t[3],
                                      int32_t *const r[3], int32_t *const a[3], int jb, int je,
                                      int jv, const int32_t *recip_pos, float cos_1deg_sq,
                                      double egl)
{
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
    const __m512i q15 = _mm512_set1_epi64(32768), half = _mm512_set1_epi64(16384);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = jb; j < je; j += 8) {
        const __mmask8 m = je - j >= 8 ? 0xff : (__mmask8)((1u << (je - j)) - 1);
        const __mmask8 vec = _mm512_cmplt_epi64_mask(_mm512_add_epi64(lane, _mm512_set1_epi64(j)),
                                                     _mm512_set1_epi64(jv));
        __m512i vo[3], vt[3];
        for (int k = 0; k < 3; k++) {
            vo[k] = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(m, o[k] + j));
            vt[k] = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(m, t[k] + j));
        }
        const __mmask8 angle = angle_8(vo, vt, cos_1deg_sq);
        for (int k = 0; k < 3; k++) {
            const __m512i ov = vo[k], tv = vt[k];
            const __mmask8 nz = _mm512_mask_cmpneq_epi64_mask(m, ov, zero);
            const __m512i ao = _mm512_abs_epi64(ov);
            const __mmask8 big = _mm512_cmpge_epi64_mask(ao, q15);
            /* sh = 17 - clz32(|o|) where |o| >= 2^15, else 0 */
            const __m512i sh = _mm512_maskz_sub_epi64(big, _mm512_set1_epi64(49), _mm512_lzcnt_epi64(ao));
            const __m512i mm = _mm512_mask_srlv_epi64(
                ao, big, _mm512_add_epi64(ao, _mm512_sllv_epi64(one, _mm512_sub_epi64(sh, one))), sh);
            const __m256i rc = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), nz, mm, recip_pos, 4);
            __m512i p = _mm512_mul_epi32(_mm512_cvtepi32_epi64(rc), tv);
            p = _mm512_mask_sub_epi64(p, _mm512_cmplt_epi64_mask(ov, zero), zero, p);
            const __m512i rnd = s32_64(_mm512_sllv_epi64(one, _mm512_add_epi64(sh, _mm512_set1_epi64(14))));
            const __m512i q = _mm512_srav_epi64(_mm512_add_epi64(p, rnd),
                                                _mm512_add_epi64(sh, _mm512_set1_epi64(15)));
            const __m512i kk = _mm512_mask_blend_epi64(nz, q15,
                                                       _mm512_min_epi64(_mm512_max_epi64(q, zero), q15));
            /* r = (int32)((k o + 2^14) >> 15), k o in int64 */
            __m512i rv = s32_64(_mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(kk, ov), half), 15));
            const __mmask8 en = angle & nz & _mm512_cmpgt_epi64_mask(kk, zero);
            if (en) rv = _mm512_mask_mov_epi64(rv, en, s32_64(enhance_8(rv, tv, ov, vec, egl)));
            _mm512_mask_cvtepi64_storeu_epi32(r[k] + j, m, rv);
            _mm512_mask_cvtepi64_storeu_epi32(a[k] + j, m, _mm512_sub_epi64(tv, rv));
        }
    }
}
#define ADM_DECOUPLE32_ROW adm_decouple32_row_avx512
#endif

#define ADM_KERNELS_ONLY
#include "feature/adm/adm.c"
