/*
 * checkasm: the float row kernels shared by float_vif and float_motion
 * (common/float_rows.h) and float_vif's own (float_vif/float_vif_cpu.h)
 * against C: the separable filter's passes at
 * every tap count 1..17, the five-quantity vertical pass, the statistic on
 * pixels that take each of its branches, the row sums and the row
 * differences, at widths 1..130 and 1920; then both extractors whole on
 * random and edge frames.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_vif/float_vif_cpu.h"
#include "checkasm.h"

/* the C sets and the level's, from tvmaf_frows_dsp_init and
 * tvmaf_fvif_rows_dsp_init */
static FrowsKernels ref_k, cur_k;
static FvifRowsKernels ref_v, cur_v;

#define MAX_W 1920
#define MAX_ROWS 17

/* a float on the samples' scale: an integer or a multiple of 2^-q in
 * [-128, 128), as a picture gives, or (pat) one of the edges */
static float sample(int pat)
{
    switch (pat) {
    case PAT_ZERO: return 0.0f;
    case PAT_MAX: return 127.0f;
    case PAT_ALT: return (checkasm_rand() & 1) ? 127.0f : -128.0f;
    default: break;
    }
    const int q = (int)(checkasm_rand() % 5) * 2; /* 0, 2, 4, 6, 8 fraction bits */
    return ((float)(checkasm_rand() % (256u << q)) - (float)(128u << q)) / (float)(1u << q);
}

/* taps in (0, 1) that sum to about 1, as the Gaussian filters do */
static void taps(float *f, int fw)
{
    float sum = 0.0f;
    for (int k = 0; k < fw; k++) sum += f[k] = (float)(1 + checkasm_rand() % 1000);
    for (int k = 0; k < fw; k++) f[k] /= sum;
}

static void fail_floats(const char *what, const float *a, const float *b, int n)
{
    for (int j = 0; j < n; j++)
        if (memcmp(&a[j], &b[j], sizeof(float))) {
            checkasm_fail(what, "at %d: %a vs %a", j, (double)a[j], (double)b[j]);
            return;
        }
}

static void check_filters(int w, int fw, int pat)
{
    static float rows_a[MAX_ROWS][MAX_W + 32], rows_b[MAX_ROWS][MAX_W + 32];
    static float out[2][5][MAX_W + 32];
    float f[MAX_ROWS];
    taps(f, fw);
    const float *a[MAX_ROWS], *b[MAX_ROWS];
    for (int k = 0; k < fw; k++) {
        for (int j = 0; j < w + fw; j++) {
            rows_a[k][j] = sample(pat);
            rows_b[k][j] = sample(pat == PAT_MAX ? PAT_ZERO : pat);
        }
        a[k] = rows_a[k];
        b[k] = rows_b[k];
    }
    char what[96];
    const FrowsKernels *set[2] = { &ref_k, &cur_k };
    const FvifRowsKernels *vset[2] = { &ref_v, &cur_v };

    memset(out, 0, sizeof(out));
    for (int s = 0; s < 2; s++) set[s]->vpass(f, fw, a, out[s][0], w);
    checkasm_checked();
    snprintf(what, sizeof(what), "frows vpass w %d fw %d", w, fw);
    fail_floats(what, out[0][0], out[1][0], w);

    memset(out, 0, sizeof(out));
    for (int s = 0; s < 2; s++) set[s]->hpass(f, fw, rows_a[0], out[s][0], w);
    checkasm_checked();
    snprintf(what, sizeof(what), "frows hpass w %d fw %d", w, fw);
    fail_floats(what, out[0][0], out[1][0], w);

    memset(out, 0, sizeof(out));
    for (int s = 0; s < 2; s++)
        vset[s]->vpass5(f, fw, a, b, w, out[s][0], out[s][1], out[s][2], out[s][3], out[s][4]);
    for (int q = 0; q < 5; q++) {
        checkasm_checked();
        snprintf(what, sizeof(what), "frows vpass5 w %d fw %d quantity %d", w, fw, q);
        fail_floats(what, out[0][q], out[1][q], w);
    }
}

/* The statistic's inputs for one pixel, chosen to take its branches: a
 * variance below eps or not, a negative covariance, a gain past the limit, a
 * variance below sigma_nsq. */
static void stat_inputs(float *mu1, float *mu2, float *xx, float *yy, float *xy)
{
    const float m1 = sample(PAT_RANDOM), m2 = sample(PAT_RANDOM);
    static const float scales[] = { 0.0f, 1e-12f, 1e-3f, 1.0f, 40.0f, 2000.0f };
    const float v1 = scales[checkasm_rand() % 6] * (float)(checkasm_rand() % 1000) / 999.0f;
    const float v2 = scales[checkasm_rand() % 6] * (float)(checkasm_rand() % 1000) / 999.0f;
    const float rho = ((float)(checkasm_rand() % 2001) - 1000.0f) / 1000.0f;
    *mu1 = m1;
    *mu2 = m2;
    *xx = m1 * m1 + v1 - (checkasm_rand() % 8 == 0 ? 1.0f : 0.0f); /* sometimes negative */
    *yy = m2 * m2 + v2;
    *xy = m1 * m2 + rho * sqrtf(v1 * v2) * (checkasm_rand() % 8 == 0 ? 50.0f : 1.0f);
}

static void check_stat(int w, double gain_limit, double sigma_nsq)
{
    static float in[5][MAX_W], num[2][MAX_W], den[2][MAX_W];
    for (int j = 0; j < w; j++) stat_inputs(&in[0][j], &in[1][j], &in[2][j], &in[3][j], &in[4][j]);
    const FvifStatParams p = fvif_stat_params(gain_limit, sigma_nsq);
    ref_v.stat_px(in[0], in[1], in[2], in[3], in[4], w, &p, num[0], den[0]);
    cur_v.stat_px(in[0], in[1], in[2], in[3], in[4], w, &p, num[1], den[1]);
    char what[96];
    checkasm_checked();
    snprintf(what, sizeof(what), "frows stat_px num w %d egl %g", w, gain_limit);
    fail_floats(what, num[0], num[1], w);
    checkasm_checked();
    snprintf(what, sizeof(what), "frows stat_px den w %d egl %g", w, gain_limit);
    fail_floats(what, den[0], den[1], w);
}

static void check_rows(int w, int n, int pat)
{
    static float a[20 * (MAX_W + 8)], b[20 * (MAX_W + 8)];
    static float sums[2][20], d[2][20 * MAX_W];
    const ptrdiff_t pitch = w + (int)(checkasm_rand() % 8);
    for (ptrdiff_t i = 0; i < n * pitch; i++) {
        a[i] = sample(pat);
        b[i] = sample(PAT_RANDOM);
    }
    ref_k.sum_rows(a, pitch, n, w, sums[0]);
    cur_k.sum_rows(a, pitch, n, w, sums[1]);
    char what[96];
    checkasm_checked();
    snprintf(what, sizeof(what), "frows sum_rows w %d rows %d", w, n);
    fail_floats(what, sums[0], sums[1], n);
    ref_k.absdiff_rows(a, b, pitch, n, w, d[0]);
    cur_k.absdiff_rows(a, b, pitch, n, w, d[1]);
    checkasm_checked();
    snprintf(what, sizeof(what), "frows absdiff_rows w %d rows %d", w, n);
    fail_floats(what, d[0], d[1], n * w);
}

void checkasm_check_frows(void)
{
    tvmaf_frows_dsp_init(&ref_k, 0);
    tvmaf_frows_dsp_init(&cur_k, checkasm_flags());
    tvmaf_fvif_rows_dsp_init(&ref_v, 0);
    tvmaf_fvif_rows_dsp_init(&cur_v, checkasm_flags());
    for (int w = 1; w <= 130; w++)
        for (int fw = 1; fw <= MAX_ROWS; fw++) {
            if (fw % 2 == 0 && w % 5) continue;
            check_filters(w, fw, PAT_RANDOM);
        }
    for (int pat = 0; pat < N_PAT; pat++)
        for (int fw = 3; fw <= MAX_ROWS; fw += 2) check_filters(67, fw, pat);
    for (int fw = 3; fw <= MAX_ROWS; fw += 2) check_filters(MAX_W, fw, PAT_RANDOM);
    static const double limits[] = { 1.0, 1.5, 100.0 };
    for (int w = 1; w <= 130; w++) check_stat(w, limits[w % 3], 2.0);
    for (int l = 0; l < 3; l++) check_stat(MAX_W, limits[l], 2.0);
    check_stat(MAX_W, 100.0, 0.3);
    for (int w = 1; w <= 130; w += 3)
        for (int n = 1; n <= 20; n += 3) check_rows(w, n, w % 7 ? PAT_RANDOM : PAT_ALT);
    check_rows(MAX_W, 17, PAT_RANDOM);
    static const char *const features[] = { "float_vif", "float_motion", NULL };
    static const unsigned sizes[][2] = { { 64, 48 }, { 97, 41 }, { 130, 67 }, { 177, 99 } };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
        for (unsigned d = 0; d < 4; d++)
            checkasm_check_frames(features, sizes[sz][0], sizes[sz][1], depths[d]);
}

/* ---- bench ---------------------------------------------------------------- */

/* one level's two tables, side by side for checkasm_bench */
typedef struct BenchSet {
    FrowsKernels r;
    FvifRowsKernels v;
} BenchSet;

typedef struct FrowsBench {
    int kernel;
    float f[17];
    const float *a[17], *b[17];
    float *in[5], *out[5];
    FvifStatParams p;
} FrowsBench;

static void bench_call(void *arg, const void *set)
{
    FrowsBench *b = arg;
    const BenchSet *k = set;
    if (b->kernel == 0)
        k->v.vpass5(b->f, 17, b->a, b->b, MAX_W, b->out[0], b->out[1], b->out[2], b->out[3],
                    b->out[4]);
    else if (b->kernel == 1)
        k->r.hpass(b->f, 17, b->in[0], b->out[0], MAX_W);
    else
        k->v.stat_px(b->in[0], b->in[1], b->in[2], b->in[3], b->in[4], MAX_W, &b->p, b->out[0],
                     b->out[1]);
}

void checkasm_bench_frows(void)
{
    static FrowsBench b;
    float *rows = checkasm_alloc(sizeof(float) * 34 * (MAX_W + 32));
    for (size_t i = 0; i < 34 * (size_t)(MAX_W + 32); i++) rows[i] = sample(PAT_RANDOM);
    for (int k = 0; k < 17; k++) {
        b.a[k] = rows + (size_t)k * (MAX_W + 32);
        b.b[k] = rows + (size_t)(17 + k) * (MAX_W + 32);
    }
    taps(b.f, 17);
    for (int q = 0; q < 5; q++) {
        b.in[q] = checkasm_alloc(sizeof(float) * (MAX_W + 32));
        b.out[q] = checkasm_alloc(sizeof(float) * (MAX_W + 32));
    }
    for (int j = 0; j < MAX_W + 32; j++)
        stat_inputs(&b.in[0][j], &b.in[1][j], &b.in[2][j], &b.in[3][j], &b.in[4][j]);
    b.p = fvif_stat_params(100.0, 2.0);
    BenchSet sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++) {
        tvmaf_frows_dsp_init(&sets[l].r, checkasm_bench_flags(l));
        tvmaf_fvif_rows_dsp_init(&sets[l].v, checkasm_bench_flags(l));
    }
    static const char *const names[3] = { "frows vpass5 (17 taps)", "frows hpass (17 taps)",
                                          "frows stat_px" };
    for (int k = 0; k < 3; k++) {
        b.kernel = k;
        checkasm_bench(names[k], bench_call, &b, sets, sizeof(sets[0]));
    }
    for (int q = 0; q < 5; q++) {
        free(b.in[q]);
        free(b.out[q]);
    }
    free(rows);
}
