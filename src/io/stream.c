/*
 * The byte stream (io/stream.h): staged first bytes, a pipe's gathered first
 * frame, then the FILE, forwards only.
 */
/* POSIX (fileno, fseeko, ftello); the build defines _GNU_SOURCE, this keeps
 * the file compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/input.h"
#include "io/stream.h"

int tvmaf_stream_open(TvmafStream *s, const char *path, const char *name, char *msg,
                      size_t msg_len)
{
    memset(s, 0, sizeof(*s));
    s->name = name;
    if (!strcmp(path, "-")) {
        s->f = stdin;
    } else {
        s->f = fopen(path, "rb");
        if (!s->f) {
            const int e = errno;
            tvmaf_io_msg(msg, msg_len, "Cannot open %s: %s.", name, strerror(e));
            return -e;
        }
        s->owns_file = 1;
    }
    /* A directory opens fine for reading on Linux and only fails on read. */
    struct stat st;
    if (!fstat(fileno(s->f), &st)) {
        if (S_ISREG(st.st_mode)) s->seekable = 1;
        if (S_ISDIR(st.st_mode)) {
            tvmaf_io_msg(msg, msg_len, "Cannot read %s: it is a directory.", name);
            return -EISDIR;
        }
    }
    /* fread keeps reading until it has the bytes or the input ends, so a
     * pipe delivering them in pieces is staged whole */
    s->ahead_len = fread(s->ahead, 1, sizeof(s->ahead), s->f);
    if (s->ahead_len < sizeof(s->ahead) && tvmaf_stream_failed(s, msg, msg_len)) return -EIO;
    return 0;
}

const unsigned char *tvmaf_stream_ahead(const TvmafStream *s, size_t *n)
{
    *n = s->ahead_len - s->ahead_pos;
    return s->ahead + s->ahead_pos;
}

void tvmaf_stream_consume(TvmafStream *s, size_t n)
{
    s->ahead_pos += n;
}

size_t tvmaf_stream_read(TvmafStream *s, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t got = 0;
    if (s->ahead_pos < s->ahead_len) {
        size_t k = s->ahead_len - s->ahead_pos;
        if (k > n) k = n;
        memcpy(d, s->ahead + s->ahead_pos, k);
        s->ahead_pos += k;
        got = k;
    }
    if (got < n && s->stage) {
        size_t k = s->stage_len - s->stage_pos;
        if (k > n - got) k = n - got;
        memcpy(d + got, s->stage + s->stage_pos, k);
        s->stage_pos += k;
        got += k;
        if (s->stage_pos == s->stage_len) {
            free(s->stage);
            s->stage = NULL;
        }
    }
    if (got < n) got += fread(d + got, 1, n - got, s->f);
    return got;
}

int tvmaf_stream_getc(TvmafStream *s)
{
    if (s->ahead_pos < s->ahead_len) return s->ahead[s->ahead_pos++];
    if (s->stage) {
        unsigned char c;
        return tvmaf_stream_read(s, &c, 1) == 1 ? c : EOF;
    }
    return getc(s->f);
}

int tvmaf_stream_failed(TvmafStream *s, char *msg, size_t msg_len)
{
    if (!ferror(s->f)) return 0;
    const int e = errno ? errno : EIO;
    tvmaf_io_msg(msg, msg_len, "Cannot read %s: %s.", s->name, strerror(e));
    return 1;
}

int tvmaf_stream_more(TvmafStream *s, char *msg, size_t msg_len)
{
    if (s->ahead_pos < s->ahead_len || s->stage) return 1;
    const int c = getc(s->f);
    if (c == EOF) return tvmaf_stream_failed(s, msg, msg_len) ? -EIO : 0;
    s->ahead[0] = (unsigned char)c;
    s->ahead_pos = 0;
    s->ahead_len = 1;
    return 1;
}

int tvmaf_stream_want_scratch(TvmafStream *s)
{
    if (!s->scratch && !(s->scratch = malloc(TVMAF_STREAM_CHUNK))) return -ENOMEM;
    return 0;
}

int tvmaf_stream_can_seek(const TvmafStream *s)
{
    return s->seekable && s->ahead_pos >= s->ahead_len && !s->stage;
}

uint64_t tvmaf_stream_discard(TvmafStream *s, uint64_t n)
{
    uint64_t got = 0;
    while (got < n) {
        const size_t chunk = n - got < TVMAF_STREAM_CHUNK ? (size_t)(n - got) : TVMAF_STREAM_CHUNK;
        const size_t g = tvmaf_stream_read(s, s->scratch, chunk);
        got += g;
        if (g < chunk) break;
    }
    return got;
}

/* Moves a regular file past n bytes without reading them; returns how many
 * there were (fewer at the end of the file, like a short read). */
static uint64_t seek_over(TvmafStream *s, uint64_t n)
{
    struct stat st;
    const off_t pos = ftello(s->f);
    if (pos < 0 || fstat(fileno(s->f), &st)) return 0;
    const uint64_t left =
        (uint64_t)st.st_size > (uint64_t)pos ? (uint64_t)st.st_size - (uint64_t)pos : 0;
    const uint64_t k = n < left ? n : left;
    if (fseeko(s->f, (off_t)k, SEEK_CUR)) return 0;
    return k;
}

uint64_t tvmaf_stream_pass(TvmafStream *s, uint64_t n)
{
    return tvmaf_stream_can_seek(s) ? seek_over(s, n) : tvmaf_stream_discard(s, n);
}

uint64_t tvmaf_stream_left(const TvmafStream *s)
{
    struct stat st;
    if (!s->seekable) return UINT64_MAX;
    const off_t pos = ftello(s->f);
    if (pos < 0 || fstat(fileno(s->f), &st) || !S_ISREG(st.st_mode)) return UINT64_MAX;
    const uint64_t ahead = s->ahead_len - s->ahead_pos;
    return (uint64_t)st.st_size > (uint64_t)pos
               ? (uint64_t)st.st_size - (uint64_t)pos + ahead
               : ahead;
}

int64_t tvmaf_stream_offset(const TvmafStream *s)
{
    if (!s->seekable) return -1;
    const off_t pos = ftello(s->f);
    if (pos < 0) return -1;
    /* the bytes held ahead were read from the file but not handed out */
    return (int64_t)pos - (int64_t)(s->ahead_len - s->ahead_pos);
}

int tvmaf_stream_gather(TvmafStream *s, uint64_t n, uint64_t *got_out)
{
    size_t cap = 0, got = 0;
    unsigned char *buf = NULL;
    while (got < n) {
        if (got == cap) {
            size_t ncap = cap ? cap * 2 : TVMAF_STREAM_CHUNK;
            if (ncap > n) ncap = (size_t)n;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return -ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        const size_t want = cap - got;
        const size_t k = tvmaf_stream_read(s, buf + got, want);
        got += k;
        if (k < want) break; /* end of input or error */
    }
    *got_out = got;
    if (got < n) {
        free(buf);
        return 1;
    }
    s->stage = buf;
    s->stage_pos = 0;
    s->stage_len = got;
    return 0;
}

void tvmaf_stream_close(TvmafStream *s)
{
    if (s->f && s->owns_file) fclose(s->f);
    s->f = NULL;
    s->owns_file = 0;
    free(s->scratch);
    s->scratch = NULL;
    free(s->stage);
    s->stage = NULL;
}
