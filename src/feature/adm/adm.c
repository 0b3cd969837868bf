/*
 * adm on the CPU: libvmaf's integer ADM (integer_adm2, integer_aim,
 * integer_adm3, integer_adm_scale0..3 and the debug outputs), equal to the
 * reference bit for bit as computed on the goldens' host (AVX-512 kernels;
 * their few departures from the scalar C path are reproduced column by
 * column, see adm_math.h, "Vector and scalar lanes").
 *
 * Each scale runs its stages over whole bands (dwt, decouple, den, csf, cm;
 * csf and cm once more with the roles of the decoupled bands swapped for AIM).
 * The stages produce exact integer totals per scale (AdmScaleSums);
 * tvmaf_adm_report turns them into the float/double scores. The stages
 * themselves are in adm_stages.h, which adm_x86.c compiles per SIMD level.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf_config.h"
#include "core/cpu.h"
#include "core/feature_name.h"
#include "core/picture_pool.h"
#include "feature/adm/adm_cpu.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_stages.h"

/* ------------------------------------------------------------------------ */
/* Options, setup and the floating-point finish (shared by every backend)   */
/* ------------------------------------------------------------------------ */

#define ADM_FP TVMAF_OPT_FEATURE_PARAM

const TvmafOption tvmaf_adm_options[] = {
    { "debug", "debug mode: enable additional output",
      offsetof(AdmState, debug), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "adm_csf_scale", "scale coefficient for the horizontal & vertical direction terms of CSF",
      offsetof(AdmState, csf_scale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 50.0, ADM_FP, "scf" },
    { "adm_csf_diag_scale", "scale coefficient for the diagonal direction term of CSF",
      offsetof(AdmState, csf_diag_scale), TVMAF_OPT_DOUBLE, { .d = 1.0 }, 0.0, 50.0, ADM_FP,
      "scfd" },
    { "adm_dlm_weight", "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
      offsetof(AdmState, dlm_weight), TVMAF_OPT_DOUBLE, { .d = 0.5 }, 0.0, 1.0, ADM_FP, "dlmw" },
    { "adm_enhn_gain_limit", "enhancement gain imposed on adm, must be >= 1.0, "
      "where 1.0 means the gain is completely disabled",
      offsetof(AdmState, enhn_gain_limit), TVMAF_OPT_DOUBLE, { .d = 100.0 }, 1.0, 100.0, ADM_FP,
      "egl" },
    { "adm_norm_view_dist",
      "normalized viewing distance = viewing distance / ref display's physical height",
      offsetof(AdmState, norm_view_dist), TVMAF_OPT_DOUBLE, { .d = 3.0 }, 0.75, 24.0, ADM_FP,
      "nvd" },
    { "adm_ref_display_height", "reference display height in pixels",
      offsetof(AdmState, ref_display_height), TVMAF_OPT_INT, { .i = 1080 }, 1, 4320, ADM_FP,
      "rdh" },
    { "adm_csf_mode", "contrast sensitivity function",
      offsetof(AdmState, csf_mode), TVMAF_OPT_INT, { .i = ADM_CSF_WATSON97 }, 0, 3, ADM_FP,
      "csf" },
    { "adm_noise_weight", "noise weight",
      offsetof(AdmState, noise_weight), TVMAF_OPT_DOUBLE, { .d = 0.03125 }, 0.0, 1500.0, ADM_FP,
      "nw" },
    { "adm_skip_aim", "skip the calculation of AIM",
      offsetof(AdmState, skip_aim), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "adm_skip_scale0", "skip the calculation of scale 0",
      offsetof(AdmState, skip_scale0), TVMAF_OPT_BOOL, { .b = false }, 0, 0, ADM_FP, "ssz" },
    { "adm_min_val", "minimum value allowed; lower values will be clipped to this value",
      offsetof(AdmState, min_val), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 1.0, ADM_FP, "min" },
    { "reference_isa", "which libvmaf build to reproduce: avx512 (the goldens' host), avx2 or c "
      "(scalar); they differ at some widths",
      offsetof(AdmState, reference_isa), TVMAF_OPT_STRING, { .s = "avx512" }, 0, 0, 0, NULL },
    { 0 },
};

/* Output names, in the order the reference appends them. */
enum {
    KEY_ADM2, KEY_AIM, KEY_ADM3, KEY_SCALE0, /* .. KEY_SCALE0 + 3 */
    KEY_ADM = 7, KEY_NUM, KEY_DEN, KEY_NUM_SCALE0, /* num, den alternating per scale */
};

static const char *const adm_key_names[ADM_N_KEYS] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score", "integer_adm_scale0", "integer_adm_scale1",
    "integer_adm_scale2", "integer_adm_scale3", "integer_adm", "integer_adm_num",
    "integer_adm_den", "integer_adm_num_scale0", "integer_adm_den_scale0",
    "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2",
    "integer_adm_den_scale2", "integer_adm_num_scale3", "integer_adm_den_scale3",
};

/* (uint32_t)ceil(log2(n) - sub) and the matching (uint32_t)pow(2, shift - 1),
 * with the reference's conversions. */
static uint32_t ceil_log2(int n, int sub)
{
    return adm_x86_to_u32(ceil(log2(n) - sub));
}

static uint32_t half_of_pow2(uint32_t shift)
{
    return adm_x86_to_u32(pow(2, (uint32_t)(shift - 1u)));
}

static void setup_scale(AdmState *s, int k, int in_w, int in_h)
{
    AdmScale *c = &s->sc[k];
    c->in_w = in_w;
    c->in_h = in_h;
    c->w = (in_w + 1) / 2;
    c->h = (in_h + 1) / 2;
    adm_work_range(c->w, &c->work_l, &c->work_r);
    adm_work_range(c->h, &c->work_t, &c->work_b);
    c->l = adm_border(c->w);
    c->r = c->w - c->l;
    c->t = adm_border(c->h);
    c->b = c->h - c->t;

    const float f1 = adm_csf_weight(s->csf_mode, k, 0, s->norm_view_dist, s->ref_display_height,
                                    s->csf_scale, s->csf_diag_scale);
    const float f2 = adm_csf_weight(s->csf_mode, k, 1, s->norm_view_dist, s->ref_display_height,
                                    s->csf_scale, s->csf_diag_scale);
    c->weight[0] = f1;
    c->weight[1] = f1;
    c->weight[2] = f2;

    if (k == 0) {
        /* the reference pins the Q21/Q23 weights of the default condition */
        if (fabs(s->norm_view_dist * s->ref_display_height - 3.0 * 1080) < 1.0e-8 &&
            s->csf_mode == ADM_CSF_WATSON97) {
            c->rfac16[0] = 36453;
            c->rfac16[1] = 36453;
            c->rfac16[2] = 49417;
        } else {
            c->rfac16[0] = adm_x86_to_u16(c->weight[0] * pow(2, 21));
            c->rfac16[1] = adm_x86_to_u16(c->weight[1] * pow(2, 21));
            c->rfac16[2] = adm_x86_to_u16(c->weight[2] * pow(2, 23));
        }
        const int area = (c->b - c->t) * (c->r - c->l);
        int32_t sh = (int32_t)ceil(log2(area) - 20);
        sh = sh > 0 ? sh : 0;
        c->den_row_shift = sh;
        c->den_row_add = sh > 0 ? (uint64_t)(1 << (sh - 1)) : 0;
        c->den_sq_shift = c->den_cub_shift = 0;
        c->den_cub_add = 0;

        const uint32_t cub_hv = ceil_log2(c->w, 4), cub_d = ceil_log2(c->w, 3);
        c->cm[0] = (AdmCmShift){ 10, 29, (int)cub_hv, half_of_pow2(cub_hv) };
        c->cm[1] = c->cm[0];
        c->cm[2] = (AdmCmShift){ 12, 30, (int)cub_d, half_of_pow2(cub_d) };
    } else {
        /* Q32 weights as the golden host's AVX-512 kernels convert them (V0,
         * adm_math.h): saturating, where the scalar build (and AVX2's, compiled
         * without AVX-512F) wraps */
        for (int o = 0; o < 3; o++)
            c->rfac32[o] = s->isa == ADM_ISA_AVX512 ? adm_avx512_to_u32(c->weight[o] * pow(2, 32))
                                                    : adm_x86_to_u32(c->weight[o] * pow(2, 32));
        const uint32_t cub = ceil_log2(c->r - c->l, 0), row = ceil_log2(c->b - c->t, 0);
        c->den_sq_shift = adm_den_sq_shift(k);
        c->den_cub_shift = (int)cub;
        c->den_cub_add = half_of_pow2(cub);
        c->den_row_shift = (int)row;
        c->den_row_add = half_of_pow2(row);

        const uint32_t cm_cub = ceil_log2(c->w, 0);
        for (int o = 0; o < 3; o++) c->cm[o] = (AdmCmShift){ 0, 30, (int)cm_cub, half_of_pow2(cm_cub) };
    }
    const uint32_t row = ceil_log2(c->h, 0);
    c->cm_row_shift = (int)row;
    c->cm_row_add = half_of_pow2(row);
}

int tvmaf_adm_setup(AdmState *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (!strcmp(s->reference_isa, "avx512")) s->isa = ADM_ISA_AVX512;
    else if (!strcmp(s->reference_isa, "avx2")) s->isa = ADM_ISA_AVX2;
    else if (!strcmp(s->reference_isa, "c")) s->isa = ADM_ISA_C;
    else {
        snprintf(msg, len, "feature \"adm\": reference_isa \"%s\" is not one of avx512, avx2, c",
                 s->reference_isa);
        return -EINVAL;
    }
    /* the 16-bit scale 0 pipeline cannot represent the CSF of a coarser
     * angular resolution than 1080 lines seen at 3 heights */
    if (s->norm_view_dist * s->ref_display_height < 3.0 * 1080) {
        snprintf(msg, len, "feature \"adm\": adm_norm_view_dist x adm_ref_display_height = %g x "
                 "%d is below the supported minimum of 3 x 1080 = 3240", s->norm_view_dist,
                 s->ref_display_height);
        return -EINVAL;
    }
    if (vi->w < ADM_MIN_SIDE || vi->h < ADM_MIN_SIDE) {
        snprintf(msg, len, "feature \"adm\" needs a frame of at least %dx%d (its 4-scale wavelet "
                 "needs 5 samples at the coarsest scale); the input is %ux%u", ADM_MIN_SIDE,
                 ADM_MIN_SIDE, vi->w, vi->h);
        return -EINVAL;
    }
    if (vi->bpc < 8 || vi->bpc > 16) {
        snprintf(msg, len, "feature \"adm\" supports 8 to 16 bits per sample; the input has %u",
                 vi->bpc);
        return -EINVAL;
    }
    s->w = vi->w;
    s->h = vi->h;
    s->bpc = vi->bpc;
    s->cos_1deg_sq = cos(1.0 * M_PI / 180.0) * cos(1.0 * M_PI / 180.0);
    int w = (int)vi->w, h = (int)vi->h;
    for (int k = 0; k < 4; k++) {
        setup_scale(s, k, w, h);
        w = s->sc[k].w;
        h = s->sc[k].h;
    }
    /* the DWT defect's reads of memory nothing wrote (adm_math.h, "Which
     * reference build"), where their values reach the scores */
    const AdmScale *c0 = &s->sc[0], *c1 = &s->sc[1];
    const int u0 = !s->skip_scale0 && c0->r >= c0->w - 1
                   && adm_dwt_reads_past(c0->w, adm_dwt_block(s->isa, 0, (int)s->bpc));
    const int u1 = c1->r >= c1->w - 1
                   && adm_dwt_reads_past(c1->w, adm_dwt_block(s->isa, 1, (int)s->bpc));
    if (u0 || u1)
        fprintf(stderr, "tvmaf NOTE adm: at width %u (%u bits) libvmaf's %s ADM reads memory "
                "that nothing wrote (scale %d DWT, last column): its scores depend on the heap; "
                "adm reads it as 0, as a fresh libvmaf process does%s\n", s->w, s->bpc,
                s->isa == ADM_ISA_AVX512 ? "AVX-512" : "AVX2", u0 ? 0 : 1,
                u0 ? " on the first frame (later frames: the previous frame's leftovers, not "
                "reproduced)" : "");
    for (int i = 0; i < ADM_N_KEYS; i++) {
        if (tvmaf_feature_key(s->key[i], ADM_KEY_LEN, adm_key_names[i], tvmaf_adm_options, s)) {
            snprintf(msg, len, "feature \"adm\": output key name too long");
            return -EINVAL;
        }
    }
    return 0;
}

/* Scale scores (num, den, aim) from the integer totals, in the reference's
 * float/double steps. */
static void finish_scale(const AdmState *s, int k, const AdmScaleSums *q, float *num,
                         float *den, float *aim)
{
    const AdmScale *c = &s->sc[k];
    const int area = (c->b - c->t) * (c->r - c->l);

    /* den: the cube sums still carry 2^(3*6) (scale 0) or 2^(32|27|23)
     * (scales 1..3) less the shifts already applied */
    double den_div;
    if (k == 0)
        den_div = pow(2, 18 - c->den_row_shift);
    else
        den_div = adm_pow2u((uint32_t)(k == 1 ? 32 : k == 2 ? 27 : 23) - (uint32_t)c->den_row_shift
                            - (uint32_t)c->den_cub_shift);
    const float den_noise = powf(area * s->noise_weight, 1.0f / 3.0f);
    float d[3];
    for (int o = 0; o < 3; o++) {
        const double csf = (double)(q->den[o] / den_div) * pow(c->weight[o], 3);
        d[o] = powf(csf, 1.0f / 3.0f) + den_noise;
    }
    *den = d[0] + d[1] + d[2];

    /* num and aim: the masked cube sums carry 2^52 (h, v) / 2^57 (d) at
     * scale 0, 2^45 / 2^39 / 2^36 at scales 1..3, less the shifts applied */
    const uint32_t rows = (uint32_t)c->cm_row_shift;
    float f_num[3], f_aim[3];
    if (k == 0) {
        for (int o = 0; o < 3; o++) {
            const double div = adm_pow2u((o == 2 ? 57u : 52u) - (uint32_t)c->cm[o].cub - rows);
            f_num[o] = (float)(q->num[o] / div);
            f_aim[o] = (float)(q->aim[o] / div);
        }
    } else {
        const float div = adm_pow2u((k == 1 ? 45u : k == 2 ? 39u : 36u) - (uint32_t)c->cm[0].cub
                                    - rows);
        for (int o = 0; o < 3; o++) {
            /* int64 / float: the total is rounded to float first */
            f_num[o] = (float)q->num[o] / div;
            f_aim[o] = (float)q->aim[o] / div;
        }
    }
    float n[3], a[3];
    for (int o = 0; o < 3; o++) {
        n[o] = powf(f_num[o], 1.0f / 3.0f) + powf(area * s->noise_weight, 1.0f / 3.0f);
        a[o] = powf(f_aim[o], 1.0f / 3.0f) + powf(area * 0.0, 1.0f / 3.0f);
    }
    *num = n[0] + n[1] + n[2];
    *aim = a[0] + a[1] + a[2];
}

unsigned tvmaf_adm_values(const AdmState *s, const AdmScaleSums sums[4],
                          double values[ADM_N_KEYS])
{
    double num = 0, den = 0, aim_num = 0;
    double part[8];
    for (int k = 0; k < 4; k++) {
        float n = 0.0f, d = 0.0f, a = 0.0f;
        if (k == 0 && s->skip_scale0) {
            d = 1e-10; /* keeps scale 0's ratio finite */
        } else {
            finish_scale(s, k, &sums[k], &n, &d, &a);
            if (s->skip_aim) a = 0.0f;
        }
        num += n;
        den += d;
        aim_num += a;
        part[2 * k] = n;
        part[2 * k + 1] = d;
    }
    const double limit = 1e-10 * (int)(s->w * s->h) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    double score, score_aim;
    if (den == 0.0) {
        /* the reference leaves its aim score unset here (uninitialised); 0 is
         * the value of no additive impairment, matching score 1 */
        score = 1.0f;
        score_aim = 0.0;
    } else {
        score_aim = aim_num / den;
        score = num / den;
    }
    const double adm3_raw = score * s->dlm_weight + (1 - score_aim) * (1 - s->dlm_weight);
    const double adm3 = adm3_raw > s->min_val ? adm3_raw : s->min_val;

    values[KEY_ADM2] = score;
    values[KEY_AIM] = score_aim;
    values[KEY_ADM3] = adm3;
    for (int k = 0; k < 4; k++) values[KEY_SCALE0 + k] = part[2 * k] / part[2 * k + 1];
    if (!s->debug) return KEY_ADM;
    values[KEY_ADM] = score;
    values[KEY_NUM] = num;
    values[KEY_DEN] = den;
    for (int i = 0; i < 8; i++) values[KEY_NUM_SCALE0 + i] = part[i];
    return ADM_N_KEYS;
}

int tvmaf_adm_report(const AdmState *s, const AdmScaleSums sums[4], unsigned index,
                     TvmafSink *sink)
{
    double values[ADM_N_KEYS];
    const unsigned n = tvmaf_adm_values(s, sums, values);
    int err = 0;
    for (unsigned q = 0; q < n; q++) err |= tvmaf_sink_append(sink, s->key[q], index, values[q]);
    return err ? -EINVAL : 0;
}

/* ---- extractor ---------------------------------------------------------- */

static void close_cpu(void *priv)
{
    AdmCpu *m = priv;
    free(m->mem);
    free(m->recip_table);
    m->mem = NULL;
    m->recip_table = NULL;
}

const char tvmaf_adm_ref_bands_tag = 0;

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    AdmCpu *m = priv;
    int err = tvmaf_adm_setup(&m->s, vi, msg, len);
    if (err) return err;

    const size_t n0 = (size_t)m->s.sc[0].w * m->s.sc[0].h; /* scale 0 band */
    const size_t n1 = (size_t)m->s.sc[1].w * m->s.sc[1].h; /* largest of scales 1..3 */
    const size_t w_in = vi->w, w0 = (size_t)m->s.sc[0].w, w1 = (size_t)m->s.sc[1].w;
    m->team = vi->team;
    m->n_slots = tvmaf_team_size(vi->team);
    const size_t n_t = m->n_slots;
    const size_t bytes = n_t * sizeof(AdmSlot) + n_t * 2 * w_in * sizeof(int16_t)
                         + 4 * n0 * sizeof(int32_t) + n_t * ADM_RING16_ROWS * w0 * sizeof(int16_t)
                         + n_t * 2 * w0 * sizeof(int32_t) + 6 * n1 * sizeof(int32_t)
                         + n_t * ADM_RING32_ROWS * w1 * sizeof(int32_t);
    /* the slots, then 32-bit planes, so every plane stays aligned to its type */
    m->mem = malloc(bytes);
    m->recip_table = malloc(65537 * sizeof(int32_t));
    if (!m->mem || !m->recip_table) {
        close_cpu(m);
        return -ENOMEM;
    }
    m->slot = m->mem;
    int32_t *p32 = (int32_t *)(m->slot + n_t);
    for (int k = 0; k < 2; k++) {
        m->ref_a[k] = p32; p32 += n0;
        m->dis_a[k] = p32; p32 += n0;
    }
    for (size_t t = 0; t < n_t; t++) {
        m->slot[t].lo32 = p32; p32 += w0;
        m->slot[t].hi32 = p32; p32 += w0;
    }
    Bands32 *b32[2] = { &m->ref, &m->dis };
    for (int k = 0; k < 2; k++)
        for (int o = 0; o < 3; o++) { b32[k]->b[o] = p32; p32 += n1; }
    for (size_t t = 0; t < n_t; t++) {
        m->slot[t].ring32 = p32;
        p32 += ADM_RING32_ROWS * w1;
    }
    int16_t *p16 = (int16_t *)p32;
    for (size_t t = 0; t < n_t; t++) {
        m->slot[t].lo16 = p16; p16 += w_in;
        m->slot[t].hi16 = p16; p16 += w_in;
    }
    for (size_t t = 0; t < n_t; t++) {
        m->slot[t].ring16 = p16;
        p16 += ADM_RING16_ROWS * w0;
    }

    m->ref_area_bytes = 0;
    if (vi->shared_reference && adm_ref_bands_shareable(&m->s)) {
        /* every band on a 64-byte boundary: scales 1..3 first, then scale 0 */
        size_t off = 0;
        for (int k = 3; k >= 0; k--) {
            const size_t band = (size_t)m->s.sc[k].w * m->s.sc[k].h * (k ? 4 : 2);
            for (int o = 0; o < 3; o++) {
                m->ref_area_off[k][o] = off;
                off += (band + 63) & ~(size_t)63;
            }
        }
        m->ref_area_bytes = off;
    }
    for (int d = -32768; d <= 32768; d++) m->recip_table[d + 32768] = adm_recip_q30(d);
    m->recip = m->recip_table + 32768;
    tvmaf_adm_dsp_init(&m->k, vi->cpu_flags);
    return 0;
}

void tvmaf_adm_dsp_init(AdmKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_adm_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, adm);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    AdmCpu *m = priv;
    AdmScaleSums sums[4];
    m->k.frame_sums(m, ref, dis, sums);
    return tvmaf_adm_report(&m->s, sums, index, sink);
}

int tvmaf_adm_cpu_sums(const AdmState *opts, const TvmafVideoInfo *vi, const TvmafPicture *ref,
                       const TvmafPicture *dis, AdmScaleSums sums[4])
{
    AdmCpu *m = calloc(1, sizeof(*m));
    if (!m) return -ENOMEM;
    m->s = *opts;
    char msg[256];
    const int err = init(m, vi, msg, sizeof(msg));
    if (!err) m->k.frame_sums(m, ref, dis, sums);
    close_cpu(m);
    free(m);
    return err;
}

const char *const tvmaf_adm_provided[] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score", "integer_adm_scale0", "integer_adm_scale1",
    "integer_adm_scale2", "integer_adm_scale3", "integer_adm", "integer_adm_num",
    "integer_adm_den", "integer_adm_num_scale0", "integer_adm_den_scale0",
    "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2",
    "integer_adm_den_scale2", "integer_adm_num_scale3", "integer_adm_den_scale3", NULL,
};

const TvmafExtractor tvmaf_fex_adm = {
    .name = "adm",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_adm_options,
    .priv_size = sizeof(AdmCpu),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_cpu,
    .provided_features = tvmaf_adm_provided,
};
