/*
 * Integer motion twin, host side. The device keeps the reference luma planes
 * a later frame compares with, in a ring of lag + 1 slots (frame k in slot
 * k % (lag + 1)), copied on the device from the frame's device copy (which
 * the next frame of that worker reuses); motion.cu computes the uint32 SAD of
 * every row, which is read back and added here with motion_sum_rows().
 * Everything after the integer SAD (the sad score, its history,
 * motion2/motion3, blending, the five-frame window) is the CPU extractor's
 * own code (motion_state.h).
 *
 * In a ladder (the context shares its reference pictures) the SAD of two
 * reference pictures is the same for every pair: the first pair to need it
 * computes it on its device and the others take the number
 * (tvmaf_picture_once on the frame's reference picture, keyed by the earlier
 * picture's serial, as the CPU extractor does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"
#include "gpu/cuda/cuda_twin.h"

extern const unsigned char tvmaf_motion_fatbin[];

enum { FN_SAD8, FN_SAD16 };
static const char *const fn_names[] = { "motion_sad_8", "motion_sad_16", NULL };

typedef struct MotionCuda {
    MotionState s; /* first: the option offsets are relative to it */
    TvmafCudaTwin t;
    CUdeviceptr d_luma;     /* n_slots planes of pitch * h bytes */
    unsigned n_slots;
    size_t pitch;
    CUdeviceptr d_row_sad;  /* h x uint32 */
    uint32_t *h_row_sad;    /* page-locked */
    bool share;             /* a ladder's pair */
    uint64_t *serial;       /* n_slots: the serial of each slot's reference picture */
} MotionCuda;

/* What tvmaf_picture_once keeps: this twin's SAD of two reference pictures. */
static const char sad_tag = 0;

static void close_twin(void *priv)
{
    MotionCuda *m = priv;
    tvmaf_motion_release(&m->s);
    tvmaf_cuda_twin_close(&m->t);
    free(m->serial);
    m->serial = NULL;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    MotionCuda *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    m->n_slots = motion_lag(&m->s) + 1;
    /* the ring's rows as the frame's device copy has them, so a plane moves
     * in one contiguous copy */
    size_t stride[3], off[3], total;
    if (tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    m->pitch = stride[0];
    const size_t plane = m->pitch * vi->h, sums = sizeof(uint32_t) * vi->h;
    if ((err = tvmaf_cuda_twin_open(&m->t, gpu, "motion", tvmaf_motion_fatbin, fn_names, msg,
                                    len)) ||
        (err = tvmaf_cuda_twin_alloc(&m->t, &m->d_luma, plane * m->n_slots, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc(&m->t, &m->d_row_sad, sums, msg, len)) ||
        (err = tvmaf_cuda_twin_alloc_host(&m->t, (void **)&m->h_row_sad, sums, msg, len)))
        return err;
    m->share = tvmaf_cuda_gpu_shares_reference(gpu);
    if (!(m->serial = calloc(m->n_slots, sizeof(*m->serial)))) {
        snprintf(msg, len, "feature \"motion\" (cuda): out of memory");
        return -ENOMEM;
    }
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

/* Device address of the slot holding frame k's reference luma. */
static CUdeviceptr slot(const MotionCuda *m, unsigned k)
{
    return m->d_luma + (CUdeviceptr)(k % m->n_slots) * m->pitch * m->s.h;
}

/* The SAD of frame `index` against the slot lag frames before, on the
 * twin's stream (the frame's luma already queued into its slot), waited for. */
typedef struct SadJob {
    MotionCuda *m;
    unsigned index;
    bool ran; /* computed by this pair (else read from another's) */
} SadJob;

static int sad_job(void *arg, uint64_t *sad)
{
    SadJob *j = arg;
    MotionCuda *m = j->m;
    j->ran = true;
    unsigned w = m->s.w, h = m->s.h, bpc = m->s.bpc;
    CUdeviceptr prev = slot(m, j->index - motion_lag(&m->s)), cur = slot(m, j->index);
    size_t pitch = m->pitch;
    void *args[] = { &prev, &cur, &pitch, &w, &h, &bpc, &m->d_row_sad };
    int err = tvmaf_cuda_memset(m->d_row_sad, 0, sizeof(uint32_t) * h, m->t.stream);
    if (!err)
        err = tvmaf_cuda_twin_launch(&m->t, bpc == 8 ? FN_SAD8 : FN_SAD16, MOTION_GRID_X(w),
                                     MOTION_GRID_Y(h), MOTION_TILE, 1, args);
    if (!err)
        err = tvmaf_cuda_copy_d2h(m->h_row_sad, m->d_row_sad, sizeof(uint32_t) * h,
                                  m->t.stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(m->t.stream);
    if (!err) *sad = motion_sum_rows(m->h_row_sad, h);
    return err;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    MotionCuda *m = priv;
    if (m->s.force_zero) return tvmaf_motion_report(&m->s, 0, index, sink);
    if (index != m->s.n_sad || f->pitch[0] != m->pitch) return -EINVAL;
    const bool compares = tvmaf_motion_compares(&m->s, index);
    int err = tvmaf_cuda_twin_begin(&m->t, f);
    if (err) return err;
    /* every frame's luma goes into its slot: a later frame may compare with
     * it itself (a picture without a serial, or a SAD no pair kept) */
    err = tvmaf_cuda_copy_d2d(slot(m, index), f->d_ref[0], m->pitch * m->s.h, m->t.stream);
    m->serial[index % m->n_slots] = f->ref_serial;
    uint64_t sad = 0;
    if (compares && !err) {
        SadJob job = { m, index, false };
        const uint64_t key = m->serial[(index - motion_lag(&m->s)) % m->n_slots];
        if (m->share && key && f->ref_serial && f->ref_pic) {
            err = tvmaf_picture_once(f->ref_pic, &sad_tag, key, sad_job, &job, &sad);
            if (!err) tvmaf_cuda_frame_count_host_result(f, job.ran);
        } else {
            err = sad_job(&job, &sad);
        }
    }
    if ((err = tvmaf_cuda_twin_end(&m->t, err))) return err;
    return tvmaf_motion_report(&m->s, sad, index, sink);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_motion_flush(&((MotionCuda *)priv)->s, sink);
}

const TvmafExtractor tvmaf_fex_motion_cuda = {
    .name = "motion",
    .backend = TVMAF_BACKEND_CUDA,
    .options = tvmaf_motion_options,
    .priv_size = sizeof(MotionCuda),
    .flags = TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES | TVMAF_FEX_LUMA_ONLY,
    .warmup_frames = MOTION_WARMUP_FRAMES,
    .init_device = init,
    .extract_device = extract,
    .flush = flush,
    .close = close_twin,
    .provided_features = tvmaf_motion_provided,
};
