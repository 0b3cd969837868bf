#include <errno.h>
#include <string.h>

#include "gpu/cuda/twin_frame.h"

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
        f->pitch[p] = ((size_t)f->pw[p] * f->bytes_per_sample + ROW_ALIGN - 1) & ~(size_t)(ROW_ALIGN - 1);
        plane_off[p] = total;
        total += f->pitch[p] * f->ph[p];
    }
    f->size = 2 * total; /* reference planes, then distorted planes */
    int err = tvmaf_cuda_mem_alloc(&f->d_buf, f->size);
    if (!err) err = tvmaf_cuda_host_alloc((void **)&f->h_stage, f->size);
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
    tvmaf_cuda_mem_free(f->d_buf);
    tvmaf_cuda_host_free(f->h_stage);
    memset(f, 0, sizeof(*f));
}

static void stage(const TvmafTwinFrame *f, const TvmafPicture *pic, unsigned char *dst)
{
    for (unsigned p = 0; p < f->n_planes; p++) {
        const unsigned char *src = pic->data[p];
        const size_t row = (size_t)f->pw[p] * f->bytes_per_sample;
        for (unsigned y = 0; y < f->ph[p]; y++)
            memcpy(dst + y * f->pitch[p], src + (size_t)y * pic->stride[p], row);
        dst += f->pitch[p] * f->ph[p];
    }
}

int tvmaf_twin_frame_upload(TvmafTwinFrame *f, const TvmafPicture *ref, const TvmafPicture *dis,
                            CUstream stream)
{
    /* the staging buffer is reused: the previous frame's copy must be done,
     * which the caller's synchronisation at the end of each frame ensures */
    stage(f, ref, f->h_stage);
    stage(f, dis, f->h_stage + f->size / 2);
    return tvmaf_cuda_copy_h2d(f->d_buf, f->h_stage, f->size, stream);
}
