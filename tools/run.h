/*
 * Scoring pairs: the settings every pair of a run shares, one pair's setup
 * and finish, a group of pairs sharing one reference (run.c), one pair over
 * several devices (split.c), manifests and ladders (batch.c).
 */
#ifndef TVMAF_TOOLS_RUN_H
#define TVMAF_TOOLS_RUN_H

#include <stdint.h>
#include <time.h>

#include "tvmaf/reader.h"
#include "tvmaf/tvmaf.h"
#include "io/video_reader.h"
#include "io/prefetch.h"

#define MAX_FEATURES 64
#define MAX_MODELS 32
#define MAX_OVERLOADS 32
/* Distorted inputs of one ladder (-d repeated). */
#define MAX_DISTORTED 256
/* Devices of --gpus, pairs of a batch at a time (--jobs). */
#define MAX_GPUS 64
#define MAX_JOBS 64

/* One -m argument: "key=val:key=val:..." as libvmaf's vmaf reads it. */
typedef struct ModelArg {
    char *buf; /* owns the strings below */
    const char *path, *version, *name;
    unsigned flags;
    struct { const char *feature, *opt, *val; } ov[MAX_OVERLOADS];
    unsigned n_ov;
} ModelArg;

struct SplitGate;

/* What every pair of a run shares: the command line's settings (a manifest
 * row may replace the raw layout and the models). */
typedef struct Settings {
    TvmafVideoFormat raw;      /* -w/-h/-p/-b, zeros where not given */
    TvmafVideoFormat raw_ref;  /* --ref-format / --dis-format: that input alone is raw */
    TvmafVideoFormat raw_dis;  /* (w == 0: not given) */
    unsigned threads, subsample, frame_cnt, skip_ref, skip_dis;
    enum TvmafOutputFormat ofmt;
    enum TvmafBackend backend;
    int precision, quiet, no_prediction, strict_frames, ignore_fps, common_bitdepth;
    int no_shared_reference;   /* a ladder's contexts do not share reference-side work */
    const char *const *features;
    unsigned n_features;
    const ModelArg *models; /* parsed -m arguments, the default model when none was given */
    unsigned n_models;
    unsigned n_models_given;
    int scoring;            /* a feature or a model to score (not -n alone) */
    uint64_t cpumask, max_memory;
    unsigned gpu_index, gpu_flags;
    enum TvmafOpenclFp64 opencl_fp64;
    unsigned long long gpu_mem_limit;
    const char *feature_defaults;
    const char *report_path, *plot_path, *scale_filter;
    int meta;               /* --meta: each output's sidecar (report_cli.h) */
    int batch;              /* a manifest's pair: no progress line, no pooled scores */
    const unsigned *gpus;   /* --gpus: the devices, n_gpus of them (0: --gpu alone) */
    unsigned n_gpus;
    /* a frame range of a split pair (run_split): its number from 1 (0: a
     * whole pair), the context's warm-up and range frames; run_group leaves
     * such a pair's context unflushed and open for run_split */
    unsigned segment, warmup, range;
    struct SplitGate *gate;
} Settings;

/* One distorted input scored against the reference of its group. */
typedef struct Pair {
    char label[4200];       /* what its messages start with ("tvmaf", "tvmaf: list.csv:3") */
    const char *path_dis, *out_path;
    TvmafModel *model[MAX_MODELS]; /* this pair's copies of the settings' models */
    TvmafReader *rd_dis;
    TvmafPrefetch *pf_dis;
    TvmafContext *ctx;
    unsigned n;             /* frames submitted */
    int live;               /* still takes frames */
    int failed;
    const char *ended, *longer; /* inputs of different lengths */
    int depth_warned;
    unsigned gpu;           /* its device (gpu_index) */
    int ladder;             /* one of several pairs sharing the reference */
    unsigned report_index;  /* its place in the report (the ladder's or manifest's order) */
} Pair;

/* The raw layout input `dis` (0: the reference) is read with: its own
 * --ref-format/--dis-format, else -w/-h/-p/-b when all four are given;
 * NULL: Y4M or encoded. */
const TvmafVideoFormat *settings_raw(const Settings *s, int dis);
/* Whether r reads its input with the module `kind` (tvmaf_reader_kind). */
int reader_is(const TvmafReader *r, const char *kind);

/* What a model is called in messages: its version, else its path. */
const char *model_label(const ModelArg *m);

/* A pair that failed: it takes no more frames and counts as failed. */
void pair_fail(Pair *p);

/* The distorted input's checks against the reference, then its context, its
 * models and features, and its outputs' checks: everything before the first
 * frame. Prints one line and returns -1 on failure. */
int pair_setup(const Settings *s, Pair *p, TvmafReader *rd_ref);

/* Once per pair and run: warns of a sample above the declared bit depth
 * (`newline` first ends the progress line). */
void warn_depth(Pair *p, const char *path_ref, TvmafReader *rd_ref,
                const TvmafVideoFormat *fr, int newline);

/* The ranges of a split pair after the first set up once the first has (so
 * a refusal is said once, by the first): signal with ok, or wait and get
 * whether the first succeeded. */
void split_gate_signal(struct SplitGate *g, int ok);
int split_gate_wait(struct SplitGate *g);

/* Whether a split pair's range (s->segment) is given warm-up frames enough
 * for the temporal extractors of its context; prints why not. */
int split_warmup_enough(const Settings *s, const Pair *p);

/*
 * Scores `np` distorted inputs against one reference, `label` starting the
 * messages that concern the reference. The reference is read once: each of
 * its pictures is shared (tvmaf_picture_ref) by the contexts of every pair,
 * which score at the same time (on a GPU backend they share the device). A
 * pair that fails is reported and the others go on. With one pair this is
 * the plain tvmaf command. Returns the number of pairs that failed.
 */
unsigned run_group(const Settings *s, const char *label, const char *path_ref, Pair *pairs,
                   unsigned np);

/* After the last frame of a pair has been flushed: the models' scores, the
 * pooled means, the output and the reports. `tag` prefixes the pooled means
 * when several pairs print theirs. Prints why and returns -1 on failure. */
int pair_finish(const Settings *s, Pair *p, const char *path_ref, const TvmafVideoFormat *fr,
                const struct timespec *t0, const char *tag);

/* One pair scored on every device of s->gpus, a frame range each (split.c);
 * returns the exit status. */
int run_split(const Settings *s, const char *app, const char *path_ref, const char *path_dis,
              const char *out_path);

/* --batch FILE: every row of the manifest, `jobs` at a time (batch.c);
 * returns the exit status. */
int run_batch(const Settings *s, const char *manifest, const char *pattern,
              const char *out_dir, unsigned jobs);

/* After SIGINT/SIGTERM/SIGHUP (`signame`): the running batch's summary on
 * stderr, what was scored and what was not (nothing without a batch). */
void batch_interrupted(const char *signame);

/* -r REF -d DIS [-d DIS ...]: one pair or a ladder (batch.c); returns the
 * exit status. */
int run_ladder(const Settings *s, const char *app, const char *path_ref,
               const char *const *dis_paths, unsigned n_dis, const char *out_path,
               const char *out_dir);

/* Seconds since t0 (CLOCK_MONOTONIC). */
double seconds_since(const struct timespec *t0);

#endif
