/*
 * Misuse of libvmaf's API answered as libvmaf answers it: NULL arguments,
 * unknown names, a missing or wrong model file, pictures of the wrong size
 * or format, pictures after the flush, scores that do not exist. Each row
 * gives the call and libvmaf's return value at commit f85a8536 (read from
 * its src/libvmaf.c, model.c, dict.c, picture.c, picture_pool.c and
 * cuda/common.c); where libvmaf itself crashes on the input (a NULL
 * dereference), the drop-in answers -EINVAL, marked "libvmaf crashes".
 * Rows marked "tvmaf" are the drop-in's own refusals, where libvmaf would
 * score garbage or read frames out of order (docs/libvmaf.md). Nothing may
 * crash or leak (the test runs under ASan too). After the refusals, the
 * context still scores; last, imported scores are listed in the order
 * libvmaf (one thread) lists them.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvmaf/libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>

static unsigned passed, failed;

static void row(const char *call, int got, int want, const char *origin)
{
    if (got == want) {
        passed++;
        printf("ok    %-72s %d (%s)\n", call, got, origin);
    } else {
        failed++;
        printf("FAIL  %-72s %d, want %d (%s)\n", call, got, want, origin);
    }
}

#define LIBVMAF(call, want) row(#call, (call), want, "libvmaf")
#define CRASHES(call, want) row(#call, (call), want, "libvmaf crashes")
#define TVMAF(call, want) row(#call, (call), want, "tvmaf")

static void fill(VmafPicture *p, int seed)
{
    for (int k = 0; k < 3; k++)
        for (unsigned y = 0; y < p->h[k]; y++)
            for (unsigned x = 0; x < p->w[k]; x++)
                ((unsigned char *)p->data[k])[y * p->stride[k] + x] =
                    (unsigned char)((x * 7 + y * 13 + seed * 31 + k * 50) & 0xff);
}

/* a pair of 8-bit 4:2:0 pictures of 64x48 (distorted by `seed`) */
static void pair(VmafPicture *ref, VmafPicture *dis, int seed)
{
    if (vmaf_picture_alloc(ref, VMAF_PIX_FMT_YUV420P, 8, 64, 48) ||
        vmaf_picture_alloc(dis, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) {
        printf("FAIL  vmaf_picture_alloc\n");
        exit(1);
    }
    fill(ref, 0);
    fill(dis, seed);
}

int main(void)
{
    const char *models = getenv("TVMAF_MODELS");
    char b_path[4096], bad_path[4096];
    snprintf(b_path, sizeof(b_path), "%s/vmaf_b_v0.6.3.json", models ? models : "models");
    snprintf(bad_path, sizeof(bad_path), "%s/README.md", models ? models : "models");
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = 0 };
    VmafContext *v = NULL;
    VmafModel *m = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig mcfg = { .name = NULL, .flags = VMAF_MODEL_FLAGS_DEFAULT };
    VmafFeatureDictionary *d = NULL;
    VmafPicture ref, dis, odd, zero;
    double s;
    VmafModelCollectionScore cs;
    memset(&zero, 0, sizeof(zero));

    /* context and dictionaries */
    LIBVMAF(vmaf_init(NULL, cfg), -EINVAL);
    LIBVMAF(vmaf_close(NULL), -EINVAL);
    LIBVMAF(vmaf_init(&v, cfg), 0);
    LIBVMAF(vmaf_feature_dictionary_set(NULL, "enable_chroma", "false"), -EINVAL);
    LIBVMAF(vmaf_feature_dictionary_set(&d, NULL, "false"), -EINVAL);
    CRASHES(vmaf_feature_dictionary_set(&d, "enable_chroma", NULL), -EINVAL);
    LIBVMAF(vmaf_feature_dictionary_free(NULL), -EINVAL);
    LIBVMAF(vmaf_feature_dictionary_free(&d), 0);

    /* features */
    LIBVMAF(vmaf_use_feature(NULL, "psnr", NULL), -EINVAL);
    LIBVMAF(vmaf_use_feature(v, NULL, NULL), -EINVAL);
    LIBVMAF(vmaf_use_feature(v, "no_such_feature", NULL), -EINVAL);
    LIBVMAF(vmaf_feature_dictionary_set(&d, "enable_chroma", "maybe"), 0);
    LIBVMAF(vmaf_use_feature(v, "psnr", d), -EINVAL); /* the dictionary stays the caller's */
    LIBVMAF(vmaf_feature_dictionary_free(&d), 0);
    LIBVMAF(vmaf_feature_dictionary_set(&d, "no_such_option", "1"), 0);
    LIBVMAF(vmaf_use_feature(v, "psnr", d), 0); /* ignored, as libvmaf ignores it */
    d = NULL;
    LIBVMAF(vmaf_use_features_from_model(NULL, m), -EINVAL);
    LIBVMAF(vmaf_use_features_from_model(v, NULL), -EINVAL);
    LIBVMAF(vmaf_use_features_from_model_collection(NULL, mc), -EINVAL);
    LIBVMAF(vmaf_use_features_from_model_collection(v, NULL), -EINVAL);

    /* models */
    LIBVMAF(vmaf_model_load(&m, &mcfg, "no_such_model"), -EINVAL);
    LIBVMAF(vmaf_model_load_from_path(&m, &mcfg, "/no/such/model.json"), -EINVAL);
    LIBVMAF(vmaf_model_load_from_path(&m, &mcfg, bad_path), -EINVAL);
    LIBVMAF(vmaf_model_load(&m, &mcfg, "vmaf_b_v0.6.3"), -EINVAL); /* a collection */
    LIBVMAF(vmaf_model_collection_load(&m, &mc, &mcfg, "vmaf_v0.6.1"), -EINVAL); /* not one */
    LIBVMAF(vmaf_model_collection_load_from_path(&m, &mc, &mcfg, "/no/such/model.json"), -EINVAL);
    CRASHES(vmaf_model_load(NULL, &mcfg, "vmaf_v0.6.1"), -EINVAL);
    CRASHES(vmaf_model_load(&m, NULL, "vmaf_v0.6.1"), -EINVAL);
    CRASHES(vmaf_model_load(&m, &mcfg, NULL), -EINVAL);
    LIBVMAF(vmaf_model_feature_overload(NULL, "adm", d), -EINVAL);
    LIBVMAF(vmaf_model_collection_feature_overload(m, NULL, "adm", d), -EINVAL);
    LIBVMAF(vmaf_model_load(&m, &mcfg, "vmaf_v0.6.1"), 0);
    LIBVMAF(vmaf_model_feature_overload(m, NULL, d), -EINVAL);
    LIBVMAF(vmaf_model_feature_overload(m, "adm", NULL), -EINVAL);
    LIBVMAF(vmaf_use_features_from_model(v, m), 0);
    vmaf_model_destroy(NULL);
    vmaf_model_collection_destroy(NULL);

    /* pictures */
    LIBVMAF(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 64, 48), -EINVAL);
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_UNKNOWN, 8, 64, 48), -EINVAL);
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_YUV420P, 7, 64, 48), -EINVAL);
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_YUV420P, 17, 64, 48), -EINVAL);
    LIBVMAF(vmaf_picture_unref(NULL), -EINVAL);
    LIBVMAF(vmaf_picture_unref(&zero), -EINVAL);
    LIBVMAF(vmaf_preallocate_pictures(NULL, (VmafPictureConfiguration){ 0 }), -EINVAL);
    LIBVMAF(vmaf_preallocate_pictures(v, (VmafPictureConfiguration){ .pic_params = { 64, 48, 8, VMAF_PIX_FMT_YUV420P }, .pic_cnt = 0 }), -EINVAL);
    LIBVMAF(vmaf_fetch_preallocated_picture(v, &odd), -EINVAL); /* nothing preallocated */
    LIBVMAF(vmaf_fetch_preallocated_picture(NULL, &odd), -EINVAL);
    LIBVMAF(vmaf_fetch_preallocated_picture(v, NULL), -EINVAL);

    /* reading pictures */
    pair(&ref, &dis, 1);
    LIBVMAF(vmaf_read_pictures(NULL, &ref, &dis, 0), -EINVAL);
    LIBVMAF(vmaf_read_pictures(v, &ref, NULL, 0), -EINVAL);
    LIBVMAF(vmaf_read_pictures(v, NULL, &dis, 0), -EINVAL);
    CRASHES(vmaf_read_pictures(v, &zero, &dis, 0), -EINVAL);
    LIBVMAF(vmaf_read_pictures(v, &ref, &dis, 0), 0);
    /* the stream is 64x48 4:2:0 8-bit now: another size or format is refused
     * and the pictures stay the caller's */
    pair(&ref, &dis, 2);
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_YUV420P, 8, 48, 48), 0);
    LIBVMAF(vmaf_read_pictures(v, &ref, &odd, 1), -EINVAL);
    LIBVMAF(vmaf_read_pictures(v, &odd, &dis, 1), -EINVAL);
    LIBVMAF(vmaf_picture_unref(&odd), 0);
    LIBVMAF(vmaf_picture_unref(&odd), -EINVAL); /* released already */
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_YUV444P, 8, 64, 48), 0);
    LIBVMAF(vmaf_read_pictures(v, &ref, &odd, 1), -EINVAL);
    LIBVMAF(vmaf_picture_unref(&odd), 0);
    LIBVMAF(vmaf_picture_alloc(&odd, VMAF_PIX_FMT_YUV420P, 10, 64, 48), 0);
    TVMAF(vmaf_read_pictures(v, &odd, &dis, 1), -EINVAL);
    TVMAF(vmaf_read_pictures(v, &ref, &odd, 1), -EINVAL); /* libvmaf lets it through */
    LIBVMAF(vmaf_picture_unref(&odd), 0);
    TVMAF(vmaf_read_pictures(v, &ref, &dis, 5), -EINVAL); /* out of order */
    LIBVMAF(vmaf_read_pictures(v, &ref, &dis, 1), 0);
    LIBVMAF(ref.data[0] == NULL && ref.ref == NULL, 1); /* taken: the structure is cleared */
    TVMAF(vmaf_use_feature(v, "float_ssim", NULL), -EINVAL); /* after the first picture */
    pair(&ref, &dis, 3);
    LIBVMAF(vmaf_picture_unref(&dis), 0);
    LIBVMAF(vmaf_read_pictures(v, &ref, &ref, 2), 0); /* one picture as both */

    /* scores before the flush are those of the frames read */
    LIBVMAF(vmaf_feature_score_at_index(v, "psnr_y", &s, 0), 0);
    LIBVMAF(vmaf_read_pictures(v, NULL, NULL, 0), 0);  /* flush */
    pair(&ref, &dis, 4);
    LIBVMAF(vmaf_read_pictures(v, &ref, &dis, 3), -EINVAL); /* after the flush */
    LIBVMAF(vmaf_read_pictures(v, NULL, NULL, 0), -EINVAL); /* flushed already */
    LIBVMAF(vmaf_picture_unref(&ref), 0);
    LIBVMAF(vmaf_picture_unref(&dis), 0);

    /* scores */
    LIBVMAF(vmaf_feature_score_at_index(NULL, "psnr_y", &s, 0), -EINVAL);
    LIBVMAF(vmaf_feature_score_at_index(v, NULL, &s, 0), -EINVAL);
    LIBVMAF(vmaf_feature_score_at_index(v, "psnr_y", NULL, 0), -EINVAL);
    LIBVMAF(vmaf_feature_score_at_index(v, "no_such_key", &s, 0), -EINVAL);
    LIBVMAF(vmaf_feature_score_at_index(v, "psnr_y", &s, 3), -EINVAL);
    LIBVMAF(vmaf_feature_score_at_index(v, "psnr_y", &s, 2), 0);
    LIBVMAF(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 2, 1), -EINVAL);
    LIBVMAF(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_UNKNOWN, &s, 0, 2), -EINVAL);
    LIBVMAF(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_NB, &s, 0, 2), -EINVAL);
    LIBVMAF(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, 3), -EINVAL);
    LIBVMAF(vmaf_feature_score_pooled(v, NULL, VMAF_POOL_METHOD_MEAN, &s, 0, 2), -EINVAL);
    CRASHES(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_MEAN, NULL, 0, 2), -EINVAL);
    LIBVMAF(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_HARMONIC_MEAN, &s, 0, 2), 0);
    LIBVMAF(vmaf_score_at_index(NULL, m, &s, 0), -EINVAL);
    LIBVMAF(vmaf_score_at_index(v, NULL, &s, 0), -EINVAL);
    LIBVMAF(vmaf_score_at_index(v, m, NULL, 0), -EINVAL);
    LIBVMAF(vmaf_score_at_index(v, m, &s, 7), -EINVAL); /* no features at frame 7 */
    LIBVMAF(vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &s, 0, 3), -EINVAL);
    LIBVMAF(vmaf_score_pooled(v, m, VMAF_POOL_METHOD_UNKNOWN, &s, 0, 2), -EINVAL);
    LIBVMAF(vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &s, 0, 2), 0);
    LIBVMAF(vmaf_score_at_index_model_collection(v, NULL, &cs, 0), -EINVAL);
    LIBVMAF(vmaf_score_pooled_model_collection(v, NULL, VMAF_POOL_METHOD_MEAN, &cs, 0, 2), -EINVAL);
    LIBVMAF(vmaf_import_feature_score(NULL, "ext", 1.0, 0), -EINVAL);
    LIBVMAF(vmaf_import_feature_score(v, NULL, 1.0, 0), -EINVAL);
    LIBVMAF(vmaf_import_feature_score(v, "ext", 1.0, 0), 0);
    LIBVMAF(vmaf_import_feature_score(v, "ext", 2.0, 0), -EINVAL); /* frame 0 has one */
    LIBVMAF(vmaf_import_feature_score(v, "psnr_y", 2.0, 1), -EINVAL);

    /* outputs */
    CRASHES(vmaf_write_output(NULL, "/dev/null", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    CRASHES(vmaf_write_output(v, NULL, VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    LIBVMAF(vmaf_write_output(v, "/no/such/dir/out.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    LIBVMAF(vmaf_write_output(v, "/dev/null", VMAF_OUTPUT_FORMAT_NONE), -EINVAL);
    LIBVMAF(vmaf_write_output(v, "/dev/null", (enum VmafOutputFormat)9), -EINVAL);
    LIBVMAF(vmaf_write_output(v, "/dev/null", VMAF_OUTPUT_FORMAT_XML), 0);

    /* the CUDA entry points, without a usable CUDA device here */
    VmafCudaState *cu = NULL;
    const VmafCudaConfiguration cu_cfg = { 0 };
    LIBVMAF(vmaf_cuda_state_init(NULL, cu_cfg), -EINVAL);
    LIBVMAF(vmaf_cuda_import_state(NULL, cu), -EINVAL);
    LIBVMAF(vmaf_cuda_import_state(v, NULL), -EINVAL);
    VmafCudaPictureConfiguration cpc = {
        .pic_params = { 64, 48, 8, VMAF_PIX_FMT_YUV420P },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE,
    };
    LIBVMAF(vmaf_cuda_preallocate_pictures(NULL, cpc), -EINVAL);
    LIBVMAF(vmaf_cuda_preallocate_pictures(v, cpc), 0);
    LIBVMAF(vmaf_cuda_fetch_preallocated_picture(v, &odd), -EINVAL); /* none preallocated */
    cpc.pic_prealloc_method = (enum VmafCudaPicturePreallocationMethod)9;
    LIBVMAF(vmaf_cuda_preallocate_pictures(v, cpc), -EINVAL);
    cpc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    LIBVMAF(vmaf_cuda_preallocate_pictures(v, cpc), -EINVAL); /* no CUDA state imported */
    cpc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST;
    LIBVMAF(vmaf_cuda_preallocate_pictures(v, cpc), -EINVAL); /* no CUDA state imported */
    LIBVMAF(vmaf_cuda_fetch_preallocated_picture(NULL, &odd), -EINVAL);
    LIBVMAF(vmaf_cuda_fetch_preallocated_picture(v, NULL), -EINVAL);
    const int cu_err = vmaf_cuda_state_init(&cu, cu_cfg);
    if (cu_err) {
        LIBVMAF(cu_err, -EINVAL); /* no usable CUDA device */
    } else {
        LIBVMAF(vmaf_cuda_import_state(v, cu), 0);
        LIBVMAF(vmaf_cuda_preallocate_pictures(v, cpc), 0);
        LIBVMAF(vmaf_cuda_fetch_preallocated_picture(v, &odd), 0);
        LIBVMAF(vmaf_picture_unref(&odd), 0);
    }

    /* a collection, and its misuse */
    VmafModel *m0 = NULL;
    CRASHES(vmaf_model_collection_load_from_path(&m0, NULL, &mcfg, b_path), -EINVAL);
    LIBVMAF(vmaf_model_collection_load_from_path(&m0, &mc, &mcfg, b_path), 0);
    LIBVMAF(vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.0"), 0);
    LIBVMAF(vmaf_model_collection_feature_overload(m0, &mc, "adm", d), 0); /* takes d */
    d = NULL;
    LIBVMAF(vmaf_score_at_index_model_collection(v, mc, &cs, 0), -EINVAL); /* not extracted */
    vmaf_model_destroy(m0);
    vmaf_model_collection_destroy(mc);

    vmaf_model_destroy(m);
    LIBVMAF(vmaf_close(v), 0);

    /* imported scores are listed where libvmaf (one thread) lists them: in the
     * order they were first added, before the frames' keys when imported first */
    LIBVMAF(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = 2 }), 0);
    LIBVMAF(vmaf_import_feature_score(v, "early", 1.0, 0), 0);
    LIBVMAF(vmaf_use_feature(v, "psnr", NULL), 0);
    for (unsigned i = 0; i < 3; i++) {
        pair(&ref, &dis, (int)i + 1);
        LIBVMAF(vmaf_read_pictures(v, &ref, &dis, i), 0);
        if (i == 0) LIBVMAF(vmaf_import_feature_score(v, "between", 2.0, 0), 0);
    }
    LIBVMAF(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    LIBVMAF(vmaf_import_feature_score(v, "late", 3.0, 0), 0);
    char path[] = "/tmp/libvmaf_misuse_XXXXXX";
    const int fd = mkstemp(path);
    LIBVMAF(vmaf_write_output(v, path, VMAF_OUTPUT_FORMAT_CSV), 0);
    char head[256] = "";
    FILE *f = fopen(path, "r");
    if (f && !fgets(head, sizeof(head), f)) head[0] = '\0';
    if (f) fclose(f);
    if (fd >= 0) { close(fd); unlink(path); }
    row("CSV header: Frame,early,psnr_y,psnr_cb,psnr_cr,between,late,",
        strcmp(head, "Frame,early,psnr_y,psnr_cb,psnr_cr,between,late,\n"), 0, "libvmaf");
    LIBVMAF(vmaf_close(v), 0);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
