/*
 * tvmaf's libvmaf drop-in: the context, scores and outputs.
 *
 * The declarations of libvmaf 3.x's public header of this name (Netflix
 * libvmaf at commit f85a8536), reproduced as interface facts: function names
 * and signatures, enum values, the structures' fields in their order and
 * types. Behind them is libtvmaf, whose CPU scores are libvmaf's bit for bit;
 * docs/libvmaf.md describes the drop-in and where it differs.
 *
 * Every function returns 0 or a negative errno value (libvmaf's: -EINVAL for
 * a bad argument or state, -ENOMEM); a failure that has a reason beyond a
 * NULL argument says it on stderr at VMAF_LOG_LEVEL_ERROR.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_H
#define TVMAF_COMPAT_LIBVMAF_H

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"

#ifdef __cplusplus
extern "C" {
#endif

enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN,
    VMAF_POOL_METHOD_NB
};

typedef struct VmafConfiguration {
    enum VmafLogLevel log_level; /* messages on stderr up to this level */
    unsigned n_threads;          /* frames scored in parallel; 0: on the caller's thread */
    unsigned n_subsample;        /* score every Nth frame; 0 or 1: every frame */
    uint64_t cpumask;            /* SIMD levels not to use (8: AVX2, 16: AVX-512, ...) */
    uint64_t gpumask;            /* nonzero: score on the CPU only */
} VmafConfiguration;

/* A scoring context (opaque). */
typedef struct VmafContext VmafContext;

int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/* Registers the extractors the model reads (several models: each extractor
 * runs once). */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/* The same for every member of a collection. */
int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/* Registers an extractor by name ("psnr", "float_ssim", ...), with options or
 * NULL. The context takes the dictionary when the call succeeds; after a
 * failure it is still the caller's. */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/* Adds a per-frame score computed elsewhere under feature_name. */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/* Scores the pair of frame `index` (0, 1, 2, ... in order). The context takes
 * both pictures when the call succeeds and clears the caller's structures.
 * ref and dist NULL: the end of the stream (flush); no picture may follow. */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/* The model's score of one frame (predicted and kept on first use). */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                        unsigned index);

/* A collection's bootstrap statistics of one frame; its members' scores and
 * the statistics are kept as per-frame scores too. */
int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score,
                                         unsigned index);

/* A per-frame score by its name (e.g. "psnr_y", "vmaf"). */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/* The model's scores of frames index_low..index_high pooled. */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

/* A collection's statistics over index_low..index_high, each pooled. */
int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

/* A per-frame score pooled over index_low..index_high. */
int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

/* Pictures of one format for vmaf_fetch_preallocated_picture(). */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

int vmaf_preallocate_pictures(VmafContext *vmaf,
                              VmafPictureConfiguration cfg);

/* A picture of the preallocated format; released with vmaf_picture_unref()
 * or by vmaf_read_pictures(). */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

int vmaf_close(VmafContext *vmaf);

/* Writes every per-frame score, the pooled scores and the aggregates to
 * output_path, in libvmaf's layout and number printing. */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/* The libvmaf API version implemented, then tvmaf's ("3.2.0-tvmaf-X.Y.Z"). */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif
