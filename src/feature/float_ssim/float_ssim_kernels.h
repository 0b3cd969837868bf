/*
 * float_ssim twin, kernels (gpu/kernel.h): the per-sample and per-window
 * work of ssim_evaluate (and of the down-sampling before it), one
 * work-item per output, each the CPU's chain of operations
 * (float_ssim_math.h, "The twin's decomposition"), in groups of
 * SSIM_BLOCK_W x SSIM_BLOCK_H (SSIM_GRID_Y(h) groups in y, striding over
 * further rows). The windows' l, c and s are stored; the host adds them in
 * raster order into the CPU's four doubles. Nothing is shared within a
 * group: one decomposition serves every device.
 */
#ifndef TVMAF_FLOAT_SSIM_KERNELS_H
#define TVMAF_FLOAT_SSIM_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_ssim/float_ssim_math.h"

/* both luma planes as floats (contiguous, w x h): img0 the reference, img1
 * the distorted */
#define SsimLoadArgs_LIST(V, S)                                                                \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(int32_t, w)               \
    S(int32_t, h) S(float, divisor) V(float, img0) V(float, img1)
TVD_ARGS(SsimLoadArgs)
/* down-sampling by f with the f x f box: dst(x, y) = ssim_filter_at at (f x, f y) */
#define SsimDownArgs_LIST(V, S)                                                                \
    V(const float, src0) V(const float, src1) S(int32_t, w) S(int32_t, h) S(int32_t, f)        \
    V(const float, box) V(float, dst0) V(float, dst1) S(int32_t, dw) S(int32_t, dh)
TVD_ARGS(SsimDownArgs)
/* five: 5 planes of w x h, plane_n floats apart: ref, dis, then r*r, d*d,
 * r*d written here */
#define SsimProductsArgs_LIST(V, S)                                                            \
    V(float, five) S(uint64_t, plane_n) S(int32_t, w) S(int32_t, h)
TVD_ARGS(SsimProductsArgs)
/* the row pass of the five planes into rows (5 planes of ow x h, ow = w - 10,
 * rows_n floats apart) */
#define SsimRowsArgs_LIST(V, S)                                                                \
    V(const float, five) S(uint64_t, plane_n) S(int32_t, w) S(int32_t, h) V(const float, taps) \
    V(float, rows) S(uint64_t, rows_n)
TVD_ARGS(SsimRowsArgs)
/* per window: the column pass of the five row-pass planes, then ssim_window */
#define SsimWindowsArgs_LIST(V, S)                                                             \
    V(const float, rows) S(uint64_t, rows_n) S(int32_t, ow) S(int32_t, oh)                     \
    V(const float, taps) V(SSIM_F64, l) V(SSIM_F64, c) V(float, s)
TVD_ARGS(SsimWindowsArgs)

#define FLOAT_SSIM_KERNELS(K, KC)                                                              \
    K(float_ssim_load_8, SsimLoadArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)             \
    K(float_ssim_load_16, SsimLoadArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)            \
    K(float_ssim_down, SsimDownArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)               \
    K(float_ssim_products, SsimProductsArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)       \
    K(float_ssim_rows, SsimRowsArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)               \
    K(float_ssim_windows, SsimWindowsArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)

#ifdef TVD_KERNEL_BUILD

/* x and the rows y of this work-item over a w x h grid (the grid's y
 * strides). */
#define SSIM_FOR_SAMPLES(w, h) TVD_FOR_SAMPLES(w, h, SSIM_BLOCK_W, SSIM_BLOCK_H)

TVD_BODY(float_ssim_load_8, SsimLoadArgs, TvdNoLocals)
{
    SSIM_FOR_SAMPLES(r->w, r->h)
    {
        r->img0[(size_t)y * r->w + x] = ssim_sample_8(r->ref[(size_t)y * r->pitch + x]);
        r->img1[(size_t)y * r->w + x] = ssim_sample_8(r->dis[(size_t)y * r->pitch + x]);
    }
}

TVD_BODY(float_ssim_load_16, SsimLoadArgs, TvdNoLocals)
{
    SSIM_FOR_SAMPLES(r->w, r->h)
    {
        r->img0[(size_t)y * r->w + x] = ssim_sample_hbd(
            ((TVMAF_GLOBAL const uint16_t *)(r->ref + (size_t)y * r->pitch))[x], r->divisor);
        r->img1[(size_t)y * r->w + x] = ssim_sample_hbd(
            ((TVMAF_GLOBAL const uint16_t *)(r->dis + (size_t)y * r->pitch))[x], r->divisor);
    }
}

TVD_BODY(float_ssim_down, SsimDownArgs, TvdNoLocals)
{
    const int f = r->f;
    SSIM_FOR_SAMPLES(r->dw, r->dh)
    {
        r->dst0[(size_t)y * r->dw + x] =
            ssim_filter_at(r->src0, r->w, r->h, x * f, y * f, r->box, f, f);
        r->dst1[(size_t)y * r->dw + x] =
            ssim_filter_at(r->src1, r->w, r->h, x * f, y * f, r->box, f, f);
    }
}

TVD_BODY(float_ssim_products, SsimProductsArgs, TvdNoLocals)
{
    TVMAF_GLOBAL float *five = r->five;
    const size_t n = r->plane_n;
    SSIM_FOR_SAMPLES(r->w, r->h)
    {
        const size_t i = (size_t)y * r->w + x;
        const float a = five[i], b = five[n + i]; /* private: ssim_products' memory */
        float rr, dd, rd;
        ssim_products(&a, &b, 1, &rr, &dd, &rd);
        five[2 * n + i] = rr;
        five[3 * n + i] = dd;
        five[4 * n + i] = rd;
    }
}

TVD_BODY(float_ssim_rows, SsimRowsArgs, TvdNoLocals)
{
    const int ow = r->w - SSIM_WIN + 1;
    SSIM_FOR_SAMPLES(ow, r->h)
    {
        for (int q = 0; q < 5; q++) {
            float win[SSIM_WIN]; /* copied: ssim_gauss_one reads private memory */
            const float *src[SSIM_WIN];
            TVMAF_GLOBAL const float *row = r->five + q * r->plane_n + (size_t)y * r->w + x;
            for (int k = 0; k < SSIM_WIN; k++) {
                win[k] = row[k];
                src[k] = win + k;
            }
            r->rows[q * r->rows_n + (size_t)y * ow + x] = ssim_gauss_one(src, 0, r->taps);
        }
    }
}

TVD_BODY(float_ssim_windows, SsimWindowsArgs, TvdNoLocals)
{
    const SsimConsts k = ssim_consts();
    SSIM_FOR_SAMPLES(r->ow, r->oh)
    {
        float v[5];
        for (int q = 0; q < 5; q++) {
            float win[SSIM_WIN]; /* copied: ssim_gauss_one reads private memory */
            const float *src[SSIM_WIN];
            for (int j = 0; j < SSIM_WIN; j++) {
                win[j] = r->rows[q * r->rows_n + (size_t)(y + j) * r->ow + x];
                src[j] = win + j;
            }
            v[q] = ssim_gauss_one(src, 0, r->taps);
        }
        const SsimLcs o = ssim_window(v[0], v[1], v[2], v[3], v[4], k);
        const size_t i = (size_t)y * r->ow + x;
        r->l[i] = o.l;
        r->c[i] = o.c;
        r->s[i] = (float)o.s;
    }
}

#endif
#endif
