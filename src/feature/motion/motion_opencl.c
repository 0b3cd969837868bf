/*
 * Integer motion twin on OpenCL, host side. As the CUDA twin: the device
 * keeps the reference luma planes a later frame compares with, in a ring of
 * lag + 1 slots (frame k in slot k % (lag + 1)), copied on the device from
 * the frame's device copy; motion.cl computes the uint32 SAD of every row,
 * which is read back and added here with motion_sum_rows(). Everything after
 * the integer SAD is the CPU extractor's own code (motion_state.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "feature/motion/motion_math.h"
#include "feature/motion/motion_state.h"
#include "gpu/opencl/opencl_twin.h"

extern const char tvmaf_motion_cl[];

enum { FN_SAD8, FN_SAD16 };
static const char *const fn_names[] = { "motion_sad_8", "motion_sad_16", NULL };

typedef struct MotionOpencl {
    MotionState s; /* first: the option offsets are relative to it */
    TvmafOpenclTwin t;
    cl_mem d_luma;          /* n_slots planes of pitch * h bytes */
    unsigned n_slots;
    size_t pitch;
    cl_mem d_row_sad;       /* h x uint32 */
    uint32_t *h_row_sad;
} MotionOpencl;

static void close_twin(void *priv)
{
    MotionOpencl *m = priv;
    tvmaf_motion_release(&m->s);
    tvmaf_opencl_twin_close(&m->t);
    free(m->h_row_sad);
    m->h_row_sad = NULL;
}

static int init_twin(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg,
                     size_t len)
{
    MotionOpencl *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    m->n_slots = motion_lag(&m->s) + 1;
    size_t stride[3], off[3], total;
    if (tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    m->pitch = stride[0];
    const size_t plane = m->pitch * vi->h, sums = sizeof(uint32_t) * vi->h;
    if ((err = tvmaf_opencl_twin_open(&m->t, gpu, "motion", tvmaf_motion_cl, NULL, fn_names,
                                      msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_luma, plane * m->n_slots, msg, len)) ||
        (err = tvmaf_opencl_twin_alloc(&m->t, &m->d_row_sad, sums, msg, len)))
        return err;
    if (!(m->h_row_sad = malloc(sums))) return -ENOMEM;
    return 0;
}

/* Core closes only the instances whose init succeeded: a failed init releases
 * what it holds itself (device buffers keep the OpenCL context alive). */
static int init(void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu, char *msg, size_t len)
{
    const int err = init_twin(priv, vi, gpu, msg, len);
    if (err) close_twin(priv);
    return err;
}

/* Byte offset of the slot holding frame k's reference luma. */
static cl_ulong slot(const MotionOpencl *m, unsigned k)
{
    return (cl_ulong)(k % m->n_slots) * m->pitch * m->s.h;
}

static int extract(void *priv, const TvmafDeviceFrame *f, unsigned index, TvmafSink *sink)
{
    MotionOpencl *m = priv;
    if (m->s.force_zero) return tvmaf_motion_report(&m->s, 0, index, sink);
    if (index != m->s.n_sad || f->pitch[0] != m->pitch) return -EINVAL;
    const bool compares = tvmaf_motion_compares(&m->s, index);
    cl_uint w = m->s.w, h = m->s.h, bpc = m->s.bpc;
    int err = tvmaf_opencl_twin_begin(&m->t, f);
    cl_ulong cur = slot(m, index);
    if (!err)
        err = tvmaf_opencl_twin_copy(&m->t, m->d_luma, cur, f->buf, f->off_ref[0], m->pitch * h);
    if (compares) {
        cl_ulong prev = slot(m, index - motion_lag(&m->s));
        cl_ulong pitch = m->pitch;
        const unsigned fn = bpc == 8 ? FN_SAD8 : FN_SAD16;
        const TvmafClArg args[] = { TVMAF_CL_ARG(m->d_luma), TVMAF_CL_ARG(prev),
                                    TVMAF_CL_ARG(cur), TVMAF_CL_ARG(pitch), TVMAF_CL_ARG(w),
                                    TVMAF_CL_ARG(h), TVMAF_CL_ARG(bpc),
                                    TVMAF_CL_ARG(m->d_row_sad) };
        if (!err) err = tvmaf_opencl_twin_zero(&m->t, m->d_row_sad, sizeof(uint32_t) * h);
        if (!err) err = tvmaf_opencl_twin_args(&m->t, fn, 8, args);
        if (!err)
            err = tvmaf_opencl_twin_launch(&m->t, fn, (size_t)MOTION_GRID_X(w) * MOTION_TILE,
                                           MOTION_GRID_Y(h), MOTION_TILE, 1);
        if (!err)
            err = tvmaf_opencl_twin_read(&m->t, m->h_row_sad, m->d_row_sad,
                                         sizeof(uint32_t) * h);
    }
    if ((err = tvmaf_opencl_twin_end(&m->t, err))) return err;
    const uint64_t sad = compares ? motion_sum_rows(m->h_row_sad, h) : 0;
    return tvmaf_motion_report(&m->s, sad, index, sink);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_motion_flush(&((MotionOpencl *)priv)->s, sink);
}

const TvmafExtractor tvmaf_fex_motion_opencl = {
    .name = "motion",
    .backend = TVMAF_BACKEND_OPENCL,
    .options = tvmaf_motion_options,
    .priv_size = sizeof(MotionOpencl),
    .flags = TVMAF_FEX_TEMPORAL | TVMAF_FEX_ALL_FRAMES | TVMAF_FEX_LUMA_ONLY,
    .warmup_frames = MOTION_WARMUP_FRAMES,
    .init_device = init,
    .extract_device = extract,
    .flush = flush,
    .close = close_twin,
    .provided_features = tvmaf_motion_provided,
};
