/*
 * float_adm twin, kernels (gpu/kernel.h): per scale a dwt, a decouple, a
 * terms and (p = 3) a rows launch, each work-item the CPU's chain of
 * operations (float_adm_math.h) for one coefficient or one row. No sum is
 * reduced in a tree: a row is added left to right by one work-item, the
 * rows by the host (float_adm_plan.c).
 *
 * Device planes (floats, FADM_N_PLANES of `plane` floats, rows of `bs`
 * floats, bs the scale-0 band width, as the CPU's buffers): the
 * approximation band of each picture in two planes alternating per scale
 * (one scale's output is the next one's input), the h, v, d bands of each
 * picture, and the csf and flt planes of the restored (r) and additive (a)
 * parts. Per frame, per scale k (DWT input iw x ih, band w x h):
 *   dwt       one work-item per band coefficient (i, j): the 4x4 taps of
 *             both pictures (scale 0 from the frame's luma, as the CPU's
 *             loaded floats; then from the previous approximation band),
 *             columns then rows in the CPU's tap order. Under
 *             adm_skip_scale0 scale 0 computes the approximation only.
 *   decouple  one work-item per coefficient of the work range: the gains,
 *             the decouple and the csf (fadm_decouple_csf), twelve planes.
 *   terms     one work-item per coefficient of the pooled region: the nine
 *             terms (den h v d, DLM num h v d, AIM num h v d) into nine
 *             planes of the pooled region, pw x ph per scale. For p = 3
 *             the terms are the cubes; otherwise the bases, which the host
 *             raises with glibc's powf as the CPU does.
 *   rows      p = 3 only: one work-item per (term, pooled row) adds that
 *             row left to right into one float, the CPU's row accumulator.
 * A scale's constants (FadmTileScale) are uploaded once, one per scale.
 *
 * Division: the device has no RCPSS instruction. "table" replays the
 * goldens host's estimates, "host" the estimates of this processor, probed
 * into a table and proved against the instruction over every mantissa
 * (tvmaf_rcpss_host_table), both through the model of numerics/rcpss.h;
 * "ieee" divides. The table is uploaded once.
 */
#ifndef TVMAF_FLOAT_ADM_KERNELS_H
#define TVMAF_FLOAT_ADM_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_adm/float_adm_math.h"

#define FADM_BLOCK_W 32 /* per-coefficient launches: groups of 32 x 8 */
#define FADM_BLOCK_H 8
#define FADM_ROW_THREADS 64 /* the rows launch: work-items per group */
#define FADM_N_TERMS 9      /* den h v d, num h v d, aim h v d */
#define FADM_GRID_Y_MAX 65535u

#define FADM_GRID_X(n) (((unsigned)(n) + FADM_BLOCK_W - 1) / FADM_BLOCK_W)
/* Groups in y; rows beyond the grid are strided (work-items loop). */
#define FADM_GRID_Y(n)                                                                  \
    (((unsigned)(n) + FADM_BLOCK_H - 1) / FADM_BLOCK_H > FADM_GRID_Y_MAX                \
         ? FADM_GRID_Y_MAX                                                              \
         : ((unsigned)(n) + FADM_BLOCK_H - 1) / FADM_BLOCK_H)

/* The planes (indices into the band buffer). */
enum {
    FADM_P_A_REF = 0,  /* 2 planes: scale k writes FADM_P_A_REF + (k & 1) */
    FADM_P_A_DIS = 2,  /* 2 planes */
    FADM_P_B_REF = 4,  /* h, v, d */
    FADM_P_B_DIS = 7,  /* h, v, d */
    FADM_P_CSF_R = 10, /* h, v, d */
    FADM_P_FLT_R = 13,
    FADM_P_CSF_A = 16,
    FADM_P_FLT_A = 19,
    FADM_N_PLANES = 22,
};

/* What every work-item of a scale's launches needs. */
typedef struct FadmTileScale {
    FadmF64 gain_limit; /* a double; its bits in an fp64-free program */
    float cos_1deg_sq;
    float rf[3];
    int k;
    int iw, ih, w, h;                   /* DWT input, band */
    int work_l, work_r, work_t, work_b; /* decouple and csf */
    int l, r, t, b;                     /* pooled region */
    int pw, ph;                         /* its size */
    int bs;                             /* row stride of every plane, floats */
    int bpc;                            /* input depth (scale 0) */
    int lo_only;                        /* scale 0 under adm_skip_scale0 */
    int div;                            /* the device's division: TABLE or IEEE */
    int cube;                           /* p = 3: the terms are cubes, rows are summed */
    int bypass_cm;
    uint64_t terms_off;                 /* this scale's terms: plane q at terms_off + q pw ph */
    uint64_t rows_off;                  /* its row totals: term q at rows_off + q ph */
} FadmTileScale;

/* uploaded as the host lays it out, which the devices' layout must equal */
#if defined(__CUDACC__)
static_assert(sizeof(FadmTileScale) == 128 && offsetof(FadmTileScale, rows_off) == 120,
              "FadmTileScale layout");
#elif !defined(__OPENCL_VERSION__)
_Static_assert(sizeof(FadmTileScale) == 128 && offsetof(FadmTileScale, rows_off) == 120,
               "FadmTileScale layout");
#endif

/* sc: the scale's constants; the frame's luma planes (pitch bytes a row) */
#define FadmDwtArgs_LIST(V, S)                                                                 \
    V(const FadmTileScale, sc) V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch)  \
    V(float, bands) S(uint64_t, plane)
TVD_ARGS(FadmDwtArgs)
/* table: the division's estimates (TVMAF_RCPSS_TABLE_LEN words) */
#define FadmDecArgs_LIST(V, S)                                                                 \
    V(const FadmTileScale, sc) V(float, bands) S(uint64_t, plane) V(const uint32_t, table)
TVD_ARGS(FadmDecArgs)
#define FadmTermsArgs_LIST(V, S)                                                               \
    V(const FadmTileScale, sc) V(const float, bands) S(uint64_t, plane) V(float, terms)
TVD_ARGS(FadmTermsArgs)
#define FadmRowsArgs_LIST(V, S) V(const FadmTileScale, sc) V(const float, terms) V(float, rows)
TVD_ARGS(FadmRowsArgs)

#define FLOAT_ADM_KERNELS(K, KC)                                                               \
    K(float_adm_dwt, FadmDwtArgs, TvdNoLocals, FADM_BLOCK_W, FADM_BLOCK_H, 0)                  \
    K(float_adm_decouple, FadmDecArgs, TvdNoLocals, FADM_BLOCK_W, FADM_BLOCK_H, 0)             \
    K(float_adm_terms, FadmTermsArgs, TvdNoLocals, FADM_BLOCK_W, FADM_BLOCK_H, 0)              \
    K(float_adm_rows, FadmRowsArgs, TvdNoLocals, FADM_ROW_THREADS, 1, 0)

#ifdef TVD_KERNEL_BUILD

/* ---- dwt ---------------------------------------------------------------- */

/* Sample (y, x) of a DWT input: a frame's luma (src NULL; 8 bits, or 16-bit
 * words) as the CPU loads it, or a previous approximation band. */
TVD_FN float fadm_tile_in(TVMAF_GLOBAL const unsigned char *pic, size_t pitch, int bpc,
                          TVMAF_GLOBAL const float *src, int bs, int y, int x)
{
    if (src) return src[(size_t)y * (size_t)bs + (size_t)x];
    TVMAF_GLOBAL const unsigned char *row = pic + (size_t)y * pitch;
    if (bpc == 8) return fadm_sample8(row[x]);
    return fadm_sample16(((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)row)[x],
                         sample_divisor((unsigned)bpc));
}

/*
 * Coefficient (i, j) of one picture's DWT: per tap column m the vertical
 * low and high of the rows 2i - 1 .. 2i + 2 (mirrored), then the
 * horizontal filters over those four columns: a = lo(lo), v = hi(lo),
 * h = lo(hi), d = hi(hi), as the CPU's row loops compute them.
 */
TVD_FN void fadm_tile_dwt(const FadmTileScale *c, TVMAF_GLOBAL const unsigned char *pic,
                          size_t pitch, TVMAF_GLOBAL const float *src, int i, int j,
                          TVMAF_GLOBAL float *a, TVMAF_GLOBAL float *hb, TVMAF_GLOBAL float *vb,
                          TVMAF_GLOBAL float *db)
{
    int y[4];
    for (int k = 0; k < 4; k++) y[k] = mirror_skip_first_repeat_last(2 * i - 1 + k, c->ih);
    float lo[4], hi[4];
    for (int m = 0; m < 4; m++) {
        const int x = mirror_skip_first_repeat_last(2 * j - 1 + m, c->iw);
        float s[4];
        for (int k = 0; k < 4; k++) s[k] = fadm_tile_in(pic, pitch, c->bpc, src, c->bs, y[k], x);
        lo[m] = fadm_fir_lo(s[0], s[1], s[2], s[3]);
        hi[m] = fadm_fir_hi(s[0], s[1], s[2], s[3]);
    }
    const size_t o = (size_t)i * (size_t)c->bs + (size_t)j;
    a[o] = fadm_fir_lo(lo[0], lo[1], lo[2], lo[3]);
    if (c->lo_only) return;
    vb[o] = fadm_fir_hi(lo[0], lo[1], lo[2], lo[3]);
    hb[o] = fadm_fir_lo(hi[0], hi[1], hi[2], hi[3]);
    db[o] = fadm_fir_hi(hi[0], hi[1], hi[2], hi[3]);
}

/* Both pictures' coefficient (i, j) of scale c->k. bands: the planes. */
TVD_FN void fadm_tile_dwt_at(const FadmTileScale *c, TVMAF_GLOBAL const unsigned char *ref,
                             TVMAF_GLOBAL const unsigned char *dis, size_t pitch,
                             TVMAF_GLOBAL float *bands, size_t plane, int i, int j)
{
    TVMAF_GLOBAL const unsigned char *pic[2] = {ref, dis};
    const int a0[2] = { FADM_P_A_REF, FADM_P_A_DIS }, b0[2] = { FADM_P_B_REF, FADM_P_B_DIS };
    for (int q = 0; q < 2; q++) {
        TVMAF_GLOBAL const float *src =
            c->k ? bands + (size_t)(a0[q] + ((c->k - 1) & 1)) * plane : NULL;
        TVMAF_GLOBAL float *b = bands + (size_t)b0[q] * plane;
        fadm_tile_dwt(c, pic[q], pitch, src, i, j, bands + (size_t)(a0[q] + (c->k & 1)) * plane,
                      b, b + plane, b + 2 * plane);
    }
}

/* ---- decouple and csf --------------------------------------------------- */

/* Coefficient (i, j) of the work range. */
TVD_FN void fadm_tile_decouple_at(const FadmTileScale *c, TVMAF_GLOBAL float *bands, size_t plane,
                                  TVMAF_GLOBAL const uint32_t *table, int i, int j)
{
    const size_t o = (size_t)i * (size_t)c->bs + (size_t)j;
    float o3[3], t3[3], cr[3], fr[3], ca[3], fa[3];
    for (int q = 0; q < 3; q++) {
        o3[q] = bands[(size_t)(FADM_P_B_REF + q) * plane + o];
        t3[q] = bands[(size_t)(FADM_P_B_DIS + q) * plane + o];
    }
    fadm_decouple_csf(o3, t3, c->cos_1deg_sq, c->gain_limit, c->rf, c->div, table, cr, fr, ca,
                      fa);
    for (int q = 0; q < 3; q++) {
        bands[(size_t)(FADM_P_CSF_R + q) * plane + o] = cr[q];
        bands[(size_t)(FADM_P_FLT_R + q) * plane + o] = fr[q];
        bands[(size_t)(FADM_P_CSF_A + q) * plane + o] = ca[q];
        bands[(size_t)(FADM_P_FLT_A + q) * plane + o] = fa[q];
    }
}

/* ---- terms and rows ----------------------------------------------------- */

/* The masking threshold at (i, j) from the flt planes flt0 .. flt0 + 2 and
 * the csf planes csf0 .. csf0 + 2 (the CPU's thr_row at one column). */
TVD_FN float fadm_tile_thr(const FadmTileScale *c, TVMAF_GLOBAL const float *bands, size_t plane,
                           int flt0, int csf0, int i, int j)
{
    const size_t bs = (size_t)c->bs;
    const size_t ru = (size_t)fadm_prev(i) * bs, rm = (size_t)i * bs;
    const size_t rd = (size_t)fadm_next(i, c->h) * bs;
    TVMAF_GLOBAL const float *up[3], *mid[3], *dn[3], *ce[3];
    for (int q = 0; q < 3; q++) {
        TVMAF_GLOBAL const float *f = bands + (size_t)(flt0 + q) * plane;
        up[q] = f + ru;
        mid[q] = f + rm;
        dn[q] = f + rd;
        ce[q] = bands + (size_t)(csf0 + q) * plane + rm;
    }
    return fadm_thr_at(up, mid, dn, ce, fadm_prev(j), j, fadm_next(j, c->w));
}

/* The nine terms of pooled coefficient (i, j) into terms (all scales'). */
TVD_FN void fadm_tile_terms_at(const FadmTileScale *c, TVMAF_GLOBAL const float *bands,
                               size_t plane, TVMAF_GLOBAL float *terms, int i, int j)
{
    const size_t o = (size_t)i * (size_t)c->bs + (size_t)j;
    const size_t n = (size_t)c->pw * (size_t)c->ph;
    TVMAF_GLOBAL float *out =
        terms + c->terms_off + (size_t)(i - c->t) * (size_t)c->pw + (size_t)(j - c->l);
    /* DLM masks csf(r) by the threshold of csf(a); AIM the other way */
    const float thr_n = c->bypass_cm ? 0.0f
                                     : fadm_tile_thr(c, bands, plane, FADM_P_FLT_A, FADM_P_CSF_A,
                                                     i, j);
    const float thr_a = c->bypass_cm ? 0.0f
                                     : fadm_tile_thr(c, bands, plane, FADM_P_FLT_R, FADM_P_CSF_R,
                                                     i, j);
    for (int q = 0; q < 3; q++) {
        const float bd = fadm_den_base(c->rf[q], bands[(size_t)(FADM_P_B_REF + q) * plane + o]);
        const float bn = fadm_cm_base(bands[(size_t)(FADM_P_CSF_R + q) * plane + o], thr_n);
        const float ba = fadm_cm_base(bands[(size_t)(FADM_P_CSF_A + q) * plane + o], thr_a);
        out[(size_t)q * n] = c->cube ? fadm_cube(bd) : bd;
        out[(size_t)(3 + q) * n] = c->cube ? fadm_cube(bn) : bn;
        out[(size_t)(6 + q) * n] = c->cube ? fadm_cube(ba) : ba;
    }
}

/* Work-item `id` of the rows launch: term id / ph, pooled row id % ph, added
 * left to right into one float, as the CPU's row accumulator. */
TVD_FN void fadm_tile_row(const FadmTileScale *c, TVMAF_GLOBAL const float *terms,
                          TVMAF_GLOBAL float *rows, int id)
{
    const int q = id / c->ph, y = id % c->ph;
    TVMAF_GLOBAL const float *t = terms + c->terms_off + (size_t)q * (size_t)c->pw * (size_t)c->ph +
                                  (size_t)y * (size_t)c->pw;
    float s = 0.0f;
    for (int x = 0; x < c->pw; x++) s += t[x];
    rows[c->rows_off + (size_t)id] = s;
}

/* ---- the kernels -------------------------------------------------------- */

/* Coefficient j of the rows of [y0, y1) this work-item covers (the grid's y strides). */
#define FADM_FOR_COEFS(x0, x1, y0, y1)                                                         \
    const int j = (x0) + (int)(TVD_GID(0) * FADM_BLOCK_W + TVD_LID(0));                        \
    if (j >= (x1)) return;                                                                     \
    for (int i = (y0) + (int)(TVD_GID(1) * FADM_BLOCK_H + TVD_LID(1)); i < (y1);               \
         i += (int)(TVD_NGROUPS(1) * FADM_BLOCK_H))

/* scale c->k's DWT of both pictures over the whole band */
TVD_BODY(float_adm_dwt, FadmDwtArgs, TvdNoLocals)
{
    (void)loc;
    const FadmTileScale cs = *r->sc, *c = &cs; /* private: the helpers' memory */
    FADM_FOR_COEFS(0, c->w, 0, c->h)
    fadm_tile_dwt_at(c, r->ref, r->dis, r->pitch, r->bands, r->plane, i, j);
}

/* decouple and csf over the work range */
TVD_BODY(float_adm_decouple, FadmDecArgs, TvdNoLocals)
{
    (void)loc;
    const FadmTileScale cs = *r->sc, *c = &cs; /* private: the helpers' memory */
    FADM_FOR_COEFS(c->work_l, c->work_r, c->work_t, c->work_b)
    fadm_tile_decouple_at(c, r->bands, r->plane, r->table, i, j);
}

/* the nine terms over the pooled region */
TVD_BODY(float_adm_terms, FadmTermsArgs, TvdNoLocals)
{
    (void)loc;
    const FadmTileScale cs = *r->sc, *c = &cs; /* private: the helpers' memory */
    FADM_FOR_COEFS(c->l, c->r, c->t, c->b)
    fadm_tile_terms_at(c, r->bands, r->plane, r->terms, i, j);
}

/* one work-item per (term, pooled row): the row's float total */
TVD_BODY(float_adm_rows, FadmRowsArgs, TvdNoLocals)
{
    (void)loc;
    const int id = (int)(TVD_GID(0) * FADM_ROW_THREADS + TVD_LID(0));
    const FadmTileScale cs = *r->sc;
    if (id >= FADM_N_TERMS * cs.ph) return;
    fadm_tile_row(&cs, r->terms, r->rows, id);
}

#endif
#endif
