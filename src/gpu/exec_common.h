/*
 * What the backends of src/gpu/ (core/backend.h) and their executors
 * (gpu/twin.h) write the same way. Included after the backend's
 * TvmafDeviceFrame is defined: the frame functions read its fields
 * (n_planes, pw, ph, pitch, plane and, for the layout, bytes_per_sample,
 * copy_bytes and size), which every backend's frame names alike.
 */
#ifndef TVMAF_GPU_EXEC_COMMON_H
#define TVMAF_GPU_EXEC_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "core/picture_pool.h"
#include "gpu/twin.h"

/* The monotonic clock, in milliseconds (the statistics' times). */
static inline double tvd_mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/*
 * A device frame's layout: that of tvmaf_picture_alloc's pictures, luma
 * first, so the luma alone is a prefix. Sets the planes (n_planes: 1 for a
 * luma-only format), their sizes and pitches, the bytes per sample,
 * copy_bytes (one picture: its luma, or all of it) and size (the reference,
 * then the distorted); off[p]: plane p's byte offset in a picture.
 */
static inline int tvd_frame_layout(TvmafDeviceFrame *f, const TvmafVideoInfo *vi,
                                   unsigned n_planes, size_t off[3])
{
    size_t stride[3], total;
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, f->pw, f->ph) ||
        tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    f->n_planes = vi->pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : n_planes;
    f->bytes_per_sample = vi->bpc > 8 ? 2 : 1;
    f->copy_bytes = f->n_planes == 1 ? stride[0] * f->ph[0] : total;
    f->size = 2 * f->copy_bytes;
    for (unsigned p = 0; p < f->n_planes; p++) f->pitch[p] = stride[p];
    return 0;
}

/* TvdExec.plane and .planes: plane p of the reference (dis 0) or the
 * distorted picture is at the executor's address f->plane[dis][p]. */
static inline void tvd_exec_plane(TvdTwin *t, const TvmafDeviceFrame *f, int dis, unsigned p,
                                  TvdView *v, uint64_t *pitch)
{
    (void)t;
    v->off = (uint64_t)(uintptr_t)f->plane[dis ? 1 : 0][p];
    v->size = (uint64_t)f->pitch[p] * f->ph[p];
    *pitch = f->pitch[p];
}

static inline unsigned tvd_exec_planes(const TvmafDeviceFrame *f)
{
    return f->n_planes;
}

/* An arena executor's bind: the bytes of the arena (every buffer at its
 * offset, gpu/twin.h) and of the block of mirrors, laid out alike... */
static inline void tvd_exec_arena(const TvdTwin *t, size_t *dev, size_t *host)
{
    *dev = *host = 0;
    for (unsigned i = 0; i < t->n_buf; i++) {
        *dev = t->buf[i].off + t->buf[i].size;
        if (t->buf[i].flags & TVD_MIRROR) *host = t->buf[i].off + t->buf[i].size;
    }
}

/* ...then, once both are allocated, each buffer's address (the arena's
 * `base` + its offset) and its mirror's. */
static inline void tvd_exec_place(TvdTwin *t, uint64_t base, void *mirrors)
{
    for (unsigned i = 0; i < t->n_buf; i++) {
        t->buf[i].addr = base + t->buf[i].off;
        if (t->buf[i].flags & TVD_MIRROR) t->buf[i].mirror = (char *)mirrors + t->buf[i].off;
    }
}

/* The TvdExec members every executor defines, by these names. */
#define TVD_EXEC_OPS                                                                          \
    .open = open_x, .bind = bind, .upload = upload, .begin = begin, .plane = tvd_exec_plane,  \
    .planes = tvd_exec_planes, .fill = fill, .copy = copy, .download = download,              \
    .launch = launch, .sync = sync_x, .end = end, .close = close_x

/* The TvmafBackendOps members every backend defines, by these names. */
#define TVD_BACKEND_OPS                                                                       \
    .available = available, .open = open_gpu, .ready = ready, .frames_alloc = frames_alloc,   \
    .frame_upload = frame_upload, .frame_done = frame_done,                                   \
    .frame_submitted = frame_submitted, .stats = stats, .close = close_gpu

#endif
