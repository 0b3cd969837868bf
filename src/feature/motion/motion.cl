// motion twin (OpenCL C): the SAD of the blurred luma difference of two
// frames, per row, in the CUDA twin's decomposition (motion_math.h).
//
// A work-group of MOTION_TILE work-items takes MOTION_TILE columns of a row
// (group x) and strides over rows (group y, MOTION_GRID_Y(h) groups). It
// first runs the vertical pass (motion_v_col_8/16, the CPU's per-sample
// arithmetic) for the tile's columns and MOTION_RADIUS more on each side,
// mirrored at the plane's edges, into local memory; then each work-item
// takes one column's horizontal pass (motion_h_abs). The group folds those
// values in uint32 and adds the result into the row's uint32 with
// atomic_add: every addition of a row is modulo 2^32, the CPU's row-sum type,
// so any grouping gives the CPU's row sum. The host adds the rows into a
// uint64 (motion_sum_rows).
#include "feature/motion/motion_math.h"

#define ROWS_SAD(T, V_COL)                                                                   \
    __local int32_t ys[MOTION_TILE_SLOTS];                                                   \
    __local uint32_t part[MOTION_TILE];                                                      \
    const uint x0 = get_group_id(0) * MOTION_TILE;                                           \
    const uint t = get_local_id(0);                                                          \
    for (uint i = get_group_id(1); i < h; i += get_num_groups(1)) {                          \
        int rows[5];                                                                         \
        motion_tap_rows((int)i, (int)h, rows);                                               \
        __global const T *p[5], *c[5];                                                       \
        for (int k = 0; k < 5; k++) {                                                        \
            p[k] = (__global const T *)(luma + prev_off + (ulong)rows[k] * pitch);           \
            c[k] = (__global const T *)(luma + cur_off + (ulong)rows[k] * pitch);            \
        }                                                                                    \
        for (uint s = t; s < MOTION_TILE_SLOTS; s += MOTION_TILE) {                          \
            const int col = (int)x0 - MOTION_RADIUS + (int)s;                                \
            /* columns past w + 1 feed no output of this tile */                             \
            if (col < (int)w + MOTION_RADIUS) ys[s] = V_COL;                                 \
        }                                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        uint32_t v = 0;                                                                      \
        if (x0 + t < w) v = motion_h_abs(ys[t], ys[t + 1], ys[t + 2], ys[t + 3], ys[t + 4]); \
        part[t] = v;                                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        for (uint o = MOTION_TILE / 2; o > 0; o >>= 1) {                                     \
            if (t < o) part[t] += part[t + o];                                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                                    \
        }                                                                                    \
        if (t == 0) atomic_add(row_sad + i, part[0]);                                        \
        barrier(CLK_LOCAL_MEM_FENCE); /* ys and part are rewritten for the next row */       \
    }

__kernel __attribute__((reqd_work_group_size(MOTION_TILE, 1, 1)))
void motion_sad_8(__global const uchar *luma, ulong prev_off, ulong cur_off, ulong pitch, uint w,
                  uint h, uint bpc, __global uint *row_sad)
{
    ROWS_SAD(uint8_t, motion_v_col_8(p, c, (unsigned)motion_mirror(col, (int)w)))
}

__kernel __attribute__((reqd_work_group_size(MOTION_TILE, 1, 1)))
void motion_sad_16(__global const uchar *luma, ulong prev_off, ulong cur_off, ulong pitch,
                   uint w, uint h, uint bpc, __global uint *row_sad)
{
    ROWS_SAD(uint16_t, motion_v_col_16(p, c, (unsigned)motion_mirror(col, (int)w), bpc))
}
