/*
 * A reference/distorted picture pair on the device: the planes a twin's
 * kernels read. One device buffer and one pinned staging buffer, allocated
 * once at init; each frame is copied into the staging buffer and sent with a
 * single asynchronous copy. Feature-independent.
 */
#ifndef TVMAF_GPU_CUDA_TWIN_FRAME_H
#define TVMAF_GPU_CUDA_TWIN_FRAME_H

#include "core/feature.h"
#include "gpu/cuda/cuda_runtime.h"

typedef struct TvmafTwinFrame {
    CUdeviceptr d_ref[3], d_dis[3];
    size_t pitch[3];         /* bytes per row on the device, per plane */
    unsigned pw[3], ph[3];
    unsigned n_planes;       /* planes uploaded: 1 (luma) or 3 */
    unsigned bytes_per_sample;
    CUdeviceptr d_buf;
    unsigned char *h_stage;  /* pinned */
    size_t size;
} TvmafTwinFrame;

/* Call with the device's context current. n_planes: 1 or 3. */
int tvmaf_twin_frame_alloc(TvmafTwinFrame *f, const TvmafVideoInfo *vi, unsigned n_planes);
void tvmaf_twin_frame_free(TvmafTwinFrame *f);
/* Stages and uploads both pictures on `stream` (context current). */
int tvmaf_twin_frame_upload(TvmafTwinFrame *f, const TvmafPicture *ref, const TvmafPicture *dis,
                            CUstream stream);

#endif
