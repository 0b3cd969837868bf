/*
 * Qualifier for arithmetic written once and compiled as host C (the CPU
 * extractor) and as CUDA (the twin's kernels): TVMAF_HD marks a function both
 * may call. TVMAF_DEVICE_CODE is true only while compiling device code, the one
 * place where a math header may choose a different (correctly rounded)
 * implementation of a libm call.
 */
#ifndef TVMAF_CORE_HD_H
#define TVMAF_CORE_HD_H

#if defined(__CUDACC__)
#define TVMAF_HD static __host__ __device__ __forceinline__
#else
#define TVMAF_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define TVMAF_DEVICE_CODE 1
#else
#define TVMAF_DEVICE_CODE 0
#endif

#endif
