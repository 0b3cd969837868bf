/* Shared by the cambi extractors of every backend: the options, the checks
 * and refusals, the constants derived from them (display-model limits, the
 * band, the reciprocal table, the geometries), the heat maps and the
 * outputs. A device twin computes each scale's c-values; the pooling, the
 * heat maps and the outputs are this code and cambi_math.h's. */
#ifndef TVMAF_CAMBI_STATE_H
#define TVMAF_CAMBI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/feature.h"
#include "feature/cambi/cambi_math.h"

#define CAMBI_KEY_LEN 256

/* one picture's processing size and window */
typedef struct CambiGeom {
    unsigned w, h; /* the size the picture is resampled to */
    int window;    /* odd window side */
} CambiGeom;

typedef struct CambiParams {
    /* options */
    double cambi_max_val;
    int enc_width, enc_height, enc_bitdepth;
    int src_width, src_height;
    int window_size;
    double topk, cambi_topk;
    double tvi_threshold;
    double cambi_vis_lum_threshold;
    int max_log_contrast;
    char heatmaps_path[TVMAF_OPT_STRING_LEN];
    bool full_ref;
    char eotf[TVMAF_OPT_STRING_LEN];
    char cambi_eotf[TVMAF_OPT_STRING_LEN];
    int cambi_high_res_speedup;

    /* derived at set-up */
    unsigned in_w, in_h;  /* the input's luma */
    CambiGeom enc, src;
    bool halved;          /* high-resolution speed-up in effect */
    unsigned work_bits;   /* encode bit depth (anti-dithering below 10) */
    double pool_topk;
    int num_diffs;
    uint16_t limit[CAMBI_MAX_DIFFS]; /* visibility limits + num_diffs */
    int vlt_code;
    CambiBand band;
    bool any_gate;        /* some pixel value can get a non-zero c-value */
    float recip[CAMBI_RECIP_SIZE];
    unsigned alloc_w, alloc_h;
    ptrdiff_t stride;     /* of the image and mask buffers, in samples */
    int heat_fd[CAMBI_NUM_SCALES];

    char key[3][CAMBI_KEY_LEN]; /* score, source, full reference */
} CambiParams;

extern const TvmafOption tvmaf_cambi_options[];
extern const char *const tvmaf_cambi_provided[];

/* The CPU extractor's checks (a refusal writes the message), the derived
 * constants, and the heat-map files opened when heatmaps_path is set. The
 * caller runs tvmaf_cambi_params_close whether or not this succeeded. */
int tvmaf_cambi_setup(CambiParams *p, const TvmafVideoInfo *vi, char *msg, size_t len);
void tvmaf_cambi_params_close(CambiParams *p);

/* Whether the input's luma samples are within its bit depth (the CPU
 * refuses the frame otherwise). */
bool tvmaf_cambi_samples_in_range(const TvmafPicture *pic);

/* Writes scale `scale`'s c-values (w x h, rows of w) of frame `index` to
 * its heat map; row: w samples of scratch. */
int tvmaf_cambi_write_heatmap(const CambiParams *p, int scale, unsigned w, unsigned h,
                              int window, unsigned index, const float *cval, uint16_t *row);

/* Appends frame index's outputs: the distorted picture's score and, with
 * src (full_ref), the source's and the banding the encode added. */
int tvmaf_cambi_report(const CambiParams *p, unsigned index, double dist, const double *src,
                       TvmafSink *sink);

/* c-values of a picture of geometry g: the sum of its scales' areas (the
 * twin's c-value buffer holds them) */
static inline size_t cambi_pic_values(const CambiParams *p, const CambiGeom *g)
{
    size_t n = 0;
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        cambi_scale_step(k, p->halved, &w, &h);
        n += (size_t)w * h;
    }
    return n;
}

#endif
