/*
 * Edge mirroring: the index a filter tap reads when its position i falls
 * outside a line of n samples, reflected once at each end. The reference
 * mirrors in three ways, and every feature keeps the one its reference
 * code uses; they differ in whether the sample at the edge is read twice:
 *
 *   mirror_skip_edge               -1 -> 1, -2 -> 2;  n -> n - 2, n + 1 -> n - 3
 *   mirror_repeat_edge             -1 -> 0, -2 -> 1;  n -> n - 1, n + 1 -> n - 2
 *   mirror_skip_first_repeat_last  -1 -> 1, -2 -> 2;  n -> n - 1, n + 1 -> n - 2
 *
 * One reflection only: each names the range of i it is valid for. The
 * bodies keep the forms (if chain, conditional expression) their kernels
 * were built with: nvcc allocates registers differently for the two
 * (float_ms_ssim_down, float_adm_dwt).
 */
#ifndef TVMAF_FEATURE_COMMON_MIRROR_H
#define TVMAF_FEATURE_COMMON_MIRROR_H

#include "core/hd.h"

/* The edge sample is not repeated at either end. -n < i <= 2n - 2. */
TVMAF_HD int mirror_skip_edge(int i, int n)
{
    if (i < 0) return -i;
    if (i >= n) return 2 * n - i - 2;
    return i;
}

/* The edge sample is repeated at both ends. -n <= i <= 2n - 1. */
TVMAF_HD int mirror_repeat_edge(int i, int n)
{
    if (i < 0) return -1 - i;
    if (i >= n) return 2 * n - 1 - i;
    return i;
}

/* The first sample is not repeated, the last one is (float_adm's DWT,
 * float_ansnr's filters; adm's DWT writes it out, adm_dwt_tap).
 * -n < i <= 2n - 1. */
TVMAF_HD int mirror_skip_first_repeat_last(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i);
}

#endif
