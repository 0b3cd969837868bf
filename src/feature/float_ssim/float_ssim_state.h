/* Shared by the float_ssim extractors of every backend: options, the checks,
 * the stream's constants and the outputs. */
#ifndef TVMAF_FLOAT_SSIM_STATE_H
#define TVMAF_FLOAT_SSIM_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "feature/float_ssim/float_ssim_math.h"

typedef struct FloatSsimParams {
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    int scale;
    /* derived at setup */
    unsigned bpc;
    int w, h;       /* luma */
    int factor;     /* down-sampling factor, 1 = none */
    int sw, sh;     /* size SSIM is evaluated at */
    double max_db;
    float box[SSIM_MAX_FACTOR * SSIM_MAX_FACTOR]; /* the f x f box low-pass */
} FloatSsimParams;

extern const TvmafOption tvmaf_float_ssim_options[];

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_ssim_setup(FloatSsimParams *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* Appends frame index's outputs from the four means (ssim, l, c, s). */
int tvmaf_float_ssim_report(const FloatSsimParams *s, const float m[4], unsigned index,
                            TvmafSink *sink);

#endif
