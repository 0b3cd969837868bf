/* The CLI's output files: atomic replacement, checks, names of several pairs' outputs. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs.h"

int output_writable(const char *path)
{
    struct stat st;
    if (!stat(path, &st)) {
        if (S_ISDIR(st.st_mode)) { errno = EISDIR; return 0; }
        return !access(path, W_OK);
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return !access(".", W_OK);
    if (slash == dir) slash[1] = '\0'; else *slash = '\0';
    return !access(dir, W_OK);
}

void file_id_get(FileId *id, const char *path, int output)
{
    memset(id, 0, sizeof(*id));
    struct stat st;
    const int is_stdin = !strcmp(path, "-");
    if (is_stdin && output) return;
    if (is_stdin ? !fstat(STDIN_FILENO, &st) : !stat(path, &st)) {
        if (!S_ISREG(st.st_mode)) return;
        id->kind = 1;
        id->dev = (unsigned long long)st.st_dev;
        id->ino = (unsigned long long)st.st_ino;
        return;
    }
    if (!output) return;
    /* not there yet: its folder resolved, its name kept */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    char *real = realpath(dir, NULL);
    const char *name = slash ? slash + 1 : path;
    const size_t len = (real ? strlen(real) : strlen(dir)) + strlen(name) + 2;
    if ((id->path = malloc(len))) {
        snprintf(id->path, len, "%s/%s", real ? real : dir, name);
        id->kind = 2;
    }
    free(real);
}

void file_id_free(FileId *id)
{
    free(id->path);
    id->path = NULL;
}

int file_id_same(const FileId *a, const FileId *b)
{
    if (!a->kind || a->kind != b->kind) return 0;
    return a->kind == 1 ? a->dev == b->dev && a->ino == b->ino : !strcmp(a->path, b->path);
}

int output_check_run(const char *app, const RunFile *files, unsigned n)
{
    FileId *ids = calloc(n ? n : 1, sizeof(*ids));
    if (!ids) {
        fprintf(stderr, "%s: out of memory\n", app);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) file_id_get(&ids[i], files[i].path, files[i].output);
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        if (!files[i].output) continue;
        for (unsigned j = 0; j < n && !rc; j++) {
            if (j == i || (files[j].output && j > i) || !file_id_same(&ids[i], &ids[j])) continue;
            fprintf(stderr, "%s: %s \"%s\" and %s \"%s\" are the same file: %s; give "
                    "another name\n", app, files[i].role, files[i].path, files[j].role,
                    files[j].path, files[j].output ? "one output would replace the other"
                                                   : "the output would replace an input");
            rc = -1;
        }
    }
    for (unsigned i = 0; i < n; i++) file_id_free(&ids[i]);
    free(ids);
    return rc;
}

/* The temporaries being written, for output_remove_temporaries(). */
#define MAX_TEMPORARIES 256
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static char tmp_paths[MAX_TEMPORARIES][4096];
static int tmp_removing;

/* Registers a temporary before it is created; -1 when the process is ending. */
static int tmp_register(const char *path, int *slot)
{
    pthread_mutex_lock(&tmp_lock);
    *slot = -1;
    for (int i = 0; i < MAX_TEMPORARIES && *slot < 0 && !tmp_removing; i++)
        if (!tmp_paths[i][0]) {
            snprintf(tmp_paths[i], sizeof(tmp_paths[i]), "%s", path);
            *slot = i;
        }
    const int ending = tmp_removing;
    pthread_mutex_unlock(&tmp_lock);
    return ending ? -1 : 0;
}

static void tmp_unregister(int slot)
{
    if (slot < 0) return;
    pthread_mutex_lock(&tmp_lock);
    tmp_paths[slot][0] = '\0';
    pthread_mutex_unlock(&tmp_lock);
}

void output_remove_temporaries(void)
{
    /* the lock stays taken: no temporary is made or renamed from here on */
    pthread_mutex_lock(&tmp_lock);
    tmp_removing = 1;
    for (int i = 0; i < MAX_TEMPORARIES; i++)
        if (tmp_paths[i][0]) unlink(tmp_paths[i]);
}

/* Writes into an open stream and closes it; returns 0 or an errno value. */
static int write_stream(FILE *f, OutputWriter write, void *arg, int sync)
{
    errno = 0;
    int e = 0;
    const int r = write(f, arg);
    if (r) e = r < 0 ? -r : errno ? errno : EIO;
    else if (fflush(f) || ferror(f)) e = errno ? errno : EIO;
    else if (sync && fsync(fileno(f))) e = errno;
    if (fclose(f) && !e) e = errno ? errno : EIO;
    return e;
}

/* The regular file `path` (st: its status, NULL when it does not exist yet)
 * through a temporary file beside it; `shown` names it in messages. */
static int write_replacing(const char *app, const char *path, const char *shown,
                           const struct stat *st, OutputWriter write, void *arg)
{
    char tmp[4096];
    const char *slash = strrchr(path, '/');
    const int dlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp-XXXXXX", dlen, path,
                 slash ? slash + 1 : path) >= (int)sizeof(tmp)) {
        fprintf(stderr, "%s: output path \"%s\" is too long\n", app, shown);
        return 1;
    }
    /* mkstemp's name is known once made: the slot holds the template until
     * then, and the lock orders it against a signal's clean-up */
    int slot;
    if (tmp_register(tmp, &slot)) return 1;
    pthread_mutex_lock(&tmp_lock);
    const int fd = mkstemp(tmp);
    if (slot >= 0 && fd >= 0) snprintf(tmp_paths[slot], sizeof(tmp_paths[slot]), "%s", tmp);
    pthread_mutex_unlock(&tmp_lock);
    if (fd < 0) {
        const int e = errno;
        tmp_unregister(slot);
        fprintf(stderr, "%s: cannot write \"%s\": cannot create a file beside it: %s\n", app,
                shown, strerror(e));
        return 1;
    }
    /* the mode a plain fopen() would give: the existing file's, else 0666 less the umask */
    mode_t mode;
    if (st) {
        mode = st->st_mode & 07777;
    } else {
        const mode_t um = umask(022);
        umask(um);
        mode = 0666 & ~um;
    }
    FILE *f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
    int e = f ? write_stream(f, write, arg, 1) : errno;
    if (!f) close(fd);
    if (!e) {
        pthread_mutex_lock(&tmp_lock);
        if (rename(tmp, path)) e = errno;
        pthread_mutex_unlock(&tmp_lock);
    }
    if (e) unlink(tmp);
    tmp_unregister(slot);
    if (e) {
        fprintf(stderr, "%s: writing \"%s\" failed: %s%s\n", app, shown, strerror(e),
                st ? " (the existing file is unchanged)" : "");
        return 1;
    }
    return 0;
}

int output_write(const char *app, const char *path, OutputWriter write, void *arg)
{
    if (!strcmp(path, "-")) {
        errno = 0;
        const int r = write(stdout, arg);
        int e = r < 0 ? -r : r ? (errno ? errno : EIO) : 0;
        if (!e && (fflush(stdout) || ferror(stdout))) e = errno ? errno : EIO;
        if (e) {
            fprintf(stderr, "%s: writing to stdout failed: %s\n", app, strerror(e));
            return 1;
        }
        return 0;
    }
    struct stat st;
    const int exists = !stat(path, &st);
    if (exists && !S_ISREG(st.st_mode)) {
        FILE *f = fopen(path, "w");
        const int e = f ? write_stream(f, write, arg, 0) : errno;
        if (e) {
            fprintf(stderr, "%s: %s \"%s\": %s\n", app, f ? "writing" : "cannot write", path,
                    strerror(e));
            return 1;
        }
        return 0;
    }
    /* a symbolic link is written through: the file it names is replaced */
    char *real = exists ? realpath(path, NULL) : NULL;
    const int rc = write_replacing(app, real ? real : path, path, exists ? &st : NULL, write,
                                   arg);
    free(real);
    return rc;
}

static const char *const extensions[] = {
    [TVMAF_OUTPUT_XML] = "xml", [TVMAF_OUTPUT_JSON] = "json",
    [TVMAF_OUTPUT_CSV] = "csv", [TVMAF_OUTPUT_SUB] = "sub",
};

const char *output_extension(enum TvmafOutputFormat fmt)
{
    return extensions[fmt];
}

int output_format_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot) return -1;
    for (int f = 0; f < (int)(sizeof(extensions) / sizeof(extensions[0])); f++)
        if (!strcasecmp(dot + 1, extensions[f])) return f;
    return -1;
}

/* The distorted input's file name without its folder and last extension. */
static void dis_stem(char *out, size_t len, const char *dis)
{
    if (!strcmp(dis, "-")) {
        snprintf(out, len, "stdin");
        return;
    }
    const char *b = strrchr(dis, '/');
    b = b ? b + 1 : dis;
    const char *dot = strrchr(b, '.');
    const int n = dot && dot != b ? (int)(dot - b) : (int)strlen(b);
    snprintf(out, len, "%.*s", n, b);
}

/* -o PATTERN expanded for one pair (output_pair_name). */
static int expand_pattern(char *out, size_t len, const char *pattern, unsigned index,
                          const char *dis, char *msg, size_t msg_len)
{
    size_t o = 0;
    for (const char *c = pattern; *c; c++) {
        char piece[4200];
        if (*c != '%') {
            piece[0] = *c;
            piece[1] = '\0';
        } else if (c[1] == '%') {
            snprintf(piece, sizeof(piece), "%%");
            c++;
        } else if (c[1] == 's') {
            dis_stem(piece, sizeof(piece), dis);
            c++;
        } else {
            unsigned width = 0;
            const char *d = c + 1;
            const int zero = *d == '0';
            while (*d >= '0' && *d <= '9' && width < 100) width = width * 10 + (unsigned)(*d++ - '0');
            if (*d != 'd') {
                snprintf(msg, msg_len, "-o \"%s\": '%%' starts %%d, %%0Nd (the pair's number), %%s "
                         "(the distorted input's name) or %%%% (a '%%')", pattern);
                return -1;
            }
            snprintf(piece, sizeof(piece), zero ? "%0*u" : "%*u", (int)width, index);
            c = d;
        }
        const size_t pl = strlen(piece);
        if (o + pl + 1 > len) {
            snprintf(msg, msg_len, "-o \"%s\": the name is too long", pattern);
            return -1;
        }
        memcpy(out + o, piece, pl + 1);
        o += pl;
    }
    return 0;
}

int output_pair_name(char *out, size_t len, const char *pattern, const char *dir,
                     enum TvmafOutputFormat fmt, unsigned index, const char *dis, char *msg,
                     size_t msg_len)
{
    out[0] = '\0';
    if (dir) {
        char stem[4096];
        dis_stem(stem, sizeof(stem), dis);
        if (snprintf(out, len, "%s/%s.%s", dir, stem, extensions[fmt]) >= (int)len) {
            snprintf(msg, msg_len, "--output-dir: the name is too long");
            return -1;
        }
        return 0;
    }
    if (pattern) return expand_pattern(out, len, pattern, index, dis, msg, msg_len);
    return 0;
}
