/* Feature option dictionaries (feature.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* A value libvmaf takes as a number: one float and nothing after it but
 * white space ("1", " 2.5 ", "1e3"). */
static bool numeric(const char *val)
{
    float f;
    char c;
    return sscanf(val, "%f %c", &f, &c) == 1;
}

/* libvmaf keeps a number as "%g" of its float value: "1.0" -> "1",
 * "0.30000001" -> "0.3". The options, and so the option-suffixed key names,
 * see that text. */
static char *stored_value(const char *val)
{
    if (!numeric(val)) return strdup(val);
    char *end = NULL;
    const double d = strtof(val, &end);
    if (d == 0 && end == val) return strdup(val);
    const int n = snprintf(NULL, 0, "%g", d);
    char *s = malloc((size_t)n + 1);
    if (s) snprintf(s, (size_t)n + 1, "%g", d);
    return s;
}

int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val)
{
    if (!dict || !key || !val) return -EINVAL;
    VmafFeatureDictionary *d = *dict;
    if (!d) {
        if (!(d = calloc(1, sizeof(*d)))) return -ENOMEM;
        *dict = d;
    }
    char *v = stored_value(val);
    if (!v) return -ENOMEM;
    for (unsigned i = 0; i < d->n; i++) {
        if (!strcmp(d->entry[i].key, key)) {
            free(d->entry[i].val);
            d->entry[i].val = v;
            return 0;
        }
    }
    if (d->n == d->cap) {
        const unsigned cap = d->cap ? 2 * d->cap : 8;
        CompatEntry *e = realloc(d->entry, cap * sizeof(*e));
        if (!e) { free(v); return -ENOMEM; }
        d->entry = e;
        d->cap = cap;
    }
    char *k = strdup(key);
    if (!k) { free(v); return -ENOMEM; }
    d->entry[d->n++] = (CompatEntry){ k, v };
    return 0;
}

int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict)
{
    if (!dict) return -EINVAL;
    VmafFeatureDictionary *d = *dict;
    if (!d) return 0;
    for (unsigned i = 0; i < d->n; i++) {
        free(d->entry[i].key);
        free(d->entry[i].val);
    }
    free(d->entry);
    free(d);
    *dict = NULL;
    return 0;
}
