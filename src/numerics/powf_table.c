/*
 * Host side of numerics/powf_table.h: the check that the running glibc is the
 * one the table was made from.
 */
#include <errno.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <stdio.h>

#include "numerics/powf_table.h"

/* through a pointer, like the generator: an ordinary call of the running libm */
static float (*volatile running_powf)(float, float) = powf;

static int agree(float x)
{
    return tvmaf_fbits(running_powf(x, 7.0f)) ==
           tvmaf_fbits(tvmaf_powf7_glibc(x, tvmaf_powf7_table, tvmaf_powf7_table_n));
}

int tvmaf_powf7_table_check(unsigned samples, char *msg, size_t len)
{
    const uint32_t n = tvmaf_powf7_table_n;
    unsigned bad = 0;
    float first = 0.0f;
    for (unsigned i = 0; i < samples && n; i++) {
        const float x = tvmaf_ffrombits(tvmaf_powf7_table[(uint64_t)i * n / samples] & 0x7fffffffu);
        if (!agree(x) && !bad++) first = x;
    }
    /* xorshift32 over [2^-22, 2^18]: patterns 0x34800000..0x48800000 */
    uint32_t state = 0x9e3779b9u;
    for (unsigned i = 0; i < samples; i++) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        const float x = tvmaf_ffrombits(0x34800000u + state % (0x48800000u - 0x34800000u));
        if (!agree(x) && !bad++) first = x;
    }
    if (!bad) return 0;
    snprintf(msg, len,
             "the device's copy of powf(x, 7) was made from %s, but the running C library "
             "(glibc %s) returns other values (%u of %u sampled arguments differ, e.g. x = %a); "
             "rebuild tvmaf on this machine",
             tvmaf_powf7_table_origin, gnu_get_libc_version(), bad, 2 * samples, (double)first);
    return -ENOTSUP;
}
