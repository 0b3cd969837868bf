/*
 * float_vif twin, host side: float_vif.cu loads (and prescales) the luma
 * planes, builds the four scales and computes every sample's num and den,
 * then each row's float sums; the host reads the rows back, adds each
 * scale's rows top to bottom in float (fvif_sum, as the CPU does) and
 * reports with the CPU extractor's code. The Gaussian taps, the bilinear
 * column tables and the lanczos4 taps (which call the host's sin) are the
 * host's own values, uploaded once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_vif/float_vif_math.h"
#include "feature/float_vif/float_vif_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_vif_fatbin[];

enum { FN_LOAD8, FN_LOAD16, FN_PRESCALE, FN_LANCZOS, FN_DEC_V, FN_DEC_H, FN_MOM_V, FN_STAT,
       FN_ROWS };
static const char *const fn_names[] = { "float_vif_load_8", "float_vif_load_16",
                                        "float_vif_prescale", "float_vif_prescale_lanczos",
                                        "float_vif_decimate_v", "float_vif_decimate_h",
                                        "float_vif_moments_v", "float_vif_stat",
                                        "float_vif_rows", NULL };

typedef struct FloatVifCuda {
    FloatVifParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    CUdeviceptr d_in;                 /* rescale: the loaded planes, 2 x in_w x in_h */
    CUdeviceptr d_img[FVIF_N_SCALES]; /* each scale's ref then dis, w x h each */
    CUdeviceptr d_ext;                /* 5 x plane_n: vertical passes with margins */
    size_t plane_n;
    CUdeviceptr d_nd;                 /* num then den of every sample, w0 x h0 each */
    CUdeviceptr d_rows;               /* per scale: h row sums of num, then of den */
    size_t rows_off[FVIF_N_SCALES], rows_n;
    CUdeviceptr d_taps;               /* FVIF_N_SCALES x FVIF_MAX_TAPS */
    CUdeviceptr d_col1, d_col2, d_coldx; /* bilinear */
    CUdeviceptr d_lx0, d_lwx, d_ly0, d_lwy; /* lanczos4 */
    float *h_rows;                    /* page-locked, as d_rows */
} FloatVifCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatVifCuda *)priv)->t);
}

/* A table of the host's on the device. */
static int put_table(FloatVifCuda *s, CUdeviceptr *d, const void *h, size_t bytes, char *msg,
                     size_t len)
{
    const int err = tvmaf_cuda_twin_alloc(&s->t, d, bytes, msg, len);
    return err ? err : tvmaf_cuda_twin_upload(&s->t, *d, h, bytes, msg, len);
}

/* The prescale's tables (bilinear columns, lanczos4 taps), computed by the
 * host and uploaded. */
static int upload_scaler_tables(FloatVifCuda *s, char *msg, size_t len)
{
    const FloatVifParams *p = &s->p;
    const int dw = p->w[0], dh = p->h[0];
    const size_t nx = (size_t)dw, ny = (size_t)dh, nt = FVIF_LANCZOS_TAPS;
    int err = 0;
    if (p->scaler == FVIF_SCALE_BILINEAR) {
        int *c1 = malloc(sizeof(int) * nx), *c2 = malloc(sizeof(int) * nx);
        float *cd = malloc(sizeof(float) * nx);
        if (!c1 || !c2 || !cd) {
            snprintf(msg, len, "feature \"float_vif\" (cuda): out of host memory");
            err = -ENOMEM;
        } else {
            fvif_bilinear_columns(p->in_w, dw, c1, c2, cd);
            if (!(err = put_table(s, &s->d_col1, c1, sizeof(int) * nx, msg, len)) &&
                !(err = put_table(s, &s->d_col2, c2, sizeof(int) * nx, msg, len)))
                err = put_table(s, &s->d_coldx, cd, sizeof(float) * nx, msg, len);
        }
        free(c1);
        free(c2);
        free(cd);
    } else if (p->scaler == FVIF_SCALE_LANCZOS4) {
        int *x0 = malloc(sizeof(int) * nx), *y0 = malloc(sizeof(int) * ny);
        float *wx = malloc(sizeof(float) * nt * nx), *wy = malloc(sizeof(float) * nt * ny);
        if (!x0 || !y0 || !wx || !wy) {
            snprintf(msg, len, "feature \"float_vif\" (cuda): out of host memory");
            err = -ENOMEM;
        } else {
            const float rx = fvif_scale_ratio(p->in_w, dw), ry = fvif_scale_ratio(p->in_h, dh);
            for (int x = 0; x < dw; x++) x0[x] = fvif_lanczos_axis(fvif_scale_pos(x, rx), wx + nt * x);
            for (int y = 0; y < dh; y++) y0[y] = fvif_lanczos_axis(fvif_scale_pos(y, ry), wy + nt * y);
            if (!(err = put_table(s, &s->d_lx0, x0, sizeof(int) * nx, msg, len)) &&
                !(err = put_table(s, &s->d_ly0, y0, sizeof(int) * ny, msg, len)) &&
                !(err = put_table(s, &s->d_lwx, wx, sizeof(float) * nt * nx, msg, len)))
                err = put_table(s, &s->d_lwy, wy, sizeof(float) * nt * ny, msg, len);
        }
        free(x0);
        free(y0);
        free(wx);
        free(wy);
    }
    return err;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatVifCuda *s = priv;
    FloatVifParams *p = &s->p;
    int err = tvmaf_float_vif_setup(p, vi, msg, len);
    if (err) return err;
    if (p->max_fw > FVIF_MAX_FW) { /* no accepted kernel scale gets here */
        snprintf(msg, len, "feature \"float_vif\" (cuda): a %d-tap filter is wider than the "
                 "twin's %d", p->max_fw, FVIF_MAX_FW);
        return -EINVAL;
    }
    const size_t n0 = (size_t)p->w[0] * (size_t)p->h[0];
    s->plane_n = ((size_t)p->w[0] + (size_t)p->max_fw) * (size_t)p->h[0];
    s->rows_n = 0;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        s->rows_off[sc] = s->rows_n;
        s->rows_n += 2 * (size_t)p->h[sc];
    }
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_vif", tvmaf_float_vif_fatbin, fn_names,
                                    msg, len)) ||
        (p->rescale &&
         (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_in,
                                      2 * sizeof(float) * (size_t)p->in_w * (size_t)p->in_h, msg,
                                      len))))
        return err;
    for (int sc = 0; sc < FVIF_N_SCALES; sc++) {
        const size_t n = (size_t)p->w[sc] * (size_t)p->h[sc];
        if ((err = tvmaf_cuda_twin_alloc(&s->t, &s->d_img[sc], 2 * sizeof(float) * (n ? n : 1),
                                         msg, len)))
            return err;
    }
    if ((err = tvmaf_cuda_twin_alloc(&s->t, &s->d_ext, 5 * sizeof(float) * s->plane_n, msg,
                                     len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_nd, 2 * sizeof(float) * n0, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_rows, sizeof(float) * s->rows_n, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_rows, sizeof(float) * s->rows_n,
                                          msg, len)) ||
        (err = put_table(s, &s->d_taps, p->taps, sizeof(p->taps), msg, len)) ||
        (p->rescale && (err = upload_scaler_tables(s, msg, len))))
        return err;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init
 * releases what it holds (the twin base's close takes a partial set-up). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

#define GX(n) (((unsigned)(n) + FVIF_BLOCK_W - 1) / FVIF_BLOCK_W)
#define GY(n) FVIF_GRID_Y((unsigned)(n))

/* The launches of one frame, in the CPU's order of stages. */
static int launch_frame(FloatVifCuda *s, const TvmafDeviceFrame *f)
{
    FloatVifParams *p = &s->p;
    TvmafCudaTwin *t = &s->t;
    CUdeviceptr r = f->d_ref[0], d = f->d_dis[0];
    size_t pitch = f->pitch[0];
    int in_w = p->in_w, in_h = p->in_h;
    float divisor = fvif_sample_divisor(p->bpc);
    const size_t n0 = (size_t)p->w[0] * (size_t)p->h[0];
    const size_t nin = (size_t)in_w * (size_t)in_h;
    CUdeviceptr load0 = p->rescale ? s->d_in : s->d_img[0];
    CUdeviceptr load1 = load0 + sizeof(float) * (p->rescale ? nin : n0);
    void *load_args[] = { &r, &d, &pitch, &in_w, &in_h, &divisor, &load0, &load1 };
    int err = tvmaf_cuda_twin_launch(t, p->bpc == 8 ? FN_LOAD8 : FN_LOAD16, GX(in_w), GY(in_h),
                                     FVIF_BLOCK_W, FVIF_BLOCK_H, load_args);
    if (err) return err;
    if (p->rescale) {
        int dw = p->w[0], dh = p->h[0];
        CUdeviceptr dst0 = s->d_img[0], dst1 = dst0 + sizeof(float) * n0;
        if (p->scaler == FVIF_SCALE_LANCZOS4) {
            void *args[] = { &load0, &load1, &in_w, &in_h, &dw, &dh, &s->d_lx0,
                             &s->d_lwx, &s->d_ly0, &s->d_lwy, &dst0, &dst1 };
            err = tvmaf_cuda_twin_launch(t, FN_LANCZOS, GX(dw), GY(dh), FVIF_BLOCK_W,
                                         FVIF_BLOCK_H, args);
        } else {
            int method = (int)p->scaler;
            float rx = fvif_scale_ratio(in_w, dw), ry = fvif_scale_ratio(in_h, dh);
            void *args[] = { &load0, &load1, &in_w, &in_h, &dw, &dh, &method, &rx, &ry,
                             &s->d_col1, &s->d_col2, &s->d_coldx, &dst0, &dst1 };
            err = tvmaf_cuda_twin_launch(t, FN_PRESCALE, GX(dw), GY(dh), FVIF_BLOCK_W,
                                         FVIF_BLOCK_H, args);
        }
        if (err) return err;
    }
    CUdeviceptr ext1 = s->d_ext + sizeof(float) * s->plane_n;
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        int w = p->w[sc], h = p->h[sc], fw = p->fw[sc];
        const size_t n = (size_t)w * (size_t)h;
        CUdeviceptr taps = s->d_taps + sizeof(float) * FVIF_MAX_TAPS * (size_t)sc;
        CUdeviceptr a = s->d_img[sc], b = a + sizeof(float) * n;
        if (sc > 0) {
            int pw = p->w[sc - 1], ph = p->h[sc - 1], ew = pw + 2 * (fw / 2);
            CUdeviceptr pa = s->d_img[sc - 1], pb = pa + sizeof(float) * (size_t)pw * (size_t)ph;
            void *v_args[] = { &pa, &pb, &pw, &ph, &h, &taps, &fw, &s->d_ext, &ext1 };
            void *h_args[] = { &s->d_ext, &ext1, &ew, &w, &h, &taps, &fw, &a, &b };
            if ((err = tvmaf_cuda_twin_launch(t, FN_DEC_V, GX(ew), GY(h), FVIF_BLOCK_W,
                                              FVIF_BLOCK_H, v_args)) ||
                (err = tvmaf_cuda_twin_launch(t, FN_DEC_H, GX(w), GY(h), FVIF_BLOCK_W,
                                              FVIF_BLOCK_H, h_args)))
                return err;
        }
        int ew = w + 2 * (fw / 2);
        CUdeviceptr num = s->d_nd, den = s->d_nd + sizeof(float) * n;
        CUdeviceptr row_num = s->d_rows + sizeof(float) * s->rows_off[sc];
        CUdeviceptr row_den = row_num + sizeof(float) * (size_t)h;
        void *m_args[] = { &a, &b, &w, &h, &taps, &fw, &s->d_ext, &s->plane_n };
        void *s_args[] = { &s->d_ext, &s->plane_n, &w, &h, &taps, &fw, &p->stat, &num, &den };
        void *r_args[] = { &num, &den, &w, &h, &row_num, &row_den };
        if ((err = tvmaf_cuda_twin_launch(t, FN_MOM_V, GX(ew), GY(h), FVIF_BLOCK_W,
                                          FVIF_BLOCK_H, m_args)) ||
            (err = tvmaf_cuda_twin_launch(t, FN_STAT, GX(w), GY(h), FVIF_BLOCK_W, FVIF_BLOCK_H,
                                          s_args)) ||
            (err = tvmaf_cuda_twin_launch(t, FN_ROWS,
                                          ((unsigned)h + FVIF_ROW_THREADS - 1) / FVIF_ROW_THREADS,
                                          1, FVIF_ROW_THREADS, 1, r_args)))
            return err;
    }
    /* the rows of the scales computed (a skipped scale 0's are never written) */
    const size_t first = s->rows_off[p->start];
    return tvmaf_cuda_copy_d2h(s->h_rows + first, s->d_rows + sizeof(float) * first,
                               sizeof(float) * (s->rows_n - first), t->stream);
}

#undef GX
#undef GY

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    FloatVifCuda *s = priv;
    const FloatVifParams *p = &s->p;
    if (f->n_planes < 1) return -EINVAL;
    int err = tvmaf_cuda_twin_begin(&s->t, f);
    if (err) return err;
    err = launch_frame(s, f);
    if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
    float sums[2 * FVIF_N_SCALES] = { 0 };
    for (int sc = p->start; sc < FVIF_N_SCALES; sc++) {
        const float *rows = s->h_rows + s->rows_off[sc];
        sums[2 * sc] = fvif_sum(rows, p->h[sc]);
        sums[2 * sc + 1] = fvif_sum(rows + p->h[sc], p->h[sc]);
    }
    return tvmaf_float_vif_report(p, sums, index, sink);
}

const TvmafExtractor tvmaf_fex_float_vif_cuda = {
    .name = "float_vif",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_float_vif_options,
    .priv_size = sizeof(FloatVifCuda),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init_device = init,
    .extract_device = extract,
    .close = close_twin,
    .provided_features = tvmaf_float_vif_provided,
};
