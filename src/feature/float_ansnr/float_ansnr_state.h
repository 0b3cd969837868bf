/* Shared by the float_ansnr extractors of every backend: the checks, the
 * constants and the outputs. */
#ifndef TVMAF_FLOAT_ANSNR_STATE_H
#define TVMAF_FLOAT_ANSNR_STATE_H

#include <stddef.h>

#include "core/feature.h"

typedef struct FloatAnsnrSetup {
    double peak, psnr_max;
    float divisor;
    int w, h;
    unsigned bpc;
} FloatAnsnrSetup;

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_ansnr_setup(FloatAnsnrSetup *s, const TvmafVideoInfo *vi, char *msg,
                            size_t len);
/* Appends float_ansnr and float_anpsnr of frame `index` from the frame sums. */
int tvmaf_float_ansnr_report(const FloatAnsnrSetup *s, float sig, float noise, unsigned index,
                             TvmafSink *sink);

#endif
