/*
 * motion (integer): the arithmetic, written once for the CPU extractor and
 * the CUDA and OpenCL twins.
 *
 * The per-frame value is a sum of absolute differences of two blurred luma
 * planes, but the reference does not blur each plane: it blurs the sample
 * DIFFERENCE prev - cur, with a rounding shift between the vertical and the
 * horizontal pass. That intermediate rounding makes blur(prev) - blur(cur)
 * differ from blur(prev - cur), so no blurred plane can be kept from one frame
 * to the next; what is kept is the previous raw luma plane.
 *
 * Filter: the 5 taps below (sum 65536 = 2^16), both directions, edges mirrored
 * without repeating the edge sample (-1 -> 1, n -> n - 2).
 *
 * Vertical pass, one output per sample (i, j), "y":
 *   8 bits:    int32 sum of tap * (prev - cur), then (sum + 2^7) >> 8
 *   9..16 bits: int64 sum of tap * (prev - cur), then (sum + 2^(bpc-1)) >> bpc
 * so y is on the scale of an 8-bit difference times 256 whatever the depth
 * (|y| <= 65535, fits int32).
 * Horizontal pass, every depth: int64 sum of tap * y, then (sum + 2^15) >> 16
 * as int32; its absolute value is added into a uint32 per row (wrapping
 * modulo 2^32 as the reference's would, only possible beyond 65537 columns),
 * and the rows into a uint64. Shifts of negative sums are arithmetic (what
 * the reference's compilers do). All of it is integer, so any grouping of the
 * sums (per row, per block, per thread) gives the same total, provided a row's
 * partial sums are combined modulo 2^32 before the row joins the total.
 *
 * Floating part (host and device alike, plain double arithmetic, no libm):
 *   sad score = min(sad / 256. / (unsigned)(w * h) * fps_weight, max_val)
 *   blend(s)  = s * factor + (1 - factor) * min(offset, s)
 */
#ifndef TVMAF_MOTION_MATH_H
#define TVMAF_MOTION_MATH_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/mirror.h"

/* The taps, symmetric: outer, inner, centre, inner, outer. */
#define MOTION_TAP_OUTER 3571
#define MOTION_TAP_INNER 16004
#define MOTION_TAP_CENTRE 26386
/* Samples on either side of the centre tap. */
#define MOTION_RADIUS 2
/* Smallest plane side the mirrored edges stay inside of. */
#define MOTION_MIN_SIDE 3

/* The five rows the vertical pass of row i reads, mirrored at the edges
 * without repeating the edge sample (at most MOTION_RADIUS outside, so
 * inside [0, h) from MOTION_MIN_SIDE on); rows[k] is the row of tap k
 * (k = 0 is i - 2). */
TVMAF_HD void motion_tap_rows(int i, int h, int rows[5])
{
    for (int k = 0; k < 5; k++) rows[k] = mirror_skip_edge(i - MOTION_RADIUS + k, h);
}

/* Vertical pass of one sample, 8 bits: d[k] = prev - cur at tap k's row. */
TVMAF_HD int32_t motion_v_8(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4)
{
    const int32_t sum = MOTION_TAP_OUTER * d0 + MOTION_TAP_INNER * d1 +
                        MOTION_TAP_CENTRE * d2 + MOTION_TAP_INNER * d3 +
                        MOTION_TAP_OUTER * d4;
    return (sum + (1 << 7)) >> 8;
}

/* Vertical pass of one sample, 9..16 bits. */
TVMAF_HD int32_t motion_v_16(int32_t d0, int32_t d1, int32_t d2, int32_t d3, int32_t d4,
                             unsigned bpc)
{
    const int64_t sum = (int64_t)MOTION_TAP_OUTER * d0 + (int64_t)MOTION_TAP_INNER * d1 +
                        (int64_t)MOTION_TAP_CENTRE * d2 + (int64_t)MOTION_TAP_INNER * d3 +
                        (int64_t)MOTION_TAP_OUTER * d4;
    return (int32_t)((sum + (int32_t)(1 << (bpc - 1))) >> bpc);
}

/* Horizontal pass of one sample from the five vertical outputs around it;
 * returns the absolute value the row adds. */
TVMAF_HD uint32_t motion_h_abs(int32_t y0, int32_t y1, int32_t y2, int32_t y3, int32_t y4)
{
    const int64_t sum = (int64_t)MOTION_TAP_OUTER * y0 + (int64_t)MOTION_TAP_INNER * y1 +
                        (int64_t)MOTION_TAP_CENTRE * y2 + (int64_t)MOTION_TAP_INNER * y3 +
                        (int64_t)MOTION_TAP_OUTER * y4;
    const int32_t v = (int32_t)((sum + (1 << 15)) >> 16);
    return (uint32_t)(v < 0 ? -v : v);
}

/* Vertical pass at column j, 8 bits: p[k], c[k] are the previous and current
 * rows of tap k (see motion_tap_rows). */
TVMAF_HD int32_t motion_v_col_8(TVMAF_GLOBAL const uint8_t *const p[5],
                                TVMAF_GLOBAL const uint8_t *const c[5], unsigned j)
{
    return motion_v_8((int32_t)p[0][j] - c[0][j], (int32_t)p[1][j] - c[1][j],
                      (int32_t)p[2][j] - c[2][j], (int32_t)p[3][j] - c[3][j],
                      (int32_t)p[4][j] - c[4][j]);
}

/* Vertical pass at column j, 9..16 bits. */
TVMAF_HD int32_t motion_v_col_16(TVMAF_GLOBAL const uint16_t *const p[5],
                                 TVMAF_GLOBAL const uint16_t *const c[5], unsigned j,
                                 unsigned bpc)
{
    return motion_v_16((int32_t)p[0][j] - c[0][j], (int32_t)p[1][j] - c[1][j],
                       (int32_t)p[2][j] - c[2][j], (int32_t)p[3][j] - c[3][j],
                       (int32_t)p[4][j] - c[4][j], bpc);
}

/* Vertical pass of row i, 8 bits: p[k], c[k] are the previous and current
 * rows of tap k (see motion_tap_rows). Writes y[0..w) and returns the OR of
 * them: 0 means the row adds nothing and its horizontal pass can be skipped. */
TVMAF_HD int32_t motion_vrow_8(TVMAF_GLOBAL const uint8_t *const p[5],
                               TVMAF_GLOBAL const uint8_t *const c[5], int32_t *y, unsigned w)
{
    int32_t any = 0;
    for (unsigned j = 0; j < w; j++) {
        y[j] = motion_v_col_8(p, c, j);
        any |= y[j];
    }
    return any;
}

/* Vertical pass of row i, 9..16 bits; returns as motion_vrow_8. */
TVMAF_HD int32_t motion_vrow_16(TVMAF_GLOBAL const uint16_t *const p[5],
                                TVMAF_GLOBAL const uint16_t *const c[5], int32_t *y, unsigned w,
                                unsigned bpc)
{
    int32_t any = 0;
    for (unsigned j = 0; j < w; j++) {
        y[j] = motion_v_col_16(p, c, j, bpc);
        any |= y[j];
    }
    return any;
}

/* Horizontal pass at column j of a vertical-pass row y of width w, with the
 * edge columns mirrored. */
TVMAF_HD uint32_t motion_h_abs_at(const int32_t *y, int j, int w)
{
    return motion_h_abs(y[mirror_skip_edge(j - 2, w)], y[mirror_skip_edge(j - 1, w)], y[j],
                        y[mirror_skip_edge(j + 1, w)], y[mirror_skip_edge(j + 2, w)]);
}

/* Horizontal pass and absolute sum of one vertical-pass row (w >= 3); the
 * uint32 wraps as the reference's row sum does. */
/* Columns [0, head) and [tail, w) of a row mirror at the edges; the ones
 * between read their neighbours directly (w >= 3). */
TVMAF_HD void motion_hrow_bounds(unsigned w, unsigned *head, unsigned *tail)
{
    *head = w < MOTION_RADIUS ? w : MOTION_RADIUS;
    *tail = w - MOTION_RADIUS > *head ? w - MOTION_RADIUS : *head;
}

/* The horizontal pass's absolute values of columns [from, to), summed modulo
 * 2^32; a vector level sums the interior columns it takes itself and these
 * for the rest. */
TVMAF_HD uint32_t motion_hrow_sad_cols(const int32_t *y, unsigned w, unsigned from,
                                       unsigned to)
{
    unsigned head, tail;
    motion_hrow_bounds(w, &head, &tail);
    uint32_t sad = 0;
    for (unsigned j = from; j < to && j < head; j++) sad += motion_h_abs_at(y, (int)j, (int)w);
    for (unsigned j = from > head ? from : head; j < to && j < tail; j++)
        sad += motion_h_abs(y[j - 2], y[j - 1], y[j], y[j + 1], y[j + 2]);
    for (unsigned j = from > tail ? from : tail; j < to; j++)
        sad += motion_h_abs_at(y, (int)j, (int)w);
    return sad;
}

TVMAF_HD uint32_t motion_hrow_sad(const int32_t *y, unsigned w)
{
    return motion_hrow_sad_cols(y, w, 0, w);
}

/* The CUDA twin's decomposition (motion.cu; replayed by
 * tests/replay/motion_replay.c): a grid of MOTION_GRID_X(w) x MOTION_GRID_Y(h)
 * blocks of MOTION_TILE threads; block (bx, by) takes columns bx MOTION_TILE ..
 * + MOTION_TILE - 1 of rows by, by + MOTION_GRID_Y(h), ...; per row it runs
 * the vertical pass over those columns and MOTION_RADIUS mirrored columns on
 * either side (MOTION_TILE_SLOTS slots of shared memory), then one horizontal
 * output per thread, and adds its uint32 sum into the row's uint32 (so a row
 * wraps modulo 2^32 as motion_hrow_sad does). The OpenCL twin (motion.cl)
 * runs the same grid as work-groups of MOTION_TILE work-items, folds a tile's
 * values in local memory (uint32, so modulo 2^32 as well) and adds it into
 * the row's uint32 with atomic_add. */
#define MOTION_TILE 256
#define MOTION_TILE_SLOTS (MOTION_TILE + 2 * MOTION_RADIUS)
/* CUDA's limit on a grid's y dimension: past it, blocks stride over rows */
#define MOTION_GRID_Y_MAX 65535u
#define MOTION_GRID_X(w) (((w) + MOTION_TILE - 1) / MOTION_TILE)
#define MOTION_GRID_Y(h) ((h) < MOTION_GRID_Y_MAX ? (h) : MOTION_GRID_Y_MAX)

/* The frame's SAD from the per-row sums. */
TVMAF_HD uint64_t motion_sum_rows(const uint32_t *row_sad, unsigned h)
{
    uint64_t sad = 0;
    for (unsigned i = 0; i < h; i++) sad += row_sad[i];
    return sad;
}

/* The double helpers below are host arithmetic the kernels do not need: not
 * in the fp64-free OpenCL program. */
#if !defined(TVMAF_FP64_FREE)
/* The per-frame value written as motion_sad_score. */
TVMAF_HD double motion_sad_score(uint64_t sad, unsigned w, unsigned h, double fps_weight,
                                 double max_val)
{
    const double v = (double)sad / 256. / (w * h) * fps_weight;
    return v < max_val ? v : max_val;
}

/* Blends a motion score towards `offset` (factor 1: unchanged). */
TVMAF_HD double motion_blend(double score, double factor, double offset)
{
    const double lower = offset < score ? offset : score;
    return score * factor + (1 - factor) * lower;
}
#endif

#endif
