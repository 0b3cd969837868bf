/*
 * A reference/distorted picture pair on an OpenCL device (made, freed and
 * written by opencl_backend.c): the planes the
 * twins' kernels read (core's TvmafDeviceFrame, as this backend defines it).
 * The backend owns one per worker thread (allocated once) and writes each
 * frame into it once, whatever the number of twins. The luma planes only,
 * when every twin in use reads luma only. Feature-independent.
 *
 * One buffer holds both pictures in the layout of tvmaf_picture_alloc's
 * pictures (core/picture_pool.h): reference at offset 0, distorted at
 * copy_bytes; plane p of each at plane[0][p] / plane[1][p] with pitch[p]
 * bytes per row. A kernel takes the buffer and the byte offset of its plane
 * (OpenCL has no pointer arithmetic on the host).
 *
 * Each frame has its own in-order command queue: the upload, then every
 * twin's kernels and read-backs for the frame, go on it in that order, so a
 * twin's kernels see the uploaded planes without events, and the workers'
 * frames run concurrently on their own queues. A twin waits for its
 * read-backs (clFinish) before its extract returns, so the next upload into
 * the frame starts after every twin has finished with it.
 */
#ifndef TVMAF_GPU_OPENCL_DEVICE_FRAME_H
#define TVMAF_GPU_OPENCL_DEVICE_FRAME_H

#include "core/feature.h"
#include "gpu/opencl/opencl_runtime.h"

struct TvmafDeviceFrame {
    cl_mem buf;
    cl_ulong plane[2][3];            /* [dis][p]: byte offsets of the planes in buf */
    size_t pitch[3];                 /* bytes per row, per plane */
    unsigned pw[3], ph[3];
    unsigned n_planes;               /* planes uploaded: 1 (luma) or 3 */
    unsigned bytes_per_sample;
    cl_command_queue queue;          /* owned: the frame's in-order queue */
    size_t size;                     /* bytes of buf */
    size_t copy_bytes;               /* bytes of one picture: its luma, or all */
};

#endif
