/*
 * speed_chroma and speed_temporal twins, host side. speed.cu computes each
 * image's statistics up to the first call of log2 (speed_math.h, "The CUDA
 * twin's decomposition"): the per-pixel work (load, prescale, filters,
 * decimation, local mean) and the per-block work (covariance, eigenvalues,
 * QR factors, each block's solution and variance). The host reads back,
 * per image, 25 eigenvalues, a singular flag and the nb block variances
 * (nb is the number of 5x5 blocks of the 16x decimated image: 104 floats at
 * 1080p luma), never a plane, and runs the CPU's own code from there:
 * speed_pipeline_entropies (log2 per eigenvalue and block), speed_pipeline_score
 * (log2 of the variances, the float sum over blocks in block order) and the
 * extractors' outputs. The split is at the first log2 because that is the C
 * library's double log2 on the CPU: the host's glibc gives the same bits
 * where the device's log2 would not, and what follows it is a few hundred
 * values per image. The scaler's tables (speed_axis: floor, and sin for
 * lanczos4) and the Gaussian taps (exp) are the host's too, uploaded once.
 * speed_temporal's previous frame stays on the device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_math.h"
#include "feature/speed/speed_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_speed_fatbin[];

enum { FN_LOAD, FN_TLOAD, FN_RESAMPLE, FN_AA_V, FN_AA_H, FN_LM_V, FN_LM_H, FN_COV, FN_FACTOR,
       FN_BLOCKS };
static const char *const fn_names[] = { "speed_load", "speed_temporal_load",
                                        "speed_resample_kernel", "speed_aa_v", "speed_aa_h",
                                        "speed_lm_v", "speed_lm_h", "speed_cov", "speed_factor",
                                        "speed_blocks", NULL };

/* What both twins hold on the device: n_img images of a frame, each n_*
 * floats after the previous in its buffer. */
typedef struct SpeedDev {
    TvmafCudaTwin t;
    unsigned n_img;
    size_t n_plane;   /* pw x ph: an input image */
    size_t n_scaled;  /* sw x sh (resize) */
    size_t n_ext;     /* oh x (sw + 2 half): the anti-alias vertical pass */
    size_t n_dec;     /* ow x oh */
    size_t n_ext2;    /* oh x (ow + 2 half): the local mean's vertical pass */
    size_t n_out;     /* 25 eigenvalues, the singular flag, nb variances */
    int nc, nr;       /* columns and rows the anti-alias pass reads (resize) */
    int zeroed;       /* the prescaled images' unread samples set to 0 */
    CUdeviceptr d_img, d_scaled, d_ext, d_dec, d_ext2, d_kqr, d_eig, d_out;
    CUdeviceptr d_taps; /* anti-alias at 0, local mean at SPEED_MAX_FW */
    CUdeviceptr d_itab; /* xi, yi, cols, rows */
    CUdeviceptr d_ftab; /* xw, yw */
    size_t yi_off, cols_off, rows_off, yw_off;
    float *h_out;
} SpeedDev;

static int put(SpeedDev *s, CUdeviceptr *d, const void *h, size_t bytes, char *msg, size_t len)
{
    const int err = tvmaf_cuda_twin_alloc(&s->t, d, bytes ? bytes : 1, msg, len);
    return err || !bytes ? err : tvmaf_cuda_twin_upload(&s->t, *d, h, bytes, msg, len);
}

/* The scaler's tables and the lists of the columns and rows it computes. */
static int upload_tables(SpeedDev *s, const SpeedPipeline *pl, const char *name, char *msg,
                         size_t len)
{
    const size_t t = (size_t)pl->taps, nx = (size_t)pl->sw * t, ny = (size_t)pl->sh * t;
    s->nc = s->nr = 0;
    for (int x = 0; x < pl->sw; x++) s->nc += pl->need_col[x];
    for (int y = 0; y < pl->sh; y++) s->nr += pl->need_row[y];
    s->yi_off = nx;
    s->cols_off = nx + ny;
    s->rows_off = s->cols_off + (size_t)s->nc;
    s->yw_off = nx;
    const size_t ni = s->rows_off + (size_t)s->nr;
    int *it = malloc(sizeof(int) * ni);
    float *ft = malloc(sizeof(float) * (nx + ny));
    int err = 0;
    if (!it || !ft) {
        snprintf(msg, len, "feature \"%s\" (cuda): out of host memory", name);
        err = -ENOMEM;
    } else {
        memcpy(it, pl->xi, sizeof(int) * nx);
        memcpy(it + nx, pl->yi, sizeof(int) * ny);
        memcpy(ft, pl->xw, sizeof(float) * nx);
        memcpy(ft + nx, pl->yw, sizeof(float) * ny);
        int *cols = it + s->cols_off, *rows = it + s->rows_off;
        for (int x = 0, k = 0; x < pl->sw; x++)
            if (pl->need_col[x]) cols[k++] = x;
        for (int y = 0, k = 0; y < pl->sh; y++)
            if (pl->need_row[y]) rows[k++] = y;
        if (!(err = put(s, &s->d_itab, it, sizeof(int) * ni, msg, len)))
            err = put(s, &s->d_ftab, ft, sizeof(float) * (nx + ny), msg, len);
    }
    free(it);
    free(ft);
    return err;
}

static int dev_open(SpeedDev *s, const SpeedPipeline *pl, TvmafGpu *gpu, const char *name,
                    unsigned n_img, char *msg, size_t len)
{
    const SpeedGrid *g = &pl->g;
    if (pl->aa_w > SPEED_MAX_FW || pl->lm_w > SPEED_MAX_FW) { /* no accepted kernel scale */
        snprintf(msg, len, "feature \"%s\" (cuda): a %d-tap filter is wider than the twin's %d",
                 name, pl->aa_w > pl->lm_w ? pl->aa_w : pl->lm_w, SPEED_MAX_FW);
        return -EINVAL;
    }
    s->n_img = n_img;
    s->n_plane = (size_t)pl->pw * (size_t)pl->ph;
    s->n_scaled = pl->resize ? (size_t)pl->sw * (size_t)pl->sh : 0;
    s->n_ext = (size_t)g->oh * (size_t)(pl->sw + 2 * (pl->aa_w / 2));
    s->n_dec = (size_t)g->ow * (size_t)g->oh;
    s->n_ext2 = (size_t)g->oh * (size_t)(g->ow + 2 * (pl->lm_w / 2));
    s->n_out = (size_t)SPEED_NE + 1 + (size_t)g->nb;
    float taps[2 * SPEED_MAX_FW] = { 0 };
    memcpy(taps, pl->aa, sizeof(float) * (size_t)pl->aa_w);
    memcpy(taps + SPEED_MAX_FW, pl->lm, sizeof(float) * (size_t)pl->lm_w);
    const size_t f = sizeof(float), nn = SPEED_NE * SPEED_NE;
    int err;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, name, tvmaf_speed_fatbin, fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_img, f * n_img * s->n_plane, msg, len)) ||
        (pl->resize &&
         (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_scaled, f * n_img * s->n_scaled, msg, len))) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_ext, f * n_img * s->n_ext, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_dec, 2 * f * n_img * s->n_dec, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_ext2, f * n_img * s->n_ext2, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_kqr, 3 * f * n_img * nn, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_eig, sizeof(int) * n_img, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_out, f * n_img * s->n_out, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_out, f * n_img * s->n_out, msg,
                                          len)) ||
        (err = put(s, &s->d_taps, taps, sizeof(taps), msg, len)) ||
        (pl->resize && (err = upload_tables(s, pl, name, msg, len))))
        return err;
    return 0;
}

#define GX(n) (((unsigned)(n) + SPEED_BLOCK_W - 1) / SPEED_BLOCK_W)
#define GY(n)                                                                        \
    ((unsigned)(n) + SPEED_BLOCK_H - 1 > TVMAF_CUDA_GRID_Y_MAX * SPEED_BLOCK_H          \
         ? TVMAF_CUDA_GRID_Y_MAX                                                     \
         : ((unsigned)(n) + SPEED_BLOCK_H - 1) / SPEED_BLOCK_H)

static int launch(SpeedDev *s, unsigned fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                  unsigned by, void **args)
{
    return tvmaf_cuda_launch(s->t.fn[fn], gx, gy, gz, bx, by, 1, 0, s->t.stream, args);
}

/* The statistics of the n_img images in d_img (pw x ph each, rows of pw),
 * then their read-back into h_out; on the twin's stream. */
static int dev_run(SpeedDev *s, const SpeedPipeline *pl)
{
    SpeedGrid g = pl->g;
    const unsigned z = s->n_img;
    int err;
    int stride = pl->pw, sw = pl->sw, sh = pl->sh, ow = g.ow, oh = g.oh;
    CUdeviceptr src = s->d_img;
    size_t n_src = s->n_plane;
    if (pl->resize) {
        if (!s->zeroed) {
            if ((err = tvmaf_cuda_memset(s->d_scaled, 0, sizeof(float) * z * s->n_scaled,
                                         s->t.stream)))
                return err;
            s->zeroed = 1;
        }
        int method = (int)pl->method, taps = pl->taps, nc = s->nc, nr = s->nr;
        CUdeviceptr xi = s->d_itab, yi = xi + sizeof(int) * s->yi_off;
        CUdeviceptr cols = xi + sizeof(int) * s->cols_off, rows = xi + sizeof(int) * s->rows_off;
        CUdeviceptr xw = s->d_ftab, yw = xw + sizeof(float) * s->yw_off;
        void *args[] = { &s->d_img, &s->n_plane, &stride, &method, &taps, &xi, &xw, &yi, &yw,
                         &cols, &nc, &rows, &nr, &sw, &s->d_scaled, &s->n_scaled };
        if ((err = launch(s, FN_RESAMPLE, GX(nc), GY(nr), z, SPEED_BLOCK_W, SPEED_BLOCK_H, args)))
            return err;
        src = s->d_scaled;
        n_src = s->n_scaled;
        stride = sw;
    }
    CUdeviceptr aa = s->d_taps, lm = s->d_taps + sizeof(float) * SPEED_MAX_FW;
    int aa_w = pl->aa_w, lm_w = pl->lm_w;
    int ew = sw + 2 * (aa_w / 2), ew2 = ow + 2 * (lm_w / 2);
    CUdeviceptr dec = s->d_dec, res = s->d_dec + sizeof(float) * z * s->n_dec;
    const size_t nn = SPEED_NE * SPEED_NE;
    CUdeviceptr k = s->d_kqr, q = k + sizeof(float) * z * nn, r = q + sizeof(float) * z * nn;
    void *av[] = { &src, &n_src, &stride, &sw, &sh, &oh, &aa, &aa_w, &s->d_ext, &s->n_ext };
    void *ah[] = { &s->d_ext, &s->n_ext, &ew, &ow, &oh, &aa, &aa_w, &dec, &s->n_dec };
    void *lv[] = { &dec, &s->n_dec, &ow, &oh, &lm, &lm_w, &s->d_ext2, &s->n_ext2 };
    void *lh[] = { &s->d_ext2, &s->n_ext2, &ew2, &dec, &ow, &oh, &lm, &lm_w, &res, &s->n_dec };
    void *cv[] = { &res, &s->n_dec, &g, &k };
    void *fa[] = { &k, &s->d_out, &s->n_out, &s->d_eig, &q, &r };
    void *bl[] = { &res, &s->n_dec, &g, &s->d_eig, &q, &r, &s->d_out, &s->n_out };
    if ((err = launch(s, FN_AA_V, GX(ew), GY(oh), z, SPEED_BLOCK_W, SPEED_BLOCK_H, av)) ||
        (err = launch(s, FN_AA_H, GX(ow), GY(oh), z, SPEED_BLOCK_W, SPEED_BLOCK_H, ah)) ||
        (err = launch(s, FN_LM_V, GX(ew2), GY(oh), z, SPEED_BLOCK_W, SPEED_BLOCK_H, lv)) ||
        (err = launch(s, FN_LM_H, GX(ow), GY(oh), z, SPEED_BLOCK_W, SPEED_BLOCK_H, lh)) ||
        (err = launch(s, FN_COV, z, 1, 1, SPEED_COV_THREADS, 1, cv)) ||
        (err = launch(s, FN_FACTOR, 2, z, 1, SPEED_QR_THREADS, 1, fa)) ||
        (err = launch(s, FN_BLOCKS,
                      ((unsigned)g.nb + SPEED_BLOCK_THREADS - 1) / SPEED_BLOCK_THREADS, z, 1,
                      SPEED_BLOCK_THREADS, 1, bl)))
        return err;
    return tvmaf_cuda_copy_d2h(s->h_out, s->d_out, sizeof(float) * z * s->n_out, s->t.stream);
}

/* Image img's read-back as side `side` of the pipeline: its variances and
 * the CPU's entropies. Returns whether it was singular. */
static int dev_side(const SpeedDev *s, SpeedPipeline *pl, unsigned img, int side)
{
    const float *o = s->h_out + s->n_out * img;
    memcpy(pl->var[side], o + SPEED_NE + 1, sizeof(float) * (size_t)pl->g.nb);
    speed_pipeline_entropies(pl, o, side);
    return o[SPEED_NE] != 0.0f;
}

/* A plane of the frame as floats into image img of d_img. */
static int load_plane(SpeedDev *s, const TvmafDeviceFrame *f, CUdeviceptr src, int plane,
                      unsigned bpc, int w, int h, unsigned img)
{
    size_t pitch = f->pitch[plane];
    float divisor = fvif_sample_divisor(bpc);
    CUdeviceptr dst = s->d_img + sizeof(float) * s->n_plane * img;
    void *args[] = { &src, &pitch, &bpc, &w, &h, &divisor, &dst };
    return launch(s, FN_LOAD, GX(w), GY(h), 1, SPEED_BLOCK_W, SPEED_BLOCK_H, args);
}

/* ------------------------------------------------------------------------ */
/* speed_temporal                                                           */
/* ------------------------------------------------------------------------ */

typedef struct SpeedTemporalCuda {
    SpeedTemporalParams p; /* first: the option table's offsets point into it */
    SpeedDev d;            /* images: the reference's and the distorted's difference */
    CUdeviceptr d_luma;    /* ref and dis of frame k in slot k % 2: 4 planes */
} SpeedTemporalCuda;

static void temporal_close(void *priv)
{
    SpeedTemporalCuda *s = priv;
    tvmaf_cuda_twin_close(&s->d.t);
    speed_pipeline_close(&s->p.pl);
}

static int temporal_init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                         size_t len)
{
    SpeedTemporalCuda *s = priv;
    int err = tvmaf_speed_temporal_setup(&s->p, vi, 0, msg, len);
    if (!err) err = dev_open(&s->d, &s->p.pl, gpu, "speed_temporal", 2, msg, len);
    if (!err)
        err = tvmaf_cuda_twin_alloc(&s->d.t, &s->d_luma, 4 * sizeof(float) * s->d.n_plane, msg,
                                    len);
    if (err) temporal_close(s);
    return err;
}

static int temporal_extract(void *priv, const TvmafDeviceFrame *f, unsigned index,
                            TvmafSink *sink)
{
    SpeedTemporalCuda *s = priv;
    SpeedTemporalParams *p = &s->p;
    SpeedDev *d = &s->d;
    if (f->n_planes < 1 || tvmaf_speed_temporal_next(p, index)) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&d->t, f);
    if (err) return err;
    const size_t n = d->n_plane;
    CUdeviceptr slot[2] = { s->d_luma, s->d_luma + 2 * sizeof(float) * n };
    CUdeviceptr cur_ref = slot[index % 2], cur_dis = cur_ref + sizeof(float) * n;
    CUdeviceptr prev_ref = slot[!(index % 2)], prev_dis = prev_ref + sizeof(float) * n;
    CUdeviceptr img0 = d->d_img, img1 = d->d_img + sizeof(float) * n;
    size_t pitch = f->pitch[0];
    unsigned bpc = p->bpc;
    int w = p->w, h = p->h, first = index == 0, urd = p->use_ref_diff;
    float divisor = fvif_sample_divisor(bpc);
    void *args[] = { (void *)&f->d_ref[0], (void *)&f->d_dis[0], &pitch, &bpc, &w, &h,
                     &divisor, &first, &urd, &cur_ref, &cur_dis, &prev_ref, &prev_dis, &img0,
                     &img1 };
    err = launch(d, FN_TLOAD, GX(w), GY(h), 1, SPEED_BLOCK_W, SPEED_BLOCK_H, args);
    if (!err && !first) err = dev_run(d, &p->pl);
    if ((err = tvmaf_cuda_twin_end(&d->t, err))) return err;
    if (first) return tvmaf_speed_temporal_report(p, index, 0.0f, 0, sink);
    const int sr = dev_side(d, &p->pl, 0, 0);
    const int sd = dev_side(d, &p->pl, 1, 1);
    const float score = speed_pipeline_score(&p->pl, sr, sd);
    return tvmaf_speed_temporal_report(p, index, score, sr || sd, sink);
}

const TvmafExtractor tvmaf_fex_speed_temporal_cuda = {
    .name = "speed_temporal",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_speed_temporal_options,
    .priv_size = sizeof(SpeedTemporalCuda),
    .flags = SPEED_TEMPORAL_FLAGS,
    .warmup_frames = SPEED_TEMPORAL_WARMUP_FRAMES,
    .init_device = temporal_init,
    .extract_device = temporal_extract,
    .close = temporal_close,
    .provided_features = tvmaf_speed_temporal_provided,
};

/* ------------------------------------------------------------------------ */
/* speed_chroma                                                             */
/* ------------------------------------------------------------------------ */

typedef struct SpeedChromaCuda {
    SpeedChromaParams p; /* first: the option table's offsets point into it */
    SpeedDev d;          /* images: U ref, U dis, V ref, V dis */
} SpeedChromaCuda;

static void chroma_close(void *priv)
{
    SpeedChromaCuda *s = priv;
    tvmaf_cuda_twin_close(&s->d.t);
    speed_pipeline_close(&s->p.pl);
}

static int chroma_init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                       size_t len)
{
    SpeedChromaCuda *s = priv;
    int err = tvmaf_speed_chroma_setup(&s->p, vi, 0, msg, len);
    if (!err) err = dev_open(&s->d, &s->p.pl, gpu, "speed_chroma", 4, msg, len);
    if (err) chroma_close(s);
    return err;
}

static int chroma_extract(void *priv, const TvmafDeviceFrame *f, unsigned index,
                          TvmafSink *sink)
{
    SpeedChromaCuda *s = priv;
    SpeedChromaParams *p = &s->p;
    SpeedDev *d = &s->d;
    if (f->n_planes < 3) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&d->t, f);
    if (err) return err;
    for (int pl = 1; pl <= 2 && !err; pl++)
        if (!(err = load_plane(d, f, f->d_ref[pl], pl, p->bpc, p->pw, p->ph, 2 * (pl - 1))))
            err = load_plane(d, f, f->d_dis[pl], pl, p->bpc, p->pw, p->ph, 2 * (pl - 1) + 1);
    if (!err) err = dev_run(d, &p->pl);
    if ((err = tvmaf_cuda_twin_end(&d->t, err))) return err;
    float score[2];
    int singular[2];
    for (int k = 0; k < 2; k++) {
        const int sr = dev_side(d, &p->pl, 2 * k, 0);
        const int sd = dev_side(d, &p->pl, 2 * k + 1, 1);
        singular[k] = sr || sd;
        score[k] = speed_pipeline_score(&p->pl, sr, sd);
    }
    return tvmaf_speed_chroma_report(p, score[0], singular[0], score[1], singular[1], index, sink);
}

const TvmafExtractor tvmaf_fex_speed_chroma_cuda = {
    .name = "speed_chroma",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_speed_chroma_options,
    .priv_size = sizeof(SpeedChromaCuda),
    .init_device = chroma_init,
    .extract_device = chroma_extract,
    .close = chroma_close,
    .provided_features = tvmaf_speed_chroma_provided,
};
