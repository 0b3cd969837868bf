/*
 * The float row kernels (float_rows.h) compiled for one x86 SIMD level; the
 * build compiles this file once per level, TVMAF_SIMD_SUFFIX naming the set.
 */
#include "core/cpu.h"
#include "feature/common/float_rows.h"

FROWS_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_frows_kernels));
