/* Shared by the float_vif extractors of every backend: options, the checks,
 * the stream's constants (sizes, filters, the statistic's parameters) and
 * the outputs. Everything after the per-scale float totals is this code,
 * whatever computed them. */
#ifndef TVMAF_FLOAT_VIF_STATE_H
#define TVMAF_FLOAT_VIF_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "feature/float_vif/float_vif_math.h"

#define FVIF_N_KEYS 15
#define FVIF_KEY_LEN 160

typedef struct FloatVifParams {
    /* options */
    bool debug;
    double enhn_gain_limit;
    double kernelscale;
    double prescale;
    double scale1_min, scale2_min, scale3_min;
    char prescale_method[TVMAF_OPT_STRING_LEN];
    double sigma_nsq;
    bool skip_scale0;

    /* stream */
    enum FfilterScaler scaler;
    unsigned bpc;
    int in_w, in_h;           /* input luma */
    bool rescale;             /* the prescaled size differs from the input's */
    int start;                /* first scale computed (1 with vif_skip_scale0) */
    int max_fw;               /* widest filter of the four */
    int w[FVIF_N_SCALES], h[FVIF_N_SCALES]; /* image of each scale */
    int fw[FVIF_N_SCALES];    /* taps of each scale's Gaussian */
    float taps[FVIF_N_SCALES][FFILTER_MAX_TAPS];
    FvifStatParams stat;
    char key[FVIF_N_KEYS][FVIF_KEY_LEN];
} FloatVifParams;

extern const TvmafOption tvmaf_float_vif_options[];
extern const char *const tvmaf_float_vif_provided[];

/* The CPU extractor's checks (a refusal writes the message) and the stream's
 * constants. */
int tvmaf_float_vif_setup(FloatVifParams *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* Appends frame index's outputs from the float totals of each scale:
 * sums[2 * sc] is scale sc's num, sums[2 * sc + 1] its den (scales below
 * s->start are not read). */
int tvmaf_float_vif_report(const FloatVifParams *s, const float sums[2 * FVIF_N_SCALES],
                           unsigned index, TvmafSink *sink);

#endif
