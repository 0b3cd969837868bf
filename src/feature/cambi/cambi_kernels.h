/*
 * cambi twin, kernels (gpu/kernel.h): each picture's c-values at its five
 * scales (cambi_math.h, "The CUDA twin's decomposition") and their top-k
 * select ("The device's pooling").
 *
 * Per-sample kernels run one work-item per sample of a w x h region in
 * groups of CAMBI_BLOCK_W x CAMBI_BLOCK_H, the grid's rows striding down
 * (its height is capped): the range check, the load to 10 bits at the
 * encode (or source) size, the 2x2 mean, the flatness flags, the mask, and
 * per scale the decimation and the mode filter. The c-values run one
 * work-item per column and strip (cambi_cvalue_strip).
 *
 * The top-k select, per pass: each group counts its values and adds their
 * units per bin in local memory, then adds its bins to the global ones; one
 * group then copies the bins, clears them, and one work-item scans the copy
 * (cambi_topk_scan). Counts and unit sums are integers, so every order and
 * grouping gives the same bins. Two ways to add the 64-bit sums:
 *   cambi_topk_hist        (CUDA's caps) 64-bit atomics, local and global;
 *   cambi_topk_hist_pairs  (any device) each sum as two 32-bit words, low
 *                          and high, the carry of the low word's atomic
 *                          addition going into the high one; the global sums
 *                          are such pairs too, read by cambi_topk_scan_pairs.
 */
#ifndef TVMAF_CAMBI_KERNELS_H
#define TVMAF_CAMBI_KERNELS_H

#include "gpu/kernel.h"
#include "feature/cambi/cambi_math.h"

#define CambiCheckArgs_LIST(V, S)                                                              \
    V(const uint8_t, src) S(uint64_t, pitch) S(int32_t, w) S(int32_t, h) S(uint32_t, bpc)      \
    V(uint32_t, flag)
TVD_ARGS(CambiCheckArgs)
#define CambiLoadArgs_LIST(V, S)                                                               \
    V(const uint8_t, src) S(uint64_t, pitch) S(uint32_t, bpc) V(const uint32_t, ix)            \
    V(const uint32_t, iy) S(int32_t, ow) S(int32_t, oh) V(uint16_t, img) S(int32_t, stride)
TVD_ARGS(CambiLoadArgs)
#define CambiDitherArgs_LIST(V, S)                                                             \
    V(const uint16_t, in) V(uint16_t, out) S(int32_t, stride) S(int32_t, w) S(int32_t, h)
TVD_ARGS(CambiDitherArgs)
#define CambiFlatArgs_LIST(V, S)                                                               \
    V(const uint16_t, img) V(uint8_t, flat) S(int32_t, stride) S(int32_t, w) S(int32_t, h)
TVD_ARGS(CambiFlatArgs)
#define CambiMaskArgs_LIST(V, S)                                                               \
    V(const uint8_t, flat) V(uint8_t, mask) S(int32_t, stride) S(int32_t, w) S(int32_t, h)     \
    S(uint32_t, threshold)
TVD_ARGS(CambiMaskArgs)
#define CambiDecimateArgs_LIST(V, S)                                                           \
    V(const uint16_t, img) V(const uint8_t, mask) V(uint16_t, img_out) V(uint8_t, mask_out)    \
    S(int32_t, stride) S(int32_t, gw) S(int32_t, gh) S(int32_t, w) S(int32_t, h)
TVD_ARGS(CambiDecimateArgs)
#define CambiModeArgs_LIST(V, S)                                                               \
    V(const uint16_t, in) V(uint16_t, out) S(int32_t, stride) S(int32_t, gw) S(int32_t, gh)    \
    S(int32_t, w) S(int32_t, h)
TVD_ARGS(CambiModeArgs)
#define CambiCvalArgs_LIST(V, S)                                                               \
    V(const uint16_t, img) V(const uint8_t, mask) S(int32_t, stride) S(int32_t, w)             \
    S(int32_t, h) S(int32_t, radius) S(int32_t, rows) V(uint16_t, hist) S(uint64_t, slab)      \
    S(int32_t, band_base) S(int32_t, band_size) S(int32_t, num_diffs) V(const uint16_t, limit) \
    S(int32_t, vlt_code) V(const float, recip) V(float, cval)
TVD_ARGS(CambiCvalArgs)
/* sum: CAMBI_TOPK_BINS uint64, or (pairs) as many low and high words */
#define CambiTopkArgs_LIST(V, S)                                                               \
    V(const float, cval) S(int32_t, n) S(int32_t, pass) V(CambiTopk, st) V(uint32_t, count)    \
    V(uint64_t, sum)
TVD_ARGS(CambiTopkArgs)
#define CambiScanArgs_LIST(V, S)                                                               \
    V(CambiTopk, st) V(uint32_t, count) V(uint64_t, sum) S(int32_t, pass) S(uint32_t, k)
TVD_ARGS(CambiScanArgs)

#define CambiBins_LIST(X) X(uint32_t, sc, CAMBI_TOPK_BINS) X(uint64_t, ss, CAMBI_TOPK_BINS)
TVD_LOCALS(CambiBins)
#define CambiPairBins_LIST(X)                                                                  \
    X(uint32_t, sc, CAMBI_TOPK_BINS) X(uint32_t, lo, CAMBI_TOPK_BINS)                          \
    X(uint32_t, hi, CAMBI_TOPK_BINS)
TVD_LOCALS(CambiPairBins)

#define CAMBI_KERNELS(K, KC)                                                                   \
    K(cambi_check, CambiCheckArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)               \
    K(cambi_load, CambiLoadArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)                 \
    K(cambi_dither, CambiDitherArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)             \
    K(cambi_flat_kernel, CambiFlatArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)          \
    K(cambi_mask_kernel, CambiMaskArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)          \
    K(cambi_decimate, CambiDecimateArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)         \
    K(cambi_mode, CambiModeArgs, TvdNoLocals, CAMBI_BLOCK_W, CAMBI_BLOCK_H, 0)                 \
    K(cambi_cvalues, CambiCvalArgs, TvdNoLocals, CAMBI_CVAL_THREADS, 1, 0)                     \
    KC(cambi_topk_hist, CambiTopkArgs, CambiBins, CAMBI_TOPK_THREADS, 1,                       \
       TVD_SYNC | TVD_CUDA_CAPS)                                                               \
    K(cambi_topk_scan_kernel, CambiScanArgs, CambiBins, CAMBI_TOPK_SCAN_THREADS, 1, TVD_SYNC)  \
    K(cambi_topk_hist_pairs, CambiTopkArgs, CambiPairBins, CAMBI_TOPK_THREADS, 1, TVD_SYNC)    \
    K(cambi_topk_scan_pairs, CambiScanArgs, CambiBins, CAMBI_TOPK_SCAN_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* x and the rows y of this work-item over a w x h region (the grid's rows
 * stride) */
#define CAMBI_FOR_SAMPLES(w, h)                                                                \
    const int x = (int)(TVD_GID(0) * CAMBI_BLOCK_W + TVD_LID(0));                              \
    if (x >= (w)) return;                                                                      \
    for (int y = (int)(TVD_GID(1) * CAMBI_BLOCK_H + TVD_LID(1)); y < (h);                      \
         y += (int)(TVD_NGROUPS(1) * CAMBI_BLOCK_H))

/* Sets *flag when a 16-bit-stored sample of the w x h plane exceeds bpc bits. */
TVD_BODY(cambi_check, CambiCheckArgs, TvdNoLocals)
{
    const unsigned max = (1u << r->bpc) - 1;
    CAMBI_FOR_SAMPLES(r->w, r->h)
    {
        TVMAF_GLOBAL const uint16_t *row =
            (TVMAF_GLOBAL const uint16_t *)(r->src + (size_t)y * r->pitch);
        if (row[x] > max) TVD_ATOMIC_OR_U32(r->flag, 1u);
    }
}

/* The luma at ow x oh (sample ix[x] of row iy[y]) and 10 bits. */
TVD_BODY(cambi_load, CambiLoadArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->ow, r->oh)
    {
        TVMAF_GLOBAL const uint8_t *row = r->src + (size_t)r->iy[y] * r->pitch;
        const unsigned v =
            r->bpc <= 8 ? row[r->ix[x]] : ((TVMAF_GLOBAL const uint16_t *)row)[r->ix[x]];
        r->img[(size_t)y * r->stride + x] = cambi_to_10bit(v, r->bpc);
    }
}

TVD_BODY(cambi_dither, CambiDitherArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->w, r->h)
    r->out[(size_t)y * r->stride + x] = cambi_dither_sample(
        r->in, r->stride, (unsigned)r->w, (unsigned)r->h, (unsigned)x, (unsigned)y);
}

TVD_BODY(cambi_flat_kernel, CambiFlatArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->w, r->h)
    r->flat[(size_t)y * r->stride + x] = cambi_flat(r->img, r->stride, r->w, r->h, x, y);
}

TVD_BODY(cambi_mask_kernel, CambiMaskArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->w, r->h)
    r->mask[(size_t)y * r->stride + x] =
        cambi_mask_sample(r->flat, r->stride, r->w, r->h, x, y, r->threshold);
}

/* The decimation to w x h of image and mask, over the picture's gw x gh. */
TVD_BODY(cambi_decimate, CambiDecimateArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->gw, r->gh)
    {
        const size_t i = (size_t)y * r->stride + x;
        r->img_out[i] = cambi_decimate_sample16(r->img, r->stride, r->w, r->h, x, y);
        r->mask_out[i] = cambi_decimate_sample8(r->mask, r->stride, r->w, r->h, x, y);
    }
}

/* The mode filter of the w x h scale, over the picture's gw x gh. */
TVD_BODY(cambi_mode, CambiModeArgs, TvdNoLocals)
{
    CAMBI_FOR_SAMPLES(r->gw, r->gh)
    r->out[(size_t)y * r->stride + x] =
        cambi_mode_filter_sample(r->in, r->stride, r->w, r->h, x, y);
}

/* c-values of the w x h scale: column x of strip TVD_GID(1), its histogram
 * column in slab TVD_GID(1) of `hist` (band_size cells w apart); radius is
 * the window's half side (`half` names a type in OpenCL C). */
TVD_BODY(cambi_cvalues, CambiCvalArgs, TvdNoLocals)
{
    const int x = (int)(TVD_GID(0) * CAMBI_CVAL_THREADS + TVD_LID(0));
    if (x >= r->w) return;
    CambiBand band;
    band.base = (uint16_t)r->band_base;
    band.size = (uint16_t)r->band_size;
    cambi_cvalue_strip(r->img, r->mask, r->stride, r->w, r->h, r->radius, x,
                       (int)TVD_GID(1) * r->rows, r->rows, r->hist + r->slab * TVD_GID(1) + x,
                       r->w, band, r->num_diffs, r->limit, r->vlt_code, r->recip, r->cval);
}

/* The values of the pass that this work-item adds. */
#define CAMBI_TOPK_FOR(i, r)                                                                   \
    for (int i = (int)(TVD_GID(0) * CAMBI_TOPK_THREADS + TVD_LID(0)); i < (r)->n;              \
         i += (int)(TVD_NGROUPS(0) * CAMBI_TOPK_THREADS))

/* Value i's bin in the pass, -1 when its higher bits are not the prefix (or
 * it is 0: it adds nothing, and a T of 0 is what no bin reaching k means);
 * its units into *u, flagging a value that is not a whole number of them. */
TVD_FN int cambi_topk_value(const CambiTopkArgs_R *r, uint32_t prefix, int i, uint64_t *u)
{
    const float c = r->cval[i];
    if (c == 0.0f) return -1;
    const int b = cambi_topk_bin(TVD_FLOAT_AS_U32(c), r->pass, prefix);
    if (b >= 0 && !cambi_units(c, u) && r->pass == 0) TVD_ATOMIC_OR_U32(&r->st->bad, 1u);
    return b;
}

#if TVD_HAS_CUDA_CAPS
TVD_BODY(cambi_topk_hist, CambiTopkArgs, CambiBins)
{
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS) {
        loc->sc[b] = 0;
        loc->ss[b] = 0;
    }
    TVD_BARRIER();
    const uint32_t prefix = r->st->prefix;
    CAMBI_TOPK_FOR(i, r) {
        uint64_t u;
        const int b = cambi_topk_value(r, prefix, i, &u);
        if (b < 0) continue;
        TVD_ATOMIC_ADD_U32(&loc->sc[b], 1u);
        TVD_ATOMIC_ADD_U64(&loc->ss[b], u);
    }
    TVD_BARRIER();
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS)
        if (loc->sc[b]) {
            TVD_ATOMIC_ADD_U32(&r->count[b], loc->sc[b]);
            TVD_ATOMIC_ADD_U64(&r->sum[b], loc->ss[b]);
        }
}
#endif

/* v added to the 64-bit number (*hi << 32) + *lo by 32-bit atomics: each
 * wrap of the low word carries one into the high word, in any order. */
#define CAMBI_ADD_PAIR(lo, hi, v)                                                              \
    do {                                                                                       \
        const uint64_t v_ = (v);                                                               \
        const uint32_t l_ = (uint32_t)v_, o_ = TVD_ATOMIC_FETCH_ADD_U32(lo, l_);               \
        TVD_ATOMIC_ADD_U32(hi, (uint32_t)(v_ >> 32) + (uint32_t)(o_ + l_ < o_));               \
    } while (0)

TVD_BODY(cambi_topk_hist_pairs, CambiTopkArgs, CambiPairBins)
{
    TVMAF_GLOBAL uint32_t *sum = (TVMAF_GLOBAL uint32_t *)r->sum;
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS)
        loc->sc[b] = loc->lo[b] = loc->hi[b] = 0;
    TVD_BARRIER();
    const uint32_t prefix = r->st->prefix;
    CAMBI_TOPK_FOR(i, r) {
        uint64_t u;
        const int b = cambi_topk_value(r, prefix, i, &u);
        if (b < 0) continue;
        TVD_ATOMIC_ADD_U32(&loc->sc[b], 1u);
        CAMBI_ADD_PAIR(&loc->lo[b], &loc->hi[b], u);
    }
    TVD_BARRIER();
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_THREADS)
        if (loc->sc[b]) {
            TVD_ATOMIC_ADD_U32(&r->count[b], loc->sc[b]);
            CAMBI_ADD_PAIR(&sum[2 * b], &sum[2 * b + 1],
                           (uint64_t)loc->hi[b] << 32 | loc->lo[b]);
        }
}

/* The pass's bin joins the prefix (cambi_topk_scan): the group copies the
 * bins into local memory and clears them, then one work-item scans the copy
 * (a walk over global memory would wait on each load in turn). */
TVD_BODY(cambi_topk_scan_kernel, CambiScanArgs, CambiBins)
{
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_SCAN_THREADS) {
        loc->sc[b] = r->count[b];
        loc->ss[b] = r->sum[b];
        r->count[b] = 0;
        r->sum[b] = 0;
    }
    TVD_BARRIER();
    if (TVD_LID(0) == 0) cambi_topk_scan(r->st, loc->sc, loc->ss, r->pass, r->k);
}

TVD_BODY(cambi_topk_scan_pairs, CambiScanArgs, CambiBins)
{
    TVMAF_GLOBAL uint32_t *sum = (TVMAF_GLOBAL uint32_t *)r->sum;
    for (int b = (int)TVD_LID(0); b < CAMBI_TOPK_BINS; b += CAMBI_TOPK_SCAN_THREADS) {
        loc->sc[b] = r->count[b];
        loc->ss[b] = (uint64_t)sum[2 * b + 1] << 32 | sum[2 * b];
        r->count[b] = 0;
        sum[2 * b] = sum[2 * b + 1] = 0;
    }
    TVD_BARRIER();
    if (TVD_LID(0) == 0) cambi_topk_scan(r->st, loc->sc, loc->ss, r->pass, r->k);
}

#endif
#endif
