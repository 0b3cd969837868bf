#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "gpu/cuda/ref_cache.h"

struct TvmafCudaRefCache {
    TvmafCudaRefCache *next; /* the process's caches, under registry_lock */
    TvmafCudaDevice *dev;
    size_t bytes;
    unsigned attached;       /* under registry_lock */
    /* under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned cap;            /* entries allowed: the attachments' reserves */
    TvmafCudaRefEntry **e;
    unsigned n;
    unsigned long long tick;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static TvmafCudaRefCache *registry;

static void entry_free(TvmafCudaRefEntry *e)
{
    tvmaf_cuda_event_destroy(e->ready);
    tvmaf_cuda_mem_free(e->d);
    free(e);
}

/* A new entry (lock held). */
static int entry_new(TvmafCudaRefCache *c, TvmafCudaRefEntry **out)
{
    TvmafCudaRefEntry **grown = realloc(c->e, (c->n + 1) * sizeof(*grown));
    if (!grown) return -ENOMEM;
    c->e = grown;
    TvmafCudaRefEntry *e = calloc(1, sizeof(*e));
    if (!e) return -ENOMEM;
    int err = tvmaf_cuda_mem_alloc(&e->d, c->bytes);
    if (!err) err = tvmaf_cuda_event_create_sync_only(&e->ready);
    if (err) {
        entry_free(e);
        return err;
    }
    c->e[c->n++] = e;
    *out = e;
    return 0;
}

int tvmaf_cuda_ref_cache_attach(TvmafCudaDevice *dev, size_t bytes, unsigned reserve,
                                TvmafCudaRefCache **out)
{
    pthread_mutex_lock(&registry_lock);
    TvmafCudaRefCache *c = registry;
    while (c && !(c->dev == dev && c->bytes == bytes)) c = c->next;
    if (!c) {
        if (!(c = calloc(1, sizeof(*c)))) {
            pthread_mutex_unlock(&registry_lock);
            return -ENOMEM;
        }
        c->dev = dev;
        c->bytes = bytes;
        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->cond, NULL);
        c->next = registry;
        registry = c;
    }
    c->attached++;
    pthread_mutex_lock(&c->lock);
    c->cap += reserve;
    /* the reserve's entries now, not while frames are scored (an allocation
     * may synchronise the device) */
    int err = 0;
    while (c->n < c->cap && !err) {
        TvmafCudaRefEntry *e;
        err = entry_new(c, &e);
    }
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&registry_lock);
    if (err) {
        tvmaf_cuda_ref_cache_detach(c, reserve);
        return err;
    }
    *out = c;
    return 0;
}

void tvmaf_cuda_ref_cache_detach(TvmafCudaRefCache *c, unsigned reserve)
{
    if (!c) return;
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&c->lock);
    c->cap -= reserve;
    /* idle entries past the reserves still attached go (a worker of another
     * context holds the others, and puts them back later) */
    for (unsigned i = 0; i < c->n && c->n > c->cap;) {
        if (c->e[i]->users) {
            i++;
            continue;
        }
        entry_free(c->e[i]);
        c->e[i] = c->e[--c->n];
    }
    pthread_mutex_unlock(&c->lock);
    if (--c->attached == 0) {
        TvmafCudaRefCache **p = &registry;
        while (*p != c) p = &(*p)->next;
        *p = c->next;
        /* no context is attached, so no worker holds an entry */
        for (unsigned i = 0; i < c->n; i++) entry_free(c->e[i]);
        free(c->e);
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
    pthread_mutex_unlock(&registry_lock);
}

int tvmaf_cuda_ref_cache_get(TvmafCudaRefCache *c, uint64_t serial, TvmafCudaRefEntry **out,
                             bool *fill)
{
    int err = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        TvmafCudaRefEntry *hit = NULL, *idle = NULL;
        for (unsigned i = 0; i < c->n && !hit; i++) {
            TvmafCudaRefEntry *e = c->e[i];
            if (e->serial == serial) hit = e;
            else if (!e->users && (!idle || e->used_at < idle->used_at)) idle = e;
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
        /* a new entry while the reserves allow, else the least recently used
         * idle one */
        if (c->n < c->cap) {
            TvmafCudaRefEntry *fresh;
            const int e = entry_new(c, &fresh);
            if (!e) idle = fresh;
            else if (!idle) {
                err = e;
                break;
            }
        }
        if (!idle) {
            /* every entry held: cannot happen while each worker holds at most
             * one and reserved two, but waiting is correct */
            pthread_cond_wait(&c->cond, &c->lock);
            continue;
        }
        idle->serial = serial;
        idle->users = 1;
        idle->filling = true;
        idle->used_at = ++c->tick;
        *out = idle;
        *fill = true;
        break;
    }
    pthread_mutex_unlock(&c->lock);
    return err;
}

void tvmaf_cuda_ref_cache_filled(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, bool ok)
{
    pthread_mutex_lock(&c->lock);
    e->filling = false;
    if (!ok) e->serial = 0;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

void tvmaf_cuda_ref_cache_put(TvmafCudaRefCache *c, TvmafCudaRefEntry *e)
{
    pthread_mutex_lock(&c->lock);
    if (--e->users == 0) pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}
