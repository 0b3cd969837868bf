/*
 * checkasm: vif's row kernels (vif_cpu.h) against C on random and edge
 * inputs (widths 1..130 and 1920, every depth 8..16, all-zero, all-maximum
 * and alternating extremes, odd sizes; the 8-bit pair kernel on every pair
 * of rows), and vif as a whole extractor on random and edge frames (odd
 * sizes, every depth).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif_cpu.h"
#include "checkasm.h"

/* the C set and the level's, from tvmaf_vif_dsp_init */
static VifKernels ref_k, cur_k;

/* ---- vif ----------------------------------------------------------------- */

#define VIF_ROWS_H 20
#define VIF_PAD VIF_MAX_HALF

typedef struct VifRows {
    uint16_t *mem;
    uint16_t *row[VIF_N_ROWS];
} VifRows;

/* a row's length in the buffer: its padding on both sides and the slack a
 * horizontal pass may read past it (vif_cpu.h) */
static size_t vif_rows_len(unsigned w)
{
    return w + 2 * VIF_PAD + VIF_ROW_SLACK;
}

static int vif_rows_alloc(VifRows *r, unsigned w)
{
    const size_t len = vif_rows_len(w);
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

/* the log2 table in both forms, filled (and its residuals' bound checked)
 * once per level by checkasm_check_vif */
static VifLog2 vif_log2;

static void check_vif(unsigned w, unsigned bpc, int pat)
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
    checkasm_fill8(r8, n, pat);
    checkasm_fill8(d8, n, pat == PAT_ALT ? PAT_RANDOM : pat);
    checkasm_fill16(r16, n, pat, bpc);
    checkasm_fill16(d16, n, pat == PAT_ALT ? PAT_RANDOM : pat, bpc);
    if (pat == PAT_RANDOM && (w & 1)) {
        /* a distorted copy close to the reference: positive covariances, so
         * the statistic's gain and log terms are exercised */
        const int m16 = (1 << bpc) - 1;
        for (size_t i = 0; i < n; i++) {
            const int e = (int)(checkasm_rand() % 9) - 4;
            const int v8 = r8[i] + e, v16 = r16[i] + e * (1 << (bpc - 8));
            d8[i] = (uint8_t)(v8 < 0 ? 0 : v8 > 255 ? 255 : v8);
            d16[i] = (uint16_t)(v16 < 0 ? 0 : v16 > m16 ? m16 : v16);
        }
    }
    const VifKernels *c = &ref_k, *s = &cur_k;
    char what[96];

    for (unsigned scale = 0; scale < VIF_N_SCALES; scale++) {
        const bool is8 = bpc == 8 && scale == 0;
        /* scales after 0 hold 16-bit samples whatever the input depth */
        const unsigned sbpc = scale ? 16 : bpc;
        if (scale && bpc != 16) continue; /* 16-bit samples: once, at bpc 16 */
        const unsigned mu = vif_stat_mu_shift(scale, sbpc), sq = vif_stat_sq_shift(scale, sbpc);
        const unsigned half = vif_filter_width[scale] / 2;
        for (unsigned i = 0; i < h; i += 3) {
            memset(a.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            memset(b.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            if (h <= half) continue;
            if (is8) {
                c->stat_vertical_8(a.row, r8, w, d8, w, w, h, i, mu, sq);
                s->stat_vertical_8(b.row, r8, w, d8, w, w, h, i, mu, sq);
            } else {
                c->stat_vertical_16(a.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu, sq);
                s->stat_vertical_16(b.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu, sq);
            }
            checkasm_checked();
            snprintf(what, sizeof(what), "vif stat_vertical_%s scale %u w %u bpc %u row %u",
                     is8 ? "8" : "16", scale, w, sbpc, i);
            if (!vif_rows_equal(&a, &b, w)) checkasm_fail(what, "rows differ");
            /* the horizontal pass on the C rows, padded as vif.c pads */
            vif_pad(&a, w, half);
            VifSums sc = { 0, 0, 0, 0 }, ss = { 0, 0, 0, 0 };
            c->stat_horizontal(a.row, w, scale, &vif_log2, 100.0, &sc);
            s->stat_horizontal(a.row, w, scale, &vif_log2, 100.0, &ss);
            VifSums gc = { 0, 0, 0, 0 }, gs = { 0, 0, 0, 0 };
            c->stat_horizontal(a.row, w, scale, &vif_log2, 1.0, &gc);
            s->stat_horizontal(a.row, w, scale, &vif_log2, 1.0, &gs);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif stat_horizontal scale %u w %u bpc %u row %u",
                     scale, w, sbpc, i);
            if (memcmp(&sc, &ss, sizeof(sc)) || memcmp(&gc, &gs, sizeof(gc)))
                checkasm_fail(what, "sums %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                     " vs %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, sc.num_log, sc.den_log,
                     sc.num_lin, sc.den_lin, ss.num_log, ss.den_log, ss.num_lin, ss.den_lin);
        }
        if (scale + 1 >= VIF_N_SCALES) continue;
        const unsigned next = scale + 1, shift = vif_down_shift(scale, sbpc);
        const unsigned w2 = w / 2;
        for (unsigned i = 0; i < h; i += 2) {
            memset(a.mem, 0x5a, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            memset(b.mem, 0x5a, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            const void *rr = is8 ? (const void *)r8 : r16, *dd = is8 ? (const void *)d8 : d16;
            const ptrdiff_t st = is8 ? w : 2 * w;
            c->down_vertical(a.row[VIF_MU1], a.row[VIF_MU2], rr, st, dd, st, is8, w, h, i, next,
                             shift);
            s->down_vertical(b.row[VIF_MU1], b.row[VIF_MU2], rr, st, dd, st, is8, w, h, i, next,
                             shift);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif down_vertical scale %u w %u bpc %u row %u", scale,
                     w, sbpc, i);
            if (memcmp(a.row[VIF_MU1], b.row[VIF_MU1], w * 2) ||
                memcmp(a.row[VIF_MU2], b.row[VIF_MU2], w * 2))
                checkasm_fail(what, "rows differ");
            vif_pad(&a, w, vif_filter_width[next] / 2);
            uint16_t *oc = a.row[VIF_XX_LO], *od = a.row[VIF_XX_HI];
            uint16_t *sc2 = b.row[VIF_XX_LO], *sd = b.row[VIF_XX_HI];
            c->down_horizontal(oc, od, a.row[VIF_MU1], a.row[VIF_MU2], w2, next);
            s->down_horizontal(sc2, sd, a.row[VIF_MU1], a.row[VIF_MU2], w2, next);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif down_horizontal scale %u w %u", scale, w);
            if (memcmp(oc, sc2, w2 * 2) || memcmp(od, sd, w2 * 2))
                checkasm_fail(what, "samples differ");
        }
    }
    free(r8); free(d8); free(r16); free(d16);
    free(a.mem); free(b.mem);
}

/* The 8-bit pair kernel (rows i and i + 1 in one call) against the C
 * one-row kernel on each row, and its low-pass row against C down_vertical
 * at row i: every pair of an h-row frame, the mirrored rows at both edges
 * included, with and without the low-pass. */
static void check_vif_pairs(unsigned w, int pat)
{
    const unsigned h = VIF_ROWS_H;
    const size_t n = (size_t)w * h;
    uint8_t *r8 = malloc(n), *d8 = malloc(n);
    VifRows a0, a1, b0, b1;
    uint16_t *dn = malloc(4 * w * sizeof(uint16_t));
    if (!r8 || !d8 || !dn || vif_rows_alloc(&a0, w) || vif_rows_alloc(&a1, w) ||
        vif_rows_alloc(&b0, w) || vif_rows_alloc(&b1, w)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    checkasm_fill8(r8, n, pat);
    checkasm_fill8(d8, n, pat == PAT_ALT ? PAT_RANDOM : pat);
    const unsigned mu = vif_stat_mu_shift(0, 8), sq = vif_stat_sq_shift(0, 8);
    char what[96];
    const unsigned dshift = vif_down_shift(0, 8);
    for (unsigned i = 0; i + 1 < h; i++) {
        for (int with_down = 0; with_down < 2; with_down++) {
            memset(b0.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            memset(b1.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            memset(dn, 0xa5, 4 * w * sizeof(uint16_t));
            ref_k.stat_vertical_8(a0.row, r8, w, d8, w, w, h, i, mu, sq);
            ref_k.stat_vertical_8(a1.row, r8, w, d8, w, w, h, i + 1, mu, sq);
            ref_k.down_vertical(dn, dn + w, r8, w, d8, w, true, w, h, i, 1, dshift);
            cur_k.stat_vertical_8x2(b0.row, b1.row, r8, w, d8, w, w, h, i, mu, sq,
                                    with_down ? dn + 2 * w : NULL,
                                    with_down ? dn + 3 * w : NULL, dshift);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif stat_vertical_8x2 w %u rows %u, %u%s", w, i,
                     i + 1, with_down ? " with the low-pass" : "");
            if (!vif_rows_equal(&a0, &b0, w) || !vif_rows_equal(&a1, &b1, w))
                checkasm_fail(what, "rows differ");
            if (with_down && memcmp(dn, dn + 2 * w, 2 * w * sizeof(uint16_t)))
                checkasm_fail(what, "low-pass rows differ");
        }
    }
    free(r8); free(d8); free(dn);
    free(a0.mem); free(a1.mem); free(b0.mem); free(b1.mem);
}

/* The 16-bit pair kernel (rows i and i + 1 in one call) against the C
 * one-row kernel on each row: scale 0 of 10- and 16-bit input and every
 * scale after 0, every pair of an h-row frame, the mirrored rows at both
 * edges included. */
static void check_vif_pairs16(unsigned w, int pat)
{
    const unsigned h = VIF_ROWS_H;
    const size_t n = (size_t)w * h;
    uint16_t *r16 = malloc(n * 2), *d16 = malloc(n * 2);
    VifRows a0, a1, b0, b1;
    if (!r16 || !d16 || vif_rows_alloc(&a0, w) || vif_rows_alloc(&a1, w) ||
        vif_rows_alloc(&b0, w) || vif_rows_alloc(&b1, w)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    char what[96];
    /* scale 0 at 10 and 16 bits, then scales 1..3 (16-bit samples) */
    static const unsigned runs[][2] = { { 0, 10 }, { 0, 16 }, { 1, 16 }, { 2, 16 }, { 3, 16 } };
    for (unsigned run = 0; run < sizeof(runs) / sizeof(runs[0]); run++) {
        const unsigned scale = runs[run][0], bpc = runs[run][1];
        checkasm_fill16(r16, n, pat, bpc);
        checkasm_fill16(d16, n, pat == PAT_ALT ? PAT_RANDOM : pat, bpc);
        const unsigned mu = vif_stat_mu_shift(scale, bpc), sq = vif_stat_sq_shift(scale, bpc);
        for (unsigned i = 0; i + 1 < h; i++) {
            memset(b0.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            memset(b1.mem, 0xa5, VIF_N_ROWS * vif_rows_len(w) * sizeof(uint16_t));
            ref_k.stat_vertical_16(a0.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu, sq);
            ref_k.stat_vertical_16(a1.row, r16, 2 * w, d16, 2 * w, w, h, i + 1, scale, mu, sq);
            cur_k.stat_vertical_16x2(b0.row, b1.row, r16, 2 * w, d16, 2 * w, w, h, i, scale, mu,
                                     sq);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif stat_vertical_16x2 scale %u bpc %u w %u rows %u, %u",
                     scale, bpc, w, i, i + 1);
            if (!vif_rows_equal(&a0, &b0, w) || !vif_rows_equal(&a1, &b1, w))
                checkasm_fail(what, "rows differ");
        }
    }
    free(r16); free(d16);
    free(a0.mem); free(a1.mem); free(b0.mem); free(b1.mem);
}

/* The statistic alone on vertical-pass rows of random 16-bit values, many
 * rows of 1920: a moment's rounding (its horizontal sum + 2^15, >> 16) meets
 * a sum whose low 16 bits are exactly 0x8000 about once in 65536 pixels, and
 * a kernel that splits the 48-bit sum must carry there as the C does; with
 * random means about half the pixels take the linear branch, whose num_lin
 * adds sigma2_sq exactly, so such a difference shows in the sums (about 15
 * times in these 2 x 1000 rows). */
static void check_vif_stat_rounding(void)
{
    const unsigned w = 1920;
    VifRows a;
    if (vif_rows_alloc(&a, w)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    char what[96];
    for (unsigned scale = 0; scale < 2; scale++)
        for (unsigned i = 0; i < 1000; i++) {
            for (unsigned q = 0; q < VIF_N_ROWS; q++)
                for (unsigned j = 0; j < w; j++) a.row[q][j] = (uint16_t)checkasm_rand();
            vif_pad(&a, w, vif_filter_width[scale] / 2);
            VifSums sc = { 0, 0, 0, 0 }, ss = { 0, 0, 0, 0 };
            ref_k.stat_horizontal(a.row, w, scale, &vif_log2, 100.0, &sc);
            cur_k.stat_horizontal(a.row, w, scale, &vif_log2, 100.0, &ss);
            checkasm_checked();
            snprintf(what, sizeof(what), "vif stat_horizontal random rows scale %u row %u",
                     scale, i);
            if (memcmp(&sc, &ss, sizeof(sc)))
                checkasm_fail(what, "sums %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                     " vs %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, sc.num_log, sc.den_log,
                     sc.num_lin, sc.den_lin, ss.num_log, ss.den_log, ss.num_lin, ss.den_lin);
        }
    free(a.mem);
}

void checkasm_check_vif(void)
{
    tvmaf_vif_dsp_init(&ref_k, 0);
    tvmaf_vif_dsp_init(&cur_k, checkasm_flags());
    checkasm_checked();
    if (!vif_log2_fill(&vif_log2)) checkasm_fail("vif log2", "a residual falls outside a byte");
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned w = 1; w <= 130; w++)
        for (unsigned d = 0; d < 4; d++)
            for (int pat = 0; pat < N_PAT; pat++) {
                if (pat != PAT_RANDOM && (w % 7) && w != 130) continue;
                check_vif(w, depths[d], pat);
            }
    for (unsigned d = 0; d < 4; d++) check_vif(1920, depths[d], PAT_RANDOM);
    for (unsigned w = 1; w <= 70; w++)
        for (int pat = 0; pat < N_PAT; pat++)
            if (pat == PAT_RANDOM || w % 7 == 0) check_vif_pairs(w, pat);
    check_vif_pairs(1920, PAT_RANDOM);
    for (unsigned w = 1; w <= 70; w++)
        for (int pat = 0; pat < N_PAT; pat++)
            if (pat == PAT_RANDOM || w % 7 == 0) check_vif_pairs16(w, pat);
    check_vif_pairs16(960, PAT_RANDOM);
    check_vif_stat_rounding();
    static const char *const features[] = { "vif=debug=true", NULL };
    static const unsigned sizes[][2] = { { 33, 33 }, { 34, 35 }, { 64, 48 }, { 97, 41 },
                                         { 130, 67 }, { 177, 99 } };
    for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
        for (unsigned d = 0; d < 4; d++)
            checkasm_check_frames(features, sizes[sz][0], sizes[sz][1], depths[d]);
}

/* ---- bench ---------------------------------------------------------------- */

typedef struct VifBench {
    int kernel;
    unsigned w, h;
    uint8_t *r8, *d8;
    uint16_t *r16, *d16;
    VifRows rows;    /* the statistic's vertical-pass rows (read by stat_horizontal) */
    VifRows scratch; /* what the other kernels write */
    VifRows rows2;   /* the pair kernel's second row */
    VifLog2 log2;
} VifBench;

enum { K_SV8, K_SV8X2, K_SV16, K_SV16X2, K_SH0, K_SH1, K_DV, K_DH, N_BENCH };
static const char *const bench_names[N_BENCH] = {
    "vif stat_vertical_8", "vif stat_vertical_8x2 (two rows, low-pass)", "vif stat_vertical_16 (scale 1)",
    "vif stat_vertical_16x2 (scale 1, two rows)", "vif stat_horizontal (scale 0)",
    "vif stat_horizontal (scale 1)", "vif down_vertical (8-bit)", "vif down_horizontal",
};

static void bench_call(void *arg, const void *set)
{
    VifBench *b = arg;
    const VifKernels *v = set;
    const unsigned w = b->w, h = b->h;
    VifSums sums = { 0, 0, 0, 0 };
    switch (b->kernel) {
    case K_SV8:
        v->stat_vertical_8(b->scratch.row, b->r8, w, b->d8, w, w, h, h / 2, 8, 8);
        break;
    case K_SV8X2:
        v->stat_vertical_8x2(b->scratch.row, b->rows2.row, b->r8, w, b->d8, w, w, h, h / 2, 8, 8,
                             b->scratch.row[VIF_N_ROWS - 1], b->rows2.row[VIF_N_ROWS - 1], 8);
        break;
    case K_SV16:
        v->stat_vertical_16(b->scratch.row, b->r16, 2 * w, b->d16, 2 * w, w, h, h / 2, 1, 16, 16);
        break;
    case K_SV16X2:
        v->stat_vertical_16x2(b->scratch.row, b->rows2.row, b->r16, 2 * w, b->d16, 2 * w, w, h,
                              h / 2, 1, 16, 16);
        break;
    case K_SH0: v->stat_horizontal(b->rows.row, w, 0, &b->log2, 100.0, &sums); break;
    case K_SH1: v->stat_horizontal(b->rows.row, w, 1, &b->log2, 100.0, &sums); break;
    case K_DV:
        v->down_vertical(b->scratch.row[VIF_XX_LO], b->scratch.row[VIF_XX_HI], b->r8, w, b->d8, w,
                         true, w, h, h / 2, 1, 8);
        break;
    default:
        v->down_horizontal(b->scratch.row[VIF_XX_LO], b->scratch.row[VIF_XX_HI],
                           b->rows.row[VIF_MU1], b->rows.row[VIF_MU2], w / 2, 1);
        break;
    }
}

void checkasm_bench_vif(void)
{
    static VifBench b = { .w = 1920, .h = 32 };
    const size_t n = (size_t)b.w * b.h;
    b.r8 = checkasm_alloc(n);
    b.d8 = checkasm_alloc(n);
    b.r16 = checkasm_alloc(2 * n);
    b.d16 = checkasm_alloc(2 * n);
    if (vif_rows_alloc(&b.rows, b.w) || vif_rows_alloc(&b.scratch, b.w) ||
        vif_rows_alloc(&b.rows2, b.w))
        exit(2);
    checkasm_fill8(b.r8, n, PAT_RANDOM);
    for (size_t i = 0; i < n; i++) { /* distorted: the reference plus a little noise */
        const int v = b.r8[i] + (int)(checkasm_rand() % 9) - 4;
        b.d8[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    checkasm_fill16(b.r16, n, PAT_RANDOM, 16);
    checkasm_fill16(b.d16, n, PAT_RANDOM, 16);
    (void)vif_log2_fill(&b.log2);
    VifKernels sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++)
        tvmaf_vif_dsp_init(&sets[l], checkasm_bench_flags(l));
    sets[0].stat_vertical_8(b.rows.row, b.r8, b.w, b.d8, b.w, b.w, b.h, 5, 8, 8);
    vif_pad(&b.rows, b.w, VIF_MAX_HALF);
    for (int k = 0; k < N_BENCH; k++) {
        b.kernel = k;
        checkasm_bench(bench_names[k], bench_call, &b, sets, sizeof(sets[0]));
    }
    free(b.r8); free(b.d8); free(b.r16); free(b.d16);
    free(b.rows.mem); free(b.scratch.mem); free(b.rows2.mem);
}
