/*
 * tvmaf's libvmaf drop-in: models and model collections.
 *
 * The declarations of libvmaf 3.x's public header of this name (Netflix
 * libvmaf at commit f85a8536), reproduced as interface facts: names,
 * signatures, enum values, the structures' fields in their order.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_MODEL_H
#define TVMAF_COMPAT_LIBVMAF_MODEL_H

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One VMAF model (opaque). */
typedef struct VmafModel VmafModel;

enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),
};

typedef struct VmafModelConfig {
    const char *name; /* the key of the model's scores; NULL: "vmaf" */
    uint64_t flags;   /* enum VmafModelFlags */
} VmafModelConfig;

/* A model built into the library, by version name (e.g. "vmaf_v0.6.1"). */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                    const char *version);

/* A model from a JSON model file. */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                              const char *path);

/* Options for the model's features computed by extractor `feature_name`;
 * takes the dictionary. */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict);

void vmaf_model_destroy(VmafModel *model);

/* The members of a bootstrap model (opaque). */
typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score;
        double stddev;
        struct {
            struct { double lo, hi; } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/* A bootstrap model built into the library: its model "0" in *model, its
 * members in *model_collection. */
int vmaf_model_collection_load(VmafModel **model,
                               VmafModelCollection **model_collection,
                               VmafModelConfig *cfg,
                               const char *version);

/* The same from a JSON model file. */
int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg,
                                         const char *path);

/* Feature options for the members and for model "0"; takes the dictionary. */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict);

void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif
