/*
 * vif's row kernels compiled for one x86 SIMD level: the build compiles this
 * file once per level (AVX2, AVX-512) with that level's instruction set and
 * TVMAF_SIMD_SUFFIX naming the kernel set. The code is vif_kernels.h's, so the
 * arithmetic is the C kernels' (integer, and per-pixel doubles in C order).
 */
#include "core/cpu.h"
#define VIF_KERNELS_IMPL
#include "feature/vif/vif_kernels.h"

const VifKernels TVMAF_SIMD_NAME(tvmaf_vif_kernels) = VIF_KERNELS_INIT;
