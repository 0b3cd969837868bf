/*
 * checkasm: cambi's row kernels (cambi_cpu.h) against C.
 *
 *   dense rows: dither, flatness, column sums, the spatial mask, the mode
 *     filters, decimation, widening and any_row, on 10-bit rows (random,
 *     zero, maximum, alternating, near the extremes, few distinct values),
 *     widths 1..130 and 1920, with and without the row below;
 *   histograms and c-values: a scale's pass as cambi.c runs it (the first
 *     half-window of rows in, then a row leaving and one entering per row,
 *     each row's c-values from the histograms), on rows of random values
 *     around the band, runs of one value, one value everywhere, the band's
 *     edges and values outside it, with every mask, widths 1..130 and 1920,
 *     half-windows 1..32 (columns past a narrow scale's width included), and
 *     the settings' range of contrast steps, transfer functions and
 *     thresholds. The histograms (every row either set marks dirty, and the
 *     padding after the last), the dirty marks, the c-values and the row
 *     statistics are compared as bits after every call.
 *   whole: cambi as an extractor on random, edge and banded frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi/cambi_cpu.h"
#include "checkasm.h"

/* the C set and the level's, from tvmaf_cambi_dsp_init */
static CambiKernels ref_k, cur_k;

/* samples past a row's end that a kernel may read (the extractor's rows
 * are padded to 32) */
#define ROW_PAD 64

/* ---- dense rows ------------------------------------------------------------ */

enum { DP_RANDOM, DP_ZERO, DP_MAX, DP_ALT, DP_EDGES, DP_FEW, N_DP };

static void fill10(uint16_t *p, unsigned n, int pat)
{
    const unsigned base = checkasm_rand() % 1020;
    for (unsigned i = 0; i < n; i++) {
        switch (pat) {
        case DP_FEW: p[i] = (uint16_t)(base + checkasm_rand() % 3); break;
        case DP_RANDOM: checkasm_fill16(p + i, 1, PAT_RANDOM, 10); break;
        case DP_ZERO: p[i] = 0; break;
        case DP_MAX: p[i] = 1023; break;
        case DP_ALT: p[i] = (i & 1) ? 1023 : 0; break;
        default: checkasm_fill16(p + i, 1, PAT_EDGES, 10); break;
        }
    }
}

/* flags 0/1 (pattern 0: random bytes, where the kernels are defined too) */
static void fill_flags(uint8_t *p, unsigned n, int pat, unsigned maxv)
{
    for (unsigned i = 0; i < n; i++) {
        switch (pat) {
        case DP_ZERO: p[i] = 0; break;
        case DP_MAX: p[i] = (uint8_t)maxv; break;
        case DP_ALT: p[i] = (uint8_t)((i & 1) ? maxv : 0); break;
        case DP_FEW: p[i] = (uint8_t)(checkasm_rand() % 16 == 0); break;
        default: p[i] = (uint8_t)(checkasm_rand() % (maxv + 1)); break;
        }
    }
}

static void check_dense(unsigned w, int pat)
{
    const unsigned n = 2 * w + ROW_PAD;
    uint16_t *r = checkasm_alloc(n * 2), *nb = checkasm_alloc(n * 2), *r3 = checkasm_alloc(n * 2);
    uint16_t *o0 = checkasm_alloc(n * 2), *o1 = checkasm_alloc(n * 2);
    uint8_t *f = checkasm_alloc(n + 2 * CAMBI_CS_PAD), *g = checkasm_alloc(n);
    uint8_t *b0 = checkasm_alloc(n + 2 * CAMBI_CS_PAD), *b1 = checkasm_alloc(n + 2 * CAMBI_CS_PAD);
    fill10(r, n, pat);
    fill10(nb, n, pat == DP_ALT ? DP_RANDOM : pat);
    fill10(r3, n, pat);
    if (pat == DP_FEW) /* the row below: mostly the same values, so flat */
        for (unsigned i = 0; i < n; i++)
            if (checkasm_rand() & 3) nb[i] = r[i];
    char what[96];

    for (int below = 0; below < 2; below++) {
        const uint16_t *nn = below ? nb : NULL;
        memcpy(o0, r, n * 2);
        memcpy(o1, r, n * 2);
        ref_k.dither_row(o0, nn, w);
        cur_k.dither_row(o1, nn, w);
        checkasm_checked();
        snprintf(what, sizeof(what), "cambi dither_row w %u pat %d below %d", w, pat, below);
        if (memcmp(o0, o1, w * 2)) checkasm_fail(what, "rows differ");

        memset(b0, 0xa5, n);
        memset(b1, 0xa5, n);
        ref_k.flat_row(r, nn, w, b0);
        cur_k.flat_row(r, nn, w, b1);
        checkasm_checked();
        snprintf(what, sizeof(what), "cambi flat_row w %u pat %d below %d", w, pat, below);
        if (memcmp(b0, b1, w)) checkasm_fail(what, "flags differ");
    }

    /* column sums: counts 0..7 and flags, or random bytes (wrapping) */
    for (int sides = 0; sides < 4; sides++) {
        const bool any_bytes = pat == DP_RANDOM && (w & 1);
        fill_flags(b0, w, DP_RANDOM, any_bytes ? 255 : 7);
        memcpy(b1, b0, w);
        fill_flags(f, w, pat, any_bytes ? 255 : 1);
        fill_flags(g, w, pat == DP_ALT ? DP_RANDOM : pat, any_bytes ? 255 : 1);
        const uint8_t *add = sides & 1 ? f : NULL, *sub = sides & 2 ? g : NULL;
        ref_k.colsum_row(b0, add, sub, w);
        cur_k.colsum_row(b1, add, sub, w);
        checkasm_checked();
        snprintf(what, sizeof(what), "cambi colsum_row w %u pat %d add %d sub %d", w, pat,
                 add != NULL, sub != NULL);
        if (memcmp(b0, b1, w)) checkasm_fail(what, "sums differ");
    }

    /* the mask from column sums 0..7, zero-padded, at thresholds around
     * the sums' range and past it */
    {
        uint8_t *cs = f + CAMBI_CS_PAD;
        memset(f, 0, n + 2 * CAMBI_CS_PAD);
        fill_flags(cs, w, pat, 7);
        static const unsigned thrs[] = { 0, 1, 13, 24, 30, 48, 49, 60, 255, 1000 };
        for (unsigned t = 0; t < sizeof(thrs) / sizeof(thrs[0]); t++) {
            memset(b0, 0xa5, n);
            memset(b1, 0xa5, n);
            const bool a0 = ref_k.mask_row(cs, w, thrs[t], b0);
            const bool a1 = cur_k.mask_row(cs, w, thrs[t], b1);
            checkasm_checked();
            snprintf(what, sizeof(what), "cambi mask_row w %u pat %d thr %u", w, pat, thrs[t]);
            if (a0 != a1 || memcmp(b0, b1, w))
                checkasm_fail(what, "mask differs (any %d vs %d)", a0, a1);
        }
    }

    memset(o0, 0x5a, n * 2);
    memset(o1, 0x5a, n * 2);
    ref_k.hmode_row(r, w, o0);
    cur_k.hmode_row(r, w, o1);
    checkasm_checked();
    snprintf(what, sizeof(what), "cambi hmode_row w %u pat %d", w, pat);
    if (memcmp(o0, o1, w * 2)) checkasm_fail(what, "rows differ");

    if (pat == DP_FEW) /* the third row: ties with either of the others */
        for (unsigned i = 0; i < n; i++) r3[i] = (checkasm_rand() & 1) ? r[i] : nb[i];
    ref_k.vmode_row(r, nb, r3, w, o0);
    cur_k.vmode_row(r, nb, r3, w, o1);
    checkasm_checked();
    snprintf(what, sizeof(what), "cambi vmode_row w %u pat %d", w, pat);
    if (memcmp(o0, o1, w * 2)) checkasm_fail(what, "rows differ");

    ref_k.dec16_row(r, o0, w);
    cur_k.dec16_row(r, o1, w);
    checkasm_checked();
    snprintf(what, sizeof(what), "cambi dec16_row w %u pat %d", w, pat);
    if (memcmp(o0, o1, w * 2)) checkasm_fail(what, "rows differ");

    fill_flags(f, 2 * w, pat, 1);
    memset(b0, 0xa5, n);
    memset(b1, 0xa5, n);
    const bool d0 = ref_k.dec8_row(f, b0, w), d1 = cur_k.dec8_row(f, b1, w);
    checkasm_checked();
    snprintf(what, sizeof(what), "cambi dec8_row w %u pat %d", w, pat);
    if (d0 != d1 || memcmp(b0, b1, w)) checkasm_fail(what, "rows differ (any %d vs %d)", d0, d1);

    checkasm_fill8(f, w, pat == DP_FEW ? PAT_EDGES : pat == DP_ALT ? PAT_ALT : PAT_RANDOM);
    ref_k.widen8_row(f, o0, w);
    cur_k.widen8_row(f, o1, w);
    checkasm_checked();
    snprintf(what, sizeof(what), "cambi widen8_row w %u pat %d", w, pat);
    if (memcmp(o0, o1, w * 2)) checkasm_fail(what, "rows differ");

    /* any_row: empty, then one byte set at each end and in the middle */
    memset(f, 0, n);
    for (int where = 0; where < 4; where++) {
        const unsigned at = where == 1 ? 0 : where == 2 ? w - 1 : w / 2;
        if (where) f[at] = (uint8_t)(1 + checkasm_rand() % 255);
        const bool y0 = ref_k.any_row(f, w), y1 = cur_k.any_row(f, w);
        checkasm_checked();
        snprintf(what, sizeof(what), "cambi any_row w %u set %d", w, where);
        if (y0 != y1) checkasm_fail(what, "%d vs %d", y0, y1);
        if (where) memset(f, 0, n);
    }
    free(r); free(nb); free(r3); free(o0); free(o1); free(f); free(g); free(b0); free(b1);
}

/* ---- histograms and c-values ----------------------------------------------- */

/* the settings a scale's pass reads (cambi.c's set-up, from the options) */
typedef struct Setting {
    int num_diffs, vlt_code;
    uint16_t limit[CAMBI_MAX_DIFFS];
    CambiBand band;
    float recip[CAMBI_RECIP_SIZE];
} Setting;

static bool setting_make(Setting *s, int log_contrast, double tvi, double vis_lum, int eotf)
{
    s->num_diffs = 1 << log_contrast;
    for (int d = 0; d < s->num_diffs; d++)
        s->limit[d] = (uint16_t)(cambi_visibility_limit(d + 1, tvi, eotf) + s->num_diffs);
    s->vlt_code = cambi_visibility_floor(vis_lum, eotf);
    if (s->vlt_code < 0) return false;
    for (int i = 0; i < CAMBI_RECIP_SIZE; i++) s->recip[i] = cambi_reciprocal(i);
    s->band = cambi_band(s->vlt_code, s->num_diffs, s->limit);
    /* a band that wraps (thresholds past about 84 cd/m2) opens no gate */
    return s->band.size > 0 && s->band.size <= 1100;
}

enum { HV_AROUND, HV_RUNS, HV_CONST, HV_EDGES, HV_WIDE, N_HV };
enum { HM_ALL, HM_ZERO, HM_RANDOM, HM_SPARSE, HM_BLOCKS, N_HM };

/* one row of values (pattern HV_*) around `centre` of the band, and its mask */
static void hist_fill_row(uint16_t *v, uint8_t *m, int cols, int pat, int mpat, const Setting *s,
                          int centre)
{
    const int lo = s->band.base, hi = s->band.base + s->band.size - 1;
    const int edges[6] = { lo - 1, lo, hi, hi + 1, 0, 1023 };
    int run = 0, runv = centre;
    uint8_t mv = 1;
    int mrun = 0;
    for (int x = 0; x < cols + ROW_PAD; x++) {
        int val;
        switch (pat) {
        case HV_RUNS:
            if (!run) {
                run = 1 + (int)(checkasm_rand() % 40);
                runv = centre - 6 + (int)(checkasm_rand() % 13);
            }
            run--;
            val = runv;
            break;
        case HV_CONST: val = centre; break;
        case HV_EDGES: val = edges[checkasm_rand() % 6]; break;
        case HV_WIDE: val = (int)(checkasm_rand() & 1023); break;
        default: val = centre - 12 + (int)(checkasm_rand() % 25); break;
        }
        v[x] = (uint16_t)(val < 0 ? 0 : val > 1023 ? 1023 : val);
        switch (mpat) {
        case HM_ALL: m[x] = 1; break;
        case HM_ZERO: m[x] = 0; break;
        case HM_SPARSE: m[x] = checkasm_rand() % 16 == 0; break;
        case HM_BLOCKS:
            if (!mrun) {
                mrun = 8 + (int)(checkasm_rand() % 48);
                mv = !mv;
            }
            mrun--;
            m[x] = mv;
            break;
        default: m[x] = checkasm_rand() & 1; break;
        }
    }
}

typedef struct HistSide {
    void *mem;
    uint16_t *hist;
    uint8_t *dirty;
    CambiRows rows;
} HistSide;

static void hist_side_alloc(HistSide *h, const Setting *s, int w, int half, int cols)
{
    const int pitch = cambi_hist_pitch(w);
    const size_t cells = (size_t)pitch * s->band.size + 64;
    h->mem = calloc(cells + 32, sizeof(uint16_t));
    h->dirty = calloc(s->band.size, 1);
    if (!h->mem || !h->dirty) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    h->hist = (uint16_t *)(((uintptr_t)h->mem + 63) & ~(uintptr_t)63);
    h->rows = (CambiRows){ .hist = h->hist, .dirty = h->dirty, .w = w, .pitch = pitch,
                           .half = half, .cols = cols, .band = s->band,
                           .num_diffs = s->num_diffs, .limit = s->limit,
                           .vlt_code = s->vlt_code, .recip = s->recip };
}

/* the two sides' histograms equal: the dirty marks, every row either
 * marks, and the padding after the last row */
static bool hist_equal(const HistSide *a, const HistSide *b, const Setting *s)
{
    const size_t pitch = (size_t)a->rows.pitch;
    if (memcmp(a->dirty, b->dirty, s->band.size)) return false;
    for (unsigned r = 0; r < s->band.size; r++)
        if (a->dirty[r] && memcmp(a->hist + r * pitch, b->hist + r * pitch, pitch * 2))
            return false;
    const size_t end = pitch * s->band.size;
    return !memcmp(a->hist + end, b->hist + end, 64 * 2);
}

/* A scale's pass over h rows of w columns (cols >= w enter the histograms)
 * with the half-window `half`, as cambi.c's c_values. */
static void check_hist(const Setting *s, int w, int half, int h, int pat, int mpat)
{
    const int cols = w > half ? w : half;
    const size_t stride = (size_t)cols + ROW_PAD;
    uint16_t *img = checkasm_alloc(stride * h * sizeof(uint16_t));
    uint8_t *mask = checkasm_alloc(stride * h);
    const int centre = s->band.base + (int)(checkasm_rand() % s->band.size);
    for (int y = 0; y < h; y++)
        hist_fill_row(img + y * stride, mask + y * stride, cols, pat, mpat, s, centre);
    HistSide a, b;
    hist_side_alloc(&a, s, w, half, cols);
    hist_side_alloc(&b, s, w, half, cols);
    float *cv0 = checkasm_alloc((size_t)w * sizeof(float) + ROW_PAD);
    float *cv1 = checkasm_alloc((size_t)w * sizeof(float) + ROW_PAD);
    char what[128];
#define HIST_CALL(out, in)                                                                   \
    do {                                                                                     \
        const uint16_t *io = (out) >= 0 ? img + (out) * stride : NULL;                       \
        const uint8_t *mo = (out) >= 0 ? mask + (out) * stride : NULL;                       \
        const uint16_t *ii = (in) >= 0 ? img + (in) * stride : NULL;                         \
        const uint8_t *mi = (in) >= 0 ? mask + (in) * stride : NULL;                         \
        ref_k.hist_row(&a.rows, io, mo, ii, mi);                                             \
        cur_k.hist_row(&b.rows, io, mo, ii, mi);                                             \
        checkasm_checked();                                                                  \
        if (!hist_equal(&a, &b, s)) {                                                        \
            snprintf(what, sizeof(what),                                                     \
                     "cambi hist_row w %d cols %d half %d out %d in %d values %d mask %d "   \
                     "diffs %d",                                                             \
                     w, cols, half, (out), (in), pat, mpat, s->num_diffs);                   \
            checkasm_fail(what, "histograms differ");                                        \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)
    for (int y = 0; y < half && y < h; y++) HIST_CALL(-1, y);
    for (int y = 0; y < h; y++) {
        const int in = y + half < h ? y + half : -1, out = y - half - 1 >= 0 ? y - half - 1 : -1;
        if (in >= 0 || out >= 0) HIST_CALL(out, in);
        memset(cv0, 0xa5, (size_t)w * sizeof(float));
        memset(cv1, 0x5a, (size_t)w * sizeof(float));
        CambiCvalStats s0 = { 1, 0, 0.5 }, s1 = { 1, 0, 0.5 };
        ref_k.cval_row(&a.rows, img + y * stride, mask + y * stride, cv0, &s0);
        cur_k.cval_row(&b.rows, img + y * stride, mask + y * stride, cv1, &s1);
        checkasm_checked();
        snprintf(what, sizeof(what),
                 "cambi cval_row w %d half %d row %d values %d mask %d diffs %d", w, half, y,
                 pat, mpat, s->num_diffs);
        if (memcmp(cv0, cv1, (size_t)w * sizeof(float))) {
            int x = 0;
            while (!memcmp(&cv0[x], &cv1[x], sizeof(float))) x++;
            checkasm_fail(what, "column %d: %a vs %a", x, (double)cv0[x], (double)cv1[x]);
            goto done;
        }
        if (s0.nnz != s1.nnz || s0.odd != s1.odd || memcmp(&s0.sum, &s1.sum, sizeof(double))) {
            checkasm_fail(what, "statistics %u %u %a vs %u %u %a", s0.nnz, s0.odd, s0.sum, s1.nnz,
                          s1.odd, s1.sum);
            goto done;
        }
    }
#undef HIST_CALL
done:
    free(img); free(mask); free(a.mem); free(a.dirty); free(b.mem); free(b.dirty);
    free(cv0); free(cv1);
}

void checkasm_check_cambi(void)
{
    tvmaf_cambi_dsp_init(&ref_k, 0);
    tvmaf_cambi_dsp_init(&cur_k, checkasm_flags());
    for (unsigned w = 1; w <= 130; w++)
        for (int pat = 0; pat < N_DP; pat++) check_dense(w, pat);
    for (int pat = 0; pat < N_DP; pat++) check_dense(1920, pat);

    /* the defaults, then the options' range: contrast steps 1..32, both
     * transfer functions, visibility thresholds */
    static const struct { int log_contrast; double tvi, vis_lum; int eotf; } cfg[] = {
        { 2, 0.019, 0.0, CAMBI_EOTF_BT1886 }, { 0, 0.019, 0.0, CAMBI_EOTF_BT1886 },
        { 5, 0.019, 0.0, CAMBI_EOTF_BT1886 }, { 3, 0.05, 1.0, CAMBI_EOTF_PQ },
        { 1, 0.0001, 0.0, CAMBI_EOTF_PQ },    { 4, 0.1, 2.0, CAMBI_EOTF_BT1886 },
    };
    static Setting settings[sizeof(cfg) / sizeof(cfg[0])];
    bool ok[sizeof(cfg) / sizeof(cfg[0])];
    const unsigned n_cfg = sizeof(cfg) / sizeof(cfg[0]);
    for (unsigned c = 0; c < n_cfg; c++)
        ok[c] = setting_make(&settings[c], cfg[c].log_contrast, cfg[c].tvi, cfg[c].vis_lum,
                             cfg[c].eotf);
    for (int w = 1; w <= 130; w++)
        for (int pat = 0; pat < N_HV; pat++)
            for (int mpat = 0; mpat < N_HM; mpat++) {
                const unsigned c = (w + pat + mpat) % n_cfg;
                if (!ok[c]) continue;
                /* half-windows of every scale's window (65 >> k), and random */
                const int half = (w + mpat) % 3 == 0 ? 1 + (int)(checkasm_rand() % 32)
                                                     : (65 >> (w % 5)) >> 1;
                const int h = 2 * half + 4 < 24 ? 2 * half + 4 : 24;
                check_hist(&settings[c], w, half > 0 ? half : 1, h, pat, mpat);
            }
    for (int pat = 0; pat < N_HV; pat++)
        for (int mpat = 0; mpat < N_HM; mpat++)
            if (ok[mpat % n_cfg]) check_hist(&settings[mpat % n_cfg], 1920, 32, 40, pat, mpat);

    /* whole: cambi needs 216 samples a side; odd sizes, the full-reference
     * pass, 8 and 10 bits */
    static const char *const features[] = { "cambi", "cambi=full_ref=true:max_log_contrast=4",
                                            NULL };
    static const unsigned sizes[][2] = { { 216, 216 }, { 233, 219 } };
    for (unsigned sz = 0; sz < 2; sz++)
        for (unsigned bpc = 8; bpc <= 10; bpc += 2)
            checkasm_check_frames(features, sizes[sz][0], sizes[sz][1], bpc);
}

/* ---- bench ----------------------------------------------------------------- */

typedef struct CambiBench {
    int kernel;
    int h;
    Setting s;
    HistSide hs;
    uint16_t *img;
    uint8_t *mask;
    size_t stride;
    float *cv;
} CambiBench;

static void bench_call(void *arg, const void *set)
{
    CambiBench *b = arg;
    const CambiKernels *k = set;
    const size_t st = b->stride;
    if (b->kernel == 0) {
        /* a row leaving and one entering (the window slides back and forth) */
        k->hist_row(&b->hs.rows, b->img, b->mask, b->img + st, b->mask + st);
        k->hist_row(&b->hs.rows, b->img + st, b->mask + st, b->img, b->mask);
    } else {
        CambiCvalStats cs = { 0, 0, 0.0 };
        k->cval_row(&b->hs.rows, b->img + 2 * st, b->mask + 2 * st, b->cv, &cs);
    }
}

void checkasm_bench_cambi(void)
{
    static CambiBench b;
    const int w = 1920, half = 32;
    b.h = 2 * half + 1;
    if (!setting_make(&b.s, 2, 0.019, 0.0, CAMBI_EOTF_BT1886)) return;
    b.stride = (size_t)w + ROW_PAD;
    b.img = checkasm_alloc(b.stride * b.h * sizeof(uint16_t));
    b.mask = checkasm_alloc(b.stride * b.h);
    b.cv = checkasm_alloc((size_t)w * sizeof(float));
    /* banding-like rows: runs of a few values, most pixels masked */
    const int centre = b.s.band.base + b.s.band.size / 2;
    for (int y = 0; y < b.h; y++)
        hist_fill_row(b.img + y * b.stride, b.mask + y * b.stride, w, HV_RUNS, HM_BLOCKS, &b.s,
                      centre);
    hist_side_alloc(&b.hs, &b.s, w, half, w);
    CambiKernels sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++)
        tvmaf_cambi_dsp_init(&sets[l], checkasm_bench_flags(l));
    for (int y = 0; y < b.h; y++)
        sets[0].hist_row(&b.hs.rows, NULL, NULL, b.img + y * b.stride, b.mask + y * b.stride);
    static const char *const names[2] = { "cambi hist_row (out and in, x2)", "cambi cval_row" };
    for (int k = 0; k < 2; k++) {
        b.kernel = k;
        checkasm_bench(names[k], bench_call, &b, sets, sizeof(sets[0]));
    }
    free(b.img); free(b.mask); free(b.cv); free(b.hs.mem); free(b.hs.dirty);
}
