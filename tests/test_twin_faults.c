/*
 * Every twin reports a device's failure instead of scoring past it. For each
 * feature with a twin, on the host executor (gpu/host/host.h): operation N
 * of the run (a fill, copy, download, launch or mid-frame wait; every N from
 * 1 until N is past the run's operations) fails with -EIO, as a device's
 * would; the run must end in an error whose message names the feature, and
 * score nothing. The sticky failures of a phase (gpu/tvd.h) are what carry an
 * operation's error out of a plan that queues its calls unchecked. Then,
 * with nothing injected, the same run scores. The sanitizer pass of .ci/run
 * checks that no failure path leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/host/host.h"
#include "tvmaf/tvmaf.h"

#define W 224
#define H 176
#define FRAMES 2

static int failures;

/* Scores FRAMES frames of feature `name` on the host executor; 0 or the
 * first error, with the context's message in msg. */
static int run(const char *name, char *msg, size_t len)
{
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_HOST, .n_threads = 1 };
    TvmafContext *ctx = NULL;
    msg[0] = 0;
    int err = tvmaf_init(&ctx, &cfg);
    if (!err) err = tvmaf_use_feature(ctx, name);
    uint32_t rng = 12345;
    for (unsigned k = 0; k < FRAMES && !err; k++) {
        TvmafPicture pic[2];
        for (int i = 0; i < 2 && !err; i++) {
            if ((err = tvmaf_picture_alloc(&pic[i], TVMAF_PIX_FMT_YUV444P, 8, W, H))) {
                if (i) tvmaf_picture_unref(&pic[0]);
                break;
            }
            for (int p = 0; p < 3; p++)
                for (unsigned y = 0; y < H; y++)
                    for (unsigned x = 0; x < W; x++) {
                        rng = rng * 1664525u + 1013904223u;
                        uint8_t *v = (uint8_t *)pic[i].data[p] + (size_t)y * pic[i].stride[p];
                        /* dis: ref's sample plus a little noise (random pairs make
                         * float_ms_ssim NaN, as the reference computes it) */
                        v[x] = i ? (uint8_t)(((const uint8_t *)pic[0].data[p])[
                                       (size_t)y * pic[0].stride[p] + x] ^ (rng >> 29))
                                 : (uint8_t)(rng >> 24);
                    }
        }
        if (!err) err = tvmaf_read_pictures(ctx, &pic[0], &pic[1], k);
    }
    if (!err) err = tvmaf_flush(ctx);
    if (err && ctx) snprintf(msg, len, "%s", tvmaf_last_error(ctx));
    tvmaf_close(ctx);
    return err;
}

int main(void)
{
    if (tvd_host_register()) {
        fprintf(stderr, "cannot register the host executor\n");
        return 1;
    }
    char msg[1024];
    unsigned n_twins = 0, n_runs = 0;
    for (unsigned f = 0; f < tvmaf_feature_count(); f++) {
        const char *name = tvmaf_feature_name(f);
        /* a feature without a twin runs on the CPU here: nothing to inject */
        TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_HOST };
        TvmafContext *ctx = NULL;
        const char *ran = NULL;
        if (!tvmaf_init(&ctx, &cfg) && !tvmaf_use_feature(ctx, name))
            ran = tvmaf_feature_backend(ctx, name);
        const int twin = ran && !strcmp(ran, "host");
        tvmaf_close(ctx);
        if (!twin) continue;
        n_twins++;
        unsigned long long n = 1;
        for (;; n++, n_runs++) {
            tvd_host_fail_at(n);
            const int err = run(name, msg, sizeof(msg));
            if (!tvd_host_fail_fired()) {
                if (err) {
                    printf("FAIL %s: no failure injected, yet error %d (%s)\n", name, err, msg);
                    failures++;
                }
                break;
            }
            char want[160];
            snprintf(want, sizeof(want), "\"%s\"", name);
            if (!err || !strstr(msg, want)) {
                printf("FAIL %s: operation %llu failed: error %d, message \"%s\"\n", name, n,
                       err, msg);
                failures++;
            }
        }
        tvd_host_fail_at(0);
        printf("%s: a failure at each of its %llu operations reported\n", name, n - 1);
    }
    if (!n_twins) {
        printf("FAIL no feature has a twin on the host executor\n");
        failures++;
    }
    printf("twin faults: %u twins, %u injected runs, %d failures\n", n_twins, n_runs, failures);
    return failures ? 1 : 0;
}
