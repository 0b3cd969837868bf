/*
 * Model files that cannot be used are refused with a clear message, never a
 * crash: missing files, corrupt JSON, missing or mistyped keys, unknown
 * types, libsvm text that does not parse, features no extractor provides,
 * unknown versions (the message lists every directory searched), bad
 * feature options. Then a whole run through the public API with a small
 * psnr-based model: every frame's score equals the prediction from the
 * collected feature values.
 *
 * usage: test_model_load [SHARED_DIR]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "model/model.h"
#include "unit_check.h"

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fputs(text, f);
    fclose(f);
}

#define SVM "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\n" \
            "rho -0.25\\nSV\\n1.5 1:0.3 2:0.7 \\n-0.75 1:0.9 \\n"

/* A valid model with two psnr features; pieces replaceable by the cases. */
static void model_text(char *buf, size_t len, const char *type, const char *norm,
                       const char *names, const char *slopes, const char *svm, const char *extra)
{
    snprintf(buf, len,
             "{\"model_dict\": {%s%s%s\"norm_type\": %s, \"feature_names\": %s, "
             "\"slopes\": %s, \"intercepts\": [-0.1, -0.5, -0.6], \"score_clip\": [0.0, 100.0], "
             "\"model\": %s%s}}",
             type ? "\"model_type\": " : "", type ? type : "", type ? ", " : "",
             norm, names, slopes, svm, extra ? extra : "");
}

/* Loads `text` as a file and expects failure with err and every needle. */
static void expect_fail(const char *what, const char *text, int err, const char *n1,
                        const char *n2)
{
    write_file("case.json", text);
    char path[512], msg[1024] = "";
    snprintf(path, sizeof(path), "%s/case.json", tmpdir);
    TvmafModel *m = NULL;
    const int r = tvmaf_model_load(&m, path, NULL, NULL, msg, sizeof(msg));
    char detail[1400];
    snprintf(detail, sizeof(detail), "returned %d, message \"%s\"", r, msg);
    check_detail(r == err && !m && (!n1 || strstr(msg, n1)) && (!n2 || strstr(msg, n2)), what, detail);
    tvmaf_model_destroy(m);
}

static const char *good_names = "[\"psnr_y\", \"psnr_cb\"]";
static const char *good_slopes = "[0.05, 0.025, 0.02]";
static const char *good_type = "\"LIBSVMNUSVR\"";
static const char *good_norm = "\"linear_rescale\"";
static const char *good_svm = "\"" SVM "\"";

static void load_cases(void)
{
    char t[10000], msg[1024];
    TvmafModel *m = NULL;
    int r;

    r = tvmaf_model_load(&m, "/nonexistent/dir/model.json", NULL, NULL, msg, sizeof(msg));
    check_detail(r == -ENOENT && strstr(msg, "/nonexistent/dir/model.json"), "missing file: -ENOENT naming it", msg);

    model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, good_svm, NULL);
    write_file("good.json", t);
    char path[512];
    snprintf(path, sizeof(path), "%s/good.json", tmpdir);
    r = tvmaf_model_load(&m, path, NULL, NULL, msg, sizeof(msg));
    check_detail(!r && m && !strcmp(tvmaf_model_name(m), "vmaf"), "a valid psnr model loads, named vmaf", msg);
    tvmaf_model_destroy(m);
    m = NULL;

    /* corrupt JSON */
    t[strlen(t) / 2] = '\0';
    expect_fail("truncated JSON", t, -EINVAL, "not valid JSON", NULL);
    expect_fail("empty file", "", -EINVAL, "not valid JSON", NULL);
    expect_fail("not an object", "[1, 2]", -EINVAL, "not a JSON object", NULL);
    expect_fail("neither model_dict nor collection", "{\"param_dict\": {}}", -EINVAL, "model_dict", NULL);

    /* missing keys */
    model_text(t, sizeof(t), NULL, good_norm, good_names, good_slopes, good_svm, NULL);
    expect_fail("no model_type", t, -EINVAL, "model_type", NULL);
    snprintf(t, sizeof(t), "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
             "\"feature_names\": [\"psnr_y\"], \"model\": \"%s\"}}", SVM);
    expect_fail("no norm_type", t, -EINVAL, "norm_type", NULL);
    snprintf(t, sizeof(t), "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
             "\"norm_type\": \"none\", \"model\": \"%s\"}}", SVM);
    expect_fail("no feature_names", t, -EINVAL, "feature_names", NULL);
    snprintf(t, sizeof(t), "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
             "\"norm_type\": \"none\", \"feature_names\": [\"psnr_y\"]}}");
    expect_fail("no model text", t, -EINVAL, "no model", NULL);
    snprintf(t, sizeof(t), "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
             "\"norm_type\": \"linear_rescale\", \"feature_names\": [\"psnr_y\"], "
             "\"intercepts\": [0, 0], \"model\": \"%s\"}}", SVM);
    expect_fail("linear_rescale without slopes", t, -EINVAL, "slopes", NULL);

    /* wrong types and values */
    model_text(t, sizeof(t), good_type, good_norm, "\"psnr_y\"", good_slopes, good_svm, NULL);
    expect_fail("feature_names not a list", t, -EINVAL, "feature_names", "list");
    model_text(t, sizeof(t), good_type, good_norm, "[\"psnr_y\", 3]", good_slopes, good_svm, NULL);
    expect_fail("feature name not a string", t, -EINVAL, "feature_names[1]", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, "[0.05, \"x\", 0.02]", good_svm, NULL);
    expect_fail("slope not a number", t, -EINVAL, "slopes", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, "[0.05, 0.02]", good_svm, NULL);
    expect_fail("too few slopes", t, -EINVAL, "slopes has 2 numbers", NULL);
    model_text(t, sizeof(t), good_type, "\"log\"", good_names, good_slopes, good_svm, NULL);
    expect_fail("unknown norm_type", t, -EINVAL, "unknown norm_type \"log\"", NULL);
    model_text(t, sizeof(t), "\"RANDOMFOREST\"", good_norm, good_names, good_slopes, good_svm, NULL);
    expect_fail("unknown model_type", t, -EINVAL, "unknown model_type \"RANDOMFOREST\"", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, "42", NULL);
    expect_fail("model text not a string", t, -EINVAL, "model is not a string", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, good_svm,
               ", \"score_transform\": {\"p0\": \"one\"}");
    expect_fail("score_transform.p0 not a number", t, -EINVAL, "p0", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, good_svm,
               ", \"feature_opts_dicts\": [{}, {}, {}]");
    expect_fail("more option dicts than features", t, -EINVAL, "feature_opts_dicts", NULL);
    model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, good_svm,
               ", \"score_transform\": {\"knots\": [[0, 0], [1, 2, 3]]}");
    expect_fail("knot with three numbers", t, -EINVAL, "knots[1]", NULL);

    /* libsvm text */
    static const struct { const char *what, *svm, *needle; } svm_cases[] = {
        { "libsvm: unknown header word", "\"svm_type nu_svr\\nkernel_type rbf\\nfoo 1\\n\"", "unknown text \"foo\"" },
        { "libsvm: classification type", "\"svm_type c_svc\\nkernel_type rbf\\ngamma 1\\nnr_class 2\\ntotal_sv 0\\nrho 0\\nSV\\n\"", "not a regression" },
        { "libsvm: unknown kernel", "\"svm_type nu_svr\\nkernel_type cubic\\n\"", "kernel_type" },
        { "libsvm: no rho", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nSV\\n1 1:0.5\\n\"", "no rho" },
        { "libsvm: bad gamma", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma x\\n\"", "gamma" },
        { "libsvm: fewer vectors than total_sv", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 3\\nrho 0\\nSV\\n1 1:0.5\\n\"", "3 support vectors announced, 1 found" },
        { "libsvm: bad element", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:abc\\n\"", "support vector 1" },
        { "libsvm: index 0", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 0:0.5\\n\"", "index >= 1" },
        { "libsvm: no SV section", "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\n\"", "no SV" },
        { "libsvm: empty text", "\"\"", "no svm_type" },
    };
    for (size_t i = 0; i < sizeof(svm_cases) / sizeof(svm_cases[0]); i++) {
        model_text(t, sizeof(t), good_type, good_norm, good_names, good_slopes, svm_cases[i].svm, NULL);
        expect_fail(svm_cases[i].what, t, -EINVAL, "libsvm", svm_cases[i].needle);
    }

    /* features */
    model_text(t, sizeof(t), good_type, good_norm, "[\"psnr_y\", \"VMAF_feature_no_such_extractor_score\"]",
               good_slopes, good_svm, NULL);
    expect_fail("feature no extractor provides", t, -ENOTSUP, "\"VMAF_feature_no_such_extractor_score\"", "no extractor");
    model_text(t, sizeof(t), good_type, good_norm, "[\"psnr_y\", \"no_such_feature\"]",
               good_slopes, good_svm, NULL);
    expect_fail("unknown feature", t, -ENOTSUP, "\"no_such_feature\"", NULL);

    /* collections */
    char m1[3000], m2[3000];
    model_text(m1, sizeof(m1), "\"BOOTSTRAP_LIBSVMNUSVR\"", good_norm, good_names, good_slopes, good_svm, NULL);
    model_text(m2, sizeof(m2), "\"LIBSVMNUSVR\"", good_norm, good_names, good_slopes, good_svm, NULL);
    snprintf(t, sizeof(t), "{\"0\": %s}", m1);
    expect_fail("collection without members", t, -EINVAL, "no member", NULL);
    snprintf(t, sizeof(t), "{\"0\": %s, \"1\": %s, \"2\": %s}", m1, m1, m2);
    expect_fail("collection members of two types", t, -EINVAL, "model \"2\"", "model_type");
    snprintf(t, sizeof(t), "{\"0\": %s, \"1\": %s}", m2, m2);
    expect_fail("collection of non-bootstrap models", t, -EINVAL, "BOOTSTRAP", NULL);
    snprintf(t, sizeof(t), "{\"0\": %s, \"1\": %s, \"2\": %s}", m1, m1, m1);
    write_file("coll.json", t);
    snprintf(path, sizeof(path), "%s/coll.json", tmpdir);
    TvmafModelConfig cfg = { .name = "b", .flags = 0 };
    r = tvmaf_model_load(&m, path, NULL, &cfg, msg, sizeof(msg));
    check_detail(!r && m && m->n_members == 2 && !strcmp(m->member[1]->name, "b_0002") &&
          !strcmp(tvmaf_model_name(m), "b"), "collection: main b, members b_0001, b_0002", msg);
    tvmaf_model_destroy(m);
    m = NULL;

    /* versions and the search path */
    r = tvmaf_model_load(&m, path, "good", NULL, msg, sizeof(msg));
    check_detail(r == -EINVAL && !m, "path and version together refused", msg);
    r = tvmaf_model_load(&m, NULL, NULL, NULL, msg, sizeof(msg));
    check_detail(r == -EINVAL && !m, "neither path nor version refused", msg);
    r = tvmaf_model_load(&m, NULL, "../etc/passwd", NULL, msg, sizeof(msg));
    check_detail(r == -EINVAL && !m, "version with a slash refused", msg);
    char env[600];
    snprintf(env, sizeof(env), "/nonexistent/a:%s", tmpdir);
    setenv("TVMAF_MODEL_PATH", env, 1);
    r = tvmaf_model_load(&m, NULL, "good", NULL, msg, sizeof(msg));
    check_detail(!r && m && !strcmp(m->label, "good"), "version found in the second TVMAF_MODEL_PATH dir", msg);
    tvmaf_model_destroy(m);
    m = NULL;
    r = tvmaf_model_load(&m, NULL, "vmaf_v9.9", NULL, msg, sizeof(msg));
    char want[600];
    snprintf(want, sizeof(want), "%s/vmaf_v9.9.json", tmpdir);
    check_detail(r == -ENOENT && !m && strstr(msg, "/nonexistent/a/vmaf_v9.9.json") && strstr(msg, want) &&
          strstr(msg, "vmaf_v9.9") && strstr(msg, "TVMAF_MODEL_PATH"),
          "unknown version: -ENOENT naming every directory searched", msg);
}

/* A frame of 64x64 8-bit 4:2:0 with a pattern depending on `seed`. */
static void make_picture(TvmafPicture *p, unsigned seed)
{
    tvmaf_picture_alloc(p, TVMAF_PIX_FMT_YUV420P, 8, 64, 64);
    for (int c = 0; c < 3; c++)
        for (unsigned y = 0; y < p->h[c]; y++)
            for (unsigned x = 0; x < p->w[c]; x++)
                ((uint8_t *)p->data[c])[y * p->stride[c] + x] =
                    (uint8_t)((x * 7 + y * 13 + seed * (x ^ y) + c * 31) & 0xff);
}

static void api_run(void)
{
    char path[512], msg[1024] = "";
    snprintf(path, sizeof(path), "%s/good.json", tmpdir);
    TvmafModelConfig cfg = { .name = "pm", .flags = TVMAF_MODEL_ENABLE_TRANSFORM };
    TvmafModel *m = NULL;
    int r = tvmaf_model_load(&m, path, NULL, &cfg, msg, sizeof(msg));
    check_detail(!r, "load psnr model for a run", msg);
    if (r) return;

    r = tvmaf_model_feature_overload(m, "no_such_extractor", "x", "1");
    check_detail(r == -ENOENT && strstr(tvmaf_model_last_error(m), "no_such_extractor"),
          "overload of an extractor the model does not use: -ENOENT", tvmaf_model_last_error(m));
    r = tvmaf_model_feature_overload(m, "psnr", "no_such_option", "1");
    check_detail(r == -EINVAL && strstr(tvmaf_model_last_error(m), "no_such_option"),
          "overload of an unknown option: -EINVAL", tvmaf_model_last_error(m));
    r = tvmaf_model_feature_overload(m, "psnr", "min_sse", "-1");
    check_detail(!r, "overload psnr.min_sse=-1 accepted (checked at use)", tvmaf_model_last_error(m));

    TvmafContext *ctx = NULL;
    TvmafConfiguration c = { .n_threads = 2, .backend = TVMAF_BACKEND_CPU };
    tvmaf_init(&ctx, &c);
    r = tvmaf_use_model(ctx, m);
    check_detail(r && strstr(tvmaf_model_last_error(m), "min_sse"),
          "use with an out-of-range option value fails naming it", tvmaf_model_last_error(m));
    r = tvmaf_model_feature_overload(m, "psnr", "min_sse", "0.0");
    check_detail(!r && !strcmp(m->main->feature[0].opt[0].val, "0"),
          "overload value normalised as libvmaf (0.0 -> 0)", tvmaf_model_last_error(m));
    tvmaf_close(ctx);

    tvmaf_init(&ctx, &c);
    r = tvmaf_use_model(ctx, m);
    check_detail(!r, "use model", tvmaf_model_last_error(m));
    const unsigned n = 5;
    for (unsigned i = 0; i < n && !r; i++) {
        TvmafPicture a, b;
        make_picture(&a, 1);
        make_picture(&b, 2 + i);
        r = tvmaf_read_pictures(ctx, &a, &b, i);
    }
    if (!r) r = tvmaf_flush(ctx);
    check_detail(!r, "run 5 frames", tvmaf_last_error(ctx));
    r = tvmaf_score_model(ctx, m);
    check_detail(!r, "score model", tvmaf_model_last_error(m));
    unsigned same = 0;
    for (unsigned i = 0; i < n; i++) {
        double x[2], v = -1, s = -2;
        tvmaf_feature_score_at_index(ctx, "psnr_y", &x[0], i);
        tvmaf_feature_score_at_index(ctx, "psnr_cb", &x[1], i);
        tvmaf_svr_predict(m->main, x, 0, &v, msg, sizeof(msg));
        tvmaf_feature_score_at_index(ctx, "pm", &s, i);
        same += !memcmp(&v, &s, sizeof(v));
    }
    snprintf(msg, sizeof(msg), "%u/%u", same, n);
    check_detail(same == n, "every frame's score is the prediction of its features", msg);
    r = tvmaf_score_model(ctx, m);
    check_detail(!r, "scoring again keeps the scores", tvmaf_model_last_error(m));
    tvmaf_close(ctx);

    /* the model's features were not extracted: an error naming one */
    tvmaf_init(&ctx, &c);
    r = tvmaf_use_feature(ctx, "ciede");
    for (unsigned i = 0; i < 2 && !r; i++) {
        TvmafPicture a, b;
        make_picture(&a, 1);
        make_picture(&b, 3);
        r = tvmaf_read_pictures(ctx, &a, &b, i);
    }
    if (!r) r = tvmaf_flush(ctx);
    r = r ? r : tvmaf_score_model(ctx, m);
    check_detail(r == -EINVAL && strstr(tvmaf_model_last_error(m), "psnr_y") &&
          strstr(tvmaf_model_last_error(m), "frame 0"),
          "a feature missing at a frame: an error naming it and the frame", tvmaf_model_last_error(m));
    tvmaf_close(ctx);
    tvmaf_model_destroy(m);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/tvmaf_model_test.XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    load_cases();
    api_run();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmpdir);
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
