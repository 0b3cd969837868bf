/*
 * Integer adm twin on OpenCL, host side. As the CUDA twin: on the luma of the
 * frame's device copy, per scale adm.cl runs a coef launch (DWT of both
 * pictures, decouple, csf, den terms; the approximation bands stay on the
 * device as the next scale's input) and a cm launch (masking terms), each
 * work-group storing its totals in per-row slots; one finish launch adds each
 * row's slots, rounds the rows and adds them into the four AdmScaleSums (288
 * bytes), which are read back. Everything after the integer totals is the
 * CPU extractor's own code (adm_state.h). Buffers, the scales' constants and
 * the reciprocal table are set up once per instance (one per worker thread).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_tile.h"
#include "gpu/opencl/opencl_twin.h"

extern const char tvmaf_adm_cl[];

enum { FN_COEF0, FN_COEF32, FN_CM, FN_FINISH, FN_LAYOUT };
static const char *const fn_names[] = { "adm_coef0", "adm_coef32", "adm_cm", "adm_finish",
                                        "adm_layout", NULL };

typedef struct AdmOpencl {
    AdmState s; /* first: the option offsets are relative to it */
    AdmTileFrame f;
    TvmafOpenclTwin t;
    cl_mem d_mem;                       /* recip, bands, planes: one buffer */
    cl_ulong recip0;                    /* byte offset of the reciprocal of 0 */
    cl_ulong a_ref[2], a_dis[2];        /* approximation bands, alternating per scale */
    cl_ulong planes, plane;             /* first plane and bytes per plane */
    cl_mem d_scales;                    /* the AdmTileFrame */
    cl_mem d_slots;                     /* per-row, per-group totals */
    size_t n_slots;
    cl_ulong slot0[ADM_N_SCALES];       /* scale k's first slot */
    cl_uint groups[ADM_N_SCALES];       /* groups per row of scale k (ADM_GRID_X(w)) */
    cl_mem d_slot0, d_groups;           /* the same, for the finish launch */
    cl_mem d_sums;                      /* ADM_N_SCALES x AdmScaleSums */
    AdmScaleSums h_sums[ADM_N_SCALES];
} AdmOpencl;

static void close_twin(void *priv)
{
    tvmaf_opencl_twin_close(&((AdmOpencl *)priv)->t);
}

/* The device compiles AdmTileScale from the same header: check it lays the
 * struct out as this host does before trusting the buffer written from it. */
static int check_layout(AdmOpencl *m, char *msg, size_t len)
{
    cl_mem d;
    cl_uint out[2] = { 0, 0 };
    int err = tvmaf_opencl_twin_alloc(&m->t, &d, sizeof(out), msg, len);
    if (err) return err;
    TvmafDeviceFrame none = { 0 };
    none.queue = NULL;
    cl_int r = CL_SUCCESS;
    cl_command_queue q = tvmaf_cl.clCreateCommandQueue(
        tvmaf_opencl_gpu_context(m->t.gpu), tvmaf_opencl_gpu_device(m->t.gpu)->device, 0, &r);
    if ((err = tvmaf_cl_check(r, "clCreateCommandQueue"))) goto fail;
    none.queue = q;
    const TvmafClArg args[] = { TVMAF_CL_ARG(d) };
    if (!(err = tvmaf_opencl_twin_begin(&m->t, &none)) &&
        !(err = tvmaf_opencl_twin_args(&m->t, FN_LAYOUT, 1, args)) &&
        !(err = tvmaf_opencl_twin_launch(&m->t, FN_LAYOUT, 1, 1, 1, 1)))
        err = tvmaf_opencl_twin_read(&m->t, out, d, sizeof(out));
    err = tvmaf_opencl_twin_end(&m->t, err);
    tvmaf_cl.clReleaseCommandQueue(q);
    if (err) goto fail;
    if (out[0] != sizeof(AdmTileScale) || out[1] != sizeof(AdmTileFrame)) {
        snprintf(msg, len, "feature \"adm\" (opencl): the device lays AdmTileScale out in %u "
                 "bytes, the host in %zu: not supported on this device", out[0],
                 sizeof(AdmTileScale));
        return -ENOTSUP;
    }
    return 0;
fail:
    snprintf(msg, len, "feature \"adm\" (opencl): %s", tvmaf_cl_last_error());
    return err;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                     size_t len)
{
    AdmOpencl *m = priv;
    int err = tvmaf_adm_setup(&m->s, vi, msg, len);
    if (err) return err;
    size_t n_rows = 0;
    m->n_slots = 0;
    for (int k = 0; k < ADM_N_SCALES; k++) {
        n_rows += adm_tile_scale_init(&m->f.sc[k], &m->s, k, n_rows);
        m->groups[k] = ADM_GRID_X((unsigned)m->f.sc[k].w);
        m->slot0[k] = m->n_slots;
        m->n_slots += (size_t)ADM_N_SUMS * (size_t)m->f.sc[k].h * m->groups[k];
    }
    const size_t n0 = (size_t)m->s.sc[0].w * m->s.sc[0].h;
    const size_t n1 = (size_t)m->s.sc[1].w * m->s.sc[1].h;
    const size_t plane = ADM_PLANE_BYTES(n0, n1);
    const size_t recip = ADM_ALIGN_UP(ADM_RECIP_LEN * sizeof(int32_t));
    const size_t a = ADM_ALIGN_UP(n0 * sizeof(int32_t));
    if ((err = tvmaf_opencl_twin_open(&m->t, gpu, "adm", tvmaf_adm_cl, NULL, fn_names, msg,
                                      len)) ||
        (err = check_layout(m, msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_mem, recip + 4 * a + ADM_N_PLANES * plane,
                                       msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_scales, sizeof(m->f), msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_slots, m->n_slots * sizeof(cl_ulong), msg,
                                       len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_slot0, sizeof(m->slot0), msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_groups, sizeof(m->groups), msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_sums, sizeof(m->h_sums), msg, len)))
        return err;
    /* the buffer: the reciprocal table, the approximation bands, the
     * coefficient planes, as the CUDA twin's allocation */
    cl_ulong p = 0;
    m->recip0 = p + ADM_RECIP_ZERO * sizeof(int32_t);
    p += recip;
    for (int k = 0; k < 2; k++) {
        m->a_ref[k] = p;
        p += a;
        m->a_dis[k] = p;
        p += a;
    }
    m->planes = p;
    m->plane = plane;
    if ((err = tvmaf_opencl_twin_upload(&m->t, m->d_scales, &m->f, sizeof(m->f), msg, len)) ||
        (err = tvmaf_opencl_twin_upload(&m->t, m->d_slot0, m->slot0, sizeof(m->slot0), msg,
                                        len)) ||
        (err = tvmaf_opencl_twin_upload(&m->t, m->d_groups, m->groups, sizeof(m->groups), msg,
                                        len)))
        return err;
    /* the CPU's table, built by the same function, sent once (into the start
     * of the shared buffer: a temporary buffer would be a second copy) */
    int32_t *table = malloc(recip);
    if (!table) {
        snprintf(msg, len, "feature \"adm\" (opencl): out of memory (reciprocal table)");
        return -ENOMEM;
    }
    for (int d = -32768; d <= 32768; d++) table[d + ADM_RECIP_ZERO] = adm_recip_q30(d);
    for (size_t i = ADM_RECIP_LEN; i < recip / sizeof(int32_t); i++) table[i] = 0;
    err = tvmaf_opencl_twin_upload(&m->t, m->d_mem, table, recip, msg, len);
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

/* Queues scale k's coef and cm launches. */
static int launch_scale(AdmOpencl *m, const TvmafDeviceFrame *f, int k)
{
    const AdmTileScale *c = &m->f.sc[k];
    int err;
    if (k == 0) {
        cl_ulong pitch = f->pitch[0];
        const TvmafClArg args[] = {
            TVMAF_CL_ARG(m->d_scales), TVMAF_CL_ARG(f->buf), TVMAF_CL_ARG(f->off_ref[0]),
            TVMAF_CL_ARG(f->off_dis[0]), TVMAF_CL_ARG(pitch), TVMAF_CL_ARG(m->d_mem),
            TVMAF_CL_ARG(m->recip0), TVMAF_CL_ARG(m->a_ref[0]), TVMAF_CL_ARG(m->a_dis[0]),
            TVMAF_CL_ARG(m->planes), TVMAF_CL_ARG(m->plane), TVMAF_CL_ARG(m->d_slots),
            TVMAF_CL_ARG(m->slot0[0]),
        };
        err = tvmaf_opencl_twin_args(&m->t, FN_COEF0, sizeof(args) / sizeof(args[0]), args);
        if (!err)
            err = tvmaf_opencl_twin_launch(&m->t, FN_COEF0,
                                           (size_t)m->groups[k] * ADM_THREADS, (size_t)c->h,
                                           ADM_THREADS, 1);
    } else {
        cl_uint kk = (cl_uint)k;
        const TvmafClArg args[] = {
            TVMAF_CL_ARG(m->d_scales), TVMAF_CL_ARG(kk), TVMAF_CL_ARG(m->d_mem),
            TVMAF_CL_ARG(m->a_ref[(k - 1) & 1]), TVMAF_CL_ARG(m->a_dis[(k - 1) & 1]),
            TVMAF_CL_ARG(m->recip0), TVMAF_CL_ARG(m->a_ref[k & 1]),
            TVMAF_CL_ARG(m->a_dis[k & 1]), TVMAF_CL_ARG(m->planes), TVMAF_CL_ARG(m->plane),
            TVMAF_CL_ARG(m->d_slots), TVMAF_CL_ARG(m->slot0[k]),
        };
        err = tvmaf_opencl_twin_args(&m->t, FN_COEF32, sizeof(args) / sizeof(args[0]), args);
        if (!err)
            err = tvmaf_opencl_twin_launch(&m->t, FN_COEF32,
                                           (size_t)m->groups[k] * ADM_THREADS, (size_t)c->h,
                                           ADM_THREADS, 1);
    }
    if (err || !c->stats || c->r <= c->l || c->b <= c->t) return err;
    cl_uint kk = (cl_uint)k;
    const TvmafClArg args[] = {
        TVMAF_CL_ARG(m->d_scales), TVMAF_CL_ARG(kk), TVMAF_CL_ARG(m->d_mem),
        TVMAF_CL_ARG(m->planes), TVMAF_CL_ARG(m->plane), TVMAF_CL_ARG(m->d_slots),
        TVMAF_CL_ARG(m->slot0[k]), TVMAF_CL_ARG(m->groups[k]),
    };
    err = tvmaf_opencl_twin_args(&m->t, FN_CM, sizeof(args) / sizeof(args[0]), args);
    if (!err)
        err = tvmaf_opencl_twin_launch(&m->t, FN_CM,
                                       (size_t)ADM_GRID_X((unsigned)(c->r - c->l)) * ADM_THREADS,
                                       (size_t)(c->b - c->t), ADM_THREADS, 1);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    AdmOpencl *m = priv;
    int err = tvmaf_opencl_twin_begin(&m->t, f);
    if (!err) err = tvmaf_opencl_twin_zero(&m->t, m->d_slots, m->n_slots * sizeof(cl_ulong));
    for (int k = 0; k < ADM_N_SCALES && !err; k++) err = launch_scale(m, f, k);
    if (!err) {
        const TvmafClArg args[] = { TVMAF_CL_ARG(m->d_scales), TVMAF_CL_ARG(m->d_slots),
                                    TVMAF_CL_ARG(m->d_slot0), TVMAF_CL_ARG(m->d_groups),
                                    TVMAF_CL_ARG(m->d_sums) };
        err = tvmaf_opencl_twin_args(&m->t, FN_FINISH, 5, args);
    }
    if (!err)
        err = tvmaf_opencl_twin_launch(&m->t, FN_FINISH, (size_t)ADM_N_SUMS * ADM_FINISH_THREADS,
                                       ADM_N_SCALES, ADM_FINISH_THREADS, 1);
    if (!err) err = tvmaf_opencl_twin_read(&m->t, m->h_sums, m->d_sums, sizeof(m->h_sums));
    if ((err = tvmaf_opencl_twin_end(&m->t, err))) return err;
    return tvmaf_adm_report(&m->s, m->h_sums, index, sink);
}

_Static_assert(sizeof(AdmScaleSums) == ADM_N_SUMS * sizeof(uint64_t),
               "AdmScaleSums is den[3], num[3], aim[3] in 64 bits");

const TvmafExtractor tvmaf_fex_adm_opencl = {
    .name = "adm",
    .backend = TVMAF_BACKEND_OPENCL,
    .options = tvmaf_adm_options,
    .priv_size = sizeof(AdmOpencl),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_adm_provided,
};
