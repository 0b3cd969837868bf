/*
 * The float row kernels (float_rows.h) at the baseline, and their selection
 * by CPU flags; float_rows_x86.c compiles the same kernels once per x86
 * level.
 */
#include "core/cpu.h"
#include "feature/common/float_rows.h"

FROWS_KERNELS_DEFINE(tvmaf_frows_kernels_c);

void tvmaf_frows_dsp_init(FrowsKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_frows_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, frows);
}
