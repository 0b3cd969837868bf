/*
 * ciede twin on the host executor: its plan and kernels (ciede_plan.c,
 * ciede_kernels.h) run through the public API against the CPU extractor,
 * every output compared as bits, under both capability profiles: "cuda"
 * runs the double arithmetic (powf(x, 7) from the device's table, pow(x, 7)
 * correctly rounded: both glibc's values), "opencl" the fp32 pairs. The
 * operations per frame are checked against the former host sides'.
 */
#include <stdio.h>
#include <stdlib.h>

#include "feature/ciede/ciede_kernels.h"
#include "../twin_host.h"

/* Per frame: one launch, one read-back, the wait (the old ciede_cuda.c and
 * ciede_opencl.c alike). */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV444P, .bpc = 10, .w = 40, .h = 20,
                                  .opts = "", .n_frames = 2, .what = "ciede counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
    static const TwinHostOps ops = { 0, 1, 1, 0, 1 };
    twin_host_counts(&c, "ciede", &ops, 1);
}

int main(void)
{
    twin_host_init("ciede");
    replay_seed(0x6a09e667f3bcc909ull);
    replay_picture_matrices("ciede", CIEDE_BLOCK_W, CIEDE_BLOCK_H, twin_host_run);
    const ReplayClipSpec clip = { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 2, "" };
    twin_host_clip(&clip, "ciede");
    /* 4:0:0 has no chroma: the twin refuses it as the CPU does */
    replay_check_cpu_refuses("ciede", "", TVMAF_PIX_FMT_YUV400P, 8, 16, 16);
    counts();
    return replay_report("ciede");
}
