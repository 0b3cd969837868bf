/*
 * The raw module: planar YUV frames back to back (io/planar.h), their
 * geometry given by the caller. Last in the recognition order: it reads
 * whatever no other module claims, and refuses when no geometry is given.
 *
 * Frames have one size, so a regular file can be counted from its size and
 * read at any frame from any thread (random access, io/video_reader.h).
 */
/* POSIX (pread, fileno); the build defines _GNU_SOURCE, this keeps the file
 * compiling on its own under -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/picture_pool.h"
#include "io/input.h"

/* Largest width or height accepted (as for Y4M, io/y4m.c). */
#define RAW_MAX_DIM 32768u

/* The whole file mapped read-only; each picture wrapped in it holds a
 * reference, the reader one more, and the last unmaps it. */
typedef struct RawMap {
    atomic_uint refs;
    unsigned char *addr;
    size_t len;
    char *name;      /* the input's name, for the SIGBUS message */
    unsigned slot;   /* in maps[] */
} RawMap;

/* The mappings in use, for the SIGBUS handler, which may only read them: a
 * slot is claimed by a compare-and-swap on its RawMap pointer. */
#define RAW_MAX_MAPS 64
static _Atomic(RawMap *) maps[RAW_MAX_MAPS];

static bool map_register(RawMap *m)
{
    for (unsigned i = 0; i < RAW_MAX_MAPS; i++) {
        RawMap *none = NULL;
        if (atomic_compare_exchange_strong(&maps[i], &none, m)) {
            m->slot = i;
            return true;
        }
    }
    return false;
}

/* The mapping that holds addr, or NULL (async-signal-safe). */
static const RawMap *map_holding(const void *addr)
{
    for (unsigned i = 0; i < RAW_MAX_MAPS; i++) {
        const RawMap *m = atomic_load(&maps[i]);
        if (m && (const unsigned char *)addr >= m->addr &&
            (const unsigned char *)addr < m->addr + m->len)
            return m;
    }
    return NULL;
}

bool tvmaf_reader_mapped(const void *addr)
{
    return map_holding(addr) != NULL;
}

static void (*fault_cleanup)(void);

/* A kernel SIGBUS at an address of a mapped input: the file has shrunk
 * under the mapping. Anything else keeps the default action. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const RawMap *m = si->si_code > 0 ? map_holding(si->si_addr) : NULL;
    if (!m) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (fault_cleanup) fault_cleanup();
    static const char a[] = "tvmaf: raw input ", b[] = " was truncated while its frames "
                            "were being scored (a bus error reading them); stopping\n";
    ssize_t unused = write(STDERR_FILENO, a, sizeof(a) - 1);
    unused = write(STDERR_FILENO, m->name, strlen(m->name));
    unused = write(STDERR_FILENO, b, sizeof(b) - 1);
    (void)unused;
    _exit(1);
}

int tvmaf_reader_catch_truncation(void (*cleanup)(void))
{
    fault_cleanup = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

typedef struct RawPriv {
    /* random access: the file offset of frame k = 0, and the file's size */
    uint64_t base, file_size;
    RawMap *map; /* NULL: frames are read into pictures of their own */
} RawPriv;

static void raw_map_release(void *opaque)
{
    RawMap *m = opaque;
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1) {
        atomic_store(&maps[m->slot], NULL);
        munmap(m->addr, m->len);
        free(m->name);
        free(m);
    }
}

/* Maps the file when its frames can be scored where they lie: every
 * plane's rows as tvmaf_picture_layout lays out a picture (rows of a
 * multiple of 64 bytes, so no padding; planes back to back) and every
 * frame 64-byte aligned. Otherwise, or when mmap fails, frames are read. */
static void raw_try_map(TvmafReader *r, RawPriv *p)
{
    const TvmafVideoFormat *f = &r->fmt;
    size_t stride[3], off[3], total;
    unsigned pw[3], ph[3];
    if (tvmaf_picture_layout(f->pix_fmt, f->bpc, f->w, f->h, stride, off, &total) ||
        tvmaf_plane_dims(f->pix_fmt, f->w, f->h, pw, ph))
        return;
    for (unsigned i = 0; i < 3; i++)
        if (pw[i] && stride[i] != (size_t)pw[i] * r->layout.sample_bytes) return;
    if (total != r->layout.frame_bytes || total % 64 || p->base % 64 ||
        p->file_size > SIZE_MAX || !p->file_size)
        return;
    RawMap *m = calloc(1, sizeof(*m));
    if (!m || !(m->name = strdup(r->name))) {
        free(m);
        return;
    }
    void *a = mmap(NULL, (size_t)p->file_size, PROT_READ, MAP_SHARED, fileno(r->stream.f), 0);
    if (a == MAP_FAILED) {
        free(m->name);
        free(m);
        return;
    }
    atomic_init(&m->refs, 1);
    m->addr = a;
    m->len = (size_t)p->file_size;
    if (!map_register(m)) { /* more inputs mapped than slots: this one is read */
        munmap(a, m->len);
        free(m->name);
        free(m);
        return;
    }
    p->map = m;
}

static int raw_probe(const unsigned char *first, size_t n, const TvmafReaderConfig *cfg)
{
    (void)first;
    (void)n;
    (void)cfg;
    return 1;
}

static int raw_open(TvmafReader *r, const char *path, const TvmafReaderConfig *cfg, char *msg,
                    size_t msg_len)
{
    (void)path;
    if (!tvmaf_config_has_raw(cfg)) {
        size_t n;
        tvmaf_stream_ahead(&r->stream, &n);
        if (!n)
            tvmaf_io_msg(msg, msg_len, "Input %s is empty: it has no Y4M header, and no raw "
                         "YUV format was given.", r->name);
        else
            tvmaf_io_msg(msg, msg_len, "%s is not a Y4M stream (no \"YUV4MPEG2 \" header), and "
                         "raw YUV input needs a pixel format, bit depth, width and height.",
                         r->name);
        return -EINVAL;
    }
    /* a container's signature under a given raw geometry: reading its bytes
     * as YUV would give a score of garbage, so the geometry is refused (the
     * CLI says the same with its own flags before opening) */
    size_t n;
    const unsigned char *first = tvmaf_stream_ahead(&r->stream, &n);
    const char *kind = tvmaf_encoded_signature(first, n);
    if (kind) {
        tvmaf_io_msg(msg, msg_len, "%s is an encoded video (%s), decoded with its own size and "
                     "format: give no raw YUV geometry for it.", r->name, kind);
        return -EINVAL;
    }
    const TvmafVideoFormat *raw = &cfg->raw;
    if (raw->pix_fmt != TVMAF_PIX_FMT_YUV420P && raw->pix_fmt != TVMAF_PIX_FMT_YUV422P &&
        raw->pix_fmt != TVMAF_PIX_FMT_YUV444P && raw->pix_fmt != TVMAF_PIX_FMT_YUV400P) {
        tvmaf_io_msg(msg, msg_len, "Raw input %s: no valid pixel format given "
                     "(use 420, 422, 444 or 400).", r->name);
        return -EINVAL;
    }
    if (raw->bpc != 8 && raw->bpc != 10 && raw->bpc != 12 && raw->bpc != 16) {
        tvmaf_io_msg(msg, msg_len, "Raw input %s: unsupported bit depth %u "
                     "(supported: 8, 10, 12, 16).", r->name, raw->bpc);
        return -EINVAL;
    }
    if (!raw->w || !raw->h || raw->w > RAW_MAX_DIM || raw->h > RAW_MAX_DIM) {
        tvmaf_io_msg(msg, msg_len, "Raw input %s: width and height must be between 1 and %u "
                     "(got %ux%u).", r->name, RAW_MAX_DIM, raw->w, raw->h);
        return -EINVAL;
    }
    r->fmt = *raw;
    return 0;
}

static int raw_read(TvmafReader *r, TvmafPicture *pic, char *msg, size_t msg_len)
{
    const int rc = tvmaf_stream_more(&r->stream, msg, msg_len);
    return rc <= 0 ? rc : tvmaf_planar_read(r, "Raw input ", pic, msg, msg_len);
}

static int raw_skip(TvmafReader *r, char *msg, size_t msg_len)
{
    const int rc = tvmaf_stream_more(&r->stream, msg, msg_len);
    return rc <= 0 ? rc : tvmaf_planar_pass(r, "Raw input ", msg, msg_len);
}

/* A file whose size is not a whole number of frames: -1 (reading it
 * reports the truncation). */
static int64_t raw_frames_left(TvmafReader *r)
{
    const uint64_t fb = r->layout.frame_bytes;
    const uint64_t left = tvmaf_stream_left(&r->stream);
    if (!fb || left == UINT64_MAX || left % fb) return -1;
    return (int64_t)(left / fb);
}

static int raw_begin_random_access(TvmafReader *r)
{
    RawPriv *p = r->priv;
    /* pread hands out the file's bytes as they are: 16-bit samples need a
     * little-endian host */
    if (r->layout.sample_bytes == 2 && !tvmaf_planar_host_le()) return 0;
    struct stat st;
    const int64_t at = tvmaf_stream_offset(&r->stream);
    if (at < 0 || fstat(fileno(r->stream.f), &st)) return 0;
    p->base = (uint64_t)at;
    p->file_size = (uint64_t)st.st_size;
    if (r->map_frames) raw_try_map(r, p);
    return 1;
}

/* pread until n bytes or the end of the file; returns how many it got. */
static size_t pread_full(int fd, unsigned char *d, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t k = pread(fd, d + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

/* Touches only the file (pread) and the new picture: callable from several
 * threads at once. */
static int raw_read_at(TvmafReader *r, uint64_t k, TvmafPicture *pic, char *msg, size_t msg_len)
{
    const RawPriv *p = r->priv;
    const TvmafPlanar *l = &r->layout;
    const uint64_t start = p->base + k * l->frame_bytes;
    if (start >= p->file_size) return 0;
    const uint64_t frame_no = r->frame_no + k;
    if (start + l->frame_bytes > p->file_size)
        return tvmaf_planar_short(r, "Raw input ", frame_no, p->file_size - start, msg, msg_len);
    if (p->map) {
        /* the frame's page-table entries made here, on the reading thread,
         * which also finds a file that has shrunk since it was opened
         * (kernels without MADV_POPULATE_READ fault the pages in as they
         * are read) */
        const size_t page = (size_t)sysconf(_SC_PAGESIZE);
        const size_t len = r->luma_only ? (size_t)l->pw[0] * l->sample_bytes * l->ph[0]
                                        : (size_t)l->frame_bytes;
        const size_t lo = (size_t)start & ~(page - 1);
#ifdef MADV_POPULATE_READ
        int e;
        do e = madvise(p->map->addr + lo, (size_t)start + len - lo, MADV_POPULATE_READ) ? errno : 0;
        while (e == EINTR || e == EAGAIN);
        if (e && e != EINVAL) {
            tvmaf_io_msg(msg, msg_len, "Cannot read frame %llu of %s: %s.",
                         (unsigned long long)frame_no, r->name,
                         e == EFAULT ? "the file is shorter than when it was opened"
                                     : strerror(e));
            return -EIO;
        }
#endif
        atomic_fetch_add_explicit(&p->map->refs, 1, memory_order_relaxed);
        const int rc = tvmaf_picture_wrap_host(pic, r->fmt.pix_fmt, r->fmt.bpc, r->fmt.w,
                                               r->fmt.h, p->map->addr + start,
                                               raw_map_release, p->map);
        if (rc) {
            raw_map_release(p->map);
            tvmaf_io_msg(msg, msg_len, "Out of memory reading frame %llu of %s.",
                         (unsigned long long)frame_no, r->name);
            return rc;
        }
        return 1;
    }
    int rc = tvmaf_planar_alloc(r, pic, msg, msg_len);
    if (rc) return rc;
    uint64_t off = start;
    const unsigned planes = r->luma_only ? 1 : l->nplanes;
    for (unsigned i = 0; i < planes; i++) {
        unsigned char *d = pic->data[i];
        const size_t row = (size_t)l->pw[i] * l->sample_bytes, rows = l->ph[i];
        const size_t got = pread_full(fileno(r->stream.f), d, row * rows, off);
        if (got < row * rows) {
            /* the file shrank since the reading began */
            const int e = errno;
            tvmaf_io_msg(msg, msg_len, "Cannot read frame %llu of %s: %s.",
                         (unsigned long long)frame_no, r->name,
                         got || !e ? "the file is shorter than when it was opened" : strerror(e));
            tvmaf_picture_unref(pic);
            memset(pic, 0, sizeof(*pic));
            return -EIO;
        }
        tvmaf_planar_spread(d, row, rows, (size_t)pic->stride[i]);
        off += row * rows;
    }
    return 1;
}

static void raw_close(TvmafReader *r)
{
    RawPriv *p = r->priv;
    if (p->map) raw_map_release(p->map);
    p->map = NULL;
}

const TvmafInput tvmaf_input_raw = {
    .kind = "raw",
    .priv_size = sizeof(RawPriv),
    .probe = raw_probe,
    .open = raw_open,
    .read = raw_read,
    .skip = raw_skip,
    .frames_left = raw_frames_left,
    .scale_filters = "",
    .begin_random_access = raw_begin_random_access,
    .read_at = raw_read_at,
    .close = raw_close,
};
