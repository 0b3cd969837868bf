/*
 * psnr_hvs twin, kernels (gpu/kernel.h): one work-item per 8x8 block
 * position of a plane computes the block's 64 terms with the CPU's
 * arithmetic (phvs_block_at, one lane); each group packs its non-zero terms
 * in order, and the host adds them into the CPU's running float
 * (psnr_hvs_math.h, "The twin's decomposition").
 *
 * For every block b < n_blocks of a plane with bx block positions per row,
 * group g (PHVS_THREADS work-items, grid ceil(n_blocks / PHVS_THREADS) x 1)
 * stores its blocks' non-zero terms, in order, at terms[PHVS_REGION g ...]
 * and their number at counts[g]; w is the plane's weights (uploaded once).
 */
#ifndef TVMAF_PSNR_HVS_KERNELS_H
#define TVMAF_PSNR_HVS_KERNELS_H

#include "gpu/kernel.h"
#include "feature/psnr_hvs/psnr_hvs_math.h"

#define PhvsArgs_LIST(V, S)                                                                    \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, bytes)          \
    S(int32_t, bx) S(int64_t, n_blocks) V(const PhvsWeights, w) V(float, terms)                \
    V(uint32_t, counts)
TVD_ARGS(PhvsArgs)

/* the rows of the stage PHVS_STAGE_ROW floats apart (distinct banks) */
#define PhvsStage_LIST(X)                                                                      \
    X(float, stage, PHVS_THREADS * PHVS_STAGE_ROW) X(float, packed, PHVS_REGION)               \
    X(int32_t, start, PHVS_THREADS + 1)
TVD_LOCALS(PhvsStage)

#define PSNR_HVS_KERNELS(K, KC) K(psnr_hvs_blocks, PhvsArgs, PhvsStage, PHVS_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

#if PHVS_NL != 1
#error "a kernel computes one block per work-item"
#endif

TVD_BODY(psnr_hvs_blocks, PhvsArgs, PhvsStage)
{
    const uint32_t tid = TVD_LID(0), g = TVD_GID(0);
    const int64_t b = (int64_t)g * PHVS_THREADS + tid;
    TVMAF_LOCAL float *row = loc->stage + tid * PHVS_STAGE_ROW;
    if (b < r->n_blocks) {
        float t[64];
        phvs_block_at(r->ref, r->dis, r->pitch, r->bytes, r->bx, b, r->w, t);
        for (int k = 0; k < 64; k++) row[k] = t[k];
        loc->start[tid + 1] = phvs_nonzero(row);
    } else {
        loc->start[tid + 1] = 0;
    }
    TVD_BARRIER();
    if (tid == 0) { /* exclusive prefix sum of the rows' counts, in work-item order */
        loc->start[0] = 0;
        for (int i = 1; i <= PHVS_THREADS; i++) loc->start[i] += loc->start[i - 1];
    }
    TVD_BARRIER();
    if (b < r->n_blocks) phvs_pack(row, loc->packed, loc->start[tid]);
    TVD_BARRIER();
    const int total = loc->start[PHVS_THREADS];
    TVMAF_GLOBAL float *out = r->terms + (size_t)g * PHVS_REGION;
    for (int i = (int)tid; i < total; i += PHVS_THREADS) out[i] = loc->packed[i];
    if (tid == 0) r->counts[g] = (uint32_t)total;
}

#endif
#endif
