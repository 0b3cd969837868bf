/*
 * RCPSS: the goldens host's table, this processor's fingerprint, and the
 * probe that builds this processor's table and proves the model of rcpss.h
 * against its instruction.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/rcpss.h"
#include "numerics/rcpss_table.h"

const uint32_t tvmaf_rcpss_goldens_table[TVMAF_RCPSS_TABLE_LEN] = TVMAF_RCPSS_GOLDENS_TABLE;

/* 1 + m * 2^-23: the float with exponent 0 and mantissa bits m */
static uint32_t one_plus(uint32_t m) { return 0x3f800000u | m; }

uint64_t tvmaf_rcpss_table_fingerprint(const uint32_t *table)
{
    uint64_t h = TVMAF_FNV1A64_BASIS;
    for (uint32_t m = 0; m < (1u << 23); m++)
        h = tvmaf_fnv1a64_u32(h, tvmaf_rcpss_model_bits(one_plus(m), table));
    return h;
}

#if TVMAF_RCPSS_HAVE_INSTRUCTION

static uint32_t instruction_bits(uint32_t x)
{
    return tvmaf_f2bits(tvmaf_rcpss_instruction(tvmaf_bits2f(x)));
}

uint64_t tvmaf_rcpss_host_fingerprint(void)
{
    uint64_t h = TVMAF_FNV1A64_BASIS;
    for (uint32_t m = 0; m < (1u << 23); m++)
        h = tvmaf_fnv1a64_u32(h, instruction_bits(one_plus(m)));
    return h;
}

/* Compares the model with the instruction at x; on a difference describes it
 * and returns -EDOM. */
static int check(const uint32_t *table, uint32_t x, char *msg, size_t len)
{
    const uint32_t want = instruction_bits(x);
    const uint32_t got = tvmaf_rcpss_model_bits(x, table);
    if (want == got) return 0;
    snprintf(msg, len, "RCPSS model disagrees with this processor at x = 0x%08x: instruction "
             "0x%08x, model 0x%08x", (unsigned)x, (unsigned)want, (unsigned)got);
    return -EDOM;
}

int tvmaf_rcpss_probe(uint32_t table[TVMAF_RCPSS_TABLE_LEN], char *msg, size_t len)
{
    if (len) msg[0] = '\0';
    for (uint32_t i = 0; i < TVMAF_RCPSS_TABLE_LEN; i++)
        table[i] = instruction_bits(one_plus(i << (23 - TVMAF_RCPSS_TABLE_BITS)));

    int err = 0;
    /* every mantissa of [1, 2): the estimate depends on its top bits only */
    for (uint32_t m = 0; !err && m < (1u << 23); m++)
        err = check(table, one_plus(m), msg, len);

    /* every exponent and both signs: the scaling, the flush to zero at the
     * top of the range. The mantissas: the first and last of every table
     * interval of a sparse grid, and a scrambled spread (a multiplicative
     * congruence covers all low-bit patterns over the run). */
    uint32_t scramble = 0x2545f491u;
    for (uint32_t biased = 1; !err && biased < 0xffu; biased++) {
        for (uint32_t k = 0; !err && k < 4096; k++) {
            uint32_t frac;
            if (k < 1024)
                frac = (k * 4u) << 11; /* first mantissa of every 4th entry */
            else if (k < 2048)
                frac = (((k - 1024u) * 4u + 2u) << 11) | 0x7ffu; /* last of others */
            else {
                scramble = scramble * 1664525u + 1013904223u;
                frac = scramble >> 9;
            }
            for (uint32_t sign = 0; !err && sign < 2; sign++)
                err = check(table, (sign << 31) | (biased << 23) | frac, msg, len);
        }
    }

    /* zeros, denormals (a spread, the smallest and the largest), infinities,
     * NaNs quiet and signalling */
    static const uint32_t special[] = {
        0x00000000u, 0x00000001u, 0x00000002u, 0x00400000u, 0x007fffffu,
        0x7f800000u, 0x7fc00000u, 0x7fc00001u, 0x7fffffffu, 0x7f800001u, 0x7fa00000u,
    };
    for (size_t i = 0; !err && i < sizeof(special) / sizeof(special[0]); i++)
        for (uint32_t sign = 0; !err && sign < 2; sign++)
            err = check(table, (sign << 31) | special[i], msg, len);
    for (uint32_t d = 3; !err && d < (1u << 23); d += 4099u)
        for (uint32_t sign = 0; !err && sign < 2; sign++)
            err = check(table, (sign << 31) | d, msg, len);
    return err;
}

#else

uint64_t tvmaf_rcpss_host_fingerprint(void) { return 0; }

int tvmaf_rcpss_probe(uint32_t table[TVMAF_RCPSS_TABLE_LEN], char *msg, size_t len)
{
    (void)table;
    snprintf(msg, len, "this processor has no RCPSS instruction");
    return -ENOTSUP;
}

#endif

static uint32_t host_table[TVMAF_RCPSS_TABLE_LEN];
static char host_table_msg[192];
static int host_table_err;
static pthread_once_t host_table_once = PTHREAD_ONCE_INIT;

static void host_table_probe(void)
{
    host_table_err = tvmaf_rcpss_probe(host_table, host_table_msg, sizeof(host_table_msg));
}

const uint32_t *tvmaf_rcpss_host_table(char *msg, size_t msg_len)
{
    pthread_once(&host_table_once, host_table_probe);
    if (!host_table_err) return host_table;
    if (msg_len) snprintf(msg, msg_len, "%s", host_table_msg);
    return NULL;
}

const char *tvmaf_rcp_div_name(enum TvmafRcpDiv div)
{
    switch (div) {
    case TVMAF_RCP_DIV_HOST: return "host";
    case TVMAF_RCP_DIV_TABLE: return "table";
    case TVMAF_RCP_DIV_IEEE: return "ieee";
    }
    return NULL;
}

int tvmaf_rcp_div_parse(const char *name)
{
    for (int d = TVMAF_RCP_DIV_HOST; d <= TVMAF_RCP_DIV_IEEE; d++)
        if (!strcmp(name, tvmaf_rcp_div_name((enum TvmafRcpDiv)d))) return d;
    return -1;
}

int tvmaf_rcp_div_resolve(const char *name, char *msg, size_t msg_len)
{
    const char *from = "option adm_div";
    if (!name || !*name || !strcmp(name, "auto")) name = "host";
    const int div = tvmaf_rcp_div_parse(name);
    if (div < 0) {
        snprintf(msg, msg_len, "feature \"float_adm\": %s is \"%s\"; expected host, table, "
                 "ieee or auto", from, name);
        return -EINVAL;
    }
#if !TVMAF_RCPSS_HAVE_INSTRUCTION
    if (div == TVMAF_RCP_DIV_HOST) {
        static atomic_int noted; /* once per process */
        if (!atomic_exchange(&noted, 1)) {
            fprintf(stderr, "float_adm: this processor has no RCPSS instruction; dividing "
                    "through the goldens host's estimates (adm_div=table)\n");
        }
        return TVMAF_RCP_DIV_TABLE;
    }
#endif
    return div;
}
