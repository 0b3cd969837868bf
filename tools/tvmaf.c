/*
 * tvmaf: the command-line tool, flag-compatible with libvmaf's `vmaf`.
 *
 * cli_parse.c reads the command line into the settings of a run; run.c
 * scores one pair, group.c a group of pairs sharing a reference, split.c one
 * pair over several devices, batch.c manifests and ladders; outputs.c
 * writes and names the files.
 */
#include <signal.h>
#include <stdlib.h>

#include "cli_parse.h"

int main(int argc, char **argv)
{
    /* a closed pipe on stdout or a file size limit is a failed write
     * reported as such, not a silent death by signal */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    CliOptions *o = calloc(1, sizeof(*o));
    if (!o) {
        fprintf(stderr, "tvmaf: out of memory\n");
        return 1;
    }
    int ret = cli_parse(argc, argv, o);
    if (ret)
        ret = ret < 0;
    else if (o->batch_path)
        ret = run_batch(&o->s, o->batch_path, o->out_path, o->out_dir, o->jobs);
    else
        ret = run_ladder(&o->s, "tvmaf", o->path_ref, o->dis_paths, o->n_dis, o->out_path,
                         o->out_dir);
    cli_free(o);
    free(o);
    return ret;
}
