/* Shared by the reader fuzz targets: touch() reads the first and last sample
 * of every row of every plane, so a picture laid out wrongly is caught by
 * ASan; the initializer ignores SIGPIPE (pipes without a reader). */
#ifndef TVMAF_FUZZ_COMMON_H
#define TVMAF_FUZZ_COMMON_H

#include <signal.h>
#include <stdint.h>

#include "tvmaf/tvmaf.h"
#include "tvmaf_config.h"
#if TVMAF_HAVE_FFMPEG
#include "io/ffmpeg_lib.h"

/* FFmpeg's demuxers allocate what a header claims, up to av_max_alloc (2 GiB
 * by default): a 3.8 KB .mp4 whose atom claims 1.7 GB gets that much
 * reserved, never touched (the reader then fails cleanly where the
 * allocation does). The cap is FFmpeg's and settable only for the whole
 * process, which the library leaves to its host program; these harnesses,
 * the host here, set it below the malloc limits scripts/fuzz gives them
 * (256 MB for the FFmpeg target), so those limits keep catching tvmaf's own
 * allocations, and FFmpeg's refusals of larger claims are exercised. Every
 * target that opens an input without a raw geometry reaches FFmpeg. The
 * 185 MB picture FFmpeg may allocate before a decoder knows its pixel format
 * (fuzz_ffmpeg_reader.c) stays under it. The libraries are loaded here, at
 * start-up (the reader would load them at its first encoded input), for
 * av_max_alloc before FFmpeg's first allocation. */
#define FUZZ_FFMPEG_MAX_ALLOC ((size_t)240 << 20)
#endif

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
#if TVMAF_HAVE_FFMPEG
    if (!tvmaf_ff_load()) tvmaf_ff.av_max_alloc(FUZZ_FFMPEG_MAX_ALLOC);
#endif
    return 0;
}

#endif
