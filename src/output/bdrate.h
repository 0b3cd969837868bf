/*
 * Bjøntegaard deltas between two rate-quality curves, by monotone piecewise
 * cubic Hermite interpolation (PCHIP: Fritsch and Carlson's slopes, with the
 * end-point rule of scipy.interpolate.PchipInterpolator).
 *
 * BD-rate: log10(rate) as a PCHIP function of quality for each curve, both
 * integrated over the quality range the two curves share, averaged over it;
 * the difference of the averages d (test less anchor) gives the percent
 * (10^d - 1) * 100: the test's bitrate change at equal quality.
 * BD-quality (BD-VMAF): quality as a PCHIP function of log10(rate) over the
 * shared log-rate range, the difference of the averages (test less anchor).
 */
#ifndef TVMAF_OUTPUT_BDRATE_H
#define TVMAF_OUTPUT_BDRATE_H

#include <stddef.h>

/* The fewest points a curve needs (the usual rule for BD-rate). */
#define TVMAF_BD_MIN_POINTS 4

/* Slopes d[0..n-1] of the PCHIP interpolant through (x[i], y[i]), x strictly
 * increasing, n >= 2. */
void tvmaf_pchip_slopes(const double *x, const double *y, unsigned n, double *d);

/* The PCHIP interpolant (slopes d) at t (x[0] <= t <= x[n-1]). */
double tvmaf_pchip_eval(const double *x, const double *y, const double *d, unsigned n,
                        double t);

/* Its integral over [a, b] (x[0] <= a <= b <= x[n-1]). */
double tvmaf_pchip_integral(const double *x, const double *y, const double *d, unsigned n,
                            double a, double b);

typedef struct TvmafBdResult {
    double rate_pct;        /* BD-rate, percent */
    double quality;         /* BD-quality, in the quality's units */
    double q_lo, q_hi;      /* the shared quality range */
    double lr_lo, lr_hi;    /* the shared log10(rate) range */
} TvmafBdResult;

/*
 * BD-rate and BD-quality of the test curve (rate_t, q_t; n_t points) against
 * the anchor (rate_a, q_a; n_a points); rates in any unit, both the same, > 0.
 * Points need not be sorted. Returns 0, or -1 with a sentence in msg: fewer
 * than TVMAF_BD_MIN_POINTS points, a rate that is not positive and finite, two
 * points of one curve with one quality (or one rate), or no shared range.
 */
int tvmaf_bd_compute(const double *rate_a, const double *q_a, unsigned n_a,
                     const double *rate_t, const double *q_t, unsigned n_t,
                     TvmafBdResult *res, char *msg, size_t msg_len);

#endif
