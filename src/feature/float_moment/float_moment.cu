// float_moment twin: the four double sums of the luma planes, exactly as the
// CPU's (float_psnr_math.h, "Exact double sums"): float_moment_rows gives each
// row's saturated units of the reference's samples and squares and the
// distorted's (FMOMENT_SLOTS), float_moment_finish folds the rows and turns
// each picture's totals into its sums, running the CPU's loop in one thread
// for a picture whose total reached the limit.
#include <stdint.h>

#include "feature/float_moment/float_moment_math.h"

static_assert(FPIC_THREADS % 32 == 0 && FPIC_THREADS <= 1024, "a block is whole warps");

// One block of FPIC_THREADS threads per row; row_units[FMOMENT_SLOTS * y + k].
extern "C" __global__ void __launch_bounds__(FPIC_THREADS)
float_moment_rows(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                  size_t dis_pitch, unsigned w, unsigned bpc, float divisor,
                  unsigned long long limit, unsigned long long *row_units)
{
    __shared__ unsigned long long warps[FMOMENT_SLOTS][FPIC_THREADS / 32];
    const unsigned y = blockIdx.x;
    uint64_t u[FMOMENT_SLOTS];
    fmoment_lane_units(ref + y * ref_pitch, threadIdx.x, w, bpc, divisor, limit, u);
    fmoment_lane_units(dis + y * dis_pitch, threadIdx.x, w, bpc, divisor, limit, u + 2);
    for (unsigned k = 0; k < FMOMENT_SLOTS; k++) {
        const uint64_t t = fpic_block_fold(u[k], limit, warps[k]);
        if (threadIdx.x == 0) row_units[FMOMENT_SLOTS * y + k] = t;
    }
}

// One warp: folds the h rows; lane 0 writes sums = { ref s1, ref s2, dis s1, dis s2 }.
extern "C" __global__ void __launch_bounds__(32)
float_moment_finish(const unsigned char *ref, const unsigned char *dis, size_t ref_pitch,
                    size_t dis_pitch, unsigned w, unsigned h, unsigned bpc, float divisor,
                    unsigned long long limit, const unsigned long long *row_units,
                    double *sums)
{
    __shared__ unsigned long long warps[FMOMENT_SLOTS][1];
    uint64_t total[FMOMENT_SLOTS];
    for (unsigned k = 0; k < FMOMENT_SLOTS; k++) {
        uint64_t v = 0;
        for (unsigned y = threadIdx.x; y < h; y += 32)
            v = fpic_units_add(v, row_units[FMOMENT_SLOTS * y + k], limit);
        total[k] = fpic_block_fold(v, limit, warps[k]);
    }
    if (threadIdx.x == 0) {
        const FMomentSums r = fmoment_finish(total, limit, ref, (ptrdiff_t)ref_pitch, w, h, bpc,
                                             divisor);
        const FMomentSums d = fmoment_finish(total + 2, limit, dis, (ptrdiff_t)dis_pitch, w, h,
                                             bpc, divisor);
        sums[0] = r.s1;
        sums[1] = r.s2;
        sums[2] = d.s1;
        sums[3] = d.s2;
    }
}
