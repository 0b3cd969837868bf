/*
 * vif's row kernels compiled for one x86 SIMD level: the build compiles this
 * file once per level (AVX2, AVX-512) with that level's instruction set and
 * TVMAF_SIMD_SUFFIX naming the kernel set. The code is vif_kernels.h's, so the
 * arithmetic is the C kernels' (integer, and per-pixel doubles in C order);
 * at AVX-512 the per-pixel statistic is written out below, eight pixels at a
 * time, operation for operation as vif_pixel does it.
 */
#include "core/cpu.h"
#include "feature/vif/vif_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512CD__)
#include <immintrin.h>

/* 2048 log2(v) of eight 64-bit v >= 2^15 (vif_log2_32 / vif_log2_64): the
 * leading 16 bits index the table, 2048 per dropped bit. The gather reads 32
 * bits at each 16-bit entry: the table has one entry of padding. */
static inline __m512i log2_8(const uint16_t *table, __m512i v, __mmask8 m)
{
    const __m512i k = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(v));
    const __m512i idx = _mm512_sub_epi64(_mm512_srlv_epi64(v, k),
                                         _mm512_set1_epi64(VIF_LOG2_TABLE_LEN));
    const __m256i t = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, idx, table, 2);
    const __m512i e = _mm512_cvtepu16_epi64(_mm256_cvtepi32_epi16(t));
    return _mm512_add_epi64(e, _mm512_slli_epi64(k, 11));
}

/* moment = lo + 2^16 hi, eight lanes from b */
static inline __m512i moment_8(const uint32_t *lo, const uint32_t *hi, __mmask8 m)
{
    const __m512i l = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, lo));
    const __m512i h = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, hi));
    return _mm512_add_epi64(l, _mm512_slli_epi64(h, 16));
}

/* (int32_t)(uint32_t)(a - b), sign-extended to 64 bits */
static inline __m512i wrap_s32(__m512i a, __m512i b)
{
    return _mm512_srai_epi64(_mm512_slli_epi64(_mm512_sub_epi64(a, b), 32), 32);
}

static void vif_pixels_avx512(VifSums *row, uint32_t (*acc)[VIF_BLOCK], unsigned n,
                              const uint16_t *log2_table, double gain_limit)
{
    const __m512i half32 = _mm512_set1_epi64(0x80000000ll), half16 = _mm512_set1_epi64(32768);
    const __m512i nsq = _mm512_set1_epi64(VIF_SIGMA_NSQ), zero = _mm512_setzero_si512();
    const __m512i low32 = _mm512_set1_epi64(0xffffffffll);
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10), glim = _mm512_set1_pd(gain_limit);
    __m512i num_log = zero, den_log = zero, num_lin = zero;
    int64_t den_lin = 0;
    for (unsigned b = 0; b < n; b += 8) {
        const __mmask8 m = n - b >= 8 ? 0xff : (__mmask8)((1u << (n - b)) - 1);
        const __m512i mu1 = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, acc[VIF_MU1] + b));
        const __m512i mu2 = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, acc[VIF_MU2] + b));
        const __m512i xx = moment_8(acc[VIF_XX_LO] + b, acc[VIF_XX_HI] + b, m);
        const __m512i yy = moment_8(acc[VIF_YY_LO] + b, acc[VIF_YY_HI] + b, m);
        const __m512i xy = moment_8(acc[VIF_XY_LO] + b, acc[VIF_XY_HI] + b, m);
        /* products of means rounded to 32 bits; moments rounded by >> 16 */
        const __m512i mu1_sq = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(mu1, mu1), half32), 32);
        const __m512i mu2_sq = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(mu2, mu2), half32), 32);
        const __m512i mu12 = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(mu1, mu2), half32), 32);
        const __m512i xx_f = _mm512_and_si512(_mm512_srli_epi64(_mm512_add_epi64(xx, half16), 16), low32);
        const __m512i yy_f = _mm512_and_si512(_mm512_srli_epi64(_mm512_add_epi64(yy, half16), 16), low32);
        const __m512i xy_f = _mm512_and_si512(_mm512_srli_epi64(_mm512_add_epi64(xy, half16), 16), low32);
        const __m512i s1 = wrap_s32(xx_f, mu1_sq);
        const __m512i s2 = _mm512_max_epi64(wrap_s32(yy_f, mu2_sq), zero);
        const __m512i s12 = wrap_s32(xy_f, mu12);

        const __mmask8 lin = _mm512_mask_cmplt_epi64_mask(m, s1, nsq);
        const __mmask8 lg = m & (__mmask8)~lin;
        num_lin = _mm512_mask_add_epi64(num_lin, lin, num_lin, s2);
        den_lin += __builtin_popcount(lin);
        if (!lg) continue;
        /* 2048 log2(nsq + sigma1_sq) - 2048 * 17; nsq + sigma1_sq < 2^32 */
        const __m512i dl = _mm512_sub_epi64(log2_8(log2_table, _mm512_add_epi64(s1, nsq), lg),
                                            _mm512_set1_epi64(2048 * 17));
        den_log = _mm512_mask_add_epi64(den_log, lg, den_log, dl);
        const __mmask8 nm = lg & _mm512_cmpgt_epi64_mask(s12, zero) &
                            _mm512_cmpgt_epi64_mask(s2, zero);
        if (!nm) continue;
        const __m512d d1 = _mm512_cvtepi64_pd(s1), d2 = _mm512_cvtepi64_pd(s2);
        const __m512d d12 = _mm512_cvtepi64_pd(s12);
        const __m512d g = _mm512_div_pd(d12, _mm512_add_pd(d1, eps));
        /* (int32_t)(sigma2_sq - g sigma12), at least 0 */
        const __m512d sv_d = _mm512_sub_pd(d2, _mm512_mul_pd(g, d12));
        const __m512i sv = _mm512_max_epi64(
            _mm512_cvtepi32_epi64(_mm512_mask_cvttpd_epi32(_mm256_setzero_si256(), nm, sv_d)), zero);
        /* min(g, gain_limit): g < limit ? g : limit */
        const __m512d gl = _mm512_min_pd(g, glim);
        const __m512i noise = _mm512_and_si512(_mm512_add_epi64(sv, nsq), low32);
        const __m512i sig = _mm512_add_epi64(
            _mm512_mask_cvttpd_epi64(zero, nm, _mm512_mul_pd(_mm512_mul_pd(gl, gl), d1)), noise);
        const __m512i nl = _mm512_sub_epi64(log2_8(log2_table, sig, nm),
                                            log2_8(log2_table, noise, nm));
        num_log = _mm512_mask_add_epi64(num_log, nm, num_log, nl);
    }
    row->num_log += _mm512_reduce_add_epi64(num_log);
    row->den_log += _mm512_reduce_add_epi64(den_log);
    row->num_lin += _mm512_reduce_add_epi64(num_lin);
    row->den_lin += den_lin;
}
#define VIF_PIXELS vif_pixels_avx512
#endif

#define VIF_KERNELS_IMPL
#include "feature/vif/vif_kernels.h"

const VifKernels TVMAF_SIMD_NAME(tvmaf_vif_kernels) = VIF_KERNELS_INIT;
