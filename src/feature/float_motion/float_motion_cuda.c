/*
 * float_motion twin, host side. The ring of blurred reference planes lives on
 * the device (slot k % FMOT_RING for frame k, rows at the CPU's stride, the
 * padding zeroed once as the CPU's calloc leaves it); float_motion.cu blurs
 * the frame's planes into its slot and makes the rows' sums of the motions
 * the frame needs, which are read back and added here in the CPU's order
 * (fmot_plane_value, fmot_frame_value). The frame plan, the outputs and the
 * end of the stream are the CPU extractor's own code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/float_motion/float_motion_math.h"
#include "feature/float_motion/float_motion_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_float_motion_fatbin[];

enum { FN_VPASS8, FN_VPASS16, FN_HPASS, FN_SAD_ROWS, FN_HALF };
static const char *const fn_names[] = { "float_motion_vpass_8", "float_motion_vpass_16",
                                        "float_motion_hpass", "float_motion_sad_rows",
                                        "float_motion_half", NULL };

typedef struct FloatMotionCuda {
    FloatMotionParams p; /* first: the option table's offsets point into it */
    TvmafCudaTwin t;
    CUdeviceptr d_ring;                 /* FMOT_RING x planes, stride x ph floats each */
    size_t ring_off[FMOT_MAX_PLANES];   /* a plane's offset in a slot, bytes */
    size_t slot_bytes;
    CUdeviceptr d_tmp;                  /* the vertical pass: pw x ph floats */
    CUdeviceptr d_half;                 /* two half-size planes */
    CUdeviceptr d_taps;
    CUdeviceptr d_col1[FMOT_MAX_PLANES], d_col2[FMOT_MAX_PLANES], d_coldx[FMOT_MAX_PLANES];
    CUdeviceptr d_sums;                 /* [motion][plane]: ph rows, then half-size rows */
    float *h_sums;                      /* page-locked, as d_sums */
    size_t sums_off[2][FMOT_MAX_PLANES]; /* floats */
    size_t sums_n;
    int zeroed;
} FloatMotionCuda;

static void close_twin(void *priv)
{
    tvmaf_cuda_twin_close(&((FloatMotionCuda *)priv)->t);
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    FloatMotionCuda *s = priv;
    FloatMotionParams *p = &s->p;
    int err = tvmaf_float_motion_setup(p, vi, msg, len);
    if (err || p->force_zero) return err;
    s->slot_bytes = 0;
    s->sums_n = 0;
    size_t tmp = 0, half = 0;
    for (int q = 0; q < p->n_planes; q++) {
        s->ring_off[q] = s->slot_bytes;
        s->slot_bytes += sizeof(float) * (size_t)p->stride * (size_t)p->ph[q];
        const size_t n = (size_t)p->pw[q] * (size_t)p->ph[q];
        tmp = n > tmp ? n : tmp;
        const size_t hn = (size_t)fmot_half_side(p->pw[q]) * (size_t)fmot_half_side(p->ph[q]);
        half = hn > half ? hn : half;
    }
    for (int m = 0; m < 2; m++)
        for (int q = 0; q < p->n_planes; q++) {
            s->sums_off[m][q] = s->sums_n;
            s->sums_n += (size_t)p->ph[q] + (size_t)fmot_half_side(p->ph[q]);
        }
    if ((err = tvmaf_cuda_twin_open(&s->t, gpu, "float_motion", tvmaf_float_motion_fatbin,
                                    fn_names, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_ring, FMOT_RING * s->slot_bytes, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_tmp, sizeof(float) * tmp, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_taps, sizeof(float) * (size_t)p->fw, msg,
                                     len)) ||
        (err = tvmaf_cuda_twin_upload(&s->t, s->d_taps, p->taps, sizeof(float) * (size_t)p->fw,
                                      msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_sums, sizeof(float) * s->sums_n, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&s->t, (void **)&s->h_sums, sizeof(float) * s->sums_n,
                                          msg, len)))
        return err;
    if (p->add_scale1) {
        if ((err = tvmaf_cuda_twin_alloc(&s->t, &s->d_half, 2 * sizeof(float) * half, msg, len)))
            return err;
        for (int q = 0; q < p->n_planes; q++) {
            const int hw = fmot_half_side(p->pw[q]);
            const size_t ib = sizeof(int) * (size_t)hw, fb = sizeof(float) * (size_t)hw;
            int *c1 = malloc(ib), *c2 = malloc(ib);
            float *dx = malloc(fb);
            if (!c1 || !c2 || !dx) {
                free(c1);
                free(c2);
                free(dx);
                snprintf(msg, len, "feature \"float_motion\" (cuda): out of memory");
                return -ENOMEM;
            }
            fmot_half_columns(p->pw[q], c1, c2, dx);
            if ((err = tvmaf_cuda_twin_alloc(&s->t, &s->d_col1[q], ib, msg, len)) ||
                (err = tvmaf_cuda_twin_upload(&s->t, s->d_col1[q], c1, ib, msg, len)) ||
                (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_col2[q], ib, msg, len)) ||
                (err = tvmaf_cuda_twin_upload(&s->t, s->d_col2[q], c2, ib, msg, len)) ||
                (err = tvmaf_cuda_twin_alloc(&s->t, &s->d_coldx[q], fb, msg, len)) ||
                (err = tvmaf_cuda_twin_upload(&s->t, s->d_coldx[q], dx, fb, msg, len))) {
                free(c1);
                free(c2);
                free(dx);
                return err;
            }
            free(c1);
            free(c2);
            free(dx);
        }
    }
    s->zeroed = 0;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init
 * releases what it holds (the twin base's close takes a partial set-up). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

static CUdeviceptr ring(const FloatMotionCuda *s, unsigned slot, int q)
{
    return s->d_ring + slot * s->slot_bytes + s->ring_off[q];
}

/* Blurs plane q of the frame's reference into ring slot `slot`. */
static int blur(FloatMotionCuda *s, const TvmafDeviceFrame *f, int q, unsigned slot)
{
    FloatMotionParams *p = &s->p;
    CUdeviceptr src = f->d_ref[q], dst = ring(s, slot, q);
    size_t pitch = f->pitch[q];
    float divisor = fvif_sample_divisor(p->bpc);
    int w = p->pw[q], h = p->ph[q];
    const unsigned gx = ((unsigned)w + FMOT_BLOCK_W - 1) / FMOT_BLOCK_W;
    const unsigned gy = FMOT_GRID_Y((unsigned)h);
    void *vargs[] = { &src, &pitch, &w, &h, &divisor, &s->d_taps, &p->fw, &s->d_tmp };
    void *hargs[] = { &s->d_tmp, &w, &h, &s->d_taps, &p->fw, &dst, &p->stride };
    int err = tvmaf_cuda_twin_launch(&s->t, p->bpc == 8 ? FN_VPASS8 : FN_VPASS16, gx, gy,
                                     FMOT_BLOCK_W, FMOT_BLOCK_H, vargs);
    if (!err) err = tvmaf_cuda_twin_launch(&s->t, FN_HPASS, gx, gy, FMOT_BLOCK_W, FMOT_BLOCK_H,
                                           hargs);
    return err;
}

/* The rows' sums of motion m of plane q between slots a and b. */
static int motion_rows(FloatMotionCuda *s, int m, int q, unsigned a_slot, unsigned b_slot)
{
    FloatMotionParams *p = &s->p;
    CUdeviceptr a = ring(s, a_slot, q), b = ring(s, b_slot, q);
    CUdeviceptr sums = s->d_sums + sizeof(float) * s->sums_off[m][q];
    int w = p->pw[q], h = p->ph[q];
    void *args[] = { &a, &b, &p->stride, &w, &h, &sums };
    int err = tvmaf_cuda_twin_launch(&s->t, FN_SAD_ROWS,
                                     ((unsigned)h + FMOT_ROW_THREADS - 1) / FMOT_ROW_THREADS, 1,
                                     FMOT_ROW_THREADS, 1, args);
    if (err || !p->add_scale1) return err;
    /* the half-size pass reads rows padded from the plane's own width */
    int rs = fmot_aligned_floats(w), hw = fmot_half_side(w), hh = fmot_half_side(h);
    float ry = fvif_scale_ratio(h, hh);
    CUdeviceptr ha = s->d_half, hb = ha + sizeof(float) * (size_t)hw * (size_t)hh;
    CUdeviceptr hsums = sums + sizeof(float) * (size_t)h;
    const unsigned gx = ((unsigned)hw + FMOT_BLOCK_W - 1) / FMOT_BLOCK_W;
    const unsigned gy = FMOT_GRID_Y((unsigned)hh);
    void *a_args[] = { &a, &rs, &h, &hw, &hh, &ry, &s->d_col1[q], &s->d_col2[q], &s->d_coldx[q],
                       &ha };
    void *b_args[] = { &b, &rs, &h, &hw, &hh, &ry, &s->d_col1[q], &s->d_col2[q], &s->d_coldx[q],
                       &hb };
    void *s_args[] = { &ha, &hb, &hw, &hw, &hh, &hsums };
    err = tvmaf_cuda_twin_launch(&s->t, FN_HALF, gx, gy, FMOT_BLOCK_W, FMOT_BLOCK_H, a_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_HALF, gx, gy, FMOT_BLOCK_W, FMOT_BLOCK_H, b_args);
    if (!err)
        err = tvmaf_cuda_twin_launch(&s->t, FN_SAD_ROWS,
                                     ((unsigned)hh + FMOT_ROW_THREADS - 1) / FMOT_ROW_THREADS, 1,
                                     FMOT_ROW_THREADS, 1, s_args);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    FloatMotionCuda *s = priv;
    FloatMotionParams *p = &s->p;
    FmotFrame fr;
    int err = tvmaf_float_motion_plan(p, index, &fr);
    if (err) return err;
    double motion[2] = { 0.0, 0.0 };
    if (fr.blur) {
        if (f->n_planes < (unsigned)p->n_planes) return -EINVAL;
        if ((err = tvmaf_cuda_twin_begin(&s->t, f))) return err;
        if (!s->zeroed) {
            /* the sums too: a frame with fewer motions than the buffer holds
             * copies back slots no kernel wrote yet (never read) */
            err = tvmaf_cuda_memset(s->d_ring, 0, FMOT_RING * s->slot_bytes, s->t.stream);
            if (!err) err = tvmaf_cuda_memset(s->d_sums, 0, sizeof(float) * s->sums_n, s->t.stream);
            s->zeroed = !err;
        }
        for (int q = 0; q < p->n_planes && !err; q++) err = blur(s, f, q, fr.cur);
        for (int m = 0; m < fr.n_motions && !err; m++)
            for (int q = 0; q < p->n_planes && !err; q++)
                err = motion_rows(s, m, q, fr.prev, m == 0 ? fr.cur : fr.prev2);
        if (!err && fr.n_motions)
            err = tvmaf_cuda_copy_d2h(s->h_sums, s->d_sums, sizeof(float) * s->sums_n,
                                      s->t.stream);
        if ((err = tvmaf_cuda_twin_end(&s->t, err))) return err;
        for (int m = 0; m < fr.n_motions; m++) {
            float v[FMOT_MAX_PLANES] = { 0.0f, 0.0f, 0.0f };
            for (int q = 0; q < p->n_planes; q++) {
                const float *rows = s->h_sums + s->sums_off[m][q];
                v[q] = fmot_plane_value(rows, p->pw[q], p->ph[q], rows + p->ph[q],
                                        p->add_scale1);
            }
            motion[m] = fmot_frame_value(v, p->n_planes);
        }
    }
    return tvmaf_float_motion_report(p, index, motion, sink);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_float_motion_flush(&((FloatMotionCuda *)priv)->p, sink);
}

static const char *const provided[] = {
    "VMAF_feature_motion_score", "VMAF_feature_motion2_score",
    "VMAF_feature_motion3_score", NULL,
};

const TvmafExtractor tvmaf_fex_float_motion_cuda = {
    .name = "float_motion",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_float_motion_options,
    .priv_size = sizeof(FloatMotionCuda),
    .flags = TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES,
    .warmup_frames = FMOT_WARMUP_FRAMES,
    .init_device = init,
    .extract_device = extract,
    .flush = flush,
    .close = close_twin,
    .provided_features = provided,
};
