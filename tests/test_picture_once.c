/*
 * Results computed once per picture for every holder (tvmaf_picture_once),
 * what a ladder's contexts use to share work that reads reference pictures
 * only: one computation for many callers at once, keys and tags kept apart,
 * a failed computation not kept, pictures the library did not allocate
 * never shared, and nothing kept once the planes may change (the last but
 * one reference released, the buffer handed out again).
 *
 * usage: test_picture_once
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tvmaf/tvmaf.h"
#include "core/picture_pool.h"
#include "unit_check.h"

static atomic_uint calls;
static const char tag_a = 0, tag_b = 0;

typedef struct Job {
    uint64_t value;
    int fail;      /* return this errno (negated) instead */
    unsigned slow; /* milliseconds */
} Job;

static int compute(void *arg, uint64_t *value)
{
    const Job *j = arg;
    atomic_fetch_add(&calls, 1);
    if (j->slow) nanosleep(&(struct timespec){ 0, (long)j->slow * 1000000L }, NULL);
    if (j->fail) return -j->fail;
    *value = j->value;
    return 0;
}

static uint64_t once(const TvmafPicture *p, const void *tag, uint64_t key, Job *j, int *err)
{
    uint64_t v = 0;
    *err = tvmaf_picture_once(p, tag, key, compute, j, &v);
    return v;
}

typedef struct Caller {
    TvmafPicture pic; /* the caller's own reference */
    Job job;
    uint64_t got;
    int err;
} Caller;

static void *caller(void *arg)
{
    Caller *c = arg;
    c->got = once(&c->pic, &tag_a, 7, &c->job, &c->err);
    return NULL;
}

int main(void)
{
    TvmafPicture a, b, a2;
    int err;
    if (tvmaf_picture_alloc(&a, TVMAF_PIX_FMT_YUV420P, 8, 64, 48) ||
        tvmaf_picture_alloc(&b, TVMAF_PIX_FMT_YUV420P, 8, 64, 48)) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    check(tvmaf_picture_serial(&a) && tvmaf_picture_serial(&b) &&
              tvmaf_picture_serial(&a) != tvmaf_picture_serial(&b),
          "serials: set, one per picture");
    tvmaf_picture_ref(&a2, &a);
    check(tvmaf_picture_serial(&a2) == tvmaf_picture_serial(&a), "serials: a reference shares it");

    /* eight holders at once, the computation slow enough that they meet */
    enum { N = 8 };
    Caller c[N];
    pthread_t th[N];
    atomic_store(&calls, 0);
    for (int i = 0; i < N; i++) {
        memset(&c[i], 0, sizeof(c[i]));
        tvmaf_picture_ref(&c[i].pic, &a);
        c[i].job = (Job){ .value = 1000 + (uint64_t)i, .slow = 50 };
    }
    for (int i = 0; i < N; i++) pthread_create(&th[i], NULL, caller, &c[i]);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    int same = 1;
    for (int i = 0; i < N; i++) same &= !c[i].err && c[i].got == c[0].got;
    check(atomic_load(&calls) == 1, "eight holders at once: computed once");
    check(same && c[0].got >= 1000 && c[0].got < 1000 + N, "eight holders at once: one value for all");
    Job j = { .value = 5 };
    check(once(&a, &tag_a, 7, &j, &err) == c[0].got && !err && atomic_load(&calls) == 1,
          "a later holder reads the kept value");
    once(&a, &tag_a, 8, &j, &err);
    check(atomic_load(&calls) == 2, "another key: computed");
    once(&a, &tag_b, 7, &j, &err);
    check(atomic_load(&calls) == 3, "another tag: computed");
    check(once(&b, &tag_a, 7, &j, &err) == 5 && atomic_load(&calls) == 4,
          "another picture: computed, its own value");

    /* a failure is returned and not kept */
    Job bad = { .fail = EIO };
    once(&a, &tag_b, 9, &bad, &err);
    check(err == -EIO, "failure: its errno returned");
    j.value = 6;
    check(once(&a, &tag_b, 9, &j, &err) == 6 && !err && atomic_load(&calls) == 6,
          "failure: the next holder computes");

    /* slots full (four here): computed every time, still the right value */
    const unsigned before = atomic_load(&calls);
    j.value = 11;
    once(&a, &tag_b, 10, &j, &err);
    once(&a, &tag_b, 10, &j, &err);
    check(atomic_load(&calls) == before + 2 && !err, "slots full: computed, not kept");

    /* a picture the library did not allocate: never kept */
    uint8_t mem[64 * 48];
    TvmafPicture ext = { .pix_fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 8, .w = { 64 }, .h = { 48 },
                         .stride = { 64 }, .data = { mem } };
    const unsigned b2 = atomic_load(&calls);
    once(&ext, &tag_a, 7, &j, &err);
    once(&ext, &tag_a, 7, &j, &err);
    check(tvmaf_picture_serial(&ext) == 0 && atomic_load(&calls) == b2 + 2,
          "caller's memory: no serial, computed every time");

    /* the holders go but one: the planes may change, nothing is kept */
    for (int i = 0; i < N; i++) tvmaf_picture_unref(&c[i].pic);
    const uint64_t s_shared = tvmaf_picture_serial(&a);
    check(s_shared == tvmaf_picture_serial(&a2), "two holders left: serial unchanged");
    tvmaf_picture_unref(&a2);
    check(tvmaf_picture_serial(&a) != s_shared, "one holder left: a new serial");
    j.value = 12;
    const unsigned b3 = atomic_load(&calls);
    check(once(&a, &tag_a, 7, &j, &err) == 12 && atomic_load(&calls) == b3 + 1,
          "one holder left: computed again from the planes as they are");

    /* the buffer handed out again (the library's cache): a new serial, nothing kept */
    const uint64_t s_a = tvmaf_picture_serial(&a);
    tvmaf_picture_unref(&a);
    TvmafPicture r;
    if (tvmaf_picture_alloc(&r, TVMAF_PIX_FMT_YUV420P, 8, 64, 48)) return 2;
    j.value = 13;
    const unsigned b4 = atomic_load(&calls);
    check(tvmaf_picture_serial(&r) != s_a && tvmaf_picture_serial(&r) != tvmaf_picture_serial(&b),
          "buffer reused: a new serial");
    check(once(&r, &tag_a, 7, &j, &err) == 13 && atomic_load(&calls) == b4 + 1,
          "buffer reused: computed again");
    tvmaf_picture_unref(&r);
    tvmaf_picture_unref(&b);

    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
