/*
 * Correctly rounded small integer powers of float values, for host C and CUDA.
 *
 *   tvmaf_cr_powf2(x)  = powf(x, 2) rounded once to float
 *   tvmaf_cr_powf7(x)  = powf(x, 7) rounded once to float
 *   tvmaf_cr_pow7(x)   = pow(x, 7) rounded once to double, for x holding a
 *                        float value (e.g. (double)some_float)
 *
 * They are the device's stand-ins for glibc's powf/pow, which are not
 * correctly rounded; the results follow C's pow rules for these exponents
 * (signed zeros, infinities, NaN) and IEEE rounding to nearest-even,
 * subnormal results and overflow to infinity included. The same operations
 * run on host and device (see rn_ops.h), so both give the same bits.
 *
 * Why they are exact. A float is m * 2^e with m < 2^24, so x^2 has at most 48
 * significant bits: the double product is exact and one rounding to float is
 * the correctly rounded result. x^7 has up to 168 bits. It is evaluated as a
 * double-double hi + lo with |hi + lo - x^7| < 2^-102 x^7 (bound derived at
 * tvmaf_pow7_dd). That is enough because of how close x^7 can come to a
 * rounding boundary: x^7 = m^7 2^(7e), so its position relative to the float
 * (or double) grid depends on m only, away from the subnormal range. The
 * exhaustive sweep in tests/test_cr_pow.c over all 2^23 mantissas measures the
 * smallest nonzero distance of m^7 to a float midpoint (2^-47.7 relative)
 * and to a double midpoint (2^-77.3 relative), far above 2^-102; exact
 * midpoints (m^7 odd with 25 resp. 54 bits, e.g. 11^7) are computed with no
 * error at all, since every partial product then fits in a double. The same
 * test compares every float argument of interest with an exact integer
 * reference.
 *
 * Rounding hi + lo to float without double rounding: hi is first replaced by
 * its round-to-odd value (if lo != 0 and hi's last significand bit is even,
 * step one ulp towards lo). Rounding a 53-bit round-to-odd value to a format of
 * at most 51 bits gives the correctly rounded result of hi + lo (float results
 * have at most 24 bits, subnormal ones fewer); the usual double-rounding
 * failure needs the intermediate to sit exactly on a midpoint, which an odd
 * value never does unless hi + lo does.
 */
#ifndef TVMAF_NUMERICS_CR_POW_H
#define TVMAF_NUMERICS_CR_POW_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"
#include "numerics/rn_ops.h"

/*
 * a^7 as a normalised double-double: hi = RN(hi + lo), |lo| <= ulp(hi) / 2.
 * Requires: a > 0 with at most 24 significant bits, 2^-130 <= a <= 2^128
 * (so every partial product lies in [2^-910, 2^896], where two_prod is exact
 * and no rounding below is subnormal).
 *
 * Error: a^2 is exact (48 bits); a^3 = h3 + l3 and a^4 = h4 + l4 exactly;
 * h3 * h4 = ph + pl exactly. Let P = h3 * h4, so |l3| <= 2^-53 |h3|,
 * |l4| <= 2^-53 |h4|. a^7 = ph + pl + h3 l4 + l3 h4 + l3 l4. Rounding
 * h3 l4 and l3 h4 costs <= 2^-106 P each, their sum <= 2^-105 P, adding pl
 * (|pl + c| < 2^-51 P) <= 2^-104 P, the dropped l3 l4 is <= 2^-106 P: in all
 * < 2^-102.5 P, and P < (1 + 2^-52) a^7. fast_two_sum is exact.
 */
TVMAF_HD void tvmaf_pow7_dd(double a, double *hi, double *lo)
{
    double h3, l3, h4, l4, ph, pl;
    const double p2 = tvmaf_dmul_rn(a, a);
    tvmaf_two_prod(p2, a, &h3, &l3);
    tvmaf_two_prod(p2, p2, &h4, &l4);
    tvmaf_two_prod(h3, h4, &ph, &pl);
    const double cross = tvmaf_dadd_rn(tvmaf_dmul_rn(h3, l4), tvmaf_dmul_rn(l3, h4));
    const double tail = tvmaf_dadd_rn(pl, cross);
    tvmaf_fast_two_sum(ph, tail, hi, lo);
}

/* powf(x, 2), correctly rounded: the double square of a float is exact. */
TVMAF_HD float tvmaf_cr_powf2(float x)
{
    const double d = (double)x;
    return tvmaf_d2f_rn(tvmaf_dmul_rn(d, d));
}

/* powf(x, 7), correctly rounded. */
TVMAF_HD float tvmaf_cr_powf7(float x)
{
    if (x != x)
        return x + x; /* NaN in, (quiet) NaN out */
    const double d = (double)x;
    const double a = d < 0.0 ? -d : d;
    /* |x|^7 < 2^-161, below half the smallest subnormal float: zero of x's sign
     * (read from the sign bit, so that (-0)^7 = -0) */
    if (a < 0x1p-23)
        return (tvmaf_dbits(d) >> 63) ? -0.0f : 0.0f;
    /* |x|^7 >= 2^133 > FLT_MAX (infinite x included) */
    if (a >= 0x1p+19)
        return x < 0.0f ? -INFINITY : INFINITY;

    double hi, lo;
    tvmaf_pow7_dd(a, &hi, &lo);
    /* round to odd at 53 bits (hi > 0, so +-1 on the bits is one ulp up/down) */
    uint64_t bits = tvmaf_dbits(hi);
    if (lo != 0.0 && (bits & 1u) == 0)
        bits = lo > 0.0 ? bits + 1u : bits - 1u;
    const float r = tvmaf_d2f_rn(tvmaf_dfrombits(bits));
    return x < 0.0f ? -r : r;
}

/*
 * pow(x, 7), correctly rounded, for x holding a float value (any float,
 * subnormals included). For other doubles the result is close to x^7 but
 * not proven correctly rounded.
 */
TVMAF_HD double tvmaf_cr_pow7(double x)
{
    if (x != x)
        return x + x;
    const double a = x < 0.0 ? -x : x;
    if (a == 0.0 || a == INFINITY)
        return x; /* (+-0)^7 = +-0, (+-inf)^7 = +-inf */

    double hi, lo, r;
    if (a >= 0x1p-120) {
        /* a^7 >= 2^-840: a normal double, hi = RN(hi + lo) is the result */
        tvmaf_pow7_dd(a, &hi, &lo);
        r = hi;
    } else {
        /* Evaluate (a 2^64)^7 = a^7 2^448 (the scaling is exact), then scale back. */
        tvmaf_pow7_dd(tvmaf_dmul_rn(a, 0x1p+64), &hi, &lo);
        if (hi >= 0x1p-573) {
            /* a^7 >= 2^-1021 (1 - 2^-53): hi 2^-448 is normal and rounded on the
             * grid of the result's binade; the scaling is exact. */
            r = tvmaf_dmul_rn(hi, 0x1p-448);
        } else {
            /*
             * a^7 < 2^-1021: the result lies on the grid 2^-1074 (subnormal, or
             * the lowest normal binade, which has the same spacing). In units
             * of that grid, u = uh + ul = a^7 2^1074 < 2^53; round it to an
             * integer. uh = RN53(u) and half-integers below 2^52 are doubles,
             * so uh rounds like u except when uh is itself a half-integer,
             * where the sign of ul breaks the tie.
             */
            const double uh = tvmaf_dmul_rn(hi, 0x1p+626);
            const double ul = tvmaf_dmul_rn(lo, 0x1p+626);
            double n = uh;
            if (uh < 0x1p+52) {
                n = tvmaf_dsub_rn(tvmaf_dadd_rn(uh, 0x1p+52), 0x1p+52);
                const double frac = tvmaf_dsub_rn(uh, n); /* exact, in [-1/2, 1/2] */
                if (frac == 0.5 && ul > 0.0)
                    n = tvmaf_dadd_rn(n, 1.0);
                else if (frac == -0.5 && ul < 0.0)
                    n = tvmaf_dsub_rn(n, 1.0);
            }
            r = tvmaf_dmul_rn(n, 0x1p-1074); /* exact: n < 2^53 */
        }
    }
    return x < 0.0 ? -r : r;
}

#endif
