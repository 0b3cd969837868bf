/*
 * tvmaf's libvmaf drop-in: feature option dictionaries.
 *
 * The declarations of libvmaf 3.x's public header of this name (Netflix
 * libvmaf at commit f85a8536), reproduced as interface facts so programs
 * written for libvmaf build against libtvmaf unchanged. docs/libvmaf.md
 * describes the drop-in.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_FEATURE_H
#define TVMAF_COMPAT_LIBVMAF_FEATURE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Options of one feature extractor (or of a model's feature), key -> value.
 * NULL is the empty dictionary; the first set creates it. */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/* Sets key to val, replacing an earlier value of the key. A numeric value is
 * stored as libvmaf stores it: read as a float and printed with "%g"
 * ("1.0" -> "1", "0.30000001" -> "0.3"). */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/* Frees the dictionary and sets *dict to NULL. */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif
