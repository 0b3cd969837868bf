/*
 * Running a launch of a kernel built for the host (host_kernel.h): every
 * work-item on the calling thread, groups in a scrambled order, the items
 * of a synchronising kernel as fibers that meet at real rendezvous points.
 * The host executor (host_exec.c) and the CUDA driver stand-in of the tests
 * both launch through tvd_host_run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/host/host_kernel.h"
#include "gpu/tvd.h"

TVD_TLS const TvdItem *tvd_item;

/* ---- guarded memory ---- */

static size_t page(void)
{
    static size_t pg;
    if (!pg) pg = (size_t)sysconf(_SC_PAGESIZE);
    return pg;
}

static unsigned poison_byte(void)
{
    const char *s = getenv("TVD_HOST_SEED");
    return s && (strtoul(s, NULL, 0) & 1) ? 0xff : 0xa5;
}

void tvd_host_poison(void *p, size_t size)
{
    memset(p, (int)poison_byte(), size);
}

/* The mapping: header page (the size), data pages, one guard page; the data
 * ends against the guard (rounded to 16 bytes, the largest element). */
void *tvd_host_map(size_t size)
{
    const size_t pg = page(), data = (size + 15) / 16 * 16;
    const size_t pages = (data + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, pages + pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (mprotect(m + pages, pg, PROT_NONE)) {
        munmap(m, pages + pg);
        return NULL;
    }
    unsigned char *p = m + pages - data;
    tvd_host_poison(m, pages);
    return p;
}

void tvd_host_unmap(void *p, size_t size)
{
    if (!p) return;
    const size_t pg = page(), data = (size + 15) / 16 * 16;
    const size_t pages = (data + pg - 1) / pg * pg;
    munmap((unsigned char *)p + data - pages, pages + pg);
}

/* ---- orders ---- */

uint64_t tvd_host_seed_base(void)
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
static TVD_TLS Running running;

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

static const char *(*describe_fault)(const void *addr);

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    const char *what = describe_fault ? describe_fault(si->si_addr) : NULL;
    fatal(what ? what : "memory access outside a buffer (guard page)");
}

static const char *(*describe_next)(const void *addr);

static void install_handler(void)
{
    describe_fault = describe_next;
    static stack_t alt;
    alt.ss_size = 1 << 16;
    alt.ss_sp = malloc(alt.ss_size);
    if (alt.ss_sp) sigaltstack(&alt, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

void tvd_host_install_fault_handler(const char *(*describe)(const void *addr))
{
    describe_next = describe;
    pthread_once(&handler_once, install_handler);
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
    unsigned shuffles; /* made so far: which half of the slots the next one uses */
} Fiber;

#define STACK (1u << 16)

typedef struct Group {
    void *main_sp;
    const void *main_bottom;
    size_t main_size;
    Fiber *f;
    unsigned n, cap, cur;
    unsigned char *stacks;
    uint64_t *slot; /* the lanes' shuffled values: two halves of one per item */
    const TvdHostKernel *k;
    const void *kargs;
    void *loc;
    uint64_t seed;
    unsigned *order;
} Group;
static TVD_TLS Group *G;

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
    /* Two halves of slots, alternating: a lane writes this half again only
     * two shuffles later, after the next rendezvous, which every lane of
     * the warp reaches only once it has read this one. */
    Fiber *f = &G->f[G->cur];
    const unsigned me = f->linear, lane = me & 31u;
    uint64_t *slot = G->slot + (f->shuffles++ & 1u) * G->n;
    slot[me] = v;
    yield_as(AT_WARP);
    return lane + o < 32 && me + o < G->n ? slot[me + o] : v;
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

static void stacks_unmap(Group *g)
{
    if (!g->stacks) return;
    ASAN_UNPOISON(g->stacks, (size_t)g->cap * STACK);
    munmap(g->stacks, (size_t)g->cap * STACK);
}

static void group_release(void *p)
{
    Group *g = p;
    stacks_unmap(g);
    free(g->f);
    free(g->order);
    free(g->slot);
    g->stacks = NULL;
    g->f = NULL;
    g->order = NULL;
    g->slot = NULL;
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
    uint64_t *sl = realloc(g->slot, 2 * n * sizeof(*sl));
    if (f) g->f = f;
    if (o) g->order = o;
    if (sl) g->slot = sl;
    if (!f || !o || !sl) return -ENOMEM;
    stacks_unmap(g);
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
        f->shuffles = 0;
        /* (the frames an earlier fiber left on this stack keep their shadow
         * under ASan: cleared, or this fiber's frames could look poisoned) */
        ASAN_UNPOISON(g->stacks + (size_t)i * STACK, STACK);
        /* the stack as tvd_fiber_switch leaves it: six registers, then the
         * address it returns to (16-byte aligned, as a call leaves it). The
         * tops are staggered by cache lines: tops a power of two apart
         * would all map to the same cache sets. */
        uintptr_t *top = (uintptr_t *)(g->stacks + (size_t)(i + 1) * STACK - (i % 61) * 64);
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

/* ---- a launch ---- */

int tvd_host_run(const TvdHostKernel *hk, const char *feature, const unsigned grid[3],
                 const unsigned block[3], const void *kargs, uint64_t *seed)
{
    const unsigned bx = block[0], by = block[1], n = bx * by * block[2];
    const size_t groups = (size_t)grid[0] * grid[1] * grid[2];
    if (groups > 1u << 26 || !n || n > 1024) return -EINVAL;
    unsigned *gorder = malloc(groups * sizeof(*gorder));
    unsigned *iorder = malloc(n * sizeof(*iorder));
    TvdItem *items = malloc(n * sizeof(*items));
    void *loc = tvd_host_map(hk->local_size);
    static TVD_TLS Group group;
    int err = !gorder || !iorder || !items || !loc ? -ENOMEM : 0;
    if (!err && (hk->flags & TVD_SYNC)) err = ensure(&group, n);
    if (err) goto done;
    running.feature = feature;
    running.kernel = hk->name;
    scramble(gorder, (unsigned)groups, seed);
    for (size_t q = 0; q < groups; q++) {
        const unsigned id = gorder[q];
        const uint32_t gid[3] = { id % grid[0], id / grid[0] % grid[1], id / grid[0] / grid[1] };
        tvd_host_poison(loc, hk->local_size);
        TvdItem *const all = hk->flags & TVD_SYNC ? NULL : items;
        for (unsigned i = 0; i < n; i++) {
            TvdItem *it = all ? &all[i] : &group.f[i].item;
            *it = (TvdItem){ { i % bx, i / bx % by, i / bx / by }, { gid[0], gid[1], gid[2] },
                             { grid[0], grid[1], grid[2] }, { bx, by, block[2] } };
            if (!all) group.f[i].linear = i;
        }
        if (!all) {
            group.n = n;
            group.k = hk;
            group.kargs = kargs;
            group.loc = loc;
            group.seed = *seed + q;
            G = &group;
            run_group(&group);
            G = NULL;
        } else {
            scramble(iorder, n, seed);
            for (unsigned j = 0; j < n; j++) {
                running.item = tvd_item = &items[iorder[j]];
                hk->entry(kargs, loc);
            }
        }
    }
    *seed = *seed * 31 + 7;
    running.item = tvd_item = NULL;
done:
    free(gorder);
    free(iorder);
    free(items);
    tvd_host_unmap(loc, hk->local_size);
    return err;
}
