/*
 * ffilter_scale_pos_int (common/float_filter.h: the scalers' source
 * position without fp64, which fp64-free OpenCL programs use) against the
 * reference's double expression, as bits:
 *   every position x of every half-size pass (float_motion's
 *   motion_add_scale1: ratio = n / ((n + 1) / 2)) for every side n up to
 *   16384, and every position of every scale from n to m for n, m up to 512
 *   (the prescale's ratios);
 *   random positions x < 2^24 with random ratios over the function's domain
 *   [2^-38, 2^23].
 * The test fails on any difference and prints how many it compared.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "feature/common/float_filter.h"
#include "replay_common.h"

static unsigned long compared, differ;

static void check(int x, float ratio)
{
    const float want = (float)(((double)x + 0.5) * (double)ratio - 0.5);
    const float got = ffilter_scale_pos_int(x, ratio);
    compared++;
    if (tvmaf_f2bits(want) != tvmaf_f2bits(got) && differ++ < 5)
        printf("differs: x %d ratio %a: double %a, integers %a\n", x, (double)ratio,
               (double)want, (double)got);
}

int main(void)
{
    for (int n = 1; n <= 16384; n++) {
        const int half = (n + 1) / 2;
        const float r = ffilter_scale_ratio(n, half);
        for (int x = 0; x < half; x++) check(x, r);
    }
    for (int n = 1; n <= 512; n++)
        for (int m = 1; m <= 512; m++) {
            const float r = ffilter_scale_ratio(n, m);
            for (int x = 0; x < m; x++) check(x, r);
        }
    replay_seed(0x9e3779b97f4a7c15ull);
    for (int i = 0; i < 10000000; i++) {
        const int x = (int)(replay_next() % (1u << 24));
        /* exponents -38..22, any significand */
        const uint32_t e = (uint32_t)(127 - 38 + (int)(replay_next() % 61));
        const float r = tvmaf_bits2f(e << 23 | (replay_next() & 0x7fffffu));
        check(x, r);
    }
    printf("scale positions: %lu compared, %lu differ\n", compared, differ);
    return differ ? 1 : 0;
}
