// adm twin (OpenCL C): the CUDA twin's decomposition (adm_tile.h: per scale a
// coef launch and a cm launch, one work-item per coefficient, work-groups of
// ADM_THREADS on a segment of one band row; then one finish launch).
//
// Where the CUDA blocks add their totals into a row's accumulator with 64-bit
// atomics, a work-group here folds its work-items' terms in local memory and
// stores each total in its own slot: slot (q, i, g) of a scale is sum q of
// row i from group g of the row (G groups per row, ADM_GRID_X(w)); slots no
// group wrote stay zero. The finish launch adds a row's G slots (modulo
// 2^64: the row's total, as the atomics' sum) before rounding the row as the
// CPU does. Integer sums: the grouping gives the CPU's totals exactly.
//
// The scales' constants (AdmTileScale) are read from a buffer the host wrote
// once: OpenCL kernel arguments cannot hold a size_t, nor a struct of
// pointers, so the coefficient planes (AdmTilePlanes) are rebuilt here from
// one buffer and offsets, in the CUDA twin's order.
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_tile.h"

// The planes at `off` of mem, `plane` bytes apart: r, a, csf[0], flt[0],
// csf[1], flt[1] of each orientation.
static AdmTilePlanes planes_at(__global uchar *mem, ulong off, ulong plane)
{
    AdmTilePlanes p;
    for (int o = 0; o < 3; o++) {
        p.r[o] = mem + off;
        off += plane;
        p.a[o] = mem + off;
        off += plane;
        for (int q = 0; q < 2; q++) {
            p.csf[q][o] = mem + off;
            off += plane;
            p.flt[q][o] = mem + off;
            off += plane;
        }
    }
    return p;
}

// Folds each of the n terms of every work-item and stores the group's totals
// at dst[q * stride] (work-group uniform call).
static void group_store(__local ulong *red, const ulong *v, int n, __global ulong *dst,
                        ulong stride)
{
    const uint t = get_local_id(0);
    for (int q = 0; q < n; q++) {
        red[t] = v[q];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint o = ADM_THREADS / 2; o > 0; o >>= 1) {
            if (t < o) red[t] += red[t + o];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (t == 0) dst[q * stride] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// Host check of the layout of the struct it writes for the kernels.
__kernel void adm_layout(__global uint *out)
{
    out[0] = (uint)sizeof(AdmTileScale);
    out[1] = (uint)sizeof(AdmTileFrame);
}

__kernel __attribute__((reqd_work_group_size(ADM_THREADS, 1, 1)))
void adm_coef0(__global const AdmTileScale *scales, __global const uchar *frame, ulong ref_off,
               ulong dis_off, ulong pitch, __global uchar *mem, ulong recip0, ulong a_ref,
               ulong a_dis, ulong planes, ulong plane, __global ulong *slots, ulong slot0)
{
    __local ulong red[ADM_THREADS];
    const AdmTileScale c = scales[0];
    const int i = (int)get_group_id(1), j = (int)(get_group_id(0) * ADM_THREADS + get_local_id(0));
    const AdmTilePlanes p = planes_at(mem, planes, plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef0(&c, i, j, frame + ref_off, frame + dis_off, pitch,
                       (__global const int32_t *)(mem + recip0),
                       (__global int32_t *)(mem + a_ref), (__global int32_t *)(mem + a_dis), &p,
                       den);
    if (!c.stats || i < c.t || i >= c.b) return; // uniform over the group
    const ulong g = get_num_groups(0);
    group_store(red, den, 3, slots + slot0 + (ulong)i * g + get_group_id(0), (ulong)c.h * g);
}

__kernel __attribute__((reqd_work_group_size(ADM_THREADS, 1, 1)))
void adm_coef32(__global const AdmTileScale *scales, uint k, __global uchar *mem, ulong src_ref,
                ulong src_dis, ulong recip0, ulong a_ref, ulong a_dis, ulong planes, ulong plane,
                __global ulong *slots, ulong slot0)
{
    __local ulong red[ADM_THREADS];
    const AdmTileScale c = scales[k];
    const int i = (int)get_group_id(1), j = (int)(get_group_id(0) * ADM_THREADS + get_local_id(0));
    const AdmTilePlanes p = planes_at(mem, planes, plane);
    uint64_t den[3] = { 0, 0, 0 };
    if (j < c.w)
        adm_tile_coef32(&c, i, j, (__global const int32_t *)(mem + src_ref),
                        (__global const int32_t *)(mem + src_dis),
                        (__global const int32_t *)(mem + recip0),
                        (__global int32_t *)(mem + a_ref), (__global int32_t *)(mem + a_dis),
                        &p, den);
    if (i < c.t || i >= c.b) return; // uniform over the group
    const ulong g = get_num_groups(0);
    group_store(red, den, 3, slots + slot0 + (ulong)i * g + get_group_id(0), (ulong)c.h * g);
}

// cm over the region: group row c.t + group y, columns from c.l; G groups
// per row of the scale's slots.
__kernel __attribute__((reqd_work_group_size(ADM_THREADS, 1, 1)))
void adm_cm(__global const AdmTileScale *scales, uint k, __global uchar *mem, ulong planes,
            ulong plane, __global ulong *slots, ulong slot0, uint G)
{
    __local ulong red[ADM_THREADS];
    const AdmTileScale c = scales[k];
    const AdmTilePlanes p = planes_at(mem, planes, plane);
    const int i = c.t + (int)get_group_id(1);
    const int j = c.l + (int)(get_group_id(0) * ADM_THREADS + get_local_id(0));
    int64_t out[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < c.r) adm_tile_cm(&c, i, j, &p, out);
    ulong v[6];
    for (int q = 0; q < 6; q++) v[q] = (ulong)out[q];
    group_store(red, v, 6, slots + slot0 + (3 * (ulong)c.h + i) * G + get_group_id(0),
                (ulong)c.h * G);
}

// Group (q, k): sum q of scale k, rows t .. b-1 (each the sum of its G
// slots) rounded and added, into sums[9 k + q] (the AdmScaleSums layout).
__kernel __attribute__((reqd_work_group_size(ADM_FINISH_THREADS, 1, 1)))
void adm_finish(__global const AdmTileScale *scales, __global const ulong *slots,
                __global const ulong *slot0, __global const uint *groups, __global ulong *sums)
{
    __local ulong part[ADM_FINISH_THREADS];
    const int q = (int)get_group_id(0), k = (int)get_group_id(1);
    const AdmTileScale c = scales[k];
    const uint G = groups[k];
    __global const ulong *acc = slots + slot0[k] + (ulong)q * c.h * G;
    const uint t = get_local_id(0);
    ulong total = 0;
    for (int i = c.t + (int)t; i < c.b; i += ADM_FINISH_THREADS) {
        ulong row = 0;
        for (uint g = 0; g < G; g++) row += acc[(ulong)i * G + g];
        total += adm_tile_row(&c, q, row);
    }
    part[t] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint o = ADM_FINISH_THREADS / 2; o > 0; o >>= 1) {
        if (t < o) part[t] += part[t + o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) sums[ADM_N_SUMS * k + q] = part[0];
}
