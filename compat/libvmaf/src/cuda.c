/*
 * libvmaf's CUDA entry points (libvmaf_cuda.h).
 *
 * Host pictures need none of them: every context scores them on the best
 * backend there is (CUDA first). With a CUDA state imported, the context
 * scores on the CUDA backend in the state's CUcontext (FFmpeg's own, from
 * its CUDA device), and pictures preallocated in device memory are libtvmaf
 * device pictures of that context (tvmaf_cuda_picture_alloc), scored where
 * they are.
 *
 * Device pictures carry their luma plane only. FFmpeg 7.1's libvmaf_cuda
 * filter, the one user of these pictures, copies plane 0 and nothing else
 * into them, so chroma would be memory nobody wrote: a feature that reads
 * chroma is refused by libtvmaf (tvmaf_read_pictures names it) rather than
 * scored from it. The vmaf_v0.6.1 family reads luma only.
 */
#include <errno.h>
#include <stdlib.h>

#include "compat.h"

/* What a state records: the caller's context (NULL: the primary context of
 * device 0). libvmaf has no call that frees a state, and its context keeps
 * a copy of it, so the caller's state object is never freed here either. */
struct VmafCudaState {
    void *cu_ctx;
};

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
    VmafCudaState *s = malloc(sizeof(*s));
    if (!s) return -ENOMEM;
    s->cu_ctx = cfg.cu_ctx;
    *cu_state = s;
    return 0;
}

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state)
{
    if (!vmaf || !cu_state) return -EINVAL;
    if (vmaf->cuda_imported) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_import_state: a CUDA state was imported "
                   "into this context already");
        return -EINVAL;
    }
    vmaf->cuda_imported = true;
    const enum TvmafBackend b = compat_backend_of(&vmaf->cfg);
    if (b != TVMAF_BACKEND_AUTO && b != TVMAF_BACKEND_CUDA) {
        /* gpumask or the environment chose another backend: it stays */
        compat_log(VMAF_LOG_LEVEL_WARNING, "vmaf_cuda_import_state: this context scores on "
                   "%s (VmafConfiguration.gpumask or TVMAF_LIBVMAF_BACKEND chose it); "
                   "pictures in device memory cannot be scored", tvmaf_backend_name(b));
        return 0;
    }
    /* the context is made again, on the CUDA backend in the state's
     * context: nothing it holds is lost while nothing is registered */
    if (vmaf->registered || vmaf->next_index) {
        vmaf->cuda_bound = !cu_state->cu_ctx &&
                           tvmaf_context_backend(vmaf->tv) == TVMAF_BACKEND_CUDA;
        if (!vmaf->cuda_bound)
            compat_log(VMAF_LOG_LEVEL_WARNING, "vmaf_cuda_import_state: the state comes after "
                       "features were registered: this context keeps scoring where it does, "
                       "and pictures in device memory cannot be scored (import the state "
                       "first, as FFmpeg's libvmaf_cuda filter does)");
        return 0;
    }
    const TvmafConfiguration tc = compat_tv_config(&vmaf->cfg, TVMAF_BACKEND_CUDA,
                                                   cu_state->cu_ctx);
    TvmafContext *tv = NULL;
    int err = tvmaf_init(&tv, &tc);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_import_state: %s",
                   tv ? tvmaf_last_error(tv) : "out of memory");
        tvmaf_close(tv);
        return compat_error(err);
    }
    tvmaf_close(vmaf->tv);
    vmaf->tv = tv;
    vmaf->cuda_bound = true;
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
    if (cfg.pic_prealloc_method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE &&
        !vmaf->cuda_bound) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_preallocate_pictures: pictures in device "
                   "memory need the context on CUDA in the imported state's CUDA context "
                   "(vmaf_cuda_import_state said why not)");
        return -EINVAL;
    }
    /* host methods, page-locked or not: the caller's host memory, which
     * libtvmaf uploads itself */
    vmaf->cuda_method = cfg.pic_prealloc_method;
    vmaf->cuda_pool = (CompatPicParams){ true, w, h, bpc, cfg.pic_params.pix_fmt };
    return 0;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic) return -EINVAL;
    if (!vmaf->cuda_pool.set) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_fetch_preallocated_picture: no "
                   "pictures preallocated (vmaf_cuda_preallocate_pictures)");
        return -EINVAL;
    }
    const CompatPicParams *p = &vmaf->cuda_pool;
    if (vmaf->cuda_method != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE)
        return vmaf_picture_alloc(pic, p->pix_fmt, p->bpc, p->w, p->h);
    TvmafPicture tp;
    const int err = tvmaf_cuda_picture_alloc(vmaf->tv, &tp, (enum TvmafPixelFormat)p->pix_fmt,
                                             p->bpc, p->w, p->h, TVMAF_PICTURE_LUMA_ONLY);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_cuda_fetch_preallocated_picture: no device "
                   "picture (%s)", err == -ENOMEM ? "out of device memory" : "CUDA failed");
        return compat_error(err);
    }
    compat_picture_from_tvmaf(&tp, pic);
    return 0;
}
