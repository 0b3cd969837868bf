/*
 * libtvmaf's video reader: the inputs the tvmaf CLI reads, for any program.
 *
 * One reader reads one input forwards, a picture at a time, as the library
 * scores it (TvmafPicture, tvmaf/tvmaf.h): raw planar YUV (its geometry given
 * by the caller), YUV4MPEG2 (Y4M), and, where the library was built with
 * FFmpeg (tvmaf_build_info() says "ffmpeg=yes"), anything FFmpeg's libraries
 * demux and decode. Files and pipes ("-" is stdin) read alike: the input is
 * recognised from its first bytes, not from its name. FFmpeg's libraries are
 * not linked: they are loaded (dlopen, by the major versions the library was
 * built against: libavformat.so.59, ...) when the first encoded input is
 * opened; TVMAF_FFMPEG_LIBDIR names the directory to load them from instead
 * of the dynamic loader's search path.
 *
 * Every function that can fail returns a negative errno value and writes one
 * complete sentence naming the input into msg (when msg is non-NULL and
 * msg_len > 0), and leaves msg "" when it succeeds.
 */
#ifndef TVMAF_READER_H
#define TVMAF_READER_H

#include <stddef.h>
#include <stdint.h>

#include "tvmaf/tvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct TvmafReader TvmafReader;

/* A picture geometry: the pixel format, bits per sample (8 to 16) and the
 * luma size. */
typedef struct TvmafVideoFormat {
    enum TvmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
} TvmafVideoFormat;

typedef struct TvmafReaderConfig {
    /* Raw planar YUV: its pixel format, depth (8, 10, 12 or 16) and size.
     * All zero: the input must say its own geometry (Y4M, or an encoded file
     * where the build has FFmpeg). Given, an input that is not Y4M is read as
     * raw YUV of this geometry; a Y4M input's header wins over it, and an
     * input starting with a container's signature (Matroska, MP4, IVF, ...)
     * is refused with -EINVAL rather than read as YUV. */
    TvmafVideoFormat raw;
    /* At most this many bytes for one picture of the input's geometry (planar,
     * 16-bit samples above 8 bits); an input claiming larger pictures is
     * refused with -ENOMEM before any is allocated. 0: no limit. */
    uint64_t max_frame_bytes;
} TvmafReaderConfig;

/*
 * Opens path ("-" = stdin) with cfg (NULL = all zero). Fails with -ENOENT,
 * -EACCES, -EISDIR ... for a file that cannot be read, -EINVAL for raw input
 * without a geometry or a bad geometry, -ENOTSUP for an encoded input in a
 * build without FFmpeg or where its libraries cannot be loaded (msg names the
 * library and why), -ENOMEM over max_frame_bytes; *r is NULL then.
 */
int tvmaf_reader_open(TvmafReader **r, const char *path, const TvmafReaderConfig *cfg,
                      char *msg, size_t msg_len);

/* The geometry of the pictures reads return (after tvmaf_reader_set_scale,
 * the scaled one). Valid until tvmaf_reader_close. */
const TvmafVideoFormat *tvmaf_reader_format(const TvmafReader *r);

/* The module reading the input: "raw", "y4m" or "ffmpeg". */
const char *tvmaf_reader_kind(const TvmafReader *r);

/* The input's frame rate as num/den: a Y4M header's F field, an encoded
 * stream's rate; 0/0 when the input does not say (raw YUV). */
void tvmaf_reader_frame_rate(const TvmafReader *r, int *num, int *den);

/* Encoded input only, before the first read: every picture is scaled to
 * w x h with the named filter (one of tvmaf_reader_scale_filters(); NULL =
 * "bicubic") and tvmaf_reader_format() reports the new size. -ENOTSUP for raw
 * and Y4M input, -EINVAL for an unknown filter or a bad size. */
int tvmaf_reader_set_scale(TvmafReader *r, unsigned w, unsigned h, const char *filter,
                           char *msg, size_t msg_len);

/* The filter names tvmaf_reader_set_scale accepts, separated by '|' ("" in a
 * build without FFmpeg). */
const char *tvmaf_reader_scale_filters(void);

/*
 * The next picture into *pic, allocated by the reader with
 * tvmaf_picture_alloc (the caller owns it: tvmaf_read_pictures takes it, or
 * tvmaf_picture_unref frees it). Returns 1 for a picture, 0 at the end of the
 * input, negative errno with a message for a truncated frame, a malformed Y4M
 * frame header or a decoding error; on 0 or an error *pic owns nothing.
 * Samples are passed as stored (a 10-bit file may hold values above 1023).
 */
int tvmaf_reader_read(TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len);

/* Passes over n pictures (reading them where the input cannot seek). Returns
 * 1 when all n were passed over (also for n = 0), 0 when the input ended
 * first, negative errno as tvmaf_reader_read. */
int tvmaf_reader_skip(TvmafReader *r, unsigned n, char *msg, size_t msg_len);

/* Whole pictures left in a raw YUV regular file, counted from its size
 * without reading; -1 for every other input. */
int64_t tvmaf_reader_frames_left(TvmafReader *r);

/* Reads fill the luma plane only (the chroma planes then hold unspecified
 * samples), for a caller whose features read luma only. */
void tvmaf_reader_set_luma_only(TvmafReader *r, int luma_only);

/* The first picture found with a sample above the format's depth (pictures 0,
 * 16, 32, ... are checked), or UINT64_MAX while none is: an 8-bit file read
 * as 10 bits shows here. Callable from any thread while reading goes on. */
uint64_t tvmaf_reader_above_depth_frame(const TvmafReader *r);

/* Closes the input (never stdin) and frees the reader; NULL is a no-op. */
void tvmaf_reader_close(TvmafReader *r);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
