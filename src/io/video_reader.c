/*
 * Raw planar YUV and YUV4MPEG2 (Y4M) reader.
 *
 * Invariants:
 *  - The stream is only ever read forwards (fread/getc), so stdin and pipes
 *    behave like files. Bytes read ahead to recognise the format, or to find
 *    out whether another frame follows, are kept in `pend` and handed out
 *    before any further byte of the FILE.
 *  - Frame data is laid out in the file plane after plane, each plane's rows
 *    back to back. A plane is read with one fread into the top of its picture
 *    buffer and, when the picture's stride is wider than a row, spread out to
 *    the stride in place (rows moved last to first, so no row overwrites one
 *    that has not moved yet).
 *  - Samples deeper than 8 bits are 16-bit little-endian in the file and are
 *    converted to native order in place; on a little-endian host that is a
 *    no-op.
 */
/* POSIX (fileno, fstat, strdup, mkstemp, fork); the build defines _GNU_SOURCE,
 * this keeps the file compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/ffmpeg_reader.h"
#include "io/video_reader.h"

/* Largest width or height accepted: 8K is 7680, 16K is 15360; anything above
 * this is a corrupt header, and the cap keeps every size computation below
 * far from overflow (32768^2 * 3 planes * 2 bytes < 2^33). */
#define READER_MAX_DIM 32768u
/* Longest Y4M stream or FRAME header line, terminator excluded. */
#define Y4M_MAX_LINE 4096u
/* Frames whose samples are compared with the declared bit depth: frame 0,
 * then every DEPTH_CHECK_EVERY-th (an OR over the planes read; checking a
 * fraction of the frames keeps its cost out of the reading threads). */
#define DEPTH_CHECK_EVERY 16u
/* Chunk used to read and discard skipped frames. */
#define DISCARD_CHUNK ((size_t)1 << 20)

static const char y4m_magic[] = "YUV4MPEG2 "; /* 10 bytes, space included */
#define Y4M_MAGIC_LEN 10u

struct TvmafVideoReader {
    FILE *f;
    int owns_file;            /* 0 for stdin: never fclose it */
    char *name;               /* for messages: "\"path\"" or "standard input" */
    int y4m;
    TvmafVideoFormat fmt;
    unsigned nplanes;         /* 1 for YUV400P, else 3 */
    unsigned pw[3], ph[3];    /* plane sizes in samples */
    size_t sample_bytes;      /* 1 or 2 */
    uint64_t frame_bytes;     /* sample bytes of one frame, headers excluded */
    uint64_t frame_no;        /* frames consumed so far (read or skipped) */
    unsigned char pend[16];   /* read-ahead bytes, handed out first */
    size_t pend_pos, pend_len;
    unsigned char *scratch;   /* DISCARD_CHUNK bytes, allocated on first skip */
    unsigned char *stage;     /* the first frame of a pipe, gathered before its picture */
    size_t stage_pos, stage_len;
    int luma_only;            /* chroma planes are skipped, not read */
    int seekable;             /* a regular file: skipping may seek */
    /* random access (tvmaf_reader_begin_random_access) */
    uint64_t base;            /* file offset of the next unread frame */
    uint64_t file_size;
    /* first frame found with samples above the declared depth (UINT64_MAX:
     * none yet); set by whichever reading thread finds it */
    uint64_t above_depth_frame;
    TvmafFfReader *ff;        /* encoded input (FFmpeg): every read goes there */
};

__attribute__((format(printf, 3, 4)))
static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (!msg || !msg_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

static void clear_msg(char *msg, size_t msg_len)
{
    if (msg && msg_len) msg[0] = '\0';
}

/* Byte source ------------------------------------------------------------ */

/* Reads up to n bytes: pending read-ahead first, then the FILE. A short count
 * means end of stream or an error (ferror tells which). */
static size_t rd(TvmafVideoReader *r, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t got = 0;
    if (r->pend_pos < r->pend_len) {
        size_t k = r->pend_len - r->pend_pos;
        if (k > n) k = n;
        memcpy(d, r->pend + r->pend_pos, k);
        r->pend_pos += k;
        got = k;
    }
    if (got < n && r->stage) {
        size_t k = r->stage_len - r->stage_pos;
        if (k > n - got) k = n - got;
        memcpy(d + got, r->stage + r->stage_pos, k);
        r->stage_pos += k;
        got += k;
        if (r->stage_pos == r->stage_len) {
            free(r->stage);
            r->stage = NULL;
        }
    }
    if (got < n) got += fread(d + got, 1, n - got, r->f);
    return got;
}

static int rd_byte(TvmafVideoReader *r)
{
    if (r->pend_pos < r->pend_len) return r->pend[r->pend_pos++];
    return getc(r->f);
}

/* The message for a short read: an I/O error if the FILE reports one. Returns
 * 1 (and sets msg) when it was an error, 0 when it was a plain end of file. */
static int io_error(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    if (!ferror(r->f)) return 0;
    int e = errno ? errno : EIO;
    set_msg(msg, msg_len, "Cannot read %s: %s.", r->name, strerror(e));
    return 1;
}

/* 1 when at least one more byte follows (it is kept in pend), 0 at end of
 * stream, -EIO on a read error. */
static int more_data(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    if (r->pend_pos < r->pend_len) return 1;
    int c = getc(r->f);
    if (c == EOF) return io_error(r, msg, msg_len) ? -EIO : 0;
    r->pend[0] = (unsigned char)c;
    r->pend_pos = 0;
    r->pend_len = 1;
    return 1;
}

/* Format --------------------------------------------------------------- */

static int depth_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

/* Fills the plane geometry from r->fmt, which must already be valid. */
static int set_geometry(TvmafVideoReader *r)
{
    if (tvmaf_plane_dims(r->fmt.pix_fmt, r->fmt.w, r->fmt.h, r->pw, r->ph))
        return -EINVAL;
    r->nplanes = r->fmt.pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
    r->sample_bytes = r->fmt.bpc > 8 ? 2 : 1;
    r->frame_bytes = 0;
    for (unsigned p = 0; p < r->nplanes; p++)
        r->frame_bytes += (uint64_t)r->pw[p] * r->ph[p] * r->sample_bytes;
    /* only matters where size_t is 32 bits: a frame must fit in memory */
    if (r->frame_bytes > SIZE_MAX) return -ENOMEM;
    return 0;
}

static const char *pix_fmt_name(enum TvmafPixelFormat f)
{
    switch (f) {
    case TVMAF_PIX_FMT_YUV420P: return "4:2:0";
    case TVMAF_PIX_FMT_YUV422P: return "4:2:2";
    case TVMAF_PIX_FMT_YUV444P: return "4:4:4";
    case TVMAF_PIX_FMT_YUV400P: return "4:0:0 (luma only)";
    default: return "unknown";
    }
}

static int check_raw_format(const TvmafVideoReader *r, const TvmafVideoFormat *raw,
                            char *msg, size_t msg_len)
{
    if (!raw) {
        set_msg(msg, msg_len, "%s is not a Y4M stream (no \"YUV4MPEG2 \" header), "
                "and raw YUV input needs a pixel format, bit depth, width and height.",
                r->name);
        return -EINVAL;
    }
    if (raw->pix_fmt != TVMAF_PIX_FMT_YUV420P && raw->pix_fmt != TVMAF_PIX_FMT_YUV422P &&
        raw->pix_fmt != TVMAF_PIX_FMT_YUV444P && raw->pix_fmt != TVMAF_PIX_FMT_YUV400P) {
        set_msg(msg, msg_len, "Raw input %s: no valid pixel format given "
                "(use 420, 422, 444 or 400).", r->name);
        return -EINVAL;
    }
    if (!depth_supported(raw->bpc)) {
        set_msg(msg, msg_len, "Raw input %s: unsupported bit depth %u "
                "(supported: 8, 10, 12, 16).", r->name, raw->bpc);
        return -EINVAL;
    }
    if (!raw->w || !raw->h || raw->w > READER_MAX_DIM || raw->h > READER_MAX_DIM) {
        set_msg(msg, msg_len, "Raw input %s: width and height must be between 1 and %u "
                "(got %ux%u).", r->name, READER_MAX_DIM, raw->w, raw->h);
        return -EINVAL;
    }
    return 0;
}

/* Y4M stream header ----------------------------------------------------- */

/* Parses a W or H value: decimal digits only. Returns 0 and *out, or -1 for
 * a malformed value, -2 for one outside 1..READER_MAX_DIM. */
static int parse_dim(const char *s, unsigned *out)
{
    if (!*s) return -1;
    unsigned v = 0;
    int too_big = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        if (!too_big) {
            v = v * 10 + (unsigned)(*s - '0');
            if (v > READER_MAX_DIM) too_big = 1; /* stop before it can wrap */
        }
    }
    if (too_big || v == 0) return -2;
    *out = v;
    return 0;
}

/*
 * Parses the value of a C parameter. Layouts: 420jpeg, 420paldv, 420mpeg2, 420,
 * 422, 444, mono (all 8-bit), then 420pN, 422pN, 444pN and monoN for a depth N.
 * The 4:2:0 siting variants differ only in where chroma sits, which does not
 * change the samples stored, so all read the same way.
 * Returns 0, or -1 for an unknown layout, -2 for an unsupported depth (*bpc
 * then holds it, or 0 if it was too long to be a depth at all).
 */
static int parse_colorspace(const char *s, enum TvmafPixelFormat *fmt, unsigned *bpc)
{
    const char *rest;
    if (!strncmp(s, "mono", 4)) {
        *fmt = TVMAF_PIX_FMT_YUV400P;
        rest = s + 4;               /* depth written right after: mono10 */
    } else if (!strncmp(s, "420", 3) || !strncmp(s, "422", 3) || !strncmp(s, "444", 3)) {
        *fmt = s[2] == '0' ? TVMAF_PIX_FMT_YUV420P
             : s[2] == '2' ? TVMAF_PIX_FMT_YUV422P : TVMAF_PIX_FMT_YUV444P;
        rest = s + 3;
        if (*fmt == TVMAF_PIX_FMT_YUV420P &&
            (!strcmp(rest, "jpeg") || !strcmp(rest, "paldv") || !strcmp(rest, "mpeg2"))) {
            *bpc = 8;
            return 0;
        }
        if (*rest) {
            if (*rest != 'p') return -1; /* e.g. 444alpha */
            rest++;
            if (!*rest) return -1;
        }
    } else {
        return -1;                  /* e.g. 411 */
    }
    if (!*rest) {
        *bpc = 8;
        return 0;
    }
    unsigned d = 0;
    size_t ndig = 0;
    for (const char *q = rest; *q; q++, ndig++) {
        if (*q < '0' || *q > '9') return -1;
        if (ndig < 3) d = d * 10 + (unsigned)(*q - '0');
    }
    *bpc = ndig < 3 ? d : 0;
    return depth_supported(*bpc) ? 0 : -2;
}

/* Reads and parses the stream header after its "YUV4MPEG2 " magic. */
static int y4m_read_header(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    char line[Y4M_MAX_LINE + 1];
    size_t n = 0;
    for (;;) {
        int c = rd_byte(r);
        if (c == EOF) {
            if (io_error(r, msg, msg_len)) return -EIO;
            set_msg(msg, msg_len, "y4m: bad header in %s: the input ends before "
                    "the header's end of line.", r->name);
            return -EINVAL;
        }
        if (c == '\n') break;
        if (n + Y4M_MAGIC_LEN >= Y4M_MAX_LINE) {
            set_msg(msg, msg_len, "y4m: bad header in %s: the header line is "
                    "longer than %u bytes.", r->name, Y4M_MAX_LINE);
            return -EINVAL;
        }
        /* the header is ASCII text; anything else means this is not Y4M */
        if (c < 0x20 || c > 0x7e) {
            set_msg(msg, msg_len, "y4m: bad header in %s: it contains the "
                    "non-text byte 0x%02x.", r->name, c);
            return -EINVAL;
        }
        line[n++] = (char)c;
    }
    line[n] = '\0';

    unsigned w = 0, h = 0, bpc = 8;
    enum TvmafPixelFormat fmt = TVMAF_PIX_FMT_YUV420P; /* C absent: 420 */
    /* Parameters are single-letter tags followed by their value, separated by
     * spaces. F (frame rate), A (aspect), X (extensions) and unknown tags are
     * irrelevant to scoring and ignored. I (interlacing) is ignored too: t, b
     * and m streams are read as progressive frames, which is what a per-frame
     * metric compares anyway. */
    for (char *tok = line; *tok;) {
        if (*tok == ' ') { tok++; continue; } /* tolerate repeated spaces */
        char *end = strchr(tok, ' ');
        if (end) *end = '\0';
        int rc;
        switch (tok[0]) {
        case 'W':
        case 'H':
            rc = parse_dim(tok + 1, tok[0] == 'W' ? &w : &h);
            if (rc) {
                const char *what = tok[0] == 'W' ? "width" : "height";
                if (rc == -2)
                    set_msg(msg, msg_len, "y4m: bad header in %s: the %s must be "
                            "between 1 and %u (got \"%.40s\").",
                            r->name, what, READER_MAX_DIM, tok);
                else
                    set_msg(msg, msg_len, "y4m: bad header in %s: malformed %s "
                            "\"%.40s\".", r->name, what, tok);
                return -EINVAL;
            }
            break;
        case 'C':
            rc = parse_colorspace(tok + 1, &fmt, &bpc);
            if (rc == -2) {
                if (bpc)
                    set_msg(msg, msg_len, "y4m: bad header in %s: unsupported bit "
                            "depth %u in \"%.40s\" (supported: 8, 10, 12, 16).",
                            r->name, bpc, tok);
                else
                    set_msg(msg, msg_len, "y4m: bad header in %s: unsupported bit "
                            "depth in \"%.40s\" (supported: 8, 10, 12, 16).",
                            r->name, tok);
                return -EINVAL;
            }
            if (rc) {
                set_msg(msg, msg_len, "y4m: bad header in %s: unsupported color "
                        "space \"%.40s\" (supported: 420jpeg, 420paldv, 420mpeg2, "
                        "420, 422, 444, mono and their p10/p12/p16 forms, "
                        "mono10/12/16).", r->name, tok);
                return -EINVAL;
            }
            break;
        default:
            break;
        }
        if (!end) break;
        tok = end + 1;
    }
    if (!w || !h) {
        set_msg(msg, msg_len, "y4m: bad header in %s: missing %s.", r->name,
                !w && !h ? "width (W) and height (H)" : !w ? "width (W)" : "height (H)");
        return -EINVAL;
    }
    r->fmt.pix_fmt = fmt;
    r->fmt.bpc = bpc;
    r->fmt.w = w;
    r->fmt.h = h;
    return 0;
}

/* Reads one FRAME header. 1: a frame follows; 0: clean end of stream;
 * negative with a message otherwise. */
static int y4m_read_frame_header(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    unsigned char mark[5];
    size_t got = rd(r, mark, sizeof(mark));
    if (got < sizeof(mark)) {
        if (io_error(r, msg, msg_len)) return -EIO;
        if (got == 0) return 0;
        set_msg(msg, msg_len, "y4m: %s ends inside the FRAME header of frame %llu.",
                r->name, (unsigned long long)r->frame_no);
        return -EIO;
    }
    if (memcmp(mark, "FRAME", 5)) {
        set_msg(msg, msg_len, "y4m: bad FRAME header in %s: frame %llu does not "
                "start with \"FRAME\".", r->name, (unsigned long long)r->frame_no);
        return -EIO;
    }
    int c = rd_byte(r);
    if (c == ' ') {
        /* frame parameters: none affects the samples, so skip them */
        unsigned n = 0;
        while ((c = rd_byte(r)) != '\n' && c != EOF)
            if (++n > Y4M_MAX_LINE) {
                set_msg(msg, msg_len, "y4m: bad FRAME header in %s: the header of "
                        "frame %llu is longer than %u bytes.", r->name,
                        (unsigned long long)r->frame_no, Y4M_MAX_LINE);
                return -EIO;
            }
    }
    if (c == EOF) {
        if (io_error(r, msg, msg_len)) return -EIO;
        set_msg(msg, msg_len, "y4m: %s ends inside the FRAME header of frame %llu.",
                r->name, (unsigned long long)r->frame_no);
        return -EIO;
    }
    if (c != '\n') {
        set_msg(msg, msg_len, "y4m: bad FRAME header in %s: frame %llu starts with "
                "\"FRAME\" followed by byte 0x%02x instead of a space or end of line.",
                r->name, (unsigned long long)r->frame_no, c);
        return -EIO;
    }
    return 1;
}

/* Start of the next frame: 1 if one follows, 0 at a clean end, negative on
 * error. For Y4M this consumes the FRAME header. */
static int next_frame(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    return r->y4m ? y4m_read_frame_header(r, msg, msg_len)
                  : more_data(r, msg, msg_len);
}

static int truncated(TvmafVideoReader *r, uint64_t got, char *msg, size_t msg_len)
{
    if (io_error(r, msg, msg_len)) return -EIO;
    set_msg(msg, msg_len, "%s%s is truncated: frame %llu has %llu of its %llu bytes.",
            r->y4m ? "y4m: " : "Raw input ", r->name, (unsigned long long)r->frame_no,
            (unsigned long long)got, (unsigned long long)r->frame_bytes);
    return -EIO;
}

/* Frame data ------------------------------------------------------------ */

static int host_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* Converts `count` 16-bit little-endian samples at p to native order. */
static void le16_to_native(unsigned char *p, size_t count)
{
    for (size_t i = 0; i < count; i++, p += 2) {
        const uint16_t v = (uint16_t)(p[0] | (unsigned)p[1] << 8);
        memcpy(p, &v, 2);
    }
}

/* Reads and throws away n bytes; returns how many it got. */
static uint64_t discard(TvmafVideoReader *r, uint64_t n)
{
    uint64_t got = 0;
    while (got < n) {
        size_t chunk = n - got < DISCARD_CHUNK ? (size_t)(n - got) : DISCARD_CHUNK;
        size_t g = rd(r, r->scratch, chunk);
        got += g;
        if (g < chunk) break;
    }
    return got;
}

/* Moves past n bytes of a regular file without reading them; returns how
 * many there were (fewer at the end of the file, like a short read). */
static uint64_t seek_over(TvmafVideoReader *r, uint64_t n)
{
    struct stat st;
    const off_t pos = ftello(r->f);
    if (pos < 0 || fstat(fileno(r->f), &st)) return 0;
    const uint64_t left = (uint64_t)st.st_size > (uint64_t)pos ? (uint64_t)st.st_size - (uint64_t)pos : 0;
    const uint64_t k = n < left ? n : left;
    if (fseeko(r->f, (off_t)k, SEEK_CUR)) return 0;
    return k;
}

/* The bytes left to read in a regular file (the peeked ones included);
 * UINT64_MAX for a pipe or when it cannot be told. */
static uint64_t bytes_left(TvmafVideoReader *r)
{
    struct stat st;
    if (!r->seekable) return UINT64_MAX;
    const off_t pos = ftello(r->f);
    if (pos < 0 || fstat(fileno(r->f), &st) || !S_ISREG(st.st_mode)) return UINT64_MAX;
    const uint64_t pend = r->pend_len - r->pend_pos;
    return (uint64_t)st.st_size > (uint64_t)pos ? (uint64_t)st.st_size - (uint64_t)pos + pend
                                                : pend;
}

/* A pipe's size is unknown: its first frame is gathered in a buffer that
 * grows with the bytes that arrive (at most twice them) before its picture
 * is allocated, so that a header claiming a huge frame over a few bytes
 * costs what the bytes cost. Once a whole frame has come, the next ones are
 * read into their pictures directly. */
static int stage_first_frame(TvmafVideoReader *r, char *msg, size_t msg_len)
{
    if (r->seekable || r->frame_no || r->frame_bytes > SIZE_MAX) return 0;
    size_t cap = 0, got = 0;
    unsigned char *buf = NULL;
    while (got < r->frame_bytes) {
        if (got == cap) {
            size_t ncap = cap ? cap * 2 : DISCARD_CHUNK;
            if (ncap > r->frame_bytes) ncap = (size_t)r->frame_bytes;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                set_msg(msg, msg_len, "Out of memory reading frame 0 of %s (%llu bytes).",
                        r->name, (unsigned long long)r->frame_bytes);
                return -ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        const size_t want = cap - got;
        const size_t k = rd(r, buf + got, want);
        got += k;
        if (k < want) break; /* end of stream or error */
    }
    if (got < r->frame_bytes) {
        free(buf);
        return truncated(r, got, msg, msg_len);
    }
    r->stage = buf;
    r->stage_pos = 0;
    r->stage_len = got;
    return 0;
}

/* Consumes the chroma bytes of a frame whose chroma is not wanted. */
static int skip_chroma(TvmafVideoReader *r, uint64_t got_total, char *msg, size_t msg_len)
{
    uint64_t want = r->frame_bytes - got_total, got;
    if (r->seekable && r->pend_pos >= r->pend_len) {
        got = seek_over(r, want);
    } else {
        if (!r->scratch && !(r->scratch = malloc(DISCARD_CHUNK))) {
            set_msg(msg, msg_len, "Out of memory reading %s.", r->name);
            return -ENOMEM;
        }
        got = discard(r, want);
    }
    if (got < want) return truncated(r, got_total + got, msg, msg_len);
    return 0;
}

static int read_planes(TvmafVideoReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    uint64_t got_total = 0;
    const int swap = r->sample_bytes == 2 && !host_little_endian();
    for (unsigned p = 0; p < r->nplanes; p++) {
        if (p > 0 && r->luma_only) return skip_chroma(r, got_total, msg, msg_len);
        unsigned char *d = pic->data[p];
        const size_t row = (size_t)r->pw[p] * r->sample_bytes;
        const size_t rows = r->ph[p];
        const size_t stride = (size_t)pic->stride[p];
        if (!d || pic->stride[p] < 0 || stride < row || pic->w[p] != r->pw[p] ||
            pic->h[p] != r->ph[p]) {
            set_msg(msg, msg_len, "Internal error: the picture allocated for %s "
                    "does not match its format.", r->name);
            return -EINVAL;
        }
        /* The plane's rows are contiguous in the file: one read fills the top
         * row * rows bytes of the buffer, which holds stride * rows >= that. */
        const size_t want = row * rows;
        const size_t got = rd(r, d, want);
        got_total += got;
        if (got < want) return truncated(r, got_total, msg, msg_len);
        if (stride != row) {
            /* Spread rows to the stride, last first: row y's destination
             * y*stride is at or after its source y*row, and rows above y still
             * lie below y*row, so nothing unmoved is overwritten. The padding
             * is cleared to keep the allocator's zero padding. */
            for (size_t y = rows; y-- > 0;) {
                if (y) memmove(d + y * stride, d + y * row, row);
                memset(d + y * stride + row, 0, stride - row);
            }
        }
        if (swap)
            for (size_t y = 0; y < rows; y++)
                le16_to_native(d + y * stride, r->pw[p]);
    }
    return 0;
}

/* Samples above the declared depth: set on the frames checked, so that the
 * caller can warn (the samples are passed on as they are). */
static void check_depth(TvmafVideoReader *r, const TvmafPicture *pic, uint64_t frame_no)
{
    if (r->sample_bytes != 2 || r->fmt.bpc >= 16 || frame_no % DEPTH_CHECK_EVERY ||
        __atomic_load_n(&r->above_depth_frame, __ATOMIC_RELAXED) != UINT64_MAX)
        return;
    unsigned acc = 0;
    const unsigned planes = r->luma_only ? 1 : r->nplanes;
    for (unsigned p = 0; p < planes; p++) {
        for (unsigned y = 0; y < r->ph[p]; y++) {
            const uint16_t *s = (const uint16_t *)((const unsigned char *)pic->data[p] +
                                                   (size_t)y * (size_t)pic->stride[p]);
            uint16_t row = 0;
            for (unsigned x = 0; x < r->pw[p]; x++) row |= s[x];
            acc |= row;
        }
    }
    if (acc >> r->fmt.bpc) {
        uint64_t none = UINT64_MAX;
        __atomic_compare_exchange_n(&r->above_depth_frame, &none, frame_no, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
}

uint64_t tvmaf_reader_above_depth_frame(const TvmafVideoReader *r)
{
    return __atomic_load_n(&r->above_depth_frame, __ATOMIC_RELAXED);
}

/* Public API ------------------------------------------------------------ */

int tvmaf_reader_open(TvmafVideoReader **out, const char *path,
                      const TvmafVideoFormat *raw, char *msg, size_t msg_len)
{
    return tvmaf_reader_open_limited(out, path, raw, 0, msg, msg_len);
}

int tvmaf_reader_open_limited(TvmafVideoReader **out, const char *path,
                              const TvmafVideoFormat *raw, uint64_t max_frame_bytes,
                              char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    if (!out || !path) {
        set_msg(msg, msg_len, "No input path given.");
        return -EINVAL;
    }
    *out = NULL;
    TvmafVideoReader *r = calloc(1, sizeof(*r));
    if (!r) goto nomem;
    r->above_depth_frame = UINT64_MAX;
    const int is_stdin = !strcmp(path, "-");
    if (is_stdin) {
        r->name = strdup("standard input");
    } else {
        size_t len = strlen(path) + 3;
        r->name = malloc(len);
        if (r->name) snprintf(r->name, len, "\"%s\"", path);
    }
    if (!r->name) goto nomem;

    int rc;
    if (is_stdin) {
        r->f = stdin;
    } else {
        r->f = fopen(path, "rb");
        if (!r->f) {
            rc = -errno;
            set_msg(msg, msg_len, "Cannot open %s: %s.", r->name, strerror(errno));
            goto fail;
        }
        r->owns_file = 1;
    }
    /* A directory opens fine for reading on Linux and only fails on read. */
    struct stat st;
    if (!fstat(fileno(r->f), &st) && S_ISREG(st.st_mode)) r->seekable = 1;
    if (!fstat(fileno(r->f), &st) && S_ISDIR(st.st_mode)) {
        set_msg(msg, msg_len, "Cannot read %s: it is a directory.", r->name);
        rc = -EISDIR;
        goto fail;
    }

    /* Peek at the magic through our own buffer (no seeking on pipes); fread
     * keeps reading until it has the bytes or the stream ends. */
    r->pend_len = fread(r->pend, 1, Y4M_MAGIC_LEN, r->f);
    r->pend_pos = 0;
    if (r->pend_len < Y4M_MAGIC_LEN && io_error(r, msg, msg_len)) {
        rc = -EIO;
        goto fail;
    }
    if (r->pend_len == Y4M_MAGIC_LEN && !memcmp(r->pend, y4m_magic, Y4M_MAGIC_LEN)) {
        r->y4m = 1;
        r->pend_pos = r->pend_len; /* magic consumed */
        if ((rc = y4m_read_header(r, msg, msg_len))) goto fail;
    } else {
        if (!raw && r->pend_len > 0 &&
            !(r->pend_len >= Y4M_MAGIC_LEN - 1 && !memcmp(r->pend, y4m_magic, Y4M_MAGIC_LEN - 1))) {
            /* no raw format given: an encoded video, decoded by FFmpeg (a
             * file by its path, stdin after the bytes peeked at); a build
             * without FFmpeg refuses, saying so */
            rc = tvmaf_ff_open(&r->ff, path, is_stdin ? r->f : NULL, r->pend, r->pend_len,
                               r->name, max_frame_bytes, &r->fmt, msg, msg_len);
            if (rc) goto fail;
            if (r->owns_file) fclose(r->f);
            r->f = NULL;
            r->owns_file = 0;
            *out = r;
            return 0;
        }
        if (!raw) {
            rc = -EINVAL;
            if (r->pend_len == 0)
                set_msg(msg, msg_len, "Input %s is empty: it has no Y4M header, and "
                        "no raw YUV format was given.", r->name);
            else if (r->pend_len >= Y4M_MAGIC_LEN - 1 &&
                     !memcmp(r->pend, y4m_magic, Y4M_MAGIC_LEN - 1))
                set_msg(msg, msg_len, "y4m: bad header in %s: \"YUV4MPEG2\" must be "
                        "followed by a space and the stream parameters.", r->name);
            else
                check_raw_format(r, NULL, msg, msg_len);
            goto fail;
        }
        if ((rc = check_raw_format(r, raw, msg, msg_len))) goto fail;
        r->fmt = *raw;
    }
    if ((rc = set_geometry(r))) {
        set_msg(msg, msg_len, "A %ux%u frame of %s is too large for this machine.",
                r->fmt.w, r->fmt.h, r->name);
        goto fail;
    }
    if (max_frame_bytes && r->frame_bytes > max_frame_bytes) {
        /* refused before a picture (or a pipe's staging buffer) is allocated */
        set_msg(msg, msg_len, "%s holds %ux%u %s %u-bit frames, %llu bytes each: above the "
                "limit of %llu bytes on one frame (--max-memory sets it).", r->name, r->fmt.w,
                r->fmt.h, pix_fmt_name(r->fmt.pix_fmt), r->fmt.bpc,
                (unsigned long long)r->frame_bytes, (unsigned long long)max_frame_bytes);
        rc = -ENOMEM;
        goto fail;
    }
    *out = r;
    return 0;

nomem:
    rc = -ENOMEM;
    set_msg(msg, msg_len, "Out of memory opening %s.", path);
fail:
    tvmaf_reader_close(r);
    return rc;
}

const TvmafVideoFormat *tvmaf_reader_format(const TvmafVideoReader *r)
{
    return &r->fmt;
}

void tvmaf_reader_set_luma_only(TvmafVideoReader *r, int luma_only)
{
    r->luma_only = luma_only;
}

int tvmaf_reader_is_encoded(const TvmafVideoReader *r)
{
    return r->ff != NULL;
}

void tvmaf_reader_frame_rate(const TvmafVideoReader *r, int *num, int *den)
{
    *num = *den = 0;
    if (r->ff) tvmaf_ff_frame_rate(r->ff, num, den);
}

int tvmaf_reader_set_scale(TvmafVideoReader *r, unsigned w, unsigned h, const char *filter,
                           char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    if (!r->ff) {
        set_msg(msg, msg_len, "%s is raw YUV or Y4M: only encoded input (read through FFmpeg) "
                "is scaled; scale it first, e.g. ffmpeg -i IN -vf scale=%u:%u -f yuv4mpegpipe OUT.y4m.",
                r->name, w, h);
        return -ENOTSUP;
    }
    return tvmaf_ff_set_scale(r->ff, w, h, filter, &r->fmt, msg, msg_len);
}

int tvmaf_reader_is_y4m(const TvmafVideoReader *r)
{
    return r->y4m;
}

int tvmaf_reader_read(TvmafVideoReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    memset(pic, 0, sizeof(*pic));
    if (r->ff) {
        const int rc = tvmaf_ff_read(r->ff, pic, msg, msg_len);
        if (rc == 1) r->frame_no++;
        return rc;
    }
    int rc = next_frame(r, msg, msg_len);
    if (rc <= 0) return rc;
    /* A regular file shorter than the frame is reported before a picture
     * is allocated for it: memory follows the data present, not a
     * header's claim. */
    const uint64_t left = bytes_left(r);
    if (left < r->frame_bytes) return truncated(r, left, msg, msg_len);
    if ((rc = stage_first_frame(r, msg, msg_len))) return rc;
    rc = tvmaf_picture_alloc(pic, r->fmt.pix_fmt, r->fmt.bpc, r->fmt.w, r->fmt.h);
    if (rc) {
        set_msg(msg, msg_len, "Out of memory allocating a %ux%u %u-bit %s picture for %s.",
                r->fmt.w, r->fmt.h, r->fmt.bpc, pix_fmt_name(r->fmt.pix_fmt), r->name);
        memset(pic, 0, sizeof(*pic));
        return rc;
    }
    rc = read_planes(r, pic, msg, msg_len);
    if (rc) {
        tvmaf_picture_unref(pic);
        memset(pic, 0, sizeof(*pic));
        return rc;
    }
    check_depth(r, pic, r->frame_no);
    r->frame_no++;
    return 1;
}

int tvmaf_reader_skip(TvmafVideoReader *r, unsigned n, char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    if (n && !r->scratch) {
        r->scratch = malloc(DISCARD_CHUNK);
        if (!r->scratch) {
            set_msg(msg, msg_len, "Out of memory skipping frames of %s.", r->name);
            return -ENOMEM;
        }
    }
    for (unsigned i = 0; r->ff && i < n; i++) {
        TvmafPicture pic;
        const int rc = tvmaf_reader_read(r, &pic, msg, msg_len);
        if (rc <= 0) return rc;
        tvmaf_picture_unref(&pic);
    }
    for (unsigned i = 0; !r->ff && i < n; i++) {
        int rc = next_frame(r, msg, msg_len);
        if (rc <= 0) return rc;
        uint64_t got = discard(r, r->frame_bytes);
        if (got < r->frame_bytes) return truncated(r, got, msg, msg_len);
        r->frame_no++;
    }
    return 1;
}

int64_t tvmaf_reader_frames_left(TvmafVideoReader *r)
{
    if (r->ff || r->y4m || !r->frame_bytes) return -1;
    const uint64_t left = bytes_left(r);
    if (left == UINT64_MAX || left % r->frame_bytes) return -1;
    return (int64_t)(left / r->frame_bytes);
}

void tvmaf_reader_close(TvmafVideoReader *r)
{
    if (!r) return;
    tvmaf_ff_close(r->ff);
    if (r->f && r->owns_file) fclose(r->f);
    free(r->scratch);
    free(r->stage);
    free(r->name);
    free(r);
}

/* Random access ---------------------------------------------------------- */

int tvmaf_reader_begin_random_access(TvmafVideoReader *r)
{
    if (r->ff || r->y4m || !r->seekable || (r->sample_bytes == 2 && !host_little_endian())) return 0;
    struct stat st;
    const off_t pos = ftello(r->f);
    if (pos < 0 || fstat(fileno(r->f), &st)) return 0;
    /* bytes peeked at open belong to the next frame */
    r->base = (uint64_t)pos - (r->pend_len - r->pend_pos);
    r->file_size = (uint64_t)st.st_size;
    return 1;
}

/* pread until n bytes or the end of the file; returns how many it got. */
static size_t pread_full(int fd, unsigned char *d, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t k = pread(fd, d + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

int tvmaf_reader_read_at(TvmafVideoReader *r, uint64_t k, TvmafPicture *pic, char *msg,
                         size_t msg_len)
{
    clear_msg(msg, msg_len);
    memset(pic, 0, sizeof(*pic));
    const uint64_t start = r->base + k * r->frame_bytes;
    if (start >= r->file_size) return 0;
    const uint64_t frame_no = r->frame_no + k;
    if (start + r->frame_bytes > r->file_size) {
        set_msg(msg, msg_len, "Raw input %s is truncated: frame %llu has %llu of its %llu bytes.",
                r->name, (unsigned long long)frame_no,
                (unsigned long long)(r->file_size - start), (unsigned long long)r->frame_bytes);
        return -EIO;
    }
    int rc = tvmaf_picture_alloc(pic, r->fmt.pix_fmt, r->fmt.bpc, r->fmt.w, r->fmt.h);
    if (rc) {
        set_msg(msg, msg_len, "Out of memory allocating a %ux%u %u-bit %s picture for %s.",
                r->fmt.w, r->fmt.h, r->fmt.bpc, pix_fmt_name(r->fmt.pix_fmt), r->name);
        memset(pic, 0, sizeof(*pic));
        return rc;
    }
    uint64_t off = start;
    const unsigned planes = r->luma_only ? 1 : r->nplanes;
    for (unsigned p = 0; p < planes; p++) {
        unsigned char *d = pic->data[p];
        const size_t row = (size_t)r->pw[p] * r->sample_bytes, rows = r->ph[p];
        const size_t stride = (size_t)pic->stride[p];
        const size_t got = pread_full(fileno(r->f), d, row * rows, off);
        if (got < row * rows) {
            /* the file shrank since the reading began */
            int e = errno;
            set_msg(msg, msg_len, "Cannot read frame %llu of %s: %s.",
                    (unsigned long long)frame_no, r->name,
                    got || !e ? "the file is shorter than when it was opened" : strerror(e));
            tvmaf_picture_unref(pic);
            memset(pic, 0, sizeof(*pic));
            return -EIO;
        }
        if (stride != row)
            for (size_t y = rows; y-- > 0;) {
                if (y) memmove(d + y * stride, d + y * row, row);
                memset(d + y * stride + row, 0, stride - row);
            }
        off += row * rows;
    }
    check_depth(r, pic, frame_no);
    return 1;
}

const char *tvmaf_reader_sniff_encoded(const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char b[16] = { 0 };
    const size_t n = fread(b, 1, sizeof(b), f);
    fclose(f);
    if (n < 8 || !memcmp(b, "YUV4MPEG2", 9)) return NULL;
    /* signatures a container or an elementary stream starts with; raw YUV
     * can begin with any bytes, so only long, specific ones count */
    static const struct { size_t at, len; const char *magic, *name; } sig[] = {
        { 0, 4, "\x1a\x45\xdf\xa3", "Matroska or WebM" },
        { 4, 4, "ftyp", "MP4 or QuickTime" },
        { 4, 4, "moov", "QuickTime" },
        { 0, 4, "DKIF", "IVF" },
        { 0, 4, "RIFF", "AVI" },
        { 0, 4, "OggS", "Ogg" },
        { 0, 3, "FLV", "FLV" },
        { 0, 8, "\x89PNG\r\n\x1a\n", "PNG" },
        { 0, 4, "\x00\x00\x01\xba", "MPEG program stream" },
        { 0, 11, "\x06\x0e\x2b\x34\x02\x05\x01\x01\x0d\x01\x02", "MXF" },
    };
    for (size_t i = 0; i < sizeof(sig) / sizeof(sig[0]); i++)
        if (n >= sig[i].at + sig[i].len && !memcmp(b + sig[i].at, sig[i].magic, sig[i].len))
            return sig[i].name;
    /* streams without a long signature (MPEG-TS, Annex B H.264/HEVC, AV1
     * OBUs) by the extensions encoders give them */
    static const char *const ext[] = { "ts", "m2ts", "mts", "264", "h264", "265", "h265",
                                       "hevc", "obu", "av1", "mpg", "mpeg", "vob", "webm",
                                       "mkv", "mp4", "mov", "avi", "ivf", "flv", "mxf" };
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (!strcasecmp(dot + 1, ext[i])) return "by its extension";
    return NULL;
}
