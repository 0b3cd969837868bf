// float_adm twin: per scale a dwt, a decouple, a terms and (p = 3) a rows
// launch, each thread the CPU's chain of operations for one coefficient or
// one row (float_adm_tile.h describes the decomposition and holds the
// per-thread work, which the host replay runs too). No sum is reduced in a
// tree: a row is added left to right by one thread, the rows by the host.
#include <stdint.h>

#include "feature/float_adm/float_adm_math.h"
#include "feature/float_adm/float_adm_tile.h"

static_assert(FADM_BLOCK_W * FADM_BLOCK_H <= 1024, "a block's threads");
// FadmTileScale goes by value: the host's layout (float_adm_cuda.c asserts the same)
static_assert(sizeof(FadmTileScale) == 128 && offsetof(FadmTileScale, rows_off) == 120,
              "FadmTileScale layout");

// Coefficient j of the rows of [y0, y1) this thread covers (the grid's y strides).
#define FADM_FOR_COEFS(x0, x1, y0, y1)                                              \
    const int j = (x0) + (int)(blockIdx.x * FADM_BLOCK_W + threadIdx.x);           \
    if (j >= (x1)) return;                                                          \
    for (int i = (y0) + (int)(blockIdx.y * FADM_BLOCK_H + threadIdx.y); i < (y1);   \
         i += (int)(gridDim.y * FADM_BLOCK_H))

// Scale c.k's DWT of both pictures over the whole band.
extern "C" __global__ void __launch_bounds__(FADM_BLOCK_W * FADM_BLOCK_H)
float_adm_dwt(FadmTileScale c, const unsigned char *ref, const unsigned char *dis, size_t pitch,
              float *bands, size_t plane)
{
    FADM_FOR_COEFS(0, c.w, 0, c.h)
    fadm_tile_dwt_at(&c, ref, dis, pitch, bands, plane, i, j);
}

// Decouple and csf over the work range.
extern "C" __global__ void __launch_bounds__(FADM_BLOCK_W * FADM_BLOCK_H)
float_adm_decouple(FadmTileScale c, float *bands, size_t plane, const uint32_t *table)
{
    FADM_FOR_COEFS(c.work_l, c.work_r, c.work_t, c.work_b)
    fadm_tile_decouple_at(&c, bands, plane, table, i, j);
}

// The nine terms over the pooled region.
extern "C" __global__ void __launch_bounds__(FADM_BLOCK_W * FADM_BLOCK_H)
float_adm_terms(FadmTileScale c, const float *bands, size_t plane, float *terms)
{
    FADM_FOR_COEFS(c.l, c.r, c.t, c.b)
    fadm_tile_terms_at(&c, bands, plane, terms, i, j);
}

// One thread per (term, pooled row): the row's float total.
extern "C" __global__ void __launch_bounds__(FADM_ROW_THREADS)
float_adm_rows(FadmTileScale c, const float *terms, float *rows)
{
    const int id = (int)(blockIdx.x * FADM_ROW_THREADS + threadIdx.x);
    if (id >= FADM_N_TERMS * c.ph) return;
    fadm_tile_row(&c, terms, rows, id);
}
