/*
 * float_moment: the arithmetic, written once for the CPU extractor and the
 * CUDA twin.
 *
 * First and second moments (mean and mean square) of the reference's and the
 * distorted's luma, from the float samples of common/float_picture.h (8-bit
 * scale, no offset). Each moment has its own double accumulator fed pixel by pixel in
 * raster order: the first with the float sample, the second with the float
 * square of the sample (a float product, which rounds at 16 bits). The sum is
 * divided by the int product w*h.
 *
 * Every term is a whole number of 2^-q units, q fixed by the depth and the
 * power (common/float_picture.h, "Exact double sums"): the twin adds units
 * as saturating integers and falls back to the CPU's loop (fmoment_plane)
 * where a total reaches the limit.
 */
#ifndef TVMAF_FLOAT_MOMENT_MATH_H
#define TVMAF_FLOAT_MOMENT_MATH_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/float_picture.h"

#if !defined(TVMAF_FP64_FREE) /* the double sums: not in fp64-free programs */
/* Running sums of one picture: sum of samples, sum of squared samples. */
typedef struct FMomentSums {
    double s1, s2;
} FMomentSums;

TVMAF_HD void fmoment_add(FMomentSums *m, float v)
{
    m->s1 += v;
    m->s2 += v * v;
}

TVMAF_HD void fmoment_row8(TVMAF_GLOBAL const uint8_t *p, unsigned w, FMomentSums *m)
{
    for (unsigned j = 0; j < w; j++) fmoment_add(m, float_pic_sample8(p[j], 0));
}

TVMAF_HD void fmoment_row16(TVMAF_GLOBAL const uint16_t *p, unsigned w, float divisor,
                            FMomentSums *m)
{
    for (unsigned j = 0; j < w; j++) fmoment_add(m, float_pic_sample16(p[j], divisor, 0));
}

/* The sums of one picture's luma, the CPU's loop: row after row (rows
 * `stride` bytes apart). */
TVMAF_HD void fmoment_plane(TVMAF_GLOBAL const unsigned char *p, ptrdiff_t stride, unsigned w,
                            unsigned h, unsigned bpc, float divisor, FMomentSums *m)
{
    for (unsigned i = 0; i < h; i++, p += stride) {
        if (bpc == 8)
            fmoment_row8(p, w, m);
        else
            fmoment_row16((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)p, w, divisor,
                          m);
    }
}
#endif /* !TVMAF_FP64_FREE */

/* The twin's decomposition (float_moment_kernels.h): as float_psnr's, one
 * group of FPIC_THREADS work-items per row, with four totals per row: the
 * units of the reference's samples and squares, then the distorted's
 * (FMOMENT_SLOTS). */
#define FMOMENT_SLOTS 4

/* Sample x of a row on the 8-bit scale (the CPU's conversion). */
TVMAF_HD float fmoment_sample(TVMAF_GLOBAL const unsigned char *row, unsigned x, unsigned bpc,
                              float divisor)
{
    return bpc == 8 ? float_pic_sample8(row[x], 0)
                    : float_pic_sample16(
                          ((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)row)[x],
                          divisor, 0);
}

/* The units of a moment's terms: 8-bit samples are integers (q = 0). */
TVMAF_HD unsigned fmoment_frac_bits(unsigned bpc, float divisor, unsigned power)
{
    return bpc == 8 ? 0u : fpic_frac_bits(divisor, power);
}

/* What work-item t of a row's group adds for one picture: the units of its
 * samples (u[0]) and of their float squares (u[1]), saturated at limit. */
TVMAF_HD void fmoment_lane_units(TVMAF_GLOBAL const unsigned char *row, unsigned t, unsigned w,
                                 unsigned bpc, float divisor, uint64_t limit, uint64_t u[2])
{
    const unsigned q1 = fmoment_frac_bits(bpc, divisor, 1), q2 = fmoment_frac_bits(bpc, divisor, 2);
    uint64_t s1 = 0, s2 = 0;
    for (unsigned x = t; x < w; x += FPIC_THREADS) {
        const float v = fmoment_sample(row, x, bpc, divisor);
        s1 = fpic_units_add(s1, fpic_units(v, q1), limit);
        s2 = fpic_units_add(s2, fpic_units(v * v, q2), limit);
    }
    u[0] = s1;
    u[1] = s2;
}

#if !defined(TVMAF_FP64_FREE)
/* One picture's sums from the saturated totals of its units: exact while
 * both are below the limit, else the CPU's loop. */
TVMAF_HD FMomentSums fmoment_finish(const uint64_t total[2], uint64_t limit,
                                    TVMAF_GLOBAL const unsigned char *p, ptrdiff_t stride,
                                    unsigned w, unsigned h, unsigned bpc, float divisor)
{
    FMomentSums m = { 0., 0. };
    if (total[0] < limit && total[1] < limit) {
        m.s1 = fpic_units_value(total[0], fmoment_frac_bits(bpc, divisor, 1));
        m.s2 = fpic_units_value(total[1], fmoment_frac_bits(bpc, divisor, 2));
    } else {
        fmoment_plane(p, stride, w, h, bpc, divisor, &m);
    }
    return m;
}

/* A moment from its sum. */
TVMAF_HD double fmoment_mean(double sum, int w, int h)
{
    return sum / (w * h);
}
#endif /* !TVMAF_FP64_FREE */

#endif
