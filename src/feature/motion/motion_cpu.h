/*
 * motion on the CPU: the row kernels of motion_math.h behind function
 * pointers, compiled once per SIMD level (motion.c: C; motion_x86.c: AVX2 and
 * AVX-512). They are integer arithmetic, so every level returns the C bits
 * (tests/checkasm/motion.c).
 */
#ifndef TVMAF_MOTION_CPU_H
#define TVMAF_MOTION_CPU_H

#include <stdint.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "feature/motion/motion_math.h"

typedef struct MotionKernels {
    /* vertical pass of a row from the 5 tap rows; returns the OR of y[0..w) */
    int32_t (*vrow_8)(const uint8_t *const p[5], const uint8_t *const c[5], int32_t *y,
                      unsigned w);
    int32_t (*vrow_16)(const uint16_t *const p[5], const uint16_t *const c[5], int32_t *y,
                       unsigned w, unsigned bpc);
    /* horizontal pass and absolute sum of a vertical-pass row (w >= 3) */
    uint32_t (*hrow_sad)(const int32_t *y, unsigned w);
} MotionKernels;

extern const MotionKernels tvmaf_motion_kernels_c;
#if TVMAF_X86_SIMD
extern const MotionKernels tvmaf_motion_kernels_avx2, tvmaf_motion_kernels_avx512,
    tvmaf_motion_kernels_avx512icl;
#endif

/* Fills c with the kernels for these CPU flags (core/cpu.h): the C set,
 * then each x86 level (TVMAF_DSP_INIT_X86, core/cpu.h). The extractor and
 * tests/checkasm call it. */
void tvmaf_motion_dsp_init(MotionKernels *c, unsigned cpu_flags);

/* A level may replace the 8-bit vertical pass and the horizontal pass by
 * defining MOTION_VROW_8 and MOTION_HROW_SAD. */
#ifndef MOTION_VROW_8
#define MOTION_VROW_8 motion_k_vrow_8
#endif
#ifndef MOTION_HROW_SAD
#define MOTION_HROW_SAD motion_k_hrow_sad
#endif

/* Out-of-line copies of the math header's row functions, so a kernel set
 * takes their addresses in the translation unit (and instruction set) it is
 * compiled for. */
#define MOTION_KERNELS_DEFINE(name)                                                          \
    static __attribute__((unused)) int32_t motion_k_vrow_8(const uint8_t *const p[5],       \
                                                           const uint8_t *const c[5],       \
                                                           int32_t *y, unsigned w)          \
    { return motion_vrow_8(p, c, y, w); }                                                    \
    static int32_t motion_k_vrow_16(const uint16_t *const p[5], const uint16_t *const c[5],   \
                                  int32_t *y, unsigned w, unsigned bpc)                      \
    { return motion_vrow_16(p, c, y, w, bpc); }                                              \
    static __attribute__((unused)) uint32_t motion_k_hrow_sad(const int32_t *y, unsigned w) \
    { return motion_hrow_sad(y, w); }                                                        \
    const MotionKernels name = { MOTION_VROW_8, motion_k_vrow_16, MOTION_HROW_SAD }

#endif
