/*
 * The float filters float_vif, float_motion and speed share: their input
 * samples, the separable filter and its Gaussians, and the scalers (float_vif
 * and speed's prescale, float_motion's half-size pass). Each is the
 * reference's chain of float operations, written once for the CPU
 * extractors and their twins (host C, CUDA, OpenCL C).
 *
 *   Samples become floats centred on zero: 8-bit v -> v + (-128), deeper
 *   samples are divided by their sample_divisor first, in float.
 *   Filtering is separable, the vertical pass first. An output sample is
 *   0 + f[0]*x[0] + f[1]*x[1] + ... (taps in index order, each product
 *   rounded, then each sum). Borders mirror without repeating the edge
 *   sample (mirror_skip_edge). The reference's AVX2 convolution (which
 *   produced the goldens) vectorises across output columns only, so every
 *   output sample is the same chain of float operations as its C path and as
 *   here; no FMA is involved (its AVX2 objects are built in ISO C mode, which
 *   does not contract).
 *   The scalers (nearest, bilinear, bicubic, lanczos4) compute source
 *   positions in double rounded to float (ffilter_scale_pos; an fp64-free
 *   program forms the same float from integers) and mirror once in float
 *   (ffilter_scale_mirror). The Gaussian taps (exp, sqrt) and the lanczos4
 *   weights (sin) call libm, so the host computes them once.
 *
 * The one-sample functions near the end run the row functions on a row of
 * one sample, the building block of the twins' per-sample decompositions.
 */
#ifndef TVMAF_FEATURE_COMMON_FLOAT_FILTER_H
#define TVMAF_FEATURE_COMMON_FLOAT_FILTER_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/mirror.h"
#include "numerics/float_bits.h"

/* Room for the widest Gaussian: (2^4 + 1) * the largest accepted
 * kernelscale (360/97) rounded up to odd is 65 taps; the reference sizes its
 * tap array for 128. */
#define FFILTER_MAX_TAPS 128

/* the offset that centres 8-bit-range samples on zero */
#define FFILTER_SAMPLE_OFFSET (-128)

/* pi as the reference's M_PI (a double) */
#define FFILTER_PI 3.14159265358979323846

/* The bilinear scaler's widest output; the reference refuses wider ones
 * (its column tables live on the stack). */
#define FFILTER_BILINEAR_MAX_WIDTH 7680

enum FfilterScaler {
    FFILTER_SCALE_NEAREST = 0,
    FFILTER_SCALE_BICUBIC = 1,
    FFILTER_SCALE_LANCZOS4 = 2,
    FFILTER_SCALE_BILINEAR = 3,
};

/* ------------------------------------------------------------------------ */
/* Samples                                                                  */
/* ------------------------------------------------------------------------ */

/* One row of 8-bit samples as floats: (float)v + (float)-128. */
TVMAF_HD void ffilter_load_row_8(TVMAF_GLOBAL const uint8_t *src, float *dst, int w)
{
    for (int j = 0; j < w; j++)
        dst[j] = (float)src[j] + (float)FFILTER_SAMPLE_OFFSET;
}

/* One row of 10/12/16-bit samples: (float)v / divisor + (float)-128, the
 * divisor being 2^(bpc-8) (sample_divisor). */
TVMAF_HD void ffilter_load_row_16(TVMAF_GLOBAL const uint16_t *src, float *dst, int w,
                                  float divisor)
{
    for (int j = 0; j < w; j++)
        dst[j] = (float)src[j] / divisor + (float)FFILTER_SAMPLE_OFFSET;
}

/* ------------------------------------------------------------------------ */
/* Separable filter                                                         */
/* ------------------------------------------------------------------------ */

/* Row pointers under the taps of a filter of fw taps centred on row i of an
 * image of h rows, w floats apart (each row mirrored by mirror_skip_edge). */
TVMAF_HD void ffilter_tap_rows(const float *img, int w, int h, int i, int fw, const float **rows)
{
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) rows[k] = img + (ptrdiff_t)mirror_skip_edge(i - rad + k, h) * w;
}

/*
 * Vertical pass of one output row: rows[k] is the input row under tap k
 * (already mirrored by the caller), out[j] = sum over k of f[k] * rows[k][j]
 * from k = 0 up. The k-outer loop keeps each output's order and runs along
 * contiguous rows.
 */
TVMAF_HD void ffilter_vpass(TVMAF_GLOBAL const float *f, int fw, const float *const *rows,
                            float *out, int w)
{
    for (int j = 0; j < w; j++) out[j] = 0.0f;
    for (int k = 0; k < fw; k++) {
        const float c = f[k];
        const float *r = rows[k];
        for (int j = 0; j < w; j++) out[j] += c * r[j];
    }
}

/*
 * Fills the mirrored margins of a row stored at ext[half .. half + w): the
 * `half` samples on each side that a horizontal pass of 2*half+1 taps reads
 * (needs w > half).
 */
TVMAF_HD void ffilter_mirror_margins(float *ext, int w, int rad)
{
    float *row = ext + rad;
    for (int m = 1; m <= rad; m++) {
        row[-m] = row[m];
        row[w - 1 + m] = row[w - 1 - m];
    }
}

/*
 * Horizontal pass over a row with mirrored margins (ffilter_mirror_margins):
 * out[j] = sum over k of f[k] * ext[j*step + k], for j < n. step 2 gives the
 * even columns only (filter then decimate).
 */
TVMAF_HD void ffilter_hpass(TVMAF_GLOBAL const float *f, int fw, const float *ext, float *out,
                            int n, int step)
{
    for (int j = 0; j < n; j++) out[j] = 0.0f;
    if (step == 1) {
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *e = ext + k;
            for (int j = 0; j < n; j++) out[j] += c * e[j];
        }
    } else {
        for (int k = 0; k < fw; k++) {
            const float c = f[k];
            const float *e = ext + k;
            for (int j = 0; j < n; j++) out[j] += c * e[j * step];
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Scalers                                                                  */
/* ------------------------------------------------------------------------ */

/* Source-to-destination size ratio: (float)src / (float)dst. */
TVMAF_HD float ffilter_scale_ratio(int src, int dst)
{
    return (float)src / (float)dst;
}

/*
 * ffilter_scale_pos without fp64, for 0 <= x < 2^24 and a normal ratio in
 * [2^-38, 2^23]. With ratio = R 2^e (R the 24-bit significand, an integer),
 * the reference's double is exact: (x + 0.5) ratio - 0.5 = V 2^(e - 1) with
 * V = (2x + 1) R - 2^-e, an integer below 2^49 (at most 49 significant bits,
 * so neither the double product nor the difference rounds). Its float is V
 * rounded once to float (integer-to-float conversion rounds to nearest, ties
 * to even) times 2^(e - 1), exact in the normal range. tests/test_scale_pos.c
 * compares the two over every size and position of the half-size pass.
 */
TVMAF_HD float ffilter_scale_pos_int(int x, float ratio)
{
    const uint32_t u = tvmaf_f2bits(ratio);
    const int e = tvmaf_ilogbf(ratio) - 23;
    const int64_t v = (int64_t)(2 * x + 1) * (int64_t)((u & 0x7fffffu) | 0x800000u) -
                      ((int64_t)1 << -e);
#if defined(__OPENCL_VERSION__)
    const float f = convert_float_rte(v);
#else
    const float f = (float)v;
#endif
    return f * tvmaf_pow2f(e - 1);
}

/* Source position of destination sample x: ((x + 0.5) * ratio - 0.5)
 * evaluated in double, rounded to float (fp64-free programs: the same float
 * from integers, ffilter_scale_pos_int). */
TVMAF_HD float ffilter_scale_pos(int x, float ratio)
{
#if defined(TVMAF_FP64_FREE)
    return ffilter_scale_pos_int(x, ratio);
#else
    return (float)(((double)x + 0.5) * (double)ratio - 0.5);
#endif
}

/* The scalers' border rule, in float: below left reflects about 0, above
 * right about right (one reflection). */
TVMAF_HD float ffilter_scale_mirror(float i, float left, float right)
{
    return i < left ? -i : (i > right ? 2 * right - i : i);
}

/* nearest: destination x reads source (int)(x * ratio), the product in float */
TVMAF_HD int ffilter_nearest_index(int x, float ratio)
{
    return (int)((float)x * ratio);
}

/*
 * bilinear along one axis: the two source indices (floor and ceil of the
 * position, mirrored, truncated to int) and the weight of the second, which
 * is the position minus the mirrored first index.
 */
TVMAF_HD void ffilter_bilinear_axis(int x, float ratio, int src_n, int *i1, int *i2, float *d)
{
    const float pos = ffilter_scale_pos(x, ratio);
    const float last = (float)(src_n - 1);
    /* floorf, ceilf: the reference's floor and ceil of the float in double,
     * exactly (an integral float is a float) */
    *i1 = (int)ffilter_scale_mirror(floorf(pos), 0.0f, last);
    *i2 = (int)ffilter_scale_mirror(ceilf(pos), 0.0f, last);
    *d = pos - (float)*i1;
}

/* The bilinear scaler's column tables for a src_w-wide source scaled to
 * dst_w columns (dst_w entries each). */
TVMAF_HD void ffilter_bilinear_columns(int src_w, int dst_w, int *col1, int *col2, float *coldx)
{
    const float rx = ffilter_scale_ratio(src_w, dst_w);
    for (int x = 0; x < dst_w; x++)
        ffilter_bilinear_axis(x, rx, src_w, &col1[x], &col2[x], &coldx[x]);
}

/* One destination row of the bilinear scaler from source rows r1, r2 (the
 * row pair and dy of ffilter_bilinear_axis on the vertical axis) and the
 * per-column tables x1, x2, dx. Products and sums in float, left to right. */
TVMAF_HD void ffilter_bilinear_row(TVMAF_GLOBAL const float *r1, TVMAF_GLOBAL const float *r2,
                                   float dy, TVMAF_GLOBAL const int *x1,
                                   TVMAF_GLOBAL const int *x2, TVMAF_GLOBAL const float *dx,
                                   float *out, int n)
{
    for (int x = 0; x < n; x++) {
        const int a = x1[x], b = x2[x];
        const float w = dx[x];
        out[x] = (1 - dy) * (1 - w) * r1[a] + (1 - dy) * w * r1[b] +
                 dy * (1 - w) * r2[a] + dy * w * r2[b];
    }
}

/* Keys cubic kernel with a = -0.75, in float. */
TVMAF_HD float ffilter_bicubic_weight(float t)
{
    const float a = -0.75f;
    if (t < 0) t = -t;
    if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

/* Bicubic sample at source position (x, y): 4x4 taps, rows outer, the
 * weight of a tap being wx * wy, added into a float from 0. Needs a source of
 * at least 3x3. */
TVMAF_HD float ffilter_bicubic_sample(TVMAF_GLOBAL const float *src, int w, int h, int stride,
                                      float x, float y)
{
    const int x0 = (int)floorf(x);
    const int y0 = (int)floorf(y);
    const float dx = x - (float)x0;
    const float dy = y - (float)y0;
    float wx[4], wy[4];
    for (int i = -1; i <= 2; i++) {
        wx[i + 1] = ffilter_bicubic_weight((float)i - dx);
        wy[i + 1] = ffilter_bicubic_weight((float)i - dy);
    }
    float v = 0.0f;
    for (int j = -1; j <= 2; j++) {
        for (int i = -1; i <= 2; i++) {
            const int xi = (int)ffilter_scale_mirror((float)(x0 + i), 0.0f, (float)(w - 1));
            const int yi = (int)ffilter_scale_mirror((float)(y0 + j), 0.0f, (float)(h - 1));
            const float wt = wx[i + 1] * wy[j + 1];
            v += src[yi * stride + xi] * wt;
        }
    }
    return v;
}

#if !defined(TVMAF_FP64_FREE)
/* Lanczos window of radius a at x: a sin(pi x) sin(pi x / a) / (pi^2 x^2)
 * in double, rounded to float; 1 at 0, 0 outside (-a, a). */
TVMAF_HD float ffilter_lanczos_weight(float x, float a)
{
    if (x == 0.0f) return 1.0f;
    if (x > -a && x < a) {
        const double px = FFILTER_PI * (double)x;
        return (float)((double)a * sin(px) * sin(px / (double)a) /
                       (FFILTER_PI * FFILTER_PI * (double)x * (double)x));
    }
    return 0.0f;
}
#endif /* !TVMAF_FP64_FREE */

#define FFILTER_LANCZOS_A 4

#define FFILTER_LANCZOS_TAPS (2 * FFILTER_LANCZOS_A + 1)

#if !defined(TVMAF_FP64_FREE)

/* The Lanczos4 taps along one axis at source position pos: returns the
 * integer position (floor) and writes the 9 weights of positions -4..4
 * around it. Calls libm (sin): the CUDA twin takes these from the host. */
TVMAF_HD int ffilter_lanczos_axis(float pos, float *wts)
{
    const int a = FFILTER_LANCZOS_A;
    const int p0 = (int)floorf(pos);
    const float d = pos - (float)p0;
    for (int i = -a; i <= a; i++) wts[i + a] = ffilter_lanczos_weight((float)i - d, (float)a);
    return p0;
}
#endif /* !TVMAF_FP64_FREE */

/* Lanczos4 sample from the two axes' taps (ffilter_lanczos_axis): 9x9 taps,
 * rows outer, value and weight sums in float, then their quotient. Needs a
 * source of at least 6x6. */
TVMAF_HD float ffilter_lanczos_apply(TVMAF_GLOBAL const float *src, int w, int h, int stride,
                                     int x0, int y0, TVMAF_GLOBAL const float *wx,
                                     TVMAF_GLOBAL const float *wy)
{
    const int a = FFILTER_LANCZOS_A;
    float value = 0.0f, weight_sum = 0.0f;
    for (int iy = -a; iy <= a; iy++) {
        for (int ix = -a; ix <= a; ix++) {
            const float wt = wx[ix + a] * wy[iy + a];
            weight_sum += wt;
            const int xi = (int)ffilter_scale_mirror((float)(x0 + ix), 0.0f, (float)(w - 1));
            const int yi = (int)ffilter_scale_mirror((float)(y0 + iy), 0.0f, (float)(h - 1));
            value += src[yi * stride + xi] * wt;
        }
    }
    return value / weight_sum;
}

/* Lanczos4 sample at source position (x, y) (the CPU's: the device reads
 * the host's taps, ffilter_lanczos_apply). */
#ifndef __OPENCL_VERSION__
TVMAF_HD float ffilter_lanczos_sample(const float *src, int w, int h, int stride, float x, float y)
{
    float wx[FFILTER_LANCZOS_TAPS], wy[FFILTER_LANCZOS_TAPS];
    const int x0 = ffilter_lanczos_axis(x, wx);
    const int y0 = ffilter_lanczos_axis(y, wy);
    return ffilter_lanczos_apply(src, w, h, stride, x0, y0, wx, wy);
}
#endif

/* Smallest source side each scaler reads inside of (with its one-step
 * mirror), when the size changes. */
TVMAF_HD int ffilter_scaler_min_side(enum FfilterScaler m)
{
    return m == FFILTER_SCALE_LANCZOS4 ? 6
         : m == FFILTER_SCALE_BICUBIC ? 3
         : m == FFILTER_SCALE_BILINEAR ? 2 : 1;
}

/* ------------------------------------------------------------------------ */
/* One-sample rows (the twins)                                              */
/* ------------------------------------------------------------------------ */

/* The widest filter a one-sample pass holds (ffilter_hpass_sample, and
 * float_vif's passes): the Gaussian of scale 0 at the largest accepted kernel
 * scale, (2^4 + 1) * (360/97 + 1e-3) rounded up to odd. */
#define FFILTER_MAX_FW 65

/* Sample (x, y) of a plane of bpc-bit samples (rows pitch bytes apart) as a
 * float. */
TVMAF_HD float ffilter_load_sample(TVMAF_GLOBAL const unsigned char *src, ptrdiff_t pitch,
                                   unsigned bpc, float divisor, int x, int y)
{
    TVMAF_GLOBAL const unsigned char *r = src + (ptrdiff_t)y * pitch;
    float out;
    if (bpc == 8) ffilter_load_row_8(r + x, &out, 1);
    else
        ffilter_load_row_16((TVMAF_GLOBAL const uint16_t *)(TVMAF_GLOBAL const void *)r + x, &out,
                            1, divisor);
    return out;
}

/* The image column that column m of a w-wide row with half-sample mirrored
 * margins holds (ffilter_mirror_margins). */
TVMAF_HD int ffilter_ext_column(int m, int w, int rad)
{
    return mirror_skip_edge(m - rad, w);
}

/* The fw samples under a vertical filter centred on row yc of column x of an
 * image of h rows `stride` floats apart (rows mirrored by mirror_skip_edge),
 * copied into col, and the rows a one-sample row function reads them
 * through. On the device the row functions read private memory (OpenCL C
 * 1.2 has no generic address space), so a work-item copies what it filters. */
TVMAF_HD void ffilter_tap_column(TVMAF_GLOBAL const float *img, ptrdiff_t stride, int h, int yc,
                                 int fw, int x, float *col, const float **rows)
{
    const int rad = fw / 2;
    for (int k = 0; k < fw; k++) {
        col[k] = img[(ptrdiff_t)mirror_skip_edge(yc - rad + k, h) * stride + x];
        rows[k] = &col[k];
    }
}

/* Horizontal pass of output column j of a row with mirrored margins (ext),
 * reading every step-th column: ffilter_hpass with n = 1 over the fw samples
 * from ext + step * j (copied, as ffilter_tap_column). */
TVMAF_HD float ffilter_hpass_sample(TVMAF_GLOBAL const float *f, int fw,
                                    TVMAF_GLOBAL const float *ext, int j, int step)
{
    float win[FFILTER_MAX_FW], out;
    for (int k = 0; k < fw; k++) win[k] = ext[(ptrdiff_t)j * step + k];
    ffilter_hpass(f, fw, win, &out, 1, 1);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Host: Gaussians                                                          */
/* ------------------------------------------------------------------------ */

#if !TVMAF_DEVICE_CODE

/* Kernel scales the reference accepts (within 1e-3, compared in float).
 * Kept as the same float expressions, each rounded to float as written. */
#define FFILTER_N_KERNELSCALES 21
static const float ffilter_kernelscales[FFILTER_N_KERNELSCALES] = {
    1.0, 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,
    1.0f / 2.25f, 1.4746f, 1.54f, 1.6f, 1.06667f, 0.711111f, 0.740740f, 1.111111f,
};

/* Whether kernelscale (rounded to float) is within 1e-3 of an accepted one. */
static inline int ffilter_kernelscale_valid(float ks)
{
    for (int i = 0; i < FFILTER_N_KERNELSCALES; i++)
        if (fabsf(ks - ffilter_kernelscales[i]) < 1e-3) return 1;
    return 0;
}

/* Taps of the Gaussian of scale s (float_vif's scales; speed's anti-alias
 * and local-mean filters are those of scales 1 and 4): (2^(4-s) + 1) *
 * kernelscale (a float product), rounded up to an odd integer, at least 3. */
static inline int ffilter_gaussian_width(int scale, float ks)
{
    const int n = (1 << (4 - scale)) + 1;
    int c = (int)ceil((double)((float)n * ks));
    if (c % 2 == 0) c += 1;
    return c > 3 ? c : 3;
}

/*
 * Gaussian of `size` taps (odd) with deviation sd, normalised to sum 1 in
 * float: tap i (x = i - size/2) is exp(-0.5 * x / sd * x / sd) (double, to
 * float) divided by 1 / (sd * sqrt(2 pi)) (double, to float), in float.
 * float_vif's filters and speed's local mean take sd = size / 5 (in float),
 * speed's anti-alias filter a wider one.
 */
static inline void ffilter_gaussian(float *out, int size, float sd)
{
    const int rad = (size - 1) / 2;
    float sum = 0;
    for (int i = 0; i < size; i++) {
        const float x = (float)(i - rad);
        const float num = (float)exp(-0.5 * (double)x / (double)sd * (double)x / (double)sd);
        const float den = (float)(1 / ((double)sd * sqrt(2 * FFILTER_PI)));
        out[i] = num / den;
        sum += out[i];
    }
    for (int i = 0; i < size; i++) out[i] /= sum;
}

#endif /* !TVMAF_DEVICE_CODE */

#endif
