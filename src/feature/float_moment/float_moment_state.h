/* Shared by the float_moment extractors of every backend: the checks, the
 * constants and the outputs. */
#ifndef TVMAF_FLOAT_MOMENT_STATE_H
#define TVMAF_FLOAT_MOMENT_STATE_H

#include <stddef.h>

#include "core/feature.h"
#include "feature/float_moment/float_moment_math.h"

typedef struct FloatMomentSetup {
    float divisor;
    unsigned w, h, bpc;
} FloatMomentSetup;

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_moment_setup(FloatMomentSetup *s, const TvmafVideoInfo *vi, char *msg,
                             size_t len);
/* Appends the four moments of frame `index` from the pictures' sums. */
int tvmaf_float_moment_report(const FloatMomentSetup *s, const FMomentSums *ref,
                              const FMomentSums *dis, unsigned index, TvmafSink *sink);

#endif
