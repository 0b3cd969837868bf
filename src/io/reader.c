/*
 * The reader's public front (tvmaf/reader.h): opening, recognising the input
 * from its first bytes, the limit on one frame's bytes, frame numbering,
 * luma-only reading, the depth check, and dispatch to the input's module
 * (io/input.h).
 */
/* POSIX (strdup, stat); the build defines _GNU_SOURCE, this keeps the file
 * compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/input.h"
#include "io/video_reader.h"

/* Frames whose samples are compared with the declared bit depth: frame 0,
 * then every DEPTH_CHECK_EVERY-th (checking a fraction of the frames keeps
 * its cost out of the reading threads). */
#define DEPTH_CHECK_EVERY 16u

/* Tried in this order: the first module whose probe says yes reads the
 * input. The raw module says yes to anything, so one always does. */
static const TvmafInput *const inputs[] = {
    &tvmaf_input_y4m,
    &tvmaf_input_ffmpeg,
    &tvmaf_input_raw,
};

void tvmaf_io_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (!msg || !msg_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

static void clear_msg(char *msg, size_t msg_len)
{
    if (msg && msg_len) msg[0] = '\0';
}

int tvmaf_config_has_raw(const TvmafReaderConfig *cfg)
{
    return cfg && (cfg->raw.pix_fmt || cfg->raw.bpc || cfg->raw.w || cfg->raw.h);
}

const char *tvmaf_encoded_signature(const unsigned char *first, size_t n)
{
    /* signatures a container or an elementary stream starts with */
    static const struct { size_t at, len; const char *magic, *name; } sig[] = {
        { 0, 4, "\x1a\x45\xdf\xa3", "Matroska or WebM" },
        { 4, 4, "ftyp", "MP4 or QuickTime" },
        { 4, 4, "moov", "QuickTime" },
        { 0, 4, "DKIF", "IVF" },
        { 0, 4, "RIFF", "AVI" },
        { 0, 4, "OggS", "Ogg" },
        { 0, 3, "FLV", "FLV" },
        { 0, 8, "\x89PNG\r\n\x1a\n", "PNG" },
        { 0, 4, "\x00\x00\x01\xba", "MPEG program stream" },
        { 0, 11, "\x06\x0e\x2b\x34\x02\x05\x01\x01\x0d\x01\x02", "MXF" },
    };
    for (size_t i = 0; i < sizeof(sig) / sizeof(sig[0]); i++)
        if (n >= sig[i].at + sig[i].len && !memcmp(first + sig[i].at, sig[i].magic, sig[i].len))
            return sig[i].name;
    return NULL;
}

const char *tvmaf_reader_sniff_encoded(const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char b[TVMAF_STREAM_FIRST] = { 0 };
    const size_t n = fread(b, 1, sizeof(b), f);
    fclose(f);
    if (n < 8 || !memcmp(b, "YUV4MPEG2", 9)) return NULL;
    const char *kind = tvmaf_encoded_signature(b, n);
    if (kind) return kind;
    /* streams without a long signature (MPEG-TS, Annex B H.264/HEVC, AV1
     * OBUs) by the extensions encoders give them */
    static const char *const ext[] = { "ts", "m2ts", "mts", "264", "h264", "265", "h265",
                                       "hevc", "obu", "av1", "mpg", "mpeg", "vob", "webm",
                                       "mkv", "mp4", "mov", "avi", "ivf", "flv", "mxf" };
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (!strcasecmp(dot + 1, ext[i])) return "by its extension";
    return NULL;
}

int tvmaf_reader_open(TvmafReader **out, const char *path, const TvmafReaderConfig *cfg,
                      char *msg, size_t msg_len)
{
    static const TvmafReaderConfig no_config;
    clear_msg(msg, msg_len);
    if (!out || !path) {
        tvmaf_io_msg(msg, msg_len, "No input path given.");
        return -EINVAL;
    }
    *out = NULL;
    if (!cfg) cfg = &no_config;
    int rc;
    TvmafReader *r = calloc(1, sizeof(*r));
    if (!r) goto nomem;
    r->above_depth_frame = UINT64_MAX;
    r->max_frame_bytes = cfg->max_frame_bytes;
    if (!strcmp(path, "-")) {
        r->name = strdup("standard input");
    } else {
        const size_t len = strlen(path) + 3;
        if ((r->name = malloc(len))) snprintf(r->name, len, "\"%s\"", path);
    }
    if (!r->name) goto nomem;
    if ((rc = tvmaf_stream_open(&r->stream, path, r->name, msg, msg_len))) goto fail;

    size_t n;
    const unsigned char *first = tvmaf_stream_ahead(&r->stream, &n);
    for (size_t i = 0; !r->in; i++)
        if (inputs[i]->probe(first, n, cfg)) r->in = inputs[i];
    if (r->in->priv_size && !(r->priv = calloc(1, r->in->priv_size))) goto nomem;
    if ((rc = r->in->open(r, path, cfg, msg, msg_len))) goto fail;

    if ((rc = tvmaf_planar_init(&r->layout, &r->fmt))) {
        tvmaf_io_msg(msg, msg_len, "A %ux%u frame of %s is too large for this machine.",
                     r->fmt.w, r->fmt.h, r->name);
        goto fail;
    }
    /* refused before a picture (or a pipe's staging buffer) is allocated;
     * the ffmpeg module applies the same limit to FFmpeg's own allocations
     * and says so in its own words */
    if (r->max_frame_bytes && r->layout.frame_bytes > r->max_frame_bytes) {
        tvmaf_io_msg(msg, msg_len, "%s holds %ux%u %s %u-bit frames, %llu bytes each: above the "
                     "limit of %llu bytes on one frame (--max-memory sets it).", r->name,
                     r->fmt.w, r->fmt.h, tvmaf_planar_layout_name(r->fmt.pix_fmt), r->fmt.bpc,
                     (unsigned long long)r->layout.frame_bytes,
                     (unsigned long long)r->max_frame_bytes);
        rc = -ENOMEM;
        goto fail;
    }
    *out = r;
    return 0;

nomem:
    rc = -ENOMEM;
    tvmaf_io_msg(msg, msg_len, "Out of memory opening %s.", path);
fail:
    tvmaf_reader_close(r);
    return rc;
}

const TvmafVideoFormat *tvmaf_reader_format(const TvmafReader *r)
{
    return &r->fmt;
}

const char *tvmaf_reader_kind(const TvmafReader *r)
{
    return r->in->kind;
}

void tvmaf_reader_frame_rate(const TvmafReader *r, int *num, int *den)
{
    *num = r->rate_num;
    *den = r->rate_den;
}

int tvmaf_reader_set_scale(TvmafReader *r, unsigned w, unsigned h, const char *filter,
                           char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    if (!r->in->set_scale) {
        tvmaf_io_msg(msg, msg_len, "%s is raw YUV or Y4M: only encoded input (read through "
                     "FFmpeg) is scaled; scale it first, e.g. ffmpeg -i IN -vf scale=%u:%u -f "
                     "yuv4mpegpipe OUT.y4m.", r->name, w, h);
        return -ENOTSUP;
    }
    return r->in->set_scale(r, w, h, filter ? filter : "bicubic", msg, msg_len);
}

const char *tvmaf_reader_scale_filters(void)
{
    return tvmaf_input_ffmpeg.scale_filters;
}

void tvmaf_reader_set_luma_only(TvmafReader *r, int luma_only)
{
    r->luma_only = luma_only;
}

void tvmaf_reader_set_mapping(TvmafReader *r, int on)
{
    r->map_frames = on;
}

/* Samples above the declared depth in picture frame_no, when it is one of
 * those checked: noted so that the caller can warn (the samples are passed
 * on as they are). Only the planes read are looked at. */
static void check_depth(TvmafReader *r, const TvmafPicture *pic, uint64_t frame_no)
{
    if (pic->bpc <= 8 || pic->bpc >= 16 || frame_no % DEPTH_CHECK_EVERY ||
        __atomic_load_n(&r->above_depth_frame, __ATOMIC_RELAXED) != UINT64_MAX)
        return;
    unsigned acc = 0;
    const unsigned planes = r->luma_only || pic->pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
    for (unsigned p = 0; p < planes; p++) {
        for (unsigned y = 0; y < pic->h[p]; y++) {
            const uint16_t *s = (const uint16_t *)((const unsigned char *)pic->data[p] +
                                                   (size_t)y * (size_t)pic->stride[p]);
            uint16_t row = 0;
            for (unsigned x = 0; x < pic->w[p]; x++) row |= s[x];
            acc |= row;
        }
    }
    if (acc >> pic->bpc) {
        uint64_t none = UINT64_MAX;
        __atomic_compare_exchange_n(&r->above_depth_frame, &none, frame_no, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
}

uint64_t tvmaf_reader_above_depth_frame(const TvmafReader *r)
{
    return __atomic_load_n(&r->above_depth_frame, __ATOMIC_RELAXED);
}

int tvmaf_reader_read(TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    memset(pic, 0, sizeof(*pic));
    const int rc = r->in->read(r, pic, msg, msg_len);
    if (rc == 1) {
        check_depth(r, pic, r->frame_no);
        r->frame_no++;
    }
    return rc;
}

int tvmaf_reader_skip(TvmafReader *r, unsigned n, char *msg, size_t msg_len)
{
    clear_msg(msg, msg_len);
    for (unsigned i = 0; i < n; i++) {
        int rc;
        if (r->in->skip) {
            if ((rc = r->in->skip(r, msg, msg_len)) == 1) r->frame_no++;
        } else {
            TvmafPicture pic;
            if ((rc = tvmaf_reader_read(r, &pic, msg, msg_len)) == 1) tvmaf_picture_unref(&pic);
        }
        if (rc <= 0) return rc;
    }
    return 1;
}

int64_t tvmaf_reader_frames_left(TvmafReader *r)
{
    return r->in->frames_left ? r->in->frames_left(r) : -1;
}

int tvmaf_reader_begin_random_access(TvmafReader *r)
{
    return r->in->begin_random_access ? r->in->begin_random_access(r) : 0;
}

int tvmaf_reader_read_at(TvmafReader *r, uint64_t k, TvmafPicture *pic, char *msg,
                         size_t msg_len)
{
    clear_msg(msg, msg_len);
    memset(pic, 0, sizeof(*pic));
    const int rc = r->in->read_at(r, k, pic, msg, msg_len);
    if (rc == 1) check_depth(r, pic, r->frame_no + k);
    return rc;
}

void tvmaf_reader_close(TvmafReader *r)
{
    if (!r) return;
    if (r->in && r->in->close && r->priv) r->in->close(r);
    free(r->priv);
    tvmaf_stream_close(&r->stream);
    free(r->name);
    free(r);
}
