#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda/ref_cache.h"

/* One attachment's entries: one device allocation, cut into `n` copies. */
struct TvmafCudaRefBlock {
    TvmafCudaRefBlock *next;
    CUdeviceptr d;
    unsigned n;
    bool orphan;             /* its context detached: freed once no entry is held */
    TvmafCudaRefEntry *e;    /* n entries */
};

struct TvmafCudaRefCache {
    TvmafCudaRefCache *next; /* the process's caches, under registry_lock */
    TvmafCudaDevice *dev;
    size_t bytes;
    TvmafCudaRefDerivedSpec spec[TVMAF_CUDA_REF_MAX_DERIVED];
    unsigned n_spec;
    unsigned attached;       /* under registry_lock */
    /* under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    TvmafCudaRefBlock *blocks;
    unsigned long long tick;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static TvmafCudaRefCache *registry;

/* areas of an entry start on this many bytes */
#define AREA_ALIGN 256

static size_t area(size_t bytes)
{
    return (bytes + AREA_ALIGN - 1) & ~(size_t)(AREA_ALIGN - 1);
}

size_t tvmaf_cuda_ref_entry_bytes(size_t bytes, const TvmafCudaRefDerivedSpec *spec,
                                  unsigned n_spec)
{
    size_t n = area(bytes);
    for (unsigned k = 0; k < n_spec; k++) n += area(spec[k].bytes);
    return n;
}

static void block_free(TvmafCudaRefBlock *b)
{
    if (!b) return;
    for (unsigned i = 0; b->e && i < b->n; i++) {
        tvmaf_cuda_event_destroy(b->e[i].ready);
        for (unsigned k = 0; k < TVMAF_CUDA_REF_MAX_DERIVED; k++)
            tvmaf_cuda_event_destroy(b->e[i].derived[k].ready);
    }
    tvmaf_cuda_mem_free(b->d);
    free(b->e);
    free(b);
}

static int block_new(size_t bytes, const TvmafCudaRefDerivedSpec *spec, unsigned n_spec,
                     unsigned n, TvmafCudaRefBlock **out)
{
    TvmafCudaRefBlock *b = calloc(1, sizeof(*b));
    if (!b || !(b->e = calloc(n, sizeof(*b->e)))) {
        free(b);
        return -ENOMEM;
    }
    b->n = n;
    const size_t one = tvmaf_cuda_ref_entry_bytes(bytes, spec, n_spec);
    int err = tvmaf_cuda_mem_alloc(&b->d, one * n);
    for (unsigned i = 0; i < n && !err; i++) {
        TvmafCudaRefEntry *e = &b->e[i];
        e->d = b->d + one * i;
        err = tvmaf_cuda_event_create_sync_only(&e->ready);
        CUdeviceptr at = e->d + area(bytes);
        for (unsigned k = 0; k < n_spec && !err; k++) {
            e->derived[k].d = at;
            at += area(spec[k].bytes);
            err = tvmaf_cuda_event_create_sync_only(&e->derived[k].ready);
        }
    }
    if (err) {
        block_free(b);
        return err;
    }
    *out = b;
    return 0;
}

static bool block_idle(const TvmafCudaRefBlock *b)
{
    for (unsigned i = 0; i < b->n; i++)
        if (b->e[i].users) return false;
    return true;
}

static bool same_spec(const TvmafCudaRefCache *c, const TvmafCudaRefDerivedSpec *spec,
                      unsigned n_spec)
{
    if (c->n_spec != n_spec) return false;
    for (unsigned k = 0; k < n_spec; k++)
        if (strcmp(c->spec[k].key, spec[k].key) || c->spec[k].bytes != spec[k].bytes)
            return false;
    return true;
}

int tvmaf_cuda_ref_cache_attach(TvmafCudaDevice *dev, size_t bytes,
                                const TvmafCudaRefDerivedSpec *spec, unsigned n_spec,
                                unsigned reserve, TvmafCudaRefCache **out,
                                TvmafCudaRefBlock **out_blk)
{
    if (n_spec > TVMAF_CUDA_REF_MAX_DERIVED) return -EINVAL;
    /* the reserve's copies now, in one allocation, not while frames are
     * scored (an allocation may synchronise the device) */
    TvmafCudaRefBlock *b;
    int err = block_new(bytes, spec, n_spec, reserve, &b);
    if (err) return err;
    pthread_mutex_lock(&registry_lock);
    TvmafCudaRefCache *c = registry;
    while (c && !(c->dev == dev && c->bytes == bytes && same_spec(c, spec, n_spec))) c = c->next;
    if (!c) {
        if (!(c = calloc(1, sizeof(*c)))) {
            pthread_mutex_unlock(&registry_lock);
            block_free(b);
            return -ENOMEM;
        }
        c->dev = dev;
        c->bytes = bytes;
        c->n_spec = n_spec;
        for (unsigned k = 0; k < n_spec; k++) c->spec[k] = spec[k];
        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->cond, NULL);
        c->next = registry;
        registry = c;
    }
    c->attached++;
    pthread_mutex_lock(&c->lock);
    b->next = c->blocks;
    c->blocks = b;
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&registry_lock);
    *out = c;
    *out_blk = b;
    return 0;
}

void tvmaf_cuda_ref_cache_detach(TvmafCudaRefCache *c, TvmafCudaRefBlock *blk)
{
    if (!c) return;
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&c->lock);
    blk->orphan = true;
    /* the detached contexts' blocks that no worker holds an entry of (a
     * worker of another context may still read one: it goes at a later
     * detach, or with the cache) */
    for (TvmafCudaRefBlock **p = &c->blocks; *p;) {
        TvmafCudaRefBlock *b = *p;
        if (b->orphan && block_idle(b)) {
            *p = b->next;
            block_free(b);
        } else {
            p = &b->next;
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (--c->attached == 0) {
        TvmafCudaRefCache **p = &registry;
        while (*p != c) p = &(*p)->next;
        *p = c->next;
        /* no context is attached, so no worker holds an entry */
        while (c->blocks) {
            TvmafCudaRefBlock *b = c->blocks;
            c->blocks = b->next;
            block_free(b);
        }
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
    pthread_mutex_unlock(&registry_lock);
}

void tvmaf_cuda_ref_cache_get(TvmafCudaRefCache *c, uint64_t serial, TvmafCudaRefEntry **out,
                              bool *fill)
{
    pthread_mutex_lock(&c->lock);
    for (;;) {
        TvmafCudaRefEntry *hit = NULL, *idle = NULL;
        for (TvmafCudaRefBlock *b = c->blocks; b && !hit; b = b->next) {
            for (unsigned i = 0; i < b->n && !hit; i++) {
                TvmafCudaRefEntry *e = &b->e[i];
                if (e->serial == serial) hit = e;
                else if (!e->users && !b->orphan && (!idle || e->used_at < idle->used_at))
                    idle = e;
            }
        }
        if (hit && hit->filling) {
            /* another worker is queueing this picture's upload */
            pthread_cond_wait(&c->cond, &c->lock);
            continue;
        }
        if (hit) {
            hit->users++;
            hit->used_at = ++c->tick;
            *out = hit;
            *fill = false;
            break;
        }
        if (!idle) {
            /* every entry held: cannot happen while each worker holds at most
             * one and reserved two, but waiting is correct */
            pthread_cond_wait(&c->cond, &c->lock);
            continue;
        }
        /* the least recently used idle entry; its derived areas are stale */
        for (unsigned k = 0; k < TVMAF_CUDA_REF_MAX_DERIVED; k++) idle->derived[k].valid = false;
        idle->serial = serial;
        idle->users = 1;
        idle->filling = true;
        idle->used_at = ++c->tick;
        *out = idle;
        *fill = true;
        break;
    }
    pthread_mutex_unlock(&c->lock);
}

void tvmaf_cuda_ref_cache_filled(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, bool ok)
{
    pthread_mutex_lock(&c->lock);
    e->filling = false;
    if (!ok) e->serial = 0;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

void tvmaf_cuda_ref_cache_derived(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, unsigned k,
                                  bool *fill)
{
    TvmafCudaRefDerived *d = &e->derived[k];
    pthread_mutex_lock(&c->lock);
    /* another worker is queueing the work (a few launches) */
    while (d->filling) pthread_cond_wait(&c->cond, &c->lock);
    *fill = !d->valid;
    d->filling = *fill;
    pthread_mutex_unlock(&c->lock);
}

void tvmaf_cuda_ref_cache_derived_done(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, unsigned k,
                                       bool ok)
{
    pthread_mutex_lock(&c->lock);
    e->derived[k].filling = false;
    e->derived[k].valid = ok;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

void tvmaf_cuda_ref_cache_put(TvmafCudaRefCache *c, TvmafCudaRefEntry *e)
{
    pthread_mutex_lock(&c->lock);
    if (--e->users == 0) pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}
