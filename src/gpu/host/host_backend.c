/* The host executor's backend: frames in guarded host memory (host.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/picture_pool.h"
#include "gpu/host/host.h"
#include "gpu/exec_common.h" /* after host.h: its frame */
#include "tvmaf_builtins.h"

struct TvmafGpu {
    TvmafDeviceFrame *frames;
    unsigned n_frames;
};

static int available(unsigned gpu_index)
{
    return gpu_index == 0;
}

static int auto_ok(unsigned gpu_index)
{
    (void)gpu_index;
    return 0;
}

static int open_gpu(TvmafGpu **gpu, const TvmafConfiguration *cfg, char *msg, size_t len)
{
    (void)cfg;
    if (!(*gpu = calloc(1, sizeof(**gpu)))) {
        snprintf(msg, len, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static int ready(TvmafGpu *gpu, char *msg, size_t len)
{
    (void)gpu;
    (void)msg;
    (void)len;
    return 0;
}

static void frame_free(TvmafDeviceFrame *f)
{
    for (int d = 0; d < 2; d++)
        for (unsigned p = 0; p < f->n_planes; p++)
            tvd_host_unmap(f->plane[d][p], f->pitch[p] * f->ph[p]);
}

static int frames_alloc(TvmafGpu *gpu, const TvmafVideoInfo *vi, unsigned planes, unsigned n,
                        char *msg, size_t len)
{
    if (!(gpu->frames = calloc(n, sizeof(*gpu->frames)))) return -ENOMEM;
    /* the rows of tvmaf_picture_alloc's pictures, as the devices' frames
     * have them (a twin may rely on that pitch), and padding beyond them */
    int err = 0;
    for (; !err && gpu->n_frames < n; gpu->n_frames++) {
        TvmafDeviceFrame *f = &gpu->frames[gpu->n_frames];
        size_t off[3];
        err = tvd_frame_layout(f, vi, planes, off);
        for (unsigned p = 0; p < f->n_planes && !err; p++)
            for (int d = 0; d < 2 && !err; d++)
                if (!(f->plane[d][p] = tvd_host_map(f->pitch[p] * f->ph[p]))) err = -ENOMEM;
    }
    if (err) snprintf(msg, len, "cannot allocate the host executor's frames");
    return err;
}

static int frame_upload(TvmafGpu *gpu, unsigned w, const TvmafPicture *ref,
                        const TvmafPicture *dis, void *fence, const TvmafDeviceFrame **frame,
                        char *msg, size_t len)
{
    (void)fence; /* host pictures only */
    (void)msg;
    (void)len;
    TvmafDeviceFrame *f = &gpu->frames[w];
    const TvmafPicture *pic[2] = { ref, dis };
    for (int d = 0; d < 2; d++)
        for (unsigned p = 0; p < f->n_planes; p++)
            for (unsigned y = 0; y < f->ph[p]; y++)
                memcpy(f->plane[d][p] + y * f->pitch[p],
                       (const unsigned char *)pic[d]->data[p] + y * pic[d]->stride[p],
                       (size_t)f->pw[p] * f->bytes_per_sample);
    *frame = f;
    return 0;
}

static void frame_done(TvmafGpu *gpu, unsigned w, unsigned index)
{
    (void)gpu;
    (void)w;
    (void)index;
}

static void frame_submitted(TvmafGpu *gpu, unsigned index)
{
    (void)gpu;
    (void)index;
}

static void stats(TvmafGpu *gpu, unsigned n_frames)
{
    (void)gpu;
    (void)n_frames;
}

static void close_gpu(TvmafGpu *gpu)
{
    if (!gpu) return;
    for (unsigned i = 0; i < gpu->n_frames; i++) frame_free(&gpu->frames[i]);
    free(gpu->frames);
    free(gpu);
}

const char *tvd_host_last_error(void)
{
    return "";
}

const TvmafBackendOps tvd_host_backend = {
    .id = TVMAF_BACKEND_HOST,
    .name = "host",
    TVD_BACKEND_OPS,
    .auto_ok = auto_ok,
    .last_error = tvd_host_last_error,
};

/* X(extractor, its folder): a folder's plans share its kernels */
#define DECLARE_PLAN(P, F) extern const TvdPlan tvd_plan_##P; extern const TvdHostModule tvd_host_module_##F;
#define PLAN_ROW(P, F) &tvd_plan_##P,
#define CODE_ROW(P, F) &tvd_host_module_##F,
TVMAF_BUILTIN_PLANS(DECLARE_PLAN)

int tvd_host_register(void)
{
    static const TvdPlan *const plans[] = { TVMAF_BUILTIN_PLANS(PLAN_ROW) NULL };
    static const void *const codes[] = { TVMAF_BUILTIN_PLANS(CODE_ROW) NULL };
    return tvmaf_registry_test_backend(&tvd_host_backend, &tvd_exec_host, plans, codes,
                                       sizeof(plans) / sizeof(plans[0]) - 1);
}
