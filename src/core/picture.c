/*
 * Pictures: one aligned allocation per picture, planes back to back.
 *
 * Freed buffers are kept in a small process-wide cache and handed out again
 * for the same size: a video is a stream of equal pictures, and returning a
 * multi-megabyte buffer to the system after every frame (glibc maps and
 * unmaps blocks that large) costs more than scoring some features.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"

#define PIC_ALIGN 64
#define CACHE_SLOTS 64

/* priv points to this header, placed before the planes */
typedef struct Block {
    size_t size;
} Block;
#define HEADER ((sizeof(Block) + PIC_ALIGN - 1) & ~(size_t)(PIC_ALIGN - 1))

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static Block *cache[CACHE_SLOTS];
static unsigned cache_n;

static Block *block_get(size_t size)
{
    pthread_mutex_lock(&cache_lock);
    for (unsigned i = 0; i < cache_n; i++) {
        if (cache[i]->size == size) {
            Block *b = cache[i];
            cache[i] = cache[--cache_n];
            pthread_mutex_unlock(&cache_lock);
            return b;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    void *p = NULL;
    if (posix_memalign(&p, PIC_ALIGN, HEADER + size)) return NULL;
    Block *b = p;
    b->size = size;
    return b;
}

static void block_put(Block *b)
{
    pthread_mutex_lock(&cache_lock);
    if (cache_n < CACHE_SLOTS) {
        cache[cache_n++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    free(b);
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
    size_t off[3], total = 0;
    for (int p = 0; p < 3; p++) {
        /* rows padded to the alignment so SIMD and DMA can work on whole rows */
        const size_t stride = (pw[p] * bytes + PIC_ALIGN - 1) & ~(size_t)(PIC_ALIGN - 1);
        pic->stride[p] = (ptrdiff_t)stride;
        off[p] = total;
        total += stride * ph[p];
    }
    Block *blk = block_get(total);
    if (!blk) return -ENOMEM;
    unsigned char *buf = (unsigned char *)blk + HEADER;
    /* zeroed, so row padding reads as zero whoever fills the rows */
    memset(buf, 0, total);
    pic->pix_fmt = fmt;
    pic->bpc = bpc;
    for (int p = 0; p < 3; p++) {
        pic->w[p] = pw[p];
        pic->h[p] = ph[p];
        pic->data[p] = pw[p] ? buf + off[p] : NULL;
    }
    pic->priv = blk;
    return 0;
}

void tvmaf_picture_unref(TvmafPicture *pic)
{
    if (!pic) return;
    if (pic->priv) block_put(pic->priv);
    memset(pic, 0, sizeof(*pic));
}
