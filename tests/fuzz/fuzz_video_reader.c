/*
 * libFuzzer target: the reader's raw YUV and Y4M modules (src/io/raw.c,
 * y4m.c, stream.c, planar.c, through reader.c).
 *
 * Input: one mode byte, then the stream. The mode byte chooses how the
 * stream is opened: as a regular file or through a pipe (non-seekable:
 * the path stdin takes), Y4M detection only or with a raw format (layout,
 * depth, and a small size from the next two bytes), luma only or not,
 * sequential reads, a skip first, or random access. Every frame is read
 * and its samples touched, so a picture the reader gets wrong is caught
 * by ASan.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/video_reader.h"
#include "fuzz_common.h"

/* at most this many frames are read per input: enough for the reader's
 * state across frames, few enough to keep executions fast */
#define MAX_FRAMES 6
/* what a pipe takes without a reader on its other end */
#define PIPE_BYTES 60000

static int fd_with(const uint8_t *data, size_t size, int pipe_mode)
{
    if (pipe_mode && size <= PIPE_BYTES) {
        int p[2];
        if (pipe(p)) return -1;
        size_t off = 0;
        while (off < size) {
            const ssize_t k = write(p[1], data + off, size - off);
            if (k <= 0) break;
            off += (size_t)k;
        }
        close(p[1]);
        return p[0];
    }
    char path[] = "/tmp/tvmaf_fuzz_reader_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return -1;
    unlink(path);
    size_t off = 0;
    while (off < size) {
        const ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    const unsigned mode = data[0];
    const int pipe_mode = mode & 1, use_raw = (mode >> 1) & 1, luma_only = (mode >> 2) & 1;
    const unsigned how = (mode >> 3) & 3; /* 0, 3: sequential; 1: skip first; 2: random access */
    static const enum TvmafPixelFormat fmts[4] = {
        TVMAF_PIX_FMT_YUV420P, TVMAF_PIX_FMT_YUV422P, TVMAF_PIX_FMT_YUV444P, TVMAF_PIX_FMT_YUV400P
    };
    static const unsigned depths[4] = { 8, 10, 12, 16 };
    const TvmafVideoFormat raw = { fmts[(mode >> 5) & 3], depths[data[1] >> 6],
                                   1u + (data[1] & 63), 1u + (data[2] & 63) };
    data += 3;
    size -= 3;

    const int fd = fd_with(data, size, pipe_mode);
    if (fd < 0) return 0;
    char path[64], msg[512];
    snprintf(path, sizeof(path), "/dev/fd/%d", fd);
    TvmafReader *r = NULL;
    TvmafReaderConfig cfg = { .max_frame_bytes = 0 };
    if (use_raw) cfg.raw = raw;
    if (tvmaf_reader_open(&r, path, &cfg, msg, sizeof(msg))) {
        if (!msg[0]) abort(); /* every failure says why */
        close(fd);
        return 0;
    }
    tvmaf_reader_set_luma_only(r, luma_only);
    volatile unsigned sink = 0;
    TvmafPicture pic;
    if (how == 2 && tvmaf_reader_begin_random_access(r)) {
        for (uint64_t k = MAX_FRAMES; k-- > 0;) { /* backwards: any order is allowed */
            const int rc = tvmaf_reader_read_at(r, k, &pic, msg, sizeof(msg));
            if (rc == 1) {
                sink += touch(&pic);
                tvmaf_picture_unref(&pic);
            } else if (rc < 0 && !msg[0]) {
                abort();
            }
        }
    } else {
        int rc = 1;
        if (how == 1) rc = tvmaf_reader_skip(r, 1, msg, sizeof(msg));
        for (unsigned n = 0; rc == 1 && n < MAX_FRAMES; n++) {
            rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
            if (rc == 1) {
                const TvmafVideoFormat *f = tvmaf_reader_format(r);
                if (pic.w[0] != f->w || pic.h[0] != f->h || pic.bpc != f->bpc) abort();
                sink += touch(&pic);
                tvmaf_picture_unref(&pic);
            } else if (rc < 0 && !msg[0]) {
                abort();
            }
        }
    }
    tvmaf_reader_close(r);
    close(fd);
    (void)sink;
    return 0;
}
