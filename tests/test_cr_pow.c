/*
 * tvmaf_cr_powf7 / tvmaf_cr_powf2 / tvmaf_cr_pow7 against an exact reference.
 *
 * The reference does not use floating point: a float is m 2^e with m < 2^24,
 * so x^n = m^n 2^(ne) where m^n (n <= 7) is computed exactly as a 192-bit
 * integer, then rounded to nearest-even on the target grid (24 or 53 bits,
 * subnormal spacing 2^-149 or 2^-1074) with its round and sticky bits.
 *
 * Coverage (x^7's position relative to the rounding grid depends on m only,
 * except where the result is subnormal, so sweeping every mantissa and every
 * argument with a subnormal or boundary result covers every float):
 *   powf(x, 7): every float in [2^-24, 2^19] and in [-2^-16, -2^-24]; every
 *               7th float in the rest of the negatives down to -2^19; every
 *               1021st float elsewhere; +-0, +-inf, NaN.
 *   powf(x, 2): every float in [0, 16], every 7th in [-16, 0] (the square of
 *               -x is the same double operation); every 1021st elsewhere.
 *   pow(x, 7):  every mantissa at three exponents; every float below 2^-118;
 *               every 1021st float elsewhere.
 * Also counted, not failed: how often glibc's powf (called through a pointer
 * so the compiler cannot fold powf(x, 2) into x * x) differs from the
 * correctly rounded value. The mantissa sweep reports the smallest distance
 * of m^7 to a float / double midpoint, the margin the double-double
 * evaluation in cr_pow.h relies on (its error is < 2^-102 relative).
 *
 * TVMAF_TEST_QUICK=1 (the sanitizer pass of .ci/run, which looks for memory
 * errors, not for arguments) takes every 61st argument of each range and
 * every 61st mantissa: a sample, not the proof the default run is.
 *
 * Exit 0 when every compared value is identical (as bits; NaN == NaN), else 1.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numerics/cr_pow.h"

/* ---- exact reference ------------------------------------------------------ */

#define LIMBS 3 /* 192 bits >= 7 * 24 */

typedef struct Big {
    uint64_t w[LIMBS]; /* little-endian base 2^64 */
} Big;

typedef unsigned __int128 u128;

/* m^n for m < 2^24 and n = 2 or 7, exactly */
static Big big_pow(uint64_t m, int n)
{
    Big b = { { 0, 0, 0 } };
    const uint64_t m2 = m * m; /* < 2^48 */
    if (n == 2) {
        b.w[0] = m2;
        return b;
    }
    /* m^7 = m^3 m^4 with m^3 = a1 2^64 + a0 < 2^72, m^4 = b1 2^64 + b0 < 2^96 */
    const u128 m3 = (u128)m2 * m, m4 = (u128)m2 * m2;
    const uint64_t a0 = (uint64_t)m3, a1 = (uint64_t)(m3 >> 64);
    const uint64_t b0 = (uint64_t)m4, b1 = (uint64_t)(m4 >> 64);
    const u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1;
    const u128 p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
    u128 t = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    b.w[0] = (uint64_t)p00;
    b.w[1] = (uint64_t)t;
    t = (t >> 64) + (p01 >> 64) + (p10 >> 64) + p11; /* < 2^40: m^7 < 2^168 */
    b.w[2] = (uint64_t)t;
    return b;
}

static int big_bitlen(const Big *b)
{
    for (int k = LIMBS - 1; k >= 0; k--)
        if (b->w[k])
            return 64 * k + 64 - __builtin_clzll(b->w[k]);
    return 0;
}

static int big_bit(const Big *b, int i)
{
    if (i < 0 || i >= 64 * LIMBS)
        return 0;
    return (int)((b->w[i / 64] >> (i % 64)) & 1);
}

/* any bit set below position i */
static int big_any_below(const Big *b, int i)
{
    if (i > 64 * LIMBS)
        i = 64 * LIMBS;
    for (int k = 0; k < i / 64; k++)
        if (b->w[k])
            return 1;
    return i % 64 && (b->w[i / 64] & ((1ull << (i % 64)) - 1));
}

/* bits [lo, lo + 64) as an integer (lo >= 0; bits past the top read as 0) */
static uint64_t big_extract(const Big *b, int lo)
{
    const int k = lo / 64, off = lo % 64;
    const uint64_t w0 = k < LIMBS ? b->w[k] : 0;
    const uint64_t w1 = k + 1 < LIMBS ? b->w[k + 1] : 0;
    return off ? w0 >> off | w1 << (64 - off) : w0;
}

static double big_to_double_approx(const Big *b)
{
    double d = 0;
    for (int k = LIMBS - 1; k >= 0; k--)
        d = d * 0x1p64 + (double)b->w[k];
    return d;
}

typedef struct Format {
    int prec;       /* significand bits */
    int grid_min;   /* exponent of the subnormal spacing */
    int emax;       /* results >= 2^(emax + 1) overflow */
} Format;

/* 2^k for -1022 <= k <= 1023 */
static double pow2(int k)
{
    const uint64_t u = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

static const Format fmt_float = { 24, -149, 127 };
static const Format fmt_double = { 53, -1074, 1023 };

/* x^n rounded to nearest-even in format f, for float x; returned as a double
 * holding the exact rounded value (or +-inf / NaN). */
static double ref_pow(float x, int n, Format f)
{
    if (x != x)
        return NAN;
    uint32_t u;
    memcpy(&u, &x, sizeof(u));
    const int neg = (u >> 31) && (n & 1);
    const uint32_t biased = (u >> 23) & 0xff, frac = u & 0x7fffff;
    if (biased == 0xff)
        return neg ? -INFINITY : INFINITY;
    if (biased == 0 && frac == 0)
        return neg ? -0.0 : 0.0;
    const uint32_t m = biased ? (frac | 0x800000u) : frac;
    const int e = biased ? (int)biased - 150 : -149;

    const Big p = big_pow(m, n);
    const int s = n * e;                      /* value = p 2^s */
    const int top = big_bitlen(&p) - 1 + s;   /* exponent of the leading bit */
    int g = top - (f.prec - 1);               /* exponent of the result's ulp */
    if (g < f.grid_min)
        g = f.grid_min;
    const int shift = g - s;                  /* low bits of p below the ulp */
    uint64_t q;
    if (shift <= 0) {
        q = big_extract(&p, 0) << -shift;     /* exact (fits in prec bits) */
    } else {
        q = big_extract(&p, shift);
        const int round = big_bit(&p, shift - 1);
        const int sticky = big_any_below(&p, shift - 1);
        if (round && (sticky || (q & 1)))
            q++;
    }
    /* q 2^g, exact; q < 2^54 */
    if (q && 63 - __builtin_clzll(q) + g > f.emax)
        return neg ? -INFINITY : INFINITY;
    double r = (double)q;
    if (g < -1022) /* subnormal double: scale in two exact steps */
        r = r * pow2(g + 200) * pow2(-200);
    else
        r = r * pow2(g);
    return neg ? -r : r;
}

/* ---- comparison ------------------------------------------------------------ */

static int same_float(float a, float b)
{
    if (a != a || b != b)
        return a != a && b != b;
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}

static int same_double(double a, double b)
{
    if (a != a || b != b)
        return a != a && b != b;
    uint64_t ua, ub;
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    return ua == ub;
}

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* called through a volatile pointer: GCC folds a direct powf(x, 2.0f) into
 * x * x (which is correctly rounded) at -O1 and above */
static float (*volatile glibc_powf)(float, float) = powf;
static double (*volatile glibc_pow)(double, double) = pow;

/* ---- work items ------------------------------------------------------------ */

enum Func { F_POWF7, F_POWF2, F_POW7 };

typedef struct Range {
    enum Func func;
    uint32_t first, last; /* bit patterns, inclusive, first <= last */
    uint32_t step;
} Range;

typedef struct Stats {
    uint64_t tested, wrong, glibc_diff;
    uint32_t first_wrong, first_glibc; /* bit patterns of the first cases */
    int have_wrong, have_glibc;
} Stats;

static void check_one(enum Func func, uint32_t bits, Stats *st)
{
    const float x = bits_to_float(bits);
    int ok, glibc_same;
    if (func == F_POWF7) {
        const float want = (float)ref_pow(x, 7, fmt_float);
        ok = same_float(tvmaf_cr_powf7(x), want);
        glibc_same = same_float(glibc_powf(x, 7.0f), want);
    } else if (func == F_POWF2) {
        const float want = (float)ref_pow(x, 2, fmt_float);
        ok = same_float(tvmaf_cr_powf2(x), want);
        glibc_same = same_float(glibc_powf(x, 2.0f), want);
    } else {
        const double want = ref_pow(x, 7, fmt_double);
        ok = same_double(tvmaf_cr_pow7((double)x), want);
        glibc_same = same_double(glibc_pow((double)x, 7.0), want);
    }
    st->tested++;
    if (!ok) {
        if (!st->have_wrong)
            st->first_wrong = bits, st->have_wrong = 1;
        st->wrong++;
    }
    if (!glibc_same) {
        if (!st->have_glibc)
            st->first_glibc = bits, st->have_glibc = 1;
        st->glibc_diff++;
    }
}

/* Ranges are cut into chunks of CHUNK steps handed to threads in order. */
#define CHUNK (1u << 20)

typedef struct Job {
    const Range *ranges;
    int nranges;
    uint64_t next;     /* (range index << 32) | chunk index, under lock */
    Stats *per_range;  /* totals per range, under lock */
    pthread_mutex_t lock;
} Job;

static void *worker(void *arg)
{
    Job *job = arg;
    Stats local[16];
    memset(local, 0, sizeof(local));
    for (;;) {
        /* claim the next chunk */
        pthread_mutex_lock(&job->lock);
        uint64_t pos = job->next;
        int ri = (int)(pos >> 32);
        uint64_t ci = pos & 0xffffffffu;
        while (ri < job->nranges) {
            const Range *r = &job->ranges[ri];
            const uint64_t count = ((uint64_t)r->last - r->first) / r->step + 1;
            if (ci * CHUNK < count)
                break;
            ri++, ci = 0;
        }
        job->next = ((uint64_t)ri << 32) | (ci + 1);
        pthread_mutex_unlock(&job->lock);
        if (ri >= job->nranges)
            break;

        const Range *r = &job->ranges[ri];
        const uint64_t count = ((uint64_t)r->last - r->first) / r->step + 1;
        const uint64_t end = ci * CHUNK + CHUNK < count ? ci * CHUNK + CHUNK : count;
        for (uint64_t i = ci * CHUNK; i < end; i++)
            check_one(r->func, (uint32_t)(r->first + i * r->step), &local[ri]);
    }
    pthread_mutex_lock(&job->lock);
    for (int i = 0; i < job->nranges; i++) {
        Stats *d = &job->per_range[i];
        const Stats *s = &local[i];
        /* keep the smallest first-case pattern so the report is reproducible */
        if (s->have_wrong && (!d->have_wrong || s->first_wrong < d->first_wrong))
            d->first_wrong = s->first_wrong, d->have_wrong = 1;
        if (s->have_glibc && (!d->have_glibc || s->first_glibc < d->first_glibc))
            d->first_glibc = s->first_glibc, d->have_glibc = 1;
        d->tested += s->tested, d->wrong += s->wrong, d->glibc_diff += s->glibc_diff;
    }
    pthread_mutex_unlock(&job->lock);
    return NULL;
}

static const char *func_name(enum Func f)
{
    return f == F_POWF7 ? "powf(x, 7)" : f == F_POWF2 ? "powf(x, 2)" : "pow(x, 7) ";
}

/* ---- mantissa sweep: margins and a __float128 cross-check ------------------- */

/* Smallest nonzero |m^7 - midpoint| / m^7 over all 24-bit m, at precision p;
 * ties (distance 0) are counted. */
typedef struct Margin {
    double min_rel;
    uint32_t argmin, ties;
} Margin;

static void margin_update(Margin *mg, const Big *p, uint32_t m, int prec)
{
    const int shift = big_bitlen(p) - prec; /* low bits below the ulp (> 1 here) */
    Big d = *p;
    /* keep the low `shift` bits: the offset from the lower neighbour */
    for (int k = 0; k < LIMBS; k++) {
        const int lo = 64 * k;
        if (lo >= shift)
            d.w[k] = 0;
        else if (lo + 64 > shift)
            d.w[k] &= (1ull << (shift - lo)) - 1;
    }
    /* |d - 2^(shift-1)|, exactly */
    const int half = shift - 1;
    if (big_bit(&d, half)) {
        d.w[half / 64] &= ~(1ull << (half % 64));
    } else {
        /* 2^half - d (d < 2^half) */
        uint64_t borrow = 0;
        for (int k = 0; k < LIMBS; k++) {
            const uint64_t h = (k == half / 64) ? (1ull << (half % 64)) : 0;
            const uint64_t t = h - d.w[k] - borrow;
            borrow = (h < d.w[k] + borrow) || (borrow && d.w[k] == UINT64_MAX);
            d.w[k] = t;
        }
    }
    if (big_bitlen(&d) == 0) {
        mg->ties++;
        return;
    }
    const double rel = big_to_double_approx(&d) / big_to_double_approx(p);
    if (rel < mg->min_rel)
        mg->min_rel = rel, mg->argmin = m;
}

static int mantissa_sweep(uint32_t stride)
{
    Margin mf = { 1.0, 0, 0 }, md = { 1.0, 0, 0 };
    uint64_t q_float_diff = 0, q_double_diff = 0;
    for (uint32_t m = 1u << 23; m < 1u << 24; m += stride) {
        const Big p = big_pow(m, 7);
        margin_update(&mf, &p, m, 24);
        margin_update(&md, &p, m, 53);
        /* __float128 chain (113-bit roundings) then one more rounding: the
         * double rounding is harmless only because of the margins above */
        const float x = ldexpf((float)m, -23);
        const __float128 q = (__float128)x;
        const __float128 q2 = q * q, q7 = q2 * q2 * q2 * q;
        q_float_diff += !same_float((float)q7, (float)ref_pow(x, 7, fmt_float));
        q_double_diff += !same_double((double)q7, ref_pow(x, 7, fmt_double));
    }
    if (stride == 1)
        printf("mantissa sweep (all 2^23 m in [2^23, 2^24)), m^7 vs rounding midpoints:\n");
    else
        printf("mantissa sweep (every %" PRIu32 "th m in [2^23, 2^24)), m^7 vs rounding "
               "midpoints:\n", stride);
    printf("  float:  smallest nonzero relative distance 2^%.2f (m = %" PRIu32
           "), exact ties %" PRIu32 "\n", log2(mf.min_rel), mf.argmin, mf.ties);
    printf("  double: smallest nonzero relative distance 2^%.2f (m = %" PRIu32
           "), exact ties %" PRIu32 "\n", log2(md.min_rel), md.argmin, md.ties);
    printf("  __float128 product then rounding differs from exact: float %" PRIu64
           ", double %" PRIu64 " (not a failure)\n", q_float_diff, q_double_diff);
    /* the margin cr_pow.h relies on: its double-double error is < 2^-102 */
    const int ok = mf.min_rel > 0x1p-100 && md.min_rel > 0x1p-100;
    if (!ok)
        printf("  FAIL: a midpoint is closer than the double-double error bound\n");
    return ok;
}

/* ---- main ------------------------------------------------------------------ */

int main(void)
{
    struct timespec ts, te;
    clock_gettime(CLOCK_MONOTONIC, &ts);

    const uint32_t NEG = 0x80000000u;
    const uint32_t b_m24 = float_to_bits(0x1p-24f), b_m16 = float_to_bits(0x1p-16f);
    const uint32_t b_19 = float_to_bits(0x1p19f), b_16 = float_to_bits(16.0f);
    const uint32_t b_m118 = float_to_bits(0x1p-118f);
    Range ranges[] = {
        /* powf(x, 7): every float in [2^-24, 2^19] (every nonzero finite result) */
        { F_POWF7, b_m24, b_19, 1 },
        { F_POWF7, NEG | b_m24, NEG | b_m16, 1 },
        { F_POWF7, NEG | b_m16, NEG | b_19, 7 },
        { F_POWF7, 0, b_m24, 1021 },
        { F_POWF7, b_19, 0xffffffffu, 1021 }, /* +inf, NaNs, negatives to -NaN */
        /* powf(x, 2): every float in [-16, 16] */
        { F_POWF2, 0, b_16, 1 },
        /* (-x)^2 is computed as the same double square, so negatives are sampled */
        { F_POWF2, NEG, NEG | b_16, 7 },
        { F_POWF2, b_16, NEG, 1021 },
        { F_POWF2, NEG | b_16, 0xffffffffu, 1021 },
        /* pow(x, 7) with a double result: all floats with tiny results */
        { F_POW7, 0, b_m118, 1 },
        { F_POW7, float_to_bits(1.0f), float_to_bits(2.0f), 1 },
        { F_POW7, float_to_bits(0x1p-60f), float_to_bits(0x1p-59f), 1 },
        { F_POW7, float_to_bits(0x1p100f), float_to_bits(0x1p101f), 1 },
        { F_POW7, b_m118, 0xffffffffu, 1021 },
    };
    const int nranges = (int)(sizeof(ranges) / sizeof(ranges[0]));
    const char *quick = getenv("TVMAF_TEST_QUICK");
    const uint32_t stride = quick && *quick && strcmp(quick, "0") ? 61 : 1;
    for (int i = 0; i < nranges; i++)
        ranges[i].step *= stride;

    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > 64)
        nthreads = 64;
    Stats per_range[16];
    memset(per_range, 0, sizeof(per_range));
    Job job = { .ranges = ranges, .nranges = nranges, .next = 0, .per_range = per_range };
    pthread_mutex_init(&job.lock, NULL);
    pthread_t th[64];
    for (long i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, &job);

    /* the sweep runs here while the workers run (it is single-threaded) */
    int ok = mantissa_sweep(stride);

    for (long i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);

    uint64_t glibc7 = 0, glibc7_n = 0, glibc2 = 0, glibc2_n = 0;
    for (int i = 0; i < nranges; i++) {
        const Range *r = &ranges[i];
        const Stats *s = &per_range[i];
        printf("%s [%a, %a] step %-4" PRIu32 ": %10" PRIu64 " args, %" PRIu64
               " wrong, glibc differs on %" PRIu64 "\n",
               func_name(r->func), bits_to_float(r->first), bits_to_float(r->last), r->step,
               s->tested, s->wrong, s->glibc_diff);
        if (s->have_wrong) {
            const float x = bits_to_float(s->first_wrong);
            printf("  first wrong: x = %a\n", x);
        }
        if (s->have_glibc && s->glibc_diff) {
            const float x = bits_to_float(s->first_glibc);
            printf("  first glibc difference: x = %a\n", x);
        }
        ok &= s->wrong == 0;
        if (r->step == stride && r->func == F_POWF7)
            glibc7 += s->glibc_diff, glibc7_n += s->tested;
        if (r->step == stride && r->func == F_POWF2)
            glibc2 += s->glibc_diff, glibc2_n += s->tested;
    }
    const char *swept = stride == 1 ? "exhaustively tested" : "sampled";
    printf("glibc powf(x, 7) not correctly rounded on %" PRIu64 " of %" PRIu64 " %s args\n",
           glibc7, glibc7_n, swept);
    printf("glibc powf(x, 2) not correctly rounded on %" PRIu64 " of %" PRIu64 " %s args\n",
           glibc2, glibc2_n, swept);

    clock_gettime(CLOCK_MONOTONIC, &te);
    printf("%s (%.1f s, %ld threads)\n", ok ? "PASS" : "FAIL",
           (double)(te.tv_sec - ts.tv_sec) + 1e-9 * (double)(te.tv_nsec - ts.tv_nsec), nthreads);
    return ok ? 0 : 1;
}
