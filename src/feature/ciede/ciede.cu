// ciede twin: dE00 of every pixel, stored at its raster position.
//
// The device does not add: the CPU adds the per-pixel floats into one double
// row after row, and an addition that rounds cannot be regrouped. The host
// reads the plane back and adds it in that order (ciede_cuda.c). lm carries
// the table that makes powf(x, 7) glibc's (numerics/powf_table.h).
#include <stdint.h>

#include "feature/ciede/ciede_math.h"

template <typename T>
__device__ void de00_plane(const unsigned char *const *ref, const unsigned char *const *dis,
                           const size_t *pitch, unsigned w, unsigned h, unsigned cw, unsigned ch,
                           int layout, unsigned bpc, CiedeLibm lm, float *de)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float v;
    CIEDE_PIXEL_AT(T, ref, dis, x, y, pitch[0] / sizeof(T), (unsigned)(pitch[1] / sizeof(T)), cw,
                   ch, layout, bpc, lm, v);
    de[(size_t)y * w + x] = v;
}

struct CiedePlanes {
    const unsigned char *ref[3];
    const unsigned char *dis[3];
    size_t pitch[2]; // luma, chroma (bytes; the same for ref and dis)
};

extern "C" __global__ void ciede_de00_8(CiedePlanes p, unsigned w, unsigned h, unsigned cw,
                                        unsigned ch, int layout, unsigned bpc, CiedeLibm lm,
                                        float *de)
{
    de00_plane<uint8_t>(p.ref, p.dis, p.pitch, w, h, cw, ch, layout, bpc, lm, de);
}

extern "C" __global__ void ciede_de00_16(CiedePlanes p, unsigned w, unsigned h, unsigned cw,
                                         unsigned ch, int layout, unsigned bpc, CiedeLibm lm,
                                         float *de)
{
    de00_plane<uint16_t>(p.ref, p.dis, p.pitch, w, h, cw, ch, layout, bpc, lm, de);
}
