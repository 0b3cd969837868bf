// psnr_hvs twin: one thread per 8x8 block position of a plane computes the
// block's 64 terms with the CPU's arithmetic (phvs_block_at, one lane); the
// host adds the terms in raster order into the CPU's running float
// (psnr_hvs_math.h, "The CUDA twin's decomposition").
#include <stdint.h>

#include "feature/psnr_hvs/psnr_hvs_math.h"

static_assert(PHVS_NL == 1, "device code computes one block per thread");

// terms[64 b + k] for every block b < n_blocks of a plane with bx block
// positions per row; w: the plane's weights (uploaded from the host). The
// terms go out through shared memory (PHVS_STAGE_ROW), coalesced.
extern "C" __global__ void __launch_bounds__(PHVS_THREADS)
psnr_hvs_blocks(const uint8_t *ref, const uint8_t *dis, size_t pitch, unsigned bytes, int bx,
                int64_t n_blocks, const PhvsWeights *w, float *terms)
{
    __shared__ float stage[PHVS_THREADS * PHVS_STAGE_ROW];
    const int64_t first = (int64_t)blockIdx.x * PHVS_THREADS;
    const int64_t b = first + threadIdx.x;
    if (b < n_blocks) {
        float t[64];
        phvs_block_at(ref, dis, pitch, bytes, bx, b, w, t);
        for (int k = 0; k < 64; k++) stage[threadIdx.x * PHVS_STAGE_ROW + k] = t[k];
    }
    __syncthreads();
    const int64_t left = n_blocks - first;
    const int n = 64 * (int)(left < PHVS_THREADS ? left : PHVS_THREADS);
    float *out = terms + 64 * first;
    for (int i = (int)threadIdx.x; i < n; i += PHVS_THREADS)
        out[i] = stage[(i / 64) * PHVS_STAGE_ROW + i % 64];
}
