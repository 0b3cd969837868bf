// float_motion twin: the blur into the ring of reference planes and the rows'
// sums of absolute differences, in the CPU's arithmetic and order
// (float_motion_math.h, "The CUDA twin's decomposition").
//
// Every per-sample value is the CPU's own row function run on a one-sample
// row, so each output is the same chain of float operations; every float
// sum that the CPU adds along a row is added by one thread left to right,
// and the rows are added on the host top to bottom.
#include <stdint.h>

#include "feature/float_motion/float_motion_math.h"

static_assert(FMOT_BLOCK_W * FMOT_BLOCK_H <= 1024, "a block's threads");

// Vertical pass, one thread per sample (x, rows y of the grid's stride).
__device__ void vpass(const unsigned char *src, size_t pitch, unsigned bpc, int w, int h,
                      float divisor, const float *taps, int fw, float *tmp)
{
    const int x = (int)(blockIdx.x * FMOT_BLOCK_W + threadIdx.x);
    if (x >= w) return;
    for (int y = (int)(blockIdx.y * FMOT_BLOCK_H + threadIdx.y); y < h;
         y += (int)(gridDim.y * FMOT_BLOCK_H))
        tmp[(size_t)y * w + x] =
            fmot_vpass_sample(src, (ptrdiff_t)pitch, bpc, divisor, h, taps, fw, x, y);
}

extern "C" __global__ void __launch_bounds__(FMOT_BLOCK_W * FMOT_BLOCK_H)
float_motion_vpass_8(const unsigned char *src, size_t pitch, int w, int h, float divisor,
                     const float *taps, int fw, float *tmp)
{
    vpass(src, pitch, 8, w, h, divisor, taps, fw, tmp);
}

extern "C" __global__ void __launch_bounds__(FMOT_BLOCK_W * FMOT_BLOCK_H)
float_motion_vpass_16(const unsigned char *src, size_t pitch, int w, int h, float divisor,
                      const float *taps, int fw, float *tmp)
{
    vpass(src, pitch, 16, w, h, divisor, taps, fw, tmp);
}

// Horizontal pass of the vertical pass's plane into a ring slot (stride st).
extern "C" __global__ void __launch_bounds__(FMOT_BLOCK_W * FMOT_BLOCK_H)
float_motion_hpass(const float *tmp, int w, int h, const float *taps, int fw, float *dst, int st)
{
    const int x = (int)(blockIdx.x * FMOT_BLOCK_W + threadIdx.x);
    if (x >= w) return;
    for (int y = (int)(blockIdx.y * FMOT_BLOCK_H + threadIdx.y); y < h;
         y += (int)(gridDim.y * FMOT_BLOCK_H)) {
        dst[(size_t)y * st + x] = fmot_hpass_sample(tmp, w, taps, fw, x, y);
    }
}

// One thread per row: sums[y] = the row's sum of |a - b|, left to right.
extern "C" __global__ void __launch_bounds__(FMOT_ROW_THREADS)
float_motion_sad_rows(const float *a, const float *b, int stride, int w, int h, float *sums)
{
    const int y = (int)(blockIdx.x * FMOT_ROW_THREADS + threadIdx.x);
    if (y >= h) return;
    sums[y] = fmot_sad_row(a + (size_t)y * stride, b + (size_t)y * stride, w);
}

// The half-size image of a blurred plane (rows read rs floats apart, as the
// CPU reads them), one thread per output sample.
extern "C" __global__ void __launch_bounds__(FMOT_BLOCK_W * FMOT_BLOCK_H)
float_motion_half(const float *a, int rs, int h, int hw, int hh, float ry, const int *col1,
                  const int *col2, const float *coldx, float *out)
{
    const int x = (int)(blockIdx.x * FMOT_BLOCK_W + threadIdx.x);
    if (x >= hw) return;
    for (int y = (int)(blockIdx.y * FMOT_BLOCK_H + threadIdx.y); y < hh;
         y += (int)(gridDim.y * FMOT_BLOCK_H)) {
        out[(size_t)y * hw + x] = fmot_half_sample(a, rs, h, ry, col1, col2, coldx, x, y);
    }
}
