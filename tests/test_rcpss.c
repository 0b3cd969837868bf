/*
 * RCPSS: the model of numerics/rcpss.h, the goldens host's table, and this
 * processor.
 *
 *   1. FNV-1a 64 as the goldens README defines it (a known answer).
 *   2. The shipped table replays its own entries: the model returns entry i
 *      for every mantissa of entry i's interval, scaled by the exponent, with
 *      the special values as specified.
 *   3. The shipped table, replayed over every mantissa of [1, 2), gives the
 *      goldens host's fingerprint: the table and the model together are that
 *      processor's instruction there.
 *   4. On x86: this processor's fingerprint (printed); the probe builds its
 *      table and proves the model against the instruction; the model's
 *      fingerprint of that table equals the instruction's. Where this
 *      processor's fingerprint is the goldens', its table is the shipped one,
 *      so "table" and "host" divide alike; a sample of quotients checks it.
 *      Otherwise the note says the goldens need adm_div=table here.
 *
 * Prints "rcpss fingerprint: HEX" (or "none") on its first line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/rcpss.h"

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static void test_fnv(void)
{
    /* FNV-1a 64 of the bytes "abcd" (one little-endian word) */
    const uint64_t h = tvmaf_fnv1a64_u32(TVMAF_FNV1A64_BASIS, 0x64636261u);
    CHECK(h == UINT64_C(0xfc179f83ee0724dd), "fnv1a64(\"abcd\") = %016" PRIx64, h);
}

static void test_replay(const uint32_t *t)
{
    for (uint32_t i = 0; i < TVMAF_RCPSS_TABLE_LEN; i++) {
        /* every mantissa of the interval [1 + i 2^-12, 1 + (i + 1) 2^-12) */
        for (uint32_t low = 0; low < (1u << 11); low++) {
            const uint32_t x = 0x3f800000u | (i << 11) | low;
            const uint32_t got = tvmaf_rcpss_model_bits(x, t);
            if (got != t[i]) {
                CHECK(0, "model(0x%08x) = 0x%08x, entry %u is 0x%08x", (unsigned)x,
                      (unsigned)got, (unsigned)i, (unsigned)t[i]);
                return;
            }
        }
        /* scaled: x * 2^e gives the entry * 2^-e while that is normal, else 0;
         * the sign follows x */
        const uint32_t te = (t[i] >> 23) & 0xffu;
        for (int e = -126; e <= 127; e++) {
            for (uint32_t sign = 0; sign < 2; sign++) {
                const uint32_t x = (sign << 31) | ((uint32_t)(127 + e) << 23) | (i << 11) | 5u;
                const int re = (int)te - e;
                const uint32_t want =
                    (sign << 31) | (re > 0 ? ((uint32_t)re << 23) | (t[i] & 0x7fffffu) : 0u);
                const uint32_t got = tvmaf_rcpss_model_bits(x, t);
                if (got != want) {
                    CHECK(0, "model(0x%08x) = 0x%08x, want 0x%08x", (unsigned)x, (unsigned)got,
                          (unsigned)want);
                    return;
                }
            }
        }
    }
    static const uint32_t in[][2] = {
        { 0x00000000u, 0x7f800000u }, { 0x80000000u, 0xff800000u }, /* zeros */
        { 0x00000001u, 0x7f800000u }, { 0x807fffffu, 0xff800000u }, /* denormals */
        { 0x7f800000u, 0x00000000u }, { 0xff800000u, 0x80000000u }, /* infinities */
        { 0x7fc00000u, 0x7fc00000u }, { 0xffc12345u, 0xffc12345u }, /* quiet NaNs */
        { 0x7f800001u, 0x7fc00001u },                               /* signalling NaN */
    };
    for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++) {
        const uint32_t got = tvmaf_rcpss_model_bits(in[k][0], t);
        CHECK(got == in[k][1], "model(0x%08x) = 0x%08x, want 0x%08x", (unsigned)in[k][0],
              (unsigned)got, (unsigned)in[k][1]);
    }
}

int main(void)
{
    const uint32_t *gold = tvmaf_rcpss_goldens_table;
    const uint64_t host = tvmaf_rcpss_host_fingerprint();
    if (TVMAF_RCPSS_HAVE_INSTRUCTION)
        printf("rcpss fingerprint: %016" PRIx64 "\n", host);
    else
        printf("rcpss fingerprint: none (no RCPSS instruction)\n");
    printf("goldens fingerprint: %016" PRIx64 "\n", TVMAF_RCPSS_GOLDENS_FINGERPRINT);

    test_fnv();
    test_replay(gold);

    const uint64_t replayed = tvmaf_rcpss_table_fingerprint(gold);
    CHECK(replayed == TVMAF_RCPSS_GOLDENS_FINGERPRINT,
          "the shipped table replays to fingerprint %016" PRIx64, replayed);

#if TVMAF_RCPSS_HAVE_INSTRUCTION
    static uint32_t mine[TVMAF_RCPSS_TABLE_LEN];
    char msg[256];
    const int err = tvmaf_rcpss_probe(mine, msg, sizeof(msg));
    CHECK(!err, "probe: %s", msg);
    if (!err) {
        printf("probe: the table model describes this processor's RCPSS\n");
        const uint64_t mine_fp = tvmaf_rcpss_table_fingerprint(mine);
        CHECK(mine_fp == host, "probed table replays to %016" PRIx64 ", instruction gives %016"
              PRIx64, mine_fp, host);
    }
    if (host == TVMAF_RCPSS_GOLDENS_FINGERPRINT) {
        CHECK(!memcmp(mine, gold, sizeof(mine)), "same fingerprint, different table");
        /* the reference's quotient through the instruction and through the
         * replayed table, on a spread of operands */
        uint32_t u = 12345u;
        for (int k = 0; k < 1000000; k++) {
            u = u * 1664525u + 1013904223u;
            const float d = tvmaf_bits2f((u & 0x807fffffu) | ((100u + (u >> 24) % 56u) << 23));
            const float n = (float)(int)(u >> 8) * 0x1p-12f;
            const float e_host = tvmaf_rcpss_instruction(d), e_tab = tvmaf_rcpss_model(d, gold);
            const float q_host = n * tvmaf_rcp_newton(d, e_host);
            const float q_tab = n * tvmaf_rcp_newton(d, e_tab);
            if (tvmaf_f2bits(q_host) != tvmaf_f2bits(q_tab)) {
                CHECK(0, "quotient %a / %a: host %a, table %a", n, d, q_host, q_tab);
                break;
            }
        }
        printf("this processor is the goldens' (same fingerprint): adm_div=host reproduces "
               "the goldens\n");
    } else {
        printf("this processor differs from the goldens': reproduce them with adm_div=table "
               "(--adm-div table)\n");
    }
#endif

    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
