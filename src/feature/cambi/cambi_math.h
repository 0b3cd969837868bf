/*
 * CAMBI (contrast-aware multiscale banding index) arithmetic, written once
 * for the CPU extractor and any later device twin.
 *
 * Everything here reproduces libvmaf's cambi.c and luminance_tools.c at
 * f85a8536 bit for bit. The floating-point parts are few and small:
 *   - the display model (BT.1886 or PQ EOTF, in double, glibc pow) decides
 *     two integer tables at init: the largest 10-bit code value at which a
 *     step of d codes is still visible, and the smallest code value above
 *     the luminance visibility threshold;
 *   - a pixel's c-value is max_d float(w_d * p0 * pd) * R[p0 + pd], with R a
 *     float table of reciprocals (see cambi_reciprocal);
 *   - a scale's score is the double mean of the top-k c-values, in the order
 *     the reference's quickselect leaves them; the frame score is the
 *     weighted sum of the five scale scores over the window's pixel count.
 * Histograms, masks and counts are integers, so only their values (not the
 * order they are built in) matter.
 */
#ifndef TVMAF_FEATURE_CAMBI_MATH_H
#define TVMAF_FEATURE_CAMBI_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"
#include "numerics/float_bits.h"

#define CAMBI_NUM_SCALES 5
/* refused when the encode is below this in both width and height */
#define CAMBI_MIN_SIDE 216
/* side of the square the spatial mask counts flat pixels in */
#define CAMBI_MASK_FILTER 7
/* the reciprocal table covers p0 + pd up to 65 * 65: larger windows refused */
#define CAMBI_RECIP_SIZE 4226
/* the working image is 10-bit; limited range 64..940 */
#define CAMBI_LUMA_FOOT 64
#define CAMBI_LUMA_HEAD 940
#define CAMBI_WORK_MAX 1023
/* largest value the conversion to 10 bits can produce ((65535 + 32) >> 6) */
#define CAMBI_WORK_CEIL 1024
#define CAMBI_MAX_DIFFS 32

enum CambiEotf { CAMBI_EOTF_BT1886 = 0, CAMBI_EOTF_PQ = 1 };

/* weight of scale s (full resolution first) */
TVMAF_HD int cambi_scale_weight(int s)
{
    return 16 >> s;
}

/* suprathreshold contrast weight of a step of d + 1 code values */
TVMAF_HD int cambi_contrast_weight(int d)
{
    /* 1 2 3 4 4 5 5 6 6 6 6 7 7 7 7 8 8 8 8 8 8 8 9 9 9 9 9 9 9 9 9 9 */
    TVMAF_FN_TABLE unsigned char w[CAMBI_MAX_DIFFS] = {
        1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
        8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
    };
    return w[d];
}

#if !TVMAF_KERNEL_CODE /* host only, in double: the kernels get the limits it gives */
/* ---------------------------------------------------------------------------
 * Display model (luminance of a 10-bit limited-range code value)
 */

TVMAF_HD double cambi_normalized_luma(int code)
{
    const int c = code < CAMBI_LUMA_FOOT ? CAMBI_LUMA_FOOT
                : (code > CAMBI_LUMA_HEAD ? CAMBI_LUMA_HEAD : code);
    return (double)(c - CAMBI_LUMA_FOOT) / (CAMBI_LUMA_HEAD - CAMBI_LUMA_FOOT);
}

/* BT.1886 with a 300 cd/m2 white and 0.01 cd/m2 black, gamma 2.4. The
 * constant pow() calls fold to the correctly rounded values, which glibc's
 * pow also returns for these arguments. */
TVMAF_HD double cambi_bt1886(double v)
{
    const double inv_gamma = 1.0 / 2.4;
    const double white_root = pow(300.0, inv_gamma);
    const double black_root = pow(0.01, inv_gamma);
    const double gain = pow(white_root - black_root, 2.4);
    const double lift = black_root / (white_root - black_root);
    const double x = v + lift;
    return gain * pow(x > 0 ? x : 0, 2.4);
}

/* SMPTE ST 2084 (PQ), 10000 cd/m2 peak */
TVMAF_HD double cambi_pq(double v)
{
    const double m1 = 0.1593017578125;
    const double m2 = 78.84375;
    const double c1 = 0.8359375;
    const double c2 = 18.8515625;
    const double c3 = 18.6875;
    const double vp = pow(v, 1.0 / m2);
    const double num = vp - c1;
    const double num_pos = num > 0 ? num : 0;
    const double den = c2 - c3 * vp;
    return 10000 * pow(num_pos / den, 1.0 / m1);
}

TVMAF_HD double cambi_luminance(int code, int eotf)
{
    const double v = cambi_normalized_luma(code);
    return eotf == CAMBI_EOTF_PQ ? cambi_pq(v) : cambi_bt1886(v);
}

/* A step of `diff` codes above `code` is visible: its luminance increase
 * exceeds `tvi` times the luminance at `code`. */
TVMAF_HD bool cambi_step_visible(int code, int diff, double tvi, int eotf)
{
    const double base = cambi_luminance(code, eotf);
    const double up = cambi_luminance(code + diff, eotf);
    return up - base > tvi * base;
}

/* -1: the step is invisible at `code` (boundary below); 1: still visible one
 * code higher (boundary above); 0: `code` is the last code where it shows */
TVMAF_HD int cambi_step_side(int code, int diff, double tvi, int eotf)
{
    if (!cambi_step_visible(code, diff, tvi, eotf)) return -1;
    if (cambi_step_visible(code + 1, diff, tvi, eotf)) return 1;
    return 0;
}

/* The last 10-bit code at which a step of `diff` codes is visible (0 when
 * none is, 1023 when all are), by bisection between the range's foot and
 * head - diff - 1, probing exactly the codes the reference probes. */
TVMAF_HD int cambi_visibility_limit(int diff, double tvi, int eotf)
{
    int lo = CAMBI_LUMA_FOOT;
    int hi = CAMBI_LUMA_HEAD - diff - 1;
    int side = cambi_step_side(lo, diff, tvi, eotf);
    if (side < 0) return 0;
    if (side == 0) return lo;
    side = cambi_step_side(hi, diff, tvi, eotf);
    if (side > 0) return CAMBI_WORK_MAX;
    if (side == 0) return hi;
    /* invariant: side(lo) > 0 and side(hi) < 0, so a 0 lies between */
    for (;;) {
        const int mid = lo + (hi - lo) / 2;
        side = cambi_step_side(mid, diff, tvi, eotf);
        if (side == 0) return mid;
        if (side < 0) hi = mid;
        else lo = mid;
    }
}

/* The smallest code whose luminance reaches `threshold` (0 when the foot
 * already does). Returns -1 when no code up to the head reaches it, where
 * the reference would search forever. */
TVMAF_HD int cambi_visibility_floor(double threshold, int eotf)
{
    int code = CAMBI_LUMA_FOOT;
    while (cambi_luminance(code, eotf) < threshold) {
        if (code >= CAMBI_LUMA_HEAD) return -1; /* clipped: never grows */
        code++;
    }
    return code == CAMBI_LUMA_FOOT ? 0 : code;
}

#endif

/* ---------------------------------------------------------------------------
 * Geometry
 */

/* The window side for a picture of w x h: the option (65 = about one degree
 * at 4K) scaled by (w + h) / (3840 + 2160), halved with the high-resolution
 * speed-up, made odd. Unsigned arithmetic as in the reference. */
TVMAF_HD int cambi_window(int option, unsigned w, unsigned h, bool halved)
{
    uint16_t ws = (uint16_t)((((unsigned)option * (w + h)) / 375u) >> 4);
    if (halved) ws = (uint16_t)((ws + 1) >> 1);
    ws |= 1;
    return ws;
}

TVMAF_HD unsigned cambi_ceil_log2(uint32_t n)
{
    if (n == 0) return 0;
    unsigned bits = 0;
    for (uint32_t t = n - 1; t > 0; t >>= 1) bits++;
    return bits;
}

/* A pixel is in the mask when more than this many of the 7x7 pixels around
 * it are flat; grows with log2 of the frame's area in 64x64 blocks. */
TVMAF_HD unsigned cambi_mask_threshold(unsigned w, unsigned h)
{
    const uint32_t blocks = (w >> 6) * (h >> 6);
    const int l = (int)(uint16_t)cambi_ceil_log2(blocks);
    return (uint16_t)((CAMBI_MASK_FILTER * CAMBI_MASK_FILTER + 3 * (l - 11) - 1) >> 1);
}

#if !TVMAF_KERNEL_CODE /* host only: the kernels read the table it fills */
/* The reciprocal table: the float nearest to 1/i written with nine
 * significant decimal digits (the reference's table literals), which is
 * one float step away from 1.0f / i for 42 of the i below 4226 (e.g. 82,
 * 83, 244). N * 10^-k with N the nine digits is rounded once to double and
 * then to float; that double rounding was checked to give the nearest float
 * to N * 10^-k for every i in the table. Entry 0 is 0. */
TVMAF_HD float cambi_reciprocal(int i)
{
    if (i <= 0) return 0.0f;
    uint64_t p = 1; /* 10^k, the smallest with 10^k / i >= 10^8 */
    while (p < 100000000ull * (uint64_t)i) p *= 10;
    uint64_t digits = (p + (uint64_t)i / 2) / (uint64_t)i;
    if (digits == 1000000000ull) { /* rounded up to ten digits */
        digits /= 10;
        p /= 10;
    }
    return (float)((double)digits / (double)p);
}
#endif

/* ---------------------------------------------------------------------------
 * Pre-processing: the luma plane to 10 bits at the encode (or source) size
 */

#if !TVMAF_KERNEL_CODE /* host only: the kernels read the positions it fills */
/* Nearest-neighbour resampling positions: index of output sample `k` out of
 * `n_out` taken from `n_in`, computed as the reference steps its float
 * coordinate (start at ratio / 2 - 0.5, add ratio per step, round half up).
 * Filled into idx[0..n_out). */
TVMAF_HD void cambi_resample_index(unsigned n_in, unsigned n_out, unsigned *idx)
{
    const float ratio = (float)n_in / n_out;
    float pos = ratio / 2 - 0.5;
    for (unsigned k = 0; k < n_out; k++) {
        unsigned i = (int)(pos + 0.5);
        /* the float steps stay below n_in - 0.5 for any size met in practice;
         * never read past the plane if they do not */
        idx[k] = i < n_in ? i : n_in - 1;
        pos += ratio;
    }
}
#endif

/* Converts one sample of depth `bpc` to 10 bits. */
TVMAF_HD uint16_t cambi_to_10bit(unsigned v, unsigned bpc)
{
    if (bpc <= 8) return (uint16_t)(v << (10 - bpc));
    if (bpc == 9) return (uint16_t)(v << 1);
    const int shift = (int)bpc - 10;
    const unsigned round = shift ? 1u << (shift - 1) : 0;
    return (uint16_t)((v + round) >> shift);
}

/* Sample (x, y) of the 2x2 mean (truncated) towards the right and bottom:
 * the last column and row average two samples, the bottom-right one stays.
 * It reads only (x, y) and samples to its right and below, so the CPU's
 * raster pass in place and the device's pass into another buffer agree. */
TVMAF_HD uint16_t cambi_dither_sample(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride,
                                      unsigned w, unsigned h, unsigned x, unsigned y)
{
    TVMAF_GLOBAL const uint16_t *r = img + y * stride;
    if (y + 1 < h) {
        TVMAF_GLOBAL const uint16_t *n = r + stride;
        if (x + 1 < w) return (uint16_t)((r[x] + r[x + 1] + n[x] + n[x + 1]) >> 2);
        return (uint16_t)((r[x] + n[x]) >> 1);
    }
    if (x + 1 < w) return (uint16_t)((r[x] + r[x + 1]) >> 1);
    return r[x];
}

/* the 2x2 mean in place, in raster order */
TVMAF_HD void cambi_anti_dither(TVMAF_GLOBAL uint16_t *img, ptrdiff_t stride, unsigned w,
                                unsigned h)
{
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            img[y * stride + x] = cambi_dither_sample(img, stride, w, h, x, y);
}

/* ---------------------------------------------------------------------------
 * Spatial mask
 */

/* 1 when sample (x, y) equals its right and lower neighbours (a missing
 * neighbour counts as equal) */
TVMAF_HD uint8_t cambi_flat(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride, int w, int h, int x,
                            int y)
{
    TVMAF_GLOBAL const uint16_t *r = img + y * stride;
    const bool right_eq = x == w - 1 || r[x] == r[x + 1];
    const bool down_eq = y == h - 1 || r[x] == r[x + stride];
    return right_eq && down_eq;
}

TVMAF_HD void cambi_flat_row(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride, int w, int h,
                             int y, TVMAF_GLOBAL uint8_t *flat)
{
    for (int x = 0; x < w; x++) flat[x] = cambi_flat(img, stride, w, h, x, y);
}

/* The mask at (x, y) from the flatness flags (`flat`, rows `stride` apart):
 * 1 when more than `threshold` of the 7x7 flags around it (clipped to the
 * w x h picture) are set. An integer count: any order gives the CPU's. */
TVMAF_HD uint8_t cambi_mask_sample(TVMAF_GLOBAL const uint8_t *flat, ptrdiff_t stride, int w, int h,
                                   int x, int y, unsigned threshold)
{
    const int rad = CAMBI_MASK_FILTER / 2;
    const int y0 = y - rad > 0 ? y - rad : 0, y1 = y + rad < h - 1 ? y + rad : h - 1;
    const int x0 = x - rad > 0 ? x - rad : 0, x1 = x + rad < w - 1 ? x + rad : w - 1;
    unsigned sum = 0;
    for (int j = y0; j <= y1; j++)
        for (int i = x0; i <= x1; i++) sum += flat[j * stride + i];
    return sum > threshold;
}

/* ---------------------------------------------------------------------------
 * Per-scale filtering
 */

TVMAF_HD uint16_t cambi_min3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a <= b && a <= c) return a;
    return b <= c ? b : c;
}

/* the value two of three share, else the smallest */
TVMAF_HD uint16_t cambi_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c) return a;
    if (b == c) return b;
    return cambi_min3(a, b, c);
}

/* the horizontal 3-tap mode at x of a row of w samples (its ends kept) */
TVMAF_HD uint16_t cambi_hmode(TVMAF_GLOBAL const uint16_t *r, int w, int x)
{
    if (x == 0 || x == w - 1) return r[x];
    return cambi_mode3(r[x - 1], r[x], r[x + 1]);
}

/* Sample (x, y) of the separable 3-tap mode filter: the vertical mode of
 * the horizontal modes of rows y - 1, y, y + 1; the first and last rows are
 * kept. (mode3 is symmetric, so the order of the three rows is free.) */
TVMAF_HD uint16_t cambi_mode_sample(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride, int w,
                                    int h, int x, int y)
{
    if (y < 1 || y >= h - 1) return img[y * stride + x];
    TVMAF_GLOBAL const uint16_t *r = img + y * stride;
    return cambi_mode3(cambi_hmode(r - stride, w, x), cambi_hmode(r, w, x),
                       cambi_hmode(r + stride, w, x));
}

/* The mode filter in place: each row filtered horizontally into a 3-line
 * ring `lines` (3 * w), then the vertical mode of three filtered rows
 * replaces the middle row. A row is read before anything writes it, so this
 * equals cambi_mode_sample at every sample. */
TVMAF_HD void cambi_mode_filter(TVMAF_GLOBAL uint16_t *img, ptrdiff_t stride, int w, int h,
                                TVMAF_GLOBAL uint16_t *lines)
{
    int slot = 0;
    for (int y = 0; y < h; y++) {
        TVMAF_GLOBAL const uint16_t *r = img + y * stride;
        TVMAF_GLOBAL uint16_t *l = lines + slot * w;
        for (int x = 0; x < w; x++) l[x] = cambi_hmode(r, w, x);
        if (y >= 2) {
            TVMAF_GLOBAL uint16_t *dst = img + (y - 1) * stride;
            for (int x = 0; x < w; x++)
                dst[x] = cambi_mode3(lines[x], lines[w + x], lines[2 * w + x]);
        }
        slot = slot == 2 ? 0 : slot + 1;
    }
}

/* keeps every second sample of every second row, in place */
TVMAF_HD void cambi_decimate16(TVMAF_GLOBAL uint16_t *img, ptrdiff_t stride, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img[y * stride + x] = img[2 * y * stride + 2 * x];
}

TVMAF_HD void cambi_decimate8(TVMAF_GLOBAL uint8_t *img, ptrdiff_t stride, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img[y * stride + x] = img[2 * y * stride + 2 * x];
}

/* ---------------------------------------------------------------------------
 * C-values
 */

/* The band of 10-bit values whose pixels can matter: histogram row r holds
 * value base + r; a value v is kept when (uint16_t)(v - base) < size (the
 * reference's test, size wrapped to 16 bits as it computes it). */
typedef struct CambiBand {
    uint16_t base, size;
} CambiBand;

TVMAF_HD CambiBand cambi_band(int vlt_code, int num_diffs, const uint16_t *limit)
{
    const int lo = vlt_code - 3 * num_diffs + 1;
    CambiBand b;
    b.base = (uint16_t)(lo > 0 ? lo : 0);
    b.size = (uint16_t)(limit[num_diffs - 1] + 1 - b.base);
    return b;
}

TVMAF_HD bool cambi_in_band(CambiBand b, uint16_t v)
{
    return (uint16_t)(v - b.base) < b.size;
}

/*
 * The c-value of a pixel of value v (10-bit) from the histogram column of its
 * window: hist(r) = count of value base + r. With p0 = hist(v) and, for each
 * contrast step d + 1, pd the larger of hist(v + d + 1) and hist(v - d - 1):
 *   c = max over the steps that pass the visibility gates of
 *       float(w_d * p0 * pd) * recip[p0 + pd].
 * `limit` holds the visibility limits already offset by num_diffs, as the
 * reference stores them (and the gates compare v + num_diffs with them).
 */
TVMAF_HD float cambi_c_value(TVMAF_GLOBAL const uint16_t *hist, ptrdiff_t row_pitch, uint16_t v,
                             CambiBand band, int num_diffs, TVMAF_GLOBAL const uint16_t *limit,
                             int vlt_code, TVMAF_GLOBAL const float *recip)
{
    const int shifted = v + num_diffs;
    const int r0 = (int)v - (int)band.base; /* = shifted - (base + num_diffs) */
    if ((unsigned)r0 >= band.size) return 0.0f;
    const uint16_t p0 = hist[r0 * row_pitch];
    float c = 0.0f;
    for (int d = 0; d < num_diffs; d++) {
        if (shifted <= limit[d] && shifted + d + 1 > vlt_code) {
            const int up = r0 + d + 1, down = r0 - d - 1;
            const uint16_t p_up = hist[up * row_pitch];
            const uint16_t p_down = down >= 0 ? hist[down * row_pitch] : 0;
            const uint16_t pd = p_up > p_down ? p_up : p_down;
            const float val = (float)(cambi_contrast_weight(d) * p0 * pd) * recip[pd + p0];
            if (val > c) c = val;
        }
    }
    return c;
}

/* adds `delta` (1 or 0xffff) to hist row cells [lo, hi) */
TVMAF_HD void cambi_hist_range(TVMAF_GLOBAL uint16_t *row, int lo, int hi, uint16_t delta)
{
    for (int x = lo; x < hi; x++) row[x] = (uint16_t)(row[x] + delta);
}

/* ---------------------------------------------------------------------------
 * The device twin's decomposition (cambi_kernels.h, cambi_plan.c)
 *
 * Per picture, into buffers of the CPU's shape (alloc_w x alloc_h samples,
 * rows `stride` apart), one thread per sample over the picture's g.w x g.h
 * region in blocks of CAMBI_BLOCK_W x CAMBI_BLOCK_H: the load (the host's
 * resampling positions, cambi_to_10bit), the 2x2 mean into the other image
 * buffer (cambi_dither_sample), the flatness flags (cambi_flat) and the mask
 * (cambi_mask_sample). Per scale: the decimation and the mode filter each
 * from one buffer into the other over the whole g region, the scale's w x h
 * samples computed and every other sample copied (cambi_decimate_sample,
 * cambi_mode_filter_sample): the in-place passes of the CPU leave the rest
 * as it was, and the histograms of narrow scales read some of it. Then the
 * c-values (cambi_cvalue_strip): one thread per column and strip of
 * `rows` rows, with that column's histogram of its own (the CPU keeps one
 * per column too, sliding down the whole picture): the thread zeroes it,
 * adds the rows of the window above its first row and then slides it down
 * its strip as the CPU does, writing the c-value of each masked sample. A
 * count is an integer (at most 65 x 65 per cell), so its value does not
 * depend on how it was gathered. Each scale is then pooled on the device
 * ("The device's pooling" below), or, where that has no exact sum, its
 * c-values are read back and pooled with the CPU's code (cambi_pool: its
 * quickselect's order fixes the double sum's rounding).
 */
#define CAMBI_BLOCK_W 32
#define CAMBI_BLOCK_H 8
#define CAMBI_CVAL_THREADS 128
/* a strip is at least this many rows (the set-up of a column's histogram
 * reads a window's rows; shorter strips would mostly repeat it) */
#define CAMBI_STRIP_MIN 32

/* the histogram slabs of the strips get at most this many bytes */
#define CAMBI_HIST_BUDGET ((size_t)256 << 20)

/* the most strips a scale is cut into: one slab of `slab` 16-bit cells
 * each, within the budget, and no more than strips of CAMBI_STRIP_MIN rows
 * of the tallest picture need */
TVMAF_HD int cambi_max_strips(size_t slab, unsigned alloc_h)
{
    const size_t by_budget = CAMBI_HIST_BUDGET / (slab * sizeof(uint16_t));
    const size_t by_rows = (alloc_h + CAMBI_STRIP_MIN - 1) / CAMBI_STRIP_MIN;
    const size_t n = by_budget < by_rows ? by_budget : by_rows;
    return n < 1 ? 1 : (int)n;
}

/* the size of scale k from the size of scale k - 1 (or of the picture) */
TVMAF_HD bool cambi_scale_step(int k, bool halved, unsigned *w, unsigned *h)
{
    if (k > 0 || halved) {
        *w = (*w + 1) >> 1;
        *h = (*h + 1) >> 1;
        return true;
    }
    return false;
}

/* rows per strip of a scale h rows high, with at most max_strips strips */
TVMAF_HD int cambi_strip_rows(int h, int max_strips)
{
    const int r = (h + max_strips - 1) / max_strips;
    return r < CAMBI_STRIP_MIN ? CAMBI_STRIP_MIN : r;
}

/* sample (x, y) of the buffer after the in-place decimation to w x h */
TVMAF_HD uint16_t cambi_decimate_sample16(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride, int w,
                                          int h, int x, int y)
{
    return x < w && y < h ? img[2 * y * stride + 2 * x] : img[y * stride + x];
}

TVMAF_HD uint8_t cambi_decimate_sample8(TVMAF_GLOBAL const uint8_t *img, ptrdiff_t stride, int w,
                                        int h, int x, int y)
{
    return x < w && y < h ? img[2 * y * stride + 2 * x] : img[y * stride + x];
}

/* sample (x, y) of the buffer after the in-place mode filter of w x h */
TVMAF_HD uint16_t cambi_mode_filter_sample(TVMAF_GLOBAL const uint16_t *img, ptrdiff_t stride,
                                           int w, int h, int x, int y)
{
    return x < w && y < h ? cambi_mode_sample(img, stride, w, h, x, y) : img[y * stride + x];
}

/* Adds `delta` (1 or 0xffff) to the histogram column `col` (cells `pitch`
 * apart) for each masked in-band sample of a row whose window covers
 * column x: columns [x - half, x + half] of the first `cols`. */
TVMAF_HD void cambi_col_add_row(TVMAF_GLOBAL uint16_t *col, ptrdiff_t pitch,
                                TVMAF_GLOBAL const uint16_t *img_row,
                                TVMAF_GLOBAL const uint8_t *mask_row, int x, int rad, int cols,
                                CambiBand band, uint16_t delta)
{
    const int lo = x - rad > 0 ? x - rad : 0;
    const int hi = x + rad + 1 < cols ? x + rad + 1 : cols;
    for (int i = lo; i < hi; i++) {
        if (!mask_row[i] || !cambi_in_band(band, img_row[i])) continue;
        TVMAF_GLOBAL uint16_t *c = col + (ptrdiff_t)(uint16_t)(img_row[i] - band.base) * pitch;
        *c = (uint16_t)(*c + delta);
    }
}

/* One thread of the c-value pass: column x of the w x h scale, rows
 * [y0, y0 + rows), histogram column `col` (band.size cells `pitch` apart,
 * garbage on entry); c-values into cval (w per row). */
TVMAF_HD void cambi_cvalue_strip(TVMAF_GLOBAL const uint16_t *img, TVMAF_GLOBAL const uint8_t *mask,
                                 ptrdiff_t stride, int w, int h, int rad, int x, int y0, int rows,
                                 TVMAF_GLOBAL uint16_t *col, ptrdiff_t pitch, CambiBand band,
                                 int num_diffs, TVMAF_GLOBAL const uint16_t *limit, int vlt_code,
                                 TVMAF_GLOBAL const float *recip, TVMAF_GLOBAL float *cval)
{
    /* the CPU's histograms take in the first half-window of columns even
     * where the scale is narrower */
    const int cols = w > rad ? w : rad;
    const int y1 = y0 + rows < h ? y0 + rows : h;
    for (int r = 0; r < (int)band.size; r++) col[r * pitch] = 0;
    /* before row y the histogram holds rows [y - 1 - rad, y - 1 + rad] */
    const int first = y0 - 1 - rad > 0 ? y0 - 1 - rad : 0;
    for (int y = first; y <= y0 - 1 + rad && y < h; y++)
        cambi_col_add_row(col, pitch, img + y * stride, mask + y * stride, x, rad, cols, band, 1);
    for (int y = y0; y < y1; y++) {
        if (y + rad < h)
            cambi_col_add_row(col, pitch, img + (y + rad) * stride, mask + (y + rad) * stride, x,
                              rad, cols, band, 1);
        if (y - rad - 1 >= 0)
            cambi_col_add_row(col, pitch, img + (y - rad - 1) * stride,
                              mask + (y - rad - 1) * stride, x, rad, cols, band, 0xffff);
        cval[(size_t)y * w + x] =
            mask[y * stride + x] ? cambi_c_value(col, pitch, img[y * stride + x], band,
                                                 num_diffs, limit, vlt_code, recip)
                                 : 0.0f;
    }
}

/* ---------------------------------------------------------------------------
 * Pooling
 */

/* Partially orders arr so that arr[0..k) are the k largest values, with the
 * reference's Hoare-style quickselect (pivot arr[k]); the order it leaves
 * fixes the rounding of the sum that follows. */
TVMAF_HD void cambi_quickselect(float *arr, int n, int k)
{
    if (n == k) return;
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = arr[k];
        int i = left, j = right;
        do {
            while (arr[i] > pivot) i++;
            while (arr[j] < pivot) j--;
            if (i <= j) {
                const float t = arr[i];
                arr[i] = arr[j];
                arr[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k) left = i;
        if (k < i) right = j;
    }
}

#if !TVMAF_KERNEL_CODE /* host only: the CPU's pooling */
/* how many of the w x h c-values are pooled */
TVMAF_HD int cambi_topk_count(double topk, unsigned w, unsigned h)
{
    const int n = (int)(h * w);
    const int k = (int)(topk * n); /* truncated, as the reference's int parameter */
    return k < 1 ? 1 : (k > n ? n : k);
}

/* mean of the top `topk` fraction of the w x h c-values (reorders them) */
TVMAF_HD double cambi_pool(float *c, double topk, unsigned w, unsigned h)
{
    const int n = (int)(h * w);
    const int k = cambi_topk_count(topk, w, h);
    cambi_quickselect(c, n, k);
    double sum = 0;
    for (int i = 0; i < k; i++) sum += c[i];
    return sum / k;
}

#endif

/*
 * The device's pooling, exact and free of order. Every c-value is 0 or at
 * least 0.5 (p0 pd / (p0 + pd) >= 1/2 for counts of at least 1, and its
 * rounded float cannot fall below the float 0.5 unless exactly 0.5), so it
 * is a whole number of units of 2^-24 (ulp(0.5)). If the k largest add up
 * to fewer than 2^53 units, every partial sum of the CPU's double loop is
 * such a number below 2^29, exactly representable: each addition is exact,
 * in any order, and the CPU's sum is the exact sum. The device then finds
 * the k-th largest value T by a radix select on the float's bits (3 passes
 * of counts and unit sums per bin, integer atomics), and the sum is
 * (units above T) + (k - count above T) * units(T). A value that is not a
 * whole number of units, or a sum of 2^53 units or more, sends the scale to
 * the CPU's quickselect on the host instead (never met in the tests).
 */
#define CAMBI_TOPK_BINS 2048
#define CAMBI_TOPK_PASSES 3
#define CAMBI_TOPK_THREADS 256
#define CAMBI_TOPK_SCAN_THREADS 1024
#define CAMBI_UNIT_SCALE 16777216.0f /* 2^24 */
#define CAMBI_TOPK_EXACT_LIMIT (1ull << 53)

typedef struct CambiTopk {
    uint32_t prefix;      /* the bits of T chosen so far */
    uint32_t remaining;   /* of the k, those not yet above the prefix */
    uint32_t count_above; /* values above the prefix */
    uint32_t bad;         /* a value that is not a whole number of units */
    uint64_t sum_above;   /* their units */
} CambiTopk;

TVMAF_HD int cambi_topk_shift(int pass)
{
    return pass == 0 ? 21 : (pass == 1 ? 10 : 0);
}

TVMAF_HD int cambi_topk_width(int pass)
{
    return pass == 2 ? 10 : 11;
}

/* c-value c in units of 2^-24 into *u; whether it is a whole number */
TVMAF_HD bool cambi_units(float c, uint64_t *u)
{
    const float s = c * CAMBI_UNIT_SCALE; /* exact: a power of 2 */
    if (!(s >= 0.0f) || s >= 18446744073709551616.0f) {
        *u = 0;
        return false;
    }
    *u = (uint64_t)s;
    return (float)*u == s;
}

/* the bin of c-value bits in a pass, -1 when its higher bits are not the prefix */
TVMAF_HD int cambi_topk_bin(uint32_t bits, int pass, uint32_t prefix)
{
    const int shift = cambi_topk_shift(pass), hi = shift + cambi_topk_width(pass);
    if (hi < 32 && (bits >> hi) != (prefix >> hi)) return -1;
    return (int)((bits >> shift) & ((1u << cambi_topk_width(pass)) - 1));
}

/* After a pass's counts and sums: the bin holding the remaining-th largest
 * joins the prefix, the bins above it are counted; then the bins are
 * cleared for the next pass. Pass 0 starts from k. */
TVMAF_HD void cambi_topk_scan(TVMAF_GLOBAL CambiTopk *st, TVMAF_LOCAL uint32_t *count,
                              TVMAF_LOCAL uint64_t *sum, int pass, uint32_t k)
{
    if (pass == 0) st->remaining = k;
    const int nb = 1 << cambi_topk_width(pass);
    bool found = false;
    for (int b = nb - 1; b >= 0; b--) {
        if (!found) {
            if (count[b] >= st->remaining) {
                st->prefix |= (uint32_t)b << cambi_topk_shift(pass);
                found = true;
            } else {
                st->remaining -= count[b];
                st->count_above += count[b];
                st->sum_above += sum[b];
            }
        }
        count[b] = 0;
        sum[b] = 0;
    }
}

/* The exact top-k sum in units after the last pass; false when the host
 * must pool the scale itself. */
TVMAF_HD bool cambi_topk_total(const CambiTopk *st, uint64_t *total)
{
    const float t = tvmaf_bits2f(st->prefix);
    uint64_t ut;
    if (st->bad || !cambi_units(t, &ut)) return false;
    *total = st->sum_above + (uint64_t)st->remaining * ut;
    return *total < CAMBI_TOPK_EXACT_LIMIT;
}

#if !TVMAF_KERNEL_CODE /* host only, in double: the report */
/* the pooled score from the exact sum: the CPU's sum / k */
TVMAF_HD double cambi_topk_mean(uint64_t total, int k)
{
    const double sum = (double)total * (1.0 / CAMBI_UNIT_SCALE);
    return sum / k;
}

/* weighted sum of the scale scores over the window's pixel count */
TVMAF_HD double cambi_combine_scales(const double *scale_score, int window)
{
    const uint16_t side = (uint16_t)(2 * (window >> 1) + 1);
    const uint16_t pixels = (uint16_t)(side * side);
    double s = 0.0;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) s += scale_score[k] * cambi_scale_weight(k);
    return s / pixels;
}

/* the heat-map sample of a c-value: x86's truncation of the scaled value to
 * 32 bits, kept modulo 2^16 (0 for NaN or out of the 32-bit range) */
TVMAF_HD uint16_t cambi_heat_sample(double scaled)
{
    if (scaled > -2147483649.0 && scaled < 2147483648.0)
        return (uint16_t)(uint32_t)(int32_t)scaled;
    return 0;
}
#endif


#endif
