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
 * picture's upload.
 *
 * Reference-side results: beside the picture, an entry holds one device area
 * per "derived" slot that the contexts declared at attach (a twin's results
 * that depend on the reference picture alone, e.g. its filtered statistics).
 * The first worker to need slot k of a picture computes it on its stream and
 * records the slot's event; the others wait for that event and read the
 * same area. The slots are named by their users; the cache only keeps the
 * areas and their state. Feature-independent.
 */
#ifndef TVMAF_GPU_CUDA_REF_CACHE_H
#define TVMAF_GPU_CUDA_REF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/cuda/cuda_runtime.h"

typedef struct TvmafCudaRefCache TvmafCudaRefCache;
typedef struct TvmafCudaRefBlock TvmafCudaRefBlock;

/* Reference-side result areas an entry holds beside its picture. */
#define TVMAF_CUDA_REF_MAX_DERIVED 4
#define TVMAF_CUDA_REF_KEY_LEN 32

typedef struct TvmafCudaRefDerivedSpec {
    char key[TVMAF_CUDA_REF_KEY_LEN]; /* its user's name for it */
    size_t bytes;
} TvmafCudaRefDerivedSpec;

typedef struct TvmafCudaRefDerived {
    CUdeviceptr d;       /* the slot's area */
    CUevent ready;       /* recorded after the work that fills it */
    /* under the cache's lock */
    bool valid;          /* filled for the entry's picture */
    bool filling;        /* a worker is queueing that work */
} TvmafCudaRefDerived;

typedef struct TvmafCudaRefEntry {
    CUdeviceptr d;       /* one picture's copy, bytes long (the cache's size) */
    CUevent ready;       /* recorded after the upload into d */
    TvmafCudaRefDerived derived[TVMAF_CUDA_REF_MAX_DERIVED];
    /* under the cache's lock */
    uint64_t serial;     /* the picture held (0: none) */
    unsigned users;      /* workers holding the entry */
    bool filling;        /* a worker is queueing the upload */
    unsigned long long used_at;
} TvmafCudaRefEntry;

/* The cache of `dev` for copies of `bytes` bytes with the derived slots
 * spec[0..n_spec) (the same keys and sizes in the same order), shared by
 * every context that attaches with the same, and this context's `reserve`
 * entries in it (*blk), allocated now in one piece (device context current;
 * -ENOMEM and nothing attached when they do not fit). */
int tvmaf_cuda_ref_cache_attach(TvmafCudaDevice *dev, size_t bytes,
                                const TvmafCudaRefDerivedSpec *spec, unsigned n_spec,
                                unsigned reserve, TvmafCudaRefCache **c, TvmafCudaRefBlock **blk);
/* Device bytes of one entry (its picture and its derived areas). */
size_t tvmaf_cuda_ref_entry_bytes(size_t bytes, const TvmafCudaRefDerivedSpec *spec,
                                  unsigned n_spec);
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
/* Slot k of e, which the caller holds (its picture uploaded or queued).
 * *fill: the caller must queue the work that fills the slot's area, record
 * its event after it and call tvmaf_cuda_ref_cache_derived_done; otherwise
 * that work is queued already (wait for the event). */
void tvmaf_cuda_ref_cache_derived(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, unsigned k,
                                  bool *fill);
/* The work filling slot k was queued (ok) or failed (a waiting worker does
 * it itself). */
void tvmaf_cuda_ref_cache_derived_done(TvmafCudaRefCache *c, TvmafCudaRefEntry *e, unsigned k,
                                       bool ok);
/* The caller's work on e has finished (its streams synchronised). */
void tvmaf_cuda_ref_cache_put(TvmafCudaRefCache *c, TvmafCudaRefEntry *e);

#endif
