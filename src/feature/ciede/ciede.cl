// ciede twin (OpenCL C, fp64-free): dE00 of every pixel, stored at its raster
// position; the host adds the plane in the CPU's order (ciede_opencl.c).
//
// The program may not use double (TVMAF_FP64_FREE: core/hd.h makes the type
// an error and scripts/opencl_kernels.py rejects double literals): the
// reference's doubles are fp32 pairs (ciede_pair.h, numerics/f32pair.h), so
// the twin runs on devices without fp64 and gives the same bits on those
// with it.
#define TVMAF_FP64_FREE 1
#include "feature/ciede/ciede_pair.h"

// buf: the frame (device_frame.h); ref_off, dis_off: the byte offsets of Y, U
// and V of each picture; pitch: luma and chroma bytes per row; k: the
// constants for this bit depth; tab, n: glibc's powf(x, 7) table.
#define CIEDE_KERNEL(NAME, T)                                                                \
    __kernel __attribute__((reqd_work_group_size(CIEDE_PAIR_BLOCK_W, CIEDE_PAIR_BLOCK_H, 1)))  \
    void NAME(__global const uchar *buf, ulong ry, ulong ru, ulong rv, ulong dy, ulong du,     \
              ulong dv, ulong luma_pitch, ulong chroma_pitch, uint w, uint h, uint cw,         \
              uint ch, int layout, __global const CiedePairK *k, __global const uint *tab,     \
              uint n, __global float *de)                                                      \
    {                                                                                          \
        const uint x = get_global_id(0), y = get_global_id(1);                                 \
        if (x >= w || y >= h) return;                                                          \
        __global const uchar *r[3] = { buf + ry, buf + ru, buf + rv };                         \
        __global const uchar *d[3] = { buf + dy, buf + du, buf + dv };                         \
        float s[6];                                                                            \
        CIEDE_SAMPLES_AT(T, r, d, x, y, (uint)(luma_pitch / sizeof(T)),                        \
                         (uint)(chroma_pitch / sizeof(T)), cw, ch, layout, s);                 \
        de[(size_t)y * w + x] = ciede_pair_pixel(s[0], s[1], s[2], s[3], s[4], s[5], k, tab, n); \
    }

CIEDE_KERNEL(ciede_de00_8, uint8_t)
CIEDE_KERNEL(ciede_de00_16, uint16_t)
