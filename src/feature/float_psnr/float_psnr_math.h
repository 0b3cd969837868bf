/*
 * float_psnr: the arithmetic, written once for the CPU extractor and the
 * twins. The samples in float are float_pic.h's.
 *
 * psnr of the luma plane: each sample's difference is formed in float and
 * squared in float, and that float square is added into one double, pixel by
 * pixel in raster order. That sum rounds nowhere while its total stays below
 * 2^(53-q), q the depth's fraction bits (2^53 for 8 bits; see "Exact double
 * sums" below), which a device exploits; beyond, only the raster order gives
 * the CPU's double.
 * The mean is that sum divided by the int product w*h, and
 *   psnr = min(10 log10(peak^2 / max(mean, 1e-10)), psnr_max)
 * with peak the largest sample on the 8-bit scale, (2^bpc - 1) / 2^(bpc-8),
 * and psnr_max = 6 bpc + 12 dB (float_psnr_constants).
 */
#ifndef TVMAF_FLOAT_PSNR_MATH_H
#define TVMAF_FLOAT_PSNR_MATH_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/float_psnr/float_pic.h"


/* The float squared difference of one sample pair (8-bit; 10..16-bit). */
TVMAF_HD float fpsnr_se8(uint8_t r, uint8_t d)
{
    const float e = float_pic_sample8(r, 0) - float_pic_sample8(d, 0);
    return e * e;
}

TVMAF_HD float fpsnr_se16(uint16_t r, uint16_t d, float divisor)
{
    const float e = float_pic_sample16(r, divisor, 0) - float_pic_sample16(d, divisor, 0);
    return e * e;
}

/* The double sums below are the host's (and CUDA's) side: an fp64-free
 * OpenCL program (core/hd.h, TVMAF_FP64_FREE) has only the unit sums, and
 * the host turns their totals into the doubles (fpsnr_finish). */
#if !defined(TVMAF_FP64_FREE)
/* Adds the float squared differences of one row of 8-bit samples into the
 * running double sum `acc`, left to right, and returns the new sum. */
TVMAF_HD double fpsnr_row_noise8(TVMAF_GLOBAL const uint8_t *ref, TVMAF_GLOBAL const uint8_t *dis,
                                 unsigned w, double acc)
{
    for (unsigned j = 0; j < w; j++) acc += fpsnr_se8(ref[j], dis[j]);
    return acc;
}

/* The same for 10..16-bit samples. */
TVMAF_HD double fpsnr_row_noise16(TVMAF_GLOBAL const uint16_t *ref,
                                  TVMAF_GLOBAL const uint16_t *dis, unsigned w, float divisor,
                                  double acc)
{
    for (unsigned j = 0; j < w; j++) acc += fpsnr_se16(ref[j], dis[j], divisor);
    return acc;
}

/* The plane's double sum of squared differences, the CPU's loop: row after
 * row into one accumulator (rows `stride` bytes apart). */
TVMAF_HD double fpsnr_plane_noise(TVMAF_GLOBAL const unsigned char *ref,
                                  TVMAF_GLOBAL const unsigned char *dis, ptrdiff_t ref_stride,
                                  ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                                  float divisor)
{
    double noise = 0.;
    for (unsigned i = 0; i < h; i++, ref += ref_stride, dis += dis_stride) {
        if (bpc == 8)
            noise = fpsnr_row_noise8(ref, dis, w, noise);
        else
            noise = fpsnr_row_noise16((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)ref,
                                      (TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)dis,
                                      w, divisor, noise);
    }
    return noise;
}
#endif /* !TVMAF_FP64_FREE */

/*
 * Exact double sums of float picture terms (the CUDA twins of float_psnr and
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
 * (float_psnr_kernels.h); one more work-item folds the rows and, where a
 * total saturated, runs the CPU's sequential loop. */
#define FPIC_THREADS 256

/* What work-item t of a row's group adds: the units of its samples' squared
 * differences (8-bit; 10..16-bit), saturated at limit. */
TVMAF_HD uint64_t fpsnr_lane_units8(TVMAF_GLOBAL const uint8_t *ref,
                                    TVMAF_GLOBAL const uint8_t *dis, unsigned t, unsigned w,
                                    uint64_t limit)
{
    uint64_t s = 0; /* integer squares: q = 0 */
    for (unsigned x = t; x < w; x += FPIC_THREADS)
        s = fpic_units_add(s, fpic_units(fpsnr_se8(ref[x], dis[x]), 0), limit);
    return s;
}

TVMAF_HD uint64_t fpsnr_lane_units16(TVMAF_GLOBAL const uint16_t *ref,
                                     TVMAF_GLOBAL const uint16_t *dis, unsigned t, unsigned w,
                                     float divisor, uint64_t limit)
{
    const unsigned q = fpic_frac_bits(divisor, 2);
    uint64_t s = 0;
    for (unsigned x = t; x < w; x += FPIC_THREADS)
        s = fpic_units_add(s, fpic_units(fpsnr_se16(ref[x], dis[x], divisor), q), limit);
    return s;
}

#if !defined(TVMAF_FP64_FREE)
/* The plane's noise sum from the saturated total of its units: exact below
 * the limit, else the CPU's sequential loop (on the device with CUDA's caps,
 * on the host's pictures otherwise). */
TVMAF_HD double fpsnr_finish(uint64_t total, uint64_t limit, TVMAF_GLOBAL const unsigned char *ref,
                             TVMAF_GLOBAL const unsigned char *dis, ptrdiff_t ref_stride,
                             ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                             float divisor)
{
    return total < limit ? fpic_units_value(total, bpc == 8 ? 0 : fpic_frac_bits(divisor, 2))
                         : fpsnr_plane_noise(ref, dis, ref_stride, dis_stride, w, h, bpc, divisor);
}

/* Peak sample value and psnr clamp on the 8-bit scale, per bit depth; 0 for a
 * depth the float extractors do not support. Shared with float_ansnr. */
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

#if !TVMAF_DEVICE_CODE
#include <math.h>

/* psnr from the plane's double sum of squared differences. */
static inline double fpsnr_db(double noise_sum, int w, int h, double peak, double psnr_max)
{
    const double mean = noise_sum / (w * h);
    const double floor_ = 1e-10;
    const double v = 10 * log10(peak * peak / (mean > floor_ ? mean : floor_));
    return v < psnr_max ? v : psnr_max;
}
#endif

#endif
