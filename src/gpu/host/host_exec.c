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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/host/host.h"

_Thread_local const TvdItem *tvd_item;

/* ---- orders ---- */

static uint64_t seed_base(void)
{
    const char *s = getenv("TVD_HOST_SEED");
    return s ? strtoull(s, NULL, 0) : 0x9e3779b97f4a7c15ull;
}

static uint32_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void scramble(unsigned *v, unsigned n, uint64_t *s)
{
    for (unsigned i = 0; i < n; i++) v[i] = i;
    for (unsigned i = n; i > 1; i--) {
        const unsigned j = next(s) % i, t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* ---- what runs, for the fault handler ---- */

typedef struct Running {
    const char *feature, *kernel;
    const TvdItem *item;
} Running;
static _Thread_local Running running;

static void fatal(const char *what)
{
    const TvdItem *it = running.item;
    fprintf(stderr, "host executor: feature \"%s\" kernel %s, group (%u,%u,%u) item (%u,%u): %s\n",
            running.feature ? running.feature : "?", running.kernel ? running.kernel : "?",
            it ? it->gid[0] : 0, it ? it->gid[1] : 0, it ? it->gid[2] : 0, it ? it->lid[0] : 0,
            it ? it->lid[1] : 0, what);
    fflush(stderr);
    _exit(3);
}

static void on_fault(int sig)
{
    (void)sig;
    fatal("memory access outside a buffer (guard page)");
}

static void install_handler(void)
{
    static stack_t alt;
    alt.ss_size = 1 << 16;
    alt.ss_sp = malloc(alt.ss_size);
    if (alt.ss_sp) sigaltstack(&alt, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fault;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* ---- fibers ----
 * A switch saves the callee-saved registers on the running stack and moves
 * to the other stack (x86-64 System V; glibc's swapcontext makes a system
 * call per switch, which would make a group's thousands of rendezvous slow).
 * ASan is told about each switch. */

#if !defined(__x86_64__)
#error "the host executor's fibers are written for x86-64"
#endif

void tvd_fiber_switch(void **save_sp, void *to_sp);
__asm__(".text\n"
        ".globl tvd_fiber_switch\n"
        ".type tvd_fiber_switch, @function\n"
        "tvd_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size tvd_fiber_switch, .-tvd_fiber_switch\n");

#if defined(__SANITIZE_ADDRESS__)
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#define ASAN_START(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define ASAN_FINISH(save) __sanitizer_finish_switch_fiber(save, NULL, NULL)
#define ASAN_FINISH_FIRST() __sanitizer_finish_switch_fiber(NULL, &G->main_bottom, &G->main_size)
/* a fiber's frames leave poisoned shadow on its stack: cleared before the
 * stacks go back, or memory mapped there later would look poisoned */
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define ASAN_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define ASAN_UNPOISON(p, n) ((void)(p), (void)(n))
#define ASAN_FINISH_FIRST() ((void)0)
#define ASAN_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define ASAN_FINISH(save) ((void)(save))
#endif

enum { RUN, AT_BARRIER, AT_WARP, DONE };

typedef struct Fiber {
    void *sp;
    TvdItem item;
    int state;
    unsigned linear;
} Fiber;

#define STACK (1u << 16)

typedef struct Group {
    void *main_sp;
    void *main_fake;
    const void *main_bottom;
    size_t main_size;
    Fiber *f;
    unsigned n, cap, cur;
    unsigned char *stacks;
    uint64_t slot[1024];
    const TvdHostKernel *k;
    const void *kargs;
    void *loc;
    uint64_t seed;
    unsigned *order;
} Group;
static _Thread_local Group *G;

static void to_scheduler(Fiber *f, int state)
{
    void *fake = NULL;
    f->state = state;
    ASAN_START(state == DONE ? NULL : &fake, G->main_bottom, G->main_size);
    tvd_fiber_switch(&f->sp, G->main_sp);
    ASAN_FINISH(fake);
}

static void yield_as(int state)
{
    to_scheduler(&G->f[G->cur], state);
    running.item = tvd_item = &G->f[G->cur].item;
}

void tvd_host_barrier(void)
{
    if (!G) fatal("a barrier in a kernel not flagged TVD_SYNC");
    yield_as(AT_BARRIER);
}

uint64_t tvd_host_shfl_down_u64(uint64_t v, unsigned o)
{
    if (!G) fatal("a warp shuffle in a kernel not flagged TVD_SYNC");
    const unsigned me = G->f[G->cur].linear, lane = me & 31u;
    G->slot[me] = v;
    yield_as(AT_WARP);
    const uint64_t r = lane + o < 32 && me + o < G->n ? G->slot[me + o] : v;
    yield_as(AT_WARP); /* nobody writes its slot again before every lane has read */
    return r;
}

static void trampoline(void)
{
    ASAN_FINISH_FIRST();
    G->k->entry(G->kargs, G->loc);
    to_scheduler(&G->f[G->cur], DONE);
    fatal("a finished work-item resumed");
}

/* A thread's group (its fibers' stacks) is released when the thread ends:
 * a context's workers end with it, and a test runs thousands of contexts. */
static pthread_key_t group_key;
static pthread_once_t group_key_once = PTHREAD_ONCE_INIT;

static void group_release(void *p)
{
    Group *g = p;
    if (g->stacks) {
        ASAN_UNPOISON(g->stacks, (size_t)g->cap * STACK);
        munmap(g->stacks, (size_t)g->cap * STACK);
    }
    free(g->f);
    free(g->order);
    g->stacks = NULL;
    g->f = NULL;
    g->order = NULL;
    g->cap = 0;
}

static void group_key_create(void)
{
    pthread_key_create(&group_key, group_release);
}

static int ensure(Group *g, unsigned n)
{
    if (n <= g->cap) return 0;
    if (n > 1024) return -EINVAL;
    pthread_once(&group_key_once, group_key_create);
    pthread_setspecific(group_key, g);
    Fiber *f = realloc(g->f, n * sizeof(*f));
    unsigned *o = realloc(g->order, n * sizeof(*o));
    if (f) g->f = f;
    if (o) g->order = o;
    if (!f || !o) return -ENOMEM;
    if (g->stacks) {
        ASAN_UNPOISON(g->stacks, (size_t)g->cap * STACK);
        munmap(g->stacks, (size_t)g->cap * STACK);
    }
    g->stacks = mmap(NULL, (size_t)n * STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g->stacks == MAP_FAILED) {
        g->stacks = NULL;
        g->cap = 0;
        return -ENOMEM;
    }
    g->cap = n;
    return 0;
}

/* One group of a synchronising kernel: every item a fiber; run the
 * runnable ones in a random order until all are done, releasing a barrier
 * once every live item waits at it, a warp's shuffle once its lanes do. */
static void run_group(Group *g)
{
    for (unsigned i = 0; i < g->n; i++) {
        Fiber *f = &g->f[i];
        f->state = RUN;
        /* (the frames an earlier fiber left on this stack keep their shadow
         * under ASan: cleared, or this fiber's frames could look poisoned) */
        ASAN_UNPOISON(g->stacks + (size_t)i * STACK, STACK);
        /* the stack as tvd_fiber_switch leaves it: six registers, then the
         * address it returns to (16-byte aligned, as a call leaves it) */
        uintptr_t *top = (uintptr_t *)(g->stacks + (size_t)(i + 1) * STACK);
        top[-1] = 0;
        top[-2] = (uintptr_t)trampoline;
        for (int r = 3; r <= 8; r++) top[-r] = 0;
        f->sp = &top[-8];
    }
    for (;;) {
        unsigned n_run = 0, n_done = 0, n_bar = 0;
        for (unsigned i = 0; i < g->n; i++) {
            n_run += g->f[i].state == RUN;
            n_done += g->f[i].state == DONE;
            n_bar += g->f[i].state == AT_BARRIER;
        }
        if (n_done == g->n) return;
        if (!n_run) {
            if (n_bar && n_done) fatal("a barrier some work-items of the group never reach");
            if (n_bar == g->n - n_done && n_bar) {
                for (unsigned i = 0; i < g->n; i++)
                    if (g->f[i].state == AT_BARRIER) g->f[i].state = RUN;
                continue;
            }
            bool released = false;
            for (unsigned w = 0; w < g->n; w += 32) {
                bool all = true;
                for (unsigned i = w; i < w + 32 && i < g->n; i++)
                    if (g->f[i].state != AT_WARP) all = false;
                if (!all) continue;
                for (unsigned i = w; i < w + 32 && i < g->n; i++) g->f[i].state = RUN;
                released = true;
            }
            if (!released) fatal("work-items wait at different barriers or shuffles");
            continue;
        }
        scramble(g->order, g->n, &g->seed);
        for (unsigned j = 0; j < g->n; j++) {
            const unsigned i = g->order[j];
            if (g->f[i].state != RUN) continue;
            g->cur = i;
            running.item = tvd_item = &g->f[i].item;
            void *fake = NULL;
            ASAN_START(&fake, g->stacks + (size_t)i * STACK, STACK);
            tvd_fiber_switch(&g->main_sp, g->f[i].sp);
            ASAN_FINISH(fake);
        }
    }
}

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

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static int open_x(TvdTwin *t, char *why, size_t len)
{
    HostXs *x = t->xs;
    pthread_once(&handler_once, install_handler);
    x->mod = t->code;
    x->seed = seed_base() ^ (uintptr_t)t;
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

static void plane(TvdTwin *t, const TvmafDeviceFrame *f, int dis, unsigned p, TvdView *v,
                  uint64_t *pitch)
{
    (void)t;
    v->off = (uintptr_t)f->plane[dis ? 1 : 0][p];
    v->size = (uint64_t)f->pitch[p] * f->ph[p];
    *pitch = f->pitch[p];
}

static unsigned planes(const TvmafDeviceFrame *f)
{
    return f->n_planes;
}

static int fill(TvdTwin *t, const TvdView *v, uint64_t addr, uint8_t byte)
{
    (void)t;
    memset((void *)(uintptr_t)addr, byte, v->size);
    return 0;
}

static int copy(TvdTwin *t, const TvdView *dst, uint64_t dst_addr, const TvdView *src,
                uint64_t src_addr)
{
    (void)t;
    (void)src;
    memmove((void *)(uintptr_t)dst_addr, (const void *)(uintptr_t)src_addr, dst->size);
    return 0;
}

/* Lands at the next wait: until then the mirror's range holds poison. */
static int download(TvdTwin *t, const TvdView *v, uint64_t addr, void *host)
{
    HostXs *x = t->xs;
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
    const unsigned gx = hk->group[0], gy = hk->group[1], n = gx * gy;
    const size_t groups = (size_t)g.x * g.y * g.z;
    if (groups > 1u << 26 || !n || n > 1024) return -EINVAL;
    unsigned *gorder = malloc(groups * sizeof(*gorder));
    unsigned *iorder = malloc(n * sizeof(*iorder));
    TvdItem *items = malloc(n * sizeof(*items));
    void *loc = tvd_host_map(hk->local_size);
    static _Thread_local Group group;
    int err = !gorder || !iorder || !items || !loc ? -ENOMEM : 0;
    if (!err && (hk->flags & TVD_SYNC)) err = ensure(&group, n);
    if (err) goto done;
    running.feature = t->plan->cpu->name;
    running.kernel = hk->name;
    scramble(gorder, (unsigned)groups, &x->seed);
    for (size_t q = 0; q < groups; q++) {
        const unsigned id = gorder[q];
        const uint32_t gid[3] = { id % g.x, id / g.x % g.y, id / g.x / g.y };
        tvd_host_poison(loc, hk->local_size);
        if (hk->flags & TVD_SYNC) {
            group.n = n;
            group.k = hk;
            group.kargs = kargs;
            group.loc = loc;
            group.seed = x->seed + q;
            for (unsigned i = 0; i < n; i++) {
                TvdItem *it = &group.f[i].item;
                *it = (TvdItem){ { i % gx, i / gx, 0 }, { gid[0], gid[1], gid[2] },
                                 { g.x, g.y, g.z }, { gx, gy, 1 } };
                group.f[i].linear = i;
            }
            G = &group;
            run_group(&group);
            G = NULL;
        } else {
            scramble(iorder, n, &x->seed);
            for (unsigned j = 0; j < n; j++) {
                const unsigned i = iorder[j];
                items[i] = (TvdItem){ { i % gx, i / gx, 0 }, { gid[0], gid[1], gid[2] },
                                      { g.x, g.y, g.z }, { gx, gy, 1 } };
                running.item = tvd_item = &items[i];
                hk->entry(kargs, loc);
            }
        }
    }
    x->seed = x->seed * 31 + 7;
    running.item = tvd_item = NULL;
done:
    free(gorder);
    free(iorder);
    free(items);
    tvd_host_unmap(loc, hk->local_size);
    return err;
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

static int sync_x(TvdTwin *t)
{
    HostXs *x = t->xs;
    for (unsigned i = 0; i < x->n_pending; i++)
        memcpy(x->pending[i].host, x->pending[i].src, x->pending[i].size);
    x->n_pending = 0;
    return 0;
}

static int end(TvdTwin *t, int err)
{
    const int e = sync_x(t);
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

static const char *last_error(void)
{
    return "";
}

const TvdExec tvd_exec_host = {
    .backend = TVMAF_BACKEND_HOST,
    .name = "host",
    .xs_size = sizeof(HostXs),
    .open = open_x,
    .bind = bind,
    .upload = upload,
    .begin = begin,
    .plane = plane,
    .planes = planes,
    .fill = fill,
    .copy = copy,
    .download = download,
    .launch = launch,
    .sync = sync_x,
    .end = end,
    .close = close_x,
    .last_error = last_error,
    .ref_slot = ref_slot,
    .ref_area = ref_area,
    .ref_area_done = ref_area_done,
};
