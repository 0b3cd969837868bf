/* Shared by the psnr_hvs extractors of every backend: the checks, the
 * per-plane weights and the outputs. */
#ifndef TVMAF_PSNR_HVS_STATE_H
#define TVMAF_PSNR_HVS_STATE_H

#include <stddef.h>

#include "core/feature.h"
#include "feature/psnr_hvs/psnr_hvs_math.h"

typedef struct PsnrHvsParams {
    unsigned bpc;
    PhvsWeights weights[3]; /* Y, Cb, Cr */
} PsnrHvsParams;

/* The CPU extractor's checks (a refusal writes the message and returns
 * -EINVAL) and the weights. */
int tvmaf_psnr_hvs_setup(PsnrHvsParams *s, const TvmafVideoInfo *vi, char *msg, size_t len);
/* Appends frame index's outputs from the three plane scores (before dB). */
int tvmaf_psnr_hvs_report(const double score[3], unsigned index, TvmafSink *sink);

#endif
