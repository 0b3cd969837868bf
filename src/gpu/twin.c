/* The twin base (gpu/twin.h): what every plan on every executor shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/picture_pool.h"
#include "gpu/twin.h"

/* An arena's sub-buffers start at multiples of this (every device's base
 * alignment for any element type, and CUDA's for coalesced rows). */
#define TVD_ALIGN 256u

_Static_assert(sizeof(void *) == 8, "a kernel's pointer argument is 8 bytes");

static size_t up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

size_t tvd_twin_priv_size(const TvdPlan *plan, const TvdExec *x)
{
    return up(plan->priv_size, 16) + up(sizeof(TvdTwin), 16) + x->xs_size;
}

static TvdTwin *twin_of(const TvdPlan *plan, void *priv)
{
    return (TvdTwin *)((char *)priv + up(plan->priv_size, 16));
}

TvdTwin *tvd_twin_of(const TvmafExtractor *ex, void *priv)
{
    return twin_of(ex->twin, priv);
}

static int failed(TvdTwin *t, int err, const char *why, char *msg, size_t len)
{
    if (!why || !*why) why = t->x->last_error();
    snprintf(msg, len, "feature \"%s\" (%s): %s", t->plan->cpu->name, t->x->name,
             *why ? why : err == -ENOMEM ? "out of memory" : strerror(-err));
    return err;
}

/* A programming error of a plan (a view outside its buffer, a wrong
 * argument struct): reported by the executor's last error and -EINVAL. */
static int plan_error(TvdTwin *t, const char *fmt, const char *what, unsigned long long a,
                      unsigned long long b)
{
    char m[256];
    snprintf(m, sizeof(m), fmt, what, a, b);
    fprintf(stderr, "tvmaf: feature \"%s\" (%s): %s\n", t->plan->cpu->name, t->x->name, m);
    return -EINVAL;
}

/* The layout of a kernel's two structs from its table, as C lays them out,
 * against the compiler's sizes. */
static int check_layout(TvdTwin *t, const TvdKernel *k)
{
    size_t po = 0, ko = 0, pa = 1, ka = 1;
    for (unsigned i = 0; i < k->n_args; i++) {
        const TvdArg *a = &k->args[i];
        const size_t pal = a->view ? _Alignof(TvdView) : a->align;
        const size_t kal = a->view ? _Alignof(void *) : a->align;
        po = up(po, pal) + (a->view ? sizeof(TvdView) : a->size);
        ko = up(ko, kal) + (a->view ? sizeof(void *) : a->size);
        if (pal > pa) pa = pal;
        if (kal > ka) ka = kal;
    }
    if (up(po, pa) != k->plan_size || up(ko, ka) != k->kern_size)
        return plan_error(t, "kernel %s: its argument table does not match its structs "
                          "(%llu, %llu)", k->name, up(po, pa), up(ko, ka));
    return 0;
}

void tvd_kern_offsets(const TvdKernel *k, size_t *off)
{
    size_t ko = 0;
    for (unsigned i = 0; i < k->n_args; i++) {
        const TvdArg *a = &k->args[i];
        ko = up(ko, a->view ? _Alignof(void *) : a->align);
        off[i] = ko;
        ko += a->view ? sizeof(void *) : a->size;
    }
}

static int buffer(TvdTwin *t, TvdBuf *b, size_t bytes, unsigned flags)
{
    if (t->bound) return plan_error(t, "%s a buffer after init (%llu %llu)", "declared", 0, 0);
    if (t->n_buf == t->cap_buf) {
        const unsigned cap = t->cap_buf ? 2 * t->cap_buf : 8;
        TvdBufInfo *nb = realloc(t->buf, cap * sizeof(*nb));
        if (!nb) return -ENOMEM;
        t->buf = nb;
        t->cap_buf = cap;
    }
    TvdBufInfo *bi = &t->buf[t->n_buf];
    memset(bi, 0, sizeof(*bi));
    bi->size = bytes ? bytes : 1;
    bi->flags = flags;
    b->id = t->n_buf++;
    return 0;
}

const TvdCaps *tvd_caps(const TvdTwin *t)
{
    return &t->caps;
}

TvdView tvd_view(TvdBuf b, size_t off, size_t bytes)
{
    return (TvdView){ b, off, bytes };
}

TvdView tvd_whole(const TvdTwin *t, TvdBuf b)
{
    return (TvdView){ b, 0, b.id < t->n_buf ? t->buf[b.id].size : 0 };
}

TvdView tvd_sub(TvdView v, size_t off, size_t bytes)
{
    return (TvdView){ v.buf, v.off + off, off <= v.size && bytes <= v.size - off ? bytes : 0 };
}

void *tvd_mirror(TvdTwin *t, TvdBuf b)
{
    return b.id < t->n_buf ? t->buf[b.id].mirror : NULL;
}

uint64_t tvd_addr(const TvdTwin *t, const TvdView *v)
{
    return v->buf.id == TVD_FRAME_BUF ? v->off : t->buf[v->buf.id].addr + v->off;
}

/* A view lies inside its buffer (frame planes: the executor made them), at
 * an offset aligned for its elements (`elem`: their alignment). */
static int check_view(TvdTwin *t, const TvdView *v, size_t elem, const char *what)
{
    if (v->buf.id == TVD_FRAME_BUF) {
        if (!v->size) return plan_error(t, "%s: a plane the frame does not have (%llu %llu)",
                                        what, 0, 0);
        return 0;
    }
    if (v->buf.id >= t->n_buf)
        return plan_error(t, "%s: buffer %llu of %llu", what, v->buf.id, t->n_buf);
    const size_t size = t->buf[v->buf.id].size;
    if (v->off > size || v->size > size - v->off)
        return plan_error(t, "%s: a view past its buffer's end (%llu > %llu)", what,
                          (unsigned long long)(v->off + v->size), size);
    if (elem > 1 && v->off % elem)
        return plan_error(t, "%s: a view at offset %llu of elements aligned to %llu bytes",
                          what, v->off, elem);
    return 0;
}

static int upload(TvdTwin *t, TvdView dst, const void *src)
{
    int err = check_view(t, &dst, 1, "upload");
    if (!err) err = t->x->upload(t, tvd_addr(t, &dst), src, dst.size);
    return err;
}

TvdView tvd_plane(TvdTwin *t, const TvmafDeviceFrame *f, int dis, unsigned p)
{
    TvdView v = { { TVD_FRAME_BUF }, 0, 0 };
    uint64_t pitch;
    if (p < t->x->planes(f)) t->x->plane(t, f, dis, p, &v, &pitch);
    return v;
}

uint64_t tvd_pitch(TvdTwin *t, const TvmafDeviceFrame *f, unsigned p)
{
    TvdView v;
    uint64_t pitch = 0;
    if (p < t->x->planes(f)) t->x->plane(t, f, 0, p, &v, &pitch);
    return pitch;
}

unsigned tvd_planes(TvdTwin *t, const TvmafDeviceFrame *f)
{
    return t->x->planes(f);
}

static int fill(TvdTwin *t, TvdView v, uint8_t byte)
{
    int err = check_view(t, &v, 1, "fill");
    if (err || !v.size) return err;
    t->counts.fills++;
    return t->x->fill(t, &v, tvd_addr(t, &v), byte);
}

static int copy(TvdTwin *t, TvdView dst, TvdView src)
{
    int err = check_view(t, &dst, 1, "copy");
    if (!err) err = check_view(t, &src, 1, "copy");
    if (!err && dst.size != src.size)
        err = plan_error(t, "%s: %llu bytes into %llu", "copy", src.size, dst.size);
    if (err || !dst.size) return err;
    t->counts.copies++;
    return t->x->copy(t, &dst, tvd_addr(t, &dst), &src, tvd_addr(t, &src));
}

static int download_into(TvdTwin *t, TvdView src, TvdView dst)
{
    int err = check_view(t, &src, 1, "download");
    if (!err) err = check_view(t, &dst, 1, "download");
    if (!err && (dst.buf.id == TVD_FRAME_BUF || !t->buf[dst.buf.id].mirror))
        err = plan_error(t, "%s: a buffer without a mirror (%llu %llu)", "download", 0, 0);
    if (!err && dst.size != src.size)
        err = plan_error(t, "%s: %llu bytes into %llu", "download", src.size, dst.size);
    if (err || !src.size) return err;
    t->counts.copies++;
    return t->x->download(t, &src, tvd_addr(t, &src), (char *)t->buf[dst.buf.id].mirror + dst.off);
}

#define TVD_MAX_KARGS 512
#define TVD_MAX_VIEWS 32

static int launch(TvdTwin *t, unsigned kernel, TvdGrid g, const void *args)
{
    if (kernel >= t->plan->n_kernels)
        return plan_error(t, "%s: kernel %llu of %llu", "launch", kernel, t->plan->n_kernels);
    const TvdKernel *k = &t->plan->kernels[kernel];
    if ((k->flags & TVD_CUDA_CAPS) && !(t->caps.warp == 32 && t->caps.atomic64))
        return plan_error(t, "%s: needs warp shuffles and 64-bit atomics (%llu %llu)", k->name,
                          t->caps.warp, t->caps.atomic64);
    if (!g.x || !g.y || !g.z) return 0;
    if (k->kern_size > TVD_MAX_KARGS)
        return plan_error(t, "%s: %llu bytes of arguments (at most %llu)", k->name,
                          k->kern_size, TVD_MAX_KARGS);
    _Alignas(16) unsigned char kbuf[TVD_MAX_KARGS];
    TvdView views[TVD_MAX_VIEWS];
    unsigned nv = 0;
    memset(kbuf, 0, k->kern_size);
    size_t po = 0, ko = 0;
    for (unsigned i = 0; i < k->n_args; i++) {
        const TvdArg *a = &k->args[i];
        if (a->view) {
            po = up(po, _Alignof(TvdView));
            ko = up(ko, _Alignof(void *));
            const TvdView *v = (const TvdView *)((const char *)args + po);
            int err = check_view(t, v, a->align, k->name);
            if (err) return err;
            if (nv == TVD_MAX_VIEWS)
                return plan_error(t, "%s: more than %llu views (%llu)", k->name, nv, 0);
            const uint64_t addr = tvd_addr(t, v);
            if (addr % a->align)
                return plan_error(t, "%s: a view at address %llu of elements aligned to %llu "
                                  "bytes", k->name, addr, a->align);
            memcpy(kbuf + ko, &addr, sizeof(addr));
            views[nv++] = *v;
            po += sizeof(TvdView);
            ko += sizeof(void *);
        } else {
            po = up(po, a->align);
            ko = up(ko, a->align);
            memcpy(kbuf + ko, (const char *)args + po, a->size);
            po += a->size;
            ko += a->size;
        }
    }
    t->counts.launches++;
    return t->x->launch(t, kernel, g, kbuf, views);
}

static int sync_queue(TvdTwin *t)
{
    t->counts.syncs++;
    return t->x->sync(t);
}

/* A phase's first failure sticks (gpu/tvd.h): the calls below do nothing
 * after it and return it; the base ends the phase with it. */
static int stick(TvdTwin *t, int err)
{
    if (err && !t->err) t->err = err;
    return err;
}
#define STICKY(call) (t->err ? t->err : stick(t, (call)))

int tvd_buffer(TvdTwin *t, TvdBuf *b, size_t bytes, unsigned flags)
{
    return STICKY(buffer(t, b, bytes, flags));
}

int tvd_upload(TvdTwin *t, TvdView dst, const void *src)
{
    return STICKY(upload(t, dst, src));
}

int tvd_fill(TvdTwin *t, TvdView v, uint8_t byte)
{
    return STICKY(fill(t, v, byte));
}

int tvd_copy(TvdTwin *t, TvdView dst, TvdView src)
{
    return STICKY(copy(t, dst, src));
}

int tvd_download_into(TvdTwin *t, TvdView src, TvdView dst)
{
    return STICKY(download_into(t, src, dst));
}

int tvd_download(TvdTwin *t, TvdView v)
{
    return STICKY(download_into(t, v, v));
}

int tvd_launch(TvdTwin *t, unsigned kernel, TvdGrid g, const void *args)
{
    return STICKY(launch(t, kernel, g, args));
}

int tvd_sync(TvdTwin *t)
{
    return STICKY(sync_queue(t));
}

const TvmafPicture *tvd_shared_ref(TvdTwin *t, const TvmafDeviceFrame *f, uint64_t *serial)
{
    *serial = 0;
    if (!t->x->shares_reference || !t->x->shares_reference(t)) return NULL;
    const TvmafPicture *pic = t->x->ref_picture(f, serial);
    return pic && *serial ? pic : NULL;
}

void tvd_count_shared(TvdTwin *t, const TvmafDeviceFrame *f, bool computed)
{
    if (t->x->count_shared) t->x->count_shared(f, computed);
}

int tvd_ref_slot(TvdTwin *t, const char *key, size_t bytes, unsigned *slot)
{
    *slot = TVD_NO_SLOT;
    int err = t->x->ref_slot ? t->x->ref_slot(t, key, bytes, slot) : 0;
    if (!err && *slot != TVD_NO_SLOT) {
        if (t->ref_slot_bytes)
            return plan_error(t, "%s: a second reference area (%llu %llu)", key, 0, 0);
        t->ref_slot_bytes = bytes;
    }
    return err;
}

int tvd_ref_area(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, TvdView *area,
                 bool *fill)
{
    *area = (TvdView){ { TVD_FRAME_BUF }, 0, 0 };
    *fill = false;
    if (slot == TVD_NO_SLOT) return 0;
    uint64_t addr = 0;
    int err = t->x->ref_area(t, f, slot, &addr, fill);
    if (!err && addr) {
        area->off = addr;
        area->size = t->ref_slot_bytes;
    }
    return err;
}

int tvd_ref_area_done(TvdTwin *t, const TvmafDeviceFrame *f, unsigned slot, bool ok)
{
    return t->x->ref_area_done(t, f, slot, ok);
}

static void close_twin(const TvdPlan *pl, void *priv, TvdTwin *t)
{
    if (t->x) t->x->close(t);
    if (pl->close) pl->close(priv);
    free(t->buf);
    t->buf = NULL;
    t->n_buf = t->cap_buf = 0;
    t->x = NULL;
}

int tvd_twin_init(const TvmafExtractor *ex, void *priv, const TvmafVideoInfo *vi, TvmafGpu *gpu,
                  char *msg, size_t len)
{
    const TvdPlan *pl = ex->twin;
    TvdTwin *t = twin_of(pl, priv);
    memset(t, 0, sizeof(*t));
    t->plan = pl;
    t->x = ex->twin_exec;
    t->code = ex->twin_code;
    t->gpu = gpu;
    t->xs = (char *)t + up(sizeof(TvdTwin), 16);
    char why[480] = "";
    int err = 0;
    for (unsigned k = 0; k < pl->n_kernels && !err; k++) err = check_layout(t, &pl->kernels[k]);
    if (!err && (err = t->x->open(t, why, sizeof(why)))) failed(t, err, why, msg, len);
    if (!err && !(err = pl->init(priv, t, vi, msg, len))) err = t->err;
    if (!err) {
        uint64_t off = 0;
        for (unsigned i = 0; i < t->n_buf; i++) {
            t->buf[i].off = off;
            off = up(off + t->buf[i].size, TVD_ALIGN);
        }
        if ((err = t->x->bind(t, why, sizeof(why)))) failed(t, err, why, msg, len);
    }
    t->bound = true;
    if (!err && pl->setup && ((err = pl->setup(priv, t)) || (err = t->err)))
        failed(t, err, NULL, msg, len);
    if (err) close_twin(pl, priv, t);
    return err;
}

int tvd_twin_extract(const TvmafExtractor *ex, void *priv, const TvmafDeviceFrame *f,
                     const TvmafPicture *ref, const TvmafPicture *dis, unsigned index,
                     TvmafSink *sink)
{
    const TvdPlan *pl = ex->twin;
    TvdTwin *t = twin_of(pl, priv);
    int err = t->x->begin(t, f);
    if (err) return err;
    t->frame = f;
    t->host[0] = ref;
    t->host[1] = dis;
    t->err = 0;
    if (!(err = pl->run(priv, t, f, index))) err = t->err;
    t->counts.syncs++;
    err = t->x->end(t, err);
    t->frame = NULL;
    if (!err) err = pl->report(priv, t, index, sink);
    t->host[0] = t->host[1] = NULL;
    return err;
}

const TvmafPicture *tvd_host_picture(TvdTwin *t, int dis)
{
    const TvmafPicture *p = t->host[dis != 0];
    return p && p->data[0] && !tvmaf_picture_device(p) ? p : NULL;
}

void tvd_count_decided(TvdTwin *t, unsigned long long n, unsigned long long of)
{
    if (t->x->count_decided) t->x->count_decided(t, n, of);
}

void tvd_twin_close(const TvmafExtractor *ex, void *priv)
{
    close_twin(ex->twin, priv, twin_of(ex->twin, priv));
}
