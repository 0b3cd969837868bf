/*
 * ciede: CIEDE2000 colour difference, the arithmetic written once for the CPU
 * extractor and the CUDA twin. The fp64-free OpenCL twin renders the same
 * statements on fp32 pairs (ciede_pair.h): a change here changes it too.
 *
 * Types follow the reference exactly: it converts YUV to Lab in double, stores
 * L, a, b as float, evaluates almost every CIEDE2000 expression in double (a
 * double literal or a libm call makes it so) and rounds each named quantity to
 * float. Every such rounding is written out below as a float variable or a
 * (float) cast; every float argument of a double libm call is promoted
 * explicitly, because CUDA C++ would otherwise pick the float overload.
 *
 * The one difference between host and device is the math library. The host
 * calls glibc (powf, pow, atan2, sin, cos, exp), which the golden values were
 * made with. The device reproduces glibc's powf(x, 7) exactly (the correctly
 * rounded value stepped where the build host's glibc departs from it, by a
 * table made from every float at build time: numerics/powf_table.h; the
 * table travels to the device in CiedeLibm). It uses
 * pow(x, 7) evaluated exactly then rounded once (glibc is correct there to
 * 0.52 ulp, so they agree unless the exact value lies within 0.02 ulp of a
 * rounding boundary), and CUDA's own fp64 atan2/sin/cos/exp/pow(x, 2.4)/
 * pow(x, 1/3) (documented to 1-2 ulp). A pixel differs only where one of these
 * lands on the other side of a later float rounding; that residual is bounded
 * in tests/test_cuda_parity.py.
 *
 * pow(x, 2) of a float is the exact double product x * x: a 24-bit
 * significand squared fits in 53 bits, and glibc's pow (error < 1 ulp) must
 * then return that exact value, so writing the product changes no bit.
 */
#ifndef TVMAF_CIEDE_MATH_H
#define TVMAF_CIEDE_MATH_H

#ifndef __OPENCL_VERSION__
#include <math.h>
#include <stdint.h>
#endif

#include "core/hd.h"

/*
 * The OpenCL twin is fp64-free: it evaluates these statements on fp32 pairs
 * (ciede_pair.h) and takes from this header only what has no double in it,
 * ciede_chroma_offset() and CIEDE_SAMPLES_AT.
 */
#ifndef __OPENCL_VERSION__

/*
 * powf(x, 2): the reference's release build compiles it as the float product
 * x * x (GCC does so at -O1 and above; the product is correctly rounded, which
 * glibc's powf is not on about 0.1 % of arguments), and the goldens carry that.
 * Writing the product makes the result independent of the optimiser.
 */
#define CIEDE_POWF2(x) ((x) * (x))

/*
 * What the arithmetic needs besides the samples: the device's table of glibc's
 * powf(x, 7) (numerics/powf_table.h; a device pointer and its length). The
 * host calls glibc and ignores it: the CPU extractor passes an empty one.
 */
typedef struct CiedeLibm {
    const uint32_t *powf7_tab;
    uint32_t powf7_n;
} CiedeLibm;

/*
 * powf(x, 7) with the context lm: glibc's on the CPU; in a twin's kernels
 * (the host executor's build included) glibc's value replayed from the
 * correctly rounded one and the build host's table.
 */
#if TVMAF_KERNEL_CODE
#include "numerics/powf_table.h"
#define CIEDE_POWF7(lm, x) tvmaf_powf7_glibc((x), (lm).powf7_tab, (lm).powf7_n)
#else
#define CIEDE_POWF7(lm, x) ((void)(lm), powf((x), 7.0f))
#endif
#if TVMAF_KERNEL_CODE
#include "numerics/cr_pow.h"
#define CIEDE_POW7(x) tvmaf_cr_pow7(x)
#else
#define CIEDE_POW7(x) pow((x), 7.0)
#endif

#define CIEDE_PI 3.14159265358979323846

typedef struct CiedeLab {
    float l, a, b;
} CiedeLab;

TVMAF_HD double ciede_sq(float x)
{
    return (double)x * (double)x;
}

/* sRGB transfer: gamma 2.4 segment above 10/255, linear below. */
TVMAF_HD double ciede_rgb_to_xyz_map(double c)
{
    if (c > 10. / 255.) {
        const double A = 0.055;
        const double D = 1.0 / 1.055;
        return pow((c + A) * D, 2.4);
    }
    const double D = 1.0 / 12.92;
    return c * D;
}

/* Lab companding; note the float result. */
TVMAF_HD float ciede_xyz_to_lab_map(double c)
{
    const double KAPPA = 24389.0 / 27.0;
    const double EPSILON = 216.0 / 24389.0;
    if (c > EPSILON)
        return (float)pow(c, 1.0 / 3.0);
    return (float)((KAPPA * c + 16.0) * (1.0 / 116.0));
}

/* Y'CbCr (BT.709, limited range) to CIE Lab. */
TVMAF_HD CiedeLab ciede_lab(double y, double u, double v, unsigned bpc)
{
    const double scale = (double)(1 << (bpc - 8));
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));

    double r = y + 1.28033 * v;
    double g = y - 0.21482 * u - 0.38059 * v;
    double b = y + 2.12798 * u;
    r = ciede_rgb_to_xyz_map(r);
    g = ciede_rgb_to_xyz_map(g);
    b = ciede_rgb_to_xyz_map(b);

    double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    y = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

    x = ciede_xyz_to_lab_map(x * (1.0 / 0.95047));
    y = ciede_xyz_to_lab_map(y);
    z = ciede_xyz_to_lab_map(z * (1.0 / 1.08883));

    CiedeLab lab;
    lab.l = (float)((116.0 * y) - 16.0);
    lab.a = (float)(500.0 * (x - y));
    lab.b = (float)(200.0 * (y - z));
    return lab;
}

TVMAF_HD float ciede_h_prime(float x, float y)
{
    if (x == 0.0f && y == 0.0f) return 0.0f;
    float hue = (float)atan2((double)x, (double)y);
    if ((double)hue < 0.0) hue = (float)((double)hue + 2. * CIEDE_PI);
    return hue;
}

TVMAF_HD float ciede_delta_h_prime(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0f || c2 == 0.0f) return 0.0f;
    const float d = h2 - h1;
    if ((double)fabsf(h1 - h2) <= CIEDE_PI) return d;
    if (h2 <= h1) return (float)((double)d + 2. * CIEDE_PI);
    return (float)((double)d - 2. * CIEDE_PI);
}

TVMAF_HD float ciede_h_bar_prime(float h1, float h2)
{
    const float s = h1 + h2;
    return fabs((double)(h1 - h2)) > CIEDE_PI ? (float)(((double)s + 2.0 * CIEDE_PI) / 2.0)
                                              : (float)((double)s / 2.0);
}

TVMAF_HD float ciede_t(float hb)
{
    const double h = (double)hb;
    return (float)(1.0 - 0.17 * cos(h - CIEDE_PI / 6.0) + 0.24 * cos(2.0 * h) +
                   0.32 * cos(3.0 * h + CIEDE_PI / 30.0) -
                   0.20 * cos(4.0 * h - 7.0 * CIEDE_PI / 20.0));
}

TVMAF_HD float ciede_r_t(float c_bar_prime, float hb, CiedeLibm lm)
{
    const float degrees_f = (float)((double)hb * (180.0 / CIEDE_PI));
    const float degrees = (float)(((double)degrees_f - 275.0) * (1.0 / 25.0));
    const float c7 = CIEDE_POWF7(lm, c_bar_prime);
    const float q = c7 / (c7 + CIEDE_POWF7(lm, 25.0f));
    const float angle_deg = (float)(60.0 * exp((double)(-CIEDE_POWF2(degrees))));
    const float angle = (float)((double)angle_deg * (CIEDE_PI / 180.0));
    return (float)(-2.0 * sqrt((double)q) * sin((double)angle));
}

/* CIEDE2000 with kL = 0.65, kC = 1, kH = 4 (the reference's weights). */
TVMAF_HD float ciede2000(CiedeLab c1, CiedeLab c2, CiedeLibm lm)
{
    const float kl = 0.65f, kc = 1.0f, kh = 4.0f;
    const double p25_7 = 6103515625.0; /* pow(25, 7), exact */

    const float delta_l_prime = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float ch1 = (float)sqrt(ciede_sq(c1.a) + ciede_sq(c1.b));
    const float ch2 = (float)sqrt(ciede_sq(c2.a) + ciede_sq(c2.b));
    const float c_bar = (ch1 + ch2) / 2;
    const double cb7 = CIEDE_POW7((double)c_bar);
    const double g = 1 - sqrt(cb7 / (cb7 + p25_7));
    const float a_prime_1 = (float)((double)c1.a + (double)(c1.a / 2) * g);
    const float a_prime_2 = (float)((double)c2.a + (double)(c2.a / 2) * g);
    const float c_prime_1 = (float)sqrt(ciede_sq(a_prime_1) + ciede_sq(c1.b));
    const float c_prime_2 = (float)sqrt(ciede_sq(a_prime_2) + ciede_sq(c2.b));
    const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
    const float delta_c_prime = c_prime_2 - c_prime_1;
    const float lb50 = l_bar - 50;
    const float s_l = (float)(1. + ((0.015 * ciede_sq(lb50)) / sqrt(20 + ciede_sq(lb50))));
    const float s_c = (float)(1. + 0.045 * (double)c_bar_prime);
    const float h_prime_1 = ciede_h_prime(c1.b, a_prime_1);
    const float h_prime_2 = ciede_h_prime(c2.b, a_prime_2);
    const float delta_h_prime = ciede_delta_h_prime(ch1, ch2, h_prime_1, h_prime_2);
    const float delta_upcase_h_prime =
        (float)(2.0 * sqrt((double)(c_prime_1 * c_prime_2)) * sin((double)delta_h_prime / 2.0));
    const float hb = ciede_h_bar_prime(h_prime_1, h_prime_2);
    const float t = ciede_t(hb);
    const float s_h = (float)(1.0 + 0.015 * (double)c_bar_prime * (double)t);
    const float r_t = ciede_r_t(c_bar_prime, hb, lm);
    const float lightness = delta_l_prime / (kl * s_l);
    const float chroma = delta_c_prime / (kc * s_c);
    const float hue = delta_upcase_h_prime / (kh * s_h);
    return (float)sqrt(ciede_sq(lightness) + ciede_sq(chroma) + ciede_sq(hue) +
                       (double)(r_t * chroma * hue));
}

/* dE00 of one pixel from its Y, U, V samples of reference and distorted. */
TVMAF_HD float ciede_pixel(float ry, float ru, float rv, float dy, float du, float dv,
                           unsigned bpc, CiedeLibm lm)
{
    const CiedeLab c1 = ciede_lab(ry, ru, rv, bpc);
    const CiedeLab c2 = ciede_lab(dy, du, dv, bpc);
    return ciede2000(c1, c2, lm);
}

#endif /* !__OPENCL_VERSION__ */

/*
 * Where the reference reads the chroma of output pixel (i, j), as an offset in
 * samples from the start of a chroma plane of `cw` x `ch` samples stored with
 * `pitch` samples per row; -1 where it reads its picture's zero padding.
 *
 * 4:2:0 and 4:4:4: the co-sited sample (i/2, j/2) or (i, j).
 * 4:2:2: the reference's upsampler halves rows instead of columns and walks the
 * plane as one buffer whose rows are `ref_stride` samples apart (its pictures'
 * chroma width rounded up to 32): it reads buffer element (i/2) * ref_stride + j.
 * Reproduced so 4:2:2 scores equal the reference's.
 */
TVMAF_HD long ciede_chroma_offset(int layout, unsigned i, unsigned j, unsigned cw,
                                  unsigned ch, unsigned pitch)
{
    if (layout == 420) return (long)(i / 2) * pitch + (j / 2);
    if (layout == 444) return (long)i * pitch + j;
    const unsigned ref_stride = (cw + 31u) & ~31u;
    const unsigned long k = (unsigned long)(i / 2) * ref_stride + j;
    const unsigned row = (unsigned)(k / ref_stride), col = (unsigned)(k % ref_stride);
    if (col >= cw || row >= ch) return -1;
    return (long)row * pitch + col;
}

/*
 * The six samples of pixel (x, y) (reference Y, U, V, distorted Y, U, V, as
 * floats, into s[0..5]) from planes of samples of type T (uint8_t or
 * uint16_t), as the reference reads them. ref, dis: arrays of three plane
 * addresses; pitch: luma and chroma row pitch in samples; cw, ch: chroma size.
 */
#define CIEDE_SAMPLES_AT(T, ref, dis, x, y, luma_pitch, chroma_pitch, cw, ch, layout, s)      \
    do {                                                                                     \
        const long lo_ = (long)(y) * (long)(luma_pitch) + (long)(x);                         \
        const long co_ = ciede_chroma_offset((layout), (y), (x), (cw), (ch), (chroma_pitch));  \
        (s)[0] = (float)((TVMAF_GLOBAL const T *)(ref)[0])[lo_];                             \
        (s)[1] = co_ < 0 ? 0.0f : (float)((TVMAF_GLOBAL const T *)(ref)[1])[co_];            \
        (s)[2] = co_ < 0 ? 0.0f : (float)((TVMAF_GLOBAL const T *)(ref)[2])[co_];            \
        (s)[3] = (float)((TVMAF_GLOBAL const T *)(dis)[0])[lo_];                             \
        (s)[4] = co_ < 0 ? 0.0f : (float)((TVMAF_GLOBAL const T *)(dis)[1])[co_];            \
        (s)[5] = co_ < 0 ? 0.0f : (float)((TVMAF_GLOBAL const T *)(dis)[2])[co_];            \
    } while (0)

#ifndef __OPENCL_VERSION__
/*
 * dE00 of pixel (x, y) read from planes of samples of type T (uint8_t or
 * uint16_t). pitch: luma and chroma row pitch in samples; cw, ch: chroma size;
 * lm: the CiedeLibm context. This is what the CPU extractor and each CUDA
 * thread compute per pixel.
 */
#define CIEDE_PIXEL_AT(T, ref, dis, x, y, luma_pitch, chroma_pitch, cw, ch, layout, bpc, lm, \
                       out)                                                                   \
    do {                                                                                     \
        float s_[6];                                                                         \
        CIEDE_SAMPLES_AT(T, ref, dis, x, y, luma_pitch, chroma_pitch, cw, ch, layout, s_);   \
        (out) = ciede_pixel(s_[0], s_[1], s_[2], s_[3], s_[4], s_[5], (bpc), (lm));         \
    } while (0)
#endif

#if !TVMAF_DEVICE_CODE
/* The reference's sum: every pixel's float added into one double, row after
 * row. The CPU extractor adds as it goes; the twin's host side calls this on
 * the plane it read back. */
static inline double ciede_sum_raster(const float *de, unsigned w, unsigned h)
{
    double sum = 0.;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++)
            sum += de[(size_t)i * w + j];
    return sum;
}

/* Frame score from the raster-order sum of the per-pixel dE00 values. */
static inline double ciede_score(double de00_sum, unsigned w, unsigned h)
{
    return 45. - 20. * log10(de00_sum / (w * h));
}
#endif

#endif
