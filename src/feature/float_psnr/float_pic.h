/*
 * The float "picture" of the float extractors float_psnr, float_ansnr and
 * float_moment: samples in float, on the 8-bit scale. An 8-bit sample
 * becomes (float)v plus an integer offset; a deeper sample is first divided
 * in float by 2^(bpc-8) (4, 16 or 256), then offset. Every step is exact (a
 * power-of-two division of an integer below 2^16, then adding a small
 * integer), but it is written as the reference computes it, a float division
 * followed by a float addition. No double: the twins' programs that need
 * only this stay fp64-free.
 */
#ifndef TVMAF_FLOAT_PIC_H
#define TVMAF_FLOAT_PIC_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

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

#endif
