/*
 * Integer vif twin, host side. Each frame: on the luma of both pictures,
 * on the device already (the frame's device copy), vif.cu runs one launch per
 * scale (scale s reads the planes of scale s, adds its integer sums into its
 * VifSums on the device and writes the decimated planes of scale s + 1,
 * which stay on the device), and the four VifSums (128 bytes) are read back.
 * Everything after the integer sums (num/den, scores, debug outputs, key
 * names, options) is the CPU extractor's own code (vif_state.h). Buffers and
 * the log2 table are set up once per instance (one per worker thread).
 *
 * In a ladder (the context shares its reference pictures with other pairs'
 * contexts) each scale runs as vif_tile.h's two passes: the reference pass
 * once per reference picture, by whichever pair needs it first, into the
 * picture's area of the ladder's cache (its planes of scales 1..3, its
 * per-pixel terms, its den sums), and the pair pass per pair, reading them.
 * A frame whose reference is not in the cache takes the one-pass kernels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_vif_fatbin[];

enum { FN_SCALE0_8, FN_SCALE0_16, FN_SCALE1, FN_SCALE2, FN_SCALE3, FN_REF = 5, FN_PAIR = 10 };
static const char *const fn_names[] = {
    "vif_scale0_8", "vif_scale0_16", "vif_scale1", "vif_scale2", "vif_scale3",
    "vif_ref_scale0_8", "vif_ref_scale0_16", "vif_ref_scale1", "vif_ref_scale2", "vif_ref_scale3",
    "vif_pair_scale0_8", "vif_pair_scale0_16", "vif_pair_scale1", "vif_pair_scale2",
    "vif_pair_scale3", NULL,
};

/* The reference pass's area of one reference picture: the den sums of the
 * four scales, then per scale its terms (mu1, sigma1_sq: w x h x 4 bytes
 * each), then the reference's planes of scales 1..3 (rows of VIF_ROW_BYTES), each
 * part starting on VIF_ROW_ALIGN bytes. */
typedef struct VifRefLayout {
    size_t mu1[VIF_N_SCALES], sigma[VIF_N_SCALES], plane[VIF_N_SCALES];
    size_t bytes;
} VifRefLayout;

typedef struct VifCuda {
    VifParams p; /* first: the option offsets are relative to it */
    TvmafCudaTwin t;
    CUdeviceptr d_img;             /* scales 1..3: reference and distorted planes */
    CUdeviceptr d_ref[VIF_N_SCALES], d_dis[VIF_N_SCALES];
    size_t pitch[VIF_N_SCALES];    /* bytes per row */
    CUdeviceptr d_log2;            /* VIF_LOG2_TABLE_LEN x uint16 */
    CUdeviceptr d_sums;            /* VIF_N_SCALES x VifSums */
    VifSums *h_sums;               /* page-locked: the pair's, then the reference pass's */
    unsigned slot;                 /* the ladder's reference-side area, or TVMAF_CUDA_NO_DERIVED */
    VifRefLayout lay;
} VifCuda;

static size_t align_up(size_t n)
{
    return (n + VIF_ROW_ALIGN - 1) & ~(size_t)(VIF_ROW_ALIGN - 1);
}

static void ref_layout(const VifParams *p, VifRefLayout *l)
{
    size_t at = align_up(VIF_N_SCALES * sizeof(VifSums));
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        const size_t n = (size_t)p->w[k] * p->h[k] * sizeof(uint32_t);
        l->mu1[k] = at;
        l->sigma[k] = at + align_up(n);
        at += 2 * align_up(n);
    }
    l->plane[0] = 0; /* scale 0 is the frame's */
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        l->plane[k] = at;
        at += align_up(VIF_ROW_BYTES(p->w[k]) * p->h[k]);
    }
    l->bytes = at;
}

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
                                          2 * VIF_N_SCALES * sizeof(VifSums), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&v->t, &v->d_log2, log2_bytes, msg, len)))
        return err;
    ref_layout(&v->p, &v->lay);
    /* the layout depends only on the picture's size and depth, which every
     * pair of a ladder shares */
    char key[32];
    snprintf(key, sizeof(key), "vif/%ux%u/%u", v->p.w[0], v->p.h[0], v->p.bpc);
    if ((err = tvmaf_cuda_gpu_ref_derived(gpu, key, v->lay.bytes, &v->slot))) {
        snprintf(msg, len, "feature \"vif\" (cuda): %s", tvmaf_cuda_last_error());
        return err;
    }
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

/* The reference pass of the four scales into the area at `a`. */
static int launch_ref(VifCuda *v, CUdeviceptr a)
{
    const unsigned last = VIF_N_SCALES - 1;
    int err = tvmaf_cuda_memset(a, 0, VIF_N_SCALES * sizeof(VifSums), v->t.stream);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) {
        const unsigned fn = FN_REF + (k == 0 ? (v->p.bpc == 8 ? 0 : 1) : k + 1);
        CUdeviceptr ref = k ? a + v->lay.plane[k] : v->d_ref[0];
        size_t pitch = v->pitch[k];
        unsigned w = v->p.w[k], h = v->p.h[k], bpc = v->p.bpc;
        const unsigned n = k < last ? k + 1 : k; /* scale 3 writes no plane */
        CUdeviceptr out_r = a + v->lay.plane[n];
        size_t out_pitch = v->pitch[n];
        CUdeviceptr mu1 = a + v->lay.mu1[k], sigma = a + v->lay.sigma[k];
        CUdeviceptr sums = a + k * sizeof(VifSums);
        void *args[] = { &ref, &pitch, &w, &h, &bpc, &v->d_log2, &out_r, &out_pitch, &mu1,
                         &sigma, &sums };
        err = tvmaf_cuda_twin_launch(&v->t, fn, VIF_GRID_X(w), VIF_GRID_Y(h), VIF_THREADS, 1,
                                     args);
    }
    return err;
}

/* The pair pass of scale k, with the reference pass's area at `a`. */
static int launch_pair(VifCuda *v, CUdeviceptr a, unsigned k)
{
    const unsigned last = VIF_N_SCALES - 1;
    const unsigned fn = FN_PAIR + (k == 0 ? (v->p.bpc == 8 ? 0 : 1) : k + 1);
    CUdeviceptr ref = k ? a + v->lay.plane[k] : v->d_ref[0], dis = v->d_dis[k];
    size_t pitch = v->pitch[k];
    unsigned w = v->p.w[k], h = v->p.h[k], bpc = v->p.bpc;
    unsigned score = vif_scale_scored(&v->p, k);
    double gain_limit = v->p.gain_limit;
    CUdeviceptr out_d = v->d_dis[k < last ? k + 1 : k];
    size_t out_pitch = v->pitch[k < last ? k + 1 : k];
    CUdeviceptr mu1 = a + v->lay.mu1[k], sigma = a + v->lay.sigma[k];
    CUdeviceptr sums = v->d_sums + k * sizeof(VifSums);
    void *args[] = { &ref, &dis, &pitch, &w, &h, &bpc, &score, &v->d_log2, &gain_limit,
                     &out_d, &out_pitch, &mu1, &sigma, &sums };
    return tvmaf_cuda_twin_launch(&v->t, fn, VIF_GRID_X(w), VIF_GRID_Y(h), VIF_THREADS, 1, args);
}

/* The frame as a ladder's pair: the reference pass unless another pair
 * queued it, then the pair pass; both VifSums read back. */
static int extract_shared(VifCuda *v, const TvmafDeviceFrame *f, CUdeviceptr a, bool fill)
{
    int err = 0;
    if (fill) {
        err = launch_ref(v, a);
        const int e2 = tvmaf_cuda_frame_ref_derived_done(f, v->slot, v->t.stream, !err);
        if (!err) err = e2;
    }
    if (!err) err = tvmaf_cuda_memset(v->d_sums, 0, VIF_N_SCALES * sizeof(VifSums), v->t.stream);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_pair(v, a, k);
    if (!err)
        err = tvmaf_cuda_copy_d2h(v->h_sums, v->d_sums, VIF_N_SCALES * sizeof(VifSums),
                                  v->t.stream);
    if (!err)
        err = tvmaf_cuda_copy_d2h(v->h_sums + VIF_N_SCALES, a, VIF_N_SCALES * sizeof(VifSums),
                                  v->t.stream);
    return err;
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
    CUdeviceptr a = 0;
    bool fill = false;
    if (v->slot != TVMAF_CUDA_NO_DERIVED)
        err = tvmaf_cuda_frame_ref_derived(f, v->slot, v->t.stream, &a, &fill);
    if (!err && a) {
        err = extract_shared(v, f, a, fill);
    } else if (!err) {
        err = tvmaf_cuda_memset(v->d_sums, 0, VIF_N_SCALES * sizeof(VifSums), v->t.stream);
        for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_scale(v, k);
        if (!err)
            err = tvmaf_cuda_copy_d2h(v->h_sums, v->d_sums, VIF_N_SCALES * sizeof(VifSums),
                                      v->t.stream);
    }
    if ((err = tvmaf_cuda_twin_end(&v->t, err))) return err;
    /* the reference pass's den terms and the pair pass's num terms: each sum
     * has its terms in one of the two */
    if (a)
        for (unsigned k = 0; k < VIF_N_SCALES; k++)
            vif_sums_add(&v->h_sums[k], &v->h_sums[VIF_N_SCALES + k]);
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
