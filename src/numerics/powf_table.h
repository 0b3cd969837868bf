/*
 * glibc's powf(x, 7) reproduced bit for bit, for host C and CUDA: the
 * correctly rounded value (cr_pow.h) stepped by one float where glibc departs
 * from it, at the arguments listed in a table.
 *
 * The table is made at build time by gen_powf7_table.c, which evaluates glibc's
 * powf(x, 7) and tvmaf_cr_powf7(x) at every float x (an exhaustive replay, so
 * the table is complete by construction) and fails the build unless every
 * difference is one float step. It belongs to the glibc of the build host,
 * the glibc the CPU extractor calls: a binary run against another glibc (or
 * one that selects another powf variant for its processor) may call a powf
 * that rounds differently, and the table would then reproduce the build
 * host's powf instead of the running one. tvmaf_powf7_table_check() compares
 * a sample of entries and non-entries with the running glibc; the ciede twin
 * calls it at init and refuses to run when they disagree.
 *
 * Table layout (sorted uint32, ~200k entries, ~800 KB): bits 0-30 are the bit
 * pattern of an x >= 0 (ascending), bit 31 is set where glibc's result is one
 * step further from zero than the correctly rounded one, clear where nearer.
 * Negative x use the entry of |x| (ciede passes none): the generator checked
 * that glibc's powf(-x, 7) is -powf(x, 7) at every x whose power is finite and
 * nonzero, and at every 64th float elsewhere.
 */
#ifndef TVMAF_NUMERICS_POWF_TABLE_H
#define TVMAF_NUMERICS_POWF_TABLE_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"
#ifndef __OPENCL_VERSION__
#include "numerics/cr_pow.h"
#endif

#define TVMAF_POWF7_TABLE_UP 0x80000000u

TVMAF_HD uint32_t tvmaf_fbits(float f)
{
#if defined(__OPENCL_VERSION__)
    return as_uint(f);
#elif TVMAF_DEVICE_CODE
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
#endif
}

TVMAF_HD float tvmaf_ffrombits(uint32_t u)
{
#if defined(__OPENCL_VERSION__)
    return as_float(u);
#elif TVMAF_DEVICE_CODE
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
#endif
}

/*
 * r = the correctly rounded powf(x, 7), stepped to glibc's value where the
 * table lists x (tab, n: the table; device memory on the device). A NaN x
 * is never listed (the table holds no NaN pattern).
 */
TVMAF_HD float tvmaf_powf7_table_step(float r, float x, TVMAF_GLOBAL const uint32_t *tab,
                                      uint32_t n)
{
    const uint32_t key = tvmaf_fbits(x) & 0x7fffffffu;
    /* first entry whose x is >= key */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if ((tab[mid] & 0x7fffffffu) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || (tab[lo] & 0x7fffffffu) != key) return r;
    /* same sign as r; one step of the magnitude (0 <-> smallest subnormal and
     * FLT_MAX <-> infinity included: the bit patterns are consecutive) */
    const uint32_t rb = tvmaf_fbits(r);
    return tvmaf_ffrombits((tab[lo] & TVMAF_POWF7_TABLE_UP) ? rb + 1u : rb - 1u);
}

/*
 * powf(x, 7) correctly rounded for x >= 0 (+0 and +inf included), without
 * floating-point arithmetic: x = m 2^e with m < 2^24 an integer, m^7 (at most
 * 168 bits) computed exactly in six 32-bit limbs, rounded to the float grid
 * of its binade (or the subnormal grid) to nearest-even. For fp64-free
 * devices; tests/test_f32pair.c compares it with tvmaf_cr_powf7 at every
 * mantissa and every subnormal-result argument.
 */
TVMAF_HD float tvmaf_powf7_cr_int(float x)
{
    const uint32_t bx = tvmaf_fbits(x) & 0x7fffffffu;
    if (bx < 0x34000000u) return 0.0f;          /* x < 2^-23: x^7 < 2^-161 */
    if (bx >= 0x49000000u) return tvmaf_ffrombits(0x7f800000u); /* x >= 2^19 */
    const uint32_t m = (bx & 0x7fffffu) | 0x800000u;
    const int e = (int)(bx >> 23) - 150;
    uint32_t limb[6] = { m, 0, 0, 0, 0, 0 };
    for (int i = 0; i < 6; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 6; j++) {
            const uint64_t t = (uint64_t)limb[j] * m + carry;
            limb[j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    /* the top bit: m^7 >= 2^161, so it lies in limb 5 */
    int top = 191;
    while (!((limb[5] >> (top - 160)) & 1u)) top--;
    const int E = top + 7 * e; /* x^7 in [2^E, 2^(E+1)) */
    if (E > 127) return tvmaf_ffrombits(0x7f800000u);
    /* bits of m^7 below `shift` fall off the result's grid */
    const int shift = E >= -126 ? top - 23 : -149 - 7 * e;
    if (shift > top + 1) return 0.0f;
    /* w: the kept bits and the round bit; sticky: anything below */
    const int s = shift - 1, q = s >> 5, r = s & 31;
    const uint64_t pair64 = (uint64_t)limb[q] | ((uint64_t)(q < 5 ? limb[q + 1] : 0u) << 32);
    const uint64_t w = pair64 >> r;
    uint32_t sticky = limb[q] & ((1u << r) - 1u);
    for (int j = 0; j < q; j++) sticky |= limb[j];
    uint32_t res = (uint32_t)(w >> 1);
    if ((w & 1u) && (sticky || (res & 1u))) res++;
    /* res <= 2^24 times 2^(shift + 7e): build the float from its bits */
    const int ex = shift + 7 * e; /* exponent of res's unit */
    if (res == 0) return 0.0f;
    /* the leading bit of res (bit 24 only when rounding carried out) */
    int lead = 24;
    while (!((res >> lead) & 1u)) lead--;
    const int be = ex + lead; /* unbiased exponent of the result */
    if (be > 127) return tvmaf_ffrombits(0x7f800000u);
    if (be >= -126) {
        const uint32_t frac = lead <= 23 ? res << (23 - lead) : res >> (lead - 23);
        return tvmaf_ffrombits(((uint32_t)(be + 127) << 23) | (frac & 0x7fffffu));
    }
    /* subnormal: the unit is 2^-149, so res is the significand field */
    return tvmaf_ffrombits(res << (ex + 149));
}

#ifndef __OPENCL_VERSION__
/*
 * powf(x, 7) as the build host's glibc returns it. tab, n: the table (device
 * memory on the device).
 */
TVMAF_HD float tvmaf_powf7_glibc(float x, const uint32_t *tab, uint32_t n)
{
    return tvmaf_powf7_table_step(tvmaf_cr_powf7(x), x, tab, n);
}
#endif

#if !TVMAF_DEVICE_CODE
/* The generated table (src/numerics/meson.build; built with the CUDA twins). */
extern const uint32_t tvmaf_powf7_table[];
extern const uint32_t tvmaf_powf7_table_n;
/* "glibc VERSION, CPU variant" of the build host that made the table */
extern const char tvmaf_powf7_table_origin[];

/*
 * Compares tvmaf_powf7_glibc() over the table with the running glibc's powf at
 * `samples` table entries (evenly spread) and `samples` pseudo-random floats
 * (entries or not) in the range where powf(x, 7) is finite and nonzero.
 * Returns 0 when all agree, else -ENOTSUP with a message naming both glibcs.
 */
int tvmaf_powf7_table_check(unsigned samples, char *msg, size_t len);
#endif

#endif
