/*
 * cambi twin, host side. cambi.cu computes, per picture (the distorted one
 * and, with full_ref, the reference), the c-values of the five scales
 * (cambi_math.h, "The CUDA twin's decomposition") and pools each scale on
 * the device: a radix select of the k-th largest c-value and the exact sum
 * of the k largest in units of 2^-24, which equals the CPU's double sum
 * whatever its order as long as it stays below 2^53 units ("The device's
 * pooling"). The host reads back per scale the select's state (24 bytes)
 * and the range-check flags, and runs the CPU's code from there:
 * cambi_combine_scales and the outputs. Where a scale has no exact sum (a
 * sum of 2^53 units or more, or a c-value that is not a whole number of
 * units: never met in the tests), its picture's c-values are read back and
 * that scale is pooled by the CPU's quickselect on the host; with heat maps
 * the distorted picture's c-values are read back for the CPU's writer. The options, refusals and constants are the CPU extractor's own
 * (tvmaf_cambi_setup); the display model's limits (glibc's pow), the
 * reciprocal table and the resampling positions are computed on the host
 * once and uploaded.
 *
 * Read-back per frame: 240 bytes and two flags; the c-values (4 bytes each,
 * about 4/3 of the picture's processed area) only for heat maps or a scale
 * without an exact sum.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi/cambi_math.h"
#include "feature/cambi/cambi_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_cambi_fatbin[];

enum { FN_CHECK, FN_LOAD, FN_DITHER, FN_FLAT, FN_MASK, FN_DECIMATE, FN_MODE, FN_CVALUES,
       FN_TOPK_HIST, FN_TOPK_SCAN };
static const char *const fn_names[] = { "cambi_check", "cambi_load", "cambi_dither",
                                        "cambi_flat_kernel", "cambi_mask_kernel",
                                        "cambi_decimate", "cambi_mode", "cambi_cvalues",
                                        "cambi_topk_hist", "cambi_topk_scan_kernel", NULL };
/* blocks of the top-k histogram pass at most */
#define CAMBI_TOPK_BLOCKS 512u

typedef struct CambiCuda {
    CambiParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    unsigned bpc;
    size_t n_pic[2];     /* c-values per picture: its five scales */
    size_t slab;         /* cells of one strip's histograms */
    int max_strips;
    CUdeviceptr d_img[2], d_mask[2], d_flat, d_hist, d_cval, d_limit, d_recip, d_flag;
    CUdeviceptr d_ix[2], d_iy[2]; /* resampling positions of enc, src */
    CUdeviceptr d_topk, d_tcount, d_tsum; /* per picture and scale; the bins */
    float *h_cval;
    int *h_flag;
    CambiTopk *h_topk;
    uint16_t *heat_row;
} CambiCuda;

static void cambi_cuda_close(void *priv)
{
    CambiCuda *s = priv;
    tvmaf_cuda_twin_close(&s->t);
    free(s->heat_row);
    s->heat_row = NULL;
    tvmaf_cambi_params_close(&s->p);
}

/* The resampling positions of the input to g (identity when the sizes agree,
 * as the CPU's load_luma), uploaded into *dx, *dy. */
static int upload_index(CambiCuda *s, const CambiGeom *g, CUdeviceptr *dx, CUdeviceptr *dy,
                        char *msg, size_t len)
{
    const unsigned in_w = s->p.in_w, in_h = s->p.in_h;
    unsigned *ix = malloc(sizeof(unsigned) * (g->w + g->h + 2));
    if (!ix) {
        snprintf(msg, len, "feature \"cambi\" (cuda): out of host memory");
        return -ENOMEM;
    }
    unsigned *iy = ix + g->w + 1;
    if (in_w == g->w && in_h == g->h) {
        for (unsigned x = 0; x < g->w; x++) ix[x] = x;
        for (unsigned y = 0; y < g->h; y++) iy[y] = y;
    } else {
        cambi_resample_index(in_w, g->w, ix);
        cambi_resample_index(in_h, g->h, iy);
    }
    int err = tvmaf_cuda_twin_alloc(&s->t, dx, sizeof(unsigned) * g->w, msg, len);
    if (!err) err = tvmaf_cuda_twin_upload(&s->t, *dx, ix, sizeof(unsigned) * g->w, msg, len);
    if (!err) err = tvmaf_cuda_twin_alloc(&s->t, dy, sizeof(unsigned) * g->h, msg, len);
    if (!err) err = tvmaf_cuda_twin_upload(&s->t, *dy, iy, sizeof(unsigned) * g->h, msg, len);
    free(ix);
    return err;
}

/* device memory set to 0 once (the top-k bins: each scan clears them) */
static int zeroed(CambiCuda *s, CUdeviceptr *d, size_t bytes, char *msg, size_t len)
{
    void *z = calloc(1, bytes);
    if (!z) {
        snprintf(msg, len, "feature \"cambi\" (cuda): out of host memory");
        return -ENOMEM;
    }
    int err = tvmaf_cuda_twin_alloc(&s->t, d, bytes, msg, len);
    if (!err) err = tvmaf_cuda_twin_upload(&s->t, *d, z, bytes, msg, len);
    free(z);
    return err;
}

static int cambi_cuda_init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                           size_t len)
{
    CambiCuda *s = priv;
    CambiParams *p = &s->p;
    int err = tvmaf_cambi_setup(p, vi, msg, len);
    if (err) goto fail;
    s->bpc = vi->bpc;
    s->n_pic[0] = cambi_pic_values(p, &p->enc);
    s->n_pic[1] = p->full_ref ? cambi_pic_values(p, &p->src) : 0;
    const size_t plane = (size_t)p->stride * p->alloc_h, n_cval = s->n_pic[0] + s->n_pic[1];
    s->slab = (size_t)p->band.size * p->alloc_w + 1;
    s->max_strips = cambi_max_strips(s->slab, p->alloc_h);
    s->heat_row = malloc(sizeof(uint16_t) * p->alloc_w);
    if (!s->heat_row) {
        snprintf(msg, len, "feature \"cambi\" (cuda): out of host memory");
        err = -ENOMEM;
        goto fail;
    }
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "cambi", tvmaf_cambi_fatbin, fn_names, msg,
                                    len)))
        goto fail;
    for (int i = 0; i < 2 && !err; i++) {
        if (!(err = tvmaf_cuda_twin_alloc(&s->t, &s->d_img[i], sizeof(uint16_t) * plane, msg,
                                          len)))
            err = tvmaf_cuda_twin_alloc(&s->t, &s->d_mask[i], plane, msg, len);
    }
    if (err ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_flat, plane, msg, len)) ||
        (p->any_gate &&
         (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_hist,
                                      sizeof(uint16_t) * s->slab * (size_t)s->max_strips, msg,
                                      len))) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_cval, sizeof(float) * n_cval, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_flag, 2 * sizeof(int), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_limit, sizeof(p->limit), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_limit, p->limit, sizeof(p->limit), msg,
                                      len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_recip, sizeof(p->recip), msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_recip, p->recip, sizeof(p->recip), msg,
                                      len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_cval, sizeof(float) * n_cval,
                                          msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_flag, 2 * sizeof(int), msg,
                                          len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_topk, sizeof(CambiTopk) * 2 * CAMBI_NUM_SCALES,
                                      msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_topk,
                                          sizeof(CambiTopk) * 2 * CAMBI_NUM_SCALES, msg, len)) ||
        (err = zeroed(s, &s->d_tcount, sizeof(uint32_t) * CAMBI_TOPK_BINS, msg, len)) ||
        (err = zeroed(s, &s->d_tsum, sizeof(uint64_t) * CAMBI_TOPK_BINS, msg, len)) ||
        (err = upload_index(s, &p->enc, &s->d_ix[0], &s->d_iy[0], msg, len)) ||
        (p->full_ref && (err = upload_index(s, &p->src, &s->d_ix[1], &s->d_iy[1], msg, len))))
        goto fail;
    return 0;
fail:
    cambi_cuda_close(s);
    return err;
}

#define GX(n) (((unsigned)(n) + CAMBI_BLOCK_W - 1) / CAMBI_BLOCK_W)
#define GY(n)                                                                        \
    ((unsigned)(n) + CAMBI_BLOCK_H - 1 > TVMAF_CUDA_GRID_Y_MAX * CAMBI_BLOCK_H          \
         ? TVMAF_CUDA_GRID_Y_MAX                                                     \
         : ((unsigned)(n) + CAMBI_BLOCK_H - 1) / CAMBI_BLOCK_H)

static int launch(CambiCuda *s, unsigned fn, unsigned w, unsigned h, void **args)
{
    return tvmaf_cuda_twin_launch(&s->t, fn, GX(w), GY(h), CAMBI_BLOCK_W, CAMBI_BLOCK_H, args);
}

/* Picture `which` (0: distorted at enc, 1: reference at src) from the luma
 * plane src: its c-values into d_cval at off, its range flag. */
static int run_picture(CambiCuda *s, int which, CUdeviceptr src, size_t pitch, size_t off)
{
    const CambiParams *p = &s->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    int stride = (int)p->stride, gw = (int)g->w, gh = (int)g->h;
    unsigned bpc = s->bpc;
    int err;
    if (bpc > 8 && bpc < 16) {
        int iw = (int)p->in_w, ih = (int)p->in_h;
        CUdeviceptr flag = s->d_flag + sizeof(int) * (size_t)which;
        void *a[] = { &src, &pitch, &iw, &ih, &bpc, &flag };
        if ((err = launch(s, FN_CHECK, p->in_w, p->in_h, a))) return err;
    }
    int cur = 0, mcur = 0;
    {
        void *a[] = { &src, &pitch, &bpc, &s->d_ix[which], &s->d_iy[which], &gw, &gh,
                      &s->d_img[0], &stride };
        if ((err = launch(s, FN_LOAD, g->w, g->h, a))) return err;
    }
    if (p->work_bits < 10) {
        void *a[] = { &s->d_img[0], &s->d_img[1], &stride, &gw, &gh };
        if ((err = launch(s, FN_DITHER, g->w, g->h, a))) return err;
        cur = 1;
    }
    {
        unsigned threshold = cambi_mask_threshold(g->w, g->h);
        void *a[] = { &s->d_img[cur], &s->d_flat, &stride, &gw, &gh };
        void *b[] = { &s->d_flat, &s->d_mask[0], &stride, &gw, &gh, &threshold };
        if ((err = launch(s, FN_FLAT, g->w, g->h, a)) || (err = launch(s, FN_MASK, g->w, g->h, b)))
            return err;
    }
    unsigned w = g->w, h = g->h;
    int half = g->window >> 1;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        int sw, sh;
        if (cambi_scale_step(k, p->halved, &w, &h)) {
            sw = (int)w;
            sh = (int)h;
            void *a[] = { &s->d_img[cur], &s->d_mask[mcur], &s->d_img[!cur], &s->d_mask[!mcur],
                          &stride, &gw, &gh, &sw, &sh };
            if ((err = launch(s, FN_DECIMATE, g->w, g->h, a))) return err;
            cur = !cur;
            mcur = !mcur;
        }
        sw = (int)w;
        sh = (int)h;
        {
            void *a[] = { &s->d_img[cur], &s->d_img[!cur], &stride, &gw, &gh, &sw, &sh };
            if ((err = launch(s, FN_MODE, g->w, g->h, a))) return err;
            cur = !cur;
        }
        CUdeviceptr cval = s->d_cval + sizeof(float) * off;
        if (!p->any_gate) {
            if ((err = tvmaf_cuda_memset(cval, 0, sizeof(float) * w * h, s->t.stream)))
                return err;
        } else {
            int rows = cambi_strip_rows(sh, s->max_strips);
            const unsigned strips = (h + (unsigned)rows - 1) / (unsigned)rows;
            int base = p->band.base, size = p->band.size, nd = p->num_diffs, vlt = p->vlt_code;
            void *a[] = { &s->d_img[cur], &s->d_mask[mcur], &stride, &sw, &sh, &half, &rows,
                          &s->d_hist, &s->slab, &base, &size, &nd, &s->d_limit, &vlt,
                          &s->d_recip, &cval };
            if ((err = tvmaf_cuda_twin_launch(&s->t, FN_CVALUES,
                                              (w + CAMBI_CVAL_THREADS - 1) / CAMBI_CVAL_THREADS,
                                              strips, CAMBI_CVAL_THREADS, 1, a)))
                return err;
        }
        /* the top-k select of the scale's c-values */
        int n = sw * sh;
        unsigned kt = (unsigned)cambi_topk_count(p->pool_topk, w, h);
        CUdeviceptr st = s->d_topk + sizeof(CambiTopk) * (size_t)(which * CAMBI_NUM_SCALES + k);
        unsigned blocks = (w * h + CAMBI_TOPK_THREADS - 1) / CAMBI_TOPK_THREADS;
        if (blocks > CAMBI_TOPK_BLOCKS) blocks = CAMBI_TOPK_BLOCKS;
        for (int pass = 0; pass < CAMBI_TOPK_PASSES; pass++) {
            void *a[] = { &cval, &n, &pass, &st, &s->d_tcount, &s->d_tsum };
            void *b[] = { &st, &s->d_tcount, &s->d_tsum, &pass, &kt };
            if ((err = tvmaf_cuda_twin_launch(&s->t, FN_TOPK_HIST, blocks, 1, CAMBI_TOPK_THREADS,
                                              1, a)) ||
                (err = tvmaf_cuda_twin_launch(&s->t, FN_TOPK_SCAN, 1, 1, CAMBI_TOPK_SCAN_THREADS,
                                              1, b)))
                return err;
        }
        off += (size_t)w * h;
    }
    return 0;
}

/* Whether every scale of picture `which` has its exact device sum. */
static bool pic_exact(const CambiCuda *s, int which)
{
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        uint64_t total;
        if (!cambi_topk_total(&s->h_topk[which * CAMBI_NUM_SCALES + k], &total)) return false;
    }
    return true;
}

/* The score of picture `which`: per scale the device's exact top-k mean,
 * or, where it has none, the CPU's pooling of the c-values read back (cval:
 * the picture's c-values on the host, NULL when not read back); the heat
 * maps from cval. */
static int pic_score(CambiCuda *s, int which, float *cval, bool heatmap, unsigned index,
                     double *score)
{
    const CambiParams *p = &s->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    double scale_score[CAMBI_NUM_SCALES];
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        cambi_scale_step(k, p->halved, &w, &h);
        if (heatmap) {
            int err = tvmaf_cambi_write_heatmap(p, k, w, h, g->window, index, cval, s->heat_row);
            if (err) return err;
        }
        uint64_t total;
        if (cambi_topk_total(&s->h_topk[which * CAMBI_NUM_SCALES + k], &total))
            scale_score[k] = cambi_topk_mean(total, cambi_topk_count(p->pool_topk, w, h));
        else if (cval)
            scale_score[k] = cambi_pool(cval, p->pool_topk, w, h);
        else
            return -EINVAL; /* not reached: pic_exact decided the read-back */
        if (cval) cval += (size_t)w * h;
    }
    *score = cambi_combine_scales(scale_score, g->window);
    return 0;
}

static int cambi_cuda_extract(void *priv, const TvmafDeviceFrame *f, unsigned index,
                              TvmafSink *sink)
{
    CambiCuda *s = priv;
    const CambiParams *p = &s->p;
    if (f->n_planes < 1) return -EINVAL;
    const bool heat = p->heatmaps_path[0] != '\0';
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    const size_t n_topk = sizeof(CambiTopk) * 2 * CAMBI_NUM_SCALES;
    err = tvmaf_cuda_memset(s->d_flag, 0, 2 * sizeof(int), s->t.stream);
    if (!err) err = tvmaf_cuda_memset(s->d_topk, 0, n_topk, s->t.stream);
    if (!err) err = run_picture(s, 0, f->d_dis[0], f->pitch[0], 0);
    if (!err && p->full_ref) err = run_picture(s, 1, f->d_ref[0], f->pitch[0], s->n_pic[0]);
    /* the heat maps need the distorted picture's c-values */
    if (!err && heat)
        err = tvmaf_cuda_copy_d2h(s->h_cval, s->d_cval, sizeof(float) * s->n_pic[0], s->t.stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_topk, s->d_topk, n_topk, s->t.stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_flag, s->d_flag, 2 * sizeof(int), s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    /* the CPU refuses a frame with a sample past the input's depth */
    if (s->h_flag[0]) return -EINVAL;
    /* a scale without an exact device sum: its picture's c-values to the host */
    const bool back[2] = { !heat && !pic_exact(s, 0), p->full_ref && !pic_exact(s, 1) };
    if (back[0] || back[1]) {
        if ((err = tvmaf_cuda_twin_begin(&s->t, f))) return err;
        for (int i = 0; i < 2 && !err; i++)
            if (back[i])
                err = tvmaf_cuda_copy_d2h(s->h_cval + (i ? s->n_pic[0] : 0),
                                          s->d_cval + sizeof(float) * (i ? s->n_pic[0] : 0),
                                          sizeof(float) * s->n_pic[i], s->t.stream);
        if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    }
    double dist, src;
    if ((err = pic_score(s, 0, heat || back[0] ? s->h_cval : NULL, heat, index, &dist)))
        return err;
    if (!p->full_ref) return tvmaf_cambi_report(p, index, dist, NULL, sink);
    if (s->h_flag[1]) {
        /* the distorted picture's score is written before the source fails */
        tvmaf_cambi_report(p, index, dist, NULL, sink);
        return -EINVAL;
    }
    if ((err = pic_score(s, 1, back[1] ? s->h_cval + s->n_pic[0] : NULL, false, index, &src)))
        return err;
    return tvmaf_cambi_report(p, index, dist, &src, sink);
}

const TvmafExtractor tvmaf_fex_cambi_cuda = {
    .name = "cambi",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_cambi_options,
    .priv_size = sizeof(CambiCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = cambi_cuda_init,
    .extract_device = cambi_cuda_extract,
    .close = cambi_cuda_close,
    .provided_features = tvmaf_cambi_provided,
};
