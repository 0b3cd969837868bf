/*
 * float_moment: the arithmetic, written once for the CPU extractor (and a
 * later device twin).
 *
 * First and second moments (mean and mean square) of the reference's and the
 * distorted's luma, from the float samples of float_psnr_math.h (8-bit scale,
 * no offset). Each moment has its own double accumulator fed pixel by pixel in
 * raster order: the first with the float sample, the second with the float
 * square of the sample (a float product, which rounds at 16 bits). The sum is
 * divided by the int product w*h.
 *
 * Up to 12 bits every added term is a multiple of 2^-8 below 2^16 and the
 * double sums are exact in any order; at 16 bits the squares can round and
 * the second moments must be added in raster order.
 */
#ifndef TVMAF_FLOAT_MOMENT_MATH_H
#define TVMAF_FLOAT_MOMENT_MATH_H

#include <stdint.h>

#include "core/hd.h"
#include "feature/float_psnr/float_psnr_math.h"

/* Running sums of one picture: sum of samples, sum of squared samples. */
typedef struct FMomentSums {
    double s1, s2;
} FMomentSums;

TVMAF_HD void fmoment_add(FMomentSums *m, float v)
{
    m->s1 += v;
    m->s2 += v * v;
}

TVMAF_HD void fmoment_row8(const uint8_t *p, unsigned w, FMomentSums *m)
{
    for (unsigned j = 0; j < w; j++) fmoment_add(m, float_pic_sample8(p[j], 0));
}

TVMAF_HD void fmoment_row16(const uint16_t *p, unsigned w, float divisor, FMomentSums *m)
{
    for (unsigned j = 0; j < w; j++) fmoment_add(m, float_pic_sample16(p[j], divisor, 0));
}

/* A moment from its sum. */
TVMAF_HD double fmoment_mean(double sum, int w, int h)
{
    return sum / (w * h);
}

#endif
