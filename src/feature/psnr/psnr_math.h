/*
 * psnr: the arithmetic, written once for the CPU extractor and the CUDA and
 * OpenCL twins.
 *
 * Integer part: a plane's sum of squared errors. The reference adds an 8-bit
 * row into a uint32 (|e| <= 255, so a row of up to 66051 samples cannot wrap)
 * and rows into a uint64; above 8 bits it adds e*e (uint32, at most 65535^2)
 * straight into a uint64. Integer sums are exact, so any grouping (per row,
 * per block, per thread) gives the same total.
 *
 * Floating part (host only): mse and psnr in double, as the reference:
 * psnr = min(10 log10(peak^2 / max(mse, 1e-16)), psnr_max), where peak^2 is a
 * uint32 product converted to double.
 */
#ifndef TVMAF_PSNR_MATH_H
#define TVMAF_PSNR_MATH_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"

/* Sum of squared errors of one row of 8-bit samples. */
TVMAF_HD uint32_t psnr_row_sse_8(const uint8_t *ref, const uint8_t *dis, unsigned w)
{
    uint32_t sse = 0;
    for (unsigned j = 0; j < w; j++) {
        const int e = (int)ref[j] - (int)dis[j];
        sse += (uint32_t)(e * e);
    }
    return sse;
}

/* Sum of squared errors of one row of 9..16-bit samples. */
TVMAF_HD uint64_t psnr_row_sse_16(const uint16_t *ref, const uint16_t *dis, unsigned w)
{
    uint64_t sse = 0;
    for (unsigned j = 0; j < w; j++) {
        const int d = (int)ref[j] - (int)dis[j];
        const uint32_t e = (uint32_t)(d < 0 ? -d : d);
        sse += e * e;
    }
    return sse;
}

/* Squared error of one sample (any depth): what a device thread adds. */
TVMAF_HD uint32_t psnr_sample_se(unsigned r, unsigned d)
{
    const uint32_t e = r > d ? r - d : d - r;
    return e * e;
}

/*
 * The CUDA twin's decomposition (psnr.cu; replayed by tests/replay/psnr_replay.c):
 * one block of PSNR_THREADS threads per plane row (grid PSNR_GRID_X(h) x 1);
 * thread t adds the squared errors of samples t, t + PSNR_THREADS, ... of its
 * row (psnr_lane_sse_*), each warp folds its lanes by shuffles, thread 0 adds
 * the PSNR_THREADS / 32 warp sums and adds the row into the plane's uint64
 * total with an atomic; the host reads the three totals back.
 */
#define PSNR_THREADS 256
#define PSNR_GRID_X(h) (h)

/* What thread t of a row's block adds (8-bit and 9..16-bit samples). The
 * OpenCL twin (psnr.cl) runs the same lanes, one work-group of PSNR_THREADS
 * per row, folds them in local memory and stores the row's uint64 sum; the
 * host adds the rows. */
TVMAF_HD uint64_t psnr_lane_sse_8(TVMAF_GLOBAL const uint8_t *ref, TVMAF_GLOBAL const uint8_t *dis,
                                  unsigned t, unsigned w)
{
    uint64_t s = 0;
    for (unsigned x = t; x < w; x += PSNR_THREADS) s += psnr_sample_se(ref[x], dis[x]);
    return s;
}

TVMAF_HD uint64_t psnr_lane_sse_16(TVMAF_GLOBAL const uint16_t *ref,
                                   TVMAF_GLOBAL const uint16_t *dis, unsigned t, unsigned w)
{
    uint64_t s = 0;
    for (unsigned x = t; x < w; x += PSNR_THREADS) s += psnr_sample_se(ref[x], dis[x]);
    return s;
}

#if !TVMAF_DEVICE_CODE
#include <math.h>

/* The peak sample value: 2^bpc - 1, or with reduced_hbd_peak 255 * 2^(bpc-8)
 * (high bit depth content scaled from 8 bits). */
static inline uint32_t psnr_peak(unsigned bpc, int reduced_hbd_peak)
{
    return reduced_hbd_peak ? 255u * (1u << (bpc - 8)) : (1u << bpc) - 1u;
}

/* Upper clamp of a plane's psnr. With min_sse it is the psnr of that SSE over
 * the plane's pixels, rounded up; otherwise 6 * bpc + 12 dB. */
static inline double psnr_max_db(uint32_t peak, unsigned bpc, double min_sse,
                                 unsigned plane_w, unsigned plane_h)
{
    if (min_sse != 0.0) {
        const double mse = min_sse / (plane_w * plane_h);
        return ceil(10. * log10((uint32_t)(peak * peak) / mse));
    }
    return (6 * bpc) + 12;
}

static inline double psnr_mse(uint64_t sse, unsigned plane_w, unsigned plane_h)
{
    return (double)sse / (plane_w * plane_h);
}

static inline double psnr_db(double mse, uint32_t peak, double psnr_max)
{
    const double m = mse > 1e-16 ? mse : 1e-16;
    const double v = 10. * log10((uint32_t)(peak * peak) / m);
    return v > psnr_max ? psnr_max : v;
}

/* Stream psnr (apsnr) from the SSE and pixel count summed over every frame,
 * clamped to the psnr of a total SSE of 1/2. */
static inline double psnr_stream_db(uint32_t peak, uint64_t sse, uint64_t n_pixels)
{
    const double apsnr = 10 * (log10((uint32_t)(peak * peak)) + log10(n_pixels) - log10(sse));
    const double max_apsnr = ceil(10 * log10((uint64_t)(peak * peak) * n_pixels * 2));
    return apsnr > max_apsnr ? max_apsnr : apsnr;
}
#endif

#endif
