#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/opencl/opencl_twin.h"

static int failed(TvmafOpenclTwin *t, int err, char *msg, size_t len)
{
    const char *why = tvmaf_cl_last_error();
    snprintf(msg, len, "feature \"%s\" (opencl): %s", t->feature,
             *why ? why : err == -ENOMEM ? "out of memory" : strerror(-err));
    return err;
}

int tvmaf_opencl_twin_open(TvmafOpenclTwin *t, TvmafGpu *gpu, const char *feature,
                           const char *source, const char *options,
                           const char *const *fn_names, char *msg, size_t len)
{
    memset(t, 0, sizeof(*t));
    t->feature = feature;
    t->gpu = gpu;
    cl_program prog;
    char why[480] = "";
    int err = tvmaf_opencl_gpu_program(gpu, feature, source, options, &prog, why, sizeof(why));
    if (err) {
        snprintf(msg, len, "feature \"%s\" (opencl): %s", feature, why);
        return err;
    }
    for (unsigned k = 0; fn_names[k]; k++) {
        if (k == TVMAF_OPENCL_TWIN_MAX_FN) {
            tvmaf_cl_set_last_error("too many kernels");
            return failed(t, -EINVAL, msg, len);
        }
        cl_int r = CL_SUCCESS;
        t->fn[k] = tvmaf_cl.clCreateKernel(prog, fn_names[k], &r);
        if ((err = tvmaf_cl_check(r, "clCreateKernel"))) {
            t->fn[k] = NULL;
            return failed(t, err, msg, len);
        }
    }
    return 0;
}

int tvmaf_opencl_twin_alloc(TvmafOpenclTwin *t, cl_mem *mem, size_t size, char *msg, size_t len)
{
    *mem = NULL;
    if (t->n_buf == TVMAF_OPENCL_TWIN_MAX_BUF) {
        tvmaf_cl_set_last_error("too many buffers");
        return failed(t, -EINVAL, msg, len);
    }
    int err = tvmaf_opencl_gpu_alloc(t->gpu, mem, size);
    if (err) return failed(t, err, msg, len);
    t->buf[t->n_buf].mem = *mem;
    t->buf[t->n_buf++].size = size;
    return 0;
}

int tvmaf_opencl_twin_upload(TvmafOpenclTwin *t, cl_mem dst, const void *src, size_t size,
                             char *msg, size_t len)
{
    int err = tvmaf_opencl_gpu_upload(t->gpu, dst, 0, src, size);
    return err ? failed(t, err, msg, len) : 0;
}

void tvmaf_opencl_twin_close(TvmafOpenclTwin *t)
{
    if (!t->gpu) return;
    for (unsigned k = 0; k < TVMAF_OPENCL_TWIN_MAX_FN; k++)
        if (t->fn[k]) tvmaf_cl.clReleaseKernel(t->fn[k]);
    for (unsigned i = 0; i < t->n_buf; i++)
        tvmaf_opencl_gpu_free(t->gpu, t->buf[i].mem, t->buf[i].size);
    memset(t, 0, sizeof(*t));
}

int tvmaf_opencl_twin_begin(TvmafOpenclTwin *t, const TvmafDeviceFrame *frame)
{
    t->q = frame->queue;
    return 0;
}

int tvmaf_opencl_twin_args(TvmafOpenclTwin *t, unsigned fn, unsigned n, const TvmafClArg *args)
{
    for (unsigned i = 0; i < n; i++) {
        int err = tvmaf_cl_check(tvmaf_cl.clSetKernelArg(t->fn[fn], i, args[i].size,
                                                         args[i].value),
                                 "clSetKernelArg");
        if (err) return err;
    }
    return 0;
}

int tvmaf_opencl_twin_launch(TvmafOpenclTwin *t, unsigned fn, size_t gx, size_t gy, size_t lx,
                             size_t ly)
{
    const size_t global[2] = { gx, gy }, local[2] = { lx, ly };
    return tvmaf_cl_launch(t->q, t->fn[fn], 2, global, local);
}

int tvmaf_opencl_twin_zero(TvmafOpenclTwin *t, cl_mem mem, size_t size)
{
    const cl_uchar zero = 0;
    return tvmaf_cl_check(tvmaf_cl.clEnqueueFillBuffer(t->q, mem, &zero, 1, 0, size, 0, NULL,
                                                       NULL),
                          "clEnqueueFillBuffer");
}

int tvmaf_opencl_twin_copy(TvmafOpenclTwin *t, cl_mem dst, size_t dst_off, cl_mem src,
                           size_t src_off, size_t size)
{
    return tvmaf_cl_check(tvmaf_cl.clEnqueueCopyBuffer(t->q, src, dst, src_off, dst_off, size, 0,
                                                       NULL, NULL),
                          "clEnqueueCopyBuffer");
}

int tvmaf_opencl_twin_read(TvmafOpenclTwin *t, void *dst, cl_mem src, size_t size)
{
    return tvmaf_cl_check(tvmaf_cl.clEnqueueReadBuffer(t->q, src, CL_FALSE, 0, size, dst, 0,
                                                       NULL, NULL),
                          "clEnqueueReadBuffer");
}

int tvmaf_opencl_twin_end(TvmafOpenclTwin *t, int err)
{
    /* always drain: a read-back still queued must not land after return */
    int e = tvmaf_cl_check(tvmaf_cl.clFinish(t->q), "clFinish");
    t->q = NULL;
    return err ? err : e;
}
