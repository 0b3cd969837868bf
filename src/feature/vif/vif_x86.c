/*
 * vif's row kernels compiled for one x86 SIMD level: the build compiles this
 * file once per level (AVX2, AVX-512) with that level's instruction set and
 * TVMAF_SIMD_SUFFIX naming the kernel set. The code is vif_cpu.h's, so the
 * arithmetic is the C kernels' (integer, and per-pixel doubles in C order);
 * at AVX-512 the per-pixel statistic is written out below, eight pixels at a
 * time, operation for operation as vif_pixel does it.
 */
#include "core/cpu.h"
#include "feature/vif/vif_cpu.h"

/* The eight quantities of a 16-bit vertical pass, from samples x and y, in
 * the rows' order (VIF_MU1 .. VIF_XY_HI): the samples, then the low and high
 * halves of x^2, y^2 and xy (MULLO, MULHI: the level's 16-bit multiplies,
 * the high one unsigned). */
#define VIF_QUANTITIES16(v, x, y, MULLO, MULHI)                                                  \
    do {                                                                                         \
        (v)[0] = (x);                                                                            \
        (v)[1] = (y);                                                                            \
        (v)[2] = MULLO((x), (x));                                                                \
        (v)[3] = MULHI((x), (x));                                                                \
        (v)[4] = MULLO((y), (y));                                                                \
        (v)[5] = MULHI((y), (y));                                                                \
        (v)[6] = MULLO((x), (y));                                                                \
        (v)[7] = MULHI((x), (y));                                                                \
    } while (0)

/* The 8-bit vertical pass's taps for vpmaddwd, at either level: pairs
 * (k, k + 1) as the 16-bit halves of one 32-bit word, an odd last tap paired
 * with a zero; *tap_sum is the sum of the taps. Every tap of scale 0 is below
 * 2^15 (a signed 16-bit factor) and so is the sum of two, which bounds each
 * vpmaddwd sum below 2^31. Returns the pair count. */
static inline unsigned vif_tap_pair_words(uint32_t *words, const uint16_t *taps, unsigned fw,
                                          uint32_t *tap_sum)
{
    *tap_sum = 0;
    for (unsigned k = 0; k < fw; k++) *tap_sum += taps[k];
    for (unsigned p = 0; 2 * p < fw; p++)
        words[p] = taps[2 * p] | (uint32_t)(2 * p + 1 < fw ? taps[2 * p + 1] : 0) << 16;
    return (fw + 1) / 2;
}

/*
 * Two output rows of a vertical pass at once (the pair kernels). With an
 * fw-tap filter, output row i reads sample rows s_0 .. s_fw-1 (s_k the row
 * vif_tap_row(i, k) names) and row i + 1 reads s_1 .. s_fw, mirroring
 * included (vif_tap_row(i + 1, k) is vif_tap_row(i, k + 1)). Paired as
 * (s_0, s_1) .. (s_fw-1, s_fw) (fw odd), row i takes taps (c_2p, c_2p+1)
 * with c_fw = 0 (vif_tap_pair_words) and row i + 1 taps (c_2p-1, c_2p) with
 * c_-1 = 0: every pair's samples and products serve both rows, and each
 * row's sum has the same terms as its own pass plus zeros. Fills the fw + 1
 * sample rows' indices and row i + 1's words; returns the pair count (the
 * same for both rows).
 */
static inline unsigned vif_pair_rows(int *rows, uint32_t *words_b, unsigned scale, unsigned h,
                                     unsigned i)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    for (unsigned k = 0; k <= fw; k++)
        rows[k] = k < fw ? vif_tap_row(i, k, fw, h) : vif_tap_row(i + 1, fw - 1, fw, h);
    const unsigned np = (fw + 1) / 2;
    for (unsigned p = 0; p < np; p++)
        words_b[p] = (uint32_t)(p ? taps[2 * p - 1] : 0) | (uint32_t)taps[2 * p] << 16;
    return np;
}

/* vif_pair_rows for 8-bit scale 0, as the rows' 18 sample pointers */
static inline unsigned vif_rows_8x2(const uint8_t **pr, const uint8_t **pd, uint32_t *words_b,
                                    const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                                    ptrdiff_t dis_stride, unsigned h, unsigned i)
{
    int rows[VIF_MAX_TAPS + 1];
    const unsigned np = vif_pair_rows(rows, words_b, 0, h, i);
    for (unsigned k = 0; k <= vif_filter_width[0]; k++) {
        pr[k] = ref + rows[k] * ref_stride;
        pd[k] = dis + rows[k] * dis_stride;
    }
    return np;
}

/* ... for 16-bit samples at scale (1 or 2) */
static inline unsigned vif_rows_16x2(const uint16_t **pr, const uint16_t **pd, uint32_t *words_b,
                                     const uint16_t *ref, ptrdiff_t ref_stride,
                                     const uint16_t *dis, ptrdiff_t dis_stride, unsigned scale,
                                     unsigned h, unsigned i)
{
    int rows[VIF_MAX_TAPS + 1];
    const unsigned np = vif_pair_rows(rows, words_b, scale, h, i);
    for (unsigned k = 0; k <= vif_filter_width[scale]; k++) {
        pr[k] = (const uint16_t *)((const char *)ref + rows[k] * ref_stride);
        pd[k] = (const uint16_t *)((const char *)dis + rows[k] * dis_stride);
    }
    return np;
}

/*
 * The statistic's table look-ups as scalar loads. Its sums need only the
 * total of a block's log2 table entries, not each pixel's. An entry i is
 * VIF_LOG2_BASE + (i >> 4) + resid[i] (VifLog2): the vector code adds the
 * first two terms in its lanes and stores each index i (the leading 16 bits
 * less 2^15, or 0 for a lane without a term, whose VIF_LOG2_BASE is
 * accounted for by the caller and whose other terms are 0), and this loop
 * adds the residual bytes, two loads each, on the scalar ports. The 32 KB
 * byte table misses the L1 cache less than the 64 KB entries (about 5% of
 * vif's time on Zen 4), and a vector gather costs about a cycle per element
 * on some cores (Zen 4, and Intel cores with the gather data sampling
 * mitigation) and holds up the vector work that follows it. n is a multiple
 * of 4; the total is below 2^32. Kept scalar: vectorised, it would be the
 * gathers again. Nor are the entries computed: a float series per segment
 * of the octave (A_j + 2048 log2(1 + r), 16 or 32 segments from a permute)
 * finds every entry but the 0.3% whose value lies near a half-integer,
 * where log2f's own rounding decides, and those must still come from the
 * table; with them looked up after the block, a whole vmaf_v0.6.1 run took
 * 2 to 5% longer at AVX-512 and 12% longer at AVX2 on Zen 4: the vector
 * pipes, not the scalar ports these loads use, are the statistic's limit.
 */
#if defined(__clang__)
#define VIF_NO_VECTORIZE
#else
#define VIF_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#endif
static __attribute__((unused)) VIF_NO_VECTORIZE uint32_t
vif_log2_resid_sum(const uint8_t *resid, const uint16_t *ix, unsigned n)
{
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (size_t i = 0; i < n; i += 4) {
        s0 += resid[ix[i]];
        s1 += resid[ix[i + 1]];
        s2 += resid[ix[i + 2]];
        s3 += resid[ix[i + 3]];
    }
    return s0 + s1 + s2 + s3;
}

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512CD__)
#include <immintrin.h>
#include "feature/common/x86_avx512.h"

/* The table indices of sixteen 32-bit v >= 2^15 (vif_log2_32) as 16-bit
 * lanes, 0 outside m: k = 16 - lzcnt(v), index i = (v >> k) - 2^15; the
 * logarithm is entry[i] plus 2048 k, and *k2048 is 2048 k + (i >> 4), the
 * part of it that is not VIF_LOG2_BASE or resid[i] (any value outside m) */
static inline __m256i log2_ix16(__m512i v, __mmask16 m, __m512i *k2048)
{
    const __m512i k = _mm512_sub_epi32(_mm512_set1_epi32(16), _mm512_lzcnt_epi32(v));
    const __m512i ix = _mm512_maskz_sub_epi32(m, _mm512_srlv_epi32(v, k),
                                              _mm512_set1_epi32(VIF_LOG2_TABLE_LEN));
    *k2048 = _mm512_add_epi32(_mm512_slli_epi32(k, 11), _mm512_srli_epi32(ix, 4));
    return _mm512_cvtepi32_epi16(ix);
}

/* the same for sixteen 64-bit v in [2^15, 2^48) (vif_log2_64), eight in lo
 * and eight in hi (lanes in that order): k = 48 - lzcnt(v); v >> k and k are
 * below 2^16, so they are narrowed to 32-bit lanes first */
static inline __m256i log2_ix16x64(__m512i lo, __m512i hi, __mmask16 m, __m512i *k2048)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i c48 = _mm512_set1_epi64(48);
    const __m512i klo = _mm512_sub_epi64(c48, _mm512_lzcnt_epi64(lo));
    const __m512i khi = _mm512_sub_epi64(c48, _mm512_lzcnt_epi64(hi));
    const __m512i u = _mm512_permutex2var_epi32(_mm512_srlv_epi64(lo, klo), even,
                                                _mm512_srlv_epi64(hi, khi));
    const __m512i ix = _mm512_maskz_sub_epi32(m, u, _mm512_set1_epi32(VIF_LOG2_TABLE_LEN));
    *k2048 = _mm512_add_epi32(_mm512_slli_epi32(_mm512_permutex2var_epi32(klo, even, khi), 11),
                              _mm512_srli_epi32(ix, 4));
    return _mm512_cvtepi32_epi16(ix);
}

/* (a b + 2^31) >> 32 of sixteen uint32 pairs: even lanes' products in the
 * 64-bit lanes as they are, odd lanes' from the high halves; each result is
 * a product's high half, already in place for the odd lanes, moved down one
 * lane for the even ones */
static inline __m512i mul_round32_16(__m512i a, __m512i b)
{
    const __m512i half = _mm512_set1_epi64(0x80000000ll);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epu32(a, b), half);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
    return _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_DDBB);
}

/* (lo + 2^16 hi + 2^15) >> 16, low 32 bits, sixteen lanes from b: lo's sums
 * already carry the 2^15 (VIF_MOMENT_HALF), so it is hi + (lo >> 16) */
static inline __m512i moment_16(const uint32_t *lo, const uint32_t *hi, __mmask16 m)
{
    const __m512i l = _mm512_maskz_loadu_epi32(m, lo), h = _mm512_maskz_loadu_epi32(m, hi);
    return _mm512_add_epi32(h, _mm512_srli_epi32(l, 16));
}

/* sixteen 16-bit values of a vertical-pass row stored in their row form
 * (vif_row_put) at the lanes of m */
static inline void vif_put_row16(uint16_t *dst, __mmask16 m, __m256i v)
{
    _mm256_mask_storeu_epi16(dst, m, _mm256_xor_si256(v, _mm256_set1_epi16((short)0x8000)));
}

static inline __m256i half_256(__m512i v, int h)
{
    return h ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v);
}

/* vif_pixel sixteen pixels a step: the integers up to the variances in
 * 32-bit lanes (the C's uint32 wraps are the lanes'), the double operations
 * per pixel in two halves of eight, in the C's order. Each 2048 log2 is a
 * table entry plus 2048 k, the entry VIF_LOG2_BASE + (i >> 4) + resid[i]:
 * the indices i go to per-block lists, whose residuals
 * vif_log2_resid_sum adds, and the 2048 k + (i >> 4) terms are summed in
 * 32-bit lanes (den's less 2048 * 17, num's as the signal's less the
 * noise's: a lane sees at most VIF_BLOCK / 16 pixels, so its sums stay far
 * inside 32 bits); den counts its VIF_LOG2_BASE terms, num's cancel. Lists
 * hold only the groups of sixteen pixels that have a term; a lane without
 * one indexes entry 0 (residual 0, i >> 4 = 0), whose VIF_LOG2_BASE den
 * does not count. The integer sums are the C's whatever the grouping.
 * Lane-crossing conversions (one port) are kept few. */
static void vif_pixels_avx512(VifSums *row, uint32_t (*acc)[VIF_BLOCK], unsigned n,
                              const VifLog2 *log2, double gain_limit)
{
    const __m512i nsq = _mm512_set1_epi32(VIF_SIGMA_NSQ), zero = _mm512_setzero_si512();
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10), glim = _mm512_set1_pd(gain_limit);
    const __m512i low32 = _mm512_set1_epi64(0xffffffffll);
    __m512i num_k = zero, den_k = zero, num_lin = zero;
    int64_t den_lin = 0;
    /* the num terms' log arguments of each pixel, and which pixels have one */
    _Alignas(64) uint32_t noise_b[VIF_BLOCK];
    _Alignas(64) uint64_t sig_b[VIF_BLOCK];
    __mmask16 nm_b[VIF_BLOCK / 16];
    /* the table indices of the logarithms, nd and nn of them */
    _Alignas(32) uint16_t den_ix[VIF_BLOCK], noise_ix[VIF_BLOCK], sig_ix[VIF_BLOCK];
    unsigned nd = 0, nn = 0, den_unused = 0;
    for (unsigned b = 0; b < n; b += 16) {
        const __mmask16 m = n - b >= 16 ? 0xffff : (__mmask16)((1u << (n - b)) - 1);
        nm_b[b / 16] = 0;
        const __m512i mu1 = _mm512_maskz_loadu_epi32(m, acc[VIF_MU1] + b);
        const __m512i mu2 = _mm512_maskz_loadu_epi32(m, acc[VIF_MU2] + b);
        const __m512i s1 = _mm512_sub_epi32(moment_16(acc[VIF_XX_LO] + b, acc[VIF_XX_HI] + b, m),
                                            mul_round32_16(mu1, mu1));
        const __m512i s2 = _mm512_max_epi32(
            _mm512_sub_epi32(moment_16(acc[VIF_YY_LO] + b, acc[VIF_YY_HI] + b, m),
                             mul_round32_16(mu2, mu2)), zero);
        const __m512i s12 = _mm512_sub_epi32(moment_16(acc[VIF_XY_LO] + b, acc[VIF_XY_HI] + b, m),
                                             mul_round32_16(mu1, mu2));

        const __mmask16 lin = _mm512_mask_cmplt_epi32_mask(m, s1, nsq);
        const __mmask16 lg = m & (__mmask16)~lin;
        const __m512i s2_lin = _mm512_maskz_mov_epi32(lin, s2); /* >= 0 */
        /* the even and odd 32-bit lanes, each zero-extended in place */
        num_lin = _mm512_add_epi64(num_lin, _mm512_add_epi64(_mm512_and_si512(s2_lin, low32),
                                                             _mm512_srli_epi64(s2_lin, 32)));
        den_lin += __builtin_popcount(lin);
        if (!lg) continue;
        /* 2048 log2(nsq + sigma1_sq) - 2048 * 17 */
        __m512i dk;
        _mm256_store_si256((__m256i *)(den_ix + nd),
                           log2_ix16(_mm512_add_epi32(s1, nsq), lg, &dk));
        nd += 16;
        den_unused += 16 - (unsigned)__builtin_popcount(lg);
        den_k = _mm512_mask_add_epi32(den_k, lg, den_k,
                                      _mm512_sub_epi32(dk, _mm512_set1_epi32(2048 * 17)));
        const __mmask16 nm = lg & _mm512_cmpgt_epi32_mask(s12, zero) &
                             _mm512_cmpgt_epi32_mask(s2, zero);
        if (!nm) continue;
        __m256i sv[2];
        __m512d gain_term[2];
        for (int h = 0; h < 2; h++) {
            const __mmask8 mh = (__mmask8)(nm >> (8 * h));
            const __m512d d1 = _mm512_cvtepi32_pd(half_256(s1, h));
            const __m512d d2 = _mm512_cvtepi32_pd(half_256(s2, h));
            const __m512d d12 = _mm512_cvtepi32_pd(half_256(s12, h));
            const __m512d g = _mm512_div_pd(d12, _mm512_add_pd(d1, eps));
            /* (int32_t)(sigma2_sq - g sigma12), at least 0 */
            const __m512d sv_d = _mm512_sub_pd(d2, _mm512_mul_pd(g, d12));
            sv[h] = _mm256_max_epi32(_mm512_mask_cvttpd_epi32(_mm256_setzero_si256(), mh, sv_d),
                                     _mm256_setzero_si256());
            /* min(g, gain_limit): g < limit ? g : limit */
            const __m512d gl = _mm512_min_pd(g, glim);
            gain_term[h] = _mm512_mul_pd(_mm512_mul_pd(gl, gl), d1);
        }
        /* noise = sv_sq + nsq in uint32; signal = (int64)(gl^2 sigma1_sq) + noise */
        const __m512i noise = _mm512_add_epi32(
            _mm512_inserti64x4(_mm512_castsi256_si512(sv[0]), sv[1], 1), nsq);
        _mm512_store_si512((void *)(noise_b + b), noise);
        for (int h = 0; h < 2; h++) {
            const __mmask8 mh = (__mmask8)(nm >> (8 * h));
            _mm512_store_si512((void *)(sig_b + b + 8 * h), _mm512_add_epi64(
                _mm512_maskz_cvttpd_epi64(mh, gain_term[h]), _mm512_cvtepu32_epi64(half_256(noise, h))));
        }
        nm_b[b / 16] = nm;
    }
    /* the indices of the num terms' logarithms, apart from the arithmetic
     * that forms their arguments */
    for (unsigned b = 0; b < n; b += 16) {
        const __mmask16 nm = nm_b[b / 16];
        if (!nm) continue;
        __m512i kn, ks;
        _mm256_store_si256((__m256i *)(noise_ix + nn),
                           log2_ix16(_mm512_load_si512((const void *)(noise_b + b)), nm, &kn));
        _mm256_store_si256((__m256i *)(sig_ix + nn),
                           log2_ix16x64(_mm512_load_si512((const void *)(sig_b + b)),
                                        _mm512_load_si512((const void *)(sig_b + b + 8)), nm,
                                        &ks));
        nn += 16;
        num_k = _mm512_mask_add_epi32(num_k, nm, num_k, _mm512_sub_epi32(ks, kn));
    }
    row->num_log += (int64_t)vif_log2_resid_sum(log2->resid, sig_ix, nn) -
                    (int64_t)vif_log2_resid_sum(log2->resid, noise_ix, nn) +
                    _mm512_reduce_add_epi32(num_k);
    row->den_log += (int64_t)vif_log2_resid_sum(log2->resid, den_ix, nd) +
                    (int64_t)(nd - den_unused) * VIF_LOG2_BASE + _mm512_reduce_add_epi32(den_k);
    row->num_lin += (int64_t)tvmaf_sum_u64x8(num_lin);
    row->den_lin += den_lin;
}
#define VIF_PIXELS vif_pixels_avx512

/* the values of a vertical-pass row (vif_row_get) at the lanes of m, in
 * 32-bit lanes (the others hold 2^15 and are ignored) */
static inline __m512i load_row_u16x16(const uint16_t *p, __mmask16 m)
{
    return _mm512_cvtepu16_epi32(_mm256_xor_si256(_mm256_maskz_loadu_epi16(m, p),
                                                  _mm256_set1_epi16((short)0x8000)));
}

/* vif_filter_rows, 32 columns a step with vpmaddwd: the AVX2 form's
 * arithmetic (vif_filter_rows_madd_avx2 below), the results of the unpacks
 * put back in column order with one two-source permute each. The rows'
 * words are read as they are stored, top bit flipped (vif_row_put). A full
 * step's even columns take their pairs (samples 2t .. 2t + 31) from two
 * loads and a dword shift (valignd) each, the odd columns' (2t + 1 ..) from
 * unaligned loads: a 64-byte load that straddles two cache lines costs Zen
 * 4 about 1.6 cycles, more than the vpdpwssd it feeds, and valignd shares
 * vpdpwssd's pipes only in part, so the split keeps both units busy. At
 * scale 0 the two loads are aligned (vif.c aligns the rows' left padding,
 * and a block starts VIF_MAX_HALF samples into it). A full step at b reads
 * samples b .. b + 63 of the block (b + 32 <= n), at most 32 - fw + 1 past
 * the row's right padding, inside VIF_ROW_SLACK; lanes past n read nothing
 * they keep and are ignored by the statistic. */
static inline __attribute__((always_inline)) void
vif_filter_rows_madd_avx512(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                            const uint16_t *taps, unsigned fw)
{
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    /* and VIF_MOMENT_HALF on the low-half rows */
    const __m512i back = _mm512_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    const __m512i back_lo = _mm512_set1_epi32((int)(uint32_t)(32768u * tap_sum + VIF_MOMENT_HALF));
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    /* With VNNI, the tap words in registers: the empty asm keeps the
     * compiler from folding them back into broadcast loads (a step's nine
     * vpdpwssd then need no load beyond the samples'; 6% less time on Zen
     * 4). Without it, vpmaddwd + vpaddd need the registers, and the loads
     * cost less than the spills (13% more time). */
    __m512i wv[(VIF_MAX_TAPS + 1) / 2];
    for (unsigned t = 0; t < np; t++) {
        wv[t] = _mm512_set1_epi32((int)words[t]);
#if defined(__AVX512VNNI__)
        __asm__("" : "+v"(wv[t]));
#endif
    }
    for (unsigned b = 0; b < n; b += 32) {
        if (n - b >= 32) {
            /* the AVX2 form's even and odd columns (vif_filter_rows_madd_avx2),
             * sixteen of each */
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                const uint16_t *p = row[q] + o + (int)b;
                const __m512i e0 = _mm512_loadu_si512((const void *)p);
                const __m512i e1 = _mm512_loadu_si512((const void *)(p + 32));
                /* the flips' 2^15 tap sum (and the half), added first */
                const __m512i start = vif_low_half_row(q) ? back_lo : back;
                const __m512i w0 = wv[0];
                __m512i ev = tvmaf_dpwssd512(start, e0, w0);
                __m512i od = tvmaf_dpwssd512(start, _mm512_loadu_si512((const void *)(p + 1)), w0);
                /* pair t, with a constant shift: the filter widths are constants
                 * here (vif_stat_horizontal), so the tests fold */
#define VIF_PAIR_STEP(t)                                                                         \
                if ((t) < np) {                                                                  \
                    const __m512i w = wv[(t) % ((VIF_MAX_TAPS + 1) / 2)];                        \
                    const __m512i x0 = _mm512_alignr_epi32(e1, e0, t);                           \
                    const __m512i x1 = 2 * (t) + 1 < fw                                          \
                        ? _mm512_loadu_si512((const void *)(p + 2 * (t) + 1))                    \
                        : _mm512_srli_epi32(x0, 16);                                             \
                    ev = tvmaf_dpwssd512(ev, x0, w);                                             \
                    od = tvmaf_dpwssd512(od, x1, w);                                             \
                }
                VIF_PAIR_STEP(1) VIF_PAIR_STEP(2) VIF_PAIR_STEP(3) VIF_PAIR_STEP(4)
                VIF_PAIR_STEP(5) VIF_PAIR_STEP(6) VIF_PAIR_STEP(7) VIF_PAIR_STEP(8)
#undef VIF_PAIR_STEP
                _mm512_storeu_si512(acc[q] + b, ev);
                _mm512_storeu_si512(acc[q] + b + 16, od);
            }
            continue;
        }
        const __mmask32 m = (__mmask32)((1u << (n - b)) - 1);
        for (unsigned q = 0; q < VIF_N_ROWS; q++) {
            const uint16_t *p = row[q] + o + (int)b;
            const __m512i start = vif_low_half_row(q) ? back_lo : back;
            __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
            for (unsigned t = 0; t < np; t++) {
                const __m512i x0 = _mm512_maskz_loadu_epi16(m, p + 2 * t);
                const __m512i x1 = 2 * t + 1 < fw ? _mm512_maskz_loadu_epi16(m, p + 2 * t + 1)
                                                  : x0;
                const __m512i w = _mm512_set1_epi32((int)words[t]);
                lo = tvmaf_dpwssd512(lo, _mm512_unpacklo_epi16(x0, x1), w);
                hi = tvmaf_dpwssd512(hi, _mm512_unpackhi_epi16(x0, x1), w);
            }
            _mm512_storeu_si512(acc[q] + b,
                                _mm512_add_epi32(_mm512_permutex2var_epi64(lo, first, hi), start));
            if (n - b > 16)
                _mm512_storeu_si512(acc[q] + b + 16, _mm512_add_epi32(
                    _mm512_permutex2var_epi64(lo, second, hi), start));
        }
    }
}

/* vif_filter_rows, 16 columns a step, the symmetric taps' samples added
 * first as the C does (the same integers); inlined with a constant fw. Lanes
 * past n read nothing and are ignored by the statistic. */
static inline __attribute__((always_inline)) void
vif_filter_rows_mullo_avx512(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                       const uint16_t *taps, unsigned fw)
{
    const unsigned half = fw / 2;
    for (unsigned b = 0; b < n; b += 16) {
        const __mmask16 m = n - b >= 16 ? 0xffff : (__mmask16)((1u << (n - b)) - 1);
        for (unsigned q = 0; q < VIF_N_ROWS; q++) {
            const uint16_t *p = row[q] + o + (int)b;
            __m512i a = _mm512_mullo_epi32(_mm512_set1_epi32(taps[half]), load_row_u16x16(p + half, m));
            if (vif_low_half_row(q)) a = _mm512_add_epi32(a, _mm512_set1_epi32(VIF_MOMENT_HALF));
            for (unsigned k = 0; k < half; k++)
                a = _mm512_add_epi32(a, _mm512_mullo_epi32(_mm512_set1_epi32(taps[k]),
                                                           _mm512_add_epi32(load_row_u16x16(p + k, m),
                                                                            load_row_u16x16(p + fw - 1 - k, m))));
            _mm512_storeu_si512(acc[q] + b, a);
        }
    }
}
/* The madd form where every tap is below 2^15 (scales 0..2). */
static inline __attribute__((always_inline)) void
vif_filter_rows_avx512(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                       const uint16_t *taps, unsigned fw)
{
    if (fw > 3) vif_filter_rows_madd_avx512(acc, row, o, n, taps, fw);
    else vif_filter_rows_mullo_avx512(acc, row, o, n, taps, fw);
}
#define VIF_FILTER_ROWS vif_filter_rows_avx512

static inline __m512i round_shift32_16(__m512i v, unsigned shift)
{
    if (!shift) return v;
    return _mm512_srli_epi32(_mm512_add_epi32(v, _mm512_set1_epi32(1 << (shift - 1))),
                             (int)shift);
}

/* One pair of tap rows at 16 columns of 8-bit samples: the reference's (x)
 * and the distorted's (y) samples of the two rows interleaved as 16-bit
 * words, and their products (below 2^16) with the top bit flipped. */
typedef struct VifPair16 {
    __m512i x, y, x2, y2, xy;
} VifPair16;

static inline __attribute__((always_inline)) VifPair16
vif_pair_16(const uint8_t *r0, const uint8_t *r1, const uint8_t *d0, const uint8_t *d1,
            __mmask16 m, __m512i flip)
{
    const __m128i a = _mm_maskz_loadu_epi8(m, r0), b = _mm_maskz_loadu_epi8(m, r1);
    const __m128i c = _mm_maskz_loadu_epi8(m, d0), d = _mm_maskz_loadu_epi8(m, d1);
    VifPair16 p;
    p.x = _mm512_cvtepu8_epi16(_mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)), _mm_unpackhi_epi8(a, b), 1));
    p.y = _mm512_cvtepu8_epi16(_mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_unpacklo_epi8(c, d)), _mm_unpackhi_epi8(c, d), 1));
    p.x2 = _mm512_xor_si512(_mm512_mullo_epi16(p.x, p.x), flip);
    p.y2 = _mm512_xor_si512(_mm512_mullo_epi16(p.y, p.y), flip);
    p.xy = _mm512_xor_si512(_mm512_mullo_epi16(p.x, p.y), flip);
    return p;
}

/* One output row's five sums (means, then moments), and one pair of tap
 * rows added into them with that row's tap words c. */
typedef struct VifSums16 {
    __m512i m1, m2, xx, yy, xy;
} VifSums16;

static inline __attribute__((always_inline)) void
vif_add_pair_16(VifSums16 *s, const VifPair16 *q, __m512i c)
{
    s->m1 = tvmaf_dpwssd512(s->m1, q->x, c);
    s->m2 = tvmaf_dpwssd512(s->m2, q->y, c);
    s->xx = tvmaf_dpwssd512(s->xx, q->x2, c);
    s->yy = tvmaf_dpwssd512(s->yy, q->y2, c);
    s->xy = tvmaf_dpwssd512(s->xy, q->xy, c);
}

/* One output row's five sums at 16 columns (j, mask m), shifted and stored
 * as its eight 16-bit rows (a moment as its low and high halves). */
static inline __attribute__((always_inline)) void
vif_put_stat_16(uint16_t *const *out, unsigned j, __mmask16 m, const VifSums16 *s,
                unsigned mu_shift, unsigned sq_shift)
{
    const __m512i v[5] = { round_shift32_16(s->m1, mu_shift), round_shift32_16(s->m2, mu_shift),
                           round_shift32_16(s->xx, sq_shift), round_shift32_16(s->yy, sq_shift),
                           round_shift32_16(s->xy, sq_shift) };
    vif_put_row16(out[VIF_MU1] + j, m, _mm512_cvtepi32_epi16(v[0]));
    vif_put_row16(out[VIF_MU2] + j, m, _mm512_cvtepi32_epi16(v[1]));
    for (int k = 0; k < 3; k++) {
        const unsigned lo = VIF_XX_LO + 2 * (unsigned)k;
        vif_put_row16(out[lo] + j, m, _mm512_cvtepi32_epi16(v[2 + k]));
        vif_put_row16(out[lo + 1] + j, m,
                                 _mm512_cvtepi32_epi16(_mm512_srli_epi32(v[2 + k], 16)));
    }
}

/* 8-bit scale 0, 16 columns a step with vpmaddwd, as the AVX2 kernel below
 * (its comment says why the sums are the C's): the samples of two tap rows
 * interleaved, the products of two samples entering with their top bit
 * flipped and 2^15 * (sum of the taps) added back once. */
static void vif_stat_vertical_8_avx512(uint16_t *const *out, const uint8_t *ref,
                                       ptrdiff_t ref_stride, const uint8_t *dis,
                                       ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                       unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[0];
    const uint16_t *taps = vif_filter_taps[0];
    const uint8_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = ref + r * ref_stride;
        pd[k] = dis + r * dis_stride;
    }
    pr[fw] = pr[fw - 1]; /* the zero tap's row: any row that exists */
    pd[fw] = pd[fw - 1];
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    __m512i cp[(VIF_MAX_TAPS + 1) / 2];
    for (unsigned p = 0; p < np; p++) cp[p] = _mm512_set1_epi32((int)words[p]);
    const __m512i flip = _mm512_set1_epi16((short)0x8000);
    const __m512i back = _mm512_set1_epi32((int)(32768u * tap_sum));
    for (unsigned j = 0; j < w; j += 16) {
        const __mmask16 m = w - j >= 16 ? 0xffff : (__mmask16)((1u << (w - j)) - 1);
        VifSums16 a = { _mm512_setzero_si512(), _mm512_setzero_si512(), back, back, back };
        for (unsigned p = 0; p < np; p++) {
            const VifPair16 q = vif_pair_16(pr[2 * p] + j, pr[2 * p + 1] + j, pd[2 * p] + j,
                                            pd[2 * p + 1] + j, m, flip);
            vif_add_pair_16(&a, &q, cp[p]);
        }
        vif_put_stat_16(out, j, m, &a, mu_shift, sq_shift);
    }
}
#define VIF_STAT_VERTICAL_8 vif_stat_vertical_8_avx512

/* vif_stat_vertical_8_avx512 for rows i and i + 1 (vif_rows_8x2): the
 * samples and products of each pair of sample rows formed once, each sum in
 * vpdpwssd as in the one-row kernel. With `down`, also the low-pass into
 * scale 1 at row i, whose 9 taps read s_4 .. s_12 (vif_tap_row(i, k, 9) is
 * vif_tap_row(i, k + 4, 17)): pairs 2..6 with words (d_0, d_1) .. (d_8, 0),
 * every tap below 2^15 and every sum below 255 * 2^16, as the C's. Inlined
 * with `down` constant.
 * Two rows, measured on Zen 4 against two other ways to form a sample pair
 * less often: four rows a call (20 sample rows, 24 sums in registers with
 * VNNI) was 15% faster alone but no faster in whole vmaf_v0.6.1 runs (the
 * statistic's table look-ups took longer there: four result rows, 120 KB at
 * 1920 columns, displace more of the cache); and each pair's samples and
 * products kept (in L2) for the band's next calls, which otherwise form
 * them again, made the runs 1 to 3% slower. */
static inline __attribute__((always_inline)) void
vif_stat_vertical_8x2_body(uint16_t *const *out0, uint16_t *const *out1, const uint8_t *ref,
                           ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
                           unsigned w, unsigned h, unsigned i, unsigned mu_shift,
                           unsigned sq_shift, uint16_t *down_r, uint16_t *down_d,
                           unsigned down_shift, const bool down)
{
    const uint8_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    uint32_t wa[(VIF_MAX_TAPS + 1) / 2], wb[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_rows_8x2(pr, pd, wb, ref, ref_stride, dis, dis_stride, h, i);
    (void)vif_tap_pair_words(wa, vif_filter_taps[0], vif_filter_width[0], &tap_sum);
    __m512i ca[(VIF_MAX_TAPS + 1) / 2], cb[(VIF_MAX_TAPS + 1) / 2];
    for (unsigned p = 0; p < np; p++) {
        ca[p] = _mm512_set1_epi32((int)wa[p]);
        cb[p] = _mm512_set1_epi32((int)wb[p]);
    }
    uint32_t wd[(VIF_MAX_TAPS + 1) / 2], down_sum;
    (void)vif_tap_pair_words(wd, vif_filter_taps[1], vif_filter_width[1], &down_sum);
    __m512i cd[(VIF_MAX_TAPS + 1) / 2];
    for (unsigned p = 0; p < 5; p++) cd[p] = _mm512_set1_epi32((int)wd[p]);
    const __m512i flip = _mm512_set1_epi16((short)0x8000);
    const __m512i back = _mm512_set1_epi32((int)(32768u * tap_sum));
    for (unsigned j = 0; j < w; j += 16) {
        const __mmask16 m = w - j >= 16 ? 0xffff : (__mmask16)((1u << (w - j)) - 1);
        const __m512i zero = _mm512_setzero_si512();
        VifSums16 a = { zero, zero, back, back, back }, b = a;
        __m512i dr = zero, dd = zero;
        for (unsigned p = 0; p < np; p++) {
            const VifPair16 q = vif_pair_16(pr[2 * p] + j, pr[2 * p + 1] + j, pd[2 * p] + j,
                                            pd[2 * p + 1] + j, m, flip);
            vif_add_pair_16(&a, &q, ca[p]);
            vif_add_pair_16(&b, &q, cb[p]);
            if (down && p >= 2 && p <= 6) {
                dr = tvmaf_dpwssd512(dr, q.x, cd[p - 2]);
                dd = tvmaf_dpwssd512(dd, q.y, cd[p - 2]);
            }
        }
        if (down) {
            _mm256_mask_storeu_epi16(down_r + j, m,
                                     _mm512_cvtepi32_epi16(round_shift32_16(dr, down_shift)));
            _mm256_mask_storeu_epi16(down_d + j, m,
                                     _mm512_cvtepi32_epi16(round_shift32_16(dd, down_shift)));
        }
        vif_put_stat_16(out0, j, m, &a, mu_shift, sq_shift);
        vif_put_stat_16(out1, j, m, &b, mu_shift, sq_shift);
    }
}

static void vif_stat_vertical_8x2_avx512(uint16_t *const *out0, uint16_t *const *out1,
                                         const uint8_t *ref, ptrdiff_t ref_stride,
                                         const uint8_t *dis, ptrdiff_t dis_stride, unsigned w,
                                         unsigned h, unsigned i, unsigned mu_shift,
                                         unsigned sq_shift, uint16_t *down_r, uint16_t *down_d,
                                         unsigned down_shift)
{
    if (down_r)
        vif_stat_vertical_8x2_body(out0, out1, ref, ref_stride, dis, dis_stride, w, h, i,
                                   mu_shift, sq_shift, down_r, down_d, down_shift, true);
    else
        vif_stat_vertical_8x2_body(out0, out1, ref, ref_stride, dis, dis_stride, w, h, i,
                                   mu_shift, sq_shift, NULL, NULL, 0, false);
}
#define VIF_STAT_VERTICAL_8X2 vif_stat_vertical_8x2_avx512

/* vif_down_horizontal, 16 outputs a step. A 32-bit lane at offset k of the
 * row holds the two samples of taps k, k + 1 of one output (the outputs are
 * at the even columns). Where every tap is below 2^15 (the 9 and 5 taps of
 * scales 1 and 2), vpmaddwd multiplies both at once, the samples read as
 * signed after their top bit is flipped and 2^15 times the tap sum added
 * back (as vif_filter_rows_madd_avx512; a pair's two taps sum below 2^16,
 * so no pair's two products overflow 32 bits, and the total is the C's
 * uint32 sum, below 2^32). Scale 3's centre tap (43728) is not, and its
 * three taps take vpmulld on the low halves. A step reads one sample past
 * the last the C reads, inside the row's right padding (w >= 2 w2, padding
 * >= half); the last w2 % 16 outputs are the C kernel's. */
static void vif_down_horizontal(uint16_t *out_r, uint16_t *out_d, const uint16_t *rr,
                                const uint16_t *rd, unsigned w2, unsigned next);
static void vif_down_horizontal_avx512(uint16_t *out_r, uint16_t *out_d, const uint16_t *rr,
                                       const uint16_t *rd, unsigned w2, unsigned next)
{
    const unsigned fw = vif_filter_width[next];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[next];
    const __m512i lo16 = _mm512_set1_epi32(0xffff), rnd = _mm512_set1_epi32(32768);
    const __m512i flip = _mm512_set1_epi16((short)0x8000);
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    const bool madd = fw > 3;
    const __m512i back = _mm512_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    unsigned oj = 0;
    for (; oj + 16 <= w2; oj += 16) {
        __m512i ar, ad;
        const uint16_t *pr = rr + 2 * (int)oj - half, *pd = rd + 2 * (int)oj - half;
        if (madd) {
            ar = ad = back;
            for (unsigned t = 0; t < np; t++) {
                const __m512i c = _mm512_set1_epi32((int)words[t]);
                ar = tvmaf_dpwssd512(ar, _mm512_xor_si512(_mm512_loadu_si512(pr + 2 * t), flip), c);
                ad = tvmaf_dpwssd512(ad, _mm512_xor_si512(_mm512_loadu_si512(pd + 2 * t), flip), c);
            }
        } else {
            ar = ad = _mm512_setzero_si512();
            for (unsigned k = 0; k < fw; k++) {
                const __m512i c = _mm512_set1_epi32(taps[k]);
                const __m512i x = _mm512_and_si512(_mm512_loadu_si512(pr + k), lo16);
                const __m512i y = _mm512_and_si512(_mm512_loadu_si512(pd + k), lo16);
                ar = _mm512_add_epi32(ar, _mm512_mullo_epi32(c, x));
                ad = _mm512_add_epi32(ad, _mm512_mullo_epi32(c, y));
            }
        }
        _mm256_storeu_si256((__m256i *)(out_r + oj),
                            _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_add_epi32(ar, rnd), 16)));
        _mm256_storeu_si256((__m256i *)(out_d + oj),
                            _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_add_epi32(ad, rnd), 16)));
    }
    if (oj < w2)
        vif_down_horizontal(out_r + oj, out_d + oj, rr + 2 * oj, rd + 2 * oj, w2 - oj, next);
}
#define VIF_DOWN_HORIZONTAL vif_down_horizontal_avx512

/* sixteen 32-bit lanes of (lo + 2^16 hi) rounded and shifted right by shift,
 * low 32 bits, as vif_round_shift64, lo and hi being the sums of the low and
 * high halves of a moment's products (each at most 65536 * 65535). With
 * shift <= 16 (every moment shift, vif_stat_sq_shift), 2^16 hi is a multiple
 * of 2^shift and lo plus the rounding term stays below 2^32, so the value is
 * (hi << (16 - shift)) + ((lo + r) >> shift): no 64-bit lanes needed. */
static inline __m512i round_shift64_16(__m512i lo, __m512i hi, unsigned shift)
{
    const __m512i rnd = _mm512_set1_epi32(shift ? 1 << (shift - 1) : 0);
    return _mm512_add_epi32(_mm512_sll_epi32(hi, _mm_cvtsi32_si128((int)(16 - shift))),
                            _mm512_srl_epi32(_mm512_add_epi32(lo, rnd),
                                             _mm_cvtsi32_si128((int)shift)));
}

/* The eight 32-bit sums of a 16-bit vertical pass at 16 columns (j, mask
 * m: the means, then each moment's low- and high-half sums), rounded,
 * shifted and stored as the eight rows (vif_stat_vertical_16's steps). */
static inline __attribute__((always_inline)) void
vif_put_stat16_split(uint16_t *const *out, unsigned j, __mmask16 m, const __m512i c[VIF_N_ROWS],
                     unsigned mu_shift, unsigned sq_shift)
{
    const __m512i xx = round_shift64_16(c[2], c[3], sq_shift);
    const __m512i yy = round_shift64_16(c[4], c[5], sq_shift);
    const __m512i cc = round_shift64_16(c[6], c[7], sq_shift);
    vif_put_row16(out[VIF_MU1] + j, m, _mm512_cvtepi32_epi16(round_shift32_16(c[0], mu_shift)));
    vif_put_row16(out[VIF_MU2] + j, m, _mm512_cvtepi32_epi16(round_shift32_16(c[1], mu_shift)));
    vif_put_row16(out[VIF_XX_LO] + j, m, _mm512_cvtepi32_epi16(xx));
    vif_put_row16(out[VIF_XX_HI] + j, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(xx, 16)));
    vif_put_row16(out[VIF_YY_LO] + j, m, _mm512_cvtepi32_epi16(yy));
    vif_put_row16(out[VIF_YY_HI] + j, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(yy, 16)));
    vif_put_row16(out[VIF_XY_LO] + j, m, _mm512_cvtepi32_epi16(cc));
    vif_put_row16(out[VIF_XY_HI] + j, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(cc, 16)));
}

/* vif_stat_vertical_16 where every tap is below 2^15 (filters wider than 3),
 * 32 columns a step: the AVX2 form's arithmetic (vif_stat_vertical_16_madd_avx2
 * below: 16-bit product halves, vpmaddwd over pairs of rows with the top bits
 * flipped, 2^15 times the tap sum added back), each quantity's low and high
 * unpack results put back in column order with one two-source permute. */
static void vif_stat_vertical_16_madd_avx512(uint16_t *const *out, const uint16_t *const *pr,
                                             const uint16_t *const *pd, unsigned fw,
                                             const uint16_t *taps, unsigned w, unsigned mu_shift,
                                             unsigned sq_shift)
{
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    const __m512i flip = _mm512_set1_epi16((short)0x8000);
    const __m512i back = _mm512_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    const __m512i order[2] = { _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
                               _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15) };
    for (unsigned j = 0; j < w; j += 32) {
        const __mmask32 m = w - j >= 32 ? 0xffffffffu : (__mmask32)((1u << (w - j)) - 1);
        __m512i s[VIF_N_ROWS][2];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) s[q][0] = s[q][1] = back;
        for (unsigned t = 0; t < np; t++) {
            const unsigned k[2] = { 2 * t, 2 * t + 1 < fw ? 2 * t + 1 : 2 * t };
            const __m512i wt = _mm512_set1_epi32((int)words[t]);
            __m512i v[2][VIF_N_ROWS];
            for (int r = 0; r < 2; r++) {
                const __m512i x = _mm512_maskz_loadu_epi16(m, pr[k[r]] + j);
                const __m512i y = _mm512_maskz_loadu_epi16(m, pd[k[r]] + j);
                VIF_QUANTITIES16(v[r], x, y, _mm512_mullo_epi16, _mm512_mulhi_epu16);
                for (unsigned q = 0; q < VIF_N_ROWS; q++) v[r][q] = _mm512_xor_si512(v[r][q], flip);
            }
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                s[q][0] = tvmaf_dpwssd512(
                    s[q][0], _mm512_unpacklo_epi16(v[0][q], v[1][q]), wt);
                s[q][1] = tvmaf_dpwssd512(
                    s[q][1], _mm512_unpackhi_epi16(v[0][q], v[1][q]), wt);
            }
        }
        for (int h = 0; h < 2; h++) {
            const __mmask16 mh = (__mmask16)(h ? m >> 16 : m);
            if (!mh) break;
            __m512i c[VIF_N_ROWS];
            for (unsigned q = 0; q < VIF_N_ROWS; q++)
                c[q] = _mm512_permutex2var_epi64(s[q][0], order[h], s[q][1]);
            vif_put_stat16_split(out, j + 16 * (unsigned)h, mh, c, mu_shift, sq_shift);
        }
    }
}

/* vif_stat_vertical_16 on 16 columns a step: the eight column sums (means,
 * and the moments' products split in 16-bit halves, as the C) in registers. */
static void vif_stat_vertical_16_avx512(uint16_t *const *out, const uint16_t *ref,
                                        ptrdiff_t ref_stride, const uint16_t *dis,
                                        ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                        unsigned scale, unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    const uint16_t *pr[VIF_MAX_TAPS], *pd[VIF_MAX_TAPS];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = (const uint16_t *)((const char *)ref + r * ref_stride);
        pd[k] = (const uint16_t *)((const char *)dis + r * dis_stride);
    }
    if (fw > 3) {
        vif_stat_vertical_16_madd_avx512(out, pr, pd, fw, taps, w, mu_shift, sq_shift);
        return;
    }
    const __m512i lo16 = _mm512_set1_epi32(0xffff);
    for (unsigned j = 0; j < w; j += 16) {
        const __mmask16 m = w - j >= 16 ? 0xffff : (__mmask16)((1u << (w - j)) - 1);
        __m512i m1 = _mm512_setzero_si512(), m2 = m1, xl = m1, xh = m1, yl = m1, yh = m1;
        __m512i cl = m1, ch = m1;
        for (unsigned k = 0; k < fw; k++) {
            const __m512i c = _mm512_set1_epi32(taps[k]);
            const __m512i x = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, pr[k] + j));
            const __m512i y = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, pd[k] + j));
            const __m512i x2 = _mm512_mullo_epi32(x, x), y2 = _mm512_mullo_epi32(y, y);
            const __m512i xy = _mm512_mullo_epi32(x, y);
            m1 = _mm512_add_epi32(m1, _mm512_mullo_epi32(c, x));
            m2 = _mm512_add_epi32(m2, _mm512_mullo_epi32(c, y));
            xl = _mm512_add_epi32(xl, _mm512_mullo_epi32(c, _mm512_and_si512(x2, lo16)));
            xh = _mm512_add_epi32(xh, _mm512_mullo_epi32(c, _mm512_srli_epi32(x2, 16)));
            yl = _mm512_add_epi32(yl, _mm512_mullo_epi32(c, _mm512_and_si512(y2, lo16)));
            yh = _mm512_add_epi32(yh, _mm512_mullo_epi32(c, _mm512_srli_epi32(y2, 16)));
            cl = _mm512_add_epi32(cl, _mm512_mullo_epi32(c, _mm512_and_si512(xy, lo16)));
            ch = _mm512_add_epi32(ch, _mm512_mullo_epi32(c, _mm512_srli_epi32(xy, 16)));
        }
        const __m512i c[VIF_N_ROWS] = { m1, m2, xl, xh, yl, yh, cl, ch };
        vif_put_stat16_split(out, j, m, c, mu_shift, sq_shift);
    }
}
#define VIF_STAT_VERTICAL_16 vif_stat_vertical_16_avx512

/*
 * vif_stat_vertical_16_madd_avx512 for rows i and i + 1, 16 columns a step:
 * the sample rows paired as the 8-bit pair kernel pairs them
 * (vif_rows_8x2: (s_0, s_1) .. (s_fw-1, s_fw), row i's taps (c_2p, c_2p+1)
 * with c_fw = 0, row i + 1's (c_2p-1, c_2p) with c_-1 = 0), each pair's
 * products and flips formed once for both rows. A quantity's two sample rows
 * are interleaved word by word with two in-lane unpacks, which leave the
 * sums' 128-bit lanes in the column order 0-3, 8-11, 4-7, 12-15, put back
 * once per step (one vpermt2w per quantity and pair took longer on Zen 4).
 * The sums are the one-row kernel's, term for term plus zeros.
 */
static void vif_stat_vertical_16x2_madd_avx512(uint16_t *const *out0, uint16_t *const *out1,
                                               const uint16_t *const *pr,
                                               const uint16_t *const *pd, const uint32_t *wa,
                                               const uint32_t *wb, unsigned np, uint32_t tap_sum,
                                               unsigned w, unsigned mu_shift, unsigned sq_shift)
{
    const __m512i flip = _mm512_set1_epi16((short)0x8000);
    const __m512i back = _mm512_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    for (unsigned j = 0; j < w; j += 16) {
        const __mmask16 m = w - j >= 16 ? 0xffff : (__mmask16)((1u << (w - j)) - 1);
        __m512i sa[VIF_N_ROWS], sb[VIF_N_ROWS];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) sa[q] = sb[q] = back;
        for (unsigned p = 0; p < np; p++) {
            __m256i v[2][VIF_N_ROWS];
            for (int r = 0; r < 2; r++) {
                const __m256i x = _mm256_maskz_loadu_epi16(m, pr[2 * p + (unsigned)r] + j);
                const __m256i y = _mm256_maskz_loadu_epi16(m, pd[2 * p + (unsigned)r] + j);
                VIF_QUANTITIES16(v[r], x, y, _mm256_mullo_epi16, _mm256_mulhi_epu16);
            }
            const __m512i ca = _mm512_set1_epi32((int)wa[p]), cb = _mm512_set1_epi32((int)wb[p]);
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                const __m512i z = _mm512_xor_si512(_mm512_inserti64x4(
                    _mm512_castsi256_si512(_mm256_unpacklo_epi16(v[0][q], v[1][q])),
                    _mm256_unpackhi_epi16(v[0][q], v[1][q]), 1), flip);
                sa[q] = tvmaf_dpwssd512(sa[q], z, ca);
                sb[q] = tvmaf_dpwssd512(sb[q], z, cb);
            }
        }
        for (int r = 0; r < 2; r++) {
            uint16_t *const *out = r ? out1 : out0;
            __m512i c[VIF_N_ROWS];
            for (unsigned q = 0; q < VIF_N_ROWS; q++)
                c[q] = _mm512_shuffle_i64x2(r ? sb[q] : sa[q], r ? sb[q] : sa[q],
                                            _MM_SHUFFLE(3, 1, 2, 0));
            vif_put_stat16_split(out, j, m, c, mu_shift, sq_shift);
        }
    }
}

static void vif_stat_vertical_16x2_avx512(uint16_t *const *out0, uint16_t *const *out1,
                                          const uint16_t *ref, ptrdiff_t ref_stride,
                                          const uint16_t *dis, ptrdiff_t dis_stride, unsigned w,
                                          unsigned h, unsigned i, unsigned scale,
                                          unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    if (fw <= 3) { /* scale 3's centre tap is not below 2^15: the one-row form */
        vif_stat_vertical_16_avx512(out0, ref, ref_stride, dis, dis_stride, w, h, i, scale,
                                    mu_shift, sq_shift);
        vif_stat_vertical_16_avx512(out1, ref, ref_stride, dis, dis_stride, w, h, i + 1, scale,
                                    mu_shift, sq_shift);
        return;
    }
    const uint16_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    uint32_t wa[(VIF_MAX_TAPS + 1) / 2], wb[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_rows_16x2(pr, pd, wb, ref, ref_stride, dis, dis_stride, scale, h, i);
    (void)vif_tap_pair_words(wa, taps, fw, &tap_sum);
    vif_stat_vertical_16x2_madd_avx512(out0, out1, pr, pd, wa, wb, np, tap_sum, w, mu_shift,
                                       sq_shift);
}
#define VIF_STAT_VERTICAL_16X2 vif_stat_vertical_16x2_avx512

/* vif_down_vertical, 16 columns a step, both sums in registers. */
static void vif_down_vertical_avx512(uint16_t *out_r, uint16_t *out_d, const void *ref,
                                     ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                                     bool is8, unsigned w, unsigned h, unsigned i, unsigned next,
                                     unsigned shift)
{
    const unsigned fw = vif_filter_width[next];
    const uint16_t *taps = vif_filter_taps[next];
    const char *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = (const char *)ref + r * ref_stride;
        pd[k] = (const char *)dis + r * dis_stride;
    }
    if (fw > 3) {
        /* every tap below 2^15 (scales 1 and 2): the rows in pairs (k, k + 1)
         * with their samples interleaved as 16-bit words, 32 columns a step,
         * an odd last tap paired with a zero tap on a row that exists. Above
         * 8 bits the samples are read as signed with their top bit flipped
         * and 2^15 times the tap sum added back (as vif_filter_rows_madd_avx512:
         * each pair's sum and every partial total lie in [-2^31, 2^31), the
         * total modulo 2^32 is the C's uint32 sum). The unpacks and the pack
         * work within 128-bit lanes, so the pack puts the columns back in
         * order, each result first cut to its low 16 bits as the C's cast
         * (samples above the declared depth can carry a result past 16 bits),
         * which the pack's unsigned saturation then keeps. */
        pr[fw] = pr[fw - 1];
        pd[fw] = pd[fw - 1];
        uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
        const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
        const __m512i flip = _mm512_set1_epi16((short)0x8000), lo16 = _mm512_set1_epi32(0xffff);
        const __m512i back = _mm512_set1_epi32(is8 ? 0 : (int)(uint32_t)(32768u * tap_sum));
        for (unsigned j = 0; j < w; j += 32) {
            const __mmask32 m = w - j >= 32 ? 0xffffffffu : (__mmask32)((1u << (w - j)) - 1);
            __m512i rl = back, rh = back, dl = back, dh = back;
            for (unsigned p = 0; p < np; p++) {
                const __m512i c = _mm512_set1_epi32((int)words[p]);
#define ROW(q) (is8 ? _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, (const uint8_t *)(q) + j)) \
                    : _mm512_xor_si512(_mm512_maskz_loadu_epi16(m, (const uint16_t *)(q) + j), flip))
                const __m512i a = ROW(pr[2 * p]), b = ROW(pr[2 * p + 1]);
                const __m512i x = ROW(pd[2 * p]), y = ROW(pd[2 * p + 1]);
#undef ROW
                rl = tvmaf_dpwssd512(rl, _mm512_unpacklo_epi16(a, b), c);
                rh = tvmaf_dpwssd512(rh, _mm512_unpackhi_epi16(a, b), c);
                dl = tvmaf_dpwssd512(dl, _mm512_unpacklo_epi16(x, y), c);
                dh = tvmaf_dpwssd512(dh, _mm512_unpackhi_epi16(x, y), c);
            }
#define LOW16(v) _mm512_and_si512(round_shift32_16(v, shift), lo16)
            _mm512_mask_storeu_epi16(out_r + j, m, _mm512_packus_epi32(LOW16(rl), LOW16(rh)));
            _mm512_mask_storeu_epi16(out_d + j, m, _mm512_packus_epi32(LOW16(dl), LOW16(dh)));
#undef LOW16
        }
        return;
    }
    for (unsigned j = 0; j < w; j += 16) {
        const __mmask16 m = w - j >= 16 ? 0xffff : (__mmask16)((1u << (w - j)) - 1);
        __m512i ar = _mm512_setzero_si512(), ad = ar;
        for (unsigned k = 0; k < fw; k++) {
            const __m512i c = _mm512_set1_epi32(taps[k]);
            __m512i x, y;
            if (is8) {
                x = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, (const uint8_t *)pr[k] + j));
                y = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, (const uint8_t *)pd[k] + j));
            } else {
                x = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, (const uint16_t *)pr[k] + j));
                y = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, (const uint16_t *)pd[k] + j));
            }
            ar = _mm512_add_epi32(ar, _mm512_mullo_epi32(c, x));
            ad = _mm512_add_epi32(ad, _mm512_mullo_epi32(c, y));
        }
        _mm256_mask_storeu_epi16(out_r + j, m, _mm512_cvtepi32_epi16(round_shift32_16(ar, shift)));
        _mm256_mask_storeu_epi16(out_d + j, m, _mm512_cvtepi32_epi16(round_shift32_16(ad, shift)));
    }
}
#define VIF_DOWN_VERTICAL vif_down_vertical_avx512

#define VIF_KERNELS_IMPL
#include "feature/vif/vif_cpu.h"

#elif defined(__AVX2__)
#include <immintrin.h>

/* AVX2: the 32-bit kernels 8 columns a step (the C kernel on the last
 * w % 8 columns: every output column reads its own columns only, or, for
 * the decimation, its own pair); the per-pixel statistic eight pixels a step
 * (vif_pixels_avx2, the C's vif_pixel on the last n % 8). */

/* The table indices of eight uint32 v in [2^17, 2^32) (vif_log2_32) as
 * 16-bit lanes, 0 outside m (vif_log2_resid_sum): floor(log2 v) from the
 * exponent of (float)(v >> 8), which is exact (v >> 8 < 2^24), k =
 * floor(log2 v) - 15, index i = (v >> k) - 2^15; *k2048 is 2048 k + (i >> 4)
 * (log2_ix16). */
static inline __m128i log2_ix8(__m256i v, __m256i m, __m256i *k2048)
{
    const __m256i e = _mm256_srli_epi32(
        _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32(v, 8))), 23);
    const __m256i k = _mm256_sub_epi32(e, _mm256_set1_epi32(127 - 8 + 15));
    const __m256i ix = _mm256_and_si256(
        _mm256_sub_epi32(_mm256_srlv_epi32(v, k), _mm256_set1_epi32(VIF_LOG2_TABLE_LEN)), m);
    *k2048 = _mm256_add_epi32(_mm256_slli_epi32(k, 11), _mm256_srli_epi32(ix, 4));
    return _mm_packus_epi32(_mm256_castsi256_si128(ix), _mm256_extracti128_si256(ix, 1));
}

/* the low 32 bits of the four 64-bit lanes of lo, then of hi */
static inline __m256i narrow_8x64(__m256i lo, __m256i hi)
{
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(lo, even),
                                     _mm256_permutevar8x32_epi32(hi, even), 0x20);
}

/* the same for eight 64-bit v in [2^17, 2^52) (vif_log2_64, which receives
 * only such values here), four in lo and four in hi (lanes in that order):
 * floor(log2 v) from the exponent of v as a double (exact: v below 2^52,
 * formed by the 2^52 bias trick, since AVX2 has no 64-bit lzcnt or
 * conversion); v >> k and k are below 2^16, so they are narrowed to 32-bit
 * lanes */
static inline __m128i log2_ix8x64(__m256i lo, __m256i hi, __m256i m, __m256i *k2048)
{
    const __m256i bias = _mm256_set1_epi64x(0x4330000000000000ll);
    const __m256i off = _mm256_set1_epi64x(1023 + 15);
    __m256i k[2], u[2];
    for (int h = 0; h < 2; h++) {
        const __m256i v = h ? hi : lo;
        const __m256d dv = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, bias)),
                                         _mm256_castsi256_pd(bias));
        /* 1023 + floor(log2 v), less 1023 + 15 */
        k[h] = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(dv), 52), off);
        u[h] = _mm256_srlv_epi64(v, k[h]);
    }
    const __m256i ix = _mm256_and_si256(
        _mm256_sub_epi32(narrow_8x64(u[0], u[1]), _mm256_set1_epi32(VIF_LOG2_TABLE_LEN)), m);
    *k2048 = _mm256_add_epi32(_mm256_slli_epi32(narrow_8x64(k[0], k[1]), 11),
                              _mm256_srli_epi32(ix, 4));
    return _mm_packus_epi32(_mm256_castsi256_si128(ix), _mm256_extracti128_si256(ix, 1));
}

/* (a b + 2^31) >> 32 of eight uint32 pairs (as mul_round32_16) */
static inline __m256i mul_round32_8(__m256i a, __m256i b)
{
    const __m256i half = _mm256_set1_epi64x(0x80000000ll);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epu32(a, b), half);
    const __m256i odd = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

/* (lo + 2^16 hi + 2^15) >> 16, low 32 bits, eight lanes (as moment_16) */
static inline __m256i moment_8x32(const uint32_t *lo, const uint32_t *hi)
{
    const __m256i l = _mm256_loadu_si256((const __m256i *)lo);
    const __m256i h = _mm256_loadu_si256((const __m256i *)hi);
    return _mm256_add_epi32(h, _mm256_srli_epi32(l, 16));
}

/* vif_pixel on eight pixels at a time, operation for operation: the integer
 * steps up to the variances in 32-bit lanes (the C's uint32 wraps are the
 * lanes'), the doubles in two halves of four in the C's order (g = sigma12 /
 * (sigma1_sq + eps), sv = sigma2_sq - g sigma12, gl = g < limit ? g : limit,
 * (gl gl) sigma1_sq), the truncations as the C's: sv clamped at 0 (in range:
 * at most sigma2_sq), and (gl gl) sigma1_sq, positive and below 100^2 2^31 <
 * 2^52 (the gain limit is at most 100), truncated through the 2^52 bias.
 * The logarithms are summed as at AVX-512 (vif_pixels_avx512): table
 * indices in lists whose residuals vif_log2_resid_sum adds, the 2048 k +
 * (i >> 4) terms in 32-bit lanes; num_lin's terms are added in 64-bit
 * lanes, any order. */
static void vif_pixels_avx2(VifSums *row, uint32_t (*acc)[VIF_BLOCK], unsigned n,
                            const VifLog2 *log2, double gain_limit)
{
    const __m256i nsq = _mm256_set1_epi32(VIF_SIGMA_NSQ), zero = _mm256_setzero_si256();
    const __m256i bias = _mm256_set1_epi64x(0x4330000000000000ll);
    const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10), glim = _mm256_set1_pd(gain_limit);
    __m256i num_k = zero, den_k = zero, num_lin = zero;
    int64_t den_lin = 0;
    const unsigned n8 = n & ~7u;
    /* the table indices of the logarithms, nd and nn of them */
    _Alignas(16) uint16_t den_ix[VIF_BLOCK], noise_ix[VIF_BLOCK], sig_ix[VIF_BLOCK];
    unsigned nd = 0, nn = 0, den_unused = 0;
    /* the num terms' log arguments of each pixel, and which pixels have one */
    _Alignas(32) uint32_t noise_b[VIF_BLOCK];
    _Alignas(32) int64_t sig_b[VIF_BLOCK];
    _Alignas(32) int32_t nm_b[VIF_BLOCK];
    for (unsigned b = 0; b < n8; b += 8) {
        _mm256_store_si256((__m256i *)(nm_b + b), zero);
        const __m256i mu1 = _mm256_loadu_si256((const __m256i *)(acc[VIF_MU1] + b));
        const __m256i mu2 = _mm256_loadu_si256((const __m256i *)(acc[VIF_MU2] + b));
        const __m256i s1 = _mm256_sub_epi32(moment_8x32(acc[VIF_XX_LO] + b, acc[VIF_XX_HI] + b),
                                            mul_round32_8(mu1, mu1));
        const __m256i s2 = _mm256_max_epi32(
            _mm256_sub_epi32(moment_8x32(acc[VIF_YY_LO] + b, acc[VIF_YY_HI] + b),
                             mul_round32_8(mu2, mu2)), zero);
        const __m256i s12 = _mm256_sub_epi32(moment_8x32(acc[VIF_XY_LO] + b, acc[VIF_XY_HI] + b),
                                             mul_round32_8(mu1, mu2));

        const __m256i lin = _mm256_cmpgt_epi32(nsq, s1); /* s1 < nsq */
        const __m256i s2_lin = _mm256_and_si256(lin, s2); /* >= 0 */
        num_lin = _mm256_add_epi64(num_lin, _mm256_add_epi64(
            _mm256_cvtepu32_epi64(_mm256_castsi256_si128(s2_lin)),
            _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s2_lin, 1))));
        const int lin_bits = _mm256_movemask_ps(_mm256_castsi256_ps(lin));
        den_lin += __builtin_popcount((unsigned)lin_bits);
        if (lin_bits == 0xff) continue;
        const __m256i lg = _mm256_xor_si256(lin, _mm256_set1_epi32(-1));
        /* 2048 log2(nsq + sigma1_sq) - 2048 * 17 */
        __m256i dk;
        _mm_store_si128((__m128i *)(den_ix + nd), log2_ix8(_mm256_add_epi32(s1, nsq), lg, &dk));
        nd += 8;
        den_unused += (unsigned)__builtin_popcount((unsigned)lin_bits);
        den_k = _mm256_add_epi32(den_k, _mm256_and_si256(
                                            lg, _mm256_sub_epi32(dk, _mm256_set1_epi32(2048 * 17))));
        const __m256i nm = _mm256_and_si256(
            lg, _mm256_and_si256(_mm256_cmpgt_epi32(s12, zero), _mm256_cmpgt_epi32(s2, zero)));
        if (_mm256_testz_si256(nm, nm)) continue;
        __m128i sv[2];
        __m256i tr[2];
        for (int h = 0; h < 2; h++) {
            const __m128i s1h = h ? _mm256_extracti128_si256(s1, 1) : _mm256_castsi256_si128(s1);
            const __m128i s2h = h ? _mm256_extracti128_si256(s2, 1) : _mm256_castsi256_si128(s2);
            const __m128i s12h = h ? _mm256_extracti128_si256(s12, 1) : _mm256_castsi256_si128(s12);
            const __m256d d1 = _mm256_cvtepi32_pd(s1h), d2 = _mm256_cvtepi32_pd(s2h);
            const __m256d d12 = _mm256_cvtepi32_pd(s12h);
            const __m256d g = _mm256_div_pd(d12, _mm256_add_pd(d1, eps));
            const __m256d sv_d = _mm256_sub_pd(d2, _mm256_mul_pd(g, d12));
            /* sv < 0 ? 0 : (int32_t)sv (a negative sv truncates to 0 or below) */
            sv[h] = _mm_max_epi32(_mm256_cvttpd_epi32(sv_d), _mm_setzero_si128());
            /* g < limit ? g : limit, as minpd takes its second operand unless the first is less */
            const __m256d gl = _mm256_min_pd(g, glim);
            const __m256d prod = _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(gl, gl), d1),
                                                 _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            tr[h] = _mm256_sub_epi64(
                _mm256_castpd_si256(_mm256_add_pd(prod, _mm256_castsi256_pd(bias))), bias);
        }
        /* noise = sv_sq + nsq in uint32; signal = (int64)(gl^2 sigma1_sq) + noise */
        const __m256i noise = _mm256_add_epi32(_mm256_set_m128i(sv[1], sv[0]), nsq);
        _mm256_store_si256((__m256i *)(noise_b + b), noise);
        for (int h = 0; h < 2; h++) {
            const __m256i noise64 = _mm256_cvtepu32_epi64(
                h ? _mm256_extracti128_si256(noise, 1) : _mm256_castsi256_si128(noise));
            _mm256_store_si256((__m256i *)(sig_b + b + 4 * h), _mm256_add_epi64(tr[h], noise64));
        }
        _mm256_store_si256((__m256i *)(nm_b + b), nm);
    }
    /* the indices of the num terms' logarithms in a second pass, as at
     * AVX-512 */
    for (unsigned b = 0; b < n8; b += 8) {
        const __m256i nm = _mm256_load_si256((const __m256i *)(nm_b + b));
        if (_mm256_testz_si256(nm, nm)) continue;
        __m256i kn, ks;
        _mm_store_si128((__m128i *)(noise_ix + nn),
                        log2_ix8(_mm256_load_si256((const __m256i *)(noise_b + b)), nm, &kn));
        _mm_store_si128((__m128i *)(sig_ix + nn),
                        log2_ix8x64(_mm256_load_si256((const __m256i *)(sig_b + b)),
                                    _mm256_load_si256((const __m256i *)(sig_b + b + 4)), nm, &ks));
        nn += 8;
        num_k = _mm256_add_epi32(num_k, _mm256_and_si256(nm, _mm256_sub_epi32(ks, kn)));
    }
    int32_t klanes[8];
    _mm256_storeu_si256((__m256i *)klanes, num_k);
    int64_t ksum = 0;
    for (int k = 0; k < 8; k++) ksum += klanes[k];
    row->num_log += (int64_t)vif_log2_resid_sum(log2->resid, sig_ix, nn) -
                    (int64_t)vif_log2_resid_sum(log2->resid, noise_ix, nn) + ksum;
    _mm256_storeu_si256((__m256i *)klanes, den_k);
    ksum = 0;
    for (int k = 0; k < 8; k++) ksum += klanes[k];
    row->den_log += (int64_t)vif_log2_resid_sum(log2->resid, den_ix, nd) +
                    (int64_t)(nd - den_unused) * VIF_LOG2_BASE + ksum;
    int64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, num_lin);
    row->num_lin += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    row->den_lin += den_lin;
    for (unsigned b = n8; b < n; b++)
        vif_pixel(row, acc[VIF_MU1][b], acc[VIF_MU2][b], vif_moment_at(acc, VIF_XX_LO, b),
                  vif_moment_at(acc, VIF_YY_LO, b), vif_moment_at(acc, VIF_XY_LO, b), log2->entry,
                  gain_limit);
}
#define VIF_PIXELS vif_pixels_avx2

/* eight values of a vertical-pass row (vif_row_get) in 32-bit lanes */
static inline __m256i load_row_u16x8(const uint16_t *p)
{
    return _mm256_cvtepu16_epi32(_mm_xor_si128(_mm_loadu_si128((const __m128i *)p),
                                               _mm_set1_epi16((short)0x8000)));
}

/* vif_filter_rows, 16 columns a step with vpmaddwd. The samples are any
 * 16-bit values, stored with their top bit flipped (vif_row_put), so a word
 * as loaded is the signed v - 2^15; two taps (k, k + 1), each below 2^15
 * (every scale but the last), multiply a pair of neighbouring samples in one
 * 32-bit lane, whose sum cannot overflow (both taps non-negative). The row total is then
 * sum t_k (v_k - 2^15) and 2^15 sum t_k is added back, modulo 2^32 as the C's
 * uint32 sum (which does not wrap: below 65535 * 2^16). A load at 2t pairs
 * the samples of taps 2t, 2t + 1 of the even columns, a load at 2t + 1 those
 * of the odd columns, so no unpack is needed; the sums are stored even
 * columns first (b, b + 2, .., b + 14, then b + 1, .., b + 15). The statistic
 * adds integer terms of every column of the block, so their order within
 * the block does not change its sums (VIF_FILTER_ROWS, vif_cpu.h). The
 * last n % 16 columns as the C row computes them, in place. */
#if defined(__GNUC__) && defined(__x86_64__)
/* the operands of vif_filter_rows_madd_avx2's two scale-0 passes: the row
 * pointer, the sums' pointer and the columns left, the nine tap words and
 * the start value */
#define VIF_H17_OPERANDS                                                                         \
    : [p] "+r"(pp), [acc] "+r"(pa), [n] "+r"(left)                                               \
    : [w0] "x"(wv[0]), [w1] "x"(wv[1]), [w2] "x"(wv[2]), [w3] "x"(wv[3]), [w4] "x"(wv[4]),       \
      [w5] "x"(wv[5]), [w6] "x"(wv[6]), [w7] "x"(wv[7]), [w8] "x"(wv[8]), [back] "x"(back)
#endif
static inline __attribute__((always_inline)) void
vif_filter_rows_madd_avx2(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                          const uint16_t *taps, unsigned fw)
{
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    const unsigned half = fw / 2, n16 = n & ~15u;
    for (unsigned q = 0; q < VIF_N_ROWS; q++) {
        const uint16_t *p = row[q] + o;
        /* and VIF_MOMENT_HALF on the low-half rows */
        const uint32_t bias = vif_low_half_row(q) ? VIF_MOMENT_HALF : 0;
        const __m256i back = _mm256_set1_epi32((int)(uint32_t)(32768u * tap_sum + bias));
        /* the tap words in registers: the empty asm keeps the compiler from
         * folding them back into memory operands (whose loads, with the
         * spills of two accumulators, had set the pace); one accumulator a
         * pass leaves room for them in the 16 ymm registers */
        __m256i wv[(VIF_MAX_TAPS + 1) / 2];
        for (unsigned t = 0; t < np; t++) {
            wv[t] = _mm256_set1_epi32((int)words[t]);
            __asm__("" : "+x"(wv[t]));
        }
        /* even columns b + 2i from samples b + 2t .., one pass over the block:
         * two loads and byte shifts across them (vpalignr, with the middle
         * 16 bytes from one lane permute) rather than a load at each 2t,
         * half of which straddle two cache lines; the odd columns keep their
         * loads, so that the shifts and the loads share the work */
#if defined(__GNUC__) && defined(__x86_64__)
        if (fw == 17 && n16) {
            /* scale 0 in assembly, as the odd pass below: the nine words, the
             * start value, the two loads, their middle and two more in the
             * 16 registers (compiled, four words were memory operands) */
            const uint16_t *pp = p;
            uint32_t *pa = acc[q];
            size_t left = n16;
            __asm__ volatile(
                "1:\n\t"
                "vmovdqu (%[p]), %%ymm10\n\t"
                "vmovdqu 32(%[p]), %%ymm11\n\t"
                "vperm2i128 $0x21, %%ymm11, %%ymm10, %%ymm12\n\t"
                "vpmaddwd %%ymm10, %[w0], %%ymm13\n\t"
                "vpaddd %%ymm13, %[back], %%ymm13\n\t"
                "vpalignr $4, %%ymm10, %%ymm12, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w1], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpalignr $8, %%ymm10, %%ymm12, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w2], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpalignr $12, %%ymm10, %%ymm12, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w3], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpmaddwd %%ymm12, %[w4], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpalignr $4, %%ymm12, %%ymm11, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w5], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpalignr $8, %%ymm12, %%ymm11, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w6], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpalignr $12, %%ymm12, %%ymm11, %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w7], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpmaddwd %%ymm11, %[w8], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vmovdqu %%ymm13, (%[acc])\n\t"
                "add $32, %[p]\n\t"
                "add $64, %[acc]\n\t"
                "sub $16, %[n]\n\t"
                "jnz 1b\n\t"
                VIF_H17_OPERANDS
                : "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "cc", "memory");
        } else
#endif
        for (unsigned b = 0; b < n16; b += 16) {
            const __m256i a0 = _mm256_loadu_si256((const __m256i *)(p + b));
            const __m256i a1 = _mm256_loadu_si256((const __m256i *)(p + b + 16));
            const __m256i mid = _mm256_permute2x128_si256(a0, a1, 0x21);
            __m256i ev = _mm256_add_epi32(back, _mm256_madd_epi16(a0, wv[0]));
#define VIF_EVEN_STEP(t)                                                                         \
            if ((t) < np) {                                                                      \
                const __m256i x = (t) < 4 ? _mm256_alignr_epi8(mid, a0, 4 * ((t) & 3))           \
                                : (t) == 4 ? mid                                                 \
                                : (t) < 8 ? _mm256_alignr_epi8(a1, mid, 4 * ((t) & 3)) : a1;     \
                ev = _mm256_add_epi32(                                                           \
                    ev, _mm256_madd_epi16(x, wv[(t) % ((VIF_MAX_TAPS + 1) / 2)]));               \
            }
            VIF_EVEN_STEP(1) VIF_EVEN_STEP(2) VIF_EVEN_STEP(3) VIF_EVEN_STEP(4)
            VIF_EVEN_STEP(5) VIF_EVEN_STEP(6) VIF_EVEN_STEP(7) VIF_EVEN_STEP(8)
#undef VIF_EVEN_STEP
            _mm256_storeu_si256((__m256i *)(acc[q] + b), ev);
        }
        /* odd ones from 2t + 1 in a second; an odd last tap's odd columns
         * take the high words of the load at 2t, shifted down (their
         * partner tap is 0) */
#if defined(__GNUC__) && defined(__x86_64__)
        if (fw == 17 && n16) {
            /* scale 0 in assembly: compiled, the pass kept three tap words on
             * the stack and reloaded them every step, and its loads set its
             * pace; here the nine words, the start value and two sums take
             * 12 of the 16 registers */
            const uint16_t *pp = p;
            uint32_t *pa = acc[q] + 8;
            size_t left = n16;
            __asm__ volatile(
                "1:\n\t"
                "vpmaddwd 2(%[p]), %[w0], %%ymm14\n\t"
                "vpaddd %%ymm14, %[back], %%ymm12\n\t"
                "vpmaddwd 6(%[p]), %[w1], %%ymm13\n\t"
                "vpmaddwd 10(%[p]), %[w2], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm12, %%ymm12\n\t"
                "vpmaddwd 14(%[p]), %[w3], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpmaddwd 18(%[p]), %[w4], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm12, %%ymm12\n\t"
                "vpmaddwd 22(%[p]), %[w5], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpmaddwd 26(%[p]), %[w6], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm12, %%ymm12\n\t"
                "vpmaddwd 30(%[p]), %[w7], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm13, %%ymm13\n\t"
                "vpsrld $16, 32(%[p]), %%ymm14\n\t"
                "vpmaddwd %%ymm14, %[w8], %%ymm14\n\t"
                "vpaddd %%ymm14, %%ymm12, %%ymm12\n\t"
                "vpaddd %%ymm13, %%ymm12, %%ymm12\n\t"
                "vmovdqu %%ymm12, (%[acc])\n\t"
                "add $32, %[p]\n\t"
                "add $64, %[acc]\n\t"
                "sub $16, %[n]\n\t"
                "jnz 1b\n\t"
                VIF_H17_OPERANDS
                : "xmm12", "xmm13", "xmm14", "cc", "memory");
        } else
#endif
        for (unsigned b = 0; b < n16; b += 16) {
            __m256i od = back;
            for (unsigned t = 0; t < np; t++) {
                const __m256i x1 = 2 * t + 1 < fw
                    ? _mm256_loadu_si256((const __m256i *)(p + b + 2 * t + 1))
                    : _mm256_srli_epi32(
                          _mm256_loadu_si256((const __m256i *)(p + b + 2 * t)), 16);
                od = _mm256_add_epi32(od, _mm256_madd_epi16(x1, wv[t]));
            }
            _mm256_storeu_si256((__m256i *)(acc[q] + b + 8), od);
        }
        for (unsigned b = n16; b < n; b++) { /* vif_filter_rows' integers */
            uint32_t a = (uint32_t)taps[half] * vif_row_get(p[b + half]) + bias;
            for (unsigned k = 0; k < half; k++)
                a += (uint32_t)taps[k] * (vif_row_get(p[b + k]) + vif_row_get(p[b + fw - 1 - k]));
            acc[q][b] = a;
        }
    }
}

/* vif_filter_rows, 8 columns a step, the symmetric taps' samples added first
 * as the C does (the same integers); inlined with a constant fw. The last
 * n % 8 columns as the C rows compute them. */
static inline __attribute__((always_inline)) void
vif_filter_rows_mullo_avx2(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                     const uint16_t *taps, unsigned fw)
{
    const unsigned half = fw / 2, n8 = n & ~7u;
    for (unsigned q = 0; q < VIF_N_ROWS; q++) {
        const uint16_t *p = row[q] + o;
        const uint32_t bias = vif_low_half_row(q) ? VIF_MOMENT_HALF : 0;
        for (unsigned b = 0; b < n8; b += 8) {
            __m256i a = _mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_set1_epi32(taps[half]), load_row_u16x8(p + b + half)),
                _mm256_set1_epi32((int)bias));
            for (unsigned k = 0; k < half; k++)
                a = _mm256_add_epi32(
                    a, _mm256_mullo_epi32(_mm256_set1_epi32(taps[k]),
                                          _mm256_add_epi32(load_row_u16x8(p + b + k),
                                                           load_row_u16x8(p + b + fw - 1 - k))));
            _mm256_storeu_si256((__m256i *)(acc[q] + b), a);
        }
        for (unsigned b = n8; b < n; b++) { /* vif_filter_rows' integers */
            uint32_t a = (uint32_t)taps[half] * vif_row_get(p[b + half]) + bias;
            for (unsigned k = 0; k < half; k++)
                a += (uint32_t)taps[k] * (vif_row_get(p[b + k]) + vif_row_get(p[b + fw - 1 - k]));
            acc[q][b] = a;
        }
    }
}
/* The madd form where every tap is below 2^15 (scales 0..2; scale 3's centre
 * tap is 43728). */
static inline __attribute__((always_inline)) void
vif_filter_rows_avx2(uint32_t (*acc)[VIF_BLOCK], uint16_t *const *row, int o, unsigned n,
                     const uint16_t *taps, unsigned fw)
{
    if (fw > 3) vif_filter_rows_madd_avx2(acc, row, o, n, taps, fw);
    else vif_filter_rows_mullo_avx2(acc, row, o, n, taps, fw);
}
#define VIF_FILTER_ROWS vif_filter_rows_avx2

#define VIF_KERNELS_IMPL
#include "feature/vif/vif_cpu.h"

static inline __m256i load_u8x8(const uint8_t *p)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
}

static inline __m256i load_u16x8(const uint16_t *p)
{
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* eight 32-bit lanes stored as uint16: the low 16 bits, as the C's
 * (uint16_t) casts keep them. Within the declared depth every value is below
 * 2^16; samples above it give larger means, which the C truncates, so the
 * lanes are masked before the pack (whose unsigned saturation would keep
 * 65535 instead). */
static inline void store_u16x8(uint16_t *dst, __m256i v)
{
    v = _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
    v = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
    _mm_storeu_si128((__m128i *)dst, _mm256_castsi256_si128(v));
}

/* sixteen 32-bit lanes holding 16-bit values (lo: columns 0..7, hi: 8..15)
 * stored as uint16 in column order: the pack interleaves the halves' 64-bit
 * pieces, the permute puts them back */
static inline void store_u16x16(uint16_t *dst, __m256i lo, __m256i hi)
{
    _mm256_storeu_si256((__m256i *)dst,
                        _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8));
}

/* the same into a vertical-pass row (vif_row_put) */
static inline void store_row_u16x16(uint16_t *dst, __m256i lo, __m256i hi)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_xor_si256(
        _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8),
        _mm256_set1_epi16((short)0x8000)));
}

static inline __m256i round_shift32_8(__m256i v, unsigned shift)
{
    if (!shift) return v;
    return _mm256_srl_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(1 << (shift - 1))),
                            _mm_cvtsi32_si128((int)shift));
}

/* eight 32-bit lanes of (lo + 2^16 hi) rounded and shifted right by shift,
 * as round_shift64_16 */
static inline __m256i round_shift64_8(__m256i lo, __m256i hi, unsigned shift)
{
    const __m256i rnd = _mm256_set1_epi32(shift ? 1 << (shift - 1) : 0);
    return _mm256_add_epi32(_mm256_sll_epi32(hi, _mm_cvtsi32_si128((int)(16 - shift))),
                            _mm256_srl_epi32(_mm256_add_epi32(lo, rnd),
                                             _mm_cvtsi32_si128((int)shift)));
}

/* the eight rows of a vertical pass at columns j .. j + 15 from its five
 * sums of columns j .. j + 7 (lo) and j + 8 .. j + 15 (hi), the
 * pack of each row's two halves putting its columns back in order */
static inline void vif_put_stat8_avx2(uint16_t *const *out, unsigned j, const __m256i lo[5],
                                      const __m256i hi[5], unsigned mu_shift, unsigned sq_shift)
{
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    store_row_u16x16(out[VIF_MU1] + j, round_shift32_8(lo[0], mu_shift),
                     round_shift32_8(hi[0], mu_shift));
    store_row_u16x16(out[VIF_MU2] + j, round_shift32_8(lo[1], mu_shift),
                     round_shift32_8(hi[1], mu_shift));
    static const unsigned lo_row[3] = { VIF_XX_LO, VIF_YY_LO, VIF_XY_LO };
    static const unsigned hi_row[3] = { VIF_XX_HI, VIF_YY_HI, VIF_XY_HI };
    for (int q = 0; q < 3; q++) {
        const __m256i l = round_shift32_8(lo[2 + q], sq_shift);
        const __m256i h = round_shift32_8(hi[2 + q], sq_shift);
        store_row_u16x16(out[lo_row[q]] + j, _mm256_and_si256(l, lo16), _mm256_and_si256(h, lo16));
        store_row_u16x16(out[hi_row[q]] + j, _mm256_srli_epi32(l, 16), _mm256_srli_epi32(h, 16));
    }
}

/*
 * 8-bit scale 0, 16 columns a step with vpmaddwd on the samples of two tap
 * rows interleaved: c_k x_k + c_k+1 x_k+1 in one 32-bit lane. A sample is a
 * non-negative 16-bit factor; a product of two samples (x^2, y^2, xy, below
 * 2^16) is not, so it enters as p - 2^15 (its top bit flipped), and the
 * 2^15 * (sum of the taps) this takes away is added back once. Every step is
 * a 32-bit sum that wraps, and the C's uint32 sums do not wrap (65536 * 255^2
 * < 2^32), so the lanes end with the C's integers.
 */
static void vif_stat_vertical_8_avx2(uint16_t *const *out, const uint8_t *ref,
                                     ptrdiff_t ref_stride, const uint8_t *dis,
                                     ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                     unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[0];
    const uint16_t *taps = vif_filter_taps[0];
    const uint8_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = ref + r * ref_stride;
        pd[k] = dis + r * dis_stride;
    }
    pr[fw] = pr[fw - 1]; /* the zero tap's row: any row that exists */
    pd[fw] = pd[fw - 1];
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    __m256i cp[(VIF_MAX_TAPS + 1) / 2];
    for (unsigned p = 0; p < np; p++) cp[p] = _mm256_set1_epi32((int)words[p]);
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    const __m256i back = _mm256_set1_epi32((int)(32768u * tap_sum));
    const unsigned w16 = w & ~15u;
    for (unsigned j = 0; j < w16; j += 16) {
        __m256i m1[2], m2[2], xx[2], yy[2], xy[2];
        for (int q = 0; q < 2; q++) {
            m1[q] = m2[q] = _mm256_setzero_si256();
            xx[q] = yy[q] = xy[q] = back;
        }
        for (unsigned p = 0; p < np; p++) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(pr[2 * p] + j));
            const __m128i b = _mm_loadu_si128((const __m128i *)(pr[2 * p + 1] + j));
            const __m128i c = _mm_loadu_si128((const __m128i *)(pd[2 * p] + j));
            const __m128i d = _mm_loadu_si128((const __m128i *)(pd[2 * p + 1] + j));
            const __m256i x[2] = { _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, b)),
                                   _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, b)) };
            const __m256i y[2] = { _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(c, d)),
                                   _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(c, d)) };
            for (int q = 0; q < 2; q++) {
                m1[q] = _mm256_add_epi32(m1[q], _mm256_madd_epi16(x[q], cp[p]));
                m2[q] = _mm256_add_epi32(m2[q], _mm256_madd_epi16(y[q], cp[p]));
                xx[q] = _mm256_add_epi32(xx[q], _mm256_madd_epi16(
                    _mm256_xor_si256(_mm256_mullo_epi16(x[q], x[q]), flip), cp[p]));
                yy[q] = _mm256_add_epi32(yy[q], _mm256_madd_epi16(
                    _mm256_xor_si256(_mm256_mullo_epi16(y[q], y[q]), flip), cp[p]));
                xy[q] = _mm256_add_epi32(xy[q], _mm256_madd_epi16(
                    _mm256_xor_si256(_mm256_mullo_epi16(x[q], y[q]), flip), cp[p]));
            }
        }
        const __m256i lo[5] = { m1[0], m2[0], xx[0], yy[0], xy[0] };
        const __m256i hi[5] = { m1[1], m2[1], xx[1], yy[1], xy[1] };
        vif_put_stat8_avx2(out, j, lo, hi, mu_shift, sq_shift);
    }
    if (w16 < w) {
        uint16_t *tail[VIF_N_ROWS];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) tail[q] = out[q] + w16;
        vif_stat_vertical_8(tail, ref + w16, ref_stride, dis + w16, dis_stride, w - w16, h, i,
                            mu_shift, sq_shift);
    }
}
#undef VIF_STAT_VERTICAL_8
#define VIF_STAT_VERTICAL_8 vif_stat_vertical_8_avx2



/* vif_stat_vertical_16 where every tap is below 2^15 (filters wider than 3),
 * 16 columns a step: the low and high halves of each 32-bit sample product
 * from 16-bit multiplies (mullo, mulhi), and the eight 32-bit sums (means
 * and those halves) with vpmaddwd over pairs of rows (k, k + 1), as the
 * 8-bit pass: each 16-bit operand read as signed after its top bit is
 * flipped, 2^15 times the tap sum added back, modulo 2^32 as the C's uint32
 * sums. The unpacks leave columns 0-3, 8-11 in the low sums and 4-7, 12-15
 * in the high ones; each column's shifts and splits then by the C's steps. */
static void vif_stat_vertical_16_madd_avx2(uint16_t *const *out, const uint16_t *const *pr,
                                           const uint16_t *const *pd, unsigned fw,
                                           const uint16_t *taps, unsigned w16,
                                           unsigned mu_shift, unsigned sq_shift)
{
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    const __m256i back = _mm256_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    for (unsigned j = 0; j < w16; j += 16) {
        /* [quantity][low, high unpack]: m1 m2 xl xh yl yh cl ch */
        __m256i s[VIF_N_ROWS][2];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) s[q][0] = s[q][1] = back;
        for (unsigned t = 0; t < np; t++) {
            const unsigned k0 = 2 * t, k1 = 2 * t + 1 < fw ? 2 * t + 1 : 2 * t;
            const __m256i w = _mm256_set1_epi32((int)words[t]);
            __m256i v[2][VIF_N_ROWS];
            const unsigned k[2] = { k0, k1 };
            for (int r = 0; r < 2; r++) {
                const __m256i x = _mm256_loadu_si256((const __m256i *)(pr[k[r]] + j));
                const __m256i y = _mm256_loadu_si256((const __m256i *)(pd[k[r]] + j));
                VIF_QUANTITIES16(v[r], x, y, _mm256_mullo_epi16, _mm256_mulhi_epu16);
                for (unsigned q = 0; q < VIF_N_ROWS; q++) v[r][q] = _mm256_xor_si256(v[r][q], flip);
            }
            for (unsigned q = 0; q < VIF_N_ROWS; q++) {
                s[q][0] = _mm256_add_epi32(
                    s[q][0], _mm256_madd_epi16(_mm256_unpacklo_epi16(v[0][q], v[1][q]), w));
                s[q][1] = _mm256_add_epi32(
                    s[q][1], _mm256_madd_epi16(_mm256_unpackhi_epi16(v[0][q], v[1][q]), w));
            }
        }
        /* each quantity's two unpack halves hold columns 0-3, 8-11 and
         * 4-7, 12-15 of the step: the shifts work lane by lane, and one pack
         * of the two halves (each value first cut to 16 bits) puts each row's
         * 16 columns back in order */
        const __m256i lo16 = _mm256_set1_epi32(0xffff);
        __m256i sx[2], sy[2], sc[2];
        for (int u = 0; u < 2; u++) {
            sx[u] = round_shift64_8(s[2][u], s[3][u], sq_shift);
            sy[u] = round_shift64_8(s[4][u], s[5][u], sq_shift);
            sc[u] = round_shift64_8(s[6][u], s[7][u], sq_shift);
        }
#define PUT(row, a, b) _mm256_storeu_si256((__m256i *)(out[row] + j), \
    _mm256_xor_si256(_mm256_packus_epi32(a, b), _mm256_set1_epi16((short)0x8000)))
        /* a mean is cut to 16 bits as the C's cast: at scale 0 above 8 bits,
         * samples above the declared depth carry it past 16 bits */
        PUT(VIF_MU1, _mm256_and_si256(round_shift32_8(s[0][0], mu_shift), lo16),
            _mm256_and_si256(round_shift32_8(s[0][1], mu_shift), lo16));
        PUT(VIF_MU2, _mm256_and_si256(round_shift32_8(s[1][0], mu_shift), lo16),
            _mm256_and_si256(round_shift32_8(s[1][1], mu_shift), lo16));
        PUT(VIF_XX_LO, _mm256_and_si256(sx[0], lo16), _mm256_and_si256(sx[1], lo16));
        PUT(VIF_XX_HI, _mm256_srli_epi32(sx[0], 16), _mm256_srli_epi32(sx[1], 16));
        PUT(VIF_YY_LO, _mm256_and_si256(sy[0], lo16), _mm256_and_si256(sy[1], lo16));
        PUT(VIF_YY_HI, _mm256_srli_epi32(sy[0], 16), _mm256_srli_epi32(sy[1], 16));
        PUT(VIF_XY_LO, _mm256_and_si256(sc[0], lo16), _mm256_and_si256(sc[1], lo16));
        PUT(VIF_XY_HI, _mm256_srli_epi32(sc[0], 16), _mm256_srli_epi32(sc[1], 16));
#undef PUT
    }
}

/* vif_stat_vertical_16, 8 columns a step: the eight 32-bit sums (means and
 * the low and high halves of the sample products) in registers, wrapping as
 * the C's uint32 sums; each column's shifts and splits then by the C's own
 * steps. The products of two 16-bit samples are below 2^32, so mullo gives
 * them whole. */
static void vif_stat_vertical_16_avx2(uint16_t *const *out, const uint16_t *ref,
                                      ptrdiff_t ref_stride, const uint16_t *dis,
                                      ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned i,
                                      unsigned scale, unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    const uint16_t *pr[VIF_MAX_TAPS], *pd[VIF_MAX_TAPS];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = (const uint16_t *)vif_row_at(ref, ref_stride, r);
        pd[k] = (const uint16_t *)vif_row_at(dis, dis_stride, r);
    }
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    const unsigned w8 = w & ~7u;
    unsigned j0 = 0;
    if (fw > 3) {
        j0 = w & ~15u;
        vif_stat_vertical_16_madd_avx2(out, pr, pd, fw, taps, j0, mu_shift, sq_shift);
    }
    for (unsigned j = j0; j < w8; j += 8) {
        __m256i m1 = _mm256_setzero_si256(), m2 = m1, xl = m1, xh = m1, yl = m1, yh = m1;
        __m256i cl = m1, ch = m1;
        for (unsigned k = 0; k < fw; k++) {
            const __m256i c = _mm256_set1_epi32(taps[k]);
            const __m256i x = load_u16x8(pr[k] + j), y = load_u16x8(pd[k] + j);
            const __m256i x2 = _mm256_mullo_epi32(x, x), y2 = _mm256_mullo_epi32(y, y);
            const __m256i xy = _mm256_mullo_epi32(x, y);
            m1 = _mm256_add_epi32(m1, _mm256_mullo_epi32(c, x));
            m2 = _mm256_add_epi32(m2, _mm256_mullo_epi32(c, y));
            xl = _mm256_add_epi32(xl, _mm256_mullo_epi32(c, _mm256_and_si256(x2, lo16)));
            xh = _mm256_add_epi32(xh, _mm256_mullo_epi32(c, _mm256_srli_epi32(x2, 16)));
            yl = _mm256_add_epi32(yl, _mm256_mullo_epi32(c, _mm256_and_si256(y2, lo16)));
            yh = _mm256_add_epi32(yh, _mm256_mullo_epi32(c, _mm256_srli_epi32(y2, 16)));
            cl = _mm256_add_epi32(cl, _mm256_mullo_epi32(c, _mm256_and_si256(xy, lo16)));
            ch = _mm256_add_epi32(ch, _mm256_mullo_epi32(c, _mm256_srli_epi32(xy, 16)));
        }
        uint32_t a[8][8];
        _mm256_storeu_si256((__m256i *)a[0], m1);
        _mm256_storeu_si256((__m256i *)a[1], m2);
        _mm256_storeu_si256((__m256i *)a[2], xl);
        _mm256_storeu_si256((__m256i *)a[3], xh);
        _mm256_storeu_si256((__m256i *)a[4], yl);
        _mm256_storeu_si256((__m256i *)a[5], yh);
        _mm256_storeu_si256((__m256i *)a[6], cl);
        _mm256_storeu_si256((__m256i *)a[7], ch);
        for (unsigned b = 0; b < 8; b++) {
            const unsigned jj = j + b;
            out[VIF_MU1][jj] = vif_row_put(vif_round_shift32(a[0][b], mu_shift));
            out[VIF_MU2][jj] = vif_row_put(vif_round_shift32(a[1][b], mu_shift));
            vif_put_split(out, VIF_XX_LO, jj,
                          vif_round_shift64(a[2][b] + ((uint64_t)a[3][b] << 16), sq_shift));
            vif_put_split(out, VIF_YY_LO, jj,
                          vif_round_shift64(a[4][b] + ((uint64_t)a[5][b] << 16), sq_shift));
            vif_put_split(out, VIF_XY_LO, jj,
                          vif_round_shift64(a[6][b] + ((uint64_t)a[7][b] << 16), sq_shift));
        }
    }
    if (w8 < w) {
        uint16_t *tail[VIF_N_ROWS];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) tail[q] = out[q] + w8;
        vif_stat_vertical_16(tail, ref + w8, ref_stride, dis + w8, dis_stride, w - w8, h, i,
                             scale, mu_shift, sq_shift);
    }
}
#undef VIF_STAT_VERTICAL_16
#define VIF_STAT_VERTICAL_16 vif_stat_vertical_16_avx2

/*
 * Rows i and i + 1 of vif_stat_vertical_16 at once, 16 columns a step, for
 * filters wider than 3: the sample rows paired (k, k + 1) as in
 * vif_stat_vertical_16x2_avx512, each pair's products formed once for both
 * rows (taps wa for row i, wb for row i + 1). Two output rows of eight
 * quantities in two unpack halves would be 32 sums, twice the registers:
 * the quantities go in four passes of two (the means, then the low and high
 * halves of x^2, y^2, xy), each with its eight sums in registers; a pass
 * reloads the sample rows (from the L1 cache) and forms only its own
 * products, so no product is formed twice. The one-row kernel kept sixteen
 * sums and spilled.
 */
static inline __attribute__((always_inline)) void
vif_v16x2_pass_avx2(uint16_t *const *out0, uint16_t *const *out1, const uint16_t *const *pr,
                    const uint16_t *const *pd, const __m256i *wa, const __m256i *wb, unsigned np,
                    __m256i back, unsigned j, unsigned mu_shift, unsigned sq_shift, const int g)
{
    const __m256i flip = _mm256_set1_epi16((short)0x8000), lo16 = _mm256_set1_epi32(0xffff);
    /* [output row][quantity of the pass][unpack half: columns 0-3 and 8-11, 4-7 and 12-15] */
    __m256i s[2][2][2];
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++) s[r][q][0] = s[r][q][1] = back;
    for (unsigned p = 0; p < np; p++) {
        __m256i v[2][2];
        for (int r = 0; r < 2; r++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(pr[2 * p + (unsigned)r] + j));
            const __m256i y = _mm256_loadu_si256((const __m256i *)(pd[2 * p + (unsigned)r] + j));
            const __m256i a = g == 2 ? y : x, b = g == 1 ? x : y;
            v[r][0] = g == 0 ? x : _mm256_mullo_epi16(a, b);
            v[r][1] = g == 0 ? y : _mm256_mulhi_epu16(a, b);
        }
        for (int q = 0; q < 2; q++) {
            const __m256i lo = _mm256_xor_si256(_mm256_unpacklo_epi16(v[0][q], v[1][q]), flip);
            const __m256i hi = _mm256_xor_si256(_mm256_unpackhi_epi16(v[0][q], v[1][q]), flip);
            s[0][q][0] = _mm256_add_epi32(s[0][q][0], _mm256_madd_epi16(lo, wa[p]));
            s[0][q][1] = _mm256_add_epi32(s[0][q][1], _mm256_madd_epi16(hi, wa[p]));
            s[1][q][0] = _mm256_add_epi32(s[1][q][0], _mm256_madd_epi16(lo, wb[p]));
            s[1][q][1] = _mm256_add_epi32(s[1][q][1], _mm256_madd_epi16(hi, wb[p]));
        }
    }
    /* the two halves' pack puts each row's 16 columns back in order */
#define PUT(dst, a, b) _mm256_storeu_si256((__m256i *)((dst) + j), \
    _mm256_xor_si256(_mm256_packus_epi32(a, b), flip))
    for (int r = 0; r < 2; r++) {
        uint16_t *const *out = r ? out1 : out0;
        if (g == 0) {
            /* a mean is cut to 16 bits as the C's cast */
            for (int q = 0; q < 2; q++)
                PUT(out[VIF_MU1 + q], _mm256_and_si256(round_shift32_8(s[r][q][0], mu_shift), lo16),
                    _mm256_and_si256(round_shift32_8(s[r][q][1], mu_shift), lo16));
        } else {
            const __m256i a = round_shift64_8(s[r][0][0], s[r][1][0], sq_shift);
            const __m256i b = round_shift64_8(s[r][0][1], s[r][1][1], sq_shift);
            const unsigned lo_row = (unsigned)(VIF_XX_LO + 2 * (g - 1));
            PUT(out[lo_row], _mm256_and_si256(a, lo16), _mm256_and_si256(b, lo16));
            PUT(out[lo_row + 1], _mm256_srli_epi32(a, 16), _mm256_srli_epi32(b, 16));
        }
    }
#undef PUT
}

static void vif_stat_vertical_16x2_avx2(uint16_t *const *out0, uint16_t *const *out1,
                                        const uint16_t *ref, ptrdiff_t ref_stride,
                                        const uint16_t *dis, ptrdiff_t dis_stride, unsigned w,
                                        unsigned h, unsigned i, unsigned scale,
                                        unsigned mu_shift, unsigned sq_shift)
{
    const unsigned fw = vif_filter_width[scale];
    const uint16_t *taps = vif_filter_taps[scale];
    const unsigned w16 = fw > 3 ? w & ~15u : 0; /* scale 3's centre tap is not below 2^15 */
    if (w16) {
        const uint16_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
        uint32_t words_a[(VIF_MAX_TAPS + 1) / 2], words_b[(VIF_MAX_TAPS + 1) / 2], tap_sum;
        const unsigned np =
            vif_rows_16x2(pr, pd, words_b, ref, ref_stride, dis, dis_stride, scale, h, i);
        (void)vif_tap_pair_words(words_a, taps, fw, &tap_sum);
        __m256i wa[(VIF_MAX_TAPS + 1) / 2], wb[(VIF_MAX_TAPS + 1) / 2];
        for (unsigned p = 0; p < np; p++) {
            wa[p] = _mm256_set1_epi32((int)words_a[p]);
            wb[p] = _mm256_set1_epi32((int)words_b[p]);
        }
        const __m256i back = _mm256_set1_epi32((int)(uint32_t)(32768u * tap_sum));
        for (unsigned j = 0; j < w16; j += 16) {
            vif_v16x2_pass_avx2(out0, out1, pr, pd, wa, wb, np, back, j, mu_shift, sq_shift, 0);
            vif_v16x2_pass_avx2(out0, out1, pr, pd, wa, wb, np, back, j, mu_shift, sq_shift, 1);
            vif_v16x2_pass_avx2(out0, out1, pr, pd, wa, wb, np, back, j, mu_shift, sq_shift, 2);
            vif_v16x2_pass_avx2(out0, out1, pr, pd, wa, wb, np, back, j, mu_shift, sq_shift, 3);
        }
    }
    if (w16 < w)
        for (unsigned r = 0; r < 2; r++) {
            uint16_t *tail[VIF_N_ROWS];
            for (unsigned q = 0; q < VIF_N_ROWS; q++) tail[q] = (r ? out1 : out0)[q] + w16;
            vif_stat_vertical_16_avx2(tail, ref + w16, ref_stride, dis + w16, dis_stride, w - w16,
                                      h, i + r, scale, mu_shift, sq_shift);
        }
}
#define VIF_STAT_VERTICAL_16X2 vif_stat_vertical_16x2_avx2

static void vif_down_vertical_avx2(uint16_t *out_r, uint16_t *out_d, const void *ref,
                                   ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                                   bool is8, unsigned w, unsigned h, unsigned i, unsigned next,
                                   unsigned shift)
{
    const unsigned fw = vif_filter_width[next];
    const uint16_t *taps = vif_filter_taps[next];
    const char *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    for (unsigned k = 0; k < fw; k++) {
        const int r = vif_tap_row(i, k, fw, h);
        pr[k] = (const char *)ref + r * ref_stride;
        pd[k] = (const char *)dis + r * dis_stride;
    }
    unsigned j0 = 0;
    if (!is8 && fw > 3) {
        /* 16-bit samples, as vif_down_vertical_avx512's pairs: 16 columns a
         * step, flipped samples, the pack restoring the column order */
        pr[fw] = pr[fw - 1];
        pd[fw] = pd[fw - 1];
        uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
        const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
        const __m256i flip = _mm256_set1_epi16((short)0x8000), lo16 = _mm256_set1_epi32(0xffff);
        const __m256i back = _mm256_set1_epi32((int)(uint32_t)(32768u * tap_sum));
        j0 = w & ~15u;
        for (unsigned j = 0; j < j0; j += 16) {
            __m256i rl = back, rh = back, dl = back, dh = back;
            for (unsigned p = 0; p < np; p++) {
                const __m256i c = _mm256_set1_epi32((int)words[p]);
#define ROW(q) _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const uint16_t *)(q) + j)), flip)
                const __m256i a = ROW(pr[2 * p]), b = ROW(pr[2 * p + 1]);
                const __m256i x = ROW(pd[2 * p]), y = ROW(pd[2 * p + 1]);
#undef ROW
                rl = _mm256_add_epi32(rl, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), c));
                rh = _mm256_add_epi32(rh, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), c));
                dl = _mm256_add_epi32(dl, _mm256_madd_epi16(_mm256_unpacklo_epi16(x, y), c));
                dh = _mm256_add_epi32(dh, _mm256_madd_epi16(_mm256_unpackhi_epi16(x, y), c));
            }
#define LOW16(v) _mm256_and_si256(round_shift32_8(v, shift), lo16)
            _mm256_storeu_si256((__m256i *)(out_r + j), _mm256_packus_epi32(LOW16(rl), LOW16(rh)));
            _mm256_storeu_si256((__m256i *)(out_d + j), _mm256_packus_epi32(LOW16(dl), LOW16(dh)));
#undef LOW16
        }
    }
    if (is8 && fw > 3) {
        /* 8-bit samples, every tap below 2^15 (scales 1 and 2): the rows in
         * pairs (k, k + 1), their samples interleaved as 16-bit words, an odd
         * last tap paired with a zero tap on a row that exists; each vpmaddwd
         * sum is below 255 * 2^16, the total the C's uint32 sum */
        pr[fw] = pr[fw - 1];
        pd[fw] = pd[fw - 1];
        uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
        const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
        j0 = w & ~15u;
        for (unsigned j = 0; j < j0; j += 16) {
            __m256i rl = _mm256_setzero_si256(), rh = rl, dl = rl, dh = rl;
            for (unsigned p = 0; p < np; p++) {
                const __m256i c = _mm256_set1_epi32((int)words[p]);
#define PAIRS(q, lo, hi) do { \
                    const __m128i a = _mm_loadu_si128((const __m128i *)((const uint8_t *)q[2 * p] + j)); \
                    const __m128i b = _mm_loadu_si128((const __m128i *)((const uint8_t *)q[2 * p + 1] + j)); \
                    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, b)), c)); \
                    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, b)), c)); \
                } while (0)
                PAIRS(pr, rl, rh);
                PAIRS(pd, dl, dh);
#undef PAIRS
            }
            /* 8-bit samples: every result fits 16 bits */
            store_u16x16(out_r + j, round_shift32_8(rl, shift), round_shift32_8(rh, shift));
            store_u16x16(out_d + j, round_shift32_8(dl, shift), round_shift32_8(dh, shift));
        }
    }
    const unsigned w8 = w & ~7u;
    for (unsigned j = j0; j < w8; j += 8) {
        __m256i ar = _mm256_setzero_si256(), ad = ar;
        for (unsigned k = 0; k < fw; k++) {
            const __m256i c = _mm256_set1_epi32(taps[k]);
            const __m256i x = is8 ? load_u8x8((const uint8_t *)pr[k] + j)
                                  : load_u16x8((const uint16_t *)pr[k] + j);
            const __m256i y = is8 ? load_u8x8((const uint8_t *)pd[k] + j)
                                  : load_u16x8((const uint16_t *)pd[k] + j);
            ar = _mm256_add_epi32(ar, _mm256_mullo_epi32(c, x));
            ad = _mm256_add_epi32(ad, _mm256_mullo_epi32(c, y));
        }
        store_u16x8(out_r + j, round_shift32_8(ar, shift));
        store_u16x8(out_d + j, round_shift32_8(ad, shift));
    }
    if (w8 < w) {
        const size_t b = is8 ? w8 : 2 * (size_t)w8;
        vif_down_vertical(out_r + w8, out_d + w8, (const char *)ref + b, ref_stride,
                          (const char *)dis + b, dis_stride, is8, w - w8, h, i, next, shift);
    }
}
#undef VIF_DOWN_VERTICAL
#define VIF_DOWN_VERTICAL vif_down_vertical_avx2

#if defined(__GNUC__) && defined(__x86_64__)
/*
 * vif_stat_vertical_8_avx2 for rows i and i + 1, as the AVX-512 pair kernel
 * (vif_rows_8x2: each pair's samples and products serve both rows, row i
 * with the tap words ca, row i + 1 with cb = ca + dcb bytes). Eight columns
 * a pass, so that the ten sums (five quantities, two rows) stay in ymm0..9.
 * On sixteen columns a pair of sample rows costs 68 vector operations for
 * both rows (two passes of 34), where the one-row kernel spends 44 on each
 * row; the pass is bound by that count, not by the multiplier. The tap-pair loop is in assembly: compiled from C
 * (tried at eight and sixteen columns), the sums went through the stack
 * each pair and the pair kernel ran slower than two one-row calls.
 * Registers of a pair: x in ymm10, y in ymm11 (words: sample pairs of rows
 * 2p, 2p + 1), ymm12 and ymm13 products, ymm14 and ymm15 the two rows' tap
 * words. sa and sb: the sums of rows i and i + 1, in and out.
 */
static inline __attribute__((always_inline)) void
vif_v8x2_pass_avx2(__m256i sa[5], __m256i sb[5], const uint8_t *const *pr, ptrdiff_t dpd,
                   size_t j, const __m256i *ca, ptrdiff_t dcb, unsigned np, const __m256i *flip)
{
    __m256i m1a = sa[0], m2a = sa[1], xxa = sa[2], yya = sa[3], xya = sa[4];
    __m256i m1b = sb[0], m2b = sb[1], xxb = sb[2], yyb = sb[3], xyb = sb[4];
    const uint8_t *const *ppr = pr;
    const __m256i *pca = ca, *const ca_end = ca + np; /* np >= 1: a do-while */
    const uint8_t *t;
    __asm__ volatile(
        "1:\n\t"
        "mov (%[pr]), %[t]\n\t"
        "vmovq (%[t],%[j]), %%xmm10\n\t"
        "mov 8(%[pr]), %[t]\n\t"
        "vmovq (%[t],%[j]), %%xmm12\n\t"
        "vpunpcklbw %%xmm12, %%xmm10, %%xmm10\n\t"
        "vpmovzxbw %%xmm10, %%ymm10\n\t"
        "mov (%[pr],%[dpd]), %[t]\n\t"
        "vmovq (%[t],%[j]), %%xmm11\n\t"
        "mov 8(%[pr],%[dpd]), %[t]\n\t"
        "vmovq (%[t],%[j]), %%xmm13\n\t"
        "vpunpcklbw %%xmm13, %%xmm11, %%xmm11\n\t"
        "vpmovzxbw %%xmm11, %%ymm11\n\t"
        "vmovdqu (%[ca]), %%ymm14\n\t"
        "vmovdqu (%[ca],%[dcb]), %%ymm15\n\t"
        /* the means */
        "vpmaddwd %%ymm14, %%ymm10, %%ymm12\n\t"
        "vpaddd %%ymm12, %[m1a], %[m1a]\n\t"
        "vpmaddwd %%ymm15, %%ymm10, %%ymm13\n\t"
        "vpaddd %%ymm13, %[m1b], %[m1b]\n\t"
        "vpmaddwd %%ymm14, %%ymm11, %%ymm12\n\t"
        "vpaddd %%ymm12, %[m2a], %[m2a]\n\t"
        "vpmaddwd %%ymm15, %%ymm11, %%ymm13\n\t"
        "vpaddd %%ymm13, %[m2b], %[m2b]\n\t"
        /* x y, flipped, while both are whole */
        "vpmullw %%ymm11, %%ymm10, %%ymm13\n\t"
        "vpxor (%[flip]), %%ymm13, %%ymm13\n\t"
        "vpmaddwd %%ymm14, %%ymm13, %%ymm12\n\t"
        "vpaddd %%ymm12, %[xya], %[xya]\n\t"
        "vpmaddwd %%ymm15, %%ymm13, %%ymm13\n\t"
        "vpaddd %%ymm13, %[xyb], %[xyb]\n\t"
        /* x x and y y, flipped, in place */
        "vpmullw %%ymm10, %%ymm10, %%ymm10\n\t"
        "vpxor (%[flip]), %%ymm10, %%ymm10\n\t"
        "vpmaddwd %%ymm14, %%ymm10, %%ymm12\n\t"
        "vpaddd %%ymm12, %[xxa], %[xxa]\n\t"
        "vpmaddwd %%ymm15, %%ymm10, %%ymm10\n\t"
        "vpaddd %%ymm10, %[xxb], %[xxb]\n\t"
        "vpmullw %%ymm11, %%ymm11, %%ymm11\n\t"
        "vpxor (%[flip]), %%ymm11, %%ymm11\n\t"
        "vpmaddwd %%ymm14, %%ymm11, %%ymm12\n\t"
        "vpaddd %%ymm12, %[yya], %[yya]\n\t"
        "vpmaddwd %%ymm15, %%ymm11, %%ymm11\n\t"
        "vpaddd %%ymm11, %[yyb], %[yyb]\n\t"
        "add $16, %[pr]\n\t"
        "add $32, %[ca]\n\t"
        "cmp %[ca_end], %[ca]\n\t"
        "jne 1b\n\t"
        : [m1a] "+x"(m1a), [m2a] "+x"(m2a), [xxa] "+x"(xxa), [yya] "+x"(yya), [xya] "+x"(xya),
          [m1b] "+x"(m1b), [m2b] "+x"(m2b), [xxb] "+x"(xxb), [yyb] "+x"(yyb), [xyb] "+x"(xyb),
          [pr] "+r"(ppr), [ca] "+r"(pca), [t] "=&r"(t)
        : [j] "r"(j), [flip] "r"(flip), [dpd] "r"(dpd), [dcb] "r"(dcb), [ca_end] "r"(ca_end)
        : "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc", "memory");
    sa[0] = m1a, sa[1] = m2a, sa[2] = xxa, sa[3] = yya, sa[4] = xya;
    sb[0] = m1b, sb[1] = m2b, sb[2] = xxb, sb[3] = yyb, sb[4] = xyb;
}

static void vif_stat_vertical_8x2_avx2(uint16_t *const *out0, uint16_t *const *out1,
                                       const uint8_t *ref, ptrdiff_t ref_stride,
                                       const uint8_t *dis, ptrdiff_t dis_stride, unsigned w,
                                       unsigned h, unsigned i, unsigned mu_shift,
                                       unsigned sq_shift, uint16_t *down_r, uint16_t *down_d,
                                       unsigned down_shift)
{
    const uint8_t *pr[VIF_MAX_TAPS + 1], *pd[VIF_MAX_TAPS + 1];
    uint32_t wa[(VIF_MAX_TAPS + 1) / 2], wb[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_rows_8x2(pr, pd, wb, ref, ref_stride, dis, dis_stride, h, i);
    (void)vif_tap_pair_words(wa, vif_filter_taps[0], vif_filter_width[0], &tap_sum);
    /* row i's tap words, then row i + 1's */
    _Alignas(32) __m256i cw[2][(VIF_MAX_TAPS + 1) / 2];
    for (unsigned p = 0; p < np; p++) {
        cw[0][p] = _mm256_set1_epi32((int)wa[p]);
        cw[1][p] = _mm256_set1_epi32((int)wb[p]);
    }
    _Alignas(32) const __m256i flip = _mm256_set1_epi16((short)0x8000);
    const __m256i back = _mm256_set1_epi32((int)(32768u * tap_sum)), zero = _mm256_setzero_si256();
    const ptrdiff_t dpd = (const char *)pd - (const char *)pr;
    const ptrdiff_t dcb = (const char *)cw[1] - (const char *)cw[0];
    const unsigned w16 = w & ~15u;
    for (unsigned j = 0; j < w16; j += 16) {
        __m256i a[2][5], b[2][5];
        for (int half = 0; half < 2; half++) {
            for (int q = 0; q < 5; q++) a[half][q] = b[half][q] = q < 2 ? zero : back;
            vif_v8x2_pass_avx2(a[half], b[half], pr, dpd, j + 8 * (size_t)half, cw[0], dcb, np,
                               &flip);
        }
        vif_put_stat8_avx2(out0, j, a[0], a[1], mu_shift, sq_shift);
        vif_put_stat8_avx2(out1, j, b[0], b[1], mu_shift, sq_shift);
    }
    if (w16 < w) {
        uint16_t *tail0[VIF_N_ROWS], *tail1[VIF_N_ROWS];
        for (unsigned q = 0; q < VIF_N_ROWS; q++) {
            tail0[q] = out0[q] + w16;
            tail1[q] = out1[q] + w16;
        }
        vif_stat_vertical_8(tail0, ref + w16, ref_stride, dis + w16, dis_stride, w - w16, h, i,
                            mu_shift, sq_shift);
        vif_stat_vertical_8(tail1, ref + w16, ref_stride, dis + w16, dis_stride, w - w16, h,
                            i + 1, mu_shift, sq_shift);
    }
    if (down_r)
        vif_down_vertical_avx2(down_r, down_d, ref, ref_stride, dis, dis_stride, true, w, h, i,
                               1, down_shift);
}
#define VIF_STAT_VERTICAL_8X2 vif_stat_vertical_8x2_avx2
#endif

/* 8 outputs a step, as vif_down_horizontal_avx512: vpmaddwd on the flipped
 * sample pairs of 32-bit lanes where every tap is below 2^15 (scales 1, 2),
 * vpmulld on the even samples (the lanes' low halves) for scale 3 (one
 * sample past the C's last, inside the row's right padding) */
static void vif_down_horizontal_avx2(uint16_t *out_r, uint16_t *out_d, const uint16_t *rr,
                                     const uint16_t *rd, unsigned w2, unsigned next)
{
    const unsigned fw = vif_filter_width[next];
    const int half = (int)(fw / 2);
    const uint16_t *taps = vif_filter_taps[next];
    const __m256i lo16 = _mm256_set1_epi32(0xffff), rnd = _mm256_set1_epi32(32768);
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    uint32_t words[(VIF_MAX_TAPS + 1) / 2], tap_sum;
    const unsigned np = vif_tap_pair_words(words, taps, fw, &tap_sum);
    const bool madd = fw > 3;
    const __m256i back = _mm256_set1_epi32((int)(uint32_t)(32768u * tap_sum));
    const unsigned w8 = w2 & ~7u;
    for (unsigned oj = 0; oj < w8; oj += 8) {
        __m256i ar, ad;
        const uint16_t *pr = rr + 2 * (int)oj - half, *pd = rd + 2 * (int)oj - half;
        if (madd) {
            ar = ad = back;
            for (unsigned t = 0; t < np; t++) {
                const __m256i c = _mm256_set1_epi32((int)words[t]);
                ar = _mm256_add_epi32(ar, _mm256_madd_epi16(_mm256_xor_si256(
                    _mm256_loadu_si256((const __m256i *)(pr + 2 * t)), flip), c));
                ad = _mm256_add_epi32(ad, _mm256_madd_epi16(_mm256_xor_si256(
                    _mm256_loadu_si256((const __m256i *)(pd + 2 * t)), flip), c));
            }
        } else {
            ar = ad = _mm256_setzero_si256();
            for (unsigned k = 0; k < fw; k++) {
                const __m256i c = _mm256_set1_epi32(taps[k]);
                const __m256i x = _mm256_and_si256(
                    _mm256_loadu_si256((const __m256i *)(pr + k)), lo16);
                const __m256i y = _mm256_and_si256(
                    _mm256_loadu_si256((const __m256i *)(pd + k)), lo16);
                ar = _mm256_add_epi32(ar, _mm256_mullo_epi32(c, x));
                ad = _mm256_add_epi32(ad, _mm256_mullo_epi32(c, y));
            }
        }
        store_u16x8(out_r + oj, _mm256_srli_epi32(_mm256_add_epi32(ar, rnd), 16));
        store_u16x8(out_d + oj, _mm256_srli_epi32(_mm256_add_epi32(ad, rnd), 16));
    }
    if (w8 < w2)
        vif_down_horizontal(out_r + w8, out_d + w8, rr + 2 * w8, rd + 2 * w8, w2 - w8, next);
}
#undef VIF_DOWN_HORIZONTAL
#define VIF_DOWN_HORIZONTAL vif_down_horizontal_avx2
#endif

#ifndef __AVX2__
#define VIF_KERNELS_IMPL
#include "feature/vif/vif_cpu.h"
#endif

#define VIF_KERNELS_SET
#include "feature/vif/vif_cpu.h"

const VifKernels TVMAF_SIMD_NAME(tvmaf_vif_kernels) = VIF_KERNELS_INIT;
