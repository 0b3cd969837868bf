/*
 * The byte stream under the raw and Y4M modules (and under FFmpeg's reading
 * of a pipe): a file or stdin, read forwards only.
 *
 * Invariants:
 *  - Bytes come out in input order: first those held `ahead` (the first
 *    bytes staged at open to recognise the input, or one byte peeked to see
 *    whether another frame follows), then the `stage` buffer (a pipe's first
 *    frame, gathered before its picture is allocated), then the FILE.
 *  - Nothing seeks backwards, so pipes and stdin read like files; a regular
 *    file may be moved forwards over bytes nobody wants (seek_over), and
 *    only once nothing is held ahead of the FILE's position.
 */
#ifndef TVMAF_IO_STREAM_H
#define TVMAF_IO_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes staged at open: the longest signature looked for (io/reader.c) ends
 * within them. */
#define TVMAF_STREAM_FIRST 16u

typedef struct TvmafStream {
    FILE *f;                  /* NULL once closed */
    int owns_file;            /* 0 for stdin: never fclose it */
    int seekable;             /* a regular file */
    const char *name;         /* for messages; the reader's */
    unsigned char ahead[TVMAF_STREAM_FIRST];
    size_t ahead_pos, ahead_len;
    unsigned char *stage;
    size_t stage_pos, stage_len;
    unsigned char *scratch;   /* TVMAF_STREAM_CHUNK bytes for discarding */
} TvmafStream;

/* Read and discard in pieces of this size. */
#define TVMAF_STREAM_CHUNK ((size_t)1 << 20)

/* Opens path ("-": stdin) and stages its first bytes. Fails, with a message
 * naming `name`, for a file that cannot be opened (-errno), a directory
 * (-EISDIR) or a read error (-EIO). s is closable in every case. */
int tvmaf_stream_open(TvmafStream *s, const char *path, const char *name, char *msg,
                      size_t msg_len);
/* The bytes held ahead of the FILE (at open: the first bytes of the input). */
const unsigned char *tvmaf_stream_ahead(const TvmafStream *s, size_t *n);
/* Drops n of the bytes held ahead (n at most what tvmaf_stream_ahead says). */
void tvmaf_stream_consume(TvmafStream *s, size_t n);
/* Up to n bytes; fewer at the end of the input or on an error
 * (tvmaf_stream_failed tells which). */
size_t tvmaf_stream_read(TvmafStream *s, void *dst, size_t n);
/* One byte, or EOF. */
int tvmaf_stream_getc(TvmafStream *s);
/* After a short read: 1 with the message "Cannot read NAME: REASON." when
 * the FILE reports an error, 0 for a plain end of input. */
int tvmaf_stream_failed(TvmafStream *s, char *msg, size_t msg_len);
/* 1 when at least one more byte follows (then held ahead), 0 at the end,
 * -EIO with a message on a read error. */
int tvmaf_stream_more(TvmafStream *s, char *msg, size_t msg_len);
/* Allocates the discard buffer once; -ENOMEM (no message) when it cannot. */
int tvmaf_stream_want_scratch(TvmafStream *s);
/* Moves past n bytes: seeking in a regular file when nothing is held ahead,
 * else reading into the scratch buffer (which must exist then; see
 * tvmaf_stream_can_seek). Returns how many there were (fewer at the end). */
uint64_t tvmaf_stream_pass(TvmafStream *s, uint64_t n);
/* Whether tvmaf_stream_pass would seek rather than read. */
int tvmaf_stream_can_seek(const TvmafStream *s);
/* Reads and drops n bytes through the scratch buffer (which must exist);
 * returns how many it got. */
uint64_t tvmaf_stream_discard(TvmafStream *s, uint64_t n);
/* The bytes left in a regular file, those held ahead included; UINT64_MAX
 * for a pipe or when it cannot be told. */
uint64_t tvmaf_stream_left(const TvmafStream *s);
/* The file offset of the next byte to be handed out, or -1 (a pipe). */
int64_t tvmaf_stream_offset(const TvmafStream *s);
/* Gathers the next n bytes into the stage buffer, growing it with the bytes
 * that arrive (to at most twice them), so that a claim of a huge frame over
 * a few bytes costs what the bytes cost. 0 when all n came (they are then
 * handed out next), -ENOMEM, or 1 with *got < n when the input ended first
 * (the bytes are dropped). */
int tvmaf_stream_gather(TvmafStream *s, uint64_t n, uint64_t *got);
/* Closes the file (never stdin) and frees the buffers; idempotent. */
void tvmaf_stream_close(TvmafStream *s);

#endif
