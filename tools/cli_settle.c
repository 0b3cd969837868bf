/* The checks across options and the defaults that depend on other options. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_parse.h"
#include "outputs.h"

/* The default thread count's ceiling: 32 threads keep 4K 16-bit 4:4:4 pairs
 * within the default --max-memory (8G: 32 frames in flight per input and the
 * read-ahead, 50 MB a frame). */
#define DEFAULT_THREADS_MAX 32u

/* The cores this process may run on (its affinity mask, as a container or
 * taskset sets it), at least 1. */
static unsigned available_cores(void)
{
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* --gpus all|N,N,...: the devices of the GPU backend that score, checked
 * against the devices this machine has; auto becomes the GPU backend it
 * would choose. Returns -1 after printing why. */
static int parse_gpus(CliOptions *o, const char *app)
{
    Settings *s = &o->s;
    const char *arg = o->gpus_arg;
    if (s->backend == TVMAF_BACKEND_CPU) {
        fprintf(stderr, "%s: --gpus lists devices of a GPU backend (cuda, opencl); --backend "
                "cpu scores on the processor: use --threads N (and --jobs N for a batch)\n", app);
        return -1;
    }
    if (o->gpu_given) {
        fprintf(stderr, "%s: give --gpu N (one device) or --gpus LIST, not both\n", app);
        return -1;
    }
    /* the list's form first: a malformed list is refused the same on any machine */
    unsigned n = 0;
    unsigned long listed[MAX_GPUS];
    const int all = !strcmp(arg, "all");
    for (const char *c = arg; !all;) {
        char *end;
        errno = 0;
        const unsigned long v = strtoul(c, &end, 10);
        if (end == c || *c == '-' || *c == '+' || errno || v > 4096 || (*end && *end != ',')) {
            fprintf(stderr, "%s: invalid value \"%s\" for --gpus (expected all, or device "
                    "numbers separated by commas: 0,1,2)\n", app, arg);
            return -1;
        }
        if (n == MAX_GPUS) {
            fprintf(stderr, "%s: --gpus: at most %d devices\n", app, MAX_GPUS);
            return -1;
        }
        listed[n++] = v;
        if (!*end) break;
        c = end + 1;
    }
    const enum TvmafBackend backend = tvmaf_backend_choose(s->backend, 0);
    if (backend == TVMAF_BACKEND_CPU) {
        fprintf(stderr, "%s: --gpus %s: no GPU here for --backend auto; for another device "
                "(an OpenCL CPU device, say) name its backend: --backend opencl\n", app, arg);
        return -1;
    }
    const char *bname = tvmaf_backend_name(backend);
    const int have = tvmaf_gpu_count(backend);
    if (have <= 0) {
        fprintf(stderr, "%s: --gpus %s: the %s backend has no usable device here\n", app, arg,
                bname);
        return -1;
    }
    if (all)
        for (int i = 0; i < have && i < MAX_GPUS; i++) listed[n++] = (unsigned)i;
    for (unsigned i = 0; i < n; i++) {
        if (listed[i] >= (unsigned long)have) {
            fprintf(stderr, "%s: --gpus %s: there is no %s device %lu (this machine has "
                    "%d: 0..%d)\n", app, arg, bname, listed[i], have, have - 1);
            return -1;
        }
        o->gpus[i] = (unsigned)listed[i];
    }
    s->backend = backend;
    s->gpus = o->gpus;
    s->n_gpus = n;
    s->gpu_index = o->gpus[0];
    if (o->batch_path && !o->jobs_given) o->jobs = n;
    return 0;
}

/* Which pairs, and where their scores go. Returns -1 after printing why. */
static int check_pairs(CliOptions *o, const char *app)
{
    if (o->batch_path && (o->path_ref || o->n_dis)) {
        fprintf(stderr, "%s: --batch takes its pairs from the manifest: give no -r/-d with it\n", app);
        return -1;
    }
    if (!o->batch_path && (!o->path_ref || !o->n_dis)) {
        fprintf(stderr, "%s: both --reference/-r and --distorted/-d are required (see --help)\n", app);
        return -1;
    }
    unsigned n_stdin = o->path_ref && !strcmp(o->path_ref, "-");
    for (unsigned i = 0; i < o->n_dis; i++) n_stdin += !strcmp(o->dis_paths[i], "-");
    if (n_stdin > 1) {
        fprintf(stderr, "%s: only one of the inputs can be stdin\n", app);
        return -1;
    }
    const int several = o->batch_path || o->n_dis > 1;
    if (several && o->out_path && !strcmp(o->out_path, "-")) {
        fprintf(stderr, "%s: -o - writes one pair's scores: with several pairs give -o PATTERN "
                "(%%d: the pair's number, %%s: the distorted input's name) or --output-dir DIR\n",
                app);
        return -1;
    }
    if (o->out_dir && o->out_path) {
        fprintf(stderr, "%s: give -o or --output-dir, not both\n", app);
        return -1;
    }
    if (o->s.meta && !o->batch_path && !o->out_dir &&
        (!o->out_path || (!several && !strcmp(o->out_path, "-")))) {
        fprintf(stderr, "%s: --meta writes OUTPUT.meta.json beside each output: give -o FILE "
                "(with several pairs -o PATTERN or --output-dir DIR)\n", app);
        return -1;
    }
    if (o->out_dir && mkdir(o->out_dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create --output-dir \"%s\": %s\n", app, o->out_dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* The models: libvmaf's default when none is given, each with its own name. */
static int settle_models(CliOptions *o, const char *app)
{
    Settings *s = &o->s;
    s->n_models_given = o->n_model_args;
    s->n_models = o->n_model_args;
    if (!o->n_models && !s->no_prediction) {
        static const ModelArg default_model = { .version = "vmaf_v0.6.1", .name = "vmaf" };
        s->models = &default_model;
        s->n_models = 1;
    } else {
        s->models = o->models;
    }
    /* -n without --feature: as libvmaf, the inputs are read and the output
     * holds no score */
    s->scoring = s->n_features || s->n_models;
    return model_args_check_names(app, s->models, s->n_models);
}

int cli_settle(CliOptions *o, const char *app)
{
    Settings *s = &o->s;
    s->features = o->features;
    if (o->list_features || o->list_models) {
        if (o->list_features) cli_list_features(stdout, o->version);
        if (o->list_models) cli_list_models(stdout);
        return 1;
    }
    if (o->version) {
        /* one line, the library's build after the version (ffmpeg=yes|no ...),
         * so scripts can tell what this build reads and runs */
        printf("tvmaf %s (%s)\n", tvmaf_version(), tvmaf_build_info());
        return 1;
    }
    if (o->gpumask) {
        if (o->backend_given && s->backend != TVMAF_BACKEND_CPU) {
            fprintf(stderr, "%s: --gpumask %u keeps scoring off the GPU, which --backend %s "
                    "contradicts\n", app, o->gpumask, tvmaf_backend_name(s->backend));
            return -1;
        }
        s->backend = TVMAF_BACKEND_CPU;
    }
    if (check_pairs(o, app) || (o->gpus_arg && parse_gpus(o, app)) || settle_models(o, app))
        return -1;
    if (o->ref_isa) { /* adm's reference_isa for every instance, a model's included */
        const size_t n = strlen(o->feature_defaults);
        snprintf(o->feature_defaults + n, sizeof(o->feature_defaults) - n,
                 "%sadm=reference_isa=%s", n ? ";" : "", o->ref_isa);
    }
    s->feature_defaults = o->feature_defaults;
    /* without a format flag, -o FILE's extension names the format */
    const int by_name = o->out_path ? output_format_of(o->out_path) : -1;
    if (!o->ofmt_given && by_name >= 0) s->ofmt = (enum TvmafOutputFormat)by_name;
    /* every core on the CPU (the bits do not depend on the count), shared by
     * a batch's jobs, at most DEFAULT_THREADS_MAX: each thread holds a frame
     * of each input, which --max-memory must cover; a GPU backend keeps its
     * own frames in flight */
    if (!o->threads_given &&
        tvmaf_backend_choose(s->backend, s->gpu_index) == TVMAF_BACKEND_CPU) {
        const unsigned cores = available_cores(), jobs = o->batch_path ? o->jobs : 1;
        s->threads = cores / jobs > 1 ? cores / jobs : 1;
        if (s->threads > DEFAULT_THREADS_MAX) s->threads = DEFAULT_THREADS_MAX;
    }
    s->batch = o->batch_path != NULL;
    return 0;
}
