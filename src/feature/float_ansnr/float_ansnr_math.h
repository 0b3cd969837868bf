/*
 * float_ansnr: the arithmetic, written once for the CPU extractor and the
 * CUDA twin.
 *
 * Luma only, in float throughout, from the float samples of
 * common/float_picture.h with an offset of -128 (8-bit scale, centred on 0).
 *   1. The reference is low-passed with a 3x3 binomial filter, the distorted
 *      with a 5x5 filter (FANSNR_REF_TAPS, FANSNR_DIS_TAPS). An output pixel
 *      is, in float: for each filter row a, t_a = sum over the filter
 *      columns b (left to right, from 0) of tap[a][b] * sample; then the t_a
 *      are added top to bottom, from 0. Outside the picture the index
 *      reflects: -k reads k (edge not repeated), n-1+k reads n-k (edge
 *      repeated; mirror_skip_first_repeat_last). This needs n >= 3 for the
 *      5x5 filter (FANSNR_MIN_DIM).
 *   2. Per row, left to right, two float sums: signal += rf * rf and
 *      noise += (rf - df) * (rf - df), with rf, df the filtered reference and
 *      distorted. The row sums are added into two float frame sums top to
 *      bottom. All of this is float and its order is the result: a device
 *      must compute each row's sums in this order (one thread per row) and
 *      add the rows in order.
 *   3. Host only: ansnr = 10 log10(signal / noise), the quotient a float
 *      division, or psnr_max where noise is 0; anpsnr =
 *      min(10 log10(peak^2 w h / max(noise, 1e-10)), psnr_max) in double,
 *      peak and psnr_max as float_psnr's.
 */
#ifndef TVMAF_FLOAT_ANSNR_MATH_H
#define TVMAF_FLOAT_ANSNR_MATH_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/float_picture.h"
#include "feature/common/mirror.h"

#define FANSNR_OFFSET (-128)

/* Tap tables (row-major), initialised from double quotients rounded to float
 * as the reference's float arrays are. The CUDA twin uploads the host's
 * arrays, so the device filters with these very floats. */
#define FANSNR_REF_WIDTH 3
#define FANSNR_REF_TAPS { \
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0, \
    2.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0, \
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0 }
#define FANSNR_DIS_WIDTH 5
#define FANSNR_DIS_TAPS { \
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0, \
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0, \
    12.0 / 571.0, 52.0 / 571.0, 127.0 / 571.0, 52.0 / 571.0, 12.0 / 571.0, \
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0, \
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0 }

#if !TVMAF_DEVICE_CODE
static const float fansnr_ref_taps[FANSNR_REF_WIDTH * FANSNR_REF_WIDTH] = FANSNR_REF_TAPS;
static const float fansnr_dis_taps[FANSNR_DIS_WIDTH * FANSNR_DIS_WIDTH] = FANSNR_DIS_TAPS;
#endif

/* Smallest width and height: the 5x5 filter's reflection stays inside the
 * picture only from 3 samples on (index -2 reads 2). */
#define FANSNR_MIN_DIM 3

/*
 * One filtered sample at column j: rows[a] points to the (already reflected)
 * source row for filter row a; columns are reflected against w. `width` is 3
 * or 5.
 */
TVMAF_HD float fansnr_filter_edge(TVMAF_GLOBAL const float *taps, int width,
                                  TVMAF_GLOBAL const float *const *rows, int j, int w)
{
    const int rad = width / 2;
    float acc = 0.0f;
    for (int a = 0; a < width; a++) {
        float part = 0.0f;
        for (int b = 0; b < width; b++) {
            const int x = mirror_skip_first_repeat_last(j - rad + b, w);
            part += taps[a * width + b] * rows[a][x];
        }
        acc += part;
    }
    return acc;
}

/* The same for a column whose whole window lies inside the row
 * (half <= j < w - half): identical arithmetic, no reflection. */
TVMAF_HD float fansnr_filter_inner(TVMAF_GLOBAL const float *taps, int width,
                                   TVMAF_GLOBAL const float *const *rows, int j)
{
    const int rad = width / 2;
    float acc = 0.0f;
    for (int a = 0; a < width; a++) {
        float part = 0.0f;
        for (int b = 0; b < width; b++) part += taps[a * width + b] * rows[a][j - rad + b];
        acc += part;
    }
    return acc;
}

/* The columns [lo, hi) of a w-wide row whose window lies inside it; the
 * others take the reflecting path (the same arithmetic). */
TVMAF_HD void fansnr_inner_columns(int width, int w, int *lo, int *hi)
{
    const int rad = width / 2;
    *lo = rad < w ? rad : w;
    *hi = w - rad > *lo ? w - rad : *lo;
}

/* Row pointers of the filter window centred on row i of an h-row plane. */
TVMAF_HD void fansnr_window(TVMAF_GLOBAL const float *plane, ptrdiff_t stride, int i, int h,
                            int width, TVMAF_GLOBAL const float **rows)
{
    const int rad = width / 2;
    for (int a = 0; a < width; a++)
        rows[a] = plane + mirror_skip_first_repeat_last(i - rad + a, h) * stride;
}

/* Signal and noise sums of one filtered row, left to right, in float. */
TVMAF_HD void fansnr_row_sums(TVMAF_GLOBAL const float *rf, TVMAF_GLOBAL const float *df, int w,
                              TVMAF_GLOBAL float *sig, TVMAF_GLOBAL float *noise)
{
    float s = 0.0f, n = 0.0f;
    for (int j = 0; j < w; j++) {
        const float e = rf[j] - df[j];
        s += rf[j] * rf[j];
        n += e * e;
    }
    *sig = s;
    *noise = n;
}

/* The twin's decomposition (float_ansnr_kernels.h): the pictures converted
 * into float planes, then the filtered planes (fansnr_filter_sample), one
 * thread per sample in blocks of FANSNR_BLOCK_W x FANSNR_BLOCK_H,
 * FANSNR_GRID_Y(h) blocks in y striding over further rows; each row's two
 * float sums by one thread (fansnr_row_sums, left to right), read back and
 * added on the host top to bottom (fansnr_frame_add), as the CPU's loop. */
#define FANSNR_BLOCK_W 32
#define FANSNR_BLOCK_H 8
#define FANSNR_ROW_THREADS 64
/* blocks in y of the per-sample kernels, which stride over the rows beyond */
#define FANSNR_GRID_Y(h) \
    ((h) + FANSNR_BLOCK_H - 1 > 65535u * FANSNR_BLOCK_H ? 65535u \
                                                        : ((h) + FANSNR_BLOCK_H - 1) / FANSNR_BLOCK_H)

/* Filtered sample (i, j) of an h x w float plane (stride w). */
TVMAF_HD float fansnr_filter_sample(TVMAF_GLOBAL const float *taps, int width,
                                    TVMAF_GLOBAL const float *plane, int w, int h, int i, int j)
{
    TVMAF_GLOBAL const float *rows[FANSNR_DIS_WIDTH];
    int lo, hi;
    fansnr_window(plane, w, i, h, width, rows);
    fansnr_inner_columns(width, w, &lo, &hi);
    return j < lo || j >= hi ? fansnr_filter_edge(taps, width, rows, j, w)
                             : fansnr_filter_inner(taps, width, rows, j);
}

/* Adds one row's sums into the frame's, in float (rows top to bottom). */
TVMAF_HD void fansnr_frame_add(float *sig, float *noise, float row_sig, float row_noise)
{
    *sig += row_sig;
    *noise += row_noise;
}

#if !TVMAF_DEVICE_CODE
#include <math.h>

/* ansnr from the frame sums; note the float quotient. */
static inline double fansnr_db(float sig, float noise, double psnr_max)
{
    return noise == 0 ? psnr_max : 10.0 * log10((double)(sig / noise));
}

/* anpsnr: the psnr of the filtered pictures' total squared difference. */
static inline double fanpsnr_db(float noise, int w, int h, double peak, double psnr_max)
{
    const double floor_ = 1e-10;
    const double n = (double)noise > floor_ ? (double)noise : floor_;
    const double v = 10 * log10(peak * peak * w * h / n);
    return v < psnr_max ? v : psnr_max;
}
#endif

#endif
