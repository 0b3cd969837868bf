/*
 * tvmaf's libvmaf drop-in: the CUDA entry points.
 *
 * The declarations of libvmaf 3.x's public header of this name (Netflix
 * libvmaf at commit f85a8536), reproduced as interface facts. Host pictures
 * need none of this: the drop-in scores them on a GPU whenever one is usable.
 * Pictures in device memory (VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE)
 * are not supported yet; docs/libvmaf.md says what each call does.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_CUDA_H
#define TVMAF_COMPAT_LIBVMAF_CUDA_H

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA device for a context (opaque). */
typedef struct VmafCudaState VmafCudaState;

typedef struct VmafCudaConfiguration {
    void *cu_ctx; /* a CUcontext to use, or NULL */
} VmafCudaConfiguration;

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
};

typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                   VmafCudaPictureConfiguration cfg);

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif
