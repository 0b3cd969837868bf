/*
 * The report's inputs: a small JSON reader that keeps every number's literal
 * text, the libvmaf-format output and the sidecar read into a RepEncode, the
 * lowest frames and the ladders' BD-rates (report_doc.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/report_doc.h"

/* JSON -------------------------------------------------------------------- */

typedef struct Block {
    struct Block *next;
    size_t used, size;
    max_align_t data[];
} Block;

struct RJsonDoc {
    Block *blocks;
    RJson root;
};

typedef struct Parser {
    RJsonDoc *d;
    const char *s, *end, *start;
    char *msg;
    size_t msg_len;
    int failed;
    unsigned depth;
} Parser;

static void *arena(RJsonDoc *d, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    Block *b = d->blocks;
    if (!b || b->size - b->used < n) {
        const size_t size = n > ((size_t)1 << 20) ? n : (size_t)1 << 20;
        Block *nb = malloc(sizeof(*nb) + size);
        if (!nb) return NULL;
        nb->next = d->blocks;
        nb->used = 0;
        nb->size = size;
        d->blocks = b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

static unsigned line_of(const Parser *p)
{
    unsigned line = 1;
    for (const char *c = p->start; c < p->s && c < p->end; c++) line += *c == '\n';
    return line;
}

static void fail(Parser *p, const char *what)
{
    if (p->failed) return;
    p->failed = 1;
    snprintf(p->msg, p->msg_len, "not valid JSON: %s at line %u", what, line_of(p));
}

static void skip_ws(Parser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static int hex4(const char *s, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        const char c = s[i];
        *v <<= 4;
        if (c >= '0' && c <= '9') *v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') *v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') *v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static const char *parse_string(Parser *p)
{
    const char *s = ++p->s; /* past the quote */
    size_t n = 0;
    while (s < p->end && *s != '"') {
        if (*s == '\\') s++;
        s++;
        n++;
    }
    if (s >= p->end) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = arena(p->d, n * 4 + 1), *o = out;
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    while (*p->s != '"') {
        /* a control character is taken as it is: the outputs write a key (a
         * model's name) as given, and the page escapes what it prints */
        unsigned char c = (unsigned char)*p->s++;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        c = (unsigned char)*p->s++;
        switch (c) {
        case '"': case '\\': case '/': *o++ = (char)c; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (p->end - p->s < 4 || hex4(p->s, &cp)) {
                fail(p, "bad \\u escape");
                return NULL;
            }
            p->s += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' &&
                p->s[1] == 'u' && !hex4(p->s + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p->s += 6;
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd;
            }
            o += put_utf8(o, cp);
            break;
        }
        default:
            fail(p, "bad escape");
            return NULL;
        }
    }
    p->s++;
    *o = '\0';
    return out;
}

static int parse_value(Parser *p, RJson *v);

static int parse_number(Parser *p, RJson *v)
{
    const char *s = p->s;
    if (s < p->end && *s == '-') s++;
    if (s >= p->end || *s < '0' || *s > '9') { fail(p, "unexpected character"); return -1; }
    if (*s == '0') s++;
    else while (s < p->end && *s >= '0' && *s <= '9') s++;
    if (s < p->end && *s == '.') {
        s++;
        if (s >= p->end || *s < '0' || *s > '9') { fail(p, "bad number"); return -1; }
        while (s < p->end && *s >= '0' && *s <= '9') s++;
    }
    if (s < p->end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < p->end && (*s == '+' || *s == '-')) s++;
        if (s >= p->end || *s < '0' || *s > '9') { fail(p, "bad number"); return -1; }
        while (s < p->end && *s >= '0' && *s <= '9') s++;
    }
    const size_t n = (size_t)(s - p->s);
    char *t = arena(p->d, n + 1);
    if (!t) { fail(p, "out of memory"); return -1; }
    memcpy(t, p->s, n);
    t[n] = '\0';
    v->type = RJ_NUM;
    v->text = t;
    v->num = strtod(t, NULL);
    p->s = s;
    return 0;
}

static int parse_container(Parser *p, RJson *v, int obj)
{
    if (++p->depth > 64) { fail(p, "nesting too deep"); return -1; }
    p->s++;
    size_t cap = 8, n = 0;
    RJson *items = malloc(sizeof(*items) * cap);
    const char **keys = obj ? malloc(sizeof(*keys) * cap) : NULL;
    int rc = -1;
    if (!items || (obj && !keys)) { fail(p, "out of memory"); goto end; }
    skip_ws(p);
    if (p->s < p->end && *p->s == (obj ? '}' : ']')) {
        p->s++;
    } else {
        for (;;) {
            if (n == cap) {
                cap *= 2;
                RJson *ni = realloc(items, sizeof(*items) * cap);
                if (ni) items = ni;
                const char **nk = obj ? realloc(keys, sizeof(*keys) * cap) : NULL;
                if (nk) keys = nk;
                if (!ni || (obj && !nk)) { fail(p, "out of memory"); goto end; }
            }
            skip_ws(p);
            if (obj) {
                if (p->s >= p->end || *p->s != '"') { fail(p, "expected a member name"); goto end; }
                if (!(keys[n] = parse_string(p))) goto end;
                skip_ws(p);
                if (p->s >= p->end || *p->s != ':') { fail(p, "expected ':'"); goto end; }
                p->s++;
            }
            if (parse_value(p, &items[n])) goto end;
            n++;
            skip_ws(p);
            if (p->s < p->end && *p->s == ',') { p->s++; continue; }
            if (p->s < p->end && *p->s == (obj ? '}' : ']')) { p->s++; break; }
            fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
            goto end;
        }
    }
    v->type = obj ? RJ_OBJ : RJ_ARR;
    v->n = (unsigned)n;
    v->item = arena(p->d, sizeof(*items) * (n ? n : 1));
    v->key = obj ? arena(p->d, sizeof(*keys) * (n ? n : 1)) : NULL;
    if (!v->item || (obj && !v->key)) { fail(p, "out of memory"); goto end; }
    memcpy(v->item, items, sizeof(*items) * n);
    if (obj) memcpy(v->key, keys, sizeof(*keys) * n);
    rc = 0;
end:
    free(items);
    free(keys);
    p->depth--;
    return rc;
}

static int literal(Parser *p, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n)) {
        fail(p, "unexpected character");
        return -1;
    }
    p->s += n;
    return 0;
}

static int parse_value(Parser *p, RJson *v)
{
    memset(v, 0, sizeof(*v));
    skip_ws(p);
    if (p->s >= p->end) { fail(p, "unexpected end"); return -1; }
    switch (*p->s) {
    case '{': return parse_container(p, v, 1);
    case '[': return parse_container(p, v, 0);
    case '"':
        v->type = RJ_STR;
        return (v->text = parse_string(p)) ? 0 : -1;
    case 't': v->type = RJ_BOOL; v->boolean = 1; return literal(p, "true");
    case 'f': v->type = RJ_BOOL; return literal(p, "false");
    case 'n': v->type = RJ_NULL; v->text = "null"; v->num = NAN; return literal(p, "null");
    default: return parse_number(p, v);
    }
}

void rjson_free(RJsonDoc *d)
{
    if (!d) return;
    for (Block *b = d->blocks, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(d);
}

RJsonDoc *rjson_parse(const char *text, size_t len, char *msg, size_t msg_len)
{
    RJsonDoc *d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(msg, msg_len, "out of memory");
        return NULL;
    }
    Parser p = { .d = d, .s = text, .end = text + len, .start = text, .msg = msg,
                 .msg_len = msg_len };
    if (!parse_value(&p, &d->root)) {
        skip_ws(&p);
        if (p.s != p.end) fail(&p, "text after the value");
    }
    if (p.failed) {
        rjson_free(d);
        return NULL;
    }
    return d;
}

const RJson *rjson_root(const RJsonDoc *d)
{
    return &d->root;
}

const RJson *rjson_get(const RJson *obj, const char *key)
{
    if (!obj || obj->type != RJ_OBJ) return NULL;
    for (unsigned i = 0; i < obj->n; i++)
        if (!strcmp(obj->key[i], key)) return &obj->item[i];
    return NULL;
}

const char *rjson_str(const RJson *obj, const char *key)
{
    const RJson *v = rjson_get(obj, key);
    return v && v->type == RJ_STR ? v->text : NULL;
}

char *rep_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        const size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) { free(buf); buf = NULL; errno = ENOMEM; break; }
        buf = nb;
    }
    const int bad = ferror(f);
    const int e = errno;
    fclose(f);
    if (buf && bad) {
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

/* The encode ------------------------------------------------------------- */

static const char *const pool_names[REP_POOLS] = { "min", "max", "mean", "harmonic_mean" };

int rep_key_index(const RepEncode *e, const char *name)
{
    for (unsigned k = 0; k < e->n_keys; k++)
        if (!strcmp(e->key[k], name)) return (int)k;
    return -1;
}

int rep_rank_key(const RepEncode *e)
{
    for (unsigned m = 0; m < e->n_models; m++) {
        const int k = rep_key_index(e, e->model[m].key);
        if (k >= 0) return k;
    }
    /* no sidecar: libvmaf's model key, if there */
    const int k = rep_key_index(e, "vmaf");
    if (k >= 0) return k;
    return e->n_keys ? 0 : -1;
}

unsigned rep_lowest(const RepEncode *e, unsigned k, unsigned n, unsigned *rows)
{
    unsigned have = 0;
    const double *v = e->val + (size_t)k * e->n_frames;
    const char *const *t = e->txt + (size_t)k * e->n_frames;
    /* a selection kept sorted: n is small */
    for (unsigned i = 0; i < e->n_frames; i++) {
        if (!t[i]) continue;
        const double x = isnan(v[i]) ? -INFINITY : v[i];
        unsigned pos = have;
        while (pos > 0) {
            const double y = isnan(v[rows[pos - 1]]) ? -INFINITY : v[rows[pos - 1]];
            if (y <= x) break;
            pos--;
        }
        if (pos >= n) continue;
        const unsigned last = have < n ? have : n - 1;
        memmove(rows + pos + 1, rows + pos, sizeof(*rows) * (last - pos));
        rows[pos] = i;
        if (have < n) have++;
    }
    return have;
}

static int bad_format(char *msg, size_t msg_len, const char *origin, const char *why)
{
    snprintf(msg, msg_len, "%s: not a libvmaf JSON output (%s); tvmaf report reads the "
             "output of a run with --json (or -o FILE.json)", origin, why);
    return -1;
}

/* The key's index, added when new. */
static int key_slot(RepEncode *e, const char *name, unsigned *cap, unsigned hint)
{
    if (hint < e->n_keys && !strcmp(e->key[hint], name)) return (int)hint;
    for (unsigned k = 0; k < e->n_keys; k++)
        if (!strcmp(e->key[k], name)) return (int)k;
    if (e->n_keys == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        const char **nk = realloc(e->key, sizeof(*nk) * *cap);
        if (!nk) return -1;
        e->key = nk;
    }
    e->key[e->n_keys] = name;
    return (int)e->n_keys++;
}

static int load_output(RepEncode *e, const char *origin, char *msg, size_t msg_len)
{
    const RJson *root = rjson_root(e->json);
    if (root->type != RJ_OBJ) return bad_format(msg, msg_len, origin, "not a JSON object");
    const RJson *frames = rjson_get(root, "frames");
    const RJson *pooled = rjson_get(root, "pooled_metrics");
    if (!frames || frames->type != RJ_ARR)
        return bad_format(msg, msg_len, origin, "no \"frames\" array");
    if (!pooled || pooled->type != RJ_OBJ)
        return bad_format(msg, msg_len, origin, "no \"pooled_metrics\" object");
    e->version = rjson_str(root, "version");
    const RJson *fps = rjson_get(root, "fps");
    e->fps = fps && (fps->type == RJ_NUM || fps->type == RJ_NULL) ? fps->text : NULL;
    e->n_frames = frames->n;
    /* the keys, in order of first appearance, then those pooled alone */
    unsigned cap = 0;
    for (unsigned i = 0; i < frames->n; i++) {
        const RJson *fr = &frames->item[i];
        const RJson *num = rjson_get(fr, "frameNum");
        const RJson *met = rjson_get(fr, "metrics");
        char why[128];
        if (fr->type != RJ_OBJ || !num || num->type != RJ_NUM || num->num < 0 ||
            num->num != floor(num->num) || num->num > 4e9 || !met || met->type != RJ_OBJ) {
            snprintf(why, sizeof(why), "frame %u has no frameNum and metrics", i);
            return bad_format(msg, msg_len, origin, why);
        }
        if (i && num->num <= (double)e->frame[i - 1]) {
            snprintf(why, sizeof(why), "frame %u's frameNum does not follow the previous one", i);
            return bad_format(msg, msg_len, origin, why);
        }
        if (!i) {
            e->frame = malloc(sizeof(*e->frame) * frames->n);
            e->frame_num = malloc(sizeof(*e->frame_num) * frames->n);
            if (!e->frame || !e->frame_num) goto oom;
        }
        e->frame[i] = (unsigned)num->num;
        e->frame_num[i] = num->text;
        for (unsigned m = 0; m < met->n; m++) {
            if (met->item[m].type != RJ_NUM && met->item[m].type != RJ_NULL) {
                snprintf(why, sizeof(why), "frame %u's \"%.40s\" is not a number", i, met->key[m]);
                return bad_format(msg, msg_len, origin, why);
            }
            if (key_slot(e, met->key[m], &cap, m) < 0) goto oom;
        }
    }
    for (unsigned m = 0; m < pooled->n; m++) {
        if (pooled->item[m].type != RJ_OBJ)
            return bad_format(msg, msg_len, origin, "a pooled metric is not an object");
        if (key_slot(e, pooled->key[m], &cap, m) < 0) goto oom;
    }
    if (!e->n_keys) return bad_format(msg, msg_len, origin, "no score in it");
    const size_t cells = (size_t)e->n_keys * (e->n_frames ? e->n_frames : 1);
    e->txt = calloc(cells, sizeof(*e->txt));
    e->val = malloc(sizeof(*e->val) * cells);
    e->pool = calloc(e->n_keys, sizeof(*e->pool));
    e->poolv = malloc(sizeof(*e->poolv) * e->n_keys);
    if (!e->txt || !e->val || !e->pool || !e->poolv) goto oom;
    for (size_t c = 0; c < cells; c++) e->val[c] = NAN;
    for (unsigned i = 0; i < frames->n; i++) {
        const RJson *met = rjson_get(&frames->item[i], "metrics");
        for (unsigned m = 0; m < met->n; m++) {
            const int k = key_slot(e, met->key[m], &cap, m);
            e->txt[(size_t)k * e->n_frames + i] = met->item[m].text;
            e->val[(size_t)k * e->n_frames + i] = met->item[m].num;
        }
    }
    for (unsigned k = 0; k < e->n_keys; k++)
        for (unsigned p = 0; p < REP_POOLS; p++) e->poolv[k][p] = NAN;
    for (unsigned m = 0; m < pooled->n; m++) {
        const int k = key_slot(e, pooled->key[m], &cap, m);
        for (unsigned p = 0; p < REP_POOLS; p++) {
            const RJson *v = rjson_get(&pooled->item[m], pool_names[p]);
            if (!v) continue;
            if (v->type != RJ_NUM && v->type != RJ_NULL)
                return bad_format(msg, msg_len, origin, "a pooled value is not a number");
            e->pool[k][p] = v->text;
            e->poolv[k][p] = v->num;
        }
    }
    const RJson *agg = rjson_get(root, "aggregate_metrics");
    if (agg && agg->type == RJ_OBJ && agg->n) {
        e->agg_key = malloc(sizeof(*e->agg_key) * agg->n);
        e->agg_txt = malloc(sizeof(*e->agg_txt) * agg->n);
        if (!e->agg_key || !e->agg_txt) goto oom;
        for (unsigned i = 0; i < agg->n; i++) {
            if (agg->item[i].type != RJ_NUM && agg->item[i].type != RJ_NULL) continue;
            e->agg_key[e->n_agg] = agg->key[i];
            e->agg_txt[e->n_agg++] = agg->item[i].text;
        }
    }
    return 0;
oom:
    snprintf(msg, msg_len, "%s: out of memory", origin);
    return -1;
}

/* An array of strings of the sidecar into *out (arena memory of the doc). */
static int str_array(RJsonDoc *d, const RJson *a, const char ***out, unsigned *n)
{
    *n = 0;
    *out = NULL;
    if (!a || a->type != RJ_ARR) return 0;
    *out = arena(d, sizeof(**out) * (a->n ? a->n : 1));
    if (!*out) return -1;
    for (unsigned i = 0; i < a->n; i++)
        if (a->item[i].type == RJ_STR) (*out)[(*n)++] = a->item[i].text;
    return 0;
}

static unsigned num_or(const RJson *o, const char *key, unsigned dflt)
{
    const RJson *v = rjson_get(o, key);
    return v && v->type == RJ_NUM && v->num >= 0 && v->num < 4e9 ? (unsigned)v->num : dflt;
}

static int load_meta(RepEncode *e, const char *origin, char *msg, size_t msg_len)
{
    const RJson *root = rjson_root(e->meta);
    const RJson *tag = rjson_get(root, "tvmaf_meta");
    if (root->type != RJ_OBJ || !tag || tag->type != RJ_NUM || tag->num != 1) {
        snprintf(msg, msg_len, "%s: not a tvmaf sidecar (no \"tvmaf_meta\": 1)", origin);
        return -1;
    }
    const RJson *ref = rjson_get(root, "reference"), *dis = rjson_get(root, "distorted");
    e->ref_path = rjson_str(ref, "path");
    e->dis_path = rjson_str(dis, "path");
    e->ref_open = rjson_str(ref, "absolute");
    e->dis_open = rjson_str(dis, "absolute");
    e->ref_raw = rjson_str(ref, "raw");
    e->dis_raw = rjson_str(dis, "raw");
    e->ref_kind = rjson_str(ref, "kind");
    e->dis_kind = rjson_str(dis, "kind");
    e->skip_ref = num_or(ref, "skip", 0);
    e->skip_dis = num_or(dis, "skip", 0);
    e->scale = rjson_str(dis, "scale");
    const RJson *br = rjson_get(dis, "bitrate");
    if (br && br->type == RJ_NUM && br->num > 0 && isfinite(br->num)) {
        e->bitrate = br->num;
        e->bitrate_source = rjson_str(dis, "bitrate_source");
    } else {
        e->bitrate_none = rjson_str(dis, "bitrate_none");
    }
    const RJson *prec = rjson_get(root, "precision");
    e->precision = prec && prec->type == RJ_NUM ? (int)prec->num : 0;
    const RJson *models = rjson_get(root, "models");
    if (models && models->type == RJ_ARR && models->n) {
        e->model = arena(e->meta, sizeof(*e->model) * models->n);
        if (!e->model) goto oom;
        unsigned n_in = 0;
        for (unsigned i = 0; i < models->n; i++) {
            const RJson *in = rjson_get(&models->item[i], "inputs");
            n_in += in && in->type == RJ_ARR ? in->n : 0;
        }
        e->model_input = arena(e->meta, sizeof(*e->model_input) * (n_in ? n_in : 1));
        if (!e->model_input) goto oom;
        for (unsigned i = 0; i < models->n; i++) {
            const RJson *m = &models->item[i];
            const char *key = rjson_str(m, "key");
            if (!key) continue;
            e->model[e->n_models].key = key;
            e->model[e->n_models].label = rjson_str(m, "label");
            e->n_models++;
            const RJson *in = rjson_get(m, "inputs");
            for (unsigned j = 0; in && in->type == RJ_ARR && j < in->n; j++)
                if (in->item[j].type == RJ_STR) e->model_input[e->n_model_inputs++] = in->item[j].text;
        }
    }
    if (str_array(e->meta, rjson_get(root, "features"), &e->feature, &e->n_features)) goto oom;
    const RJson *set = rjson_get(root, "settings");
    if (set && set->type == RJ_ARR && set->n) {
        e->set_k = arena(e->meta, sizeof(*e->set_k) * set->n);
        e->set_v = arena(e->meta, sizeof(*e->set_v) * set->n);
        if (!e->set_k || !e->set_v) goto oom;
        for (unsigned i = 0; i < set->n; i++) {
            const RJson *kv = &set->item[i];
            if (kv->type != RJ_ARR || kv->n != 2 || kv->item[0].type != RJ_STR ||
                kv->item[1].type != RJ_STR)
                continue;
            e->set_k[e->n_set] = kv->item[0].text;
            e->set_v[e->n_set++] = kv->item[1].text;
        }
    }
    e->has_meta = true;
    return 0;
oom:
    snprintf(msg, msg_len, "%s: out of memory", origin);
    return -1;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int rep_encode_load(RepEncode *e, const char *origin, const char *json, size_t len,
                    const char *meta_origin, const char *meta, size_t meta_len, char *msg,
                    size_t msg_len)
{
    char why[512];
    memset(e, 0, sizeof(*e));
    if (!(e->json = rjson_parse(json, len, why, sizeof(why)))) {
        snprintf(msg, msg_len, "%s: %s", origin, why);
        return -1;
    }
    if (load_output(e, origin, msg, msg_len)) return -1;
    if (meta) {
        if (!(e->meta = rjson_parse(meta, meta_len, why, sizeof(why)))) {
            snprintf(msg, msg_len, "%s: %s", meta_origin, why);
            return -1;
        }
        if (load_meta(e, meta_origin, msg, msg_len)) return -1;
    }
    e->label = e->dis_path ? base_name(e->dis_path) : base_name(origin);
    return 0;
}

void rep_encode_free(RepEncode *e)
{
    free(e->json_path);
    free(e->meta_path);
    rjson_free(e->json);
    rjson_free(e->meta);
    free(e->frame);
    free(e->frame_num);
    free(e->key);
    free(e->txt);
    free(e->val);
    free(e->pool);
    free(e->poolv);
    free(e->agg_key);
    free(e->agg_txt);
    for (unsigned i = 0; i < e->n_worst; i++) {
        free(e->worst[i].pair.data);
        free(e->worst[i].crop.data);
    }
    memset(e, 0, sizeof(*e));
}

/* BD-rate ----------------------------------------------------------------- */

/* Whether two encodes name one reference: the same file when both can be
 * found, else the same absolute path. */
static int same_reference(const RepEncode *a, const RepEncode *b)
{
    if (!a->ref_open || !b->ref_open) return 0;
    if (!strcmp(a->ref_open, b->ref_open)) return 1;
    struct stat sa, sb;
    return !stat(a->ref_open, &sa) && !stat(b->ref_open, &sb) && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int rep_compute_bd(RepDoc *d, char *msg, size_t msg_len)
{
    d->n_bd = 0;
    if (!d->bd_asked || d->n_groups < 2) return 0;
    const RepEncode *first = NULL;
    const char *qkey = NULL;
    for (unsigned i = 0; i < d->n_enc; i++) {
        const RepEncode *e = &d->enc[i];
        const char *g = d->group[e->group];
        if (!e->has_meta) {
            snprintf(msg, msg_len, "BD-rate: ladder \"%s\": %s has no sidecar (run it with "
                     "--meta): its bitrate and reference are unknown", g, e->label);
            return -1;
        }
        if (!(e->bitrate > 0)) {
            snprintf(msg, msg_len, "BD-rate: ladder \"%s\": %s has no bitrate (%s)", g, e->label,
                     e->bitrate_none ? e->bitrate_none : "not an encoded input");
            return -1;
        }
        if (!first) {
            first = e;
            const int k = rep_rank_key(e);
            qkey = k >= 0 ? e->key[k] : NULL;
            if (!qkey) {
                snprintf(msg, msg_len, "BD-rate: %s holds no score", e->label);
                return -1;
            }
        } else if (!same_reference(first, e)) {
            snprintf(msg, msg_len, "BD-rate compares ladders of one reference: %s was scored "
                     "against \"%s\", %s against \"%s\"", first->label,
                     first->ref_path ? first->ref_path : "?", e->label,
                     e->ref_path ? e->ref_path : "?");
            return -1;
        }
        const int k = rep_key_index(e, qkey);
        if (k < 0 || !isfinite(e->poolv[k][2])) {
            snprintf(msg, msg_len, "BD-rate: %s has no pooled mean of \"%s\", which %s has",
                     e->label, qkey, first->label);
            return -1;
        }
    }
    d->bd = calloc(d->n_groups, sizeof(*d->bd));
    double *rate = malloc(sizeof(double) * 2 * d->n_enc), *q = rate ? rate + d->n_enc : NULL;
    unsigned *start = calloc(d->n_groups + 1, sizeof(*start));
    if (!d->bd || !rate || !start) {
        free(rate);
        free(start);
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    /* each ladder's points, contiguous */
    unsigned n = 0;
    for (unsigned g = 0; g < d->n_groups; g++) {
        start[g] = n;
        for (unsigned i = 0; i < d->n_enc; i++) {
            const RepEncode *e = &d->enc[i];
            if (e->group != g) continue;
            rate[n] = e->bitrate;
            q[n++] = e->poolv[rep_key_index(e, qkey)][2];
        }
    }
    start[d->n_groups] = n;
    int rc = 0;
    for (unsigned g = 1; g < d->n_groups && !rc; g++) {
        char why[256];
        RepBd *b = &d->bd[d->n_bd];
        b->anchor = 0;
        b->test = g;
        b->key = qkey;
        if (tvmaf_bd_compute(rate + start[0], q + start[0], start[1] - start[0], rate + start[g],
                             q + start[g], start[g + 1] - start[g], &b->r, why, sizeof(why))) {
            snprintf(msg, msg_len, "BD-rate of ladder \"%s\" against \"%s\": %s", d->group[g],
                     d->group[0], why);
            rc = -1;
        } else {
            d->n_bd++;
        }
    }
    free(rate);
    free(start);
    return rc;
}
