/*
 * float_moment twin, kernels (gpu/kernel.h): the four double sums of the
 * luma planes, exactly as the CPU's (common/float_picture.h, "Exact double
 * sums"): the rows kernel gives each row's saturated units of the
 * reference's samples and squares and the distorted's (FMOMENT_SLOTS), the
 * finish kernel folds the rows and turns each picture's totals into its
 * sums, running the CPU's loop in one work-item for a picture whose total
 * reached the limit. The groups fold as float_psnr's, by
 * common/float_picture_kernels.h's folds: by warp shuffles with CUDA's caps,
 * by a tree elsewhere.
 */
#ifndef TVMAF_FLOAT_MOMENT_KERNELS_H
#define TVMAF_FLOAT_MOMENT_KERNELS_H

#include "feature/common/float_picture_kernels.h"
#include "feature/float_moment/float_moment_math.h"

/* The arguments are float_psnr's (FpicRowsArgs, FpicFinishArgs), with
 * FMOMENT_SLOTS slots a row and out = { ref s1, ref s2, dis s1, dis s2 };
 * the locals as float_psnr's, one set per slot. */
#define FmomentWarps_LIST(X) X(uint64_t, warps, FMOMENT_SLOTS * (FPIC_THREADS / 32))
TVD_LOCALS(FmomentWarps)
#define FmomentWarp_LIST(X) X(uint64_t, warps, FMOMENT_SLOTS * (FPIC_FINISH_THREADS / 32))
TVD_LOCALS(FmomentWarp)
#define FmomentTree_LIST(X) X(uint64_t, part, FMOMENT_SLOTS * FPIC_THREADS)
TVD_LOCALS(FmomentTree)
#define FmomentTree32_LIST(X) X(uint64_t, part, FMOMENT_SLOTS * FPIC_FINISH_THREADS)
TVD_LOCALS(FmomentTree32)

#define FLOAT_MOMENT_KERNELS(K, KC)                                                            \
    KC(float_moment_rows, FpicRowsArgs, FmomentWarps, FPIC_THREADS, 1,                         \
       TVD_SYNC | TVD_CUDA_CAPS)                                                               \
    KC(float_moment_finish, FpicFinishArgs, FmomentWarp, FPIC_FINISH_THREADS, 1,               \
       TVD_SYNC | TVD_CUDA_CAPS)                                                               \
    K(float_moment_rows_tree, FpicRowsArgs, FmomentTree, FPIC_THREADS, 1, TVD_SYNC)            \
    K(float_moment_finish_tree, FpicUnitsArgs, FmomentTree32, FPIC_FINISH_THREADS, 1,          \
      TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* This work-item's units of its group's row, both pictures. */
TVD_FN void fmoment_row_lanes(const FpicRowsArgs_R *r, uint64_t u[FMOMENT_SLOTS])
{
    const uint32_t y = TVD_GID(0);
    fmoment_lane_units(r->ref + y * r->pitch, TVD_LID(0), r->w, r->bpc, r->divisor, r->limit, u);
    fmoment_lane_units(r->dis + y * r->pitch, TVD_LID(0), r->w, r->bpc, r->divisor, r->limit,
                       u + 2);
}

#if TVD_HAS_CUDA_CAPS
TVD_FN void fmoment_store_sums(const FpicFinishArgs_R *r, const uint64_t total[FMOMENT_SLOTS])
{
    if (TVD_LID(0) != 0) return;
    const ptrdiff_t pitch = (ptrdiff_t)r->pitch;
    const FMomentSums a = fmoment_finish(total, r->limit, r->ref, pitch, r->w, r->h, r->bpc,
                                         r->divisor);
    const FMomentSums b = fmoment_finish(total + 2, r->limit, r->dis, pitch, r->w, r->h, r->bpc,
                                         r->divisor);
    r->out[0] = a.s1;
    r->out[1] = a.s2;
    r->out[2] = b.s1;
    r->out[3] = b.s2;
}
#endif

/* The rows and the finish kernels' bodies, with the group fold FOLD over
 * the N locals of each slot in loc->arr. */
#define FMOMENT_ROWS_BODY(FOLD, arr, N)                                                        \
    uint64_t u[FMOMENT_SLOTS];                                                                 \
    fmoment_row_lanes(r, u);                                                                   \
    for (uint32_t k = 0; k < FMOMENT_SLOTS; k++) {                                             \
        const uint64_t t = FOLD(u[k], r->limit, loc->arr + k * (N));                           \
        if (TVD_LID(0) == 0) r->rows[FMOMENT_SLOTS * TVD_GID(0) + k] = t;                      \
    }
#define FMOMENT_FINISH_BODY(FOLD, arr, N)                                                      \
    uint64_t total[FMOMENT_SLOTS];                                                             \
    for (uint32_t k = 0; k < FMOMENT_SLOTS; k++)                                               \
        total[k] = FOLD(fpic_rows_lane(r->rows, r->h, r->limit, FMOMENT_SLOTS, k), r->limit,     \
                        loc->arr + k * (N))

#if TVD_HAS_CUDA_CAPS
TVD_BODY(float_moment_rows, FpicRowsArgs, FmomentWarps)
{
    FMOMENT_ROWS_BODY(fpic_block_fold, warps, FPIC_THREADS / 32);
}

TVD_BODY(float_moment_finish, FpicFinishArgs, FmomentWarp)
{
    FMOMENT_FINISH_BODY(fpic_block_fold, warps, FPIC_FINISH_THREADS / 32);
    fmoment_store_sums(r, total);
}
#endif

TVD_BODY(float_moment_rows_tree, FpicRowsArgs, FmomentTree)
{
    FMOMENT_ROWS_BODY(fpic_tree_fold, part, FPIC_THREADS);
}

TVD_BODY(float_moment_finish_tree, FpicUnitsArgs, FmomentTree32)
{
    FMOMENT_FINISH_BODY(fpic_tree_fold, part, FPIC_FINISH_THREADS);
    if (TVD_LID(0) == 0)
        for (uint32_t k = 0; k < FMOMENT_SLOTS; k++) r->out[k] = total[k];
}

#endif
#endif
