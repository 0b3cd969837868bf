/*
 * adm's CPU stages compiled for one x86 SIMD level (the build compiles this
 * file once per level, TVMAF_SIMD_SUFFIX naming it): this level's row
 * kernels, then adm_stages.h (the one copy of the stages) built with them,
 * which defines tvmaf_adm_kernels_<level>.
 *
 * At AVX-512, decouple (every scale) is written out below, operation for
 * operation as adm_decouple16_at / adm_decouple32_at: the int64 dot products,
 * their float and double steps (IEEE, no FMA), the reciprocal table entry
 * (scales 1..3: of |o| reduced to 15 bits), the Q15 gain and its clamp, the
 * enhancement (rounded to an integer in the vector lanes, j < jv, as the C's
 * vec flag) and the stores; scale 0 sixteen coefficients in 32-bit lanes
 * (its dot products by vpmaddwd), scales 1..3 eight in 64-bit lanes.
 *
 * At AVX2, decouple of scale 0 likewise, eight coefficients: the dot
 * products by madd (its one int32 wrap, 2^31, taken back before the float
 * conversion), the angle test in double, the reciprocal by an exact double
 * division (recip_q30_8), the gain limit in double (rounded in the vector
 * lanes); scales 1..3 four coefficients in 64-bit lanes, following the
 * AVX-512 kernel, with exact int64-to-float conversions (s51_ps4 where the
 * values allow, i64_ps4 for any).
 *
 * At both levels, cm's row kernels (adm_cpu.h): the 3x3 threshold and the
 * masking terms of blocks of columns, each lane kind of each reference_isa
 * in its own arithmetic (adm_math.h V3, V4, V5 and AVX2's logical-shift
 * cubes): scale 0 in int32 lanes (16 or 8 columns), the cube of each term in
 * 64-bit lanes (even and odd columns); scales 1..3's vector lanes with the
 * threshold's exact 64-bit sum (8 or 4 columns), their scalar lanes with its
 * wrapping int32 sum and the unsigned Q32 weight (16 or 8 columns). Columns
 * that do not fill a block go to adm_stages.h's C rows. Every term is integer, and
 * the terms are added modulo 2^64, so any order gives the C sums
 * (tests/checkasm/adm.c compares them on random and extreme bands).
 *
 * At both levels, the DWT's rows (adm_cpu.h): scale 0's vertical and
 * horizontal passes with vpmaddwd on pairs of samples, scales 1..3 with
 * 64-bit products from the halves of the 64-bit lanes; 512 bits wide at
 * AVX-512.
 */
#include <stdint.h>

#include "core/cpu.h"
#include "feature/adm/adm_math.h"
#include "feature/common/prefetch.h"

/* Whether the enhancement gain limit is a whole number in [1, 2^15] (the
 * defaults, 100 and the NEG models' 1, are). Then r egl is an integer, exact
 * in double (below 2^46 for any int32 r), so the C's rounding of it in the
 * vector lanes changes nothing and its comparisons with t are those of the
 * integers: the enhancement is min(r egl, t) for o > 0 and max(r egl, t) for
 * o < 0 (r has the sign of o there, so with egl >= 1 the result lies between
 * r and t), computed in int32 at scale 0 (|r| <= 2^15, |r egl| <= 2^30) and
 * in int64 at scales 1..3. NaN fails the range test before the conversion. */
static inline int adm_egl_is_small_int(double egl)
{
    return egl >= 1.0 && egl <= 32768.0 && egl == (double)(int32_t)egl;
}

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__)
#include <immintrin.h>
#include "feature/common/x86_avx512.h"

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
    const __m512d r4096 = _mm512_set1_pd(1.0 / 4096.0), dcos = _mm512_set1_pd((double)cos_1deg_sq);
    const __m512i ot = _mm512_add_epi64(_mm512_mul_epi32(o[0], t[0]), _mm512_mul_epi32(o[1], t[1]));
    const __m512i oo = _mm512_add_epi64(_mm512_mul_epi32(o[0], o[0]), _mm512_mul_epi32(o[1], o[1]));
    const __m512i tt = _mm512_add_epi64(_mm512_mul_epi32(t[0], t[0]), _mm512_mul_epi32(t[1], t[1]));
    /* / 4096 as * 2^-12: exact either way (no float reaches the subnormals) */
    const __m512d dp = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(ot)), r4096);
    const __m512d om = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(oo)), r4096);
    const __m512d tm = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(tt)), r4096);
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

/* The dot products of sixteen (h, v) pairs of int16 values (packed as
 * (h, v) words of 32-bit lanes) as floats: vpmaddwd's int32 sum is the C's
 * int64 sum except for 2^31 (both products 2^30, at -2^15 times -2^15),
 * which wraps to INT32_MIN; no sum of two int16 products is -2^31, so that
 * pattern is read back as 2^31. Each integer then converts to the float the
 * C's int64 conversion gives (the same integer, the same rounding). */
static inline __m512 dot16_ps(__m512i p, __m512i q)
{
    const __m512i d = _mm512_madd_epi16(p, q);
    return _mm512_mask_mov_ps(_mm512_cvtepi32_ps(d),
                              _mm512_cmpeq_epi32_mask(d, _mm512_set1_epi32(INT32_MIN)),
                              _mm512_set1_ps(2147483648.0f));
}

/* angle_8 on sixteen coefficients from their float dot products: each to
 * double, / 4096 (exact), products left to right, in two halves of eight. */
static inline __mmask16 angle_16(__m512 ot, __m512 oo, __m512 tt, float cos_1deg_sq)
{
    const __m512d r4096 = _mm512_set1_pd(1.0 / 4096.0), dcos = _mm512_set1_pd((double)cos_1deg_sq);
    __mmask16 ok = 0;
    for (int h = 0; h < 2; h++) {
        const __m512d dp = _mm512_mul_pd(_mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(ot, 1)
                                                           : _mm512_castps512_ps256(ot)), r4096);
        const __m512d om = _mm512_mul_pd(_mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(oo, 1)
                                                           : _mm512_castps512_ps256(oo)), r4096);
        const __m512d tm = _mm512_mul_pd(_mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(tt, 1)
                                                           : _mm512_castps512_ps256(tt)), r4096);
        const __mmask8 k = _mm512_cmp_pd_mask(dp, _mm512_setzero_pd(), _CMP_GE_OQ) &
                           _mm512_cmp_pd_mask(_mm512_mul_pd(dp, dp),
                                              _mm512_mul_pd(_mm512_mul_pd(dcos, om), tm), _CMP_GE_OQ);
        ok |= (__mmask16)((unsigned)k << (8 * h));
    }
    return ok;
}

/* enhance_8 on sixteen int32 lanes: r, t, o int32 values; vec selects the
 * lanes whose g is rounded to an integer. Returns int32 lanes. */
static inline __m512i enhance_16(__m512i r, __m512i t, __m512i o, __mmask16 vec, double egl)
{
    const __m512d e = _mm512_set1_pd(egl);
    __m256i out[2];
    for (int h = 0; h < 2; h++) {
        const __m256i rh = h ? _mm512_extracti64x4_epi64(r, 1) : _mm512_castsi512_si256(r);
        const __m256i th = h ? _mm512_extracti64x4_epi64(t, 1) : _mm512_castsi512_si256(t);
        const __m256i oh = h ? _mm512_extracti64x4_epi64(o, 1) : _mm512_castsi512_si256(o);
        const __mmask8 vh = (__mmask8)(vec >> (8 * h));
        const __m512d rd = _mm512_mul_pd(_mm512_cvtepi32_pd(rh), e);
        const __m512d g = _mm512_mask_roundscale_pd(rd, vh, rd,
                                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512d td = _mm512_cvtepi32_pd(th);
        const __mmask8 pos = _mm256_cmpgt_epi32_mask(oh, _mm256_setzero_si256());
        const __mmask8 take_g = (pos & _mm512_cmp_pd_mask(g, td, _CMP_LT_OQ)) |
                                ((__mmask8)~pos & _mm512_cmp_pd_mask(g, td, _CMP_GT_OQ));
        out[h] = _mm512_cvttpd_epi32(_mm512_mask_blend_pd(take_g, td, g));
    }
    return _mm512_inserti64x4(_mm512_castsi256_si512(out[0]), out[1], 1);
}

/* enhance_16 where the gain limit is a whole number e (adm_egl_is_small_int) */
static inline __m512i enhance_int_16(__m512i r, __m512i t, __m512i o, __m512i e)
{
    const __m512i g = _mm512_mullo_epi32(r, e);
    const __mmask16 pos = _mm512_cmpgt_epi32_mask(o, _mm512_setzero_si512());
    return _mm512_mask_blend_epi32(pos, _mm512_max_epi32(g, t), _mm512_min_epi32(g, t));
}

/* int32 lanes holding int16 values: the low 16 bits, sign-extended */
static inline __m512i s16_32(__m512i v)
{
    return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);
}

/* adm_recip_q30(o) of sixteen int32 lanes holding int16 values (0 outside
 * nz): 2^30 / o in double, truncated, as recip_q30_8 below (exact for every
 * |o| <= 2^15; checkasm checks every o). In place of a 16-lane gather of
 * the table: the same time on Zen 4, adm about 5% slower on a Xeon that
 * needs no gather data sampling mitigation, and far faster on cores that
 * take it, where a gather is several times slower (recip_q30_8). */
static inline __m512i recip_q30_16(__m512i o, __mmask16 nz)
{
    const __m512i d = _mm512_mask_mov_epi32(_mm512_set1_epi32(1), nz, o);
    const __m512d n = _mm512_set1_pd(1073741824.0);
    const __m256i lo = _mm512_cvttpd_epi32(_mm512_div_pd(n, _mm512_cvtepi32_pd(_mm512_castsi512_si256(d))));
    const __m256i hi = _mm512_cvttpd_epi32(_mm512_div_pd(n, _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(d, 1))));
    return _mm512_maskz_mov_epi32(nz, _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
}

/* Scale 0, sixteen coefficients in 32-bit lanes, operation for operation as
 * adm_decouple16_at. The gain's product recip t (up to 2^45) is formed in
 * 64-bit lanes, even and odd columns apart; the clamped gain k fits 16 bits
 * and k o + 2^14 fits int32 (|k o| <= 2^30), so the rest is in 32-bit lanes. */
static void adm_decouple16_row_avx512(const int16_t *const o[3], const int16_t *const t[3],
                                      int16_t *const r[3], int16_t *const a[3], int jb, int je,
                                      int jv, const int32_t *recip, float cos_1deg_sq,
                                      double egl)
{
    (void)recip; /* the reciprocals are divided out (recip_q30_16) */
    const __m512i zero = _mm512_setzero_si512(), q15 = _mm512_set1_epi32(32768);
    const __m512i q15_64 = _mm512_set1_epi64(32768), half64 = _mm512_set1_epi64(16384);
    const __m512i half = _mm512_set1_epi32(16384), low16 = _mm512_set1_epi32(0xffff);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int egl_int = adm_egl_is_small_int(egl);
    const __m512i egl_v = _mm512_set1_epi32(egl_int ? (int32_t)egl : 0);
    for (int j = jb; j < je; j += 16) {
        const __mmask16 m = je - j >= 16 ? 0xffff : (__mmask16)((1u << (je - j)) - 1);
        /* lanes j + l < jv take the vector-lane rounding */
        const __mmask16 vec = _mm512_cmplt_epi32_mask(_mm512_add_epi32(lane, _mm512_set1_epi32(j)),
                                                      _mm512_set1_epi32(jv));
        __m512i vo[3], vt[3];
        for (int k = 0; k < 3; k++) {
            vo[k] = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, o[k] + j));
            vt[k] = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, t[k] + j));
        }
        const __m512i po = _mm512_or_si512(_mm512_and_si512(vo[0], low16), _mm512_slli_epi32(vo[1], 16));
        const __m512i pt = _mm512_or_si512(_mm512_and_si512(vt[0], low16), _mm512_slli_epi32(vt[1], 16));
        const __mmask16 angle = angle_16(dot16_ps(po, pt), dot16_ps(po, po), dot16_ps(pt, pt),
                                         cos_1deg_sq);
        for (int k = 0; k < 3; k++) {
            const __m512i ov = vo[k], tv = vt[k];
            const __mmask16 nz = _mm512_mask_cmpneq_epi32_mask(m, ov, zero);
            /* k = clip((recip[o] t + 2^14) >> 15, 0, 2^15), 2^15 where o = 0 */
            const __m512i rc = recip_q30_16(ov, nz);
            const __m512i qe = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(rc, tv), half64), 15);
            const __m512i qo = _mm512_srai_epi64(_mm512_add_epi64(
                _mm512_mul_epi32(_mm512_srli_epi64(rc, 32), _mm512_srli_epi64(tv, 32)), half64), 15);
            const __m512i ke = _mm512_min_epi64(_mm512_max_epi64(qe, zero), q15_64);
            const __m512i ko = _mm512_min_epi64(_mm512_max_epi64(qo, zero), q15_64);
            const __m512i kk = _mm512_mask_blend_epi32(
                nz, q15, _mm512_mask_blend_epi32(0xaaaa, ke, _mm512_slli_epi64(ko, 32)));
            /* r = (int16)((k o + 2^14) >> 15) */
            __m512i rv = s16_32(_mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(kk, ov), half), 15));
            /* enhancement where the angle passed, k > 0 and o != 0 */
            const __mmask16 en = angle & nz & _mm512_cmpgt_epi32_mask(kk, zero);
            if (en) {
                const __m512i g = egl_int ? enhance_int_16(rv, tv, ov, egl_v)
                                          : enhance_16(rv, tv, ov, vec, egl);
                rv = _mm512_mask_mov_epi32(rv, en, s16_32(g));
            }
            _mm512_mask_cvtepi32_storeu_epi16(r[k] + j, m, rv);
            _mm512_mask_cvtepi32_storeu_epi16(a[k] + j, m, _mm512_sub_epi32(tv, rv));
        }
    }
}
#define ADM_DECOUPLE16_ROW adm_decouple16_row_avx512

/* Scales 1..3, as adm_decouple32_at: |o| >= 2^15 reduced to its top 15 bits
 * (rounded) for the table, the quotient shifted back, the rounding constant
 * an int32 (negative when it reaches bit 31, as the C's conversion). */
/* enhance_8 where the gain limit is a whole number e (adm_egl_is_small_int):
 * int32 values in int64 lanes, r e exact in int64 */
static inline __m512i enhance_int_8(__m512i r, __m512i t, __m512i o, __m512i e)
{
    const __m512i g = _mm512_mul_epi32(r, e);
    const __mmask8 pos = _mm512_cmpgt_epi64_mask(o, _mm512_setzero_si512());
    return _mm512_mask_blend_epi64(pos, _mm512_max_epi64(g, t), _mm512_min_epi64(g, t));
}

static void adm_decouple32_row_avx512(const int32_t *const o[3], const int32_t *const t[3],
                                      int32_t *const r[3], int32_t *const a[3], int jb, int je,
                                      int jv, const int32_t *recip_pos, float cos_1deg_sq,
                                      double egl)
{
    (void)recip_pos; /* the reciprocals are divided out, as in recip_q30_16 */
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
    const __m512i q15 = _mm512_set1_epi64(32768), half = _mm512_set1_epi64(16384);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const int egl_int = adm_egl_is_small_int(egl);
    const __m512i egl_v = _mm512_set1_epi64(egl_int ? (int32_t)egl : 0);
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
            const __m256i rc = _mm256_maskz_mov_epi32(nz, _mm512_cvttpd_epi32(_mm512_div_pd(
                _mm512_set1_pd(1073741824.0), _mm512_cvtepi64_pd(_mm512_mask_mov_epi64(one, nz, mm)))));
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
            if (en) {
                const __m512i g = egl_int ? enhance_int_8(rv, tv, ov, egl_v)
                                          : enhance_8(rv, tv, ov, vec, egl);
                rv = _mm512_mask_mov_epi64(rv, en, s32_64(g));
            }
            _mm512_mask_cvtepi64_storeu_epi32(r[k] + j, m, rv);
            _mm512_mask_cvtepi64_storeu_epi32(a[k] + j, m, _mm512_sub_epi64(tv, rv));
        }
    }
}
#define ADM_DECOUPLE32_ROW adm_decouple32_row_avx512

static void i64_to_float_avx512(const int64_t *x, float *out, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm512_cvtepi64_ps(_mm512_loadu_si512(x + i)));
    for (; i < n; i++) out[i] = (float)x[i];
}
#define ADM_I64_TO_FLOAT i64_to_float_avx512

/* ---- cm, AVX-512 ----------------------------------------------------------- */

/* The row kernels hand what does not fill a block to adm_stages.h's C rows. */
static void cm16_row_c(const int16_t *const v[3], const int16_t *const cm_[3],
                       const int16_t *const fu[3], const int16_t *const fm[3],
                       const int16_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);
static void cm32_row_c(const int32_t *const v[3], const int32_t *const cm_[3],
                       const int32_t *const fu[3], const int32_t *const fm[3],
                       const int32_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);

#define ADM_INLINE static inline __attribute__((always_inline))

/* One orientation's shifts as vector operands. */
typedef struct CmShift512 {
    __m128i sub, sq, cub;
    __m512i sq_add, cub_add;
} CmShift512;

static inline CmShift512 cm_shift512(AdmCmShift s)
{
    CmShift512 r;
    r.sub = _mm_cvtsi32_si128(s.sub);
    r.sq = _mm_cvtsi32_si128(s.sq);
    r.cub = _mm_cvtsi32_si128(s.cub);
    r.sq_add = _mm512_set1_epi64((int64_t)1 << (s.sq - 1));
    r.cub_add = _mm512_set1_epi64(s.cub_add);
    return r;
}

/* The square and cube of adm_cm_term on eight int32 values x (the low
 * halves of the 64-bit lanes, signed): sq = low 32 bits of (x^2 + 2^(sq-1))
 * >> sq, then (sq x + cub_add) >> cub, arithmetic or (logical, AVX2's
 * vector form) logical. */
ADM_INLINE __m512i cm_cube512(__m512i x, const CmShift512 *s, int logical)
{
    const __m512i sq = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, x), s->sq_add), s->sq);
    const __m512i p = _mm512_add_epi64(_mm512_mul_epi32(sq, x), s->cub_add);
    return logical ? _mm512_srl_epi64(p, s->cub) : _mm512_sra_epi64(p, s->cub);
}

/* int32 lanes: the 16 values at p (int16), sign-extended */
ADM_INLINE __m512i ld16_512(const int16_t *p)
{
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p));
}

/* Eight neighbours of the 3x3 window, columns j .. j+15 */
ADM_INLINE __m512i ring16_512(const int16_t *u, const int16_t *m, const int16_t *d, int j)
{
    const __m512i a = _mm512_add_epi32(_mm512_add_epi32(ld16_512(u + j - 1), ld16_512(u + j)),
                                       _mm512_add_epi32(ld16_512(u + j + 1), ld16_512(m + j - 1)));
    const __m512i b = _mm512_add_epi32(_mm512_add_epi32(ld16_512(m + j + 1), ld16_512(d + j - 1)),
                                       _mm512_add_epi32(ld16_512(d + j), ld16_512(d + j + 1)));
    return _mm512_add_epi32(a, b);
}

/* Scale 0, 16 columns from j: adm_cm_thr16 in int32 lanes (the centre kept
 * in 32 bits when vec, else narrowed to int16), then adm_cm_term (or
 * adm_cm_term_avx2 when logical) of each orientation, even and odd columns in
 * 64-bit lanes, added into acc. */
ADM_INLINE void cm16_block512(const int16_t *const v[3], const int16_t *const cm_[3],
                              const int16_t *const fu[3], const int16_t *const fm[3],
                              const int16_t *const fd[3], int j, const __m512i rf[3],
                              const CmShift512 s[3], int vec, int logical, __m512i acc[3])
{
    const __m512i k15 = _mm512_set1_epi32(ADM_Q17_ONE_OVER_15), r12 = _mm512_set1_epi32(2048);
    __m512i thr = _mm512_setzero_si512();
    for (int o = 0; o < 3; o++) {
        const __m512i m = _mm512_abs_epi32(ld16_512(cm_[o] + j));
        __m512i centre = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(m, k15), r12), 12);
        if (!vec) centre = _mm512_srai_epi32(_mm512_slli_epi32(centre, 16), 16);
        thr = _mm512_add_epi32(thr, _mm512_add_epi32(ring16_512(fu[o], fm[o], fd[o], j), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m512i val = _mm512_mullo_epi32(ld16_512(v[o] + j), rf[o]);
        const __m512i x = _mm512_max_epi32(
            _mm512_sub_epi32(_mm512_abs_epi32(val), _mm512_sll_epi32(thr, s[o].sub)),
            _mm512_setzero_si512());
        acc[o] = _mm512_add_epi64(acc[o], _mm512_add_epi64(cm_cube512(x, &s[o], logical),
                                                           cm_cube512(_mm512_srli_epi64(x, 32),
                                                                      &s[o], logical)));
    }
}

static void adm_cm16_row_avx512(const int16_t *const v[3], const int16_t *const cm_[3],
                                const int16_t *const fu[3], const int16_t *const fm[3],
                                const int16_t *const fd[3], int jb, int jv, int je, int isa,
                                const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    __m512i a[3], rf[3];
    CmShift512 s[3];
    for (int o = 0; o < 3; o++) {
        a[o] = _mm512_setzero_si512();
        rf[o] = _mm512_set1_epi32(rfac[o]);
        s[o] = cm_shift512(sh[o]);
    }
    int j = jb;
    if (isa == ADM_ISA_AVX2)
        for (; j + 16 <= jv; j += 16) cm16_block512(v, cm_, fu, fm, fd, j, rf, s, 1, 1, a);
    else
        for (; j + 16 <= jv; j += 16) cm16_block512(v, cm_, fu, fm, fd, j, rf, s, 1, 0, a);
    if (j < jv) cm16_row_c(v, cm_, fu, fm, fd, j, jv, jv, isa, rfac, sh, acc);
    j = j > jv ? j : jv;
    for (; j + 16 <= je; j += 16) cm16_block512(v, cm_, fu, fm, fd, j, rf, s, 0, 0, a);
    if (j < je) cm16_row_c(v, cm_, fu, fm, fd, j, j, je, isa, rfac, sh, acc);
    for (int o = 0; o < 3; o++)
        acc[o] = adm_add_wrap(acc[o], (int64_t)tvmaf_sum_u64x8(a[o]));
}
#define ADM_CM16_ROW adm_cm16_row_avx512

/* int64 lanes: the 8 int32 at p, sign-extended */
ADM_INLINE __m512i ld32x8_512(const int32_t *p)
{
    return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)p));
}

/* int32 lanes: the 16 int32 at p */
ADM_INLINE __m512i ld32x16_512(const int32_t *p)
{
    return _mm512_loadu_si512((const void *)p);
}

/* Scales 1..3, vector lanes, 8 columns from j in 64-bit lanes: adm_cm_thr32's
 * exact sum (wide: AVX2's |INT32_MIN| = 2^31), then adm_cm_term32_v (or
 * adm_cm_term32_avx2 when avx2) of each orientation. */
ADM_INLINE void cm32_vec_block512(const int32_t *const v[3], const int32_t *const cm_[3],
                                  const int32_t *const fu[3], const int32_t *const fm[3],
                                  const int32_t *const fd[3], int j, const __m512i rf[3],
                                  const CmShift512 s[3], int avx2, __m512i acc[3])
{
    const __m512i k15 = _mm512_set1_epi64(ADM_Q32_ONE_OVER_15), zero = _mm512_setzero_si512();
    const __m512i rnd_c = _mm512_set1_epi64(INT32_MIN), rnd_v = _mm512_set1_epi64(1 << 27);
    __m512i thr = zero;
    for (int o = 0; o < 3; o++) {
        /* |c| as an unsigned 32-bit value (2^31 for INT32_MIN) */
        const __m512i m = _mm512_cvtepu32_epi64(_mm256_abs_epi32(_mm256_loadu_si256((const __m256i *)(cm_[o] + j))));
        const __m512i p = avx2 ? _mm512_mul_epu32(m, k15) : _mm512_mul_epi32(m, k15);
        const __m512i centre = _mm512_srai_epi64(_mm512_add_epi64(p, rnd_c), 32);
        const int32_t *fu_ = fu[o], *fm_ = fm[o], *fd_ = fd[o];
        const __m512i r0 = _mm512_add_epi64(_mm512_add_epi64(ld32x8_512(fu_ + j - 1), ld32x8_512(fu_ + j)),
                                            _mm512_add_epi64(ld32x8_512(fu_ + j + 1), ld32x8_512(fm_ + j - 1)));
        const __m512i r1 = _mm512_add_epi64(_mm512_add_epi64(ld32x8_512(fm_ + j + 1), ld32x8_512(fd_ + j - 1)),
                                            _mm512_add_epi64(ld32x8_512(fd_ + j), ld32x8_512(fd_ + j + 1)));
        thr = _mm512_add_epi64(thr, _mm512_add_epi64(_mm512_add_epi64(r0, r1), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m512i x = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(ld32x8_512(v[o] + j), rf[o]),
                                                             rnd_v), 28);
        const __mmask8 neg = _mm512_cmplt_epi64_mask(x, zero);
        /* AVX2's |x| of a negative x: -(int32)x */
        const __m512i ax = avx2 ? _mm512_mask_sub_epi64(x, neg, zero, _mm512_srai_epi64(_mm512_slli_epi64(x, 32), 32))
                                : _mm512_abs_epi64(x);
        const __m512i d = _mm512_max_epi64(_mm512_sub_epi64(ax, thr), zero);
        acc[o] = _mm512_add_epi64(acc[o], cm_cube512(d, &s[o], avx2));
    }
}

/* Scales 1..3, scalar lanes, 16 columns from j in int32 lanes: adm_cm_thr32's
 * low 32 bits (its wrapping int32 sum), adm_cm_value32 (rfac unsigned, hi:
 * rfac >= 2^31), adm_cm_term. */
ADM_INLINE void cm32_sca_block512(const int32_t *const v[3], const int32_t *const cm_[3],
                                  const int32_t *const fu[3], const int32_t *const fm[3],
                                  const int32_t *const fd[3], int j, const __m512i rf[3],
                                  const int hi[3], const CmShift512 s[3], __m512i acc[3])
{
    const __m512i k15 = _mm512_set1_epi64(ADM_Q32_ONE_OVER_15), zero = _mm512_setzero_si512();
    const __m512i rnd_c = _mm512_set1_epi64(INT32_MIN), rnd_v = _mm512_set1_epi64(1 << 27);
    const __m512i hi_mask = _mm512_set1_epi64((int64_t)0xffffffff00000000ull);
    __m512i thr = zero;
    for (int o = 0; o < 3; o++) {
        const __m512i m = _mm512_abs_epi32(ld32x16_512(cm_[o] + j)); /* INT32_MIN stays */
        const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(m, k15), rnd_c);
        const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(m, 32), k15), rnd_c);
        /* the high halves: (p + INT32_MIN) >> 32 as int32 */
        const __m512i centre = _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(pe, 32), po);
        const int32_t *u = fu[o], *mm = fm[o], *d = fd[o];
        const __m512i r0 = _mm512_add_epi32(_mm512_add_epi32(ld32x16_512(u + j - 1), ld32x16_512(u + j)),
                                            _mm512_add_epi32(ld32x16_512(u + j + 1), ld32x16_512(mm + j - 1)));
        const __m512i r1 = _mm512_add_epi32(_mm512_add_epi32(ld32x16_512(mm + j + 1), ld32x16_512(d + j - 1)),
                                            _mm512_add_epi32(ld32x16_512(d + j), ld32x16_512(d + j + 1)));
        thr = _mm512_add_epi32(thr, _mm512_add_epi32(_mm512_add_epi32(r0, r1), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m512i val = ld32x16_512(v[o] + j);
        /* rfac (unsigned) * val = (int32)rfac * val + (rfac >= 2^31 ? val << 32 : 0) */
        __m512i pe = _mm512_mul_epi32(val, rf[o]);
        __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(val, 32), rf[o]);
        if (hi[o]) {
            pe = _mm512_add_epi64(pe, _mm512_slli_epi64(val, 32));
            po = _mm512_add_epi64(po, _mm512_and_si512(val, hi_mask));
        }
        /* bits 28..59 of p + 2^27: the int32 of the rounded value */
        const __m512i w = _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(_mm512_add_epi64(pe, rnd_v), 28),
                                                  _mm512_slli_epi64(_mm512_add_epi64(po, rnd_v), 4));
        const __m512i x = _mm512_max_epi32(
            _mm512_sub_epi32(_mm512_abs_epi32(w), _mm512_sll_epi32(thr, s[o].sub)), zero);
        acc[o] = _mm512_add_epi64(acc[o], _mm512_add_epi64(cm_cube512(x, &s[o], 0),
                                                           cm_cube512(_mm512_srli_epi64(x, 32),
                                                                      &s[o], 0)));
    }
}

static void adm_cm32_row_avx512(const int32_t *const v[3], const int32_t *const cm_[3],
                                const int32_t *const fu[3], const int32_t *const fm[3],
                                const int32_t *const fd[3], int jb, int jv, int je, int isa,
                                const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    __m512i a[3], rf[3];
    CmShift512 s[3];
    int hi[3];
    for (int o = 0; o < 3; o++) {
        a[o] = _mm512_setzero_si512();
        rf[o] = _mm512_set1_epi64((int64_t)(int32_t)rfac[o]);
        hi[o] = rfac[o] >= 0x80000000u;
        s[o] = cm_shift512(sh[o]);
    }
    int j = jb;
    if (isa == ADM_ISA_AVX2)
        for (; j + 8 <= jv; j += 8) cm32_vec_block512(v, cm_, fu, fm, fd, j, rf, s, 1, a);
    else
        for (; j + 8 <= jv; j += 8) cm32_vec_block512(v, cm_, fu, fm, fd, j, rf, s, 0, a);
    if (j < jv) cm32_row_c(v, cm_, fu, fm, fd, j, jv, jv, isa, rfac, sh, acc);
    j = j > jv ? j : jv;
    for (; j + 16 <= je; j += 16) cm32_sca_block512(v, cm_, fu, fm, fd, j, rf, hi, s, a);
    if (j < je) cm32_row_c(v, cm_, fu, fm, fd, j, j, je, isa, rfac, sh, acc);
    for (int o = 0; o < 3; o++)
        acc[o] = adm_add_wrap(acc[o], (int64_t)tvmaf_sum_u64x8(a[o]));
}
#define ADM_CM32_ROW adm_cm32_row_avx512

#elif defined(__AVX2__)
#include <immintrin.h>

/* ---- cm, AVX2 ------------------------------------------------------------ */

/* The row kernels hand what does not fill a block to adm_stages.h's C rows. */
static void cm16_row_c(const int16_t *const v[3], const int16_t *const cm_[3],
                       const int16_t *const fu[3], const int16_t *const fm[3],
                       const int16_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);
static void cm32_row_c(const int32_t *const v[3], const int32_t *const cm_[3],
                       const int32_t *const fu[3], const int32_t *const fm[3],
                       const int32_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);

#define ADM_INLINE static inline __attribute__((always_inline))

/* ---- decouple, scale 0, AVX2 ------------------------------------------------ */

static void decouple16_row_c(const int16_t *const o[3], const int16_t *const t[3],
                             int16_t *const r[3], int16_t *const a[3], int jb, int je, int jv,
                             const int32_t *recip, float cos_1deg_sq, double egl);

/* int32 lanes: the 8 values at p (int16), sign-extended */
ADM_INLINE __m256i ld16_256(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* Stores the low 16 bits of eight int32 lanes. */
ADM_INLINE void st16_256(int16_t *p, __m256i v)
{
    const __m256i l = _mm256_packus_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xffff)),
                                          _mm256_setzero_si256());
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(_mm256_permute4x64_epi64(l, 0xd8)));
}

/* (float) of a 2-term int16 dot product: madd's int32 wraps only at
 * (-2^15)^2 + (-2^15)^2 = 2^31 (no sum reaches -2^31), which is taken back. */
ADM_INLINE __m256 dot_ps(__m256i pairs_a, __m256i pairs_b)
{
    const __m256i d = _mm256_madd_epi16(pairs_a, pairs_b);
    const __m256i wrapped = _mm256_cmpeq_epi32(d, _mm256_set1_epi32(INT32_MIN));
    return _mm256_blendv_ps(_mm256_cvtepi32_ps(d), _mm256_set1_ps(2147483648.0f),
                            _mm256_castsi256_ps(wrapped));
}

/* The (h, v) int16 pairs of eight coefficients, for madd. */
ADM_INLINE __m256i pairs16(const int16_t *h, const int16_t *v)
{
    const __m128i a = _mm_loadu_si128((const __m128i *)h), b = _mm_loadu_si128((const __m128i *)v);
    return _mm256_set_m128i(_mm_unpackhi_epi16(a, b), _mm_unpacklo_epi16(a, b));
}

/* adm_angle_within_1deg on four lanes: each float to double, / 4096 (a
 * multiplication by 2^-12, exact as the division is: no value is subnormal),
 * the products left to right. */
ADM_INLINE int angle_4(__m128 ot, __m128 oo, __m128 tt, __m256d c)
{
    const __m256d q = _mm256_set1_pd(1.0 / 4096.0);
    const __m256d dp = _mm256_mul_pd(_mm256_cvtps_pd(ot), q);
    const __m256d om = _mm256_mul_pd(_mm256_cvtps_pd(oo), q);
    const __m256d tm = _mm256_mul_pd(_mm256_cvtps_pd(tt), q);
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(dp, _mm256_setzero_pd(), _CMP_GE_OQ),
                                     _mm256_cmp_pd(_mm256_mul_pd(dp, dp),
                                                   _mm256_mul_pd(_mm256_mul_pd(c, om), tm),
                                                   _CMP_GE_OQ));
    return _mm256_movemask_pd(ok);
}

/* adm_enhance's value on four lanes it changes, truncated to int32 (in
 * range: t or between r and t): g = r egl (rounded to an integer in vec
 * lanes), then o > 0: g < t ? g : t; else g > t ? g : t. */
ADM_INLINE __m128i enhance_4(__m128i r, __m128i t, __m128i o, __m256d vec, __m256d egl)
{
    const __m256d rd = _mm256_mul_pd(_mm256_cvtepi32_pd(r), egl);
    const __m256d g = _mm256_blendv_pd(rd, _mm256_round_pd(rd, _MM_FROUND_TO_NEAREST_INT |
                                                                   _MM_FROUND_NO_EXC), vec);
    const __m256d td = _mm256_cvtepi32_pd(t);
    const __m256d pos = _mm256_cmp_pd(_mm256_cvtepi32_pd(o), _mm256_setzero_pd(), _CMP_GT_OQ);
    const __m256d take_g = _mm256_blendv_pd(_mm256_cmp_pd(g, td, _CMP_GT_OQ),
                                            _mm256_cmp_pd(g, td, _CMP_LT_OQ), pos);
    return _mm256_cvttpd_epi32(_mm256_blendv_pd(td, g, take_g));
}

/* adm_recip_q30(o) of eight int16 values o (0 where z): 2^30 / o in double,
 * truncated. Exact: for |o| <= 2^15 that is not a power of two the quotient
 * lies at least 1/|o| >= 2^-15 from an integer, and the double's rounding
 * error is below 2^-23, so truncation gives the integer quotient (powers of
 * two divide exactly; checkasm checks every o). It replaces a table gather:
 * on the H200 host's Xeon adm with the gathering AVX2 decouple ran at 0.77x
 * of adm with the C one (gathers are slow on processors with the gather data
 * sampling mitigation); here (AMD) the division is the faster of the two. */
ADM_INLINE __m256i recip_q30_8(__m256i o, __m256i z)
{
    const __m256i d = _mm256_blendv_epi8(o, _mm256_set1_epi32(1), z);
    const __m256d n = _mm256_set1_pd(1073741824.0);
    const __m128i lo = _mm256_cvttpd_epi32(_mm256_div_pd(n, _mm256_cvtepi32_pd(_mm256_castsi256_si128(d))));
    const __m128i hi = _mm256_cvttpd_epi32(_mm256_div_pd(n, _mm256_cvtepi32_pd(_mm256_extracti128_si256(d, 1))));
    return _mm256_andnot_si256(z, _mm256_set_m128i(hi, lo));
}

/* int32 lanes holding int16 values: the low 16 bits, sign-extended */
ADM_INLINE __m256i s16_256(__m256i v)
{
    return _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
}

/* Scale 0 decouple, eight coefficients at a time, operation for operation as
 * adm_decouple16_at; the columns after the last full block go to the C row. */
static void adm_decouple16_row_avx2(const int16_t *const o[3], const int16_t *const t[3],
                                    int16_t *const r[3], int16_t *const a[3], int jb, int je,
                                    int jv, const int32_t *recip, float cos_1deg_sq, double egl)
{
    const __m256i zero = _mm256_setzero_si256(), q15 = _mm256_set1_epi32(32768);
    const __m256i half = _mm256_set1_epi64x(16384), half32 = _mm256_set1_epi32(16384);
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256d c = _mm256_set1_pd((double)cos_1deg_sq), eg = _mm256_set1_pd(egl);
    const int egl_int = adm_egl_is_small_int(egl);
    const __m256i egl_v = _mm256_set1_epi32(egl_int ? (int32_t)egl : 0);
    int j = jb;
    for (; j + 8 <= je; j += 8) {
        const __m256i po = pairs16(o[0] + j, o[1] + j), pt = pairs16(t[0] + j, t[1] + j);
        const __m256 ot = dot_ps(po, pt), oo = dot_ps(po, po), tt = dot_ps(pt, pt);
        const int ang = angle_4(_mm256_castps256_ps128(ot), _mm256_castps256_ps128(oo),
                                _mm256_castps256_ps128(tt), c) |
                        angle_4(_mm256_extractf128_ps(ot, 1), _mm256_extractf128_ps(oo, 1),
                                _mm256_extractf128_ps(tt, 1), c) << 4;
        const __m256i angle = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(ang), bits), bits);
        /* lanes j + l < jv take the vector-lane rounding (two halves) */
        const __m256i jvv = _mm256_set1_epi64x(jv);
        const __m256d vec0 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(jvv, _mm256_add_epi64(lane, _mm256_set1_epi64x(j))));
        const __m256d vec1 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(jvv, _mm256_add_epi64(lane, _mm256_set1_epi64x(j + 4))));
        for (int k = 0; k < 3; k++) {
            const __m256i ov = ld16_256(o[k] + j), tv = ld16_256(t[k] + j);
            const __m256i z = _mm256_cmpeq_epi32(ov, zero);
            /* q = (recip[o] t + 2^14) >> 15 in int64, k = clip(q, 0, 2^15) */
            const __m256i rc = recip_q30_8(ov, z);
            const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(rc, tv), half);
            const __m256i pd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(rc, 32),
                                                                 _mm256_srli_epi64(tv, 32)), half);
            const __m256i neg = _mm256_blend_epi32(_mm256_cmpgt_epi64(zero, pe),
                                                   _mm256_cmpgt_epi64(zero, pd), 0xaa);
            const __m256i q = _mm256_blend_epi32(_mm256_srli_epi64(pe, 15), _mm256_slli_epi64(pd, 17), 0xaa);
            __m256i kk = _mm256_andnot_si256(neg, _mm256_min_epi32(q, q15));
            kk = _mm256_blendv_epi8(kk, q15, z);
            /* r = (int16)((k o + 2^14) >> 15) */
            __m256i rv = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(kk, ov), half32), 15);
            rv = s16_256(rv);
            /* enhancement where the angle passed, k > 0 and o != 0 */
            const __m256i en = _mm256_andnot_si256(z, _mm256_and_si256(angle, _mm256_cmpgt_epi32(kk, zero)));
            if (!_mm256_testz_si256(en, en) && egl_int) {
                /* adm_egl_is_small_int: min(r e, t) for o > 0, else max */
                const __m256i g = _mm256_mullo_epi32(rv, egl_v);
                const __m256i pos = _mm256_cmpgt_epi32(ov, zero);
                rv = _mm256_blendv_epi8(rv, s16_256(_mm256_blendv_epi8(_mm256_max_epi32(g, tv),
                                                                       _mm256_min_epi32(g, tv), pos)),
                                        en);
            } else if (!_mm256_testz_si256(en, en)) {
                const __m128i g0 = enhance_4(_mm256_castsi256_si128(rv), _mm256_castsi256_si128(tv),
                                             _mm256_castsi256_si128(ov), vec0, eg);
                const __m128i g1 = enhance_4(_mm256_extracti128_si256(rv, 1), _mm256_extracti128_si256(tv, 1),
                                             _mm256_extracti128_si256(ov, 1), vec1, eg);
                rv = _mm256_blendv_epi8(rv, s16_256(_mm256_set_m128i(g1, g0)), en);
            }
            st16_256(r[k] + j, rv);
            st16_256(a[k] + j, _mm256_sub_epi32(tv, rv));
        }
    }
    if (j < je) decouple16_row_c(o, t, r, a, j, je, jv, recip, cos_1deg_sq, egl);
}
#define ADM_DECOUPLE16_ROW adm_decouple16_row_avx2

/* cub_add_b: cub_add + 2^63 (modulo 2^64); cub_bias: 2^(63 - cub), what
 * each cube term of cm_cube256's arithmetic form owes (cm_cube_owed) */
typedef struct CmShift256 {
    __m128i sub, sq, cub;
    __m256i sq_add, cub_add, cub_add_b;
    uint64_t cub_bias;
} CmShift256;

static inline CmShift256 cm_shift256(AdmCmShift s)
{
    CmShift256 r;
    r.sub = _mm_cvtsi32_si128(s.sub);
    r.sq = _mm_cvtsi32_si128(s.sq);
    r.cub = _mm_cvtsi32_si128(s.cub);
    r.sq_add = _mm256_set1_epi64x((int64_t)1 << (s.sq - 1));
    r.cub_add = _mm256_set1_epi64x(s.cub_add);
    r.cub_add_b = _mm256_set1_epi64x((int64_t)((uint64_t)s.cub_add + (UINT64_C(1) << 63)));
    r.cub_bias = (UINT64_C(1) << 63) >> s.cub;
    return r;
}

/* what n cube terms of cm_cube256's arithmetic form owe, modulo 2^64 */
static inline uint64_t cm_cube_owed(const CmShift256 *s, uint64_t n)
{
    return n * s->cub_bias;
}

/* 64-bit arithmetic right shift (AVX2 has only the logical one): shifting
 * ~p logically and inverting back where p < 0. */
ADM_INLINE __m256i sra64_256(__m256i p, __m128i n)
{
    const __m256i sg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(p, sg), n), sg);
}

/* The low 32 bits of each 64-bit lane, sign-extended. */
ADM_INLINE __m256i sext_lo32_256(__m256i x)
{
    const __m256i t = _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 2, 0, 0));
    return _mm256_blend_epi32(t, _mm256_srai_epi32(t, 31), 0xaa);
}

/* The high 32 bits of each 64-bit lane, sign-extended: x >> 32. */
ADM_INLINE __m256i sext_hi32_256(__m256i x)
{
    const __m256i t = _mm256_shuffle_epi32(x, _MM_SHUFFLE(3, 3, 1, 1));
    return _mm256_blend_epi32(t, _mm256_srai_epi32(t, 31), 0xaa);
}

/* The square and cube of adm_cm_term on four int32 values x (the low halves
 * of the 64-bit lanes, signed), as cm_cube512. The arithmetic shift of p
 * (AVX2 has none for 64 bits) is taken as the logical shift of p + 2^63,
 * which is 2^(63 - cub) more: floor((p + 2^63) / 2^cub) = floor(p / 2^cub) +
 * 2^(63 - cub) for every int64 p. The terms are only added (modulo 2^64),
 * so the caller takes that away once for all of them (cm_cube_owed): two
 * operations less a term than shifting ~p where p < 0. */
ADM_INLINE __m256i cm_cube256(__m256i x, const CmShift256 *s, int logical)
{
    const __m256i sq = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, x), s->sq_add), s->sq);
    const __m256i p = _mm256_add_epi64(_mm256_mul_epi32(sq, x), logical ? s->cub_add : s->cub_add_b);
    return _mm256_srl_epi64(p, s->cub);
}

ADM_INLINE __m256i ring16_256(const int16_t *u, const int16_t *m, const int16_t *d, int j)
{
    const __m256i a = _mm256_add_epi32(_mm256_add_epi32(ld16_256(u + j - 1), ld16_256(u + j)),
                                       _mm256_add_epi32(ld16_256(u + j + 1), ld16_256(m + j - 1)));
    const __m256i b = _mm256_add_epi32(_mm256_add_epi32(ld16_256(m + j + 1), ld16_256(d + j - 1)),
                                       _mm256_add_epi32(ld16_256(d + j), ld16_256(d + j + 1)));
    return _mm256_add_epi32(a, b);
}

/* Scale 0, 8 columns from j, as cm16_block512. */
ADM_INLINE void cm16_block256(const int16_t *const v[3], const int16_t *const cm_[3],
                              const int16_t *const fu[3], const int16_t *const fm[3],
                              const int16_t *const fd[3], int j, const __m256i rf[3],
                              const CmShift256 s[3], int vec, int logical, __m256i acc[3])
{
    const __m256i k15 = _mm256_set1_epi32(ADM_Q17_ONE_OVER_15), r12 = _mm256_set1_epi32(2048);
    __m256i thr = _mm256_setzero_si256();
    for (int o = 0; o < 3; o++) {
        const __m256i m = _mm256_abs_epi32(ld16_256(cm_[o] + j));
        __m256i centre = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(m, k15), r12), 12);
        if (!vec) centre = _mm256_srai_epi32(_mm256_slli_epi32(centre, 16), 16);
        thr = _mm256_add_epi32(thr, _mm256_add_epi32(ring16_256(fu[o], fm[o], fd[o], j), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m256i val = _mm256_mullo_epi32(ld16_256(v[o] + j), rf[o]);
        const __m256i x = _mm256_max_epi32(
            _mm256_sub_epi32(_mm256_abs_epi32(val), _mm256_sll_epi32(thr, s[o].sub)),
            _mm256_setzero_si256());
        acc[o] = _mm256_add_epi64(acc[o], _mm256_add_epi64(cm_cube256(x, &s[o], logical),
                                                           cm_cube256(_mm256_srli_epi64(x, 32),
                                                                      &s[o], logical)));
    }
}

ADM_INLINE int64_t hsum64_256(__m256i a)
{
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    return (int64_t)((uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1));
}

static void adm_cm16_row_avx2(const int16_t *const v[3], const int16_t *const cm_[3],
                              const int16_t *const fu[3], const int16_t *const fm[3],
                              const int16_t *const fd[3], int jb, int jv, int je, int isa,
                              const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    __m256i a[3], rf[3];
    CmShift256 s[3];
    for (int o = 0; o < 3; o++) {
        a[o] = _mm256_setzero_si256();
        rf[o] = _mm256_set1_epi32(rfac[o]);
        s[o] = cm_shift256(sh[o]);
    }
    int j = jb;
    /* the cube terms of the arithmetic form (cm_cube256): two a lane a block */
    uint64_t terms = 0;
    if (isa == ADM_ISA_AVX2) {
        for (; j + 8 <= jv; j += 8) cm16_block256(v, cm_, fu, fm, fd, j, rf, s, 1, 1, a);
    } else {
        for (; j + 8 <= jv; j += 8, terms += 8) cm16_block256(v, cm_, fu, fm, fd, j, rf, s, 1, 0, a);
    }
    if (j < jv) cm16_row_c(v, cm_, fu, fm, fd, j, jv, jv, isa, rfac, sh, acc);
    j = j > jv ? j : jv;
    for (; j + 8 <= je; j += 8, terms += 8) cm16_block256(v, cm_, fu, fm, fd, j, rf, s, 0, 0, a);
    if (j < je) cm16_row_c(v, cm_, fu, fm, fd, j, j, je, isa, rfac, sh, acc);
    for (int o = 0; o < 3; o++)
        acc[o] = adm_add_wrap(acc[o], (int64_t)((uint64_t)hsum64_256(a[o]) -
                                                cm_cube_owed(&s[o], terms)));
}
#define ADM_CM16_ROW adm_cm16_row_avx2

/* int64 lanes: the 4 int32 at p, sign-extended */
ADM_INLINE __m256i ld32x4_256(const int32_t *p)
{
    return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)p));
}

ADM_INLINE __m256i ld32x8_256(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Scales 1..3, vector lanes, 4 columns from j in 64-bit lanes, as
 * cm32_vec_block512. */
ADM_INLINE void cm32_vec_block256(const int32_t *const v[3], const int32_t *const cm_[3],
                                  const int32_t *const fu[3], const int32_t *const fm[3],
                                  const int32_t *const fd[3], int j, const __m256i rf[3],
                                  const CmShift256 s[3], int avx2, __m256i acc[3])
{
    const __m256i k15 = _mm256_set1_epi64x(ADM_Q32_ONE_OVER_15), zero = _mm256_setzero_si256();
    const __m256i rnd_c = _mm256_set1_epi64x(INT32_MIN), rnd_v = _mm256_set1_epi64x(1 << 27);
    const __m128i n28 = _mm_cvtsi32_si128(28);
    __m256i thr = zero;
    for (int o = 0; o < 3; o++) {
        /* |c| as an unsigned 32-bit value (2^31 for INT32_MIN) */
        const __m256i m = _mm256_cvtepu32_epi64(_mm_abs_epi32(_mm_loadu_si128((const __m128i *)(cm_[o] + j))));
        const __m256i p = avx2 ? _mm256_mul_epu32(m, k15) : _mm256_mul_epi32(m, k15);
        const __m256i centre = sext_hi32_256(_mm256_add_epi64(p, rnd_c));
        const int32_t *u = fu[o], *mm = fm[o], *d = fd[o];
        const __m256i r0 = _mm256_add_epi64(_mm256_add_epi64(ld32x4_256(u + j - 1), ld32x4_256(u + j)),
                                            _mm256_add_epi64(ld32x4_256(u + j + 1), ld32x4_256(mm + j - 1)));
        const __m256i r1 = _mm256_add_epi64(_mm256_add_epi64(ld32x4_256(mm + j + 1), ld32x4_256(d + j - 1)),
                                            _mm256_add_epi64(ld32x4_256(d + j), ld32x4_256(d + j + 1)));
        thr = _mm256_add_epi64(thr, _mm256_add_epi64(_mm256_add_epi64(r0, r1), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m256i x = sra64_256(_mm256_add_epi64(_mm256_mul_epi32(ld32x4_256(v[o] + j), rf[o]),
                                                     rnd_v), n28);
        const __m256i neg = _mm256_cmpgt_epi64(zero, x);
        /* |x|; AVX2's of a negative x: -(int32)x */
        const __m256i ax = avx2 ? _mm256_blendv_epi8(x, _mm256_sub_epi64(zero, sext_lo32_256(x)), neg)
                                : _mm256_sub_epi64(_mm256_xor_si256(x, neg), neg);
        const __m256i d = _mm256_sub_epi64(ax, thr);
        const __m256i dp = _mm256_and_si256(d, _mm256_cmpgt_epi64(d, zero));
        acc[o] = _mm256_add_epi64(acc[o], cm_cube256(dp, &s[o], avx2));
    }
}

/* Scales 1..3, scalar lanes, 8 columns from j in int32 lanes, as
 * cm32_sca_block512. */
ADM_INLINE void cm32_sca_block256(const int32_t *const v[3], const int32_t *const cm_[3],
                                  const int32_t *const fu[3], const int32_t *const fm[3],
                                  const int32_t *const fd[3], int j, const __m256i rf[3],
                                  const int hi[3], const CmShift256 s[3], __m256i acc[3])
{
    const __m256i k15 = _mm256_set1_epi64x(ADM_Q32_ONE_OVER_15), zero = _mm256_setzero_si256();
    const __m256i rnd_c = _mm256_set1_epi64x(INT32_MIN), rnd_v = _mm256_set1_epi64x(1 << 27);
    const __m256i hi_mask = _mm256_set1_epi64x((int64_t)0xffffffff00000000ull);
    __m256i thr = zero;
    for (int o = 0; o < 3; o++) {
        const __m256i m = _mm256_abs_epi32(ld32x8_256(cm_[o] + j)); /* INT32_MIN stays */
        const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(m, k15), rnd_c);
        const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(m, 32), k15), rnd_c);
        const __m256i centre = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xaa);
        const int32_t *u = fu[o], *mm = fm[o], *d = fd[o];
        const __m256i r0 = _mm256_add_epi32(_mm256_add_epi32(ld32x8_256(u + j - 1), ld32x8_256(u + j)),
                                            _mm256_add_epi32(ld32x8_256(u + j + 1), ld32x8_256(mm + j - 1)));
        const __m256i r1 = _mm256_add_epi32(_mm256_add_epi32(ld32x8_256(mm + j + 1), ld32x8_256(d + j - 1)),
                                            _mm256_add_epi32(ld32x8_256(d + j), ld32x8_256(d + j + 1)));
        thr = _mm256_add_epi32(thr, _mm256_add_epi32(_mm256_add_epi32(r0, r1), centre));
    }
    for (int o = 0; o < 3; o++) {
        const __m256i val = ld32x8_256(v[o] + j);
        __m256i pe = _mm256_mul_epi32(val, rf[o]);
        __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(val, 32), rf[o]);
        if (hi[o]) {
            pe = _mm256_add_epi64(pe, _mm256_slli_epi64(val, 32));
            po = _mm256_add_epi64(po, _mm256_and_si256(val, hi_mask));
        }
        const __m256i w = _mm256_blend_epi32(_mm256_srli_epi64(_mm256_add_epi64(pe, rnd_v), 28),
                                             _mm256_slli_epi64(_mm256_add_epi64(po, rnd_v), 4), 0xaa);
        const __m256i x = _mm256_max_epi32(
            _mm256_sub_epi32(_mm256_abs_epi32(w), _mm256_sll_epi32(thr, s[o].sub)), zero);
        acc[o] = _mm256_add_epi64(acc[o], _mm256_add_epi64(cm_cube256(x, &s[o], 0),
                                                           cm_cube256(_mm256_srli_epi64(x, 32),
                                                                      &s[o], 0)));
    }
}

static void adm_cm32_row_avx2(const int32_t *const v[3], const int32_t *const cm_[3],
                              const int32_t *const fu[3], const int32_t *const fm[3],
                              const int32_t *const fd[3], int jb, int jv, int je, int isa,
                              const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    __m256i a[3], rf[3];
    CmShift256 s[3];
    int hi[3];
    for (int o = 0; o < 3; o++) {
        a[o] = _mm256_setzero_si256();
        rf[o] = _mm256_set1_epi64x((int64_t)(int32_t)rfac[o]);
        hi[o] = rfac[o] >= 0x80000000u;
        s[o] = cm_shift256(sh[o]);
    }
    int j = jb;
    /* the cube terms of the arithmetic form (cm_cube256): a lane's one or
     * two a block */
    uint64_t terms = 0;
    if (isa == ADM_ISA_AVX2) {
        for (; j + 4 <= jv; j += 4) cm32_vec_block256(v, cm_, fu, fm, fd, j, rf, s, 1, a);
    } else {
        for (; j + 4 <= jv; j += 4, terms += 4) cm32_vec_block256(v, cm_, fu, fm, fd, j, rf, s, 0, a);
    }
    if (j < jv) cm32_row_c(v, cm_, fu, fm, fd, j, jv, jv, isa, rfac, sh, acc);
    j = j > jv ? j : jv;
    for (; j + 8 <= je; j += 8, terms += 8) cm32_sca_block256(v, cm_, fu, fm, fd, j, rf, hi, s, a);
    if (j < je) cm32_row_c(v, cm_, fu, fm, fd, j, j, je, isa, rfac, sh, acc);
    for (int o = 0; o < 3; o++)
        acc[o] = adm_add_wrap(acc[o], (int64_t)((uint64_t)hsum64_256(a[o]) -
                                                cm_cube_owed(&s[o], terms)));
}
#define ADM_CM32_ROW adm_cm32_row_avx2

/* ---- decouple, scales 1..3, AVX2 ------------------------------------------ */

static void decouple32_row_c(const int32_t *const o[3], const int32_t *const t[3],
                             int32_t *const r[3], int32_t *const a[3], int jb, int je, int jv,
                             const int32_t *recip, float cos_1deg_sq, double egl);

/* non-negative int64 lanes below 2^52 as doubles, exactly: or-ed into the
 * mantissa of 2^52 (whose unit is 1), which is then taken away */
ADM_INLINE __m256d u52_pd(__m256i y)
{
    const __m256i two52 = _mm256_set1_epi64x(0x4330000000000000ll);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(y, two52)),
                         _mm256_castsi256_pd(two52));
}

/* (float) of four int64 lanes, rounded once to nearest as the C's
 * conversion, which AVX2 lacks. The magnitude m (2^63 for INT64_MIN, read
 * unsigned) goes to double exactly when below 2^52; above, its low 12 bits
 * are first folded into one sticky bit, (m >> 12) | (any of them set), and
 * the double scaled back by 2^12: a float keeps 24 bits and m has at least
 * 53, so every folded bit lies below the float's rounding bit, and the
 * rounding sees the same kept bits, rounding bit and "anything below" as
 * for m itself. Then the sign, and one rounding to float. */
ADM_INLINE __m128 i64_ps4(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i neg = _mm256_cmpgt_epi64(zero, x);
    const __m256i m = _mm256_sub_epi64(_mm256_xor_si256(x, neg), neg);
    const __m256i big = _mm256_cmpgt_epi64(_mm256_srli_epi64(m, 52), zero);
    const __m256i sticky = _mm256_andnot_si256(
        _mm256_cmpeq_epi64(_mm256_and_si256(m, _mm256_set1_epi64x(0xfff)), zero),
        _mm256_set1_epi64x(1));
    const __m256i y = _mm256_blendv_epi8(m, _mm256_or_si256(_mm256_srli_epi64(m, 12), sticky), big);
    __m256d d = u52_pd(y);
    d = _mm256_blendv_pd(d, _mm256_mul_pd(d, _mm256_set1_pd(4096.0)), _mm256_castsi256_pd(big));
    d = _mm256_xor_pd(d, _mm256_and_pd(_mm256_castsi256_pd(neg), _mm256_set1_pd(-0.0)));
    return _mm256_cvtpd_ps(d);
}

/* (float) of four int64 lanes of magnitude below 2^51: the lane plus
 * 1.5 2^52 is that double's bit pattern (its unit 1), so one subtraction
 * gives the integer exactly as a double, then one rounding to float, as
 * the C's conversion. */
ADM_INLINE __m128 s51_ps4(__m256i x)
{
    const __m256i bias = _mm256_set1_epi64x(0x4338000000000000ll);
    return _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, bias)),
                                         _mm256_castsi256_pd(bias)));
}

/* 64-bit arithmetic right shift by per-lane counts (sra64_256 with srlv). */
ADM_INLINE __m256i srav64_256(__m256i p, __m256i n)
{
    const __m256i sg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
    return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(p, sg), n), sg);
}

/* The low 32-bit halves of four 64-bit lanes, as four int32. */
ADM_INLINE __m128i lo32x4(__m256i x)
{
    return _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}

/*
 * Scales 1..3 decouple, four coefficients at a time in 64-bit lanes,
 * operation for operation as adm_decouple32_at (the AVX-512 kernel's steps,
 * with what AVX2 lacks built from what it has):
 * - the int64 dot products (modulo 2^64) to float (AVX2 has no int64
 *   conversion): by s51_ps4 when all of a block's are below 2^51 (15% off
 *   the kernel's time on Zen 4), else by i64_ps4;
 * - |o| >= 2^15 reduced to its top 15 bits: floor(log2 |o|) from the
 *   exponent of |o| as a double (exact below 2^32), sh = that - 14
 *   (= 17 - clz32);
 * - the table entry adm_recip_q30(m), m in [1, 2^15], as 2^30 / m in
 *   double, truncated (exact, as recip_q30_8; checkasm checks every m);
 * - the 64-bit arithmetic shifts by the per-lane count 15 + sh from logical
 *   ones, the int32 rounding constant 1 << (14 + sh) sign-extended (bit 31
 *   negative, as the C's conversion), the clamps by compares.
 * The enhancement as scale 0's (enhance_4); columns after the last full
 * block go to the C row.
 */
static void adm_decouple32_row_avx2(const int32_t *const o[3], const int32_t *const t[3],
                                    int32_t *const r[3], int32_t *const a[3], int jb, int je,
                                    int jv, const int32_t *recip, float cos_1deg_sq, double egl)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1);
    const __m256i q15 = _mm256_set1_epi64x(32768), half = _mm256_set1_epi64x(16384);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256d c = _mm256_set1_pd((double)cos_1deg_sq), eg = _mm256_set1_pd(egl);
    const __m256d n30 = _mm256_set1_pd(1073741824.0);
    const int egl_int = adm_egl_is_small_int(egl);
    const __m256i egl_v = _mm256_set1_epi64x(egl_int ? (int32_t)egl : 0);
    int j = jb;
    for (; j + 4 <= je; j += 4) {
        __m256i vo[3], vt[3];
        for (int k = 0; k < 3; k++) {
            vo[k] = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(o[k] + j)));
            vt[k] = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(t[k] + j)));
        }
        const __m256i ot = _mm256_add_epi64(_mm256_mul_epi32(vo[0], vt[0]), _mm256_mul_epi32(vo[1], vt[1]));
        const __m256i oo = _mm256_add_epi64(_mm256_mul_epi32(vo[0], vo[0]), _mm256_mul_epi32(vo[1], vo[1]));
        const __m256i tt = _mm256_add_epi64(_mm256_mul_epi32(vt[0], vt[0]), _mm256_mul_epi32(vt[1], vt[1]));
        /* oo and tt below 2^51 (as at nearly every coefficient: |o|, |t| below
         * 2^25), and so |ot| <= max(oo, tt): s51_ps4 converts them; a sum
         * that wrapped past 2^63 reads as 2^63 or more here, and takes
         * i64_ps4 with the rest */
        const __m256i wide = _mm256_srli_epi64(_mm256_or_si256(oo, tt), 51);
        const int ang = _mm256_testz_si256(wide, wide)
                            ? angle_4(s51_ps4(ot), s51_ps4(oo), s51_ps4(tt), c)
                            : angle_4(i64_ps4(ot), i64_ps4(oo), i64_ps4(tt), c);
        const __m256i angle = _mm256_cmpeq_epi64(
            _mm256_and_si256(_mm256_set1_epi64x(ang), _mm256_setr_epi64x(1, 2, 4, 8)),
            _mm256_setr_epi64x(1, 2, 4, 8));
        const __m256d vec = _mm256_castsi256_pd(_mm256_cmpgt_epi64(
            _mm256_set1_epi64x(jv), _mm256_add_epi64(lane, _mm256_set1_epi64x(j))));
        for (int k = 0; k < 3; k++) {
            const __m256i ov = vo[k], tv = vt[k];
            const __m256i z = _mm256_cmpeq_epi64(ov, zero);
            const __m256i neg = _mm256_cmpgt_epi64(zero, ov);
            const __m256i ao = _mm256_sub_epi64(_mm256_xor_si256(ov, neg), neg);
            const __m256i big = _mm256_cmpgt_epi64(ao, _mm256_set1_epi64x(32767));
            /* sh = floor(log2 |o|) - 14 where |o| >= 2^15, else 0 */
            const __m256i e = _mm256_srli_epi64(_mm256_castpd_si256(u52_pd(ao)), 52);
            const __m256i sh = _mm256_and_si256(big, _mm256_sub_epi64(e, _mm256_set1_epi64x(1023 + 14)));
            const __m256i mb = _mm256_srlv_epi64(
                _mm256_add_epi64(ao, _mm256_sllv_epi64(one, _mm256_sub_epi64(sh, one))), sh);
            const __m256i mm = _mm256_blendv_epi8(ao, mb, big);
            /* recip(m) = 2^30 / m truncated (m >= 1 where o != 0) */
            const __m256d md = u52_pd(_mm256_blendv_epi8(mm, one, z));
            const __m256i rc = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(_mm256_div_pd(n30, md)));
            __m256i p = _mm256_mul_epi32(rc, tv);
            p = _mm256_sub_epi64(_mm256_xor_si256(p, neg), neg);
            const __m256i rnd = sext_lo32_256(_mm256_sllv_epi64(one, _mm256_add_epi64(sh, _mm256_set1_epi64x(14))));
            const __m256i q = srav64_256(_mm256_add_epi64(p, rnd),
                                         _mm256_add_epi64(sh, _mm256_set1_epi64x(15)));
            /* k = clip(q, 0, 2^15), 2^15 where o = 0 */
            __m256i kk = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, q), q);
            kk = _mm256_blendv_epi8(kk, q15, _mm256_or_si256(_mm256_cmpgt_epi64(kk, q15), z));
            /* r = (int32)((k o + 2^14) >> 15), k o in int64 */
            __m256i rv = sext_lo32_256(sra64_256(_mm256_add_epi64(_mm256_mul_epi32(kk, ov), half),
                                                 _mm_cvtsi32_si128(15)));
            const __m256i en = _mm256_andnot_si256(z, _mm256_and_si256(angle, _mm256_cmpgt_epi64(kk, zero)));
            __m128i r4 = lo32x4(rv);
            if (!_mm256_testz_si256(en, en) && egl_int) {
                /* adm_egl_is_small_int: min(r e, t) for o > 0, else max, in int64 */
                const __m256i g = _mm256_mul_epi32(rv, egl_v);
                const __m256i g_lt_t = _mm256_cmpgt_epi64(tv, g);
                const __m256i lo = _mm256_blendv_epi8(tv, g, g_lt_t);   /* min */
                const __m256i hi = _mm256_blendv_epi8(g, tv, g_lt_t);   /* max */
                r4 = _mm_blendv_epi8(r4, lo32x4(_mm256_blendv_epi8(hi, lo, _mm256_cmpgt_epi64(ov, zero))),
                                     lo32x4(en));
            } else if (!_mm256_testz_si256(en, en)) {
                const __m128i g = enhance_4(r4, lo32x4(tv), lo32x4(ov), vec, eg);
                r4 = _mm_blendv_epi8(r4, g, lo32x4(en));
            }
            _mm_storeu_si128((__m128i *)(r[k] + j), r4);
            _mm_storeu_si128((__m128i *)(a[k] + j), _mm_sub_epi32(lo32x4(tv), r4));
        }
    }
    if (j < je) decouple32_row_c(o, t, r, a, j, je, jv, recip, cos_1deg_sq, egl);
}
#define ADM_DECOUPLE32_ROW adm_decouple32_row_avx2

/* i64_ps4 over n values, for tests/checkasm/adm.c (the C's (float) on the last
 * n % 4) */
static void i64_to_float_avx2(const int64_t *x, float *out, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, i64_ps4(_mm256_loadu_si256((const __m256i *)(x + i))));
    for (; i < n; i++) out[i] = (float)x[i];
}
#define ADM_I64_TO_FLOAT i64_to_float_avx2
#endif

/* ---- DWT: the AVX2 rows (at AVX-512 they take the remainder of a row
 * after the 512-bit rows further down) ----------------------------------- */
#if defined(__AVX2__)
#include <immintrin.h>

static void dwt0_hrow_c(const int16_t *lo, const int16_t *hi, int jb, int je, int32_t *a,
                        int16_t *v, int16_t *h, int16_t *d);
static void dwt32_hrow_c(const int32_t *lo, const int32_t *hi, int jb, int je, int32_t add,
                         int shift, int32_t *a, int32_t *v, int32_t *h, int32_t *d);
static void dwt32_vrow_c(const int32_t *const row[4], int n, int32_t add, int shift,
                         int32_t *lo, int32_t *hi);
static void dwt1_vrow_c(const int32_t *const row[4], int n, int32_t *lo, int32_t *hi);

/* two taps of scale 0 as the 16-bit halves of one word, for vpmaddwd */
static inline __m256i tap_pair(int c0, int c1)
{
    return _mm256_set1_epi32((int)((uint32_t)(uint16_t)c0 | (uint32_t)(uint16_t)c1 << 16));
}

/*
 * Scale 0's horizontal pass, eight outputs a step: the taps of output j are
 * the samples 2j-1 .. 2j+2, two neighbouring pairs, so one load from 2j-1
 * pairs them for vpmaddwd (taps 0, 1) and one from 2j+1 (taps 2, 3). The
 * C's int32 sum never overflows for any int16 samples (the taps' magnitudes
 * add to 54822, times 2^15 is below 2^31), and each vpmaddwd pair sum is a
 * part of it, so the lanes hold the C's integers; its >> 16 is arithmetic
 * as here. The results fit int16 (|sum| >> 16 <= 27411), so the saturating
 * pack keeps them as the C's casts do. The last je % 8 outputs as the C.
 */
static void adm_dwt0_hrow_simd(const int16_t *lo, const int16_t *hi, int jb, int je, int32_t *a,
                               int16_t *v, int16_t *h, int16_t *d)
{
    const __m256i l01 = tap_pair(ADM_LO0, ADM_LO1), l23 = tap_pair(ADM_LO2, ADM_LO3);
    const __m256i h01 = tap_pair(ADM_HI0, ADM_HI1), h23 = tap_pair(ADM_HI2, ADM_HI3);
    const __m256i rnd = _mm256_set1_epi32(32768);
    int j = jb;
    for (; j + 8 <= je; j += 8) {
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)(lo + 2 * j - 1));
        const __m256i x1 = _mm256_loadu_si256((const __m256i *)(lo + 2 * j + 1));
        const __m256i y0 = _mm256_loadu_si256((const __m256i *)(hi + 2 * j - 1));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *)(hi + 2 * j + 1));
#define DWT0_TAPS(p, q, c01, c23) _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32( \
        _mm256_madd_epi16(p, c01), _mm256_madd_epi16(q, c23)), rnd), 16)
        const __m256i av = DWT0_TAPS(x0, x1, l01, l23), vv = DWT0_TAPS(x0, x1, h01, h23);
        const __m256i hv = DWT0_TAPS(y0, y1, l01, l23), dv = DWT0_TAPS(y0, y1, h01, h23);
#undef DWT0_TAPS
        _mm256_storeu_si256((__m256i *)(a + j), av);
        /* packs interleaves 128-bit halves: v0-3 h0-3 v4-7 h4-7, then in order */
        const __m256i vh = _mm256_permute4x64_epi64(_mm256_packs_epi32(vv, hv), 0xd8);
        _mm_storeu_si128((__m128i *)(v + j), _mm256_castsi256_si128(vh));
        _mm_storeu_si128((__m128i *)(h + j), _mm256_extracti128_si256(vh, 1));
        const __m256i dd = _mm256_permute4x64_epi64(_mm256_packs_epi32(dv, dv), 0xd8);
        _mm_storeu_si128((__m128i *)(d + j), _mm256_castsi256_si128(dd));
    }
    if (j < je) dwt0_hrow_c(lo, hi, j, je, a, v, h, d);
}
#define ADM_DWT0_HROW adm_dwt0_hrow_simd

/* Four int64 results (one per 64-bit lane) and four more as eight int32 in
 * order: the low 32 bits of each, as the C's (int32_t) casts. Before that,
 * (acc + add) >> shift: a logical shift gives the arithmetic one's low 32
 * bits for any shift up to 32 (here 0, 15 or 16). */
static inline __m256i join_lo32(__m256i p, __m256i q)
{
    const __m256i b = _mm256_blend_epi32(p, _mm256_slli_epi64(q, 32), 0xaa);
    return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

/* four outputs of scales 1..3's horizontal pass from x (samples 2j-1 ..
 * 2j+6: taps 0, 1 of outputs j .. j+3 in the low and high halves of each
 * 64-bit lane) and y (from 2j+1: taps 2, 3), int64 products as the C */
static inline __m256i dwt32_h4(__m256i x, __m256i y, const __m256i c[4], __m256i add,
                               __m128i sh)
{
    const __m256i acc = _mm256_add_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(x, c[0]), _mm256_mul_epi32(_mm256_srli_epi64(x, 32), c[1])),
        _mm256_add_epi64(_mm256_mul_epi32(y, c[2]), _mm256_mul_epi32(_mm256_srli_epi64(y, 32), c[3])));
    return _mm256_srl_epi64(_mm256_add_epi64(acc, add), sh);
}

/* Scales 1..3's horizontal pass, eight outputs a step (two sets of four);
 * the sums are exact in int64 for any int32 samples (below 2^48). */
static void adm_dwt32_hrow_simd(const int32_t *lo, const int32_t *hi, int jb, int je, int32_t add,
                                int shift, int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    const __m256i cl[4] = { _mm256_set1_epi64x(ADM_LO0), _mm256_set1_epi64x(ADM_LO1),
                            _mm256_set1_epi64x(ADM_LO2), _mm256_set1_epi64x(ADM_LO3) };
    const __m256i ch[4] = { _mm256_set1_epi64x(ADM_HI0), _mm256_set1_epi64x(ADM_HI1),
                            _mm256_set1_epi64x(ADM_HI2), _mm256_set1_epi64x(ADM_HI3) };
    const __m256i ad = _mm256_set1_epi64x(add);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = jb;
    for (; j + 8 <= je; j += 8) {
        const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
#define LD(p) _mm256_loadu_si256((const __m256i *)(p))
        const __m256i lx0 = LD(l), ly0 = LD(l + 2), lx1 = LD(l + 8), ly1 = LD(l + 10);
        const __m256i gx0 = LD(g), gy0 = LD(g + 2), gx1 = LD(g + 8), gy1 = LD(g + 10);
#undef LD
        _mm256_storeu_si256((__m256i *)(a + j), join_lo32(dwt32_h4(lx0, ly0, cl, ad, sh),
                                                          dwt32_h4(lx1, ly1, cl, ad, sh)));
        _mm256_storeu_si256((__m256i *)(v + j), join_lo32(dwt32_h4(lx0, ly0, ch, ad, sh),
                                                          dwt32_h4(lx1, ly1, ch, ad, sh)));
        _mm256_storeu_si256((__m256i *)(h + j), join_lo32(dwt32_h4(gx0, gy0, cl, ad, sh),
                                                          dwt32_h4(gx1, gy1, cl, ad, sh)));
        _mm256_storeu_si256((__m256i *)(d + j), join_lo32(dwt32_h4(gx0, gy0, ch, ad, sh),
                                                          dwt32_h4(gx1, gy1, ch, ad, sh)));
    }
    if (j < je) dwt32_hrow_c(lo, hi, j, je, add, shift, a, v, h, d);
}
#define ADM_DWT32_HROW adm_dwt32_hrow_simd

/* Scales 1..3's vertical pass, eight columns a step: the even columns'
 * products from the low halves of the 64-bit lanes, the odd columns' from
 * the high halves, int64 as the C; the results interleaved back. */
static void adm_dwt32_vrow_simd(const int32_t *const row[4], int n, int32_t add, int shift,
                                int32_t *lo, int32_t *hi)
{
    static const int cl[4] = { ADM_LO0, ADM_LO1, ADM_LO2, ADM_LO3 };
    static const int chh[4] = { ADM_HI0, ADM_HI1, ADM_HI2, ADM_HI3 };
    const __m256i ad = _mm256_set1_epi64x(add);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256i le = ad, lod = ad, he = ad, hod = ad;
        for (int k = 0; k < 4; k++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(row[k] + j));
            const __m256i xo = _mm256_srli_epi64(x, 32);
            const __m256i c = _mm256_set1_epi64x(cl[k]), e = _mm256_set1_epi64x(chh[k]);
            le = _mm256_add_epi64(le, _mm256_mul_epi32(x, c));
            lod = _mm256_add_epi64(lod, _mm256_mul_epi32(xo, c));
            he = _mm256_add_epi64(he, _mm256_mul_epi32(x, e));
            hod = _mm256_add_epi64(hod, _mm256_mul_epi32(xo, e));
        }
        _mm256_storeu_si256((__m256i *)(lo + j), _mm256_blend_epi32(
            _mm256_srl_epi64(le, sh), _mm256_slli_epi64(_mm256_srl_epi64(lod, sh), 32), 0xaa));
        _mm256_storeu_si256((__m256i *)(hi + j), _mm256_blend_epi32(
            _mm256_srl_epi64(he, sh), _mm256_slli_epi64(_mm256_srl_epi64(hod, sh), 32), 0xaa));
    }
    if (j < n) {
        const int32_t *const tail[4] = { row[0] + j, row[1] + j, row[2] + j, row[3] + j };
        dwt32_vrow_c(tail, n - j, add, shift, lo + j, hi + j);
    }
}
#define ADM_DWT32_VROW adm_dwt32_vrow_simd

/* Scale 1's vertical pass (dwt1_vrow), eight columns a step: every sample is
 * within +-ADM_DWT0_A_MAX, an int16, so rows 0, 1 and rows 2, 3 are paired
 * as the 16-bit halves of 32-bit lanes (a sample's low 16 bits are itself)
 * and vpmaddwd forms two products and their sum at once. Each pair sum and
 * the total stay below 27411 * 54822 < 2^31, so the int32 lanes hold the
 * C's int64 sums exactly (scale 1 neither adds nor shifts). */
static inline __m256i pair_rows16(const int32_t *a, const int32_t *b)
{
    return _mm256_blend_epi16(_mm256_loadu_si256((const __m256i *)a),
                              _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)b), 16), 0xaa);
}

static void adm_dwt1_vrow_simd(const int32_t *const row[4], int n, int32_t *lo, int32_t *hi)
{
    const __m256i l01 = tap_pair(ADM_LO0, ADM_LO1), l23 = tap_pair(ADM_LO2, ADM_LO3);
    const __m256i h01 = tap_pair(ADM_HI0, ADM_HI1), h23 = tap_pair(ADM_HI2, ADM_HI3);
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256i p01 = pair_rows16(row[0] + j, row[1] + j);
        const __m256i p23 = pair_rows16(row[2] + j, row[3] + j);
        _mm256_storeu_si256((__m256i *)(lo + j), _mm256_add_epi32(_mm256_madd_epi16(p01, l01),
                                                                  _mm256_madd_epi16(p23, l23)));
        _mm256_storeu_si256((__m256i *)(hi + j), _mm256_add_epi32(_mm256_madd_epi16(p01, h01),
                                                                  _mm256_madd_epi16(p23, h23)));
    }
    if (j < n) {
        const int32_t *const tail[4] = { row[0] + j, row[1] + j, row[2] + j, row[3] + j };
        dwt1_vrow_c(tail, n - j, lo + j, hi + j);
    }
}
#define ADM_DWT1_VROW adm_dwt1_vrow_simd

/*
 * Scale 0's vertical pass, sixteen columns a step: rows 0, 1 and rows 2, 3
 * interleaved as 16-bit pairs for vpmaddwd with the pairs of taps. The C's
 * uint32 sum is the wrapped value of the exact sum, and each vpmaddwd lane
 * (two products of an int16 tap and an 8-bit sample, or above 8 bits a
 * uint16 sample with its top bit flipped, read as int16) is exact in int32, so adding the lanes,
 * the constant and (above 8 bits) the flip's 2^15 times the tap sum modulo 2^32
 * gives the C's uint32. Then >> bpc read as int32, and the low 16 bits as
 * the C's cast (masked, so the unsigned pack keeps them). The unpacks and
 * the pack work within 128-bit lanes, so the pack puts the columns back in
 * order.
 */
static inline __m256i dwt0_v16(__m256i x0, __m256i x1, __m256i x2, __m256i x3, __m256i c01,
                               __m256i c23, __m256i k, __m128i sh)
{
    const __m256i mask = _mm256_set1_epi32(0xffff);
    const __m256i a = _mm256_add_epi32(_mm256_add_epi32(
        _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), c01),
        _mm256_madd_epi16(_mm256_unpacklo_epi16(x2, x3), c23)), k);
    const __m256i b = _mm256_add_epi32(_mm256_add_epi32(
        _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), c01),
        _mm256_madd_epi16(_mm256_unpackhi_epi16(x2, x3), c23)), k);
    return _mm256_packus_epi32(_mm256_and_si256(_mm256_sra_epi32(a, sh), mask),
                               _mm256_and_si256(_mm256_sra_epi32(b, sh), mask));
}

static void dwt0_vrow_c(const void *const row[4], int w, int bpc, int16_t *lo, int16_t *hi);

static void adm_dwt0_vrow_simd(const void *const row[4], int w, int bpc, int16_t *lo, int16_t *hi)
{
    const uint32_t mid = 1u << (bpc - 1);
    const int flip = bpc != 8;
    /* constants added to the lanes: the C's mid_range terms, and above 8
     * bits 2^15 times each tap sum for the flipped samples (the high taps
     * add to 0); flipped at every depth above 8, so any uint16 sample, in
     * the declared range or not, gives the C's value */
    const uint32_t kl = mid - (uint32_t)ADM_LO_SUM * mid + (flip ? 32768u * (uint32_t)ADM_LO_SUM : 0);
    const __m256i l01 = tap_pair(ADM_LO0, ADM_LO1), l23 = tap_pair(ADM_LO2, ADM_LO3);
    const __m256i h01 = tap_pair(ADM_HI0, ADM_HI1), h23 = tap_pair(ADM_HI2, ADM_HI3);
    const __m256i klv = _mm256_set1_epi32((int)kl), khv = _mm256_set1_epi32((int)mid);
    const __m128i sh = _mm_cvtsi32_si128(bpc);
    const __m256i fl = _mm256_set1_epi16(flip ? (short)0x8000 : 0);
    const ptrdiff_t st = tvmaf_row_step(row[2], row[3]);
    const size_t by = bpc == 8 ? 1 : 2;
    int j = 0;
    for (; j + 16 <= w; j += 16) {
        tvmaf_prefetch_next_rows(row[3], st, 2, by * (size_t)j); /* the next call's rows */
        __m256i x[4];
        for (int k = 0; k < 4; k++)
            x[k] = bpc == 8
                ? _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)((const uint8_t *)row[k] + j)))
                : _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const uint16_t *)row[k] + j)), fl);
        _mm256_storeu_si256((__m256i *)(lo + j), dwt0_v16(x[0], x[1], x[2], x[3], l01, l23, klv, sh));
        _mm256_storeu_si256((__m256i *)(hi + j), dwt0_v16(x[0], x[1], x[2], x[3], h01, h23, khv, sh));
    }
    if (j < w) {
        const void *const tail[4] = { (const char *)row[0] + by * (size_t)j,
                                      (const char *)row[1] + by * (size_t)j,
                                      (const char *)row[2] + by * (size_t)j,
                                      (const char *)row[3] + by * (size_t)j };
        dwt0_vrow_c(tail, w - j, bpc, lo + j, hi + j);
    }
}
#if defined(__AVX512F__) && defined(__AVX512BW__)
/* The four DWT rows at AVX-512: the AVX2 forms above at twice the width (the
 * same integers, lane for lane), the remainder of a row handed to them;
 * their vpmaddwd sums through tvmaf_dpwssd512 (one vpdpwssd with VNNI). */
#include "feature/common/x86_avx512.h"

static inline __m512i tap_pair512(int c0, int c1)
{
    return _mm512_set1_epi32((int)((uint32_t)(uint16_t)c0 | (uint32_t)(uint16_t)c1 << 16));
}

static inline __m512i dwt0_v32(__m512i x0, __m512i x1, __m512i x2, __m512i x3, __m512i c01,
                               __m512i c23, __m512i k, __m128i sh)
{
    const __m512i mask = _mm512_set1_epi32(0xffff);
    const __m512i a = tvmaf_dpwssd512(tvmaf_dpwssd512(k, _mm512_unpacklo_epi16(x0, x1), c01),
                                    _mm512_unpacklo_epi16(x2, x3), c23);
    const __m512i b = tvmaf_dpwssd512(tvmaf_dpwssd512(k, _mm512_unpackhi_epi16(x0, x1), c01),
                                    _mm512_unpackhi_epi16(x2, x3), c23);
    return _mm512_packus_epi32(_mm512_and_si512(_mm512_sra_epi32(a, sh), mask),
                               _mm512_and_si512(_mm512_sra_epi32(b, sh), mask));
}

static void adm_dwt0_vrow_avx512(const void *const row[4], int w, int bpc, int16_t *lo,
                                 int16_t *hi)
{
    const uint32_t mid = 1u << (bpc - 1);
    const int flip = bpc != 8;
    const uint32_t kl = mid - (uint32_t)ADM_LO_SUM * mid + (flip ? 32768u * (uint32_t)ADM_LO_SUM : 0);
    const __m512i l01 = tap_pair512(ADM_LO0, ADM_LO1), l23 = tap_pair512(ADM_LO2, ADM_LO3);
    const __m512i h01 = tap_pair512(ADM_HI0, ADM_HI1), h23 = tap_pair512(ADM_HI2, ADM_HI3);
    const __m512i klv = _mm512_set1_epi32((int)kl), khv = _mm512_set1_epi32((int)mid);
    const __m128i sh = _mm_cvtsi32_si128(bpc);
    const __m512i fl = _mm512_set1_epi16(flip ? (short)0x8000 : 0);
    const ptrdiff_t st = tvmaf_row_step(row[2], row[3]);
    const size_t by = bpc == 8 ? 1 : 2;
    int j = 0;
    for (; j + 32 <= w; j += 32) {
        tvmaf_prefetch_next_rows(row[3], st, 2, by * (size_t)j); /* the next call's rows */
        __m512i x[4];
        for (int k = 0; k < 4; k++)
            x[k] = bpc == 8
                ? _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)((const uint8_t *)row[k] + j)))
                : _mm512_xor_si512(_mm512_loadu_si512((const void *)((const uint16_t *)row[k] + j)), fl);
        _mm512_storeu_si512((void *)(lo + j), dwt0_v32(x[0], x[1], x[2], x[3], l01, l23, klv, sh));
        _mm512_storeu_si512((void *)(hi + j), dwt0_v32(x[0], x[1], x[2], x[3], h01, h23, khv, sh));
    }
    if (j < w) {
        const void *const tail[4] = { (const char *)row[0] + by * (size_t)j,
                                      (const char *)row[1] + by * (size_t)j,
                                      (const char *)row[2] + by * (size_t)j,
                                      (const char *)row[3] + by * (size_t)j };
        adm_dwt0_vrow_simd(tail, w - j, bpc, lo + j, hi + j);
    }
}

static void adm_dwt0_hrow_avx512(const int16_t *lo, const int16_t *hi, int jb, int je, int32_t *a,
                                 int16_t *v, int16_t *h, int16_t *d)
{
    const __m512i l01 = tap_pair512(ADM_LO0, ADM_LO1), l23 = tap_pair512(ADM_LO2, ADM_LO3);
    const __m512i h01 = tap_pair512(ADM_HI0, ADM_HI1), h23 = tap_pair512(ADM_HI2, ADM_HI3);
    const __m512i rnd = _mm512_set1_epi32(32768);
    /* packs leaves v, h alternating in 64-bit pieces: v0-3 h0-3 v4-7 h4-7 .. */
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    int j = jb;
    for (; j + 16 <= je; j += 16) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(lo + 2 * j - 1));
        const __m512i x1 = _mm512_loadu_si512((const void *)(lo + 2 * j + 1));
        const __m512i y0 = _mm512_loadu_si512((const void *)(hi + 2 * j - 1));
        const __m512i y1 = _mm512_loadu_si512((const void *)(hi + 2 * j + 1));
#define DWT0_TAPS(p, q, c01, c23) \
        _mm512_srai_epi32(tvmaf_dpwssd512(tvmaf_dpwssd512(rnd, p, c01), q, c23), 16)
        const __m512i av = DWT0_TAPS(x0, x1, l01, l23), vv = DWT0_TAPS(x0, x1, h01, h23);
        const __m512i hv = DWT0_TAPS(y0, y1, l01, l23), dv = DWT0_TAPS(y0, y1, h01, h23);
#undef DWT0_TAPS
        _mm512_storeu_si512((void *)(a + j), av);
        const __m512i vh = _mm512_permutexvar_epi64(order, _mm512_packs_epi32(vv, hv));
        _mm256_storeu_si256((__m256i *)(v + j), _mm512_castsi512_si256(vh));
        _mm256_storeu_si256((__m256i *)(h + j), _mm512_extracti64x4_epi64(vh, 1));
        const __m512i dd = _mm512_permutexvar_epi64(order, _mm512_packs_epi32(dv, dv));
        _mm256_storeu_si256((__m256i *)(d + j), _mm512_castsi512_si256(dd));
    }
    if (j < je) adm_dwt0_hrow_simd(lo, hi, j, je, a, v, h, d);
}

/* the low 32 bits of each 64-bit lane of p, then of q, in order */
static inline __m512i join_lo32_512(__m512i p, __m512i q)
{
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_epi32(p, idx, q);
}

static inline __m512i dwt32_h8(__m512i x, __m512i y, const __m512i c[4], __m512i add, __m128i sh)
{
    const __m512i acc = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_mul_epi32(x, c[0]), _mm512_mul_epi32(_mm512_srli_epi64(x, 32), c[1])),
        _mm512_add_epi64(_mm512_mul_epi32(y, c[2]), _mm512_mul_epi32(_mm512_srli_epi64(y, 32), c[3])));
    return _mm512_srl_epi64(_mm512_add_epi64(acc, add), sh);
}

static void adm_dwt32_hrow_avx512(const int32_t *lo, const int32_t *hi, int jb, int je,
                                  int32_t add, int shift, int32_t *a, int32_t *v, int32_t *h,
                                  int32_t *d)
{
    const __m512i cl[4] = { _mm512_set1_epi64(ADM_LO0), _mm512_set1_epi64(ADM_LO1),
                            _mm512_set1_epi64(ADM_LO2), _mm512_set1_epi64(ADM_LO3) };
    const __m512i ch[4] = { _mm512_set1_epi64(ADM_HI0), _mm512_set1_epi64(ADM_HI1),
                            _mm512_set1_epi64(ADM_HI2), _mm512_set1_epi64(ADM_HI3) };
    const __m512i ad = _mm512_set1_epi64(add);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = jb;
    for (; j + 16 <= je; j += 16) {
        const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
#define LD(p) _mm512_loadu_si512((const void *)(p))
        const __m512i lx0 = LD(l), ly0 = LD(l + 2), lx1 = LD(l + 16), ly1 = LD(l + 18);
        const __m512i gx0 = LD(g), gy0 = LD(g + 2), gx1 = LD(g + 16), gy1 = LD(g + 18);
#undef LD
        _mm512_storeu_si512((void *)(a + j), join_lo32_512(dwt32_h8(lx0, ly0, cl, ad, sh),
                                                           dwt32_h8(lx1, ly1, cl, ad, sh)));
        _mm512_storeu_si512((void *)(v + j), join_lo32_512(dwt32_h8(lx0, ly0, ch, ad, sh),
                                                           dwt32_h8(lx1, ly1, ch, ad, sh)));
        _mm512_storeu_si512((void *)(h + j), join_lo32_512(dwt32_h8(gx0, gy0, cl, ad, sh),
                                                           dwt32_h8(gx1, gy1, cl, ad, sh)));
        _mm512_storeu_si512((void *)(d + j), join_lo32_512(dwt32_h8(gx0, gy0, ch, ad, sh),
                                                           dwt32_h8(gx1, gy1, ch, ad, sh)));
    }
    if (j < je) adm_dwt32_hrow_simd(lo, hi, j, je, add, shift, a, v, h, d);
}

static void adm_dwt32_vrow_avx512(const int32_t *const row[4], int n, int32_t add, int shift,
                                  int32_t *lo, int32_t *hi)
{
    static const int cl[4] = { ADM_LO0, ADM_LO1, ADM_LO2, ADM_LO3 };
    static const int chh[4] = { ADM_HI0, ADM_HI1, ADM_HI2, ADM_HI3 };
    const __m512i ad = _mm512_set1_epi64(add);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512i le = ad, lod = ad, he = ad, hod = ad;
        for (int k = 0; k < 4; k++) {
            const __m512i x = _mm512_loadu_si512((const void *)(row[k] + j));
            const __m512i xo = _mm512_srli_epi64(x, 32);
            const __m512i c = _mm512_set1_epi64(cl[k]), e = _mm512_set1_epi64(chh[k]);
            le = _mm512_add_epi64(le, _mm512_mul_epi32(x, c));
            lod = _mm512_add_epi64(lod, _mm512_mul_epi32(xo, c));
            he = _mm512_add_epi64(he, _mm512_mul_epi32(x, e));
            hod = _mm512_add_epi64(hod, _mm512_mul_epi32(xo, e));
        }
        _mm512_storeu_si512((void *)(lo + j), _mm512_mask_blend_epi32(0xaaaa,
            _mm512_srl_epi64(le, sh), _mm512_slli_epi64(_mm512_srl_epi64(lod, sh), 32)));
        _mm512_storeu_si512((void *)(hi + j), _mm512_mask_blend_epi32(0xaaaa,
            _mm512_srl_epi64(he, sh), _mm512_slli_epi64(_mm512_srl_epi64(hod, sh), 32)));
    }
    if (j < n) {
        const int32_t *const tail[4] = { row[0] + j, row[1] + j, row[2] + j, row[3] + j };
        adm_dwt32_vrow_simd(tail, n - j, add, shift, lo + j, hi + j);
    }
}
/* adm_dwt1_vrow_simd at twice the width, the pair sums by vpdpwssd */
static void adm_dwt1_vrow_avx512(const int32_t *const row[4], int n, int32_t *lo, int32_t *hi)
{
    const __m512i l01 = tap_pair512(ADM_LO0, ADM_LO1), l23 = tap_pair512(ADM_LO2, ADM_LO3);
    const __m512i h01 = tap_pair512(ADM_HI0, ADM_HI1), h23 = tap_pair512(ADM_HI2, ADM_HI3);
    const __m512i zero = _mm512_setzero_si512();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
#define PAIR(a, b) _mm512_mask_blend_epi16(0xaaaaaaaau, _mm512_loadu_si512((const void *)(a)), \
                                           _mm512_slli_epi32(_mm512_loadu_si512((const void *)(b)), 16))
        const __m512i p01 = PAIR(row[0] + j, row[1] + j), p23 = PAIR(row[2] + j, row[3] + j);
#undef PAIR
        _mm512_storeu_si512((void *)(lo + j),
                            tvmaf_dpwssd512(tvmaf_dpwssd512(zero, p01, l01), p23, l23));
        _mm512_storeu_si512((void *)(hi + j),
                            tvmaf_dpwssd512(tvmaf_dpwssd512(zero, p01, h01), p23, h23));
    }
    if (j < n) {
        const int32_t *const tail[4] = { row[0] + j, row[1] + j, row[2] + j, row[3] + j };
        adm_dwt1_vrow_simd(tail, n - j, lo + j, hi + j);
    }
}
#undef ADM_DWT0_HROW
#undef ADM_DWT32_HROW
#undef ADM_DWT32_VROW
#undef ADM_DWT1_VROW
#define ADM_DWT1_VROW adm_dwt1_vrow_avx512
#define ADM_DWT0_HROW adm_dwt0_hrow_avx512
#define ADM_DWT32_HROW adm_dwt32_hrow_avx512
#define ADM_DWT32_VROW adm_dwt32_vrow_avx512
#define ADM_DWT0_VROW adm_dwt0_vrow_avx512
#else
#define ADM_DWT0_VROW adm_dwt0_vrow_simd
#endif
#endif

#include "feature/adm/adm_stages.h"
