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

/*
 * What a file of a run is, for the rule that no output replaces an input or
 * another output: a regular file by device and inode (stdin's, for "-"), an
 * output not yet there by its resolved path. Special files (/dev/null, a
 * FIFO, a terminal), "-" as an output and inputs that cannot be read are
 * exempt: they match nothing.
 */
typedef struct FileId {
    int kind;          /* 0 exempt, 1 device and inode, 2 resolved path */
    unsigned long long dev, ino;
    char *path;        /* kind 2: owned */
} FileId;

void file_id_get(FileId *id, const char *path, int output);
void file_id_free(FileId *id);
int file_id_same(const FileId *a, const FileId *b);

/* One file of a run and what messages call it ("the reference", "--report"). */
typedef struct RunFile {
    const char *path;
    const char *role;
    int output;
} RunFile;

/* The rule for the files of one command: -1, after one line naming both,
 * when an output is an input or another output. */
int output_check_run(const char *app, const RunFile *files, unsigned n);

/* Temporaries being written are removed by output_remove_temporaries(),
 * which a signal's handler thread calls before the process ends. */
void output_remove_temporaries(void);

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
