/*
 * adm on the CPU: the stages' state (AdmCpu) and the kernels that have SIMD
 * versions, one set per level: the C set (adm.c) and, on x86-64, one per
 * SIMD level (adm_x86.c). Both compile the stages of adm_stages.h, so each
 * set holds its level's row kernels and the frame's stages built with them
 * (frame_sums). tvmaf_adm_dsp_init picks the set; tests/checkasm/adm.c
 * compares every level's against C.
 *
 * cm rows: the masked terms of one row of the interior cm columns [jb, je)
 * (1 <= jb, je <= w - 1: every column's 3x3 window lies in the band without
 * mirroring columns), with vector lanes (adm_math.h, "Vector and scalar
 * lanes") [jb, jv) and scalar lanes [jv, je) of the build isa, each
 * orientation's terms added into acc[o] modulo 2^64. val[o], csf[o] point at
 * the row, fu/fm/fd[o] at the flt rows above, at and below it (mirrored by
 * the caller). The SIMD sets return the C set's sums (and decouple its
 * values) for any input.
 */
#ifndef TVMAF_ADM_CPU_H
#define TVMAF_ADM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"

struct AdmCpu;

typedef struct AdmKernels {
    /* scale 0, int16 bands */
    void (*cm16_row)(const int16_t *const val[3], const int16_t *const csf[3],
                     const int16_t *const fu[3], const int16_t *const fm[3],
                     const int16_t *const fd[3], int jb, int jv, int je, int isa,
                     const uint16_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);
    /* scales 1..3, int32 bands */
    void (*cm32_row)(const int32_t *const val[3], const int32_t *const csf[3],
                     const int32_t *const fu[3], const int32_t *const fm[3],
                     const int32_t *const fd[3], int jb, int jv, int je, int isa,
                     const uint32_t rfac[3], const AdmCmShift sh[3], int64_t acc[3]);
    /* scale 0 decouple of one row, columns [jb, je), vector lanes (the gain
     * rounding, V1) before jv: adm_decouple16_at of each column. recip
     * points at the reciprocal table's entry of 0. */
    void (*decouple16_row)(const int16_t *const o[3], const int16_t *const t[3],
                           int16_t *const r[3], int16_t *const a[3], int jb, int je, int jv,
                           const int32_t *recip, float cos_1deg_sq, double egl);
    /* scales 1..3 decouple of one row, likewise: adm_decouple32_at */
    void (*decouple32_row)(const int32_t *const o[3], const int32_t *const t[3],
                           int32_t *const r[3], int32_t *const a[3], int jb, int je, int jv,
                           const int32_t *recip, float cos_1deg_sq, double egl);
    /* (float) of n int64 values, as the C's conversion: the decouple's dot
     * products take it at every level (AVX2 builds it, see i64_ps4) */
    void (*i64_to_float)(const int64_t *x, float *out, int n);
    /* the DWT: scale 0's horizontal pass over the interior outputs [jb, je)
     * of a row (taps 2j-1 .. 2j+2 of the low and high rows: a, v and h, d),
     * the same for scales 1..3 with their rounding (add, shift), and their
     * vertical pass over n columns of four rows */
    void (*dwt0_hrow)(const int16_t *lo, const int16_t *hi, int jb, int je, int32_t *a,
                      int16_t *v, int16_t *h, int16_t *d);
    void (*dwt32_hrow)(const int32_t *lo, const int32_t *hi, int jb, int je, int32_t add,
                       int shift, int32_t *a, int32_t *v, int32_t *h, int32_t *d);
    void (*dwt32_vrow)(const int32_t *const row[4], int n, int32_t add, int shift,
                       int32_t *lo, int32_t *hi);
    /* dwt32_vrow at scale 1 (no rounding), whose rows are scale 0's
     * approximation band: every value within +-ADM_DWT0_A_MAX, so each sum
     * is below 2^31 and the products may be formed from 16-bit halves */
    void (*dwt1_vrow)(const int32_t *const row[4], int n, int32_t *lo, int32_t *hi);
    /* scale 0's vertical pass over w columns of four rows of bpc-bit
     * samples (uint8 at 8 bits, uint16 above): adm_dwt0_vert of each */
    void (*dwt0_vrow)(const void *const row[4], int w, int bpc, int16_t *lo, int16_t *hi);
    /* the integer totals of one frame, every scale: the stages built with
     * this set's row kernels */
    void (*frame_sums)(struct AdmCpu *m, const TvmafPicture *ref, const TvmafPicture *dis,
                       AdmScaleSums sums[4]);
} AdmKernels;

extern const AdmKernels tvmaf_adm_kernels_c;
#if TVMAF_X86_SIMD
extern const AdmKernels tvmaf_adm_kernels_avx2, tvmaf_adm_kernels_avx512,
    tvmaf_adm_kernels_avx512icl;
#endif

/* Fills c with the set for these CPU flags (core/cpu.h): the C set, then
 * each x86 level (TVMAF_DSP_INIT_X86, core/cpu.h). The extractor and
 * tests/checkasm call it. */
void tvmaf_adm_dsp_init(AdmKernels *c, unsigned cpu_flags);

/* Detail bands of one picture or one decoupled part: h, v, d. */
typedef struct Bands16 { int16_t *b[3]; } Bands16;
typedef struct Bands32 { int32_t *b[3]; } Bands32;

/* What one thread of a frame's team works with (core/team.h): the DWT's
 * scratch rows, and the den and cm totals of the bands it ran. */
/* Rows of a slot's rings (AdmSlot), for bands w wide. */
#define ADM_RING16_ROWS (8 * 3 * 3)
#define ADM_RING32_ROWS (6 * 3 * 3)

typedef struct AdmSlot {
    int16_t *lo16, *hi16; /* scale 0 */
    /* the rows of a band (pipe_band, adm_stages.h): rings of three rows of
     * each kind, three orientations each, of scale 0's width (ring16: the
     * DWT's detail rows of both pictures, then r, a, and csf and flt of
     * each) and of scale 1's (ring32, scales 1..3: r, a, and csf and flt of
     * each; their DWT runs as a job of its own) */
    int16_t *ring16;
    int32_t *ring32;
    int32_t *lo32, *hi32; /* scales 1..3 */
    uint64_t den[3];
    int64_t num[3], aim[3];
    char pad[64]; /* slots written by different threads on separate lines */
} AdmSlot;

/* The fewest rows of a band of a team job: smaller ones would cost more to
 * hand out than they share. */
#define ADM_MIN_BAND_ROWS 16

typedef struct AdmCpu {
    AdmState s;
    int32_t *recip_table; /* 65537 entries; recip = recip_table + 32768 */
    const int32_t *recip;
    void *mem;
    TvmafTeam *team;
    AdmSlot *slot; /* tvmaf_team_size(team) of them */
    unsigned n_slots;
    /* approximation bands (next scale's input) of reference and distorted,
     * two of each to alternate between scales */
    int32_t *ref_a[2], *dis_a[2];
    /* scales 1..3 */
    int32_t prev_dis_lo[4]; /* last distorted low row of the previous scale, columns 0..3 */
    int32_t last_dis_lo[4]; /* ... of this scale, once its DWT has run */
    Bands32 ref, dis;
    /* A ladder's pair (the reference pictures are shared with other
     * contexts) where no scale 1..3 has the DWT defect: the reference's
     * detail bands of every scale, a function of the picture alone, are kept
     * with the picture (tvmaf_picture_once_area) by the first pair to need
     * them, and read by the others. 0 bytes: computed per pair. */
    size_t ref_area_bytes;
    size_t ref_area_off[4][3]; /* each band's offset in the area */
    /* the kernels and stages of the context's SIMD level */
    AdmKernels k;
} AdmCpu;

/* what a ladder's shared reference bands are kept under: one address for
 * every SIMD level, whose DWTs give the same integers */
extern const char tvmaf_adm_ref_bands_tag;

#endif /* TVMAF_ADM_CPU_H */
