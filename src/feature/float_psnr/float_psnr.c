/*
 * float_psnr on the CPU: luma psnr from float samples on the 8-bit scale,
 * equal to libvmaf's float_psnr extractor bit for bit. The float squared
 * differences go into one double in raster order (see float_psnr_math.h).
 */
#include <errno.h>
#include <stdio.h>

#include "core/feature.h"
#include "feature/float_psnr/float_psnr_math.h"

typedef struct FloatPsnrState {
    double peak, psnr_max;
    float divisor;
} FloatPsnrState;

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatPsnrState *s = priv;
    if (!float_psnr_constants(vi->bpc, &s->peak, &s->psnr_max)) {
        snprintf(msg, len, "feature \"float_psnr\" supports 8, 10, 12 and 16-bit input, not %u-bit",
                 vi->bpc);
        return -EINVAL;
    }
    s->divisor = float_pic_divisor(vi->bpc);
    return 0;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatPsnrState *s = priv;
    const unsigned w = ref->w[0], h = ref->h[0];
    const unsigned char *r = ref->data[0], *d = dis->data[0];
    double noise = 0.;
    for (unsigned i = 0; i < h; i++) {
        if (ref->bpc == 8)
            noise = fpsnr_row_noise8(r, d, w, noise);
        else
            noise = fpsnr_row_noise16((const uint16_t *)r, (const uint16_t *)d, w, s->divisor,
                                      noise);
        r += ref->stride[0];
        d += dis->stride[0];
    }
    return tvmaf_sink_append(sink, "float_psnr", index,
                             fpsnr_db(noise, (int)w, (int)h, s->peak, s->psnr_max));
}

static const char *const provided[] = { "float_psnr", NULL };

const TvmafExtractor tvmaf_fex_float_psnr = {
    .name = "float_psnr",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(FloatPsnrState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
