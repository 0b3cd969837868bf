/*
 * libFuzzer target: the feature string parser ("name=opt=val:opt=val",
 * src/core/options.c and the registry) through tvmaf_use_feature, and,
 * when the input asks for it, two frames scored with the options given, so
 * that option values reach the extractors' init and arithmetic.
 *
 * Input: one flags byte, then up to four specs separated by newlines, all
 * registered on one context (duplicates included). Specs naming
 * heatmaps_path are registered but never run: that option writes files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"

#define MAX_SPECS 4
#define SIDE 48 /* small, but large enough for most extractors' minimum */

static void fill(TvmafPicture *p, unsigned seed)
{
    const size_t bytes = p->bpc > 8 ? 2 : 1;
    for (int k = 0; k < 3; k++) {
        if (!p->data[k]) continue;
        for (unsigned y = 0; y < p->h[k]; y++) {
            uint8_t *row = (uint8_t *)p->data[k] + (size_t)y * p->stride[k];
            for (unsigned x = 0; x < p->w[k] * bytes; x++)
                row[x] = (uint8_t)((x * 7 + y * 13 + seed * 29 + (x * y) % 5) & (bytes == 2 && (x & 1) ? 3 : 255));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    const unsigned flags = data[0];
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    TvmafConfiguration cfg = { .n_threads = (flags >> 1) & 1 ? 2 : 0,
                               .backend = TVMAF_BACKEND_CPU,
                               .log_level = TVMAF_LOG_WARNING };
    TvmafContext *ctx = NULL;
    if (tvmaf_init(&ctx, &cfg)) {
        free(text);
        return 0;
    }
    unsigned ok = 0;
    int writes_files = 0;
    char *rest = text, *spec;
    for (unsigned n = 0; n < MAX_SPECS && (spec = strsep(&rest, "\n")); n++) {
        if (strstr(spec, "heatmaps")) writes_files = 1;
        if (!tvmaf_use_feature(ctx, spec)) ok++;
        else if (!tvmaf_last_error(ctx)[0]) abort(); /* every refusal says why */
    }
    if ((flags & 1) && ok && !writes_files) {
        const enum TvmafPixelFormat fmt = (flags >> 2) & 1 ? TVMAF_PIX_FMT_YUV444P
                                                             : TVMAF_PIX_FMT_YUV420P;
        const unsigned bpc = (flags >> 3) & 1 ? 10 : 8;
        int err = 0;
        for (unsigned i = 0; i < 2 && !err; i++) {
            TvmafPicture ref, dis;
            if (tvmaf_picture_alloc(&ref, fmt, bpc, SIDE, SIDE)) break;
            if (tvmaf_picture_alloc(&dis, fmt, bpc, SIDE, SIDE)) {
                tvmaf_picture_unref(&ref);
                break;
            }
            fill(&ref, i);
            fill(&dis, i + 3);
            err = tvmaf_read_pictures(ctx, &ref, &dis, i);
        }
        if (!err) tvmaf_flush(ctx);
    }
    tvmaf_close(ctx);
    free(text);
    return 0;
}
