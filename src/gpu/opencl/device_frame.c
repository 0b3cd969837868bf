#include <errno.h>
#include <string.h>

#include "gpu/opencl/device_frame.h"
#include "gpu/opencl/opencl_backend.h"

int tvmaf_opencl_frame_alloc(TvmafDeviceFrame *f, TvmafGpu *gpu, const TvmafVideoInfo *vi,
                             unsigned n_planes)
{
    memset(f, 0, sizeof(*f));
    size_t stride[3], off[3], total;
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, f->pw, f->ph) ||
        tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) n_planes = 1;
    f->n_planes = n_planes;
    f->bytes_per_sample = vi->bpc > 8 ? 2 : 1;
    /* the pictures' layout: luma first, so the luma alone is a prefix */
    f->copy_bytes = n_planes == 1 ? stride[0] * f->ph[0] : total;
    f->size = 2 * f->copy_bytes; /* reference, then distorted */
    int err = tvmaf_opencl_gpu_alloc(gpu, &f->buf, f->size);
    if (!err) {
        cl_int r = CL_SUCCESS;
        f->queue = tvmaf_cl.clCreateCommandQueue(tvmaf_opencl_gpu_context(gpu),
                                                 tvmaf_opencl_gpu_device(gpu)->device, 0, &r);
        err = tvmaf_cl_check(r, "clCreateCommandQueue");
    }
    if (err) {
        tvmaf_opencl_frame_free(f, gpu);
        return err;
    }
    for (unsigned p = 0; p < n_planes; p++) {
        f->pitch[p] = stride[p];
        f->off_ref[p] = off[p];
        f->off_dis[p] = f->copy_bytes + off[p];
    }
    return 0;
}

void tvmaf_opencl_frame_free(TvmafDeviceFrame *f, TvmafGpu *gpu)
{
    if (f->queue) {
        tvmaf_cl.clFinish(f->queue);
        tvmaf_cl.clReleaseCommandQueue(f->queue);
    }
    if (f->buf) tvmaf_opencl_gpu_free(gpu, f->buf, f->size);
    memset(f, 0, sizeof(*f));
}

/* Writes one picture at byte offset `base` of the frame's buffer. */
static int upload_picture(TvmafDeviceFrame *f, const TvmafPicture *pic, size_t base,
                          const cl_ulong *off)
{
    if (tvmaf_picture_has_layout(pic))
        return tvmaf_cl_check(tvmaf_cl.clEnqueueWriteBuffer(f->queue, f->buf, CL_TRUE, base,
                                                            f->copy_bytes, pic->data[0], 0,
                                                            NULL, NULL),
                              "clEnqueueWriteBuffer");
    /* a picture of another layout (built by an API user): plane by plane */
    for (unsigned p = 0; p < f->n_planes; p++) {
        const size_t dst_origin[3] = { (size_t)off[p], 0, 0 }, src_origin[3] = { 0, 0, 0 };
        const size_t region[3] = { (size_t)f->pw[p] * f->bytes_per_sample, f->ph[p], 1 };
        int err = tvmaf_cl_check(
            tvmaf_cl.clEnqueueWriteBufferRect(f->queue, f->buf, CL_TRUE, dst_origin, src_origin,
                                              region, f->pitch[p], 0, (size_t)pic->stride[p], 0,
                                              pic->data[p], 0, NULL, NULL),
            "clEnqueueWriteBufferRect");
        if (err) return err;
    }
    return 0;
}

int tvmaf_opencl_frame_upload(TvmafDeviceFrame *f, const TvmafPicture *ref,
                              const TvmafPicture *dis)
{
    int err = upload_picture(f, ref, 0, f->off_ref);
    if (!err) err = upload_picture(f, dis, f->copy_bytes, f->off_dis);
    return err;
}
