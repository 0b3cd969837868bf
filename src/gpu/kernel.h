/*
 * The dialect a twin's kernels (src/feature/F/F_kernels.h) are written in,
 * once, and compiled four ways:
 *   plan      host C, the plan's side (F_plan.c): the argument structs with
 *             views, their tables, the kernel ids and the module's table;
 *             the kernel bodies are not compiled (TVD_KERNEL_BUILD unset);
 *   CUDA      nvcc (--fmad=false), the generated F.cu;
 *   OpenCL C  the generated F.cl, built by the device at run time;
 *   host      host C with TVD_HOST (the host executor, tests only): the same
 *             bodies, every work-item run on the CPU.
 * core/hd.h gives the types, qualifiers and TVMAF_DEVICE_CODE; this header
 * adds what only kernels need: ids, barriers, local memory, atomics, warp
 * shuffles, and the macros that turn the feature's lists into entries.
 *
 * A feature's F_kernels.h holds:
 *   argument lists  #define A_LIST(V, S) V(const uint8_t, ref) S(uint32_t, w) ...
 *                   then TVD_ARGS(A): V is a device address (a TvdView in
 *                   the plan's struct A, a TVMAF_GLOBAL pointer in the
 *                   kernel's A_R), S a value;
 *   local memory    #define L_LIST(X) X(uint64_t, part, 8) ... then
 *                   TVD_LOCALS(L) (a work-group's shared struct), or
 *                   TvdNoLocals;
 *   the kernel list #define F_KERNELS(K, KC) K(name, A, L, GX, GY, FLAGS) ...
 *                   K: every executor; KC: only where the executor has
 *                   CUDA's caps (warp shuffles, 64-bit atomics), not emitted
 *                   for OpenCL;
 *   bodies          under #ifdef TVD_KERNEL_BUILD: TVD_BODY(name, A, L) { }
 *                   reading r->field and loc->array (one per sample:
 *                   TVD_FOR_SAMPLES); a body that uses CUDA-only
 *                   primitives sits under #if TVD_HAS_CUDA_CAPS.
 * The generated stub (F.cu, F.cl, F_host.c) is the two includes and
 * TVD_EMIT(F, F_KERNELS).
 */
#ifndef TVMAF_GPU_KERNEL_H
#define TVMAF_GPU_KERNEL_H

#include "core/hd.h"

#if defined(__CUDACC__) || defined(__OPENCL_VERSION__) || defined(TVD_HOST)
#define TVD_KERNEL_BUILD 1
#endif

#if !defined(__CUDACC__) && !defined(__OPENCL_VERSION__)
#include <stddef.h>
#include <stdint.h>
#endif
#if !defined(TVD_KERNEL_BUILD)
#include "gpu/tvd.h"
#endif

/* a kernel's flags (gpu/tvd.h) */
#define TVD_SYNC 1u
#define TVD_CUDA_CAPS 2u
/* FLAGS | TVD_MIN_BLOCKS(n): CUDA's __launch_bounds__ asks for n resident
 * blocks per multiprocessor (register allocation); other devices ignore it */
#define TVD_MIN_BLOCKS(n) ((unsigned)(n) << 8)

/* ---- argument structs ---- */
#define TVD_KV_(T, n) TVMAF_GLOBAL T *n;
#define TVD_KS_(T, n) T n;
#if defined(TVD_KERNEL_BUILD)
#define TVD_ARGS(A) typedef struct A##_R { A##_LIST(TVD_KV_, TVD_KS_) } A##_R;
#else
#define TVD_PV_(T, n) TvdView n;
#define TVD_TV_(T, n) { 1, _Alignof(T), sizeof(T) },
#define TVD_TS_(T, n) { 0, _Alignof(T), sizeof(T) },
#define TVD_ARGS(A)                                                                            \
    typedef struct A##_R { A##_LIST(TVD_KV_, TVD_KS_) } A##_R;                                 \
    typedef struct A { A##_LIST(TVD_PV_, TVD_KS_) } A;                                          \
    static const TvdArg A##_table[] = { A##_LIST(TVD_TV_, TVD_TS_) };
#endif

/* ---- local memory ---- */
#define TVD_LF_(T, n, N) T n[N];
#define TVD_LOCALS(L) typedef struct L { L##_LIST(TVD_LF_) } L;
typedef struct TvdNoLocals {
    char unused;
} TvdNoLocals;

#if defined(TVD_KERNEL_BUILD)

/* ---- ids, barriers, atomics, shuffles ----
 * TVD_ATOMIC_FETCH_ADD_U32 returns the value before the addition;
 * TVD_FLOAT_AS_U32 gives a float's bits. */
#if defined(__CUDACC__)
#define TVD_HAS_CUDA_CAPS 1
#define TVD_DIM_(v, d) ((d) == 0 ? v.x : (d) == 1 ? v.y : v.z)
#define TVD_LID(d) TVD_DIM_(threadIdx, d)
#define TVD_GID(d) TVD_DIM_(blockIdx, d)
#define TVD_NGROUPS(d) TVD_DIM_(gridDim, d)
#define TVD_LSIZE(d) TVD_DIM_(blockDim, d)
#define TVD_BARRIER() __syncthreads()
#define TVD_ATOMIC_ADD_U64(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define TVD_ATOMIC_ADD_U32(p, v) atomicAdd((unsigned *)(p), (unsigned)(v))
#define TVD_ATOMIC_OR_U32(p, v) atomicOr((unsigned *)(p), (unsigned)(v))
#define TVD_ATOMIC_FETCH_ADD_U32(p, v) atomicAdd((unsigned *)(p), (unsigned)(v))
#define TVD_FLOAT_AS_U32(f) __float_as_uint(f)
#define TVD_SHFL_DOWN_U64(v, o)                                                                \
    ((uint64_t)__shfl_down_sync(0xffffffffu, (unsigned long long)(v), (o)))
#define TVD_SHFL_DOWN_U32(v, o) ((uint32_t)__shfl_down_sync(0xffffffffu, (unsigned)(v), (o)))
#define TVD_FN static __device__ __forceinline__
#elif defined(__OPENCL_VERSION__)
#define TVD_HAS_CUDA_CAPS 0
#define TVD_LID(d) ((uint32_t)get_local_id(d))
#define TVD_GID(d) ((uint32_t)get_group_id(d))
#define TVD_NGROUPS(d) ((uint32_t)get_num_groups(d))
#define TVD_LSIZE(d) ((uint32_t)get_local_size(d))
#define TVD_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define TVD_ATOMIC_ADD_U32(p, v) atomic_add((p), (v))
#define TVD_ATOMIC_OR_U32(p, v) atomic_or((p), (v))
#define TVD_ATOMIC_FETCH_ADD_U32(p, v) atomic_add((p), (v))
#define TVD_FLOAT_AS_U32(f) as_uint(f)
#define TVD_FN static inline
#else /* the host executor (src/gpu/host/) */
#define TVD_HAS_CUDA_CAPS 1
#include "gpu/host/host_kernel.h"
#define TVD_LID(d) (tvd_item->lid[d])
#define TVD_GID(d) (tvd_item->gid[d])
#define TVD_NGROUPS(d) (tvd_item->ngroups[d])
#define TVD_LSIZE(d) (tvd_item->lsize[d])
#define TVD_BARRIER() tvd_host_barrier()
/* a fiber is never pre-empted inside an expression: plain read-modify-write */
#define TVD_ATOMIC_ADD_U64(p, v) (*(p) += (v))
#define TVD_ATOMIC_ADD_U32(p, v) (*(p) += (v))
#define TVD_ATOMIC_OR_U32(p, v) (*(p) |= (v))
#define TVD_ATOMIC_FETCH_ADD_U32(p, v) tvd_host_fetch_add_u32((p), (v))
#define TVD_FLOAT_AS_U32(f) (((union { float f_; uint32_t u_; }){ .f_ = (f) }).u_)
#define TVD_SHFL_DOWN_U64(v, o) tvd_host_shfl_down_u64((v), (o))
#define TVD_SHFL_DOWN_U32(v, o) ((uint32_t)tvd_host_shfl_down_u64((v), (o)))
#define TVD_FN static inline
#endif

/* A kernel's body: one work-item's work. */
/* (a body without local memory does not read loc) */
#define TVD_BODY(name, A, L)                                                                   \
    TVD_FN void name##_body(const A##_R *r, TVMAF_LOCAL L *loc __attribute__((unused)))

/* A per-sample body over a w x h plane in groups of bw x bh work-items: x is
 * the work-item's column (a work-item past the plane's width returns), y
 * its rows: its group's row, then one grid height further each time, so a
 * grid with fewer groups than the plane has rows still covers it. The loop's
 * statement follows the macro. */
#define TVD_FOR_SAMPLES(w, h, bw, bh)                                                          \
    const int x = (int)(TVD_GID(0) * (bw) + TVD_LID(0));                                       \
    if (x >= (w)) return;                                                                      \
    for (int y = (int)(TVD_GID(1) * (bh) + TVD_LID(1)); y < (h);                               \
         y += (int)(TVD_NGROUPS(1) * (bh)))

/* ---- entries ---- */
#define TVD_SKIP_(name, A, L, GX, GY, FLAGS)
#if defined(__CUDACC__)
#define TVD_CUDA_ENTRY_(name, A, L, GX, GY, FLAGS)                                             \
    extern "C" __global__ void __launch_bounds__((GX) * (GY), ((FLAGS) >> 8) & 0xffu)          \
        name(const A##_R r)                                                                    \
    {                                                                                          \
        __shared__ L loc;                                                                      \
        name##_body(&r, &loc);                                                                 \
    }
#define TVD_EMIT(F, LIST) LIST(TVD_CUDA_ENTRY_, TVD_CUDA_ENTRY_)
#elif defined(__OPENCL_VERSION__)
/* A view is two arguments: the buffer and a byte offset. A last unused
 * argument closes the list. */
#define TVD_OV_(T, n) __global uchar *n##_b, ulong n##_o,
#define TVD_OS_(T, n) T n,
#define TVD_OIV_(T, n) (__global T *)(n##_b + n##_o),
#define TVD_OIS_(T, n) n,
#define TVD_OPENCL_ENTRY_(name, A, L, GX, GY, FLAGS)                                           \
    __kernel __attribute__((reqd_work_group_size(GX, GY, 1))) void name(                       \
        A##_LIST(TVD_OV_, TVD_OS_) uint tvd_end)                                               \
    {                                                                                          \
        __local L loc;                                                                         \
        const A##_R r = { A##_LIST(TVD_OIV_, TVD_OIS_) };                                      \
        name##_body(&r, &loc);                                                                 \
    }
#define TVD_EMIT(F, LIST) LIST(TVD_OPENCL_ENTRY_, TVD_SKIP_)
#else
#define TVD_HOST_ENTRY_(name, A, L, GX, GY, FLAGS)                                             \
    static void name##_host(const void *r, void *loc)                                          \
    {                                                                                          \
        name##_body((const A##_R *)r, (L *)loc);                                               \
    }
#define TVD_HOST_ROW_(name, A, L, GX, GY, FLAGS) { #name, name##_host, sizeof(L), sizeof(A##_R), { GX, GY }, FLAGS },
#define TVD_EMIT(F, LIST)                                                                      \
    LIST(TVD_HOST_ENTRY_, TVD_HOST_ENTRY_)                                                     \
    static const TvdHostKernel tvd_host_kernels_##F[] = { LIST(TVD_HOST_ROW_, TVD_HOST_ROW_) }; \
    const TvdHostModule tvd_host_module_##F = {                                                \
        #F, tvd_host_kernels_##F, sizeof(tvd_host_kernels_##F) / sizeof(tvd_host_kernels_##F[0]) \
    };
#endif

#else /* the plan's side */

/* The module's table and ids: TVD_MODULE(F, F_KERNELS) in F_plan.c. */
#define TVD_MODULE(F, LIST)                                                                    \
    enum { LIST(TVD_KERNEL_ID, TVD_KERNEL_ID) TVD_N_KERNELS_##F };                             \
    static const TvdKernel tvd_kernels_##F[] = { LIST(TVD_KERNEL_ROW, TVD_KERNEL_ROW) };

#endif

#endif
