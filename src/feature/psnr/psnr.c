/*
 * psnr on the CPU: psnr_y, psnr_cb, psnr_cr (and mse_*, apsnr_*), equal to
 * libvmaf's integer psnr extractor bit for bit.
 */
#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <string.h>

#include "feature/psnr/psnr_math.h"
#include "feature/psnr/psnr_plane.h"

const TvmafOption tvmaf_psnr_options[] = {
    { "enable_chroma", "enable calculation for chroma channels",
      offsetof(PsnrParams, enable_chroma), TVMAF_OPT_BOOL, { .b = true }, 0, 0, 0, NULL },
    { "enable_mse", "enable MSE calculation",
      offsetof(PsnrParams, enable_mse), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "enable_apsnr", "enable APSNR calculation",
      offsetof(PsnrParams, enable_apsnr), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "reduced_hbd_peak", "reduce hbd peak value to align with scaled 8-bit content",
      offsetof(PsnrParams, reduced_hbd_peak), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "min_sse", "constrain the minimum possible sse",
      offsetof(PsnrParams, min_sse), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, DBL_MAX, 0, NULL },
    { 0 },
};

int tvmaf_psnr_params_init(PsnrParams *p, const TvmafVideoInfo *vi)
{
    if (tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, p->pw, p->ph)) return -EINVAL;
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) p->enable_chroma = false;
    p->n_planes = p->enable_chroma ? 3 : 1;
    p->peak = psnr_peak(vi->bpc, p->reduced_hbd_peak);
    for (unsigned i = 0; i < 3; i++)
        p->psnr_max[i] = psnr_max_db(p->peak, vi->bpc, p->min_sse, p->pw[i], p->ph[i]);
    memset(p->sse_total, 0, sizeof(p->sse_total));
    memset(p->pixels_total, 0, sizeof(p->pixels_total));
    return 0;
}

int tvmaf_psnr_report(PsnrParams *p, const uint64_t sse[3], unsigned index, TvmafSink *sink)
{
    static const char *psnr_key[3] = { "psnr_y", "psnr_cb", "psnr_cr" };
    static const char *mse_key[3] = { "mse_y", "mse_cb", "mse_cr" };
    int err = 0;
    for (unsigned i = 0; i < p->n_planes; i++) {
        if (p->enable_apsnr) {
            p->sse_total[i] += sse[i];
            p->pixels_total[i] += (uint64_t)p->pw[i] * p->ph[i];
        }
        const double mse = psnr_mse(sse[i], p->pw[i], p->ph[i]);
        err |= tvmaf_sink_append(sink, psnr_key[i], index, psnr_db(mse, p->peak, p->psnr_max[i]));
        if (p->enable_mse) err |= tvmaf_sink_append(sink, mse_key[i], index, mse);
    }
    return err ? -EINVAL : 0;
}

int tvmaf_psnr_merge(PsnrParams *dst, const PsnrParams *src)
{
    for (unsigned i = 0; i < 3; i++) {
        dst->sse_total[i] += src->sse_total[i];
        dst->pixels_total[i] += src->pixels_total[i];
    }
    return 0;
}

int tvmaf_psnr_flush(PsnrParams *p, TvmafSink *sink)
{
    static const char *key[3] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };
    if (!p->enable_apsnr) return 0;
    int err = 0;
    /* all three planes, as the reference does even without chroma (the
     * missing planes then give NaN, written as null) */
    for (unsigned i = 0; i < 3; i++)
        err |= tvmaf_sink_aggregate(sink, key[i],
                                    psnr_stream_db(p->peak, p->sse_total[i], p->pixels_total[i]));
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    (void)msg; (void)len;
    return tvmaf_psnr_params_init(priv, vi);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    PsnrParams *p = priv;
    uint64_t sse[3] = { 0, 0, 0 };
    for (unsigned i = 0; i < p->n_planes; i++) {
        const unsigned char *r = ref->data[i], *d = dis->data[i];
        for (unsigned y = 0; y < ref->h[i]; y++) {
            if (ref->bpc == 8)
                sse[i] += psnr_row_sse_8(r, d, ref->w[i]);
            else
                sse[i] += psnr_row_sse_16((const uint16_t *)r, (const uint16_t *)d, ref->w[i]);
            r += ref->stride[i];
            d += dis->stride[i];
        }
    }
    return tvmaf_psnr_report(p, sse, index, sink);
}

static int merge(void *dst, const void *src) { return tvmaf_psnr_merge(dst, src); }
static int flush(void *priv, TvmafSink *sink) { return tvmaf_psnr_flush(priv, sink); }

static const char *const provided[] = { "psnr_y", "psnr_cb", "psnr_cr", NULL };

const TvmafExtractor tvmaf_fex_psnr = {
    .name = "psnr",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_psnr_options,
    .priv_size = sizeof(PsnrParams),
    .flags = TVMAF_FEX_ALL_FRAMES,
    .init = init,
    .extract = extract,
    .merge = merge,
    .flush = flush,
    .provided_features = provided,
};
