/*
 * FFmpeg's libraries through dlopen (io/ffmpeg_lib.h says why and how).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/ffmpeg_lib.h"

TvmafFfApi tvmaf_ff;

/* The SONAMEs of the headers compiled against. In dependency order: a
 * library given by TVMAF_FFMPEG_LIBDIR is loaded before those that need it,
 * which then bind to it (a loaded library answers for its SONAME). */
#define SONAME(lib, major) "lib" lib ".so." AV_STRINGIFY(major)
enum { AVUTIL, SWSCALE, AVCODEC, AVFORMAT, N_LIBS };
static const char *const sonames[N_LIBS] = {
    [AVUTIL] = SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    [SWSCALE] = SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
    [AVCODEC] = SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    [AVFORMAT] = SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
};

static struct {
    pthread_once_t once;
    int err;         /* tvmaf_ff_load's result */
    char msg[512];   /* why it failed */
    void *lib[N_LIBS];
} ld = { .once = PTHREAD_ONCE_INIT };

static void unload(void)
{
    for (int i = N_LIBS - 1; i >= 0; i--) {
        if (ld.lib[i]) dlclose(ld.lib[i]);
        ld.lib[i] = NULL;
    }
}

/* Opens library i (by SONAME, or from dir); 0, or -ENOTSUP with the message. */
static int open_lib(int i, const char *dir)
{
    char path[4096];
    const char *name = sonames[i];
    if (dir) {
        if (snprintf(path, sizeof(path), "%s/%s", dir, sonames[i]) >= (int)sizeof(path)) {
            snprintf(ld.msg, sizeof(ld.msg), "cannot load %s: TVMAF_FFMPEG_LIBDIR is too long",
                     sonames[i]);
            return -ENOTSUP;
        }
        name = path;
    }
    dlerror();
    if (!(ld.lib[i] = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        snprintf(ld.msg, sizeof(ld.msg), "cannot load %s: %s", sonames[i],
                 why ? why : "dlopen failed");
        return -ENOTSUP;
    }
    return 0;
}

static void load(void)
{
    const char *dir = getenv("TVMAF_FFMPEG_LIBDIR");
    if (dir && !*dir) dir = NULL;
    for (int i = 0; i < N_LIBS; i++) {
        if ((ld.err = open_lib(i, dir))) {
            unload();
            return;
        }
    }
    /* each entry point from its own library */
#define LOAD_FROM(which, fn)                                                                 \
    if (!(tvmaf_ff.fn = (__typeof__(fn) *)dlsym(ld.lib[which], #fn))) {                      \
        const char *why = dlerror();                                                         \
        snprintf(ld.msg, sizeof(ld.msg), "cannot load %s: %s", sonames[which],               \
                 why ? why : "no " #fn);                                                     \
        goto fail;                                                                           \
    }
#define LOAD_AVUTIL(fn) LOAD_FROM(AVUTIL, fn)
#define LOAD_SWSCALE(fn) LOAD_FROM(SWSCALE, fn)
#define LOAD_AVCODEC(fn) LOAD_FROM(AVCODEC, fn)
#define LOAD_AVFORMAT(fn) LOAD_FROM(AVFORMAT, fn)
    dlerror();
    TVMAF_FF_AVUTIL(LOAD_AVUTIL)
    TVMAF_FF_SWSCALE(LOAD_SWSCALE)
    TVMAF_FF_AVCODEC(LOAD_AVCODEC)
    TVMAF_FF_AVFORMAT(LOAD_AVFORMAT)
#undef LOAD_AVUTIL
#undef LOAD_SWSCALE
#undef LOAD_AVCODEC
#undef LOAD_AVFORMAT
#undef LOAD_FROM
    ld.err = 0;
    return;
fail:
    unload();
    tvmaf_ff = (TvmafFfApi){ 0 };
    ld.err = -ENOTSUP;
}

int tvmaf_ff_load(void)
{
    pthread_once(&ld.once, load);
    return ld.err;
}

const char *tvmaf_ff_error(void)
{
    pthread_once(&ld.once, load);
    return ld.err ? ld.msg : "";
}
