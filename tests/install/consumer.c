/*
 * A program built against the installed library through pkg-config (the
 * public header and API only): scores the first frames of a raw 8-bit 4:2:0
 * pair with the built-in model of the given version and prints each frame's
 * score as %.17g, one a line.
 *
 *   consumer REF.yuv DIS.yuv WIDTH HEIGHT FRAMES VERSION
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvmaf/tvmaf.h>

static int read_frame(FILE *f, TvmafPicture *pic, unsigned w, unsigned h)
{
    if (tvmaf_picture_alloc(pic, TVMAF_PIX_FMT_YUV420P, 8, w, h)) return -1;
    for (int p = 0; p < 3; p++) {
        for (unsigned y = 0; y < pic->h[p]; y++) {
            unsigned char *row = (unsigned char *)pic->data[p] + (size_t)y * pic->stride[p];
            if (fread(row, 1, pic->w[p], f) != pic->w[p]) return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: consumer REF DIS W H FRAMES VERSION\n");
        return 2;
    }
    const unsigned w = (unsigned)atoi(argv[3]), h = (unsigned)atoi(argv[4]);
    const unsigned frames = (unsigned)atoi(argv[5]);
    FILE *fr = fopen(argv[1], "rb"), *fd = fopen(argv[2], "rb");
    if (!fr || !fd) { fprintf(stderr, "consumer: cannot open the inputs\n"); return 1; }

    TvmafContext *ctx = NULL;
    TvmafConfiguration cfg = { .n_threads = 1, .backend = TVMAF_BACKEND_CPU,
                               .log_level = TVMAF_LOG_WARNING };
    if (tvmaf_init(&ctx, &cfg)) { fprintf(stderr, "consumer: tvmaf_init failed\n"); return 1; }
    TvmafModel *model = NULL;
    char msg[1024];
    const TvmafModelConfig mcfg = { .name = "vmaf", .flags = 0 };
    if (tvmaf_model_load(&model, NULL, argv[6], &mcfg, msg, sizeof(msg)) ||
        tvmaf_use_model(ctx, model)) {
        fprintf(stderr, "consumer: %s\n", msg);
        return 1;
    }
    for (unsigned i = 0; i < frames; i++) {
        TvmafPicture r, d;
        if (read_frame(fr, &r, w, h) || read_frame(fd, &d, w, h)) {
            fprintf(stderr, "consumer: cannot read frame %u\n", i);
            return 1;
        }
        if (tvmaf_read_pictures(ctx, &r, &d, i)) {
            fprintf(stderr, "consumer: %s\n", tvmaf_last_error(ctx));
            return 1;
        }
    }
    if (tvmaf_flush(ctx) || tvmaf_score_model(ctx, model)) {
        fprintf(stderr, "consumer: %s%s\n", tvmaf_last_error(ctx), tvmaf_model_last_error(model));
        return 1;
    }
    for (unsigned i = 0; i < frames; i++) {
        double v;
        if (tvmaf_feature_score_at_index(ctx, tvmaf_model_name(model), &v, i)) return 1;
        printf("%.17g\n", v);
    }
    printf("version %s\n", tvmaf_version());
    tvmaf_close(ctx);
    tvmaf_model_destroy(model);
    fclose(fr);
    fclose(fd);
    return 0;
}
