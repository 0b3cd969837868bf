/*
 * checkasm's driver: the SIMD levels this processor has, each module's checks
 * at each level, the report and the bench.
 *
 *   checkasm [--seed N] [--test MODULE] [--bench]
 *
 * A level's flags are its own and those below it (avx512: AVX2 and AVX512),
 * so the production dispatch called with them gives that level's kernels.
 * --test runs one module (adm, cambi, frows, motion, speed, vif). --bench prints each
 * benched kernel's time per call at C and at each level, and the speed-up.
 * Exit status 1 on any difference, 77 (a skip) with no SIMD level to check.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#include "core/collector.h"
#include "core/cpu.h"
#include "core/internal.h"
#include "checkasm.h"

typedef struct Level {
    const char *name;
    unsigned flags;
} Level;

#if TVMAF_X86_SIMD
static const Level all_levels[CHECKASM_MAX_LEVELS] = {
    { "avx2", TVMAF_CPU_FLAG_AVX2 },
    { "avx512", TVMAF_CPU_FLAG_AVX2 | TVMAF_CPU_FLAG_AVX512 },
    { "avx512icl", TVMAF_CPU_FLAG_AVX2 | TVMAF_CPU_FLAG_AVX512 | TVMAF_CPU_FLAG_AVX512ICL },
};
#endif

static const struct {
    const char *name;
    void (*check)(void);
    void (*bench)(void);
} modules[] = {
    { "vif", checkasm_check_vif, checkasm_bench_vif },
    { "motion", checkasm_check_motion, checkasm_bench_motion },
    { "adm", checkasm_check_adm, checkasm_bench_adm },
    { "cambi", checkasm_check_cambi, checkasm_bench_cambi },
    { "frows", checkasm_check_frows, checkasm_bench_frows },
    { "speed", checkasm_check_speed, checkasm_bench_speed },
};

static struct {
    Level levels[CHECKASM_MAX_LEVELS];
    unsigned n_levels;
    const Level *cur;
    unsigned n_fail, n_checks;
    uint64_t rng;
} state;

unsigned checkasm_flags(void) { return state.cur->flags; }
unsigned checkasm_bench_levels(void) { return state.n_levels; }
unsigned checkasm_bench_flags(unsigned l) { return l ? state.levels[l - 1].flags : 0; }
void checkasm_checked(void) { state.n_checks++; }

uint32_t checkasm_rand(void)
{
    state.rng ^= state.rng >> 12;
    state.rng ^= state.rng << 25;
    state.rng ^= state.rng >> 27;
    return (uint32_t)((state.rng * 0x2545F4914F6CDD1DULL) >> 32);
}

void checkasm_fail(const char *what, const char *fmt, ...)
{
    if (state.n_fail++ < 20) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL %s at %s: ", what, state.cur ? state.cur->name : "c");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

void *checkasm_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static unsigned sample(int pat, unsigned maxv, unsigned i)
{
    switch (pat) {
    case PAT_ZERO: return 0;
    case PAT_MAX: return maxv;
    case PAT_ALT: return (i & 1) ? maxv : 0;
    case PAT_EDGES:
        return (checkasm_rand() & 1) ? maxv - (checkasm_rand() & 3) : (checkasm_rand() & 3);
    default: return checkasm_rand() & maxv;
    }
}

void checkasm_fill8(uint8_t *p, size_t n, int pat)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)sample(pat, 255, (unsigned)i);
}

void checkasm_fill16(uint16_t *p, size_t n, int pat, unsigned bpc)
{
    const unsigned maxv = pat == PAT_ABOVE ? 0xffffu : (1u << bpc) - 1;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint16_t)sample(pat == PAT_ABOVE ? PAT_RANDOM : pat, maxv, (unsigned)i);
}

/* ---- whole extractors ----------------------------------------------------- */

/* Scores frames of w x h, bpc bits with `features`, capped by cpumask: random
 * frames (the distorted a noisy copy on frame 0), edge values, then shallow
 * ramps (the distorted's bands wider). Returns the collector's values in key
 * order (caller frees), count in *n. */
static double *score(const char *const *features, unsigned w, unsigned h, unsigned bpc,
                     unsigned frames, uint64_t seed, uint64_t cpumask, unsigned *n)
{
    TvmafConfiguration cfg = { .n_threads = 1, .backend = TVMAF_BACKEND_CPU,
                               .log_level = TVMAF_LOG_ERROR, .cpumask = cpumask };
    TvmafContext *ctx;
    if (tvmaf_init(&ctx, &cfg)) { fprintf(stderr, "tvmaf_init failed\n"); exit(2); }
    for (unsigned f = 0; features[f]; f++)
        if (tvmaf_use_feature(ctx, features[f])) {
            fprintf(stderr, "%s\n", tvmaf_last_error(ctx));
            exit(2);
        }
    const uint64_t saved = state.rng;
    state.rng = seed;
    for (unsigned i = 0; i < frames; i++) {
        TvmafPicture p[2];
        for (int s = 0; s < 2; s++) {
            if (tvmaf_picture_alloc(&p[s], TVMAF_PIX_FMT_YUV420P, bpc, w, h)) {
                fprintf(stderr, "picture alloc failed\n");
                exit(2);
            }
            const int pat = (i == 1 && s == 0) ? PAT_EDGES : PAT_RANDOM;
            for (int pl = 0; pl < 3; pl++)
                for (unsigned y = 0; y < p[s].h[pl]; y++) {
                    void *row = (char *)p[s].data[pl] + (ptrdiff_t)y * p[s].stride[pl];
                    if (i == 2) {
                        /* shallow ramps of one-code steps, the distorted's
                         * four times as wide: flat areas and visible bands */
                        const unsigned pw = p[s].w[pl], sh = s ? 5 : 3, one = 1u << (bpc - 8);
                        for (unsigned x = 0; x < pw; x++) {
                            const unsigned v = (128 + ((x + 2 * y) >> sh) % 128) * one;
                            if (bpc == 8) ((uint8_t *)row)[x] = (uint8_t)v;
                            else ((uint16_t *)row)[x] = (uint16_t)v;
                        }
                        continue;
                    }
                    if (bpc == 8) checkasm_fill8(row, p[s].w[pl], pat);
                    else checkasm_fill16(row, p[s].w[pl], pat, bpc);
                    if (s == 0 || (i & 1)) continue;
                    /* even frames: the distorted is the reference plus a
                     * little noise (correlated, as real distortions are) */
                    const void *src = (const char *)p[0].data[pl] + (ptrdiff_t)y * p[0].stride[pl];
                    const int maxv = (1 << bpc) - 1;
                    for (unsigned x = 0; x < p[s].w[pl]; x++) {
                        const int e = ((int)(checkasm_rand() % 9) - 4) * (1 << (bpc - 8));
                        int v = bpc == 8 ? ((const uint8_t *)src)[x] : ((const uint16_t *)src)[x];
                        v += e;
                        v = v < 0 ? 0 : v > maxv ? maxv : v;
                        if (bpc == 8) ((uint8_t *)row)[x] = (uint8_t)v;
                        else ((uint16_t *)row)[x] = (uint16_t)v;
                    }
                }
        }
        if (tvmaf_read_pictures(ctx, &p[0], &p[1], i)) {
            fprintf(stderr, "%s\n", tvmaf_last_error(ctx));
            exit(2);
        }
    }
    state.rng = saved;
    if (tvmaf_flush(ctx)) { fprintf(stderr, "%s\n", tvmaf_last_error(ctx)); exit(2); }
    TvmafCollector *col = tvmaf_context_collector(ctx);
    const unsigned nk = tvmaf_collector_key_count(col);
    double *v = calloc((size_t)nk * frames + 1, sizeof(double));
    if (!v) exit(2);
    for (unsigned k = 0; k < nk; k++)
        for (unsigned i = 0; i < frames; i++)
            if (!tvmaf_collector_get(col, k, i, &v[(size_t)k * frames + i]))
                v[(size_t)k * frames + i] = -12345.0;
    *n = nk * frames;
    tvmaf_close(ctx);
    return v;
}

void checkasm_check_frames(const char *const *features, unsigned w, unsigned h, unsigned bpc)
{
    const unsigned frames = 3;
    const uint64_t seed = checkasm_rand() | 1;
    unsigned na, nb;
    /* C: every level bit masked; then every bit but the level's */
    double *a = score(features, w, h, bpc, frames, seed, ~(uint64_t)0, &na);
    double *b = score(features, w, h, bpc, frames, seed, ~(uint64_t)checkasm_flags(), &nb);
    checkasm_checked();
    char what[160];
    int len = snprintf(what, sizeof(what), "frames %ux%u bpc %u:", w, h, bpc);
    for (unsigned f = 0; features[f] && len > 0 && (size_t)len < sizeof(what); f++)
        len += snprintf(what + len, sizeof(what) - (size_t)len, " %s", features[f]);
    if (na != nb || memcmp(a, b, na * sizeof(double))) {
        unsigned k = 0;
        while (k < na && k < nb && !memcmp(&a[k], &b[k], sizeof(double))) k++;
        checkasm_fail(what, "value %u: %.17g vs %.17g", k, k < na ? a[k] : 0., k < nb ? b[k] : 0.);
    }
    free(a);
    free(b);
}

/* ---- bench ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

void checkasm_bench(const char *name, void (*call)(void *arg, const void *set), void *arg,
                    const void *sets, size_t set_size)
{
    /* C and the levels take turns, round after round, so a machine whose load
     * drifts slows them alike; each keeps its best round of 100 calls */
    const unsigned n = state.n_levels, calls = 100;
    double best[1 + CHECKASM_MAX_LEVELS];
    for (unsigned l = 0; l <= n; l++) best[l] = 1e9;
    for (int round = 0; round < 15; round++)
        for (unsigned l = 0; l <= n; l++) {
            const void *set = (const char *)sets + l * set_size;
            const double t0 = now_s();
            for (unsigned i = 0; i < calls; i++) call(arg, set);
            const double t = (now_s() - t0) / calls;
            if (t < best[l]) best[l] = t;
        }
    printf("%-34s %10.2f", name, best[0] * 1e6);
    for (unsigned l = 0; l < n; l++)
        printf(" %10.2f %7.2fx", best[l + 1] * 1e6, best[0] / best[l + 1]);
    printf("\n");
}

int main(int argc, char **argv)
{
    bool do_bench = false;
    const char *only = NULL;
    state.rng = 0x9E3779B97F4A7C15ULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench")) do_bench = true;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            state.rng = strtoull(argv[++i], NULL, 0) | 1;
        else if (!strcmp(argv[i], "--test") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seed N] [--test MODULE] [--bench]\n", argv[0]);
            return 2;
        }
    }
    const size_t n_modules = sizeof(modules) / sizeof(modules[0]);
    if (only) {
        size_t m = 0;
        while (m < n_modules && strcmp(modules[m].name, only)) m++;
        if (m == n_modules) {
            fprintf(stderr, "no module %s (adm, cambi, frows, motion, speed, vif)\n", only);
            return 2;
        }
    }
    const unsigned flags = tvmaf_cpu_flags();
#if TVMAF_X86_SIMD
    for (unsigned l = 0; l < CHECKASM_MAX_LEVELS; l++)
        if ((flags & all_levels[l].flags) == all_levels[l].flags)
            state.levels[state.n_levels++] = all_levels[l];
#endif
    printf("checkasm: cpu flags 0x%x; levels:", flags);
    for (unsigned l = 0; l < state.n_levels; l++) printf(" %s", state.levels[l].name);
    printf("%s\n", state.n_levels ? "" : " none (C only: nothing to compare)");
    if (!state.n_levels) return 77; /* nothing to compare: meson reports a skip, not a pass */
    if (do_bench) {
        printf("%-34s %10s", "kernel (1920 columns)", "C us");
        for (unsigned l = 0; l < state.n_levels; l++)
            printf(" %10s %8s", state.levels[l].name, "speed-up");
        printf("\n");
        for (size_t m = 0; m < n_modules; m++)
            if (!only || !strcmp(only, modules[m].name)) modules[m].bench();
        return 0;
    }
    for (unsigned l = 0; l < state.n_levels; l++) {
        state.cur = &state.levels[l];
        for (size_t m = 0; m < n_modules; m++) {
            if (only && strcmp(only, modules[m].name)) continue;
            const unsigned before = state.n_fail, checks = state.n_checks;
            modules[m].check();
            printf("%-10s %-7s %8u checks %s\n", state.cur->name, modules[m].name,
                   state.n_checks - checks, state.n_fail == before ? "ok" : "FAILED");
        }
    }
    printf("%u checks, %u failed\n", state.n_checks, state.n_fail);
    return state.n_fail ? 1 : 0;
}
