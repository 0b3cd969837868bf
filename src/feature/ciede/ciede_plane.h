/* Shared by the ciede extractors of every backend. */
#ifndef TVMAF_CIEDE_PLANE_H
#define TVMAF_CIEDE_PLANE_H

#include "core/feature.h"

/* Refuses inputs ciede cannot score (no chroma). */
int tvmaf_ciede_check(const TvmafVideoInfo *vi, char *msg, size_t len);
/* 420, 422 or 444, the layout argument of ciede_chroma_offset(). */
int tvmaf_ciede_layout(enum TvmafPixelFormat fmt);

#endif
