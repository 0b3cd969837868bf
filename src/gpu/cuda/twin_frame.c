#include <errno.h>
#include <string.h>

#include "gpu/cuda/twin_frame.h"

/* Device rows start on this many bytes (the kernels' pitch). */
#define ROW_ALIGN 256

int tvmaf_twin_frame_alloc(TvmafTwinFrame *f, const TvmafVideoInfo *vi, unsigned n_planes)
{
    memset(f, 0, sizeof(*f));
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, f->pw, f->ph)) return -EINVAL;
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) n_planes = 1;
    f->n_planes = n_planes;
    f->bytes_per_sample = vi->bpc > 8 ? 2 : 1;
    size_t plane_off[3], total = 0;
    for (unsigned p = 0; p < n_planes; p++) {
        f->pitch[p] = ((size_t)f->pw[p] * f->bytes_per_sample + ROW_ALIGN - 1) &
                      ~(size_t)(ROW_ALIGN - 1);
        plane_off[p] = total;
        total += f->pitch[p] * f->ph[p];
    }
    f->size = 2 * total; /* reference planes, then distorted planes */
    int err = tvmaf_cuda_mem_alloc(&f->d_buf, f->size);
    if (!err) err = tvmaf_cuda_stream_create(&f->stream);
    if (!err) err = tvmaf_cuda_event_create_sync_only(&f->ready);
    if (!err) err = tvmaf_cuda_span_init(&f->span);
    if (err) {
        tvmaf_twin_frame_free(f);
        return err;
    }
    for (unsigned p = 0; p < n_planes; p++) {
        f->d_ref[p] = f->d_buf + plane_off[p];
        f->d_dis[p] = f->d_buf + total + plane_off[p];
    }
    return 0;
}

void tvmaf_twin_frame_free(TvmafTwinFrame *f)
{
    if (f->stream) tvmaf_cuda_stream_synchronize(f->stream);
    tvmaf_cuda_span_destroy(&f->span);
    tvmaf_cuda_event_destroy(f->ready);
    tvmaf_cuda_stream_destroy(f->stream);
    tvmaf_cuda_mem_free(f->d_buf);
    tvmaf_cuda_host_free(f->h_stage);
    memset(f, 0, sizeof(*f));
}

/* Queues one picture's planes into the device planes `dst`. */
static int upload_picture(TvmafTwinFrame *f, const TvmafPicture *pic, const CUdeviceptr *dst,
                          unsigned char *stage)
{
    const bool pinned = tvmaf_picture_is_pinned(pic, tvmaf_cuda_pinned_allocator());
    for (unsigned p = 0; p < f->n_planes; p++) {
        const size_t row = (size_t)f->pw[p] * f->bytes_per_sample;
        const unsigned char *src = pic->data[p];
        size_t src_pitch = (size_t)pic->stride[p];
        if (!pinned) {
            /* the staging buffer is free: this frame's previous upload was
             * waited for by every twin before the frame was reused */
            for (unsigned y = 0; y < f->ph[p]; y++)
                memcpy(stage + y * f->pitch[p], src + (size_t)y * src_pitch, row);
            src = stage;
            src_pitch = f->pitch[p];
            stage += f->pitch[p] * f->ph[p];
        }
        int err = tvmaf_cuda_copy_h2d_2d(dst[p], f->pitch[p], src, src_pitch, row, f->ph[p],
                                         f->stream);
        if (err) return err;
    }
    return 0;
}

int tvmaf_twin_frame_upload(TvmafTwinFrame *f, const TvmafPicture *ref, const TvmafPicture *dis)
{
    const TvmafHostAllocator *a = tvmaf_cuda_pinned_allocator();
    int err;
    if ((!tvmaf_picture_is_pinned(ref, a) || !tvmaf_picture_is_pinned(dis, a)) && !f->h_stage &&
        (err = tvmaf_cuda_host_alloc((void **)&f->h_stage, f->size)))
        return err;
    if ((err = tvmaf_cuda_span_begin(&f->span, f->stream)) ||
        (err = upload_picture(f, ref, f->d_ref, f->h_stage)) ||
        (err = upload_picture(f, dis, f->d_dis, f->h_stage + f->size / 2)) ||
        (err = tvmaf_cuda_span_end(&f->span, f->stream)))
        return err;
    return tvmaf_cuda_event_record(f->ready, f->stream);
}

int tvmaf_twin_frame_account(TvmafTwinFrame *f)
{
    /* called once the twins have synchronised on work that waited for
     * `ready`, so both events have completed */
    return tvmaf_cuda_span_add(&f->span, "upload");
}
