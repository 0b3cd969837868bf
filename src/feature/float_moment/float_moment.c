/*
 * float_moment on the CPU: mean and mean square of the reference's and the
 * distorted's luma (float_moment_ref1st, _dis1st, _ref2nd, _dis2nd), equal to
 * libvmaf's float_moment extractor bit for bit.
 */
#include <errno.h>
#include <stdio.h>

#include "core/feature.h"
#include "feature/float_moment/float_moment_math.h"

typedef struct FloatMomentState {
    float divisor;
} FloatMomentState;

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatMomentState *s = priv;
    if (vi->bpc != 8 && vi->bpc != 10 && vi->bpc != 12 && vi->bpc != 16) {
        snprintf(msg, len,
                 "feature \"float_moment\" supports 8, 10, 12 and 16-bit input, not %u-bit",
                 vi->bpc);
        return -EINVAL;
    }
    s->divisor = float_pic_divisor(vi->bpc);
    return 0;
}

static void plane_sums(const TvmafPicture *pic, float divisor, FMomentSums *m)
{
    const unsigned char *p = pic->data[0];
    for (unsigned i = 0; i < pic->h[0]; i++, p += pic->stride[0]) {
        if (pic->bpc == 8)
            fmoment_row8(p, pic->w[0], m);
        else
            fmoment_row16((const uint16_t *)p, pic->w[0], divisor, m);
    }
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatMomentState *s = priv;
    const int w = (int)ref->w[0], h = (int)ref->h[0];
    FMomentSums r = { 0., 0. }, d = { 0., 0. };
    plane_sums(ref, s->divisor, &r);
    plane_sums(dis, s->divisor, &d);
    int err = 0;
    err |= tvmaf_sink_append(sink, "float_moment_ref1st", index, fmoment_mean(r.s1, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_dis1st", index, fmoment_mean(d.s1, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_ref2nd", index, fmoment_mean(r.s2, w, h));
    err |= tvmaf_sink_append(sink, "float_moment_dis2nd", index, fmoment_mean(d.s2, w, h));
    return err ? -EINVAL : 0;
}

static const char *const provided[] = {
    "float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd",
    NULL,
};

const TvmafExtractor tvmaf_fex_float_moment = {
    .name = "float_moment",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(FloatMomentState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
