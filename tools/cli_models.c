/* -m arguments, libvmaf's presets (--aom_ctc, --nflx_ctc) and the listings. */
#include <dirent.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "tvmaf_config.h"

/* One key=value of an -m argument into m; -1 after saying why. */
static int model_arg_field(const char *app, const char *arg, char *kv, ModelArg *m)
{
    char *val = strchr(kv, '=');
    if (val) *val++ = '\0';
    if (!val && (!strcmp(kv, "disable_clip") || !strcmp(kv, "enable_transform"))) val = "true";
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
            fprintf(stderr, "%s: model option %s takes true or false, not \"%s\"\n", app, kv, val);
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
    return 0;
}

int model_arg_parse(const char *app, const char *arg, ModelArg *m)
{
    memset(m, 0, sizeof(*m));
    m->name = "vmaf";
    if (!(m->buf = strdup(arg))) {
        fprintf(stderr, "%s: out of memory\n", app);
        return -1;
    }
    char *rest = m->buf, *kv;
    int err = 0;
    while (!err && (kv = strsep(&rest, ":"))) err = model_arg_field(app, arg, kv, m);
    if (!err && !m->path == !m->version) {
        fprintf(stderr, "%s: -m \"%s\" needs exactly one of path=FILE and version=NAME\n",
                app, arg);
        err = -1;
    }
    if (err) {
        free(m->buf);
        m->buf = NULL;
    }
    return err;
}

void model_args_free(ModelArg *m, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(m[i].buf);
        m[i].buf = NULL;
    }
}

int model_args_check_names(const char *app, const ModelArg *m, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i + 1; j < n; j++) {
            if (!strcmp(m[i].name, m[j].name)) {
                fprintf(stderr, "%s: two models are named \"%s\"; each model needs its own "
                        "name (-m ...:name=NAME)\n", app, m[i].name);
                return -1;
            }
        }
    }
    return 0;
}

static int preset_model(const char *app, CliOptions *o, const char *spec)
{
    if (o->n_model_args == MAX_MODELS) {
        fprintf(stderr, "%s: at most %d models\n", app, MAX_MODELS);
        return -1;
    }
    if (model_arg_parse(app, spec, &o->models[o->n_model_args])) return -1;
    o->n_model_args++;
    o->n_models++;
    return 0;
}

/* Appends a feature, or with replace, takes the place of the one of the same
 * extractor name (as libvmaf's v7.0 does for float_ssim). */
static int preset_feature(const char *app, CliOptions *o, const char *spec, int replace)
{
    const size_t len = strcspn(spec, "=");
    for (unsigned i = 0; replace && i < o->s.n_features; i++) {
        if (strcspn(o->features[i], "=") == len && !strncmp(o->features[i], spec, len)) {
            o->features[i] = spec;
            return 0;
        }
    }
    if (o->s.n_features == MAX_FEATURES) {
        fprintf(stderr, "%s: at most %d --feature options\n", app, MAX_FEATURES);
        return -1;
    }
    o->features[o->s.n_features++] = spec;
    return 0;
}

/* --aom_ctc v1.0..v7.0: the models and features each version registers. */
static int aom_ctc(const char *app, const char *version, CliOptions *o)
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
    if (preset_model(app, o, "version=vmaf_v0.6.1:name=vmaf") ||
        preset_model(app, o, "version=vmaf_v0.6.1neg:name=vmaf_neg") ||
        preset_feature(app, o, "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", 0) ||
        preset_feature(app, o, "ciede", 0) ||
        preset_feature(app, o, "float_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, o, "float_ms_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, o, "psnr_hvs", 0))
        return -1;
    if (v >= 3 && preset_feature(app, o, "cambi", 0)) return -1;
    if (v >= 6) o->s.common_bitdepth = 1;
    if (v >= 7 && preset_feature(app, o, "float_ssim=scale=1:enable_db=true:clip_db=true", 1))
        return -1;
    return 0;
}

int cli_preset(const char *app, int nflx, const char *version, CliOptions *o)
{
    if (!nflx) return aom_ctc(app, version, o);
    if (strcmp(version, "v1.0")) {
        fprintf(stderr, "%s: bad nflx_ctc version \"%s\" (v1.0)\n", app, version);
        return -1;
    }
    if (preset_model(app, o, "version=vmaf_4k_v0.6.1:name=vmaf") ||
        preset_model(app, o, "version=vmaf_4k_v0.6.1neg:name=vmaf_neg") ||
        preset_feature(app, o, "psnr=enable_chroma=true:enable_apsnr=true", 0) ||
        preset_feature(app, o, "float_ssim=enable_db=true:clip_db=true", 0) ||
        preset_feature(app, o, "cambi", 0))
        return -1;
    return 0;
}

/* The model files (NAME.json) of one folder, as "  NAME  (FOLDER)". */
static void list_folder(FILE *f, const char *dir, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%.*s", (int)len, dir);
    DIR *d = opendir(path);
    if (!d) return;
    const struct dirent *e;
    while ((e = readdir(d))) {
        const size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".json") && e->d_name[0] != '.')
            fprintf(f, "%-32.*s %s\n", (int)(n - 5), e->d_name, path);
    }
    closedir(d);
}

void cli_list_models(FILE *f)
{
    /* the order -m version=NAME looks them up in */
    const char *mp = getenv("TVMAF_MODEL_PATH");
    for (const char *s = mp; s && *s;) {
        const size_t n = strcspn(s, ":");
        if (n) list_folder(f, s, n);
        s += n + (s[n] == ':');
    }
    for (unsigned i = 0; tvmaf_builtin_model_version(i); i++)
        fprintf(f, "%-32s built in\n", tvmaf_builtin_model_version(i));
    list_folder(f, TVMAF_DATADIR, strlen(TVMAF_DATADIR));
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

/* The options of extractor `name`, one paragraph each. */
static int describe_options(FILE *f, const char *name)
{
    const int n = tvmaf_feature_option(name, 0, NULL);
    if (n < 0) return n;
    if (!n) fprintf(f, "  (no options)\n");
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

void cli_list_features(FILE *f, int verbose)
{
    for (unsigned i = 0; i < tvmaf_feature_count(); i++) {
        fprintf(f, "%-16s %s\n", tvmaf_feature_name(i), tvmaf_feature_backends(i));
        if (verbose) describe_options(f, tvmaf_feature_name(i));
    }
}

int cli_feature_help(FILE *f, const char *name)
{
    if (tvmaf_feature_option(name, 0, NULL) < 0) return -1;
    const char *backends = "";
    for (unsigned i = 0; i < tvmaf_feature_count(); i++)
        if (!strcmp(tvmaf_feature_name(i), name)) backends = tvmaf_feature_backends(i);
    fprintf(f, "%s (%s), options as --feature %s=opt=val:opt=val:\n", name, backends, name);
    return describe_options(f, name);
}
