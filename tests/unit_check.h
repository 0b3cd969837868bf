/*
 * The checks of the small C unit tests: each prints "ok" or "FAIL" and its
 * name, and the test ends with "N passed, N failed" (exit 1 on a failure).
 */
#ifndef TVMAF_TESTS_UNIT_CHECK_H
#define TVMAF_TESTS_UNIT_CHECK_H

#include <stdio.h>

static unsigned n_pass, n_fail;

static inline void check(int ok, const char *what)
{
    if (ok) {
        n_pass++;
        printf("ok    %s\n", what);
    } else {
        n_fail++;
        printf("FAIL  %s\n", what);
    }
}

/* The same, with what went wrong after the name on a failure. */
static inline void check_detail(int ok, const char *what, const char *detail)
{
    if (ok) {
        n_pass++;
        printf("ok    %s\n", what);
    } else {
        n_fail++;
        printf("FAIL  %s: %s\n", what, detail);
    }
    fflush(stdout);
}

#endif
