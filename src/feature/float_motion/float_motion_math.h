/*
 * float_motion (libvmaf's floating-point motion): the arithmetic, written
 * once for the CPU extractor and the GPU twin.
 *
 * Each reference frame's plane becomes floats exactly as float_vif's input
 * (v - 128, deeper samples divided by 2^(bpc-8) first) and is blurred with a
 * small symmetric filter (taps below), separable, vertical first, with
 * float_vif's float filter (common/float_filter.h's ffilter_vpass and
 * ffilter_hpass: 0 + f[0]*x[0] + ..., taps in index order, borders mirrored
 * without repeating the edge sample). The motion of frame i is the mean
 * absolute difference of the blurred frames i-1 and i: a float sum along
 * each row from 0, the row sums added top to bottom into a float, divided by
 * the (float) sample count in float.
 * With motion_add_scale1 the two blurred frames are also halved with the
 * bilinear scaler (ffilter_bilinear_*) and the mean absolute difference of
 * the halves, computed the same way, is added (in float).
 *
 * The reference forms |a - b| as fabs() of the float difference promoted to
 * double and adds it to the float row sum in double before rounding back to
 * float. A float sum of two floats formed in double and rounded once to
 * float is the correctly rounded float sum (double has more than twice the
 * float precision plus two bits), so a plain float addition gives the same
 * bits; fmot_sad_row adds in float.
 */
#ifndef TVMAF_FLOAT_MOTION_MATH_H
#define TVMAF_FLOAT_MOTION_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/float_filter.h"
#include "feature/common/sample.h"

/* Blur taps, as lists that initialise float arrays (each double literal
 * rounded to float, as in the reference's tables). */
#define FMOT_FILTER5_TAPS { 0.054488685, 0.244201342, 0.402619947, 0.244201342, 0.054488685 }
#define FMOT_FILTER3_TAPS { 0.166378498, 0.667243004, 0.166378498 }
/* motion_filter_size=1: five taps that pass the centre sample through
 * (0*x and x + 0 are exact, so the blurred plane is the plane itself) */
#define FMOT_IDENTITY5_TAPS { 0.0, 0.0, 1.0, 0.0, 0.0 }

#define FMOT_DEFAULT_FILTER_SIZE 5
#define FMOT_MAX_TAPS 5

/* The reference's row alignment of its float planes: rows are padded to a
 * multiple of 32 bytes. Only needed where it reads a plane with a stride
 * that is not the plane's own (see float_motion.c). */
#define FMOT_ROW_ALIGN_BYTES 32
TVMAF_HD int fmot_aligned_floats(int w)
{
    const int bytes = w * (int)sizeof(float);
    const int r = bytes % FMOT_ROW_ALIGN_BYTES;
    return (r ? bytes + FMOT_ROW_ALIGN_BYTES - r : bytes) / (int)sizeof(float);
}

/* Sum of |a[j] - b[j]| along a row, in float from 0, left to right. */
TVMAF_HD float fmot_sad_row(TVMAF_GLOBAL const float *a, TVMAF_GLOBAL const float *b, int n)
{
    float acc = 0.0f;
    for (int j = 0; j < n; j++) acc += fabsf(a[j] - b[j]);
    return acc;
}

/* Side of the half-size image: the reference's (int)(n * 0.5 + 0.5) in
 * double, which is (n + 1) / 2 for n >= 0 (the double is exact). */
TVMAF_HD int fmot_half_side(int n)
{
    return (n + 1) / 2;
}

/* The mean of a plane from its rows' sums: added top to bottom in float
 * from 0, divided by the (float) sample count w*h. */
TVMAF_HD float fmot_rows_mean(const float *row_sums, int n_rows, int w, int h)
{
    float acc = 0.0f;
    for (int i = 0; i < n_rows; i++) acc += row_sums[i];
    return acc / (float)(w * h);
}

/* A plane's motion from its rows' sums (and its half-size rows' sums with
 * motion_add_scale1): the two means added in float. */
TVMAF_HD float fmot_plane_value(const float *row_sums, int w, int h, const float *half_sums,
                                int add_scale1)
{
    const float m0 = fmot_rows_mean(row_sums, h, w, h);
    if (!add_scale1) return m0;
    const int hw = fmot_half_side(w), hh = fmot_half_side(h);
    return m0 + fmot_rows_mean(half_sums, hh, hw, hh);
}

#if !TVMAF_DEVICE_CODE
/* A frame's motion: the planes' values added in double, luma first (the
 * host's). */
static inline double fmot_frame_value(const float *plane_values, int n_planes)
{
    double v = plane_values[0];
    for (int p = 1; p < n_planes; p++) v += plane_values[p];
    return v;
}
#endif

/* The half-size pass's column tables of a w-wide plane (fmot_half_side(w)
 * entries each). */
TVMAF_HD void fmot_half_columns(int w, int *col1, int *col2, float *coldx)
{
    const int hw = fmot_half_side(w);
    const float rx = ffilter_scale_ratio(w, hw);
    for (int x = 0; x < hw; x++)
        ffilter_bilinear_axis(x, rx, w, &col1[x], &col2[x], &coldx[x]);
}

/*
 * The twin's decomposition (float_motion_kernels.h). Blur: one thread per
 * sample (FMOT_BLOCK_W x FMOT_BLOCK_H blocks, FMOT_GRID_Y(h) in y striding
 * over further rows) runs the CPU's row functions on a one-sample row: the
 * vertical pass (ffilter_vpass with w = 1) over the column's mirrored
 * samples (ffilter_load_row_* with w = 1), into a float plane; then the
 * horizontal pass (ffilter_hpass with n = 1) over the fw samples the CPU's
 * mirrored row holds at that column (fmot_hwindow), into the ring slot at
 * the CPU's stride. Motion: one thread per row adds its |a - b|
 * (fmot_sad_row); the half-size samples are one thread each
 * (ffilter_bilinear_row with n = 1), then one thread per half-size row; the
 * host adds the rows (fmot_rows_mean).
 */
#define FMOT_BLOCK_W 32
#define FMOT_BLOCK_H 8
#define FMOT_ROW_THREADS 64
#define FMOT_GRID_Y(h) \
    ((h) + FMOT_BLOCK_H - 1 > 65535u * FMOT_BLOCK_H ? 65535u \
                                                    : ((h) + FMOT_BLOCK_H - 1) / FMOT_BLOCK_H)

/* The fw samples of a w-wide row that the horizontal pass reads for output
 * column j once the row's margins are mirrored (ffilter_mirror_margins). */
TVMAF_HD void fmot_hwindow(TVMAF_GLOBAL const float *row, int w, int fw, int j, float *win)
{
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) win[k] = row[mirror_skip_edge(j - rad + k, w)];
}

/* One thread of the vertical pass: sample (x, y) of the plane at src (rows
 * pitch bytes apart, 8-bit or 16-bit samples of depth bpc). */
TVMAF_HD float fmot_vpass_sample(TVMAF_GLOBAL const unsigned char *src, ptrdiff_t pitch,
                                 unsigned bpc, float divisor, int h, TVMAF_GLOBAL const float *taps,
                                 int fw, int x, int y)
{
    float col[FMOT_MAX_TAPS], out;
    const float *rows[FMOT_MAX_TAPS];
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) {
        TVMAF_GLOBAL const unsigned char *r =
            src + (ptrdiff_t)mirror_skip_edge(y - rad + k, h) * pitch;
        if (bpc == 8) ffilter_load_row_8(r + x, &col[k], 1);
        else
            ffilter_load_row_16((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)r + x,
                                &col[k], 1, divisor);
        rows[k] = &col[k];
    }
    ffilter_vpass(taps, fw, rows, &out, 1);
    return out;
}

/* One thread of the horizontal pass: sample (x, y) from the vertical pass's
 * w-wide plane. */
TVMAF_HD float fmot_hpass_sample(TVMAF_GLOBAL const float *tmp, int w,
                                 TVMAF_GLOBAL const float *taps, int fw, int x, int y)
{
    float win[FMOT_MAX_TAPS], out;
    fmot_hwindow(tmp + (ptrdiff_t)y * w, w, fw, x, win);
    ffilter_hpass(taps, fw, win, &out, 1, 1);
    return out;
}

/* One thread of the half-size pass: sample (x, y) of the half-size image of
 * the plane at a (h rows read rs floats apart). */
TVMAF_HD float fmot_half_sample(TVMAF_GLOBAL const float *a, int rs, int h, float ry,
                                TVMAF_GLOBAL const int *col1, TVMAF_GLOBAL const int *col2,
                                TVMAF_GLOBAL const float *coldx, int x, int y)
{
    int y1, y2;
    float dy, out;
    ffilter_bilinear_axis(y, ry, h, &y1, &y2, &dy);
    ffilter_bilinear_row(a + (ptrdiff_t)y1 * rs, a + (ptrdiff_t)y2 * rs, dy, col1 + x, col2 + x,
                         coldx + x, &out, 1);
    return out;
}

#if !TVMAF_DEVICE_CODE

static const float fmot_filter5[5] = FMOT_FILTER5_TAPS;
static const float fmot_filter3[3] = FMOT_FILTER3_TAPS;
static const float fmot_filter5_identity[5] = FMOT_IDENTITY5_TAPS;

/* The taps for a motion_filter_size: 1 and 3 pick their own, any other
 * value the 5-tap blur. */
static inline const float *fmot_taps(int filter_size, int *fw)
{
    if (filter_size == 1) {
        *fw = 5;
        return fmot_filter5_identity;
    }
    if (filter_size == 3) {
        *fw = 3;
        return fmot_filter3;
    }
    *fw = 5;
    return fmot_filter5;
}

/* Blend towards the offset: m * factor + (1 - factor) * min(offset, m), in
 * double. */
static inline double fmot_blend(double m, double factor, double offset)
{
    const double lower = offset < m ? offset : m;
    return m * factor + (1 - factor) * lower;
}

#endif /* !TVMAF_DEVICE_CODE */

#endif
