/*
 * What the report takes from the videos themselves, through FFmpeg's
 * libraries where the build has them: the distorted stream's bitrate, and
 * the pictures of each encode's lowest frames (the reference and the
 * distorted frame side by side, and the crop where they differ most), JPEG
 * encoded by libavcodec's MJPEG encoder. A build without FFmpeg has neither,
 * nor has a process where FFmpeg's libraries cannot be loaded (they are
 * loaded at the first use, io/ffmpeg_lib.h).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_cli.h"
#include "tvmaf/reader.h"
#include "tvmaf_config.h"

#if TVMAF_HAVE_FFMPEG
#include "io/ffmpeg_lib.h" /* FFmpeg's entry points, loaded at run time */
#endif

/* The side-by-side pictures: each side at most this wide (downscaled). */
#define THUMB_W 320
/* The crop where the frames differ most: at most this square, full size. */
#define CROP 192
/* Pictures of the reference kept between its pass and the distorted inputs'. */
#define KEEP_BYTES_MAX ((uint64_t)1 << 30)
/* MJPEG quantiser (2 best .. 31 worst). */
#define JPEG_QSCALE 5

int media_parse_layout(const char *s, TvmafVideoFormat *f)
{
    unsigned w, h, pix, bits;
    int n = -1;
    memset(f, 0, sizeof(*f));
    if (!s || sscanf(s, "%ux%u:%u:%u%n", &w, &h, &pix, &bits, &n) != 4 || n != (int)strlen(s))
        return -1;
    f->w = w;
    f->h = h;
    f->bpc = bits;
    f->pix_fmt = pix == 420 ? TVMAF_PIX_FMT_YUV420P : pix == 422 ? TVMAF_PIX_FMT_YUV422P :
                 pix == 444 ? TVMAF_PIX_FMT_YUV444P : pix == 400 ? TVMAF_PIX_FMT_YUV400P :
                 TVMAF_PIX_FMT_UNKNOWN;
    return f->pix_fmt == TVMAF_PIX_FMT_UNKNOWN ? -1 : 0;
}

#if TVMAF_HAVE_FFMPEG

/* The page's note where FFmpeg's libraries cannot be loaded, written once. */
static char load_note[640];
static pthread_once_t load_note_once = PTHREAD_ONCE_INIT;

static void write_load_note(void)
{
    snprintf(load_note, sizeof(load_note), "tvmaf %s: the page has no pictures.",
             tvmaf_ff_error());
}

int media_available(const char **note)
{
    if (tvmaf_ff_load()) {
        pthread_once(&load_note_once, write_load_note);
        *note = load_note;
        return 0;
    }
    if (!tvmaf_ff.avcodec_find_encoder(AV_CODEC_ID_MJPEG)) {
        *note = "This FFmpeg has no MJPEG encoder: the page has no pictures.";
        return 0;
    }
    *note = NULL;
    return 1;
}

int media_bitrate(const char *path, double *bps, const char **source, char *msg, size_t msg_len)
{
    AVFormatContext *fc = NULL;
    AVPacket *pkt = NULL;
    int rc = -1;
    if (tvmaf_ff_load()) {
        snprintf(msg, msg_len, "tvmaf %s", tvmaf_ff_error());
        return -1;
    }
    tvmaf_ff.av_log_set_level(AV_LOG_QUIET);
    if (tvmaf_ff.avformat_open_input(&fc, path, NULL, NULL) < 0 ||
        tvmaf_ff.avformat_find_stream_info(fc, NULL) < 0) {
        snprintf(msg, msg_len, "FFmpeg cannot read its container");
        goto end;
    }
    const int si = tvmaf_ff.av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (si < 0) {
        snprintf(msg, msg_len, "no video stream");
        goto end;
    }
    const AVStream *st = fc->streams[si];
    if (st->codecpar->bit_rate > 0) {
        *bps = (double)st->codecpar->bit_rate;
        *source = "stream";
        rc = 0;
        goto end;
    }
    /* its packets' bytes over its duration: the stream's own, else the span
     * of its timestamps, else the container's */
    if (!(pkt = tvmaf_ff.av_packet_alloc())) {
        snprintf(msg, msg_len, "out of memory");
        goto end;
    }
    uint64_t bytes = 0;
    int64_t first = INT64_MAX, end_ts = INT64_MIN;
    while (tvmaf_ff.av_read_frame(fc, pkt) >= 0) {
        if (pkt->stream_index == si) {
            bytes += (uint64_t)pkt->size;
            const int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
            if (ts != AV_NOPTS_VALUE) {
                if (ts < first) first = ts;
                if (ts + pkt->duration > end_ts) end_ts = ts + pkt->duration;
            }
        }
        tvmaf_ff.av_packet_unref(pkt);
    }
    double secs = 0;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
        secs = st->duration * av_q2d(st->time_base);
    else if (first != INT64_MAX && end_ts > first)
        secs = (double)(end_ts - first) * av_q2d(st->time_base);
    else if (fc->duration != AV_NOPTS_VALUE && fc->duration > 0)
        secs = fc->duration / (double)AV_TIME_BASE;
    if (!bytes || !(secs > 0)) {
        snprintf(msg, msg_len, "its stream gives no bit rate and no duration");
        goto end;
    }
    *bps = bytes * 8.0 / secs;
    *source = "packets";
    rc = 0;
end:
    tvmaf_ff.av_packet_free(&pkt);
    tvmaf_ff.avformat_close_input(&fc);
    return rc;
}

static enum AVPixelFormat av_format(const TvmafPicture *p)
{
    static const struct { enum TvmafPixelFormat f; unsigned bpc; enum AVPixelFormat av; } t[] = {
        { TVMAF_PIX_FMT_YUV420P, 8, AV_PIX_FMT_YUV420P },
        { TVMAF_PIX_FMT_YUV420P, 10, AV_PIX_FMT_YUV420P10 },
        { TVMAF_PIX_FMT_YUV420P, 12, AV_PIX_FMT_YUV420P12 },
        { TVMAF_PIX_FMT_YUV420P, 16, AV_PIX_FMT_YUV420P16 },
        { TVMAF_PIX_FMT_YUV422P, 8, AV_PIX_FMT_YUV422P },
        { TVMAF_PIX_FMT_YUV422P, 10, AV_PIX_FMT_YUV422P10 },
        { TVMAF_PIX_FMT_YUV422P, 12, AV_PIX_FMT_YUV422P12 },
        { TVMAF_PIX_FMT_YUV422P, 16, AV_PIX_FMT_YUV422P16 },
        { TVMAF_PIX_FMT_YUV444P, 8, AV_PIX_FMT_YUV444P },
        { TVMAF_PIX_FMT_YUV444P, 10, AV_PIX_FMT_YUV444P10 },
        { TVMAF_PIX_FMT_YUV444P, 12, AV_PIX_FMT_YUV444P12 },
        { TVMAF_PIX_FMT_YUV444P, 16, AV_PIX_FMT_YUV444P16 },
        { TVMAF_PIX_FMT_YUV400P, 8, AV_PIX_FMT_GRAY8 },
        { TVMAF_PIX_FMT_YUV400P, 10, AV_PIX_FMT_GRAY10 },
        { TVMAF_PIX_FMT_YUV400P, 12, AV_PIX_FMT_GRAY12 },
        { TVMAF_PIX_FMT_YUV400P, 16, AV_PIX_FMT_GRAY16 },
    };
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (t[i].f == p->pix_fmt && t[i].bpc == p->bpc) return t[i].av;
    return AV_PIX_FMT_NONE;
}

/* The region (x, y, w, h) of src scaled into dst's region at (dx, 0), dst
 * 8-bit full-range 4:2:0. x and y even. */
static int scale_into(AVFrame *dst, unsigned dx, unsigned dw, unsigned dh, const TvmafPicture *src,
                      unsigned x, unsigned y, unsigned w, unsigned h)
{
    const enum AVPixelFormat sf = av_format(src);
    if (sf == AV_PIX_FMT_NONE) return -1;
    struct SwsContext *sws = tvmaf_ff.sws_getContext((int)w, (int)h, sf, (int)dw, (int)dh,
                                            AV_PIX_FMT_YUV420P,
                                            w == dw && h == dh ? SWS_POINT : SWS_AREA,
                                            NULL, NULL, NULL);
    if (!sws) return -1;
    /* limited-range input, full-range (JPEG) output */
    const int *coef = tvmaf_ff.sws_getCoefficients(SWS_CS_ITU709);
    tvmaf_ff.sws_setColorspaceDetails(sws, coef, 0, coef, 1, 0, 1 << 16, 1 << 16);
    const unsigned bps = src->bpc > 8 ? 2 : 1;
    const uint8_t *sp[4] = { NULL };
    int ss[4] = { 0 };
    const unsigned np = src->pix_fmt == TVMAF_PIX_FMT_YUV400P ? 1 : 3;
    for (unsigned c = 0; c < np; c++) {
        const unsigned sx = c && src->w[c] < src->w[0] ? 1 : 0;
        const unsigned sy = c && src->h[c] < src->h[0] ? 1 : 0;
        sp[c] = (const uint8_t *)src->data[c] + (size_t)(y >> sy) * src->stride[c] +
                (size_t)(x >> sx) * bps;
        ss[c] = (int)src->stride[c];
    }
    uint8_t *dp[4] = { dst->data[0] + dx, dst->data[1] + dx / 2, dst->data[2] + dx / 2, NULL };
    int ds[4] = { dst->linesize[0], dst->linesize[1], dst->linesize[2], 0 };
    const int r = tvmaf_ff.sws_scale(sws, sp, ss, 0, (int)h, dp, ds);
    tvmaf_ff.sws_freeContext(sws);
    if (np == 1) { /* gray: neutral chroma */
        for (unsigned row = 0; row < dh / 2; row++) {
            memset(dst->data[1] + (size_t)row * dst->linesize[1] + dx / 2, 128, dw / 2);
            memset(dst->data[2] + (size_t)row * dst->linesize[2] + dx / 2, 128, dw / 2);
        }
    }
    return r > 0 ? 0 : -1;
}

static int encode_jpeg(AVFrame *fr, RepImage *out)
{
    const AVCodec *codec = tvmaf_ff.avcodec_find_encoder(AV_CODEC_ID_MJPEG);
    AVCodecContext *c = codec ? tvmaf_ff.avcodec_alloc_context3(codec) : NULL;
    AVPacket *pkt = tvmaf_ff.av_packet_alloc();
    int rc = -1;
    if (!c || !pkt) goto end;
    c->width = fr->width;
    c->height = fr->height;
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->color_range = AVCOL_RANGE_JPEG;
    c->time_base = (AVRational){ 1, 25 };
    c->flags |= AV_CODEC_FLAG_QSCALE;
    c->global_quality = FF_QP2LAMBDA * JPEG_QSCALE;
    if (tvmaf_ff.avcodec_open2(c, codec, NULL) < 0) goto end;
    fr->quality = c->global_quality;
    fr->pict_type = AV_PICTURE_TYPE_I;
    if (tvmaf_ff.avcodec_send_frame(c, fr) < 0 || tvmaf_ff.avcodec_send_frame(c, NULL) < 0 ||
        tvmaf_ff.avcodec_receive_packet(c, pkt) < 0)
        goto end;
    if (!(out->data = malloc((size_t)pkt->size))) goto end;
    memcpy(out->data, pkt->data, (size_t)pkt->size);
    out->size = (size_t)pkt->size;
    out->w = (unsigned)fr->width;
    out->h = (unsigned)fr->height;
    out->mime = "image/jpeg";
    rc = 0;
end:
    tvmaf_ff.av_packet_free(&pkt);
    tvmaf_ff.avcodec_free_context(&c);
    return rc;
}

static AVFrame *new_frame(unsigned w, unsigned h)
{
    AVFrame *f = tvmaf_ff.av_frame_alloc();
    if (!f) return NULL;
    f->width = (int)w;
    f->height = (int)h;
    f->format = AV_PIX_FMT_YUV420P;
    if (tvmaf_ff.av_frame_get_buffer(f, 0) < 0) {
        tvmaf_ff.av_frame_free(&f);
        return NULL;
    }
    /* white between and around the halves */
    for (unsigned y = 0; y < h; y++) memset(f->data[0] + (size_t)y * f->linesize[0], 255, w);
    for (unsigned y = 0; y < h / 2; y++) {
        memset(f->data[1] + (size_t)y * f->linesize[1], 128, w / 2);
        memset(f->data[2] + (size_t)y * f->linesize[2], 128, w / 2);
    }
    return f;
}

static unsigned luma_at(const TvmafPicture *p, unsigned x, unsigned y)
{
    const uint8_t *row = (const uint8_t *)p->data[0] + (size_t)y * p->stride[0];
    return p->bpc > 8 ? ((const uint16_t *)row)[x] : row[x];
}

/* The square (side *side, at *cx, *cy, even) where the lumas differ most:
 * sums of absolute differences over cells of half its side, the best 2x2
 * cells. */
static void most_different(const TvmafPicture *r, const TvmafPicture *d, unsigned *cx,
                           unsigned *cy, unsigned *side)
{
    const unsigned w = r->w[0], h = r->h[0];
    unsigned s = CROP < w ? CROP : w;
    if (s > h) s = h;
    s &= ~3u;
    if (s < 4) s = w < h ? w & ~1u : h & ~1u;
    *side = s;
    *cx = *cy = 0;
    const unsigned c = s / 2 ? s / 2 : 1, gw = w / c, gh = h / c;
    if (gw < 2 || gh < 2) return;
    uint64_t *cell = calloc((size_t)gw * gh, sizeof(*cell));
    if (!cell) return;
    for (unsigned y = 0; y < gh * c; y++)
        for (unsigned x = 0; x < gw * c; x++) {
            const int a = (int)luma_at(r, x, y), b = (int)luma_at(d, x, y);
            cell[(size_t)(y / c) * gw + x / c] += (uint64_t)(a > b ? a - b : b - a);
        }
    uint64_t best = 0;
    for (unsigned gy = 0; gy + 1 < gh; gy++)
        for (unsigned gx = 0; gx + 1 < gw; gx++) {
            const uint64_t v = cell[(size_t)gy * gw + gx] + cell[(size_t)gy * gw + gx + 1] +
                               cell[(size_t)(gy + 1) * gw + gx] + cell[(size_t)(gy + 1) * gw + gx + 1];
            if (v > best) {
                best = v;
                *cx = gx * c;
                *cy = gy * c;
            }
        }
    *cx &= ~1u;
    *cy &= ~1u;
    free(cell);
}

/* The pictures of one lowest frame. */
static int picture_pair(RepWorst *wo, const TvmafPicture *r, const TvmafPicture *d)
{
    const unsigned w = r->w[0], h = r->h[0];
    unsigned tw = w < THUMB_W ? w : THUMB_W;
    unsigned th = (unsigned)((double)h * tw / w + 0.5);
    tw &= ~1u;
    th &= ~1u;
    if (tw < 2 || th < 2) return -1;
    const unsigned gap = 8;
    AVFrame *pair = new_frame(2 * tw + gap, th);
    int rc = -1;
    if (!pair || scale_into(pair, 0, tw, th, r, 0, 0, w & ~1u, h & ~1u) ||
        scale_into(pair, tw + gap, tw, th, d, 0, 0, w & ~1u, h & ~1u) ||
        encode_jpeg(pair, &wo->pair))
        goto end;
    unsigned cx, cy, side;
    most_different(r, d, &cx, &cy, &side);
    if (side >= 2) {
        AVFrame *crop = new_frame(2 * side + gap, side);
        if (crop && !scale_into(crop, 0, side, side, r, cx, cy, side, side) &&
            !scale_into(crop, side + gap, side, side, d, cx, cy, side, side) &&
            !encode_jpeg(crop, &wo->crop)) {
            wo->crop_x = cx;
            wo->crop_y = cy;
            wo->crop_w = wo->crop_h = side;
        }
        tvmaf_ff.av_frame_free(&crop);
    }
    rc = 0;
end:
    tvmaf_ff.av_frame_free(&pair);
    return rc;
}

/* A kept picture of the reference. */
typedef struct Kept {
    unsigned frame;
    TvmafPicture pic;
    int have;
} Kept;

static int open_video(TvmafReader **rd, const char *path, const char *raw, char *msg,
                      size_t msg_len)
{
    TvmafReaderConfig cfg = { 0 };
    if (raw && media_parse_layout(raw, &cfg.raw)) {
        snprintf(msg, msg_len, "bad raw layout \"%s\" in the sidecar", raw);
        return -1;
    }
    char why[1024];
    if (tvmaf_reader_open(rd, path, &cfg, why, sizeof(why))) {
        snprintf(msg, msg_len, "%s", why);
        return -1;
    }
    return 0;
}

/* Reads the input forward to picture `frame` (its position: *pos). */
static int read_to(TvmafReader *rd, unsigned *pos, unsigned frame, TvmafPicture *pic, char *msg,
                   size_t msg_len)
{
    if (frame > *pos) {
        const int r = tvmaf_reader_skip(rd, frame - *pos, msg, msg_len);
        if (r != 1) {
            if (!r) snprintf(msg, msg_len, "it ends before frame %u", frame);
            return -1;
        }
        *pos = frame;
    }
    const int r = tvmaf_reader_read(rd, pic, msg, msg_len);
    if (r != 1) {
        if (!r) snprintf(msg, msg_len, "it ends before frame %u", frame);
        return -1;
    }
    *pos = frame + 1;
    return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

static size_t picture_bytes(const TvmafVideoFormat *f)
{
    const double k = f->pix_fmt == TVMAF_PIX_FMT_YUV444P ? 3 : f->pix_fmt == TVMAF_PIX_FMT_YUV422P
                     ? 2 : f->pix_fmt == TVMAF_PIX_FMT_YUV420P ? 1.5 : 1;
    return (size_t)((double)f->w * f->h * k * (f->bpc > 8 ? 2 : 1));
}

static void note(RepEncode *e, const char *fmt, const char *a, const char *b)
{
    snprintf(e->pictures_note, sizeof(e->pictures_note), fmt, a, b);
}

/* The pictures of the encodes of one reference (those with `ref` set). */
static void pictures_of_reference(RepDoc *d, const unsigned char *todo)
{
    unsigned first = d->n_enc;
    for (unsigned i = 0; i < d->n_enc && first == d->n_enc; i++)
        if (todo[i]) first = i;
    if (first == d->n_enc) return;
    const RepEncode *e0 = &d->enc[first];
    /* the reference's frames every encode needs, read in one pass */
    unsigned *need = malloc(sizeof(*need) * REP_WORST * d->n_enc);
    Kept *kept = calloc(REP_WORST * (size_t)d->n_enc, sizeof(*kept));
    TvmafReader *rd = NULL;
    char msg[1024] = "";
    unsigned n = 0, nk = 0;
    if (!need || !kept) {
        snprintf(msg, sizeof(msg), "out of memory");
        goto fail;
    }
    for (unsigned i = first; i < d->n_enc; i++) {
        RepEncode *e = &d->enc[i];
        if (!todo[i]) continue;
        const int k = rep_rank_key(e);
        unsigned rows[REP_WORST];
        e->n_worst = k < 0 ? 0 : rep_lowest(e, (unsigned)k, REP_WORST, rows);
        for (unsigned w = 0; w < e->n_worst; w++) {
            e->worst[w].row = rows[w];
            need[n++] = e->skip_ref + e->frame[rows[w]];
        }
    }
    qsort(need, n, sizeof(*need), cmp_unsigned);
    for (unsigned i = 0; i < n; i++)
        if (!nk || need[i] != kept[nk - 1].frame) kept[nk++].frame = need[i];
    if (open_video(&rd, e0->ref_open, e0->ref_raw, msg, sizeof(msg))) goto fail;
    if ((uint64_t)picture_bytes(tvmaf_reader_format(rd)) * nk > KEEP_BYTES_MAX) {
        snprintf(msg, sizeof(msg), "its %u pictures would take more than 1 GiB", nk);
        goto fail;
    }
    unsigned pos = 0;
    for (unsigned i = 0; i < nk; i++) {
        if (read_to(rd, &pos, kept[i].frame, &kept[i].pic, msg, sizeof(msg))) goto fail;
        kept[i].have = 1;
    }
    tvmaf_reader_close(rd);
    rd = NULL;
    const TvmafVideoFormat *rf = NULL;
    for (unsigned i = first; i < d->n_enc; i++) {
        RepEncode *e = &d->enc[i];
        if (!todo[i]) continue;
        char why[1024] = "";
        unsigned dpos = 0;
        if (open_video(&rd, e->dis_open, e->dis_raw, why, sizeof(why))) {
            note(e, "the distorted video cannot be read: %s%s", why, "");
            e->n_worst = 0;
            continue;
        }
        const TvmafVideoFormat *df = tvmaf_reader_format(rd);
        rf = &(TvmafVideoFormat){ kept[0].pic.pix_fmt, kept[0].pic.bpc, kept[0].pic.w[0],
                                  kept[0].pic.h[0] };
        if ((df->w != rf->w || df->h != rf->h) && e->scale &&
            tvmaf_reader_set_scale(rd, rf->w, rf->h, e->scale, why, sizeof(why))) {
            note(e, "%s%s", why, "");
            e->n_worst = 0;
        } else if (tvmaf_reader_format(rd)->w != rf->w || tvmaf_reader_format(rd)->h != rf->h) {
            note(e, "the distorted video's size is not the reference's%s%s", "", "");
            e->n_worst = 0;
        }
        /* in frame order, then back to the lowest-first order */
        unsigned order[REP_WORST];
        for (unsigned w = 0; w < e->n_worst; w++) order[w] = w;
        for (unsigned a = 0; a < e->n_worst; a++)
            for (unsigned b = a + 1; b < e->n_worst; b++)
                if (e->frame[e->worst[order[b]].row] < e->frame[e->worst[order[a]].row]) {
                    const unsigned t = order[a];
                    order[a] = order[b];
                    order[b] = t;
                }
        for (unsigned j = 0; j < e->n_worst; j++) {
            RepWorst *wo = &e->worst[order[j]];
            const unsigned fr = e->frame[wo->row];
            TvmafPicture dp;
            if (read_to(rd, &dpos, e->skip_dis + fr, &dp, why, sizeof(why))) {
                note(e, "the distorted video: %s%s", why, "");
                break;
            }
            const Kept *kp = NULL;
            for (unsigned q = 0; q < nk && !kp; q++)
                if (kept[q].frame == e->skip_ref + fr) kp = &kept[q];
            if (kp && picture_pair(wo, &kp->pic, &dp))
                note(e, "a picture could not be encoded%s%s", "", "");
            tvmaf_picture_unref(&dp);
        }
        tvmaf_reader_close(rd);
        rd = NULL;
        if (e->pictures_note[0]) {
            for (unsigned w = 0; w < e->n_worst; w++) {
                free(e->worst[w].pair.data);
                free(e->worst[w].crop.data);
                memset(&e->worst[w], 0, sizeof(e->worst[w]));
            }
            e->n_worst = 0;
        }
    }
    goto end;
fail:
    for (unsigned i = first; i < d->n_enc; i++)
        if (todo[i]) {
            note(&d->enc[i], "the reference cannot be read: %s%s", msg, "");
            d->enc[i].n_worst = 0;
        }
end:
    tvmaf_reader_close(rd);
    for (unsigned i = 0; kept && i < nk; i++)
        if (kept[i].have) tvmaf_picture_unref(&kept[i].pic);
    free(kept);
    free(need);
}

void media_pictures(RepDoc *d)
{
    unsigned char *todo = calloc(d->n_enc ? d->n_enc : 1, 1), *done = calloc(d->n_enc ? d->n_enc : 1, 1);
    if (!todo || !done) {
        free(todo);
        free(done);
        return;
    }
    for (unsigned i = 0; i < d->n_enc; i++) {
        RepEncode *e = &d->enc[i];
        if (!e->has_meta) {
            note(e, "the output has no sidecar naming its videos (score with --meta)%s%s", "", "");
            done[i] = 1;
        } else if (!e->ref_open || !e->dis_open) {
            note(e, "an input was read from stdin, which cannot be read again%s%s", "", "");
            done[i] = 1;
        } else if (access(e->ref_open, R_OK) || access(e->dis_open, R_OK)) {
            note(e, "the videos are not reachable here (\"%s\", \"%s\")", e->ref_open,
                 e->dis_open);
            done[i] = 1;
        }
    }
    /* one pass over each reference for all its encodes */
    for (unsigned i = 0; i < d->n_enc; i++) {
        if (done[i]) continue;
        memset(todo, 0, d->n_enc);
        for (unsigned j = i; j < d->n_enc; j++)
            if (!done[j] && !strcmp(d->enc[j].ref_open, d->enc[i].ref_open) &&
                ((!d->enc[j].ref_raw && !d->enc[i].ref_raw) ||
                 (d->enc[j].ref_raw && d->enc[i].ref_raw &&
                  !strcmp(d->enc[j].ref_raw, d->enc[i].ref_raw))) &&
                d->enc[j].skip_ref == d->enc[i].skip_ref)
                todo[j] = done[j] = 1;
        pictures_of_reference(d, todo);
    }
    free(todo);
    free(done);
}

#else /* no FFmpeg */

int media_available(const char **note)
{
    *note = "This build of tvmaf has no FFmpeg: the page has no pictures.";
    return 0;
}

int media_bitrate(const char *path, double *bps, const char **source, char *msg, size_t msg_len)
{
    (void)path;
    (void)bps;
    (void)source;
    snprintf(msg, msg_len, "this build has no FFmpeg to read it");
    return -1;
}

void media_pictures(RepDoc *d)
{
    (void)d;
}

#endif
