/*
 * numerics/cr_pow.h on the device gives the host's bits.
 *
 * tests/test_cr_pow.c proves the host functions correctly rounded against an
 * exact reference; this test runs the same header compiled by nvcc and
 * compares every result bit for bit with the host's. Arguments: every 61st
 * float bit pattern (all signs, subnormals, infinities, NaNs), every float in
 * [1, 2) (every mantissa), every float in [2^-23, 2^-18] (subnormal float
 * results of x^7) and in [2^-76, 2^-74] (subnormal results of x^2).
 * NaN results compare equal to any NaN (the GPU returns its canonical NaN).
 *
 * Exit 77 (skipped) without a CUDA device, 0 when all agree, 1 otherwise.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda_runtime.h"
#include "numerics/cr_pow.h"

extern const unsigned char tvmaf_cr_pow_device_fatbin[];

#define BATCH (1u << 24)

#include "gpu/cuda_check.h"

typedef struct Range {
    uint32_t first, last, step; /* bit patterns, inclusive */
} Range;

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static int same_float(float a, float b)
{
    return (a != a && b != b) || float_bits(a) == float_bits(b);
}

static int same_double(double a, double b)
{
    uint64_t ua, ub;
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    return (a != a && b != b) || ua == ub;
}

typedef struct Buffers {
    float *x, *p7, *p2; /* pinned host */
    double *d7;
    CUdeviceptr dx, dp7, dp2, dd7;
} Buffers;

static uint64_t wrong, tested;

/* Runs n arguments already in b->x through the kernel and compares. */
static int run_batch(CUfunction fn, CUstream stream, Buffers *b, unsigned n)
{
    CHECK(tvmaf_cuda_copy_h2d(b->dx, b->x, n * sizeof(float), stream));
    void *args[] = { &b->dx, &b->dp7, &b->dp2, &b->dd7, &n };
    CHECK(tvmaf_cuda_launch(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args));
    CHECK(tvmaf_cuda_copy_d2h(b->p7, b->dp7, n * sizeof(float), stream));
    CHECK(tvmaf_cuda_copy_d2h(b->p2, b->dp2, n * sizeof(float), stream));
    CHECK(tvmaf_cuda_copy_d2h(b->d7, b->dd7, n * sizeof(double), stream));
    CHECK(tvmaf_cuda_stream_synchronize(stream));
    for (unsigned i = 0; i < n; i++) {
        const float x = b->x[i];
        const int ok = same_float(b->p7[i], tvmaf_cr_powf7(x)) &&
                       same_float(b->p2[i], tvmaf_cr_powf2(x)) &&
                       same_double(b->d7[i], tvmaf_cr_pow7((double)x));
        if (!ok && wrong++ < 10)
            fprintf(stderr, "x = %a: device %a %a %a, host %a %a %a\n", x, b->p7[i],
                    b->p2[i], b->d7[i], tvmaf_cr_powf7(x), tvmaf_cr_powf2(x),
                    tvmaf_cr_pow7((double)x));
    }
    tested += n;
    return 0;
}

int main(void)
{
    if (!tvmaf_cuda_available()) {
        printf("no CUDA device: skip\n");
        return 77;
    }
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    char msg[256];
    if (tvmaf_cuda_acquire(0, &dev, msg, sizeof(msg)) ||
        tvmaf_cuda_module_load(dev, tvmaf_cr_pow_device_fatbin, &mod, msg, sizeof(msg))) {
        fprintf(stderr, "FAIL: %s\n", msg);
        return 1;
    }
    CUfunction fn;
    CHECK(tvmaf_cuda_module_function(mod, "tvmaf_test_cr_pow", &fn));
    CHECK(tvmaf_cuda_push(dev));
    CUstream stream;
    CHECK(tvmaf_cuda_stream_create(&stream));
    Buffers b;
    CHECK(tvmaf_cuda_host_alloc((void **)&b.x, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_host_alloc((void **)&b.p7, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_host_alloc((void **)&b.p2, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_host_alloc((void **)&b.d7, BATCH * sizeof(double)));
    CHECK(tvmaf_cuda_mem_alloc(&b.dx, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_mem_alloc(&b.dp7, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_mem_alloc(&b.dp2, BATCH * sizeof(float)));
    CHECK(tvmaf_cuda_mem_alloc(&b.dd7, BATCH * sizeof(double)));

    const Range ranges[] = {
        { 0, 0xffffffffu, 61 },
        { float_bits(1.0f), float_bits(2.0f) - 1, 1 },
        { float_bits(0x1p-23f), float_bits(0x1p-18f), 1 },
        { float_bits(0x1p-76f), float_bits(0x1p-74f), 1 },
    };
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        unsigned n = 0;
        for (uint64_t u = ranges[r].first; u <= ranges[r].last; u += ranges[r].step) {
            const uint32_t bits = (uint32_t)u;
            memcpy(&b.x[n], &bits, 4);
            if (++n == BATCH) {
                if (run_batch(fn, stream, &b, n))
                    return 1;
                n = 0;
            }
        }
        if (n && run_batch(fn, stream, &b, n))
            return 1;
    }

    CHECK(tvmaf_cuda_mem_free(b.dx));
    CHECK(tvmaf_cuda_mem_free(b.dp7));
    CHECK(tvmaf_cuda_mem_free(b.dp2));
    CHECK(tvmaf_cuda_mem_free(b.dd7));
    CHECK(tvmaf_cuda_host_free(b.x));
    CHECK(tvmaf_cuda_host_free(b.p7));
    CHECK(tvmaf_cuda_host_free(b.p2));
    CHECK(tvmaf_cuda_host_free(b.d7));
    CHECK(tvmaf_cuda_stream_destroy(stream));
    CHECK(tvmaf_cuda_pop(dev));
    tvmaf_cuda_module_unload(mod);
    tvmaf_cuda_release(dev);

    printf("%" PRIu64 " arguments, %" PRIu64 " differ between device and host\n", tested,
           wrong);
    printf("%s\n", wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
}
