/*
 * cambi's CPU row kernels behind function pointers, compiled once per SIMD
 * level (cambi.c: C; cambi_x86.c: AVX2 and AVX-512, where the histogram
 * updates and the c-values are written out with intrinsics and the other
 * kernels are these loops in that level's instruction set).
 *
 * Everything but the c-values is integer arithmetic on values that fit the
 * lanes used (10-bit samples: at most 1024, so a sum of four fits 16 bits;
 * flatness counts: at most 7 per column and 49 per 7x7 square), so any
 * level gives the C's values. A c-value is the float arithmetic of
 * cambi_c_value: an exact integer product, one rounding to float, one float
 * multiply by the reciprocal table's entry, and the largest such value over
 * the contrast steps; the vector forms do exactly these operations per
 * lane. The row's pooling statistics (count of non-zero values, their
 * double sum, whether a value is below 0.5) are order-free where they are
 * used (cambi.c's pooling says why). tests/checkasm/cambi.c compares every
 * level's kernels with C's.
 */
#ifndef TVMAF_CAMBI_CPU_H
#define TVMAF_CAMBI_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "feature/cambi/cambi_math.h"

/* what the histogram and c-value kernels read of a scale */
typedef struct CambiRows {
    uint16_t *hist;         /* band.size rows of `pitch` cells (64-byte aligned) */
    uint8_t *dirty;         /* per histogram row: 1 once a cell may be non-zero */
    int w;                  /* the scale's width */
    int pitch;              /* cells a histogram row: w rounded up to 32 */
    int half;               /* half the window */
    int cols;               /* columns whose pixels enter (>= w) */
    CambiBand band;
    int num_diffs;
    const uint16_t *limit;
    int vlt_code;
    const float *recip;
} CambiRows;

/* a row's (or a scale's) c-values as the pooling needs them */
typedef struct CambiCvalStats {
    uint32_t nnz;   /* values other than 0 */
    uint32_t odd;   /* some value other than 0 is not >= 0.5 */
    double sum;     /* their sum, in any order */
} CambiCvalStats;

/* columns of zeros on each side of the padded flat-count row */
#define CAMBI_CS_PAD 3

/* the histogram rows' pitch for a scale of width w */
static inline int cambi_hist_pitch(int w)
{
    return (w + 31) & ~31;
}

typedef struct CambiKernels {
    /* the 2x2 mean in place of row r with the row below (n; NULL for the
     * last row), as cambi_dither_sample */
    void (*dither_row)(uint16_t *r, const uint16_t *n, unsigned w);
    /* flatness flags (cambi_flat) of row r, n the row below (NULL: last) */
    void (*flat_row)(const uint16_t *r, const uint16_t *n, unsigned w, uint8_t *flat);
    /* cs += add - sub (either may be NULL) */
    void (*colsum_row)(uint8_t *cs, const uint8_t *add, const uint8_t *sub, unsigned w);
    /* m[x] = (cs[x - 3] + ... + cs[x + 3] > thr), cs padded with zeros;
     * whether some m[x] is 1 */
    bool (*mask_row)(const uint8_t *cs, unsigned w, unsigned thr, uint8_t *m);
    /* the horizontal 3-tap mode of a row (cambi_hmode) */
    void (*hmode_row)(const uint16_t *r, unsigned w, uint16_t *l);
    /* the vertical mode of three horizontal-mode rows */
    void (*vmode_row)(const uint16_t *a, const uint16_t *b, const uint16_t *c, unsigned w,
                      uint16_t *dst);
    /* every second sample of src into dst (distinct rows) */
    void (*dec16_row)(const uint16_t *src, uint16_t *dst, unsigned w);
    bool (*dec8_row)(const uint8_t *src, uint8_t *dst, unsigned w); /* whether some is set */
    /* 8-bit samples to 10 bits */
    void (*widen8_row)(const uint8_t *src, uint16_t *dst, unsigned w);
    /* whether any of n mask bytes is set */
    bool (*any_row)(const uint8_t *m, unsigned n);
    /* The histograms without the masked in-band pixels of row (io, mo) and
     * with those of row (ii, mi), columns [0, cols); either row may be NULL. */
    void (*hist_row)(const CambiRows *c, const uint16_t *io, const uint8_t *mo,
                     const uint16_t *ii, const uint8_t *mi);
    /* the c-values of a row (0 where the mask is 0) into cv, its statistics
     * added to *st */
    void (*cval_row)(const CambiRows *c, const uint16_t *img, const uint8_t *mask, float *cv,
                     CambiCvalStats *st);
} CambiKernels;

extern const CambiKernels tvmaf_cambi_kernels_c;
#if TVMAF_X86_SIMD
extern const CambiKernels tvmaf_cambi_kernels_avx2, tvmaf_cambi_kernels_avx512,
    tvmaf_cambi_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set,
 * then each x86 level (TVMAF_DSP_INIT_X86, core/cpu.h). The extractor and
 * tests/checkasm call it. */
void tvmaf_cambi_dsp_init(CambiKernels *c, unsigned cpu_flags);

/* ---------------------------------------------------------------------------
 * The C kernels, written for the compiler's vectoriser
 */

static inline void cambi_k_dither_row(uint16_t *r, const uint16_t *restrict n, unsigned w)
{
    /* 16-bit sums: four 10-bit samples (at most 1024 each) */
    if (n) {
        for (unsigned x = 0; x + 1 < w; x++) {
            const uint16_t s = (uint16_t)(r[x] + r[x + 1] + n[x] + n[x + 1]);
            r[x] = (uint16_t)(s >> 2);
        }
        r[w - 1] = (uint16_t)((uint16_t)(r[w - 1] + n[w - 1]) >> 1);
    } else {
        for (unsigned x = 0; x + 1 < w; x++) {
            const uint16_t s = (uint16_t)(r[x] + r[x + 1]);
            r[x] = (uint16_t)(s >> 1);
        }
    }
}

static inline void cambi_k_flat_row(const uint16_t *restrict r, const uint16_t *restrict n,
                                    unsigned w, uint8_t *restrict f)
{
    if (n) {
        for (unsigned x = 0; x + 1 < w; x++)
            f[x] = (uint8_t)((r[x] == r[x + 1]) & (r[x] == n[x]));
        f[w - 1] = r[w - 1] == n[w - 1];
    } else {
        for (unsigned x = 0; x + 1 < w; x++) f[x] = r[x] == r[x + 1];
        f[w - 1] = 1;
    }
}

static inline void cambi_k_colsum_row(uint8_t *restrict cs, const uint8_t *restrict add,
                                      const uint8_t *restrict sub, unsigned w)
{
    if (add && sub) {
        for (unsigned x = 0; x < w; x++) cs[x] = (uint8_t)(cs[x] + add[x] - sub[x]);
    } else if (add) {
        for (unsigned x = 0; x < w; x++) cs[x] = (uint8_t)(cs[x] + add[x]);
    } else if (sub) {
        for (unsigned x = 0; x < w; x++) cs[x] = (uint8_t)(cs[x] - sub[x]);
    }
}

static inline bool cambi_k_mask_row(const uint8_t *restrict cs, unsigned w, unsigned thr,
                                    uint8_t *restrict m)
{
    /* a sum is at most 49; a threshold of 49 or more sets nothing */
    const uint8_t t = (uint8_t)(thr < 255 ? thr : 255);
    uint8_t any = 0;
    for (int x = 0; x < (int)w; x++) {
        const uint8_t s = (uint8_t)(cs[x - 3] + cs[x - 2] + cs[x - 1] + cs[x] + cs[x + 1] +
                                    cs[x + 2] + cs[x + 3]);
        const uint8_t v = s > t;
        m[x] = v;
        any |= v;
    }
    return any != 0;
}

/* cambi_mode3 without branches: the value two of three share, else the
 * smallest */
static inline uint16_t cambi_k_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    const uint16_t ab = a < b ? a : b;
    const uint16_t m = ab < c ? ab : c;
    const uint16_t t = b == c ? b : m;
    return ((a == b) | (a == c)) ? a : t;
}

static inline void cambi_k_hmode_row(const uint16_t *restrict r, unsigned w,
                                     uint16_t *restrict l)
{
    l[0] = r[0];
    for (unsigned x = 1; x + 1 < w; x++) l[x] = cambi_k_mode3(r[x - 1], r[x], r[x + 1]);
    l[w - 1] = r[w - 1];
}

static inline void cambi_k_vmode_row(const uint16_t *restrict a, const uint16_t *restrict b,
                                     const uint16_t *restrict c, unsigned w,
                                     uint16_t *restrict dst)
{
    for (unsigned x = 0; x < w; x++) dst[x] = cambi_k_mode3(a[x], b[x], c[x]);
}

static inline void cambi_k_dec16_row(const uint16_t *restrict src, uint16_t *restrict dst,
                                     unsigned w)
{
    for (size_t x = 0; x < w; x++) dst[x] = src[2 * x];
}

static inline bool cambi_k_dec8_row(const uint8_t *restrict src, uint8_t *restrict dst,
                                    unsigned w)
{
    uint8_t any = 0;
    for (size_t x = 0; x < w; x++) {
        dst[x] = src[2 * x];
        any |= src[2 * x];
    }
    return any != 0;
}

/* 8-bit samples to 10 bits (cambi_to_10bit at 8 bits) */
static inline void cambi_k_widen8_row(const uint8_t *restrict src, uint16_t *restrict dst,
                                      unsigned w)
{
    for (unsigned x = 0; x < w; x++) dst[x] = (uint16_t)(src[x] << 2);
}

/*
 * The histogram updates of a row, by runs. A pixel of value v at column x
 * adds 1 (entering) or 0xffff (leaving) to the cells of row v - base that
 * its window covers: [x - half, x + half] within [0, w). A run of L
 * consecutive columns entering (or leaving) with the same value adds to
 * cell c the number of its columns within half of c,
 *   min(c - a + 1, b - c + 1, L, 2 half + 1) on [a, b] = [x0 - half, x0 + L - 1 + half],
 * which is what its pixels one at a time add (16-bit cells, wrapping): one
 * pass over the cells instead of L overlapping ones. Columns past w (the
 * narrow scales' first half-window) clip the same way.
 */
typedef struct CambiRun {
    int x0, len; /* len 0: none */
    uint16_t v;
} CambiRun;

/* inlined with the cells function they are given */
#define CAMBI_K_INLINE static inline __attribute__((always_inline))

typedef void (*CambiRunCells)(const CambiRows *c, const CambiRun *r, bool leave);

/* the run's histogram row and cell range [*lo, *hi); *a, *b as above */
static inline uint16_t *cambi_k_run_span(const CambiRows *c, const CambiRun *r, int *a, int *b,
                                         int *lo, int *hi, int *cap)
{
    const uint16_t row = (uint16_t)(r->v - c->band.base);
    const int win = 2 * c->half + 1;
    *a = r->x0 - c->half;
    *b = r->x0 + r->len - 1 + c->half;
    *lo = *a > 0 ? *a : 0;
    *hi = *b + 1 < c->w ? *b + 1 : c->w;
    *cap = r->len < win ? r->len : win;
    c->dirty[row] = 1;
    return c->hist + (size_t)row * c->pitch;
}

static inline void cambi_k_run_cells(const CambiRows *c, const CambiRun *r, bool leave)
{
    int a, b, lo, hi, cap;
    uint16_t *h = cambi_k_run_span(c, r, &a, &b, &lo, &hi, &cap);
    const int sign = leave ? 0xffff : 1;
    for (int x = lo; x < hi; x++) {
        int n = x - a + 1;
        const int m = b - x + 1;
        n = n < m ? n : m;
        n = n < cap ? n : cap;
        h[x] = (uint16_t)(h[x] + n * sign);
    }
}

/* the pixel (x, v) joins the run or ends it and starts the next */
CAMBI_K_INLINE void cambi_k_run_push(const CambiRows *c, CambiRun *r, int x, uint16_t v, bool leave,
                                    CambiRunCells cells)
{
    if (r->len && x == r->x0 + r->len && v == r->v) {
        r->len++;
        return;
    }
    if (r->len) cells(c, r, leave);
    r->x0 = x;
    r->len = 1;
    r->v = v;
}

/* columns [x0, x1) of a hist_row */
CAMBI_K_INLINE void cambi_k_hist_cols(const CambiRows *c, const uint16_t *io, const uint8_t *mo,
                                     const uint16_t *ii, const uint8_t *mi, int x0, int x1,
                                     CambiRun *ro, CambiRun *ri, CambiRunCells cells)
{
    for (int x = x0; x < x1; x++) {
        const bool out = io && mo[x] && cambi_in_band(c->band, io[x]);
        const bool in = ii && mi[x] && cambi_in_band(c->band, ii[x]);
        if (out && in && io[x] == ii[x]) continue;
        if (out) cambi_k_run_push(c, ro, x, io[x], true, cells);
        if (in) cambi_k_run_push(c, ri, x, ii[x], false, cells);
    }
}

CAMBI_K_INLINE void cambi_k_runs_end(const CambiRows *c, const CambiRun *ro, const CambiRun *ri,
                                    CambiRunCells cells)
{
    if (ro->len) cells(c, ro, true);
    if (ri->len) cells(c, ri, false);
}

/* eight mask bytes at once: whether all are 0 */
static inline bool cambi_k_zero8(const uint8_t *m)
{
    uint64_t v;
    memcpy(&v, m, sizeof(v));
    return v == 0;
}

static inline void cambi_k_hist_row(const CambiRows *c, const uint16_t *io, const uint8_t *mo,
                                    const uint16_t *ii, const uint8_t *mi)
{
    CambiRun ro = { 0, 0, 0 }, ri = { 0, 0, 0 };
    int x = 0;
    for (; x + 8 <= c->cols; x += 8) {
        if ((!mo || cambi_k_zero8(mo + x)) && (!mi || cambi_k_zero8(mi + x))) continue;
        cambi_k_hist_cols(c, io, mo, ii, mi, x, x + 8, &ro, &ri, cambi_k_run_cells);
    }
    cambi_k_hist_cols(c, io, mo, ii, mi, x, c->cols, &ro, &ri, cambi_k_run_cells);
    cambi_k_runs_end(c, &ro, &ri, cambi_k_run_cells);
}

/* whether any of n mask bytes is set */
static inline bool cambi_k_any_row(const uint8_t *restrict m, unsigned n)
{
    uint8_t acc = 0;
    for (unsigned x = 0; x < n; x++) acc |= m[x];
    return acc != 0;
}

static inline void cambi_k_stat(CambiCvalStats *st, float v)
{
    if (v != 0.0f) {
        st->nnz++;
        st->odd |= !(v >= 0.5f);
        st->sum += v;
    }
}

static inline void cambi_k_cval_row(const CambiRows *c, const uint16_t *img, const uint8_t *mask,
                                    float *cv, CambiCvalStats *st)
{
    int x = 0;
    for (;;) {
        for (; x + 8 <= c->w && cambi_k_zero8(mask + x); x += 8)
            for (int i = 0; i < 8; i++) cv[x + i] = 0.0f;
        if (x >= c->w) break;
        const int end = x + 8 < c->w ? x + 8 : c->w;
        for (; x < end; x++) {
            const float v = mask[x] ? cambi_c_value(c->hist + x, c->pitch, img[x], c->band,
                                                    c->num_diffs, c->limit, c->vlt_code,
                                                    c->recip)
                                    : 0.0f;
            cv[x] = v;
            cambi_k_stat(st, v);
        }
    }
}

/* A level may replace the histogram and c-value kernels by redefining these
 * before CAMBI_KERNELS_DEFINE. */
#ifndef CAMBI_HIST_ROW
#define CAMBI_HIST_ROW cambi_k_hist_row
#endif
#ifndef CAMBI_CVAL_ROW
#define CAMBI_CVAL_ROW cambi_k_cval_row
#endif

/* Out-of-line copies of the kernels, compiled in the translation unit (and
 * instruction set) that defines the set. */
#define CAMBI_KERNELS_DEFINE(name)                                                           \
    static void cambi_o_dither_row(uint16_t *r, const uint16_t *n, unsigned w)               \
    { cambi_k_dither_row(r, n, w); }                                                         \
    static void cambi_o_flat_row(const uint16_t *r, const uint16_t *n, unsigned w,           \
                                 uint8_t *f)                                                 \
    { cambi_k_flat_row(r, n, w, f); }                                                        \
    static void cambi_o_colsum_row(uint8_t *cs, const uint8_t *add, const uint8_t *sub,      \
                                   unsigned w)                                               \
    { cambi_k_colsum_row(cs, add, sub, w); }                                                 \
    static bool cambi_o_mask_row(const uint8_t *cs, unsigned w, unsigned thr, uint8_t *m)   \
    { return cambi_k_mask_row(cs, w, thr, m); }                                              \
    static void cambi_o_hmode_row(const uint16_t *r, unsigned w, uint16_t *l)                \
    { cambi_k_hmode_row(r, w, l); }                                                          \
    static void cambi_o_vmode_row(const uint16_t *a, const uint16_t *b, const uint16_t *c,   \
                                  unsigned w, uint16_t *dst)                                 \
    { cambi_k_vmode_row(a, b, c, w, dst); }                                                  \
    static void cambi_o_dec16_row(const uint16_t *src, uint16_t *dst, unsigned w)            \
    { cambi_k_dec16_row(src, dst, w); }                                                      \
    static bool cambi_o_dec8_row(const uint8_t *src, uint8_t *dst, unsigned w)               \
    { return cambi_k_dec8_row(src, dst, w); }                                                \
    static void cambi_o_widen8_row(const uint8_t *src, uint16_t *dst, unsigned w)            \
    { cambi_k_widen8_row(src, dst, w); }                                                     \
    static bool cambi_o_any_row(const uint8_t *m, unsigned n)                                \
    { return cambi_k_any_row(m, n); }                                                        \
    static void cambi_o_hist_row(const CambiRows *c, const uint16_t *io, const uint8_t *mo,  \
                                 const uint16_t *ii, const uint8_t *mi)                      \
    { CAMBI_HIST_ROW(c, io, mo, ii, mi); }                                                   \
    static void cambi_o_cval_row(const CambiRows *c, const uint16_t *img,                    \
                                 const uint8_t *mask, float *cv, CambiCvalStats *st)         \
    { CAMBI_CVAL_ROW(c, img, mask, cv, st); }                                                \
    const CambiKernels name = { cambi_o_dither_row, cambi_o_flat_row, cambi_o_colsum_row,    \
                                cambi_o_mask_row,   cambi_o_hmode_row, cambi_o_vmode_row,    \
                                cambi_o_dec16_row,  cambi_o_dec8_row,  cambi_o_widen8_row,   \
                                cambi_o_any_row,    cambi_o_hist_row,  cambi_o_cval_row }

#endif
