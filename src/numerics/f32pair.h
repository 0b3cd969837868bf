/*
 * fp32 pairs: a value hi + lo held in two floats, for devices without fp64
 * (OpenCL twins) that follow a computation the reference does in double.
 * Compiles as host C (tests, host replays), as OpenCL C and as CUDA.
 *
 * A pair is normalised: hi = RN(hi + lo), so |lo| <= ulp(hi) / 2 and the
 * float nearest to the pair's value is hi itself. That is how a pair meets the
 * reference's `(float)some_double`: the float of the pair is tvmaf_f2_f(x) =
 * x.hi, rounded once. A pair carries about 48 significant bits against
 * fp64's 53; where the reference's double and the pair's value lie on two
 * sides of a float rounding boundary, the floats differ by one step. That is
 * the residual of a pair evaluation, and it is rare: the bounds below are
 * 2^-44 or better, and tests/test_f32pair.c measures them.
 *
 * Every operation is built from IEEE float operations rounded to nearest
 * (+ - * / sqrt and fma, each one rounding; rint): the same bits on the host
 * and on any device whose float division and square root are correctly
 * rounded (OpenCL builds with -cl-fp32-correctly-rounded-divide-sqrt where the
 * device supports it). The transcendentals therefore start from their own
 * float approximations, never from the platform's cbrt/pow/atan2, whose
 * results differ between libraries: a host replay of a kernel built on this
 * header gives the device's bits. Host code must be compiled with
 * -ffp-contract=off (core/hd.h turns contraction off in OpenCL C).
 *
 * Error bounds (relative to the exact function of the pair's exact value,
 * measured by tests/test_f32pair.c against long double over the arguments
 * ciede meets; u = 2^-24):
 *   add, sub            3 u^2      (Joldes, Muller, Popescu 2017, AccurateDWPlusDW)
 *   mul                 5 u^2      (DWTimesDW2 of the same paper)
 *   mul_f               2 u^2
 *   div                 2^-45      (three float quotients of the residuals)
 *   sqrt                2^-45.5
 *   cbrt, root5, pow2_4 about 2^-45 (two Newton steps in pairs)
 *   exp                 about 2^-46 for results >= 2^-100 (see tvmaf_f2_exp)
 *   sin, cos            about 2^-46 relative to max(|result|, |reduced arg|)
 *   atan2               about 2^-45
 */
#ifndef TVMAF_NUMERICS_F32PAIR_H
#define TVMAF_NUMERICS_F32PAIR_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"

typedef struct TvmafF2 {
    float hi, lo;
} TvmafF2;

typedef struct TvmafF2SinCos {
    TvmafF2 s, c;
} TvmafF2SinCos;

/* The float operations that are not C operators, correctly rounded. */
TVMAF_HD float tvmaf_f2_fma(float a, float b, float c)
{
#if defined(__OPENCL_VERSION__)
    return fma(a, b, c);
#elif defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}

TVMAF_HD float tvmaf_f2_fsqrt(float a)
{
#if defined(__OPENCL_VERSION__)
    return sqrt(a);
#elif defined(__CUDA_ARCH__)
    return __fsqrt_rn(a);
#else
    return sqrtf(a);
#endif
}

TVMAF_HD float tvmaf_f2_rint(float a)
{
#if defined(__OPENCL_VERSION__)
    return rint(a);
#else
    return rintf(a);
#endif
}

TVMAF_HD uint32_t tvmaf_f2_bits(float a)
{
#if defined(__OPENCL_VERSION__)
    return as_uint(a);
#elif defined(__CUDA_ARCH__)
    return __float_as_uint(a);
#else
    uint32_t u;
    memcpy(&u, &a, sizeof(u));
    return u;
#endif
}

TVMAF_HD float tvmaf_f2_from_bits(uint32_t u)
{
#if defined(__OPENCL_VERSION__)
    return as_float(u);
#elif defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float a;
    memcpy(&a, &u, sizeof(a));
    return a;
#endif
}

TVMAF_HD TvmafF2 tvmaf_f2(float hi, float lo)
{
    TvmafF2 r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

TVMAF_HD TvmafF2 tvmaf_f2_of(float a)
{
    return tvmaf_f2(a, 0.0f);
}

/* The float the reference's (float) cast gives, for a normalised pair. */
TVMAF_HD float tvmaf_f2_f(TvmafF2 x)
{
    return x.hi;
}

/* a + b exactly, when |a| >= |b| or a == 0 (Dekker). */
TVMAF_HD TvmafF2 tvmaf_f2_fast_two_sum(float a, float b)
{
    const float s = a + b;
    return tvmaf_f2(s, b - (s - a));
}

/* a + b exactly (Knuth). */
TVMAF_HD TvmafF2 tvmaf_f2_two_sum(float a, float b)
{
    const float s = a + b;
    const float bb = s - a;
    return tvmaf_f2(s, (a - (s - bb)) + (b - bb));
}

/* a * b exactly (no underflow of the low part assumed). */
TVMAF_HD TvmafF2 tvmaf_f2_two_prod(float a, float b)
{
    const float p = a * b;
    return tvmaf_f2(p, tvmaf_f2_fma(a, b, -p));
}

TVMAF_HD TvmafF2 tvmaf_f2_neg(TvmafF2 x)
{
    return tvmaf_f2(-x.hi, -x.lo);
}

/* Multiplication by a power of two (exact without underflow). */
TVMAF_HD TvmafF2 tvmaf_f2_scale(TvmafF2 x, float pow2)
{
    return tvmaf_f2(x.hi * pow2, x.lo * pow2);
}

TVMAF_HD TvmafF2 tvmaf_f2_add(TvmafF2 x, TvmafF2 y)
{
    const TvmafF2 s = tvmaf_f2_two_sum(x.hi, y.hi);
    const TvmafF2 t = tvmaf_f2_two_sum(x.lo, y.lo);
    const TvmafF2 u = tvmaf_f2_fast_two_sum(s.hi, s.lo + t.hi);
    return tvmaf_f2_fast_two_sum(u.hi, u.lo + t.lo);
}

TVMAF_HD TvmafF2 tvmaf_f2_sub(TvmafF2 x, TvmafF2 y)
{
    return tvmaf_f2_add(x, tvmaf_f2_neg(y));
}

TVMAF_HD TvmafF2 tvmaf_f2_add_f(TvmafF2 x, float b)
{
    const TvmafF2 s = tvmaf_f2_two_sum(x.hi, b);
    return tvmaf_f2_fast_two_sum(s.hi, s.lo + x.lo);
}

TVMAF_HD TvmafF2 tvmaf_f2_mul(TvmafF2 x, TvmafF2 y)
{
    const TvmafF2 p = tvmaf_f2_two_prod(x.hi, y.hi);
    const float t = tvmaf_f2_fma(x.lo, y.hi, x.hi * y.lo);
    return tvmaf_f2_fast_two_sum(p.hi, p.lo + t);
}

TVMAF_HD TvmafF2 tvmaf_f2_mul_f(TvmafF2 x, float b)
{
    const TvmafF2 p = tvmaf_f2_two_prod(x.hi, b);
    return tvmaf_f2_fast_two_sum(p.hi, tvmaf_f2_fma(x.lo, b, p.lo));
}

/* x * x of a float, exactly. */
TVMAF_HD TvmafF2 tvmaf_f2_sq_f(float a)
{
    return tvmaf_f2_two_prod(a, a);
}

/* x / y: the float quotient, then the quotient of the pair remainder. */
TVMAF_HD TvmafF2 tvmaf_f2_div(TvmafF2 x, TvmafF2 y)
{
    const float q1 = x.hi / y.hi;
    const TvmafF2 r = tvmaf_f2_sub(x, tvmaf_f2_mul_f(y, q1));
    const float q2 = r.hi / y.hi;
    const TvmafF2 r2 = tvmaf_f2_sub(r, tvmaf_f2_mul_f(y, q2));
    return tvmaf_f2_add_f(tvmaf_f2_fast_two_sum(q1, q2), r2.hi / y.hi);
}

/* sqrt(x), x >= 0: the float root and one correction from the exact residual. */
TVMAF_HD TvmafF2 tvmaf_f2_sqrt(TvmafF2 x)
{
    if (x.hi <= 0.0f) return tvmaf_f2(x.hi == 0.0f ? x.hi : tvmaf_f2_fsqrt(x.hi), 0.0f);
    const float s = tvmaf_f2_fsqrt(x.hi);
    const TvmafF2 r = tvmaf_f2_sub(x, tvmaf_f2_two_prod(s, s));
    return tvmaf_f2_fast_two_sum(s, r.hi / (2.0f * s));
}

/* x > y, x <= y between pairs (their exact values). */
TVMAF_HD int tvmaf_f2_gt(TvmafF2 x, TvmafF2 y)
{
    return x.hi > y.hi || (x.hi == y.hi && x.lo > y.lo);
}

TVMAF_HD int tvmaf_f2_le(TvmafF2 x, TvmafF2 y)
{
    return !tvmaf_f2_gt(x, y);
}

TVMAF_HD int tvmaf_f2_lt0(TvmafF2 x)
{
    return x.hi < 0.0f || (x.hi == 0.0f && x.lo < 0.0f);
}

/* ---------------------------------------------------------------- roots */

/* y^n of a pair, n = 3 or 5, in pairs. */
TVMAF_HD TvmafF2 tvmaf_f2_ipow(TvmafF2 y, int n)
{
    const TvmafF2 y2 = tvmaf_f2_mul(y, y);
    return n == 3 ? tvmaf_f2_mul(y2, y) : tvmaf_f2_mul(tvmaf_f2_mul(y2, y2), y);
}

/*
 * a^(1/n), a > 0 normal, n = 3 or 5. A float start from the exponent bits
 * (within about 10 %), float Newton steps to about one float step, then two
 * Newton steps y += (a - y^n) / (n y^(n-1)) with the residual in pairs: each
 * squares the relative error (times (n - 1) / 2), the last one is limited by
 * the pair arithmetic.
 */
TVMAF_HD TvmafF2 tvmaf_f2_root(TvmafF2 a, int n)
{
    const float fa = a.hi;
    const float inv_n = n == 3 ? 1.0f / 3.0f : 0.2f;
    const int32_t e = (int32_t)tvmaf_f2_bits(fa) - 0x3f800000;
    float y = tvmaf_f2_from_bits((uint32_t)(e / n + 0x3f800000));
    for (int i = 0; i < 6; i++) {
        const float y2 = y * y;
        const float yn1 = n == 3 ? y2 : y2 * y2; /* y^(n-1) */
        y = ((float)(n - 1) * y + fa / yn1) * inv_n;
    }
    TvmafF2 r = tvmaf_f2_of(y);
    for (int i = 0; i < 2; i++) {
        const TvmafF2 res = tvmaf_f2_sub(a, tvmaf_f2_ipow(r, n));
        const float y2 = r.hi * r.hi;
        const float yn1 = n == 3 ? y2 : y2 * y2;
        r = tvmaf_f2_add_f(r, res.hi / ((float)n * yn1));
    }
    return r;
}

/* a^(1/3), a > 0. */
TVMAF_HD TvmafF2 tvmaf_f2_cbrt(TvmafF2 a)
{
    return tvmaf_f2_root(a, 3);
}

/* x^2.4 = x^2 (x^2)^(1/5), x > 0. */
TVMAF_HD TvmafF2 tvmaf_f2_pow2_4(TvmafF2 x)
{
    const TvmafF2 x2 = tvmaf_f2_mul(x, x);
    return tvmaf_f2_mul(x2, tvmaf_f2_root(x2, 5));
}

/* ---------------------------------------------------------------- exp */

/*
 * e^x for x in [-87, 88]: x = k ln 2 + r with ln 2 in three floats (k ln2_1
 * and k ln2_2 exact as products), |r| <= 0.35, e^r by its Taylor series to
 * r^14 in pairs (the first term left out is below 2^-56), times 2^k. Below
 * -87 the result is below the normal floats: 0 is returned (ciede's one use
 * of exp then contributes nothing; see its header).
 */
TVMAF_HD TvmafF2 tvmaf_f2_exp(TvmafF2 x)
{
    if (x.hi < -87.0f) return tvmaf_f2(0.0f, 0.0f);
    const float k = tvmaf_f2_rint(x.hi * 0x1.715476p+0f);
    TvmafF2 r = tvmaf_f2_add(x, tvmaf_f2_two_prod(-k, 0x1.62e430p-1f));
    r = tvmaf_f2_add(r, tvmaf_f2_two_prod(-k, -0x1.05c610p-29f));
    r = tvmaf_f2_add_f(r, -k * -0x1.950d88p-54f);
    /* 1/j! for j = 14 down to 2 */
    const float c_hi[13] = { 0x1.93974ap-37f, 0x1.612462p-33f, 0x1.1eed8ep-29f, 0x1.ae6456p-26f,
                             0x1.27e4fcp-22f, 0x1.71de3ap-19f, 0x1.a01a02p-16f, 0x1.a01a02p-13f,
                             0x1.6c16c2p-10f, 0x1.111112p-7f, 0x1.555556p-5f, 0x1.555556p-3f,
                             0x1.0p-1f };
    const float c_lo[13] = { 0x1.180f94p-62f, -0x1.8af25ep-58f, 0x1.ff1b12p-54f,
                             0x1.fd5138p-52f, -0x1.10ec14p-47f, 0x1.55b1ccp-45f,
                             -0x1.7f97fap-42f, -0x1.7f97fap-39f, -0x1.27d27ep-35f,
                             -0x1.dddddep-32f, -0x1.555556p-30f, -0x1.555556p-28f,
                             0.0f };
    TvmafF2 p = tvmaf_f2(c_hi[0], c_lo[0]);
    for (int j = 1; j < 13; j++) p = tvmaf_f2_add(tvmaf_f2_mul(p, r), tvmaf_f2(c_hi[j], c_lo[j]));
    /* e^r = 1 + r + r^2 p */
    p = tvmaf_f2_add(tvmaf_f2_mul(tvmaf_f2_mul(p, r), r), r);
    p = tvmaf_f2_add_f(p, 1.0f);
    /* 2^k as a float: k in [-126, 127] here (|x| <= 88) */
    const int ki = (int)k;
    if (ki < -125) {
        /* two steps keep both factors normal */
        p = tvmaf_f2_scale(p, 0x1.0p-64f);
        return tvmaf_f2_scale(p, tvmaf_f2_from_bits((uint32_t)(ki + 64 + 127) << 23));
    }
    return tvmaf_f2_scale(p, tvmaf_f2_from_bits((uint32_t)(ki + 127) << 23));
}

/* ---------------------------------------------------------------- sin, cos */

/*
 * sin and cos of x, |x| < 2^10: x = k pi/2 + r with pi/2 in three floats
 * (k times the first two exact as products), |r| <= pi/4 (plus rounding),
 * Taylor series in pairs (sin to r^15, cos to r^16: the first terms left out
 * are below 2^-58), then the quadrant k mod 4.
 */
TVMAF_HD TvmafF2SinCos tvmaf_f2_sincos(TvmafF2 x)
{
    const float k = tvmaf_f2_rint(x.hi * 0x1.45f306p-1f);
    TvmafF2 r = tvmaf_f2_add(x, tvmaf_f2_two_prod(-k, 0x1.921fb6p+0f));
    r = tvmaf_f2_add(r, tvmaf_f2_two_prod(-k, -0x1.777a5cp-25f));
    r = tvmaf_f2_add_f(r, -k * -0x1.ee59dap-50f);
    const TvmafF2 z = tvmaf_f2_mul(r, r);
    /* (-1)^j / (2j+1)! for j = 7 down to 1 */
    const float s_hi[7] = { -0x1.ae7f3ep-41f, 0x1.612462p-33f, -0x1.ae6456p-26f,
                            0x1.71de3ap-19f, -0x1.a01a02p-13f, 0x1.111112p-7f, -0x1.555556p-3f };
    const float s_lo[7] = { -0x1.ccee08p-67f, -0x1.8af25ep-58f, -0x1.fd5138p-52f,
                            0x1.55b1ccp-45f, 0x1.7f97fap-39f, -0x1.dddddep-32f, 0x1.555556p-28f };
    /* (-1)^j / (2j)! for j = 8 down to 1 */
    const float c_hi[8] = { 0x1.ae7f3ep-45f, -0x1.93974ap-37f, 0x1.1eed8ep-29f, -0x1.27e4fcp-22f,
                            0x1.a01a02p-16f, -0x1.6c16c2p-10f, 0x1.555556p-5f, -0x1.0p-1f };
    const float c_lo[8] = { 0x1.ccee08p-71f, -0x1.180f94p-62f, 0x1.ff1b12p-54f,
                            0x1.10ec14p-47f, -0x1.7f97fap-42f, 0x1.27d27ep-35f,
                            -0x1.555556p-30f, 0.0f };
    TvmafF2 ps = tvmaf_f2(s_hi[0], s_lo[0]);
    for (int j = 1; j < 7; j++) ps = tvmaf_f2_add(tvmaf_f2_mul(ps, z), tvmaf_f2(s_hi[j], s_lo[j]));
    TvmafF2 pc = tvmaf_f2(c_hi[0], c_lo[0]);
    for (int j = 1; j < 8; j++) pc = tvmaf_f2_add(tvmaf_f2_mul(pc, z), tvmaf_f2(c_hi[j], c_lo[j]));
    const TvmafF2 sr = tvmaf_f2_add(r, tvmaf_f2_mul(tvmaf_f2_mul(ps, z), r));
    const TvmafF2 cr = tvmaf_f2_add_f(tvmaf_f2_mul(pc, z), 1.0f);
    const int q = (int)k & 3;
    TvmafF2SinCos out;
    out.s = q == 0 ? sr : q == 1 ? cr : q == 2 ? tvmaf_f2_neg(sr) : tvmaf_f2_neg(cr);
    out.c = q == 0 ? cr : q == 1 ? tvmaf_f2_neg(sr) : q == 2 ? tvmaf_f2_neg(cr) : sr;
    return out;
}

TVMAF_HD TvmafF2 tvmaf_f2_sin(TvmafF2 x)
{
    return tvmaf_f2_sincos(x).s;
}

TVMAF_HD TvmafF2 tvmaf_f2_cos(TvmafF2 x)
{
    return tvmaf_f2_sincos(x).c;
}

/* ---------------------------------------------------------------- atan2 */

/*
 * atan2(y, x) of two floats, not both zero, finite: C's convention (the
 * angle of the point (x, y), in [-pi, pi]). A float start t0 within 0.005 of
 * the angle (q / (1 + 0.28125 q^2) on the octant's quotient q), then
 * t = t0 + atan(d) with d = (y cos t0 - x sin t0) / (x cos t0 + y sin t0), the
 * tangent of the remaining angle, in pairs: atan(d) = d - d^3/3 + d^5/5 with
 * |d| < 0.006, the term left out below 2^-53 of |d|.
 */
TVMAF_HD TvmafF2 tvmaf_f2_atan2(float y, float x)
{
    const float ax = x < 0.0f ? -x : x, ay = y < 0.0f ? -y : y;
    const int swap = ay > ax;
    const float q = swap ? ax / ay : ay / ax;
    float t = q / (1.0f + 0.28125f * q * q);
    if (swap) t = 0x1.921fb6p+0f - t;
    if (x < 0.0f) t = 0x1.921fb6p+1f - t;
    if (y < 0.0f || (y == 0.0f && tvmaf_f2_bits(y) >> 31)) t = -t;
    if (y == 0.0f) {
        /* exactly +-0 (x > 0) or +-pi (x < 0, pi as a pair) */
        if (x > 0.0f) return tvmaf_f2_of(y);
        const TvmafF2 pi = tvmaf_f2(0x1.921fb6p+1f, -0x1.777a5cp-24f);
        return tvmaf_f2_bits(y) >> 31 ? tvmaf_f2_neg(pi) : pi;
    }
    const TvmafF2SinCos sc = tvmaf_f2_sincos(tvmaf_f2_of(t));
    const TvmafF2 num = tvmaf_f2_sub(tvmaf_f2_mul_f(sc.c, y), tvmaf_f2_mul_f(sc.s, x));
    const TvmafF2 den = tvmaf_f2_add(tvmaf_f2_mul_f(sc.c, x), tvmaf_f2_mul_f(sc.s, y));
    const TvmafF2 d = tvmaf_f2_div(num, den);
    const float d2 = d.hi * d.hi;
    const float tail = d.hi * d2 * (-1.0f / 3.0f + d2 * 0.2f);
    return tvmaf_f2_add(tvmaf_f2_add_f(tvmaf_f2_of(t), tail), d);
}

#endif
