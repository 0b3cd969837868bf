/*
 * psnr_hvs twin, plan (gpu/tvd.h): psnr_hvs_kernels.h computes every block's
 * 64 terms (one work-item per block position, per plane) and packs each
 * group's non-zero terms into its region; the host reads them back, adds
 * each plane's regions in order into one float as the CPU adds its terms
 * (phvs_regions_sum) and reports with the CPU extractor's code. The weights
 * are the host's own floats (phvs_weights_init), uploaded once.
 */
#include <errno.h>

#include "feature/psnr_hvs/psnr_hvs_kernels.h"
#include "feature/psnr_hvs/psnr_hvs_state.h"

TVD_MODULE(psnr_hvs, PSNR_HVS_KERNELS)

typedef struct PhvsPlan {
    PsnrHvsParams p;     /* first: the CPU extractor's state */
    int bx[3];           /* block positions per row, per plane */
    int64_t n_blocks[3];
    int64_t reg[3];      /* a plane's first region (group) */
    int64_t n_reg[3];    /* its regions */
    int64_t n_regions;   /* all planes' */
    TvdBuf weights;      /* PhvsWeights[3] */
    TvdBuf terms;        /* PHVS_REGION floats per region */
    TvdBuf counts;       /* one per region */
    bool zeroed;         /* terms cleared: the read-back copies whole regions, of which the
                          * host reads only the counted terms */
} PhvsPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    PhvsPlan *s = priv;
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
    s->zeroed = false;
    const size_t n = (size_t)s->n_regions;
    if ((err = tvd_buffer(t, &s->weights, sizeof(s->p.weights), 0)) ||
        (err = tvd_buffer(t, &s->terms, sizeof(float) * PHVS_REGION * n, TVD_MIRROR)))
        return err;
    return tvd_buffer(t, &s->counts, sizeof(uint32_t) * n, TVD_MIRROR);
}

static int setup(void *priv, TvdTwin *t)
{
    PhvsPlan *s = priv;
    return tvd_upload(t, tvd_whole(t, s->weights), s->p.weights);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    PhvsPlan *s = priv;
    if (tvd_planes(t, f) < 3) return -EINVAL;
    int err = 0;
    if (!s->zeroed) {
        err = tvd_fill(t, tvd_whole(t, s->terms), 0);
        s->zeroed = !err;
    }
    for (unsigned p = 0; p < 3 && !err; p++) {
        const size_t reg = (size_t)s->reg[p], n_reg = (size_t)s->n_reg[p];
        const PhvsArgs a = {
            .ref = tvd_plane(t, f, 0, p),
            .dis = tvd_plane(t, f, 1, p),
            .pitch = tvd_pitch(t, f, p),
            .bytes = s->p.bpc > 8 ? 2 : 1,
            .bx = s->bx[p],
            .n_blocks = s->n_blocks[p],
            .w = tvd_view(s->weights, sizeof(PhvsWeights) * p, sizeof(PhvsWeights)),
            .terms = tvd_view(s->terms, sizeof(float) * PHVS_REGION * reg,
                              sizeof(float) * PHVS_REGION * n_reg),
            .counts = tvd_view(s->counts, sizeof(uint32_t) * reg, sizeof(uint32_t) * n_reg),
        };
        err = tvd_launch(t, TVD_K_psnr_hvs_blocks, TVD_GRID((uint32_t)n_reg, 1), &a);
    }
    if (!err) err = tvd_download(t, tvd_whole(t, s->counts));
    return err ? err : tvd_download(t, tvd_whole(t, s->terms));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    PhvsPlan *s = priv;
    const float *terms = tvd_mirror(t, s->terms);
    const uint32_t *counts = tvd_mirror(t, s->counts);
    for (int64_t g = 0; g < s->n_regions; g++) /* a region holds at most its blocks' terms */
        if (counts[g] > PHVS_REGION) return -EIO;
    double score[3];
    for (int p = 0; p < 3; p++)
        score[p] = phvs_plane_score(phvs_regions_sum(terms + PHVS_REGION * s->reg[p],
                                                     counts + s->reg[p], s->n_reg[p]),
                                    64 * s->n_blocks[p], s->p.bpc);
    return tvmaf_psnr_hvs_report(score, index, sink);
}

TVD_PLAN(psnr_hvs, psnr_hvs, PhvsPlan, .needs = TVD_NEEDS_CR_DIV_SQRT, .init = init, .setup = setup,
         .run = run, .report = report);
