/*
 * The SpEED pipeline's per-image work (speed_image.h) compiled for one x86
 * SIMD level; the build compiles this file once per level, TVMAF_SIMD_SUFFIX
 * naming the set.
 */
#include "core/cpu.h"
#include "feature/speed/speed_image.h"

SPEED_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_speed_kernels));
