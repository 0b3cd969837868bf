/*
 * The reader's extras for the tvmaf CLI and the library's own read-ahead,
 * beside its public interface (tvmaf/reader.h): not exported.
 */
#ifndef TVMAF_IO_VIDEO_READER_H
#define TVMAF_IO_VIDEO_READER_H

#include <stdbool.h>
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
/*
 * Before begin: raw frames that lie in the file as a picture lays out its
 * planes (rows of a multiple of 64 bytes, 64-byte aligned frames) are then
 * handed out in a read-only mapping of the file, with no copy. A file
 * truncated while such a picture is scored raises SIGBUS in the thread
 * reading it: only a caller that handles it (the CLI) turns this on.
 */
void tvmaf_reader_set_mapping(TvmafReader *r, int on);
/* Whether addr lies in a mapped input (one of its pictures' planes). */
bool tvmaf_reader_mapped(const void *addr);
/*
 * Installs the SIGBUS handler for mapped inputs: a fault in one of them (the
 * file was truncated) calls cleanup (when non-NULL; it must be safe in a
 * signal handler), says which input on stderr and ends the process with
 * status 1; any other SIGBUS keeps its default action. 0 or -errno.
 */
int tvmaf_reader_catch_truncation(void (*cleanup)(void));
int tvmaf_reader_read_at(TvmafReader *r, uint64_t k, TvmafPicture *pic, char *msg,
                         size_t msg_len);

#endif
