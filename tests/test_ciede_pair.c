/*
 * Host replay of the ciede OpenCL twin (ciede.cl: ciede_pair.h on fp32
 * pairs), against the CPU extractor; no device needed. f32pair.h uses only
 * correctly rounded float operations, so the host computes the device's bits.
 *
 * 1. The decomposition: every work-item of the NDRange (CIEDE_PAIR_BLOCK_W x
 *    CIEDE_PAIR_BLOCK_H groups, visited in scrambled order) stores its
 *    pixel's dE00 (NaN where undecided) into a plane that starts as garbage;
 *    the host decides the undecided pixels with the CPU's code
 *    (tvmaf_ciede_decide), adds the plane with ciede_sum_raster() and scores
 *    it. Over replay_common.h's matrices (every layout, depth, size and fill)
 *    the frame scores must equal the CPU extractor's bit for bit.
 * 2. Per pixel, the pair evaluation against ciede_pixel() (the CPU's fp64
 *    statements and glibc): random and near-identical colour pairs at 8, 10,
 *    12 and 16 bits. A pixel the pairs decide must be the CPU's float; the
 *    test fails on any other, and prints how many pixels were undecided and
 *    on how many the pairs' own float (without the flagging) is not the CPU's.
 * 3. The table of colour pairs given as arguments (tests/data/ciede_pairs.tsv):
 *    pairs whose pairs' float is not the CPU's, found by the full sweep; each
 *    must be undecided.
 *
 * TVMAF_TEST_QUICK=1 takes a tenth of the pixels of part 2. The full sweep:
 * TVMAF_CIEDE_SWEEP=N (N random and N / 10 near pixels per depth),
 * TVMAF_CIEDE_SWEEP_SEED (another sequence, for parallel runs),
 * TVMAF_CIEDE_SWEEP_OUT=FILE (appends the pixels whose pairs' float is not
 * the CPU's, as table lines).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_pair.h"
#include "feature/ciede/ciede_plane.h"
#include "numerics/powf_table.h"
#include "replay_common.h"

static CiedePairK pair_k[17]; /* by bit depth */
static unsigned long decided_on_host;

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
    /* the host decides what the device left undecided, as the plan does */
    decided_on_host += tvmaf_ciede_decide(de, r, d);
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

/* One pixel of part 2 or of the table: the CPU's dE00, the pairs' float as
 * computed (today's code without the flagging) and whether the pairs left it
 * undecided. A pixel is wrong if decided and not the CPU's. */
typedef struct PairStats {
    unsigned long n, undecided, raw_differ, wrong;
} PairStats;

static void pixel(const float s[6], unsigned bpc, PairStats *st, FILE *print_raw)
{
    const CiedeLibm glibc = { 0, 0 };
    const float cpu = ciede_pixel(s[0], s[1], s[2], s[3], s[4], s[5], bpc, glibc);
    int u = 0;
    const float raw = ciede_pair_pixel_u(s[0], s[1], s[2], s[3], s[4], s[5], &pair_k[bpc],
                                         tvmaf_powf7_table, tvmaf_powf7_table_n, &u);
    /* what the kernel stores (ciede_pair_pixel, NaN if undecided): it can be
     * wrong only where the pairs' own float is */
    const float dev = tvmaf_fbits(raw) == tvmaf_fbits(cpu)
                    ? (u ? NAN : raw)
                    : ciede_pair_pixel(s[0], s[1], s[2], s[3], s[4], s[5], &pair_k[bpc],
                                       tvmaf_powf7_table, tvmaf_powf7_table_n);
    st->n++;
    st->undecided += u != 0;
    if (tvmaf_fbits(raw) != tvmaf_fbits(cpu)) {
        st->raw_differ++;
        if (print_raw)
            fprintf(print_raw, "%u\t%g\t%g\t%g\t%g\t%g\t%g\n", bpc, s[0], s[1], s[2], s[3], s[4],
                    s[5]);
    }
    if (isnan(dev) || tvmaf_fbits(dev) == tvmaf_fbits(cpu)) return;
    if (st->wrong++ < 3)
        printf("  wrong: samples %g %g %g / %g %g %g at %u bits: cpu %a, pairs %a, decided\n",
               s[0], s[1], s[2], s[3], s[4], s[5], bpc, (double)cpu, (double)dev);
}

/* Part 2: n pixels at bit depth bpc; near: 0 for independent samples, else
 * the distorted sample within +-near of the reference's. */
static void pixels(unsigned bpc, unsigned long n, int near, FILE *print_raw)
{
    const int maxv = (1 << bpc) - 1;
    PairStats st = { 0, 0, 0, 0 };
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
        pixel(s, bpc, &st, print_raw);
    }
    printf("ciede pairs, %2u bits, %s: %lu pixels; the pairs' float is not the CPU's on %lu; "
           "%lu undecided (%.3g per 10^4); %lu decided wrongly\n", bpc,
           near ? "near colours" : "independent colours", st.n, st.raw_differ, st.undecided,
           1e4 * (double)st.undecided / (double)st.n, st.wrong);
    if (st.wrong) replay_fail("ciede pairs: %lu pixels decided and not the CPU's", st.wrong);
    replay_count("ciede pairs, pixel sets", 1);
}

/* The table of colour pairs on which the pairs' float is not the CPU's
 * (tests/data/ciede_pairs.tsv: bit depth and six samples per line, found by
 * the full sweep): every one must be left undecided. */
static void table(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        replay_fail("ciede pairs: cannot open %s", path);
        return;
    }
    PairStats st = { 0, 0, 0, 0 };
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        unsigned bpc;
        float s[6];
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, "%u %g %g %g %g %g %g", &bpc, &s[0], &s[1], &s[2], &s[3], &s[4],
                   &s[5]) != 7 || bpc < 8 || bpc > 16) {
            replay_fail("ciede pairs: bad line in %s: %s", path, line);
            break;
        }
        pixel(s, bpc, &st, NULL);
    }
    fclose(f);
    printf("ciede pairs, table %s: %lu pairs; the pairs' float is not the CPU's on %lu; "
           "%lu undecided; %lu decided wrongly\n", path, st.n, st.raw_differ, st.undecided,
           st.wrong);
    if (!st.n) replay_fail("ciede pairs: %s holds no pair", path);
    if (st.wrong) replay_fail("ciede pairs: %lu table pairs decided and not the CPU's", st.wrong);
    replay_count("ciede pairs, table", 1);
}

int main(int argc, char **argv)
{
    for (unsigned b = 8; b <= 16; b++) ciede_pair_constants(&pair_k[b], b);
    replay_seed(0x3c6ef372fe94f82bull);
    replay_picture_matrices("ciede (opencl)", CIEDE_PAIR_BLOCK_W, CIEDE_PAIR_BLOCK_H, run_case);
    printf("ciede (opencl) frames: %lu pixels left undecided, decided on the host\n",
           decided_on_host);

    for (int i = 1; i < argc; i++) table(argv[i]);

    /* TVMAF_CIEDE_SWEEP=N: N random and N/10 near pixels per depth (the full
     * sweep), printing the pixels whose pairs' float is not the CPU's as
     * table lines to TVMAF_CIEDE_SWEEP_OUT */
    const char *q = getenv("TVMAF_TEST_QUICK"), *sw = getenv("TVMAF_CIEDE_SWEEP");
    const char *out = getenv("TVMAF_CIEDE_SWEEP_OUT");
    unsigned long n = q && *q && strcmp(q, "0") ? 100000ul : 1000000ul, n_near = n;
    if (sw && *sw) {
        n = strtoul(sw, NULL, 10);
        n_near = n / 10;
        const char *seed = getenv("TVMAF_CIEDE_SWEEP_SEED");
        if (seed && *seed) replay_seed(strtoull(seed, NULL, 0));
    }
    FILE *print_raw = out && *out ? fopen(out, "a") : NULL;
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned i = 0; i < 4; i++) {
        pixels(depths[i], n, 0, print_raw);
        pixels(depths[i], n_near, depths[i] == 8 ? 1 : 4, print_raw);
    }
    if (print_raw) fclose(print_raw);
    return replay_report("ciede (opencl)");
}
