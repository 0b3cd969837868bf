/*
 * The C tests' check: counts every check and each failure, printing the
 * failed condition with its place and a formatted detail; the test's main
 * reports the counts and exits non-zero when any failed.
 */
#ifndef TVMAF_TESTS_CHECK_H
#define TVMAF_TESTS_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#endif
