/*
 * The ffmpeg module of a build without FFmpeg's libraries: it claims what
 * the real one claims (an input that is not Y4M, opened without a raw
 * geometry) and refuses it, saying the build reads no encoded video:
 * -ENOTSUP where the first bytes are a known container's signature, else
 * -EINVAL (most often raw YUV given without its geometry).
 */
#include <errno.h>

#include "io/input.h"

static int absent_probe(const unsigned char *first, size_t n, const TvmafReaderConfig *cfg)
{
    (void)first;
    return n > 0 && !tvmaf_config_has_raw(cfg);
}

static int absent_open(TvmafReader *r, const char *path, const TvmafReaderConfig *cfg, char *msg,
                       size_t msg_len)
{
    (void)path;
    (void)cfg;
    size_t n;
    const unsigned char *first = tvmaf_stream_ahead(&r->stream, &n);
    tvmaf_io_msg(msg, msg_len, "%s is not a Y4M stream (no \"YUV4MPEG2 \" header), and raw YUV "
                 "input needs a pixel format, bit depth, width and height (this build reads no "
                 "encoded video: it was built without FFmpeg's libraries).", r->name);
    return tvmaf_encoded_signature(first, n) ? -ENOTSUP : -EINVAL;
}

const TvmafInput tvmaf_input_ffmpeg = {
    .kind = "ffmpeg",
    .probe = absent_probe,
    .open = absent_open,
    .scale_filters = "",
};
