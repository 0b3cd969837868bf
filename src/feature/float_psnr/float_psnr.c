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

/*
 * The plane's noise as the reference's raster-order double sum, through its
 * exact integer total ("Exact double sums", common/float_picture.h): every
 * term is a whole number of units of 2^-q, so while the total stays below
 * 2^53 units no partial sum of the double accumulation rounds and the double
 * equals the total, whatever the order. The total is summed here in integers,
 * a chunk of columns at a time (FPIC_CHUNK8, FPIC_CHUNK16), saturated at
 * 2^53; fpsnr_finish turns it into the double, or runs the raster-order
 * loop where it saturated (16-bit content of extreme values at very large
 * sizes; an 8-bit picture's squares are whole units, so it would need more
 * than 2^37 pixels).
 */
static uint64_t units8(const uint8_t *r, const uint8_t *d, unsigned w)
{
    uint64_t total = 0;
    for (unsigned j0 = 0; j0 < w; j0 += FPIC_CHUNK8) {
        const unsigned n = w - j0 < FPIC_CHUNK8 ? w - j0 : FPIC_CHUNK8;
        uint32_t acc = 0;
        for (unsigned j = 0; j < n; j++) {
            const int32_t e = (int32_t)r[j0 + j] - d[j0 + j];
            acc += (uint32_t)(e * e);
        }
        total += acc;
    }
    return total;
}

static uint64_t units16(const uint16_t *r, const uint16_t *d, unsigned w, float divisor,
                        unsigned q)
{
    uint64_t total = 0;
    for (unsigned j0 = 0; j0 < w; j0 += FPIC_CHUNK16) {
        const unsigned n = w - j0 < FPIC_CHUNK16 ? w - j0 : FPIC_CHUNK16;
        uint64_t acc = 0;
        for (unsigned j = 0; j < n; j++) acc += fpic_units(fpsnr_se16(r[j0 + j], d[j0 + j], divisor), q);
        total = fpic_units_merge(total, acc);
    }
    return total;
}

static double plane_noise(const TvmafPicture *ref, const TvmafPicture *dis, float divisor)
{
    const unsigned w = ref->w[0], h = ref->h[0], bpc = ref->bpc;
    const unsigned q = bpc == 8 ? 0 : fpic_frac_bits(divisor, 2);
    uint64_t total = 0;
    for (unsigned i = 0; i < h; i++) {
        const unsigned char *r = ref->data[0] + (ptrdiff_t)i * ref->stride[0];
        const unsigned char *d = dis->data[0] + (ptrdiff_t)i * dis->stride[0];
        const uint64_t row = bpc == 8 ? units8(r, d, w)
                                      : units16((const uint16_t *)(const void *)r,
                                                (const uint16_t *)(const void *)d, w, divisor, q);
        total = fpic_units_merge(total, row);
    }
    return fpsnr_finish(total, FPIC_UNITS_EXACT, ref->data[0], dis->data[0], ref->stride[0],
                        dis->stride[0], w, h, bpc, divisor);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatPsnrSetup *s = priv;
    return tvmaf_float_psnr_report(s, plane_noise(ref, dis, s->divisor), index, sink);
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
