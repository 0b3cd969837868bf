/*
 * Integer motion twin, host side. The device keeps the reference luma planes
 * a later frame compares with, in a ring of lag + 1 slots (frame k in slot
 * k % (lag + 1)), copied on the device from the frame's upload (the
 * context's TvmafTwinFrame, which the next frame of that worker reuses);
 * motion.cu computes the
 * uint32 SAD of every row, which is read back and added here with
 * motion_sum_rows(). Everything after the integer SAD (the sad score, its
 * history, motion2/motion3, blending, the five-frame window) is the CPU
 * extractor's own code (motion_state.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/twin_frame.h"

extern const unsigned char tvmaf_motion_fatbin[];

/* CUDA's limit on a grid's y dimension; the kernel strides over the rest. */
#define GRID_Y_MAX 65535u

typedef struct MotionCuda {
    MotionState s; /* first: the option offsets are relative to it */
    TvmafCudaDevice *dev;
    TvmafCudaModule *mod;
    CUfunction sad8, sad16;
    CUstream stream;
    CUdeviceptr d_luma;     /* n_slots planes of pitch * h bytes */
    unsigned n_slots;
    size_t row_bytes, pitch;
    TvmafCudaSpan span;
    CUdeviceptr d_row_sad;  /* h x uint32 */
    uint32_t *h_row_sad;    /* pinned */
} MotionCuda;

static void close_twin(void *priv)
{
    MotionCuda *m = priv;
    tvmaf_motion_release(&m->s);
    if (!m->dev) return;
    tvmaf_cuda_push(m->dev);
    tvmaf_cuda_mem_free(m->d_luma);
    tvmaf_cuda_mem_free(m->d_row_sad);
    tvmaf_cuda_span_destroy(&m->span);
    tvmaf_cuda_host_free(m->h_row_sad);
    tvmaf_cuda_stream_destroy(m->stream);
    tvmaf_cuda_pop(m->dev);
    tvmaf_cuda_module_unload(m->mod);
    tvmaf_cuda_release(m->dev);
    m->dev = NULL;
}

static int init(void *priv, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    MotionCuda *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    m->n_slots = motion_lag(&m->s) + 1;
    m->row_bytes = (size_t)vi->w * (vi->bpc > 8 ? 2 : 1);
    /* the ring's rows as the frame's device copy has them, so a plane moves
     * in one contiguous copy */
    size_t stride[3], off[3], total;
    if (tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    m->pitch = stride[0];
    const size_t plane = m->pitch * vi->h, sums = sizeof(uint32_t) * vi->h;
    if ((err = tvmaf_cuda_acquire(&m->dev, msg, len))) return err;
    if ((err = tvmaf_cuda_module_load(m->dev, tvmaf_motion_fatbin, &m->mod, msg, len))) goto fail;
    if ((err = tvmaf_cuda_module_function(m->mod, "motion_sad_8", &m->sad8)) ||
        (err = tvmaf_cuda_module_function(m->mod, "motion_sad_16", &m->sad16)))
        goto fail_msg;
    if ((err = tvmaf_cuda_push(m->dev))) goto fail_msg;
    err = tvmaf_cuda_stream_create(&m->stream);
    if (!err) err = tvmaf_cuda_mem_alloc(&m->d_luma, plane * m->n_slots);
    if (!err) err = tvmaf_cuda_mem_alloc(&m->d_row_sad, sums);
    if (!err) err = tvmaf_cuda_span_init(&m->span);
    if (!err) err = tvmaf_cuda_host_alloc((void **)&m->h_row_sad, sums);
    tvmaf_cuda_pop(m->dev);
    if (err) goto fail_msg;
    return 0;
fail_msg:
    snprintf(msg, len, "feature \"motion\" (cuda): %s", tvmaf_cuda_last_error());
fail:
    close_twin(m);
    return err;
}

/* Device address of the slot holding frame k's reference luma. */
static CUdeviceptr slot(const MotionCuda *m, unsigned k)
{
    return m->d_luma + (CUdeviceptr)(k % m->n_slots) * m->pitch * m->s.h;
}

static int extract(void *priv, const TvmafPicture *ref, const TvmafPicture *dis,
                   unsigned index, TvmafSink *sink)
{
    MotionCuda *m = priv;
    (void)dis;
    if (m->s.force_zero) return tvmaf_motion_report(&m->s, 0, index, sink);
    if (index != m->s.n_sad) return -EINVAL;
    const bool compares = tvmaf_motion_compares(&m->s, index);
    unsigned w = m->s.w, h = m->s.h, bpc = m->s.bpc;
    (void)ref;
    const TvmafTwinFrame *f = tvmaf_twin_frame_of(sink);
    if (!f || f->pitch[0] != m->pitch) return -EINVAL;
    int err = tvmaf_cuda_push(m->dev);
    if (err) return err;
    CUdeviceptr cur = slot(m, index);
    err = tvmaf_cuda_stream_wait_event(m->stream, f->ready);
    if (!err) err = tvmaf_cuda_span_begin(&m->span, m->stream);
    if (!err) err = tvmaf_cuda_copy_d2d(cur, f->d_ref[0], m->pitch * h, m->stream);
    if (compares) {
        CUdeviceptr prev = slot(m, index - motion_lag(&m->s));
        size_t pitch = m->pitch;
        void *args[] = { &prev, &cur, &pitch, &w, &h, &bpc, &m->d_row_sad };
        if (!err) err = tvmaf_cuda_memset(m->d_row_sad, 0, sizeof(uint32_t) * h, m->stream);
        if (!err)
            err = tvmaf_cuda_launch(bpc == 8 ? m->sad8 : m->sad16,
                                    (w + MOTION_TILE - 1) / MOTION_TILE,
                                    h < GRID_Y_MAX ? h : GRID_Y_MAX, 1, MOTION_TILE, 1, 1, 0,
                                    m->stream, args);
    }
    if (!err) err = tvmaf_cuda_span_end(&m->span, m->stream);
    if (compares && !err)
        err = tvmaf_cuda_copy_d2h(m->h_row_sad, m->d_row_sad, sizeof(uint32_t) * h, m->stream);
    if (!err) err = tvmaf_cuda_stream_synchronize(m->stream);
    if (!err) err = tvmaf_cuda_span_add(&m->span, "motion");
    tvmaf_cuda_pop(m->dev);
    if (err) return err;
    const uint64_t sad = compares ? motion_sum_rows(m->h_row_sad, h) : 0;
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
    .init = init,
    .extract = extract,
    .flush = flush,
    .close = close_twin,
    .provided_features = tvmaf_motion_provided,
};
