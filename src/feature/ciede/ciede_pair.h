/*
 * ciede without fp64: ciede_math.h's statements with every double held as an
 * fp32 pair (numerics/f32pair.h), for the OpenCL twin (ciede.cl) and its host
 * replay (tests/test_ciede_pair.c). Compiles as OpenCL C and as host C; the
 * program it is part of is built fp64-free (core/hd.h, TVMAF_FP64_FREE).
 *
 * Statement for statement with ciede_math.h: a float of the reference is a
 * float here, computed by the same float operation; a double is a TvmafF2, and
 * where the reference rounds a double to float ((float) casts, float
 * variables) the pair's float tvmaf_f2_f() is taken. The reference's double
 * constants are evaluated on the host from ciede_math.h's own expressions
 * (ciede_pair_constants) and reach the device in a CiedePairK buffer, so no
 * double literal appears in the kernel.
 *
 * What can differ from the CPU: a pair holds ~48 bits where the double holds
 * 53 and its transcendentals are within ~2^-45, so where the reference's
 * double lies within that distance of a float rounding boundary the pair may
 * round to the neighbouring float. powf(x, 7) is exact: glibc's, from the
 * correctly rounded value (integer arithmetic) and the build host's table
 * (numerics/powf_table.h), as on CUDA. powf(x, 2) is the float product as in
 * ciede_math.h. pow(x, 7) of c_bar (a double in the reference) is a pair.
 *
 * R_T's exp: when 60 exp(-d^2) is below 2^-60, R_T is below 2^-53 in
 * magnitude, and its term r_t * chroma * hue (at most 2^-54 of the double
 * sum it is added to, since |chroma hue| <= (chroma^2 + hue^2) / 2) leaves
 * that sum unchanged whatever its value: the pair exp's 0 below e^-87 costs
 * nothing.
 */
#ifndef TVMAF_CIEDE_PAIR_H
#define TVMAF_CIEDE_PAIR_H

#include "core/hd.h"
#include "feature/ciede/ciede_math.h"
#include "numerics/f32pair.h"
#include "numerics/powf_table.h"

/*
 * The OpenCL twin's decomposition (ciede.cl, ciede_opencl.c and the host
 * replay tests/test_ciede_pair.c): one work-item per pixel, work-groups of
 * CIEDE_PAIR_BLOCK_W x CIEDE_PAIR_BLOCK_H; work-item (x, y) stores pixel
 * (x, y)'s dE00 at de[y w + x]. Nothing is added on the device: the host
 * reads de back and adds it with ciede_sum_raster(), the CPU's order.
 */
#define CIEDE_PAIR_BLOCK_W 32
#define CIEDE_PAIR_BLOCK_H 8

/* The reference's double constants as pairs (ciede_pair_constants). */
typedef struct CiedePairK {
    /* ciede_lab, for one bit depth */
    float off_y, off_uv;        /* 16 scale, 128 scale (exact) */
    TvmafF2 ky, kuv;            /* 1 / (219 scale), 1 / (224 scale) */
    TvmafF2 rv, gu, gv, bu;     /* 1.28033, 0.21482, 0.38059, 2.12798 */
    TvmafF2 lin_max;            /* 10 / 255 */
    TvmafF2 a055, d1055, d1292; /* 0.055, 1 / 1.055, 1 / 12.92 */
    TvmafF2 m[9];               /* RGB -> XYZ, row major */
    TvmafF2 inv_xn, inv_zn;     /* 1 / 0.95047, 1 / 1.08883 */
    TvmafF2 kappa, epsilon, inv116;
    /* ciede2000 */
    TvmafF2 p25_7;              /* 25^7 */
    TvmafF2 k015, k045;         /* 0.015, 0.045 */
    TvmafF2 pi, two_pi;
    TvmafF2 pi_6, pi_30, pi7_20; /* pi / 6, pi / 30, 7 pi / 20 */
    TvmafF2 t17, t24, t32, t20; /* 0.17, 0.24, 0.32, 0.20 */
    TvmafF2 deg;                /* 180 / pi */
    TvmafF2 inv25, rad;         /* 1 / 25, pi / 180 */
} CiedePairK;

/* The CiedePairK the kernels read (device memory in OpenCL). */
#define CIEDE_PAIR_K TVMAF_GLOBAL const CiedePairK *

/* glibc's powf(x, 7) for x >= 0: the correctly rounded value, stepped where
 * the table (device memory) lists the build host's glibc departing from it. */
TVMAF_HD float ciede_pair_powf7(float x, TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    return tvmaf_powf7_table_step(tvmaf_powf7_cr_int(x), x, tab, n);
}

TVMAF_HD TvmafF2 ciede_pair_rgb_map(TvmafF2 c, CIEDE_PAIR_K k)
{
    if (tvmaf_f2_gt(c, k->lin_max))
        return tvmaf_f2_pow2_4(tvmaf_f2_mul(tvmaf_f2_add(c, k->a055), k->d1055));
    return tvmaf_f2_mul(c, k->d1292);
}

TVMAF_HD float ciede_pair_lab_map(TvmafF2 c, CIEDE_PAIR_K k)
{
    if (tvmaf_f2_gt(c, k->epsilon)) return tvmaf_f2_f(tvmaf_f2_cbrt(c));
    return tvmaf_f2_f(tvmaf_f2_mul(tvmaf_f2_add_f(tvmaf_f2_mul(k->kappa, c), 16.0f), k->inv116));
}

typedef struct CiedePairLab {
    float l, a, b;
} CiedePairLab;

/* ciede_lab(): y, u, v are integer samples (exact floats). */
TVMAF_HD CiedePairLab ciede_pair_lab(float y, float u, float v, CIEDE_PAIR_K k)
{
    /* sample - offset is an exact float (integers below 2^24) */
    const TvmafF2 yy = tvmaf_f2_mul_f(k->ky, y - k->off_y);
    const TvmafF2 uu = tvmaf_f2_mul_f(k->kuv, u - k->off_uv);
    const TvmafF2 vv = tvmaf_f2_mul_f(k->kuv, v - k->off_uv);

    TvmafF2 r = tvmaf_f2_add(yy, tvmaf_f2_mul(k->rv, vv));
    TvmafF2 g = tvmaf_f2_sub(tvmaf_f2_sub(yy, tvmaf_f2_mul(k->gu, uu)), tvmaf_f2_mul(k->gv, vv));
    TvmafF2 b = tvmaf_f2_add(yy, tvmaf_f2_mul(k->bu, uu));
    r = ciede_pair_rgb_map(r, k);
    g = ciede_pair_rgb_map(g, k);
    b = ciede_pair_rgb_map(b, k);

    const TvmafF2 x = tvmaf_f2_add(tvmaf_f2_add(tvmaf_f2_mul(r, k->m[0]), tvmaf_f2_mul(g, k->m[1])),
                                   tvmaf_f2_mul(b, k->m[2]));
    const TvmafF2 yl = tvmaf_f2_add(tvmaf_f2_add(tvmaf_f2_mul(r, k->m[3]), tvmaf_f2_mul(g, k->m[4])),
                                    tvmaf_f2_mul(b, k->m[5]));
    const TvmafF2 z = tvmaf_f2_add(tvmaf_f2_add(tvmaf_f2_mul(r, k->m[6]), tvmaf_f2_mul(g, k->m[7])),
                                   tvmaf_f2_mul(b, k->m[8]));
    /* the reference stores the float results in its double variables */
    const float fx = ciede_pair_lab_map(tvmaf_f2_mul(x, k->inv_xn), k);
    const float fy = ciede_pair_lab_map(yl, k);
    const float fz = ciede_pair_lab_map(tvmaf_f2_mul(z, k->inv_zn), k);

    CiedePairLab lab;
    lab.l = tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_two_prod(116.0f, fy), -16.0f));
    lab.a = tvmaf_f2_f(tvmaf_f2_mul_f(tvmaf_f2_two_sum(fx, -fy), 500.0f));
    lab.b = tvmaf_f2_f(tvmaf_f2_mul_f(tvmaf_f2_two_sum(fy, -fz), 200.0f));
    return lab;
}

/* sq(a) + sq(b) of floats: two exact squares, one pair sum (the double sum). */
TVMAF_HD TvmafF2 ciede_pair_sq2(float a, float b)
{
    return tvmaf_f2_add(tvmaf_f2_sq_f(a), tvmaf_f2_sq_f(b));
}

/* fabsf without a library call (OpenCL C and C name it differently) */
TVMAF_HD float ciede_pair_fabs(float a)
{
    return a < 0.0f ? -a : a;
}

/* a float against a double constant: exact (a pair compares as its value) */
TVMAF_HD int ciede_pair_f_le(float a, TvmafF2 c)
{
    return tvmaf_f2_le(tvmaf_f2_of(a), c);
}

TVMAF_HD float ciede_pair_h_prime(float x, float y, CIEDE_PAIR_K k)
{
    if (x == 0.0f && y == 0.0f) return 0.0f;
    float hue = tvmaf_f2_f(tvmaf_f2_atan2(x, y));
    if (hue < 0.0f) hue = tvmaf_f2_f(tvmaf_f2_add_f(k->two_pi, hue));
    return hue;
}

TVMAF_HD float ciede_pair_delta_h_prime(float c1, float c2, float h1, float h2, CIEDE_PAIR_K k)
{
    if (c1 == 0.0f || c2 == 0.0f) return 0.0f;
    const float d = h2 - h1;
    if (ciede_pair_f_le(ciede_pair_fabs(h1 - h2), k->pi)) return d;
    if (h2 <= h1) return tvmaf_f2_f(tvmaf_f2_add_f(k->two_pi, d));
    return tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_neg(k->two_pi), d));
}

TVMAF_HD float ciede_pair_h_bar_prime(float h1, float h2, CIEDE_PAIR_K k)
{
    const float s = h1 + h2;
    /* (double)s / 2.0 and the pair's halving are exact */
    if (!ciede_pair_f_le(ciede_pair_fabs(h1 - h2), k->pi))
        return tvmaf_f2_f(tvmaf_f2_scale(tvmaf_f2_add_f(k->two_pi, s), 0.5f));
    return tvmaf_f2_f(tvmaf_f2_scale(tvmaf_f2_of(s), 0.5f));
}

TVMAF_HD float ciede_pair_t(float hb, CIEDE_PAIR_K k)
{
    const TvmafF2 c1 = tvmaf_f2_cos(tvmaf_f2_sub(tvmaf_f2_of(hb), k->pi_6));
    const TvmafF2 c2 = tvmaf_f2_cos(tvmaf_f2_of(2.0f * hb));
    const TvmafF2 c3 = tvmaf_f2_cos(tvmaf_f2_add(tvmaf_f2_two_prod(3.0f, hb), k->pi_30));
    const TvmafF2 c4 = tvmaf_f2_cos(tvmaf_f2_sub(tvmaf_f2_of(4.0f * hb), k->pi7_20));
    TvmafF2 t = tvmaf_f2_sub(tvmaf_f2_of(1.0f), tvmaf_f2_mul(k->t17, c1));
    t = tvmaf_f2_add(t, tvmaf_f2_mul(k->t24, c2));
    t = tvmaf_f2_add(t, tvmaf_f2_mul(k->t32, c3));
    t = tvmaf_f2_sub(t, tvmaf_f2_mul(k->t20, c4));
    return tvmaf_f2_f(t);
}

TVMAF_HD float ciede_pair_r_t(float c_bar_prime, float hb, CIEDE_PAIR_K k,
                              TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    const float degrees_f = tvmaf_f2_f(tvmaf_f2_mul_f(k->deg, hb));
    const float degrees = tvmaf_f2_f(tvmaf_f2_mul(tvmaf_f2_two_sum(degrees_f, -275.0f), k->inv25));
    const float c7 = ciede_pair_powf7(c_bar_prime, tab, n);
    const float q = c7 / (c7 + ciede_pair_powf7(25.0f, tab, n));
    const float angle_deg =
        tvmaf_f2_f(tvmaf_f2_mul_f(tvmaf_f2_exp(tvmaf_f2_of(-(degrees * degrees))), 60.0f));
    const float angle = tvmaf_f2_f(tvmaf_f2_mul_f(k->rad, angle_deg));
    const TvmafF2 s = tvmaf_f2_mul(tvmaf_f2_scale(tvmaf_f2_sqrt(tvmaf_f2_of(q)), -2.0f),
                                   tvmaf_f2_sin(tvmaf_f2_of(angle)));
    return tvmaf_f2_f(s);
}

/* ciede2000() with kL = 0.65, kC = 1, kH = 4. */
TVMAF_HD float ciede_pair_2000(CiedePairLab c1, CiedePairLab c2, CIEDE_PAIR_K k,
                               TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    const float kl = 0.65f, kc = 1.0f, kh = 4.0f;

    const float delta_l_prime = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float ch1 = tvmaf_f2_f(tvmaf_f2_sqrt(ciede_pair_sq2(c1.a, c1.b)));
    const float ch2 = tvmaf_f2_f(tvmaf_f2_sqrt(ciede_pair_sq2(c2.a, c2.b)));
    const float c_bar = (ch1 + ch2) / 2;
    /* pow(c_bar, 7): c^2 exact, then pairs */
    const TvmafF2 cb2 = tvmaf_f2_sq_f(c_bar);
    const TvmafF2 cb7 = tvmaf_f2_mul_f(tvmaf_f2_mul(tvmaf_f2_mul(cb2, cb2), cb2), c_bar);
    const TvmafF2 g = tvmaf_f2_sub(tvmaf_f2_of(1.0f),
                                   tvmaf_f2_sqrt(tvmaf_f2_div(cb7, tvmaf_f2_add(cb7, k->p25_7))));
    const float a_prime_1 = tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_mul_f(g, c1.a / 2), c1.a));
    const float a_prime_2 = tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_mul_f(g, c2.a / 2), c2.a));
    const float c_prime_1 = tvmaf_f2_f(tvmaf_f2_sqrt(ciede_pair_sq2(a_prime_1, c1.b)));
    const float c_prime_2 = tvmaf_f2_f(tvmaf_f2_sqrt(ciede_pair_sq2(a_prime_2, c2.b)));
    const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
    const float delta_c_prime = c_prime_2 - c_prime_1;
    const float lb50 = l_bar - 50;
    const TvmafF2 lb2 = tvmaf_f2_sq_f(lb50);
    const float s_l = tvmaf_f2_f(tvmaf_f2_add_f(
        tvmaf_f2_div(tvmaf_f2_mul(k->k015, lb2), tvmaf_f2_sqrt(tvmaf_f2_add_f(lb2, 20.0f))),
        1.0f));
    const float s_c = tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_mul_f(k->k045, c_bar_prime), 1.0f));
    const float h_prime_1 = ciede_pair_h_prime(c1.b, a_prime_1, k);
    const float h_prime_2 = ciede_pair_h_prime(c2.b, a_prime_2, k);
    const float delta_h_prime = ciede_pair_delta_h_prime(ch1, ch2, h_prime_1, h_prime_2, k);
    /* (double)(c'1 c'2) is the float product; delta_h_prime / 2.0 is exact */
    const TvmafF2 dh_s = tvmaf_f2_sin(tvmaf_f2_of(delta_h_prime * 0.5f));
    const float delta_upcase_h_prime = tvmaf_f2_f(tvmaf_f2_mul(
        tvmaf_f2_scale(tvmaf_f2_sqrt(tvmaf_f2_of(c_prime_1 * c_prime_2)), 2.0f), dh_s));
    const float hb = ciede_pair_h_bar_prime(h_prime_1, h_prime_2, k);
    const float t = ciede_pair_t(hb, k);
    const float s_h =
        tvmaf_f2_f(tvmaf_f2_add_f(tvmaf_f2_mul_f(tvmaf_f2_mul_f(k->k015, c_bar_prime), t), 1.0f));
    const float r_t = ciede_pair_r_t(c_bar_prime, hb, k, tab, n);
    const float lightness = delta_l_prime / (kl * s_l);
    const float chroma = delta_c_prime / (kc * s_c);
    const float hue = delta_upcase_h_prime / (kh * s_h);
    TvmafF2 sum = tvmaf_f2_add(tvmaf_f2_sq_f(lightness), tvmaf_f2_sq_f(chroma));
    sum = tvmaf_f2_add(sum, tvmaf_f2_sq_f(hue));
    sum = tvmaf_f2_add_f(sum, r_t * chroma * hue);
    return tvmaf_f2_f(tvmaf_f2_sqrt(sum));
}

/* dE00 of one pixel from its samples (integers as floats). */
TVMAF_HD float ciede_pair_pixel(float ry, float ru, float rv, float dy, float du, float dv,
                                CIEDE_PAIR_K k, TVMAF_GLOBAL const uint32_t *tab, uint32_t n)
{
    const CiedePairLab c1 = ciede_pair_lab(ry, ru, rv, k);
    const CiedePairLab c2 = ciede_pair_lab(dy, du, dv, k);
    return ciede_pair_2000(c1, c2, k, tab, n);
}

#if !TVMAF_DEVICE_CODE
/* A double as the nearest pair: hi its float, lo the float of the rest. */
static inline TvmafF2 ciede_pair_of_double(double d)
{
    const float hi = (float)d;
    return tvmaf_f2(hi, (float)(d - (double)hi));
}

/* The constants for bit depth bpc, from ciede_math.h's expressions. */
static inline void ciede_pair_constants(CiedePairK *k, unsigned bpc)
{
#define P_ ciede_pair_of_double
    const double scale = (double)(1 << (bpc - 8));
    k->off_y = (float)(16. * scale);
    k->off_uv = (float)(128. * scale);
    k->ky = P_(1. / (219. * scale));
    k->kuv = P_(1. / (224. * scale));
    k->rv = P_(1.28033);
    k->gu = P_(0.21482);
    k->gv = P_(0.38059);
    k->bu = P_(2.12798);
    k->lin_max = P_(10. / 255.);
    k->a055 = P_(0.055);
    k->d1055 = P_(1.0 / 1.055);
    k->d1292 = P_(1.0 / 12.92);
    const double m[9] = { 0.4124564390896921,   0.357576077643909, 0.18043748326639894,
                          0.21267285140562248,  0.715152155287818, 0.07217499330655958,
                          0.019333895582329317, 0.119192025881303, 0.9503040785363677 };
    for (int i = 0; i < 9; i++) k->m[i] = P_(m[i]);
    k->inv_xn = P_(1.0 / 0.95047);
    k->inv_zn = P_(1.0 / 1.08883);
    k->kappa = P_(24389.0 / 27.0);
    k->epsilon = P_(216.0 / 24389.0);
    k->inv116 = P_(1.0 / 116.0);
    k->p25_7 = P_(6103515625.0);
    k->k015 = P_(0.015);
    k->k045 = P_(0.045);
    k->pi = P_(CIEDE_PI);
    k->two_pi = P_(2. * CIEDE_PI);
    k->pi_6 = P_(CIEDE_PI / 6.0);
    k->pi_30 = P_(CIEDE_PI / 30.0);
    k->pi7_20 = P_(7.0 * CIEDE_PI / 20.0);
    k->t17 = P_(0.17);
    k->t24 = P_(0.24);
    k->t32 = P_(0.32);
    k->t20 = P_(0.20);
    k->deg = P_(180.0 / CIEDE_PI);
    k->inv25 = P_(1.0 / 25.0);
    k->rad = P_(CIEDE_PI / 180.0);
#undef P_
}
#endif

#endif
