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
static const float ms_ssim_lpf[MS_SSIM_LPF_LEN * MS_SSIM_LPF_LEN] = MS_SSIM_LPF_TAPS;

/* Exponents of l, c and s per scale (floats; l counts only at the coarsest). */
#define MS_SSIM_ALPHAS { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f }
#define MS_SSIM_BETAS { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
#define MS_SSIM_GAMMAS { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
static const float ms_ssim_alpha[MS_SSIM_SCALES] = MS_SSIM_ALPHAS;
static const float ms_ssim_beta[MS_SSIM_SCALES] = MS_SSIM_BETAS;
static const float ms_ssim_gamma[MS_SSIM_SCALES] = MS_SSIM_GAMMAS;

/* Samples a line of n has at the next scale. */
TVMAF_HD int ms_ssim_next_len(int n)
{
    return n / 2 + (n & 1);
}

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
