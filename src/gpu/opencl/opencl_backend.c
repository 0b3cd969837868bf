/*
 * The OpenCL backend: one OpenCL context on the chosen device per tvmaf
 * context, its programs (each built once, on first use, from the source
 * embedded in the library), the per-worker device frames, device memory
 * counted against the context's limit, and the statistics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_budget.h"
#include "gpu/opencl/device_frame.h"
#include "gpu/exec_common.h"
#include "gpu/opencl/opencl_backend.h"

#define MAX_PROGRAMS 32

struct TvmafGpu {
    unsigned index;
    bool stats;
    bool fp64; /* twins may use fp64: the device has it, and opencl_fp64 allows it */
    int open_err;
    char open_msg[320];
    const TvmafClDeviceInfo *dev;
    cl_context ctx;
    cl_command_queue setup_q;  /* set-up copies (tables), under lock */
    pthread_mutex_t lock;      /* memory, programs, set-up queue */
    TvmafDeviceBudget mem;
    struct { const char *name; cl_program prog; } progs[MAX_PROGRAMS];
    unsigned n_progs;
    double t_build;            /* ms spent building programs */
    TvmafDeviceFrame *frames;
    unsigned n_frames;
    double t_open, t_first_done;
    /* per-pixel results the device left undecided and the host computed
     * (ciede), of how many */
    _Atomic unsigned long long decided, decided_of;
};

bool tvmaf_opencl_gpu_fp64(const TvmafGpu *gpu)
{
    return gpu->fp64;
}

const TvmafClDeviceInfo *tvmaf_opencl_gpu_device(TvmafGpu *gpu)
{
    return gpu->dev;
}

int tvmaf_opencl_gpu_alloc(TvmafGpu *gpu, cl_mem *mem, size_t size)
{
    *mem = NULL;
    char why[200];
    if (tvmaf_budget_take(&gpu->mem, size, why, sizeof(why))) {
        tvmaf_cl_set_last_error(why);
        return -ENOMEM;
    }
    cl_int r = CL_SUCCESS;
    *mem = tvmaf_cl.clCreateBuffer(gpu->ctx, CL_MEM_READ_WRITE, size ? size : 1, NULL, &r);
    int err = tvmaf_cl_check(r, "clCreateBuffer");
    if (err) {
        *mem = NULL;
        tvmaf_budget_give(&gpu->mem, size);
    }
    return err;
}

void tvmaf_opencl_gpu_free(TvmafGpu *gpu, cl_mem mem, size_t size)
{
    if (!mem) return; /* never allocated */
    tvmaf_cl.clReleaseMemObject(mem);
    tvmaf_budget_give(&gpu->mem, size);
}

int tvmaf_opencl_gpu_upload(TvmafGpu *gpu, cl_mem dst, size_t off, const void *src, size_t size)
{
    pthread_mutex_lock(&gpu->lock);
    int err = tvmaf_cl_check(tvmaf_cl.clEnqueueWriteBuffer(gpu->setup_q, dst, CL_TRUE, off, size,
                                                           src, 0, NULL, NULL),
                             "clEnqueueWriteBuffer");
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

static int build(TvmafGpu *gpu, const char *name, const char *source, const char *options,
                 cl_program *out, char *msg, size_t len)
{
    cl_int r = CL_SUCCESS;
    cl_program prog = tvmaf_cl.clCreateProgramWithSource(gpu->ctx, 1, &source, NULL, &r);
    int err = tvmaf_cl_check(r, "clCreateProgramWithSource");
    if (err) {
        snprintf(msg, len, "%s", tvmaf_cl_last_error());
        return err;
    }
    /* No -cl-fast-relaxed-math, -cl-mad-enable or -cl-unsafe-math-
     * optimizations: the kernels round where the CPU rounds (hd.h turns
     * contraction off); fp32 division and square root correctly rounded where
     * the device can (OpenCL's default allows 2.5 and 3 ulp). */
    char opts[512];
    snprintf(opts, sizeof(opts), "-cl-std=CL1.2%s %s",
             gpu->dev->cr_divide_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             options ? options : "");
    r = tvmaf_cl.clBuildProgram(prog, 1, &gpu->dev->device, opts, NULL, NULL);
    if (r != CL_SUCCESS) {
        char log[1024] = "";
        tvmaf_cl.clGetProgramBuildInfo(prog, gpu->dev->device, CL_PROGRAM_BUILD_LOG,
                                       sizeof(log) - 1, log, NULL);
        log[sizeof(log) - 1] = 0;
        for (char *c = log; *c; c++)
            if (*c == '\n') *c = ' ';
        err = tvmaf_cl_check(r, "clBuildProgram");
        snprintf(msg, len, "program %s does not build on %s (%s): %.400s", name, gpu->dev->name,
                 tvmaf_cl_last_error(), log);
        tvmaf_cl.clReleaseProgram(prog);
        return err;
    }
    *out = prog;
    return 0;
}

int tvmaf_opencl_gpu_program(TvmafGpu *gpu, const char *name, const char *source,
                             const char *options, cl_program *prog, char *msg, size_t len)
{
    *prog = NULL;
    int err = 0;
    pthread_mutex_lock(&gpu->lock);
    for (unsigned i = 0; i < gpu->n_progs && !*prog; i++)
        if (!strcmp(gpu->progs[i].name, name)) *prog = gpu->progs[i].prog;
    if (!*prog) {
        if (gpu->n_progs == MAX_PROGRAMS) {
            snprintf(msg, len, "too many OpenCL programs");
            err = -EINVAL;
        } else {
            const double t0 = tvd_mono_ms();
            err = build(gpu, name, source, options, prog, msg, len);
            gpu->t_build += tvd_mono_ms() - t0;
            if (!err) {
                gpu->progs[gpu->n_progs].name = name;
                gpu->progs[gpu->n_progs++].prog = *prog;
            }
        }
    }
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

/* ---- the device frames (device_frame.h) ---- */

static void frame_free(TvmafDeviceFrame *f, TvmafGpu *gpu)
{
    if (f->queue) {
        tvmaf_cl.clFinish(f->queue);
        tvmaf_cl.clReleaseCommandQueue(f->queue);
    }
    if (f->buf) tvmaf_opencl_gpu_free(gpu, f->buf, f->size);
    memset(f, 0, sizeof(*f));
}

static int frame_alloc(TvmafDeviceFrame *f, TvmafGpu *gpu, const TvmafVideoInfo *vi,
                       unsigned n_planes)
{
    memset(f, 0, sizeof(*f));
    size_t off[3];
    int err = tvd_frame_layout(f, vi, n_planes, off);
    if (err) return err;
    err = tvmaf_opencl_gpu_alloc(gpu, &f->buf, f->size);
    if (!err) {
        cl_int r = CL_SUCCESS;
        f->queue = tvmaf_cl.clCreateCommandQueue(gpu->ctx, gpu->dev->device, 0, &r);
        err = tvmaf_cl_check(r, "clCreateCommandQueue");
    }
    if (err) {
        frame_free(f, gpu);
        return err;
    }
    for (unsigned p = 0; p < f->n_planes; p++) {
        f->plane[0][p] = off[p];
        f->plane[1][p] = f->copy_bytes + off[p];
    }
    return 0;
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

/* When not, the reason is this thread's last error (the loader's failure,
 * or the devices present). */
static int available(unsigned gpu_index)
{
    tvmaf_cl_set_last_error("");
    const int n = tvmaf_cl_device_count();
    if (gpu_index < (unsigned)n) return 1;
    if (n > 0 || !tvmaf_cl_last_error()[0]) {
        char why[96];
        snprintf(why, sizeof(why), "%d OpenCL device%s present", n, n == 1 ? "" : "s");
        tvmaf_cl_set_last_error(why);
    }
    return 0;
}

/* auto: a GPU or accelerator only; a CPU device (PoCL) is used when asked
 * for. Through tvmaf_cl_auto_device, which opens the ICD loader only where a
 * GPU can be present and lists the devices in a child process first: loading
 * PoCL on every run cost 40 ms and 59 MB over the CPU's 40 ms and 31 MB on a
 * tiny pair, and a driver aborting in start-up (PoCL under ulimit -v) killed
 * the process (opencl_runtime.h). */
static int auto_ok(unsigned gpu_index)
{
    return tvmaf_cl_auto_device(gpu_index) != NULL;
}

static int open_gpu(TvmafGpu **out, const TvmafConfiguration *cfg, char *msg, size_t len)
{
    TvmafGpu *gpu = calloc(1, sizeof(*gpu));
    if (!gpu) {
        snprintf(msg, len, "out of memory");
        return -ENOMEM;
    }
    gpu->t_open = tvd_mono_ms();
    gpu->index = cfg->gpu_index;
    gpu->stats = cfg->gpu_flags & TVMAF_GPU_STATS;
    gpu->mem.limit = cfg->gpu_mem_limit;
    pthread_mutex_init(&gpu->lock, NULL);
    gpu->dev = tvmaf_cl_device(gpu->index);
    if (!gpu->dev) {
        gpu->open_err = -ENODEV;
        snprintf(gpu->open_msg, sizeof(gpu->open_msg), "no usable OpenCL device %u",
                 gpu->index);
    } else {
        cl_int r = CL_SUCCESS;
        const cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                                (cl_context_properties)gpu->dev->platform, 0 };
        gpu->ctx = tvmaf_cl.clCreateContext(props, 1, &gpu->dev->device, NULL, NULL, &r);
        gpu->open_err = tvmaf_cl_check(r, "clCreateContext");
        if (!gpu->open_err) {
            gpu->setup_q = tvmaf_cl.clCreateCommandQueue(gpu->ctx, gpu->dev->device, 0, &r);
            gpu->open_err = tvmaf_cl_check(r, "clCreateCommandQueue");
        }
        if (gpu->open_err)
            snprintf(gpu->open_msg, sizeof(gpu->open_msg), "%s (device %u: %s)",
                     tvmaf_cl_last_error(), gpu->index, gpu->dev->name);
        gpu->fp64 = gpu->dev->fp64 && cfg->opencl_fp64 != TVMAF_OPENCL_FP64_OFF;
        if (!gpu->open_err && cfg->opencl_fp64 == TVMAF_OPENCL_FP64_ON && !gpu->dev->fp64) {
            gpu->open_err = -ENOTSUP;
            snprintf(gpu->open_msg, sizeof(gpu->open_msg), "device %u (%s) has no fp64 "
                     "(cl_khr_fp64), which --opencl-fp64 on requires", gpu->index,
                     gpu->dev->name);
        }
    }
    if (gpu->stats) tvmaf_cl_device_list_print();
    *out = gpu;
    return 0;
}

static int ready(TvmafGpu *gpu, char *msg, size_t len)
{
    if (gpu->open_err) snprintf(msg, len, "%s", gpu->open_msg);
    return gpu->open_err;
}

static int frames_alloc(TvmafGpu *gpu, const TvmafVideoInfo *vi, unsigned planes, unsigned n,
                        char *msg, size_t len)
{
    gpu->frames = calloc(n, sizeof(*gpu->frames));
    if (!gpu->frames) {
        snprintf(msg, len, "out of memory for %u device frames", n);
        return -ENOMEM;
    }
    int err = 0;
    for (; gpu->n_frames < n; gpu->n_frames++)
        if ((err = frame_alloc(&gpu->frames[gpu->n_frames], gpu, vi, planes)))
            break;
    if (err) snprintf(msg, len, "cannot allocate the device frames (%s)", tvmaf_cl_last_error());
    return err;
}

static int frame_upload(TvmafGpu *gpu, unsigned w, const TvmafPicture *ref,
                        const TvmafPicture *dis, void *fence, const TvmafDeviceFrame **frame,
                        char *msg, size_t len)
{
    (void)fence; /* host pictures only */
    TvmafDeviceFrame *f = &gpu->frames[w];
    *frame = f;
    int err = upload_picture(f, ref, 0, f->plane[0]);
    if (!err) err = upload_picture(f, dis, f->copy_bytes, f->plane[1]);
    if (err) snprintf(msg, len, "%s", tvmaf_cl_last_error());
    return err;
}

static void frame_done(TvmafGpu *gpu, unsigned w, unsigned index)
{
    (void)w;
    if (gpu->stats && index == 0) gpu->t_first_done = tvd_mono_ms();
}

static void frame_submitted(TvmafGpu *gpu, unsigned index)
{
    (void)gpu;
    (void)index;
}

static void stats(TvmafGpu *gpu, unsigned n_frames)
{
    if (!gpu->stats || !gpu->dev) return;
    const double t = tvd_mono_ms() - gpu->t_open;
    fprintf(stderr, "tvmaf opencl stats: device %u (%s, %s): %u frames, %.1f fps from open "
            "to flush; programs built in %.1f ms; first frame scored at %.1f ms; device "
            "memory %zu bytes\n", gpu->index, gpu->dev->name, gpu->dev->platform_name, n_frames,
            t > 0 ? n_frames / (t * 1e-3) : 0.0, gpu->t_build, gpu->t_first_done - gpu->t_open,
            atomic_load(&gpu->mem.used));
    const unsigned long long of = atomic_load(&gpu->decided_of);
    if (of)
        fprintf(stderr, "tvmaf opencl stats: pixels the device left undecided, computed on the "
                "host: %llu of %llu (%.3g per 10^4)\n", atomic_load(&gpu->decided), of,
                1e4 * (double)atomic_load(&gpu->decided) / (double)of);
}

void tvmaf_opencl_gpu_count_decided(TvdTwin *t, unsigned long long n, unsigned long long of)
{
    atomic_fetch_add(&t->gpu->decided, n);
    atomic_fetch_add(&t->gpu->decided_of, of);
}

static void close_gpu(TvmafGpu *gpu)
{
    if (!gpu) return;
    for (unsigned i = 0; i < gpu->n_frames; i++) frame_free(&gpu->frames[i], gpu);
    free(gpu->frames);
    for (unsigned i = 0; i < gpu->n_progs; i++) tvmaf_cl.clReleaseProgram(gpu->progs[i].prog);
    if (gpu->setup_q) tvmaf_cl.clReleaseCommandQueue(gpu->setup_q);
    if (gpu->ctx) tvmaf_cl.clReleaseContext(gpu->ctx);
    pthread_mutex_destroy(&gpu->lock);
    free(gpu);
}

const TvmafBackendOps tvmaf_backend_opencl = {
    .id = TVMAF_BACKEND_OPENCL,
    .name = "opencl",
    TVD_BACKEND_OPS,
    .auto_ok = auto_ok,
    .last_error = tvmaf_cl_last_error,
};
