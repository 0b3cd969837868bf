/*
 * float_vif's row kernels (float_vif_cpu.h) compiled for one x86 SIMD level;
 * the build compiles this file once per level, TVMAF_SIMD_SUFFIX naming the
 * set.
 */
#include "core/cpu.h"
#include "feature/float_vif/float_vif_cpu.h"

FVIF_ROWS_KERNELS_DEFINE(TVMAF_SIMD_NAME(tvmaf_fvif_rows_kernels));
