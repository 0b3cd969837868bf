/*
 * ciede without fp64: ciede_math.h's statements with every double held as an
 * fp32 pair (numerics/f32pair.h), for the OpenCL twin (ciede.cl) and its host
 * replay (tests/test_ciede_pair.c). Compiles as OpenCL C and as host C; the
 * program it is part of is built fp64-free (core/hd.h, TVMAF_FP64_FREE).
 *
 * Statement for statement with ciede_math.h: a float of the reference is a
 * float here, computed by the same float operation; a double is a TvmafF2, and
 * where the reference rounds a double to float ((float) casts, float
 * variables) the pair's float tvmaf_f2_f() is taken. The reference's double
 * constants are evaluated on the host from ciede_math.h's own expressions
 * (ciede_pair_constants) and reach the device in a CiedePairK buffer, so no
 * double literal appears in the kernel.
 *
 * A pair holds ~48 bits where the double holds 53 and its transcendentals
 * are within ~2^-45, so where the reference's double lies near a float
 * rounding boundary the pair's float may be the neighbouring one. Each value
 * therefore carries a bound (CiedeB below), and a pixel any of whose roundings
 * or branches the bound does not decide is left undecided: the kernel stores
 * NaN, and the host computes that pixel with the CPU's own code and libm
 * (tvmaf_ciede_decide), so every pixel's float is the CPU's. powf(x, 7) is
 * exact: glibc's, from the correctly rounded value (integer arithmetic) and
 * the build host's table (numerics/powf_table.h), as on CUDA. powf(x, 2) is
 * the float product as in ciede_math.h. pow(x, 7) of c_bar (a double in the
 * reference) is a pair.
 */
#ifndef TVMAF_CIEDE_PAIR_H
#define TVMAF_CIEDE_PAIR_H

#include "core/hd.h"
#include "feature/ciede/ciede_math.h"
#include "numerics/f32pair.h"
#include "numerics/float_bits.h"
#include "numerics/powf_table.h"

/*
 * The OpenCL twin's decomposition (ciede.cl, ciede_opencl.c and the host
 * replay tests/test_ciede_pair.c): one work-item per pixel, work-groups of
 * CIEDE_PAIR_BLOCK_W x CIEDE_PAIR_BLOCK_H; work-item (x, y) stores pixel
 * (x, y)'s dE00 at de[y w + x]. Nothing is added on the device: the host
 * reads de back and adds it with ciede_sum_raster(), the CPU's order.
 */
#define CIEDE_PAIR_BLOCK_W 32
#define CIEDE_PAIR_BLOCK_H 8

/* The reference's double constants as pairs (ciede_pair_constants). */
typedef struct CiedePairK {
    /* ciede_lab, for one bit depth */
    float off_y, off_uv;        /* 16 scale, 128 scale (exact) */
    TvmafF2 ky, kuv;            /* 1 / (219 scale), 1 / (224 scale) */
    TvmafF2 rv, gu, gv, bu;     /* 1.28033, 0.21482, 0.38059, 2.12798 */
    TvmafF2 lin_max;            /* 10 / 255 */
    TvmafF2 a055, d1055, d1292; /* 0.055, 1 / 1.055, 1 / 12.92 */
    TvmafF2 m[9];               /* RGB -> XYZ, row major */
    TvmafF2 inv_xn, inv_zn;     /* 1 / 0.95047, 1 / 1.08883 */
    TvmafF2 kappa, epsilon, inv116;
    /* ciede2000 */
    TvmafF2 p25_7;              /* 25^7 */
    TvmafF2 k015, k045;         /* 0.015, 0.045 */
    TvmafF2 pi, two_pi;
    TvmafF2 pi_6, pi_30, pi7_20; /* pi / 6, pi / 30, 7 pi / 20 */
    TvmafF2 t17, t24, t32, t20; /* 0.17, 0.24, 0.32, 0.20 */
    TvmafF2 deg;                /* 180 / pi */
    TvmafF2 inv25, rad;         /* 1 / 25, pi / 180 */
} CiedePairK;

/* The CiedePairK the kernels read (device memory in OpenCL). */
#define CIEDE_PAIR_K TVMAF_GLOBAL const CiedePairK *

/* glibc's powf(x, 7) for x >= 0: the correctly rounded value, stepped where
 * the table (device memory) lists the build host's glibc departing from it. */
TVMAF_HD float ciede_pair_powf7(float x, TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    return tvmaf_powf7_table_step(tvmaf_powf7_cr_int(x), x, tab, n);
}

/* fabsf without a library call (OpenCL C and C name it differently) */
TVMAF_HD float ciede_pair_fabs(float a)
{
    return a < 0.0f ? -a : a;
}

/*
 * ---- Bounded values: which pixels the device cannot decide ----
 *
 * A CiedeB is a pair v with a bound e such that both the pair's value and the
 * reference's double (the CPU's statements, glibc's functions) lie within e
 * of the exact value of the reference's expression (its double constants
 * taken as exact) on the same float inputs. So the CPU's double lies within
 * 2e of v, and where the reference rounds it to float, the pair's float is
 * the CPU's unless [v - 2e, v + 2e] holds a float rounding boundary: then the
 * pixel is undecided (ciede_b_round), and so is a branch whose double lies
 * within 2e of its threshold (ciede_b_gt). An undecided pixel's dE00 is
 * CIEDE_PAIR_UNDECIDED_BITS's NaN; the host computes it with the CPU's own
 * code.
 *
 * Every float the reference computes from floats is computed by the same
 * float operation here, so as long as no rounding was undecided every float
 * input of a double expression is the CPU's float exactly and each chain of
 * double operations between two float roundings starts exact (e = 0).
 *
 * Per operation, relative to the exact result of its (exact) operands:
 *   + - * of pairs and floats (Joldes, Muller, Popescu 2017; u = 2^-24;
 *   the double's 2^-53 below each): CIEDE_B_PADD 3 u^2 (AccurateDWPlusDW),
 *   CIEDE_B_PMUL 6 u^2 (DWTimesDW2), CIEDE_B_PF 2 u^2 (a pair and a float:
 *   DWPlusFP, DWTimesFP3);
 *   CIEDE_B_P_  / sqrt, the roots, x^2.4, exp, sin and cos (relative to the
 *               larger of the result and the reduced argument), atan2:
 *               the bounds tests/test_f32pair.c asserts for the pair's
 *               (over 2 to 40 million arguments each, in ciede's ranges;
 *               the largest errors it measures are 1.4 to 3.7 times below
 *               those bounds). They also bound glibc's double functions, whose
 *               goal is a few ulp: 2^-44 is 512 ulp. The pair's bounds are
 *               measured, not proven: a change of f32pair.h's functions
 *               must keep test_f32pair passing;
 *               pow(c, 1.0 / 3.0) of the reference is c^(1/3 - 1.9e-17),
 *               within 2^-53 of the cube root the pair computes (|ln c| < 5);
 *   CIEDE_B_PK  a constant's pair against the reference's double: 2^-48.
 * Input errors propagate through the operations' slopes: a division, a cube
 * root and x^2.4 first check that the relative error of the input their
 * slope depends on is below CIEDE_B_GUARD (else the pixel is undecided), so
 * the slope over the input's interval is within 2^-18 of the slope at the
 * pair's value; products carry their cross term, square roots the exact
 * bound of sqrt(a) - sqrt(b). Every bound is multiplied by CIEDE_B_UP, which
 * covers those 2^-18 and the float rounding of the bound's own arithmetic.
 */
#define CIEDE_B_PADD 0x1.8p-47f /* 3 u^2 */
#define CIEDE_B_PMUL 0x1.8p-46f /* 6 u^2 */
#define CIEDE_B_PF 0x1p-47f     /* 2 u^2 */
#define CIEDE_B_PDIV 0x1p-45f
#define CIEDE_B_PSQRT 0x1.6a09e6p-46f /* 2^-45.5 */
#define CIEDE_B_PCBRT 0x1p-45f
#define CIEDE_B_PPOW 0x1p-44f
#define CIEDE_B_PEXP 0x1p-46f
#define CIEDE_B_PTRIG 0x1p-45f
#define CIEDE_B_PATAN 0x1p-45f
#define CIEDE_B_PK 0x1p-48f
#define CIEDE_B_GUARD 0x1p-20f
#define CIEDE_B_UP 1.0001f

typedef struct CiedeB {
    TvmafF2 v;
    float e;
} CiedeB;

TVMAF_HD CiedeB ciede_b(TvmafF2 v, float e)
{
    CiedeB r;
    r.v = v;
    r.e = e * CIEDE_B_UP;
    return r;
}

TVMAF_HD float ciede_b_mag(CiedeB x)
{
    return ciede_pair_fabs(x.v.hi);
}

/* an exact value (a float of the CPU's, an exact product of floats) */
TVMAF_HD CiedeB ciede_b_exact(TvmafF2 v)
{
    CiedeB r;
    r.v = v;
    r.e = 0.0f;
    return r;
}

/* a double constant of the reference */
TVMAF_HD CiedeB ciede_b_k(TvmafF2 k)
{
    return ciede_b(k, CIEDE_B_PK * ciede_pair_fabs(k.hi));
}

/* the relative error of x is within the guard (else undecided) */
TVMAF_HD void ciede_b_guard(CiedeB x, int *undecided)
{
    if (!(x.e <= CIEDE_B_GUARD * ciede_b_mag(x))) *undecided = 1;
}

TVMAF_HD CiedeB ciede_b_add(CiedeB x, CiedeB y)
{
    const TvmafF2 v = tvmaf_f2_add(x.v, y.v);
    return ciede_b(v, x.e + y.e + CIEDE_B_PADD * ciede_pair_fabs(v.hi));
}

TVMAF_HD CiedeB ciede_b_sub(CiedeB x, CiedeB y)
{
    const TvmafF2 v = tvmaf_f2_sub(x.v, y.v);
    return ciede_b(v, x.e + y.e + CIEDE_B_PADD * ciede_pair_fabs(v.hi));
}

/* x + b, b an exact float */
TVMAF_HD CiedeB ciede_b_add_f(CiedeB x, float b)
{
    const TvmafF2 v = tvmaf_f2_add_f(x.v, b);
    return ciede_b(v, x.e + CIEDE_B_PF * ciede_pair_fabs(v.hi));
}

TVMAF_HD CiedeB ciede_b_mul(CiedeB x, CiedeB y)
{
    const TvmafF2 v = tvmaf_f2_mul(x.v, y.v);
    return ciede_b(v, ciede_b_mag(x) * y.e + ciede_b_mag(y) * x.e + 3.0f * x.e * y.e +
                          CIEDE_B_PMUL * ciede_pair_fabs(v.hi));
}

/* x * b, b an exact float */
TVMAF_HD CiedeB ciede_b_mul_f(CiedeB x, float b)
{
    const TvmafF2 v = tvmaf_f2_mul_f(x.v, b);
    return ciede_b(v, ciede_pair_fabs(b) * x.e + CIEDE_B_PF * ciede_pair_fabs(v.hi));
}

TVMAF_HD CiedeB ciede_b_div(CiedeB x, CiedeB y, int *undecided)
{
    ciede_b_guard(y, undecided);
    const TvmafF2 v = tvmaf_f2_div(x.v, y.v);
    const float q = ciede_pair_fabs(v.hi);
    return ciede_b(v, (x.e + q * y.e) / ciede_b_mag(y) + CIEDE_B_PDIV * q);
}

/* sqrt(x), x >= 0: |sqrt(a) - sqrt(b)| <= |a - b| / (2 sqrt(min)) and
 * <= sqrt(|a - b|) */
TVMAF_HD CiedeB ciede_b_sqrt(CiedeB x)
{
    const TvmafF2 v = tvmaf_f2_sqrt(x.v);
    const float lo = x.v.hi - 2.0f * x.e;
    float e = tvmaf_f2_fsqrt(x.e);
    if (lo > 0.0f) {
        const float lin = x.e / (2.0f * tvmaf_f2_fsqrt(lo));
        e = lin < e ? lin : e;
    }
    return ciede_b(v, e + CIEDE_B_PSQRT * v.hi);
}

/* cube root, c > 0: slope c^(1/3) / (3 c) */
TVMAF_HD CiedeB ciede_b_cbrt(CiedeB c, int *undecided)
{
    ciede_b_guard(c, undecided);
    const TvmafF2 v = tvmaf_f2_cbrt(c.v);
    return ciede_b(v, c.e * v.hi / (3.0f * c.v.hi) + CIEDE_B_PCBRT * v.hi);
}

/* x^2.4, x > 0: slope 2.4 x^1.4 */
TVMAF_HD CiedeB ciede_b_pow2_4(CiedeB x, int *undecided)
{
    ciede_b_guard(x, undecided);
    const TvmafF2 v = tvmaf_f2_pow2_4(x.v);
    return ciede_b(v, 2.4f * x.e * v.hi / x.v.hi + CIEDE_B_PPOW * v.hi);
}

/* sin or cos: slope at most 1; the pair's error is relative to the larger
 * of the result and the reduced argument, which is below min(|x|, 0.8) */
TVMAF_HD CiedeB ciede_b_trig(CiedeB x, int cosine)
{
    const TvmafF2SinCos sc = tvmaf_f2_sincos(x.v);
    const TvmafF2 v = cosine ? sc.c : sc.s;
    const float ax = ciede_b_mag(x), r = ax < 0.8f ? ax : 0.8f, av = ciede_pair_fabs(v.hi);
    return ciede_b(v, x.e + CIEDE_B_PTRIG * (av > r ? av : r));
}

/* The floats of the ends of [v - 2e, v + 2e] (the ends' own pair error is
 * covered by the added CIEDE_B_PF |v|); they differ where the interval holds
 * a rounding boundary (rounding is monotonic). */
TVMAF_HD int ciede_b_ends(CiedeB x, float *lo, float *hi)
{
    const float w = (2.0f * x.e + CIEDE_B_PF * ciede_b_mag(x)) * CIEDE_B_UP;
    *lo = tvmaf_f2_add_f(x.v, -w).hi;
    *hi = tvmaf_f2_add_f(x.v, w).hi;
    return *lo != *hi;
}

/* The float the reference rounds x to; undecided if its interval holds a
 * rounding boundary. */
TVMAF_HD float ciede_b_round(CiedeB x, int *undecided)
{
    float lo, hi;
    if (ciede_b_ends(x, &lo, &hi)) *undecided = 1;
    return x.v.hi;
}

/* a * 2^s as an integer (s <= 60), *ok cleared where it is not one below
 * 2^62 */
TVMAF_HD int64_t ciede_pair_scaled(float a, int s, int *ok)
{
    const float t = a * tvmaf_pow2f(s);
    if (t != tvmaf_f2_rint(t) || !(ciede_pair_fabs(t) < 0x1p62f)) {
        *ok = 0;
        return 0;
    }
    return (int64_t)t;
}

/*
 * Where x's interval holds one rounding boundary, the midpoint M of the
 * adjacent floats lo < hi, as the integer M 2^s (*s; M 2^s < 2^26): returns 0
 * where the ends are not adjacent or s > 50.
 */
TVMAF_HD int ciede_b_midpoint(float lo, float hi, int *s, int64_t *m)
{
    const uint32_t bl = tvmaf_f2_bits(lo), bh = tvmaf_f2_bits(hi);
    if ((bl >> 31) != (bh >> 31) || (bl > bh ? bl - bh : bh - bl) != 1u) return 0;
    /* hi - lo is the step, a power of two; M = lo + step / 2 */
    *s = 1 - tvmaf_ilogbf(hi - lo);
    if (*s < 0 || *s > 50) return 0;
    int ok = 1;
    *m = ciede_pair_scaled(lo, *s, &ok) + 1;
    return ok;
}

/* The float nearest the midpoint of adjacent floats lo < hi, ties to even. */
TVMAF_HD float ciede_pair_even(float lo, float hi)
{
    return (tvmaf_f2_bits(lo) & 1u) ? hi : lo;
}

/*
 * The float the reference rounds x to, where the reference's double is the
 * exact value (the caller's proof) and the exact value lies on the grid of
 * multiples of 2^g. Such a value can be a float rounding boundary itself
 * (ciede_lab's L, a and b often are: a product of floats by a small integer),
 * where no bound decides which float it rounds to. When x's bound is below a
 * quarter of the grid step and x.hi lies on the grid, the exact value is
 * x.hi plus x.lo moved to the nearest grid point, and its float is that
 * float sum rounded once, ties to even, as the CPU rounds. Otherwise as
 * ciede_b_round.
 */
TVMAF_HD float ciede_b_round_exact(CiedeB x, int g, int exact, int *undecided)
{
    if (exact && g > -100 && g < 100) {
        const float step = tvmaf_pow2f(g);
        const float inv = tvmaf_pow2f(-g);
        if (x.e < 0.25f * step && (x.v.hi == 0.0f || tvmaf_ilogbf(x.v.hi) - 23 >= g))
            return x.v.hi + tvmaf_f2_rint(x.v.lo * inv) * step;
    }
    return ciede_b_round(x, undecided);
}

/* x > k for a constant k of the reference; undecided if x lies within its
 * bound of k (k's pair lies within CIEDE_B_PK |k| of the reference's k). */
TVMAF_HD int ciede_b_gt(CiedeB x, TvmafF2 k, int *undecided)
{
    const float d = ciede_pair_fabs(tvmaf_f2_sub(x.v, k).hi);
    if (d <= (2.0f * x.e + 2.0f * CIEDE_B_PK * ciede_pair_fabs(k.hi)) * CIEDE_B_UP)
        *undecided = 1;
    return tvmaf_f2_gt(x.v, k);
}

/* dE00 of a pixel the device cannot decide: a quiet NaN (a decided dE00 is
 * the square root of a non-negative sum, never NaN) */
#define CIEDE_PAIR_UNDECIDED_BITS 0x7fc0de00u

/* ---- The reference's statements ---- */

TVMAF_HD CiedeB ciede_pair_rgb_map(CiedeB c, CIEDE_PAIR_K k, int *u)
{
    if (ciede_b_gt(c, k->lin_max, u))
        return ciede_b_pow2_4(ciede_b_mul(ciede_b_add(c, ciede_b_k(k->a055)), ciede_b_k(k->d1055)),
                              u);
    return ciede_b_mul(c, ciede_b_k(k->d1292));
}

TVMAF_HD float ciede_pair_lab_map(CiedeB c, CIEDE_PAIR_K k, int *u)
{
    if (ciede_b_gt(c, k->epsilon, u)) return ciede_b_round(ciede_b_cbrt(c, u), u);
    const CiedeB t = ciede_b_add_f(ciede_b_mul(ciede_b_k(k->kappa), c), 16.0f);
    return ciede_b_round(ciede_b_mul(t, ciede_b_k(k->inv116)), u);
}

typedef struct CiedePairLab {
    float l, a, b;
} CiedePairLab;

/* sample * constant, the sample an integer (an exact float) */
TVMAF_HD CiedeB ciede_pair_kf(TvmafF2 k, float s)
{
    return ciede_b_mul_f(ciede_b_k(k), s);
}

/* a linear combination of three values with constants */
TVMAF_HD CiedeB ciede_pair_dot3(CiedeB r, CiedeB g, CiedeB b, TVMAF_GLOBAL const TvmafF2 *m)
{
    const CiedeB x = ciede_b_add(ciede_b_mul(r, ciede_b_k(m[0])), ciede_b_mul(g, ciede_b_k(m[1])));
    return ciede_b_add(x, ciede_b_mul(b, ciede_b_k(m[2])));
}

/* ciede_lab(): y, u, v are integer samples (exact floats). */
TVMAF_HD CiedePairLab ciede_pair_lab(float y, float u, float v, CIEDE_PAIR_K k, int *und)
{
    /* sample - offset is an exact float (integers below 2^24) */
    const CiedeB yy = ciede_pair_kf(k->ky, y - k->off_y);
    const CiedeB uu = ciede_pair_kf(k->kuv, u - k->off_uv);
    const CiedeB vv = ciede_pair_kf(k->kuv, v - k->off_uv);

    CiedeB r = ciede_b_add(yy, ciede_b_mul(ciede_b_k(k->rv), vv));
    CiedeB g = ciede_b_sub(ciede_b_sub(yy, ciede_b_mul(ciede_b_k(k->gu), uu)),
                           ciede_b_mul(ciede_b_k(k->gv), vv));
    CiedeB b = ciede_b_add(yy, ciede_b_mul(ciede_b_k(k->bu), uu));
    r = ciede_pair_rgb_map(r, k, und);
    g = ciede_pair_rgb_map(g, k, und);
    b = ciede_pair_rgb_map(b, k, und);

    /* the reference stores the float results in its double variables */
    const float fx = ciede_pair_lab_map(ciede_b_mul(ciede_pair_dot3(r, g, b, k->m),
                                                    ciede_b_k(k->inv_xn)), k, und);
    const float fy = ciede_pair_lab_map(ciede_pair_dot3(r, g, b, k->m + 3), k, und);
    const float fz = ciede_pair_lab_map(ciede_b_mul(ciede_pair_dot3(r, g, b, k->m + 6),
                                                    ciede_b_k(k->inv_zn)), k, und);

    /*
     * 116 fy and the differences of floats are exact pairs. The reference's
     * doubles are exact here (|fx|, |fy|, |fz| < 2, so |L| < 256):
     *   116 fy - 16 lies on the grid 2^(E(fy) - 21) (116 = 4 * 29) and spans
     *   at most 53 bits when E(fy) >= -24;
     *   500 (fx - fy) (500 = 4 * 125) on the grid 2^(E - 21), 200 (fy - fz)
     *   (200 = 8 * 25) on 2^(E - 20), E the smaller exponent of the two
     *   floats: the difference spans at most 25 - E bits, times 125 or 25 at
     *   most 53 when E >= -21 (a zero float leaves the other's exponent).
     */
    const int ex = fx == 0.0f ? 127 : tvmaf_ilogbf(fx);
    const int ey = fy == 0.0f ? 127 : tvmaf_ilogbf(fy);
    const int ez = fz == 0.0f ? 127 : tvmaf_ilogbf(fz);
    const int exy = ex < ey ? ex : ey, eyz = ey < ez ? ey : ez;
    CiedePairLab lab;
    lab.l = ciede_b_round_exact(
        ciede_b_add_f(ciede_b_exact(tvmaf_f2_two_prod(116.0f, fy)), -16.0f), ey - 21,
        ey >= -24 && ey < 127, und);
    lab.a = ciede_b_round_exact(ciede_b_mul_f(ciede_b_exact(tvmaf_f2_two_sum(fx, -fy)), 500.0f),
                                exy - 21, exy >= -21 && exy < 127, und);
    lab.b = ciede_b_round_exact(ciede_b_mul_f(ciede_b_exact(tvmaf_f2_two_sum(fy, -fz)), 200.0f),
                                eyz - 20, eyz >= -21 && eyz < 127, und);
    return lab;
}

/* sqrt(sq(a) + sq(b)) of floats as the reference rounds it: two exact
 * squares, one sum, one root */
TVMAF_HD float ciede_pair_hypot(float a, float b, int *u)
{
    const CiedeB s = ciede_b_add(ciede_b_exact(tvmaf_f2_sq_f(a)), ciede_b_exact(tvmaf_f2_sq_f(b)));
    return ciede_b_round(ciede_b_sqrt(s), u);
}

/* a float against a double constant: exact (a pair compares as its value;
 * no float lies between pi's pair and the reference's pi) */
TVMAF_HD int ciede_pair_f_le(float a, TvmafF2 c)
{
    return tvmaf_f2_le(tvmaf_f2_of(a), c);
}

TVMAF_HD float ciede_pair_h_prime(float x, float y, CIEDE_PAIR_K k, int *u)
{
    if (x == 0.0f && y == 0.0f) return 0.0f;
    const TvmafF2 a = tvmaf_f2_atan2(x, y);
    float hue = ciede_b_round(ciede_b(a, CIEDE_B_PATAN * ciede_pair_fabs(a.hi)), u);
    if (hue < 0.0f) hue = ciede_b_round(ciede_b_add_f(ciede_b_k(k->two_pi), hue), u);
    return hue;
}

TVMAF_HD float ciede_pair_delta_h_prime(float c1, float c2, float h1, float h2, CIEDE_PAIR_K k,
                                        int *u)
{
    if (c1 == 0.0f || c2 == 0.0f) return 0.0f;
    const float d = h2 - h1;
    if (ciede_pair_f_le(ciede_pair_fabs(h1 - h2), k->pi)) return d;
    const CiedeB two_pi = ciede_b_k(h2 <= h1 ? k->two_pi : tvmaf_f2_neg(k->two_pi));
    return ciede_b_round(ciede_b_add_f(two_pi, d), u);
}

TVMAF_HD float ciede_pair_h_bar_prime(float h1, float h2, CIEDE_PAIR_K k, int *u)
{
    const float s = h1 + h2;
    /* (double)s / 2.0 and the pair's halving are exact */
    if (!ciede_pair_f_le(ciede_pair_fabs(h1 - h2), k->pi)) {
        const CiedeB t = ciede_b_add_f(ciede_b_k(k->two_pi), s);
        return ciede_b_round(ciede_b(tvmaf_f2_scale(t.v, 0.5f), 0.5f * t.e), u);
    }
    return s * 0.5f;
}

/*
 * Two roundings whose exact value is often a float midpoint M: products of a
 * float by a decimal constant (0.045 = 9 / 200, 1 / 25). There the
 * reference's double is M itself, so its float is M rounded to even:
 *   s_c = (float)(1 + 0.045 c), with 1 + 9 c / 200 = M: the double 0.045
 *   lies within 2^-54.58 of 9 / 200 relatively, M - 1 is a double (25 bits),
 *   so 0.045 * c rounds to M - 1 (less than half its ulp away, 2^-54
 *   relatively at least), and 1 + (M - 1) = M;
 *   degrees = (float)((d - 275) * (1.0 / 25.0)), with (d - 275) / 25 = M: the
 *   double 1 / 25 lies within 2^-55.41 of it, and the product rounds to M.
 * Elsewhere the exact value lies at least a grid step away from M (c and d
 * are floats, and M 2^s an integer), far beyond the bound, so an undecided
 * interval that does not hold such an M stays undecided only in theory; the
 * test is exact integer arithmetic (M 2^s < 2^26, |d| < 360, s <= 50).
 */
TVMAF_HD float ciede_pair_s_c(float c_bar_prime, CIEDE_PAIR_K k, int *u)
{
    const CiedeB x = ciede_b_add_f(ciede_pair_kf(k->k045, c_bar_prime), 1.0f);
    float lo, hi;
    int s, ok = 1;
    int64_t m;
    if (!ciede_b_ends(x, &lo, &hi)) return x.v.hi;
    if (ciede_b_midpoint(lo, hi, &s, &m) && s <= 30) {
        const int64_t c = ciede_pair_scaled(c_bar_prime, s, &ok);
        if (ok && ciede_pair_fabs(c_bar_prime) < 1024.0f &&
            200 * m == 200 * ((int64_t)1 << s) + 9 * c)
            return ciede_pair_even(lo, hi);
    }
    *u = 1;
    return x.v.hi;
}

TVMAF_HD float ciede_pair_degrees(float degrees_f, CIEDE_PAIR_K k, int *u)
{
    const CiedeB x =
        ciede_b_mul(ciede_b_exact(tvmaf_f2_two_sum(degrees_f, -275.0f)), ciede_b_k(k->inv25));
    float lo, hi;
    int s, ok = 1;
    int64_t m;
    if (!ciede_b_ends(x, &lo, &hi)) return x.v.hi;
    if (ciede_b_midpoint(lo, hi, &s, &m)) {
        const int64_t d = ciede_pair_scaled(degrees_f, s, &ok);
        if (ok && ciede_pair_fabs(degrees_f) < 512.0f && 25 * m == d - 275 * ((int64_t)1 << s))
            return ciede_pair_even(lo, hi);
    }
    *u = 1;
    return x.v.hi;
}

TVMAF_HD float ciede_pair_t(float hb, CIEDE_PAIR_K k, int *u)
{
    const CiedeB h = ciede_b_exact(tvmaf_f2_of(hb));
    const CiedeB c1 = ciede_b_trig(ciede_b_sub(h, ciede_b_k(k->pi_6)), 1);
    const CiedeB c2 = ciede_b_trig(ciede_b_exact(tvmaf_f2_of(2.0f * hb)), 1);
    const CiedeB c3 = ciede_b_trig(
        ciede_b_add(ciede_b_exact(tvmaf_f2_two_prod(3.0f, hb)), ciede_b_k(k->pi_30)), 1);
    const CiedeB c4 = ciede_b_trig(
        ciede_b_sub(ciede_b_exact(tvmaf_f2_of(4.0f * hb)), ciede_b_k(k->pi7_20)), 1);
    CiedeB t = ciede_b_sub(ciede_b_exact(tvmaf_f2_of(1.0f)), ciede_b_mul(ciede_b_k(k->t17), c1));
    t = ciede_b_add(t, ciede_b_mul(ciede_b_k(k->t24), c2));
    t = ciede_b_add(t, ciede_b_mul(ciede_b_k(k->t32), c3));
    t = ciede_b_sub(t, ciede_b_mul(ciede_b_k(k->t20), c4));
    return ciede_b_round(t, u);
}

/*
 * R_T, and in *tiny a bound on |R_T| where it is not decided: when
 * degrees^2 > 69, 60 exp(-degrees^2) < 2^-93, so R_T (both the CPU's and the
 * pair's, whatever their floats) is below 2^-96 in magnitude; the caller
 * carries that into the final sum, where it is far below the sum's bound,
 * instead of deciding R_T's floats (the pair's exp is not bounded below
 * 2^-100, and gives 0 below e^-87).
 */
TVMAF_HD float ciede_pair_r_t(float c_bar_prime, float hb, CIEDE_PAIR_K k,
                              TVMAF_GLOBAL const uint32_t *tab, uint32_t n, int *u, float *tiny)
{
    const float degrees_f = ciede_b_round(ciede_b_mul_f(ciede_b_k(k->deg), hb), u);
    const float degrees = ciede_pair_degrees(degrees_f, k, u);
    const float c7 = ciede_pair_powf7(c_bar_prime, tab, n);
    const float q = c7 / (c7 + ciede_pair_powf7(25.0f, tab, n));
    const float d2 = degrees * degrees;
    int scratch = 0;
    int *v = u;
    *tiny = 0.0f;
    if (d2 > 69.0f) {
        *tiny = 0x1p-96f;
        v = &scratch;
    }
    const TvmafF2 ex = tvmaf_f2_exp(tvmaf_f2_of(-d2));
    const float angle_deg =
        ciede_b_round(ciede_b_mul_f(ciede_b(ex, CIEDE_B_PEXP * ex.hi), 60.0f), v);
    const float angle = ciede_b_round(ciede_b_mul_f(ciede_b_k(k->rad), angle_deg), v);
    const CiedeB s = ciede_b_mul(
        ciede_b_mul_f(ciede_b_sqrt(ciede_b_exact(tvmaf_f2_of(q))), -2.0f),
        ciede_b_trig(ciede_b_exact(tvmaf_f2_of(angle)), 0));
    return ciede_b_round(s, v);
}

/* ciede2000() with kL = 0.65, kC = 1, kH = 4; *u set if undecided. */
TVMAF_HD float ciede_pair_2000(CiedePairLab c1, CiedePairLab c2, CIEDE_PAIR_K k,
                               TVMAF_GLOBAL const uint32_t *tab, uint32_t n, int *u)
{
    const float kl = 0.65f, kc = 1.0f, kh = 4.0f;

    const float delta_l_prime = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float ch1 = ciede_pair_hypot(c1.a, c1.b, u);
    const float ch2 = ciede_pair_hypot(c2.a, c2.b, u);
    const float c_bar = (ch1 + ch2) / 2;
    /* pow(c_bar, 7): c^2 exact, then pairs */
    const CiedeB cb2 = ciede_b_exact(tvmaf_f2_sq_f(c_bar));
    const CiedeB cb7 = ciede_b_mul_f(ciede_b_mul(ciede_b_mul(cb2, cb2), cb2), c_bar);
    const CiedeB g = ciede_b_sub(ciede_b_exact(tvmaf_f2_of(1.0f)),
                                 ciede_b_sqrt(ciede_b_div(cb7, ciede_b_add(cb7,
                                                          ciede_b_k(k->p25_7)), u)));
    const float a_prime_1 = ciede_b_round(ciede_b_add_f(ciede_b_mul_f(g, c1.a / 2), c1.a), u);
    const float a_prime_2 = ciede_b_round(ciede_b_add_f(ciede_b_mul_f(g, c2.a / 2), c2.a), u);
    const float c_prime_1 = ciede_pair_hypot(a_prime_1, c1.b, u);
    const float c_prime_2 = ciede_pair_hypot(a_prime_2, c2.b, u);
    const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
    const float delta_c_prime = c_prime_2 - c_prime_1;
    const float lb50 = l_bar - 50;
    const CiedeB lb2 = ciede_b_exact(tvmaf_f2_sq_f(lb50));
    const float s_l = ciede_b_round(
        ciede_b_add_f(ciede_b_div(ciede_b_mul(ciede_b_k(k->k015), lb2),
                                  ciede_b_sqrt(ciede_b_add_f(lb2, 20.0f)), u), 1.0f), u);
    const float s_c = ciede_pair_s_c(c_bar_prime, k, u);
    const float h_prime_1 = ciede_pair_h_prime(c1.b, a_prime_1, k, u);
    const float h_prime_2 = ciede_pair_h_prime(c2.b, a_prime_2, k, u);
    const float delta_h_prime = ciede_pair_delta_h_prime(ch1, ch2, h_prime_1, h_prime_2, k, u);
    /* (double)(c'1 c'2) is the float product; delta_h_prime / 2.0 is exact */
    const CiedeB dh_s = ciede_b_trig(ciede_b_exact(tvmaf_f2_of(delta_h_prime * 0.5f)), 0);
    const CiedeB root = ciede_b_sqrt(ciede_b_exact(tvmaf_f2_of(c_prime_1 * c_prime_2)));
    const float delta_upcase_h_prime =
        ciede_b_round(ciede_b_mul(ciede_b(tvmaf_f2_scale(root.v, 2.0f), 2.0f * root.e), dh_s),
                      u);
    const float hb = ciede_pair_h_bar_prime(h_prime_1, h_prime_2, k, u);
    const float t = ciede_pair_t(hb, k, u);
    const float s_h = ciede_b_round(ciede_b_add_f(ciede_b_mul_f(ciede_pair_kf(k->k015,
                                                                              c_bar_prime), t),
                                                  1.0f), u);
    float tiny;
    const float r_t = ciede_pair_r_t(c_bar_prime, hb, k, tab, n, u, &tiny);
    const float lightness = delta_l_prime / (kl * s_l);
    const float chroma = delta_c_prime / (kc * s_c);
    const float hue = delta_upcase_h_prime / (kh * s_h);
    CiedeB sum = ciede_b_add(ciede_b_exact(tvmaf_f2_sq_f(lightness)),
                             ciede_b_exact(tvmaf_f2_sq_f(chroma)));
    sum = ciede_b_add(sum, ciede_b_exact(tvmaf_f2_sq_f(hue)));
    /* the float term r_t chroma hue; with R_T undecided, both sides' terms
     * lie within 2 tiny |chroma hue| (and a subnormal step) of 0, and are 0
     * where chroma or hue is */
    const float ch = ciede_pair_fabs(chroma * hue);
    CiedeB term = ciede_b_exact(tvmaf_f2_of(r_t * chroma * hue));
    if (tiny > 0.0f && chroma != 0.0f && hue != 0.0f)
        term.e = (2.0f * tiny * ch + 0x1p-148f) * CIEDE_B_UP;
    return ciede_b_round(ciede_b_sqrt(ciede_b_add(sum, term)), u);
}

/* dE00 of one pixel from its samples (integers as floats); *u set if the
 * pixel is undecided. */
TVMAF_HD float ciede_pair_pixel_u(float ry, float ru, float rv, float dy, float du, float dv,
                                  CIEDE_PAIR_K k, TVMAF_GLOBAL const uint32_t *tab, uint32_t n,
                                  int *u)
{
    const CiedePairLab c1 = ciede_pair_lab(ry, ru, rv, k, u);
    const CiedePairLab c2 = ciede_pair_lab(dy, du, dv, k, u);
    return ciede_pair_2000(c1, c2, k, tab, n, u);
}

/* dE00 of one pixel, or CIEDE_PAIR_UNDECIDED_BITS's NaN. */
TVMAF_HD float ciede_pair_pixel(float ry, float ru, float rv, float dy, float du, float dv,
                                CIEDE_PAIR_K k, TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    int u = 0;
    const float de = ciede_pair_pixel_u(ry, ru, rv, dy, du, dv, k, tab, n, &u);
    return u ? tvmaf_f2_from_bits(CIEDE_PAIR_UNDECIDED_BITS) : de;
}

#if !TVMAF_DEVICE_CODE
/* A double as the nearest pair: hi its float, lo the float of the rest. */
static inline TvmafF2 ciede_pair_of_double(double d)
{
    const float hi = (float)d;
    return tvmaf_f2(hi, (float)(d - (double)hi));
}

/* The constants for bit depth bpc, from ciede_math.h's expressions. */
static inline void ciede_pair_constants(CiedePairK *k, unsigned bpc)
{
#define P_ ciede_pair_of_double
    const double scale = (double)(1 << (bpc - 8));
    k->off_y = (float)(16. * scale);
    k->off_uv = (float)(128. * scale);
    k->ky = P_(1. / (219. * scale));
    k->kuv = P_(1. / (224. * scale));
    k->rv = P_(1.28033);
    k->gu = P_(0.21482);
    k->gv = P_(0.38059);
    k->bu = P_(2.12798);
    k->lin_max = P_(10. / 255.);
    k->a055 = P_(0.055);
    k->d1055 = P_(1.0 / 1.055);
    k->d1292 = P_(1.0 / 12.92);
    const double m[9] = { 0.4124564390896921,   0.357576077643909, 0.18043748326639894,
                          0.21267285140562248,  0.715152155287818, 0.07217499330655958,
                          0.019333895582329317, 0.119192025881303, 0.9503040785363677 };
    for (int i = 0; i < 9; i++) k->m[i] = P_(m[i]);
    k->inv_xn = P_(1.0 / 0.95047);
    k->inv_zn = P_(1.0 / 1.08883);
    k->kappa = P_(24389.0 / 27.0);
    k->epsilon = P_(216.0 / 24389.0);
    k->inv116 = P_(1.0 / 116.0);
    k->p25_7 = P_(6103515625.0);
    k->k015 = P_(0.015);
    k->k045 = P_(0.045);
    k->pi = P_(CIEDE_PI);
    k->two_pi = P_(2. * CIEDE_PI);
    k->pi_6 = P_(CIEDE_PI / 6.0);
    k->pi_30 = P_(CIEDE_PI / 30.0);
    k->pi7_20 = P_(7.0 * CIEDE_PI / 20.0);
    k->t17 = P_(0.17);
    k->t24 = P_(0.24);
    k->t32 = P_(0.32);
    k->t20 = P_(0.20);
    k->deg = P_(180.0 / CIEDE_PI);
    k->inv25 = P_(1.0 / 25.0);
    k->rad = P_(CIEDE_PI / 180.0);
#undef P_
}
#endif

#endif
