/*
 * libvmaf's CUDA path as FFmpeg 7.1's libvmaf_cuda filter drives it, on the
 * CUDA driver stand-in (tests/standin/): a context of the caller's own
 * (cuCtxCreate, as FFmpeg's CUDA device makes), vmaf_cuda_state_init with
 * it, import, device pictures preallocated, and per frame the filter's copy:
 * the luma plane alone, device to device, on the caller's legacy default
 * stream, then vmaf_read_pictures. The copies are queued and not waited for
 * (cuMemcpy2DAsync on stream 0, which the stand-in runs only when someone
 * waits), so the drop-in must wait for that stream before its kernels read
 * the pictures; the stand-in poisons new device memory, so pictures read
 * too early give other scores.
 *
 * Checked, every value as bits: vmaf_v0.6.1's per-frame scores, its
 * features' per-frame scores and the pooled mean equal the CPU's (the same
 * drop-in with TVMAF_LIBVMAF_BACKEND=cpu, host pictures), on 8-bit and
 * 16-bit clips, one frame at a time and with two threads. Refused, as the
 * drop-in documents: a feature that reads chroma (psnr) on these luma-only
 * pictures, and device pictures in a context kept on the CPU. Last, the
 * caller's context is destroyed after vmaf_close: the stand-in fails if the
 * drop-in left device memory allocated in it.
 *
 * Exits 77 without a CUDA driver (or stand-in) to load.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <libvmaf/libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>

static struct {
    CUresult (*init)(unsigned);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*ctx_create)(CUcontext *, CUctxCreateParams *, unsigned, CUdevice);
    CUresult (*ctx_destroy)(CUcontext);
    CUresult (*ctx_push)(CUcontext);
    CUresult (*ctx_pop)(CUcontext *);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*htod_async)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*copy_2d_async)(const CUDA_MEMCPY2D *, CUstream);
} cu;

static unsigned failed, checked;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failed++;                                                                          \
            printf("FAIL  " __VA_ARGS__);                                                      \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static void die(const char *what, long r)
{
    fprintf(stderr, "cuda_device_test: %s failed (%ld)\n", what, r);
    exit(1);
}

static int load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1;
#define SYM(field, name)                                                                       \
    if (!(*(void **)&cu.field = dlsym(lib, name))) return -1
    SYM(init, "cuInit");
    SYM(device_get, "cuDeviceGet");
    SYM(ctx_create, "cuCtxCreate_v4");
    SYM(ctx_destroy, "cuCtxDestroy_v2");
    SYM(ctx_push, "cuCtxPushCurrent_v2");
    SYM(ctx_pop, "cuCtxPopCurrent_v2");
    SYM(mem_alloc, "cuMemAlloc_v2");
    SYM(mem_free, "cuMemFree_v2");
    SYM(htod_async, "cuMemcpyHtoDAsync_v2");
    SYM(copy_2d_async, "cuMemcpy2DAsync_v2");
#undef SYM
    return cu.init(0) == CUDA_SUCCESS ? 0 : -1;
}

typedef struct Clip {
    const char *name;
    unsigned w, h, bpc, frames;
    unsigned char *ref, *dis; /* frames x (w*h luma + chroma), as in the file */
    size_t frame_bytes;
} Clip;

static void read_clip(Clip *c, const char *dir)
{
    const size_t bytes = c->bpc > 8 ? 2 : 1;
    const size_t chroma = (size_t)((c->w + 1) / 2) * ((c->h + 1) / 2);
    c->frame_bytes = ((size_t)c->w * c->h + 2 * chroma) * bytes;
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.%s.yuv", dir, c->name, k ? "dis" : "ref");
        FILE *f = fopen(path, "rb");
        if (!f) die(path, errno);
        unsigned char *buf = malloc(c->frame_bytes * c->frames);
        if (!buf || fread(buf, c->frame_bytes, c->frames, f) != c->frames) die(path, -1);
        fclose(f);
        *(k ? &c->dis : &c->ref) = buf;
    }
}

/* The drop-in's scores of one run, to compare as bits. */
#define N_KEYS 8
static const char *const keys[N_KEYS] = {
    "VMAF_integer_feature_adm2_score",       "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_adm_scale0",                    "integer_adm_scale3",
};
typedef struct Scores {
    double vmaf[16], feat[16][N_KEYS], pooled;
} Scores;

static void host_picture(VmafPicture *p, const Clip *c, const unsigned char *frame)
{
    if (vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, c->bpc, c->w, c->h)) die("picture", 0);
    const size_t bytes = c->bpc > 8 ? 2 : 1;
    const unsigned char *src = frame;
    for (int k = 0; k < 3; k++) {
        const size_t row = p->w[k] * bytes;
        for (unsigned y = 0; y < p->h[k]; y++, src += row)
            memcpy((unsigned char *)p->data[k] + y * p->stride[k], src, row);
    }
}

static void collect(VmafContext *v, VmafModel *m, const Clip *c, Scores *s)
{
    for (unsigned i = 0; i < c->frames; i++) {
        if (vmaf_score_at_index(v, m, &s->vmaf[i], i)) die("vmaf_score_at_index", i);
        for (int k = 0; k < N_KEYS; k++)
            if (vmaf_feature_score_at_index(v, keys[k], &s->feat[i][k], i))
                die(keys[k], i);
    }
    if (vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &s->pooled, 0, c->frames - 1))
        die("vmaf_score_pooled", 0);
}

static VmafModel *load_model(void)
{
    VmafModel *m = NULL;
    VmafModelConfig mc = { .name = "vmaf" };
    if (vmaf_model_load(&m, &mc, "vmaf_v0.6.1")) die("vmaf_model_load", 0);
    return m;
}

static void cpu_scores(const Clip *c, unsigned threads, Scores *s)
{
    setenv("TVMAF_LIBVMAF_BACKEND", "cpu", 1);
    VmafContext *v;
    if (vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                           .n_threads = threads }))
        die("vmaf_init", 0);
    unsetenv("TVMAF_LIBVMAF_BACKEND");
    VmafModel *m = load_model();
    if (vmaf_use_features_from_model(v, m)) die("vmaf_use_features_from_model", 0);
    for (unsigned i = 0; i < c->frames; i++) {
        VmafPicture r, d;
        host_picture(&r, c, c->ref + i * c->frame_bytes);
        host_picture(&d, c, c->dis + i * c->frame_bytes);
        if (vmaf_read_pictures(v, &r, &d, i)) die("vmaf_read_pictures (cpu)", i);
    }
    if (vmaf_read_pictures(v, NULL, NULL, 0)) die("flush (cpu)", 0);
    collect(v, m, c, s);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* FFmpeg's side: its decoded frames in its own device memory. */
typedef struct Decoder {
    CUcontext ctx;
    CUdeviceptr luma[2]; /* reference, distorted; pitch: a row rounded up to 512 */
    size_t pitch;
} Decoder;

/* libvmaf_cuda's copy_picture_data_cuda: fetch, push, plane 0 only, pop. */
static int filter_copy(VmafContext *v, Decoder *dec, CUdeviceptr src, VmafPicture *dst)
{
    int err = vmaf_cuda_fetch_preallocated_picture(v, dst);
    if (err) return err;
    if (cu.ctx_push(dec->ctx)) die("cuCtxPushCurrent", 0);
    CUDA_MEMCPY2D m = { .srcMemoryType = CU_MEMORYTYPE_DEVICE,
                        .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                        .srcDevice = src,
                        .srcPitch = dec->pitch,
                        .dstDevice = (CUdeviceptr)dst->data[0],
                        .dstPitch = dst->stride[0],
                        .WidthInBytes = dst->w[0] * ((dst->bpc + 7) / 8),
                        .Height = dst->h[0] };
    /* queued on the legacy stream, not waited for */
    if (cu.copy_2d_async(&m, 0)) die("cuMemcpy2DAsync", 0);
    CUcontext popped;
    if (cu.ctx_pop(&popped)) die("cuCtxPopCurrent", 0);
    return 0;
}

/* One run of the filter: scores, or the error of the first failing call. */
static int device_scores(Decoder *dec, const Clip *c, unsigned threads, const char *feature,
                         Scores *s)
{
    VmafContext *v;
    if (vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                           .n_threads = threads }))
        die("vmaf_init", 0);
    VmafCudaState *st = NULL;
    int err = vmaf_cuda_state_init(&st, (VmafCudaConfiguration){ .cu_ctx = dec->ctx });
    if (!err) err = vmaf_cuda_import_state(v, st);
    VmafCudaPictureConfiguration pc = {
        .pic_params = { c->w, c->h, c->bpc, VMAF_PIX_FMT_YUV420P },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    };
    if (!err) err = vmaf_cuda_preallocate_pictures(v, pc);
    VmafModel *m = load_model();
    if (!err) err = vmaf_use_features_from_model(v, m);
    if (!err && feature) err = vmaf_use_feature(v, feature, NULL);
    const size_t bytes = c->bpc > 8 ? 2 : 1;
    for (unsigned i = 0; !err && i < c->frames; i++) {
        const unsigned char *frame[2] = { c->ref + i * c->frame_bytes,
                                          c->dis + i * c->frame_bytes };
        /* the decoder's output, in its memory (queued on the legacy stream,
         * as the filter's copies) */
        if (cu.ctx_push(dec->ctx)) die("cuCtxPushCurrent", 0);
        for (int k = 0; k < 2; k++)
            for (unsigned y = 0; y < c->h; y++)
                if (cu.htod_async(dec->luma[k] + y * dec->pitch,
                                  frame[k] + (size_t)y * c->w * bytes, c->w * bytes, 0))
                    die("cuMemcpyHtoD", y);
        CUcontext popped;
        cu.ctx_pop(&popped);
        VmafPicture r, d;
        if ((err = filter_copy(v, dec, dec->luma[0], &r))) break;
        if ((err = filter_copy(v, dec, dec->luma[1], &d))) {
            vmaf_picture_unref(&r);
            break;
        }
        err = vmaf_read_pictures(v, &r, &d, i);
        /* a refused pair stays the caller's */
        if (err && r.ref) vmaf_picture_unref(&r);
        if (err && d.ref) vmaf_picture_unref(&d);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    if (!err) collect(v, m, c, s);
    vmaf_model_destroy(m);
    vmaf_close(v);
    free(st); /* libvmaf has no call for it; its context keeps a copy */
    return err;
}

static void compare(const Clip *c, unsigned threads, const Scores *a, const Scores *b)
{
    unsigned diff = 0;
    for (unsigned i = 0; i < c->frames; i++) {
        diff += memcmp(&a->vmaf[i], &b->vmaf[i], sizeof(double)) != 0;
        for (int k = 0; k < N_KEYS; k++)
            diff += memcmp(&a->feat[i][k], &b->feat[i][k], sizeof(double)) != 0;
        checked += 1 + N_KEYS;
    }
    diff += memcmp(&a->pooled, &b->pooled, sizeof(double)) != 0;
    checked++;
    CHECK(!diff, "%s, %u threads: %u of %u values differ from the CPU's (frame 0 vmaf %.17g "
          "against %.17g)", c->name, threads, diff, c->frames * (1 + N_KEYS) + 1, b->vmaf[0],
          a->vmaf[0]);
    printf("%-5s %s, %u frames, %u threads: vmaf_v0.6.1, %d features and the pooled mean "
           "(%.6f) as the CPU's\n", diff ? "FAIL" : "ok", c->name, c->frames, threads, N_KEYS,
           b->pooled);
}

int main(void)
{
    if (load_driver()) {
        printf("no CUDA driver to load (libcuda.so.1): skipped\n");
        return 77;
    }
    const char *dir = getenv("TVMAF_CLIPS");
    if (!dir || !*dir) dir = getenv("TVMAF_CLIPS_DEFAULT");
    if (!dir) die("TVMAF_CLIPS", 0);
    Clip clips[] = { { "cups_576x324", 576, 324, 8, 5, NULL, NULL, 0 },
                     { "cups_576x324_16b", 576, 324, 16, 3, NULL, NULL, 0 } };

    Decoder dec = { 0 };
    CUdevice d0;
    if (cu.device_get(&d0, 0) || cu.ctx_create(&dec.ctx, NULL, 0, d0)) die("cuCtxCreate", 0);
    dec.pitch = (576 * 2 + 511) / 512 * 512;
    for (int k = 0; k < 2; k++)
        if (cu.mem_alloc(&dec.luma[k], dec.pitch * 324)) die("cuMemAlloc", k);
    CUcontext popped;
    cu.ctx_pop(&popped); /* FFmpeg pushes its context around its own calls */

    for (size_t i = 0; i < sizeof(clips) / sizeof(clips[0]); i++) {
        Clip *c = &clips[i];
        read_clip(c, dir);
        const unsigned threads = i ? 2 : 0;
        Scores cpu, gpu;
        cpu_scores(c, threads, &cpu);
        const int err = device_scores(&dec, c, threads, NULL, &gpu);
        CHECK(!err, "%s: the device run failed (%d)", c->name, err);
        if (!err) compare(c, threads, &cpu, &gpu);
    }

    /* refusals */
    Scores unused;
    Clip *c = &clips[0];
    const int psnr = device_scores(&dec, c, 0, "psnr", &unused);
    CHECK(psnr == -EINVAL, "psnr (chroma) on luma-only device pictures: %d, want -EINVAL", psnr);
    printf("%-5s psnr on luma-only device pictures refused (%d)\n", psnr == -EINVAL ? "ok" : "FAIL",
           psnr);
    setenv("TVMAF_LIBVMAF_BACKEND", "cpu", 1);
    const int on_cpu = device_scores(&dec, c, 0, NULL, &unused);
    unsetenv("TVMAF_LIBVMAF_BACKEND");
    CHECK(on_cpu == -EINVAL, "device pictures in a context on the CPU: %d, want -EINVAL", on_cpu);
    printf("%-5s device pictures refused in a context kept on the CPU (%d)\n",
           on_cpu == -EINVAL ? "ok" : "FAIL", on_cpu);

    /* the caller's context goes last, as FFmpeg's device does: the stand-in
     * stops the test if memory the drop-in allocated in it is still there */
    if (cu.ctx_push(dec.ctx)) die("cuCtxPushCurrent", 0);
    for (int k = 0; k < 2; k++) cu.mem_free(dec.luma[k]);
    cu.ctx_pop(&popped);
    if (cu.ctx_destroy(dec.ctx)) die("cuCtxDestroy", 0);
    for (size_t i = 0; i < sizeof(clips) / sizeof(clips[0]); i++) {
        free(clips[i].ref);
        free(clips[i].dis);
    }
    printf("%u values compared, %u failed checks\n", checked, failed);
    return failed ? 1 : 0;
}
