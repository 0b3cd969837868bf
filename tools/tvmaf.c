/*
 * tvmaf: the command-line tool, flag-compatible with libvmaf's `vmaf`.
 */
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <getopt.h>
#include <math.h>
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
        " --backend cpu|cuda|auto    where to run (default auto: CUDA when a GPU is usable)\n"
        " --threads N                frames scored in parallel (same bits as 1 thread; default 1,\n"
        "                            with --backend cuda min(cores, 8) frames in flight)\n"
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
        " --gpu N                    device index (default 0)\n"
        " --pinned-pictures          read frames into page-locked memory, uploaded from there\n"
        " --gpu-stats                print device work per frame and device times to stderr\n"
        " --gpu-mem-limit BYTES      fail as out of memory past this much device memory\n"
        " --max-memory N[K|M|G]      memory for the input pictures in flight (both inputs,\n"
        "                            read ahead and being scored; default 8G): inputs whose\n"
        "                            frames cannot fit are refused before any is read\n"
        " --gpumask MASK             libvmaf's GPU mask: 0 lets the GPU score (--backend auto),\n"
        "                            any other value keeps scoring on the CPU (--backend cpu)\n"
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
        " %s --feature adm=help       the options of adm, their types, defaults and ranges\n",
        app, tvmaf_ff_available() ?
        "Encoded input (any other file, when -w/-h/-p/-b are not given; decoded by FFmpeg,\n"
        "the frames `ffmpeg -i FILE -f rawvideo` writes):\n"
        " --scale FILTER             scale a distorted video of another size to the reference's,\n"
        "                            as ffmpeg -vf scale=W:H:flags=FILTER does; FILTER is one of\n"
        "                            bicubic (ffmpeg's default), bilinear, fast_bilinear, neighbor,\n"
        "                            area, bicublin, gauss, sinc, lanczos, spline, experimental\n"
        " --ignore_frame_rate        score streams whose frame rates differ (refused otherwise)\n"
        : "(this build reads no encoded video: it was built without FFmpeg's libraries)\n",
        app, app, app, app, app);
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

    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:d:w:h:p:b:m:o:nvq", long_opts, NULL)) != -1) {
        switch (c) {
        case 'r': path_ref = optarg; break;
        case 'd': path_dis = optarg; break;
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
        case ARG_GPU: if (parse_uint(app, "--gpu", optarg, &gpu_index, 0, 1024)) return free_model_args(models, n_model_args, 1); break;
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
            else if (!strcmp(optarg, "auto")) backend = TVMAF_BACKEND_AUTO;
            else {
                fprintf(stderr, "%s: invalid backend \"%s\" (cpu, cuda or auto)\n", app, optarg);
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
                    "contradicts\n", app, gpumask, backend == TVMAF_BACKEND_CUDA ? "cuda" : "auto");
            return 1;
        }
        backend = TVMAF_BACKEND_CPU;
    }
    if (!path_ref || !path_dis) {
        fprintf(stderr, "%s: both --reference/-r and --distorted/-d are required (see --help)\n", app);
        return free_model_args(models, n_model_args, 1);
    }
    if (!strcmp(path_ref, "-") && !strcmp(path_dis, "-")) {
        fprintf(stderr, "%s: only one of the inputs can be stdin\n", app);
        return free_model_args(models, n_model_args, 1);
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
    /* -n without --feature: as libvmaf, the inputs are read and the output
     * holds no score */
    const int scoring = n_features || n_models;

    char msg[1024] = "";
    TvmafVideoFormat raw = { fmt, bpc, w, h };
    const int have_raw = w && h && bpc && fmt;
    TvmafVideoReader *rd_ref = NULL, *rd_dis = NULL;
    TvmafPrefetch *pf_ref = NULL, *pf_dis = NULL;
    TvmafContext *ctx = NULL;
    int ret = 1, err;

    if ((err = tvmaf_reader_open(&rd_ref, path_ref, have_raw ? &raw : NULL, msg, sizeof(msg))) ||
        (err = tvmaf_reader_open(&rd_dis, path_dis, have_raw ? &raw : NULL, msg, sizeof(msg)))) {
        fprintf(stderr, "%s: %s\n", app, msg);
        goto end;
    }
    if (check_y4m_flags(app, path_ref, rd_ref, &raw) ||
        check_y4m_flags(app, path_dis, rd_dis, &raw))
        goto end;
    if ((w || h || fmt || bpc) && tvmaf_reader_is_y4m(rd_ref) && tvmaf_reader_is_y4m(rd_dis))
        fprintf(stderr, "%s: warning: -w/-h/-p/-b are ignored: both inputs are Y4M, whose "
                "headers give the size and format\n", app);
    const TvmafVideoFormat *fr = tvmaf_reader_format(rd_ref), *fd = tvmaf_reader_format(rd_dis);
    {
        /* encoded inputs: same frame rate, or the user says to go on */
        int nr, dr, nd, dd;
        tvmaf_reader_frame_rate(rd_ref, &nr, &dr);
        tvmaf_reader_frame_rate(rd_dis, &nd, &dd);
        if (!ignore_fps && dr && dd && (int64_t)nr * dd != (int64_t)nd * dr) {
            fprintf(stderr, "%s: the reference (%d/%d fps) and the distorted (%d/%d fps) differ in "
                    "frame rate, so their frames do not line up; --ignore_frame_rate scores them "
                    "frame by frame anyway\n", app, nr, dr, nd, dd);
            goto end;
        }
    }
    if ((fr->w != fd->w || fr->h != fd->h) && scale_filter) {
        if (tvmaf_reader_set_scale(rd_dis, fr->w, fr->h, scale_filter, msg, sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", app, msg);
            goto end;
        }
        fd = tvmaf_reader_format(rd_dis);
    } else if ((fr->w != fd->w || fr->h != fd->h) && tvmaf_reader_is_encoded(rd_dis) &&
               fr->pix_fmt == fd->pix_fmt && fr->bpc == fd->bpc) {
        fprintf(stderr, "%s: the distorted video is %ux%u, the reference %ux%u: give --scale FILTER "
                "(e.g. --scale bicubic, ffmpeg's default) to scale it to the reference's size\n",
                app, fd->w, fd->h, fr->w, fr->h);
        goto end;
    }
    if (common_bitdepth && fr->bpc != fd->bpc) {
        fprintf(stderr, "%s: the reference is %u-bit, the distorted %u-bit: libvmaf's --aom_ctc "
                "v6.0 and later score such a pair at the larger depth, which tvmaf does not "
                "do yet\n", app, fr->bpc, fd->bpc);
        goto end;
    }
    if (fr->w != fd->w || fr->h != fd->h || fr->pix_fmt != fd->pix_fmt || fr->bpc != fd->bpc) {
        fprintf(stderr, "%s: reference (%ux%u %s %u-bit) and distorted (%ux%u %s %u-bit) "
                "differ in size or format\n", app, fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc,
                fd->w, fd->h, tvmaf_pix_fmt_name(fd->pix_fmt), fd->bpc);
        goto end;
    }

    if (ref_isa) { /* adm's reference_isa for every instance, a model's included */
        const size_t n = strlen(feature_defaults);
        snprintf(feature_defaults + n, sizeof(feature_defaults) - n, "%sadm=reference_isa=%s",
                 n ? ";" : "", ref_isa);
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
    if (out_path && (same_file(out_path, path_ref) || same_file(out_path, path_dis))) {
        fprintf(stderr, "%s: -o \"%s\" is the %s input; the scores would overwrite it\n", app,
                out_path, same_file(out_path, path_ref) ? "reference" : "distorted");
        goto end;
    }
    const char *reports[2] = { report_path, plot_path };
    for (unsigned i = 0; i < 2; i++) {
        if (reports[i] && (!strcmp(reports[i], "-") || !writable(reports[i]))) {
            fprintf(stderr, "%s: cannot write \"%s\": %s\n", app, reports[i],
                    strcmp(reports[i], "-") ? strerror(errno) : "the report needs a file");
            goto end;
        }
    }

    if ((skip_ref && (err = tvmaf_reader_skip(rd_ref, skip_ref, msg, sizeof(msg))) != 1) ||
        (skip_dis && (err = tvmaf_reader_skip(rd_dis, skip_dis, msg, sizeof(msg))) != 1)) {
        if (!err) snprintf(msg, sizeof(msg), "an input has fewer frames than it is asked to skip");
        fprintf(stderr, "%s: %s\n", app, msg);
        goto end;
    }

    /* both inputs are read ahead on threads of their own, at the same time;
     * when every feature reads luma only, chroma is passed over unread */
    if (tvmaf_luma_only(ctx) || !scoring) {
        tvmaf_reader_set_luma_only(rd_ref, 1);
        tvmaf_reader_set_luma_only(rd_dis, 1);
    }
    const TvmafVideoFormat *vf = tvmaf_reader_format(rd_ref);
    size_t fbytes = (size_t)vf->w * vf->h * (vf->bpc > 8 ? 2 : 1) *
                    (vf->pix_fmt == TVMAF_PIX_FMT_YUV444P ? 3 :
                     vf->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 2 :
                     vf->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 1.5 : 1);
    /* Pictures of one input in flight: the read-ahead queue, the one being
     * read, and those being scored (one per worker). An input whose frames
     * cannot fit even with one frame read ahead is refused now, before a
     * picture is allocated: a header can claim a size its data never fills. */
    const uint64_t in_use = (threads ? threads : 1) + 1;
    const uint64_t per_input = max_memory / 2 / (fbytes ? fbytes : 1);
    if (per_input < in_use + 1) {
        fprintf(stderr, "%s: %ux%u %s %u-bit frames (%.1f MiB each) need about %.0f MiB of "
                "memory with --threads %u, above the --max-memory limit of %.0f MiB\n", app,
                vf->w, vf->h, tvmaf_pix_fmt_name(vf->pix_fmt), vf->bpc, fbytes / 1048576.0,
                2.0 * (in_use + 1) * fbytes / 1048576.0, threads ? threads : 1,
                max_memory / 1048576.0);
        goto end;
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
    if (backend == TVMAF_BACKEND_CPU || !tvmaf_cuda_available()) {
        const unsigned cpu_ahead = (threads > 1 ? threads : 1) + 1;
        if (ahead > cpu_ahead) ahead = cpu_ahead;
    }
    if ((err = tvmaf_prefetch_start(&pf_ref, rd_ref, ahead, frame_cnt)) ||
        (err = tvmaf_prefetch_start(&pf_dis, rd_dis, ahead, frame_cnt))) {
        if (err == -ENOMEM)
            fprintf(stderr, "%s: out of memory allocating the read-ahead queues (%u frames)\n",
                    app, ahead);
        else
            fprintf(stderr, "%s: cannot start reading: %s\n", app, strerror(-err));
        goto end;
    }

    const int show_progress = isatty(fileno(stderr)) && !quiet;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned n = 0;
    const char *ended = NULL, *longer = NULL; /* inputs of different lengths */
    int depth_warned = 0;
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
            if (r1 != r2 && strict_frames) {
                fprintf(stderr, "%s%s: \"%s\" ended after %u frame%s, before \"%s\"; "
                        "use --frame_cnt %u to score the common frames\n",
                        show_progress ? "\n" : "", app, r1 ? path_dis : path_ref, n,
                        n == 1 ? "" : "s", r1 ? path_ref : path_dis, n);
                goto end;
            }
            if (r1 != r2) {
                /* libvmaf scores the common frames and says which input ended */
                ended = r1 ? path_dis : path_ref;
                longer = r1 ? path_ref : path_dis;
            }
            break;
        }
        if (!scoring) {
            tvmaf_picture_unref(&pr);
            tvmaf_picture_unref(&pd);
        } else if ((err = tvmaf_read_pictures(ctx, &pr, &pd, n))) {
            fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", app, tvmaf_last_error(ctx));
            goto end;
        }
        if (!depth_warned) {
            /* once per run, naming the inputs found so far */
            const uint64_t at_r = tvmaf_reader_above_depth_frame(rd_ref);
            const uint64_t at_d = tvmaf_reader_above_depth_frame(rd_dis);
            if (at_r != UINT64_MAX || at_d != UINT64_MAX) {
                depth_warned = 1;
                const int both = at_r != UINT64_MAX && at_d != UINT64_MAX;
                char who[1024];
                if (both)
                    snprintf(who, sizeof(who), "\"%s\" and \"%s\" hold samples above %u, the "
                             "largest %u-bit value (first found in frames %llu and %llu)", path_ref,
                             path_dis, (1u << fr->bpc) - 1, fr->bpc,
                             (unsigned long long)at_r, (unsigned long long)at_d);
                else
                    snprintf(who, sizeof(who), "\"%s\" holds samples above %u, the largest "
                             "%u-bit value (first found in frame %llu)",
                             at_r != UINT64_MAX ? path_ref : path_dis, (1u << fr->bpc) - 1,
                             fr->bpc, (unsigned long long)(at_r != UINT64_MAX ? at_r : at_d));
                fprintf(stderr, "%s%s: warning: %s; they are scored as they are: is the bit "
                        "depth right?\n", show_progress && n ? "\n" : "", app, who);
            }
        }
        if (show_progress && (n % 8 == 0)) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            const double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
            fprintf(stderr, "\r%u frame%s %.2f FPS\033[K", n + 1, n ? "s" : " ",
                    s > 0 ? (n + 1) / s : 0.0);
        }
    }
    if (!n) {
        fprintf(stderr, "%s: the inputs hold no frame to score\n", app);
        goto end;
    }
    if (scoring && (err = tvmaf_flush(ctx))) {
        fprintf(stderr, "%s%s: %s\n", show_progress ? "\n" : "", app, tvmaf_last_error(ctx));
        goto end;
    }
    if (show_progress) {
        /* the last line gives the number of frames scored */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr, "\r%u frame%s %.2f FPS\033[K\n", n, n > 1 ? "s" : " ",
                s > 0 ? n / s : 0.0);
    }
    if (ended) /* libvmaf's words */
        fprintf(stderr, "\"%s\" ended before \"%s\".\n", ended, longer);
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
    /* with nothing scored libvmaf's timer never starts: its fps is inf */
    const double fps = !scoring ? INFINITY : secs > 0 ? n / secs : 0.0;
    if (out_path && write_scores(app, out_path, ctx, ofmt, precision, fps, fr->w, fr->h))
        goto end;
    for (unsigned i = 0; i < 2; i++) {
        if (!reports[i]) continue;
        char fmtdesc[128], thr[32], sub[32], prec[32], models_s[1024] = "", feats[2048] = "";
        snprintf(fmtdesc, sizeof(fmtdesc), "%ux%u %s %u-bit", fr->w, fr->h,
                 tvmaf_pix_fmt_name(fr->pix_fmt), fr->bpc);
        snprintf(thr, sizeof(thr), "%u", threads);
        snprintf(sub, sizeof(sub), "%u", subsample ? subsample : 1);
        snprintf(prec, sizeof(prec), precision == 17 ? "max (%%.17g)" : precision ? "%%.%dg" : "default (libvmaf's %%.6f)", precision);
        const char *model_keys[MAX_MODELS + 1] = { NULL };
        for (unsigned m = 0; !no_prediction && m < n_model_args; m++) {
            model_keys[m] = tvmaf_model_name(models[m].model);
            size_t l = strlen(models_s);
            snprintf(models_s + l, sizeof(models_s) - l, "%s%s (%s)", m ? ", " : "",
                     model_label(&models[m]), model_keys[m]);
        }
        for (unsigned k = 0; k < n_features; k++) {
            size_t l = strlen(feats);
            snprintf(feats + l, sizeof(feats) - l, "%s%s", k ? ", " : "", features[k]);
        }
        const char *backend_s = backend == TVMAF_BACKEND_CPU ? "cpu" :
                                backend == TVMAF_BACKEND_CUDA ? "cuda" : "auto";
        const char *settings[] = {
            "reference", path_ref, "distorted", path_dis, "input", fmtdesc,
            "models", no_prediction ? "none (-n)" : models_s, "features", n_features ? feats : "none",
            "backend", backend_s, "threads", thr, "subsample", sub, "precision", prec, NULL,
        };
        const TvmafReportConfig rcfg = {
            .settings = settings, .models = model_keys, .precision = precision,
        };
        FILE *rf = fopen(reports[i], "w");
        int rerr = rf ? tvmaf_write_report(ctx, rf, i ? TVMAF_REPORT_SVG : TVMAF_REPORT_HTML,
                                           &rcfg) : -errno;
        if (rf && fclose(rf) && !rerr) rerr = -errno;
        if (rerr) {
            fprintf(stderr, "%s: writing \"%s\" failed: %s\n", app, reports[i], strerror(-rerr));
            goto end;
        }
    }
    ret = 0;
end:
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
