/* The built-in extractors and the public registry queries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tvmaf_builtins.h"
#include "core/backend.h"
#include "core/internal.h"

#define DECLARE_EXTRACTOR(sym) extern const TvmafExtractor sym;
#define LIST_EXTRACTOR(sym) &sym,
#define DECLARE_BACKEND(sym) extern const TvmafBackendOps sym;
#define LIST_BACKEND(sym) &sym,

TVMAF_BUILTIN_EXTRACTORS(DECLARE_EXTRACTOR)
TVMAF_BUILTIN_BACKENDS(DECLARE_BACKEND)

const TvmafExtractor *const tvmaf_extractors[] = {
    TVMAF_BUILTIN_EXTRACTORS(LIST_EXTRACTOR)
    NULL,
};

const TvmafBackendOps *const tvmaf_gpu_backends[] = {
    TVMAF_BUILTIN_BACKENDS(LIST_BACKEND)
    NULL,
};

const TvmafBackendOps *tvmaf_backend_ops(enum TvmafBackend id)
{
    for (unsigned i = 0; tvmaf_gpu_backends[i]; i++)
        if (tvmaf_gpu_backends[i]->id == id) return tvmaf_gpu_backends[i];
    return NULL;
}

const char *tvmaf_backend_name(enum TvmafBackend id)
{
    switch (id) {
    case TVMAF_BACKEND_CPU: return "cpu";
    case TVMAF_BACKEND_CUDA: return "cuda";
    case TVMAF_BACKEND_OPENCL: return "opencl";
    default: return "auto";
    }
}

int tvmaf_backend_parse(const char *name, enum TvmafBackend *backend)
{
    static const enum TvmafBackend all[] = { TVMAF_BACKEND_AUTO, TVMAF_BACKEND_CPU,
                                             TVMAF_BACKEND_CUDA, TVMAF_BACKEND_OPENCL };
    for (unsigned i = 0; name && i < sizeof(all) / sizeof(all[0]); i++) {
        if (!strcmp(name, tvmaf_backend_name(all[i]))) {
            *backend = all[i];
            return 0;
        }
    }
    return -EINVAL;
}

/* The same choice as the context's (tvmaf_init): auto takes the first GPU
 * backend of the build's list that accepts the device for auto. */
enum TvmafBackend tvmaf_backend_choose(enum TvmafBackend backend, unsigned gpu_index)
{
    if (backend != TVMAF_BACKEND_AUTO) return backend;
    const TvmafBackendOps *ops = tvmaf_auto_backend(gpu_index);
    return ops ? ops->id : TVMAF_BACKEND_CPU;
}

const TvmafBackendOps *tvmaf_auto_backend(unsigned gpu_index)
{
    for (unsigned i = 0; tvmaf_gpu_backends[i]; i++) {
        const TvmafBackendOps *ops = tvmaf_gpu_backends[i];
        if (ops->auto_ok ? ops->auto_ok(gpu_index) : ops->available(gpu_index)) return ops;
    }
    return NULL;
}

const char *tvmaf_backend_label(enum TvmafBackend id)
{
    switch (id) {
    case TVMAF_BACKEND_CPU: return "CPU";
    case TVMAF_BACKEND_CUDA: return "CUDA";
    case TVMAF_BACKEND_OPENCL: return "OpenCL";
    default: return "GPU";
    }
}

int tvmaf_cuda_available(void)
{
    const TvmafBackendOps *ops = tvmaf_backend_ops(TVMAF_BACKEND_CUDA);
    return ops && ops->available(0);
}

int tvmaf_gpu_count(enum TvmafBackend backend)
{
    if (backend == TVMAF_BACKEND_CPU || backend == TVMAF_BACKEND_AUTO) return -EINVAL;
    const TvmafBackendOps *ops = tvmaf_backend_ops(backend);
    if (!ops) return 0;
    /* the backends number their devices 0..n-1 */
    int n = 0;
    while (n < 4096 && ops->available((unsigned)n)) n++;
    return n;
}

/* Distinct names, in the order of the table. */
static const TvmafExtractor *nth_name(unsigned n)
{
    unsigned seen = 0;
    for (unsigned i = 0; tvmaf_extractors[i]; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(tvmaf_extractors[j]->name, tvmaf_extractors[i]->name)) dup = true;
        if (dup) continue;
        if (seen++ == n) return tvmaf_extractors[i];
    }
    return NULL;
}

unsigned tvmaf_feature_count(void)
{
    unsigned n = 0;
    while (nth_name(n)) n++;
    return n;
}

const char *tvmaf_feature_name(unsigned i)
{
    const TvmafExtractor *ex = nth_name(i);
    return ex ? ex->name : NULL;
}

const char *tvmaf_feature_backends(unsigned i)
{
    const TvmafExtractor *ex = nth_name(i);
    if (!ex) return NULL;
    /* "cpu", then each backend with a twin of it, space-separated */
    static _Thread_local char list[64];
    snprintf(list, sizeof(list), "%s",
             tvmaf_find_extractor(ex->name, TVMAF_BACKEND_CPU) ? "cpu" : "");
    for (unsigned b = 0; tvmaf_gpu_backends[b]; b++) {
        if (!tvmaf_find_extractor(ex->name, tvmaf_gpu_backends[b]->id)) continue;
        const size_t n = strlen(list);
        snprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "", tvmaf_gpu_backends[b]->name);
    }
    return list;
}

int tvmaf_feature_option(const char *name, unsigned j, TvmafFeatureOptionInfo *info)
{
    if (!name) return -EINVAL;
    const TvmafExtractor *ex = tvmaf_find_extractor(name, TVMAF_BACKEND_CPU);
    for (unsigned b = 0; !ex && tvmaf_gpu_backends[b]; b++)
        ex = tvmaf_find_extractor(name, tvmaf_gpu_backends[b]->id);
    if (!ex) return -ENOENT;
    unsigned n = 0;
    while (ex->options && ex->options[n].name) n++;
    if (info && j < n) {
        static const char *const type_name[] = {
            [TVMAF_OPT_BOOL] = "bool", [TVMAF_OPT_INT] = "int",
            [TVMAF_OPT_DOUBLE] = "double", [TVMAF_OPT_STRING] = "string",
        };
        const TvmafOption *o = &ex->options[j];
        *info = (TvmafFeatureOptionInfo){
            .name = o->name, .help = o->help ? o->help : "", .type = type_name[o->type],
            .min = o->min, .max = o->max,
        };
        switch (o->type) {
        case TVMAF_OPT_BOOL: info->def = o->def.b; break;
        case TVMAF_OPT_INT: info->def = o->def.i; break;
        case TVMAF_OPT_DOUBLE: info->def = o->def.d; break;
        case TVMAF_OPT_STRING: info->def_string = o->def.s ? o->def.s : ""; break;
        }
    }
    return (int)n;
}
