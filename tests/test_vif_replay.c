/*
 * Device replay of the integer vif twin: vif_cuda.c's frame handling and
 * vif.cu's launches executed on the host, compared bit for bit with the CPU
 * extractor run through the public API, over random and edge inputs. Runs
 * without a GPU; the device parity test confirms it on hardware.
 *
 * What is replayed, as the twin does it:
 * - the upload: each picture's luma copied at the device pitch (the rows of
 *   tvmaf_picture_layout, 64-byte aligned; the padding holds garbage), and
 *   the decimated planes of scales 1..3 (rows of 256 bytes) kept between frames in buffers that start as garbage;
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

#include "tvmaf/tvmaf.h"
#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/vif/vif_math.h"
#include "feature/vif/vif_state.h"
#include "feature/vif/vif_tile.h"

/* vif_cuda.c's row alignment of its decimated planes */
#define ROW_ALIGN 256
#define MAX_FRAMES 4

static int failures;
static uint64_t rng = 0x9b05688c2b3e6c1full;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void garbage(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)next();
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

static size_t align_row(size_t bytes)
{
    return (bytes + ROW_ALIGN - 1) & ~(size_t)(ROW_ALIGN - 1);
}

/* A permutation of 0..n-1 visiting in a scrambled order. */
static void scramble(unsigned *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++) order[i] = i;
    for (unsigned i = n; i > 1; i--) {
        const unsigned j = next() % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

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
        d->pitch[s] = align_row((size_t)d->w[s] * (s == 0 && p->bpc == 8 ? 1 : 2));
        if (s == 0) { /* the frame's device copy has the pictures' layout */
            size_t stride[3], off[3], total;
            if (tvmaf_picture_layout(TVMAF_PIX_FMT_YUV420P, p->bpc, p->w[0], p->h[0], stride, off,
                                     &total))
                return -EINVAL;
            d->pitch[0] = stride[0];
        }
        const size_t plane = d->pitch[s] * d->h[s];
        ok &= (d->ref[s] = malloc(plane)) && (d->dis[s] = malloc(plane));
        if (ok) {
            garbage(d->ref[s], plane);
            garbage(d->dis[s], plane);
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
    int64_t partial[VIF_THREADS / 32];
    for (unsigned wp = 0; wp < VIF_THREADS / 32; wp++) {
        int64_t lane[32];
        memcpy(lane, v + 32 * wp, sizeof(lane));
        for (unsigned o = 16; o > 0; o >>= 1) {
            int64_t old[32];
            memcpy(old, lane, sizeof(old));
            /* __shfl_down_sync: a lane whose source is past lane 31 gets its own value */
            for (unsigned l = 0; l < 32; l++) {
                const int64_t src = l + o < 32 ? old[l + o] : old[l];
                lane[l] = (int64_t)((uint64_t)old[l] + (uint64_t)src);
            }
        }
        partial[wp] = lane[0];
    }
    uint64_t total = 0;
    for (unsigned k = 0; k < VIF_THREADS / 32; k++) total += (uint64_t)partial[k];
    return total;
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
    /* shared memory holds whatever the previous block left, or anything */
    garbage(m.in_r, in_len(s) * 2);
    garbage(m.in_d, in_len(s) * 2);
    garbage(m.mu1, v_len(s) * 2);
    garbage(m.mu2, v_len(s) * 2);
    garbage(m.xx, v_len(s) * 4);
    garbage(m.yy, v_len(s) * 4);
    garbage(m.xy, v_len(s) * 4);
    garbage(m.dv_r, dv_len(s) * 2);
    garbage(m.dv_d, dv_len(s) * 2);

    unsigned order[VIF_THREADS];
    scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++)
        vif_tile_load(order[i], &tl, d->ref[s], d->dis[s], d->pitch[s], &m);
    /* barrier */
    scramble(order, VIF_THREADS);
    for (unsigned i = 0; i < VIF_THREADS; i++) {
        if (score) vif_tile_stat_v(order[i], &tl, &m);
        if (s < last) vif_tile_down_v(order[i], &tl, &m);
    }
    /* barrier */
    scramble(order, VIF_THREADS);
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

/* One frame on the replayed device: upload, zeroed sums, four launches. */
static void run_frame(Device *d, const VifParams *p, const TvmafPicture *ref,
                      const TvmafPicture *dis)
{
    upload(d, ref, dis);
    memset(d->sums, 0, sizeof(d->sums));
    for (unsigned s = 0; s < VIF_N_SCALES; s++) {
        const unsigned gx = VIF_GRID_X(d->w[s]), gy = VIF_GRID_Y(d->h[s]);
        unsigned *order = malloc(sizeof(unsigned) * gx * gy);
        if (!order) {
            failures++;
            return;
        }
        scramble(order, gx * gy);
        for (unsigned b = 0; b < gx * gy; b++) run_block(d, p, s, order[b] % gx, order[b] / gx);
        free(order);
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
            failures++;
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
                    if (v[q * w + j] >> (q < 2 ? 16 : 32)) {
                        printf("FAIL reference: vertical value too wide\n");
                        failures++;
                    }
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

/* ---- inputs ---- */

enum Fill { RANDOM, NEAR, SMOOTH, LEVELS, EXTREMES, CONST0, CONSTMAX, EQUAL, REF_FLAT, EDGES };
static const char *fill_names[] = { "random", "near", "smooth", "levels", "extremes",
                                    "const0", "constmax", "equal", "ref-flat", "edges" };

static void put(TvmafPicture *pic, unsigned x, unsigned y, unsigned v)
{
    unsigned char *row = (unsigned char *)pic->data[0] + (size_t)y * pic->stride[0];
    if (pic->bpc == 8) row[x] = (unsigned char)v;
    else ((uint16_t *)row)[x] = (uint16_t)v;
}

static unsigned clampv(int v, unsigned maxv)
{
    return v < 0 ? 0 : v > (int)maxv ? maxv : (unsigned)v;
}

/* Luma of ref and dis (chroma, never read by vif, gets random values). */
static void fill(TvmafPicture *r, TvmafPicture *d, enum Fill how, unsigned seed)
{
    const unsigned maxv = (1u << r->bpc) - 1, w = r->w[0], h = r->h[0];
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            unsigned a, b;
            switch (how) {
            case RANDOM: a = next() & maxv; b = next() & maxv; break;
            case NEAR:
                a = next() & maxv;
                b = clampv((int)a + (int)(next() % 17) - 8, maxv);
                break;
            case SMOOTH: { /* gentle gradients: many pixels below the noise floor */
                const unsigned base = (x * 3 + y * 5 + seed * 7) % 256;
                a = (base << (r->bpc - 8)) & maxv;
                b = clampv((int)a + (int)(next() % 3) - 1, maxv);
                break;
            }
            case LEVELS:
                a = ((x + 1) * 2654435761u ^ (y + seed) * 40503u) & maxv;
                b = (a * 3 / 4 + (next() & 7)) & maxv;
                break;
            case EXTREMES: a = (next() & 1) ? maxv : 0; b = (next() & 1) ? maxv : 0; break;
            case CONST0: a = b = 0; break;
            case CONSTMAX: a = b = maxv; break;
            case EQUAL: a = b = next() & maxv; break;
            case REF_FLAT: a = maxv / 2; b = next() & maxv; break;
            default: /* stripes and a checker touching every border */
                a = ((x + seed) % 3 == 0) ^ ((y / (1 + seed % 2)) % 2 == 0) ? maxv : 0;
                b = ((x / 2 + y) % 4 < 2) ? maxv : a;
                break;
            }
            put(r, x, y, a);
            put(d, x, y, b);
        }
    for (int pl = 1; pl < 3; pl++)
        for (unsigned y = 0; y < r->h[pl]; y++)
            for (unsigned x = 0; x < r->w[pl]; x++) {
                unsigned char *rr = (unsigned char *)r->data[pl] + (size_t)y * r->stride[pl];
                unsigned char *dr = (unsigned char *)d->data[pl] + (size_t)y * d->stride[pl];
                if (r->bpc == 8) {
                    rr[x] = (unsigned char)next();
                    dr[x] = (unsigned char)next();
                } else {
                    ((uint16_t *)rr)[x] = (uint16_t)(next() & maxv);
                    ((uint16_t *)dr)[x] = (uint16_t)(next() & maxv);
                }
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
                failures++;
                break;
            }
        }
        reference_scale(&r, &dd, s, p, d->log2_table, &sums, nr, nd);
        if (vif_scale_scored(p, s) && memcmp(&sums, &d->sums[s], sizeof(sums))) {
            printf("FAIL %s frame %u scale %u: sums replay %lld %lld %lld %lld, definition "
                   "%lld %lld %lld %lld\n", what, frame, s, (long long)d->sums[s].num_log,
                   (long long)d->sums[s].den_log, (long long)d->sums[s].num_lin,
                   (long long)d->sums[s].den_lin, (long long)sums.num_log,
                   (long long)sums.den_log, (long long)sums.num_lin, (long long)sums.den_lin);
            failures++;
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
        if (bad) {
            printf("FAIL %s frame %u: %u samples of scale %u differ from the definition\n",
                   what, frame, bad, s + 1);
            failures++;
        }
        r = (Plane){ (const unsigned char *)nr, sizeof(uint16_t) * w2, 0, w2, h2 };
        dd = (Plane){ (const unsigned char *)nd, sizeof(uint16_t) * w2, 0, w2, h2 };
    }
    for (unsigned s = 1; s < VIF_N_SCALES; s++) {
        free(img[s][0]);
        free(img[s][1]);
    }
}

static void run_case(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                     const char *opts, const enum Fill *fills, unsigned n_frames)
{
    char what[256];
    snprintf(what, sizeof(what), "%ux%u %u-bit fmt %d [%s] from %s", w, h, bpc, (int)fmt, opts,
             fill_names[fills[0]]);
    char msg[512] = "";
    VifParams p;
    memset(&p, 0, sizeof(p));
    tvmaf_options_set_defaults(tvmaf_vif_options, &p);
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0 };
    if (tvmaf_options_parse(tvmaf_vif_options, &p, opts, "vif", msg, sizeof(msg)) ||
        tvmaf_vif_setup(&p, &vi, msg, sizeof(msg))) {
        printf("FAIL %s: setup: %s\n", what, msg);
        failures++;
        return;
    }
    Device d;
    if (device_alloc(&d, &p)) {
        printf("FAIL %s: out of memory\n", what);
        failures++;
        return;
    }
    double values[MAX_FRAMES][VIF_N_KEYS];
    unsigned n_values = 0;

    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
    TvmafContext *ctx = NULL;
    char spec[256];
    snprintf(spec, sizeof(spec), opts[0] ? "vif=%s" : "vif", opts);
    if (tvmaf_init(&ctx, &cfg) || tvmaf_use_feature(ctx, spec)) {
        printf("FAIL %s: CPU context: %s\n", what, ctx ? tvmaf_last_error(ctx) : "init");
        failures++;
        goto done;
    }
    for (unsigned k = 0; k < n_frames; k++) {
        TvmafPicture ref, dis;
        if (tvmaf_picture_alloc(&ref, fmt, bpc, w, h)) {
            printf("FAIL %s: picture alloc\n", what);
            failures++;
            goto done;
        }
        if (tvmaf_picture_alloc(&dis, fmt, bpc, w, h)) {
            tvmaf_picture_unref(&ref);
            printf("FAIL %s: picture alloc\n", what);
            failures++;
            goto done;
        }
        fill(&ref, &dis, fills[k], k);
        /* the replayed twin (vif_cuda.c's extract) */
        run_frame(&d, &p, &ref, &dis);
        n_values = tvmaf_vif_values(&p, d.sums, values[k]);
        check_reference(&d, &p, &ref, &dis, what, k);
        /* the CPU extractor (takes the pictures) */
        if (tvmaf_read_pictures(ctx, &ref, &dis, k)) {
            printf("FAIL %s: CPU frame %u: %s\n", what, k, tvmaf_last_error(ctx));
            failures++;
            goto done;
        }
    }
    if (tvmaf_flush(ctx)) {
        printf("FAIL %s: CPU flush: %s\n", what, tvmaf_last_error(ctx));
        failures++;
        goto done;
    }
    for (unsigned k = 0; k < n_frames; k++)
        for (unsigned q = 0; q < n_values; q++) {
            double cpu;
            if (tvmaf_feature_score_at_index(ctx, p.key[q], &cpu, k)) {
                printf("FAIL %s: CPU has no %s at frame %u\n", what, p.key[q], k);
                failures++;
            } else if (!same_bits(cpu, values[k][q])) {
                printf("FAIL %s: %s frame %u: cpu %.17g replay %.17g\n", what, p.key[q], k, cpu,
                       values[k][q]);
                failures++;
            }
        }
done:
    tvmaf_close(ctx);
    device_free(&d);
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
        const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, cases[i].bpc, cases[i].w, cases[i].h, 0 };
        char msg[256] = "";
        const int err = tvmaf_vif_setup(&p, &vi, msg, sizeof(msg));
        if (cases[i].ok ? err != 0 : (err != -EINVAL || !strstr(msg, "vif"))) {
            printf("FAIL refusal %ux%u %u-bit: err %d msg \"%s\"\n", cases[i].w, cases[i].h,
                   cases[i].bpc, err, msg);
            failures++;
        }
        if (cases[i].ok || cases[i].bpc < 8 || cases[i].bpc > 16) continue;
        /* the CPU extractor refuses the same frame */
        TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
        TvmafContext *ctx = NULL;
        TvmafPicture r, d;
        if (tvmaf_init(&ctx, &cfg) || tvmaf_use_feature(ctx, "vif") ||
            tvmaf_picture_alloc(&r, vi.pix_fmt, vi.bpc, vi.w, vi.h)) {
            printf("FAIL refusal setup %ux%u\n", vi.w, vi.h);
            failures++;
            tvmaf_close(ctx);
            continue;
        }
        if (tvmaf_picture_alloc(&d, vi.pix_fmt, vi.bpc, vi.w, vi.h)) {
            tvmaf_picture_unref(&r);
            failures++;
            tvmaf_close(ctx);
            continue;
        }
        memset(r.data[0], 0, (size_t)r.stride[0] * r.h[0]);
        memset(d.data[0], 0, (size_t)d.stride[0] * d.h[0]);
        const int e1 = tvmaf_read_pictures(ctx, &r, &d, 0);
        const int e2 = tvmaf_flush(ctx);
        if (!e1 && !e2) {
            printf("FAIL refusal: the CPU extractor scored a %ux%u frame\n", vi.w, vi.h);
            failures++;
        }
        tvmaf_close(ctx);
    }
}

int main(void)
{
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const struct { unsigned w, h; } sizes[] = {
        { 16, 16 }, { 17, 17 }, { 177, 99 }, { 16, 40 }, { 41, 16 }, { 64, 16 }, { 65, 33 },
        { 128, 32 }, { 130, 34 }, { 23, 71 }, { 199, 18 }, { 31, 31 }, { 96, 80 },
    };
    static const enum Fill seqs[][MAX_FRAMES] = {
        { RANDOM, NEAR, SMOOTH },
        { LEVELS, EXTREMES, EDGES },
        { CONST0, CONSTMAX, EQUAL },
        { REF_FLAT, SMOOTH, NEAR },
    };
    static const char *opt_sets[] = {
        "",
        "vif_enhn_gain_limit=1.0",
        "vif_skip_scale0=true:debug=true",
        "debug=true",
        "vif_enhn_gain_limit=1.5:debug=true",
        "vif_skip_scale0=true",
    };
    unsigned cases = 0;
    for (unsigned s = 0; s < VIF_N_SCALES; s++)
        if (2 * VIF_HALF(s) + 1 != vif_filter_width[s]) {
            printf("FAIL VIF_HALF(%u) is not half of the filter\n", s);
            failures++;
        }
    /* every size and depth, default options, every sequence */
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++, cases++)
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], sizes[s].w, sizes[s].h, "", seqs[q], 3);
    /* every option set, every depth and sequence, two sizes */
    for (unsigned o = 1; o < sizeof(opt_sets) / sizeof(opt_sets[0]); o++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++, cases += 2) {
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 17, 17, opt_sets[o], seqs[q], 3);
                run_case(TVMAF_PIX_FMT_YUV444P, depths[b], 177, 99, opt_sets[o], seqs[q], 3);
            }
    /* other layouts (vif reads luma only), and larger frames */
    for (unsigned b = 0; b < 4; b++)
        for (unsigned q = 0; q < 4; q++, cases += 3) {
            run_case(TVMAF_PIX_FMT_YUV400P, depths[b], 33, 19, "debug=true", seqs[q], 3);
            run_case(TVMAF_PIX_FMT_YUV422P, depths[b], 67, 45, "", seqs[q], 3);
            run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 353, 147, "debug=true", seqs[q], 2);
        }
    /* a full HD frame, 8 and 16 bits */
    static const enum Fill hd[] = { NEAR };
    for (unsigned b = 0; b < 4; b += 3, cases++)
        run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 1920, 1080, "debug=true", hd, 1);
    check_refusals();
    cases++;
    printf("%u cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
