/*
 * Integer vif twin, host side. Each frame: on the luma of both pictures,
 * on the device already (the context's TvmafTwinFrame), vif.cu runs one launch per scale (scale s reads
 * the planes of scale s, adds its integer sums into its VifSums on the device
 * and writes the decimated planes of scale s + 1, which stay on the device),
 * and the four VifSums (128 bytes) are read back. Everything after the
 * integer sums (num/den, scores, debug outputs, key names, options) is the
 * CPU extractor's own code (vif_state.h). Buffers, the stream and the log2
 * table are set up once per instance (one per worker thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/twin_frame.h"

extern const unsigned char tvmaf_vif_fatbin[];

/* Device rows of the decimated planes start on this many bytes. */
#define ROW_ALIGN 256
/* CUDA's limit on a grid's y dimension (scale 0's launch has VIF_GRID_Y(h) rows of blocks). */
#define GRID_Y_MAX 65535u

enum { FN_SCALE0_8, FN_SCALE0_16, FN_SCALE1, FN_SCALE2, FN_SCALE3, N_FN };
static const char *const fn_names[N_FN] = {
    "vif_scale0_8", "vif_scale0_16", "vif_scale1", "vif_scale2", "vif_scale3",
};

typedef struct VifCuda {
    VifParams p; /* first: the option offsets are relative to it */
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    CUfunction fn[N_FN];
    CUstream stream;
    TvmafCudaSpan span;
    CUdeviceptr d_img;             /* scales 1..3: reference and distorted planes */
    CUdeviceptr d_ref[VIF_N_SCALES], d_dis[VIF_N_SCALES];
    size_t pitch[VIF_N_SCALES];    /* bytes per row */
    CUdeviceptr d_log2;            /* VIF_LOG2_TABLE_LEN x uint16 */
    CUdeviceptr d_sums;            /* VIF_N_SCALES x VifSums */
    VifSums *h_sums;               /* pinned */
} VifCuda;

static void close_twin(void *priv)
{
    VifCuda *v = priv;
    if (!v->dev) return;
    tvmaf_cuda_push(v->dev);
    tvmaf_cuda_span_destroy(&v->span);
    tvmaf_cuda_mem_free(v->d_img);
    tvmaf_cuda_mem_free(v->d_log2);
    tvmaf_cuda_mem_free(v->d_sums);
    tvmaf_cuda_host_free(v->h_sums);
    tvmaf_cuda_stream_destroy(v->stream);
    tvmaf_cuda_pop(v->dev);
    tvmaf_cuda_module_unload(v->mod);
    tvmaf_cuda_release(v->dev);
    v->dev = NULL;
}

/* Device buffers, the stream and the log2 table; the context is current. */
static int alloc_device(VifCuda *v, const TvmafVideoInfo *vi)
{
    (void)vi;
    int err = tvmaf_cuda_stream_create(&v->stream);
    if (!err) err = tvmaf_cuda_span_init(&v->span);
    if (err) return err;

    size_t img = 0, off[VIF_N_SCALES] = { 0 };
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        v->pitch[k] = ((size_t)v->p.w[k] * sizeof(uint16_t) + ROW_ALIGN - 1) &
                      ~(size_t)(ROW_ALIGN - 1);
        off[k] = img;
        img += 2 * v->pitch[k] * v->p.h[k];
    }
    if ((err = tvmaf_cuda_mem_alloc(&v->d_img, img))) return err;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        v->d_ref[k] = v->d_img + off[k];
        v->d_dis[k] = v->d_img + off[k] + v->pitch[k] * v->p.h[k];
    }
    if ((err = tvmaf_cuda_mem_alloc(&v->d_sums, VIF_N_SCALES * sizeof(VifSums))) ||
        (err = tvmaf_cuda_host_alloc((void **)&v->h_sums, VIF_N_SCALES * sizeof(VifSums))) ||
        (err = tvmaf_cuda_mem_alloc(&v->d_log2, VIF_LOG2_TABLE_LEN * sizeof(uint16_t))))
        return err;

    /* the CPU's table, built by the same function, sent once */
    uint16_t *table = malloc(VIF_LOG2_TABLE_LEN * sizeof(uint16_t));
    if (!table) return -ENOMEM;
    vif_log2_table_fill(table, vif_log2_steps);
    err = tvmaf_cuda_copy_h2d(v->d_log2, table, VIF_LOG2_TABLE_LEN * sizeof(uint16_t),
                              v->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(v->stream);
    free(table);
    return err;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    VifCuda *v = priv;
    int err = tvmaf_vif_setup(&v->p, vi, msg, len);
    if (err) return err;
    if (VIF_GRID_Y(v->p.h[0]) > GRID_Y_MAX) {
        snprintf(msg, len, "feature \"vif\" (cuda) supports frames up to %u rows, got %u",
                 GRID_Y_MAX * VIF_TILE_H, v->p.h[0]);
        return -EINVAL;
    }
    if ((err = tvmaf_cuda_acquire(&v->dev, msg, len))) return err;
    if ((err = tvmaf_cuda_module_load(v->dev, tvmaf_vif_fatbin, &v->mod, msg, len))) goto fail;
    for (unsigned k = 0; k < N_FN; k++)
        if ((err = tvmaf_cuda_module_function(v->mod, fn_names[k], &v->fn[k]))) goto fail_msg;
    if ((err = tvmaf_cuda_push(v->dev))) goto fail_msg;
    err = alloc_device(v, vi);
    tvmaf_cuda_pop(v->dev);
    if (err) goto fail_msg;
    return 0;
fail_msg:
    snprintf(msg, len, "feature \"vif\" (cuda): %s",
             err == -ENOMEM && !*tvmaf_cuda_last_error() ? "out of memory"
                                                          : tvmaf_cuda_last_error());
fail:
    close_twin(v);
    return err;
}

/* Queues scale k's launch: its statistic (unless skipped) and, below scale
 * 3, the planes of scale k + 1. */
static int launch_scale(VifCuda *v, unsigned k)
{
    const unsigned last = VIF_N_SCALES - 1;
    CUfunction fn = k == 0 ? v->fn[v->p.bpc == 8 ? FN_SCALE0_8 : FN_SCALE0_16]
                           : v->fn[FN_SCALE1 + k - 1];
    CUdeviceptr ref = v->d_ref[k], dis = v->d_dis[k];
    size_t pitch = v->pitch[k];
    unsigned w = v->p.w[k], h = v->p.h[k], bpc = v->p.bpc;
    unsigned score = vif_scale_scored(&v->p, k);
    double gain_limit = v->p.gain_limit;
    /* scale 3 writes nothing: any valid address will do */
    CUdeviceptr out_r = v->d_ref[k < last ? k + 1 : k], out_d = v->d_dis[k < last ? k + 1 : k];
    size_t out_pitch = v->pitch[k < last ? k + 1 : k];
    CUdeviceptr sums = v->d_sums + k * sizeof(VifSums);
    void *args[] = { &ref, &dis, &pitch, &w, &h, &bpc, &score, &v->d_log2, &gain_limit,
                     &out_r, &out_d, &out_pitch, &sums };
    return tvmaf_cuda_launch(fn, VIF_GRID_X(w), VIF_GRID_Y(h), 1, VIF_THREADS, 1, 1, 0,
                             v->stream, args);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    VifCuda *v = priv;
    (void)ref;
    (void)dis;
    const TvmafTwinFrame *f = tvmaf_twin_frame_of(sink);
    if (!f) return -EINVAL;
    /* scale 0 reads the frame's luma where the context uploaded it */
    v->d_ref[0] = f->d_ref[0];
    v->d_dis[0] = f->d_dis[0];
    v->pitch[0] = f->pitch[0];
    int err = tvmaf_cuda_push(v->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(v->stream, f->ready);
    if (!err) err = tvmaf_cuda_span_begin(&v->span, v->stream);
    if (!err) err = tvmaf_cuda_memset(v->d_sums, 0, VIF_N_SCALES * sizeof(VifSums), v->stream);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_scale(v, k);
    if (!err) err = tvmaf_cuda_span_end(&v->span, v->stream);
    if (!err)
        err = tvmaf_cuda_copy_d2h(v->h_sums, v->d_sums, VIF_N_SCALES * sizeof(VifSums),
                                  v->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(v->stream);
    if (!err) err = tvmaf_cuda_span_add(&v->span, "vif");
    tvmaf_cuda_pop(v->dev);
    if (err) return err;
    return tvmaf_vif_report(&v->p, v->h_sums, index, sink) ? -EINVAL : 0;
}

const TvmafExtractor tvmaf_fex_vif_cuda = {
    .name = "vif",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_vif_options,
    .priv_size = sizeof(VifCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_twin,
    .provided_features = tvmaf_vif_provided,
};
