// vif twin (OpenCL C): one launch per scale, one tile per work-group, in the
// CUDA twin's decomposition (vif_tile.h holds the phases, which the host
// replay runs too).
//
// Local memory of a work-group at scale 0 (the largest): the 80 x 32 input
// tile of reference and distorted (u16), the 80 x 16 vertical pass of means
// (u16) and moments (u32), the 72 x 8 vertical pass of the low-pass (u16)
// and VIF_THREADS int64 for the fold: about 35 KB. The log2 table (the CPU's,
// vif_log2_table_fill on the host) and the filter taps are global buffers.
//
// The group's VifSums: each work-item's, folded in local memory field by
// field; work-item 0 stores the four totals at the group's slot, and the host
// adds the groups' slots (integers: any grouping gives the CPU's sums; no
// 64-bit atomics needed).
#include "feature/vif/vif_math.h"
#include "feature/vif/vif_tile.h"

#define VIF_DV_LEN(S) ((S) < 3 ? VIF_TILE_H / 2 * VIF_DV_W(S) : 1)

// The sum of every work-item's v (work-group uniform call).
static long fold(__local long *red, long v, uint t)
{
    red[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint o = VIF_THREADS / 2; o > 0; o >>= 1) {
        if (t < o) red[t] += red[t + o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long total = red[0];
    barrier(CLK_LOCAL_MEM_FENCE); // red is rewritten by the next fold
    return total;
}

// Arguments of every scale's kernel: the scale's planes (buffer and byte
// offset, pitch bytes per row; 8-bit samples only for scale 0 of 8-bit
// input), its size, the input depth, whether its statistic is computed, the
// log2 table, the gain limit, the next scale's planes (written; unused at
// scale 3), the taps of every scale (VIF_N_SCALES x VIF_MAX_TAPS) and the
// groups' sums (4 int64 per group, from element sums_off on).
#define VIF_KERNEL(name, S, IS8)                                                             \
    __kernel __attribute__((reqd_work_group_size(VIF_THREADS, 1, 1)))                       \
    void name(__global const uchar *ref_buf, ulong ref_off, __global const uchar *dis_buf,   \
              ulong dis_off, ulong pitch, uint w, uint h, uint bpc, uint score,              \
              __global const uint16_t *log2_table, double gain_limit,                        \
              __global uchar *out_buf, ulong out_r_off, ulong out_d_off, ulong out_pitch,    \
              __global const uint16_t *taps, __global long *sums, ulong sums_off)            \
    {                                                                                        \
        __local uint16_t in_r[VIF_IN_H(S) * VIF_IN_W(S)], in_d[VIF_IN_H(S) * VIF_IN_W(S)];   \
        __local uint16_t mu1[VIF_TILE_H * VIF_IN_W(S)], mu2[VIF_TILE_H * VIF_IN_W(S)];       \
        __local uint32_t xx[VIF_TILE_H * VIF_IN_W(S)], yy[VIF_TILE_H * VIF_IN_W(S)],         \
            xy[VIF_TILE_H * VIF_IN_W(S)];                                                    \
        __local uint16_t dv_r[VIF_DV_LEN(S)], dv_d[VIF_DV_LEN(S)];                           \
        __local long red[VIF_THREADS];                                                       \
        const VifTile tl = { S, bpc, IS8, w, h, (int)(get_group_id(0) * VIF_TILE_W),        \
                             (int)(get_group_id(1) * VIF_TILE_H), taps + S * VIF_MAX_TAPS,   \
                             /* unused at scale 3 */                                         \
                             taps + ((S) < 3 ? (S) + 1 : (S)) * VIF_MAX_TAPS };              \
        const VifTileMem m = { in_r, in_d, mu1, mu2, xx, yy, xy, dv_r, dv_d };               \
        const uint t = get_local_id(0);                                                      \
        vif_tile_load(t, &tl, ref_buf + ref_off, dis_buf + dis_off, pitch, &m);              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        if (score) vif_tile_stat_v(t, &tl, &m);                                              \
        if ((S) < 3) vif_tile_down_v(t, &tl, &m);                                            \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
        if ((S) < 3)                                                                         \
            vif_tile_down_h(t, &tl, &m, out_buf + out_r_off, out_buf + out_d_off, out_pitch); \
        if (!score) return; /* uniform over the group */                                     \
        VifSums acc = { 0, 0, 0, 0 };                                                        \
        vif_tile_stat_h(t, &tl, &m, log2_table, gain_limit, &acc);                           \
        const long v0 = fold(red, acc.num_log, t), v1 = fold(red, acc.den_log, t);          \
        const long v2 = fold(red, acc.num_lin, t), v3 = fold(red, acc.den_lin, t);          \
        if (t == 0) {                                                                        \
            __global long *g = sums + sums_off +                                             \
                               4 * (get_group_id(1) * get_num_groups(0) + get_group_id(0));  \
            g[0] = v0;                                                                       \
            g[1] = v1;                                                                       \
            g[2] = v2;                                                                       \
            g[3] = v3;                                                                       \
        }                                                                                    \
    }

VIF_KERNEL(vif_scale0_8, 0, 1)
VIF_KERNEL(vif_scale0_16, 0, 0)
VIF_KERNEL(vif_scale1, 1, 0)
VIF_KERNEL(vif_scale2, 2, 0)
VIF_KERNEL(vif_scale3, 3, 0)
