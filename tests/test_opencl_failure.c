/* The OpenCL backend's failure paths (tests/gpu/failure_common.h), and a
 * device without a capability a twin needs (withheld through the runtime's
 * test hook): the twin is refused, naming the feature and what is missing,
 * while a twin that needs neither (an fp64-free program) still scores. Exits 77 without an OpenCL
 * device (PoCL's CPU device counts). */
#include "gpu/opencl/opencl_runtime.h"
#include "gpu/failure_common.h"

/* One feature alone on OpenCL with `withheld` capabilities: the error and
 * the context's message. */
static int run_one(const char *feature, unsigned withheld, char *msg, size_t len)
{
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_OPENCL, .n_threads = 1 };
    TvmafContext *ctx = NULL;
    *msg = 0;
    tvmaf_cl_test_withhold_caps(withheld);
    int err = tvmaf_init(&ctx, &cfg);
    if (!err) err = tvmaf_use_feature(ctx, feature);
    /* 256x144: cambi scores from 216 samples on a side */
    err = read_frames(ctx, err, 2, 256, 144, msg, len);
    if (!err && strcmp(tvmaf_feature_backend(ctx, feature), "opencl"))
        snprintf(msg, len, "ran on %s", tvmaf_feature_backend(ctx, feature)), err = -EINVAL;
    tvmaf_close(ctx);
    tvmaf_cl_test_withhold_caps(0);
    return err;
}

static void capabilities(void)
{
    char msg[1024], quoted[64];
    static const struct {
        const char *feature;
        unsigned withheld;
        const char *why;
    } refused[] = {
        { "float_ssim", TVMAF_CL_CAP_CR_DIV_SQRT, "no correctly rounded float division" },
        { "speed_temporal", TVMAF_CL_CAP_CR_DIV_SQRT, "no correctly rounded float division" },
    };
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const int err = run_one(refused[i].feature, refused[i].withheld, msg, sizeof(msg));
        snprintf(quoted, sizeof(quoted), "feature \"%s\"", refused[i].feature);
        EXPECT(err == -ENOTSUP, "%s without caps %u: error %d (%s)", refused[i].feature,
               refused[i].withheld, err, msg);
        EXPECT(strstr(msg, quoted) && strstr(msg, refused[i].why),
               "%s without caps %u: message \"%s\"", refused[i].feature, refused[i].withheld, msg);
        printf("%s without caps %u: %d \"%s\"\n", refused[i].feature, refused[i].withheld, err,
               msg);
    }
    /* twins whose programs are fp64-free score without fp64; those without a
     * float division or square root also without correct rounding */
    static const struct {
        const char *feature;
        unsigned withheld;
    } scored[] = {
        { "psnr", TVMAF_CL_CAP_FP64 | TVMAF_CL_CAP_CR_DIV_SQRT },
        { "motion", TVMAF_CL_CAP_FP64 | TVMAF_CL_CAP_CR_DIV_SQRT },
        { "cambi", TVMAF_CL_CAP_FP64 | TVMAF_CL_CAP_CR_DIV_SQRT },
        { "float_ansnr", TVMAF_CL_CAP_FP64 },
        { "psnr_hvs", TVMAF_CL_CAP_FP64 },
        { "ciede", TVMAF_CL_CAP_FP64 },
        { "vif", TVMAF_CL_CAP_FP64 | TVMAF_CL_CAP_CR_DIV_SQRT },
        { "adm", TVMAF_CL_CAP_FP64 | TVMAF_CL_CAP_CR_DIV_SQRT },
        { "float_adm", TVMAF_CL_CAP_FP64 },
        { "float_ssim", TVMAF_CL_CAP_FP64 },
        { "float_vif", TVMAF_CL_CAP_FP64 },
        { "speed_temporal", TVMAF_CL_CAP_FP64 },
    };
    for (unsigned i = 0; i < sizeof(scored) / sizeof(scored[0]); i++) {
        const int err = run_one(scored[i].feature, scored[i].withheld, msg, sizeof(msg));
        EXPECT(!err, "%s without caps %u: %d (%s)", scored[i].feature, scored[i].withheld, err,
               msg);
        printf("%s without caps %u: scored (%d)\n", scored[i].feature, scored[i].withheld, err);
    }
    /* and the same features score again once nothing is withheld */
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const int e = run_one(refused[i].feature, 0, msg, sizeof(msg));
        EXPECT(!e, "%s with every cap: %d (%s)", refused[i].feature, e, msg);
    }
}

int main(void)
{
    if (tvmaf_cl_device_count() < 1) {
        printf("no usable OpenCL device: skipped\n");
        return 77;
    }
    capabilities();
    return gpu_failure_main(TVMAF_BACKEND_OPENCL, "opencl", tvmaf_cl_inject_launch_failure,
                            "injected");
}
