// float_vif twin: the load, the prescale, the four scales' filters and the
// per-sample statistic in the CPU's arithmetic, one thread per sample, and
// the rows' float sums one thread per row (float_vif_math.h, "The CUDA
// twin's decomposition"). The host adds the rows of each scale top to bottom.
#include <stdint.h>

#include "feature/float_vif/float_vif_math.h"

static_assert(FVIF_BLOCK_W * FVIF_BLOCK_H <= 1024, "a block's threads");

// x and the rows y of this thread over a w x h grid (the grid's y strides).
#define FVIF_FOR_SAMPLES(w, h)                                                   \
    const int x = (int)(blockIdx.x * FVIF_BLOCK_W + threadIdx.x);               \
    if (x >= (w)) return;                                                        \
    for (int y = (int)(blockIdx.y * FVIF_BLOCK_H + threadIdx.y); y < (h);        \
         y += (int)(gridDim.y * FVIF_BLOCK_H))

__device__ void load(const unsigned char *ref, const unsigned char *dis, size_t pitch,
                     unsigned bpc, int w, int h, float divisor, float *img0, float *img1)
{
    FVIF_FOR_SAMPLES(w, h)
    {
        img0[(size_t)y * w + x] = fvif_load_sample(ref, (ptrdiff_t)pitch, bpc, divisor, x, y);
        img1[(size_t)y * w + x] = fvif_load_sample(dis, (ptrdiff_t)pitch, bpc, divisor, x, y);
    }
}

// Both luma planes as floats (w x h, rows packed): img0 ref, img1 dis.
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_load_8(const unsigned char *ref, const unsigned char *dis, size_t pitch, int w, int h,
                 float divisor, float *img0, float *img1)
{
    load(ref, dis, pitch, 8, w, h, divisor, img0, img1);
}

extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_load_16(const unsigned char *ref, const unsigned char *dis, size_t pitch, int w, int h,
                  float divisor, float *img0, float *img1)
{
    load(ref, dis, pitch, 16, w, h, divisor, img0, img1);
}

// The nearest, bilinear or bicubic prescale of both planes (sw x sh) to dw x dh.
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_prescale(const float *src0, const float *src1, int sw, int sh, int dw, int dh,
                   int method, float rx, float ry, const int *col1, const int *col2,
                   const float *coldx, float *dst0, float *dst1)
{
    FVIF_FOR_SAMPLES(dw, dh)
    {
        dst0[(size_t)y * dw + x] =
            fvif_prescale_sample(method, src0, sw, sh, rx, ry, col1, col2, coldx, x, y);
        dst1[(size_t)y * dw + x] =
            fvif_prescale_sample(method, src1, sw, sh, rx, ry, col1, col2, coldx, x, y);
    }
}

// The lanczos4 prescale from the host's taps: column x at x0[x] with the 9
// weights wx[9 x ..], row y at y0[y] with wy[9 y ..].
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_prescale_lanczos(const float *src0, const float *src1, int sw, int sh, int dw, int dh,
                           const int *x0, const float *wx, const int *y0, const float *wy,
                           float *dst0, float *dst1)
{
    FVIF_FOR_SAMPLES(dw, dh)
    {
        const float *cx = wx + (size_t)FVIF_LANCZOS_TAPS * x;
        const float *cy = wy + (size_t)FVIF_LANCZOS_TAPS * y;
        dst0[(size_t)y * dw + x] = fvif_lanczos_apply(src0, sw, sh, sw, x0[x], y0[y], cx, cy);
        dst1[(size_t)y * dw + x] = fvif_lanczos_apply(src1, sw, sh, sw, x0[x], y0[y], cx, cy);
    }
}

// Vertical pass of the decimation to the next scale: rows 2 y of both pw x ph
// images, every column and the mirrored margins (ew = pw + 2 half columns).
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_decimate_v(const float *src0, const float *src1, int pw, int ph, int oh,
                     const float *taps, int fw, float *ext0, float *ext1)
{
    const int half = fw / 2, ew = pw + 2 * half;
    FVIF_FOR_SAMPLES(ew, oh)
    {
        const int c = fvif_ext_column(x, pw, half);
        ext0[(size_t)y * ew + x] = fvif_vpass_sample(taps, fw, src0, pw, ph, 2 * y, c);
        ext1[(size_t)y * ew + x] = fvif_vpass_sample(taps, fw, src1, pw, ph, 2 * y, c);
    }
}

// Horizontal pass of the decimation: the even columns of the rows above into
// the next scale's w x h images.
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_decimate_h(const float *ext0, const float *ext1, int ew, int w, int h,
                     const float *taps, int fw, float *dst0, float *dst1)
{
    FVIF_FOR_SAMPLES(w, h)
    {
        dst0[(size_t)y * w + x] = fvif_hpass_sample(taps, fw, ext0 + (size_t)y * ew, x, 2);
        dst1[(size_t)y * w + x] = fvif_hpass_sample(taps, fw, ext1 + (size_t)y * ew, x, 2);
    }
}

// Vertical pass of the five quantities of a scale (w x h images a, b) into
// ext: 5 planes plane_n floats apart, rows of ew = w + 2 half columns.
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_moments_v(const float *a, const float *b, int w, int h, const float *taps, int fw,
                    float *ext, size_t plane_n)
{
    const int half = fw / 2, ew = w + 2 * half;
    FVIF_FOR_SAMPLES(ew, h)
    {
        float v[5];
        fvif_vpass5_sample(taps, fw, a, b, w, h, y, fvif_ext_column(x, w, half), v);
        for (int q = 0; q < 5; q++) ext[q * plane_n + (size_t)y * ew + x] = v[q];
    }
}

// Horizontal pass of the five quantities and the statistic of every sample.
extern "C" __global__ void __launch_bounds__(FVIF_BLOCK_W * FVIF_BLOCK_H)
float_vif_stat(const float *ext, size_t plane_n, int w, int h, const float *taps, int fw,
               FvifStatParams p, float *num, float *den)
{
    const int ew = w + 2 * (fw / 2);
    FVIF_FOR_SAMPLES(w, h)
    {
        float v[5];
        for (int q = 0; q < 5; q++)
            v[q] = fvif_hpass_sample(taps, fw, ext + q * plane_n + (size_t)y * ew, x, 1);
        const size_t i = (size_t)y * w + x;
        fvif_pixel(v[0], v[1], v[2], v[3], v[4], &p, &num[i], &den[i]);
    }
}

// One thread per row: the row's float sums of num and den, left to right.
extern "C" __global__ void __launch_bounds__(FVIF_ROW_THREADS)
float_vif_rows(const float *num, const float *den, int w, int h, float *row_num, float *row_den)
{
    const int y = (int)(blockIdx.x * FVIF_ROW_THREADS + threadIdx.x);
    if (y >= h) return;
    row_num[y] = fvif_sum(num + (size_t)y * w, w);
    row_den[y] = fvif_sum(den + (size_t)y * w, w);
}
