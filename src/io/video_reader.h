/*
 * The reader's extras for the tvmaf CLI and the library's own read-ahead,
 * beside its public interface (tvmaf/reader.h): not exported.
 */
#ifndef TVMAF_IO_VIDEO_READER_H
#define TVMAF_IO_VIDEO_READER_H

#include <stddef.h>
#include <stdint.h>

#include "tvmaf/reader.h"

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
 * Random access for raw YUV in a regular file (frames of a fixed size): from
 * the frame the reader would read next on, frame k (0 = that frame) can be
 * read by any thread at any time with tvmaf_reader_read_at, which returns as
 * tvmaf_reader_read does (0 past the last frame, -EIO with the truncation
 * message for a partial last frame) and honours luma_only. begin returns 1
 * when the input allows it (else use tvmaf_reader_read); the sequential
 * functions must not be used afterwards.
 */
int tvmaf_reader_begin_random_access(TvmafReader *r);
int tvmaf_reader_read_at(TvmafReader *r, uint64_t k, TvmafPicture *pic, char *msg,
                         size_t msg_len);

#endif
