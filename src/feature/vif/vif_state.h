/*
 * Shared by the integer vif extractors of every backend: options, input
 * checks, scale sizes, output key names, and everything after the per-scale
 * integer sums (num/den of each scale, the scores, the debug outputs), so a
 * twin only has to produce the four VifSums of a frame.
 *
 * Outputs (libvmaf's integer VIF, names with option suffixes), per frame, in
 * this order: VMAF_integer_feature_vif_scale0..3_score; with debug also
 * integer_vif, integer_vif_num, integer_vif_den and
 * integer_vif_num_scaleK / integer_vif_den_scaleK for K = 0..3.
 */
#ifndef TVMAF_VIF_STATE_H
#define TVMAF_VIF_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "feature/vif/vif_math.h"

#define VIF_KEY_LEN 128

/* the outputs, in the order the reference writes them */
enum {
    VIF_KEY_SCALE0, VIF_KEY_SCALE1, VIF_KEY_SCALE2, VIF_KEY_SCALE3,
    VIF_KEY_VIF, VIF_KEY_NUM, VIF_KEY_DEN,
    VIF_KEY_NUM0, VIF_KEY_DEN0, VIF_KEY_NUM1, VIF_KEY_DEN1,
    VIF_KEY_NUM2, VIF_KEY_DEN2, VIF_KEY_NUM3, VIF_KEY_DEN3,
    VIF_N_KEYS
};

/* Keys written without debug: the four scale scores. */
#define VIF_N_BASIC_KEYS 4

typedef struct VifParams {
    /* options */
    bool debug;
    double gain_limit;
    bool skip_scale0;
    /* derived at setup */
    unsigned bpc;
    unsigned w[VIF_N_SCALES], h[VIF_N_SCALES];
    char key[VIF_N_KEYS][VIF_KEY_LEN];
} VifParams;

/* Option table; offsets are relative to a VifParams (put it first in the
 * extractor's state). */
extern const TvmafOption tvmaf_vif_options[];
/* provided_features of every vif extractor (internal names, NULL-ended) */
extern const char *const tvmaf_vif_provided[];

/* Checks the input (8..16 bits, at least VIF_MIN_DIM square), fills the
 * scale sizes and builds the keys. */
int tvmaf_vif_setup(VifParams *p, const TvmafVideoInfo *vi, char *msg, size_t len);

/* Whether the statistic of `scale` is computed (vif_skip_scale0 drops scale
 * 0's, but scale 0 is still low-passed into scale 1). */
static inline bool vif_scale_scored(const VifParams *p, unsigned scale)
{
    return scale > 0 || !p->skip_scale0;
}

/* The frame's output values from the four scales' sums (those of a scale
 * that is not scored are ignored): out[k] is the value of key k. Returns the
 * number of keys written, in key order: VIF_N_BASIC_KEYS, or VIF_N_KEYS with
 * debug. */
unsigned tvmaf_vif_values(const VifParams *p, const VifSums sums[VIF_N_SCALES],
                          double out[VIF_N_KEYS]);

/* tvmaf_vif_values, appended to the sink in key order. */
int tvmaf_vif_report(const VifParams *p, const VifSums sums[VIF_N_SCALES], unsigned index,
                     TvmafSink *sink);

#endif
