/*
 * Prefetching the picture rows a sliding-window row kernel reads next.
 *
 * A vertical pass over a picture reads a window of rows per output row and
 * moves it down by one or two rows a call. The picture was written by a
 * reader thread on another core, so the rows a call adds come from that
 * core's cache, the shared L3 or memory, and the hardware prefetcher, which
 * follows a few sequential streams, does not fetch them ahead across the
 * window's several rows: the loads that first touch them stalled (adm's
 * scale-0 vertical pass spent about half its time on them on Zen 4).
 *
 * tvmaf_prefetch_next_rows asks for the bytes at `off` of the `n` rows that
 * follow `last` (the window's last row) at `stride` bytes apart: the rows the
 * next call adds. A kernel calls it once per step with its step's byte
 * offset, so the next call's lines arrive while this call computes. A hint
 * only: it changes no value, and an address outside the picture (a mirrored
 * window near the bottom, where `stride` is not the picture's) is never
 * dereferenced; the address is formed as an integer for that reason.
 */
#ifndef TVMAF_FEATURE_COMMON_PREFETCH_H
#define TVMAF_FEATURE_COMMON_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void
tvmaf_prefetch_next_rows(const void *last, ptrdiff_t stride, unsigned n, size_t off)
{
    uintptr_t a = (uintptr_t)last + off;
    for (unsigned k = 0; k < n; k++) {
        a += (uintptr_t)stride;
        __builtin_prefetch((const void *)a, 0, 3);
    }
}

/* The stride of a window from its last two rows' addresses (a mirrored
 * window may give any value; see above). */
static inline ptrdiff_t tvmaf_row_step(const void *before_last, const void *last)
{
    return (ptrdiff_t)((uintptr_t)last - (uintptr_t)before_last);
}

#endif /* TVMAF_FEATURE_COMMON_PREFETCH_H */
