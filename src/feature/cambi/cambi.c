/*
 * cambi on the CPU: the banding index of the distorted luma (and, with
 * full_ref, of the reference luma and their difference), equal to libvmaf's
 * cambi bit for bit.
 *
 * Per picture: the luma plane is brought to 10 bits at the encode size
 * (nearest-neighbour resampling when the encode was smaller), smoothed by a
 * 2x2 mean when the encode had fewer than 10 bits, and a mask marks the
 * pixels in flat 7x7 surroundings. Then at five scales (halving each time;
 * with the high-resolution speed-up also before the first) the image is
 * mode-filtered, each masked pixel gets a c-value from the histogram of its
 * window, and the scale's score is the mean of its top-k c-values.
 *
 * The reference works in place on two buffers (image and mask) that keep
 * the whole encode size while the scales shrink; on narrow pictures its
 * histograms take in columns past a scale's width, up to half the window,
 * from what the earlier scales left there. Doing the same in-place steps on
 * buffers of the same shape gives those columns the same values. Pictures
 * on which it would read outside its buffers (a scale lower than half the
 * window, a plane narrower than half the window) are refused.
 *
 * Frames are independent, so every worker thread has its own instance.
 * With heatmaps_path set, the c-values of the distorted picture at every
 * scale are also written, as 16-bit samples, to one file per scale at the
 * frame's offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/cambi/cambi_math.h"
#include "feature/cambi/cambi_state.h"

#define DEFAULT_TOPK 0.6
#define DEFAULT_EOTF "bt1886"

typedef struct CambiState {
    CambiParams p; /* first: the option table's offsets point into it */

    uint16_t *img;
    uint8_t *mask;
    float *cval;
    uint16_t *hist;
    uint16_t *lines;      /* mode filter ring, 3 rows */
    uint8_t *flat;        /* one row of flatness flags */
    uint32_t *colsum;     /* flat counts of 7 rows, per column */
    unsigned *ix, *iy;    /* resampling positions */
    uint16_t *heat_row;
} CambiState;

const TvmafOption tvmaf_cambi_options[] = {
    { "cambi_max_val", "largest value written; larger scores are clipped to it",
      offsetof(CambiParams, cambi_max_val), TVMAF_OPT_DOUBLE, { .d = 1000.0 }, 0.0, 1000.0,
      TVMAF_OPT_FEATURE_PARAM, "cmxv" },
    { "enc_width", "width of the encode (0: the input's)",
      offsetof(CambiParams, enc_width), TVMAF_OPT_INT, { .i = 0 }, 180, 7680,
      TVMAF_OPT_FEATURE_PARAM, "encw" },
    { "enc_height", "height of the encode (0: the input's)",
      offsetof(CambiParams, enc_height), TVMAF_OPT_INT, { .i = 0 }, 150, 7680,
      TVMAF_OPT_FEATURE_PARAM, "ench" },
    { "enc_bitdepth", "bit depth of the encode (0: the input's)",
      offsetof(CambiParams, enc_bitdepth), TVMAF_OPT_INT, { .i = 0 }, 6, 16,
      TVMAF_OPT_FEATURE_PARAM, "encbd" },
    { "src_width", "width of the source, with full_ref (0: the input's)",
      offsetof(CambiParams, src_width), TVMAF_OPT_INT, { .i = 0 }, 320, 7680,
      TVMAF_OPT_FEATURE_PARAM, "srcw" },
    { "src_height", "height of the source, with full_ref (0: the input's)",
      offsetof(CambiParams, src_height), TVMAF_OPT_INT, { .i = 0 }, 200, 4320,
      TVMAF_OPT_FEATURE_PARAM, "srch" },
    { "window_size", "window side at 4K (65 is about one degree), scaled to the frame",
      offsetof(CambiParams, window_size), TVMAF_OPT_INT, { .i = 65 }, 15, 127,
      TVMAF_OPT_FEATURE_PARAM, "ws" },
    { "topk", "fraction of the c-values pooled per scale (0 < topk <= 1)",
      offsetof(CambiParams, topk), TVMAF_OPT_DOUBLE, { .d = DEFAULT_TOPK }, 0.0001, 1.0,
      TVMAF_OPT_FEATURE_PARAM, NULL },
    { "cambi_topk", "fraction of the c-values pooled per scale; topk wins when set",
      offsetof(CambiParams, cambi_topk), TVMAF_OPT_DOUBLE, { .d = DEFAULT_TOPK }, 0.0001, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "ctpk" },
    { "tvi_threshold", "a luminance step dL is visible when dL > tvi_threshold * L",
      offsetof(CambiParams, tvi_threshold), TVMAF_OPT_DOUBLE, { .d = 0.019 }, 0.0001, 1.0,
      TVMAF_OPT_FEATURE_PARAM, "tvit" },
    { "cambi_vis_lum_threshold", "luminance (cd/m2) below which banding is not counted",
      offsetof(CambiParams, cambi_vis_lum_threshold), TVMAF_OPT_DOUBLE, { .d = 0.0 }, 0.0, 300.0,
      TVMAF_OPT_FEATURE_PARAM, "vlt" },
    { "max_log_contrast", "largest contrast step, 2^max_log_contrast 10-bit codes",
      offsetof(CambiParams, max_log_contrast), TVMAF_OPT_INT, { .i = 2 }, 0, 5,
      TVMAF_OPT_FEATURE_PARAM, "mlc" },
    { "heatmaps_path", "directory to write the c-value heat maps to (default: none)",
      offsetof(CambiParams, heatmaps_path), TVMAF_OPT_STRING, { .s = "" }, 0, 0,
      TVMAF_OPT_WRITES_FILES, NULL },
    { "full_ref", "also score the reference and write cambi_source and cambi_full_reference",
      offsetof(CambiParams, full_ref), TVMAF_OPT_BOOL, { .b = false }, 0, 0, 0, NULL },
    { "eotf", "EOTF of the visibility model: bt1886 or pq",
      offsetof(CambiParams, eotf), TVMAF_OPT_STRING, { .s = DEFAULT_EOTF }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, NULL },
    { "cambi_eotf", "EOTF of the visibility model: bt1886 or pq; wins over eotf when set",
      offsetof(CambiParams, cambi_eotf), TVMAF_OPT_STRING, { .s = DEFAULT_EOTF }, 0, 0,
      TVMAF_OPT_FEATURE_PARAM, "ceot" },
    { "cambi_high_res_speedup", "halve the scales from this height up (1080, 1440, 2160; 0: never)",
      offsetof(CambiParams, cambi_high_res_speedup), TVMAF_OPT_INT, { .i = 0 }, 0, 2160,
      TVMAF_OPT_FEATURE_PARAM, "hrs" },
    { 0 },
};

static const char *const key_names[3] = {
    "Cambi_feature_cambi_score", "cambi_source", "cambi_full_reference",
};

void tvmaf_cambi_params_close(CambiParams *p)
{
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        if (p->heat_fd[k] >= 0) close(p->heat_fd[k]);
        p->heat_fd[k] = -1;
    }
}

static void close_cambi(void *priv)
{
    CambiState *s = priv;
    free(s->img);
    free(s->mask);
    free(s->cval);
    free(s->hist);
    free(s->lines);
    free(s->flat);
    free(s->colsum);
    free(s->ix);
    free(s->iy);
    free(s->heat_row);
    s->img = NULL;
    s->mask = NULL;
    s->cval = NULL;
    s->hist = NULL;
    s->lines = NULL;
    s->flat = NULL;
    s->colsum = NULL;
    s->ix = s->iy = NULL;
    s->heat_row = NULL;
    tvmaf_cambi_params_close(&s->p);
}

/* Whether the reference stays inside its buffers on a picture processed at
 * w x h with this window: every scale at least half a window high (else it
 * visits rows above the first), the picture higher than half a window (the
 * first rows' pass reads one row past the last), and at least half a window
 * wide (its histograms read that many columns). */
static bool fits(unsigned w, unsigned h, int window, bool halved)
{
    const unsigned half = (unsigned)window >> 1;
    if (w < half || h <= half) return false;
    unsigned sh = h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        if (k > 0 || halved) sh = (sh + 1) >> 1;
        if (sh < half) return false;
    }
    return true;
}

/* the smallest height at width w that fits (for the refusal message) */
static unsigned min_fitting_height(unsigned w, unsigned h, int option, bool halved)
{
    for (unsigned t = h; t < 65536; t++)
        if (fits(w, t, cambi_window(option, w, t, halved), halved)) return t;
    return 0;
}

static int refuse_geometry(const char *what, const CambiGeom *g, int option, bool halved,
                           char *msg, size_t len)
{
    const unsigned half = (unsigned)g->window >> 1;
    if (g->w < half) {
        snprintf(msg, len, "feature \"cambi\" needs a %s at least %u pixels wide (half its "
                 "%d-pixel window), got %ux%u", what, half, g->window, g->w, g->h);
    } else {
        const unsigned need = min_fitting_height(g->w, g->h, option, halved);
        snprintf(msg, len, "feature \"cambi\" needs a %s of at least %ux%u (each of its 5 "
                 "scales at least half its window high), got %ux%u", what, g->w, need,
                 g->w, g->h);
    }
    return -EINVAL;
}

/* mkdir -p with mode 0770, as the reference creates the heat-map directory */
static int make_dirs(const char *path)
{
    char buf[TVMAF_OPT_STRING_LEN];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; ; p++) {
        const bool end = *p == '\0';
        if (*p == '/' || end) {
            const char saved = *p;
            *p = '\0';
            if (buf[0] && mkdir(buf, 0770) && errno != EEXIST) return -1;
            *p = saved;
        }
        if (end) break;
    }
    return 0;
}

static int open_heatmaps(CambiParams *s, char *msg, size_t len)
{
    if (make_dirs(s->heatmaps_path)) {
        snprintf(msg, len, "feature \"cambi\": cannot create heatmaps_path \"%s\"",
                 s->heatmaps_path);
        return -EINVAL;
    }
    unsigned w = s->enc.w, h = s->enc.h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        char path[TVMAF_OPT_STRING_LEN + 64];
        snprintf(path, sizeof(path), "%s/cambi_heatmap_scale_%d_%ux%u_16b.gray",
                 s->heatmaps_path, k, w, h);
        /* every instance truncates at init, before any frame is written;
         * each then writes its own frames at their offsets */
        s->heat_fd[k] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (s->heat_fd[k] < 0) {
            snprintf(msg, len, "feature \"cambi\": cannot open heat map \"%s\"", path);
            return -EINVAL;
        }
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
    return 0;
}

int tvmaf_cambi_setup(CambiParams *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) s->heat_fd[k] = -1;

    /* The score's key carries the option suffixes (from the options as
     * given, before anything is derived); the reference suffixes only its
     * provided feature, so cambi_source and cambi_full_reference keep their
     * plain names whatever the options. */
    if (tvmaf_feature_key(s->key[0], CAMBI_KEY_LEN, key_names[0], tvmaf_cambi_options, s)) {
        snprintf(msg, len, "feature \"cambi\": output key name too long");
        return -EINVAL;
    }
    snprintf(s->key[1], CAMBI_KEY_LEN, "%s", key_names[1]);
    snprintf(s->key[2], CAMBI_KEY_LEN, "%s", key_names[2]);
    if (vi->bpc < 8 || vi->bpc > 16) {
        snprintf(msg, len, "feature \"cambi\" does not support %u-bit input (8 to 16 bits)",
                 vi->bpc);
        return -EINVAL;
    }

    const unsigned w = vi->w, h = vi->h;
    s->work_bits = s->enc_bitdepth ? (unsigned)s->enc_bitdepth : vi->bpc;
    unsigned ew = (unsigned)s->enc_width, eh = (unsigned)s->enc_height;
    if (!ew || !eh) { ew = w; eh = h; }
    unsigned sw = (unsigned)s->src_width, sh = (unsigned)s->src_height;
    if (!sw || !sh) { sw = w; sh = h; }
    /* a downscaled encode is scored at its own size, never upscaled */
    if (eh > h || ew > w) { ew = w; eh = h; }

    if (ew < CAMBI_MIN_SIDE && eh < CAMBI_MIN_SIDE) {
        snprintf(msg, len, "feature \"cambi\" needs a frame of at least %d pixels in width or "
                 "height, got %ux%u%s", CAMBI_MIN_SIDE, ew, eh,
                 ew != w || eh != h ? " (the encode size)" : "");
        return -EINVAL;
    }
    if (sw < CAMBI_MIN_SIDE && sh < CAMBI_MIN_SIDE) {
        snprintf(msg, len, "feature \"cambi\" needs a source of at least %d pixels in width "
                 "or height, got %ux%u", CAMBI_MIN_SIDE, sw, sh);
        return -EINVAL;
    }
    if ((sw > ew && sh < eh) || (sw < ew && sh > eh)) {
        snprintf(msg, len, "feature \"cambi\" does not support a source of %ux%u for an "
                 "encode of %ux%u (wider but lower, or narrower but higher)", sw, sh, ew, eh);
        return -EINVAL;
    }

    const unsigned enc_pix = ew * eh;
    switch (s->cambi_high_res_speedup) {
    case 1080: s->halved = enc_pix >= 1920u * 1080u; break;
    case 1440: s->halved = enc_pix >= 2560u * 1440u; break;
    case 2160: s->halved = enc_pix >= 3840u * 2160u; break;
    default: s->halved = false; break;
    }

    s->num_diffs = 1 << s->max_log_contrast;
    const char *eotf_name = strcmp(s->cambi_eotf, DEFAULT_EOTF) ? s->cambi_eotf : s->eotf;
    int eotf;
    if (!strcmp(eotf_name, "bt1886")) {
        eotf = CAMBI_EOTF_BT1886;
    } else if (!strcmp(eotf_name, "pq")) {
        eotf = CAMBI_EOTF_PQ;
    } else {
        snprintf(msg, len, "feature \"cambi\" does not support eotf \"%s\" (bt1886 or pq)",
                 eotf_name);
        return -EINVAL;
    }
    for (int d = 0; d < s->num_diffs; d++)
        s->limit[d] = (uint16_t)(cambi_visibility_limit(d + 1, s->tvi_threshold, eotf)
                                 + s->num_diffs);
    s->vlt_code = cambi_visibility_floor(s->cambi_vis_lum_threshold, eotf);
    if (s->vlt_code < 0) {
        snprintf(msg, len, "feature \"cambi\" does not support a cambi_vis_lum_threshold of "
                 "%g: no code value reaches it on the %s display (the reference never "
                 "returns)", s->cambi_vis_lum_threshold, eotf_name);
        return -EINVAL;
    }

    s->enc = (CambiGeom){ ew, eh, cambi_window(s->window_size, ew, eh, s->halved) };
    s->src = (CambiGeom){ sw, sh, cambi_window(s->window_size, sw, sh, s->halved) };
    const int max_window = s->enc.window > s->src.window ? s->enc.window : s->src.window;
    if (max_window * max_window >= CAMBI_RECIP_SIZE) {
        snprintf(msg, len, "feature \"cambi\" does not support a window of %d pixels (at "
                 "most 65; window_size %d scaled to %ux%u)", max_window, s->window_size,
                 s->enc.window >= s->src.window ? ew : sw, s->enc.window >= s->src.window ? eh : sh);
        return -EINVAL;
    }
    if (!fits(s->enc.w, s->enc.h, s->enc.window, s->halved))
        return refuse_geometry("frame", &s->enc, s->window_size, s->halved, msg, len);
    if (s->full_ref && !fits(s->src.w, s->src.h, s->src.window, s->halved))
        return refuse_geometry("source", &s->src, s->window_size, s->halved, msg, len);

    s->pool_topk = s->topk != DEFAULT_TOPK ? s->topk : s->cambi_topk;
    for (int i = 0; i < CAMBI_RECIP_SIZE; i++) s->recip[i] = cambi_reciprocal(i);

    s->band = cambi_band(s->vlt_code, s->num_diffs, s->limit);
    /* c-values are 0 everywhere unless some value the image can hold passes
     * the band test and a visibility gate. A large cambi_vis_lum_threshold
     * closes them all; a still larger one (above about 84 cd/m2 at the
     * defaults) makes the band's 16-bit size wrap, and the reference then
     * indexes its histograms below their start and crashes: 0 is what it
     * computes up to there. */
    s->any_gate = false;
    for (int v = 0; v <= CAMBI_WORK_CEIL && !s->any_gate; v++) {
        if ((unsigned)(v - s->band.base) >= s->band.size) continue;
        for (int d = 0; d < s->num_diffs; d++)
            if (v + s->num_diffs <= s->limit[d] && v + s->num_diffs + d + 1 > s->vlt_code)
                s->any_gate = true;
    }

    s->alloc_w = s->full_ref && s->src.w > ew ? s->src.w : ew;
    s->alloc_h = s->full_ref && s->src.h > eh ? s->src.h : eh;
    s->stride = (ptrdiff_t)((s->alloc_w + 31) & ~31u);
    s->in_w = w;
    s->in_h = h;
    if (s->heatmaps_path[0]) return open_heatmaps(s, msg, len);
    return 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    CambiState *st = priv;
    CambiParams *s = &st->p;
    int err = tvmaf_cambi_setup(s, vi, msg, len);
    if (err) {
        tvmaf_cambi_params_close(s);
        return err;
    }
    const unsigned w = vi->w, h = vi->h;
    const size_t plane = (size_t)s->stride * s->alloc_h;
    const size_t area = (size_t)s->alloc_w * s->alloc_h;
    const unsigned in_max = w > h ? w : h;
    const unsigned out_max = s->alloc_w > s->alloc_h ? s->alloc_w : s->alloc_h;
    st->img = calloc(plane, sizeof(*st->img));
    st->mask = calloc(plane, sizeof(*st->mask));
    st->cval = calloc(area, sizeof(*st->cval));
    st->hist = s->any_gate ? calloc((size_t)s->alloc_w * s->band.size + 1, sizeof(*st->hist))
                          : NULL;
    st->lines = calloc(3 * (size_t)s->alloc_w, sizeof(*st->lines));
    st->flat = calloc(s->alloc_w, sizeof(*st->flat));
    st->colsum = calloc(s->alloc_w, sizeof(*st->colsum));
    st->ix = calloc(out_max + in_max, sizeof(*st->ix));
    st->iy = calloc(out_max + in_max, sizeof(*st->iy));
    st->heat_row = calloc(s->alloc_w, sizeof(*st->heat_row));
    if (!st->img || !st->mask || !st->cval || (s->any_gate && !st->hist) || !st->lines ||
        !st->flat || !st->colsum || !st->ix || !st->iy || !st->heat_row) {
        close_cambi(st);
        return -ENOMEM;
    }
    return 0;
}

/* The reference refuses samples above the input's bit depth (8 and 16 bits
 * cannot have any). */
bool tvmaf_cambi_samples_in_range(const TvmafPicture *pic)
{
    if (pic->bpc <= 8 || pic->bpc >= 16) return true;
    const unsigned max = (1u << pic->bpc) - 1;
    const uint8_t *row = pic->data[0];
    for (unsigned y = 0; y < pic->h[0]; y++, row += pic->stride[0]) {
        const uint16_t *r = (const uint16_t *)row;
        for (unsigned x = 0; x < pic->w[0]; x++)
            if (r[x] > max) return false;
    }
    return true;
}

/* The luma plane at out_w x out_h and 10 bits into s->img. (For a 10-bit
 * input at its own size the reference copies the whole input plane with one
 * memcpy at the input's stride; only with full_ref and a src_width whose
 * 32-aligned stride exceeds the input's do the two strides differ, and there
 * it scrambles rows and reads unwritten memory: rows are copied here.) */
static void load_luma(CambiState *s, const TvmafPicture *pic, unsigned out_w, unsigned out_h)
{
    const unsigned in_w = pic->w[0], in_h = pic->h[0], bpc = pic->bpc;
    const bool same = in_w == out_w && in_h == out_h;
    if (!same) {
        cambi_resample_index(in_w, out_w, s->ix);
        cambi_resample_index(in_h, out_h, s->iy);
    }
    for (unsigned y = 0; y < out_h; y++) {
        const uint8_t *src = (const uint8_t *)pic->data[0] + pic->stride[0] * (same ? y : s->iy[y]);
        uint16_t *dst = s->img + y * s->p.stride;
        if (bpc <= 8) {
            for (unsigned x = 0; x < out_w; x++)
                dst[x] = cambi_to_10bit(src[same ? x : s->ix[x]], bpc);
        } else {
            const uint16_t *src16 = (const uint16_t *)src;
            for (unsigned x = 0; x < out_w; x++)
                dst[x] = cambi_to_10bit(src16[same ? x : s->ix[x]], bpc);
        }
    }
}

/* The mask at w x h: 1 where more than `threshold` of the 7x7 pixels around
 * (clipped to the picture) are flat. Column counts of flat pixels over the
 * 7 rows slide down the picture, row sums slide across it. */
static void spatial_mask(CambiState *s, unsigned w, unsigned h)
{
    const int W = (int)w, H = (int)h, half = CAMBI_MASK_FILTER / 2;
    const unsigned threshold = cambi_mask_threshold(w, h);
    memset(s->colsum, 0, w * sizeof(*s->colsum));
    for (int y = 0; y < half && y < H; y++) {
        cambi_flat_row(s->img, s->p.stride, W, H, y, s->flat);
        for (int x = 0; x < W; x++) s->colsum[x] += s->flat[x];
    }
    for (int y = 0; y < H; y++) {
        if (y + half < H) {
            cambi_flat_row(s->img, s->p.stride, W, H, y + half, s->flat);
            for (int x = 0; x < W; x++) s->colsum[x] += s->flat[x];
        }
        if (y - half - 1 >= 0) {
            cambi_flat_row(s->img, s->p.stride, W, H, y - half - 1, s->flat);
            for (int x = 0; x < W; x++) s->colsum[x] -= s->flat[x];
        }
        uint8_t *m = s->mask + y * s->p.stride;
        uint32_t sum = 0;
        for (int x = 0; x < half && x < W; x++) sum += s->colsum[x];
        for (int x = 0; x < W; x++) {
            if (x + half < W) sum += s->colsum[x + half];
            if (x - half - 1 >= 0) sum -= s->colsum[x - half - 1];
            m[x] = sum > threshold;
        }
    }
}

/* adds (delta 1) or removes (delta 0xffff) row y's masked in-band pixels,
 * columns [0, cols), to the histograms of the columns their window covers */
static void hist_row(CambiState *s, int y, int cols, int w, int half, uint16_t delta)
{
    const uint16_t *img = s->img + y * s->p.stride;
    const uint8_t *mask = s->mask + y * s->p.stride;
    for (int x = 0; x < cols; x++) {
        if (!mask[x] || !cambi_in_band(s->p.band, img[x])) continue;
        const int lo = x - half > 0 ? x - half : 0;
        const int hi = x + half + 1 < w ? x + half + 1 : w;
        cambi_hist_range(s->hist + (size_t)(uint16_t)(img[x] - s->p.band.base) * w, lo, hi, delta);
    }
}

/* both at once: skips a column where the leaving and the entering pixel
 * count for the same cells */
static void hist_slide(CambiState *s, int y_out, int y_in, int cols, int w, int half)
{
    const uint16_t *io = s->img + y_out * s->p.stride, *ii = s->img + y_in * s->p.stride;
    const uint8_t *mo = s->mask + y_out * s->p.stride, *mi = s->mask + y_in * s->p.stride;
    for (int x = 0; x < cols; x++) {
        const bool out = mo[x] && cambi_in_band(s->p.band, io[x]);
        const bool in = mi[x] && cambi_in_band(s->p.band, ii[x]);
        if (out && in && io[x] == ii[x]) continue;
        const int lo = x - half > 0 ? x - half : 0;
        const int hi = x + half + 1 < w ? x + half + 1 : w;
        if (out)
            cambi_hist_range(s->hist + (size_t)(uint16_t)(io[x] - s->p.band.base) * w, lo, hi,
                             0xffff);
        if (in)
            cambi_hist_range(s->hist + (size_t)(uint16_t)(ii[x] - s->p.band.base) * w, lo, hi, 1);
    }
}

/* c-values of the w x h scale into s->cval (raster order) */
static void c_values(CambiState *s, int w, int h, int window)
{
    const int half = window >> 1;
    memset(s->cval, 0, (size_t)w * h * sizeof(*s->cval));
    if (!s->p.any_gate) return;
    memset(s->hist, 0, (size_t)w * s->p.band.size * sizeof(*s->hist));
    /* columns whose pixels enter the histograms: the reference takes the
     * first half-window of columns even where the scale is narrower */
    const int cols = w > half ? w : half;
    for (int y = 0; y < half; y++) hist_row(s, y, cols, w, half, 1);
    for (int y = 0; y < h; y++) {
        const bool in = y + half < h, out = y - half - 1 >= 0;
        if (in && out) hist_slide(s, y - half - 1, y + half, cols, w, half);
        else if (in) hist_row(s, y + half, cols, w, half, 1);
        else if (out) hist_row(s, y - half - 1, cols, w, half, 0xffff);
        const uint16_t *img = s->img + y * s->p.stride;
        const uint8_t *mask = s->mask + y * s->p.stride;
        float *c = s->cval + (size_t)y * w;
        for (int x = 0; x < w; x++)
            if (mask[x])
                c[x] = cambi_c_value(s->hist + x, w, img[x], s->p.band, s->p.num_diffs, s->p.limit,
                                     s->p.vlt_code, s->p.recip);
    }
}

int tvmaf_cambi_write_heatmap(const CambiParams *p, int scale, unsigned w, unsigned h,
                              int window, unsigned index, const float *cval, uint16_t *row)
{
    int max_weight = cambi_contrast_weight(0);
    for (int d = 0; d < p->num_diffs; d++)
        if (cambi_contrast_weight(d) > max_weight) max_weight = cambi_contrast_weight(d);
    const int max_c = max_weight * window * window / 4;
    /* a 1-pixel window gives 0 (its c-values are all 0): infinite scaling */
    const double scaling = max_c ? (double)65535 / max_c : INFINITY;
    for (unsigned y = 0; y < h; y++) {
        const float *c = cval + (size_t)y * w;
        for (unsigned x = 0; x < w; x++) row[x] = cambi_heat_sample(scaling * c[x]);
        const off_t at = (off_t)(((uint64_t)index * h + y) * w * sizeof(uint16_t));
        const size_t bytes = w * sizeof(uint16_t);
        if (pwrite(p->heat_fd[scale], row, bytes, at) != (ssize_t)bytes) return -EIO;
    }
    return 0;
}

/* the cambi score of one picture at geometry g */
static int picture_score(CambiState *s, const TvmafPicture *pic, const CambiGeom *g,
                         bool heatmap, unsigned index, double *score)
{
    if (!tvmaf_cambi_samples_in_range(pic)) return -EINVAL;
    load_luma(s, pic, g->w, g->h);
    if (s->p.work_bits < 10) cambi_anti_dither(s->img, s->p.stride, g->w, g->h);
    spatial_mask(s, g->w, g->h);

    double scale_score[CAMBI_NUM_SCALES];
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        if (cambi_scale_step(k, s->p.halved, &w, &h)) {
            cambi_decimate16(s->img, s->p.stride, (int)w, (int)h);
            cambi_decimate8(s->mask, s->p.stride, (int)w, (int)h);
        }
        cambi_mode_filter(s->img, s->p.stride, (int)w, (int)h, s->lines);
        c_values(s, (int)w, (int)h, g->window);
        if (heatmap) {
            int err = tvmaf_cambi_write_heatmap(&s->p, k, w, h, g->window, index, s->cval,
                                                s->heat_row);
            if (err) return err;
        }
        scale_score[k] = cambi_pool(s->cval, s->p.pool_topk, w, h);
    }
    *score = cambi_combine_scales(scale_score, g->window);
    return 0;
}

int tvmaf_cambi_report(const CambiParams *p, unsigned index, double dist, const double *src,
                       TvmafSink *sink)
{
    int err = tvmaf_sink_append(sink, p->key[0], index,
                                dist < p->cambi_max_val ? dist : p->cambi_max_val);
    if (err || !src) return err;
    /* the banding the encode added: max(0, dist - src), then clipped */
    const double diff = dist - *src;
    const double added = 0 > diff ? 0 : diff;
    err = tvmaf_sink_append(sink, p->key[1], index,
                            *src < p->cambi_max_val ? *src : p->cambi_max_val);
    if (err) return err;
    return tvmaf_sink_append(sink, p->key[2], index,
                             added < p->cambi_max_val ? added : p->cambi_max_val);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    CambiState *s = priv;
    double dist, src;
    int err = picture_score(s, dis, &s->p.enc, s->p.heatmaps_path[0] != '\0', index, &dist);
    if (err) return err;
    if (!s->p.full_ref) return tvmaf_cambi_report(&s->p, index, dist, NULL, sink);
    if ((err = picture_score(s, ref, &s->p.src, false, index, &src))) {
        /* the distorted picture's score is written before the source fails */
        tvmaf_cambi_report(&s->p, index, dist, NULL, sink);
        return err;
    }
    return tvmaf_cambi_report(&s->p, index, dist, &src, sink);
}

const char *const tvmaf_cambi_provided[] = { "Cambi_feature_cambi_score", NULL };

const TvmafExtractor tvmaf_fex_cambi = {
    .name = "cambi",
    .backend = TVMAF_BACKEND_CPU,
    .options = tvmaf_cambi_options,
    .priv_size = sizeof(CambiState),
    .flags = TVMAF_FEX_LUMA_ONLY,
    .init = init,
    .extract = extract,
    .close = close_cambi,
    .provided_features = tvmaf_cambi_provided,
};
