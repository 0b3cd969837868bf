#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gpu/cuda/cuda_backend.h"
#include "gpu/cuda/device_frame.h"
#include "gpu/exec_common.h"

int tvmaf_cuda_frame_alloc(TvmafDeviceFrame *f, TvmafGpu *gpu, const TvmafVideoInfo *vi,
                           unsigned n_planes)
{
    memset(f, 0, sizeof(*f));
    int err = tvd_frame_layout(f, vi, n_planes, f->off);
    if (err) return err;
    err = tvmaf_cuda_gpu_alloc(gpu, &f->d_buf, f->size);
    if (!err) err = tvmaf_cuda_stream_create(&f->stream);
    if (!err) err = tvmaf_cuda_event_create_sync_only(&f->ready);
    if (!err) err = tvmaf_cuda_span_init(&f->span);
    if (err) {
        tvmaf_cuda_frame_free(f, gpu);
        return err;
    }
    for (unsigned p = 0; p < f->n_planes; p++) {
        f->plane[0][p] = f->d_buf + f->off[p];
        f->plane[1][p] = f->d_buf + f->copy_bytes + f->off[p];
    }
    return 0;
}

void tvmaf_cuda_frame_free(TvmafDeviceFrame *f, TvmafGpu *gpu)
{
    if (f->stream) tvmaf_cuda_stream_synchronize(f->stream);
    tvmaf_cuda_frame_release(f);
    tvmaf_cuda_span_destroy(&f->span);
    tvmaf_cuda_event_destroy(f->ready);
    tvmaf_cuda_stream_destroy(f->stream);
    tvmaf_cuda_gpu_free(gpu, f->d_buf, f->size);
    tvmaf_cuda_stage_free(f->h_stage, f->size);
    memset(f, 0, sizeof(*f));
}

/* Queues one picture's planes into the device planes `dst`. */
static int upload_picture(TvmafDeviceFrame *f, const TvmafPicture *pic, const CUdeviceptr *dst)
{
    if (tvmaf_picture_has_layout(pic))
        return tvmaf_cuda_copy_h2d(dst[0], pic->data[0], f->copy_bytes, f->stream);
    for (unsigned p = 0; p < f->n_planes; p++) {
        const size_t row = (size_t)f->pw[p] * f->bytes_per_sample;
        int err = tvmaf_cuda_copy_h2d_2d(dst[p], f->pitch[p], pic->data[p],
                                         (size_t)pic->stride[p], row, f->ph[p], f->stream);
        if (err) return err;
    }
    return 0;
}

/* The reference from the ladder's cache: uploaded into the picture's entry
 * unless another worker did (then this frame's stream waits for that
 * upload). Staged through the first half of the staging buffer. */
static int upload_shared_ref(TvmafDeviceFrame *f, const TvmafPicture *ref, uint64_t serial,
                             const TvmafHostAllocator *pinned)
{
    bool fill;
    tvmaf_cuda_ref_cache_get(f->cache, serial, &f->entry, &fill);
    for (unsigned p = 0; p < f->n_planes; p++) f->plane[0][p] = f->entry->d + f->off[p];
    if (!fill) {
        f->ref_shared++;
        return tvmaf_cuda_stream_wait_event(f->stream, f->entry->ready);
    }
    f->ref_uploads++;
    int err;
    if (tvmaf_picture_is_pinned(ref, pinned)) {
        err = tvmaf_cuda_copy_h2d(f->entry->d, ref->data[0], f->copy_bytes, f->stream);
    } else {
        memcpy(f->h_stage, ref->data[0], f->copy_bytes);
        err = tvmaf_cuda_copy_h2d(f->entry->d, f->h_stage, f->copy_bytes, f->stream);
    }
    if (!err) err = tvmaf_cuda_event_record(f->entry->ready, f->stream);
    tvmaf_cuda_ref_cache_filled(f->cache, f->entry, !err);
    return err;
}

int tvmaf_cuda_frame_upload(TvmafDeviceFrame *f, const TvmafPicture *ref, const TvmafPicture *dis,
                            const TvmafHostAllocator *pinned)
{
    f->ref_pic = ref;
    f->ref_serial = tvmaf_picture_serial(ref);
    if (tvmaf_picture_device(ref)) {
        /* pictures in this device's memory (core took them only so, both of
         * them): their planes have the frame's layout, and the twins read
         * them where they are; the context holds them until the frame is
         * done. No upload, no ladder cache. */
        for (unsigned p = 0; p < f->n_planes; p++) {
            f->plane[0][p] = (CUdeviceptr)ref->data[p];
            f->plane[1][p] = (CUdeviceptr)dis->data[p];
        }
        int err = tvmaf_cuda_span_begin(&f->span, f->stream);
        if (!err) err = tvmaf_cuda_span_end(&f->span, f->stream);
        if (!err) err = tvmaf_cuda_event_record(f->ready, f->stream);
        return err;
    }
    for (unsigned p = 0; p < f->n_planes; p++)
        f->plane[1][p] = f->d_buf + f->copy_bytes + f->off[p];
    /* a picture of the library (a serial, its layout) can be shared */
    const uint64_t serial = f->cache && tvmaf_picture_has_layout(ref) ? tvmaf_picture_serial(ref)
                                                                      : 0;
    const bool stage_ref = tvmaf_picture_has_layout(ref) && !tvmaf_picture_is_pinned(ref, pinned);
    const bool stage_dis = tvmaf_picture_has_layout(dis) && !tvmaf_picture_is_pinned(dis, pinned);
    /* unshared: both through the staging buffer in one copy unless both are
     * page-locked */
    const bool staged = tvmaf_picture_has_layout(ref) && tvmaf_picture_has_layout(dis) &&
                        (stage_ref || stage_dis);
    int err;
    if ((stage_ref || stage_dis) && !f->h_stage &&
        (err = tvmaf_cuda_stage_alloc((void **)&f->h_stage, f->size)))
        return err;
    if ((err = tvmaf_cuda_span_begin(&f->span, f->stream))) return err;
    /* the staging buffer is free: the frame's previous upload was waited for
     * by every twin before the worker took this frame */
    if (serial) {
        err = upload_shared_ref(f, ref, serial, pinned);
        if (!err && stage_dis) {
            memcpy(f->h_stage + f->copy_bytes, dis->data[0], f->copy_bytes);
            err = tvmaf_cuda_copy_h2d(f->plane[1][0], f->h_stage + f->copy_bytes, f->copy_bytes,
                                      f->stream);
        } else if (!err) {
            err = upload_picture(f, dis, f->plane[1]);
        }
    } else {
        for (unsigned p = 0; p < f->n_planes; p++) f->plane[0][p] = f->d_buf + f->off[p];
        if (staged) {
            memcpy(f->h_stage, ref->data[0], f->copy_bytes);
            memcpy(f->h_stage + f->copy_bytes, dis->data[0], f->copy_bytes);
            err = tvmaf_cuda_copy_h2d(f->d_buf, f->h_stage, f->size, f->stream);
        } else {
            err = upload_picture(f, ref, f->plane[0]);
            if (!err) err = upload_picture(f, dis, f->plane[1]);
        }
    }
    if (!err) err = tvmaf_cuda_span_end(&f->span, f->stream);
    if (!err) err = tvmaf_cuda_event_record(f->ready, f->stream);
    return err;
}

/* The counters of a frame that its twins see as const: the frame is the
 * backend's own (never defined const), used by one worker at a time. */
static TvmafDeviceFrame *counted(const TvmafDeviceFrame *f)
{
    return (TvmafDeviceFrame *)f;
}

int tvmaf_cuda_frame_ref_derived(const TvmafDeviceFrame *f, unsigned slot, CUstream stream,
                                 CUdeviceptr *d, bool *fill)
{
    *d = 0;
    *fill = false;
    if (!f->entry || slot >= f->n_derived) return 0;
    tvmaf_cuda_ref_cache_derived(f->cache, f->entry, slot, fill);
    *d = f->entry->derived[slot].d;
    if (*fill) {
        counted(f)->derived_made++;
        return 0;
    }
    counted(f)->derived_shared++;
    return tvmaf_cuda_stream_wait_event(stream, f->entry->derived[slot].ready);
}

void tvmaf_cuda_frame_count_host_result(const TvmafDeviceFrame *f, bool computed)
{
    if (computed) counted(f)->host_made++;
    else counted(f)->host_shared++;
}

int tvmaf_cuda_frame_ref_derived_done(const TvmafDeviceFrame *f, unsigned slot, CUstream stream,
                                      bool ok)
{
    int err = 0;
    if (ok) err = tvmaf_cuda_event_record(f->entry->derived[slot].ready, stream);
    tvmaf_cuda_ref_cache_derived_done(f->cache, f->entry, slot, ok && !err);
    return err;
}

void tvmaf_cuda_frame_release(TvmafDeviceFrame *f)
{
    f->ref_pic = NULL;
    if (!f->entry) return;
    tvmaf_cuda_ref_cache_put(f->cache, f->entry);
    f->entry = NULL;
}
