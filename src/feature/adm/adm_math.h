/*
 * adm (integer ADM): the arithmetic, written once for the CPU extractor and
 * the CUDA twin.
 *
 * Pipeline of one frame, per scale (0 = finest .. 3), on the luma plane:
 *   dwt      4-tap Daubechies-2 analysis of reference and distorted: bands
 *            a (approximation, the next scale's input), v, h, d
 *   decouple split the distorted detail bands into r (restored: the part
 *            explained by the reference) and a (additive impairment)
 *   den      sum of |x|^3 over the reference's h, v, d (the CSF weight, cubed,
 *            multiplies the total on the host)
 *   csf      contrast-sensitivity weighting of the masking band (a for the
 *            DLM measure, r for AIM) and its 1/30 "flt" companion
 *   cm       contrast masking: sum over the other band (r for DLM, a for AIM)
 *            of max(|csf * x| - threshold, 0)^3, the threshold being a 3x3
 *            neighbourhood sum of the masking band's flt and csf values
 * Scale 0 keeps its bands in int16, scales 1..3 in int32. Every shift, rounding offset and integer width below is the
 * reference's (libvmaf integer_adm.c, C path), including its quirks, which are
 * named where they occur: unsigned wrap where the reference's signed int would
 * overflow, int16/int32 truncating stores, the odd rounding constants.
 *
 * Which reference: libvmaf chooses its ADM kernels by CPU at run time, and the
 * goldens come from a host with AVX-512. Its vector kernels do not compute
 * exactly what its scalar code computes in six places (V0..V5); this file
 * carries both forms and adm_stages.h applies each where that host applied it -- see
 * "Vector and scalar lanes" below. The option reference_isa chooses another
 * build (AVX2, scalar C): see "Which reference build".
 *
 * What is exact and what is ordered: every per-coefficient step and every sum
 * over coefficients is integer. A row's terms are added into one 64-bit
 * accumulator (order free: two's complement addition is associative), the row
 * total is rounded by a shift, and the rounded rows are added in 64 bits
 * (order free again). Floating point enters only per scale, on the host: the
 * integer totals are scaled to float/double, cube-rooted with powf and added
 * (h + v + d in float, then scales 0..3 into doubles) -- see adm.c. The
 * per-coefficient float/double work (the decouple angle test and the gain
 * limit) is IEEE arithmetic with no libm call, so a device compiled without
 * FMA contraction reproduces it exactly.
 */
#ifndef TVMAF_ADM_MATH_H
#define TVMAF_ADM_MATH_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"

/* The decouple's doubles (the angle test, the enhancement gain): an fp64-free
 * program (OpenCL without cl_khr_fp64) forms their bit patterns in integers
 * (numerics/soft_double.h), and reads the gain limit's bits (AdmF64) where
 * the host wrote a double. */
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
typedef tvmaf_sd AdmF64;
#else
typedef double AdmF64;
#endif
/* 1 / 4096 as a double's bits (tests/test_soft_double.c checks them) */
#define ADM_R4096_BITS UINT64_C(0x3f30000000000000)

/* Daubechies-2 analysis taps in Q15: low pass and high pass. */
enum {
    ADM_LO0 = 15826, ADM_LO1 = 27411, ADM_LO2 = 7345, ADM_LO3 = -4240,
    ADM_HI0 = -4240, ADM_HI1 = -7345, ADM_HI2 = 27411, ADM_HI3 = -15826,
    /* sum of the low-pass taps: scale 0 subtracts it times half the sample
     * range so that its low band is centred on zero */
    ADM_LO_SUM = 46342,
};

/* Fixed-point reciprocals used by the masking threshold and csf "flt". */
#define ADM_Q17_ONE_OVER_15 8738       /* 2^17 / 15, used with a 2^12 shift: centre, scale 0 */
#define ADM_Q32_ONE_OVER_15 286331153u /* 2^32 / 15: centre term, scales 1..3 */
#define ADM_Q17_ONE_OVER_30 4369       /* 2^17 / 30: flt, scale 0 */
#define ADM_Q32_ONE_OVER_30 143165577u /* 2^32 / 30: flt, scales 1..3 */

/* The smallest frame side the 4-scale DWT handles: its mirrored window needs
 * at least 5 samples at the input of scale 3, i.e. ceil(side / 8) >= 5. */
#define ADM_MIN_SIDE 33

/* Reciprocal table entry: 2^30 / d truncated, with the sign of d (0 for 0),
 * for d in [-32768, 32768]. */
TVMAF_HD int32_t adm_recip_q30(int d)
{
    if (d > 0) return (int32_t)(1073741824 / d);
    if (d < 0) return -(int32_t)(1073741824 / -d);
    return 0;
}

/* |x| as the reference's abs() computes it on int32 (INT32_MIN stays). */
TVMAF_HD int32_t adm_abs32(int32_t x)
{
    return x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
}

TVMAF_HD int adm_clz32(uint32_t x)
{
#if defined(__OPENCL_VERSION__)
    return (int)clz(x);
#elif TVMAF_DEVICE_CODE
    return __clz((int)x);
#else
    return __builtin_clz(x);
#endif
}

/* ------------------------------------------------------------------------ */
/* Vector and scalar lanes                                                  */
/* ------------------------------------------------------------------------ */

/*
 * The golden host ran libvmaf's AVX-512 kernels for every ADM stage. A kernel
 * walks each row of its region from the left in blocks of a fixed number of
 * columns and leaves the columns that do not fill a last block to the scalar
 * code. Below, a "vector lane" is a column handled inside a block and a
 * "scalar lane" any other column (the leftovers, and every column of the rows
 * or scales a kernel hands wholly to the scalar code). Per stage:
 *
 *   decouple, csf (all scales)  blocks of 16 over the work range, every row
 *   cm                          blocks of 14 (scale 0) or 6 (scales 1..3) over
 *                               the cm columns of rows 1 .. h-2, and only when
 *                               the cm margin is at least one column
 *                               (adm_border(w) >= 1); else the scale's cm is
 *                               scalar throughout
 *   den                         vector kernels equal to the scalar code
 *   dwt                         likewise, except where a row's last output
 *                               falls in a vector block: see "Which reference
 *                               build" below (reproduced; memory nothing
 *                               wrote is read as 0)
 *
 * Before any lane: the Q32 weights of scales 1..3 (rfac32) are the golden
 * host's, made inside its AVX-512 kernels, whose double -> uint32 conversion
 * saturates (adm_avx512_to_u32: a weight >= 1 gives 0xffffffff) where the
 * scalar build wraps modulo 2^32 (V0). Both lanes of those kernels use that
 * value. It is the scalar build's value for every weight below 1.
 *
 * Where the two lanes compute different things (the vector forms below):
 *   V1 decouple, gain limit: vector lanes turn r * egl into an integer by
 *      rounding to nearest (ties to even) before the min/max with t; scalar
 *      lanes truncate after it.
 *   V2 csf scale 0, flt: vector lanes take |csf| of the 32-bit product,
 *      before the csf value is narrowed to int16; scalar lanes after.
 *   V3 cm scale 0, threshold centre (|csf| * 32/15 in Q12): vector lanes keep
 *      it in 32 bits, scalar lanes narrow it to int16.
 *   V4 csf and cm, scales 1..3: vector lanes multiply by the Q32 weight read as
 *      a signed int32, i.e. by rfac32 - 2^32 when rfac32 >= 2^31.
 *   V5 cm, scales 1..3: vector lanes keep the weighted value x, the threshold
 *      and |x| - threshold in 64 bits and use only the low 32 bits of the
 *      difference when squaring and cubing; scalar lanes truncate x to int32
 *      and sum and subtract in 32 bits.
 *
 * When they agree (so the lane split is invisible):
 *   V0 (against the scalar build): for every weight below 1 -- Watson's and
 *       the blend tables' (below 0.5, see V4; the blend modes' -22 for
 *       unlisted conditions gives 0 in both). Only Barten reaches 1.
 *   V1: whenever r * egl is an integer -- for every integral egl (the default
 *       100, and 1: |r| < 2^32, so the product is exact).
 *   V2: whenever the csf product fits int16. Scale-0 detail bands are bounded
 *       at every bit depth by |x| <= 22930 (the taps' absolute sums times the
 *       recentred sample range), decoupled r and a by 22931 (r keeps the sign
 *       of t and exceeds it by at most 1). csf is rfac16 * x / 2^15 for h, v
 *       and rfac16 * x / 2^17 for d, so d always fits and h, v fit while
 *       rfac16 <= 46824. Watson (csf_mode 0) gives rfac16 <= 36453 for every
 *       viewing condition adm accepts (nvd x rdh >= 3240; its weights fall as
 *       the angular resolution rises), the blend tables (modes 2, 3) at most
 *       24809 there (1080 lines at 3H) and 0 for unlisted conditions. Only
 *       Barten (mode 1: weights of order 1 to 30, so w * 2^21 wraps in
 *       uint16) can differ.
 *   V3: whenever |csf| < 15360 (centre below 2^15). Content dependent in
 *       every mode: Watson at the default condition reaches |csf| >= 15360
 *       for |x| >= 13807 in h or v (d stays below 8650). That takes near
 *       full-swing one-pixel detail (a lone white line on black gives 19307);
 *       natural video stays far below, as in every default golden. Where it
 *       happens, the vector lane is what the golden host computed.
 *   V4: whenever the weight is below 0.5. Watson's weights at scales 1..3 are
 *       1/Q with Q >= 2a / A >= 0.990 / 0.49428 > 2 for any viewing condition;
 *       the blend tables' are at most 0.062: only Barten can differ.
 *   V5: whenever the weight is below 1/16. x (and every csf value) is an
 *       int32 band value times 16 w, so |x| < 2^31 and no csf value is
 *       INT32_MIN; the threshold's 27 terms then lie in [-1, 2^31 / 15], their
 *       sum below 2^31, and |x| - threshold inside int32. Watson's scales
 *       1..3 weights are at most 0.046 where adm runs (largest at nvd x rdh =
 *       3240, falling beyond), the blend tables' at most 0.0616 (all entries):
 *       only Barten can differ.
 */

/*
 * Which reference build (the adm option reference_isa): libvmaf picks its ADM
 * kernels by CPU, and the three builds differ in the DWT at some widths.
 *
 *   ADM_ISA_AVX512  the goldens' host (default): the lanes above, and the DWT
 *                   defect below with blocks of 32 (scale 0, 8 bits), 64
 *                   (scale 0, 9..16 bits) and 8 (scales 1..3) outputs.
 *   ADM_ISA_AVX2    the DWT defect with blocks of 16 (scale 0, 9..16 bits)
 *                   and 4 (scales 1..3); its 8-bit scale 0 is bounds-checked
 *                   (or scalar) and has none. Its decouple, csf and cm lanes
 *                   have other widths (adm_lanes_decouple and below), its Q32
 *                   weights wrap as the scalar build's (V0), and some vector
 *                   forms are its own: scale 0 csf and flt saturate to int16
 *                   (adm_csf16_flt_sat), its cm cubes use logical shifts
 *                   (adm_cm_term_avx2, adm_cm_term32_avx2), its threshold
 *                   centre takes |INT32_MIN| as 2^31; V3 as AVX-512, V1 as
 *                   AVX-512 at scale 0 but as the scalar code at scales 1..3.
 *   ADM_ISA_C       the scalar build: scalar lanes everywhere, the wrapping
 *                   Q32 conversion (V0), no DWT defect.
 *
 * The DWT defect: the horizontal pass walks outputs 1 .. n_out-1 of a row in
 * blocks from the left and leaves a partial last block to the scalar code.
 * When (n_out - 1) is a multiple of the block, the last output n_out-1 is in
 * a vector block and reads its window 2j-1 .. 2j+2 as it is, past the end of
 * the row's n input samples, instead of mirroring. The kernels keep their
 * temporary rows one after the other (scale 0, per picture: low, high; scales
 * 1..3: reference low, reference high, distorted low, distorted high, each n
 * wide), so sample n + o of a row is sample o of the next row -- the same
 * DWT row's values, deterministic -- except after the last one:
 *   scale 0, high row:        memory the previous frame's scale 1 or 2 left
 *                              (the first frame: never written);
 *   scale 1, distorted high:  memory never written;
 *   scales 2, 3, distorted high: the previous scale's distorted low row of
 *                              its last output row, at column o (its input
 *                              width even) or 2 + o (odd).
 * The two unwritten cases feed only the h and d bands' last column, which cm
 * reads only where its margin is at most one column (band width <= 24):
 * AVX-512 at frame widths 33..36 and 65..68 (scale 1 bands 9 and 17 wide);
 * AVX2 also at 49..52 and 81..84 (bands 13, 21) and, above 8 bits, its scale
 * 0 at 33..34. There libvmaf's scores depend on its heap (measured: they
 * change with MALLOC_PERTURB_); a fresh libvmaf process reads zeros, so adm
 * reads 0 there and says so on stderr. At scale 0 later frames read what the
 * previous frame's scales 1..2 left, which adm does not reproduce.
 */
enum AdmIsa { ADM_ISA_AVX512 = 0, ADM_ISA_AVX2 = 1, ADM_ISA_C = 2 };

/* Outputs per vector block of the horizontal DWT pass of a scale (0: none). */
TVMAF_HD int adm_dwt_block(int isa, int scale, int bpc)
{
    if (isa == ADM_ISA_AVX512) return scale ? 8 : (bpc == 8 ? 32 : 64);
    if (isa == ADM_ISA_AVX2) return scale ? 4 : (bpc == 8 ? 0 : 16);
    return 0;
}

/* Whether the last of n_out outputs of a row is computed in a vector block,
 * reading past the row (the DWT defect above). */
TVMAF_HD int adm_dwt_reads_past(int n_out, int block)
{
    return block > 0 && n_out > 1 && (n_out - 1) % block == 0;
}

/* Source sample of tap k (0..3) of output j as a vector block reads it:
 * 2j-1+k, unmirrored (j >= 1). A result >= n lies past the row. */
TVMAF_HD int adm_dwt_tap_vec(int j, int k)
{
    return 2 * j - 1 + k;
}

/* End of the vector blocks of a region [lo, hi) walked in blocks of n. */
TVMAF_HD int adm_lanes_end(int lo, int hi, int n)
{
    return hi - (hi - lo) % n;
}

/* Block widths of the golden host's kernels. */
enum { ADM_LANES_DECOUPLE = 16, ADM_LANES_CSF = 16, ADM_LANES_CM16 = 14, ADM_LANES_CM32 = 6 };

/*
 * Vector lanes per build: [lo, end) of a region [lo, hi) of a row. AVX-512
 * walks decouple and csf in blocks of 16, cm in 14 (scale 0) or 6; AVX2 in
 * 8, 8, and 6 or 2, except that its scale 0 decouple ends its blocks at the
 * last multiple of 8 of hi (not of hi - lo), leaving what follows to the
 * scalar code. The scalar build has none.
 */
TVMAF_HD int adm_lanes_decouple(int isa, int scale, int lo, int hi)
{
    /* AVX2's scales 1..3 truncate the gain-limited value as the scalar code
     * does (V1): for decouple they have no vector lanes */
    if (isa == ADM_ISA_C || (isa == ADM_ISA_AVX2 && scale > 0)) return lo;
    if (isa == ADM_ISA_AVX2) {
        const int e = hi - hi % 8;
        return e > lo ? e : lo;
    }
    return adm_lanes_end(lo, hi, ADM_LANES_DECOUPLE);
}

TVMAF_HD int adm_lanes_csf(int isa, int lo, int hi)
{
    if (isa == ADM_ISA_C) return lo;
    return adm_lanes_end(lo, hi, isa == ADM_ISA_AVX2 ? 8 : ADM_LANES_CSF);
}

TVMAF_HD int adm_lanes_cm(int isa, int scale, int lo, int hi)
{
    if (isa == ADM_ISA_C) return lo;
    const int n = isa == ADM_ISA_AVX2 ? (scale ? 2 : 6) : (scale ? ADM_LANES_CM32 : ADM_LANES_CM16);
    return adm_lanes_end(lo, hi, n);
}

#if !defined(TVMAF_FP64_FREE)
/* Round to nearest, ties to even (the vector conversion's default mode). */
TVMAF_HD double adm_rint(double x)
{
#if TVMAF_DEVICE_CODE
    return rint(x);
#else
    return __builtin_rint(x);
#endif
}
#endif

/* ------------------------------------------------------------------------ */
/* DWT                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * Source index of tap k (0..3) for output i of a DWT over n >= 5 samples. The
 * window of output i is 2i-1 .. 2i+2; before the start it reflects without
 * repeating the edge (-1 -> 1), past the end it reflects repeating it
 * (n -> n-1, n+1 -> n-2), as mirror_skip_first_repeat_last (feature/common/
 * mirror.h) does; written out because an output past 0 never reads before
 * the start, and without that test the CUDA DWT kernels hold fewer
 * registers (adm_coef0, adm_coef32 spill more through the helper).
 */
TVMAF_HD int adm_dwt_tap(int i, int k, int n)
{
    if (i == 0) return k == 1 ? 0 : (k == 3 ? 2 : 1);
    const int x = 2 * i - 1 + k;
    return x < n ? x : 2 * n - x - 1;
}

/* First output whose window passes the end of n samples (outputs 1 up to it
 * read 2i-1 .. 2i+2 directly). */
TVMAF_HD int adm_dwt_interior_end(int n)
{
    return (n - 1) / 2;
}

/*
 * Scale 0, vertical pass of one column: four samples of bpc bits to the low
 * and high values, each rounded by 2^bpc and stored in int16. The low band
 * is recentred by the tap sum times half the range. The reference adds in
 * int32; above 8 bits its partial sums pass 2^31 but the total fits, so
 * adding modulo 2^32 gives its value exactly.
 */
TVMAF_HD void adm_dwt0_vert(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3, int bpc,
                            int16_t *lo, int16_t *hi)
{
    const uint32_t mid_range = 1u << (bpc - 1);
    const uint32_t l = (uint32_t)ADM_LO0 * s0 + (uint32_t)ADM_LO1 * s1 + (uint32_t)ADM_LO2 * s2
                       + (uint32_t)(int32_t)ADM_LO3 * s3 - (uint32_t)ADM_LO_SUM *
                       mid_range;
    const uint32_t h = (uint32_t)(int32_t)ADM_HI0 * s0 + (uint32_t)(int32_t)ADM_HI1 * s1
                       + (uint32_t)ADM_HI2 * s2 + (uint32_t)(int32_t)ADM_HI3 * s3;
    *lo = (int16_t)((int32_t)(l + mid_range) >> bpc);
    *hi = (int16_t)((int32_t)(h + mid_range) >> bpc);
}

/* Scale 0, horizontal pass: four int16 values of a low or high row to the low
 * and high outputs, rounded by 2^16 (int32 sums cannot overflow here). */
TVMAF_HD int32_t adm_dwt0_lo(int16_t s0, int16_t s1, int16_t s2, int16_t s3)
{
    return (ADM_LO0 * s0 + ADM_LO1 * s1 + ADM_LO2 * s2 + ADM_LO3 * s3 + 32768) >> 16;
}

TVMAF_HD int32_t adm_dwt0_hi(int16_t s0, int16_t s1, int16_t s2, int16_t s3)
{
    return (ADM_HI0 * s0 + ADM_HI1 * s1 + ADM_HI2 * s2 + ADM_HI3 * s3 + 32768) >> 16;
}

/* Rounding of the int32 DWT of scales 1..3: vertical (add, shift) then
 * horizontal (add, shift), per scale. */
typedef struct AdmDwtRound {
    int32_t v_add, v_shift, h_add, h_shift;
} AdmDwtRound;

TVMAF_HD AdmDwtRound adm_dwt_round(int scale)
{
    AdmDwtRound r;
    r.v_add = scale == 1 ? 0 : 32768;
    r.v_shift = scale == 1 ? 0 : 16;
    r.h_add = scale == 2 ? 32768 : 16384;
    r.h_shift = scale == 2 ? 16 : 15;
    return r;
}

/* The largest magnitude of a scale 0 approximation value (adm_dwt0_lo of
 * any four int16 samples): (2^15 (15826 + 27411 + 7345) + 2^15 * 4240 +
 * 2^15) >> 16 = 27411, and -27411 at the other end. Scale 1's vertical sums
 * of such values are then at most 27411 * 54822 < 2^31 in magnitude. */
#define ADM_DWT0_A_MAX 27411

/* Scales 1..3: one low (or high) tap sum in int64, rounded, stored int32. */
TVMAF_HD int32_t adm_dwt_lo32(int32_t s0, int32_t s1, int32_t s2, int32_t s3, int32_t add,
                              int shift)
{
    const int64_t acc = (int64_t)ADM_LO0 * s0 + (int64_t)ADM_LO1 * s1 + (int64_t)ADM_LO2 * s2
                        + (int64_t)ADM_LO3 * s3;
    return (int32_t)((acc + add) >> shift);
}

TVMAF_HD int32_t adm_dwt_hi32(int32_t s0, int32_t s1, int32_t s2, int32_t s3, int32_t add,
                              int shift)
{
    const int64_t acc = (int64_t)ADM_HI0 * s0 + (int64_t)ADM_HI1 * s1 + (int64_t)ADM_HI2 * s2
                        + (int64_t)ADM_HI3 * s3;
    return (int32_t)((acc + add) >> shift);
}

/* ------------------------------------------------------------------------ */
/* Border regions                                                           */
/* ------------------------------------------------------------------------ */

#if !defined(TVMAF_FP64_FREE)
/* Margin (columns or rows) left out on each side of a band of n samples by
 * den and cm: (int)(n * 0.1 - 0.5), never negative. */
TVMAF_HD int adm_border(int n)
{
    return (int)(n * 0.1 - 0.5);
}

/* Range [*lo, *hi) of one band side that decouple and csf compute: the den/cm
 * region widened by one before (filter tap) and two after, clipped. The
 * reference computes the upper end from the unclipped lower one. */
TVMAF_HD void adm_work_range(int n, int *lo, int *hi)
{
    const int l = (int)(n * 0.1 - 0.5 - 1);
    const int h = n - l + 2;
    *lo = l < 0 ? 0 : l;
    *hi = h > n ? n : h;
}
#endif

/* ------------------------------------------------------------------------ */
/* Decouple                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Whether the reference vector (oh, ov) and the distorted (th, tv) are within
 * one degree: u.v >= 0 and (u.v)^2 >= cos^2(1deg) |u|^2 |v|^2, evaluated as
 * the reference does: each int64 converted to float, divided by 4096 in
 * double, the products in double from left to right.
 */
TVMAF_HD int adm_angle_within_1deg(int64_t ot_dp, int64_t o_mag_sq, int64_t t_mag_sq,
                                   float cos_1deg_sq)
{
#if defined(TVMAF_FP64_FREE)
    /* / 4096 is exact here (no quotient is subnormal): the doubles' exponents move */
    const tvmaf_sd r4096 = ADM_R4096_BITS;
    const tvmaf_sd dp = tvmaf_sd_mul(tvmaf_sd_from_float((float)ot_dp), r4096);
    const tvmaf_sd om = tvmaf_sd_mul(tvmaf_sd_from_float((float)o_mag_sq), r4096);
    const tvmaf_sd tm = tvmaf_sd_mul(tvmaf_sd_from_float((float)t_mag_sq), r4096);
    return tvmaf_sd_le(0, dp) &&
           tvmaf_sd_le(tvmaf_sd_mul(tvmaf_sd_mul(tvmaf_sd_from_float(cos_1deg_sq), om), tm),
                       tvmaf_sd_mul(dp, dp));
#else
    const double dp = (double)(float)ot_dp / 4096.0;
    const double om = (double)(float)o_mag_sq / 4096.0;
    const double tm = (double)(float)t_mag_sq / 4096.0;
    return dp >= 0.0 && dp * dp >= (double)cos_1deg_sq * om * tm;
#endif
}

/*
 * Enhancement gain limit of a restored value r: where the angle test passed
 * and k > 0, r becomes min(r * egl, t) for o > 0 and max(r * egl, t) for
 * o < 0, in double. The reference decides on a float copy of r, which only
 * carries the sign of k * o here (k/2^15 times o/2^6 in float is never 0 nor
 * rounds across 0), so the test is made on the integers. Returned truncated
 * to int32, which the caller narrows to the band's type; it is in range,
 * being t or a value between r and t. Vector lanes (vec != 0, V1) round
 * r * egl to an integer first.
 */
TVMAF_HD int32_t adm_enhance(int32_t r, int32_t t, int64_t k, int32_t o, int angle, AdmF64 egl,
                             int vec, int *changed)
{
    *changed = 0;
    if (!angle || k <= 0 || o == 0) return 0;
    *changed = 1;
#if defined(TVMAF_FP64_FREE)
    tvmaf_sd g = tvmaf_sd_mul(tvmaf_sd_from_int32(r), egl);
    if (vec) g = tvmaf_sd_rint(g);
    const tvmaf_sd td = tvmaf_sd_from_int32(t);
    return tvmaf_sd_to_int32(o > 0 ? (tvmaf_sd_lt(g, td) ? g : td) : (tvmaf_sd_lt(td, g) ? g : td));
#else
    const double g = vec ? adm_rint(r * egl) : r * egl;
    if (o > 0) return (int32_t)(g < t ? g : (double)t);
    return (int32_t)(g > t ? g : (double)t);
#endif
}

/* Scale 0 decouple of one orientation: restored value r of the distorted t
 * given the reference o (k = clip(t/o, 0, 1) in Q15 through the reciprocal
 * table entry recip = adm_recip_q30(o)), then a = t - r stored in int16. */
TVMAF_HD void adm_decouple16(int16_t o, int16_t t, int32_t recip, int angle, AdmF64 egl,
                             int vec, int16_t *r_out, int16_t *a_out)
{
    int32_t k = 32768;
    if (o != 0) {
        const int32_t q = (int32_t)(((int64_t)recip * t + 16384) >> 15);
        k = q < 0 ? 0 : (q > 32768 ? 32768 : q);
    }
    int16_t r = (int16_t)((k * o + 16384) >> 15);
    int changed;
    const int32_t g = adm_enhance(r, t, k, o, angle, egl, vec, &changed);
    if (changed) r = (int16_t)g;
    *r_out = r;
    *a_out = (int16_t)(t - r);
}

/*
 * Scales 1..3 decouple of one orientation. |o| >= 2^15 is first reduced to
 * its top 15 bits (rounded) so the 2^15-entry reciprocal table applies, and
 * the quotient is shifted back by the same amount. recip_pos points at the
 * table entry for 0 (entries 0..32768 are read). The reference's rounding
 * constant is an int shift, which for |o| = 2^31 would reach bit 31; the
 * conversion below keeps its value there too.
 */
TVMAF_HD void adm_decouple32(int32_t o, int32_t t, TVMAF_GLOBAL const int32_t *recip_pos, int angle,
                             AdmF64 egl, int vec, int32_t *r_out, int32_t *a_out)
{
    int64_t k = 32768;
    if (o != 0) {
        const uint32_t ao = (uint32_t)adm_abs32(o);
        int sh = 0;
        uint32_t m = ao;
        if (ao >= 32768) {
            sh = 17 - adm_clz32(ao);
            m = (ao + (1u << (sh - 1))) >> sh;
        }
        const int64_t sign = o < 0 ? -1 : 1;
        const int64_t round = (int64_t)(int32_t)(1u << (14 + sh));
        const int64_t q = (((int64_t)recip_pos[(uint16_t)m] * t) * sign + round) >> (15 + sh);
        k = q < 0 ? 0 : (q > 32768 ? 32768 : q);
    }
    int32_t r = (int32_t)((k * o + 16384) >> 15);
    int changed;
    const int32_t g = adm_enhance(r, t, k, o, angle, egl, vec, &changed);
    if (changed) r = g;
    *r_out = r;
    *a_out = (int32_t)((uint32_t)t - (uint32_t)r);
}

/* a0*b0 + a1*b1 in int64 (each product fits; the sum is added modulo 2^64,
 * as the reference's int64 sum is for any value it can meet). */
TVMAF_HD int64_t adm_dot2(int32_t a0, int32_t b0, int32_t a1, int32_t b1)
{
    return (int64_t)((uint64_t)((int64_t)a0 * b0) + (uint64_t)((int64_t)a1 * b1));
}

/*
 * Decouple of one coefficient, orientations h, v, d (index 0, 1, 2): the
 * angle test is made once on the (h, v) vectors and applies to all three.
 * recip points at the reciprocal table entry of 0 (adm_recip_q30(d) at
 * recip[d], d in [-32768, 32768]). vec selects the vector-lane gain rounding
 * (V1); the rest is the same in both lanes.
 */
TVMAF_HD void adm_decouple16_at(const int16_t o[3], const int16_t t[3],
                                TVMAF_GLOBAL const int32_t *recip,
                                float cos_1deg_sq, AdmF64 egl, int vec, int16_t r[3],
                                int16_t a[3])
{
    const int angle = adm_angle_within_1deg(adm_dot2(o[0], t[0], o[1], t[1]),
                                            adm_dot2(o[0], o[0], o[1], o[1]),
                                            adm_dot2(t[0], t[0], t[1], t[1]), cos_1deg_sq);
    for (int k = 0; k < 3; k++)
        adm_decouple16(o[k], t[k], recip[o[k]], angle, egl, vec, &r[k], &a[k]);
}

TVMAF_HD void adm_decouple32_at(const int32_t o[3], const int32_t t[3],
                                TVMAF_GLOBAL const int32_t *recip,
                                float cos_1deg_sq, AdmF64 egl, int vec, int32_t r[3],
                                int32_t a[3])
{
    const int angle = adm_angle_within_1deg(adm_dot2(o[0], t[0], o[1], t[1]),
                                            adm_dot2(o[0], o[0], o[1], o[1]),
                                            adm_dot2(t[0], t[0], t[1], t[1]), cos_1deg_sq);
    for (int k = 0; k < 3; k++) adm_decouple32(o[k], t[k], recip, angle, egl, vec, &r[k], &a[k]);
}

/* ------------------------------------------------------------------------ */
/* CSF                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * Scale 0 csf of one coefficient: rfac (Q21 for h and v, Q23 for d) times x,
 * back to Q16 (h, v: +2^14 >> 15; d: +65535 >> 17, the reference's constant),
 * in 32 bits (|value| <= 2^16), stored int16 by the caller (adm_csf16);
 * flt = |c| * (2^17/30) rounded by 2^12, stored int16 (it wraps for |c| above
 * about 30000, as the reference's does). Scalar lanes give flt the stored
 * int16 csf, vector lanes the 32-bit value (V2).
 */
TVMAF_HD int32_t adm_csf16_wide(int16_t x, uint16_t rfac, int diag)
{
    const int32_t p = (int32_t)rfac * x;
    const uint32_t add = diag ? 65535u : 16384u;
    return (int32_t)((uint32_t)p + add) >> (diag ? 17 : 15);
}

TVMAF_HD int16_t adm_csf16(int16_t x, uint16_t rfac, int diag)
{
    return (int16_t)adm_csf16_wide(x, rfac, diag);
}

TVMAF_HD int16_t adm_csf16_flt(int32_t c)
{
    const int32_t m = c < 0 ? -c : c;
    return (int16_t)((ADM_Q17_ONE_OVER_30 * m + 2048) >> 12);
}

/* int32 to int16, saturating (a vector pack). */
TVMAF_HD int16_t adm_sat16(int32_t v)
{
    return (int16_t)(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
}

/* AVX2's vector lanes (reference_isa=avx2) store csf and flt of the 32-bit
 * csf value saturated to int16 where the others truncate. */
TVMAF_HD int16_t adm_csf16_flt_sat(int32_t c)
{
    const uint32_t m = (uint32_t)adm_abs32(c);
    return adm_sat16((int32_t)(m * (uint32_t)ADM_Q17_ONE_OVER_30 + 2048u) >> 12);
}

/* Scales 1..3 csf: x times the Q32 weight, rounded by 2^28, in 64 bits.
 * Scalar lanes multiply by rfac as unsigned, vector lanes by rfac read as a
 * signed int32 (V4); both store the low 32 bits. */
TVMAF_HD int64_t adm_csf32_mul(int32_t x, int64_t mul)
{
    return (mul * x + (1 << 27)) >> 28;
}

TVMAF_HD int32_t adm_csf32(int32_t x, uint32_t rfac)
{
    return (int32_t)adm_csf32_mul(x, (int64_t)rfac);
}

TVMAF_HD int32_t adm_csf32_v(int32_t x, uint32_t rfac)
{
    return (int32_t)adm_csf32_mul(x, (int64_t)(int32_t)rfac);
}

/* Scales 1..3 flt: |csf| / 30 in Q32. The reference's rounding constant is
 * 2^31 stored in an int32, i.e. -2^31: it subtracts instead of adding. */
TVMAF_HD int32_t adm_csf32_flt(int32_t c)
{
    return (int32_t)(((int64_t)ADM_Q32_ONE_OVER_30 * adm_abs32(c) + (int64_t)INT32_MIN) >> 32);
}

/* ------------------------------------------------------------------------ */
/* Denominator: sum of cubes of the reference's detail bands                */
/* ------------------------------------------------------------------------ */

/* Scale 0: |x|^3 of an int16 coefficient, exact in 64 bits. |x| <= 2^15, so
 * its square fits 32 bits and only the last product is widened (a 32x32-bit
 * multiply in the vectorised loops, not a 64x64-bit one). */
TVMAF_HD uint64_t adm_den16_term(int16_t x)
{
    const uint32_t m = (uint16_t)(x < 0 ? -(int32_t)x : x);
    return (uint64_t)(m * m) * m;
}

/* Scales 1..3: |x|^2 rounded by 2^sq_shift (the reference adds 2^sq_shift,
 * not half of it), times |x|, rounded by 2^cub_shift. */
TVMAF_HD uint64_t adm_den32_term(int32_t x, int sq_shift, int cub_shift, uint64_t cub_add)
{
    const uint64_t m = (uint32_t)adm_abs32(x);
    const uint64_t sq = (m * m + ((uint64_t)1 << sq_shift)) >> sq_shift;
    return (sq * m + cub_add) >> cub_shift;
}

/* Squaring shift of the scale 1..3 denominator. */
TVMAF_HD int adm_den_sq_shift(int scale)
{
    return scale == 2 ? 30 : 31;
}

/* ------------------------------------------------------------------------ */
/* Contrast masking                                                         */
/* ------------------------------------------------------------------------ */

/*
 * Neighbour indices of (i, j) in a w x h band for the 3x3 threshold window:
 * before the start the window reflects (-1 -> 1), past the end it repeats the
 * edge (n -> n-1).
 */
TVMAF_HD int adm_cm_prev(int i) { return i == 0 ? 1 : i - 1; }
TVMAF_HD int adm_cm_next(int i, int n) { return i == n - 1 ? n - 1 : i + 1; }

/*
 * Masking threshold of one coefficient at scale 0: for each orientation, the
 * 8 neighbours of the flt band plus the centre of the csf band times 32/15
 * (rounded by 2^12; scalar lanes store it int16, vector lanes keep its 32 bits,
 * V3), added over the three orientations in int32. c_mid points at the csf
 * row of the coefficient, f_up/f_mid/f_dn at the flt rows above, at and below
 * it (already mirrored); jl, j, jr are the columns.
 */
TVMAF_HD int32_t adm_cm_thr16(TVMAF_GLOBAL const int16_t *const c_mid[3],
                              TVMAF_GLOBAL const int16_t *const f_up[3],
                              TVMAF_GLOBAL const int16_t *const f_mid[3],
                              TVMAF_GLOBAL const int16_t *const f_dn[3],
                              int jl, int j, int jr, int vec)
{
    int32_t thr = 0;
    for (int o = 0; o < 3; o++) {
        const int32_t m = c_mid[o][j] < 0 ? -(int32_t)c_mid[o][j] : c_mid[o][j];
        const int32_t wide = (ADM_Q17_ONE_OVER_15 * m + 2048) >> 12;
        const int32_t centre = vec ? wide : (int16_t)wide;
        thr += f_up[o][jl] + f_up[o][j] + f_up[o][jr] + f_mid[o][jl] + centre + f_mid[o][jr]
               + f_dn[o][jl] + f_dn[o][j] + f_dn[o][jr];
    }
    return thr;
}

/* Same at scales 1..3, int32 bands; the centre is |csf| / 15 in Q32 with the
 * same negative rounding constant as adm_csf32_flt. The exact sum is returned
 * in 64 bits (vector lanes, V5); scalar lanes keep its low 32 bits, which is
 * their wrapping int32 sum. wide_abs: AVX2's vector lanes, whose |x| of
 * INT32_MIN is 2^31 (the others keep INT32_MIN). */
TVMAF_HD int64_t adm_cm_thr32(TVMAF_GLOBAL const int32_t *const c_mid[3],
                              TVMAF_GLOBAL const int32_t *const f_up[3],
                              TVMAF_GLOBAL const int32_t *const f_mid[3],
                              TVMAF_GLOBAL const int32_t *const f_dn[3],
                              int jl, int j, int jr, int wide_abs)
{
    int64_t thr = 0;
    for (int o = 0; o < 3; o++) {
        /* wide_abs: AVX2's vector lanes take |INT32_MIN| as 2^31 */
        const int32_t c = c_mid[o][j];
        const int64_t m = wide_abs && c < 0 ? -(int64_t)c : adm_abs32(c);
        const int64_t centre = ((int64_t)ADM_Q32_ONE_OVER_15 * m + (int64_t)INT32_MIN) >> 32;
        thr += (int64_t)f_up[o][jl] + f_up[o][j] + f_up[o][jr] + f_mid[o][jl] + centre
               + f_mid[o][jr] + f_dn[o][jl] + f_dn[o][j] + f_dn[o][jr];
    }
    return thr;
}

/* Shifts of one orientation's masking term. */
typedef struct AdmCmShift {
    int sub;      /* threshold scaling (left shift) */
    int sq;       /* squaring: add 2^(sq-1), shift */
    int cub;      /* cubing: add cub_add, shift */
    int64_t cub_add;
} AdmCmShift;

/*
 * One masking term: x = |v| - (thr << sub), clipped at 0, then
 * ((x^2 rounded by 2^sq, as int32) * x rounded by 2^cub). The int32
 * truncation of x^2 and the int32 wrap of the subtraction are the
 * reference's (its signed arithmetic, as compiled).
 */
TVMAF_HD int64_t adm_cm_term(int32_t v, int32_t thr, AdmCmShift s)
{
    int32_t x = (int32_t)((uint32_t)adm_abs32(v) - ((uint32_t)thr << s.sub));
    x = x < 0 ? 0 : x;
    const int32_t x_sq = (int32_t)(((int64_t)x * x + ((int64_t)1 << (s.sq - 1))) >> s.sq);
    return ((int64_t)x_sq * x + s.cub_add) >> s.cub;
}

/* Scale 0: the masked value is the restored (or additive) band times rfac,
 * in int32 (it fits: |x| <= 2^15, rfac < 2^16). */
TVMAF_HD int32_t adm_cm_value16(int16_t x, uint16_t rfac)
{
    return (int32_t)rfac * x;
}

/* AVX2's vector lanes at scale 0 (reference_isa=avx2): as adm_cm_term, but
 * the square's and the cube's roundings are logical shifts of 64-bit values,
 * so a cube product made negative by the int32 square comes out large and
 * positive. */
TVMAF_HD int64_t adm_cm_term_avx2(int32_t v, int32_t thr, AdmCmShift s)
{
    int32_t x = (int32_t)((uint32_t)adm_abs32(v) - ((uint32_t)thr << s.sub));
    x = x < 0 ? 0 : x;
    const uint64_t sq = ((uint64_t)((int64_t)x * x) + ((uint64_t)1 << (s.sq - 1))) >> s.sq;
    const int32_t sql = (int32_t)(uint32_t)sq;
    return (int64_t)(((uint64_t)((int64_t)sql * x) + (uint64_t)s.cub_add) >> s.cub);
}

/* Scales 1..3: rfac in Q32, rounded by 2^28 as in adm_csf32. */
TVMAF_HD int32_t adm_cm_value32(int32_t x, uint32_t rfac)
{
    return adm_csf32(x, rfac);
}

/*
 * Vector-lane masking term at scales 1..3 (V4, V5): v times rfac read as a
 * signed int32, rounded by 2^28 and kept in 64 bits; d = |x| - thr in 64 bits
 * (thr the exact sum of adm_cm_thr32; these scales do not shift it), clipped
 * at 0; the square and the cube then use the low 32 bits of d (signed), and
 * the low 32 bits of the rounded square, as 32x32 -> 64-bit products.
 */
TVMAF_HD int64_t adm_cm_term32_v(int32_t v, uint32_t rfac, int64_t thr, AdmCmShift s)
{
    const int64_t x = adm_csf32_mul(v, (int64_t)(int32_t)rfac);
    int64_t d = (x < 0 ? -x : x) - thr;
    d = d < 0 ? 0 : d;
    const int32_t dl = (int32_t)(uint32_t)(uint64_t)d;
    const int32_t sq = (int32_t)(uint32_t)(uint64_t)(((int64_t)dl * dl
                                                      + ((int64_t)1 << (s.sq - 1))) >> s.sq);
    return ((int64_t)sq * dl + s.cub_add) >> s.cub;
}

/*
 * The same term as AVX2's vector lanes compute it (reference_isa=avx2): x as
 * above; |x| of a negative x from its low 32 bits only (-(int32)x); d and the
 * square as above, but the square's 64-bit value is shifted logically and the
 * cube's product (low 32 bits of the square times those of d, signed) plus
 * the rounding is shifted logically too, so a negative product comes out as
 * a large positive term.
 */
TVMAF_HD int64_t adm_cm_term32_avx2(int32_t v, uint32_t rfac, int64_t thr, AdmCmShift s)
{
    const int64_t x = adm_csf32_mul(v, (int64_t)(int32_t)rfac);
    const int64_t ax = x < 0 ? -(int64_t)(int32_t)(uint32_t)(uint64_t)x : x;
    int64_t d = ax - thr;
    d = d > 0 ? d : 0;
    const int32_t dl = (int32_t)(uint32_t)(uint64_t)d;
    const uint64_t sq = ((uint64_t)((int64_t)dl * dl) + ((uint64_t)1 << (s.sq - 1))) >> s.sq;
    const int32_t sql = (int32_t)(uint32_t)sq;
    return (int64_t)(((uint64_t)((int64_t)sql * dl) + (uint64_t)s.cub_add) >> s.cub);
}

/* Vector-lane masking term at scales 1..3 of the chosen build. */
TVMAF_HD int64_t adm_cm_term32_vec(int isa, int32_t v, uint32_t rfac, int64_t thr, AdmCmShift s)
{
    return isa == ADM_ISA_AVX2 ? adm_cm_term32_avx2(v, rfac, thr, s)
                               : adm_cm_term32_v(v, rfac, thr, s);
}

/* Rounding of a row total by 2^shift (add 2^(shift-1)). */
/* a + b modulo 2^64. The reference adds the cm terms, rows and totals in
 * int64_t, where an overflow (reachable with adm_csf_mode=1 on flat content)
 * is undefined behaviour; on its processors the addition wraps, and so does
 * this one, without the undefined behaviour (the device adds in uint64_t). */
TVMAF_HD int64_t adm_add_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

TVMAF_HD int64_t adm_row_round_s(int64_t row, int shift, int64_t add)
{
    return adm_add_wrap(row, add) >> shift;
}

TVMAF_HD uint64_t adm_row_round_u(uint64_t row, int shift, uint64_t add)
{
    return (row + add) >> shift;
}

#if !TVMAF_DEVICE_CODE
#include <math.h>

/* ------------------------------------------------------------------------ */
/* Host only: per-scale CSF factors and the conversions that make them      */
/* integers. Computed once per stream; the device receives the integers.    */
/* ------------------------------------------------------------------------ */

enum AdmCsfMode {
    ADM_CSF_WATSON97 = 0,
    ADM_CSF_BARTEN = 1,
    ADM_CSF_BLEND = 2,     /* Barten/Watson blend, legacy table */
    ADM_CSF_BLEND_MAE = 3, /* Barten/Watson blend, table of the v1.0.17+ models */
};

#include "feature/adm/adm_csf.h"

/*
 * Barten/Watson blended CSF: a table per viewing condition, [diag][lambda].
 * Unlisted conditions give -EINVAL (-22) as a float weight, as the reference
 * does (it does not refuse them).
 */
static inline float adm_blend_csf(int lambda, int diag, double norm_view_dist,
                                  int ref_display_height, int mae)
{
    static const float legacy[8][2][4] = {
        /* 1080 @ 3H */ { { 0.01183, 0.025026, 0.04295, 0.058621 },
                          { 0.004302, 0.011778, 0.023918, 0.035901 } },
        /* 1080 @ 5H */ { { 0.004212, 0.014809, 0.029642, 0.047464 },
                          { 0.000984, 0.005852, 0.0146, 0.027574 } },
        /* 2160 @ 3H */ { { 0.00226, 0.01183, 0.025026, 0.04295 },
                          { 0.000479, 0.004302, 0.011778, 0.023918 } },
        /* 2160 @ 5H */ { { 0.000092, 0.004212, 0.014809, 0.029642 },
                          { 0.000050, 0.000984, 0.005852, 0.0146 } },
        /* 720 @ 3H */  { { 0.018715, 0.035637, 0.052798, 0.061509 },
                          { 0.007999, 0.018396, 0.031851, 0.037718 } },
        /* 720 @ 5H */  { { 0.010144, 0.022561, 0.040309, 0.05672 },
                          { 0.003463, 0.010282, 0.021839, 0.034641 } },
        /* 480 @ 3H */  { { 0.027961, 0.045875, 0.060275, 0.056234 },
                          { 0.013572, 0.026277, 0.036959, 0.034511 } },
        /* 480 @ 5H */  { { 0.016781, 0.032822, 0.05032, 0.061594 },
                          { 0.00691, 0.016545, 0.029917, 0.037777 } },
    };
    static const float fixed[8][2][4] = {
        /* 1080 @ 3H */ { { 0.011249, 0.022606, 0.035930, 0.045673 },
                          { 0.004097, 0.010921, 0.021430, 0.031313 } },
        /* 1080 @ 5H */ { { 0.004052, 0.013939, 0.026298, 0.038833 },
                          { 0.000927, 0.005544, 0.013415, 0.024515 } },
        /* 2160 @ 3H */ { { 0.002166, 0.011249, 0.022606, 0.035930 },
                          { 0.000447, 0.004097, 0.010921, 0.021430 } },
        /* 2160 @ 5H */ { { 0.000077, 0.004052, 0.013939, 0.026298 },
                          { 0.000045, 0.000927, 0.005544, 0.013415 } },
        /* 720 @ 3H */  { { 0.017329, 0.030870, 0.042134, 0.047410 },
                          { 0.007509, 0.016707, 0.028072, 0.032722 } },
        /* 720 @ 5H */  { { 0.009689, 0.020577, 0.034162, 0.044523 },
                          { 0.003302, 0.009579, 0.019661, 0.030318 } },
        /* 480 @ 3H */  { { 0.024969, 0.037825, 0.046676, 0.043974 },
                          { 0.012511, 0.023424, 0.032139, 0.030166 } },
        /* 480 @ 5H */  { { 0.015665, 0.028766, 0.040612, 0.047483 },
                          { 0.006514, 0.015107, 0.026476, 0.032776 } },
    };
    const double d = norm_view_dist;
    const int hgt = ref_display_height;
    int t;
    if (hgt == 1080 && d == 3.0) t = 0;
    else if (hgt == 1080 && d == 5.0) t = 1;
    else if (hgt == 2160 && d == 1.5) t = 0; /* same pixels per degree as 1080 @ 3H */
    else if (hgt == 2160 && d == 3.0) t = 2;
    else if (hgt == 2160 && d == 5.0) t = 3;
    else if (hgt == 720 && d == 3.0) t = 4;
    else if (hgt == 720 && d == 5.0) t = 5;
    else if (hgt == 480 && d == 3.0) t = 6;
    else if (hgt == 480 && d == 5.0) t = 7;
    else return -22; /* -EINVAL */
    return mae ? fixed[t][diag][lambda] : legacy[t][diag][lambda];
}

/* CSF weight of scale lambda for horizontal/vertical (diag = 0) or diagonal
 * (diag = 1) detail, in float, for the chosen mode. */
static inline float adm_csf_weight(int mode, int lambda, int diag, double norm_view_dist,
                                   int ref_display_height, double csf_scale,
                                   double csf_diag_scale)
{
    switch (mode) {
    case ADM_CSF_BARTEN:
        return adm_barten_csf(lambda, norm_view_dist, ref_display_height, 100.0,
                              diag ? csf_diag_scale : csf_scale);
    case ADM_CSF_BLEND:
    case ADM_CSF_BLEND_MAE:
        return adm_blend_csf(lambda, diag, norm_view_dist, ref_display_height,
                             mode == ADM_CSF_BLEND_MAE);
    default:
        return 1.0f / adm_watson_step(lambda, diag ? 2 : 1, norm_view_dist, ref_display_height);
    }
}

/*
 * double -> integer conversions as the reference's x86-64 build performs them
 * (gcc: cvttsd2si). To uint16: truncate to int32, keep the low 16 bits; out of
 * int32 range or NaN gives 0x80000000, so 0. To uint32: truncate to int64,
 * keep the low 32 bits; out of int64 range or NaN gives 0.
 */
static inline uint16_t adm_x86_to_u16(double x)
{
    if (!(x >= -2147483648.0 && x < 2147483648.0)) return 0;
    return (uint16_t)(uint32_t)(int32_t)x;
}

static inline uint32_t adm_x86_to_u32(double x)
{
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return 0;
    return (uint32_t)(uint64_t)(int64_t)x;
}

/*
 * The Q32 weight of scales 1..3 as the reference's AVX-512 kernels hold it
 * (V0 in "Vector and scalar lanes"). Compiled with AVX-512F, the weight's
 * double -> uint32 conversion is vcvttsd2usi, which gives 0xffffffff for
 * anything at or above 2^32 where the scalar build keeps the low 32 bits.
 * Below that the two agree: weights in [0, 1) truncate alike, and the only
 * negative weight, the blend modes' -22 for an unlisted viewing condition,
 * is a constant the compiler converts itself, to 0 in both builds (checked
 * against the AVX-512 build on such a condition). NaN cannot occur.
 */
static inline uint32_t adm_avx512_to_u32(double x)
{
    if (x >= 4294967296.0) return 0xffffffffu;
    return adm_x86_to_u32(x);
}

/* pow(2, e) for the reference's unsigned exponent arithmetic (a negative
 * difference wraps to a huge exponent, giving inf). */
static inline double adm_pow2u(uint32_t e)
{
    return pow(2, e);
}
#endif

#endif
