/* One pair: its checks and context before the first frame, its scores, outputs and reports after the last. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outputs.h"
#include "report_cli.h"
#include "run.h"

const TvmafVideoFormat *settings_raw(const Settings *s, int dis)
{
    const TvmafVideoFormat *own = dis ? &s->raw_dis : &s->raw_ref;
    if (own->w) return own;
    return s->raw.w && s->raw.h && s->raw.bpc && s->raw.pix_fmt ? &s->raw : NULL;
}

int reader_is(const TvmafReader *r, const char *kind)
{
    return !strcmp(tvmaf_reader_kind(r), kind);
}

const char *model_label(const ModelArg *m)
{
    return m->version ? m->version : m->path;
}

double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) + 1e-9 * (t1.tv_nsec - t0->tv_nsec);
}

void pair_fail(Pair *p)
{
    p->failed = 1;
    p->live = 0;
}

/* FFmpeg's name of a planar layout (for the conversion hint). */
static void ffmpeg_pix_fmt(char *out, size_t len, const TvmafVideoFormat *f)
{
    const char *base = f->pix_fmt == TVMAF_PIX_FMT_YUV422P ? "yuv422p" :
                       f->pix_fmt == TVMAF_PIX_FMT_YUV444P ? "yuv444p" :
                       f->pix_fmt == TVMAF_PIX_FMT_YUV400P ? "gray" : "yuv420p";
    if (f->bpc == 8) snprintf(out, len, "%s", base);
    else snprintf(out, len, "%s%ule", base, f->bpc);
}

/* The distorted input's size, frame rate and format against the reference's
 * (scaling it where --scale says so). Prints why and returns -1 on failure. */
static int pair_check_formats(const Settings *s, Pair *p, TvmafReader *rd_ref)
{
    const char *app = p->label;
    char msg[1024] = "";
    const TvmafVideoFormat *fr = tvmaf_reader_format(rd_ref), *fd = tvmaf_reader_format(p->rd_dis);
    /* encoded streams' rates only: libvmaf scores Y4M pairs whatever their
     * headers' F, and so does tvmaf */
    int nr = 0, dr = 0, nd = 0, dd = 0;
    if (reader_is(rd_ref, "ffmpeg")) tvmaf_reader_frame_rate(rd_ref, &nr, &dr);
    if (reader_is(p->rd_dis, "ffmpeg")) tvmaf_reader_frame_rate(p->rd_dis, &nd, &dd);
    if (!s->ignore_fps && dr && dd && (int64_t)nr * dd != (int64_t)nd * dr) {
        fprintf(stderr, "%s: the reference (%d/%d fps) and the distorted (%d/%d fps) differ in "
                "frame rate, so their frames do not line up; --ignore_frame_rate scores them "
                "frame by frame anyway\n", app, nr, dr, nd, dd);
        return -1;
    }
    if ((fr->w != fd->w || fr->h != fd->h) && s->scale_filter) {
        if (tvmaf_reader_set_scale(p->rd_dis, fr->w, fr->h, s->scale_filter, msg, sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", app, msg);
            return -1;
        }
        fd = tvmaf_reader_format(p->rd_dis);
    } else if ((fr->w != fd->w || fr->h != fd->h) && reader_is(p->rd_dis, "ffmpeg") &&
               fr->pix_fmt == fd->pix_fmt && fr->bpc == fd->bpc) {
        fprintf(stderr, "%s: the distorted video is %ux%u, the reference %ux%u: give --scale FILTER "
                "(e.g. --scale bicubic, ffmpeg's default) to scale it to the reference's size\n",
                app, fd->w, fd->h, fr->w, fr->h);
        return -1;
    }
    if (s->common_bitdepth && fr->bpc != fd->bpc) {
        fprintf(stderr, "%s: the reference is %u-bit, the distorted %u-bit: libvmaf's --aom_ctc "
                "v6.0 and later score such a pair at the larger depth, which tvmaf does not "
                "do yet\n", app, fr->bpc, fd->bpc);
        return -1;
    }
    if (fr->w == fd->w && fr->h == fd->h && fr->pix_fmt == fd->pix_fmt && fr->bpc == fd->bpc)
        return 0;
    /* one line; a pair of one size says how to bring the distorted video to
     * the reference's depth and layout */
    char pf[32], hint[256] = "";
    ffmpeg_pix_fmt(pf, sizeof(pf), fr);
    if (fr->w == fd->w && fr->h == fd->h)
        snprintf(hint, sizeof(hint), "; convert one to the other's, e.g. ffmpeg -i DIS "
                 "-pix_fmt %s -f yuv4mpegpipe dis.y4m (then score dis.y4m)", pf);
    fprintf(stderr, "%s: reference (%ux%u %s %u-bit) and distorted (%ux%u %s %u-bit) "
            "differ in size or format%s\n", app, fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt),
            fr->bpc, fd->w, fd->h, tvmaf_pix_fmt_name(fd->pix_fmt), fd->bpc, hint);
    return -1;
}

/* The pair's context with its models and features. Prints why and returns
 * -1 on failure. */
static int pair_open_context(const Settings *s, Pair *p)
{
    const char *app = p->label;
    char msg[1024] = "";
    int err;
    TvmafConfiguration cfg = {
        .n_threads = s->threads, .n_subsample = s->subsample, .backend = s->backend,
        .log_level = TVMAF_LOG_WARNING, .cpumask = s->cpumask,
        .gpu_index = p->gpu,
        .gpu_flags = s->gpu_flags | (p->ladder ? TVMAF_GPU_SHARED_REFERENCE : 0),
        .gpu_mem_limit = (size_t)s->gpu_mem_limit,
        .warmup_frames = s->warmup, .range_frames = s->range,
        .opencl_fp64 = s->opencl_fp64,
        .feature_defaults = s->feature_defaults && s->feature_defaults[0] ? s->feature_defaults
                                                                          : NULL,
    };
    if ((err = tvmaf_init(&p->ctx, &cfg))) {
        fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p->ctx));
        return -1;
    }
    /* models first: their extractors come first in the output, as in libvmaf */
    for (unsigned i = 0; i < s->n_models; i++) {
        const ModelArg *m = &s->models[i];
        const TvmafModelConfig mcfg = { .name = m->name, .flags = m->flags };
        if ((err = tvmaf_model_load(&p->model[i], m->path, m->version, &mcfg, msg, sizeof(msg)))) {
            /* one line; the implicit default model says how to avoid it */
            fprintf(stderr, "%s: %s%s\n", app, msg, !s->n_models_given && err == -ENOENT ?
                    "; without -m the model is vmaf_v0.6.1: give one with -m path=FILE, "
                    "or use -n to compute features only" : "");
            return -1;
        }
        for (unsigned j = 0; j < m->n_ov; j++) {
            if (tvmaf_model_feature_overload(p->model[i], m->ov[j].feature, m->ov[j].opt,
                                             m->ov[j].val)) {
                fprintf(stderr, "%s: -m %s: %s\n", app, model_label(m),
                        tvmaf_model_last_error(p->model[i]));
                return -1;
            }
        }
        if (tvmaf_use_model(p->ctx, p->model[i])) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_model_last_error(p->model[i]));
            return -1;
        }
    }
    for (unsigned i = 0; i < s->n_features; i++) {
        if (tvmaf_use_feature(p->ctx, s->features[i])) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p->ctx));
            return -1;
        }
    }
    return 0;
}

/* Whether the pair's outputs can be written (that none replaces an input is
 * checked for the whole command before: batch.c). */
static int pair_check_outputs(const Settings *s, Pair *p)
{
    const char *app = p->label, *out_path = p->out_path;
    if (out_path && strcmp(out_path, "-") && !output_writable(out_path)) {
        fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, out_path, strerror(errno));
        return -1;
    }
    char meta[4200];
    if (s->meta && out_path && !report_meta_path(meta, sizeof(meta), out_path) &&
        !output_writable(meta)) {
        fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, meta, strerror(errno));
        return -1;
    }
    const char *reports[2] = { s->report_path, s->plot_path };
    for (unsigned i = 0; i < 2; i++) {
        if (reports[i] && (!strcmp(reports[i], "-") || !output_writable(reports[i]))) {
            fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, reports[i],
                    strcmp(reports[i], "-") ? strerror(errno) : "the report needs a file");
            return -1;
        }
    }
    return 0;
}

/* The distorted input's checks against the reference, then its context, its
 * models and features, and its outputs' checks: everything before the first
 * frame. Prints one line and returns -1 on failure. */
int pair_setup(const Settings *s, Pair *p, TvmafReader *rd_ref)
{
    if ((s->raw.w || s->raw.h || s->raw.pix_fmt || s->raw.bpc) && reader_is(rd_ref, "y4m") &&
        reader_is(p->rd_dis, "y4m") && s->segment <= 1)
        fprintf(stderr, "%s: warning: -w/-h/-p/-b are ignored: both inputs are Y4M, whose "
                "headers give the size and format\n", p->label);
    if (pair_check_formats(s, p, rd_ref) || pair_open_context(s, p)) return -1;
    if (s->segment && !split_warmup_enough(s, p)) return -1;
    return pair_check_outputs(s, p);
}

/* Once per pair and run: a sample above the declared bit depth. */
void warn_depth(Pair *p, const char *path_ref, TvmafReader *rd_ref,
                       const TvmafVideoFormat *fr, int newline)
{
    const uint64_t at_r = tvmaf_reader_above_depth_frame(rd_ref);
    const uint64_t at_d = tvmaf_reader_above_depth_frame(p->rd_dis);
    if (at_r == UINT64_MAX && at_d == UINT64_MAX) return;
    p->depth_warned = 1;
    const int both = at_r != UINT64_MAX && at_d != UINT64_MAX;
    char who[1024];
    if (both)
        snprintf(who, sizeof(who), "\"%s\" and \"%s\" hold samples above %u, the "
                 "largest %u-bit value (first found in frames %llu and %llu)", path_ref,
                 p->path_dis, (1u << fr->bpc) - 1, fr->bpc,
                 (unsigned long long)at_r, (unsigned long long)at_d);
    else
        snprintf(who, sizeof(who), "\"%s\" holds samples above %u, the largest "
                 "%u-bit value (first found in frame %llu)",
                 at_r != UINT64_MAX ? path_ref : p->path_dis, (1u << fr->bpc) - 1,
                 fr->bpc, (unsigned long long)(at_r != UINT64_MAX ? at_r : at_d));
    fprintf(stderr, "%s%s: warning: %s; they are scored as they are: is the bit "
            "depth right?\n", newline ? "\n" : "", p->label, who);
}

/* The pooled means as libvmaf's vmaf prints them: every model, then every
 * collection's bagging score, interval and spread. */
static void print_pooled(const Settings *s, Pair *p, FILE *f, const char *tag)
{
    const unsigned n = p->n;
    for (unsigned i = 0; i < s->n_models; i++) {
        double v;
        if (!tvmaf_feature_score_pooled(p->ctx, tvmaf_model_name(p->model[i]), TVMAF_POOL_MEAN,
                                        &v, 0, n - 1))
            fprintf(f, "%s%s%s: %f\n", tag ? tag : "", tag ? ": " : "",
                    model_label(&s->models[i]), v);
    }
    for (unsigned i = 0; i < s->n_models; i++) {
        /* a collection's statistics carry its name and a suffix */
        const char *cname = tvmaf_model_name(p->model[i]);
        static const char *const suffix[4] = { "_bagging", "_ci_p95_lo", "_ci_p95_hi",
                                               "_stddev" };
        double v[4];
        int bad = 0;
        for (unsigned k = 0; k < 4; k++) {
            char key[512];
            snprintf(key, sizeof(key), "%s%s", cname, suffix[k]);
            bad |= tvmaf_feature_score_pooled(p->ctx, key, TVMAF_POOL_MEAN, &v[k], 0, n - 1);
        }
        if (!bad)
            fprintf(f, "%s%s%s: %f, ci.p95: [%f, %f], stddev: %f\n", tag ? tag : "",
                    tag ? ": " : "", model_label(&s->models[i]), v[0], v[1], v[2], v[3]);
    }
    fflush(f);
}

typedef struct ScoresOut {
    TvmafContext *ctx;
    enum TvmafOutputFormat fmt;
    int precision;
    double fps;
    unsigned w, h;
} ScoresOut;

static int scores_writer(FILE *f, void *arg)
{
    const ScoresOut *o = arg;
    return tvmaf_write_output(o->ctx, f, o->fmt, o->precision, o->fps, o->w, o->h);
}

int pair_finish(const Settings *s, Pair *p, const char *path_ref, const TvmafVideoFormat *fr,
                const struct timespec *t0, const char *tag)
{
    if (p->ended) /* libvmaf's words */
        fprintf(stderr, "\"%s\" ended before \"%s\".\n", p->ended, p->longer);
    for (unsigned i = 0; !s->no_prediction && i < s->n_models; i++) {
        if (tvmaf_score_model(p->ctx, p->model[i])) {
            fprintf(stderr, "%s: %s\n", p->label, tvmaf_model_last_error(p->model[i]));
            return -1;
        }
    }
    /* the pooled means on stdout, whatever it is (a script reads them as a
     * terminal shows them), unless the scores themselves go there (-o -) */
    if (!s->no_prediction && !s->batch && !s->quiet) {
        const int log_on_stdout = p->out_path && !strcmp(p->out_path, "-");
        print_pooled(s, p, log_on_stdout ? stderr : stdout, tag);
    }
    const double secs = seconds_since(t0);
    /* with nothing scored libvmaf's timer never starts: its fps is inf */
    ScoresOut so = { p->ctx, s->ofmt, s->precision,
                     !s->scoring ? INFINITY : secs > 0 ? p->n / secs : 0.0, fr->w, fr->h };
    if (p->out_path && output_write(p->label, p->out_path, scores_writer, &so)) return -1;
    /* --meta's sidecar; the pair kept for --report and --plot (written once
     * every pair of the command is done) */
    return report_pair_done(s, p, path_ref, fr, so.fps);
}
