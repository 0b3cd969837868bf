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

static void run_case(const ReplayCase *c)
{
    twin_host_case(c, "ciede");
}

/* Per frame: one launch, one read-back, the wait (the old ciede_cuda.c and
 * ciede_opencl.c alike). */
static void counts(void)
{
    static const char *const profiles[] = { "cuda", "opencl" };
    for (int p = 0; p < 2; p++) {
        tvd_host_totals_reset();
        ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV444P, .bpc = 10, .w = 40, .h = 20, .opts = "",
                         .n_frames = 2, .fills = { REPLAY_RANDOM, REPLAY_NEAR } };
        snprintf(c.what, sizeof(c.what), "ciede counts");
        twin_host_profile(&c, "ciede", replay_fill_frames, &c, profiles[p]);
        char what[64];
        snprintf(what, sizeof(what), "ciede counts {%s}", profiles[p]);
        twin_host_check_counts("ciede", what, 1, 1, 0, 1);
    }
}

int main(void)
{
    twin_host_init();
    replay_seed(0x6a09e667f3bcc909ull);
    replay_picture_matrices("ciede", CIEDE_BLOCK_W, CIEDE_BLOCK_H, run_case);
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !dir[0]) dir = getenv("TVMAF_CLIPS_DEFAULT");
    ReplayClip cl;
    if (dir && replay_clip_open(&cl, dir, "cups_576x324", NULL, TVMAF_PIX_FMT_YUV420P, 576, 324,
                                8, 2, "")) {
        twin_host_frames(&cl.c, "ciede", replay_clip_frames, &cl);
        replay_clip_close(&cl);
        replay_count("ciede clip cups_576x324", 1);
    } else {
        replay_fail("the test clip cups_576x324 is not in %s", dir ? dir : "(no TVMAF_CLIPS)");
    }
    /* 4:0:0 has no chroma: the twin refuses it as the CPU does */
    replay_check_cpu_refuses("ciede", "", TVMAF_PIX_FMT_YUV400P, 8, 16, 16);
    counts();
    return replay_report("ciede");
}
