/*
 * The sample divisor: the float extractors work on the 8-bit scale, so a
 * deeper sample v becomes (float)v / 2^(bpc-8), a float division, as the
 * reference computes it. The divisor is a power of two and v is below 2^16,
 * so the quotient is exact.
 */
#ifndef TVMAF_FEATURE_COMMON_SAMPLE_H
#define TVMAF_FEATURE_COMMON_SAMPLE_H

#include "core/hd.h"

/* 2^(bpc-8) for the depths the reference converts: 1 for 8 bits (whose
 * samples are read as bytes and never divided), 4, 16 and 256 for 10, 12
 * and 16 bits; 0 for any other depth, which the float extractors refuse. */
TVMAF_HD float sample_divisor(unsigned bpc)
{
    return bpc == 8 ? 1.0f : bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 0.0f;
}

#endif
