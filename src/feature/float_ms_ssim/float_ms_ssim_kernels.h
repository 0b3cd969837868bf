/*
 * float_ms_ssim twin, kernels (gpu/kernel.h): the CPU's pyramid and per-scale
 * SSIM windows computed one work-item per output, and each scale's running
 * sums of l, c and s added in the CPU's order, one work-item per sum
 * (float_ms_ssim_math.h, "The CUDA twin's decomposition"). Only the 15 sums
 * come back.
 */
#ifndef TVMAF_FLOAT_MS_SSIM_KERNELS_H
#define TVMAF_FLOAT_MS_SSIM_KERNELS_H

#include "gpu/kernel.h"
#include "feature/float_ms_ssim/float_ms_ssim_math.h"

/* both luma planes as floats (contiguous, w x h): img0 the reference */
#define MsLoadArgs_LIST(V, S)                                                                  \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(int, w) S(int, h)         \
    S(float, divisor) V(float, img0) V(float, img1)
TVD_ARGS(MsLoadArgs)
/* the next scale of both images */
#define MsDownArgs_LIST(V, S)                                                                  \
    V(const float, src0) V(const float, src1) S(int, w) S(int, h) V(const float, lpf)          \
    V(float, dst0) V(float, dst1) S(int, dw) S(int, dh)
TVD_ARGS(MsDownArgs)
/* the row pass of a scale's five images into 5 planes rows_n floats apart */
#define MsRowsArgs_LIST(V, S)                                                                  \
    V(const float, img0) V(const float, img1) S(int, w) S(int, h) V(const float, taps)         \
    V(float, rows) S(uint64_t, rows_n)
TVD_ARGS(MsRowsArgs)
/* the column pass and ssim_window of every window of a scale */
#define MsWinArgs_LIST(V, S)                                                                   \
    V(const float, rows) S(uint64_t, rows_n) S(int, ow) S(int, oh) V(const float, taps)        \
    V(SSIM_F64, l) V(SSIM_F64, c) V(float, s)
TVD_ARGS(MsWinArgs)
/* the 15 running sums; lay: where each scale's windows sit in l, c and s */
#define MsSumsArgs_LIST(V, S)                                                                  \
    V(const SSIM_F64, l) V(const SSIM_F64, c) V(const float, s) V(const MsSsimSumLayout, lay)  \
    V(SSIM_F64, sums)
TVD_ARGS(MsSumsArgs)

/* two tiles: one staged while the other is added */
#define MsSumsTile_LIST(X) X(SSIM_F64, tile, 2 * MS_SSIM_SUM_TILE)
TVD_LOCALS(MsSumsTile)

#define FLOAT_MS_SSIM_KERNELS(K, KC)                                                           \
    K(float_ms_ssim_load_8, MsLoadArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)            \
    K(float_ms_ssim_load_16, MsLoadArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)           \
    K(float_ms_ssim_down, MsDownArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)              \
    K(float_ms_ssim_rows, MsRowsArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)              \
    K(float_ms_ssim_windows, MsWinArgs, TvdNoLocals, SSIM_BLOCK_W, SSIM_BLOCK_H, 0)            \
    K(float_ms_ssim_sums, MsSumsArgs, MsSumsTile, MS_SSIM_SUM_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* x and the rows y of this work-item over a w x h grid (the grid's y strides). */
#define MS_SSIM_FOR_SAMPLES(w, h) TVD_FOR_SAMPLES(w, h, SSIM_BLOCK_W, SSIM_BLOCK_H)

TVD_BODY(float_ms_ssim_load_8, MsLoadArgs, TvdNoLocals)
{
    (void)loc;
    MS_SSIM_FOR_SAMPLES(r->w, r->h)
    {
        r->img0[(size_t)y * r->w + x] = ssim_sample_8(r->ref[(size_t)y * r->pitch + x]);
        r->img1[(size_t)y * r->w + x] = ssim_sample_8(r->dis[(size_t)y * r->pitch + x]);
    }
}

TVD_BODY(float_ms_ssim_load_16, MsLoadArgs, TvdNoLocals)
{
    (void)loc;
    MS_SSIM_FOR_SAMPLES(r->w, r->h)
    {
        r->img0[(size_t)y * r->w + x] = ssim_sample_hbd(
            ((TVMAF_GLOBAL const uint16_t *)(r->ref + (size_t)y * r->pitch))[x], r->divisor);
        r->img1[(size_t)y * r->w + x] = ssim_sample_hbd(
            ((TVMAF_GLOBAL const uint16_t *)(r->dis + (size_t)y * r->pitch))[x], r->divisor);
    }
}

/* dst(x, y) = ssim_filter_at at (2 x, 2 y) with the low-pass */
TVD_BODY(float_ms_ssim_down, MsDownArgs, TvdNoLocals)
{
    (void)loc;
    MS_SSIM_FOR_SAMPLES(r->dw, r->dh)
    {
        const int cx = x * MS_SSIM_DOWN, cy = y * MS_SSIM_DOWN;
        r->dst0[(size_t)y * r->dw + x] = ssim_filter_at(r->src0, r->w, r->h, cx, cy, r->lpf,
                                                        MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN);
        r->dst1[(size_t)y * r->dw + x] = ssim_filter_at(r->src1, r->w, r->h, cx, cy, r->lpf,
                                                        MS_SSIM_LPF_LEN, MS_SSIM_LPF_LEN);
    }
}

/* rows: 5 planes of ow x h, ow = w - 10 */
TVD_BODY(float_ms_ssim_rows, MsRowsArgs, TvdNoLocals)
{
    (void)loc;
    const int ow = r->w - SSIM_WIN + 1;
    MS_SSIM_FOR_SAMPLES(ow, r->h)
    {
        float out[5];
        ms_ssim_rows_at(r->img0 + (size_t)y * r->w + x, r->img1 + (size_t)y * r->w + x, r->taps,
                        out);
        for (int q = 0; q < 5; q++) r->rows[q * r->rows_n + (size_t)y * ow + x] = out[q];
    }
}

TVD_BODY(float_ms_ssim_windows, MsWinArgs, TvdNoLocals)
{
    (void)loc;
    const SsimConsts k = ssim_consts();
    MS_SSIM_FOR_SAMPLES(r->ow, r->oh)
    {
        const SsimLcs o =
            ms_ssim_window_at(r->rows + (size_t)y * r->ow + x, r->rows_n, r->ow, r->taps, k);
        const size_t i = (size_t)y * r->ow + x;
        r->l[i] = o.l;
        r->c[i] = o.c;
        r->s[i] = (float)o.s;
    }
}

/* Group b = scale * 3 + term adds that scale's l (term 0), c (1) or s (2,
 * each float widened) over its windows in raster order into sums[b]. Tile
 * t + 1 is staged by the work-items past the first warp while work-item 0
 * adds tile t; the barrier ends both. */
TVD_BODY(float_ms_ssim_sums, MsSumsArgs, MsSumsTile)
{
    const int tid = (int)TVD_LID(0), b = (int)TVD_GID(0);
    const int scale = b / MS_SSIM_TERMS, term = b % MS_SSIM_TERMS;
    const size_t off = (size_t)r->lay->off[scale];
    const int n = r->lay->n[scale];
    TVMAF_GLOBAL const SSIM_F64 *vd = (term == 0 ? r->l : r->c) + off;
    TVMAF_GLOBAL const float *vf = r->s + off;
    const int n_tiles = (n + MS_SSIM_SUM_TILE - 1) / MS_SSIM_SUM_TILE;

    /* tile 0, by every work-item */
    for (int i = tid; i < MS_SSIM_SUM_TILE && i < n; i += MS_SSIM_SUM_THREADS)
        loc->tile[i] = term == 2 ? MS_SSIM_WIDEN(vf[i]) : vd[i];
    TVD_BARRIER();
    SSIM_F64 acc = 0; /* +0.0, also as a bit pattern */
    for (int t = 0; t < n_tiles; t++) {
        const int base = t * MS_SSIM_SUM_TILE;
        if (tid >= 32) {
            const int next = base + MS_SSIM_SUM_TILE;
            TVMAF_LOCAL SSIM_F64 *dst = loc->tile + ((t + 1) & 1) * MS_SSIM_SUM_TILE;
            for (int i = tid - 32; i < MS_SSIM_SUM_TILE && next + i < n;
                 i += MS_SSIM_SUM_THREADS - 32)
                dst[i] = term == 2 ? MS_SSIM_WIDEN(vf[next + i]) : vd[next + i];
        } else if (tid == 0) {
            const int m = n - base < MS_SSIM_SUM_TILE ? n - base : MS_SSIM_SUM_TILE;
            acc = ms_ssim_sum_run(acc, loc->tile + (t & 1) * MS_SSIM_SUM_TILE, m);
        }
        TVD_BARRIER();
    }
    if (tid == 0) r->sums[b] = acc;
}

#endif
#endif
