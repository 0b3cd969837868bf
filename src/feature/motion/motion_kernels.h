/*
 * motion twin, kernels (gpu/kernel.h): the SAD of the blurred luma
 * difference of two frames, per row (motion_math.h's decomposition).
 *
 * A group of MOTION_TILE work-items takes MOTION_TILE columns of a row
 * (group x) and strides over rows (group y, at most MOTION_GRID_Y_MAX). It
 * runs the vertical pass (motion_v_col_8/16, the CPU's per-sample
 * arithmetic) for the tile's columns and MOTION_RADIUS more on each side,
 * mirrored at the plane's edges, into local memory; then each work-item
 * takes one column's horizontal pass (motion_h_abs). The group adds those in
 * uint32 and adds the result into the row's uint32 with an atomic: every
 * addition of a row is modulo 2^32, the CPU's row-sum type, so any grouping
 * gives the CPU's row sum; the host adds the rows (motion_sum_rows). The
 * group's fold: warp shuffles where the device has them (motion_sad_*),
 * else a tree in local memory (motion_tree_*).
 */
#ifndef TVMAF_MOTION_KERNELS_H
#define TVMAF_MOTION_KERNELS_H

#include "gpu/kernel.h"
#include "feature/motion/motion_math.h"

#define MotionArgs_LIST(V, S)                                                                  \
    V(const uint8_t, prev) V(const uint8_t, cur) S(uint64_t, pitch) S(uint32_t, w)             \
    S(uint32_t, h) S(uint32_t, bpc) V(uint32_t, row_sad)
TVD_ARGS(MotionArgs)

#define MotionWarps_LIST(X) X(int32_t, ys, MOTION_TILE_SLOTS) X(uint32_t, part, MOTION_TILE / 32)
TVD_LOCALS(MotionWarps)
#define MotionTree_LIST(X) X(int32_t, ys, MOTION_TILE_SLOTS) X(uint32_t, part, MOTION_TILE)
TVD_LOCALS(MotionTree)

#define MOTION_KERNELS(K, KC)                                                                  \
    KC(motion_sad_8, MotionArgs, MotionWarps, MOTION_TILE, 1, TVD_SYNC | TVD_CUDA_CAPS)        \
    KC(motion_sad_16, MotionArgs, MotionWarps, MOTION_TILE, 1, TVD_SYNC | TVD_CUDA_CAPS)       \
    K(motion_tree_8, MotionArgs, MotionTree, MOTION_TILE, 1, TVD_SYNC)                         \
    K(motion_tree_16, MotionArgs, MotionTree, MOTION_TILE, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* The vertical pass of column j of rows p[], c[] (8-bit or 9..16-bit). */
#define MOTION_V_COL_8(p, c, j, bpc) motion_v_col_8((p), (c), (j))
#define MOTION_V_COL_16(p, c, j, bpc) motion_v_col_16((p), (c), (j), (bpc))

/* Row by row: the tile's vertical pass into loc->ys, its horizontal pass,
 * FOLD(v) adds the group's values into the row's uint32. */
#define MOTION_ROWS(T, V_COL, FOLD)                                                            \
    const uint32_t x0 = TVD_GID(0) * MOTION_TILE, t = TVD_LID(0);                              \
    for (uint32_t i = TVD_GID(1); i < r->h; i += TVD_NGROUPS(1)) {                             \
        int rows[5];                                                                           \
        motion_tap_rows((int)i, (int)r->h, rows);                                              \
        TVMAF_GLOBAL const T *p[5], *c[5];                                                     \
        for (int k = 0; k < 5; k++) {                                                          \
            p[k] = (TVMAF_GLOBAL const T *)(r->prev + (uint64_t)rows[k] * r->pitch);           \
            c[k] = (TVMAF_GLOBAL const T *)(r->cur + (uint64_t)rows[k] * r->pitch);            \
        }                                                                                      \
        for (uint32_t s = t; s < MOTION_TILE_SLOTS; s += MOTION_TILE) {                        \
            const int col = (int)x0 - MOTION_RADIUS + (int)s;                                  \
            /* columns past w + 1 feed no output of this tile */                               \
            if (col < (int)r->w + MOTION_RADIUS)                                               \
                loc->ys[s] = V_COL(p, c, (unsigned)mirror_skip_edge(col, (int)r->w), r->bpc);  \
        }                                                                                      \
        TVD_BARRIER();                                                                         \
        uint32_t v = 0;                                                                        \
        if (x0 + t < r->w)                                                                     \
            v = motion_h_abs(loc->ys[t], loc->ys[t + 1], loc->ys[t + 2], loc->ys[t + 3],       \
                             loc->ys[t + 4]);                                                  \
        FOLD(v);                                                                               \
        TVD_BARRIER(); /* ys and part are rewritten for the next row */                        \
    }

#if TVD_HAS_CUDA_CAPS
#define MOTION_FOLD_WARPS(v)                                                                   \
    for (unsigned o = 16; o > 0; o >>= 1) v += TVD_SHFL_DOWN_U32(v, o);               \
    if (!(t & 31u)) loc->part[t >> 5] = v;                                                     \
    TVD_BARRIER();                                                                             \
    if (!t) {                                                                                  \
        uint32_t sum = 0;                                                                      \
        for (unsigned k = 0; k < MOTION_TILE / 32; k++) sum += loc->part[k];                   \
        TVD_ATOMIC_ADD_U32(r->row_sad + i, sum);                                               \
    }

TVD_BODY(motion_sad_8, MotionArgs, MotionWarps)
{
    MOTION_ROWS(uint8_t, MOTION_V_COL_8, MOTION_FOLD_WARPS)
}

TVD_BODY(motion_sad_16, MotionArgs, MotionWarps)
{
    MOTION_ROWS(uint16_t, MOTION_V_COL_16, MOTION_FOLD_WARPS)
}
#endif

#define MOTION_FOLD_TREE(v)                                                                    \
    loc->part[t] = v;                                                                          \
    TVD_BARRIER();                                                                             \
    for (uint32_t o = MOTION_TILE / 2; o > 0; o >>= 1) {                                       \
        if (t < o) loc->part[t] += loc->part[t + o];                                           \
        TVD_BARRIER();                                                                         \
    }                                                                                          \
    if (t == 0) TVD_ATOMIC_ADD_U32(r->row_sad + i, loc->part[0]);

TVD_BODY(motion_tree_8, MotionArgs, MotionTree)
{
    MOTION_ROWS(uint8_t, MOTION_V_COL_8, MOTION_FOLD_TREE)
}

TVD_BODY(motion_tree_16, MotionArgs, MotionTree)
{
    MOTION_ROWS(uint16_t, MOTION_V_COL_16, MOTION_FOLD_TREE)
}

#endif
#endif
