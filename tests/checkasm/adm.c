/*
 * checkasm: adm's row kernels (adm_cpu.h) against C: the cm rows (scale 0
 * and scales 1..3) for every reference_isa, on random, extreme and
 * pipeline-like bands, widths 3..130 and 1920, every split of the row into
 * vector and scalar lanes, the real and random shifts and weights; the
 * decouple rows (every int16 reference value, the int32 paths), the int64 to
 * float conversion and the DWT's rows. Then adm as a whole extractor on
 * random and edge frames (odd sizes, every depth): the set's frame_sums, the
 * stages built in the level's instruction set.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm/adm_cpu.h"
#include "checkasm.h"

/* the C set and the level's, from tvmaf_adm_dsp_init */
static AdmKernels ref_k, cur_k;

/* ---- adm cm rows ---------------------------------------------------------- */

static int64_t rand64(void)
{
    const uint64_t hi = checkasm_rand();
    return (int64_t)((hi << 32) | checkasm_rand());
}

/* Band value patterns: random over the type, extremes (min/max/0/-1
 * alternating at random), zero, small random (around pipeline magnitudes). */
enum { CM_RANDOM, CM_EXTREME, CM_ZERO, CM_SMALL, N_CM_PAT };

static int32_t cm_value(int pat, int bits)
{
    const int32_t mx = (int32_t)((1u << (bits - 1)) - 1), mn = -mx - 1;
    switch (pat) {
    case CM_EXTREME: {
        const int32_t e[5] = { mn, mx, 0, -1, mn + 1 };
        return e[checkasm_rand() % 5];
    }
    case CM_ZERO: return 0;
    case CM_SMALL: return (int32_t)(checkasm_rand() % 4001) - 2000;
    default: return bits == 16 ? (int16_t)checkasm_rand() : (int32_t)checkasm_rand();
    }
}

/* A value of scale 0's approximation band (what scale 1's vertical pass
 * reads): any integer within +-ADM_DWT0_A_MAX, by the same patterns. */
static int32_t a0_value(int pat)
{
    const int32_t mx = ADM_DWT0_A_MAX;
    switch (pat) {
    case CM_EXTREME: {
        const int32_t e[5] = { -mx, mx, 0, -1, -mx + 1 };
        return e[checkasm_rand() % 5];
    }
    case CM_ZERO: return 0;
    case CM_SMALL: return (int32_t)(checkasm_rand() % 4001) - 2000;
    default: return (int32_t)(checkasm_rand() % (2 * (unsigned)mx + 1)) - mx;
    }
}

/* Shifts: the real ones of scale 0 (h/v, d) or scales 1..3 (cub from the band
 * width), or random in the ranges the C code is defined on. */
static void cm_shifts(int scale, int w, bool random, AdmCmShift sh[3])
{
    int cub = 0;
    while ((1 << cub) < w) cub++;
    for (int o = 0; o < 3; o++) {
        if (random) {
            sh[o].sub = scale ? 0 : (int)(checkasm_rand() % 32);
            sh[o].sq = 1 + (int)(checkasm_rand() % 40);
            sh[o].cub = (int)(checkasm_rand() % 41);
        } else if (scale) {
            sh[o] = (AdmCmShift){ 0, 30, cub, 0 };
        } else {
            sh[o] = o == 2 ? (AdmCmShift){ 12, 30, cub + 3, 0 }
                           : (AdmCmShift){ 10, 29, cub + 4, 0 };
        }
        sh[o].cub_add = sh[o].cub ? (int64_t)1 << (sh[o].cub - 1) : 0;
    }
}

static void check_adm_cm(int w, int pat)
{
    const AdmKernels *c = &ref_k, *k = &cur_k;
    /* rows: val, csf, flt above / at / below, three orientations */
    int16_t *b16 = malloc(15 * (size_t)w * sizeof(int16_t));
    int32_t *b32 = malloc(15 * (size_t)w * sizeof(int32_t));
    if (!b16 || !b32) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (int i = 0; i < 15 * w; i++) {
        b16[i] = (int16_t)cm_value(pat, 16);
        b32[i] = cm_value(pat, 32);
    }
    if (pat == CM_SMALL) {
        /* flt as the pipeline makes it from a csf band */
        for (int i = 6 * w; i < 15 * w; i++) {
            b16[i] = adm_csf16_flt(b16[i]);
            b32[i] = adm_csf32_flt(b32[i]);
        }
    }
    const int16_t *v16[3], *c16[3], *u16[3], *m16[3], *d16[3];
    const int32_t *v32[3], *c32[3], *u32[3], *m32[3], *d32[3];
    for (int o = 0; o < 3; o++) {
        v16[o] = b16 + (size_t)o * w; v32[o] = b32 + (size_t)o * w;
        c16[o] = b16 + (size_t)(3 + o) * w; c32[o] = b32 + (size_t)(3 + o) * w;
        u16[o] = b16 + (size_t)(6 + o) * w; u32[o] = b32 + (size_t)(6 + o) * w;
        m16[o] = b16 + (size_t)(9 + o) * w; m32[o] = b32 + (size_t)(9 + o) * w;
        d16[o] = b16 + (size_t)(12 + o) * w; d32[o] = b32 + (size_t)(12 + o) * w;
    }
    static const uint16_t rf16_fixed[][3] = { { 36453, 36453, 49417 }, { 65535, 65535, 65535 },
                                              { 0, 1, 32768 } };
    static const uint32_t rf32_fixed[][3] = { { 0x0bc4e6b5u, 0x0bc4e6b5u, 0x05a8f5c2u },
                                              { 0xffffffffu, 0x80000000u, 0x7fffffffu },
                                              { 0, 1, 0xfffffffeu } };
    char what[128];
    for (int isa = 0; isa < 3; isa++)
        for (int trial = 0; trial < 6; trial++) {
            /* interior columns [jb, je): the whole interior, then sub-ranges */
            int jb = 1, je = w - 1;
            if (trial >= 3 && w > 3) {
                jb = 1 + (int)(checkasm_rand() % (unsigned)(w - 2));
                je = jb + (int)(checkasm_rand() % (unsigned)(w - jb));
            }
            if (je <= jb) continue;
            const int n = je - jb;
            /* the splits: the build's own (both block widths), all vector,
             * all scalar, random */
            const int splits[6] = { adm_lanes_cm(isa, 0, jb, je), adm_lanes_cm(isa, 1, jb, je), jb,
                                    je, jb + (int)(checkasm_rand() % (unsigned)(n + 1)),
                                    jb + (int)(checkasm_rand() % (unsigned)(n + 1)) };
            const bool random_shift = trial == 2 || trial == 5;
            for (int sp = 0; sp < 6; sp++) {
                const int jv = splits[sp];
                AdmCmShift sh16[3], sh32[3];
                cm_shifts(0, w, random_shift, sh16);
                cm_shifts(1, w, random_shift, sh32);
                uint16_t rf16[3];
                uint32_t rf32[3];
                for (int o = 0; o < 3; o++) {
                    rf16[o] = sp < 3 ? rf16_fixed[sp][o] : (uint16_t)checkasm_rand();
                    rf32[o] = sp < 3 ? rf32_fixed[sp][o] : checkasm_rand();
                }
                int64_t a0[3], a1[3];
                for (int o = 0; o < 3; o++) a0[o] = a1[o] = rand64();
                c->cm16_row(v16, c16, u16, m16, d16, jb, jv, je, isa, rf16, sh16, a0);
                k->cm16_row(v16, c16, u16, m16, d16, jb, jv, je, isa, rf16, sh16, a1);
                checkasm_checked();
                snprintf(what, sizeof(what), "adm cm16_row w %d [%d %d %d) isa %d pat %d", w, jb,
                         jv, je, isa, pat);
                if (memcmp(a0, a1, sizeof(a0)))
                    checkasm_fail(what, "%" PRId64 " %" PRId64 " %" PRId64 " vs %" PRId64
                         " %" PRId64 " %" PRId64, a0[0], a0[1], a0[2], a1[0], a1[1], a1[2]);
                for (int o = 0; o < 3; o++) a0[o] = a1[o] = rand64();
                c->cm32_row(v32, c32, u32, m32, d32, jb, jv, je, isa, rf32, sh32, a0);
                k->cm32_row(v32, c32, u32, m32, d32, jb, jv, je, isa, rf32, sh32, a1);
                checkasm_checked();
                snprintf(what, sizeof(what), "adm cm32_row w %d [%d %d %d) isa %d pat %d", w, jb,
                         jv, je, isa, pat);
                if (memcmp(a0, a1, sizeof(a0)))
                    checkasm_fail(what, "%" PRId64 " %" PRId64 " %" PRId64 " vs %" PRId64
                         " %" PRId64 " %" PRId64, a0[0], a0[1], a0[2], a1[0], a1[1], a1[2]);
            }
        }
    free(b16);
    free(b32);
}

/* ---- adm decouple rows ----------------------------------------------------- */

static int32_t *adm_recip_table(void)
{
    static int32_t table[65537];
    if (!table[32769])
        for (int d = -32768; d <= 32768; d++) table[d + 32768] = adm_recip_q30(d);
    return table + 32768;
}

/* Scale 0 decouple: reference o and distorted t of one row, random,
 * extreme, or t a scaled and slightly turned o (so the angle test passes and
 * the gain limit applies), for several gain limits (integral or not: the
 * vector lanes' rounding differs only then) and lane splits. */
static void check_adm_decouple(int w, int pat)
{
    const AdmKernels *c = &ref_k, *k = &cur_k;
    int16_t *buf = malloc(12 * (size_t)w * sizeof(int16_t));
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(2); }
    const int16_t *o[3], *t[3];
    int16_t *r0[3], *a0[3], *r1[3], *a1[3];
    /* rows: o, t, then the C's r and a, in buf; the level's r and a in out1 */
    int16_t *out1 = malloc(6 * (size_t)w * sizeof(int16_t));
    if (!out1) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (int q = 0; q < 3; q++) {
        o[q] = buf + (size_t)q * w;
        t[q] = buf + (size_t)(3 + q) * w;
        r0[q] = buf + (size_t)(6 + q) * w;
        a0[q] = buf + (size_t)(9 + q) * w;
        r1[q] = out1 + (size_t)q * w;
        a1[q] = out1 + (size_t)(3 + q) * w;
    }
    int16_t *ow = buf, *tw = buf + 3 * (size_t)w;
    for (int i = 0; i < 3 * w; i++) {
        if (pat == CM_SMALL) {
            /* t = g o plus a little noise, g in [-0.5, 2.5) */
            const int ov = (int)(checkasm_rand() % 8001) - 4000;
            const double g = (double)(checkasm_rand() % 3000) / 1000.0 - 0.5;
            int tv = (int)(ov * g) + (int)(checkasm_rand() % 5) - 2;
            tv = tv > 32767 ? 32767 : (tv < -32768 ? -32768 : tv);
            ow[i] = (int16_t)ov;
            tw[i] = (int16_t)tv;
        } else {
            ow[i] = (int16_t)cm_value(pat, 16);
            tw[i] = (int16_t)cm_value(pat, 16);
            if (pat == CM_EXTREME && (checkasm_rand() & 1)) tw[i] = ow[i];
        }
    }
    const int32_t *recip = adm_recip_table();
    const float cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    static const double egls[] = { 100.0, 1.0, 1.37, 2.5 };
    char what[128];
    for (int e = 0; e < 4; e++)
        for (int sp = 0; sp < 4; sp++) {
            const int jb = sp == 3 && w > 2 ? 1 + (int)(checkasm_rand() % (unsigned)(w - 1)) : 0;
            const int je = w;
            const int jv = sp == 0 ? je
                           : sp == 1 ? jb
                                     : jb + (int)(checkasm_rand() % (unsigned)(je - jb + 1));
            memset(buf + 6 * (size_t)w, 0x5a, 6 * (size_t)w * sizeof(int16_t));
            memset(out1, 0x5a, 6 * (size_t)w * sizeof(int16_t));
            c->decouple16_row(o, t, r0, a0, jb, je, jv, recip, cos1, egls[e]);
            k->decouple16_row(o, t, r1, a1, jb, je, jv, recip, cos1, egls[e]);
            checkasm_checked();
            snprintf(what, sizeof(what), "adm decouple16_row w %d [%d %d %d) egl %g pat %d", w, jb,
                     jv, je, egls[e], pat);
            for (int q = 0; q < 3; q++)
                if (memcmp(r0[q], r1[q], (size_t)w * 2) || memcmp(a0[q], a1[q], (size_t)w * 2)) {
                    checkasm_fail(what, "orientation %d differs", q);
                    break;
                }
        }
    free(buf);
    free(out1);
}

/* Scales 1..3 decouple: o and t int32, in patterns that take every path of
 * the vector rows: small values; |o| above 2^15 (the table reduction, every
 * shift up to 17) with t a scaled and slightly turned o (the angle test and
 * the gain limit), below 2^25 so the dot products stay under 2^51 (the
 * AVX2 row's s51_ps4); random int32 and the extremes (INT32_MIN, whose
 * magnitude is 2^31; dot products past 2^51, which the AVX2 row converts by
 * i64_ps4). Several gain limits and lane splits, as scale 0. */
enum { DEC32_SMALL, DEC32_BIG, DEC32_RANDOM, DEC32_EXTREME, N_DEC32_PAT };

static int32_t dec32_value(int pat)
{
    switch (pat) {
    case DEC32_SMALL: return (int32_t)(checkasm_rand() % 8001) - 4000;
    case DEC32_BIG: {
        const int bits = 15 + (int)(checkasm_rand() % 10); /* |o| in [2^14, 2^25) */
        const int32_t v = (int32_t)(checkasm_rand() % (1u << bits)) + (1 << (bits - 1));
        return checkasm_rand() & 1 ? v : -v;
    }
    case DEC32_EXTREME: {
        static const int32_t e[7] = { INT32_MIN, INT32_MAX, 0, -1, INT32_MIN + 1, 32767, -32768 };
        return e[checkasm_rand() % 7];
    }
    default: return (int32_t)checkasm_rand();
    }
}

static void check_adm_decouple32(int w, int pat)
{
    const AdmKernels *c = &ref_k, *k = &cur_k;
    int32_t *buf = malloc(18 * (size_t)w * sizeof(int32_t));
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(2); }
    const int32_t *o[3], *t[3];
    int32_t *r0[3], *a0[3], *r1[3], *a1[3];
    for (int q = 0; q < 3; q++) {
        o[q] = buf + (size_t)q * w;
        t[q] = buf + (size_t)(3 + q) * w;
        r0[q] = buf + (size_t)(6 + q) * w;
        a0[q] = buf + (size_t)(9 + q) * w;
        r1[q] = buf + (size_t)(12 + q) * w;
        a1[q] = buf + (size_t)(15 + q) * w;
    }
    int32_t *ow = buf, *tw = buf + 3 * (size_t)w;
    for (int i = 0; i < 3 * w; i++) {
        ow[i] = dec32_value(pat);
        if (pat == DEC32_SMALL || pat == DEC32_BIG) {
            /* t = g o plus a little noise, g in [-0.5, 2.5) */
            const double g = (double)(checkasm_rand() % 3000) / 1000.0 - 0.5;
            tw[i] = (int32_t)(ow[i] * g) + (int32_t)(checkasm_rand() % 5) - 2;
        } else {
            tw[i] = dec32_value(pat);
            if (pat == DEC32_EXTREME && (checkasm_rand() & 1)) tw[i] = ow[i];
        }
    }
    const int32_t *recip = adm_recip_table();
    const float cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    static const double egls[] = { 100.0, 1.0, 1.37, 2.5 };
    char what[128];
    for (int e = 0; e < 4; e++)
        for (int sp = 0; sp < 4; sp++) {
            const int jb = sp == 3 && w > 2 ? 1 + (int)(checkasm_rand() % (unsigned)(w - 1)) : 0;
            const int je = w;
            const int jv = sp == 0 ? je
                           : sp == 1 ? jb
                                     : jb + (int)(checkasm_rand() % (unsigned)(je - jb + 1));
            memset(buf + 6 * (size_t)w, 0x5a, 12 * (size_t)w * sizeof(int32_t));
            c->decouple32_row(o, t, r0, a0, jb, je, jv, recip, cos1, egls[e]);
            k->decouple32_row(o, t, r1, a1, jb, je, jv, recip, cos1, egls[e]);
            checkasm_checked();
            snprintf(what, sizeof(what), "adm decouple32_row w %d [%d %d %d) egl %g pat %d", w, jb,
                     jv, je, egls[e], pat);
            for (int q = 0; q < 3; q++)
                if (memcmp(r0[q], r1[q], (size_t)w * 4) || memcmp(a0[q], a1[q], (size_t)w * 4)) {
                    checkasm_fail(what, "orientation %d differs", q);
                    break;
                }
        }
    free(buf);
}

/* The decouple's int64 to float conversion: random values of every
 * magnitude, the extremes, and values just above, at and below the halfway
 * point between two floats, where a double rounding (int64 to double to
 * float) would go wrong: x = f + ulp/2 + d with d in {-1, 0, 1} at many
 * exponents, both signs. Compared as bits. */
static void check_adm_i64_to_float(void)
{
    enum { N = 4096 };
    static int64_t x[N];
    static float f0[N], f1[N];
    int n = 0;
    x[n++] = INT64_MIN;
    x[n++] = INT64_MAX;
    x[n++] = INT64_MIN + 1;
    x[n++] = 0;
    x[n++] = -1;
    for (int e = 24; e < 63 && n + 12 <= N; e++)
        for (int sgn = 0; sgn < 2; sgn++)
            for (int d = -1; d <= 1; d++)
                for (int odd = 0; odd < 2; odd++) {
                    /* a float's kept bits at exponent e: ulp 2^(e - 23) */
                    const uint64_t ulp = (uint64_t)1 << (e - 23);
                    const uint64_t f = ((uint64_t)1 << e) + (odd ? ulp : 0);
                    const int64_t v = (int64_t)(f + ulp / 2 + (uint64_t)(int64_t)d);
                    x[n++] = sgn ? -v : v;
                }
    while (n < N) {
        const int sh = (int)(checkasm_rand() % 64);
        const int64_t v = (int64_t)(((uint64_t)checkasm_rand() << 32 | checkasm_rand()) >> sh);
        x[n++] = checkasm_rand() & 1 ? -v : v;
    }
    ref_k.i64_to_float(x, f0, N);
    cur_k.i64_to_float(x, f1, N);
    checkasm_checked();
    for (int i = 0; i < N; i++)
        if (memcmp(&f0[i], &f1[i], sizeof(float))) {
            checkasm_fail("adm i64_to_float", "x %lld: %a against %a", (long long)x[i],
                 (double)f1[i], (double)f0[i]);
            break;
        }
}

/* The DWT's row kernels on rows of random and extreme samples (any int16 /
 * int32: the SIMD rows are exact for every input), every output range
 * [jb, je) up to the row's interior, and each scale's rounding. */
static void check_adm_dwt(int n, int pat)
{
    const AdmKernels *c = &ref_k, *k = &cur_k;
    const int m = 2 * n + 8; /* interior outputs j < n read samples up to 2n */
    int16_t *s16 = malloc(2 * (size_t)m * sizeof(int16_t));
    int32_t *s32 = malloc(6 * (size_t)m * sizeof(int32_t));
    int32_t *o32 = malloc(16 * (size_t)m * sizeof(int32_t));
    int16_t *o16 = malloc(6 * (size_t)m * sizeof(int16_t));
    if (!s16 || !s32 || !o32 || !o16) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (int i = 0; i < 2 * m; i++) s16[i] = (int16_t)cm_value(pat, 16);
    for (int i = 0; i < 6 * m; i++) s32[i] = cm_value(pat, 32);
    char what[96];
    for (int sp = 0; sp < 3; sp++) {
        const int jb = sp == 2 && n > 2 ? 1 + (int)(checkasm_rand() % (unsigned)(n - 1)) : 1;
        const int je = sp == 1 ? jb + (int)(checkasm_rand() % (unsigned)(n - jb + 1)) : n;
        memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
        memset(o16, 0x5a, 6 * (size_t)m * sizeof(int16_t));
        c->dwt0_hrow(s16, s16 + m, jb, je, o32, o16, o16 + m, o16 + 2 * m);
        k->dwt0_hrow(s16, s16 + m, jb, je, o32 + m, o16 + 3 * m, o16 + 4 * m, o16 + 5 * m);
        checkasm_checked();
        snprintf(what, sizeof(what), "adm dwt0_hrow n %d [%d %d) pat %d", n, jb, je, pat);
        if (memcmp(o32, o32 + m, (size_t)m * 4) || memcmp(o16, o16 + 3 * m, 3 * (size_t)m * 2))
            checkasm_fail(what, "outputs differ");
        for (int scale = 1; scale < 4; scale++) {
            const AdmDwtRound rd = adm_dwt_round(scale);
            int32_t *const x = o32, *const y = o32 + 8 * (size_t)m;
            memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
            c->dwt32_hrow(s32, s32 + m, jb, je, rd.h_add, rd.h_shift, x, x + m, x + 2 * m,
                          x + 3 * m);
            k->dwt32_hrow(s32, s32 + m, jb, je, rd.h_add, rd.h_shift, y, y + m, y + 2 * m,
                          y + 3 * m);
            checkasm_checked();
            snprintf(what, sizeof(what), "adm dwt32_hrow n %d [%d %d) scale %d pat %d", n, jb, je,
                     scale, pat);
            if (memcmp(x, y, 4 * (size_t)m * 4)) checkasm_fail(what, "outputs differ");
            const int32_t *const rows[4] = { s32 + 2 * m, s32 + 3 * m, s32 + 4 * m, s32 + 5 * m };
            const int len = je - jb + 1;
            memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
            c->dwt32_vrow(rows, len, rd.v_add, rd.v_shift, x, x + m);
            k->dwt32_vrow(rows, len, rd.v_add, rd.v_shift, y, y + m);
            checkasm_checked();
            snprintf(what, sizeof(what), "adm dwt32_vrow n %d scale %d pat %d", len, scale, pat);
            if (memcmp(x, y, 2 * (size_t)m * 4)) checkasm_fail(what, "outputs differ");
        }
        /* scale 1's vertical pass on rows of scale 0 approximation values */
        int32_t *const a0 = s32;
        for (int i = 0; i < 6 * m; i++) a0[i] = a0_value(pat);
        const int32_t *const rows[4] = { a0 + 2 * m, a0 + 3 * m, a0 + 4 * m, a0 + 5 * m };
        const int len = je - jb + 1;
        int32_t *const x = o32, *const y = o32 + 8 * (size_t)m;
        memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
        c->dwt1_vrow(rows, len, x, x + m);
        k->dwt1_vrow(rows, len, y, y + m);
        checkasm_checked();
        snprintf(what, sizeof(what), "adm dwt1_vrow n %d pat %d", len, pat);
        if (memcmp(x, y, 2 * (size_t)m * 4)) checkasm_fail(what, "outputs differ");
        for (int i = 0; i < 6 * m; i++) s32[i] = cm_value(pat, 32);
    }
    free(s16);
    free(s32);
    free(o32);
    free(o16);
}

/* Scale 0's vertical pass over w columns at every depth: samples in range,
 * at the extremes of the depth and, above 8 bits, any uint16 (the C's uint32
 * sums are defined for every sample). */
static void check_adm_dwt0_vrow(int w, int bpc, int pat)
{
    const AdmKernels *c = &ref_k, *k = &cur_k;
    uint16_t *s = malloc(4 * (size_t)w * sizeof(uint16_t));
    int16_t *o = malloc(4 * ((size_t)w + 1) * sizeof(int16_t));
    if (!s || !o) { fprintf(stderr, "out of memory\n"); exit(2); }
    const uint32_t mx = (1u << bpc) - 1;
    for (int i = 0; i < 4 * w; i++) {
        uint32_t v;
        switch (pat) {
        case CM_EXTREME: v = (checkasm_rand() & 1) ? mx : 0; break;
        case CM_ZERO: v = mx / 2 + 1; break;
        case CM_SMALL: v = checkasm_rand() & mx; break;
        default: v = bpc == 8 ? checkasm_rand() & 255 : checkasm_rand() & 0xffff; break;
        }
        s[i] = (uint16_t)v;
    }
    uint8_t *s8 = (uint8_t *)malloc(4 * (size_t)w);
    if (!s8) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (int i = 0; i < 4 * w; i++) s8[i] = (uint8_t)s[i];
    const void *rows[4];
    for (int r = 0; r < 4; r++)
        rows[r] = bpc == 8 ? (const void *)(s8 + (size_t)r * w) : (const void *)(s + (size_t)r * w);
    memset(o, 0x5a, 4 * ((size_t)w + 1) * sizeof(int16_t));
    c->dwt0_vrow(rows, w, bpc, o, o + w + 1);
    k->dwt0_vrow(rows, w, bpc, o + 2 * (w + 1), o + 3 * (w + 1));
    checkasm_checked();
    char what[80];
    snprintf(what, sizeof(what), "adm dwt0_vrow w %d bpc %d pat %d", w, bpc, pat);
    if (memcmp(o, o + 2 * (w + 1), 2 * ((size_t)w + 1) * sizeof(int16_t)))
        checkasm_fail(what, "outputs differ");
    free(s);
    free(s8);
    free(o);
}

static void adm_kernels_pair(const int16_t *const o[3], const int16_t *const t[3],
                             int16_t *const r0[3], int16_t *const a0[3], int16_t *const r1[3],
                             int16_t *const a1[3], int w, float cos1)
{
    const int32_t *recip = adm_recip_table();
    ref_k.decouple16_row(o, t, r0, a0, 0, w, w / 2, recip, cos1, 1.37);
    cur_k.decouple16_row(o, t, r1, a1, 0, w, w / 2, recip, cos1, 1.37);
}

/* The SIMD decouples compute the reciprocal table's entries as 2^30 / d in
 * double, truncated: that equals the table for every d (checked here). */
static void check_recip_division(void)
{
    checkasm_checked();
    for (int d = -32768; d <= 32768; d++)
        if (d && (int32_t)(1073741824.0 / (double)d) != adm_recip_q30(d)) {
            checkasm_fail("adm reciprocal by division", "d %d", d);
            break;
        }
}

/* Every int16 reference value, against extreme and random distorted ones:
 * the reciprocal of each o (a table in C) and the clip of the gain. */
static void check_adm_decouple_all_o(void)
{
    const int w = 65536;
    int16_t *buf = malloc(18 * (size_t)w * sizeof(int16_t));
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(2); }
    const int16_t *o[3], *t[3];
    int16_t *r0[3], *a0[3], *r1[3], *a1[3];
    for (int q = 0; q < 3; q++) {
        o[q] = buf + (size_t)q * w;
        t[q] = buf + (size_t)(3 + q) * w;
        r0[q] = buf + (size_t)(6 + q) * w;
        a0[q] = buf + (size_t)(9 + q) * w;
        r1[q] = buf + (size_t)(12 + q) * w;
        a1[q] = buf + (size_t)(15 + q) * w;
    }
    const float cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    char what[96];
    for (int pat = 0; pat < 4; pat++) {
        for (int q = 0; q < 3; q++)
            for (int j = 0; j < w; j++) {
                const int ov = -32768 + (j + 9973 * q) % 65536;
                ((int16_t *)o[q])[j] = (int16_t)ov;
                int16_t tv;
                switch (pat) {
                case 0: tv = 32767; break;
                case 1: tv = -32768; break;
                case 2: tv = (int16_t)checkasm_rand(); break;
                default: tv = (int16_t)(ov + (int)(checkasm_rand() % 9) - 4); break;
                }
                ((int16_t *)t[q])[j] = tv;
            }
        adm_kernels_pair(o, t, r0, a0, r1, a1, w, cos1);
        checkasm_checked();
        snprintf(what, sizeof(what), "adm decouple16_row every o, pattern %d", pat);
        for (int q = 0; q < 3; q++)
            if (memcmp(r0[q], r1[q], (size_t)w * 2) || memcmp(a0[q], a1[q], (size_t)w * 2)) {
                checkasm_fail(what, "orientation %d differs", q);
                break;
            }
    }
    free(buf);
}

void checkasm_check_adm(void)
{
    tvmaf_adm_dsp_init(&ref_k, 0);
    tvmaf_adm_dsp_init(&cur_k, checkasm_flags());
    check_recip_division();
    for (int w = 3; w <= 130; w++)
        for (int pat = 0; pat < N_CM_PAT; pat++) {
            check_adm_cm(w, pat);
            check_adm_decouple(w, pat);
        }
    for (int w = 1; w <= 130; w++)
        for (int pat = 0; pat < N_DEC32_PAT; pat++) check_adm_decouple32(w, pat);
    for (int n = 1; n <= 130; n++)
        for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_dwt(n, pat);
    for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_dwt(1920, pat);
    for (int w = 1; w <= 130; w++)
        for (int b = 8; b <= 16; b += 2)
            for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_dwt0_vrow(w, b == 14 ? 16 : b, pat);
    for (int w = 1; w < 3; w++)
        for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_decouple(w, pat);
    check_adm_decouple_all_o();
    check_adm_i64_to_float();
    for (int pat = 0; pat < N_CM_PAT; pat++) {
        check_adm_cm(1920, pat);
        check_adm_decouple(1920, pat);
    }
    for (int pat = 0; pat < N_DEC32_PAT; pat++) check_adm_decouple32(1920, pat);
    /* adm needs 33 samples a side; odd sizes, every depth */
    static const char *const features[] = { "adm=debug=true", NULL };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const unsigned sizes[][2] = { { 33, 33 }, { 34, 35 }, { 64, 48 }, { 97, 41 },
                                         { 130, 67 }, { 177, 99 } };
    for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
        for (unsigned d = 0; d < 4; d++)
            checkasm_check_frames(features, sizes[sz][0], sizes[sz][1], depths[d]);
}

/* ---- bench ---------------------------------------------------------------- */

typedef struct AdmBench {
    int kernel;
    int w;
    /* cm: 15 rows (val, csf, flt above/at/below; h, v, d) of each type */
    int16_t *cm16;
    int32_t *cm32;
    int16_t *dec16; /* decouple's r and a rows */
    int32_t *dec32;
    int32_t *a0;          /* four rows within +-ADM_DWT0_A_MAX */
    const int32_t *recip; /* reciprocal table, entry of 0 */
    float cos1;
    volatile int64_t sink;
} AdmBench;

enum { K_CM16, K_CM32, K_DEC16, K_DEC32, K_DWT32V, K_DWT1V, N_BENCH };
static const char *const bench_names[N_BENCH] = {
    "adm cm16_row (avx512 lanes)", "adm cm32_row (avx512 lanes)", "adm decouple16_row",
    "adm decouple32_row", "adm dwt32_vrow (scale 2)", "adm dwt1_vrow",
};

static void bench_call(void *arg, const void *set)
{
    AdmBench *b = arg;
    const AdmKernels *k = set;
    const int w = b->w;
    const size_t q = (size_t)w;
    switch (b->kernel) {
    case K_CM16:
    case K_CM32: {
        /* one row of a 1920-wide band, the golden host's lanes */
        static const uint16_t rf16[3] = { 36453, 36453, 49417 };
        static const uint32_t rf32[3] = { 0x0bc4e6b5u, 0x0bc4e6b5u, 0x05a8f5c2u };
        static const AdmCmShift sh16[3] = { { 10, 29, 15, 1 << 14 }, { 10, 29, 15, 1 << 14 },
                                            { 12, 30, 14, 1 << 13 } };
        static const AdmCmShift sh32[3] = { { 0, 30, 11, 1 << 10 }, { 0, 30, 11, 1 << 10 },
                                            { 0, 30, 11, 1 << 10 } };
        const int jb = 192, je = w - 192;
        const int jv = adm_lanes_cm(ADM_ISA_AVX512, b->kernel == K_CM32, jb, je);
        int64_t acc[3] = { 0, 0, 0 };
        if (b->kernel == K_CM16) {
            const int16_t *p = b->cm16;
            k->cm16_row((const int16_t *const[3]){ p, p + q, p + 2 * q },
                        (const int16_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                        (const int16_t *const[3]){ p + 6 * q, p + 7 * q, p + 8 * q },
                        (const int16_t *const[3]){ p + 9 * q, p + 10 * q, p + 11 * q },
                        (const int16_t *const[3]){ p + 12 * q, p + 13 * q, p + 14 * q },
                        jb, jv, je, ADM_ISA_AVX512, rf16, sh16, acc);
        } else {
            const int32_t *p = b->cm32;
            k->cm32_row((const int32_t *const[3]){ p, p + q, p + 2 * q },
                        (const int32_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                        (const int32_t *const[3]){ p + 6 * q, p + 7 * q, p + 8 * q },
                        (const int32_t *const[3]){ p + 9 * q, p + 10 * q, p + 11 * q },
                        (const int32_t *const[3]){ p + 12 * q, p + 13 * q, p + 14 * q },
                        jb, jv, je, ADM_ISA_AVX512, rf32, sh32, acc);
        }
        b->sink += acc[0] + acc[1] + acc[2];
        break;
    }
    case K_DEC16: {
        /* reference and distorted: the cm buffers' first rows (near-equal
         * small values, so the angle test often passes) */
        const int16_t *p = b->cm16;
        int16_t *o = b->dec16;
        k->decouple16_row((const int16_t *const[3]){ p, p + q, p + 2 * q },
                          (const int16_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                          (int16_t *const[3]){ o, o + q, o + 2 * q },
                          (int16_t *const[3]){ o + 3 * q, o + 4 * q, o + 5 * q }, 0, w,
                          w - w % 16, b->recip, b->cos1, 100.0);
        break;
    }
    case K_DWT32V:
    case K_DWT1V: {
        /* four rows of scale 0's approximation band (the 32-bit cm rows,
         * below 2^18 in magnitude, for scale 2; clamped to the band's range
         * for scale 1), results in the decouple rows */
        const int32_t *p = b->kernel == K_DWT1V ? b->a0 : b->cm32;
        const int32_t *const rows[4] = { p, p + q, p + 2 * q, p + 3 * q };
        if (b->kernel == K_DWT1V) {
            k->dwt1_vrow(rows, w, b->dec32, b->dec32 + q);
        } else {
            const AdmDwtRound rd = adm_dwt_round(2);
            k->dwt32_vrow(rows, w, rd.v_add, rd.v_shift, b->dec32, b->dec32 + q);
        }
        break;
    }
    default: {
        /* the cm buffers' 32-bit rows (values below 2^18: the vector path) */
        const int32_t *p = b->cm32;
        int32_t *o = b->dec32;
        k->decouple32_row((const int32_t *const[3]){ p, p + q, p + 2 * q },
                          (const int32_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                          (int32_t *const[3]){ o, o + q, o + 2 * q },
                          (int32_t *const[3]){ o + 3 * q, o + 4 * q, o + 5 * q }, 0, w,
                          w - w % 16, b->recip, b->cos1, 100.0);
        break;
    }
    }
}

void checkasm_bench_adm(void)
{
    static AdmBench b = { .w = 1920 };
    const size_t w = (size_t)b.w;
    /* cm bands of pipeline magnitudes: values and csf small, flt from csf */
    b.cm16 = checkasm_alloc(15 * w * sizeof(int16_t));
    b.cm32 = checkasm_alloc(15 * w * sizeof(int32_t));
    b.dec16 = checkasm_alloc(6 * w * sizeof(int16_t));
    b.dec32 = checkasm_alloc(6 * w * sizeof(int32_t));
    b.a0 = checkasm_alloc(4 * w * sizeof(int32_t));
    b.recip = adm_recip_table();
    b.cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    for (size_t i = 0; i < 15 * w; i++) {
        b.cm16[i] = (int16_t)((int)(checkasm_rand() % 4001) - 2000);
        b.cm32[i] = (int32_t)(checkasm_rand() % 400001) - 200000;
        if (i >= 6 * w) {
            b.cm16[i] = adm_csf16_flt(b.cm16[i]);
            b.cm32[i] = adm_csf32_flt(b.cm32[i]);
        }
    }
    for (size_t i = 0; i < 4 * w; i++) {
        const int32_t v = b.cm32[i] / 8;
        b.a0[i] = v > ADM_DWT0_A_MAX ? ADM_DWT0_A_MAX : (v < -ADM_DWT0_A_MAX ? -ADM_DWT0_A_MAX : v);
    }
    /* rows 3..5 (cm's csf, decouple's distorted): rows 0..2 plus noise */
    for (size_t i = 3 * w; i < 6 * w; i++)
        b.cm16[i] = (int16_t)(b.cm16[i - 3 * w] + (int)(checkasm_rand() % 17) - 8);
    AdmKernels sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++)
        tvmaf_adm_dsp_init(&sets[l], checkasm_bench_flags(l));
    for (int k = 0; k < N_BENCH; k++) {
        b.kernel = k;
        checkasm_bench(bench_names[k], bench_call, &b, sets, sizeof(sets[0]));
    }
    free(b.cm16); free(b.cm32); free(b.dec16); free(b.dec32); free(b.a0);
}
