/*
 * psnr twin on the host executor: its plan and kernels (psnr_plan.c,
 * psnr_kernels.h) run through the public API against the CPU extractor,
 * every output compared as bits, under both capability profiles (warp
 * totals with atomics; per-row sums); the operations per frame checked
 * against the former CUDA and OpenCL host sides'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/psnr/psnr_math.h"
#include "../twin_host.h"

/* Per frame on 4:2:0: a launch per plane, one read-back, the wait; with the
 * atomics' totals one fill of them first (the old psnr_cuda.c: memset, 3
 * launches, a d2h, a sync; psnr_opencl.c: 3 launches, a read, clFinish). */
static void counts(void)
{
    static const ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
                                  .opts = "", .n_frames = 3, .what = "psnr counts",
                                  .fills = { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_RANDOM } };
    static const TwinHostOps ops[] = { { 0, 3, 1, 1, 1 }, { 0, 3, 1, 0, 1 } };
    twin_host_counts(&c, "psnr", ops, 2);
}

int main(void)
{
    twin_host_init("psnr");
    replay_seed(0x9e3779b97f4a7c15ull);
    /* one group per row: a row one sample past a group */
    replay_picture_matrices("psnr", PSNR_THREADS, 1, twin_host_run);

    static const char *const opts[] = { "enable_chroma=false", "enable_mse=true:enable_apsnr=true",
                                        "reduced_hbd_peak=true", "min_sse=0.5" };
    static const ReplaySize sizes[] = { { 257, 3 }, { 40, 22 } };
    static const unsigned depths[] = { 8, 10, 16 };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_EQUAL, REPLAY_NEAR }, { REPLAY_EXTREMES, REPLAY_LEVELS } };
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV400P };
    static const unsigned lengths[] = { 2 };
    const ReplayMatrix m = { .name = "psnr options x 4:2:0 and 4:0:0", REPLAY_SET(opts, opts),
                             REPLAY_SET(fmts, fmts), REPLAY_SET(sizes, sizes),
                             REPLAY_SET(depths, depths), REPLAY_SET(seqs, seqs),
                             REPLAY_SET(lengths, lengths) };
    replay_matrix(&m, twin_host_run);

    const ReplayClipSpec clip = { "cups_576x324", TVMAF_PIX_FMT_YUV420P, 8, 576, 324, 3, "" };
    twin_host_clip(&clip, "psnr");
    counts();
    return replay_report("psnr");
}
