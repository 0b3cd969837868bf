/*
 * A reference/distorted picture pair on a CUDA device: the planes the twins'
 * kernels read (core's TvmafDeviceFrame, as this backend defines it). The
 * backend owns one per worker thread (allocated once) and uploads each frame
 * into it once, whatever the number of twins; a twin makes its stream wait
 * for `ready` and reads the planes. The luma planes only, when every twin in
 * use reads luma only. Feature-independent.
 *
 * The device planes have the layout of tvmaf_picture_alloc's pictures
 * (core/picture_pool.h), so a picture goes up as one contiguous block: its
 * luma plane, or the whole picture when the chroma is needed. The worker
 * copies both pictures' blocks into the frame's own page-locked staging
 * buffer (allocated on the frame's first upload, by the worker, so the
 * workers set theirs up in parallel) and sends them with one DMA. Pictures
 * that are page-locked already (TVMAF_GPU_PINNED_PICTURES) go straight up,
 * and pictures of another layout (built by an API user) plane by plane from
 * their own memory through the driver.
 *
 * In a ladder (a shared reference cache given to the upload, ref_cache.h)
 * the reference planes are those of the cache's entry for the picture: the
 * first worker of the ladder's contexts to need the picture uploads it there,
 * the others wait for that upload; the frame holds the entry until
 * tvmaf_cuda_frame_release.
 *
 * Reuse: the next upload into a frame may start once every twin that waited
 * for its `ready` has finished with it; the context ensures this by running
 * a worker's frames one after the other, each twin synchronising its stream
 * before its extract returns.
 */
#ifndef TVMAF_GPU_CUDA_DEVICE_FRAME_H
#define TVMAF_GPU_CUDA_DEVICE_FRAME_H

#include "core/feature.h"
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/cuda/ref_cache.h"

struct TvmafDeviceFrame {
    CUdeviceptr plane[2][3]; /* [dis][p]: the reference's planes, the distorted's */
    size_t pitch[3];         /* bytes per row on the device, per plane */
    unsigned pw[3], ph[3];
    unsigned n_planes;       /* planes uploaded: 1 (luma) or 3 */
    unsigned bytes_per_sample;
    CUevent ready;           /* recorded after the upload */
    /* owned */
    CUstream stream;         /* the uploads' stream */
    CUdeviceptr d_buf;
    size_t size;
    size_t copy_bytes;       /* bytes of one picture copied: its luma, or all */
    unsigned char *h_stage;  /* page-locked, 2 x copy_bytes */
    TvmafCudaSpan span;
    size_t off[3];           /* plane p at byte off[p] of a picture's copy */
    TvmafCudaRefCache *cache;   /* the ladder's shared references, or NULL */
    TvmafCudaRefEntry *entry;   /* held from the upload to the release */
    unsigned n_derived;         /* the reference-side areas the cache's entries hold */
    /* the host reference picture of the frame being scored (valid until
     * the frame is released) and its serial (0: none, not the library's) */
    const TvmafPicture *ref_pic;
    uint64_t ref_serial;
    /* reference pictures this frame uploaded, and found uploaded already;
     * reference-side results its twins computed, and found computed */
    unsigned long long ref_uploads, ref_shared;
    unsigned long long derived_made, derived_shared;
    /* results its twins kept with the host reference picture
     * (tvmaf_picture_once: motion's SAD), computed and read */
    unsigned long long host_made, host_shared;
};

/* Call with the device's context current. n_planes: 1 or 3. The device
 * buffer comes from `gpu`'s memory (its limit applies). */
int tvmaf_cuda_frame_alloc(TvmafDeviceFrame *f, TvmafGpu *gpu, const TvmafVideoInfo *vi,
                           unsigned n_planes);
void tvmaf_cuda_frame_free(TvmafDeviceFrame *f, TvmafGpu *gpu);
/* Queues the upload of both pictures and records `ready` (context current);
 * `pinned`: the device's page-locked picture allocator. With f->cache set,
 * the reference comes from (or goes to) the cache's entry for it. */
int tvmaf_cuda_frame_upload(TvmafDeviceFrame *f, const TvmafPicture *ref, const TvmafPicture *dis,
                            const TvmafHostAllocator *pinned);
/* A twin's reference-side results of this frame's reference, slot `slot`
 * of the ladder's cache (tvmaf_cuda_gpu_ref_derived). *d = 0 when the
 * reference is not in the cache (no ladder, or a picture without a serial):
 * the twin computes everything itself. Otherwise *d is the slot's area and,
 * with *fill, the twin must queue the work that fills it on `stream` and
 * then call tvmaf_cuda_frame_ref_derived_done; without, `stream` now waits
 * for that work, queued by another pair. Context current; the stream
 * already waits for the frame's upload. */
int tvmaf_cuda_frame_ref_derived(const TvmafDeviceFrame *f, unsigned slot, CUstream stream,
                                 CUdeviceptr *d, bool *fill);
/* The filling work was queued on `stream` (ok: its event is recorded there)
 * or failed. Returns an error of the recording. */
int tvmaf_cuda_frame_ref_derived_done(const TvmafDeviceFrame *f, unsigned slot, CUstream stream,
                                      bool ok);
/* A twin's result kept with the frame's host reference picture
 * (tvmaf_picture_once) was computed by this pair, or read from another's:
 * counted for the statistics. */
void tvmaf_cuda_frame_count_host_result(const TvmafDeviceFrame *f, bool computed);
/* The frame's twins are done with it: a held cache entry goes back. */
void tvmaf_cuda_frame_release(TvmafDeviceFrame *f);

#endif
