/* A float's bit pattern and back, on the host and on the device. */
#ifndef TVMAF_NUMERICS_FLOAT_BITS_H
#define TVMAF_NUMERICS_FLOAT_BITS_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"

TVMAF_HD uint32_t tvmaf_f2bits(float x)
{
#if defined(__OPENCL_VERSION__)
    return as_uint(x);
#elif TVMAF_DEVICE_CODE
    return (uint32_t)__float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof(u));
    return u;
#endif
}

TVMAF_HD float tvmaf_bits2f(uint32_t u)
{
#if defined(__OPENCL_VERSION__)
    return as_float(u);
#elif TVMAF_DEVICE_CODE
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof(x));
    return x;
#endif
}

/* 2^n as a float, n in [-126, 127] (normal). */
TVMAF_HD float tvmaf_pow2f(int n)
{
    return tvmaf_bits2f((uint32_t)(n + 127) << 23);
}

/* The exponent of a float, floor(log2 |x|); -127 for 0 and subnormals. */
TVMAF_HD int tvmaf_ilogbf(float x)
{
    return (int)((tvmaf_f2bits(x) >> 23) & 0xffu) - 127;
}

#endif
