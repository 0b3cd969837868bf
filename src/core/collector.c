#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/collector.h"

typedef struct Key {
    char *name;
    TvmafOrder first;
    double *value;
    unsigned char *written;
    unsigned cap;
} Key;

typedef struct Aggregate {
    char *name;
    double value;
    TvmafOrder first;
} Aggregate;

struct TvmafCollector {
    pthread_mutex_t lock;
    Key *keys;
    unsigned n_keys, cap_keys;
    Aggregate *agg;
    unsigned n_agg, cap_agg;
    bool sorted;
};

static int order_cmp(TvmafOrder a, TvmafOrder b)
{
    if (a.phase != b.phase) return a.phase < b.phase ? -1 : 1;
    if (a.ext != b.ext) return a.ext < b.ext ? -1 : 1;
    if (a.seq != b.seq) return a.seq < b.seq ? -1 : 1;
    return 0;
}

int tvmaf_collector_create(TvmafCollector **c)
{
    *c = calloc(1, sizeof(**c));
    if (!*c) return -ENOMEM;
    pthread_mutex_init(&(*c)->lock, NULL);
    return 0;
}

void tvmaf_collector_destroy(TvmafCollector *c)
{
    if (!c) return;
    for (unsigned i = 0; i < c->n_keys; i++) {
        free(c->keys[i].name);
        free(c->keys[i].value);
        free(c->keys[i].written);
    }
    for (unsigned i = 0; i < c->n_agg; i++) free(c->agg[i].name);
    free(c->keys);
    free(c->agg);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static Key *find_or_add(TvmafCollector *c, const char *name, TvmafOrder order)
{
    for (unsigned i = 0; i < c->n_keys; i++) {
        if (!strcmp(c->keys[i].name, name)) {
            if (order_cmp(order, c->keys[i].first) < 0) {
                c->keys[i].first = order;
                c->sorted = false;
            }
            return &c->keys[i];
        }
    }
    if (c->n_keys == c->cap_keys) {
        unsigned cap = c->cap_keys ? 2 * c->cap_keys : 16;
        Key *k = realloc(c->keys, cap * sizeof(*k));
        if (!k) return NULL;
        c->keys = k;
        c->cap_keys = cap;
    }
    Key *k = &c->keys[c->n_keys];
    memset(k, 0, sizeof(*k));
    k->name = strdup(name);
    if (!k->name) return NULL;
    k->first = order;
    c->n_keys++;
    c->sorted = false;
    return k;
}

int tvmaf_collector_append(TvmafCollector *c, const char *key, unsigned index,
                           double value, TvmafOrder order)
{
    int err = 0;
    pthread_mutex_lock(&c->lock);
    Key *k = find_or_add(c, key, order);
    if (!k) { err = -ENOMEM; goto out; }
    if (index >= k->cap) {
        unsigned cap = k->cap ? k->cap : 64;
        while (cap <= index) cap *= 2;
        double *v = realloc(k->value, cap * sizeof(*v));
        if (!v) { err = -ENOMEM; goto out; }
        k->value = v;
        unsigned char *w = realloc(k->written, cap);
        if (!w) { err = -ENOMEM; goto out; }
        memset(w + k->cap, 0, cap - k->cap);
        k->written = w;
        k->cap = cap;
    }
    if (k->written[index]) { err = -EEXIST; goto out; }
    k->written[index] = 1;
    k->value[index] = value;
out:
    pthread_mutex_unlock(&c->lock);
    return err;
}

int tvmaf_collector_set_aggregate(TvmafCollector *c, const char *key, double value,
                                  TvmafOrder order)
{
    int err = 0;
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->n_agg; i++) {
        if (!strcmp(c->agg[i].name, key)) {
            err = c->agg[i].value == value ? 0 : -EEXIST;
            goto out;
        }
    }
    if (c->n_agg == c->cap_agg) {
        unsigned cap = c->cap_agg ? 2 * c->cap_agg : 8;
        Aggregate *a = realloc(c->agg, cap * sizeof(*a));
        if (!a) { err = -ENOMEM; goto out; }
        c->agg = a;
        c->cap_agg = cap;
    }
    c->agg[c->n_agg].name = strdup(key);
    if (!c->agg[c->n_agg].name) { err = -ENOMEM; goto out; }
    c->agg[c->n_agg].value = value;
    c->agg[c->n_agg].first = order;
    c->n_agg++;
    c->sorted = false;
out:
    pthread_mutex_unlock(&c->lock);
    return err;
}

int tvmaf_collector_absorb(TvmafCollector *dst, TvmafCollector *src, unsigned offset)
{
    int err = 0;
    pthread_mutex_lock(&src->lock);
    for (unsigned k = 0; k < src->n_keys && !err; k++) {
        const Key *sk = &src->keys[k];
        TvmafOrder first = sk->first;
        if (first.phase != UINT32_MAX) first.phase += offset;
        for (unsigned i = 0; i < sk->cap && !err; i++)
            if (sk->written[i])
                err = tvmaf_collector_append(dst, sk->name, i + offset, sk->value[i], first);
    }
    pthread_mutex_unlock(&src->lock);
    return err;
}

static int key_cmp(const void *a, const void *b)
{
    return order_cmp(((const Key *)a)->first, ((const Key *)b)->first);
}

static int agg_cmp(const void *a, const void *b)
{
    return order_cmp(((const Aggregate *)a)->first, ((const Aggregate *)b)->first);
}

static void sort_keys(TvmafCollector *c)
{
    if (c->sorted) return;
    /* (phase, ext, seq) is unique per key's first append, so the sort is total */
    if (c->n_keys) qsort(c->keys, c->n_keys, sizeof(*c->keys), key_cmp);
    if (c->n_agg) qsort(c->agg, c->n_agg, sizeof(*c->agg), agg_cmp);
    c->sorted = true;
}

unsigned tvmaf_collector_key_count(TvmafCollector *c) { sort_keys(c); return c->n_keys; }
const char *tvmaf_collector_key(TvmafCollector *c, unsigned k) { sort_keys(c); return c->keys[k].name; }

unsigned tvmaf_collector_key_capacity(TvmafCollector *c, unsigned k)
{
    sort_keys(c);
    const Key *key = &c->keys[k];
    unsigned n = key->cap;
    while (n && !key->written[n - 1]) n--;
    return n;
}

bool tvmaf_collector_get(TvmafCollector *c, unsigned k, unsigned index, double *value)
{
    sort_keys(c);
    const Key *key = &c->keys[k];
    if (index >= key->cap || !key->written[index]) return false;
    *value = key->value[index];
    return true;
}

int tvmaf_collector_find(TvmafCollector *c, const char *name)
{
    sort_keys(c);
    for (unsigned i = 0; i < c->n_keys; i++)
        if (!strcmp(c->keys[i].name, name)) return (int)i;
    return -1;
}

unsigned tvmaf_collector_aggregate_count(TvmafCollector *c) { sort_keys(c); return c->n_agg; }
const char *tvmaf_collector_aggregate_key(TvmafCollector *c, unsigned i) { sort_keys(c); return c->agg[i].name; }
double tvmaf_collector_aggregate_value(TvmafCollector *c, unsigned i) { sort_keys(c); return c->agg[i].value; }
