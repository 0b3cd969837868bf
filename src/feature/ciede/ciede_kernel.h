/*
 * ciede: the CUDA twin's decomposition, written once for the kernels
 * (ciede.cu), their host launch (ciede_cuda.c) and their host replay
 * (tests/replay/ciede_replay.c). Compiles as host C and as CUDA.
 *
 * One launch per frame: a grid of CIEDE_GRID_X(w) x CIEDE_GRID_Y(h) blocks
 * of CIEDE_BLOCK_W x CIEDE_BLOCK_H threads; thread (tx, ty) of block (bx, by)
 * computes pixel (bx CIEDE_BLOCK_W + tx, by CIEDE_BLOCK_H + ty), if inside the
 * picture, with CIEDE_PIXEL_AT (the CPU extractor's per-pixel arithmetic) and
 * stores it at its raster position of the w x h float plane de (CIEDE_DE_AT).
 * Nothing is added on the device: the host reads de back and adds it with
 * ciede_sum_raster(), the CPU's order.
 *
 * The planes argument (CiedePlanes) holds the three planes of reference and
 * distorted and the luma and chroma pitches in bytes (the same for ref and
 * dis); the other kernel arguments are w, h, cw, ch (chroma size), layout
 * (420, 422 or 444), bpc, the CiedeLibm and de.
 */
#ifndef TVMAF_CIEDE_KERNEL_H
#define TVMAF_CIEDE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "feature/ciede/ciede_math.h"

#define CIEDE_BLOCK_W 32
#define CIEDE_BLOCK_H 8
#define CIEDE_GRID_X(w) (((w) + CIEDE_BLOCK_W - 1) / CIEDE_BLOCK_W)
#define CIEDE_GRID_Y(h) (((h) + CIEDE_BLOCK_H - 1) / CIEDE_BLOCK_H)

/* A plane's address: a pointer in the kernels, a CUdeviceptr (64 bits) on the
 * host; the replay stores host addresses in it. */
#if defined(__CUDACC__)
typedef const unsigned char *CiedeDevPtr;
#else
typedef uint64_t CiedeDevPtr;
#endif

/* The kernels' first argument, passed by value. */
typedef struct CiedePlanes {
    CiedeDevPtr ref[3];
    CiedeDevPtr dis[3];
    size_t pitch[2]; /* luma, chroma (bytes; the same for ref and dis) */
} CiedePlanes;

#if defined(__cplusplus)
static_assert(sizeof(CiedePlanes) == 8 * sizeof(uint64_t), "CiedePlanes: 6 addresses, 2 pitches");
#else
_Static_assert(sizeof(CiedePlanes) == 8 * sizeof(uint64_t), "CiedePlanes: 6 addresses, 2 pitches");
#endif

/* The position of pixel (x, y) in de. */
#define CIEDE_DE_AT(x, y, w) ((size_t)(y) * (w) + (x))

/*
 * Thread (tx, ty) of block (bx, by) on samples of type T (uint8_t or
 * uint16_t): pixel (x, y), when inside w x h, into de.
 */
#define CIEDE_THREAD(T, p, bx, by, tx, ty, w, h, cw, ch, layout, bpc, lm, de)                 \
    do {                                                                                     \
        const unsigned x_ = (bx) * CIEDE_BLOCK_W + (tx);                                     \
        const unsigned y_ = (by) * CIEDE_BLOCK_H + (ty);                                     \
        if (x_ < (w) && y_ < (h)) {                                                          \
            const unsigned char *r_[3] = { (const unsigned char *)(uintptr_t)(p).ref[0],     \
                                           (const unsigned char *)(uintptr_t)(p).ref[1],     \
                                           (const unsigned char *)(uintptr_t)(p).ref[2] };   \
            const unsigned char *d_[3] = { (const unsigned char *)(uintptr_t)(p).dis[0],     \
                                           (const unsigned char *)(uintptr_t)(p).dis[1],     \
                                           (const unsigned char *)(uintptr_t)(p).dis[2] };   \
            float v_;                                                                        \
            CIEDE_PIXEL_AT(T, r_, d_, x_, y_, (p).pitch[0] / sizeof(T),                      \
                           (unsigned)((p).pitch[1] / sizeof(T)), (cw), (ch), (layout), (bpc),  \
                           (lm), v_);                                                        \
            (de)[CIEDE_DE_AT(x_, y_, (w))] = v_;                                             \
        }                                                                                    \
    } while (0)

#endif
