/*
 * adm: the CUDA twin's decomposition, written once for the kernels (adm.cu)
 * and for their host replay (tests/replay/adm_replay.c), which runs these very
 * functions thread by thread.
 *
 * Per frame, per scale k (band w x h, DWT input in_w x in_h):
 *   coef   one thread per band coefficient (i, j): the DWT of reference and
 *          distorted at (i, j) (scale 0 from the pictures' luma, scales 1..3
 *          from the previous scale's approximation band), the approximation
 *          stored for the next scale; inside the work range the decouple and
 *          the csf of the additive part a (DLM) and, unless skip_aim, of the
 *          restored part r (AIM), stored; inside the den region the three
 *          den terms of the reference, returned to the kernel.
 *   cm     one thread per coefficient of the den/cm region: the masking
 *          terms of the DLM pass (r masked by csf(a)) and of the AIM pass
 *          (a masked by csf(r)), returned to the kernel.
 * A block of ADM_THREADS threads covers a segment of one band row; it adds
 * its threads' terms (integers: any grouping is exact) and adds each of its
 * totals atomically (modulo 2^64) into that row's accumulator: ADM_N_SUMS
 * (den h v d, num h v d, aim h v d) accumulators per row and scale, zeroed
 * per frame. Then one finish launch: block (q, k) rounds the accumulators of
 * rows t .. b-1 of sum q of scale k as the CPU rounds each row total, and
 * adds the rounded rows (modulo 2^64, as the CPU's 64-bit totals). The host
 * reads back the 4 x 9 totals (AdmScaleSums) and runs the CPU's finish.
 *
 * Vector and scalar lanes (adm_math.h): every choice is a function of the
 * column (and, for cm, the row), so each thread makes the CPU's choice for
 * its coefficient from the per-scale lane ends below.
 *
 * The reference's DWT read past the row (adm_math.h, "Which reference
 * build"): the thread of a row's last coefficient computes the samples the
 * reference reads there. At scales 2 and 3 the distorted picture's reads
 * need the previous scale's last distorted low row (columns 0..3): the
 * threads (h-1, 0) and (h-1, 1) of that scale leave those 4 values just past
 * its approximation band, at a_dis[w h .. w h + 3] -- the approximation
 * buffers must hold 4 values more than the band of scales 1 and 2 (the
 * buffers sized for the scale 0 band do).
 */
#ifndef TVMAF_ADM_TILE_H
#define TVMAF_ADM_TILE_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#endif

#include "feature/adm/adm_math.h"

#define ADM_THREADS 128 /* threads per block: a segment of one band row */
#define ADM_FINISH_THREADS 256
#define ADM_N_SUMS 9    /* den[3], num[3], aim[3]: the layout of AdmScaleSums */
#define ADM_N_SCALES 4

/* The reciprocal table (adm_recip_q30(d), d in [-32768, 32768]); the
 * kernels get the address of its entry for 0, as adm_decouple*_at expect. */
#define ADM_RECIP_LEN 65537
#define ADM_RECIP_ZERO 32768

#define ADM_GRID_X(n) (((n) + ADM_THREADS - 1) / ADM_THREADS)

/* The device's buffers start on ADM_PLANE_ALIGN bytes. Per frame there are
 * ADM_N_PLANES per-coefficient planes (AdmTilePlanes: r, a, csf[2], flt[2] of
 * each orientation), each ADM_PLANE_BYTES(n0, n1) for n0 coefficients at
 * scale 0 (int16) and n1 at scale 1 (int32). */
#define ADM_PLANE_ALIGN 256
#define ADM_ALIGN_UP(n) (((size_t)(n) + ADM_PLANE_ALIGN - 1) & ~(size_t)(ADM_PLANE_ALIGN - 1))
#define ADM_N_PLANES 18
#define ADM_PLANE_BYTES(n0, n1) \
    ADM_ALIGN_UP(2 * (size_t)(n0) > 4 * (size_t)(n1) ? 2 * (size_t)(n0) : 4 * (size_t)(n1))

/* What every thread of a scale's launches needs. */
typedef struct AdmTileScale {
    int k;                              /* scale */
    int w, h, in_w, in_h;
    int work_l, work_r, work_t, work_b; /* decouple and csf */
    int l, r, t, b;                     /* den and cm */
    int jv_dec, jv_csf;                 /* end of the vector lanes, every row of the work range */
    int cm_jb, cm_jv;                   /* cm vector lanes [cm_jb, cm_jv), rows 1 .. h-2 */
    int bpc;                            /* input depth (scale 0) */
    int isa;                            /* enum AdmIsa: the reference build */
    int dwt_past;                       /* the last column's DWT reads past the row (adm_math.h,
                                           "Which reference build") */
    int past_col;                       /* scales 2, 3: first column of the previous scale's
                                           distorted low row that it reads (0 or 2) */
    int stats;                          /* decouple .. cm run (0: scale 0 under skip_scale0) */
    int aim;                            /* the AIM pass runs */
    float cos_1deg_sq;
    AdmF64 egl;                         /* a double; its bits in an fp64-free program */
    uint16_t rfac16[3];
    uint32_t rfac32[3];
    int den_sq_shift, den_cub_shift, den_row_shift;
    uint64_t den_cub_add, den_row_add;
    AdmCmShift cm[3];
    int cm_row_shift;
    int64_t cm_row_add;
    uint64_t rows_off;                  /* this scale's accumulators: rows_off + q h + i */
} AdmTileScale;

/* The frame's four scales (argument of the finish launch). */
typedef struct AdmTileFrame {
    AdmTileScale sc[ADM_N_SCALES];
} AdmTileFrame;

/* The per-coefficient planes of one scale, w x h, rows of w values (int16 at
 * scale 0, int32 at scales 1..3): decoupled r and a, and csf / flt of the
 * masking band of each pass ([0]: csf(a), DLM; [1]: csf(r), AIM). */
typedef struct AdmTilePlanes {
    TVMAF_GLOBAL void *r[3], *a[3];
    TVMAF_GLOBAL void *csf[2][3], *flt[2][3];
} AdmTilePlanes;

/* ---- coef --------------------------------------------------------------- */

TVMAF_HD uint32_t adm_tile_sample(TVMAF_GLOBAL const unsigned char *row, int x, int bpc)
{
    return bpc == 8 ? row[x] : ((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)row)[x];
}

/* Scale 0 DWT of one picture at (i, j): approximation and h, v, d. */
TVMAF_HD void adm_tile_dwt0(const AdmTileScale *c, TVMAF_GLOBAL const unsigned char *pic,
                            size_t pitch, int i, int j, TVMAF_GLOBAL int32_t *a, int16_t band[3])
{
    TVMAF_GLOBAL const unsigned char *row[4];
    for (int t = 0; t < 4; t++) row[t] = pic + (size_t)adm_dwt_tap(i, t, c->in_h) * pitch;
    int16_t lo[4], hi[4];
    const int past = c->dwt_past && j == c->w - 1;
    for (int q = 0; q < 4; q++) {
        int x = past ? adm_dwt_tap_vec(j, q) : adm_dwt_tap(j, q, c->in_w);
        const int over = x >= c->in_w; /* past: the low row runs on into the high row */
        x = over ? x - c->in_w : x;
        int16_t l, g;
        adm_dwt0_vert(adm_tile_sample(row[0], x, c->bpc), adm_tile_sample(row[1], x, c->bpc),
                      adm_tile_sample(row[2], x, c->bpc), adm_tile_sample(row[3], x, c->bpc),
                      c->bpc, &l, &g);
        lo[q] = over ? g : l;
        hi[q] = over ? 0 : g; /* memory the frame did not write, read as 0 */
    }
    *a = adm_dwt0_lo(lo[0], lo[1], lo[2], lo[3]);
    band[1] = (int16_t)adm_dwt0_hi(lo[0], lo[1], lo[2], lo[3]);
    band[0] = (int16_t)adm_dwt0_lo(hi[0], hi[1], hi[2], hi[3]);
    band[2] = (int16_t)adm_dwt0_hi(hi[0], hi[1], hi[2], hi[3]);
}

/* Scales 1..3 vertical pass of column x at output row i: low and high. */
TVMAF_HD void adm_tile_vert32(const AdmTileScale *c, TVMAF_GLOBAL const int32_t *src, int i,
                              int x, int32_t *lo, int32_t *hi)
{
    const AdmDwtRound rd = adm_dwt_round(c->k);
    TVMAF_GLOBAL const int32_t *row[4];
    for (int t = 0; t < 4; t++) row[t] = src + (size_t)adm_dwt_tap(i, t, c->in_h) * c->in_w;
    *lo = adm_dwt_lo32(row[0][x], row[1][x], row[2][x], row[3][x], rd.v_add, rd.v_shift);
    *hi = adm_dwt_hi32(row[0][x], row[1][x], row[2][x], row[3][x], rd.v_add, rd.v_shift);
}

/* Scales 1..3 DWT of one approximation band (in_w x in_h, tight rows) at (i, j).
 * dis_src: on the reference's pass, the distorted band (its low row follows
 * the reference's high row); NULL on the distorted pass, whose last row
 * leaves its low row's columns 0..3 past a (see the top of this file). */
TVMAF_HD void adm_tile_dwt32(const AdmTileScale *c, TVMAF_GLOBAL const int32_t *src,
                             TVMAF_GLOBAL const int32_t *dis_src, int i, int j,
                             TVMAF_GLOBAL int32_t *a, int32_t band[3])
{
    const AdmDwtRound rd = adm_dwt_round(c->k);
    int32_t lo[4], hi[4];
    const int past = c->dwt_past && j == c->w - 1;
    for (int q = 0; q < 4; q++) {
        const int x = past ? adm_dwt_tap_vec(j, q) : adm_dwt_tap(j, q, c->in_w);
        if (x < c->in_w) {
            adm_tile_vert32(c, src, i, x, &lo[q], &hi[q]);
            continue;
        }
        const int o = x - c->in_w;
        int32_t l, g;
        adm_tile_vert32(c, src, i, o, &l, &g);
        lo[q] = g;
        if (dis_src) {
            adm_tile_vert32(c, dis_src, i, o, &l, &g);
            hi[q] = l;
        } else {
            /* scale 1: memory nothing wrote, read as 0 */
            hi[q] = c->k == 1 ? 0 : src[(size_t)c->in_w * c->in_h + c->past_col + o];
        }
    }
    if (!dis_src && i == c->h - 1 && j < 2) {
        /* columns 0, 1 (thread 0: taps 1, 0) and 2, 3 (thread 1: taps 1, 2) */
        TVMAF_GLOBAL int32_t *stash = a - (size_t)i * c->w - j + (size_t)c->w * c->h;
        if (j == 0) {
            stash[0] = lo[1];
            if (c->in_w > 1) stash[1] = lo[0];
        } else {
            stash[2] = lo[1];
            stash[3] = lo[2];
        }
    }
    *a = adm_dwt_lo32(lo[0], lo[1], lo[2], lo[3], rd.h_add, rd.h_shift);
    band[1] = adm_dwt_hi32(lo[0], lo[1], lo[2], lo[3], rd.h_add, rd.h_shift);
    band[0] = adm_dwt_lo32(hi[0], hi[1], hi[2], hi[3], rd.h_add, rd.h_shift);
    band[2] = adm_dwt_hi32(hi[0], hi[1], hi[2], hi[3], rd.h_add, rd.h_shift);
}

TVMAF_HD int adm_tile_in_work(const AdmTileScale *c, int i, int j)
{
    return i >= c->work_t && i < c->work_b && j >= c->work_l && j < c->work_r;
}

TVMAF_HD int adm_tile_in_region(const AdmTileScale *c, int i, int j)
{
    return i >= c->t && i < c->b && j >= c->l && j < c->r;
}

/* Scale 0 csf of one band value into csf / flt (vector lanes: flt from the
 * 32-bit value, V2). */
TVMAF_HD void adm_tile_csf16(int16_t x, uint16_t rfac, int diag, int vec, int isa,
                             TVMAF_GLOBAL int16_t *csf, TVMAF_GLOBAL int16_t *flt)
{
    if (vec) {
        const int32_t v = adm_csf16_wide(x, rfac, diag);
        *csf = isa == ADM_ISA_AVX2 ? adm_sat16(v) : (int16_t)v;
        *flt = isa == ADM_ISA_AVX2 ? adm_csf16_flt_sat(v) : adm_csf16_flt(v);
    } else {
        const int16_t v = adm_csf16(x, rfac, diag);
        *csf = v;
        *flt = adm_csf16_flt(v);
    }
}

TVMAF_HD void adm_tile_csf32(int32_t x, uint32_t rfac, int vec, TVMAF_GLOBAL int32_t *csf,
                             TVMAF_GLOBAL int32_t *flt)
{
    const int32_t v = vec ? adm_csf32_v(x, rfac) : adm_csf32(x, rfac);
    *csf = v;
    *flt = adm_csf32_flt(v);
}

/* The work range's part of coefficient (i, j) from the reference's bands o
 * and the distorted's t: the decouple into r and a, and the csf of a (and,
 * with the AIM pass, of r), stored in the planes. Scale 0, then 1..3. */
TVMAF_HD void adm_tile_work16(const AdmTileScale *c, int i, int j, const int16_t o[3],
                              const int16_t t[3], TVMAF_GLOBAL const int32_t *recip,
                              const AdmTilePlanes *p)
{
    const size_t x = (size_t)i * c->w + j;
    int16_t r[3], a[3];
    adm_decouple16_at(o, t, recip, c->cos_1deg_sq, c->egl, j < c->jv_dec, r, a);
    const int vec = j < c->jv_csf;
    for (int q = 0; q < 3; q++) {
        ((TVMAF_GLOBAL int16_t *)p->r[q])[x] = r[q];
        ((TVMAF_GLOBAL int16_t *)p->a[q])[x] = a[q];
        adm_tile_csf16(a[q], c->rfac16[q], q == 2, vec, c->isa,
                       &((TVMAF_GLOBAL int16_t *)p->csf[0][q])[x],
                       &((TVMAF_GLOBAL int16_t *)p->flt[0][q])[x]);
        if (c->aim)
            adm_tile_csf16(r[q], c->rfac16[q], q == 2, vec, c->isa,
                           &((TVMAF_GLOBAL int16_t *)p->csf[1][q])[x],
                           &((TVMAF_GLOBAL int16_t *)p->flt[1][q])[x]);
    }
}

TVMAF_HD void adm_tile_work32(const AdmTileScale *c, int i, int j, const int32_t o[3],
                              const int32_t t[3], TVMAF_GLOBAL const int32_t *recip,
                              const AdmTilePlanes *p)
{
    const size_t x = (size_t)i * c->w + j;
    int32_t r[3], a[3];
    adm_decouple32_at(o, t, recip, c->cos_1deg_sq, c->egl, j < c->jv_dec, r, a);
    const int vec = j < c->jv_csf;
    for (int q = 0; q < 3; q++) {
        ((TVMAF_GLOBAL int32_t *)p->r[q])[x] = r[q];
        ((TVMAF_GLOBAL int32_t *)p->a[q])[x] = a[q];
        adm_tile_csf32(a[q], c->rfac32[q], vec, &((TVMAF_GLOBAL int32_t *)p->csf[0][q])[x],
                       &((TVMAF_GLOBAL int32_t *)p->flt[0][q])[x]);
        if (c->aim)
            adm_tile_csf32(r[q], c->rfac32[q], vec, &((TVMAF_GLOBAL int32_t *)p->csf[1][q])[x],
                           &((TVMAF_GLOBAL int32_t *)p->flt[1][q])[x]);
    }
}

/* Scale 0, coefficient (i, j): writes the approximations a_ref / a_dis and
 * (work range) the planes; den gets the den terms (0 outside the region). */
TVMAF_HD void adm_tile_coef0(const AdmTileScale *c, int i, int j,
                             TVMAF_GLOBAL const unsigned char *ref,
                             TVMAF_GLOBAL const unsigned char *dis, size_t pitch,
                             TVMAF_GLOBAL const int32_t *recip, TVMAF_GLOBAL int32_t *a_ref,
                             TVMAF_GLOBAL int32_t *a_dis, const AdmTilePlanes *p,
                             uint64_t den[3])
{
    int16_t o[3], t[3];
    const size_t x = (size_t)i * c->w + j;
    adm_tile_dwt0(c, ref, pitch, i, j, &a_ref[x], o);
    adm_tile_dwt0(c, dis, pitch, i, j, &a_dis[x], t);
    for (int q = 0; q < 3; q++) den[q] = 0;
    if (!c->stats) return;
    if (adm_tile_in_region(c, i, j))
        for (int q = 0; q < 3; q++) den[q] = adm_den16_term(o[q]);
    if (adm_tile_in_work(c, i, j)) adm_tile_work16(c, i, j, o, t, recip, p);
}

/* Scales 1..3, coefficient (i, j), from the approximation bands src_ref /
 * src_dis of the previous scale. */
TVMAF_HD void adm_tile_coef32(const AdmTileScale *c, int i, int j,
                              TVMAF_GLOBAL const int32_t *src_ref,
                              TVMAF_GLOBAL const int32_t *src_dis,
                              TVMAF_GLOBAL const int32_t *recip, TVMAF_GLOBAL int32_t *a_ref,
                              TVMAF_GLOBAL int32_t *a_dis, const AdmTilePlanes *p,
                              uint64_t den[3])
{
    int32_t o[3], t[3];
    const size_t x = (size_t)i * c->w + j;
    adm_tile_dwt32(c, src_ref, src_dis, i, j, &a_ref[x], o);
    adm_tile_dwt32(c, src_dis, NULL, i, j, &a_dis[x], t);
    for (int q = 0; q < 3; q++) den[q] = 0;
    if (adm_tile_in_region(c, i, j))
        for (int q = 0; q < 3; q++)
            den[q] = adm_den32_term(o[q], c->den_sq_shift, c->den_cub_shift, c->den_cub_add);
    if (adm_tile_in_work(c, i, j)) adm_tile_work32(c, i, j, o, t, recip, p);
}

/*
 * The ladder's two passes. When several distorted inputs share one reference
 * (the CUDA twin with a ladder's reference cache), the coef launch of each
 * scale is split in two:
 *   a reference pass, once per reference picture: the reference's DWT at
 *     (i, j), its approximation for the next scale, its h, v, d bands stored
 *     (AdmRefBands: w x h per band, int16 at scale 0, int32 after) and its
 *     den terms (into the rows' den accumulators, as the coef launch adds
 *     them; the pass computes them at scale 0 under skip_scale0 too, and the
 *     finish then takes the pair's zeroed rows instead);
 *   a pair pass, per distorted input: the distorted's DWT and approximation,
 *     and in the work range the decouple and csf from the stored bands.
 * The same functions on the same values, so the integers are those of the
 * one-pass launch. Only where no scale 1..3 has the DWT defect
 * (AdmTileScale.dwt_past): there the reference's last column reads the
 * distorted band, which no pass of the reference alone can do.
 */
typedef struct AdmRefBands {
    TVMAF_GLOBAL void *o[3];
} AdmRefBands;

TVMAF_HD void adm_tile_coef0_ref(const AdmTileScale *c, int i, int j,
                                 TVMAF_GLOBAL const unsigned char *ref, size_t pitch,
                                 TVMAF_GLOBAL int32_t *a_ref, const AdmRefBands *b,
                                 uint64_t den[3])
{
    int16_t o[3];
    const size_t x = (size_t)i * c->w + j;
    adm_tile_dwt0(c, ref, pitch, i, j, &a_ref[x], o);
    const int in = adm_tile_in_region(c, i, j);
    for (int q = 0; q < 3; q++) {
        ((TVMAF_GLOBAL int16_t *)b->o[q])[x] = o[q];
        den[q] = in ? adm_den16_term(o[q]) : 0;
    }
}

TVMAF_HD void adm_tile_coef0_pair(const AdmTileScale *c, int i, int j,
                                  TVMAF_GLOBAL const unsigned char *dis, size_t pitch,
                                  TVMAF_GLOBAL const int32_t *recip, TVMAF_GLOBAL int32_t *a_dis,
                                  const AdmRefBands *b, const AdmTilePlanes *p)
{
    int16_t o[3], t[3];
    const size_t x = (size_t)i * c->w + j;
    adm_tile_dwt0(c, dis, pitch, i, j, &a_dis[x], t);
    if (!c->stats || !adm_tile_in_work(c, i, j)) return;
    for (int q = 0; q < 3; q++) o[q] = ((TVMAF_GLOBAL const int16_t *)b->o[q])[x];
    adm_tile_work16(c, i, j, o, t, recip, p);
}

TVMAF_HD void adm_tile_coef32_ref(const AdmTileScale *c, int i, int j,
                                  TVMAF_GLOBAL const int32_t *src_ref,
                                  TVMAF_GLOBAL int32_t *a_ref, const AdmRefBands *b,
                                  uint64_t den[3])
{
    int32_t o[3];
    const size_t x = (size_t)i * c->w + j;
    /* the distorted band would be read only with the DWT defect (not shared):
     * the reference's own band stands in, so the call takes the reference's
     * branch */
    adm_tile_dwt32(c, src_ref, src_ref, i, j, &a_ref[x], o);
    const int in = adm_tile_in_region(c, i, j);
    for (int q = 0; q < 3; q++) {
        ((TVMAF_GLOBAL int32_t *)b->o[q])[x] = o[q];
        den[q] = in ? adm_den32_term(o[q], c->den_sq_shift, c->den_cub_shift, c->den_cub_add)
                    : 0;
    }
}

TVMAF_HD void adm_tile_coef32_pair(const AdmTileScale *c, int i, int j,
                                   TVMAF_GLOBAL const int32_t *src_dis,
                                   TVMAF_GLOBAL const int32_t *recip,
                                   TVMAF_GLOBAL int32_t *a_dis, const AdmRefBands *b,
                                   const AdmTilePlanes *p)
{
    int32_t o[3], t[3];
    const size_t x = (size_t)i * c->w + j;
    adm_tile_dwt32(c, src_dis, NULL, i, j, &a_dis[x], t);
    if (!adm_tile_in_work(c, i, j)) return;
    for (int q = 0; q < 3; q++) o[q] = ((TVMAF_GLOBAL const int32_t *)b->o[q])[x];
    adm_tile_work32(c, i, j, o, t, recip, p);
}

/* ---- cm ----------------------------------------------------------------- */

/* Whether (i, j) of the cm region is a vector lane. */
TVMAF_HD int adm_tile_cm_vec(const AdmTileScale *c, int i, int j)
{
    return i >= 1 && i <= c->h - 2 && j >= c->cm_jb && j < c->cm_jv;
}

/* One pass of the cm at (i, j): the masking terms of val (h, v, d) under
 * the threshold of csf (centre) and flt (neighbours), added into out[0..2].
 * Pass 0 (DLM): val r, csf(a); pass 1 (AIM): val a, csf(r). */
TVMAF_HD void adm_tile_cm16_pass(const AdmTileScale *c, int i, int j,
                                 TVMAF_GLOBAL void *const val[3], TVMAF_GLOBAL void *const csf[3],
                                 TVMAF_GLOBAL void *const flt[3], int64_t out[3])
{
    const size_t up = (size_t)adm_cm_prev(i) * c->w, mid = (size_t)i * c->w;
    const size_t dn = (size_t)adm_cm_next(i, c->h) * c->w;
    const int jl = adm_cm_prev(j), jr = adm_cm_next(j, c->w);
    TVMAF_GLOBAL const int16_t *cm_[3], *fu[3], *fm[3], *fd[3];
    for (int o = 0; o < 3; o++) {
        TVMAF_GLOBAL const int16_t *f = (TVMAF_GLOBAL const int16_t *)flt[o];
        cm_[o] = (TVMAF_GLOBAL const int16_t *)csf[o] + mid;
        fu[o] = f + up;
        fm[o] = f + mid;
        fd[o] = f + dn;
    }
    const int vec = adm_tile_cm_vec(c, i, j);
    const int32_t thr = adm_cm_thr16(cm_, fu, fm, fd, jl, j, jr, vec);
    for (int o = 0; o < 3; o++) {
        const int32_t x = adm_cm_value16(((TVMAF_GLOBAL const int16_t *)val[o])[mid + j],
                                         c->rfac16[o]);
        out[o] += vec && c->isa == ADM_ISA_AVX2 ? adm_cm_term_avx2(x, thr, c->cm[o])
                                                : adm_cm_term(x, thr, c->cm[o]);
    }
}

TVMAF_HD void adm_tile_cm32_pass(const AdmTileScale *c, int i, int j,
                                 TVMAF_GLOBAL void *const val[3], TVMAF_GLOBAL void *const csf[3],
                                 TVMAF_GLOBAL void *const flt[3], int64_t out[3])
{
    const size_t up = (size_t)adm_cm_prev(i) * c->w, mid = (size_t)i * c->w;
    const size_t dn = (size_t)adm_cm_next(i, c->h) * c->w;
    const int jl = adm_cm_prev(j), jr = adm_cm_next(j, c->w);
    TVMAF_GLOBAL const int32_t *cm_[3], *fu[3], *fm[3], *fd[3];
    for (int o = 0; o < 3; o++) {
        TVMAF_GLOBAL const int32_t *f = (TVMAF_GLOBAL const int32_t *)flt[o];
        cm_[o] = (TVMAF_GLOBAL const int32_t *)csf[o] + mid;
        fu[o] = f + up;
        fm[o] = f + mid;
        fd[o] = f + dn;
    }
    const int vec = adm_tile_cm_vec(c, i, j);
    const int64_t thr = adm_cm_thr32(cm_, fu, fm, fd, jl, j, jr, vec && c->isa == ADM_ISA_AVX2);
    for (int o = 0; o < 3; o++) {
        const int32_t v = ((TVMAF_GLOBAL const int32_t *)val[o])[mid + j];
        out[o] += vec ? adm_cm_term32_vec(c->isa, v, c->rfac32[o], thr, c->cm[o])
                      : adm_cm_term(adm_cm_value32(v, c->rfac32[o]), (int32_t)thr, c->cm[o]);
    }
}

/* Coefficient (i, j) of the cm region: out[0..2] get the DLM terms,
 * out[3..5] the AIM terms (0 without the AIM pass). */
TVMAF_HD void adm_tile_cm(const AdmTileScale *c, int i, int j, const AdmTilePlanes *p,
                          int64_t out[6])
{
    for (int q = 0; q < 6; q++) out[q] = 0;
    if (c->k == 0) {
        adm_tile_cm16_pass(c, i, j, p->r, p->csf[0], p->flt[0], out);
        if (c->aim) adm_tile_cm16_pass(c, i, j, p->a, p->csf[1], p->flt[1], out + 3);
    } else {
        adm_tile_cm32_pass(c, i, j, p->r, p->csf[0], p->flt[0], out);
        if (c->aim) adm_tile_cm32_pass(c, i, j, p->a, p->csf[1], p->flt[1], out + 3);
    }
}

/* ---- finish --------------------------------------------------------------- */

/* Row i's accumulator of sum q rounded as the CPU rounds that row's total. */
TVMAF_HD uint64_t adm_tile_row(const AdmTileScale *c, int q, uint64_t acc)
{
    if (q < 3) return adm_row_round_u(acc, c->den_row_shift, c->den_row_add);
    return (uint64_t)adm_row_round_s((int64_t)acc, c->cm_row_shift, c->cm_row_add);
}

/* ---- host: the per-scale constants ---------------------------------------- */

#if !defined(__CUDACC__) && !defined(__OPENCL_VERSION__)
#include "feature/adm/adm_state.h"

/* Scale k's AdmTileScale from the setup (tvmaf_adm_setup); rows_off is the
 * offset of its accumulators. Returns the accumulators it needs (9 h). */
static inline size_t adm_tile_scale_init(AdmTileScale *t, const AdmState *s, int k,
                                         size_t rows_off)
{
    const AdmScale *c = &s->sc[k];
    t->k = k;
    t->w = c->w;
    t->h = c->h;
    t->in_w = c->in_w;
    t->in_h = c->in_h;
    t->work_l = c->work_l;
    t->work_r = c->work_r;
    t->work_t = c->work_t;
    t->work_b = c->work_b;
    t->l = c->l;
    t->r = c->r;
    t->t = c->t;
    t->b = c->b;
    t->jv_dec = adm_lanes_decouple(s->isa, k, c->work_l, c->work_r);
    t->jv_csf = adm_lanes_csf(s->isa, c->work_l, c->work_r);
    t->cm_jb = c->l > 1 ? c->l : 1;
    const int je = c->r < c->w - 1 ? c->r : c->w - 1;
    t->cm_jv = c->l < 1 ? t->cm_jb : adm_lanes_cm(s->isa, k, t->cm_jb, je);
    t->bpc = (int)s->bpc;
    t->isa = s->isa;
    t->dwt_past = adm_dwt_reads_past(c->w, adm_dwt_block(s->isa, k, (int)s->bpc));
    t->past_col = k >= 2 && (s->sc[k - 1].in_w & 1) ? 2 : 0;
    t->stats = !(k == 0 && s->skip_scale0);
    t->aim = !s->skip_aim;
    t->cos_1deg_sq = s->cos_1deg_sq;
    t->egl = s->enhn_gain_limit;
    for (int o = 0; o < 3; o++) {
        t->rfac16[o] = c->rfac16[o];
        t->rfac32[o] = c->rfac32[o];
        t->cm[o] = c->cm[o];
    }
    t->den_sq_shift = c->den_sq_shift;
    t->den_cub_shift = c->den_cub_shift;
    t->den_row_shift = c->den_row_shift;
    t->den_cub_add = c->den_cub_add;
    t->den_row_add = c->den_row_add;
    t->cm_row_shift = c->cm_row_shift;
    t->cm_row_add = c->cm_row_add;
    t->rows_off = rows_off;
    return (size_t)ADM_N_SUMS * (size_t)c->h;
}
#endif

#endif
