/*
 * Scores a raw YUV pair through libvmaf's API (the drop-in, or any
 * libvmaf 3.x) the way a program built for libvmaf does, and writes the
 * exact doubles it reads back through that API: per-frame values
 * (vmaf_feature_score_at_index, vmaf_score_at_index) and pooled values
 * (vmaf_feature_score_pooled, vmaf_score_pooled,
 * vmaf_score_pooled_model_collection), as JSON with "%.17g" numbers in the
 * goldens' layout; and, on request, libvmaf's own outputs (vmaf_write_output).
 *
 *   compat_score --ref F --dis F --w W --h H --layout 420|422|444|400 --bits B
 *                [--threads N] [--subsample N] [--frames N] [--prealloc]
 *                [--feature NAME[:OPT=VAL...]]... [--model SPEC]...
 *                [--key KEY]... --json OUT [--output FMT=PATH]...
 *
 * A model SPEC is version=V or path=P, then :name=N, :collection (a
 * bootstrap collection: model "0" and its members), :FEATURE.OPT=VAL (a
 * feature overload). Uses only libvmaf's headers, so it also builds against
 * the reference's own (docs/libvmaf.md, the one-off check).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/libvmaf.h>

#define MAX_ITEMS 256

typedef struct ModelSpec {
    VmafModel *model;
    VmafModelCollection *collection;
    char name[128];
} ModelSpec;

static void die(const char *what, int err)
{
    fprintf(stderr, "compat_score: %s failed (%d)\n", what, err);
    exit(1);
}

static void put_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fprintf(f, "null");
}

/* "key=val:key=val" after a name: a dictionary (NULL when empty). */
static VmafFeatureDictionary *parse_opts(char *s)
{
    VmafFeatureDictionary *d = NULL;
    for (char *kv = strtok(s, ":"); kv; kv = strtok(NULL, ":")) {
        char *eq = strchr(kv, '=');
        if (!eq) die("an option without '='", -EINVAL);
        *eq = '\0';
        int err = vmaf_feature_dictionary_set(&d, kv, eq + 1);
        if (err) die("vmaf_feature_dictionary_set", err);
    }
    return d;
}

static void load_model(ModelSpec *m, char *spec)
{
    VmafModelConfig cfg = { .name = NULL, .flags = VMAF_MODEL_FLAGS_DEFAULT };
    char *version = NULL, *path = NULL, *overloads[32];
    unsigned n_over = 0;
    int collection = 0;
    for (char *kv = strtok(spec, ":"); kv; kv = strtok(NULL, ":")) {
        if (!strncmp(kv, "version=", 8)) version = kv + 8;
        else if (!strncmp(kv, "path=", 5)) path = kv + 5;
        else if (!strncmp(kv, "name=", 5)) cfg.name = kv + 5;
        else if (!strcmp(kv, "collection")) collection = 1;
        else if (strchr(kv, '.') && n_over < 32) overloads[n_over++] = kv;
        else die("a model option", -EINVAL);
    }
    snprintf(m->name, sizeof(m->name), "%s", cfg.name ? cfg.name : "vmaf");
    int err;
    if (collection)
        err = version ? vmaf_model_collection_load(&m->model, &m->collection, &cfg, version)
                      : vmaf_model_collection_load_from_path(&m->model, &m->collection, &cfg, path);
    else
        err = version ? vmaf_model_load(&m->model, &cfg, version)
                      : vmaf_model_load_from_path(&m->model, &cfg, path);
    if (err) die("loading a model", err);
    for (unsigned i = 0; i < n_over; i++) {
        char *dot = strchr(overloads[i], '.');
        *dot = '\0';
        char *opt = dot + 1, *eq = strchr(opt, '=');
        if (!eq) die("a feature overload without '='", -EINVAL);
        *eq = '\0';
        VmafFeatureDictionary *d = NULL;
        if ((err = vmaf_feature_dictionary_set(&d, opt, eq + 1))) die("dictionary", err);
        err = m->collection
            ? vmaf_model_collection_feature_overload(m->model, &m->collection, overloads[i], d)
            : vmaf_model_feature_overload(m->model, overloads[i], d);
        if (err) die("a feature overload", err);
    }
}

static int read_plane(FILE *f, VmafPicture *p, int plane)
{
    const size_t bytes = p->bpc > 8 ? 2 : 1, row = p->w[plane] * bytes;
    for (unsigned y = 0; y < p->h[plane]; y++)
        if (fread((char *)p->data[plane] + y * p->stride[plane], 1, row, f) != row) return -1;
    return 0;
}

static int read_picture(FILE *f, VmafPicture *p)
{
    for (int k = 0; k < 3; k++)
        if (p->w[k] && read_plane(f, p, k)) return -1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *ref_path = NULL, *dis_path = NULL, *json_path = NULL;
    const char *features[MAX_ITEMS], *keys[MAX_ITEMS], *outputs[8];
    char *models[16];
    unsigned n_features = 0, n_keys = 0, n_models = 0, n_outputs = 0;
    unsigned w = 0, h = 0, bits = 8, threads = 0, subsample = 1, max_frames = ~0u;
    int prealloc = 0;
    enum VmafPixelFormat fmt = VMAF_PIX_FMT_YUV420P;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--prealloc")) { prealloc = 1; continue; }
        if (!v) die("an option without its value", -EINVAL);
        i++;
        if (!strcmp(a, "--ref")) ref_path = v;
        else if (!strcmp(a, "--dis")) dis_path = v;
        else if (!strcmp(a, "--w")) w = (unsigned)atoi(v);
        else if (!strcmp(a, "--h")) h = (unsigned)atoi(v);
        else if (!strcmp(a, "--bits")) bits = (unsigned)atoi(v);
        else if (!strcmp(a, "--threads")) threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--subsample")) subsample = (unsigned)atoi(v);
        else if (!strcmp(a, "--frames")) max_frames = (unsigned)atoi(v);
        else if (!strcmp(a, "--json")) json_path = v;
        else if (!strcmp(a, "--layout"))
            fmt = !strcmp(v, "420") ? VMAF_PIX_FMT_YUV420P : !strcmp(v, "422") ? VMAF_PIX_FMT_YUV422P
                : !strcmp(v, "444") ? VMAF_PIX_FMT_YUV444P : VMAF_PIX_FMT_YUV400P;
        else if (!strcmp(a, "--feature") && n_features < MAX_ITEMS) features[n_features++] = v;
        else if (!strcmp(a, "--key") && n_keys < MAX_ITEMS) keys[n_keys++] = v;
        else if (!strcmp(a, "--model") && n_models < 16) models[n_models++] = strdup(v);
        else if (!strcmp(a, "--output") && n_outputs < 8) outputs[n_outputs++] = v;
        else die("an unknown option", -EINVAL);
    }
    if (!ref_path || !dis_path || !w || !h || !json_path) die("the arguments", -EINVAL);

    VmafConfiguration cfg = {
        .log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = threads, .n_subsample = subsample,
    };
    VmafContext *vmaf;
    int err = vmaf_init(&vmaf, cfg);
    if (err) die("vmaf_init", err);

    ModelSpec spec[16];
    memset(spec, 0, sizeof(spec));
    for (unsigned i = 0; i < n_models; i++) {
        load_model(&spec[i], models[i]);
        err = spec[i].collection
            ? vmaf_use_features_from_model_collection(vmaf, spec[i].collection)
            : vmaf_use_features_from_model(vmaf, spec[i].model);
        if (err) die("vmaf_use_features_from_model", err);
    }
    for (unsigned i = 0; i < n_features; i++) {
        char *s = strdup(features[i]), *colon = strchr(s, ':');
        if (colon) *colon++ = '\0';
        VmafFeatureDictionary *d = colon ? parse_opts(colon) : NULL;
        if ((err = vmaf_use_feature(vmaf, s, d))) die("vmaf_use_feature", err);
        free(s);
    }
    if (prealloc) {
        VmafPictureConfiguration pc = {
            .pic_params = { .w = w, .h = h, .bpc = bits, .pix_fmt = fmt }, .pic_cnt = 4,
        };
        if ((err = vmaf_preallocate_pictures(vmaf, pc))) die("vmaf_preallocate_pictures", err);
    }

    FILE *rf = fopen(ref_path, "rb"), *df = fopen(dis_path, "rb");
    if (!rf || !df) die("opening the inputs", -errno);
    unsigned n = 0;
    for (; n < max_frames; n++) {
        VmafPicture ref, dis;
        err = prealloc ? vmaf_fetch_preallocated_picture(vmaf, &ref)
                       : vmaf_picture_alloc(&ref, fmt, bits, w, h);
        if (!err) err = prealloc ? vmaf_fetch_preallocated_picture(vmaf, &dis)
                                 : vmaf_picture_alloc(&dis, fmt, bits, w, h);
        if (err) die("allocating a picture", err);
        if (read_picture(rf, &ref) || read_picture(df, &dis)) {
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dis);
            break;
        }
        if ((err = vmaf_read_pictures(vmaf, &ref, &dis, n))) die("vmaf_read_pictures", err);
    }
    fclose(rf);
    fclose(df);
    if ((err = vmaf_read_pictures(vmaf, NULL, NULL, 0))) die("flushing", err);

    /* the models' scores, as a caller asks for them: pooled over every frame */
    for (unsigned i = 0; i < n_models; i++) {
        double mean;
        if ((err = vmaf_score_pooled(vmaf, spec[i].model, VMAF_POOL_METHOD_MEAN, &mean, 0, n - 1)))
            die("vmaf_score_pooled", err);
        if (spec[i].collection) {
            VmafModelCollectionScore s;
            if ((err = vmaf_score_pooled_model_collection(vmaf, spec[i].collection,
                                                          VMAF_POOL_METHOD_MEAN, &s, 0, n - 1)))
                die("vmaf_score_pooled_model_collection", err);
            printf("%s: %.6f (bagging %.6f, stddev %.6f, ci95 %.6f %.6f)\n", spec[i].name, mean,
                   s.bootstrap.bagging_score, s.bootstrap.stddev, s.bootstrap.ci.p95.lo,
                   s.bootstrap.ci.p95.hi);
        } else {
            printf("%s: %.6f\n", spec[i].name, mean);
        }
    }

    FILE *out = fopen(json_path, "w");
    if (!out) die("opening the JSON output", -errno);
    fprintf(out, "{\n  \"frames\": [");
    for (unsigned i = 0; i < n; i++) {
        if (subsample > 1 && i % subsample) continue;
        fprintf(out, "%s\n    {\"frameNum\": %u, \"metrics\": {", i ? "," : "", i);
        unsigned m = 0;
        for (unsigned k = 0; k < n_keys; k++) {
            double v;
            if (vmaf_feature_score_at_index(vmaf, keys[k], &v, i)) continue;
            fprintf(out, "%s\"%s\": ", m++ ? ", " : "", keys[k]);
            put_num(out, v);
        }
        fprintf(out, "}}");
    }
    fprintf(out, "\n  ],\n  \"pooled_metrics\": {");
    static const char *const pool_name[] = { "", "min", "max", "mean", "harmonic_mean" };
    unsigned m = 0;
    for (unsigned k = 0; k < n_keys; k++) {
        double v[5];
        int ok = 1;
        for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB && ok; p++)
            ok = !vmaf_feature_score_pooled(vmaf, keys[k], p, &v[p], 0, n - 1);
        if (!ok) continue;
        fprintf(out, "%s\n    \"%s\": {", m++ ? "," : "", keys[k]);
        for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++) {
            fprintf(out, "%s\"%s\": ", p > 1 ? ", " : "", pool_name[p]);
            put_num(out, v[p]);
        }
        fprintf(out, "}");
    }
    fprintf(out, "\n  }\n}\n");
    fclose(out);

    for (unsigned i = 0; i < n_outputs; i++) {
        char *s = strdup(outputs[i]), *eq = strchr(s, '=');
        if (!eq) die("--output FMT=PATH", -EINVAL);
        *eq = '\0';
        const enum VmafOutputFormat f = !strcmp(s, "xml") ? VMAF_OUTPUT_FORMAT_XML
                                      : !strcmp(s, "json") ? VMAF_OUTPUT_FORMAT_JSON
                                      : !strcmp(s, "csv") ? VMAF_OUTPUT_FORMAT_CSV
                                      : VMAF_OUTPUT_FORMAT_SUB;
        if ((err = vmaf_write_output(vmaf, eq + 1, f))) die("vmaf_write_output", err);
        free(s);
    }

    for (unsigned i = 0; i < n_models; i++) {
        vmaf_model_destroy(spec[i].model);
        vmaf_model_collection_destroy(spec[i].collection);
        free(models[i]);
    }
    vmaf_close(vmaf);
    return 0;
}
