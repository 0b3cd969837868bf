/*
 * The library API on the CUDA backend with pictures the caller built itself
 * (rows 38 bytes longer than the samples, each plane its own allocation): the device copies them plane
 * by plane instead of as one block, and every score must still equal the
 * CPU backend's, bit for bit (the JSON at full precision is compared as
 * text). vif, adm and motion read the luma, psnr all three planes. Also a picture pair of tvmaf_picture_alloc's layout in the same
 * stream, so both upload paths meet in one run. Exits 77 without a device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"

#define W 203
#define H 117
#define FRAMES 6

static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Sample (x, y) of plane p of frame f: smooth content plus noise. */
static unsigned sample(unsigned bpc, int dis, unsigned f, unsigned p, unsigned x, unsigned y,
                       unsigned *rng)
{
    const unsigned max = (1u << bpc) - 1;
    int v = (int)(((x * (3 + p) + y * 5 + f * 7) % 200) * max / 255);
    if (dis) v += (int)(lcg(rng) % 9) - 4;
    return v < 0 ? 0 : v > (int)max ? max : (unsigned)v;
}

/* A picture in the caller's memory (own_layout), or from tvmaf_picture_alloc. */
static void fill(TvmafPicture *pic, unsigned char **bufs, unsigned bpc, int dis, unsigned f,
                 unsigned *rng, int own_layout)
{
    if (!own_layout) {
        tvmaf_picture_alloc(pic, TVMAF_PIX_FMT_YUV420P, bpc, W, H);
    } else {
        memset(pic, 0, sizeof(*pic));
        pic->pix_fmt = TVMAF_PIX_FMT_YUV420P;
        pic->bpc = bpc;
        tvmaf_plane_dims(TVMAF_PIX_FMT_YUV420P, W, H, pic->w, pic->h);
        for (int p = 0; p < 3; p++) {
            pic->stride[p] = (ptrdiff_t)(pic->w[p] * (bpc > 8 ? 2 : 1) + 38);
            bufs[p] = calloc(pic->h[p], (size_t)pic->stride[p]);
            pic->data[p] = bufs[p];
        }
    }
    for (int p = 0; p < 3; p++)
        for (unsigned y = 0; y < pic->h[p]; y++)
            for (unsigned x = 0; x < pic->w[p]; x++) {
                unsigned v = sample(bpc, dis, f, (unsigned)p, x, y, rng);
                unsigned char *row = (unsigned char *)pic->data[p] + (size_t)y * pic->stride[p];
                if (bpc > 8) ((unsigned short *)row)[x] = (unsigned short)v;
                else row[x] = (unsigned char)v;
            }
}

static char *run(enum TvmafBackend backend, unsigned bpc, unsigned threads)
{
    TvmafConfiguration cfg = { .n_threads = threads, .backend = backend };
    TvmafContext *ctx = NULL;
    if (tvmaf_init(&ctx, &cfg)) {
        fprintf(stderr, "init: %s\n", tvmaf_last_error(ctx));
        tvmaf_close(ctx);
        return NULL;
    }
    static const char *const feats[] = { "vif", "adm", "motion", "psnr" };
    for (unsigned i = 0; i < 4; i++)
        if (tvmaf_use_feature(ctx, feats[i])) {
            fprintf(stderr, "%s: %s\n", feats[i], tvmaf_last_error(ctx));
            tvmaf_close(ctx);
            return NULL;
        }
    unsigned char *bufs[FRAMES][2][3] = { { { 0 } } };
    unsigned rng = 12345;
    int err = 0;
    for (unsigned f = 0; f < FRAMES && !err; f++) {
        TvmafPicture ref, dis;
        const int own = f != 2; /* frame 2 in the library's layout */
        fill(&ref, bufs[f][0], bpc, 0, f, &rng, own);
        fill(&dis, bufs[f][1], bpc, 1, f, &rng, own);
        if ((err = tvmaf_read_pictures(ctx, &ref, &dis, f)))
            fprintf(stderr, "frame %u: %s\n", f, tvmaf_last_error(ctx));
    }
    if (!err && (err = tvmaf_flush(ctx))) fprintf(stderr, "flush: %s\n", tvmaf_last_error(ctx));
    char *text = NULL;
    size_t len = 0;
    if (!err) {
        FILE *m = open_memstream(&text, &len);
        err = tvmaf_write_output(ctx, m, TVMAF_OUTPUT_JSON, 17, 0.0, W, H);
        fclose(m);
    }
    tvmaf_close(ctx);
    for (unsigned f = 0; f < FRAMES; f++)
        for (int s = 0; s < 2; s++)
            for (int p = 0; p < 3; p++) free(bufs[f][s][p]);
    if (err) {
        free(text);
        return NULL;
    }
    return text;
}

int main(void)
{
    if (!tvmaf_cuda_available()) {
        printf("no usable CUDA device: skip\n");
        return 77;
    }
    int failed = 0;
    for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
        char *cpu = run(TVMAF_BACKEND_CPU, bpc, 1);
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            char *gpu = run(TVMAF_BACKEND_CUDA, bpc, threads);
            /* the fps field is 0 in both; everything else must match */
            const int ok = cpu && gpu && !strcmp(cpu, gpu) && strstr(cpu, "integer_adm2") &&
                           strstr(cpu, "psnr_cr");
            printf("%s %u-bit, caller-built pictures, cuda %u thread(s) == cpu\n",
                   ok ? "ok  " : "FAIL", bpc, threads);
            failed += !ok;
            free(gpu);
        }
        free(cpu);
    }
    printf("%d failed\n", failed);
    return failed ? 1 : 0;
}
