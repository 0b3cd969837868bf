/*
 * Encoded video input through FFmpeg's libraries (libavformat, libavcodec,
 * libswscale): any container and codec this FFmpeg decodes.
 *
 * The pictures are the frames `ffmpeg -i FILE -f rawvideo out.yuv` writes,
 * sample for sample: the decoder chosen as ffmpeg chooses it
 * (avcodec_find_decoder of the stream's codec), the decoder's own pixel format
 * (ffmpeg's default for rawvideo output), every decoded frame once, in output
 * order. That is `-vsync passthrough`; ffmpeg's default for rawvideo output
 * (constant frame rate) is the same for a constant-frame-rate stream, and
 * duplicates or drops frames only where the timestamps leave gaps (a
 * variable-frame-rate stream), which tvmaf does not imitate.
 * Planar YUV and gray at 8, 10, 12 or 16 bits are copied as decoded (other
 * depths are refused, as for raw input and in libvmaf); the same
 * subsampling stored otherwise (semi-planar nv12/p010, packed yuyv, big-endian)
 * is rearranged by swscale without any change of value into the planar layout
 * ffmpeg writes with `-pix_fmt yuvNNNp[DEPTH]le` (full-range yuvj formats
 * are copied as their yuv twins: the same bytes). RGB, alpha, palette and
 * 4:1:1/4:4:0 layouts are refused with a message.
 *
 * Optionally every picture is scaled to another size (tvmaf_ff_set_scale),
 * as `ffmpeg -i FILE -vf scale=W:H:flags=FILTER -f rawvideo` scales it.
 *
 * Built only with FFmpeg (meson -Dffmpeg=auto|enabled); tvmaf_ff_available()
 * says whether this build has it, and without it tvmaf_ff_open refuses.
 */
#ifndef TVMAF_IO_FFMPEG_READER_H
#define TVMAF_IO_FFMPEG_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io/video_reader.h"

typedef struct TvmafFfReader TvmafFfReader;

int tvmaf_ff_available(void);

/* Opens `path`; or, when f is non-NULL, reads the stream from f (stdin) after
 * the `pend_len` bytes of `pend` already read from it. Decodes the first frame
 * to learn the format: *fmt is the pictures' format. Negative errno and a
 * message naming `name` on failure.
 * max_frame_bytes (0: none) limits one frame in planar form (as
 * tvmaf_reader_open_limited): a stream whose frames are larger is refused
 * with -ENOMEM and a message naming their size, before its first frame is
 * decoded when the container or FFmpeg's probe tells the size, and FFmpeg's
 * decoders are kept from allocating pictures beyond it (their max_pixels,
 * and a get_buffer2 that refuses a picture over the limit). A later frame
 * over the limit fails tvmaf_ff_read the same way; tvmaf_ff_set_scale
 * refuses a size over it. */
int tvmaf_ff_open(TvmafFfReader **r, const char *path, FILE *f, const unsigned char *pend,
                  size_t pend_len, const char *name, uint64_t max_frame_bytes,
                  TvmafVideoFormat *fmt, char *msg, size_t msg_len);

/* The stream's frame rate (avg_frame_rate, else r_frame_rate) as num/den;
 * 0/0 when the container does not say. */
void tvmaf_ff_frame_rate(const TvmafFfReader *r, int *num, int *den);

/* From the next picture on, scale every picture to w x h with swscale's
 * filter `filter` (a name of tvmaf_ff_scale_filters(), e.g. "bicubic").
 * Updates *fmt. -EINVAL with a message for an unknown filter. */
int tvmaf_ff_set_scale(TvmafFfReader *r, unsigned w, unsigned h, const char *filter,
                       TvmafVideoFormat *fmt, char *msg, size_t msg_len);

/* The filter names tvmaf_ff_set_scale accepts, separated by '|'. */
const char *tvmaf_ff_scale_filters(void);

/* As tvmaf_reader_read: 1 = a picture (caller owns), 0 = end, <0 error. */
int tvmaf_ff_read(TvmafFfReader *r, TvmafPicture *pic, char *msg, size_t msg_len);

void tvmaf_ff_close(TvmafFfReader *r);

#endif
