/*
 * A GPU backend's failure paths, through the library API, shared by
 * test_gpu_failure.c (CUDA) and test_opencl_failure.c: each must end in an
 * error code and a message that says what failed, never a crash, a hang or a
 * score.
 *   - a device index that does not exist (--gpu N)
 *   - a device-memory budget too small for the twins (--gpu-mem-limit):
 *     "out of device memory", naming the feature and the limit
 *   - a kernel launch failing in the middle of a stream (injected after K
 *     launches, for several K, by the backend's runtime (OpenCL) or the CUDA
 *     driver stand-in; skipped where nothing can inject it): the feature is
 *     named, and the message has launch_msg
 *   - after all of these, a fresh context on the same device scores, and
 *     its scores equal the CPU's (no state left poisoned; a feature without a
 *     twin on the backend runs on the CPU in both)
 */
#ifndef TVMAF_TESTS_GPU_FAILURE_COMMON_H
#define TVMAF_TESTS_GPU_FAILURE_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"

#define W 160
#define H 90
#define FRAMES 8

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                       \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
        }                                                                                      \
    } while (0)

/* Frame f of the reference (dis 0) or distorted picture, w x h 4:2:0. */
static void fill_wh(TvmafPicture *pic, unsigned f, int dis, unsigned w, unsigned h)
{
    tvmaf_picture_alloc(pic, TVMAF_PIX_FMT_YUV420P, 8, w, h);
    unsigned s = 77u + f * 13u + (unsigned)dis;
    for (int p = 0; p < 3; p++)
        for (unsigned y = 0; y < pic->h[p]; y++) {
            unsigned char *row = (unsigned char *)pic->data[p] + (size_t)y * pic->stride[p];
            for (unsigned x = 0; x < pic->w[p]; x++) {
                s = s * 1664525u + 1013904223u;
                row[x] = (unsigned char)((x * 3 + y * 2 + f * 5) % 230 + (dis ? (s >> 29) : 0));
            }
        }
}

/* Reads n frames of w x h into ctx (if err is 0), then flushes; the first
 * error, its message in msg. */
static int read_frames(TvmafContext *ctx, int err, unsigned n, unsigned w, unsigned h, char *msg,
                       size_t len)
{
    for (unsigned f = 0; f < n && !err; f++) {
        TvmafPicture ref, dis;
        fill_wh(&ref, f, 0, w, h);
        fill_wh(&dis, f, 1, w, h);
        err = tvmaf_read_pictures(ctx, &ref, &dis, f);
    }
    if (!err) err = tvmaf_flush(ctx);
    if (err) snprintf(msg, len, "%s", ctx ? tvmaf_last_error(ctx) : "no context");
    return err;
}

/* Called after every run's context closed (the CUDA stand-in's clean-up
 * check), if set. */
static void (*after_run)(int err, const char *msg);

/* Scores FRAMES frames; returns 0 and the JSON (full precision) in *json,
 * or the first error with the context's message in msg. */
static int run(const TvmafConfiguration *cfg, char *msg, size_t len, char **json)
{
    TvmafContext *ctx = NULL;
    *msg = 0;
    if (json) *json = NULL;
    int err = tvmaf_init(&ctx, cfg);
    static const char *const feats[] = { "vif", "adm", "motion", "psnr", "ciede" };
    for (unsigned i = 0; i < 5 && !err; i++) err = tvmaf_use_feature(ctx, feats[i]);
    err = read_frames(ctx, err, FRAMES, W, H, msg, len);
    if (!err && json) {
        size_t n = 0;
        FILE *m = open_memstream(json, &n);
        err = tvmaf_write_output(ctx, m, TVMAF_OUTPUT_JSON, 17, 0.0, W, H);
        fclose(m);
    }
    tvmaf_close(ctx);
    if (after_run) after_run(err, msg);
    return err;
}

static int gpu_failure_main(enum TvmafBackend backend, const char *label,
                            void (*inject_launch_failure)(long after), const char *launch_msg)
{
    char msg[1024];
    TvmafConfiguration cfg = { .backend = backend, .n_threads = 2 };

    /* a device that is not there */
    TvmafConfiguration bad = cfg;
    bad.gpu_index = 999;
    int err = run(&bad, msg, sizeof(msg), NULL);
    EXPECT(err == -ENODEV, "gpu 999: error %d (%s)", err, msg);
    EXPECT(strstr(msg, "device 999"), "gpu 999: message \"%s\"", msg);
    printf("gpu 999: %d \"%s\"\n", err, msg);

    /* budgets too small for the device frames, then for a twin's buffers */
    const size_t limits[] = { 1, 4096, 64 * 1024, 256 * 1024 };
    for (unsigned i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        TvmafConfiguration c = cfg;
        c.gpu_mem_limit = limits[i];
        err = run(&c, msg, sizeof(msg), NULL);
        EXPECT(err == -ENOMEM, "limit %zu: error %d (%s)", limits[i], err, msg);
        EXPECT(strstr(msg, "out of device memory") && strstr(msg, "limit"),
               "limit %zu: message \"%s\"", limits[i], msg);
        printf("limit %zu: %d \"%s\"\n", limits[i], err, msg);
    }

    /* a launch failing after K launches, early and late in the stream */
    const long after[] = { 0, 1, 7, 40 };
    if (!inject_launch_failure) printf("launch failures: nothing injects them here, not run\n");
    for (unsigned i = 0; inject_launch_failure && i < sizeof(after) / sizeof(after[0]); i++) {
        inject_launch_failure(after[i]);
        err = run(&cfg, msg, sizeof(msg), NULL);
        inject_launch_failure(-1);
        EXPECT(err != 0, "launch failure after %ld: scored", after[i]);
        EXPECT(strstr(msg, launch_msg) && strstr(msg, "feature \""),
               "launch failure after %ld: message \"%s\"", after[i], msg);
        printf("launch failure after %ld: %d \"%s\"\n", after[i], err, msg);
    }

    /* afterwards: a generous budget scores, equal to the CPU */
    char *gpu = NULL, *cpu = NULL;
    TvmafConfiguration ok = cfg;
    ok.gpu_mem_limit = (size_t)1 << 30;
    err = run(&ok, msg, sizeof(msg), &gpu);
    EXPECT(!err, "%s after failures: %d (%s)", label, err, msg);
    TvmafConfiguration c = { .backend = TVMAF_BACKEND_CPU, .n_threads = 1 };
    err = run(&c, msg, sizeof(msg), &cpu);
    EXPECT(!err, "cpu: %d (%s)", err, msg);
    EXPECT(gpu && cpu && !strcmp(gpu, cpu), "%s after failures differs from the cpu", label);
    free(gpu);
    free(cpu);
    printf("%s\n", failures ? "FAILED" : "all failure paths reported");
    return failures ? 1 : 0;
}

#endif
