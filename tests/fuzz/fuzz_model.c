/*
 * libFuzzer target: the model loader (src/model/: JSON, libsvm text, the
 * checks of every field), then a prediction with every feature at 0.5 and
 * an option override, on whatever loads. A model is data from users: any
 * input must load or be refused with a message, never crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int fd = memfd_create("tvmaf_fuzz_model", 0);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        const ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    char path[64], msg[1024];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    const TvmafModelConfig cfg = { .name = "vmaf", .flags = size && (data[0] & 1) ?
                                   TVMAF_MODEL_DISABLE_CLIP : 0 };
    TvmafModel *m = NULL;
    const int err = tvmaf_model_load(&m, path, NULL, &cfg, msg, sizeof(msg));
    close(fd);
    if (err) {
        if (!msg[0] || m) abort(); /* a refusal says why and leaves nothing */
        return 0;
    }
    double feature[TVMAF_MODEL_MAX_FEATURES];
    for (unsigned i = 0; i < TVMAF_MODEL_MAX_FEATURES; i++) feature[i] = 0.5;
    const unsigned n = 1 + m->n_members;
    double *raw = calloc(n, sizeof(*raw));
    for (unsigned i = 0; raw && i < n; i++) {
        const TvmafSvr *s = i ? m->member[i - 1] : m->main;
        double score;
        if (!tvmaf_svr_predict(s, feature, 0, &score, msg, sizeof(msg)))
            raw[i] = score;
    }
    if (raw && m->n_members)
        tvmaf_bootstrap_stats(m->member[0], raw + 1, n - 1, &(TvmafBootstrapScore){ 0 });
    free(raw);
    tvmaf_model_feature_overload(m, "vif", "vif_enhn_gain_limit", "1.0");
    tvmaf_model_destroy(m);
    return 0;
}
