/*
 * Model files: JSON with a "model_dict" (one SVM model) or an object of
 * model_dicts keyed "0", "1", ... (a bootstrap collection), read the way
 * libvmaf's reader interprets them, with a clear message for what it cannot
 * use: missing or mistyped keys, unknown model or normalisation types, SVM
 * text that does not parse.
 *
 * Numbers are taken as doubles the way strtod reads their text (jansson is
 * asked to read integers as reals, so "1" and "1.0" are the same double).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/model.h"
#include "model/numeric.h"
#include "core/feature.h"
#include "core/options.h"

#define FAIL(...) do { snprintf(msg, msg_len, __VA_ARGS__); return -EINVAL; } while (0)

static void free_svr(TvmafSvr *m)
{
    if (!m) return;
    free(m->name);
    for (unsigned i = 0; i < m->n_features; i++) {
        TvmafModelFeature *f = &m->feature[i];
        free(f->name);
        free(f->key);
        for (unsigned k = 0; k < f->n_opt; k++) {
            free(f->opt[k].key);
            free(f->opt[k].val);
        }
        free(f->opt);
    }
    free(m->feature);
    tvmaf_svm_destroy(m->svm);
    free(m);
}

void tvmaf_model_destroy(TvmafModel *model)
{
    if (!model) return;
    free_svr(model->main);
    for (unsigned i = 0; i < model->n_members; i++) free_svr(model->member[i]);
    free(model->member);
    free(model->collection_name);
    free(model->label);
    free(model);
}

/* Reads a JSON array of numbers into v[0..n); returns n or -1 on a non-number. */
static int number_array(const json_t *a, double *v, size_t max)
{
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) {
        if (!json_is_number(e) || i >= max) return -1;
        v[i] = json_number_value(e);
    }
    return (int)json_array_size(a);
}

static int parse_transform(TvmafSvr *m, const json_t *t, unsigned flags,
                           char *msg, size_t msg_len)
{
    const char *key;
    json_t *v;
    m->transform.enabled = false;
    json_object_foreach((json_t *)t, key, v) {
        if (!strcmp(key, "enabled")) {
            if (!json_is_boolean(v)) FAIL("score_transform.enabled is not true or false");
            m->transform.enabled = json_is_true(v);
        } else if (!strcmp(key, "p0") || !strcmp(key, "p1") || !strcmp(key, "p2")) {
            bool *on = key[1] == '0' ? &m->transform.p0_on :
                       key[1] == '1' ? &m->transform.p1_on : &m->transform.p2_on;
            double *val = key[1] == '0' ? &m->transform.p0 :
                          key[1] == '1' ? &m->transform.p1 : &m->transform.p2;
            if (json_is_null(v)) {
                *on = false;
            } else if (json_is_number(v)) {
                *on = true;
                *val = json_number_value(v);
            } else {
                FAIL("score_transform.%s is neither a number nor null", key);
            }
        } else if (!strcmp(key, "knots")) {
            if (json_is_null(v)) {
                m->transform.knots_on = false;
                m->transform.n_knots = 0;
                continue;
            }
            if (!json_is_array(v)) FAIL("score_transform.knots is neither a list nor null");
            if (json_array_size(v) > TVMAF_MODEL_MAX_KNOTS)
                FAIL("score_transform.knots has more than %d points", TVMAF_MODEL_MAX_KNOTS);
            size_t i;
            json_t *p;
            json_array_foreach(v, i, p) {
                double xy[2] = { 0.0, 0.0 };
                if (!json_is_array(p) || number_array(p, xy, 2) < 0)
                    FAIL("score_transform.knots[%zu] is not a list of at most two numbers", i);
                m->transform.knot_x[i] = xy[0];
                m->transform.knot_y[i] = xy[1];
            }
            m->transform.n_knots = (unsigned)json_array_size(v);
            m->transform.knots_on = true;
        } else if (!strcmp(key, "out_lte_in") || !strcmp(key, "out_gte_in")) {
            if (!json_is_string(v)) FAIL("score_transform.%s is not a string", key);
            if (!strcmp(json_string_value(v), "true")) {
                if (key[4] == 'l') m->transform.out_lte_in = true;
                else m->transform.out_gte_in = true;
            }
        }
        /* other keys are not part of the transform */
    }
    if (!m->transform.enabled && (flags & TVMAF_MODEL_ENABLE_TRANSFORM))
        m->transform.enabled = true;
    return 0;
}

int tvmaf_model_feature_set_opt(TvmafModelFeature *f, const char *key, const char *val)
{
    for (unsigned k = 0; k < f->n_opt; k++) {
        if (!strcmp(f->opt[k].key, key)) {
            char *v = strdup(val);
            if (!v) return -ENOMEM;
            free(f->opt[k].val);
            f->opt[k].val = v;
            return 0;
        }
    }
    TvmafModelOpt *o = realloc(f->opt, (f->n_opt + 1) * sizeof(*o));
    if (!o) return -ENOMEM;
    f->opt = o;
    o[f->n_opt].key = strdup(key);
    o[f->n_opt].val = strdup(val);
    if (!o[f->n_opt].key || !o[f->n_opt].val) {
        free(o[f->n_opt].key);
        free(o[f->n_opt].val);
        return -ENOMEM;
    }
    f->n_opt++;
    return 0;
}

static int parse_opts_dicts(TvmafSvr *m, const json_t *a, char *msg, size_t msg_len)
{
    if (json_array_size(a) > m->n_features)
        FAIL("feature_opts_dicts has %zu entries for %u features", json_array_size(a),
             m->n_features);
    size_t i;
    json_t *d;
    json_array_foreach(a, i, d) {
        if (!json_is_object(d)) FAIL("feature_opts_dicts[%zu] is not an object", i);
        const char *key;
        json_t *v;
        json_object_foreach(d, key, v) {
            char buf[256];
            if (json_is_number(v)) {
                if (tvmaf_format_option_number(json_number_value(v), buf, sizeof(buf)))
                    FAIL("feature_opts_dicts[%zu].%s: value too long", i, key);
            } else if (json_is_boolean(v)) {
                snprintf(buf, sizeof(buf), "%s", json_is_true(v) ? "true" : "false");
            } else if (json_is_string(v)) {
                if ((size_t)snprintf(buf, sizeof(buf), "%s", json_string_value(v)) >= sizeof(buf))
                    FAIL("feature_opts_dicts[%zu].%s: value too long", i, key);
            } else {
                FAIL("feature_opts_dicts[%zu].%s is not a number, boolean or string", i, key);
            }
            /* a model is data a user may have been handed: its options
             * may tune an extractor, never make it write files */
            const TvmafExtractor *ex = tvmaf_extractor_providing(m->feature[i].name);
            for (const TvmafOption *o = ex ? ex->options : NULL; o && o->name; o++)
                if (!strcmp(o->name, key) && (o->flags & TVMAF_OPT_WRITES_FILES))
                    FAIL("feature_opts_dicts[%zu].%s: option \"%s\" writes files and is "
                         "refused in a model file (give it on the command line instead)",
                         i, key, key);
            if (tvmaf_model_feature_set_opt(&m->feature[i], key, buf)) {
                snprintf(msg, msg_len, "out of memory");
                return -ENOMEM;
            }
        }
    }
    return 0;
}

/* The linear_rescale slopes or intercepts: the model's own first, then one
 * per feature. */
static int parse_rescale(TvmafSvr *m, const json_t *a, bool slopes, char *msg, size_t msg_len)
{
    const char *what = slopes ? "slopes" : "intercepts";
    double v[TVMAF_MODEL_MAX_FEATURES + 1];
    if (!json_is_array(a)) FAIL("%s is not a list", what);
    const int n = number_array(a, v, TVMAF_MODEL_MAX_FEATURES + 1);
    if (n < 0) FAIL("%s is not a list of at most %d numbers", what, TVMAF_MODEL_MAX_FEATURES + 1);
    if ((unsigned)n != m->n_features + 1)
        FAIL("%s has %d numbers; linear_rescale of %u features needs %u", what, n,
             m->n_features, m->n_features + 1);
    /* Degenerate values give scores that look valid: the prediction is
     * divided by the model's own slope (0 gives inf, clipped to 100; a
     * subnormal one overflows), and a non-finite factor makes every score
     * inf or NaN. */
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k])) FAIL("%s[%d] is not a finite number", what, k);
    if (slopes && fpclassify(v[0]) != FP_NORMAL)
        FAIL("slopes[0] is %g: the model's own slope divides its prediction and must be a "
             "nonzero normal number", v[0]);
    if (slopes) m->slope = v[0]; else m->intercept = v[0];
    for (unsigned i = 0; i < m->n_features; i++) {
        if (slopes) m->feature[i].slope = v[i + 1];
        else m->feature[i].intercept = v[i + 1];
    }
    return 0;
}

static int parse_model_dict(TvmafSvr *m, const json_t *d, unsigned flags,
                            char *msg, size_t msg_len)
{
    if (!json_is_object(d)) FAIL("model_dict is not an object");
    int err;
    const json_t *v;

    if (!(v = json_object_get(d, "model_type"))) FAIL("model_dict has no model_type");
    if (!json_is_string(v)) FAIL("model_type is not a string");
    const char *type = json_string_value(v);
    if (!strcmp(type, "LIBSVMNUSVR")) m->type = TVMAF_SVR_NUSVR;
    else if (!strcmp(type, "BOOTSTRAP_LIBSVMNUSVR")) m->type = TVMAF_SVR_BOOTSTRAP_NUSVR;
    else if (!strcmp(type, "RESIDUEBOOTSTRAP_LIBSVMNUSVR")) m->type = TVMAF_SVR_RESIDUE_BOOTSTRAP_NUSVR;
    else FAIL("unknown model_type \"%s\" (LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR or "
              "RESIDUEBOOTSTRAP_LIBSVMNUSVR)", type);

    if (!(v = json_object_get(d, "norm_type"))) FAIL("model_dict has no norm_type");
    if (!json_is_string(v)) FAIL("norm_type is not a string");
    const char *norm = json_string_value(v);
    if (!strcmp(norm, "linear_rescale")) m->norm_type = TVMAF_NORM_LINEAR_RESCALE;
    else if (!strcmp(norm, "none")) m->norm_type = TVMAF_NORM_NONE;
    else FAIL("unknown norm_type \"%s\" (linear_rescale or none)", norm);

    if (!(v = json_object_get(d, "feature_names"))) FAIL("model_dict has no feature_names");
    if (!json_is_array(v)) FAIL("feature_names is not a list");
    if (!json_array_size(v)) FAIL("feature_names is empty");
    if (json_array_size(v) > TVMAF_MODEL_MAX_FEATURES)
        FAIL("more than %d feature_names", TVMAF_MODEL_MAX_FEATURES);
    m->feature = calloc(json_array_size(v), sizeof(*m->feature));
    if (!m->feature) { snprintf(msg, msg_len, "out of memory"); return -ENOMEM; }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_string(e)) FAIL("feature_names[%zu] is not a string", i);
        if (!(m->feature[i].name = strdup(json_string_value(e)))) {
            snprintf(msg, msg_len, "out of memory");
            return -ENOMEM;
        }
        m->n_features++;
    }

    if ((v = json_object_get(d, "feature_opts_dicts"))) {
        if (!json_is_array(v)) FAIL("feature_opts_dicts is not a list");
        if ((err = parse_opts_dicts(m, v, msg, msg_len))) return err;
    }

    if (m->norm_type == TVMAF_NORM_LINEAR_RESCALE) {
        if (!(v = json_object_get(d, "slopes"))) FAIL("linear_rescale model has no slopes");
        if ((err = parse_rescale(m, v, true, msg, msg_len))) return err;
        if (!(v = json_object_get(d, "intercepts"))) FAIL("linear_rescale model has no intercepts");
        if ((err = parse_rescale(m, v, false, msg, msg_len))) return err;
    }

    if ((v = json_object_get(d, "score_clip"))) {
        if (!json_is_array(v)) FAIL("score_clip is not a list");
        if (!(flags & TVMAF_MODEL_DISABLE_CLIP)) {
            double mm[2];
            const json_t *a = json_array_get(v, 0), *b = json_array_get(v, 1);
            if (!json_is_number(a) || !json_is_number(b))
                FAIL("score_clip does not start with two numbers");
            mm[0] = json_number_value(a);
            mm[1] = json_number_value(b);
            if (!isfinite(mm[0]) || !isfinite(mm[1]) || mm[0] > mm[1])
                FAIL("score_clip [%g, %g] is not a finite range [min, max]", mm[0], mm[1]);
            m->clip.enabled = true;
            m->clip.min = mm[0];
            m->clip.max = mm[1];
        }
    }

    if ((v = json_object_get(d, "chroma_correction_parameter"))) {
        if (!json_is_number(v)) FAIL("chroma_correction_parameter is not a number");
        m->chroma_from_luma.enabled = true;
        m->chroma_from_luma.parameter = json_number_value(v);
        if (!isfinite(m->chroma_from_luma.parameter))
            FAIL("chroma_correction_parameter is not a finite number");
    }

    if ((v = json_object_get(d, "score_transform"))) {
        if (!json_is_object(v)) FAIL("score_transform is not an object");
        if ((err = parse_transform(m, v, flags, msg, msg_len))) return err;
    }

    if (!(v = json_object_get(d, "model"))) FAIL("model_dict has no model (the libsvm text)");
    if (!json_is_string(v)) FAIL("model is not a string");
    char smsg[256] = "";
    err = tvmaf_svm_parse(&m->svm, json_string_value(v), json_string_length(v),
                          smsg, sizeof(smsg));
    if (err) {
        snprintf(msg, msg_len, "libsvm model text: %s", smsg);
        return err;
    }
    return 0;
}

/* Puts `pre` in front of the message, truncating its end if need be. */
static void prefix(char *msg, size_t len, const char *pre)
{
    const size_t p = strlen(pre);
    if (p + 1 >= len) return;
    size_t m = strlen(msg);
    if (p + m + 1 > len) m = len - p - 1;
    memmove(msg + p, msg, m);
    msg[p + m] = '\0';
    memcpy(msg, pre, p);
}

static int read_svr(TvmafSvr **out, const json_t *dict, const char *name, unsigned flags,
                    char *msg, size_t msg_len)
{
    TvmafSvr *m = *out = calloc(1, sizeof(*m));
    if (!m || !(m->name = strdup(name))) {
        snprintf(msg, msg_len, "out of memory");
        return -ENOMEM;
    }
    return parse_model_dict(m, dict, flags, msg, msg_len);
}

static int read_document(TvmafModel *model, const json_t *root, const TvmafModelConfig *cfg,
                         char *msg, size_t msg_len)
{
    const char *name = cfg && cfg->name ? cfg->name : "vmaf";
    const unsigned flags = cfg ? cfg->flags : 0;
    if (!json_is_object(root)) FAIL("the document is not a JSON object");

    const json_t *dict = json_object_get(root, "model_dict");
    if (dict) return read_svr(&model->main, dict, name, flags, msg, msg_len);

    /* a collection: "0" is the model of NAME, "1".."N" its members */
    const json_t *m0 = json_object_get(root, "0");
    if (!m0) FAIL("no model_dict (a model) and no \"0\" (a bootstrap collection)");
    if (!json_is_object(m0)) FAIL("\"0\" is not an object");
    const json_t *d0 = json_object_get(m0, "model_dict");
    if (!d0) FAIL("\"0\" has no model_dict");
    int err = read_svr(&model->main, d0, name, flags, msg, msg_len);
    if (err) {
        prefix(msg, msg_len, "model \"0\": ");
        return err;
    }
    for (unsigned k = 1;; k++) {
        char key[16];
        snprintf(key, sizeof(key), "%u", k);
        const json_t *mk = json_object_get(root, key);
        if (!mk) break;
        if (!json_is_object(mk) || !(dict = json_object_get(mk, "model_dict")))
            FAIL("\"%s\" has no model_dict", key);
        TvmafSvr **mem = realloc(model->member, (model->n_members + 1) * sizeof(*mem));
        if (!mem) { snprintf(msg, msg_len, "out of memory"); return -ENOMEM; }
        model->member = mem;
        mem[model->n_members] = NULL;
        const size_t n = strlen(name) + 16;
        char *mname = malloc(n);
        if (!mname) { snprintf(msg, msg_len, "out of memory"); return -ENOMEM; }
        snprintf(mname, n, "%s_%04u", name, k);
        err = read_svr(&mem[model->n_members++], dict, mname, flags, msg, msg_len);
        free(mname);
        if (err) {
            char pre[32];
            snprintf(pre, sizeof(pre), "model \"%s\": ", key);
            prefix(msg, msg_len, pre);
            return err;
        }
        const TvmafSvr *first = model->member[0], *last = mem[model->n_members - 1];
        if (last->type != first->type)
            FAIL("model \"%s\" has another model_type than model \"1\"", key);
    }
    if (!model->n_members) FAIL("bootstrap collection with no member model (\"1\", ...)");
    if (model->member[0]->type != TVMAF_SVR_BOOTSTRAP_NUSVR &&
        model->member[0]->type != TVMAF_SVR_RESIDUE_BOOTSTRAP_NUSVR)
        FAIL("collection members must be BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR");
    if (!(model->collection_name = strdup(name))) {
        snprintf(msg, msg_len, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int tvmaf_model_read_text(TvmafModel **out, const char *text, size_t len, const char *origin,
                          const TvmafModelConfig *cfg, char *msg, size_t msg_len)
{
    char inner[768] = "";
    *out = NULL;
    TvmafModel *model = calloc(1, sizeof(*model));
    if (!model || !(model->label = strdup(origin ? origin : "(memory)"))) {
        free(model);
        snprintf(msg, msg_len, "out of memory");
        return -ENOMEM;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
    int err;
    if (!root) {
        snprintf(inner, sizeof(inner), "not valid JSON: %s (line %d, column %d)", jerr.text,
                 jerr.line, jerr.column);
        err = -EINVAL;
    } else {
        err = read_document(model, root, cfg, inner, sizeof(inner));
        json_decref(root);
    }
    if (err) {
        snprintf(msg, msg_len, "model \"%s\": %s", model->label, inner);
        tvmaf_model_destroy(model);
        return err;
    }
    *out = model;
    return 0;
}

int tvmaf_model_read(TvmafModel **out, const char *path, const TvmafModelConfig *cfg,
                     char *msg, size_t msg_len)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno;
        snprintf(msg, msg_len, "model \"%s\": cannot open: %s", path, strerror(e));
        return e ? -e : -EIO;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                snprintf(msg, msg_len, "out of memory");
                return -ENOMEM;
            }
            buf = b;
        }
        const size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    const int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        snprintf(msg, msg_len, "model \"%s\": read error", path);
        return -EIO;
    }
    const int err = tvmaf_model_read_text(out, buf, len, path, cfg, msg, msg_len);
    free(buf);
    return err;
}
