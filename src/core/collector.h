/*
 * Score collector: per-frame values by key, and stream-level aggregates.
 *
 * Keys are listed in the order a single-threaded run of the reference would
 * first append them: by (frame index, extractor order, append order within
 * that call), with end-of-stream appends after every frame. Workers append
 * concurrently; the order does not depend on which thread came first.
 */
#ifndef TVMAF_CORE_COLLECTOR_H
#define TVMAF_CORE_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

typedef struct TvmafCollector TvmafCollector;

typedef struct TvmafOrder {
    uint32_t phase; /* frame index, or UINT32_MAX for end of stream */
    uint32_t ext;   /* extractor registration order */
    uint32_t seq;   /* append number within the call */
} TvmafOrder;

int tvmaf_collector_create(TvmafCollector **c);
void tvmaf_collector_destroy(TvmafCollector *c);

int tvmaf_collector_append(TvmafCollector *c, const char *key, unsigned index,
                           double value, TvmafOrder order);
int tvmaf_collector_set_aggregate(TvmafCollector *c, const char *key, double value,
                                  TvmafOrder order);

/* Adds every per-frame value of src to dst at its index + offset (frame
 * phases of the orders shifted alike); keys new to dst are listed where a
 * single run would list them. Aggregates are not copied. */
int tvmaf_collector_absorb(TvmafCollector *dst, TvmafCollector *src, unsigned offset);

/* Read side; call only when no append is running. Keys are in output order. */
unsigned tvmaf_collector_key_count(TvmafCollector *c);
const char *tvmaf_collector_key(TvmafCollector *c, unsigned k);
/* Number of frame slots of key k (one past its highest written index). */
unsigned tvmaf_collector_key_capacity(TvmafCollector *c, unsigned k);
bool tvmaf_collector_get(TvmafCollector *c, unsigned k, unsigned index, double *value);
int tvmaf_collector_find(TvmafCollector *c, const char *key); /* -1 if absent */

unsigned tvmaf_collector_aggregate_count(TvmafCollector *c);
const char *tvmaf_collector_aggregate_key(TvmafCollector *c, unsigned i);
double tvmaf_collector_aggregate_value(TvmafCollector *c, unsigned i);

#endif
