/*
 * The page-locked picture allocator of contexts open at the same time (a
 * batch over --gpus with --pinned-pictures): each context installs its
 * device's allocator and uninstalls it when it closes; new pictures come from
 * the most recently installed allocator still installed by an open context,
 * and closing one context never takes the allocator from another that is
 * still open. Two counting stand-in allocators play the devices.
 *
 * usage: test_picture_allocator
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
#include "core/picture_pool.h"
#include "unit_check.h"

static unsigned live[2]; /* blocks of each stand-in allocator not yet freed */

static void *block(unsigned which, size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, size)) return NULL;
    memset(p, 0, size);
    live[which]++;
    return p;
}

static void *alloc_a(void *opaque, size_t size) { (void)opaque; return block(0, size); }
static void free_a(void *opaque, void *p) { (void)opaque; live[0]--; free(p); }
static void *alloc_b(void *opaque, size_t size) { (void)opaque; return block(1, size); }
static void free_b(void *opaque, void *p) { (void)opaque; live[1]--; free(p); }

static const TvmafHostAllocator dev_a = { alloc_a, free_a, NULL };
static const TvmafHostAllocator dev_b = { alloc_b, free_b, NULL };

/* Which allocator a new picture comes from: 'a', 'b' or 'd' (the default). */
static char source(void)
{
    TvmafPicture p;
    if (tvmaf_picture_alloc(&p, TVMAF_PIX_FMT_YUV420P, 8, 64 + n_pass, 32)) return '?';
    const char c = tvmaf_picture_is_pinned(&p, &dev_a) ? 'a'
                 : tvmaf_picture_is_pinned(&p, &dev_b) ? 'b' : 'd';
    tvmaf_picture_unref(&p);
    return c;
}

int main(void)
{
    check(source() == 'd', "no context: the default allocator");
    tvmaf_picture_allocator_install(&dev_a);           /* context 1 on device a */
    check(source() == 'a', "one context: its device's allocator");
    tvmaf_picture_allocator_install(&dev_b);           /* context 2 on device b */
    check(source() == 'b', "a second device: the latest context's allocator");
    tvmaf_picture_allocator_install(&dev_a);           /* context 3 on device a */
    TvmafPicture held;
    check(!tvmaf_picture_alloc(&held, TVMAF_PIX_FMT_YUV420P, 8, 96, 48) &&
          tvmaf_picture_is_pinned(&held, &dev_a), "a picture held across the closes");
    tvmaf_picture_allocator_uninstall(&dev_b);         /* context 2 closes */
    check(source() == 'a', "device b's context closed: device a's allocator");
    tvmaf_picture_allocator_uninstall(&dev_a);         /* context 1 closes */
    check(source() == 'a', "context 3 still open on device a: its allocator stays");
    check(live[1] == 0, "device b's cached buffers were freed when its last context closed");
    tvmaf_picture_allocator_uninstall(&dev_a);         /* context 3 closes */
    check(source() == 'd', "every context closed: the default allocator");
    check(live[0] == 1, "device a's cached buffers freed, the held picture kept");
    tvmaf_picture_unref(&held);
    check(live[0] == 0, "the held picture returns its buffer to its allocator");
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
