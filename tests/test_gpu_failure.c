/* The CUDA backend's failure paths (tests/gpu/failure_common.h). Exits 77
 * without a device.
 *
 * Under the CUDA driver stand-in (tests/standin/, found as libcuda.so.1),
 * the driver's own faults too, each ending in an error and a message, and
 * after every run nothing left on the device (no allocation, page-locked
 * block, stream, module or retained context):
 *   - cuInit failing (a child process started before anything loads the
 *     driver): --backend cuda fails naming cuInit, auto scores on the CPU;
 *   - the Nth device or page-locked allocation failing, for several N;
 *   - a kernel launch failing after K launches (failure_common.h);
 *   - a device that reports too little memory. */
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/cuda/cuda_runtime.h"
#include "gpu/failure_common.h"

static int (*standin_fault)(const char *spec);
static void (*standin_live)(unsigned long long live[6]);

static void inject_launch(long after)
{
    char spec[32];
    snprintf(spec, sizeof(spec), "launch=%ld", after + 1);
    standin_fault(after < 0 ? "" : spec);
}

static void nothing_left(int err, const char *msg)
{
    unsigned long long l[6];
    standin_live(l);
    EXPECT(!l[0] && !l[2] && !l[3] && !l[4] && !l[5],
           "after a run (%d \"%s\"): left %llu device blocks (%llu bytes), %llu page-locked, "
           "%llu streams, %llu modules, %llu retained contexts",
           err, msg, l[0], l[1], l[2], l[3], l[4], l[5]);
}

/* cuInit failing, in a child that has not loaded the driver yet. */
static int init_failure_child(void)
{
    setenv("TVMAF_STANDIN_FAULT", "init", 1);
    char msg[1024], *cpu = NULL, *fallback = NULL;
    EXPECT(!tvmaf_cuda_available(), "cuInit fails, yet CUDA is available");
    TvmafConfiguration c = { .backend = TVMAF_BACKEND_CUDA, .n_threads = 2 };
    int err = run(&c, msg, sizeof(msg), NULL);
    EXPECT(err && strstr(msg, "cuInit"), "cuInit failing: %d \"%s\"", err, msg);
    printf("cuInit failing, --backend cuda: %d \"%s\"\n", err, msg);
    c.backend = TVMAF_BACKEND_AUTO;
    err = run(&c, msg, sizeof(msg), &fallback);
    EXPECT(!err, "cuInit failing, auto: %d \"%s\"", err, msg);
    c.backend = TVMAF_BACKEND_CPU;
    err = run(&c, msg, sizeof(msg), &cpu);
    EXPECT(!err && fallback && cpu && !strcmp(fallback, cpu),
           "cuInit failing: auto does not score as the CPU");
    free(cpu);
    free(fallback);
    return failures ? 1 : 0;
}

static int standin_faults(void)
{
    char msg[1024], spec[32];
    TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CUDA, .n_threads = 2 };
    const int nth[] = { 1, 2, 3, 5, 8, 10 };
    for (int kind = 0; kind < 2; kind++)
        for (unsigned i = 0; i < sizeof(nth) / sizeof(nth[0]); i++) {
            snprintf(spec, sizeof(spec), "%s=%d", kind ? "hostalloc" : "alloc", nth[i]);
            standin_fault(spec);
            const int err = run(&cfg, msg, sizeof(msg), NULL);
            standin_fault("");
            EXPECT(err == -ENOMEM && strstr(msg, "CUDA_ERROR_OUT_OF_MEMORY"),
                   "%s: %d \"%s\"", spec, err, msg);
            printf("%s: %d \"%s\"\n", spec, err, msg);
        }
    standin_fault("mem=65536");
    int err = run(&cfg, msg, sizeof(msg), NULL);
    standin_fault("");
    EXPECT(err == -ENOMEM && strstr(msg, "CUDA_ERROR_OUT_OF_MEMORY"), "a 64 KiB device: %d \"%s\"", err, msg);
    printf("a 64 KiB device: %d \"%s\"\n", err, msg);
    return 0;
}

int main(void)
{
    /* first, before this process loads the driver: a child where cuInit fails */
    void *standin = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    const bool is_standin = standin && dlsym(standin, "tvmaf_standin_fault");
    if (is_standin) {
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            const int rc = init_failure_child();
            fflush(stdout);
            _exit(rc);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the cuInit-failure child: status %d", st);
        standin_fault = (int (*)(const char *))dlsym(standin, "tvmaf_standin_fault");
        standin_live = (void (*)(unsigned long long *))dlsym(standin, "tvmaf_standin_live");
        after_run = nothing_left;
    }
    if (!tvmaf_cuda_available()) {
        printf("no usable CUDA device: skipped\n");
        return 77;
    }
    if (is_standin) standin_faults();
    return gpu_failure_main(TVMAF_BACKEND_CUDA, "cuda", is_standin ? inject_launch : NULL,
                            "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
}
