/*
 * PSNR-HVS-M as libvmaf's psnr_hvs extractor computes it (Xiph's Daala
 * implementation): the arithmetic, written once.
 *
 * Per plane, 8x8 blocks are taken every 7 samples in both directions (so
 * neighbouring blocks share a row or column); only blocks lying wholly inside
 * the plane are used: block origins y = 0, 7, 14, ... while y + 8 <= h (same
 * for x). A plane smaller than 8 in either direction has no block; its
 * score is then 0/0 (NaN).
 *
 * Per block, for the reference and the distorted block separately:
 *   1. The global mean and the four 4x4 quadrant means. They are float sums
 *      of integer samples; every partial sum is an integer below 2^24, so the
 *      float sums are exact and equal the integer sums (computed here as
 *      integers), divided by 64 and 16 (exact).
 *   2. The global variance and the four quadrant variances: float sums of
 *      float squares (sample - mean)^2, in raster order within the block (or
 *      the quadrant), then scaled by the float constants 64/63 and 16/15 as
 *      the reference spells them ((1/63.f) * 64, rounded once per step).
 *      Where the global variance is positive it is replaced by the ratio
 *      (v0 + v1 + v2 + v3) / global, in float.
 *   3. A separable 8x8 integer DCT (Daala's lifting od_bin_fdct8: columns
 *      first, then rows of the column result); int32 throughout, each lifting
 *      multiply (v * c + 2^(s-1)) >> s with an arithmetic shift, the +-1/2
 *      butterflies as truncating halvings. For samples up to 12 bits no
 *      product exceeds 3.9e8 (affine bound over all inputs), so nothing
 *      overflows int32.
 *   4. The masking energy: sum over the 63 AC coefficients, raster order, of
 *      float(int c*c) * mask[k] into a float; then
 *      float(sqrt(double(float(energy * variance_ratio))) / 32).
 * The block's masking threshold is the larger of the two energies. Each
 * coefficient then contributes the float term (e * csf[k])^2 where e is the
 * float |ref - dis| coefficient difference, for AC coefficients lowered by
 * threshold / mask[k] (float quotient) and clamped at 0 where below it.
 *
 * The plane's score is the float sum of those terms over all blocks (blocks
 * in raster order, coefficients in raster order: one running float sum, so
 * any parallel version must keep that order), divided in float by the term
 * count, then by (2^bpc - 1)^2 converted to float. Scores become dB as
 * -10 log10(score) in double; the combined psnr_hvs is
 * 0.8 * y + 0.1 * (cb + cr) of the plane scores (double), then dB.
 *
 * The masking weights are float((double(csf) * K) * (double(csf) * K)) with
 * K = 0.3885746225901003, from the same CSF table; the chroma planes use the
 * 4:2:0 tables at every chroma layout, as the reference does.
 */
#ifndef TVMAF_PSNR_HVS_MATH_H
#define TVMAF_PSNR_HVS_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "core/hd.h"

#define PHVS_BLOCK 8
#define PHVS_STEP 7
/* the reference accepts up to this many bits per sample */
#define PHVS_MAX_BPC 12

/* scale applied to the CSF before squaring into the masking weights */
#define PHVS_MASK_SCALE 0.3885746225901003

/* Contrast sensitivity per DCT coefficient (row = vertical frequency),
 * as float (the decimal literals are doubles rounded to float). */
#define PHVS_CSF_Y { \
    1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, \
    1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542, \
    2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, \
    1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551, \
    2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, \
    0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596, \
    1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, \
    0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565, \
    1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, \
    0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204, \
    0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, \
    0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321, \
    0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, \
    0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001, \
    0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, \
    0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276 }

#define PHVS_CSF_CB { \
    1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, \
    1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242, \
    2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, \
    1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625, \
    1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, \
    1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837, \
    1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, \
    0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374, \
    1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, \
    0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034, \
    0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, \
    0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965, \
    0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, \
    0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733, \
    0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, \
    0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237 }

#define PHVS_CSF_CR { \
    2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, \
    1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971, \
    2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, \
    1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198, \
    1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, \
    0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706, \
    1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, \
    0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023, \
    1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, \
    0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273, \
    0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, \
    0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543, \
    0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, \
    0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063, \
    0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, \
    0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658 }

/* Per-plane weights: the CSF and the masking weight derived from it. */
typedef struct PhvsWeights {
    float csf[64];
    float mask[64];
} PhvsWeights;

#if !TVMAF_KERNEL_CODE /* host only, in double: the kernels read the weights it gives */
/* plane 0 = Y, 1 = Cb, 2 = Cr */
TVMAF_HD void phvs_weights_init(PhvsWeights *w, int plane)
{
    static const float csf_y[64] = PHVS_CSF_Y;
    static const float csf_cb[64] = PHVS_CSF_CB;
    static const float csf_cr[64] = PHVS_CSF_CR;
    const float *csf = plane == 0 ? csf_y : plane == 1 ? csf_cb : csf_cr;
    for (int k = 0; k < 64; k++) {
        /* float * double: the product, and its square, are double */
        const double scaled = (double)csf[k] * PHVS_MASK_SCALE;
        w->csf[k] = csf[k];
        w->mask[k] = (float)(scaled * scaled);
    }
}
#endif

/* Number of block positions along a plane dimension of n samples. */
TVMAF_HD int phvs_block_count(int n)
{
    return n >= PHVS_BLOCK ? (n - PHVS_BLOCK) / PHVS_STEP + 1 : 0;
}

/*
 * Lanes. The block arithmetic below is written on the types phvs_i (int32)
 * and phvs_f (float), which hold one block per lane: on the host they are
 * GCC vectors of PHVS_NL lanes (so blocks side by side run in vector
 * instructions), in device code and on other compilers plain scalars (one
 * block per thread, PHVS_NL = 1). Every lane performs exactly the scalar
 * operations of one block, IEEE single precision, with no lane interaction,
 * so the lane count changes no value. Vector-only spellings sit behind the
 * helpers here: conversion, select (a comparison is a -1/0 mask on vectors,
 * 0/1 on scalars), splat, and lane access. Every build of the twin's
 * kernels (TVMAF_KERNEL_CODE: the devices' and the host executor's) takes
 * the scalar lanes, so the host executor runs the code the devices run.
 */
#if defined(__GNUC__) && !defined(__CUDACC__) && !TVMAF_KERNEL_CODE
#define PHVS_NL 4
typedef int32_t phvs_i __attribute__((vector_size(4 * PHVS_NL)));
typedef uint32_t phvs_u __attribute__((vector_size(4 * PHVS_NL)));
typedef float phvs_f __attribute__((vector_size(4 * PHVS_NL)));
#define PHVS_LANE(v, l) ((v)[l])
#define PHVS_TO_F(v) __builtin_convertvector((v), phvs_f)
TVMAF_HD phvs_f phvs_sel_f(phvs_i m, phvs_f a, phvs_f b)
{
    return (phvs_f)(((phvs_i)a & m) | ((phvs_i)b & ~m));
}
TVMAF_HD phvs_i phvs_sel_i(phvs_i m, phvs_i a, phvs_i b)
{
    return (a & m) | (b & ~m);
}
TVMAF_HD phvs_f phvs_splat_f(float s)
{
    phvs_f v;
    for (int l = 0; l < PHVS_NL; l++) v[l] = s;
    return v;
}
TVMAF_HD phvs_i phvs_splat_i(int32_t s)
{
    phvs_i v;
    for (int l = 0; l < PHVS_NL; l++) v[l] = s;
    return v;
}
#else
#define PHVS_NL 1
typedef int32_t phvs_i;
typedef uint32_t phvs_u;
typedef float phvs_f;
#define PHVS_LANE(v, l) ((&(v))[l]) /* l is 0 */
#define PHVS_TO_F(v) ((float)(v))
TVMAF_HD phvs_f phvs_sel_f(int m, phvs_f a, phvs_f b) { return m ? a : b; }
TVMAF_HD phvs_i phvs_sel_i(int m, phvs_i a, phvs_i b) { return m ? a : b; }
TVMAF_HD phvs_f phvs_splat_f(float s) { return s; }
TVMAF_HD phvs_i phvs_splat_i(int32_t s) { return s; }
#endif

/* v / 2 truncated toward zero (the reference's unbiased shift by one) */
TVMAF_HD phvs_i phvs_half(phvs_i v)
{
    return (v + (phvs_i)((phvs_u)v >> 31)) >> 1;
}

/* One lifting multiply: (v * num + 2^(shift-1)) >> shift, arithmetic shift,
 * so the product rounds to nearest with ties up. Samples within the bit
 * depth never overflow int32 here (see the top); samples beyond it (a
 * malformed input) wrap, as the reference's int multiply does on x86,
 * instead of being undefined: the product is formed unsigned. */
TVMAF_HD phvs_i phvs_lift(phvs_i v, int32_t num, int shift)
{
    return (phvs_i)((phvs_u)v * (uint32_t)num + ((uint32_t)1 << (shift - 1))) >> shift;
}

/* Daala's 8-point forward integer DCT of in[0], in[is], ..., in[7 is],
 * written to out[0], out[os], ... in frequency order. */
TVMAF_HD void phvs_fdct8(phvs_i *out, int os, const phvs_i *in, int is)
{
    const phvs_i x0 = in[0 * is], x1 = in[1 * is];
    const phvs_i x2 = in[2 * is], x3 = in[3 * is];
    const phvs_i x4 = in[4 * is], x5 = in[5 * is];
    const phvs_i x6 = in[6 * is], x7 = in[7 * is];

    /* first stage: sum/difference pairs (0,7) (1,6) (2,5) (3,4) */
    phvs_i d07 = x0 - x7;
    const phvs_i d07_half = phvs_half(d07);
    phvs_i a = x0 - d07_half;           /* becomes coefficient 0 */
    const phvs_i s16 = x1 + x6;
    const phvs_i s16_half = phvs_half(s16);
    phvs_i d16 = x6 - s16_half;         /* becomes coefficient 5 */
    const phvs_i d25 = x2 - x5;
    const phvs_i s25 = x2 - phvs_half(d25);
    const phvs_i s34 = x3 + x4;
    const phvs_i s34_half = phvs_half(s34);
    phvs_i d34 = s34_half - x4;         /* becomes coefficient 7 */

    /* the even half: a 4-point DCT */
    a += s34_half;
    phvs_i c6 = a - s34;
    phvs_i c2 = s16_half - s25;
    phvs_i c4 = c2 - s16;
    /* 2-point DCT of (a, c4): pi/4 rotation as three lifts */
    a -= phvs_lift(c4, 13573, 15);
    c4 += phvs_lift(a, 11585, 14);
    a -= phvs_lift(c4, 13573, 15);
    /* 2-point DST of (c2, c6): 3pi/8 rotation as three lifts */
    c6 -= phvs_lift(c2, 21895, 15);
    c2 += phvs_lift(c6, 15137, 14);
    c6 -= phvs_lift(c2, 21895, 15);

    /* the odd half: a 4-point DST of (d07, d16, d25, d34) */
    phvs_i c3 = d25 + phvs_lift(d16, 19195, 15);
    d16 += phvs_lift(c3, 11585, 14);
    c3 -= phvs_lift(d16, 7489, 13);
    d34 = phvs_half(d16) - d34;
    d16 -= d34;
    c3 = d07_half - c3;
    d07 -= c3;
    /* pi/16 rotation of (d07, d34) */
    d34 += phvs_lift(d07, 3227, 15);
    d07 -= phvs_lift(d34, 6393, 15);
    d34 += phvs_lift(d07, 3227, 15);
    /* 3pi/16 rotation of (c3, d16) */
    d16 += phvs_lift(c3, 2485, 13);
    c3 -= phvs_lift(d16, 18205, 15);
    d16 += phvs_lift(c3, 2485, 13);

    out[0 * os] = a;
    out[1 * os] = d07;
    out[2 * os] = c2;
    out[3 * os] = c3;
    out[4 * os] = c4;
    out[5 * os] = d16;
    out[6 * os] = c6;
    out[7 * os] = d34;
}

/* 2-D transform in place: blk[8 v + u] becomes frequency (v, u), v vertical.
 * Columns are transformed first (into a transposed buffer), then each row
 * of column coefficients. */
TVMAF_HD void phvs_fdct8x8(phvs_i blk[64])
{
    phvs_i col[64];
    for (int c = 0; c < 8; c++) phvs_fdct8(col + 8 * c, 1, blk + c, 8);
    for (int v = 0; v < 8; v++) phvs_fdct8(blk + 8 * v, 1, col + v, 8);
}

/* Steps 1, 2 and 3: returns the variance ratio and leaves the block
 * transformed in place. Every accumulator has its own loop, elements in
 * raster order (of the block, or of the 4x4 quadrant: quadrant q = qi + 2 qj
 * holds rows 4 qi .. 4 qi + 3 and columns 4 qj .. 4 qj + 3). */
TVMAF_HD phvs_f phvs_block_stats_dct(phvs_i blk[64])
{
    const phvs_f zero = phvs_splat_f(0.0f);
    phvs_f qvar[4];
    phvs_i sum = phvs_splat_i(0);
    for (int q = 0; q < 4; q++) {
        const int r0 = 4 * (q & 1), c0 = 4 * (q >> 1);
        /* integer sums are exact, and so were the reference's float sums
         * (every partial sum is an integer below 2^24) */
        phvs_i qsum = phvs_splat_i(0);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) qsum += blk[8 * (r0 + i) + c0 + j];
        sum += qsum;
        const phvs_f qmean = PHVS_TO_F(qsum) / 16.0f;
        phvs_f acc = zero;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                const phvs_f d = PHVS_TO_F(blk[8 * (r0 + i) + c0 + j]) - qmean;
                acc += d * d;
            }
        qvar[q] = acc * ((1.0f / 15.0f) * 16.0f);
    }
    const phvs_f mean = PHVS_TO_F(sum) / 64.0f;
    phvs_f var = zero;
    for (int k = 0; k < 64; k++) {
        const phvs_f d = PHVS_TO_F(blk[k]) - mean;
        var += d * d;
    }
    var *= (1.0f / 63.0f) * 64.0f;
    const phvs_f ratio = (qvar[0] + qvar[1] + qvar[2] + qvar[3]) / var;
    phvs_fdct8x8(blk);
    /* a flat block keeps its variance, 0 */
    return phvs_sel_f(var > zero, ratio, var);
}

/* Step 4: the masking energy of a transformed block. */
TVMAF_HD phvs_f phvs_block_mask(const phvs_i coef[64], phvs_f ratio,
                                TVMAF_GLOBAL const float mask[64])
{
    phvs_f e = phvs_splat_f(0.0f);
    /* the square formed unsigned, for the reason given at phvs_lift */
    for (int k = 1; k < 64; k++)
        e += PHVS_TO_F((phvs_i)((phvs_u)coef[k] * (phvs_u)coef[k])) * mask[k];
    e *= ratio;
    /* the root's argument is never negative (non-negative terms times a
     * ratio of variances), so libm's error path is never taken */
    phvs_f out = phvs_splat_f(0.0f);
    for (int l = 0; l < PHVS_NL; l++)
#if TVMAF_KERNEL_CODE
        /* The same float without fp64: a square root rounded to double and
         * then to float is the correctly rounded float root (double rounding
         * is innocuous for sqrt when 53 >= 2 * 24 + 2: Figueroa, 1995), and
         * / 32 scales exactly (e >= 0, so no result is subnormal). */
        PHVS_LANE(out, l) = sqrtf(PHVS_LANE(e, l)) / 32.0f;
#else
        PHVS_LANE(out, l) = (float)(sqrt((double)PHVS_LANE(e, l)) / 32.0);
#endif
    return out;
}

/*
 * The 64 error terms of a block pair (per lane), in raster order. ref and
 * dis hold the samples on entry and are transformed in place.
 */
TVMAF_HD void phvs_block_terms(phvs_i ref[64], phvs_i dis[64], TVMAF_GLOBAL const PhvsWeights *w,
                               phvs_f terms[64])
{
    const phvs_f zero = phvs_splat_f(0.0f);
    const phvs_f ref_ratio = phvs_block_stats_dct(ref);
    const phvs_f dis_ratio = phvs_block_stats_dct(dis);
    const phvs_f ref_thr = phvs_block_mask(ref, ref_ratio, w->mask);
    const phvs_f dis_thr = phvs_block_mask(dis, dis_ratio, w->mask);
    const phvs_f thr = phvs_sel_f(dis_thr > ref_thr, dis_thr, ref_thr);

    for (int k = 0; k < 64; k++) {
        const phvs_i diff = ref[k] - dis[k];
        phvs_f err = PHVS_TO_F(phvs_sel_i(diff < 0, -diff, diff));
        if (k != 0) {
            /* AC: lowered by the threshold, clamped at 0 */
            const phvs_f t = thr / w->mask[k];
            err = phvs_sel_f(err < t, zero, err - t);
        }
        const phvs_f weighted = err * w->csf[k];
        terms[k] = weighted * weighted;
    }
}

/*
 * The twin's decomposition (psnr_hvs_kernels.h). A plane of bx x by block
 * positions (phvs_block_count) is numbered in raster order, b = x + bx y.
 * One device thread per block: thread t of CUDA block g (PHVS_THREADS
 * threads each, one-dimensional grid) takes b = g PHVS_THREADS + t, if
 * b < bx by, and computes its 64 terms (phvs_block_at: the block's samples,
 * then phvs_block_terms, one lane) into row t of the shared stage
 * (PHVS_STAGE_ROW floats apart, so the threads' stores fall on distinct
 * banks).
 *
 * The host must add the terms into one float, blocks in raster order and
 * coefficients in raster order, as the CPU does: no parallel reduction
 * reproduces that running sum. Most terms are 0 (errors under the masking
 * threshold: 79-88% of the luma terms of the test clips), and adding a zero
 * leaves a float sum unchanged unless the sum is -0, which a sum starting
 * at +0 never becomes (in round-to-nearest x + y is -0 only when both are
 * -0). So the CUDA block packs its non-zero terms: each thread counts those
 * of its row (phvs_nonzero), an exclusive prefix sum over the threads in
 * thread order gives each row's start, each thread copies its non-zero
 * terms in order to the packed buffer from its start (phvs_pack), and the
 * CUDA block stores packed[0 .. count) at region g of the terms buffer
 * (PHVS_REGION floats per CUDA block) and count at counts[g]. The host adds
 * regions 0, 1, ... each from its first term to its count-th
 * (phvs_regions_sum): the CPU's sequence of additions less those of zeros.
 * The plane score is then phvs_plane_score's, over 64 bx by terms.
 */
#define PHVS_THREADS 64
#define PHVS_STAGE_ROW 65
#define PHVS_REGION (64 * PHVS_THREADS)

/* How many of a block's 64 terms are not zero. */
TVMAF_HD int phvs_nonzero(const TVMAF_LOCAL float *row)
{
    int n = 0;
    for (int k = 0; k < 64; k++) n += row[k] != 0.0f;
    return n;
}

/* A block's non-zero terms, in order, to packed[at], packed[at + 1], ... */
TVMAF_HD void phvs_pack(const TVMAF_LOCAL float *row, TVMAF_LOCAL float *packed, int at)
{
    for (int k = 0; k < 64; k++)
        if (row[k] != 0.0f) packed[at++] = row[k];
}

/* The host's sum of a plane's regions: region g holds counts[g] terms. */
TVMAF_HD float phvs_regions_sum(const float *terms, const uint32_t *counts, int64_t n_regions)
{
    float sum = 0.0f;
    for (int64_t g = 0; g < n_regions; g++) {
        const float *t = terms + g * PHVS_REGION;
        for (uint32_t i = 0; i < counts[g]; i++) sum += t[i];
    }
    return sum;
}

#if PHVS_NL == 1
/* The samples of the 8x8 block at (x0, y0) of a plane: bytes 1 (8 bits) or
 * 2 (one uint16_t per sample); pitch in bytes. */
TVMAF_HD void phvs_block_load(phvs_i blk[64], const TVMAF_GLOBAL uint8_t *plane, size_t pitch,
                              unsigned bytes, int x0, int y0)
{
    const TVMAF_GLOBAL uint8_t *row = plane + (size_t)y0 * pitch;
    for (int i = 0; i < 8; i++, row += pitch)
        for (int j = 0; j < 8; j++)
            blk[8 * i + j] = bytes == 1 ? (phvs_i)row[x0 + j]
                                        : (phvs_i)((const TVMAF_GLOBAL uint16_t *)row)[x0 + j];
}

/* One device thread's work: the 64 terms of block b of a plane with bx
 * block positions per row. */
TVMAF_HD void phvs_block_at(const TVMAF_GLOBAL uint8_t *ref, const TVMAF_GLOBAL uint8_t *dis,
                            size_t pitch, unsigned bytes, int bx, int64_t b,
                            TVMAF_GLOBAL const PhvsWeights *w, float terms[64])
{
    const int x0 = (int)(b % bx) * PHVS_STEP, y0 = (int)(b / bx) * PHVS_STEP;
    phvs_i rb[64], db[64];
    phvs_block_load(rb, ref, pitch, bytes, x0, y0);
    phvs_block_load(db, dis, pitch, bytes, x0, y0);
    phvs_block_terms(rb, db, w, terms);
}
#endif

/* The plane score from the running sum of its terms (NaN without blocks). */
TVMAF_HD float phvs_plane_score(float sum, int64_t terms, unsigned bpc)
{
    if (terms == 0) return NAN;
    const int32_t peak = (int32_t)((1u << bpc) - 1);
    sum /= (float)terms;
    return sum / (float)(peak * peak);
}

#if !TVMAF_KERNEL_CODE /* host only, in double: the report */
/* Score to dB: inf where the score is 0, NaN where it is NaN. */
TVMAF_HD double phvs_db(double score)
{
    return 10.0 * -log10(score);
}

/* The combined score of the three planes, before dB. */
TVMAF_HD double phvs_combined(double y, double cb, double cr)
{
    return y * 0.8 + 0.1 * (cb + cr);
}
#endif

#endif
