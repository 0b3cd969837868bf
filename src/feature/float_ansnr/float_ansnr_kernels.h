/*
 * float_ansnr twin, kernels (gpu/kernel.h): the filtered planes and each
 * row's float sums.
 *
 * The CPU adds each row's products into two floats left to right and the
 * rows into two more floats top to bottom; both orders are the result. So the
 * device does the per-sample work in parallel (the conversion, the 3x3 and
 * 5x5 filters: float_ansnr_math.h's functions), one work-item per sample in
 * groups of FANSNR_BLOCK_W x FANSNR_BLOCK_H (FANSNR_GRID_Y(h) groups in y,
 * striding over further rows), and adds each row with one work-item, left to
 * right (fansnr_row_sums); the host adds the rows in order. Nothing is
 * shared within a group: one decomposition serves every device.
 */
#ifndef TVMAF_FLOAT_ANSNR_KERNELS_H
#define TVMAF_FLOAT_ANSNR_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_ansnr/float_ansnr_math.h"

/* both luma planes into float planes offset by FANSNR_OFFSET (stride w) */
#define FansnrConvertArgs_LIST(V, S)                                                           \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    S(uint32_t, h) S(float, divisor) V(float, fref) V(float, fdis)
TVD_ARGS(FansnrConvertArgs)
/* rf: the reference filtered with the 3x3 taps, df: the distorted with the
 * 5x5 taps (the host's tables, uploaded) */
#define FansnrFilterArgs_LIST(V, S)                                                            \
    V(const float, fref) V(const float, fdis) S(int32_t, w) S(int32_t, h)                      \
    V(const float, ref_taps) V(const float, dis_taps) V(float, rf) V(float, df)
TVD_ARGS(FansnrFilterArgs)
/* sums[2 y], sums[2 y + 1]: row y's signal and noise */
#define FansnrRowsArgs_LIST(V, S)                                                              \
    V(const float, rf) V(const float, df) S(int32_t, w) S(int32_t, h) V(float, sums)
TVD_ARGS(FansnrRowsArgs)

#define FLOAT_ANSNR_KERNELS(K, KC)                                                             \
    K(float_ansnr_convert_8, FansnrConvertArgs, TvdNoLocals, FANSNR_BLOCK_W, FANSNR_BLOCK_H, 0) \
    K(float_ansnr_convert_16, FansnrConvertArgs, TvdNoLocals, FANSNR_BLOCK_W, FANSNR_BLOCK_H,  \
      0)                                                                                       \
    K(float_ansnr_filter, FansnrFilterArgs, TvdNoLocals, FANSNR_BLOCK_W, FANSNR_BLOCK_H, 0)    \
    K(float_ansnr_rows, FansnrRowsArgs, TvdNoLocals, FANSNR_ROW_THREADS, 1, 0)

#ifdef TVD_KERNEL_BUILD

/* A conversion of samples of type T, SAMPLE(v) the float of sample v. */
#define FANSNR_CONVERT_BODY(T, SAMPLE)                                                         \
    const uint32_t x = TVD_GID(0) * FANSNR_BLOCK_W + TVD_LID(0);                               \
    if (x >= r->w) return;                                                                     \
    for (uint32_t y = TVD_GID(1) * FANSNR_BLOCK_H + TVD_LID(1); y < r->h;                      \
         y += TVD_NGROUPS(1) * FANSNR_BLOCK_H) {                                               \
        const T a = ((TVMAF_GLOBAL const T *)(r->ref + y * r->pitch))[x];                      \
        const T b = ((TVMAF_GLOBAL const T *)(r->dis + y * r->pitch))[x];                      \
        r->fref[(size_t)y * r->w + x] = SAMPLE(a);                                             \
        r->fdis[(size_t)y * r->w + x] = SAMPLE(b);                                             \
    }
#define FANSNR_SAMPLE_8(v) float_pic_sample8((v), FANSNR_OFFSET)
#define FANSNR_SAMPLE_16(v) float_pic_sample16((v), r->divisor, FANSNR_OFFSET)

TVD_BODY(float_ansnr_convert_8, FansnrConvertArgs, TvdNoLocals)
{
    FANSNR_CONVERT_BODY(uint8_t, FANSNR_SAMPLE_8)
}

TVD_BODY(float_ansnr_convert_16, FansnrConvertArgs, TvdNoLocals)
{
    FANSNR_CONVERT_BODY(uint16_t, FANSNR_SAMPLE_16)
}

TVD_BODY(float_ansnr_filter, FansnrFilterArgs, TvdNoLocals)
{
    const int x = (int)(TVD_GID(0) * FANSNR_BLOCK_W + TVD_LID(0));
    if (x >= r->w) return;
    for (int y = (int)(TVD_GID(1) * FANSNR_BLOCK_H + TVD_LID(1)); y < r->h;
         y += (int)(TVD_NGROUPS(1) * FANSNR_BLOCK_H)) {
        r->rf[(size_t)y * r->w + x] =
            fansnr_filter_sample(r->ref_taps, FANSNR_REF_WIDTH, r->fref, r->w, r->h, y, x);
        r->df[(size_t)y * r->w + x] =
            fansnr_filter_sample(r->dis_taps, FANSNR_DIS_WIDTH, r->fdis, r->w, r->h, y, x);
    }
}

/* One work-item per row. */
TVD_BODY(float_ansnr_rows, FansnrRowsArgs, TvdNoLocals)
{
    const int y = (int)(TVD_GID(0) * FANSNR_ROW_THREADS + TVD_LID(0));
    if (y >= r->h) return;
    fansnr_row_sums(r->rf + (size_t)y * r->w, r->df + (size_t)y * r->w, r->w, &r->sums[2 * y],
                    &r->sums[2 * y + 1]);
}

#endif
#endif
