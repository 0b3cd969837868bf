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

#include "core/cpu.h"
#include "core/feature.h"
#include "core/feature_name.h"
#include "feature/cambi/cambi_cpu.h"
#include "feature/cambi/cambi_math.h"
#include "feature/cambi/cambi_state.h"

#define DEFAULT_TOPK 0.6
#define DEFAULT_EOTF "bt1886"

/* rows of flatness flags kept for the spatial mask (a power of 2 above 7) */
#define FLAT_RING 8
/* cells after the histograms' last (the vector kernels' gathers read 32 bits) */
#define HIST_PAD 64
/* bins of the pooling's radix select: 16 bits of a c-value at a time */
#define TOPK_BINS 65536

typedef struct CambiState {
    CambiParams p; /* first: the option table's offsets point into it */

    CambiKernels k;
    uint16_t *img;
    uint8_t *mask;
    float *cval;
    uint16_t *hist;       /* in hist_mem, 64-byte aligned */
    void *hist_mem;
    uint8_t *dirty;       /* per histogram row: cells may be non-zero */
    int hist_pitch;       /* the pitch the dirty rows were written at */
    uint16_t *lines;      /* mode filter ring, 3 rows */
    uint8_t *flat;        /* FLAT_RING rows of flatness flags */
    uint8_t *colsum;      /* flat counts of 7 rows per column, CAMBI_CS_PAD zeros each side */
    uint32_t *bins;       /* the pooling's radix select */
    uint8_t *rowany;      /* per mask row: some pixel of the scale's w is set */
    uint8_t *colsany;     /* per mask row: some pixel of the first `cols` is set */
    const uint8_t *cvrows; /* per c-value row: written (NULL: none is) */
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
    free(s->hist_mem);
    free(s->dirty);
    free(s->lines);
    free(s->flat);
    free(s->colsum);
    free(s->bins);
    free(s->rowany);
    free(s->colsany);
    free(s->ix);
    free(s->iy);
    free(s->heat_row);
    s->img = NULL;
    s->mask = NULL;
    s->cval = NULL;
    s->hist = NULL;
    s->hist_mem = NULL;
    s->dirty = NULL;
    s->lines = NULL;
    s->flat = NULL;
    s->colsum = NULL;
    s->bins = NULL;
    s->rowany = NULL;
    s->colsany = NULL;
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
    tvmaf_cambi_dsp_init(&st->k, vi->cpu_flags);
    st->img = calloc(plane, sizeof(*st->img));
    st->mask = calloc(plane, sizeof(*st->mask));
    st->cval = calloc(area, sizeof(*st->cval));
    if (s->any_gate) {
        /* rows 64-byte aligned (the vector kernels' aligned chunks); calloc
         * leaves the rows no pixel value reaches unmapped */
        const size_t cells = (size_t)cambi_hist_pitch((int)s->alloc_w) * s->band.size + HIST_PAD;
        st->hist_mem = calloc(cells + 32, sizeof(*st->hist));
        if (st->hist_mem)
            st->hist = (uint16_t *)(((uintptr_t)st->hist_mem + 63) & ~(uintptr_t)63);
        st->dirty = calloc(s->band.size, sizeof(*st->dirty));
    }
    st->lines = calloc(3 * (size_t)s->alloc_w, sizeof(*st->lines));
    st->flat = calloc(FLAT_RING * (size_t)s->alloc_w, sizeof(*st->flat));
    st->colsum = calloc(s->alloc_w + 2 * CAMBI_CS_PAD, sizeof(*st->colsum));
    st->bins = calloc(TOPK_BINS, sizeof(*st->bins));
    st->rowany = calloc(s->alloc_h, sizeof(*st->rowany));
    st->colsany = calloc(s->alloc_h, sizeof(*st->colsany));
    st->ix = calloc(out_max + in_max, sizeof(*st->ix));
    st->iy = calloc(out_max + in_max, sizeof(*st->iy));
    st->heat_row = calloc(s->alloc_w, sizeof(*st->heat_row));
    if (!st->img || !st->mask || !st->cval || (s->any_gate && (!st->hist || !st->dirty)) ||
        !st->lines || !st->flat || !st->colsum || !st->bins || !st->rowany || !st->colsany ||
        !st->ix || !st->iy || !st->heat_row) {
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
        uint16_t hi = 0; /* the row's largest sample */
        for (unsigned x = 0; x < pic->w[0]; x++) hi = r[x] > hi ? r[x] : hi;
        if (hi > max) return false;
    }
    return true;
}

/* Row y of the luma plane at out_w samples and 10 bits into s->img (row
 * iy of the input, samples ix, when it is resampled). (For a 10-bit input
 * at its own size the reference copies the whole input plane with one
 * memcpy at the input's stride; only with full_ref and a src_width whose
 * 32-aligned stride exceeds the input's do the two strides differ, and
 * there it scrambles rows and reads unwritten memory: rows are copied
 * here.) */
static void load_row(CambiState *s, const TvmafPicture *pic, unsigned out_w, bool same,
                     unsigned y)
{
    const unsigned bpc = pic->bpc;
    const uint8_t *src = (const uint8_t *)pic->data[0] + pic->stride[0] * (same ? y : s->iy[y]);
    uint16_t *dst = s->img + y * s->p.stride;
    if (bpc <= 8) {
        if (same && bpc == 8) {
            s->k.widen8_row(src, dst, out_w);
        } else if (same) {
            for (unsigned x = 0; x < out_w; x++) dst[x] = cambi_to_10bit(src[x], bpc);
        } else {
            for (unsigned x = 0; x < out_w; x++) dst[x] = cambi_to_10bit(src[s->ix[x]], bpc);
        }
    } else {
        const uint16_t *src16 = (const uint16_t *)src;
        if (same) {
            for (unsigned x = 0; x < out_w; x++) dst[x] = cambi_to_10bit(src16[x], bpc);
        } else {
            for (unsigned x = 0; x < out_w; x++) dst[x] = cambi_to_10bit(src16[s->ix[x]], bpc);
        }
    }
}

/* Step y (from -3) of the spatial mask at w x h: the flatness flags of row
 * y + 3 (which read rows y + 3 and y + 4) join the per-column counts of
 * flat pixels, those of row y - 4 leave them (the flags of the last rows
 * are kept in a ring), and, from y = 0, mask row y is 1 where the 7 counts
 * around a column (padded with zeros) add up to more than the threshold:
 * more than `threshold` of the 7x7 pixels around (clipped to the picture)
 * are flat. */
static void mask_step(CambiState *s, unsigned w, unsigned h, unsigned threshold, int y)
{
    const CambiKernels *k = &s->k;
    const int H = (int)h, half = CAMBI_MASK_FILTER / 2;
    const ptrdiff_t stride = s->p.stride;
    uint8_t *cs = s->colsum + CAMBI_CS_PAD;
    const int add = y + half, sub = y - half - 1;
    uint8_t *fa = NULL;
    if (add < H) {
        fa = s->flat + (size_t)(add & (FLAT_RING - 1)) * s->p.alloc_w;
        k->flat_row(s->img + add * stride, add + 1 < H ? s->img + (add + 1) * stride : NULL, w, fa);
    }
    const uint8_t *fs = sub >= 0 ? s->flat + (size_t)(sub & (FLAT_RING - 1)) * s->p.alloc_w : NULL;
    k->colsum_row(cs, fa, fs, w);
    if (y >= 0) s->rowany[y] = k->mask_row(cs, w, threshold, s->mask + y * stride);
}

/*
 * The picture at w x h into s->img and its spatial mask into s->mask, in
 * one pass down the rows: row y is loaded; with `dither` (the reference's
 * 2x2 mean, in place in raster order: a row's mean reads that row and the
 * next before either changes) row y - 1 is then averaged; and each mask
 * step runs as soon as the rows it reads are final (step y reads rows up to
 * y + 4). Every step sees the rows the separate passes would give it.
 */
static void preprocess(CambiState *s, const TvmafPicture *pic, unsigned w, unsigned h,
                       bool dither)
{
    const ptrdiff_t stride = s->p.stride;
    const bool same = pic->w[0] == w && pic->h[0] == h;
    if (!same) {
        cambi_resample_index(pic->w[0], w, s->ix);
        cambi_resample_index(pic->h[0], h, s->iy);
    }
    const unsigned threshold = cambi_mask_threshold(w, h);
    memset(s->colsum, 0, w + 2 * CAMBI_CS_PAD);
    int step = -(CAMBI_MASK_FILTER / 2);
    for (unsigned y = 0; y < h; y++) {
        load_row(s, pic, w, same, y);
        if (dither && y > 0) s->k.dither_row(s->img + (y - 1) * stride, s->img + y * stride, w);
        /* rows [0, final) are final */
        const int final = dither ? (int)y : (int)y + 1;
        for (; step + 5 <= final && step < (int)h; step++) mask_step(s, w, h, threshold, step);
    }
    if (dither) s->k.dither_row(s->img + (h - 1) * stride, NULL, w);
    for (; step < (int)h; step++) mask_step(s, w, h, threshold, step);
}

/*
 * A scale's decimation (when `dec`: cambi_decimate16 and cambi_decimate8)
 * and then its mode filter (cambi_mode_filter), done row by row in one
 * pass: row y is decimated from row 2y, then its horizontal modes go into
 * the 3-line ring and the vertical mode of the last three replaces row
 * y - 1. Row 2y > y has not been written by either (the decimation writes
 * rows up to y, the filter up to y - 1), and row 0 is decimated in place,
 * each sample read before it is written: every row gets the values of the
 * two passes one after the other.
 */
static void decimate_mode(CambiState *s, unsigned w, unsigned h, bool dec)
{
    const ptrdiff_t stride = s->p.stride;
    uint16_t *img = s->img, *l = s->lines;
    uint8_t *mask = s->mask;
    for (unsigned y = 0; y < h; y++) {
        if (dec && y == 0) {
            uint8_t any = 0;
            for (unsigned x = 0; x < w; x++) {
                img[x] = img[2 * x];
                mask[x] = mask[2 * x];
                any |= mask[x];
            }
            s->rowany[0] = any != 0;
        } else if (dec) {
            s->k.dec16_row(img + 2 * y * stride, img + y * stride, w);
            s->rowany[y] = s->k.dec8_row(mask + 2 * y * stride, mask + y * stride, w);
        }
        s->k.hmode_row(img + y * stride, w, l + (y % 3) * w);
        if (y >= 2) s->k.vmode_row(l, l + w, l + 2 * w, w, img + (y - 1) * stride);
    }
}

/* c-values of the w x h scale into s->cval (raster order), with the
 * statistics the pooling takes. The rows without a masked pixel are all 0
 * and left unwritten (s->cvrows says which are written) until
 * fill_zero_rows. */
static void c_values(CambiState *s, int w, int h, int window, CambiCvalStats *st)
{
    const int half = window >> 1;
    const ptrdiff_t stride = s->p.stride;
    *st = (CambiCvalStats){ 0, 0, 0.0 };
    s->cvrows = NULL;
    if (!s->p.any_gate) return;
    /* zero what the last pass left (rows at its pitch) */
    for (unsigned r = 0; r < s->p.band.size; r++) {
        if (!s->dirty[r]) continue;
        memset(s->hist + (size_t)r * s->hist_pitch, 0, (size_t)s->hist_pitch * sizeof(*s->hist));
        s->dirty[r] = 0;
    }
    s->hist_pitch = cambi_hist_pitch(w);
    /* columns whose pixels enter the histograms: the reference takes the
     * first half-window of columns even where the scale is narrower */
    const CambiRows c = {
        .hist = s->hist, .dirty = s->dirty, .w = w, .pitch = s->hist_pitch, .half = half,
        .cols = w > half ? w : half,
        .band = s->p.band, .num_diffs = s->p.num_diffs, .limit = s->p.limit,
        .vlt_code = s->p.vlt_code, .recip = s->p.recip,
    };
    const CambiKernels *k = &s->k;
    /* rows without a masked pixel (in the columns read) change nothing */
    const uint8_t *any = s->rowany;
    if (c.cols > w) {
        for (int y = 0; y < h; y++)
            s->colsany[y] = k->any_row(s->mask + y * stride, (unsigned)c.cols);
        any = s->colsany;
    }
    s->cvrows = any;
    for (int y = 0; y < half; y++)
        if (any[y]) k->hist_row(&c, NULL, NULL, s->img + y * stride, s->mask + y * stride);
    for (int y = 0; y < h; y++) {
        const int in = y + half, out = y - half - 1;
        const bool add = in < h && any[in], sub = out >= 0 && any[out];
        if (add || sub)
            k->hist_row(&c, sub ? s->img + out * stride : NULL, sub ? s->mask + out * stride : NULL,
                        add ? s->img + in * stride : NULL, add ? s->mask + in * stride : NULL);
        if (any[y])
            k->cval_row(&c, s->img + y * stride, s->mask + y * stride, s->cval + (size_t)y * w, st);
    }
}

/* the rows c_values left unwritten, zeroed (for what reads every value) */
static void fill_zero_rows(CambiState *s, unsigned w, unsigned h)
{
    for (unsigned y = 0; y < h; y++)
        if (!s->cvrows || !s->cvrows[y]) memset(s->cval + (size_t)y * w, 0, w * sizeof(*s->cval));
}

/*
 * The mean of the top k c-values, as cambi_pool computes it, without its
 * quickselect where the sum is exact in any order. Every c-value is 0 or at
 * least 0.5 (cambi_math.h's device pooling says why; the statistics check
 * it), so a whole number of units of 2^-24. When all of them add up to less
 * than 2^29, every partial sum of any subset in any order is such a number
 * below 2^29, exact in a double: the reference's sum of its k values is
 * their exact sum. Then:
 *   - with no more than k non-zero values, the k largest are all of them
 *     and zeros: the sum is the statistics' sum (itself exact);
 *   - else the k-th largest value T is found by a radix select on the
 *     float's bits (a non-negative float orders as its bits), 16 bits at a
 *     time, and the sum is the units above T plus T's units for the rest of
 *     the k, in 64-bit integers.
 * Otherwise (never met in the tests) cambi_pool runs.
 */
static inline uint64_t units(float v)
{
    return (uint64_t)(v * CAMBI_UNIT_SCALE); /* exact: a power of 2, a whole number */
}

static double pool(CambiState *s, unsigned w, unsigned h, const CambiCvalStats *st)
{
    const double topk = s->p.pool_topk;
    const int n = (int)(w * h), k = cambi_topk_count(topk, w, h);
    if (!st->odd && st->sum < 536870912.0 && (int)st->nnz <= k) return st->sum / k;
    fill_zero_rows(s, w, h);
    if (st->odd || !(st->sum < 536870912.0)) return cambi_pool(s->cval, topk, w, h);
    uint32_t *bins = s->bins;
    const float *c = s->cval;
    memset(bins, 0, TOPK_BINS * sizeof(*bins));
    for (int i = 0; i < n; i++) bins[tvmaf_f2bits(c[i]) >> 16]++;
    uint32_t rest = (uint32_t)k;
    uint32_t hi = TOPK_BINS - 1;
    for (; bins[hi] < rest; hi--) rest -= bins[hi];
    memset(bins, 0, TOPK_BINS * sizeof(*bins));
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t b = tvmaf_f2bits(c[i]);
        if (b >> 16 > hi) total += units(c[i]);
        else if (b >> 16 == hi) bins[b & 0xffff]++;
    }
    for (uint32_t lo = TOPK_BINS - 1;; lo--) {
        const uint64_t u = units(tvmaf_bits2f(hi << 16 | lo));
        if (bins[lo] >= rest) {
            total += rest * u;
            break;
        }
        total += bins[lo] * u;
        rest -= bins[lo];
    }
    return cambi_topk_mean(total, k);
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

CAMBI_KERNELS_DEFINE(tvmaf_cambi_kernels_c);

void tvmaf_cambi_dsp_init(CambiKernels *c, unsigned cpu_flags)
{
    *c = tvmaf_cambi_kernels_c;
    TVMAF_DSP_INIT_X86(c, cpu_flags, cambi);
}

/* the cambi score of one picture at geometry g */
static int picture_score(CambiState *s, const TvmafPicture *pic, const CambiGeom *g,
                         bool heatmap, unsigned index, double *score)
{
    if (!tvmaf_cambi_samples_in_range(pic)) return -EINVAL;
    preprocess(s, pic, g->w, g->h, s->p.work_bits < 10);

    double scale_score[CAMBI_NUM_SCALES];
    unsigned w = g->w, h = g->h;
    for (int k = 0; k < CAMBI_NUM_SCALES; k++) {
        const bool dec = cambi_scale_step(k, s->p.halved, &w, &h);
        decimate_mode(s, w, h, dec);
        CambiCvalStats st;
        c_values(s, (int)w, (int)h, g->window, &st);
        if (heatmap) {
            fill_zero_rows(s, w, h);
            int err = tvmaf_cambi_write_heatmap(&s->p, k, w, h, g->window, index, s->cval,
                                                s->heat_row);
            if (err) return err;
        }
        scale_score[k] = pool(s, w, h, &st);
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
