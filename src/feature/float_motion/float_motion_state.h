/* Shared by the float_motion extractors of every backend: options, the
 * stream's state, the checks, the frame plan and the outputs. Everything
 * after the motion values is this code, whatever computed them. */
#ifndef TVMAF_FLOAT_MOTION_STATE_H
#define TVMAF_FLOAT_MOTION_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/feature.h"

#define FMOT_KEY_LEN 160
#define FMOT_MAX_PLANES 3
/* Warm-up frames before a range of a split video (TvmafExtractor's
 * warmup_frames): frame i's outputs (written at frame i+1) compare the
 * blurred planes of frames i-1, i and i+1, so one frame before the range
 * rebuilds them; later state (`last`) is set from frame i on. */
#define FMOT_WARMUP_FRAMES 1
/* blurred reference planes kept: frame k in slot k % FMOT_RING */
#define FMOT_RING 3

typedef struct FloatMotionParams {
    /* options */
    bool debug;
    bool force_zero;
    double fps_weight;
    double blend_factor;
    double blend_offset;
    bool add_scale1;
    int filter_size;
    bool add_uv;
    double max_val;

    /* stream */
    unsigned bpc;
    int n_planes;
    int pw[FMOT_MAX_PLANES], ph[FMOT_MAX_PLANES];
    int stride;                 /* floats per row of every blurred plane */
    const float *taps;
    int fw;
    char key_motion[FMOT_KEY_LEN], key_motion2[FMOT_KEY_LEN], key_motion3[FMOT_KEY_LEN];
    unsigned n_frames;          /* frames seen */
    double last;                /* motion of the latest frame (unscaled) */
} FloatMotionParams;

/* What frame `index` needs: its planes blurred into slot cur (blur), and
 * n_motions motions: motion[0] between slots prev and cur, motion[1]
 * between prev and prev2. */
typedef struct FmotFrame {
    unsigned cur, prev, prev2;
    int n_motions;
    bool blur;
} FmotFrame;

extern const TvmafOption tvmaf_float_motion_options[];

/* The CPU extractor's checks (a refusal writes the message) and the stream. */
int tvmaf_float_motion_setup(FloatMotionParams *s, const TvmafVideoInfo *vi, char *msg,
                             size_t len);
/* Frames come in index order (else -EINVAL); counts the frame. */
int tvmaf_float_motion_plan(FloatMotionParams *s, unsigned index, FmotFrame *f);
/* One output value; a frame or the end gives at most FMOT_MAX_OUTPUTS. */
#define FMOT_MAX_OUTPUTS 3
typedef struct FmotOutput {
    const char *key;
    unsigned index;
    double value;
} FmotOutput;

/* Frame index's outputs from the plan's motions, in the order they are
 * appended; returns how many. */
unsigned tvmaf_float_motion_outputs(FloatMotionParams *s, unsigned index, const double motion[2],
                                    FmotOutput out[FMOT_MAX_OUTPUTS]);
/* The end of the stream's outputs. */
unsigned tvmaf_float_motion_end(const FloatMotionParams *s, FmotOutput out[FMOT_MAX_OUTPUTS]);
/* Appends frame index's outputs (tvmaf_float_motion_outputs). */
int tvmaf_float_motion_report(FloatMotionParams *s, unsigned index, const double motion[2],
                              TvmafSink *sink);
/* Appends the end of the stream's outputs (tvmaf_float_motion_end). */
int tvmaf_float_motion_flush(FloatMotionParams *s, TvmafSink *sink);

#endif
