/*
 * Video input: raw planar YUV and YUV4MPEG2 (Y4M), from files or stdin.
 *
 * The reader reads forwards only (it seeks only to pass over chroma a caller
 * does not want, on regular files), so pipes and stdin work like files. Every function
 * that can fail writes one complete, human readable sentence into `msg`
 * (when msg is non-NULL and msg_len > 0) naming the input, and sets msg to ""
 * when it succeeds.
 */
#ifndef TVMAF_IO_VIDEO_READER_H
#define TVMAF_IO_VIDEO_READER_H

#include <stddef.h>
#include <stdint.h>

#include "tvmaf/tvmaf.h"

typedef struct TvmafVideoReader TvmafVideoReader;

typedef struct TvmafVideoFormat {
    enum TvmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
} TvmafVideoFormat;

/*
 * path "-" = stdin. If the stream starts with "YUV4MPEG2 " it is read as Y4M
 * (raw may then be NULL, and when raw is non-NULL its fields are ignored);
 * otherwise it is raw planar YUV and `raw` must give format, depth (8, 10, 12,
 * 16 only) and size (> 0), else -EINVAL with a message. Files that cannot be
 * opened, directories, empty input: negative errno + message naming the path.
 * (Empty input is refused here only when raw is NULL, because its format is
 * then unknown; with a raw format it opens and the first read returns 0.)
 */
int tvmaf_reader_open(TvmafVideoReader **r, const char *path,
                      const TvmafVideoFormat *raw, char *msg, size_t msg_len);

/*
 * tvmaf_reader_open with a limit on the memory of one frame: max_frame_bytes
 * (0 = no limit) bounds a frame of the input's claimed geometry in planar
 * form, w * h * (bpc > 8 ? 2 : 1) * (1.5 for 4:2:0, 2 for 4:2:2, 3 for 4:4:4,
 * 1 for 4:0:0), chroma planes rounded up as tvmaf_picture_alloc rounds them.
 * An input whose frames are larger is refused here, before any picture is
 * allocated, with -ENOMEM and a message naming the size, the bytes and that
 * --max-memory sets the limit: raw and Y4M input from the given format or
 * the header; encoded input from the size and pixel format its container or
 * FFmpeg's probe tells, with FFmpeg's decoders kept from allocating pictures
 * beyond the limit (io/ffmpeg_reader.h), and from its first decoded frame.
 * An encoded input's later frame over the limit fails tvmaf_reader_read the
 * same way, and tvmaf_reader_set_scale refuses a size over it.
 */
int tvmaf_reader_open_limited(TvmafVideoReader **r, const char *path,
                              const TvmafVideoFormat *raw, uint64_t max_frame_bytes,
                              char *msg, size_t msg_len);

const TvmafVideoFormat *tvmaf_reader_format(const TvmafVideoReader *r);

int tvmaf_reader_is_y4m(const TvmafVideoReader *r);

/*
 * What kind of encoded file `path` is, told from its first bytes ("Matroska
 * or WebM", "MP4 or QuickTime", ...) or else from an extension encoders give
 * their streams (.ts, .264, .obu, ...: "by its extension"), or NULL: not a
 * regular file, unreadable, or none known here (raw YUV has no signature, so
 * NULL is no proof of raw). Reads at most 16 bytes and never a pipe; for
 * messages only (the hint that -w/-h/-p/-b describe raw YUV).
 */
const char *tvmaf_reader_sniff_encoded(const char *path);

/*
 * Encoded input: a file (or stdin) that is not Y4M, opened without a raw
 * format, is decoded through FFmpeg's libraries where the build has them
 * (io/ffmpeg_reader.h says which frames come out). is_encoded says whether
 * this input is read so; frame_rate gives its stream's frame rate (0/0 when
 * unknown or not encoded); set_scale, before the first read, scales every
 * picture to w x h with the named swscale filter (-ENOTSUP for raw and Y4M
 * input, -EINVAL for an unknown filter) and updates tvmaf_reader_format().
 */
int tvmaf_reader_is_encoded(const TvmafVideoReader *r);
void tvmaf_reader_frame_rate(const TvmafVideoReader *r, int *num, int *den);
int tvmaf_reader_set_scale(TvmafVideoReader *r, unsigned w, unsigned h, const char *filter,
                           char *msg, size_t msg_len);

/*
 * With luma_only set, reads fill only the luma plane of each picture: the
 * chroma bytes are passed over (a regular file seeks over them, a pipe reads
 * and discards them) and the chroma planes hold unspecified samples. A frame
 * whose chroma is cut short is still reported as truncated. For callers whose
 * features read luma only (tvmaf_luma_only()).
 */
void tvmaf_reader_set_luma_only(TvmafVideoReader *r, int luma_only);

/*
 * Reads the next frame into *pic, which the reader allocates with
 * tvmaf_picture_alloc (caller owns it, frees with tvmaf_picture_unref).
 * Returns 1 for a frame, 0 at a clean end of stream (no bytes left), negative
 * errno (-EIO) with a message when the stream ends inside a frame (truncated)
 * or a Y4M FRAME header is malformed. On 0 or an error *pic is zeroed and owns
 * nothing. Samples are passed through as stored: a 10-bit file may hold values
 * above 1023 and the reader does not clip them.
 */
int tvmaf_reader_read(TvmafVideoReader *r, TvmafPicture *pic,
                      char *msg, size_t msg_len);

/*
 * The first frame found to hold a sample above the declared bit depth (a
 * 10-bit input with values over 1023, e.g. an 8-bit file read with -b 10),
 * or UINT64_MAX while none is. Frame 0 and every 16th frame after it are
 * checked, on the planes read (luma only with luma_only); the samples are
 * passed on unchanged. May be called from any thread while reading goes on.
 */
uint64_t tvmaf_reader_above_depth_frame(const TvmafVideoReader *r);

/* Skips n frames (reads and discards; works on pipes). Same return
 * convention, 1 = all skipped (also for n == 0). */
int tvmaf_reader_skip(TvmafVideoReader *r, unsigned n,
                      char *msg, size_t msg_len);

/*
 * Random access for raw YUV in a regular file (frames of a fixed size): from
 * the frame the reader would read next on, frame k (0 = that frame) can be
 * read by any thread at any time with tvmaf_reader_read_at, which
 * returns as tvmaf_reader_read does (0 past the last frame, -EIO with the
 * truncation message for a partial last frame) and honours luma_only.
 * begin returns 1 when the input allows it (else use tvmaf_reader_read);
 * the sequential functions must not be used afterwards.
 */
int tvmaf_reader_begin_random_access(TvmafVideoReader *r);
int tvmaf_reader_read_at(TvmafVideoReader *r, uint64_t k, TvmafPicture *pic, char *msg,
                         size_t msg_len);

/* Whole frames left to read in a raw YUV regular file (from the frame the
 * reader would read next on), without reading them; -1 for Y4M, encoded
 * input, a pipe, or a file whose size is not a whole number of frames
 * (reading it reports the truncation). */
int64_t tvmaf_reader_frames_left(TvmafVideoReader *r);

/* Closes the file (never stdin) and frees the reader; NULL is a no-op. */
void tvmaf_reader_close(TvmafVideoReader *r);

#endif
