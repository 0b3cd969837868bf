/*
 * cambi: the arithmetic helpers against known values, and the extractor,
 * through the public API, against scores of libvmaf's cambi (f85a8536, its C
 * path) on synthetic banded frames, compared as bits; plus its refusals,
 * thread-count independence and the heat-map files.
 *
 * The pinned scores were produced by running libvmaf's `vmaf` tool
 * (printing %.17g) on the frames this program writes with
 *   test_cambi_scores --dump DIR
 * (DIR/<case>.ref.yuv and .dis.yuv, 4:2:0, the sizes and depths below).
 * The cases cover 8, 10 and 16 bits, full_ref with non-default options (only
 * the score's key takes the suffix), an encode smaller than the input, the
 * PQ EOTF with anti-dithering of a 10-bit input, and a frame narrower than
 * half the window at its coarse scales, where the reference's histograms
 * take in columns left over from the finer scales.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvmaf/tvmaf.h"
#include "feature/cambi/cambi_math.h"

#define FRAMES 2

typedef struct Case {
    const char *name;
    unsigned w, h, bpc;
    const char *spec;
    const char *keys[3];
    double want[3][FRAMES];
} Case;

static const Case cases[] = {
    { "ramp_320x180", 320, 180, 8, "cambi",
      { "Cambi_feature_cambi_score" },
      { { 17.86261577043412, 17.862059426589482 } } },
    { "ramp_320x180_fr", 320, 180, 8, "cambi=full_ref=true:topk=0.25",
      { "cambi_topk_0.25", "cambi_source", "cambi_full_reference" },
      { { 26.33967195609825, 26.33967195609825 },
        { 26.718148461702135, 26.718148461702135 },
        { 0.0, 0.0 } } },
    { "narrow_24x600", 24, 600, 8, "cambi",
      { "Cambi_feature_cambi_score" },
      { { 19.987773591662933, 19.98378223993971 } } },
    { "ramp_360x240_10b", 360, 240, 10, "cambi=enc_width=300:enc_height=200:max_log_contrast=3",
      { "cambi_ench_200_encw_300_mlc_3" },
      { { 2.7164386917408785, 2.678569710506646 } } },
    { "ramp_400x224_10b", 400, 224, 10, "cambi=eotf=pq:enc_bitdepth=8",
      { "cambi_encbd_8_eotf_pq" },
      { { 4.138706584994485, 4.138706584994485 } } },
    { "wide_640x36", 640, 36, 8, "cambi=cambi_vis_lum_threshold=1",
      { "cambi_vlt_1" },
      { { 13.328707260927377, 13.32848021497532 } } },
    { "ramp_256x144_16b", 256, 144, 16, "cambi=full_ref=true",
      { "Cambi_feature_cambi_score", "cambi_source", "cambi_full_reference" },
      { { 2.897376227848812, 2.9245218179658927 },
        { 2.1719122395315456, 2.1407960065995577 },
        { 0.7254639883172667, 0.783725811366335 } } },
};

static int failures;

static void fail(const char *what)
{
    printf("FAIL  %s\n", what);
    failures++;
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

/* Banded ramps: integer divisions make flat steps one code apart; the
 * distorted frame has other slopes and a sparse pattern of +1 samples. */
static unsigned luma(const Case *c, int dis, unsigned x, unsigned y, unsigned k)
{
    const unsigned lo = c->bpc == 8 ? 1 : 1u << (c->bpc - 8);
    /* at least 200 samples per ramp, so a narrow side keeps flat steps */
    const unsigned dw = c->w < 200 ? 200 : c->w, dh = c->h < 200 ? 200 : c->h;
    unsigned v;
    if (!dis)
        v = 70 * lo + (14 * lo * x) / dw + (9 * lo * y) / dh + k;
    else
        v = 70 * lo + (20 * lo * x) / dw + (6 * lo * y) / dh + k
            + ((x * 7 + y * 13) % 97 == 0);
    return v;
}

static int fill(const Case *c, TvmafPicture *p, int dis, unsigned k)
{
    if (tvmaf_picture_alloc(p, TVMAF_PIX_FMT_YUV420P, c->bpc, c->w, c->h)) return -ENOMEM;
    for (int pl = 0; pl < 3; pl++) {
        for (unsigned y = 0; y < p->h[pl]; y++) {
            uint8_t *row = (uint8_t *)p->data[pl] + y * p->stride[pl];
            for (unsigned x = 0; x < p->w[pl]; x++) {
                const unsigned v = pl ? 1u << (c->bpc - 1) : luma(c, dis, x, y, k);
                if (c->bpc == 8) row[x] = (uint8_t)v;
                else ((uint16_t *)row)[x] = (uint16_t)v;
            }
        }
    }
    return 0;
}

static int dump(const char *dir)
{
    mkdir(dir, 0770);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const Case *c = &cases[i];
        for (int dis = 0; dis < 2; dis++) {
            char path[512];
            snprintf(path, sizeof(path), "%s/%s.%s.yuv", dir, c->name, dis ? "dis" : "ref");
            FILE *f = fopen(path, "wb");
            if (!f) return 1;
            for (unsigned k = 0; k < FRAMES; k++) {
                TvmafPicture p;
                if (fill(c, &p, dis, k)) return 1;
                const size_t bytes = c->bpc == 8 ? 1 : 2;
                for (int pl = 0; pl < 3; pl++)
                    for (unsigned y = 0; y < p.h[pl]; y++)
                        fwrite((uint8_t *)p.data[pl] + y * p.stride[pl], bytes, p.w[pl], f);
                tvmaf_picture_unref(&p);
            }
            fclose(f);
        }
        printf("%s %ux%u %u-bit: --feature %s\n", c->name, c->w, c->h, c->bpc, c->spec);
    }
    return 0;
}

/* Runs one case; scores[key][frame]. Returns 0, or the error with its message. */
static int run(const Case *c, const char *spec, unsigned threads, double scores[3][FRAMES],
               char *msg, size_t len)
{
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU, .n_threads = threads };
    TvmafContext *ctx = NULL;
    int err = tvmaf_init(&ctx, &cfg);
    if (!err) err = tvmaf_use_feature(ctx, spec);
    for (unsigned k = 0; !err && k < FRAMES; k++) {
        TvmafPicture ref, dis;
        if (fill(c, &ref, 0, k) || fill(c, &dis, 1, k)) {
            err = -ENOMEM;
            break;
        }
        err = tvmaf_read_pictures(ctx, &ref, &dis, k);
    }
    if (!err) err = tvmaf_flush(ctx);
    for (int q = 0; !err && q < 3 && c->keys[q]; q++)
        for (unsigned k = 0; !err && k < FRAMES; k++)
            err = tvmaf_feature_score_at_index(ctx, c->keys[q], &scores[q][k], k);
    snprintf(msg, len, "%s", err && ctx ? tvmaf_last_error(ctx) : "");
    tvmaf_close(ctx);
    return err;
}

static void test_helpers(void)
{
    /* the reference's reciprocal literals: nine significant digits */
    int differ = 0;
    for (int i = 1; i < CAMBI_RECIP_SIZE; i++) {
        const float r = cambi_reciprocal(i), exact = 1.0f / (float)i;
        if (r != exact) {
            differ++;
            if (r != nextafterf(exact, 0.0f) && r != nextafterf(exact, 1.0f)) {
                fail("reciprocal more than one float step from 1/i");
                break;
            }
        }
    }
    if (differ != 42) fail("reciprocal table: 42 entries differ from 1.0f / i");
    if (cambi_reciprocal(0) != 0.0f || cambi_reciprocal(82) != 0x1.8f9c1ap-7f ||
        cambi_reciprocal(83) != 0x1.8acb92p-7f || cambi_reciprocal(244) != 0x1.0c9716p-8f ||
        cambi_reciprocal(504) != 0x1.04104p-9f)
        fail("reciprocal table entries 0, 82, 83, 244, 504");

    /* visibility limits of steps of 1, 2 and 4 codes at the default tvi */
    if (cambi_visibility_limit(1, 0.019, CAMBI_EOTF_BT1886) != 178 ||
        cambi_visibility_limit(2, 0.019, CAMBI_EOTF_BT1886) != 305 ||
        cambi_visibility_limit(4, 0.019, CAMBI_EOTF_BT1886) != 559 ||
        cambi_visibility_limit(8, 0.019, CAMBI_EOTF_BT1886) != 1023 ||
        cambi_visibility_limit(1, 0.019, CAMBI_EOTF_PQ) != 233 ||
        cambi_visibility_limit(2, 0.019, CAMBI_EOTF_PQ) != 1023)
        fail("visibility limits");
    if (cambi_visibility_floor(0.0, CAMBI_EOTF_BT1886) != 0 ||
        cambi_visibility_floor(0.06, CAMBI_EOTF_BT1886) != 78 ||
        cambi_visibility_floor(0.06, CAMBI_EOTF_PQ) != 108 ||
        cambi_visibility_floor(10001.0, CAMBI_EOTF_PQ) != -1)
        fail("visibility floor");
    if (cambi_window(65, 3840, 2160, false) != 65 || cambi_window(65, 1920, 1080, true) != 17 ||
        cambi_window(65, 576, 324, false) != 9)
        fail("window sizes");
    if (cambi_mask_threshold(3840, 2160) != 24 || cambi_mask_threshold(576, 324) != 16 ||
        cambi_mask_threshold(64, 64) != 7)
        fail("mask thresholds");

    /* quickselect leaves the top k first; their mean */
    float v[9] = { 3, 9, 1, 7, 5, 8, 2, 6, 4 };
    if (cambi_pool(v, 0.34, 3, 3) != 8.0) fail("pool of the top 3 of 1..9");
    float z[4] = { 0, 0, 0, 0 };
    if (cambi_pool(z, 0.0001, 2, 2) != 0.0) fail("pool keeps at least one value");
}

static void test_scores(void)
{
    char msg[512], label[768];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const Case *c = &cases[i];
        double got[3][FRAMES] = { { 0 } }, got3[3][FRAMES] = { { 0 } };
        if (run(c, c->spec, 1, got, msg, sizeof(msg))) {
            snprintf(label, sizeof(label), "%s: %s", c->name, msg);
            fail(label);
            continue;
        }
        int ok = 1;
        for (int q = 0; q < 3 && c->keys[q]; q++)
            for (int k = 0; k < FRAMES; k++)
                if (!same_bits(got[q][k], c->want[q][k])) {
                    printf("      %s %s frame %d: %.17g, libvmaf %.17g\n", c->name, c->keys[q],
                           k, got[q][k], c->want[q][k]);
                    ok = 0;
                }
        snprintf(label, sizeof(label), "%s %s: libvmaf's scores", c->name, c->spec);
        if (ok) printf("ok    %s\n", label);
        else fail(label);

        if (run(c, c->spec, 3, got3, msg, sizeof(msg)) || memcmp(got, got3, sizeof(got))) {
            snprintf(label, sizeof(label), "%s: same bits with 3 threads", c->name);
            fail(label);
        }
    }
}

static void expect_refusal(unsigned w, unsigned h, const char *spec, const char *needle)
{
    const Case c = { "refused", w, h, 8, spec, { "Cambi_feature_cambi_score" }, { { 0 } } };
    double got[3][FRAMES];
    char msg[512], label[600];
    const int err = run(&c, spec, 1, got, msg, sizeof(msg));
    const int ok = err && strstr(msg, "feature \"cambi\"") && strstr(msg, needle);
    snprintf(label, sizeof(label), "%ux%u %s refused (%s)", w, h, spec, msg);
    if (ok) printf("ok    %s\n", label);
    else fail(label);
}

static void test_refusals(void)
{
    /* the reference's own limit: 216 in width or height */
    expect_refusal(64, 64, "cambi", "at least 216");
    expect_refusal(177, 99, "cambi", "at least 216");
    /* where the reference would read outside its buffers */
    expect_refusal(1920, 64, "cambi", "needs a frame of at least 1920x161");
    expect_refusal(4, 2000, "cambi", "needs a frame at least 10 pixels wide");
    expect_refusal(320, 180, "cambi=eotf=hlg", "does not support eotf");
    /* window beyond the reciprocal table (127 scaled to 4K would be 127) */
    expect_refusal(3840, 2160, "cambi=window_size=127", "does not support a window");
}

static void test_heatmaps(void)
{
    char dir[] = "/tmp/tvmaf_cambi_XXXXXX";
    if (!mkdtemp(dir)) {
        fail("heat maps: temporary directory");
        return;
    }
    const Case *c = &cases[0];
    char spec[256], msg[512];
    snprintf(spec, sizeof(spec), "cambi=heatmaps_path=%s/h", dir);
    double got[3][FRAMES];
    if (run(c, spec, 2, got, msg, sizeof(msg))) {
        fail("heat maps: run");
        return;
    }
    /* one file per scale, FRAMES frames of 16-bit samples at the scale's size */
    unsigned w = c->w, h = c->h;
    int ok = 1;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/h/cambi_heatmap_scale_%d_%ux%u_16b.gray", dir, k, w, h);
        struct stat st;
        if (stat(path, &st) || st.st_size != (off_t)FRAMES * w * h * 2) ok = 0;
        unlink(path);
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/h", dir);
    rmdir(sub);
    rmdir(dir);
    if (ok && same_bits(got[0][0], c->want[0][0])) printf("ok    heat maps written, score unchanged\n");
    else fail("heat maps");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump")) return dump(argv[2]);
    test_helpers();
    test_scores();
    test_refusals();
    test_heatmaps();
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
