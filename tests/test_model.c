/*
 * Model arithmetic against libvmaf, without any extractor: the golden
 * feature values of every clip are fed to the prediction of each model the
 * goldens were made with, and every model score must equal the golden one
 * bit for bit (vmaf, vmaf_neg, vmaf_float, vmaf_4k, vmaf_b and its members,
 * bagging, stddev and 95% interval). Then enable_transform and disable_clip,
 * which the goldens do not use, against a few scores of the reference.
 *
 * usage: test_model SHARED_DIR   (the directory holding models/ and testdata/)
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/feature_name.h"
#include "model/model.h"
#include "unit_check.h"


static int same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof(x));
    memcpy(&y, &b, sizeof(y));
    return x == y;
}

/* Option aliases of the suffixes in the golden key names (libvmaf's
 * "integer_adm2_egl_1": adm_enhn_gain_limit = 1). */
static const char *opt_alias(const char *opt)
{
    if (!strcmp(opt, "adm_enhn_gain_limit") || !strcmp(opt, "vif_enhn_gain_limit")) return "egl";
    return opt;
}

/* The golden key of a model feature: its alias, then "_ALIAS_VALUE" for each
 * option (the models' options are single and non-default). */
static void golden_key(const TvmafModelFeature *f, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s", tvmaf_feature_alias(f->name));
    for (unsigned k = 0; k < f->n_opt && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "_%s_%s", opt_alias(f->opt[k].key),
                                 f->opt[k].val);
}

static int frame_value(const json_t *metrics, const char *key, double *v)
{
    const json_t *j = json_object_get(metrics, key);
    if (!json_is_number(j)) return -1;
    *v = json_number_value(j);
    return 0;
}

static int features_of(const TvmafSvr *m, const json_t *metrics, double *x, char *missing,
                       size_t len)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        char key[256];
        golden_key(&m->feature[i], key, sizeof(key));
        if (frame_value(metrics, key, &x[i])) {
            snprintf(missing, len, "feature %s missing in the golden", key);
            return -1;
        }
    }
    return 0;
}

typedef struct Tally {
    unsigned same, total;
    char first_bad[512];
} Tally;

static void tally(Tally *t, double ours, double gold, const char *key, unsigned frame)
{
    t->total++;
    if (same_bits(ours, gold)) {
        t->same++;
    } else if (!t->first_bad[0]) {
        snprintf(t->first_bad, sizeof(t->first_bad), "frame %u %s: %.17g != %.17g", frame, key,
                 ours, gold);
    }
}

static void tally_missing(Tally *t, const char *what, unsigned frame)
{
    t->total++;
    if (!t->first_bad[0])
        snprintf(t->first_bad, sizeof(t->first_bad), "frame %u: %s", frame, what);
}

static TvmafModel *load(const char *shared, const char *file, const char *name)
{
    char path[4096], msg[1024] = "";
    snprintf(path, sizeof(path), "%s/models/%s", shared, file);
    TvmafModelConfig cfg = { .name = name, .flags = 0 };
    TvmafModel *m = NULL;
    int err = tvmaf_model_read(&m, path, &cfg, msg, sizeof(msg));
    char what[256];
    snprintf(what, sizeof(what), "read %s", file);
    check_detail(!err, what, msg);
    return err ? NULL : m;
}

/* Scores every frame of `gold` with a single model (or a collection's model
 * "0") and, for a collection, its members and statistics. */
static void score_clip(const TvmafModel *model, const json_t *gold, Tally *t)
{
    const json_t *frames = json_object_get(gold, "frames");
    size_t fi;
    json_t *fr;
    json_array_foreach(frames, fi, fr) {
        const json_t *metrics = json_object_get(fr, "metrics");
        const unsigned frame = (unsigned)fi;
        double x[TVMAF_MODEL_MAX_FEATURES], v, g;
        char msg[512] = "";

        const TvmafSvr *m = model->main;
        if (features_of(m, metrics, x, msg, sizeof(msg))) { tally_missing(t, msg, frame); continue; }
        if (tvmaf_svr_predict(m, x, 0, &v, msg, sizeof(msg))) { tally_missing(t, msg, frame); continue; }
        if (frame_value(metrics, m->name, &g)) tally_missing(t, "model key missing in the golden", frame);
        else tally(t, v, g, m->name, frame);

        if (!model->n_members) continue;
        double raw[64];
        unsigned nm = model->n_members;
        if (nm > 64) { tally_missing(t, "too many members", frame); continue; }
        int bad = 0;
        for (unsigned j = 0; j < nm && !bad; j++) {
            const TvmafSvr *mm = model->member[j];
            if (features_of(mm, metrics, x, msg, sizeof(msg)) ||
                tvmaf_svr_predict(mm, x, TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM,
                                  &raw[j], msg, sizeof(msg)) ||
                tvmaf_svr_predict(mm, x, 0, &v, msg, sizeof(msg))) {
                tally_missing(t, msg, frame);
                bad = 1;
                break;
            }
            /* the context scores a member by finishing its raw score */
            double finished = raw[j];
            tvmaf_svr_finish(mm, &finished, 0);
            if (frame_value(metrics, mm->name, &g)) tally_missing(t, "member key missing", frame);
            else if (!same_bits(finished, v)) tally_missing(t, "finish(raw) differs from predict", frame);
            else tally(t, v, g, mm->name, frame);
        }
        if (bad) continue;
        TvmafBootstrapScore b;
        tvmaf_bootstrap_stats(model->member[0], raw, nm, &b);
        static const char *const suffix[4] = { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
        const double val[4] = { b.bagging, b.stddev, b.ci_p95_lo, b.ci_p95_hi };
        for (unsigned k = 0; k < 4; k++) {
            char key[256];
            snprintf(key, sizeof(key), "%s%s", model->collection_name, suffix[k]);
            if (frame_value(metrics, key, &g)) tally_missing(t, "statistic key missing", frame);
            else tally(t, val[k], g, key, frame);
        }
    }
}

static json_t *read_golden(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, JSON_DECODE_INT_AS_REAL, &e);
    if (!j) {
        char msg[512];
        snprintf(msg, sizeof(msg), "%s (line %d)", e.text, e.line);
        check_detail(0, path, msg);
    }
    return j;
}

/*
 * The model flags, which the goldens do not exercise: scores of libvmaf
 * f85a8536 (the goldens' build options, compiled without asm, output printed
 * %.17g) for cups_576x324 with
 *   -m vmaf_v0.6.1:name=vt:enable_transform
 *   -m vmaf_v0.6.1:name=vtc:enable_transform:disable_clip
 *   -m vmaf_4k_v0.6.1:name=k4c:disable_clip
 *   -m vmaf_b_v0.6.3:name=bt:enable_transform
 * (the transform lifts scores above 100 where the clip is off, and scales
 * the collection's stddev by its slope).
 */
static const struct {
    unsigned frame;
    double vt, vtc, k4c, bt, bt_0001, bagging, stddev, lo, hi;
} flag_golden[] = {
    { 0, 97.503602857943, 97.503602857943, 90.9698191578692, 97.28542543445505,
      97.34462707819854, 96.82479753727416, 1.3755321993873448, 94.02157456744634,
      98.91664977562175 },
    { 1, 100, 100.00687261624361, 93.45160180176794, 99.56454625552078, 98.99107713639708,
      99.31225493555895, 0.927489418057367, 97.23183990977208, 100 },
    { 17, 100, 100.39843973682282, 94.00262874590516, 99.9469628709681, 99.41681517185455,
      99.69355765992825, 0.8902120709101826, 97.67230510136596, 100 },
    { 47, 99.98778759955414, 99.98778759955414, 93.36309865909806, 99.52539511726968,
      98.97681234439312, 99.27057623410923, 0.8865461152367561, 97.27746351687347, 100 },
};

static TvmafModel *load_flags(const char *shared, const char *file, const char *name,
                              unsigned flags)
{
    char path[4096], msg[1024] = "";
    snprintf(path, sizeof(path), "%s/models/%s", shared, file);
    TvmafModelConfig cfg = { .name = name, .flags = flags };
    TvmafModel *m = NULL;
    if (tvmaf_model_read(&m, path, &cfg, msg, sizeof(msg))) check_detail(0, file, msg);
    return m;
}

static void flag_cases(const char *shared, const char *gdir)
{
    TvmafModel *vt = load_flags(shared, "vmaf_v0.6.1.json", "vt", TVMAF_MODEL_ENABLE_TRANSFORM);
    TvmafModel *vtc = load_flags(shared, "vmaf_v0.6.1.json", "vtc",
                                 TVMAF_MODEL_ENABLE_TRANSFORM | TVMAF_MODEL_DISABLE_CLIP);
    TvmafModel *k4c = load_flags(shared, "vmaf_4k_v0.6.1.json", "k4c", TVMAF_MODEL_DISABLE_CLIP);
    TvmafModel *bt = load_flags(shared, "vmaf_b_v0.6.3.json", "bt", TVMAF_MODEL_ENABLE_TRANSFORM);
    char path[4096];
    snprintf(path, sizeof(path), "%s/cups_576x324.features.json", gdir);
    json_t *g = vt && vtc && k4c && bt ? read_golden(path) : NULL;
    if (!g) goto out;
    const json_t *frames = json_object_get(g, "frames");
    Tally t = { 0 };
    for (size_t r = 0; r < sizeof(flag_golden) / sizeof(flag_golden[0]); r++) {
        const unsigned f = flag_golden[r].frame;
        const json_t *metrics = json_object_get(json_array_get(frames, f), "metrics");
        double x[TVMAF_MODEL_MAX_FEATURES], v, raw[20];
        char msg[512] = "";
        const struct { TvmafModel *m; double want; } single[] = {
            { vt, flag_golden[r].vt }, { vtc, flag_golden[r].vtc }, { k4c, flag_golden[r].k4c },
            { bt, flag_golden[r].bt },
        };
        for (unsigned k = 0; k < 4; k++) {
            const TvmafSvr *m = single[k].m->main;
            if (features_of(m, metrics, x, msg, sizeof(msg)) ||
                tvmaf_svr_predict(m, x, 0, &v, msg, sizeof(msg))) {
                tally_missing(&t, msg, f);
                continue;
            }
            tally(&t, v, single[k].want, m->name, f);
        }
        if (bt->n_members != 20) { tally_missing(&t, "vmaf_b members", f); continue; }
        int bad = 0;
        for (unsigned j = 0; j < 20 && !bad; j++) {
            const TvmafSvr *m = bt->member[j];
            bad = features_of(m, metrics, x, msg, sizeof(msg)) ||
                  tvmaf_svr_predict(m, x, TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM,
                                    &raw[j], msg, sizeof(msg));
        }
        if (bad) { tally_missing(&t, msg, f); continue; }
        v = raw[0];
        tvmaf_svr_finish(bt->member[0], &v, 0);
        tally(&t, v, flag_golden[r].bt_0001, "bt_0001", f);
        TvmafBootstrapScore b;
        tvmaf_bootstrap_stats(bt->member[0], raw, 20, &b);
        tally(&t, b.bagging, flag_golden[r].bagging, "bt_bagging", f);
        tally(&t, b.stddev, flag_golden[r].stddev, "bt_stddev", f);
        tally(&t, b.ci_p95_lo, flag_golden[r].lo, "bt_ci_p95_lo", f);
        tally(&t, b.ci_p95_hi, flag_golden[r].hi, "bt_ci_p95_hi", f);
    }
    char what[256];
    snprintf(what, sizeof(what), "cups_576x324 enable_transform / disable_clip against libvmaf "
             "(%u/%u identical)", t.same, t.total);
    check_detail(t.total && t.same == t.total, what, t.first_bad);
    json_decref(g);
out:
    tvmaf_model_destroy(vt);
    tvmaf_model_destroy(vtc);
    tvmaf_model_destroy(k4c);
    tvmaf_model_destroy(bt);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : getenv("TVMAF_SHARED");
    if (!shared) shared = "../shared";
    char gdir[2048];
    snprintf(gdir, sizeof(gdir), "%s/testdata/goldens", shared);

    TvmafModel *vmaf = load(shared, "vmaf_v0.6.1.json", "vmaf");
    TvmafModel *neg = load(shared, "vmaf_v0.6.1neg.json", "vmaf_neg");
    TvmafModel *flt = load(shared, "vmaf_float_v0.6.1.json", "vmaf_float");
    TvmafModel *k4 = load(shared, "vmaf_4k_v0.6.1.json", "vmaf_4k");
    TvmafModel *boot = load(shared, "vmaf_b_v0.6.3.json", "vmaf_b");
    if (!vmaf || !neg || !flt || !k4 || !boot) goto done;
    check_detail(boot->n_members == 20 && !strcmp(boot->member[0]->name, "vmaf_b_0001") &&
          !strcmp(boot->member[19]->name, "vmaf_b_0020") &&
          !strcmp(boot->collection_name, "vmaf_b"),
          "vmaf_b_v0.6.3 is a collection of 20 members vmaf_b_0001..0020", "");

    DIR *d = opendir(gdir);
    if (!d) { check_detail(0, gdir, "cannot open the goldens"); goto done; }
    char *names[256];
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256) {
        const size_t l = strlen(de->d_name);
        if (l > 14 && !strcmp(de->d_name + l - 14, ".features.json"))
            names[n++] = strndup(de->d_name, l - 14);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);
    check_detail(n > 0, "goldens found", gdir);

    for (unsigned c = 0; c < n; c++) {
        char path[4096], what[512];
        snprintf(path, sizeof(path), "%s/%s.features.json", gdir, names[c]);
        json_t *g = read_golden(path);
        if (g) {
            Tally t = { 0 };
            score_clip(vmaf, g, &t);
            snprintf(what, sizeof(what), "%s vmaf (%u/%u identical)", names[c], t.same, t.total);
            check_detail(t.total && t.same == t.total, what, t.first_bad);
            json_decref(g);
        }
        snprintf(path, sizeof(path), "%s/%s.models.json", gdir, names[c]);
        if ((g = read_golden(path))) {
            const struct { TvmafModel *m; const char *label; } run[] = {
                { neg, "vmaf_neg" }, { flt, "vmaf_float" }, { k4, "vmaf_4k" },
                { boot, "vmaf_b (model 0, 20 members, bagging, stddev, ci_p95)" },
            };
            for (unsigned r = 0; r < 4; r++) {
                Tally t = { 0 };
                score_clip(run[r].m, g, &t);
                snprintf(what, sizeof(what), "%s %s (%u/%u identical)", names[c], run[r].label,
                         t.same, t.total);
                check_detail(t.total && t.same == t.total, what, t.first_bad);
            }
            json_decref(g);
        }
        free(names[c]);
    }

    flag_cases(shared, gdir);

done:
    tvmaf_model_destroy(vmaf);
    tvmaf_model_destroy(neg);
    tvmaf_model_destroy(flt);
    tvmaf_model_destroy(k4);
    tvmaf_model_destroy(boot);
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
