/*
 * float_motion twin, kernels (gpu/kernel.h): the blur into the ring of
 * reference planes and the rows' sums of absolute differences, in the CPU's
 * arithmetic and order (float_motion_math.h, "The twin's decomposition").
 *
 * Every per-sample value is the CPU's own row function run on a one-sample
 * row, so each output is the same chain of float operations; every float
 * sum that the CPU adds along a row is added by one work-item left to
 * right, and the rows are added on the host top to bottom. No kernel
 * synchronises.
 */
#ifndef TVMAF_FLOAT_MOTION_KERNELS_H
#define TVMAF_FLOAT_MOTION_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_motion/float_motion_math.h"

/* the vertical pass of a plane (pitch bytes per row) into tmp (w floats per row) */
#define FmotVpass_LIST(V, S)                                                                   \
    V(const uint8_t, src) S(uint64_t, pitch) S(int32_t, w) S(int32_t, h) S(float, divisor)     \
    V(const float, taps) S(int32_t, fw) V(float, tmp)
TVD_ARGS(FmotVpass)
/* the horizontal pass of tmp into a ring slot (st floats per row) */
#define FmotHpass_LIST(V, S)                                                                   \
    V(const float, tmp) S(int32_t, w) S(int32_t, h) V(const float, taps) S(int32_t, fw)        \
    V(float, dst) S(int32_t, st)
TVD_ARGS(FmotHpass)
/* sums[y]: row y's sum of |a - b| (rows stride floats apart) */
#define FmotSad_LIST(V, S)                                                                     \
    V(const float, a) V(const float, b) S(int32_t, stride) S(int32_t, w) S(int32_t, h)         \
    V(float, sums)
TVD_ARGS(FmotSad)
/* the hw x hh half-size image of a blurred plane (h rows read rs floats apart) */
#define FmotHalf_LIST(V, S)                                                                    \
    V(const float, a) S(int32_t, rs) S(int32_t, h) S(int32_t, hw) S(int32_t, hh) S(float, ry)  \
    V(const int32_t, col1) V(const int32_t, col2) V(const float, coldx) V(float, out)
TVD_ARGS(FmotHalf)

#define FLOAT_MOTION_KERNELS(K, KC)                                                            \
    K(float_motion_vpass_8, FmotVpass, TvdNoLocals, FMOT_BLOCK_W, FMOT_BLOCK_H, 0)             \
    K(float_motion_vpass_16, FmotVpass, TvdNoLocals, FMOT_BLOCK_W, FMOT_BLOCK_H, 0)            \
    K(float_motion_hpass, FmotHpass, TvdNoLocals, FMOT_BLOCK_W, FMOT_BLOCK_H, 0)               \
    K(float_motion_sad_rows, FmotSad, TvdNoLocals, FMOT_ROW_THREADS, 1, 0)                     \
    K(float_motion_half, FmotHalf, TvdNoLocals, FMOT_BLOCK_W, FMOT_BLOCK_H, 0)

#ifdef TVD_KERNEL_BUILD

/* Column x of this work-item and the rows y it takes over a w x h plane (the
 * grid's y strides over further rows). */
#define FMOT_FOR_SAMPLES(w, h) TVD_FOR_SAMPLES(w, h, FMOT_BLOCK_W, FMOT_BLOCK_H)

#define FMOT_VPASS_BODY(BPC)                                                                   \
    TVD_BODY(float_motion_vpass_##BPC, FmotVpass, TvdNoLocals)                                 \
    {                                                                                          \
        FMOT_FOR_SAMPLES(r->w, r->h)                                                           \
        r->tmp[(size_t)y * r->w + x] = fmot_vpass_sample(r->src, (ptrdiff_t)r->pitch, BPC,     \
                                                         r->divisor, r->h, r->taps, r->fw, x,  \
                                                         y);                                   \
    }
FMOT_VPASS_BODY(8)
FMOT_VPASS_BODY(16)

TVD_BODY(float_motion_hpass, FmotHpass, TvdNoLocals)
{
    FMOT_FOR_SAMPLES(r->w, r->h)
    r->dst[(size_t)y * r->st + x] = fmot_hpass_sample(r->tmp, r->w, r->taps, r->fw, x, y);
}

TVD_BODY(float_motion_sad_rows, FmotSad, TvdNoLocals)
{
    const int y = (int)(TVD_GID(0) * FMOT_ROW_THREADS + TVD_LID(0));
    if (y >= r->h) return;
    r->sums[y] = fmot_sad_row(r->a + (size_t)y * r->stride, r->b + (size_t)y * r->stride, r->w);
}

TVD_BODY(float_motion_half, FmotHalf, TvdNoLocals)
{
    FMOT_FOR_SAMPLES(r->hw, r->hh)
    r->out[(size_t)y * r->hw + x] =
        fmot_half_sample(r->a, r->rs, r->h, r->ry, r->col1, r->col2, r->coldx, x, y);
}

#endif
#endif
