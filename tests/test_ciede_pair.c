/*
 * Host replay of the ciede OpenCL twin (ciede.cl: ciede_pair.h on fp32
 * pairs), against the CPU extractor; no device needed. f32pair.h uses only
 * correctly rounded float operations, so the host computes the device's bits.
 *
 * 1. The decomposition: every work-item of the NDRange (CIEDE_PAIR_BLOCK_W x
 *    CIEDE_PAIR_BLOCK_H groups, visited in scrambled order) stores its
 *    pixel's dE00 into a plane that starts as garbage; the host adds the plane
 *    with ciede_sum_raster() and scores it. Over replay_common.h's matrices
 *    (every layout, depth, size and fill) the frame scores must equal the
 *    CPU extractor's bit for bit.
 * 2. Per pixel, the pair evaluation against ciede_pixel() (the CPU's fp64
 *    statements and glibc): random and near-identical colour pairs at 8, 10,
 *    12 and 16 bits. A pair holds ~48 bits where fp64 holds 53, so a pixel can
 *    differ where the reference's double lies within the pair's error of a
 *    float rounding boundary. The test prints how many do and fails if any
 *    differs by more than CIEDE_PAIR_MAX_STEPS float steps: the premise of
 *    the gate's LIBM bound for ciede on opencl (tests/golden_common.py,
 *    ciede_opencl_bound), which counts one float step per rounding of an fp64
 *    expression to float in the pixel's evaluation.
 *
 * TVMAF_TEST_QUICK=1 takes a tenth of the pixels of part 2.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_pair.h"
#include "numerics/powf_table.h"
#include "replay_common.h"

/* the roundings of an fp64 expression to float in one pixel (ciede_pair.h:
 * 12 in the two Lab conversions, 27 in ciede2000), bounded by 40 */
#define CIEDE_PAIR_MAX_STEPS 40

static CiedePairK pair_k[17]; /* by bit depth */

static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)k;
    const int layout = r->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 420
                     : r->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 422 : 444;
    const unsigned w = r->w[0], h = r->h[0], cw = r->w[1], ch = r->h[1], bpc = r->bpc;
    const unsigned bps = bpc > 8 ? 2 : 1;
    const unsigned lp = (unsigned)(r->stride[0] / bps), cp = (unsigned)(r->stride[1] / bps);
    const void *const rp[3] = { r->data[0], r->data[1], r->data[2] };
    const void *const dp[3] = { d->data[0], d->data[1], d->data[2] };
    const unsigned gx = (w + CIEDE_PAIR_BLOCK_W - 1) / CIEDE_PAIR_BLOCK_W;
    const unsigned gy = (h + CIEDE_PAIR_BLOCK_H - 1) / CIEDE_PAIR_BLOCK_H;
    float *de = malloc(sizeof(float) * w * h);
    unsigned *groups = malloc(sizeof(unsigned) * gx * gy);
    unsigned items[CIEDE_PAIR_BLOCK_W * CIEDE_PAIR_BLOCK_H];
    if (!de || !groups) {
        free(de);
        free(groups);
        replay_fail("%s: out of memory", c->what);
        return 0;
    }
    replay_garbage(de, sizeof(float) * w * h);
    replay_scramble(groups, gx * gy);
    for (unsigned g = 0; g < gx * gy; g++) {
        replay_scramble(items, CIEDE_PAIR_BLOCK_W * CIEDE_PAIR_BLOCK_H);
        for (unsigned n = 0; n < CIEDE_PAIR_BLOCK_W * CIEDE_PAIR_BLOCK_H; n++) {
            const unsigned x = groups[g] % gx * CIEDE_PAIR_BLOCK_W + items[n] % CIEDE_PAIR_BLOCK_W;
            const unsigned y = groups[g] / gx * CIEDE_PAIR_BLOCK_H + items[n] / CIEDE_PAIR_BLOCK_W;
            if (x >= w || y >= h) continue;
            float s[6];
            if (bpc == 8)
                CIEDE_SAMPLES_AT(uint8_t, rp, dp, x, y, lp, cp, cw, ch, layout, s);
            else
                CIEDE_SAMPLES_AT(uint16_t, rp, dp, x, y, lp, cp, cw, ch, layout, s);
            de[(size_t)y * w + x] = ciede_pair_pixel(s[0], s[1], s[2], s[3], s[4], s[5],
                                                     &pair_k[bpc], tvmaf_powf7_table,
                                                     tvmaf_powf7_table_n);
        }
    }
    out[0] = ciede_score(ciede_sum_raster(de, w, h), w, h);
    free(de);
    free(groups);
    return 1;
}

static const char *key(void *priv, unsigned q)
{
    (void)priv;
    (void)q;
    return "ciede2000";
}

static void run_case(const ReplayCase *c)
{
    const ReplayPairTwin twin = { "ciede", NULL, replay_frame, key };
    replay_pair_case(c, &twin);
}

/* Part 2: n pixels at bit depth bpc; near: 0 for independent samples, else
 * the distorted sample within +-near of the reference's. */
static void pixels(unsigned bpc, unsigned long n, int near)
{
    const int maxv = (1 << bpc) - 1;
    const CiedeLibm glibc = { 0, 0 };
    unsigned long differ = 0;
    unsigned max_steps = 0;
    for (unsigned long i = 0; i < n; i++) {
        float s[6];
        for (int j = 0; j < 3; j++) {
            const int v = (int)(replay_next() % (uint32_t)(maxv + 1));
            int u = near ? v + (int)(replay_next() % (uint32_t)(2 * near + 1)) - near
                         : (int)(replay_next() % (uint32_t)(maxv + 1));
            u = u < 0 ? 0 : u > maxv ? maxv : u;
            s[j] = (float)v;
            s[3 + j] = (float)u;
        }
        const float cpu = ciede_pixel(s[0], s[1], s[2], s[3], s[4], s[5], bpc, glibc);
        const float dev = ciede_pair_pixel(s[0], s[1], s[2], s[3], s[4], s[5], &pair_k[bpc],
                                           tvmaf_powf7_table, tvmaf_powf7_table_n);
        const uint32_t a = tvmaf_fbits(cpu), b = tvmaf_fbits(dev);
        if (a == b) continue;
        const unsigned steps = a > b ? a - b : b - a;
        if (steps > max_steps) max_steps = steps;
        if (differ++ < 3)
            printf("  differs: samples %g %g %g / %g %g %g: cpu %a, pairs %a (%u step(s))\n",
                   s[0], s[1], s[2], s[3], s[4], s[5], (double)cpu, (double)dev, steps);
    }
    printf("ciede pairs, %2u bits, %s: %lu of %lu pixels differ from the CPU (max %u float "
           "step(s))\n", bpc, near ? "near colours" : "independent colours", differ, n, max_steps);
    if (max_steps > CIEDE_PAIR_MAX_STEPS || (int32_t)max_steps < 0)
        replay_fail("ciede pairs: a pixel differs by %u float steps (> %d)", max_steps,
                    CIEDE_PAIR_MAX_STEPS);
    replay_count("ciede pairs, pixels", 1);
}

int main(void)
{
    for (unsigned b = 8; b <= 16; b++) ciede_pair_constants(&pair_k[b], b);
    replay_seed(0x3c6ef372fe94f82bull);
    replay_picture_matrices("ciede (opencl)", CIEDE_PAIR_BLOCK_W, CIEDE_PAIR_BLOCK_H, run_case);

    const char *q = getenv("TVMAF_TEST_QUICK");
    const unsigned long n = q && *q && strcmp(q, "0") ? 100000ul : 1000000ul;
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned i = 0; i < 4; i++) {
        pixels(depths[i], n, 0);
        pixels(depths[i], n, depths[i] == 8 ? 1 : 4);
    }
    return replay_report("ciede (opencl)");
}
