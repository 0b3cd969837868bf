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

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/hd.h"
#include "numerics/cr_pow.h"

#define TVMAF_POWF7_TABLE_UP 0x80000000u

TVMAF_HD uint32_t tvmaf_fbits(float f)
{
#if TVMAF_DEVICE_CODE
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
#endif
}

TVMAF_HD float tvmaf_ffrombits(uint32_t u)
{
#if TVMAF_DEVICE_CODE
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
#endif
}

/*
 * powf(x, 7) as the build host's glibc returns it. tab, n: the table (device
 * memory on the device). A NaN x is returned as tvmaf_cr_powf7 gives it (never
 * listed: the table holds no NaN pattern).
 */
TVMAF_HD float tvmaf_powf7_glibc(float x, const uint32_t *tab, uint32_t n)
{
    const float r = tvmaf_cr_powf7(x);
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
