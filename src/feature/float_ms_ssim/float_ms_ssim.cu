// float_ms_ssim twin: the CPU's pyramid and per-scale SSIM windows computed
// on the device, one thread per output, and each scale's running sums of l,
// c and s added there in the CPU's order, one thread per sum
// (float_ms_ssim_math.h, "The CUDA twin's decomposition"). Only the 15 sums
// come back.
#include <stdint.h>

#include "feature/float_ms_ssim/float_ms_ssim_math.h"

static_assert(SSIM_BLOCK_W * SSIM_BLOCK_H <= 1024, "a block's threads");
static_assert(MS_SSIM_SUM_THREADS > 32 && MS_SSIM_SUM_THREADS % 32 == 0,
              "the sum blocks: one warp adding, the others staging");

// x and the rows y of this thread over a w x h grid (the grid's y strides).
#define MS_SSIM_FOR_SAMPLES(w, h)                                                \
    const int x = (int)(blockIdx.x * SSIM_BLOCK_W + threadIdx.x);               \
    if (x >= (w)) return;                                                        \
    for (int y = (int)(blockIdx.y * SSIM_BLOCK_H + threadIdx.y); y < (h);        \
         y += (int)(gridDim.y * SSIM_BLOCK_H))

// Both luma planes as floats (contiguous, w x h): img0 the reference, img1 the distorted.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ms_ssim_load_8(const unsigned char *__restrict__ ref, const unsigned char *__restrict__ dis,
                     size_t pitch, int w, int h, float divisor, float *__restrict__ img0,
                     float *__restrict__ img1)
{
    (void)divisor;
    MS_SSIM_FOR_SAMPLES(w, h)
    {
        img0[(size_t)y * w + x] = ssim_sample_8(ref[(size_t)y * pitch + x]);
        img1[(size_t)y * w + x] = ssim_sample_8(dis[(size_t)y * pitch + x]);
    }
}

extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ms_ssim_load_16(const unsigned char *__restrict__ ref,
                      const unsigned char *__restrict__ dis, size_t pitch, int w, int h,
                      float divisor, float *__restrict__ img0, float *__restrict__ img1)
{
    MS_SSIM_FOR_SAMPLES(w, h)
    {
        img0[(size_t)y * w + x] =
            ssim_sample_hbd(((const uint16_t *)(ref + (size_t)y * pitch))[x], divisor);
        img1[(size_t)y * w + x] =
            ssim_sample_hbd(((const uint16_t *)(dis + (size_t)y * pitch))[x], divisor);
    }
}

// The next scale of both images: dst(x, y) = ssim_filter_at at (2 x, 2 y) with the low-pass.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ms_ssim_down(const float *__restrict__ src0, const float *__restrict__ src1, int w, int h,
                   const float *__restrict__ lpf, float *__restrict__ dst0,
                   float *__restrict__ dst1, int dw, int dh)
{
    MS_SSIM_FOR_SAMPLES(dw, dh)
    {
        const int cx = x * MS_SSIM_DOWN, cy = y * MS_SSIM_DOWN;
        dst0[(size_t)y * dw + x] =
            ssim_filter_at(src0, w, h, cx, cy, lpf, MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN);
        dst1[(size_t)y * dw + x] =
            ssim_filter_at(src1, w, h, cx, cy, lpf, MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN);
    }
}

// The row pass of a scale's five images into rows (5 planes of ow x h, ow = w - 10,
// rows_n floats apart).
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ms_ssim_rows(const float *__restrict__ img0, const float *__restrict__ img1, int w, int h,
                   const float *__restrict__ taps, float *__restrict__ rows, size_t rows_n)
{
    const int ow = w - SSIM_WIN + 1;
    MS_SSIM_FOR_SAMPLES(ow, h)
    {
        float out[5];
        ms_ssim_rows_at(img0 + (size_t)y * w + x, img1 + (size_t)y * w + x, taps, out);
        for (int q = 0; q < 5; q++) rows[q * rows_n + (size_t)y * ow + x] = out[q];
    }
}

// Per window of a scale: the column pass and ssim_window; l, c, s at the scale's offset.
extern "C" __global__ void __launch_bounds__(SSIM_BLOCK_W * SSIM_BLOCK_H)
float_ms_ssim_windows(const float *__restrict__ rows, size_t rows_n, int ow, int oh,
                      const float *__restrict__ taps, double *__restrict__ l,
                      double *__restrict__ c, float *__restrict__ s)
{
    const SsimConsts k = ssim_consts();
    MS_SSIM_FOR_SAMPLES(ow, oh)
    {
        const SsimLcs o = ms_ssim_window_at(rows + (size_t)y * ow + x, rows_n, ow, taps, k);
        const size_t i = (size_t)y * ow + x;
        l[i] = o.l;
        c[i] = o.c;
        s[i] = (float)o.s;
    }
}

// Block b = scale * 3 + term adds that scale's l (term 0), c (1) or s (2, each float
// widened) over its windows in raster order into sums[b]. Tile t + 1 is staged
// (double-buffered) by warps 1.. while thread 0 adds tile t.
extern "C" __global__ void __launch_bounds__(MS_SSIM_SUM_THREADS)
float_ms_ssim_sums(const double *__restrict__ l, const double *__restrict__ c,
                   const float *__restrict__ s, MsSsimSumLayout lay, double *__restrict__ sums)
{
    __shared__ double tile[2][MS_SSIM_SUM_TILE];
    const int scale = (int)blockIdx.x / MS_SSIM_TERMS, term = (int)blockIdx.x % MS_SSIM_TERMS;
    const size_t off = (size_t)lay.off[scale];
    const int n = lay.n[scale];
    const double *vd = (term == 0 ? l : c) + off;
    const float *vf = s + off;
    const int n_tiles = (n + MS_SSIM_SUM_TILE - 1) / MS_SSIM_SUM_TILE;

    // tile 0, by every thread
    for (int i = (int)threadIdx.x; i < MS_SSIM_SUM_TILE && i < n; i += MS_SSIM_SUM_THREADS)
        tile[0][i] = term == 2 ? (double)vf[i] : vd[i];
    __syncthreads();
    double acc = 0.0;
    for (int t = 0; t < n_tiles; t++) {
        const int base = t * MS_SSIM_SUM_TILE;
        if (threadIdx.x >= 32) {
            const int next = base + MS_SSIM_SUM_TILE;
            double *dst = tile[(t + 1) & 1];
            for (int i = (int)threadIdx.x - 32; i < MS_SSIM_SUM_TILE && next + i < n;
                 i += MS_SSIM_SUM_THREADS - 32)
                dst[i] = term == 2 ? (double)vf[next + i] : vd[next + i];
        } else if (threadIdx.x == 0) {
            const int m = n - base < MS_SSIM_SUM_TILE ? n - base : MS_SSIM_SUM_TILE;
            acc = ms_ssim_sum_run(acc, tile[t & 1], m);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}
