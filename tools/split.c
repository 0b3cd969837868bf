/*
 * One pair scored on every device of --gpus (run_split): the common frames
 * [0, N) are cut into one consecutive range per device (on the subsample
 * grid), each scored by a context of its own on its device. A range after
 * the first starts SPLIT_WARMUP frames early and every range but the last
 * reads one frame past its end: those frames only rebuild and finish the
 * temporal extractors' state (motion's blurred planes, its minimum of
 * consecutive scores, the last frame's motion2), their outputs are discarded
 * (TvmafConfiguration's warmup_frames and range_frames). The ranges' scores
 * are then joined in frame order into the first context
 * (tvmaf_append_scores), which computes the models, the pooled values and
 * the aggregates over every frame: the bits of a run on one device. Inputs
 * that cannot be read twice (pipes, stdin) or too few frames for two ranges
 * run on the first device as a plain pair.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run.h"

/* Warm-up frames of every frame range of a split pair after the first: the
 * most any temporal extractor asks for (tvmaf_warmup_frames_needed(); motion's
 * five-frame window needs 4), checked per run. */
#define SPLIT_WARMUP 4u
/* The shortest range a device is given when a pair is split. */
#define SPLIT_MIN_FRAMES 16u

typedef struct SplitGate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state; /* 0 waiting, 1 the first range is set up, -1 it failed */
} SplitGate;

void split_gate_signal(SplitGate *g, int ok)
{
    pthread_mutex_lock(&g->lock);
    if (!g->state) g->state = ok ? 1 : -1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

int split_gate_wait(SplitGate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->state) pthread_cond_wait(&g->cond, &g->lock);
    const int ok = g->state > 0;
    pthread_mutex_unlock(&g->lock);
    return ok;
}

/* The warm-up the ranges get. A build for the tests (TVMAF_TEST_HOOKS, never
 * installed) takes TVMAF_TEST_SPLIT_WARMUP=N for the split test's negative
 * control: too few frames, unchecked, so the joined scores differ. Sets
 * *checked to whether the run checks the features' needs against it. */
static unsigned split_warmup(int *checked)
{
    *checked = 1;
#ifdef TVMAF_TEST_HOOKS
    const char *e = getenv("TVMAF_TEST_SPLIT_WARMUP");
    if (e) {
        *checked = 0;
        return (unsigned)strtoul(e, NULL, 10);
    }
#endif
    return SPLIT_WARMUP;
}

int split_warmup_enough(const Settings *s, const Pair *p)
{
    int checked;
    const unsigned warmup = split_warmup(&checked);
    if (!s->segment || !checked || tvmaf_warmup_frames_needed(p->ctx) <= warmup) return 1;
    fprintf(stderr, "%s: a feature of this run keeps state from frame to frame that cannot be "
            "rebuilt from %u earlier frames, so its frames cannot be split over devices: give "
            "--gpus one device\n", p->label, warmup);
    return 0;
}

/* Frames an input holds after `skip` frames: counted from the file's size for
 * raw YUV, else by reading past them (Y4M headers, encoded input). -1 when it
 * cannot be read (the plain run that follows says why). */
static int64_t count_frames(const char *path, const TvmafVideoFormat *raw, unsigned skip,
                            uint64_t max_frame_bytes, TvmafVideoFormat *fmt)
{
    char msg[1024] = "";
    TvmafReader *r = NULL;
    int64_t n = -1;
    TvmafReaderConfig cfg = { .max_frame_bytes = max_frame_bytes };
    if (raw) cfg.raw = *raw;
    if (tvmaf_reader_open(&r, path, &cfg, msg, sizeof(msg))) goto end;
    *fmt = *tvmaf_reader_format(r);
    tvmaf_reader_set_luma_only(r, 1);
    int rc = tvmaf_reader_skip(r, skip, msg, sizeof(msg));
    if (rc != 1) {
        n = rc == 0 ? 0 : -1;
        goto end;
    }
    if ((n = tvmaf_reader_frames_left(r)) >= 0) goto end;
    n = 0;
    while ((rc = tvmaf_reader_skip(r, 1, msg, sizeof(msg))) == 1) n++;
    if (rc < 0) n = -1;
end:
    tvmaf_reader_close(r);
    return n;
}

/* The common frames of a pair and the ranges they are cut into. */
typedef struct SplitPlan {
    int64_t n_ref, n_dis, n;
    TvmafVideoFormat fr, fd;
    unsigned bounds[MAX_GPUS + 1], n_seg;
    int files;
} SplitPlan;

static void plan_split(const Settings *s, const char *path_ref, const char *path_dis,
                       SplitPlan *pl)
{
    struct stat st;
    pl->files = strcmp(path_ref, "-") && strcmp(path_dis, "-") && !stat(path_ref, &st) &&
                S_ISREG(st.st_mode) && !stat(path_dis, &st) && S_ISREG(st.st_mode);
    /* the frame size the plain run's readers accept (group.c) */
    const uint64_t max_frame = s->max_memory / 2 / ((uint64_t)(s->threads ? s->threads : 1) + 2);
    pl->n_ref = pl->files && s->scoring ? count_frames(path_ref, settings_raw(s, 0), s->skip_ref,
                                                       max_frame, &pl->fr) : -1;
    pl->n_dis = pl->n_ref >= 0 ? count_frames(path_dis, settings_raw(s, 1), s->skip_dis,
                                              max_frame, &pl->fd) : -1;
    int64_t n = pl->n_ref < pl->n_dis ? pl->n_ref : pl->n_dis;
    if (s->frame_cnt && n > s->frame_cnt) n = s->frame_cnt;
    pl->n = n;
    const unsigned sub = s->subsample > 1 ? s->subsample : 1;
    /* K devices, each at least SPLIT_MIN_FRAMES, starts on the subsample grid */
    unsigned k_max = s->n_gpus, k = 0;
    if (n > 0 && (uint64_t)n / SPLIT_MIN_FRAMES < k_max) k_max = (unsigned)(n / SPLIT_MIN_FRAMES);
    pl->bounds[0] = 0;
    for (unsigned i = 1; i < k_max; i++) {
        unsigned a = (unsigned)((uint64_t)n * i / k_max);
        a -= a % sub;
        if (a >= pl->bounds[k] + SPLIT_MIN_FRAMES && a + SPLIT_MIN_FRAMES <= n) pl->bounds[++k] = a;
    }
    const int same_fmt = pl->fr.w == pl->fd.w && pl->fr.h == pl->fd.h &&
                         pl->fr.pix_fmt == pl->fd.pix_fmt && pl->fr.bpc == pl->fd.bpc;
    pl->n_seg = n > 0 && same_fmt ? k + 1 : 0;
    if (pl->n_seg >= 2) pl->bounds[pl->n_seg] = (unsigned)n;
}

typedef struct Segment {
    Settings s;
    const char *path_ref;
    Pair *p;
    unsigned failed;
} Segment;

static void *segment_main(void *arg)
{
    Segment *g = arg;
    g->failed = run_group(&g->s, g->p->label, g->path_ref, g->p, 1);
    return NULL;
}

/* Scores every range on its device, a thread each; returns the ranges (or
 * threads) that failed. */
static unsigned score_ranges(const Settings *s, const char *app, const char *path_ref,
                             const char *path_dis, const char *out_path, const SplitPlan *pl,
                             Pair *pairs, SplitGate *gate)
{
    Segment g[MAX_GPUS];
    pthread_t th[MAX_GPUS];
    for (unsigned i = 0; i < pl->n_seg; i++) {
        const unsigned a = pl->bounds[i], b = pl->bounds[i + 1];
        int checked;
        const unsigned warm = i ? split_warmup(&checked) : 0, ahead = i + 1 < pl->n_seg ? 1 : 0;
        Settings *seg = &g[i].s;
        *seg = *s;
        seg->segment = i + 1;
        seg->warmup = warm;
        seg->range = b - a;
        seg->skip_ref = s->skip_ref + a - warm;
        seg->skip_dis = s->skip_dis + a - warm;
        seg->frame_cnt = warm + (b - a) + ahead;
        seg->max_memory = s->max_memory / pl->n_seg;
        seg->batch = 1; /* no progress line */
        seg->gate = gate;
        Pair *p = &pairs[i];
        snprintf(p->label, sizeof(p->label), "%s", app);
        p->path_dis = path_dis;
        p->out_path = i ? NULL : out_path;
        p->gpu = s->gpus[i];
        g[i].path_ref = path_ref;
        g[i].p = p;
        g[i].failed = 0;
    }
    unsigned started = 0;
    for (; started < pl->n_seg; started++)
        if (pthread_create(&th[started], NULL, segment_main, &g[started])) break;
    if (started < pl->n_seg) fprintf(stderr, "%s: cannot start a thread per device\n", app);
    unsigned failed = started < pl->n_seg;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        failed += g[i].failed;
    }
    return failed;
}

/* The ranges joined in frame order into the first range's context, flushed. */
static int join_ranges(const char *app, Pair *pairs, unsigned n_seg)
{
    Pair *p0 = &pairs[0];
    for (unsigned i = 1; i < n_seg; i++) {
        Pair *p = &pairs[i];
        if (tvmaf_flush(p->ctx)) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p->ctx));
            return -1;
        }
        if (tvmaf_append_scores(p0->ctx, p->ctx)) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p0->ctx));
            return -1;
        }
    }
    if (tvmaf_flush(p0->ctx)) {
        fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p0->ctx));
        return -1;
    }
    return 0;
}

int run_split(const Settings *s, const char *app, const char *path_ref, const char *path_dis,
              const char *out_path)
{
    SplitPlan pl = { 0 };
    plan_split(s, path_ref, path_dis, &pl);
    if (pl.n_seg < 2) {
        Pair plain = { .path_dis = path_dis, .out_path = out_path, .gpu = s->gpus[0] };
        snprintf(plain.label, sizeof(plain.label), "%s", app);
        if (!pl.files && s->scoring)
            fprintf(stderr, "%s: note: --gpus scores one pair on %u devices by reading its "
                    "frames in ranges, which a pipe does not allow: scoring it on device %u\n",
                    app, s->n_gpus, s->gpus[0]);
        return run_group(s, app, path_ref, &plain, 1) ? 1 : 0;
    }
    const int lengths_differ = pl.n_ref != pl.n_dis && (!s->frame_cnt || s->frame_cnt > pl.n);
    const char *shorter = pl.n_ref < pl.n_dis ? path_ref : path_dis;
    const char *longer = pl.n_ref < pl.n_dis ? path_dis : path_ref;
    if (lengths_differ && s->strict_frames) {
        fprintf(stderr, "%s: \"%s\" ended after %u frame%s, before \"%s\"; use --frame_cnt %u "
                "to score the common frames\n", app, shorter, (unsigned)pl.n,
                pl.n == 1 ? "" : "s", longer, (unsigned)pl.n);
        return 1;
    }
    SplitGate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    Pair *pairs = calloc(pl.n_seg, sizeof(*pairs));
    if (!pairs) {
        fprintf(stderr, "%s: out of memory\n", app);
        return 1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int failed = score_ranges(s, app, path_ref, path_dis, out_path, &pl, pairs, &gate) != 0;
    if (!failed) failed = join_ranges(app, pairs, pl.n_seg) != 0;
    if (!failed) {
        pairs[0].n = (unsigned)pl.n;
        if (lengths_differ) { /* libvmaf's words, as a plain run says them */
            pairs[0].ended = shorter;
            pairs[0].longer = longer;
        }
        failed = pair_finish(s, &pairs[0], path_ref, &pl.fr, &t0, NULL) != 0;
    }
    for (unsigned i = 0; i < pl.n_seg; i++) {
        tvmaf_close(pairs[i].ctx);
        for (unsigned m = 0; m < s->n_models; m++) tvmaf_model_destroy(pairs[i].model[m]);
    }
    free(pairs);
    return failed ? 1 : 0;
}
