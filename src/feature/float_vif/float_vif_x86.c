/*
 * The float filter row kernels (float_rows_cpu.h) compiled for one x86 SIMD
 * level; the build compiles this file once per level, TVMAF_SIMD_SUFFIX
 * naming the set. float_vif and float_motion use them.
 */
#include "core/cpu.h"
#include "feature/float_vif/float_rows_cpu.h"

FROWS_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_frows_kernels));
