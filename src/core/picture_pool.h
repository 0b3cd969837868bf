/*
 * Where picture buffers come from. By default plain aligned memory; a
 * backend that copies pictures to a device installs an allocator of
 * page-locked memory while a context uses it, so its uploads go straight
 * from the picture (no staging copy, truly asynchronous DMA).
 */
#ifndef TVMAF_CORE_PICTURE_POOL_H
#define TVMAF_CORE_PICTURE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "tvmaf/tvmaf.h"

typedef struct TvmafHostAllocator {
    void *(*alloc)(void *opaque, size_t size); /* 64-byte aligned or better */
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} TvmafHostAllocator;

/* New picture buffers come from `a` (NULL: the default) from now on. */
void tvmaf_picture_set_allocator(const TvmafHostAllocator *a);
/* Frees the cached free buffers of `a` and stops using it for new ones;
 * pictures still held keep their buffer until unref'd. */
void tvmaf_picture_cache_drop(const TvmafHostAllocator *a);
/* Buffers allocated so far (cache misses), for the steady-state counts. */
unsigned long long tvmaf_picture_alloc_count(void);
/* Whether the picture's buffer came from `a`. */
bool tvmaf_picture_is_pinned(const TvmafPicture *pic, const TvmafHostAllocator *a);

#endif
