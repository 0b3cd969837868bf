// float_ansnr twin: the filtered planes and each row's float sums.
//
// The CPU adds each row's products into two floats left to right and the
// rows into two more floats top to bottom; both orders are the result. So the
// device computes the per-sample work in parallel (conversion, the 3x3 and
// 5x5 filters: float_ansnr_math.h's functions) and adds each row with one
// thread, left to right (fansnr_row_sums); the host adds the rows in order.
#include <stdint.h>

#include "feature/float_ansnr/float_ansnr_math.h"

static_assert(FANSNR_BLOCK_W * FANSNR_BLOCK_H <= 1024, "a block's threads");

// Both luma planes as float samples offset by FANSNR_OFFSET (stride w); the
// grid's y strides over the rows (FANSNR_GRID_Y).
template <typename T>
__device__ void convert(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                        size_t dis_pitch, unsigned w, unsigned h, float divisor, float *fref,
                        float *fdis)
{
    const unsigned x = blockIdx.x * FANSNR_BLOCK_W + threadIdx.x;
    if (x >= w) return;
    for (unsigned y = blockIdx.y * FANSNR_BLOCK_H + threadIdx.y; y < h;
         y += gridDim.y * FANSNR_BLOCK_H) {
        const T r = ((const T *)(ref + y * ref_pitch))[x];
        const T d = ((const T *)(dis + y * dis_pitch))[x];
        if (sizeof(T) == 1) {
            fref[(size_t)y * w + x] = float_pic_sample8((uint8_t)r, FANSNR_OFFSET);
            fdis[(size_t)y * w + x] = float_pic_sample8((uint8_t)d, FANSNR_OFFSET);
        } else {
            fref[(size_t)y * w + x] = float_pic_sample16((uint16_t)r, divisor, FANSNR_OFFSET);
            fdis[(size_t)y * w + x] = float_pic_sample16((uint16_t)d, divisor, FANSNR_OFFSET);
        }
    }
}

extern "C" __global__ void __launch_bounds__(FANSNR_BLOCK_W * FANSNR_BLOCK_H)
float_ansnr_convert_8(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                      size_t dis_pitch, unsigned w, unsigned h, float divisor, float *fref,
                      float *fdis)
{
    convert<uint8_t>(ref, dis, ref_pitch, dis_pitch, w, h, divisor, fref, fdis);
}

extern "C" __global__ void __launch_bounds__(FANSNR_BLOCK_W * FANSNR_BLOCK_H)
float_ansnr_convert_16(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                       size_t dis_pitch, unsigned w, unsigned h, float divisor, float *fref,
                       float *fdis)
{
    convert<uint16_t>(ref, dis, ref_pitch, dis_pitch, w, h, divisor, fref, fdis);
}

// rf: the reference filtered with the 3x3 taps, df: the distorted with the
// 5x5 taps (both tables uploaded from the host's arrays), one thread per sample.
extern "C" __global__ void __launch_bounds__(FANSNR_BLOCK_W * FANSNR_BLOCK_H)
float_ansnr_filter(const float *fref, const float *fdis, int w, int h, const float *ref_taps,
                   const float *dis_taps, float *rf, float *df)
{
    const int x = (int)(blockIdx.x * FANSNR_BLOCK_W + threadIdx.x);
    if (x >= w) return;
    for (int y = (int)(blockIdx.y * FANSNR_BLOCK_H + threadIdx.y); y < h;
         y += (int)(gridDim.y * FANSNR_BLOCK_H)) {
        rf[(size_t)y * w + x] = fansnr_filter_sample(ref_taps, FANSNR_REF_WIDTH, fref, w, h, y, x);
        df[(size_t)y * w + x] = fansnr_filter_sample(dis_taps, FANSNR_DIS_WIDTH, fdis, w, h, y, x);
    }
}

// One thread per row: sums[2 y], sums[2 y + 1] = the row's signal and noise.
extern "C" __global__ void __launch_bounds__(FANSNR_ROW_THREADS)
float_ansnr_rows(const float *rf, const float *df, int w, int h, float *sums)
{
    const int y = (int)(blockIdx.x * FANSNR_ROW_THREADS + threadIdx.x);
    if (y >= h) return;
    fansnr_row_sums(rf + (size_t)y * w, df + (size_t)y * w, w, &sums[2 * y], &sums[2 * y + 1]);
}
