/*
 * A stand-in for the CUDA driver (libcuda.so.1), for tests only: the entry
 * points src/gpu/cuda/cuda_runtime.c loads, backed by host memory, so the
 * CUDA backend's own code (driver calls, streams, events, page-locked
 * memory, module loading, launches, read-backs) runs in CI without a GPU.
 * It is built in the build tree and never installed; a test reaches it by
 * putting its folder on LD_LIBRARY_PATH.
 *
 * What it does:
 *   - a launch runs the kernel of that name built for the host executor
 *     (src/gpu/host/host_run.c): the grid, block and argument bytes given,
 *     groups in scrambled order, the items of a synchronising kernel as
 *     fibers (barriers and warp shuffles are real rendezvous points);
 *   - a module is found from the image itself: the embedded fatbin must
 *     carry the fatbin magic and name every kernel of one host module;
 *   - streams are queues, run only when the host waits (a stream or event
 *     synchronisation, or a copy into pageable memory, which CUDA makes
 *     synchronous); a stream waiting for an event first runs the event's
 *     stream up to its record. A read-back into page-locked memory poisons
 *     its destination until it runs, so a result read before the wait shows;
 *   - device memory sits between guard pages, poisoned when allocated;
 *     freed memory stays reserved and inaccessible (a later access faults
 *     and is named use after free).
 *
 * Misuse ends the process (exit status 3) with a message starting
 * "cuda stand-in:": an access outside an allocation (a kernel's, through the
 * guard pages; a copy's, through the table of allocations), use after free,
 * a copy longer than its buffer, more threads per block than allowed (or
 * than the kernel's launch bounds), an event or stream used in another
 * context, a handle used after it was destroyed.
 *
 * Faults on demand, from TVMAF_STANDIN_FAULT at cuInit or
 * tvmaf_standin_fault() (a comma-separated list):
 *   init[=CODE]   cuInit fails (CUDA_ERROR_UNKNOWN unless CODE)
 *   alloc=N       the Nth cuMemAlloc from now fails (out of memory)
 *   hostalloc=N   the Nth cuMemHostAlloc/cuMemHostRegister from now fails
 *   launch=N      the Nth cuLaunchKernel from now fails
 *   mem=BYTES     the devices report and hold BYTES of memory
 *   devices=N     N devices (default 1; also TVMAF_STANDIN_DEVICES)
 * TVMAF_STANDIN_COUNTS=FILE writes the calls counted to FILE at exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda.h>

#include "gpu/host/host_kernel.h"
#include "gpu/tvd.h"
#include "tvmaf_builtins.h"

#define API __attribute__((visibility("default")))

/* ---- state ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define DEFAULT_MEM ((size_t)16 << 30)

static struct {
    bool inited;
    CUresult init_result;
    unsigned n_devices;
    size_t total_mem;
    long fail_alloc, fail_hostalloc, fail_launch; /* calls left before the fault; <0: none */
    uint64_t seed;
    uint64_t ticks; /* one per operation run: the events' clock */
} S = { .n_devices = 1, .total_mem = DEFAULT_MEM, .fail_alloc = -1, .fail_hostalloc = -1,
        .fail_launch = -1 };

/* What was called, for TVMAF_STANDIN_COUNTS and tvmaf_standin_counts. */
#define COUNTS(X)                                                                              \
    X(launches) X(copies_h2d) X(copies_d2h) X(copies_d2d) X(copies_2d) X(memsets)              \
    X(stream_syncs) X(stream_queries) X(event_syncs) X(event_records) X(stream_waits)           \
    X(dev_allocs)                                                                              \
    X(host_allocs) X(module_loads)
static struct {
#define X(n) unsigned long long n;
    COUNTS(X)
#undef X
} counts;

static void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "cuda stand-in: %s\n", msg);
    fflush(stderr);
    _exit(3);
}

#define MAGIC_CTX 0x43545831u
#define MAGIC_STREAM 0x5354524du
#define MAGIC_EVENT 0x45564e54u
#define MAGIC_MODULE 0x4d4f444cu
#define MAGIC_FUNC 0x46554e43u
#define DEAD 0xdeadu

#define MAX_DEVICES 8

typedef struct Op Op;

struct CUstream_st {
    unsigned magic;
    CUcontext ctx;
    Op *head, *tail;
    uint64_t queued, done; /* operations ever queued / run */
    struct CUstream_st *next; /* every stream ever made (never freed: a wait may name it) */
};

struct CUctx_st {
    unsigned magic;
    int device;
    unsigned retains;
    struct CUstream_st null_stream;
};

struct CUevent_st {
    unsigned magic;
    CUcontext ctx;
    unsigned flags;
    CUstream stream; /* the last record's */
    uint64_t seq;    /* its position in the stream */
    unsigned gen;    /* records made */
    unsigned gen_done;
    uint64_t tick;   /* the clock when the last record ran */
};

typedef struct Function Function;
struct CUmod_st {
    unsigned magic;
    CUcontext ctx;
    const TvdHostModule *host;
    Function *fns;
};

typedef struct Param {
    unsigned n;           /* parameters */
    unsigned size[4];     /* each one's bytes */
} Param;

struct Function {
    unsigned magic;
    struct CUmod_st *mod;
    const TvdHostKernel *k;
    Param param;
};

static struct CUctx_st ctxs[MAX_DEVICES];
/* contexts of cuCtxCreate (a caller's own, as FFmpeg's CUDA device makes),
 * kept after cuCtxDestroy (marked dead) so a later use is named */
#define MAX_CREATED 16
static struct CUctx_st created[MAX_CREATED];
static unsigned n_created;
static unsigned long long live_modules;
static struct CUstream_st *streams;

static _Thread_local CUcontext ctx_stack[32];
static _Thread_local unsigned ctx_depth;

static CUcontext current(void)
{
    return ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
}

/* ---- memory ---- */

enum { DEVICE, HOST_ALLOC, HOST_REGISTERED };

typedef struct Alloc {
    uintptr_t base;
    size_t size;
    unsigned char *map; /* device and host allocations: guard, data, guard */
    size_t map_len;
    int kind;
    bool freed;
    CUcontext ctx;
} Alloc;

static Alloc *allocs;
static size_t n_allocs, cap_allocs, n_freed;
static size_t dev_bytes; /* live device memory */
#define QUARANTINE 8192  /* freed blocks kept inaccessible before their space is reused */

static size_t page_size(void)
{
    static size_t pg;
    if (!pg) pg = (size_t)sysconf(_SC_PAGESIZE);
    return pg;
}

static Alloc *alloc_add(void)
{
    if (n_allocs == cap_allocs) {
        const size_t cap = cap_allocs ? 2 * cap_allocs : 256;
        Alloc *a = realloc(allocs, cap * sizeof(*a));
        if (!a) fatal("out of host memory for the table of allocations");
        allocs = a;
        cap_allocs = cap;
    }
    memset(&allocs[n_allocs], 0, sizeof(allocs[0]));
    return &allocs[n_allocs++];
}

/* The oldest freed block leaves the quarantine: its space is unmapped. */
static void quarantine_trim(void)
{
    if (n_freed <= QUARANTINE) return;
    for (size_t i = 0; i < n_allocs; i++)
        if (allocs[i].freed) {
            if (allocs[i].map) munmap(allocs[i].map, allocs[i].map_len);
            memmove(&allocs[i], &allocs[i + 1], (n_allocs - i - 1) * sizeof(allocs[0]));
            n_allocs--;
            n_freed--;
            return;
        }
}

/* `size` bytes ending `align`-rounded against a guard page, a guard page
 * before; poisoned. */
static void *guarded(size_t size, size_t align, Alloc *a)
{
    const size_t pg = page_size(), data = (size + align - 1) / align * align;
    const size_t pages = (data + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, pages + 2 * pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    mprotect(m, pg, PROT_NONE);
    mprotect(m + pg + pages, pg, PROT_NONE);
    unsigned char *p = m + pg + pages - data;
    tvd_host_poison(p, data);
    a->map = m;
    a->map_len = pages + 2 * pg;
    a->base = (uintptr_t)p;
    a->size = size;
    return p;
}

/* Freed: inaccessible, its space still reserved (so a late access faults). */
static void retire(Alloc *a)
{
    if (a->map)
        mmap(a->map, a->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
             -1, 0);
    a->freed = true;
    n_freed++;
    quarantine_trim();
}

/* The allocation (live, or freed when `freed`) whose mapping holds p. */
static Alloc *find(uintptr_t p, bool freed)
{
    for (size_t i = n_allocs; i-- > 0;) {
        Alloc *a = &allocs[i];
        if (a->freed != freed) continue;
        const uintptr_t lo = a->map ? (uintptr_t)a->map : a->base;
        const uintptr_t hi = a->map ? lo + a->map_len : a->base + a->size;
        if (p >= lo && p < hi) return a;
    }
    return NULL;
}

static const char *kind_name(int kind)
{
    return kind == DEVICE ? "device allocation" : kind == HOST_ALLOC ? "page-locked allocation"
                                                                     : "registered host range";
}

/* [p, p + n) lies in one live device allocation. */
static void check_device(uintptr_t p, size_t n, const char *what)
{
    Alloc *a = find(p, false);
    if (a && a->kind == DEVICE && p >= a->base && p + n <= a->base + a->size) {
        /* a context reaches only its own device memory */
        if (current() && a->ctx != current())
            fatal("%s: device address 0x%lx belongs to another context's memory", what,
                  (unsigned long)p);
        return;
    }
    if (a && a->kind == DEVICE) {
        if (p < a->base)
            fatal("%s: address 0x%lx is before the start of a %zu-byte device allocation", what,
                  (unsigned long)p, a->size);
        fatal("%s: a copy longer than its buffer: %zu bytes from offset %zu of a %zu-byte "
              "device allocation", what, n, (size_t)(p - a->base), a->size);
    }
    if ((a = find(p, true)) && a->kind == DEVICE)
        fatal("%s: use after free (device address 0x%lx was freed by cuMemFree)", what,
              (unsigned long)p);
    fatal("%s: device address 0x%lx is outside every allocation", what, (unsigned long)p);
}

/* Host memory: a page-locked block or registered range must hold the whole
 * range; pageable memory cannot be checked. Whether it is page-locked. */
static bool check_host(const void *ptr, size_t n, const char *what)
{
    const uintptr_t p = (uintptr_t)ptr;
    Alloc *a = find(p, false);
    if (a && a->kind != DEVICE) {
        if (p < a->base || p + n > a->base + a->size)
            fatal("%s: a copy longer than its buffer: %zu bytes from offset %ld of a %zu-byte "
                  "%s", what, n, (long)(p - a->base), a->size, kind_name(a->kind));
        return true;
    }
    if (a) fatal("%s: host address 0x%lx is device memory", what, (unsigned long)p);
    if ((a = find(p, true)) && a->kind == HOST_ALLOC)
        fatal("%s: use after free (page-locked memory freed by cuMemFreeHost)", what);
    return false;
}

/* The fault handler's description of an address a kernel touched. */
static const char *describe(const void *addr)
{
    const uintptr_t p = (uintptr_t)addr;
    for (size_t i = 0; i < n_allocs; i++) {
        const Alloc *a = &allocs[i];
        if (!a->map || p < (uintptr_t)a->map || p >= (uintptr_t)a->map + a->map_len) continue;
        return a->freed ? "cuda stand-in: use after free (a kernel touched freed memory)"
                        : "cuda stand-in: a kernel's access outside an allocation (guard page)";
    }
    return "cuda stand-in: a kernel's access outside every allocation";
}

/* ---- queues ---- */

enum { OP_COPY, OP_SET, OP_COPY2D, OP_LAUNCH, OP_RECORD, OP_WAIT };

struct Op {
    Op *next;
    int kind;
    void *owned; /* freed with the operation */
    union {
        struct { void *dst; const void *src; size_t n; } copy;
        struct { void *dst; size_t n; unsigned char v; } set;
        struct { unsigned char *dst; const unsigned char *src; size_t dpitch, spitch, w, h; } c2;
        struct { Function *f; unsigned grid[3], block[3]; } launch;
        struct { CUevent e; unsigned gen; } rec;
        struct { CUstream s; uint64_t seq; } wait;
    } u;
};

static void drain(CUstream s, uint64_t upto);

static void run_op(Op *op)
{
    switch (op->kind) {
    case OP_COPY:
        memmove(op->u.copy.dst, op->u.copy.src, op->u.copy.n);
        break;
    case OP_SET:
        memset(op->u.set.dst, op->u.set.v, op->u.set.n);
        break;
    case OP_COPY2D:
        for (size_t y = 0; y < op->u.c2.h; y++)
            memmove(op->u.c2.dst + y * op->u.c2.dpitch, op->u.c2.src + y * op->u.c2.spitch,
                    op->u.c2.w);
        break;
    case OP_LAUNCH: {
        Function *f = op->u.launch.f;
        if (tvd_host_run(f->k, f->mod->host->name, op->u.launch.grid, op->u.launch.block,
                         op->owned, &S.seed))
            fatal("kernel %s could not run (out of host memory)", f->k->name);
        break;
    }
    case OP_RECORD:
        if (op->u.rec.e->gen == op->u.rec.gen) {
            op->u.rec.e->gen_done = op->u.rec.gen;
            op->u.rec.e->tick = S.ticks;
        }
        break;
    case OP_WAIT:
        drain(op->u.wait.s, op->u.wait.seq);
        break;
    }
    S.ticks++;
}

/* Runs s's operations until `upto` of them have run (under the lock). */
static void drain(CUstream s, uint64_t upto)
{
    while (s->done < upto && s->head) {
        Op *op = s->head;
        s->head = op->next;
        if (!s->head) s->tail = NULL;
        run_op(op);
        s->done++;
        free(op->owned);
        free(op);
    }
}

static void drain_all(void)
{
    for (unsigned d = 0; d < MAX_DEVICES; d++)
        if (ctxs[d].magic == MAGIC_CTX) drain(&ctxs[d].null_stream, UINT64_MAX);
    for (unsigned i = 0; i < n_created; i++)
        if (created[i].magic == MAGIC_CTX) drain(&created[i].null_stream, UINT64_MAX);
    for (CUstream s = streams; s; s = s->next) drain(s, UINT64_MAX);
}

/* A stream an operation may go on: alive, of the current context. */
static CUstream usable(CUstream s, const char *what)
{
    CUcontext c = current();
    if (!c) fatal("%s: no context is current on this thread", what);
    if (!s || s == CU_STREAM_LEGACY) return &c->null_stream;
    if (s->magic == DEAD) fatal("%s: stream used after cuStreamDestroy", what);
    if (s->magic != MAGIC_STREAM) fatal("%s: not a stream", what);
    if (s->ctx != c) fatal("%s: a stream of another context (stream used in another context)", what);
    return s;
}

static Op *queue(CUstream s, int kind)
{
    Op *op = calloc(1, sizeof(*op));
    if (!op) fatal("out of host memory");
    op->kind = kind;
    if (s->tail) s->tail->next = op;
    else s->head = op;
    s->tail = op;
    s->queued++;
    return op;
}

/* ---- faults ---- */

static bool take_fault(long *left)
{
    if (*left < 0) return false;
    return --*left == 0 ? (*left = -1, true) : false;
}

static int parse_faults(const char *spec)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        const long long v = eq ? strtoll(eq + 1, NULL, 0) : 0;
        if (eq) *eq = 0;
        if (!strcmp(t, "init")) S.init_result = eq ? (CUresult)v : CUDA_ERROR_UNKNOWN;
        else if (!strcmp(t, "alloc") && v > 0) S.fail_alloc = v;
        else if (!strcmp(t, "hostalloc") && v > 0) S.fail_hostalloc = v;
        else if (!strcmp(t, "launch") && v > 0) S.fail_launch = v;
        else if (!strcmp(t, "mem") && v > 0) S.total_mem = (size_t)v;
        else if (!strcmp(t, "devices") && v > 0 && v <= MAX_DEVICES) S.n_devices = (unsigned)v;
        else return -EINVAL;
    }
    return 0;
}

/* For tests in the process: sets faults as TVMAF_STANDIN_FAULT does (the
 * counts start now); "" clears the pending ones. 0, or -EINVAL. */
API int tvmaf_standin_fault(const char *spec)
{
    pthread_mutex_lock(&lock);
    S.fail_alloc = S.fail_hostalloc = S.fail_launch = -1;
    S.init_result = CUDA_SUCCESS;
    S.total_mem = DEFAULT_MEM;
    const int err = parse_faults(spec);
    pthread_mutex_unlock(&lock);
    return err;
}

/* What is still allocated or alive (a clean-up check): device blocks and
 * bytes, page-locked blocks, streams, modules, retained primary contexts. */
API void tvmaf_standin_live(unsigned long long live[6])
{
    pthread_mutex_lock(&lock);
    memset(live, 0, 6 * sizeof(live[0]));
    for (size_t i = 0; i < n_allocs; i++) {
        if (allocs[i].freed) continue;
        if (allocs[i].kind == DEVICE) {
            live[0]++;
            live[1] += allocs[i].size;
        } else {
            live[2]++;
        }
    }
    for (CUstream s = streams; s; s = s->next) live[3] += s->magic == MAGIC_STREAM;
    for (unsigned d = 0; d < MAX_DEVICES; d++) live[5] += ctxs[d].retains;
    pthread_mutex_unlock(&lock);
    live[4] = __atomic_load_n(&live_modules, __ATOMIC_RELAXED);
}

/* The calls counted so far, as "name value" lines. */
API void tvmaf_standin_counts(FILE *f)
{
#define X(n) fprintf(f, "%s %llu\n", #n, __atomic_load_n(&counts.n, __ATOMIC_RELAXED));
    COUNTS(X)
#undef X
}
#define COUNT(n) __atomic_fetch_add(&counts.n, 1ull, __ATOMIC_RELAXED)

static void write_counts(void)
{
    const char *path = getenv("TVMAF_STANDIN_COUNTS");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    if (!f) return;
    tvmaf_standin_counts(f);
    fclose(f);
}

/* ---- the entry points ---- */

#define NEED_INIT()                                                                            \
    do {                                                                                       \
        if (!S.inited) return CUDA_ERROR_NOT_INITIALIZED;                                      \
    } while (0)

API CUresult cuInit(unsigned flags)
{
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    if (!S.inited && !S.init_result) {
        const char *d = getenv("TVMAF_STANDIN_DEVICES");
        if (d && atoi(d) > 0 && atoi(d) <= MAX_DEVICES) S.n_devices = (unsigned)atoi(d);
        if (parse_faults(getenv("TVMAF_STANDIN_FAULT")))
            fatal("TVMAF_STANDIN_FAULT: cannot read \"%s\"", getenv("TVMAF_STANDIN_FAULT"));
        S.seed = tvd_host_seed_base();
        tvd_host_install_fault_handler(describe);
        if (!S.init_result) {
            S.inited = true;
            atexit(write_counts);
        }
    }
    const CUresult r = S.inited ? CUDA_SUCCESS : S.init_result;
    pthread_mutex_unlock(&lock);
    return r;
}

static const struct { CUresult r; const char *name, *text; } errors[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
      "no kernel image is available for execution on the device" },
    { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
    { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
      "too many resources requested for launch" },
    { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

API CUresult cuGetErrorName(CUresult r, const char **s)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].r == r) {
            *s = errors[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult r, const char **s)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].r == r) {
            *s = errors[i].text;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuDriverGetVersion(int *v)
{
    *v = CUDA_VERSION;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *n)
{
    NEED_INIT();
    *n = (int)S.n_devices;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    NEED_INIT();
    if (ordinal < 0 || (unsigned)ordinal >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    NEED_INIT();
    if (d < 0 || (unsigned)d >= S.n_devices || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "tvmaf CUDA stand-in %d (host executor)", d);
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    NEED_INIT();
    if (d < 0 || (unsigned)d >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 8; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 << 10; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *v = 1; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
    NEED_INIT();
    if (d < 0 || (unsigned)d >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = S.total_mem;
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    NEED_INIT();
    if (d < 0 || (unsigned)d >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    CUcontext x = &ctxs[d];
    if (x->magic != MAGIC_CTX) {
        x->magic = MAGIC_CTX;
        x->device = d;
        x->null_stream.magic = MAGIC_STREAM;
        x->null_stream.ctx = x;
    }
    x->retains++;
    pthread_mutex_unlock(&lock);
    *c = x;
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
    NEED_INIT();
    if (d < 0 || (unsigned)d >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    if (!ctxs[d].retains) fatal("cuDevicePrimaryCtxRelease: device %d's context is not retained", d);
    if (--ctxs[d].retains == 0) drain(&ctxs[d].null_stream, UINT64_MAX);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuCtxPushCurrent(CUcontext c)
{
    NEED_INIT();
    if (!c || c->magic != MAGIC_CTX) fatal("cuCtxPushCurrent: not a context");
    if (!c->retains) fatal("cuCtxPushCurrent: the context was released");
    if (ctx_depth == sizeof(ctx_stack) / sizeof(ctx_stack[0]))
        fatal("cuCtxPushCurrent: more than %zu contexts pushed",
              sizeof(ctx_stack) / sizeof(ctx_stack[0]));
    ctx_stack[ctx_depth++] = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxPopCurrent(CUcontext *c)
{
    NEED_INIT();
    if (!ctx_depth) return CUDA_ERROR_INVALID_CONTEXT;
    ctx_depth--;
    if (c) *c = ctx_stack[ctx_depth];
    return CUDA_SUCCESS;
}

/* A context of the caller's own (cuCtxCreate_v4 in cuda.h 13: without
 * parameters), made current (pushed), as CUDA does. */
API CUresult cuCtxCreate(CUcontext *c, CUctxCreateParams *params, unsigned flags, CUdevice d)
{
    NEED_INIT();
    (void)flags;
    if (params) return CUDA_ERROR_NOT_SUPPORTED;
    if (d < 0 || (unsigned)d >= S.n_devices) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    if (n_created == MAX_CREATED) fatal("cuCtxCreate: more than %d contexts created", MAX_CREATED);
    CUcontext x = &created[n_created++];
    x->magic = MAGIC_CTX;
    x->device = d;
    x->retains = 1;
    x->null_stream.magic = MAGIC_STREAM;
    x->null_stream.ctx = x;
    pthread_mutex_unlock(&lock);
    *c = x;
    return cuCtxPushCurrent(x);
}

API CUresult cuCtxDestroy(CUcontext c)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    if (!c || c < created || c >= created + MAX_CREATED || c->magic != MAGIC_CTX)
        fatal("cuCtxDestroy: not a context of cuCtxCreate (or destroyed twice)");
    for (size_t i = 0; i < n_allocs; i++)
        if (!allocs[i].freed && allocs[i].kind == DEVICE && allocs[i].ctx == c)
            fatal("cuCtxDestroy: device memory of the context is still allocated (0x%lx, "
                  "%zu bytes): freed after its context would be use after free",
                  (unsigned long)allocs[i].base, allocs[i].size);
    drain(&c->null_stream, UINT64_MAX);
    c->magic = DEAD;
    c->retains = 0;
    pthread_mutex_unlock(&lock);
    for (unsigned k = ctx_depth; k-- > 0;)
        if (ctx_stack[k] == c) {
            memmove(&ctx_stack[k], &ctx_stack[k + 1], (ctx_depth - k - 1) * sizeof(ctx_stack[0]));
            ctx_depth--;
        }
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetDevice(CUdevice *d)
{
    NEED_INIT();
    if (!current()) return CUDA_ERROR_INVALID_CONTEXT;
    *d = current()->device;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext *c)
{
    NEED_INIT();
    *c = current();
    return CUDA_SUCCESS;
}

API CUresult cuCtxSynchronize(void)
{
    NEED_INIT();
    if (!current()) return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&lock);
    drain_all();
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* streams */

API CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
    NEED_INIT();
    (void)flags;
    CUcontext c = current();
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    CUstream x = calloc(1, sizeof(*x));
    if (!x) return CUDA_ERROR_OUT_OF_MEMORY;
    x->magic = MAGIC_STREAM;
    x->ctx = c;
    pthread_mutex_lock(&lock);
    x->next = streams;
    streams = x;
    pthread_mutex_unlock(&lock);
    *s = x;
    return CUDA_SUCCESS;
}

API CUresult cuStreamDestroy(CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    if (!s || s->magic == DEAD) fatal("cuStreamDestroy: stream destroyed twice");
    if (s->magic != MAGIC_STREAM) fatal("cuStreamDestroy: not a stream");
    drain(s, UINT64_MAX); /* its work completes, as CUDA's would */
    s->magic = DEAD;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* A stream waited for (synchronised or queried): alive; of any context, the
 * null stream that of the current one. */
static CUstream waited(CUstream s, const char *what)
{
    if (!s || s == CU_STREAM_LEGACY) {
        if (!current()) fatal("%s: the null stream with no context current", what);
        return &current()->null_stream;
    }
    if (s->magic == DEAD) fatal("%s: stream used after cuStreamDestroy", what);
    if (s->magic != MAGIC_STREAM) fatal("%s: not a stream", what);
    return s;
}

API CUresult cuStreamSynchronize(CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = waited(s, "cuStreamSynchronize");
    COUNT(stream_syncs);
    drain(s, UINT64_MAX);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* Runs one queued operation per call, as a device makes progress between
 * queries: CUDA_ERROR_NOT_READY while work remains after it. */
API CUresult cuStreamQuery(CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = waited(s, "cuStreamQuery");
    COUNT(stream_queries);
    if (s->head) drain(s, s->done + 1);
    const bool done = !s->head;
    pthread_mutex_unlock(&lock);
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* events */

static CUevent event_check(CUevent e, const char *what)
{
    if (!e) fatal("%s: a null event", what);
    if (e->magic == DEAD) fatal("%s: event used after cuEventDestroy", what);
    if (e->magic != MAGIC_EVENT) fatal("%s: not an event", what);
    return e;
}

API CUresult cuEventCreate(CUevent *e, unsigned flags)
{
    NEED_INIT();
    CUcontext c = current();
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    CUevent x = calloc(1, sizeof(*x));
    if (!x) return CUDA_ERROR_OUT_OF_MEMORY;
    x->magic = MAGIC_EVENT;
    x->ctx = c;
    x->flags = flags;
    *e = x;
    return CUDA_SUCCESS;
}

API CUresult cuEventDestroy(CUevent e)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    event_check(e, "cuEventDestroy");
    e->magic = DEAD; /* kept: a queued record may still name it */
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuEventRecord(CUevent e, CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    event_check(e, "cuEventRecord");
    s = usable(s, "cuEventRecord");
    if (e->ctx != s->ctx)
        fatal("cuEventRecord: an event of another context (event used in another context)");
    COUNT(event_records);
    Op *op = queue(s, OP_RECORD);
    op->u.rec.e = e;
    op->u.rec.gen = ++e->gen;
    e->stream = s;
    e->seq = s->queued;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuEventSynchronize(CUevent e)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    event_check(e, "cuEventSynchronize");
    COUNT(event_syncs);
    if (e->stream) drain(e->stream, e->seq);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuEventQuery(CUevent e)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    event_check(e, "cuEventQuery");
    const bool done = !e->stream || e->stream->done >= e->seq;
    pthread_mutex_unlock(&lock);
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    event_check(a, "cuEventElapsedTime");
    event_check(b, "cuEventElapsedTime");
    CUresult r = CUDA_SUCCESS;
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) r = CUDA_ERROR_INVALID_HANDLE;
    else if (!a->gen || !b->gen) r = CUDA_ERROR_INVALID_HANDLE;
    else if (a->gen_done != a->gen || b->gen_done != b->gen) r = CUDA_ERROR_NOT_READY;
    else *ms = (float)((double)(b->tick - a->tick) * 1e-3); /* a microsecond an operation */
    pthread_mutex_unlock(&lock);
    return r;
}

API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags)
{
    NEED_INIT();
    (void)flags;
    pthread_mutex_lock(&lock);
    event_check(e, "cuStreamWaitEvent");
    s = usable(s, "cuStreamWaitEvent");
    if (e->ctx != s->ctx)
        fatal("cuStreamWaitEvent: an event of another context (event used in another context)");
    COUNT(stream_waits);
    if (e->stream && e->stream != s) {
        Op *op = queue(s, OP_WAIT);
        op->u.wait.s = e->stream;
        op->u.wait.seq = e->seq;
    }
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* memory */

static CUresult dev_alloc(CUdeviceptr *p, size_t size)
{
    if (!size) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (!current()) r = CUDA_ERROR_INVALID_CONTEXT;
    else if (take_fault(&S.fail_alloc) || size > S.total_mem - dev_bytes)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (!r) {
        COUNT(dev_allocs);
        Alloc *a = alloc_add();
        a->kind = DEVICE;
        a->ctx = current();
        if (!guarded(size, 256, a)) {
            n_allocs--;
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            dev_bytes += size;
            *p = a->base;
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

API CUresult cuMemAlloc(CUdeviceptr *p, size_t size)
{
    NEED_INIT();
    return dev_alloc(p, size);
}

API CUresult cuMemAllocPitch(CUdeviceptr *p, size_t *pitch, size_t width, size_t height,
                             unsigned elem)
{
    NEED_INIT();
    if (!width || !height || (elem != 4 && elem != 8 && elem != 16))
        return CUDA_ERROR_INVALID_VALUE;
    *pitch = (width + 511) / 512 * 512;
    return dev_alloc(p, *pitch * height);
}

API CUresult cuMemFree(CUdeviceptr p)
{
    NEED_INIT();
    if (!p) return CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    Alloc *a = find(p, false);
    if (!a || a->kind != DEVICE || a->base != p) {
        if (find(p, true)) fatal("cuMemFree: use after free (0x%lx freed twice)", (unsigned long)p);
        fatal("cuMemFree: 0x%lx is not an address cuMemAlloc returned", (unsigned long)p);
    }
    drain_all(); /* CUDA's cuMemFree waits for the device's work */
    dev_bytes -= a->size;
    retire(a);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemHostAlloc(void **p, size_t size, unsigned flags)
{
    NEED_INIT();
    (void)flags;
    if (!size) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (take_fault(&S.fail_hostalloc)) r = CUDA_ERROR_OUT_OF_MEMORY;
    if (!r) {
        COUNT(host_allocs);
        Alloc *a = alloc_add();
        a->kind = HOST_ALLOC;
        if (!(*p = guarded(size, 16, a))) {
            n_allocs--;
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

API CUresult cuMemFreeHost(void *p)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    Alloc *a = find((uintptr_t)p, false);
    if (!a || a->kind != HOST_ALLOC || a->base != (uintptr_t)p)
        fatal("cuMemFreeHost: %p is not an address cuMemHostAlloc returned", p);
    drain_all();
    retire(a);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemHostRegister(void *p, size_t size, unsigned flags)
{
    NEED_INIT();
    (void)flags;
    if (!p || !size) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (take_fault(&S.fail_hostalloc)) r = CUDA_ERROR_OUT_OF_MEMORY;
    else if (find((uintptr_t)p, false) || find((uintptr_t)p + size - 1, false))
        r = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    if (!r) {
        COUNT(host_allocs);
        Alloc *a = alloc_add();
        a->kind = HOST_REGISTERED;
        a->base = (uintptr_t)p;
        a->size = size;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

API CUresult cuMemHostUnregister(void *p)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    Alloc *a = find((uintptr_t)p, false);
    if (!a || a->kind != HOST_REGISTERED || a->base != (uintptr_t)p)
        fatal("cuMemHostUnregister: %p was not registered", p);
    drain_all();
    memmove(a, a + 1, (size_t)(&allocs[n_allocs] - a - 1) * sizeof(*a));
    n_allocs--;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* A pageable source is read now (CUDA stages it before returning); a
 * page-locked one when the copy runs. */
static const void *source(Op *op, const void *src, size_t n, bool locked)
{
    if (locked) return src;
    if (!(op->owned = malloc(n ? n : 1))) fatal("out of host memory");
    memcpy(op->owned, src, n);
    return op->owned;
}

API CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = usable(s, "cuMemcpyHtoDAsync");
    check_device(dst, n, "cuMemcpyHtoDAsync (destination)");
    const bool locked = check_host(src, n, "cuMemcpyHtoDAsync (source)");
    COUNT(copies_h2d);
    Op *op = queue(s, OP_COPY);
    op->u.copy.dst = (void *)(uintptr_t)dst;
    op->u.copy.src = source(op, src, n, locked);
    op->u.copy.n = n;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = usable(s, "cuMemcpyDtoHAsync");
    check_device(src, n, "cuMemcpyDtoHAsync (source)");
    const bool locked = check_host(dst, n, "cuMemcpyDtoHAsync (destination)");
    COUNT(copies_d2h);
    Op *op = queue(s, OP_COPY);
    op->u.copy.dst = dst;
    op->u.copy.src = (const void *)(uintptr_t)src;
    op->u.copy.n = n;
    if (locked) tvd_host_poison(dst, n); /* until the copy runs */
    else drain(s, UINT64_MAX);          /* into pageable memory: synchronous */
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = usable(s, "cuMemcpyDtoDAsync");
    check_device(dst, n, "cuMemcpyDtoDAsync (destination)");
    check_device(src, n, "cuMemcpyDtoDAsync (source)");
    COUNT(copies_d2d);
    Op *op = queue(s, OP_COPY);
    op->u.copy.dst = (void *)(uintptr_t)dst;
    op->u.copy.src = (const void *)(uintptr_t)src;
    op->u.copy.n = n;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    s = usable(s, "cuMemsetD8Async");
    check_device(dst, n, "cuMemsetD8Async");
    COUNT(memsets);
    Op *op = queue(s, OP_SET);
    op->u.set.dst = (void *)(uintptr_t)dst;
    op->u.set.v = v;
    op->u.set.n = n;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* One side of a 2-D copy: its first byte, checked over its whole extent;
 * whether it is page-locked (device memory counts as such). */
static unsigned char *side(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr,
                           size_t x, size_t y, size_t pitch, size_t w, size_t h,
                           const char *what, bool *locked)
{
    if (arr) fatal("%s: CUDA arrays are not supported", what);
    const size_t extent = (h - 1) * pitch + w;
    if (type == CU_MEMORYTYPE_UNIFIED)
        type = find(dev, false) && find(dev, false)->kind == DEVICE ? CU_MEMORYTYPE_DEVICE
                                                                    : CU_MEMORYTYPE_HOST;
    if (type == CU_MEMORYTYPE_DEVICE) {
        const uintptr_t p = dev + y * pitch + x;
        check_device(p, extent, what);
        *locked = true;
        return (unsigned char *)p;
    }
    if (type != CU_MEMORYTYPE_HOST) fatal("%s: memory type %d is not supported", what, (int)type);
    unsigned char *p = (unsigned char *)host + y * pitch + x;
    *locked = check_host(p, extent, what);
    return p;
}

static CUresult copy_2d(const CUDA_MEMCPY2D *c, CUstream s, const char *what)
{
    if (!c->WidthInBytes || !c->Height) return CUDA_SUCCESS;
    if (c->WidthInBytes > c->srcPitch && c->Height > 1) return CUDA_ERROR_INVALID_VALUE;
    if (c->WidthInBytes > c->dstPitch && c->Height > 1) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    s = usable(s, what);
    char w[96];
    bool src_locked, dst_locked;
    snprintf(w, sizeof(w), "%s (source)", what);
    const unsigned char *src = side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
                                    c->srcXInBytes, c->srcY, c->srcPitch, c->WidthInBytes,
                                    c->Height, w, &src_locked);
    snprintf(w, sizeof(w), "%s (destination)", what);
    unsigned char *dst = side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
                              c->dstXInBytes, c->dstY, c->dstPitch, c->WidthInBytes, c->Height,
                              w, &dst_locked);
    COUNT(copies_2d);
    Op *op = queue(s, OP_COPY2D);
    op->u.c2.w = c->WidthInBytes;
    op->u.c2.h = c->Height;
    op->u.c2.dst = dst;
    op->u.c2.dpitch = c->dstPitch;
    op->u.c2.spitch = c->srcPitch;
    if (src_locked) {
        op->u.c2.src = src;
    } else { /* staged now, rows packed */
        if (!(op->owned = malloc(c->WidthInBytes * c->Height))) fatal("out of host memory");
        for (size_t y = 0; y < c->Height; y++)
            memcpy((unsigned char *)op->owned + y * c->WidthInBytes, src + y * c->srcPitch,
                   c->WidthInBytes);
        op->u.c2.src = op->owned;
        op->u.c2.spitch = c->WidthInBytes;
    }
    if (!dst_locked) drain(s, UINT64_MAX);
    else if (c->dstMemoryType == CU_MEMORYTYPE_HOST)
        for (size_t y = 0; y < c->Height; y++) tvd_host_poison(dst + y * c->dstPitch, c->WidthInBytes);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream s)
{
    NEED_INIT();
    return copy_2d(c, s, "cuMemcpy2DAsync");
}

API CUresult cuMemcpy2D(const CUDA_MEMCPY2D *c)
{
    NEED_INIT();
    const CUresult r = copy_2d(c, NULL, "cuMemcpy2D");
    if (!r) cuCtxSynchronize();
    return r;
}

/* modules */

/* The host modules the stand-in can run: every plan's folder (its twins
 * share the folder's kernels). */
#define STANDIN_MODULE(P, F) extern const TvdHostModule tvd_host_module_##F;
TVMAF_BUILTIN_PLANS(STANDIN_MODULE)
#define STANDIN_MODULE_ROW(P, F) &tvd_host_module_##F,
static const TvdHostModule *const host_modules[] = { TVMAF_BUILTIN_PLANS(STANDIN_MODULE_ROW) };

/* The runtime's self-test kernels (src/gpu/cuda/selftest.cu), in host C:
 * several parameters each, as their CUDA signatures have them. */
typedef struct SelftestAdd {
    const float *a, *b;
    float *c;
    unsigned n;
} SelftestAdd;
typedef struct SelftestImage {
    uint16_t *p;
    size_t pitch;
    unsigned w, h;
} SelftestImage;

static void selftest_add(const void *r, void *loc)
{
    (void)loc;
    const SelftestAdd *a = r;
    const unsigned i = tvd_item->gid[0] * tvd_item->lsize[0] + tvd_item->lid[0];
    if (i < a->n) a->c[i] = a->a[i] + a->b[i];
}

static void selftest_image(const void *r, void *loc)
{
    (void)loc;
    const SelftestImage *a = r;
    const unsigned x = tvd_item->gid[0] * tvd_item->lsize[0] + tvd_item->lid[0];
    const unsigned y = tvd_item->gid[1] * tvd_item->lsize[1] + tvd_item->lid[1];
    if (x < a->w && y < a->h) {
        uint16_t *row = (uint16_t *)((char *)a->p + (size_t)y * a->pitch);
        row[x] = (uint16_t)(3u * row[x] + x + y);
    }
}

static const TvdHostKernel selftest_kernels[] = {
    { "tvmaf_selftest_add", selftest_add, 0, sizeof(SelftestAdd), { 1024, 1 }, 0 },
    { "tvmaf_selftest_image", selftest_image, 0, sizeof(SelftestImage), { 1024, 1 }, 0 },
};
static const TvdHostModule selftest_module = { "selftest", selftest_kernels, 2 };
static const Param selftest_params[] = {
    { 4, { sizeof(void *), sizeof(void *), sizeof(void *), sizeof(unsigned) } },
    { 4, { sizeof(void *), sizeof(size_t), sizeof(unsigned), sizeof(unsigned) } },
};

/* Whether `name` is in the image as a symbol: between non-identifier
 * characters (PTX has ".entry NAME(", the ELF string tables "NAME\0"). */
static bool names(const unsigned char *img, size_t len, const char *name)
{
    const size_t n = strlen(name);
    for (const unsigned char *p = img; (p = memmem(p, len - (size_t)(p - img), name, n));
         p++) {
        const unsigned char before = p > img ? p[-1] : 0, after = p + n < img + len ? p[n] : 0;
        const bool id_b = before == '_' || (before >= '0' && before <= '9') ||
                          ((before | 32) >= 'a' && (before | 32) <= 'z');
        if (!id_b && (after == 0 || after == '(')) return true;
    }
    return false;
}

static bool holds(const unsigned char *img, size_t len, const TvdHostModule *m)
{
    for (unsigned k = 0; k < m->n_kernels; k++)
        if (!names(img, len, m->kernels[k].name)) return false;
    return true;
}

API CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned n_opts,
                                CUjit_option *opts, void **vals)
{
    NEED_INIT();
    (void)n_opts;
    (void)opts;
    (void)vals;
    CUcontext c = current();
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    const unsigned char *img = image;
    /* a fatbin: magic 0xba55ed50, version, header size, then the size of what follows */
    uint32_t magic;
    uint16_t hsize;
    uint64_t fsize;
    memcpy(&magic, img, 4);
    memcpy(&hsize, img + 6, 2);
    memcpy(&fsize, img + 8, 8);
    if (magic != 0xba55ed50u || hsize < 16 || fsize > (1ull << 30)) return CUDA_ERROR_INVALID_IMAGE;
    const size_t len = hsize + fsize;
    const TvdHostModule *host = NULL;
    for (size_t i = 0; i < sizeof(host_modules) / sizeof(host_modules[0]) && !host; i++)
        if (holds(img, len, host_modules[i])) host = host_modules[i];
    if (!host && holds(img, len, &selftest_module)) host = &selftest_module;
    /* an image of kernels the stand-in has no host build of */
    if (!host) return CUDA_ERROR_NO_BINARY_FOR_GPU;
    struct CUmod_st *m = calloc(1, sizeof(*m));
    Function *fns = calloc(host->n_kernels, sizeof(*fns));
    if (!m || !fns) {
        free(m);
        free(fns);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->magic = MAGIC_MODULE;
    m->ctx = c;
    m->host = host;
    m->fns = fns;
    for (unsigned k = 0; k < host->n_kernels; k++) {
        fns[k] = (Function){ MAGIC_FUNC, m, &host->kernels[k],
                             { 1, { (unsigned)host->kernels[k].args_size } } };
        if (host == &selftest_module) fns[k].param = selftest_params[k];
    }
    COUNT(module_loads);
    __atomic_fetch_add(&live_modules, 1ull, __ATOMIC_RELAXED);
    *mod = m;
    return CUDA_SUCCESS;
}

API CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
    return cuModuleLoadDataEx(mod, image, 0, NULL, NULL);
}

API CUresult cuModuleUnload(CUmodule m)
{
    NEED_INIT();
    pthread_mutex_lock(&lock);
    if (!m || m->magic != MAGIC_MODULE) fatal("cuModuleUnload: not a loaded module");
    drain_all(); /* launches already queued still run */
    m->magic = DEAD; /* kept, and its functions: a later launch of one is reported */
    for (unsigned k = 0; k < m->host->n_kernels; k++) m->fns[k].magic = DEAD;
    __atomic_fetch_sub(&live_modules, 1ull, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction *fn, CUmodule m, const char *name)
{
    NEED_INIT();
    if (!m || m->magic != MAGIC_MODULE) fatal("cuModuleGetFunction: not a loaded module");
    for (unsigned k = 0; k < m->host->n_kernels; k++)
        if (!strcmp(m->host->kernels[k].name, name)) {
            *fn = (CUfunction)&m->fns[k];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

/* launches */

API CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                            void **extra)
{
    NEED_INIT();
    Function *f = (Function *)fn;
    pthread_mutex_lock(&lock);
    if (!f || f->magic == DEAD) fatal("cuLaunchKernel: a function of an unloaded module");
    if (f->magic != MAGIC_FUNC) fatal("cuLaunchKernel: not a function");
    s = usable(s, "cuLaunchKernel");
    if (f->mod->ctx != current())
        fatal("cuLaunchKernel: %s belongs to a module of another context", f->k->name);
    if (extra || !params) fatal("cuLaunchKernel: only kernelParams are supported");
    const unsigned long long threads = (unsigned long long)bx * by * bz;
    if (!gx || !gy || !gz || !threads || gy > 65535 || gz > 65535 || bz > 64) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (threads > 1024)
        fatal("cuLaunchKernel: %s with %llu threads per block, more than allowed (1024)",
              f->k->name, threads);
    const unsigned bound = f->k->group[0] * f->k->group[1];
    if (threads > bound)
        fatal("cuLaunchKernel: %s with %llu threads per block, more than its launch bounds (%u)",
              f->k->name, threads, bound);
    if (shared > 48u << 10 || f->k->local_size + shared > 48u << 10) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (take_fault(&S.fail_launch)) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    }
    COUNT(launches);
    Op *op = queue(s, OP_LAUNCH);
    op->u.launch.f = f;
    op->u.launch.grid[0] = gx;
    op->u.launch.grid[1] = gy;
    op->u.launch.grid[2] = gz;
    op->u.launch.block[0] = bx;
    op->u.launch.block[1] = by;
    op->u.launch.block[2] = bz;
    /* the parameters are copied now, as CUDA does, each at its natural alignment */
    size_t off = 0;
    unsigned char packed[4096];
    for (unsigned i = 0; i < f->param.n; i++) {
        const size_t sz = f->param.size[i], al = sz >= 8 ? 8 : sz;
        off = (off + al - 1) / al * al;
        if (off + sz > sizeof(packed)) fatal("cuLaunchKernel: %s's parameters are too large", f->k->name);
        memcpy(packed + off, params[i], sz);
        off += sz;
    }
    if (!(op->owned = malloc(off ? off : 1))) fatal("out of host memory");
    memcpy(op->owned, packed, off);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}
