/*
 * float_psnr on the CPU: luma psnr from float samples on the 8-bit scale,
 * equal to libvmaf's float_psnr extractor bit for bit. The float squared
 * differences go into one double in raster order (see float_psnr_math.h).
 */
#include <errno.h>
#include <stdio.h>

#include "core/feature.h"
#include "feature/float_psnr/float_psnr_math.h"
#include "feature/float_psnr/float_psnr_state.h"

int tvmaf_float_psnr_setup(FloatPsnrSetup *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (!float_psnr_constants(vi->bpc, &s->peak, &s->psnr_max)) {
        snprintf(msg, len, "feature \"float_psnr\" supports 8, 10, 12 and 16-bit input, not %u-bit",
                 vi->bpc);
        return -EINVAL;
    }
    s->divisor = sample_divisor(vi->bpc);
    s->w = vi->w;
    s->h = vi->h;
    s->bpc = vi->bpc;
    return 0;
}

int tvmaf_float_psnr_report(const FloatPsnrSetup *s, double noise, unsigned index,
                            TvmafSink *sink)
{
    return tvmaf_sink_append(sink, "float_psnr", index,
                             fpsnr_db(noise, (int)s->w, (int)s->h, s->peak, s->psnr_max));
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    return tvmaf_float_psnr_setup(priv, vi, msg, len);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatPsnrSetup *s = priv;
    const double noise = fpsnr_plane_noise(ref->data[0], dis->data[0], ref->stride[0],
                                           dis->stride[0], ref->w[0], ref->h[0], ref->bpc,
                                           s->divisor);
    return tvmaf_float_psnr_report(s, noise, index, sink);
}

static const char *const provided[] = { "float_psnr", NULL };

const TvmafExtractor tvmaf_fex_float_psnr = {
    .name = "float_psnr",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(FloatPsnrSetup),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
