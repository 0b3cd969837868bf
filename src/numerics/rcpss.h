/*
 * The x86 RCPSS reciprocal estimate: the processor's own instruction, a
 * table model that replays it anywhere, and the fingerprint that tells
 * processors apart.
 *
 * Why it matters: libvmaf's float ADM divides t / o as t * rcp(o), where
 * rcp() refines RCPSS(o) by one Newton step. RCPSS is specified only to a
 * relative error of 1.5 * 2^-12, and processor families return different low
 * bits; one Newton step does not remove the difference. So the reference's
 * float ADM scores are those of the processor that ran it.
 *
 * The model (measured on the goldens' host, and proved on any x86 host by
 * tvmaf_rcpss_probe): for a normal x = +-2^e * 1.f the estimate is the entry
 * of f's top 12 bits, table[i] = RCPSS(1 + i * 2^-12), with its exponent
 * lowered by e and x's sign; a result below the normal range is a signed
 * zero. Signed zeros and denormals give signed infinities, infinities give
 * signed zeros, a NaN gives the same NaN made quiet.
 *
 * Fingerprint: FNV-1a 64 (offset basis 14695981039346656037, prime
 * 1099511628211) over the four little-endian bytes of the bit pattern of
 * RCPSS(1 + m * 2^-23) for m = 0 .. 2^23 - 1, in that order. Two processors
 * with the same fingerprint return the same estimates over [1, 2), hence
 * (under the model) everywhere.
 */
#ifndef TVMAF_NUMERICS_RCPSS_H
#define TVMAF_NUMERICS_RCPSS_H

#ifndef __OPENCL_VERSION__
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "core/hd.h"
#include "numerics/float_bits.h"

#define TVMAF_RCPSS_TABLE_BITS 12
#define TVMAF_RCPSS_TABLE_LEN (1 << TVMAF_RCPSS_TABLE_BITS)

/* The fingerprint of the processor that made the goldens. */
#define TVMAF_RCPSS_GOLDENS_FINGERPRINT UINT64_C(0x10bf236b3d269325)

#define TVMAF_FNV1A64_BASIS UINT64_C(14695981039346656037)
#define TVMAF_FNV1A64_PRIME UINT64_C(1099511628211)

/* How float ADM divides. */
enum TvmafRcpDiv {
    TVMAF_RCP_DIV_HOST = 0,  /* this processor's RCPSS, one Newton step */
    TVMAF_RCP_DIV_TABLE = 1, /* a table's estimate (the model), one Newton step */
    TVMAF_RCP_DIV_IEEE = 2,  /* the IEEE quotient (the reference's non-SSE2 build) */
};

/* The model's estimate for the float with bit pattern x, as a bit pattern. */
TVMAF_HD uint32_t tvmaf_rcpss_model_bits(uint32_t x, TVMAF_GLOBAL const uint32_t *table)
{
    const uint32_t sign = x & 0x80000000u;
    const uint32_t biased = (x >> 23) & 0xffu;
    const uint32_t frac = x & 0x007fffffu;
    if (biased == 0xffu) /* infinity -> zero; NaN -> itself, quiet */
        return frac ? (x | 0x00400000u) : sign;
    if (biased == 0u) /* zero or denormal -> infinity */
        return sign | 0x7f800000u;
    const uint32_t est = table[frac >> (23 - TVMAF_RCPSS_TABLE_BITS)];
    /* x = 2^(biased - 127) * 1.f: the estimate of 1.f scaled by 2^-(biased - 127) */
    const int32_t e = (int32_t)((est >> 23) & 0xffu) - ((int32_t)biased - 127);
    if (e <= 0) return sign; /* below the normal range */
    if (e >= 0xff) return sign | 0x7f800000u;
    return sign | ((uint32_t)e << 23) | (est & 0x007fffffu);
}

TVMAF_HD float tvmaf_rcpss_model(float x, TVMAF_GLOBAL const uint32_t *table)
{
    return tvmaf_bits2f(tvmaf_rcpss_model_bits(tvmaf_f2bits(x), table));
}

/* The reference's refinement of an estimate e of 1 / x: e + e * (1 - x * e),
 * four float operations rounded one by one (never fused). */
TVMAF_HD float tvmaf_rcp_newton(float x, float e)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(e, __fmul_rn(e, __fsub_rn(1.0f, __fmul_rn(x, e))));
#else
    return e + e * (1.0f - x * e);
#endif
}

/* One FNV-1a 64 step over the four little-endian bytes of a 32-bit word. */
TVMAF_HD uint64_t tvmaf_fnv1a64_u32(uint64_t h, uint32_t w)
{
    for (int k = 0; k < 4; k++) {
        h ^= (w >> (8 * k)) & 0xffu;
        h *= TVMAF_FNV1A64_PRIME;
    }
    return h;
}

/* The processor's instruction, where there is one (host code on x86). */
#if !TVMAF_DEVICE_CODE && (defined(__SSE__) || defined(__x86_64__) || defined(_M_X64))
#include <xmmintrin.h>
#define TVMAF_RCPSS_HAVE_INSTRUCTION 1
static inline float tvmaf_rcpss_instruction(float x)
{
    return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
}
#else
#define TVMAF_RCPSS_HAVE_INSTRUCTION 0
#endif

#if !TVMAF_DEVICE_CODE
/* The goldens host's table (rcpss_table.h). */
extern const uint32_t tvmaf_rcpss_goldens_table[TVMAF_RCPSS_TABLE_LEN];

/* This processor's fingerprint; 0 where there is no RCPSS instruction. About
 * 8.4 million instructions: compute once and keep it. */
uint64_t tvmaf_rcpss_host_fingerprint(void);

/* The fingerprint the model predicts from a table (the same sweep, the
 * estimates taken from the model instead of the instruction). */
uint64_t tvmaf_rcpss_table_fingerprint(const uint32_t *table);

/*
 * Builds this processor's table with its own instruction and proves the
 * model against the instruction: every mantissa of [1, 2); every exponent
 * with both signs at a sample of 4096 mantissas; zeros, a sample of
 * denormals, infinities and NaNs. Returns 0 when proved; -ENOTSUP without
 * the instruction; -EDOM (with the first disagreement in msg) when the model
 * does not describe this processor.
 */
int tvmaf_rcpss_probe(uint32_t table[TVMAF_RCPSS_TABLE_LEN], char *msg, size_t msg_len);

/*
 * This processor's table, built and proved by tvmaf_rcpss_probe once per
 * process (the first call pays the sweep, about 10 million instructions;
 * thread-safe). NULL where the probe fails, with the reason in msg.
 */
const uint32_t *tvmaf_rcpss_host_table(char *msg, size_t msg_len);

/* "host", "table", "ieee"; NULL for anything else. */
const char *tvmaf_rcp_div_name(enum TvmafRcpDiv div);
/* Parses those names; returns -1 for anything else. */
int tvmaf_rcp_div_parse(const char *name);

/*
 * The mode float ADM uses for the option value `name`: "host", "table",
 * "ieee", or "auto" (also NULL or ""), which is "host". Where this processor has
 * no RCPSS instruction, "host" becomes "table" (noted once on stderr).
 * Returns the enum TvmafRcpDiv value, or -EINVAL with a message.
 */
int tvmaf_rcp_div_resolve(const char *name, char *msg, size_t msg_len);
#endif

#endif
