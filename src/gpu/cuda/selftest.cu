/*
 * Kernels for the runtime's self-test (tests/test_cuda_runtime.c): enough to
 * see a module load, arguments pass, 1D and pitched 2D buffers arrive and
 * return. extern "C" keeps the names unmangled for cuModuleGetFunction.
 */
#include <stdint.h>

/* c[i] = a[i] + b[i], rounded to nearest like the host's float addition. */
extern "C" __global__ void tvmaf_selftest_add(const float *a, const float *b, float *c,
                                              unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = __fadd_rn(a[i], b[i]);
}

/* p(x, y) = 3 p(x, y) + x + y (mod 2^16) over a pitched w x h uint16 image. */
extern "C" __global__ void tvmaf_selftest_image(uint16_t *p, size_t pitch, unsigned w,
                                                unsigned h)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        uint16_t *row = (uint16_t *)((char *)p + (size_t)y * pitch);
        row[x] = (uint16_t)(3u * row[x] + x + y);
    }
}
