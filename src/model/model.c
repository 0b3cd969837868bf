/*
 * Models in a context: loading by path or by version on the search path,
 * feature option overloads, registering the extractors a model reads, and
 * scoring every frame after the stream is flushed.
 *
 * Scores are appended to the collector as libvmaf's `vmaf` tool appends
 * them: every single model (and a collection's model "0") over all frames,
 * in the order the models were scored, then every collection's members,
 * bagging, stddev and confidence interval frame by frame. Their collector
 * orders put them after every extractor's output; the collections' keys sort
 * after every single model's, whatever order the calls come in.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvmaf_config.h"
#include "core/feature_name.h"
#include "core/internal.h"
#include "model/builtin_models.h"
#include "model/model.h"
#include "model/numeric.h"

/* Collector orders of model scores: beyond any extractor's registration
 * order; collections after single models. */
#define ORDER_MODEL (1u << 20)
#define ORDER_COLLECTION (1u << 21)

static void model_error(TvmafModel *model, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(model->msg, sizeof(model->msg), fmt, ap);
    va_end(ap);
}

const char *tvmaf_model_name(const TvmafModel *model)
{
    return model && model->main ? model->main->name : NULL;
}

const char *tvmaf_model_last_error(const TvmafModel *model)
{
    return model ? model->msg : "";
}

/* Every SVM of the model: main, then the members. */
static unsigned svr_count(const TvmafModel *m) { return 1 + m->n_members; }
static TvmafSvr *svr_at(const TvmafModel *m, unsigned i) { return i ? m->member[i - 1] : m->main; }

const TvmafExtractor *tvmaf_extractor_providing(const char *feature)
{
    const TvmafExtractor *any = NULL;
    const TvmafExtractor *const *tvmaf_extractors = tvmaf_extractor_list();
    for (unsigned i = 0; tvmaf_extractors[i]; i++) {
        const TvmafExtractor *ex = tvmaf_extractors[i];
        for (unsigned j = 0; ex->provided_features && ex->provided_features[j]; j++) {
            if (strcmp(ex->provided_features[j], feature)) continue;
            if (ex->backend == TVMAF_BACKEND_CPU) return ex;
            if (!any) any = ex;
        }
    }
    return any;
}

int tvmaf_svr_resolve(TvmafSvr *m, char *msg, size_t msg_len)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        TvmafModelFeature *f = &m->feature[i];
        if (f->ex) continue;
        if (!(f->ex = tvmaf_extractor_providing(f->name))) {
            snprintf(msg, msg_len, "feature \"%s\" is provided by no extractor of this build "
                     "(tvmaf --list-features lists them)", f->name);
            return -ENOTSUP;
        }
    }
    return 0;
}

/* Search path --------------------------------------------------------------- */

const TvmafBuiltinModel *tvmaf_builtin_model(const char *version)
{
    for (const TvmafBuiltinModel *b = tvmaf_builtin_models; b->version; b++)
        if (!strcmp(b->version, version)) return b;
    return NULL;
}

const char *tvmaf_builtin_model_version(unsigned i)
{
    for (const TvmafBuiltinModel *b = tvmaf_builtin_models; b->version; b++, i--)
        if (!i) return b->version;
    return NULL;
}

/* The model of a version: a file NAME.json in a directory of
 * $TVMAF_MODEL_PATH (so a user's copy overrides), else the built-in model
 * (*builtin set, *path NULL), else a file in the install's data directory. */
static int find_version(const char *version, char **path, const TvmafBuiltinModel **builtin,
                        char *msg, size_t msg_len)
{
    const char *env = getenv("TVMAF_MODEL_PATH");
    char searched[2048] = "";
    size_t used = 0;
    const char *dirs[2] = { env, TVMAF_DATADIR };
    *path = NULL;
    *builtin = NULL;
    for (int d = 0; d < 2; d++) {
        if (d == 1 && (*builtin = tvmaf_builtin_model(version))) return 0;
        const char *s = dirs[d];
        if (!s) continue;
        while (*s) {
            /* one directory of a colon-separated list (the data dir is one) */
            const size_t n = d == 0 ? strcspn(s, ":") : strlen(s);
            if (n) {
                const size_t len = n + strlen(version) + 7;
                char *cand = malloc(len);
                if (!cand) return -ENOMEM;
                snprintf(cand, len, "%.*s/%s.json", (int)n, s, version);
                if (!access(cand, F_OK)) {
                    *path = cand;
                    return 0;
                }
                if (used < sizeof(searched))
                    used += (size_t)snprintf(searched + used, sizeof(searched) - used, "%s%s",
                                             used ? ", " : "", cand);
                free(cand);
            }
            s += n;
            if (*s == ':') s++;
        }
    }
    char names[1024] = "";
    size_t nu = 0;
    for (const TvmafBuiltinModel *b = tvmaf_builtin_models; b->version && nu < sizeof(names); b++)
        nu += (size_t)snprintf(names + nu, sizeof(names) - nu, "%s%s", nu ? ", " : "", b->version);
    snprintf(msg, msg_len, "model version \"%s\" not found; searched %s (TVMAF_MODEL_PATH, "
             "colon-separated, lists directories of NAME.json model files) and the built-in "
             "models (%s)", version, searched, names);
    return -ENOENT;
}

int tvmaf_model_load(TvmafModel **model, const char *path, const char *version,
                     const TvmafModelConfig *cfg, char *msg, size_t msg_len)
{
    char dummy[8];
    if (!msg || !msg_len) { msg = dummy; msg_len = sizeof(dummy); }
    msg[0] = '\0';
    if (!model) return -EINVAL;
    *model = NULL;
    if (!path == !version) {
        snprintf(msg, msg_len, "a model is loaded from a path or a version, exactly one of them");
        return -EINVAL;
    }
    if (version && (!*version || strchr(version, '/'))) {
        snprintf(msg, msg_len, "bad model version \"%s\" (a name such as vmaf_v0.6.1; "
                 "use a path for a file)", version);
        return -EINVAL;
    }
    char *found = NULL;
    const TvmafBuiltinModel *builtin = NULL;
    if (version) {
        int err = find_version(version, &found, &builtin, msg, msg_len);
        if (err) return err;
        path = found;
    }
    TvmafModel *m = NULL;
    int err;
    if (builtin) {
        char origin[256];
        snprintf(origin, sizeof(origin), "%s (built-in)", version);
        err = tvmaf_model_read_text(&m, (const char *)builtin->data, builtin->size, origin, cfg,
                                    msg, msg_len);
    } else {
        err = tvmaf_model_read(&m, path, cfg, msg, msg_len);
    }
    free(found);
    if (err) return err;
    if (version) {
        char *label = strdup(version);
        if (!label) { tvmaf_model_destroy(m); return -ENOMEM; }
        free(m->label);
        m->label = label;
    }
    for (unsigned i = 0; i < svr_count(m); i++) {
        char inner[512];
        err = tvmaf_svr_resolve(svr_at(m, i), inner, sizeof(inner));
        if (err) {
            snprintf(msg, msg_len, "model \"%s\": %s", m->label, inner);
            tvmaf_model_destroy(m);
            return err;
        }
    }
    *model = m;
    return 0;
}

/* Options and keys ---------------------------------------------------------- */

/* "opt=val:opt=val" of a model feature, or "" when it has none. */
static int opt_string(const TvmafModelFeature *f, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < f->n_opt; k++) {
        const int n = snprintf(buf + used, len - used, "%s%s=%s", k ? ":" : "",
                               f->opt[k].key, f->opt[k].val);
        if (n < 0 || (size_t)n >= len - used) return -ENOSPC;
        used += (size_t)n;
    }
    return 0;
}

/* Parses the feature's options as its extractor would and derives the key it
 * writes the feature under (option suffixes included). */
static int feature_key(TvmafModel *model, const TvmafSvr *m, TvmafModelFeature *f)
{
    const TvmafExtractor *ex = f->ex;
    char opts[1024];
    if (opt_string(f, opts, sizeof(opts))) {
        model_error(model, "model \"%s\": options of feature \"%s\" are too long", m->name, f->name);
        return -EINVAL;
    }
    void *priv = calloc(1, ex->priv_size ? ex->priv_size : 1);
    if (!priv) return -ENOMEM;
    tvmaf_options_set_defaults(ex->options, priv);
    char msg[512] = "";
    int err = tvmaf_options_parse(ex->options, priv, opts, ex->name, msg, sizeof(msg));
    if (err) {
        model_error(model, "model \"%s\", feature \"%s\": %s", m->name, f->name, msg);
        free(priv);
        return err;
    }
    char key[512];
    err = tvmaf_feature_key(key, sizeof(key), f->name, ex->options, priv);
    free(priv);
    if (err) {
        model_error(model, "model \"%s\": key of feature \"%s\" is too long", m->name, f->name);
        return err;
    }
    char *k = strdup(key);
    if (!k) return -ENOMEM;
    free(f->key);
    f->key = k;
    return 0;
}

static int prepare(TvmafModel *model)
{
    for (unsigned s = 0; s < svr_count(model); s++) {
        TvmafSvr *m = svr_at(model, s);
        char msg[512];
        int err = tvmaf_svr_resolve(m, msg, sizeof(msg));
        if (err) {
            model_error(model, "model \"%s\": %s", model->label, msg);
            return err;
        }
        for (unsigned i = 0; i < m->n_features; i++)
            if ((err = feature_key(model, m, &m->feature[i]))) return err;
    }
    return 0;
}

int tvmaf_model_feature_overload(TvmafModel *model, const char *feature,
                                 const char *opt, const char *val)
{
    if (!model) return -EINVAL;
    if (!feature || !opt || !*opt || !val || !*val) {
        model_error(model, "a feature overload needs FEATURE.OPTION=VALUE");
        return -EINVAL;
    }
    if (strpbrk(opt, ":=") || strchr(val, ':')) {
        model_error(model, "option \"%s\" of \"%s\": ':' and '=' cannot be part of a name or "
                    "value", opt, feature);
        return -EINVAL;
    }
    char norm[256];
    if (tvmaf_normalize_option_value(val, norm, sizeof(norm))) {
        model_error(model, "value of %s.%s is too long", feature, opt);
        return -EINVAL;
    }
    unsigned matched = 0;
    for (unsigned s = 0; s < svr_count(model); s++) {
        TvmafSvr *m = svr_at(model, s);
        for (unsigned i = 0; i < m->n_features; i++) {
            TvmafModelFeature *f = &m->feature[i];
            if (!f->ex || strcmp(f->ex->name, feature)) continue;
            const TvmafOption *o = f->ex->options;
            while (o && o->name && strcmp(o->name, opt)) o++;
            if (!o || !o->name) {
                char m[512];
                tvmaf_options_unknown_msg(f->ex->options, feature, opt, m, sizeof(m));
                model_error(model, "%s", m);
                return -EINVAL;
            }
            if (tvmaf_model_feature_set_opt(f, opt, norm)) return -ENOMEM;
            matched++;
        }
    }
    if (!matched) {
        model_error(model, "model \"%s\" reads no feature of extractor \"%s\"", model->label,
                    feature);
        return -ENOENT;
    }
    return 0;
}

int tvmaf_use_model(TvmafContext *ctx, TvmafModel *model)
{
    if (!ctx || !model) return -EINVAL;
    int err = prepare(model);
    if (err) return err;
    /* a collection's extractors are those of its members (as libvmaf) */
    const unsigned first = model->n_members ? 1 : 0;
    for (unsigned s = first; s < svr_count(model); s++) {
        const TvmafSvr *m = svr_at(model, s);
        for (unsigned i = 0; i < m->n_features; i++) {
            const TvmafModelFeature *f = &m->feature[i];
            char spec[1024], opts[1024];
            if (opt_string(f, opts, sizeof(opts)) ||
                (size_t)snprintf(spec, sizeof(spec), "%s%s%s", f->ex->name, *opts ? "=" : "",
                                 opts) >= sizeof(spec)) {
                model_error(model, "model \"%s\": options of feature \"%s\" are too long",
                            m->name, f->name);
                return -EINVAL;
            }
            if ((err = tvmaf_use_feature(ctx, spec))) {
                model_error(model, "model \"%s\": %s", model->label, tvmaf_last_error(ctx));
                return err;
            }
        }
    }
    return 0;
}

/* Scoring ------------------------------------------------------------------- */

/* The distinct keys a model reads, and where each feature finds its value. */
typedef struct Inputs {
    const char **key;
    double *value;
    unsigned n;
    unsigned *slot; /* per SVM, per feature: index into key[] */
    unsigned *base; /* per SVM: first entry of slot[] */
} Inputs;

static void inputs_free(Inputs *in)
{
    free(in->key);
    free(in->value);
    free(in->slot);
    free(in->base);
}

static int inputs_init(Inputs *in, const TvmafModel *model)
{
    unsigned total = 0;
    memset(in, 0, sizeof(*in));
    for (unsigned s = 0; s < svr_count(model); s++) total += svr_at(model, s)->n_features;
    in->key = calloc(total, sizeof(*in->key));
    in->value = calloc(total, sizeof(*in->value));
    in->slot = calloc(total, sizeof(*in->slot));
    in->base = calloc(svr_count(model), sizeof(*in->base));
    if (!in->key || !in->value || !in->slot || !in->base) return -ENOMEM;
    unsigned at = 0;
    for (unsigned s = 0; s < svr_count(model); s++) {
        const TvmafSvr *m = svr_at(model, s);
        in->base[s] = at;
        for (unsigned i = 0; i < m->n_features; i++, at++) {
            const char *k = m->feature[i].key;
            unsigned j = 0;
            while (j < in->n && strcmp(in->key[j], k)) j++;
            if (j == in->n) in->key[in->n++] = k;
            in->slot[at] = j;
        }
    }
    return 0;
}

/* Reads every input of frame i; names the first missing one. */
static int inputs_read(Inputs *in, TvmafCollector *c, unsigned i, TvmafModel *model)
{
    for (unsigned j = 0; j < in->n; j++) {
        const int k = tvmaf_collector_find(c, in->key[j]);
        if (k < 0 || !tvmaf_collector_get(c, (unsigned)k, i, &in->value[j])) {
            model_error(model, "model \"%s\": no value of feature \"%s\" at frame %u",
                        model->label, tvmaf_feature_alias(in->key[j]), i);
            return -EINVAL;
        }
    }
    return 0;
}

static void gather(const Inputs *in, unsigned s, const TvmafSvr *m, double *x)
{
    for (unsigned f = 0; f < m->n_features; f++) x[f] = in->value[in->slot[in->base[s] + f]];
}

static bool have_value(TvmafCollector *c, const char *key, unsigned i)
{
    double v;
    const int k = tvmaf_collector_find(c, key);
    return k >= 0 && tvmaf_collector_get(c, (unsigned)k, i, &v);
}

static int predict(TvmafModel *model, const TvmafSvr *m, const double *x, unsigned flags,
                   double *score)
{
    char msg[512] = "";
    int err = tvmaf_svr_predict(m, x, flags, score, msg, sizeof(msg));
    if (err) model_error(model, "%s", msg[0] ? msg : "prediction failed");
    return err;
}

static int append(TvmafModel *model, TvmafCollector *c, const char *key, unsigned i,
                  double v, TvmafOrder *order)
{
    int err = tvmaf_collector_append(c, key, i, v, *order);
    order->seq++;
    if (err == -EEXIST)
        model_error(model, "model \"%s\": key \"%s\" already has a score at frame %u "
                    "(models need distinct names)", model->label, key, i);
    else if (err)
        model_error(model, "model \"%s\": cannot store scores (%s)", model->label, strerror(-err));
    return err;
}

int tvmaf_score_model(TvmafContext *ctx, TvmafModel *model)
{
    if (!ctx || !model) return -EINVAL;
    TvmafCollector *c = tvmaf_context_collector(ctx);
    const unsigned n = tvmaf_context_pic_count(ctx);
    const unsigned sub = tvmaf_context_subsample(ctx);
    if (!n) {
        model_error(model, "model \"%s\": no frame was scored", model->label);
        return -EINVAL;
    }
    int err = prepare(model);
    if (err) return err;
    Inputs in;
    if ((err = inputs_init(&in, model))) { inputs_free(&in); return err; }

    double x[TVMAF_MODEL_MAX_FEATURES];
    const unsigned base = tvmaf_collector_key_count(c);
    TvmafOrder order = { UINT32_MAX, ORDER_MODEL + base, 0 };

    /* the model itself, over all frames; a score already there is kept
     * (libvmaf reads a model's key before predicting it) */
    const TvmafSvr *main = model->main;
    for (unsigned i = 0; i < n && !err; i++) {
        if (sub > 1 && i % sub) continue;
        if (have_value(c, main->name, i)) continue;
        double v;
        if ((err = inputs_read(&in, c, i, model))) break;
        gather(&in, 0, main, x);
        if ((err = predict(model, main, x, 0, &v))) break;
        err = append(model, c, main->name, i, v, &order);
    }

    /* a collection: members, then the statistics, frame by frame */
    if (!err && model->n_members) {
        const unsigned nm = model->n_members;
        double *raw = calloc(nm, sizeof(*raw));
        const size_t nlen = strlen(model->collection_name) + 16;
        char *name = malloc(nlen);
        if (!raw || !name) err = -ENOMEM;
        order = (TvmafOrder){ UINT32_MAX, ORDER_COLLECTION + base, 0 };
        static const char *const suffix[4] = { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
        for (unsigned i = 0; i < n && !err; i++) {
            if (sub > 1 && i % sub) continue;
            snprintf(name, nlen, "%s%s", model->collection_name, suffix[0]);
            if (have_value(c, name, i)) continue; /* scored by an earlier call */
            if ((err = inputs_read(&in, c, i, model))) break;
            for (unsigned j = 0; j < nm && !err; j++) {
                const TvmafSvr *m = model->member[j];
                double v;
                gather(&in, j + 1, m, x);
                /* the statistics use unclipped, untransformed scores; the
                 * member's own score transforms and clips the same value */
                if ((err = predict(model, m, x, TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM,
                                   &raw[j]))) break;
                v = raw[j];
                tvmaf_svr_finish(m, &v, 0);
                err = append(model, c, m->name, i, v, &order);
            }
            if (err) break;
            TvmafBootstrapScore b;
            tvmaf_bootstrap_stats(model->member[0], raw, nm, &b);
            const double val[4] = { b.bagging, b.stddev, b.ci_p95_lo, b.ci_p95_hi };
            for (unsigned k = 0; k < 4 && !err; k++) {
                snprintf(name, nlen, "%s%s", model->collection_name, suffix[k]);
                err = append(model, c, name, i, val[k], &order);
            }
        }
        free(raw);
        free(name);
    }
    inputs_free(&in);
    if (err == -ENOMEM) model_error(model, "out of memory");
    return err;
}

/* One frame at a time (libvmaf's vmaf_score_at_index and
 * vmaf_score_at_index_model_collection) --------------------------------------- */

unsigned tvmaf_model_members(const TvmafModel *model)
{
    return model ? model->n_members : 0;
}

/* Keeps a score as the caller's key of this moment (listed after the keys
 * there are, in the order the calls keep them). */
static int keep(TvmafModel *model, TvmafContext *ctx, const char *key, unsigned i, double v)
{
    TvmafOrder order = tvmaf_context_caller_order(ctx);
    return append(model, tvmaf_context_collector(ctx), key, i, v, &order);
}

/* The model's inputs at frame i, in `in` (its keys resolved with the
 * model's current options). */
static int inputs_at(TvmafContext *ctx, TvmafModel *model, unsigned i, Inputs *in)
{
    int err = prepare(model);
    if (err) return err;
    if ((err = inputs_init(in, model))) {
        model_error(model, "out of memory");
        return err;
    }
    return inputs_read(in, tvmaf_context_collector(ctx), i, model);
}

int tvmaf_score_model_at_index(TvmafContext *ctx, TvmafModel *model, unsigned index,
                               double *score)
{
    if (!ctx || !model || !score) return -EINVAL;
    tvmaf_context_wait_idle(ctx);
    TvmafCollector *c = tvmaf_context_collector(ctx);
    const TvmafSvr *main = model->main;
    const int k = tvmaf_collector_find(c, main->name);
    if (k >= 0 && tvmaf_collector_get(c, (unsigned)k, index, score)) return 0;
    Inputs in;
    memset(&in, 0, sizeof(in));
    double x[TVMAF_MODEL_MAX_FEATURES], v;
    int err = inputs_at(ctx, model, index, &in);
    if (!err) {
        gather(&in, 0, main, x);
        err = predict(model, main, x, 0, &v);
    }
    if (!err) err = keep(model, ctx, main->name, index, v);
    inputs_free(&in);
    if (!err) *score = v;
    return err;
}

int tvmaf_score_collection_at_index(TvmafContext *ctx, TvmafModel *model, unsigned index,
                                    double stats[4])
{
    if (!ctx || !model || !stats) return -EINVAL;
    if (!model->n_members) {
        model_error(model, "model \"%s\" is not a bootstrap collection", model->label);
        return -EINVAL;
    }
    tvmaf_context_wait_idle(ctx);
    TvmafCollector *c = tvmaf_context_collector(ctx);
    static const char *const suffix[4] = { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
    const size_t nlen = strlen(model->collection_name) + 16;
    char *name = malloc(nlen);
    const unsigned nm = model->n_members;
    double *raw = calloc(nm, sizeof(*raw));
    Inputs in;
    memset(&in, 0, sizeof(in));
    int err = !name || !raw ? -ENOMEM : 0;
    if (err) model_error(model, "out of memory");
    /* scored by an earlier call: its values */
    unsigned have = 0;
    for (unsigned s = 0; !err && s < 4; s++) {
        snprintf(name, nlen, "%s%s", model->collection_name, suffix[s]);
        const int k = tvmaf_collector_find(c, name);
        have += k >= 0 && tvmaf_collector_get(c, (unsigned)k, index, &stats[s]);
    }
    if (!err && have < 4) err = inputs_at(ctx, model, index, &in);
    for (unsigned j = 0; !err && have < 4 && j < nm; j++) {
        const TvmafSvr *m = model->member[j];
        double x[TVMAF_MODEL_MAX_FEATURES], v;
        gather(&in, j + 1, m, x);
        /* the statistics take the unclipped, untransformed scores; the
         * member's own score is that value transformed and clipped */
        if ((err = predict(model, m, x, TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM,
                           &raw[j]))) break;
        v = raw[j];
        tvmaf_svr_finish(m, &v, 0);
        err = keep(model, ctx, m->name, index, v);
    }
    if (!err && have < 4) {
        TvmafBootstrapScore b;
        tvmaf_bootstrap_stats(model->member[0], raw, nm, &b);
        const double val[4] = { b.bagging, b.stddev, b.ci_p95_lo, b.ci_p95_hi };
        for (unsigned s = 0; !err && s < 4; s++) {
            snprintf(name, nlen, "%s%s", model->collection_name, suffix[s]);
            err = keep(model, ctx, name, index, val[s]);
            stats[s] = val[s];
        }
    }
    inputs_free(&in);
    free(raw);
    free(name);
    return err;
}
