/* Parsing of "opt=val:opt=val" into an extractor's state, libvmaf style. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"

void tvmaf_options_set_defaults(const TvmafOption *opts, void *priv)
{
    for (const TvmafOption *o = opts; o && o->name; o++) {
        char *dst = (char *)priv + o->offset;
        switch (o->type) {
        case TVMAF_OPT_BOOL: *(bool *)dst = o->def.b; break;
        case TVMAF_OPT_INT: *(int *)dst = o->def.i; break;
        case TVMAF_OPT_DOUBLE: *(double *)dst = o->def.d; break;
        case TVMAF_OPT_STRING:
            snprintf(dst, TVMAF_OPT_STRING_LEN, "%s", o->def.s ? o->def.s : "");
            break;
        }
    }
}

static int set_one(const TvmafOption *o, void *priv, const char *val,
                   const char *feature, char *msg, size_t msg_len)
{
    char *dst = (char *)priv + o->offset;
    char *end = NULL;
    switch (o->type) {
    case TVMAF_OPT_BOOL:
        if (!strcmp(val, "true") || !strcmp(val, "1")) *(bool *)dst = true;
        else if (!strcmp(val, "false") || !strcmp(val, "0")) *(bool *)dst = false;
        else goto bad;
        return 0;
    case TVMAF_OPT_INT: {
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || end == val || *end) goto bad;
        if ((double)v < o->min || (double)v > o->max) goto range;
        *(int *)dst = (int)v;
        return 0;
    }
    case TVMAF_OPT_DOUBLE: {
        errno = 0;
        double v = strtod(val, &end);
        if (errno || end == val || *end || !isfinite(v)) goto bad;
        if (v < o->min || v > o->max) goto range;
        *(double *)dst = v;
        return 0;
    }
    case TVMAF_OPT_STRING:
        if (strlen(val) >= TVMAF_OPT_STRING_LEN) goto bad;
        snprintf(dst, TVMAF_OPT_STRING_LEN, "%s", val);
        return 0;
    }
bad:
    snprintf(msg, msg_len, "feature \"%s\": bad value \"%s\" for option \"%s\"",
             feature, val, o->name);
    return -EINVAL;
range:
    snprintf(msg, msg_len, "feature \"%s\": option \"%s\" must be in [%g, %g], got %s",
             feature, o->name, o->min, o->max, val);
    return -EINVAL;
}

void tvmaf_options_unknown_msg(const TvmafOption *opts, const char *feature, const char *opt,
                               char *msg, size_t msg_len)
{
    if (!opts || !opts->name) {
        snprintf(msg, msg_len, "feature \"%s\" has no option \"%s\" (it takes no options)",
                 feature, opt);
        return;
    }
    int n = snprintf(msg, msg_len, "feature \"%s\" has no option \"%s\" (its options:", feature,
                     opt);
    for (const TvmafOption *o = opts; o->name && n >= 0 && (size_t)n < msg_len; o++)
        n += snprintf(msg + n, msg_len - n, "%s %s", o == opts ? "" : ",", o->name);
    if (n >= 0 && (size_t)n < msg_len)
        snprintf(msg + n, msg_len - n, "; --feature %s=help describes them)", feature);
}

int tvmaf_options_parse(const TvmafOption *opts, void *priv, const char *spec,
                        const char *feature, char *msg, size_t msg_len)
{
    if (!spec || !*spec) return 0;
    char *copy = strdup(spec);
    if (!copy) return -ENOMEM;
    int err = 0;
    char *save = NULL;
    for (char *kv = strtok_r(copy, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            snprintf(msg, msg_len, "feature \"%s\": bad option string \"%s\" "
                     "(expected opt=val)", feature, kv);
            err = -EINVAL;
            break;
        }
        *eq = '\0';
        const TvmafOption *o = opts;
        for (; o && o->name; o++)
            if (!strcmp(o->name, kv)) break;
        if (!o || !o->name) {
            tvmaf_options_unknown_msg(opts, feature, kv, msg, msg_len);
            err = -EINVAL;
            break;
        }
        err = set_one(o, priv, eq + 1, feature, msg, msg_len);
        if (err) break;
    }
    free(copy);
    return err;
}
