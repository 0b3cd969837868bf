/*
 * Device replay: each CUDA twin's decomposition executed on the host and
 * compared bit for bit with the CPU extractor, over random and edge inputs.
 * Runs without a GPU (CI); the device parity test confirms it on hardware.
 *
 * psnr: the device adds each row's squared errors per thread (thread t takes
 * samples t, t + B, ...), folds the 32 lanes of a warp by shuffles, adds the
 * warps' partial sums and adds the row into the plane total atomically. The
 * replay does exactly that with B = 256 and also adds the rows in reverse
 * order (atomics land in any order).
 * ciede: the device stores each pixel's dE00 at its raster position (the
 * per-pixel macro shared with the CPU extractor) and the host adds the plane
 * with ciede_sum_raster(); the replay builds the plane pixel by pixel in a
 * scattered order (as threads finish) and sums it the same way. In CUDA builds
 * its powf(x, 7) is the device's (numerics/powf_table.h: correctly rounded
 * plus the build host's table), every other libm call glibc's, so the replay
 * must equal the CPU extractor bit for bit; it counts the calls that the table
 * corrected.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
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
#include "feature/psnr/psnr_math.h"

static int failures;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static unsigned get(const TvmafPicture *p, int pl, unsigned x, unsigned y)
{
    const unsigned char *row = (const unsigned char *)p->data[pl] + (size_t)y * p->stride[pl];
    return p->bpc == 8 ? row[x] : ((const uint16_t *)row)[x];
}

static void put(TvmafPicture *p, int pl, unsigned x, unsigned y, unsigned v)
{
    unsigned char *row = (unsigned char *)p->data[pl] + (size_t)y * p->stride[pl];
    if (p->bpc == 8) row[x] = (unsigned char)v;
    else ((uint16_t *)row)[x] = (uint16_t)v;
}

enum Fill { RANDOM, NEAR, LEVELS, EXTREMES, EQUAL };

/* Fills ref and dis; NEAR makes dis a small perturbation of ref. */
static void fill(TvmafPicture *r, TvmafPicture *d, enum Fill how)
{
    const unsigned maxv = (1u << r->bpc) - 1;
    unsigned k = 0;
    for (int pl = 0; pl < 3; pl++) {
        for (unsigned y = 0; y < r->h[pl]; y++) {
            for (unsigned x = 0; x < r->w[pl]; x++, k++) {
                unsigned a, b;
                switch (how) {
                case RANDOM: a = next() & maxv; b = next() & maxv; break;
                case NEAR: a = next() & maxv; b = a + (next() % 9) - 4; b = b > maxv ? a : b; break;
                case LEVELS: a = (k * 2654435761u) & maxv; b = (k + 1 + pl) & maxv; break;
                case EXTREMES: a = (next() & 1) ? maxv : 0; b = (next() & 1) ? maxv : 0; break;
                default: a = b = next() & maxv; break;
                }
                put(r, pl, x, y, a);
                put(d, pl, x, y, b);
            }
        }
    }
}

/* CPU extractor's value of `key` for one frame, through the public API. */
static double cpu_score(const char *feature, const char *key, const TvmafPicture *r,
                        const TvmafPicture *d)
{
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU };
    TvmafContext *ctx;
    TvmafPicture rc, dc;
    double v = NAN;
    if (tvmaf_init(&ctx, &cfg) || tvmaf_use_feature(ctx, feature)) goto fail;
    tvmaf_picture_alloc(&rc, r->pix_fmt, r->bpc, r->w[0], r->h[0]);
    tvmaf_picture_alloc(&dc, d->pix_fmt, d->bpc, d->w[0], d->h[0]);
    for (int pl = 0; pl < 3; pl++)
        for (unsigned y = 0; y < r->h[pl]; y++)
            for (unsigned x = 0; x < r->w[pl]; x++) {
                put(&rc, pl, x, y, get(r, pl, x, y));
                put(&dc, pl, x, y, get(d, pl, x, y));
            }
    if (tvmaf_read_pictures(ctx, &rc, &dc, 0) || tvmaf_flush(ctx) ||
        tvmaf_feature_score_at_index(ctx, key, &v, 0))
        goto fail;
    tvmaf_close(ctx);
    return v;
fail:
    fprintf(stderr, "CPU extractor failed: %s\n", tvmaf_last_error(ctx));
    failures++;
    tvmaf_close(ctx);
    return NAN;
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

/* The psnr kernel's integer reduction, replayed. */
static uint64_t replay_plane_sse(const TvmafPicture *r, const TvmafPicture *d, int pl)
{
    enum { B = 256 };
    uint64_t total = 0;
    for (unsigned yy = r->h[pl]; yy-- > 0;) { /* blocks finish in any order */
        uint64_t lane[B];
        for (unsigned t = 0; t < B; t++) {
            lane[t] = 0;
            for (unsigned x = t; x < r->w[pl]; x += B)
                lane[t] += psnr_sample_se(get(r, pl, x, yy), get(d, pl, x, yy));
        }
        uint64_t partial[B / 32];
        for (unsigned wp = 0; wp < B / 32; wp++) {
            uint64_t *v = lane + 32 * wp;
            for (unsigned o = 16; o > 0; o >>= 1)
                for (unsigned i = 0; i + o < 32; i++) v[i] += v[i + o];
            partial[wp] = v[0];
        }
        uint64_t row = 0;
        for (unsigned wp = 0; wp < B / 32; wp++) row += partial[wp];
        total += row;
    }
    return total;
}

static void check_psnr(const TvmafPicture *r, const TvmafPicture *d, const char *what)
{
    static const char *keys[3] = { "psnr_y", "psnr_cb", "psnr_cr" };
    const uint32_t peak = psnr_peak(r->bpc, 0);
    for (int pl = 0; pl < 3; pl++) {
        const double cpu = cpu_score("psnr", keys[pl], r, d);
        const double mse = psnr_mse(replay_plane_sse(r, d, pl), r->w[pl], r->h[pl]);
        const double dev = psnr_db(mse, peak, psnr_max_db(peak, r->bpc, 0.0, r->w[pl], r->h[pl]));
        if (!same_bits(cpu, dev)) {
            printf("FAIL psnr %s %s: cpu %.17g replay %.17g\n", what, keys[pl], cpu, dev);
            failures++;
        }
    }
}

static void check_ciede(const TvmafPicture *r, const TvmafPicture *d, const char *what)
{
    const int layout = r->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 420
                     : r->pix_fmt == TVMAF_PIX_FMT_YUV422P ? 422 : 444;
    const unsigned w = r->w[0], h = r->h[0], bps = r->bpc > 8 ? 2 : 1;
    float *de = malloc(sizeof(float) * w * h);
    const void *rp[3] = { r->data[0], r->data[1], r->data[2] };
    const void *dp[3] = { d->data[0], d->data[1], d->data[2] };
    /* threads complete in no particular order: visit pixels by a permutation */
    const size_t n = (size_t)w * h;
    size_t step = 7919;
    while (n % step == 0 && step > 1) step--;
    for (size_t k = 0, i = 0; k < n; k++, i = (i + step) % n) {
        const unsigned x = (unsigned)(i % w), y = (unsigned)(i / w);
        float v;
        if (r->bpc == 8)
            CIEDE_PIXEL_AT(uint8_t, rp, dp, x, y, r->stride[0] / bps, (unsigned)(r->stride[1] / bps),
                           r->w[1], r->h[1], layout, r->bpc, ciede_lm, v);
        else
            CIEDE_PIXEL_AT(uint16_t, rp, dp, x, y, r->stride[0] / bps, (unsigned)(r->stride[1] / bps),
                           r->w[1], r->h[1], layout, r->bpc, ciede_lm, v);
        de[i] = v;
    }
    const double dev = ciede_score(ciede_sum_raster(de, w, h), w, h);
    const double cpu = cpu_score("ciede", "ciede2000", r, d);
    free(de);
    if (!same_bits(cpu, dev)) {
        printf("FAIL ciede %s: cpu %.17g replay %.17g\n", what, cpu, dev);
        failures++;
    }
}

int main(void)
{
    static const enum TvmafPixelFormat fmts[] = { TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P,
                                                  TVMAF_PIX_FMT_YUV444P };
    static const char *fmt_names[] = { "420", "422", "444" };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const struct { unsigned w, h; } sizes[] = { { 64, 36 }, { 177, 99 }, { 33, 2 }, { 1, 1 } };
    static const char *fill_names[] = { "random", "near", "levels", "extremes", "equal" };
    unsigned cases = 0;
#if TVMAF_HAVE_CUDA
    ciede_lm.powf7_tab = tvmaf_powf7_table;
    ciede_lm.powf7_n = tvmaf_powf7_table_n;
#endif
    for (unsigned f = 0; f < 3; f++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned s = 0; s < 4; s++)
                for (int how = RANDOM; how <= EQUAL; how++) {
                    TvmafPicture r, d;
                    tvmaf_picture_alloc(&r, fmts[f], depths[b], sizes[s].w, sizes[s].h);
                    tvmaf_picture_alloc(&d, fmts[f], depths[b], sizes[s].w, sizes[s].h);
                    fill(&r, &d, (enum Fill)how);
                    char what[96];
                    snprintf(what, sizeof(what), "%s %u-bit %ux%u %s", fmt_names[f], depths[b],
                             sizes[s].w, sizes[s].h, fill_names[how]);
                    check_psnr(&r, &d, what);
                    check_ciede(&r, &d, what);
                    tvmaf_picture_unref(&r);
                    tvmaf_picture_unref(&d);
                    cases++;
                }
    /* every 16-bit level in luma and chroma of one 4:4:4 picture */
    {
        TvmafPicture r, d;
        tvmaf_picture_alloc(&r, TVMAF_PIX_FMT_YUV444P, 16, 256, 256);
        tvmaf_picture_alloc(&d, TVMAF_PIX_FMT_YUV444P, 16, 256, 256);
        for (unsigned y = 0; y < 256; y++)
            for (unsigned x = 0; x < 256; x++) {
                const unsigned v = y * 256 + x;
                put(&r, 0, x, y, v);
                put(&r, 1, x, y, 65535 - v);
                put(&r, 2, x, y, (v * 40503u) & 0xffff);
                put(&d, 0, x, y, (v * 7u) & 0xffff);
                put(&d, 1, x, y, v);
                put(&d, 2, x, y, 65535 - v);
            }
        check_psnr(&r, &d, "444 16-bit all levels");
        check_ciede(&r, &d, "444 16-bit all levels");
        tvmaf_picture_unref(&r);
        tvmaf_picture_unref(&d);
        cases++;
    }
#if TVMAF_HAVE_CUDA
    printf("ciede: the device's powf(x, 7) replayed: %" PRIu64 " calls, %" PRIu64
           " corrected by the table\n", powf7_calls, powf7_corrected);
#endif
    printf("%u cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
