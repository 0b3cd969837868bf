/*
 * float_ms_ssim: multi-scale SSIM (Wang's weights) as libvmaf computes it,
 * the part that is not plain SSIM; the SSIM of each scale is
 * float_ssim_math.h's.
 *
 * Scale 0 is the luma plane (scaled to [0, 255] as for float_ssim); scale
 * i + 1 is scale i filtered with the 9x9 kernel below at every even row and
 * column (ssim_filter_at with f = 2, borders mirrored), ceil(n / 2) samples
 * a line. At
 * every scale the mean l, c and s (floats) of an 11x11-window SSIM are
 * taken, and the score is the double product over the scales of
 * pow(l, alpha) pow(c, beta) pow(s, gamma), factors multiplied in that order.
 */
#ifndef TVMAF_FLOAT_MS_SSIM_MATH_H
#define TVMAF_FLOAT_MS_SSIM_MATH_H

#include "feature/float_ssim/float_ssim_math.h"

#define MS_SSIM_SCALES 5

/*
 * Smallest width and height scored. The reference requires floor(n / 2^i)
 * >= 11 for every scale i < 5, i.e. n >= 11 * 16 (the scales it then uses are
 * ceil(n / 2^i), no smaller). Below that it fails on every frame.
 */
#define MS_SSIM_MIN_DIM 176

/* Low-pass before down-sampling (9/7 biorthogonal wavelet), 9x9, used as a
 * full 2-D kernel, row-major. */
#define MS_SSIM_LPF_LEN 9
#define MS_SSIM_LPF_TAPS { \
     0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f, \
    -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f, \
    -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f, \
     0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f, \
     0.016114f, -0.010146f, -0.047149f,  0.160885f,  0.363505f,  0.160885f, -0.047149f, -0.010146f,  0.016114f, \
     0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f, \
    -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f, \
    -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f, \
     0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f }
#if !TVMAF_DEVICE_CODE
static const float ms_ssim_lpf[MS_SSIM_LPF_LEN * MS_SSIM_LPF_LEN] = MS_SSIM_LPF_TAPS;
#endif

/* The pyramid's down-sampling factor. */
#define MS_SSIM_DOWN 2

/* Exponents of l, c and s per scale (floats; l counts only at the coarsest). */
#define MS_SSIM_ALPHAS { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f }
#define MS_SSIM_BETAS { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
#define MS_SSIM_GAMMAS { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
#if !TVMAF_DEVICE_CODE
static const float ms_ssim_alpha[MS_SSIM_SCALES] = MS_SSIM_ALPHAS;
static const float ms_ssim_beta[MS_SSIM_SCALES] = MS_SSIM_BETAS;
static const float ms_ssim_gamma[MS_SSIM_SCALES] = MS_SSIM_GAMMAS;
#endif

/* Samples a line of n has at the next scale. */
TVMAF_HD int ms_ssim_next_len(int n)
{
    return n / 2 + (n & 1);
}

/* Windows of an SSIM evaluation of w x h (w, h >= 11). */
TVMAF_HD int ms_ssim_n_windows(int w, int h)
{
    return (w - SSIM_WIN + 1) * (h - SSIM_WIN + 1);
}

/*
 * The twin's decomposition (float_ms_ssim_kernels.h). Both pyramids stay on
 * the device; per frame:
 *   load      one thread per luma sample (ssim_sample_*), scale 0;
 *   down      scale i from scale i - 1, one thread per output:
 *             ssim_filter_at at (2 x, 2 y) with the 9x9 low-pass (what
 *             ssim_down_sample computes, border or not);
 *   rows      per scale, one thread per (x, y) of the (w - 10) x h row-pass
 *             outputs: ms_ssim_rows_at (the products of the 11 samples it
 *             reads, ssim_products, then the row pass of the five images);
 *   windows   per scale, one thread per window: ms_ssim_window_at, storing
 *             l and c (double) and s (float);
 *   sums      one block per (scale, term l / c / s): its warps other than the
 *             first stage the next MS_SSIM_SUM_TILE terms in shared memory
 *             while thread 0 adds the current tile into its one double
 *             (ms_ssim_sum_run), windows in raster order: the very additions
 *             of ssim_evaluate_sums, so no tree anywhere.
 * The host reads back the 15 sums and finishes with the CPU's code (ssim_mean,
 * then pow and log10 in tvmaf_float_ms_ssim_report). The passes use
 * float_ssim's blocks (SSIM_BLOCK_W x SSIM_BLOCK_H, SSIM_GRID_Y).
 */
#define MS_SSIM_TERMS 3 /* l, c, s: the sums the score needs (not SSIM's own) */
#define MS_SSIM_SUM_THREADS 256
#define MS_SSIM_SUM_TILE 2048

/* Where each scale's windows sit in the twin's l, c and s arrays, and how
 * many there are (uploaded once, read by the sums kernel). */
typedef struct MsSsimSumLayout {
    uint64_t off[MS_SSIM_SCALES];
    int n[MS_SSIM_SCALES];
} MsSsimSumLayout;

/* The row pass at one output of a scale: r and d point at the first of the
 * 11 samples of each image it reads; out: the outputs for ref, dis, r*r, d*d,
 * r*d (ssim_evaluate_sums' five images). */
TVMAF_HD void ms_ssim_rows_at(TVMAF_GLOBAL const float *r, TVMAF_GLOBAL const float *d,
                              TVMAF_GLOBAL const float *taps, float out[5])
{
    float v[5][SSIM_WIN];
    for (int k = 0; k < SSIM_WIN; k++) {
        v[0][k] = r[k];
        v[1][k] = d[k];
    }
    ssim_products(v[0], v[1], SSIM_WIN, v[2], v[3], v[4]);
    for (int q = 0; q < 5; q++) {
        const float *src[SSIM_WIN];
        for (int k = 0; k < SSIM_WIN; k++) src[k] = v[q] + k;
        out[q] = ssim_gauss_one(src, 0, taps);
    }
}

/* One window: rows points at its top-left in the first of the five row-pass
 * planes (plane_n floats apart, ow a row); the column pass, then
 * ssim_window. */
TVMAF_HD SsimLcs ms_ssim_window_at(TVMAF_GLOBAL const float *rows, size_t plane_n, int ow,
                                   TVMAF_GLOBAL const float *taps, SsimConsts k)
{
    float m[5];
    for (int q = 0; q < 5; q++) {
        float win[SSIM_WIN]; /* copied: ssim_gauss_one reads private memory */
        const float *src[SSIM_WIN];
        for (int j = 0; j < SSIM_WIN; j++) {
            win[j] = rows[q * plane_n + (size_t)j * ow];
            src[j] = win + j;
        }
        m[q] = ssim_gauss_one(src, 0, taps);
    }
    return ssim_window(m[0], m[1], m[2], m[3], m[4], k);
}

/* n terms added to acc one after the other, as ssim_sums_add adds each
 * window's term into its running double. In an fp64-free program the doubles
 * are bit patterns (float_ssim_math.h): the OpenCL plan reads the windows
 * back and adds them on the host instead, since one work-item adding every
 * window in integer arithmetic would hold the frame up; the kernel is built
 * there all the same. */
#if defined(TVMAF_FP64_FREE)
#define MS_SSIM_WIDEN(f) tvmaf_sd_from_float(f)
TVMAF_HD tvmaf_sd ms_ssim_sum_run(tvmaf_sd acc, TVMAF_LOCAL const tvmaf_sd *v, int n)
{
    for (int i = 0; i < n; i++) acc = tvmaf_sd_add(acc, v[i]);
    return acc;
}
#else
#define MS_SSIM_WIDEN(f) ((double)(f))
TVMAF_HD double ms_ssim_sum_run(double acc, TVMAF_LOCAL const double *v, int n)
{
#if defined(__CUDACC__)
#pragma unroll 16
#endif
    for (int i = 0; i < n; i++) acc += v[i];
    return acc;
}
#endif

#if !TVMAF_DEVICE_CODE
/* A scale's factor of the product: glibc pow of the float means raised to the
 * float exponents, both widened to double. */
static inline double ms_ssim_factor(float l, float c, float s, unsigned scale)
{
    return pow((double)l, (double)ms_ssim_alpha[scale]) *
           pow((double)c, (double)ms_ssim_beta[scale]) *
           pow((double)s, (double)ms_ssim_gamma[scale]);
}
#endif

#endif
