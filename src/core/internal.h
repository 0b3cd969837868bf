#ifndef TVMAF_CORE_INTERNAL_H
#define TVMAF_CORE_INTERNAL_H

#include "core/collector.h"
#include "core/feature.h"

/* Built-in extractors, every backend; NULL-terminated. */
const TvmafExtractor *const *tvmaf_extractor_list(void);

/* The extractor of `name` for `backend`, or NULL. */
const TvmafExtractor *tvmaf_find_extractor(const char *name, enum TvmafBackend backend);

TvmafCollector *tvmaf_context_collector(TvmafContext *ctx);
unsigned tvmaf_context_pic_count(const TvmafContext *ctx);
unsigned tvmaf_context_subsample(const TvmafContext *ctx);

/* Waits until no frame is in flight: the collector may then be read. */
void tvmaf_context_wait_idle(TvmafContext *ctx);

/* Collector order of keys a caller adds after the flush: beyond every
 * extractor's and tvmaf_score_model()'s (model.c's ORDER_MODEL and
 * ORDER_COLLECTION, 1 << 20 and 1 << 21 plus a key count). */
#define TVMAF_ORDER_CALLER (1u << 22)

/* The collector order of a key the caller adds now (tvmaf_import_score, a
 * model's score of one frame): after every key a one-thread run would have
 * listed by this moment and before anything added later. Each call gives a
 * new order. */
TvmafOrder tvmaf_context_caller_order(TvmafContext *ctx);

#endif
