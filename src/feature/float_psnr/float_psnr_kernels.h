/*
 * float_psnr twin, kernels (gpu/kernel.h): the luma plane's double noise
 * sum, exactly as the CPU's.
 *
 * The CPU adds float squared differences into one double in raster order.
 * Every term is a whole number of 2^-q units (q by depth), and while the
 * total stays below 2^53 units no addition rounds (common/float_picture.h,
 * "Exact double sums"), so the device adds units as integers, in any
 * grouping, saturating at `limit`: each row's total from the rows kernel,
 * the plane's from the finish kernel, which with CUDA's caps also turns it
 * into the CPU's double (common/float_picture_kernels.h has the arguments,
 * the folds and the plan's steps, which float_moment shares).
 */
#ifndef TVMAF_FLOAT_PSNR_KERNELS_H
#define TVMAF_FLOAT_PSNR_KERNELS_H

#include "feature/common/float_picture_kernels.h"
#include "feature/float_psnr/float_psnr_math.h"

/* a group's fold: its warps' totals, or a slot per work-item */
#define FpicWarps_LIST(X) X(uint64_t, warps, FPIC_THREADS / 32)
TVD_LOCALS(FpicWarps)
#define FpicWarp_LIST(X) X(uint64_t, warps, FPIC_FINISH_THREADS / 32)
TVD_LOCALS(FpicWarp)
#define FpicTree_LIST(X) X(uint64_t, part, FPIC_THREADS)
TVD_LOCALS(FpicTree)
#define FpicTree32_LIST(X) X(uint64_t, part, FPIC_FINISH_THREADS)
TVD_LOCALS(FpicTree32)

#define FLOAT_PSNR_KERNELS(K, KC)                                                              \
    KC(float_psnr_rows, FpicRowsArgs, FpicWarps, FPIC_THREADS, 1, TVD_SYNC | TVD_CUDA_CAPS)    \
    KC(float_psnr_finish, FpicFinishArgs, FpicWarp, FPIC_FINISH_THREADS, 1,                    \
       TVD_SYNC | TVD_CUDA_CAPS)                                                               \
    K(float_psnr_rows_tree, FpicRowsArgs, FpicTree, FPIC_THREADS, 1, TVD_SYNC)                 \
    K(float_psnr_finish_tree, FpicUnitsArgs, FpicTree32, FPIC_FINISH_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* This work-item's units of its group's row. */
TVD_FN uint64_t fpsnr_row_lane(const FpicRowsArgs_R *r)
{
    const uint32_t y = TVD_GID(0);
    TVMAF_GLOBAL const uint8_t *rr = r->ref + y * r->pitch, *dr = r->dis + y * r->pitch;
    return r->bpc == 8 ? fpsnr_lane_units8(rr, dr, TVD_LID(0), r->w, r->limit)
                       : fpsnr_lane_units16((TVMAF_GLOBAL const uint16_t *)rr,
                                            (TVMAF_GLOBAL const uint16_t *)dr, TVD_LID(0), r->w,
                                            r->divisor, r->limit);
}

#if TVD_HAS_CUDA_CAPS
TVD_FN void fpsnr_store_noise(const FpicFinishArgs_R *r, uint64_t total)
{
    if (TVD_LID(0) == 0)
        *r->out = fpsnr_finish(total, r->limit, r->ref, r->dis, (ptrdiff_t)r->pitch,
                               (ptrdiff_t)r->pitch, r->w, r->h, r->bpc, r->divisor);
}

TVD_BODY(float_psnr_rows, FpicRowsArgs, FpicWarps)
{
    const uint64_t t = fpic_block_fold(fpsnr_row_lane(r), r->limit, loc->warps);
    if (TVD_LID(0) == 0) r->rows[TVD_GID(0)] = t;
}

TVD_BODY(float_psnr_finish, FpicFinishArgs, FpicWarp)
{
    fpsnr_store_noise(r, fpic_block_fold(fpic_rows_lane(r->rows, r->h, r->limit, 1, 0), r->limit,
                                         loc->warps));
}
#endif

TVD_BODY(float_psnr_rows_tree, FpicRowsArgs, FpicTree)
{
    const uint64_t t = fpic_tree_fold(fpsnr_row_lane(r), r->limit, loc->part);
    if (TVD_LID(0) == 0) r->rows[TVD_GID(0)] = t;
}

TVD_BODY(float_psnr_finish_tree, FpicUnitsArgs, FpicTree32)
{
    const uint64_t t =
        fpic_tree_fold(fpic_rows_lane(r->rows, r->h, r->limit, 1, 0), r->limit, loc->part);
    if (TVD_LID(0) == 0) r->out[0] = t;
}

#endif
#endif
