/* Shared by the ciede extractors of every backend. */
#ifndef TVMAF_CIEDE_PLANE_H
#define TVMAF_CIEDE_PLANE_H

#include "core/feature.h"

/* Refuses inputs ciede cannot score (no chroma). */
int tvmaf_ciede_check(const TvmafVideoInfo *vi, char *msg, size_t len);
/* 420, 422 or 444, the layout argument of ciede_chroma_offset(). */
int tvmaf_ciede_layout(enum TvmafPixelFormat fmt);
/* A twin's plane of per-pixel dE00 (raster order, the pictures' size) in
 * which the device left the pixels it could not decide as NaN: each is
 * replaced by the CPU's dE00 of that pixel from the host pictures. Returns how
 * many were replaced. */
unsigned long tvmaf_ciede_decide(float *de, const TvmafPicture *ref, const TvmafPicture *dis);

#endif
