/*
 * OpenCL runtime: the ICD loader reached through dlopen, the device list.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/opencl/opencl_runtime.h"

TvmafClApi tvmaf_cl;

#define MAX_DEVICES 64

static struct {
    pthread_once_t once;
    void *lib;
    TvmafClDeviceInfo dev[MAX_DEVICES];
    int n;
} rt = { .once = PTHREAD_ONCE_INIT };

static _Thread_local char last_error[320];

const char *tvmaf_cl_last_error(void)
{
    return last_error;
}

void tvmaf_cl_set_last_error(const char *what)
{
    snprintf(last_error, sizeof(last_error), "%s", what);
}

static const char *status_name(cl_int r)
{
    switch (r) {
#define S(x) case x: return #x;
    S(CL_DEVICE_NOT_FOUND) S(CL_DEVICE_NOT_AVAILABLE) S(CL_COMPILER_NOT_AVAILABLE)
    S(CL_MEM_OBJECT_ALLOCATION_FAILURE) S(CL_OUT_OF_RESOURCES) S(CL_OUT_OF_HOST_MEMORY)
    S(CL_BUILD_PROGRAM_FAILURE) S(CL_INVALID_VALUE) S(CL_INVALID_DEVICE) S(CL_INVALID_CONTEXT)
    S(CL_INVALID_COMMAND_QUEUE) S(CL_INVALID_MEM_OBJECT) S(CL_INVALID_BUILD_OPTIONS)
    S(CL_INVALID_PROGRAM) S(CL_INVALID_PROGRAM_EXECUTABLE) S(CL_INVALID_KERNEL_NAME)
    S(CL_INVALID_KERNEL) S(CL_INVALID_ARG_INDEX) S(CL_INVALID_ARG_VALUE) S(CL_INVALID_ARG_SIZE)
    S(CL_INVALID_KERNEL_ARGS) S(CL_INVALID_WORK_DIMENSION) S(CL_INVALID_WORK_GROUP_SIZE)
    S(CL_INVALID_WORK_ITEM_SIZE) S(CL_INVALID_GLOBAL_OFFSET) S(CL_INVALID_BUFFER_SIZE)
    S(CL_INVALID_GLOBAL_WORK_SIZE) S(CL_INVALID_OPERATION)
#undef S
    default: return NULL;
    }
}

int tvmaf_cl_check(cl_int r, const char *what)
{
    if (r == CL_SUCCESS) return 0;
    const char *name = status_name(r);
    if (name) snprintf(last_error, sizeof(last_error), "%s: %s", what, name);
    else snprintf(last_error, sizeof(last_error), "%s: OpenCL error %d", what, (int)r);
    switch (r) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE: return -ENOMEM;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_COMPILER_NOT_AVAILABLE: return -ENODEV;
    case CL_INVALID_VALUE:
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_INVALID_BUILD_OPTIONS: return -EINVAL;
    default: return -EIO;
    }
}

static void info_string(cl_device_id d, cl_device_info what, char *out, size_t len)
{
    out[0] = 0;
    if (tvmaf_cl.clGetDeviceInfo(d, what, len, out, NULL) != CL_SUCCESS) out[0] = 0;
    out[len - 1] = 0;
}

static void add_device(cl_platform_id p, cl_device_id d)
{
    if (rt.n == MAX_DEVICES) return;
    TvmafClDeviceInfo *i = &rt.dev[rt.n];
    memset(i, 0, sizeof(*i));
    i->platform = p;
    i->device = d;
    info_string(d, CL_DEVICE_NAME, i->name, sizeof(i->name));
    info_string(d, CL_DEVICE_VERSION, i->version, sizeof(i->version));
    if (tvmaf_cl.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(i->platform_name),
                                   i->platform_name, NULL) != CL_SUCCESS)
        i->platform_name[0] = 0;
    i->platform_name[sizeof(i->platform_name) - 1] = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(i->type), &i->type, NULL);
    cl_bool avail = CL_FALSE, compiler = CL_FALSE;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL);
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler), &compiler, NULL);
    if (!avail || !compiler) return; /* programs are built from source */
    cl_device_fp_config fp = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, NULL);
    i->cr_divide_sqrt = !!(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    cl_device_fp_config dfp = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(dfp), &dfp, NULL);
    i->fp64 = dfp != 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(i->max_work_group),
                             &i->max_work_group, NULL);
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(i->global_mem),
                             &i->global_mem, NULL);
    rt.n++;
}

static void load(void)
{
    const char *lib = getenv("TVMAF_OPENCL_LIBRARY"); /* tests: a loader that is absent */
    rt.lib = dlopen(lib && *lib ? lib : "libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!rt.lib) return;
#define LOAD(fn)                                                                             \
    if (!(tvmaf_cl.fn = (__typeof__(fn) *)dlsym(rt.lib, #fn))) {                             \
        dlclose(rt.lib);                                                                     \
        rt.lib = NULL;                                                                       \
        return;                                                                              \
    }
    TVMAF_CL_FUNCTIONS(LOAD)
#undef LOAD
    cl_uint np = 0;
    if (tvmaf_cl.clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || !np) return;
    cl_platform_id *plats = calloc(np, sizeof(*plats));
    if (!plats || tvmaf_cl.clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        return;
    }
    const cl_device_type types = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU |
                                 CL_DEVICE_TYPE_ACCELERATOR;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (tvmaf_cl.clGetDeviceIDs(plats[p], types, 0, NULL, &nd) != CL_SUCCESS || !nd)
            continue;
        cl_device_id *devs = calloc(nd, sizeof(*devs));
        if (devs && tvmaf_cl.clGetDeviceIDs(plats[p], types, nd, devs, NULL) == CL_SUCCESS)
            for (cl_uint d = 0; d < nd; d++) add_device(plats[p], devs[d]);
        free(devs);
    }
    free(plats);
    const char *list = getenv("TVMAF_OPENCL_DEVICE_LIST");
    if (list && *list && strcmp(list, "0")) tvmaf_cl_device_list_print();
}

int tvmaf_cl_device_count(void)
{
    pthread_once(&rt.once, load);
    return rt.n;
}

const TvmafClDeviceInfo *tvmaf_cl_device(unsigned index)
{
    return (int)index < tvmaf_cl_device_count() ? &rt.dev[index] : NULL;
}

void tvmaf_cl_device_list_print(void)
{
    for (int k = 0; k < rt.n; k++) {
        const TvmafClDeviceInfo *i = &rt.dev[k];
        fprintf(stderr, "tvmaf opencl: device %d: %s (%s; %s; %s%s)\n", k, i->name,
                i->platform_name, i->version,
                i->type & CL_DEVICE_TYPE_GPU ? "GPU" : i->type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                                                  : "other",
                i->fp64 ? ", fp64" : "");
    }
}

static pthread_mutex_t inject_lock = PTHREAD_MUTEX_INITIALIZER;
static long inject_after = -1;

void tvmaf_cl_inject_launch_failure(long after)
{
    pthread_mutex_lock(&inject_lock);
    inject_after = after;
    pthread_mutex_unlock(&inject_lock);
}

int tvmaf_cl_launch(cl_command_queue q, cl_kernel k, unsigned dims, const size_t *global,
                    const size_t *local)
{
    pthread_mutex_lock(&inject_lock);
    const int fail = inject_after == 0;
    if (inject_after > 0) inject_after--;
    pthread_mutex_unlock(&inject_lock);
    if (fail) return tvmaf_cl_check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel (injected)");
    return tvmaf_cl_check(tvmaf_cl.clEnqueueNDRangeKernel(q, k, dims, NULL, global, local, 0,
                                                          NULL, NULL),
                          "clEnqueueNDRangeKernel");
}
