/*
 * cpuid / xgetbv probe with the conditions libvmaf uses for its levels: a
 * level counts only when the operating system saves its registers.
 */
#include "core/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

#define HAS(reg, mask) (((reg) & (mask)) == (mask))

static unsigned probe(void)
{
    unsigned a, b, c, d, flags = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    const unsigned max_leaf = a;
    if (max_leaf < 1) return 0;
    __cpuid_count(1, 0, a, b, c, d);
    if (HAS(d, 0x06008000u)) { /* CMOV, SSE, SSE2 */
        flags |= TVMAF_CPU_FLAG_SSE2;
        if (HAS(c, 0x00000201u)) { /* SSE3, SSSE3 */
            flags |= TVMAF_CPU_FLAG_SSSE3;
            if (HAS(c, 0x00080000u)) flags |= TVMAF_CPU_FLAG_SSE41;
        }
    }
#if defined(__x86_64__)
    if (HAS(c, 0x18000000u)) { /* OSXSAVE, AVX */
        const uint64_t xcr0 = xgetbv0();
        if (HAS(xcr0, 0x6u) && max_leaf >= 7) { /* XMM, YMM state */
            __cpuid_count(7, 0, a, b, c, d);
            if (HAS(b, 0x00000128u)) { /* BMI1, AVX2, BMI2 */
                flags |= TVMAF_CPU_FLAG_AVX2;
                if (HAS(xcr0, 0xe0u)) { /* opmask, ZMM state */
                    if (HAS(b, 0xd0030000u)) flags |= TVMAF_CPU_FLAG_AVX512;
                    if (HAS(b, 0xd0230000u) && HAS(c, 0x00005f42u))
                        flags |= TVMAF_CPU_FLAG_AVX512ICL;
                }
            }
        }
    }
#endif
    return flags;
}
#else
static unsigned probe(void) { return 0; }
#endif

unsigned tvmaf_cpu_flags(void)
{
    /* bit 31 marks the probe done; racing first calls store the same value */
    static unsigned cached;
    unsigned v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!v) {
        v = probe() | 0x80000000u;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v & 0x7fffffffu;
}
