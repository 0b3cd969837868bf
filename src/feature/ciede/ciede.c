/*
 * ciede on the CPU: ciede2000 = 45 - 20 log10(mean dE00), equal to libvmaf's
 * ciede extractor bit for bit. The per-pixel values are added into one double
 * in raster order, as the reference does; the CUDA twin keeps that order.
 */
#include <errno.h>
#include <stdio.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_plane.h"

typedef struct CiedeState {
    int layout;
} CiedeState;

int tvmaf_ciede_check(const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) {
        snprintf(msg, len, "feature \"ciede\" needs chroma planes; the input is 4:0:0 (luma only)");
        return -EINVAL;
    }
    return 0;
}

int tvmaf_ciede_layout(enum TvmafPixelFormat fmt)
{
    return fmt == TVMAF_PIX_FMT_YUV420P ? 420 : fmt == TVMAF_PIX_FMT_YUV422P ? 422 : 444;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    CiedeState *s = priv;
    s->layout = tvmaf_ciede_layout(vi->pix_fmt);
    return tvmaf_ciede_check(vi, msg, len);
}

/* dE00 of pixel (j, i) of a host picture pair with equal strides, the
 * CPU's (glibc's functions: the host calls glibc itself). Inlined: the
 * extractor's per-pixel loop. */
static inline __attribute__((always_inline)) float
pixel_at(const TvmafPicture *ref, const TvmafPicture *dis, int layout, unsigned j, unsigned i)
{
    const unsigned bps = ref->bpc > 8 ? 2 : 1;
    const unsigned lp = (unsigned)(ref->stride[0] / bps), cp = (unsigned)(ref->stride[1] / bps);
    const void *const r[3] = { ref->data[0], ref->data[1], ref->data[2] };
    const void *const d[3] = { dis->data[0], dis->data[1], dis->data[2] };
    const CiedeLibm glibc = { 0, 0 };
    float de;
    if (ref->bpc == 8)
        CIEDE_PIXEL_AT(uint8_t, r, d, j, i, lp, cp, ref->w[1], ref->h[1], layout, ref->bpc,
                       glibc, de);
    else
        CIEDE_PIXEL_AT(uint16_t, r, d, j, i, lp, cp, ref->w[1], ref->h[1], layout, ref->bpc,
                       glibc, de);
    return de;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const CiedeState *s = priv;
    /* the reader and the context give reference and distorted equal strides */
    if (dis->stride[0] != ref->stride[0] || dis->stride[1] != ref->stride[1]) return -EINVAL;
    double sum = 0.;
    for (unsigned i = 0; i < ref->h[0]; i++)
        for (unsigned j = 0; j < ref->w[0]; j++) sum += pixel_at(ref, dis, s->layout, j, i);
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, ref->w[0], ref->h[0]));
}

unsigned long tvmaf_ciede_decide(float *de, const TvmafPicture *ref, const TvmafPicture *dis)
{
    const unsigned w = ref->w[0], h = ref->h[0];
    const int layout = tvmaf_ciede_layout(ref->pix_fmt);
    unsigned long n = 0;
    for (unsigned i = 0; i < h; i++) {
        for (unsigned j = 0; j < w; j++) {
            float *v = &de[(size_t)i * w + j];
            if (!isnan(*v)) continue;
            *v = pixel_at(ref, dis, layout, j, i);
            n++;
        }
    }
    return n;
}

static const char *const provided[] = { "ciede2000", NULL };

const TvmafExtractor tvmaf_fex_ciede = {
    .name = "ciede",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(CiedeState),
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
