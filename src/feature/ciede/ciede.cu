// ciede twin: dE00 of every pixel, stored at its raster position.
//
// The device does not add: the CPU adds the per-pixel floats into one double
// row after row, and an addition that rounds cannot be regrouped. The host
// reads the plane back and adds it in that order (ciede_cuda.c). lm carries
// the table that makes powf(x, 7) glibc's (numerics/powf_table.h).
#include <stdint.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_kernel.h"

static_assert(CIEDE_BLOCK_W * CIEDE_BLOCK_H <= 1024, "a block's threads");

// One thread per pixel (ciede_kernel.h: the grid, the block and the plane).
template <typename T>
__device__ void de00_plane(const CiedePlanes &p, unsigned w, unsigned h, unsigned cw,
                           unsigned ch, int layout, unsigned bpc, CiedeLibm lm, float *de)
{
    CIEDE_THREAD(T, p, blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, w, h, cw, ch, layout,
                 bpc, lm, de);
}

extern "C" __global__ void __launch_bounds__(CIEDE_BLOCK_W * CIEDE_BLOCK_H)
ciede_de00_8(CiedePlanes p, unsigned w, unsigned h, unsigned cw, unsigned ch, int layout,
             unsigned bpc, CiedeLibm lm, float *de)
{
    de00_plane<uint8_t>(p, w, h, cw, ch, layout, bpc, lm, de);
}

extern "C" __global__ void __launch_bounds__(CIEDE_BLOCK_W * CIEDE_BLOCK_H)
ciede_de00_16(CiedePlanes p, unsigned w, unsigned h, unsigned cw, unsigned ch, int layout,
              unsigned bpc, CiedeLibm lm, float *de)
{
    de00_plane<uint16_t>(p, w, h, cw, ch, layout, bpc, lm, de);
}
