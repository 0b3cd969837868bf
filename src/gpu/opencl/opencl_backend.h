/*
 * The OpenCL backend behind core's backend interface (core/backend.h): a
 * context's device (TvmafGpu, as this backend defines it: one OpenCL context
 * on the chosen device, its programs, its memory budget), the per-worker
 * device frames and the statistics. Twins reach the device through the twin
 * base's OpenCL executor (opencl_exec.c, gpu/twin.h), which uses the calls
 * below.
 */
#ifndef TVMAF_GPU_OPENCL_BACKEND_H
#define TVMAF_GPU_OPENCL_BACKEND_H

#include <stdbool.h>

#include "core/backend.h"
#include "gpu/opencl/opencl_runtime.h"
#include "gpu/twin.h"

extern const TvmafBackendOps tvmaf_backend_opencl;

const TvmafClDeviceInfo *tvmaf_opencl_gpu_device(TvmafGpu *gpu);
/* Whether twins may compute in fp64 here: the device has cl_khr_fp64 and the
 * context's opencl_fp64 is not OFF. */
bool tvmaf_opencl_gpu_fp64(const TvmafGpu *gpu);
/* tvd_count_decided's counts, printed by --gpu-stats (the executor's
 * count_decided, gpu/twin.h) */
void tvmaf_opencl_gpu_count_decided(TvdTwin *t, unsigned long long n, unsigned long long of);

/* Device memory counted against the context's limit (gpu_mem_limit): past
 * it, -ENOMEM with a message naming the limit (tvmaf_cl_last_error). Release
 * with the size allocated. */
int tvmaf_opencl_gpu_alloc(TvmafGpu *gpu, cl_mem *mem, size_t size);
void tvmaf_opencl_gpu_free(TvmafGpu *gpu, cl_mem mem, size_t size);

/*
 * The program `name` of this context, built on first use from `source` (the
 * embedded OpenCL C text) with the backend's options (-cl-std=CL1.2, and
 * -cl-fp32-correctly-rounded-divide-sqrt where the device has it) followed by
 * `options`; every later call, from any twin instance, returns the same
 * program. A program that does not build returns -EINVAL with the start of
 * the compiler's log in `msg`.
 */
int tvmaf_opencl_gpu_program(TvmafGpu *gpu, const char *name, const char *source,
                             const char *options, cl_program *prog, char *msg, size_t msg_len);

/* Copies host data into a buffer at byte `off` and waits (set-up: tables,
 * constants). */
int tvmaf_opencl_gpu_upload(TvmafGpu *gpu, cl_mem dst, size_t off, const void *src, size_t size);

#endif
