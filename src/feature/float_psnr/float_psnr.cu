// float_psnr twin: the luma plane's double noise sum, exactly as the CPU's.
//
// The CPU adds float squared differences into one double in raster order.
// Every term is a whole number of 2^-q units (q by depth), and while the
// total stays below 2^53 units no addition rounds (float_psnr_math.h, "Exact double
// sums"), so the device adds units as integers, in any grouping, saturating
// at the limit: float_psnr_rows gives each row's total, float_psnr_finish
// folds the rows and turns a total below the limit into the CPU's double; a
// saturated total is recomputed by one thread running the CPU's own loop.
#include <stdint.h>

#include "feature/float_psnr/float_psnr_math.h"

static_assert(FPIC_THREADS % 32 == 0 && FPIC_THREADS <= 1024, "a block is whole warps");

// One block of FPIC_THREADS threads per row; row_units[y]: the row's saturated units.
extern "C" __global__ void __launch_bounds__(FPIC_THREADS)
float_psnr_rows(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                size_t dis_pitch, unsigned w, unsigned bpc, float divisor,
                unsigned long long limit, unsigned long long *row_units)
{
    __shared__ unsigned long long warps[FPIC_THREADS / 32];
    const unsigned y = blockIdx.x;
    const unsigned char *r = ref + y * ref_pitch, *d = dis + y * dis_pitch;
    const uint64_t v = bpc == 8
        ? fpsnr_lane_units8(r, d, threadIdx.x, w, limit)
        : fpsnr_lane_units16((const uint16_t *)r, (const uint16_t *)d, threadIdx.x, w, divisor,
                             limit);
    const uint64_t t = fpic_block_fold(v, limit, warps);
    if (threadIdx.x == 0) row_units[y] = t;
}

// One warp: folds the h rows' units; lane 0 writes the plane's noise sum.
extern "C" __global__ void __launch_bounds__(32)
float_psnr_finish(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                  size_t dis_pitch, unsigned w, unsigned h, unsigned bpc, float divisor,
                  unsigned long long limit, const unsigned long long *row_units, double *noise)
{
    __shared__ unsigned long long warps[1];
    uint64_t v = 0;
    for (unsigned y = threadIdx.x; y < h; y += 32) v = fpic_units_add(v, row_units[y], limit);
    const uint64_t total = fpic_block_fold(v, limit, warps);
    if (threadIdx.x == 0)
        *noise = fpsnr_finish(total, limit, ref, dis, (ptrdiff_t)ref_pitch, (ptrdiff_t)dis_pitch,
                              w, h, bpc, divisor);
}
