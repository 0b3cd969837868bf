/*
 * Shared by the integer motion extractors of every backend: options, output
 * key names, the per-frame SAD history and the end-of-stream outputs.
 *
 * Outputs (libvmaf's integer motion, names with option suffixes):
 *   per frame, at extract:  VMAF_integer_feature_motion_sad_score
 *                           (and VMAF_integer_feature_motion_score with debug)
 *   every frame, at flush:  VMAF_integer_feature_motion2_score, then
 *                           VMAF_integer_feature_motion3_score, frame by frame
 * motion2/motion3 of a frame need the SAD of the next frame, so the reference
 * writes them all at the end of the stream; so does this.
 */
#ifndef TVMAF_MOTION_STATE_H
#define TVMAF_MOTION_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/feature.h"

#define MOTION_KEY_LEN 256

/* Warm-up frames before a range of a split video (TvmafExtractor's
 * warmup_frames). Frame i's motion2 takes the sad scores of frames i+1-lag
 * and i+1, its motion3 (moving average) also frame i-1's motion2, so the
 * sad scores of frames a-lag.. must be the whole video's: a sad score
 * compares with the frame `lag` before, so a range starting at a needs
 * frames a-2*lag.. (with fewer, motion_window takes its start-of-video
 * branch for frame a-1). 2 * the five-frame window's lag covers both. */
#define MOTION_WARMUP_FRAMES 4

typedef struct MotionState {
    /* options */
    bool force_zero;
    double blend_factor;
    double blend_offset;
    double fps_weight;
    double max_val;
    bool five_frame_window;
    bool moving_average;
    bool debug;
    /* derived at setup */
    unsigned w, h, bpc;
    char key_sad[MOTION_KEY_LEN];
    char key_motion[MOTION_KEY_LEN];
    char key_motion2[MOTION_KEY_LEN];
    char key_motion3[MOTION_KEY_LEN];
    /* sad score of every frame recorded, by index (have[i]: frame i's is
     * there); n_sad is one past the highest index recorded. An instance of
     * the CPU extractor records the frames its worker scored; the context
     * gathers them all into one before flush. */
    double *sad;
    unsigned char *have;
    unsigned n_sad, cap_sad;
} MotionState;

extern const TvmafOption tvmaf_motion_options[];
/* the outputs of both extractors (CPU and twin), NULL-terminated */
extern const char *const tvmaf_motion_provided[];

/* Frames between the two pictures compared: 2 with the five-frame window. */
static inline unsigned motion_lag(const MotionState *s)
{
    return s->five_frame_window ? 2 : 1;
}

/* Checks the input (luma at least MOTION_MIN_SIDE square) and builds the keys. */
int tvmaf_motion_setup(MotionState *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* Whether frame `index` compares two pictures (false: its score is 0). */
bool tvmaf_motion_compares(const MotionState *s, unsigned index);
/* Keeps frame `index`'s sad score, computed from its SAD (ignored when the
 * frame compares nothing), for flush, and returns it in *out. Frames may
 * come in any order, each once. */
int tvmaf_motion_record(MotionState *s, uint64_t sad, unsigned index, double *out);
/* tvmaf_motion_record, then appends the score. */
int tvmaf_motion_report(MotionState *s, uint64_t sad, unsigned index, TvmafSink *sink);
/* motion2 and motion3 of frame i from the scores of every frame recorded.
 * Call for i = 0, 1, 2, ... in turn: *carry passes the clipped blend of one
 * frame to the next (the moving average needs it). */
void tvmaf_motion_window(const MotionState *s, unsigned i, double *carry, double *m2,
                         double *m3);
/* Takes the scores `src` recorded into `dst` (-EINVAL if both hold a frame). */
int tvmaf_motion_gather(MotionState *dst, const MotionState *src);
/* Appends motion2 and motion3 of every frame (-EINVAL if a frame below the
 * highest recorded is missing). */
int tvmaf_motion_flush(MotionState *s, TvmafSink *sink);
void tvmaf_motion_release(MotionState *s);

#endif
