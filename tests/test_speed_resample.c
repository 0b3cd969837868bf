/*
 * SpEED's prescale and reduction paths, checked bit for bit:
 *
 * 1. the per-axis scaler tables (speed_axis + speed_resample) against
 *    the per-sample scalers (common/float_filter.h), which evaluate
 *    positions and weights for every destination sample as the reference
 *    does, for the four methods, shrinking and growing, over random samples;
 * 2. the pipeline's reduced image (anti-alias filter at the kept rows and
 *    columns only, prescale at the samples that filter reads, then the
 *    local mean removed) against a brute-force evaluation: every sample
 *    scaled, every sample filtered, then decimated by 16;
 * 3. known answers: speed_chroma_u of libvmaf f85a8536's speed.c on a
 *    synthetic 4:4:4 pair, per prescale method (values taken from the
 *    reference's C path on this generator's 400x360 planes).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_pipeline.h"

static int failures;
static uint64_t rng;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int same_float(float a, float b)
{
    return !memcmp(&a, &b, sizeof(a));
}

static const char *method_name(enum FfilterScaler m)
{
    return m == FFILTER_SCALE_NEAREST ? "nearest" : m == FFILTER_SCALE_BILINEAR ? "bilinear"
         : m == FFILTER_SCALE_BICUBIC ? "bicubic" : "lanczos4";
}

static const enum FfilterScaler methods[] = {
    FFILTER_SCALE_NEAREST, FFILTER_SCALE_BILINEAR, FFILTER_SCALE_BICUBIC, FFILTER_SCALE_LANCZOS4,
};

/* Destination sample (x, y) as the per-sample scalers give it. */
static float direct_sample(enum FfilterScaler m, const float *src, int sw, int sh, int dw, int dh,
                           int x, int y)
{
    const float rx = ffilter_scale_ratio(sw, dw), ry = ffilter_scale_ratio(sh, dh);
    const float px = ffilter_scale_pos(x, rx), py = ffilter_scale_pos(y, ry);
    switch (m) {
    case FFILTER_SCALE_NEAREST:
        return src[ffilter_nearest_index(y, ry) * sw + ffilter_nearest_index(x, rx)];
    case FFILTER_SCALE_BILINEAR: {
        int x1, x2, y1, y2;
        float dx, dy, out;
        ffilter_bilinear_axis(x, rx, sw, &x1, &x2, &dx);
        ffilter_bilinear_axis(y, ry, sh, &y1, &y2, &dy);
        ffilter_bilinear_row(src + y1 * sw, src + y2 * sw, dy, &x1, &x2, &dx, &out, 1);
        return out;
    }
    case FFILTER_SCALE_BICUBIC:
        return ffilter_bicubic_sample(src, sw, sh, sw, px, py);
    default:
        return ffilter_lanczos_sample(src, sw, sh, sw, px, py);
    }
}

/* 1. tables against per-sample evaluation */
static void check_tables(enum FfilterScaler m, int sw, int sh, int dw, int dh)
{
    float *src = malloc((size_t)sw * sh * sizeof(float));
    const int t = speed_scaler_taps(m);
    int *xi = malloc((size_t)dw * t * sizeof(int)), *yi = malloc((size_t)dh * t * sizeof(int));
    float *xw = malloc((size_t)dw * t * sizeof(float)), *yw = malloc((size_t)dh * t * sizeof(float));
    for (int i = 0; i < sw * sh; i++) src[i] = (float)(int)(next() % 256) - 128.0f + (float)(next() % 8) / 8.0f;
    const float rx = ffilter_scale_ratio(sw, dw), ry = ffilter_scale_ratio(sh, dh);
    for (int x = 0; x < dw; x++) speed_axis(m, x, rx, sw, xi + x * t, xw + x * t);
    for (int y = 0; y < dh; y++) speed_axis(m, y, ry, sh, yi + y * t, yw + y * t);
    int bad = 0;
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            const float a = speed_resample(m, src, sw, xi + x * t, xw + x * t, yi + y * t, yw + y * t);
            const float b = direct_sample(m, src, sw, sh, dw, dh, x, y);
            if (!same_float(a, b) && bad++ < 3)
                fprintf(stderr, "  %s %dx%d->%dx%d at (%d,%d): %a != %a\n", method_name(m), sw, sh,
                        dw, dh, x, y, a, b);
        }
    printf("%s tables %s %dx%d -> %dx%d\n", bad ? "FAIL" : "ok  ", method_name(m), sw, sh, dw, dh);
    failures += bad != 0;
    free(src);
    free(xi);
    free(yi);
    free(xw);
    free(yw);
}

/* Output (i, j) of the reference's separable filter over a w x h image:
 * the vertical sums of the columns the horizontal taps need, then the
 * horizontal sum, both with mirrored borders. */
static float filter_at(const float *f, int fw, const float *img, int w, int h, int i, int j)
{
    float acc = 0;
    for (int fj = 0; fj < fw; fj++) {
        const int jj = mirror_skip_edge(j - fw / 2 + fj, w);
        float col = 0;
        for (int fi = 0; fi < fw; fi++)
            col += f[fi] * img[mirror_skip_edge(i - fw / 2 + fi, h) * w + jj];
        acc += f[fj] * col;
    }
    return acc;
}

/* 2. the pipeline's reduced image against brute force */
static void check_reduce(enum FfilterScaler m, int pw, int ph, double prescale, double ks)
{
    SpeedPipeline p;
    const SpeedParams prm = { .kernelscale = ks, .prescale = prescale,
                              .method = method_name(m), .sigma_nn = 0.29 };
    if (speed_pipeline_init(&p, &prm, pw, ph) != SPEED_INIT_OK) {
        printf("FAIL reduce %s %dx%d ps %g: init\n", method_name(m), pw, ph, prescale);
        failures++;
        return;
    }
    float *img = malloc((size_t)pw * ph * sizeof(float));
    for (int i = 0; i < pw * ph; i++) img[i] = (float)(int)(next() % 256) - 128.0f;
    speed_pipeline_image(&p, img, pw, 0);

    /* every sample scaled (or the plane's top-left when not resized) */
    const int sw = p.sw, sh = p.sh;
    float *scaled = malloc((size_t)sw * sh * sizeof(float));
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++)
            scaled[y * sw + x] = p.resize ? direct_sample(m, img, pw, ph, sw, sh, x, y) : img[y * pw + x];
    /* every sample filtered, then every 16th kept */
    float *full = malloc((size_t)sw * sh * sizeof(float));
    for (int i = 0; i < sh; i++)
        for (int j = 0; j < sw; j++) full[i * sw + j] = filter_at(p.aa, p.aa_w, scaled, sw, sh, i, j);
    const int ow = sw >> 4, oh = sh >> 4;
    float *dec = malloc((size_t)ow * oh * sizeof(float));
    for (int i = 0; i < oh; i++)
        for (int j = 0; j < ow; j++) dec[i * ow + j] = full[(i * 16) * sw + j * 16];
    int bad = 0;
    for (int i = 0; i < oh; i++)
        for (int j = 0; j < ow; j++) {
            const float want = dec[i * ow + j] - filter_at(p.lm, p.lm_w, dec, ow, oh, i, j);
            if (!same_float(p.dec[i * ow + j], want) && bad++ < 3)
                fprintf(stderr, "  at (%d,%d): %a != %a\n", i, j, p.dec[i * ow + j], want);
        }
    printf("%s reduce %s %dx%d ps %g ks %g (%dx%d -> %dx%d)\n", bad ? "FAIL" : "ok  ",
           method_name(m), pw, ph, prescale, ks, sw, sh, ow, oh);
    failures += bad != 0;
    free(img);
    free(scaled);
    free(full);
    free(dec);
    speed_pipeline_close(&p);
}

/* 3. known answers of the reference */
#define KA_W 400
#define KA_H 360

static int clamp8(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

static void check_known(const char *method, double prescale, double ks, float want)
{
    static float ref[KA_H * KA_W], dis[KA_H * KA_W];
    rng = 0x9e3779b97f4a7c15ull;
    for (int y = 0; y < KA_H; y++)
        for (int x = 0; x < KA_W; x++) {
            const int v = 90 + (x * 3 + y * 5) % 50 + (int)(next() % 41);
            const uint8_t r = (uint8_t)clamp8(v);
            const uint8_t d = (uint8_t)clamp8(v + (int)(next() % 21) - 10);
            ffilter_load_row_8(&r, &ref[y * KA_W + x], 1);
            ffilter_load_row_8(&d, &dis[y * KA_W + x], 1);
        }
    SpeedPipeline p;
    const SpeedParams prm = { .kernelscale = ks, .prescale = prescale, .method = method,
                              .sigma_nn = 0.29, .nn_floor = 0.0, .weight_var_mode = 0 };
    if (speed_pipeline_init(&p, &prm, KA_W, KA_H) != SPEED_INIT_OK) {
        printf("FAIL known %s ps %g: init\n", method, prescale);
        failures++;
        return;
    }
    const int sr = speed_pipeline_image(&p, ref, KA_W, 0);
    const int sd = speed_pipeline_image(&p, dis, KA_W, 1);
    const float got = speed_pipeline_score(&p, sr, sd);
    const int ok = same_float(got, want);
    printf("%s known %s ps %g ks %g: %.9g (reference %.9g)\n", ok ? "ok  " : "FAIL", method,
           prescale, ks, got, want);
    failures += !ok;
    speed_pipeline_close(&p);
}

int main(void)
{
    rng = 0x2545f4914f6cdd1dull;
    static const int sizes[][4] = {
        { 37, 29, 80, 83 },    /* growing, odd */
        { 200, 161, 93, 80 },  /* shrinking */
        { 96, 96, 307, 240 },  /* growing by about 3 */
        { 160, 90, 160, 91 },  /* one axis unchanged */
        { 6, 7, 24, 28 },      /* the smallest sources lanczos4 reads inside */
    };
    for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            check_tables(methods[k], sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3]);

    for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++) {
        check_reduce(methods[k], 250, 170, 0.5, 1.0);
        check_reduce(methods[k], 97, 61, 1.7, 1.0);
        check_reduce(methods[k], 300, 203, 0.6, 360.0 / 97.0);
        check_reduce(methods[k], 41, 20, 4.0, 0.5);
    }
    check_reduce(FFILTER_SCALE_NEAREST, 163, 85, 1.0, 1.0);    /* no resize */
    check_reduce(FFILTER_SCALE_NEAREST, 600, 90, 0.9991, 1.0); /* no resize, cropped to 599 */

    check_known("nearest", 0.7, 1.0, 0x1.535974p+3f);
    check_known("nearest", 1.6, 1.0, 0x1.490226p+4f);
    check_known("bilinear", 0.7, 1.0, 0x1.40114cp+3f);
    check_known("bilinear", 1.6, 1.0, 0x1.3f9a4cp+4f);
    check_known("bicubic", 0.7, 1.0, 0x1.05d1d2p+3f);
    check_known("bicubic", 1.6, 1.0, 0x1.39d556p+4f);
    check_known("lanczos4", 0.7, 1.0, 0x1.002bb2p+3f);
    check_known("lanczos4", 1.6, 1.0, 0x1.3982dcp+4f);
    check_known("lanczos4", 0.7, 3.7113402, 0x1.d5eda0p+1f);
    check_known("nearest", 1.0, 1.0, 0x1.07e14ap+4f);

    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
