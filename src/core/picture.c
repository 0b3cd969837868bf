/*
 * Pictures: one aligned allocation per picture, planes back to back.
 *
 * Freed buffers are kept in a small process-wide cache and handed out again
 * for the same size: a video is a stream of equal pictures, and returning a
 * multi-megabyte buffer to the system after every frame (glibc maps and
 * unmaps blocks that large) costs more than scoring some features.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
#include "core/picture_pool.h"

#define PIC_ALIGN 64
#define CACHE_SLOTS 160

/* Results computed once per picture for every context that holds it
 * (tvmaf_picture_once, tvmaf_picture_once_area): a slot is empty, being
 * computed, done, or stale. A stale slot held an area for contents the
 * picture may no longer have (a caller's reference was left alone); that
 * caller may still be reading it, so its memory is neither reused nor freed until the
 * block has no holder at all (block_put). */
#define ONCE_SLOTS 4
enum { ONCE_EMPTY, ONCE_COMPUTING, ONCE_DONE, ONCE_STALE };
typedef struct OnceSlot {
    const void *tag;
    uint64_t key;
    int state;
    unsigned gen; /* Block.once_gen when its computation began */
    uint64_t value;
    bool is_area; /* the result is the area (else the value) */
    void *area; /* an area's memory, kept from use to use of the block */
    size_t area_size;
} OnceSlot;

/* priv points to this header, placed before the planes */
typedef struct Block {
    size_t size;
    const TvmafHostAllocator *alloc; /* NULL: posix_memalign/free */
    /* pictures sharing the buffer (tvmaf_picture_ref): all of them in the
     * low 32 bits, those held by callers (not handed to a context) in the
     * high 32, updated together */
    atomic_ullong refs;
    atomic_ullong serial; /* these contents of the buffer (tvmaf_picture_serial) */
    pthread_mutex_t once_lock;
    pthread_cond_t once_done;
    unsigned once_gen; /* bumped when the results go (the contents may change) */
    OnceSlot once[ONCE_SLOTS];
    /* planes in a device's memory (tvmaf_picture_wrap_device): the block is
     * this header alone, never cached here; `dev` goes back through
     * dev_mem when the last reference goes */
    const TvmafDeviceMemory *dev_mem;
    void *dev_opaque;
    uintptr_t dev; /* `size` bytes there */
    bool luma_only;
    /* planes in host memory the block does not own (tvmaf_picture_wrap_host):
     * the block is this header alone, never cached; host_release(host_opaque)
     * when the last reference goes */
    void (*host_release)(void *opaque);
    void *host_opaque;
} Block;
#define HEADER ((sizeof(Block) + PIC_ALIGN - 1) & ~(size_t)(PIC_ALIGN - 1))

/* A picture's priv: its Block, with bit 0 set for a reference a context
 * holds (tvmaf_picture_hand_over): the library never writes the planes
 * through it. The rest are callers' references, which may write the planes
 * once they are the only reference left. */
#define HANDED ((uintptr_t)1)
#define REF_ONE 1ull
#define REF_CALLER (1ull << 32)

static inline Block *block_of(const TvmafPicture *pic)
{
    return (Block *)((uintptr_t)pic->priv & ~HANDED);
}

static inline bool handed(const TvmafPicture *pic)
{
    return (uintptr_t)pic->priv & HANDED;
}

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static Block *cache[CACHE_SLOTS];
static unsigned cache_n;
/* the allocator new blocks come from (a backend's page-locked memory) */
static const TvmafHostAllocator *current_alloc;
static unsigned long long n_block_allocs;
static atomic_ullong next_serial = 1;
/* areas computed and areas read from another holder's computation */
static atomic_ullong n_area_computed, n_area_shared;

/* The memory of a block, from allocator `a` (NULL: posix_memalign). */
static void block_free(const TvmafHostAllocator *a, void *p)
{
    if (a) a->free(a->opaque, p);
    else free(p);
}

static void block_release(Block *b)
{
    if (!b) return;
    for (unsigned i = 0; i < ONCE_SLOTS; i++) free(b->once[i].area);
    pthread_cond_destroy(&b->once_done);
    pthread_mutex_destroy(&b->once_lock);
    if (b->dev_mem) b->dev_mem->free(b->dev_opaque, b->dev, b->size);
    if (b->host_release) b->host_release(b->host_opaque);
    block_free(b->alloc, b);
}

/* The block's results' lock and condition; 0, or nonzero with neither left. */
static int once_sync_init(Block *b)
{
    if (pthread_mutex_init(&b->once_lock, NULL)) return -1;
    if (!pthread_cond_init(&b->once_done, NULL)) return 0;
    pthread_mutex_destroy(&b->once_lock);
    return -1;
}

/* A block of `size` plane bytes: from the cache when one of that size and
 * allocator is free (its padding is still zero: nothing writes padding), else
 * fresh and zeroed. *fresh tells which. */
static Block *block_get(size_t size, bool *fresh)
{
    pthread_mutex_lock(&cache_lock);
    const TvmafHostAllocator *a = current_alloc;
    for (unsigned i = 0; i < cache_n; i++) {
        if (cache[i]->size == size && cache[i]->alloc == a) {
            Block *b = cache[i];
            cache[i] = cache[--cache_n];
            pthread_mutex_unlock(&cache_lock);
            *fresh = false;
            return b;
        }
    }
    n_block_allocs++;
    pthread_mutex_unlock(&cache_lock);
    void *p = NULL;
    if (a) {
        p = a->alloc(a->opaque, HEADER + size);
    } else if (posix_memalign(&p, PIC_ALIGN, HEADER + size)) {
        p = NULL;
    }
    if (!p) return NULL;
    Block *b = p;
    b->size = size;
    b->alloc = a;
    b->once_gen = 0;
    b->dev_mem = NULL; /* host planes */
    b->dev_opaque = NULL;
    b->dev = 0;
    b->luma_only = false;
    b->host_release = NULL;
    b->host_opaque = NULL;
    memset(b->once, 0, sizeof(b->once));
    if (once_sync_init(b)) {
        block_free(a, p);
        return NULL;
    }
    *fresh = true;
    return b;
}

/* No holder is left: every result goes (areas keep their memory). */
static void once_clear(Block *b)
{
    for (unsigned i = 0; i < ONCE_SLOTS; i++) {
        b->once[i].state = ONCE_EMPTY;
        b->once[i].tag = NULL;
    }
}

static void block_put(Block *b)
{
    once_clear(b);
    pthread_mutex_lock(&cache_lock);
    if (cache_n < CACHE_SLOTS && b->alloc == current_alloc && !b->dev_mem && !b->host_release) {
        cache[cache_n++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    block_release(b);
}

void tvmaf_picture_set_allocator(const TvmafHostAllocator *a)
{
    pthread_mutex_lock(&cache_lock);
    current_alloc = a;
    pthread_mutex_unlock(&cache_lock);
}

/* Allocators installed by open contexts, with how many contexts installed
 * each, in the order of their first install; the last is current. */
#define MAX_INSTALLED 64
static struct { const TvmafHostAllocator *a; unsigned n; } installed[MAX_INSTALLED];
static unsigned n_installed;

void tvmaf_picture_allocator_install(const TvmafHostAllocator *a)
{
    pthread_mutex_lock(&cache_lock);
    unsigned i = 0;
    while (i < n_installed && installed[i].a != a) i++;
    if (i < n_installed) {
        installed[i].n++;
    } else if (n_installed < MAX_INSTALLED) {
        installed[n_installed].a = a;
        installed[n_installed++].n = 1;
    }
    current_alloc = a;
    pthread_mutex_unlock(&cache_lock);
}

void tvmaf_picture_allocator_uninstall(const TvmafHostAllocator *a)
{
    pthread_mutex_lock(&cache_lock);
    unsigned i = 0;
    while (i < n_installed && installed[i].a != a) i++;
    const bool last = i == n_installed || !--installed[i].n;
    if (i < n_installed && last) {
        memmove(&installed[i], &installed[i + 1], (n_installed - i - 1) * sizeof(installed[0]));
        n_installed--;
    }
    if (last)
        current_alloc = n_installed ? installed[n_installed - 1].a : NULL;
    pthread_mutex_unlock(&cache_lock);
    if (last) tvmaf_picture_cache_drop(a);
}

void tvmaf_picture_cache_drop(const TvmafHostAllocator *a)
{
    Block *drop[CACHE_SLOTS];
    unsigned n = 0;
    pthread_mutex_lock(&cache_lock);
    for (unsigned i = 0; i < cache_n;) {
        if (cache[i]->alloc == a) {
            drop[n++] = cache[i];
            cache[i] = cache[--cache_n];
        } else {
            i++;
        }
    }
    if (current_alloc == a) current_alloc = NULL;
    pthread_mutex_unlock(&cache_lock);
    for (unsigned i = 0; i < n; i++) block_release(drop[i]);
}

unsigned long long tvmaf_picture_alloc_count(void)
{
    pthread_mutex_lock(&cache_lock);
    unsigned long long n = n_block_allocs;
    pthread_mutex_unlock(&cache_lock);
    return n;
}

bool tvmaf_picture_is_pinned(const TvmafPicture *pic, const TvmafHostAllocator *a)
{
    return pic && pic->priv && a && block_of(pic)->alloc == a;
}

const char *tvmaf_pix_fmt_name(enum TvmafPixelFormat f)
{
    switch (f) {
    case TVMAF_PIX_FMT_YUV420P: return "4:2:0";
    case TVMAF_PIX_FMT_YUV422P: return "4:2:2";
    case TVMAF_PIX_FMT_YUV444P: return "4:4:4";
    case TVMAF_PIX_FMT_YUV400P: return "4:0:0";
    default: return "unknown";
    }
}

int tvmaf_plane_dims(enum TvmafPixelFormat fmt, unsigned w, unsigned h,
                     unsigned pw[3], unsigned ph[3])
{
    if (!w || !h) return -EINVAL;
    unsigned cw, ch;
    switch (fmt) {
    case TVMAF_PIX_FMT_YUV420P: cw = (w + 1) / 2; ch = (h + 1) / 2; break;
    case TVMAF_PIX_FMT_YUV422P: cw = (w + 1) / 2; ch = h; break;
    case TVMAF_PIX_FMT_YUV444P: cw = w; ch = h; break;
    case TVMAF_PIX_FMT_YUV400P: cw = 0; ch = 0; break;
    default: return -EINVAL;
    }
    pw[0] = w; ph[0] = h;
    pw[1] = pw[2] = cw;
    ph[1] = ph[2] = ch;
    return 0;
}

int tvmaf_picture_layout(enum TvmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                         size_t stride[3], size_t off[3], size_t *total)
{
    unsigned pw[3], ph[3];
    if (bpc < 8 || bpc > 16 || tvmaf_plane_dims(fmt, w, h, pw, ph)) return -EINVAL;
    const size_t bytes = bpc > 8 ? 2 : 1;
    *total = 0;
    for (int p = 0; p < 3; p++) {
        /* rows padded to the alignment so SIMD and DMA can work on whole rows */
        stride[p] = (pw[p] * bytes + PIC_ALIGN - 1) & ~(size_t)(PIC_ALIGN - 1);
        off[p] = *total;
        *total += stride[p] * ph[p];
    }
    return 0;
}

bool tvmaf_picture_has_layout(const TvmafPicture *pic)
{
    size_t stride[3], off[3], total;
    /* a device picture's planes are not host memory */
    if (pic->priv && block_of(pic)->dev_mem) return false;
    if (!pic->data[0] || tvmaf_picture_layout(pic->pix_fmt, pic->bpc, pic->w[0], pic->h[0],
                                              stride, off, &total))
        return false;
    for (int p = 0; p < 3; p++) {
        if (!pic->w[p]) continue;
        if ((size_t)pic->stride[p] != stride[p] ||
            (const unsigned char *)pic->data[p] != (const unsigned char *)pic->data[0] + off[p])
            return false;
    }
    return true;
}

int tvmaf_picture_alloc(TvmafPicture *pic, enum TvmafPixelFormat fmt,
                        unsigned bpc, unsigned w, unsigned h)
{
    if (!pic) return -EINVAL;
    memset(pic, 0, sizeof(*pic));
    if (bpc < 8 || bpc > 16) return -EINVAL;
    if (w > 65536 || h > 65536) return -EINVAL;
    unsigned pw[3], ph[3];
    if (tvmaf_plane_dims(fmt, w, h, pw, ph)) return -EINVAL;
    const size_t bytes = bpc > 8 ? 2 : 1;
    size_t off[3], total, stride[3];
    if (tvmaf_picture_layout(fmt, bpc, w, h, stride, off, &total)) return -EINVAL;
    for (int p = 0; p < 3; p++) pic->stride[p] = (ptrdiff_t)stride[p];
    bool fresh;
    Block *blk = block_get(total, &fresh);
    if (!blk) return -ENOMEM;
    unsigned char *buf = (unsigned char *)blk + HEADER;
    /* Row padding reads as zero whoever fills the rows: a fresh block is
     * cleared whole; a reused one only where a user may have written
     * beyond the rows (its padding), the rows themselves are for the
     * caller to fill. Clearing a reused multi-megabyte block every frame
     * would cost as much as reading it. */
    if (fresh) {
        memset(buf, 0, total);
    } else {
        for (int p = 0; p < 3; p++) {
            const size_t row = pw[p] * bytes;
            if (stride[p] == row) continue;
            for (unsigned y = 0; y < ph[p]; y++)
                memset(buf + off[p] + y * stride[p] + row, 0, stride[p] - row);
        }
    }
    pic->pix_fmt = fmt;
    pic->bpc = bpc;
    for (int p = 0; p < 3; p++) {
        pic->w[p] = pw[p];
        pic->h[p] = ph[p];
        pic->data[p] = pw[p] ? buf + off[p] : NULL;
    }
    atomic_init(&blk->refs, REF_ONE | REF_CALLER);
    /* a new use of the buffer: no holder but this one yet, so no lock */
    atomic_init(&blk->serial, atomic_fetch_add_explicit(&next_serial, 1, memory_order_relaxed));
    pic->priv = blk;
    return 0;
}

/* A picture of planes the block does not own, laid out from `base` (the
 * chroma planes left out when luma_only); its Block (header alone) is
 * *out for the caller to say what the memory is. */
static int wrap_planes(TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc, unsigned w,
                       unsigned h, bool luma_only, uintptr_t base, size_t *total, Block **out)
{
    memset(pic, 0, sizeof(*pic));
    size_t off[3], stride[3];
    unsigned pw[3], ph[3];
    if (tvmaf_plane_dims(fmt, w, h, pw, ph) ||
        tvmaf_picture_layout(fmt, bpc, w, h, stride, off, total))
        return -EINVAL;
    if (luma_only) *total = stride[0] * ph[0];
    Block *b = calloc(1, sizeof(*b));
    if (!b) return -ENOMEM;
    if (once_sync_init(b)) {
        free(b);
        return -ENOMEM;
    }
    pic->pix_fmt = fmt;
    pic->bpc = bpc;
    for (int p = 0; p < 3; p++) {
        pic->w[p] = pw[p];
        pic->h[p] = ph[p];
        if (!pw[p] || (p && luma_only)) continue;
        pic->stride[p] = (ptrdiff_t)stride[p];
        pic->data[p] = (void *)(base + off[p]);
    }
    atomic_init(&b->refs, REF_ONE | REF_CALLER);
    atomic_init(&b->serial, atomic_fetch_add_explicit(&next_serial, 1, memory_order_relaxed));
    pic->priv = b;
    *out = b;
    return 0;
}

int tvmaf_picture_wrap_device(TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc,
                              unsigned w, unsigned h, bool luma_only, uintptr_t dev,
                              size_t size, const TvmafDeviceMemory *mem, void *opaque)
{
    size_t need;
    Block *b;
    int rc = wrap_planes(pic, fmt, bpc, w, h, luma_only, dev, &need, &b);
    if (rc) return rc;
    if (size < need) {
        block_release(b); /* the bare header: no memory of its own */
        memset(pic, 0, sizeof(*pic));
        return -EINVAL;
    }
    b->size = size;
    b->dev_mem = mem;
    b->dev_opaque = opaque;
    b->dev = dev;
    b->luma_only = luma_only;
    return 0;
}

int tvmaf_picture_wrap_host(TvmafPicture *pic, enum TvmafPixelFormat fmt, unsigned bpc,
                            unsigned w, unsigned h, const void *base,
                            void (*release)(void *opaque), void *opaque)
{
    if (!base || !release || ((uintptr_t)base & (PIC_ALIGN - 1))) {
        memset(pic, 0, sizeof(*pic));
        return -EINVAL;
    }
    size_t total;
    Block *b;
    const int rc = wrap_planes(pic, fmt, bpc, w, h, false, (uintptr_t)base, &total, &b);
    if (rc) return rc;
    b->size = total;
    b->host_release = release;
    b->host_opaque = opaque;
    return 0;
}

void *tvmaf_picture_device(const TvmafPicture *pic)
{
    return pic && pic->priv && block_of(pic)->dev_mem ? block_of(pic)->dev_opaque : NULL;
}

bool tvmaf_picture_luma_only(const TvmafPicture *pic)
{
    return pic && pic->priv && block_of(pic)->luma_only;
}

uint64_t tvmaf_picture_serial(const TvmafPicture *pic)
{
    return pic && pic->priv
               ? atomic_load_explicit(&block_of(pic)->serial, memory_order_relaxed)
               : 0;
}

/* A result of the picture's contents: a value (fn_value) or an area of
 * `bytes` bytes (fn_area) that the block keeps. The first holder to ask
 * computes it while the others with the same tag and key wait. *area = NULL
 * when an area cannot be kept (no free slot, or no memory): the caller then
 * computes on its own. */
static int once_run(Block *b, const void *tag, uint64_t key, size_t bytes,
                    int (*fn_value)(void *arg, uint64_t *value),
                    int (*fn_area)(void *arg, void *area), void *arg, uint64_t *value,
                    const void **area)
{
    pthread_mutex_lock(&b->once_lock);
    OnceSlot *slot = NULL;
    for (;;) {
        slot = NULL;
        for (unsigned i = 0; i < ONCE_SLOTS; i++) {
            OnceSlot *t = &b->once[i];
            if ((t->state == ONCE_COMPUTING || t->state == ONCE_DONE) && t->tag == tag
                && t->key == key && t->is_area == (fn_area != NULL))
                slot = t;
        }
        if (!slot || slot->state != ONCE_COMPUTING) break;
        pthread_cond_wait(&b->once_done, &b->once_lock);
    }
    if (slot) { /* done */
        if (fn_area) {
            *area = slot->area;
            atomic_fetch_add_explicit(&n_area_shared, 1, memory_order_relaxed);
        } else {
            *value = slot->value;
        }
        pthread_mutex_unlock(&b->once_lock);
        return 0;
    }
    /* a free slot; for an area, one whose memory fits if there is one */
    for (unsigned i = 0; i < ONCE_SLOTS; i++) {
        OnceSlot *t = &b->once[i];
        if (t->state != ONCE_EMPTY) continue;
        if (!slot || (fn_area && t->area_size >= bytes && slot->area_size < bytes)) slot = t;
    }
    if (slot && fn_area && slot->area_size < bytes) {
        free(slot->area);
        slot->area = NULL;
        slot->area_size = 0;
        if (!posix_memalign(&slot->area, PIC_ALIGN, bytes)) slot->area_size = bytes;
        else slot->area = NULL;
    }
    if (!slot || (fn_area && !slot->area)) { /* computed by the caller, not kept */
        pthread_mutex_unlock(&b->once_lock);
        if (fn_area) {
            *area = NULL;
            return 0;
        }
        return fn_value(arg, value);
    }
    /* this holder computes; the others with this tag and key wait for it */
    slot->tag = tag;
    slot->key = key;
    slot->state = ONCE_COMPUTING;
    slot->is_area = fn_area != NULL;
    slot->gen = b->once_gen;
    pthread_mutex_unlock(&b->once_lock);
    uint64_t v = 0;
    const int err = fn_area ? fn_area(arg, slot->area) : fn_value(arg, &v);
    pthread_mutex_lock(&b->once_lock);
    if (err) {
        slot->state = ONCE_EMPTY; /* the next holder tries again, and gets its own error */
        slot->tag = NULL;
    } else {
        if (fn_area) {
            *area = slot->area;
            atomic_fetch_add_explicit(&n_area_computed, 1, memory_order_relaxed);
        } else {
            *value = slot->value = v;
        }
        /* the results went while it computed (once_forget): this caller may
         * still read it, nobody else will ask for it */
        slot->state = slot->gen == b->once_gen ? ONCE_DONE : fn_area ? ONCE_STALE : ONCE_EMPTY;
    }
    pthread_cond_broadcast(&b->once_done);
    pthread_mutex_unlock(&b->once_lock);
    return err;
}

int tvmaf_picture_once(const TvmafPicture *pic, const void *tag, uint64_t key,
                       int (*fn)(void *arg, uint64_t *value), void *arg, uint64_t *value)
{
    if (!pic || !pic->priv) return fn(arg, value);
    return once_run(block_of(pic), tag, key, 0, fn, NULL, arg, value, NULL);
}

int tvmaf_picture_once_area(const TvmafPicture *pic, const void *tag, uint64_t key, size_t bytes,
                            int (*fn)(void *arg, void *area), void *arg, const void **area)
{
    *area = NULL;
    if (!pic || !pic->priv || !bytes) return 0;
    return once_run(block_of(pic), tag, key, bytes, NULL, fn, arg, NULL, area);
}

void tvmaf_picture_once_area_counts(unsigned long long *computed, unsigned long long *shared)
{
    *computed = atomic_load_explicit(&n_area_computed, memory_order_relaxed);
    *shared = atomic_load_explicit(&n_area_shared, memory_order_relaxed);
}

/* A caller's reference is the only one left, who may now write the planes
 * and submit them again: the results computed for these contents go, and
 * the serial naming them. That caller may still be reading an area, so an
 * area stays allocated (stale) until the block has no holder. */
static void once_forget(Block *b)
{
    pthread_mutex_lock(&b->once_lock);
    b->once_gen++;
    for (unsigned i = 0; i < ONCE_SLOTS; i++) {
        OnceSlot *t = &b->once[i];
        if (t->state == ONCE_DONE) t->state = t->is_area ? ONCE_STALE : ONCE_EMPTY;
    }
    atomic_store_explicit(&b->serial,
                          atomic_fetch_add_explicit(&next_serial, 1, memory_order_relaxed),
                          memory_order_relaxed);
    pthread_mutex_unlock(&b->once_lock);
}

int tvmaf_picture_ref(TvmafPicture *dst, const TvmafPicture *src)
{
    if (!dst || !src || !src->data[0]) return -EINVAL;
    if (src->priv)
        atomic_fetch_add_explicit(&block_of(src)->refs, REF_ONE | (handed(src) ? 0 : REF_CALLER),
                                  memory_order_relaxed);
    *dst = *src;
    return 0;
}

void tvmaf_picture_hand_over(TvmafPicture *pic)
{
    if (!pic || !pic->priv || handed(pic)) return;
    /* fewer callers' references: never the state "one caller alone" that
     * ends the results (see tvmaf_picture_unref) */
    atomic_fetch_sub_explicit(&block_of(pic)->refs, REF_CALLER, memory_order_relaxed);
    pic->priv = (void *)((uintptr_t)pic->priv | HANDED);
}

void tvmaf_picture_unref(TvmafPicture *pic)
{
    if (!pic) return;
    /* the last reference returns the buffer; acq_rel orders every holder's
     * reads of the planes before the buffer is handed out again */
    if (pic->priv) {
        Block *b = block_of(pic);
        const unsigned long long d = REF_ONE | (handed(pic) ? 0 : REF_CALLER);
        const unsigned long long now =
            atomic_fetch_sub_explicit(&b->refs, d, memory_order_acq_rel) - d;
        if (!(now & 0xffffffffull)) {
            block_put(b);
        } else if (now == (REF_ONE | REF_CALLER)) {
            /* one reference is left, a caller's, who may now write the
             * planes: the results kept for these contents go. A context's
             * last reference never writes them, so they stay with it. */
            once_forget(b);
        }
    }
    memset(pic, 0, sizeof(*pic));
}
