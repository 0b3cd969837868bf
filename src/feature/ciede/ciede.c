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

static inline float sample(const TvmafPicture *p, int plane, long off)
{
    if (off < 0) return 0.0f;
    if (p->bpc == 8) return ((const uint8_t *)p->data[plane])[off];
    return ((const uint16_t *)p->data[plane])[off];
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const CiedeState *s = priv;
    const unsigned bps = ref->bpc > 8 ? 2 : 1;
    const unsigned lp_r = (unsigned)(ref->stride[0] / bps), lp_d = (unsigned)(dis->stride[0] / bps);
    const unsigned cp_r = (unsigned)(ref->stride[1] / bps), cp_d = (unsigned)(dis->stride[1] / bps);
    double sum = 0.;
    for (unsigned i = 0; i < ref->h[0]; i++) {
        for (unsigned j = 0; j < ref->w[0]; j++) {
            const long or_ = ciede_chroma_offset(s->layout, i, j, ref->w[1], ref->h[1], cp_r);
            const long od = ciede_chroma_offset(s->layout, i, j, dis->w[1], dis->h[1], cp_d);
            const float de = ciede_pixel(sample(ref, 0, (long)i * lp_r + j), sample(ref, 1, or_),
                                         sample(ref, 2, or_), sample(dis, 0, (long)i * lp_d + j),
                                         sample(dis, 1, od), sample(dis, 2, od), ref->bpc);
            sum += de;
        }
    }
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, ref->w[0], ref->h[0]));
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
