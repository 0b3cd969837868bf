// psnr_hvs twin: one thread per 8x8 block position of a plane computes the
// block's 64 terms with the CPU's arithmetic (phvs_block_at, one lane); each
// CUDA block packs its non-zero terms in order, and the host adds them into
// the CPU's running float (psnr_hvs_math.h, "The CUDA twin's
// decomposition").
#include <stdint.h>

#include "feature/psnr_hvs/psnr_hvs_math.h"

static_assert(PHVS_NL == 1, "device code computes one block per thread");

// For every block b < n_blocks of a plane with bx block positions per row:
// CUDA block g stores its blocks' non-zero terms, in order, at
// terms[PHVS_REGION g ...] and their number at counts[g]. w: the plane's
// weights (uploaded from the host).
extern "C" __global__ void __launch_bounds__(PHVS_THREADS)
psnr_hvs_blocks(const uint8_t *ref, const uint8_t *dis, size_t pitch, unsigned bytes, int bx,
                int64_t n_blocks, const PhvsWeights *w, float *terms, uint32_t *counts)
{
    __shared__ float stage[PHVS_THREADS * PHVS_STAGE_ROW];
    __shared__ float packed[PHVS_REGION];
    __shared__ int start[PHVS_THREADS + 1];
    const unsigned tid = threadIdx.x;
    const int64_t b = (int64_t)blockIdx.x * PHVS_THREADS + tid;
    float *row = stage + tid * PHVS_STAGE_ROW;
    if (b < n_blocks) {
        float t[64];
        phvs_block_at(ref, dis, pitch, bytes, bx, b, w, t);
        for (int k = 0; k < 64; k++) row[k] = t[k];
        start[tid + 1] = phvs_nonzero(row);
    } else {
        start[tid + 1] = 0;
    }
    __syncthreads();
    if (tid == 0) { // exclusive prefix sum of the rows' counts, in thread order
        start[0] = 0;
        for (int i = 1; i <= PHVS_THREADS; i++) start[i] += start[i - 1];
    }
    __syncthreads();
    if (b < n_blocks) phvs_pack(row, packed, start[tid]);
    __syncthreads();
    const int total = start[PHVS_THREADS];
    float *out = terms + (size_t)blockIdx.x * PHVS_REGION;
    for (int i = (int)tid; i < total; i += PHVS_THREADS) out[i] = packed[i];
    if (tid == 0) counts[blockIdx.x] = (uint32_t)total;
}
