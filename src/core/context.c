/*
 * The context: registered extractors, the frame scheduler and the scores.
 *
 * Frames are scored in parallel by a pool of worker threads, each with its own
 * instance of every extractor; an extractor flagged TVMAF_FEX_TEMPORAL has one
 * instance that takes the frames in index order (other extractors of the same
 * frame do not wait for it). One flagged TVMAF_FEX_PREV_REF (integer motion,
 * which compares a frame with the one or two before) has an instance per
 * worker too: the context hands it the earlier reference pictures, which it
 * keeps referenced for the purpose, so no frame waits for another. Every score is a pure function of its inputs, so
 * the thread count changes no bit; the collector lists keys in the order of a
 * one-thread run.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/cpu.h"
#include "core/feature_name.h"
#include "core/internal.h"
#include "core/options.h"
#include "core/picture_pool.h"
#include "gpu/twin.h"
#include "tvmaf_config.h"

/* Frames in flight on a GPU backend when no thread count is given. */
#define GPU_MIN_WORKERS 4
#define GPU_MAX_WORKERS 8

struct TvmafSink {
    TvmafCollector *collector;
    TvmafOrder order;
    /* the context's frame range: outputs for submitted frames [first,
     * first + count) land at 0, 1, ...; the others are discarded */
    unsigned first, count;
};

/* Set once a score is NaN or infinite: said once per process on stderr
 * (the value is kept, as the reference computes it; README lists the cases). */
static atomic_int nonfinite_noted;

int tvmaf_sink_append(TvmafSink *sink, const char *key, unsigned index, double value)
{
    if (index < sink->first || index - sink->first >= sink->count) {
        sink->order.seq++; /* a warm-up or look-ahead frame's output */
        return 0;
    }
    index -= sink->first;
    if (!isfinite(value) && !atomic_exchange(&nonfinite_noted, 1))
        fprintf(stderr, "tvmaf WARNING %s is %s at frame %u (the value the reference "
                "computes for this input; later ones are not reported)\n", key,
                isnan(value) ? "NaN" : "infinite", index);
    int err = tvmaf_collector_append(sink->collector, key, index, value, sink->order);
    sink->order.seq++;
    return err;
}

int tvmaf_sink_aggregate(TvmafSink *sink, const char *key, double value)
{
    int err = tvmaf_collector_set_aggregate(sink->collector, key, value, sink->order);
    sink->order.seq++;
    return err;
}

typedef struct Slot {
    const TvmafExtractor *ex;
    char *name;     /* as registered */
    char *opt_spec; /* "opt=val:..." or NULL */
    void **inst;    /* one per worker (one for temporal extractors) */
    unsigned n_inst;
    unsigned n_ready; /* instances whose init succeeded */
    unsigned next_index; /* temporal: next frame allowed in */
} Slot;

/* A team job (core/team.h), on its poster's stack; listed in the context
 * while it has items no thread has started. */
typedef struct TeamJob {
    TvmafTeamFn fn;
    void *arg;
    unsigned n, next, done; /* items: in all, started, finished */
    unsigned joined;        /* helpers so far: their slots are 1, 2, ... */
    struct TeamJob *link;
} TeamJob;

struct TvmafTeam {
    TvmafContext *ctx;
};

typedef struct Job {
    TvmafPicture ref, dis;
    TvmafPicture prev[TVMAF_PREV_REFS]; /* PREV_REF extractors: frames index-1, index-2 */
    unsigned index;
    void *fence; /* device pictures: after the caller's writes (backend.h) */
} Job;

struct TvmafContext {
    TvmafConfiguration cfg;
    enum TvmafBackend backend; /* resolved: CPU or a GPU backend */
    const TvmafBackendOps *gpu_ops; /* the GPU backend, or NULL */
    TvmafGpu *gpu;                  /* its device, open for this context */
    bool device_frames;             /* a twin runs: frames go up to the device */
    Slot *slots;
    unsigned n_slots;
    TvmafCollector *collector;
    bool started, flushed;
    TvmafVideoInfo vi;
    unsigned pic_cnt;    /* frames scored: those of the range (see cfg.warmup_frames) */
    unsigned next_index; /* frames submitted */
    unsigned range_first, range_count; /* cfg.warmup_frames, cfg.range_frames or UINT_MAX */
    bool appended;       /* another context's scores follow: no more frames */
    bool want_prev;      /* a PREV_REF extractor runs: keep the last references */
    TvmafPicture hist[TVMAF_PREV_REFS]; /* references of frames next_index-1, -2 */

    /* scheduler */
    unsigned n_workers; /* 0: run on the calling thread */
    pthread_t *workers;
    struct WorkerArg { TvmafContext *ctx; unsigned id; } *worker_args;
    pthread_mutex_t lock;
    pthread_cond_t cond_job, cond_space, cond_turn, cond_idle;
    Job *queue;
    unsigned q_cap, q_head, q_len;
    unsigned busy;
    bool stop;
    struct TvmafTeam team;  /* what the instances see of the pool */
    unsigned *independent;  /* the slots of the extractors not TEMPORAL, in order */
    unsigned n_independent;
    TeamJob *team_jobs;     /* posted, with items not started, oldest first */
    pthread_cond_t cond_team; /* a team item finished */

    int err; /* first error */
    char msg[1024];
    char *defaults; /* cfg.feature_defaults, owned */
    uint32_t caller_seq; /* keys added by the caller (tvmaf_context_caller_order) */

};

static void set_error(TvmafContext *ctx, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!ctx->err) {
        ctx->err = err;
        vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
    }
    va_end(ap);
}

const char *tvmaf_last_error(const TvmafContext *ctx)
{
    return ctx ? ctx->msg : "";
}

const char *tvmaf_version(void) { return TVMAF_VERSION; }

/* tvmaf/tvmaf.h gives the format; the values are the build's (tvmaf_config.h) */
#if TVMAF_HAVE_FFMPEG
#define BUILD_INFO_FFMPEG "yes"
#else
#define BUILD_INFO_FFMPEG "no"
#endif
#if TVMAF_HAVE_CUDA
#define BUILD_INFO_CUDA "yes"
#else
#define BUILD_INFO_CUDA "no"
#endif
#if TVMAF_HAVE_OPENCL
#define BUILD_INFO_OPENCL "yes"
#else
#define BUILD_INFO_OPENCL "no"
#endif

const char *tvmaf_build_info(void)
{
    return "version=" TVMAF_VERSION " ffmpeg=" BUILD_INFO_FFMPEG " cuda=" BUILD_INFO_CUDA
           " opencl=" BUILD_INFO_OPENCL " simd=" TVMAF_SIMD_LEVELS;
}

TvmafCollector *tvmaf_context_collector(TvmafContext *ctx) { return ctx->collector; }
unsigned tvmaf_context_pic_count(const TvmafContext *ctx) { return ctx->pic_cnt; }
unsigned tvmaf_context_subsample(const TvmafContext *ctx)
{
    return ctx->cfg.n_subsample > 1 ? ctx->cfg.n_subsample : 1;
}

static void *worker_main(void *arg);

/* Sets an instance's options: the extractor's defaults, then the entries of
 * cfg.feature_defaults naming `name`, then the registration's own. */
static int parse_options(const char *defaults, const TvmafExtractor *ex, const char *name,
                         void *priv, const char *spec, char *msg, size_t len)
{
    tvmaf_options_set_defaults(ex->options, priv);
    const size_t n = strlen(name);
    for (const char *e = defaults; e && *e;) {
        const char *end = strchr(e, ';');
        const size_t elen = end ? (size_t)(end - e) : strlen(e);
        if (elen > n && !strncmp(e, name, n) && e[n] == '=') {
            char opts[512];
            snprintf(opts, sizeof(opts), "%.*s", (int)(elen - n - 1), e + n + 1);
            int err = tvmaf_options_parse(ex->options, priv, opts, name, msg, len);
            if (err) return err;
        }
        e = end ? end + 1 : e + elen;
    }
    return tvmaf_options_parse(ex->options, priv, spec, name, msg, len);
}

/* Every entry of cfg.feature_defaults names a feature and options it has. */
static int check_defaults(TvmafContext *ctx)
{
    for (const char *e = ctx->defaults; e && *e;) {
        const char *end = strchr(e, ';');
        const size_t elen = end ? (size_t)(end - e) : strlen(e);
        char name[128];
        const char *eq = memchr(e, '=', elen);
        const size_t nlen = eq ? (size_t)(eq - e) : elen;
        snprintf(name, sizeof(name), "%.*s", (int)nlen, e);
        const TvmafExtractor *ex = tvmaf_find_extractor(name, TVMAF_BACKEND_CPU);
        if (!ex) {
            snprintf(ctx->msg, sizeof(ctx->msg), "feature defaults: unknown feature \"%s\"",
                     name);
            return -EINVAL;
        }
        void *probe = calloc(1, ex->priv_size ? ex->priv_size : 1);
        if (!probe) return -ENOMEM;
        char msg[512] = "";
        int err = parse_options(ctx->defaults, ex, name, probe, NULL, msg, sizeof(msg));
        free(probe);
        if (err) {
            snprintf(ctx->msg, sizeof(ctx->msg), "feature defaults: %s", msg);
            return err;
        }
        e = end ? end + 1 : e + elen;
    }
    return 0;
}


/* The backend of cfg.backend: the CPU, a GPU backend (opened for this
 * context from here on: creating a device context takes about 120 ms on the
 * H200 host, done while the caller loads models and reads the first frames),
 * or for auto the first GPU backend that is usable, else the CPU. */
static int resolve_backend(TvmafContext *ctx)
{
    const TvmafBackendOps *ops = NULL;
    switch (ctx->cfg.backend) {
    case TVMAF_BACKEND_CPU: break;
    case TVMAF_BACKEND_AUTO:
        /* the choice tvmaf_backend_choose reports (a backend's auto_ok is
         * cheap where it has no device: backend.h) */
        ops = tvmaf_auto_backend(ctx->cfg.gpu_index);
        break;
    default:
        ops = tvmaf_backend_ops(ctx->cfg.backend);
        if (!ops) {
            snprintf(ctx->msg, sizeof(ctx->msg), "backend %s: no usable %s device (this build "
                     "has no %s support)", tvmaf_backend_name(ctx->cfg.backend),
                     tvmaf_backend_label(ctx->cfg.backend), tvmaf_backend_label(ctx->cfg.backend));
            return -ENODEV;
        }
        if (!ops->available(ctx->cfg.gpu_index)) {
            /* the backend says why: its driver's failure, or how many devices there are */
            const char *why = ops->last_error ? ops->last_error() : "";
            snprintf(ctx->msg, sizeof(ctx->msg), "backend %s: no usable %s device (device %u: %s)",
                     tvmaf_backend_name(ctx->cfg.backend), tvmaf_backend_label(ctx->cfg.backend),
                     ctx->cfg.gpu_index, why && *why ? why : "no driver or no GPU");
            return -ENODEV;
        }
    }
    ctx->backend = ops ? ops->id : TVMAF_BACKEND_CPU;
    if (!ops) return 0;
    char msg[512] = "";
    int err = ops->open(&ctx->gpu, &ctx->cfg, msg, sizeof(msg));
    if (err) {
        snprintf(ctx->msg, sizeof(ctx->msg), "backend %s: %s", ops->name, msg);
        return err;
    }
    ctx->gpu_ops = ops;
    return 0;
}

int tvmaf_init(TvmafContext **out, const TvmafConfiguration *cfg)
{
    if (!out) return -EINVAL;
    *out = NULL;
    TvmafContext *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) return -ENOMEM;
    if (cfg) ctx->cfg = *cfg;
    ctx->cfg.feature_defaults = NULL;
    ctx->range_first = ctx->cfg.warmup_frames;
    ctx->range_count = ctx->cfg.range_frames ? ctx->cfg.range_frames : UINT_MAX;
    if (cfg && cfg->feature_defaults && !(ctx->defaults = strdup(cfg->feature_defaults))) {
        free(ctx);
        return -ENOMEM;
    }
    int err = tvmaf_collector_create(&ctx->collector);
    if (err) { free(ctx->defaults); free(ctx); return err; }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_cond_init(&ctx->cond_job, NULL);
    pthread_cond_init(&ctx->cond_space, NULL);
    pthread_cond_init(&ctx->cond_turn, NULL);
    pthread_cond_init(&ctx->cond_idle, NULL);
    pthread_cond_init(&ctx->cond_team, NULL);
    ctx->team.ctx = ctx;

    if ((err = check_defaults(ctx)) || (err = resolve_backend(ctx))) {
        *out = ctx;
        return err;
    }
    ctx->n_workers = ctx->cfg.n_threads > 1 ? ctx->cfg.n_threads : 0;
    /* Without a thread count, a GPU backend still keeps frames in flight:
     * each worker has one frame on the device while the others upload or
     * finish on the host (same bits at any count). Eight measured best on
     * the H200 host with CUDA (4, 8 and 16 workers: 688, 687 and 652 fps at
     * 1080p, 221, 225 and 203 fps at 4K, whole command). */
    if (ctx->gpu_ops && ctx->cfg.n_threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        ctx->n_workers = n < GPU_MIN_WORKERS ? GPU_MIN_WORKERS
                       : n > GPU_MAX_WORKERS ? GPU_MAX_WORKERS : (unsigned)n;
    }
    if (ctx->n_workers) {
        ctx->q_cap = ctx->n_workers > 4 ? ctx->n_workers : 4;
        ctx->queue = calloc(ctx->q_cap, sizeof(*ctx->queue));
        ctx->workers = calloc(ctx->n_workers, sizeof(*ctx->workers));
        ctx->worker_args = calloc(ctx->n_workers, sizeof(*ctx->worker_args));
        if (!ctx->queue || !ctx->workers || !ctx->worker_args) {
            tvmaf_close(ctx);
            return -ENOMEM;
        }
    }
    *out = ctx;
    return 0;
}

const TvmafExtractor *tvmaf_find_extractor(const char *name, enum TvmafBackend backend)
{
    const TvmafExtractor *const *tvmaf_extractors = tvmaf_extractor_list();
    for (unsigned i = 0; tvmaf_extractors[i]; i++)
        if (tvmaf_extractors[i]->backend == backend && !strcmp(tvmaf_extractors[i]->name, name))
            return tvmaf_extractors[i];
    return NULL;
}

/* Whether two parsed option sets of one extractor hold the same values. */
static int same_option_values(const TvmafOption *opts, const void *a, const void *b)
{
    for (unsigned i = 0; opts && opts[i].name; i++) {
        const char *pa = (const char *)a + opts[i].offset, *pb = (const char *)b + opts[i].offset;
        switch (opts[i].type) {
        case TVMAF_OPT_BOOL: if (*(const bool *)pa != *(const bool *)pb) return 0; break;
        case TVMAF_OPT_INT: if (*(const int *)pa != *(const int *)pb) return 0; break;
        case TVMAF_OPT_DOUBLE: if (memcmp(pa, pb, sizeof(double))) return 0; break;
        case TVMAF_OPT_STRING: if (strncmp(pa, pb, TVMAF_OPT_STRING_LEN)) return 0; break;
        default: return 0;
        }
    }
    return 1;
}

int tvmaf_use_feature(TvmafContext *ctx, const char *spec)
{
    if (!ctx || !spec) return -EINVAL;
    if (ctx->started) {
        snprintf(ctx->msg, sizeof(ctx->msg), "features must be registered before the first frame");
        return -EINVAL;
    }
    char *name = strdup(spec);
    if (!name) return -ENOMEM;
    char *opts = strchr(name, '=');
    if (opts) *opts++ = '\0';

    const TvmafExtractor *ex = NULL;
    if (ctx->gpu_ops) ex = tvmaf_find_extractor(name, ctx->backend);
    if (!ex) ex = tvmaf_find_extractor(name, TVMAF_BACKEND_CPU);
    if (!ex) {
        snprintf(ctx->msg, sizeof(ctx->msg), "unknown feature \"%s\" (tvmaf --list-features "
                 "lists them)", name);
        free(name);
        return -EINVAL;
    }
    /* a feature registered twice with the same options runs once */
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        const Slot *s = &ctx->slots[i];
        if (!strcmp(s->name, name) && !strcmp(s->opt_spec ? s->opt_spec : "", opts ? opts : "")) {
            free(name);
            return 0;
        }
    }
    /* validate the options now, so a bad value fails before any frame */
    void *probe = calloc(1, ex->priv_size ? ex->priv_size : 1);
    if (!probe) { free(name); return -ENOMEM; }
    char msg[512] = "";
    int err = parse_options(ctx->defaults, ex, name, probe, opts, msg, sizeof(msg));
    /* with other options, its outputs must get other names (option suffixes) */
    for (unsigned i = 0; !err && i < ctx->n_slots; i++) {
        const Slot *s = &ctx->slots[i];
        if (strcmp(s->name, name)) continue;
        void *other = calloc(1, ex->priv_size ? ex->priv_size : 1);
        if (!other) { err = -ENOMEM; break; }
        char m2[256];
        parse_options(ctx->defaults, ex, name, other, s->opt_spec, m2, sizeof(m2));
        if (same_option_values(ex->options, probe, other)) {
            /* written differently ("speed_kernelscale=1.0", or nothing: its
             * default), the same instance: it runs once, as libvmaf's two
             * extractors of equal option values give one set of values */
            free(other);
            free(probe);
            free(name);
            return 0;
        }
        for (unsigned k = 0; ex->provided_features && ex->provided_features[k]; k++) {
            char a[256], b[256];
            tvmaf_feature_key(a, sizeof(a), ex->provided_features[k], ex->options, probe);
            tvmaf_feature_key(b, sizeof(b), ex->provided_features[k], ex->options, other);
            if (!strcmp(a, b)) {
                snprintf(msg, sizeof(msg), "feature \"%s\" is requested twice with options "
                         "that give its outputs the same names (\"%s\")", name,
                         tvmaf_feature_alias(a));
                err = -EINVAL;
                break;
            }
        }
        free(other);
    }
    free(probe);
    if (err) {
        snprintf(ctx->msg, sizeof(ctx->msg), "%s", msg);
        free(name);
        return err;
    }
    Slot *slots = realloc(ctx->slots, (ctx->n_slots + 1) * sizeof(*slots));
    if (!slots) { free(name); return -ENOMEM; }
    ctx->slots = slots;
    Slot *s = &ctx->slots[ctx->n_slots++];
    memset(s, 0, sizeof(*s));
    s->ex = ex;
    s->name = name;
    s->opt_spec = opts && *opts ? strdup(opts) : NULL;
    return 0;
}

int tvmaf_luma_only(const TvmafContext *ctx)
{
    if (!ctx || !ctx->n_slots) return 0;
    for (unsigned i = 0; i < ctx->n_slots; i++)
        if (!(ctx->slots[i].ex->flags & TVMAF_FEX_LUMA_ONLY)) return 0;
    return 1;
}

const char *tvmaf_feature_backend(const TvmafContext *ctx, const char *name)
{
    for (unsigned i = 0; ctx && i < ctx->n_slots; i++)
        if (!strcmp(ctx->slots[i].name, name))
            return tvmaf_backend_name(ctx->slots[i].ex->backend);
    return NULL;
}

/* The per-worker device frames, when a twin runs: luma only when every twin
 * in use reads luma only. */
static int start_device_frames(TvmafContext *ctx, unsigned n)
{
    unsigned planes = 0;
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        const TvmafExtractor *ex = ctx->slots[i].ex;
        if (ex->backend == TVMAF_BACKEND_CPU) continue;
        const unsigned p = (ex->flags & TVMAF_FEX_LUMA_ONLY) ? 1 : 3;
        if (p > planes) planes = p;
    }
    if (!planes) return 0;
    char msg[512] = "";
    int err = ctx->gpu_ops->frames_alloc(ctx->gpu, &ctx->vi, planes, n, msg, sizeof(msg));
    if (err) {
        set_error(ctx, err, "backend %s: %s", ctx->gpu_ops->name, msg);
        return err;
    }
    ctx->device_frames = true;
    return 0;
}

/* Creates and initialises every instance once the video format is known. */
static int start(TvmafContext *ctx, const TvmafPicture *ref)
{
    ctx->vi = (TvmafVideoInfo){ ref->pix_fmt, ref->bpc, ref->w[0], ref->h[0],
                               tvmaf_cpu_flags_masked(ctx->cfg.cpumask),
                               (ctx->cfg.gpu_flags & TVMAF_GPU_SHARED_REFERENCE) != 0,
                               ctx->n_workers > 1 ? &ctx->team : NULL };
    if (!ctx->n_slots) {
        set_error(ctx, -EINVAL, "no feature registered");
        return ctx->err;
    }
    const unsigned n_par = ctx->n_workers ? ctx->n_workers : 1;
    ctx->independent = malloc(ctx->n_slots * sizeof(*ctx->independent));
    if (!ctx->independent) {
        set_error(ctx, -ENOMEM, "out of memory starting the context");
        return ctx->err;
    }
    for (unsigned i = 0; i < ctx->n_slots; i++)
        if (!(ctx->slots[i].ex->flags & TVMAF_FEX_TEMPORAL))
            ctx->independent[ctx->n_independent++] = i;
    if (ctx->gpu_ops) {
        char msg[512] = "";
        int err = ctx->gpu_ops->ready(ctx->gpu, msg, sizeof(msg));
        if (err) {
            set_error(ctx, err, "backend %s: %s", ctx->gpu_ops->name, msg);
            return err;
        }
    }
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        Slot *s = &ctx->slots[i];
        s->n_inst = (s->ex->flags & TVMAF_FEX_TEMPORAL) ? 1 : n_par;
        if (s->ex->flags & TVMAF_FEX_PREV_REF) ctx->want_prev = true;
        s->inst = calloc(s->n_inst, sizeof(*s->inst));
        if (!s->inst) {
            set_error(ctx, -ENOMEM, "out of memory allocating %u instances of feature \"%s\"",
                      s->n_inst, s->name);
            return ctx->err;
        }
        for (unsigned k = 0; k < s->n_inst; k++) {
            s->inst[k] = calloc(1, s->ex->priv_size ? s->ex->priv_size : 1);
            if (!s->inst[k]) {
                set_error(ctx, -ENOMEM, "out of memory allocating the state of feature \"%s\"",
                          s->name);
                return ctx->err;
            }
            char msg[512] = "";
            int err = parse_options(ctx->defaults, s->ex, s->name, s->inst[k], s->opt_spec,
                                    msg, sizeof(msg));
            if (!err && s->ex->twin)
                err = tvd_twin_init(s->ex, s->inst[k], &ctx->vi, ctx->gpu, msg, sizeof(msg));
            else if (!err && s->ex->init)
                err = s->ex->init(s->inst[k], &ctx->vi, msg, sizeof(msg));
            if (err) {
                /* an extractor's init fails with -ENOMEM (and no message of
                 * its own) only when its buffers cannot be allocated */
                if (!msg[0] && err == -ENOMEM)
                    snprintf(msg, sizeof(msg), "out of memory allocating the buffers of "
                             "feature \"%s\" for %ux%u %s %u-bit input", s->name, ctx->vi.w,
                             ctx->vi.h, tvmaf_pix_fmt_name(ctx->vi.pix_fmt), ctx->vi.bpc);
                else if (!msg[0])
                    snprintf(msg, sizeof(msg), "feature \"%s\" cannot score %ux%u %s "
                             "%u-bit input", s->name, ctx->vi.w, ctx->vi.h,
                             tvmaf_pix_fmt_name(ctx->vi.pix_fmt), ctx->vi.bpc);
                set_error(ctx, err, "%s", msg);
                return err;
            }
            s->n_ready++;
        }
    }
    if (ctx->gpu_ops) {
        int err = start_device_frames(ctx, n_par);
        if (err) return err;
    }
    for (unsigned i = 0; i < ctx->n_workers; i++) {
        ctx->worker_args[i].ctx = ctx;
        ctx->worker_args[i].id = i;
        const int e = pthread_create(&ctx->workers[i], NULL, worker_main, &ctx->worker_args[i]);
        if (e) {
            /* the ones started stop now (no job was queued): tvmaf_close
             * joins workers only of a started context */
            pthread_mutex_lock(&ctx->lock);
            ctx->stop = true;
            pthread_cond_broadcast(&ctx->cond_job);
            pthread_mutex_unlock(&ctx->lock);
            for (unsigned k = 0; k < i; k++) pthread_join(ctx->workers[k], NULL);
            set_error(ctx, -e, "cannot start worker thread %u of %u: %s", i + 1,
                      ctx->n_workers, strerror(e));
            ctx->n_workers = 0;
            return ctx->err;
        }
    }
    ctx->started = true;
    return 0;
}

static void release_job(Job *job)
{
    tvmaf_picture_unref(&job->ref);
    tvmaf_picture_unref(&job->dis);
    for (int k = 0; k < TVMAF_PREV_REFS; k++) tvmaf_picture_unref(&job->prev[k]);
}

/* A reference to `src` that stays valid after the caller gets its picture
 * back: a second reference to the library's buffer, or, for memory the
 * caller owns (priv NULL), a copy in a library picture. */
static int keep_picture(TvmafPicture *dst, const TvmafPicture *src)
{
    if (src->priv) return tvmaf_picture_ref(dst, src);
    int err = tvmaf_picture_alloc(dst, src->pix_fmt, src->bpc, src->w[0], src->h[0]);
    if (err) return err;
    const size_t bytes = src->bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++)
        for (unsigned y = 0; y < dst->h[p]; y++)
            memcpy((char *)dst->data[p] + (ptrdiff_t)y * dst->stride[p],
                   (const char *)src->data[p] + (ptrdiff_t)y * src->stride[p],
                   dst->w[p] * bytes);
    return 0;
}

/* The references the job of the frame being submitted hands to PREV_REF
 * extractors (the last frames'), then this frame's kept for the next ones. */
static int take_history(TvmafContext *ctx, Job *job, const TvmafPicture *ref)
{
    for (int k = 0; k < TVMAF_PREV_REFS; k++) {
        if (!ctx->hist[k].data[0]) continue;
        int err = tvmaf_picture_ref(&job->prev[k], &ctx->hist[k]);
        if (err) return err;
    }
    TvmafPicture keep;
    int err = keep_picture(&keep, ref);
    if (err) return err;
    tvmaf_picture_unref(&ctx->hist[TVMAF_PREV_REFS - 1]);
    for (int k = TVMAF_PREV_REFS - 1; k > 0; k--) ctx->hist[k] = ctx->hist[k - 1];
    ctx->hist[0] = keep;
    return 0;
}

static void drop_history(TvmafContext *ctx)
{
    for (int k = 0; k < TVMAF_PREV_REFS; k++) tvmaf_picture_unref(&ctx->hist[k]);
}

/* ---- team jobs (core/team.h) ---------------------------------------------- */

unsigned tvmaf_team_size(const TvmafTeam *team)
{
    return team ? team->ctx->n_workers : 1;
}

static void team_unlink(TvmafContext *ctx, TeamJob *j)
{
    TeamJob **p = &ctx->team_jobs;
    while (*p != j) p = &(*p)->link;
    *p = j->link;
}

/* With the lock held: starts items of j until none is left to start, as
 * thread `slot` of the job. Once every item has finished, the poster may
 * return and j is gone: j is not read after the last item's count. */
static void team_take(TvmafContext *ctx, TeamJob *j, unsigned slot)
{
    while (j->next < j->n) {
        const unsigned i = j->next++;
        if (j->next == j->n) team_unlink(ctx, j);
        pthread_mutex_unlock(&ctx->lock);
        j->fn(j->arg, i, slot);
        pthread_mutex_lock(&ctx->lock);
        if (++j->done == j->n) pthread_cond_broadcast(&ctx->cond_team);
    }
}

/* With the lock held: helps the oldest posted job; false when none is
 * posted. A thread leaves a job only once every item has started, so it
 * joins each job at most once and the slots stay below the worker count. */
static bool team_help(TvmafContext *ctx)
{
    TeamJob *j = ctx->team_jobs;
    if (!j) return false;
    team_take(ctx, j, ++j->joined);
    return true;
}

void tvmaf_team_run(TvmafTeam *team, unsigned n, TvmafTeamFn fn, void *arg)
{
    if (!team || n < 2) {
        for (unsigned i = 0; i < n; i++) fn(arg, i, 0);
        return;
    }
    TvmafContext *ctx = team->ctx;
    TeamJob j = { fn, arg, n, 0, 0, 0, NULL };
    pthread_mutex_lock(&ctx->lock);
    TeamJob **tail = &ctx->team_jobs;
    while (*tail) tail = &(*tail)->link;
    *tail = &j;
    /* idle workers wait for frames, others for a temporal turn */
    pthread_cond_broadcast(&ctx->cond_job);
    pthread_cond_broadcast(&ctx->cond_turn);
    team_take(ctx, &j, 0);
    while (j.done < j.n) pthread_cond_wait(&ctx->cond_team, &ctx->lock);
    pthread_mutex_unlock(&ctx->lock);
}

/* One frame on worker `w`, as its extractors see it. */
typedef struct FrameRun {
    TvmafContext *ctx;
    unsigned w;
    Job *job;
    const TvmafDeviceFrame *dframe;
    bool in_range, sampled;
    unsigned scored;
    const unsigned *items; /* the slots of its team job (slot_item) */
} FrameRun;

/* Runs extractor slot i on the frame (a temporal one when its turn came). */
static void run_slot(const FrameRun *f, unsigned i)
{
    TvmafContext *ctx = f->ctx;
    const Job *job = f->job;
    Slot *s = &ctx->slots[i];
    const bool temporal = s->ex->flags & TVMAF_FEX_TEMPORAL;
    const bool prev_ref = s->ex->flags & TVMAF_FEX_PREV_REF;
    /* the extractors that look back see every frame, warm-up included */
    const bool run = f->sampled || temporal || prev_ref ||
                     (f->in_range && (s->ex->flags & TVMAF_FEX_ALL_FRAMES));
    void *inst = s->inst[temporal ? 0 : f->w];
    pthread_mutex_lock(&ctx->lock);
    const bool failed = ctx->err != 0;
    pthread_mutex_unlock(&ctx->lock);
    if (!run || failed) return;
    /* extractors are 1, 2, ...: 0 is the caller's (tvmaf_context_caller_order) */
    TvmafSink sink = { ctx->collector, { f->in_range ? f->scored : job->index, i + 1, 0 },
                       ctx->range_first, ctx->range_count };
    const TvmafPicture *prev[TVMAF_PREV_REFS];
    for (int k = 0; k < TVMAF_PREV_REFS; k++)
        prev[k] = job->prev[k].data[0] ? &job->prev[k] : NULL;
    int err = s->ex->backend == TVMAF_BACKEND_CPU
            ? prev_ref ? s->ex->extract_prev(inst, &job->ref, prev, &job->dis, job->index, &sink)
            : s->ex->extract(inst, &job->ref, &job->dis, job->index, &sink)
            : f->dframe ? tvd_twin_extract(s->ex, inst, f->dframe, &job->ref, &job->dis,
                                           job->index, &sink)
            : -EIO;
    if (err) {
        const char *why = s->ex->backend != TVMAF_BACKEND_CPU ? ctx->gpu_ops->last_error() : "";
        pthread_mutex_lock(&ctx->lock);
        set_error(ctx, err, "feature \"%s\" failed on frame %u (%s%s%s)", s->name, job->index,
                  strerror(-err), *why ? ": " : "", why);
        pthread_mutex_unlock(&ctx->lock);
    }
}

/* Team item: the item-th extractor of the frame's team job. */
static void slot_item(void *arg, unsigned item, unsigned slot)
{
    const FrameRun *f = arg;
    (void)slot;
    run_slot(f, f->items[item]);
}

/* A temporal extractor's turn: frames reach it in index order. */
static void end_turn(TvmafContext *ctx, Slot *s)
{
    pthread_mutex_lock(&ctx->lock);
    s->next_index++;
    pthread_cond_broadcast(&ctx->cond_turn);
    pthread_mutex_unlock(&ctx->lock);
}

/* Scores one frame with worker `w`'s instances. */
static void run_frame(TvmafContext *ctx, unsigned w, Job *job)
{
    /* a frame outside the range (warm-up, look-ahead) goes to the temporal
     * extractors only; the subsample grid counts from the range's first frame */
    const bool in_range = job->index >= ctx->range_first &&
                          job->index - ctx->range_first < ctx->range_count;
    const unsigned scored = job->index - ctx->range_first;
    FrameRun f = { ctx, w, job, NULL, in_range,
                   in_range && (ctx->cfg.n_subsample <= 1 || scored % ctx->cfg.n_subsample == 0),
                   scored, ctx->independent };
    if (ctx->device_frames) {
        char msg[512] = "";
        int err = ctx->gpu_ops->frame_upload(ctx->gpu, w, &job->ref, &job->dis, job->fence,
                                             &f.dframe, msg, sizeof(msg));
        if (err) {
            pthread_mutex_lock(&ctx->lock);
            set_error(ctx, err, "backend %s: uploading frame %u failed (%s)",
                      ctx->gpu_ops->name, job->index, msg);
            pthread_mutex_unlock(&ctx->lock);
        }
    }
    /* Independent extractors first, so a frame waiting for its turn at a
     * temporal one has already done the rest of its work. On the CPU with
     * workers they are a team job, with the temporal extractors whose turn
     * this frame already holds (it keeps the turn until end_turn): idle
     * workers take whole extractors of this frame. Each writes its own
     * outputs, which the collector orders by extractor, so which worker ran
     * which changes nothing. */
    const bool team = !ctx->gpu_ops && ctx->n_workers > 1;
    unsigned items[ctx->n_slots + 1];
    bool in_team[ctx->n_slots + 1];
    unsigned n_items = ctx->n_independent;
    memcpy(items, ctx->independent, n_items * sizeof(*items));
    memset(in_team, 0, sizeof(in_team));
    if (team) {
        pthread_mutex_lock(&ctx->lock);
        for (unsigned i = 0; i < ctx->n_slots; i++) {
            if ((ctx->slots[i].ex->flags & TVMAF_FEX_TEMPORAL) &&
                ctx->slots[i].next_index == job->index) {
                items[n_items++] = i;
                in_team[i] = true;
            }
        }
        pthread_mutex_unlock(&ctx->lock);
        f.items = items;
        tvmaf_team_run(&ctx->team, n_items, slot_item, &f);
    } else {
        for (unsigned k = 0; k < n_items; k++) run_slot(&f, items[k]);
    }
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        Slot *s = &ctx->slots[i];
        if (!(s->ex->flags & TVMAF_FEX_TEMPORAL)) continue;
        if (in_team[i]) {
            end_turn(ctx, s);
            continue;
        }
        if (ctx->n_workers) {
            pthread_mutex_lock(&ctx->lock);
            /* waiting, it runs other frames' team items */
            while (s->next_index != job->index)
                if (!team_help(ctx)) pthread_cond_wait(&ctx->cond_turn, &ctx->lock);
            pthread_mutex_unlock(&ctx->lock);
        }
        run_slot(&f, i);
        if (ctx->n_workers) end_turn(ctx, s);
    }
    if (ctx->device_frames) ctx->gpu_ops->frame_done(ctx->gpu, w, job->index);
    release_job(job);
}

static void *worker_main(void *arg)
{
    const struct WorkerArg *wa = arg;
    TvmafContext *ctx = wa->ctx;
    pthread_mutex_lock(&ctx->lock);
    for (;;) {
        while (!ctx->q_len && !ctx->team_jobs && !ctx->stop)
            pthread_cond_wait(&ctx->cond_job, &ctx->lock);
        /* a waiting frame first: frames keep every worker busy on their
         * own; team items only fill the time no frame is waiting */
        if (!ctx->q_len) {
            if (team_help(ctx)) continue;
            break; /* stopped */
        }
        /* FIFO: frames start in index order, so the lowest frame in flight
         * never waits for a temporal turn and the pool cannot deadlock */
        Job job = ctx->queue[ctx->q_head];
        ctx->q_head = (ctx->q_head + 1) % ctx->q_cap;
        ctx->q_len--;
        ctx->busy++;
        pthread_cond_signal(&ctx->cond_space);
        pthread_mutex_unlock(&ctx->lock);
        run_frame(ctx, wa->id, &job);
        pthread_mutex_lock(&ctx->lock);
        ctx->busy--;
        if (!ctx->busy && !ctx->q_len) pthread_cond_broadcast(&ctx->cond_idle);
    }
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
}

static int check_picture(TvmafContext *ctx, const TvmafPicture *p, const char *what)
{
    unsigned pw[3], ph[3];
    if (!p->data[0] || p->bpc < 8 || p->bpc > 16 ||
        tvmaf_plane_dims(p->pix_fmt, p->w[0], p->h[0], pw, ph)) {
        set_error(ctx, -EINVAL, "%s picture is not valid", what);
        return -EINVAL;
    }
    /* a device picture may carry its luma alone (TVMAF_PICTURE_LUMA_ONLY) */
    const bool luma_only = tvmaf_picture_luma_only(p);
    for (int i = 0; i < 3; i++) {
        if (p->w[i] != pw[i] || p->h[i] != ph[i] || (pw[i] && !p->data[i] && !(i && luma_only))) {
            set_error(ctx, -EINVAL, "%s picture has inconsistent plane sizes", what);
            return -EINVAL;
        }
    }
    return 0;
}

/* Pictures in device memory (tvmaf_cuda_picture_alloc): both of the pair
 * from this context's device, and every feature on that device (no host
 * code can read them), reading luma only when the pictures carry no chroma. */
static int check_device_pictures(TvmafContext *ctx, const TvmafPicture *ref,
                                 const TvmafPicture *dis)
{
    void *const dr = tvmaf_picture_device(ref), *const dd = tvmaf_picture_device(dis);
    if (!dr && !dd) return 0;
    if (dr != dd || !ctx->gpu_ops || !ctx->gpu_ops->device ||
        dr != ctx->gpu_ops->device(ctx->gpu)) {
        set_error(ctx, -EINVAL, "device pictures: the reference and the distorted must both "
                  "come from tvmaf_cuda_picture_alloc of this context's device");
        return -EINVAL;
    }
    const bool luma_only = tvmaf_picture_luma_only(ref) || tvmaf_picture_luma_only(dis);
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        const TvmafExtractor *ex = ctx->slots[i].ex;
        if (ex->backend == TVMAF_BACKEND_CPU) {
            set_error(ctx, -EINVAL, "feature \"%s\" runs on the CPU in this context, and "
                      "pictures in device memory can only be scored on the device",
                      ctx->slots[i].name);
            return -EINVAL;
        }
        if (luma_only && !(ex->flags & TVMAF_FEX_LUMA_ONLY)) {
            set_error(ctx, -EINVAL, "feature \"%s\" reads the chroma planes, and these "
                      "pictures carry luma only (TVMAF_PICTURE_LUMA_ONLY)", ctx->slots[i].name);
            return -EINVAL;
        }
    }
    return 0;
}

int tvmaf_cuda_picture_alloc(TvmafContext *ctx, TvmafPicture *pic, enum TvmafPixelFormat fmt,
                             unsigned bpc, unsigned w, unsigned h, unsigned flags)
{
    if (!pic) return -EINVAL;
    memset(pic, 0, sizeof(*pic));
    if (!ctx || (flags & ~TVMAF_PICTURE_LUMA_ONLY) || bpc < 8 || bpc > 16 || w > 65536 ||
        h > 65536)
        return -EINVAL;
    if (ctx->backend != TVMAF_BACKEND_CUDA || !ctx->gpu_ops || !ctx->gpu_ops->picture_alloc)
        return -ENODEV;
    char msg[512] = "";
    const int err = ctx->gpu_ops->picture_alloc(ctx->gpu, pic, fmt, bpc, w, h,
                                                flags & TVMAF_PICTURE_LUMA_ONLY, msg, sizeof(msg));
    if (err && ctx->cfg.log_level >= TVMAF_LOG_ERROR)
        fprintf(stderr, "tvmaf ERROR tvmaf_cuda_picture_alloc: %s\n", msg);
    return err;
}

int tvmaf_read_pictures(TvmafContext *ctx, TvmafPicture *ref, TvmafPicture *dis,
                        unsigned index)
{
    if (!ctx || !ref || !dis) return -EINVAL;
    int err = 0;
    if (ctx->flushed || ctx->appended) {
        set_error(ctx, -EINVAL, ctx->flushed ? "pictures submitted after flush"
                                             : "pictures submitted after tvmaf_append_scores");
        err = -EINVAL;
        goto drop;
    }
    if ((err = check_picture(ctx, ref, "reference")) || (err = check_picture(ctx, dis, "distorted")))
        goto drop;
    if (ref->w[0] != dis->w[0] || ref->h[0] != dis->h[0] || ref->pix_fmt != dis->pix_fmt ||
        ref->bpc != dis->bpc) {
        set_error(ctx, -EINVAL, "reference (%ux%u %s %u-bit) and distorted (%ux%u %s %u-bit) "
                  "differ in size or format", ref->w[0], ref->h[0], tvmaf_pix_fmt_name(ref->pix_fmt),
                  ref->bpc, dis->w[0], dis->h[0], tvmaf_pix_fmt_name(dis->pix_fmt), dis->bpc);
        err = -EINVAL;
        goto drop;
    }
    if (index != ctx->next_index) {
        set_error(ctx, -EINVAL, "frame %u submitted, expected %u", index, ctx->next_index);
        err = -EINVAL;
        goto drop;
    }
    if (!ctx->started) {
        if ((err = start(ctx, ref))) goto drop;
    } else if (ref->w[0] != ctx->vi.w || ref->h[0] != ctx->vi.h ||
               ref->pix_fmt != ctx->vi.pix_fmt || ref->bpc != ctx->vi.bpc) {
        set_error(ctx, -EINVAL, "frame %u changes the video format", index);
        err = -EINVAL;
        goto drop;
    }
    if ((err = check_device_pictures(ctx, ref, dis))) goto drop;
    /* the context only reads the pictures: results kept with them survive
     * the caller's references (tvmaf_picture_hand_over) */
    tvmaf_picture_hand_over(ref);
    tvmaf_picture_hand_over(dis);
    Job job = { .ref = *ref, .dis = *dis, .index = index };
    if (ctx->want_prev && (err = take_history(ctx, &job, ref))) {
        pthread_mutex_lock(&ctx->lock);
        set_error(ctx, err, "out of memory keeping the reference of frame %u for the next "
                  "frames", index);
        pthread_mutex_unlock(&ctx->lock);
        for (int k = 0; k < TVMAF_PREV_REFS; k++) tvmaf_picture_unref(&job.prev[k]);
        goto drop;
    }
    if (tvmaf_picture_device(&job.ref)) {
        /* the frame's upload waits for the caller's writes, not this thread */
        char msg[512] = "";
        if ((err = ctx->gpu_ops->pictures_written(ctx->gpu, &job.fence, msg, sizeof(msg)))) {
            pthread_mutex_lock(&ctx->lock);
            set_error(ctx, err, "backend %s: %s", ctx->gpu_ops->name, msg);
            pthread_mutex_unlock(&ctx->lock);
            for (int k = 0; k < TVMAF_PREV_REFS; k++) tvmaf_picture_unref(&job.prev[k]);
            goto drop;
        }
    }
    ctx->next_index++;
    if (ctx->next_index > ctx->range_first) {
        const unsigned n = ctx->next_index - ctx->range_first;
        ctx->pic_cnt = n < ctx->range_count ? n : ctx->range_count;
    }
    if (ctx->device_frames) ctx->gpu_ops->frame_submitted(ctx->gpu, index);
    memset(ref, 0, sizeof(*ref));
    memset(dis, 0, sizeof(*dis));
    if (!ctx->n_workers) {
        run_frame(ctx, 0, &job);
        return ctx->err;
    }
    pthread_mutex_lock(&ctx->lock);
    while (ctx->q_len == ctx->q_cap)
        pthread_cond_wait(&ctx->cond_space, &ctx->lock);
    ctx->queue[(ctx->q_head + ctx->q_len) % ctx->q_cap] = job;
    ctx->q_len++;
    pthread_cond_signal(&ctx->cond_job);
    err = ctx->err;
    pthread_mutex_unlock(&ctx->lock);
    return err;

drop:
    tvmaf_picture_unref(ref);
    tvmaf_picture_unref(dis);
    return err;
}

static void wait_idle(TvmafContext *ctx)
{
    if (!ctx->n_workers || !ctx->started) return;
    pthread_mutex_lock(&ctx->lock);
    while (ctx->q_len || ctx->busy)
        pthread_cond_wait(&ctx->cond_idle, &ctx->lock);
    pthread_mutex_unlock(&ctx->lock);
}

void tvmaf_context_wait_idle(TvmafContext *ctx)
{
    wait_idle(ctx);
}

TvmafOrder tvmaf_context_caller_order(TvmafContext *ctx)
{
    const uint32_t seq = ctx->caller_seq++;
    if (ctx->flushed || ctx->appended) return (TvmafOrder){ UINT32_MAX, TVMAF_ORDER_CALLER, seq };
    /* the next frame's phase, before its first extractor (1): the key comes
     * after what the frames so far added and before what the next one adds */
    return (TvmafOrder){ ctx->pic_cnt, 0, seq };
}

int tvmaf_import_score(TvmafContext *ctx, const char *key, double value, unsigned index)
{
    if (!ctx || !key || !*key) return -EINVAL;
    int err = tvmaf_collector_append(ctx->collector, key, index, value,
                                     tvmaf_context_caller_order(ctx));
    if (err == -EEXIST) {
        snprintf(ctx->msg, sizeof(ctx->msg), "\"%s\" has a value at frame %u already", key,
                 index);
        return -EINVAL;
    }
    return err;
}

int tvmaf_flush(TvmafContext *ctx)
{
    if (!ctx) return -EINVAL;
    if (ctx->flushed) return ctx->err;
    wait_idle(ctx);
    ctx->flushed = true;
    drop_history(ctx);
    if (ctx->err) return ctx->err;
    if (!ctx->started) {
        set_error(ctx, -EINVAL, "no frames were scored");
        return ctx->err;
    }
    if (ctx->gpu_ops) ctx->gpu_ops->stats(ctx->gpu, ctx->pic_cnt);
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        Slot *s = &ctx->slots[i];
        int err = 0;
        if (s->ex->gather)
            for (unsigned k = 1; k < s->n_inst && !err; k++)
                err = s->ex->gather(s->inst[0], s->inst[k]);
        if (s->ex->merge)
            for (unsigned k = 1; k < s->n_inst && !err; k++)
                err = s->ex->merge(s->inst[0], s->inst[k]);
        if (!err && s->ex->flush) {
            TvmafSink sink = { ctx->collector, { UINT32_MAX, i + 1, 0 }, ctx->range_first,
                               ctx->range_count };
            err = s->ex->flush(s->inst[0], &sink);
        }
        if (err) {
            set_error(ctx, err, "feature \"%s\" failed at the end of the stream (%s)",
                      s->name, strerror(-err));
            return err;
        }
    }
    return 0;
}

unsigned tvmaf_warmup_frames_needed(const TvmafContext *ctx)
{
    unsigned w = 0;
    for (unsigned i = 0; ctx && i < ctx->n_slots; i++) {
        const TvmafExtractor *ex = ctx->slots[i].ex;
        if (!(ex->flags & (TVMAF_FEX_TEMPORAL | TVMAF_FEX_PREV_REF))) continue;
        if (!ex->warmup_frames) return UINT_MAX;
        if (ex->warmup_frames > w) w = ex->warmup_frames;
    }
    return w;
}

int tvmaf_append_scores(TvmafContext *dst, TvmafContext *src)
{
    if (!dst || !src || dst == src) return -EINVAL;
    wait_idle(dst);
    if (dst->err) return dst->err;
    if (dst->flushed || !src->flushed || src->err) {
        snprintf(dst->msg, sizeof(dst->msg), "tvmaf_append_scores: %s", dst->flushed
                 ? "the context appended to is already flushed"
                 : "the appended context is not flushed or failed");
        return -EINVAL;
    }
    if (!dst->started || !src->started || dst->n_slots != src->n_slots ||
        tvmaf_context_subsample(dst) != tvmaf_context_subsample(src)) {
        snprintf(dst->msg, sizeof(dst->msg), "tvmaf_append_scores: the contexts score "
                 "different features");
        return -EINVAL;
    }
    for (unsigned i = 0; i < dst->n_slots; i++) {
        const Slot *a = &dst->slots[i], *b = &src->slots[i];
        if (a->ex != b->ex || strcmp(a->name, b->name) ||
            strcmp(a->opt_spec ? a->opt_spec : "", b->opt_spec ? b->opt_spec : "")) {
            snprintf(dst->msg, sizeof(dst->msg), "tvmaf_append_scores: the contexts score "
                     "different features (\"%s\" and \"%s\")", a->name, b->name);
            return -EINVAL;
        }
        /* a temporal extractor's totals would count its warm-up frames */
        if ((a->ex->flags & (TVMAF_FEX_TEMPORAL | TVMAF_FEX_PREV_REF)) && a->ex->merge) {
            snprintf(dst->msg, sizeof(dst->msg), "feature \"%s\" keeps stream totals over "
                     "frames in order: its frames cannot be scored in ranges", a->name);
            return -ENOTSUP;
        }
    }
    const unsigned sub = tvmaf_context_subsample(dst);
    if (sub > 1 && dst->pic_cnt % sub) {
        snprintf(dst->msg, sizeof(dst->msg), "tvmaf_append_scores: the first context's %u "
                 "frames are not a multiple of the subsample interval %u", dst->pic_cnt, sub);
        return -EINVAL;
    }
    int err = tvmaf_collector_absorb(dst->collector, src->collector, dst->pic_cnt);
    /* the stream totals (src's flush merged its instances into its first) */
    for (unsigned i = 0; !err && i < dst->n_slots; i++) {
        const Slot *a = &dst->slots[i], *b = &src->slots[i];
        if (a->ex->merge && a->n_inst && b->n_inst) err = a->ex->merge(a->inst[0], b->inst[0]);
    }
    if (err) {
        set_error(dst, err, "tvmaf_append_scores: %s", strerror(-err));
        return err;
    }
    dst->pic_cnt += src->pic_cnt;
    dst->appended = true;
    return 0;
}

void tvmaf_close(TvmafContext *ctx)
{
    if (!ctx) return;
    if (ctx->started && ctx->n_workers) {
        pthread_mutex_lock(&ctx->lock);
        ctx->stop = true;
        pthread_cond_broadcast(&ctx->cond_job);
        pthread_mutex_unlock(&ctx->lock);
        for (unsigned i = 0; i < ctx->n_workers; i++) pthread_join(ctx->workers[i], NULL);
    }
    for (unsigned q = 0; q < ctx->q_len; q++) {
        release_job(&ctx->queue[(ctx->q_head + q) % ctx->q_cap]);
    }
    drop_history(ctx);
    for (unsigned i = 0; i < ctx->n_slots; i++) {
        Slot *s = &ctx->slots[i];
        for (unsigned k = 0; k < s->n_inst; k++) {
            if (s->inst[k] && k < s->n_ready && s->ex->twin) tvd_twin_close(s->ex, s->inst[k]);
            else if (s->inst[k] && k < s->n_ready && s->ex->close) s->ex->close(s->inst[k]);
            free(s->inst[k]);
        }
        free(s->inst);
        free(s->name);
        free(s->opt_spec);
    }
    /* the device goes after every twin instance has let go of it */
    if (ctx->gpu_ops) ctx->gpu_ops->close(ctx->gpu);
    free(ctx->slots);
    free(ctx->independent);
    free(ctx->queue);
    free(ctx->workers);
    free(ctx->worker_args);
    tvmaf_collector_destroy(ctx->collector);
    free(ctx->defaults);
    pthread_mutex_destroy(&ctx->lock);
    pthread_cond_destroy(&ctx->cond_job);
    pthread_cond_destroy(&ctx->cond_space);
    pthread_cond_destroy(&ctx->cond_turn);
    pthread_cond_destroy(&ctx->cond_idle);
    pthread_cond_destroy(&ctx->cond_team);
    free(ctx);
}

/* Scores ----------------------------------------------------------------- */

int tvmaf_feature_score_at_index(TvmafContext *ctx, const char *key, double *score,
                                 unsigned index)
{
    if (!ctx || !key || !score) return -EINVAL;
    wait_idle(ctx); /* no worker appends while the collector is read */
    int k = tvmaf_collector_find(ctx->collector, key);
    if (k < 0 || !tvmaf_collector_get(ctx->collector, (unsigned)k, index, score))
        return -EINVAL;
    return 0;
}

/* libvmaf's pooling: every frame of [low, high] on the subsample grid must have
 * a value; the harmonic mean is n / sum(1 / (s + 1)) - 1. */
int tvmaf_feature_score_pooled(TvmafContext *ctx, const char *key,
                               enum TvmafPoolMethod method, double *score,
                               unsigned index_low, unsigned index_high)
{
    if (!ctx || !key || !score || index_low > index_high) return -EINVAL;
    wait_idle(ctx); /* no worker appends while the collector is read */
    int k = tvmaf_collector_find(ctx->collector, key);
    if (k < 0) return -EINVAL;
    const unsigned sub = tvmaf_context_subsample(ctx);
    unsigned n = 0;
    double min = 0., max = 0., sum = 0., i_sum = 0.;
    for (unsigned i = index_low; i <= index_high; i++) {
        if (sub > 1 && i % sub) continue;
        double s;
        if (!tvmaf_collector_get(ctx->collector, (unsigned)k, i, &s)) return -EINVAL;
        n++;
        sum += s;
        i_sum += 1. / (s + 1.);
        if (i == index_low || s < min) min = s;
        if (i == index_low || s > max) max = s;
    }
    switch (method) {
    case TVMAF_POOL_MIN: *score = min; break;
    case TVMAF_POOL_MAX: *score = max; break;
    case TVMAF_POOL_MEAN: *score = sum / n; break;
    case TVMAF_POOL_HARMONIC_MEAN: *score = n / i_sum - 1.0; break;
    default: return -EINVAL;
    }
    return 0;
}

int tvmaf_aggregate_score(TvmafContext *ctx, const char *key, double *score)
{
    if (!ctx || !key || !score) return -EINVAL;
    wait_idle(ctx); /* no worker appends while the collector is read */
    for (unsigned i = 0; i < tvmaf_collector_aggregate_count(ctx->collector); i++) {
        if (!strcmp(tvmaf_collector_aggregate_key(ctx->collector, i), key)) {
            *score = tvmaf_collector_aggregate_value(ctx->collector, i);
            return 0;
        }
    }
    return -EINVAL;
}

enum TvmafBackend tvmaf_context_backend(const TvmafContext *ctx)
{
    return ctx ? ctx->backend : TVMAF_BACKEND_CPU;
}
