/*
 * The float "picture" of the float extractors float_psnr, float_ansnr and
 * float_moment: samples in float, on the 8-bit scale. An 8-bit sample
 * becomes (float)v plus an integer offset; a deeper sample is first divided
 * in float by 2^(bpc-8) (sample_divisor), then offset. Every step is exact
 * (a power-of-two division of an integer below 2^16, then adding a small
 * integer), but it is written as the reference computes it, a float division
 * followed by a float addition. The samples need no double: the twins'
 * programs that need only them stay fp64-free.
 *
 * Also here: the exact double sums of those extractors' terms (their twins
 * add units, see "Exact double sums") and the psnr constants float_psnr and
 * float_ansnr share.
 */
#ifndef TVMAF_FEATURE_COMMON_FLOAT_PICTURE_H
#define TVMAF_FEATURE_COMMON_FLOAT_PICTURE_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/sample.h"

TVMAF_HD float float_pic_sample8(uint8_t v, int offset)
{
    return (float)v + offset;
}

TVMAF_HD float float_pic_sample16(uint16_t v, float divisor, int offset)
{
    return (float)v / divisor + offset;
}

/*
 * Exact double sums of float picture terms (the twins of float_psnr and
 * float_moment). Every term those extractors add into a double accumulator,
 * pixel by pixel in raster order, is a non-negative float below 2^32 that is
 * a multiple of 2^-q, q fixed by the depth (fpic_frac_bits): a sample on the
 * 8-bit scale is an integer below 2^16 divided by 2^d (d = 0, 2, 4 or 8 for
 * 8, 10, 12 and 16 bits; samples above the declared depth included), so a
 * multiple of 2^-d, and so is a difference of two; a float product of two
 * such values is a multiple of 2^-2d (rounding to float only moves it to a
 * coarser multiple). So term * 2^q is an integer, the term's "units", below
 * 2^48 (q <= 16).
 *
 * While the exact total is below 2^53 units, every partial sum of the
 * sequential double accumulation is a multiple of 2^-q below 2^(53-q) and
 * so exactly representable: no addition rounds, and the CPU's sum equals the
 * exact total, whatever the order. The device therefore adds units as
 * integers in any order, saturating at `limit` (2^53 by default); a total
 * below the limit is the CPU's double exactly, and a saturated one is
 * recomputed by the CPU's own sequential loop (which only samples far above
 * the declared depth, or 16-bit content with very large values at 4K and
 * beyond, reach: an 8-bit picture's squares are whole units, and 2^53 of them
 * need more than 2^37 pixels). The saturating sum min(sum, limit) is the same
 * in any order.
 */
#define FPIC_UNITS_EXACT (1ull << 53)

/* q for a sum of samples (power 1) or of products of two samples or
 * differences (power 2) at the given divisor; 16 (the finest unit any of the
 * four divisors needs) for another divisor. */
TVMAF_HD unsigned fpic_frac_bits(float divisor, unsigned power)
{
    const unsigned d = divisor == 1.0f ? 0u : divisor == 4.0f ? 2u : divisor == 16.0f ? 4u
                     : divisor == 256.0f ? 8u : 16u;
    return d == 16u ? 16u : power * d;
}

TVMAF_HD uint64_t fpic_units(float v, unsigned q)
{
    /* exact: a power-of-two scaling of a float that is a multiple of 2^-q */
    return (uint64_t)(v * (float)(1u << q));
}

/* a + b, saturated at limit (a, b <= max(limit, 2^48), limit <= 2^53: no wrap) */
TVMAF_HD uint64_t fpic_units_add(uint64_t a, uint64_t b, uint64_t limit)
{
    const uint64_t s = a + b;
    return s > limit ? limit : s;
}

/* A partial total of any size below 2^64 (a chunk's or a row's integer sum)
 * added into a running total saturated at FPIC_UNITS_EXACT. */
TVMAF_HD uint64_t fpic_units_merge(uint64_t total, uint64_t part)
{
    return fpic_units_add(total, part < FPIC_UNITS_EXACT ? part : FPIC_UNITS_EXACT,
                          FPIC_UNITS_EXACT);
}

/* Columns the CPU row passes sum in one integer, so that the compiler can
 * use vector lanes and no chunk's sum wraps: 8-bit terms (samples, squares,
 * squared differences) are below 2^16, so FPIC_CHUNK8 of them fit 32 bits;
 * unit counts are below 2^48, so FPIC_CHUNK16 of them fit 63 bits. */
#define FPIC_CHUNK8 65536u
#define FPIC_CHUNK16 32768u

#if !defined(TVMAF_FP64_FREE)
/* The double of a total below 2^53 units of 2^-q: exact. */
TVMAF_HD double fpic_units_value(uint64_t u, unsigned q)
{
    return (double)u / (double)(1u << q);
}
#endif

/* The decomposition of those twins: one group of FPIC_THREADS work-items
 * per row; work-item t adds the units of samples t, t + FPIC_THREADS, ... of
 * its row, the group folds them into the row's saturated total
 * (float_picture_kernels.h); one more work-item folds the rows and, where a
 * total saturated, runs the CPU's sequential loop. */
#define FPIC_THREADS 256

#if !defined(TVMAF_FP64_FREE)
/* Peak sample value and psnr clamp on the 8-bit scale, per bit depth, of
 * float_psnr and float_ansnr's float_anpsnr; 0 for a depth the float
 * extractors do not support. */
TVMAF_HD int float_psnr_constants(unsigned bpc, double *peak, double *psnr_max)
{
    switch (bpc) {
    case 8:  *peak = 255.0;        *psnr_max = 60.0;  return 1;
    case 10: *peak = 255.75;       *psnr_max = 72.0;  return 1;
    case 12: *peak = 255.9375;     *psnr_max = 84.0;  return 1;
    case 16: *peak = 255.99609375; *psnr_max = 108.0; return 1;
    default: return 0;
    }
}
#endif /* !TVMAF_FP64_FREE */

#endif
