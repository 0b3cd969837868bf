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
#include <stdint.h>

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
/*
 * Pictures whose planes are in a device's memory (the CUDA backend's
 * tvmaf_cuda_picture_alloc): the planes lie as tvmaf_picture_layout says
 * from device address `dev` (`size` bytes: the luma plane alone when
 * luma_only, whose chroma data pointers are then NULL). References, serials
 * and the per-picture results work as for host pictures; when the last
 * reference goes, mem->free(opaque, dev, size) takes the memory back. No
 * host code reads such planes: a backend copies them on the device.
 */
typedef struct TvmafDeviceMemory {
    void (*free)(void *opaque, uintptr_t dev, size_t size);
} TvmafDeviceMemory;
int tvmaf_picture_wrap_device(TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc,
                              unsigned w, unsigned h, bool luma_only, uintptr_t dev,
                              size_t size, const TvmafDeviceMemory *mem, void *opaque);
/*
 * A picture whose planes are host memory the library does not own, laid out
 * as tvmaf_picture_layout says from `base` (64-byte aligned): a raw video
 * file's frame in a read-only mapping, scored where it lies. The planes are
 * only read. When the last reference goes, release(opaque). -EINVAL when
 * base is not aligned or the format is not one.
 */
int tvmaf_picture_wrap_host(TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc,
                            unsigned w, unsigned h, const void *base,
                            void (*release)(void *opaque), void *opaque);
/* The `opaque` of a device picture (its device), NULL for a host picture. */
void *tvmaf_picture_device(const TvmafPicture *pic);
/* Whether a device picture carries its luma plane only. */
bool tvmaf_picture_luma_only(const TvmafPicture *pic);

/* Buffers allocated so far (cache misses), for the steady-state counts. */
unsigned long long tvmaf_picture_alloc_count(void);
/* Whether the picture's buffer came from `a`. */
bool tvmaf_picture_is_pinned(const TvmafPicture *pic, const TvmafHostAllocator *a);

/*
 * Work done once per picture for every context that holds it. The contexts
 * of a ladder (one reference, several distorted inputs) share each
 * reference picture (tvmaf_picture_ref), so a result that depends on
 * reference pictures alone is computed by the first holder to ask and read
 * by the others: they wait while it computes. The result is keyed by `tag`
 * (a feature's own address: what is computed) and `key` (the other inputs
 * it reads, such as tvmaf_picture_serial of a previous picture); it lives
 * until a caller's reference is the only one left (the planes cannot change
 * before: while several references exist nobody writes them, and a
 * context's references are only read, tvmaf_picture_hand_over); that
 * caller may write them, so the results go and the serial changes. fn fills *value and
 * returns 0, or a negative errno that the caller gets (nothing is kept: the
 * next holder computes again). A picture the library did not allocate, or
 * one whose few slots are taken, runs fn every time. The value is
 * whatever fn computed, so it is the same bits as running fn there.
 */
int tvmaf_picture_once(const TvmafPicture *pic, const void *tag, uint64_t key,
                       int (*fn)(void *arg, uint64_t *value), void *arg, uint64_t *value);
/*
 * The same for a result of `bytes` bytes kept in memory the picture owns:
 * fn fills `area` (returns 0, or a negative errno that the caller gets and
 * nothing is kept) and *area points to the result, read-only for every
 * holder and valid while the caller holds its reference to pic (an area is
 * freed or reused only once no holder is left). *area = NULL with 0
 * returned when nothing can be kept (a picture the library did not
 * allocate, every slot taken, no memory): fn was not called, and the caller
 * computes the result in its own memory.
 */
int tvmaf_picture_once_area(const TvmafPicture *pic, const void *tag, uint64_t key, size_t bytes,
                            int (*fn)(void *arg, void *area), void *arg, const void **area);
/* This reference now belongs to a context (tvmaf_read_pictures), which
 * only reads the planes: when it is the one reference left, the results
 * kept with the picture stay (a caller's last reference may write the
 * planes, so there they go). References made from it are a context's too. */
void tvmaf_picture_hand_over(TvmafPicture *pic);
/* Areas computed so far in this process, and areas read by a holder from
 * another's computation (for tests and statistics). */
void tvmaf_picture_once_area_counts(unsigned long long *computed, unsigned long long *shared);
/* A number naming this picture's contents, never given twice in a process:
 * new at tvmaf_picture_alloc and when a caller's reference is left alone
 * (see above); references share it. 0 for a picture the library
 * did not allocate. */
uint64_t tvmaf_picture_serial(const TvmafPicture *pic);

#endif
