/*
 * A build without FFmpeg: encoded input is refused (raw YUV and Y4M are read
 * by video_reader.c as always).
 */
#include <errno.h>
#include <stdio.h>

#include "io/ffmpeg_reader.h"

int tvmaf_ff_available(void) { return 0; }

int tvmaf_ff_open(TvmafFfReader **r, const char *path, FILE *f, const unsigned char *pend,
                  size_t pend_len, const char *name, uint64_t max_frame_bytes,
                  TvmafVideoFormat *fmt, char *msg, size_t msg_len)
{
    (void)path; (void)f; (void)pend; (void)pend_len; (void)max_frame_bytes; (void)fmt;
    *r = NULL;
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s is not a Y4M stream (no \"YUV4MPEG2 \" header), and raw YUV "
                 "input needs a pixel format, bit depth, width and height (this build reads no "
                 "encoded video: it was built without FFmpeg's libraries).", name);
    return -EINVAL;
}

void tvmaf_ff_frame_rate(const TvmafFfReader *r, int *num, int *den)
{
    (void)r;
    *num = *den = 0;
}

int tvmaf_ff_set_scale(TvmafFfReader *r, unsigned w, unsigned h, const char *filter,
                       TvmafVideoFormat *fmt, char *msg, size_t msg_len)
{
    (void)r; (void)w; (void)h; (void)filter; (void)fmt;
    if (msg && msg_len) snprintf(msg, msg_len, "Scaling needs FFmpeg's libraries, which this build lacks.");
    return -ENOTSUP;
}

const char *tvmaf_ff_scale_filters(void) { return ""; }

int tvmaf_ff_read(TvmafFfReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    (void)r; (void)pic; (void)msg; (void)msg_len;
    return -ENOTSUP;
}

void tvmaf_ff_close(TvmafFfReader *r) { (void)r; }
