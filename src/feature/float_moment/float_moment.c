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

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const FloatMomentSetup *s = priv;
    FMomentSums r = { 0., 0. }, d = { 0., 0. };
    fmoment_plane(ref->data[0], ref->stride[0], ref->w[0], ref->h[0], ref->bpc, s->divisor, &r);
    fmoment_plane(dis->data[0], dis->stride[0], dis->w[0], dis->h[0], dis->bpc, s->divisor, &d);
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
