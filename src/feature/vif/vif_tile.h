/*
 * vif: the CUDA twin's decomposition of one scale, written once for the
 * kernels (vif.cu) and for their host replay (tests/replay/vif_replay.c), which
 * runs these very functions thread by thread, phase by phase.
 *
 * One launch per scale s (w x h samples, filter half R = 8 >> s). A block of
 * VIF_THREADS threads takes a tile of VIF_TILE_W x VIF_TILE_H output pixels
 * with origin (x0, y0) = (bx VIF_TILE_W, by VIF_TILE_H), and in shared memory:
 *   1. load:    the tile's samples and R more on every side (mirrored at the
 *               scale's edges; slots past row h + R - 1 or column w + R - 1
 *               feed no output and are left unwritten);   -- barrier --
 *   2. stat_v:  the statistic's vertical pass (means and moments, shifted
 *               as vif_stat_*_shift say) at every tile row and every loaded
 *               column;
 *   3. down_v:  (s < 3) the vertical pass of scale s + 1's low-pass at the
 *               tile's even rows and the columns its even outputs need;
 *                                                          -- barrier --
 *   4. stat_h:  the statistic's horizontal pass and vif_pixel() for each
 *               pixel of the tile, into the thread's own VifSums;
 *   5. down_h:  (s < 3) the horizontal pass at the tile's even columns: the
 *               samples of scale s + 1 at (y0/2 + i, x0/2 + j), written to
 *               global memory (a 16-bit image the next launch reads).
 * Then the block adds its threads' VifSums (integers: any grouping is exact)
 * and adds the four totals atomically into scale s's VifSums in global
 * memory, which the host reads back after the last scale. A tile is whole
 * even rows and columns (VIF_TILE_W, VIF_TILE_H even), so every sample of
 * scale s + 1 comes from exactly one tile.
 *
 * In a phase, thread t takes items t, t + VIF_THREADS, ... of a row-major
 * list; an item writes one slot and reads only what an earlier phase wrote.
 */
#ifndef TVMAF_VIF_TILE_H
#define TVMAF_VIF_TILE_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#endif

#include "feature/vif/vif_math.h"

#define VIF_TILE_W 64
#define VIF_TILE_H 16
#define VIF_THREADS 256
/* The device's decimated planes of scales 1..3: rows start on this many bytes
 * (16-bit samples, VIF_ROW_BYTES(w) bytes per row). */
#define VIF_ROW_ALIGN 256
#define VIF_ROW_BYTES(w) ((((size_t)(w) * sizeof(uint16_t)) + VIF_ROW_ALIGN - 1) & \
                          ~(size_t)(VIF_ROW_ALIGN - 1))

/* half the filter of scale s (17, 9, 5, 3 taps); 0 past the last scale */
#define VIF_HALF(s) (8u >> (s))
/* input tile of scale s: rows and row length */
#define VIF_IN_H(s) (VIF_TILE_H + 2 * VIF_HALF(s))
#define VIF_IN_W(s) (VIF_TILE_W + 2 * VIF_HALF(s))
/* vertical pass of the low-pass of scale s (into s + 1): row length; the
 * tile has VIF_TILE_H / 2 such rows */
#define VIF_DV_W(s) (VIF_TILE_W + 2 * VIF_HALF((s) + 1))

/* A launch's grid at a scale of w x h samples. */
#define VIF_GRID_X(w) (((w) + VIF_TILE_W - 1) / VIF_TILE_W)
#define VIF_GRID_Y(h) (((h) + VIF_TILE_H - 1) / VIF_TILE_H)

/* What a block works on. */
typedef struct VifTile {
    unsigned scale, bpc;
    int is8;                /* 8-bit samples (scale 0 of 8-bit input only) */
    unsigned w, h;          /* this scale's size */
    int x0, y0;             /* the tile's first output column and row */
    TVMAF_GLOBAL const uint16_t *taps;   /* filter of this scale */
    TVMAF_GLOBAL const uint16_t *taps_n; /* filter of the next scale (s < 3) */
} VifTile;

/* A block's shared memory (sizes for the tile's scale, see the macros). */
typedef struct VifTileMem {
    TVMAF_LOCAL uint16_t *in_r, *in_d; /* VIF_IN_H x VIF_IN_W samples */
    TVMAF_LOCAL uint16_t *mu1, *mu2;   /* VIF_TILE_H x VIF_IN_W: statistic, vertical pass */
    TVMAF_LOCAL uint32_t *xx, *yy, *xy;
    TVMAF_LOCAL uint16_t *dv_r, *dv_d; /* VIF_TILE_H / 2 x VIF_DV_W: low-pass, vertical pass */
} VifTileMem;

/* Where slot `it` of the input tile reads: *row, the byte offset of its
 * mirrored row, and *col, its mirrored column. 0 for a slot past the mirrored
 * margin of a frame edge (never read). */
TVMAF_HD int vif_tile_src(const VifTile *tl, int rad, unsigned in_w, unsigned it, size_t pitch,
                          size_t *row, int *col)
{
    const int y = tl->y0 - rad + (int)(it / in_w);
    const int x = tl->x0 - rad + (int)(it % in_w);
    if (y >= (int)tl->h + rad || x >= (int)tl->w + rad) return 0;
    *row = (size_t)mirror_skip_edge(y, (int)tl->h) * pitch;
    *col = mirror_skip_edge(x, (int)tl->w);
    return 1;
}

/* 1. The input tile of one plane of w x h samples, `pitch` bytes per row. */
TVMAF_HD void vif_tile_load1(unsigned t, const VifTile *tl, TVMAF_GLOBAL const unsigned char *src,
                             size_t pitch, TVMAF_LOCAL uint16_t *in)
{
    const int rad = (int)VIF_HALF(tl->scale);
    const unsigned in_w = VIF_TILE_W + 2 * (unsigned)rad;
    const unsigned n = (VIF_TILE_H + 2 * (unsigned)rad) * in_w;
    for (unsigned it = t; it < n; it += VIF_THREADS) {
        size_t row;
        int col;
        if (!vif_tile_src(tl, rad, in_w, it, pitch, &row, &col)) continue;
        in[it] = tl->is8 ? src[row + (size_t)col]
                         : ((TVMAF_GLOBAL const uint16_t *)(src + row))[col];
    }
}

/* ... of both, in one pass over the slots: the one-pass kernel's load (two
 * calls of vif_tile_load1 gave 0.96x on a 4K pair's wall on the H200, 5 runs whose
 * ranges overlap, so it was not taken;
 * each slot's mirrored address is worked out once for both planes here) */
TVMAF_HD void vif_tile_load(unsigned t, const VifTile *tl, TVMAF_GLOBAL const unsigned char *ref,
                            TVMAF_GLOBAL const unsigned char *dis, size_t pitch,
                            const VifTileMem *m)
{
    const int rad = (int)VIF_HALF(tl->scale);
    const unsigned in_w = VIF_TILE_W + 2 * (unsigned)rad;
    const unsigned n = (VIF_TILE_H + 2 * (unsigned)rad) * in_w;
    for (unsigned it = t; it < n; it += VIF_THREADS) {
        size_t row;
        int col;
        if (!vif_tile_src(tl, rad, in_w, it, pitch, &row, &col)) continue;
        if (tl->is8) {
            m->in_r[it] = ref[row + (size_t)col];
            m->in_d[it] = dis[row + (size_t)col];
        } else {
            m->in_r[it] = ((TVMAF_GLOBAL const uint16_t *)(ref + row))[col];
            m->in_d[it] = ((TVMAF_GLOBAL const uint16_t *)(dis + row))[col];
        }
    }
}

/* 2. Vertical pass of the statistic. */
TVMAF_HD void vif_tile_stat_v(unsigned t, const VifTile *tl, const VifTileMem *m)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    const unsigned mu_shift = vif_stat_mu_shift(tl->scale, tl->bpc);
    const unsigned sq_shift = vif_stat_sq_shift(tl->scale, tl->bpc);
    for (unsigned it = t; it < VIF_TILE_H * in_w; it += VIF_THREADS) {
        const unsigned r = it / in_w, c = it % in_w;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)(tl->w + 2 * rad))
            continue;
        /* the taps of output row r read tile rows r .. r + 2 half (every sum
         * before any store, so the compiler reads each sample once) */
        TVMAF_LOCAL const uint16_t *x = m->in_r + it, *y = m->in_d + it;
        const uint32_t mu1 = vif_filter_16(x, (int)in_w, tl->taps, fw);
        const uint32_t mu2 = vif_filter_16(y, (int)in_w, tl->taps, fw);
        uint32_t xx, yy, xy;
        if (tl->is8) { /* the moments' sums fit 32 bits */
            uint32_t sxx, syy, sxy;
            vif_moments_8(x, y, (int)in_w, tl->taps, fw, &sxx, &syy, &sxy);
            xx = vif_round_shift32(sxx, sq_shift);
            yy = vif_round_shift32(syy, sq_shift);
            xy = vif_round_shift32(sxy, sq_shift);
        } else {
            uint64_t sxx, syy, sxy;
            vif_moments_16(x, y, (int)in_w, tl->taps, fw, &sxx, &syy, &sxy);
            xx = vif_round_shift64(sxx, sq_shift);
            yy = vif_round_shift64(syy, sq_shift);
            xy = vif_round_shift64(sxy, sq_shift);
        }
        m->mu1[it] = (uint16_t)vif_round_shift32(mu1, mu_shift);
        m->mu2[it] = (uint16_t)vif_round_shift32(mu2, mu_shift);
        m->xx[it] = xx;
        m->yy[it] = yy;
        m->xy[it] = xy;
    }
}

/* 3. Vertical pass of the low-pass into the next scale, at the tile's even
 * rows (scale < 3), of one loaded plane `in` into `dv`. */
TVMAF_HD void vif_tile_down_v1(unsigned t, const VifTile *tl, TVMAF_LOCAL const uint16_t *in,
                               TVMAF_LOCAL uint16_t *dv)
{
    const unsigned rad = VIF_HALF(tl->scale), rad_n = VIF_HALF(tl->scale + 1);
    const unsigned fw = 2 * rad_n + 1, in_w = VIF_TILE_W + 2 * rad;
    const unsigned dv_w = VIF_TILE_W + 2 * rad_n;
    const unsigned shift = vif_down_shift(tl->scale, tl->bpc);
    const int h2 = (int)(tl->h / 2);
    for (unsigned it = t; it < VIF_TILE_H / 2 * dv_w; it += VIF_THREADS) {
        const unsigned rr = it / dv_w, c = it % dv_w;
        if (tl->y0 / 2 + (int)rr >= h2 || tl->x0 + (int)c >= (int)(tl->w + 2 * rad_n))
            continue;
        /* source row y0 + 2 rr, taps from half_n rows above; column x0 - half_n + c */
        const unsigned s = (2 * rr + rad - rad_n) * in_w + c + rad - rad_n;
        dv[it] = (uint16_t)vif_round_shift32(vif_filter_16(in + s, (int)in_w, tl->taps_n, fw),
                                             shift);
    }
}

/* ... of both planes */
TVMAF_HD void vif_tile_down_v(unsigned t, const VifTile *tl, const VifTileMem *m)
{
    vif_tile_down_v1(t, tl, m->in_r, m->dv_r);
    vif_tile_down_v1(t, tl, m->in_d, m->dv_d);
}

/* 4. Horizontal pass of the statistic and the per-pixel terms, added into *acc. */
TVMAF_HD void vif_tile_stat_h(unsigned t, const VifTile *tl, const VifTileMem *m,
                              TVMAF_GLOBAL const uint16_t *log2_table, VifF64 gain_limit,
                              VifSums *acc)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    for (unsigned it = t; it < VIF_TILE_H * VIF_TILE_W; it += VIF_THREADS) {
        const unsigned r = it / VIF_TILE_W, c = it % VIF_TILE_W;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)tl->w) continue;
        /* output column c reads vertical-pass columns c .. c + 2 half */
        const unsigned v = r * in_w + c;
        vif_pixel(acc, vif_filter_16(m->mu1 + v, 1, tl->taps, fw),
                  vif_filter_16(m->mu2 + v, 1, tl->taps, fw),
                  vif_filter_32(m->xx + v, 1, tl->taps, fw),
                  vif_filter_32(m->yy + v, 1, tl->taps, fw),
                  vif_filter_32(m->xy + v, 1, tl->taps, fw), log2_table, gain_limit);
    }
}

/* 5. Horizontal pass of the low-pass at the tile's even columns: samples of
 * the next scale, from `dv` into `out` (16-bit, out_pitch bytes per row). */
TVMAF_HD void vif_tile_down_h1(unsigned t, const VifTile *tl, TVMAF_LOCAL const uint16_t *dv,
                               TVMAF_GLOBAL unsigned char *out, size_t out_pitch)
{
    const unsigned rad_n = VIF_HALF(tl->scale + 1), fw = 2 * rad_n + 1;
    const unsigned dv_w = VIF_TILE_W + 2 * rad_n;
    const int h2 = (int)(tl->h / 2), w2 = (int)(tl->w / 2);
    for (unsigned it = t; it < VIF_TILE_H / 2 * (VIF_TILE_W / 2); it += VIF_THREADS) {
        const unsigned rr = it / (VIF_TILE_W / 2), cc = it % (VIF_TILE_W / 2);
        const int oi = tl->y0 / 2 + (int)rr, oj = tl->x0 / 2 + (int)cc;
        if (oi >= h2 || oj >= w2) continue;
        /* output column 2 cc reads low-pass columns 2 cc .. 2 cc + 2 half_n */
        const unsigned v = rr * dv_w + 2 * cc;
        ((TVMAF_GLOBAL uint16_t *)(out + (size_t)oi * out_pitch))[oj] =
            vif_down_sample(vif_filter_16(dv + v, 1, tl->taps_n, fw));
    }
}

/* ... of both planes, into out_r and out_d */
TVMAF_HD void vif_tile_down_h(unsigned t, const VifTile *tl, const VifTileMem *m,
                              TVMAF_GLOBAL unsigned char *out_r,
                              TVMAF_GLOBAL unsigned char *out_d, size_t out_pitch)
{
    vif_tile_down_h1(t, tl, m->dv_r, out_r, out_pitch);
    vif_tile_down_h1(t, tl, m->dv_d, out_d, out_pitch);
}

/*
 * The ladder's two passes. When several distorted inputs share one reference
 * (the CUDA twin with a ladder's reference cache), each scale runs as
 *   a reference pass, once per reference picture: the same tile and phases
 *     over the reference alone. It writes the reference's plane of scale
 *     s + 1, and for each pixel of scale s its horizontal-pass mean mu1 and
 *     its variance sigma1_sq (vif_pixel_ref, which also adds the den terms)
 *     into VifRefTerms: planes of w x h values, row after row;
 *   a pair pass, once per distorted input: both planes of scale s are loaded
 *     (the cross moment needs the reference's samples), the statistic's
 *     passes compute mu2, yy and xy only, the low-pass makes the distorted
 *     plane of scale s + 1 only, and vif_pixel_pair takes mu1 and sigma1_sq
 *     from the reference pass and adds the num terms.
 * The integers are those of the phases above (the same filters of the same
 * samples; the sums take the same terms, split between two VifSums), so the
 * two passes give the one-pass sums exactly.
 */
typedef struct VifRefTerms {
    TVMAF_GLOBAL uint32_t *mu1;
    TVMAF_GLOBAL int32_t *sigma1_sq;
} VifRefTerms;

/* The second moment of the vertical pass at one slot, shifted as the
 * statistic's (8-bit samples: the 32-bit sum). */
TVMAF_HD uint32_t vif_tile_moment_v(const VifTile *tl, TVMAF_LOCAL const uint16_t *x,
                                    TVMAF_LOCAL const uint16_t *y, unsigned in_w)
{
    const unsigned fw = 2 * VIF_HALF(tl->scale) + 1;
    const unsigned sq_shift = vif_stat_sq_shift(tl->scale, tl->bpc);
    if (tl->is8) return vif_round_shift32(vif_moment_8(x, y, (int)in_w, tl->taps, fw), sq_shift);
    return vif_round_shift64(vif_moment_16(x, y, (int)in_w, tl->taps, fw), sq_shift);
}

/* 2. (reference pass) vertical pass of mu1 and xx */
TVMAF_HD void vif_tile_stat_v_ref(unsigned t, const VifTile *tl, const VifTileMem *m)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    const unsigned mu_shift = vif_stat_mu_shift(tl->scale, tl->bpc);
    for (unsigned it = t; it < VIF_TILE_H * in_w; it += VIF_THREADS) {
        const unsigned r = it / in_w, c = it % in_w;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)(tl->w + 2 * rad))
            continue;
        TVMAF_LOCAL const uint16_t *x = m->in_r + it;
        m->mu1[it] = (uint16_t)vif_round_shift32(vif_filter_16(x, (int)in_w, tl->taps, fw),
                                                 mu_shift);
        m->xx[it] = vif_tile_moment_v(tl, x, x, in_w);
    }
}

/* 4. (reference pass) horizontal pass of mu1 and xx: the pixel's reference
 * terms, written to `out`, and its den terms, added into *acc */
TVMAF_HD void vif_tile_stat_h_ref(unsigned t, const VifTile *tl, const VifTileMem *m,
                                  TVMAF_GLOBAL const uint16_t *log2_table, const VifRefTerms *out,
                                  VifSums *acc)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    for (unsigned it = t; it < VIF_TILE_H * VIF_TILE_W; it += VIF_THREADS) {
        const unsigned r = it / VIF_TILE_W, c = it % VIF_TILE_W;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)tl->w) continue;
        const unsigned v = r * in_w + c;
        const uint32_t mu1 = vif_filter_16(m->mu1 + v, 1, tl->taps, fw);
        const size_t o = (size_t)(tl->y0 + (int)r) * tl->w + (size_t)(tl->x0 + (int)c);
        out->mu1[o] = mu1;
        out->sigma1_sq[o] = vif_pixel_ref(acc, mu1, vif_filter_32(m->xx + v, 1, tl->taps, fw),
                                          log2_table);
    }
}

/* 2. (pair pass) vertical pass of mu2, yy and xy */
TVMAF_HD void vif_tile_stat_v_pair(unsigned t, const VifTile *tl, const VifTileMem *m)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    const unsigned mu_shift = vif_stat_mu_shift(tl->scale, tl->bpc);
    for (unsigned it = t; it < VIF_TILE_H * in_w; it += VIF_THREADS) {
        const unsigned r = it / in_w, c = it % in_w;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)(tl->w + 2 * rad))
            continue;
        TVMAF_LOCAL const uint16_t *x = m->in_r + it, *y = m->in_d + it;
        m->mu2[it] = (uint16_t)vif_round_shift32(vif_filter_16(y, (int)in_w, tl->taps, fw),
                                                 mu_shift);
        m->yy[it] = vif_tile_moment_v(tl, y, y, in_w);
        m->xy[it] = vif_tile_moment_v(tl, x, y, in_w);
    }
}

/* 4. (pair pass) horizontal pass of mu2, yy and xy, with the reference pass's
 * terms: the pixel's num terms, added into *acc */
TVMAF_HD void vif_tile_stat_h_pair(unsigned t, const VifTile *tl, const VifTileMem *m,
                                   const VifRefTerms *in, TVMAF_GLOBAL const uint16_t *log2_table,
                                   VifF64 gain_limit, VifSums *acc)
{
    const unsigned rad = VIF_HALF(tl->scale), fw = 2 * rad + 1;
    const unsigned in_w = VIF_TILE_W + 2 * rad;
    for (unsigned it = t; it < VIF_TILE_H * VIF_TILE_W; it += VIF_THREADS) {
        const unsigned r = it / VIF_TILE_W, c = it % VIF_TILE_W;
        if (tl->y0 + (int)r >= (int)tl->h || tl->x0 + (int)c >= (int)tl->w) continue;
        const unsigned v = r * in_w + c;
        const size_t o = (size_t)(tl->y0 + (int)r) * tl->w + (size_t)(tl->x0 + (int)c);
        vif_pixel_pair(acc, in->sigma1_sq[o], in->mu1[o],
                       vif_filter_16(m->mu2 + v, 1, tl->taps, fw),
                       vif_filter_32(m->yy + v, 1, tl->taps, fw),
                       vif_filter_32(m->xy + v, 1, tl->taps, fw), log2_table, gain_limit);
    }
}

#endif
