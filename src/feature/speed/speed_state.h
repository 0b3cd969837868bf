/* Shared by the speed_chroma and speed_temporal extractors of every backend:
 * options, the checks and refusals, the stream's constants (the pipeline's
 * plan: geometry, filters, scaler tables) and the outputs. A device twin
 * computes each image's eigenvalues and block variances; everything after
 * them (entropies, score, outputs) is this code and speed_pipeline.c's. */
#ifndef TVMAF_SPEED_STATE_H
#define TVMAF_SPEED_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"
#include "feature/speed/speed_pipeline.h"

#define SPEED_KEY_LEN 192

/* speed_temporal's flags and warm-up: a frame is scored against the one
 * before it, so one earlier frame rebuilds its state. */
#define SPEED_TEMPORAL_FLAGS (TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES | TVMAF_FEX_LUMA_ONLY)
#define SPEED_TEMPORAL_WARMUP_FRAMES 1

typedef struct SpeedChromaParams {
    /* options */
    double kernelscale;
    double prescale;
    char method[TVMAF_OPT_STRING_LEN];
    double sigma_nn;
    double nn_floor;
    double max_val;
    int weight_var_mode;

    /* stream */
    SpeedPipeline pl;
    unsigned bpc;
    int pw, ph; /* the chroma planes */
    char key[3][SPEED_KEY_LEN];
    /* the first frame this instance found a singular image in (UINT_MAX:
     * none), and whether its warning went out (flush) */
    unsigned first_singular;
    bool singular_warned;
} SpeedChromaParams;

typedef struct SpeedTemporalParams {
    /* options */
    double kernelscale;
    double prescale;
    char method[TVMAF_OPT_STRING_LEN];
    double sigma_nn;
    double nn_floor;
    double max_val; /* names the output only */
    bool use_ref_diff;

    /* stream */
    SpeedPipeline pl;
    unsigned bpc;
    int w, h; /* luma */
    unsigned n_frames;
    char key[SPEED_KEY_LEN];
    bool singular_warned; /* the stream's warning went out */
} SpeedTemporalParams;

extern const TvmafOption tvmaf_speed_chroma_options[];
extern const char *const tvmaf_speed_chroma_provided[];
extern const TvmafOption tvmaf_speed_temporal_options[];
extern const char *const tvmaf_speed_temporal_provided[];

/* The CPU extractors' checks (a refusal writes the message) and the
 * pipeline's plan; host_buffers: also the CPU's work buffers. The caller
 * closes s->pl (speed_pipeline_close) whether or not this succeeded. */
int tvmaf_speed_chroma_setup(SpeedChromaParams *s, const TvmafVideoInfo *vi, int host_buffers,
                             char *msg, size_t len);
int tvmaf_speed_temporal_setup(SpeedTemporalParams *s, const TvmafVideoInfo *vi,
                               int host_buffers, char *msg, size_t len);

/* Appends frame index's outputs: u and v the planes' scores, su / sv whether
 * one of a plane's images was singular (noted for the warning). */
int tvmaf_speed_chroma_report(SpeedChromaParams *s, float u, int su, float v, int sv,
                              unsigned index, TvmafSink *sink);

/* speed_temporal's frame order: -EINVAL unless index is the next frame. */
int tvmaf_speed_temporal_next(SpeedTemporalParams *s, unsigned index);
/* Appends frame index's score (0 on frame 0); singular: whether one of the
 * two images was. */
int tvmaf_speed_temporal_report(SpeedTemporalParams *s, unsigned index, float score,
                                int singular, TvmafSink *sink);

#endif
