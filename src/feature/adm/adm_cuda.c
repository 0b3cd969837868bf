/*
 * Integer adm twin, host side. Each frame: on the luma of both pictures,
 * on the device already (the frame's device copy), per scale adm.cu runs a
 * coef launch (DWT of
 * both pictures, decouple, csf, den terms; the approximation bands stay on
 * the device as the next scale's input) and a cm launch (masking terms),
 * both adding block totals into per-row accumulators; one finish launch
 * rounds the rows and adds them into the four AdmScaleSums (288 bytes),
 * which are read back. Everything after the integer totals (the float
 * finish, outputs, key names, options, refusals) is the CPU extractor's own
 * code (adm_state.h). Buffers and the reciprocal table are set up once per
 * instance (one per worker thread).
 *
 * In a ladder (the context shares its reference pictures with other pairs'
 * contexts) each coef launch runs as adm_tile.h's two passes where they
 * apply (adm_ref_bands_shareable): the reference pass once per reference picture,
 * by whichever pair needs it first, into the picture's area of the ladder's
 * cache (the reference's bands of the four scales and its den row
 * accumulators), and the pair pass per pair, reading them. A frame whose
 * reference is not in the cache takes the one-pass launches.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_tile.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_adm_fatbin[];

enum { FN_COEF0, FN_COEF32, FN_CM, FN_FINISH, FN_COEF0_REF, FN_COEF32_REF, FN_COEF0_PAIR,
       FN_COEF32_PAIR };
static const char *const fn_names[] = { "adm_coef0", "adm_coef32", "adm_cm", "adm_finish",
                                        "adm_coef0_ref", "adm_coef32_ref", "adm_coef0_pair",
                                        "adm_coef32_pair", NULL };

typedef struct AdmCuda {
    AdmState s; /* first: the option offsets are relative to it */
    AdmTileFrame f;
    TvmafCudaTwin t;
    const TvmafDeviceFrame *frame;  /* the current frame's device copy */
    CUdeviceptr d_mem;              /* everything else, one allocation */
    CUdeviceptr d_recip;            /* ADM_RECIP_LEN x int32 */
    CUdeviceptr d_recip0;           /* its entry for 0, the kernels' argument */
    CUdeviceptr d_a_ref[2], d_a_dis[2]; /* approximation bands, alternating per scale */
    AdmTilePlanes planes;           /* device addresses */
    CUdeviceptr d_rows;             /* per-row accumulators, n_rows x u64 */
    size_t n_rows;
    CUdeviceptr d_sums;             /* ADM_N_SCALES x AdmScaleSums */
    AdmScaleSums *h_sums;           /* page-locked */
    /* the ladder's reference-side area (or TVMAF_CUDA_NO_DERIVED): the den
     * row accumulators (the layout of d_rows), then per scale the bands */
    unsigned slot;
    size_t band_off[ADM_N_SCALES][3];
    size_t area_bytes;
} AdmCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((AdmCuda *)priv)->t);
}

static void *dev_ptr(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    AdmCuda *m = priv;
    int err = tvmaf_adm_setup(&m->s, vi, msg, len);
    if (err) return err;
    if ((unsigned)m->s.sc[0].h > TVMAF_CUDA_GRID_Y_MAX) {
        snprintf(msg, len, "feature \"adm\" (cuda) supports frames up to %u rows, got %u",
                 2 * TVMAF_CUDA_GRID_Y_MAX, vi->h);
        return -EINVAL;
    }
    m->n_rows = 0;
    for (int k = 0; k < ADM_N_SCALES; k++)
        m->n_rows += adm_tile_scale_init(&m->f.sc[k], &m->s, k, m->n_rows);

    const size_t n0 = (size_t)m->s.sc[0].w * m->s.sc[0].h;
    const size_t n1 = (size_t)m->s.sc[1].w * m->s.sc[1].h;
    const size_t plane = ADM_PLANE_BYTES(n0, n1);
    const size_t recip = ADM_ALIGN_UP(ADM_RECIP_LEN * sizeof(int32_t));
    const size_t a = ADM_ALIGN_UP(n0 * sizeof(int32_t));
    const size_t rows = ADM_ALIGN_UP(m->n_rows * sizeof(uint64_t));
    const size_t sums = ADM_ALIGN_UP(ADM_N_SCALES * sizeof(AdmScaleSums));
    CUdeviceptr p;
    if ((err = tvmaf_cuda_twin_open(&m->t, gpu, "adm", tvmaf_adm_fatbin, fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&m->t, &p, recip + 4 * a + ADM_N_PLANES * plane + rows +
                                     sums, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&m->t, (void **)&m->h_sums,
                                          ADM_N_SCALES * sizeof(AdmScaleSums), msg, len)))
        return err;
    /* one allocation: the reciprocal table, the approximation bands, the
     * coefficient planes, the row accumulators and the sums */
    m->d_recip = p;
    m->d_recip0 = p + ADM_RECIP_ZERO * sizeof(int32_t);
    p += recip;
    for (int k = 0; k < 2; k++) {
        m->d_a_ref[k] = p;
        p += a;
        m->d_a_dis[k] = p;
        p += a;
    }
    for (int o = 0; o < 3; o++) {
        m->planes.r[o] = dev_ptr(p);
        p += plane;
        m->planes.a[o] = dev_ptr(p);
        p += plane;
        for (int q = 0; q < 2; q++) {
            m->planes.csf[q][o] = dev_ptr(p);
            p += plane;
            m->planes.flt[q][o] = dev_ptr(p);
            p += plane;
        }
    }
    m->d_rows = p;
    p += rows;
    m->d_sums = p;

    /* the ladder's area: the reference pass depends on the picture's
     * samples alone (adm_ref_bands_shareable); the key names their size and
     * depth, and the reference build as well: instances of two builds in one
     * ladder keep two areas, more than needed, never a wrong one */
    m->slot = TVMAF_CUDA_NO_DERIVED;
    if (adm_ref_bands_shareable(&m->s)) {
        size_t at = rows;
        for (int k = 0; k < ADM_N_SCALES; k++)
            for (int o = 0; o < 3; o++) {
                m->band_off[k][o] = at;
                at += ADM_ALIGN_UP((size_t)m->f.sc[k].w * m->f.sc[k].h * (k ? 4 : 2));
            }
        m->area_bytes = at;
        char key[32];
        snprintf(key, sizeof(key), "adm/%ux%u/%u/%d", vi->w, vi->h, vi->bpc, m->s.isa);
        if ((err = tvmaf_cuda_gpu_ref_derived(gpu, key, at, &m->slot))) {
            snprintf(msg, len, "feature \"adm\" (cuda): %s", tvmaf_cuda_last_error());
            return err;
        }
    }

    /* the CPU's table, built by the same function, sent once */
    int32_t *table = malloc(ADM_RECIP_LEN * sizeof(int32_t));
    if (!table) {
        snprintf(msg, len, "feature \"adm\" (cuda): out of memory (reciprocal table)");
        return -ENOMEM;
    }
    for (int d = -32768; d <= 32768; d++) table[d + ADM_RECIP_ZERO] = adm_recip_q30(d);
    err = tvmaf_cuda_twin_upload(&m->t, m->d_recip, table, ADM_RECIP_LEN * sizeof(int32_t), msg,
                                 len);
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

/* Queues scale k's coef and cm launches. */
static int launch_scale(AdmCuda *m, int k)
{
    AdmTileScale *c = &m->f.sc[k];
    CUdeviceptr a_ref = m->d_a_ref[k & 1], a_dis = m->d_a_dis[k & 1];
    int err;
    if (k == 0) {
        CUdeviceptr ref = m->frame->d_ref[0], dis = m->frame->d_dis[0];
        size_t pitch = m->frame->pitch[0];
        void *args[] = { c, &ref, &dis, &pitch, &m->d_recip0, &a_ref, &a_dis, &m->planes,
                         &m->d_rows };
        err = tvmaf_cuda_twin_launch(&m->t, FN_COEF0, ADM_GRID_X((unsigned)c->w),
                                     (unsigned)c->h, ADM_THREADS, 1, args);
    } else {
        CUdeviceptr src_ref = m->d_a_ref[(k - 1) & 1], src_dis = m->d_a_dis[(k - 1) & 1];
        void *args[] = { c, &src_ref, &src_dis, &m->d_recip0, &a_ref, &a_dis, &m->planes,
                         &m->d_rows };
        err = tvmaf_cuda_twin_launch(&m->t, FN_COEF32, ADM_GRID_X((unsigned)c->w),
                                     (unsigned)c->h, ADM_THREADS, 1, args);
    }
    if (err || !c->stats) return err;
    void *args[] = { c, &m->planes, &m->d_rows };
    return tvmaf_cuda_twin_launch(&m->t, FN_CM, ADM_GRID_X((unsigned)(c->r - c->l)),
                                  (unsigned)(c->b - c->t), ADM_THREADS, 1, args);
}

static AdmRefBands bands(const AdmCuda *m, CUdeviceptr area, int k)
{
    AdmRefBands b;
    for (int o = 0; o < 3; o++) b.o[o] = dev_ptr(area + m->band_off[k][o]);
    return b;
}

/* The reference pass of the four scales into the area (its den rows zeroed
 * first; the approximations in this instance's own bands). */
static int launch_ref(AdmCuda *m, CUdeviceptr area)
{
    int err = tvmaf_cuda_memset(area, 0, m->n_rows * sizeof(uint64_t), m->t.stream);
    for (int k = 0; k < ADM_N_SCALES && !err; k++) {
        AdmTileScale *c = &m->f.sc[k];
        AdmRefBands b = bands(m, area, k);
        CUdeviceptr a_ref = m->d_a_ref[k & 1];
        if (k == 0) {
            CUdeviceptr ref = m->frame->d_ref[0];
            size_t pitch = m->frame->pitch[0];
            void *args[] = { c, &ref, &pitch, &a_ref, &b, &area };
            err = tvmaf_cuda_twin_launch(&m->t, FN_COEF0_REF, ADM_GRID_X((unsigned)c->w),
                                         (unsigned)c->h, ADM_THREADS, 1, args);
        } else {
            CUdeviceptr src = m->d_a_ref[(k - 1) & 1];
            void *args[] = { c, &src, &a_ref, &b, &area };
            err = tvmaf_cuda_twin_launch(&m->t, FN_COEF32_REF, ADM_GRID_X((unsigned)c->w),
                                         (unsigned)c->h, ADM_THREADS, 1, args);
        }
    }
    return err;
}

/* Scale k's pair pass and cm launch, the reference's bands in the area. */
static int launch_pair(AdmCuda *m, CUdeviceptr area, int k)
{
    AdmTileScale *c = &m->f.sc[k];
    AdmRefBands b = bands(m, area, k);
    CUdeviceptr a_dis = m->d_a_dis[k & 1];
    int err;
    if (k == 0) {
        CUdeviceptr dis = m->frame->d_dis[0];
        size_t pitch = m->frame->pitch[0];
        void *args[] = { c, &dis, &pitch, &m->d_recip0, &a_dis, &b, &m->planes };
        err = tvmaf_cuda_twin_launch(&m->t, FN_COEF0_PAIR, ADM_GRID_X((unsigned)c->w),
                                     (unsigned)c->h, ADM_THREADS, 1, args);
    } else {
        CUdeviceptr src = m->d_a_dis[(k - 1) & 1];
        void *args[] = { c, &src, &m->d_recip0, &a_dis, &b, &m->planes };
        err = tvmaf_cuda_twin_launch(&m->t, FN_COEF32_PAIR, ADM_GRID_X((unsigned)c->w),
                                     (unsigned)c->h, ADM_THREADS, 1, args);
    }
    if (err || !c->stats) return err;
    void *args[] = { c, &m->planes, &m->d_rows };
    return tvmaf_cuda_twin_launch(&m->t, FN_CM, ADM_GRID_X((unsigned)(c->r - c->l)),
                                  (unsigned)(c->b - c->t), ADM_THREADS, 1, args);
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    AdmCuda *m = priv;
    m->frame = f;
    int err = tvmaf_cuda_twin_begin(&m->t, f);
    if (err) return err;
    CUdeviceptr area = 0;
    bool fill = false;
    if (m->slot != TVMAF_CUDA_NO_DERIVED)
        err = tvmaf_cuda_frame_ref_derived(f, m->slot, m->t.stream, &area, &fill);
    if (!err && fill) {
        err = launch_ref(m, area);
        const int e2 = tvmaf_cuda_frame_ref_derived_done(f, m->slot, m->t.stream, !err);
        if (!err) err = e2;
    }
    if (!err) err = tvmaf_cuda_memset(m->d_rows, 0, m->n_rows * sizeof(uint64_t), m->t.stream);
    for (int k = 0; k < ADM_N_SCALES && !err; k++)
        err = area ? launch_pair(m, area, k) : launch_scale(m, k);
    if (!err) {
        CUdeviceptr den_rows = area ? area : m->d_rows;
        void *args[] = { &m->f, &m->d_rows, &den_rows, &m->d_sums };
        err = tvmaf_cuda_twin_launch(&m->t, FN_FINISH, ADM_N_SUMS, ADM_N_SCALES,
                                     ADM_FINISH_THREADS, 1, args);
    }
    if (!err)
        err = tvmaf_cuda_copy_d2h(m->h_sums, m->d_sums, ADM_N_SCALES * sizeof(AdmScaleSums),
                                  m->t.stream);
    if ((err = tvmaf_cuda_twin_end(&m->t, err))) return err;
    return tvmaf_adm_report(&m->s, m->h_sums, index, sink);
}

_Static_assert(sizeof(AdmScaleSums) == ADM_N_SUMS * sizeof(uint64_t),
               "AdmScaleSums is den[3], num[3], aim[3] in 64 bits");

const TvmafExtractor tvmaf_fex_adm_cuda = {
    .name = "adm",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_adm_options,
    .priv_size = sizeof(AdmCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_adm_provided,
};
