/*
 * Batch manifests: CSV with a header, or JSON lines (manifest.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "manifest.h"

enum Column { COL_REF, COL_DIS, COL_OUTPUT, COL_WIDTH, COL_HEIGHT, COL_PIX_FMT, COL_BITDEPTH,
              COL_MODEL, N_COLUMNS };

/* Each column's names: the first is the one messages use. */
static const char *const column_names[N_COLUMNS][4] = {
    [COL_REF] = { "ref", "reference", NULL },
    [COL_DIS] = { "dis", "distorted", NULL },
    [COL_OUTPUT] = { "output", "out", NULL },
    [COL_WIDTH] = { "width", "w", NULL },
    [COL_HEIGHT] = { "height", "h", NULL },
    [COL_PIX_FMT] = { "pix_fmt", "pixel_format", "p", NULL },
    [COL_BITDEPTH] = { "bitdepth", "b", NULL },
    [COL_MODEL] = { "model", "m", NULL },
};

void manifest_escape(char *out, size_t len, const char *text)
{
    /* invisible in a terminal: control bytes, bytes that are not UTF-8 and
     * the characters that print as nothing or as a space (no-break and
     * zero-width spaces, the joiners, directional marks, the BOM) */
    static const unsigned invisible[] = { 0xa0, 0xad, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
                                          0x2028, 0x2029, 0x202f, 0x2060, 0xfeff };
    const unsigned char *s = (const unsigned char *)text;
    size_t o = 0;
    while (*s && o + 11 < len) {
        unsigned n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3
                   : (*s & 0xf8) == 0xf0 ? 4 : 0;
        unsigned v = n == 1 ? *s : n ? *s & (0x7f >> n) : 0;
        for (unsigned i = 1; i < n; i++) {
            if ((s[i] & 0xc0) != 0x80) { n = 0; break; }
            v = (v << 6) | (s[i] & 0x3f);
        }
        int hide = !n || v < 0x20 || v == 0x7f || (v >= 0x80 && v < 0xa0);
        for (size_t k = 0; k < sizeof(invisible) / sizeof(invisible[0]); k++)
            hide |= v == invisible[k];
        if (!hide) {
            memcpy(out + o, s, n);
            o += n;
        } else if (n > 1) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04X", v);
        } else {
            o += (size_t)snprintf(out + o, len - o, "\\x%02X", *s);
        }
        s += n ? n : 1;
    }
    out[o] = '\0';
}

static int column_of(const char *name)
{
    for (int c = 0; c < N_COLUMNS; c++)
        for (int k = 0; column_names[c][k]; k++)
            if (!strcmp(column_names[c][k], name)) return c;
    return -1;
}

enum TvmafPixelFormat manifest_pix_fmt(const char *s)
{
    static const struct { const char *a, *b; enum TvmafPixelFormat f; } t[] = {
        { "420", "yuv420p", TVMAF_PIX_FMT_YUV420P }, { "422", "yuv422p", TVMAF_PIX_FMT_YUV422P },
        { "444", "yuv444p", TVMAF_PIX_FMT_YUV444P }, { "400", "gray", TVMAF_PIX_FMT_YUV400P },
    };
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(s, t[i].a) || !strcmp(s, t[i].b)) return t[i].f;
    return TVMAF_PIX_FMT_UNKNOWN;
}

static void row_error(ManifestEntry *e, const char *fmt, ...)
{
    if (e->error[0]) return; /* the first problem of the row */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->error, sizeof(e->error), fmt, ap);
    va_end(ap);
}

/* `path` as the manifest means it: relative to the manifest's folder. */
static char *resolve(const char *dir, const char *path)
{
    if (!*dir || path[0] == '/') return strdup(path);
    const size_t n = strlen(dir) + strlen(path) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", dir, path);
    return s;
}

/* A value of column c, as text, into the entry. */
static void set_value(ManifestEntry *e, int c, const char *v, const char *dir)
{
    if (!*v) return; /* empty: not given */
    switch (c) {
    case COL_REF: case COL_DIS: case COL_OUTPUT: {
        if (!strcmp(v, "-")) {
            row_error(e, "%s \"-\": a batch reads no input from stdin and writes no scores "
                      "to stdout", column_names[c][0]);
            return;
        }
        char *p = resolve(dir, v);
        if (!p) { row_error(e, "out of memory"); return; }
        char **slot = c == COL_REF ? &e->ref : c == COL_DIS ? &e->dis : &e->output;
        free(*slot);
        *slot = p;
        return;
    }
    case COL_WIDTH: case COL_HEIGHT: case COL_BITDEPTH: {
        char *end;
        errno = 0;
        const unsigned long x = strtoul(v, &end, 10);
        const unsigned long max = c == COL_BITDEPTH ? 16 : 65536;
        if (errno || end == v || *end || v[0] == '-' || x < 1 || x > max ||
            (c == COL_BITDEPTH && x != 8 && x != 10 && x != 12 && x != 16)) {
            row_error(e, "%s \"%s\" is not %s", column_names[c][0], v,
                      c == COL_BITDEPTH ? "8, 10, 12 or 16" : "an integer in [1, 65536]");
            return;
        }
        if (c == COL_WIDTH) e->w = (unsigned)x;
        else if (c == COL_HEIGHT) e->h = (unsigned)x;
        else e->bpc = (unsigned)x;
        return;
    }
    case COL_PIX_FMT:
        e->pix_fmt = manifest_pix_fmt(v);
        if (!e->pix_fmt) row_error(e, "pix_fmt \"%s\" is not 420, 422, 444 or 400", v);
        return;
    case COL_MODEL:
        free(e->models);
        if (!(e->models = strdup(v))) row_error(e, "out of memory");
        return;
    }
}

static void check_row(ManifestEntry *e)
{
    if (!e->ref) row_error(e, "no ref (reference input)");
    if (!e->dis) row_error(e, "no dis (distorted input)");
}

/* Splits one CSV line into fields (RFC 4180 quoting: "a,b" and "" for a
 * quote). Returns the number of fields, or -1 with a quote left open. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *r = line;
    for (;;) {
        char *w = r, *start = r;
        if (*r == '"') {
            r++;
            for (;;) {
                if (!*r) return -1;
                if (*r == '"' && r[1] == '"') { *w++ = '"'; r += 2; continue; }
                if (*r == '"') { r++; break; }
                *w++ = *r++;
            }
            /* text after the closing quote, up to the comma, is kept */
            while (*r && *r != ',') *w++ = *r++;
        } else {
            while (*r && *r != ',') *w++ = *r++;
        }
        const char sep = *r;
        *w = '\0';
        if (n < max) fields[n] = start;
        n++;
        if (sep != ',') break;
        r++;
    }
    return n;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) *--e = '\0';
    return s;
}

static void json_row(ManifestEntry *e, const char *text, const char *dir)
{
    json_error_t jerr;
    json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!o || !json_is_object(o)) {
        if (o) row_error(e, "not a JSON object");
        else row_error(e, "bad JSON: %s (column %d)", jerr.text, jerr.column);
        json_decref(o);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        const int c = column_of(key);
        if (c < 0) {
            row_error(e, "unknown key \"%s\" (ref, dis, output, width, height, pix_fmt, "
                      "bitdepth, model)", key);
            break;
        }
        char num[32];
        if (json_is_string(v)) {
            set_value(e, c, json_string_value(v), dir);
        } else if (json_is_integer(v) && (c == COL_WIDTH || c == COL_HEIGHT ||
                                          c == COL_BITDEPTH || c == COL_PIX_FMT)) {
            snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
            set_value(e, c, num, dir);
        } else if (json_is_array(v) && c == COL_MODEL) {
            /* several -m arguments, joined as the CSV column holds them */
            size_t i, len = 1;
            json_t *m;
            json_array_foreach(v, i, m) {
                if (!json_is_string(m)) break;
                len += strlen(json_string_value(m)) + 1;
            }
            if (i != json_array_size(v) || !i) {
                row_error(e, "model: expected a string or an array of strings");
                break;
            }
            char *joined = calloc(1, len);
            if (!joined) { row_error(e, "out of memory"); break; }
            json_array_foreach(v, i, m) {
                if (i) strcat(joined, ";");
                strcat(joined, json_string_value(m));
            }
            set_value(e, c, joined, dir);
            free(joined);
        } else if (!json_is_null(v)) {
            row_error(e, "%s: expected a %s", key,
                      c == COL_WIDTH || c == COL_HEIGHT || c == COL_BITDEPTH ? "number"
                      : c == COL_MODEL ? "string or an array of strings" : "string");
            break;
        }
    }
    json_decref(o);
}

int manifest_read(const char *path, ManifestEntry **entries, unsigned *n_out, char *msg,
                  size_t msg_len)
{
    *entries = NULL;
    *n_out = 0;
    const int from_stdin = !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(msg, msg_len, "cannot open the manifest \"%s\": %s", path, strerror(errno));
        return -errno;
    }
    /* the manifest's folder: where its relative paths start */
    char dir[4096] = "";
    const char *slash = from_stdin ? NULL : strrchr(path, '/');
    if (slash) snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);

    ManifestEntry *e = NULL;
    unsigned n = 0, cap = 0, lineno = 0;
    int columns[N_COLUMNS + 64];
    int n_columns = -1; /* CSV: the header's; -1 before it */
    int json = -1;      /* told from the first row */
    int err = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, f)) >= 0) {
        lineno++;
        /* a UTF-8 byte-order mark (spreadsheets write one) is not part of the text */
        if (lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
            memmove(line, line + 3, (size_t)len - 2);
            len -= 3;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (strlen(line) != (size_t)len) {
            snprintf(msg, msg_len, "%s:%u: a NUL byte: the manifest is not text", path, lineno);
            err = -EINVAL;
            break;
        }
        char *s = trim(line);
        if (!*s || *s == '#') continue;
        if (json < 0) json = *s == '{';
        if (!json && n_columns < 0) {
            /* the header */
            char *fields[N_COLUMNS + 64];
            const int nf = csv_split(s, fields, N_COLUMNS + 64);
            if (nf < 0 || nf > N_COLUMNS + 64) {
                snprintf(msg, msg_len, "%s:%u: bad header row", path, lineno);
                err = -EINVAL;
                break;
            }
            int seen[N_COLUMNS] = { 0 };
            for (int i = 0; i < nf && !err; i++) {
                const char *name = trim(fields[i]);
                columns[i] = column_of(name);
                if (columns[i] < 0) {
                    char shown[256];
                    manifest_escape(shown, sizeof(shown), name);
                    snprintf(msg, msg_len, "%s:%u: unknown column \"%s\" in the header (ref, dis, "
                             "output, width, height, pix_fmt, bitdepth, model)", path, lineno, shown);
                    err = -EINVAL;
                } else if (seen[columns[i]]++) {
                    snprintf(msg, msg_len, "%s:%u: column \"%s\" appears twice in the header",
                             path, lineno, column_names[columns[i]][0]);
                    err = -EINVAL;
                }
            }
            if (!err && (!seen[COL_REF] || !seen[COL_DIS])) {
                snprintf(msg, msg_len, "%s:%u: the header must name the columns ref and dis "
                         "(a CSV manifest starts with a header row such as ref,dis,output)",
                         path, lineno);
                err = -EINVAL;
            }
            if (err) break;
            n_columns = nf;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            ManifestEntry *ne = realloc(e, cap * sizeof(*e));
            if (!ne) { snprintf(msg, msg_len, "out of memory reading the manifest"); err = -ENOMEM; break; }
            e = ne;
        }
        ManifestEntry *r = &e[n++];
        memset(r, 0, sizeof(*r));
        r->line = lineno;
        if (json) {
            if (*s != '{') row_error(r, "not a JSON object (a JSON-lines manifest has one per line)");
            else json_row(r, s, dir);
        } else {
            char *fields[N_COLUMNS + 64];
            const int nf = csv_split(s, fields, N_COLUMNS + 64);
            if (nf < 0) {
                row_error(r, "a quoted field is not closed");
            } else if (nf != n_columns) {
                row_error(r, "%d field%s, the header has %d", nf, nf == 1 ? "" : "s", n_columns);
            } else {
                for (int i = 0; i < nf; i++) set_value(r, columns[i], trim(fields[i]), dir);
            }
        }
        check_row(r);
    }
    if (!err && ferror(f)) {
        snprintf(msg, msg_len, "reading the manifest \"%s\" failed: %s", path, strerror(errno));
        err = -EIO;
    }
    free(line);
    if (!from_stdin) fclose(f);
    if (!err && !n) {
        snprintf(msg, msg_len, "the manifest \"%s\" holds no pair%s", path,
                 n_columns >= 0 ? " (only a header)" : "");
        err = -EINVAL;
    }
    if (err) {
        manifest_free(e, n);
        return err;
    }
    *entries = e;
    *n_out = n;
    return 0;
}

void manifest_free(ManifestEntry *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(e[i].ref);
        free(e[i].dis);
        free(e[i].output);
        free(e[i].models);
    }
    free(e);
}
