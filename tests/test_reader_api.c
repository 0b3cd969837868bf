/*
 * The public reader (tvmaf/reader.h) as a program outside the library sees
 * it: built with only include/ on its include path and linked against the
 * shared libtvmaf, so every call here must be exported.
 *
 * usage: test_reader_api [--stream FILE W H NUM DEN] [--clip FILE W H FRAMES]
 *   --stream: an encoded file and its size and frame rate (checked where the
 *             build has FFmpeg; refused with -ENOTSUP where it has not)
 *   --clip:   a raw 8-bit 4:2:0 clip of that size and length
 * The raw and Y4M inputs are written here, with known sample values.
 */
/* POSIX (mkstemp, write, unlink); the build defines _GNU_SOURCE, this keeps
 * the file compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvmaf/reader.h"
#include "check.h"

#define MAX_TMP 8
static char tmp_paths[MAX_TMP][64];
static int n_tmp;

static void remove_tmp(void)
{
    for (int i = 0; i < n_tmp; i++) unlink(tmp_paths[i]);
}

static const char *write_tmp(const void *data, size_t len)
{
    if (n_tmp == MAX_TMP) abort();
    char *path = tmp_paths[n_tmp++];
    snprintf(path, sizeof(tmp_paths[0]), "/tmp/tvmaf_reader_api_XXXXXX");
    const int fd = mkstemp(path);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
        perror("temporary file");
        exit(2);
    }
    close(fd);
    return path;
}

/* Sample (x, y) of plane p of frame f: distinct per frame, plane and
 * position, within `bpc` bits. */
static unsigned sample(unsigned f, unsigned p, unsigned x, unsigned y, unsigned bpc)
{
    return (f * 97u + p * 31u + y * 7u + x * 3u + 1u) & ((1u << bpc) - 1u);
}

/* Appends frame f of a planar layout (chroma w_c x h_c) to buf at *len. */
static void put_frame(unsigned char *buf, size_t *len, unsigned f, unsigned bpc, unsigned w,
                      unsigned h, unsigned wc, unsigned hc)
{
    for (unsigned p = 0; p < 3; p++) {
        const unsigned pw = p ? wc : w, ph = p ? hc : h;
        for (unsigned y = 0; y < ph; y++)
            for (unsigned x = 0; x < pw; x++) {
                const unsigned v = sample(f, p, x, y, bpc);
                buf[(*len)++] = (unsigned char)(v & 0xff);
                if (bpc > 8) buf[(*len)++] = (unsigned char)(v >> 8);
            }
    }
}

/* Whether pic holds frame f as put_frame wrote it. */
static int pic_matches(const TvmafPicture *pic, unsigned f, unsigned bpc)
{
    for (unsigned p = 0; p < 3; p++)
        for (unsigned y = 0; y < pic->h[p]; y++)
            for (unsigned x = 0; x < pic->w[p]; x++) {
                const unsigned char *row = (const unsigned char *)pic->data[p] +
                                           (size_t)y * (size_t)pic->stride[p];
                const unsigned v = bpc > 8 ? ((const uint16_t *)row)[x] : row[x];
                if (v != sample(f, p, x, y, bpc)) return 0;
            }
    return 1;
}

static int build_has_ffmpeg(void)
{
    return strstr(tvmaf_build_info(), " ffmpeg=yes") != NULL;
}

/* Opens path with cfg, expecting rc; on failure *r stays NULL and the
 * message is a sentence. Returns the reader (NULL on failure). */
static TvmafReader *open_expect(const char *what, const char *path, const TvmafReaderConfig *cfg,
                                int rc_want)
{
    char msg[512] = "untouched";
    TvmafReader *r = (TvmafReader *)&failures; /* must be reset */
    const int rc = tvmaf_reader_open(&r, path, cfg, msg, sizeof(msg));
    CHECK(rc == rc_want, "%s: open returned %d, expected %d: %s", what, rc, rc_want, msg);
    if (rc) {
        const size_t n = strlen(msg);
        CHECK(r == NULL, "%s: reader not NULL after a failure", what);
        CHECK(n > 1 && msg[n - 1] == '.', "%s: message is not a sentence: \"%s\"", what, msg);
        return NULL;
    }
    CHECK(msg[0] == '\0', "%s: message after success: %s", what, msg);
    return r;
}

/* A raw 10-bit 4:2:0 file written here: its geometry, values, skip, the
 * frame count, luma-only reads and the depth check. */
static void test_raw(void)
{
    enum { W = 7, H = 5, WC = 4, HC = 3, N = 3, BPC = 10 };
    static unsigned char buf[N * (W * H + 2 * WC * HC) * 2];
    size_t len = 0;
    for (unsigned f = 0; f < N; f++) put_frame(buf, &len, f, BPC, W, H, WC, HC);
    const char *path = write_tmp(buf, len);
    const TvmafReaderConfig cfg = { .raw = { TVMAF_PIX_FMT_YUV420P, BPC, W, H } };
    TvmafReader *r = open_expect("raw", path, &cfg, 0);
    if (!r) return;
    char msg[512];
    CHECK(!strcmp(tvmaf_reader_kind(r), "raw"), "kind %s", tvmaf_reader_kind(r));
    const TvmafVideoFormat *f = tvmaf_reader_format(r);
    CHECK(f->pix_fmt == TVMAF_PIX_FMT_YUV420P && f->bpc == BPC && f->w == W && f->h == H,
          "raw format %d %u %ux%u", f->pix_fmt, f->bpc, f->w, f->h);
    int num = -1, den = -1;
    tvmaf_reader_frame_rate(r, &num, &den);
    CHECK(num == 0 && den == 0, "raw frame rate %d/%d", num, den);
    CHECK(tvmaf_reader_frames_left(r) == N, "frames left %lld",
          (long long)tvmaf_reader_frames_left(r));
    CHECK(tvmaf_reader_set_scale(r, 14, 10, NULL, msg, sizeof(msg)) == -ENOTSUP &&
              strstr(msg, "raw YUV or Y4M"),
          "set_scale on raw: %s", msg);
    CHECK(tvmaf_reader_skip(r, 1, msg, sizeof(msg)) == 1, "skip: %s", msg);
    CHECK(tvmaf_reader_frames_left(r) == N - 1, "frames left after a skip");
    for (unsigned i = 1; i < N; i++) {
        TvmafPicture pic;
        const int rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc == 1 && pic_matches(&pic, i, BPC), "raw frame %u (rc %d: %s)", i, rc, msg);
        if (rc == 1) tvmaf_picture_unref(&pic);
    }
    TvmafPicture pic;
    CHECK(tvmaf_reader_read(r, &pic, msg, sizeof(msg)) == 0 && !pic.data[0], "raw end");
    CHECK(tvmaf_reader_skip(r, 1, msg, sizeof(msg)) == 0, "skip past the end");
    CHECK(tvmaf_reader_above_depth_frame(r) == UINT64_MAX, "no sample above 10 bits");
    tvmaf_reader_close(r);

    /* the same frames with bits 10 and 11 set in every sample (the high
     * byte of each): the depth check finds frame 0, on the luma read */
    for (size_t i = 1; i < len; i += 2) buf[i] |= 0x0c;
    r = open_expect("raw above depth", write_tmp(buf, len), &cfg, 0);
    if (r) {
        tvmaf_reader_set_luma_only(r, 1);
        CHECK(tvmaf_reader_read(r, &pic, msg, sizeof(msg)) == 1, "%s", msg);
        tvmaf_picture_unref(&pic);
        CHECK(tvmaf_reader_above_depth_frame(r) == 0, "above depth at %llu",
              (unsigned long long)tvmaf_reader_above_depth_frame(r));
        tvmaf_reader_close(r);
    }
}

/* A Y4M file written here: its header's geometry and frame rate. */
static void test_y4m(void)
{
    enum { W = 6, H = 4, N = 4, BPC = 10 };
    static unsigned char buf[64 + N * (6 + 3 * W * H * 2)];
    size_t len = 0;
    const char *hdr = "YUV4MPEG2 W6 H4 F30000:1001 It A1:1 C444p10 XYSCSS=444P10\n";
    memcpy(buf, hdr, strlen(hdr));
    len = strlen(hdr);
    for (unsigned f = 0; f < N; f++) {
        memcpy(buf + len, "FRAME\n", 6);
        len += 6;
        put_frame(buf, &len, f, BPC, W, H, W, H);
    }
    const char *path = write_tmp(buf, len);
    /* a Y4M header wins over a given geometry */
    const TvmafReaderConfig cfg = { .raw = { TVMAF_PIX_FMT_YUV420P, 8, 99, 99 } };
    TvmafReader *r = open_expect("y4m", path, &cfg, 0);
    if (!r) return;
    char msg[512];
    CHECK(!strcmp(tvmaf_reader_kind(r), "y4m"), "kind %s", tvmaf_reader_kind(r));
    const TvmafVideoFormat *f = tvmaf_reader_format(r);
    CHECK(f->pix_fmt == TVMAF_PIX_FMT_YUV444P && f->bpc == BPC && f->w == W && f->h == H,
          "y4m format %d %u %ux%u", f->pix_fmt, f->bpc, f->w, f->h);
    int num = 0, den = 0;
    tvmaf_reader_frame_rate(r, &num, &den);
    CHECK(num == 30000 && den == 1001, "y4m frame rate %d/%d", num, den);
    CHECK(tvmaf_reader_frames_left(r) == -1, "frames left of Y4M");
    CHECK(tvmaf_reader_set_scale(r, 12, 8, "bicubic", msg, sizeof(msg)) == -ENOTSUP,
          "set_scale on Y4M");
    unsigned n = 0;
    for (;;) {
        TvmafPicture pic;
        const int rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc >= 0, "y4m read: %s", msg);
        if (rc != 1) break;
        CHECK(pic_matches(&pic, n, BPC), "y4m frame %u differs", n);
        tvmaf_picture_unref(&pic);
        n++;
    }
    CHECK(n == N, "y4m frames: %u", n);
    tvmaf_reader_close(r);

    /* a rate not in lowest terms, and none */
    const char *h2 = "YUV4MPEG2 W2 H2 F50:2 Cmono\n";
    r = open_expect("y4m F50:2", write_tmp(h2, strlen(h2)), NULL, 0);
    if (r) {
        tvmaf_reader_frame_rate(r, &num, &den);
        CHECK(num == 25 && den == 1, "F50:2 read as %d/%d", num, den);
        tvmaf_reader_close(r);
    }
    const char *h3 = "YUV4MPEG2 W2 H2 Cmono\n";
    r = open_expect("y4m without F", write_tmp(h3, strlen(h3)), NULL, 0);
    if (r) {
        tvmaf_reader_frame_rate(r, &num, &den);
        CHECK(num == 0 && den == 0, "no F read as %d/%d", num, den);
        tvmaf_reader_close(r);
    }
}

static void test_errors(void)
{
    const unsigned char bytes[64] = { 1, 2, 3 };
    const char *path = write_tmp(bytes, sizeof(bytes));
    open_expect("nonexistent", "/nonexistent_dir/tvmaf_no_such.yuv", NULL, -ENOENT);
    open_expect("raw without a geometry", path, NULL, -EINVAL);
    const TvmafReaderConfig d9 = { .raw = { TVMAF_PIX_FMT_YUV420P, 9, 4, 4 } };
    open_expect("raw 9-bit", path, &d9, -EINVAL);
    const TvmafReaderConfig small = { .raw = { TVMAF_PIX_FMT_YUV420P, 8, 4, 4 },
                                      .max_frame_bytes = 23 };
    open_expect("raw frame over max_frame_bytes", path, &small, -ENOMEM);
    const TvmafReaderConfig fits = { .raw = { TVMAF_PIX_FMT_YUV420P, 8, 4, 4 },
                                     .max_frame_bytes = 24 };
    TvmafReader *r = open_expect("raw frame at max_frame_bytes", path, &fits, 0);
    tvmaf_reader_close(r);
    const char *y4m = "YUV4MPEG2 W64 H64 C420\n";
    const TvmafReaderConfig y4m_small = { .max_frame_bytes = 6143 };
    open_expect("y4m frame over max_frame_bytes", write_tmp(y4m, strlen(y4m)), &y4m_small,
                -ENOMEM);
    tvmaf_reader_close(NULL);
}

static void test_stream(const char *path, unsigned w, unsigned h, int num, int den)
{
    /* a raw geometry given for a container is refused, FFmpeg or not: its
     * bytes read as YUV would score garbage */
    const TvmafReaderConfig as_raw = { .raw = { TVMAF_PIX_FMT_YUV420P, 8, w, h } };
    open_expect("encoded file with a raw geometry", path, &as_raw, -EINVAL);
    if (!build_has_ffmpeg()) {
        CHECK(!strcmp(tvmaf_reader_scale_filters(), ""), "filters without FFmpeg");
        open_expect("encoded file without FFmpeg", path, NULL, -ENOTSUP);
        return;
    }
    CHECK(strstr(tvmaf_reader_scale_filters(), "bicubic") != NULL, "filters: %s",
          tvmaf_reader_scale_filters());
    TvmafReader *r = open_expect("encoded", path, NULL, 0);
    if (!r) return;
    char msg[512];
    CHECK(!strcmp(tvmaf_reader_kind(r), "ffmpeg"), "kind %s", tvmaf_reader_kind(r));
    const TvmafVideoFormat *f = tvmaf_reader_format(r);
    CHECK(f->w == w && f->h == h && f->pix_fmt == TVMAF_PIX_FMT_YUV420P && f->bpc == 8,
          "encoded format %d %u %ux%u", f->pix_fmt, f->bpc, f->w, f->h);
    int n = 0, d = 0;
    tvmaf_reader_frame_rate(r, &n, &d);
    CHECK(n == num && d == den, "encoded frame rate %d/%d", n, d);
    CHECK(tvmaf_reader_frames_left(r) == -1, "frames left of an encoded file");
    CHECK(tvmaf_reader_set_scale(r, w / 2, h / 2, "no_such_filter", msg, sizeof(msg)) == -EINVAL,
          "unknown filter");
    CHECK(tvmaf_reader_set_scale(r, w / 2, h / 2, NULL, msg, sizeof(msg)) == 0, "%s", msg);
    CHECK(f->w == w / 2 && f->h == h / 2, "scaled format %ux%u", f->w, f->h);
    TvmafPicture pic;
    CHECK(tvmaf_reader_read(r, &pic, msg, sizeof(msg)) == 1, "%s", msg);
    CHECK(pic.w[0] == w / 2 && pic.h[0] == h / 2, "scaled picture %ux%u", pic.w[0], pic.h[0]);
    tvmaf_picture_unref(&pic);
    CHECK(tvmaf_reader_skip(r, 2, msg, sizeof(msg)) == 1, "%s", msg);
    tvmaf_reader_close(r);
    const TvmafReaderConfig small = { .max_frame_bytes = (uint64_t)w * h };
    open_expect("encoded frame over max_frame_bytes", path, &small, -ENOMEM);

    /* the same file as standard input ("-"): read through the reader's own
     * stream, not reopened by name */
    const int fd = open(path, O_RDONLY), saved = dup(0);
    if (fd < 0 || saved < 0 || dup2(fd, 0) < 0) {
        perror("stdin");
        exit(2);
    }
    close(fd);
    clearerr(stdin);
    if ((r = open_expect("encoded stdin", "-", NULL, 0))) {
        CHECK(!strcmp(tvmaf_reader_kind(r), "ffmpeg"),
              "stdin kind %s", tvmaf_reader_kind(r));
        f = tvmaf_reader_format(r);
        CHECK(f->w == w && f->h == h, "stdin format %ux%u", f->w, f->h);
        CHECK(tvmaf_reader_read(r, &pic, msg, sizeof(msg)) == 1, "stdin: %s", msg);
        tvmaf_picture_unref(&pic);
        tvmaf_reader_close(r);
    }
    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
}

static void test_clip(const char *path, unsigned w, unsigned h, unsigned frames)
{
    const TvmafReaderConfig cfg = { .raw = { TVMAF_PIX_FMT_YUV420P, 8, w, h } };
    TvmafReader *r = open_expect("clip", path, &cfg, 0);
    if (!r) return;
    char msg[512];
    CHECK(tvmaf_reader_frames_left(r) == (int64_t)frames, "clip frames left %lld",
          (long long)tvmaf_reader_frames_left(r));
    tvmaf_reader_set_luma_only(r, 1);
    unsigned n = 0;
    TvmafPicture pic;
    int rc;
    while ((rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg))) == 1) {
        n++;
        tvmaf_picture_unref(&pic);
    }
    CHECK(rc == 0 && n == frames, "clip read %u frames, then %d: %s", n, rc, msg);
    tvmaf_reader_close(r);
}

int main(int argc, char **argv)
{
    atexit(remove_tmp);
    test_raw();
    test_y4m();
    test_errors();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stream") && i + 5 < argc) {
            test_stream(argv[i + 1], (unsigned)atoi(argv[i + 2]), (unsigned)atoi(argv[i + 3]),
                        atoi(argv[i + 4]), atoi(argv[i + 5]));
            i += 5;
        } else if (!strcmp(argv[i], "--clip") && i + 4 < argc) {
            test_clip(argv[i + 1], (unsigned)atoi(argv[i + 2]), (unsigned)atoi(argv[i + 3]),
                      (unsigned)atoi(argv[i + 4]));
            i += 4;
        } else {
            fprintf(stderr, "test_reader_api: bad argument %s\n", argv[i]);
            return 2;
        }
    }
    if (failures) {
        fprintf(stderr, "test_reader_api: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_reader_api: all %d checks passed\n", checks);
    return 0;
}
