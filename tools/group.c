/*
 * A group of pairs sharing one reference (run_group): the inputs opened and
 * checked, read ahead on threads of their own, every frame handed to every
 * pair's context, then flushed and finished.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

/* Each input is read ahead of scoring by up to READ_AHEAD_BYTES of
 * pictures (at least 4, at most 64 frames): enough to keep reading while
 * the first frame waits for the device to start up. */
#define READ_AHEAD_BYTES ((size_t)96 << 20)

/* One group's state between its steps. */
typedef struct Group {
    const Settings *s;
    const char *label, *path_ref;
    Pair *pairs;
    unsigned np;
    TvmafReader *rd_ref;
    TvmafPrefetch *pf_ref;
    int show_progress;
    char msg[1024];
} Group;

static unsigned count_live(const Group *g)
{
    unsigned k = 0;
    for (unsigned i = 0; i < g->np; i++) k += g->pairs[i].live;
    return k;
}

/* "-w 1920, -p 422": the given raw-layout values a Y4M header contradicts. */
static size_t y4m_conflicts(char *bad, size_t len, const TvmafVideoFormat *given,
                            const TvmafVideoFormat *f)
{
    size_t n = 0;
    if (given->w && given->w != f->w)
        n += snprintf(bad + n, len - n, "%s-w %u", n ? ", " : "", given->w);
    if (given->h && given->h != f->h)
        n += snprintf(bad + n, len - n, "%s-h %u", n ? ", " : "", given->h);
    if (given->pix_fmt && given->pix_fmt != f->pix_fmt)
        n += snprintf(bad + n, len - n, "%s-p %s", n ? ", " : "",
                      given->pix_fmt == TVMAF_PIX_FMT_YUV420P ? "420" :
                      given->pix_fmt == TVMAF_PIX_FMT_YUV422P ? "422" :
                      given->pix_fmt == TVMAF_PIX_FMT_YUV444P ? "444" : "400");
    if (given->bpc && given->bpc != f->bpc)
        n += snprintf(bad + n, len - n, "%s-b %u", n ? ", " : "", given->bpc);
    return n;
}

/* Opens input `path` (dis: a distorted one). A raw layout given for a file
 * that is encoded is refused with the flags to drop; a Y4M header that
 * contradicts a given value is refused (libvmaf would read the file as raw
 * YUV with them). Prints why and returns -1 on failure. */
static int open_input(const Settings *s, const char *label, const char *path, int dis,
                      uint64_t max_frame_bytes, TvmafReader **rd)
{
    const TvmafVideoFormat *raw = settings_raw(s, dis);
    const TvmafVideoFormat *own = dis ? &s->raw_dis : &s->raw_ref;
    const char *kind = raw ? tvmaf_reader_sniff_encoded(path) : NULL;
    if (kind) {
        fprintf(stderr, "%s: \"%s\" is an encoded video (%s), decoded with its own size and "
                "format: %s\n", label, path, kind, own->w ? (dis ? "drop --dis-format"
                                                                 : "drop --ref-format")
                : "drop -w/-h/-p/-b, which describe raw YUV (a raw input beside it takes its "
                  "layout alone: --ref-format or --dis-format WxH:PIX:BITS)");
        return -1;
    }
    char msg[1024] = "";
    TvmafReaderConfig cfg = { .max_frame_bytes = max_frame_bytes };
    if (raw) cfg.raw = *raw;
    if (tvmaf_reader_open(rd, path, &cfg, msg, sizeof(msg))) {
        fprintf(stderr, "%s: %s\n", label, msg);
        return -1;
    }
    if (!reader_is(*rd, "y4m")) return 0;
    const TvmafVideoFormat *f = tvmaf_reader_format(*rd);
    char bad[160] = "";
    if (!y4m_conflicts(bad, sizeof(bad), own->w ? own : &s->raw, f)) return 0;
    const int is_stdin = !strcmp(path, "-");
    fprintf(stderr, "%s: %s%s%s is Y4M and its header says %ux%u %s %u-bit, not %s "
            "(-w/-h/-p/-b describe raw YUV: leave them out for Y4M input)\n", label,
            is_stdin ? "" : "\"", is_stdin ? "standard input" : path, is_stdin ? "" : "\"",
            f->w, f->h, tvmaf_pix_fmt_name(f->pix_fmt), f->bpc, bad);
    return -1;
}

/* The inputs opened and checked, every pair set up, the first frames
 * skipped. Returns -1 when the reference cannot be read. */
static int group_open(Group *g)
{
    const Settings *s = g->s;
    /* the largest frame read_ahead_frames accepts with every pair live: a
     * reader refuses a larger one before allocating it (an encoded file's
     * header can claim any size) */
    const uint64_t max_frame_bytes =
        s->max_memory / (g->np + 1) / ((uint64_t)(s->threads ? s->threads : 1) + 2);
    if (open_input(s, g->label, g->path_ref, 0, max_frame_bytes, &g->rd_ref)) return -1;
    for (unsigned i = 0; i < g->np; i++) {
        Pair *p = &g->pairs[i];
        if (open_input(s, p->label, p->path_dis, 1, max_frame_bytes, &p->rd_dis) ||
            pair_setup(s, p, g->rd_ref))
            pair_fail(p);
    }
    if (s->gate && s->segment == 1) split_gate_signal(s->gate, count_live(g) > 0);
    if (!count_live(g)) return 0;
    int err;
    if (s->skip_ref &&
        (err = tvmaf_reader_skip(g->rd_ref, s->skip_ref, g->msg, sizeof(g->msg))) != 1) {
        if (!err) snprintf(g->msg, sizeof(g->msg), "an input has fewer frames than it is asked to skip");
        fprintf(stderr, "%s: %s\n", g->label, g->msg);
        return -1;
    }
    for (unsigned i = 0; i < g->np && s->skip_dis; i++) {
        Pair *p = &g->pairs[i];
        if (p->live &&
            (err = tvmaf_reader_skip(p->rd_dis, s->skip_dis, g->msg, sizeof(g->msg))) != 1) {
            if (!err) snprintf(g->msg, sizeof(g->msg), "an input has fewer frames than it is asked to skip");
            fprintf(stderr, "%s: %s\n", p->label, g->msg);
            pair_fail(p);
        }
    }
    return 0;
}

/* The bytes of one picture of a format. */
static size_t frame_bytes(const TvmafVideoFormat *f)
{
    return (size_t)((double)f->w * f->h * (f->bpc > 8 ? 2 : 1) *
                    (f->pix_fmt == TVMAF_PIX_FMT_YUV444P ? 3 :
                     f->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 2 :
                     f->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 1.5 : 1));
}

/* How many pictures each input is read ahead; 0 (after saying why) when the
 * frames cannot fit in --max-memory. */
static unsigned read_ahead_frames(const Group *g, unsigned n_live, enum TvmafBackend backend)
{
    const Settings *s = g->s;
    const TvmafVideoFormat *fr = tvmaf_reader_format(g->rd_ref);
    const size_t fbytes = frame_bytes(fr) ? frame_bytes(fr) : 1;
    /* Pictures of one input in flight: the read-ahead queue, the one being
     * read, and those being scored (one per worker). An input whose frames
     * cannot fit even with one frame read ahead is refused now, before a
     * picture is allocated: a header can claim a size its data never fills.
     * The memory is shared by the inputs: the reference and each distorted. */
    const unsigned n_inputs = n_live + 1;
    const uint64_t in_use = (s->threads ? s->threads : 1) + 1;
    const uint64_t per_input = s->max_memory / n_inputs / fbytes;
    if (per_input < in_use + 1) {
        fprintf(stderr, "%s: %ux%u %s %u-bit frames (%.1f MiB each) need about %.0f MiB of "
                "memory with --threads %u%s, above the --max-memory limit of %.0f MiB\n",
                g->label, fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc,
                fbytes / 1048576.0, (double)n_inputs * (in_use + 1) * fbytes / 1048576.0,
                s->threads ? s->threads : 1, n_live > 1 ? " and this many distorted inputs" : "",
                s->max_memory / 1048576.0);
        return 0;
    }
    unsigned ahead = (unsigned)(READ_AHEAD_BYTES / fbytes);
    ahead = ahead < 4 ? 4 : ahead > 64 ? 64 : ahead;
    if (ahead > per_input - in_use) ahead = (unsigned)(per_input - in_use);
    /* On the CPU no device start-up is to be bridged: a frame is read in far
     * less time than it is scored, so a few frames per worker keep the pool
     * fed, and every frame read further ahead is a fresh picture buffer whose
     * pages the kernel must fault in and clear (a fifth of a 10-frame 1080p
     * run at one thread). */
    const unsigned cpu_ahead = (s->threads > 1 ? s->threads : 1) + 1;
    if (backend == TVMAF_BACKEND_CPU && ahead > cpu_ahead) ahead = cpu_ahead;
    return ahead;
}

static int start_prefetch(const char *label, TvmafPrefetch **pf, TvmafReader *rd,
                          unsigned ahead, unsigned frame_cnt)
{
    const int err = tvmaf_prefetch_start(pf, rd, ahead, frame_cnt);
    if (err == -ENOMEM)
        fprintf(stderr, "%s: out of memory allocating the read-ahead queues (%u frames)\n",
                label, ahead);
    else if (err)
        fprintf(stderr, "%s: cannot start reading: %s\n", label, strerror(-err));
    return err;
}

/* Every input read ahead on a thread of its own, all at the same time; when
 * every feature reads luma only, chroma is passed over unread (the pairs of
 * a group register the same features). Returns -1 on failure. */
static int group_start_reading(Group *g)
{
    const Settings *s = g->s;
    int luma_only = !s->scoring;
    enum TvmafBackend backend = TVMAF_BACKEND_CPU;
    for (unsigned i = 0; i < g->np; i++) {
        if (!g->pairs[i].live) continue;
        if (s->scoring) luma_only = tvmaf_luma_only(g->pairs[i].ctx);
        backend = tvmaf_context_backend(g->pairs[i].ctx);
        break;
    }
    const unsigned n_live = count_live(g);
    if (luma_only) {
        tvmaf_reader_set_luma_only(g->rd_ref, 1);
        for (unsigned i = 0; i < g->np; i++)
            if (g->pairs[i].live) tvmaf_reader_set_luma_only(g->pairs[i].rd_dis, 1);
    }
    /* raw frames scored where they lie in the file (tvmaf.c handles the
     * SIGBUS of a file truncated meanwhile) */
    tvmaf_reader_set_mapping(g->rd_ref, 1);
    for (unsigned i = 0; i < g->np; i++)
        if (g->pairs[i].live) tvmaf_reader_set_mapping(g->pairs[i].rd_dis, 1);
    const unsigned ahead = read_ahead_frames(g, n_live, backend);
    if (!ahead || start_prefetch(g->label, &g->pf_ref, g->rd_ref, ahead, s->frame_cnt)) return -1;
    for (unsigned i = 0; i < g->np; i++) {
        Pair *p = &g->pairs[i];
        if (p->live && start_prefetch(p->label, &p->pf_dis, p->rd_dis, ahead, s->frame_cnt))
            pair_fail(p);
    }
    return 0;
}

/* A pair whose distorted input (r2) or the reference (r1) ended at frame n. */
static void pair_ended(const Group *g, Pair *p, int r1, int r2, unsigned n)
{
    p->live = 0;
    if (r1 == r2) return;
    const char *shorter = r1 ? p->path_dis : g->path_ref, *longer = r1 ? g->path_ref : p->path_dis;
    if (n == 0) {
        fprintf(stderr, "%s: \"%s\" holds no frame\n", p->label, shorter);
        pair_fail(p);
    } else if (g->s->strict_frames) {
        fprintf(stderr, "%s%s: \"%s\" ended after %u frame%s, before \"%s\"; use --frame_cnt %u "
                "to score the common frames\n", g->show_progress ? "\n" : "", p->label, shorter,
                n, n == 1 ? "" : "s", longer, n);
        pair_fail(p);
    } else {
        /* libvmaf scores the common frames and says which input ended */
        p->ended = shorter;
        p->longer = longer;
    }
}

/* Frame n of the reference (r1 > 0: pr) to one pair. */
static void pair_frame(Group *g, Pair *p, TvmafPicture *pr, int r1, unsigned n)
{
    TvmafPicture pd;
    const int r2 = tvmaf_prefetch_next(p->pf_dis, &pd, g->msg, sizeof(g->msg));
    if (r2 < 0) {
        fprintf(stderr, "%s%s: %s\n", g->show_progress ? "\n" : "", p->label, g->msg);
        pair_fail(p);
        return;
    }
    if (!r1 || !r2) {
        if (r2) tvmaf_picture_unref(&pd);
        pair_ended(g, p, r1, r2, n);
        return;
    }
    if (!g->s->scoring) {
        tvmaf_picture_unref(&pd);
    } else {
        /* each context holds its own reference to the shared picture */
        TvmafPicture ref_pic;
        tvmaf_picture_ref(&ref_pic, pr);
        if (tvmaf_read_pictures(p->ctx, &ref_pic, &pd, n)) {
            fprintf(stderr, "%s%s: %s\n", g->show_progress ? "\n" : "", p->label,
                    tvmaf_last_error(p->ctx));
            pair_fail(p);
            return;
        }
    }
    p->n = n + 1;
    if (!p->depth_warned && g->s->segment <= 1)
        warn_depth(p, g->path_ref, g->rd_ref, tvmaf_reader_format(g->rd_ref),
                   g->show_progress && n);
}

/* Every frame to every live pair. Returns -1 when the reference fails. */
static int group_score(Group *g, const struct timespec *t0)
{
    const Settings *s = g->s;
    for (unsigned n = 0; count_live(g); n++) {
        if (s->frame_cnt && n >= s->frame_cnt) break;
        TvmafPicture pr;
        const int r1 = tvmaf_prefetch_next(g->pf_ref, &pr, g->msg, sizeof(g->msg));
        if (r1 < 0) {
            fprintf(stderr, "%s%s: %s\n", g->show_progress ? "\n" : "", g->label, g->msg);
            return -1;
        }
        for (unsigned i = 0; i < g->np; i++)
            if (g->pairs[i].live) pair_frame(g, &g->pairs[i], &pr, r1, n);
        if (!r1) break;
        tvmaf_picture_unref(&pr);
        if (g->show_progress && (n % 8 == 0)) {
            const double sec = seconds_since(t0);
            fprintf(stderr, "\r%u frame%s %.2f FPS\033[K", n + 1, n ? "s" : " ",
                    sec > 0 ? (n + 1) / sec : 0.0);
        }
    }
    return 0;
}

/* Every pair flushed and finished (a split range's pair is left to run_split). */
static void group_finish(Group *g, const struct timespec *t0)
{
    const Settings *s = g->s;
    unsigned n_max = 0;
    for (unsigned i = 0; i < g->np; i++) {
        Pair *p = &g->pairs[i];
        if (p->failed) continue;
        if (!p->n) {
            fprintf(stderr, "%s: the inputs hold no frame to score\n", p->label);
            pair_fail(p);
        } else if (s->segment) {
            /* run_split joins the ranges, then flushes */
        } else if (s->scoring && tvmaf_flush(p->ctx)) {
            fprintf(stderr, "%s%s: %s\n", g->show_progress ? "\n" : "", p->label,
                    tvmaf_last_error(p->ctx));
            pair_fail(p);
        } else if (p->n > n_max) {
            n_max = p->n;
        }
    }
    if (g->show_progress && n_max) {
        /* the last line gives the number of frames scored */
        const double sec = seconds_since(t0);
        fprintf(stderr, "\r%u frame%s %.2f FPS\033[K\n", n_max, n_max > 1 ? "s" : " ",
                sec > 0 ? n_max / sec : 0.0);
    }
    const TvmafVideoFormat *fr = tvmaf_reader_format(g->rd_ref);
    for (unsigned i = 0; i < g->np && !s->segment; i++) {
        Pair *p = &g->pairs[i];
        if (!p->failed && pair_finish(s, p, g->path_ref, fr, t0, g->np > 1 ? p->path_dis : NULL))
            pair_fail(p);
    }
}

/* Readers, prefetchers and (but for a split range) contexts and models
 * released; returns the number of pairs that failed. */
static unsigned group_close(Group *g)
{
    const Settings *s = g->s;
    if (s->gate && s->segment == 1) split_gate_signal(s->gate, 0); /* no-op once set up */
    tvmaf_prefetch_stop(g->pf_ref);
    unsigned failed = 0;
    for (unsigned i = 0; i < g->np; i++) {
        Pair *p = &g->pairs[i];
        tvmaf_prefetch_stop(p->pf_dis);
        if (!s->segment) {
            tvmaf_close(p->ctx);
            p->ctx = NULL;
            for (unsigned k = 0; k < s->n_models; k++) tvmaf_model_destroy(p->model[k]);
        }
        tvmaf_reader_close(p->rd_dis);
        p->rd_dis = NULL;
        failed += p->failed;
    }
    tvmaf_reader_close(g->rd_ref);
    return failed;
}

unsigned run_group(const Settings *s, const char *label, const char *path_ref, Pair *pairs,
                   unsigned np)
{
    Group g = { .s = s, .label = label, .path_ref = path_ref, .pairs = pairs, .np = np };
    /* a ladder's reference pictures go to the device once for all pairs, and
     * work on the reference alone is done once (--no-reference-sharing: once
     * per pair, to measure the gain) */
    for (unsigned i = 0; i < np; i++) {
        pairs[i].live = 1;
        pairs[i].ladder = np > 1 && !s->no_shared_reference;
    }
    if (s->gate && s->segment > 1 && !split_gate_wait(s->gate)) {
        for (unsigned i = 0; i < np; i++) pair_fail(&pairs[i]); /* the first said why */
        return np;
    }
    int bad = group_open(&g);
    if (!bad && count_live(&g)) {
        g.show_progress = !s->batch && isatty(fileno(stderr)) && !s->quiet;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bad = group_start_reading(&g) || group_score(&g, &t0);
        if (!bad) group_finish(&g, &t0);
    }
    if (bad)
        for (unsigned i = 0; i < np; i++) pair_fail(&pairs[i]);
    return group_close(&g);
}
