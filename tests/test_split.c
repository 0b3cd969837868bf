/*
 * One video scored in frame ranges by several contexts and joined with
 * tvmaf_append_scores() equals one context scoring it whole, bit for bit:
 * every per-frame value, in the same key order, the pooled values, the
 * aggregates (psnr's apsnr, from the merged integer totals) and the model
 * scores. The features with state from frame to frame are all there (motion
 * with and without its five-frame window and moving average, float_motion,
 * speed_temporal), on synthetic frames whose motion goes up and down so that
 * every branch of motion2's minimum is taken. On the CPU backend (what --gpus
 * does with a device per range, here without a device), at 1 and 3 threads,
 * with --subsample 2; ranges without warm-up must differ (the comparison
 * can fail); misuse of the call is refused. Pictures in memory the caller
 * owns score as library pictures do (motion compares each frame with the
 * references the context kept of the frames before).
 *
 * usage: test_split
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvmaf/tvmaf.h"
#include "unit_check.h"

#define W 176
#define H 144
#define N_FRAMES 41


static const char *const features[] = {
    "motion",
    "motion=motion_five_frame_window=true:motion_moving_average=true",
    "float_motion=debug=true",
    "speed_temporal",
    "psnr=enable_apsnr=true",
};

/* Frame k of the synthetic pair: a texture that moves by an amount that goes
 * up and down from frame to frame, the distorted one with noise on top. */
static TvmafPicture frames[N_FRAMES][2];

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int make_frames(void)
{
    static const int step[8] = { 3, 0, 5, 1, 1, 7, 2, 4 };
    int shift = 0;
    for (unsigned k = 0; k < N_FRAMES; k++) {
        shift += step[k % 8];
        uint32_t seed = 12345u + k;
        for (unsigned which = 0; which < 2; which++) {
            TvmafPicture *p = &frames[k][which];
            if (tvmaf_picture_alloc(p, TVMAF_PIX_FMT_YUV420P, 8, W, H)) return -1;
            for (unsigned pl = 0; pl < 3; pl++) {
                for (unsigned y = 0; y < p->h[pl]; y++) {
                    uint8_t *row = (uint8_t *)p->data[pl] + y * p->stride[pl];
                    for (unsigned x = 0; x < p->w[pl]; x++) {
                        int v = (int)(((x + (unsigned)shift) * 7u + y * 13u) % 200u) + 20;
                        v += (int)(((x + (unsigned)shift) / 9u + y / 5u) % 3u) * 10;
                        if (which) v += (int)(lcg(&seed) % 21u) - 10;
                        row[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                    }
                }
            }
        }
    }
    return 0;
}

static TvmafModel *load_model(void)
{
    TvmafModel *m = NULL;
    char msg[256];
    const TvmafModelConfig mc = { .name = "vmaf" };
    if (tvmaf_model_load(&m, NULL, "vmaf_v0.6.1", &mc, msg, sizeof(msg))) {
        printf("FAIL  cannot load vmaf_v0.6.1: %s\n", msg);
        return NULL;
    }
    return m;
}

/* A context scoring frames [first - warmup, end) as the range [first, first
 * + range) (range 0: to the end). */
/* Pictures given as plain descriptions of the caller's memory (priv NULL)
 * instead of references to library buffers: the context must copy the
 * references motion compares with later frames. */
static int plain_pictures;
static TvmafPicture scratch[2];

static TvmafContext *score(unsigned threads, unsigned sub, unsigned first, unsigned warmup,
                           unsigned range, unsigned end, TvmafModel *model, int flush)
{
    TvmafContext *ctx = NULL;
    const TvmafConfiguration cfg = { .n_threads = threads, .n_subsample = sub,
                                     .backend = TVMAF_BACKEND_CPU, .log_level = TVMAF_LOG_NONE,
                                     .warmup_frames = warmup, .range_frames = range };
    if (tvmaf_init(&ctx, &cfg) || tvmaf_use_model(ctx, model)) goto fail;
    for (unsigned i = 0; i < sizeof(features) / sizeof(features[0]); i++)
        if (tvmaf_use_feature(ctx, features[i])) goto fail;
    for (unsigned k = first - warmup, i = 0; k < end; k++, i++) {
        TvmafPicture r, d;
        if (plain_pictures) {
            r = frames[k][0];
            d = frames[k][1];
            if (threads <= 1) {
                /* one buffer per input, rewritten for every frame, as a
                 * caller may once a one-thread context has returned */
                for (unsigned w = 0; w < 2; w++) {
                    const TvmafPicture *src = &frames[k][w];
                    for (unsigned pl = 0; pl < 3; pl++)
                        memcpy(scratch[w].data[pl], src->data[pl],
                               (size_t)src->stride[pl] * src->h[pl]);
                }
                r = scratch[0];
                d = scratch[1];
            }
            r.priv = d.priv = NULL;
        } else {
            tvmaf_picture_ref(&r, &frames[k][0]);
            tvmaf_picture_ref(&d, &frames[k][1]);
        }
        if (tvmaf_read_pictures(ctx, &r, &d, i)) goto fail;
    }
    if (flush && tvmaf_flush(ctx)) goto fail;
    return ctx;
fail:
    printf("FAIL  scoring frames %u..%u: %s\n", first, end, tvmaf_last_error(ctx));
    tvmaf_close(ctx);
    return NULL;
}

/* Every key, per-frame value, pooled value and aggregate of b equals a's (as
 * bits); writes the first difference. */
static int same_scores(TvmafContext *a, TvmafContext *b, char *why, size_t len)
{
    const unsigned n = tvmaf_frame_count(a);
    if (n != tvmaf_frame_count(b)) {
        snprintf(why, len, "%u frames against %u", tvmaf_frame_count(b), n);
        return 0;
    }
    const unsigned nk = tvmaf_score_key_count(a);
    if (nk != tvmaf_score_key_count(b)) {
        snprintf(why, len, "%u keys against %u", tvmaf_score_key_count(b), nk);
        return 0;
    }
    for (unsigned k = 0; k < nk; k++) {
        const char *key = tvmaf_score_key(a, k);
        if (strcmp(key, tvmaf_score_key(b, k))) {
            snprintf(why, len, "key %u is %s, not %s", k, tvmaf_score_key(b, k), key);
            return 0;
        }
        for (unsigned i = 0; i < n; i++) {
            double x, y;
            const int ea = tvmaf_feature_score_at_index(a, key, &x, i);
            const int eb = tvmaf_feature_score_at_index(b, key, &y, i);
            if (ea != eb || (!ea && memcmp(&x, &y, sizeof(x)))) {
                snprintf(why, len, "%s at frame %u: %.17g against %.17g", key, i, y, x);
                return 0;
            }
        }
        for (int m = TVMAF_POOL_MIN; m <= TVMAF_POOL_HARMONIC_MEAN; m++) {
            double x, y;
            const int ea = tvmaf_feature_score_pooled(a, key, m, &x, 0, n - 1);
            const int eb = tvmaf_feature_score_pooled(b, key, m, &y, 0, n - 1);
            if (ea != eb || (!ea && memcmp(&x, &y, sizeof(x)))) {
                snprintf(why, len, "%s pooled (%d): %.17g against %.17g", key, m, y, x);
                return 0;
            }
        }
    }
    const unsigned na = tvmaf_aggregate_count(a);
    if (na != tvmaf_aggregate_count(b) || !na) {
        snprintf(why, len, "%u aggregates against %u", tvmaf_aggregate_count(b), na);
        return 0;
    }
    for (unsigned i = 0; i < na; i++) {
        double x, y;
        const char *key = tvmaf_aggregate_key(a, i);
        if (strcmp(key, tvmaf_aggregate_key(b, i)) || tvmaf_aggregate_score(a, key, &x) ||
            tvmaf_aggregate_score(b, key, &y) || memcmp(&x, &y, sizeof(x))) {
            snprintf(why, len, "aggregate %s differs", key);
            return 0;
        }
    }
    return 1;
}

/* Scores the video in ranges starting at bounds[0..n-1] (bounds[0] = 0),
 * each after the first with `warmup` frames before it and one after it, and
 * joins them into the first; returns it flushed, model scored. */
static TvmafContext *score_split(unsigned threads, unsigned sub, const unsigned *bounds,
                                 unsigned n, unsigned warmup, TvmafModel *model)
{
    TvmafContext *ctx[8] = { NULL };
    TvmafContext *out = NULL;
    for (unsigned r = 0; r < n; r++) {
        const unsigned a = bounds[r], b = r + 1 < n ? bounds[r + 1] : N_FRAMES;
        const unsigned ahead = r + 1 < n ? 1 : 0;
        ctx[r] = score(threads, sub, a, r ? warmup : 0, b - a, b + ahead, model, r > 0);
        if (!ctx[r]) goto end;
    }
    for (unsigned r = 1; r < n; r++) {
        if (tvmaf_append_scores(ctx[0], ctx[r])) {
            printf("FAIL  append: %s\n", tvmaf_last_error(ctx[0]));
            goto end;
        }
    }
    if (tvmaf_flush(ctx[0]) || tvmaf_score_model(ctx[0], model)) {
        printf("FAIL  flush or model: %s %s\n", tvmaf_last_error(ctx[0]),
               tvmaf_model_last_error(model));
        goto end;
    }
    out = ctx[0];
    ctx[0] = NULL;
end:
    for (unsigned r = 0; r < n; r++) tvmaf_close(ctx[r]);
    return out;
}

int main(void)
{
    if (make_frames()) {
        printf("FAIL  out of memory\n");
        return 1;
    }
    TvmafModel *model = load_model();
    if (!model) return 1;
    if (tvmaf_picture_alloc(&scratch[0], TVMAF_PIX_FMT_YUV420P, 8, W, H) ||
        tvmaf_picture_alloc(&scratch[1], TVMAF_PIX_FMT_YUV420P, 8, W, H)) {
        printf("FAIL  out of memory\n");
        return 1;
    }
    char why[512] = "", name[160];

    static const unsigned split2[] = { 0, 20 }, split3[] = { 0, 14, 28 }, split4[] = { 0, 8, 10, 30 };
    static const struct { const unsigned *b; unsigned n; } splits[] = {
        { split2, 2 }, { split3, 3 }, { split4, 4 },
    };
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        for (unsigned sub = 1; sub <= 2; sub++) {
            TvmafContext *whole = score(threads, sub, 0, 0, 0, N_FRAMES, model, 1);
            if (!whole || tvmaf_score_model(whole, model)) {
                printf("FAIL  whole run\n");
                return 1;
            }
            for (unsigned s = 0; s < 3; s++) {
                TvmafContext *split = score_split(threads, sub, splits[s].b, splits[s].n, 4, model);
                snprintf(name, sizeof(name), "%u ranges, %u thread%s, subsample %u = one context",
                         splits[s].n, threads, threads > 1 ? "s" : "", sub);
                check_detail(split && same_scores(whole, split, why, sizeof(why)), name, why);
                tvmaf_close(split);
            }
            if (threads == 1 && sub == 1) {
                /* with fewer warm-up frames the ranges' first frames lose their
                 * history: none (every temporal feature), 1 (motion's
                 * five-frame window compares frames 2 apart), 2 (its motion2
                 * takes the start-of-video branch), 3 (its moving average
                 * carries the motion2 of the frame before) */
                for (unsigned wu = 0; wu < 4; wu++) {
                    TvmafContext *bad = score_split(threads, sub, wu == 3 ? split4 : split3,
                                                    wu == 3 ? 4 : 3, wu, model);
                    snprintf(name, sizeof(name), "negative control: ranges with %u warm-up "
                             "frame%s differ", wu, wu == 1 ? "" : "s");
                    check_detail(bad && !same_scores(whole, bad, why, sizeof(why)), name,
                          "they are equal");
                    tvmaf_close(bad);
                }
                check_detail(tvmaf_warmup_frames_needed(whole) == 4,
                      "warm-up needed with motion registered: 4", "another count");
            }
            /* motion reads the references of earlier frames, which the
             * context keeps: copies of memory the caller owns */
            plain_pictures = 1;
            TvmafContext *plain = score(threads, sub, 0, 0, 0, N_FRAMES, model, 1);
            plain_pictures = 0;
            snprintf(name, sizeof(name), "caller-owned pictures, %u thread%s, subsample %u = "
                     "library pictures", threads, threads > 1 ? "s" : "", sub);
            check_detail(plain && !tvmaf_score_model(plain, model) &&
                  same_scores(whole, plain, why, sizeof(why)), name, why);
            tvmaf_close(plain);
            tvmaf_close(whole);
        }
    }

    /* misuse */
    TvmafContext *a = score(1, 1, 0, 0, 10, 11, model, 0);
    TvmafContext *b = score(1, 1, 10, 4, 0, N_FRAMES, model, 0);
    check_detail(a && b && tvmaf_append_scores(a, b) == -EINVAL &&
          strstr(tvmaf_last_error(a), "not flushed"), "refused: appending an unflushed context",
          a ? tvmaf_last_error(a) : "");
    TvmafContext *c = NULL;
    const TvmafConfiguration cfg = { .backend = TVMAF_BACKEND_CPU, .log_level = TVMAF_LOG_NONE };
    int ok = !tvmaf_init(&c, &cfg) && !tvmaf_use_feature(c, "psnr");
    for (unsigned k = 0; ok && k < 3; k++) {
        TvmafPicture r, d;
        tvmaf_picture_ref(&r, &frames[k][0]);
        tvmaf_picture_ref(&d, &frames[k][1]);
        ok = !tvmaf_read_pictures(c, &r, &d, k);
    }
    ok = ok && !tvmaf_flush(c);
    tvmaf_close(a);
    a = score(1, 1, 0, 0, 10, 11, model, 0);
    check_detail(ok && a && tvmaf_append_scores(a, c) == -EINVAL &&
          strstr(tvmaf_last_error(a), "different features"),
          "refused: appending a context of other features", a ? tvmaf_last_error(a) : "");
    tvmaf_close(a);
    a = score(1, 1, 0, 0, 10, 11, model, 0);
    check_detail(a && b && !tvmaf_flush(b) && !tvmaf_append_scores(a, b), "append after flushing", "");
    TvmafPicture r, d;
    tvmaf_picture_ref(&r, &frames[0][0]);
    tvmaf_picture_ref(&d, &frames[0][1]);
    check_detail(a && tvmaf_read_pictures(a, &r, &d, 11) == -EINVAL,
          "refused: frames after tvmaf_append_scores", a ? tvmaf_last_error(a) : "");
    tvmaf_close(a);
    tvmaf_close(b);
    tvmaf_close(c);

    tvmaf_model_destroy(model);
    tvmaf_picture_unref(&scratch[0]);
    tvmaf_picture_unref(&scratch[1]);
    for (unsigned k = 0; k < N_FRAMES; k++) {
        tvmaf_picture_unref(&frames[k][0]);
        tvmaf_picture_unref(&frames[k][1]);
    }
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
