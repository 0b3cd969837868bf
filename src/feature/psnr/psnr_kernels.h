/*
 * psnr twin, kernels (gpu/kernel.h): the sum of squared errors of one plane.
 *
 * One group of PSNR_THREADS work-items per row (grid h x 1); work-item t
 * adds its lane (psnr_lane_sse_*, the CPU's per-sample arithmetic) and the
 * group folds the lanes. Integer sums are exact, so every grouping gives the
 * CPU's total. Two decompositions, one per set of caps:
 *   psnr_sse_*   (CUDA's caps) the warps fold by shuffles and the row goes
 *                into the plane's total (`out`, one uint64) by a 64-bit
 *                atomic: the host reads three totals;
 *   psnr_rows_*  (any device) a tree in local memory, the row's sum stored
 *                in out[y]: the host reads a uint64 per row and adds them.
 */
#ifndef TVMAF_PSNR_KERNELS_H
#define TVMAF_PSNR_KERNELS_H

#include "gpu/kernel.h"
#include "feature/psnr/psnr_math.h"

#define PsnrArgs_LIST(V, S)                                                                    \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    V(uint64_t, out)
TVD_ARGS(PsnrArgs)

#define PsnrWarps_LIST(X) X(uint64_t, part, PSNR_THREADS / 32)
TVD_LOCALS(PsnrWarps)
#define PsnrTree_LIST(X) X(uint64_t, part, PSNR_THREADS)
TVD_LOCALS(PsnrTree)

#define PSNR_KERNELS(K, KC)                                                                    \
    KC(psnr_sse_8, PsnrArgs, PsnrWarps, PSNR_THREADS, 1, TVD_SYNC | TVD_CUDA_CAPS)             \
    KC(psnr_sse_16, PsnrArgs, PsnrWarps, PSNR_THREADS, 1, TVD_SYNC | TVD_CUDA_CAPS)            \
    K(psnr_rows_8, PsnrArgs, PsnrTree, PSNR_THREADS, 1, TVD_SYNC)                              \
    K(psnr_rows_16, PsnrArgs, PsnrTree, PSNR_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* The row's lane of work-item t, 8-bit or 9..16-bit samples. */
#define PSNR_LANE_8(r, y, t)                                                                   \
    psnr_lane_sse_8((r)->ref + (y) * (r)->pitch, (r)->dis + (y) * (r)->pitch, (t), (r)->w)
#define PSNR_LANE_16(r, y, t)                                                                  \
    psnr_lane_sse_16((TVMAF_GLOBAL const uint16_t *)((r)->ref + (y) * (r)->pitch),             \
                     (TVMAF_GLOBAL const uint16_t *)((r)->dis + (y) * (r)->pitch), (t), (r)->w)

#if TVD_HAS_CUDA_CAPS
TVD_FN void psnr_fold_warps(uint64_t s, TVMAF_LOCAL PsnrWarps *loc, TVMAF_GLOBAL uint64_t *out)
{
    const uint32_t t = TVD_LID(0);
    for (unsigned o = 16; o > 0; o >>= 1) s += TVD_SHFL_DOWN_U64(s, o);
    if (!(t & 31u)) loc->part[t >> 5] = s;
    TVD_BARRIER();
    if (t == 0) {
        uint64_t sum = 0;
        for (unsigned i = 0; i < PSNR_THREADS / 32u; i++) sum += loc->part[i];
        TVD_ATOMIC_ADD_U64(out, sum);
    }
}

TVD_BODY(psnr_sse_8, PsnrArgs, PsnrWarps)
{
    psnr_fold_warps(PSNR_LANE_8(r, TVD_GID(0), TVD_LID(0)), loc, r->out);
}

TVD_BODY(psnr_sse_16, PsnrArgs, PsnrWarps)
{
    psnr_fold_warps(PSNR_LANE_16(r, TVD_GID(0), TVD_LID(0)), loc, r->out);
}
#endif

TVD_FN void psnr_fold_tree(uint64_t s, TVMAF_LOCAL PsnrTree *loc, TVMAF_GLOBAL uint64_t *row)
{
    const uint32_t t = TVD_LID(0);
    loc->part[t] = s;
    TVD_BARRIER();
    for (unsigned o = PSNR_THREADS / 2; o > 0; o >>= 1) {
        if (t < o) loc->part[t] += loc->part[t + o];
        TVD_BARRIER();
    }
    if (t == 0) *row = loc->part[0];
}

TVD_BODY(psnr_rows_8, PsnrArgs, PsnrTree)
{
    psnr_fold_tree(PSNR_LANE_8(r, TVD_GID(0), TVD_LID(0)), loc, r->out + TVD_GID(0));
}

TVD_BODY(psnr_rows_16, PsnrArgs, PsnrTree)
{
    psnr_fold_tree(PSNR_LANE_16(r, TVD_GID(0), TVD_LID(0)), loc, r->out + TVD_GID(0));
}

#endif
#endif
