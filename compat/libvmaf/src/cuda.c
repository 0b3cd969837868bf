/*
 * libvmaf's CUDA entry points (libvmaf_cuda.h).
 *
 * Host pictures need none of them: every context scores them on the best
 * backend there is (CUDA first). These calls are honoured as far as that
 * goes: a state exists where libtvmaf can use a CUDA device, and pictures
 * preallocated in host memory are host pictures. Pictures in device memory
 * are refused with a message: libtvmaf takes device pictures once its CUDA
 * twins are redesigned around them.
 */
#include <errno.h>

#include "compat.h"

/* libvmaf has no call that frees a state, and the drop-in's needs none: it
 * records only that a CUDA device is usable, so every state is this one. */
struct VmafCudaState {
    int usable;
};
static VmafCudaState the_state = { 1 };

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    if (!cu_state) return -EINVAL;
    *cu_state = NULL;
    if (!tvmaf_cuda_available()) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_state_init: no usable CUDA device (no "
                   "driver, no GPU, or a libtvmaf built without CUDA); host pictures are "
                   "scored without a CUDA state");
        return -EINVAL;
    }
    if (cfg.cu_ctx)
        compat_log(VMAF_LOG_LEVEL_INFO, "vmaf_cuda_state_init: the CUcontext given is not "
                   "used; libtvmaf scores on a context of its own on device 0");
    *cu_state = &the_state;
    return 0;
}

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state)
{
    if (!vmaf || !cu_state) return -EINVAL;
    vmaf->cuda_imported = true;
    if (tvmaf_context_backend(vmaf->tv) != TVMAF_BACKEND_CUDA)
        compat_log(VMAF_LOG_LEVEL_WARNING, "vmaf_cuda_import_state: this context scores on "
                   "%s (VmafConfiguration.gpumask or TVMAF_LIBVMAF_BACKEND chose it)",
                   tvmaf_backend_name(tvmaf_context_backend(vmaf->tv)));
    return 0;
}

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    if (!vmaf) return -EINVAL;
    const unsigned w = cfg.pic_params.w, h = cfg.pic_params.h, bpc = cfg.pic_params.bpc;
    switch (cfg.pic_prealloc_method) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE:
        vmaf->cuda_method = cfg.pic_prealloc_method;
        vmaf->cuda_pool.set = false;
        return 0;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_preallocate_pictures: pictures in device "
                   "memory are not supported yet (they come with the redesign of libtvmaf's "
                   "CUDA twins); host pictures (vmaf_picture_alloc) are scored on the GPU");
        return -EINVAL;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED:
        break;
    default:
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_preallocate_pictures: unknown "
                   "preallocation method %d", (int)cfg.pic_prealloc_method);
        return -EINVAL;
    }
    if (!vmaf->cuda_imported) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_preallocate_pictures: no CUDA state "
                   "imported (vmaf_cuda_import_state)");
        return -EINVAL;
    }
    unsigned pw[3], ph[3];
    if (!w || !h || bpc < 8 || bpc > 16 ||
        tvmaf_plane_dims((enum TvmafPixelFormat)cfg.pic_params.pix_fmt, w, h, pw, ph))
        return -EINVAL;
    /* page-locked or not, the pictures are the caller's host memory, which
     * libtvmaf uploads itself */
    vmaf->cuda_method = cfg.pic_prealloc_method;
    vmaf->cuda_pool = (CompatPicParams){ true, w, h, bpc, cfg.pic_params.pix_fmt };
    return 0;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic) return -EINVAL;
    if (!vmaf->cuda_pool.set) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_fetch_preallocated_picture: no host "
                   "pictures preallocated (vmaf_cuda_preallocate_pictures)");
        return -EINVAL;
    }
    const CompatPicParams *p = &vmaf->cuda_pool;
    return vmaf_picture_alloc(pic, p->pix_fmt, p->bpc, p->w, p->h);
}
