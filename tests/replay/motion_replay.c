/*
 * Host replay of the integer motion twin: motion.cu's decomposition and
 * motion_cuda.c's frame handling executed on the host, compared bit for bit
 * with the CPU extractor run through the public API, over random and edge
 * inputs. Runs without a GPU; the device parity test confirms it on hardware.
 * The decomposition (MOTION_TILE, MOTION_TILE_SLOTS, MOTION_GRID_*) is
 * motion_math.h's, the header the kernel compiles; the scaffolding (inputs,
 * orders, folds, comparison) is tests/replay_common.h.
 *
 * What is replayed, as the twin does it:
 * - the ring: frame k's reference luma is copied at the device pitch (the
 *   padding holds garbage) into slot k % (lag + 1) and never again; frame k
 *   compares slot (k - lag) with slot k; with motion_force_zero nothing is
 *   uploaded;
 * - the kernel: a grid of MOTION_GRID_X(w) x MOTION_GRID_Y(h) blocks,
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

#include "core/options.h"
#include "core/picture_pool.h"
#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"
#include "../replay_common.h"

#define POISON ((int32_t)0x7f5a5a5a)
/* run_case's flag: a grid of 3 block rows (the row stride) */
#define SMALL_GRID 1u

_Static_assert(MOTION_TILE % REPLAY_WARP == 0, "a block is whole warps");

/* ---- the block's horizontal pass and reduction (motion.cu) ---- */

/* Sum of one block over a row: ys[s] holds the vertical pass at column
 * x0 - MOTION_RADIUS + s. */
static uint32_t block_row_sum(const int32_t *ys, unsigned x0, unsigned w)
{
    uint64_t v[MOTION_TILE];
    for (unsigned t = 0; t < MOTION_TILE; t++) {
        v[t] = 0;
        if (x0 + t < w) {
            for (unsigned k = 0; k < 5; k++)
                if (ys[t + k] == POISON)
                    replay_fail("replay: column %u reads an unwritten tile slot", x0 + t);
            v[t] = motion_h_abs(ys[t], ys[t + 1], ys[t + 2], ys[t + 3], ys[t + 4]);
        }
    }
    /* the kernel folds in uint32: the 64-bit fold truncated */
    return (uint32_t)replay_block_fold(v, MOTION_TILE);
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
        memcpy(dst + i * d->pitch,
               (const unsigned char *)ref->data[0] + (ptrdiff_t)i * ref->stride[0],
               d->row_bytes);
}

/* Vertical pass at column j of the rows p[], c[] (the kernel's v_col). */
static int32_t v_col(const Device *d, const unsigned char *const p[5],
                     const unsigned char *const c[5], unsigned j)
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
        int32_t ys[MOTION_TILE_SLOTS];
        for (unsigned s = 0; s < MOTION_TILE_SLOTS; s++) ys[s] = POISON;
        /* threads t fill slots t, t + MOTION_TILE, ... in any interleaving:
         * each slot is written by one thread from the planes only */
        for (unsigned t = MOTION_TILE; t-- > 0;)
            for (unsigned s = t; s < MOTION_TILE_SLOTS; s += MOTION_TILE) {
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
    const unsigned grid_x = MOTION_GRID_X(d->w), n = grid_x * grid_y;
    unsigned *order = malloc(sizeof(unsigned) * n);
    if (!order) {
        replay_fail("out of memory");
        return;
    }
    replay_scramble(order, n);
    memset(d->row_sad, 0, sizeof(uint32_t) * d->h); /* tvmaf_cuda_memset */
    for (unsigned m = 0; m < n; m++)
        run_block(d, slot(d, k_prev), slot(d, k), order[m] % grid_x, order[m] / grid_x, grid_y);
    free(order);
}

/* ---- one case: the CPU extractor and the replay over the same frames ---- */

static void run_case(const ReplayCase *c)
{
    const char *what = c->what;
    const unsigned w = c->w, h = c->h, bpc = c->bpc;
    char msg[512] = "";
    MotionState st;
    memset(&st, 0, sizeof(st));
    tvmaf_options_set_defaults(tvmaf_motion_options, &st);
    const TvmafVideoInfo vi = { c->fmt, bpc, w, h, 0, false };
    if (tvmaf_options_parse(tvmaf_motion_options, &st, c->opts, "motion", msg, sizeof(msg)) ||
        tvmaf_motion_setup(&st, &vi, msg, sizeof(msg))) {
        replay_fail("%s: setup: %s", what, msg);
        return;
    }
    Device d = { .w = w, .h = h, .bpc = bpc, .n_slots = motion_lag(&st) + 1 };
    d.row_bytes = (size_t)w * (bpc > 8 ? 2 : 1);
    /* the ring's rows are the frame's device copy's: the pictures' layout */
    size_t stride[3], off[3], total;
    tvmaf_picture_layout(c->fmt, bpc, w, h, stride, off, &total);
    d.pitch = stride[0];
    d.luma = malloc(d.pitch * h * d.n_slots);
    d.row_sad = malloc(sizeof(uint32_t) * h);
    TvmafContext *ctx = NULL;
    TvmafPicture prev = { 0 };
    double carry = 0.;
    if (!d.luma || !d.row_sad) {
        replay_fail("%s: out of memory", what);
        goto done;
    }
    if (!(ctx = replay_cpu_open("motion", c->opts, what))) goto done;
    for (unsigned k = 0; k < c->n_frames; k++) {
        TvmafPicture f;
        if (tvmaf_picture_alloc(&f, c->fmt, bpc, w, h)) {
            replay_fail("%s: picture alloc", what);
            break;
        }
        replay_fill_next(&f, k ? &prev : NULL, c->fills[k], k);
        if (k) tvmaf_picture_unref(&prev);
        prev = f;
        /* the replayed twin (motion_cuda.c's extract) */
        uint64_t sad = 0;
        if (!st.force_zero) {
            upload(&d, &f, k);
            if (tvmaf_motion_compares(&st, k)) {
                run_kernel(&d, k - motion_lag(&st), k,
                           c->flags & SMALL_GRID ? 3 : MOTION_GRID_Y(h));
                sad = motion_sum_rows(d.row_sad, h);
            }
        }
        double score;
        if (tvmaf_motion_record(&st, sad, k, &score)) replay_fail("%s: record frame %u", what, k);
        /* the CPU extractor: the distorted picture is never read by motion */
        if (replay_cpu_read(ctx, &f, &f, k, what)) break;
        replay_check_key(ctx, st.key_sad, k, score, what);
        if (st.debug) replay_check_key(ctx, st.key_motion, k, score, what);
    }
    if (c->n_frames) tvmaf_picture_unref(&prev);
    if (replay_cpu_flush(ctx, what)) goto done;
    for (unsigned i = 0; i < c->n_frames; i++) {
        double m2, m3;
        tvmaf_motion_window(&st, i, &carry, &m2, &m3);
        replay_check_key(ctx, st.key_motion2, i, m2, what);
        replay_check_key(ctx, st.key_motion3, i, m3, what);
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
        replay_fail("out of memory");
        return;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (unsigned j = 0; j < w; j++)
            y[j] = pass == 0 ? 65535 : pass == 1 ? ((j & 1) ? -65535 : 65535)
                                                 : (int32_t)(replay_next() % 131071) - 65535;
        uint32_t row = 0;
        for (unsigned bx = MOTION_GRID_X(w); bx-- > 0;) {
            const unsigned x0 = bx * MOTION_TILE;
            int32_t ys[MOTION_TILE_SLOTS];
            for (unsigned s = 0; s < MOTION_TILE_SLOTS; s++) {
                const int col = (int)x0 - MOTION_RADIUS + (int)s;
                ys[s] = col < (int)w + MOTION_RADIUS ? y[motion_mirror(col, (int)w)] : POISON;
            }
            row += block_row_sum(ys, x0, w);
        }
        const uint32_t cpu = motion_hrow_sad(y, w);
        uint64_t exact = 0;
        for (unsigned j = 0; j < w; j++) exact += motion_h_abs_at(y, (int)j, (int)w);
        if (row != cpu || (pass == 0 && exact == (uint64_t)cpu))
            replay_fail("row wrap pass %d: replay %u cpu %u (unwrapped %llu)", pass, row, cpu,
                        (unsigned long long)exact);
    }
    free(y);
}

int main(void)
{
    static const ReplaySize sizes[] = {
        { 3, 3 }, { 4, 3 }, { 3, 7 }, { 5, 5 }, { 64, 36 }, { 177, 99 }, { 254, 4 },
        { 256, 5 }, { 257, 9 }, { 258, 3 }, { 259, 6 }, { 511, 4 }, { 513, 17 },
        { MOTION_TILE + MOTION_RADIUS + 1, 4 },
    };
    static const ReplaySize s37[] = { { 37, 11 } }, s259[] = { { 259, 5 } };
    static const ReplaySize s177[] = { { 177, 99 } }, s257[] = { { 257, 9 } };
    static const ReplaySize s513[] = { { 513, 17 } }, s1283[] = { { 1283, 131 } };
    /* frame sequences: first entry is frame 0's fill (relative fills derive
     * frame k from frame k - 1, replay_fill_next) */
    static const ReplayFill seqs[][REPLAY_MAX_FRAMES] = {
        { REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM,
          REPLAY_RANDOM, REPLAY_RANDOM, REPLAY_RANDOM },
        { REPLAY_RANDOM, REPLAY_NEAR, REPLAY_NEAR, REPLAY_EQUAL, REPLAY_NEAR, REPLAY_SMOOTH,
          REPLAY_EQUAL, REPLAY_NEAR },
        { REPLAY_CONST0, REPLAY_CONSTMAX, REPLAY_CONSTMAX, REPLAY_CONST0, REPLAY_EXTREMES,
          REPLAY_INVERT, REPLAY_INVERT, REPLAY_EQUAL },
        { REPLAY_EDGES, REPLAY_INVERT, REPLAY_EDGES, REPLAY_LEVELS, REPLAY_EQUAL,
          REPLAY_EXTREMES, REPLAY_CONSTMAX, REPLAY_EDGES },
    };
    static const unsigned lengths[] = { 1, 2, 3, 5, 8 };
    static const char *const opt_sets[] = {
        "",
        "motion_five_frame_window=true",
        "motion_force_zero=true",
        "motion_five_frame_window=true:motion_moving_average=true:motion_max_val=18",
        "motion_fps_weight=2.0:motion_blend_factor=0.5:motion_blend_offset=20",
        "motion_moving_average=true:debug=true",
        "motion_max_val=0.5:motion_fps_weight=5",
        "motion_blend_factor=0:motion_blend_offset=0.25:motion_five_frame_window=true",
    };
    static const char *const five[] = { "motion_five_frame_window=true" };
    const ReplayMatrix m[] = {
        /* every size and depth, default options, every sequence at full length */
        { .name = "motion sizes x depths", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, sizes),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8 },
        /* every option set and sequence length, two sizes, every depth */
        { .name = "motion options 37x11", REPLAY_SET(opts, opt_sets), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s37), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          REPLAY_SET(lengths, lengths) },
        { .name = "motion options 259x5 444", REPLAY_SET(opts, opt_sets),
          REPLAY_SET(fmts, replay_444), REPLAY_SET(sizes, s259), REPLAY_SET(depths, replay_depths),
          REPLAY_SET(seqs, seqs), REPLAY_SET(lengths, lengths) },
        /* other layouts (luma is all motion reads), and the kernel's row stride */
        { .name = "motion 400", REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s177),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8 },
        { .name = "motion 422", REPLAY_SET(opts, five), REPLAY_SET(fmts, replay_422),
          REPLAY_SET(sizes, s257), REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs),
          .n_frames = 8 },
        { .name = "motion grid-y 3", REPLAY_SET(fmts, replay_420), REPLAY_SET(sizes, s513),
          REPLAY_SET(depths, replay_depths), REPLAY_SET(seqs, seqs), .n_frames = 8,
          .flags = SMALL_GRID },
        /* a larger frame, 8 and 16 bits */
        { .name = "motion 1283x131", REPLAY_SET(opts, five), REPLAY_SET(fmts, replay_420),
          REPLAY_SET(sizes, s1283), REPLAY_SET(depths, replay_8_16), REPLAY_SET(seqs, seqs),
          .n_frames = 6 },
    };
    replay_seed(0x2545f4914f6cdd1dull);
    for (unsigned i = 0; i < REPLAY_COUNT(m); i++) replay_matrix(&m[i], run_case);
    check_row_wrap();
    replay_count("motion row wrap", 1);
    return replay_report("motion");
}
