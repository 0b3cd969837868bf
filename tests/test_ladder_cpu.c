/*
 * A ladder on the CPU backend: contexts with TVMAF_GPU_SHARED_REFERENCE that
 * are given references to the same reference pictures (tvmaf_picture_ref)
 * share what depends on the reference alone. For adm that is the reference's
 * DWT bands of every scale, kept with the picture (tvmaf_picture_once_area)
 * where no scale 1..3 has the DWT defect. Each pair's scores must be the bits
 * of the same pair scored by a context of its own, and the areas must be
 * computed once per frame and read by the other pairs (or, where the defect
 * forbids sharing, not used at all). The pairs run one after the other on
 * this thread, or each on two threads of its own.
 *
 * usage: test_ladder_cpu
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
#include "core/picture_pool.h"
#include "feature/adm/adm_math.h"
#include "feature/adm/adm_state.h"
#include "unit_check.h"

enum { PAIRS = 3, FRAMES = 4 };

typedef struct Case {
    unsigned w, h, bpc;
    const char *isa; /* adm's reference_isa */
    unsigned threads;
} Case;

/* A textured picture: frame f of input `which` (0: the reference; 1..: the
 * reference with noise of growing strength), deterministic. */
static int make(TvmafPicture *p, const Case *c, unsigned which, unsigned f)
{
    if (tvmaf_picture_alloc(p, TVMAF_PIX_FMT_YUV420P, c->bpc, c->w, c->h)) return -1;
    const unsigned max = (1u << c->bpc) - 1;
    uint32_t seed = 12345u + 7919u * f, noise = 777u + 31u * which + 101u * f;
    for (int pl = 0; pl < 3; pl++) {
        for (unsigned y = 0; y < p->h[pl]; y++) {
            for (unsigned x = 0; x < p->w[pl]; x++) {
                seed = seed * 1664525u + 1013904223u;
                noise = noise * 1103515245u + 12345u;
                int v = (int)((x * 3 + y * 5 + f * 7) % 200) + (int)(seed >> 27);
                v = v * (int)max / 240;
                if (which) v += (int)((noise >> 24) % (8 * which + 1)) - (int)(4 * which);
                v = v < 0 ? 0 : v > (int)max ? (int)max : v;
                if (c->bpc == 8)
                    ((uint8_t *)p->data[pl])[y * p->stride[pl] + x] = (uint8_t)v;
                else
                    ((uint16_t *)((uint8_t *)p->data[pl] + y * p->stride[pl]))[x] = (uint16_t)v;
            }
        }
    }
    return 0;
}

static TvmafContext *open_ctx(const Case *c, int ladder)
{
    TvmafContext *ctx = NULL;
    const TvmafConfiguration cfg = {
        .n_threads = c->threads, .backend = TVMAF_BACKEND_CPU, .log_level = TVMAF_LOG_ERROR,
        .gpu_flags = ladder ? TVMAF_GPU_SHARED_REFERENCE : 0,
    };
    char spec[128];
    snprintf(spec, sizeof(spec), "adm=debug=true:reference_isa=%s", c->isa);
    if (tvmaf_init(&ctx, &cfg)) return NULL;
    /* motion as in the VMAF models: a context keeps the reference pictures
     * of its last frames (TVMAF_FEX_PREV_REF), so a picture keeps two
     * holders while the pairs of one thread take their turns. Results kept
     * with a picture go when one holder is left (who may write the planes
     * again): without an overlap of the pairs, there is nothing to share. */
    if (tvmaf_use_feature(ctx, spec) || tvmaf_use_feature(ctx, "motion")) {
        tvmaf_close(ctx);
        return NULL;
    }
    return ctx;
}

/* Whether adm shares the reference's bands at this size, build and depth:
 * no scale 1..3 reads past its rows (the scale widths as adm's setup). */
static int shareable(const Case *c)
{
    const int isa = !strcmp(c->isa, "avx512") ? ADM_ISA_AVX512
                    : !strcmp(c->isa, "avx2") ? ADM_ISA_AVX2 : ADM_ISA_C;
    int w = (int)c->w;
    for (int k = 0; k < 4; k++) {
        w = (w + 1) / 2;
        if (k && adm_dwt_reads_past(w, adm_dwt_block(isa, k, (int)c->bpc))) return 0;
    }
    return 1;
}

/* Every adm output of every frame of a and b, as bits; on a difference,
 * what differs in diff. */
static int same_scores(TvmafContext *a, TvmafContext *b, unsigned *n_compared, char *diff,
                       size_t len)
{
    for (unsigned f = 0; f < FRAMES; f++) {
        for (const char *const *k = tvmaf_adm_provided; *k; k++) {
            double x, y;
            const int ea = tvmaf_feature_score_at_index(a, *k, &x, f);
            const int eb = tvmaf_feature_score_at_index(b, *k, &y, f);
            if (ea != eb) {
                snprintf(diff, len, "frame %u %s: present in one run only", f, *k);
                return 0;
            }
            if (ea) continue;
            if (memcmp(&x, &y, sizeof(x))) {
                snprintf(diff, len, "frame %u %s: %.17g in the ladder, %.17g alone", f, *k, x, y);
                return 0;
            }
            (*n_compared)++;
        }
    }
    return 1;
}

static void run_case(const Case *c)
{
    char name[160];
    snprintf(name, sizeof(name), "%ux%u %u-bit, reference_isa=%s, %u thread%s", c->w, c->h,
             c->bpc, c->isa, c->threads, c->threads == 1 ? "" : "s");
    TvmafContext *lad[PAIRS] = { 0 }, *one[PAIRS] = { 0 };
    int ok = 1;
    for (int i = 0; i < PAIRS; i++) {
        lad[i] = open_ctx(c, 1);
        one[i] = open_ctx(c, 0);
        ok &= lad[i] && one[i];
    }
    unsigned long long made0, shared0, made, shared;
    tvmaf_picture_once_area_counts(&made0, &shared0);
    for (unsigned f = 0; ok && f < FRAMES; f++) {
        TvmafPicture ref;
        if (make(&ref, c, 0, f)) {
            ok = 0;
            break;
        }
        for (int i = 0; i < PAIRS; i++) {
            TvmafPicture r, d;
            tvmaf_picture_ref(&r, &ref);
            if (make(&d, c, 1 + (unsigned)i, f) || tvmaf_read_pictures(lad[i], &r, &d, f)) ok = 0;
        }
        tvmaf_picture_unref(&ref);
    }
    for (int i = 0; ok && i < PAIRS; i++) ok &= !tvmaf_flush(lad[i]);
    tvmaf_picture_once_area_counts(&made, &shared);
    made -= made0;
    shared -= shared0;
    /* the same pairs, each alone (its own reference pictures, no ladder) */
    for (unsigned f = 0; ok && f < FRAMES; f++) {
        for (int i = 0; i < PAIRS; i++) {
            TvmafPicture r, d;
            if (make(&r, c, 0, f) || make(&d, c, 1 + (unsigned)i, f) ||
                tvmaf_read_pictures(one[i], &r, &d, f))
                ok = 0;
        }
    }
    for (int i = 0; ok && i < PAIRS; i++) ok &= !tvmaf_flush(one[i]);
    char what[256];
    snprintf(what, sizeof(what), "%s: scored", name);
    check(ok, what);
    unsigned n = 0;
    int same = ok;
    char detail[256] = "";
    for (int i = 0; same && i < PAIRS; i++) {
        char diff[200] = "";
        same &= same_scores(lad[i], one[i], &n, diff, sizeof(diff));
        if (!same) snprintf(detail, sizeof(detail), "pair %d, %s", i + 1, diff);
    }
    if (same) snprintf(detail, sizeof(detail), "%u values compared", n);
    snprintf(what, sizeof(what), "%s: each pair equals its run alone, bit for bit", name);
    check_detail(same && n >= PAIRS * FRAMES * 7, what, detail);
    snprintf(detail, sizeof(detail), "%llu computed, %llu shared", made, shared);
    if (!shareable(c)) {
        snprintf(what, sizeof(what), "%s: DWT defect at scales 1..3: nothing shared", name);
        check_detail(made == 0 && shared == 0, what, detail);
    } else {
        /* every pair holds the picture from its submission to its scoring,
         * and kept results stay while a context holds it: one computation
         * per frame, whatever the order the pairs' workers reach it in */
        snprintf(what, sizeof(what), "%s: reference bands computed once per frame", name);
        check_detail(made == FRAMES && shared == (PAIRS - 1) * FRAMES, what, detail);
    }
    for (int i = 0; i < PAIRS; i++) {
        tvmaf_close(lad[i]);
        tvmaf_close(one[i]);
    }
}

int main(void)
{
    const Case cases[] = {
        { 576, 324, 8, "avx512", 1 },
        { 576, 324, 10, "avx512", 1 },
        { 576, 324, 8, "avx2", 1 },
        { 130, 96, 8, "avx512", 1 }, /* scale 1 band 33 wide: the defect */
        { 130, 96, 8, "c", 1 },      /* the scalar build has none */
        { 576, 324, 8, "avx512", 2 },
    };
    const Case defect = cases[3];
    check(!shareable(&defect) && shareable(&cases[0]) && shareable(&cases[4]),
          "the cases cover shared and unshared sizes");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run_case(&cases[i]);
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
