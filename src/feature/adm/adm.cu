// adm twin: per scale one coef launch and one cm launch (scale 0 with
// skip_scale0: the coef launch's DWT only), then one finish
// launch for the frame (adm_tile.h describes the decomposition and holds the
// per-thread work, which the host replay runs too).
//
// A block is ADM_THREADS threads on one band row (blockIdx.y), columns
// blockIdx.x * ADM_THREADS + threadIdx.x (plus the region's first column in
// the cm launch). Its threads' integer terms are folded across each warp
// with shuffles, then across the warps by one thread per sum, which adds the
// block's total into the row's accumulator with a 64-bit atomic: integers
// modulo 2^64, so the grouping and the atomics' order give the CPU's row
// totals exactly. Row rounding happens in the finish launch only.
#include <stdint.h>

#include "feature/adm/adm_math.h"
#include "feature/adm/adm_tile.h"

static_assert(ADM_THREADS % 32 == 0 && ADM_THREADS / 32 >= 1, "whole warps");
static_assert(ADM_FINISH_THREADS % 32 == 0, "whole warps");
static_assert(sizeof(AdmTileScale) % 8 == 0, "AdmTileScale is passed by value");

// Blocks per SM the register allocation must allow (without it ptxas spills
// in adm_coef0 at 40 registers; with it, 64 registers and no spill).
#define ADM_MIN_BLOCKS 8

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// Adds the block's N terms per thread into acc[q * stride] (q < N).
template <int N>
__device__ __forceinline__ void block_add(const unsigned long long v[N],
                                          unsigned long long *acc, size_t stride)
{
    __shared__ unsigned long long part[ADM_THREADS / 32][N];
    const unsigned t = threadIdx.x;
    for (int q = 0; q < N; q++) {
        const unsigned long long s = warp_sum(v[q]);
        if (!(t & 31u)) part[t >> 5][q] = s;
    }
    __syncthreads();
    if (t < N) {
        unsigned long long total = 0;
        for (unsigned k = 0; k < ADM_THREADS / 32; k++) total += part[k][t];
        if (total) atomicAdd(acc + t * stride, total);
    }
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef0(AdmTileScale c, const unsigned char *ref, const unsigned char *dis, size_t pitch,
          const int32_t *recip, int32_t *a_ref, int32_t *a_dis, AdmTilePlanes p,
          unsigned long long *rows)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w) adm_tile_coef0(&c, i, j, ref, dis, pitch, recip, a_ref, a_dis, &p, den);
    if (!c.stats || i < c.t || i >= c.b) return; // uniform over the block
    const unsigned long long v[3] = { den[0], den[1], den[2] };
    block_add<3>(v, rows + c.rows_off + i, (size_t)c.h);
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef32(AdmTileScale c, const int32_t *src_ref, const int32_t *src_dis, const int32_t *recip,
           int32_t *a_ref, int32_t *a_dis, AdmTilePlanes p, unsigned long long *rows)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w) adm_tile_coef32(&c, i, j, src_ref, src_dis, recip, a_ref, a_dis, &p, den);
    if (i < c.t || i >= c.b) return; // uniform over the block
    const unsigned long long v[3] = { den[0], den[1], den[2] };
    block_add<3>(v, rows + c.rows_off + i, (size_t)c.h);
}

// cm over the region: block row c.t + blockIdx.y, columns from c.l.
__device__ __forceinline__ void cm_block(const AdmTileScale &c, const AdmTilePlanes &p,
                                         unsigned long long *rows)
{
    const int i = c.t + (int)blockIdx.y;
    const int j = c.l + (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    int64_t out[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < c.r) adm_tile_cm(&c, i, j, &p, out);
    unsigned long long v[6];
    for (int q = 0; q < 6; q++) v[q] = (unsigned long long)out[q];
    block_add<6>(v, rows + c.rows_off + 3 * (size_t)c.h + i, (size_t)c.h);
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_cm(AdmTileScale c, AdmTilePlanes p, unsigned long long *rows)
{
    cm_block(c, p, rows);
}

// The ladder's two passes (adm_tile.h): the reference pass of scale 0 and
// of scales 1..3 (its bands into b, its den terms into the rows' den
// accumulators, its approximation into a_ref), and the pair passes (no
// row terms: the den terms are the reference pass's).
extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef0_ref(AdmTileScale c, const unsigned char *ref, size_t pitch, int32_t *a_ref,
              AdmRefBands b, unsigned long long *rows)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w) adm_tile_coef0_ref(&c, i, j, ref, pitch, a_ref, &b, den);
    if (i < c.t || i >= c.b) return; // uniform over the block
    const unsigned long long v[3] = { den[0], den[1], den[2] };
    block_add<3>(v, rows + c.rows_off + i, (size_t)c.h);
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef32_ref(AdmTileScale c, const int32_t *src_ref, int32_t *a_ref, AdmRefBands b,
               unsigned long long *rows)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w) adm_tile_coef32_ref(&c, i, j, src_ref, a_ref, &b, den);
    if (i < c.t || i >= c.b) return; // uniform over the block
    const unsigned long long v[3] = { den[0], den[1], den[2] };
    block_add<3>(v, rows + c.rows_off + i, (size_t)c.h);
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef0_pair(AdmTileScale c, const unsigned char *dis, size_t pitch, const int32_t *recip,
               int32_t *a_dis, AdmRefBands b, AdmTilePlanes p)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    if (j < c.w) adm_tile_coef0_pair(&c, i, j, dis, pitch, recip, a_dis, &b, &p);
}

extern "C" __global__ void __launch_bounds__(ADM_THREADS, ADM_MIN_BLOCKS)
adm_coef32_pair(AdmTileScale c, const int32_t *src_dis, const int32_t *recip, int32_t *a_dis,
                AdmRefBands b, AdmTilePlanes p)
{
    const int i = (int)blockIdx.y, j = (int)(blockIdx.x * ADM_THREADS + threadIdx.x);
    if (j < c.w) adm_tile_coef32_pair(&c, i, j, src_dis, recip, a_dis, &b, &p);
}

// Block (q, k): sum q of scale k, rows t .. b-1 rounded and added, into
// sums[9 k + q] (the AdmScaleSums layout). The den sums of a scale with
// statistics come from den_rows (rows itself, or the reference pass's).
extern "C" __global__ void __launch_bounds__(ADM_FINISH_THREADS)
adm_finish(AdmTileFrame f, const unsigned long long *rows, const unsigned long long *den_rows,
           unsigned long long *sums)
{
    __shared__ unsigned long long part[ADM_FINISH_THREADS / 32];
    const int q = (int)blockIdx.x, k = (int)blockIdx.y;
    const AdmTileScale &c = f.sc[k];
    const unsigned long long *acc = (q < 3 && c.stats ? den_rows : rows) + c.rows_off +
                                    (size_t)q * c.h;
    const unsigned t = threadIdx.x;
    unsigned long long total = 0;
    for (int i = c.t + (int)t; i < c.b; i += ADM_FINISH_THREADS)
        total += adm_tile_row(&c, q, acc[i]);
    total = warp_sum(total);
    if (!(t & 31u)) part[t >> 5] = total;
    __syncthreads();
    if (t == 0) {
        unsigned long long s = 0;
        for (unsigned w = 0; w < ADM_FINISH_THREADS / 32; w++) s += part[w];
        sums[ADM_N_SUMS * k + q] = s;
    }
}
