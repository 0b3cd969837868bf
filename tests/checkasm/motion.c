/*
 * checkasm: motion's row kernels (motion_cpu.h) against C on random and edge
 * rows (widths 1..130 and 1920, every depth 8..16, the vertical pass's
 * extremes), and motion as a whole extractor on random and edge frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/motion/motion_cpu.h"
#include "checkasm.h"

/* the C set and the level's, from tvmaf_motion_dsp_init */
static MotionKernels ref_k, cur_k;

/* ---- motion --------------------------------------------------------------- */

static void check_motion(unsigned w, unsigned bpc, int pat)
{
    const MotionKernels *c = &ref_k, *s = &cur_k;
    uint8_t *p8[5], *c8[5];
    uint16_t *p16[5], *c16[5];
    for (int k = 0; k < 5; k++) {
        p8[k] = malloc(w); c8[k] = malloc(w);
        p16[k] = malloc(2 * w); c16[k] = malloc(2 * w);
        if (!p8[k] || !c8[k] || !p16[k] || !c16[k]) { fprintf(stderr, "out of memory\n"); exit(2); }
        checkasm_fill8(p8[k], w, pat);
        checkasm_fill8(c8[k], w, pat == PAT_MAX ? PAT_ZERO : PAT_RANDOM);
        checkasm_fill16(p16[k], w, pat, bpc);
        checkasm_fill16(c16[k], w, pat == PAT_MAX ? PAT_ZERO : PAT_RANDOM, bpc);
    }
    int32_t *ya = malloc(w * sizeof(int32_t)), *yb = malloc(w * sizeof(int32_t));
    if (!ya || !yb) { fprintf(stderr, "out of memory\n"); exit(2); }
    char what[96];
    int32_t anya, anyb;
    if (bpc == 8) {
        anya = c->vrow_8((const uint8_t *const *)p8, (const uint8_t *const *)c8, ya, w);
        anyb = s->vrow_8((const uint8_t *const *)p8, (const uint8_t *const *)c8, yb, w);
    } else {
        anya = c->vrow_16((const uint16_t *const *)p16, (const uint16_t *const *)c16, ya, w, bpc);
        anyb = s->vrow_16((const uint16_t *const *)p16, (const uint16_t *const *)c16, yb, w, bpc);
    }
    checkasm_checked();
    snprintf(what, sizeof(what), "motion vrow_%s w %u bpc %u", bpc == 8 ? "8" : "16", w, bpc);
    if (anya != anyb || memcmp(ya, yb, w * sizeof(int32_t))) checkasm_fail(what, "rows differ");
    if (w >= MOTION_MIN_SIDE) {
        checkasm_checked();
        snprintf(what, sizeof(what), "motion hrow_sad w %u bpc %u", w, bpc);
        const uint32_t sa = c->hrow_sad(ya, w), sb = s->hrow_sad(ya, w);
        if (sa != sb) checkasm_fail(what, "%u vs %u", sa, sb);
        /* extremes of the vertical-pass range */
        for (unsigned j = 0; j < w; j++) ya[j] = (j & 1) ? 65535 : -65535;
        checkasm_checked();
        if (c->hrow_sad(ya, w) != s->hrow_sad(ya, w)) checkasm_fail(what, "extreme row");
    }
    for (int k = 0; k < 5; k++) { free(p8[k]); free(c8[k]); free(p16[k]); free(c16[k]); }
    free(ya); free(yb);
}

void checkasm_check_motion(void)
{
    tvmaf_motion_dsp_init(&ref_k, 0);
    tvmaf_motion_dsp_init(&cur_k, checkasm_flags());
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned w = 1; w <= 130; w++)
        for (unsigned d = 0; d < 4; d++)
            for (int pat = 0; pat < N_PAT; pat++) {
                if (pat != PAT_RANDOM && (w % 7) && w != 130) continue;
                check_motion(w, depths[d], pat);
            }
    for (unsigned d = 0; d < 4; d++) check_motion(1920, depths[d], PAT_RANDOM);
    static const char *const features[] = { "motion=debug=true", NULL };
    static const unsigned sizes[][2] = { { 33, 33 }, { 34, 35 }, { 64, 48 }, { 97, 41 },
                                         { 130, 67 }, { 177, 99 } };
    for (unsigned sz = 0; sz < sizeof(sizes) / sizeof(sizes[0]); sz++)
        for (unsigned d = 0; d < 4; d++)
            checkasm_check_frames(features, sizes[sz][0], sizes[sz][1], depths[d]);
}

/* ---- bench ---------------------------------------------------------------- */

typedef struct MotionBench {
    int kernel;
    unsigned w;
    uint8_t *r8, *d8;
    int32_t *y;
} MotionBench;

static void bench_call(void *arg, const void *set)
{
    MotionBench *b = arg;
    const MotionKernels *m = set;
    const unsigned w = b->w;
    if (b->kernel == 0) {
        const uint8_t *p[5], *c[5];
        for (int t = 0; t < 5; t++) { p[t] = b->r8 + t * w; c[t] = b->d8 + t * w; }
        m->vrow_8(p, c, b->y, w);
    } else {
        m->hrow_sad(b->y, w);
    }
}

void checkasm_bench_motion(void)
{
    static MotionBench b = { .w = 1920 };
    const size_t n = (size_t)b.w * 5;
    b.r8 = checkasm_alloc(n);
    b.d8 = checkasm_alloc(n);
    b.y = checkasm_alloc(b.w * sizeof(int32_t));
    checkasm_fill8(b.r8, n, PAT_RANDOM);
    for (size_t i = 0; i < n; i++) {
        const int v = b.r8[i] + (int)(checkasm_rand() % 9) - 4;
        b.d8[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    MotionKernels sets[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= checkasm_bench_levels(); l++)
        tvmaf_motion_dsp_init(&sets[l], checkasm_bench_flags(l));
    const unsigned w = b.w;
    const uint8_t *p[5], *c[5];
    for (int t = 0; t < 5; t++) { p[t] = b.r8 + t * w; c[t] = b.d8 + t * w; }
    sets[0].vrow_8(p, c, b.y, w);
    static const char *const names[2] = { "motion vrow_8", "motion hrow_sad" };
    for (int k = 0; k < 2; k++) {
        b.kernel = k;
        checkasm_bench(names[k], bench_call, &b, sets, sizeof(sets[0]));
    }
    free(b.r8); free(b.d8); free(b.y);
}
