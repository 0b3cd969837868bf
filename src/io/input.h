/*
 * The reader's insides: one module per input format behind a small table of
 * operations, and the state every module shares.
 *
 * reader.c (the public front, tvmaf/reader.h) opens the byte stream, stages
 * its first bytes and asks each module of its table, in order, whether it
 * reads an input that starts with them; the first that does opens it and
 * from then on every read goes to it. The order is the recognition rule:
 *   y4m     the "YUV4MPEG2 " signature (a header wins over a given geometry)
 *   ffmpeg  anything else when no geometry is given (a build without FFmpeg,
 *           or a process where its libraries cannot be loaded, refuses:
 *           -ENOTSUP for a known container signature)
 *   raw     the rest: raw planar YUV of the given geometry
 * A module sees the shared state (struct TvmafReader below) and keeps its
 * own in `priv`, priv_size bytes the front allocates zeroed.
 */
#ifndef TVMAF_IO_INPUT_H
#define TVMAF_IO_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "io/planar.h"
#include "io/stream.h"
#include "tvmaf/reader.h"

typedef struct TvmafInput {
    const char *kind;       /* tvmaf_reader_kind() */
    size_t priv_size;
    /* Whether this module reads an input starting with first[0..n) (n is
     * below TVMAF_STREAM_FIRST only for a shorter input) opened with cfg. */
    int (*probe)(const unsigned char *first, size_t n, const TvmafReaderConfig *cfg);
    /* Reads what precedes the first frame and sets r->fmt (and r->rate_num,
     * r->rate_den where the input tells them). Negative errno and a message
     * on failure; the front then calls close. */
    int (*open)(TvmafReader *r, const char *path, const TvmafReaderConfig *cfg, char *msg,
                size_t msg_len);
    /* The next picture, as tvmaf_reader_read (*pic comes zeroed and stays
     * so unless 1 is returned); frame numbering and the depth check are the
     * front's. */
    int (*read)(TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len);
    /* Optional: passes over one frame without a picture (1, 0 at the end,
     * negative errno); NULL: the front reads and drops it. */
    int (*skip)(TvmafReader *r, char *msg, size_t msg_len);
    /* Optional: tvmaf_reader_frames_left; NULL: -1. */
    int64_t (*frames_left)(TvmafReader *r);
    /* Optional: tvmaf_reader_set_scale (filter non-NULL); updates r->fmt.
     * NULL: the front refuses with -ENOTSUP. */
    int (*set_scale)(TvmafReader *r, unsigned w, unsigned h, const char *filter, char *msg,
                     size_t msg_len);
    /* What set_scale accepts, '|'-separated ("" where it is NULL). */
    const char *scale_filters;
    /* Optional, io/video_reader.h: random access (NULL: not offered). */
    int (*begin_random_access)(TvmafReader *r);
    int (*read_at)(TvmafReader *r, uint64_t k, TvmafPicture *pic, char *msg, size_t msg_len);
    /* Optional: frees what priv holds (not priv itself); called after a
     * failed open too, on a zeroed or partly filled priv. */
    void (*close)(TvmafReader *r);
} TvmafInput;

/* The modules, in recognition order (reader.c's table). */
extern const TvmafInput tvmaf_input_y4m;
extern const TvmafInput tvmaf_input_ffmpeg;
extern const TvmafInput tvmaf_input_raw;

struct TvmafReader {
    const TvmafInput *in;
    void *priv;               /* in->priv_size bytes, zeroed at open */
    char *name;               /* for messages: "\"path\"" or "standard input" */
    TvmafStream stream;       /* the input's bytes; a module may close it once it
                               * reads the input otherwise (ffmpeg by path) */
    TvmafVideoFormat fmt;     /* what reads return; set by open, set_scale */
    TvmafPlanar layout;       /* fmt as opened, laid out plane after plane */
    int rate_num, rate_den;   /* 0/0: the input does not say */
    uint64_t max_frame_bytes; /* 0: no limit */
    uint64_t frame_no;        /* frames consumed so far (read or passed over) */
    int luma_only;
    int map_frames; /* tvmaf_reader_set_mapping */
    /* first frame found with samples above the declared depth (UINT64_MAX:
     * none yet); set by whichever reading thread finds it */
    uint64_t above_depth_frame;
};

/* Whether cfg gives a raw geometry (any field non-zero). */
int tvmaf_config_has_raw(const TvmafReaderConfig *cfg);

/* The kind of encoded file first[0..n) starts with ("Matroska or WebM",
 * "MP4 or QuickTime", ...), or NULL: only long, specific signatures count,
 * as raw YUV may begin with any bytes. */
const char *tvmaf_encoded_signature(const unsigned char *first, size_t n);

/* msg (when non-NULL and msg_len > 0) := the formatted sentence. */
__attribute__((format(printf, 3, 4)))
void tvmaf_io_msg(char *msg, size_t msg_len, const char *fmt, ...);

#endif
