/*
 * motion's row kernels compiled for one x86 SIMD level (the build compiles
 * this file once per level, TVMAF_SIMD_SUFFIX naming the set); the code is
 * motion_math.h's integer arithmetic.
 */
#include "core/cpu.h"
#include "feature/motion/motion_kernels.h"

MOTION_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_motion_kernels));
