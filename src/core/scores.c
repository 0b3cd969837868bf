/*
 * Read-only listing of what a run collected: the frame range, the per-frame
 * keys in output order (internal name and printed label) and the aggregate
 * keys. Callers read after tvmaf_flush(), when no worker appends.
 */
#include <stddef.h>

#include "core/feature_name.h"
#include "core/internal.h"
#include "tvmaf/tvmaf.h"

unsigned tvmaf_frame_count(const TvmafContext *ctx)
{
    return ctx ? tvmaf_context_pic_count(ctx) : 0;
}

unsigned tvmaf_score_key_count(TvmafContext *ctx)
{
    return ctx ? tvmaf_collector_key_count(tvmaf_context_collector(ctx)) : 0;
}

const char *tvmaf_score_key(TvmafContext *ctx, unsigned k)
{
    if (!ctx || k >= tvmaf_score_key_count(ctx)) return NULL;
    return tvmaf_collector_key(tvmaf_context_collector(ctx), k);
}

const char *tvmaf_score_key_label(TvmafContext *ctx, unsigned k)
{
    const char *key = tvmaf_score_key(ctx, k);
    return key ? tvmaf_feature_alias(key) : NULL;
}

unsigned tvmaf_aggregate_count(TvmafContext *ctx)
{
    return ctx ? tvmaf_collector_aggregate_count(tvmaf_context_collector(ctx)) : 0;
}

const char *tvmaf_aggregate_key(TvmafContext *ctx, unsigned i)
{
    if (!ctx || i >= tvmaf_aggregate_count(ctx)) return NULL;
    return tvmaf_collector_aggregate_key(tvmaf_context_collector(ctx), i);
}
