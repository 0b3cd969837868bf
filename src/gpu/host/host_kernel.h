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

/* Thread-locals read on every work-item's every id: the initial-exec model
 * (a plain load, not a call) also where the kernels are a shared library
 * (the tests' CUDA driver stand-in); the few bytes fit the static TLS space
 * that glibc keeps for libraries loaded later. */
#define TVD_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* the work-item running on this thread (set by the executor) */
extern TVD_TLS const TvdItem *tvd_item;
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
    size_t args_size; /* the argument struct's */
    unsigned group[2];
    unsigned flags;
} TvdHostKernel;

typedef struct TvdHostModule {
    const char *name;
    const TvdHostKernel *kernels;
    unsigned n_kernels;
} TvdHostModule;

/* Guarded memory: `size` bytes against a PROT_NONE page, poisoned. */
void *tvd_host_map(size_t size);
void tvd_host_unmap(void *p, size_t size);
void tvd_host_poison(void *p, size_t size);

/* TVD_HOST_SEED, or the default seed of the orders and poison. */
uint64_t tvd_host_seed_base(void);

/* Installs (once per process) the handler that turns a fault in a kernel
 * into a message naming the kernel, group and item; `describe`, if given,
 * names what the faulting address is (NULL: outside a buffer). */
void tvd_host_install_fault_handler(const char *(*describe)(const void *addr));

/* Runs every work-item of one launch of hk (grid in groups, block in
 * items), on the calling thread: groups in an order drawn from *seed, a
 * TVD_SYNC kernel's items as fibers. `feature` names it in messages.
 * -EINVAL for an empty or oversized launch, -ENOMEM. */
int tvd_host_run(const TvdHostKernel *hk, const char *feature, const unsigned grid[3],
                 const unsigned block[3], const void *kargs, uint64_t *seed);
#endif
