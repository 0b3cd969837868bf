/*
 * ciede twin, plan (gpu/tvd.h): the device computes every pixel's dE00
 * (ciede_kernels.h), the plane is read back and added here in raster order
 * (ciede_sum_raster, the CPU's sum) and scored by ciede_score.
 *
 * With CUDA's caps the double arithmetic runs; elsewhere the fp32 pairs
 * (no fp64 needed, the one program of OpenCL whether the device has fp64 or
 * not), which need correctly rounded float division and square root. The
 * pairs leave a pixel undecided (NaN) where a bound does not prove that its
 * floats are the CPU's (ciede_pair.h); the host computes those pixels with
 * the CPU's code before the sum, so every pixel's float is the CPU's.
 * powf(x, 7): the devices replay the build host's glibc from a table
 * uploaded once, after a check that the running glibc is that one.
 */
#include <errno.h>
#include <stdio.h>

#include "feature/ciede/ciede_kernels.h"
#include "feature/ciede/ciede_plane.h"

TVD_MODULE(ciede, CIEDE_KERNELS)

typedef struct CiedePlan {
    int cpu_layout; /* the CPU extractor's state */
    TvdBuf de, tab, k;
    unsigned w, h, cw, ch, bpc, kernel;
    int layout;
    bool pairs;
} CiedePlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    CiedePlan *s = priv;
    int err = tvmaf_ciede_check(vi, msg, len);
    if (err) return err;
    unsigned pw[3], ph[3];
    tvmaf_plane_dims(vi->pix_fmt, vi->w, vi->h, pw, ph);
    s->w = vi->w; s->h = vi->h; s->cw = pw[1]; s->ch = ph[1]; s->bpc = vi->bpc;
    s->layout = tvmaf_ciede_layout(vi->pix_fmt);
    const TvdCaps *c = tvd_caps(t);
    const bool pairs = s->pairs = !(c->warp == 32 && c->atomic64);
    if (pairs && !c->cr_div_sqrt) {
        snprintf(msg, len, "feature \"ciede\": the device has no correctly rounded float "
                 "division and square root (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT); its results "
                 "would not be the CPU's");
        return -ENOTSUP;
    }
    s->kernel = (pairs ? TVD_K_ciede_pair_8 : TVD_K_ciede_de00_8) + (vi->bpc > 8);
    /* 4096 entries and 4096 other floats: a few milliseconds */
    char why[384];
    if ((err = tvmaf_powf7_table_check(4096, why, sizeof(why)))) {
        snprintf(msg, len, "feature \"ciede\": %s", why);
        return err;
    }
    /* (an empty table is generated as one unused element) */
    const size_t n = tvmaf_powf7_table_n ? tvmaf_powf7_table_n : 1;
    if ((err = tvd_buffer(t, &s->tab, n * sizeof(uint32_t), 0)) ||
        (err = tvd_buffer(t, &s->k, sizeof(CiedePairK), 0)))
        return err;
    return tvd_buffer(t, &s->de, sizeof(float) * s->w * s->h, TVD_MIRROR);
}

static int setup(void *priv, TvdTwin *t)
{
    CiedePlan *s = priv;
    CiedePairK k;
    ciede_pair_constants(&k, s->bpc);
    int err = tvd_upload(t, tvd_whole(t, s->k), &k);
    return err ? err
               : tvd_upload(t, tvd_whole(t, s->tab), tvmaf_powf7_table);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    CiedePlan *s = priv;
    const CiedeArgs a = {
        .ry = tvd_plane(t, f, 0, 0), .ru = tvd_plane(t, f, 0, 1), .rv = tvd_plane(t, f, 0, 2),
        .dy = tvd_plane(t, f, 1, 0), .du = tvd_plane(t, f, 1, 1), .dv = tvd_plane(t, f, 1, 2),
        .luma_pitch = tvd_pitch(t, f, 0), .chroma_pitch = tvd_pitch(t, f, 1),
        .w = s->w, .h = s->h, .cw = s->cw, .ch = s->ch, .layout = s->layout, .bpc = s->bpc,
        .tab = tvd_whole(t, s->tab), .n = tvmaf_powf7_table_n, .k = tvd_whole(t, s->k),
        .de = tvd_whole(t, s->de),
    };
    const TvdGrid g = TVD_GRID((s->w + CIEDE_BLOCK_W - 1) / CIEDE_BLOCK_W,
                               (s->h + CIEDE_BLOCK_H - 1) / CIEDE_BLOCK_H);
    int err = tvd_launch(t, s->kernel, g, &a);
    return err ? err : tvd_download(t, tvd_whole(t, s->de));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    CiedePlan *s = priv;
    float *de = tvd_mirror(t, s->de);
    if (s->pairs) {
        const TvmafPicture *ref = tvd_host_picture(t, 0), *dis = tvd_host_picture(t, 1);
        if (!ref || !dis || ref->stride[0] != dis->stride[0] || ref->stride[1] != dis->stride[1])
            return -EINVAL;
        tvd_count_decided(t, tvmaf_ciede_decide(de, ref, dis), (unsigned long long)s->w * s->h);
    }
    const double sum = ciede_sum_raster(de, s->w, s->h);
    return tvmaf_sink_append(sink, "ciede2000", index, ciede_score(sum, s->w, s->h));
}

TVD_PLAN(ciede, ciede, CiedePlan, .init = init, .setup = setup, .run = run, .report = report);
