/*
 * The SpEED pipeline on the CPU (see speed_math.h for the arithmetic and
 * speed.c for the two extractors): its set-up and scoring here, the
 * per-image work in speed_image.h (the baseline's kernel set is defined at
 * the end of this file, each x86 level's in speed_x86.c).
 *
 * Work saved against a literal port, without changing a bit: the
 * anti-alias filter is evaluated only on the rows and columns that the
 * decimation by 16 keeps (every output sample is computed on its own, so
 * skipping the others changes nothing), and the prescale computes only the
 * samples that filter reads, with its position and weight tables built once
 * per column and per row instead of once per sample. Samples the scaler
 * skips stay 0 and are never read into a kept value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "feature/speed/speed_image.h"

int speed_method(const char *method)
{
    if (!method) return -1;
    if (!strcmp(method, "nearest")) return FFILTER_SCALE_NEAREST;
    if (!strcmp(method, "bilinear")) return FFILTER_SCALE_BILINEAR;
    if (!strcmp(method, "bicubic")) return FFILTER_SCALE_BICUBIC;
    if (!strcmp(method, "lanczos4")) return FFILTER_SCALE_LANCZOS4;
    return -1;
}

int speed_min_plane_side(double prescale)
{
    int n = 1;
    while (n < (1 << 24) && speed_scaled_side(n, prescale) < SPEED_MIN_SIDE) n++;
    return n;
}

void speed_pipeline_close(SpeedPipeline *p)
{
    free(p->xi);
    free(p->yi);
    free(p->xw);
    free(p->yw);
    free(p->need_col);
    free(p->need_row);
    free(p->load_rows);
    free(p->scaled);
    free(p->ext);
    free((void *)p->rows);
    free(p->dec);
    free(p->mu);
    free(p->k);
    free(p->means);
    free(p->ev);
    free(p->eig_scratch);
    free(p->solve_scratch);
    free(p->b);
    free(p->x);
    free(p->qb);
    for (int s = 0; s < 2; s++) {
        free(p->ent[s]);
        free(p->var[s]);
    }
    memset(p, 0, sizeof(*p));
}

static void *alloc_floats(size_t n)
{
    return malloc((n ? n : 1) * sizeof(float));
}

enum SpeedInitStatus speed_pipeline_plan(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph)
{
    memset(p, 0, sizeof(*p));
    const float ks = (float)prm->kernelscale;
    if (!ffilter_kernelscale_valid(ks)) return SPEED_INIT_BAD_KERNELSCALE;
    const int m = speed_method(prm->method);
    if (m < 0) return SPEED_INIT_BAD_METHOD;
    p->method = (enum FfilterScaler)m;
    p->sigma_nn = (float)prm->sigma_nn;
    p->nn_floor = (float)prm->nn_floor;
    p->mode = prm->weight_var_mode;

    p->pw = pw;
    p->ph = ph;
    p->sw = speed_scaled_side(pw, prm->prescale);
    p->sh = speed_scaled_side(ph, prm->prescale);
    if (p->sw < SPEED_MIN_SIDE || p->sh < SPEED_MIN_SIDE) return SPEED_INIT_TOO_SMALL;
    const int unity = speed_prescale_is_unity(prm->prescale);
    /* Without resizing the reference filters the plane's top-left sw x sh:
     * a crop when the prescale shrinks it, samples it never wrote when the
     * prescale would grow it. */
    if (unity && (p->sw > pw || p->sh > ph)) return SPEED_INIT_UNSCALED_GROWTH;
    /* a scaler asked for the same size copies the plane */
    p->resize = !unity && !(p->sw == pw && p->sh == ph);
    p->g = speed_grid(p->sw >> SPEED_N_SCALES, p->sh >> SPEED_N_SCALES);
    const SpeedGrid *g = &p->g;

    p->aa_w = ffilter_gaussian_width(1, ks);
    ffilter_gaussian(p->aa, p->aa_w, speed_antialias_sd(p->aa_w));
    p->lm_w = ffilter_gaussian_width(SPEED_N_SCALES, ks);
    ffilter_gaussian(p->lm, p->lm_w, (float)p->lm_w / 5.0f);

    int ok = 1;
    if (p->resize) {
        const int t = p->taps = speed_scaler_taps(p->method);
        ok &= (p->xi = malloc((size_t)p->sw * t * sizeof(int))) != NULL;
        ok &= (p->yi = malloc((size_t)p->sh * t * sizeof(int))) != NULL;
        ok &= (p->xw = alloc_floats((size_t)p->sw * t)) != NULL;
        ok &= (p->yw = alloc_floats((size_t)p->sh * t)) != NULL;
        ok &= (p->need_col = calloc((size_t)p->sw, 1)) != NULL;
        ok &= (p->need_row = calloc((size_t)p->sh, 1)) != NULL;
        if (ok) {
            const float rx = ffilter_scale_ratio(pw, p->sw), ry = ffilter_scale_ratio(ph, p->sh);
            for (int x = 0; x < p->sw; x++)
                speed_axis(p->method, x, rx, pw, p->xi + (size_t)x * t, p->xw + (size_t)x * t);
            for (int y = 0; y < p->sh; y++)
                speed_axis(p->method, y, ry, ph, p->yi + (size_t)y * t, p->yw + (size_t)y * t);
            const int half = p->aa_w / 2;
            for (int r = 0; r < g->oh; r++)
                for (int k = 0; k < p->aa_w; k++)
                    p->need_row[mirror_skip_edge(r * SPEED_DECIMATION - half + k, p->sh)] = 1;
            for (int c = 0; c < g->ow; c++)
                for (int k = 0; k < p->aa_w; k++)
                    p->need_col[mirror_skip_edge(c * SPEED_DECIMATION - half + k, p->sw)] = 1;
        }
    }
    for (int s = 0; s < 2; s++) {
        ok &= (p->ent[s] = alloc_floats((size_t)g->nb)) != NULL;
        ok &= (p->var[s] = alloc_floats((size_t)g->nb)) != NULL;
    }
    if (!ok) {
        speed_pipeline_close(p);
        return SPEED_INIT_NOMEM;
    }
    return SPEED_INIT_OK;
}

enum SpeedInitStatus speed_pipeline_init(SpeedPipeline *p, const SpeedParams *prm, int pw, int ph)
{
    const enum SpeedInitStatus st = speed_pipeline_plan(p, prm, pw, ph);
    if (st != SPEED_INIT_OK) return st;
    const SpeedGrid *g = &p->g;
    int ok = 1;
    if (p->resize) ok &= (p->scaled = calloc((size_t)p->sw * p->sh, sizeof(float))) != NULL;
    const size_t ext_n = (size_t)(p->sw + p->aa_w > g->ow + p->lm_w ? p->sw + p->aa_w
                                                                    : g->ow + p->lm_w);
    const int max_taps = p->aa_w > p->lm_w ? p->aa_w : p->lm_w;
    const size_t area = (size_t)g->ow * g->oh;
    const size_t nbe = (size_t)SPEED_NE * g->nb;
    ok &= (p->ext = alloc_floats(ext_n)) != NULL;
    ok &= (p->rows = malloc((size_t)max_taps * sizeof(*p->rows))) != NULL;
    ok &= (p->dec = alloc_floats(area)) != NULL;
    ok &= (p->mu = alloc_floats(area)) != NULL;
    ok &= (p->k = alloc_floats(SPEED_NE * SPEED_NE)) != NULL;
    ok &= (p->means = alloc_floats(SPEED_NE)) != NULL;
    ok &= (p->ev = alloc_floats(SPEED_NE)) != NULL;
    ok &= (p->eig_scratch = alloc_floats(SPEED_EIG_SCRATCH(SPEED_NE))) != NULL;
    ok &= (p->solve_scratch = alloc_floats(SPEED_SOLVE_SCRATCH(SPEED_NE))) != NULL;
    ok &= (p->b = alloc_floats(nbe)) != NULL;
    ok &= (p->x = alloc_floats(nbe)) != NULL;
    ok &= (p->qb = alloc_floats(nbe)) != NULL;
    if (ok && !p->resize) {
        /* reduce's windows: rows of the plane itself (sh <= ph) */
        ok &= (p->load_rows = calloc((size_t)p->ph, 1)) != NULL;
        const int half = p->aa_w / 2;
        for (int r = 0; ok && r < g->oh; r++)
            for (int k = 0; k < p->aa_w; k++)
                p->load_rows[mirror_skip_edge(r * SPEED_DECIMATION - half + k, p->sh)] = 1;
    }
    if (!ok) {
        speed_pipeline_close(p);
        return SPEED_INIT_NOMEM;
    }
    p->kern = tvmaf_speed_kernels_c;
    return SPEED_INIT_OK;
}


void speed_pipeline_entropies(SpeedPipeline *p, const float *ev, int side)
{
    for (int blk = 0; blk < p->g.nb; blk++)
        p->ent[side][blk] = speed_block_entropy(ev, p->var[side][blk], p->sigma_nn);
}

float speed_pipeline_score(const SpeedPipeline *p, int singular_ref, int singular_dis)
{
    if (!singular_ref != !singular_dis) return 0.0f;
    return speed_score(p->ent[0], p->var[0], p->ent[1], p->var[1], p->g.nb, p->sigma_nn,
                       p->nn_floor, p->mode);
}

SPEED_KERNELS_DEFINE(tvmaf_speed_kernels_c);

void tvmaf_speed_dsp_init(SpeedKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_speed_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, speed);
}
