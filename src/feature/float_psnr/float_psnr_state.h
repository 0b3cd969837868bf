/* Shared by the float_psnr extractors of every backend: the checks and the
 * constants of a stream. */
#ifndef TVMAF_FLOAT_PSNR_STATE_H
#define TVMAF_FLOAT_PSNR_STATE_H

#include <stddef.h>

#include "core/feature.h"

typedef struct FloatPsnrSetup {
    double peak, psnr_max;
    float divisor;
    unsigned w, h, bpc;
} FloatPsnrSetup;

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_psnr_setup(FloatPsnrSetup *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* Appends float_psnr of frame `index` from the plane's double noise sum. */
int tvmaf_float_psnr_report(const FloatPsnrSetup *s, double noise, unsigned index,
                            TvmafSink *sink);

#endif
