/*
 * Host replay of the ciede CUDA twin (ciede.cu), compared bit for bit with
 * the CPU extractor; no GPU needed.
 *
 * The decomposition is ciede_kernel.h's, the one the kernel compiles: a grid
 * of CIEDE_GRID_X(w) x CIEDE_GRID_Y(h) blocks of CIEDE_BLOCK_W x
 * CIEDE_BLOCK_H threads, blocks and threads visited in scrambled orders, each
 * thread running CIEDE_THREAD on a CiedePlanes (here holding host addresses)
 * into a de plane that starts as garbage (an unwritten pixel changes the
 * sum); the host's read-back sum is ciede_sum_raster() and ciede_score().
 *
 * In CUDA builds the replayed powf(x, 7) is the device's
 * (numerics/powf_table.h: correctly rounded plus the build host's table),
 * every other libm call glibc's, so the replay must equal the CPU extractor
 * bit for bit; it counts the calls that the table corrected.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tvmaf_config.h"

#if TVMAF_HAVE_CUDA
#include "numerics/powf_table.h"

static uint64_t powf7_calls, powf7_corrected;

typedef struct CiedeLibm CiedeLibm;
/* the device's powf(x, 7), evaluated on the host */
static float replay_powf7(float x, CiedeLibm lm);
#define CIEDE_REPLAY_POWF7 replay_powf7
#endif
#include "feature/ciede/ciede_math.h"
#include "feature/ciede/ciede_kernel.h"
#include "../replay_common.h"

#if TVMAF_HAVE_CUDA
static float replay_powf7(float x, CiedeLibm lm)
{
    const float r = tvmaf_powf7_glibc(x, lm.powf7_tab, lm.powf7_n);
    powf7_calls++;
    powf7_corrected += tvmaf_fbits(r) != tvmaf_fbits(tvmaf_cr_powf7(x));
    return r;
}
static CiedeLibm ciede_lm; /* the table, set in main */
#else
static const CiedeLibm ciede_lm = { 0, 0 };
#endif

/* The launch on the pictures r and d; the frame's score as the host makes it. */
static unsigned replay_frame(void *priv, const ReplayCase *c, const TvmafPicture *r,
                             const TvmafPicture *d, unsigned k, double *out)
{
    (void)priv;
    (void)c;
    (void)k;
    const int layout = r->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 420
                     : r->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 422 : 444;
    const unsigned w = r->w[0], h = r->h[0], cw = r->w[1], ch = r->h[1], bpc = r->bpc;
    const CiedePlanes p = {
        { (uintptr_t)r->data[0], (uintptr_t)r->data[1], (uintptr_t)r->data[2] },
        { (uintptr_t)d->data[0], (uintptr_t)d->data[1], (uintptr_t)d->data[2] },
        { (size_t)r->stride[0], (size_t)r->stride[1] },
    };
    const unsigned gx = CIEDE_GRID_X(w), gy = CIEDE_GRID_Y(h);
    float *de = malloc(sizeof(float) * w * h);
    unsigned *blocks = malloc(sizeof(unsigned) * gx * gy);
    unsigned threads[CIEDE_BLOCK_W * CIEDE_BLOCK_H];
    if (!de || !blocks) {
        free(de);
        free(blocks);
        replay_fail("out of memory");
        return 0;
    }
    replay_garbage(de, sizeof(float) * w * h);
    replay_scramble(blocks, gx * gy);
    for (unsigned b = 0; b < gx * gy; b++) {
        const unsigned bx = blocks[b] % gx, by = blocks[b] / gx;
        replay_scramble(threads, CIEDE_BLOCK_W * CIEDE_BLOCK_H);
        for (unsigned n = 0; n < CIEDE_BLOCK_W * CIEDE_BLOCK_H; n++) {
            const unsigned tx = threads[n] % CIEDE_BLOCK_W, ty = threads[n] / CIEDE_BLOCK_W;
            if (bpc == 8)
                CIEDE_THREAD(uint8_t, p, bx, by, tx, ty, w, h, cw, ch, layout, bpc, ciede_lm, de);
            else
                CIEDE_THREAD(uint16_t, p, bx, by, tx, ty, w, h, cw, ch, layout, bpc, ciede_lm, de);
        }
    }
    /* the read-back plane, added on the host */
    out[0] = ciede_score(ciede_sum_raster(de, w, h), w, h);
    free(de);
    free(blocks);
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

int main(void)
{
#if TVMAF_HAVE_CUDA
    ciede_lm.powf7_tab = tvmaf_powf7_table;
    ciede_lm.powf7_n = tvmaf_powf7_table_n;
#endif
    replay_seed(0x6a09e667f3bcc909ull);
    replay_picture_matrices("ciede", CIEDE_BLOCK_W, CIEDE_BLOCK_H, run_case);
#if TVMAF_HAVE_CUDA
    printf("ciede: the device's powf(x, 7) replayed: %" PRIu64 " calls, %" PRIu64
           " corrected by the table\n", powf7_calls, powf7_corrected);
#endif
    return replay_report("ciede");
}
