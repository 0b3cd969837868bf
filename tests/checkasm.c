/*
 * checkasm: every SIMD kernel against its C kernel, output bits compared, at
 * every level this processor has (dav1d's model).
 *
 *   kernels: vif's and motion's row kernels on random and edge inputs
 *            (widths 1..130 and 1920, every depth 8..16, all-zero,
 *            all-maximum and alternating extremes, odd sizes); adm's cm row
 *            kernels (scale 0 and scales 1..3) for every reference_isa, on
 *            random, extreme and pipeline-like bands, widths 3..130 and 1920,
 *            every split of the row into vector and scalar lanes, the real
 *            and random shifts and weights;
 *   frames:  vif, adm and motion as whole extractors on random and edge
 *            frames (odd sizes, every depth), every output value compared as
 *            bits between a context capped to C (--cpumask) and one at the
 *            level (adm's stages are compiled per level as one unit).
 *
 *   checkasm [--seed N] [--bench]
 * --bench prints each kernel's time per call at C and at each level, and the
 * speed-up. Exit status 1 on any difference.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#include "core/collector.h"
#include "core/cpu.h"
#include "core/internal.h"
#include "feature/adm/adm_cpu.h"
#include "feature/motion/motion_cpu.h"
#include "feature/vif/vif_cpu.h"

typedef struct Level {
    const char *name;
    unsigned flag;
    const VifKernels *vif;
    const MotionKernels *motion;
    const AdmKernels *adm;
} Level;

static unsigned n_fail, n_checks;
static uint64_t rng_state;

static uint32_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static void fail(const char *what, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(const char *what, const char *level, const char *fmt, ...)
{
    if (n_fail++ < 20) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL %s at %s: ", what, level);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

/* Sample patterns: random, all zero, all maximum, alternating 0 / max,
 * random near the extremes, and (16-bit buffers) random over all 16 bits
 * whatever the declared depth: samples above the depth are scored as they
 * are, so the SIMD kernels must keep the C's wrap and truncation there too. */
enum { PAT_RANDOM, PAT_ZERO, PAT_MAX, PAT_ALT, PAT_EDGES, PAT_ABOVE, N_PAT };

static unsigned sample(int pat, unsigned maxv, unsigned i)
{
    switch (pat) {
    case PAT_ZERO: return 0;
    case PAT_MAX: return maxv;
    case PAT_ALT: return (i & 1) ? maxv : 0;
    case PAT_EDGES: return (rnd() & 1) ? maxv - (rnd() & 3) : (rnd() & 3);
    default: return rnd() & maxv;
    }
}

static void fill8(uint8_t *p, size_t n, int pat)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)sample(pat, 255, (unsigned)i);
}

static void fill16(uint16_t *p, size_t n, int pat, unsigned bpc)
{
    const unsigned maxv = pat == PAT_ABOVE ? 0xffffu : (1u << bpc) - 1;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint16_t)sample(pat == PAT_ABOVE ? PAT_RANDOM : pat, maxv, (unsigned)i);
}

/* ---- vif ----------------------------------------------------------------- */

#define VIF_ROWS_H 20
#define VIF_PAD VIF_MAX_HALF

typedef struct VifRows {
    uint16_t *mem;
    uint16_t *row[VIF_N_ROWS];
} VifRows;

static int vif_rows_alloc(VifRows *r, unsigned w)
{
    const size_t len = w + 2 * VIF_PAD;
    r->mem = calloc(VIF_N_ROWS * len, sizeof(uint16_t));
    if (!r->mem) return -1;
    for (unsigned q = 0; q < VIF_N_ROWS; q++) r->row[q] = r->mem + q * len + VIF_PAD;
    return 0;
}

static bool vif_rows_equal(const VifRows *a, const VifRows *b, unsigned w)
{
    for (unsigned q = 0; q < VIF_N_ROWS; q++)
        if (memcmp(a->row[q], b->row[q], w * sizeof(uint16_t))) return false;
    return true;
}

/* Mirrors the padding as vif.c does (enough samples: w > half). */
static void vif_pad(VifRows *r, unsigned w, unsigned half)
{
    for (unsigned q = 0; q < VIF_N_ROWS; q++)
        for (unsigned f = 1; f <= half && f < w; f++) {
            r->row[q][-(int)f] = r->row[q][f];
            r->row[q][w - 1 + f] = r->row[q][w - 1 - f];
        }
}

static void check_vif(const Level *lv, unsigned w, unsigned bpc, int pat)
{
    const unsigned h = VIF_ROWS_H;
    const size_t n = (size_t)w * h;
    uint8_t *r8 = malloc(n), *d8 = malloc(n);
    uint16_t *r16 = malloc(n * 2), *d16 = malloc(n * 2);
    VifRows a, b;
    if (!r8 || !d8 || !r16 || !d16 || vif_rows_alloc(&a, w) || vif_rows_alloc(&b, w)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    fill8(r8, n, pat);
    fill8(d8, n, pat == PAT_ALT ? PAT_RANDOM : pat);
    fill16(r16, n, pat, bpc);
    fill16(d16, n, pat == PAT_ALT ? PAT_RANDOM : pat, bpc);
    if (pat == PAT_RANDOM && (w & 1)) {
        /* a distorted copy close to the reference: positive covariances, so
         * the statistic's gain and log terms are exercised */
        const int m16 = (1 << bpc) - 1;
        for (size_t i = 0; i < n; i++) {
            const int e = (int)(rnd() % 9) - 4;
            const int v8 = r8[i] + e, v16 = r16[i] + e * (1 << (bpc - 8));
            d8[i] = (uint8_t)(v8 < 0 ? 0 : v8 > 255 ? 255 : v8);
            d16[i] = (uint16_t)(v16 < 0 ? 0 : v16 > m16 ? m16 : v16);
        }
    }
    static uint16_t log2_table[VIF_LOG2_TABLE_ALLOC];
    vif_log2_table_fill(log2_table, vif_log2_steps);
    const VifKernels *c = &tvmaf_vif_kernels_c, *s = lv->vif;
    char what[96];

    for (unsigned scale = 0; scale < VIF_N_SCALES; scale++) {
        const bool is8 = bpc == 8 && scale == 0;
        /* scales after 0 hold 16-bit samples whatever the input depth */
        const unsigned sbpc = scale ? 16 : bpc;
        if (scale && bpc != 16) continue; /* 16-bit samples: once, at bpc 16 */
        const unsigned mu = vif_stat_mu_shift(scale, sbpc), sq = vif_stat_sq_shift(scale, sbpc);
        const unsigned half = vif_filter_width[scale] / 2;
        for (unsigned i = 0; i < h; i += 3) {
            memset(a.mem, 0xa5, VIF_N_ROWS * (w + 2 * VIF_PAD) * sizeof(uint16_t));
            memset(b.mem, 0xa5, VIF_N_ROWS * (w + 2 * VIF_PAD) * sizeof(uint16_t));
            if (h <= half) continue;
            if (is8) {
                c->stat_vertical_8(a.row, r8, w, d8, w, w, h, i, mu, sq);
                s->stat_vertical_8(b.row, r8, w, d8, w, w, h, i, mu, sq);
            } else {
                c->stat_vertical_16(a.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu, sq);
                s->stat_vertical_16(b.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu, sq);
            }
            n_checks++;
            snprintf(what, sizeof(what), "vif stat_vertical_%s scale %u w %u bpc %u row %u",
                     is8 ? "8" : "16", scale, w, sbpc, i);
            if (!vif_rows_equal(&a, &b, w)) fail(what, lv->name, "rows differ");
            /* the horizontal pass on the C rows, padded as vif.c pads */
            vif_pad(&a, w, half);
            VifSums sc = { 0, 0, 0, 0 }, ss = { 0, 0, 0, 0 };
            c->stat_horizontal(a.row, w, scale, log2_table, 100.0, &sc);
            s->stat_horizontal(a.row, w, scale, log2_table, 100.0, &ss);
            VifSums gc = { 0, 0, 0, 0 }, gs = { 0, 0, 0, 0 };
            c->stat_horizontal(a.row, w, scale, log2_table, 1.0, &gc);
            s->stat_horizontal(a.row, w, scale, log2_table, 1.0, &gs);
            n_checks++;
            snprintf(what, sizeof(what), "vif stat_horizontal scale %u w %u bpc %u row %u",
                     scale, w, sbpc, i);
            if (memcmp(&sc, &ss, sizeof(sc)) || memcmp(&gc, &gs, sizeof(gc)))
                fail(what, lv->name, "sums %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                     " vs %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, sc.num_log, sc.den_log,
                     sc.num_lin, sc.den_lin, ss.num_log, ss.den_log, ss.num_lin, ss.den_lin);
        }
        if (scale + 1 >= VIF_N_SCALES) continue;
        const unsigned next = scale + 1, shift = vif_down_shift(scale, sbpc);
        const unsigned w2 = w / 2;
        for (unsigned i = 0; i < h; i += 2) {
            memset(a.mem, 0x5a, VIF_N_ROWS * (w + 2 * VIF_PAD) * sizeof(uint16_t));
            memset(b.mem, 0x5a, VIF_N_ROWS * (w + 2 * VIF_PAD) * sizeof(uint16_t));
            const void *rr = is8 ? (const void *)r8 : r16, *dd = is8 ? (const void *)d8 : d16;
            const ptrdiff_t st = is8 ? w : 2 * w;
            c->down_vertical(a.row[VIF_MU1], a.row[VIF_MU2], rr, st, dd, st, is8, w, h, i, next,
                             shift);
            s->down_vertical(b.row[VIF_MU1], b.row[VIF_MU2], rr, st, dd, st, is8, w, h, i, next,
                             shift);
            n_checks++;
            snprintf(what, sizeof(what), "vif down_vertical scale %u w %u bpc %u row %u", scale,
                     w, sbpc, i);
            if (memcmp(a.row[VIF_MU1], b.row[VIF_MU1], w * 2) ||
                memcmp(a.row[VIF_MU2], b.row[VIF_MU2], w * 2))
                fail(what, lv->name, "rows differ");
            vif_pad(&a, w, vif_filter_width[next] / 2);
            uint16_t *oc = a.row[VIF_XX_LO], *od = a.row[VIF_XX_HI];
            uint16_t *sc2 = b.row[VIF_XX_LO], *sd = b.row[VIF_XX_HI];
            c->down_horizontal(oc, od, a.row[VIF_MU1], a.row[VIF_MU2], w2, next);
            s->down_horizontal(sc2, sd, a.row[VIF_MU1], a.row[VIF_MU2], w2, next);
            n_checks++;
            snprintf(what, sizeof(what), "vif down_horizontal scale %u w %u", scale, w);
            if (memcmp(oc, sc2, w2 * 2) || memcmp(od, sd, w2 * 2))
                fail(what, lv->name, "samples differ");
        }
    }
    free(r8); free(d8); free(r16); free(d16);
    free(a.mem); free(b.mem);
}

/* ---- motion --------------------------------------------------------------- */

static void check_motion(const Level *lv, unsigned w, unsigned bpc, int pat)
{
    const MotionKernels *c = &tvmaf_motion_kernels_c, *s = lv->motion;
    uint8_t *p8[5], *c8[5];
    uint16_t *p16[5], *c16[5];
    for (int k = 0; k < 5; k++) {
        p8[k] = malloc(w); c8[k] = malloc(w);
        p16[k] = malloc(2 * w); c16[k] = malloc(2 * w);
        if (!p8[k] || !c8[k] || !p16[k] || !c16[k]) { fprintf(stderr, "out of memory\n"); exit(2); }
        fill8(p8[k], w, pat);
        fill8(c8[k], w, pat == PAT_MAX ? PAT_ZERO : PAT_RANDOM);
        fill16(p16[k], w, pat, bpc);
        fill16(c16[k], w, pat == PAT_MAX ? PAT_ZERO : PAT_RANDOM, bpc);
    }
    int32_t *ya = malloc(w * sizeof(int32_t)), *yb = malloc(w * sizeof(int32_t));
    if (!ya || !yb) { fprintf(stderr, "out of memory\n"); exit(2); }
    char what[96];
    int32_t anya, anyb;
    if (bpc == 8) {
        anya = c->vrow_8((const uint8_t *const *)p8, (const uint8_t *const *)c8, ya, w);
        anyb = s->vrow_8((const uint8_t *const *)p8, (const uint8_t *const *)c8, yb, w);
    } else {
        anya = c->vrow_16((const uint16_t *const *)p16, (const uint16_t *const *)c16, ya, w, bpc);
        anyb = s->vrow_16((const uint16_t *const *)p16, (const uint16_t *const *)c16, yb, w, bpc);
    }
    n_checks++;
    snprintf(what, sizeof(what), "motion vrow_%s w %u bpc %u", bpc == 8 ? "8" : "16", w, bpc);
    if (anya != anyb || memcmp(ya, yb, w * sizeof(int32_t))) fail(what, lv->name, "rows differ");
    if (w >= MOTION_MIN_SIDE) {
        n_checks++;
        snprintf(what, sizeof(what), "motion hrow_sad w %u bpc %u", w, bpc);
        const uint32_t sa = c->hrow_sad(ya, w), sb = s->hrow_sad(ya, w);
        if (sa != sb) fail(what, lv->name, "%u vs %u", sa, sb);
        /* extremes of the vertical-pass range */
        for (unsigned j = 0; j < w; j++) ya[j] = (j & 1) ? 65535 : -65535;
        n_checks++;
        if (c->hrow_sad(ya, w) != s->hrow_sad(ya, w)) fail(what, lv->name, "extreme row");
    }
    for (int k = 0; k < 5; k++) { free(p8[k]); free(c8[k]); free(p16[k]); free(c16[k]); }
    free(ya); free(yb);
}

/* ---- adm cm rows ---------------------------------------------------------- */

/* Band value patterns: random over the type, extremes (min/max/0/-1
 * alternating at random), zero, small random (around pipeline magnitudes). */
enum { CM_RANDOM, CM_EXTREME, CM_ZERO, CM_SMALL, N_CM_PAT };

static int32_t cm_value(int pat, int bits)
{
    const int32_t mx = (int32_t)((1u << (bits - 1)) - 1), mn = -mx - 1;
    switch (pat) {
    case CM_EXTREME: {
        const int32_t e[5] = { mn, mx, 0, -1, mn + 1 };
        return e[rnd() % 5];
    }
    case CM_ZERO: return 0;
    case CM_SMALL: return (int32_t)(rnd() % 4001) - 2000;
    default: return bits == 16 ? (int16_t)rnd() : (int32_t)rnd();
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
            sh[o].sub = scale ? 0 : (int)(rnd() % 32);
            sh[o].sq = 1 + (int)(rnd() % 40);
            sh[o].cub = (int)(rnd() % 41);
        } else if (scale) {
            sh[o] = (AdmCmShift){ 0, 30, cub, 0 };
        } else {
            sh[o] = o == 2 ? (AdmCmShift){ 12, 30, cub + 3, 0 } : (AdmCmShift){ 10, 29, cub + 4, 0 };
        }
        sh[o].cub_add = sh[o].cub ? (int64_t)1 << (sh[o].cub - 1) : 0;
    }
}

static void check_adm_cm(const Level *lv, int w, int pat)
{
    const AdmKernels *c = &tvmaf_adm_kernels_c, *k = lv->adm;
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
                jb = 1 + (int)(rnd() % (unsigned)(w - 2));
                je = jb + (int)(rnd() % (unsigned)(w - jb));
            }
            if (je <= jb) continue;
            const int n = je - jb;
            /* the splits: the build's own (both block widths), all vector,
             * all scalar, random */
            const int splits[6] = { adm_lanes_cm(isa, 0, jb, je), adm_lanes_cm(isa, 1, jb, je), jb,
                                    je, jb + (int)(rnd() % (unsigned)(n + 1)),
                                    jb + (int)(rnd() % (unsigned)(n + 1)) };
            const bool random_shift = trial == 2 || trial == 5;
            for (int sp = 0; sp < 6; sp++) {
                const int jv = splits[sp];
                AdmCmShift sh16[3], sh32[3];
                cm_shifts(0, w, random_shift, sh16);
                cm_shifts(1, w, random_shift, sh32);
                uint16_t rf16[3];
                uint32_t rf32[3];
                for (int o = 0; o < 3; o++) {
                    rf16[o] = sp < 3 ? rf16_fixed[sp][o] : (uint16_t)rnd();
                    rf32[o] = sp < 3 ? rf32_fixed[sp][o] : rnd();
                }
                int64_t a0[3], a1[3];
                for (int o = 0; o < 3; o++) a0[o] = a1[o] = (int64_t)(((uint64_t)rnd() << 32) | rnd());
                c->cm16_row(v16, c16, u16, m16, d16, jb, jv, je, isa, rf16, sh16, a0);
                k->cm16_row(v16, c16, u16, m16, d16, jb, jv, je, isa, rf16, sh16, a1);
                n_checks++;
                snprintf(what, sizeof(what), "adm cm16_row w %d [%d %d %d) isa %d pat %d", w, jb,
                         jv, je, isa, pat);
                if (memcmp(a0, a1, sizeof(a0)))
                    fail(what, lv->name, "%" PRId64 " %" PRId64 " %" PRId64 " vs %" PRId64
                         " %" PRId64 " %" PRId64, a0[0], a0[1], a0[2], a1[0], a1[1], a1[2]);
                for (int o = 0; o < 3; o++) a0[o] = a1[o] = (int64_t)(((uint64_t)rnd() << 32) | rnd());
                c->cm32_row(v32, c32, u32, m32, d32, jb, jv, je, isa, rf32, sh32, a0);
                k->cm32_row(v32, c32, u32, m32, d32, jb, jv, je, isa, rf32, sh32, a1);
                n_checks++;
                snprintf(what, sizeof(what), "adm cm32_row w %d [%d %d %d) isa %d pat %d", w, jb,
                         jv, je, isa, pat);
                if (memcmp(a0, a1, sizeof(a0)))
                    fail(what, lv->name, "%" PRId64 " %" PRId64 " %" PRId64 " vs %" PRId64
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
static void check_adm_decouple(const Level *lv, int w, int pat)
{
    const AdmKernels *c = &tvmaf_adm_kernels_c, *k = lv->adm;
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
            const int ov = (int)(rnd() % 8001) - 4000;
            const double g = (double)(rnd() % 3000) / 1000.0 - 0.5;
            int tv = (int)(ov * g) + (int)(rnd() % 5) - 2;
            tv = tv > 32767 ? 32767 : (tv < -32768 ? -32768 : tv);
            ow[i] = (int16_t)ov;
            tw[i] = (int16_t)tv;
        } else {
            ow[i] = (int16_t)cm_value(pat, 16);
            tw[i] = (int16_t)cm_value(pat, 16);
            if (pat == CM_EXTREME && (rnd() & 1)) tw[i] = ow[i];
        }
    }
    const int32_t *recip = adm_recip_table();
    const float cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    static const double egls[] = { 100.0, 1.0, 1.37, 2.5 };
    char what[128];
    for (int e = 0; e < 4; e++)
        for (int sp = 0; sp < 4; sp++) {
            const int jb = sp == 3 && w > 2 ? 1 + (int)(rnd() % (unsigned)(w - 1)) : 0, je = w;
            const int jv = sp == 0 ? je : sp == 1 ? jb : jb + (int)(rnd() % (unsigned)(je - jb + 1));
            memset(buf + 6 * (size_t)w, 0x5a, 6 * (size_t)w * sizeof(int16_t));
            memset(out1, 0x5a, 6 * (size_t)w * sizeof(int16_t));
            c->decouple16_row(o, t, r0, a0, jb, je, jv, recip, cos1, egls[e]);
            k->decouple16_row(o, t, r1, a1, jb, je, jv, recip, cos1, egls[e]);
            n_checks++;
            snprintf(what, sizeof(what), "adm decouple16_row w %d [%d %d %d) egl %g pat %d", w, jb,
                     jv, je, egls[e], pat);
            for (int q = 0; q < 3; q++)
                if (memcmp(r0[q], r1[q], (size_t)w * 2) || memcmp(a0[q], a1[q], (size_t)w * 2)) {
                    fail(what, lv->name, "orientation %d differs", q);
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
 * vector conversion); random int32 and the extremes (INT32_MIN, whose
 * magnitude is 2^31; dot products past 2^51, which the AVX2 row hands to the
 * C row). Several gain limits and lane splits, as scale 0. */
enum { DEC32_SMALL, DEC32_BIG, DEC32_RANDOM, DEC32_EXTREME, N_DEC32_PAT };

static int32_t dec32_value(int pat)
{
    switch (pat) {
    case DEC32_SMALL: return (int32_t)(rnd() % 8001) - 4000;
    case DEC32_BIG: {
        const int bits = 15 + (int)(rnd() % 10); /* |o| in [2^14, 2^25) */
        const int32_t v = (int32_t)(rnd() % (1u << bits)) + (1 << (bits - 1));
        return rnd() & 1 ? v : -v;
    }
    case DEC32_EXTREME: {
        static const int32_t e[7] = { INT32_MIN, INT32_MAX, 0, -1, INT32_MIN + 1, 32767, -32768 };
        return e[rnd() % 7];
    }
    default: return (int32_t)rnd();
    }
}

static void check_adm_decouple32(const Level *lv, int w, int pat)
{
    const AdmKernels *c = &tvmaf_adm_kernels_c, *k = lv->adm;
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
            const double g = (double)(rnd() % 3000) / 1000.0 - 0.5;
            tw[i] = (int32_t)(ow[i] * g) + (int32_t)(rnd() % 5) - 2;
        } else {
            tw[i] = dec32_value(pat);
            if (pat == DEC32_EXTREME && (rnd() & 1)) tw[i] = ow[i];
        }
    }
    const int32_t *recip = adm_recip_table();
    const float cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    static const double egls[] = { 100.0, 1.0, 1.37, 2.5 };
    char what[128];
    for (int e = 0; e < 4; e++)
        for (int sp = 0; sp < 4; sp++) {
            const int jb = sp == 3 && w > 2 ? 1 + (int)(rnd() % (unsigned)(w - 1)) : 0, je = w;
            const int jv = sp == 0 ? je : sp == 1 ? jb : jb + (int)(rnd() % (unsigned)(je - jb + 1));
            memset(buf + 6 * (size_t)w, 0x5a, 12 * (size_t)w * sizeof(int32_t));
            c->decouple32_row(o, t, r0, a0, jb, je, jv, recip, cos1, egls[e]);
            k->decouple32_row(o, t, r1, a1, jb, je, jv, recip, cos1, egls[e]);
            n_checks++;
            snprintf(what, sizeof(what), "adm decouple32_row w %d [%d %d %d) egl %g pat %d", w, jb,
                     jv, je, egls[e], pat);
            for (int q = 0; q < 3; q++)
                if (memcmp(r0[q], r1[q], (size_t)w * 4) || memcmp(a0[q], a1[q], (size_t)w * 4)) {
                    fail(what, lv->name, "orientation %d differs", q);
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
static void check_adm_i64_to_float(const Level *lv)
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
        const int sh = (int)(rnd() % 64);
        const int64_t v = (int64_t)(((uint64_t)rnd() << 32 | rnd()) >> sh);
        x[n++] = rnd() & 1 ? -v : v;
    }
    tvmaf_adm_kernels_c.i64_to_float(x, f0, N);
    lv->adm->i64_to_float(x, f1, N);
    n_checks++;
    for (int i = 0; i < N; i++)
        if (memcmp(&f0[i], &f1[i], sizeof(float))) {
            fail("adm i64_to_float", lv->name, "x %lld: %a against %a", (long long)x[i],
                 (double)f1[i], (double)f0[i]);
            break;
        }
}

/* The DWT's row kernels on rows of random and extreme samples (any int16 /
 * int32: the SIMD rows are exact for every input), every output range
 * [jb, je) up to the row's interior, and each scale's rounding. */
static void check_adm_dwt(const Level *lv, int n, int pat)
{
    const AdmKernels *c = &tvmaf_adm_kernels_c, *k = lv->adm;
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
        const int jb = sp == 2 && n > 2 ? 1 + (int)(rnd() % (unsigned)(n - 1)) : 1;
        const int je = sp == 1 ? jb + (int)(rnd() % (unsigned)(n - jb + 1)) : n;
        memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
        memset(o16, 0x5a, 6 * (size_t)m * sizeof(int16_t));
        c->dwt0_hrow(s16, s16 + m, jb, je, o32, o16, o16 + m, o16 + 2 * m);
        k->dwt0_hrow(s16, s16 + m, jb, je, o32 + m, o16 + 3 * m, o16 + 4 * m, o16 + 5 * m);
        n_checks++;
        snprintf(what, sizeof(what), "adm dwt0_hrow n %d [%d %d) pat %d", n, jb, je, pat);
        if (memcmp(o32, o32 + m, (size_t)m * 4) || memcmp(o16, o16 + 3 * m, 3 * (size_t)m * 2))
            fail(what, lv->name, "outputs differ");
        for (int scale = 1; scale < 4; scale++) {
            const AdmDwtRound rd = adm_dwt_round(scale);
            int32_t *const x = o32, *const y = o32 + 8 * (size_t)m;
            memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
            c->dwt32_hrow(s32, s32 + m, jb, je, rd.h_add, rd.h_shift, x, x + m, x + 2 * m, x + 3 * m);
            k->dwt32_hrow(s32, s32 + m, jb, je, rd.h_add, rd.h_shift, y, y + m, y + 2 * m, y + 3 * m);
            n_checks++;
            snprintf(what, sizeof(what), "adm dwt32_hrow n %d [%d %d) scale %d pat %d", n, jb, je,
                     scale, pat);
            if (memcmp(x, y, 4 * (size_t)m * 4)) fail(what, lv->name, "outputs differ");
            const int32_t *const rows[4] = { s32 + 2 * m, s32 + 3 * m, s32 + 4 * m, s32 + 5 * m };
            const int len = je - jb + 1;
            memset(o32, 0x5a, 16 * (size_t)m * sizeof(int32_t));
            c->dwt32_vrow(rows, len, rd.v_add, rd.v_shift, x, x + m);
            k->dwt32_vrow(rows, len, rd.v_add, rd.v_shift, y, y + m);
            n_checks++;
            snprintf(what, sizeof(what), "adm dwt32_vrow n %d scale %d pat %d", len, scale, pat);
            if (memcmp(x, y, 2 * (size_t)m * 4)) fail(what, lv->name, "outputs differ");
        }
    }
    free(s16);
    free(s32);
    free(o32);
    free(o16);
}

/* Scale 0's vertical pass over w columns at every depth: samples in range,
 * at the extremes of the depth and, above 8 bits, any uint16 (the C's uint32
 * sums are defined for every sample). */
static void check_adm_dwt0_vrow(const Level *lv, int w, int bpc, int pat)
{
    const AdmKernels *c = &tvmaf_adm_kernels_c, *k = lv->adm;
    uint16_t *s = malloc(4 * (size_t)w * sizeof(uint16_t));
    int16_t *o = malloc(4 * ((size_t)w + 1) * sizeof(int16_t));
    if (!s || !o) { fprintf(stderr, "out of memory\n"); exit(2); }
    const uint32_t mx = (1u << bpc) - 1;
    for (int i = 0; i < 4 * w; i++) {
        uint32_t v;
        switch (pat) {
        case CM_EXTREME: v = (rnd() & 1) ? mx : 0; break;
        case CM_ZERO: v = mx / 2 + 1; break;
        case CM_SMALL: v = rnd() & mx; break;
        default: v = bpc == 8 ? rnd() & 255 : rnd() & 0xffff; break;
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
    n_checks++;
    char what[80];
    snprintf(what, sizeof(what), "adm dwt0_vrow w %d bpc %d pat %d", w, bpc, pat);
    if (memcmp(o, o + 2 * (w + 1), 2 * ((size_t)w + 1) * sizeof(int16_t)))
        fail(what, lv->name, "outputs differ");
    free(s);
    free(s8);
    free(o);
}

static void adm_kernels_pair(const Level *lv, const int16_t *const o[3], const int16_t *const t[3],
                             int16_t *const r0[3], int16_t *const a0[3], int16_t *const r1[3],
                             int16_t *const a1[3], int w, float cos1)
{
    const int32_t *recip = adm_recip_table();
    tvmaf_adm_kernels_c.decouple16_row(o, t, r0, a0, 0, w, w / 2, recip, cos1, 1.37);
    lv->adm->decouple16_row(o, t, r1, a1, 0, w, w / 2, recip, cos1, 1.37);
}

/* The SIMD decouples compute the reciprocal table's entries as 2^30 / d in
 * double, truncated: that equals the table for every d (checked here). */
static void check_recip_division(void)
{
    n_checks++;
    for (int d = -32768; d <= 32768; d++)
        if (d && (int32_t)(1073741824.0 / (double)d) != adm_recip_q30(d)) {
            fail("adm reciprocal by division", "c", "d %d", d);
            break;
        }
}

/* Every int16 reference value, against extreme and random distorted ones:
 * the reciprocal of each o (a table in C) and the clip of the gain. */
static void check_adm_decouple_all_o(const Level *lv)
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
                ((int16_t *)t[q])[j] = pat == 0 ? 32767 : pat == 1 ? -32768 : pat == 2
                                                 ? (int16_t)rnd() : (int16_t)(ov + (int)(rnd() % 9) - 4);
            }
        adm_kernels_pair(lv, o, t, r0, a0, r1, a1, w, cos1);
        n_checks++;
        snprintf(what, sizeof(what), "adm decouple16_row every o, pattern %d", pat);
        for (int q = 0; q < 3; q++)
            if (memcmp(r0[q], r1[q], (size_t)w * 2) || memcmp(a0[q], a1[q], (size_t)w * 2)) {
                fail(what, lv->name, "orientation %d differs", q);
                break;
            }
    }
    free(buf);
}

/* ---- whole extractors ----------------------------------------------------- */

/* Scores frames of w x h, bpc bits with `features`, capped by cpumask; returns
 * the collector's values in key order (caller frees), count in *n. */
static double *score(const char *const *features, unsigned w, unsigned h, unsigned bpc,
                     unsigned frames, uint64_t seed, uint64_t cpumask, unsigned *n)
{
    TvmafConfiguration cfg = { .n_threads = 1, .backend = TVMAF_BACKEND_CPU,
                               .log_level = TVMAF_LOG_ERROR, .cpumask = cpumask };
    TvmafContext *ctx;
    if (tvmaf_init(&ctx, &cfg)) { fprintf(stderr, "tvmaf_init failed\n"); exit(2); }
    for (unsigned f = 0; features[f]; f++)
        if (tvmaf_use_feature(ctx, features[f])) {
            fprintf(stderr, "%s\n", tvmaf_last_error(ctx));
            exit(2);
        }
    const uint64_t saved = rng_state;
    rng_state = seed;
    for (unsigned i = 0; i < frames; i++) {
        TvmafPicture p[2];
        for (int s = 0; s < 2; s++) {
            if (tvmaf_picture_alloc(&p[s], TVMAF_PIX_FMT_YUV420P, bpc, w, h)) {
                fprintf(stderr, "picture alloc failed\n");
                exit(2);
            }
            const int pat = (i == 1 && s == 0) ? PAT_EDGES : PAT_RANDOM;
            for (int pl = 0; pl < 3; pl++)
                for (unsigned y = 0; y < p[s].h[pl]; y++) {
                    void *row = (char *)p[s].data[pl] + (ptrdiff_t)y * p[s].stride[pl];
                    if (bpc == 8) fill8(row, p[s].w[pl], pat);
                    else fill16(row, p[s].w[pl], pat, bpc);
                    if (s == 0 || (i & 1)) continue;
                    /* even frames: the distorted is the reference plus a
                     * little noise (correlated, as real distortions are) */
                    const void *src = (const char *)p[0].data[pl] + (ptrdiff_t)y * p[0].stride[pl];
                    const int maxv = (1 << bpc) - 1;
                    for (unsigned x = 0; x < p[s].w[pl]; x++) {
                        const int e = ((int)(rnd() % 9) - 4) * (1 << (bpc - 8));
                        int v = (bpc == 8 ? ((const uint8_t *)src)[x] : ((const uint16_t *)src)[x]) + e;
                        v = v < 0 ? 0 : v > maxv ? maxv : v;
                        if (bpc == 8) ((uint8_t *)row)[x] = (uint8_t)v;
                        else ((uint16_t *)row)[x] = (uint16_t)v;
                    }
                }
        }
        if (tvmaf_read_pictures(ctx, &p[0], &p[1], i)) {
            fprintf(stderr, "%s\n", tvmaf_last_error(ctx));
            exit(2);
        }
    }
    rng_state = saved;
    if (tvmaf_flush(ctx)) { fprintf(stderr, "%s\n", tvmaf_last_error(ctx)); exit(2); }
    TvmafCollector *col = tvmaf_context_collector(ctx);
    const unsigned nk = tvmaf_collector_key_count(col);
    double *v = calloc((size_t)nk * frames + 1, sizeof(double));
    if (!v) exit(2);
    for (unsigned k = 0; k < nk; k++)
        for (unsigned i = 0; i < frames; i++)
            if (!tvmaf_collector_get(col, k, i, &v[(size_t)k * frames + i]))
                v[(size_t)k * frames + i] = -12345.0;
    *n = nk * frames;
    tvmaf_close(ctx);
    return v;
}

static void check_frames(const Level *lv, unsigned w, unsigned h, unsigned bpc)
{
    static const char *const features[] = { "vif=debug=true", "adm=debug=true",
                                            "motion=debug=true", NULL };
    const unsigned frames = 3;
    const uint64_t seed = rnd() | 1;
    unsigned na, nb;
    /* C: every level bit masked */
    double *a = score(features, w, h, bpc, frames, seed, ~(uint64_t)0, &na);
    /* the level alone: every other SIMD bit masked */
    double *b = score(features, w, h, bpc, frames, seed, ~(uint64_t)lv->flag, &nb);
    n_checks++;
    char what[96];
    snprintf(what, sizeof(what), "vif+adm+motion frames %ux%u bpc %u", w, h, bpc);
    if (na != nb || memcmp(a, b, na * sizeof(double))) {
        unsigned k = 0;
        while (k < na && k < nb && !memcmp(&a[k], &b[k], sizeof(double))) k++;
        fail(what, lv->name, "value %u: %.17g vs %.17g", k, k < na ? a[k] : 0., k < nb ? b[k] : 0.);
    }
    free(a);
    free(b);
}

/* SIMD levels checked beside C: avx2, avx512, avx512icl */
#define MAX_LEVELS 3

/* ---- bench ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef struct BenchBuf {
    unsigned w, h;
    uint8_t *r8, *d8;
    uint16_t *r16, *d16;
    VifRows rows;    /* the statistic's vertical-pass rows (read by stat_horizontal) */
    VifRows scratch; /* what the other vif kernels write */
    uint16_t log2_table[VIF_LOG2_TABLE_ALLOC];
    int32_t *y;
    /* adm cm: 15 rows (val, csf, flt above/at/below; h, v, d) of each type */
    int16_t *cm16;
    int32_t *cm32;
    volatile int64_t sink;
    int16_t *dec16;       /* decouple's r and a rows */
    int32_t *dec32;
    const int32_t *recip; /* reciprocal table, entry of 0 */
    float cos1;
} BenchBuf;

enum { K_VIF_SV8, K_VIF_SV16, K_VIF_SH0, K_VIF_SH1, K_VIF_DV, K_VIF_DH, K_MOT_V8, K_MOT_H,
       K_ADM_CM16, K_ADM_CM32, K_ADM_DEC16, K_ADM_DEC32, N_BENCH };
static const char *const bench_names[N_BENCH] = {
    "vif stat_vertical_8", "vif stat_vertical_16 (scale 1)", "vif stat_horizontal (scale 0)",
    "vif stat_horizontal (scale 1)", "vif down_vertical (8-bit)", "vif down_horizontal",
    "motion vrow_8", "motion hrow_sad", "adm cm16_row (avx512 lanes)", "adm cm32_row (avx512 lanes)",
    "adm decouple16_row", "adm decouple32_row",
};

static void bench_call(int k, const Level *lv, BenchBuf *b)
{
    const VifKernels *v = lv->vif;
    const MotionKernels *m = lv->motion;
    const unsigned w = b->w, h = b->h;
    VifSums sums = { 0, 0, 0, 0 };
    switch (k) {
    case K_VIF_SV8:
        v->stat_vertical_8(b->scratch.row, b->r8, w, b->d8, w, w, h, h / 2, 8, 8);
        break;
    case K_VIF_SV16:
        v->stat_vertical_16(b->scratch.row, b->r16, 2 * w, b->d16, 2 * w, w, h, h / 2, 1, 16, 16);
        break;
    case K_VIF_SH0: v->stat_horizontal(b->rows.row, w, 0, b->log2_table, 100.0, &sums); break;
    case K_VIF_SH1: v->stat_horizontal(b->rows.row, w, 1, b->log2_table, 100.0, &sums); break;
    case K_VIF_DV:
        v->down_vertical(b->scratch.row[VIF_XX_LO], b->scratch.row[VIF_XX_HI], b->r8, w, b->d8, w, true,
                         w, h, h / 2, 1, 8);
        break;
    case K_VIF_DH:
        v->down_horizontal(b->scratch.row[VIF_XX_LO], b->scratch.row[VIF_XX_HI], b->rows.row[VIF_MU1],
                           b->rows.row[VIF_MU2], w / 2, 1);
        break;
    case K_MOT_V8: {
        const uint8_t *p[5], *c[5];
        for (int t = 0; t < 5; t++) { p[t] = b->r8 + t * w; c[t] = b->d8 + t * w; }
        m->vrow_8(p, c, b->y, w);
        break;
    }
    case K_ADM_CM16:
    case K_ADM_CM32: {
        /* one row of a 1920-wide band, the golden host's lanes */
        static const uint16_t rf16[3] = { 36453, 36453, 49417 };
        static const uint32_t rf32[3] = { 0x0bc4e6b5u, 0x0bc4e6b5u, 0x05a8f5c2u };
        static const AdmCmShift sh16[3] = { { 10, 29, 15, 1 << 14 }, { 10, 29, 15, 1 << 14 },
                                            { 12, 30, 14, 1 << 13 } };
        static const AdmCmShift sh32[3] = { { 0, 30, 11, 1 << 10 }, { 0, 30, 11, 1 << 10 },
                                            { 0, 30, 11, 1 << 10 } };
        const int jb = 192, je = (int)w - 192, jv = adm_lanes_cm(ADM_ISA_AVX512, k == K_ADM_CM32, jb, je);
        int64_t acc[3] = { 0, 0, 0 };
        const size_t q = w;
        if (k == K_ADM_CM16) {
            const int16_t *p = b->cm16;
            lv->adm->cm16_row((const int16_t *const[3]){ p, p + q, p + 2 * q },
                              (const int16_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                              (const int16_t *const[3]){ p + 6 * q, p + 7 * q, p + 8 * q },
                              (const int16_t *const[3]){ p + 9 * q, p + 10 * q, p + 11 * q },
                              (const int16_t *const[3]){ p + 12 * q, p + 13 * q, p + 14 * q },
                              jb, jv, je, ADM_ISA_AVX512, rf16, sh16, acc);
        } else {
            const int32_t *p = b->cm32;
            lv->adm->cm32_row((const int32_t *const[3]){ p, p + q, p + 2 * q },
                              (const int32_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                              (const int32_t *const[3]){ p + 6 * q, p + 7 * q, p + 8 * q },
                              (const int32_t *const[3]){ p + 9 * q, p + 10 * q, p + 11 * q },
                              (const int32_t *const[3]){ p + 12 * q, p + 13 * q, p + 14 * q },
                              jb, jv, je, ADM_ISA_AVX512, rf32, sh32, acc);
        }
        b->sink += acc[0] + acc[1] + acc[2];
        break;
    }
    case K_ADM_DEC16: {
        /* reference and distorted: the cm buffers' first rows (near-equal
         * small values, so the angle test often passes) */
        const int16_t *p = b->cm16;
        int16_t *o = b->dec16;
        const size_t q = w;
        lv->adm->decouple16_row((const int16_t *const[3]){ p, p + q, p + 2 * q },
                                (const int16_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                                (int16_t *const[3]){ o, o + q, o + 2 * q },
                                (int16_t *const[3]){ o + 3 * q, o + 4 * q, o + 5 * q }, 0, (int)w,
                                (int)w - (int)w % 16, b->recip, b->cos1, 100.0);
        break;
    }
    case K_ADM_DEC32: {
        /* the cm buffers' 32-bit rows (values below 2^18: the vector path) */
        const int32_t *p = b->cm32;
        int32_t *o = b->dec32;
        const size_t q = w;
        lv->adm->decouple32_row((const int32_t *const[3]){ p, p + q, p + 2 * q },
                                (const int32_t *const[3]){ p + 3 * q, p + 4 * q, p + 5 * q },
                                (int32_t *const[3]){ o, o + q, o + 2 * q },
                                (int32_t *const[3]){ o + 3 * q, o + 4 * q, o + 5 * q }, 0, (int)w,
                                (int)w - (int)w % 16, b->recip, b->cos1, 100.0);
        break;
    }
    default: m->hrow_sad(b->y, w); break;
    }
}

/* Seconds per call: the best of several rounds of calls. */
static double bench_round(int k, const Level *lv, BenchBuf *b)
{
    const unsigned calls = 100;
    const double t0 = now_s();
    for (unsigned i = 0; i < calls; i++) bench_call(k, lv, b);
    return (now_s() - t0) / calls;
}

static void bench(const Level *levels, unsigned n_levels)
{
    const Level c_level = { "c", 0, &tvmaf_vif_kernels_c, &tvmaf_motion_kernels_c,
                            &tvmaf_adm_kernels_c };
    BenchBuf b = { .w = 1920, .h = 32 };
    const size_t n = (size_t)b.w * b.h;
    b.r8 = malloc(n); b.d8 = malloc(n);
    b.r16 = malloc(2 * n); b.d16 = malloc(2 * n);
    b.y = malloc(b.w * sizeof(int32_t));
    if (!b.r8 || !b.d8 || !b.r16 || !b.d16 || !b.y || vif_rows_alloc(&b.rows, b.w) ||
        vif_rows_alloc(&b.scratch, b.w))
        exit(2);
    fill8(b.r8, n, PAT_RANDOM);
    for (size_t i = 0; i < n; i++) { /* distorted: the reference plus a little noise */
        const int v = b.r8[i] + (int)(rnd() % 9) - 4;
        b.d8[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    fill16(b.r16, n, PAT_RANDOM, 16);
    fill16(b.d16, n, PAT_RANDOM, 16);
    /* cm bands of pipeline magnitudes: values and csf small, flt from csf */
    b.cm16 = malloc(15 * b.w * sizeof(int16_t));
    b.dec16 = malloc(6 * b.w * sizeof(int16_t));
    b.dec32 = malloc(6 * b.w * sizeof(int32_t));
    b.recip = adm_recip_table();
    b.cos1 = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
    b.cm32 = malloc(15 * b.w * sizeof(int32_t));
    if (!b.cm16 || !b.cm32 || !b.dec16 || !b.dec32) exit(2);
    for (size_t i = 0; i < 15 * b.w; i++) {
        b.cm16[i] = (int16_t)((int)(rnd() % 4001) - 2000);
        b.cm32[i] = (int32_t)(rnd() % 400001) - 200000;
        if (i >= 6 * b.w) {
            b.cm16[i] = adm_csf16_flt(b.cm16[i]);
            b.cm32[i] = adm_csf32_flt(b.cm32[i]);
        }
    }
    /* rows 3..5 (cm's csf, decouple's distorted): rows 0..2 plus noise */
    for (size_t i = 3 * b.w; i < 6 * b.w; i++)
        b.cm16[i] = (int16_t)(b.cm16[i - 3 * b.w] + (int)(rnd() % 17) - 8);
    vif_log2_table_fill(b.log2_table, vif_log2_steps);
    tvmaf_vif_kernels_c.stat_vertical_8(b.rows.row, b.r8, b.w, b.d8, b.w, b.w, b.h, 5, 8, 8);
    vif_pad(&b.rows, b.w, VIF_MAX_HALF);
    tvmaf_motion_kernels_c.vrow_8((const uint8_t *const[5]){ b.r8, b.r8 + b.w, b.r8 + 2 * b.w,
                                                            b.r8 + 3 * b.w, b.r8 + 4 * b.w },
                                  (const uint8_t *const[5]){ b.d8, b.d8 + b.w, b.d8 + 2 * b.w,
                                                            b.d8 + 3 * b.w, b.d8 + 4 * b.w },
                                  b.y, b.w);
    printf("%-32s %10s", "kernel (1920 columns)", "C us");
    for (unsigned l = 0; l < n_levels; l++) printf(" %10s %8s", levels[l].name, "speed-up");
    printf("\n");
    /* C and the levels take turns, round after round, so a machine whose load
     * drifts slows them alike; each keeps its best round */
    for (int k = 0; k < N_BENCH; k++) {
        double best[1 + MAX_LEVELS]; /* C, then each level */
        for (unsigned l = 0; l <= n_levels; l++) best[l] = 1e9;
        for (int round = 0; round < 15; round++) {
            for (unsigned l = 0; l <= n_levels; l++) {
                const double t = bench_round(k, l ? &levels[l - 1] : &c_level, &b);
                if (t < best[l]) best[l] = t;
            }
        }
        printf("%-32s %10.2f", bench_names[k], best[0] * 1e6);
        for (unsigned l = 0; l < n_levels; l++)
            printf(" %10.2f %7.2fx", best[l + 1] * 1e6, best[0] / best[l + 1]);
        printf("\n");
    }
    free(b.r8); free(b.d8); free(b.r16); free(b.d16); free(b.y); free(b.rows.mem);
    free(b.cm16); free(b.cm32); free(b.dec16); free(b.dec32);
    free(b.scratch.mem);
}

int main(int argc, char **argv)
{
    bool do_bench = false;
    rng_state = 0x9E3779B97F4A7C15ULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench")) do_bench = true;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0) | 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--bench]\n", argv[0]);
            return 2;
        }
    }
    const unsigned flags = tvmaf_cpu_flags();
    Level levels[MAX_LEVELS];
    unsigned n_levels = 0;
#if TVMAF_X86_SIMD
    if (flags & TVMAF_CPU_FLAG_AVX2)
        levels[n_levels++] = (Level){ "avx2", TVMAF_CPU_FLAG_AVX2, &tvmaf_vif_kernels_avx2,
                                      &tvmaf_motion_kernels_avx2, &tvmaf_adm_kernels_avx2 };
    if (flags & TVMAF_CPU_FLAG_AVX512)
        levels[n_levels++] = (Level){ "avx512", TVMAF_CPU_FLAG_AVX512, &tvmaf_vif_kernels_avx512,
                                      &tvmaf_motion_kernels_avx512, &tvmaf_adm_kernels_avx512 };
    if (tvmaf_cpu_avx512icl(flags))
        levels[n_levels++] = (Level){ "avx512icl", TVMAF_CPU_FLAG_AVX512 | TVMAF_CPU_FLAG_AVX512ICL,
                                      &tvmaf_vif_kernels_avx512icl, &tvmaf_motion_kernels_avx512icl,
                                      &tvmaf_adm_kernels_avx512icl };
#endif
    printf("checkasm: cpu flags 0x%x; levels:", flags);
    for (unsigned l = 0; l < n_levels; l++) printf(" %s", levels[l].name);
    printf("%s\n", n_levels ? "" : " none (C only: nothing to compare)");
    check_recip_division();
    if (!n_levels) return 77; /* nothing to compare: meson reports a skip, not a pass */
    if (do_bench) {
        bench(levels, n_levels);
        return 0;
    }

    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned l = 0; l < n_levels; l++) {
        const unsigned before = n_fail;
        for (unsigned w = 1; w <= 130; w++)
            for (unsigned d = 0; d < 4; d++)
                for (int pat = 0; pat < N_PAT; pat++) {
                    if (pat != PAT_RANDOM && (w % 7) && w != 130) continue;
                    check_vif(&levels[l], w, depths[d], pat);
                    check_motion(&levels[l], w, depths[d], pat);
                }
        for (int w = 3; w <= 130; w++)
            for (int pat = 0; pat < N_CM_PAT; pat++) {
                check_adm_cm(&levels[l], w, pat);
                check_adm_decouple(&levels[l], w, pat);
            }
        for (int w = 1; w <= 130; w++)
            for (int pat = 0; pat < N_DEC32_PAT; pat++) check_adm_decouple32(&levels[l], w, pat);
        for (int n = 1; n <= 130; n++)
            for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_dwt(&levels[l], n, pat);
        for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_dwt(&levels[l], 1920, pat);
        for (int w = 1; w <= 130; w++)
            for (int b = 8; b <= 16; b += 2)
                for (int pat = 0; pat < N_CM_PAT; pat++)
                    check_adm_dwt0_vrow(&levels[l], w, b == 14 ? 16 : b, pat);
        for (int w = 1; w < 3; w++)
            for (int pat = 0; pat < N_CM_PAT; pat++) check_adm_decouple(&levels[l], w, pat);
        check_adm_decouple_all_o(&levels[l]);
        check_adm_i64_to_float(&levels[l]);
        for (int pat = 0; pat < N_CM_PAT; pat++) {
            check_adm_cm(&levels[l], 1920, pat);
            check_adm_decouple(&levels[l], 1920, pat);
        }
        for (int pat = 0; pat < N_DEC32_PAT; pat++) check_adm_decouple32(&levels[l], 1920, pat);
        for (unsigned d = 0; d < 4; d++) {
            check_vif(&levels[l], 1920, depths[d], PAT_RANDOM);
            check_motion(&levels[l], 1920, depths[d], PAT_RANDOM);
        }
        /* adm needs 33 samples a side; odd sizes, every depth */
        static const unsigned sizes[][2] = { { 33, 33 }, { 34, 35 }, { 64, 48 }, { 97, 41 },
                                             { 130, 67 }, { 177, 99 } };
        for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
            for (unsigned d = 0; d < 4; d++)
                check_frames(&levels[l], sizes[sz][0], sizes[sz][1], depths[d]);
        printf("%-8s %s\n", levels[l].name, n_fail == before ? "ok" : "FAILED");
    }
    printf("%u checks, %u failed\n", n_checks, n_fail);
    return n_fail ? 1 : 0;
}
