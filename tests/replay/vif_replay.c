/*
 * Host replay of the integer vif twin: vif_cuda.c's frame handling and
 * vif.cu's launches executed on the host, compared bit for bit with the CPU
 * extractor run through the public API, over random and edge inputs. Runs
 * without a GPU; the device parity test confirms it on hardware. The
 * decomposition (VIF_TILE_*, VIF_THREADS, VIF_GRID_*, VIF_ROW_BYTES, the
 * phases) is vif_tile.h's, the header the kernels compile; the scaffolding
 * (inputs, orders, folds, comparison) is tests/replay_common.h.
 *
 * What is replayed, as the twin does it:
 * - the upload: each picture's luma copied at the device pitch (the rows of
 *   tvmaf_picture_layout, 64-byte aligned; the padding holds garbage), and
 *   the decimated planes of scales 1..3 (rows of VIF_ROW_BYTES) kept between
 *   frames in buffers that start as garbage;
 * - per frame, the VifSums of the four scales zeroed, then one launch per
 *   scale over a grid of ceil(w / VIF_TILE_W) x ceil(h / VIF_TILE_H) blocks,
 *   visited in a scrambled order; each block runs the phases of vif_tile.h
 *   (the very functions the kernels run) for its VIF_THREADS threads in a
 *   scrambled order, with its shared memory filled with fresh garbage first
 *   (so a slot read before it is written, or a sample read outside what was
 *   loaded, changes the result), a barrier between load and the vertical
 *   passes and between those and the horizontal passes; then the threads'
 *   VifSums fold as the kernel folds them (shuffle-down within each warp, a
 *   lane whose source is outside the warp getting its own value back; lane 0
 *   of each warp to shared memory; one thread per field adding the warps)
 *   and each block adds its four totals into the scale's sums modulo 2^64
 *   (the 64-bit atomics);
 * - the read-back of the four VifSums and the shared host code
 *   (tvmaf_vif_values) that turns them into the outputs.
 * The outputs are compared with the CPU extractor's through the public API.
 * Each frame is also replayed as a ladder's pair runs it (vif_cuda.c's
 * extract_shared): the reference pass of the four scales (vif.cu's
 * vif_ref_scale*, into its own planes, terms and den sums), then the pair
 * pass (vif_pair_scale*), with the same garbage, scrambling and folds; the
 * two VifSums added must equal the one-pass sums, and both passes' planes
 * the one-pass planes, exactly.
 * Since a float output can hide a small difference in a sum, the replay's
 * integer sums and decimated planes are also compared exactly with a plain
 * position-by-position evaluation of the definition (mirrored indices, wide
 * integers, vif_pixel), which the CPU outputs anchor in turn.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"
#include "../replay_common.h"

_Static_assert(VIF_THREADS % REPLAY_WARP == 0, "a block is whole warps");

/* ---- the device (vif_cuda.c) ---- */

typedef struct Device {
    unsigned w[VIF_N_SCALES], h[VIF_N_SCALES], bpc;
    size_t pitch[VIF_N_SCALES];
    unsigned char *ref[VIF_N_SCALES], *dis[VIF_N_SCALES];
    uint16_t *log2_table;
    VifSums sums[VIF_N_SCALES];
    /* a block's shared memory, per scale, exactly the kernel's sizes */
    uint16_t *in_r[VIF_N_SCALES], *in_d[VIF_N_SCALES];
    uint16_t *mu1[VIF_N_SCALES], *mu2[VIF_N_SCALES];
    uint32_t *xx[VIF_N_SCALES], *yy[VIF_N_SCALES], *xy[VIF_N_SCALES];
    uint16_t *dv_r[VIF_N_SCALES], *dv_d[VIF_N_SCALES];
    /* the ladder's passes: the reference pass's planes (scales 1..3), terms
     * and den sums; the pair pass's planes and num sums */
    unsigned char *r2[VIF_N_SCALES], *d2[VIF_N_SCALES];
    uint32_t *mu1_t[VIF_N_SCALES];
    int32_t *sigma_t[VIF_N_SCALES];
    VifSums den[VIF_N_SCALES], num[VIF_N_SCALES];
} Device;

static size_t in_len(unsigned s) { return (size_t)VIF_IN_H(s) * VIF_IN_W(s); }
static size_t v_len(unsigned s) { return (size_t)VIF_TILE_H * VIF_IN_W(s); }
static size_t dv_len(unsigned s) { return s < 3 ? (size_t)VIF_TILE_H / 2 * VIF_DV_W(s) : 1; }

static void device_free(Device *d)
{
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        free(d->ref[s]);
        free(d->dis[s]);
        free(d->in_r[s]);
        free(d->in_d[s]);
        free(d->mu1[s]);
        free(d->mu2[s]);
        free(d->xx[s]);
        free(d->yy[s]);
        free(d->xy[s]);
        free(d->dv_r[s]);
        free(d->dv_d[s]);
        free(d->r2[s]);
        free(d->d2[s]);
        free(d->mu1_t[s]);
        free(d->sigma_t[s]);
    }
    free(d->log2_table);
    memset(d, 0, sizeof(*d));
}

static int device_alloc(Device *d, const VifParams *p)
{
    memset(d, 0, sizeof(*d));
    d->bpc = p->bpc;
    int ok = 1;
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        d->w[s] = p->w[s];
        d->h[s] = p->h[s];
        d->pitch[s] = VIF_ROW_BYTES(d->w[s]);
        if (s == 0) { /* the frame's device copy has the pictures' layout */
            size_t stride[3], off[3], total;
            if (tvmaf_picture_layout(TVMAF_PIX_FMT_YUV420P, p->bpc, p->w[0], p->h[0], stride, off,
                                     &total))
                return -EINVAL;
            d->pitch[0] = stride[0];
        }
        const size_t plane = d->pitch[s] * d->h[s];
        ok &= (d->ref[s] = malloc(plane)) && (d->dis[s] = malloc(plane));
        ok &= (d->r2[s] = malloc(plane)) && (d->d2[s] = malloc(plane)) &&
              (d->mu1_t[s] = malloc(sizeof(uint32_t) * d->w[s] * d->h[s])) &&
              (d->sigma_t[s] = malloc(sizeof(int32_t) * d->w[s] * d->h[s]));
        if (ok) {
            replay_garbage(d->ref[s], plane);
            replay_garbage(d->dis[s], plane);
            replay_garbage(d->r2[s], plane);
            replay_garbage(d->d2[s], plane);
            replay_garbage(d->mu1_t[s], sizeof(uint32_t) * d->w[s] * d->h[s]);
            replay_garbage(d->sigma_t[s], sizeof(int32_t) * d->w[s] * d->h[s]);
        }
        ok &= (d->in_r[s] = malloc(in_len(s) * 2)) && (d->in_d[s] = malloc(in_len(s) * 2)) &&
              (d->mu1[s] = malloc(v_len(s) * 2)) && (d->mu2[s] = malloc(v_len(s) * 2)) &&
              (d->xx[s] = malloc(v_len(s) * 4)) && (d->yy[s] = malloc(v_len(s) * 4)) &&
              (d->xy[s] = malloc(v_len(s) * 4)) && (d->dv_r[s] = malloc(dv_len(s) * 2)) &&
              (d->dv_d[s] = malloc(dv_len(s) * 2));
    }
    ok &= (d->log2_table = malloc(VIF_LOG2_TABLE_LEN * sizeof(uint16_t))) != NULL;
    if (!ok) {
        device_free(d);
        return -ENOMEM;
    }
    vif_log2_table_fill(d->log2_table, vif_log2_steps);
    return 0;
}

/* tvmaf_twin_frame_upload of the luma: rows at the device pitch, the padding
 * left as it was (whatever the staging buffer held). */
static void upload(Device *d, const TvmafPicture *ref, const TvmafPicture *dis)
{
    const size_t row = (size_t)d->w[0] * (d->bpc == 8 ? 1 : 2);
    const unsigned char *r = ref->data[0], *s = dis->data[0];
    for (unsigned i = 0; i < d->h[0]; i++) {
        memcpy(d->ref[0] + i * d->pitch[0], r + i * ref->stride[0], row);
        memcpy(d->dis[0] + i * d->pitch[0], s + i * dis->stride[0], row);
    }
}

/* The kernel's fold of a block's VifSums, one field (warp_sum + the warps). */
static uint64_t block_fold(const int64_t *v)
{
    uint64_t u[VIF_THREADS];
    for (unsigned t = 0; t < VIF_THREADS; t++) u[t] = (uint64_t)v[t];
    return replay_block_fold(u, VIF_THREADS);
}

/* A block's shared memory at scale s holds whatever the previous block
 * left, or anything. */
static void shared_garbage(Device *d, unsigned s)
{
    replay_garbage(d->in_r[s], in_len(s) * 2);
    replay_garbage(d->in_d[s], in_len(s) * 2);
    replay_garbage(d->mu1[s], v_len(s) * 2);
    replay_garbage(d->mu2[s], v_len(s) * 2);
    replay_garbage(d->xx[s], v_len(s) * 4);
    replay_garbage(d->yy[s], v_len(s) * 4);
    replay_garbage(d->xy[s], v_len(s) * 4);
    replay_garbage(d->dv_r[s], dv_len(s) * 2);
    replay_garbage(d->dv_d[s], dv_len(s) * 2);
}

/* One block of scale s's launch. */
static void run_block(Device *d, const VifParams *p, unsigned s, unsigned bx, unsigned by)
{
    static const uint16_t taps[VIF_N_SCALES][VIF_MAX_TAPS] = VIF_FILTER_TAPS;
    const unsigned last = VIF_N_SCALES - 1;
    const int score = vif_scale_scored(p, s);
    const VifTile tl = { s, p->bpc, s == 0 && p->bpc == 8, d->w[s], d->h[s],
                         (int)(bx * VIF_TILE_W), (int)(by * VIF_TILE_H), taps[s],
                         taps[s < last ? s + 1 : s] };
    const VifTileMem m = { d->in_r[s], d->in_d[s], d->mu1[s], d->mu2[s], d->xx[s], d->yy[s],
                           d->xy[s], d->dv_r[s], d->dv_d[s] };
    shared_garbage(d, s);

    unsigned order[VIF_THREADS];
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++)
        vif_tile_load(order[i], &tl, d->ref[s], d->dis[s], d->pitch[s], &m);
    /* barrier */
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++) {
        if (score) vif_tile_stat_v(order[i], &tl, &m);
        if (s < last) vif_tile_down_v(order[i], &tl, &m);
    }
    /* barrier */
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++)
        if (s < last)
            vif_tile_down_h(order[i], &tl, &m, d->ref[s + 1], d->dis[s + 1], d->pitch[s + 1]);
    if (!score) return;
    VifSums acc[VIF_THREADS];
    memset(acc, 0, sizeof(acc));
    for (unsigned i = 0; i < VIF_THREADS; i++)
        vif_tile_stat_h(order[i], &tl, &m, d->log2_table, p->gain_limit, &acc[order[i]]);
    int64_t f[4][VIF_THREADS];
    for (unsigned t = 0; t < VIF_THREADS; t++) {
        f[0][t] = acc[t].num_log;
        f[1][t] = acc[t].den_log;
        f[2][t] = acc[t].num_lin;
        f[3][t] = acc[t].den_lin;
    }
    /* atomicAdd on unsigned long long: modulo 2^64 */
    d->sums[s].num_log = (int64_t)((uint64_t)d->sums[s].num_log + block_fold(f[0]));
    d->sums[s].den_log = (int64_t)((uint64_t)d->sums[s].den_log + block_fold(f[1]));
    d->sums[s].num_lin = (int64_t)((uint64_t)d->sums[s].num_lin + block_fold(f[2]));
    d->sums[s].den_lin = (int64_t)((uint64_t)d->sums[s].den_lin + block_fold(f[3]));
}

static void run_block_split(Device *d, const VifParams *p, unsigned s, unsigned bx, unsigned by,
                            int ref);

/* One launch of scale s: the one-pass kernel (ref < 0), or the ladder's
 * reference pass (1) or pair pass (0). */
typedef struct Launch {
    Device *d;
    const VifParams *p;
    unsigned s;
    int ref;
} Launch;

static void launch_block(void *arg, unsigned bx, unsigned by)
{
    const Launch *l = arg;
    if (l->ref < 0) run_block(l->d, l->p, l->s, bx, by);
    else run_block_split(l->d, l->p, l->s, bx, by, l->ref);
}

/* One frame on the replayed device: upload, zeroed sums, four launches. */
static void run_frame(Device *d, const VifParams *p, const TvmafPicture *ref,
                      const TvmafPicture *dis)
{
    upload(d, ref, dis);
    memset(d->sums, 0, sizeof(d->sums));
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        Launch l = { d, p, s, -1 };
        replay_launch(VIF_GRID_X(d->w[s]), VIF_GRID_Y(d->h[s]), launch_block, &l);
    }
}

/* The threads' VifSums of a block, folded and added into *dst (modulo 2^64,
 * as the kernels' atomics). */
static void block_add(VifSums *dst, const VifSums *acc)
{
    int64_t f[4][VIF_THREADS];
    for (unsigned t = 0; t < VIF_THREADS; t++) {
        f[0][t] = acc[t].num_log;
        f[1][t] = acc[t].den_log;
        f[2][t] = acc[t].num_lin;
        f[3][t] = acc[t].den_lin;
    }
    dst->num_log = (int64_t)((uint64_t)dst->num_log + block_fold(f[0]));
    dst->den_log = (int64_t)((uint64_t)dst->den_log + block_fold(f[1]));
    dst->num_lin = (int64_t)((uint64_t)dst->num_lin + block_fold(f[2]));
    dst->den_lin = (int64_t)((uint64_t)dst->den_lin + block_fold(f[3]));
}

/* One block of the ladder's reference pass (ref) or pair pass (!ref) at
 * scale s. Scale 0 reads the uploaded planes; scale s > 0 the reference
 * pass's reference plane and the pair pass's distorted plane. */
static void run_block_split(Device *d, const VifParams *p, unsigned s, unsigned bx, unsigned by,
                            int ref)
{
    static const uint16_t taps[VIF_N_SCALES][VIF_MAX_TAPS] = VIF_FILTER_TAPS;
    const unsigned last = VIF_N_SCALES - 1;
    const int score = ref || vif_scale_scored(p, s);
    const VifTile tl = { s, p->bpc, s == 0 && p->bpc == 8, d->w[s], d->h[s],
                         (int)(bx * VIF_TILE_W), (int)(by * VIF_TILE_H), taps[s],
                         taps[s < last ? s + 1 : s] };
    /* the kernels' shared memory: the reference pass has in_r, mu1, xx and
     * dv_r; the pair pass in_r, in_d, mu2, yy, xy and dv_d */
    const VifTileMem m = { d->in_r[s], ref ? NULL : d->in_d[s], ref ? d->mu1[s] : NULL,
                           ref ? NULL : d->mu2[s], ref ? d->xx[s] : NULL,
                           ref ? NULL : d->yy[s], ref ? NULL : d->xy[s],
                           ref ? d->dv_r[s] : NULL, ref ? NULL : d->dv_d[s] };
    shared_garbage(d, s);
    const unsigned char *src_r = s ? d->r2[s] : d->ref[0];
    const unsigned char *src_d = s ? d->d2[s] : d->dis[0];
    const VifRefTerms terms = { d->mu1_t[s], d->sigma_t[s] };

    unsigned order[VIF_THREADS];
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++) {
        if (ref) vif_tile_load1(order[i], &tl, src_r, d->pitch[s], m.in_r);
        else if (score) vif_tile_load(order[i], &tl, src_r, src_d, d->pitch[s], &m);
        else vif_tile_load1(order[i], &tl, src_d, d->pitch[s], d->in_d[s]);
    }
    /* barrier */
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++) {
        if (ref) vif_tile_stat_v_ref(order[i], &tl, &m);
        else if (score) vif_tile_stat_v_pair(order[i], &tl, &m);
        if (s < last) vif_tile_down_v1(order[i], &tl, ref ? m.in_r : m.in_d, ref ? m.dv_r : m.dv_d);
    }
    /* barrier */
    replay_scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++)
        if (s < last)
            vif_tile_down_h1(order[i], &tl, ref ? m.dv_r : m.dv_d, ref ? d->r2[s + 1] : d->d2[s + 1],
                             d->pitch[s + 1]);
    if (!score) return;
    VifSums acc[VIF_THREADS];
    memset(acc, 0, sizeof(acc));
    for (unsigned i = 0; i < VIF_THREADS; i++) {
        if (ref)
            vif_tile_stat_h_ref(order[i], &tl, &m, d->log2_table, &terms, &acc[order[i]]);
        else
            vif_tile_stat_h_pair(order[i], &tl, &m, &terms, d->log2_table, p->gain_limit,
                                 &acc[order[i]]);
    }
    block_add(ref ? &d->den[s] : &d->num[s], acc);
}

/* The frame (uploaded by run_frame) as a ladder's pair: the reference pass's
 * four launches, then the pair pass's, then the two sums' comparison with
 * the one-pass sums and planes. */
static void run_frame_split(Device *d, const VifParams *p, const char *what, unsigned frame)
{
    memset(d->den, 0, sizeof(d->den));
    memset(d->num, 0, sizeof(d->num));
    for (int ref = 1; ref >= 0; ref--) {
        for (unsigned s = 0; s < VIF_N_SCALES; s++) {
            Launch l = { d, p, s, ref };
            replay_launch(VIF_GRID_X(d->w[s]), VIF_GRID_Y(d->h[s]), launch_block, &l);
        }
    }
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        VifSums sum = d->num[s];
        vif_sums_add(&sum, &d->den[s]);
        if (vif_scale_scored(p, s) && memcmp(&sum, &d->sums[s], sizeof(sum)))
            replay_fail("%s frame %u scale %u: the two passes' sums %lld %lld %lld %lld, one "
                        "pass %lld %lld %lld %lld", what, frame, s, (long long)sum.num_log,
                        (long long)sum.den_log, (long long)sum.num_lin, (long long)sum.den_lin,
                        (long long)d->sums[s].num_log, (long long)d->sums[s].den_log,
                        (long long)d->sums[s].num_lin, (long long)d->sums[s].den_lin);
        if (s == 0) continue;
        unsigned bad = 0;
        for (unsigned i = 0; i < d->h[s]; i++)
            bad += memcmp(d->r2[s] + i * d->pitch[s], d->ref[s] + i * d->pitch[s],
                          2 * d->w[s]) != 0 ||
                   memcmp(d->d2[s] + i * d->pitch[s], d->dis[s] + i * d->pitch[s],
                          2 * d->w[s]) != 0;
        if (bad)
            replay_fail("%s frame %u: %u rows of scale %u differ between the two passes and one",
                        what, frame, bad, s);
    }
}

/* ---- the definition, position by position ---- */

static unsigned mirror(int i, unsigned n)
{
    if (i < 0) return (unsigned)-i;
    if (i >= (int)n) return 2 * (n - 1) - (unsigned)i;
    return (unsigned)i;
}

typedef struct Plane {
    const unsigned char *data;
    size_t pitch;
    int is8;
    unsigned w, h;
} Plane;

static uint64_t px(const Plane *pl, int x, int y)
{
    const unsigned char *row = pl->data + mirror(y, pl->h) * pl->pitch;
    const unsigned c = mirror(x, pl->w);
    return pl->is8 ? row[c] : ((const uint16_t *)row)[c];
}

static uint64_t round_shift(uint64_t v, unsigned sh)
{
    return sh ? (v + ((uint64_t)1 << (sh - 1))) >> sh : v;
}

/* Scale s's sums (when scored) and the planes of scale s + 1 (w/2 x h/2,
 * tight rows; when s < 3), from the planes of scale s. */
static void reference_scale(const Plane *r, const Plane *dd, unsigned s, const VifParams *p,
                            const uint16_t *log2_table, VifSums *sums, uint16_t *next_r,
                            uint16_t *next_d)
{
    const unsigned w = r->w, h = r->h;
    const unsigned mu_sh = s ? 16 : p->bpc, sq_sh = s ? 16 : 2 * (p->bpc - 8);
    memset(sums, 0, sizeof(*sums));
    if (vif_scale_scored(p, s)) {
        const int half = (int)vif_filter_width[s] / 2;
        const uint16_t *taps = vif_filter_taps[s];
        uint64_t *v = malloc(sizeof(uint64_t) * 5 * w);
        if (!v) {
            replay_fail("out of memory");
            return;
        }
        for (unsigned i = 0; i < h; i++) {
            /* vertical pass of row i: means (16 bits) and moments (32 bits) */
            for (unsigned j = 0; j < w; j++) {
                uint64_t a[5] = { 0, 0, 0, 0, 0 };
                for (int k = 0; k <= 2 * half; k++) {
                    const uint64_t x = px(r, (int)j, (int)i - half + k);
                    const uint64_t y = px(dd, (int)j, (int)i - half + k);
                    a[0] += taps[k] * x;
                    a[1] += taps[k] * y;
                    a[2] += taps[k] * x * x;
                    a[3] += taps[k] * y * y;
                    a[4] += taps[k] * x * y;
                }
                for (int q = 0; q < 5; q++) {
                    v[q * w + j] = round_shift(a[q], q < 2 ? mu_sh : sq_sh);
                    if (v[q * w + j] >> (q < 2 ? 16 : 32))
                        replay_fail("reference: vertical value too wide");
                }
            }
            /* horizontal pass and the statistic */
            for (unsigned j = 0; j < w; j++) {
                uint64_t a[5] = { 0, 0, 0, 0, 0 };
                for (int k = 0; k <= 2 * half; k++)
                    for (int q = 0; q < 5; q++)
                        a[q] += taps[k] * v[q * w + mirror((int)j - half + k, w)];
                vif_pixel(sums, (uint32_t)a[0], (uint32_t)a[1], a[2], a[3], a[4], log2_table,
                          p->gain_limit);
            }
        }
        free(v);
    }
    if (s + 1 == VIF_N_SCALES) return;
    /* low-pass with the next scale's filter at the even rows and columns */
    const int half = (int)vif_filter_width[s + 1] / 2;
    const uint16_t *taps = vif_filter_taps[s + 1];
    const unsigned w2 = w / 2, h2 = h / 2;
    for (unsigned oi = 0; oi < h2; oi++)
        for (unsigned oj = 0; oj < w2; oj++) {
            uint64_t ar = 0, ad = 0;
            for (int kx = 0; kx <= 2 * half; kx++) {
                const int x = (int)(2 * oj) - half + kx;
                uint64_t vr = 0, vd = 0;
                for (int ky = 0; ky <= 2 * half; ky++) {
                    vr += taps[ky] * px(r, x, (int)(2 * oi) - half + ky);
                    vd += taps[ky] * px(dd, x, (int)(2 * oi) - half + ky);
                }
                ar += taps[kx] * round_shift(vr, s ? 16 : p->bpc);
                ad += taps[kx] * round_shift(vd, s ? 16 : p->bpc);
            }
            next_r[oi * w2 + oj] = (uint16_t)round_shift(ar, 16);
            next_d[oi * w2 + oj] = (uint16_t)round_shift(ad, 16);
        }
}

/* ---- one case ---- */

static void check_reference(const Device *d, const VifParams *p, const TvmafPicture *ref,
                            const TvmafPicture *dis, const char *what, unsigned frame)
{
    Plane r = { ref->data[0], (size_t)ref->stride[0], p->bpc == 8, p->w[0], p->h[0] };
    Plane dd = { dis->data[0], (size_t)dis->stride[0], p->bpc == 8, p->w[0], p->h[0] };
    uint16_t *img[VIF_N_SCALES][2] = { { NULL, NULL } };
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        VifSums sums;
        uint16_t *nr = NULL, *nd = NULL;
        if (s + 1 < VIF_N_SCALES) {
            nr = img[s + 1][0] = malloc(sizeof(uint16_t) * p->w[s + 1] * p->h[s + 1]);
            nd = img[s + 1][1] = malloc(sizeof(uint16_t) * p->w[s + 1] * p->h[s + 1]);
            if (!nr || !nd) {
                replay_fail("out of memory");
                break;
            }
        }
        reference_scale(&r, &dd, s, p, d->log2_table, &sums, nr, nd);
        if (vif_scale_scored(p, s) && memcmp(&sums, &d->sums[s], sizeof(sums))) {
            replay_fail("%s frame %u scale %u: sums replay %lld %lld %lld %lld, definition "
                        "%lld %lld %lld %lld", what, frame, s, (long long)d->sums[s].num_log,
                   (long long)d->sums[s].den_log, (long long)d->sums[s].num_lin,
                        (long long)d->sums[s].den_lin, (long long)sums.num_log,
                        (long long)sums.den_log, (long long)sums.num_lin,
                        (long long)sums.den_lin);
        }
        if (s + 1 == VIF_N_SCALES) break;
        /* the planes of scale s + 1 on the replayed device */
        const unsigned w2 = p->w[s + 1], h2 = p->h[s + 1];
        unsigned bad = 0;
        for (unsigned i = 0; i < h2; i++)
            for (unsigned j = 0; j < w2; j++) {
                const uint16_t a = ((const uint16_t *)(d->ref[s + 1] + i * d->pitch[s + 1]))[j];
                const uint16_t b = ((const uint16_t *)(d->dis[s + 1] + i * d->pitch[s + 1]))[j];
                bad += a != nr[i * w2 + j] || b != nd[i * w2 + j];
            }
        if (bad)
            replay_fail("%s frame %u: %u samples of scale %u differ from the definition", what,
                        frame, bad, s + 1);
        r = (Plane){ (const unsigned char *)nr, sizeof(uint16_t) * w2, 0, w2, h2 };
        dd = (Plane){ (const unsigned char *)nd, sizeof(uint16_t) * w2, 0, w2, h2 };
    }
    for (unsigned s = 1; s < VIF_N_SCALES; s++) {
        free(img[s][0]);
        free(img[s][1]);
    }
}

/* The replayed twin of one case: its device and its setup. */
typedef struct Twin {
    Device d;
    VifParams p;
} Twin;

/* vif_cuda.c's extract of frame k, and the definition's check of its sums. */
static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *ref,
                             const TvmafPicture *dis, unsigned k, double *out)
{
    Twin *t = priv;
    run_frame(&t->d, &t->p, ref, dis);
    run_frame_split(&t->d, &t->p, c->what, k);
    const unsigned n = tvmaf_vif_values(&t->p, t->d.sums, out);
    check_reference(&t->d, &t->p, ref, dis, c->what, k);
    return n;
}

static const char *key(void *priv, unsigned q)
{
    return ((const Twin *)priv)->p.key[q];
}

static void run_case(const ReplayCase *c)
{
    Twin t;
    memset(&t, 0, sizeof(t));
    char msg[512] = "";
    memset(&t.p, 0, sizeof(t.p));
    tvmaf_options_set_defaults(tvmaf_vif_options, &t.p);
    const TvmafVideoInfo vi = { c->fmt, c->bpc, c->w, c->h, 0, false };
    if (tvmaf_options_parse(tvmaf_vif_options, &t.p, c->opts, "vif", msg, sizeof(msg)) ||
        tvmaf_vif_setup(&t.p, &vi, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", c->what, msg);
        return;
    }
    if (device_alloc(&t.d, &t.p)) {
        replay_fail("%s: out of memory", c->what);
        return;
    }
    const ReplayPairTwin twin = { "vif", &t, replay_frame, key };
    replay_pair_case(c, &twin);
    device_free(&t.d);
}

/* Frames the twin (through the shared setup) and the CPU extractor refuse. */
static void check_refusals(void)
{
    static const struct { unsigned w, h, bpc; int ok; } cases[] = {
        { 15, 16, 8, 0 }, { 16, 15, 8, 0 }, { 8, 8, 10, 0 }, { 1, 100, 8, 0 },
        { 16, 16, 8, 1 }, { 16, 16, 16, 1 }, { 16, 16, 7, 0 }, { 16, 16, 17, 0 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        VifParams p;
        memset(&p, 0, sizeof(p));
        tvmaf_options_set_defaults(tvmaf_vif_options, &p);
        const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, cases[i].bpc, cases[i].w, cases[i].h, 0, false };
        char msg[256] = "";
        const int err = tvmaf_vif_setup(&p, &vi, msg, sizeof(msg));
        if (cases[i].ok ? err != 0 : (err != -EINVAL || !strstr(msg, "vif")))
            replay_fail("refusal %ux%u %u-bit: err %d msg \"%s\"", cases[i].w, cases[i].h,
                        cases[i].bpc, err, msg);
        if (cases[i].ok || cases[i].bpc < 8 || cases[i].bpc > 16) continue;
        /* the CPU extractor refuses the same frame */
        replay_check_cpu_refuses("vif", "", vi.pix_fmt, vi.bpc, vi.w, vi.h);
    }
}

int main(void)
{
    static const ReplaySize sizes[] = {
        { 16, 16 }, { 17, 17 }, { 177, 99 }, { 16, 40 }, { 41, 16 }, { 64, 16 }, { 65, 33 },
        { 128, 32 }, { 130, 34 }, { 23, 71 }, { 199, 18 }, { 31, 31 }, { 96, 80 },
        /* one past a tile (at least vif's 16 rows), one short of a tile */
        { VIF_TILE_W + 1, VIF_TILE_H < 15 ? 16 : VIF_TILE_H + 1 },
        { VIF_TILE_W - 1, 2 * VIF_TILE_H - 1 },
    };
    static const ReplaySize s17[] = { { 17, 17 } }, s177[] = { { 177, 99 } };
    static const ReplaySize s33[] = { { 33, 19 } }, s67[] = { { 67, 45 } };
    static const ReplaySize s353[] = { { 353, 147 } }, hd[] = { { 1920, 1080 } };
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_SMOOTH },
        { REPLAY_LEVELS, REPLAY_EXTREMES, REPLAY_EDGES },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_EQUAL },
        { REPLAY_REF_FLAT, REPLAY_SMOOTH, REPLAY_NEAR },
    };
    static const ReplayFill near[][REPLAY_MAX_FRAMES] = { { REPLAY_NEAR } };
    static const char *const opt_sets[] = {
        "vif_enhn_gain_limit=1.0",
        "vif_skip_scale0=true:debug=true",
        "debug=true",
        "vif_enhn_gain_limit=1.5:debug=true",
        "vif_skip_scale0=true",
    };
    static const unsigned two[] = { 2 };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence */
        { .name = "vif sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* every option set, every depth and sequence, two sizes */
        { .name = "vif options 17x17", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s17), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "vif options 177x99 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s177), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), .n_frames = 3 },
        /* other layouts (vif reads luma only), and larger frames */
        { .name = "vif 400", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_400),
          REPLAY_SET(sizes, s33), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 3 },
        { .name = "vif 422", REPLAY_SET(fmts, replay_422), REPLAY_SET(sizes, s67),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 3 },
        { .name = "vif 353x147", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s353), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          REPLAY_SET(lengths, two) },
        /* a full HD frame, 8 and 16 bits */
        { .name = "vif 1920x1080", REPLAY_SET(opts, replay_debug), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, hd), REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, near) },
    };
    replay_seed(0x9b05688c2b3e6c1full);
    for (unsigned s = 0; s < VIF_N_SCALES; s++)
        if (2 * VIF_HALF(s) + 1 != vif_filter_width[s])
            replay_fail("VIF_HALF(%u) is not half of the filter", s);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], run_case);
    check_refusals();
    replay_count("vif refusals", 1);
    return replay_report("vif");
}
