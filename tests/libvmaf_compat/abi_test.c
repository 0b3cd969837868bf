/*
 * The drop-in's headers against libvmaf's interface facts: every number of
 * abi_facts.h (enum values, sizes, alignments, offsets, field sizes and
 * types) equal to the reference's (abi_expected.h, printed by abi_probe.c
 * from the headers of Netflix libvmaf at commit f85a8536), and the 33
 * signatures the reference's (checked while compiling). Every function is
 * linked from libvmaf.so.3 too.
 */
#include <stdio.h>
#include <string.h>

#include <libvmaf/libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>
#include <libvmaf/version.h>

#include "abi_facts.h"
#include "abi_expected.h"

ABI_SIGNATURES

#define ACTUAL(e) { #e, (long long)(e) },
static const struct { const char *fact; long long value; } abi_actual[] = { ABI_FACTS(ACTUAL) };

/* each of the 33 taken from the library */
static void *const functions[] = {
    (void *)vmaf_init, (void *)vmaf_use_features_from_model,
    (void *)vmaf_use_features_from_model_collection, (void *)vmaf_use_feature,
    (void *)vmaf_import_feature_score, (void *)vmaf_read_pictures, (void *)vmaf_score_at_index,
    (void *)vmaf_score_at_index_model_collection, (void *)vmaf_feature_score_at_index,
    (void *)vmaf_score_pooled, (void *)vmaf_score_pooled_model_collection,
    (void *)vmaf_feature_score_pooled, (void *)vmaf_preallocate_pictures,
    (void *)vmaf_fetch_preallocated_picture, (void *)vmaf_close, (void *)vmaf_write_output,
    (void *)vmaf_version, (void *)vmaf_feature_dictionary_set, (void *)vmaf_feature_dictionary_free,
    (void *)vmaf_model_load, (void *)vmaf_model_load_from_path, (void *)vmaf_model_feature_overload,
    (void *)vmaf_model_destroy, (void *)vmaf_model_collection_load,
    (void *)vmaf_model_collection_load_from_path, (void *)vmaf_model_collection_feature_overload,
    (void *)vmaf_model_collection_destroy, (void *)vmaf_picture_alloc, (void *)vmaf_picture_unref,
    (void *)vmaf_cuda_state_init, (void *)vmaf_cuda_import_state,
    (void *)vmaf_cuda_preallocate_pictures, (void *)vmaf_cuda_fetch_preallocated_picture,
};

int main(void)
{
    const size_t n = sizeof(abi_actual) / sizeof(abi_actual[0]);
    const size_t n_expected = sizeof(abi_expected) / sizeof(abi_expected[0]);
    unsigned passed = 0, failed = 0;
    if (n != n_expected) {
        printf("FAIL  %zu facts, abi_expected.h has %zu: print it again (abi_probe.c)\n", n,
               n_expected);
        failed++;
    }
    for (size_t i = 0; i < n && i < n_expected; i++) {
        if (!strcmp(abi_actual[i].fact, abi_expected[i].fact) &&
            abi_actual[i].value == abi_expected[i].value) {
            passed++;
            continue;
        }
        printf("FAIL  %s = %lld, the reference's %s = %lld\n", abi_actual[i].fact,
               abi_actual[i].value, abi_expected[i].fact, abi_expected[i].value);
        failed++;
    }
    size_t linked = 0;
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) linked += !!functions[i];
    if (linked == 33) passed++;
    else { printf("FAIL  %zu of the 33 functions linked\n", linked); failed++; }
    printf("%zu interface facts equal to the reference's, 33 signatures (compile time), "
           "%zu functions linked\n", n, linked);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
