/*
 * libsvm regression models: text parser and prediction.
 *
 * The arithmetic follows libsvm 3.x (as built into libvmaf): the decision
 * value adds coef_i * K(x, sv_i) over the support vectors in file order, in
 * double, then subtracts rho. The RBF kernel walks both sparse vectors in
 * index order, adding the square of each difference (or of the value present
 * in only one vector) into one double, and returns exp(-gamma * sum); it does
 * not use the |x|^2 - 2 x.y + |y|^2 expansion, whose rounding differs.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/numeric.h"
#include "model/svm.h"

enum { SVM_C_SVC, SVM_NU_SVC, SVM_ONE_CLASS, SVM_EPSILON_SVR, SVM_NU_SVR };
enum { KERNEL_LINEAR, KERNEL_POLY, KERNEL_RBF, KERNEL_SIGMOID, KERNEL_PRECOMPUTED };

static const char *const svm_types[] = {
    "c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr", NULL,
};
static const char *const kernel_types[] = {
    "linear", "polynomial", "rbf", "sigmoid", "precomputed", NULL,
};

struct TvmafSvm {
    int svm_type, kernel_type;
    int degree;
    double gamma, coef0;
    int nr_class;
    int l;             /* support vectors */
    double rho;        /* a regression model has one */
    double *coef;      /* l coefficients */
    TvmafSvmNode *node; /* every support vector, each ended by index -1 */
    size_t *start;     /* l offsets into node */
};

/* Text cursor ------------------------------------------------------------- */

typedef struct Cursor {
    const char *p, *end;
} Cursor;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Next white-space separated token of the header; false at the end. */
static bool next_token(Cursor *c, const char **tok, size_t *len)
{
    while (c->p < c->end && is_space(*c->p)) c->p++;
    if (c->p == c->end) return false;
    *tok = c->p;
    while (c->p < c->end && !is_space(*c->p)) c->p++;
    *len = (size_t)(c->p - *tok);
    return true;
}

static bool token_is(const char *tok, size_t len, const char *word)
{
    return strlen(word) == len && !memcmp(tok, word, len);
}

static bool next_double(Cursor *c, double *v)
{
    const char *tok;
    size_t len;
    return next_token(c, &tok, &len) && tvmaf_parse_decimal(tok, len, v);
}

static bool next_int(Cursor *c, int *v)
{
    const char *tok;
    size_t len;
    return next_token(c, &tok, &len) && tvmaf_parse_int(tok, len, v);
}

/* Parser ------------------------------------------------------------------ */

#define FAIL(...) do { snprintf(msg, msg_len, __VA_ARGS__); goto fail; } while (0)

static int table_index(const char *const *table, const char *tok, size_t len)
{
    for (int i = 0; table[i]; i++)
        if (token_is(tok, len, table[i])) return i;
    return -1;
}

/* Reads one support vector line [s, e): coefficient(s), then index:value
 * pairs. Appends the nodes and a terminator to *node. */
static int parse_sv_line(TvmafSvm *m, int i, const char *s, const char *e,
                         TvmafSvmNode **node, size_t *n_node, size_t *cap,
                         char *msg, size_t msg_len)
{
    Cursor c = { s, e };
    const char *tok;
    size_t len;
    for (int k = 0; k < m->nr_class - 1; k++) {
        double coef;
        if (!next_token(&c, &tok, &len) || !tvmaf_parse_decimal(tok, len, &coef)) {
            snprintf(msg, msg_len, "support vector %d: no coefficient", i + 1);
            return -EINVAL;
        }
        if (k == 0) m->coef[i] = coef;
    }
    for (;;) {
        const bool last = !next_token(&c, &tok, &len);
        if (*n_node == *cap) {
            size_t ncap = *cap ? 2 * *cap : 1024;
            TvmafSvmNode *nn = realloc(*node, ncap * sizeof(*nn));
            if (!nn) return -ENOMEM;
            *node = nn;
            *cap = ncap;
        }
        if (last) {
            (*node)[(*n_node)++] = (TvmafSvmNode){ -1, 0.0 };
            return 0;
        }
        /* "index:value"; the value may also be the next token ("3: 0.5") */
        const char *colon = memchr(tok, ':', len);
        int index;
        double value;
        if (!colon || !tvmaf_parse_int(tok, (size_t)(colon - tok), &index) || index < 1) {
            snprintf(msg, msg_len, "support vector %d: bad element \"%.*s\" "
                     "(expected index:value, index >= 1)", i + 1, (int)(len < 40 ? len : 40), tok);
            return -EINVAL;
        }
        const char *v = colon + 1;
        size_t vlen = len - (size_t)(v - tok);
        if (!vlen && !next_token(&c, &v, &vlen)) vlen = 0;
        if (!vlen || !tvmaf_parse_decimal(v, vlen, &value)) {
            snprintf(msg, msg_len, "support vector %d: bad value of element %d", i + 1, index);
            return -EINVAL;
        }
        (*node)[(*n_node)++] = (TvmafSvmNode){ index, value };
    }
}

int tvmaf_svm_parse(TvmafSvm **out, const char *text, size_t len, char *msg, size_t msg_len)
{
    *out = NULL;
    TvmafSvm *m = calloc(1, sizeof(*m));
    if (!m) return -ENOMEM;
    m->svm_type = m->kernel_type = -1;
    bool have_gamma = false, have_rho = false, have_l = false, have_sv = false;
    bool have_degree = false, have_coef0 = false;
    Cursor c = { text, text + len };
    const char *tok;
    size_t tlen;
    int err = -EINVAL;

    /* header: keyword value(s) ... up to the "SV" keyword */
    while (next_token(&c, &tok, &tlen)) {
        if (token_is(tok, tlen, "SV")) { have_sv = true; break; }
        if (token_is(tok, tlen, "svm_type")) {
            if (!next_token(&c, &tok, &tlen) || (m->svm_type = table_index(svm_types, tok, tlen)) < 0)
                FAIL("unknown svm_type");
        } else if (token_is(tok, tlen, "kernel_type")) {
            if (!next_token(&c, &tok, &tlen) ||
                (m->kernel_type = table_index(kernel_types, tok, tlen)) < 0)
                FAIL("unknown kernel_type");
        } else if (token_is(tok, tlen, "degree")) {
            if (!next_int(&c, &m->degree)) FAIL("bad degree");
            have_degree = true;
        } else if (token_is(tok, tlen, "gamma")) {
            if (!next_double(&c, &m->gamma)) FAIL("bad gamma");
            have_gamma = true;
        } else if (token_is(tok, tlen, "coef0")) {
            if (!next_double(&c, &m->coef0)) FAIL("bad coef0");
            have_coef0 = true;
        } else if (token_is(tok, tlen, "nr_class")) {
            if (!next_int(&c, &m->nr_class) || m->nr_class != 2)
                FAIL("nr_class must be 2 for a regression model");
        } else if (token_is(tok, tlen, "total_sv")) {
            if (!next_int(&c, &m->l) || m->l < 0) FAIL("bad total_sv");
            have_l = true;
        } else if (token_is(tok, tlen, "rho") || token_is(tok, tlen, "probA") ||
                   token_is(tok, tlen, "probB")) {
            /* nr_class * (nr_class - 1) / 2 values: one for regression */
            const bool rho = tok[0] == 'r';
            if (!m->nr_class) FAIL("%.*s before nr_class", (int)tlen, tok);
            double v;
            if (!next_double(&c, &v)) FAIL("bad %s", rho ? "rho" : "probA/probB");
            if (rho) { m->rho = v; have_rho = true; }
        } else if (token_is(tok, tlen, "label") || token_is(tok, tlen, "nr_sv")) {
            /* nr_class integers, unused by regression */
            if (!m->nr_class) FAIL("%.*s before nr_class", (int)tlen, tok);
            for (int k = 0; k < m->nr_class; k++) {
                int v;
                if (!next_int(&c, &v)) FAIL("bad label/nr_sv");
            }
        } else {
            FAIL("unknown text \"%.*s\" in the header", (int)(tlen < 40 ? tlen : 40), tok);
        }
    }
    if (m->svm_type < 0) FAIL("no svm_type");
    if (m->svm_type != SVM_EPSILON_SVR && m->svm_type != SVM_NU_SVR)
        FAIL("svm_type %s is not a regression (epsilon_svr or nu_svr)", svm_types[m->svm_type]);
    if (m->kernel_type < 0) FAIL("no kernel_type");
    if (m->kernel_type == KERNEL_PRECOMPUTED) FAIL("kernel_type precomputed is not supported");
    if (!have_gamma && m->kernel_type != KERNEL_LINEAR) FAIL("no gamma");
    if (m->kernel_type == KERNEL_POLY && !have_degree) FAIL("no degree");
    if ((m->kernel_type == KERNEL_POLY || m->kernel_type == KERNEL_SIGMOID) && !have_coef0)
        FAIL("no coef0");
    if (!m->nr_class) FAIL("no nr_class");
    if (!have_l) FAIL("no total_sv");
    if (!have_rho) FAIL("no rho");
    if (!have_sv) FAIL("no SV section");

    /* the rest of the "SV" line, then one line per support vector */
    while (c.p < c.end && *c.p != '\n') {
        if (!is_space(*c.p)) FAIL("unexpected text after SV");
        c.p++;
    }
    if (c.p < c.end) c.p++;

    m->coef = malloc((m->l ? m->l : 1) * sizeof(*m->coef));
    m->start = malloc((m->l ? m->l : 1) * sizeof(*m->start));
    if (!m->coef || !m->start) { err = -ENOMEM; goto fail_msg; }
    size_t n_node = 0, cap = 0;
    for (int i = 0; i < m->l; i++) {
        if (c.p >= c.end) FAIL("%d support vectors announced, %d found", m->l, i);
        const char *eol = memchr(c.p, '\n', (size_t)(c.end - c.p));
        if (!eol) eol = c.end;
        m->start[i] = n_node;
        err = parse_sv_line(m, i, c.p, eol, &m->node, &n_node, &cap, msg, msg_len);
        if (err) goto fail_msg;
        c.p = eol < c.end ? eol + 1 : eol;
    }
    *out = m;
    return 0;

fail:
    err = -EINVAL;
fail_msg:
    if (err == -ENOMEM) snprintf(msg, msg_len, "out of memory");
    tvmaf_svm_destroy(m);
    return err;
}

void tvmaf_svm_destroy(TvmafSvm *m)
{
    if (!m) return;
    free(m->coef);
    free(m->node);
    free(m->start);
    free(m);
}

int tvmaf_svm_count(const TvmafSvm *m) { return m ? m->l : 0; }

/* Kernels ------------------------------------------------------------------ */

static double dot(const TvmafSvmNode *x, const TvmafSvmNode *y)
{
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            sum += x->value * y->value;
            x++;
            y++;
        } else if (x->index > y->index) {
            y++;
        } else {
            x++;
        }
    }
    return sum;
}

/* base^times by squaring, as libsvm computes it */
static double power_int(double base, int times)
{
    double sq = base, r = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1) r *= sq;
        sq = sq * sq;
    }
    return r;
}

/* Squared distance, the elements of each vector visited in index order;
 * an element present in one vector only adds its own square. */
static double squared_distance(const TvmafSvmNode *x, const TvmafSvmNode *y)
{
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            const double d = x->value - y->value;
            sum += d * d;
            x++;
            y++;
        } else if (x->index > y->index) {
            sum += y->value * y->value;
            y++;
        } else {
            sum += x->value * x->value;
            x++;
        }
    }
    for (; x->index != -1; x++) sum += x->value * x->value;
    for (; y->index != -1; y++) sum += y->value * y->value;
    return sum;
}

static double kernel(const TvmafSvm *m, const TvmafSvmNode *x, const TvmafSvmNode *sv)
{
    switch (m->kernel_type) {
    case KERNEL_LINEAR: return dot(x, sv);
    case KERNEL_POLY: return power_int(m->gamma * dot(x, sv) + m->coef0, m->degree);
    case KERNEL_RBF: return exp(-m->gamma * squared_distance(x, sv));
    case KERNEL_SIGMOID: return tanh(m->gamma * dot(x, sv) + m->coef0);
    default: return 0;
    }
}

double tvmaf_svm_predict(const TvmafSvm *m, const TvmafSvmNode *x)
{
    double sum = 0;
    for (int i = 0; i < m->l; i++)
        sum += m->coef[i] * kernel(m, x, m->node + m->start[i]);
    sum -= m->rho;
    return sum;
}
