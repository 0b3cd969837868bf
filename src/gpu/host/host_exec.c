/*
 * The host executor's executor (host.h): buffers in guarded mappings, every
 * work-item of a launch run on the calling thread, fibers where a kernel
 * synchronises.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/host/host.h"
#include "gpu/exec_common.h" /* after host.h: its frame */

/* ---- the executor ---- */

typedef struct HostXs {
    const TvdHostModule *mod;
    uint64_t seed;
    struct Pending {
        void *host;
        const void *src;
        size_t size;
    } *pending;
    unsigned n_pending, cap_pending;
    unsigned long long frames;
    /* the "ladder" profile: a reference area of area_bytes, refilled by this
     * pair on every frame (nothing is shared: the passes are what runs) */
    bool ladder;
    void *area;
    size_t area_bytes;
} HostXs;

/* ---- injected failures, for the tests ---- */

/* The operation (fill, copy, download, launch, mid-frame wait; counted over
 * every instance) that fails with -EIO, 0 for none; whether it was reached. */
static unsigned long long fail_at, op_count;
static bool fail_fired;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

void tvd_host_fail_at(unsigned long long n)
{
    pthread_mutex_lock(&fail_lock);
    fail_at = n;
    op_count = 0;
    fail_fired = false;
    pthread_mutex_unlock(&fail_lock);
}

bool tvd_host_fail_fired(void)
{
    pthread_mutex_lock(&fail_lock);
    const bool fired = fail_fired;
    pthread_mutex_unlock(&fail_lock);
    return fired;
}

static int injected(void)
{
    pthread_mutex_lock(&fail_lock);
    const bool fail = fail_at && ++op_count == fail_at;
    if (fail) fail_fired = true;
    pthread_mutex_unlock(&fail_lock);
    return fail ? -EIO : 0;
}

static int open_x(TvdTwin *t, char *why, size_t len)
{
    HostXs *x = t->xs;
    tvd_host_install_fault_handler(NULL);
    x->mod = t->code;
    x->seed = tvd_host_seed_base() ^ (uintptr_t)t;
    if (x->mod->n_kernels != t->plan->n_kernels) {
        snprintf(why, len, "the host module has %u kernels, the plan %u", x->mod->n_kernels,
                 t->plan->n_kernels);
        return -EINVAL;
    }
    for (unsigned k = 0; k < t->plan->n_kernels; k++) {
        const TvdHostKernel *hk = &x->mod->kernels[k];
        const TvdKernel *pk = &t->plan->kernels[k];
        if (strcmp(hk->name, pk->name) || hk->group[0] != pk->group[0] ||
            hk->group[1] != pk->group[1] || hk->flags != pk->flags) {
            snprintf(why, len, "kernel %s: the host module and the plan disagree", pk->name);
            return -EINVAL;
        }
    }
    const char *p = getenv("TVD_HOST_PROFILE");
    x->ladder = p && !strcmp(p, "ladder");
    const bool cuda = !p || !strcmp(p, "cuda") || x->ladder;
    if (p && !cuda && strcmp(p, "opencl")) {
        snprintf(why, len, "TVD_HOST_PROFILE: cuda, ladder or opencl, not \"%s\"", p);
        return -EINVAL;
    }
    t->caps = (TvdCaps){ .warp = cuda ? 32 : 0, .atomic64 = cuda, .fp64 = true,
                         .cr_div_sqrt = true };
    return 0;
}

static int bind(TvdTwin *t, char *why, size_t len)
{
    (void)why;
    (void)len;
    for (unsigned i = 0; i < t->n_buf; i++) {
        void *p = tvd_host_map(t->buf[i].size);
        if (!p) return -ENOMEM;
        t->buf[i].addr = (uintptr_t)p;
        if (t->buf[i].flags & TVD_MIRROR && !(t->buf[i].mirror = tvd_host_map(t->buf[i].size)))
            return -ENOMEM;
    }
    return 0;
}

static int upload(TvdTwin *t, uint64_t addr, const void *src, size_t size)
{
    (void)t;
    memcpy((void *)(uintptr_t)addr, src, size);
    return 0;
}

static int begin(TvdTwin *t, const TvmafDeviceFrame *f)
{
    (void)f;
    ((HostXs *)t->xs)->frames++;
    return 0;
}

static int fill(TvdTwin *t, const TvdView *v, uint64_t addr, uint8_t byte)
{
    (void)t;
    if (injected()) return -EIO;
    memset((void *)(uintptr_t)addr, byte, v->size);
    return 0;
}

static int copy(TvdTwin *t, const TvdView *dst, uint64_t dst_addr, const TvdView *src,
                uint64_t src_addr)
{
    (void)t;
    (void)src;
    if (injected()) return -EIO;
    memmove((void *)(uintptr_t)dst_addr, (const void *)(uintptr_t)src_addr, dst->size);
    return 0;
}

/* Lands at the next wait: until then the mirror's range holds poison. */
static int download(TvdTwin *t, const TvdView *v, uint64_t addr, void *host)
{
    HostXs *x = t->xs;
    if (injected()) return -EIO;
    if (x->n_pending == x->cap_pending) {
        const unsigned cap = x->cap_pending ? 2 * x->cap_pending : 8;
        struct Pending *p = realloc(x->pending, cap * sizeof(*p));
        if (!p) return -ENOMEM;
        x->pending = p;
        x->cap_pending = cap;
    }
    tvd_host_poison(host, v->size);
    x->pending[x->n_pending++] = (struct Pending){ host, (const void *)(uintptr_t)addr, v->size };
    return 0;
}

static int launch(TvdTwin *t, unsigned k, TvdGrid g, const void *kargs, const TvdView *views)
{
    (void)views;
    HostXs *x = t->xs;
    const TvdHostKernel *hk = &x->mod->kernels[k];
    const unsigned grid[3] = { g.x, g.y, g.z }, block[3] = { hk->group[0], hk->group[1], 1 };
    if (injected()) return -EIO;
    return tvd_host_run(hk, t->plan->cpu->name, grid, block, kargs, &x->seed);
}

static int ref_slot(TvdTwin *t, const char *key, size_t bytes, unsigned *slot)
{
    (void)key;
    HostXs *x = t->xs;
    if (!x->ladder) return 0;
    if (!(x->area = tvd_host_map(bytes))) return -ENOMEM;
    x->area_bytes = bytes;
    *slot = 0;
    return 0;
}

/* Every frame fills its area anew, from poison. */
static int ref_area(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, uint64_t *addr,
                    bool *fill)
{
    (void)f;
    (void)slot;
    HostXs *x = t->xs;
    tvd_host_poison(x->area, x->area_bytes);
    *addr = (uintptr_t)x->area;
    *fill = true;
    return 0;
}

static int ref_area_done(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, bool ok)
{
    (void)t;
    (void)f;
    (void)slot;
    (void)ok;
    return 0;
}

/* the queued downloads land */
static int drain(TvdTwin *t)
{
    HostXs *x = t->xs;
    for (unsigned i = 0; i < x->n_pending; i++)
        memcpy(x->pending[i].host, x->pending[i].src, x->pending[i].size);
    x->n_pending = 0;
    return 0;
}

/* the plan's mid-frame wait (the frame's own, end, is never injected) */
static int sync_x(TvdTwin *t)
{
    return injected() ? -EIO : drain(t);
}

static int end(TvdTwin *t, int err)
{
    const int e = drain(t);
    return err ? err : e;
}

/* ---- totals per feature, for the tests ---- */

static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct Total {
    const char *name;
    TvdCounts c;
    unsigned long long frames;
} totals[64];
static unsigned n_totals;

static void add_totals(const char *name, const TvdCounts *c, unsigned long long frames)
{
    pthread_mutex_lock(&totals_lock);
    unsigned i = 0;
    while (i < n_totals && strcmp(totals[i].name, name)) i++;
    if (i == n_totals && n_totals < 64) totals[n_totals++] = (struct Total){ name, { 0 }, 0 };
    if (i < n_totals) {
        totals[i].c.launches += c->launches;
        totals[i].c.copies += c->copies;
        totals[i].c.fills += c->fills;
        totals[i].c.syncs += c->syncs;
        totals[i].frames += frames;
    }
    pthread_mutex_unlock(&totals_lock);
}

int tvd_host_totals(const char *name, TvdCounts *c, unsigned long long *frames)
{
    int err = -ENOENT;
    pthread_mutex_lock(&totals_lock);
    for (unsigned i = 0; i < n_totals; i++)
        if (!strcmp(totals[i].name, name)) {
            *c = totals[i].c;
            *frames = totals[i].frames;
            err = 0;
        }
    pthread_mutex_unlock(&totals_lock);
    return err;
}

void tvd_host_totals_reset(void)
{
    pthread_mutex_lock(&totals_lock);
    n_totals = 0;
    pthread_mutex_unlock(&totals_lock);
}

static void close_x(TvdTwin *t)
{
    HostXs *x = t->xs;
    if (!x->mod) return;
    add_totals(t->plan->cpu->name, &t->counts, x->frames);
    for (unsigned i = 0; t->bound && i < t->n_buf; i++) {
        if (t->buf[i].addr) tvd_host_unmap((void *)(uintptr_t)t->buf[i].addr, t->buf[i].size);
        if (t->buf[i].mirror) tvd_host_unmap(t->buf[i].mirror, t->buf[i].size);
    }
    free(x->pending);
    tvd_host_unmap(x->area, x->area_bytes);
    memset(x, 0, sizeof(*x));
}

const TvdExec tvd_exec_host = {
    .backend = TVMAF_BACKEND_HOST,
    .name = "host",
    .xs_size = sizeof(HostXs),
    TVD_EXEC_OPS,
    .last_error = tvd_host_last_error,
    .ref_slot = ref_slot,
    .ref_area = ref_area,
    .ref_area_done = ref_area_done,
};
