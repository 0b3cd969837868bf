/*
 * numerics/powf_table.h against the running glibc, on the host: the
 * correctly rounded powf(x, 7) plus the generated table must be glibc's
 * powf(x, 7) bit for bit.
 *
 *   - the table: sorted, no duplicates, only x in [0, +inf], no NaN pattern;
 *   - every table entry (and its negative);
 *   - 2^25 pseudo-random floats in [2^-24, 2^19] (where x^7 is finite and
 *     nonzero), entries or not, with their negatives;
 *   - every 4099th non-negative float over the whole range (0 to +inf), and
 *     the floats next to each table entry (the binary search's neighbours);
 *   - tvmaf_powf7_table_check(), the ciede twin's init check, accepts.
 * The exhaustive proof is the generator itself (it compared every float);
 * this test checks that the built library replays it and that the glibc
 * running the tests is the one it was made from.
 *
 * Exit 0 when everything agrees, else 1.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "numerics/powf_table.h"

static float (*volatile glibc_powf)(float, float) = powf;
static uint64_t compared, failures;

static void check(float x)
{
    const float want = glibc_powf(x, 7.0f);
    const float got = tvmaf_powf7_glibc(x, tvmaf_powf7_table, tvmaf_powf7_table_n);
    compared++;
    if (tvmaf_fbits(want) != tvmaf_fbits(got) && failures++ < 10)
        printf("FAIL x = %a (0x%08" PRIx32 "): glibc %a, replay %a\n", (double)x, tvmaf_fbits(x),
               (double)want, (double)got);
}

int main(void)
{
    const uint32_t n = tvmaf_powf7_table_n;
    printf("table: %" PRIu32 " entries (%s)\n", n, tvmaf_powf7_table_origin);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = tvmaf_powf7_table[i] & 0x7fffffffu;
        if (k > 0x7f800000u || (i && k <= (tvmaf_powf7_table[i - 1] & 0x7fffffffu))) {
            printf("FAIL table entry %" PRIu32 " (0x%08" PRIx32 ") out of order or NaN\n", i,
                   tvmaf_powf7_table[i]);
            return 1;
        }
    }

    uint64_t corrected = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = tvmaf_powf7_table[i] & 0x7fffffffu;
        check(tvmaf_ffrombits(k));
        check(-tvmaf_ffrombits(k));
        check(tvmaf_ffrombits(k - 1u));
        if (k < 0x7f800000u) check(tvmaf_ffrombits(k + 1u));
        /* an entry must be one where the correctly rounded value is not glibc's */
        const float x = tvmaf_ffrombits(k);
        corrected += tvmaf_fbits(tvmaf_cr_powf7(x)) != tvmaf_fbits(glibc_powf(x, 7.0f));
    }
    if (corrected != n) {
        printf("FAIL %" PRIu64 " of %" PRIu32 " entries are where glibc differs from the "
               "correctly rounded value\n", corrected, n);
        failures++;
    }

    uint64_t s = 0x243f6a8885a308d3ull;
    const uint32_t lo = 0x33800000u, hi = 0x49000000u; /* 2^-24, 2^19 */
    for (uint32_t i = 0; i < (1u << 25); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const float x = tvmaf_ffrombits(lo + (uint32_t)((s >> 16) % (hi - lo)));
        check(x);
        if (i % 8 == 0) check(-x);
    }
    for (uint64_t u = 0; u <= 0x7f800000u; u += 4099u)
        check(tvmaf_ffrombits((uint32_t)u));
    check(INFINITY);
    check(-INFINITY);
    check(0.0f);
    check(-0.0f);
    check(25.0f); /* ciede's constant argument */

    char msg[512];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int err = tvmaf_powf7_table_check(4096, msg, sizeof(msg));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (err) {
        printf("FAIL tvmaf_powf7_table_check: %s\n", msg);
        failures++;
    }
    printf("tvmaf_powf7_table_check(4096): %.2f ms\n",
           1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
    printf("%" PRIu64 " arguments compared, %" PRIu64 " failures\n", compared, failures);
    return failures ? 1 : 0;
}
