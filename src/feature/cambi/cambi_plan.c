/*
 * cambi twin, plan (gpu/tvd.h). Per frame, for the distorted picture and,
 * with full_ref, the reference, the kernels (cambi_kernels.h) compute the
 * c-values of the five scales and pool each scale: a radix select of the
 * k-th largest c-value and the exact sum of the k largest in units of
 * 2^-24, which equals the CPU's double sum whatever its order while it stays
 * below 2^53 units (cambi_math.h, "The device's pooling"). The host reads
 * back the select's state per scale and the range-check flags, waits, and
 * then reads back the c-values of a picture that has a scale without an
 * exact sum (a sum of 2^53 units or more, or a c-value that is not a whole
 * number of units), which the CPU's quickselect pools instead. With heat
 * maps the distorted picture's c-values come back with the rest, for the
 * CPU's writer. Everything after the device is the CPU extractor's code:
 * its options, refusals and constants (tvmaf_cambi_setup), the pooling,
 * cambi_combine_scales, the heat maps and the outputs.
 */
#include <errno.h>
#include <stdlib.h>

#include "feature/cambi/cambi_kernels.h"
#include "feature/cambi/cambi_state.h"

TVD_MODULE(cambi, CAMBI_KERNELS)

/* groups of a top-k histogram pass at most */
#define CAMBI_TOPK_BLOCKS 512u
/* CUDA's largest grid height: the per-sample kernels stride down by the grid */
#define CAMBI_GRID_Y_MAX 65535u

typedef struct CambiPlan {
    CambiParams p; /* first: the CPU extractor's state */
    bool opened;   /* p's heat-map files are the plan's to close */
    bool atomics;  /* the top-k passes with 64-bit atomics */
    bool back[2];  /* this frame: picture i's c-values come back */
    unsigned bpc;
    size_t n_pic[2]; /* c-values per picture: its five scales */
    size_t slab;     /* cells of one strip's histograms */
    int max_strips;
    /* the mirrored ones first, so that the host copies span only them */
    TvdBuf flag, topk, cval;
    TvdBuf img[2], mask[2], flat, hist, limit, recip, tcount, tsum, ix[2], iy[2];
    uint16_t *heat_row;
} CambiPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    CambiPlan *s = priv;
    CambiParams *p = &s->p;
    s->opened = true;
    int err = tvmaf_cambi_setup(p, vi, msg, len);
    if (err) return err;
    s->atomics = tvd_caps(t)->warp == 32 && tvd_caps(t)->atomic64;
    s->bpc = vi->bpc;
    s->n_pic[0] = cambi_pic_values(p, &p->enc);
    s->n_pic[1] = p->full_ref ? cambi_pic_values(p, &p->src) : 0;
    const size_t plane = (size_t)p->stride * p->alloc_h;
    s->slab = (size_t)p->band.size * p->alloc_w + 1;
    s->max_strips = cambi_max_strips(s->slab, p->alloc_h);
    if (!(s->heat_row = malloc(sizeof(uint16_t) * p->alloc_w))) return -ENOMEM;
    tvd_buffer(t, &s->flag, 2 * sizeof(uint32_t), TVD_MIRROR);
    tvd_buffer(t, &s->topk, sizeof(CambiTopk) * 2 * CAMBI_NUM_SCALES, TVD_MIRROR);
    tvd_buffer(t, &s->cval, sizeof(float) * (s->n_pic[0] + s->n_pic[1]), TVD_MIRROR);
    for (int i = 0; i < 2; i++) {
        tvd_buffer(t, &s->img[i], sizeof(uint16_t) * plane, 0);
        tvd_buffer(t, &s->mask[i], plane, 0);
    }
    tvd_buffer(t, &s->flat, plane, 0);
    if (p->any_gate)
        tvd_buffer(t, &s->hist, sizeof(uint16_t) * s->slab * (size_t)s->max_strips, 0);
    tvd_buffer(t, &s->limit, sizeof(p->limit), 0);
    tvd_buffer(t, &s->recip, sizeof(p->recip), 0);
    tvd_buffer(t, &s->tcount, sizeof(uint32_t) * CAMBI_TOPK_BINS, 0);
    tvd_buffer(t, &s->tsum, sizeof(uint64_t) * CAMBI_TOPK_BINS, 0);
    for (int i = 0; i < 1 + p->full_ref; i++) {
        const CambiGeom *g = i ? &p->src : &p->enc;
        tvd_buffer(t, &s->ix[i], sizeof(uint32_t) * g->w, 0);
        tvd_buffer(t, &s->iy[i], sizeof(uint32_t) * g->h, 0);
    }
    return 0;
}

/* The tables, the resampling positions of the input to each picture's size
 * (identity when the sizes agree, as the CPU's load_luma), and the top-k
 * bins at 0 (each scan clears them after). */
static int setup(void *priv, TvdTwin *t)
{
    CambiPlan *s = priv;
    const CambiParams *p = &s->p;
    const size_t n = p->alloc_w + p->alloc_h;
    uint32_t *tmp = calloc(n > 2 * CAMBI_TOPK_BINS ? n : 2 * CAMBI_TOPK_BINS, sizeof(uint32_t));
    if (!tmp) return -ENOMEM;
    tvd_upload(t, tvd_whole(t, s->tcount), tmp);
    tvd_upload(t, tvd_whole(t, s->tsum), tmp);
    tvd_upload(t, tvd_whole(t, s->limit), p->limit);
    tvd_upload(t, tvd_whole(t, s->recip), p->recip);
    for (int i = 0; i < 1 + p->full_ref; i++) {
        const CambiGeom *g = i ? &p->src : &p->enc;
        uint32_t *ix = tmp, *iy = tmp + g->w;
        if (p->in_w == g->w && p->in_h == g->h) {
            for (unsigned x = 0; x < g->w; x++) ix[x] = x;
            for (unsigned y = 0; y < g->h; y++) iy[y] = y;
        } else {
            cambi_resample_index(p->in_w, g->w, ix);
            cambi_resample_index(p->in_h, g->h, iy);
        }
        tvd_upload(t, tvd_whole(t, s->ix[i]), ix);
        tvd_upload(t, tvd_whole(t, s->iy[i]), iy);
    }
    free(tmp);
    return 0;
}

/* the per-sample grid over w x h */
static TvdGrid samples(unsigned w, unsigned h)
{
    const unsigned gy = (h + CAMBI_BLOCK_H - 1) / CAMBI_BLOCK_H;
    return TVD_GRID((w + CAMBI_BLOCK_W - 1) / CAMBI_BLOCK_W,
                    gy > CAMBI_GRID_Y_MAX ? CAMBI_GRID_Y_MAX : gy);
}

/* the c-values of picture i (0: distorted, 1: reference) */
static TvdView pic_cvals(const CambiPlan *s, int i)
{
    return tvd_view(s->cval, i ? sizeof(float) * s->n_pic[0] : 0, sizeof(float) * s->n_pic[i]);
}

/* The top-k select of a scale's w x h c-values into its state st. */
static void topk(CambiPlan *s, TvdTwin *t, TvdView cval, TvdView st, unsigned w, unsigned h)
{
    unsigned blocks = (w * h + CAMBI_TOPK_THREADS - 1) / CAMBI_TOPK_THREADS;
    if (blocks > CAMBI_TOPK_BLOCKS) blocks = CAMBI_TOPK_BLOCKS;
    const TvdView count = tvd_whole(t, s->tcount), sum = tvd_whole(t, s->tsum);
    const uint32_t k = (uint32_t)cambi_topk_count(s->p.pool_topk, w, h);
    for (int pass = 0; pass < CAMBI_TOPK_PASSES; pass++) {
        const CambiTopkArgs a = { .cval = cval, .n = (int32_t)(w * h), .pass = pass,
                                  .st = st, .count = count, .sum = sum };
        const CambiScanArgs b = { .st = st, .count = count, .sum = sum, .pass = pass, .k = k };
        tvd_launch(t, s->atomics ? TVD_K_cambi_topk_hist : TVD_K_cambi_topk_hist_pairs,
                   TVD_GRID(blocks, 1), &a);
        tvd_launch(t, s->atomics ? TVD_K_cambi_topk_scan_kernel : TVD_K_cambi_topk_scan_pairs,
                   TVD_GRID(1, 1), &b);
    }
}

/* Picture `which` (0: distorted at enc, 1: reference at src) from the luma
 * plane src: its c-values and top-k states, its range flag. */
static void run_picture(CambiPlan *s, TvdTwin *t, int which, TvdView src, uint64_t pitch)
{
    const CambiParams *p = &s->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    const int32_t stride = (int32_t)p->stride, gw = (int32_t)g->w, gh = (int32_t)g->h;
    const TvdGrid grid = samples(g->w, g->h);
    TvdView img[2], mask[2];
    for (int i = 0; i < 2; i++) {
        img[i] = tvd_whole(t, s->img[i]);
        mask[i] = tvd_whole(t, s->mask[i]);
    }
    const TvdView flat = tvd_whole(t, s->flat);
    int cur = 0, mcur = 0;
    if (s->bpc > 8 && s->bpc < 16) {
        const CambiCheckArgs a = {
            .src = src, .pitch = pitch, .w = (int32_t)p->in_w, .h = (int32_t)p->in_h,
            .bpc = s->bpc, .flag = tvd_view(s->flag, sizeof(uint32_t) * which, sizeof(uint32_t)) };
        tvd_launch(t, TVD_K_cambi_check, samples(p->in_w, p->in_h), &a);
    }
    const CambiLoadArgs load = { .src = src, .pitch = pitch, .bpc = s->bpc,
                                 .ix = tvd_whole(t, s->ix[which]), .iy = tvd_whole(t, s->iy[which]),
                                 .ow = gw, .oh = gh, .img = img[0], .stride = stride };
    tvd_launch(t, TVD_K_cambi_load, grid, &load);
    if (p->work_bits < 10) {
        const CambiDitherArgs a = { .in = img[0], .out = img[1], .stride = stride, .w = gw,
                                    .h = gh };
        tvd_launch(t, TVD_K_cambi_dither, grid, &a);
        cur = 1;
    }
    const CambiFlatArgs fa = { .img = img[cur], .flat = flat, .stride = stride, .w = gw, .h = gh };
    const CambiMaskArgs ma = { .flat = flat, .mask = mask[0], .stride = stride, .w = gw, .h = gh,
                               .threshold = cambi_mask_threshold(g->w, g->h) };
    tvd_launch(t, TVD_K_cambi_flat_kernel, grid, &fa);
    tvd_launch(t, TVD_K_cambi_mask_kernel, grid, &ma);
    unsigned w = g->w, h = g->h;
    size_t off = which ? s->n_pic[0] : 0;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        if (cambi_scale_step(k, p->halved, &w, &h)) {
            const CambiDecimateArgs a = {
                .img = img[cur], .mask = mask[mcur], .img_out = img[!cur], .mask_out = mask[!mcur],
                .stride = stride, .gw = gw, .gh = gh, .w = (int32_t)w, .h = (int32_t)h };
            tvd_launch(t, TVD_K_cambi_decimate, grid, &a);
            cur = !cur;
            mcur = !mcur;
        }
        const CambiModeArgs mo = { .in = img[cur], .out = img[!cur], .stride = stride, .gw = gw,
                                   .gh = gh, .w = (int32_t)w, .h = (int32_t)h };
        tvd_launch(t, TVD_K_cambi_mode, grid, &mo);
        cur = !cur;
        const TvdView cval = tvd_view(s->cval, sizeof(float) * off, sizeof(float) * w * h);
        if (!p->any_gate) {
            tvd_fill(t, cval, 0);
        } else {
            const int rows = cambi_strip_rows((int)h, s->max_strips);
            const CambiCvalArgs a = {
                .img = img[cur], .mask = mask[mcur], .stride = stride, .w = (int32_t)w,
                .h = (int32_t)h, .radius = g->window >> 1, .rows = rows,
                .hist = tvd_whole(t, s->hist), .slab = s->slab, .band_base = p->band.base,
                .band_size = p->band.size, .num_diffs = p->num_diffs,
                .limit = tvd_whole(t, s->limit), .vlt_code = p->vlt_code,
                .recip = tvd_whole(t, s->recip), .cval = cval };
            tvd_launch(t, TVD_K_cambi_cvalues,
                       TVD_GRID((w + CAMBI_CVAL_THREADS - 1) / CAMBI_CVAL_THREADS,
                                (h + (unsigned)rows - 1) / (unsigned)rows), &a);
        }
        const TvdView st = tvd_view(s->topk, sizeof(CambiTopk) * (which * CAMBI_NUM_SCALES + k),
                                    sizeof(CambiTopk));
        topk(s, t, cval, st, w, h);
        off += (size_t)w * h;
    }
}

/* Whether every scale of picture `which` has its exact device sum. */
static bool pic_exact(CambiPlan *s, TvdTwin *t, int which)
{
    const CambiTopk *st = (const CambiTopk *)tvd_mirror(t, s->topk) + which * CAMBI_NUM_SCALES;
    uint64_t total;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++)
        if (!cambi_topk_total(&st[k], &total)) return false;
    return true;
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    CambiPlan *s = priv;
    const CambiParams *p = &s->p;
    if (tvd_planes(t, f) < 1) return -EINVAL;
    const bool heat = p->heatmaps_path[0] != '\0';
    const uint64_t pitch = tvd_pitch(t, f, 0);
    s->back[0] = s->back[1] = false;
    tvd_fill(t, tvd_whole(t, s->flag), 0);
    tvd_fill(t, tvd_whole(t, s->topk), 0);
    run_picture(s, t, 0, tvd_plane(t, f, 1, 0), pitch);
    if (p->full_ref) run_picture(s, t, 1, tvd_plane(t, f, 0, 0), pitch);
    if (heat) tvd_download(t, pic_cvals(s, 0));
    tvd_download(t, tvd_whole(t, s->topk));
    tvd_download(t, tvd_whole(t, s->flag));
    /* with heat maps and no reference every c-value the host may need is
     * already coming back */
    if ((heat && !p->full_ref) || tvd_sync(t)) return 0;
    /* a frame the CPU refuses (report) needs nothing more */
    if (((const uint32_t *)tvd_mirror(t, s->flag))[0]) return 0;
    s->back[0] = !heat && !pic_exact(s, t, 0);
    s->back[1] = p->full_ref && !pic_exact(s, t, 1);
    for (int i = 0; i < 2; i++)
        if (s->back[i]) tvd_download(t, pic_cvals(s, i));
    return 0;
}

/* The score of picture `which`: per scale the device's exact top-k mean,
 * or, where it has none, the CPU's pooling of the c-values read back (cval,
 * NULL when not read back); the heat maps from cval. */
static int pic_score(CambiPlan *s, TvdTwin *t, int which, float *cval, bool heatmap,
                     unsigned index, double *score)
{
    const CambiParams *p = &s->p;
    const CambiGeom *g = which ? &p->src : &p->enc;
    const CambiTopk *st = (const CambiTopk *)tvd_mirror(t, s->topk) + which * CAMBI_NUM_SCALES;
    double scale_score[CAMBI_NUM_SCALES];
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        cambi_scale_step(k, p->halved, &w, &h);
        int err = heatmap ? tvmaf_cambi_write_heatmap(p, k, w, h, g->window, index, cval,
                                                      s->heat_row) : 0;
        if (err) return err;
        uint64_t total;
        if (cambi_topk_total(&st[k], &total))
            scale_score[k] = cambi_topk_mean(total, cambi_topk_count(p->pool_topk, w, h));
        else if (cval)
            scale_score[k] = cambi_pool(cval, p->pool_topk, w, h);
        else
            return -EINVAL; /* not reached: run decided the read-back */
        if (cval) cval += (size_t)w * h;
    }
    *score = cambi_combine_scales(scale_score, g->window);
    return 0;
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    CambiPlan *s = priv;
    const CambiParams *p = &s->p;
    const uint32_t *flag = tvd_mirror(t, s->flag);
    float *cval = tvd_mirror(t, s->cval);
    const bool heat = p->heatmaps_path[0] != '\0';
    /* the CPU refuses a frame with a sample past the input's depth */
    if (flag[0]) return -EINVAL;
    double dist, src;
    int err = pic_score(s, t, 0, heat || s->back[0] ? cval : NULL, heat, index, &dist);
    if (err || !p->full_ref) return err ? err : tvmaf_cambi_report(p, index, dist, NULL, sink);
    if (flag[1]) {
        /* the distorted picture's score is written before the source fails */
        tvmaf_cambi_report(p, index, dist, NULL, sink);
        return -EINVAL;
    }
    err = pic_score(s, t, 1, s->back[1] ? cval + s->n_pic[0] : NULL, false, index, &src);
    return err ? err : tvmaf_cambi_report(p, index, dist, &src, sink);
}

static void close_plan(void *priv)
{
    CambiPlan *s = priv;
    free(s->heat_row);
    s->heat_row = NULL;
    if (s->opened) tvmaf_cambi_params_close(&s->p);
    s->opened = false;
}

TVD_PLAN(cambi, cambi, CambiPlan, .init = init, .setup = setup, .run = run, .report = report,
         .close = close_plan);
