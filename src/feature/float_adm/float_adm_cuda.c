/*
 * float_adm twin, host side. Each frame, on the luma of both pictures (the
 * frame's device copy), per scale float_adm.cu runs the DWT, the decouple
 * and csf, the nine terms per pooled coefficient and, for p = 3, one float
 * total per pooled row and term (float_adm_tile.h). The host reads back the
 * row totals (p = 3) or the terms' bases (other p, raised with glibc's powf
 * here, as the CPU does), adds the rows in the CPU's order and pools and
 * reports with the CPU extractor's code (float_adm_state.h). The division's
 * table (this processor's probed estimates, or the goldens host's) is
 * uploaded once per instance.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "feature/float_adm/float_adm_math.h"
#include "feature/float_adm/float_adm_state.h"
#include "feature/float_adm/float_adm_tile.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_adm_fatbin[];

enum { FN_DWT, FN_DECOUPLE, FN_TERMS, FN_ROWS };
static const char *const fn_names[] = { "float_adm_dwt", "float_adm_decouple", "float_adm_terms",
                                        "float_adm_rows", NULL };

typedef struct FloatAdmCuda {
    FloatAdmParams p; /* first: the option table's offsets point into it */
    FadmTileScale sc[FADM_N_SCALES];
    TvmafCudaTwin t;
    size_t plane, n_terms, n_rows;
    CUdeviceptr d_bands; /* FADM_N_PLANES x plane floats */
    CUdeviceptr d_terms; /* n_terms floats */
    CUdeviceptr d_rows;  /* n_rows floats */
    CUdeviceptr d_table; /* TVMAF_RCPSS_TABLE_LEN words */
    float *h_back;       /* page-locked: the row totals (p = 3) or the terms */
} FloatAdmCuda;

/* FadmTileScale goes to the kernels by value: the device's layout (float_adm.cu
 * asserts the same) */
_Static_assert(sizeof(FadmTileScale) == 128 && offsetof(FadmTileScale, rows_off) == 120,
               "FadmTileScale layout");

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatAdmCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatAdmCuda *s = priv;
    FloatAdmParams *p = &s->p;
    int err = tvmaf_float_adm_setup(p, vi, msg, len);
    if (err) return err;
    const uint32_t *table;
    const int div = fadm_tile_division(p, &table, msg, len);
    if (div < 0) return div;
    fadm_tile_init(s->sc, p, div, &s->n_terms, &s->n_rows);
    s->plane = (size_t)((p->w + 1) / 2) * (size_t)((p->h + 1) / 2);
    const size_t n_back = p->cube ? s->n_rows : s->n_terms;
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_adm", tvmaf_float_adm_fatbin, fn_names,
                                    msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_bands,
                                     FADM_N_PLANES * s->plane * sizeof(float), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_terms, s->n_terms * sizeof(float), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, s->n_rows * sizeof(float), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_table, TVMAF_RCPSS_TABLE_LEN * sizeof(uint32_t),
                                     msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_table, table,
                                      TVMAF_RCPSS_TABLE_LEN * sizeof(uint32_t), msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_back, n_back * sizeof(float), msg,
                                          len)))
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

/* Queues scale k's launches. */
static int launch_scale(FloatAdmCuda *s, const TvmafDeviceFrame *f, int k)
{
    FadmTileScale *c = &s->sc[k];
    CUdeviceptr ref = f->d_ref[0], dis = f->d_dis[0];
    size_t pitch = f->pitch[0];
    void *dwt_args[] = { c, &ref, &dis, &pitch, &s->d_bands, &s->plane };
    int err = tvmaf_cuda_twin_launch(&s->t, FN_DWT, FADM_GRID_X(c->w), FADM_GRID_Y(c->h),
                                     FADM_BLOCK_W, FADM_BLOCK_H, dwt_args);
    if (err || c->lo_only) return err;
    void *dec_args[] = { c, &s->d_bands, &s->plane, &s->d_table };
    err = tvmaf_cuda_twin_launch(&s->t, FN_DECOUPLE, FADM_GRID_X(c->work_r - c->work_l),
                                 FADM_GRID_Y(c->work_b - c->work_t), FADM_BLOCK_W, FADM_BLOCK_H,
                                 dec_args);
    if (err) return err;
    void *terms_args[] = { c, &s->d_bands, &s->plane, &s->d_terms };
    err = tvmaf_cuda_twin_launch(&s->t, FN_TERMS, FADM_GRID_X(c->pw), FADM_GRID_Y(c->ph),
                                 FADM_BLOCK_W, FADM_BLOCK_H, terms_args);
    if (err || !c->cube) return err;
    void *rows_args[] = { c, &s->d_terms, &s->d_rows };
    const unsigned n = (unsigned)(FADM_N_TERMS * c->ph);
    return tvmaf_cuda_twin_launch(&s->t, FN_ROWS, (n + FADM_ROW_THREADS - 1) / FADM_ROW_THREADS,
                                  1, FADM_ROW_THREADS, 1, rows_args);
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    FloatAdmCuda *s = priv;
    if (f->n_planes < 1) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    for (int k = 0; k < FADM_N_SCALES && !err; k++) err = launch_scale(s, f, k);
    if (!err) {
        if (s->p.cube)
            err = tvmaf_cuda_copy_d2h(s->h_back, s->d_rows, s->n_rows * sizeof(float),
                                      s->t.stream);
        else
            err = tvmaf_cuda_copy_d2h(s->h_back, s->d_terms, s->n_terms * sizeof(float),
                                      s->t.stream);
    }
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    FadmScaleSums sums[FADM_N_SCALES];
    fadm_tile_scales(s->sc, &s->p, s->h_back, s->h_back, sums);
    return tvmaf_float_adm_report(&s->p, sums, index, sink);
}

const TvmafExtractor tvmaf_fex_float_adm_cuda = {
    .name = "float_adm",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_float_adm_options,
    .priv_size = sizeof(FloatAdmCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_float_adm_provided,
};
