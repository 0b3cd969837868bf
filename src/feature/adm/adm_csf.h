/*
 * The contrast sensitivity models both ADM variants (integer adm and
 * float_adm) weight their bands with: Watson's quantization steps and
 * Barten's CSF, in the reference's float/double arithmetic. Host code,
 * evaluated once per stream; written once for both features.
 */
#ifndef TVMAF_FEATURE_ADM_CSF_H
#define TVMAF_FEATURE_ADM_CSF_H

#include <math.h>

/* Display resolution in pixels per degree of visual angle, stored in float. */
static inline float adm_pixels_per_degree(double norm_view_dist, int ref_display_height)
{
    return norm_view_dist * ref_display_height * M_PI / 180.0;
}

/*
 * Watson et al. 1997 ("Visibility of wavelet quantization noise") quantization
 * step of luma band (lambda, theta), theta 1 = horizontal/vertical detail,
 * 2 = diagonal. Model constants and basis amplitudes are floats as in the
 * reference; mixed float/double evaluation as there.
 */
static inline float adm_watson_step(int lambda, int theta, double norm_view_dist,
                                    int ref_display_height)
{
    static const float a = 0.495, k = 0.466, f0 = 0.401;
    static const float g[4] = { 1.501, 1.0, 0.534, 1.0 };
    static const float amplitude[4][4] = {
        { 0.62171, 0.67234, 0.72709, 0.67234 },
        { 0.34537, 0.41317, 0.49428, 0.41317 },
        { 0.18004, 0.22727, 0.28688, 0.22727 },
        { 0.091401, 0.11792, 0.15214, 0.11792 },
    };
    const float r = adm_pixels_per_degree(norm_view_dist, ref_display_height);
    const float e = log10(pow(2.0, lambda + 1) * f0 * g[theta] / r);
    const float q = 2.0 * a * pow(10.0, k * e * e) / amplitude[lambda][theta];
    return q;
}

/* Barten CSF (HDR-VDP-2 simplification) pieces, float where the reference
 * stores float. */
static inline float adm_barten_lum_sens(float lum)
{
    static const float s0 = 30.162, s1 = 4.0627, s2 = 1.6596, s3 = 0.2712;
    return s0 * pow(pow(s1 / lum, s2) + 1, -s3);
}

static inline float adm_barten_mtf(float freq)
{
    static const float a[4] = { 0.424838596301290, 0.572435103936480, 0.000167576239164937,
                                0.00255872352306433 };
    static const float b[4] = { 0.028, 0.37, 37, 360 };
    float mtf = 0.0;
    for (int i = 0; i < 4; i++) mtf = mtf + a[i] * exp(-b[i] * freq);
    return mtf;
}

static inline float adm_lerp(float x0, float y0, float x1, float y1, float x)
{
    return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

static inline float adm_barten_csf(int lambda, double norm_view_dist, int ref_display_height,
                                   double lum, double scale)
{
    /* luminances (cd/m2) of the six measured parameter sets */
    static const float lum_at[6] = { 0.002, 0.02, 0.2, 2, 20, 150 };
    static const float par[6][5] = {
        { 0.0160737, 0.991265, 3.74038, 0.50722, 4.46044 },
        { 0.383873, 0.800889, 3.54104, 0.682505, 4.94958 },
        { 0.929301, 0.476505, 4.37453, 0.750315, 5.28678 },
        { 1.29776, 0.405782, 4.40602, 0.935314, 5.61425 },
        { 1.49222, 0.334278, 3.79542, 1.07327, 6.4635 },
        { 1.46213, 0.394533, 2.7755, 1.16577, 7.45665 },
    };
    const float r = adm_pixels_per_degree(norm_view_dist, ref_display_height);
    const float freq = r / pow(2, lambda + 1);
    const double l = lum > lum_at[5] ? lum_at[5] : (lum < lum_at[0] ? lum_at[0] : lum);
    int lo = 0, hi = 0;
    for (int i = 0; i < 5; i++) {
        if (l >= lum_at[i] && l <= lum_at[i + 1]) {
            lo = i;
            hi = i + 1;
            break;
        }
    }
    const float x0 = log10(lum_at[lo]), x1 = log10(lum_at[hi]), x = log10(l);
    float p[4];
    for (int i = 0; i < 4; i++) p[i] = adm_lerp(x0, par[lo][i + 1], x1, par[hi][i + 1], x);
    const float ta = 1.0f + pow(p[0] * freq, p[1]);
    const float tb = 1.0f / pow(1 - exp(-pow(freq / 7, 2)), p[2]);
    const float ncsf = p[3] / pow(ta * tb, 0.5);
    return ncsf * adm_barten_mtf(freq) * adm_barten_lum_sens(lum) * scale;
}

#endif
