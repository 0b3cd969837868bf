/*
 * The report: one self-contained HTML page (or the plots alone as one SVG
 * image) comparing encodes, each a distorted input scored against its
 * reference: the pooled table sorted by score, the rate-quality curve of
 * each ladder (encoded inputs with a bitrate) and its BD-rate, each key's
 * per-frame curves overlaid (one colour per encode), the lowest frames of
 * each encode with their pictures, and the settings that ran. No script, no
 * external resource: it opens offline and prints.
 *
 * Every score is printed as the JSON output printed it (the characters kept
 * by report_json.c, or tvmaf_put_num() at the caller's precision for
 * tvmaf_write_report), in an element whose data-enc / data-key / data-pool /
 * data-frame attributes let a reader (or a test) match it against the JSON.
 *
 * Axes are honest: ticks at round numbers (1, 2 or 5 times a power of ten),
 * a model's score on 0-100 (wider only where a value lies outside), a
 * feature on the rounded range of its values. Models and the features asked
 * for come first; the features a model reads are folded under them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/number.h"
#include "output/report_doc.h"
#include "tvmaf/tvmaf.h"

/* Panel geometry (SVG user units). */
#define PANEL_W 960
#define PANEL_H 240
#define PLOT_L 80
#define PLOT_R 20
#define PLOT_T 46
#define PLOT_B 40
#define RQ_H 420

/* Curves of more frames than this are drawn from DECIMATE_BUCKETS buckets,
 * each bucket's lowest and highest value kept, in frame order. */
#define DECIMATE_ABOVE 2000
#define DECIMATE_BUCKETS 1000
/* Per-frame tables: at most this many values per encode (every key, else
 * the models' keys alone, else none). */
#define FRAME_CELLS_MAX 40000

static const char *const palette[] = {
    "#1f5fbf", "#d9480f", "#2b8a3e", "#ae3ec9", "#0c8599",
    "#a17a00", "#e64980", "#495057", "#5c940d", "#f08c00",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))
static const char *const dashes[] = { "", "6 3", "2 3", "8 3 2 3" };

static const char *colour(unsigned i)
{
    return palette[i % N_PALETTE];
}

static const char *dash(unsigned i)
{
    return dashes[(i / N_PALETTE) % (sizeof(dashes) / sizeof(dashes[0]))];
}

/* Text ------------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at s (1..4), 0 when the bytes
 * there are not one (overlong forms, surrogates and values past U+10FFFF
 * included). */
static unsigned utf8_len(const unsigned char *s)
{
    const unsigned c = s[0];
    unsigned n, min;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000;
    else return 0;
    unsigned v = c & (0x3f >> (n - 1));
    for (unsigned i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    return n;
}

/* Text for HTML and SVG (XML): markup characters escaped; control characters
 * (XML 1.0 allows none but tab and the line ends) and bytes that are not
 * UTF-8 replaced by U+FFFD, so a name from a file or the command line cannot
 * make the document ill-formed. */
static void put_esc(FILE *f, const char *str)
{
    static const char replacement[] = "\xef\xbf\xbd";
    const unsigned char *s = (const unsigned char *)str;
    while (s && *s) {
        const unsigned n = utf8_len(s);
        switch (n ? *s : 0) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case 0: fputs(replacement, f); break;
        default:
            if ((*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') || *s == 0x7f)
                fputs(replacement, f);
            else
                fwrite(s, 1, n, f);
        }
        s += n ? n : 1;
    }
}

static void put_base64(FILE *f, const unsigned char *d, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        const unsigned b0 = d[i], b1 = i + 1 < n ? d[i + 1] : 0, b2 = i + 2 < n ? d[i + 2] : 0;
        out[0] = tab[b0 >> 2];
        out[1] = tab[((b0 & 3) << 4) | (b1 >> 4)];
        out[2] = i + 1 < n ? tab[((b1 & 15) << 2) | (b2 >> 6)] : '=';
        out[3] = i + 2 < n ? tab[b2 & 63] : '=';
        fwrite(out, 1, 4, f);
    }
}

/* Axes ------------------------------------------------------------------- */

/* The round number (1, 2 or 5 times a power of ten) nearest above x / n. */
static double nice_step(double span, unsigned n)
{
    const double raw = span / n;
    const double p = pow(10.0, floor(log10(raw)));
    const double m = raw / p;
    return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * p;
}

typedef struct Axis {
    double lo, hi, step;
    int decimals;
} Axis;

/* An axis over [lo, hi] ending on ticks about n apart. */
static void axis_for(Axis *a, double lo, double hi, unsigned n)
{
    if (!(hi > lo)) {
        const double pad = lo != 0 ? fabs(lo) * 0.01 : 1.0;
        lo -= pad;
        hi += pad;
    }
    a->step = nice_step(hi - lo, n);
    a->lo = floor(lo / a->step + 1e-9) * a->step;
    a->hi = ceil(hi / a->step - 1e-9) * a->step;
    if (a->hi <= a->lo) a->hi = a->lo + a->step;
    const int e = (int)floor(log10(a->step) + 1e-9);
    a->decimals = e < 0 ? -e : 0;
}

/* Keys ------------------------------------------------------------------- */

enum { CLASS_MODEL, CLASS_ASKED, CLASS_INTERNAL };

/* The keys libvmaf's built-in VMAF models read and their extractors write
 * beside them (for outputs without a sidecar, which says what was asked). */
static const char *const builtin_inputs[] = {
    "integer_adm2", "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
    "integer_adm_scale3", "integer_motion2", "integer_motion", "integer_vif_scale0",
    "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3", "adm2", "motion2",
    "vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3", "integer_aim", "integer_adm3",
    "VMAF_integer_feature_motion_sad_score", "aim", "adm3", NULL,
};

typedef struct Key {
    const char *label;
    int cls;
    int model;     /* index among the model keys */
} Key;

static bool is_model_key(const RepDoc *d, const char *k)
{
    bool any_meta = false;
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        any_meta |= e->n_models > 0;
        for (unsigned m = 0; m < e->n_models; m++)
            if (!strcmp(e->model[m].key, k)) return true;
    }
    return !any_meta && !strcmp(k, "vmaf");
}

/* A key a model computes beside its score (a collection's bagging score,
 * interval, spread and members: "vmaf_bagging", "vmaf_0001"). */
static bool is_model_derived(const RepDoc *d, const char *k)
{
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        for (unsigned m = 0; m < e->n_models; m++) {
            const size_t l = strlen(e->model[m].key);
            if (!strncmp(e->model[m].key, k, l) && k[l] == '_') return true;
        }
    }
    return false;
}

static bool any_meta(const RepDoc *d)
{
    for (unsigned i = 0; i < d->n_enc; i++)
        if (d->enc[i].has_meta) return true;
    return false;
}

/* Without a sidecar: a key libvmaf's VMAF models read or their extractors
 * write. */
static bool is_model_input(const RepDoc *d, const char *k)
{
    (void)d;
    for (const char *const *b = builtin_inputs; *b; b++)
        if (!strcmp(*b, k)) return true;
    return false;
}

/* Whether a feature asked for (--feature NAME) is named in key k. */
static bool is_asked(const RepDoc *d, const char *k)
{
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        for (unsigned f = 0; f < e->n_features; f++) {
            char name[128];
            snprintf(name, sizeof(name), "%s", e->feature[f]);
            name[strcspn(name, "=")] = '\0';
            if (*name && strstr(k, name)) return true;
        }
    }
    return false;
}

/* Every key of every encode, models first (in the order the runs gave them),
 * then the rest in order of appearance; each with its class. */
static Key *collect_keys(const RepDoc *d, unsigned *n_out, unsigned *n_models)
{
    unsigned cap = 0;
    for (unsigned i = 0; i < d->n_enc; i++) cap += d->enc[i].n_keys;
    Key *k = calloc(cap ? cap : 1, sizeof(*k));
    unsigned n = 0;
    if (!k) return NULL;
    *n_models = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < d->n_enc; i++) {
            const RepEncode *e = &d->enc[i];
            for (unsigned j = 0; j < e->n_keys; j++) {
                const char *label = e->key[j];
                if (is_model_key(d, label) != (pass == 0)) continue;
                bool seen = false;
                for (unsigned q = 0; q < n && !seen; q++) seen = !strcmp(k[q].label, label);
                if (seen) continue;
                k[n].label = label;
                if (pass == 0) {
                    k[n].cls = CLASS_MODEL;
                    k[n].model = (int)(*n_models)++;
                } else {
                    /* with sidecars: asked for when an asked feature names it, else
                     * computed for a model (its inputs, the other outputs of its
                     * extractors, a collection's statistics); without: libvmaf's
                     * models' inputs are the models' */
                    const bool internal = is_model_derived(d, label) ||
                        (any_meta(d) ? !is_asked(d, label) : is_model_input(d, label));
                    k[n].cls = internal ? CLASS_INTERNAL : CLASS_ASKED;
                    k[n].model = -1;
                }
                n++;
            }
        }
    }
    *n_out = n;
    return k;
}

/* Panels ------------------------------------------------------------------ */

typedef struct Curve {
    unsigned enc;
    int key;           /* in the encode */
    unsigned colour;
    const char *label;
} Curve;

typedef struct Panel {
    const char *title;
    const char *key;   /* NULL: several keys (an overlay) */
    int cls;
    Curve *c;
    unsigned n;
} Panel;

/* The finite range of a curve's values and its last frame. */
static bool curve_range(const RepDoc *d, const Curve *c, double *lo, double *hi, unsigned *last)
{
    const RepEncode *e = &d->enc[c->enc];
    const double *v = e->val + (size_t)c->key * e->n_frames;
    bool any = false;
    for (unsigned i = 0; i < e->n_frames; i++) {
        if (!isfinite(v[i])) continue;
        if (!any || v[i] < *lo) *lo = v[i];
        if (!any || v[i] > *hi) *hi = v[i];
        any = true;
    }
    *last = e->n_frames ? e->frame[e->n_frames - 1] : 0;
    return any;
}

static void put_legend(FILE *f, const Panel *p, double y)
{
    double x = PLOT_L;
    for (unsigned i = 0; i < p->n; i++) {
        const double w = 30 + 7.0 * (double)strlen(p->c[i].label);
        if (x + w > PANEL_W - PLOT_R && x > PLOT_L) break; /* the table below names them all */
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"%s%s%s/>", x, y - 4, x + 18, y - 4, colour(p->c[i].colour),
                *dash(p->c[i].colour) ? " stroke-dasharray=\"" : "", dash(p->c[i].colour),
                *dash(p->c[i].colour) ? "\"" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" font-size=\"11\">",
                x + 22, y);
        put_esc(f, p->c[i].label);
        fprintf(f, "</text>\n");
        x += w;
    }
}

/* One curve's points: every frame, or the lowest and highest of each bucket
 * (in frame order) for a long one. A null breaks the line. */
static void put_curve(FILE *f, const RepDoc *d, const Curve *c, const Axis *ya, double x_last,
                      unsigned idx)
{
    const RepEncode *e = &d->enc[c->enc];
    const double *v = e->val + (size_t)c->key * e->n_frames;
    const double pw = PANEL_W - PLOT_L - PLOT_R, ph = PANEL_H - PLOT_T - PLOT_B;
#define X(fr) (PLOT_L + (x_last > 0 ? (double)(fr) / x_last : 0.5) * pw)
#define Y(val) (PLOT_T + (ya->hi - (val)) / (ya->hi - ya->lo) * ph)
    fprintf(f, "<g class=\"curve\" data-enc=\"%u\" data-curve=\"%u\" data-key=\"", c->enc, idx);
    put_esc(f, e->key[c->key]);
    fprintf(f, "\">\n");
    bool open = false;
    unsigned drawn = 0, last_i = 0;
    const char *style_c = colour(c->colour), *style_d = dash(c->colour);
#define OPEN() do { if (!open) { fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" " \
    "stroke-width=\"1.6\"%s%s%s points=\"", style_c, *style_d ? " stroke-dasharray=\"" : "", \
    style_d, *style_d ? "\"" : ""); open = true; } else fputc(' ', f); } while (0)
#define CLOSE() do { if (open) fprintf(f, "\"/>\n"); open = false; } while (0)
    if (e->n_frames <= DECIMATE_ABOVE) {
        for (unsigned i = 0; i < e->n_frames; i++) {
            if (!isfinite(v[i])) { CLOSE(); continue; }
            OPEN();
            fprintf(f, "%.1f,%.1f", X(e->frame[i]), Y(v[i]));
            drawn++;
            last_i = i;
        }
    } else {
        for (unsigned b = 0; b < DECIMATE_BUCKETS; b++) {
            const unsigned s = (unsigned)((uint64_t)b * e->n_frames / DECIMATE_BUCKETS);
            const unsigned t = (unsigned)((uint64_t)(b + 1) * e->n_frames / DECIMATE_BUCKETS);
            int imin = -1, imax = -1;
            for (unsigned i = s; i < t; i++) {
                if (!isfinite(v[i])) continue;
                if (imin < 0 || v[i] < v[imin]) imin = (int)i;
                if (imax < 0 || v[i] > v[imax]) imax = (int)i;
            }
            if (imin < 0) { CLOSE(); continue; }
            const int first = imin < imax ? imin : imax, second = imin < imax ? imax : imin;
            OPEN();
            fprintf(f, "%.1f,%.1f", X(e->frame[first]), Y(v[first]));
            if (second != first)
                fprintf(f, " %.1f,%.1f", X(e->frame[second]), Y(v[second]));
            drawn++;
            last_i = (unsigned)first;
        }
    }
    CLOSE();
    if (drawn == 1)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", X(e->frame[last_i]),
                Y(v[last_i]), style_c);
    fprintf(f, "</g>\n");
#undef OPEN
#undef CLOSE
#undef X
#undef Y
}

static void put_svg_open(FILE *f, bool nested, double y0, unsigned h)
{
    if (nested)
        fprintf(f, "<svg x=\"0\" y=\"%.0f\" width=\"%d\" height=\"%u\">\n", y0, PANEL_W, h);
    else
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
                "height=\"%u\" viewBox=\"0 0 %d %u\" role=\"img\">\n", PANEL_W, h, PANEL_W, h);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#ffffff\"/>\n", PANEL_W, h);
}

/* The value axis's grid and labels, the frame axis's ticks. */
static void put_axes(FILE *f, const Axis *ya, const Axis *xa, double pw, double ph,
                     const char *xlabel, unsigned h)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f9fa\" "
            "stroke=\"#868e96\"/>\n", PLOT_L, PLOT_T, pw, ph);
    const unsigned ny = (unsigned)llround((ya->hi - ya->lo) / ya->step);
    for (unsigned q = 0; q <= ny; q++) {
        const double v = ya->lo + ya->step * q;
        const double y = PLOT_T + (ya->hi - v) / (ya->hi - ya->lo) * ph;
        if (q && q < ny)
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dee2e6\"/>\n",
                    PLOT_L, y, PLOT_L + pw, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-family=\"sans-serif\" font-size=\"11\" "
                "text-anchor=\"end\">%.*f</text>\n", PLOT_L - 6, y + 4, ya->decimals, v);
    }
    if (!xa) return;
    const unsigned nx = (unsigned)llround((xa->hi - xa->lo) / xa->step);
    for (unsigned q = 0; q <= nx; q++) {
        const double v = xa->lo + xa->step * q;
        const double x = PLOT_L + (v - xa->lo) / (xa->hi - xa->lo) * pw;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#868e96\"/>\n",
                x, PLOT_T + ph, x, PLOT_T + ph + 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\" "
                "text-anchor=\"middle\">%.*f</text>\n", x, PLOT_T + ph + 16, xa->decimals, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%u\" font-family=\"sans-serif\" font-size=\"11\" "
            "text-anchor=\"middle\">%s</text>\n", PLOT_L + pw / 2, h - 6, xlabel);
}

/* One panel of per-frame curves; `marks`: each encode's lowest frames. */
static void put_panel(FILE *f, const RepDoc *d, const Panel *p, bool nested, double y0)
{
    const double pw = PANEL_W - PLOT_L - PLOT_R, ph = PANEL_H - PLOT_T - PLOT_B;
    double lo = 0, hi = 1;
    unsigned last = 0;
    bool any = false;
    for (unsigned i = 0; i < p->n; i++) {
        double l = 0, h = 0;
        unsigned la = 0;
        if (!curve_range(d, &p->c[i], &l, &h, &la)) continue;
        lo = any ? fmin(lo, l) : l;
        hi = any ? fmax(hi, h) : h;
        any = true;
        if (la > last) last = la;
    }
    Axis ya, xa;
    if (p->cls == CLASS_MODEL) {
        /* a model's score on 0-100, wider only to show a value outside */
        axis_for(&ya, any ? fmin(lo, 0.0) : 0.0, any ? fmax(hi, 100.0) : 100.0, 5);
    } else {
        axis_for(&ya, lo, hi, 4);
    }
    axis_for(&xa, 0, last ? last : 1, 10);
    if (xa.step < 1) axis_for(&xa, 0, 10, 10);
    put_svg_open(f, nested, y0, PANEL_H);
    fprintf(f, "<text x=\"%d\" y=\"18\" font-family=\"sans-serif\" font-size=\"14\" "
            "font-weight=\"bold\">", PLOT_L);
    put_esc(f, p->title);
    fprintf(f, "</text>\n");
    put_legend(f, p, 36);
    put_axes(f, &ya, &xa, pw, ph, "frame", PANEL_H);
    for (unsigned i = 0; i < p->n; i++) put_curve(f, d, &p->c[i], &ya, xa.hi, i);
    /* each encode's lowest frames of a model */
    for (unsigned i = 0; p->cls == CLASS_MODEL && i < p->n; i++) {
        const RepEncode *e = &d->enc[p->c[i].enc];
        unsigned rows[REP_WORST];
        const unsigned nw = rep_lowest(e, (unsigned)p->c[i].key, REP_WORST, rows);
        const double *v = e->val + (size_t)p->c[i].key * e->n_frames;
        for (unsigned w = 0; w < nw; w++) {
            if (!isfinite(v[rows[w]])) continue;
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"1.5\"><title>", PLOT_L + e->frame[rows[w]] / xa.hi * pw,
                    PLOT_T + (ya.hi - v[rows[w]]) / (ya.hi - ya.lo) * ph, colour(p->c[i].colour));
            put_esc(f, p->c[i].label);
            fprintf(f, ": frame %u</title></circle>\n", e->frame[rows[w]]);
        }
    }
    fprintf(f, "</svg>\n");
}

/* Every per-frame panel: the models (an overlay first where one encode has
 * several), the features asked for, then the models' inputs. */
static Panel *build_panels(const RepDoc *d, const Key *keys, unsigned n_keys, unsigned n_models,
                           unsigned *n_out)
{
    Panel *p = calloc(n_keys + 1, sizeof(*p));
    unsigned n = 0;
    if (!p) return NULL;
    if (d->n_enc == 1 && n_models > 1) {
        p[n].title = "models, overlaid";
        p[n].cls = CLASS_MODEL;
        p[n].c = calloc(n_models, sizeof(Curve));
        if (!p[n].c) goto oom;
        for (unsigned k = 0; k < n_keys; k++) {
            if (keys[k].cls != CLASS_MODEL) continue;
            const int j = rep_key_index(&d->enc[0], keys[k].label);
            if (j < 0) continue;
            p[n].c[p[n].n++] = (Curve){ 0, j, (unsigned)keys[k].model, keys[k].label };
        }
        n++;
    }
    for (int cls = CLASS_MODEL; cls <= CLASS_INTERNAL; cls++) {
        for (unsigned k = 0; k < n_keys; k++) {
            if (keys[k].cls != cls) continue;
            p[n].title = keys[k].label;
            p[n].key = keys[k].label;
            p[n].cls = cls;
            p[n].c = calloc(d->n_enc, sizeof(Curve));
            if (!p[n].c) goto oom;
            for (unsigned i = 0; i < d->n_enc; i++) {
                const int j = rep_key_index(&d->enc[i], keys[k].label);
                if (j >= 0) p[n].c[p[n].n++] = (Curve){ i, j, i, d->enc[i].label };
            }
            n++;
        }
    }
    *n_out = n;
    return p;
oom:
    for (unsigned i = 0; i <= n; i++) free(p[i].c);
    free(p);
    return NULL;
}

static void free_panels(Panel *p, unsigned n)
{
    for (unsigned i = 0; p && i < n; i++) free(p[i].c);
    free(p);
}

/* The rate-quality plot -------------------------------------------------- */

static int rank_key(const RepEncode *e)
{
    return rep_rank_key(e);
}

static double rank_value(const RepEncode *e)
{
    const int k = rank_key(e);
    return k >= 0 ? e->poolv[k][2] : NAN;
}

static bool any_bitrate(const RepDoc *d)
{
    for (unsigned i = 0; i < d->n_enc; i++)
        if (d->enc[i].bitrate > 0 && rank_key(&d->enc[i]) >= 0) return true;
    return false;
}

typedef struct RqPoint {
    double lr, q;
    unsigned enc;
} RqPoint;

static int rq_cmp(const void *a, const void *b)
{
    const RqPoint *p = a, *q = b;
    return (p->lr > q->lr) - (p->lr < q->lr);
}

/* Bitrate (kbit/s, log scale) against each encode's pooled mean of its
 * ranking key: one line per ladder. */
static void put_rq_plot(FILE *f, const RepDoc *d, bool nested, double y0)
{
    const double pw = PANEL_W - PLOT_L - PLOT_R, ph = RQ_H - PLOT_T - PLOT_B;
    double lrmin = INFINITY, lrmax = -INFINITY, qmin = INFINITY, qmax = -INFINITY;
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        const double q = rank_value(e);
        if (!(e->bitrate > 0) || !isfinite(q)) continue;
        const double lr = log10(e->bitrate / 1000.0);
        lrmin = fmin(lrmin, lr);
        lrmax = fmax(lrmax, lr);
        qmin = fmin(qmin, q);
        qmax = fmax(qmax, q);
    }
    /* x: whole decades, ticks at 1, 2 and 5 of each */
    double dlo = floor(lrmin), dhi = ceil(lrmax);
    if (dhi <= dlo) dhi = dlo + 1;
    Axis ya;
    const int k0 = rank_key(&d->enc[0]);
    const bool model = k0 >= 0 && is_model_key(d, d->enc[0].key[k0]);
    if (model) axis_for(&ya, fmin(qmin, 0.0), fmax(qmax, 100.0), 10);
    else axis_for(&ya, qmin, qmax, 8);
    put_svg_open(f, nested, y0, RQ_H);
    fprintf(f, "<text x=\"%d\" y=\"18\" font-family=\"sans-serif\" font-size=\"14\" "
            "font-weight=\"bold\">rate-quality: pooled mean of ", PLOT_L);
    put_esc(f, k0 >= 0 ? d->enc[0].key[k0] : "?");
    fprintf(f, " against the distorted stream's bitrate</text>\n");
    Panel legend = { 0 };
    Curve lc[64];
    for (unsigned g = 0; g < d->n_groups && g < 64; g++)
        lc[legend.n++] = (Curve){ 0, 0, g, d->group[g] };
    legend.c = lc;
    if (d->n_groups > 1) put_legend(f, &legend, 36);
    put_axes(f, &ya, NULL, pw, ph, "", RQ_H);
#define X(lr) (PLOT_L + ((lr) - dlo) / (dhi - dlo) * pw)
#define Y(q) (PLOT_T + (ya.hi - (q)) / (ya.hi - ya.lo) * ph)
    for (double dec = dlo; dec <= dhi + 1e-9; dec++) {
        static const double mult[] = { 1, 2, 5 };
        for (unsigned m = 0; m < 3; m++) {
            const double lr = dec + log10(mult[m]);
            if (lr > dhi + 1e-9) break;
            const double x = X(lr);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\"/>\n",
                    x, PLOT_T, x, PLOT_T + ph, m ? "#eceff1" : "#dee2e6");
            const double kb = pow(10.0, lr);
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\" "
                    "text-anchor=\"middle\">%.*f</text>\n", x, PLOT_T + ph + 16,
                    kb < 1 ? (int)ceil(-log10(kb) - 1e-9) : 0, kb);
        }
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%u\" font-family=\"sans-serif\" font-size=\"11\" "
            "text-anchor=\"middle\">bitrate, kbit/s (log scale)</text>\n", PLOT_L + pw / 2,
            RQ_H - 6);
    RqPoint *pts = malloc(sizeof(*pts) * (d->n_enc ? d->n_enc : 1));
    for (unsigned g = 0; pts && g < d->n_groups; g++) {
        unsigned n = 0;
        for (unsigned i = 0; i < d->n_enc; i++) {
            const RepEncode *e = &d->enc[i];
            const double q = rank_value(e);
            if (e->group != g || !(e->bitrate > 0) || !isfinite(q)) continue;
            pts[n++] = (RqPoint){ log10(e->bitrate / 1000.0), q, i };
        }
        if (!n) continue;
        qsort(pts, n, sizeof(*pts), rq_cmp);
        fprintf(f, "<g class=\"rq\" data-group=\"%u\">\n<polyline fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"2\"%s%s%s points=\"", g, colour(g),
                *dash(g) ? " stroke-dasharray=\"" : "", dash(g), *dash(g) ? "\"" : "");
        for (unsigned i = 0; i < n; i++)
            fprintf(f, "%s%.1f,%.1f", i ? " " : "", X(pts[i].lr), Y(pts[i].q));
        fprintf(f, "\"/>\n");
        for (unsigned i = 0; i < n; i++) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>",
                    X(pts[i].lr), Y(pts[i].q), colour(g));
            put_esc(f, d->enc[pts[i].enc].label);
            fprintf(f, "</title></circle>\n<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" "
                    "font-size=\"10\" fill=\"#495057\">", X(pts[i].lr) + 6, Y(pts[i].q) + 14);
            put_esc(f, d->enc[pts[i].enc].label);
            fprintf(f, "</text>\n");
        }
        fprintf(f, "</g>\n");
    }
    free(pts);
    fprintf(f, "</svg>\n");
#undef X
#undef Y
}

/* The page ---------------------------------------------------------------- */

static void put_html_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    put_esc(f, title);
    fprintf(f, "</title>\n<style>\n"
            "body{font-family:sans-serif;margin:24px;color:#212529;background:#fff;max-width:1100px}\n"
            "table{border-collapse:collapse;margin:8px 0 16px}\n"
            "th,td{border:1px solid #ced4da;padding:3px 8px;text-align:left;vertical-align:top}\n"
            "td.num{text-align:right;font-family:monospace}\n"
            "td.path{word-break:break-all;max-width:28em}\n"
            "section.panel{margin:12px 0;break-inside:avoid}\n"
            "svg.plot{display:block;max-width:100%%;height:auto}\n"
            "figure{display:inline-block;margin:4px 12px 12px 0;vertical-align:top}\n"
            "figure img{display:block;max-width:100%%;border:1px solid #ced4da}\n"
            "figcaption{font-size:12px;color:#495057}\n"
            "p.note{color:#495057;font-size:13px}\n"
            "span.swatch{display:inline-block;width:14px;height:4px;vertical-align:middle;margin-right:6px}\n"
            "@media print{body{margin:0;max-width:none}section.encode,figure{break-inside:avoid}}\n"
            "</style>\n</head>\n<body>\n<h1>");
    put_esc(f, title);
    fprintf(f, "</h1>\n");
}

static void put_swatch(FILE *f, unsigned c)
{
    fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>", colour(c));
}

static void put_num_cell(FILE *f, unsigned enc, const char *key, const char *pool, const char *txt)
{
    fprintf(f, "<td class=\"num\" data-enc=\"%u\" data-key=\"", enc);
    put_esc(f, key);
    fprintf(f, "\" data-pool=\"%s\">", pool);
    put_esc(f, txt);
    fprintf(f, "</td>");
}

/* Encodes sorted by their ranking score, highest first (no score last). */
static const RepDoc *sort_doc;
static int rank_cmp(const void *a, const void *b)
{
    const unsigned i = *(const unsigned *)a, j = *(const unsigned *)b;
    const double x = rank_value(&sort_doc->enc[i]), y = rank_value(&sort_doc->enc[j]);
    if (isfinite(x) != isfinite(y)) return isfinite(x) ? -1 : 1;
    if (isfinite(x) && x != y) return x > y ? -1 : 1;
    return (i > j) - (i < j);
}

static void put_bitrate(FILE *f, const RepEncode *e, unsigned i)
{
    if (e->bitrate > 0)
        fprintf(f, "<td class=\"num\" data-enc=\"%u\" data-bitrate=\"%.0f\">%.1f</td>", i,
                e->bitrate, e->bitrate / 1000.0);
    else
        fprintf(f, "<td>&#8212;</td>");
}

static void put_encodes_table(FILE *f, const RepDoc *d, const Key *keys, unsigned n_keys)
{
    unsigned *order = malloc(sizeof(*order) * (d->n_enc ? d->n_enc : 1));
    if (!order) return;
    for (unsigned i = 0; i < d->n_enc; i++) order[i] = i;
    sort_doc = d;
    qsort(order, d->n_enc, sizeof(*order), rank_cmp);
    const bool br = any_bitrate(d);
    fprintf(f, "<h2>Encodes</h2>\n<p>Sorted by the pooled mean of the first model's score "
            "(highest first). Means of the models and of the features asked for; every pooled "
            "value is under <a href=\"#pooled\">Pooled values</a>.%s</p>\n",
            br ? " Bitrate: the distorted video stream's, in kbit/s (the container's stream "
                 "bit rate, else its packets' bytes over its duration)." : "");
    fprintf(f, "<table class=\"encodes\">\n<tr><th>rank</th><th>encode</th>");
    if (d->n_groups > 1) fprintf(f, "<th>ladder</th>");
    if (br) fprintf(f, "<th>kbit/s</th>");
    fprintf(f, "<th>frames</th>");
    for (unsigned k = 0; k < n_keys; k++) {
        if (keys[k].cls == CLASS_INTERNAL) continue;
        fprintf(f, "<th>");
        put_esc(f, keys[k].label);
        fprintf(f, " mean</th>");
    }
    fprintf(f, "</tr>\n");
    for (unsigned r = 0; r < d->n_enc; r++) {
        const unsigned i = order[r];
        const RepEncode *e = &d->enc[i];
        fprintf(f, "<tr data-rank=\"%u\" data-enc=\"%u\"><td>%u</td><td>", r + 1, i, r + 1);
        put_swatch(f, i);
        put_esc(f, e->label);
        fprintf(f, "</td>");
        if (d->n_groups > 1) {
            fprintf(f, "<td>");
            put_esc(f, d->group[e->group]);
            fprintf(f, "</td>");
        }
        if (br) put_bitrate(f, e, i);
        fprintf(f, "<td class=\"num\">%u</td>", e->n_frames);
        for (unsigned k = 0; k < n_keys; k++) {
            if (keys[k].cls == CLASS_INTERNAL) continue;
            const int j = rep_key_index(e, keys[k].label);
            if (j < 0 || !e->pool[j][2]) fprintf(f, "<td></td>");
            else put_num_cell(f, i, keys[k].label, "mean", e->pool[j][2]);
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    free(order);
}

static void put_bd(FILE *f, const RepDoc *d)
{
    if (!any_bitrate(d)) {
        fprintf(f, "<h2>Rate and quality</h2>\n<p class=\"note\">No encode has a bitrate: %s.</p>\n",
                d->enc[0].has_meta ? "the inputs are raw YUV or Y4M, which have no bitrate"
                : "the outputs have no sidecar (a run with --meta writes one), which holds it");
        return;
    }
    fprintf(f, "<h2>Rate and quality</h2>\n<section class=\"panel\" data-plot=\"rq\">\n");
    put_rq_plot(f, d, false, 0);
    fprintf(f, "</section>\n");
    for (unsigned i = 0; i < d->n_enc; i++)
        if (!(d->enc[i].bitrate > 0)) {
            fprintf(f, "<p class=\"note\">Not on the curve (no bitrate): ");
            for (unsigned j = i, first = 1; j < d->n_enc; j++) {
                if (d->enc[j].bitrate > 0) continue;
                fprintf(f, "%s", first ? "" : ", ");
                put_esc(f, d->enc[j].label);
                if (d->enc[j].bitrate_none) {
                    fprintf(f, " (");
                    put_esc(f, d->enc[j].bitrate_none);
                    fprintf(f, ")");
                }
                first = 0;
            }
            fprintf(f, ".</p>\n");
            break;
        }
    if (!d->n_bd) {
        fprintf(f, "<p class=\"note\">BD-rate: %s</p>\n", d->n_groups > 1 ? "not computed."
                : "give two ladders of one reference to compare them (tvmaf report --ladder "
                  "NAME FILES... --ladder NAME FILES...).");
        return;
    }
    fprintf(f, "<h3>BD-rate and BD-%s</h3>\n<p>Each ladder against the anchor, ladder "
            "&#8220;", d->bd[0].key);
    put_esc(f, d->group[0]);
    fprintf(f, "&#8221;. BD-rate: log<sub>10</sub> of the bitrate as a monotone piecewise cubic "
            "Hermite (PCHIP) function of the pooled mean, for each ladder, integrated over the "
            "range of the mean both ladders cover and averaged over it; with <i>d</i> the "
            "test's average less the anchor's, BD-rate = (10<sup><i>d</i></sup> &#8722; 1) "
            "&#215; 100 %%: the bitrate change at equal quality (negative: the test needs less). "
            "BD-%s: the mean as a PCHIP function of log<sub>10</sub> bitrate over the shared "
            "log-bitrate range, the test's average less the anchor's. Each ladder needs at "
            "least %d encodes.</p>\n", d->bd[0].key, TVMAF_BD_MIN_POINTS);
    fprintf(f, "<table class=\"bd\">\n<tr><th>ladder</th><th>against</th><th>BD-rate</th>"
            "<th>BD-%s</th><th>shared %s range</th><th>shared kbit/s range</th></tr>\n",
            d->bd[0].key, d->bd[0].key);
    for (unsigned b = 0; b < d->n_bd; b++) {
        const RepBd *x = &d->bd[b];
        fprintf(f, "<tr><td>");
        put_esc(f, d->group[x->test]);
        fprintf(f, "</td><td>");
        put_esc(f, d->group[x->anchor]);
        fprintf(f, "</td><td class=\"num\" data-bd-rate=\"%.17g\" data-group=\"%u\">%+.2f %%</td>"
                "<td class=\"num\" data-bd-quality=\"%.17g\" data-group=\"%u\">%+.3f</td>"
                "<td class=\"num\">%.3f &#8211; %.3f</td><td class=\"num\">%.1f &#8211; %.1f</td>"
                "</tr>\n", x->r.rate_pct, x->test, x->r.rate_pct, x->r.quality, x->test,
                x->r.quality, x->r.q_lo, x->r.q_hi, pow(10.0, x->r.lr_lo) / 1000.0,
                pow(10.0, x->r.lr_hi) / 1000.0);
    }
    fprintf(f, "</table>\n<p>Its inputs:</p>\n<table class=\"bd-inputs\">\n<tr><th>ladder</th>"
            "<th>encode</th><th>bit/s</th><th>");
    put_esc(f, d->bd[0].key);
    fprintf(f, " mean</th></tr>\n");
    for (unsigned g = 0; g < d->n_groups; g++)
        for (unsigned i = 0; i < d->n_enc; i++) {
            const RepEncode *e = &d->enc[i];
            if (e->group != g) continue;
            const int k = rep_key_index(e, d->bd[0].key);
            fprintf(f, "<tr><td>");
            put_esc(f, d->group[g]);
            fprintf(f, "</td><td>");
            put_esc(f, e->label);
            fprintf(f, "</td><td class=\"num\">%.0f</td>", e->bitrate);
            if (k >= 0 && e->pool[k][2]) put_num_cell(f, i, d->bd[0].key, "mean", e->pool[k][2]);
            else fprintf(f, "<td></td>");
            fprintf(f, "</tr>\n");
        }
    fprintf(f, "</table>\n");
}

static void put_pooled(FILE *f, const RepDoc *d)
{
    static const char *const pools[REP_POOLS] = { "min", "max", "mean", "harmonic_mean" };
    fprintf(f, "<h2 id=\"pooled\">Pooled values</h2>\n");
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        fprintf(f, "<details%s><summary>", d->n_enc == 1 ? " open" : "");
        put_swatch(f, i);
        put_esc(f, e->label);
        fprintf(f, ": %u keys</summary>\n<table class=\"pooled\" data-enc=\"%u\">\n"
                "<tr><th>key</th>", e->n_keys, i);
        for (unsigned p = 0; p < REP_POOLS; p++) fprintf(f, "<th>%s</th>", pools[p]);
        fprintf(f, "</tr>\n");
        for (unsigned k = 0; k < e->n_keys; k++) {
            fprintf(f, "<tr><th>");
            put_esc(f, e->key[k]);
            fprintf(f, "</th>");
            for (unsigned p = 0; p < REP_POOLS; p++) {
                if (e->pool[k][p]) put_num_cell(f, i, e->key[k], pools[p], e->pool[k][p]);
                else fprintf(f, "<td></td>");
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table>\n");
        if (e->n_agg) {
            fprintf(f, "<table class=\"aggregate\" data-enc=\"%u\">\n", i);
            for (unsigned a = 0; a < e->n_agg; a++) {
                fprintf(f, "<tr><th>");
                put_esc(f, e->agg_key[a]);
                fprintf(f, "</th><td class=\"num\" data-enc=\"%u\" data-aggregate=\"", i);
                put_esc(f, e->agg_key[a]);
                fprintf(f, "\">");
                put_esc(f, e->agg_txt[a]);
                fprintf(f, "</td></tr>\n");
            }
            fprintf(f, "</table>\n");
        }
        fprintf(f, "</details>\n");
    }
}

static void put_image(FILE *f, const RepImage *im, const char *alt)
{
    fprintf(f, "<img width=\"%u\" height=\"%u\" alt=\"", im->w, im->h);
    put_esc(f, alt);
    fprintf(f, "\" src=\"data:%s;base64,", im->mime ? im->mime : "image/jpeg");
    put_base64(f, im->data, im->size);
    fprintf(f, "\">");
}

static void put_lowest(FILE *f, const RepDoc *d)
{
    const unsigned n_low = d->n_lowest ? d->n_lowest : REP_WORST;
    fprintf(f, "<h2>Lowest frames</h2>\n");
    if (d->pictures_note) {
        fprintf(f, "<p class=\"note\">");
        put_esc(f, d->pictures_note);
        fprintf(f, "</p>\n");
    }
    unsigned *rows = malloc(sizeof(*rows) * n_low);
    for (unsigned i = 0; rows && i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        const int k = rank_key(e);
        if (k < 0) continue;
        const unsigned n = rep_lowest(e, (unsigned)k, n_low, rows);
        fprintf(f, "<section class=\"encode\" data-enc=\"%u\">\n<h3>", i);
        put_swatch(f, i);
        put_esc(f, e->label);
        fprintf(f, ": the %u lowest frames of ", n);
        put_esc(f, e->key[k]);
        fprintf(f, "</h3>\n<table class=\"worst\" data-enc=\"%u\" data-key=\"", i);
        put_esc(f, e->key[k]);
        fprintf(f, "\">\n<tr><th>rank</th><th>frame</th><th>");
        put_esc(f, e->key[k]);
        fprintf(f, "</th></tr>\n");
        for (unsigned w = 0; w < n; w++) {
            const unsigned r = rows[w];
            fprintf(f, "<tr><td>%u</td><td>", w + 1);
            put_esc(f, e->frame_num[r]);
            fprintf(f, "</td><td class=\"num\" data-enc=\"%u\" data-key=\"", i);
            put_esc(f, e->key[k]);
            fprintf(f, "\" data-worst=\"%u\" data-frame=\"%u\">", w + 1, e->frame[r]);
            put_esc(f, e->txt[(size_t)k * e->n_frames + r]);
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table>\n");
        if (e->pictures_note[0]) {
            fprintf(f, "<p class=\"note\">No pictures: ");
            put_esc(f, e->pictures_note);
            fprintf(f, "</p>\n");
        }
        for (unsigned w = 0; w < e->n_worst; w++) {
            const RepWorst *x = &e->worst[w];
            char alt[160];
            snprintf(alt, sizeof(alt), "frame %u: reference (left) and distorted (right)",
                     e->frame[x->row]);
            fprintf(f, "<figure data-frame=\"%u\">", e->frame[x->row]);
            if (x->pair.data) put_image(f, &x->pair, alt);
            fprintf(f, "<figcaption>frame %u: reference | distorted</figcaption></figure>\n",
                    e->frame[x->row]);
            if (x->crop.data) {
                snprintf(alt, sizeof(alt), "frame %u, where they differ most", e->frame[x->row]);
                fprintf(f, "<figure data-frame=\"%u\" class=\"crop\">", e->frame[x->row]);
                put_image(f, &x->crop, alt);
                fprintf(f, "<figcaption>where they differ most: %ux%u at (%u, %u), full size"
                        "</figcaption></figure>\n", x->crop_w, x->crop_h, x->crop_x, x->crop_y);
            }
        }
        fprintf(f, "</section>\n");
    }
    free(rows);
}

static void put_settings(FILE *f, const RepDoc *d)
{
    fprintf(f, "<h2>Settings</h2>\n");
    /* every setting name, in order of first appearance */
    unsigned cap = 0, n = 0;
    for (unsigned i = 0; i < d->n_enc; i++) cap += d->enc[i].n_set;
    const char **names = malloc(sizeof(*names) * (cap ? cap : 1));
    if (!names) return;
    for (unsigned i = 0; i < d->n_enc; i++)
        for (unsigned s = 0; s < d->enc[i].n_set; s++) {
            bool seen = false;
            for (unsigned q = 0; q < n && !seen; q++) seen = !strcmp(names[q], d->enc[i].set_k[s]);
            if (!seen) names[n++] = d->enc[i].set_k[s];
        }
    fprintf(f, "<table class=\"settings\">\n<tr><th>setting</th>");
    for (unsigned i = 0; i < d->n_enc; i++) {
        fprintf(f, "<th>");
        put_swatch(f, i);
        put_esc(f, d->enc[i].label);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n<tr><th>output</th>");
    for (unsigned i = 0; i < d->n_enc; i++) {
        fprintf(f, "<td class=\"path\">");
        put_esc(f, d->enc[i].json_path ? d->enc[i].json_path : "(this run)");
        if (d->enc[i].version) {
            fprintf(f, " (");
            put_esc(f, d->enc[i].version);
            fprintf(f, ")");
        }
        fprintf(f, "</td>");
    }
    fprintf(f, "</tr>\n");
    for (unsigned q = 0; q < n; q++) {
        fprintf(f, "<tr><th>");
        put_esc(f, names[q]);
        fprintf(f, "</th>");
        for (unsigned i = 0; i < d->n_enc; i++) {
            const RepEncode *e = &d->enc[i];
            const char *v = NULL;
            for (unsigned s = 0; s < e->n_set && !v; s++)
                if (!strcmp(e->set_k[s], names[q])) v = e->set_v[s];
            fprintf(f, "<td class=\"path\" data-enc=\"%u\" data-setting=\"", i);
            put_esc(f, names[q]);
            fprintf(f, "\">");
            put_esc(f, v ? v : "");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    bool none = false;
    for (unsigned i = 0; i < d->n_enc; i++) none |= !d->enc[i].has_meta && !d->enc[i].n_set;
    if (none)
        fprintf(f, "<p class=\"note\">An output without a sidecar says nothing of its inputs "
                "and settings: score with --meta to have them here.</p>\n");
    free(names);
}

/* The per-frame values of an encode, folded: every key where they fit in
 * FRAME_CELLS_MAX values, else the models' keys alone, else none. */
static void put_frames(FILE *f, const RepDoc *d, const Key *keys, unsigned n_keys)
{
    fprintf(f, "<h2>Per-frame values</h2>\n");
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        int *cols = malloc(sizeof(*cols) * (e->n_keys ? e->n_keys : 1));
        unsigned nc = 0;
        if (!cols) return;
        const bool all = (size_t)e->n_frames * e->n_keys <= FRAME_CELLS_MAX;
        for (unsigned k = 0; k < n_keys; k++) {
            const int j = rep_key_index(e, keys[k].label);
            if (j >= 0 && (all || keys[k].cls == CLASS_MODEL)) cols[nc++] = j;
        }
        if (!all && (size_t)e->n_frames * nc > FRAME_CELLS_MAX) nc = 0;
        fprintf(f, "<details><summary>");
        put_swatch(f, i);
        put_esc(f, e->label);
        if (!nc) {
            fprintf(f, ": %u frames, too many to list (the JSON output holds them)</summary>"
                    "</details>\n", e->n_frames);
            free(cols);
            continue;
        }
        fprintf(f, ": %u frames%s</summary>\n<table class=\"frames\" data-enc=\"%u\">\n"
                "<tr><th>frame</th>", e->n_frames, all ? "" : ", the models' scores (the JSON "
                "output holds the others)", i);
        for (unsigned c = 0; c < nc; c++) {
            fprintf(f, "<th data-key=\"");
            put_esc(f, e->key[cols[c]]);
            fprintf(f, "\">");
            put_esc(f, e->key[cols[c]]);
            fprintf(f, "</th>");
        }
        fprintf(f, "</tr>\n");
        for (unsigned r = 0; r < e->n_frames; r++) {
            fprintf(f, "<tr><td>%s</td>", e->frame_num[r]);
            for (unsigned c = 0; c < nc; c++) {
                const char *t = e->txt[(size_t)cols[c] * e->n_frames + r];
                fprintf(f, "<td>%s</td>", t ? t : "");
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table>\n</details>\n");
        free(cols);
    }
}

static bool any_long(const RepDoc *d)
{
    for (unsigned i = 0; i < d->n_enc; i++)
        if (d->enc[i].n_frames > DECIMATE_ABOVE) return true;
    return false;
}

static int finish(FILE *f)
{
    /* the stream's own error (a full disk, a file size limit), not a generic one */
    errno = 0;
    const int flush_err = fflush(f) ? errno : 0;
    return ferror(f) ? -(flush_err ? flush_err : EIO) : 0;
}

int rep_write_html(const RepDoc *d, FILE *f)
{
    if (!d || !f || !d->n_enc) return -EINVAL;
    unsigned n_keys, n_models, n_panels;
    Key *keys = collect_keys(d, &n_keys, &n_models);
    Panel *panels = keys ? build_panels(d, keys, n_keys, n_models, &n_panels) : NULL;
    if (!panels) {
        free(keys);
        return -ENOMEM;
    }
    put_html_head(f, d->title ? d->title : "tvmaf report");
    fprintf(f, "<p>%u encode%s", d->n_enc, d->n_enc == 1 ? "" : "s");
    if (d->n_groups > 1) fprintf(f, " in %u ladders", d->n_groups);
    fprintf(f, ", each a distorted video scored against its reference.");
    if (d->generator) {
        fprintf(f, " Written by ");
        put_esc(f, d->generator);
        fprintf(f, ".");
    }
    fprintf(f, " Every score is printed as the JSON output prints it.</p>\n");
    fprintf(f, "<table class=\"legend\">\n<tr><th>colour</th><th>encode</th><th>reference"
            "</th></tr>\n");
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        fprintf(f, "<tr><td>");
        put_swatch(f, i);
        fprintf(f, "</td><td class=\"path\">");
        put_esc(f, e->dis_path ? e->dis_path : e->label);
        fprintf(f, "</td><td class=\"path\">");
        put_esc(f, e->ref_path ? e->ref_path : "(not recorded)");
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
    put_encodes_table(f, d, keys, n_keys);
    put_bd(f, d);
    fprintf(f, "<h2>Per-frame scores</h2>\n<p class=\"note\">One curve per encode (the colours "
            "above). A model's score is drawn on 0&#8211;100; a feature on the rounded range of "
            "its values. Circles mark each encode's %u lowest frames.%s</p>\n", REP_WORST,
            any_long(d) ? " Curves of more than 2000 frames are drawn from 1000 buckets of "
            "frames, each bucket's lowest and highest value kept, so no extreme is lost; the "
            "tables hold the values." : "");
    for (int cls = CLASS_MODEL; cls <= CLASS_INTERNAL; cls++) {
        unsigned n = 0;
        for (unsigned p = 0; p < n_panels; p++) n += panels[p].cls == cls;
        if (!n) continue;
        if (cls == CLASS_INTERNAL)
            fprintf(f, "<details class=\"internal\"><summary>The features the models read "
                    "(%u)</summary>\n", n);
        for (unsigned p = 0; p < n_panels; p++) {
            if (panels[p].cls != cls) continue;
            fprintf(f, "<section class=\"panel\" data-key=\"");
            put_esc(f, panels[p].key ? panels[p].key : "");
            fprintf(f, "\" data-class=\"%s\">\n", cls == CLASS_MODEL ? "model" :
                    cls == CLASS_ASKED ? "feature" : "internal");
            put_panel(f, d, &panels[p], false, 0);
            fprintf(f, "</section>\n");
        }
        if (cls == CLASS_INTERNAL) fprintf(f, "</details>\n");
    }
    put_lowest(f, d);
    put_pooled(f, d);
    put_settings(f, d);
    put_frames(f, d, keys, n_keys);
    fprintf(f, "</body>\n</html>\n");
    free_panels(panels, n_panels);
    free(keys);
    return finish(f);
}

int rep_write_svg(const RepDoc *d, FILE *f)
{
    if (!d || !f || !d->n_enc) return -EINVAL;
    unsigned n_keys, n_models, n_panels;
    Key *keys = collect_keys(d, &n_keys, &n_models);
    Panel *panels = keys ? build_panels(d, keys, n_keys, n_models, &n_panels) : NULL;
    if (!panels) {
        free(keys);
        return -ENOMEM;
    }
    const bool rq = any_bitrate(d);
    const unsigned h = PANEL_H * n_panels + (rq ? RQ_H : 0);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
            "viewBox=\"0 0 %d %u\">\n<title>", PANEL_W, h, PANEL_W, h);
    put_esc(f, d->title ? d->title : "tvmaf report");
    fprintf(f, "</title>\n");
    double y = 0;
    if (rq) {
        put_rq_plot(f, d, true, y);
        y += RQ_H;
    }
    for (unsigned p = 0; p < n_panels; p++, y += PANEL_H) put_panel(f, d, &panels[p], true, y);
    fprintf(f, "</svg>\n");
    free_panels(panels, n_panels);
    free(keys);
    return finish(f);
}

/* The library's report of one context ------------------------------------ */

int tvmaf_write_report(TvmafContext *ctx, FILE *out, enum TvmafReportFormat fmt,
                       const TvmafReportConfig *cfg)
{
    const TvmafReportConfig none = { 0 };
    if (!cfg) cfg = &none;
    if (!ctx || !out || cfg->precision < 0 || cfg->precision > 17) return -EINVAL;
    if (fmt != TVMAF_REPORT_HTML && fmt != TVMAF_REPORT_SVG) return -EINVAL;
    /* the JSON output, read back: the page prints its characters */
    char *text = NULL, msg[512];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return -ENOMEM;
    int err = tvmaf_write_output(ctx, mem, TVMAF_OUTPUT_JSON, cfg->precision, 0.0, 0, 0);
    if (fclose(mem) && !err) err = -ENOMEM;
    RepEncode e;
    memset(&e, 0, sizeof(e));
    RepModel models[64];
    unsigned n_models = 0;
    const char *set_k[64], *set_v[64];
    unsigned n_set = 0;
    if (!err && rep_encode_load(&e, "the run", text, len, NULL, NULL, 0, msg, sizeof(msg)))
        err = -EINVAL;
    free(text);
    if (err) goto end;
    for (const char *const *m = cfg->models; m && *m && n_models < 64; m++)
        models[n_models++] = (RepModel){ *m, *m };
    e.model = models;
    e.n_models = n_models;
    for (const char *const *s = cfg->settings; s && s[0] && s[1] && n_set < 64; s += 2) {
        set_k[n_set] = s[0];
        set_v[n_set++] = s[1];
    }
    e.set_k = set_k;
    e.set_v = set_v;
    e.n_set = n_set;
    e.label = "the run";
    snprintf(e.pictures_note, sizeof(e.pictures_note), "tvmaf_write_report() draws none; the "
             "CLI's --report does");
    const char *group = "run";
    RepDoc d = { .title = cfg->title, .enc = &e, .n_enc = 1, .group = &group, .n_groups = 1,
                 .n_lowest = cfg->n_worst ? cfg->n_worst : 10 };
    err = fmt == TVMAF_REPORT_HTML ? rep_write_html(&d, out) : rep_write_svg(&d, out);
end:
    /* the caller's arrays are not the encode's to free */
    e.model = NULL;
    e.set_k = e.set_v = NULL;
    rep_encode_free(&e);
    return err;
}
