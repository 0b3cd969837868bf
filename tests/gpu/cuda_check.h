/* CHECK(call) for the CUDA runtime tests: on a non-zero return, prints the
 * call, its error and the runtime's last error, and returns 1 from the
 * calling function. */
#ifndef TVMAF_TESTS_CUDA_CHECK_H
#define TVMAF_TESTS_CUDA_CHECK_H

#include <stdio.h>

#include "gpu/cuda/cuda_runtime.h"

#define CHECK(call)                                                                           \
    do {                                                                                      \
        const int err_ = (call);                                                              \
        if (err_) {                                                                           \
            fprintf(stderr, "FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #call, err_,   \
                    tvmaf_cuda_last_error());                                                 \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

#endif
