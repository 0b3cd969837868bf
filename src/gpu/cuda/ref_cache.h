/*
 * Reference pictures uploaded once for every context of a ladder.
 *
 * The contexts of a ladder (one reference, several distorted inputs, each
 * pair its own context: TVMAF_GPU_SHARED_REFERENCE) hold the same reference
 * pictures (tvmaf_picture_ref). Without this each context's worker would
 * copy the same picture into its staging buffer and send it to the device
 * again. A cache of device copies, one per device and picture size, keyed by
 * the picture's serial (tvmaf_picture_serial: it names the picture's
 * contents, never reused in the process), lets the first worker to need a
 * picture upload it and the others make their streams wait for that upload
 * and read the same device memory.
 *
 * An entry is held by each worker reading it, from its frame's upload until
 * its frame is done (every twin has synchronised its stream by then), and may
 * be given to another picture only when no worker holds it. A worker holds at
 * most one entry, and each context brings two entries per worker, so a
 * worker never waits for room; it
 * waits only, briefly, for another worker that is queueing the same
 * picture's upload. Feature-independent.
 */
#ifndef TVMAF_GPU_CUDA_REF_CACHE_H
#define TVMAF_GPU_CUDA_REF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/cuda/cuda_runtime.h"

typedef struct TvmafCudaRefCache TvmafCudaRefCache;
typedef struct TvmafCudaRefBlock TvmafCudaRefBlock;

typedef struct TvmafCudaRefEntry {
    CUdeviceptr d;       /* one picture's copy, bytes long (the cache's size) */
    CUevent ready;       /* recorded after the upload into d */
    /* under the cache's lock */
    uint64_t serial;     /* the picture held (0: none) */
    unsigned users;      /* workers holding the entry */
    bool filling;        /* a worker is queueing the upload */
    unsigned long long used_at;
} TvmafCudaRefEntry;

/* The cache of `dev` for copies of `bytes` bytes, shared by every context
 * that attaches with the same pair, and this context's `reserve` entries in
 * it (*blk), allocated now in one piece (device context current; -ENOMEM and
 * nothing attached when they do not fit). */
int tvmaf_cuda_ref_cache_attach(TvmafCudaDevice *dev, size_t bytes, unsigned reserve,
                                TvmafCudaRefCache **c, TvmafCudaRefBlock **blk);
/* Drops a context's attachment (device context current). Its entries go
 * once no worker holds one (a worker of another context may), all of them
 * with the last attachment. */
void tvmaf_cuda_ref_cache_detach(TvmafCudaRefCache *c, TvmafCudaRefBlock *blk);

/* The entry holding picture `serial` (not 0), held for the caller. *fill:
 * the caller must queue the upload into e->d, record e->ready after it and
 * call tvmaf_cuda_ref_cache_filled; otherwise the upload is queued already
 * (wait for e->ready). Allocates nothing (the entries exist from attach). */
void tvmaf_cuda_ref_cache_get(TvmafCudaRefCache *c, uint64_t serial, TvmafCudaRefEntry **e,
                              bool *fill);
/* The upload into e was queued (ok) or failed (the entry is emptied: a
 * waiting worker uploads it itself). */
void tvmaf_cuda_ref_cache_filled(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, bool ok);
/* The caller's work on e has finished (its streams synchronised). */
void tvmaf_cuda_ref_cache_put(TvmafCudaRefCache *c, TvmafCudaRefEntry *e);

#endif
