/*
 * A context's device-memory budget (TvmafConfiguration.gpu_mem_limit,
 * --gpu-mem-limit), kept the same way by every GPU backend: a backend takes
 * the bytes before it allocates and gives them back when it frees (or when
 * the allocation itself fails). limit 0: no limit, the bytes are only
 * counted (the statistics print them).
 */
#ifndef TVMAF_CORE_DEVICE_BUDGET_H
#define TVMAF_CORE_DEVICE_BUDGET_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

typedef struct TvmafDeviceBudget {
    size_t limit;
    _Atomic size_t used;
} TvmafDeviceBudget;

/* 0, or -ENOMEM with why ("out of device memory: ...") when `size` more
 * bytes would pass the limit. */
static inline int tvmaf_budget_take(TvmafDeviceBudget *b, size_t size, char *why, size_t len)
{
    size_t used = atomic_load(&b->used);
    do {
        if (b->limit && (size > b->limit || used > b->limit - size)) {
            snprintf(why, len, "out of device memory: %zu more bytes would pass the limit of "
                     "%zu (%zu in use)", size, b->limit, used);
            return -ENOMEM;
        }
    } while (!atomic_compare_exchange_weak(&b->used, &used, used + size));
    return 0;
}

static inline void tvmaf_budget_give(TvmafDeviceBudget *b, size_t size)
{
    atomic_fetch_sub(&b->used, size);
}

#endif
