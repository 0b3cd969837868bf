/*
 * What a kernel compiled for the host executor (gpu/kernel.h with TVD_HOST)
 * and the executor share: the running work-item, the rendezvous, and the
 * module's table that TVD_EMIT generates.
 */
#ifndef TVMAF_GPU_HOST_KERNEL_H
#define TVMAF_GPU_HOST_KERNEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct TvdItem {
    uint32_t lid[3], gid[3], ngroups[3], lsize[3];
} TvdItem;

/* the work-item running on this thread (set by the executor) */
extern _Thread_local const TvdItem *tvd_item;
void tvd_host_barrier(void);
uint64_t tvd_host_shfl_down_u64(uint64_t v, unsigned o);
/* an atomic addition on a fiber (never pre-empted inside it): the value before */
static inline uint32_t tvd_host_fetch_add_u32(uint32_t *p, uint32_t v)
{
    const uint32_t o = *p;
    *p = o + v;
    return o;
}

typedef struct TvdHostKernel {
    const char *name;
    void (*entry)(const void *r, void *loc);
    size_t local_size;
    unsigned group[2];
    unsigned flags;
} TvdHostKernel;

typedef struct TvdHostModule {
    const char *name;
    const TvdHostKernel *kernels;
    unsigned n_kernels;
} TvdHostModule;

#endif
