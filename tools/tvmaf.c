/*
 * tvmaf: the command-line tool, flag-compatible with libvmaf's `vmaf`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#include "io/prefetch.h"
#include "io/video_reader.h"

/* Each input is read ahead of scoring by up to READ_AHEAD_BYTES of
 * pictures (at least 4, at most 64 frames): enough to keep reading while
 * the first frame waits for the device to start up. */
#define READ_AHEAD_BYTES ((size_t)96 << 20)
#include "numerics/rcpss.h"

enum {
    ARG_XML = 256, ARG_JSON, ARG_CSV, ARG_SUB, ARG_THREADS, ARG_FEATURE, ARG_SUBSAMPLE,
    ARG_CPUMASK, ARG_FRAME_CNT, ARG_SKIP_REF, ARG_SKIP_DIST, ARG_BACKEND, ARG_PRECISION,
    ARG_LIST, ARG_HELP, ARG_RCPSS, ARG_ADM_DIV, ARG_GPU, ARG_PINNED, ARG_GPU_STATS,
    ARG_GPU_MEM_LIMIT,
};

static const struct option long_opts[] = {
    { "reference", required_argument, NULL, 'r' },
    { "distorted", required_argument, NULL, 'd' },
    { "width", required_argument, NULL, 'w' },
    { "height", required_argument, NULL, 'h' },
    { "pixel_format", required_argument, NULL, 'p' },
    { "bitdepth", required_argument, NULL, 'b' },
    { "model", required_argument, NULL, 'm' },
    { "output", required_argument, NULL, 'o' },
    { "xml", no_argument, NULL, ARG_XML },
    { "json", no_argument, NULL, ARG_JSON },
    { "csv", no_argument, NULL, ARG_CSV },
    { "sub", no_argument, NULL, ARG_SUB },
    { "threads", required_argument, NULL, ARG_THREADS },
    { "feature", required_argument, NULL, ARG_FEATURE },
    { "subsample", required_argument, NULL, ARG_SUBSAMPLE },
    { "cpumask", required_argument, NULL, ARG_CPUMASK },
    { "frame_cnt", required_argument, NULL, ARG_FRAME_CNT },
    { "frame_skip_ref", required_argument, NULL, ARG_SKIP_REF },
    { "frame_skip_dist", required_argument, NULL, ARG_SKIP_DIST },
    { "no_prediction", no_argument, NULL, 'n' },
    { "version", no_argument, NULL, 'v' },
    { "quiet", no_argument, NULL, 'q' },
    { "backend", required_argument, NULL, ARG_BACKEND },
    { "precision", required_argument, NULL, ARG_PRECISION },
    { "list-features", no_argument, NULL, ARG_LIST },
    { "help", no_argument, NULL, ARG_HELP },
    { "rcpss-fingerprint", no_argument, NULL, ARG_RCPSS },
    { "adm-div", required_argument, NULL, ARG_ADM_DIV },
    { "gpu", required_argument, NULL, ARG_GPU },
    { "pinned-pictures", no_argument, NULL, ARG_PINNED },
    { "gpu-stats", no_argument, NULL, ARG_GPU_STATS },
    { "gpu-mem-limit", required_argument, NULL, ARG_GPU_MEM_LIMIT },
    { NULL, 0, NULL, 0 },
};

static void usage(FILE *f, const char *app)
{
    fprintf(f,
        "Usage: %s -r REF -d DIS [options]\n\n"
        "Inputs (.y4m is detected from its header; anything else is raw planar YUV):\n"
        " --reference/-r PATH        reference video, or - for stdin\n"
        " --distorted/-d PATH        distorted video, or - for stdin\n"
        " --width/-w N, --height/-h N  raw YUV frame size\n"
        " --pixel_format/-p 420|422|444|400  raw YUV layout\n"
        " --bitdepth/-b 8|10|12|16   raw YUV bit depth (16-bit little-endian samples above 8)\n"
        "Scoring:\n"
        " --feature NAME[=opt=val:opt=val]  extractor to run (repeatable)\n"
        " --model/-m PARAMS          VMAF model, colon-separated (repeatable):\n"
        "                            path=FILE or version=NAME (NAME.json found in\n"
        "                            $TVMAF_MODEL_PATH, then " TVMAF_DATADIR "),\n"
        "                            name=KEY (default vmaf), disable_clip, enable_transform,\n"
        "                            FEATURE.OPTION=VALUE (an option of a model's extractor);\n"
        "                            default: version=vmaf_v0.6.1 unless -n is given\n"
        " --no_prediction/-n         features only, no model score\n"
        " --backend cpu|cuda|auto    where to run (default auto: CUDA when a GPU is usable)\n"
        " --threads N                frames scored in parallel (same bits as 1 thread; default 1,\n"
        "                            with --backend cuda min(cores, 8) frames in flight)\n"
        " --subsample N              score every Nth frame\n"
        " --frame_cnt N              score at most N frames\n"
        " --frame_skip_ref N, --frame_skip_dist N  skip the first N frames of an input\n"
        " --cpumask MASK             SIMD levels to disable, libvmaf's bits (8 AVX2, 16 AVX-512)\n"
        " --adm-div host|table|ieee  float_adm's division, for every instance (default host:\n"
        "                            this processor's reciprocal estimate, as libvmaf here)\n"
        "GPU backends:\n"
        " --gpu N                    device index (default 0)\n"
        " --pinned-pictures          read frames into page-locked memory, uploaded from there\n"
        " --gpu-stats                print device work per frame and device times to stderr\n"
        " --gpu-mem-limit BYTES      fail as out of memory past this much device memory\n"
        "Output:\n"
        " --output/-o PATH           write scores to PATH (- for stdout)\n"
        " --xml (default), --json, --csv, --sub  output format\n"
        " --precision N|max          print numbers as %%.Ng (max: %%.17g, exact);\n"
        "                            default prints as libvmaf (%%.6f)\n"
        " --quiet/-q                 no progress line\n"
        " --list-features            extractors and the backends they run on\n"
        " --rcpss-fingerprint        this processor's reciprocal-estimate fingerprint (float_adm)\n"
        " --version/-v, --help\n", app);
}

static int parse_uint(const char *app, const char *opt, const char *s, unsigned *out,
                      unsigned min, unsigned max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
        fprintf(stderr, "%s: invalid value \"%s\" for %s (expected an integer in [%u, %u])\n",
                app, s, opt, min, max);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

#define MAX_FEATURES 64

/* Whether `path` can be created or overwritten, checked before any work. */
static int writable(const char *path)
{
    struct stat st;
    if (!stat(path, &st)) {
        if (S_ISDIR(st.st_mode)) { errno = EISDIR; return 0; }
        return !access(path, W_OK);
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return !access(".", W_OK);
    if (slash == dir) slash[1] = '\0'; else *slash = '\0';
    return !access(dir, W_OK);
}

#define MAX_MODELS 32
#define MAX_OVERLOADS 32

/* One -m argument: "key=val:key=val:..." as libvmaf's vmaf reads it. */
typedef struct ModelArg {
    char *buf; /* owns the strings below */
    const char *path, *version, *name;
    unsigned flags;
    struct { const char *feature, *opt, *val; } ov[MAX_OVERLOADS];
    unsigned n_ov;
    TvmafModel *model;
} ModelArg;

static int parse_model_arg(const char *app, const char *arg, ModelArg *m)
{
    memset(m, 0, sizeof(*m));
    m->name = "vmaf";
    if (!(m->buf = strdup(arg))) return -1;
    char *rest = m->buf, *kv;
    while ((kv = strsep(&rest, ":"))) {
        char *val = strchr(kv, '=');
        if (val) *val++ = '\0';
        if (!val && (!strcmp(kv, "disable_clip") || !strcmp(kv, "enable_transform")))
            val = "true";
        if (val && strchr(val, '=')) {
            fprintf(stderr, "%s: bad model option in -m \"%s\": the value of %s has a '=' "
                    "(':' separates options)\n", app, arg, kv);
            return -1;
        }
        if (!*kv || !val || !*val) {
            fprintf(stderr, "%s: bad model option \"%s\" in -m \"%s\" (expected key=value: "
                    "path=, version=, name=, disable_clip, enable_transform or "
                    "FEATURE.OPTION=VALUE)\n", app, kv, arg);
            return -1;
        }
        if (!strcmp(kv, "path")) {
            m->path = val;
        } else if (!strcmp(kv, "version")) {
            m->version = val;
        } else if (!strcmp(kv, "name")) {
            m->name = val;
        } else if (!strcmp(kv, "disable_clip") || !strcmp(kv, "enable_transform")) {
            if (strcmp(val, "true") && strcmp(val, "false")) {
                fprintf(stderr, "%s: model option %s takes true or false, not \"%s\"\n",
                        app, kv, val);
                return -1;
            }
            if (!strcmp(val, "true"))
                m->flags |= kv[0] == 'd' ? TVMAF_MODEL_DISABLE_CLIP : TVMAF_MODEL_ENABLE_TRANSFORM;
        } else {
            char *dot = strchr(kv, '.');
            if (!dot || dot == kv || !dot[1] || strchr(dot + 1, '.')) {
                fprintf(stderr, "%s: bad model option \"%s\" in -m \"%s\" (a feature option "
                        "is FEATURE.OPTION=VALUE)\n", app, kv, arg);
                return -1;
            }
            if (m->n_ov == MAX_OVERLOADS) {
                fprintf(stderr, "%s: at most %d feature options per model\n", app, MAX_OVERLOADS);
                return -1;
            }
            *dot = '\0';
            m->ov[m->n_ov].feature = kv;
            m->ov[m->n_ov].opt = dot + 1;
            m->ov[m->n_ov].val = val;
            m->n_ov++;
        }
    }
    if (!m->path == !m->version) {
        fprintf(stderr, "%s: -m \"%s\" needs exactly one of path=FILE and version=NAME\n",
                app, arg);
        return -1;
    }
    return 0;
}

/* What the model is called in messages: its version, else its path. */
static const char *model_label(const ModelArg *m)
{
    return m->version ? m->version : m->path;
}

int main(int argc, char **argv)
{
    const char *app = "tvmaf";
    const char *path_ref = NULL, *path_dis = NULL, *out_path = NULL;
    unsigned w = 0, h = 0, bpc = 0, threads = 0, subsample = 0, frame_cnt = 0;
    unsigned skip_ref = 0, skip_dis = 0;
    enum TvmafPixelFormat fmt = TVMAF_PIX_FMT_UNKNOWN;
    enum TvmafOutputFormat ofmt = TVMAF_OUTPUT_XML;
    enum TvmafBackend backend = TVMAF_BACKEND_AUTO;
    int precision = 0, quiet = 0, no_prediction = 0, n_models = 0;
    const char *features[MAX_FEATURES];
    unsigned n_features = 0;
    ModelArg models[MAX_MODELS];
    unsigned n_model_args = 0;
    uint64_t cpumask = 0;
    unsigned gpu_index = 0, gpu_flags = 0;
    unsigned long long gpu_mem_limit = 0;
    char feature_defaults[128] = "";

    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:d:w:h:p:b:m:o:nvq", long_opts, NULL)) != -1) {
        switch (c) {
        case 'r': path_ref = optarg; break;
        case 'd': path_dis = optarg; break;
        case 'w': if (parse_uint(app, "--width", optarg, &w, 1, 65536)) return 1; break;
        case 'h': if (parse_uint(app, "--height", optarg, &h, 1, 65536)) return 1; break;
        case 'b':
            if (parse_uint(app, "--bitdepth", optarg, &bpc, 1, 64)) return 1;
            if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16) {
                fprintf(stderr, "%s: unsupported bit depth %u (supported: 8, 10, 12, 16)\n",
                        app, bpc);
                return 1;
            }
            break;
        case 'p':
            if (!strcmp(optarg, "420")) fmt = TVMAF_PIX_FMT_YUV420P;
            else if (!strcmp(optarg, "422")) fmt = TVMAF_PIX_FMT_YUV422P;
            else if (!strcmp(optarg, "444")) fmt = TVMAF_PIX_FMT_YUV444P;
            else if (!strcmp(optarg, "400")) fmt = TVMAF_PIX_FMT_YUV400P;
            else {
                fprintf(stderr, "%s: invalid pixel format \"%s\" (420, 422, 444 or 400)\n",
                        app, optarg);
                return 1;
            }
            break;
        case 'm':
            if (n_model_args == MAX_MODELS) {
                fprintf(stderr, "%s: at most %d models\n", app, MAX_MODELS);
                return 1;
            }
            if (parse_model_arg(app, optarg, &models[n_model_args])) return 1;
            n_model_args++;
            n_models++;
            break;
        case 'o': out_path = optarg; break;
        case 'n': no_prediction = 1; break;
        case 'q': quiet = 1; break;
        case 'v': printf("tvmaf %s\n", tvmaf_version()); return 0;
        case ARG_XML: ofmt = TVMAF_OUTPUT_XML; break;
        case ARG_JSON: ofmt = TVMAF_OUTPUT_JSON; break;
        case ARG_CSV: ofmt = TVMAF_OUTPUT_CSV; break;
        case ARG_SUB: ofmt = TVMAF_OUTPUT_SUB; break;
        case ARG_THREADS: if (parse_uint(app, "--threads", optarg, &threads, 0, 1024)) return 1; break;
        case ARG_SUBSAMPLE: if (parse_uint(app, "--subsample", optarg, &subsample, 0, 1u << 30)) return 1; break;
        case ARG_FRAME_CNT: if (parse_uint(app, "--frame_cnt", optarg, &frame_cnt, 0, ~0u)) return 1; break;
        case ARG_SKIP_REF: if (parse_uint(app, "--frame_skip_ref", optarg, &skip_ref, 0, ~0u)) return 1; break;
        case ARG_SKIP_DIST: if (parse_uint(app, "--frame_skip_dist", optarg, &skip_dis, 0, ~0u)) return 1; break;
        case ARG_CPUMASK: {
            char *end;
            errno = 0;
            cpumask = strtoull(optarg, &end, 0);
            if (errno || end == optarg || *end) {
                fprintf(stderr, "%s: invalid value \"%s\" for --cpumask\n", app, optarg);
                return 1;
            }
            break;
        }
        case ARG_ADM_DIV:
            if (strcmp(optarg, "host") && strcmp(optarg, "table") && strcmp(optarg, "ieee") &&
                strcmp(optarg, "auto")) {
                fprintf(stderr, "%s: invalid value \"%s\" for --adm-div (host, table, ieee or "
                        "auto)\n", app, optarg);
                return 1;
            }
            snprintf(feature_defaults, sizeof(feature_defaults), "float_adm=adm_div=%s", optarg);
            break;
        case ARG_GPU: if (parse_uint(app, "--gpu", optarg, &gpu_index, 0, 1024)) return 1; break;
        case ARG_PINNED: gpu_flags |= TVMAF_GPU_PINNED_PICTURES; break;
        case ARG_GPU_STATS: gpu_flags |= TVMAF_GPU_STATS; break;
        case ARG_GPU_MEM_LIMIT: {
            char *end;
            errno = 0;
            gpu_mem_limit = strtoull(optarg, &end, 0);
            if (errno || end == optarg || *end || optarg[0] == '-') {
                fprintf(stderr, "%s: invalid value \"%s\" for --gpu-mem-limit (bytes)\n", app,
                        optarg);
                return 1;
            }
            break;
        }
        case ARG_FEATURE:
            if (n_features == MAX_FEATURES) {
                fprintf(stderr, "%s: at most %d --feature options\n", app, MAX_FEATURES);
                return 1;
            }
            features[n_features++] = optarg;
            break;
        case ARG_BACKEND:
            if (!strcmp(optarg, "cpu")) backend = TVMAF_BACKEND_CPU;
            else if (!strcmp(optarg, "cuda")) backend = TVMAF_BACKEND_CUDA;
            else if (!strcmp(optarg, "auto")) backend = TVMAF_BACKEND_AUTO;
            else {
                fprintf(stderr, "%s: invalid backend \"%s\" (cpu, cuda or auto)\n", app, optarg);
                return 1;
            }
            break;
        case ARG_PRECISION:
            if (!strcmp(optarg, "max")) precision = 17;
            else {
                unsigned p;
                if (parse_uint(app, "--precision", optarg, &p, 1, 17)) return 1;
                precision = (int)p;
            }
            break;
        case ARG_LIST:
            for (unsigned i = 0; i < tvmaf_feature_count(); i++)
                printf("%-16s %s\n", tvmaf_feature_name(i), tvmaf_feature_backends(i));
            return 0;
        case ARG_HELP: usage(stdout, app); return 0;
        case ARG_RCPSS: {
            /* float_adm divides through the processor's reciprocal estimate, as
             * the reference does; this tells whether this processor's estimate
             * is the goldens host's (then "host" reproduces the goldens) */
            char m[256] = "";
            const uint64_t fp = tvmaf_rcpss_host_fingerprint();
            const int mode = tvmaf_rcp_div_resolve(NULL, m, sizeof(m));
            printf("host %016llx\ngoldens %016llx\nmode %s\n", (unsigned long long)fp,
                   (unsigned long long)TVMAF_RCPSS_GOLDENS_FINGERPRINT,
                   mode >= 0 ? tvmaf_rcp_div_name(mode) : m);
            return 0;
        }
        case ':':
            fprintf(stderr, "%s: option %s needs a value\n", app, argv[optind - 1]);
            return 1;
        default:
            fprintf(stderr, "%s: unknown option \"%s\" (see --help)\n", app, argv[optind - 1]);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument \"%s\" (see --help)\n", app, argv[optind]);
        return 1;
    }
    if (!path_ref || !path_dis) {
        fprintf(stderr, "%s: both --reference/-r and --distorted/-d are required (see --help)\n", app);
        return 1;
    }
    if (!strcmp(path_ref, "-") && !strcmp(path_dis, "-")) {
        fprintf(stderr, "%s: only one of the inputs can be stdin\n", app);
        return 1;
    }
    const unsigned n_models_given = n_model_args;
    if (!n_models && !no_prediction) {
        /* libvmaf's default model */
        memset(&models[0], 0, sizeof(models[0]));
        models[0].version = "vmaf_v0.6.1";
        models[0].name = "vmaf";
        n_model_args = n_models = 1;
    }
    for (unsigned i = 0; i < n_model_args; i++) {
        for (unsigned j = i + 1; j < n_model_args; j++) {
            if (!strcmp(models[i].name, models[j].name)) {
                fprintf(stderr, "%s: two models are named \"%s\"; each model needs its own "
                        "name (-m ...:name=NAME)\n", app, models[i].name);
                return 1;
            }
        }
    }
    if (!n_features && !n_models) {
        fprintf(stderr, "%s: no feature requested (use --feature NAME; --list-features lists them)\n", app);
        return 1;
    }

    char msg[1024] = "";
    TvmafVideoFormat raw = { fmt, bpc, w, h };
    const int have_raw = w && h && bpc && fmt;
    TvmafVideoReader *rd_ref = NULL, *rd_dis = NULL;
    TvmafPrefetch *pf_ref = NULL, *pf_dis = NULL;
    TvmafContext *ctx = NULL;
    FILE *out = NULL;
    int ret = 1, err;

    if ((err = tvmaf_reader_open(&rd_ref, path_ref, have_raw ? &raw : NULL, msg, sizeof(msg))) ||
        (err = tvmaf_reader_open(&rd_dis, path_dis, have_raw ? &raw : NULL, msg, sizeof(msg)))) {
        fprintf(stderr, "%s: %s\n", app, msg);
        goto end;
    }
    const TvmafVideoFormat *fr = tvmaf_reader_format(rd_ref), *fd = tvmaf_reader_format(rd_dis);
    if (fr->w != fd->w || fr->h != fd->h || fr->pix_fmt != fd->pix_fmt || fr->bpc != fd->bpc) {
        fprintf(stderr, "%s: reference (%ux%u %s %u-bit) and distorted (%ux%u %s %u-bit) "
                "differ in size or format\n", app, fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc,
                fd->w, fd->h, tvmaf_pix_fmt_name(fd->pix_fmt), fd->bpc);
        goto end;
    }

    TvmafConfiguration cfg = {
        .n_threads = threads, .n_subsample = subsample, .backend = backend,
        .log_level = TVMAF_LOG_WARNING, .cpumask = cpumask,
        .gpu_index = gpu_index, .gpu_flags = gpu_flags, .gpu_mem_limit = (size_t)gpu_mem_limit,
        .feature_defaults = feature_defaults[0] ? feature_defaults : NULL,
    };
    if ((err = tvmaf_init(&ctx, &cfg))) {
        fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(ctx));
        goto end;
    }
    /* models first: their extractors come first in the output, as in libvmaf */
    for (unsigned i = 0; i < n_model_args; i++) {
        ModelArg *m = &models[i];
        const TvmafModelConfig mcfg = { .name = m->name, .flags = m->flags };
        if ((err = tvmaf_model_load(&m->model, m->path, m->version, &mcfg, msg, sizeof(msg)))) {
            /* one line; the implicit default model says how to avoid it */
            fprintf(stderr, "%s: %s%s\n", app, msg, !n_models_given && err == -ENOENT ?
                    "; without -m the model is vmaf_v0.6.1: give one with -m path=FILE, "
                    "or use -n to compute features only" : "");
            goto end;
        }
        for (unsigned j = 0; j < m->n_ov; j++) {
            if ((err = tvmaf_model_feature_overload(m->model, m->ov[j].feature, m->ov[j].opt,
                                                    m->ov[j].val))) {
                fprintf(stderr, "%s: -m %s: %s\n", app, model_label(m),
                        tvmaf_model_last_error(m->model));
                goto end;
            }
        }
        if ((err = tvmaf_use_model(ctx, m->model))) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_model_last_error(m->model));
            goto end;
        }
    }
    for (unsigned i = 0; i < n_features; i++) {
        if ((err = tvmaf_use_feature(ctx, features[i]))) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(ctx));
            goto end;
        }
    }
    if (out_path && strcmp(out_path, "-") && !writable(out_path)) {
        fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, out_path, strerror(errno));
        goto end;
    }

    if ((skip_ref && (err = tvmaf_reader_skip(rd_ref, skip_ref, msg, sizeof(msg))) != 1) ||
        (skip_dis && (err = tvmaf_reader_skip(rd_dis, skip_dis, msg, sizeof(msg))) != 1)) {
        if (!err) snprintf(msg, sizeof(msg), "an input has fewer frames than it is asked to skip");
        fprintf(stderr, "%s: %s\n", app, msg);
        goto end;
    }

    /* both inputs are read ahead on threads of their own, at the same time;
     * when every feature reads luma only, chroma is passed over unread */
    if (tvmaf_luma_only(ctx)) {
        tvmaf_reader_set_luma_only(rd_ref, 1);
        tvmaf_reader_set_luma_only(rd_dis, 1);
    }
    const TvmafVideoFormat *vf = tvmaf_reader_format(rd_ref);
    size_t fbytes = (size_t)vf->w * vf->h * (vf->bpc > 8 ? 2 : 1) *
                    (vf->pix_fmt == TVMAF_PIX_FMT_YUV444P ? 3 :
                     vf->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 2 :
                     vf->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 1.5 : 1);
    unsigned ahead = (unsigned)(READ_AHEAD_BYTES / (fbytes ? fbytes : 1));
    ahead = ahead < 4 ? 4 : ahead > 64 ? 64 : ahead;
    /* On the CPU no device start-up is to be bridged: a frame is read in far
     * less time than it is scored, so a few frames per worker keep the pool
     * fed, and every frame read further ahead is a fresh picture buffer whose
     * pages the kernel must fault in and clear (a fifth of a 10-frame 1080p
     * run at one thread). */
    if (backend == TVMAF_BACKEND_CPU || !tvmaf_cuda_available()) {
        const unsigned cpu_ahead = (threads > 1 ? threads : 1) + 1;
        if (ahead > cpu_ahead) ahead = cpu_ahead;
    }
    if ((err = tvmaf_prefetch_start(&pf_ref, rd_ref, ahead, frame_cnt)) ||
        (err = tvmaf_prefetch_start(&pf_dis, rd_dis, ahead, frame_cnt))) {
        fprintf(stderr, "%s: cannot start reading: %s\n", app, strerror(-err));
        goto end;
    }

    const int show_progress = isatty(fileno(stderr)) && !quiet;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned n = 0;
    for (;; n++) {
        if (frame_cnt && n >= frame_cnt) break;
        TvmafPicture pr, pd;
        int r1 = tvmaf_prefetch_next(pf_ref, &pr, msg, sizeof(msg));
        if (r1 < 0) { fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", app, msg); goto end; }
        int r2 = tvmaf_prefetch_next(pf_dis, &pd, msg, sizeof(msg));
        if (r2 < 0) {
            if (r1 == 1) tvmaf_picture_unref(&pr);
            fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", app, msg);
            goto end;
        }
        if (!r1 || !r2) {
            if (r1) tvmaf_picture_unref(&pr);
            if (r2) tvmaf_picture_unref(&pd);
            if (r1 != r2 && n == 0) {
                fprintf(stderr, "%s: \"%s\" holds no frame\n", app, r1 ? path_dis : path_ref);
                goto end;
            }
            if (r1 != r2) {
                fprintf(stderr, "%s: \"%s\" ended after %u frame%s, before \"%s\"; "
                        "use --frame_cnt %u to score the common frames\n", app,
                        r1 ? path_dis : path_ref, n, n == 1 ? "" : "s",
                        r1 ? path_ref : path_dis, n);
                goto end;
            }
            break;
        }
        if ((err = tvmaf_read_pictures(ctx, &pr, &pd, n))) {
            fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", app, tvmaf_last_error(ctx));
            goto end;
        }
        if (show_progress && (n % 8 == 0)) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            const double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
            fprintf(stderr, "\r%u frame%s %.2f FPS\033[K", n + 1, n ? "s" : " ",
                    s > 0 ? (n + 1) / s : 0.0);
        }
    }
    if (show_progress) fprintf(stderr, "\n");
    if (!n) {
        fprintf(stderr, "%s: the inputs hold no frame to score\n", app);
        goto end;
    }
    if ((err = tvmaf_flush(ctx))) {
        fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(ctx));
        goto end;
    }
    if (!no_prediction) {
        for (unsigned i = 0; i < n_model_args; i++) {
            if ((err = tvmaf_score_model(ctx, models[i].model))) {
                fprintf(stderr, "%s: %s\n", app, tvmaf_model_last_error(models[i].model));
                goto end;
            }
        }
        /* pooled means, as libvmaf's vmaf prints them: every model, then
         * every collection's bagging score, interval and spread */
        if (isatty(fileno(stderr)) && (!quiet || !out_path)) {
            for (unsigned i = 0; i < n_model_args; i++) {
                double v;
                if (!tvmaf_feature_score_pooled(ctx, tvmaf_model_name(models[i].model),
                                                TVMAF_POOL_MEAN, &v, 0, n - 1))
                    fprintf(stderr, "%s: %f\n", model_label(&models[i]), v);
            }
            for (unsigned i = 0; i < n_model_args; i++) {
                /* a collection's statistics carry its name and a suffix */
                const char *cname = tvmaf_model_name(models[i].model);
                static const char *const suffix[4] = { "_bagging", "_ci_p95_lo", "_ci_p95_hi",
                                                       "_stddev" };
                double v[4];
                int bad = 0;
                for (unsigned k = 0; k < 4; k++) {
                    char key[512];
                    snprintf(key, sizeof(key), "%s%s", cname, suffix[k]);
                    bad |= tvmaf_feature_score_pooled(ctx, key, TVMAF_POOL_MEAN, &v[k], 0, n - 1);
                }
                if (!bad)
                    fprintf(stderr, "%s: %f, ci.p95: [%f, %f], stddev: %f\n",
                            model_label(&models[i]), v[0], v[1], v[2], v[3]);
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    const double fps = secs > 0 ? n / secs : 0.0;
    if (out_path) {
        /* opened only now: a failed run leaves an existing file untouched */
        out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
        if (!out) {
            fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, out_path, strerror(errno));
            goto end;
        }
        if ((err = tvmaf_write_output(ctx, out, ofmt, precision, fps, fr->w, fr->h))) {
            fprintf(stderr, "%s: writing \"%s\" failed\n", app, out_path);
            goto end;
        }
    }
    ret = 0;
end:
    if (out && out != stdout && fclose(out) && !ret) {
        fprintf(stderr, "%s: writing \"%s\" failed: %s\n", app, out_path, strerror(errno));
        ret = 1;
    }
    tvmaf_prefetch_stop(pf_ref);
    tvmaf_prefetch_stop(pf_dis);
    tvmaf_close(ctx);
    for (unsigned i = 0; i < n_model_args; i++) {
        tvmaf_model_destroy(models[i].model);
        free(models[i].buf);
    }
    tvmaf_reader_close(rd_ref);
    tvmaf_reader_close(rd_dis);
    return ret;
}
