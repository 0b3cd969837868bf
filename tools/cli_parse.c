/*
 * The command line, flag-compatible with libvmaf's `vmaf` but where its
 * behaviour is a trap for scripts (docs/cli.md lists the departures).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_parse.h"
#include "tvmaf/reader.h"
#include "numerics/rcpss.h"
#include "outputs.h"
#include "tvmaf_config.h"

/* Default of --max-memory: the input pictures in flight, both inputs. */
#define DEFAULT_MAX_MEMORY ((uint64_t)8 << 30)

enum {
    ARG_XML = 256, ARG_JSON, ARG_CSV, ARG_SUB, ARG_THREADS, ARG_FEATURE, ARG_SUBSAMPLE,
    ARG_CPUMASK, ARG_FRAME_CNT, ARG_SKIP_REF, ARG_SKIP_DIST, ARG_BACKEND, ARG_PRECISION,
    ARG_LIST, ARG_LIST_MODELS, ARG_HELP, ARG_RCPSS, ARG_ADM_DIV, ARG_GPU, ARG_PINNED,
    ARG_GPU_STATS, ARG_GPU_MEM_LIMIT, ARG_STRICT_FRAMES, ARG_MAX_MEMORY, ARG_REPORT, ARG_PLOT,
    ARG_SCALE, ARG_IGNORE_FPS, ARG_AOM_CTC, ARG_NFLX_CTC, ARG_GPUMASK, ARG_REF_ISA,
    ARG_BATCH, ARG_OUTPUT_DIR, ARG_JOBS, ARG_GPUS, ARG_REF_FORMAT, ARG_DIS_FORMAT,
    ARG_NO_SHARING, ARG_META, ARG_OPENCL_FP64,
};

/* What an option handler did with an option. */
enum { OPT_OK = 0, OPT_DONE = 1, OPT_NOT_MINE = 2, OPT_ERROR = -1 };

static const struct option long_opts[] = {
    { "reference", required_argument, NULL, 'r' },
    { "distorted", required_argument, NULL, 'd' },
    { "width", required_argument, NULL, 'w' },
    { "height", required_argument, NULL, 'h' },
    { "pixel_format", required_argument, NULL, 'p' },
    { "bitdepth", required_argument, NULL, 'b' },
    { "ref-format", required_argument, NULL, ARG_REF_FORMAT },
    { "dis-format", required_argument, NULL, ARG_DIS_FORMAT },
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
    { "list-models", no_argument, NULL, ARG_LIST_MODELS },
    { "help", no_argument, NULL, ARG_HELP },
    { "rcpss-fingerprint", no_argument, NULL, ARG_RCPSS },
    { "adm-div", required_argument, NULL, ARG_ADM_DIV },
    { "reference-isa", required_argument, NULL, ARG_REF_ISA },
    { "gpu", required_argument, NULL, ARG_GPU },
    { "pinned-pictures", no_argument, NULL, ARG_PINNED },
    { "opencl-fp64", required_argument, NULL, ARG_OPENCL_FP64 },
    { "gpu-stats", no_argument, NULL, ARG_GPU_STATS },
    { "gpu-mem-limit", required_argument, NULL, ARG_GPU_MEM_LIMIT },
    { "strict-frame-count", no_argument, NULL, ARG_STRICT_FRAMES },
    { "max-memory", required_argument, NULL, ARG_MAX_MEMORY },
    { "report", required_argument, NULL, ARG_REPORT },
    { "plot", required_argument, NULL, ARG_PLOT },
    { "meta", no_argument, NULL, ARG_META },
    { "scale", required_argument, NULL, ARG_SCALE },
    { "ignore_frame_rate", no_argument, NULL, ARG_IGNORE_FPS },
    { "aom_ctc", required_argument, NULL, ARG_AOM_CTC },
    { "nflx_ctc", required_argument, NULL, ARG_NFLX_CTC },
    { "gpumask", required_argument, NULL, ARG_GPUMASK },
    { "batch", required_argument, NULL, ARG_BATCH },
    { "output-dir", required_argument, NULL, ARG_OUTPUT_DIR },
    { "jobs", required_argument, NULL, ARG_JOBS },
    { "gpus", required_argument, NULL, ARG_GPUS },
    { "no-reference-sharing", no_argument, NULL, ARG_NO_SHARING },
    { NULL, 0, NULL, 0 },
};

static void usage_inputs(FILE *f)
{
    fprintf(f,
        "Inputs (.y4m is told from its header; any other file is decoded by FFmpeg,\n"
        "or read as raw planar YUV when its layout is given):\n"
        " --reference/-r PATH        reference video, or - for stdin\n"
        " --distorted/-d PATH        distorted video, or - for stdin\n"
        " --width/-w N, --height/-h N  raw YUV frame size (of every raw input)\n"
        " --pixel_format/-p 420|422|444|400  raw YUV layout\n"
        " --bitdepth/-b 8|10|12|16   raw YUV bit depth (16-bit little-endian samples above 8)\n"
        " --ref-format WxH:PIX:BITS  the reference alone is raw YUV of this layout, e.g.\n"
        " --dis-format WxH:PIX:BITS  1920x1080:420:8 (a raw input paired with an encoded one)\n"
        " --frame_skip_ref N, --frame_skip_dist N  skip the first N frames of an input\n"
        " --frame_cnt N              score at most N frames\n"
        " --subsample N              score every Nth frame\n"
        " --strict-frame-count       inputs of different lengths are an error (default: as\n"
        "                            libvmaf, the common frames are scored, with a warning)\n"
        " --max-memory N[K|M|G]      memory for the input pictures in flight (both inputs,\n"
        "                            read ahead and being scored; default 8G): inputs whose\n"
        "                            frames cannot fit are refused before any is read\n");
    if (*tvmaf_reader_scale_filters()) /* a build with FFmpeg */
        fprintf(f,
        " --scale FILTER             scale an encoded distorted video of another size to the\n"
        "                            reference's, as ffmpeg -vf scale=W:H:flags=FILTER does:\n"
        "                            bicubic (ffmpeg's default), bilinear, fast_bilinear,\n"
        "                            neighbor, area, bicublin, gauss, sinc, lanczos, spline,\n"
        "                            experimental\n"
        " --ignore_frame_rate        score streams whose frame rates differ (refused otherwise)\n");
    else
        fprintf(f, " (this build reads no encoded video: it was built without FFmpeg's libraries)\n");
}

static void usage_scoring(FILE *f)
{
    fprintf(f,
        "Scoring (the scores are the same bits whatever the backend, threads or SIMD level):\n"
        " --feature NAME[=opt=val:opt=val]  extractor to run (repeatable; NAME=help: its options)\n"
        " --model/-m PARAMS          VMAF model, colon-separated (repeatable):\n"
        "                            path=FILE or version=NAME (NAME.json found in\n"
        "                            $TVMAF_MODEL_PATH, then built in, then\n"
        "                            " TVMAF_DATADIR "),\n"
        "                            name=KEY (default vmaf), disable_clip, enable_transform,\n"
        "                            FEATURE.OPTION=VALUE (an option of a model's extractor);\n"
        "                            default: version=vmaf_v0.6.1 unless -n is given\n"
        " --no_prediction/-n         features only, no model score\n"
        " --backend cpu|cuda|opencl|auto  where to score (default auto: a GPU when one is\n"
        "                            usable, else the CPU)\n"
        " --threads N                CPU workers: frames scored in parallel, and a frame's work\n"
        "                            shared when a worker has no frame (default: the\n"
        "                            cores available; on a GPU backend the frames in flight)\n"
        " --cpumask MASK             SIMD levels to disable, libvmaf's bits (8 AVX2, 16 AVX-512)\n"
        " --aom_ctc v1.0..v7.0       AOM CTC preset, as libvmaf's: models vmaf_v0.6.1 (vmaf) and\n"
        "                            vmaf_v0.6.1neg (vmaf_neg); psnr, ciede, float_ssim,\n"
        "                            float_ms_ssim, psnr_hvs (with the preset's options); cambi\n"
        "                            from v3.0; float_ssim at scale=1 from v7.0\n"
        " --nflx_ctc v1.0            Netflix CTC preset: vmaf_4k_v0.6.1 (vmaf), vmaf_4k_v0.6.1neg\n"
        "                            (vmaf_neg); psnr (chroma, apsnr), float_ssim (dB), cambi\n"
        " --adm-div host|table|ieee  float_adm's division, for every instance (default host:\n"
        "                            this processor's reciprocal estimate, as libvmaf here)\n"
        " --reference-isa avx512|avx2|c  which libvmaf build adm reproduces where they differ,\n"
        "                            for every instance (default avx512, the goldens' host)\n");
}

static void usage_gpu(FILE *f)
{
    fprintf(f,
        "GPU backends:\n"
        " --gpu N                    device index (default 0): CUDA's device ordinal; for OpenCL\n"
        "                            the Nth GPU/CPU device over every platform, in the ICD\n"
        "                            loader's order (TVMAF_OPENCL_DEVICE_LIST=1 prints them)\n"
        " --pinned-pictures          read frames into page-locked memory, uploaded from there\n"
        " --gpu-stats                print device work per frame and device times to stderr\n"
        " --gpu-mem-limit BYTES      fail as out of memory past this much device memory\n"
        " --opencl-fp64 auto|on|off  take the device's fp64 as it is (auto), require it (on),\n"
        "                            or withhold it (off: as on a device without it; every\n"
        "                            OpenCL program is fp64-free, so every twin still runs)\n"
        " --gpumask MASK             libvmaf's GPU mask: 0 lets the GPU score (--backend auto),\n"
        "                            any other value keeps scoring on the CPU (--backend cpu)\n"
        " --gpus all|N,N,...         every listed device scores (a number twice: two contexts\n"
        "                            on that device): a batch's or a ladder's pairs are spread\n"
        "                            over them, one pair of files is split into a frame range\n"
        "                            per device; the same bits as one device\n"
        "Several pairs in one process (a failed pair is reported and the others go on;\n"
        "exit status 1 when any failed):\n"
        " -r REF -d DIS1 -d DIS2 ... a ladder: the reference is read once and scored against\n"
        "                            every distorted input\n"
        " --no-reference-sharing     a ladder's pairs each do the reference's work themselves\n"
        "                            (the same bits; to measure what sharing saves)\n"
        " --batch FILE               the pairs of a manifest: CSV with a header row (columns\n"
        "                            ref, dis, and optionally output, width, height, pix_fmt,\n"
        "                            bitdepth, model) or JSON lines with those keys; paths are\n"
        "                            relative to FILE's folder\n"
        " --jobs N                   manifest pairs scored at the same time (default 1, with\n"
        "                            --gpus the number of devices listed)\n"
        " --output-dir DIR           each pair's scores in DIR/NAME.xml (.json, .csv, .sub),\n"
        "                            NAME the distorted input's file name less its extension\n"
        " -o PATTERN                 with several pairs: %%d the pair's number (from 1; %%03d\n"
        "                            zero-padded), %%s the distorted input's name, %%%% a '%%'\n");
}

static void usage_output(FILE *f)
{
    fprintf(f,
        "Output:\n"
        " --output/-o PATH           write the per-frame scores to PATH (- for stdout)\n"
        " --xml, --json, --csv, --sub  its format (default: from PATH's extension .xml, .json,\n"
        "                            .csv or .sub, else XML); two different ones are an error\n"
        " --precision N|max          print numbers as %%.Ng (max: %%.17g, exact);\n"
        "                            default prints as libvmaf (%%.6f)\n"
        " --report FILE.html         also write an HTML report of every pair (one, a ladder,\n"
        "                            a batch): the encodes sorted by score, the rate-quality\n"
        "                            curve of encoded inputs, per-frame curves overlaid, the\n"
        "                            lowest frames with pictures, the settings that ran; one\n"
        "                            self-contained file (no script, offline, printable)\n"
        " --plot FILE.svg            also write its plots as one SVG image\n"
        " --meta                     beside each output (-o FILE), FILE.meta.json: the inputs,\n"
        "                            the distorted stream's bitrate, the settings that ran\n"
        "                            (tvmaf report reads it; the output itself is unchanged)\n"
        " --quiet/-q                 no progress line and no pooled scores\n"
        " The pooled model scores (\"vmaf_v0.6.1: 76.668905\") go to stdout, to stderr when\n"
        " -o - puts the per-frame scores there.\n"
        " --list-features [-v]       extractors and the backends they run on (-v: and their\n"
        "                            options)\n"
        " --list-models              the models -m version=NAME finds\n"
        " --rcpss-fingerprint        this processor's reciprocal-estimate fingerprint (float_adm)\n"
        " --version/-v, --help\n");
}

static void usage(FILE *f, const char *app)
{
    fprintf(f, "Usage: %s -r REF -d DIS [options]\n"
            "       %s report OUTPUT.json ... -o REPORT.html   (compare saved runs: %s report "
            "--help)\n\n", app, app, app);
    usage_inputs(f);
    usage_scoring(f);
    usage_gpu(f);
    usage_output(f);
    fprintf(f,
        "\nExamples:\n"
        " %s -r ref.mp4 -d dis.mp4\n"
        " %s -r ref_1080p.mp4 -d dis_720p.mp4 --scale bicubic -o scores.json\n"
        " %s -r ref.yuv -d dis.yuv -w 1920 -h 1080 -p 420 -b 8 -o out.json\n"
        " %s -r ref.y4m -d dis.y4m -m version=vmaf_4k_v0.6.1 --feature psnr --csv -o -\n"
        " %s -r ref.yuv --ref-format 1920x1080:420:8 -d dis.mkv\n"
        " ffmpeg -v error -i dis.mp4 -f yuv4mpegpipe - | %s -r ref.y4m -d - --json -o out.json\n"
        " %s --feature adm=help       the options of adm, their types, defaults and ranges\n"
        " %s -r ref.y4m -d 1080p.y4m -d 720p_up.y4m --json -o ladder_%%s.json\n"
        " %s --batch pairs.csv --json --output-dir scores --jobs 2\n"
        " %s --batch pairs.csv --json --output-dir scores --backend cuda --gpus all\n"
        " %s -r ref.mkv -d crf23.mkv -d crf28.mkv --meta -o %%s.json --report ladder.html\n",
        app, app, app, app, app, app, app, app, app, app, app);
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

/* "N", "NK", "NM", "NG" (binary multiples) into bytes, at least 1 MiB. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-') return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (*end || v > (UINT64_MAX >> shift) || (v << shift) < ((uint64_t)1 << 20)) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_pix_fmt(const char *app, const char *s, enum TvmafPixelFormat *fmt)
{
    if (!strcmp(s, "420")) *fmt = TVMAF_PIX_FMT_YUV420P;
    else if (!strcmp(s, "422")) *fmt = TVMAF_PIX_FMT_YUV422P;
    else if (!strcmp(s, "444")) *fmt = TVMAF_PIX_FMT_YUV444P;
    else if (!strcmp(s, "400")) *fmt = TVMAF_PIX_FMT_YUV400P;
    else {
        fprintf(stderr, "%s: invalid pixel format \"%s\" (420, 422, 444 or 400)\n", app, s);
        return -1;
    }
    return 0;
}

static int parse_bitdepth(const char *app, const char *s, unsigned *bpc)
{
    if (parse_uint(app, "--bitdepth", s, bpc, 1, 64)) return -1;
    if (*bpc != 8 && *bpc != 10 && *bpc != 12 && *bpc != 16) {
        fprintf(stderr, "%s: unsupported bit depth %u (supported: 8, 10, 12, 16)\n", app, *bpc);
        return -1;
    }
    return 0;
}

/* --ref-format / --dis-format WxH:PIX:BITS. */
static int parse_layout(const char *app, const char *opt, const char *s, TvmafVideoFormat *f)
{
    char w[16], h[16], pix[16], bits[16];
    int n = -1;
    if (sscanf(s, "%15[0-9]x%15[0-9]:%15[0-9]:%15[0-9]%n", w, h, pix, bits, &n) != 4 ||
        n != (int)strlen(s)) {
        fprintf(stderr, "%s: invalid value \"%s\" for %s (expected WIDTHxHEIGHT:PIX:BITS, "
                "e.g. 1920x1080:420:8)\n", app, s, opt);
        return -1;
    }
    if (parse_uint(app, opt, w, &f->w, 1, 65536) || parse_uint(app, opt, h, &f->h, 1, 65536) ||
        parse_pix_fmt(app, pix, &f->pix_fmt) || parse_bitdepth(app, bits, &f->bpc))
        return -1;
    return 0;
}

/* -r, -d, the raw layout, frame selection, memory, manifests. */
static int opt_inputs(CliOptions *o, int c, const char *arg, const char *app)
{
    Settings *s = &o->s;
    switch (c) {
    case 'r': o->path_ref = arg; return OPT_OK;
    case 'd':
        /* several: a ladder, every distorted input against the one reference */
        if (o->n_dis == MAX_DISTORTED) {
            fprintf(stderr, "%s: at most %d distorted inputs (--batch takes more)\n", app,
                    MAX_DISTORTED);
            return OPT_ERROR;
        }
        o->dis_paths[o->n_dis++] = arg;
        return OPT_OK;
    case 'w': return parse_uint(app, "--width", arg, &s->raw.w, 1, 65536);
    case 'h': return parse_uint(app, "--height", arg, &s->raw.h, 1, 65536);
    case 'p': return parse_pix_fmt(app, arg, &s->raw.pix_fmt);
    case 'b': return parse_bitdepth(app, arg, &s->raw.bpc);
    case ARG_REF_FORMAT: return parse_layout(app, "--ref-format", arg, &s->raw_ref);
    case ARG_DIS_FORMAT: return parse_layout(app, "--dis-format", arg, &s->raw_dis);
    case ARG_SUBSAMPLE: return parse_uint(app, "--subsample", arg, &s->subsample, 0, 1u << 30);
    case ARG_FRAME_CNT: return parse_uint(app, "--frame_cnt", arg, &s->frame_cnt, 0, ~0u);
    case ARG_SKIP_REF: return parse_uint(app, "--frame_skip_ref", arg, &s->skip_ref, 0, ~0u);
    case ARG_SKIP_DIST: return parse_uint(app, "--frame_skip_dist", arg, &s->skip_dis, 0, ~0u);
    case ARG_STRICT_FRAMES: s->strict_frames = 1; return OPT_OK;
    case ARG_SCALE: s->scale_filter = arg; return OPT_OK;
    case ARG_IGNORE_FPS: s->ignore_fps = 1; return OPT_OK;
    case ARG_MAX_MEMORY:
        if (!parse_size(arg, &s->max_memory)) return OPT_OK;
        fprintf(stderr, "%s: invalid value \"%s\" for --max-memory (bytes, or a number with "
                "K, M or G)\n", app, arg);
        return OPT_ERROR;
    case ARG_BATCH: o->batch_path = arg; return OPT_OK;
    case ARG_JOBS:
        o->jobs_given = 1;
        return parse_uint(app, "--jobs", arg, &o->jobs, 1, MAX_JOBS);
    }
    return OPT_NOT_MINE;
}

/* --feature NAME, or NAME=help: the extractor's options, nothing scored. */
static int opt_feature(CliOptions *o, const char *arg, const char *app)
{
    const char *eq = strchr(arg, '=');
    if (eq && !strcmp(eq + 1, "help")) {
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
        if (!cli_feature_help(stdout, name)) return OPT_DONE;
        fprintf(stderr, "%s: unknown feature \"%s\" (tvmaf --list-features lists them)\n", app,
                name);
        return OPT_ERROR;
    }
    if (o->s.n_features == MAX_FEATURES) {
        fprintf(stderr, "%s: at most %d --feature options\n", app, MAX_FEATURES);
        return OPT_ERROR;
    }
    o->features[o->s.n_features++] = arg;
    return OPT_OK;
}

static int opt_choice(const char *app, const char *opt, const char *arg, const char *const *ok,
                      const char *list)
{
    for (unsigned i = 0; ok[i]; i++)
        if (!strcmp(arg, ok[i])) return OPT_OK;
    fprintf(stderr, "%s: invalid value \"%s\" for %s (%s)\n", app, arg, opt, list);
    return OPT_ERROR;
}

/* Models, features, presets, where and how the scoring runs. */
static int opt_scoring(CliOptions *o, int c, const char *arg, const char *app)
{
    Settings *s = &o->s;
    static const char *const adm_div[] = { "host", "table", "ieee", "auto", NULL };
    static const char *const isas[] = { "avx512", "avx2", "c", NULL };
    char *end;
    switch (c) {
    case 'm':
        if (o->n_model_args == MAX_MODELS) {
            fprintf(stderr, "%s: at most %d models\n", app, MAX_MODELS);
            return OPT_ERROR;
        }
        if (model_arg_parse(app, arg, &o->models[o->n_model_args])) return OPT_ERROR;
        o->n_model_args++;
        o->n_models++;
        return OPT_OK;
    case 'n': s->no_prediction = 1; return OPT_OK;
    case ARG_FEATURE: return opt_feature(o, arg, app);
    case ARG_THREADS:
        o->threads_given = 1;
        return parse_uint(app, "--threads", arg, &s->threads, 0, 1024);
    case ARG_CPUMASK:
        errno = 0;
        s->cpumask = strtoull(arg, &end, 0);
        if (!errno && end != arg && !*end) return OPT_OK;
        fprintf(stderr, "%s: invalid value \"%s\" for --cpumask\n", app, arg);
        return OPT_ERROR;
    case ARG_ADM_DIV:
        if (opt_choice(app, "--adm-div", arg, adm_div, "host, table, ieee or auto")) return OPT_ERROR;
        snprintf(o->feature_defaults, sizeof(o->feature_defaults), "float_adm=adm_div=%s", arg);
        return OPT_OK;
    case ARG_REF_ISA:
        o->ref_isa = arg;
        return opt_choice(app, "--reference-isa", arg, isas, "avx512, avx2 or c");
    case ARG_AOM_CTC: return cli_preset(app, 0, arg, o);
    case ARG_NFLX_CTC: return cli_preset(app, 1, arg, o);
    case ARG_BACKEND:
        o->backend_given = 1;
        if (!tvmaf_backend_parse(arg, &s->backend)) return OPT_OK;
        fprintf(stderr, "%s: invalid backend \"%s\" (cpu, cuda, opencl or auto)\n", app, arg);
        return OPT_ERROR;
    case ARG_NO_SHARING: s->no_shared_reference = 1; return OPT_OK;
    }
    return OPT_NOT_MINE;
}

/* The GPU backends' devices and options. */
static int opt_gpu(CliOptions *o, int c, const char *arg, const char *app)
{
    Settings *s = &o->s;
    char *end;
    switch (c) {
    case ARG_GPU:
        o->gpu_given = 1;
        return parse_uint(app, "--gpu", arg, &s->gpu_index, 0, 1024);
    case ARG_GPUS: o->gpus_arg = arg; return OPT_OK;
    case ARG_PINNED: s->gpu_flags |= TVMAF_GPU_PINNED_PICTURES; return OPT_OK;
    case ARG_OPENCL_FP64: {
        /* in the order of enum TvmafOpenclFp64's values */
        static const char *const fp64[] = { "auto", "on", "off", NULL };
        _Static_assert(TVMAF_OPENCL_FP64_ON == 1 && TVMAF_OPENCL_FP64_OFF == 2, "fp64[]");
        for (unsigned i = 0; fp64[i]; i++)
            if (!strcmp(arg, fp64[i])) s->opencl_fp64 = (enum TvmafOpenclFp64)i;
        return opt_choice(app, "--opencl-fp64", arg, fp64, "auto, on or off");
    }
    case ARG_GPU_STATS: s->gpu_flags |= TVMAF_GPU_STATS; return OPT_OK;
    case ARG_GPU_MEM_LIMIT:
        errno = 0;
        s->gpu_mem_limit = strtoull(arg, &end, 0);
        if (!errno && end != arg && !*end && arg[0] != '-') return OPT_OK;
        fprintf(stderr, "%s: invalid value \"%s\" for --gpu-mem-limit (bytes)\n", app, arg);
        return OPT_ERROR;
    case ARG_GPUMASK:
        /* libvmaf: 0 (its default) lets the GPU extract, any other mask keeps
         * extraction on the CPU */
        return parse_uint(app, "--gpumask", arg, &o->gpumask, 0, ~0u);
    }
    return OPT_NOT_MINE;
}

/* --rcpss-fingerprint: float_adm divides through the processor's reciprocal
 * estimate, as the reference does; this tells whether this processor's
 * estimate is the goldens host's (then "host" reproduces the goldens). */
static void print_rcpss(void)
{
    char m[256] = "";
    const uint64_t fp = tvmaf_rcpss_host_fingerprint();
    const int mode = tvmaf_rcp_div_resolve(NULL, m, sizeof(m));
    printf("host %016llx\ngoldens %016llx\nmode %s\n", (unsigned long long)fp,
           (unsigned long long)TVMAF_RCPSS_GOLDENS_FINGERPRINT,
           mode >= 0 ? tvmaf_rcp_div_name(mode) : m);
}

/* One output format flag; two different ones are an error. */
static int opt_format(CliOptions *o, enum TvmafOutputFormat fmt, const char *app)
{
    static const char *const flag[] = { "--xml", "--json", "--csv", "--sub" };
    if (o->ofmt_given && o->s.ofmt != fmt) {
        fprintf(stderr, "%s: %s and %s both give the output format: give one\n", app,
                flag[o->s.ofmt], flag[fmt]);
        return OPT_ERROR;
    }
    o->ofmt_given = 1;
    o->s.ofmt = fmt;
    return OPT_OK;
}

/* Outputs and what prints instead of a run. */
static int opt_output(CliOptions *o, int c, const char *arg, const char *app)
{
    Settings *s = &o->s;
    unsigned p;
    switch (c) {
    case 'o': o->out_path = arg; return OPT_OK;
    case 'q': s->quiet = 1; return OPT_OK;
    case 'v': o->version = 1; return OPT_OK; /* with --list-features: verbose */
    case ARG_XML: return opt_format(o, TVMAF_OUTPUT_XML, app);
    case ARG_JSON: return opt_format(o, TVMAF_OUTPUT_JSON, app);
    case ARG_CSV: return opt_format(o, TVMAF_OUTPUT_CSV, app);
    case ARG_SUB: return opt_format(o, TVMAF_OUTPUT_SUB, app);
    case ARG_PRECISION:
        if (!strcmp(arg, "max")) {
            s->precision = 17;
            return OPT_OK;
        }
        if (parse_uint(app, "--precision", arg, &p, 1, 17)) return OPT_ERROR;
        s->precision = (int)p;
        return OPT_OK;
    case ARG_REPORT: s->report_path = arg; return OPT_OK;
    case ARG_PLOT: s->plot_path = arg; return OPT_OK;
    case ARG_META: s->meta = 1; return OPT_OK;
    case ARG_OUTPUT_DIR: o->out_dir = arg; return OPT_OK;
    case ARG_LIST: o->list_features = 1; return OPT_OK;
    case ARG_LIST_MODELS: o->list_models = 1; return OPT_OK;
    case ARG_HELP: usage(stdout, app); return OPT_DONE;
    case ARG_RCPSS: print_rcpss(); return OPT_DONE;
    }
    return OPT_NOT_MINE;
}

/* getopt's answer for an option it could not take. */
static void bad_option(int c, char **argv, const char *app)
{
    const char *opt = argv[optind - 1];
    if (c == ':' && !strcmp(opt, "-h"))
        fprintf(stderr, "%s: -h is the frame height (as in libvmaf's vmaf) and needs a value; "
                "--help prints the help\n", app);
    else if (c == ':')
        fprintf(stderr, "%s: option %s needs a value\n", app, opt);
    else
        fprintf(stderr, "%s: unknown option \"%s\" (see --help)\n", app, opt);
}

int cli_parse(int argc, char **argv, CliOptions *o)
{
    const char *app = "tvmaf";
    o->s.max_memory = DEFAULT_MAX_MEMORY;
    o->s.backend = TVMAF_BACKEND_AUTO;
    o->s.ofmt = TVMAF_OUTPUT_XML;
    o->jobs = 1;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:d:w:h:p:b:m:o:nvq", long_opts, NULL)) != -1) {
        int r = c == ':' || c == '?' ? OPT_ERROR : OPT_NOT_MINE;
        if (r == OPT_ERROR) bad_option(c, argv, app);
        if (r == OPT_NOT_MINE) r = opt_inputs(o, c, optarg, app);
        if (r == OPT_NOT_MINE) r = opt_scoring(o, c, optarg, app);
        if (r == OPT_NOT_MINE) r = opt_gpu(o, c, optarg, app);
        if (r == OPT_NOT_MINE) r = opt_output(o, c, optarg, app);
        if (r == OPT_NOT_MINE) {
            bad_option('?', argv, app);
            r = OPT_ERROR;
        }
        if (r) return r == OPT_DONE ? 1 : -1;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument \"%s\" (see --help)\n", app, argv[optind]);
        return -1;
    }
    return cli_settle(o, app);
}

void cli_free(CliOptions *o)
{
    model_args_free(o->models, o->n_model_args);
}
