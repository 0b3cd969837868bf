/*
 * FFmpeg's libraries, loaded at run time.
 *
 * libtvmaf and the tvmaf CLI do not link FFmpeg: its headers give the types,
 * macros and structure layouts, and the functions are reached through
 * tvmaf_ff, the entry points dlopen/dlsym found. The libraries are opened
 * the first time encoded input is opened (the ffmpeg reader module, the
 * CLI's report pictures), once per process, so that a program that reads
 * only Y4M or raw YUV never loads them (FFmpeg's dependency closure is over
 * a hundred shared libraries, tens of milliseconds of dynamic linking) and
 * a host program that has its own FFmpeg (FFmpeg loading the libvmaf
 * drop-in) does not get a second one of other versions beside it unless it
 * reads encoded input through tvmaf.
 *
 * Each library is opened by the SONAME of the headers the build compiled
 * against (libavformat.so.59 for LIBAVFORMAT_VERSION_MAJOR 59, ...): the
 * structure layouts the code reads are those of that major version, so no
 * other is taken. RTLD_NOW | RTLD_LOCAL: every symbol resolved at open
 * time, none added to the process's global scope.
 *
 * TVMAF_FFMPEG_LIBDIR, when set and non-empty, is the directory the four
 * libraries are opened from (DIR/libavutil.so.57, ...) instead of the
 * dynamic loader's search: an FFmpeg of the same major versions installed
 * elsewhere, or, for tests, a directory without it.
 *
 * Every call into FFmpeg goes through tvmaf_ff, including what the headers'
 * macros would call (av_err2str is av_make_error_string, an inline function
 * calling av_strerror: use tvmaf_ff.av_strerror). The headers' inline
 * functions used (av_q2d, av_make_q) are arithmetic only.
 */
#ifndef TVMAF_IO_FFMPEG_LIB_H
#define TVMAF_IO_FFMPEG_LIB_H

#include <stddef.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* The entry points tvmaf uses, by library. */
#define TVMAF_FF_AVUTIL(X)                                                                   \
    X(av_strerror) X(av_log_set_level) X(av_malloc) X(av_calloc) X(av_free) X(av_freep)      \
    X(av_max_alloc) X(av_reduce) X(av_dict_set_int) X(av_dict_free) X(av_pix_fmt_desc_get)   \
    X(av_get_pix_fmt_name) X(av_frame_alloc) X(av_frame_free) X(av_frame_unref)              \
    X(av_frame_get_buffer)
#define TVMAF_FF_SWSCALE(X)                                                                  \
    X(sws_getContext) X(sws_freeContext) X(sws_scale) X(sws_getCoefficients)                \
    X(sws_setColorspaceDetails)
#define TVMAF_FF_AVCODEC(X)                                                                  \
    X(avcodec_find_encoder) X(avcodec_alloc_context3) X(avcodec_free_context)                \
    X(avcodec_parameters_to_context) X(avcodec_open2) X(avcodec_default_get_buffer2)         \
    X(avcodec_send_packet) X(avcodec_receive_frame) X(avcodec_send_frame)                    \
    X(avcodec_receive_packet) X(av_packet_alloc) X(av_packet_free) X(av_packet_unref)
#define TVMAF_FF_AVFORMAT(X)                                                                 \
    X(avformat_alloc_context) X(avformat_open_input) X(avformat_find_stream_info)            \
    X(av_find_best_stream) X(av_read_frame) X(avformat_close_input) X(avio_alloc_context)    \
    X(avio_context_free)

typedef struct TvmafFfApi {
#define TVMAF_FF_MEMBER(fn) __typeof__(fn) *fn;
    TVMAF_FF_AVUTIL(TVMAF_FF_MEMBER)
    TVMAF_FF_SWSCALE(TVMAF_FF_MEMBER)
    TVMAF_FF_AVCODEC(TVMAF_FF_MEMBER)
    TVMAF_FF_AVFORMAT(TVMAF_FF_MEMBER)
#undef TVMAF_FF_MEMBER
} TvmafFfApi;

/* The loaded entry points; valid once tvmaf_ff_load() returned 0. */
extern TvmafFfApi tvmaf_ff;

/*
 * Loads the libraries (the first call; later ones return its result): 0,
 * or -ENOTSUP when one cannot be opened or lacks an entry point, after
 * which tvmaf_ff_error() says which and why (dlerror's text). Thread-safe.
 */
int tvmaf_ff_load(void);
/* Why the load failed, "" where it succeeded (it loads them if no call
 * did yet): "cannot load libavcodec.so.59: libavcodec.so.59: cannot open
 * shared object file: No such file or directory" (the library, then
 * dlerror's text). */
const char *tvmaf_ff_error(void);

#endif
