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
#include <string.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_plane.h"
#include "numerics/powf_table.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/twin_frame.h"

extern const unsigned char tvmaf_ciede_fatbin[];

/* Kernel argument, laid out as ciede.cu's CiedePlanes. */
typedef struct CiedePlanesArg {
    CUdeviceptr ref[3];
    CUdeviceptr dis[3];
    size_t pitch[2];
} CiedePlanesArg;

typedef struct CiedeCuda {
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    CUfunction de8, de16;
    CUstream stream;
    TvmafCudaSpan span;
    CUdeviceptr d_de;
    CUdeviceptr d_powf7; /* the table of numerics/powf_table.h */
    float *h_de; /* pinned, w * h */
    unsigned w, h, cw, ch, bpc;
    int layout;
} CiedeCuda;

static void close_twin(void *priv)
{
    CiedeCuda *s = priv;
    if (!s->dev) return;
    tvmaf_cuda_push(s->dev);
    tvmaf_cuda_span_destroy(&s->span);
    tvmaf_cuda_mem_free(s->d_de);
    tvmaf_cuda_mem_free(s->d_powf7);
    tvmaf_cuda_host_free(s->h_de);
    tvmaf_cuda_stream_destroy(s->stream);
    tvmaf_cuda_pop(s->dev);
    tvmaf_cuda_module_unload(s->mod);
    tvmaf_cuda_release(s->dev);
    s->dev = NULL;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
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
    if ((err = tvmaf_cuda_acquire(&s->dev, msg, len))) return err;
    if ((err = tvmaf_cuda_module_load(s->dev, tvmaf_ciede_fatbin, &s->mod, msg, len))) goto fail;
    if ((err = tvmaf_cuda_module_function(s->mod, "ciede_de00_8", &s->de8)) ||
        (err = tvmaf_cuda_module_function(s->mod, "ciede_de00_16", &s->de16)))
        goto fail_msg;
    if ((err = tvmaf_cuda_push(s->dev))) goto fail_msg;
    const size_t bytes = sizeof(float) * s->w * s->h;
    /* (an empty table is generated as one unused element) */
    const size_t tab_bytes = sizeof(uint32_t) * (tvmaf_powf7_table_n ? tvmaf_powf7_table_n : 1);
    err = tvmaf_cuda_stream_create(&s->stream);
    if (!err) err = tvmaf_cuda_mem_alloc(&s->d_powf7, tab_bytes);
    if (!err) err = tvmaf_cuda_copy_h2d(s->d_powf7, tvmaf_powf7_table, tab_bytes, s->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(s->stream);
    if (!err) err = tvmaf_cuda_span_init(&s->span);
    if (!err) err = tvmaf_cuda_mem_alloc(&s->d_de, bytes);
    if (!err) err = tvmaf_cuda_host_alloc((void **)&s->h_de, bytes);
    tvmaf_cuda_pop(s->dev);
    if (err) goto fail_msg;
    return 0;
fail_msg:
    snprintf(msg, len, "feature \"ciede\" (cuda): %s", tvmaf_cuda_last_error());
fail:
    close_twin(s);
    return err;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    CiedeCuda *s = priv;
    (void)ref;
    (void)dis;
    const TvmafTwinFrame *f = tvmaf_twin_frame_of(sink);
    if (!f || f->n_planes < 3) return -EINVAL;
    int err = tvmaf_cuda_push(s->dev);
    if (err) return err;
    err = tvmaf_cuda_stream_wait_event(s->stream, f->ready);
    if (!err) err = tvmaf_cuda_span_begin(&s->span, s->stream);
    CiedePlanesArg planes = {
        { f->d_ref[0], f->d_ref[1], f->d_ref[2] },
        { f->d_dis[0], f->d_dis[1], f->d_dis[2] },
        { f->pitch[0], f->pitch[1] },
    };
    /* the kernel's CiedeLibm: the same struct, holding a device pointer */
    CiedeLibm lm = { (const uint32_t *)(uintptr_t)s->d_powf7, tvmaf_powf7_table_n };
    void *args[] = { &planes, &s->w, &s->h, &s->cw, &s->ch, &s->layout, &s->bpc, &lm, &s->d_de };
    if (!err)
        err = tvmaf_cuda_launch(s->bpc == 8 ? s->de8 : s->de16, (s->w + 31) / 32, (s->h + 7) / 8, 1,
                                32, 8, 1, 0, s->stream, args);
    if (!err) err = tvmaf_cuda_span_end(&s->span, s->stream);
    if (!err) err = tvmaf_cuda_copy_d2h(s->h_de, s->d_de, sizeof(float) * s->w * s->h, s->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(s->stream);
    if (!err) err = tvmaf_cuda_span_add(&s->span, "ciede");
    tvmaf_cuda_pop(s->dev);
    if (err) return err;
    const double sum = ciede_sum_raster(s->h_de, s->w, s->h);
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, s->w, s->h));
}

static const char *const provided[] = { "ciede2000", NULL };

const TvmafExtractor tvmaf_fex_ciede_cuda = {
    .name = "ciede",
    .backend = TVMAF_BACKEND_CUDA,
    .options = NULL,
    .priv_size = sizeof(CiedeCuda),
    .init = init,
    .extract = extract,
    .close = close_twin,
    .provided_features = provided,
};
