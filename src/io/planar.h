/*
 * Planar frames stored back to back in a byte stream, as raw YUV and Y4M
 * store them: plane after plane, each plane's rows without padding, samples
 * above 8 bits as 16-bit little-endian. The raw and Y4M modules read their
 * frames' samples here; what comes before a frame (nothing, or a FRAME
 * header) is theirs.
 */
#ifndef TVMAF_IO_PLANAR_H
#define TVMAF_IO_PLANAR_H

#include <stddef.h>
#include <stdint.h>

#include "tvmaf/reader.h"

typedef struct TvmafPlanar {
    unsigned nplanes;         /* 1 for YUV400P, else 3 */
    unsigned pw[3], ph[3];    /* plane sizes in samples */
    size_t sample_bytes;      /* 1 or 2 */
    uint64_t frame_bytes;     /* one frame's samples, in bytes */
} TvmafPlanar;

/* Lays out a valid format: -EINVAL for a size or layout tvmaf_plane_dims
 * refuses, -ENOMEM for a frame larger than the address space. */
int tvmaf_planar_init(TvmafPlanar *l, const TvmafVideoFormat *f);

/* "4:2:0", ..., "4:0:0 (luma only)": a layout in the reader's messages. */
const char *tvmaf_planar_layout_name(enum TvmafPixelFormat f);

/* The samples of frame r->frame_no, whose start (a FRAME header, if any) has
 * been read, into a new picture of r->fmt: 1, or a negative errno with a
 * message (a frame cut short: "<what>NAME is truncated: ..."). With
 * r->luma_only the chroma bytes are passed over. *pic owns nothing unless 1
 * is returned. */
int tvmaf_planar_read(TvmafReader *r, const char *what, TvmafPicture *pic, char *msg,
                      size_t msg_len);
/* The samples of frame r->frame_no read and dropped: 1, or a negative errno
 * with a message. */
int tvmaf_planar_pass(TvmafReader *r, const char *what, char *msg, size_t msg_len);

/* The message of a frame cut short after `got` bytes; returns -EIO. */
int tvmaf_planar_short(const TvmafReader *r, const char *what, uint64_t frame_no, uint64_t got,
                       char *msg, size_t msg_len);
/* A new picture of r->fmt, or a negative errno with a message. */
int tvmaf_planar_alloc(const TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len);
/* Whether this host stores a 16-bit sample as the file does (low byte
 * first). */
int tvmaf_planar_host_le(void);
/* A plane read as `rows` rows of `row` bytes back to back at d, spread out
 * to the picture's stride (padding cleared). */
void tvmaf_planar_spread(unsigned char *d, size_t row, size_t rows, size_t stride);

#endif
