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

#endif
