/*
 * The device half of tests/test_cr_pow_cuda.c: the correctly rounded powers
 * of numerics/cr_pow.h evaluated by the GPU, one argument per thread.
 */
#include "numerics/cr_pow.h"

extern "C" __global__ void tvmaf_test_cr_pow(const float *x, float *powf7, float *powf2,
                                             double *pow7, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        powf7[i] = tvmaf_cr_powf7(x[i]);
        powf2[i] = tvmaf_cr_powf2(x[i]);
        pow7[i] = tvmaf_cr_pow7((double)x[i]);
    }
}
