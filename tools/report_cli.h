/*
 * The comparison report from the CLI: `tvmaf report` over saved outputs
 * (report_cli.c), --report / --plot / --meta of a run, and what the videos
 * give it through FFmpeg (report_media.c).
 */
#ifndef TVMAF_TOOLS_REPORT_CLI_H
#define TVMAF_TOOLS_REPORT_CLI_H

#include <stddef.h>

#include "output/report_doc.h"
#include "run.h"

/* `tvmaf report ARGS...` (argv[0] is "report"); returns the exit status. */
int report_main(int argc, char **argv);

/* The sidecar of an output: OUTPUT.meta.json. -1 when the name is too long. */
int report_meta_path(char *out, size_t len, const char *output);

/*
 * A pair of a run finished (its models scored): its sidecar written beside
 * its output (--meta), and, with --report or --plot, the pair kept for the
 * page report_run_write() writes once every pair is done. `fr`: the
 * reference's format; `fps`: its output's. Prints why and returns -1 on failure. Thread-safe.
 */
int report_pair_done(const Settings *s, Pair *p, const char *path_ref,
                     const TvmafVideoFormat *fr, double fps);

/* --report and --plot of the pairs kept (none: nothing written); returns -1
 * after saying why. Forgets the pairs. */
int report_run_write(const Settings *s, const char *app);

/* FFmpeg (report_media.c) ---------------------------------------------- */

/* Whether pictures can be encoded (FFmpeg's libraries loaded, its MJPEG
 * encoder); when not, *note := the page's sentence saying why. */
int media_available(const char **note);
/* The video stream's bitrate of an encoded file: the container's stream bit
 * rate ("stream"), else its packets' bytes over its duration ("packets"). */
int media_bitrate(const char *path, double *bps, const char **source, char *msg,
                  size_t msg_len);
/* The pictures of every encode's lowest frames, or a note saying why not. */
void media_pictures(RepDoc *d);
/* "WxH:PIX:BITS" into a format; -1 when malformed. */
int media_parse_layout(const char *s, TvmafVideoFormat *f);

#endif
