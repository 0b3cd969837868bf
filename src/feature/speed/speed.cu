// speed_chroma and speed_temporal twins: each image's SpEED statistics up to
// the first log2 (speed_math.h, "The CUDA twin's decomposition"): the load,
// the prescale, the anti-alias filter and decimation, the local mean, the
// covariance, its eigenvalues and QR factors, and every block's variance.
// The images of a frame are blockIdx.z (or blockIdx.y / x where noted), each
// n_* floats after the previous. The host reads back eigenvalues, singular
// flags and block variances and scores with the CPU's code.
#include <stdint.h>

#include "feature/speed/speed_math.h"

static_assert(SPEED_BLOCK_W * SPEED_BLOCK_H <= 1024, "a block's threads");
static_assert(SPEED_COV_THREADS <= 1024 && SPEED_COV_THREADS >= SPEED_PAIRS, "covariance block");
static_assert(SPEED_QR_THREADS <= 1024 && SPEED_QR_THREADS >= SPEED_NE * SPEED_NE, "QR block");

// x and the rows y of this thread over a w x h grid (the grid's y strides).
#define SPEED_FOR_SAMPLES(w, h)                                                  \
    const int x = (int)(blockIdx.x * SPEED_BLOCK_W + threadIdx.x);              \
    if (x >= (w)) return;                                                        \
    for (int y = (int)(blockIdx.y * SPEED_BLOCK_H + threadIdx.y); y < (h);       \
         y += (int)(gridDim.y * SPEED_BLOCK_H))

// One plane (w x h samples of bpc bits, rows pitch bytes apart) as floats.
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_load(const unsigned char *src, size_t pitch, unsigned bpc, int w, int h, float divisor,
           float *dst)
{
    SPEED_FOR_SAMPLES(w, h)
    dst[(size_t)y * w + x] = fvif_load_sample(src, (ptrdiff_t)pitch, bpc, divisor, x, y);
}

// speed_temporal: both luma planes of the frame into cur_ref / cur_dis (kept
// for the next frame) and, after frame 0, the two differences with the
// previous frame's planes: img0 = prev_ref - cur_ref, img1 = prev_dis -
// (use_ref_diff ? cur_ref : cur_dis).
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_temporal_load(const unsigned char *ref, const unsigned char *dis, size_t pitch,
                    unsigned bpc, int w, int h, float divisor, int first, int use_ref_diff,
                    float *cur_ref, float *cur_dis, const float *prev_ref, const float *prev_dis,
                    float *img0, float *img1)
{
    SPEED_FOR_SAMPLES(w, h)
    {
        const size_t i = (size_t)y * w + x;
        const float r = fvif_load_sample(ref, (ptrdiff_t)pitch, bpc, divisor, x, y);
        const float d = fvif_load_sample(dis, (ptrdiff_t)pitch, bpc, divisor, x, y);
        cur_ref[i] = r;
        cur_dis[i] = d;
        if (!first) {
            img0[i] = prev_ref[i] - r;
            img1[i] = prev_dis[i] - (use_ref_diff ? r : d);
        }
    }
}

// The prescale at the samples the anti-alias pass reads: column cols[i], row
// rows[j] of each image's sw x sh prescaled copy, from the host's tables.
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_resample_kernel(const float *img, size_t n_img, int stride, int method, int taps,
                      const int *xi, const float *xw, const int *yi, const float *yw,
                      const int *cols, int nc, const int *rows, int nr, int sw,
                      float *scaled, size_t n_scaled)
{
    const float *src = img + n_img * blockIdx.z;
    float *dst = scaled + n_scaled * blockIdx.z;
    SPEED_FOR_SAMPLES(nc, nr)
    {
        const int cx = cols[x], ry = rows[y];
        dst[(size_t)ry * sw + cx] =
            speed_resample((enum FvifScaler)method, src, stride, xi + (size_t)cx * taps,
                           xw + (size_t)cx * taps, yi + (size_t)ry * taps, yw + (size_t)ry * taps);
    }
}

// Anti-alias vertical pass at rows 16 r of each sw x sh image (rows `stride`
// floats apart), every column and the mirrored margins (ew = sw + 2 half).
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_aa_v(const float *src, size_t n_src, int stride, int sw, int sh, int oh, const float *taps,
           int fw, float *ext, size_t n_ext)
{
    const int half = fw / 2, ew = sw + 2 * half;
    const float *img = src + n_src * blockIdx.z;
    float *out = ext + n_ext * blockIdx.z;
    SPEED_FOR_SAMPLES(ew, oh)
    out[(size_t)y * ew + x] = speed_vpass_sample(taps, fw, img, stride, sh, y * SPEED_DECIMATION,
                                                 fvif_ext_column(x, sw, half));
}

// Anti-alias horizontal pass at columns 16 c: the decimated ow x oh image.
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_aa_h(const float *ext, size_t n_ext, int ew, int ow, int oh, const float *taps, int fw,
           float *dec, size_t n_dec)
{
    const float *in = ext + n_ext * blockIdx.z;
    float *out = dec + n_dec * blockIdx.z;
    SPEED_FOR_SAMPLES(ow, oh)
    out[(size_t)y * ow + x] = fvif_hpass_sample(taps, fw, in + (size_t)y * ew, x, SPEED_DECIMATION);
}

// Local mean, vertical pass over the decimated image (margins as above).
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_lm_v(const float *dec, size_t n_dec, int ow, int oh, const float *taps, int fw,
           float *ext, size_t n_ext)
{
    const int half = fw / 2, ew = ow + 2 * half;
    const float *img = dec + n_dec * blockIdx.z;
    float *out = ext + n_ext * blockIdx.z;
    SPEED_FOR_SAMPLES(ew, oh)
    out[(size_t)y * ew + x] = speed_vpass_sample(taps, fw, img, ow, oh, y,
                                                 fvif_ext_column(x, ow, half));
}

// Local mean, horizontal pass, and the image minus its local mean.
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_W * SPEED_BLOCK_H)
speed_lm_h(const float *ext, size_t n_ext, int ew, const float *dec, int ow, int oh,
           const float *taps, int fw, float *res, size_t n_dec)
{
    const float *in = ext + n_ext * blockIdx.z;
    const float *d = dec + n_dec * blockIdx.z;
    float *out = res + n_dec * blockIdx.z;
    SPEED_FOR_SAMPLES(ow, oh)
    {
        const size_t i = (size_t)y * ow + x;
        out[i] = d[i] - fvif_hpass_sample(taps, fw, in + (size_t)y * ew, x, 1);
    }
}

// The 25x25 covariance of image blockIdx.x: 25 threads take the window
// means, then one thread per entry of the lower triangle its covariance
// (each a sum in the CPU's order), written to both halves.
extern "C" __global__ void __launch_bounds__(SPEED_COV_THREADS)
speed_cov(const float *res, size_t n_dec, SpeedGrid g, float *k)
{
    __shared__ float means[SPEED_NE];
    const float *img = res + n_dec * blockIdx.x;
    float *kz = k + (size_t)SPEED_NE * SPEED_NE * blockIdx.x;
    const int t = (int)threadIdx.x;
    if (t < SPEED_NE)
        means[t] = speed_window_mean(img, g.ow, &g, t / SPEED_BLOCK, t % SPEED_BLOCK);
    __syncthreads();
    if (t >= SPEED_PAIRS) return;
    int x, y;
    speed_pair(t, &x, &y);
    const float v = speed_window_cov(img, g.ow, &g, x / SPEED_BLOCK, x % SPEED_BLOCK,
                                     y / SPEED_BLOCK, y % SPEED_BLOCK, means[x], means[y]);
    kz[x * SPEED_NE + y] = v;
    kz[y * SPEED_NE + x] = v;
}

// Image blockIdx.y's covariance k: block x 0 takes its eigenvalues on one
// thread (into out, and eig_ok: speed_regular); block x 1 its QR factors q
// and r, one thread per matrix entry.
extern "C" __global__ void __launch_bounds__(SPEED_QR_THREADS)
speed_factor(const float *k, float *out, size_t n_out, int *eig_ok, float *q, float *r)
{
    const int nn = SPEED_NE * SPEED_NE;
    const size_t z = blockIdx.y;
    const float *kz = k + (size_t)nn * z;
    const int t = (int)threadIdx.x;
    if (blockIdx.x == 0) {
        __shared__ float scratch[SPEED_EIG_SCRATCH(SPEED_NE)];
        if (t != 0) return;
        float *ev = out + n_out * z;
        speed_eigenvalues(kz, ev, SPEED_NE, scratch);
        eig_ok[z] = speed_regular(ev);
        return;
    }
    __shared__ float a[SPEED_NE * SPEED_NE], zm[SPEED_NE * SPEED_NE], h[SPEED_NE * SPEED_NE];
    __shared__ float t1[SPEED_NE * SPEED_NE], t2[SPEED_NE * SPEED_NE], qm[SPEED_NE * SPEED_NE];
    __shared__ float v[SPEED_NE];
    const int n = SPEED_NE, i = t / n, j = t % n;
    const bool mine = t < nn;
    if (mine) {
        a[t] = kz[t];
        zm[t] = kz[t];
        qm[t] = (i == j ? 1 : 0);
    }
    __syncthreads();
    for (int s = 0; s + 1 < n; s++) {
        if (mine) speed_qr_mask(zm, n, s, i, j);
        __syncthreads();
        if (t == 0) speed_qr_vector(zm, a, v, n, s);
        __syncthreads();
        if (mine) h[t] = speed_qr_reflector(v, i, j);
        __syncthreads();
        if (mine) {
            t1[t] = speed_matmul_entry(h, zm, n, i, j);
            t2[t] = speed_matmul_entry(h, qm, n, i, j);
        }
        __syncthreads();
        if (mine) {
            zm[t] = t1[t];
            qm[t] = t2[t];
        }
        __syncthreads();
    }
    if (mine) {
        q[(size_t)nn * z + t] = qm[t];
        r[(size_t)nn * z + t] = speed_matmul_entry(qm, a, n, i, j);
    }
}

// One thread per block of image blockIdx.y: its samples, its solution (0
// when the covariance is singular) and its variance, into out after the
// eigenvalues and the singular flag.
extern "C" __global__ void __launch_bounds__(SPEED_BLOCK_THREADS)
speed_blocks(const float *res, size_t n_dec, SpeedGrid g, const int *eig_ok, const float *q,
             const float *r, float *out, size_t n_out)
{
    const int blk = (int)(blockIdx.x * SPEED_BLOCK_THREADS + threadIdx.x);
    if (blk >= g.nb) return;
    const size_t z = blockIdx.y, nn = SPEED_NE * SPEED_NE;
    const float *qz = q + nn * z, *rz = r + nn * z;
    float b[SPEED_NE], qb[SPEED_NE], x[SPEED_NE];
    speed_block_vector(res + n_dec * z, g.ow, &g, blk, b, 1);
    const int singular = !eig_ok[z] || speed_r_singular(rz, SPEED_NE);
    if (singular)
        for (int p = 0; p < SPEED_NE; p++) x[p] = 0.0f;
    else
        speed_solve_column(qz, rz, b, 1, qb, x, 1, SPEED_NE);
    float *oz = out + n_out * z;
    oz[SPEED_NE + 1 + blk] = speed_block_variance(x, b, 1, 0);
    if (blk == 0) oz[SPEED_NE] = singular ? 1.0f : 0.0f;
}
