/*
 * float_motion (libvmaf's floating-point motion): the arithmetic, written
 * once for the CPU extractor and a later device twin.
 *
 * Each reference frame's plane becomes floats exactly as float_vif's input
 * (v - 128, deeper samples divided by 2^(bpc-8) first) and is blurred with a
 * small symmetric filter (taps below), separable, vertical first, with
 * float_vif's float filter (fvif_vpass/fvif_hpass: 0 + f[0]*x[0] + ..., taps
 * in index order, borders mirrored without repeating the edge sample). The
 * motion of frame i is the mean absolute difference of the blurred frames
 * i-1 and i: a float sum along each row from 0, the row sums added top to
 * bottom into a float, divided by the (float) sample count in float.
 * With motion_add_scale1 the two blurred frames are also halved with the
 * bilinear scaler (fvif_bilinear_*) and the mean absolute difference of the
 * halves, computed the same way, is added (in float).
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

#include <math.h>

#include "core/hd.h"
#include "feature/float_vif/float_vif_math.h"

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
TVMAF_HD float fmot_sad_row(const float *a, const float *b, int n)
{
    float acc = 0.0f;
    for (int j = 0; j < n; j++) acc += fabsf(a[j] - b[j]);
    return acc;
}

/* Side of the half-size image: (int)(n * 0.5 + 0.5) in double. */
TVMAF_HD int fmot_half_side(int n)
{
    return (int)(n * 0.5 + 0.5);
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
