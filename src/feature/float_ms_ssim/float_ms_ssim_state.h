/* Shared by the float_ms_ssim extractors of every backend: options, the
 * checks, the pyramid's sizes and the outputs. */
#ifndef TVMAF_FLOAT_MS_SSIM_STATE_H
#define TVMAF_FLOAT_MS_SSIM_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "feature/float_ms_ssim/float_ms_ssim_math.h"

typedef struct FloatMsSsimParams {
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    /* derived at setup */
    unsigned bpc;
    int w[MS_SSIM_SCALES], h[MS_SSIM_SCALES]; /* the pyramid, scale 0 = luma */
    double max_db;
} FloatMsSsimParams;

extern const TvmafOption tvmaf_float_ms_ssim_options[];

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_ms_ssim_setup(FloatMsSsimParams *p, const TvmafVideoInfo *vi, char *msg,
                              size_t len);
/* Appends frame index's outputs from each scale's mean l, c and s; -ERANGE
 * (nothing appended) when the product overflows, as the reference. */
int tvmaf_float_ms_ssim_report(const FloatMsSsimParams *p, const float l[MS_SSIM_SCALES],
                               const float c[MS_SSIM_SCALES], const float s[MS_SSIM_SCALES],
                               unsigned index, TvmafSink *sink);

#endif
