/*
 * motion twin, plan (gpu/tvd.h). The device keeps the reference luma planes
 * a later frame compares with, in a ring of lag + 1 slots (frame k in slot
 * k % (lag + 1)), copied on the device from the frame's device copy (which
 * the next frame of that worker reuses); motion_kernels.h computes the
 * uint32 SAD of every row, read back and added here (motion_sum_rows).
 * Everything after the integer SAD (the sad score, its history,
 * motion2/motion3, blending, the five-frame window) is the CPU extractor's
 * own code (motion_state.h).
 *
 * In a ladder (the context shares its reference pictures) the SAD of two
 * reference pictures is the same for every pair: the first pair to need it
 * computes it (and waits for it) and the others take the number
 * (tvmaf_picture_once on the frame's reference picture, keyed by the earlier
 * picture's serial, as the CPU extractor does). Otherwise the SAD is read
 * after the frame's one wait.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/picture_pool.h"
#include "feature/motion/motion_kernels.h"
#include "feature/motion/motion_state.h"

TVD_MODULE(motion, MOTION_KERNELS)

typedef struct MotionPlan {
    MotionState s; /* first: the option offsets are relative to it */
    TvdBuf luma;   /* n_slots planes of pitch * h bytes */
    TvdBuf rows;   /* h x uint32 */
    unsigned n_slots, kernel;
    size_t pitch;
    uint64_t *serial; /* n_slots: the serial of each slot's reference picture */
    uint64_t sad;     /* of the frame being scored, when known before report */
    bool pending;     /* the SAD is in the mirror after the frame's wait */
} MotionPlan;

/* What tvmaf_picture_once keeps: this twin's SAD of two reference pictures. */
static const char sad_tag = 0;

static int init(void *priv, TvdTwin *t, const TvmafVideoInfo *vi, char *msg, size_t len)
{
    MotionPlan *m = priv;
    int err = tvmaf_motion_setup(&m->s, vi, msg, len);
    if (err) return err;
    m->n_slots = motion_lag(&m->s) + 1;
    const TvdCaps *c = tvd_caps(t);
    m->kernel = (c->warp == 32 ? TVD_K_motion_sad_8 : TVD_K_motion_tree_8) + (vi->bpc > 8);
    /* the ring's rows as the frame's device copy has them, so a plane moves
     * in one contiguous copy */
    size_t stride[3], off[3], total;
    if (tvmaf_picture_layout(vi->pix_fmt, vi->bpc, vi->w, vi->h, stride, off, &total))
        return -EINVAL;
    m->pitch = stride[0];
    if (!(m->serial = calloc(m->n_slots, sizeof(*m->serial)))) return -ENOMEM;
    if ((err = tvd_buffer(t, &m->luma, m->pitch * vi->h * m->n_slots, 0))) return err;
    return tvd_buffer(t, &m->rows, sizeof(uint32_t) * vi->h, TVD_MIRROR);
}

/* The slot holding frame k's reference luma. */
static TvdView slot(const MotionPlan *m, unsigned k)
{
    const size_t plane = m->pitch * m->s.h;
    return tvd_view(m->luma, (size_t)(k % m->n_slots) * plane, plane);
}

/* Queues the SAD of frame `index` against the slot lag frames before. */
static int queue_sad(TvdTwin *t, MotionPlan *m, unsigned index)
{
    const MotionArgs a = {
        .prev = slot(m, index - motion_lag(&m->s)),
        .cur = slot(m, index),
        .pitch = m->pitch,
        .w = m->s.w,
        .h = m->s.h,
        .bpc = m->s.bpc,
        .row_sad = tvd_whole(t, m->rows),
    };
    int err = tvd_fill(t, tvd_whole(t, m->rows), 0);
    if (!err)
        err = tvd_launch(t, m->kernel, TVD_GRID(MOTION_GRID_X(m->s.w), MOTION_GRID_Y(m->s.h)), &a);
    return err ? err : tvd_download(t, tvd_whole(t, m->rows));
}

/* A ladder's SAD, computed here and waited for (tvmaf_picture_once). */
typedef struct SadJob {
    TvdTwin *t;
    MotionPlan *m;
    unsigned index;
    bool ran;
} SadJob;

static int sad_job(void *arg, uint64_t *sad)
{
    SadJob *j = arg;
    j->ran = true;
    int err = queue_sad(j->t, j->m, j->index);
    if (!err) err = tvd_sync(j->t);
    if (!err) *sad = motion_sum_rows(tvd_mirror(j->t, j->m->rows), j->m->s.h);
    return err;
}

static int run(void *priv, TvdTwin *t, const TvmafDeviceFrame *f, unsigned index)
{
    MotionPlan *m = priv;
    m->sad = 0;
    m->pending = false;
    if (m->s.force_zero) return 0;
    if (index != m->s.n_sad || tvd_pitch(t, f, 0) != m->pitch) return -EINVAL;
    /* every frame's luma goes into its slot: a later frame may compare with
     * it itself (a picture without a serial, or a SAD no pair kept) */
    int err = tvd_copy(t, slot(m, index), tvd_plane(t, f, 0, 0));
    uint64_t serial;
    const TvmafPicture *ref = tvd_shared_ref(t, f, &serial);
    m->serial[index % m->n_slots] = serial;
    if (err || !tvmaf_motion_compares(&m->s, index)) return err;
    const uint64_t key = m->serial[(index - motion_lag(&m->s)) % m->n_slots];
    if (ref && key) {
        SadJob job = { t, m, index, false };
        err = tvmaf_picture_once(ref, &sad_tag, key, sad_job, &job, &m->sad);
        if (!err) tvd_count_shared(t, f, job.ran);
        return err;
    }
    m->pending = true;
    return queue_sad(t, m, index);
}

static int report(void *priv, TvdTwin *t, unsigned index, TvmafSink *sink)
{
    MotionPlan *m = priv;
    if (m->pending) m->sad = motion_sum_rows(tvd_mirror(t, m->rows), m->s.h);
    return tvmaf_motion_report(&m->s, m->sad, index, sink);
}

static int flush(void *priv, TvmafSink *sink)
{
    return tvmaf_motion_flush(&((MotionPlan *)priv)->s, sink);
}

static void close_plan(void *priv)
{
    MotionPlan *m = priv;
    tvmaf_motion_release(&m->s);
    free(m->serial);
    m->serial = NULL;
}

TVD_PLAN(motion, motion, MotionPlan, .init = init, .run = run, .report = report,
         .close = close_plan, .flush = flush,
         /* one instance that sees the frames in order keeps the ring */
         .flags_remove = TVMAF_FEX_PREV_REF, .flags_add = TVMAF_FEX_TEMPORAL);
