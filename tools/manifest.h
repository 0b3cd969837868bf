/*
 * Batch manifests (tvmaf --batch FILE): one pair to score per row.
 *
 * CSV with a header row, or JSON lines (one object per line; told from the
 * first character that is not blank or a comment). Columns / keys:
 *   ref, dis            the two inputs (required)
 *   output              where this pair's scores go (optional; else -o
 *                       PATTERN or --output-dir of the command line)
 *   width, height, pix_fmt, bitdepth   raw YUV layout (optional; else the
 *                       command line's -w/-h/-p/-b)
 *   model               -m arguments, several separated by ';' (JSON: a
 *                       string or an array of strings); optional, replaces
 *                       the command line's -m
 * Blank lines and lines starting with '#' are skipped. Relative paths are
 * relative to the manifest's folder (the current one for stdin).
 */
#ifndef TVMAF_TOOLS_MANIFEST_H
#define TVMAF_TOOLS_MANIFEST_H

#include <stddef.h>

#include "tvmaf/tvmaf.h"

typedef struct ManifestEntry {
    unsigned line;               /* 1-based line of the manifest */
    char *ref, *dis, *output;    /* output NULL: not given */
    unsigned w, h, bpc;          /* 0: not given */
    enum TvmafPixelFormat pix_fmt; /* UNKNOWN: not given */
    char *models;                /* ';'-separated -m arguments, NULL: not given */
    char error[512];             /* non-empty: the row cannot be used, and why */
} ManifestEntry;

/*
 * Reads the manifest at `path` ("-": stdin). Returns 0 with the rows (some
 * may carry an error: a bad row fails that pair only), or a negative errno
 * with a message for a manifest that cannot be used at all (unreadable, no
 * header, unknown or missing column, no row).
 */
int manifest_read(const char *path, ManifestEntry **entries, unsigned *n, char *msg,
                  size_t msg_len);
void manifest_free(ManifestEntry *entries, unsigned n);

/* `text` for a message, with what a terminal shows as nothing written out:
 * control bytes and bytes that are not UTF-8 as \xNN, invisible characters
 * (a byte-order mark, zero-width and no-break spaces) as \uNNNN. */
void manifest_escape(char *out, size_t len, const char *text);

/* "420", "422", "444", "400" or their yuvNNNp names; UNKNOWN otherwise. */
enum TvmafPixelFormat manifest_pix_fmt(const char *s);

#endif
