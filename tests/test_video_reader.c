/*
 * Tests of the raw YUV and Y4M modules of the reader (src/io/raw.c, y4m.c,
 * through reader.c).
 *
 * Every input is generated here with known sample values, written to a
 * temporary file under /tmp (or into a pipe), read back and compared sample
 * by sample. Exit status 0 when every check passes.
 */
/* POSIX (fileno, fstat, strdup, mkstemp, fork); the build defines _GNU_SOURCE,
 * this keeps the file compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/video_reader.h"
#include "check.h"

/* tvmaf_reader_open with a raw geometry (NULL: none). */
static int open_with(TvmafReader **r, const char *path, const TvmafVideoFormat *raw, char *msg,
                     size_t msg_len)
{
    TvmafReaderConfig cfg = { .max_frame_bytes = 0 };
    if (raw) cfg.raw = *raw;
    return tvmaf_reader_open(r, path, &cfg, msg, msg_len);
}

/* Growable byte buffer ---------------------------------------------------- */

typedef struct Buf {
    unsigned char *p;
    size_t len, cap;
} Buf;

static void buf_put(Buf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) { perror("realloc"); exit(2); }
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void buf_str(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_free(Buf *b) { free(b->p); memset(b, 0, sizeof(*b)); }

/* Known content ----------------------------------------------------------- */

/* Sample value of frame f, plane p at (x, y); uses the whole range of bpc,
 * including both bytes of 16-bit samples, so byte order mistakes show. */
static unsigned sample(unsigned f, unsigned p, unsigned x, unsigned y, unsigned bpc)
{
    uint32_t v = f * 40503u + p * 9973u + x * 2654435761u + y * 40499u;
    v ^= v >> 13;
    return v & ((1u << bpc) - 1);
}

static void plane_dims(enum TvmafPixelFormat fmt, unsigned w, unsigned h,
                       unsigned pw[3], unsigned ph[3], unsigned *np)
{
    unsigned cw = w, ch = h;
    if (fmt == TVMAF_PIX_FMT_YUV420P) { cw = (w + 1) / 2; ch = (h + 1) / 2; }
    if (fmt == TVMAF_PIX_FMT_YUV422P) { cw = (w + 1) / 2; }
    pw[0] = w; ph[0] = h;
    pw[1] = pw[2] = cw; ph[1] = ph[2] = ch;
    *np = fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
}

/* Appends frame f in file layout: planes in order, 16-bit little-endian. */
static void put_frame(Buf *b, enum TvmafPixelFormat fmt, unsigned bpc,
                      unsigned w, unsigned h, unsigned f)
{
    unsigned pw[3], ph[3], np;
    plane_dims(fmt, w, h, pw, ph, &np);
    for (unsigned p = 0; p < np; p++)
        for (unsigned y = 0; y < ph[p]; y++)
            for (unsigned x = 0; x < pw[p]; x++) {
                unsigned v = sample(f, p, x, y, bpc);
                unsigned char s[2] = { (unsigned char)(v & 0xff), (unsigned char)(v >> 8) };
                buf_put(b, s, bpc > 8 ? 2 : 1);
            }
}

/* Compares a picture with frame f; returns 0 if equal. Also checks that the
 * row padding the reader may have touched is zero. */
static int check_pic(const TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc,
                     unsigned w, unsigned h, unsigned f, const char *what)
{
    unsigned pw[3], ph[3], np;
    plane_dims(fmt, w, h, pw, ph, &np);
    if (pic->pix_fmt != fmt || pic->bpc != bpc) {
        fprintf(stderr, "  %s: picture format %d/%u, expected %d/%u\n", what,
                pic->pix_fmt, pic->bpc, fmt, bpc);
        return 1;
    }
    const size_t bytes = bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < np; p++) {
        if (pic->w[p] != pw[p] || pic->h[p] != ph[p] || !pic->data[p]) {
            fprintf(stderr, "  %s: plane %u is %ux%u, expected %ux%u\n", what, p,
                    pic->w[p], pic->h[p], pw[p], ph[p]);
            return 1;
        }
        for (unsigned y = 0; y < ph[p]; y++) {
            const unsigned char *row = (const unsigned char *)pic->data[p] + y * pic->stride[p];
            for (unsigned x = 0; x < pw[p]; x++) {
                unsigned got = bytes == 2 ? ((const uint16_t *)row)[x] : row[x];
                unsigned want = sample(f, p, x, y, bpc);
                if (got != want) {
                    fprintf(stderr, "  %s: frame %u plane %u (%u,%u) = %u, expected %u\n",
                            what, f, p, x, y, got, want);
                    return 1;
                }
            }
            for (size_t k = pw[p] * bytes; k < (size_t)pic->stride[p]; k++)
                if (row[k]) {
                    fprintf(stderr, "  %s: frame %u plane %u row %u padding byte %zu "
                            "is %u\n", what, f, p, y, k, row[k]);
                    return 1;
                }
        }
    }
    return 0;
}

/* Temporary files ---------------------------------------------------------- */

#define MAX_TMP 128
static char tmp_paths[MAX_TMP][32];
static int n_tmp;

static const char *write_tmp(const void *data, size_t len)
{
    if (n_tmp == MAX_TMP) { fprintf(stderr, "too many temporary files\n"); exit(2); }
    char *path = tmp_paths[n_tmp++];
    strcpy(path, "/tmp/tvmaf_vr_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); exit(2); }
    const unsigned char *d = data;
    while (len) {
        ssize_t k = write(fd, d, len);
        if (k <= 0) { perror("write"); exit(2); }
        d += k;
        len -= (size_t)k;
    }
    close(fd);
    return path;
}

static void remove_tmp(void)
{
    for (int i = 0; i < n_tmp; i++) unlink(tmp_paths[i]);
}

/* Reads every frame of path and compares with frames 0..n-1 of the given
 * format; expects a clean end after them. */
static void expect_frames(const char *what, const char *path, const TvmafVideoFormat *raw,
                          int y4m, enum TvmafPixelFormat fmt, unsigned bpc,
                          unsigned w, unsigned h, unsigned n)
{
    char msg[512];
    TvmafReader *r = NULL;
    int rc = open_with(&r, path, raw, msg, sizeof(msg));
    CHECK(rc == 0, "%s: open returned %d: %s", what, rc, msg);
    if (rc) return;
    CHECK(msg[0] == '\0', "%s: message after success: %s", what, msg);
    CHECK(!strcmp(tvmaf_reader_kind(r), y4m ? "y4m" : "raw"), "%s: kind %s", what,
          tvmaf_reader_kind(r));
    const TvmafVideoFormat *vf = tvmaf_reader_format(r);
    CHECK(vf->pix_fmt == fmt && vf->bpc == bpc && vf->w == w && vf->h == h,
          "%s: format %d %u-bit %ux%u, expected %d %u-bit %ux%u", what,
          vf->pix_fmt, vf->bpc, vf->w, vf->h, fmt, bpc, w, h);
    for (unsigned f = 0; f < n; f++) {
        TvmafPicture pic;
        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc == 1, "%s: frame %u: read returned %d: %s", what, f, rc, msg);
        if (rc != 1) break;
        CHECK(!check_pic(&pic, fmt, bpc, w, h, f, what), "%s: frame %u differs", what, f);
        tvmaf_picture_unref(&pic);
    }
    TvmafPicture pic;
    rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
    CHECK(rc == 0, "%s: read after the last frame returned %d: %s", what, rc, msg);
    CHECK(pic.data[0] == NULL, "%s: picture not empty at end of stream", what);
    rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
    CHECK(rc == 0, "%s: second read at end returned %d", what, rc);
    tvmaf_reader_close(r);
}

/* Builds a Y4M stream: header params, n frames with the given FRAME line. */
static void make_y4m(Buf *b, const char *params, const char *frame_line,
                     enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                     unsigned n)
{
    buf_str(b, "YUV4MPEG2 ");
    buf_str(b, params);
    buf_str(b, "\n");
    for (unsigned f = 0; f < n; f++) {
        buf_str(b, frame_line);
        put_frame(b, fmt, bpc, w, h, f);
    }
}

/* Expects open to fail with `err`, and the message to contain `needle`. */
static void expect_open_error(const char *what, const char *path, const TvmafVideoFormat *raw,
                              int err, const char *needle)
{
    char msg[512] = "untouched";
    TvmafReader *r = (TvmafReader *)&failures; /* must be reset */
    int rc = open_with(&r, path, raw, msg, sizeof(msg));
    CHECK(rc == err, "%s: open returned %d (%s), expected %d: %s", what, rc,
          rc < 0 ? strerror(-rc) : "ok", err, msg);
    CHECK(r == NULL, "%s: reader not NULL after failure", what);
    CHECK(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, needle);
    size_t len = strlen(msg);
    CHECK(len > 0 && msg[len - 1] == '.', "%s: message is not a sentence: \"%s\"", what, msg);
    if (rc == 0) tvmaf_reader_close(r);
}

static void expect_header_error(const char *what, const char *text, size_t len,
                                const char *needle)
{
    const char *path = write_tmp(text, len);
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "y4m: bad header in \"%s\": ", path);
    expect_open_error(what, path, NULL, -EINVAL, prefix);
    expect_open_error(what, path, NULL, -EINVAL, needle);
}

/* Opens path and reads frames until a read fails; expects `good` frames to
 * succeed and the next read to return `err` with a message containing needle. */
static void expect_read_error(const char *what, const char *path, const TvmafVideoFormat *raw,
                              unsigned good, int err, const char *needle)
{
    char msg[512];
    TvmafReader *r;
    int rc = open_with(&r, path, raw, msg, sizeof(msg));
    CHECK(rc == 0, "%s: open returned %d: %s", what, rc, msg);
    if (rc) return;
    TvmafPicture pic;
    for (unsigned f = 0; f < good; f++) {
        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc == 1, "%s: frame %u returned %d: %s", what, f, rc, msg);
        if (rc == 1) tvmaf_picture_unref(&pic);
    }
    rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
    CHECK(rc == err, "%s: read returned %d, expected %d: %s", what, rc, err, msg);
    CHECK(pic.data[0] == NULL && pic.priv == NULL, "%s: failed read left a picture", what);
    CHECK(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, needle);
    tvmaf_reader_close(r);
}

/* Raw ---------------------------------------------------------------------- */

static void test_raw_roundtrip(void)
{
    static const struct { enum TvmafPixelFormat fmt; unsigned bpc, w, h, n; } cases[] = {
        { TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 3 },
        { TVMAF_PIX_FMT_YUV420P, 10, 7, 5, 2 },
        { TVMAF_PIX_FMT_YUV420P, 12, 1, 1, 2 },
        { TVMAF_PIX_FMT_YUV422P, 8, 7, 5, 2 },
        { TVMAF_PIX_FMT_YUV422P, 10, 9, 4, 2 },
        { TVMAF_PIX_FMT_YUV444P, 8, 5, 3, 2 },
        { TVMAF_PIX_FMT_YUV444P, 16, 7, 5, 2 },
        { TVMAF_PIX_FMT_YUV400P, 8, 3, 7, 2 },
        { TVMAF_PIX_FMT_YUV420P, 8, 64, 32, 2 },  /* rows as wide as the stride */
        { TVMAF_PIX_FMT_YUV420P, 10, 96, 6, 2 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        Buf b = { 0 };
        for (unsigned f = 0; f < cases[i].n; f++)
            put_frame(&b, cases[i].fmt, cases[i].bpc, cases[i].w, cases[i].h, f);
        const char *path = write_tmp(b.p, b.len);
        TvmafVideoFormat raw = { cases[i].fmt, cases[i].bpc, cases[i].w, cases[i].h };
        char what[96];
        snprintf(what, sizeof(what), "raw fmt %d %u-bit %ux%u", cases[i].fmt,
                 cases[i].bpc, cases[i].w, cases[i].h);
        expect_frames(what, path, &raw, 0, cases[i].fmt, cases[i].bpc,
                      cases[i].w, cases[i].h, cases[i].n);
        buf_free(&b);
    }
}

static void test_raw_errors(void)
{
    TvmafVideoFormat raw = { TVMAF_PIX_FMT_YUV420P, 8, 7, 5 };

    /* 3 bytes: a truncated first frame, not an empty stream */
    const char *p3 = write_tmp("abc", 3);
    expect_read_error("raw 3 bytes", p3, &raw, 0, -EIO, "truncated");

    /* one full frame then half a frame */
    Buf b = { 0 };
    put_frame(&b, raw.pix_fmt, raw.bpc, raw.w, raw.h, 0);
    put_frame(&b, raw.pix_fmt, raw.bpc, raw.w, raw.h, 1);
    const char *ph = write_tmp(b.p, b.len - 20);
    expect_read_error("raw second frame truncated", ph, &raw, 1, -EIO, "frame 1 has");
    buf_free(&b);

    /* 10-bit frame cut between the two bytes of a sample */
    TvmafVideoFormat raw10 = { TVMAF_PIX_FMT_YUV444P, 10, 3, 3 };
    put_frame(&b, raw10.pix_fmt, raw10.bpc, raw10.w, raw10.h, 0);
    const char *podd = write_tmp(b.p, b.len - 1);
    expect_read_error("raw 10-bit odd byte count", podd, &raw10, 0, -EIO, "truncated");
    buf_free(&b);

    /* an empty file with a raw format is a stream of no frames */
    const char *pe = write_tmp("", 0);
    expect_frames("raw empty", pe, &raw, 0, raw.pix_fmt, raw.bpc, raw.w, raw.h, 0);
    /* without one its format is unknown */
    expect_open_error("empty without format", pe, NULL, -EINVAL, "empty");

    /* raw data without a format */
    expect_open_error("raw without format", p3, NULL, -EINVAL, "not a Y4M stream");

    TvmafVideoFormat bad = raw;
    bad.bpc = 9;
    expect_open_error("raw 9-bit", p3, &bad, -EINVAL, "unsupported bit depth 9");
    bad.bpc = 14;
    expect_open_error("raw 14-bit", p3, &bad, -EINVAL, "unsupported bit depth 14");
    bad = raw;
    bad.w = 0;
    expect_open_error("raw width 0", p3, &bad, -EINVAL, "width and height");
    bad = raw;
    bad.h = 100000;
    expect_open_error("raw huge height", p3, &bad, -EINVAL, "width and height");
    bad = raw;
    bad.pix_fmt = TVMAF_PIX_FMT_UNKNOWN;
    expect_open_error("raw no pix_fmt", p3, &bad, -EINVAL, "pixel format");
}

static void test_skip(void)
{
    char msg[512];
    TvmafPicture pic;
    TvmafReader *r;
    TvmafVideoFormat raw = { TVMAF_PIX_FMT_YUV420P, 10, 7, 5 };
    Buf b = { 0 };
    for (unsigned f = 0; f < 5; f++) put_frame(&b, raw.pix_fmt, raw.bpc, raw.w, raw.h, f);
    const char *path = write_tmp(b.p, b.len);

    int rc = open_with(&r, path, &raw, msg, sizeof(msg));
    CHECK(rc == 0, "skip raw open: %s", msg);
    if (!rc) {
        CHECK(tvmaf_reader_skip(r, 0, msg, sizeof(msg)) == 1, "skip 0");
        CHECK(tvmaf_reader_skip(r, 2, msg, sizeof(msg)) == 1, "skip 2: %s", msg);
        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc == 1 && !check_pic(&pic, raw.pix_fmt, raw.bpc, raw.w, raw.h, 2, "skip raw"),
              "frame after skipping 2 is not frame 2 (rc %d)", rc);
        if (rc == 1) tvmaf_picture_unref(&pic);
        rc = tvmaf_reader_skip(r, 5, msg, sizeof(msg));
        CHECK(rc == 0, "skipping past the end returned %d", rc);
        tvmaf_reader_close(r);
    }
    /* truncated during a skip */
    const char *cut = write_tmp(b.p, b.len - 7);
    rc = open_with(&r, cut, &raw, msg, sizeof(msg));
    CHECK(rc == 0, "skip truncated open: %s", msg);
    if (!rc) {
        rc = tvmaf_reader_skip(r, 5, msg, sizeof(msg));
        CHECK(rc == -EIO && strstr(msg, "frame 4 has"), "skip into truncation: %d %s", rc, msg);
        tvmaf_reader_close(r);
    }
    buf_free(&b);

    make_y4m(&b, "W5 H3 C422p12", "FRAME\n", TVMAF_PIX_FMT_YUV422P, 12, 5, 3, 4);
    path = write_tmp(b.p, b.len);
    rc = open_with(&r, path, NULL, msg, sizeof(msg));
    CHECK(rc == 0, "skip y4m open: %s", msg);
    if (!rc) {
        CHECK(tvmaf_reader_skip(r, 3, msg, sizeof(msg)) == 1, "y4m skip 3: %s", msg);
        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
        CHECK(rc == 1 && !check_pic(&pic, TVMAF_PIX_FMT_YUV422P, 12, 5, 3, 3, "skip y4m"),
              "y4m frame after skipping 3 is not frame 3 (rc %d)", rc);
        if (rc == 1) tvmaf_picture_unref(&pic);
        CHECK(tvmaf_reader_skip(r, 1, msg, sizeof(msg)) == 0, "y4m skip at end");
        tvmaf_reader_close(r);
    }
    buf_free(&b);
}

/* Y4M ---------------------------------------------------------------------- */

static void test_y4m_layouts(void)
{
    static const struct {
        const char *params, *frame;
        enum TvmafPixelFormat fmt;
        unsigned bpc, w, h;
    } cases[] = {
        { "W7 H5 F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },
        { "W7 H5 F25:1 C420paldv", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },
        { "C420mpeg2 H5 W7", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },
        { "W7 H5", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },               /* default C */
        { "W7 H5 C420", "FRAME Ip XFOO=1\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },
        { "W7 H5 F30000:1001 It A0:0 C420p10 XCOLORRANGE=LIMITED", "FRAME\n",
          TVMAF_PIX_FMT_YUV420P, 10, 7, 5 },
        { "W7  H5 I? C420p12", "FRAME \n", TVMAF_PIX_FMT_YUV420P, 12, 7, 5 }, /* extra spaces */
        { "W7 H5 C420p16", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 16, 7, 5 },
        { "W9 H3 C422", "FRAME\n", TVMAF_PIX_FMT_YUV422P, 8, 9, 3 },
        { "W9 H3 C422p10", "FRAME\n", TVMAF_PIX_FMT_YUV422P, 10, 9, 3 },
        { "W9 H3 C422p16", "FRAME\n", TVMAF_PIX_FMT_YUV422P, 16, 9, 3 },
        { "W5 H4 C444", "FRAME\n", TVMAF_PIX_FMT_YUV444P, 8, 5, 4 },
        { "W5 H4 C444p12 Ib", "FRAME\n", TVMAF_PIX_FMT_YUV444P, 12, 5, 4 },
        { "W5 H4 C444p16", "FRAME Ib Xa=b\n", TVMAF_PIX_FMT_YUV444P, 16, 5, 4 },
        { "W6 H3 Cmono", "FRAME\n", TVMAF_PIX_FMT_YUV400P, 8, 6, 3 },
        { "W6 H3 Cmono10", "FRAME\n", TVMAF_PIX_FMT_YUV400P, 10, 6, 3 },
        { "W6 H3 Cmono12", "FRAME\n", TVMAF_PIX_FMT_YUV400P, 12, 6, 3 },
        { "W6 H3 Cmono16", "FRAME\n", TVMAF_PIX_FMT_YUV400P, 16, 6, 3 },
        { "W1 H1 C420jpeg", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 1, 1 },
        { "W128 H2 C420p10", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 10, 128, 2 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        Buf b = { 0 };
        make_y4m(&b, cases[i].params, cases[i].frame, cases[i].fmt, cases[i].bpc,
                 cases[i].w, cases[i].h, 3);
        const char *path = write_tmp(b.p, b.len);
        char what[128];
        snprintf(what, sizeof(what), "y4m \"%s\"", cases[i].params);
        expect_frames(what, path, NULL, 1, cases[i].fmt, cases[i].bpc, cases[i].w,
                      cases[i].h, 3);
        /* a raw format given for a Y4M file is ignored */
        TvmafVideoFormat raw = { TVMAF_PIX_FMT_YUV444P, 16, 99, 99 };
        expect_frames(what, path, &raw, 1, cases[i].fmt, cases[i].bpc, cases[i].w,
                      cases[i].h, 3);
        buf_free(&b);
    }
    /* a header alone is a valid stream of no frames */
    const char *hdr = "YUV4MPEG2 W7 H5\n";
    expect_frames("y4m no frames", write_tmp(hdr, strlen(hdr)), NULL, 1,
                  TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 0);
}

static void test_y4m_bad_headers(void)
{
#define BAD(what, text, needle) expect_header_error(what, text, sizeof(text) - 1, needle)
    BAD("missing W", "YUV4MPEG2 H5 C420\nFRAME\n", "missing width");
    BAD("missing H", "YUV4MPEG2 W5 C420\nFRAME\n", "missing height");
    BAD("missing both", "YUV4MPEG2 C420\n", "missing width (W) and height");
    BAD("W0", "YUV4MPEG2 W0 H5\n", "between 1 and");
    BAD("H0", "YUV4MPEG2 W5 H0\n", "between 1 and");
    BAD("W empty", "YUV4MPEG2 W H5\n", "malformed width");
    BAD("W garbage", "YUV4MPEG2 W7x H5\n", "malformed width");
    BAD("W negative", "YUV4MPEG2 W-7 H5\n", "malformed width");
    BAD("huge W", "YUV4MPEG2 W99999 H5\n", "between 1 and 32768");
    BAD("enormous W", "YUV4MPEG2 W99999999999999999999999 H5\n", "between 1 and 32768");
    BAD("huge H", "YUV4MPEG2 W5 H32769\n", "between 1 and 32768");
    BAD("C420p9", "YUV4MPEG2 W7 H5 C420p9\n", "unsupported bit depth 9");
    BAD("C420p14", "YUV4MPEG2 W7 H5 C420p14\n", "unsupported bit depth 14");
    BAD("Cmono9", "YUV4MPEG2 W7 H5 Cmono9\n", "unsupported bit depth 9");
    BAD("C444p123456", "YUV4MPEG2 W7 H5 C444p123456\n", "unsupported bit depth");
    BAD("C444alpha", "YUV4MPEG2 W7 H5 C444alpha\n", "unsupported color space");
    BAD("C411", "YUV4MPEG2 W7 H5 C411\n", "unsupported color space");
    BAD("C420p", "YUV4MPEG2 W7 H5 C420p\n", "unsupported color space");
    BAD("C empty", "YUV4MPEG2 W7 H5 C\n", "unsupported color space");
    BAD("garbage after magic", "YUV4MPEG2 \x01\x02\xff garbage\n", "non-text byte");
    BAD("no newline", "YUV4MPEG2 W7 H5 C420", "ends before");
    BAD("magic only", "YUV4MPEG2 ", "ends before");
    BAD("no space after magic", "YUV4MPEG2\nFRAME\n", "followed by a space");
    BAD("CR line end", "YUV4MPEG2 W7 H5\r\n", "non-text byte 0x0d");
#undef BAD
    /* header line over 4096 bytes */
    Buf b = { 0 };
    buf_str(&b, "YUV4MPEG2 W7 H5 X");
    for (int i = 0; i < 5000; i++) buf_str(&b, "a");
    buf_str(&b, "\n");
    expect_header_error("long header", (const char *)b.p, b.len, "longer than 4096");
    buf_free(&b);
    /* a long but legal header */
    buf_str(&b, "YUV4MPEG2 W7 H5 X");
    for (int i = 0; i < 4000; i++) buf_str(&b, "a");
    buf_str(&b, "\n");
    expect_frames("y4m 4 KB header", write_tmp(b.p, b.len), NULL, 1,
                  TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 0);
    buf_free(&b);
}

static void test_y4m_bad_frames(void)
{
    static const char *const bad_markers[] = {
        "FRAMX\n", "frame\n", "FRAMEX\n", "FRAME\t\n", "\nFRAME\n",
    };
    for (size_t i = 0; i < sizeof(bad_markers) / sizeof(bad_markers[0]); i++) {
        Buf b = { 0 };
        make_y4m(&b, "W7 H5", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 1);
        buf_str(&b, bad_markers[i]);
        put_frame(&b, TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 1);
        char what[64];
        snprintf(what, sizeof(what), "bad FRAME marker %zu", i);
        expect_read_error(what, write_tmp(b.p, b.len), NULL, 1, -EIO, "bad FRAME header");
        buf_free(&b);
    }
    Buf b = { 0 };
    make_y4m(&b, "W7 H5 C420p10", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 10, 7, 5, 2);
    expect_read_error("y4m truncated data", write_tmp(b.p, b.len - 3), NULL, 1, -EIO,
                      "truncated");
    /* the stream ends right after the second FRAME line */
    const size_t frame = 2 * (7 * 5 + 2 * 4 * 3);
    expect_read_error("y4m FRAME without data", write_tmp(b.p, b.len - frame), NULL, 1,
                      -EIO, "has 0 of its");
    /* the stream ends inside the marker, or inside its parameters */
    expect_read_error("y4m cut marker", write_tmp(b.p, b.len - frame - 3), NULL, 1, -EIO,
                      "inside the FRAME header");
    buf_free(&b);
    make_y4m(&b, "W7 H5", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 1);
    buf_str(&b, "FRAME Ixyz");
    expect_read_error("y4m cut FRAME params", write_tmp(b.p, b.len), NULL, 1, -EIO,
                      "inside the FRAME header");
    buf_free(&b);
    /* FRAME parameters longer than the limit */
    make_y4m(&b, "W7 H5", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 1);
    buf_str(&b, "FRAME X");
    for (int i = 0; i < 5000; i++) buf_str(&b, "a");
    buf_str(&b, "\n");
    expect_read_error("y4m long FRAME line", write_tmp(b.p, b.len), NULL, 1, -EIO,
                      "longer than 4096");
    buf_free(&b);
}

/* Paths ---------------------------------------------------------------- */

static void test_paths(void)
{
    TvmafVideoFormat raw = { TVMAF_PIX_FMT_YUV420P, 8, 7, 5 };
    expect_open_error("directory", "/tmp", &raw, -EISDIR, "\"/tmp\"");
    expect_open_error("directory", "/tmp", NULL, -EISDIR, "directory");
    expect_open_error("missing file", "/tmp/tvmaf_vr_no_such_file.y4m", &raw, -ENOENT,
                      "\"/tmp/tvmaf_vr_no_such_file.y4m\"");
    expect_open_error("missing dir", "/nonexistent_dir/x.yuv", NULL, -ENOENT, "Cannot open");
    /* a failed call with no message buffer must not crash */
    TvmafReader *r;
    CHECK(open_with(&r, "/tmp", NULL, NULL, 0) == -EISDIR, "NULL msg");
}

/* Pipes ---------------------------------------------------------------- */

/* Starts a child writing data into a pipe; returns the read end. */
static int pipe_from_child(const Buf *b, pid_t *pid)
{
    int fds[2];
    if (pipe(fds)) { perror("pipe"); exit(2); }
    fflush(NULL); /* nothing buffered may be written twice */
    *pid = fork();
    if (*pid < 0) { perror("fork"); exit(2); }
    if (*pid == 0) {
        close(fds[0]);
        const unsigned char *d = b->p;
        size_t len = b->len;
        /* small, uneven writes so the reader sees short reads from the pipe */
        while (len) {
            size_t n = len < 4093 ? len : 4093;
            ssize_t k = write(fds[1], d, n);
            if (k <= 0) _exit(1);
            d += k;
            len -= (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    return fds[0];
}

static void reap(pid_t pid, const char *what)
{
    int status;
    /* a writer killed by SIGPIPE means the reader stopped early, which the
     * read checks have already reported */
    CHECK(waitpid(pid, &status, 0) == pid &&
          ((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
           (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)),
          "%s: writer child failed", what);
}

static void test_pipes(void)
{
    /* Y4M through /dev/fd/N, larger than a pipe's buffer */
    Buf b = { 0 };
    make_y4m(&b, "W65 H48 F24:1 C444p10", "FRAME\n", TVMAF_PIX_FMT_YUV444P, 10, 65, 48, 10);
    pid_t pid;
    int fd = pipe_from_child(&b, &pid);
    char path[32];
    snprintf(path, sizeof(path), "/dev/fd/%d", fd);
    expect_frames("y4m via /dev/fd", path, NULL, 1, TVMAF_PIX_FMT_YUV444P, 10, 65, 48, 10);
    close(fd);
    reap(pid, "y4m via /dev/fd");

    /* the same through stdin and "-", with a skip */
    fd = pipe_from_child(&b, &pid);
    int saved = dup(0);
    dup2(fd, 0);
    close(fd);
    clearerr(stdin);
    char msg[512];
    TvmafReader *r;
    int rc = open_with(&r, "-", NULL, msg, sizeof(msg));
    CHECK(rc == 0, "stdin open: %s", msg);
    if (!rc) {
        CHECK(tvmaf_reader_skip(r, 4, msg, sizeof(msg)) == 1, "stdin skip: %s", msg);
        for (unsigned f = 4; f < 10; f++) {
            TvmafPicture pic;
            rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
            CHECK(rc == 1 && !check_pic(&pic, TVMAF_PIX_FMT_YUV444P, 10, 65, 48, f, "stdin"),
                  "stdin frame %u (rc %d: %s)", f, rc, msg);
            if (rc == 1) tvmaf_picture_unref(&pic);
        }
        TvmafPicture pic;
        CHECK(tvmaf_reader_read(r, &pic, msg, sizeof(msg)) == 0, "stdin end");
        tvmaf_reader_close(r);
    }
    /* stdin stays open: the reader does not own it */
    CHECK(fcntl(0, F_GETFD) != -1, "stdin was closed");
    /* restore stdin first: that closes the pipe, so a writer blocked after a
     * failed read gets SIGPIPE instead of hanging the test */
    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
    reap(pid, "y4m via stdin");
    buf_free(&b);

    /* raw through a pipe: the bytes read ahead to look for a Y4M header are
     * frame data and must not be lost */
    TvmafVideoFormat raw = { TVMAF_PIX_FMT_YUV420P, 16, 33, 17 };
    for (unsigned f = 0; f < 20; f++) put_frame(&b, raw.pix_fmt, raw.bpc, raw.w, raw.h, f);
    fd = pipe_from_child(&b, &pid);
    snprintf(path, sizeof(path), "/dev/fd/%d", fd);
    expect_frames("raw via pipe", path, &raw, 0, raw.pix_fmt, raw.bpc, raw.w, raw.h, 20);
    close(fd);
    reap(pid, "raw via pipe");
    buf_free(&b);

    /* truncated stream through a pipe */
    make_y4m(&b, "W7 H5", "FRAME\n", TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 2);
    b.len -= 5;
    fd = pipe_from_child(&b, &pid);
    snprintf(path, sizeof(path), "/dev/fd/%d", fd);
    expect_read_error("truncated via pipe", path, NULL, 1, -EIO, "truncated");
    close(fd);
    reap(pid, "truncated via pipe");
    buf_free(&b);
}

/* Luma only matches frame f's luma (the chroma planes are not looked at). */
static int check_luma(const TvmafPicture *pic, unsigned bpc, unsigned f)
{
    for (unsigned y = 0; y < pic->h[0]; y++) {
        const unsigned char *row = (const unsigned char *)pic->data[0] + y * pic->stride[0];
        for (unsigned x = 0; x < pic->w[0]; x++) {
            unsigned got = bpc > 8 ? ((const uint16_t *)row)[x] : row[x];
            if (got != sample(f, 0, x, y, bpc)) return 1;
        }
    }
    return 0;
}

/* tvmaf_reader_begin_random_access / read_at, and luma-only reading: the
 * frames a sequential reader would return, in any order, at any offset
 * after skipped frames; past the end 0; a partial last frame the same
 * truncation error; luma-only reading lands on the next frame's luma. */
static void test_random_access(void)
{
    static const struct { enum TvmafPixelFormat fmt; unsigned bpc, w, h; } cases[] = {
        { TVMAF_PIX_FMT_YUV420P, 8, 7, 5 },
        { TVMAF_PIX_FMT_YUV420P, 10, 96, 6 },
        { TVMAF_PIX_FMT_YUV422P, 12, 9, 4 },
        { TVMAF_PIX_FMT_YUV444P, 16, 5, 3 },
        { TVMAF_PIX_FMT_YUV400P, 8, 3, 7 },
    };
    enum { N = 5 };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const enum TvmafPixelFormat fmt = cases[i].fmt;
        const unsigned bpc = cases[i].bpc, w = cases[i].w, h = cases[i].h;
        for (int partial = 0; partial < 2; partial++) {
            for (int luma_only = 0; luma_only < 2; luma_only++) {
                Buf b = { 0 };
                for (unsigned f = 0; f < N; f++) put_frame(&b, fmt, bpc, w, h, f);
                if (partial) buf_put(&b, b.p, 3); /* 3 bytes of a sixth frame */
                const char *path = write_tmp(b.p, b.len);
                TvmafVideoFormat raw = { fmt, bpc, w, h };
                TvmafReader *r = NULL;
                char msg[512];
                CHECK(!open_with(&r, path, &raw, msg, sizeof(msg)), "%s", msg);
                if (!r) { buf_free(&b); continue; }
                tvmaf_reader_set_luma_only(r, luma_only);
                CHECK(tvmaf_reader_skip(r, 1, msg, sizeof(msg)) == 1, "%s", msg);
                CHECK(tvmaf_reader_begin_random_access(r) == 1, "case %zu", i);
                for (int k = N - 2; k >= 0; k--) { /* backwards: any order works */
                    TvmafPicture pic;
                    int rc = tvmaf_reader_read_at(r, (uint64_t)k, &pic, msg, sizeof(msg));
                    CHECK(rc == 1, "case %zu frame %d: %d %s", i, k, rc, msg);
                    if (rc != 1) continue;
                    CHECK(!(luma_only ? check_luma(&pic, bpc, (unsigned)k + 1)
                                      : check_pic(&pic, fmt, bpc, w, h, (unsigned)k + 1, "read_at")),
                          "case %zu frame %d luma_only %d", i, k, luma_only);
                    tvmaf_picture_unref(&pic);
                }
                TvmafPicture pic;
                int rc = tvmaf_reader_read_at(r, N - 1, &pic, msg, sizeof(msg));
                if (partial)
                    CHECK(rc == -EIO && strstr(msg, "truncated") && strstr(msg, "frame 5 has 3 of"),
                          "case %zu: %d %s", i, rc, msg);
                else
                    CHECK(rc == 0, "case %zu past the end: %d %s", i, rc, msg);
                CHECK(tvmaf_reader_read_at(r, N + 3, &pic, msg, sizeof(msg)) == 0, "case %zu", i);
                tvmaf_reader_close(r);

                /* sequential luma-only reading: every frame's luma, then the end */
                r = NULL;
                CHECK(!open_with(&r, path, &raw, msg, sizeof(msg)), "%s", msg);
                if (r) {
                    tvmaf_reader_set_luma_only(r, luma_only);
                    for (unsigned f = 0; f < N; f++) {
                        rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
                        CHECK(rc == 1 && !check_luma(&pic, bpc, f), "case %zu seq frame %u: %d %s",
                              i, f, rc, msg);
                        if (rc == 1) tvmaf_picture_unref(&pic);
                    }
                    rc = tvmaf_reader_read(r, &pic, msg, sizeof(msg));
                    CHECK(partial ? rc == -EIO : rc == 0, "case %zu seq end: %d %s", i, rc, msg);
                    tvmaf_reader_close(r);
                }
                buf_free(&b);
            }
        }
    }
}

/* A raw file of n frames (after one frame that is skipped) opened with the
 * mapping on, random access begun; NULL on failure (counted). */
static TvmafReader *open_mapped(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                                unsigned n, const char **path)
{
    Buf b = { 0 };
    for (unsigned f = 0; f <= n; f++) put_frame(&b, fmt, bpc, w, h, f);
    *path = write_tmp(b.p, b.len);
    buf_free(&b);
    TvmafVideoFormat raw = { fmt, bpc, w, h };
    TvmafReader *r = NULL;
    char msg[512];
    CHECK(!open_with(&r, *path, &raw, msg, sizeof(msg)), "%s", msg);
    if (!r) return NULL;
    tvmaf_reader_set_mapping(r, 1);
    CHECK(tvmaf_reader_skip(r, 1, msg, sizeof(msg)) == 1, "%s", msg);
    CHECK(tvmaf_reader_begin_random_access(r) == 1, "random access");
    return r;
}

/* tvmaf_reader_set_mapping: frames whose planes lie as a picture lays them
 * out (rows of a multiple of 64 bytes) are handed out in the mapping, the
 * others read as before, the same samples either way; a picture outlives
 * its reader and the mapping goes with the last of them; a file that
 * shrinks is reported by read_at, or, once a frame is handed out, by the
 * SIGBUS handler, which ends the process with status 1. */
static void test_mapped_frames(void)
{
    static const struct { enum TvmafPixelFormat fmt; unsigned bpc, w, h; int mapped; } cases[] = {
        { TVMAF_PIX_FMT_YUV420P, 8, 128, 4, 1 },
        { TVMAF_PIX_FMT_YUV422P, 10, 64, 2, 1 },
        { TVMAF_PIX_FMT_YUV444P, 16, 32, 3, 1 },
        { TVMAF_PIX_FMT_YUV400P, 8, 64, 5, 1 },
        { TVMAF_PIX_FMT_YUV420P, 8, 96, 4, 0 }, /* chroma rows of 48 bytes */
        { TVMAF_PIX_FMT_YUV420P, 8, 7, 5, 0 },
    };
    enum { N = 4 };
    char msg[512];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const enum TvmafPixelFormat fmt = cases[i].fmt;
        const unsigned bpc = cases[i].bpc, w = cases[i].w, h = cases[i].h;
        const char *path;
        TvmafReader *r = open_mapped(fmt, bpc, w, h, N, &path);
        if (!r) continue;
        TvmafPicture kept = { 0 };
        for (unsigned k = 0; k < N; k++) {
            TvmafPicture pic;
            const int rc = tvmaf_reader_read_at(r, k, &pic, msg, sizeof(msg));
            CHECK(rc == 1, "case %zu frame %u: %d %s", i, k, rc, msg);
            if (rc != 1) continue;
            CHECK(!check_pic(&pic, fmt, bpc, w, h, k + 1, "mapped"), "case %zu frame %u", i, k);
            CHECK(tvmaf_reader_mapped(pic.data[0]) == cases[i].mapped, "case %zu frame %u: %s",
                  i, k, cases[i].mapped ? "read, not mapped" : "mapped");
            if (!k) kept = pic;
            else tvmaf_picture_unref(&pic);
        }
        tvmaf_reader_close(r);
        if (kept.data[0]) {
            const void *plane = kept.data[0];
            CHECK(!check_pic(&kept, fmt, bpc, w, h, 1, "after close"), "case %zu", i);
            tvmaf_picture_unref(&kept);
            CHECK(!tvmaf_reader_mapped(plane), "case %zu: still mapped after the last picture", i);
        }
    }

    /* the file shrinks under the mapping: a frame not handed out yet (frames
     * of three pages, so that whole pages go) */
    const enum TvmafPixelFormat fmt = TVMAF_PIX_FMT_YUV420P;
    const unsigned fw = 1024, fh = 8;
    const size_t frame = fw * fh * 3 / 2;
    const char *path;
    TvmafReader *r = open_mapped(fmt, 8, fw, fh, N, &path);
    if (r) {
        TvmafPicture pic;
        CHECK(tvmaf_reader_read_at(r, 0, &pic, msg, sizeof(msg)) == 1, "%s", msg);
        tvmaf_picture_unref(&pic);
        CHECK(!truncate(path, (off_t)(2 * frame)), "truncate: %s", strerror(errno));
        const int rc = tvmaf_reader_read_at(r, 2, &pic, msg, sizeof(msg));
        CHECK(rc == -EIO && strstr(msg, "shorter than when it was opened"),
              "read after the truncation: %d %s", rc, msg);
        tvmaf_reader_close(r);
    }

    /* a frame handed out, then the file shrinks: in a child, whose stderr
     * goes to a file; then a SIGBUS that no mapping explains */
    for (int foreign = 0; foreign < 2; foreign++) {
        char err_path[] = "/tmp/tvmaf_vr_err_XXXXXX";
        const int err_fd = mkstemp(err_path);
        CHECK(err_fd >= 0, "mkstemp");
        if (err_fd < 0) return;
        fflush(NULL);
        const pid_t child = fork();
        if (child == 0) {
            dup2(err_fd, 2);
            if (tvmaf_reader_catch_truncation(NULL)) _exit(3);
            if (foreign) raise(SIGBUS);
            TvmafReader *cr = open_mapped(fmt, 8, fw, fh, N, &path);
            TvmafPicture cp;
            if (!cr || tvmaf_reader_read_at(cr, 1, &cp, msg, sizeof(msg)) != 1) _exit(3);
            if (truncate(path, 0)) _exit(3);
            volatile const unsigned char *px = cp.data[0];
            const unsigned v = px[0]; /* the fault */
            _exit(4 + (int)(v & 1));
        }
        int st = 0;
        CHECK(child > 0 && waitpid(child, &st, 0) == child, "fork/wait");
        char err[1024] = { 0 };
        const ssize_t got = pread(err_fd, err, sizeof(err) - 1, 0);
        (void)got;
        close(err_fd);
        unlink(err_path);
        if (foreign)
            CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
                  "a foreign SIGBUS keeps its default action (status %#x)", st);
        else
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(err, "was truncated while"),
                  "the truncation's SIGBUS: status %#x, stderr \"%s\"", st, err);
    }
}

int main(void)
{
    atexit(remove_tmp);
    test_random_access();
    test_mapped_frames();
    test_raw_roundtrip();
    test_raw_errors();
    test_skip();
    test_y4m_layouts();
    test_y4m_bad_headers();
    test_y4m_bad_frames();
    test_paths();
    test_pipes();
    if (failures) {
        fprintf(stderr, "test_video_reader: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_video_reader: all %d checks passed\n", checks);
    return 0;
}
