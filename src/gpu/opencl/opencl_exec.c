/*
 * The OpenCL executor of the twin base (gpu/twin.h): an instance's buffers
 * are one cl_mem (an address is a byte offset in it) and one host block of
 * mirrors; its work goes on the frame's in-order queue, after the frame's
 * upload. A view argument is two kernel arguments, the cl_mem and the
 * offset (gpu/kernel.h); kernels that need CUDA's caps are not in the
 * program. Every program is fp64-free (scripts/opencl_kernels.py); a twin
 * whose plan needs correctly rounded division and square root
 * (TVD_NEEDS_CR_DIV_SQRT) is refused before its program is built on a device
 * without them, naming what is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/opencl/device_frame.h"
#include "gpu/opencl/opencl_backend.h"
#include "gpu/exec_common.h"

typedef struct OclXs {
    cl_kernel fn[32];
    cl_mem arena;
    size_t arena_size;
    void *host;
    const TvmafDeviceFrame *f; /* between begin and end */
} OclXs;

static int open_x(TvdTwin *t, char *why, size_t len)
{
    OclXs *x = t->xs;
    if (t->plan->n_kernels > sizeof(x->fn) / sizeof(x->fn[0])) {
        snprintf(why, len, "more than %zu kernels", sizeof(x->fn) / sizeof(x->fn[0]));
        return -EINVAL;
    }
    const TvmafClDeviceInfo *dev = tvmaf_opencl_gpu_device(t->gpu);
    const unsigned withheld = tvmaf_cl_withheld_caps();
    t->caps = (TvdCaps){ .warp = 0, .atomic64 = false,
                         .fp64 = tvmaf_opencl_gpu_fp64(t->gpu) &&
                                 !(withheld & TVMAF_CL_CAP_FP64),
                         .cr_div_sqrt = dev->cr_divide_sqrt &&
                                        !(withheld & TVMAF_CL_CAP_CR_DIV_SQRT) };
    if (!t->caps.cr_div_sqrt && (t->plan->needs & TVD_NEEDS_CR_DIV_SQRT)) {
        snprintf(why, len, "the device (%s) has no correctly rounded float division and square "
                 "root (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT); its results would not be the CPU's",
                 dev->name);
        return -ENOTSUP;
    }
    cl_program prog;
    int err = tvmaf_opencl_gpu_program(t->gpu, t->plan->module, t->code, NULL, &prog, why, len);
    for (unsigned k = 0; k < t->plan->n_kernels && !err; k++) {
        if (t->plan->kernels[k].flags & TVD_CUDA_CAPS) continue;
        cl_int r = CL_SUCCESS;
        x->fn[k] = tvmaf_cl.clCreateKernel(prog, t->plan->kernels[k].name, &r);
        if ((err = tvmaf_cl_check(r, "clCreateKernel"))) x->fn[k] = NULL;
    }
    return err;
}

static int bind(TvdTwin *t, char *why, size_t len)
{
    (void)why;
    (void)len;
    OclXs *x = t->xs;
    size_t dev, host;
    tvd_exec_arena(t, &dev, &host);
    int err = dev ? tvmaf_opencl_gpu_alloc(t->gpu, &x->arena, dev) : 0;
    if (!err) x->arena_size = dev;
    if (!err && host && !(x->host = malloc(host))) err = -ENOMEM;
    if (!err) tvd_exec_place(t, 0, x->host); /* an address is an offset in the arena */
    return err;
}

static int upload(TvdTwin *t, uint64_t addr, const void *src, size_t size)
{
    return tvmaf_opencl_gpu_upload(t->gpu, ((OclXs *)t->xs)->arena, addr, src, size);
}

static int begin(TvdTwin *t, const TvmafDeviceFrame *f)
{
    ((OclXs *)t->xs)->f = f;
    return 0;
}

static cl_mem mem_of(const OclXs *x, const TvdView *v)
{
    return v->buf.id == TVD_FRAME_BUF ? x->f->buf : x->arena;
}

static int fill(TvdTwin *t, const TvdView *v, uint64_t addr, uint8_t byte)
{
    OclXs *x = t->xs;
    return tvmaf_cl_check(tvmaf_cl.clEnqueueFillBuffer(x->f->queue, mem_of(x, v), &byte, 1, addr,
                                                       v->size, 0, NULL, NULL),
                          "clEnqueueFillBuffer");
}

static int copy(TvdTwin *t, const TvdView *dst, uint64_t dst_addr, const TvdView *src,
                uint64_t src_addr)
{
    OclXs *x = t->xs;
    return tvmaf_cl_check(tvmaf_cl.clEnqueueCopyBuffer(x->f->queue, mem_of(x, src),
                                                       mem_of(x, dst), src_addr, dst_addr,
                                                       dst->size, 0, NULL, NULL),
                          "clEnqueueCopyBuffer");
}

static int download(TvdTwin *t, const TvdView *v, uint64_t addr, void *host)
{
    OclXs *x = t->xs;
    return tvmaf_cl_check(tvmaf_cl.clEnqueueReadBuffer(x->f->queue, mem_of(x, v), CL_FALSE, addr,
                                                       v->size, host, 0, NULL, NULL),
                          "clEnqueueReadBuffer");
}

static int set_arg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    return tvmaf_cl_check(tvmaf_cl.clSetKernelArg(k, i, size, value), "clSetKernelArg");
}

static int launch(TvdTwin *t, unsigned k, TvdGrid g, const void *kargs, const TvdView *views)
{
    OclXs *x = t->xs;
    const TvdKernel *kd = &t->plan->kernels[k];
    size_t off[TVD_MAX_ARGS];
    if (kd->n_args > TVD_MAX_ARGS) return -EINVAL;
    tvd_kern_offsets(kd, off);
    cl_uint n = 0;
    int err = 0;
    for (unsigned i = 0, v = 0; i < kd->n_args && !err; i++) {
        const char *p = (const char *)kargs + off[i];
        if (kd->args[i].view) {
            const cl_mem mem = mem_of(x, &views[v++]);
            cl_ulong o;
            memcpy(&o, p, sizeof(o));
            err = set_arg(x->fn[k], n++, sizeof(mem), &mem);
            if (!err) err = set_arg(x->fn[k], n++, sizeof(o), &o);
        } else {
            err = set_arg(x->fn[k], n++, kd->args[i].size, p);
        }
    }
    const cl_uint end = 0;
    if (!err) err = set_arg(x->fn[k], n, sizeof(end), &end);
    const size_t global[3] = { (size_t)g.x * kd->group[0], (size_t)g.y * kd->group[1], g.z };
    const size_t local[3] = { kd->group[0], kd->group[1], 1 };
    return err ? err : tvmaf_cl_launch(x->f->queue, x->fn[k], g.z > 1 ? 3 : 2, global, local);
}

static int sync_x(TvdTwin *t)
{
    return tvmaf_cl_check(tvmaf_cl.clFinish(((OclXs *)t->xs)->f->queue), "clFinish");
}

static int end(TvdTwin *t, int err)
{
    /* always drain: a read-back still queued must not land after return */
    const int e = sync_x(t);
    ((OclXs *)t->xs)->f = NULL;
    return err ? err : e;
}

static void close_x(TvdTwin *t)
{
    OclXs *x = t->xs;
    for (unsigned k = 0; k < sizeof(x->fn) / sizeof(x->fn[0]); k++)
        if (x->fn[k]) tvmaf_cl.clReleaseKernel(x->fn[k]);
    if (x->arena) tvmaf_opencl_gpu_free(t->gpu, x->arena, x->arena_size);
    free(x->host);
    memset(x, 0, sizeof(*x));
}

const TvdExec tvd_exec_opencl = {
    .backend = TVMAF_BACKEND_OPENCL,
    .name = "opencl",
    .xs_size = sizeof(OclXs),
    TVD_EXEC_OPS,
    .last_error = tvmaf_cl_last_error,
    .count_decided = tvmaf_opencl_gpu_count_decided,
};
