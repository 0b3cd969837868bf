/*
 * Qualifier for arithmetic written once and compiled as host C (the CPU
 * extractor), as CUDA and as OpenCL C (the twins' kernels): TVMAF_HD marks a
 * function they all may call. TVMAF_DEVICE_CODE is true only while compiling
 * device code, the one place where a math header may choose a different
 * (correctly rounded) implementation of a libm call.
 *
 * OpenCL C has no stdint.h and, on the devices tvmaf targets (NVIDIA's
 * OpenCL, PoCL), no generic address space: a pointer parameter without a
 * qualifier is private memory. So under OpenCL this header defines the fixed-
 * width integer types (OpenCL C's are fixed-width: char 8, short 16, int 32,
 * long 64 bits), TVMAF_GLOBAL, the qualifier of a pointer parameter that
 * points into a frame or another device buffer, and TVMAF_LOCAL, that of one
 * pointing into a work-group's local memory (CUDA's shared memory); both are
 * empty on host and CUDA, so those builds compile the same text as before.
 * TVMAF_FN_TABLE declares a constant table inside a function: static const
 * where C and CUDA allow it, a const (constant-initialised) local array in
 * OpenCL C, which has no function-scope statics.
 * Contraction is off, as -ffp-contract=off on the host and --fmad=false in
 * CUDA: OpenCL C's FP_CONTRACT defaults to on.
 */
#ifndef TVMAF_CORE_HD_H
#define TVMAF_CORE_HD_H

#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
#ifndef INT32_MIN
#define INT32_MIN (-2147483647 - 1)
#endif
#define UINT64_C(c) c##UL
/* C99's float names of the functions OpenCL C overloads that the kernels
 * call, for those whose result is exact (sqrt under
 * -cl-fp32-correctly-rounded-divide-sqrt, which the backend asks for on
 * every device that has it). Rounded ones (expf, logf, powf ...) are not
 * correctly rounded anywhere and get no name here. */
#define fabsf(x) fabs((float)(x))
#define sqrtf(x) sqrt((float)(x))
#define floorf(x) floor((float)(x))
#define ceilf(x) ceil((float)(x))
#define TVMAF_HD static inline
#define TVMAF_GLOBAL __global
#define TVMAF_LOCAL __local
#define TVMAF_FN_TABLE const
/* A program that defines TVMAF_FP64_FREE before its first include may not
 * name the double type: any use becomes an unknown type and the build fails,
 * on every device (PoCL accepts double even with cl_khr_fp64 disabled).
 * scripts/opencl_kernels.py also rejects its double literals at build time. */
#if defined(TVMAF_FP64_FREE)
#define double tvmaf_fp64_free_program_uses_double
#endif
#elif defined(__CUDACC__)
#define TVMAF_HD static __host__ __device__ __forceinline__
#define TVMAF_GLOBAL
#define TVMAF_LOCAL
#define TVMAF_FN_TABLE static const
#else
#define TVMAF_HD static inline
#define TVMAF_GLOBAL
#define TVMAF_LOCAL
#define TVMAF_FN_TABLE static const
#endif

#if defined(__CUDA_ARCH__) || defined(__OPENCL_VERSION__)
#define TVMAF_DEVICE_CODE 1
#else
#define TVMAF_DEVICE_CODE 0
#endif

/* True in every build of a twin's kernels: the device passes and the host
 * executor's build (TVD_HOST, gpu/kernel.h). Where a math header gives the
 * devices their own plain-C arithmetic (a table instead of a libm call), it
 * chooses it with this, so the host executor checks what the devices
 * compute; TVMAF_DEVICE_CODE stays for what only a device compiler has. */
#if TVMAF_DEVICE_CODE || defined(TVD_HOST)
#define TVMAF_KERNEL_CODE 1
#else
#define TVMAF_KERNEL_CODE 0
#endif

#endif
