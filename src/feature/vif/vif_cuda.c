/*
 * Integer vif twin, host side. Each frame: on the luma of both pictures,
 * on the device already (the frame's device copy), vif.cu runs one launch per
 * scale (scale s reads the planes of scale s, adds its integer sums into its
 * VifSums on the device and writes the decimated planes of scale s + 1,
 * which stay on the device), and the four VifSums (128 bytes) are read back.
 * Everything after the integer sums (num/den, scores, debug outputs, key
 * names, options) is the CPU extractor's own code (vif_state.h). Buffers and
 * the log2 table are set up once per instance (one per worker thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_vif_fatbin[];

enum { FN_SCALE0_8, FN_SCALE0_16, FN_SCALE1, FN_SCALE2, FN_SCALE3 };
static const char *const fn_names[] = {
    "vif_scale0_8", "vif_scale0_16", "vif_scale1", "vif_scale2", "vif_scale3", NULL,
};

typedef struct VifCuda {
    VifParams p; /* first: the option offsets are relative to it */
    TvmafCudaTwin t;
    CUdeviceptr d_img;             /* scales 1..3: reference and distorted planes */
    CUdeviceptr d_ref[VIF_N_SCALES], d_dis[VIF_N_SCALES];
    size_t pitch[VIF_N_SCALES];    /* bytes per row */
    CUdeviceptr d_log2;            /* VIF_LOG2_TABLE_LEN x uint16 */
    CUdeviceptr d_sums;            /* VIF_N_SCALES x VifSums */
    VifSums *h_sums;               /* page-locked */
} VifCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((VifCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    VifCuda *v = priv;
    int err = tvmaf_vif_setup(&v->p, vi, msg, len);
    if (err) return err;
    if (VIF_GRID_Y(v->p.h[0]) > TVMAF_CUDA_GRID_Y_MAX) {
        snprintf(msg, len, "feature \"vif\" (cuda) supports frames up to %u rows, got %u",
                 TVMAF_CUDA_GRID_Y_MAX * VIF_TILE_H, v->p.h[0]);
        return -EINVAL;
    }
    size_t img = 0, off[VIF_N_SCALES] = { 0 };
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        v->pitch[k] = VIF_ROW_BYTES(v->p.w[k]);
        off[k] = img;
        img += 2 * v->pitch[k] * v->p.h[k];
    }
    const size_t log2_bytes = VIF_LOG2_TABLE_LEN * sizeof(uint16_t);
    if ((err = tvmaf_cuda_twin_open(&v->t, gpu, "vif", tvmaf_vif_fatbin, fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&v->t, &v->d_img, img, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&v->t, &v->d_sums, VIF_N_SCALES * sizeof(VifSums), msg,
                                     len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&v->t, (void **)&v->h_sums,
                                          VIF_N_SCALES * sizeof(VifSums), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&v->t, &v->d_log2, log2_bytes, msg, len)))
        return err;
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        v->d_ref[k] = v->d_img + off[k];
        v->d_dis[k] = v->d_img + off[k] + v->pitch[k] * v->p.h[k];
    }
    /* the CPU's table, built by the same function, sent once */
    uint16_t *table = malloc(log2_bytes);
    if (!table) {
        snprintf(msg, len, "feature \"vif\" (cuda): out of memory (log2 table, %zu bytes)",
                 log2_bytes);
        return -ENOMEM;
    }
    vif_log2_table_fill(table, vif_log2_steps);
    err = tvmaf_cuda_twin_upload(&v->t, v->d_log2, table, log2_bytes, msg, len);
    free(table);
    return err;
}

/* Core closes only the instances whose init succeeded: a failed init
 * releases what it holds (the twin base's close takes a partial set-up). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

/* Queues scale k's launch: its statistic (unless skipped) and, below scale
 * 3, the planes of scale k + 1. */
static int launch_scale(VifCuda *v, unsigned k)
{
    const unsigned last = VIF_N_SCALES - 1;
    const unsigned fn = k == 0 ? (v->p.bpc == 8 ? FN_SCALE0_8 : FN_SCALE0_16) : FN_SCALE1 + k - 1;
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
    return tvmaf_cuda_twin_launch(&v->t, fn, VIF_GRID_X(w), VIF_GRID_Y(h), VIF_THREADS, 1, args);
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    VifCuda *v = priv;
    /* scale 0 reads the frame's luma where the backend uploaded it */
    v->d_ref[0] = f->d_ref[0];
    v->d_dis[0] = f->d_dis[0];
    v->pitch[0] = f->pitch[0];
    int err = tvmaf_cuda_twin_begin(&v->t, f);
    if (err) return err;
    err = tvmaf_cuda_memset(v->d_sums, 0, VIF_N_SCALES * sizeof(VifSums), v->t.stream);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_scale(v, k);
    if (!err)
        err = tvmaf_cuda_copy_d2h(v->h_sums, v->d_sums, VIF_N_SCALES * sizeof(VifSums),
                                  v->t.stream);
    if ((err = tvmaf_cuda_twin_end(&v->t, err))) return err;
    return tvmaf_vif_report(&v->p, v->h_sums, index, sink) ? -EINVAL : 0;
}

const TvmafExtractor tvmaf_fex_vif_cuda = {
    .name = "vif",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_vif_options,
    .priv_size = sizeof(VifCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_vif_provided,
};
