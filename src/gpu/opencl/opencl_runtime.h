/*
 * The OpenCL runtime shared by every OpenCL twin: the ICD loader, the list of
 * devices, error messages. It knows nothing about features.
 *
 * The library never links libOpenCL: the loader (libOpenCL.so.1, the Khronos
 * ICD loader that dispatches to every installed platform: PoCL, NVIDIA's,
 * ...) is opened with dlopen at run time, so a machine without it, or without
 * any platform, gets -ENODEV and the CPU backend. CL/cl.h is included for its
 * types only; twins call the API through tvmaf_cl (the loaded entry points).
 *
 * Devices. tvmaf numbers every GPU, CPU and accelerator device of every
 * platform, platforms in the loader's order and devices in the platform's
 * order: --gpu N picks the Nth (0: the first). On a machine with NVIDIA's
 * OpenCL and PoCL both registered, the order is the ICD loader's (the order
 * of /etc/OpenCL/vendors); TVMAF_OPENCL_DEVICE_LIST=1 (or --gpu-stats) prints
 * the list to stderr.
 *
 * Errors. Every function returning int returns 0 or a negative errno:
 * -ENODEV (no loader, no platform, no such device), -ENOMEM (device or host
 * memory exhausted), -EINVAL (bad argument, a program that does not build),
 * -EIO (any other OpenCL error). The message of the last failure on the
 * calling thread, naming the OpenCL call and error ("clEnqueueNDRangeKernel:
 * CL_OUT_OF_RESOURCES"), is returned by tvmaf_cl_last_error().
 */
#ifndef TVMAF_GPU_OPENCL_RUNTIME_H
#define TVMAF_GPU_OPENCL_RUNTIME_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* The entry points tvmaf uses (OpenCL 1.2), loaded from libOpenCL.so.1. */
#define TVMAF_CL_FUNCTIONS(X)                                                                \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)             \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue)                            \
    X(clReleaseCommandQueue) X(clCreateBuffer) X(clReleaseMemObject)                          \
    X(clCreateProgramWithSource) X(clBuildProgram) X(clGetProgramBuildInfo)                   \
    X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg)                \
    X(clEnqueueNDRangeKernel) X(clEnqueueWriteBuffer) X(clEnqueueWriteBufferRect)             \
    X(clEnqueueReadBuffer) X(clEnqueueFillBuffer) X(clEnqueueCopyBuffer) X(clFinish)

typedef struct TvmafClApi {
#define TVMAF_CL_MEMBER(fn) __typeof__(fn) *fn;
    TVMAF_CL_FUNCTIONS(TVMAF_CL_MEMBER)
#undef TVMAF_CL_MEMBER
} TvmafClApi;

/* The loaded entry points; valid once tvmaf_cl_device_count() returned > 0. */
extern TvmafClApi tvmaf_cl;

typedef struct TvmafClDeviceInfo {
    cl_platform_id platform;
    cl_device_id device;
    char name[128];
    char platform_name[128];
    char version[128];       /* CL_DEVICE_VERSION */
    cl_device_type type;
    int fp64;                /* cl_khr_fp64 */
    int cr_divide_sqrt;      /* correctly rounded fp32 division and square root available */
} TvmafClDeviceInfo;

/* Message of the last failed call on this thread ("" if none); set stores a
 * caller's own failure there. */
const char *tvmaf_cl_last_error(void);
void tvmaf_cl_set_last_error(const char *what);
/* Records the failure of OpenCL call `what` with status `r` and returns its
 * errno (0 for CL_SUCCESS, which records nothing). */
int tvmaf_cl_check(cl_int r, const char *what);

/* Devices usable by tvmaf (0 without a loader or platform); the first call
 * loads the loader and lists the devices, once per process. */
int tvmaf_cl_device_count(void);
/* Device `index` of that list, or NULL. */
const TvmafClDeviceInfo *tvmaf_cl_device(unsigned index);
/* Prints the list, one line per device, to stderr. */
void tvmaf_cl_device_list_print(void);

/*
 * --backend auto: device `index` of the list when it is a GPU or accelerator
 * that auto may take, else NULL (a CPU device, no such device, no GPU here).
 *
 * Not tvmaf_cl_device: the ICD loader opens every registered platform, and on
 * a machine without a GPU that is PoCL, a CPU driver auto declines anyway
 * (the CPU backend outruns it). Loading it made every auto run of a tiny pair
 * (2 frames of 576x324, 40 ms on the CPU) 40 ms and 59 MB of RSS dearer, and
 * under an address-space limit PoCL aborted the process (SIGABRT in its
 * thread pool's start-up) where the CPU backend reports out of memory. So:
 *
 * 1. The loader is opened only where an OpenCL GPU can be present: a GPU
 *    device node exists (/dev/dri/renderD*, /dev/kfd, /dev/nvidia<N>,
 *    /dev/dxg, /dev/mali<N>, /dev/kgsl-3d<N>, /dev/accel/accel<N>) AND a
 *    platform that can drive it is registered: an ICD other than PoCL's
 *    (/etc/OpenCL/vendors/(*).icd, what OCL_ICD_VENDORS, OPENCL_VENDOR_PATH or
 *    OCL_ICD_FILENAMES add), or PoCL told to use a driver other than its
 *    CPU's (POCL_DEVICES=cuda, level0, ...). A few stat/readdir calls, tens
 *    of microseconds. Both, not either: most desktops have a render node (an
 *    integrated GPU) with only PoCL registered, and a vendor ICD without a
 *    node is a driver installed in a container given no GPU.
 * 2. There, the devices are listed first in a child process (fork): a driver
 *    that aborts or crashes while starting kills the child, not the caller,
 *    and auto says once on stderr "tvmaf WARNING OpenCL probe failed (signal
 *    6: Aborted); using the CPU" (likewise a child that exits with an error
 *    or gives no answer in 30 s) and returns NULL. Only when the child listed
 *    a GPU at `index` is the loader opened in this process (the device is
 *    then opened here; on such a machine the driver starts twice).
 *
 * TVMAF_OPENCL_AUTO=probe skips step 1 (always probes, in the child: for a
 * platform step 1 cannot see, e.g. PoCL built with its CUDA driver and no
 * POCL_DEVICES); TVMAF_OPENCL_AUTO=off (or 0) keeps auto off OpenCL. Once
 * this process has listed the devices (tvmaf_cl_device_count: --backend
 * opencl, tvmaf_gpu_count), auto reads that list and probes nothing.
 * --backend opencl lists the devices in this process, as before (PoCL's
 * included).
 */
const TvmafClDeviceInfo *tvmaf_cl_auto_device(unsigned index);

/* For tests: the kernel launch after `after` more launches fails (-EIO), and
 * every one after it; negative: no failure injected. */
void tvmaf_cl_inject_launch_failure(long after);
/* For tests: twins opened from now on see the devices without these
 * capabilities (0: as they are), so that a twin's refusal on a device that
 * lacks what it needs can be tested on one that has it. */
enum {
    TVMAF_CL_CAP_FP64 = 1u << 0,        /* cl_khr_fp64 */
    TVMAF_CL_CAP_CR_DIV_SQRT = 1u << 1, /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT */
};
void tvmaf_cl_test_withhold_caps(unsigned caps);
unsigned tvmaf_cl_withheld_caps(void);
/* clEnqueueNDRangeKernel with the failure injection and error message;
 * local may be NULL. */
int tvmaf_cl_launch(cl_command_queue q, cl_kernel k, unsigned dims, const size_t *global,
                    const size_t *local);

#endif
