/*
 * psnr_hvs twin, host side: psnr_hvs.cu computes every block's 64 terms
 * (one thread per block position, per plane) and packs each CUDA block's
 * non-zero terms into its region; the host reads them back, adds each
 * plane's regions in order into one float as the CPU adds its terms
 * (phvs_regions_sum) and reports with the CPU extractor's code. The
 * weights are the host's own floats (phvs_weights_init), uploaded once.
 */
#include <errno.h>
#include <stdint.h>

#include "feature/psnr_hvs/psnr_hvs_math.h"
#include "feature/psnr_hvs/psnr_hvs_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_psnr_hvs_fatbin[];

enum { FN_BLOCKS };
static const char *const fn_names[] = { "psnr_hvs_blocks", NULL };

typedef struct PsnrHvsCuda {
    PsnrHvsParams p;
    TvmafCudaTwin t;
    int bx[3];              /* block positions per row, per plane */
    int64_t n_blocks[3];
    int64_t reg[3];         /* a plane's first region (CUDA block) */
    int64_t n_reg[3];       /* its regions */
    int64_t n_regions;      /* all planes' */
    CUdeviceptr d_weights;  /* PhvsWeights[3] */
    CUdeviceptr d_terms;    /* PHVS_REGION floats per region */
    CUdeviceptr d_counts;   /* one per region */
    float *h_terms;         /* page-locked copies */
    uint32_t *h_counts;
    int zeroed;             /* d_terms cleared: the read-back copies whole regions, of
                             * which the host reads only the counted terms */
} PsnrHvsCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((PsnrHvsCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    PsnrHvsCuda *s = priv;
    int err = tvmaf_psnr_hvs_setup(&s->p, vi, msg, len);
    if (err) return err;
    unsigned pw[3], ph[3]; /* three planes: setup refused 4:0:0 */
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph)) return -EINVAL;
    s->n_regions = 0;
    for (int p = 0; p < 3; p++) {
        s->bx[p] = phvs_block_count((int)pw[p]);
        s->n_blocks[p] = (int64_t)s->bx[p] * phvs_block_count((int)ph[p]);
        s->reg[p] = s->n_regions;
        s->n_reg[p] = (s->n_blocks[p] + PHVS_THREADS - 1) / PHVS_THREADS;
        s->n_regions += s->n_reg[p];
    }
    const size_t terms = sizeof(float) * PHVS_REGION * (size_t)s->n_regions;
    const size_t counts = sizeof(uint32_t) * (size_t)s->n_regions;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "psnr_hvs", tvmaf_psnr_hvs_fatbin, fn_names, msg,
                                    len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_weights, sizeof(s->p.weights), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_weights, s->p.weights, sizeof(s->p.weights),
                                      msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_terms, terms, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_counts, counts, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_terms, terms, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_counts, counts, msg, len)))
        return err;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init
 * releases what it holds (the twin base's close takes a partial set-up). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    PsnrHvsCuda *s = priv;
    if (f->n_planes < 3) return -EINVAL;
    for (int p = 0; p < 3; p++) /* the frame is the one init was sized for */
        if (phvs_block_count((int)f->pw[p]) != s->bx[p] ||
            (int64_t)s->bx[p] * phvs_block_count((int)f->ph[p]) != s->n_blocks[p])
            return -EINVAL;
    unsigned bytes = f->bytes_per_sample;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    if (!s->zeroed) {
        err = tvmaf_cuda_memset(s->d_terms, 0, sizeof(float) * PHVS_REGION * (size_t)s->n_regions,
                                s->t.stream);
        s->zeroed = !err;
    }
    for (int p = 0; p < 3 && !err; p++) {
        CUdeviceptr ref = f->d_ref[p], dis = f->d_dis[p];
        CUdeviceptr w = s->d_weights + sizeof(PhvsWeights) * (size_t)p;
        CUdeviceptr terms = s->d_terms + sizeof(float) * PHVS_REGION * (size_t)s->reg[p];
        CUdeviceptr counts = s->d_counts + sizeof(uint32_t) * (size_t)s->reg[p];
        size_t pitch = f->pitch[p];
        int bx = s->bx[p];
        int64_t n = s->n_blocks[p];
        void *args[] = { &ref, &dis, &pitch, &bytes, &bx, &n, &w, &terms, &counts };
        err = tvmaf_cuda_twin_launch(&s->t, FN_BLOCKS, (unsigned)s->n_reg[p], 1, PHVS_THREADS, 1,
                                     args);
    }
    if (!err)
        err = tvmaf_cuda_copy_d2h(s->h_counts, s->d_counts,
                                  sizeof(uint32_t) * (size_t)s->n_regions, s->t.stream);
    if (!err)
        err = tvmaf_cuda_copy_d2h(s->h_terms, s->d_terms,
                                  sizeof(float) * PHVS_REGION * (size_t)s->n_regions, s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    for (int64_t g = 0; g < s->n_regions; g++) /* a region holds at most its blocks' terms */
        if (s->h_counts[g] > PHVS_REGION) return -EIO;
    double score[3];
    for (int p = 0; p < 3; p++)
        score[p] = phvs_plane_score(
            phvs_regions_sum(s->h_terms + PHVS_REGION * s->reg[p], s->h_counts + s->reg[p],
                             s->n_reg[p]),
            64 * s->n_blocks[p], s->p.bpc);
    return tvmaf_psnr_hvs_report(score, index, sink);
}

static const char *const provided[] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs", NULL
};

const TvmafExtractor tvmaf_fex_psnr_hvs_cuda = {
    .name = "psnr_hvs",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(PsnrHvsCuda),
    .flags = 0,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
