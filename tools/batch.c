/*
 * Several pairs in one process: a manifest's rows (--batch), `jobs` at a
 * time, and a ladder (-r REF -d DIS1 -d DIS2 ...), whose pairs share the
 * reference's pictures. A failed pair is reported and the others go on.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "manifest.h"
#include "outputs.h"
#include "report_cli.h"
#include "run.h"

typedef struct Batch {
    const Settings *s;
    const char *manifest;
    ManifestEntry *rows;
    char **outputs;          /* each row's output path */
    unsigned n;
    atomic_uint next;        /* the next row to take */
    unsigned char *row_failed;
    atomic_uchar *row_done;  /* scored or failed (for a summary after a signal) */
} Batch;

/* The batch being scored, for batch_interrupted(). */
static Batch *_Atomic running;

/* A row's models ("-m ARG;-m ARG" without the -m) into margs; -1 after
 * saying why. */
static int row_models(const char *label, const char *models, ModelArg *margs, unsigned *n)
{
    char *list = strdup(models), *rest = list, *one;
    if (!list) {
        fprintf(stderr, "%s: out of memory\n", label);
        return -1;
    }
    int bad = 0;
    while (!bad && (one = strsep(&rest, ";"))) {
        if (!*one) continue;
        if (*n == MAX_MODELS) {
            fprintf(stderr, "%s: at most %d models\n", label, MAX_MODELS);
            bad = 1;
        } else if (model_arg_parse(label, one, &margs[*n])) {
            bad = 1;
        } else {
            (*n)++;
        }
    }
    free(list);
    return bad || model_args_check_names(label, margs, *n) ? -1 : 0;
}

/* Scores manifest row i on device `gpu`: its own raw layout and models over
 * the settings. Returns 0, or -1 when the pair failed. */
static int batch_row(Batch *b, unsigned i, unsigned gpu)
{
    const ManifestEntry *e = &b->rows[i];
    Settings rs = *b->s;
    ModelArg margs[MAX_MODELS];
    unsigned n_margs = 0;
    char label[4200];
    snprintf(label, sizeof(label), "tvmaf: %s:%u", b->manifest, e->line);
    Pair *p = calloc(1, sizeof(*p));
    int rc = -1;
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", label);
        return -1;
    }
    if (e->w) rs.raw.w = e->w;
    if (e->h) rs.raw.h = e->h;
    if (e->bpc) rs.raw.bpc = e->bpc;
    if (e->pix_fmt) rs.raw.pix_fmt = e->pix_fmt;
    if (e->models) {
        /* the row's models replace the command line's */
        if (row_models(label, e->models, margs, &n_margs)) goto end;
        rs.models = margs;
        rs.n_models = rs.n_models_given = n_margs;
        rs.scoring = rs.n_features || n_margs;
    }
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->path_dis = e->dis;
    p->out_path = b->outputs[i];
    p->gpu = gpu;
    p->report_index = i;
    rc = run_group(&rs, label, e->ref, p, 1) ? -1 : 0;
end:
    free(p);
    model_args_free(margs, n_margs);
    return rc;
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
        if (!b->row_failed[i] && batch_row(b, i, bw->gpu)) b->row_failed[i] = 1;
        atomic_store(&b->row_done[i], 1);
    }
    return NULL;
}

void batch_interrupted(const char *signame)
{
    Batch *b = atomic_load(&running);
    if (!b) return;
    unsigned done = 0, failed = 0;
    for (unsigned i = 0; i < b->n; i++) {
        const int d = atomic_load(&b->row_done[i]) || b->row_failed[i];
        done += d;
        failed += d && b->row_failed[i];
    }
    fprintf(stderr, "tvmaf: batch: interrupted by %s: %u pair%s, %u scored, %u failed, %u not "
            "scored (their outputs are not written)\n", signame, b->n, b->n == 1 ? "" : "s",
            done - failed, failed, b->n - done);
}

/* One line at the end of several pairs: how many, how many failed and which. */
static void batch_summary(unsigned n, unsigned failed, const char *what, const unsigned *ids)
{
    fprintf(stderr, "tvmaf: batch: %u pair%s, %u scored, %u failed", n, n == 1 ? "" : "s",
            n - failed, failed);
    if (failed) {
        fprintf(stderr, " (%s", what);
        for (unsigned i = 0; i < failed && i < 20; i++) fprintf(stderr, "%s%u", i ? ", " : " ", ids[i]);
        fprintf(stderr, "%s)", failed > 20 ? ", ..." : "");
    }
    fprintf(stderr, "\n");
}

/* A row's output against the manifest, every row's inputs and the earlier
 * rows' outputs, by file identity: why it cannot be written, or "". */
static void check_row_identity(Batch *b, unsigned i, const FileId *in, const FileId *out,
                               const FileId *manifest)
{
    ManifestEntry *e = &b->rows[i];
    if (file_id_same(&out[i], manifest)) {
        snprintf(e->error, sizeof(e->error), "output \"%s\" is the manifest", b->outputs[i]);
        return;
    }
    for (unsigned k = 0; k < b->n && !e->error[0]; k++) {
        for (unsigned r = 0; r < 2; r++)
            if (file_id_same(&out[i], &in[2 * k + r])) {
                snprintf(e->error, sizeof(e->error), "output \"%s\" is line %u's %s input "
                         "(\"%s\"); it would be replaced", b->outputs[i], b->rows[k].line,
                         r ? "distorted" : "reference", r ? b->rows[k].dis : b->rows[k].ref);
                break;
            }
        if (!e->error[0] && k < i && b->outputs[k] && file_id_same(&out[i], &out[k]))
            snprintf(e->error, sizeof(e->error), "output \"%s\" is line %u's output too",
                     b->outputs[i], b->rows[k].line);
    }
}

/* Every row's output against every file of the batch (check_row_identity). */
static void check_identities(Batch *b)
{
    FileId *in = calloc(2 * (size_t)b->n, sizeof(*in)), *out = calloc(b->n, sizeof(*out));
    FileId manifest;
    file_id_get(&manifest, b->manifest, 0);
    for (unsigned i = 0; in && out && i < b->n; i++) {
        const ManifestEntry *e = &b->rows[i];
        if (e->ref) file_id_get(&in[2 * i], e->ref, 0);
        if (e->dis) file_id_get(&in[2 * i + 1], e->dis, 0);
        if (b->outputs[i]) file_id_get(&out[i], b->outputs[i], 1);
    }
    for (unsigned i = 0; in && out && i < b->n; i++)
        if (!b->rows[i].error[0] && b->outputs[i]) check_row_identity(b, i, in, out, &manifest);
    for (unsigned i = 0; in && out && i < b->n; i++) {
        file_id_free(&in[2 * i]);
        file_id_free(&in[2 * i + 1]);
        file_id_free(&out[i]);
    }
    file_id_free(&manifest);
    if (!in || !out)
        for (unsigned i = 0; i < b->n; i++)
            snprintf(b->rows[i].error, sizeof(b->rows[i].error), "out of memory");
    free(in);
    free(out);
}

/* --report, --plot and --meta's sidecars against every file of the batch
 * (the manifest, the rows' inputs and outputs); -1 after saying why. */
static int check_report_files(const Batch *b)
{
    const Settings *s = b->s;
    if (!s->report_path && !s->plot_path && !s->meta) return 0;
    RunFile *f = calloc(4 * (size_t)b->n + 3, sizeof(*f));
    char (*metas)[4200] = calloc(b->n ? b->n : 1, sizeof(*metas));
    unsigned n = 0;
    int rc = -1;
    if (!f || !metas) {
        fprintf(stderr, "tvmaf: out of memory\n");
        goto end;
    }
    f[n++] = (RunFile){ b->manifest, "the manifest", 0 };
    for (unsigned i = 0; i < b->n; i++) {
        const ManifestEntry *e = &b->rows[i];
        if (e->error[0]) continue;
        if (e->ref) f[n++] = (RunFile){ e->ref, "a reference", 0 };
        if (e->dis) f[n++] = (RunFile){ e->dis, "a distorted input", 0 };
        if (b->outputs[i]) f[n++] = (RunFile){ b->outputs[i], "a row's output", 1 };
        if (s->meta && b->outputs[i] &&
            !report_meta_path(metas[i], sizeof(metas[i]), b->outputs[i]))
            f[n++] = (RunFile){ metas[i], "a row's --meta sidecar", 1 };
    }
    if (s->report_path) f[n++] = (RunFile){ s->report_path, "--report", 1 };
    if (s->plot_path) f[n++] = (RunFile){ s->plot_path, "--plot", 1 };
    rc = output_check_run("tvmaf", f, n);
end:
    free(f);
    free(metas);
    return rc;
}

/* Every row's problems before any pair is scored: its own, its output. */
static void check_rows(Batch *b, const char *pattern, const char *out_dir)
{
    char msg[1024] = "";
    for (unsigned i = 0; i < b->n; i++) {
        ManifestEntry *e = &b->rows[i];
        char out[4096] = "";
        if (!e->error[0] && !e->output &&
            output_pair_name(out, sizeof(out), pattern, out_dir, b->s->ofmt, i + 1, e->dis, msg,
                             sizeof(msg)))
            snprintf(e->error, sizeof(e->error), "%s", msg);
        if (!e->error[0] && !e->output && !out[0])
            snprintf(e->error, sizeof(e->error), "no output: give the row an output, or -o "
                     "PATTERN or --output-dir DIR for every row");
        if (!e->error[0] && !(b->outputs[i] = strdup(e->output ? e->output : out)))
            snprintf(e->error, sizeof(e->error), "out of memory");
    }
    check_identities(b);
    for (unsigned i = 0; i < b->n; i++) {
        const ManifestEntry *e = &b->rows[i];
        if (e->error[0]) {
            fprintf(stderr, "tvmaf: %s:%u: %s\n", b->manifest, e->line, e->error);
            b->row_failed[i] = 1;
        }
    }
}

/* The rows scored by `jobs` workers. Each device is held open for the whole
 * batch by a context that scores nothing (the driver's start-up, a few
 * hundred milliseconds, once), and the pairs' contexts share it. */
static void score_rows(Batch *b, unsigned jobs)
{
    const Settings *s = b->s;
    TvmafContext *keeper[MAX_GPUS] = { NULL };
    const unsigned n_dev = s->n_gpus ? s->n_gpus : 1;
    for (unsigned d = 0; tvmaf_backend_choose(s->backend, s->gpu_index) != TVMAF_BACKEND_CPU &&
                         d < n_dev; d++) {
        const unsigned gpu = s->n_gpus ? s->gpus[d] : s->gpu_index;
        int dup = 0;
        for (unsigned e = 0; e < d; e++) dup |= s->gpus[e] == gpu;
        if (dup) continue;
        const TvmafConfiguration kcfg = { .backend = s->backend, .gpu_index = gpu,
                                          .log_level = TVMAF_LOG_WARNING };
        if (tvmaf_init(&keeper[d], &kcfg)) { tvmaf_close(keeper[d]); keeper[d] = NULL; }
    }
    if (jobs > b->n) jobs = b->n;
    pthread_t th[MAX_JOBS];
    BatchWorker bw[MAX_JOBS];
    for (unsigned w = 0; w < jobs; w++)
        bw[w] = (BatchWorker){ b, s->n_gpus ? s->gpus[w % s->n_gpus] : s->gpu_index };
    unsigned started = 0;
    for (; started + 1 < jobs; started++)
        if (pthread_create(&th[started], NULL, batch_worker, &bw[started + 1])) break;
    batch_worker(&bw[0]);
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (unsigned d = 0; d < n_dev; d++) tvmaf_close(keeper[d]);
}

int run_batch(const Settings *s, const char *manifest, const char *pattern, const char *out_dir,
              unsigned jobs)
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
    b.row_done = calloc(n, sizeof(*b.row_done));
    unsigned *ids = calloc(n, sizeof(*ids));
    int rc = 1;
    if (!b.outputs || !b.row_failed || !b.row_done || !ids) {
        fprintf(stderr, "tvmaf: out of memory for a manifest of %u rows\n", n);
        goto end;
    }
    check_rows(&b, pattern, out_dir);
    if (check_report_files(&b)) goto end;
    atomic_store(&running, &b);
    score_rows(&b, jobs);
    unsigned failed = 0;
    for (unsigned i = 0; i < n; i++)
        if (b.row_failed[i]) ids[failed++] = rows[i].line;
    /* the summary is this one from here on, even if a signal comes now */
    atomic_store(&running, NULL);
    batch_summary(n, failed, failed == 1 ? "line" : "lines", ids);
    rc = failed ? 1 : 0;
    /* one page over every pair scored (--report, --plot) */
    if (report_run_write(s, "tvmaf")) rc = 1;
end:
    atomic_store(&running, NULL);
    free((void *)b.row_done);
    for (unsigned i = 0; b.outputs && i < n; i++) free(b.outputs[i]);
    free(b.outputs);
    free(b.row_failed);
    free(ids);
    manifest_free(rows, n);
    return rc;
}

/* Each ladder pair's device and output; -1 after saying why. */
static int ladder_outputs(const Settings *s, const char *app, Pair *pairs,
                          const char *const *dis_paths, unsigned n_dis, const char *out_path,
                          const char *out_dir, char (*outs)[4096])
{
    char msg[1024];
    for (unsigned i = 0; i < n_dis; i++) {
        Pair *p = &pairs[i];
        p->path_dis = dis_paths[i];
        p->report_index = i;
        /* a ladder's pairs go round the listed devices */
        p->gpu = s->n_gpus ? s->gpus[i % s->n_gpus] : s->gpu_index;
        if (n_dis == 1)
            snprintf(p->label, sizeof(p->label), "%s", app);
        else
            snprintf(p->label, sizeof(p->label), "%s: pair %u (%s)", app, i + 1, dis_paths[i]);
        /* one pair: -o names the file as it is; several: a pattern */
        if (output_pair_name(outs[i], 4096, n_dis == 1 ? NULL : out_path, out_dir, s->ofmt,
                             i + 1, dis_paths[i], msg, sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", app, msg);
            return -1;
        }
        p->out_path = outs[i][0] ? outs[i] : n_dis == 1 ? out_path : NULL;
        /* /dev/null and other special files may take every pair's scores */
        FileId id = { 0 };
        if (p->out_path) file_id_get(&id, p->out_path, 1);
        const int special = p->out_path && !id.kind;
        file_id_free(&id);
        for (unsigned k = 0; p->out_path && !special && k < i; k++) {
            if (pairs[k].out_path && !strcmp(pairs[k].out_path, p->out_path)) {
                fprintf(stderr, "%s: pairs %u and %u would both write \"%s\": %s\n", app,
                        k + 1, i + 1, p->out_path, out_dir ? "their distorted inputs have "
                        "the same name; use -o PATTERN with %d" : "put %d (the pair's "
                        "number) or %s (the distorted input's name) in -o");
                return -1;
            }
        }
    }
    return 0;
}

/* No output of the command replaces an input or another output. */
static int ladder_files(const Settings *s, const char *app, const char *path_ref,
                        const Pair *pairs, unsigned n_dis)
{
    RunFile *f = calloc(3 * n_dis + 3, sizeof(*f));
    char (*roles)[3][48] = calloc(n_dis, sizeof(*roles));
    char (*metas)[4200] = calloc(n_dis, sizeof(*metas));
    unsigned n = 0;
    int rc = -1;
    if (!f || !roles || !metas) {
        fprintf(stderr, "%s: out of memory\n", app);
        goto end;
    }
    f[n++] = (RunFile){ path_ref, "the reference", 0 };
    for (unsigned i = 0; i < n_dis; i++) {
        snprintf(roles[i][0], sizeof(roles[i][0]), n_dis > 1 ? "pair %u's distorted input"
                 : "the distorted input", i + 1);
        snprintf(roles[i][1], sizeof(roles[i][1]), n_dis > 1 ? "pair %u's output" : "-o", i + 1);
        f[n++] = (RunFile){ pairs[i].path_dis, roles[i][0], 0 };
        if (pairs[i].out_path) f[n++] = (RunFile){ pairs[i].out_path, roles[i][1], 1 };
        /* --meta: the sidecar beside the output */
        snprintf(roles[i][2], sizeof(roles[i][2]), n_dis > 1 ? "pair %u's --meta sidecar"
                 : "the --meta sidecar", i + 1);
        if (s->meta && pairs[i].out_path && strcmp(pairs[i].out_path, "-") &&
            !report_meta_path(metas[i], sizeof(metas[i]), pairs[i].out_path))
            f[n++] = (RunFile){ metas[i], roles[i][2], 1 };
    }
    if (s->report_path) f[n++] = (RunFile){ s->report_path, "--report", 1 };
    if (s->plot_path) f[n++] = (RunFile){ s->plot_path, "--plot", 1 };
    rc = output_check_run(app, f, n);
end:
    free(f);
    free(roles);
    free(metas);
    return rc;
}

int run_ladder(const Settings *s, const char *app, const char *path_ref,
               const char *const *dis_paths, unsigned n_dis, const char *out_path,
               const char *out_dir)
{
    Pair *pairs = calloc(n_dis, sizeof(*pairs));
    char (*outs)[4096] = calloc(n_dis, sizeof(*outs));
    unsigned *ids = calloc(n_dis, sizeof(*ids));
    int ret = 1;
    if (!pairs || !outs || !ids) {
        fprintf(stderr, "%s: out of memory\n", app);
    } else if (!ladder_outputs(s, app, pairs, dis_paths, n_dis, out_path, out_dir, outs) &&
               !ladder_files(s, app, path_ref, pairs, n_dis)) {
        if (n_dis == 1 && s->n_gpus > 1) {
            ret = run_split(s, app, path_ref, dis_paths[0], pairs[0].out_path);
        } else {
            const unsigned failed = run_group(s, app, path_ref, pairs, n_dis);
            if (n_dis > 1) {
                unsigned k = 0;
                for (unsigned i = 0; i < n_dis; i++)
                    if (pairs[i].failed) ids[k++] = i + 1;
                batch_summary(n_dis, failed, failed == 1 ? "pair" : "pairs", ids);
            }
            ret = failed ? 1 : 0;
        }
        /* one page over every pair scored (--report, --plot) */
        if (report_run_write(s, app)) ret = 1;
    }
    free(pairs);
    free(outs);
    free(ids);
    return ret;
}
