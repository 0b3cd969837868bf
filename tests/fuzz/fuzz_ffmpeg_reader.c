/*
 * libFuzzer target: encoded input through FFmpeg's libraries (the reader's
 * ffmpeg module, src/io/ffmpeg.c): container probing, the decoder's pixel
 * formats, the rearrangement into planar layouts, and scaling. Opened
 * without a raw geometry, every input that is not Y4M goes to that module.
 *
 * Input: one mode byte, then the file. Mode bit 0: scale every picture to a
 * small size from bits 1..6 with one of swscale's filters (bit 7 picks
 * bicubic or neighbor). Up to MAX_FRAMES pictures are read and every row's
 * first and last sample touched, so a picture the reader lays out wrongly is
 * caught by ASan. Every failure must say why. Frames are read under a limit
 * of MAX_FRAME_BYTES a frame.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tvmaf/reader.h"
#include "fuzz_common.h"


#define MAX_FRAMES 4
/* Frames are read under a limit (as the CLI's --max-memory sets one), and
 * scripts/fuzz runs this target with small -rss_limit_mb/-malloc_limit_mb: a
 * header claiming a huge picture must be refused, not decoded, so memory
 * growing far beyond this limit is a finding. Before a decoder knows its
 * pixel format FFmpeg can only be held to a pixel count (about 1.25 times
 * this many pixels, io/ffmpeg.c): 16 MiB keeps even a packed 16-bit
 * RGBA picture of that many (185 MB) under the 256 MB malloc limit. */
#define MAX_FRAME_BYTES ((uint64_t)16 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || !*tvmaf_reader_scale_filters()) return 0; /* no FFmpeg */
    const unsigned mode = data[0];
    data++;
    size--;
    char path[] = "/tmp/tvmaf_fuzz_ff_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        const ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    close(fd);
    char msg[512] = "";
    const TvmafReaderConfig cfg = { .max_frame_bytes = MAX_FRAME_BYTES };
    TvmafReader *r = NULL;
    if (tvmaf_reader_open(&r, path, &cfg, msg, sizeof(msg))) {
        unlink(path);
        if (!msg[0]) abort(); /* every failure says why */
        return 0;
    }
    int rc = 1;
    if (mode & 1) {
        const unsigned w = 2 + 2 * ((mode >> 1) & 7), h = 2 + 2 * ((mode >> 4) & 7);
        rc = tvmaf_reader_set_scale(r, w, h, (mode & 128) ? "neighbor" : "bicubic", msg,
                                    sizeof(msg))
                 ? -1 : 1;
        if (rc < 0 && !msg[0]) abort();
    }
    volatile unsigned sink = 0;
    for (unsigned n = 0; rc == 1 && n < MAX_FRAMES; n++) {
        TvmafPicture pic;
        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        const TvmafVideoFormat fmt = *tvmaf_reader_format(r);
        if (rc == 1) {
            if (pic.w[0] != fmt.w || pic.h[0] != fmt.h || pic.bpc != fmt.bpc) abort();
            sink += touch(&pic);
            tvmaf_picture_unref(&pic);
        } else if (rc < 0 && !msg[0]) {
            abort();
        }
    }
    tvmaf_reader_close(r);
    unlink(path);
    (void)sink;
    return 0;
}
