/*
 * checkasm: every SIMD kernel against its C kernel, output bits compared (dav1d's
 * model). checkasm.c is the driver: it finds the SIMD levels this processor has
 * and, for each, runs every module's checks; a module (adm.c, cambi.c,
 * frows.c for float_vif's and float_motion's row kernels, motion.c, speed.c,
 * vif.c)
 * takes its kernels from the production dispatch, tvmaf_<module>_dsp_init,
 * once with no flags (the C set) and once with the level's flags, and
 * compares the two on the same inputs.
 */
#ifndef TVMAF_TESTS_CHECKASM_H
#define TVMAF_TESTS_CHECKASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the levels checked beside C: avx2, avx512, avx512icl */
#define CHECKASM_MAX_LEVELS 3

/* The flags of the level under test (core/cpu.h): its own and those of the
 * levels below it, as the processor reports them. */
unsigned checkasm_flags(void);

/* The flags and name of level l for the bench: 0 is C (no flags), 1.. the
 * levels this processor has; checkasm_bench_levels() of them after C. */
unsigned checkasm_bench_flags(unsigned l);
unsigned checkasm_bench_levels(void);

/* xorshift64* from the run's seed */
uint32_t checkasm_rand(void);

/* one comparison made */
void checkasm_checked(void);

/* a difference in `what` at the level under test */
void checkasm_fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* malloc or exit(2) */
void *checkasm_alloc(size_t n);

/* Sample patterns: random, all zero, all maximum, alternating 0 / max,
 * random near the extremes, and (16-bit buffers) random over all 16 bits
 * whatever the declared depth: samples above the depth are scored as they
 * are, so the SIMD kernels must keep the C's wrap and truncation there too. */
enum { PAT_RANDOM, PAT_ZERO, PAT_MAX, PAT_ALT, PAT_EDGES, PAT_ABOVE, N_PAT };
void checkasm_fill8(uint8_t *p, size_t n, int pat);
void checkasm_fill16(uint16_t *p, size_t n, int pat, unsigned bpc);

/* Whole extractors on random, edge and ramp frames of w x h, bpc bits (4:2:0):
 * every output value of `features` compared as bits between a context
 * capped to C (--cpumask) and one capped to the level under test. */
void checkasm_check_frames(const char *const *features, unsigned w, unsigned h, unsigned bpc);

/* One bench row: seconds per call of call(arg, set) for C's set and each
 * level's (sets: 1 + checkasm_bench_levels() sets of set_size bytes), the
 * best of several rounds taken in turns, printed with the speed-ups. */
void checkasm_bench(const char *name, void (*call)(void *arg, const void *set), void *arg,
                    const void *sets, size_t set_size);

/* the modules: checks at the level under test, and their bench rows */
void checkasm_check_adm(void);
void checkasm_check_cambi(void);
void checkasm_check_frows(void);
void checkasm_check_motion(void);
void checkasm_check_speed(void);
void checkasm_check_vif(void);
void checkasm_bench_adm(void);
void checkasm_bench_cambi(void);
void checkasm_bench_frows(void);
void checkasm_bench_motion(void);
void checkasm_bench_speed(void);
void checkasm_bench_vif(void);

#endif
