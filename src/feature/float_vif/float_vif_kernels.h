/*
 * float_vif twin, kernels (gpu/kernel.h): the load, the prescale, the four
 * scales' filters and the per-sample statistic in the CPU's arithmetic, one
 * work-item per sample, and the rows' float sums one work-item per row
 * (float_vif_math.h, "The twin's decomposition"). The host adds the rows of
 * each scale top to bottom.
 */
#ifndef TVMAF_FLOAT_VIF_KERNELS_H
#define TVMAF_FLOAT_VIF_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_vif/float_vif_math.h"

/* both luma planes as floats (w x h, rows packed): img0 ref, img1 dis */
#define FvifLoadArgs_LIST(V, S)                                                                \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(int, w) S(int, h)         \
    S(float, divisor) V(float, img0) V(float, img1)
TVD_ARGS(FvifLoadArgs)
/* the nearest, bilinear or bicubic prescale of both planes (sw x sh) to dw x dh */
#define FvifScaleArgs_LIST(V, S)                                                               \
    V(const float, src0) V(const float, src1) S(int, sw) S(int, sh) S(int, dw) S(int, dh)      \
    S(int, method) S(float, rx) S(float, ry) V(const int, col1) V(const int, col2)             \
    V(const float, coldx) V(float, dst0) V(float, dst1)
TVD_ARGS(FvifScaleArgs)
/* the lanczos4 prescale from the host's taps: column x at x0[x] with the 9
 * weights wx[9 x ..], row y at y0[y] with wy[9 y ..] */
#define FvifLanczosArgs_LIST(V, S)                                                             \
    V(const float, src0) V(const float, src1) S(int, sw) S(int, sh) S(int, dw) S(int, dh)      \
    V(const int, x0) V(const float, wx) V(const int, y0) V(const float, wy) V(float, dst0)     \
    V(float, dst1)
TVD_ARGS(FvifLanczosArgs)
/* the decimation's vertical pass: rows 2 y of both pw x ph images with the
 * mirrored margins (ew = pw + 2 half columns) */
#define FvifDecVArgs_LIST(V, S)                                                                \
    V(const float, src0) V(const float, src1) S(int, pw) S(int, ph) S(int, oh)                 \
    V(const float, taps) S(int, fw) V(float, ext0) V(float, ext1)
TVD_ARGS(FvifDecVArgs)
/* its horizontal pass: the even columns into the next scale's w x h images */
#define FvifDecHArgs_LIST(V, S)                                                                \
    V(const float, ext0) V(const float, ext1) S(int, ew) S(int, w) S(int, h)                   \
    V(const float, taps) S(int, fw) V(float, dst0) V(float, dst1)
TVD_ARGS(FvifDecHArgs)
/* the vertical pass of the five quantities of a scale into ext: 5 planes
 * plane_n floats apart, rows of ew = w + 2 half columns */
#define FvifMomArgs_LIST(V, S)                                                                 \
    V(const float, a) V(const float, b) S(int, w) S(int, h) V(const float, taps) S(int, fw)    \
    V(float, ext) S(uint64_t, plane_n)
TVD_ARGS(FvifMomArgs)
/* the horizontal passes and the statistic (FvifStatParams' three fields) */
#define FvifStatArgs_LIST(V, S)                                                                \
    V(const float, ext) S(uint64_t, plane_n) S(int, w) S(int, h) V(const float, taps)          \
    S(int, fw) S(float, gain_limit) S(float, sigma_max_inv) S(FvifF64, sigma_nsq)               \
    V(float, num) V(float, den)
TVD_ARGS(FvifStatArgs)
/* a row's float sums of num and den */
#define FvifRowsArgs_LIST(V, S)                                                                \
    V(const float, num) V(const float, den) S(int, w) S(int, h) V(float, row_num)              \
    V(float, row_den)
TVD_ARGS(FvifRowsArgs)

#define FLOAT_VIF_KERNELS(K, KC)                                                               \
    K(float_vif_load_8, FvifLoadArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)              \
    K(float_vif_load_16, FvifLoadArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)             \
    K(float_vif_prescale, FvifScaleArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)           \
    K(float_vif_prescale_lanczos, FvifLanczosArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0) \
    K(float_vif_decimate_v, FvifDecVArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)          \
    K(float_vif_decimate_h, FvifDecHArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)          \
    K(float_vif_moments_v, FvifMomArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)            \
    K(float_vif_stat, FvifStatArgs, TvdNoLocals, FVIF_BLOCK_W, FVIF_BLOCK_H, 0)                \
    K(float_vif_rows, FvifRowsArgs, TvdNoLocals, FVIF_ROW_THREADS, 1, 0)

#ifdef TVD_KERNEL_BUILD

/* x and the rows y of this work-item over a w x h grid (the grid's y strides). */
#define FVIF_FOR_SAMPLES(w, h) TVD_FOR_SAMPLES(w, h, FVIF_BLOCK_W, FVIF_BLOCK_H)

TVD_FN void fvif_load(const FvifLoadArgs_R *r, unsigned bpc)
{
    FVIF_FOR_SAMPLES(r->w, r->h)
    {
        r->img0[(size_t)y * r->w + x] =
            ffilter_load_sample(r->ref, (ptrdiff_t)r->pitch, bpc, r->divisor, x, y);
        r->img1[(size_t)y * r->w + x] =
            ffilter_load_sample(r->dis, (ptrdiff_t)r->pitch, bpc, r->divisor, x, y);
    }
}

TVD_BODY(float_vif_load_8, FvifLoadArgs, TvdNoLocals)
{
    (void)loc;
    fvif_load(r, 8);
}

TVD_BODY(float_vif_load_16, FvifLoadArgs, TvdNoLocals)
{
    (void)loc;
    fvif_load(r, 16);
}

TVD_BODY(float_vif_prescale, FvifScaleArgs, TvdNoLocals)
{
    (void)loc;
    FVIF_FOR_SAMPLES(r->dw, r->dh)
    {
        r->dst0[(size_t)y * r->dw + x] = fvif_prescale_sample(
            r->method, r->src0, r->sw, r->sh, r->rx, r->ry, r->col1, r->col2, r->coldx, x, y);
        r->dst1[(size_t)y * r->dw + x] = fvif_prescale_sample(
            r->method, r->src1, r->sw, r->sh, r->rx, r->ry, r->col1, r->col2, r->coldx, x, y);
    }
}

TVD_BODY(float_vif_prescale_lanczos, FvifLanczosArgs, TvdNoLocals)
{
    (void)loc;
    FVIF_FOR_SAMPLES(r->dw, r->dh)
    {
        TVMAF_GLOBAL const float *cx = r->wx + (size_t)FFILTER_LANCZOS_TAPS * x;
        TVMAF_GLOBAL const float *cy = r->wy + (size_t)FFILTER_LANCZOS_TAPS * y;
        r->dst0[(size_t)y * r->dw + x] =
            ffilter_lanczos_apply(r->src0, r->sw, r->sh, r->sw, r->x0[x], r->y0[y], cx, cy);
        r->dst1[(size_t)y * r->dw + x] =
            ffilter_lanczos_apply(r->src1, r->sw, r->sh, r->sw, r->x0[x], r->y0[y], cx, cy);
    }
}

TVD_BODY(float_vif_decimate_v, FvifDecVArgs, TvdNoLocals)
{
    (void)loc;
    const int rad = r->fw / 2, ew = r->pw + 2 * rad;
    FVIF_FOR_SAMPLES(ew, r->oh)
    {
        const int c = ffilter_ext_column(x, r->pw, rad);
        r->ext0[(size_t)y * ew + x] =
            fvif_vpass_sample(r->taps, r->fw, r->src0, r->pw, r->ph, 2 * y, c);
        r->ext1[(size_t)y * ew + x] =
            fvif_vpass_sample(r->taps, r->fw, r->src1, r->pw, r->ph, 2 * y, c);
    }
}

TVD_BODY(float_vif_decimate_h, FvifDecHArgs, TvdNoLocals)
{
    (void)loc;
    FVIF_FOR_SAMPLES(r->w, r->h)
    {
        r->dst0[(size_t)y * r->w + x] =
            ffilter_hpass_sample(r->taps, r->fw, r->ext0 + (size_t)y * r->ew, x, 2);
        r->dst1[(size_t)y * r->w + x] =
            ffilter_hpass_sample(r->taps, r->fw, r->ext1 + (size_t)y * r->ew, x, 2);
    }
}

TVD_BODY(float_vif_moments_v, FvifMomArgs, TvdNoLocals)
{
    (void)loc;
    const int rad = r->fw / 2, ew = r->w + 2 * rad;
    FVIF_FOR_SAMPLES(ew, r->h)
    {
        float v[5];
        fvif_vpass5_sample(r->taps, r->fw, r->a, r->b, r->w, r->h, y,
                           ffilter_ext_column(x, r->w, rad), v);
        for (int q = 0; q < 5; q++) r->ext[q * r->plane_n + (size_t)y * ew + x] = v[q];
    }
}

TVD_BODY(float_vif_stat, FvifStatArgs, TvdNoLocals)
{
    (void)loc;
    FvifStatParams p;
    p.gain_limit = r->gain_limit;
    p.sigma_max_inv = r->sigma_max_inv;
    p.sigma_nsq = r->sigma_nsq;
    const int ew = r->w + 2 * (r->fw / 2);
    FVIF_FOR_SAMPLES(r->w, r->h)
    {
        float v[5];
        for (int q = 0; q < 5; q++)
            v[q] = ffilter_hpass_sample(r->taps, r->fw, r->ext + q * r->plane_n + (size_t)y * ew,
                                        x, 1);
        const size_t i = (size_t)y * r->w + x;
        float n, d;
        fvif_pixel(v[0], v[1], v[2], v[3], v[4], &p, &n, &d);
        r->num[i] = n;
        r->den[i] = d;
    }
}

/* one work-item per row: the row's float sums of num and den, left to right */
TVD_BODY(float_vif_rows, FvifRowsArgs, TvdNoLocals)
{
    (void)loc;
    const int y = (int)(TVD_GID(0) * FVIF_ROW_THREADS + TVD_LID(0));
    if (y >= r->h) return;
    r->row_num[y] = fvif_sum(r->num + (size_t)y * r->w, r->w);
    r->row_den[y] = fvif_sum(r->den + (size_t)y * r->w, r->w);
}

#endif
#endif
