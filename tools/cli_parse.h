/*
 * The command line: options into the settings of a run (cli_parse.c), -m
 * arguments, presets and the listings (cli_models.c).
 */
#ifndef TVMAF_TOOLS_CLI_PARSE_H
#define TVMAF_TOOLS_CLI_PARSE_H

#include <stdio.h>

#include "run.h"

typedef struct CliOptions {
    Settings s;              /* what every pair shares; its lists point below */
    const char *path_ref, *out_path, *batch_path, *out_dir;
    const char *dis_paths[MAX_DISTORTED];
    unsigned n_dis, jobs;
    const char *features[MAX_FEATURES];
    ModelArg models[MAX_MODELS];
    unsigned n_model_args;   /* models[] entries that own a buffer */
    unsigned gpus[MAX_GPUS];
    char feature_defaults[128];
    /* as given, before cli_parse settles them */
    int ofmt_given, threads_given, jobs_given, gpu_given, backend_given;
    int list_features, list_models, version, n_models;
    unsigned gpumask;
    const char *ref_isa, *gpus_arg;
} CliOptions;

/*
 * Reads the command line into *o (zeroed by the caller). Returns 0 when
 * there is a run to do, 1 when the command is done (--help, --version, a
 * listing), -1 after printing why it cannot run. cli_free() in every case.
 */
int cli_parse(int argc, char **argv, CliOptions *o);
void cli_free(CliOptions *o);

/* After the options: the checks across them and the defaults that depend on
 * others (cli_settle.c); cli_parse's return values. */
int cli_settle(CliOptions *o, const char *app);

/* One -m argument ("key=val:key=val:..." as libvmaf's vmaf reads it); on
 * failure, printed with `app`, m owns nothing. */
int model_arg_parse(const char *app, const char *arg, ModelArg *m);
void model_args_free(ModelArg *m, unsigned n);
/* -1 (after saying so) when two models have one name. */
int model_args_check_names(const char *app, const ModelArg *m, unsigned n);

/* --aom_ctc VERSION (nflx 0) or --nflx_ctc VERSION (nflx 1): libvmaf's
 * presets, their models and features appended to o's. -1 after saying why. */
int cli_preset(const char *app, int nflx, const char *version, CliOptions *o);

/* --list-models: the built-in models, then those found on TVMAF_MODEL_PATH
 * and in the install's data folder. */
void cli_list_models(FILE *f);
/* --list-features [-v]: the extractors, their backends (and options). */
void cli_list_features(FILE *f, int verbose);
/* --feature NAME=help: one extractor's options; -1 for an unknown name. */
int cli_feature_help(FILE *f, const char *name);

#endif
