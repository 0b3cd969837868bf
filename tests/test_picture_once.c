/*
 * Results computed once per picture for every holder (tvmaf_picture_once),
 * what a ladder's contexts use to share work that reads reference pictures
 * only: one computation for many callers at once, keys and tags kept apart,
 * a failed computation not kept, pictures the library did not allocate
 * never shared, and nothing kept once the planes may change (the last but
 * one reference released, the buffer handed out again). The same for
 * areas (tvmaf_picture_once_area), and an area stays readable by the last
 * holder after the others went.
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

/* What every computation does first: counts itself, takes `slow`
 * milliseconds, and returns -fail (0: go on). */
static int begin(unsigned slow, int fail)
{
    atomic_fetch_add(&calls, 1);
    if (slow) nanosleep(&(struct timespec){ 0, (long)slow * 1000000L }, NULL);
    return -fail;
}

static int compute(void *arg, uint64_t *value)
{
    const Job *j = arg;
    const int err = begin(j->slow, j->fail);
    if (!err) *value = j->value;
    return err;
}

static uint64_t once(const TvmafPicture *p, const void *tag, uint64_t key, Job *j, int *err)
{
    uint64_t v = 0;
    *err = tvmaf_picture_once(p, tag, key, compute, j, &v);
    return v;
}

/* ---- areas (tvmaf_picture_once_area) ---- */

enum { AREA = 4096 };

typedef struct AreaJob {
    uint8_t fill; /* every byte of the area */
    int fail;
    unsigned slow;
} AreaJob;

static int fill_area(void *arg, void *area)
{
    const AreaJob *j = arg;
    const int err = begin(j->slow, j->fail);
    if (!err) memset(area, j->fill, AREA);
    return err;
}

/* Every byte of the area is v. */
static int area_is(const void *area, uint8_t v)
{
    const uint8_t *p = area;
    for (int i = 0; i < AREA; i++)
        if (p[i] != v) return 0;
    return 1;
}

typedef struct AreaCaller {
    TvmafPicture pic;
    AreaJob job;
    const void *got;
    int err;
} AreaCaller;

static void *area_caller(void *arg)
{
    AreaCaller *c = arg;
    c->err = tvmaf_picture_once_area(&c->pic, &tag_a, 7, AREA, fill_area, &c->job, &c->got);
    return NULL;
}

static void test_areas(void)
{
    TvmafPicture p, p2;
    if (tvmaf_picture_alloc(&p, TVMAF_PIX_FMT_YUV420P, 8, 64, 48)) {
        check(0, "areas: picture");
        return;
    }
    tvmaf_picture_ref(&p2, &p);
    unsigned long long made0, shared0, made, shared;
    tvmaf_picture_once_area_counts(&made0, &shared0);

    /* eight holders at once: one computation, one area for all */
    enum { N = 8 };
    AreaCaller c[N];
    pthread_t th[N];
    atomic_store(&calls, 0);
    for (int i = 0; i < N; i++) {
        memset(&c[i], 0, sizeof(c[i]));
        tvmaf_picture_ref(&c[i].pic, &p);
        c[i].job = (AreaJob){ .fill = (uint8_t)(1 + i), .slow = 50 };
    }
    for (int i = 0; i < N; i++) pthread_create(&th[i], NULL, area_caller, &c[i]);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    int same = 1;
    for (int i = 0; i < N; i++) same &= !c[i].err && c[i].got && c[i].got == c[0].got;
    check(atomic_load(&calls) == 1, "areas, eight holders at once: computed once");
    check(same && area_is(c[0].got, ((const uint8_t *)c[0].got)[0]) &&
              ((const uint8_t *)c[0].got)[0] >= 1 && ((const uint8_t *)c[0].got)[0] <= N,
          "areas, eight holders at once: one area, filled by one of them");
    check(((uintptr_t)c[0].got & 63) == 0, "areas: 64-byte aligned");
    tvmaf_picture_once_area_counts(&made, &shared);
    check(made == made0 + 1 && shared == shared0 + N - 1, "areas: counted (1 computed, 7 shared)");
    const void *first = c[0].got;
    const uint8_t first_fill = ((const uint8_t *)first)[0];

    /* another key: its own area; a value with the same tag and key is apart */
    AreaJob j = { .fill = 0x55 };
    const void *other = NULL;
    int err = tvmaf_picture_once_area(&p, &tag_a, 8, AREA, fill_area, &j, &other);
    check(!err && other && other != first && area_is(other, 0x55) && area_is(first, first_fill),
          "areas: another key, another area, the first unchanged");

    /* a failure is returned and not kept */
    AreaJob bad = { .fail = EIO };
    const void *none = first;
    err = tvmaf_picture_once_area(&p, &tag_b, 7, AREA, fill_area, &bad, &none);
    check(err == -EIO && !none, "areas: a failure returned, no area");
    const unsigned b1 = atomic_load(&calls);
    j.fill = 0x66;
    const void *retry = NULL;
    err = tvmaf_picture_once_area(&p, &tag_b, 7, AREA, fill_area, &j, &retry);
    check(!err && retry && area_is(retry, 0x66) && atomic_load(&calls) == b1 + 1,
          "areas: after a failure the next holder computes");

    /* a picture the library did not allocate: nothing kept, fn not called */
    uint8_t mem[64 * 48];
    TvmafPicture ext = { .pix_fmt = TVMAF_PIX_FMT_YUV400P, .bpc = 8, .w = { 64 }, .h = { 48 },
                         .stride = { 64 }, .data = { mem } };
    const unsigned b2 = atomic_load(&calls);
    const void *e = first;
    err = tvmaf_picture_once_area(&ext, &tag_a, 7, AREA, fill_area, &j, &e);
    check(!err && !e && atomic_load(&calls) == b2, "areas: caller's memory: not kept, not computed");

    /* the last but one holder goes: the remaining one may still read its
     * area, which stays as it was; a new request computes into other memory */
    for (int i = 0; i < N; i++) tvmaf_picture_unref(&c[i].pic);
    tvmaf_picture_unref(&p2);
    check(area_is(first, first_fill), "areas: one holder left: its area still readable");
    j.fill = 0x77;
    const void *again = NULL;
    err = tvmaf_picture_once_area(&p, &tag_a, 7, AREA, fill_area, &j, &again);
    check(!err && again && again != first && area_is(again, 0x77) && area_is(first, first_fill),
          "areas: one holder left: computed again, the old area not reused");
    /* every slot taken (three stale, one done): not kept, fn not called */
    const unsigned b3 = atomic_load(&calls);
    const void *full = first;
    err = tvmaf_picture_once_area(&p, &tag_b, 11, AREA, fill_area, &j, &full);
    check(!err && !full && atomic_load(&calls) == b3, "areas: slots full: not kept, not computed");
    tvmaf_picture_unref(&p);
}

/* References handed to a context (tvmaf_picture_hand_over) only read the
 * planes: results stay while one of them is the last reference, and go when
 * a caller's reference is left alone. */
static void test_hand_over(void)
{
    TvmafPicture p, c1, c2, q, qc;
    if (tvmaf_picture_alloc(&p, TVMAF_PIX_FMT_YUV420P, 8, 64, 48) ||
        tvmaf_picture_alloc(&q, TVMAF_PIX_FMT_YUV420P, 8, 64, 48)) {
        check(0, "hand over: pictures");
        return;
    }
    int err;
    Job j = { .value = 21 };
    tvmaf_picture_ref(&c1, &p);
    tvmaf_picture_hand_over(&c1);
    tvmaf_picture_ref(&c2, &c1); /* a context's too */
    const uint64_t serial = tvmaf_picture_serial(&p);
    atomic_store(&calls, 0);
    once(&p, &tag_a, 20, &j, &err);
    AreaJob aj = { .fill = 0x21 };
    const void *area = NULL;
    tvmaf_picture_once_area(&p, &tag_b, 20, AREA, fill_area, &aj, &area);
    check(atomic_load(&calls) == 2 && area, "hand over: a value and an area computed");
    tvmaf_picture_unref(&p); /* the caller goes: two contexts' references */
    tvmaf_picture_unref(&c1); /* one context's reference alone */
    j.value = 22;
    const void *again = NULL;
    check(tvmaf_picture_serial(&c2) == serial && once(&c2, &tag_a, 20, &j, &err) == 21 &&
              !tvmaf_picture_once_area(&c2, &tag_b, 20, AREA, fill_area, &aj, &again) &&
              again == area && atomic_load(&calls) == 2,
          "hand over: a context's last reference keeps the results and the serial");
    tvmaf_picture_unref(&c2);

    /* the context's reference goes first: the caller's is left alone */
    tvmaf_picture_ref(&qc, &q);
    tvmaf_picture_hand_over(&qc);
    tvmaf_picture_hand_over(&qc); /* twice: still one reference */
    const uint64_t qs = tvmaf_picture_serial(&q);
    j.value = 23;
    once(&q, &tag_a, 20, &j, &err);
    tvmaf_picture_unref(&qc);
    j.value = 24;
    const unsigned b = atomic_load(&calls);
    check(tvmaf_picture_serial(&q) != qs && once(&q, &tag_a, 20, &j, &err) == 24 &&
              atomic_load(&calls) == b + 1,
          "hand over: a caller's reference left alone ends the results");
    tvmaf_picture_unref(&q);
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

    test_areas();
    test_hand_over();

    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
