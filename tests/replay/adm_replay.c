/*
 * Host replay of the integer adm twin: adm_cuda.c's frame handling and
 * adm.cu's launches executed on the host, compared bit for bit with the CPU
 * extractor, over random and edge inputs. Runs without a GPU; the device
 * parity test confirms it on hardware. The decomposition (ADM_THREADS,
 * ADM_FINISH_THREADS, ADM_GRID_X, the planes, the per-thread functions) is
 * adm_tile.h's, the header the kernels compile; the scaffolding (inputs,
 * orders, folds, comparison) is tests/replay_common.h.
 *
 * What is replayed, as the twin does it:
 * - the upload: each picture's luma copied at the device pitch (the rows of
 *   tvmaf_picture_layout, 64-byte aligned; the padding holds garbage); the
 *   approximation bands, the decouple and csf planes kept between frames
 *   (and scales) in buffers that start as garbage, so a value read before
 *   this frame's launch wrote it changes the result;
 * - per frame, the row accumulators zeroed, then per scale the coef launch
 *   and (unless scale 0 is skipped) the cm launch over their grids (one block
 *   per ADM_THREADS columns of one band row), blocks and threads visited in
 *   scrambled orders, each thread running the adm_tile.h function the kernel
 *   runs; each block's terms folded as the kernel folds them (shuffle-down
 *   within each warp, one thread per sum adding the warps) and added into the
 *   row accumulators modulo 2^64 (the 64-bit atomics); then the finish launch
 *   (per sum and scale: strided rows per thread, rounded, folded);
 * - the read-back of the four AdmScaleSums and the shared host code
 *   (tvmaf_adm_values) that turns them into the outputs.
 * Where the ladder's two passes apply (adm_ref_bands_shareable), each frame is
 * also replayed as a ladder's pair runs it (adm_cuda.c with a reference
 * area): the reference pass's launches (bands and den rows into an area of
 * their own, starting as garbage but its rows zeroed), the pair's coef and cm
 * launches, and the finish taking its den rows from the area; its sums must
 * equal the one-pass sums exactly.
 * Checked: the replayed AdmScaleSums against the CPU extractor's integer
 * totals (tvmaf_adm_cpu_sums; exact, so no float rounding can hide a
 * difference), and the outputs against the CPU extractor's through the
 * public API (every key, as bits).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_tile.h"
#include "../replay_common.h"

_Static_assert(ADM_THREADS % REPLAY_WARP == 0 && ADM_FINISH_THREADS % REPLAY_WARP == 0,
               "blocks are whole warps");

/* ---- the device (adm_cuda.c) ---- */

typedef struct Device {
    AdmTileFrame f;
    size_t pitch;                 /* luma rows */
    unsigned char *ref0, *dis0;   /* uploaded luma */
    int32_t *a_ref[2], *a_dis[2]; /* approximation bands */
    AdmTilePlanes planes;
    void *plane_mem[ADM_N_PLANES];
    size_t plane_bytes;
    int32_t *recip_table;
    uint64_t *rows;
    size_t n_rows;
    AdmScaleSums sums[ADM_N_SCALES];
    /* the ladder's passes: the reference's bands and den rows, the sums */
    void *bands[ADM_N_SCALES][3];
    uint64_t *den_rows;
    AdmScaleSums split_sums[ADM_N_SCALES];
} Device;

static void device_free(Device *d)
{
    free(d->ref0);
    free(d->dis0);
    for (int k = 0; k < 2; k++) {
        free(d->a_ref[k]);
        free(d->a_dis[k]);
    }
    for (int q = 0; q < ADM_N_PLANES; q++) free(d->plane_mem[q]);
    free(d->recip_table);
    free(d->rows);
    free(d->den_rows);
    for (int k = 0; k < ADM_N_SCALES; k++)
        for (int o = 0; o < 3; o++) free(d->bands[k][o]);
    memset(d, 0, sizeof(*d));
}

static int device_alloc(Device *d, const AdmState *s)
{
    memset(d, 0, sizeof(*d));
    for (int k = 0; k < ADM_N_SCALES; k++)
        d->n_rows += adm_tile_scale_init(&d->f.sc[k], s, k, d->n_rows);
    /* the frame's device copy has the pictures' layout (twin_frame.c) */
    size_t stride[3], off[3], total;
    if (tvmaf_picture_layout(TVMAF_PIX_FMT_YUV420P, s->bpc, s->w, s->h, stride, off, &total))
        return -EINVAL;
    d->pitch = stride[0];
    const size_t n0 = (size_t)s->sc[0].w * s->sc[0].h, n1 = (size_t)s->sc[1].w * s->sc[1].h;
    d->plane_bytes = ADM_PLANE_BYTES(n0, n1);
    int ok = (d->ref0 = malloc(d->pitch * s->h)) && (d->dis0 = malloc(d->pitch * s->h));
    for (int k = 0; k < 2; k++)
        ok &= (d->a_ref[k] = malloc(n0 * 4)) && (d->a_dis[k] = malloc(n0 * 4));
    for (int q = 0; q < ADM_N_PLANES; q++) ok &= (d->plane_mem[q] = malloc(d->plane_bytes)) != NULL;
    ok &= (d->recip_table = malloc(ADM_RECIP_LEN * sizeof(int32_t))) &&
          (d->rows = malloc(d->n_rows * sizeof(uint64_t))) &&
          (d->den_rows = malloc(d->n_rows * sizeof(uint64_t)));
    for (int k = 0; k < ADM_N_SCALES && ok; k++)
        for (int o = 0; o < 3 && ok; o++) {
            const size_t n = (size_t)d->f.sc[k].w * d->f.sc[k].h * (k ? 4 : 2);
            ok &= (d->bands[k][o] = malloc(n)) != NULL;
            if (ok) replay_garbage(d->bands[k][o], n);
        }
    if (!ok) {
        device_free(d);
        return -ENOMEM;
    }
    replay_garbage(d->ref0, d->pitch * s->h);
    replay_garbage(d->dis0, d->pitch * s->h);
    for (int k = 0; k < 2; k++) {
        replay_garbage(d->a_ref[k], n0 * 4);
        replay_garbage(d->a_dis[k], n0 * 4);
    }
    for (int q = 0; q < ADM_N_PLANES; q++) replay_garbage(d->plane_mem[q], d->plane_bytes);
    replay_garbage(d->rows, d->n_rows * sizeof(uint64_t));
    int q = 0;
    for (int o = 0; o < 3; o++) {
        d->planes.r[o] = d->plane_mem[q++];
        d->planes.a[o] = d->plane_mem[q++];
        for (int p = 0; p < 2; p++) {
            d->planes.csf[p][o] = d->plane_mem[q++];
            d->planes.flt[p][o] = d->plane_mem[q++];
        }
    }
    for (int v = -32768; v <= 32768; v++) d->recip_table[v + ADM_RECIP_ZERO] = adm_recip_q30(v);
    return 0;
}

/* tvmaf_twin_frame_upload of the luma: rows at the device pitch. */
static void upload(Device *d, const AdmState *s, const TvmafPicture *ref,
                   const TvmafPicture *dis)
{
    const size_t row = (size_t)s->w * (s->bpc == 8 ? 1 : 2);
    for (unsigned i = 0; i < s->h; i++) {
        memcpy(d->ref0 + i * d->pitch, (const unsigned char *)ref->data[0] + i * ref->stride[0],
               row);
        memcpy(d->dis0 + i * d->pitch, (const unsigned char *)dis->data[0] + i * dis->stride[0],
               row);
    }
}

/* One block of a coef (cm = 0) or cm (cm = 1) launch of scale k. */
static void run_block(Device *d, int k, int cm, unsigned bx, unsigned by)
{
    const AdmTileScale *c = &d->f.sc[k];
    uint64_t v[6][ADM_THREADS];
    memset(v, 0, sizeof(v));
    unsigned order[ADM_THREADS];
    replay_scramble(order, ADM_THREADS);
    const int i = cm ? c->t + (int)by : (int)by;
    for (unsigned n = 0; n < ADM_THREADS; n++) {
        const unsigned t = order[n];
        if (cm) {
            const int j = c->l + (int)(bx * ADM_THREADS + t);
            int64_t out[6] = { 0, 0, 0, 0, 0, 0 };
            if (j < c->r) adm_tile_cm(c, i, j, &d->planes, out);
            for (int q = 0; q < 6; q++) v[q][t] = (uint64_t)out[q];
        } else {
            const int j = (int)(bx * ADM_THREADS + t);
            uint64_t den[3] = { 0, 0, 0 };
            const int32_t *recip = d->recip_table + ADM_RECIP_ZERO;
            if (j < c->w) {
                if (k == 0)
                    adm_tile_coef0(c, i, j, d->ref0, d->dis0, d->pitch, recip, d->a_ref[0],
                                   d->a_dis[0], &d->planes, den);
                else
                    adm_tile_coef32(c, i, j, d->a_ref[(k - 1) & 1], d->a_dis[(k - 1) & 1],
                                    recip, d->a_ref[k & 1], d->a_dis[k & 1], &d->planes, den);
            }
            for (int q = 0; q < 3; q++) v[q][t] = den[q];
        }
    }
    if (!cm && (!c->stats || i < c->t || i >= c->b)) return;
    const int n = cm ? 6 : 3, q0 = cm ? 3 : 0;
    for (int q = 0; q < n; q++) {
        uint64_t *acc = d->rows + c->rows_off + (size_t)(q0 + q) * c->h + i;
        *acc += replay_block_fold(v[q], ADM_THREADS); /* 64-bit atomic */
    }
}

/* One block of the ladder's reference pass (ref = 1) or pair pass (ref = 0)
 * coef launch of scale k. */
static void run_block_split(Device *d, int k, int ref, unsigned bx, unsigned by)
{
    const AdmTileScale *c = &d->f.sc[k];
    const AdmRefBands b = { { d->bands[k][0], d->bands[k][1], d->bands[k][2] } };
    uint64_t v[3][ADM_THREADS];
    memset(v, 0, sizeof(v));
    unsigned order[ADM_THREADS];
    replay_scramble(order, ADM_THREADS);
    const int i = (int)by;
    const int32_t *recip = d->recip_table + ADM_RECIP_ZERO;
    for (unsigned n = 0; n < ADM_THREADS; n++) {
        const unsigned t = order[n];
        const int j = (int)(bx * ADM_THREADS + t);
        uint64_t den[3] = { 0, 0, 0 };
        if (j >= c->w) continue;
        if (ref && k == 0)
            adm_tile_coef0_ref(c, i, j, d->ref0, d->pitch, d->a_ref[0], &b, den);
        else if (ref)
            adm_tile_coef32_ref(c, i, j, d->a_ref[(k - 1) & 1], d->a_ref[k & 1], &b, den);
        else if (k == 0)
            adm_tile_coef0_pair(c, i, j, d->dis0, d->pitch, recip, d->a_dis[0], &b, &d->planes);
        else
            adm_tile_coef32_pair(c, i, j, d->a_dis[(k - 1) & 1], recip, d->a_dis[k & 1], &b,
                                 &d->planes);
        for (int q = 0; q < 3; q++) v[q][t] = den[q];
    }
    if (!ref || i < c->t || i >= c->b) return;
    for (int q = 0; q < 3; q++)
        d->den_rows[c->rows_off + (size_t)q * c->h + i] += replay_block_fold(v[q], ADM_THREADS);
}

/* One launch of scale k: coef (kind 0), cm (1), or the ladder's reference
 * pass (2) or pair pass (3) coef. */
typedef struct Launch {
    Device *d;
    int k, kind;
} Launch;

static void launch_block(void *arg, unsigned bx, unsigned by)
{
    const Launch *l = arg;
    if (l->kind < 2) run_block(l->d, l->k, l->kind, bx, by);
    else run_block_split(l->d, l->k, l->kind == 2, bx, by);
}

static void run_launch(Device *d, int k, int kind)
{
    const AdmTileScale *c = &d->f.sc[k];
    const int cm = kind == 1;
    Launch l = { d, k, kind };
    replay_launch(ADM_GRID_X((unsigned)(cm ? c->r - c->l : c->w)),
                  (unsigned)(cm ? c->b - c->t : c->h), launch_block, &l);
}

/* The finish launch: block (q, k), the den rows of a scale with statistics
 * from den_rows, into sums. */
static void run_finish(Device *d, const uint64_t *den_rows, AdmScaleSums *sums)
{
    uint64_t *out = (uint64_t *)(void *)sums;
    for (int k = 0; k < ADM_N_SCALES; k++)
        for (int q = 0; q < ADM_N_SUMS; q++) {
            const AdmTileScale *c = &d->f.sc[k];
            const uint64_t *acc = (q < 3 && c->stats ? den_rows : d->rows) + c->rows_off +
                                  (size_t)q * c->h;
            uint64_t v[ADM_FINISH_THREADS];
            for (unsigned t = 0; t < ADM_FINISH_THREADS; t++) {
                v[t] = 0;
                for (int i = c->t + (int)t; i < c->b; i += ADM_FINISH_THREADS)
                    v[t] += adm_tile_row(c, q, acc[i]);
            }
            out[ADM_N_SUMS * k + q] = replay_block_fold(v, ADM_FINISH_THREADS);
        }
}

/* One frame on the replayed device. */
static void run_frame(Device *d, const AdmState *s, const TvmafPicture *ref,
                      const TvmafPicture *dis)
{
    upload(d, s, ref, dis);
    memset(d->rows, 0, d->n_rows * sizeof(uint64_t));
    for (int k = 0; k < ADM_N_SCALES; k++) {
        run_launch(d, k, 0);
        if (d->f.sc[k].stats) run_launch(d, k, 1);
    }
    run_finish(d, d->rows, d->sums);
}

/* frames replayed as a ladder's pair */
static unsigned n_split;

/* The frame (uploaded by run_frame) as a ladder's pair, and its sums
 * against the one-pass sums. */
static void run_frame_split(Device *d, const char *what, unsigned frame)
{
    memset(d->den_rows, 0, d->n_rows * sizeof(uint64_t));
    memset(d->rows, 0, d->n_rows * sizeof(uint64_t));
    for (int ref = 1; ref >= 0; ref--)
        for (int k = 0; k < ADM_N_SCALES; k++) {
            run_launch(d, k, ref ? 2 : 3);
            if (!ref && d->f.sc[k].stats) run_launch(d, k, 1);
        }
    run_finish(d, d->den_rows, d->split_sums);
    if (memcmp(d->split_sums, d->sums, sizeof(d->sums)))
        replay_fail("%s frame %u: the two passes' sums differ from one pass's", what, frame);
    n_split++;
}

/* ---- one case ---- */

static void check_sums(const Device *d, const AdmState *s, const TvmafVideoInfo *vi,
                       const TvmafPicture *ref, const TvmafPicture *dis, const char *what,
                       unsigned frame)
{
    AdmScaleSums cpu[ADM_N_SCALES];
    if (tvmaf_adm_cpu_sums(s, vi, ref, dis, cpu)) {
        replay_fail("%s: CPU sums", what);
        return;
    }
    for (int k = 0; k < ADM_N_SCALES; k++) {
        if (k == 0 && s->skip_scale0) continue;
        AdmScaleSums a = cpu[k], b = d->sums[k];
        if (s->skip_aim) memset(a.aim, 0, sizeof(a.aim)), memset(b.aim, 0, sizeof(b.aim));
        if (memcmp(&a, &b, sizeof(a))) {
            replay_fail("%s frame %u scale %d: sums cpu den %llu %llu %llu num %lld %lld %lld "
                   "aim %lld %lld %lld; replay den %llu %llu %llu num %lld %lld %lld aim %lld "
                   "%lld %lld", what, frame, k,
                   (unsigned long long)a.den[0], (unsigned long long)a.den[1],
                   (unsigned long long)a.den[2], (long long)a.num[0], (long long)a.num[1],
                   (long long)a.num[2], (long long)a.aim[0], (long long)a.aim[1],
                   (long long)a.aim[2], (unsigned long long)b.den[0],
                   (unsigned long long)b.den[1], (unsigned long long)b.den[2],
                   (long long)b.num[0], (long long)b.num[1], (long long)b.num[2],
                   (long long)b.aim[0], (long long)b.aim[1], (long long)b.aim[2]);
        }
    }
}

/* The replayed twin of one case: its device and its setup. */
typedef struct Twin {
    Device d;
    AdmState s;
    TvmafVideoInfo vi;
} Twin;

/* adm_cuda.c's extract of frame k, and its sums against the CPU's. */
static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *ref,
                             const TvmafPicture *dis, unsigned k, double *out)
{
    Twin *t = priv;
    run_frame(&t->d, &t->s, ref, dis);
    if (adm_ref_bands_shareable(&t->s)) run_frame_split(&t->d, c->what, k);
    const unsigned n = tvmaf_adm_values(&t->s, t->d.sums, out);
    check_sums(&t->d, &t->s, &t->vi, ref, dis, c->what, k);
    return n;
}

static const char *key(void *priv, unsigned q)
{
    return ((const Twin *)priv)->s.key[q];
}

static void run_case(const ReplayCase *c)
{
    Twin t;
    memset(&t, 0, sizeof(t));
    char msg[512] = "";
    memset(&t.s, 0, sizeof(t.s));
    tvmaf_options_set_defaults(tvmaf_adm_options, &t.s);
    t.vi = (TvmafVideoInfo){ c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_options_parse(tvmaf_adm_options, &t.s, c->opts, "adm", msg, sizeof(msg)) ||
        tvmaf_adm_setup(&t.s, &t.vi, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return;
    }
    if (device_alloc(&t.d, &t.s)) {
        replay_fail("%s: out of memory", c->what);
        return;
    }
    const ReplayPairTwin twin = { "adm", &t, replay_frame, key };
    replay_pair_case(c, &twin);
    device_free(&t.d);
}

/* Inputs the twin (through the shared setup) and the CPU extractor refuse. */
static void check_refusals(void)
{
    static const struct { unsigned w, h, bpc; const char *opts; int ok; } cases[] = {
        { 32, 33, 8, "", 0 },  { 33, 32, 8, "", 0 },  { 33, 33, 8, "", 1 },
        { 33, 33, 16, "", 1 }, { 33, 33, 7, "", 0 },  { 33, 33, 17, "", 0 },
        { 64, 64, 8, "adm_norm_view_dist=2.9", 0 },
        { 64, 64, 8, "adm_ref_display_height=720", 0 },
        { 64, 64, 8, "adm_norm_view_dist=1.5:adm_ref_display_height=2160", 1 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        AdmState s;
        memset(&s, 0, sizeof(s));
        tvmaf_options_set_defaults(tvmaf_adm_options, &s);
        const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, cases[i].bpc, cases[i].w, cases[i].h, 0, false };
        char msg[256] = "";
        int err = tvmaf_options_parse(tvmaf_adm_options, &s, cases[i].opts, "adm", msg,
                                      sizeof(msg));
        if (!err) err = tvmaf_adm_setup(&s, &vi, msg, sizeof(msg));
        if (cases[i].ok ? err != 0 : (err != -EINVAL || !strstr(msg, "adm")))
            replay_fail("refusal %ux%u %u-bit [%s]: err %d msg \"%s\"", cases[i].w, cases[i].h,
                        cases[i].bpc, cases[i].opts, err, msg);
        if (cases[i].ok || cases[i].bpc < 8 || cases[i].bpc > 16) continue;
        /* the CPU extractor refuses the same input */
        replay_check_cpu_refuses("adm", cases[i].opts, vi.pix_fmt, vi.bpc, vi.w, vi.h);
    }
}

int main(void)
{
    static const unsigned d8[] = { 8 }, d16[] = { 16 };
    /* widths chosen so the lane blocks (16 over the work range, 14 / 6 over
     * the cm columns) end differently at every scale, plus odd sizes */
    static const ReplaySize sizes[] = {
        { 33, 33 }, { 34, 35 }, { 177, 99 }, { 130, 70 }, { 144, 41 }, { 200, 52 },
        { 64, 64 }, { 257, 37 }, { 45, 120 }, { 97, 33 }, { 321, 45 },
        { 2 * ADM_THREADS + 1, 40 },
    };
    static const ReplaySize s33[] = { { 33, 33 } }, s177[] = { { 177, 99 } };
    static const ReplaySize s130[] = { { 130, 70 } }, s67[] = { { 67, 45 } };
    static const ReplaySize s99[] = { { 99, 40 } }, hd[] = { { 1920, 1080 } };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_LEVELS, REPLAY_EXTREMES, REPLAY_EDGES },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_EQUAL },
        { REPLAY_REF_FLAT, REPLAY_LINES, REPLAY_LINES_DIM },
    };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    static const ReplayFill lines[][REPLAY_MAX_FRAMES] = { { REPLAY_LINES } };
    static const char *const opt_sets[] = {
        "debug=true",
        "adm_csf_mode=1:debug=true",
        "adm_csf_mode=2:debug=true",
        "adm_csf_mode=3:debug=true",
        "adm_enhn_gain_limit=1.2:debug=true",
        "adm_enhn_gain_limit=1.2:adm_csf_mode=1",
        "adm_enhn_gain_limit=1.0:adm_skip_aim=true:debug=true",
        "adm_skip_aim=true",
        "adm_skip_scale0=true:debug=true",
        "adm_skip_scale0=true:adm_csf_mode=1:adm_enhn_gain_limit=1.7",
        "adm_noise_weight=0.5:adm_min_val=0.9:adm_dlm_weight=0.8:debug=true",
        "adm_csf_mode=2:adm_norm_view_dist=5:adm_ref_display_height=2160",
        "adm_csf_mode=3:adm_norm_view_dist=4:adm_ref_display_height=1000:debug=true",
        "adm_csf_mode=1:adm_csf_scale=3:adm_csf_diag_scale=0.25:debug=true",
        "adm_norm_view_dist=6:adm_ref_display_height=2160:debug=true",
        /* the other reference builds (DWT blocks, lanes, Q32 conversion) */
        "reference_isa=avx2:debug=true",
        "reference_isa=c:debug=true",
        "reference_isa=c:adm_csf_mode=1:adm_enhn_gain_limit=1.2:debug=true",
        "reference_isa=avx2:adm_csf_mode=1:debug=true",
    };
    static const char *const hd16_opts[] = { "adm_csf_mode=1:debug=true" };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence */
        { .name = "adm sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* every option set, every depth and sequence, three sizes */
        { .name = "adm options 33x33", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s33), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "adm options 177x99 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s177), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), .n_frames = 3 },
        { .name = "adm options 130x70", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s130), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        /* other layouts (adm reads luma only) */
        { .name = "adm 400", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_400),
          REPLAY_SET(sizes, s67), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "adm 422", REPLAY_SET(fmts, replay_422), REPLAY_SET(sizes, s99),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* a full HD frame, 8 and 16 bits */
        { .name = "adm 1920x1080 8-bit", REPLAY_SET(opts, replay_debug),
          REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, hd), REPLAY_SET(depths, d8),
          REPLAY_SET(seqs, near) },
        { .name = "adm 1920x1080 16-bit", REPLAY_SET(opts, hd16_opts), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, hd), REPLAY_SET(depths, d16), REPLAY_SET(seqs, lines) },
    };
    replay_seed(0x3c6ef372fe94f82bull);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], run_case);
    check_refusals();
    replay_count("adm refusals", 1);
    /* a case that stopped replaying the two passes would go unnoticed */
    printf("adm: %u frames also replayed as a ladder's two passes\n", n_split);
    if (n_split < 1000) replay_fail("only %u frames replayed as the two passes", n_split);
    return replay_report("adm");
}
