/*
 * PCHIP and the Bjøntegaard deltas (src/output/bdrate.c): exact on straight
 * lines, through every point, monotone where the data are, the integral
 * equal to a fine quadrature of the interpolant, BD-rate +100 % for a
 * ladder at twice the bitrate, 0 for a ladder against itself, and the
 * refusals (fewer than 4 points, a repeated quality, no shared range, a rate
 * that is not positive). scipy's PchipInterpolator is the independent check
 * (tests/report_bdrate_test.py).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "output/bdrate.h"

static int close_to(double a, double b, double tol)
{
    return fabs(a - b) <= tol * (1.0 + fabs(b));
}

int main(void)
{
    /* a straight line is its own interpolant */
    const double lx[] = { 0, 1, 2.5, 4, 7 };
    double ly[5], ld[5];
    for (int i = 0; i < 5; i++) ly[i] = 2 * lx[i] + 1;
    tvmaf_pchip_slopes(lx, ly, 5, ld);
    for (int i = 0; i < 5; i++) CHECK(close_to(ld[i], 2.0, 1e-14), "slope %d: %g", i, ld[i]);
    for (double t = 0; t <= 7; t += 0.37)
        CHECK(close_to(tvmaf_pchip_eval(lx, ly, ld, 5, t), 2 * t + 1, 1e-13), "line at %g", t);
    CHECK(close_to(tvmaf_pchip_integral(lx, ly, ld, 5, 0.5, 6.2), (6.2 * 6.2 + 6.2) -
                   (0.25 + 0.5), 1e-13), "line's integral");

    /* monotone data: through every point, monotone between, the integral
     * equal to a midpoint quadrature */
    const double x[] = { 60, 71.5, 80, 86, 91, 94.5, 97 };
    const double y[] = { 5.1, 5.4, 5.62, 5.9, 6.2, 6.55, 6.9 };
    double d[7];
    tvmaf_pchip_slopes(x, y, 7, d);
    for (int i = 0; i < 7; i++)
        CHECK(close_to(tvmaf_pchip_eval(x, y, d, 7, x[i]), y[i], 1e-14), "point %d", i);
    double prev = -INFINITY, sum = 0;
    const unsigned steps = 200000;
    for (unsigned s = 0; s <= steps; s++) {
        const double t = 60 + (97 - 60) * s / steps;
        const double v = tvmaf_pchip_eval(x, y, d, 7, t);
        CHECK(v >= prev - 1e-12, "not monotone at %g", t);
        prev = v;
        if (s < steps)
            sum += tvmaf_pchip_eval(x, y, d, 7, 60 + (97 - 60) * (s + 0.5) / steps) *
                   (97 - 60) / steps;
    }
    CHECK(close_to(tvmaf_pchip_integral(x, y, d, 7, 60, 97), sum, 1e-9), "integral %.12g vs %.12g",
          tvmaf_pchip_integral(x, y, d, 7, 60, 97), sum);
    /* a local extremum gets a zero slope */
    const double ex[] = { 0, 1, 2, 3 }, ey[] = { 0, 1, 0.5, 2 };
    double ed[4];
    tvmaf_pchip_slopes(ex, ey, 4, ed);
    CHECK(ed[1] == 0.0 && ed[2] == 0.0, "extrema slopes %g %g", ed[1], ed[2]);

    /* BD-rate */
    const double ra[] = { 1e6, 2e6, 4e6, 8e6 }, qa[] = { 70, 80, 88, 93 };
    double rt[4];
    for (int i = 0; i < 4; i++) rt[i] = 2 * ra[i];
    TvmafBdResult r;
    char msg[256];
    CHECK(!tvmaf_bd_compute(ra, qa, 4, rt, qa, 4, &r, msg, sizeof(msg)), "%s", msg);
    CHECK(close_to(r.rate_pct, 100.0, 1e-12), "twice the rate: %.17g %%", r.rate_pct);
    CHECK(close_to(r.q_lo, 70, 0) && close_to(r.q_hi, 93, 0), "range %g..%g", r.q_lo, r.q_hi);
    CHECK(!tvmaf_bd_compute(ra, qa, 4, ra, qa, 4, &r, msg, sizeof(msg)), "%s", msg);
    CHECK(fabs(r.rate_pct) < 1e-12 && fabs(r.quality) < 1e-12, "itself: %g %g", r.rate_pct,
          r.quality);
    /* unsorted input gives the same */
    const double rs[] = { 4e6, 1e6, 8e6, 2e6 }, qs[] = { 88, 70, 93, 80 };
    TvmafBdResult r2;
    CHECK(!tvmaf_bd_compute(ra, qa, 4, rt, qa, 4, &r, msg, sizeof(msg)) &&
          !tvmaf_bd_compute(rs, qs, 4, rt, qa, 4, &r2, msg, sizeof(msg)) &&
          r.rate_pct == r2.rate_pct && r.quality == r2.quality, "order matters");

    /* refusals */
    CHECK(tvmaf_bd_compute(ra, qa, 3, rt, qa, 4, &r, msg, sizeof(msg)) && *msg,
          "3 points accepted");
    const double qd[] = { 70, 80, 80, 93 };
    CHECK(tvmaf_bd_compute(ra, qa, 4, ra, qd, 4, &r, msg, sizeof(msg)), "repeated quality");
    const double qh[] = { 94, 95, 96, 97 };
    CHECK(tvmaf_bd_compute(ra, qa, 4, ra, qh, 4, &r, msg, sizeof(msg)), "no shared range");
    const double rn[] = { 1e6, -2e6, 4e6, 8e6 };
    CHECK(tvmaf_bd_compute(ra, qa, 4, rn, qa, 4, &r, msg, sizeof(msg)), "negative rate");

    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
