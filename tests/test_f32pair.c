/*
 * Error bounds of numerics/f32pair.h, measured against long double (x87,
 * 64-bit significand: glibc's long double functions are within a unit or two
 * of 2^-64, so the reference's own error is below 2^-62, far under the bounds
 * tested here). Each function is measured over the arguments ciede meets
 * (src/feature/ciede/ciede_pair.h):
 *
 *   exp(x)       x = -d^2 for a float d = ((degrees - 275) / 25): every float
 *                x in [-46, -2], every 16th in [-2, -2^-8] (below -46 the
 *                result is below 2^-66 and ciede's R_T term no longer reaches
 *                dE00; see ciede_pair.h)
 *   sin(x)       x a float angle in (0, pi/3] (R_T's angle) and a half hue
 *                difference in [-pi/2, pi/2]: every float in [1/4, pi/2],
 *                every 16th in [2^-8, 1/4]
 *   cos(x)       the four arguments of T, pairs in [-2, 40]: random
 *   atan2(b, a)  two floats (b, a') in [-200, 200], random, and near the axes
 *   cbrt(c)      c in (216/24389, 10]: random pairs
 *   x^2.4        x in (0.089, 2.4]: random pairs
 *   + - * / sqrt random pairs
 *
 * and tvmaf_powf7_cr_int (powf_table.h, integer arithmetic) against
 * tvmaf_cr_powf7 (cr_pow.h, proved correctly rounded by test_cr_pow): every
 * mantissa (one binade: for results in the normal range the rounding depends
 * on the mantissa only), every float whose 7th power is subnormal or below,
 * and every float of the binade where the power overflows.
 *
 * Every bound is checked as max |f2 - f| / max(|f|, floor); the test fails if a
 * bound is exceeded and prints the measured maxima (in powers of two). The
 * bounds are those stated in f32pair.h's header; the ciede OpenCL twin's
 * flagging (ciede_pair.h, CIEDE_B_P*) takes twice them.
 *
 * TVMAF_TEST_QUICK=1 makes every sweep take one float in 16 of what it takes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/cr_pow.h"
#include "numerics/f32pair.h"
#include "numerics/powf_table.h"

typedef long double ld;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
/* uniform in [a, b) */
static double unif(double a, double b)
{
    return a + (b - a) * ((double)(next64() >> 11) * 0x1p-53);
}
/* a double as the nearest pair (what the device holds for it) */
static TvmafF2 pair_of(double d)
{
    const float hi = (float)d;
    return tvmaf_f2(hi, (float)(d - (double)hi));
}
static ld val(TvmafF2 x)
{
    return (ld)x.hi + (ld)x.lo;
}

typedef struct Stat {
    const char *name;
    double bound; /* log2 of the allowed relative error */
    ld max_err;
    ld at;
    unsigned long n;
    int normal;   /* pairs must come back normalised */
    unsigned long unnormal;
} Stat;

static void record(Stat *s, TvmafF2 got, ld want, ld floor, ld arg)
{
    ld den = fabsl(want);
    if (den < floor) den = floor;
    const ld e = den > 0 ? fabsl(val(got) - want) / den : fabsl(val(got) - want);
    if (!(e <= s->max_err)) {
        s->max_err = e;
        s->at = arg;
    }
    if ((float)(got.hi + got.lo) != got.hi) s->unnormal++;
    s->n++;
}

static int report(const Stat *s)
{
    const double lg = s->max_err > 0 ? (double)log2l(s->max_err) : -999.0;
    const int ok = lg <= s->bound && s->unnormal == 0;
    printf("%-10s n=%-10lu max rel err 2^%.2f (bound 2^%.1f) at %.17Lg%s%s\n", s->name, s->n, lg,
           s->bound, s->at, s->unnormal ? "  NOT NORMALISED" : "", ok ? "" : "  FAIL");
    return ok ? 0 : 1;
}

/* every stride-th float in [lo, hi] (positive bounds) */
#define FOR_FLOATS(f, lo, hi, stride)                                                          \
    for (uint32_t b_ = tvmaf_f2_bits(lo), e_ = tvmaf_f2_bits(hi); b_ <= e_; b_ += (stride))   \
        for (int once_ = 1; once_; once_ = 0)                                                  \
            for (const float f = tvmaf_f2_from_bits(b_); once_; once_ = 0)

int main(void)
{
    const char *q = getenv("TVMAF_TEST_QUICK");
    const uint32_t stride = q && *q && strcmp(q, "0") ? 16 : 1;
    const unsigned long nrand = stride == 1 ? 2000000ul : 200000ul;
    int fail = 0;

    /* the arithmetic: random pairs of mixed magnitudes and signs */
    Stat add = { .name = "add", .bound = -46 }, mul = { .name = "mul", .bound = -45.6 };
    Stat dv = { .name = "div", .bound = -45 }, sq = { .name = "sqrt", .bound = -45.5 };
    for (unsigned long i = 0; i < nrand; i++) {
        const double a = unif(-1, 1) * ldexp(1.0, (int)(next64() % 40) - 20);
        const double b = unif(-1, 1) * ldexp(1.0, (int)(next64() % 40) - 20);
        const TvmafF2 x = pair_of(a), y = pair_of(b);
        const ld lx = val(x), ly = val(y);
        /* add: relative to the larger operand (cancellation is exact) */
        const ld m = fabsl(lx) > fabsl(ly) ? fabsl(lx) : fabsl(ly);
        record(&add, tvmaf_f2_add(x, y), lx + ly, m, a);
        record(&mul, tvmaf_f2_mul(x, y), lx * ly, 0, a);
        record(&dv, tvmaf_f2_div(x, y), lx / ly, 0, a);
        record(&sq, tvmaf_f2_sqrt(tvmaf_f2(fabsf(x.hi), x.hi < 0 ? -x.lo : x.lo)), sqrtl(fabsl(lx)),
               0, a);
    }
    fail |= report(&add) | report(&mul) | report(&dv) | report(&sq);

    /* exp(-d^2): every float in [-46, -2], every 16th in [-2, -2^-8] */
    Stat ex = { .name = "exp", .bound = -46 };
    FOR_FLOATS(f, 2.0f, 46.0f, stride)
        record(&ex, tvmaf_f2_exp(tvmaf_f2_of(-f)), expl(-(ld)f), 0, -f);
    FOR_FLOATS(f, 0x1p-8f, 2.0f, 16 * stride)
        record(&ex, tvmaf_f2_exp(tvmaf_f2_of(-f)), expl(-(ld)f), 0, -f);
    fail |= report(&ex);

    /* sin: every float angle in [1/4, pi/2], every 16th in [2^-8, 1/4] (and every
     * 8th one negative: the code is symmetric) */
    Stat sn = { .name = "sin", .bound = -46 };
    FOR_FLOATS(f, 0x1p-8f, 1.5707963f, (b_ < 0x3e800000u ? 16 : 1) * stride) {
        record(&sn, tvmaf_f2_sin(tvmaf_f2_of(f)), sinl((ld)f), 0, f);
        if ((tvmaf_f2_bits(f) & 7) == 0)
            record(&sn, tvmaf_f2_sin(tvmaf_f2_of(-f)), sinl(-(ld)f), 0, -f);
    }
    fail |= report(&sn);

    /* cos: T's arguments h - pi/6, 2h, 3h + pi/30, 4h - 7 pi/20 for h in [0, 3 pi) */
    Stat cs = { .name = "cos", .bound = -45 };
    for (unsigned long i = 0; i < nrand; i++) {
        const double h = (double)(float)unif(0, 9.42);
        const double args[4] = { h - 3.14159265358979323846 / 6.0, 2.0 * h,
                                 3.0 * h + 3.14159265358979323846 / 30.0,
                                 4.0 * h - 7.0 * 3.14159265358979323846 / 20.0 };
        for (int k = 0; k < 4; k++) {
            const TvmafF2 x = pair_of(args[k]);
            /* absolute below 2^-20: T adds these with weights < 1 */
            record(&cs, tvmaf_f2_cos(x), cosl(val(x)), 0x1p-20L, args[k]);
        }
    }
    fail |= report(&cs);

    /* atan2(b, a') of floats: Lab-sized random points, and points near the axes */
    Stat at = { .name = "atan2", .bound = -45 };
    for (unsigned long i = 0; i < nrand; i++) {
        float y = (float)unif(-200, 200), x = (float)unif(-200, 200);
        switch (i % 4) {
        case 1: y = ldexpf(y, -(int)(next64() % 30)); break;
        case 2: x = ldexpf(x, -(int)(next64() % 30)); break;
        case 3: y = (i & 4) ? 0.0f : y; x = (i & 8) ? x : (float)((int)x); break;
        default: break;
        }
        if (x == 0.0f && y == 0.0f) continue;
        record(&at, tvmaf_f2_atan2(y, x), atan2l((ld)y, (ld)x), 0, y);
    }
    fail |= report(&at);

    /* the roots: cbrt of the Lab companding, pow(x, 2.4) of the sRGB transfer */
    Stat cb = { .name = "cbrt", .bound = -45 }, pw = { .name = "pow2.4", .bound = -44 };
    for (unsigned long i = 0; i < nrand; i++) {
        const TvmafF2 c = pair_of(unif(216.0 / 24389.0, 10.0));
        record(&cb, tvmaf_f2_cbrt(c), cbrtl(val(c)), 0, val(c));
        const TvmafF2 x = pair_of(unif(0.0894, 2.4));
        record(&pw, tvmaf_f2_pow2_4(x), powl(val(x), 2.4L), 0, val(x));
    }
    fail |= report(&cb) | report(&pw);

    /* powf(x, 7) without fp64 against the double-double one */
    unsigned long p7_n = 0, p7_bad = 0;
    const uint32_t ranges[4][3] = {
        { 0x3f800000u, 0x40000000u, 1 },    /* [1, 2]: every mantissa */
        { 0x34000000u, 0x36800000u, 1 },    /* [2^-23, 2^-18]: x^7 subnormal */
        { 0x48800000u, 0x49000000u, 1 },    /* [2^18, 2^19]: x^7 overflows */
        { 0x00000000u, 0x7f800000u, 4099 }, /* everything else, sampled */
    };
    for (int rg = 0; rg < 4; rg++)
        for (uint32_t b = ranges[rg][0]; b <= ranges[rg][1] && b >= ranges[rg][0];
             b += ranges[rg][2] * stride) {
            const float x = tvmaf_f2_from_bits(b);
            p7_n++;
            if (tvmaf_f2_bits(tvmaf_powf7_cr_int(x)) != tvmaf_f2_bits(tvmaf_cr_powf7(x)) &&
                !p7_bad++)
                printf("powf7_cr_int(%a) = %a, correctly rounded %a\n", (double)x,
                       (double)tvmaf_powf7_cr_int(x), (double)tvmaf_cr_powf7(x));
        }
    printf("powf7_int  n=%-10lu %lu differ from the correctly rounded value%s\n", p7_n, p7_bad,
           p7_bad ? "  FAIL" : "");
    fail |= p7_bad != 0;

    printf("%s\n", fail ? "FAIL" : "all within bounds");
    return fail;
}
