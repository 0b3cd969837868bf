/*
 * The models built into the library: the JSON files of the repository's
 * models/ folder, embedded at build time by scripts/embed_models.py (copies of
 * Netflix's model files, BSD-2-Clause-Patent; models/README.md). A version not
 * found on TVMAF_MODEL_PATH is looked up here before the install's data
 * directory.
 */
#ifndef TVMAF_MODEL_BUILTIN_MODELS_H
#define TVMAF_MODEL_BUILTIN_MODELS_H

#include <stddef.h>

typedef struct TvmafBuiltinModel {
    const char *version;       /* file name without .json, e.g. "vmaf_v0.6.1" */
    const unsigned char *data; /* the file's bytes (a NUL follows, not counted) */
    size_t size;
} TvmafBuiltinModel;

/* Every built-in model; the entry after the last has version NULL. */
extern const TvmafBuiltinModel tvmaf_builtin_models[];

/* The built-in model of this version, or NULL. */
const TvmafBuiltinModel *tvmaf_builtin_model(const char *version);

#endif
