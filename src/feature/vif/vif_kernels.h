/*
 * vif twin, kernels (gpu/kernel.h): one launch per scale, one tile per
 * group (vif_tile.h describes the decomposition and holds the phases).
 *
 * Local memory of a group at scale 0 (the largest): the 80 x 32 input tile
 * of reference and distorted (u16), the 80 x 16 vertical pass of means (u16)
 * and moments (u32), the 72 x 8 vertical pass of the low-pass (u16): about
 * 33 KB. The log2 table (vif_log2_table_fill on the host, the CPU's table)
 * and the filter taps are buffers the plan uploads once.
 *
 * The group's VifSums, integer sums, so any grouping gives the CPU's:
 *   vif_scale*     (CUDA's caps) each work-item's folded across the warp by
 *                  shuffles, then across warps by four work-items (one per
 *                  field), each adding its total into the scale's VifSums
 *                  with a 64-bit atomic;
 *   vif_tree*      (any device) folded in local memory field by field;
 *                  work-item 0 stores the four totals at the group's slot
 *                  and the host adds the groups' slots.
 * In a ladder (CUDA's reference cache) each scale runs as vif_tile.h's two
 * passes: vif_ref* once per reference picture into the picture's area (its
 * planes of scales 1..3, its per-pixel terms, its den sums), vif_pair* per
 * pair, reading them.
 */
#ifndef TVMAF_VIF_KERNELS_H
#define TVMAF_VIF_KERNELS_H

#include "gpu/kernel.h"
#include "feature/vif/vif_tile.h"

/* a scale's planes (pitch bytes per row; 8-bit samples only at scale 0 of
 * 8-bit input), its size, the input depth, whether its statistic is
 * computed, the log2 table, the gain limit, the next scale's planes
 * (written; unused at scale 3), the taps of every scale (VIF_N_SCALES x
 * VIF_MAX_TAPS) and the sums (the scale's VifSums, or 4 int64 per group) */
#define VifScaleArgs_LIST(V, S)                                                                \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    S(uint32_t, h) S(uint32_t, bpc) S(uint32_t, score) V(const uint16_t, log2_table)           \
    S(VifF64, gain_limit) V(uint8_t, out_r) V(uint8_t, out_d) S(uint64_t, out_pitch)           \
    V(const uint16_t, taps) V(int64_t, sums)
TVD_ARGS(VifScaleArgs)
/* the reference pass: the reference's plane in, its next plane, its terms
 * (mu1, sigma1_sq: w x h each) and its den sums out */
#define VifRefArgs_LIST(V, S)                                                                  \
    V(const uint8_t, ref) S(uint64_t, pitch) S(uint32_t, w) S(uint32_t, h) S(uint32_t, bpc)    \
    V(const uint16_t, log2_table) V(uint8_t, out_r) S(uint64_t, out_pitch)                     \
    V(uint32_t, mu1) V(int32_t, sigma) V(const uint16_t, taps) V(int64_t, sums)
TVD_ARGS(VifRefArgs)
/* the pair pass: both planes in (the reference's from the reference pass
 * below scale 0), the distorted next plane and the num sums out */
#define VifPairArgs_LIST(V, S)                                                                 \
    V(const uint8_t, ref) V(const uint8_t, dis) S(uint64_t, pitch) S(uint32_t, w)              \
    S(uint32_t, h) S(uint32_t, bpc) S(uint32_t, score) V(const uint16_t, log2_table)           \
    S(VifF64, gain_limit) V(uint8_t, out_d) S(uint64_t, out_pitch) V(const uint32_t, mu1)      \
    V(const int32_t, sigma) V(const uint16_t, taps) V(int64_t, sums)
TVD_ARGS(VifPairArgs)

#define VIF_DV_LEN(S) ((S) < 3 ? VIF_TILE_H / 2 * VIF_DV_W(S) : 1)
#define VIF_IN_LEN(S) (VIF_IN_H(S) * VIF_IN_W(S))
#define VIF_V_LEN(S) (VIF_TILE_H * VIF_IN_W(S))
#define VIF_WARPS_LOCAL(X) X(int64_t, partial, VIF_THREADS / 32 * 4)
#define VIF_TREE_LOCAL(X) X(int64_t, red, VIF_THREADS)
#define VIF_SCALE_LOCALS(X, S, FOLD)                                                           \
    X(uint16_t, in_r, VIF_IN_LEN(S)) X(uint16_t, in_d, VIF_IN_LEN(S))                          \
    X(uint16_t, mu1, VIF_V_LEN(S)) X(uint16_t, mu2, VIF_V_LEN(S)) X(uint32_t, xx, VIF_V_LEN(S)) \
    X(uint32_t, yy, VIF_V_LEN(S)) X(uint32_t, xy, VIF_V_LEN(S)) X(uint16_t, dv_r, VIF_DV_LEN(S)) \
    X(uint16_t, dv_d, VIF_DV_LEN(S)) FOLD(X)
#define VIF_REF_LOCALS(X, S)                                                                   \
    X(uint16_t, in_r, VIF_IN_LEN(S)) X(uint16_t, mu1, VIF_V_LEN(S))                            \
    X(uint32_t, xx, VIF_V_LEN(S)) X(uint16_t, dv_r, VIF_DV_LEN(S)) VIF_WARPS_LOCAL(X)
#define VIF_PAIR_LOCALS(X, S)                                                                  \
    X(uint16_t, in_r, VIF_IN_LEN(S)) X(uint16_t, in_d, VIF_IN_LEN(S))                          \
    X(uint16_t, mu2, VIF_V_LEN(S)) X(uint32_t, yy, VIF_V_LEN(S)) X(uint32_t, xy, VIF_V_LEN(S))  \
    X(uint16_t, dv_d, VIF_DV_LEN(S)) VIF_WARPS_LOCAL(X)
#define VifW0_LIST(X) VIF_SCALE_LOCALS(X, 0, VIF_WARPS_LOCAL)
#define VifW1_LIST(X) VIF_SCALE_LOCALS(X, 1, VIF_WARPS_LOCAL)
#define VifW2_LIST(X) VIF_SCALE_LOCALS(X, 2, VIF_WARPS_LOCAL)
#define VifW3_LIST(X) VIF_SCALE_LOCALS(X, 3, VIF_WARPS_LOCAL)
#define VifT0_LIST(X) VIF_SCALE_LOCALS(X, 0, VIF_TREE_LOCAL)
#define VifT1_LIST(X) VIF_SCALE_LOCALS(X, 1, VIF_TREE_LOCAL)
#define VifT2_LIST(X) VIF_SCALE_LOCALS(X, 2, VIF_TREE_LOCAL)
#define VifT3_LIST(X) VIF_SCALE_LOCALS(X, 3, VIF_TREE_LOCAL)
#define VifR0_LIST(X) VIF_REF_LOCALS(X, 0)
#define VifR1_LIST(X) VIF_REF_LOCALS(X, 1)
#define VifR2_LIST(X) VIF_REF_LOCALS(X, 2)
#define VifR3_LIST(X) VIF_REF_LOCALS(X, 3)
#define VifP0_LIST(X) VIF_PAIR_LOCALS(X, 0)
#define VifP1_LIST(X) VIF_PAIR_LOCALS(X, 1)
#define VifP2_LIST(X) VIF_PAIR_LOCALS(X, 2)
#define VifP3_LIST(X) VIF_PAIR_LOCALS(X, 3)
TVD_LOCALS(VifW0) TVD_LOCALS(VifW1) TVD_LOCALS(VifW2) TVD_LOCALS(VifW3)
TVD_LOCALS(VifT0) TVD_LOCALS(VifT1) TVD_LOCALS(VifT2) TVD_LOCALS(VifT3)
TVD_LOCALS(VifR0) TVD_LOCALS(VifR1) TVD_LOCALS(VifR2) TVD_LOCALS(VifR3)
TVD_LOCALS(VifP0) TVD_LOCALS(VifP1) TVD_LOCALS(VifP2) TVD_LOCALS(VifP3)

/* Groups per multiprocessor CUDA's register allocation must allow (ptxas
 * then keeps scale 0's kernels at 61 registers without spills; the shared
 * memory allows 6). */
#define VIF_FLAGS (TVD_SYNC | TVD_CUDA_CAPS | TVD_MIN_BLOCKS(4))

/* In each group of rows: scale 0 of 8-bit input, of deeper input, scales
 * 1, 2, 3 (the plan counts on this order). */
#define VIF_KERNELS(K, KC)                                                                     \
    KC(vif_scale0_8, VifScaleArgs, VifW0, VIF_THREADS, 1, VIF_FLAGS)                           \
    KC(vif_scale0_16, VifScaleArgs, VifW0, VIF_THREADS, 1, VIF_FLAGS)                          \
    KC(vif_scale1, VifScaleArgs, VifW1, VIF_THREADS, 1, VIF_FLAGS)                             \
    KC(vif_scale2, VifScaleArgs, VifW2, VIF_THREADS, 1, VIF_FLAGS)                             \
    KC(vif_scale3, VifScaleArgs, VifW3, VIF_THREADS, 1, VIF_FLAGS)                             \
    KC(vif_ref0_8, VifRefArgs, VifR0, VIF_THREADS, 1, VIF_FLAGS)                               \
    KC(vif_ref0_16, VifRefArgs, VifR0, VIF_THREADS, 1, VIF_FLAGS)                              \
    KC(vif_ref1, VifRefArgs, VifR1, VIF_THREADS, 1, VIF_FLAGS)                                 \
    KC(vif_ref2, VifRefArgs, VifR2, VIF_THREADS, 1, VIF_FLAGS)                                 \
    KC(vif_ref3, VifRefArgs, VifR3, VIF_THREADS, 1, VIF_FLAGS)                                 \
    KC(vif_pair0_8, VifPairArgs, VifP0, VIF_THREADS, 1, VIF_FLAGS)                             \
    KC(vif_pair0_16, VifPairArgs, VifP0, VIF_THREADS, 1, VIF_FLAGS)                            \
    KC(vif_pair1, VifPairArgs, VifP1, VIF_THREADS, 1, VIF_FLAGS)                               \
    KC(vif_pair2, VifPairArgs, VifP2, VIF_THREADS, 1, VIF_FLAGS)                               \
    KC(vif_pair3, VifPairArgs, VifP3, VIF_THREADS, 1, VIF_FLAGS)                               \
    K(vif_tree0_8, VifScaleArgs, VifT0, VIF_THREADS, 1, TVD_SYNC)                              \
    K(vif_tree0_16, VifScaleArgs, VifT0, VIF_THREADS, 1, TVD_SYNC)                             \
    K(vif_tree1, VifScaleArgs, VifT1, VIF_THREADS, 1, TVD_SYNC)                                \
    K(vif_tree2, VifScaleArgs, VifT2, VIF_THREADS, 1, TVD_SYNC)                                \
    K(vif_tree3, VifScaleArgs, VifT3, VIF_THREADS, 1, TVD_SYNC)

#ifdef TVD_KERNEL_BUILD

/* The tile of this group at scale S. */
#define VIF_TILE_OF(r, S, IS8)                                                                 \
    { (S), (r)->bpc, (IS8), (r)->w, (r)->h, (int)(TVD_GID(0) * VIF_TILE_W),                   \
      (int)(TVD_GID(1) * VIF_TILE_H), (r)->taps + (S) * VIF_MAX_TAPS,                         \
      /* unused at scale 3 */ (r)->taps + ((S) < 3 ? (S) + 1 : (S)) * VIF_MAX_TAPS }

/* One scale: the tile's statistic (unless skipped) and, below scale 3, the
 * next scale's planes; FOLD(acc) adds the group's sums. */
#define VIF_SCALE_BODY(S, IS8, FOLD)                                                           \
    const VifTile tl = VIF_TILE_OF(r, S, IS8);                                                 \
    const VifTileMem m = { loc->in_r, loc->in_d, loc->mu1, loc->mu2, loc->xx,                  \
                           loc->yy,   loc->xy,   loc->dv_r, loc->dv_d };                       \
    const uint32_t t = TVD_LID(0);                                                             \
    vif_tile_load(t, &tl, r->ref, r->dis, r->pitch, &m);                                       \
    TVD_BARRIER();                                                                             \
    if (r->score) vif_tile_stat_v(t, &tl, &m);                                                 \
    if ((S) < 3) vif_tile_down_v(t, &tl, &m);                                                  \
    TVD_BARRIER();                                                                             \
    if ((S) < 3) vif_tile_down_h(t, &tl, &m, r->out_r, r->out_d, r->out_pitch);                \
    if (!r->score) return; /* uniform over the group */                                       \
    VifSums acc = { 0, 0, 0, 0 };                                                              \
    vif_tile_stat_h(t, &tl, &m, r->log2_table, r->gain_limit, &acc);                           \
    FOLD(t, &acc, loc, r->sums)

#if TVD_HAS_CUDA_CAPS
TVD_FN int64_t vif_warp_sum(int64_t v)
{
    for (unsigned o = 16; o > 0; o >>= 1) v += (int64_t)TVD_SHFL_DOWN_U64((uint64_t)v, o);
    return v;
}

/* The group's VifSums added into sums[0..3] (every work-item calls it). */
TVD_FN void vif_group_add(uint32_t t, const VifSums *acc, TVMAF_LOCAL int64_t *partial,
                          TVMAF_GLOBAL int64_t *sums)
{
    const int64_t v[4] = { vif_warp_sum(acc->num_log), vif_warp_sum(acc->den_log),
                           vif_warp_sum(acc->num_lin), vif_warp_sum(acc->den_lin) };
    if (!(t & 31u))
        for (int q = 0; q < 4; q++) partial[(t >> 5) * 4 + q] = v[q];
    TVD_BARRIER();
    if (t < 4) {
        int64_t total = 0;
        for (unsigned k = 0; k < VIF_THREADS / 32; k++) total += partial[k * 4 + t];
        TVD_ATOMIC_ADD_U64((TVMAF_GLOBAL uint64_t *)sums + t, (uint64_t)total);
    }
}
#define VIF_FOLD_WARPS(t, acc, loc, sums) vif_group_add((t), (acc), (loc)->partial, (sums))

#define VIF_SCALE_KERNEL(name, L, S, IS8)                                                      \
    TVD_BODY(name, VifScaleArgs, L) { VIF_SCALE_BODY(S, IS8, VIF_FOLD_WARPS); }
VIF_SCALE_KERNEL(vif_scale0_8, VifW0, 0, 1)
VIF_SCALE_KERNEL(vif_scale0_16, VifW0, 0, 0)
VIF_SCALE_KERNEL(vif_scale1, VifW1, 1, 0)
VIF_SCALE_KERNEL(vif_scale2, VifW2, 2, 0)
VIF_SCALE_KERNEL(vif_scale3, VifW3, 3, 0)

/* The reference pass of scale S. It always computes the statistic: every
 * pair of the ladder reads its terms, whatever scales that pair scores. */
#define VIF_REF_KERNEL(name, L, S, IS8)                                                        \
    TVD_BODY(name, VifRefArgs, L)                                                              \
    {                                                                                          \
        const VifTile tl = VIF_TILE_OF(r, S, IS8);                                             \
        const VifTileMem m = { loc->in_r, 0, loc->mu1, 0, loc->xx, 0, 0, loc->dv_r, 0 };       \
        const VifRefTerms out = { r->mu1, r->sigma };                                          \
        const uint32_t t = TVD_LID(0);                                                         \
        vif_tile_load1(t, &tl, r->ref, r->pitch, loc->in_r);                                   \
        TVD_BARRIER();                                                                         \
        vif_tile_stat_v_ref(t, &tl, &m);                                                       \
        if ((S) < 3) vif_tile_down_v1(t, &tl, loc->in_r, loc->dv_r);                           \
        TVD_BARRIER();                                                                         \
        if ((S) < 3) vif_tile_down_h1(t, &tl, loc->dv_r, r->out_r, r->out_pitch);              \
        VifSums acc = { 0, 0, 0, 0 };                                                          \
        vif_tile_stat_h_ref(t, &tl, &m, r->log2_table, &out, &acc);                            \
        vif_group_add(t, &acc, loc->partial, r->sums);                                         \
    }
VIF_REF_KERNEL(vif_ref0_8, VifR0, 0, 1)
VIF_REF_KERNEL(vif_ref0_16, VifR0, 0, 0)
VIF_REF_KERNEL(vif_ref1, VifR1, 1, 0)
VIF_REF_KERNEL(vif_ref2, VifR2, 2, 0)
VIF_REF_KERNEL(vif_ref3, VifR3, 3, 0)

/* The pair pass of scale S. */
#define VIF_PAIR_KERNEL(name, L, S, IS8)                                                       \
    TVD_BODY(name, VifPairArgs, L)                                                             \
    {                                                                                          \
        const VifTile tl = VIF_TILE_OF(r, S, IS8);                                             \
        const VifTileMem m = { loc->in_r, loc->in_d, 0, loc->mu2, 0, loc->yy, loc->xy, 0,      \
                               loc->dv_d };                                                    \
        /* the terms are only read */                                                          \
        const VifRefTerms in = { (TVMAF_GLOBAL uint32_t *)r->mu1,                              \
                                 (TVMAF_GLOBAL int32_t *)r->sigma };                           \
        const uint32_t t = TVD_LID(0);                                                         \
        if (r->score) vif_tile_load(t, &tl, r->ref, r->dis, r->pitch, &m);                     \
        else vif_tile_load1(t, &tl, r->dis, r->pitch, loc->in_d);                              \
        TVD_BARRIER();                                                                         \
        if (r->score) vif_tile_stat_v_pair(t, &tl, &m);                                        \
        if ((S) < 3) vif_tile_down_v1(t, &tl, loc->in_d, loc->dv_d);                           \
        TVD_BARRIER();                                                                         \
        if ((S) < 3) vif_tile_down_h1(t, &tl, loc->dv_d, r->out_d, r->out_pitch);              \
        if (!r->score) return; /* uniform over the group */                                   \
        VifSums acc = { 0, 0, 0, 0 };                                                          \
        vif_tile_stat_h_pair(t, &tl, &m, &in, r->log2_table, r->gain_limit, &acc);             \
        vif_group_add(t, &acc, loc->partial, r->sums);                                         \
    }
VIF_PAIR_KERNEL(vif_pair0_8, VifP0, 0, 1)
VIF_PAIR_KERNEL(vif_pair0_16, VifP0, 0, 0)
VIF_PAIR_KERNEL(vif_pair1, VifP1, 1, 0)
VIF_PAIR_KERNEL(vif_pair2, VifP2, 2, 0)
VIF_PAIR_KERNEL(vif_pair3, VifP3, 3, 0)
#endif

/* The sum of every work-item's v (group-uniform call). */
TVD_FN int64_t vif_tree_sum(TVMAF_LOCAL int64_t *red, int64_t v, uint32_t t)
{
    red[t] = v;
    TVD_BARRIER();
    for (uint32_t o = VIF_THREADS / 2; o > 0; o >>= 1) {
        if (t < o) red[t] += red[t + o];
        TVD_BARRIER();
    }
    const int64_t total = red[0];
    TVD_BARRIER(); /* red is rewritten by the next fold */
    return total;
}

/* The group's four totals at its slot of sums. */
TVD_FN void vif_tree_store(uint32_t t, const VifSums *acc, TVMAF_LOCAL int64_t *red,
                           TVMAF_GLOBAL int64_t *sums)
{
    const int64_t v0 = vif_tree_sum(red, acc->num_log, t), v1 = vif_tree_sum(red, acc->den_log, t);
    const int64_t v2 = vif_tree_sum(red, acc->num_lin, t), v3 = vif_tree_sum(red, acc->den_lin, t);
    if (t == 0) {
        TVMAF_GLOBAL int64_t *g = sums + 4 * (TVD_GID(1) * TVD_NGROUPS(0) + TVD_GID(0));
        g[0] = v0;
        g[1] = v1;
        g[2] = v2;
        g[3] = v3;
    }
}
#define VIF_FOLD_TREE(t, acc, loc, sums) vif_tree_store((t), (acc), (loc)->red, (sums))

#define VIF_TREE_KERNEL(name, L, S, IS8)                                                       \
    TVD_BODY(name, VifScaleArgs, L) { VIF_SCALE_BODY(S, IS8, VIF_FOLD_TREE); }
VIF_TREE_KERNEL(vif_tree0_8, VifT0, 0, 1)
VIF_TREE_KERNEL(vif_tree0_16, VifT0, 0, 0)
VIF_TREE_KERNEL(vif_tree1, VifT1, 1, 0)
VIF_TREE_KERNEL(vif_tree2, VifT2, 2, 0)
VIF_TREE_KERNEL(vif_tree3, VifT3, 3, 0)

#endif
#endif
