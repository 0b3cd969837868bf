/*
 * The CUDA driver stand-in catches misuse: each case runs in a child
 * process that commits one misuse through the driver API, and must end with
 * exit status 3 and a message naming it. A first case that uses the API
 * correctly must succeed (so the cases fail for their misuse, not for a
 * broken set-up).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

extern const unsigned char tvmaf_selftest_fatbin[];

#define CK(call)                                                                               \
    do {                                                                                       \
        const CUresult r_ = (call);                                                            \
        if (r_ != CUDA_SUCCESS) {                                                              \
            fprintf(stderr, "%s: error %d\n", #call, (int)r_);                                 \
            _exit(1);                                                                          \
        }                                                                                      \
    } while (0)

static CUcontext ctx0, ctx1;
static CUfunction add_fn;

static void setup(void)
{
    CUdevice d0, d1;
    CK(cuInit(0));
    CK(cuDeviceGet(&d0, 0));
    CK(cuDeviceGet(&d1, 1));
    CK(cuDevicePrimaryCtxRetain(&ctx0, d0));
    CK(cuDevicePrimaryCtxRetain(&ctx1, d1));
    CK(cuCtxPushCurrent(ctx0));
    CUmodule m;
    CK(cuModuleLoadData(&m, tvmaf_selftest_fatbin));
    CK(cuModuleGetFunction(&add_fn, m, "tvmaf_selftest_add"));
}

/* c = a + b over n floats, buffers of `len` floats, with `threads` a block */
static void add(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, unsigned n, unsigned threads,
                CUstream s)
{
    void *args[] = { &a, &b, &c, &n };
    CK(cuLaunchKernel(add_fn, (n + threads - 1) / threads, 1, 1, threads, 1, 1, 0, s, args, NULL));
    CK(cuStreamSynchronize(s));
}

static CUdeviceptr dalloc(size_t bytes)
{
    CUdeviceptr p;
    CK(cuMemAlloc(&p, bytes));
    CK(cuMemsetD8Async(p, 0, bytes, NULL));
    return p;
}

static void case_correct(void)
{
    const unsigned n = 1000;
    CUdeviceptr a = dalloc(n * 4), b = dalloc(n * 4), c = dalloc(n * 4);
    add(a, b, c, n, 128, NULL);
    float host[1000];
    CK(cuMemcpyDtoHAsync(host, c, sizeof(host), NULL));
    CK(cuStreamSynchronize(NULL));
    for (unsigned i = 0; i < n; i++)
        if (host[i] != 0.0f) _exit(1);
    CK(cuMemFree(a));
    CK(cuMemFree(b));
    CK(cuMemFree(c));
}

static void case_kernel_outside(void)
{
    CUdeviceptr a = dalloc(1024 * 4), b = dalloc(1024 * 4), c = dalloc(1024 * 4);
    add(a, b, c, 1024 + 1024, 128, NULL); /* twice the buffers' length */
}

static void case_kernel_after_free(void)
{
    CUdeviceptr a = dalloc(1024 * 4), b = dalloc(1024 * 4), c = dalloc(1024 * 4);
    CK(cuMemFree(a));
    add(a, b, c, 1024, 128, NULL);
}

static void case_copy_outside(void)
{
    char host[64] = { 0 };
    CUdeviceptr a = dalloc(4096);
    CK(cuMemcpyHtoDAsync(a + 8192, host, sizeof(host), NULL));
}

static void case_copy_too_long(void)
{
    char host[200] = { 0 };
    CUdeviceptr a = dalloc(100);
    CK(cuMemcpyHtoDAsync(a, host, sizeof(host), NULL));
}

static void case_copy_after_free(void)
{
    CUdeviceptr a = dalloc(4096);
    CK(cuMemFree(a));
    CK(cuMemsetD8Async(a, 1, 16, NULL));
}

static void case_host_too_long(void)
{
    void *h;
    CK(cuMemHostAlloc(&h, 100, 0));
    CUdeviceptr a = dalloc(4096);
    CK(cuMemcpyDtoHAsync(h, a, 200, NULL));
}

static void case_threads(void)
{
    CUdeviceptr a = dalloc(4096 * 4), b = dalloc(4096 * 4), c = dalloc(4096 * 4);
    add(a, b, c, 4096, 2048, NULL);
}

static void case_stream_context(void)
{
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); /* in ctx0 */
    CUdeviceptr a = dalloc(4096);
    CK(cuCtxPushCurrent(ctx1));
    CK(cuMemsetD8Async(a, 0, 16, s));
}

static void case_event_context(void)
{
    CUevent e;
    CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING)); /* in ctx0 */
    CK(cuCtxPushCurrent(ctx1));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuEventRecord(e, s));
}

static void case_stream_destroyed(void)
{
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuStreamDestroy(s));
    CK(cuStreamSynchronize(s));
}

static const struct Case {
    const char *name;
    void (*run)(void);
    const char *expect; /* in the message; NULL: must succeed */
} cases[] = {
    { "correct use", case_correct, NULL },
    { "kernel access outside an allocation", case_kernel_outside, "outside an allocation" },
    { "kernel use after free", case_kernel_after_free, "use after free" },
    { "copy outside every allocation", case_copy_outside, "outside every allocation" },
    { "copy longer than its device buffer", case_copy_too_long, "longer than its buffer" },
    { "copy longer than its page-locked buffer", case_host_too_long, "longer than its buffer" },
    { "copy after free", case_copy_after_free, "use after free" },
    { "more threads per block than allowed", case_threads, "more than allowed" },
    { "stream used in another context", case_stream_context, "stream used in another context" },
    { "event used in another context", case_event_context, "event used in another context" },
    { "stream used after destroy", case_stream_destroyed, "after cuStreamDestroy" },
};

int main(void)
{
    setenv("TVMAF_STANDIN_DEVICES", "2", 1);
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int fd[2];
        if (pipe(fd)) return 1;
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            dup2(fd[1], 2);
            close(fd[0]);
            setup();
            cases[i].run();
            _exit(0);
        }
        close(fd[1]);
        char msg[2048];
        size_t n = 0;
        ssize_t r;
        while (n < sizeof(msg) - 1 && (r = read(fd[0], msg + n, sizeof(msg) - 1 - n)) > 0)
            n += (size_t)r;
        msg[n] = 0;
        close(fd[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        const bool ok = cases[i].expect ? code == 3 && strstr(msg, "cuda stand-in:") &&
                                              strstr(msg, cases[i].expect)
                                        : code == 0;
        printf("%-42s exit %d %s: %s", cases[i].name, code, ok ? "ok" : "FAILED",
               n ? msg : "(no message)\n");
        if (n && msg[n - 1] != '\n') printf("\n");
        failures += !ok;
    }
    printf("%d of %zu cases failed\n", failures, sizeof(cases) / sizeof(cases[0]));
    return failures ? 1 : 0;
}
