/*
 * gen_powf7_table: where this machine's glibc powf(x, 7) departs from the
 * correctly rounded value, for every float x. Run at build time (see
 * src/numerics/meson.build); its output is a C file holding the table that
 * numerics/powf_table.h replays on the device.
 *
 *   usage: gen_powf7_table OUT.c [THREADS]
 *
 * Every non-negative float is evaluated, bit patterns 0x00000000 (+0) to
 * 0x7f800000 (+inf): beyond ~2^18.3 the result overflows and below ~2^-21.4
 * it underflows, and those ranges are swept too, because the table claims
 * completeness for every float argument. NaN patterns are skipped (no feature
 * passes a NaN; the replay returns the correctly rounded NaN for them).
 * Negative x are not tabled: the replay negates the value of |x|, which
 * requires glibc's powf(-x, 7) == -powf(x, 7) (glibc computes it from |x| and
 * sets the sign). That is checked at every x whose power is finite and nonzero
 * and at every 64th float elsewhere. ciede passes only x >= 0.
 *
 * At each differing x, glibc's result must be the float adjacent to the
 * correctly rounded one (their bit patterns, same sign, differ by one); the
 * table stores x's bit pattern with bit 31 set when glibc is one step further
 * from zero, clear when one step nearer. Anything else (a larger difference,
 * a sign change, a NaN, a broken symmetry) stops the generator with a message
 * and exit status 1, so the build fails rather than ship a wrong table.
 *
 * glibc is called through a volatile pointer, as the CPU extractor's
 * powf(x, 7.0f) call is an ordinary libm call (no folding at -O3 without
 * fast-math); the pointer only keeps the compiler from any special-casing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, sysconf under -std=c11 */
#endif
#include <errno.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numerics/cr_pow.h"

static float (*volatile glibc_powf)(float, float) = powf;

#define CHUNK_BITS 20
#define N_CHUNKS (1u << (31 - CHUNK_BITS)) /* over the 2^31 non-negative patterns */

/* Negative x: the mirror is checked at every x in [2^-24, 2^19] (where x^7 is
 * finite and nonzero) and at every MIRROR_STRIDE-th pattern elsewhere. */
#define MIRROR_LO 0x33800000u /* 2^-24 */
#define MIRROR_HI 0x49000000u /* 2^19 */
#define MIRROR_STRIDE 64u

typedef struct Chunk {
    uint32_t *e; /* table entries found in this chunk (non-negative half only) */
    size_t n, cap;
} Chunk;

typedef struct Shared {
    pthread_mutex_t lock;
    unsigned next; /* next chunk to evaluate */
    Chunk chunk[N_CHUNKS];
    int failed;
    char why[256];
} Shared;

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float ffrom(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static void fail(Shared *s, const char *fmt, uint32_t x, float g, float c)
{
    pthread_mutex_lock(&s->lock);
    if (!s->failed) {
        s->failed = 1;
        snprintf(s->why, sizeof(s->why), "%s: x = 0x%08" PRIx32 " (%a): glibc %a (0x%08" PRIx32
                 "), correctly rounded %a (0x%08" PRIx32 ")",
                 fmt, x, (double)ffrom(x), (double)g, fbits(g), (double)c, fbits(c));
    }
    pthread_mutex_unlock(&s->lock);
}

static int push(Chunk *c, uint32_t v)
{
    if (c->n == c->cap) {
        const size_t cap = c->cap ? 2 * c->cap : 256;
        uint32_t *e = realloc(c->e, cap * sizeof(*e));
        if (!e) return -1;
        c->e = e, c->cap = cap;
    }
    c->e[c->n++] = v;
    return 0;
}

/* Evaluates the patterns of chunk k; returns nonzero on a failure (recorded). */
static int run_chunk(Shared *s, unsigned k)
{
    const uint32_t first = (uint32_t)k << CHUNK_BITS;
    const uint32_t last = first + ((1u << CHUNK_BITS) - 1u);
    Chunk *out = &s->chunk[k];
    for (uint64_t u = first; u <= last; u++) {
        const uint32_t x = (uint32_t)u;
        if (x > 0x7f800000u)
            break; /* NaN: never an argument the features produce */
        const float xf = ffrom(x);
        const float g = glibc_powf(xf, 7.0f);
        const float c = tvmaf_cr_powf7(xf);
        const uint32_t gb = fbits(g), cb = fbits(c);
        if (x >= MIRROR_LO && x < MIRROR_HI ? 1 : (x & (MIRROR_STRIDE - 1u)) == 0) {
            /* the replay negates the value of |x| for a negative x: require it */
            const float gn = glibc_powf(-xf, 7.0f);
            if (fbits(gn) != (gb ^ 0x80000000u)) {
                fail(s, "glibc powf(-x, 7) != -powf(x, 7)", x, gn, -g);
                return 1;
            }
        }
        if (gb == cb) continue;
        if (g != g || (gb & 0x80000000u) || (cb & 0x80000000u) ||
            (gb != cb + 1u && gb != cb - 1u)) {
            fail(s, "glibc powf(x, 7) is not adjacent to the correctly rounded value", x, g, c);
            return 1;
        }
        if (push(out, gb > cb ? (x | 0x80000000u) : x)) {
            fail(s, "out of memory", x, g, c);
            return 1;
        }
    }
    return 0;
}

static void *worker(void *arg)
{
    Shared *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const unsigned k = s->next++;
        const int stop = s->failed;
        pthread_mutex_unlock(&s->lock);
        if (stop || k >= N_CHUNKS) break;
        if (run_chunk(s, k)) break;
    }
    return NULL;
}

/* glibc picks its powf implementation at load time by CPU features on x86-64
 * (an FMA variant where FMA and AVX2 exist); recorded for the runtime check. */
static const char *cpu_variant(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2") ? "x86-64 fma+avx2"
                                                                           : "x86-64 no fma";
#else
    return "unknown";
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s OUT.c [THREADS]\n", argv[0]);
        return 2;
    }
    long nt = argc == 3 ? strtol(argv[2], NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > 64) nt = 64;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static Shared s; /* large: static storage */
    pthread_mutex_init(&s.lock, NULL);
    pthread_t th[64];
    long started = 0;
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, worker, &s)) break;
    if (!started) {
        fprintf(stderr, "gen_powf7_table: cannot start a thread\n");
        return 1;
    }
    for (long i = 0; i < started; i++) pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (s.failed) {
        fprintf(stderr, "gen_powf7_table: %s\n", s.why);
        return 1;
    }

    /* chunks are in ascending order of x and each is sorted: concatenate */
    size_t n = 0, up = 0;
    for (unsigned k = 0; k < N_CHUNKS; k++) n += s.chunk[k].n;

    const char *tmp_suffix = ".tmp";
    char *tmp = malloc(strlen(argv[1]) + strlen(tmp_suffix) + 1);
    if (!tmp) return 1;
    strcpy(tmp, argv[1]);
    strcat(tmp, tmp_suffix);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "gen_powf7_table: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f,
            "/* Generated by src/numerics/gen_powf7_table.c at build time; do not edit.\n"
            " * The floats x >= 0 where this build host's glibc powf(x, 7) is not the\n"
            " * correctly rounded value: bits 0-30 hold x's bit pattern (ascending),\n"
            " * bit 31 is set where glibc is one float step further from zero, clear\n"
            " * where it is one step nearer. See numerics/powf_table.h. */\n"
            "#include <stdint.h>\n\n"
            "#include \"numerics/powf_table.h\"\n\n"
            "const char tvmaf_powf7_table_origin[] = \"glibc %s, %s\";\n"
            "const uint32_t tvmaf_powf7_table_n = %zuu;\n"
            "const uint32_t tvmaf_powf7_table[%zu] = {\n",
            gnu_get_libc_version(), cpu_variant(), n, n ? n : 1);
    size_t col = 0;
    uint32_t prev = 0;
    for (unsigned k = 0; k < N_CHUNKS; k++) {
        for (size_t i = 0; i < s.chunk[k].n; i++) {
            const uint32_t e = s.chunk[k].e[i];
            if (col && (e & 0x7fffffffu) <= prev) {
                fprintf(stderr, "gen_powf7_table: entries out of order\n");
                return 1;
            }
            prev = e & 0x7fffffffu;
            up += e >> 31;
            fprintf(f, "%s0x%08" PRIx32 "u,", col % 8 ? " " : "    ", e);
            if (++col % 8 == 0) fputc('\n', f);
        }
        free(s.chunk[k].e);
    }
    if (!n) fprintf(f, "    0u,");
    if (col % 8 || !n) fputc('\n', f);
    fprintf(f, "};\n");
    if (fclose(f) || rename(tmp, argv[1])) {
        fprintf(stderr, "gen_powf7_table: cannot write %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    free(tmp);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("gen_powf7_table: glibc %s (%s): %zu of the non-negative floats differ from the "
           "correctly rounded powf(x, 7) (%zu one step up, %zu down); negatives mirror; "
           "%.1f s on %ld threads\n",
           gnu_get_libc_version(), cpu_variant(), n, up, n - up, secs, started);
    return 0;
}
