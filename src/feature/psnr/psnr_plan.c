/*
 * psnr twin, plan (gpu/tvd.h): the planes' sums of squared errors on the
 * device (psnr_kernels.h), finished by the CPU extractor's own code
 * (tvmaf_psnr_report), so everything after the integer sums is literally the
 * CPU's. With CUDA's caps three totals come back; otherwise a sum per row,
 * which the host adds in order (integers: exact either way).
 */
#include "feature/psnr/psnr_kernels.h"
#include "feature/psnr/psnr_plane.h"

TVD_MODULE(psnr, PSNR_KERNELS)

typedef struct PsnrPlan {
    PsnrParams p; /* first: the CPU extractor's state */
    TvdBuf sums;  /* 3 totals, or one per row of every plane */
    unsigned rows, kernel;
    bool totals;
} PsnrPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    (void)msg;
    (void)len;
    PsnrPlan *s = priv;
    int err = tvmaf_psnr_params_init(&s->p, vi);
    if (err) return err;
    const TvdCaps *c = tvd_caps(t);
    s->totals = c->warp == 32 && c->atomic64;
    s->rows = 0;
    for (unsigned p = 0; p < s->p.n_planes; p++) s->rows += s->p.ph[p];
    s->kernel = (s->totals ? TVD_K_psnr_sse_8 : TVD_K_psnr_rows_8) + (vi->bpc > 8);
    return tvd_buffer(t, &s->sums, (s->totals ? 3 : s->rows) * sizeof(uint64_t), TVD_MIRROR);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    PsnrPlan *s = priv;
    int err = s->totals ? tvd_fill(t, tvd_whole(t, s->sums), 0) : 0;
    uint64_t row0 = 0;
    for (unsigned p = 0; p < s->p.n_planes && !err; p++) {
        const unsigned h = s->p.ph[p];
        const PsnrArgs a = {
            .ref = tvd_plane(t, f, 0, p),
            .dis = tvd_plane(t, f, 1, p),
            .pitch = tvd_pitch(t, f, p),
            .w = s->p.pw[p],
            .out = s->totals ? tvd_view(s->sums, p * 8, 8) : tvd_view(s->sums, row0 * 8, h * 8),
        };
        err = tvd_launch(t, s->kernel, TVD_GRID(PSNR_GRID_X(h), 1), &a);
        row0 += h;
    }
    return err ? err : tvd_download(t, tvd_whole(t, s->sums));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    PsnrPlan *s = priv;
    const uint64_t *v = tvd_mirror(t, s->sums);
    uint64_t sse[3] = { 0, 0, 0 };
    for (unsigned p = 0; p < s->p.n_planes; p++)
        if (s->totals) sse[p] = v[p];
        else
            for (unsigned y = 0; y < s->p.ph[p]; y++) sse[p] += *v++;
    return tvmaf_psnr_report(&s->p, sse, index, sink);
}

TVD_PLAN(psnr, psnr, PsnrPlan, .init = init, .run = run, .report = report);
