/*
 * tvmaf: the command-line tool, flag-compatible with libvmaf's `vmaf`.
 */
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#include "io/ffmpeg_reader.h"
#include "io/prefetch.h"
#include "io/video_reader.h"
#include "manifest.h"

/* Each input is read ahead of scoring by up to READ_AHEAD_BYTES of
 * pictures (at least 4, at most 64 frames): enough to keep reading while
 * the first frame waits for the device to start up. */
#define READ_AHEAD_BYTES ((size_t)96 << 20)
#include "numerics/rcpss.h"

enum {
    ARG_XML = 256, ARG_JSON, ARG_CSV, ARG_SUB, ARG_THREADS, ARG_FEATURE, ARG_SUBSAMPLE,
    ARG_CPUMASK, ARG_FRAME_CNT, ARG_SKIP_REF, ARG_SKIP_DIST, ARG_BACKEND, ARG_PRECISION,
    ARG_LIST, ARG_HELP, ARG_RCPSS, ARG_ADM_DIV, ARG_GPU, ARG_PINNED, ARG_GPU_STATS,
    ARG_GPU_MEM_LIMIT, ARG_STRICT_FRAMES, ARG_MAX_MEMORY, ARG_REPORT, ARG_PLOT,
    ARG_SCALE, ARG_IGNORE_FPS, ARG_AOM_CTC, ARG_NFLX_CTC, ARG_GPUMASK, ARG_REF_ISA,
    ARG_BATCH, ARG_OUTPUT_DIR, ARG_JOBS, ARG_GPUS,
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
    { "reference-isa", required_argument, NULL, ARG_REF_ISA },
    { "gpu", required_argument, NULL, ARG_GPU },
    { "pinned-pictures", no_argument, NULL, ARG_PINNED },
    { "gpu-stats", no_argument, NULL, ARG_GPU_STATS },
    { "gpu-mem-limit", required_argument, NULL, ARG_GPU_MEM_LIMIT },
    { "strict-frame-count", no_argument, NULL, ARG_STRICT_FRAMES },
    { "max-memory", required_argument, NULL, ARG_MAX_MEMORY },
    { "report", required_argument, NULL, ARG_REPORT },
    { "plot", required_argument, NULL, ARG_PLOT },
    { "scale", required_argument, NULL, ARG_SCALE },
    { "ignore_frame_rate", no_argument, NULL, ARG_IGNORE_FPS },
    { "aom_ctc", required_argument, NULL, ARG_AOM_CTC },
    { "nflx_ctc", required_argument, NULL, ARG_NFLX_CTC },
    { "gpumask", required_argument, NULL, ARG_GPUMASK },
    { "batch", required_argument, NULL, ARG_BATCH },
    { "output-dir", required_argument, NULL, ARG_OUTPUT_DIR },
    { "jobs", required_argument, NULL, ARG_JOBS },
    { "gpus", required_argument, NULL, ARG_GPUS },
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
        "%s"
        "Scoring:\n"
        " --feature NAME[=opt=val:opt=val]  extractor to run (repeatable)\n"
        " --model/-m PARAMS          VMAF model, colon-separated (repeatable):\n"
        "                            path=FILE or version=NAME (NAME.json found in\n"
        "                            $TVMAF_MODEL_PATH, then built in, then\n"
        "                            " TVMAF_DATADIR "),\n"
        "                            name=KEY (default vmaf), disable_clip, enable_transform,\n"
        "                            FEATURE.OPTION=VALUE (an option of a model's extractor);\n"
        "                            default: version=vmaf_v0.6.1 unless -n is given\n"
        " --no_prediction/-n         features only, no model score\n"
        " --backend cpu|cuda|opencl|auto  where to run (default auto: CUDA when a GPU is usable,\n"
        "                            else OpenCL when a device is, else the CPU)\n"
        " --threads N                frames scored in parallel (same bits as 1 thread; default 1,\n"
        "                            on a GPU backend min(cores, 8) frames in flight)\n"
        " --subsample N              score every Nth frame\n"
        " --frame_cnt N              score at most N frames\n"
        " --frame_skip_ref N, --frame_skip_dist N  skip the first N frames of an input\n"
        " --strict-frame-count       inputs of different lengths are an error (default: as\n"
        "                            libvmaf, the common frames are scored, with a warning)\n"
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
        "                            for every instance (default avx512, the goldens' host)\n"
        "GPU backends:\n"
        " --gpu N                    device index (default 0): CUDA's device ordinal; for OpenCL\n"
        "                            the Nth GPU/CPU device over every platform, in the ICD\n"
        "                            loader's order (TVMAF_OPENCL_DEVICE_LIST=1 prints them)\n"
        " --pinned-pictures          read frames into page-locked memory, uploaded from there\n"
        " --gpu-stats                print device work per frame and device times to stderr\n"
        " --gpu-mem-limit BYTES      fail as out of memory past this much device memory\n"
        " --max-memory N[K|M|G]      memory for the input pictures in flight (both inputs,\n"
        "                            read ahead and being scored; default 8G): inputs whose\n"
        "                            frames cannot fit are refused before any is read\n"
        " --gpumask MASK             libvmaf's GPU mask: 0 lets the GPU score (--backend auto),\n"
        "                            any other value keeps scoring on the CPU (--backend cpu)\n"
        " --gpus all|N,N,...         every listed device of the GPU backend scores (a number\n"
        "                            twice: two contexts on that device): a batch's or a\n"
        "                            ladder's pairs are spread over them (--jobs defaults to\n"
        "                            the list's length; a pair per device at a time, handed\n"
        "                            out as devices free up), and one pair of files is split\n"
        "                            into a frame range per device, each range primed with\n"
        "                            warm-up frames, the scores joined in frame order before\n"
        "                            the models: the same bits as one device. Not with\n"
        "                            --backend cpu (use --threads/--jobs) or --gpu\n"
        "Several pairs in one process (one device for all; a failed pair is reported and\n"
        "the others go on; exit status 1 when any failed):\n"
        " -r REF -d DIS1 -d DIS2 ... a ladder: the reference is read once and scored against\n"
        "                            every distorted input (concurrently with a GPU backend\n"
        "                            or --threads N)\n"
        " --batch FILE               the pairs of a manifest: CSV with a header row (columns\n"
        "                            ref, dis, and optionally output, width, height, pix_fmt,\n"
        "                            bitdepth, model) or JSON lines with those keys; paths are\n"
        "                            relative to FILE's folder; the other options apply to\n"
        "                            every pair, a row's own values win\n"
        " --jobs N                   manifest pairs scored at the same time (default 1, with\n"
        "                            --gpus the number of devices listed)\n"
        " --output-dir DIR           each pair's scores in DIR/NAME.xml (.json, .csv, .sub),\n"
        "                            NAME the distorted input's file name less its extension\n"
        " -o PATTERN                 with several pairs: %%d the pair's number (from 1; %%03d\n"
        "                            zero-padded), %%s the distorted input's name, %%%% a '%%'\n"
        "Output:\n"
        " --output/-o PATH           write scores to PATH (- for stdout)\n"
        " --xml (default), --json, --csv, --sub  output format\n"
        " --precision N|max          print numbers as %%.Ng (max: %%.17g, exact);\n"
        "                            default prints as libvmaf (%%.6f)\n"
        " --report FILE.html         also write an HTML report: per-frame plots, pooled\n"
        "                            values, worst frames, settings (no script, offline)\n"
        " --plot FILE.svg            also write the per-frame plots as one SVG image\n"
        " --quiet/-q                 no progress line\n"
        " --list-features [-v]       extractors and the backends they run on (-v: and their\n"
        "                            options; --feature NAME=help: one extractor's options)\n"
        " --rcpss-fingerprint        this processor's reciprocal-estimate fingerprint (float_adm)\n"
        " --version/-v, --help\n"
        "\nExamples:\n"
        " %s -r ref.yuv -d dis.yuv -w 1920 -h 1080 -p 420 -b 8 --json -o out.json\n"
        " %s -r ref.y4m -d dis.y4m -m version=vmaf_4k_v0.6.1 --feature psnr --csv -o -\n"
        "   (Y4M gives its own size and format: no -w/-h/-p/-b)\n"
        " encoded video, decoded by ffmpeg into a pipe (bash process substitution;\n"
        " -vf scale brings the distorted video to the reference size):\n"
        " %s -r <(ffmpeg -v error -i ref.mp4 -f yuv4mpegpipe -) \\\n"
        "      -d <(ffmpeg -v error -i dis.mp4 -vf scale=1920:1080 -f yuv4mpegpipe -) --json -o -\n"
        " ffmpeg -v error -i dis.mp4 -f yuv4mpegpipe - | %s -r ref.y4m -d - --json -o out.json\n"
        " %s --feature adm=help       the options of adm, their types, defaults and ranges\n"
        " %s -r ref.y4m -d 1080p.y4m -d 720p_up.y4m --json -o ladder_%%s.json\n"
        " %s --batch pairs.csv --json --output-dir scores --jobs 2\n"
        " %s --batch pairs.csv --json --output-dir scores --backend cuda --gpus all\n"
        " %s -r long_ref.y4m -d long_dis.y4m --backend cuda --gpus 0,1,2,3 --json -o out.json\n",
        app, tvmaf_ff_available() ?
        "Encoded input (any other file, when -w/-h/-p/-b are not given; decoded by FFmpeg,\n"
        "the frames `ffmpeg -i FILE -f rawvideo` writes):\n"
        " --scale FILTER             scale a distorted video of another size to the reference's,\n"
        "                            as ffmpeg -vf scale=W:H:flags=FILTER does; FILTER is one of\n"
        "                            bicubic (ffmpeg's default), bilinear, fast_bilinear, neighbor,\n"
        "                            area, bicublin, gauss, sinc, lanczos, spline, experimental\n"
        " --ignore_frame_rate        score streams whose frame rates differ (refused otherwise)\n"
        : "(this build reads no encoded video: it was built without FFmpeg's libraries)\n",
        app, app, app, app, app, app, app, app, app);
}

/* A number as short as it can be printed and still read back exactly. */
static void put_short(FILE *f, double v)
{
    char buf[64];
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, sizeof(buf), "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

/* The backends extractor `name` runs on ("cpu cuda"). */
static const char *backends_of(const char *name)
{
    for (unsigned i = 0; i < tvmaf_feature_count(); i++)
        if (!strcmp(tvmaf_feature_name(i), name)) return tvmaf_feature_backends(i);
    return "";
}

/* The options of extractor `name`, one paragraph each (--feature NAME=help,
 * --list-features -v). Returns -ENOENT for an unknown extractor. */
static int describe_options(FILE *f, const char *name)
{
    const int n = tvmaf_feature_option(name, 0, NULL);
    if (n < 0) return n;
    if (!n) {
        fprintf(f, "  (no options)\n");
        return 0;
    }
    for (int j = 0; j < n; j++) {
        TvmafFeatureOptionInfo o;
        tvmaf_feature_option(name, (unsigned)j, &o);
        fprintf(f, "  %-24s %-6s default ", o.name, o.type);
        if (!strcmp(o.type, "string")) {
            fprintf(f, "\"%s\"", o.def_string);
        } else if (!strcmp(o.type, "bool")) {
            fputs(o.def ? "true" : "false", f);
        } else {
            put_short(f, o.def);
            fputs(", range [", f);
            put_short(f, o.min);
            fputs(", ", f);
            if (o.max >= DBL_MAX) fputs("inf", f); else put_short(f, o.max);
            fputs("]", f);
        }
        fprintf(f, "\n      %s\n", o.help);
    }
    return 0;
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

/* Default of --max-memory: the input pictures in flight, both inputs. */
#define DEFAULT_MAX_MEMORY ((uint64_t)8 << 30)

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

/* Whether `out` names the same regular file as the input `in` ("-": the
 * file stdin is redirected from): the scores would replace the input. */
static int same_file(const char *out, const char *in)
{
    struct stat so, si;
    if (stat(out, &so) || (strcmp(in, "-") ? stat(in, &si) : fstat(STDIN_FILENO, &si))) return 0;
    return S_ISREG(so.st_mode) && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}

/* Writes the scores to the regular file `path` (st: its status, NULL when
 * it does not exist yet) through a temporary file beside it; `shown` names
 * it in messages. */
static int write_scores_replacing(const char *app, const char *path, const char *shown,
                                  const struct stat *st, TvmafContext *ctx,
                                  enum TvmafOutputFormat ofmt, int precision, double fps,
                                  unsigned w, unsigned h)
{
    const char *out_path = shown;
    const int exists = st != NULL;
    char tmp[4096];
    const char *slash = strrchr(path, '/');
    const int dlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp-XXXXXX", dlen, path,
                 slash ? slash + 1 : path) >= (int)sizeof(tmp)) {
        fprintf(stderr, "%s: output path \"%s\" is too long\n", app, out_path);
        return 1;
    }
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot write \"%s\": cannot create a file beside it: %s\n", app,
                out_path, strerror(errno));
        return 1;
    }
    /* the mode a plain fopen() would give: the existing file's, else 0666 less the umask */
    mode_t mode;
    if (exists) {
        mode = st->st_mode & 07777;
    } else {
        const mode_t um = umask(022);
        umask(um);
        mode = 0666 & ~um;
    }
    FILE *f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
    int e = f ? 0 : errno;
    if (f) {
        errno = 0;
        if (tvmaf_write_output(ctx, f, ofmt, precision, fps, w, h))
            e = errno ? errno : EIO;
        else if (fsync(fileno(f)))
            e = errno;
        if (fclose(f) && !e) e = errno ? errno : EIO;
    } else {
        close(fd);
    }
    if (!e && rename(tmp, path)) e = errno;
    if (e) {
        unlink(tmp);
        fprintf(stderr, "%s: writing \"%s\" failed: %s%s\n", app, out_path, strerror(e),
                exists ? " (the existing file is unchanged)" : "");
        return 1;
    }
    return 0;
}

/*
 * Writes the scores to out_path ("-": stdout). A regular file (or a new one)
 * is written to a temporary file beside it that replaces it by rename() only
 * once complete, flushed and synced: a failure (disk full, file size limit)
 * leaves an existing file as it was and no partial file. Anything else
 * (/dev/null, a pipe) is written in place. Prints one line and returns
 * non-zero on failure.
 */
static int write_scores(const char *app, const char *out_path, TvmafContext *ctx,
                        enum TvmafOutputFormat ofmt, int precision, double fps,
                        unsigned w, unsigned h)
{
    if (!strcmp(out_path, "-")) {
        errno = 0;
        const int err = tvmaf_write_output(ctx, stdout, ofmt, precision, fps, w, h);
        const int e = errno;
        if (err || fflush(stdout) || ferror(stdout)) {
            fprintf(stderr, "%s: writing the scores to stdout failed: %s\n", app,
                    e ? strerror(e) : errno ? strerror(errno) : "write error");
            return 1;
        }
        return 0;
    }
    struct stat st;
    const int exists = !stat(out_path, &st);
    if (exists && !S_ISREG(st.st_mode)) {
        FILE *f = fopen(out_path, "w");
        if (!f) {
            fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, out_path, strerror(errno));
            return 1;
        }
        errno = 0;
        int err = tvmaf_write_output(ctx, f, ofmt, precision, fps, w, h);
        int e = errno;
        if (fclose(f) && !err) { err = -1; e = errno; }
        if (err) {
            fprintf(stderr, "%s: writing \"%s\" failed: %s\n", app, out_path,
                    e ? strerror(e) : "write error");
            return 1;
        }
        return 0;
    }
    /* a symbolic link is written through: the file it names is replaced */
    char *real = exists ? realpath(out_path, NULL) : NULL;
    const int rc = write_scores_replacing(app, real ? real : out_path, out_path, exists ? &st : NULL,
                                          ctx, ofmt, precision, fps, w, h);
    free(real);
    return rc;
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

static int parse_model_arg_fields(const char *app, const char *arg, ModelArg *m);

/* Parses one -m argument; on failure m owns nothing. */
static int parse_model_arg(const char *app, const char *arg, ModelArg *m)
{
    const int err = parse_model_arg_fields(app, arg, m);
    if (err) {
        free(m->buf);
        m->buf = NULL;
    }
    return err;
}

static int parse_model_arg_fields(const char *app, const char *arg, ModelArg *m)
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

/* -w/-h/-p/-b describe raw YUV; a Y4M input's header gives its format. A
 * value that contradicts the header is refused (libvmaf would read the Y4M
 * file as raw YUV with them). Returns -1 after printing the error. */
static int check_y4m_flags(const char *app, const char *path, const TvmafVideoReader *r,
                           const TvmafVideoFormat *given)
{
    if (!tvmaf_reader_is_y4m(r)) return 0;
    const TvmafVideoFormat *f = tvmaf_reader_format(r);
    char bad[160] = "";
    size_t n = 0;
    if (given->w && given->w != f->w)
        n += snprintf(bad + n, sizeof(bad) - n, "%s-w %u", n ? ", " : "", given->w);
    if (given->h && given->h != f->h)
        n += snprintf(bad + n, sizeof(bad) - n, "%s-h %u", n ? ", " : "", given->h);
    if (given->pix_fmt && given->pix_fmt != f->pix_fmt)
        n += snprintf(bad + n, sizeof(bad) - n, "%s-p %s", n ? ", " : "",
                      given->pix_fmt == TVMAF_PIX_FMT_YUV420P ? "420" :
                      given->pix_fmt == TVMAF_PIX_FMT_YUV422P ? "422" :
                      given->pix_fmt == TVMAF_PIX_FMT_YUV444P ? "444" : "400");
    if (given->bpc && given->bpc != f->bpc)
        n += snprintf(bad + n, sizeof(bad) - n, "%s-b %u", n ? ", " : "", given->bpc);
    if (!n) return 0;
    const int is_stdin = !strcmp(path, "-");
    fprintf(stderr, "%s: %s%s%s is Y4M and its header says %ux%u %s %u-bit, not %s "
            "(-w/-h/-p/-b describe raw YUV: leave them out for Y4M input)\n", app,
            is_stdin ? "" : "\"", is_stdin ? "standard input" : path, is_stdin ? "" : "\"",
            f->w, f->h,
            tvmaf_pix_fmt_name(f->pix_fmt), f->bpc, bad);
    return -1;
}

/* Frees the buffers of the -m arguments parsed so far (for the exits
 * before any model is loaded); returns rc. */
static int free_model_args(ModelArg *m, unsigned n, int rc)
{
    for (unsigned i = 0; i < n; i++) free(m[i].buf);
    return rc;
}

/* What the model is called in messages: its version, else its path. */
static const char *model_label(const ModelArg *m)
{
    return m->version ? m->version : m->path;
}

/* libvmaf's CLI presets (--aom_ctc, --nflx_ctc): the models and features each
 * version registers, appended after what came before on the command line. */
typedef struct Preset {
    const char *features[MAX_FEATURES];
    unsigned *n_features;
    ModelArg *models;
    unsigned *n_models;
} Preset;

static int preset_model(const char *app, Preset *p, const char *spec)
{
    if (*p->n_models == MAX_MODELS) {
        fprintf(stderr, "%s: at most %d models\n", app, MAX_MODELS);
        return -1;
    }
    if (parse_model_arg(app, spec, &p->models[*p->n_models])) return -1;
    (*p->n_models)++;
    return 0;
}

/* Appends a feature, or with replace, takes the place of the one of the same
 * extractor name (as libvmaf's v7.0 does for float_ssim). */
static int preset_feature(const char *app, const char **features, unsigned *n, const char *spec,
                          int replace)
{
    const size_t len = strcspn(spec, "=");
    for (unsigned i = 0; replace && i < *n; i++) {
        if (strcspn(features[i], "=") == len && !strncmp(features[i], spec, len)) {
            features[i] = spec;
            return 0;
        }
    }
    if (*n == MAX_FEATURES) {
        fprintf(stderr, "%s: at most %d --feature options\n", app, MAX_FEATURES);
        return -1;
    }
    features[(*n)++] = spec;
    return 0;
}

static int apply_aom_ctc(const char *app, const char *version, const char **features,
                         unsigned *n_features, ModelArg *models, unsigned *n_models,
                         int *common_bitdepth)
{
    static const char *const versions[] = { "v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0" };
    int v = -1;
    for (int i = 0; i < 7; i++)
        if (!strcmp(version, versions[i])) v = i + 1;
    if (!strcmp(version, "proposed")) {
        fprintf(stderr, "%s: --aom_ctc proposed is deprecated (use v1.0 to v7.0)\n", app);
        return -1;
    }
    if (v < 0) {
        fprintf(stderr, "%s: bad aom_ctc version \"%s\" (v1.0 to v7.0)\n", app, version);
        return -1;
    }
    Preset p = { .n_features = n_features, .models = models, .n_models = n_models };
    if (preset_model(app, &p, "version=vmaf_v0.6.1:name=vmaf") ||
        preset_model(app, &p, "version=vmaf_v0.6.1neg:name=vmaf_neg") ||
        preset_feature(app, features, n_features,
                       "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", 0) ||
        preset_feature(app, features, n_features, "ciede", 0) ||
        preset_feature(app, features, n_features, "float_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, features, n_features, "float_ms_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, features, n_features, "psnr_hvs", 0))
        return -1;
    if (v >= 3 && preset_feature(app, features, n_features, "cambi", 0)) return -1;
    if (v >= 6) *common_bitdepth = 1;
    if (v >= 7 && preset_feature(app, features, n_features,
                                 "float_ssim=scale=1:enable_db=true:clip_db=true", 1))
        return -1;
    return 0;
}

static int apply_nflx_ctc(const char *app, const char *version, const char **features,
                          unsigned *n_features, ModelArg *models, unsigned *n_models)
{
    if (strcmp(version, "v1.0")) {
        fprintf(stderr, "%s: bad nflx_ctc version \"%s\" (v1.0)\n", app, version);
        return -1;
    }
    Preset p = { .n_features = n_features, .models = models, .n_models = n_models };
    if (preset_model(app, &p, "version=vmaf_4k_v0.6.1:name=vmaf") ||
        preset_model(app, &p, "version=vmaf_4k_v0.6.1neg:name=vmaf_neg") ||
        preset_feature(app, features, n_features, "psnr=enable_chroma=true:enable_apsnr=true", 0) ||
        preset_feature(app, features, n_features, "float_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, features, n_features, "cambi", 0))
        return -1;
    return 0;
}

/* The ranges after the first set up once the first has (so a refusal is said
 * once, by the first). */
typedef struct SplitGate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state; /* 0 waiting, 1 the first range is set up, -1 it failed */
} SplitGate;

static void gate_signal(SplitGate *g, int ok)
{
    pthread_mutex_lock(&g->lock);
    if (!g->state) g->state = ok ? 1 : -1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

static int gate_wait(SplitGate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->state) pthread_cond_wait(&g->cond, &g->lock);
    const int ok = g->state > 0;
    pthread_mutex_unlock(&g->lock);
    return ok;
}

/* ---- running pairs ------------------------------------------------------- */

/* Distorted inputs of one ladder (-d repeated). */
#define MAX_DISTORTED 256
/* Devices of --gpus, pairs of a batch at a time (--jobs). */
#define MAX_GPUS 64
#define MAX_JOBS 64

/* What every pair of a run shares: the command line's settings (a manifest
 * row may replace the raw layout and the models). */
typedef struct Settings {
    TvmafVideoFormat raw; /* -w/-h/-p/-b, zeros where not given */
    unsigned threads, subsample, frame_cnt, skip_ref, skip_dis;
    enum TvmafOutputFormat ofmt;
    enum TvmafBackend backend;
    int precision, quiet, no_prediction, strict_frames, ignore_fps, common_bitdepth;
    const char *const *features;
    unsigned n_features;
    const ModelArg *models; /* parsed -m arguments, the default model when none was given */
    unsigned n_models;
    unsigned n_models_given;
    int scoring;            /* a feature or a model to score (not -n alone) */
    uint64_t cpumask, max_memory;
    unsigned gpu_index, gpu_flags;
    unsigned long long gpu_mem_limit;
    const char *feature_defaults;
    const char *report_path, *plot_path, *scale_filter;
    int batch;              /* a manifest's pair: no progress line, no scores on the terminal */
    const unsigned *gpus;   /* --gpus: the devices, n_gpus of them (0: --gpu alone) */
    unsigned n_gpus;
    /* a frame range of a split pair (run_split): its number from 1 (0: a
     * whole pair), the context's warm-up and range frames; run_group leaves
     * such a pair's context unflushed and open for run_split */
    unsigned segment, warmup, range;
    struct SplitGate *gate;
} Settings;

/* Warm-up frames of every frame range of a split pair after the first: the
 * most any temporal extractor asks for (tvmaf_warmup_frames_needed(); motion's
 * five-frame window needs 4), checked per run. */
#define SPLIT_WARMUP 4u
/* The warm-up the ranges get: SPLIT_WARMUP, or for the split test's negative
 * control TVMAF_TEST_SPLIT_WARMUP=N (too few frames then, unchecked: the test
 * shows the joined scores then differ). Sets *checked to whether the run
 * checks the registered features' needs against it. */
static unsigned split_warmup(int *checked)
{
    const char *e = getenv("TVMAF_TEST_SPLIT_WARMUP");
    *checked = !e;
    return e ? (unsigned)strtoul(e, NULL, 10) : SPLIT_WARMUP;
}

/* The shortest range a device is given when a pair is split. */
#define SPLIT_MIN_FRAMES 16u

/* One distorted input scored against the reference of its group. */
typedef struct Pair {
    char label[4200];       /* what its messages start with ("tvmaf", "tvmaf: list.csv:3") */
    const char *path_dis, *out_path;
    TvmafModel *model[MAX_MODELS]; /* this pair's copies of the settings' models */
    TvmafVideoReader *rd_dis;
    TvmafPrefetch *pf_dis;
    TvmafContext *ctx;
    unsigned n;             /* frames submitted */
    int live;               /* still takes frames */
    int failed;
    const char *ended, *longer; /* inputs of different lengths */
    int depth_warned;
    unsigned gpu;           /* its device (gpu_index) */
    int ladder;             /* one of several pairs sharing the reference */
} Pair;

static void pair_fail(Pair *p)
{
    p->failed = 1;
    p->live = 0;
}

/* The distorted input's checks against the reference, then its context, its
 * models and features, and its outputs' checks: everything before the first
 * frame. Prints one line and returns -1 on failure. */
static int pair_setup(const Settings *s, Pair *p, const char *path_ref,
                      TvmafVideoReader *rd_ref)
{
    const char *app = p->label;
    char msg[1024] = "";
    int err;
    if ((s->raw.w || s->raw.h || s->raw.pix_fmt || s->raw.bpc) && tvmaf_reader_is_y4m(rd_ref) &&
        tvmaf_reader_is_y4m(p->rd_dis) && s->segment <= 1)
        fprintf(stderr, "%s: warning: -w/-h/-p/-b are ignored: both inputs are Y4M, whose "
                "headers give the size and format\n", app);
    const TvmafVideoFormat *fr = tvmaf_reader_format(rd_ref), *fd = tvmaf_reader_format(p->rd_dis);
    {
        /* encoded inputs: same frame rate, or the user says to go on */
        int nr, dr, nd, dd;
        tvmaf_reader_frame_rate(rd_ref, &nr, &dr);
        tvmaf_reader_frame_rate(p->rd_dis, &nd, &dd);
        if (!s->ignore_fps && dr && dd && (int64_t)nr * dd != (int64_t)nd * dr) {
            fprintf(stderr, "%s: the reference (%d/%d fps) and the distorted (%d/%d fps) differ in "
                    "frame rate, so their frames do not line up; --ignore_frame_rate scores them "
                    "frame by frame anyway\n", app, nr, dr, nd, dd);
            return -1;
        }
    }
    if ((fr->w != fd->w || fr->h != fd->h) && s->scale_filter) {
        if (tvmaf_reader_set_scale(p->rd_dis, fr->w, fr->h, s->scale_filter, msg, sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", app, msg);
            return -1;
        }
        fd = tvmaf_reader_format(p->rd_dis);
    } else if ((fr->w != fd->w || fr->h != fd->h) && tvmaf_reader_is_encoded(p->rd_dis) &&
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
    if (fr->w != fd->w || fr->h != fd->h || fr->pix_fmt != fd->pix_fmt || fr->bpc != fd->bpc) {
        fprintf(stderr, "%s: reference (%ux%u %s %u-bit) and distorted (%ux%u %s %u-bit) "
                "differ in size or format\n", app, fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc,
                fd->w, fd->h, tvmaf_pix_fmt_name(fd->pix_fmt), fd->bpc);
        return -1;
    }

    TvmafConfiguration cfg = {
        .n_threads = s->threads, .n_subsample = s->subsample, .backend = s->backend,
        .log_level = TVMAF_LOG_WARNING, .cpumask = s->cpumask,
        .gpu_index = p->gpu,
        .gpu_flags = s->gpu_flags | (p->ladder ? TVMAF_GPU_SHARED_REFERENCE : 0),
        .gpu_mem_limit = (size_t)s->gpu_mem_limit,
        .warmup_frames = s->warmup, .range_frames = s->range,
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
            if ((err = tvmaf_model_feature_overload(p->model[i], m->ov[j].feature, m->ov[j].opt,
                                                    m->ov[j].val))) {
                fprintf(stderr, "%s: -m %s: %s\n", app, model_label(m),
                        tvmaf_model_last_error(p->model[i]));
                return -1;
            }
        }
        if ((err = tvmaf_use_model(p->ctx, p->model[i]))) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_model_last_error(p->model[i]));
            return -1;
        }
    }
    for (unsigned i = 0; i < s->n_features; i++) {
        if ((err = tvmaf_use_feature(p->ctx, s->features[i]))) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p->ctx));
            return -1;
        }
    }
    int checked;
    const unsigned warmup = split_warmup(&checked);
    if (s->segment && checked && tvmaf_warmup_frames_needed(p->ctx) > warmup) {
        fprintf(stderr, "%s: a feature of this run keeps state from frame to frame that "
                "cannot be rebuilt from %u earlier frames, so its frames cannot be split "
                "over devices: give --gpus one device\n", app, warmup);
        return -1;
    }
    const char *out_path = p->out_path;
    if (out_path && strcmp(out_path, "-") && !writable(out_path)) {
        fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, out_path, strerror(errno));
        return -1;
    }
    if (out_path && (same_file(out_path, path_ref) || same_file(out_path, p->path_dis))) {
        fprintf(stderr, "%s: -o \"%s\" is the %s input; the scores would overwrite it\n", app,
                out_path, same_file(out_path, path_ref) ? "reference" : "distorted");
        return -1;
    }
    const char *reports[2] = { s->report_path, s->plot_path };
    for (unsigned i = 0; i < 2; i++) {
        if (reports[i] && (!strcmp(reports[i], "-") || !writable(reports[i]))) {
            fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, reports[i],
                    strcmp(reports[i], "-") ? strerror(errno) : "the report needs a file");
            return -1;
        }
    }
    return 0;
}

/* Once per pair and run: a sample above the declared bit depth. */
static void warn_depth(Pair *p, const char *path_ref, TvmafVideoReader *rd_ref,
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

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) + 1e-9 * (t1.tv_nsec - t0->tv_nsec);
}

/* After the last frame of a pair has been flushed: the models' scores, the
 * pooled means on the terminal, the output and the reports. `tag` prefixes
 * the pooled means when several pairs print theirs. */
static int pair_finish(const Settings *s, Pair *p, const char *path_ref,
                       const TvmafVideoFormat *fr, const struct timespec *t0, const char *tag)
{
    const char *app = p->label;
    const unsigned n = p->n;
    int err;
    if (p->ended) /* libvmaf's words */
        fprintf(stderr, "\"%s\" ended before \"%s\".\n", p->ended, p->longer);
    if (!s->no_prediction) {
        for (unsigned i = 0; i < s->n_models; i++) {
            if ((err = tvmaf_score_model(p->ctx, p->model[i]))) {
                fprintf(stderr, "%s: %s\n", app, tvmaf_model_last_error(p->model[i]));
                return -1;
            }
        }
        /* pooled means, as libvmaf's vmaf prints them: every model, then
         * every collection's bagging score, interval and spread */
        if (!s->batch && isatty(fileno(stderr)) && (!s->quiet || !p->out_path)) {
            for (unsigned i = 0; i < s->n_models; i++) {
                double v;
                if (!tvmaf_feature_score_pooled(p->ctx, tvmaf_model_name(p->model[i]),
                                                TVMAF_POOL_MEAN, &v, 0, n - 1))
                    fprintf(stderr, "%s%s%s: %f\n", tag ? tag : "", tag ? ": " : "",
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
                    fprintf(stderr, "%s%s%s: %f, ci.p95: [%f, %f], stddev: %f\n", tag ? tag : "",
                            tag ? ": " : "", model_label(&s->models[i]), v[0], v[1], v[2], v[3]);
            }
        }
    }
    const double secs = seconds_since(t0);
    /* with nothing scored libvmaf's timer never starts: its fps is inf */
    const double fps = !s->scoring ? INFINITY : secs > 0 ? n / secs : 0.0;
    if (p->out_path && write_scores(app, p->out_path, p->ctx, s->ofmt, s->precision, fps,
                                    fr->w, fr->h))
        return -1;
    const char *reports[2] = { s->report_path, s->plot_path };
    for (unsigned i = 0; i < 2; i++) {
        if (!reports[i]) continue;
        char fmtdesc[128], thr[32], sub[32], prec[32], models_s[1024] = "", feats[2048] = "";
        snprintf(fmtdesc, sizeof(fmtdesc), "%ux%u %s %u-bit", fr->w, fr->h,
                 tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc);
        snprintf(thr, sizeof(thr), "%u", s->threads);
        snprintf(sub, sizeof(sub), "%u", s->subsample ? s->subsample : 1);
        snprintf(prec, sizeof(prec), s->precision == 17 ? "max (%%.17g)" : s->precision ? "%%.%dg" : "default (libvmaf's %%.6f)", s->precision);
        const char *model_keys[MAX_MODELS + 1] = { NULL };
        for (unsigned m = 0; !s->no_prediction && m < s->n_models; m++) {
            model_keys[m] = tvmaf_model_name(p->model[m]);
            size_t l = strlen(models_s);
            snprintf(models_s + l, sizeof(models_s) - l, "%s%s (%s)", m ? ", " : "",
                     model_label(&s->models[m]), model_keys[m]);
        }
        for (unsigned k = 0; k < s->n_features; k++) {
            size_t l = strlen(feats);
            snprintf(feats + l, sizeof(feats) - l, "%s%s", k ? ", " : "", s->features[k]);
        }
        const char *backend_s = s->backend == TVMAF_BACKEND_CPU ? "cpu" :
                                s->backend == TVMAF_BACKEND_CUDA ? "cuda" :
                                s->backend == TVMAF_BACKEND_OPENCL ? "opencl" : "auto";
        const char *settings[] = {
            "reference", path_ref, "distorted", p->path_dis, "input", fmtdesc,
            "models", s->no_prediction ? "none (-n)" : models_s,
            "features", s->n_features ? feats : "none",
            "backend", backend_s, "threads", thr, "subsample", sub, "precision", prec, NULL,
        };
        const TvmafReportConfig rcfg = {
            .settings = settings, .models = model_keys, .precision = s->precision,
        };
        FILE *rf = fopen(reports[i], "w");
        int rerr = rf ? tvmaf_write_report(p->ctx, rf, i ? TVMAF_REPORT_SVG : TVMAF_REPORT_HTML,
                                           &rcfg) : -errno;
        if (rf && fclose(rf) && !rerr) rerr = -errno;
        if (rerr) {
            fprintf(stderr, "%s: writing \"%s\" failed: %s\n", app, reports[i], strerror(-rerr));
            return -1;
        }
    }
    return 0;
}

static unsigned count_live(const Pair *pairs, unsigned np)
{
    unsigned k = 0;
    for (unsigned i = 0; i < np; i++) k += pairs[i].live;
    return k;
}

/*
 * Scores `np` distorted inputs against one reference, `label` starting the
 * messages that concern the reference. The reference is read once: each of
 * its pictures is shared (tvmaf_picture_ref) by the contexts of every pair,
 * which score at the same time (on a GPU backend they share the device). A
 * pair that fails is reported and the others go on. With one pair this is
 * the plain tvmaf command. Returns the number of pairs that failed.
 */
static unsigned run_group(const Settings *s, const char *label, const char *path_ref,
                          Pair *pairs, unsigned np)
{
    char msg[1024] = "";
    TvmafVideoReader *rd_ref = NULL;
    TvmafPrefetch *pf_ref = NULL;
    int err;
    const TvmafVideoFormat *raw = s->raw.w && s->raw.h && s->raw.bpc && s->raw.pix_fmt ? &s->raw
                                                                                      : NULL;
    /* the reference's pictures go to the device once for all pairs
     * (TVMAF_NO_SHARED_REFERENCE=1: once per pair, to measure the gain) */
    const char *no_share = getenv("TVMAF_NO_SHARED_REFERENCE");
    const int ladder = np > 1 && !(no_share && !strcmp(no_share, "1"));
    for (unsigned i = 0; i < np; i++) {
        pairs[i].live = 1;
        pairs[i].ladder = ladder;
    }
    if (s->gate && s->segment > 1 && !gate_wait(s->gate)) {
        for (unsigned i = 0; i < np; i++) pair_fail(&pairs[i]); /* the first said why */
        return np;
    }

    if ((err = tvmaf_reader_open(&rd_ref, path_ref, raw, msg, sizeof(msg)))) {
        fprintf(stderr, "%s: %s\n", label, msg);
        goto fail_all;
    }
    for (unsigned i = 0; i < np; i++) {
        Pair *p = &pairs[i];
        if ((err = tvmaf_reader_open(&p->rd_dis, p->path_dis, raw, msg, sizeof(msg)))) {
            fprintf(stderr, "%s: %s\n", p->label, msg);
            pair_fail(p);
        }
    }
    if (check_y4m_flags(label, path_ref, rd_ref, &s->raw)) goto fail_all;
    for (unsigned i = 0; i < np; i++) {
        Pair *p = &pairs[i];
        if (p->live && (check_y4m_flags(p->label, p->path_dis, p->rd_dis, &s->raw) ||
                        pair_setup(s, p, path_ref, rd_ref)))
            pair_fail(p);
    }
    if (s->gate && s->segment == 1) gate_signal(s->gate, count_live(pairs, np) > 0);
    if (!count_live(pairs, np)) goto end;

    if (s->skip_ref && (err = tvmaf_reader_skip(rd_ref, s->skip_ref, msg, sizeof(msg))) != 1) {
        if (!err) snprintf(msg, sizeof(msg), "an input has fewer frames than it is asked to skip");
        fprintf(stderr, "%s: %s\n", label, msg);
        goto fail_all;
    }
    for (unsigned i = 0; i < np && s->skip_dis; i++) {
        Pair *p = &pairs[i];
        if (p->live && (err = tvmaf_reader_skip(p->rd_dis, s->skip_dis, msg, sizeof(msg))) != 1) {
            if (!err) snprintf(msg, sizeof(msg), "an input has fewer frames than it is asked to skip");
            fprintf(stderr, "%s: %s\n", p->label, msg);
            pair_fail(p);
        }
    }

    /* every input is read ahead on a thread of its own, all at the same time;
     * when every feature reads luma only, chroma is passed over unread (the
     * pairs of a group register the same features) */
    int luma_only = !s->scoring;
    for (unsigned i = 0; i < np; i++)
        if (pairs[i].live && s->scoring) { luma_only = tvmaf_luma_only(pairs[i].ctx); break; }
    const unsigned n_live = count_live(pairs, np);
    if (!n_live) goto end;
    if (luma_only) {
        tvmaf_reader_set_luma_only(rd_ref, 1);
        for (unsigned i = 0; i < np; i++)
            if (pairs[i].live) tvmaf_reader_set_luma_only(pairs[i].rd_dis, 1);
    }
    const TvmafVideoFormat *fr = tvmaf_reader_format(rd_ref);
    size_t fbytes = (size_t)fr->w * fr->h * (fr->bpc > 8 ? 2 : 1) *
                    (fr->pix_fmt == TVMAF_PIX_FMT_YUV444P ? 3 :
                     fr->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 2 :
                     fr->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 1.5 : 1);
    /* Pictures of one input in flight: the read-ahead queue, the one being
     * read, and those being scored (one per worker). An input whose frames
     * cannot fit even with one frame read ahead is refused now, before a
     * picture is allocated: a header can claim a size its data never fills.
     * The memory is shared by the inputs: the reference and each distorted. */
    const unsigned n_inputs = n_live + 1;
    const uint64_t in_use = (s->threads ? s->threads : 1) + 1;
    const uint64_t per_input = s->max_memory / n_inputs / (fbytes ? fbytes : 1);
    if (per_input < in_use + 1) {
        fprintf(stderr, "%s: %ux%u %s %u-bit frames (%.1f MiB each) need about %.0f MiB of "
                "memory with --threads %u%s, above the --max-memory limit of %.0f MiB\n", label,
                fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc, fbytes / 1048576.0,
                (double)n_inputs * (in_use + 1) * fbytes / 1048576.0, s->threads ? s->threads : 1,
                n_live > 1 ? " and this many distorted inputs" : "", s->max_memory / 1048576.0);
        goto fail_all;
    }
    uint64_t ahead_max = per_input - in_use;
    unsigned ahead = (unsigned)(READ_AHEAD_BYTES / (fbytes ? fbytes : 1));
    ahead = ahead < 4 ? 4 : ahead > 64 ? 64 : ahead;
    if (ahead > ahead_max) ahead = (unsigned)ahead_max;
    /* On the CPU no device start-up is to be bridged: a frame is read in far
     * less time than it is scored, so a few frames per worker keep the pool
     * fed, and every frame read further ahead is a fresh picture buffer whose
     * pages the kernel must fault in and clear (a fifth of a 10-frame 1080p
     * run at one thread). */
    if (s->backend == TVMAF_BACKEND_CPU || !tvmaf_cuda_available()) {
        const unsigned cpu_ahead = (s->threads > 1 ? s->threads : 1) + 1;
        if (ahead > cpu_ahead) ahead = cpu_ahead;
    }
    if ((err = tvmaf_prefetch_start(&pf_ref, rd_ref, ahead, s->frame_cnt))) {
        if (err == -ENOMEM)
            fprintf(stderr, "%s: out of memory allocating the read-ahead queues (%u frames)\n",
                    label, ahead);
        else
            fprintf(stderr, "%s: cannot start reading: %s\n", label, strerror(-err));
        goto fail_all;
    }
    for (unsigned i = 0; i < np; i++) {
        Pair *p = &pairs[i];
        if (!p->live) continue;
        if ((err = tvmaf_prefetch_start(&p->pf_dis, p->rd_dis, ahead, s->frame_cnt))) {
            if (err == -ENOMEM)
                fprintf(stderr, "%s: out of memory allocating the read-ahead queues (%u frames)\n",
                        p->label, ahead);
            else
                fprintf(stderr, "%s: cannot start reading: %s\n", p->label, strerror(-err));
            pair_fail(p);
        }
    }

    const int show_progress = !s->batch && isatty(fileno(stderr)) && !s->quiet;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned n = 0; count_live(pairs, np); n++) {
        if (s->frame_cnt && n >= s->frame_cnt) break;
        TvmafPicture pr;
        const int r1 = tvmaf_prefetch_next(pf_ref, &pr, msg, sizeof(msg));
        if (r1 < 0) {
            fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", label, msg);
            goto fail_all;
        }
        for (unsigned i = 0; i < np; i++) {
            Pair *p = &pairs[i];
            if (!p->live) continue;
            TvmafPicture pd;
            const int r2 = tvmaf_prefetch_next(p->pf_dis, &pd, msg, sizeof(msg));
            if (r2 < 0) {
                fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", p->label, msg);
                pair_fail(p);
                continue;
            }
            if (!r1 || !r2) {
                if (r2) tvmaf_picture_unref(&pd);
                p->live = 0;
                if (r1 != r2 && n == 0) {
                    fprintf(stderr, "%s: \"%s\" holds no frame\n", p->label,
                            r1 ? p->path_dis : path_ref);
                    pair_fail(p);
                } else if (r1 != r2 && s->strict_frames) {
                    fprintf(stderr, "%s%s: \"%s\" ended after %u frame%s, before \"%s\"; "
                            "use --frame_cnt %u to score the common frames\n",
                            show_progress ? "\n" : "", p->label, r1 ? p->path_dis : path_ref, n,
                            n == 1 ? "" : "s", r1 ? path_ref : p->path_dis, n);
                    pair_fail(p);
                } else if (r1 != r2) {
                    /* libvmaf scores the common frames and says which input ended */
                    p->ended = r1 ? p->path_dis : path_ref;
                    p->longer = r1 ? path_ref : p->path_dis;
                }
                continue;
            }
            if (!s->scoring) {
                tvmaf_picture_unref(&pd);
            } else {
                /* each context holds its own reference to the shared picture */
                TvmafPicture ref_pic;
                tvmaf_picture_ref(&ref_pic, &pr);
                if ((err = tvmaf_read_pictures(p->ctx, &ref_pic, &pd, n))) {
                    fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", p->label,
                            tvmaf_last_error(p->ctx));
                    pair_fail(p);
                    continue;
                }
            }
            p->n = n + 1;
            if (!p->depth_warned && s->segment <= 1)
                warn_depth(p, path_ref, rd_ref, fr, show_progress && n);
        }
        if (r1) tvmaf_picture_unref(&pr);
        if (!r1) break;
        if (show_progress && (n % 8 == 0))  {
            const double sec = seconds_since(&t0);
            fprintf(stderr, "\r%u frame%s %.2f FPS\033[K", n + 1, n ? "s" : " ",
                    sec > 0 ? (n + 1) / sec : 0.0);
        }
    }
    unsigned n_max = 0;
    for (unsigned i = 0; i < np; i++) {
        Pair *p = &pairs[i];
        if (p->failed) continue;
        if (!p->n) {
            fprintf(stderr, "%s: the inputs hold no frame to score\n", p->label);
            pair_fail(p);
        } else if (s->segment) {
            /* run_split joins the ranges, then flushes */
        } else if (s->scoring && (err = tvmaf_flush(p->ctx))) {
            fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", p->label,
                    tvmaf_last_error(p->ctx));
            pair_fail(p);
        } else if (p->n > n_max) {
            n_max = p->n;
        }
    }
    if (show_progress && n_max) {
        /* the last line gives the number of frames scored */
        const double sec = seconds_since(&t0);
        fprintf(stderr, "\r%u frame%s %.2f FPS\033[K\n", n_max, n_max > 1 ? "s" : " ",
                sec > 0 ? n_max / sec : 0.0);
    }
    for (unsigned i = 0; i < np && !s->segment; i++) {
        Pair *p = &pairs[i];
        if (!p->failed && pair_finish(s, p, path_ref, fr, &t0, np > 1 ? p->path_dis : NULL))
            pair_fail(p);
    }
    goto end;

fail_all:
    for (unsigned i = 0; i < np; i++) pair_fail(&pairs[i]);
end:
    if (s->gate && s->segment == 1) gate_signal(s->gate, 0); /* no-op once set up */
    tvmaf_prefetch_stop(pf_ref);
    unsigned failed = 0;
    for (unsigned i = 0; i < np; i++) {
        Pair *p = &pairs[i];
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
    tvmaf_reader_close(rd_ref);
    return failed;
}

/* ---- one pair over several devices (--gpus) ------------------------------- */

/* Frames an input holds after `skip` frames: counted from the file's size for
 * raw YUV, else by reading past them (Y4M headers, encoded input). -1 when it
 * cannot be read (the plain run that follows says why). */
static int64_t count_frames(const char *path, const TvmafVideoFormat *raw,
                            unsigned skip, TvmafVideoFormat *fmt)
{
    char msg[1024] = "";
    TvmafVideoReader *r = NULL;
    int64_t n = -1;
    if (tvmaf_reader_open(&r, path, raw, msg, sizeof(msg))) goto end;
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

typedef struct Segment {
    const Settings *s;
    const char *path_ref;
    Pair *p;
    unsigned failed;
} Segment;

static void *segment_main(void *arg)
{
    Segment *g = arg;
    g->failed = run_group(g->s, g->p->label, g->path_ref, g->p, 1);
    return NULL;
}

/*
 * One pair scored on every device of s->gpus: the common frames [0, N) are
 * cut into one consecutive range per device (on the subsample grid), each
 * scored by a context of its own on its device. A range after the first
 * starts SPLIT_WARMUP frames early and every range but the last reads one
 * frame past its end: those frames only rebuild and finish the temporal
 * extractors' state (motion's blurred planes, its minimum of consecutive
 * scores, the last frame's motion2), their outputs are discarded
 * (TvmafConfiguration's warmup_frames and range_frames). The ranges' scores
 * are then joined in frame order into the first context
 * (tvmaf_append_scores), which computes the models, the pooled values and
 * the aggregates over every frame: the bits of a run on one device.
 * Inputs that cannot be read twice (pipes, stdin) or too few frames for two
 * ranges run on the first device as a plain pair. Returns the exit status.
 */
static int run_split(const Settings *s, const char *app, const char *path_ref,
                     const char *path_dis, const char *out_path)
{
    const TvmafVideoFormat *raw = s->raw.w && s->raw.h && s->raw.bpc && s->raw.pix_fmt ? &s->raw
                                                                                      : NULL;
    Pair plain = { .path_dis = path_dis, .out_path = out_path, .gpu = s->gpus[0] };
    snprintf(plain.label, sizeof(plain.label), "%s", app);
    struct stat st;
    const int files = strcmp(path_ref, "-") && strcmp(path_dis, "-") &&
                      !stat(path_ref, &st) && S_ISREG(st.st_mode) &&
                      !stat(path_dis, &st) && S_ISREG(st.st_mode);
    TvmafVideoFormat fr = { 0 }, fd = { 0 };
    const int64_t n_ref = files && s->scoring ? count_frames(path_ref, raw, s->skip_ref, &fr) : -1;
    const int64_t n_dis = n_ref >= 0 ? count_frames(path_dis, raw, s->skip_dis, &fd) : -1;
    int64_t n = n_ref < n_dis ? n_ref : n_dis;
    if (s->frame_cnt && n > s->frame_cnt) n = s->frame_cnt;
    const unsigned sub = s->subsample > 1 ? s->subsample : 1;
    /* the ranges: K devices, each at least SPLIT_MIN_FRAMES, starts on the
     * subsample grid */
    unsigned k_max = s->n_gpus, bounds[MAX_GPUS + 1], k = 0;
    if (n > 0 && (uint64_t)n / SPLIT_MIN_FRAMES < k_max) k_max = (unsigned)(n / SPLIT_MIN_FRAMES);
    bounds[0] = 0;
    for (unsigned i = 1; i < k_max; i++) {
        unsigned a = (unsigned)((uint64_t)n * i / k_max);
        a -= a % sub;
        if (a >= bounds[k] + SPLIT_MIN_FRAMES && a + SPLIT_MIN_FRAMES <= n) bounds[++k] = a;
    }
    const int same_fmt = fr.w == fd.w && fr.h == fd.h && fr.pix_fmt == fd.pix_fmt &&
                         fr.bpc == fd.bpc;
    const unsigned n_seg = n > 0 && same_fmt ? k + 1 : 0;
    if (n_seg < 2) {
        if (!files && s->scoring)
            fprintf(stderr, "%s: note: --gpus scores one pair on %u devices by reading its "
                    "frames in ranges, which a pipe does not allow: scoring it on device %u\n",
                    app, s->n_gpus, s->gpus[0]);
        const unsigned failed = run_group(s, app, path_ref, &plain, 1);
        return failed ? 1 : 0;
    }
    bounds[n_seg] = (unsigned)n;
    const int lengths_differ = n_ref != n_dis && (!s->frame_cnt || s->frame_cnt > n);
    if (lengths_differ && s->strict_frames) {
        fprintf(stderr, "%s: \"%s\" ended after %u frame%s, before \"%s\"; use --frame_cnt %u "
                "to score the common frames\n", app, n_ref < n_dis ? path_ref : path_dis,
                (unsigned)n, n == 1 ? "" : "s", n_ref < n_dis ? path_dis : path_ref, (unsigned)n);
        return 1;
    }

    Settings seg[MAX_GPUS];
    SplitGate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    Pair *pairs = calloc(n_seg, sizeof(*pairs));
    Segment g[MAX_GPUS];
    pthread_t th[MAX_GPUS];
    int rc = 1;
    if (!pairs) {
        fprintf(stderr, "%s: out of memory\n", app);
        return 1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned started = 0;
    for (unsigned i = 0; i < n_seg; i++) {
        const unsigned a = bounds[i], b = bounds[i + 1];
        int checked;
        const unsigned warm = i ? split_warmup(&checked) : 0, ahead = i + 1 < n_seg ? 1 : 0;
        seg[i] = *s;
        seg[i].segment = i + 1;
        seg[i].warmup = warm;
        seg[i].range = b - a;
        seg[i].skip_ref = s->skip_ref + a - warm;
        seg[i].skip_dis = s->skip_dis + a - warm;
        seg[i].frame_cnt = warm + (b - a) + ahead;
        seg[i].max_memory = s->max_memory / n_seg;
        seg[i].batch = 1; /* no progress line */
        seg[i].gate = &gate;
        Pair *p = &pairs[i];
        snprintf(p->label, sizeof(p->label), "%s", app);
        p->path_dis = path_dis;
        p->out_path = i ? NULL : out_path;
        p->gpu = s->gpus[i];
        g[i] = (Segment){ &seg[i], path_ref, p, 0 };
    }
    for (; started < n_seg; started++)
        if (pthread_create(&th[started], NULL, segment_main, &g[started])) break;
    if (started < n_seg) fprintf(stderr, "%s: cannot start a thread per device\n", app);
    unsigned failed = started < n_seg;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        failed += g[i].failed;
    }
    /* join the ranges in frame order into the first range's context */
    Pair *p0 = &pairs[0];
    for (unsigned i = 1; !failed && i < n_seg; i++) {
        Pair *p = &pairs[i];
        if (tvmaf_flush(p->ctx)) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p->ctx));
            failed = 1;
        } else if (tvmaf_append_scores(p0->ctx, p->ctx)) {
            fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p0->ctx));
            failed = 1;
        }
    }
    if (!failed && tvmaf_flush(p0->ctx)) {
        fprintf(stderr, "%s: %s\n", app, tvmaf_last_error(p0->ctx));
        failed = 1;
    }
    if (!failed) {
        p0->n = (unsigned)n;
        if (lengths_differ) { /* libvmaf's words, as a plain run says them */
            p0->ended = n_ref < n_dis ? path_ref : path_dis;
            p0->longer = n_ref < n_dis ? path_dis : path_ref;
        }
        failed = pair_finish(s, p0, path_ref, &fr, &t0, NULL) != 0;
    }
    rc = failed ? 1 : 0;
    for (unsigned i = 0; i < n_seg; i++) {
        tvmaf_close(pairs[i].ctx);
        for (unsigned m = 0; m < s->n_models; m++) tvmaf_model_destroy(pairs[i].model[m]);
    }
    free(pairs);
    return rc;
}

/* ---- output names of several pairs --------------------------------------- */

/* The distorted input's file name without its folder and last extension. */
static void dis_stem(char *out, size_t len, const char *dis)
{
    if (!strcmp(dis, "-")) {
        snprintf(out, len, "stdin");
        return;
    }
    const char *b = strrchr(dis, '/');
    b = b ? b + 1 : dis;
    const char *dot = strrchr(b, '.');
    const int n = dot && dot != b ? (int)(dot - b) : (int)strlen(b);
    snprintf(out, len, "%.*s", n, b);
}

/* -o PATTERN for pair `index` (from 1) of distorted input `dis`: %d (or
 * %0Nd) the index, %s the distorted input's stem, %% a '%'. Returns -1 with
 * a message for a pattern it does not take. */
static int expand_output(char *out, size_t len, const char *pattern, unsigned index,
                         const char *dis, char *msg, size_t msg_len)
{
    size_t o = 0;
    for (const char *c = pattern; *c; c++) {
        char piece[4200];
        if (*c != '%') {
            piece[0] = *c;
            piece[1] = '\0';
        } else if (c[1] == '%') {
            snprintf(piece, sizeof(piece), "%%");
            c++;
        } else if (c[1] == 's') {
            dis_stem(piece, sizeof(piece), dis);
            c++;
        } else {
            unsigned width = 0;
            const char *d = c + 1;
            int zero = *d == '0';
            while (*d >= '0' && *d <= '9' && width < 100) width = width * 10 + (unsigned)(*d++ - '0');
            if (*d != 'd') {
                snprintf(msg, msg_len, "-o \"%s\": '%%' starts %%d, %%0Nd (the pair's number), %%s "
                         "(the distorted input's name) or %%%% (a '%%')", pattern);
                return -1;
            }
            snprintf(piece, sizeof(piece), zero ? "%0*u" : "%*u", (int)width, index);
            c = d;
        }
        const size_t pl = strlen(piece);
        if (o + pl + 1 > len) {
            snprintf(msg, msg_len, "-o \"%s\": the name is too long", pattern);
            return -1;
        }
        memcpy(out + o, piece, pl + 1);
        o += pl;
    }
    return 0;
}

/* Where pair `index` (from 1) of distorted input `dis` writes its scores,
 * when its manifest row does not say: --output-dir DIR (DIR/STEM.EXT) or -o
 * PATTERN. Returns 0 with out[0] == '\0' when neither is given. */
static int pair_output(char *out, size_t len, const char *pattern, const char *dir,
                       enum TvmafOutputFormat ofmt, unsigned index, const char *dis, char *msg,
                       size_t msg_len)
{
    static const char *const ext[] = { [TVMAF_OUTPUT_XML] = "xml", [TVMAF_OUTPUT_JSON] = "json",
                                       [TVMAF_OUTPUT_CSV] = "csv", [TVMAF_OUTPUT_SUB] = "sub" };
    out[0] = '\0';
    if (dir) {
        char stem[4096];
        dis_stem(stem, sizeof(stem), dis);
        if (snprintf(out, len, "%s/%s.%s", dir, stem, ext[ofmt]) >= (int)len) {
            snprintf(msg, msg_len, "--output-dir: the name is too long");
            return -1;
        }
        return 0;
    }
    if (pattern) return expand_output(out, len, pattern, index, dis, msg, msg_len);
    return 0;
}

/* ---- manifests (--batch) ------------------------------------------------- */

typedef struct Batch {
    const Settings *s;
    const char *manifest;
    ManifestEntry *rows;
    char **outputs;          /* each row's output path */
    unsigned n;
    atomic_uint next;        /* the next row to take */
    atomic_uint failed;      /* rows that failed while running */
    unsigned char *row_failed;
} Batch;

/* Scores manifest row i on device `gpu`: its own raw layout and models over
 * the settings. */
static void batch_row(Batch *b, unsigned i, unsigned gpu)
{
    const ManifestEntry *e = &b->rows[i];
    Settings rs = *b->s;
    ModelArg margs[MAX_MODELS];
    unsigned n_margs = 0;
    Pair *p = calloc(1, sizeof(*p));
    char label[4200];
    snprintf(label, sizeof(label), "tvmaf: %s:%u", b->manifest, e->line);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", label);
        goto failed;
    }
    if (e->w) rs.raw.w = e->w;
    if (e->h) rs.raw.h = e->h;
    if (e->bpc) rs.raw.bpc = e->bpc;
    if (e->pix_fmt) rs.raw.pix_fmt = e->pix_fmt;
    if (e->models) {
        /* the row's models replace the command line's */
        char *list = strdup(e->models), *rest = list, *one;
        if (!list) { fprintf(stderr, "%s: out of memory\n", label); goto failed; }
        int bad = 0;
        while (!bad && (one = strsep(&rest, ";"))) {
            if (!*one) continue;
            if (n_margs == MAX_MODELS) {
                fprintf(stderr, "%s: at most %d models\n", label, MAX_MODELS);
                bad = 1;
            } else if (parse_model_arg(label, one, &margs[n_margs])) {
                bad = 1;
            } else {
                n_margs++;
            }
        }
        free(list);
        for (unsigned a = 0; !bad && a < n_margs; a++)
            for (unsigned c = a + 1; !bad && c < n_margs; c++)
                if (!strcmp(margs[a].name, margs[c].name)) {
                    fprintf(stderr, "%s: two models are named \"%s\"; each model needs its own "
                            "name (name=NAME)\n", label, margs[a].name);
                    bad = 1;
                }
        if (bad) goto failed;
        rs.models = margs;
        rs.n_models = rs.n_models_given = n_margs;
        rs.scoring = rs.n_features || n_margs;
    }
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->path_dis = e->dis;
    p->out_path = b->outputs[i];
    p->gpu = gpu;
    if (run_group(&rs, label, e->ref, p, 1)) goto failed;
    free(p);
    free_model_args(margs, n_margs, 0);
    return;
failed:
    free(p);
    free_model_args(margs, n_margs, 0);
    b->row_failed[i] = 1;
    atomic_fetch_add(&b->failed, 1);
}

/* A worker takes the next row whenever it is free: with --gpus each worker
 * has one device, so a device that finishes early takes more pairs. */
typedef struct BatchWorker {
    Batch *b;
    unsigned gpu;
} BatchWorker;

static void *batch_worker(void *arg)
{
    const BatchWorker *bw = arg;
    Batch *b = bw->b;
    for (;;) {
        const unsigned i = atomic_fetch_add(&b->next, 1);
        if (i >= b->n) break;
        if (!b->row_failed[i]) batch_row(b, i, bw->gpu);
    }
    return NULL;
}

/* One line at the end of a batch: how many pairs, how many failed and which. */
static void batch_summary(unsigned n, unsigned failed, const char *what, const unsigned *ids,
                          unsigned n_ids)
{
    fprintf(stderr, "tvmaf: batch: %u pair%s, %u scored, %u failed", n, n == 1 ? "" : "s",
            n - failed, failed);
    if (failed) {
        fprintf(stderr, " (%s", what);
        for (unsigned i = 0; i < n_ids && i < 20; i++) fprintf(stderr, "%s%u", i ? ", " : " ", ids[i]);
        fprintf(stderr, "%s)", n_ids > 20 ? ", ..." : "");
    }
    fprintf(stderr, "\n");
}

/* --batch FILE: every row of the manifest, `jobs` at a time. Returns the
 * exit status. */
static int run_batch(const Settings *s, const char *manifest, const char *pattern,
                     const char *out_dir, unsigned jobs)
{
    char msg[1024] = "";
    ManifestEntry *rows;
    unsigned n;
    if (manifest_read(manifest, &rows, &n, msg, sizeof(msg))) {
        fprintf(stderr, "tvmaf: %s\n", msg);
        return 1;
    }
    Batch b = { .s = s, .manifest = manifest, .rows = rows, .n = n };
    b.outputs = calloc(n, sizeof(*b.outputs));
    b.row_failed = calloc(n, 1);
    unsigned *ids = calloc(n, sizeof(*ids));
    int rc = 1;
    if (!b.outputs || !b.row_failed || !ids) {
        fprintf(stderr, "tvmaf: out of memory for a manifest of %u rows\n", n);
        goto end;
    }
    /* every row's problems before any pair is scored: its own, its output */
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        ManifestEntry *e = &rows[i];
        char out[4096];
        if (!e->error[0] && !e->output &&
            pair_output(out, sizeof(out), pattern, out_dir, s->ofmt, i + 1, e->dis, msg,
                        sizeof(msg)))
            snprintf(e->error, sizeof(e->error), "%s", msg);
        if (!e->error[0] && !e->output && !out[0])
            snprintf(e->error, sizeof(e->error), "no output: give the row an output, or -o "
                     "PATTERN or --output-dir DIR for every row");
        if (!e->error[0] && !(b.outputs[i] = strdup(e->output ? e->output : out)))
            snprintf(e->error, sizeof(e->error), "out of memory");
        for (unsigned k = 0; !e->error[0] && k < i; k++)
            if (b.outputs[k] && !strcmp(b.outputs[k], b.outputs[i]))
                snprintf(e->error, sizeof(e->error), "output \"%s\" is line %u's output too",
                         b.outputs[i], rows[k].line);
        if (e->error[0]) {
            fprintf(stderr, "tvmaf: %s:%u: %s\n", manifest, e->line, e->error);
            b.row_failed[i] = 1;
            bad++;
        }
    }
    /* Each device for the whole batch: a context that scores nothing holds it
     * open (the driver's start-up, a few hundred milliseconds, once), and the
     * pairs' contexts share it. */
    TvmafContext *keeper[MAX_GPUS] = { NULL };
    const unsigned n_dev = s->n_gpus ? s->n_gpus : 1;
    for (unsigned d = 0; s->backend != TVMAF_BACKEND_CPU && d < n_dev; d++) {
        const unsigned gpu = s->n_gpus ? s->gpus[d] : s->gpu_index;
        int dup = 0;
        for (unsigned e = 0; e < d; e++) dup |= s->gpus[e] == gpu;
        if (dup) continue;
        const TvmafConfiguration kcfg = { .backend = s->backend, .gpu_index = gpu,
                                          .log_level = TVMAF_LOG_WARNING };
        if (tvmaf_init(&keeper[d], &kcfg)) { tvmaf_close(keeper[d]); keeper[d] = NULL; }
    }
    if (jobs > n) jobs = n;
    pthread_t th[MAX_JOBS];
    BatchWorker bw[MAX_JOBS];
    for (unsigned w = 0; w < jobs; w++)
        bw[w] = (BatchWorker){ &b, s->n_gpus ? s->gpus[w % s->n_gpus] : s->gpu_index };
    unsigned started = 0;
    for (; started + 1 < jobs; started++)
        if (pthread_create(&th[started], NULL, batch_worker, &bw[started + 1])) break;
    batch_worker(&bw[0]);
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (unsigned d = 0; d < n_dev; d++) tvmaf_close(keeper[d]);

    unsigned failed = 0;
    for (unsigned i = 0; i < n; i++)
        if (b.row_failed[i]) ids[failed++] = rows[i].line;
    (void)bad;
    batch_summary(n, failed, failed == 1 ? "line" : "lines", ids, failed);
    rc = failed ? 1 : 0;
end:
    for (unsigned i = 0; b.outputs && i < n; i++) free(b.outputs[i]);
    free(b.outputs);
    free(b.row_failed);
    free(ids);
    manifest_free(rows, n);
    return rc;
}

/* --gpus all|N,N,...: the devices of the GPU backend that score, checked
 * against the devices this machine has. `backend` auto becomes CUDA (the
 * list names CUDA devices when there is one). Returns -1 after printing why. */
static int parse_gpus(const char *app, const char *arg, enum TvmafBackend backend,
                      int gpu_given, unsigned *gpus, unsigned *n_gpus,
                      enum TvmafBackend *resolved)
{
    if (backend == TVMAF_BACKEND_CPU) {
        fprintf(stderr, "%s: --gpus lists devices of a GPU backend (cuda, opencl); --backend "
                "cpu scores on the processor: use --threads N (and --jobs N for a batch)\n", app);
        return -1;
    }
    if (gpu_given) {
        fprintf(stderr, "%s: give --gpu N (one device) or --gpus LIST, not both\n", app);
        return -1;
    }
    if (backend == TVMAF_BACKEND_AUTO) {
        if (tvmaf_gpu_count(TVMAF_BACKEND_CUDA) <= 0) {
            fprintf(stderr, "%s: --gpus %s: no CUDA device here; for OpenCL devices give "
                    "--backend opencl\n", app, arg);
            return -1;
        }
        backend = TVMAF_BACKEND_CUDA;
    }
    const char *bname = backend == TVMAF_BACKEND_CUDA ? "cuda" : "opencl";
    const int have = tvmaf_gpu_count(backend);
    *n_gpus = 0;
    if (!strcmp(arg, "all")) {
        if (have <= 0) {
            fprintf(stderr, "%s: --gpus all: the %s backend has no usable device here\n", app,
                    bname);
            return -1;
        }
        for (int i = 0; i < have && i < MAX_GPUS; i++) gpus[(*n_gpus)++] = (unsigned)i;
        *resolved = backend;
        return 0;
    }
    for (const char *c = arg;;) {
        char *end;
        errno = 0;
        const unsigned long v = strtoul(c, &end, 10);
        if (end == c || *c == '-' || *c == '+' || errno || v > 4096 ||
            (*end && *end != ',')) {
            fprintf(stderr, "%s: invalid value \"%s\" for --gpus (expected all, or device "
                    "numbers separated by commas: 0,1,2)\n", app, arg);
            return -1;
        }
        if (*n_gpus == MAX_GPUS) {
            fprintf(stderr, "%s: --gpus: at most %d devices\n", app, MAX_GPUS);
            return -1;
        }
        gpus[(*n_gpus)++] = (unsigned)v;
        if (!*end) break;
        c = end + 1;
    }
    for (unsigned i = 0; i < *n_gpus; i++) {
        if ((int)gpus[i] < have) continue;
        if (have <= 0)
            fprintf(stderr, "%s: --gpus %s: the %s backend has no usable device here\n",
                    app, arg, bname);
        else
            fprintf(stderr, "%s: --gpus %s: there is no %s device %u (this machine has "
                    "%d: 0..%d)\n", app, arg, bname, gpus[i], have, have - 1);
        return -1;
    }
    *resolved = backend;
    return 0;
}

int main(int argc, char **argv)
{
    const char *app = "tvmaf";
    const char *path_ref = NULL, *out_path = NULL;
    const char *dis_paths[MAX_DISTORTED];
    unsigned n_dis = 0, jobs = 1;
    const char *batch_path = NULL, *out_dir = NULL;
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
    int strict_frames = 0, list = 0, version = 0;
    char feature_defaults[128] = "";
    uint64_t max_memory = DEFAULT_MAX_MEMORY;

    /* a closed pipe on stdout or a file size limit is a failed write
     * reported as such, not a silent death by signal */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    const char *report_path = NULL, *plot_path = NULL;
    const char *scale_filter = NULL;
    int ignore_fps = 0, common_bitdepth = 0, backend_given = 0;
    unsigned gpumask = 0;
    const char *ref_isa = NULL;
    const char *gpus_arg = NULL;
    unsigned gpus[MAX_GPUS], n_gpus = 0;
    int jobs_given = 0, gpu_given = 0;

    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:d:w:h:p:b:m:o:nvq", long_opts, NULL)) != -1) {
        switch (c) {
        case 'r': path_ref = optarg; break;
        case 'd':
            /* several: a ladder, every distorted input against the one reference */
            if (n_dis == MAX_DISTORTED) {
                fprintf(stderr, "%s: at most %d distorted inputs (--batch takes more)\n", app,
                        MAX_DISTORTED);
                return free_model_args(models, n_model_args, 1);
            }
            dis_paths[n_dis++] = optarg;
            break;
        case 'w': if (parse_uint(app, "--width", optarg, &w, 1, 65536)) return free_model_args(models, n_model_args, 1); break;
        case 'h': if (parse_uint(app, "--height", optarg, &h, 1, 65536)) return free_model_args(models, n_model_args, 1); break;
        case 'b':
            if (parse_uint(app, "--bitdepth", optarg, &bpc, 1, 64)) return free_model_args(models, n_model_args, 1);
            if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16) {
                fprintf(stderr, "%s: unsupported bit depth %u (supported: 8, 10, 12, 16)\n",
                        app, bpc);
                return free_model_args(models, n_model_args, 1);
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
                return free_model_args(models, n_model_args, 1);
            }
            break;
        case 'm':
            if (n_model_args == MAX_MODELS) {
                fprintf(stderr, "%s: at most %d models\n", app, MAX_MODELS);
                return free_model_args(models, n_model_args, 1);
            }
            if (parse_model_arg(app, optarg, &models[n_model_args])) return free_model_args(models, n_model_args, 1);
            n_model_args++;
            n_models++;
            break;
        case 'o': out_path = optarg; break;
        case 'n': no_prediction = 1; break;
        case 'q': quiet = 1; break;
        case 'v': version = 1; break; /* with --list-features: verbose */
        case ARG_XML: ofmt = TVMAF_OUTPUT_XML; break;
        case ARG_JSON: ofmt = TVMAF_OUTPUT_JSON; break;
        case ARG_CSV: ofmt = TVMAF_OUTPUT_CSV; break;
        case ARG_SUB: ofmt = TVMAF_OUTPUT_SUB; break;
        case ARG_THREADS: if (parse_uint(app, "--threads", optarg, &threads, 0, 1024)) return free_model_args(models, n_model_args, 1); break;
        case ARG_SUBSAMPLE: if (parse_uint(app, "--subsample", optarg, &subsample, 0, 1u << 30)) return free_model_args(models, n_model_args, 1); break;
        case ARG_FRAME_CNT: if (parse_uint(app, "--frame_cnt", optarg, &frame_cnt, 0, ~0u)) return free_model_args(models, n_model_args, 1); break;
        case ARG_SKIP_REF: if (parse_uint(app, "--frame_skip_ref", optarg, &skip_ref, 0, ~0u)) return free_model_args(models, n_model_args, 1); break;
        case ARG_SKIP_DIST: if (parse_uint(app, "--frame_skip_dist", optarg, &skip_dis, 0, ~0u)) return free_model_args(models, n_model_args, 1); break;
        case ARG_CPUMASK: {
            char *end;
            errno = 0;
            cpumask = strtoull(optarg, &end, 0);
            if (errno || end == optarg || *end) {
                fprintf(stderr, "%s: invalid value \"%s\" for --cpumask\n", app, optarg);
                return free_model_args(models, n_model_args, 1);
            }
            break;
        }
        case ARG_ADM_DIV:
            if (strcmp(optarg, "host") && strcmp(optarg, "table") && strcmp(optarg, "ieee") &&
                strcmp(optarg, "auto")) {
                fprintf(stderr, "%s: invalid value \"%s\" for --adm-div (host, table, ieee or "
                        "auto)\n", app, optarg);
                return free_model_args(models, n_model_args, 1);
            }
            snprintf(feature_defaults, sizeof(feature_defaults), "float_adm=adm_div=%s", optarg);
            break;
        case ARG_REF_ISA:
            if (strcmp(optarg, "avx512") && strcmp(optarg, "avx2") && strcmp(optarg, "c")) {
                fprintf(stderr, "%s: invalid value \"%s\" for --reference-isa (avx512, avx2 or "
                        "c)\n", app, optarg);
                return free_model_args(models, n_model_args, 1);
            }
            ref_isa = optarg;
            break;
        case ARG_PINNED: gpu_flags |= TVMAF_GPU_PINNED_PICTURES; break;
        case ARG_GPU_STATS: gpu_flags |= TVMAF_GPU_STATS; break;
        case ARG_GPU_MEM_LIMIT: {
            char *end;
            errno = 0;
            gpu_mem_limit = strtoull(optarg, &end, 0);
            if (errno || end == optarg || *end || optarg[0] == '-') {
                fprintf(stderr, "%s: invalid value \"%s\" for --gpu-mem-limit (bytes)\n", app,
                        optarg);
                return free_model_args(models, n_model_args, 1);
            }
            break;
        }
        case ARG_MAX_MEMORY:
            if (parse_size(optarg, &max_memory)) {
                fprintf(stderr, "%s: invalid value \"%s\" for --max-memory (bytes, or a "
                        "number with K, M or G)\n", app, optarg);
                return free_model_args(models, n_model_args, 1);
            }
            break;
        case ARG_FEATURE:
            if (n_features == MAX_FEATURES) {
                fprintf(stderr, "%s: at most %d --feature options\n", app, MAX_FEATURES);
                return free_model_args(models, n_model_args, 1);
            }
            features[n_features++] = optarg;
            {
                /* NAME=help: the extractor's options, nothing scored */
                const char *eq = strchr(optarg, '=');
                if (eq && !strcmp(eq + 1, "help")) {
                    char name[128];
                    snprintf(name, sizeof(name), "%.*s", (int)(eq - optarg), optarg);
                    if (tvmaf_feature_option(name, 0, NULL) < 0) {
                        fprintf(stderr, "%s: unknown feature \"%s\" (tvmaf --list-features "
                                "lists them)\n", app, name);
                        return 1;
                    }
                    printf("%s (%s), options as --feature %s=opt=val:opt=val:\n", name,
                           backends_of(name), name);
                    describe_options(stdout, name);
                    return 0;
                }
            }
            break;
        case ARG_BACKEND:
            backend_given = 1;
            if (!strcmp(optarg, "cpu")) backend = TVMAF_BACKEND_CPU;
            else if (!strcmp(optarg, "cuda")) backend = TVMAF_BACKEND_CUDA;
            else if (!strcmp(optarg, "opencl")) backend = TVMAF_BACKEND_OPENCL;
            else if (!strcmp(optarg, "auto")) backend = TVMAF_BACKEND_AUTO;
            else {
                fprintf(stderr, "%s: invalid backend \"%s\" (cpu, cuda, opencl or auto)\n", app, optarg);
                return free_model_args(models, n_model_args, 1);
            }
            break;
        case ARG_PRECISION:
            if (!strcmp(optarg, "max")) precision = 17;
            else {
                unsigned p;
                if (parse_uint(app, "--precision", optarg, &p, 1, 17)) return free_model_args(models, n_model_args, 1);
                precision = (int)p;
            }
            break;
        case ARG_LIST: list = 1; break;
        case ARG_STRICT_FRAMES: strict_frames = 1; break;
        case ARG_HELP: usage(stdout, app); return free_model_args(models, n_model_args, 0);
        case ARG_REPORT: report_path = optarg; break;
        case ARG_PLOT: plot_path = optarg; break;
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
            return free_model_args(models, n_model_args, 0);
        }
        case ARG_SCALE: scale_filter = optarg; break;
        case ARG_AOM_CTC:
        case ARG_NFLX_CTC: {
            const unsigned before = n_model_args;
            if (c == ARG_AOM_CTC ? apply_aom_ctc(app, optarg, features, &n_features, models,
                                                 &n_model_args, &common_bitdepth)
                                 : apply_nflx_ctc(app, optarg, features, &n_features, models,
                                                  &n_model_args))
                return 1;
            n_models += (int)(n_model_args - before);
            break;
        }
        case ARG_GPUMASK:
            /* libvmaf: 0 (its default) lets CUDA extract, any other mask keeps
             * extraction on the CPU */
            if (parse_uint(app, "--gpumask", optarg, &gpumask, 0, ~0u)) return 1;
            break;
        case ARG_IGNORE_FPS: ignore_fps = 1; break;
        case ARG_BATCH: batch_path = optarg; break;
        case ARG_OUTPUT_DIR: out_dir = optarg; break;
        case ARG_JOBS:
            if (parse_uint(app, "--jobs", optarg, &jobs, 1, MAX_JOBS)) return free_model_args(models, n_model_args, 1);
            jobs_given = 1;
            break;
        case ARG_GPUS: gpus_arg = optarg; break;
        case ARG_GPU: gpu_given = 1; if (parse_uint(app, "--gpu", optarg, &gpu_index, 0, 1024)) return free_model_args(models, n_model_args, 1); break;
        case ':':
            fprintf(stderr, "%s: option %s needs a value\n", app, argv[optind - 1]);
            return free_model_args(models, n_model_args, 1);
        default:
            fprintf(stderr, "%s: unknown option \"%s\" (see --help)\n", app, argv[optind - 1]);
            return free_model_args(models, n_model_args, 1);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument \"%s\" (see --help)\n", app, argv[optind]);
        return free_model_args(models, n_model_args, 1);
    }
    if (list) {
        /* -v (verbose) adds every extractor's options */
        for (unsigned i = 0; i < tvmaf_feature_count(); i++) {
            printf("%-16s %s\n", tvmaf_feature_name(i), tvmaf_feature_backends(i));
            if (version) describe_options(stdout, tvmaf_feature_name(i));
        }
        return free_model_args(models, n_model_args, 0);
    }
    if (version) {
        printf("tvmaf %s\n", tvmaf_version());
        return free_model_args(models, n_model_args, 0);
    }
    if (gpumask) {
        if (backend_given && backend != TVMAF_BACKEND_CPU) {
            fprintf(stderr, "%s: --gpumask %u keeps scoring off the GPU, which --backend %s "
                    "contradicts\n", app, gpumask, backend == TVMAF_BACKEND_CUDA ? "cuda" :
                    backend == TVMAF_BACKEND_OPENCL ? "opencl" : "auto");
            return 1;
        }
        backend = TVMAF_BACKEND_CPU;
    }
    if (batch_path && (path_ref || n_dis)) {
        fprintf(stderr, "%s: --batch takes its pairs from the manifest: give no -r/-d with it\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    if (!batch_path && (!path_ref || !n_dis)) {
        fprintf(stderr, "%s: both --reference/-r and --distorted/-d are required (see --help)\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    unsigned n_stdin = path_ref && !strcmp(path_ref, "-");
    for (unsigned i = 0; i < n_dis; i++) n_stdin += !strcmp(dis_paths[i], "-");
    if (n_stdin > 1) {
        fprintf(stderr, "%s: only one of the inputs can be stdin\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    const int several = batch_path || n_dis > 1;
    if (several && out_path && !strcmp(out_path, "-")) {
        fprintf(stderr, "%s: -o - writes one pair's scores: with several pairs give -o PATTERN "
                "(%%d: the pair's number, %%s: the distorted input's name) or --output-dir DIR\n",
                app);
        return free_model_args(models, n_model_args, 1);
    }
    if (out_dir && out_path) {
        fprintf(stderr, "%s: give -o or --output-dir, not both\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    if (several && (report_path || plot_path)) {
        fprintf(stderr, "%s: --report and --plot take one pair\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    if (out_dir && mkdir(out_dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create --output-dir \"%s\": %s\n", app, out_dir, strerror(errno));
        return free_model_args(models, n_model_args, 1);
    }
    if (gpus_arg) {
        if (parse_gpus(app, gpus_arg, backend, gpu_given, gpus, &n_gpus, &backend))
            return free_model_args(models, n_model_args, 1);
        if (batch_path && !jobs_given) jobs = n_gpus;
        gpu_index = gpus[0];
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
                return free_model_args(models, n_model_args, 1);
            }
        }
    }
    if (ref_isa) { /* adm's reference_isa for every instance, a model's included */
        const size_t n = strlen(feature_defaults);
        snprintf(feature_defaults + n, sizeof(feature_defaults) - n, "%sadm=reference_isa=%s",
                 n ? ";" : "", ref_isa);
    }
    const Settings settings = {
        .raw = { fmt, bpc, w, h },
        .threads = threads, .subsample = subsample, .frame_cnt = frame_cnt,
        .skip_ref = skip_ref, .skip_dis = skip_dis, .ofmt = ofmt, .backend = backend,
        .precision = precision, .quiet = quiet, .no_prediction = no_prediction,
        .strict_frames = strict_frames, .ignore_fps = ignore_fps,
        .common_bitdepth = common_bitdepth, .features = features, .n_features = n_features,
        .models = models, .n_models = n_model_args, .n_models_given = n_models_given,
        /* -n without --feature: as libvmaf, the inputs are read and the output
         * holds no score */
        .scoring = n_features || n_models,
        .cpumask = cpumask, .max_memory = max_memory, .gpu_index = gpu_index,
        .gpu_flags = gpu_flags, .gpu_mem_limit = gpu_mem_limit,
        .feature_defaults = feature_defaults, .report_path = report_path,
        .plot_path = plot_path, .scale_filter = scale_filter, .batch = batch_path != NULL,
        .gpus = gpus, .n_gpus = n_gpus,
    };
    int ret;
    if (batch_path) {
        ret = run_batch(&settings, batch_path, out_path, out_dir, jobs);
    } else {
        /* one reference, one or more distorted inputs (a ladder) */
        Pair *pairs = calloc(n_dis, sizeof(*pairs));
        char (*outs)[4096] = calloc(n_dis, sizeof(*outs));
        unsigned *ids = calloc(n_dis, sizeof(*ids));
        ret = 1;
        if (!pairs || !outs || !ids) {
            fprintf(stderr, "%s: out of memory\n", app);
            goto ladder_end;
        }
        char msg[1024];
        for (unsigned i = 0; i < n_dis; i++) {
            Pair *p = &pairs[i];
            p->path_dis = dis_paths[i];
            /* a ladder's pairs go round the listed devices */
            p->gpu = n_gpus ? gpus[i % n_gpus] : gpu_index;
            if (n_dis == 1) {
                /* the plain command: -o names the file as it is */
                snprintf(p->label, sizeof(p->label), "%s", app);
                if (out_dir && pair_output(outs[i], sizeof(outs[i]), NULL, out_dir, ofmt, 1,
                                           dis_paths[i], msg, sizeof(msg))) {
                    fprintf(stderr, "%s: %s\n", app, msg);
                    goto ladder_end;
                }
                p->out_path = out_dir ? outs[i] : out_path;
                continue;
            }
            snprintf(p->label, sizeof(p->label), "%s: pair %u (%s)", app, i + 1, dis_paths[i]);
            if (pair_output(outs[i], sizeof(outs[i]), out_path, out_dir, ofmt, i + 1,
                            dis_paths[i], msg, sizeof(msg))) {
                fprintf(stderr, "%s: %s\n", app, msg);
                goto ladder_end;
            }
            p->out_path = outs[i][0] ? outs[i] : NULL;
            for (unsigned k = 0; p->out_path && k < i; k++) {
                if (pairs[k].out_path && !strcmp(pairs[k].out_path, p->out_path)) {
                    fprintf(stderr, "%s: pairs %u and %u would both write \"%s\": %s\n", app,
                            k + 1, i + 1, p->out_path, out_dir ? "their distorted inputs have "
                            "the same name; use -o PATTERN with %d" : "put %d (the pair's "
                            "number) or %s (the distorted input's name) in -o");
                    goto ladder_end;
                }
            }
        }
        if (n_dis == 1 && n_gpus > 1) {
            ret = run_split(&settings, app, path_ref, dis_paths[0], pairs[0].out_path);
            goto ladder_end;
        }
        const unsigned failed = run_group(&settings, app, path_ref, pairs, n_dis);
        if (n_dis > 1) {
            unsigned k = 0;
            for (unsigned i = 0; i < n_dis; i++)
                if (pairs[i].failed) ids[k++] = i + 1;
            batch_summary(n_dis, failed, failed == 1 ? "pair" : "pairs", ids, k);
        }
        ret = failed ? 1 : 0;
ladder_end:
        free(pairs);
        free(outs);
        free(ids);
    }
    for (unsigned i = 0; i < n_models_given; i++) free(models[i].buf);
    return ret;
}
