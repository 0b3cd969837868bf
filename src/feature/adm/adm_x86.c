/*
 * adm's CPU stages compiled for one x86 SIMD level (the build compiles this
 * file once per level, TVMAF_SIMD_SUFFIX naming it): adm.c's stage section,
 * the one copy of that code, taken here with ADM_KERNELS_ONLY so nothing but
 * the stages and tvmaf_adm_frame_sums_<level> is compiled again.
 */
#define ADM_KERNELS_ONLY
#include "feature/adm/adm.c"
