/*
 * ciede twin, kernels (gpu/kernel.h): dE00 of every pixel, stored at its
 * raster position (de[y w + x]); nothing is added on the device, as an
 * addition that rounds cannot be regrouped: the host reads the plane back
 * and adds it in the CPU's order (ciede_sum_raster).
 *
 * One work-item per pixel, groups of CIEDE_BLOCK_W x CIEDE_BLOCK_H. Two
 * arithmetics of the same statements:
 *   ciede_de00_*   (CUDA) ciede_math.h in double, powf(x, 7) glibc's from
 *                  the correctly rounded value and the build host's table
 *                  (numerics/powf_table.h), pow(x, 7) correctly rounded;
 *                  the device's atan2, sin, cos and exp are its libm's;
 *   ciede_pair_*   (any device; the OpenCL program is fp64-free) the same
 *                  statements with each double an fp32 pair (ciede_pair.h),
 *                  the reference's double constants from the host (k).
 * The host executor runs both: the first with glibc's transcendentals.
 */
#ifndef TVMAF_CIEDE_KERNELS_H
#define TVMAF_CIEDE_KERNELS_H

#include "gpu/kernel.h"
#include "feature/ciede/ciede_pair.h"

#define CIEDE_BLOCK_W CIEDE_PAIR_BLOCK_W
#define CIEDE_BLOCK_H CIEDE_PAIR_BLOCK_H

/* the planes (a picture's Y, U, V), pitches in bytes; tab, n: glibc's
 * powf(x, 7) table; k: the pair variant's constants */
#define CiedeArgs_LIST(V, S)                                                                   \
    V(const uint8_t, ry) V(const uint8_t, ru) V(const uint8_t, rv) V(const uint8_t, dy)        \
    V(const uint8_t, du) V(const uint8_t, dv) S(uint64_t, luma_pitch)                          \
    S(uint64_t, chroma_pitch) S(uint32_t, w) S(uint32_t, h) S(uint32_t, cw) S(uint32_t, ch)    \
    S(int32_t, layout) S(uint32_t, bpc) V(const uint32_t, tab) S(uint32_t, n)                  \
    V(const CiedePairK, k) V(float, de)
TVD_ARGS(CiedeArgs)

#define CIEDE_KERNELS(K, KC)                                                                   \
    KC(ciede_de00_8, CiedeArgs, TvdNoLocals, CIEDE_BLOCK_W, CIEDE_BLOCK_H, TVD_CUDA_CAPS)       \
    KC(ciede_de00_16, CiedeArgs, TvdNoLocals, CIEDE_BLOCK_W, CIEDE_BLOCK_H, TVD_CUDA_CAPS)      \
    K(ciede_pair_8, CiedeArgs, TvdNoLocals, CIEDE_BLOCK_W, CIEDE_BLOCK_H, 0)                    \
    K(ciede_pair_16, CiedeArgs, TvdNoLocals, CIEDE_BLOCK_W, CIEDE_BLOCK_H, 0)

#ifdef TVD_KERNEL_BUILD

/* The pixel of this work-item, or a return outside the picture. */
#define CIEDE_PIXEL_XY(r, x, y)                                                                \
    const uint32_t x = TVD_GID(0) * CIEDE_BLOCK_W + TVD_LID(0);                               \
    const uint32_t y = TVD_GID(1) * CIEDE_BLOCK_H + TVD_LID(1);                               \
    if (x >= (r)->w || y >= (r)->h) return;                                                    \
    TVMAF_GLOBAL const uint8_t *rp[3] = { (r)->ry, (r)->ru, (r)->rv };                         \
    TVMAF_GLOBAL const uint8_t *dp[3] = { (r)->dy, (r)->du, (r)->dv }

#if TVD_HAS_CUDA_CAPS
#define CIEDE_DOUBLE_BODY(T)                                                                   \
    CIEDE_PIXEL_XY(r, x, y);                                                                   \
    const CiedeLibm lm = { r->tab, r->n };                                                     \
    float v;                                                                                   \
    CIEDE_PIXEL_AT(T, rp, dp, x, y, r->luma_pitch / sizeof(T),                                 \
                   (unsigned)(r->chroma_pitch / sizeof(T)), r->cw, r->ch, r->layout, r->bpc,   \
                   lm, v);                                                                     \
    r->de[(size_t)y * r->w + x] = v

TVD_BODY(ciede_de00_8, CiedeArgs, TvdNoLocals)
{
    CIEDE_DOUBLE_BODY(uint8_t);
}

TVD_BODY(ciede_de00_16, CiedeArgs, TvdNoLocals)
{
    CIEDE_DOUBLE_BODY(uint16_t);
}
#endif

#define CIEDE_PAIR_BODY(T)                                                                     \
    CIEDE_PIXEL_XY(r, x, y);                                                                   \
    float s[6];                                                                                \
    CIEDE_SAMPLES_AT(T, rp, dp, x, y, (uint32_t)(r->luma_pitch / sizeof(T)),                   \
                     (uint32_t)(r->chroma_pitch / sizeof(T)), r->cw, r->ch, r->layout, s);     \
    r->de[(size_t)y * r->w + x] =                                                              \
        ciede_pair_pixel(s[0], s[1], s[2], s[3], s[4], s[5], r->k, r->tab, r->n)

TVD_BODY(ciede_pair_8, CiedeArgs, TvdNoLocals)
{
    CIEDE_PAIR_BODY(uint8_t);
}

TVD_BODY(ciede_pair_16, CiedeArgs, TvdNoLocals)
{
    CIEDE_PAIR_BODY(uint16_t);
}

#endif
#endif
