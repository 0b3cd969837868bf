/*
 * float_ansnr on the CPU: float_ansnr and float_anpsnr of the luma plane,
 * equal to libvmaf's float_ansnr extractor bit for bit. Both pictures are
 * converted to float once; then each row is filtered into two row buffers and
 * its float sums are added in row order (see float_ansnr_math.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/feature.h"
#include "feature/float_ansnr/float_ansnr_math.h"
#include "feature/float_ansnr/float_ansnr_state.h"

typedef struct FloatAnsnrState {
    FloatAnsnrSetup p;
    float *mem;       /* one allocation for everything below */
    float *ref, *dis; /* converted planes, w x h, stride w */
    float *rf, *df;   /* one filtered row of each, w */
} FloatAnsnrState;

static void close_cpu(void *priv)
{
    FloatAnsnrState *s = priv;
    free(s->mem);
    s->mem = NULL;
}

int tvmaf_float_ansnr_setup(FloatAnsnrSetup *s, const TvmafVideoInfo *vi, char *msg,
                            size_t len)
{
    if (!float_psnr_constants(vi->bpc, &s->peak, &s->psnr_max)) {
        snprintf(msg, len,
                 "feature \"float_ansnr\" supports 8, 10, 12 and 16-bit input, not %u-bit",
                 vi->bpc);
        return -EINVAL;
    }
    if (vi->w < FANSNR_MIN_DIM || vi->h < FANSNR_MIN_DIM) {
        snprintf(msg, len,
                 "feature \"float_ansnr\" needs a frame of at least %dx%d (its 5x5 filter "
                 "reflects 2 samples at the borders); the input is %ux%u",
                 FANSNR_MIN_DIM, FANSNR_MIN_DIM, vi->w, vi->h);
        return -EINVAL;
    }
    s->divisor = sample_divisor(vi->bpc);
    s->w = (int)vi->w;
    s->h = (int)vi->h;
    s->bpc = vi->bpc;
    return 0;
}

int tvmaf_float_ansnr_report(const FloatAnsnrSetup *s, float sig, float noise, unsigned index,
                             TvmafSink *sink)
{
    int err = 0;
    err |= tvmaf_sink_append(sink, "float_ansnr", index, fansnr_db(sig, noise, s->psnr_max));
    err |= tvmaf_sink_append(sink, "float_anpsnr", index,
                             fanpsnr_db(noise, s->w, s->h, s->peak, s->psnr_max));
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    FloatAnsnrState *s = priv;
    int err = tvmaf_float_ansnr_setup(&s->p, vi, msg, len);
    if (err) return err;
    const size_t plane = (size_t)vi->w * vi->h;
    s->mem = malloc((2 * plane + 2 * (size_t)vi->w) * sizeof(float));
    if (!s->mem) return -ENOMEM;
    s->ref = s->mem;
    s->dis = s->ref + plane;
    s->rf = s->dis + plane;
    s->df = s->rf + vi->w;
    return 0;
}

/* The picture's luma as float samples, offset by FANSNR_OFFSET. */
static void convert(const TvmafPicture *pic, float divisor, float *dst)
{
    const unsigned w = pic->w[0];
    const unsigned char *p = pic->data[0];
    for (unsigned i = 0; i < pic->h[0]; i++, p += pic->stride[0], dst += w) {
        if (pic->bpc == 8) {
            for (unsigned j = 0; j < w; j++) dst[j] = float_pic_sample8(p[j], FANSNR_OFFSET);
        } else {
            const uint16_t *q = (const uint16_t *)p;
            for (unsigned j = 0; j < w; j++)
                dst[j] = float_pic_sample16(q[j], divisor, FANSNR_OFFSET);
        }
    }
}

/* Row i of `plane` filtered with the width x width taps into out. */
static void filter_row(const float *taps, int width, const float *plane, int w, int h, int i,
                       float *out)
{
    const float *rows[FANSNR_DIS_WIDTH];
    fansnr_window(plane, w, i, h, width, rows);
    int lo, hi;
    fansnr_inner_columns(width, w, &lo, &hi);
    for (int j = 0; j < lo; j++) out[j] = fansnr_filter_edge(taps, width, rows, j, w);
    for (int j = lo; j < hi; j++) out[j] = fansnr_filter_inner(taps, width, rows, j);
    for (int j = hi; j < w; j++) out[j] = fansnr_filter_edge(taps, width, rows, j, w);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    FloatAnsnrState *s = priv;
    const int w = s->p.w, h = s->p.h;
    convert(ref, s->p.divisor, s->ref);
    convert(dis, s->p.divisor, s->dis);
    float sig = 0.0f, noise = 0.0f;
    for (int i = 0; i < h; i++) {
        filter_row(fansnr_ref_taps, FANSNR_REF_WIDTH, s->ref, w, h, i, s->rf);
        filter_row(fansnr_dis_taps, FANSNR_DIS_WIDTH, s->dis, w, h, i, s->df);
        float row_sig, row_noise;
        fansnr_row_sums(s->rf, s->df, w, &row_sig, &row_noise);
        fansnr_frame_add(&sig, &noise, row_sig, row_noise);
    }
    return tvmaf_float_ansnr_report(&s->p, sig, noise, index, sink);
}

static const char *const provided[] = { "float_ansnr", "float_anpsnr", NULL };

const TvmafExtractor tvmaf_fex_float_ansnr = {
    .name = "float_ansnr",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(FloatAnsnrState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_cpu,
    .provided_features = provided,
};
