/* PCHIP interpolation and the Bjøntegaard deltas (bdrate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/bdrate.h"

static int sgn(double v)
{
    return (v > 0) - (v < 0);
}

/* The slope at an end of the curve: a three-point estimate from the two
 * intervals next to it, set to zero where its sign is not the first
 * interval's, limited to three times the first secant where the secants
 * change sign. h0, m0: the end interval's width and secant; h1, m1: the
 * next one's. */
static double end_slope(double h0, double h1, double m0, double m1)
{
    const double d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if (sgn(d) != sgn(m0)) return 0.0;
    if (sgn(m0) != sgn(m1) && fabs(d) > 3.0 * fabs(m0)) return 3.0 * m0;
    return d;
}

void tvmaf_pchip_slopes(const double *x, const double *y, unsigned n, double *d)
{
    if (n < 2) {
        if (n) d[0] = 0.0;
        return;
    }
    if (n == 2) {
        d[0] = d[1] = (y[1] - y[0]) / (x[1] - x[0]);
        return;
    }
    /* interior points: zero at a local extremum or a flat neighbour, else the
     * weighted harmonic mean of the secants on either side */
    for (unsigned k = 1; k + 1 < n; k++) {
        const double hl = x[k] - x[k - 1], hr = x[k + 1] - x[k];
        const double ml = (y[k] - y[k - 1]) / hl, mr = (y[k + 1] - y[k]) / hr;
        if (ml == 0.0 || mr == 0.0 || sgn(ml) != sgn(mr)) {
            d[k] = 0.0;
            continue;
        }
        const double wl = 2.0 * hr + hl, wr = hr + 2.0 * hl;
        d[k] = (wl + wr) / (wl / ml + wr / mr);
    }
    const double h0 = x[1] - x[0], h1 = x[2] - x[1];
    d[0] = end_slope(h0, h1, (y[1] - y[0]) / h0, (y[2] - y[1]) / h1);
    const double he = x[n - 1] - x[n - 2], hf = x[n - 2] - x[n - 3];
    d[n - 1] = end_slope(he, hf, (y[n - 1] - y[n - 2]) / he, (y[n - 2] - y[n - 3]) / hf);
}

/* The interval [x[k], x[k+1]] that holds t. */
static unsigned interval_of(const double *x, unsigned n, double t)
{
    unsigned lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        if (t < x[mid]) hi = mid; else lo = mid;
    }
    return lo;
}

double tvmaf_pchip_eval(const double *x, const double *y, const double *d, unsigned n,
                        double t)
{
    if (n == 1) return y[0];
    const unsigned k = interval_of(x, n, t);
    const double h = x[k + 1] - x[k], s = (t - x[k]) / h;
    const double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * y[k] + (s3 - 2 * s2 + s) * h * d[k] +
           (-2 * s3 + 3 * s2) * y[k + 1] + (s3 - s2) * h * d[k + 1];
}

/* The integral of interval k's cubic from x[k] to x[k] + s * h. */
static double piece_integral(const double *x, const double *y, const double *d, unsigned k,
                             double s)
{
    const double h = x[k + 1] - x[k];
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s;
    const double a00 = s4 / 2 - s3 + s, a10 = s4 / 4 - 2 * s3 / 3 + s2 / 2;
    const double a01 = -s4 / 2 + s3, a11 = s4 / 4 - s3 / 3;
    return h * (a00 * y[k] + a10 * h * d[k] + a01 * y[k + 1] + a11 * h * d[k + 1]);
}

double tvmaf_pchip_integral(const double *x, const double *y, const double *d, unsigned n,
                            double a, double b)
{
    if (n < 2 || b <= a) return 0.0;
    const unsigned ka = interval_of(x, n, a), kb = interval_of(x, n, b);
    const double sa = (a - x[ka]) / (x[ka + 1] - x[ka]), sb = (b - x[kb]) / (x[kb + 1] - x[kb]);
    if (ka == kb) return piece_integral(x, y, d, ka, sb) - piece_integral(x, y, d, ka, sa);
    double sum = piece_integral(x, y, d, ka, 1.0) - piece_integral(x, y, d, ka, sa);
    for (unsigned k = ka + 1; k < kb; k++) sum += piece_integral(x, y, d, k, 1.0);
    return sum + piece_integral(x, y, d, kb, sb);
}

typedef struct Pt {
    double x, y;
} Pt;

static int pt_cmp(const void *a, const void *b)
{
    const Pt *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* A curve's points sorted by x into xs/ys; -1 when two share an x. */
static int sorted_curve(const double *x, const double *y, unsigned n, double *xs, double *ys)
{
    Pt *p = malloc(sizeof(*p) * n);
    if (!p) return -1;
    for (unsigned i = 0; i < n; i++) p[i] = (Pt){ x[i], y[i] };
    qsort(p, n, sizeof(*p), pt_cmp);
    int bad = 0;
    for (unsigned i = 0; i < n; i++) {
        xs[i] = p[i].x;
        ys[i] = p[i].y;
        if (i && xs[i] == xs[i - 1]) bad = 1;
    }
    free(p);
    return bad ? -1 : 0;
}

/* The average over the shared x range of the PCHIP through each curve; -1
 * with why in msg. `what`: the x quantity's name for messages. */
static int average_gap(const double *xa, const double *ya, unsigned na, const double *xt,
                       const double *yt, unsigned nt, const char *what, double *gap,
                       double *lo, double *hi, char *msg, size_t msg_len)
{
    double *buf = malloc(sizeof(double) * 3 * (na + nt));
    if (!buf) {
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    double *sxa = buf, *sya = sxa + na, *da = sya + na;
    double *sxt = da + na, *syt = sxt + nt, *dt = syt + nt;
    int rc = -1;
    if (sorted_curve(xa, ya, na, sxa, sya) || sorted_curve(xt, yt, nt, sxt, syt)) {
        snprintf(msg, msg_len, "two points of one curve have the same %s: the curve is not a "
                 "function of it", what);
        goto end;
    }
    *lo = fmax(sxa[0], sxt[0]);
    *hi = fmin(sxa[na - 1], sxt[nt - 1]);
    if (!(*hi > *lo)) {
        snprintf(msg, msg_len, "the curves share no %s range (anchor %g..%g, test %g..%g)", what,
                 sxa[0], sxa[na - 1], sxt[0], sxt[nt - 1]);
        goto end;
    }
    tvmaf_pchip_slopes(sxa, sya, na, da);
    tvmaf_pchip_slopes(sxt, syt, nt, dt);
    const double ia = tvmaf_pchip_integral(sxa, sya, da, na, *lo, *hi);
    const double it = tvmaf_pchip_integral(sxt, syt, dt, nt, *lo, *hi);
    *gap = (it - ia) / (*hi - *lo);
    rc = 0;
end:
    free(buf);
    return rc;
}

int tvmaf_bd_compute(const double *rate_a, const double *q_a, unsigned n_a,
                     const double *rate_t, const double *q_t, unsigned n_t,
                     TvmafBdResult *res, char *msg, size_t msg_len)
{
    if (msg && msg_len) msg[0] = '\0';
    char scratch[256];
    if (!msg || !msg_len) msg = scratch, msg_len = sizeof(scratch);
    if (n_a < TVMAF_BD_MIN_POINTS || n_t < TVMAF_BD_MIN_POINTS) {
        snprintf(msg, msg_len, "BD-rate needs at least %d points on each curve (anchor %u, "
                 "test %u)", TVMAF_BD_MIN_POINTS, n_a, n_t);
        return -1;
    }
    double *la = malloc(sizeof(double) * (n_a + n_t));
    if (!la) {
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    double *lt = la + n_a;
    int rc = -1;
    for (unsigned i = 0; i < n_a + n_t; i++) {
        const double r = i < n_a ? rate_a[i] : rate_t[i - n_a];
        const double q = i < n_a ? q_a[i] : q_t[i - n_a];
        if (!(r > 0) || !isfinite(r) || !isfinite(q)) {
            snprintf(msg, msg_len, "a point of the %s curve has rate %g and quality %g: rates "
                     "must be positive, both finite", i < n_a ? "anchor" : "test", r, q);
            goto end;
        }
        la[i] = log10(r);
    }
    memset(res, 0, sizeof(*res));
    double gap;
    if (average_gap(q_a, la, n_a, q_t, lt, n_t, "quality", &gap, &res->q_lo, &res->q_hi, msg,
                    msg_len))
        goto end;
    res->rate_pct = (pow(10.0, gap) - 1.0) * 100.0;
    if (average_gap(la, q_a, n_a, lt, q_t, n_t, "rate", &res->quality, &res->lr_lo,
                    &res->lr_hi, msg, msg_len))
        goto end;
    rc = 0;
end:
    free(la);
    return rc;
}
