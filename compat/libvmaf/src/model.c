/* Models and bootstrap collections (model.h) on libtvmaf's models. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* libvmaf's load-time flags; VMAF_MODEL_FLAG_DISABLE_TRANSFORM acts only
 * when libvmaf predicts internally, never at load. */
static TvmafModelConfig model_config(const VmafModelConfig *cfg)
{
    TvmafModelConfig tc = { cfg->name, 0 };
    if (cfg->flags & VMAF_MODEL_FLAG_DISABLE_CLIP) tc.flags |= TVMAF_MODEL_DISABLE_CLIP;
    if (cfg->flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM) tc.flags |= TVMAF_MODEL_ENABLE_TRANSFORM;
    return tc;
}

static bool builtin(const char *version)
{
    for (unsigned i = 0; tvmaf_builtin_model_version(i); i++)
        if (!strcmp(tvmaf_builtin_model_version(i), version)) return true;
    return false;
}

/* A model by version (path NULL) or from a file; want_collection: a
 * bootstrap collection is required, else a single model. */
static int load(TvmafModel **tm, const VmafModelConfig *cfg, const char *version,
                const char *path, bool want_collection)
{
    *tm = NULL;
    if (version && !builtin(version)) {
        compat_log(VMAF_LOG_LEVEL_WARNING, "no such built-in model%s: \"%s\"",
                   want_collection ? " collection" : "", version);
        return -EINVAL;
    }
    const TvmafModelConfig tc = model_config(cfg);
    char msg[1024] = "";
    int err = tvmaf_model_load(tm, path, version, &tc, msg, sizeof(msg));
    if (err) {
        if (path)
            compat_log(VMAF_LOG_LEVEL_ERROR, "could not read model%s from path \"%s\": %s",
                       want_collection ? " collection" : "", path, msg);
        else
            compat_log(VMAF_LOG_LEVEL_ERROR, "could not load model \"%s\": %s", version, msg);
        return compat_error(err);
    }
    const bool collection = tvmaf_model_members(*tm) > 0;
    if (collection != want_collection) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "\"%s\" is %s: %s loads it", path ? path : version,
                   collection ? "a bootstrap model collection" : "a single model",
                   collection ? "vmaf_model_collection_load()" : "vmaf_model_load()");
        tvmaf_model_destroy(*tm);
        *tm = NULL;
        return -EINVAL;
    }
    return 0;
}

static int load_model(VmafModel **model, VmafModelConfig *cfg, const char *version,
                      const char *path)
{
    if (!model || !cfg || (!version && !path)) return -EINVAL;
    *model = NULL;
    VmafModel *m = calloc(1, sizeof(*m));
    if (!m) return -ENOMEM;
    int err = load(&m->tm, cfg, version, path, false);
    if (err) {
        free(m);
        return err;
    }
    *model = m;
    return 0;
}

int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg, const char *version)
{
    return load_model(model, cfg, version, NULL);
}

int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg, const char *path)
{
    return load_model(model, cfg, NULL, path);
}

void vmaf_model_destroy(VmafModel *model)
{
    if (!model) return;
    tvmaf_model_destroy(model->tm);
    free(model);
}

static int load_collection(VmafModel **model, VmafModelCollection **mc, VmafModelConfig *cfg,
                           const char *version, const char *path)
{
    if (!model || !mc || !cfg || (!version && !path)) return -EINVAL;
    *model = NULL;
    *mc = NULL;
    VmafModel *m = calloc(1, sizeof(*m));
    VmafModelCollection *c = calloc(1, sizeof(*c));
    int err = m && c ? 0 : -ENOMEM;
    if (!err) err = load(&m->tm, cfg, version, path, true);
    if (!err) err = load(&c->tm, cfg, version, path, true);
    if (err) {
        if (m) tvmaf_model_destroy(m->tm);
        if (c) tvmaf_model_destroy(c->tm);
        free(m);
        free(c);
        return err;
    }
    *model = m;
    *mc = c;
    return 0;
}

int vmaf_model_collection_load(VmafModel **model, VmafModelCollection **model_collection,
                               VmafModelConfig *cfg, const char *version)
{
    return load_collection(model, model_collection, cfg, version, NULL);
}

int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg, const char *path)
{
    return load_collection(model, model_collection, cfg, NULL, path);
}

void vmaf_model_collection_destroy(VmafModelCollection *model_collection)
{
    if (!model_collection) return;
    tvmaf_model_destroy(model_collection->tm);
    free(model_collection);
}

/* Whether extractor `feature` has an option `opt`. */
static bool has_option(const char *feature, const char *opt, int n_opts)
{
    for (int j = 0; j < n_opts; j++) {
        TvmafFeatureOptionInfo info;
        if (tvmaf_feature_option(feature, (unsigned)j, &info) == n_opts &&
            !strcmp(info.name, opt))
            return true;
    }
    return false;
}

int compat_model_overload(TvmafModel *tm, const char *feature, const VmafFeatureDictionary *dict)
{
    const int n_opts = tvmaf_feature_option(feature, 0, NULL);
    if (n_opts < 0) return 0; /* no extractor of that name computes any of its features */
    for (unsigned i = 0; dict && i < dict->n; i++) {
        const CompatEntry *e = &dict->entry[i];
        if (!has_option(feature, e->key, n_opts)) {
            compat_log(VMAF_LOG_LEVEL_WARNING, "feature \"%s\" has no option \"%s\": ignored",
                       feature, e->key);
            continue;
        }
        const int err = tvmaf_model_feature_overload(tm, feature, e->key, e->val);
        if (err == -ENOENT) return 0; /* the model reads no feature of that extractor */
        if (err) {
            compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_model_last_error(tm));
            return compat_error(err);
        }
    }
    return 0;
}

int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict)
{
    if (!model || !feature_name || !opts_dict) return -EINVAL;
    int err = compat_model_overload(model->tm, feature_name, opts_dict);
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}

int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict)
{
    if (!model_collection || !*model_collection || !model || !feature_name || !opts_dict)
        return -EINVAL;
    int err = compat_model_overload((*model_collection)->tm, feature_name, opts_dict);
    if (!err) err = compat_model_overload(model->tm, feature_name, opts_dict);
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}
