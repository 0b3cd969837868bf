#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/prefetch.h"

typedef struct Item {
    int rc;
    TvmafPicture pic;
} Item;

struct TvmafPrefetch {
    TvmafVideoReader *r;
    unsigned depth, max_frames;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond_item, cond_space;
    Item *ring;
    unsigned head, len;
    bool stop;
    bool done;          /* the thread queued its last item (rc <= 0) */
    int final_rc;       /* that item's rc, repeated once it is taken */
    char msg[512];      /* the reader's message for an error */
};

static void *run(void *arg)
{
    TvmafPrefetch *p = arg;
    char msg[512];
    for (unsigned n = 0;; n++) {
        Item it = { 0 };
        msg[0] = '\0';
        if (p->max_frames && n >= p->max_frames) it.rc = 0;
        else it.rc = tvmaf_reader_read(p->r, &it.pic, msg, sizeof(msg));
        pthread_mutex_lock(&p->lock);
        while (p->len == p->depth && !p->stop) pthread_cond_wait(&p->cond_space, &p->lock);
        if (p->stop) {
            pthread_mutex_unlock(&p->lock);
            if (it.rc == 1) tvmaf_picture_unref(&it.pic);
            return NULL;
        }
        if (it.rc <= 0) {
            p->done = true;
            p->final_rc = it.rc;
            memcpy(p->msg, msg, sizeof(p->msg));
        }
        p->ring[(p->head + p->len) % p->depth] = it;
        p->len++;
        pthread_cond_signal(&p->cond_item);
        pthread_mutex_unlock(&p->lock);
        if (it.rc <= 0) return NULL;
    }
}

int tvmaf_prefetch_start(TvmafPrefetch **out, TvmafVideoReader *r, unsigned depth,
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
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond_item, NULL);
    pthread_cond_init(&p->cond_space, NULL);
    if (pthread_create(&p->thread, NULL, run, p)) {
        pthread_cond_destroy(&p->cond_item);
        pthread_cond_destroy(&p->cond_space);
        pthread_mutex_destroy(&p->lock);
        free(p->ring);
        free(p);
        return -EAGAIN;
    }
    *out = p;
    return 0;
}

int tvmaf_prefetch_next(TvmafPrefetch *p, TvmafPicture *pic, char *msg, size_t msg_len)
{
    memset(pic, 0, sizeof(*pic));
    if (msg && msg_len) msg[0] = '\0';
    pthread_mutex_lock(&p->lock);
    while (!p->len) {
        if (p->done) { /* the last item was taken already: repeat it */
            int rc = p->final_rc;
            if (rc < 0 && msg && msg_len) {
                strncpy(msg, p->msg, msg_len - 1);
                msg[msg_len - 1] = '\0';
            }
            pthread_mutex_unlock(&p->lock);
            return rc;
        }
        pthread_cond_wait(&p->cond_item, &p->lock);
    }
    Item it = p->ring[p->head];
    p->head = (p->head + 1) % p->depth;
    p->len--;
    pthread_cond_signal(&p->cond_space);
    if (it.rc < 0 && msg && msg_len) {
        strncpy(msg, p->msg, msg_len - 1);
        msg[msg_len - 1] = '\0';
    }
    pthread_mutex_unlock(&p->lock);
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
    pthread_join(p->thread, NULL);
    for (; p->len; p->len--, p->head = (p->head + 1) % p->depth)
        if (p->ring[p->head].rc == 1) tvmaf_picture_unref(&p->ring[p->head].pic);
    pthread_cond_destroy(&p->cond_item);
    pthread_cond_destroy(&p->cond_space);
    pthread_mutex_destroy(&p->lock);
    free(p->ring);
    free(p);
}
