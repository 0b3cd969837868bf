/*
 * Host replay of the float_moment CUDA twin (float_moment.cu), compared bit
 * for bit with the CPU extractor; no GPU needed.
 *
 * The decomposition is float_moment_math.h's, the one the kernels compile:
 * float_moment_rows, one block of FPIC_THREADS threads per row (blocks in a
 * scrambled order), thread t adding its lane's units of the reference's and
 * the distorted's samples and squares (fmoment_lane_units), the block's
 * saturated folds; float_moment_finish, one warp folding the rows (lane l
 * takes rows l, l + 32, ...) and fmoment_finish turning each picture's
 * totals into its sums (the CPU's loop where one saturated); the host's
 * fmoment_mean. Each frame is replayed at the twin's limit (2^53 units) and
 * at limits that force the sequential path (0, the largest exact total) or
 * sit just above the totals; every sum must equal the CPU's loop
 * (fmoment_plane) as bits, and the four outputs the CPU extractor's. Large
 * cases reach the limit for real: 16-bit 4K pictures at full scale and
 * 10-bit pictures whose samples are far above 10 bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_moment/float_moment_math.h"
#include "../replay_common.h"

_Static_assert(FPIC_THREADS % REPLAY_WARP == 0, "a block is whole warps");

static unsigned n_saturated; /* pictures whose total reached the twin's limit */

/* min(sum, limit) of n values; the same folded backwards (any order). */
static uint64_t sat_fold(const uint64_t *v, size_t stride, unsigned n, uint64_t limit)
{
    uint64_t a = 0, b = 0;
    for (unsigned i = 0; i < n; i++) a = fpic_units_add(a, v[i * stride], limit);
    for (unsigned i = n; i-- > 0;) b = fpic_units_add(b, v[i * stride], limit);
    if (a != b) replay_fail("saturated fold depends on its order");
    return a;
}

/* The two kernels at `limit`: sums[0] ref, sums[1] dis; totals[4] the units. */
static void replay_sums(const TvmafPicture *r, const TvmafPicture *d, uint64_t limit,
                        FMomentSums sums[2], uint64_t totals[FMOMENT_SLOTS])
{
    const unsigned w = r->w[0], h = r->h[0], bpc = r->bpc;
    const float divisor = float_pic_divisor(bpc);
    uint64_t *rows = malloc(sizeof(uint64_t) * FMOMENT_SLOTS * h);
    unsigned *order = malloc(sizeof(unsigned) * h);
    static uint64_t lane[FPIC_THREADS][FMOMENT_SLOTS];
    if (!rows || !order) {
        free(rows);
        free(order);
        replay_fail("out of memory");
        return;
    }
    replay_garbage(rows, sizeof(uint64_t) * FMOMENT_SLOTS * h); /* every slot must be written */
    replay_scramble(order, h);
    for (unsigned b = 0; b < h; b++) {
        const unsigned y = order[b];
        const unsigned char *rr = (const unsigned char *)r->data[0] + (size_t)y * r->stride[0];
        const unsigned char *dr = (const unsigned char *)d->data[0] + (size_t)y * d->stride[0];
        for (unsigned t = 0; t < FPIC_THREADS; t++) {
            fmoment_lane_units(rr, t, w, bpc, divisor, limit, lane[t]);
            fmoment_lane_units(dr, t, w, bpc, divisor, limit, lane[t] + 2);
        }
        for (unsigned k = 0; k < FMOMENT_SLOTS; k++)
            rows[FMOMENT_SLOTS * y + k] = sat_fold(&lane[0][k], FMOMENT_SLOTS, FPIC_THREADS, limit);
    }
    uint64_t total[FMOMENT_SLOTS];
    for (unsigned k = 0; k < FMOMENT_SLOTS; k++) {
        uint64_t lanes[REPLAY_WARP] = { 0 };
        for (unsigned l = 0; l < REPLAY_WARP; l++)
            for (unsigned y = l; y < h; y += REPLAY_WARP)
                lanes[l] = fpic_units_add(lanes[l], rows[FMOMENT_SLOTS * y + k], limit);
        total[k] = sat_fold(lanes, 1, REPLAY_WARP, limit);
        if (totals) totals[k] = total[k];
    }
    free(rows);
    free(order);
    sums[0] = fmoment_finish(total, limit, r->data[0], r->stride[0], w, h, bpc, divisor);
    sums[1] = fmoment_finish(total + 2, limit, d->data[0], d->stride[0], w, h, bpc, divisor);
}

static void check_sums(const char *what, unsigned k, const char *limit_name,
                       const FMomentSums cpu[2], const FMomentSums got[2])
{
    for (int p = 0; p < 2; p++)
        if (!replay_same_bits(cpu[p].s1, got[p].s1) || !replay_same_bits(cpu[p].s2, got[p].s2))
            replay_fail("%s: frame %u: %s sums at limit %s: cpu %.17g %.17g replay %.17g %.17g",
                        what, k, p ? "dis" : "ref", limit_name, cpu[p].s1, cpu[p].s2, got[p].s1,
                        got[p].s2);
}

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    const float divisor = float_pic_divisor(r->bpc);
    FMomentSums cpu[2] = { { 0., 0. }, { 0., 0. } }, got[2] = { { 0., 0. }, { 0., 0. } };
    fmoment_plane(r->data[0], r->stride[0], r->w[0], r->h[0], r->bpc, divisor, &cpu[0]);
    fmoment_plane(d->data[0], d->stride[0], d->w[0], d->h[0], d->bpc, divisor, &cpu[1]);
    uint64_t total[FMOMENT_SLOTS], top = 0;
    replay_sums(r, d, FPIC_UNITS_EXACT, got, total);
    for (unsigned q = 0; q < FMOMENT_SLOTS; q++) {
        n_saturated += total[q] >= FPIC_UNITS_EXACT;
        top = total[q] > top ? total[q] : top;
    }
    check_sums(c->what, k, "2^53", cpu, got);
    FMomentSums alt[2] = { { 0., 0. }, { 0., 0. } };
    replay_sums(r, d, 0, alt, NULL);
    check_sums(c->what, k, "0", cpu, alt);
    if (top < FPIC_UNITS_EXACT) {
        replay_sums(r, d, top, alt, NULL);
        check_sums(c->what, k, "largest total", cpu, alt);
        replay_sums(r, d, top + 1, alt, NULL);
        check_sums(c->what, k, "largest total+1", cpu, alt);
    }
    const int w = (int)r->w[0], h = (int)r->h[0];
    out[0] = fmoment_mean(got[0].s1, w, h);
    out[1] = fmoment_mean(got[1].s1, w, h);
    out[2] = fmoment_mean(got[0].s2, w, h);
    out[3] = fmoment_mean(got[1].s2, w, h);
    return 4;
}

static const char *const keys[4] = {
    "float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd",
};

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    return keys[q];
}

static void run_case(const ReplayCase *c)
{
    const ReplayPairTwin twin = { "float_moment", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* 10-bit pictures holding 16-bit samples (scored as they are): the 10-bit
 * unit of a square is 2^-4 (fpic_frac_bits), both pictures' samples are at
 * 0xc000 and above, so every square is above 2^27.1, 2^31.1 units, and
 * 4096x2048 of them pass 2^53 (the samples' sums stay far below). */
static void run_above_depth(void)
{
    const char *what = "float_moment: 4096x2048 10-bit with 16-bit samples";
    TvmafContext *ctx = replay_cpu_open("float_moment", "", what);
    TvmafPicture r, d;
    if (!ctx) return;
    if (tvmaf_picture_alloc(&r, TVMAF_PIX_FMT_YUV400P, 10, 4096, 2048)) goto out;
    if (tvmaf_picture_alloc(&d, TVMAF_PIX_FMT_YUV400P, 10, 4096, 2048)) {
        tvmaf_picture_unref(&r);
        goto out;
    }
    for (unsigned y = 0; y < 2048; y++)
        for (unsigned x = 0; x < 4096; x++) {
            replay_put(&r, 0, x, y, 0xc000 | (replay_next() & 0x3fff));
            replay_put(&d, 0, x, y, (0xc0 | (replay_next() & 0x3f)) << 8);
        }
    double out[4];
    ReplayCase c = { .fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 10, .w = 4096, .h = 2048 };
    snprintf(c.what, sizeof(c.what), "%s", what);
    replay_frame(NULL, &c, &r, &d, 0, out);
    if (!replay_cpu_read(ctx, &r, &d, 0, what) && !replay_cpu_flush(ctx, what))
        for (unsigned q = 0; q < 4; q++) replay_check_key(ctx, keys[q], 0, out[q], what);
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
    replay_picture_matrices("float_moment", FPIC_THREADS, 1, run_case);
    static const ReplayFill big_fills[][REPLAY_MAX_FRAMES] = { { REPLAY_CONSTMAX },
                                                               { REPLAY_RANDOM } };
    static const ReplaySize s4k[] = { { 3840, 2160 } };
    static const unsigned d16[] = { 16 };
    const ReplayMatrix big = { .name = "float_moment 4K 16-bit past the limit",
                               REPLAY_SET(fmts, replay_400), REPLAY_SET(sizes, s4k),
                               REPLAY_SET(depths, d16), REPLAY_SET(seqs, big_fills) };
    replay_matrix(&big, run_case);
    const unsigned before_depth = n_saturated;
    run_above_depth();
    /* constmax: both pictures' squares; random: both too (mean ~ 2^14.4 per pixel) */
    if (n_saturated < 4 || n_saturated - before_depth < 2)
        replay_fail("the large cases did not reach the limit (%u totals)", n_saturated);
    printf("totals past the limit: %u\n", n_saturated);
    return replay_report("float_moment");
}
