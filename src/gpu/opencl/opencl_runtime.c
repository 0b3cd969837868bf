/*
 * OpenCL runtime: the ICD loader reached through dlopen, the device list,
 * and --backend auto's probe (opencl_runtime.h says why it is separate).
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu/opencl/opencl_runtime.h"

TvmafClApi tvmaf_cl;

#define MAX_DEVICES 64

static struct {
    pthread_once_t once;
    void *lib;
    TvmafClDeviceInfo dev[MAX_DEVICES];
    int n;
    atomic_int listed; /* set once load() has run in this process */
} rt = { .once = PTHREAD_ONCE_INIT };

static _Thread_local char last_error[320];

const char *tvmaf_cl_last_error(void)
{
    return last_error;
}

void tvmaf_cl_set_last_error(const char *what)
{
    snprintf(last_error, sizeof(last_error), "%s", what);
}

static const char *status_name(cl_int r)
{
    switch (r) {
#define S(x) case x: return #x;
    S(CL_DEVICE_NOT_FOUND) S(CL_DEVICE_NOT_AVAILABLE) S(CL_COMPILER_NOT_AVAILABLE)
    S(CL_MEM_OBJECT_ALLOCATION_FAILURE) S(CL_OUT_OF_RESOURCES) S(CL_OUT_OF_HOST_MEMORY)
    S(CL_BUILD_PROGRAM_FAILURE) S(CL_INVALID_VALUE) S(CL_INVALID_DEVICE) S(CL_INVALID_CONTEXT)
    S(CL_INVALID_COMMAND_QUEUE) S(CL_INVALID_MEM_OBJECT) S(CL_INVALID_BUILD_OPTIONS)
    S(CL_INVALID_PROGRAM) S(CL_INVALID_PROGRAM_EXECUTABLE) S(CL_INVALID_KERNEL_NAME)
    S(CL_INVALID_KERNEL) S(CL_INVALID_ARG_INDEX) S(CL_INVALID_ARG_VALUE) S(CL_INVALID_ARG_SIZE)
    S(CL_INVALID_KERNEL_ARGS) S(CL_INVALID_WORK_DIMENSION) S(CL_INVALID_WORK_GROUP_SIZE)
    S(CL_INVALID_WORK_ITEM_SIZE) S(CL_INVALID_GLOBAL_OFFSET) S(CL_INVALID_BUFFER_SIZE)
    S(CL_INVALID_GLOBAL_WORK_SIZE) S(CL_INVALID_OPERATION)
#undef S
    default: return NULL;
    }
}

int tvmaf_cl_check(cl_int r, const char *what)
{
    if (r == CL_SUCCESS) return 0;
    const char *name = status_name(r);
    if (name) snprintf(last_error, sizeof(last_error), "%s: %s", what, name);
    else snprintf(last_error, sizeof(last_error), "%s: OpenCL error %d", what, (int)r);
    switch (r) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE: return -ENOMEM;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_COMPILER_NOT_AVAILABLE: return -ENODEV;
    case CL_INVALID_VALUE:
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_INVALID_BUILD_OPTIONS: return -EINVAL;
    default: return -EIO;
    }
}

static void info_string(cl_device_id d, cl_device_info what, char *out, size_t len)
{
    out[0] = 0;
    if (tvmaf_cl.clGetDeviceInfo(d, what, len, out, NULL) != CL_SUCCESS) out[0] = 0;
    out[len - 1] = 0;
}

static void add_device(cl_platform_id p, cl_device_id d)
{
    if (rt.n == MAX_DEVICES) return;
    TvmafClDeviceInfo *i = &rt.dev[rt.n];
    memset(i, 0, sizeof(*i));
    i->platform = p;
    i->device = d;
    info_string(d, CL_DEVICE_NAME, i->name, sizeof(i->name));
    info_string(d, CL_DEVICE_VERSION, i->version, sizeof(i->version));
    if (tvmaf_cl.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(i->platform_name),
                                   i->platform_name, NULL) != CL_SUCCESS)
        i->platform_name[0] = 0;
    i->platform_name[sizeof(i->platform_name) - 1] = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(i->type), &i->type, NULL);
    cl_bool avail = CL_FALSE, compiler = CL_FALSE;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL);
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler), &compiler, NULL);
    if (!avail || !compiler) return; /* programs are built from source */
    cl_device_fp_config fp = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, NULL);
    i->cr_divide_sqrt = !!(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    cl_device_fp_config dfp = 0;
    tvmaf_cl.clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(dfp), &dfp, NULL);
    i->fp64 = dfp != 0;
    rt.n++;
}

static void load(void)
{
    const char *lib = getenv("TVMAF_OPENCL_LIBRARY"); /* tests: a loader that is absent */
    rt.lib = dlopen(lib && *lib ? lib : "libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!rt.lib) return;
#define LOAD(fn)                                                                             \
    if (!(tvmaf_cl.fn = (__typeof__(fn) *)dlsym(rt.lib, #fn))) {                             \
        dlclose(rt.lib);                                                                     \
        rt.lib = NULL;                                                                       \
        return;                                                                              \
    }
    TVMAF_CL_FUNCTIONS(LOAD)
#undef LOAD
    cl_uint np = 0;
    if (tvmaf_cl.clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || !np) return;
    cl_platform_id *plats = calloc(np, sizeof(*plats));
    if (!plats || tvmaf_cl.clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        return;
    }
    const cl_device_type types = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU |
                                 CL_DEVICE_TYPE_ACCELERATOR;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (tvmaf_cl.clGetDeviceIDs(plats[p], types, 0, NULL, &nd) != CL_SUCCESS || !nd)
            continue;
        cl_device_id *devs = calloc(nd, sizeof(*devs));
        if (devs && tvmaf_cl.clGetDeviceIDs(plats[p], types, nd, devs, NULL) == CL_SUCCESS)
            for (cl_uint d = 0; d < nd; d++) add_device(plats[p], devs[d]);
        free(devs);
    }
    free(plats);
    const char *list = getenv("TVMAF_OPENCL_DEVICE_LIST");
    if (list && *list && strcmp(list, "0")) tvmaf_cl_device_list_print();
}

static void load_once(void)
{
    load();
    atomic_store(&rt.listed, 1);
}

int tvmaf_cl_device_count(void)
{
    pthread_once(&rt.once, load_once);
    return rt.n;
}

const TvmafClDeviceInfo *tvmaf_cl_device(unsigned index)
{
    return index < (unsigned)tvmaf_cl_device_count() ? &rt.dev[index] : NULL;
}

void tvmaf_cl_device_list_print(void)
{
    for (int k = 0; k < rt.n; k++) {
        const TvmafClDeviceInfo *i = &rt.dev[k];
        fprintf(stderr, "tvmaf opencl: device %d: %s (%s; %s; %s%s)\n", k, i->name,
                i->platform_name, i->version,
                i->type & CL_DEVICE_TYPE_GPU ? "GPU" : i->type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                                                  : "other",
                i->fp64 ? ", fp64" : "");
    }
}

/* ---- --backend auto's probe (opencl_runtime.h: why, and the two steps) ---- */

/* How long the child may take to list the devices: a driver's first start
 * on a cold multi-GPU host takes seconds; one that hangs is given up.
 * TVMAF_OPENCL_PROBE_TIMEOUT (seconds, 1 to 3600) replaces it for a driver
 * known to start slowly (PoCL compiling under a sanitizer on a busy machine
 * took over 30 s). */
#define PROBE_TIMEOUT_MS 30000

static long long probe_timeout_ms(void)
{
    const char *env = getenv("TVMAF_OPENCL_PROBE_TIMEOUT");
    char *end;
    const long s = env && *env ? strtol(env, &end, 10) : 0;
    return env && *env && !*end && s >= 1 && s <= 3600 ? s * 1000LL : PROBE_TIMEOUT_MS;
}

/* Whether `name` is `prefix` followed by a digit ("renderD128"). */
static int prefix_digit(const char *name, const char *prefix)
{
    const size_t n = strlen(prefix);
    return !strncmp(name, prefix, n) && isdigit((unsigned char)name[n]);
}

/* Whether directory `dir` has an entry of one of `prefixes` followed by a digit. */
static int dir_has_node(const char *dir, const char *const *prefixes)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        for (const char *const *p = prefixes; *p && !found; p++) found = prefix_digit(e->d_name, *p);
    closedir(d);
    return found;
}

/* A device node of a GPU or accelerator driver: DRM render nodes (Intel,
 * AMD, Mesa), AMD's compute node, NVIDIA's per-GPU nodes (not nvidiactl,
 * which a container may have with no GPU), WSL's GPU, Arm Mali, Qualcomm
 * Adreno, the kernel's compute accelerators. */
static int gpu_node_present(void)
{
    static const char *const dev[] = { "nvidia", "mali", "kgsl-3d", NULL };
    static const char *const dri[] = { "renderD", NULL };
    static const char *const accel[] = { "accel", NULL };
    return !access("/dev/kfd", F_OK) || !access("/dev/dxg", F_OK) ||
           dir_has_node("/dev/dri", dri) || dir_has_node("/dev/accel", accel) ||
           dir_has_node("/dev", dev);
}

/* Whether library `lib` (`len` characters, a path or a file name) is PoCL's. */
static int is_pocl(const char *lib, size_t len)
{
    size_t base = 0;
    for (size_t i = 0; i < len; i++)
        if (lib[i] == '/') base = i + 1;
    return len - base >= 7 && !strncmp(lib + base, "libpocl", 7);
}

/* Whether ICD file `path` names a library other than PoCL's (an unreadable
 * or empty file: no, the loader skips it too). */
static int icd_file_other(const char *path)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[1024];
    const ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *s = buf;
    while (*s && isspace((unsigned char)*s)) s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1])) len--;
    return len && !is_pocl(s, len);
}

/* Whether `path`, an ICD file or a directory of *.icd files (the loaders'
 * vendor directory), registers a library other than PoCL's. */
static int icd_path_other(const char *path)
{
    struct stat st;
    if (stat(path, &st)) return 0;
    if (!S_ISDIR(st.st_mode)) return icd_file_other(path);
    DIR *d = opendir(path);
    if (!d) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        const size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".icd")) continue;
        char file[4096];
        if ((size_t)snprintf(file, sizeof(file), "%s/%s", path, e->d_name) < sizeof(file))
            found = icd_file_other(file);
    }
    closedir(d);
    return found;
}

/* Whether a platform other than PoCL's CPU driver is registered with the ICD
 * loader: a vendor file (the default directory, or the directory or file
 * OCL_ICD_VENDORS / OPENCL_VENDOR_PATH names; a bare name is a file of the
 * default directory, as ocl-icd reads it), a library of OCL_ICD_FILENAMES,
 * or PoCL told to use a driver that is not the CPU's (POCL_DEVICES: cuda,
 * level0, hsa, vulkan, remote, ...). */
static int icd_other_present(void)
{
    if (icd_path_other("/etc/OpenCL/vendors")) return 1;
    static const char *const vendor_env[] = { "OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH" };
    for (unsigned i = 0; i < 2; i++) {
        const char *v = getenv(vendor_env[i]);
        if (!v || !*v) continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", strchr(v, '/') ? "" : "/etc/OpenCL/vendors/", v);
        if (icd_path_other(path)) return 1;
    }
    const char *files = getenv("OCL_ICD_FILENAMES");
    for (const char *f = files; f && *f;) {
        const size_t len = strcspn(f, ":");
        if (len && !is_pocl(f, len)) return 1;
        f += len + (f[len] == ':');
    }
    const char *pocl = getenv("POCL_DEVICES");
    for (const char *p = pocl; p && *p;) {
        p += strspn(p, " ,");
        const size_t len = strcspn(p, " ,");
        static const char *const cpu[] = { "pthread", "basic", "cpu", "cpu-minimal", "tbb" };
        int is_cpu = 0;
        for (unsigned i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++)
            is_cpu |= strlen(cpu[i]) == len && !strncmp(p, cpu[i], len);
        if (len && !is_cpu) return 1;
        p += len;
    }
    return 0;
}

/* What the child tells: the type of every device it listed. */
typedef struct {
    unsigned magic;
    int n;
    cl_device_type type[MAX_DEVICES];
} ProbeRecord;

#define PROBE_MAGIC 0x7463706cu

static struct {
    pthread_once_t once;
    ProbeRecord rec; /* rec.n 0 where nothing was probed or the probe failed */
} probe = { .once = PTHREAD_ONCE_INIT };

/* The child: lists the devices (load) and writes their types to `fd`. Its
 * stdout and stderr are /dev/null (a driver's chatter, and nothing may reach
 * the parent's output file through an inherited stdio buffer: _exit, and
 * exit() would flush into /dev/null), and it leaves no core file when the
 * driver aborts. */
static void probe_child(int fd)
{
    const struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    rt.n = 0;
    load();
    ProbeRecord r = { .magic = PROBE_MAGIC, .n = rt.n };
    for (int k = 0; k < rt.n; k++) r.type[k] = rt.dev[k].type;
    const char *p = (const char *)&r;
    for (size_t left = sizeof(r); left;) {
        const ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(2);
        p += w;
        left -= (size_t)w;
    }
    _exit(0);
}

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void probe_failed(const char *why)
{
    fprintf(stderr, "tvmaf WARNING OpenCL probe failed (%s); using the CPU\n", why);
}

static void probe_run(void)
{
    const char *mode = getenv("TVMAF_OPENCL_AUTO");
    if (mode && (!strcmp(mode, "off") || !strcmp(mode, "0"))) return;
    if (!(mode && !strcmp(mode, "probe")) && !(gpu_node_present() && icd_other_present()))
        return;
    char why[160];
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        snprintf(why, sizeof(why), "pipe: %s", strerror(errno));
        probe_failed(why);
        return;
    }
    /* Forked from a process that may have threads (a caller's, the CLI's
     * readers): glibc makes malloc and the dynamic loader usable in the child
     * (it holds malloc's locks across fork and resets the loader's), which is
     * all load() needs before the driver's own start-up. */
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        probe_child(fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        snprintf(why, sizeof(why), "fork: %s", strerror(errno));
        close(fds[0]);
        probe_failed(why);
        return;
    }
    ProbeRecord r;
    size_t got = 0;
    int timed_out = 0;
    const long long timeout_ms = probe_timeout_ms();
    const long long deadline = mono_ms() + timeout_ms;
    while (got < sizeof(r)) {
        const long long left = deadline - mono_ms();
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        const int k = left > 0 ? poll(&pfd, 1, (int)left) : 0;
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) timed_out = 1;
        if (k <= 0) break;
        const ssize_t n = read(fds[0], (char *)&r + got, sizeof(r) - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* the child ended */
        got += (size_t)n;
    }
    close(fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    /* w < 0 (ECHILD): the caller reaps children itself (SIGCHLD ignored);
     * the record alone then says whether the child finished */
    if (timed_out)
        snprintf(why, sizeof(why), "no answer in %lld s", timeout_ms / 1000);
    else if (w == pid && WIFSIGNALED(status))
        snprintf(why, sizeof(why), "signal %d: %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (w == pid && (!WIFEXITED(status) || WEXITSTATUS(status)))
        snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(status));
    else if (got != sizeof(r) || r.magic != PROBE_MAGIC || r.n < 0 || r.n > MAX_DEVICES)
        snprintf(why, sizeof(why), "no answer");
    else {
        probe.rec = r;
        return;
    }
    probe_failed(why);
}

const TvmafClDeviceInfo *tvmaf_cl_auto_device(unsigned index)
{
    /* listed in this process already (--gpus, tvmaf_gpu_count, a context
     * on --backend opencl): nothing left to probe */
    if (!atomic_load(&rt.listed)) {
        pthread_once(&probe.once, probe_run);
        if (index >= (unsigned)probe.rec.n || (probe.rec.type[index] & CL_DEVICE_TYPE_CPU))
            return NULL;
    }
    const TvmafClDeviceInfo *d = tvmaf_cl_device(index);
    return d && !(d->type & CL_DEVICE_TYPE_CPU) ? d : NULL;
}

static pthread_mutex_t inject_lock = PTHREAD_MUTEX_INITIALIZER;
static long inject_after = -1;
static atomic_uint withheld_caps;

void tvmaf_cl_test_withhold_caps(unsigned caps)
{
    atomic_store(&withheld_caps, caps);
}

unsigned tvmaf_cl_withheld_caps(void)
{
    return atomic_load(&withheld_caps);
}

void tvmaf_cl_inject_launch_failure(long after)
{
    pthread_mutex_lock(&inject_lock);
    inject_after = after;
    pthread_mutex_unlock(&inject_lock);
}

int tvmaf_cl_launch(cl_command_queue q, cl_kernel k, unsigned dims, const size_t *global,
                    const size_t *local)
{
    pthread_mutex_lock(&inject_lock);
    const int fail = inject_after == 0;
    if (inject_after > 0) inject_after--;
    pthread_mutex_unlock(&inject_lock);
    if (fail) return tvmaf_cl_check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel (injected)");
    return tvmaf_cl_check(tvmaf_cl.clEnqueueNDRangeKernel(q, k, dims, NULL, global, local, 0,
                                                          NULL, NULL),
                          "clEnqueueNDRangeKernel");
}
