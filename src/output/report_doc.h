/*
 * The comparison report's data: every encode (one distorted input scored
 * against its reference) as its libvmaf-format JSON output says it, with the
 * sidecar the CLI writes beside that output (--meta: inputs, bitrate,
 * settings), and the page written from them (report.c).
 *
 * Numbers are kept as the characters the JSON printed them with: the page
 * prints those characters, so it shows every score exactly as the output
 * does at the run's precision.
 */
#ifndef TVMAF_OUTPUT_REPORT_DOC_H
#define TVMAF_OUTPUT_REPORT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output/bdrate.h"

/* A JSON value (report_json.c); a number or null keeps its literal text. */
typedef struct RJson RJson;
enum RJsonType { RJ_NULL, RJ_BOOL, RJ_NUM, RJ_STR, RJ_ARR, RJ_OBJ };
struct RJson {
    enum RJsonType type;
    const char *text;   /* RJ_NUM: the literal; RJ_STR: the decoded string; RJ_NULL: "null" */
    double num;         /* RJ_NUM */
    int boolean;        /* RJ_BOOL */
    unsigned n;         /* RJ_ARR, RJ_OBJ: members */
    const char **key;   /* RJ_OBJ */
    RJson *item;
};

typedef struct RJsonDoc RJsonDoc;
/* Parses text (len bytes); NULL with a message naming the line on failure. */
RJsonDoc *rjson_parse(const char *text, size_t len, char *msg, size_t msg_len);
const RJson *rjson_root(const RJsonDoc *d);
void rjson_free(RJsonDoc *d);
/* The member `key` of an object, or NULL. */
const RJson *rjson_get(const RJson *obj, const char *key);
/* A string member, or NULL. */
const char *rjson_str(const RJson *obj, const char *key);

#define REP_POOLS 4   /* min, max, mean, harmonic_mean */
#define REP_WORST 5   /* pictured lowest frames of each encode */

/* A picture of the page: its bytes (JPEG) and size, with what it shows. */
typedef struct RepImage {
    unsigned char *data;
    size_t size;
    unsigned w, h;
    const char *mime;
} RepImage;

typedef struct RepWorst {
    unsigned row;          /* index into the encode's frames */
    RepImage pair;         /* reference | distorted, downscaled */
    RepImage crop;         /* reference | distorted, where they differ most, full size */
    unsigned crop_x, crop_y, crop_w, crop_h;
} RepWorst;

typedef struct RepModel {
    const char *label;     /* as given (-m version=...) */
    const char *key;       /* its score's key in the output */
} RepModel;

typedef struct RepEncode {
    /* where it comes from */
    char *json_path, *meta_path;   /* NULL when built in memory / no sidecar */
    RJsonDoc *json, *meta;
    const char *label;             /* what the page calls it (the distorted input's name) */
    unsigned group;                /* index into RepDoc.group */
    /* the output */
    const char *version, *fps;
    unsigned n_frames, n_keys, n_agg;
    const char **frame_num;        /* n_frames: frameNum as printed */
    unsigned *frame;               /* n_frames: frameNum */
    const char **key;              /* n_keys: as printed */
    const char **txt;              /* [k * n_frames + i]: as printed, NULL: no value */
    double *val;                   /* the same as numbers, NaN: null or no value */
    const char *(*pool)[REP_POOLS];/* n_keys: pooled values as printed (NULL: absent) */
    double (*poolv)[REP_POOLS];
    const char **agg_key, **agg_txt;
    /* the sidecar (zeros without one) */
    bool has_meta;
    const char *ref_path, *dis_path;     /* as given to the run */
    const char *ref_open, *dis_open;     /* where the report opens them (absolute) */
    const char *ref_raw, *dis_raw;       /* raw layout "WxH:PIX:BITS", or NULL */
    const char *ref_kind, *dis_kind;     /* "raw", "y4m", "ffmpeg" */
    const char *scale;                   /* --scale filter, or NULL */
    unsigned skip_ref, skip_dis;
    double bitrate;                      /* bit/s; 0: none */
    const char *bitrate_source;          /* "stream", "packets"; NULL: none */
    const char *bitrate_none;            /* why there is none */
    int precision;                       /* the run's --precision (0: libvmaf's) */
    RepModel *model;
    unsigned n_models;
    const char **feature;                /* asked for (--feature NAME[=...]) */
    unsigned n_features;
    const char **model_input;            /* keys the models read */
    unsigned n_model_inputs;
    const char **set_k, **set_v;         /* settings that ran, in order */
    unsigned n_set;
    /* pictures (the caller's) */
    RepWorst worst[REP_WORST];
    unsigned n_worst;
    unsigned worst_key;                  /* the key they are the lowest of */
    char pictures_note[512];             /* why there are none ("" when there are) */
} RepEncode;

typedef struct RepBd {
    unsigned anchor, test;               /* groups */
    TvmafBdResult r;
    const char *key;                     /* the quality key */
} RepBd;

typedef struct RepDoc {
    const char *title;
    RepEncode *enc;
    unsigned n_enc;
    const char **group;                  /* names of the ladders */
    unsigned n_groups;
    bool bd_asked;                       /* ladders named: BD-rates computed */
    RepBd *bd;
    unsigned n_bd;
    bool pictures_built;                 /* the build encodes pictures (FFmpeg) */
    const char *pictures_note;           /* the page's note on pictures */
    const char *generator;               /* e.g. "tvmaf 0.1.0 (tvmaf report)" */
    unsigned n_lowest;                   /* lowest frames listed per encode; 0: REP_WORST */
} RepDoc;

/*
 * One encode from its output (JSON text, len bytes; the text is copied) and
 * its sidecar (NULL: none). `origin` names the output in messages. Returns
 * 0, or -1 with one sentence in msg.
 */
int rep_encode_load(RepEncode *e, const char *origin, const char *json, size_t len,
                    const char *meta_origin, const char *meta, size_t meta_len, char *msg,
                    size_t msg_len);
void rep_encode_free(RepEncode *e);

/* Index of key `name` in e, or -1. */
int rep_key_index(const RepEncode *e, const char *name);
/* The key whose curves rank encodes: the first model's, else the first key;
 * -1 without keys. */
int rep_rank_key(const RepEncode *e);
/* The n lowest frames of key k (rows, lowest first, earlier first among
 * equals; a null counts as lowest); returns how many. */
unsigned rep_lowest(const RepEncode *e, unsigned k, unsigned n, unsigned *rows);

/*
 * The ladders' BD-rates: each named group against the first, when they share
 * a reference. Returns 0, or -1 with why in msg (a ladder of fewer than
 * TVMAF_BD_MIN_POINTS encodes with a bitrate, different references, no
 * shared range...).
 */
int rep_compute_bd(RepDoc *d, char *msg, size_t msg_len);

/* The page (HTML) or the plots alone (SVG). Returns 0 or a negative errno. */
int rep_write_html(const RepDoc *d, FILE *f);
int rep_write_svg(const RepDoc *d, FILE *f);

/* Reads a whole file into memory (NUL-terminated); NULL with errno set. */
char *rep_read_file(const char *path, size_t *len);

#endif
