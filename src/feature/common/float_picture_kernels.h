/*
 * The kernels' side of the float picture sums (float_picture.h, "Exact
 * double sums"), shared by the twins of float_psnr and float_moment: their
 * arguments, their groups' folds and their frame's steps.
 *
 * The rows kernel gives each row's saturated units (one group of
 * FPIC_THREADS work-items per row), the finish kernel (one group of
 * FPIC_FINISH_THREADS) folds the rows and, with CUDA's caps, turns a total
 * below the limit into the CPU's double, one work-item running the CPU's
 * own loop where the total saturated (FpicFinishArgs). Elsewhere the finish
 * kernel only folds (FpicUnitsArgs: the totals of units) and the host turns
 * the totals into the doubles, running the CPU's loop on its own pictures
 * where a total saturated: the OpenCL programs have no fp64.
 *
 * A group's fold is order-free, so two decompositions give the same bits:
 *   fpic_block_fold (CUDA's caps) warps fold by shuffles, then work-item 0
 *                   adds the warps' totals;
 *   fpic_tree_fold  (any device) a tree in local memory.
 * The two plans share their arguments and their frame's steps (fpic_pick,
 * fpic_run, at the end).
 */
#ifndef TVMAF_FEATURE_COMMON_FLOAT_PICTURE_KERNELS_H
#define TVMAF_FEATURE_COMMON_FLOAT_PICTURE_KERNELS_H

#include "gpu/kernel.h"
#include "feature/common/float_picture.h"

/* work-items of a finish kernel's one group (one warp) */
#define FPIC_FINISH_THREADS 32

/* the rows and finish kernels' arguments: rows[S y + k], row y's units of
 * slot k (S slots); out: the plane's double sums (FpicFinishArgs, CUDA's
 * caps) or the slots' totals of units (FpicUnitsArgs) */
#define FpicRowsArgs_LIST(V, S)                                                                \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    S(uint32_t, bpc) S(float, divisor) S(uint64_t, limit) V(uint64_t, rows)
TVD_ARGS(FpicRowsArgs)
#if !defined(TVMAF_FP64_FREE)
#define FpicFinishArgs_LIST(V, S)                                                              \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    S(uint32_t, h) S(uint32_t, bpc) S(float, divisor) S(uint64_t, limit)                       \
    V(const uint64_t, rows) V(double, out)
TVD_ARGS(FpicFinishArgs)
#endif
#define FpicUnitsArgs_LIST(V, S)                                                               \
    V(const uint64_t, rows) S(uint32_t, h) S(uint64_t, limit) V(uint64_t, out)
TVD_ARGS(FpicUnitsArgs)

#ifdef TVD_KERNEL_BUILD

#if TVD_HAS_CUDA_CAPS
/* A group's saturated fold of its work-items' values (whole warps): any
 * order gives min(sum, limit). Every work-item calls it; work-item 0 gets
 * the group's total. */
TVD_FN uint64_t fpic_block_fold(uint64_t v, uint64_t limit, TVMAF_LOCAL uint64_t *warps)
{
    for (int o = 16; o > 0; o >>= 1) v = fpic_units_add(v, TVD_SHFL_DOWN_U64(v, o), limit);
    const uint32_t lane = TVD_LID(0) & 31u, warp = TVD_LID(0) >> 5;
    if (!lane) warps[warp] = v;
    TVD_BARRIER();
    uint64_t t = 0;
    if (TVD_LID(0) == 0)
        for (uint32_t i = 0; i < TVD_LSIZE(0) / 32u; i++) t = fpic_units_add(t, warps[i], limit);
    return t;
}
#endif

/* The same fold as a tree over a slot per work-item (a power of two of
 * them); work-item 0 gets the total. */
TVD_FN uint64_t fpic_tree_fold(uint64_t v, uint64_t limit, TVMAF_LOCAL uint64_t *part)
{
    const uint32_t t = TVD_LID(0);
    part[t] = v;
    TVD_BARRIER();
    for (uint32_t o = TVD_LSIZE(0) / 2; o > 0; o >>= 1) {
        if (t < o) part[t] = fpic_units_add(part[t], part[t + o], limit);
        TVD_BARRIER();
    }
    return t == 0 ? part[0] : 0;
}

/* A finish kernel's work-item l: its rows' (l, l + 32, ...) units of slot
 * k of `slots`, folded. */
TVD_FN uint64_t fpic_rows_lane(TVMAF_GLOBAL const uint64_t *rows, uint32_t h, uint64_t limit,
                               uint32_t slots, uint32_t k)
{
    uint64_t v = 0;
    for (uint32_t y = TVD_LID(0); y < h; y += FPIC_FINISH_THREADS)
        v = fpic_units_add(v, rows[slots * y + k], limit);
    return v;
}

#else /* the plans' side */

/* The kernels a plan runs, rows and finish: from `warps` (CUDA's caps) or
 * `tree`, each the first of a pair listed rows, then finish; returns
 * whether the finish writes totals of units (tree) rather than doubles. */
static inline bool fpic_pick(const TvdTwin *t, unsigned warps, unsigned tree, unsigned k[2])
{
    const TvdCaps *c = tvd_caps(t);
    const bool cuda = c->warp == 32 && c->atomic64;
    const unsigned base = cuda ? warps : tree;
    k[0] = base;
    k[1] = base + 1;
    return !cuda;
}

/* A frame of float_psnr or float_moment: the rows kernel over the luma
 * planes' rows into `rows`, the finish kernel into `out` (doubles, or with
 * `units` the totals), `out` read back. */
static inline int fpic_run(TvdTwin *t, const TvmafDeviceFrame *f, const unsigned k[2], bool units,
                           TvdBuf rows, TvdBuf out, uint32_t w, uint32_t h, uint32_t bpc,
                           float divisor)
{
    const TvdView ref = tvd_plane(t, f, 0, 0), dis = tvd_plane(t, f, 1, 0);
    const uint64_t pitch = tvd_pitch(t, f, 0);
    const FpicRowsArgs a = { .ref = ref, .dis = dis, .pitch = pitch, .w = w, .bpc = bpc,
                             .divisor = divisor, .limit = FPIC_UNITS_EXACT,
                             .rows = tvd_whole(t, rows) };
    const FpicFinishArgs b = { .ref = ref, .dis = dis, .pitch = pitch, .w = w, .h = h,
                               .bpc = bpc, .divisor = divisor, .limit = FPIC_UNITS_EXACT,
                               .rows = tvd_whole(t, rows), .out = tvd_whole(t, out) };
    const FpicUnitsArgs c = { .rows = tvd_whole(t, rows), .h = h, .limit = FPIC_UNITS_EXACT,
                              .out = tvd_whole(t, out) };
    int err = tvd_launch(t, k[0], TVD_GRID(h, 1), &a);
    if (!err) err = tvd_launch(t, k[1], TVD_GRID(1, 1), units ? (const void *)&c : &b);
    return err ? err : tvd_download(t, tvd_whole(t, out));
}

#endif
#endif
