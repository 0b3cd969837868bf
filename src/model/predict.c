/*
 * The prediction arithmetic of libvmaf, step for step in double:
 *   1. each feature: slope * value + intercept (linear_rescale);
 *   2. the SVM decision value of the normalised vector (indices 1..n);
 *   3. denormalise: (prediction - intercept) / slope;
 *   4. score transform, when enabled: polynomial p0 + p1*y + p2*y*y (each
 *      term added to 0. in that order, only where given), then the
 *      piecewise-linear knots, then out_lte_in / out_gte_in against the
 *      untransformed value;
 *   5. clip to score_clip.
 * Every expression is written in the reference's order of operations, since
 * reassociating any of them changes low bits of the score.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static int normalize(const TvmafSvr *m, double slope, double intercept, double *v)
{
    switch (m->norm_type) {
    case TVMAF_NORM_NONE: return 0;
    case TVMAF_NORM_LINEAR_RESCALE: *v = slope * (*v) + intercept; return 0;
    default: return -EINVAL;
    }
}

static int denormalize_feature(const TvmafSvr *m, double slope, double intercept, double *v)
{
    switch (m->norm_type) {
    case TVMAF_NORM_NONE: return 0;
    case TVMAF_NORM_LINEAR_RESCALE: *v = (*v - intercept) / slope; return 0;
    default: return -EINVAL;
    }
}

/* The line through two knots; where they share an x or a y only the same
 * point is accepted (identity). Returns nonzero for knots out of order. */
static int line_through(double x1, double y1, double x2, double y2, double *alpha, double *beta)
{
    if (!(x1 <= x2 && y1 <= y2)) return -EINVAL;
    if (x2 - x1 == 0 || y2 - y1 == 0) {
        if (!(x1 == x2 && y1 == y2)) return -EINVAL;
        *alpha = 1.0;
        *beta = 0.0;
    } else if (x1 == 0) {
        *beta = y1;
        *alpha = (y2 - *beta) / x2;
    } else {
        *alpha = (y2 - y1) / (x2 - x1);
        *beta = y1 - (x1 * (*alpha));
    }
    return 0;
}

/*
 * Piecewise-linear mapping over the knots, extended beyond both ends by the
 * first and last segments. Mirrors the reference's loop exactly, including
 * what it leaves in *y when a later segment is out of order (it stops there)
 * and the segment parameters it keeps when line_through() refuses a pair.
 */
static void knots_map(const TvmafSvr *m, double x, double *y)
{
    const unsigned n = m->transform.n_knots;
    const double *kx = m->transform.knot_x, *ky = m->transform.knot_y;
    double slope = 0.0, offset = 0.0;
    if (n <= 1) return;
    const unsigned n_seg = n - 1;
    *y = 0.0;
    for (unsigned i = 0; i < n_seg; i++) {
        if (!(kx[i] < kx[i + 1] && ky[i] <= ky[i + 1])) return;
        const bool inside = kx[i] <= x && x <= kx[i + 1];
        if (ky[i] == ky[i + 1]) {
            if (inside) *y = ky[i];
            if (i == 0 && x < kx[i]) *y = ky[i];
            if (i == n_seg - 1 && x > kx[i + 1]) *y = ky[i];
        } else {
            (void)line_through(kx[i], ky[i], kx[i + 1], ky[i + 1], &slope, &offset);
            if (inside) *y = slope * x + offset;
            if (i == 0 && x < kx[i]) *y = slope * x + offset;
            if (i == n_seg - 1 && x > kx[i + 1]) *y = slope * x + offset;
        }
    }
}

static void transform(const TvmafSvr *m, double *y_in, unsigned flags)
{
    if (!m->transform.enabled || (flags & TVMAF_PREDICT_NO_TRANSFORM)) return;
    double y = *y_in, out;
    if (m->transform.p0_on || m->transform.p1_on || m->transform.p2_on) {
        out = 0.;
        if (m->transform.p0_on) out += m->transform.p0;
        if (m->transform.p1_on) out += m->transform.p1 * y;
        if (m->transform.p2_on) out += m->transform.p2 * y * y;
    } else {
        out = y;
    }
    y = out;
    if (m->transform.knots_on) knots_map(m, y, &out);
    else out = y;
    if (m->transform.out_lte_in) out = (out > *y_in) ? *y_in : out;
    if (m->transform.out_gte_in) out = (out < *y_in) ? *y_in : out;
    *y_in = out;
}

static void clip(const TvmafSvr *m, double *v, unsigned flags)
{
    if (!m->clip.enabled || (flags & TVMAF_PREDICT_NO_CLIP)) return;
    *v = (*v < m->clip.min) ? m->clip.min : *v;
    *v = (*v > m->clip.max) ? m->clip.max : *v;
}

/*
 * Chroma-from-luma correction of models with chroma_correction_parameter:
 * where the (denormalised) speed_chroma feature is exactly 0, it is replaced
 * by c - c * adm3 (both found by substring of the feature names), normalised
 * again. A name matching twice, or a missing guide, is an error.
 */
static int chroma_from_luma(const TvmafSvr *m, TvmafSvmNode *node, char *msg, size_t msg_len)
{
    const double c = m->chroma_from_luma.parameter;
    double guiding = 0.0;
    bool have_guiding = false, have_guided = false;
    unsigned guided = 0;
    for (unsigned i = 0; i < m->n_features; i++) {
        const TvmafModelFeature *f = &m->feature[i];
        if (strstr(f->name, "adm3")) {
            if (have_guiding) {
                snprintf(msg, msg_len, "chroma correction: \"adm3\" matches more than one feature");
                return -EINVAL;
            }
            guiding = node[i].value;
            have_guiding = true;
            if (denormalize_feature(m, f->slope, f->intercept, &guiding)) return -EINVAL;
        }
        if (strstr(f->name, "speed_chroma")) {
            if (have_guided) {
                snprintf(msg, msg_len, "chroma correction: \"speed_chroma\" matches more than "
                         "one feature");
                return -EINVAL;
            }
            double v = node[i].value;
            have_guided = true;
            if (denormalize_feature(m, f->slope, f->intercept, &v)) return -EINVAL;
            if (v != 0.0) return 0; /* nothing to correct */
            guided = i;
        }
    }
    if (!have_guiding || !have_guided) {
        snprintf(msg, msg_len, "chroma correction needs an adm3 and a speed_chroma feature");
        return -EINVAL;
    }
    double corrected = (-c * guiding) + c;
    if (normalize(m, m->feature[guided].slope, m->feature[guided].intercept, &corrected))
        return -EINVAL;
    node[guided].value = corrected;
    return 0;
}

int tvmaf_svr_predict(const TvmafSvr *m, const double *feature, unsigned flags,
                      double *score, char *msg, size_t msg_len)
{
    TvmafSvmNode stack[TVMAF_MODEL_MAX_FEATURES + 1];
    TvmafSvmNode *node = stack;
    int err = 0;
    if (m->norm_type != TVMAF_NORM_NONE && m->norm_type != TVMAF_NORM_LINEAR_RESCALE) {
        snprintf(msg, msg_len, "model \"%s\": unknown norm_type", m->name);
        return -EINVAL;
    }
    if (m->n_features > TVMAF_MODEL_MAX_FEATURES) return -EINVAL;
    for (unsigned i = 0; i < m->n_features; i++) {
        double v = feature[i];
        normalize(m, m->feature[i].slope, m->feature[i].intercept, &v);
        node[i].index = (int)i + 1;
        node[i].value = v;
    }
    if (m->chroma_from_luma.enabled) {
        if (m->chroma_from_luma.parameter == 0.0) {
            snprintf(msg, msg_len, "model \"%s\": chroma_correction_parameter is 0", m->name);
            return -EINVAL;
        }
        char inner[256] = "";
        err = chroma_from_luma(m, node, inner, sizeof(inner));
        if (err) {
            snprintf(msg, msg_len, "model \"%s\": %s", m->name, inner);
            return err;
        }
    }
    node[m->n_features].index = -1;
    node[m->n_features].value = 0.0;

    double p = tvmaf_svm_predict(m->svm, node);
    if (m->norm_type == TVMAF_NORM_LINEAR_RESCALE) p = (p - m->intercept) / m->slope;
    transform(m, &p, flags);
    clip(m, &p, flags);
    *score = p;
    return 0;
}

void tvmaf_svr_finish(const TvmafSvr *m, double *score, unsigned flags)
{
    transform(m, score, flags);
    clip(m, score, flags);
}

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x > y ? 1 : x < y ? -1 : 0;
}

/* Linear interpolation between the order statistics around perc percent. */
static double percentile(const double *sorted, unsigned n, double perc)
{
    const double p = perc * (n - 1) / 100.;
    const int lo = (int)floor(p);
    const int hi = (int)ceil(p);
    return lo == hi ? sorted[lo] : sorted[lo] * (hi - p) + sorted[hi] * (p - lo);
}

void tvmaf_bootstrap_stats(const TvmafSvr *first, double *raw, unsigned n,
                           TvmafBootstrapScore *out)
{
    double sum = 0.;
    for (unsigned i = 0; i < n; i++) sum += raw[i];
    const double mean = sum / n;
    out->bagging = mean;

    /* the spread is scaled by the transform's local slope around the mean */
    const double delta = 0.01;
    double plus = mean + delta, minus = mean - delta;

    double ssd = 0.;
    for (unsigned i = 0; i < n; i++) ssd += pow(raw[i] - mean, 2);
    out->stddev = sqrt(ssd / n);

    qsort(raw, n, sizeof(*raw), ascending);
    out->ci_p95_lo = percentile(raw, n, 2.5);
    out->ci_p95_hi = percentile(raw, n, 97.5);

    transform(first, &out->bagging, 0);
    clip(first, &out->bagging, 0);
    transform(first, &out->ci_p95_lo, 0);
    clip(first, &out->ci_p95_lo, 0);
    transform(first, &out->ci_p95_hi, 0);
    clip(first, &out->ci_p95_hi, 0);
    transform(first, &plus, 0);
    clip(first, &plus, 0);
    transform(first, &minus, 0);
    clip(first, &minus, 0);

    const double slope = (plus - minus) / (2.0 * delta);
    out->stddev *= slope;
}
