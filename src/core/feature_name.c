#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature_name.h"

static const char *const alias_table[][2] = {
    { "VMAF_feature_adm2_score", "adm2" },
    { "VMAF_feature_aim_score", "aim" },
    { "VMAF_feature_adm3_score", "adm3" },
    { "VMAF_feature_adm_scale0_score", "adm_scale0" },
    { "VMAF_feature_adm_scale1_score", "adm_scale1" },
    { "VMAF_feature_adm_scale2_score", "adm_scale2" },
    { "VMAF_feature_adm_scale3_score", "adm_scale3" },
    { "VMAF_feature_motion_score", "motion" },
    { "VMAF_feature_motion2_score", "motion2" },
    { "VMAF_feature_motion3_score", "motion3" },
    { "VMAF_feature_vif_scale0_score", "vif_scale0" },
    { "VMAF_feature_vif_scale1_score", "vif_scale1" },
    { "VMAF_feature_vif_scale2_score", "vif_scale2" },
    { "VMAF_feature_vif_scale3_score", "vif_scale3" },
    { "VMAF_integer_feature_adm2_score", "integer_adm2" },
    { "VMAF_integer_feature_aim_score", "integer_aim" },
    { "VMAF_integer_feature_adm3_score", "integer_adm3" },
    { "VMAF_integer_feature_motion_score", "integer_motion" },
    { "VMAF_integer_feature_motion2_score", "integer_motion2" },
    { "VMAF_integer_feature_motion3_score", "integer_motion3" },
    { "VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0" },
    { "VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1" },
    { "VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2" },
    { "VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3" },
    { "Cambi_feature_cambi_score", "cambi" },
    { "Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u" },
    { "Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v" },
    { "Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv" },
    { "Speed_temporal_feature_speed_temporal_score", "speed_temporal" },
};

const char *tvmaf_feature_alias(const char *name)
{
    for (size_t i = 0; i < sizeof(alias_table) / sizeof(alias_table[0]); i++)
        if (!strcmp(name, alias_table[i][0])) return alias_table[i][1];
    return name;
}

static bool is_default(const TvmafOption *o, const void *priv)
{
    const char *p = (const char *)priv + o->offset;
    switch (o->type) {
    case TVMAF_OPT_BOOL: return *(const bool *)p == o->def.b;
    case TVMAF_OPT_INT: return *(const int *)p == o->def.i;
    case TVMAF_OPT_DOUBLE: return *(const double *)p == o->def.d;
    case TVMAF_OPT_STRING: return !strcmp(p, o->def.s ? o->def.s : "");
    }
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const TvmafOption *const *)a)->name, (*(const TvmafOption *const *)b)->name);
}

int tvmaf_feature_key(char *buf, size_t len, const char *name, const TvmafOption *opts,
                      const void *priv)
{
    const TvmafOption *set[64];
    size_t n = 0;
    for (const TvmafOption *o = opts; o && o->name && n < 64; o++)
        if ((o->flags & TVMAF_OPT_FEATURE_PARAM) && !is_default(o, priv)) set[n++] = o;
    if (!n) return (size_t)snprintf(buf, len, "%s", name) < len ? 0 : -ENOSPC;
    qsort(set, n, sizeof(set[0]), by_name);
    size_t used = (size_t)snprintf(buf, len, "%s", tvmaf_feature_alias(name));
    for (size_t i = 0; i < n && used < len; i++) {
        const TvmafOption *o = set[i];
        const char *key = o->alias ? o->alias : o->name;
        const char *p = (const char *)priv + o->offset;
        switch (o->type) {
        case TVMAF_OPT_BOOL: used += snprintf(buf + used, len - used, "_%s", key); break;
        case TVMAF_OPT_INT: used += snprintf(buf + used, len - used, "_%s_%d", key, *(const int *)p); break;
        case TVMAF_OPT_DOUBLE: used += snprintf(buf + used, len - used, "_%s_%g", key, *(const double *)p); break;
        case TVMAF_OPT_STRING: used += snprintf(buf + used, len - used, "_%s_%s", key, p); break;
        }
    }
    return used < len ? 0 : -ENOSPC;
}
