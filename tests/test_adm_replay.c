/*
 * Device replay of the integer adm twin: adm_cuda.c's frame handling and
 * adm.cu's launches executed on the host, compared bit for bit with the CPU
 * extractor, over random and edge inputs. Runs without a GPU; the device
 * parity test confirms it on hardware.
 *
 * What is replayed, as the twin does it:
 * - the upload: each picture's luma copied at the device pitch (the rows of
 *   tvmaf_picture_layout, 64-byte aligned; the padding holds garbage); the
 *   approximation bands, the decouple and csf planes kept between frames
 *   (and scales) in buffers that start as garbage, so a value read before this frame's launch wrote it changes the
 *   result;
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

#include "tvmaf/tvmaf.h"
#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "feature/adm/adm_tile.h"

/* adm_cuda.c's alignment of its device planes */
#define ROW_ALIGN 256
#define MAX_FRAMES 4

static int failures;
static uint64_t rng = 0x3c6ef372fe94f82bull;

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

static size_t align_up(size_t bytes)
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

/* ---- the device (adm_cuda.c) ---- */

typedef struct Device {
    AdmTileFrame f;
    size_t pitch;                 /* luma rows */
    unsigned char *ref0, *dis0;   /* uploaded luma */
    int32_t *a_ref[2], *a_dis[2]; /* approximation bands */
    AdmTilePlanes planes;
    void *plane_mem[18];
    size_t plane_bytes;
    int32_t *recip_table;
    uint64_t *rows;
    size_t n_rows;
    AdmScaleSums sums[ADM_N_SCALES];
} Device;

static void device_free(Device *d)
{
    free(d->ref0);
    free(d->dis0);
    for (int k = 0; k < 2; k++) {
        free(d->a_ref[k]);
        free(d->a_dis[k]);
    }
    for (int q = 0; q < 18; q++) free(d->plane_mem[q]);
    free(d->recip_table);
    free(d->rows);
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
    d->plane_bytes = align_up(2 * n0 > 4 * n1 ? 2 * n0 : 4 * n1);
    int ok = (d->ref0 = malloc(d->pitch * s->h)) && (d->dis0 = malloc(d->pitch * s->h));
    for (int k = 0; k < 2; k++)
        ok &= (d->a_ref[k] = malloc(n0 * 4)) && (d->a_dis[k] = malloc(n0 * 4));
    for (int q = 0; q < 18; q++) ok &= (d->plane_mem[q] = malloc(d->plane_bytes)) != NULL;
    ok &= (d->recip_table = malloc(ADM_RECIP_LEN * sizeof(int32_t))) &&
          (d->rows = malloc(d->n_rows * sizeof(uint64_t)));
    if (!ok) {
        device_free(d);
        return -ENOMEM;
    }
    garbage(d->ref0, d->pitch * s->h);
    garbage(d->dis0, d->pitch * s->h);
    for (int k = 0; k < 2; k++) {
        garbage(d->a_ref[k], n0 * 4);
        garbage(d->a_dis[k], n0 * 4);
    }
    for (int q = 0; q < 18; q++) garbage(d->plane_mem[q], d->plane_bytes);
    garbage(d->rows, d->n_rows * sizeof(uint64_t));
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

/* The kernels' fold of n threads' values (warp_sum, then the warps in order). */
static uint64_t block_fold(const uint64_t *v, unsigned n)
{
    uint64_t total = 0;
    for (unsigned wp = 0; wp < n / 32; wp++) {
        uint64_t lane[32];
        memcpy(lane, v + 32 * wp, sizeof(lane));
        for (unsigned o = 16; o > 0; o >>= 1) {
            uint64_t old[32];
            memcpy(old, lane, sizeof(old));
            /* __shfl_down_sync: a lane whose source is past lane 31 gets its own value */
            for (unsigned l = 0; l < 32; l++) lane[l] = old[l] + (l + o < 32 ? old[l + o] : old[l]);
        }
        total += lane[0];
    }
    return total;
}

/* One block of a coef (cm = 0) or cm (cm = 1) launch of scale k. */
static void run_block(Device *d, int k, int cm, unsigned bx, unsigned by)
{
    const AdmTileScale *c = &d->f.sc[k];
    uint64_t v[6][ADM_THREADS];
    memset(v, 0, sizeof(v));
    unsigned order[ADM_THREADS];
    scramble(order, ADM_THREADS);
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
        *acc += block_fold(v[q], ADM_THREADS); /* 64-bit atomic */
    }
}

static void run_launch(Device *d, int k, int cm)
{
    const AdmTileScale *c = &d->f.sc[k];
    const unsigned gx = ADM_GRID_X((unsigned)(cm ? c->r - c->l : c->w));
    const unsigned gy = (unsigned)(cm ? c->b - c->t : c->h);
    unsigned *order = malloc(sizeof(unsigned) * gx * gy);
    if (!order) {
        failures++;
        return;
    }
    scramble(order, gx * gy);
    for (unsigned b = 0; b < gx * gy; b++) run_block(d, k, cm, order[b] % gx, order[b] / gx);
    free(order);
}

/* The finish launch: block (q, k). */
static void run_finish(Device *d)
{
    uint64_t *out = (uint64_t *)(void *)d->sums;
    for (int k = 0; k < ADM_N_SCALES; k++)
        for (int q = 0; q < ADM_N_SUMS; q++) {
            const AdmTileScale *c = &d->f.sc[k];
            const uint64_t *acc = d->rows + c->rows_off + (size_t)q * c->h;
            uint64_t v[ADM_FINISH_THREADS];
            for (unsigned t = 0; t < ADM_FINISH_THREADS; t++) {
                v[t] = 0;
                for (int i = c->t + (int)t; i < c->b; i += ADM_FINISH_THREADS)
                    v[t] += adm_tile_row(c, q, acc[i]);
            }
            out[ADM_N_SUMS * k + q] = block_fold(v, ADM_FINISH_THREADS);
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
    run_finish(d);
}

/* ---- inputs ---- */

enum Fill { RANDOM, NEAR, SMOOTH, LEVELS, EXTREMES, CONST0, CONSTMAX, EQUAL, REF_FLAT, EDGES,
            LINES, LINES_DIM };
static const char *fill_names[] = { "random", "near", "smooth", "levels", "extremes", "const0",
                                    "constmax", "equal", "ref-flat", "edges", "lines",
                                    "lines-dim" };

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

/* Luma of ref and dis (chroma, never read by adm, gets random values). */
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
            case SMOOTH: {
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
            case LINES:
            case LINES_DIM: {
                /* lone full-swing one-pixel lines on black (the V3 threshold
                 * centre exceeds 2^15 there); dis: the same lines, some moved
                 * by a pixel or dimmed, plus noise */
                const int on = (x % 23 == 5 + seed % 3) || (y % 19 == 7) || (x == y + seed);
                a = on ? maxv : 0;
                const int on_d = (x % 23 == 6 + seed % 3) || (y % 19 == 7) || (x == y + seed);
                b = on_d ? (how == LINES_DIM ? maxv / 2 + (next() & 15) : maxv) : (next() & 3);
                b = b > maxv ? maxv : b;
                break;
            }
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

static void check_sums(const Device *d, const AdmState *s, const TvmafVideoInfo *vi,
                       const TvmafPicture *ref, const TvmafPicture *dis, const char *what,
                       unsigned frame)
{
    AdmScaleSums cpu[ADM_N_SCALES];
    if (tvmaf_adm_cpu_sums(s, vi, ref, dis, cpu)) {
        printf("FAIL %s: CPU sums\n", what);
        failures++;
        return;
    }
    for (int k = 0; k < ADM_N_SCALES; k++) {
        if (k == 0 && s->skip_scale0) continue;
        AdmScaleSums a = cpu[k], b = d->sums[k];
        if (s->skip_aim) memset(a.aim, 0, sizeof(a.aim)), memset(b.aim, 0, sizeof(b.aim));
        if (memcmp(&a, &b, sizeof(a))) {
            printf("FAIL %s frame %u scale %d: sums cpu den %llu %llu %llu num %lld %lld %lld "
                   "aim %lld %lld %lld; replay den %llu %llu %llu num %lld %lld %lld aim %lld "
                   "%lld %lld\n", what, frame, k,
                   (unsigned long long)a.den[0], (unsigned long long)a.den[1],
                   (unsigned long long)a.den[2], (long long)a.num[0], (long long)a.num[1],
                   (long long)a.num[2], (long long)a.aim[0], (long long)a.aim[1],
                   (long long)a.aim[2], (unsigned long long)b.den[0],
                   (unsigned long long)b.den[1], (unsigned long long)b.den[2],
                   (long long)b.num[0], (long long)b.num[1], (long long)b.num[2],
                   (long long)b.aim[0], (long long)b.aim[1], (long long)b.aim[2]);
            failures++;
        }
    }
}

static void run_case(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                     const char *opts, const enum Fill *fills, unsigned n_frames)
{
    char what[256];
    snprintf(what, sizeof(what), "%ux%u %u-bit fmt %d [%s] from %s", w, h, bpc, (int)fmt, opts,
             fill_names[fills[0]]);
    char msg[512] = "";
    AdmState s;
    memset(&s, 0, sizeof(s));
    tvmaf_options_set_defaults(tvmaf_adm_options, &s);
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0 };
    if (tvmaf_options_parse(tvmaf_adm_options, &s, opts, "adm", msg, sizeof(msg)) ||
        tvmaf_adm_setup(&s, &vi, msg, sizeof(msg))) {
        printf("FAIL %s: setup: %s\n", what, msg);
        failures++;
        return;
    }
    Device d;
    if (device_alloc(&d, &s)) {
        printf("FAIL %s: out of memory\n", what);
        failures++;
        return;
    }
    double values[MAX_FRAMES][ADM_N_KEYS];
    unsigned n_values = 0;

    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
    TvmafContext *ctx = NULL;
    char spec[256];
    snprintf(spec, sizeof(spec), opts[0] ? "adm=%s" : "adm", opts);
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
        /* the replayed twin (adm_cuda.c's extract) */
        run_frame(&d, &s, &ref, &dis);
        n_values = tvmaf_adm_values(&s, d.sums, values[k]);
        check_sums(&d, &s, &vi, &ref, &dis, what, k);
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
            if (tvmaf_feature_score_at_index(ctx, s.key[q], &cpu, k)) {
                printf("FAIL %s: CPU has no %s at frame %u\n", what, s.key[q], k);
                failures++;
            } else if (!same_bits(cpu, values[k][q])) {
                printf("FAIL %s: %s frame %u: cpu %.17g replay %.17g\n", what, s.key[q], k, cpu,
                       values[k][q]);
                failures++;
            }
        }
done:
    tvmaf_close(ctx);
    device_free(&d);
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
        const TvmafVideoInfo vi = { TVMAF_PIX_FMT_YUV420P, cases[i].bpc, cases[i].w, cases[i].h, 0 };
        char msg[256] = "";
        int err = tvmaf_options_parse(tvmaf_adm_options, &s, cases[i].opts, "adm", msg,
                                      sizeof(msg));
        if (!err) err = tvmaf_adm_setup(&s, &vi, msg, sizeof(msg));
        if (cases[i].ok ? err != 0 : (err != -EINVAL || !strstr(msg, "adm"))) {
            printf("FAIL refusal %ux%u %u-bit [%s]: err %d msg \"%s\"\n", cases[i].w, cases[i].h,
                   cases[i].bpc, cases[i].opts, err, msg);
            failures++;
        }
        if (cases[i].ok || cases[i].bpc < 8 || cases[i].bpc > 16) continue;
        /* the CPU extractor refuses the same input */
        TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
        TvmafContext *ctx = NULL;
        TvmafPicture r, d;
        char spec[256];
        snprintf(spec, sizeof(spec), cases[i].opts[0] ? "adm=%s" : "adm", cases[i].opts);
        if (tvmaf_init(&ctx, &cfg) || tvmaf_use_feature(ctx, spec) ||
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
            printf("FAIL refusal: the CPU extractor scored %ux%u [%s]\n", vi.w, vi.h,
                   cases[i].opts);
            failures++;
        }
        tvmaf_close(ctx);
    }
}

int main(void)
{
    static const unsigned depths[] = { 8, 10, 12, 16 };
    /* widths chosen so the lane blocks (16 over the work range, 14 / 6 over
     * the cm columns) end differently at every scale, plus odd sizes */
    static const struct { unsigned w, h; } sizes[] = {
        { 33, 33 }, { 34, 35 }, { 177, 99 }, { 130, 70 }, { 144, 41 }, { 200, 52 },
        { 64, 64 }, { 257, 37 }, { 45, 120 }, { 97, 33 }, { 321, 45 },
    };
    static const enum Fill seqs[][MAX_FRAMES] = {
        { RANDOM, NEAR, SMOOTH },
        { LEVELS, EXTREMES, EDGES },
        { CONST0, CONSTMAX, EQUAL },
        { REF_FLAT, LINES, LINES_DIM },
    };
    static const char *opt_sets[] = {
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
    };
    unsigned cases = 0;
    /* every size and depth, default options, every sequence */
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++, cases++)
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], sizes[s].w, sizes[s].h, "", seqs[q], 3);
    /* every option set, every depth and sequence, three sizes */
    for (unsigned o = 0; o < sizeof(opt_sets) / sizeof(opt_sets[0]); o++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++, cases += 3) {
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 33, 33, opt_sets[o], seqs[q], 3);
                run_case(TVMAF_PIX_FMT_YUV444P, depths[b], 177, 99, opt_sets[o], seqs[q], 3);
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 130, 70, opt_sets[o], seqs[q], 3);
            }
    /* other layouts (adm reads luma only) */
    for (unsigned b = 0; b < 4; b++, cases += 2) {
        run_case(TVMAF_PIX_FMT_YUV400P, depths[b], 67, 45, "debug=true", seqs[b], 3);
        run_case(TVMAF_PIX_FMT_YUV422P, depths[b], 99, 40, "", seqs[b], 3);
    }
    /* a full HD frame, 8 and 16 bits */
    static const enum Fill hd[] = { NEAR };
    static const enum Fill hd_lines[] = { LINES };
    run_case(TVMAF_PIX_FMT_YUV420P, 8, 1920, 1080, "debug=true", hd, 1);
    run_case(TVMAF_PIX_FMT_YUV420P, 16, 1920, 1080, "adm_csf_mode=1:debug=true", hd_lines, 1);
    cases += 2;
    check_refusals();
    cases++;
    printf("%u cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
