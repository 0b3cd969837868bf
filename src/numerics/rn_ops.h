/*
 * Floating-point operations with their rounding spelled out, for arithmetic
 * that is compiled both as host C and as CUDA and must give the same bits.
 *
 * Each function is one IEEE-754 operation rounded to nearest-even (fma: one
 * rounding of the exact a*b+c). On the device they are the _rn intrinsics,
 * which the compiler never fuses or reorders, whatever --fmad says. On the host
 * they are plain C operators and libm's fma(), which is correctly rounded
 * (hardware FMA or glibc's exact emulation); host code including this header
 * must be compiled with -ffp-contract=off and without fast-math (the project
 * does so) so that a*b + c is never fused behind our back.
 */
#ifndef TVMAF_NUMERICS_RN_OPS_H
#define TVMAF_NUMERICS_RN_OPS_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"

TVMAF_HD double tvmaf_dmul_rn(double a, double b)
{
#if TVMAF_DEVICE_CODE
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

TVMAF_HD double tvmaf_dadd_rn(double a, double b)
{
#if TVMAF_DEVICE_CODE
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

TVMAF_HD double tvmaf_dsub_rn(double a, double b)
{
#if TVMAF_DEVICE_CODE
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

TVMAF_HD double tvmaf_dfma_rn(double a, double b, double c)
{
#if TVMAF_DEVICE_CODE
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

/* double -> float, rounded to nearest-even (subnormal and overflow included) */
TVMAF_HD float tvmaf_d2f_rn(double a)
{
#if TVMAF_DEVICE_CODE
    return __double2float_rn(a);
#else
    return (float)a;
#endif
}

TVMAF_HD uint64_t tvmaf_dbits(double a)
{
#if TVMAF_DEVICE_CODE
    return (uint64_t)__double_as_longlong(a);
#else
    uint64_t u;
    memcpy(&u, &a, sizeof(u));
    return u;
#endif
}

TVMAF_HD double tvmaf_dfrombits(uint64_t u)
{
#if TVMAF_DEVICE_CODE
    return __longlong_as_double((long long)u);
#else
    double a;
    memcpy(&a, &u, sizeof(a));
    return a;
#endif
}

/*
 * a * b = *hi + *lo exactly, with *hi = RN(a * b). Exact whenever the product
 * neither overflows nor comes within 2^53 of the double underflow threshold
 * (|a * b| >= 2^-969 suffices).
 */
TVMAF_HD void tvmaf_two_prod(double a, double b, double *hi, double *lo)
{
    const double h = tvmaf_dmul_rn(a, b);
    *hi = h;
    *lo = tvmaf_dfma_rn(a, b, -h);
}

/*
 * a + b = *hi + *lo exactly, with *hi = RN(a + b), provided |a| >= |b| or
 * a == 0 (Dekker's fast two-sum; the caller guarantees the order).
 */
TVMAF_HD void tvmaf_fast_two_sum(double a, double b, double *hi, double *lo)
{
    const double h = tvmaf_dadd_rn(a, b);
    *hi = h;
    *lo = tvmaf_dsub_rn(b, tvmaf_dsub_rn(h, a));
}

#endif
