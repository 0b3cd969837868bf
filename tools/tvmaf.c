/*
 * tvmaf: the command-line tool, flag-compatible with libvmaf's `vmaf`.
 *
 * cli_parse.c reads the command line into the settings of a run; run.c
 * scores one pair, group.c a group of pairs sharing a reference, split.c one
 * pair over several devices, batch.c manifests and ladders; outputs.c
 * writes and names the files; report_cli.c the comparison report (--report,
 * --meta, `tvmaf report`).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "io/video_reader.h"
#include "outputs.h"
#include "report_cli.h"

/* SIGINT, SIGTERM and SIGHUP are blocked in every thread (threads inherit the
 * mask of their creator, and this runs first) and taken by this one: it
 * removes the temporaries being written, prints a batch's summary, then ends
 * the process by the signal itself, so the caller sees the conventional
 * status (130 for SIGINT in a shell). */
static sem_t signal_thread_ready;

static void *signal_main(void *arg)
{
    const sigset_t *set = arg;
    int sig = 0;
    sem_post(&signal_thread_ready);
    if (sigwait(set, &sig)) return NULL;
    output_remove_temporaries();
    fprintf(stderr, "\ntvmaf: %s\n", strsignal(sig));
    batch_interrupted(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    fflush(stderr);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    return NULL;
}

static void start_signal_thread(void)
{
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_t th;
    /* without the thread the signals keep their default action */
    if (pthread_sigmask(SIG_BLOCK, &set, NULL)) return;
    if (sem_init(&signal_thread_ready, 0, 0)) {
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        return;
    }
    if (pthread_create(&th, NULL, signal_main, &set)) {
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        return;
    }
    pthread_detach(th);
    /* The thread has started before anything else runs: a backend's device
     * probe may fork (gpu/opencl/opencl_runtime.c), and a thread still in its
     * start-up can hold an allocator lock at that moment, which the child
     * then waits on for ever where the allocator does not guard fork
     * (AddressSanitizer's). Once waiting in sigwait it holds none. */
    while (sem_wait(&signal_thread_ready) && errno == EINTR) {}
}

int main(int argc, char **argv)
{
    /* a closed pipe on stdout or a file size limit is a failed write
     * reported as such, not a silent death by signal */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    /* raw inputs are scored in a mapping of the file (group.c): one
     * truncated meanwhile is reported and ends the run with status 1. The
     * temporaries' lock is never held by a thread that reads pictures, the
     * only ones that fault. */
    tvmaf_reader_catch_truncation(output_remove_temporaries);
    start_signal_thread();
    /* tvmaf report OUTPUT.json ...: the comparison page of saved runs */
    if (argc > 1 && !strcmp(argv[1], "report")) return report_main(argc - 1, argv + 1);
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
