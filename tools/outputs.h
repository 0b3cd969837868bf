/*
 * What the CLI writes: the scores (-o), the report and plot, and the names
 * of several pairs' outputs (-o PATTERN, --output-dir).
 */
#ifndef TVMAF_TOOLS_OUTPUTS_H
#define TVMAF_TOOLS_OUTPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "tvmaf/tvmaf.h"

/* Writes one output into an open stream; returns 0, or non-zero with errno
 * set where it is known. */
typedef int (*OutputWriter)(FILE *f, void *arg);

/*
 * Writes `path` ("-": stdout) with `write`. A regular file, new or existing,
 * is written to a temporary file beside it that replaces it by rename() only
 * once complete, flushed and synced, so a failure (disk full, file size
 * limit) leaves an existing file as it was and no partial file; it keeps an
 * existing file's mode, a new one gets 0666 less the umask, and a symbolic
 * link is written through (the file it names is replaced). Anything else
 * (/dev/null, a pipe) is written in place. Prints one line starting with
 * `app` and returns non-zero on failure.
 */
int output_write(const char *app, const char *path, OutputWriter write, void *arg);

/* Whether `path` can be created or overwritten (errno says why not). */
int output_writable(const char *path);

/* Whether `out` names the same regular file as the input `in` ("-": the file
 * stdin is redirected from). */
int output_same_file(const char *out, const char *in);

/* The format an output file's extension names (.json, .xml, .csv, .sub),
 * or -1 for any other name. */
int output_format_of(const char *path);

/* The extension of a format, without the dot ("json"). */
const char *output_extension(enum TvmafOutputFormat fmt);

/*
 * Where pair `index` (from 1) of distorted input `dis` writes its scores:
 * --output-dir DIR (DIR/STEM.EXT, STEM the input's file name less its
 * extension) or -o PATTERN (%d or %0Nd the index, %s the stem, %% a '%').
 * Returns 0 with out[0] == '\0' when neither is given, -1 with a message for
 * a pattern it does not take or a name too long.
 */
int output_pair_name(char *out, size_t len, const char *pattern, const char *dir,
                     enum TvmafOutputFormat fmt, unsigned index, const char *dis, char *msg,
                     size_t msg_len);

#endif
