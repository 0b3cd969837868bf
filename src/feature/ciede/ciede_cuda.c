/*
 * ciede twin, host side: the device computes every pixel's dE00 (ciede.cu,
 * with ciede_math.h); the plane is read back and added here in raster order
 * with ciede_sum_raster(), the CPU's sum, then scored by ciede_score().
 *
 * powf(x, 7): the device replays the build host's glibc from a table
 * (numerics/powf_table.h), uploaded once at init. init first checks that
 * table against the running glibc and refuses the twin if it disagrees (a
 * binary built on another glibc): its results would not be the CPU's.
 */
#include <errno.h>
#include <stdio.h>

#include "feature/ciede/ciede_kernel.h"
#include "feature/ciede/ciede_plane.h"
#include "numerics/powf_table.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_ciede_fatbin[];

enum { FN_DE8, FN_DE16 };
static const char *const fn_names[] = { "ciede_de00_8", "ciede_de00_16", NULL };

typedef struct CiedeCuda {
    TvmafCudaTwin t;
    CUdeviceptr d_de;
    CUdeviceptr d_powf7; /* the table of numerics/powf_table.h */
    float *h_de; /* page-locked, w * h */
    unsigned w, h, cw, ch, bpc;
    int layout;
} CiedeCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((CiedeCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    CiedeCuda *s = priv;
    int err = tvmaf_ciede_check(vi, msg, len);
    if (err) return err;
    unsigned pw[3], ph[3];
    tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph);
    s->w = vi->w; s->h = vi->h; s->cw = pw[1]; s->ch = ph[1]; s->bpc = vi->bpc;
    s->layout = tvmaf_ciede_layout(vi->pix_fmt);
    /* 4096 entries and 4096 other floats: a few milliseconds */
    char why[384];
    if ((err = tvmaf_powf7_table_check(4096, why, sizeof(why)))) {
        snprintf(msg, len, "feature \"ciede\" (cuda): %s", why);
        return err;
    }
    const size_t bytes = sizeof(float) * s->w * s->h;
    /* (an empty table is generated as one unused element) */
    const size_t tab_bytes = sizeof(uint32_t) * (tvmaf_powf7_table_n ? tvmaf_powf7_table_n : 1);
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "ciede", tvmaf_ciede_fatbin, fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_powf7, tab_bytes, msg, len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_powf7, tvmaf_powf7_table, tab_bytes, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_de, bytes, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_de, bytes, msg, len)))
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
    CiedeCuda *s = priv;
    if (f->n_planes < 3) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    CiedePlanes planes = {
        { f->d_ref[0], f->d_ref[1], f->d_ref[2] },
        { f->d_dis[0], f->d_dis[1], f->d_dis[2] },
        { f->pitch[0], f->pitch[1] },
    };
    /* the kernel's CiedeLibm: the same struct, holding a device pointer */
    CiedeLibm lm = { (const uint32_t *)(uintptr_t)s->d_powf7, tvmaf_powf7_table_n };
    void *args[] = { &planes, &s->w, &s->h, &s->cw, &s->ch, &s->layout, &s->bpc, &lm, &s->d_de };
    err = tvmaf_cuda_twin_launch(&s->t, s->bpc == 8 ? FN_DE8 : FN_DE16,
                                 CIEDE_GRID_X(s->w), CIEDE_GRID_Y(s->h), CIEDE_BLOCK_W,
                                 CIEDE_BLOCK_H, args);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_de, s->d_de, sizeof(float) * s->w * s->h, s->t.stream);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    const double sum = ciede_sum_raster(s->h_de, s->w, s->h);
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, s->w, s->h));
}

static const char *const provided[] = { "ciede2000", NULL };

const TvmafExtractor tvmaf_fex_ciede_cuda = {
    .name = "ciede",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(CiedeCuda),
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = provided,
};
