/*
 * Integer vif twin on OpenCL, host side. As the CUDA twin: on the luma of the
 * frame's device copy, vif.cl runs one launch per scale (scale s reads the
 * planes of scale s, writes the decimated planes of scale s + 1, which stay
 * on the device, and each work-group stores its four integer sums); the
 * groups' sums are read back and added here into each scale's VifSums
 * (integers: exact in any order). Everything after the integer sums is the
 * CPU extractor's own code (vif_state.h). Buffers, the taps and the log2
 * table are set up once per instance (one per worker thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"
#include "gpu/opencl/opencl_twin.h"

extern const char tvmaf_vif_cl[];

enum { FN_SCALE0_8, FN_SCALE0_16, FN_SCALE1, FN_SCALE2, FN_SCALE3 };
static const char *const fn_names[] = {
    "vif_scale0_8", "vif_scale0_16", "vif_scale1", "vif_scale2", "vif_scale3", NULL,
};

typedef struct VifOpencl {
    VifParams p; /* first: the option offsets are relative to it */
    TvmafOpenclTwin t;
    cl_mem d_img;                  /* scales 1..3: reference and distorted planes */
    cl_ulong off_ref[VIF_N_SCALES], off_dis[VIF_N_SCALES];
    cl_ulong pitch[VIF_N_SCALES];  /* bytes per row */
    cl_mem d_log2;                 /* VIF_LOG2_TABLE_LEN x uint16 */
    cl_mem d_taps;                 /* VIF_N_SCALES x VIF_MAX_TAPS uint16 */
    cl_mem d_groups;               /* 4 int64 per work-group of every scale */
    cl_ulong group0[VIF_N_SCALES]; /* scale s's first element in d_groups */
    size_t n_groups;               /* work-groups of every scale */
    int64_t *h_groups;
} VifOpencl;

static void close_twin(void *priv)
{
    VifOpencl *v = priv;
    tvmaf_opencl_twin_close(&v->t);
    free(v->h_groups);
    v->h_groups = NULL;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                     size_t len)
{
    VifOpencl *v = priv;
    int err = tvmaf_vif_setup(&v->p, vi, msg, len);
    if (err) return err;
    size_t img = 0;
    v->n_groups = 0;
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        v->group0[k] = 4 * v->n_groups;
        v->n_groups += (size_t)VIF_GRID_X(v->p.w[k]) * VIF_GRID_Y(v->p.h[k]);
        if (!k) continue;
        v->pitch[k] = VIF_ROW_BYTES(v->p.w[k]);
        v->off_ref[k] = img;
        v->off_dis[k] = img + v->pitch[k] * v->p.h[k];
        img += 2 * v->pitch[k] * v->p.h[k];
    }
    const size_t log2_bytes = VIF_LOG2_TABLE_LEN * sizeof(uint16_t);
    const size_t group_bytes = v->n_groups * 4 * sizeof(int64_t);
    if ((err = tvmaf_opencl_twin_open(&v->t, gpu, "vif", tvmaf_vif_cl, NULL, fn_names, msg,
                                      len)) ||
        (err = tvmaf_opencl_twin_alloc(&v->t, &v->d_img, img, msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&v->t, &v->d_groups, group_bytes, msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&v->t, &v->d_taps, sizeof(vif_filter_taps), msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&v->t, &v->d_log2, log2_bytes, msg, len)))
        return err;
    if (!(v->h_groups = malloc(group_bytes))) {
        snprintf(msg, len, "feature \"vif\" (opencl): out of memory (%zu bytes)", group_bytes);
        return -ENOMEM;
    }
    if ((err = tvmaf_opencl_twin_upload(&v->t, v->d_taps, vif_filter_taps,
                                        sizeof(vif_filter_taps), msg, len)))
        return err;
    /* the CPU's table, built by the same function, sent once */
    uint16_t *table = malloc(log2_bytes);
    if (!table) {
        snprintf(msg, len, "feature \"vif\" (opencl): out of memory (log2 table, %zu bytes)",
                 log2_bytes);
        return -ENOMEM;
    }
    vif_log2_table_fill(table, vif_log2_steps);
    err = tvmaf_opencl_twin_upload(&v->t, v->d_log2, table, log2_bytes, msg, len);
    free(table);
    return err;
}

/* Core closes only the instances whose init succeeded: a failed init releases
 * what it holds itself (device buffers keep the OpenCL context alive). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

/* Queues scale k's launch: its statistic (unless skipped) and, below scale
 * 3, the planes of scale k + 1. */
static int launch_scale(VifOpencl *v, const TvmafDeviceFrame *f, unsigned k)
{
    const unsigned last = VIF_N_SCALES - 1;
    const unsigned fn = k == 0 ? (v->p.bpc == 8 ? FN_SCALE0_8 : FN_SCALE0_16) : FN_SCALE1 + k - 1;
    const cl_mem src = k == 0 ? f->buf : v->d_img;
    cl_uint w = v->p.w[k], h = v->p.h[k], bpc = v->p.bpc;
    cl_uint score = vif_scale_scored(&v->p, k);
    cl_double gain_limit = v->p.gain_limit;
    /* scale 3 writes nothing: any valid offsets will do */
    const unsigned n = k < last ? k + 1 : k;
    const TvmafClArg args[] = {
        TVMAF_CL_ARG(src), TVMAF_CL_ARG(v->off_ref[k]), TVMAF_CL_ARG(src),
        TVMAF_CL_ARG(v->off_dis[k]), TVMAF_CL_ARG(v->pitch[k]), TVMAF_CL_ARG(w),
        TVMAF_CL_ARG(h), TVMAF_CL_ARG(bpc), TVMAF_CL_ARG(score), TVMAF_CL_ARG(v->d_log2),
        TVMAF_CL_ARG(gain_limit), TVMAF_CL_ARG(v->d_img), TVMAF_CL_ARG(v->off_ref[n]),
        TVMAF_CL_ARG(v->off_dis[n]), TVMAF_CL_ARG(v->pitch[n]), TVMAF_CL_ARG(v->d_taps),
        TVMAF_CL_ARG(v->d_groups), TVMAF_CL_ARG(v->group0[k]),
    };
    int err = tvmaf_opencl_twin_args(&v->t, fn, sizeof(args) / sizeof(args[0]), args);
    if (!err)
        err = tvmaf_opencl_twin_launch(&v->t, fn, (size_t)VIF_GRID_X(w) * VIF_THREADS,
                                       VIF_GRID_Y(h), VIF_THREADS, 1);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    VifOpencl *v = priv;
    /* scale 0 reads the frame's luma where the backend uploaded it */
    v->off_ref[0] = f->off_ref[0];
    v->off_dis[0] = f->off_dis[0];
    v->pitch[0] = f->pitch[0];
    int err = tvmaf_opencl_twin_begin(&v->t, f);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_scale(v, f, k);
    if (!err)
        err = tvmaf_opencl_twin_read(&v->t, v->h_groups, v->d_groups,
                                     v->n_groups * 4 * sizeof(int64_t));
    if ((err = tvmaf_opencl_twin_end(&v->t, err))) return err;
    VifSums sums[VIF_N_SCALES];
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        /* modulo 2^64, as the CUDA twin's atomics: the CPU's int64 sums */
        uint64_t s[4] = { 0, 0, 0, 0 };
        const size_t end = k + 1 < VIF_N_SCALES ? v->group0[k + 1] : 4 * v->n_groups;
        if (vif_scale_scored(&v->p, k))
            for (size_t i = v->group0[k]; i < end; i += 4)
                for (unsigned q = 0; q < 4; q++) s[q] += (uint64_t)v->h_groups[i + q];
        sums[k] = (VifSums){ (int64_t)s[0], (int64_t)s[1], (int64_t)s[2], (int64_t)s[3] };
    }
    return tvmaf_vif_report(&v->p, sums, index, sink) ? -EINVAL : 0;
}

const TvmafExtractor tvmaf_fex_vif_opencl = {
    .name = "vif",
    .backend = TVMAF_BACKEND_OPENCL,
    .options = tvmaf_vif_options,
    .priv_size = sizeof(VifOpencl),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_vif_provided,
};
