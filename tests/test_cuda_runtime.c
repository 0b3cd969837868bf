/*
 * The CUDA runtime end to end: device, module from an embedded fatbin,
 * streams, events, device and pinned memory, 1D and pitched 2D copies, fill,
 * launches, and the error path of a missing kernel.
 *
 * Exit 77 (skipped) where no CUDA device is usable, 0 when every value that
 * comes back is the expected one, 1 otherwise.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda_runtime.h"

extern const unsigned char tvmaf_selftest_fatbin[];
extern const size_t tvmaf_selftest_fatbin_size;

#include "gpu/cuda_check.h"

#define EXPECT(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

static int check_add(TvmafCudaModule *mod, CUstream stream)
{
    enum { N = (1 << 20) + 3 }; /* not a multiple of the block size */
    CUfunction add;
    CHECK(tvmaf_cuda_module_function(mod, "tvmaf_selftest_add", &add));

    float *host;
    CHECK(tvmaf_cuda_host_alloc((void **)&host, 3 * N * sizeof(float)));
    float *a = host, *b = host + N, *c = host + 2 * N;
    for (unsigned i = 0; i < N; i++) {
        a[i] = (float)i * 0.1f;
        b[i] = 1.0f / (float)(i + 1);
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc;
    CHECK(tvmaf_cuda_mem_alloc(&da, N * sizeof(float)));
    CHECK(tvmaf_cuda_mem_alloc(&db, N * sizeof(float)));
    CHECK(tvmaf_cuda_mem_alloc(&dc, N * sizeof(float)));

    CUevent start, stop;
    CHECK(tvmaf_cuda_event_create(&start));
    CHECK(tvmaf_cuda_event_create(&stop));
    CHECK(tvmaf_cuda_event_record(start, stream));
    CHECK(tvmaf_cuda_copy_h2d(da, a, N * sizeof(float), stream));
    CHECK(tvmaf_cuda_copy_h2d(db, b, N * sizeof(float), stream));
    CHECK(tvmaf_cuda_memset(dc, 0xff, N * sizeof(float), stream));
    unsigned n = N;
    void *args[] = { &da, &db, &dc, &n };
    CHECK(tvmaf_cuda_launch(add, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args));
    CHECK(tvmaf_cuda_copy_d2h(c, dc, N * sizeof(float), stream));
    CHECK(tvmaf_cuda_event_record(stop, stream));
    CHECK(tvmaf_cuda_stream_synchronize(stream));
    CHECK(tvmaf_cuda_event_synchronize(stop));
    float ms = -1.0f;
    CHECK(tvmaf_cuda_event_elapsed_ms(&ms, start, stop));
    EXPECT(ms >= 0.0f);

    unsigned bad = 0;
    for (unsigned i = 0; i < N; i++) {
        const float want = a[i] + b[i];
        bad += memcmp(&c[i], &want, sizeof(want)) != 0;
    }
    printf("add: %u values, %u wrong, %.3f ms\n", (unsigned)N, bad, ms);
    EXPECT(bad == 0);

    CHECK(tvmaf_cuda_event_destroy(start));
    CHECK(tvmaf_cuda_event_destroy(stop));
    CHECK(tvmaf_cuda_mem_free(da));
    CHECK(tvmaf_cuda_mem_free(db));
    CHECK(tvmaf_cuda_mem_free(dc));
    CHECK(tvmaf_cuda_host_free(host));
    return 0;
}

static int check_image(TvmafCudaModule *mod, CUstream stream)
{
    enum { W = 333, H = 77, HOST_PITCH = 2 * W + 10, DEV_PITCH = 768 };
    static uint16_t in[H * HOST_PITCH / 2], out[H * HOST_PITCH / 2];
    CUfunction image;
    CHECK(tvmaf_cuda_module_function(mod, "tvmaf_selftest_image", &image));

    for (unsigned i = 0; i < sizeof(in) / 2; i++) {
        in[i] = (uint16_t)(i * 2654435761u >> 7);
        out[i] = 0xabcd; /* the padding must come back untouched */
    }
    CUdeviceptr d;
    CHECK(tvmaf_cuda_mem_alloc(&d, (size_t)DEV_PITCH * H));
    /* pageable host memory works too (the copy is then staged by the driver) */
    CHECK(tvmaf_cuda_copy_h2d_2d(d, DEV_PITCH, in, HOST_PITCH, 2 * W, H, stream));
    size_t pitch = DEV_PITCH;
    unsigned w = W, h = H;
    void *args[] = { &d, &pitch, &w, &h };
    CHECK(tvmaf_cuda_launch(image, (W + 31) / 32, (H + 7) / 8, 1, 32, 8, 1, 0, stream, args));
    CHECK(tvmaf_cuda_copy_d2h_2d(out, HOST_PITCH, d, DEV_PITCH, 2 * W, H, stream));
    CHECK(tvmaf_cuda_stream_synchronize(stream));

    unsigned bad = 0;
    for (unsigned y = 0; y < H; y++) {
        for (unsigned x = 0; x < HOST_PITCH / 2; x++) {
            const unsigned i = y * (HOST_PITCH / 2) + x;
            const uint16_t want = x < W ? (uint16_t)(3u * in[i] + x + y) : 0xabcd;
            bad += out[i] != want;
        }
    }
    printf("image: %ux%u pitched, %u wrong\n", W, H, bad);
    EXPECT(bad == 0);
    CHECK(tvmaf_cuda_mem_free(d));
    return 0;
}

int main(void)
{
    if (!tvmaf_cuda_available()) {
        TvmafCudaDevice *dev;
        char msg[256] = "";
        const int err = tvmaf_cuda_acquire(0, &dev, msg, sizeof(msg));
        /* without a device, acquire must fail cleanly and say why */
        EXPECT(err == -ENODEV || err == -EINVAL);
        EXPECT(dev == NULL && msg[0]);
        printf("no CUDA device: skip (%s)\n", msg);
        return 77;
    }

    TvmafCudaDevice *dev, *dev2;
    char msg[256];
    if (tvmaf_cuda_acquire(0, &dev, msg, sizeof(msg))) {
        fprintf(stderr, "FAIL acquire: %s\n", msg);
        return 1;
    }
    CHECK(tvmaf_cuda_acquire(0, &dev2, msg, sizeof(msg)));
    EXPECT(dev2 == dev); /* one shared device */
    tvmaf_cuda_release(dev2);
    const TvmafCudaDeviceInfo *info = tvmaf_cuda_device_info(dev);
    printf("device %d: %s, sm_%d%d, %d SMs, %zu MiB\n", info->ordinal, info->name,
           info->cc_major, info->cc_minor, info->sm_count, info->total_mem >> 20);

    TvmafCudaModule *mod;
    if (tvmaf_cuda_module_load(dev, tvmaf_selftest_fatbin, &mod, msg, sizeof(msg))) {
        fprintf(stderr, "FAIL module load: %s\n", msg);
        return 1;
    }

    /* a missing kernel is an error with the CUDA error's name in it */
    CUfunction missing;
    EXPECT(tvmaf_cuda_module_function(mod, "no_such_kernel", &missing) == -EIO);
    EXPECT(strstr(tvmaf_cuda_last_error(), "CUDA_ERROR_NOT_FOUND") != NULL);

    CHECK(tvmaf_cuda_push(dev));
    CUstream stream;
    CHECK(tvmaf_cuda_stream_create(&stream));
    if (check_add(mod, stream) || check_image(mod, stream))
        return 1;
    CHECK(tvmaf_cuda_stream_destroy(stream));
    CHECK(tvmaf_cuda_pop(dev));

    tvmaf_cuda_module_unload(mod);
    tvmaf_cuda_release(dev);
    printf("PASS\n");
    return 0;
}
