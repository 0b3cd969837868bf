/*
 * speed_chroma and speed_temporal twins, kernels (gpu/kernel.h): each
 * image's SpEED statistics up to the first log2 (speed_math.h, "The twin's
 * decomposition"): the load, the prescale, the anti-alias filter and
 * decimation, the local mean, the covariance, its eigenvalues and QR
 * factors, and every block's variance. The images of a frame are group
 * z (or group y / x where noted), each n_* floats after the previous. The
 * host reads back eigenvalues, singular flags and block variances and
 * scores with the CPU's code.
 *
 * SpeedGrid, which the CUDA kernels took by value, is rebuilt in the body
 * from the decimated image's sides (speed_grid(ow, oh), the host's own
 * arithmetic).
 */
#ifndef TVMAF_SPEED_KERNELS_H
#define TVMAF_SPEED_KERNELS_H

#include "gpu/kernel.h"
#include "feature/speed/speed_math.h"

/* one plane (w x h samples of bpc bits, rows pitch bytes apart) as floats */
#define SpeedLoad_LIST(V, S)                                                                   \
    V(const uint8_t, src) S(uint64_t, pitch) S(uint32_t, bpc) S(int32_t, w) S(int32_t, h)      \
    S(float, divisor) V(float, dst)
TVD_ARGS(SpeedLoad)
/* speed_temporal: both luma planes into cur_ref / cur_dis (kept for the
 * next frame) and, after frame 0, the two differences with the previous
 * frame's planes: img0 = prev_ref - cur_ref, img1 = prev_dis -
 * (use_ref_diff ? cur_ref : cur_dis) */
#define SpeedTload_LIST(V, S)                                                                  \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, bpc)            \
    S(int32_t, w) S(int32_t, h) S(float, divisor) S(int32_t, first) S(int32_t, use_ref_diff)   \
    V(float, cur_ref) V(float, cur_dis) V(const float, prev_ref) V(const float, prev_dis)      \
    V(float, img0) V(float, img1)
TVD_ARGS(SpeedTload)
/* the prescale at the samples the anti-alias pass reads: column cols[i], row
 * rows[j] of each image's sw x sh prescaled copy, from the host's tables */
#define SpeedResample_LIST(V, S)                                                               \
    V(const float, img) S(uint64_t, n_img) S(int32_t, stride) S(int32_t, method)               \
    S(int32_t, taps) V(const int32_t, xi) V(const float, xw) V(const int32_t, yi)              \
    V(const float, yw) V(const int32_t, cols) S(int32_t, nc) V(const int32_t, rows)            \
    S(int32_t, nr) S(int32_t, sw) V(float, scaled) S(uint64_t, n_scaled)
TVD_ARGS(SpeedResample)
/* anti-alias vertical pass at rows 16 r of each sw x sh image (rows
 * `stride` floats apart), every column and the mirrored margins */
#define SpeedAaV_LIST(V, S)                                                                    \
    V(const float, src) S(uint64_t, n_src) S(int32_t, stride) S(int32_t, sw) S(int32_t, sh)    \
    S(int32_t, oh) V(const float, taps) S(int32_t, fw) V(float, ext) S(uint64_t, n_ext)
TVD_ARGS(SpeedAaV)
/* anti-alias horizontal pass at columns 16 c: the decimated ow x oh image */
#define SpeedAaH_LIST(V, S)                                                                    \
    V(const float, ext) S(uint64_t, n_ext) S(int32_t, ew) S(int32_t, ow) S(int32_t, oh)        \
    V(const float, taps) S(int32_t, fw) V(float, dec) S(uint64_t, n_dec)
TVD_ARGS(SpeedAaH)
/* local mean, vertical pass over the decimated image (margins as above) */
#define SpeedLmV_LIST(V, S)                                                                    \
    V(const float, dec) S(uint64_t, n_dec) S(int32_t, ow) S(int32_t, oh) V(const float, taps)  \
    S(int32_t, fw) V(float, ext) S(uint64_t, n_ext)
TVD_ARGS(SpeedLmV)
/* local mean, horizontal pass, and the image minus its local mean */
#define SpeedLmH_LIST(V, S)                                                                    \
    V(const float, ext) S(uint64_t, n_ext) S(int32_t, ew) V(const float, dec) S(int32_t, ow)   \
    S(int32_t, oh) V(const float, taps) S(int32_t, fw) V(float, res) S(uint64_t, n_dec)
TVD_ARGS(SpeedLmH)
/* the 25x25 covariance k of image (group x) */
#define SpeedCov_LIST(V, S)                                                                    \
    V(const float, res) S(uint64_t, n_dec) S(int32_t, ow) S(int32_t, oh) V(float, k)
TVD_ARGS(SpeedCov)
/* image (group y)'s eigenvalues (into out, and eig_ok) and QR factors */
#define SpeedFactor_LIST(V, S)                                                                 \
    V(const float, k) V(float, out) S(uint64_t, n_out) V(int32_t, eig_ok) V(float, qf)         \
    V(float, rf)
TVD_ARGS(SpeedFactor)
/* every block's variance, and the singular flag, into out after the
 * eigenvalues */
#define SpeedBlocks_LIST(V, S)                                                                 \
    V(const float, res) S(uint64_t, n_dec) S(int32_t, ow) S(int32_t, oh)                       \
    V(const int32_t, eig_ok) V(const float, qf) V(const float, rf) V(float, out)               \
    S(uint64_t, n_out)
TVD_ARGS(SpeedBlocks)

#define SpeedCovLocals_LIST(X) X(float, means, SPEED_NE)
TVD_LOCALS(SpeedCovLocals)
#define SPEED_NN (SPEED_NE * SPEED_NE)
/* the eigenvalues' scratch (group x 0), then the QR's matrices (group x 1) */
#define SpeedFactorLocals_LIST(X)                                                              \
    X(float, scratch, SPEED_EIG_SCRATCH(SPEED_NE)) X(float, a, SPEED_NN) X(float, zm, SPEED_NN) \
    X(float, h, SPEED_NN) X(float, t1, SPEED_NN) X(float, t2, SPEED_NN) X(float, qm, SPEED_NN)  \
    X(float, v, SPEED_NE)
TVD_LOCALS(SpeedFactorLocals)

#define SPEED_KERNELS(K, KC)                                                                   \
    K(speed_load, SpeedLoad, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)                     \
    K(speed_temporal_load, SpeedTload, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)           \
    K(speed_resample_kernel, SpeedResample, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)      \
    K(speed_aa_v, SpeedAaV, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)                      \
    K(speed_aa_h, SpeedAaH, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)                      \
    K(speed_lm_v, SpeedLmV, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)                      \
    K(speed_lm_h, SpeedLmH, TvdNoLocals, SPEED_BLOCK_W, SPEED_BLOCK_H, 0)                      \
    K(speed_cov, SpeedCov, SpeedCovLocals, SPEED_COV_THREADS, 1, TVD_SYNC)                     \
    K(speed_factor, SpeedFactor, SpeedFactorLocals, SPEED_QR_THREADS, 1, TVD_SYNC)             \
    K(speed_blocks, SpeedBlocks, TvdNoLocals, SPEED_BLOCK_THREADS, 1, 0)

/* groups in y of a per-sample kernel over n rows (the grid's y strides over
 * further rows beyond CUDA's limit) */
#define SPEED_GRID_Y(n)                                                                        \
    ((uint32_t)(n) + SPEED_BLOCK_H - 1 > 65535u * SPEED_BLOCK_H                                \
         ? 65535u                                                                              \
         : ((uint32_t)(n) + SPEED_BLOCK_H - 1) / SPEED_BLOCK_H)

#ifdef TVD_KERNEL_BUILD

#if SPEED_COV_THREADS < SPEED_PAIRS || SPEED_QR_THREADS < SPEED_NN
#error "a group takes every covariance entry, every matrix entry"
#endif

/* x and the rows y of this work-item over a w x h grid (the grid's y strides) */
#define SPEED_FOR_SAMPLES(w, h) TVD_FOR_SAMPLES(w, h, SPEED_BLOCK_W, SPEED_BLOCK_H)

TVD_BODY(speed_load, SpeedLoad, TvdNoLocals)
{
    SPEED_FOR_SAMPLES(r->w, r->h)
    r->dst[(size_t)y * r->w + x] =
        ffilter_load_sample(r->src, (ptrdiff_t)r->pitch, r->bpc, r->divisor, x, y);
}

TVD_BODY(speed_temporal_load, SpeedTload, TvdNoLocals)
{
    SPEED_FOR_SAMPLES(r->w, r->h)
    {
        const size_t i = (size_t)y * r->w + x;
        const float rv = ffilter_load_sample(r->ref, (ptrdiff_t)r->pitch, r->bpc, r->divisor, x, y);
        const float dv = ffilter_load_sample(r->dis, (ptrdiff_t)r->pitch, r->bpc, r->divisor, x, y);
        r->cur_ref[i] = rv;
        r->cur_dis[i] = dv;
        if (!r->first) {
            r->img0[i] = r->prev_ref[i] - rv;
            r->img1[i] = r->prev_dis[i] - (r->use_ref_diff ? rv : dv);
        }
    }
}

TVD_BODY(speed_resample_kernel, SpeedResample, TvdNoLocals)
{
    const TVMAF_GLOBAL float *src = r->img + r->n_img * TVD_GID(2);
    TVMAF_GLOBAL float *dst = r->scaled + r->n_scaled * TVD_GID(2);
    const size_t taps = (size_t)r->taps;
    SPEED_FOR_SAMPLES(r->nc, r->nr)
    {
        const int cx = r->cols[x], ry = r->rows[y];
        dst[(size_t)ry * r->sw + cx] =
            speed_resample((enum FfilterScaler)r->method, src, r->stride, r->xi + (size_t)cx * taps,
                           r->xw + (size_t)cx * taps, r->yi + (size_t)ry * taps,
                           r->yw + (size_t)ry * taps);
    }
}

TVD_BODY(speed_aa_v, SpeedAaV, TvdNoLocals)
{
    const int rad = r->fw / 2, ew = r->sw + 2 * rad;
    const TVMAF_GLOBAL float *img = r->src + r->n_src * TVD_GID(2);
    TVMAF_GLOBAL float *out = r->ext + r->n_ext * TVD_GID(2);
    SPEED_FOR_SAMPLES(ew, r->oh)
    out[(size_t)y * ew + x] =
        speed_vpass_sample(r->taps, r->fw, img, r->stride, r->sh, y * SPEED_DECIMATION,
                           ffilter_ext_column(x, r->sw, rad));
}

TVD_BODY(speed_aa_h, SpeedAaH, TvdNoLocals)
{
    const TVMAF_GLOBAL float *in = r->ext + r->n_ext * TVD_GID(2);
    TVMAF_GLOBAL float *out = r->dec + r->n_dec * TVD_GID(2);
    SPEED_FOR_SAMPLES(r->ow, r->oh)
    out[(size_t)y * r->ow + x] =
        ffilter_hpass_sample(r->taps, r->fw, in + (size_t)y * r->ew, x, SPEED_DECIMATION);
}

TVD_BODY(speed_lm_v, SpeedLmV, TvdNoLocals)
{
    const int rad = r->fw / 2, ew = r->ow + 2 * rad;
    const TVMAF_GLOBAL float *img = r->dec + r->n_dec * TVD_GID(2);
    TVMAF_GLOBAL float *out = r->ext + r->n_ext * TVD_GID(2);
    SPEED_FOR_SAMPLES(ew, r->oh)
    out[(size_t)y * ew + x] =
        speed_vpass_sample(r->taps, r->fw, img, r->ow, r->oh, y, ffilter_ext_column(x, r->ow, rad));
}

TVD_BODY(speed_lm_h, SpeedLmH, TvdNoLocals)
{
    const TVMAF_GLOBAL float *in = r->ext + r->n_ext * TVD_GID(2);
    const TVMAF_GLOBAL float *d = r->dec + r->n_dec * TVD_GID(2);
    TVMAF_GLOBAL float *out = r->res + r->n_dec * TVD_GID(2);
    SPEED_FOR_SAMPLES(r->ow, r->oh)
    {
        const size_t i = (size_t)y * r->ow + x;
        out[i] = d[i] - ffilter_hpass_sample(r->taps, r->fw, in + (size_t)y * r->ew, x, 1);
    }
}

/* 25 work-items take the window means, then one work-item per entry of the
 * lower triangle its covariance (each a sum in the CPU's order), written to
 * both halves. */
TVD_BODY(speed_cov, SpeedCov, SpeedCovLocals)
{
    const SpeedGrid g = speed_grid(r->ow, r->oh);
    const TVMAF_GLOBAL float *img = r->res + r->n_dec * TVD_GID(0);
    TVMAF_GLOBAL float *kz = r->k + (size_t)SPEED_NN * TVD_GID(0);
    const int t = (int)TVD_LID(0);
    if (t < SPEED_NE)
        loc->means[t] = speed_window_mean(img, g.ow, &g, t / SPEED_BLOCK, t % SPEED_BLOCK);
    TVD_BARRIER();
    if (t >= SPEED_PAIRS) return;
    int x, y;
    speed_pair(t, &x, &y);
    const float v = speed_window_cov(img, g.ow, &g, x / SPEED_BLOCK, x % SPEED_BLOCK,
                                     y / SPEED_BLOCK, y % SPEED_BLOCK, loc->means[x],
                                     loc->means[y]);
    kz[x * SPEED_NE + y] = v;
    kz[y * SPEED_NE + x] = v;
}

/* Group x 0 takes the eigenvalues on one work-item (into out, and eig_ok:
 * speed_regular); group x 1 the QR factors, one work-item per matrix entry. */
TVD_BODY(speed_factor, SpeedFactor, SpeedFactorLocals)
{
    const size_t z = TVD_GID(1);
    const TVMAF_GLOBAL float *kz = r->k + (size_t)SPEED_NN * z;
    const int t = (int)TVD_LID(0);
    if (TVD_GID(0) == 0) {
        if (t != 0) return;
        TVMAF_GLOBAL float *ev = r->out + r->n_out * z;
        speed_eigenvalues(kz, ev, SPEED_NE, loc->scratch);
        r->eig_ok[z] = speed_regular(ev);
        return;
    }
    const int n = SPEED_NE, i = t / n, j = t % n;
    const int mine = t < SPEED_NN;
    if (mine) {
        loc->a[t] = kz[t];
        loc->zm[t] = kz[t];
        loc->qm[t] = (i == j ? 1 : 0);
    }
    TVD_BARRIER();
    for (int s = 0; s + 1 < n; s++) {
        if (mine) speed_qr_mask(loc->zm, n, s, i, j);
        TVD_BARRIER();
        if (t == 0) speed_qr_vector(loc->zm, loc->a, loc->v, n, s);
        TVD_BARRIER();
        if (mine) loc->h[t] = speed_qr_reflector(loc->v, i, j);
        TVD_BARRIER();
        if (mine) {
            loc->t1[t] = speed_matmul_entry(loc->h, loc->zm, n, i, j);
            loc->t2[t] = speed_matmul_entry(loc->h, loc->qm, n, i, j);
        }
        TVD_BARRIER();
        if (mine) {
            loc->zm[t] = loc->t1[t];
            loc->qm[t] = loc->t2[t];
        }
        TVD_BARRIER();
    }
    if (mine) {
        r->qf[(size_t)SPEED_NN * z + t] = loc->qm[t];
        r->rf[(size_t)SPEED_NN * z + t] = speed_matmul_entry(loc->qm, loc->a, n, i, j);
    }
}

/* One work-item per block of image (group y): its samples, its solution (0
 * when the covariance is singular) and its variance. */
TVD_BODY(speed_blocks, SpeedBlocks, TvdNoLocals)
{
    const SpeedGrid g = speed_grid(r->ow, r->oh);
    const int blk = (int)(TVD_GID(0) * SPEED_BLOCK_THREADS + TVD_LID(0));
    if (blk >= g.nb) return;
    const size_t z = TVD_GID(1);
    const TVMAF_GLOBAL float *qz = r->qf + (size_t)SPEED_NN * z;
    const TVMAF_GLOBAL float *rz = r->rf + (size_t)SPEED_NN * z;
    float b[SPEED_NE], qb[SPEED_NE], x[SPEED_NE];
    speed_block_vector(r->res + r->n_dec * z, g.ow, &g, blk, b, 1);
    const int singular = !r->eig_ok[z] || speed_r_singular(rz, SPEED_NE);
    if (singular)
        for (int p = 0; p < SPEED_NE; p++) x[p] = 0.0f;
    else
        speed_solve_column(qz, rz, b, 1, qb, x, 1, SPEED_NE);
    TVMAF_GLOBAL float *oz = r->out + r->n_out * z;
    oz[SPEED_NE + 1 + blk] = speed_block_variance(x, b, 1, 0);
    if (blk == 0) oz[SPEED_NE] = singular ? 1.0f : 0.0f;
}

#endif
#endif
