// cambi twin: each picture's c-values at its five scales (cambi_math.h,
// "The CUDA twin's decomposition"): the range check, the load to 10 bits
// at the encode (or source) size, the 2x2 mean, the flatness flags and the
// mask, then per scale the decimation, the mode filter and the c-values.
// The host reads the c-values back and pools them with the CPU's code.
#include <stdint.h>

#include "feature/cambi/cambi_math.h"

static_assert(CAMBI_BLOCK_W * CAMBI_BLOCK_H <= 1024, "a block's threads");
static_assert(CAMBI_CVAL_THREADS <= 1024, "a c-value block's threads");

// x and the rows y of this thread over a w x h grid (the grid's y strides).
#define CAMBI_FOR_SAMPLES(w, h)                                                  \
    const int x = (int)(blockIdx.x * CAMBI_BLOCK_W + threadIdx.x);              \
    if (x >= (w)) return;                                                        \
    for (int y = (int)(blockIdx.y * CAMBI_BLOCK_H + threadIdx.y); y < (h);       \
         y += (int)(gridDim.y * CAMBI_BLOCK_H))

// Sets *flag when a 16-bit-stored sample of the w x h plane exceeds bpc bits.
extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_check(const unsigned char *src, size_t pitch, int w, int h, unsigned bpc, int *flag)
{
    const unsigned max = (1u << bpc) - 1;
    CAMBI_FOR_SAMPLES(w, h)
    {
        const uint16_t *r = (const uint16_t *)(src + (size_t)y * pitch);
        if (r[x] > max) atomicOr(flag, 1);
    }
}

// The luma at ow x oh (sample ix[x] of row iy[y]) and 10 bits.
extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_load(const unsigned char *src, size_t pitch, unsigned bpc, const unsigned *ix,
           const unsigned *iy, int ow, int oh, uint16_t *img, int stride)
{
    CAMBI_FOR_SAMPLES(ow, oh)
    {
        const unsigned char *row = src + (size_t)iy[y] * pitch;
        const unsigned v = bpc <= 8 ? row[ix[x]] : ((const uint16_t *)row)[ix[x]];
        img[(size_t)y * stride + x] = cambi_to_10bit(v, bpc);
    }
}

extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_dither(const uint16_t *in, uint16_t *out, int stride, int w, int h)
{
    CAMBI_FOR_SAMPLES(w, h)
    out[(size_t)y * stride + x] = cambi_dither_sample(in, stride, (unsigned)w, (unsigned)h,
                                                      (unsigned)x, (unsigned)y);
}

extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_flat_kernel(const uint16_t *img, uint8_t *flat, int stride, int w, int h)
{
    CAMBI_FOR_SAMPLES(w, h)
    flat[(size_t)y * stride + x] = cambi_flat(img, stride, w, h, x, y);
}

extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_mask_kernel(const uint8_t *flat, uint8_t *mask, int stride, int w, int h,
                  unsigned threshold)
{
    CAMBI_FOR_SAMPLES(w, h)
    mask[(size_t)y * stride + x] = cambi_mask_sample(flat, stride, w, h, x, y, threshold);
}

// The decimation to w x h of image and mask, over the picture's gw x gh.
extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_decimate(const uint16_t *img, const uint8_t *mask, uint16_t *img_out, uint8_t *mask_out,
               int stride, int gw, int gh, int w, int h)
{
    CAMBI_FOR_SAMPLES(gw, gh)
    {
        const size_t i = (size_t)y * stride + x;
        img_out[i] = cambi_decimate_sample16(img, stride, w, h, x, y);
        mask_out[i] = cambi_decimate_sample8(mask, stride, w, h, x, y);
    }
}

// The mode filter of the w x h scale, over the picture's gw x gh.
extern "C" __global__ void __launch_bounds__(CAMBI_BLOCK_W * CAMBI_BLOCK_H)
cambi_mode(const uint16_t *in, uint16_t *out, int stride, int gw, int gh, int w, int h)
{
    CAMBI_FOR_SAMPLES(gw, gh)
    out[(size_t)y * stride + x] = cambi_mode_filter_sample(in, stride, w, h, x, y);
}

// c-values of the w x h scale: thread (x, strip blockIdx.y), its histogram
// column in slab blockIdx.y of `hist` (band_size cells w apart).
extern "C" __global__ void __launch_bounds__(CAMBI_CVAL_THREADS)
cambi_cvalues(const uint16_t *img, const uint8_t *mask, int stride, int w, int h, int half,
              int rows, uint16_t *hist, size_t slab, int band_base, int band_size,
              int num_diffs, const uint16_t *limit, int vlt_code, const float *recip,
              float *cval)
{
    const int x = (int)(blockIdx.x * CAMBI_CVAL_THREADS + threadIdx.x);
    if (x >= w) return;
    CambiBand band;
    band.base = (uint16_t)band_base;
    band.size = (uint16_t)band_size;
    cambi_cvalue_strip(img, mask, stride, w, h, half, x, (int)blockIdx.y * rows, rows,
                       hist + slab * blockIdx.y + x, w, band, num_diffs, limit, vlt_code, recip,
                       cval);
}

// The top-k radix select of one scale's n c-values (cambi_math.h, "The
// device's pooling"): pass `pass`'s counts and unit sums per bin of the
// values whose higher bits are the prefix so far (0 is left out: it adds
// nothing, and a T of 0 is what no bin reaching k means), in shared memory,
// then added to the global bins. Integer sums: any order gives the same.
extern "C" __global__ void __launch_bounds__(CAMBI_TOPK_THREADS)
cambi_topk_hist(const float *cval, int n, int pass, CambiTopk *st, uint32_t *count,
                unsigned long long *sum)
{
    __shared__ uint32_t sc[CAMBI_TOPK_BINS];
    __shared__ unsigned long long ss[CAMBI_TOPK_BINS];
    for (int b = (int)threadIdx.x; b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS) {
        sc[b] = 0;
        ss[b] = 0;
    }
    __syncthreads();
    const uint32_t prefix = st->prefix;
    for (int i = (int)(blockIdx.x * CAMBI_TOPK_THREADS + threadIdx.x); i < n;
         i += (int)(gridDim.x * CAMBI_TOPK_THREADS)) {
        const float c = cval[i];
        if (c == 0.0f) continue;
        const int b = cambi_topk_bin(__float_as_uint(c), pass, prefix);
        if (b < 0) continue;
        uint64_t u;
        if (!cambi_units(c, &u) && pass == 0) atomicOr(&st->bad, 1u);
        atomicAdd(&sc[b], 1u);
        atomicAdd(&ss[b], (unsigned long long)u);
    }
    __syncthreads();
    for (int b = (int)threadIdx.x; b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS)
        if (sc[b]) {
            atomicAdd(&count[b], sc[b]);
            atomicAdd(&sum[b], ss[b]);
        }
}

// The pass's bin joins the prefix (cambi_topk_scan): the block copies the
// bins into shared memory and clears them, then one thread scans the copy
// (a walk over global memory would wait on each load in turn).
extern "C" __global__ void __launch_bounds__(CAMBI_TOPK_SCAN_THREADS)
cambi_topk_scan_kernel(CambiTopk *st, uint32_t *count, unsigned long long *sum, int pass,
                       unsigned k)
{
    __shared__ uint32_t sc[CAMBI_TOPK_BINS];
    __shared__ uint64_t ss[CAMBI_TOPK_BINS];
    for (int b = (int)threadIdx.x; b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_SCAN_THREADS) {
        sc[b] = count[b];
        ss[b] = sum[b];
        count[b] = 0;
        sum[b] = 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) cambi_topk_scan(st, sc, ss, pass, k);
}
