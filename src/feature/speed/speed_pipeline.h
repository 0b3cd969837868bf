/*
 * The SpEED pipeline shared by speed_chroma and speed_temporal: one image
 * (a float plane) in, its per-block entropies and variances out; two of
 * those make a score. The arithmetic is in speed_math.h.
 */
#ifndef TVMAF_SPEED_PIPELINE_H
#define TVMAF_SPEED_PIPELINE_H

#include <stddef.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#include "feature/speed/speed_math.h"

/* What a SpEED extractor's options set. */
typedef struct SpeedParams {
    double kernelscale;
    double prescale;
    const char *method; /* nearest, bilinear, bicubic or lanczos4 */
    double sigma_nn;
    double nn_floor;
    int weight_var_mode; /* 0..6 */
} SpeedParams;

struct SpeedPipeline;

/* The per-image work in one SIMD level's instruction set (speed_image.h):
 * the plane load (speed_load_plane below) and speed_pipeline_image. */
typedef struct SpeedKernels {
    void (*load_plane)(const TvmafPicture *pic, int plane, int pw, int ph,
                       const unsigned char *rows, float *dst);
    int (*image)(struct SpeedPipeline *p, const float *img, ptrdiff_t stride, int side);
} SpeedKernels;

typedef struct SpeedPipeline {
    /* the per-image kernels: the baseline's after speed_pipeline_init; the
     * extractors then take their CPU flags' (tvmaf_speed_dsp_init) */
    SpeedKernels kern;

    /* parameters as the arithmetic takes them */
    float sigma_nn, nn_floor;
    int mode;
    enum FfilterScaler method;

    /* geometry */
    int pw, ph;   /* the plane given to speed_pipeline_image() */
    int sw, sh;   /* after the prescale */
    int resize;   /* whether a scaler runs (prescale not ~1, size changed) */
    SpeedGrid g;  /* the decimated image and its blocks */

    /* filters */
    float aa[FFILTER_MAX_TAPS], lm[FFILTER_MAX_TAPS];
    int aa_w, lm_w;

    /* scaler tables: taps indices and weights per destination column / row */
    int taps;
    int *xi, *yi;
    float *xw, *yw;
    unsigned char *need_col, *need_row; /* samples the anti-alias pass reads */
    /* without a scaler: the plane's rows the anti-alias pass reads (every
     * 16th row's window: about 9 rows in 16), the only rows loaded; NULL
     * with a scaler (all are) or without the work buffers */
    unsigned char *load_rows;

    /* buffers */
    float *scaled;       /* sw x sh */
    float *ext;          /* one filtered row with mirrored margins */
    const float **rows;  /* rows under the vertical taps */
    float *dec, *mu;     /* decimated image and its local mean, ow x oh */
    float *k, *means, *ev, *eig_scratch, *solve_scratch;
    float *b, *x, *qb;   /* 25 x nb */
    float *ent[2], *var[2];
} SpeedPipeline;

/* Outcome of speed_pipeline_init(). */
enum SpeedInitStatus {
    SPEED_INIT_OK = 0,
    SPEED_INIT_NOMEM,
    SPEED_INIT_BAD_KERNELSCALE, /* not one of the accepted kernel scales */
    SPEED_INIT_BAD_METHOD,      /* not a known prescale method */
    SPEED_INIT_TOO_SMALL,       /* fewer than 80 samples on a side after the prescale */
    SPEED_INIT_UNSCALED_GROWTH, /* prescale within 1e-3 of 1 but a side would grow */
};

/* Prepares for planes of pw x ph samples. On failure nothing stays allocated. */
enum SpeedInitStatus speed_pipeline_init(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph);
/* What speed_pipeline_init does without the work buffers of
 * speed_pipeline_image: the checks, the geometry, the filters, the scaler's
 * tables and the per-block ent / var arrays (what a device twin needs). */
enum SpeedInitStatus speed_pipeline_plan(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph);
void speed_pipeline_close(SpeedPipeline *p);

/* Smallest plane side that reaches SPEED_MIN_SIDE after the prescale. */
int speed_min_plane_side(double prescale);

/* The scaler named `method`, or -1. */
int speed_method(const char *method);

/*
 * Loads plane `p` of a picture as floats centred on zero (8-bit v + (-128);
 * deeper v / 2^(bpc-8) + (-128)) into dst (pw x ph, rows of pw), with p's
 * kernels: the rows speed_pipeline_image reads (p->load_rows), the others
 * left as they are.
 */
static inline void speed_load_plane(const struct SpeedPipeline *p, const TvmafPicture *pic,
                                    int plane, int pw, int ph, float *dst)
{
    p->kern.load_plane(pic, plane, pw, ph, p->load_rows, dst);
}

/*
 * Statistics of one image (pw x ph floats, rows of `stride`; not modified)
 * into side `side` (0 reference, 1 distorted). Returns 1 when its covariance
 * matrix is singular (all its variances are then 0), else 0.
 */
static inline int speed_pipeline_image(SpeedPipeline *p, const float *img, ptrdiff_t stride,
                                       int side)
{
    return p->kern.image(p, img, stride, side);
}

extern const SpeedKernels tvmaf_speed_kernels_c;
#if TVMAF_X86_SIMD
extern const SpeedKernels tvmaf_speed_kernels_avx2, tvmaf_speed_kernels_avx512,
    tvmaf_speed_kernels_avx512icl;
#endif

/* Fills c with the per-image kernels for these CPU flags (core/cpu.h): the
 * baseline's, then each x86 level's (TVMAF_DSP_INIT_X86). */
void tvmaf_speed_dsp_init(SpeedKernels *c, unsigned cpu_flags);

/* The entropies of side `side` (p->ent[side]) from the image's eigenvalues
 * ev and the variances in p->var[side] (the C library's log2: the host's
 * part of a device twin's work too). */
void speed_pipeline_entropies(SpeedPipeline *p, const float *ev, int side);

/* Score of the two sides, as the reference forms it: 0 when exactly one side
 * was singular (singular_ref != singular_dis). */
float speed_pipeline_score(const SpeedPipeline *p, int singular_ref, int singular_dis);

#endif
