// psnr twin: the sum of squared errors of one plane on the device.
//
// Each block takes one row; its threads add their samples' squared errors
// (psnr_sample_se, the CPU's per-sample arithmetic) and the block adds the
// threads' sums into the plane total with a 64-bit atomic. Integer sums are
// exact, so this grouping gives the CPU's total whatever the order.
#include <stdint.h>

#include "feature/psnr/psnr_math.h"

static_assert(PSNR_THREADS % 32 == 0 && PSNR_THREADS <= 1024, "a block is whole warps");

__device__ __forceinline__ uint64_t lane_sse(const uint8_t *r, const uint8_t *d, unsigned t,
                                             unsigned w)
{
    return psnr_lane_sse_8(r, d, t, w);
}

__device__ __forceinline__ uint64_t lane_sse(const uint16_t *r, const uint16_t *d, unsigned t,
                                             unsigned w)
{
    return psnr_lane_sse_16(r, d, t, w);
}

// One block of PSNR_THREADS threads per row (psnr_math.h).
template <typename T>
__device__ void plane_sse(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                          size_t dis_pitch, unsigned w, unsigned long long *total)
{
    __shared__ unsigned long long partial[PSNR_THREADS / 32];
    const unsigned y = blockIdx.x;
    const T *r = (const T *)(ref + y * ref_pitch);
    const T *d = (const T *)(dis + y * dis_pitch);
    unsigned long long s = lane_sse(r, d, threadIdx.x, w);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (!lane) partial[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned i = 0; i < PSNR_THREADS / 32u; i++) t += partial[i];
        atomicAdd(total, t);
    }
}

extern "C" __global__ void __launch_bounds__(PSNR_THREADS)
psnr_sse_8(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
           size_t dis_pitch, unsigned w, unsigned long long *total)
{
    plane_sse<uint8_t>(ref, dis, ref_pitch, dis_pitch, w, total);
}

extern "C" __global__ void __launch_bounds__(PSNR_THREADS)
psnr_sse_16(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
            size_t dis_pitch, unsigned w, unsigned long long *total)
{
    plane_sse<uint16_t>(ref, dis, ref_pitch, dis_pitch, w, total);
}
