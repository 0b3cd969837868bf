/*
 * vif twin, plan (gpu/tvd.h). Each frame, on the luma of both pictures
 * (the frame's device copy), one launch per scale (vif_kernels.h): scale s
 * reads the planes of scale s, adds its integer sums and writes the
 * decimated planes of scale s + 1, which stay on the device; the sums are
 * read back. Everything after the integer sums (num/den, scores, debug
 * outputs, key names, options) is the CPU extractor's own code
 * (vif_state.h).
 *
 * The sums: with CUDA's caps, each scale's VifSums by 64-bit atomics (4 x
 * 32 bytes read back); otherwise 4 int64 per group, which the host adds
 * modulo 2^64 as the atomics do.
 *
 * In a ladder (the executor's reference cache) each scale runs as
 * vif_tile.h's two passes: the reference pass once per reference picture,
 * by whichever pair needs it first, into the picture's area (its planes of
 * scales 1..3, its per-pixel terms, its den sums), and the pair pass per
 * pair, reading them; a frame whose reference is not in the cache takes the
 * one-pass kernels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/vif/vif_kernels.h"
#include "feature/vif/vif_state.h"

TVD_MODULE(vif, VIF_KERNELS)

/* The reference pass's area of one reference picture: the den sums of the
 * four scales, then per scale its terms (mu1, sigma1_sq: w x h x 4 bytes
 * each), then the reference's planes of scales 1..3 (rows of VIF_ROW_BYTES),
 * each part starting on VIF_ROW_ALIGN bytes. */
typedef struct VifRefLayout {
    size_t mu1[VIF_N_SCALES], sigma[VIF_N_SCALES], plane[VIF_N_SCALES];
    size_t bytes;
} VifRefLayout;

typedef struct VifPlan {
    VifParams p; /* first: the option offsets are relative to it */
    TvdBuf img;  /* scales 1..3: reference and distorted planes */
    TvdBuf log2, taps;
    TvdBuf sums; /* atomics: the pair's VifSums, then the reference pass's; else the groups' */
    size_t off_ref[VIF_N_SCALES], off_dis[VIF_N_SCALES], pitch[VIF_N_SCALES];
    size_t group0[VIF_N_SCALES]; /* the groups' variant: scale s's first int64 */
    size_t n_groups;
    bool atomics, shared; /* shared: this frame ran the ladder's passes */
    unsigned slot;
    VifRefLayout lay;
} VifPlan;

static size_t align_up(size_t n)
{
    return (n + VIF_ROW_ALIGN - 1) & ~(size_t)(VIF_ROW_ALIGN - 1);
}

static void ref_layout(const VifParams *p, VifRefLayout *l)
{
    size_t at = align_up(VIF_N_SCALES * sizeof(VifSums));
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        const size_t n = (size_t)p->w[k] * p->h[k] * sizeof(uint32_t);
        l->mu1[k] = at;
        l->sigma[k] = at + align_up(n);
        at += 2 * align_up(n);
    }
    l->plane[0] = 0; /* scale 0 is the frame's */
    for (unsigned k = 1; k < VIF_N_SCALES; k++) {
        l->plane[k] = at;
        at += align_up(VIF_ROW_BYTES(p->w[k]) * p->h[k]);
    }
    l->bytes = at;
}

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    VifPlan *v = priv;
    int err = tvmaf_vif_setup(&v->p, vi, msg, len);
    if (err) return err;
    if (VIF_GRID_Y(v->p.h[0]) > 65535u) { /* CUDA's limit on a grid's y */
        snprintf(msg, len, "feature \"vif\" on a GPU supports frames up to %u rows, got %u",
                 65535u * VIF_TILE_H, v->p.h[0]);
        return -EINVAL;
    }
    const TvdCaps *c = tvd_caps(t);
    v->atomics = c->warp == 32 && c->atomic64;
    size_t img = 0;
    v->n_groups = 0;
    for (unsigned k = 0; k < VIF_N_SCALES; k++) {
        v->group0[k] = 4 * v->n_groups;
        v->n_groups += (size_t)VIF_GRID_X(v->p.w[k]) * VIF_GRID_Y(v->p.h[k]);
        if (!k) continue;
        v->pitch[k] = VIF_ROW_BYTES(v->p.w[k]);
        v->off_ref[k] = img;
        v->off_dis[k] = img + v->pitch[k] * v->p.h[k];
        img += 2 * v->pitch[k] * v->p.h[k];
    }
    const size_t sums = v->atomics ? 2 * VIF_N_SCALES * sizeof(VifSums)
                                   : 4 * v->n_groups * sizeof(int64_t);
    if ((err = tvd_buffer(t, &v->img, img, 0)) ||
        (err = tvd_buffer(t, &v->log2, VIF_LOG2_TABLE_LEN * sizeof(uint16_t), 0)) ||
        (err = tvd_buffer(t, &v->taps, sizeof(vif_filter_taps), 0)) ||
        (err = tvd_buffer(t, &v->sums, sums, TVD_MIRROR)))
        return err;
    ref_layout(&v->p, &v->lay);
    /* the layout depends only on the picture's size and depth, which every
     * pair of a ladder shares */
    char key[32];
    snprintf(key, sizeof(key), "vif/%ux%u/%u", v->p.w[0], v->p.h[0], v->p.bpc);
    return v->atomics ? tvd_ref_slot(t, key, v->lay.bytes, &v->slot) : (v->slot = TVD_NO_SLOT, 0);
}

static int setup(void *priv, TvdTwin *t)
{
    VifPlan *v = priv;
    /* the CPU's table, built by the same function, sent once */
    uint16_t *table = malloc(VIF_LOG2_TABLE_LEN * sizeof(uint16_t));
    if (!table) return -ENOMEM;
    vif_log2_table_fill(table, vif_log2_steps);
    int err = tvd_upload(t, tvd_whole(t, v->log2), table);
    free(table);
    return err ? err : tvd_upload(t, tvd_whole(t, v->taps), vif_filter_taps);
}

/* The one-pass kernel of scale k (0: 8-bit, 16-bit) in the variant's rows. */
static unsigned scale_kernel(const VifPlan *v, unsigned first, unsigned k)
{
    return first + (k == 0 ? v->p.bpc > 8 : k + 1);
}

/* Plane views of scale k: the frame's at scale 0, else the twin's. */
static TvdView plane(const VifPlan *v, unsigned k, size_t off)
{
    return tvd_view(v->img, off, v->pitch[k] * v->p.h[k]);
}

/* Scale k's one-pass launch: its statistic (unless skipped) and, below
 * scale 3, the planes of scale k + 1. */
static int launch_scale(TvdTwin *t, VifPlan *v, const TvmafDeviceFrame *f, unsigned k)
{
    const unsigned n = k < VIF_N_SCALES - 1 ? k + 1 : k; /* scale 3 writes nothing */
    const TvdView sums = v->atomics ? tvd_view(v->sums, k * sizeof(VifSums), sizeof(VifSums))
                                    : tvd_whole(t, v->sums);
    const VifScaleArgs a = {
        .ref = k ? plane(v, k, v->off_ref[k]) : tvd_plane(t, f, 0, 0),
        .dis = k ? plane(v, k, v->off_dis[k]) : tvd_plane(t, f, 1, 0),
        .pitch = k ? v->pitch[k] : tvd_pitch(t, f, 0),
        .w = v->p.w[k], .h = v->p.h[k], .bpc = v->p.bpc,
        .score = vif_scale_scored(&v->p, k),
        .log2_table = tvd_whole(t, v->log2),
        .gain_limit = v->p.gain_limit,
        .out_r = plane(v, n, v->off_ref[n ? n : 1]),
        .out_d = plane(v, n, v->off_dis[n ? n : 1]),
        .out_pitch = v->pitch[n ? n : 1],
        .taps = tvd_whole(t, v->taps),
        .sums = v->atomics ? sums : tvd_sub(sums, v->group0[k] * sizeof(int64_t),
                                            (sums.size - v->group0[k] * sizeof(int64_t))),
    };
    const unsigned first = v->atomics ? TVD_K_vif_scale0_8 : TVD_K_vif_tree0_8;
    return tvd_launch(t, scale_kernel(v, first, k),
                      TVD_GRID(VIF_GRID_X(v->p.w[k]), VIF_GRID_Y(v->p.h[k])), &a);
}

/* The reference pass of the four scales into the area a. */
static int launch_ref(TvdTwin *t, VifPlan *v, const TvmafDeviceFrame *f, TvdView a)
{
    int err = tvd_fill(t, tvd_sub(a, 0, VIF_N_SCALES * sizeof(VifSums)), 0);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) {
        const unsigned n = k < VIF_N_SCALES - 1 ? k + 1 : k; /* scale 3 writes no plane */
        const size_t wh4 = (size_t)v->p.w[k] * v->p.h[k] * 4;
        const VifRefArgs r = {
            .ref = k ? tvd_sub(a, v->lay.plane[k], v->pitch[k] * v->p.h[k])
                     : tvd_plane(t, f, 0, 0),
            .pitch = k ? v->pitch[k] : tvd_pitch(t, f, 0),
            .w = v->p.w[k], .h = v->p.h[k], .bpc = v->p.bpc,
            .log2_table = tvd_whole(t, v->log2),
            .out_r = tvd_sub(a, v->lay.plane[n ? n : 1], v->pitch[n ? n : 1] * v->p.h[n]),
            .out_pitch = v->pitch[n ? n : 1],
            .mu1 = tvd_sub(a, v->lay.mu1[k], wh4),
            .sigma = tvd_sub(a, v->lay.sigma[k], wh4),
            .taps = tvd_whole(t, v->taps),
            .sums = tvd_sub(a, k * sizeof(VifSums), sizeof(VifSums)),
        };
        err = tvd_launch(t, scale_kernel(v, TVD_K_vif_ref0_8, k),
                         TVD_GRID(VIF_GRID_X(v->p.w[k]), VIF_GRID_Y(v->p.h[k])), &r);
    }
    return err;
}

/* The pair pass of scale k, with the reference pass's area a. */
static int launch_pair(TvdTwin *t, VifPlan *v, const TvmafDeviceFrame *f, TvdView a,
                       unsigned k)
{
    const unsigned n = k < VIF_N_SCALES - 1 ? k + 1 : k;
    const size_t wh4 = (size_t)v->p.w[k] * v->p.h[k] * 4;
    const VifPairArgs r = {
        .ref = k ? tvd_sub(a, v->lay.plane[k], v->pitch[k] * v->p.h[k]) : tvd_plane(t, f, 0, 0),
        .dis = k ? plane(v, k, v->off_dis[k]) : tvd_plane(t, f, 1, 0),
        .pitch = k ? v->pitch[k] : tvd_pitch(t, f, 0),
        .w = v->p.w[k], .h = v->p.h[k], .bpc = v->p.bpc,
        .score = vif_scale_scored(&v->p, k),
        .log2_table = tvd_whole(t, v->log2),
        .gain_limit = v->p.gain_limit,
        .out_d = plane(v, n, v->off_dis[n ? n : 1]),
        .out_pitch = v->pitch[n ? n : 1],
        .mu1 = tvd_sub(a, v->lay.mu1[k], wh4),
        .sigma = tvd_sub(a, v->lay.sigma[k], wh4),
        .taps = tvd_whole(t, v->taps),
        .sums = tvd_view(v->sums, k * sizeof(VifSums), sizeof(VifSums)),
    };
    return tvd_launch(t, scale_kernel(v, TVD_K_vif_pair0_8, k),
                      TVD_GRID(VIF_GRID_X(v->p.w[k]), VIF_GRID_Y(v->p.h[k])), &r);
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    (void)index;
    VifPlan *v = priv;
    const TvdView pair_sums = tvd_view(v->sums, 0, VIF_N_SCALES * sizeof(VifSums));
    TvdView a;
    bool fill;
    int err = tvd_ref_area(t, f, v->slot, &a, &fill);
    v->shared = !err && a.size;
    if (err || !v->shared) {
        if (!err && v->atomics) err = tvd_fill(t, pair_sums, 0);
        for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_scale(t, v, f, k);
        return err ? err
                   : tvd_download(t, v->atomics ? pair_sums : tvd_whole(t, v->sums));
    }
    if (fill) {
        err = launch_ref(t, v, f, a);
        const int e2 = tvd_ref_area_done(t, f, v->slot, !err);
        if (!err) err = e2;
    }
    if (!err) err = tvd_fill(t, pair_sums, 0);
    for (unsigned k = 0; k < VIF_N_SCALES && !err; k++) err = launch_pair(t, v, f, a, k);
    if (!err) err = tvd_download(t, pair_sums);
    /* the reference pass's den sums, beside the pair's */
    if (!err)
        err = tvd_download_into(t, tvd_sub(a, 0, VIF_N_SCALES * sizeof(VifSums)),
                                tvd_view(v->sums, VIF_N_SCALES * sizeof(VifSums),
                                         VIF_N_SCALES * sizeof(VifSums)));
    return err;
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    VifPlan *v = priv;
    VifSums sums[VIF_N_SCALES];
    if (v->atomics) {
        const VifSums *h = tvd_mirror(t, v->sums);
        for (unsigned k = 0; k < VIF_N_SCALES; k++) {
            sums[k] = h[k];
            /* the reference pass's den terms and the pair pass's num terms:
             * each sum has its terms in one of the two */
            if (v->shared) vif_sums_add(&sums[k], &h[VIF_N_SCALES + k]);
        }
    } else {
        const int64_t *g = tvd_mirror(t, v->sums);
        for (unsigned k = 0; k < VIF_N_SCALES; k++) {
            /* modulo 2^64, as the atomics: the CPU's int64 sums */
            uint64_t s[4] = { 0, 0, 0, 0 };
            const size_t end = k + 1 < VIF_N_SCALES ? v->group0[k + 1] : 4 * v->n_groups;
            if (vif_scale_scored(&v->p, k))
                for (size_t i = v->group0[k]; i < end; i += 4)
                    for (unsigned q = 0; q < 4; q++) s[q] += (uint64_t)g[i + q];
            sums[k] = (VifSums){ (int64_t)s[0], (int64_t)s[1], (int64_t)s[2], (int64_t)s[3] };
        }
    }
    return tvmaf_vif_report(&v->p, sums, index, sink) ? -EINVAL : 0;
}

TVD_PLAN(vif, vif, VifPlan, .init = init, .setup = setup, .run = run, .report = report);
