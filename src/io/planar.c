/*
 * Planar frames in a byte stream (io/planar.h).
 *
 * Invariants:
 *  - A plane is read with one read into the top of its picture buffer and,
 *    when the picture's stride is wider than a row, spread out to the
 *    stride in place (rows moved last to first, so no row overwrites one
 *    that has not moved yet).
 *  - Samples deeper than 8 bits are converted from little-endian to native
 *    order in place; on a little-endian host that is a no-op.
 *  - Memory follows the data present, not a header's claim: a regular file
 *    shorter than the frame is reported before a picture is allocated, and
 *    a pipe's first frame is gathered before its picture (io/stream.h).
 */
#include <errno.h>
#include <string.h>

#include "io/input.h"
#include "io/planar.h"

int tvmaf_planar_init(TvmafPlanar *l, const TvmafVideoFormat *f)
{
    if (tvmaf_plane_dims(f->pix_fmt, f->w, f->h, l->pw, l->ph)) return -EINVAL;
    l->nplanes = f->pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
    l->sample_bytes = f->bpc > 8 ? 2 : 1;
    l->frame_bytes = 0;
    for (unsigned p = 0; p < l->nplanes; p++)
        l->frame_bytes += (uint64_t)l->pw[p] * l->ph[p] * l->sample_bytes;
    /* only matters where size_t is 32 bits: a frame must fit in memory */
    if (l->frame_bytes > SIZE_MAX) return -ENOMEM;
    return 0;
}

const char *tvmaf_planar_layout_name(enum TvmafPixelFormat f)
{
    switch (f) {
    case TVMAF_PIX_FMT_YUV420P: return "4:2:0";
    case TVMAF_PIX_FMT_YUV422P: return "4:2:2";
    case TVMAF_PIX_FMT_YUV444P: return "4:4:4";
    case TVMAF_PIX_FMT_YUV400P: return "4:0:0 (luma only)";
    default: return "unknown";
    }
}

int tvmaf_planar_short(const TvmafReader *r, const char *what, uint64_t frame_no, uint64_t got,
                       char *msg, size_t msg_len)
{
    tvmaf_io_msg(msg, msg_len, "%s%s is truncated: frame %llu has %llu of its %llu bytes.", what,
                 r->name, (unsigned long long)frame_no, (unsigned long long)got,
                 (unsigned long long)r->layout.frame_bytes);
    return -EIO;
}

/* A short read of frame r->frame_no: the stream's error, or truncation. */
static int truncated(TvmafReader *r, const char *what, uint64_t got, char *msg, size_t msg_len)
{
    if (tvmaf_stream_failed(&r->stream, msg, msg_len)) return -EIO;
    return tvmaf_planar_short(r, what, r->frame_no, got, msg, msg_len);
}

int tvmaf_planar_alloc(const TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    const TvmafVideoFormat *f = &r->fmt;
    const int rc = tvmaf_picture_alloc(pic, f->pix_fmt, f->bpc, f->w, f->h);
    if (rc) {
        tvmaf_io_msg(msg, msg_len, "Out of memory allocating a %ux%u %u-bit %s picture for %s.",
                     f->w, f->h, f->bpc, tvmaf_planar_layout_name(f->pix_fmt), r->name);
        memset(pic, 0, sizeof(*pic));
    }
    return rc;
}

void tvmaf_planar_spread(unsigned char *d, size_t row, size_t rows, size_t stride)
{
    if (stride == row) return;
    /* row y's destination y*stride is at or after its source y*row, and
     * rows above y still lie below y*row, so nothing unmoved is overwritten;
     * the padding is cleared to keep the allocator's zero padding */
    for (size_t y = rows; y-- > 0;) {
        if (y) memmove(d + y * stride, d + y * row, row);
        memset(d + y * stride + row, 0, stride - row);
    }
}

int tvmaf_planar_host_le(void)
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

/* Consumes the chroma bytes of a frame whose chroma is not wanted: a regular
 * file seeks over them, a pipe reads and drops them. */
static int pass_chroma(TvmafReader *r, const char *what, uint64_t got_total, char *msg,
                       size_t msg_len)
{
    const uint64_t want = r->layout.frame_bytes - got_total;
    if (!tvmaf_stream_can_seek(&r->stream) && tvmaf_stream_want_scratch(&r->stream)) {
        tvmaf_io_msg(msg, msg_len, "Out of memory reading %s.", r->name);
        return -ENOMEM;
    }
    const uint64_t got = tvmaf_stream_pass(&r->stream, want);
    if (got < want) return truncated(r, what, got_total + got, msg, msg_len);
    return 0;
}

static int read_planes(TvmafReader *r, const char *what, TvmafPicture *pic, char *msg,
                       size_t msg_len)
{
    const TvmafPlanar *l = &r->layout;
    uint64_t got_total = 0;
    const int swap = l->sample_bytes == 2 && !tvmaf_planar_host_le();
    for (unsigned p = 0; p < l->nplanes; p++) {
        if (p > 0 && r->luma_only) return pass_chroma(r, what, got_total, msg, msg_len);
        unsigned char *d = pic->data[p];
        const size_t row = (size_t)l->pw[p] * l->sample_bytes;
        const size_t rows = l->ph[p];
        const size_t stride = (size_t)pic->stride[p];
        if (!d || pic->stride[p] < 0 || stride < row || pic->w[p] != l->pw[p] ||
            pic->h[p] != l->ph[p]) {
            tvmaf_io_msg(msg, msg_len, "Internal error: the picture allocated for %s "
                         "does not match its format.", r->name);
            return -EINVAL;
        }
        /* The plane's rows are contiguous in the input: one read fills the
         * top row * rows bytes of the buffer, which holds stride * rows. */
        const size_t want = row * rows;
        const size_t got = tvmaf_stream_read(&r->stream, d, want);
        got_total += got;
        if (got < want) return truncated(r, what, got_total, msg, msg_len);
        tvmaf_planar_spread(d, row, rows, stride);
        if (swap)
            for (size_t y = 0; y < rows; y++) le16_to_native(d + y * stride, l->pw[p]);
    }
    return 0;
}

int tvmaf_planar_read(TvmafReader *r, const char *what, TvmafPicture *pic, char *msg,
                      size_t msg_len)
{
    const uint64_t frame_bytes = r->layout.frame_bytes;
    const uint64_t left = tvmaf_stream_left(&r->stream);
    if (left < frame_bytes) return truncated(r, what, left, msg, msg_len);
    if (!r->stream.seekable && !r->frame_no && frame_bytes <= SIZE_MAX) {
        uint64_t got;
        const int rc = tvmaf_stream_gather(&r->stream, frame_bytes, &got);
        if (rc < 0) {
            tvmaf_io_msg(msg, msg_len, "Out of memory reading frame 0 of %s (%llu bytes).",
                         r->name, (unsigned long long)frame_bytes);
            return rc;
        }
        if (rc) return truncated(r, what, got, msg, msg_len);
    }
    int rc = tvmaf_planar_alloc(r, pic, msg, msg_len);
    if (rc) return rc;
    if ((rc = read_planes(r, what, pic, msg, msg_len))) {
        tvmaf_picture_unref(pic);
        memset(pic, 0, sizeof(*pic));
        return rc;
    }
    return 1;
}

int tvmaf_planar_pass(TvmafReader *r, const char *what, char *msg, size_t msg_len)
{
    if (tvmaf_stream_want_scratch(&r->stream)) {
        tvmaf_io_msg(msg, msg_len, "Out of memory skipping frames of %s.", r->name);
        return -ENOMEM;
    }
    const uint64_t got = tvmaf_stream_discard(&r->stream, r->layout.frame_bytes);
    if (got < r->layout.frame_bytes) return truncated(r, what, got, msg, msg_len);
    return 1;
}
