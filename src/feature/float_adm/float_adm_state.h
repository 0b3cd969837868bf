/* Shared by the float_adm extractors of every backend: the options, the
 * checks and constants of a stream, the pooling of a scale's sums and the
 * outputs. The twins call the CPU extractor's code for all of it. */
#ifndef TVMAF_FLOAT_ADM_STATE_H
#define TVMAF_FLOAT_ADM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/feature.h"
#include "feature/float_adm/float_adm_math.h"

#define FADM_KEY_LEN 256
#define FADM_N_KEYS 18

typedef struct FloatAdmParams {
    /* options */
    bool debug;
    double gain_limit;
    double norm_view_dist;
    double noise_weight;
    double csf_scale;
    double csf_diag_scale;
    int ref_display_height;
    int csf_mode;
    int bypass_cm;
    bool adm3_apply_hm;
    double p_norm;
    double dlm_weight;
    double min_val;
    double f1[FADM_N_SCALES], f2[FADM_N_SCALES];
    int skip_aim_scale;
    bool skip_scale0;
    char div_name[TVMAF_OPT_STRING_LEN];

    /* derived at setup */
    int div;               /* enum TvmafRcpDiv */
    const uint32_t *table; /* the estimates of the "table" mode */
    int w, h;
    unsigned bpc;
    float cos_1deg_sq;
    float rfactor[FADM_N_SCALES][3];
    int cube; /* p_norm == 3 */
    char key[FADM_N_KEYS][FADM_KEY_LEN];
} FloatAdmParams;

/* One scale's pooled DLM numerator, denominator and AIM numerator. */
typedef struct FadmScaleSums {
    float num, den, aim;
} FadmScaleSums;

/* Offsets relative to FloatAdmParams (first member of every extractor's state). */
extern const TvmafOption tvmaf_float_adm_options[];
extern const char *const tvmaf_float_adm_provided[];

/* The CPU extractor's checks (a refusal writes the message) and constants. */
int tvmaf_float_adm_setup(FloatAdmParams *p, const TvmafVideoInfo *vi, char *msg, size_t len);

/* Scale k's sums from its per-orientation totals (each the rows' float
 * totals added top to bottom into a float): den[3] of the reference's
 * weighted bands, num[3] of the DLM masking, aim[3] of the AIM masking,
 * over the pooled region of a w x h band. */
FadmScaleSums tvmaf_float_adm_pool(const FloatAdmParams *p, int w, int h, const float den[3],
                                   const float num[3], const float aim[3]);

/* Scale 0 under adm_skip_scale0: nothing but a denominator that keeps its
 * ratio finite. */
FadmScaleSums tvmaf_float_adm_skipped(void);

/* The frame's outputs from the four scales' sums, in the order of the keys
 * p->key (the order they are appended); returns how many (7, or 18 with
 * debug). */
unsigned tvmaf_float_adm_outputs(const FloatAdmParams *p, const FadmScaleSums sc[FADM_N_SCALES],
                                 double out[FADM_N_KEYS]);

/* Appends frame index's outputs from the four scales' sums. */
int tvmaf_float_adm_report(const FloatAdmParams *p, const FadmScaleSums sc[FADM_N_SCALES],
                           unsigned index, TvmafSink *sink);

#endif
