/*
 * float_moment on the CPU: mean and mean square of the reference's and the
 * distorted's luma (float_moment_ref1st, _dis1st, _ref2nd, _dis2nd), equal to
 * libvmaf's float_moment extractor bit for bit.
 */
#include <errno.h>
#include <stdio.h>

#include "core/feature.h"
#include "feature/float_moment/float_moment_math.h"
#include "feature/float_moment/float_moment_state.h"

int tvmaf_float_moment_setup(FloatMomentSetup *s, const TvmafVideoInfo *vi, char *msg,
                             size_t len)
{
    if (vi->bpc != 8 && vi->bpc != 10 && vi->bpc != 12 && vi->bpc != 16) {
        snprintf(msg, len,
                 "feature \"float_moment\" supports 8, 10, 12 and 16-bit input, not %u-bit",
                 vi->bpc);
        return -EINVAL;
    }
    s->divisor = sample_divisor(vi->bpc);
    s->w = vi->w;
    s->h = vi->h;
    s->bpc = vi->bpc;
    return 0;
}

int tvmaf_float_moment_report(const FloatMomentSetup *s, const FMomentSums *r,
                              const FMomentSums *d, unsigned index, TvmafSink *sink)
{
    const int w = (int)s->w, h = (int)s->h;
    int err = 0;
    err |= tvmaf_sink_append(sink, "float_moment_ref1st", index, fmoment_mean(r->s1, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_dis1st", index, fmoment_mean(d->s1, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_ref2nd", index, fmoment_mean(r->s2, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_dis2nd", index, fmoment_mean(d->s2, w, h));
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    return tvmaf_float_moment_setup(priv, vi, msg, len);
}

/*
 * One picture's sums as the reference's raster-order doubles, through their
 * exact integer totals, as float_psnr's noise ("Exact double sums",
 * common/float_picture.h): each term is a whole number of units, so below
 * 2^53 units the doubles equal the totals whatever the order. The totals are
 * summed in integers a chunk of columns at a time (FPIC_CHUNK8,
 * FPIC_CHUNK16), saturated at 2^53; fmoment_finish turns them into the
 * doubles, or runs the raster-order loop where one saturated.
 */
static void units8(const uint8_t *p, unsigned w, uint64_t u[2])
{
    for (unsigned j0 = 0; j0 < w; j0 += FPIC_CHUNK8) {
        const unsigned n = w - j0 < FPIC_CHUNK8 ? w - j0 : FPIC_CHUNK8;
        uint32_t s1 = 0, s2 = 0;
        for (unsigned j = 0; j < n; j++) {
            const uint32_t v = p[j0 + j];
            s1 += v;
            s2 += v * v;
        }
        u[0] += s1;
        u[1] += s2;
    }
}

static void units16(const uint16_t *p, unsigned w, float divisor, unsigned q1, unsigned q2,
                    uint64_t u[2])
{
    for (unsigned j0 = 0; j0 < w; j0 += FPIC_CHUNK16) {
        const unsigned n = w - j0 < FPIC_CHUNK16 ? w - j0 : FPIC_CHUNK16;
        uint64_t s1 = 0, s2 = 0;
        for (unsigned j = 0; j < n; j++) {
            const float v = float_pic_sample16(p[j0 + j], divisor, 0);
            s1 += fpic_units(v, q1);
            s2 += fpic_units(v * v, q2);
        }
        u[0] = fpic_units_merge(u[0], s1);
        u[1] = fpic_units_merge(u[1], s2);
    }
}

static FMomentSums picture_sums(const TvmafPicture *pic, float divisor)
{
    const unsigned w = pic->w[0], h = pic->h[0], bpc = pic->bpc;
    const unsigned q1 = fmoment_frac_bits(bpc, divisor, 1), q2 = fmoment_frac_bits(bpc, divisor, 2);
    uint64_t total[2] = { 0, 0 };
    for (unsigned i = 0; i < h; i++) {
        const unsigned char *row = pic->data[0] + (ptrdiff_t)i * pic->stride[0];
        uint64_t u[2] = { 0, 0 };
        if (bpc == 8) units8(row, w, u);
        else units16((const uint16_t *)(const void *)row, w, divisor, q1, q2, u);
        for (int k = 0; k < 2; k++) total[k] = fpic_units_merge(total[k], u[k]);
    }
    return fmoment_finish(total, FPIC_UNITS_EXACT, pic->data[0], pic->stride[0], w, h, bpc,
                          divisor);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatMomentSetup *s = priv;
    const FMomentSums r = picture_sums(ref, s->divisor), d = picture_sums(dis, s->divisor);
    return tvmaf_float_moment_report(s, &r, &d, index, sink);
}

static const char *const provided[] = {
    "float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd",
    NULL,
};

const TvmafExtractor tvmaf_fex_float_moment = {
    .name = "float_moment",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(FloatMomentSetup),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
