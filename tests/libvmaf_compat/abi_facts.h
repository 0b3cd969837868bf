/*
 * The interface facts of libvmaf 3.x's public headers that a binary built
 * against them depends on: enum values, structure sizes, alignments, field
 * offsets, field sizes and types, and the functions' signatures.
 *
 * abi_probe.c prints them from any libvmaf headers (the reference's own at
 * commit f85a8536, fetched outside the repository, gave abi_expected.h);
 * abi_test.c checks the drop-in's headers against those numbers. Include
 * <libvmaf/libvmaf.h> and <libvmaf/libvmaf_cuda.h> first.
 */
#ifndef TVMAF_TESTS_LIBVMAF_ABI_FACTS_H
#define TVMAF_TESTS_LIBVMAF_ABI_FACTS_H

#include <stddef.h>
#include <stdint.h>

/* A field's type as a number (arrays are their element pointers; an enum
 * is the integer type the compiler gives it). */
#define ABI_TYPE(e) _Generic((e), \
    int: 1, unsigned: 2, long: 3, unsigned long: 4, long long: 5, unsigned long long: 6, \
    double: 7, float: 8, char *: 9, const char *: 10, void *: 11, void **: 12, \
    unsigned *: 13, ptrdiff_t *: 14, VmafRef *: 15, default: 99)

#define ABI_FIELD(X, T, f) \
    X(offsetof(T, f)) X(sizeof(((T *)0)->f)) X(ABI_TYPE(((T *)0)->f))

#define ABI_STRUCT(X, T) X(sizeof(T)) X(_Alignof(T))

#define ABI_FACTS(X) \
    X(VMAF_API_VERSION_MAJOR) X(VMAF_API_VERSION_MINOR) X(VMAF_API_VERSION_PATCH) \
    X(sizeof(enum VmafLogLevel)) X(VMAF_LOG_LEVEL_NONE) X(VMAF_LOG_LEVEL_ERROR) \
    X(VMAF_LOG_LEVEL_WARNING) X(VMAF_LOG_LEVEL_INFO) X(VMAF_LOG_LEVEL_DEBUG) \
    X(sizeof(enum VmafOutputFormat)) X(VMAF_OUTPUT_FORMAT_NONE) X(VMAF_OUTPUT_FORMAT_XML) \
    X(VMAF_OUTPUT_FORMAT_JSON) X(VMAF_OUTPUT_FORMAT_CSV) X(VMAF_OUTPUT_FORMAT_SUB) \
    X(sizeof(enum VmafPoolingMethod)) X(VMAF_POOL_METHOD_UNKNOWN) X(VMAF_POOL_METHOD_MIN) \
    X(VMAF_POOL_METHOD_MAX) X(VMAF_POOL_METHOD_MEAN) X(VMAF_POOL_METHOD_HARMONIC_MEAN) \
    X(VMAF_POOL_METHOD_NB) \
    X(sizeof(enum VmafPixelFormat)) X(VMAF_PIX_FMT_UNKNOWN) X(VMAF_PIX_FMT_YUV420P) \
    X(VMAF_PIX_FMT_YUV422P) X(VMAF_PIX_FMT_YUV444P) X(VMAF_PIX_FMT_YUV400P) \
    X(sizeof(enum VmafModelFlags)) X(VMAF_MODEL_FLAGS_DEFAULT) X(VMAF_MODEL_FLAG_DISABLE_CLIP) \
    X(VMAF_MODEL_FLAG_ENABLE_TRANSFORM) X(VMAF_MODEL_FLAG_DISABLE_TRANSFORM) \
    X(sizeof(enum VmafModelCollectionScoreType)) X(VMAF_MODEL_COLLECTION_SCORE_UNKNOWN) \
    X(VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP) \
    X(sizeof(enum VmafCudaPicturePreallocationMethod)) \
    X(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE) X(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE) \
    X(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST) \
    X(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED) \
    ABI_STRUCT(X, VmafConfiguration) \
    ABI_FIELD(X, VmafConfiguration, log_level) ABI_FIELD(X, VmafConfiguration, n_threads) \
    ABI_FIELD(X, VmafConfiguration, n_subsample) ABI_FIELD(X, VmafConfiguration, cpumask) \
    ABI_FIELD(X, VmafConfiguration, gpumask) \
    ABI_STRUCT(X, VmafPicture) \
    ABI_FIELD(X, VmafPicture, pix_fmt) ABI_FIELD(X, VmafPicture, bpc) ABI_FIELD(X, VmafPicture, w) \
    ABI_FIELD(X, VmafPicture, h) ABI_FIELD(X, VmafPicture, stride) ABI_FIELD(X, VmafPicture, data) \
    ABI_FIELD(X, VmafPicture, ref) ABI_FIELD(X, VmafPicture, priv) \
    ABI_STRUCT(X, VmafModelConfig) \
    ABI_FIELD(X, VmafModelConfig, name) ABI_FIELD(X, VmafModelConfig, flags) \
    ABI_STRUCT(X, VmafModelCollectionScore) \
    ABI_FIELD(X, VmafModelCollectionScore, type) ABI_FIELD(X, VmafModelCollectionScore, bootstrap) \
    ABI_FIELD(X, VmafModelCollectionScore, bootstrap.bagging_score) \
    ABI_FIELD(X, VmafModelCollectionScore, bootstrap.stddev) \
    ABI_FIELD(X, VmafModelCollectionScore, bootstrap.ci) \
    ABI_FIELD(X, VmafModelCollectionScore, bootstrap.ci.p95.lo) \
    ABI_FIELD(X, VmafModelCollectionScore, bootstrap.ci.p95.hi) \
    ABI_STRUCT(X, VmafPictureConfiguration) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_params) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_params.w) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_params.h) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_params.bpc) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_params.pix_fmt) \
    ABI_FIELD(X, VmafPictureConfiguration, pic_cnt) \
    ABI_STRUCT(X, VmafCudaConfiguration) ABI_FIELD(X, VmafCudaConfiguration, cu_ctx) \
    ABI_STRUCT(X, VmafCudaPictureConfiguration) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_params) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_params.w) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_params.h) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_params.bpc) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_params.pix_fmt) \
    ABI_FIELD(X, VmafCudaPictureConfiguration, pic_prealloc_method)

/* The 33 functions and their types: a compile-time check wherever this is
 * included (the probe compiles it against the reference's headers). */
#define ABI_SAME(f, T) _Static_assert(__builtin_types_compatible_p(__typeof__(&f), T), #f);
#define ABI_SIGNATURES \
    ABI_SAME(vmaf_init, int (*)(VmafContext **, VmafConfiguration)) \
    ABI_SAME(vmaf_use_features_from_model, int (*)(VmafContext *, VmafModel *)) \
    ABI_SAME(vmaf_use_features_from_model_collection, int (*)(VmafContext *, VmafModelCollection *)) \
    ABI_SAME(vmaf_use_feature, int (*)(VmafContext *, const char *, VmafFeatureDictionary *)) \
    ABI_SAME(vmaf_import_feature_score, int (*)(VmafContext *, const char *, double, unsigned)) \
    ABI_SAME(vmaf_read_pictures, int (*)(VmafContext *, VmafPicture *, VmafPicture *, unsigned)) \
    ABI_SAME(vmaf_score_at_index, int (*)(VmafContext *, VmafModel *, double *, unsigned)) \
    ABI_SAME(vmaf_score_at_index_model_collection, \
             int (*)(VmafContext *, VmafModelCollection *, VmafModelCollectionScore *, unsigned)) \
    ABI_SAME(vmaf_feature_score_at_index, int (*)(VmafContext *, const char *, double *, unsigned)) \
    ABI_SAME(vmaf_score_pooled, int (*)(VmafContext *, VmafModel *, enum VmafPoolingMethod, \
                                        double *, unsigned, unsigned)) \
    ABI_SAME(vmaf_score_pooled_model_collection, \
             int (*)(VmafContext *, VmafModelCollection *, enum VmafPoolingMethod, \
                     VmafModelCollectionScore *, unsigned, unsigned)) \
    ABI_SAME(vmaf_feature_score_pooled, int (*)(VmafContext *, const char *, \
                                                enum VmafPoolingMethod, double *, unsigned, \
                                                unsigned)) \
    ABI_SAME(vmaf_preallocate_pictures, int (*)(VmafContext *, VmafPictureConfiguration)) \
    ABI_SAME(vmaf_fetch_preallocated_picture, int (*)(VmafContext *, VmafPicture *)) \
    ABI_SAME(vmaf_close, int (*)(VmafContext *)) \
    ABI_SAME(vmaf_write_output, int (*)(VmafContext *, const char *, enum VmafOutputFormat)) \
    ABI_SAME(vmaf_version, const char *(*)(void)) \
    ABI_SAME(vmaf_feature_dictionary_set, int (*)(VmafFeatureDictionary **, const char *, \
                                                  const char *)) \
    ABI_SAME(vmaf_feature_dictionary_free, int (*)(VmafFeatureDictionary **)) \
    ABI_SAME(vmaf_model_load, int (*)(VmafModel **, VmafModelConfig *, const char *)) \
    ABI_SAME(vmaf_model_load_from_path, int (*)(VmafModel **, VmafModelConfig *, const char *)) \
    ABI_SAME(vmaf_model_feature_overload, int (*)(VmafModel *, const char *, \
                                                  VmafFeatureDictionary *)) \
    ABI_SAME(vmaf_model_destroy, void (*)(VmafModel *)) \
    ABI_SAME(vmaf_model_collection_load, int (*)(VmafModel **, VmafModelCollection **, \
                                                 VmafModelConfig *, const char *)) \
    ABI_SAME(vmaf_model_collection_load_from_path, int (*)(VmafModel **, VmafModelCollection **, \
                                                           VmafModelConfig *, const char *)) \
    ABI_SAME(vmaf_model_collection_feature_overload, \
             int (*)(VmafModel *, VmafModelCollection **, const char *, VmafFeatureDictionary *)) \
    ABI_SAME(vmaf_model_collection_destroy, void (*)(VmafModelCollection *)) \
    ABI_SAME(vmaf_picture_alloc, int (*)(VmafPicture *, enum VmafPixelFormat, unsigned, unsigned, \
                                         unsigned)) \
    ABI_SAME(vmaf_picture_unref, int (*)(VmafPicture *)) \
    ABI_SAME(vmaf_cuda_state_init, int (*)(VmafCudaState **, VmafCudaConfiguration)) \
    ABI_SAME(vmaf_cuda_import_state, int (*)(VmafContext *, VmafCudaState *)) \
    ABI_SAME(vmaf_cuda_preallocate_pictures, int (*)(VmafContext *, VmafCudaPictureConfiguration)) \
    ABI_SAME(vmaf_cuda_fetch_preallocated_picture, int (*)(VmafContext *, VmafPicture *))

#endif
