/*
 * Reading ahead on a thread of its own: a TvmafReader drained into a
 * small bounded queue of pictures, so that the reference and the distorted
 * input are read at the same time, and while frames are being scored.
 * Results come out in order with the reader's return convention.
 */
#ifndef TVMAF_IO_PREFETCH_H
#define TVMAF_IO_PREFETCH_H

#include <stddef.h>

#include "io/video_reader.h"

typedef struct TvmafPrefetch TvmafPrefetch;

/*
 * Starts reading `r` ahead, at most `depth` frames ahead of the consumer and
 * at most `max_frames` frames in all (0: until the end). The reader belongs
 * to the prefetcher until tvmaf_prefetch_stop(). Returns 0 or a negative
 * errno (then nothing runs).
 */
int tvmaf_prefetch_start(TvmafPrefetch **p, TvmafReader *r, unsigned depth,
                         unsigned max_frames);
/* The next result, as tvmaf_reader_read() would return it: 1 with a picture
 * the caller owns, 0 at the end (also after max_frames), or a negative errno
 * with the reader's message; after 0 or an error it keeps returning it. */
int tvmaf_prefetch_next(TvmafPrefetch *p, TvmafPicture *pic, char *msg, size_t msg_len);
/* Stops the thread and frees the pictures not taken; NULL is a no-op. */
void tvmaf_prefetch_stop(TvmafPrefetch *p);

#endif
