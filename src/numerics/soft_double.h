/*
 * IEEE 754 binary64 arithmetic in 64-bit integers, for OpenCL programs that
 * may not use double (TVMAF_FP64_FREE) but must reproduce the reference's
 * double expressions bit for bit. A tvmaf_sd is a double's bit pattern; the
 * operations return the bit pattern the host's double operation returns,
 * rounding to nearest, ties to even, with no fused steps:
 *   tvmaf_sd_add, tvmaf_sd_sub, tvmaf_sd_mul, tvmaf_sd_div   a OP b
 *   tvmaf_sd_sqrt                                          sqrt(a)
 *   tvmaf_sd_from_float                                    (double)f, exact
 *   tvmaf_sd_to_float                                      (float)d
 *   tvmaf_sd_from_int32, tvmaf_sd_to_int32, tvmaf_sd_to_int64 (truncating),
 *   tvmaf_sd_rint,
 *   tvmaf_sd_lt, tvmaf_sd_le                               as C does them
 * Every finite input is handled (zeros and subnormals included), results
 * overflow to infinity and underflow through the subnormals as IEEE says.
 * Infinities and NaNs follow IEEE's rules for the sign and the invalid cases;
 * a NaN result is the default quiet NaN with the sign x86 gives an invalid
 * operation (negative), and a NaN input's payload is not preserved (the
 * twins' arithmetic never meets one; the test checks NaN-ness only).
 * tests/test_soft_double.c holds every operation against the host's double.
 */
#ifndef TVMAF_NUMERICS_SOFT_DOUBLE_H
#define TVMAF_NUMERICS_SOFT_DOUBLE_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"
#include "numerics/float_bits.h"

typedef uint64_t tvmaf_sd;

#define TVMAF_SD_SIGN (UINT64_C(1) << 63)
#define TVMAF_SD_FRAC ((UINT64_C(1) << 52) - 1)
#define TVMAF_SD_INF (UINT64_C(0x7ff) << 52)
#define TVMAF_SD_QNAN (TVMAF_SD_SIGN | TVMAF_SD_INF | (UINT64_C(1) << 51))
#define TVMAF_SD_ONE UINT64_C(0x3ff0000000000000) /* 1.0 */

/* Leading zero bits of a non-zero x. */
TVMAF_HD int tvmaf_clz64(uint64_t x)
{
#if defined(__OPENCL_VERSION__)
    return (int)clz(x);
#elif TVMAF_DEVICE_CODE
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

/* A finite value as m * 2^e (m < 2^53, 0 for a zero); the exponent field is
 * returned (2047: infinity or NaN, m then holds the fraction). */
TVMAF_HD int tvmaf_sd_unpack(tvmaf_sd a, uint64_t *m, int *e)
{
    const int field = (int)((a >> 52) & 0x7ff);
    const uint64_t frac = a & TVMAF_SD_FRAC;
    *m = field ? frac | (UINT64_C(1) << 52) : frac;
    *e = (field ? field : 1) - 1075;
    if (field == 2047) *m = frac;
    return field;
}

/*
 * Rounds m * 2^e (+ a positive amount below 2^e where sticky) to p
 * significant bits with its lowest bit at 2^lsb_min or above; returns the
 * rounded significand q, the value being q * 2^(*lsb), q < 2^p (a carry out
 * of the rounding is folded back). m is not zero.
 */
TVMAF_HD uint64_t tvmaf_sd_round(uint64_t m, int e, int sticky, int p, int lsb_min, int *lsb)
{
    const int top = e + 63 - tvmaf_clz64(m); /* floor(log2) of the value */
    int l = top - (p - 1);
    if (l < lsb_min) l = lsb_min;
    const int shift = l - e; /* low bits of m dropped */
    uint64_t q;
    if (shift <= 0) {
        q = m << -shift; /* exact: m has at most p bits here */
    } else {
        uint64_t rem, tie;
        if (shift >= 64) {
            q = 0;
            /* m < 2^64 <= 2^(shift - 1) unless shift == 64 */
            rem = shift == 64 ? m : 0;
            tie = shift == 64 ? (UINT64_C(1) << 63) : 1;
            sticky |= shift > 64;
        } else {
            q = m >> shift;
            rem = m & ((UINT64_C(1) << shift) - 1);
            tie = UINT64_C(1) << (shift - 1);
        }
        if (rem > tie || (rem == tie && (sticky || (q & 1)))) q++;
    }
    if (q >> p) {
        q >>= 1;
        l++;
    }
    *lsb = l;
    return q;
}

/* q * 2^lsb (q < 2^53 from tvmaf_sd_round with p 53, lsb_min -1074) with
 * the sign s, as double bits; infinity where it exceeds the largest. */
TVMAF_HD tvmaf_sd tvmaf_sd_pack(uint64_t s, uint64_t q, int lsb)
{
    if (q >> 52 && lsb + 1075 >= 2047) return s | TVMAF_SD_INF;
    return s | (((uint64_t)(lsb + 1074) << 52) + q); /* q's bit 52 moves the field up by one */
}

TVMAF_HD tvmaf_sd tvmaf_sd_round_pack(uint64_t s, uint64_t m, int e, int sticky)
{
    int lsb;
    const uint64_t q = tvmaf_sd_round(m, e, sticky, 53, -1074, &lsb);
    return q ? tvmaf_sd_pack(s, q, lsb) : s;
}

TVMAF_HD tvmaf_sd tvmaf_sd_from_float(float f)
{
    const uint32_t u = tvmaf_f2bits(f);
    const uint64_t s = (uint64_t)(u >> 31) << 63;
    const int field = (int)((u >> 23) & 0xff);
    const uint64_t frac = u & 0x7fffffu;
    if (field == 255) return s | TVMAF_SD_INF | (frac << 29);
    if (field == 0 && frac == 0) return s;
    const uint64_t m = field ? frac | 0x800000u : frac;
    return tvmaf_sd_round_pack(s, m, (field ? field : 1) - 150, 0); /* exact */
}

TVMAF_HD float tvmaf_sd_to_float(tvmaf_sd a)
{
    uint64_t m;
    int e;
    const uint32_t s = (uint32_t)(a >> 63) << 31;
    const int field = tvmaf_sd_unpack(a, &m, &e);
    if (field == 2047) return tvmaf_bits2f(s | 0x7f800000u | (m ? 0x400000u : 0));
    if (!m) return tvmaf_bits2f(s);
    int lsb;
    const uint64_t q = tvmaf_sd_round(m, e, 0, 24, -149, &lsb);
    if (!q) return tvmaf_bits2f(s);
    if (q >> 23 && lsb + 150 >= 255) return tvmaf_bits2f(s | 0x7f800000u);
    return tvmaf_bits2f(s | (((uint32_t)(lsb + 149) << 23) + (uint32_t)q));
}

TVMAF_HD tvmaf_sd tvmaf_sd_add(tvmaf_sd a, tvmaf_sd b)
{
    uint64_t ma, mb;
    int ea, eb;
    uint64_t sa = a & TVMAF_SD_SIGN, sb = b & TVMAF_SD_SIGN;
    const int fa = tvmaf_sd_unpack(a, &ma, &ea), fb = tvmaf_sd_unpack(b, &mb, &eb);
    if (fa == 2047 || fb == 2047) {
        if ((fa == 2047 && ma) || (fb == 2047 && mb)) return TVMAF_SD_QNAN;
        if (fa == 2047 && fb == 2047) return sa == sb ? a : TVMAF_SD_QNAN;
        return fa == 2047 ? a : b;
    }
    if (!mb) return ma ? a : (sa & sb); /* -0 + -0 is -0, any other zero sum +0 */
    if (!ma) return b;
    /* ten guard bits, a the larger exponent */
    ma <<= 10;
    mb <<= 10;
    ea -= 10;
    eb -= 10;
    if (ea < eb || (ea == eb && ma < mb)) {
        uint64_t t = ma;
        ma = mb;
        mb = t;
        int te = ea;
        ea = eb;
        eb = te;
        t = sa;
        sa = sb;
        sb = t;
    }
    const int d = ea - eb;
    int sticky = 0;
    if (d >= 64) {
        sticky = 1;
        mb = 0;
    } else if (d > 0) {
        sticky = (mb & ((UINT64_C(1) << d) - 1)) != 0;
        mb >>= d;
    }
    if (sa == sb) return tvmaf_sd_round_pack(sa, ma + mb, ea, sticky);
    /* |a| > |b|: the part of b below 2^ea makes the difference smaller, so
     * it is (ma - mb - 1) plus a positive amount below one unit */
    const uint64_t diff = ma - mb - (uint64_t)sticky;
    return diff ? tvmaf_sd_round_pack(sa, diff, ea, sticky) : 0;
}

TVMAF_HD tvmaf_sd tvmaf_sd_sub(tvmaf_sd a, tvmaf_sd b)
{
    /* a NaN b keeps NaN (its sign is not kept anyway) */
    return tvmaf_sd_add(a, b ^ TVMAF_SD_SIGN);
}

/* m normalised to bit 52 (m not zero), e adjusted */
TVMAF_HD void tvmaf_sd_norm53(uint64_t *m, int *e)
{
    const int z = tvmaf_clz64(*m) - 11;
    *m <<= z;
    *e -= z;
}

TVMAF_HD tvmaf_sd tvmaf_sd_mul(tvmaf_sd a, tvmaf_sd b)
{
    uint64_t ma, mb;
    int ea, eb;
    const uint64_t s = (a ^ b) & TVMAF_SD_SIGN;
    const int fa = tvmaf_sd_unpack(a, &ma, &ea), fb = tvmaf_sd_unpack(b, &mb, &eb);
    if (fa == 2047 || fb == 2047) {
        if ((fa == 2047 && ma) || (fb == 2047 && mb)) return TVMAF_SD_QNAN;
        if ((fa != 2047 && !ma) || (fb != 2047 && !mb)) return TVMAF_SD_QNAN; /* 0 x inf */
        return s | TVMAF_SD_INF;
    }
    if (!ma || !mb) return s;
    tvmaf_sd_norm53(&ma, &ea);
    tvmaf_sd_norm53(&mb, &eb);
    /* the 106-bit product as hi:lo, from 32-bit halves */
    const uint64_t a0 = ma & 0xffffffffu, a1 = ma >> 32, b0 = mb & 0xffffffffu, b1 = mb >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    const uint64_t lo = (mid << 32) | (p00 & 0xffffffffu);
    const uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    /* the product is in [2^104, 2^106): keep its top 64 bits, the rest sticky */
    const uint64_t top = (hi << 22) | (lo >> 42);
    const int sticky = (lo & ((UINT64_C(1) << 42) - 1)) != 0;
    return tvmaf_sd_round_pack(s, top, ea + eb + 42, sticky);
}

TVMAF_HD tvmaf_sd tvmaf_sd_div(tvmaf_sd a, tvmaf_sd b)
{
    uint64_t ma, mb;
    int ea, eb;
    const uint64_t s = (a ^ b) & TVMAF_SD_SIGN;
    const int fa = tvmaf_sd_unpack(a, &ma, &ea), fb = tvmaf_sd_unpack(b, &mb, &eb);
    if (fa == 2047 || fb == 2047) {
        if ((fa == 2047 && ma) || (fb == 2047 && mb)) return TVMAF_SD_QNAN;
        if (fa == 2047 && fb == 2047) return TVMAF_SD_QNAN; /* inf / inf */
        return fa == 2047 ? s | TVMAF_SD_INF : s;            /* inf / x, x / inf */
    }
    if (!mb) return ma ? s | TVMAF_SD_INF : TVMAF_SD_QNAN; /* x / 0, 0 / 0 */
    if (!ma) return s;
    tvmaf_sd_norm53(&ma, &ea);
    tvmaf_sd_norm53(&mb, &eb);
    if (ma < mb) {
        ma <<= 1;
        ea--;
    }
    /* ma / mb in [1, 2): 54 quotient bits by restoring division, the
     * remainder's non-zero-ness as sticky */
    uint64_t q = 0, r = ma;
    for (int i = 0; i < 54; i++) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1;
        }
        r <<= 1;
    }
    return tvmaf_sd_round_pack(s, q, ea - eb - 53, r != 0);
}

/* sqrt(a), correctly rounded as IEEE requires of it: -0 gives -0, a
 * negative or a NaN the default NaN, +inf +inf */
TVMAF_HD tvmaf_sd tvmaf_sd_sqrt(tvmaf_sd a)
{
    uint64_t m;
    int e;
    const int field = tvmaf_sd_unpack(a, &m, &e);
    if (field == 2047 && m) return TVMAF_SD_QNAN;
    if (!(a & ~TVMAF_SD_SIGN)) return a; /* a zero keeps its sign */
    if (a & TVMAF_SD_SIGN) return TVMAF_SD_QNAN;
    if (field == 2047) return a;
    tvmaf_sd_norm53(&m, &e);
    if (e & 1) { /* an even exponent: m in [2^52, 2^54) */
        m <<= 1;
        e--;
    }
    /* r = floor(sqrt(m 2^56)), 55 bits, digit by digit from the top pair of
     * bits down; the remainder stays below 2 r + 1 < 2^56, the bits of
     * m 2^56 below 2^56 are zeros */
    uint64_t r = 0, rem = 0;
    for (int j = 54; j >= 0; j--) {
        const uint64_t pair = j >= 28 ? (m >> (2 * j - 56)) & 3 : 0;
        rem = (rem << 2) | pair;
        const uint64_t trial = (r << 2) | 1;
        r <<= 1;
        if (rem >= trial) {
            rem -= trial;
            r |= 1;
        }
    }
    return tvmaf_sd_round_pack(0, r, (e - 56) / 2, rem != 0);
}

/* (double)x, exact */
TVMAF_HD tvmaf_sd tvmaf_sd_from_int32(int32_t x)
{
    const uint64_t s = x < 0 ? TVMAF_SD_SIGN : 0;
    const uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)(int64_t)x : (uint64_t)x;
    return m ? tvmaf_sd_round_pack(s, m, 0, 0) : 0;
}

/* a < b and a <= b as the host's double compares (false where either is a NaN;
 * -0 equals +0) */
TVMAF_HD int tvmaf_sd_isnan(tvmaf_sd a)
{
    return (a & ~TVMAF_SD_SIGN) > TVMAF_SD_INF;
}

/* the bit patterns as integers in the order of their values (-0 just below +0) */
TVMAF_HD uint64_t tvmaf_sd_order(tvmaf_sd a)
{
    return a & TVMAF_SD_SIGN ? ~a : a | TVMAF_SD_SIGN;
}

TVMAF_HD int tvmaf_sd_lt(tvmaf_sd a, tvmaf_sd b)
{
    if (tvmaf_sd_isnan(a) || tvmaf_sd_isnan(b)) return 0;
    if (!((a | b) & ~TVMAF_SD_SIGN)) return 0; /* two zeros */
    return tvmaf_sd_order(a) < tvmaf_sd_order(b);
}

TVMAF_HD int tvmaf_sd_le(tvmaf_sd a, tvmaf_sd b)
{
    if (tvmaf_sd_isnan(a) || tvmaf_sd_isnan(b)) return 0;
    return !tvmaf_sd_lt(b, a);
}

/* rint(a) in the default mode: to the nearest integer, ties to even; the sign
 * of a zero result is a's */
TVMAF_HD tvmaf_sd tvmaf_sd_rint(tvmaf_sd a)
{
    uint64_t m;
    int e;
    if (tvmaf_sd_unpack(a, &m, &e) == 2047 || !m || e >= 0) return a;
    int lsb;
    const uint64_t q = tvmaf_sd_round(m, e, 0, 53, 0, &lsb);
    /* q * 2^lsb is an integer below 2^53: packed exactly */
    return q ? tvmaf_sd_round_pack(a & TVMAF_SD_SIGN, q, lsb, 0) : a & TVMAF_SD_SIGN;
}

/* (int64_t)a for a finite a whose integer part is in int64's range (as C:
 * the fraction dropped) */
TVMAF_HD int64_t tvmaf_sd_to_int64(tvmaf_sd a)
{
    uint64_t m;
    int e;
    tvmaf_sd_unpack(a, &m, &e);
    const uint64_t t = e >= 0 ? m << e : (e <= -64 ? 0 : m >> -e);
    return (int64_t)(a & TVMAF_SD_SIGN ? (uint64_t)0 - t : t);
}

/* (int32_t)a for a finite a whose integer part is in int32's range */
TVMAF_HD int32_t tvmaf_sd_to_int32(tvmaf_sd a)
{
    return (int32_t)tvmaf_sd_to_int64(a);
}

#endif
