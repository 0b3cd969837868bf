#ifndef TVMAF_CORE_INTERNAL_H
#define TVMAF_CORE_INTERNAL_H

#include "core/collector.h"
#include "core/feature.h"

/* Built-in extractors, every backend; NULL-terminated. */
extern const TvmafExtractor *const tvmaf_extractors[];

/* The extractor of `name` for `backend`, or NULL. */
const TvmafExtractor *tvmaf_find_extractor(const char *name, enum TvmafBackend backend);

TvmafCollector *tvmaf_context_collector(TvmafContext *ctx);
unsigned tvmaf_context_pic_count(const TvmafContext *ctx);
unsigned tvmaf_context_subsample(const TvmafContext *ctx);

#endif
