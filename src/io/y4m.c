/*
 * The Y4M module: a YUV4MPEG2 stream header, then per frame a FRAME line and
 * the frame's planar samples (io/planar.h).
 *
 * The header is ASCII text of single-letter tags and their values separated
 * by spaces. W and H give the size, C the layout and depth (absent: 4:2:0
 * 8-bit), F the frame rate; A (aspect), X (extensions), I (interlacing) and
 * unknown tags do not change the samples and are passed over. Interlaced
 * streams (It, Ib, Im) are read as progressive frames, which is what a
 * per-frame metric compares anyway.
 */
#include <errno.h>
#include <string.h>

#include "io/input.h"

/* Largest width or height accepted: 8K is 7680, 16K is 15360; anything above
 * this is a corrupt header, and the cap keeps every size computation far
 * from overflow (32768^2 * 3 planes * 2 bytes < 2^33). */
#define Y4M_MAX_DIM 32768u
/* Longest stream or FRAME header line, terminator excluded. */
#define Y4M_MAX_LINE 4096u

static const char y4m_magic[] = "YUV4MPEG2 "; /* the space included */
#define Y4M_MAGIC_LEN 10u

/* The signature, or (with no geometry given, which would make the input raw
 * YUV) its word without the space: a header this module refuses by name. */
static int y4m_probe(const unsigned char *first, size_t n, const TvmafReaderConfig *cfg)
{
    if (n >= Y4M_MAGIC_LEN && !memcmp(first, y4m_magic, Y4M_MAGIC_LEN)) return 1;
    return n >= Y4M_MAGIC_LEN - 1 && !memcmp(first, y4m_magic, Y4M_MAGIC_LEN - 1) &&
           !tvmaf_config_has_raw(cfg);
}

static int depth_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

/* A W or H value: decimal digits only. 0 and *out, or -1 for a malformed
 * value, -2 for one outside 1..Y4M_MAX_DIM. */
static int parse_dim(const char *s, unsigned *out)
{
    if (!*s) return -1;
    unsigned v = 0;
    int too_big = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        if (!too_big) {
            v = v * 10 + (unsigned)(*s - '0');
            if (v > Y4M_MAX_DIM) too_big = 1; /* stop before it can wrap */
        }
    }
    if (too_big || v == 0) return -2;
    *out = v;
    return 0;
}

/* An F value "num:den", both positive and within int; anything else leaves
 * the rate unknown (0/0), as the rate does not change the samples. Reduced
 * to lowest terms, as an encoded stream's rate is. */
static void parse_rate(const char *s, int *num, int *den)
{
    unsigned long long v[2] = { 0, 0 };
    for (int i = 0; i < 2; i++) {
        const char *start = s;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((v[i] = v[i] * 10 + (unsigned)(*s - '0')) > INT32_MAX) return;
        if (s == start || !v[i] || *s != (i ? '\0' : ':')) return;
        s++;
    }
    unsigned long long a = v[0], b = v[1];
    while (b) {
        const unsigned long long t = a % b;
        a = b;
        b = t;
    }
    *num = (int)(v[0] / a);
    *den = (int)(v[1] / a);
}

/*
 * A C value. Layouts: 420jpeg, 420paldv, 420mpeg2, 420, 422, 444, mono (all
 * 8-bit), then 420pN, 422pN, 444pN and monoN for a depth N. The 4:2:0
 * siting variants differ only in where chroma sits, which does not change
 * the samples stored, so all read the same way.
 * 0, or -1 for an unknown layout, -2 for an unsupported depth (*bpc then
 * holds it, or 0 if it was too long to be a depth at all).
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

/* Reads the header line after the signature into line (NUL-terminated). */
static int read_header_line(TvmafReader *r, char line[Y4M_MAX_LINE + 1], char *msg,
                            size_t msg_len)
{
    size_t n = 0;
    for (;;) {
        const int c = tvmaf_stream_getc(&r->stream);
        if (c == EOF) {
            if (tvmaf_stream_failed(&r->stream, msg, msg_len)) return -EIO;
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: the input ends before "
                         "the header's end of line.", r->name);
            return -EINVAL;
        }
        if (c == '\n') break;
        if (n + Y4M_MAGIC_LEN >= Y4M_MAX_LINE) {
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: the header line is "
                         "longer than %u bytes.", r->name, Y4M_MAX_LINE);
            return -EINVAL;
        }
        /* the header is ASCII text; anything else means this is not Y4M */
        if (c < 0x20 || c > 0x7e) {
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: it contains the "
                         "non-text byte 0x%02x.", r->name, c);
            return -EINVAL;
        }
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return 0;
}

/* A W, H or C token's value into *w, *h or *fmt and *bpc; an F token's into
 * the reader's rate. 0, or -EINVAL with a message. */
static int parse_token(TvmafReader *r, const char *tok, unsigned *w, unsigned *h,
                       enum TvmafPixelFormat *fmt, unsigned *bpc, char *msg, size_t msg_len)
{
    int rc;
    switch (tok[0]) {
    case 'W':
    case 'H':
        if (!(rc = parse_dim(tok + 1, tok[0] == 'W' ? w : h))) return 0;
        if (rc == -2)
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: the %s must be between 1 and "
                         "%u (got \"%.40s\").", r->name, tok[0] == 'W' ? "width" : "height",
                         Y4M_MAX_DIM, tok);
        else
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: malformed %s \"%.40s\".",
                         r->name, tok[0] == 'W' ? "width" : "height", tok);
        return -EINVAL;
    case 'C':
        rc = parse_colorspace(tok + 1, fmt, bpc);
        if (rc == -2 && *bpc)
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: unsupported bit depth %u in "
                         "\"%.40s\" (supported: 8, 10, 12, 16).", r->name, *bpc, tok);
        else if (rc == -2)
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: unsupported bit depth in "
                         "\"%.40s\" (supported: 8, 10, 12, 16).", r->name, tok);
        else if (rc)
            tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: unsupported color space "
                         "\"%.40s\" (supported: 420jpeg, 420paldv, 420mpeg2, 420, 422, 444, "
                         "mono and their p10/p12/p16 forms, mono10/12/16).", r->name, tok);
        return rc ? -EINVAL : 0;
    case 'F':
        r->rate_num = r->rate_den = 0; /* a later F overrides an earlier one */
        parse_rate(tok + 1, &r->rate_num, &r->rate_den);
        return 0;
    default:
        return 0;
    }
}

static int y4m_open(TvmafReader *r, const char *path, const TvmafReaderConfig *cfg, char *msg,
                    size_t msg_len)
{
    (void)path;
    (void)cfg;
    size_t n;
    const unsigned char *first = tvmaf_stream_ahead(&r->stream, &n);
    if (n < Y4M_MAGIC_LEN || first[Y4M_MAGIC_LEN - 1] != ' ') {
        tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: \"YUV4MPEG2\" must be "
                     "followed by a space and the stream parameters.", r->name);
        return -EINVAL;
    }
    tvmaf_stream_consume(&r->stream, Y4M_MAGIC_LEN);
    char line[Y4M_MAX_LINE + 1];
    int rc = read_header_line(r, line, msg, msg_len);
    if (rc) return rc;
    unsigned w = 0, h = 0, bpc = 8;
    enum TvmafPixelFormat fmt = TVMAF_PIX_FMT_YUV420P; /* C absent: 420 */
    for (char *tok = line; *tok;) {
        if (*tok == ' ') { tok++; continue; } /* tolerate repeated spaces */
        char *end = strchr(tok, ' ');
        if (end) *end = '\0';
        if ((rc = parse_token(r, tok, &w, &h, &fmt, &bpc, msg, msg_len))) return rc;
        if (!end) break;
        tok = end + 1;
    }
    if (!w || !h) {
        tvmaf_io_msg(msg, msg_len, "y4m: bad header in %s: missing %s.", r->name,
                     !w && !h ? "width (W) and height (H)" : !w ? "width (W)" : "height (H)");
        return -EINVAL;
    }
    r->fmt = (TvmafVideoFormat){ fmt, bpc, w, h };
    return 0;
}

/* Reads one FRAME line. 1: a frame follows; 0: clean end of the input;
 * negative with a message otherwise. */
static int read_frame_header(TvmafReader *r, char *msg, size_t msg_len)
{
    const unsigned long long no = (unsigned long long)r->frame_no;
    unsigned char mark[5];
    const size_t got = tvmaf_stream_read(&r->stream, mark, sizeof(mark));
    int c = 0;
    if (got == sizeof(mark) && memcmp(mark, "FRAME", 5)) {
        tvmaf_io_msg(msg, msg_len, "y4m: bad FRAME header in %s: frame %llu does not "
                     "start with \"FRAME\".", r->name, no);
        return -EIO;
    }
    if (got == sizeof(mark) && (c = tvmaf_stream_getc(&r->stream)) == ' ') {
        /* frame parameters: none changes the samples, so they are passed over */
        unsigned n = 0;
        while ((c = tvmaf_stream_getc(&r->stream)) != '\n' && c != EOF)
            if (++n > Y4M_MAX_LINE) {
                tvmaf_io_msg(msg, msg_len, "y4m: bad FRAME header in %s: the header of "
                             "frame %llu is longer than %u bytes.", r->name, no, Y4M_MAX_LINE);
                return -EIO;
            }
    }
    if (got < sizeof(mark) || c == EOF) {
        if (tvmaf_stream_failed(&r->stream, msg, msg_len)) return -EIO;
        if (got == 0) return 0;
        tvmaf_io_msg(msg, msg_len, "y4m: %s ends inside the FRAME header of frame %llu.",
                     r->name, no);
        return -EIO;
    }
    if (c != '\n') {
        tvmaf_io_msg(msg, msg_len, "y4m: bad FRAME header in %s: frame %llu starts with "
                     "\"FRAME\" followed by byte 0x%02x instead of a space or end of line.",
                     r->name, no, c);
        return -EIO;
    }
    return 1;
}

static int y4m_read(TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    const int rc = read_frame_header(r, msg, msg_len);
    return rc <= 0 ? rc : tvmaf_planar_read(r, "y4m: ", pic, msg, msg_len);
}

static int y4m_skip(TvmafReader *r, char *msg, size_t msg_len)
{
    const int rc = read_frame_header(r, msg, msg_len);
    return rc <= 0 ? rc : tvmaf_planar_pass(r, "y4m: ", msg, msg_len);
}

const TvmafInput tvmaf_input_y4m = {
    .kind = "y4m",
    .probe = y4m_probe,
    .open = y4m_open,
    .read = y4m_read,
    .skip = y4m_skip,
    .scale_filters = "",
};
