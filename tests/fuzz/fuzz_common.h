/* Shared by the reader fuzz targets: touch() reads the first and last sample
 * of every row of every plane, so a picture laid out wrongly is caught by
 * ASan; the initializer ignores SIGPIPE (pipes without a reader). */
#ifndef TVMAF_FUZZ_COMMON_H
#define TVMAF_FUZZ_COMMON_H

#include <signal.h>
#include <stdint.h>

#include "tvmaf/tvmaf.h"

static unsigned touch(const TvmafPicture *pic)
{
    unsigned acc = 0;
    const size_t bytes = pic->bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        if (!pic->data[p] || !pic->w[p]) continue;
        for (unsigned y = 0; y < pic->h[p]; y++) {
            const uint8_t *row = (const uint8_t *)pic->data[p] + (size_t)y * pic->stride[p];
            acc += row[0] + row[pic->w[p] * bytes - 1];
        }
    }
    return acc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

#endif
