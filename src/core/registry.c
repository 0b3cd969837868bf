/* The built-in extractors and the public registry queries. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tvmaf_builtins.h"
#include "core/backend.h"
#include "core/internal.h"
#include "gpu/twin.h"

#define DECLARE_EXTRACTOR(sym) extern const TvmafExtractor sym;
#define LIST_EXTRACTOR(sym) &sym,
#define DECLARE_BACKEND(sym) extern const TvmafBackendOps sym;
#define LIST_BACKEND(sym) &sym,
#define DECLARE_TWIN(plan, exec, code, ctype) extern const TvdPlan plan; \
    extern const TvdExec exec; extern const ctype code[];
#define LIST_TWIN(plan, exec, code, ctype) { &plan, &exec, code },
#define COUNT(x) + 1

TVMAF_BUILTIN_EXTRACTORS(DECLARE_EXTRACTOR)
TVMAF_BUILTIN_BACKENDS(DECLARE_BACKEND)
TVMAF_BUILTIN_TWINS(DECLARE_TWIN)

static const TvmafExtractor *const builtin_extractors[] = {
    TVMAF_BUILTIN_EXTRACTORS(LIST_EXTRACTOR)
};

const TvmafBackendOps *const tvmaf_gpu_backends[] = {
    TVMAF_BUILTIN_BACKENDS(LIST_BACKEND)
    NULL,
};

/* Twins written once (gpu/tvd.h): a plan on an executor, with its module as
 * that executor loads it. Their extractors are made from the CPU
 * extractor's descriptor when the list is first read. */
typedef struct TwinEntry {
    const TvdPlan *plan;
    const TvdExec *exec;
    const void *code;
} TwinEntry;

static const TwinEntry builtin_twins[] = {
    TVMAF_BUILTIN_TWINS(LIST_TWIN)
    { NULL, NULL, NULL },
};

#define N_BUILTIN (0 TVMAF_BUILTIN_EXTRACTORS(COUNT))
#define N_TWINS (sizeof(builtin_twins) / sizeof(builtin_twins[0]) - 1)
#define MAX_TEST_TWINS 64

static struct {
    const TvmafBackendOps *ops;
    TwinEntry twins[MAX_TEST_TWINS];
    unsigned n;
} test_backend;

static TvmafExtractor twin_extractors[N_TWINS + MAX_TEST_TWINS];
static const TvmafExtractor *all_extractors[N_BUILTIN + N_TWINS + MAX_TEST_TWINS + 1];
static pthread_once_t list_once = PTHREAD_ONCE_INIT;

static void twin_extractor(TvmafExtractor *ex, const TwinEntry *e)
{
    *ex = *e->plan->cpu;
    ex->backend = e->exec->backend;
    ex->priv_size = tvd_twin_priv_size(e->plan, e->exec);
    ex->init = NULL;
    ex->extract = NULL;
    ex->extract_prev = NULL;
    ex->gather = NULL;
    ex->close = NULL;
    if (e->plan->merge) ex->merge = e->plan->merge;
    if (e->plan->flush) ex->flush = e->plan->flush;
    ex->flags = (ex->flags & ~e->plan->flags_remove) | e->plan->flags_add;
    ex->twin = e->plan;
    ex->twin_exec = e->exec;
    ex->twin_code = e->code;
}

static void build_list(void)
{
    unsigned n = 0, t = 0;
    for (unsigned i = 0; i < N_BUILTIN; i++) all_extractors[n++] = builtin_extractors[i];
    /* up to the list's terminator (a build without GPU backends has none
     * before it, where a count loop would compare an unsigned with 0) */
    for (const TwinEntry *e = builtin_twins; e->plan; e++, t++) {
        twin_extractor(&twin_extractors[t], e);
        all_extractors[n++] = &twin_extractors[t];
    }
    for (unsigned i = 0; i < test_backend.n; i++, t++) {
        twin_extractor(&twin_extractors[t], &test_backend.twins[i]);
        all_extractors[n++] = &twin_extractors[t];
    }
    all_extractors[n] = NULL;
}

const TvmafExtractor *const *tvmaf_extractor_list(void)
{
    pthread_once(&list_once, build_list);
    return all_extractors;
}

int tvmaf_registry_test_backend(const TvmafBackendOps *ops, const TvdExec *exec,
                                const TvdPlan *const *plans, const void *const *codes,
                                unsigned n)
{
    if (n > MAX_TEST_TWINS || test_backend.ops) return -EINVAL;
    test_backend.ops = ops;
    for (unsigned i = 0; i < n; i++) test_backend.twins[i] = (TwinEntry){ plans[i], exec, codes[i] };
    test_backend.n = n;
    return 0;
}

const TvmafBackendOps *tvmaf_backend_ops(enum TvmafBackend id)
{
    for (unsigned i = 0; tvmaf_gpu_backends[i]; i++)
        if (tvmaf_gpu_backends[i]->id == id) return tvmaf_gpu_backends[i];
    return test_backend.ops && test_backend.ops->id == id ? test_backend.ops : NULL;
}

const char *tvmaf_backend_name(enum TvmafBackend id)
{
    switch (id) {
    case TVMAF_BACKEND_CPU: return "cpu";
    case TVMAF_BACKEND_CUDA: return "cuda";
    case TVMAF_BACKEND_OPENCL: return "opencl";
    default: return id == TVMAF_BACKEND_HOST ? "host" : "auto";
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
    default: return id == TVMAF_BACKEND_HOST ? "host executor" : "GPU";
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
    const TvmafExtractor *const *tvmaf_extractors = tvmaf_extractor_list();
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
