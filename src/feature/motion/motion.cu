// motion twin: the SAD of the blurred luma difference of two frames, per row.
//
// A block takes MOTION_TILE columns of a row (grid x) and strides over rows
// (grid y, capped by CUDA's 65535). Its threads first run the vertical pass
// (motion_v_col_8/16, the CPU's per-sample arithmetic) for the tile's columns
// and MOTION_RADIUS more on each side, mirrored at the plane's edges, into
// shared memory; then each thread takes one column's horizontal pass
// (motion_h_abs). The block adds those values in uint32 and adds the result
// into the row's uint32 with an atomic: every addition of a row is modulo
// 2^32, the CPU's row-sum type, so any grouping gives the CPU's row sum. The
// host adds the rows into a uint64 (motion_sum_rows).
#include <stdint.h>

#include "feature/motion/motion_math.h"

static_assert(MOTION_TILE % 32 == 0, "a tile is whole warps");

__device__ __forceinline__ int32_t v_col(const uint8_t *const p[5], const uint8_t *const c[5],
                                         unsigned j, unsigned)
{
    return motion_v_col_8(p, c, j);
}

__device__ __forceinline__ int32_t v_col(const uint16_t *const p[5], const uint16_t *const c[5],
                                         unsigned j, unsigned bpc)
{
    return motion_v_col_16(p, c, j, bpc);
}

template <typename T>
__device__ void rows_sad(const unsigned char *prev, const unsigned char *cur, size_t pitch,
                         unsigned w, unsigned h, unsigned bpc, unsigned *row_sad)
{
    // ys[s] is the vertical pass at column x0 - MOTION_RADIUS + s (mirrored)
    __shared__ int32_t ys[MOTION_TILE_SLOTS];
    __shared__ uint32_t partial[MOTION_TILE / 32];
    const unsigned x0 = blockIdx.x * MOTION_TILE;
    const unsigned t = threadIdx.x;
    for (unsigned i = blockIdx.y; i < h; i += gridDim.y) {
        int rows[5];
        motion_tap_rows((int)i, (int)h, rows);
        const T *p[5], *c[5];
        for (int k = 0; k < 5; k++) {
            p[k] = (const T *)(prev + (size_t)rows[k] * pitch);
            c[k] = (const T *)(cur + (size_t)rows[k] * pitch);
        }
        for (unsigned s = t; s < MOTION_TILE_SLOTS; s += MOTION_TILE) {
            const int col = (int)x0 - MOTION_RADIUS + (int)s;
            // columns past w + 1 feed no output of this tile
            if (col < (int)w + MOTION_RADIUS)
                ys[s] = v_col(p, c, (unsigned)motion_mirror(col, (int)w), bpc);
        }
        __syncthreads();
        uint32_t v = 0;
        if (x0 + t < w) v = motion_h_abs(ys[t], ys[t + 1], ys[t + 2], ys[t + 3], ys[t + 4]);
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (!(t & 31u)) partial[t >> 5] = v;
        __syncthreads();
        if (!t) {
            uint32_t sum = 0;
            for (unsigned k = 0; k < MOTION_TILE / 32; k++) sum += partial[k];
            atomicAdd(row_sad + i, sum);
        }
        __syncthreads(); // ys and partial are rewritten for the next row
    }
}

extern "C" __global__ void __launch_bounds__(MOTION_TILE)
motion_sad_8(const unsigned char *prev, const unsigned char *cur, size_t pitch, unsigned w,
             unsigned h, unsigned bpc, unsigned *row_sad)
{
    rows_sad<uint8_t>(prev, cur, pitch, w, h, bpc, row_sad);
}

extern "C" __global__ void __launch_bounds__(MOTION_TILE)
motion_sad_16(const unsigned char *prev, const unsigned char *cur, size_t pitch, unsigned w,
              unsigned h, unsigned bpc, unsigned *row_sad)
{
    rows_sad<uint16_t>(prev, cur, pitch, w, h, bpc, row_sad);
}
