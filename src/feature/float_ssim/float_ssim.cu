// float_ssim twin: the per-sample and per-window work of ssim_evaluate (and of
// the down-sampling before it), one thread per output, each the CPU's chain
// of operations (float_ssim_math.h, "The CUDA twin's decomposition"). The
// windows' l, c and s are stored; the host adds them in raster order into
// the CPU's four doubles.
#include <stdint.h>

#include "feature/float_ssim/float_ssim_math.h"

static_assert(SSIM_BLOCK_W * SSIM_BLOCK_H <= 1024, "a block's threads");

// x and the rows y of this thread over a w x h grid (the grid's y strides).
#define SSIM_FOR_SAMPLES(w, h)                                                   \
    const int x = (int)(blockIdx.x * SSIM_BLOCK_W + threadIdx.x);               \
    if (x >= (w)) return;                                                        \
    for (int y = (int)(blockIdx.y * SSIM_BLOCK_H + threadIdx.y); y < (h);        \
         y += (int)(gridDim.y * SSIM_BLOCK_H))

// Both luma planes as floats (contiguous, w x h): img0 the reference, img1 the distorted.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_load_8(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                  size_t dis_pitch, int w, int h, float divisor, float *img0, float *img1)
{
    (void)divisor;
    SSIM_FOR_SAMPLES(w, h)
    {
        img0[(size_t)y * w + x] = ssim_sample_8(ref[(size_t)y * ref_pitch + x]);
        img1[(size_t)y * w + x] = ssim_sample_8(dis[(size_t)y * dis_pitch + x]);
    }
}

extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_load_16(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                   size_t dis_pitch, int w, int h, float divisor, float *img0, float *img1)
{
    SSIM_FOR_SAMPLES(w, h)
    {
        img0[(size_t)y * w + x] =
            ssim_sample_hbd(((const uint16_t *)(ref + (size_t)y * ref_pitch))[x], divisor);
        img1[(size_t)y * w + x] =
            ssim_sample_hbd(((const uint16_t *)(dis + (size_t)y * dis_pitch))[x], divisor);
    }
}

// Down-sampling by f with the f x f box: dst(x, y) = ssim_filter_at at (f x, f y).
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_down(const float *src0, const float *src1, int w, int h, int f, const float *box,
                float *dst0, float *dst1, int dw, int dh)
{
    SSIM_FOR_SAMPLES(dw, dh)
    {
        dst0[(size_t)y * dw + x] = ssim_filter_at(src0, w, h, x * f, y * f, box, f, f);
        dst1[(size_t)y * dw + x] = ssim_filter_at(src1, w, h, x * f, y * f, box, f, f);
    }
}

// five: 5 planes of w x h, plane_n floats apart: ref, dis, then r*r, d*d, r*d written here.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_products(float *five, size_t plane_n, int w, int h)
{
    SSIM_FOR_SAMPLES(w, h)
    {
        const size_t i = (size_t)y * w + x;
        ssim_products(five + i, five + plane_n + i, 1, five + 2 * plane_n + i,
                      five + 3 * plane_n + i, five + 4 * plane_n + i);
    }
}

// The row pass of the five images into rows (5 planes of ow x h, ow = w - 10).
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_rows(const float *five, size_t plane_n, int w, int h, const float *taps, float *rows,
                size_t rows_n)
{
    const int ow = w - SSIM_WIN + 1;
    SSIM_FOR_SAMPLES(ow, h)
    {
        for (int q = 0; q < 5; q++) {
            const float *src[SSIM_WIN];
            const float *row = five + q * plane_n + (size_t)y * w;
            for (int k = 0; k < SSIM_WIN; k++) src[k] = row + k;
            rows[q * rows_n + (size_t)y * ow + x] = ssim_gauss_one(src, x, taps);
        }
    }
}

// Per window: the column pass of the five row-pass planes, then ssim_window.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ssim_windows(const float *rows, size_t rows_n, int ow, int oh, const float *taps,
                   double *l, double *c, float *s)
{
    const SsimConsts k = ssim_consts();
    SSIM_FOR_SAMPLES(ow, oh)
    {
        float v[5];
        for (int q = 0; q < 5; q++) {
            const float *src[SSIM_WIN];
            for (int j = 0; j < SSIM_WIN; j++) src[j] = rows + q * rows_n + (size_t)(y + j) * ow;
            v[q] = ssim_gauss_one(src, x, taps);
        }
        const SsimLcs o = ssim_window(v[0], v[1], v[2], v[3], v[4], k);
        const size_t i = (size_t)y * ow + x;
        l[i] = o.l;
        c[i] = o.c;
        s[i] = (float)o.s;
    }
}
