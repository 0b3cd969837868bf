/*
 * How every writer prints a score: libvmaf's "%.6f", or "%.16f" where the
 * value has more than six leading zeros after the point; precision N > 0
 * prints "%.Ng" (17: the exact double). One definition, so the report's
 * numbers are the JSON's characters.
 */
#ifndef TVMAF_OUTPUT_NUMBER_H
#define TVMAF_OUTPUT_NUMBER_H

#include <math.h>
#include <stdio.h>

/* Zeros after the decimal point before the first non-zero digit, counted the
 * way libvmaf counts them (repeated multiplication by ten of the fraction). */
static inline int tvmaf_leading_zeros(double x)
{
    x = fabs(x);
    if (!isfinite(x)) return 0;
    double frac = x - trunc(x);
    int n = 0;
    while (frac < 1.0 && frac != 0) {
        frac *= 10;
        n++;
    }
    return n;
}

static inline void tvmaf_put_num(FILE *f, double v, int precision)
{
    if (precision > 0)
        fprintf(f, "%.*g", precision, v);
    else
        fprintf(f, tvmaf_leading_zeros(v) <= 6 ? "%.6f" : "%.16f", v);
}

#endif
