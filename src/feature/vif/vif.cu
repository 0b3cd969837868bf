// vif twin: one launch per scale, one tile per block (vif_tile.h describes
// the decomposition and holds the phases, which the host replay runs too).
//
// Shared memory of a block at scale 0 (the largest): the 80 x 32 input tile
// of reference and distorted (u16), the 80 x 16 vertical pass of means (u16)
// and moments (u32), the 72 x 8 vertical pass of the low-pass (u16): about
// 33 KB. The log2 table (vif_log2_table_fill on the host, the CPU's table)
// stays in global memory and is read through the cache.
//
// The block's VifSums: each thread's, folded across the warp with
// shuffles, then across warps by four threads (one per field), each adding
// its total into scale s's VifSums with a 64-bit atomic. Integer sums, so
// the grouping and the atomics' order give the CPU's sums exactly.
#include <stdint.h>

#include "feature/vif/vif_math.h"
#include "feature/vif/vif_tile.h"

static_assert(VIF_THREADS % 32 == 0 && VIF_THREADS / 32 >= 4, "whole warps, at least 4");
static_assert(VIF_TILE_W % 2 == 0 && VIF_TILE_H % 2 == 0, "tiles of whole even rows and columns");
static_assert(sizeof(VifSums) == 4 * sizeof(unsigned long long), "VifSums is 4 x 64 bits");
constexpr unsigned vif_widths[VIF_N_SCALES] = VIF_FILTER_WIDTHS;
static_assert(vif_widths[0] == 2 * VIF_HALF(0) + 1 && vif_widths[1] == 2 * VIF_HALF(1) + 1 &&
                  vif_widths[2] == 2 * VIF_HALF(2) + 1 && vif_widths[3] == 2 * VIF_HALF(3) + 1,
              "VIF_HALF is half of each scale's filter");

// Blocks per SM the register allocation must allow (ptxas then keeps scale 0's
// kernels at 61 registers, without spills; the shared memory allows 6).
#define VIF_MIN_BLOCKS 4

__constant__ uint16_t vif_taps_dev[VIF_N_SCALES][VIF_MAX_TAPS] = VIF_FILTER_TAPS;

__device__ __forceinline__ long long warp_sum(long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// The tile of this block at scale S (taps_n: unused at scale 3).
template <unsigned S, bool IS8>
__device__ __forceinline__ VifTile block_tile(unsigned w, unsigned h, unsigned bpc)
{
    return VifTile{ S, bpc, IS8, w, h, (int)(blockIdx.x * VIF_TILE_W),
                    (int)(blockIdx.y * VIF_TILE_H), vif_taps_dev[S],
                    vif_taps_dev[S < 3 ? S + 1 : S] };
}

// The block's VifSums into sums (whole block).
__device__ __forceinline__ void block_add(unsigned t, const VifSums *acc,
                                          long long (*partial)[4], unsigned long long *sums)
{
    const long long v[4] = { warp_sum(acc->num_log), warp_sum(acc->den_log),
                             warp_sum(acc->num_lin), warp_sum(acc->den_lin) };
    if (!(t & 31u))
        for (int q = 0; q < 4; q++) partial[t >> 5][q] = v[q];
    __syncthreads();
    if (t < 4) {
        long long total = 0;
        for (unsigned k = 0; k < VIF_THREADS / 32; k++) total += partial[k][t];
        atomicAdd(sums + t, (unsigned long long)total);
    }
}

template <unsigned S, bool IS8>
__device__ __forceinline__ void scale_tile(const unsigned char *ref, const unsigned char *dis,
                                           size_t pitch, unsigned w, unsigned h, unsigned bpc,
                                           unsigned score, const uint16_t *__restrict__ log2_table,
                                           double gain_limit, unsigned char *out_r,
                                           unsigned char *out_d, size_t out_pitch,
                                           unsigned long long *sums)
{
    constexpr unsigned DV_LEN = S < 3 ? VIF_TILE_H / 2 * VIF_DV_W(S) : 1;
    __shared__ uint16_t in_r[VIF_IN_H(S) * VIF_IN_W(S)], in_d[VIF_IN_H(S) * VIF_IN_W(S)];
    __shared__ uint16_t mu1[VIF_TILE_H * VIF_IN_W(S)], mu2[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint32_t xx[VIF_TILE_H * VIF_IN_W(S)], yy[VIF_TILE_H * VIF_IN_W(S)],
        xy[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint16_t dv_r[DV_LEN], dv_d[DV_LEN];
    __shared__ long long partial[VIF_THREADS / 32][4];

    const VifTile tl = block_tile<S, IS8>(w, h, bpc);
    const VifTileMem m = { in_r, in_d, mu1, mu2, xx, yy, xy, dv_r, dv_d };
    const unsigned t = threadIdx.x;

    vif_tile_load(t, &tl, ref, dis, pitch, &m);
    __syncthreads();
    if (score) vif_tile_stat_v(t, &tl, &m);
    if (S < 3) vif_tile_down_v(t, &tl, &m);
    __syncthreads();
    if (S < 3) vif_tile_down_h(t, &tl, &m, out_r, out_d, out_pitch);
    if (!score) return; // uniform over the block

    VifSums acc = { 0, 0, 0, 0 };
    vif_tile_stat_h(t, &tl, &m, log2_table, gain_limit, &acc);
    block_add(t, &acc, partial, sums);
}

// Arguments of every scale's kernel: the scale's planes (pitch bytes per
// row, 8-bit samples only for scale 0 of 8-bit input), its size, the input
// depth, whether its statistic is computed, the log2 table, the gain limit,
// the next scale's planes (written; unused at scale 3) and scale s's VifSums.
#define VIF_KERNEL(name, S, IS8)                                                              \
    extern "C" __global__ void __launch_bounds__(VIF_THREADS, VIF_MIN_BLOCKS)                 \
    name(const unsigned char *ref, const unsigned char *dis, size_t pitch, unsigned w,       \
         unsigned h, unsigned bpc, unsigned score, const uint16_t *__restrict__ log2_table,   \
         double gain_limit, unsigned char *out_r, unsigned char *out_d, size_t out_pitch,     \
         unsigned long long *sums)                                                            \
    {                                                                                         \
        scale_tile<S, IS8>(ref, dis, pitch, w, h, bpc, score, log2_table, gain_limit, out_r, \
                           out_d, out_pitch, sums);                                           \
    }

VIF_KERNEL(vif_scale0_8, 0, true)
VIF_KERNEL(vif_scale0_16, 0, false)
VIF_KERNEL(vif_scale1, 1, false)
VIF_KERNEL(vif_scale2, 2, false)
VIF_KERNEL(vif_scale3, 3, false)

// The ladder's two passes (vif_tile.h). The reference pass of scale s: the
// reference's plane of scale s in, its plane of scale s + 1 (out_r), its
// terms (mu1, sigma1_sq: w x h each) and its den sums out. It always computes
// the statistic: every pair of the ladder reads its terms, whatever scales
// that pair scores.
template <unsigned S, bool IS8>
__device__ __forceinline__ void ref_tile(const unsigned char *ref, size_t pitch, unsigned w,
                                         unsigned h, unsigned bpc,
                                         const uint16_t *__restrict__ log2_table,
                                         unsigned char *out_r, size_t out_pitch, uint32_t *mu1_out,
                                         int32_t *sigma_out, unsigned long long *sums)
{
    constexpr unsigned DV_LEN = S < 3 ? VIF_TILE_H / 2 * VIF_DV_W(S) : 1;
    __shared__ uint16_t in_r[VIF_IN_H(S) * VIF_IN_W(S)];
    __shared__ uint16_t mu1[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint32_t xx[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint16_t dv_r[DV_LEN];
    __shared__ long long partial[VIF_THREADS / 32][4];

    const VifTile tl = block_tile<S, IS8>(w, h, bpc);
    const VifTileMem m = { in_r, nullptr, mu1, nullptr, xx, nullptr, nullptr, dv_r, nullptr };
    const VifRefTerms out = { mu1_out, sigma_out };
    const unsigned t = threadIdx.x;

    vif_tile_load1(t, &tl, ref, pitch, in_r);
    __syncthreads();
    vif_tile_stat_v_ref(t, &tl, &m);
    if (S < 3) vif_tile_down_v1(t, &tl, in_r, dv_r);
    __syncthreads();
    if (S < 3) vif_tile_down_h1(t, &tl, dv_r, out_r, out_pitch);
    VifSums acc = { 0, 0, 0, 0 };
    vif_tile_stat_h_ref(t, &tl, &m, log2_table, &out, &acc);
    block_add(t, &acc, partial, sums);
}

// The pair pass of scale s: both planes of scale s in (the reference's from
// the reference pass below scale 0), the distorted plane of scale s + 1
// (out_d) and the num sums out.
template <unsigned S, bool IS8>
__device__ __forceinline__ void pair_tile(const unsigned char *ref, const unsigned char *dis,
                                          size_t pitch, unsigned w, unsigned h, unsigned bpc,
                                          unsigned score, const uint16_t *__restrict__ log2_table,
                                          double gain_limit, unsigned char *out_d,
                                          size_t out_pitch, const uint32_t *mu1_in,
                                          const int32_t *sigma_in, unsigned long long *sums)
{
    constexpr unsigned DV_LEN = S < 3 ? VIF_TILE_H / 2 * VIF_DV_W(S) : 1;
    __shared__ uint16_t in_r[VIF_IN_H(S) * VIF_IN_W(S)], in_d[VIF_IN_H(S) * VIF_IN_W(S)];
    __shared__ uint16_t mu2[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint32_t yy[VIF_TILE_H * VIF_IN_W(S)], xy[VIF_TILE_H * VIF_IN_W(S)];
    __shared__ uint16_t dv_d[DV_LEN];
    __shared__ long long partial[VIF_THREADS / 32][4];

    const VifTile tl = block_tile<S, IS8>(w, h, bpc);
    const VifTileMem m = { in_r, in_d, nullptr, mu2, nullptr, yy, xy, nullptr, dv_d };
    // the terms are only read
    const VifRefTerms in = { const_cast<uint32_t *>(mu1_in), const_cast<int32_t *>(sigma_in) };
    const unsigned t = threadIdx.x;

    if (score) vif_tile_load(t, &tl, ref, dis, pitch, &m);
    else vif_tile_load1(t, &tl, dis, pitch, in_d);
    __syncthreads();
    if (score) vif_tile_stat_v_pair(t, &tl, &m);
    if (S < 3) vif_tile_down_v1(t, &tl, in_d, dv_d);
    __syncthreads();
    if (S < 3) vif_tile_down_h1(t, &tl, dv_d, out_d, out_pitch);
    if (!score) return; // uniform over the block
    VifSums acc = { 0, 0, 0, 0 };
    vif_tile_stat_h_pair(t, &tl, &m, &in, log2_table, gain_limit, &acc);
    block_add(t, &acc, partial, sums);
}

#define VIF_REF_KERNEL(name, S, IS8)                                                           \
    extern "C" __global__ void __launch_bounds__(VIF_THREADS, VIF_MIN_BLOCKS)                  \
    name(const unsigned char *ref, size_t pitch, unsigned w, unsigned h, unsigned bpc,        \
         const uint16_t *__restrict__ log2_table, unsigned char *out_r, size_t out_pitch,     \
         uint32_t *mu1_out, int32_t *sigma_out, unsigned long long *sums)                     \
    {                                                                                          \
        ref_tile<S, IS8>(ref, pitch, w, h, bpc, log2_table, out_r, out_pitch, mu1_out,        \
                         sigma_out, sums);                                                    \
    }

#define VIF_PAIR_KERNEL(name, S, IS8)                                                          \
    extern "C" __global__ void __launch_bounds__(VIF_THREADS, VIF_MIN_BLOCKS)                  \
    name(const unsigned char *ref, const unsigned char *dis, size_t pitch, unsigned w,        \
         unsigned h, unsigned bpc, unsigned score, const uint16_t *__restrict__ log2_table,    \
         double gain_limit, unsigned char *out_d, size_t out_pitch, const uint32_t *mu1_in,    \
         const int32_t *sigma_in, unsigned long long *sums)                                   \
    {                                                                                          \
        pair_tile<S, IS8>(ref, dis, pitch, w, h, bpc, score, log2_table, gain_limit, out_d,   \
                          out_pitch, mu1_in, sigma_in, sums);                                 \
    }

VIF_REF_KERNEL(vif_ref_scale0_8, 0, true)
VIF_REF_KERNEL(vif_ref_scale0_16, 0, false)
VIF_REF_KERNEL(vif_ref_scale1, 1, false)
VIF_REF_KERNEL(vif_ref_scale2, 2, false)
VIF_REF_KERNEL(vif_ref_scale3, 3, false)
VIF_PAIR_KERNEL(vif_pair_scale0_8, 0, true)
VIF_PAIR_KERNEL(vif_pair_scale0_16, 0, false)
VIF_PAIR_KERNEL(vif_pair_scale1, 1, false)
VIF_PAIR_KERNEL(vif_pair_scale2, 2, false)
VIF_PAIR_KERNEL(vif_pair_scale3, 3, false)
