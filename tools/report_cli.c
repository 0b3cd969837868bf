/*
 * The comparison report from the CLI.
 *
 * A run (one pair, a ladder, a batch) keeps each finished pair's JSON output
 * (in memory, at the run's precision, whatever -o's format) and its sidecar;
 * once every pair is done, --report and --plot write one page over them.
 * `tvmaf report A.json B.json ...` builds the same page from saved JSON
 * outputs and the sidecars --meta wrote beside them (OUTPUT.meta.json: the
 * inputs, the distorted stream's bitrate, the settings that ran). A sidecar
 * is a file of its own: the libvmaf-format output never gets a key more.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/feature_name.h"
#include "model/model.h"
#include "outputs.h"
#include "report_cli.h"

int report_meta_path(char *out, size_t len, const char *output)
{
    return snprintf(out, len, "%s.meta.json", output) >= (int)len ? -1 : 0;
}

/* A growing string --------------------------------------------------------- */

typedef struct Buf {
    char *s;
    size_t n, cap;
    int oom;
} Buf;

static void buf_add(Buf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int r = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (r < 0) { b->oom = 1; return; }
        if (b->s && (size_t)r < b->cap - b->n) { b->n += (size_t)r; return; }
        const size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)r;
        char *ns = realloc(b->s, cap);
        if (!ns) { b->oom = 1; return; }
        b->s = ns;
        b->cap = cap;
    }
}

/* A JSON string (quoted). */
static void buf_str(Buf *b, const char *s)
{
    buf_add(b, "\"");
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\') buf_add(b, "\\%c", *c);
        else if (*c < 0x20) buf_add(b, "\\u%04x", *c);
        else buf_add(b, "%c", *c);
    }
    buf_add(b, "\"");
}

static void buf_setting(Buf *b, int *first, const char *k, const char *v)
{
    buf_add(b, "%s\n    [", *first ? "" : ",");
    buf_str(b, k);
    buf_add(b, ", ");
    buf_str(b, v);
    buf_add(b, "]");
    *first = 0;
}

/* The sidecar of a pair --------------------------------------------------- */

static const char *pix_digits(enum TvmafPixelFormat f)
{
    return f == TVMAF_PIX_FMT_YUV422P ? "422" : f == TVMAF_PIX_FMT_YUV444P ? "444" :
           f == TVMAF_PIX_FMT_YUV400P ? "400" : "420";
}

/* One input of the pair: its path, absolute path, how it is read, its raw
 * layout, frames skipped; the distorted one's bitrate. */
static void meta_input(Buf *b, const Settings *s, const char *path, int dis, unsigned skip)
{
    const TvmafVideoFormat *raw = settings_raw(s, dis);
    const char *kind = "stdin";
    char msg[1024] = "", layout[64] = "";
    TvmafReader *rd = NULL;
    if (strcmp(path, "-")) {
        TvmafReaderConfig cfg = { 0 };
        if (raw) cfg.raw = *raw;
        kind = tvmaf_reader_open(&rd, path, &cfg, msg, sizeof(msg)) ? "unknown"
                                                                      : tvmaf_reader_kind(rd);
    }
    if (raw && !strcmp(kind, "raw"))
        snprintf(layout, sizeof(layout), "%ux%u:%s:%u", raw->w, raw->h, pix_digits(raw->pix_fmt),
                 raw->bpc);
    buf_add(b, "{\n    \"path\": ");
    buf_str(b, path);
    char *abs = strcmp(path, "-") ? realpath(path, NULL) : NULL;
    if (abs) {
        buf_add(b, ",\n    \"absolute\": ");
        buf_str(b, abs);
    }
    free(abs);
    buf_add(b, ",\n    \"kind\": ");
    buf_str(b, kind);
    if (*layout) {
        buf_add(b, ",\n    \"raw\": ");
        buf_str(b, layout);
    }
    buf_add(b, ",\n    \"skip\": %u", skip);
    if (dis && s->scale_filter) {
        buf_add(b, ",\n    \"scale\": ");
        buf_str(b, s->scale_filter);
    }
    if (dis) {
        double bps = 0;
        const char *source = NULL;
        char why[256] = "";
        if (!strcmp(kind, "ffmpeg")) {
            if (media_bitrate(path, &bps, &source, why, sizeof(why))) bps = 0;
        } else {
            snprintf(why, sizeof(why), "%s", !strcmp(kind, "raw") ? "raw YUV has no bitrate" :
                     !strcmp(kind, "y4m") ? "Y4M is uncompressed: no bitrate" :
                     !strcmp(kind, "stdin") ? "read from stdin" : "not an encoded input");
        }
        if (bps > 0) {
            buf_add(b, ",\n    \"bitrate\": %.0f,\n    \"bitrate_source\": ", bps);
            buf_str(b, source);
        } else {
            buf_add(b, ",\n    \"bitrate_none\": ");
            buf_str(b, why);
        }
    }
    buf_add(b, "\n  }");
    tvmaf_reader_close(rd);
}

/* The keys model m reads (aliases as the outputs print them), listed once. */
static void meta_model_inputs(Buf *b, const TvmafModel *m)
{
    const char *seen[4 * TVMAF_MODEL_MAX_FEATURES];
    unsigned n = 0;
    for (unsigned s = 0; s <= m->n_members; s++) {
        const TvmafSvr *svr = s ? m->member[s - 1] : m->main;
        for (unsigned i = 0; svr && i < svr->n_features; i++) {
            const TvmafModelFeature *f = &svr->feature[i];
            const char *a = tvmaf_feature_alias(f->key ? f->key : f->name);
            int dup = 0;
            for (unsigned q = 0; q < n && !dup; q++) dup = !strcmp(seen[q], a);
            if (dup || n == sizeof(seen) / sizeof(seen[0])) continue;
            seen[n] = a;
            buf_add(b, "%s", n++ ? ", " : "");
            buf_str(b, a);
        }
    }
}

static void meta_settings(Buf *b, const Settings *s, const Pair *p, const TvmafVideoFormat *fr)
{
    char v[4096];
    int first = 1;
    buf_add(b, ",\n  \"settings\": [");
    snprintf(v, sizeof(v), "%s (%s)", tvmaf_version(), tvmaf_build_info());
    buf_setting(b, &first, "tvmaf", v);
    snprintf(v, sizeof(v), "%ux%u %s %u-bit", fr->w, fr->h, tvmaf_pix_fmt_name(fr->pix_fmt),
             fr->bpc);
    buf_setting(b, &first, "input", v);
    v[0] = '\0';
    for (unsigned m = 0; !s->no_prediction && m < s->n_models; m++) {
        const size_t l = strlen(v);
        snprintf(v + l, sizeof(v) - l, "%s%s (%s)", m ? ", " : "", model_label(&s->models[m]),
                 tvmaf_model_name(p->model[m]));
    }
    buf_setting(b, &first, "models", s->no_prediction ? "none (-n)" : v);
    v[0] = '\0';
    for (unsigned k = 0; k < s->n_features; k++) {
        const size_t l = strlen(v);
        snprintf(v + l, sizeof(v) - l, "%s%s", k ? ", " : "", s->features[k]);
    }
    buf_setting(b, &first, "features", s->n_features ? v : "none");
    const enum TvmafBackend ran = tvmaf_context_backend(p->ctx);
    snprintf(v, sizeof(v), "%s%s%s%s", tvmaf_backend_name(ran),
             s->backend != ran ? " (asked: " : "",
             s->backend != ran ? tvmaf_backend_name(s->backend) : "", s->backend != ran ? ")" : "");
    buf_setting(b, &first, "backend", v);
    if (ran != TVMAF_BACKEND_CPU) {
        snprintf(v, sizeof(v), "%u", p->gpu);
        buf_setting(b, &first, "device", v);
    }
    /* where each extractor ran */
    v[0] = '\0';
    for (unsigned i = 0; i < tvmaf_feature_count(); i++) {
        const char *be = tvmaf_feature_backend(p->ctx, tvmaf_feature_name(i));
        if (!be) continue;
        const size_t l = strlen(v);
        snprintf(v + l, sizeof(v) - l, "%s%s (%s)", l ? ", " : "", tvmaf_feature_name(i), be);
    }
    buf_setting(b, &first, "extractors", v);
    if (s->threads)
        snprintf(v, sizeof(v), "%u", s->threads);
    else
        snprintf(v, sizeof(v), "the %s backend's frames in flight (min(cores, 8))",
                 tvmaf_backend_name(ran));
    buf_setting(b, &first, "threads", v);
    snprintf(v, sizeof(v), "%u", s->subsample ? s->subsample : 1);
    buf_setting(b, &first, "subsample", v);
    snprintf(v, sizeof(v), "%u", p->n);
    buf_setting(b, &first, "frames read", v);
    if (s->skip_ref || s->skip_dis) {
        snprintf(v, sizeof(v), "reference %u, distorted %u", s->skip_ref, s->skip_dis);
        buf_setting(b, &first, "frames skipped", v);
    }
    if (s->scale_filter) buf_setting(b, &first, "scale", s->scale_filter);
    snprintf(v, sizeof(v), s->precision == 17 ? "max (%%.17g)" : s->precision ? "%%.%dg"
             : "default (libvmaf's %%.6f)", s->precision);
    buf_setting(b, &first, "precision", v);
    buf_add(b, "\n  ]");
}

static char *meta_text(const Settings *s, const Pair *p, const char *path_ref,
                       const TvmafVideoFormat *fr, size_t *len)
{
    Buf b = { 0 };
    buf_add(&b, "{\n  \"tvmaf_meta\": 1,\n  \"output\": ");
    buf_str(&b, p->out_path ? p->out_path : "");
    buf_add(&b, ",\n  \"reference\": ");
    meta_input(&b, s, path_ref, 0, s->skip_ref);
    buf_add(&b, ",\n  \"distorted\": ");
    meta_input(&b, s, p->path_dis, 1, s->skip_dis);
    buf_add(&b, ",\n  \"frames\": %u,\n  \"precision\": %d,\n  \"models\": [", p->n, s->precision);
    for (unsigned m = 0; !s->no_prediction && m < s->n_models; m++) {
        buf_add(&b, "%s\n    {\"label\": ", m ? "," : "");
        buf_str(&b, model_label(&s->models[m]));
        buf_add(&b, ", \"key\": ");
        buf_str(&b, tvmaf_model_name(p->model[m]));
        buf_add(&b, ", \"inputs\": [");
        meta_model_inputs(&b, p->model[m]);
        buf_add(&b, "]}");
    }
    buf_add(&b, "\n  ],\n  \"features\": [");
    for (unsigned k = 0; k < s->n_features; k++) {
        buf_add(&b, "%s", k ? ", " : "");
        buf_str(&b, s->features[k]);
    }
    buf_add(&b, "]");
    meta_settings(&b, s, p, fr);
    buf_add(&b, "\n}\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.n;
    return b.s;
}

/* The pairs of a run ------------------------------------------------------ */

typedef struct Kept {
    unsigned index;
    char *json, *meta, *out_path, *ref;
    size_t json_len, meta_len;
} Kept;

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static Kept *kept;
static unsigned n_kept, cap_kept;

typedef struct Text {
    const char *s;
    size_t n;
} Text;

static int text_writer(FILE *f, void *arg)
{
    const Text *t = arg;
    return fwrite(t->s, 1, t->n, f) == t->n ? 0 : -EIO;
}

int report_pair_done(const Settings *s, Pair *p, const char *path_ref,
                     const TvmafVideoFormat *fr, double fps)
{
    const int keep = s->report_path || s->plot_path;
    if (!keep && !s->meta) return 0;
    size_t meta_len = 0, json_len = 0;
    char *meta = meta_text(s, p, path_ref, fr, &meta_len), *json = NULL;
    if (!meta) {
        fprintf(stderr, "%s: out of memory\n", p->label);
        return -1;
    }
    /* beside a file: none for a special file (/dev/null) */
    struct stat st;
    if (s->meta && p->out_path && !(stat(p->out_path, &st) == 0 && !S_ISREG(st.st_mode))) {
        char path[4200];
        Text t = { meta, meta_len };
        if (!p->out_path || report_meta_path(path, sizeof(path), p->out_path) ||
            output_write(p->label, path, text_writer, &t)) {
            free(meta);
            return -1;
        }
    }
    if (!keep) {
        free(meta);
        return 0;
    }
    FILE *mem = open_memstream(&json, &json_len);
    int err = mem ? tvmaf_write_output(p->ctx, mem, TVMAF_OUTPUT_JSON, s->precision, fps,
                                       fr->w, fr->h) : -ENOMEM;
    if (mem && fclose(mem) && !err) err = -ENOMEM;
    pthread_mutex_lock(&kept_lock);
    if (!err && n_kept == cap_kept) {
        Kept *nk = realloc(kept, sizeof(*nk) * (cap_kept ? cap_kept * 2 : 16));
        if (nk) {
            kept = nk;
            cap_kept = cap_kept ? cap_kept * 2 : 16;
        } else {
            err = -ENOMEM;
        }
    }
    if (!err) {
        kept[n_kept++] = (Kept){ p->report_index, json, meta,
                                 p->out_path ? strdup(p->out_path) : NULL, strdup(path_ref),
                                 json_len, meta_len };
        json = meta = NULL;
    }
    pthread_mutex_unlock(&kept_lock);
    free(json);
    free(meta);
    if (err) {
        fprintf(stderr, "%s: cannot keep the pair for the report: %s\n", p->label, strerror(-err));
        return -1;
    }
    return 0;
}

static int kept_cmp(const void *a, const void *b)
{
    const Kept *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

typedef struct PageOut {
    const RepDoc *d;
    int svg;
} PageOut;

static int page_writer(FILE *f, void *arg)
{
    const PageOut *o = arg;
    return o->svg ? rep_write_svg(o->d, f) : rep_write_html(o->d, f);
}

static const char *base_name(const char *path)
{
    const char *sl = strrchr(path, '/');
    return sl ? sl + 1 : path;
}

/* Groups by reference: a ladder's pairs are one, a batch's one per reference. */
static int group_by_reference(RepDoc *d, const char *const *refs)
{
    d->group = calloc(d->n_enc ? d->n_enc : 1, sizeof(*d->group));
    if (!d->group) return -1;
    for (unsigned i = 0; i < d->n_enc; i++) {
        unsigned found = d->n_groups;
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(refs[j], refs[i])) { found = d->enc[j].group; break; }
        if (found == d->n_groups) d->group[d->n_groups++] = base_name(refs[i]);
        d->enc[i].group = found;
    }
    return 0;
}

static void doc_notes(RepDoc *d)
{
    const char *note = NULL;
    d->pictures_built = media_available(&note);
    if (!d->pictures_built) d->pictures_note = note;
}

static void doc_free(RepDoc *d)
{
    for (unsigned i = 0; i < d->n_enc; i++) rep_encode_free(&d->enc[i]);
    free(d->enc);
    free((void *)d->group);
    free(d->bd);
}

int report_run_write(const Settings *s, const char *app)
{
    if (!s->report_path && !s->plot_path) return 0;
    pthread_mutex_lock(&kept_lock);
    Kept *k = kept;
    const unsigned n = n_kept;
    kept = NULL;
    n_kept = cap_kept = 0;
    pthread_mutex_unlock(&kept_lock);
    int rc = -1;
    RepDoc d = { 0 };
    char gen[256];
    const char **refs = calloc(n ? n : 1, sizeof(*refs));
    if (!n) { /* every pair failed, and said why: no page */
        rc = 0;
        goto end;
    }
    qsort(k, n, sizeof(*k), kept_cmp);
    d.enc = calloc(n, sizeof(*d.enc));
    if (!d.enc || !refs) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    for (unsigned i = 0; i < n; i++) {
        char msg[1024];
        RepEncode *e = &d.enc[d.n_enc];
        if (rep_encode_load(e, k[i].out_path ? k[i].out_path : "the run", k[i].json,
                            k[i].json_len, "its sidecar", k[i].meta, k[i].meta_len, msg,
                            sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", app, msg);
            rep_encode_free(e);
            goto end;
        }
        e->json_path = k[i].out_path ? strdup(k[i].out_path) : NULL;
        refs[d.n_enc++] = k[i].ref;
    }
    if (group_by_reference(&d, refs)) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    snprintf(gen, sizeof(gen), "tvmaf %s (this run)", tvmaf_version());
    d.generator = gen;
    doc_notes(&d);
    if (d.pictures_built && s->report_path) media_pictures(&d);
    rc = 0;
    const char *paths[2] = { s->report_path, s->plot_path };
    for (unsigned i = 0; i < 2 && !rc; i++) {
        PageOut po = { &d, (int)i };
        if (paths[i] && output_write(app, paths[i], page_writer, &po)) rc = -1;
    }
end:
    doc_free(&d);
    for (unsigned i = 0; i < n; i++) {
        free(k[i].json);
        free(k[i].meta);
        free(k[i].out_path);
        free(k[i].ref);
    }
    free(k);
    free(refs);
    return rc;
}

/* tvmaf report --------------------------------------------------------------- */

static void report_usage(FILE *f)
{
    fprintf(f,
        "Usage: tvmaf report [options] OUTPUT.json ... -o REPORT.html\n\n"
        "One page comparing encodes from the JSON outputs of earlier runs (--json), each\n"
        "with the sidecar --meta wrote beside it (OUTPUT.json.meta.json: the inputs, the\n"
        "distorted stream's bitrate, the settings that ran); an output without one has\n"
        "its scores alone. The page: the encodes sorted by score, the rate-quality curve\n"
        "of each ladder, each key's per-frame curves overlaid, the lowest frames of each\n"
        "encode with pictures (where the videos the sidecars name can be read), the\n"
        "settings. Every score is printed as the JSON printed it.\n\n"
        " -o/--output FILE.html   the page (self-contained: no script, no network)\n"
        " --plot FILE.svg         the plots alone, as one SVG image\n"
        " --ladder NAME           the outputs after it are ladder NAME (repeatable). With\n"
        "                         two or more ladders, each is compared with the first by\n"
        "                         BD-rate and BD-VMAF (PCHIP of log10 bitrate over the\n"
        "                         shared quality range; docs/report.md): every ladder needs\n"
        "                         at least 4 encodes with a bitrate and one reference.\n"
        "                         Without --ladder the encodes are grouped by reference.\n"
        " --title TEXT            the page's title\n"
        " --no-pictures           no pictures (the videos are not read)\n"
        " --help\n\n"
        "Example:\n"
        " tvmaf -r ref.mkv -d crf23.mkv -d crf28.mkv -d crf33.mkv --meta -o %%s.json\n"
        " tvmaf report crf23.json crf28.json crf33.json -o ladder.html\n"
        " tvmaf report --ladder x264 a*.json --ladder x265 b*.json -o codecs.html\n");
}

int report_main(int argc, char **argv)
{
    const char *app = "tvmaf report";
    const char *out = NULL, *plot = NULL, *title = NULL, *ladder = NULL;
    int no_pictures = 0;
    enum { OPT_PLOT = 256, OPT_LADDER, OPT_TITLE, OPT_NO_PICTURES, OPT_HELP };
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "ladder", required_argument, NULL, OPT_LADDER },
        { "title", required_argument, NULL, OPT_TITLE },
        { "no-pictures", no_argument, NULL, OPT_NO_PICTURES },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    const char **files = calloc((size_t)argc, sizeof(*files));
    const char **ladders = calloc((size_t)argc, sizeof(*ladders));
    unsigned *file_group = calloc((size_t)argc, sizeof(*file_group));
    unsigned n_files = 0, n_ladders = 0;
    RepDoc d = { 0 };
    RunFile *rf = NULL;
    char (*metas)[4200] = NULL;
    int rc = 1;
    if (!files || !ladders || !file_group) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    optind = 1;
    opterr = 0;
    int c;
    /* "-": the files in order, so that --ladder applies to those after it */
    while ((c = getopt_long(argc, argv, "-:o:", opts, NULL)) != -1) {
        switch (c) {
        case 1:
            if (!n_ladders) ladders[n_ladders++] = NULL; /* grouped by reference */
            file_group[n_files] = n_ladders - 1;
            files[n_files++] = optarg;
            break;
        case 'o': out = optarg; break;
        case OPT_PLOT: plot = optarg; break;
        case OPT_TITLE: title = optarg; break;
        case OPT_NO_PICTURES: no_pictures = 1; break;
        case OPT_LADDER:
            if (n_ladders == 1 && !ladders[0] && n_files) {
                fprintf(stderr, "%s: give --ladder NAME before the first output: every output "
                        "then belongs to a ladder\n", app);
                goto end;
            }
            if (n_ladders == 1 && !ladders[0]) n_ladders = 0;
            ladder = optarg;
            for (unsigned g = 0; g < n_ladders; g++)
                if (!strcmp(ladders[g], ladder)) {
                    fprintf(stderr, "%s: --ladder \"%s\" is given twice\n", app, ladder);
                    goto end;
                }
            ladders[n_ladders++] = ladder;
            break;
        case OPT_HELP:
            report_usage(stdout);
            rc = 0;
            goto end;
        case ':':
            fprintf(stderr, "%s: option %s needs a value\n", app, argv[optind - 1]);
            goto end;
        default:
            fprintf(stderr, "%s: unknown option \"%s\" (see tvmaf report --help)\n", app,
                    argv[optind - 1]);
            goto end;
        }
    }
    /* a sidecar given beside its output (tvmaf report *.json) is the output's:
     * passed over; alone, refused */
    unsigned kept_files = 0;
    for (unsigned i = 0; i < n_files; i++) {
        const size_t l = strlen(files[i]), sl = strlen(".meta.json");
        int sidecar_of_given = 0;
        if (l > sl && !strcmp(files[i] + l - sl, ".meta.json")) {
            for (unsigned j = 0; j < n_files && !sidecar_of_given; j++)
                sidecar_of_given = strlen(files[j]) == l - sl &&
                                   !strncmp(files[j], files[i], l - sl);
            if (!sidecar_of_given) {
                fprintf(stderr, "%s: \"%s\" is a sidecar (--meta): give its output, \"%.*s\"\n",
                        app, files[i], (int)(l - sl), files[i]);
                goto end;
            }
            continue;
        }
        file_group[kept_files] = file_group[i];
        files[kept_files++] = files[i];
    }
    n_files = kept_files;
    if (!n_files) {
        fprintf(stderr, "%s: give the JSON outputs to compare (see tvmaf report --help)\n", app);
        goto end;
    }
    if (!out && !plot) {
        fprintf(stderr, "%s: give -o FILE.html (and/or --plot FILE.svg)\n", app);
        goto end;
    }
    if ((out && !strcmp(out, "-")) || (plot && !strcmp(plot, "-"))) {
        fprintf(stderr, "%s: the report needs a file, not stdout\n", app);
        goto end;
    }
    for (unsigned g = 0; ladders[0] && g < n_ladders; g++) {
        unsigned cnt = 0;
        for (unsigned i = 0; i < n_files; i++) cnt += file_group[i] == g;
        if (!cnt) {
            fprintf(stderr, "%s: --ladder \"%s\" names no output\n", app, ladders[g]);
            goto end;
        }
    }
    /* every file read first: a missing or foreign one stops it */
    d.enc = calloc(n_files, sizeof(*d.enc));
    metas = calloc(n_files, sizeof(*metas));
    if (!d.enc || !metas) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    for (unsigned i = 0; i < n_files; i++) {
        char msg[1024];
        size_t len = 0, mlen = 0;
        char *json = rep_read_file(files[i], &len), *meta = NULL;
        if (!json) {
            fprintf(stderr, "%s: cannot read \"%s\": %s\n", app, files[i], strerror(errno));
            goto end;
        }
        if (report_meta_path(metas[i], sizeof(metas[i]), files[i])) {
            fprintf(stderr, "%s: \"%s\": the name is too long\n", app, files[i]);
            free(json);
            goto end;
        }
        if (!access(metas[i], F_OK) && !(meta = rep_read_file(metas[i], &mlen))) {
            fprintf(stderr, "%s: cannot read \"%s\": %s\n", app, metas[i], strerror(errno));
            free(json);
            goto end;
        }
        if (!meta) metas[i][0] = '\0';
        RepEncode *e = &d.enc[d.n_enc++];
        const int bad = rep_encode_load(e, files[i], json, len, metas[i], meta, mlen, msg,
                                        sizeof(msg));
        free(json);
        free(meta);
        if (bad) {
            fprintf(stderr, "%s: %s\n", app, msg);
            goto end;
        }
        e->json_path = strdup(files[i]);
        e->group = file_group[i];
    }
    /* no output replaces an input: the outputs, their sidecars, the videos */
    rf = calloc(4 * (size_t)n_files + 2, sizeof(*rf));
    unsigned nrf = 0;
    if (!rf) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    for (unsigned i = 0; i < n_files; i++) {
        rf[nrf++] = (RunFile){ files[i], "the output", 0 };
        if (metas[i][0]) rf[nrf++] = (RunFile){ metas[i], "the sidecar", 0 };
        if (d.enc[i].ref_open) rf[nrf++] = (RunFile){ d.enc[i].ref_open, "a reference video", 0 };
        if (d.enc[i].dis_open) rf[nrf++] = (RunFile){ d.enc[i].dis_open, "a distorted video", 0 };
    }
    if (out) rf[nrf++] = (RunFile){ out, "-o", 1 };
    if (plot) rf[nrf++] = (RunFile){ plot, "--plot", 1 };
    if (output_check_run(app, rf, nrf)) goto end;
    if ((out && !output_writable(out)) || (plot && !output_writable(plot))) {
        fprintf(stderr, "%s: cannot write \"%s\": %s\n", app,
                out && !output_writable(out) ? out : plot, strerror(errno));
        goto end;
    }
    if (ladders[0]) {
        d.group = ladders;
        d.n_groups = n_ladders;
        d.bd_asked = n_ladders > 1;
    } else {
        const char **refs = calloc(n_files, sizeof(*refs));
        if (!refs) {
            fprintf(stderr, "%s: out of memory\n", app);
            goto end;
        }
        for (unsigned i = 0; i < n_files; i++)
            refs[i] = d.enc[i].ref_open ? d.enc[i].ref_open : d.enc[i].ref_path ?
                      d.enc[i].ref_path : "(reference not recorded)";
        const int bad = group_by_reference(&d, refs);
        free(refs);
        if (bad) {
            fprintf(stderr, "%s: out of memory\n", app);
            goto end;
        }
        ladders[0] = NULL;
    }
    char msg[1024];
    if (rep_compute_bd(&d, msg, sizeof(msg))) {
        fprintf(stderr, "%s: %s\n", app, msg);
        goto end;
    }
    char gen[256];
    snprintf(gen, sizeof(gen), "tvmaf %s (tvmaf report)", tvmaf_version());
    d.generator = gen;
    d.title = title;
    doc_notes(&d);
    if (no_pictures) d.pictures_note = "Pictures were not asked for (--no-pictures).";
    else if (d.pictures_built && out) media_pictures(&d);
    rc = 0;
    const char *paths[2] = { out, plot };
    for (unsigned i = 0; i < 2 && !rc; i++) {
        PageOut po = { &d, (int)i };
        if (paths[i] && output_write(app, paths[i], page_writer, &po)) rc = 1;
    }
end:
    if (d.group == ladders) d.group = NULL;
    doc_free(&d);
    free(files);
    free(ladders);
    free(file_group);
    free(metas);
    free(rf);
    return rc;
}
