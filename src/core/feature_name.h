/* Output key names: libvmaf's aliases and option suffixes. */
#ifndef TVMAF_CORE_FEATURE_NAME_H
#define TVMAF_CORE_FEATURE_NAME_H

#include <stddef.h>

#include "core/options.h"

/* The short name libvmaf prints for an internal key (e.g.
 * "VMAF_integer_feature_vif_scale0_score" -> "integer_vif_scale0"), or the
 * name itself when it has none. */
const char *tvmaf_feature_alias(const char *name);

/*
 * The key an extractor writes for its output `name` given its parsed options
 * (priv): `name` itself when every TVMAF_OPT_FEATURE_PARAM option has its
 * default; otherwise alias(name) followed by "_ALIAS_VALUE" (bool: "_ALIAS")
 * for each such non-default option, in alphabetical order of option name.
 * Values print as libvmaf prints them (%d, %g, %s). Returns 0 or -ENOSPC.
 */
int tvmaf_feature_key(char *buf, size_t len, const char *name, const TvmafOption *opts,
                      const void *priv);

#endif
