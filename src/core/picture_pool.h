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

/*
 * The layout of tvmaf_picture_alloc's pictures: planes back to back in one
 * buffer, plane p at byte off[p], its rows stride[p] bytes apart (64-byte
 * aligned); `total` bytes in all. A device copy with the same layout is one
 * contiguous copy of the picture.
 */
int tvmaf_picture_layout(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                         size_t stride[3], size_t off[3], size_t *total);
/* Whether a picture's planes lie as tvmaf_picture_layout says. */
bool tvmaf_picture_has_layout(const TvmafPicture *pic);

/* New picture buffers come from `a` (NULL: the default) from now on. */
void tvmaf_picture_set_allocator(const TvmafHostAllocator *a);
/*
 * For a backend's contexts: new picture buffers come from `a` while at least
 * one context that installed it is open (the most recently installed of
 * those open, when several allocators are: pictures belong to no context,
 * so the allocator is the process's). Uninstalling the last install of `a`
 * drops its cached buffers (tvmaf_picture_cache_drop) and returns to the
 * allocator installed before it. A context that uploads a picture from
 * another allocator copies it (its own staging), so the bits never depend
 * on which allocator a picture came from.
 */
void tvmaf_picture_allocator_install(const TvmafHostAllocator *a);
void tvmaf_picture_allocator_uninstall(const TvmafHostAllocator *a);
/* Frees the cached free buffers of `a` and stops using it for new ones;
 * pictures still held keep their buffer until unref'd. */
void tvmaf_picture_cache_drop(const TvmafHostAllocator *a);
/* Buffers allocated so far (cache misses), for the steady-state counts. */
unsigned long long tvmaf_picture_alloc_count(void);
/* Whether the picture's buffer came from `a`. */
bool tvmaf_picture_is_pinned(const TvmafPicture *pic, const TvmafHostAllocator *a);

#endif
