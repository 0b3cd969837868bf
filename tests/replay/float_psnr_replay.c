/*
 * Host replay of the float_psnr CUDA twin (float_psnr.cu), compared bit for
 * bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_psnr_math.h's, the one the kernels compile:
 * float_psnr_rows, one block of FPIC_THREADS threads per row (blocks visited
 * in a scrambled order), thread t adding its lane's units
 * (fpsnr_lane_units*), the block's saturated fold; float_psnr_finish, one
 * warp folding the rows (lane l takes rows l, l + 32, ...) and fpsnr_finish
 * turning the total into the noise sum (the CPU's loop where it saturated);
 * the host's fpsnr_db. Each frame is replayed at the twin's limit (2^53
 * units) and at limits that force the sequential path (0, the exact total)
 * or sit just above the total; every noise sum must equal the CPU's loop
 * (fpsnr_plane_noise) as bits, and float_psnr the CPU extractor's.
 * Large cases reach the limit for real: 16-bit inverted pictures of 4K and
 * 10-bit pictures whose samples are far above 10 bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_psnr/float_psnr_math.h"
#include "../replay_common.h"

_Static_assert(FPIC_THREADS % REPLAY_WARP == 0, "a block is whole warps");

static unsigned n_saturated; /* frames whose total reached the twin's limit */

/* min(a + b, limit) over n values, in the order given: the folds' result in
 * any order (checked against a reversed fold). */
static uint64_t sat_fold(const uint64_t *v, unsigned n, uint64_t limit)
{
    uint64_t a = 0, b = 0;
    for (unsigned i = 0; i < n; i++) a = fpic_units_add(a, v[i], limit);
    for (unsigned i = n; i-- > 0;) b = fpic_units_add(b, v[i], limit);
    if (a != b) replay_fail("saturated fold depends on its order");
    return a;
}

/* The two kernels on the luma planes of r and d at `limit`: the noise sum. */
static double replay_noise(const TvmafPicture *r, const TvmafPicture *d, uint64_t limit,
                           uint64_t *total_out)
{
    const unsigned w = r->w[0], h = r->h[0];
    const float divisor = float_pic_divisor(r->bpc);
    uint64_t *rows = malloc(sizeof(uint64_t) * h);
    unsigned *order = malloc(sizeof(unsigned) * h);
    uint64_t lane[FPIC_THREADS];
    if (!rows || !order) {
        free(rows);
        free(order);
        replay_fail("out of memory");
        return 0;
    }
    replay_garbage(rows, sizeof(uint64_t) * h); /* every row must be written */
    replay_scramble(order, h);
    for (unsigned b = 0; b < h; b++) {
        const unsigned y = order[b];
        const unsigned char *rr = (const unsigned char *)r->data[0] + (size_t)y * r->stride[0];
        const unsigned char *dr = (const unsigned char *)d->data[0] + (size_t)y * d->stride[0];
        for (unsigned t = 0; t < FPIC_THREADS; t++)
            lane[t] = r->bpc == 8 ? fpsnr_lane_units8(rr, dr, t, w, limit)
                                  : fpsnr_lane_units16((const uint16_t *)(const void *)rr,
                                                       (const uint16_t *)(const void *)dr, t, w,
                                                       divisor, limit);
        rows[y] = sat_fold(lane, FPIC_THREADS, limit);
    }
    uint64_t lanes[REPLAY_WARP] = { 0 };
    for (unsigned l = 0; l < REPLAY_WARP; l++)
        for (unsigned y = l; y < h; y += REPLAY_WARP) lanes[l] = fpic_units_add(lanes[l], rows[y], limit);
    const uint64_t total = sat_fold(lanes, REPLAY_WARP, limit);
    free(rows);
    free(order);
    if (total_out) *total_out = total;
    return fpsnr_finish(total, limit, r->data[0], d->data[0], r->stride[0], d->stride[0], w, h,
                        r->bpc, divisor);
}

static void check_noise(const char *what, unsigned k, const char *limit_name, double cpu,
                        double replay)
{
    if (!replay_same_bits(cpu, replay))
        replay_fail("%s: frame %u: noise at limit %s: cpu %.17g replay %.17g", what, k,
                    limit_name, cpu, replay);
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    const double cpu = fpsnr_plane_noise(r->data[0], d->data[0], r->stride[0], d->stride[0],
                                         r->w[0], r->h[0], r->bpc, float_pic_divisor(r->bpc));
    uint64_t total;
    const double noise = replay_noise(r, d, FPIC_UNITS_EXACT, &total);
    n_saturated += total >= FPIC_UNITS_EXACT;
    check_noise(c->what, k, "2^53", cpu, noise);
    check_noise(c->what, k, "0", cpu, replay_noise(r, d, 0, NULL));
    if (total < FPIC_UNITS_EXACT) {
        check_noise(c->what, k, "total", cpu, replay_noise(r, d, total, NULL));
        check_noise(c->what, k, "total+1", cpu, replay_noise(r, d, total + 1, NULL));
    }
    double peak = 0, psnr_max = 0;
    float_psnr_constants(c->bpc, &peak, &psnr_max);
    out[0] = fpsnr_db(noise, (int)r->w[0], (int)r->h[0], peak, psnr_max);
    return 1;
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    (void)q;
    return "float_psnr";
}

static void run_case(const ReplayCase *c)
{
    const ReplayPairTwin twin = { "float_psnr", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* 10-bit pictures holding 16-bit samples (scored as they are): the 10-bit
 * unit is 2^-4 (fpic_frac_bits), the reference's samples sit at 0xe000 and
 * above and the distorted's below 0x2000, so every term is above 2^26.8,
 * 2^30.8 units, and 4096x2048 of them pass 2^53. */
static void run_above_depth(void)
{
    const char *what = "float_psnr: 4096x2048 10-bit with 16-bit samples";
    TvmafContext *ctx = replay_cpu_open("float_psnr", "", what);
    TvmafPicture r, d;
    if (!ctx) return;
    if (tvmaf_picture_alloc(&r, TVMAF_PIX_FMT_YUV400P, 10, 4096, 2048)) goto out;
    if (tvmaf_picture_alloc(&d, TVMAF_PIX_FMT_YUV400P, 10, 4096, 2048)) {
        tvmaf_picture_unref(&r);
        goto out;
    }
    for (unsigned y = 0; y < 2048; y++)
        for (unsigned x = 0; x < 4096; x++) {
            replay_put(&r, 0, x, y, 0xe000 | (replay_next() & 0x1fff));
            replay_put(&d, 0, x, y, replay_next() & 0x1fff);
        }
    double out;
    ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 10, .w = 4096, .h = 2048 };
    snprintf(c.what, sizeof(c.what), "%s", what);
    replay_frame(NULL, &c, &r, &d, 0, &out);
    if (!replay_cpu_read(ctx, &r, &d, 0, what) && !replay_cpu_flush(ctx, what))
        replay_check_key(ctx, "float_psnr", 0, out, what);
    tvmaf_picture_unref(&r);
    tvmaf_picture_unref(&d);
out:
    tvmaf_close(ctx);
    replay_count(what, 1);
}

int main(void)
{
    replay_seed(0x9e3779b97f4a7c15ull);
    /* one block per row: a row one sample past a block */
    replay_picture_matrices("float_psnr", FPIC_THREADS, 1, run_case);
    static const ReplayFill inv[][REPLAY_MAX_FRAMES] = { { REPLAY_INVERT }, { REPLAY_EXTREMES } };
    static const ReplaySize s4k[] = { { 3840, 2160 } };
    static const unsigned d16[] = { 16 };
    const ReplayMatrix big = { .name = "float_psnr 4K 16-bit past the limit",
                               REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s4k),
                               REPLAY_SET(depths, d16), REPLAY_SET(seqs, inv) };
    const unsigned before = n_saturated;
    replay_matrix(&big, run_case);
    run_above_depth();
    if (n_saturated - before < 3)
        replay_fail("the large cases did not reach the limit (%u of 3)", n_saturated - before);
    printf("frames past the limit: %u\n", n_saturated);
    return replay_report("float_psnr");
}
