/*
 * psnr_hvs on the CPU: PSNR-HVS-M per plane (psnr_hvs_y, psnr_hvs_cb,
 * psnr_hvs_cr) and their 0.8/0.1/0.1 combination (psnr_hvs), equal to
 * libvmaf's psnr_hvs bit for bit. The arithmetic is in psnr_hvs_math.h.
 *
 * Like the reference, it takes 8 to 12 bits per sample and needs chroma;
 * blocks that do not fit wholly in a plane are not scored, so any size is
 * read within its planes. A plane under 8x8 has no block (the reference
 * prints NaN for it): such input is refused. Where reference and distorted
 * are equal the score is +inf, written as null. The checks and the report
 * are shared with the twins (psnr_hvs_state.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "core/feature.h"
#include "feature/psnr_hvs/psnr_hvs_math.h"
#include "feature/psnr_hvs/psnr_hvs_state.h"

int tvmaf_psnr_hvs_setup(PsnrHvsParams *s, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    if (vi->bpc > PHVS_MAX_BPC) {
        snprintf(msg, len, "feature \"psnr_hvs\" does not support %u-bit input "
                 "(8 to %d bits per sample)", vi->bpc, PHVS_MAX_BPC);
        return -EINVAL;
    }
    if (vi->pix_fmt == TVMAF_PIX_FMT_YUV400P) {
        snprintf(msg, len, "feature \"psnr_hvs\" does not support luma-only (4:0:0) input: "
                 "it scores the chroma planes too");
        return -EINVAL;
    }
    /* every plane needs one whole 8x8 block: with none the score is 0/0
     * (the reference prints NaN there) */
    const unsigned cw = vi->pix_fmt == TVMAF_PIX_FMT_YUV444P ? vi->w : (vi->w + 1) / 2;
    const unsigned ch = vi->pix_fmt == TVMAF_PIX_FMT_YUV420P ? (vi->h + 1) / 2 : vi->h;
    if (vi->w < PHVS_BLOCK || vi->h < PHVS_BLOCK || cw < PHVS_BLOCK || ch < PHVS_BLOCK) {
        snprintf(msg, len, "feature \"psnr_hvs\" cannot score %ux%u %s input: every plane "
                 "needs at least %dx%d samples (chroma here %ux%u)", vi->w, vi->h,
                 tvmaf_pix_fmt_name(vi->pix_fmt), PHVS_BLOCK, PHVS_BLOCK, cw, ch);
        return -EINVAL;
    }
    s->bpc = vi->bpc;
    for (int p = 0; p < 3; p++) phvs_weights_init(&s->weights[p], p);
    return 0;
}

int tvmaf_psnr_hvs_report(const double score[3], unsigned index, TvmafSink *sink)
{
    static const char *const key[3] = { "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr" };
    int err = 0;
    for (int p = 0; p < 3; p++) err |= tvmaf_sink_append(sink, key[p], index, phvs_db(score[p]));
    err |= tvmaf_sink_append(sink, "psnr_hvs", index,
                             phvs_db(phvs_combined(score[0], score[1], score[2])));
    return err ? -EINVAL : 0;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    return tvmaf_psnr_hvs_setup(priv, vi, msg, len);
}

/* Loads a block into lane l. */
static void load_block_8(phvs_i blk[64], int l, const uint8_t *src, ptrdiff_t stride)
{
    for (int i = 0; i < 8; i++, src += stride)
        for (int j = 0; j < 8; j++) PHVS_LANE(blk[8 * i + j], l) = src[j];
}

static void load_block_16(phvs_i blk[64], int l, const uint8_t *src, ptrdiff_t stride)
{
    for (int i = 0; i < 8; i++, src += stride) {
        const uint16_t *row = (const uint16_t *)src;
        for (int j = 0; j < 8; j++) PHVS_LANE(blk[8 * i + j], l) = row[j];
    }
}

/* The plane's score: every block's terms added into one float, blocks in
 * raster order, as the reference does. A row's blocks go PHVS_NL at a time
 * into the lanes; lanes past the row's last block repeat it and are not
 * added. */
static float plane_score(const PsnrHvsParams *s, int plane, const TvmafPicture *ref,
                         const TvmafPicture *dis)
{
    const int bx = phvs_block_count((int)ref->w[plane]);
    const int by = phvs_block_count((int)ref->h[plane]);
    const size_t bytes = s->bpc > 8 ? 2 : 1;
    const uint8_t *rp = ref->data[plane], *dp = dis->data[plane];
    const ptrdiff_t rs = ref->stride[plane], ds = dis->stride[plane];
    const PhvsWeights *w = &s->weights[plane];

    float sum = 0.0f;
    for (int y = 0; y < by; y++) {
        const uint8_t *rrow = rp + (ptrdiff_t)y * PHVS_STEP * rs;
        const uint8_t *drow = dp + (ptrdiff_t)y * PHVS_STEP * ds;
        for (int x = 0; x < bx; x += PHVS_NL) {
            phvs_i rb[64], db[64];
            phvs_f terms[64];
            const int n = bx - x < PHVS_NL ? bx - x : PHVS_NL;
            for (int l = 0; l < PHVS_NL; l++) {
                const size_t off = (size_t)(x + (l < n ? l : n - 1)) * PHVS_STEP * bytes;
                if (bytes == 1) {
                    load_block_8(rb, l, rrow + off, rs);
                    load_block_8(db, l, drow + off, ds);
                } else {
                    load_block_16(rb, l, rrow + off, rs);
                    load_block_16(db, l, drow + off, ds);
                }
            }
            phvs_block_terms(rb, db, w, terms);
            for (int l = 0; l < n; l++)
                for (int k = 0; k < 64; k++) sum += PHVS_LANE(terms[k], l);
        }
    }
    return phvs_plane_score(sum, (int64_t)bx * by * 64, s->bpc);
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    const PsnrHvsParams *s = priv;
    double score[3];
    for (int p = 0; p < 3; p++) score[p] = plane_score(s, p, ref, dis);
    return tvmaf_psnr_hvs_report(score, index, sink);
}

static const char *const provided[] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs", NULL
};

const TvmafExtractor tvmaf_fex_psnr_hvs = {
    .name = "psnr_hvs",
    .backend = TVMAF_BACKEND_CPU,
    .options = NULL,
    .priv_size = sizeof(PsnrHvsParams),
    .flags = 0,
    .init = init,
    .extract = extract,
    .provided_features = provided,
};
