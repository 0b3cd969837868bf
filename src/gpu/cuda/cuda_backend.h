/*
 * The CUDA backend behind core's backend interface (core/backend.h): a
 * context's device (TvmafGpu, as this backend defines it), its memory budget,
 * the per-worker device frames and the statistics. Twins reach the device
 * through the twin base's CUDA executor (cuda_exec.c, gpu/twin.h), which uses
 * the calls below.
 */
#ifndef TVMAF_GPU_CUDA_BACKEND_H
#define TVMAF_GPU_CUDA_BACKEND_H

#include <stdbool.h>

#include "core/backend.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/twin.h"

extern const TvmafBackendOps tvmaf_backend_cuda;

/* The context's device (open: the context waited for it before any twin's
 * init). */
TvmafCudaDevice *tvmaf_cuda_gpu_device(TvmafGpu *gpu);

/* Device memory counted against the context's limit (gpu_mem_limit): past
 * it, -ENOMEM with a message naming the limit (tvmaf_cuda_last_error). Free
 * with the size allocated. Context current. */
int tvmaf_cuda_gpu_alloc(TvmafGpu *gpu, CUdeviceptr *ptr, size_t size);
void tvmaf_cuda_gpu_free(TvmafGpu *gpu, CUdeviceptr ptr, size_t size);

/* Whether this context is a ladder's pair, sharing its reference pictures
 * with other contexts (host results too: tvmaf_picture_once on the frame's
 * ref_pic): the executor's shares_reference (gpu/twin.h). */
bool tvmaf_cuda_gpu_shares_reference(TvdTwin *t);
/* The executor's ref_slot: a twin's reference-side results, shared by the
 * pairs of a ladder. At init, a twin declares an area of `bytes` per
 * reference picture under its `key` (the same key and size from each of its
 * instances, and from each context of the ladder). *slot is the slot to pass
 * to tvmaf_cuda_frame_ref_derived, or TVD_NO_SLOT when this context shares
 * no reference (not a ladder): the twin then computes everything itself. */
int tvmaf_cuda_gpu_ref_derived(TvdTwin *t, const char *key, size_t bytes, unsigned *slot);

#endif
