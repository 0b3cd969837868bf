/*
 * Integer adm twin, host side. Each frame: on the luma of both pictures,
 * on the device already (the context's TvmafTwinFrame), per scale adm.cu runs a coef launch (DWT of
 * both pictures, decouple, csf, den terms; the approximation bands stay on
 * the device as the next scale's input) and a cm launch (masking terms),
 * both adding block totals into per-row accumulators; one finish launch
 * rounds the rows and adds them into the four AdmScaleSums (288 bytes),
 * which are read back. Everything after the integer totals (the float
 * finish, outputs, key names, options, refusals) is the CPU extractor's own
 * code (adm_state.h). Buffers, the stream and the reciprocal table are set
 * up once per instance (one per worker thread).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_tile.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/twin_frame.h"

extern const unsigned char tvmaf_adm_fatbin[];

/* Device planes start on this many bytes. */
#define PLANE_ALIGN 256
/* CUDA's limit on a grid's y dimension (a launch has one block row per band row). */
#define GRID_Y_MAX 65535u

enum { FN_COEF0, FN_COEF32, FN_CM, FN_FINISH, N_FN };
static const char *const fn_names[N_FN] = { "adm_coef0", "adm_coef32", "adm_cm", "adm_finish" };

typedef struct AdmCuda {
    AdmState s; /* first: the option offsets are relative to it */
    AdmTileFrame f;
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    CUfunction fn[N_FN];
    CUstream stream;
    const TvmafTwinFrame *frame;    /* the current frame's device copy */
    TvmafCudaSpan span;
    CUdeviceptr d_mem;              /* everything else, one allocation */
    CUdeviceptr d_recip;            /* ADM_RECIP_LEN x int32 */
    CUdeviceptr d_recip0;           /* its entry for 0, the kernels' argument */
    CUdeviceptr d_a_ref[2], d_a_dis[2]; /* approximation bands, alternating per scale */
    AdmTilePlanes planes;           /* device addresses */
    CUdeviceptr d_rows;             /* per-row accumulators, n_rows x u64 */
    size_t n_rows;
    CUdeviceptr d_sums;             /* ADM_N_SCALES x AdmScaleSums */
    AdmScaleSums *h_sums;           /* pinned */
} AdmCuda;

static void close_twin(void *priv)
{
    AdmCuda *m = priv;
    if (!m->dev) return;
    tvmaf_cuda_push(m->dev);
    tvmaf_cuda_span_destroy(&m->span);
    tvmaf_cuda_mem_free(m->d_mem);
    tvmaf_cuda_host_free(m->h_sums);
    tvmaf_cuda_stream_destroy(m->stream);
    tvmaf_cuda_pop(m->dev);
    tvmaf_cuda_module_unload(m->mod);
    tvmaf_cuda_release(m->dev);
    m->dev = NULL;
}

static size_t align_up(size_t n)
{
    return (n + PLANE_ALIGN - 1) & ~(size_t)(PLANE_ALIGN - 1);
}

static void *dev_ptr(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

/* Device buffers, the stream and the reciprocal table; the context is current. */
static int alloc_device(AdmCuda *m, const TvmafVideoInfo *vi)
{
    (void)vi;
    int err = tvmaf_cuda_stream_create(&m->stream);
    if (!err) err = tvmaf_cuda_span_init(&m->span);
    if (err) return err;

    const size_t n0 = (size_t)m->s.sc[0].w * m->s.sc[0].h;
    const size_t n1 = (size_t)m->s.sc[1].w * m->s.sc[1].h;
    /* a plane holds int16 at scale 0 and int32 at scales 1..3 */
    const size_t plane = align_up(2 * n0 > 4 * n1 ? 2 * n0 : 4 * n1);
    const size_t recip = align_up(ADM_RECIP_LEN * sizeof(int32_t));
    const size_t a = align_up(n0 * sizeof(int32_t));
    const size_t rows = align_up(m->n_rows * sizeof(uint64_t));
    const size_t sums = align_up(ADM_N_SCALES * sizeof(AdmScaleSums));
    if ((err = tvmaf_cuda_mem_alloc(&m->d_mem, recip + 4 * a + 18 * plane + rows + sums)))
        return err;
    CUdeviceptr p = m->d_mem;
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
    if ((err = tvmaf_cuda_host_alloc((void **)&m->h_sums, ADM_N_SCALES * sizeof(AdmScaleSums))))
        return err;

    /* the CPU's table, built by the same function, sent once */
    int32_t *table = malloc(ADM_RECIP_LEN * sizeof(int32_t));
    if (!table) return -ENOMEM;
    for (int d = -32768; d <= 32768; d++) table[d + ADM_RECIP_ZERO] = adm_recip_q30(d);
    err = tvmaf_cuda_copy_h2d(m->d_recip, table, ADM_RECIP_LEN * sizeof(int32_t), m->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(m->stream);
    free(table);
    return err;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    AdmCuda *m = priv;
    int err = tvmaf_adm_setup(&m->s, vi, msg, len);
    if (err) return err;
    if ((unsigned)m->s.sc[0].h > GRID_Y_MAX) {
        snprintf(msg, len, "feature \"adm\" (cuda) supports frames up to %u rows, got %u",
                 2 * GRID_Y_MAX, vi->h);
        return -EINVAL;
    }
    m->n_rows = 0;
    for (int k = 0; k < ADM_N_SCALES; k++)
        m->n_rows += adm_tile_scale_init(&m->f.sc[k], &m->s, k, m->n_rows);
    if ((err = tvmaf_cuda_acquire(&m->dev, msg, len))) return err;
    if ((err = tvmaf_cuda_module_load(m->dev, tvmaf_adm_fatbin, &m->mod, msg, len))) goto fail;
    for (unsigned k = 0; k < N_FN; k++)
        if ((err = tvmaf_cuda_module_function(m->mod, fn_names[k], &m->fn[k]))) goto fail_msg;
    if ((err = tvmaf_cuda_push(m->dev))) goto fail_msg;
    err = alloc_device(m, vi);
    tvmaf_cuda_pop(m->dev);
    if (err) goto fail_msg;
    return 0;
fail_msg:
    snprintf(msg, len, "feature \"adm\" (cuda): %s",
             err == -ENOMEM && !*tvmaf_cuda_last_error() ? "out of memory"
                                                          : tvmaf_cuda_last_error());
fail:
    close_twin(m);
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
        err = tvmaf_cuda_launch(m->fn[FN_COEF0], ADM_GRID_X((unsigned)c->w), (unsigned)c->h, 1,
                                ADM_THREADS, 1, 1, 0, m->stream, args);
    } else {
        CUdeviceptr src_ref = m->d_a_ref[(k - 1) & 1], src_dis = m->d_a_dis[(k - 1) & 1];
        void *args[] = { c, &src_ref, &src_dis, &m->d_recip0, &a_ref, &a_dis, &m->planes,
                         &m->d_rows };
        err = tvmaf_cuda_launch(m->fn[FN_COEF32], ADM_GRID_X((unsigned)c->w), (unsigned)c->h, 1,
                                ADM_THREADS, 1, 1, 0, m->stream, args);
    }
    if (err || !c->stats) return err;
    void *args[] = { c, &m->planes, &m->d_rows };
    return tvmaf_cuda_launch(m->fn[FN_CM], ADM_GRID_X((unsigned)(c->r - c->l)),
                             (unsigned)(c->b - c->t), 1, ADM_THREADS, 1, 1, 0, m->stream, args);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    AdmCuda *m = priv;
    (void)ref;
    (void)dis;
    if (!(m->frame = tvmaf_twin_frame_of(sink))) return -EINVAL;
    int err = tvmaf_cuda_push(m->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(m->stream, m->frame->ready);
    if (!err) err = tvmaf_cuda_span_begin(&m->span, m->stream);
    if (!err) err = tvmaf_cuda_memset(m->d_rows, 0, m->n_rows * sizeof(uint64_t), m->stream);
    for (int k = 0; k < ADM_N_SCALES && !err; k++) err = launch_scale(m, k);
    if (!err) {
        void *args[] = { &m->f, &m->d_rows, &m->d_sums };
        err = tvmaf_cuda_launch(m->fn[FN_FINISH], ADM_N_SUMS, ADM_N_SCALES, 1, ADM_FINISH_THREADS,
                                1, 1, 0, m->stream, args);
    }
    if (!err) err = tvmaf_cuda_span_end(&m->span, m->stream);
    if (!err)
        err = tvmaf_cuda_copy_d2h(m->h_sums, m->d_sums, ADM_N_SCALES * sizeof(AdmScaleSums),
                                  m->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(m->stream);
    if (!err) err = tvmaf_cuda_span_add(&m->span, "adm");
    tvmaf_cuda_pop(m->dev);
    if (err) return err;
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
    .init = init,
    .extract = extract,
    .close = close_twin,
    .provided_features = tvmaf_adm_provided,
};
