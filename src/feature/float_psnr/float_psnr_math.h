/*
 * float_psnr: the arithmetic, written once for the CPU extractor (and a later
 * device twin). Also the home of the float "picture" conversion that the
 * float extractors float_psnr, float_ansnr and float_moment share.
 *
 * Samples in float, on the 8-bit scale. An 8-bit sample becomes (float)v
 * plus an integer offset; a deeper sample is first divided in float by
 * 2^(bpc-8) (4, 16 or 256), then offset. Every step is exact (a power-of-two
 * division of an integer below 2^16, then adding a small integer), but it is
 * written as the reference computes it, a float division followed by a float
 * addition.
 *
 * psnr of the luma plane: each sample's difference is formed in float and
 * squared in float, and that float square is added into one double, pixel by
 * pixel in raster order. Up to 12 bits the squares are multiples of 2^-8 below
 * 2^16, so the double sum is exact whatever the order; at 16 bits the float
 * square can round (a 32-bit integer product) and the double sum may then
 * round too, so a device must keep the raster order (or store the float
 * squares and let the host add them in that order).
 * The mean is that sum divided by the int product w*h, and
 *   psnr = min(10 log10(peak^2 / max(mean, 1e-10)), psnr_max)
 * with peak the largest sample on the 8-bit scale, (2^bpc - 1) / 2^(bpc-8),
 * and psnr_max = 6 bpc + 12 dB (float_psnr_constants).
 */
#ifndef TVMAF_FLOAT_PSNR_MATH_H
#define TVMAF_FLOAT_PSNR_MATH_H

#include <stdint.h>

#include "core/hd.h"

/* The float divisor that brings a bpc-bit sample to the 8-bit scale; 8-bit
 * samples are not divided at all (see float_pic_sample8). */
TVMAF_HD float float_pic_divisor(unsigned bpc)
{
    return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 1.0f;
}

TVMAF_HD float float_pic_sample8(uint8_t v, int offset)
{
    return (float)v + offset;
}

TVMAF_HD float float_pic_sample16(uint16_t v, float divisor, int offset)
{
    return (float)v / divisor + offset;
}

/* Adds the float squared differences of one row of 8-bit samples into the
 * running double sum `acc`, left to right, and returns the new sum. */
TVMAF_HD double fpsnr_row_noise8(const uint8_t *ref, const uint8_t *dis, unsigned w, double acc)
{
    for (unsigned j = 0; j < w; j++) {
        const float e = float_pic_sample8(ref[j], 0) - float_pic_sample8(dis[j], 0);
        acc += e * e;
    }
    return acc;
}

/* The same for 10..16-bit samples. */
TVMAF_HD double fpsnr_row_noise16(const uint16_t *ref, const uint16_t *dis, unsigned w,
                                  float divisor, double acc)
{
    for (unsigned j = 0; j < w; j++) {
        const float e = float_pic_sample16(ref[j], divisor, 0) -
                        float_pic_sample16(dis[j], divisor, 0);
        acc += e * e;
    }
    return acc;
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
