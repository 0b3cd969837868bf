/*
 * adm twin, kernels (gpu/kernel.h): per scale one coef launch and one cm
 * launch (scale 0 with skip_scale0: the coef launch's DWT only), then one
 * finish launch for the frame (adm_tile.h describes the decomposition and
 * holds the per-work-item work).
 *
 * A group is ADM_THREADS work-items on one band row (group y), columns
 * group x * ADM_THREADS + local id (plus the region's first column in the
 * cm launch). Its work-items' integer terms are added per row, modulo 2^64,
 * so any grouping gives the CPU's row totals; row rounding happens in the
 * finish launch only. Two decompositions:
 *   adm_coef0 ...     (CUDA's caps) folded across each warp by shuffles,
 *                     then across the warps by one work-item per sum, which
 *                     adds the group's total into the row's accumulator with
 *                     a 64-bit atomic;
 *   adm_coef0_g ...   (any device) folded in local memory; each group stores
 *                     its totals in its own slot, slot (q, i, g) of a scale
 *                     being sum q of row i from group g of the row (G groups
 *                     per row); the finish adds a row's G slots first.
 * In a ladder (CUDA's reference cache) the coef launches run as adm_tile.h's
 * reference pass (once per reference picture, into its area) and pair pass.
 *
 * The scales' constants (AdmTileScale) are a buffer the plan uploads once;
 * the coefficient planes (AdmTilePlanes) are rebuilt in each work-item from
 * one buffer and the planes' size.
 */
#ifndef TVMAF_ADM_KERNELS_H
#define TVMAF_ADM_KERNELS_H

#include "gpu/kernel.h"
#include "feature/adm/adm_tile.h"

/* scales: the four AdmTileScale; k: this launch's scale; recip: the whole
 * reciprocal table; planes: the 18 coefficient planes, `plane` bytes apart;
 * rows: the accumulators (atomics), or this scale's slots (groups) */
#define AdmCoef0Args_LIST(V, S)                                                                \
    V(const AdmTileScale, scales) S(uint32_t, k) V(const uint8_t, ref) V(const uint8_t, dis)   \
    S(uint64_t, pitch) V(const int32_t, recip) V(int32_t, a_ref) V(int32_t, a_dis)             \
    V(uint8_t, planes) S(uint64_t, plane) V(uint64_t, rows)
TVD_ARGS(AdmCoef0Args)
#define AdmCoef32Args_LIST(V, S)                                                               \
    V(const AdmTileScale, scales) S(uint32_t, k) V(const int32_t, src_ref)                     \
    V(const int32_t, src_dis) V(const int32_t, recip) V(int32_t, a_ref) V(int32_t, a_dis)      \
    V(uint8_t, planes) S(uint64_t, plane) V(uint64_t, rows)
TVD_ARGS(AdmCoef32Args)
/* g: groups per row of the scale's slots (the groups' variant) */
#define AdmCmArgs_LIST(V, S)                                                                   \
    V(const AdmTileScale, scales) S(uint32_t, k) V(uint8_t, planes) S(uint64_t, plane)         \
    V(uint64_t, rows) S(uint32_t, g)
TVD_ARGS(AdmCmArgs)
/* den_rows: rows itself, or the reference pass's */
#define AdmFinishArgs_LIST(V, S)                                                               \
    V(const AdmTileScale, scales) V(const uint64_t, rows) V(const uint64_t, den_rows)          \
    V(uint64_t, sums)
TVD_ARGS(AdmFinishArgs)
/* layout: each scale's first slot, then each scale's groups per row */
#define AdmFinishGArgs_LIST(V, S)                                                              \
    V(const AdmTileScale, scales) V(const uint64_t, slots) V(const uint64_t, layout)           \
    V(uint64_t, sums)
TVD_ARGS(AdmFinishGArgs)
/* the ladder: the reference's bands of the scale (b0, b1, b2) in its area,
 * the den accumulators (rows) there too */
#define AdmRefArgs_LIST(V, S)                                                                  \
    V(const AdmTileScale, scales) S(uint32_t, k) V(const uint8_t, src) S(uint64_t, pitch)      \
    V(int32_t, a_ref) V(uint8_t, b0) V(uint8_t, b1) V(uint8_t, b2) V(uint64_t, rows)
TVD_ARGS(AdmRefArgs)
#define AdmPairArgs_LIST(V, S)                                                                 \
    V(const AdmTileScale, scales) S(uint32_t, k) V(const uint8_t, src) S(uint64_t, pitch)      \
    V(const int32_t, recip) V(int32_t, a_dis) V(uint8_t, b0) V(uint8_t, b1) V(uint8_t, b2)     \
    V(uint8_t, planes) S(uint64_t, plane)
TVD_ARGS(AdmPairArgs)

#define AdmWarps3_LIST(X) X(uint64_t, part, ADM_THREADS / 32 * 3)
#define AdmWarps6_LIST(X) X(uint64_t, part, ADM_THREADS / 32 * 6)
#define AdmFinishL_LIST(X) X(uint64_t, part, ADM_FINISH_THREADS / 32)
#define AdmTree_LIST(X) X(uint64_t, red, ADM_THREADS)
#define AdmFinishTree_LIST(X) X(uint64_t, red, ADM_FINISH_THREADS)
TVD_LOCALS(AdmWarps3) TVD_LOCALS(AdmWarps6) TVD_LOCALS(AdmFinishL) TVD_LOCALS(AdmTree)
TVD_LOCALS(AdmFinishTree)

/* Groups per multiprocessor CUDA's register allocation must allow (without
 * it ptxas spills in adm_coef0 at 40 registers; with it, 64 and no spill). */
#define ADM_FLAGS (TVD_SYNC | TVD_CUDA_CAPS | TVD_MIN_BLOCKS(8))

#define ADM_KERNELS(K, KC)                                                                     \
    KC(adm_coef0, AdmCoef0Args, AdmWarps3, ADM_THREADS, 1, ADM_FLAGS)                          \
    KC(adm_coef32, AdmCoef32Args, AdmWarps3, ADM_THREADS, 1, ADM_FLAGS)                        \
    KC(adm_cm, AdmCmArgs, AdmWarps6, ADM_THREADS, 1, ADM_FLAGS)                                \
    KC(adm_finish, AdmFinishArgs, AdmFinishL, ADM_FINISH_THREADS, 1, TVD_SYNC | TVD_CUDA_CAPS) \
    KC(adm_coef0_ref, AdmRefArgs, AdmWarps3, ADM_THREADS, 1, ADM_FLAGS)                        \
    KC(adm_coef32_ref, AdmRefArgs, AdmWarps3, ADM_THREADS, 1, ADM_FLAGS)                       \
    KC(adm_coef0_pair, AdmPairArgs, TvdNoLocals, ADM_THREADS, 1, ADM_FLAGS)                    \
    KC(adm_coef32_pair, AdmPairArgs, TvdNoLocals, ADM_THREADS, 1, ADM_FLAGS)                   \
    K(adm_coef0_g, AdmCoef0Args, AdmTree, ADM_THREADS, 1, TVD_SYNC)                            \
    K(adm_coef32_g, AdmCoef32Args, AdmTree, ADM_THREADS, 1, TVD_SYNC)                          \
    K(adm_cm_g, AdmCmArgs, AdmTree, ADM_THREADS, 1, TVD_SYNC)                                  \
    K(adm_finish_g, AdmFinishGArgs, AdmFinishTree, ADM_FINISH_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* The planes at base, `plane` bytes apart: r, a, csf[0], flt[0], csf[1],
 * flt[1] of each orientation. */
TVD_FN AdmTilePlanes adm_planes_at(TVMAF_GLOBAL uint8_t *base, uint64_t plane)
{
    AdmTilePlanes p;
    for (int o = 0; o < 3; o++) {
        p.r[o] = base;
        base += plane;
        p.a[o] = base;
        base += plane;
        for (int q = 0; q < 2; q++) {
            p.csf[q][o] = base;
            base += plane;
            p.flt[q][o] = base;
            base += plane;
        }
    }
    return p;
}

/* This work-item's coefficient: row i, column j (from the region's first
 * column c0). */
#define ADM_AT(c0)                                                                             \
    const int i = (int)TVD_GID(1), j = (c0) + (int)(TVD_GID(0) * ADM_THREADS + TVD_LID(0))

#if TVD_HAS_CUDA_CAPS
TVD_FN uint64_t adm_warp_sum(uint64_t v)
{
    for (unsigned o = 16; o > 0; o >>= 1) v += TVD_SHFL_DOWN_U64(v, o);
    return v;
}

/* Adds the group's n terms per work-item into acc[q * stride] (q < n). */
TVD_FN void adm_group_add(const uint64_t *v, int n, TVMAF_LOCAL uint64_t *part,
                          TVMAF_GLOBAL uint64_t *acc, uint64_t stride)
{
    const uint32_t t = TVD_LID(0);
    for (int q = 0; q < n; q++) {
        const uint64_t s = adm_warp_sum(v[q]);
        if (!(t & 31u)) part[(t >> 5) * n + q] = s;
    }
    TVD_BARRIER();
    if (t < (uint32_t)n) {
        uint64_t total = 0;
        for (unsigned k = 0; k < ADM_THREADS / 32; k++) total += part[k * n + t];
        if (total) TVD_ATOMIC_ADD_U64(acc + t * stride, total);
    }
}
#define ADM_ROW_ADD(r, c, i, v, n) adm_group_add((v), (n), loc->part, (r)->rows + (c).rows_off + \
                                                 (uint64_t)(i), (uint64_t)(c).h)

TVD_BODY(adm_coef0, AdmCoef0Args, AdmWarps3)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef0(&c, i, j, r->ref, r->dis, r->pitch, r->recip + ADM_RECIP_ZERO, r->a_ref,
                       r->a_dis, &p, den);
    if (!c.stats || i < c.t || i >= c.b) return; /* uniform over the group */
    ADM_ROW_ADD(r, c, i, den, 3);
}

TVD_BODY(adm_coef32, AdmCoef32Args, AdmWarps3)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef32(&c, i, j, r->src_ref, r->src_dis, r->recip + ADM_RECIP_ZERO, r->a_ref,
                        r->a_dis, &p, den);
    if (i < c.t || i >= c.b) return; /* uniform over the group */
    ADM_ROW_ADD(r, c, i, den, 3);
}

/* cm over the region: group row c.t + group y, columns from c.l */
TVD_BODY(adm_cm, AdmCmArgs, AdmWarps6)
{
    const AdmTileScale c = r->scales[r->k];
    const int i = c.t + (int)TVD_GID(1);
    const int j = c.l + (int)(TVD_GID(0) * ADM_THREADS + TVD_LID(0));
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    int64_t out[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < c.r) adm_tile_cm(&c, i, j, &p, out);
    uint64_t v[6];
    for (int q = 0; q < 6; q++) v[q] = (uint64_t)out[q];
    ADM_ROW_ADD(r, c, 3 * (uint64_t)c.h + i, v, 6);
}

/* Group (q, k): sum q of scale k, rows t .. b-1 rounded and added, into
 * sums[9 k + q] (the AdmScaleSums layout). The den sums of a scale with
 * statistics come from den_rows. */
TVD_BODY(adm_finish, AdmFinishArgs, AdmFinishL)
{
    const int q = (int)TVD_GID(0), k = (int)TVD_GID(1);
    const AdmTileScale c = r->scales[k];
    TVMAF_GLOBAL const uint64_t *acc =
        (q < 3 && c.stats ? r->den_rows : r->rows) + c.rows_off + (uint64_t)q * c.h;
    const uint32_t t = TVD_LID(0);
    uint64_t total = 0;
    for (int i = c.t + (int)t; i < c.b; i += ADM_FINISH_THREADS)
        total += adm_tile_row(&c, q, acc[i]);
    total = adm_warp_sum(total);
    if (!(t & 31u)) loc->part[t >> 5] = total;
    TVD_BARRIER();
    if (t == 0) {
        uint64_t s = 0;
        for (unsigned w = 0; w < ADM_FINISH_THREADS / 32; w++) s += loc->part[w];
        r->sums[ADM_N_SUMS * k + q] = s;
    }
}

/* The ladder's passes: the reference pass of scale 0 and of scales 1..3
 * (its bands into b, its den terms into the area's accumulators, its
 * approximation into a_ref), and the pair passes (no row terms: the den
 * terms are the reference pass's). */
#define ADM_BANDS(r) { { (r)->b0, (r)->b1, (r)->b2 } }

TVD_BODY(adm_coef0_ref, AdmRefArgs, AdmWarps3)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmRefBands b = ADM_BANDS(r);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w) adm_tile_coef0_ref(&c, i, j, r->src, r->pitch, r->a_ref, &b, den);
    if (i < c.t || i >= c.b) return; /* uniform over the group */
    ADM_ROW_ADD(r, c, i, den, 3);
}

TVD_BODY(adm_coef32_ref, AdmRefArgs, AdmWarps3)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmRefBands b = ADM_BANDS(r);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef32_ref(&c, i, j, (TVMAF_GLOBAL const int32_t *)r->src, r->a_ref, &b, den);
    if (i < c.t || i >= c.b) return; /* uniform over the group */
    ADM_ROW_ADD(r, c, i, den, 3);
}

TVD_BODY(adm_coef0_pair, AdmPairArgs, TvdNoLocals)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmRefBands b = ADM_BANDS(r);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    if (j < c.w)
        adm_tile_coef0_pair(&c, i, j, r->src, r->pitch, r->recip + ADM_RECIP_ZERO, r->a_dis, &b,
                            &p);
}

TVD_BODY(adm_coef32_pair, AdmPairArgs, TvdNoLocals)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmRefBands b = ADM_BANDS(r);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    if (j < c.w)
        adm_tile_coef32_pair(&c, i, j, (TVMAF_GLOBAL const int32_t *)r->src,
                             r->recip + ADM_RECIP_ZERO, r->a_dis, &b, &p);
}
#endif

/* Folds each of the n terms of every work-item and stores the group's totals
 * at dst[q * stride] (group-uniform call). */
TVD_FN void adm_group_store(TVMAF_LOCAL uint64_t *red, const uint64_t *v, int n,
                            TVMAF_GLOBAL uint64_t *dst, uint64_t stride)
{
    const uint32_t t = TVD_LID(0);
    for (int q = 0; q < n; q++) {
        red[t] = v[q];
        TVD_BARRIER();
        for (uint32_t o = ADM_THREADS / 2; o > 0; o >>= 1) {
            if (t < o) red[t] += red[t + o];
            TVD_BARRIER();
        }
        if (t == 0) dst[q * stride] = red[0];
        TVD_BARRIER();
    }
}

TVD_BODY(adm_coef0_g, AdmCoef0Args, AdmTree)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef0(&c, i, j, r->ref, r->dis, r->pitch, r->recip + ADM_RECIP_ZERO, r->a_ref,
                       r->a_dis, &p, den);
    if (!c.stats || i < c.t || i >= c.b) return; /* uniform over the group */
    const uint64_t g = TVD_NGROUPS(0);
    adm_group_store(loc->red, den, 3, r->rows + (uint64_t)i * g + TVD_GID(0), (uint64_t)c.h * g);
}

TVD_BODY(adm_coef32_g, AdmCoef32Args, AdmTree)
{
    const AdmTileScale c = r->scales[r->k];
    ADM_AT(0);
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef32(&c, i, j, r->src_ref, r->src_dis, r->recip + ADM_RECIP_ZERO, r->a_ref,
                        r->a_dis, &p, den);
    if (i < c.t || i >= c.b) return; /* uniform over the group */
    const uint64_t g = TVD_NGROUPS(0);
    adm_group_store(loc->red, den, 3, r->rows + (uint64_t)i * g + TVD_GID(0), (uint64_t)c.h * g);
}

/* cm over the region: group row c.t + group y, columns from c.l; g groups per
 * row of the scale's slots */
TVD_BODY(adm_cm_g, AdmCmArgs, AdmTree)
{
    const AdmTileScale c = r->scales[r->k];
    const int i = c.t + (int)TVD_GID(1);
    const int j = c.l + (int)(TVD_GID(0) * ADM_THREADS + TVD_LID(0));
    const AdmTilePlanes p = adm_planes_at(r->planes, r->plane);
    int64_t out[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < c.r) adm_tile_cm(&c, i, j, &p, out);
    uint64_t v[6];
    for (int q = 0; q < 6; q++) v[q] = (uint64_t)out[q];
    adm_group_store(loc->red, v, 6, r->rows + (3 * (uint64_t)c.h + i) * r->g + TVD_GID(0),
                    (uint64_t)c.h * r->g);
}

/* Group (q, k): sum q of scale k, rows t .. b-1 (each the sum of its G
 * slots) rounded and added, into sums[9 k + q]. */
TVD_BODY(adm_finish_g, AdmFinishGArgs, AdmFinishTree)
{
    const int q = (int)TVD_GID(0), k = (int)TVD_GID(1);
    const AdmTileScale c = r->scales[k];
    const uint64_t g = r->layout[ADM_N_SCALES + k];
    TVMAF_GLOBAL const uint64_t *acc = r->slots + r->layout[k] + (uint64_t)q * c.h * g;
    const uint32_t t = TVD_LID(0);
    uint64_t total = 0;
    for (int i = c.t + (int)t; i < c.b; i += ADM_FINISH_THREADS) {
        uint64_t row = 0;
        for (uint64_t s = 0; s < g; s++) row += acc[(uint64_t)i * g + s];
        total += adm_tile_row(&c, q, row);
    }
    loc->red[t] = total;
    TVD_BARRIER();
    for (uint32_t o = ADM_FINISH_THREADS / 2; o > 0; o >>= 1) {
        if (t < o) loc->red[t] += loc->red[t + o];
        TVD_BARRIER();
    }
    if (t == 0) r->sums[ADM_N_SUMS * k + q] = loc->red[0];
}

#endif
#endif
