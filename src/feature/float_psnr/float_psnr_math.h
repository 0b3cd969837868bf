/*
 * float_psnr: the arithmetic, written once for the CPU extractor and the
 * twins. The samples in float are common/float_picture.h's.
 *
 * psnr of the luma plane: each sample's difference is formed in float and
 * squared in float, and that float square is added into one double, pixel by
 * pixel in raster order. That sum rounds nowhere while its total stays below
 * 2^(53-q), q the depth's fraction bits (2^53 for 8 bits; see "Exact double
 * sums" in common/float_picture.h), which a device exploits; beyond, only the
 * raster order gives the CPU's double.
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
#include "feature/common/float_picture.h"

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
