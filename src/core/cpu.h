/*
 * The processor's SIMD levels and the kernels' run-time selection.
 *
 * Flags carry libvmaf's bit meaning, so `--cpumask` means what it means
 * there: a set bit disables that level. As in libvmaf, each level is enabled
 * on its own (masking AVX2 alone leaves AVX-512 on); a feature uses the
 * highest level that is enabled and that it has kernels for, else its C.
 * Each feature selects through one function, tvmaf_<feature>_dsp_init
 * (<feature>_cpu.h): its C table, then an x86 step per level the flags
 * enable. Every kernel of every level returns the C kernel's bits
 * (tests/checkasm/, which calls the same functions).
 */
#ifndef TVMAF_CORE_CPU_H
#define TVMAF_CORE_CPU_H

#include <stdint.h>

#include "tvmaf_config.h"

enum {
    TVMAF_CPU_FLAG_SSE2 = 1u << 0,
    TVMAF_CPU_FLAG_SSSE3 = 1u << 1,
    TVMAF_CPU_FLAG_SSE41 = 1u << 2,
    TVMAF_CPU_FLAG_AVX2 = 1u << 3,      /* with BMI1, BMI2 */
    TVMAF_CPU_FLAG_AVX512 = 1u << 4,    /* F, CD, BW, DQ, VL */
    TVMAF_CPU_FLAG_AVX512ICL = 1u << 5, /* and the Ice Lake extensions */
};

/* The processor's flags (cpuid and xgetbv, read once). */
unsigned tvmaf_cpu_flags(void);

/* Whether the AVX512ICL kernel sets (the AVX-512 ones with VNNI) may run:
 * both AVX-512 bits enabled, so `--cpumask 16` keeps every AVX-512 kernel
 * off and `--cpumask 32` only the VNNI forms. */
static inline int tvmaf_cpu_avx512icl(unsigned flags)
{
    const unsigned both = TVMAF_CPU_FLAG_AVX512 | TVMAF_CPU_FLAG_AVX512ICL;
    return (flags & both) == both;
}

/* The flags a context with this cpumask may use. */
static inline unsigned tvmaf_cpu_flags_masked(uint64_t cpumask)
{
    return tvmaf_cpu_flags() & ~(unsigned)cpumask;
}

/*
 * The x86 step of a module's tvmaf_<module>_dsp_init: each level's set,
 * tvmaf_<module>_kernels_<level>, replaces the one before where its flag is
 * enabled. As libvmaf's flags are enabled one by one, AVX2 is a step of its
 * own; from AVX-512 on, a level the flags lack ends the climb (AVX512ICL
 * runs only with AVX512 on, as tvmaf_cpu_avx512icl says).
 */
#if TVMAF_X86_SIMD
#define TVMAF_DSP_INIT_X86(c, cpu_flags, module)                                  \
    do {                                                                          \
        if ((cpu_flags) & TVMAF_CPU_FLAG_AVX2) *(c) = tvmaf_##module##_kernels_avx2; \
        if (!((cpu_flags) & TVMAF_CPU_FLAG_AVX512)) break;                        \
        *(c) = tvmaf_##module##_kernels_avx512;                                   \
        if (!((cpu_flags) & TVMAF_CPU_FLAG_AVX512ICL)) break;                     \
        *(c) = tvmaf_##module##_kernels_avx512icl;                                \
    } while (0)
#else
#define TVMAF_DSP_INIT_X86(c, cpu_flags, module) ((void)(c), (void)(cpu_flags))
#endif

/* Kernel sets compiled for a level are named with its suffix: a source
 * compiled once per level (<feature>_x86.c) defines TVMAF_SIMD_NAME(x). */
#define TVMAF_SIMD_CAT_(a, b) a##_##b
#define TVMAF_SIMD_CAT(a, b) TVMAF_SIMD_CAT_(a, b)
#ifdef TVMAF_SIMD_SUFFIX
#define TVMAF_SIMD_NAME(x) TVMAF_SIMD_CAT(x, TVMAF_SIMD_SUFFIX)
#endif

#endif
