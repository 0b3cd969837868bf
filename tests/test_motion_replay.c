/*
 * Device replay of the integer motion twin: motion.cu's decomposition and
 * motion_cuda.c's frame handling executed on the host, compared bit for bit
 * with the CPU extractor run through the public API, over random and edge
 * inputs. Runs without a GPU; the device parity test confirms it on hardware.
 *
 * What is replayed, as the twin does it:
 * - the ring: frame k's reference luma is copied at the device pitch (the
 *   padding holds garbage) into slot k % (lag + 1) and never again; frame k
 *   compares slot (k - lag) with slot k; with motion_force_zero nothing is
 *   uploaded;
 * - the kernel: a grid of ceil(w / MOTION_TILE) x min(h, 65535) blocks,
 *   visited in a scrambled order (blocks run in any order), each striding over
 *   rows; per row, threads fill the shared vertical-pass tile (slot s is
 *   column x0 - 2 + s, mirrored; slots past column w + 1 stay unwritten and
 *   are poisoned here), then thread t takes the horizontal pass of column
 *   x0 + t, the 32 lanes of each warp fold by shuffle-down (a lane whose
 *   source is outside the warp gets its own value back), warp 0's lane sums
 *   land in `partial`, thread 0 adds them and adds the block's sum into the
 *   row's uint32 (atomically: any order, modulo 2^32);
 * - the read-back of the per-row sums and the host's motion_sum_rows(); the
 *   sad score, motion2 and motion3 through the shared host code
 *   (tvmaf_motion_record, tvmaf_motion_window) the twin runs.
 * The same kernel replay with a small grid y checks the row stride, and a
 * synthetic row wider than any picture checks that a row's sum wraps modulo
 * 2^32 as the CPU's does.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"

/* CUDA's limit on a grid's y dimension, as motion_cuda.c caps it. */
#define GRID_Y_MAX 65535u
#define WARPS (MOTION_TILE / 32)
#define POISON ((int32_t)0x7f5a5a5a)

static int failures;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

/* Luma sample access of a picture. */
static unsigned get(const TvmafPicture *p, unsigned x, unsigned y)
{
    const unsigned char *row = (const unsigned char *)p->data[0] + (size_t)y * p->stride[0];
    return p->bpc == 8 ? row[x] : ((const uint16_t *)row)[x];
}

static void put(TvmafPicture *p, unsigned x, unsigned y, unsigned v)
{
    unsigned char *row = (unsigned char *)p->data[0] + (size_t)y * p->stride[0];
    if (p->bpc == 8) row[x] = (unsigned char)v;
    else ((uint16_t *)row)[x] = (uint16_t)v;
}

/* ---- the block's horizontal pass and reduction (motion.cu) ---- */

/* Sum of one block over a row: ys[s] holds the vertical pass at column
 * x0 - MOTION_RADIUS + s. */
static uint32_t block_row_sum(const int32_t *ys, unsigned x0, unsigned w)
{
    uint32_t v[MOTION_TILE];
    for (unsigned t = 0; t < MOTION_TILE; t++) {
        v[t] = 0;
        if (x0 + t < w) {
            for (unsigned k = 0; k < 5; k++)
                if (ys[t + k] == POISON) {
                    printf("FAIL replay: column %u reads an unwritten tile slot\n", x0 + t);
                    failures++;
                }
            v[t] = motion_h_abs(ys[t], ys[t + 1], ys[t + 2], ys[t + 3], ys[t + 4]);
        }
    }
    uint32_t partial[WARPS];
    for (unsigned wp = 0; wp < WARPS; wp++) {
        uint32_t *lane = v + 32 * wp;
        for (unsigned o = 16; o > 0; o >>= 1) {
            uint32_t old[32];
            memcpy(old, lane, sizeof(old));
            for (unsigned l = 0; l < 32; l++) lane[l] = old[l] + (l + o < 32 ? old[l + o] : old[l]);
        }
        partial[wp] = lane[0];
    }
    uint32_t sum = 0;
    for (unsigned k = 0; k < WARPS; k++) sum += partial[k];
    return sum;
}

/* ---- the device's state and one frame's kernel (motion_cuda.c, motion.cu) ---- */

typedef struct Device {
    unsigned w, h, bpc, n_slots;
    size_t row_bytes, pitch;
    unsigned char *luma;  /* n_slots planes of pitch * h bytes */
    uint32_t *row_sad;    /* h */
} Device;

static unsigned char *slot(const Device *d, unsigned k)
{
    return d->luma + (size_t)(k % d->n_slots) * d->pitch * d->h;
}

static void upload(Device *d, const TvmafPicture *ref, unsigned k)
{
    unsigned char *dst = slot(d, k);
    memset(dst, 0xa5, d->pitch * d->h); /* padding: whatever the staging held */
    for (unsigned i = 0; i < d->h; i++)
        memcpy(dst + i * d->pitch, (const unsigned char *)ref->data[0] + (ptrdiff_t)i * ref->stride[0],
               d->row_bytes);
}

/* Vertical pass at column j of the rows p[], c[] (the kernel's v_col). */
static int32_t v_col(const Device *d, const unsigned char *const p[5], const unsigned char *const c[5],
                     unsigned j)
{
    if (d->bpc == 8) return motion_v_col_8((const uint8_t *const *)p, (const uint8_t *const *)c, j);
    const uint16_t *p16[5], *c16[5];
    for (int k = 0; k < 5; k++) {
        p16[k] = (const uint16_t *)p[k];
        c16[k] = (const uint16_t *)c[k];
    }
    return motion_v_col_16(p16, c16, j, d->bpc);
}

static void run_block(const Device *d, const unsigned char *prev, const unsigned char *cur,
                      unsigned bx, unsigned by, unsigned grid_y)
{
    const unsigned x0 = bx * MOTION_TILE, w = d->w, h = d->h;
    for (unsigned i = by; i < h; i += grid_y) {
        int rows[5];
        motion_tap_rows((int)i, (int)h, rows);
        const unsigned char *p[5], *c[5];
        for (int k = 0; k < 5; k++) {
            p[k] = prev + (size_t)rows[k] * d->pitch;
            c[k] = cur + (size_t)rows[k] * d->pitch;
        }
        int32_t ys[MOTION_TILE + 2 * MOTION_RADIUS];
        for (unsigned s = 0; s < MOTION_TILE + 2 * MOTION_RADIUS; s++) ys[s] = POISON;
        /* threads t fill slots t, t + MOTION_TILE, ... in any interleaving:
         * each slot is written by one thread from the planes only */
        for (unsigned t = MOTION_TILE; t-- > 0;)
            for (unsigned s = t; s < MOTION_TILE + 2 * MOTION_RADIUS; s += MOTION_TILE) {
                const int col = (int)x0 - MOTION_RADIUS + (int)s;
                if (col < (int)w + MOTION_RADIUS)
                    ys[s] = v_col(d, p, c, (unsigned)motion_mirror(col, (int)w));
            }
        d->row_sad[i] += block_row_sum(ys, x0, w); /* atomicAdd, uint32 */
    }
}

/* One frame's kernel launch over the slots of frames `k_prev` and `k`. */
static void run_kernel(const Device *d, unsigned k_prev, unsigned k, unsigned grid_y)
{
    const unsigned grid_x = (d->w + MOTION_TILE - 1) / MOTION_TILE;
    const size_t n = (size_t)grid_x * grid_y;
    size_t step = 7919;
    while (step > 1 && n % step == 0) step--;
    memset(d->row_sad, 0, sizeof(uint32_t) * d->h); /* tvmaf_cuda_memset */
    for (size_t m = 0, b = n / 2; m < n; m++, b = (b + step) % n)
        run_block(d, slot(d, k_prev), slot(d, k), (unsigned)(b % grid_x), (unsigned)(b / grid_x),
                  grid_y);
}

/* ---- inputs ---- */

enum Mode { RANDOM, DRIFT, SAME, CONST_LO, CONST_HI, EXTREMES, INVERT, EDGES, LEVELS };
static const char *mode_names[] = { "random", "drift", "same", "const0", "constmax",
                                    "extremes", "invert", "edges", "levels" };

/* Frame from `mode`, given the previous frame (NULL for the first). */
static void make_frame(TvmafPicture *f, const TvmafPicture *prev, enum Mode mode, unsigned seed)
{
    const unsigned maxv = (1u << f->bpc) - 1, w = f->w[0], h = f->h[0];
    if (!prev && (mode == DRIFT || mode == SAME || mode == INVERT)) mode = RANDOM;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            unsigned v;
            switch (mode) {
            case RANDOM: v = next() & maxv; break;
            case DRIFT: {
                const int d = (int)(next() % 9) - 4, a = (int)get(prev, x, y) + d;
                v = a < 0 ? 0 : a > (int)maxv ? maxv : (unsigned)a;
                break;
            }
            case SAME: v = get(prev, x, y); break;
            case CONST_LO: v = 0; break;
            case CONST_HI: v = maxv; break;
            case EXTREMES: v = (next() & 1) ? maxv : 0; break;
            case INVERT: v = maxv - get(prev, x, y); break;
            case EDGES: /* full-swing stripes and a checker touching every border */
                v = ((x + seed) % 3 == 0) ^ ((y / (1 + seed % 2)) % 2 == 0) ? maxv : 0;
                break;
            default: v = ((x + 1) * 2654435761u ^ (y + seed) * 40503u) & maxv; break;
            }
            put(f, x, y, v);
        }
}

/* ---- one case: the CPU extractor and the replay over the same frames ---- */

static int copy_picture(TvmafPicture *dst, const TvmafPicture *src)
{
    int err = tvmaf_picture_alloc(dst, src->pix_fmt, src->bpc, src->w[0], src->h[0]);
    if (err) return err;
    for (int pl = 0; pl < 3; pl++) {
        const size_t row = (size_t)src->w[pl] * (src->bpc > 8 ? 2 : 1);
        for (unsigned y = 0; y < src->h[pl]; y++)
            memcpy((unsigned char *)dst->data[pl] + (size_t)y * dst->stride[pl],
                   (const unsigned char *)src->data[pl] + (size_t)y * src->stride[pl], row);
    }
    return 0;
}

static void check_key(TvmafContext *ctx, const char *key, unsigned i, double replay,
                      const char *what)
{
    double cpu;
    if (tvmaf_feature_score_at_index(ctx, key, &cpu, i)) {
        printf("FAIL %s: CPU has no %s at frame %u\n", what, key, i);
        failures++;
    } else if (!same_bits(cpu, replay)) {
        printf("FAIL %s: %s frame %u: cpu %.17g replay %.17g\n", what, key, i, cpu, replay);
        failures++;
    }
}

static void run_case(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                     const char *opts, const enum Mode *modes, unsigned n_frames, bool small_grid)
{
    char what[256];
    snprintf(what, sizeof(what), "%ux%u %u-bit fmt %d [%s] %u frames from %s%s", w, h, bpc,
             (int)fmt, opts, n_frames, mode_names[modes[0]], small_grid ? " grid-y 3" : "");
    char msg[512] = "";
    MotionState st;
    memset(&st, 0, sizeof(st));
    tvmaf_options_set_defaults(tvmaf_motion_options, &st);
    const TvmafVideoInfo vi = { fmt, bpc, w, h, 0 };
    if (tvmaf_options_parse(tvmaf_motion_options, &st, opts, "motion", msg, sizeof(msg)) ||
        tvmaf_motion_setup(&st, &vi, msg, sizeof(msg))) {
        printf("FAIL %s: setup: %s\n", what, msg);
        failures++;
        return;
    }
    Device d = { .w = w, .h = h, .bpc = bpc, .n_slots = motion_lag(&st) + 1 };
    d.row_bytes = (size_t)w * (bpc > 8 ? 2 : 1);
    /* the ring's rows are the frame's device copy's: the pictures' layout */
    size_t stride[3], off[3], total;
    tvmaf_picture_layout(fmt, bpc, w, h, stride, off, &total);
    d.pitch = stride[0];
    d.luma = malloc(d.pitch * h * d.n_slots);
    d.row_sad = malloc(sizeof(uint32_t) * h);

    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
    TvmafContext *ctx = NULL;
    TvmafPicture prev = { 0 };
    double carry = 0.;
    char spec[256];
    snprintf(spec, sizeof(spec), opts[0] ? "motion=%s" : "motion", opts);
    if (!d.luma || !d.row_sad || tvmaf_init(&ctx, &cfg) || tvmaf_use_feature(ctx, spec)) {
        printf("FAIL %s: CPU context: %s\n", what, ctx ? tvmaf_last_error(ctx) : "init");
        failures++;
        goto done;
    }
    for (unsigned k = 0; k < n_frames; k++) {
        TvmafPicture f, ref, dis;
        tvmaf_picture_alloc(&f, fmt, bpc, w, h);
        make_frame(&f, k ? &prev : NULL, modes[k], k);
        if (k) tvmaf_picture_unref(&prev);
        prev = f;
        /* the replayed twin (motion_cuda.c's extract) */
        uint64_t sad = 0;
        if (!st.force_zero) {
            upload(&d, &f, k);
            if (tvmaf_motion_compares(&st, k)) {
                const unsigned grid_y = small_grid ? 3 : h < GRID_Y_MAX ? h : GRID_Y_MAX;
                run_kernel(&d, k - motion_lag(&st), k, grid_y);
                sad = motion_sum_rows(d.row_sad, h);
            }
        }
        double score;
        if (tvmaf_motion_record(&st, sad, k, &score)) {
            printf("FAIL %s: record frame %u\n", what, k);
            failures++;
        }
        /* the CPU extractor: the distorted picture is never read by motion */
        if (copy_picture(&ref, &f) || copy_picture(&dis, &f) ||
            tvmaf_read_pictures(ctx, &ref, &dis, k)) {
            printf("FAIL %s: CPU frame %u: %s\n", what, k, tvmaf_last_error(ctx));
            failures++;
            tvmaf_picture_unref(&prev);
            goto done;
        }
        check_key(ctx, st.key_sad, k, score, what);
        if (st.debug) check_key(ctx, st.key_motion, k, score, what);
    }
    tvmaf_picture_unref(&prev);
    if (tvmaf_flush(ctx)) {
        printf("FAIL %s: CPU flush: %s\n", what, tvmaf_last_error(ctx));
        failures++;
        goto done;
    }
    for (unsigned i = 0; i < n_frames; i++) {
        double m2, m3;
        tvmaf_motion_window(&st, i, &carry, &m2, &m3);
        check_key(ctx, st.key_motion2, i, m2, what);
        check_key(ctx, st.key_motion3, i, m3, what);
    }
done:
    tvmaf_close(ctx);
    tvmaf_motion_release(&st);
    free(d.luma);
    free(d.row_sad);
}

/* A row of the vertical pass wider than any picture: the block sums, added
 * into a uint32, must give motion_hrow_sad's wrapped row sum. */
static void check_row_wrap(void)
{
    const unsigned w = 3 * 65536 + 77;
    int32_t *y = malloc(sizeof(*y) * w);
    if (!y) {
        failures++;
        return;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (unsigned j = 0; j < w; j++)
            y[j] = pass == 0 ? 65535 : pass == 1 ? ((j & 1) ? -65535 : 65535)
                                                 : (int32_t)(next() % 131071) - 65535;
        uint32_t row = 0;
        for (unsigned bx = (w + MOTION_TILE - 1) / MOTION_TILE; bx-- > 0;) {
            const unsigned x0 = bx * MOTION_TILE;
            int32_t ys[MOTION_TILE + 2 * MOTION_RADIUS];
            for (unsigned s = 0; s < MOTION_TILE + 2 * MOTION_RADIUS; s++) {
                const int col = (int)x0 - MOTION_RADIUS + (int)s;
                ys[s] = col < (int)w + MOTION_RADIUS ? y[motion_mirror(col, (int)w)] : POISON;
            }
            row += block_row_sum(ys, x0, w);
        }
        const uint32_t cpu = motion_hrow_sad(y, w);
        uint64_t exact = 0;
        for (unsigned j = 0; j < w; j++) exact += motion_h_abs_at(y, (int)j, (int)w);
        if (row != cpu || (pass == 0 && exact == (uint64_t)cpu)) {
            printf("FAIL row wrap pass %d: replay %u cpu %u (unwrapped %llu)\n", pass, row, cpu,
                   (unsigned long long)exact);
            failures++;
        }
    }
    free(y);
}

int main(void)
{
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const struct { unsigned w, h; } sizes[] = {
        { 3, 3 }, { 4, 3 }, { 3, 7 }, { 5, 5 }, { 64, 36 }, { 177, 99 }, { 254, 4 },
        { 256, 5 }, { 257, 9 }, { 258, 3 }, { 259, 6 }, { 511, 4 }, { 513, 17 },
    };
    /* frame sequences: first entry is frame 0's mode */
    static const enum Mode seqs[][8] = {
        { RANDOM, RANDOM, RANDOM, RANDOM, RANDOM, RANDOM, RANDOM, RANDOM },
        { RANDOM, DRIFT, DRIFT, SAME, DRIFT, DRIFT, SAME, DRIFT },
        { CONST_LO, CONST_HI, CONST_HI, CONST_LO, EXTREMES, INVERT, INVERT, SAME },
        { EDGES, INVERT, EDGES, LEVELS, SAME, EXTREMES, CONST_HI, EDGES },
    };
    static const unsigned lengths[] = { 1, 2, 3, 5, 8 };
    static const char *opt_sets[] = {
        "",
        "motion_five_frame_window=true",
        "motion_force_zero=true",
        "motion_five_frame_window=true:motion_moving_average=true:motion_max_val=18",
        "motion_fps_weight=2.0:motion_blend_factor=0.5:motion_blend_offset=20",
        "motion_moving_average=true:debug=true",
        "motion_max_val=0.5:motion_fps_weight=5",
        "motion_blend_factor=0:motion_blend_offset=0.25:motion_five_frame_window=true",
    };
    unsigned cases = 0;
    /* every size and depth, default options, every sequence at full length */
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++, cases++)
                run_case(TVMAF_PIX_FMT_YUV420P, depths[b], sizes[s].w, sizes[s].h, "", seqs[q], 8,
                         false);
    /* every option set and sequence length, two sizes, every depth */
    for (unsigned o = 0; o < sizeof(opt_sets) / sizeof(opt_sets[0]); o++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned q = 0; q < 4; q++)
                for (unsigned n = 0; n < sizeof(lengths) / sizeof(lengths[0]); n++, cases += 2) {
                    run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 37, 11, opt_sets[o], seqs[q],
                             lengths[n], false);
                    run_case(TVMAF_PIX_FMT_YUV444P, depths[b], 259, 5, opt_sets[o], seqs[q],
                             lengths[n], false);
                }
    /* other layouts (luma is all motion reads), and the kernel's row stride */
    for (unsigned b = 0; b < 4; b++)
        for (unsigned q = 0; q < 4; q++, cases += 3) {
            run_case(TVMAF_PIX_FMT_YUV400P, depths[b], 177, 99, "", seqs[q], 8, false);
            run_case(TVMAF_PIX_FMT_YUV422P, depths[b], 257, 9, "motion_five_frame_window=true",
                     seqs[q], 8, false);
            run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 513, 17, "", seqs[q], 8, true);
        }
    /* a larger frame, 8 and 16 bits */
    for (unsigned b = 0; b < 4; b += 3)
        for (unsigned q = 0; q < 4; q++, cases++)
            run_case(TVMAF_PIX_FMT_YUV420P, depths[b], 1283, 131, "motion_five_frame_window=true",
                     seqs[q], 6, false);
    check_row_wrap();
    cases++;
    printf("%u cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
