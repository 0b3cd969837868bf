/*
 * checkasm: SpEED's per-image work (feature/speed/speed_image.h) against C:
 * the plane load at every depth, then one image's statistics (its
 * per-block variances and entropies and the singular flag) on random
 * planes, flat planes (a singular covariance) and planes through each
 * prescaler, at the smallest size and a few others; then speed_chroma and
 * speed_temporal whole on random and edge frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed/speed_pipeline.h"
#include "checkasm.h"

static SpeedKernels ref_k, cur_k;

static void fail_floats(const char *what, const float *a, const float *b, int n)
{
    for (int j = 0; j < n; j++)
        if (memcmp(&a[j], &b[j], sizeof(float))) {
            checkasm_fail(what, "at %d: %a vs %a", j, (double)a[j], (double)b[j]);
            return;
        }
}

static void check_load(unsigned w, unsigned h, unsigned bpc, int pat)
{
    TvmafPicture pic;
    if (tvmaf_picture_alloc(&pic, TVMAF_PIX_FMT_YUV420P, bpc, w, h)) exit(2);
    for (unsigned y = 0; y < h; y++) {
        void *row = (char *)pic.data[0] + (ptrdiff_t)y * pic.stride[0];
        if (bpc == 8) checkasm_fill8(row, w, pat);
        else checkasm_fill16(row, w, pat, bpc);
    }
    float *a = checkasm_alloc(sizeof(float) * w * h), *b = checkasm_alloc(sizeof(float) * w * h);
    /* every row, or (odd patterns) some: the others stay as they were */
    unsigned char rows[8];
    for (unsigned y = 0; y < h && y < 8; y++) rows[y] = (unsigned char)(checkasm_rand() & 1);
    const unsigned char *sel = (pat & 1) && h <= 8 ? rows : NULL;
    memset(a, 0, sizeof(float) * w * h);
    memset(b, 0, sizeof(float) * w * h);
    ref_k.load_plane(&pic, 0, (int)w, (int)h, sel, a);
    cur_k.load_plane(&pic, 0, (int)w, (int)h, sel, b);
    checkasm_checked();
    char what[64];
    snprintf(what, sizeof(what), "speed load %ux%u bpc %u pat %d", w, h, bpc, pat);
    fail_floats(what, a, b, (int)(w * h));
    free(a);
    free(b);
    tvmaf_picture_unref(&pic);
}

/* A plane as speed_load_plane gives one (8-bit: integers in [-128, 127]) or a
 * difference of two (speed_temporal), or flat. */
static void fill_image(float *img, int n, int kind)
{
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case 0: img[i] = (float)(checkasm_rand() % 256) - 128.0f; break;
        case 1: img[i] = (float)(checkasm_rand() % 511) - 255.0f; break;
        case 2: img[i] = 3.0f; break; /* flat: every variance 0, singular */
        default: /* smooth with noise: a well-conditioned covariance */
            img[i] = (float)((i % 97) / 3) + (float)(checkasm_rand() % 5) - 20.0f;
            break;
        }
    }
}

static void check_image(int pw, int ph, double prescale, const char *method, int kind)
{
    const SpeedParams prm = { .kernelscale = 1.0, .prescale = prescale, .method = method,
                              .sigma_nn = 0.29, .nn_floor = 0.1, .weight_var_mode = 0 };
    SpeedPipeline p[2];
    for (int s = 0; s < 2; s++)
        if (speed_pipeline_init(&p[s], &prm, pw, ph) != SPEED_INIT_OK) {
            fprintf(stderr, "speed_pipeline_init %dx%d prescale %g failed\n", pw, ph, prescale);
            exit(2);
        }
    p[0].kern = ref_k;
    p[1].kern = cur_k;
    float *img = checkasm_alloc(sizeof(float) * (size_t)pw * ph);
    fill_image(img, pw * ph, kind);
    int sing[2];
    for (int s = 0; s < 2; s++) sing[s] = speed_pipeline_image(&p[s], img, pw, 0);
    checkasm_checked();
    char what[96];
    snprintf(what, sizeof(what), "speed image %dx%d prescale %g %s kind %d", pw, ph, prescale,
             method, kind);
    if (sing[0] != sing[1]) checkasm_fail(what, "singular %d vs %d", sing[0], sing[1]);
    fail_floats(what, p[0].var[0], p[1].var[0], p[0].g.nb);
    fail_floats(what, p[0].ent[0], p[1].ent[0], p[0].g.nb);
    fail_floats(what, p[0].ev, p[1].ev, SPEED_NE);
    free(img);
    for (int s = 0; s < 2; s++) speed_pipeline_close(&p[s]);
}

void checkasm_check_speed(void)
{
    tvmaf_speed_dsp_init(&ref_k, 0);
    tvmaf_speed_dsp_init(&cur_k, checkasm_flags());
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned d = 0; d < 4; d++)
        for (int pat = 0; pat < N_PAT; pat++) check_load(97, 5, depths[d], pat);
    check_load(960, 3, 8, PAT_RANDOM);
    static const int sizes[][2] = { { 80, 80 }, { 97, 131 }, { 163, 90 }, { 480, 270 } };
    for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
        for (int kind = 0; kind < 4; kind++)
            check_image(sizes[sz][0], sizes[sz][1], 1.0, "bicubic", kind);
    static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
    for (int m = 0; m < 4; m++) check_image(200, 150, 0.6, methods[m], m & 1 ? 3 : 0);
    check_image(90, 85, 1.5, "bilinear", 0);
    static const char *const features[] = { "speed_chroma", "speed_temporal", NULL };
    static const unsigned frames[][2] = { { 480, 320 }, { 357, 298 } };
    for (unsigned sz = 0; sz < 2; sz++)
        for (unsigned d = 0; d < 2; d++)
            checkasm_check_frames(features, frames[sz][0], frames[sz][1], depths[d]);
}

/* ---- bench ---------------------------------------------------------------- */

typedef struct SpeedBench {
    SpeedPipeline p;
    float *img;
} SpeedBench;

static void bench_call(void *arg, const void *set)
{
    SpeedBench *b = arg;
    b->p.kern = *(const SpeedKernels *)set;
    speed_pipeline_image(&b->p, b->img, b->p.pw, 0);
}

void checkasm_bench_speed(void)
{
    static SpeedBench b;
    const SpeedParams prm = { .kernelscale = 1.0, .prescale = 1.0, .method = "bicubic",
                              .sigma_nn = 0.29, .nn_floor = 0.1, .weight_var_mode = 0 };
    if (speed_pipeline_init(&b.p, &prm, 960, 540) != SPEED_INIT_OK) exit(2);
    b.img = checkasm_alloc(sizeof(float) * 960 * 540);
    fill_image(b.img, 960 * 540, 3);
    SpeedKernels sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++)
        tvmaf_speed_dsp_init(&sets[l], checkasm_bench_flags(l));
    checkasm_bench("speed image (960x540)", bench_call, &b, sets, sizeof(sets[0]));
    free(b.img);
    speed_pipeline_close(&b.p);
}
