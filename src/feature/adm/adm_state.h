/*
 * Shared by the integer adm extractors of every backend: options, the
 * per-scale constants derived from them, the integer totals a backend
 * computes per frame, and the host's floating-point finish and outputs.
 *
 * Outputs (libvmaf's integer adm, names with option suffixes), per frame:
 *   VMAF_integer_feature_adm2_score, VMAF_integer_feature_aim_score,
 *   VMAF_integer_feature_adm3_score, integer_adm_scale0..3
 *   with debug: integer_adm, integer_adm_num, integer_adm_den,
 *   integer_adm_num_scale0, integer_adm_den_scale0, .. _scale3
 */
#ifndef TVMAF_ADM_STATE_H
#define TVMAF_ADM_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/feature.h"
#include "core/options.h"
#include "feature/adm/adm_math.h"

#define ADM_KEY_LEN 256
#define ADM_N_KEYS 18

/* Geometry and constants of one scale's bands (the output of its DWT). */
typedef struct AdmScale {
    int w, h;                       /* band size */
    int in_w, in_h;                 /* size of the DWT input */
    int work_l, work_r, work_t, work_b; /* decouple and csf region */
    int l, r, t, b;                 /* den and cm region */
    float weight[3];                /* CSF weights of h, v, d */
    uint16_t rfac16[3];             /* scale 0: weights in Q21 (h, v) and Q23 (d) */
    uint32_t rfac32[3];             /* scales 1..3: weights in Q32 */
    /* den: scale 0 rounds row totals by 2^den_row_shift; scales 1..3 round
     * each term's square (den_sq_shift) and cube (den_cub_shift) too */
    int den_row_shift, den_sq_shift, den_cub_shift;
    uint64_t den_row_add, den_cub_add;
    /* cm: term shifts per orientation, row rounding */
    AdmCmShift cm[3];
    int cm_row_shift;
    int64_t cm_row_add;
} AdmScale;

typedef struct AdmState {
    /* options */
    bool debug;
    double csf_scale;
    double csf_diag_scale;
    double dlm_weight;
    double enhn_gain_limit;
    double norm_view_dist;
    int ref_display_height;
    int csf_mode;
    double noise_weight;
    bool skip_aim;
    bool skip_scale0;
    double min_val;
    char reference_isa[TVMAF_OPT_STRING_LEN]; /* "avx512", "avx2" or "c" */
    /* derived at setup */
    int isa;                        /* enum AdmIsa, from reference_isa */
    unsigned w, h, bpc;
    float cos_1deg_sq;
    AdmScale sc[4];
    char key[ADM_N_KEYS][ADM_KEY_LEN];
} AdmState;

/* Integer totals of one frame and scale, per orientation h, v, d: the
 * reference's den (sum of cubes), and the cm sums of the DLM (num) and AIM
 * measures. Exact integers, whatever order they were added in. */
typedef struct AdmScaleSums {
    uint64_t den[3];
    int64_t num[3];
    int64_t aim[3];
} AdmScaleSums;

extern const TvmafOption tvmaf_adm_options[];
/* Every output name (NULL-terminated), for each backend's extractor. */
extern const char *const tvmaf_adm_provided[];

/* Checks the input and the viewing condition, derives every AdmScale, builds
 * the keys. */
int tvmaf_adm_setup(AdmState *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* The outputs of a frame from its integer totals (sums[0] unused with
 * skip_scale0), in the order of key[]: the first 7, or all ADM_N_KEYS with
 * debug. Returns how many. */
unsigned tvmaf_adm_values(const AdmState *s, const AdmScaleSums sums[4],
                          double values[ADM_N_KEYS]);
/* Finishes a frame from its integer totals (sums[0] unused with
 * skip_scale0) and appends its outputs. */
int tvmaf_adm_report(const AdmState *s, const AdmScaleSums sums[4], unsigned index,
                     TvmafSink *sink);

/* Whether a ladder's pairs can share the reference's DWT bands (CPU: kept
 * with the picture; CUDA: the reference pass into the ladder's area), after
 * tvmaf_adm_setup: no scale 1..3 has the DWT defect (adm_math.h, "Which
 * reference build"), whose reference pass reads the distorted band. Scale
 * 0's defect never comes alone: a row that ends a block of 32, 64 or 16
 * outputs there (w0 = b m + 1) makes scale 1 end a block of 8 or 4
 * (w1 = b/2 m + 1), so the shared bands are a function of the picture's
 * samples alone. */
static inline int adm_ref_bands_shareable(const AdmState *s)
{
    for (int k = 1; k < 4; k++)
        if (adm_dwt_reads_past(s->sc[k].w, adm_dwt_block(s->isa, k, (int)s->bpc))) return 0;
    return 1;
}

/* The CPU extractor's integer totals of one frame (options from opts, set
 * up again for vi), for tests comparing another backend's totals. */
int tvmaf_adm_cpu_sums(const AdmState *opts, const TvmafVideoInfo *vi, const TvmafPicture *ref,
                       const TvmafPicture *dis, AdmScaleSums sums[4]);

#endif
