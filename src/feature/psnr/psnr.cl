// psnr twin (OpenCL C): the sum of squared errors of one plane, per row.
//
// One work-group of PSNR_THREADS work-items per row (global size
// PSNR_THREADS x h); work-item t adds the squared errors of its lane
// (psnr_lane_sse_*, psnr_math.h: the CUDA twin's lanes), the group folds the
// lanes in local memory and work-item 0 stores the row's sum. The host adds
// the rows. Integer sums are exact, so any grouping gives the CPU's total;
// no 64-bit atomics are needed.
#include "feature/psnr/psnr_math.h"

#define FOLD_AND_STORE(s)                                                                    \
    __local ulong part[PSNR_THREADS];                                                        \
    part[t] = (s);                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    for (uint o = PSNR_THREADS / 2; o > 0; o >>= 1) {                                        \
        if (t < o) part[t] += part[t + o];                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
    }                                                                                        \
    if (t == 0) row_sse[row0 + y] = part[0];

__kernel __attribute__((reqd_work_group_size(PSNR_THREADS, 1, 1)))
void psnr_sse_8(__global const uchar *buf, ulong ref_off, ulong dis_off, ulong pitch, uint w,
                __global ulong *row_sse, uint row0)
{
    const uint t = get_local_id(0), y = get_group_id(1);
    __global const uint8_t *r = buf + ref_off + y * pitch;
    __global const uint8_t *d = buf + dis_off + y * pitch;
    FOLD_AND_STORE(psnr_lane_sse_8(r, d, t, w))
}

__kernel __attribute__((reqd_work_group_size(PSNR_THREADS, 1, 1)))
void psnr_sse_16(__global const uchar *buf, ulong ref_off, ulong dis_off, ulong pitch, uint w,
                 __global ulong *row_sse, uint row0)
{
    const uint t = get_local_id(0), y = get_group_id(1);
    __global const uint16_t *r = (__global const uint16_t *)(buf + ref_off + y * pitch);
    __global const uint16_t *d = (__global const uint16_t *)(buf + dis_off + y * pitch);
    FOLD_AND_STORE(psnr_lane_sse_16(r, d, t, w))
}
