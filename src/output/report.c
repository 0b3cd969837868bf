/*
 * The report: a self-contained HTML page (or one SVG image) with a panel per
 * per-frame key (frame number on x, the key's value on y), the pooled and
 * aggregate values, the lowest-scoring frames of each model and the run's
 * settings. No script, no external resource: it opens offline and prints.
 *
 * Every score is printed by tvmaf_put_num() at the caller's precision, as the
 * JSON writer prints it (a non-finite value as JSON's null), and sits in an
 * element with data-key / data-pool / data-frame attributes so a reader (or a
 * test) can match it against the JSON output character for character.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/number.h"
#include "tvmaf/tvmaf.h"

/* Panel geometry (SVG user units). */
#define PANEL_W 960
#define PANEL_H 220
#define PLOT_L 90
#define PLOT_R 20
#define PLOT_T 30
#define PLOT_B 40

typedef struct Series {
    const char *key;   /* as the score functions take it */
    const char *label; /* as the outputs print it */
    bool model;
    unsigned n;        /* frames with a value */
    unsigned *frame;
    double *value;
} Series;

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

/* A score as the JSON output prints it. */
static void put_score(FILE *f, double v, int precision)
{
    if (isfinite(v)) tvmaf_put_num(f, v, precision);
    else fputs("null", f);
}

static bool is_model(const TvmafReportConfig *cfg, const char *key)
{
    for (const char *const *m = cfg->models; m && *m; m++)
        if (!strcmp(*m, key)) return true;
    return false;
}

static int load_series(TvmafContext *ctx, const char *key, const char *label, bool model,
                       Series *s)
{
    const unsigned nf = tvmaf_frame_count(ctx);
    memset(s, 0, sizeof(*s));
    s->key = key;
    s->label = label;
    s->model = model;
    s->frame = malloc(sizeof(*s->frame) * (nf ? nf : 1));
    s->value = malloc(sizeof(*s->value) * (nf ? nf : 1));
    if (!s->frame || !s->value) return -ENOMEM;
    for (unsigned i = 0; i < nf; i++) {
        double v;
        if (tvmaf_feature_score_at_index(ctx, key, &v, i)) continue;
        s->frame[s->n] = i;
        s->value[s->n] = v;
        s->n++;
    }
    return 0;
}

/* The finite range of the values; a flat or empty series gets a unit range. */
static void value_range(const Series *s, double *lo, double *hi)
{
    bool any = false;
    *lo = 0.0;
    *hi = 1.0;
    for (unsigned i = 0; i < s->n; i++) {
        const double v = s->value[i];
        if (!isfinite(v)) continue;
        if (!any || v < *lo) *lo = v;
        if (!any || v > *hi) *hi = v;
        any = true;
    }
    if (!any) { *lo = 0.0; *hi = 1.0; }
    if (*hi == *lo) { *lo -= 0.5; *hi += 0.5; }
}

/* One panel: frame axis, value axis with its extremes, the curve (broken
 * where a value is not finite) and a mark on each listed worst frame. */
static void put_panel(FILE *f, const Series *s, unsigned n_frames, const unsigned *worst,
                      unsigned n_worst, double y0, bool nested)
{
    const double pw = PANEL_W - PLOT_L - PLOT_R, ph = PANEL_H - PLOT_T - PLOT_B;
    const unsigned last = n_frames ? n_frames - 1 : 0;
    double lo, hi;
    value_range(s, &lo, &hi);
    const char *color = s->model ? "#1f5fbf" : "#b03a2e";
#define X(fr) (PLOT_L + (last ? (double)(fr) / last : 0.5) * pw)
#define Y(v) (PLOT_T + (hi - (v)) / (hi - lo) * ph)

    if (nested)
        fprintf(f, "<svg x=\"0\" y=\"%.0f\" width=\"%d\" height=\"%d\">\n", y0, PANEL_W, PANEL_H);
    else
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
                PANEL_W, PANEL_H, PANEL_W, PANEL_H);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            PANEL_W, PANEL_H);
    fprintf(f, "<text x=\"%d\" y=\"18\" font-family=\"sans-serif\" font-size=\"14\" "
            "font-weight=\"bold\">", PLOT_L);
    put_esc(f, s->label);
    fprintf(f, "</text>\n");
    /* frame of the plot and grid lines at a quarter of the range each */
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#f7f7f7\" "
            "stroke=\"#888888\"/>\n", PLOT_L, PLOT_T, pw, ph);
    for (int q = 0; q <= 4; q++) {
        const double v = hi - (hi - lo) * q / 4.0, y = Y(v);
        if (q && q < 4)
            fprintf(f, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" stroke=\"#dddddd\"/>\n",
                    PLOT_L, y, PLOT_L + pw, y);
        fprintf(f, "<text x=\"%d\" y=\"%.2f\" font-family=\"sans-serif\" font-size=\"11\" "
                "text-anchor=\"end\">%.6g</text>\n", PLOT_L - 6, y + 4, v);
    }
    const unsigned step = n_frames <= 10 ? 1 : (n_frames + 9) / 10;
    for (unsigned fr = 0; fr <= last; fr += step) {
        const double x = X(fr);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#888888\"/>\n",
                x, PLOT_T + ph, x, PLOT_T + ph + 4);
        fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\" "
                "text-anchor=\"middle\">%u</text>\n", x, PLOT_T + ph + 16, fr);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-family=\"sans-serif\" font-size=\"11\" "
            "text-anchor=\"middle\">frame</text>\n", PLOT_L + pw / 2, PANEL_H - 4);
    /* the curve: one polyline per run of finite values */
    bool open = false;
    for (unsigned i = 0; i < s->n; i++) {
        const double v = s->value[i];
        if (!isfinite(v)) {
            if (open) fprintf(f, "\"/>\n");
            open = false;
            continue;
        }
        if (!open)
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        fprintf(f, "%s%.2f,%.2f", open ? " " : "", X(s->frame[i]), Y(v));
        open = true;
    }
    if (open) fprintf(f, "\"/>\n");
    if (s->n == 1 && isfinite(s->value[0]))
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n",
                X(s->frame[0]), Y(s->value[0]), color);
    for (unsigned w = 0; w < n_worst; w++) {
        const double v = s->value[worst[w]];
        if (!isfinite(v)) continue;
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"none\" stroke=\"#d35400\" "
                "stroke-width=\"2\"><title>frame %u</title></circle>\n",
                X(s->frame[worst[w]]), Y(v), s->frame[worst[w]]);
    }
    fprintf(f, "</svg>\n");
#undef X
#undef Y
}

/* Indices (into s) of the n lowest values, lowest first, earlier frame first
 * among equals; a non-finite value counts as the lowest. */
static unsigned worst_frames(const Series *s, unsigned n, unsigned *out)
{
    if (n > s->n) n = s->n;
    bool *taken = calloc(s->n ? s->n : 1, sizeof(*taken));
    if (!taken) return 0;
    for (unsigned w = 0; w < n; w++) {
        int best = -1;
        for (unsigned i = 0; i < s->n; i++) {
            if (taken[i]) continue;
            if (best < 0) { best = (int)i; continue; }
            const double a = s->value[i], b = s->value[best];
            if ((!isfinite(a) && isfinite(b)) || (isfinite(a) && isfinite(b) && a < b))
                best = (int)i;
        }
        taken[best] = true;
        out[w] = (unsigned)best;
    }
    free(taken);
    return n;
}

static const char *const pool_names[] = { NULL, "min", "max", "mean", "harmonic_mean" };

static void put_html_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    put_esc(f, title);
    fprintf(f, "</title>\n<style>\n"
            "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}\n"
            "table{border-collapse:collapse;margin:8px 0 16px}\n"
            "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
            "td.num{text-align:right;font-family:monospace}\n"
            "section.panel{margin:16px 0}\n"
            "svg.plot{display:block;max-width:100%%;height:auto}\n"
            "</style>\n</head>\n<body>\n<h1>");
    put_esc(f, title);
    fprintf(f, "</h1>\n");
}

static void put_settings(FILE *f, const TvmafReportConfig *cfg, TvmafContext *ctx,
                         unsigned n_frames)
{
    fprintf(f, "<h2>Settings</h2>\n<table class=\"settings\">\n");
    fprintf(f, "<tr><th>tvmaf</th><td data-setting=\"version\">");
    put_esc(f, tvmaf_version());
    fprintf(f, "</td></tr>\n");
    for (const char *const *s = cfg->settings; s && s[0] && s[1]; s += 2) {
        fprintf(f, "<tr><th>");
        put_esc(f, s[0]);
        fprintf(f, "</th><td data-setting=\"");
        put_esc(f, s[0]);
        fprintf(f, "\">");
        put_esc(f, s[1]);
        fprintf(f, "</td></tr>\n");
    }
    /* where each extractor ran */
    fprintf(f, "<tr><th>extractors</th><td data-setting=\"extractors\">");
    bool first = true;
    for (unsigned i = 0; i < tvmaf_feature_count(); i++) {
        const char *b = tvmaf_feature_backend(ctx, tvmaf_feature_name(i));
        if (!b) continue;
        fprintf(f, "%s", first ? "" : ", ");
        put_esc(f, tvmaf_feature_name(i));
        fprintf(f, " (");
        put_esc(f, b);
        fprintf(f, ")");
        first = false;
    }
    fprintf(f, "</td></tr>\n");
    fprintf(f, "<tr><th>frames</th><td data-setting=\"frames\">%u</td></tr>\n", n_frames);
    fprintf(f, "</table>\n");
}

static void put_pooled(FILE *f, TvmafContext *ctx, const Series *s, unsigned n_series,
                       unsigned n_frames, int precision)
{
    fprintf(f, "<h2>Pooled values</h2>\n<table class=\"pooled\">\n<tr><th>metric</th>");
    for (int m = TVMAF_POOL_MIN; m <= TVMAF_POOL_HARMONIC_MEAN; m++)
        fprintf(f, "<th>%s</th>", pool_names[m]);
    fprintf(f, "</tr>\n");
    for (unsigned k = 0; k < n_series; k++) {
        fprintf(f, "<tr><th>");
        put_esc(f, s[k].label);
        fprintf(f, "</th>");
        for (int m = TVMAF_POOL_MIN; m <= TVMAF_POOL_HARMONIC_MEAN; m++) {
            double v;
            if (!n_frames ||
                tvmaf_feature_score_pooled(ctx, s[k].key, m, &v, 0, n_frames - 1)) {
                fprintf(f, "<td></td>");
                continue;
            }
            fprintf(f, "<td class=\"num\" data-key=\"");
            put_esc(f, s[k].label);
            fprintf(f, "\" data-pool=\"%s\">", pool_names[m]);
            put_score(f, v, precision);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    const unsigned n_agg = tvmaf_aggregate_count(ctx);
    if (!n_agg) return;
    fprintf(f, "<h2>Aggregate values</h2>\n<table class=\"aggregate\">\n");
    for (unsigned i = 0; i < n_agg; i++) {
        const char *key = tvmaf_aggregate_key(ctx, i);
        double v;
        if (tvmaf_aggregate_score(ctx, key, &v)) continue;
        fprintf(f, "<tr><th>");
        put_esc(f, key);
        fprintf(f, "</th><td class=\"num\" data-aggregate=\"");
        put_esc(f, key);
        fprintf(f, "\">");
        put_score(f, v, precision);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* The per-frame values of one key, folded away (a <details> needs no script). */
static void put_frames_table(FILE *f, const Series *s, int precision)
{
    fprintf(f, "<details><summary>per-frame values (%u)</summary>\n<table class=\"frames\">\n"
            "<tr><th>frame</th><th>", s->n);
    put_esc(f, s->label);
    fprintf(f, "</th></tr>\n");
    for (unsigned i = 0; i < s->n; i++) {
        fprintf(f, "<tr><td>%u</td><td class=\"num\" data-key=\"", s->frame[i]);
        put_esc(f, s->label);
        fprintf(f, "\" data-frame=\"%u\">", s->frame[i]);
        put_score(f, s->value[i], precision);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n</details>\n");
}

static void put_worst_table(FILE *f, const Series *s, const unsigned *worst, unsigned n,
                            int precision)
{
    fprintf(f, "<p>Lowest %u frame%s of ", n, n == 1 ? "" : "s");
    put_esc(f, s->label);
    fprintf(f, ":</p>\n<table class=\"worst\" data-key=\"");
    put_esc(f, s->label);
    fprintf(f, "\">\n<tr><th>rank</th><th>frame</th><th>");
    put_esc(f, s->label);
    fprintf(f, "</th></tr>\n");
    for (unsigned w = 0; w < n; w++) {
        const unsigned i = worst[w];
        fprintf(f, "<tr><td>%u</td><td>%u</td><td class=\"num\" data-key=\"", w + 1, s->frame[i]);
        put_esc(f, s->label);
        fprintf(f, "\" data-worst=\"%u\" data-frame=\"%u\">", w + 1, s->frame[i]);
        put_score(f, s->value[i], precision);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

int tvmaf_write_report(TvmafContext *ctx, FILE *out, enum TvmafReportFormat fmt,
                       const TvmafReportConfig *cfg)
{
    const TvmafReportConfig none = { 0 };
    if (!cfg) cfg = &none;
    if (!ctx || !out || cfg->precision < 0 || cfg->precision > 17) return -EINVAL;
    if (fmt != TVMAF_REPORT_HTML && fmt != TVMAF_REPORT_SVG) return -EINVAL;
    const char *title = cfg->title ? cfg->title : "tvmaf report";
    const unsigned n_frames = tvmaf_frame_count(ctx);
    const unsigned n_keys = tvmaf_score_key_count(ctx);
    const unsigned n_worst_max = cfg->n_worst ? cfg->n_worst : 10;

    /* models first (in the caller's order), then every other key in the
     * outputs' order */
    Series *s = calloc(n_keys ? n_keys : 1, sizeof(*s));
    unsigned *worst = malloc(sizeof(*worst) * (n_worst_max < n_frames ? n_worst_max : n_frames ? n_frames : 1));
    int err = s && worst ? 0 : -ENOMEM;
    unsigned n = 0;
    for (int pass = 0; pass < 2 && !err; pass++) {
        for (unsigned k = 0; k < n_keys && !err; k++) {
            const char *key = tvmaf_score_key(ctx, k);
            const bool model = is_model(cfg, key);
            if (model != (pass == 0)) continue;
            err = load_series(ctx, key, tvmaf_score_key_label(ctx, k), model, &s[n++]);
        }
    }
    if (err) goto end;

    if (fmt == TVMAF_REPORT_SVG) {
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
                "viewBox=\"0 0 %d %u\">\n<title>", PANEL_W, PANEL_H * n, PANEL_W, PANEL_H * n);
        put_esc(out, title);
        fprintf(out, "</title>\n");
        for (unsigned k = 0; k < n; k++) {
            const unsigned nw = s[k].model ? worst_frames(&s[k], n_worst_max, worst) : 0;
            put_panel(out, &s[k], n_frames, worst, nw, (double)PANEL_H * k, true);
        }
        fprintf(out, "</svg>\n");
    } else {
        put_html_head(out, title);
        put_settings(out, cfg, ctx, n_frames);
        put_pooled(out, ctx, s, n, n_frames, cfg->precision);
        fprintf(out, "<h2>Per-frame values</h2>\n");
        for (unsigned k = 0; k < n; k++) {
            const unsigned nw = s[k].model ? worst_frames(&s[k], n_worst_max, worst) : 0;
            fprintf(out, "<section class=\"panel\" data-key=\"");
            put_esc(out, s[k].label);
            fprintf(out, "\">\n<h3>");
            put_esc(out, s[k].label);
            fprintf(out, "%s</h3>\n", s[k].model ? " (model)" : "");
            put_panel(out, &s[k], n_frames, worst, nw, 0, false);
            if (nw) put_worst_table(out, &s[k], worst, nw, cfg->precision);
            put_frames_table(out, &s[k], cfg->precision);
            fprintf(out, "</section>\n");
        }
        fprintf(out, "</body>\n</html>\n");
    }
    /* the stream's own error (a full disk, a file size limit), not a generic one */
    errno = 0;
    const int flush_err = fflush(out) ? errno : 0;
    err = ferror(out) ? -(flush_err ? flush_err : EIO) : 0;
end:
    for (unsigned k = 0; k < n; k++) {
        free(s[k].frame);
        free(s[k].value);
    }
    free(s);
    free(worst);
    return err;
}
