/*
 * Two ways of reading ahead. A stream (pipe, Y4M) is read by one thread in
 * order. Raw YUV in a regular file is read by several threads at once, each
 * taking the next frame number and reading it at its offset
 * (tvmaf_reader_read_at): copying from the page cache runs at a few GB/s
 * per thread, and one thread per input is what limits 4K otherwise.
 *
 * Either way frame n goes to slot n % depth and the consumer takes the slots
 * in order; a thread may not start frame n before frame n - depth has been
 * taken, so at most `depth` frames are held. The first result that is not a
 * frame (end or error) ends the stream for the consumer; frames past it are
 * dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/prefetch.h"

#define MAX_THREADS 4
/* threads per input for random access */
#define RANDOM_ACCESS_THREADS 3

typedef struct Item {
    bool filled;
    int rc;
    TvmafPicture pic;
    char msg[512];
} Item;

struct TvmafPrefetch {
    TvmafReader *r;
    bool random;
    unsigned depth, max_frames;
    pthread_t thread[MAX_THREADS];
    unsigned n_threads;
    pthread_mutex_t lock;
    pthread_cond_t cond_item, cond_space;
    Item *ring;
    uint64_t next_claim; /* next frame a thread takes */
    uint64_t taken;      /* frames the consumer has taken */
    bool stop;
    bool ended;          /* the consumer met the end or an error */
    int final_rc;
    char final_msg[512];
};

static void *run(void *arg)
{
    TvmafPrefetch *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const uint64_t n = p->next_claim++;
        while (!p->stop && n >= p->taken + p->depth)
            pthread_cond_wait(&p->cond_space, &p->lock);
        const bool stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        if (stop) return NULL;

        Item it = { .filled = true };
        if (p->max_frames && n >= p->max_frames)
            it.rc = 0;
        else if (p->random)
            it.rc = tvmaf_reader_read_at(p->r, n, &it.pic, it.msg, sizeof(it.msg));
        else /* one thread: claims come in order */
            it.rc = tvmaf_reader_read(p->r, &it.pic, it.msg, sizeof(it.msg));

        pthread_mutex_lock(&p->lock);
        if (p->stop) {
            pthread_mutex_unlock(&p->lock);
            if (it.rc == 1) tvmaf_picture_unref(&it.pic);
            return NULL;
        }
        p->ring[n % p->depth] = it;
        pthread_cond_broadcast(&p->cond_item);
        pthread_mutex_unlock(&p->lock);
        /* past the end every later frame ends too; a sequential reader
         * stops at its first non-frame */
        if (it.rc <= 0 && !p->random) {
            pthread_mutex_lock(&p->lock);
            while (!p->stop) pthread_cond_wait(&p->cond_space, &p->lock);
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
    }
}

int tvmaf_prefetch_start(TvmafPrefetch **out, TvmafReader *r, unsigned depth,
                         unsigned max_frames)
{
    if (!out || !r || !depth) return -EINVAL;
    TvmafPrefetch *p = calloc(1, sizeof(*p));
    if (!p) return -ENOMEM;
    p->ring = calloc(depth, sizeof(*p->ring));
    if (!p->ring) { free(p); return -ENOMEM; }
    p->r = r;
    p->depth = depth;
    p->max_frames = max_frames;
    p->random = tvmaf_reader_begin_random_access(r) == 1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond_item, NULL);
    pthread_cond_init(&p->cond_space, NULL);
    const unsigned want = p->random ? RANDOM_ACCESS_THREADS : 1;
    int e = 0;
    for (; p->n_threads < want; p->n_threads++)
        if ((e = pthread_create(&p->thread[p->n_threads], NULL, run, p))) break;
    if (!p->n_threads) {
        tvmaf_prefetch_stop(p);
        return -e; /* pthread_create's own reason: EAGAIN, ENOMEM, ... */
    }
    *out = p;
    return 0;
}

int tvmaf_prefetch_next(TvmafPrefetch *p, TvmafPicture *pic, char *msg, size_t msg_len)
{
    memset(pic, 0, sizeof(*pic));
    if (msg && msg_len) msg[0] = '\0';
    pthread_mutex_lock(&p->lock);
    Item it;
    if (p->ended) {
        it.rc = p->final_rc;
        memcpy(it.msg, p->final_msg, sizeof(it.msg));
    } else {
        Item *slot = &p->ring[p->taken % p->depth];
        while (!slot->filled) pthread_cond_wait(&p->cond_item, &p->lock);
        it = *slot;
        slot->filled = false;
        p->taken++;
        pthread_cond_broadcast(&p->cond_space);
        if (it.rc <= 0) {
            p->ended = true;
            p->final_rc = it.rc;
            memcpy(p->final_msg, it.msg, sizeof(p->final_msg));
        }
    }
    pthread_mutex_unlock(&p->lock);
    if (it.rc < 0 && msg && msg_len) {
        strncpy(msg, it.msg, msg_len - 1);
        msg[msg_len - 1] = '\0';
    }
    if (it.rc == 1) *pic = it.pic;
    return it.rc;
}

void tvmaf_prefetch_stop(TvmafPrefetch *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->cond_space);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n_threads; i++) pthread_join(p->thread[i], NULL);
    for (unsigned i = 0; i < p->depth; i++)
        if (p->ring[i].filled && p->ring[i].rc == 1) tvmaf_picture_unref(&p->ring[i].pic);
    pthread_cond_destroy(&p->cond_item);
    pthread_cond_destroy(&p->cond_space);
    pthread_mutex_destroy(&p->lock);
    free(p->ring);
    free(p);
}
