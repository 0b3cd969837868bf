/*
 * adm's CPU stages (DWT, decouple, den, csf, cm, and frame_sums running them
 * over a frame), compiled once in C (adm.c) and once per x86 SIMD level
 * (adm_x86.c, TVMAF_SIMD_SUFFIX naming the level). A level's source defines
 * the ADM_* row-kernel macros below with its own kernels before including
 * this header; the rest falls back to the C rows. Each translation unit
 * defines its level's AdmKernels (tvmaf_adm_kernels_c or _<level>), whose
 * frame_sums is this code built in that level's instruction set. The stages
 * are integer arithmetic plus per-coefficient doubles in the C order, so each
 * level returns the C bits (tests/checkasm/adm.c).
 */
#ifndef TVMAF_ADM_STAGES_H
#define TVMAF_ADM_STAGES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "core/picture_pool.h"
#include "core/team.h"
#include "feature/adm/adm_cpu.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"

#ifdef TVMAF_SIMD_SUFFIX
#define ADM_FRAME_SUMS TVMAF_SIMD_NAME(tvmaf_adm_frame_sums)
#define ADM_KERNELS TVMAF_SIMD_NAME(tvmaf_adm_kernels)
#else
#define ADM_FRAME_SUMS tvmaf_adm_frame_sums_c
#define ADM_KERNELS tvmaf_adm_kernels_c
#endif
static void ADM_FRAME_SUMS(AdmCpu *m, const TvmafPicture *ref, const TvmafPicture *dis,
                           AdmScaleSums sums[4]);

static inline int adm_max(int a, int b) { return a > b ? a : b; }
static inline int adm_min(int a, int b) { return a < b ? a : b; }

/* ---- DWT ---------------------------------------------------------------- */

/* Source columns of DWT output j over n inputs, mirrored at the edges. */
static inline void taps_at(int j, int n, int x[4])
{
    for (int k = 0; k < 4; k++) x[k] = adm_dwt_tap(j, k, n);
}

/* The DWT's row kernels (adm_cpu.h): the interior outputs [jb, je) of a
 * horizontal pass, whose taps 2j-1 .. 2j+2 lie inside the row, and the
 * vertical pass of scales 1..3. A level may replace them (adm_x86.c). */
static __attribute__((unused)) void
dwt0_hrow_c(const int16_t *lo, const int16_t *hi, int jb, int je, int32_t *a, int16_t *v,
            int16_t *h, int16_t *d)
{
    for (int j = jb; j < je; j++) {
        const int16_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
        a[j] = adm_dwt0_lo(l[0], l[1], l[2], l[3]);
        v[j] = (int16_t)adm_dwt0_hi(l[0], l[1], l[2], l[3]);
        h[j] = (int16_t)adm_dwt0_lo(g[0], g[1], g[2], g[3]);
        d[j] = (int16_t)adm_dwt0_hi(g[0], g[1], g[2], g[3]);
    }
}

static __attribute__((unused)) void
dwt32_hrow_c(const int32_t *lo, const int32_t *hi, int jb, int je, int32_t add, int shift,
             int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    for (int j = jb; j < je; j++) {
        const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
        a[j] = adm_dwt_lo32(l[0], l[1], l[2], l[3], add, shift);
        v[j] = adm_dwt_hi32(l[0], l[1], l[2], l[3], add, shift);
        h[j] = adm_dwt_lo32(g[0], g[1], g[2], g[3], add, shift);
        d[j] = adm_dwt_hi32(g[0], g[1], g[2], g[3], add, shift);
    }
}

static __attribute__((unused)) void
dwt32_vrow_c(const int32_t *const row[4], int n, int32_t add, int shift, int32_t *lo, int32_t *hi)
{
    for (int j = 0; j < n; j++) {
        lo[j] = adm_dwt_lo32(row[0][j], row[1][j], row[2][j], row[3][j], add, shift);
        hi[j] = adm_dwt_hi32(row[0][j], row[1][j], row[2][j], row[3][j], add, shift);
    }
}

/* Scale 1's vertical pass (adm_cpu.h's dwt1_vrow): the C's is scales
 * 1..3's with scale 1's rounding. */
static __attribute__((unused)) void
dwt1_vrow_c(const int32_t *const row[4], int n, int32_t *lo, int32_t *hi)
{
    const AdmDwtRound rd = adm_dwt_round(1);
    dwt32_vrow_c(row, n, rd.v_add, rd.v_shift, lo, hi);
}

#ifndef ADM_DWT0_HROW
#define ADM_DWT0_HROW dwt0_hrow_c
#endif
#ifndef ADM_DWT32_HROW
#define ADM_DWT32_HROW dwt32_hrow_c
#endif
#ifndef ADM_DWT32_VROW
#define ADM_DWT32_VROW dwt32_vrow_c
#endif
#ifndef ADM_DWT1_VROW
#define ADM_DWT1_VROW dwt1_vrow_c
#endif

/* Horizontal pass of scale 0 over one row: outputs a, v (from the low row),
 * h, d (from the high row). Outputs 1 .. ie-1 read 2j-1 .. 2j+2 directly. */
static void dwt0_horizontal(const int16_t *restrict lo, const int16_t *restrict hi, int in_w,
                            int out_w, int past, int32_t *restrict a, int16_t *restrict v,
                            int16_t *restrict h, int16_t *restrict d)
{
    int ie = adm_dwt_interior_end(in_w);
    ie = ie < 1 ? 1 : (ie > out_w ? out_w : ie);
    ADM_DWT0_HROW(lo, hi, 1, ie, a, v, h, d);
    for (int j = 0; j < out_w; j = (j == 0 ? ie : j + 1)) {
        int x[4];
        taps_at(j, in_w, x);
        a[j] = adm_dwt0_lo(lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]]);
        v[j] = (int16_t)adm_dwt0_hi(lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]]);
        h[j] = (int16_t)adm_dwt0_lo(hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]]);
        d[j] = (int16_t)adm_dwt0_hi(hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]]);
    }
    if (past) {
        /* the vector block's last output (adm_math.h, "Which reference
         * build"): the low row runs on into the high row, the high row into
         * memory this frame did not write (read as 0, see there) */
        const int j = out_w - 1;
        int16_t l[4], g[4];
        for (int k = 0; k < 4; k++) {
            const int x = adm_dwt_tap_vec(j, k);
            l[k] = x < in_w ? lo[x] : hi[x - in_w];
            g[k] = x < in_w ? hi[x] : 0;
        }
        a[j] = adm_dwt0_lo(l[0], l[1], l[2], l[3]);
        v[j] = (int16_t)adm_dwt0_hi(l[0], l[1], l[2], l[3]);
        h[j] = (int16_t)adm_dwt0_lo(g[0], g[1], g[2], g[3]);
        d[j] = (int16_t)adm_dwt0_hi(g[0], g[1], g[2], g[3]);
    }
}

/* Scale 0's vertical pass over the w columns of four rows (uint8 samples at
 * 8 bits, uint16 above): the low and high rows of the horizontal pass. */
static __attribute__((unused)) void
dwt0_vrow_c(const void *const row[4], int w, int bpc, int16_t *lo, int16_t *hi)
{
    if (bpc == 8) {
        const uint8_t *r0 = row[0], *r1 = row[1], *r2 = row[2], *r3 = row[3];
        for (int j = 0; j < w; j++) adm_dwt0_vert(r0[j], r1[j], r2[j], r3[j], 8, &lo[j], &hi[j]);
    } else {
        const uint16_t *r0 = row[0], *r1 = row[1], *r2 = row[2], *r3 = row[3];
        for (int j = 0; j < w; j++) adm_dwt0_vert(r0[j], r1[j], r2[j], r3[j], bpc, &lo[j], &hi[j]);
    }
}
#ifndef ADM_DWT0_VROW
#define ADM_DWT0_VROW dwt0_vrow_c
#endif

/* Rows [i0, i1) of scale 0's DWT, with one slot's scratch rows. */
/* Scale 0's DWT of band row i: the approximation row a, the detail rows
 * out[0..2] (h, v, d). */
static void dwt0_row(const AdmCpu *m, const AdmSlot *sl, const TvmafPicture *pic, int i,
                     int32_t *a, int16_t *const out[3])
{
    const AdmScale *c = &m->s.sc[0];
    const int bpc = (int)pic->bpc;
    const int past = adm_dwt_reads_past(c->w, adm_dwt_block(m->s.isa, 0, bpc));
    const void *row[4];
    for (int k = 0; k < 4; k++)
        row[k] = (const unsigned char *)pic->data[0]
                 + (ptrdiff_t)adm_dwt_tap(i, k, c->in_h) * pic->stride[0];
    ADM_DWT0_VROW(row, c->in_w, bpc, sl->lo16, sl->hi16);
    dwt0_horizontal(sl->lo16, sl->hi16, c->in_w, c->w, past, a, out[1], out[0], out[2]);
}

static void dwt0(const AdmCpu *m, const AdmSlot *sl, const TvmafPicture *pic, int32_t *a,
                 Bands16 *out, int i0, int i1)
{
    const size_t w = (size_t)m->s.sc[0].w;
    for (int i = i0; i < i1; i++) {
        const size_t o = (size_t)i * w;
        dwt0_row(m, sl, pic, i, a + o,
                 (int16_t *const[3]){ out->b[0] + o, out->b[1] + o, out->b[2] + o });
    }
}

static void dwt32_horizontal(const int32_t *restrict lo, const int32_t *restrict hi, int in_w,
                             int out_w, AdmDwtRound rd, const int32_t *hi_next, int32_t *restrict a,
                             Bands32 *out, size_t o)
{
    int32_t *restrict v = out->b[1] + o, *restrict h = out->b[0] + o, *restrict d = out->b[2] + o;
    int ie = adm_dwt_interior_end(in_w);
    ie = ie < 1 ? 1 : (ie > out_w ? out_w : ie);
    ADM_DWT32_HROW(lo, hi, 1, ie, rd.h_add, rd.h_shift, a, v, h, d);
    for (int j = 0; j < out_w; j = (j == 0 ? ie : j + 1)) {
        int x[4];
        taps_at(j, in_w, x);
        a[j] = adm_dwt_lo32(lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]], rd.h_add, rd.h_shift);
        v[j] = adm_dwt_hi32(lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]], rd.h_add, rd.h_shift);
        h[j] = adm_dwt_lo32(hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]], rd.h_add, rd.h_shift);
        d[j] = adm_dwt_hi32(hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]], rd.h_add, rd.h_shift);
    }
    if (hi_next) {
        /* the vector block's last output reads on: the low row into the high
         * row, the high row into hi_next (the next temporary row) */
        const int j = out_w - 1;
        int32_t l[4], g[4];
        for (int k = 0; k < 4; k++) {
            const int x = adm_dwt_tap_vec(j, k);
            l[k] = x < in_w ? lo[x] : hi[x - in_w];
            g[k] = x < in_w ? hi[x] : hi_next[x - in_w];
        }
        a[j] = adm_dwt_lo32(l[0], l[1], l[2], l[3], rd.h_add, rd.h_shift);
        v[j] = adm_dwt_hi32(l[0], l[1], l[2], l[3], rd.h_add, rd.h_shift);
        h[j] = adm_dwt_lo32(g[0], g[1], g[2], g[3], rd.h_add, rd.h_shift);
        d[j] = adm_dwt_hi32(g[0], g[1], g[2], g[3], rd.h_add, rd.h_shift);
    }
}

/*
 * DWT of scales 1..3: the previous approximation band (in_w x in_h) to this
 * scale's a, v, h, d. The reference's kernel keeps four temporary rows (ref
 * low, ref high, dis low, dis high); where its vector block reads past a row
 * (adm_math.h, "Which reference build"), the reference picture's high row
 * runs on into the distorted picture's low row (dis_src: the distorted input,
 * given on the reference's pass), and the distorted high row into what the
 * previous scale left after its rows (m->prev_dis_lo, scales 2 and 3; at
 * scale 1 memory nothing wrote, read as 0). The distorted
 * pass saves its last low row's first columns for the next scale, in
 * m->last_dis_lo (the band of the last row; adm_next_scale moves them to
 * prev_dis_lo once no band of this scale reads that any more).
 * Rows [i0, i1), with one slot's scratch rows.
 */
static void dwt32(AdmCpu *m, const AdmSlot *sl, int k, const int32_t *src, int32_t *a,
                  Bands32 *out, const int32_t *dis_src, int i0, int i1)
{
    const AdmScale *c = &m->s.sc[k];
    const AdmDwtRound rd = adm_dwt_round(k);
    int32_t *lo = sl->lo32, *hi = sl->hi32;
    const int past = adm_dwt_reads_past(c->w, adm_dwt_block(m->s.isa, k, (int)m->s.bpc));
    /* previous scale's distorted low row: columns 0, 1 (its input width
     * even, so 4 * in_w is twice it) or 2, 3 (odd) */
    const int32_t *prev = m->prev_dis_lo + ((m->s.sc[k - 1].in_w & 1) ? 2 : 0);
    for (int i = i0; i < i1; i++) {
        const int32_t *row[4];
        for (int t = 0; t < 4; t++) row[t] = src + (size_t)adm_dwt_tap(i, t, c->in_h) * c->in_w;
        /* scale 1 reads scale 0's approximation band (ADM_DWT0_A_MAX) */
        if (k == 1) ADM_DWT1_VROW(row, c->in_w, lo, hi);
        else ADM_DWT32_VROW(row, c->in_w, rd.v_add, rd.v_shift, lo, hi);
        const int32_t *hi_next = NULL;
        int32_t next[2];
        if (past && dis_src) {
            for (int j = 0; j < 2; j++) {
                const int32_t *d[4];
                for (int t = 0; t < 4; t++)
                    d[t] = dis_src + (size_t)adm_dwt_tap(i, t, c->in_h) * c->in_w + j;
                next[j] = adm_dwt_lo32(*d[0], *d[1], *d[2], *d[3], rd.v_add, rd.v_shift);
            }
            hi_next = next;
        } else if (past && k > 1) {
            hi_next = prev;
        } else if (past) {
            /* scale 1, distorted: memory nothing wrote (read as 0, see
             * adm_math.h) */
            next[0] = next[1] = 0;
            hi_next = next;
        }
        dwt32_horizontal(lo, hi, c->in_w, c->w, rd, hi_next, a + (size_t)i * c->w, out,
                         (size_t)i * c->w);
    }
    if (!dis_src && i1 == c->h && i1 > i0)
        for (int j = 0; j < 4 && j < c->in_w; j++) m->last_dis_lo[j] = lo[j];
}

/* ---- decouple, csf ------------------------------------------------------ */

/*
 * Lanes (adm_math.h, "Vector and scalar lanes"): decouple and csf run the
 * work range of every row as vector lanes up to adm_lanes_decouple / _csf
 * (the chosen build's blocks) and as scalar lanes after it. The vector and scalar forms differ only in
 * the gain rounding (decouple) and in the operands noted at each helper.
 */
/* One row of scale 0 decouple, columns [jb, je), vector lanes before jv
 * (adm_cpu.h). */
static __attribute__((unused)) void
decouple16_row_c(const int16_t *const o[3], const int16_t *const t[3], int16_t *const r[3],
                 int16_t *const a[3], int jb, int je, int jv, const int32_t *recip,
                 float cos_1deg_sq, double egl)
{
    for (int j = jb; j < je; j++) {
        const int16_t oo[3] = { o[0][j], o[1][j], o[2][j] };
        const int16_t tt[3] = { t[0][j], t[1][j], t[2][j] };
        int16_t rr[3], aa[3];
        adm_decouple16_at(oo, tt, recip, cos_1deg_sq, egl, j < jv, rr, aa);
        for (int k = 0; k < 3; k++) {
            r[k][j] = rr[k];
            a[k][j] = aa[k];
        }
    }
}

#ifndef ADM_DECOUPLE16_ROW
#define ADM_DECOUPLE16_ROW decouple16_row_c
#endif

/* Scale 0 decouple of one row (in the work region) of the reference's and
 * the distorted's bands o, t into the rows r, a. */
static void decouple16_row(const AdmCpu *m, const AdmScale *c, const int16_t *const o[3],
                           const int16_t *const t[3], int16_t *const r[3], int16_t *const a[3])
{
    const int jv = adm_lanes_decouple(m->s.isa, 0, c->work_l, c->work_r);
    /* the level's row kernel (adm_x86.c), or the C row */
    ADM_DECOUPLE16_ROW(o, t, r, a, c->work_l, c->work_r, jv, m->recip, m->s.cos_1deg_sq,
                       m->s.enhn_gain_limit);
}

/* One row of scales 1..3 decouple, columns [jb, je), vector lanes before jv. */
static __attribute__((unused)) void
decouple32_row_c(const int32_t *const o[3], const int32_t *const t[3], int32_t *const r[3],
                 int32_t *const a[3], int jb, int je, int jv, const int32_t *recip,
                 float cos_1deg_sq, double egl)
{
    for (int j = jb; j < je; j++) {
        const int32_t oo[3] = { o[0][j], o[1][j], o[2][j] };
        const int32_t tt[3] = { t[0][j], t[1][j], t[2][j] };
        int32_t rr[3], aa[3];
        adm_decouple32_at(oo, tt, recip, cos_1deg_sq, egl, j < jv, rr, aa);
        for (int k = 0; k < 3; k++) {
            r[k][j] = rr[k];
            a[k][j] = aa[k];
        }
    }
}

#ifndef ADM_DECOUPLE32_ROW
#define ADM_DECOUPLE32_ROW decouple32_row_c
#endif

/* Scales 1..3 decouple of row i (in the work region) into the rows r, a. */
static void decouple32_row(const AdmCpu *m, const AdmScale *c, const Bands32 *ref,
                           const Bands32 *dis, int i, int32_t *const r[3], int32_t *const a[3])
{
    const int jv = adm_lanes_decouple(m->s.isa, 1, c->work_l, c->work_r);
    /* the level's row kernel (adm_x86.c), or the C row */
    const size_t x0 = (size_t)i * c->w;
    ADM_DECOUPLE32_ROW((const int32_t *const[3]){ ref->b[0] + x0, ref->b[1] + x0, ref->b[2] + x0 },
                       (const int32_t *const[3]){ dis->b[0] + x0, dis->b[1] + x0, dis->b[2] + x0 },
                       r, a, c->work_l, c->work_r, jv, m->recip, m->s.cos_1deg_sq,
                       m->s.enhn_gain_limit);
}

/* csf16's vector lanes over one span of a row, inlined with diag and sat
 * constant so that the loop has no branch and the level's vectoriser takes
 * it (the same integer operations per element): flt from the 32-bit csf
 * value, where the scalar lanes take it from the stored int16 (V2). */
static inline __attribute__((always_inline)) void
csf16_span(const int16_t *restrict s, int16_t *restrict csf, int16_t *restrict flt, int n,
           uint16_t rfac, int diag, int sat)
{
    for (int j = 0; j < n; j++) {
        const int32_t v = adm_csf16_wide(s[j], rfac, diag);
        csf[j] = sat ? adm_sat16(v) : (int16_t)v;
        flt[j] = sat ? adm_csf16_flt_sat(v) : adm_csf16_flt(v);
    }
}

/* Scale 0 csf of one row (the work region's columns) of the bands src into
 * the rows csf, flt. */
static void csf16_row(int isa, const AdmScale *c, const int16_t *const src[3],
                      int16_t *const csf[3], int16_t *const flt[3])
{
    const int jv = adm_lanes_csf(isa, c->work_l, c->work_r);
    const int sat = isa == ADM_ISA_AVX2;
    const int n = jv - c->work_l;
    for (int o = 0; o < 3; o++) {
        const uint16_t rfac = c->rfac16[o];
        if (n > 0) {
            const int16_t *sp = src[o] + c->work_l;
            int16_t *cp = csf[o] + c->work_l, *fp = flt[o] + c->work_l;
            if (o == 2) {
                if (sat) csf16_span(sp, cp, fp, n, rfac, 1, 1);
                else csf16_span(sp, cp, fp, n, rfac, 1, 0);
            } else {
                if (sat) csf16_span(sp, cp, fp, n, rfac, 0, 1);
                else csf16_span(sp, cp, fp, n, rfac, 0, 0);
            }
        }
        for (int j = jv; j < c->work_r; j++) {
            const int16_t v = adm_csf16(src[o][j], rfac, o == 2);
            csf[o][j] = v;
            flt[o][j] = adm_csf16_flt(v);
        }
    }
}

/* Scales 1..3 csf of one row (the work region's columns) of the bands src
 * into the rows csf, flt: the weight read as signed in vector lanes,
 * unsigned in scalar lanes (V4). */
static void csf32_row(int isa, const AdmScale *c, const int32_t *const src[3],
                      int32_t *const csf[3], int32_t *const flt[3])
{
    const int jv = adm_lanes_csf(isa, c->work_l, c->work_r);
    for (int o = 0; o < 3; o++) {
        for (int j = c->work_l; j < jv; j++) {
            const int32_t v = adm_csf32_v(src[o][j], c->rfac32[o]);
            csf[o][j] = v;
            flt[o][j] = adm_csf32_flt(v);
        }
        for (int j = jv; j < c->work_r; j++) {
            const int32_t v = adm_csf32(src[o][j], c->rfac32[o]);
            csf[o][j] = v;
            flt[o][j] = adm_csf32_flt(v);
        }
    }
}

/* ---- den ---------------------------------------------------------------- */

/* den and cm add the totals of rows [i0, i1) into their outputs: integers
 * (cm's wrap in 64 bits as the reference's do), so bands added in any order
 * give the whole region's totals. */

/* den of one row (in the den region) of the reference's bands */
static void den16_row(const AdmScale *c, const int16_t *const ref[3], uint64_t den[3])
{
    for (int o = 0; o < 3; o++) {
        uint64_t acc = 0;
        for (int j = c->l; j < c->r; j++) acc += adm_den16_term(ref[o][j]);
        den[o] += adm_row_round_u(acc, c->den_row_shift, c->den_row_add);
    }
}

static void den32(const AdmScale *c, const Bands32 *ref, uint64_t den[3], int i0, int i1)
{
    for (int o = 0; o < 3; o++) {
        uint64_t total = 0;
        for (int i = adm_max(c->t, i0); i < adm_min(c->b, i1); i++) {
            const int32_t *row = ref->b[o] + (size_t)i * c->w;
            uint64_t acc = 0;
            for (int j = c->l; j < c->r; j++)
                acc += adm_den32_term(row[j], c->den_sq_shift, c->den_cub_shift, c->den_cub_add);
            total += adm_row_round_u(acc, c->den_row_shift, c->den_row_add);
        }
        den[o] += total;
    }
}

/* ---- cm ----------------------------------------------------------------- */

/*
 * Lanes: the golden host's cm kernels take blocks of 14 (scale 0) or 6
 * (scales 1..3) columns from the left of the cm columns, on rows 1 .. h-2
 * only, and only when the cm margin is at least one column; every other
 * coefficient is a scalar lane. Returns the end of the vector lanes of row i
 * (the row's first cm column when it has none).
 */
static int cm_lanes_end(int isa, int scale, const AdmScale *c, int i, int jb, int je)
{
    if (c->l < 1 || i < 1 || i > c->h - 2) return jb;
    return adm_lanes_cm(isa, scale, jb, je);
}

/* One row of interior cm columns (adm_cpu.h): vector lanes [jb, jv),
 * scalar lanes [jv, je). The SIMD levels' row kernels (adm_x86.c) hand the
 * columns that do not fill their blocks to these. */
static void cm16_row_c(const int16_t *const v[3], const int16_t *const cm_[3],
                       const int16_t *const fu[3], const int16_t *const fm[3],
                       const int16_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    for (int j = jb; j < jv; j++) {
        const int32_t thr = adm_cm_thr16(cm_, fu, fm, fd, j - 1, j, j + 1, 1);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o], isa == ADM_ISA_AVX2
                                              ? adm_cm_term_avx2(adm_cm_value16(v[o][j], rfac[o]),
                                                                 thr, sh[o])
                                              : adm_cm_term(adm_cm_value16(v[o][j], rfac[o]), thr,
                                                            sh[o]));
    }
    for (int j = jv; j < je; j++) {
        const int32_t thr = adm_cm_thr16(cm_, fu, fm, fd, j - 1, j, j + 1, 0);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o],
                                  adm_cm_term(adm_cm_value16(v[o][j], rfac[o]), thr, sh[o]));
    }
}

static void cm32_row_c(const int32_t *const v[3], const int32_t *const cm_[3],
                       const int32_t *const fu[3], const int32_t *const fm[3],
                       const int32_t *const fd[3], int jb, int jv, int je, int isa,
                       const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3])
{
    for (int j = jb; j < jv; j++) {
        const int64_t thr = adm_cm_thr32(cm_, fu, fm, fd, j - 1, j, j + 1, isa == ADM_ISA_AVX2);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o], adm_cm_term32_vec(isa, v[o][j], rfac[o], thr, sh[o]));
    }
    for (int j = jv; j < je; j++) {
        const int32_t thr = (int32_t)adm_cm_thr32(cm_, fu, fm, fd, j - 1, j, j + 1, 0);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o],
                                  adm_cm_term(adm_cm_value32(v[o][j], rfac[o]), thr, sh[o]));
    }
}

#ifndef ADM_CM16_ROW
#define ADM_CM16_ROW cm16_row_c
#endif
#ifndef ADM_CM32_ROW
#define ADM_CM32_ROW cm32_row_c
#endif

static __attribute__((unused)) void i64_to_float_c(const int64_t *x, float *out, int n)
{
    for (int i = 0; i < n; i++) out[i] = (float)x[i];
}
#ifndef ADM_I64_TO_FLOAT
#define ADM_I64_TO_FLOAT i64_to_float_c
#endif

/* This level's set (tvmaf_adm_dsp_init). */
const AdmKernels ADM_KERNELS = { ADM_CM16_ROW,   ADM_CM32_ROW,   ADM_DECOUPLE16_ROW,
                                  ADM_DECOUPLE32_ROW, ADM_I64_TO_FLOAT, ADM_DWT0_HROW,
                                  ADM_DWT32_HROW, ADM_DWT32_VROW, ADM_DWT1_VROW, ADM_DWT0_VROW,
                                  ADM_FRAME_SUMS };

/* Masked sums of row i of the values v (h, v, d) with the threshold of its
 * csf row cm_ (centres) and the flt rows fu, fm, fd (rows adm_cm_prev(i), i,
 * adm_cm_next(i): the neighbours), the row's sum rounded and added to out. */
static void cm16_at_row(int isa, const AdmScale *c, int i, const int16_t *const v[3],
                        const int16_t *const cm_[3], const int16_t *const fu[3],
                        const int16_t *const fm[3], const int16_t *const fd[3], int64_t out[3])
{
    int64_t acc[3] = { 0, 0, 0 };
    /* interior columns read j-1 .. j+1 directly; the first and last
     * column of the band (when in the region) mirror their window */
    const int jb = c->l > 1 ? c->l : 1, je = c->r < c->w - 1 ? c->r : c->w - 1;
    const int jv = cm_lanes_end(isa, 0, c, i, jb, je);
    if (je > jb) ADM_CM16_ROW(v, cm_, fu, fm, fd, jb, jv, je, isa, c->rfac16, c->cm, acc);
    const int edge[2] = { c->l == 0 ? 0 : -1, c->r == c->w ? c->w - 1 : -1 };
    for (int e = 0; e < 2; e++) {
        const int j = edge[e];
        if (j < 0) continue;
        const int32_t thr = adm_cm_thr16(cm_, fu, fm, fd, adm_cm_prev(j), j,
                                         adm_cm_next(j, c->w), 0);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o], adm_cm_term(adm_cm_value16(v[o][j], c->rfac16[o]),
                                                      thr, c->cm[o]));
    }
    for (int o = 0; o < 3; o++)
        out[o] = adm_add_wrap(out[o], adm_row_round_s(acc[o], c->cm_row_shift, c->cm_row_add));
}

static void cm32_at_row(int isa, const AdmScale *c, int i, const int32_t *const v[3],
                        const int32_t *const cm_[3], const int32_t *const fu[3],
                        const int32_t *const fm[3], const int32_t *const fd[3], int64_t out[3])
{
    int64_t acc[3] = { 0, 0, 0 };
    /* interior columns read j-1 .. j+1 directly; the first and last
     * column of the band (when in the region) mirror their window */
    const int jb = c->l > 1 ? c->l : 1, je = c->r < c->w - 1 ? c->r : c->w - 1;
    const int jv = cm_lanes_end(isa, 1, c, i, jb, je);
    if (je > jb) ADM_CM32_ROW(v, cm_, fu, fm, fd, jb, jv, je, isa, c->rfac32, c->cm, acc);
    const int edge[2] = { c->l == 0 ? 0 : -1, c->r == c->w ? c->w - 1 : -1 };
    for (int e = 0; e < 2; e++) {
        const int j = edge[e];
        if (j < 0) continue;
        const int32_t thr = (int32_t)adm_cm_thr32(cm_, fu, fm, fd, adm_cm_prev(j), j,
                                                  adm_cm_next(j, c->w), 0);
        for (int o = 0; o < 3; o++)
            acc[o] = adm_add_wrap(acc[o], adm_cm_term(adm_cm_value32(v[o][j], c->rfac32[o]),
                                                      thr, c->cm[o]));
    }
    for (int o = 0; o < 3; o++)
        out[o] = adm_add_wrap(out[o], adm_row_round_s(acc[o], c->cm_row_shift, c->cm_row_add));
}

/* The reference's detail bands in a ladder's shared area: scale 0 (int16)
 * or scales 1..3 (int32). Read only (the Bands types are also written by
 * the stages that fill them). */
static Bands16 area_bands16(const AdmCpu *m, const unsigned char *area)
{
    Bands16 b;
    for (int o = 0; o < 3; o++) b.b[o] = (int16_t *)(area + m->ref_area_off[0][o]);
    return b;
}

static Bands32 area_bands32(const AdmCpu *m, const unsigned char *area, int k)
{
    Bands32 b;
    for (int o = 0; o < 3; o++) b.b[o] = (int32_t *)(area + m->ref_area_off[k][o]);
    return b;
}

typedef struct RefBandsJob {
    AdmCpu *m;
    const TvmafPicture *ref;
} RefBandsJob;

/* Fills a ladder's area with the reference's bands of every scale, with
 * this pair's scratch rows and approximation bands. No scale 1..3 has the
 * DWT defect here (the area's condition), so nothing of the distorted
 * picture is read (dis_src NULL; what dwt32 then saves for a later
 * distorted pass is written again by this pair's own). */
static int ref_bands_fill(void *arg, void *area)
{
    const RefBandsJob *j = arg;
    AdmCpu *m = j->m;
    Bands16 b0 = area_bands16(m, area);
    dwt0(m, &m->slot[0], j->ref, m->ref_a[0], &b0, 0, m->s.sc[0].h);
    for (int k = 1; k < 4; k++) {
        Bands32 bk = area_bands32(m, area, k);
        dwt32(m, &m->slot[0], k, m->ref_a[(k - 1) & 1], m->ref_a[k & 1], &bk, NULL, 0,
              m->s.sc[k].h);
    }
    return 0;
}

/*
 * A scale's rows after its DWT, for the cm rows of one band [i0, i1):
 * decouple and csf (and AIM's csf of the restored band) row by row into the
 * slot's rings of three rows, den of each row, and cm of row i once rows
 * adm_cm_prev(i) .. adm_cm_next(i) are in the rings. Scale 0's DWT runs in
 * the same pass, its detail rows into rings too (the reference's unless a
 * ladder's shared bands hold them) and its approximation rows, the next
 * scale's input, into their plane. No other plane of the frame is written:
 * a row stays in the cache from the DWT to cm, where whole planes of a
 * large frame would not (at 4K the staged planes made vmaf_v1.0.16_3d0h
 * take 15% longer). The rows just outside the band that its cm reads are
 * computed here too, as their own band does (the same integers; the
 * approximation plane is written by the band that owns the row). den and
 * cm add integers per row (cm's modulo 2^64), so the totals do not depend
 * on the order of the rows or on the bands.
 */
enum { RING_R, RING_A, RING_CSF_A, RING_FLT_A, RING_CSF_R, RING_FLT_R, RING_REF, RING_DIS };
_Static_assert(ADM_RING32_ROWS == (RING_FLT_R + 1) * 9 && ADM_RING16_ROWS == (RING_DIS + 1) * 9,
               "the slots' rings hold every kind");

/* The three orientations' rows of one kind for band row `row` (the ring
 * slot row % 3), rows of w elements. */
static size_t ring_at(int w, int kind, int row, int o)
{
    return (size_t)((kind * 3 + row % 3) * 3 + o) * (size_t)w;
}

static void ring16(const AdmSlot *sl, int w, int kind, int row, int16_t *p[3])
{
    for (int o = 0; o < 3; o++) p[o] = sl->ring16 + ring_at(w, kind, row, o);
}

static void ring32(const AdmSlot *sl, int w, int kind, int row, int32_t *p[3])
{
    for (int o = 0; o < 3; o++) p[o] = sl->ring32 + ring_at(w, kind, row, o);
}

typedef struct AdmRowPipe {
    const AdmCpu *m;
    AdmSlot *sl;
    const AdmScale *c;
    int k, aim;
    int i0, i1;          /* the band */
    int need0, need1;    /* the rows cm reads: decoupled and csf'd */
    const TvmafPicture *ref, *dis; /* scale 0: the DWT's input */
    const Bands16 *ref0; /* scale 0: the reference's bands when kept whole (a
                          * ladder's shared area), else NULL: in the ring */
    const Bands32 *refk; /* scales 1..3 */
} AdmRowPipe;

/* The reference's scale 0 detail rows of row i. */
static void pipe_ref16(const AdmRowPipe *p, int i, int16_t *o[3])
{
    if (p->ref0) {
        for (int q = 0; q < 3; q++) o[q] = p->ref0->b[q] + (size_t)i * p->c->w;
    } else {
        ring16(p->sl, p->c->w, RING_REF, i, o);
    }
}

#define ADM_C16(x) ((const int16_t *const *)(x))
#define ADM_C32(x) ((const int32_t *const *)(x))

/* Row i: scale 0's DWT; where cm reads it, decouple and csf into the rings */
static void pipe_produce(const AdmRowPipe *p, int i)
{
    const AdmCpu *m = p->m;
    const AdmScale *c = p->c;
    const AdmSlot *sl = p->sl;
    const int isa = m->s.isa, w = c->w;
    const int cm_row = i >= p->need0 && i <= p->need1;
    if (p->k == 0) {
        /* the approximation row into the plane if the band owns it */
        const int own = i >= p->i0 && i < p->i1;
        const size_t x0 = (size_t)i * (size_t)w;
        int16_t *o[3], *t[3], *r[3], *a[3], *cs[3], *fl[3];
        ring16(sl, w, RING_DIS, i, t);
        dwt0_row(m, sl, p->dis, i, own ? m->dis_a[0] + x0 : sl->lo32, t);
        if (!p->ref0) {
            ring16(sl, w, RING_REF, i, o);
            dwt0_row(m, sl, p->ref, i, own ? m->ref_a[0] + x0 : sl->lo32, o);
        }
        if (!cm_row) return;
        pipe_ref16(p, i, o);
        ring16(sl, w, RING_R, i, r);
        ring16(sl, w, RING_A, i, a);
        decouple16_row(m, c, ADM_C16(o), ADM_C16(t), r, a);
        ring16(sl, w, RING_CSF_A, i, cs);
        ring16(sl, w, RING_FLT_A, i, fl);
        csf16_row(isa, c, ADM_C16(a), cs, fl);
        if (p->aim) {
            ring16(sl, w, RING_CSF_R, i, cs);
            ring16(sl, w, RING_FLT_R, i, fl);
            csf16_row(isa, c, ADM_C16(r), cs, fl);
        }
    } else {
        if (!cm_row) return;
        int32_t *r[3], *a[3], *cs[3], *fl[3];
        ring32(sl, w, RING_R, i, r);
        ring32(sl, w, RING_A, i, a);
        decouple32_row(m, c, p->refk, &m->dis, i, r, a);
        ring32(sl, w, RING_CSF_A, i, cs);
        ring32(sl, w, RING_FLT_A, i, fl);
        csf32_row(isa, c, ADM_C32(a), cs, fl);
        if (p->aim) {
            ring32(sl, w, RING_CSF_R, i, cs);
            ring32(sl, w, RING_FLT_R, i, fl);
            csf32_row(isa, c, ADM_C32(r), cs, fl);
        }
    }
}

/* den and cm of row i (cm of the restored band with the csf of the
 * artifacts; AIM: of the artifacts with the csf of the restored band) */
static void pipe_consume(const AdmRowPipe *p, int i)
{
    const AdmScale *c = p->c;
    const AdmSlot *sl = p->sl;
    const int isa = p->m->s.isa, w = c->w;
    const int up = adm_cm_prev(i), dn = adm_cm_next(i, c->h);
    if (p->k == 0) {
        int16_t *o[3];
        pipe_ref16(p, i, o);
        den16_row(c, ADM_C16(o), p->sl->den);
    } else {
        den32(c, p->refk, p->sl->den, i, i + 1);
    }
    for (int pass = 0; pass < 1 + p->aim; pass++) {
        const int val = pass ? RING_A : RING_R, csf = pass ? RING_CSF_R : RING_CSF_A;
        const int flt = pass ? RING_FLT_R : RING_FLT_A;
        int64_t *out = pass ? p->sl->aim : p->sl->num;
        if (p->k == 0) {
            int16_t *v[3], *cm_[3], *fu[3], *fm[3], *fd[3];
            ring16(sl, w, val, i, v);
            ring16(sl, w, csf, i, cm_);
            ring16(sl, w, flt, up, fu);
            ring16(sl, w, flt, i, fm);
            ring16(sl, w, flt, dn, fd);
            cm16_at_row(isa, c, i, ADM_C16(v), ADM_C16(cm_), ADM_C16(fu), ADM_C16(fm),
                        ADM_C16(fd), out);
        } else {
            int32_t *v[3], *cm_[3], *fu[3], *fm[3], *fd[3];
            ring32(sl, w, val, i, v);
            ring32(sl, w, csf, i, cm_);
            ring32(sl, w, flt, up, fu);
            ring32(sl, w, flt, i, fm);
            ring32(sl, w, flt, dn, fd);
            cm32_at_row(isa, c, i, ADM_C32(v), ADM_C32(cm_), ADM_C32(fu), ADM_C32(fm),
                        ADM_C32(fd), out);
        }
    }
}

#undef ADM_C16
#undef ADM_C32

/* The rows of a band: at scale 0 every row of [i0, i1) (the DWT), at every
 * scale the rows cm reads; each produced once, in order, before the cm
 * rows that read it. cm's neighbours lie inside the work region
 * (adm_work_range), so every row decoupled is in it. */
static void pipe_band(AdmRowPipe *p, int i0, int i1, int skip_cm)
{
    const AdmScale *c = p->c;
    const int cb = skip_cm ? 0 : adm_max(c->t, i0), ce = skip_cm ? 0 : adm_min(c->b, i1);
    p->i0 = i0;
    p->i1 = i1;
    p->need0 = cb < ce ? adm_min(adm_cm_prev(cb), cb) : 1;
    p->need1 = cb < ce ? adm_cm_next(ce - 1, c->h) : 0;
    const int dwt = p->k == 0;
    int next = !dwt ? p->need0 : cb < ce ? adm_min(i0, p->need0) : i0;
    for (int i = cb; i < ce; i++) {
        for (const int need = adm_cm_next(i, c->h); next <= need; next++) pipe_produce(p, next);
        pipe_consume(p, i);
    }
    if (dwt)
        for (; next < i1; next++) pipe_produce(p, next);
}

/*
 * A scale's stages as team jobs (core/team.h), each over bands of the
 * scale's rows: at scales 1..3 the DWTs (distorted, then reference, as
 * bands of their own), whose planes the next job reads, then the rest of
 * the scale row by row (pipe_band), each band reading the DWT's rows a few
 * above and below its own; at scale 0 one job, its DWTs in the rows. A
 * slot's den and cm totals are integers added band by band, so the frame's
 * totals do not depend on the thread that ran a band.
 */
enum { ADM_PHASE_DWT, ADM_PHASE_ROWS };

typedef struct AdmScaleJob {
    AdmCpu *m;
    int k, phase;
    const TvmafPicture *ref, *dis;
    Bands16 ref0;    /* scale 0's reference bands, from a ladder's shared area */
    int ref0_area;   /* whether ref0 holds them (else the rows compute them) */
    Bands32 refk;    /* scales 1..3 */
    unsigned n_bands; /* the DWT's items: the distorted's bands, then the
                       * reference's */
} AdmScaleJob;

static void scale_item(void *arg, unsigned item, unsigned slot)
{
    const AdmScaleJob *j = arg;
    AdmCpu *m = j->m;
    AdmSlot *sl = &m->slot[slot];
    const AdmState *s = &m->s;
    const AdmScale *c = &s->sc[j->k];
    const int k = j->k, b = (int)(item % j->n_bands);
    const int i0 = (int)tvmaf_band_row((unsigned)b, j->n_bands, (unsigned)c->h);
    const int i1 = (int)tvmaf_band_row((unsigned)b + 1, j->n_bands, (unsigned)c->h);
    const bool is_ref = item >= j->n_bands;
    const int in = (k - 1) & 1, out = k & 1;
    switch (j->phase) {
    case ADM_PHASE_DWT:
        if (is_ref) {
            dwt32(m, sl, k, m->ref_a[in], m->ref_a[out], &m->ref, m->dis_a[in], i0, i1);
        } else {
            dwt32(m, sl, k, m->dis_a[in], m->dis_a[out], &m->dis, NULL, i0, i1);
        }
        break;
    default: {
        AdmRowPipe p = { .m = m, .sl = sl, .c = c, .k = k, .aim = !s->skip_aim,
                         .ref = j->ref, .dis = j->dis, .ref0 = j->ref0_area ? &j->ref0 : NULL,
                         .refk = &j->refk };
        pipe_band(&p, i0, i1, k == 0 && s->skip_scale0);
        break;
    }
    }
}

static void run_phase(AdmScaleJob *j, int phase, unsigned n_items)
{
    j->phase = phase;
    tvmaf_team_run(j->m->team, n_items, scale_item, j);
}

/* The integer totals of one frame, every scale. */
static void ADM_FRAME_SUMS(AdmCpu *m, const TvmafPicture *ref, const TvmafPicture *dis,
                           AdmScaleSums sums[4])
{
    const AdmState *s = &m->s;
    memset(sums, 0, 4 * sizeof(AdmScaleSums));
    const void *area = NULL;
    for (int k = 0; k < 4; k++) {
        const AdmScale *c = &s->sc[k];
        AdmScaleJob j = { .m = m, .k = k, .ref = ref, .dis = dis, .refk = m->ref };
        j.n_bands = tvmaf_team_bands(m->team, (unsigned)c->h, ADM_MIN_BAND_ROWS);
        for (unsigned t = 0; t < m->n_slots; t++) {
            memset(m->slot[t].den, 0, sizeof(m->slot[t].den));
            memset(m->slot[t].num, 0, sizeof(m->slot[t].num));
            memset(m->slot[t].aim, 0, sizeof(m->slot[t].aim));
        }
        if (k == 0) {
            /* a ladder's reference bands, kept with the picture (area NULL:
             * not kept; the rows compute them; ref_bands_fill cannot fail;
             * key 0: the bands depend on the picture alone,
             * adm_ref_bands_shareable); scale 0's DWTs run with its rows */
            if (m->ref_area_bytes) {
                RefBandsJob job = { m, ref };
                (void)tvmaf_picture_once_area(ref, &tvmaf_adm_ref_bands_tag, 0,
                                              m->ref_area_bytes, ref_bands_fill, &job, &area);
            }
            if (area) {
                j.ref0 = area_bands16(m, area);
                j.ref0_area = 1;
            }
        } else {
            if (area) j.refk = area_bands32(m, area, k);
            /* the distorted's bands and, unless in the area, the
             * reference's: they write apart, and read only what the scale
             * before left */
            run_phase(&j, ADM_PHASE_DWT, (area ? 1 : 2) * j.n_bands);
            memcpy(m->prev_dis_lo, m->last_dis_lo, sizeof(m->prev_dis_lo));
        }
        run_phase(&j, ADM_PHASE_ROWS, j.n_bands);
        for (unsigned t = 0; t < m->n_slots; t++) {
            for (int o = 0; o < 3; o++) {
                sums[k].den[o] += m->slot[t].den[o];
                sums[k].num[o] = adm_add_wrap(sums[k].num[o], m->slot[t].num[o]);
                sums[k].aim[o] = adm_add_wrap(sums[k].aim[o], m->slot[t].aim[o]);
            }
        }
    }
}

#endif /* TVMAF_ADM_STAGES_H */
