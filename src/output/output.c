/*
 * XML, JSON, CSV and SUB writers with libvmaf's layout, key order and number
 * printing. Default printing is libvmaf's ("%.6f", or "%.16f" where the value
 * has more than six leading zeros after the point); precision N prints "%.Ng".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/feature_name.h"
#include "core/internal.h"
#include "output/number.h"

static void put_num(FILE *f, double v, int precision)
{
    tvmaf_put_num(f, v, precision);
}

typedef struct Writer {
    TvmafContext *ctx;
    TvmafCollector *c;
    unsigned n_keys, n_frames, sub;
    int precision;
} Writer;

/* Frames with at least one value, on the subsample grid. */
static unsigned frame_values(const Writer *w, unsigned i)
{
    if (w->sub > 1 && i % w->sub) return 0;
    unsigned cnt = 0;
    double v;
    for (unsigned k = 0; k < w->n_keys; k++)
        cnt += tvmaf_collector_get(w->c, k, i, &v);
    return cnt;
}

static const char *pool_name[] = { NULL, "min", "max", "mean", "harmonic_mean" };

static void write_xml(const Writer *w, FILE *f, double fps, unsigned width, unsigned height)
{
    fprintf(f, "<VMAF version=\"%s\">\n", tvmaf_version());
    fprintf(f, "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n", width, height);
    fprintf(f, "  <fyi fps=\"%.2f\" />\n", fps);
    fprintf(f, "  <frames>\n");
    for (unsigned i = 0; i < w->n_frames; i++) {
        if (!frame_values(w, i)) continue;
        fprintf(f, "    <frame frameNum=\"%u\" ", i);
        for (unsigned k = 0; k < w->n_keys; k++) {
            double v;
            if (!tvmaf_collector_get(w->c, k, i, &v)) continue;
            fprintf(f, "%s=\"", tvmaf_feature_alias(tvmaf_collector_key(w->c, k)));
            put_num(f, v, w->precision);
            fprintf(f, "\" ");
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </frames>\n");
    fprintf(f, "  <pooled_metrics>\n");
    for (unsigned k = 0; k < w->n_keys; k++) {
        const char *key = tvmaf_collector_key(w->c, k);
        fprintf(f, "    <metric name=\"%s\" ", tvmaf_feature_alias(key));
        for (int m = TVMAF_POOL_MIN; m <= TVMAF_POOL_HARMONIC_MEAN; m++) {
            double s;
            if (!w->n_frames ||
                tvmaf_feature_score_pooled(w->ctx, key, m, &s, 0, w->n_frames - 1)) continue;
            fprintf(f, "%s=\"", pool_name[m]);
            put_num(f, s, w->precision);
            fprintf(f, "\" ");
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </pooled_metrics>\n");
    fprintf(f, "  <aggregate_metrics ");
    for (unsigned i = 0; i < tvmaf_collector_aggregate_count(w->c); i++) {
        fprintf(f, "%s=\"", tvmaf_collector_aggregate_key(w->c, i));
        put_num(f, tvmaf_collector_aggregate_value(w->c, i), w->precision);
        fprintf(f, "\" ");
    }
    fprintf(f, "/>\n");
    fprintf(f, "</VMAF>\n");
}

/* JSON has no inf or NaN: libvmaf writes null. */
static void put_json_num(FILE *f, double v, int precision)
{
    if (isfinite(v)) put_num(f, v, precision);
    else fprintf(f, "null");
}

static void write_json(const Writer *w, FILE *f, double fps)
{
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", tvmaf_version());
    if (isfinite(fps)) fprintf(f, "  \"fps\": %.2f,\n", fps);
    else fprintf(f, "  \"fps\": null,\n");
    fprintf(f, "  \"frames\": [");
    bool first_frame = true;
    for (unsigned i = 0; i < w->n_frames; i++) {
        const unsigned cnt = frame_values(w, i);
        if (!cnt) continue;
        fprintf(f, "%s", first_frame ? "\n" : ",\n");
        first_frame = false;
        fprintf(f, "    {\n");
        fprintf(f, "      \"frameNum\": %u,\n", i);
        fprintf(f, "      \"metrics\": {\n");
        unsigned n = 0;
        for (unsigned k = 0; k < w->n_keys; k++) {
            double v;
            if (!tvmaf_collector_get(w->c, k, i, &v)) continue;
            n++;
            fprintf(f, "        \"%s\": ", tvmaf_feature_alias(tvmaf_collector_key(w->c, k)));
            put_json_num(f, v, w->precision);
            fprintf(f, "%s\n", n < cnt ? "," : "");
        }
        fprintf(f, "      }\n");
        fprintf(f, "    }");
    }
    fprintf(f, "\n  ],\n");
    fprintf(f, "  \"pooled_metrics\": {");
    for (unsigned k = 0; k < w->n_keys; k++) {
        const char *key = tvmaf_collector_key(w->c, k);
        fprintf(f, "%s", k ? ",\n" : "\n");
        fprintf(f, "    \"%s\": {", tvmaf_feature_alias(key));
        bool first = true;
        for (int m = TVMAF_POOL_MIN; m <= TVMAF_POOL_HARMONIC_MEAN; m++) {
            double s;
            if (!w->n_frames ||
                tvmaf_feature_score_pooled(w->ctx, key, m, &s, 0, w->n_frames - 1)) continue;
            fprintf(f, "%s", first ? "\n" : ",\n");
            first = false;
            fprintf(f, "      \"%s\": ", pool_name[m]);
            put_json_num(f, s, w->precision);
        }
        fprintf(f, "\n");
        fprintf(f, "    }");
    }
    fprintf(f, "\n  },\n");
    fprintf(f, "  \"aggregate_metrics\": {");
    const unsigned n_agg = tvmaf_collector_aggregate_count(w->c);
    for (unsigned i = 0; i < n_agg; i++) {
        fprintf(f, "\n    \"%s\": ", tvmaf_collector_aggregate_key(w->c, i));
        put_json_num(f, tvmaf_collector_aggregate_value(w->c, i), w->precision);
        fprintf(f, "%s", i + 1 < n_agg ? "," : "");
    }
    fprintf(f, "\n  }\n");
    fprintf(f, "}\n");
}

static void write_csv(const Writer *w, FILE *f)
{
    fprintf(f, "Frame,");
    for (unsigned k = 0; k < w->n_keys; k++)
        fprintf(f, "%s,", tvmaf_feature_alias(tvmaf_collector_key(w->c, k)));
    fprintf(f, "\n");
    for (unsigned i = 0; i < w->n_frames; i++) {
        if (!frame_values(w, i)) continue;
        fprintf(f, "%u,", i);
        for (unsigned k = 0; k < w->n_keys; k++) {
            double v;
            if (!tvmaf_collector_get(w->c, k, i, &v)) continue;
            put_num(f, v, w->precision);
            fprintf(f, ",");
        }
        fprintf(f, "\n");
    }
}

static void write_sub(const Writer *w, FILE *f)
{
    for (unsigned i = 0; i < w->n_frames; i++) {
        if (!frame_values(w, i)) continue;
        fprintf(f, "{%u}{%u}frame: %u|", i, i + 1, i);
        for (unsigned k = 0; k < w->n_keys; k++) {
            double v;
            if (!tvmaf_collector_get(w->c, k, i, &v)) continue;
            fprintf(f, "%s: ", tvmaf_feature_alias(tvmaf_collector_key(w->c, k)));
            put_num(f, v, w->precision);
            fprintf(f, "|");
        }
        fprintf(f, "\n");
    }
}

int tvmaf_write_output(TvmafContext *ctx, FILE *out, enum TvmafOutputFormat fmt,
                       int precision, double fps, unsigned width, unsigned height)
{
    if (!ctx || !out || precision < 0 || precision > 17) return -EINVAL;
    tvmaf_context_wait_idle(ctx); /* no frame in flight appends while the keys are read */
    Writer w = {
        .ctx = ctx,
        .c = tvmaf_context_collector(ctx),
        .n_frames = tvmaf_context_pic_count(ctx),
        .sub = tvmaf_context_subsample(ctx),
        .precision = precision,
    };
    w.n_keys = tvmaf_collector_key_count(w.c);
    switch (fmt) {
    case TVMAF_OUTPUT_XML: write_xml(&w, out, fps, width, height); break;
    case TVMAF_OUTPUT_JSON: write_json(&w, out, fps); break;
    case TVMAF_OUTPUT_CSV: write_csv(&w, out); break;
    case TVMAF_OUTPUT_SUB: write_sub(&w, out); break;
    default: return -EINVAL;
    }
    /* the stream's own error (a full disk, a file size limit), not a generic one */
    errno = 0;
    const int flush_err = fflush(out) ? errno : 0;
    return ferror(out) ? -(flush_err ? flush_err : EIO) : 0;
}
