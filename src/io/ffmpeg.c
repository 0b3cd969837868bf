/*
 * The ffmpeg module: encoded video through FFmpeg's libraries (libavformat,
 * libavcodec, libswscale), any container and codec this FFmpeg decodes.
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
 * 4:1:1/4:4:0 layouts are refused with a message. Optionally every picture
 * is scaled to another size (set_scale), as `ffmpeg -i FILE -vf
 * scale=W:H:flags=FILTER -f rawvideo` scales it.
 *
 * A regular file named by its path is opened by FFmpeg by that path; stdin
 * and pipes are read through the reader's byte stream (io/stream.h), whose
 * first bytes were staged to recognise the input.
 *
 * Decoding follows what the ffmpeg tool does for `ffmpeg -i FILE -f rawvideo`:
 * the best video stream (av_find_best_stream), the default decoder for its
 * codec, packets of that stream sent in file order, every frame the decoder
 * returns (then a drain at the end). The first frame is decoded at open time
 * to learn the format; a later frame of another size or format is an error.
 *
 * A limit on the bytes of one frame (the reader's max_frame_bytes) is
 * applied before anything the size of a frame is allocated: FFmpeg's
 * decoders, the probing ones of avformat_find_stream_info included, are given
 * max_pixels (max_pixels_of), so that none allocates a picture far beyond it
 * whatever a header claims; the stream's geometry and pixel format, once
 * known (codecpar), are checked against the limit before the first decode;
 * and our decoder's get_buffer2 refuses a picture over it exactly, with its
 * size and format. (av_max_alloc would cap every allocation of the process,
 * other readers' included, so it is not used.)
 *
 * FFmpeg's libraries are not linked: the first open loads them (io/ffmpeg_lib.h)
 * and every call goes through tvmaf_ff. Where they cannot be loaded, an
 * input this module claims is refused as a build without FFmpeg refuses it
 * (io/ffmpeg_absent.c), the message saying which library failed and why.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/ffmpeg_lib.h"
#include "io/input.h"

#define AVIO_BUFFER 65536
/* An input that is neither Y4M nor a video FFmpeg reads: most often raw YUV
 * given without its format. */
#define NOT_VIDEO "%s is not a Y4M stream (no \"YUV4MPEG2 \" header) nor a video FFmpeg can " \
    "read (%s), and raw YUV input needs a pixel format, bit depth, width and height."
/* The same where FFmpeg's libraries cannot be loaded (the absent module's
 * message, io/ffmpeg_absent.c, with the reason). */
#define NO_FFMPEG "%s is not a Y4M stream (no \"YUV4MPEG2 \" header), and raw YUV input needs " \
    "a pixel format, bit depth, width and height (encoded video is read through FFmpeg's " \
    "libraries, and tvmaf %s)."

typedef struct FfPriv {
    const char *name;      /* the reader's, for messages */
    uint64_t max_frame_bytes; /* 0: no limit */
    int64_t max_pixels;    /* given to the decoders (0: FFmpeg's default) */
    int geometry_known;    /* the stream's codecpar gave a size before decoding */
    /* the first picture our decoder was refused (get_buffer2), set once
     * from whichever decoding thread asks for it */
    int refused, refused_w, refused_h, refused_fmt;
    AVFormatContext *fmtc;
    AVCodecContext *dec;
    AVIOContext *avio;     /* our own, over the reader's stream (a pipe) */
    int stream;
    AVPacket *pkt;
    AVFrame *frame;
    int loaded;            /* FFmpeg's libraries are (tvmaf_ff); else nothing to close */
    int have_frame;        /* frame holds a decoded, unreturned picture */
    int draining, done;
    /* the decoded pictures' format and the one handed out */
    enum AVPixelFormat src_fmt, dst_fmt; /* dst: planar native-endian */
    int src_w, src_h;
    TvmafVideoFormat out;
    int scale_flags;       /* 0: no scaling */
    struct SwsContext *sws;
    AVFrame *conv;         /* swscale's output */
} FfPriv;

static const char *av_err(int err, char *buf, size_t len)
{
    tvmaf_ff.av_strerror(err, buf, len);
    return buf;
}

/*
 * Bytes of a w x h frame of format f in planar form, as tvmaf holds it: the
 * luma plane and, for a format with colour, two chroma planes at its
 * subsampling (RGB counts as 4:4:4; alpha, which tvmaf never keeps, is left
 * out), 2 bytes a sample above 8 bits. An unknown format counts as 8-bit
 * gray, the smallest frame of that size: a lower bound.
 */
static uint64_t planar_bytes(enum AVPixelFormat f, uint64_t w, uint64_t h)
{
    const AVPixFmtDescriptor *d = tvmaf_ff.av_pix_fmt_desc_get(f);
    if (!d) return w * h;
    const int colour = d->nb_components - ((d->flags & AV_PIX_FMT_FLAG_ALPHA) ? 1 : 0);
    uint64_t samples = w * h;
    if (colour > 1) {
        const unsigned cw = d->log2_chroma_w, ch = d->log2_chroma_h;
        samples += 2 * ((w + (1u << cw) - 1) >> cw) * ((h + (1u << ch) - 1) >> ch);
    }
    return samples * (d->comp[0].depth > 8 ? 2 : 1);
}

/*
 * The max_pixels given to FFmpeg's decoders under a limit of `max` bytes a
 * frame. Before a decoder knows its pixel format it can only count pixels,
 * and the smallest frame tvmaf reads, 8-bit gray, takes one byte a pixel: so
 * `max` pixels, plus room for the padding FFmpeg checks along with them (it
 * counts the width rounded up to 64: a quarter more, and 64 columns of 32768
 * rows for the narrowest frames). A picture of more pixels is refused by the
 * decoder itself (AVERROR(EINVAL)) before it is allocated; one within them
 * but over `max` in its own format is refused by limited_get_buffer.
 */
static int64_t max_pixels_of(uint64_t max)
{
    if (!max) return 0;
    const uint64_t px = max + max / 4 + ((uint64_t)64 << 15);
    return px < INT_MAX ? (int64_t)px : INT_MAX; /* FFmpeg's default is INT_MAX */
}

/* The message for a frame over the limit; returns -ENOMEM. */
static int over_limit(const FfPriv *r, int w, int h, enum AVPixelFormat f, char *msg,
                      size_t msg_len)
{
    const char *fname = tvmaf_ff.av_get_pix_fmt_name(f);
    const unsigned long long bytes = planar_bytes(f, (uint64_t)w, (uint64_t)h);
    if (fname)
        tvmaf_io_msg(msg, msg_len, "%s holds %dx%d %s frames, %llu bytes each in planar form: above "
                "the limit of %llu bytes on one frame (--max-memory sets it).", r->name, w, h,
                fname, bytes, (unsigned long long)r->max_frame_bytes);
    else
        tvmaf_io_msg(msg, msg_len, "%s holds %dx%d frames, at least %llu bytes each (as 8-bit gray): "
                "above the limit of %llu bytes on one frame (--max-memory sets it).", r->name, w,
                h, bytes, (unsigned long long)r->max_frame_bytes);
    return -ENOMEM;
}

/* Our decoder's get_buffer2 under a limit: a picture whose planar form is
 * over it is refused before it is allocated (the size and format kept for
 * the message); others are allocated as FFmpeg does. Called from the
 * decoder's threads, hence the atomics. */
static int limited_get_buffer(AVCodecContext *s, AVFrame *frame, int flags)
{
    FfPriv *r = s->opaque;
    if (r && r->max_frame_bytes && s->codec_type == AVMEDIA_TYPE_VIDEO) {
        /* the picture's size, not the coded one FFmpeg pads it to */
        const int w = s->width > 0 ? s->width : frame->width;
        const int h = s->height > 0 ? s->height : frame->height;
        if (w > 0 && h > 0 &&
            planar_bytes((enum AVPixelFormat)frame->format, (uint64_t)w, (uint64_t)h) >
                r->max_frame_bytes) {
            int none = 0;
            if (__atomic_compare_exchange_n(&r->refused, &none, -1, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                r->refused_w = w;
                r->refused_h = h;
                r->refused_fmt = frame->format;
                __atomic_store_n(&r->refused, 1, __ATOMIC_RELEASE);
            }
            return AVERROR(ENOMEM);
        }
    }
    return tvmaf_ff.avcodec_default_get_buffer2(s, frame, flags);
}

/* The message for a failed decode: the refused picture when there was one. */
static int decode_failed(FfPriv *r, int err, char *msg, size_t msg_len)
{
    char eb[128];
    if (__atomic_load_n(&r->refused, __ATOMIC_ACQUIRE) == 1)
        return over_limit(r, r->refused_w, r->refused_h, (enum AVPixelFormat)r->refused_fmt, msg,
                          msg_len);
    if (r->max_pixels && err == AVERROR(EINVAL))
        /* the decoder's own check (max_pixels) is the likeliest cause, but
         * FFmpeg does not say which check failed, nor the size it refused */
        tvmaf_io_msg(msg, msg_len, "Decoding %s failed (%s): under the limit of %llu bytes on one "
                "frame (--max-memory sets it), FFmpeg is told to decode no frame of more than "
                "%lld pixels, and its frames may be larger%s.", r->name,
                av_err(err, eb, sizeof(eb)), (unsigned long long)r->max_frame_bytes,
                (long long)r->max_pixels,
                r->geometry_known ? "" : " (their size is known only by decoding one)");
    else
        tvmaf_io_msg(msg, msg_len, "Decoding %s failed: %s.", r->name, av_err(err, eb, sizeof(eb)));
    return -EIO;
}

/* Planar native-endian YUV (or gray) of a subsampling and depth, or NONE. */
static enum AVPixelFormat planar_of(enum TvmafPixelFormat layout, unsigned depth)
{
    static const struct { enum TvmafPixelFormat l; unsigned d; enum AVPixelFormat f; } t[] = {
        { TVMAF_PIX_FMT_YUV420P, 8, AV_PIX_FMT_YUV420P },
        { TVMAF_PIX_FMT_YUV420P, 9, AV_PIX_FMT_YUV420P9 },
        { TVMAF_PIX_FMT_YUV420P, 10, AV_PIX_FMT_YUV420P10 },
        { TVMAF_PIX_FMT_YUV420P, 12, AV_PIX_FMT_YUV420P12 },
        { TVMAF_PIX_FMT_YUV420P, 14, AV_PIX_FMT_YUV420P14 },
        { TVMAF_PIX_FMT_YUV420P, 16, AV_PIX_FMT_YUV420P16 },
        { TVMAF_PIX_FMT_YUV422P, 8, AV_PIX_FMT_YUV422P },
        { TVMAF_PIX_FMT_YUV422P, 9, AV_PIX_FMT_YUV422P9 },
        { TVMAF_PIX_FMT_YUV422P, 10, AV_PIX_FMT_YUV422P10 },
        { TVMAF_PIX_FMT_YUV422P, 12, AV_PIX_FMT_YUV422P12 },
        { TVMAF_PIX_FMT_YUV422P, 14, AV_PIX_FMT_YUV422P14 },
        { TVMAF_PIX_FMT_YUV422P, 16, AV_PIX_FMT_YUV422P16 },
        { TVMAF_PIX_FMT_YUV444P, 8, AV_PIX_FMT_YUV444P },
        { TVMAF_PIX_FMT_YUV444P, 9, AV_PIX_FMT_YUV444P9 },
        { TVMAF_PIX_FMT_YUV444P, 10, AV_PIX_FMT_YUV444P10 },
        { TVMAF_PIX_FMT_YUV444P, 12, AV_PIX_FMT_YUV444P12 },
        { TVMAF_PIX_FMT_YUV444P, 14, AV_PIX_FMT_YUV444P14 },
        { TVMAF_PIX_FMT_YUV444P, 16, AV_PIX_FMT_YUV444P16 },
        { TVMAF_PIX_FMT_YUV400P, 8, AV_PIX_FMT_GRAY8 },
        { TVMAF_PIX_FMT_YUV400P, 9, AV_PIX_FMT_GRAY9 },
        { TVMAF_PIX_FMT_YUV400P, 10, AV_PIX_FMT_GRAY10 },
        { TVMAF_PIX_FMT_YUV400P, 12, AV_PIX_FMT_GRAY12 },
        { TVMAF_PIX_FMT_YUV400P, 14, AV_PIX_FMT_GRAY14 },
        { TVMAF_PIX_FMT_YUV400P, 16, AV_PIX_FMT_GRAY16 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (t[i].l == layout && t[i].d == depth) return t[i].f;
    return AV_PIX_FMT_NONE;
}

/* The full-range yuvj formats hold the same bytes as their yuv twins. */
static enum AVPixelFormat unj(enum AVPixelFormat f)
{
    switch (f) {
    case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P;
    default: return f;
    }
}

/* The planar layout of a decoded format; -EINVAL with a message if none. */
static int layout_of(FfPriv *r, enum AVPixelFormat f, TvmafVideoFormat *out, char *msg,
                     size_t msg_len)
{
    const AVPixFmtDescriptor *d = tvmaf_ff.av_pix_fmt_desc_get(f);
    const char *name = d ? d->name : "unknown";
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                           AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_FLOAT |
                           AV_PIX_FMT_FLAG_ALPHA)) ||
        (d->nb_components != 1 && d->nb_components != 3)) {
        tvmaf_io_msg(msg, msg_len, "%s decodes to pixel format %s, which is not YUV or gray without "
                "alpha; convert it first (e.g. ffmpeg -i IN -pix_fmt yuv420p OUT.mkv), or, if it "
                "is raw YUV, give its format (-w, -h, -p, -b).", r->name, name);
        return -EINVAL;
    }
    const unsigned depth = d->comp[0].depth;
    for (int i = 1; i < d->nb_components; i++) {
        if (d->comp[i].depth != (int)depth) {
            tvmaf_io_msg(msg, msg_len, "%s decodes to pixel format %s, whose planes differ in depth.",
                    r->name, name);
            return -EINVAL;
        }
    }
    enum TvmafPixelFormat layout = TVMAF_PIX_FMT_UNKNOWN;
    if (d->nb_components == 1) layout = TVMAF_PIX_FMT_YUV400P;
    else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1) layout = TVMAF_PIX_FMT_YUV420P;
    else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0) layout = TVMAF_PIX_FMT_YUV422P;
    else if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0) layout = TVMAF_PIX_FMT_YUV444P;
    if (!layout || depth < 8 || depth > 16 || planar_of(layout, depth) == AV_PIX_FMT_NONE) {
        tvmaf_io_msg(msg, msg_len, "%s decodes to pixel format %s, which has no planar 4:2:0, 4:2:2, "
                "4:4:4 or 4:0:0 form of 8 to 16 bits here; convert it first (e.g. ffmpeg -i IN "
                "-pix_fmt yuv420p OUT.mkv).", r->name, name);
        return -EINVAL;
    }
    if (depth != 8 && depth != 10 && depth != 12 && depth != 16) {
        /* as for raw input and libvmaf: the features are defined at these depths */
        tvmaf_io_msg(msg, msg_len, "%s decodes to pixel format %s (%u-bit); tvmaf scores 8, 10, 12 or "
                "16 bits, as libvmaf: convert it first (e.g. ffmpeg -i IN -pix_fmt %s OUT.mkv).",
                r->name, name, depth,
                tvmaf_ff.av_get_pix_fmt_name(planar_of(layout, depth < 10 ? 10 :
                                                               depth < 12 ? 12 : 16)));
        return -EINVAL;
    }
    out->pix_fmt = layout;
    out->bpc = depth;
    return 0;
}

/* avio's reads of a pipe: the reader's byte stream (its staged first bytes,
 * then the FILE). */
static int stream_read(void *opaque, uint8_t *buf, int size)
{
    TvmafStream *st = opaque;
    const size_t n = tvmaf_stream_read(st, buf, (size_t)size);
    if (n == 0) return ferror(st->f) ? AVERROR(EIO) : AVERROR_EOF;
    return (int)n;
}

/* Decodes the next frame into r->frame: 1, 0 at the end, <0 error. */
static int decode_next(FfPriv *r, char *msg, size_t msg_len)
{
    char eb[128];
    for (;;) {
        int err = tvmaf_ff.avcodec_receive_frame(r->dec, r->frame);
        if (err >= 0) return 1;
        if (err == AVERROR_EOF) { r->done = 1; return 0; }
        if (err != AVERROR(EAGAIN)) return decode_failed(r, err, msg, msg_len);
        if (r->draining) { r->done = 1; return 0; }
        err = tvmaf_ff.av_read_frame(r->fmtc, r->pkt);
        if (err == AVERROR_EOF) {
            r->draining = 1;
            err = tvmaf_ff.avcodec_send_packet(r->dec, NULL);
        } else if (err < 0) {
            tvmaf_io_msg(msg, msg_len, "Reading %s failed: %s.", r->name, av_err(err, eb, sizeof(eb)));
            return -EIO;
        } else {
            if (r->pkt->stream_index != r->stream) {
                tvmaf_ff.av_packet_unref(r->pkt);
                continue;
            }
            err = tvmaf_ff.avcodec_send_packet(r->dec, r->pkt);
            tvmaf_ff.av_packet_unref(r->pkt);
        }
        if (err < 0 && err != AVERROR(EAGAIN) && err != AVERROR_EOF)
            return decode_failed(r, err, msg, msg_len);
    }
}

/* Any input not claimed as Y4M when no geometry is given: FFmpeg's own
 * probing tells a video from anything else. */
static int ff_probe(const unsigned char *first, size_t n, const TvmafReaderConfig *cfg)
{
    (void)first;
    return n > 0 && !tvmaf_config_has_raw(cfg);
}

/* The stream's frame rate (avg_frame_rate, else r_frame_rate) reduced, or
 * 0/0 when the container does not say. */
static void stream_rate(const AVStream *st, int *num, int *den)
{
    AVRational q = st->avg_frame_rate.num && st->avg_frame_rate.den ? st->avg_frame_rate
                                                                     : st->r_frame_rate;
    if (!q.num || !q.den) q = (AVRational){ 0, 0 };
    else tvmaf_ff.av_reduce(&q.num, &q.den, q.num, q.den, INT32_MAX);
    *num = q.num;
    *den = q.den;
}

/* Gives FFmpeg the input: a regular file named by its path by that path
 * (the reader's FILE is then closed), stdin and pipes through avio over the
 * reader's stream (their first bytes are staged there already). */
static int open_container(TvmafReader *rd, FfPriv *r, const char *path, char *msg,
                          size_t msg_len)
{
    char eb[128];
    int err;
    if (rd->stream.seekable && rd->stream.owns_file) {
        tvmaf_stream_close(&rd->stream);
    } else {
        unsigned char *buf = tvmaf_ff.av_malloc(AVIO_BUFFER);
        if (!buf || !(r->avio = tvmaf_ff.avio_alloc_context(buf, AVIO_BUFFER, 0, &rd->stream,
                                                            stream_read, NULL, NULL)) ||
            !(r->fmtc = tvmaf_ff.avformat_alloc_context())) {
            if (!r->avio) tvmaf_ff.av_free(buf);
            tvmaf_io_msg(msg, msg_len, "Out of memory opening %s.", r->name);
            return -ENOMEM;
        }
        r->fmtc->pb = r->avio;
        r->fmtc->flags |= AVFMT_FLAG_CUSTOM_IO;
        path = "";
    }
    if ((err = tvmaf_ff.avformat_open_input(&r->fmtc, path, NULL, NULL)) < 0) {
        r->fmtc = NULL; /* freed by the failed open */
        tvmaf_io_msg(msg, msg_len, NOT_VIDEO, r->name, av_err(err, eb, sizeof(eb)));
        return -EINVAL;
    }
    /* Probing may decode a frame (a PNG's only one, for its size and pixel
     * format): under a limit its decoders get max_pixels too. A stream that
     * turns up only while probing (a format without a header, e.g. FLV) is
     * probed with FFmpeg's defaults, as avformat_find_stream_info gives
     * options only to the streams already known; the checks in ff_open
     * still come before our own decoding. */
    AVDictionary **probe_opts = NULL;
    const unsigned n_probe = r->fmtc->nb_streams;
    if (r->max_pixels && n_probe) {
        if (!(probe_opts = tvmaf_ff.av_calloc(n_probe, sizeof(*probe_opts)))) {
            tvmaf_io_msg(msg, msg_len, "Out of memory opening %s.", r->name);
            return -ENOMEM;
        }
        for (unsigned i = 0; i < n_probe; i++)
            tvmaf_ff.av_dict_set_int(&probe_opts[i], "max_pixels", r->max_pixels, 0);
    }
    err = tvmaf_ff.avformat_find_stream_info(r->fmtc, probe_opts);
    for (unsigned i = 0; probe_opts && i < n_probe; i++) tvmaf_ff.av_dict_free(&probe_opts[i]);
    tvmaf_ff.av_freep(&probe_opts);
    if (err < 0) {
        tvmaf_io_msg(msg, msg_len, NOT_VIDEO, r->name, av_err(err, eb, sizeof(eb)));
        return -EINVAL;
    }
    return 0;
}

static int ff_open(TvmafReader *rd, const char *path, const TvmafReaderConfig *cfg, char *msg,
                   size_t msg_len)
{
    (void)cfg;
    FfPriv *r = rd->priv;
    const char *name = rd->name;
    const uint64_t max_frame_bytes = rd->max_frame_bytes;
    char eb[128];
    int err;
    r->name = name;
    r->max_frame_bytes = max_frame_bytes;
    r->max_pixels = max_pixels_of(max_frame_bytes);
    if (tvmaf_ff_load()) {
        size_t n;
        const unsigned char *first = tvmaf_stream_ahead(&rd->stream, &n);
        tvmaf_io_msg(msg, msg_len, NO_FFMPEG, name, tvmaf_ff_error());
        return tvmaf_encoded_signature(first, n) ? -ENOTSUP : -EINVAL;
    }
    r->loaded = 1;
    tvmaf_ff.av_log_set_level(AV_LOG_QUIET); /* failures are told in our own one-line messages */
    if ((err = open_container(rd, r, path, msg, msg_len))) return err;
    const AVCodec *codec = NULL;
    r->stream = tvmaf_ff.av_find_best_stream(r->fmtc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (r->stream < 0 || !codec) {
        if (r->stream == AVERROR_DECODER_NOT_FOUND)
            tvmaf_io_msg(msg, msg_len, "%s: this FFmpeg has no decoder for its video stream.",
                         name);
        else
            tvmaf_io_msg(msg, msg_len, NOT_VIDEO, name, "no video stream");
        return -EINVAL;
    }
    for (unsigned i = 0; i < r->fmtc->nb_streams; i++)
        if ((int)i != r->stream) r->fmtc->streams[i]->discard = AVDISCARD_ALL;
    AVStream *st = r->fmtc->streams[r->stream];
    /* the size the container or the probe found, before anything is decoded
     * (an unknown pixel format counts as 8-bit gray, the least it can be) */
    const AVCodecParameters *par = st->codecpar;
    r->geometry_known = par->width > 0 && par->height > 0;
    if (max_frame_bytes && r->geometry_known &&
        planar_bytes((enum AVPixelFormat)par->format, (uint64_t)par->width,
                     (uint64_t)par->height) > max_frame_bytes)
        return over_limit(r, par->width, par->height, (enum AVPixelFormat)par->format, msg,
                          msg_len);
    if (!(r->dec = tvmaf_ff.avcodec_alloc_context3(codec)) ||
        !(r->pkt = tvmaf_ff.av_packet_alloc()) || !(r->frame = tvmaf_ff.av_frame_alloc())) {
        tvmaf_io_msg(msg, msg_len, "Out of memory opening %s.", name);
        return -ENOMEM;
    }
    if ((err = tvmaf_ff.avcodec_parameters_to_context(r->dec, st->codecpar)) < 0) goto dec_fail;
    r->dec->pkt_timebase = st->time_base;
    r->dec->thread_count = 0; /* as many as the decoder likes; the frames are the same */
    if (max_frame_bytes) {
        r->dec->max_pixels = r->max_pixels;
        r->dec->opaque = r;
        r->dec->get_buffer2 = limited_get_buffer;
    }
    if ((err = tvmaf_ff.avcodec_open2(r->dec, codec, NULL)) < 0) goto dec_fail;

    if ((err = decode_next(r, msg, msg_len)) <= 0) {
        if (!err) tvmaf_io_msg(msg, msg_len, "%s holds no frame.", name);
        return err ? err : -EINVAL;
    }
    r->have_frame = 1;
    r->src_fmt = (enum AVPixelFormat)r->frame->format;
    r->src_w = r->frame->width;
    r->src_h = r->frame->height;
    /* a decoder that allocates its pictures itself is checked here, after
     * its first one */
    if (max_frame_bytes &&
        planar_bytes(r->src_fmt, (uint64_t)r->src_w, (uint64_t)r->src_h) > max_frame_bytes)
        return over_limit(r, r->src_w, r->src_h, r->src_fmt, msg, msg_len);
    if ((err = layout_of(r, r->src_fmt, &r->out, msg, msg_len))) return err;
    r->out.w = (unsigned)r->src_w;
    r->out.h = (unsigned)r->src_h;
    r->dst_fmt = planar_of(r->out.pix_fmt, r->out.bpc);
    rd->fmt = r->out;
    stream_rate(st, &rd->rate_num, &rd->rate_den);
    return 0;

dec_fail:
    tvmaf_io_msg(msg, msg_len, "Cannot open the %s decoder for %s: %s.", codec->name, name,
                 av_err(err, eb, sizeof(eb)));
    return -EINVAL;
}

static const struct { const char *name; int flags; } filters[] = {
    { "bicubic", SWS_BICUBIC },
    { "bilinear", SWS_BILINEAR },
    { "fast_bilinear", SWS_FAST_BILINEAR },
    { "neighbor", SWS_POINT },
    { "area", SWS_AREA },
    { "bicublin", SWS_BICUBLIN },
    { "gauss", SWS_GAUSS },
    { "sinc", SWS_SINC },
    { "lanczos", SWS_LANCZOS },
    { "spline", SWS_SPLINE },
    { "experimental", SWS_X },
};
#define FILTER_NAMES "bicubic|bilinear|fast_bilinear|neighbor|area|bicublin|gauss|sinc|" \
                     "lanczos|spline|experimental"

static int ff_set_scale(TvmafReader *rd, unsigned w, unsigned h, const char *filter, char *msg,
                        size_t msg_len)
{
    FfPriv *r = rd->priv;
    int flags = 0;
    for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
        if (!strcmp(filters[i].name, filter)) flags = filters[i].flags;
    if (!flags) {
        tvmaf_io_msg(msg, msg_len, "Unknown scaling filter \"%s\" (%s).", filter, FILTER_NAMES);
        return -EINVAL;
    }
    if (!w || !h || w > 32768 || h > 32768) {
        tvmaf_io_msg(msg, msg_len, "Cannot scale %s to %ux%u.", r->name, w, h);
        return -EINVAL;
    }
    const uint64_t bytes = planar_bytes(r->dst_fmt, w, h);
    if (r->max_frame_bytes && bytes > r->max_frame_bytes) {
        tvmaf_io_msg(msg, msg_len, "Cannot scale %s to %ux%u: a %ux%u %s frame takes %llu bytes, "
                     "above the limit of %llu bytes on one frame (--max-memory sets it).", r->name,
                     w, h, w, h, tvmaf_ff.av_get_pix_fmt_name(r->dst_fmt),
                     (unsigned long long)bytes, (unsigned long long)r->max_frame_bytes);
        return -ENOMEM;
    }
    r->scale_flags = flags;
    r->out.w = w;
    r->out.h = h;
    if (r->sws) {
        tvmaf_ff.sws_freeContext(r->sws);
        r->sws = NULL;
    }
    rd->fmt = r->out;
    return 0;
}

/* Converts (rearranges or scales) r->frame into r->conv with swscale. */
static int convert(FfPriv *r, char *msg, size_t msg_len)
{
    if (!r->sws) {
        const int src = unj(r->src_fmt);
        /* equal ranges on both sides: no range conversion, values kept */
        r->sws = tvmaf_ff.sws_getContext(r->src_w, r->src_h, src, (int)r->out.w, (int)r->out.h,
                                r->dst_fmt, r->scale_flags ? r->scale_flags : SWS_POINT,
                                NULL, NULL, NULL);
        if (!r->sws) {
            tvmaf_io_msg(msg, msg_len, "swscale cannot convert %s (%s, %dx%d) to %s %ux%u.",
                         r->name, tvmaf_ff.av_get_pix_fmt_name(r->src_fmt), r->src_w, r->src_h,
                         tvmaf_ff.av_get_pix_fmt_name(r->dst_fmt), r->out.w, r->out.h);
            return -EINVAL;
        }
        if (!r->conv && !(r->conv = tvmaf_ff.av_frame_alloc())) return -ENOMEM;
        tvmaf_ff.av_frame_unref(r->conv);
        r->conv->format = r->dst_fmt;
        r->conv->width = (int)r->out.w;
        r->conv->height = (int)r->out.h;
        if (tvmaf_ff.av_frame_get_buffer(r->conv, 0) < 0) return -ENOMEM;
    }
    tvmaf_ff.sws_scale(r->sws, (const uint8_t *const *)r->frame->data, r->frame->linesize, 0,
                       r->src_h, r->conv->data, r->conv->linesize);
    return 0;
}

static int ff_read(TvmafReader *rd, TvmafPicture *pic, char *msg, size_t msg_len)
{
    FfPriv *r = rd->priv;
    if (!r->have_frame) {
        if (r->done) return 0;
        int err = decode_next(r, msg, msg_len);
        if (err <= 0) return err;
    }
    r->have_frame = 0;
    AVFrame *fr = r->frame;
    if (fr->format != r->src_fmt || fr->width != r->src_w || fr->height != r->src_h) {
        tvmaf_io_msg(msg, msg_len, "%s changes from %dx%d %s to %dx%d %s mid-stream, which tvmaf "
                     "does not follow.", r->name, r->src_w, r->src_h,
                     tvmaf_ff.av_get_pix_fmt_name(r->src_fmt), fr->width, fr->height,
                     tvmaf_ff.av_get_pix_fmt_name((enum AVPixelFormat)fr->format));
        tvmaf_ff.av_frame_unref(fr);
        return -EINVAL;
    }
    const AVFrame *src = fr;
    if (r->scale_flags || unj(r->src_fmt) != r->dst_fmt) {
        int err = convert(r, msg, msg_len);
        if (err) {
            tvmaf_ff.av_frame_unref(fr);
            if (err == -ENOMEM) tvmaf_io_msg(msg, msg_len, "Out of memory reading %s.", r->name);
            return err;
        }
        src = r->conv;
    }
    int err = tvmaf_picture_alloc(pic, r->out.pix_fmt, r->out.bpc, r->out.w, r->out.h);
    if (err) {
        tvmaf_ff.av_frame_unref(fr);
        memset(pic, 0, sizeof(*pic));
        tvmaf_io_msg(msg, msg_len, "Cannot allocate a %ux%u picture for %s.", r->out.w, r->out.h,
                     r->name);
        return err;
    }
    const size_t bytes = r->out.bpc > 8 ? 2 : 1;
    const int planes = r->out.pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
    for (int p = 0; p < planes; p++) {
        const size_t row = (size_t)pic->w[p] * bytes;
        for (unsigned y = 0; y < pic->h[p]; y++)
            memcpy((uint8_t *)pic->data[p] + (size_t)y * pic->stride[p],
                   src->data[p] + (size_t)y * src->linesize[p], row);
    }
    tvmaf_ff.av_frame_unref(fr);
    return 1;
}

static void ff_close(TvmafReader *rd)
{
    FfPriv *r = rd->priv;
    if (!r->loaded) return;
    tvmaf_ff.sws_freeContext(r->sws);
    tvmaf_ff.av_frame_free(&r->conv);
    tvmaf_ff.av_frame_free(&r->frame);
    tvmaf_ff.av_packet_free(&r->pkt);
    tvmaf_ff.avcodec_free_context(&r->dec);
    tvmaf_ff.avformat_close_input(&r->fmtc);
    if (r->avio) {
        tvmaf_ff.av_freep(&r->avio->buffer);
        tvmaf_ff.avio_context_free(&r->avio);
    }
}

const TvmafInput tvmaf_input_ffmpeg = {
    .kind = "ffmpeg",
    .priv_size = sizeof(FfPriv),
    .probe = ff_probe,
    .open = ff_open,
    .read = ff_read,
    .set_scale = ff_set_scale,
    .scale_filters = FILTER_NAMES,
    .close = ff_close,
};
