/* The context (libvmaf.h) on a libtvmaf context. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"

/* The environment variable that chooses the backend of host pictures (cpu,
 * auto, cuda, opencl; default auto). VmafConfiguration.gpumask nonzero keeps
 * them on the CPU whatever it says. */
#define BACKEND_ENV "TVMAF_LIBVMAF_BACKEND"

_Static_assert((int)VMAF_LOG_LEVEL_DEBUG == (int)TVMAF_LOG_DEBUG &&
               (int)VMAF_POOL_METHOD_MIN == (int)TVMAF_POOL_MIN &&
               (int)VMAF_POOL_METHOD_HARMONIC_MEAN == (int)TVMAF_POOL_HARMONIC_MEAN,
               "log levels and pooling methods");

static long long processor_ms(void)
{
    return (long long)clock() * 1000 / CLOCKS_PER_SEC;
}

enum TvmafBackend compat_backend_of(const VmafConfiguration *cfg)
{
    if (cfg->gpumask) return TVMAF_BACKEND_CPU;
    const char *env = getenv(BACKEND_ENV);
    enum TvmafBackend b = TVMAF_BACKEND_AUTO;
    if (env && *env && tvmaf_backend_parse(env, &b)) {
        compat_log(VMAF_LOG_LEVEL_WARNING, "%s=\"%s\" is not cpu, auto, cuda or opencl: auto",
                   BACKEND_ENV, env);
        b = TVMAF_BACKEND_AUTO;
    }
    return b;
}

TvmafConfiguration compat_tv_config(const VmafConfiguration *cfg, enum TvmafBackend backend,
                                    void *cuda_context)
{
    const int level = (int)cfg->log_level;
    return (TvmafConfiguration){
        .n_threads = cfg->n_threads,
        .n_subsample = cfg->n_subsample,
        .backend = backend,
        .log_level = level < TVMAF_LOG_NONE ? TVMAF_LOG_NONE
                   : level > TVMAF_LOG_DEBUG ? TVMAF_LOG_DEBUG : (enum TvmafLogLevel)level,
        .cpumask = cfg->cpumask,
        .cuda_context = cuda_context,
    };
}

int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg)
{
    if (!vmaf) return -EINVAL;
    *vmaf = NULL;
    compat_set_log_level(cfg.log_level);
    VmafContext *v = calloc(1, sizeof(*v));
    if (!v) return -ENOMEM;
    v->cfg = cfg;
    const TvmafConfiguration tc = compat_tv_config(&cfg, compat_backend_of(&cfg), NULL);
    int err = tvmaf_init(&v->tv, &tc);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_init: %s", v->tv ? tvmaf_last_error(v->tv)
                                                                 : strerror(-err));
        tvmaf_close(v->tv);
        free(v);
        return err == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    compat_log(VMAF_LOG_LEVEL_DEBUG, "scoring on %s",
               tvmaf_backend_name(tvmaf_context_backend(v->tv)));
    *vmaf = v;
    return 0;
}

int vmaf_close(VmafContext *vmaf)
{
    if (!vmaf) return -EINVAL;
    tvmaf_close(vmaf->tv);
    free(vmaf);
    return 0;
}

const char *vmaf_version(void)
{
    return "3.2.0-tvmaf-" TVMAF_VERSION;
}

/* Registration ------------------------------------------------------------- */

/* Extractors libvmaf names after its CUDA versions; libtvmaf runs the one
 * extractor on the context's backend. */
static const char *extractor_name(const char *name)
{
    static const char *const cuda[][2] = {
        { "adm_cuda", "adm" }, { "vif_cuda", "vif" }, { "motion_cuda", "motion" },
    };
    for (size_t i = 0; i < sizeof(cuda) / sizeof(cuda[0]); i++)
        if (!strcmp(name, cuda[i][0])) return cuda[i][1];
    return name;
}

/* "name=opt=val:opt=val" of the options of `dict` the extractor has (the
 * others are ignored, as libvmaf ignores them, with a warning). */
static int feature_spec(const char *name, const VmafFeatureDictionary *dict, int n_opts,
                        char **out)
{
    size_t len = strlen(name) + 2;
    for (unsigned i = 0; dict && i < dict->n; i++)
        len += strlen(dict->entry[i].key) + strlen(dict->entry[i].val) + 2;
    char *s = malloc(len);
    if (!s) return -ENOMEM;
    size_t at = (size_t)snprintf(s, len, "%s", name);
    unsigned used = 0;
    for (unsigned i = 0; dict && i < dict->n; i++) {
        const CompatEntry *e = &dict->entry[i];
        bool known = false;
        for (int j = 0; j < n_opts && !known; j++) {
            TvmafFeatureOptionInfo info;
            known = tvmaf_feature_option(name, (unsigned)j, &info) >= 0 && !strcmp(info.name, e->key);
        }
        if (!known) {
            compat_log(VMAF_LOG_LEVEL_WARNING, "feature \"%s\" has no option \"%s\": ignored",
                       name, e->key);
            continue;
        }
        if (!*e->val || strpbrk(e->val, ":=")) {
            compat_log(VMAF_LOG_LEVEL_ERROR, "feature \"%s\": value \"%s\" of option \"%s\" "
                       "is empty or holds ':' or '='", name, e->val, e->key);
            free(s);
            return -EINVAL;
        }
        at += (size_t)snprintf(s + at, len - at, "%c%s=%s", used++ ? ':' : '=', e->key, e->val);
    }
    *out = s;
    return 0;
}

static bool can_register(VmafContext *v, const char *what)
{
    if (!v->next_index && !v->flushed) return true;
    compat_log(VMAF_LOG_LEVEL_ERROR, "%s: features are registered before the first picture",
               what);
    return false;
}

int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict)
{
    if (!vmaf || !feature_name) return -EINVAL;
    const char *name = extractor_name(feature_name);
    const int n_opts = tvmaf_feature_option(name, 0, NULL);
    if (n_opts < 0) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "no feature extractor \"%s\"", feature_name);
        return -EINVAL;
    }
    if (!can_register(vmaf, "vmaf_use_feature")) return -EINVAL;
    char *spec = NULL;
    int err = feature_spec(name, opts_dict, n_opts, &spec);
    if (err) return err;
    err = tvmaf_use_feature(vmaf->tv, spec);
    free(spec);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_last_error(vmaf->tv));
        return compat_error(err);
    }
    vmaf->registered++;
    vmaf_feature_dictionary_free(&opts_dict); /* the context's once the call succeeds */
    return 0;
}

int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model)
{
    if (!vmaf || !model) return -EINVAL;
    if (!can_register(vmaf, "vmaf_use_features_from_model")) return -EINVAL;
    int err = tvmaf_use_model(vmaf->tv, model->tm);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_model_last_error(model->tm));
        return compat_error(err);
    }
    vmaf->registered++;
    return 0;
}

int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection)
{
    if (!vmaf || !model_collection) return -EINVAL;
    if (!can_register(vmaf, "vmaf_use_features_from_model_collection")) return -EINVAL;
    int err = tvmaf_use_model(vmaf->tv, model_collection->tm);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_model_last_error(model_collection->tm));
        return compat_error(err);
    }
    vmaf->registered++;
    return 0;
}

int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name, double value,
                              unsigned index)
{
    if (!vmaf || !feature_name) return -EINVAL;
    int err = tvmaf_import_score(vmaf->tv, feature_name, value, index);
    if (err) compat_log(VMAF_LOG_LEVEL_WARNING, "%s", tvmaf_last_error(vmaf->tv));
    return err ? compat_error(err) : 0;
}

/* Pictures ------------------------------------------------------------------ */

/* The pair matches the stream's format (set by the first pair). */
static int check_pair(VmafContext *v, const VmafPicture *ref, const VmafPicture *dist)
{
    if (!compat_picture_valid(ref) || !compat_picture_valid(dist)) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_read_pictures: a picture not from "
                   "vmaf_picture_alloc() or a preallocated picture, or already released");
        return -EINVAL;
    }
    if (!v->params.set)
        v->params = (CompatPicParams){ true, ref->w[0], ref->h[0], ref->bpc, ref->pix_fmt };
    const CompatPicParams *p = &v->params;
    for (int k = 0; k < 2; k++) {
        const VmafPicture *pic = k ? dist : ref;
        if (pic->w[0] != p->w || pic->h[0] != p->h || pic->pix_fmt != p->pix_fmt ||
            pic->bpc != p->bpc) {
            compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_read_pictures: %s picture %ux%u %s %u-bit; "
                       "the stream is %ux%u %s %u-bit", k ? "distorted" : "reference",
                       pic->w[0], pic->h[0],
                       tvmaf_pix_fmt_name((enum TvmafPixelFormat)pic->pix_fmt), pic->bpc,
                       p->w, p->h, tvmaf_pix_fmt_name((enum TvmafPixelFormat)p->pix_fmt), p->bpc);
            return -EINVAL;
        }
    }
    return 0;
}

static int flush(VmafContext *v)
{
    if (v->submitted) {
        int err = tvmaf_flush(v->tv);
        if (err) {
            compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_last_error(v->tv));
            return compat_error(err);
        }
    }
    v->clock_end = processor_ms();
    v->flushed = true;
    return 0;
}

int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index)
{
    if (!vmaf) return -EINVAL;
    if (vmaf->flushed) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_read_pictures: the context is flushed");
        return -EINVAL;
    }
    if (!ref != !dist) return -EINVAL;
    if (!ref) return flush(vmaf);

    vmaf->pic_cnt++;
    int err = check_pair(vmaf, ref, dist);
    if (err) return err;
    if (index != vmaf->next_index) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_read_pictures: picture index %u, expected %u "
                   "(pairs are read in order from 0)", index, vmaf->next_index);
        return -EINVAL;
    }
    vmaf->next_index++;
    if (!vmaf->clock_begin) vmaf->clock_begin = processor_ms();
    if (!vmaf->registered) {
        /* nothing to compute: libvmaf takes the pictures and scores nothing */
        vmaf_picture_unref(ref);
        vmaf_picture_unref(dist);
        return 0;
    }
    TvmafPicture tr, td;
    compat_picture_to_tvmaf(ref, &tr);
    compat_picture_to_tvmaf(dist, &td);
    /* one picture as both: libtvmaf takes two references to it */
    if (tr.priv == td.priv && (err = tvmaf_picture_ref(&td, &tr))) return compat_error(err);
    /* libtvmaf holds them now */
    memset(ref, 0, sizeof(*ref));
    memset(dist, 0, sizeof(*dist));
    vmaf->submitted++;
    err = tvmaf_read_pictures(vmaf->tv, &tr, &td, index);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_last_error(vmaf->tv));
        return compat_error(err);
    }
    return 0;
}

int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    if (!vmaf) return -EINVAL;
    const unsigned w = cfg.pic_params.w, h = cfg.pic_params.h, bpc = cfg.pic_params.bpc;
    if (!w || !h || !cfg.pic_cnt) return -EINVAL;
    unsigned pw[3], ph[3];
    if (bpc < 8 || bpc > 16 ||
        tvmaf_plane_dims((enum TvmafPixelFormat)cfg.pic_params.pix_fmt, w, h, pw, ph)) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_preallocate_pictures: no %s %u-bit pictures",
                   tvmaf_pix_fmt_name((enum TvmafPixelFormat)cfg.pic_params.pix_fmt), bpc);
        return -EINVAL;
    }
    vmaf->pool = (CompatPicParams){ true, w, h, bpc, cfg.pic_params.pix_fmt };
    return 0;
}

int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic) return -EINVAL;
    if (!vmaf->pool.set) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "vmaf_fetch_preallocated_picture: no "
                   "vmaf_preallocate_pictures() on this context");
        return -EINVAL;
    }
    /* libtvmaf keeps released buffers of a size for the next picture of that
     * size: the pool's reuse, without a bound on the pictures out at once */
    const CompatPicParams *p = &vmaf->pool;
    return compat_picture_alloc(pic, p->pix_fmt, p->bpc, p->w, p->h, false);
}

/* Scores ------------------------------------------------------------------- */

int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name, double *score,
                                unsigned index)
{
    if (!vmaf || !feature_name || !score) return -EINVAL;
    return tvmaf_feature_score_at_index(vmaf->tv, feature_name, score, index) ? -EINVAL : 0;
}

int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high)
{
    if (!vmaf || !feature_name || !score || index_low > index_high) return -EINVAL;
    if (pool_method <= VMAF_POOL_METHOD_UNKNOWN || pool_method >= VMAF_POOL_METHOD_NB)
        return -EINVAL;
    return tvmaf_feature_score_pooled(vmaf->tv, feature_name, (enum TvmafPoolMethod)pool_method,
                                      score, index_low, index_high) ? -EINVAL : 0;
}

int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score, unsigned index)
{
    if (!vmaf || !model || !score) return -EINVAL;
    int err = tvmaf_score_model_at_index(vmaf->tv, model->tm, index, score);
    if (err) compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_model_last_error(model->tm));
    return err ? compat_error(err) : 0;
}

/* On the subsample grid, as libvmaf's pooling. */
static bool sampled(const VmafContext *v, unsigned i)
{
    return v->cfg.n_subsample <= 1 || i % v->cfg.n_subsample == 0;
}

int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model, enum VmafPoolingMethod pool_method,
                      double *score, unsigned index_low, unsigned index_high)
{
    if (!vmaf || !model || !score || index_low > index_high) return -EINVAL;
    if (pool_method == VMAF_POOL_METHOD_UNKNOWN) return -EINVAL;
    for (unsigned i = index_low;; i++) {
        double s;
        if (sampled(vmaf, i)) {
            int err = vmaf_score_at_index(vmaf, model, &s, i);
            if (err) return err;
        }
        if (i == index_high) break;
    }
    return vmaf_feature_score_pooled(vmaf, tvmaf_model_name(model->tm), pool_method, score,
                                     index_low, index_high);
}

int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score, unsigned index)
{
    if (!vmaf || !model_collection || !score) return -EINVAL;
    double s[4];
    int err = tvmaf_score_collection_at_index(vmaf->tv, model_collection->tm, index, s);
    if (err) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "%s", tvmaf_model_last_error(model_collection->tm));
        return compat_error(err);
    }
    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    score->bootstrap.bagging_score = s[0];
    score->bootstrap.stddev = s[1];
    score->bootstrap.ci.p95.lo = s[2];
    score->bootstrap.ci.p95.hi = s[3];
    return 0;
}

int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high)
{
    if (!vmaf || !model_collection || !score || index_low > index_high) return -EINVAL;
    if (pool_method == VMAF_POOL_METHOD_UNKNOWN) return -EINVAL;
    for (unsigned i = index_low;; i++) {
        VmafModelCollectionScore s;
        if (sampled(vmaf, i)) {
            int err = vmaf_score_at_index_model_collection(vmaf, model_collection, &s, i);
            if (err) return err;
        }
        if (i == index_high) break;
    }
    /* the collection's name is its model "0"'s: the key of its scores */
    const char *name = tvmaf_model_name(model_collection->tm);
    static const char *const suffix[4] = { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
    double *const out[4] = { &score->bootstrap.bagging_score, &score->bootstrap.stddev,
                             &score->bootstrap.ci.p95.lo, &score->bootstrap.ci.p95.hi };
    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    int err = 0;
    for (int k = 0; k < 4; k++) {
        char key[512];
        snprintf(key, sizeof(key), "%s%s", name, suffix[k]);
        err |= vmaf_feature_score_pooled(vmaf, key, pool_method, out[k], index_low, index_high);
    }
    return err ? -EINVAL : 0;
}

/* Output -------------------------------------------------------------------- */

/* libtvmaf's writer names libtvmaf's version; the file names the drop-in's,
 * as vmaf_version() gives it. Only the header line holds it. */
static int copy_renamed(const char *text, size_t len, FILE *out)
{
    const char *from = "\"" TVMAF_VERSION "\"";
    const char *at = memmem(text, len < 256 ? len : 256, from, strlen(from));
    if (!at) return fwrite(text, 1, len, out) == len ? 0 : -EIO;
    const size_t head = (size_t)(at - text);
    const size_t tail = len - head - strlen(from);
    if (fwrite(text, 1, head, out) != head || fprintf(out, "\"%s\"", vmaf_version()) < 0 ||
        fwrite(at + strlen(from), 1, tail, out) != tail)
        return -EIO;
    return 0;
}

int vmaf_write_output(VmafContext *vmaf, const char *output_path, enum VmafOutputFormat fmt)
{
    if (!vmaf || !output_path) return -EINVAL;
    FILE *f = fopen(output_path, "w");
    if (!f) {
        compat_log(VMAF_LOG_LEVEL_ERROR, "could not open file: %s (%s)", output_path,
                   strerror(errno));
        return -EINVAL;
    }
    static const enum TvmafOutputFormat formats[] = {
        [VMAF_OUTPUT_FORMAT_XML] = TVMAF_OUTPUT_XML, [VMAF_OUTPUT_FORMAT_JSON] = TVMAF_OUTPUT_JSON,
        [VMAF_OUTPUT_FORMAT_CSV] = TVMAF_OUTPUT_CSV, [VMAF_OUTPUT_FORMAT_SUB] = TVMAF_OUTPUT_SUB,
    };
    if (fmt <= VMAF_OUTPUT_FORMAT_NONE || fmt > VMAF_OUTPUT_FORMAT_SUB) {
        fclose(f);
        return -EINVAL;
    }
    /* libvmaf's fps: pairs per second of processor time (not to be compared) */
    const long long ms = (vmaf->flushed ? vmaf->clock_end : processor_ms()) - vmaf->clock_begin;
    const double fps = vmaf->pic_cnt / (ms / 1000.0);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int err = mem ? 0 : -ENOMEM;
    if (!err) {
        err = tvmaf_write_output(vmaf->tv, mem, formats[fmt], 0, fps, vmaf->params.w,
                                 vmaf->params.h);
        if (fclose(mem) && !err) err = -ENOMEM;
    }
    if (!err) err = copy_renamed(text, len, f);
    free(text);
    if (fclose(f) && !err) err = -EIO;
    if (err) compat_log(VMAF_LOG_LEVEL_ERROR, "could not write %s: %s", output_path,
                        strerror(-err));
    return err ? compat_error(err) : 0;
}
