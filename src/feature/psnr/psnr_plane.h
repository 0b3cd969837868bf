/* Shared by the psnr extractors of every backend: options, state, outputs. */
#ifndef TVMAF_PSNR_PLANE_H
#define TVMAF_PSNR_PLANE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/feature.h"

typedef struct PsnrParams {
    bool enable_chroma;
    bool enable_mse;
    bool enable_apsnr;
    bool reduced_hbd_peak;
    double min_sse;
    /* derived at init */
    unsigned n_planes;
    uint32_t peak;
    double psnr_max[3];
    unsigned pw[3], ph[3];
    /* stream totals for apsnr */
    uint64_t sse_total[3];
    uint64_t pixels_total[3];
} PsnrParams;

extern const TvmafOption tvmaf_psnr_options[];

int tvmaf_psnr_params_init(PsnrParams *p, const TvmafVideoInfo *vi);
/* Appends psnr (and mse) of frame `index` from the planes' SSEs. */
int tvmaf_psnr_report(PsnrParams *p, const uint64_t sse[3], unsigned index, TvmafSink *sink);
int tvmaf_psnr_merge(PsnrParams *dst, const PsnrParams *src);
int tvmaf_psnr_flush(PsnrParams *p, TvmafSink *sink);

#endif
