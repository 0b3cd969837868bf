/*
 * adm twin, plan (gpu/tvd.h). Each frame, on the luma of both pictures (the
 * frame's device copy), per scale a coef launch (DWT of both pictures,
 * decouple, csf, den terms; the approximation bands stay on the device as
 * the next scale's input) and a cm launch (masking terms), both adding
 * their terms per row; one finish launch rounds the rows and adds them into
 * the four AdmScaleSums (288 bytes), which are read back. Everything after
 * the integer totals (the float finish, outputs, key names, options,
 * refusals) is the CPU extractor's own code (adm_state.h).
 *
 * The rows: with CUDA's caps, accumulators added by 64-bit atomics;
 * otherwise a slot per group of each row, which the finish adds first
 * (adm_kernels.h).
 *
 * In a ladder (the executor's reference cache) each coef launch runs as
 * adm_tile.h's two passes where they apply (adm_ref_bands_shareable): the
 * reference pass once per reference picture, by whichever pair needs it
 * first, into the picture's area (its bands of the four scales and its den
 * row accumulators), and the pair pass per pair, reading them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/adm/adm_kernels.h"
#include "feature/adm/adm_state.h"

TVD_MODULE(adm, ADM_KERNELS)

typedef struct AdmPlan {
    AdmState s; /* first: the option offsets are relative to it */
    AdmTileFrame f;
    TvdBuf recip, scales, a_ref[2], a_dis[2], planes, rows, sums, layout;
    size_t plane, n_rows;
    uint64_t slot0[ADM_N_SCALES], groups[ADM_N_SCALES]; /* the groups' variant */
    bool atomics;
    /* the ladder's area (or TVD_NO_SLOT): the den row accumulators (the
     * layout of rows), then per scale the reference's bands */
    unsigned slot;
    size_t band_off[ADM_N_SCALES][3], band_bytes[ADM_N_SCALES];
} AdmPlan;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    AdmPlan *m = priv;
    int err = tvmaf_adm_setup(&m->s, vi, msg, len);
    if (err) return err;
    if ((unsigned)m->s.sc[0].h > 65535u) { /* CUDA's limit on a grid's y */
        snprintf(msg, len, "feature \"adm\" on a GPU supports frames up to %u rows, got %u",
                 2 * 65535u, vi->h);
        return -EINVAL;
    }
    const TvdCaps *c = tvd_caps(t);
    m->atomics = c->warp == 32 && c->atomic64;
    m->n_rows = 0;
    size_t n_slots = 0;
    for (int k = 0; k < ADM_N_SCALES; k++) {
        m->n_rows += adm_tile_scale_init(&m->f.sc[k], &m->s, k, m->n_rows);
        m->groups[k] = ADM_GRID_X((unsigned)m->f.sc[k].w);
        m->slot0[k] = n_slots;
        n_slots += (size_t)ADM_N_SUMS * (size_t)m->f.sc[k].h * m->groups[k];
    }
    const size_t n0 = (size_t)m->s.sc[0].w * m->s.sc[0].h;
    const size_t n1 = (size_t)m->s.sc[1].w * m->s.sc[1].h;
    m->plane = ADM_PLANE_BYTES(n0, n1);
    const size_t a = n0 * sizeof(int32_t);
    if ((err = tvd_buffer(t, &m->recip, ADM_RECIP_LEN * sizeof(int32_t), 0)) ||
        (err = tvd_buffer(t, &m->scales, sizeof(m->f), 0)) ||
        (err = tvd_buffer(t, &m->a_ref[0], a, 0)) || (err = tvd_buffer(t, &m->a_dis[0], a, 0)) ||
        (err = tvd_buffer(t, &m->a_ref[1], a, 0)) || (err = tvd_buffer(t, &m->a_dis[1], a, 0)) ||
        (err = tvd_buffer(t, &m->planes, ADM_N_PLANES * m->plane, 0)) ||
        (err = tvd_buffer(t, &m->rows, (m->atomics ? m->n_rows : n_slots) * sizeof(uint64_t),
                          0)) ||
        (err = tvd_buffer(t, &m->layout, sizeof(m->slot0) + sizeof(m->groups), 0)) ||
        (err = tvd_buffer(t, &m->sums, ADM_N_SCALES * sizeof(AdmScaleSums), TVD_MIRROR)))
        return err;
    /* the ladder's area: the reference pass depends on the picture's samples
     * alone (adm_ref_bands_shareable); the key names their size and depth,
     * and the reference build as well: instances of two builds in one ladder
     * keep two areas, more than needed, never a wrong one */
    m->slot = TVD_NO_SLOT;
    if (!m->atomics || !adm_ref_bands_shareable(&m->s)) return 0;
    size_t at = ADM_ALIGN_UP(m->n_rows * sizeof(uint64_t));
    for (int k = 0; k < ADM_N_SCALES; k++) {
        m->band_bytes[k] = (size_t)m->f.sc[k].w * m->f.sc[k].h * (k ? 4 : 2);
        for (int o = 0; o < 3; o++) {
            m->band_off[k][o] = at;
            at += ADM_ALIGN_UP(m->band_bytes[k]);
        }
    }
    char key[32];
    snprintf(key, sizeof(key), "adm/%ux%u/%u/%d", vi->w, vi->h, vi->bpc, m->s.isa);
    return tvd_ref_slot(t, key, at, &m->slot);
}

static int setup(void *priv, TvdTwin *t)
{
    AdmPlan *m = priv;
    /* the CPU's table, built by the same function, sent once */
    int32_t *table = malloc(ADM_RECIP_LEN * sizeof(int32_t));
    if (!table) return -ENOMEM;
    for (int d = -32768; d <= 32768; d++) table[d + ADM_RECIP_ZERO] = adm_recip_q30(d);
    int err = tvd_upload(t, tvd_whole(t, m->recip), table);
    free(table);
    uint64_t layout[2 * ADM_N_SCALES];
    for (int k = 0; k < ADM_N_SCALES; k++) {
        layout[k] = m->slot0[k];
        layout[ADM_N_SCALES + k] = m->groups[k];
    }
    if (!err) err = tvd_upload(t, tvd_whole(t, m->layout), layout);
    return err ? err : tvd_upload(t, tvd_whole(t, m->scales), &m->f);
}

/* Scale k's accumulators: the atomics' rows, or its slots. */
static TvdView rows_of(const AdmPlan *m, TvdTwin *t, int k)
{
    const TvdView all = tvd_whole(t, m->rows);
    return m->atomics ? all : tvd_sub(all, m->slot0[k] * 8, all.size - m->slot0[k] * 8);
}

static TvdGrid coef_grid(const AdmTileScale *c)
{
    return TVD_GRID(ADM_GRID_X((unsigned)c->w), (unsigned)c->h);
}

/* Scale k's cm launch (its region may be empty: then nothing runs). */
static int launch_cm(TvdTwin *t, AdmPlan *m, int k)
{
    const AdmTileScale *c = &m->f.sc[k];
    if (!c->stats) return 0;
    const AdmCmArgs a = { .scales = tvd_whole(t, m->scales), .k = (uint32_t)k,
                          .planes = tvd_whole(t, m->planes), .plane = m->plane,
                          .rows = rows_of(m, t, k), .g = (uint32_t)m->groups[k] };
    return tvd_launch(t, m->atomics ? TVD_K_adm_cm : TVD_K_adm_cm_g,
                      TVD_GRID(ADM_GRID_X((unsigned)(c->r - c->l)), (unsigned)(c->b - c->t)), &a);
}

/* Scale k's one-pass coef and cm launches. */
static int launch_scale(TvdTwin *t, AdmPlan *m, const TvmafDeviceFrame *f, int k)
{
    const AdmTileScale *c = &m->f.sc[k];
    int err;
    if (k == 0) {
        const AdmCoef0Args a = {
            .scales = tvd_whole(t, m->scales), .k = 0, .ref = tvd_plane(t, f, 0, 0),
            .dis = tvd_plane(t, f, 1, 0), .pitch = tvd_pitch(t, f, 0),
            .recip = tvd_whole(t, m->recip), .a_ref = tvd_whole(t, m->a_ref[0]),
            .a_dis = tvd_whole(t, m->a_dis[0]), .planes = tvd_whole(t, m->planes),
            .plane = m->plane, .rows = rows_of(m, t, 0),
        };
        err = tvd_launch(t, m->atomics ? TVD_K_adm_coef0 : TVD_K_adm_coef0_g, coef_grid(c), &a);
    } else {
        const AdmCoef32Args a = {
            .scales = tvd_whole(t, m->scales), .k = (uint32_t)k,
            .src_ref = tvd_whole(t, m->a_ref[(k - 1) & 1]),
            .src_dis = tvd_whole(t, m->a_dis[(k - 1) & 1]), .recip = tvd_whole(t, m->recip),
            .a_ref = tvd_whole(t, m->a_ref[k & 1]), .a_dis = tvd_whole(t, m->a_dis[k & 1]),
            .planes = tvd_whole(t, m->planes), .plane = m->plane, .rows = rows_of(m, t, k),
        };
        err = tvd_launch(t, m->atomics ? TVD_K_adm_coef32 : TVD_K_adm_coef32_g, coef_grid(c),
                         &a);
    }
    return err ? err : launch_cm(t, m, k);
}

/* The reference pass of the four scales into the area (its den rows zeroed
 * first; the approximations in this instance's own bands). */
static int launch_ref(TvdTwin *t, AdmPlan *m, const TvmafDeviceFrame *f, TvdView area)
{
    int err = tvd_fill(t, tvd_sub(area, 0, m->n_rows * sizeof(uint64_t)), 0);
    for (int k = 0; k < ADM_N_SCALES && !err; k++) {
        const AdmRefArgs a = {
            .scales = tvd_whole(t, m->scales), .k = (uint32_t)k,
            .src = k ? tvd_whole(t, m->a_ref[(k - 1) & 1]) : tvd_plane(t, f, 0, 0),
            .pitch = k ? 0 : tvd_pitch(t, f, 0), .a_ref = tvd_whole(t, m->a_ref[k & 1]),
            .b0 = tvd_sub(area, m->band_off[k][0], m->band_bytes[k]),
            .b1 = tvd_sub(area, m->band_off[k][1], m->band_bytes[k]),
            .b2 = tvd_sub(area, m->band_off[k][2], m->band_bytes[k]),
            .rows = tvd_sub(area, 0, m->n_rows * sizeof(uint64_t)),
        };
        err = tvd_launch(t, k ? TVD_K_adm_coef32_ref : TVD_K_adm_coef0_ref, coef_grid(&m->f.sc[k]),
                         &a);
    }
    return err;
}

/* Scale k's pair pass and cm launch, the reference's bands in the area. */
static int launch_pair(TvdTwin *t, AdmPlan *m, const TvmafDeviceFrame *f, TvdView area, int k)
{
    const AdmPairArgs a = {
        .scales = tvd_whole(t, m->scales), .k = (uint32_t)k,
        .src = k ? tvd_whole(t, m->a_dis[(k - 1) & 1]) : tvd_plane(t, f, 1, 0),
        .pitch = k ? 0 : tvd_pitch(t, f, 0), .recip = tvd_whole(t, m->recip),
        .a_dis = tvd_whole(t, m->a_dis[k & 1]),
        .b0 = tvd_sub(area, m->band_off[k][0], m->band_bytes[k]),
        .b1 = tvd_sub(area, m->band_off[k][1], m->band_bytes[k]),
        .b2 = tvd_sub(area, m->band_off[k][2], m->band_bytes[k]),
        .planes = tvd_whole(t, m->planes), .plane = m->plane,
    };
    int err = tvd_launch(t, k ? TVD_K_adm_coef32_pair : TVD_K_adm_coef0_pair,
                         coef_grid(&m->f.sc[k]), &a);
    return err ? err : launch_cm(t, m, k);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    AdmPlan *m = priv;
    TvdView area;
    bool fill;
    int err = tvd_ref_area(t, f, m->slot, &area, &fill);
    if (!err && fill) {
        err = launch_ref(t, m, f, area);
        const int e2 = tvd_ref_area_done(t, f, m->slot, !err);
        if (!err) err = e2;
    }
    if (!err) err = tvd_fill(t, tvd_whole(t, m->rows), 0);
    for (int k = 0; k < ADM_N_SCALES && !err; k++)
        err = area.size ? launch_pair(t, m, f, area, k) : launch_scale(t, m, f, k);
    if (err) return err;
    if (m->atomics) {
        const AdmFinishArgs a = {
            .scales = tvd_whole(t, m->scales), .rows = tvd_whole(t, m->rows),
            .den_rows = area.size ? tvd_sub(area, 0, m->n_rows * sizeof(uint64_t))
                                  : tvd_whole(t, m->rows),
            .sums = tvd_whole(t, m->sums),
        };
        err = tvd_launch(t, TVD_K_adm_finish, TVD_GRID(ADM_N_SUMS, ADM_N_SCALES), &a);
    } else {
        const AdmFinishGArgs a = { .scales = tvd_whole(t, m->scales),
                                   .slots = tvd_whole(t, m->rows),
                                   .layout = tvd_whole(t, m->layout),
                                   .sums = tvd_whole(t, m->sums) };
        err = tvd_launch(t, TVD_K_adm_finish_g, TVD_GRID(ADM_N_SUMS, ADM_N_SCALES), &a);
    }
    return err ? err : tvd_download(t, tvd_whole(t, m->sums));
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    AdmPlan *m = priv;
    return tvmaf_adm_report(&m->s, tvd_mirror(t, m->sums), index, sink);
}

_Static_assert(sizeof(AdmScaleSums) == ADM_N_SUMS * sizeof(uint64_t),
               "AdmScaleSums is den[3], num[3], aim[3] in 64 bits");

TVD_PLAN(adm, adm, AdmPlan, .init = init, .setup = setup, .run = run, .report = report);
