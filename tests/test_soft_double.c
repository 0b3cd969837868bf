/*
 * numerics/soft_double.h against the host's double (x86-64 SSE2: IEEE
 * binary64, round to nearest even, no contraction): every operation's bit
 * pattern over operands drawn from
 *   - random bit patterns (every class: zeros, subnormals, normals, infinities,
 *     NaNs),
 *   - floats widened and products of two floats (what the twins feed it),
 *   - near-equal operands of both signs (cancellation, the sticky bit of a
 *     subtraction),
 *   - exponents near overflow and through the subnormal range,
 *   - doubles near a float rounding midpoint (the conversion to float),
 *   - int32 values and doubles in int32's range (the integer conversions),
 * and every float's widening over a strided sweep; and the double constants
 * the fp64-free programs hold as bit patterns, against the host's values. A NaN result must be a
 * NaN (payloads are not compared). Prints the counts; exits 1 on any
 * difference.
 *
 * usage: test_soft_double [N]   N operand pairs per source and operation
 * (default 400000); TVMAF_SD_SEED picks another sequence.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm/adm_math.h"
#include "feature/float_adm/float_adm_math.h"
#include "feature/float_vif/float_vif_math.h"
#include "feature/speed/speed_math.h"
#include "feature/vif/vif_math.h"
#include "numerics/soft_double.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1du;
}

static uint64_t d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

static double u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

static float rnd_float(void)
{
    /* a float of random sign, exponent in [-40, 40], random mantissa */
    const uint32_t e = (uint32_t)(127 - 40 + rnd() % 81);
    const uint32_t u = (uint32_t)(rnd() & 0x807fffffu) | e << 23;
    return tvmaf_bits2f(u);
}

/* a double of random sign and mantissa with its exponent field in [lo, hi] */
static double rnd_exp(int lo, int hi)
{
    const uint64_t e = (uint64_t)(lo + (int)(rnd() % (uint64_t)(hi - lo + 1)));
    return u2d((rnd() & (TVMAF_SD_SIGN | TVMAF_SD_FRAC)) | e << 52);
}

enum { SRC_BITS, SRC_FLOATS, SRC_NEAR, SRC_EDGE, N_SRC };
static const char *src_name[N_SRC] = { "random bits", "floats and float products",
                                       "near-equal", "overflow/subnormal edges" };

static void operands(int src, double *a, double *b)
{
    switch (src) {
    case SRC_BITS:
        *a = u2d(rnd());
        *b = u2d(rnd());
        break;
    case SRC_FLOATS:
        *a = rnd() & 1 ? (double)rnd_float() : (double)rnd_float() * (double)rnd_float();
        *b = rnd() & 1 ? (double)rnd_float() : (double)rnd_float() * (double)rnd_float();
        break;
    case SRC_NEAR: {
        *a = rnd_exp(1023 - 30, 1023 + 30);
        /* b = -a or a moved by up to 2^12 units in the last place, any sign,
         * or scaled by a power of two near the guard bits' reach */
        uint64_t ub = d2u(*a) + (rnd() % 8193) - 4096;
        if (rnd() % 4 == 0) ub += (uint64_t)(rnd() % 70) << 52;
        *b = u2d(ub ^ (rnd() & 1 ? TVMAF_SD_SIGN : 0));
        break;
    }
    default:
        *a = rnd() & 1 ? rnd_exp(0, 60) : rnd_exp(1990, 2046);
        *b = rnd() & 1 ? rnd_exp(0, 60) : rnd() & 1 ? rnd_exp(1990, 2046) : rnd_exp(960, 1090);
        break;
    }
}

static long checked, failed;

static void check(const char *what, double a, double b, uint64_t got, double want)
{
    checked++;
    if (isnan(want) ? isnan(u2d(got)) : got == d2u(want)) return;
    if (failed++ < 10)
        printf("DIFF %s(%a, %a): soft %a (%016llx), double %a (%016llx)\n", what, a, b, u2d(got),
               (unsigned long long)got, want, (unsigned long long)d2u(want));
}

static void check_float(double a, float got, float want)
{
    checked++;
    if (isnan(want) ? isnan(got) : tvmaf_f2bits(got) == tvmaf_f2bits(want)) return;
    if (failed++ < 10) printf("DIFF to_float(%a): soft %a, float %a\n", a, got, want);
}

static void check_cmp(double a, double b, int lt, int want_lt, int le, int want_le)
{
    checked++;
    if (lt == want_lt && le == want_le) return;
    if (failed++ < 10) printf("DIFF compare(%a, %a): lt %d/%d, le %d/%d\n", a, b, lt, want_lt, le, want_le);
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? atol(argv[1]) : 400000;
    if (getenv("TVMAF_SD_SEED")) rng_state ^= strtoull(getenv("TVMAF_SD_SEED"), NULL, 0) * 2 + 1;
    for (int src = 0; src < N_SRC; src++) {
        const long before = failed;
        for (long i = 0; i < n; i++) {
            double a, b;
            operands(src, &a, &b);
            const uint64_t ua = d2u(a), ub = d2u(b);
            check("add", a, b, tvmaf_sd_add(ua, ub), a + b);
            check("sub", a, b, tvmaf_sd_sub(ua, ub), a - b);
            check("mul", a, b, tvmaf_sd_mul(ua, ub), a * b);
            check("div", a, b, tvmaf_sd_div(ua, ub), a / b);
            check_float(a, tvmaf_sd_to_float(ua), (float)a);
            check_cmp(a, b, tvmaf_sd_lt(ua, ub), a < b, tvmaf_sd_le(ua, ub), a <= b);
            check("rint", a, 0, tvmaf_sd_rint(ua), rint(a));
            check("sqrt", a, 0, tvmaf_sd_sqrt(ua), sqrt(a));
        }
        printf("%-26s %ld pairs, %ld differ\n", src_name[src], n, failed - before);
    }
    /* sqrt near its hard cases: squares of doubles of few bits (exact
     * roots), and the squares of doubles and of the midpoints between two
     * neighbours, nudged by -2..2 units (roots next to a rounding boundary),
     * over every exponent */
    const long before_sq = failed;
    for (long i = 0; i < n; i++) {
        const double x = u2d((rnd() & TVMAF_SD_FRAC & ~(rnd() & 1 ? UINT64_C(0x3ffffff) : 0)) |
                             (uint64_t)(1 + rnd() % 2045) << 52);
        const double mid = x + (nextafter(x, INFINITY) - x) / 2;
        const double sq = rnd() & 1 ? x * x : mid * mid;
        const double a = isfinite(sq) && sq > 0 ? u2d(d2u(sq) + (rnd() % 5) - 2) : x;
        check("sqrt", a, 0, tvmaf_sd_sqrt(d2u(a)), sqrt(a));
    }
    const double sq_special[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -1.0, 0x1p-1074, 0x1p-1073,
                                  0x1.fffffffffffffp+1023, 0x1p-1022, 4.0, 2.0 };
    for (unsigned i = 0; i < sizeof(sq_special) / sizeof(sq_special[0]); i++) {
        const double a = sq_special[i];
        checked++;
        const uint64_t got = tvmaf_sd_sqrt(d2u(a));
        /* the sign of a zero root, and NaN-ness, as the host gives them */
        if ((isnan(sqrt(a)) ? !isnan(u2d(got)) : got != d2u(sqrt(a))) && failed++ < 10)
            printf("DIFF sqrt(%a): soft %016llx, double %a\n", a, (unsigned long long)got, sqrt(a));
    }
    printf("%-26s %ld doubles, %ld differ\n", "sqrt near its hard cases", n, failed - before_sq);
    /* to_float near its midpoints: a float (normal or subnormal) plus half
     * its unit, nudged by -2..2 units of the double */
    const long before_mid = failed;
    for (long i = 0; i < n; i++) {
        const uint32_t e = (uint32_t)(rnd() % 255);
        const float f = tvmaf_bits2f((uint32_t)(rnd() & 0x807fffffu) | e << 23);
        const double up = nextafterf(f, INFINITY);
        const double mid = ((double)f + up) / 2;
        const double a = u2d(d2u(mid) + (rnd() % 5) - 2);
        check_float(a, tvmaf_sd_to_float(d2u(a)), (float)a);
    }
    printf("%-26s %ld doubles, %ld differ\n", "to_float midpoints", n, failed - before_mid);
    /* int32 to double and back: every 65537th int32 and the ends; doubles
     * within int32's range, truncated (fractions, halves, negative zeros) */
    const long before_i = failed;
    long ints = 0;
    for (int64_t v = INT32_MIN; v <= INT32_MAX; v += v < INT32_MAX - 65537 ? 65537 : 1, ints++) {
        check("from_int32", (double)v, 0, tvmaf_sd_from_int32((int32_t)v), (double)(int32_t)v);
        if (v > INT32_MAX - 3) { if (v == INT32_MAX) break; }
    }
    for (long i = 0; i < n; i++, ints++) {
        const double a = (double)(int32_t)rnd() / (double)(1u << (rnd() % 32));
        const double x = rnd() % 8 == 0 ? -0.0 : (rnd() % 4 == 0 ? floor(a) + 0.5 : a);
        checked++;
        if (tvmaf_sd_to_int32(d2u(x)) != (int32_t)x && failed++ < 10)
            printf("DIFF to_int32(%a): soft %d, C %d\n", x, tvmaf_sd_to_int32(d2u(x)), (int32_t)x);
        /* int64: up to 2^62, fractions included */
        const double y = (double)(int64_t)(rnd() >> 1) / (double)(UINT64_C(1) << (rnd() % 64));
        const double z = rnd() & 1 ? -y : y;
        checked++;
        if (tvmaf_sd_to_int64(d2u(z)) != (int64_t)z && failed++ < 10)
            printf("DIFF to_int64(%a): soft %lld, C %lld\n", z, (long long)tvmaf_sd_to_int64(d2u(z)),
                   (long long)(int64_t)z);
    }
    printf("%-26s %ld values, %ld differ\n", "int32 conversions", ints, failed - before_i);
    /* every 4099th float widened (a stride coprime to the fields) */
    const long before_w = failed;
    long widened = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 4099, widened++) {
        const float f = tvmaf_bits2f((uint32_t)u);
        check("from_float", f, 0, tvmaf_sd_from_float(f), (double)f);
    }
    printf("%-26s %ld floats, %ld differ\n", "from_float", widened, failed - before_w);
    /* the constants the fp64-free programs hold as bits */
    check("vif eps", 65536, 1.0e-10, VIF_EPS_BITS, 65536 * 1.0e-10);
    check("adm 1/4096", 1, 4096, ADM_R4096_BITS, 1.0 / 4096.0);
    check("float_adm 1/30", 1, 30, FADM_ONE_BY_30_BITS, FADM_ONE_BY_30);
    check("float_adm 1/15", 1, 15, FADM_ONE_BY_15_BITS, FADM_ONE_BY_15);
    /* float_adm's taps and eps as the fp64-free program writes them */
    const float hex[] = { FADM_A_HEX, FADM_B_HEX, FADM_C_HEX, -FADM_D_HEX, -FADM_D_HEX,
                          -FADM_C_HEX, FADM_B_HEX, -FADM_A_HEX, FADM_EPS_HEX };
    const float cpu[] = { FADM_LO0, FADM_LO1, FADM_LO2, FADM_LO3, FADM_HI0,
                          FADM_HI1, FADM_HI2, FADM_HI3, FADM_EPS };
    for (int i = 0; i < 9; i++) check("float_adm float", i, 0, tvmaf_sd_from_float(hex[i]), cpu[i]);
    /* float_vif's log2 polynomial: the hex floats every program holds and
     * the reference's decimals rounded to float */
    const float poly_hex[] = FVIF_LOG2_POLY;
    const float poly_dec[] = FVIF_LOG2_POLY_DECIMAL;
    for (int i = 0; i < FVIF_LOG2_POLY_LEN; i++)
        check("float_vif log2 poly", i, 0, tvmaf_sd_from_float(poly_hex[i]), poly_dec[i]);
    check("1.0", 1, 1, TVMAF_SD_ONE, 1.0);
    check("speed eps", 1, 0, SPEED_EIG_EPS_BITS, SPEED_EIG_EPS);
    check("speed -0.5", -0.5, 0, SPEED_MHALF_BITS, -0.5);
    check("speed 2.0", 2, 0, SPEED_TWO_BITS, 2.0);
    printf("%ld checked, %ld differ\n", checked, failed);
    return failed ? 1 : 0;
}
