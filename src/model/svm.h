/*
 * Support vector regression as libsvm evaluates it: the model text format
 * ("svm_type nu_svr ... SV" header, then one support vector per line) and the
 * decision value sum_i coef_i * K(x, sv_i) - rho, with libsvm's kernels and
 * its order of operations, so a prediction is bit-identical to libvmaf's.
 */
#ifndef TVMAF_MODEL_SVM_H
#define TVMAF_MODEL_SVM_H

#include <stddef.h>

/* One sparse coordinate; a vector ends with index -1. */
typedef struct TvmafSvmNode {
    int index;
    double value;
} TvmafSvmNode;

typedef struct TvmafSvm TvmafSvm;

/*
 * Parses libsvm's model text (len bytes, need not be NUL-terminated). Only
 * regression models (epsilon_svr, nu_svr) are accepted: they are what VMAF
 * models are. On failure returns a negative errno and writes a message.
 */
int tvmaf_svm_parse(TvmafSvm **svm, const char *text, size_t len, char *msg, size_t msg_len);
void tvmaf_svm_destroy(TvmafSvm *svm);

/* Decision value of x (terminated by index -1). */
double tvmaf_svm_predict(const TvmafSvm *svm, const TvmafSvmNode *x);

/* Number of support vectors, for diagnostics. */
int tvmaf_svm_count(const TvmafSvm *svm);

#endif
