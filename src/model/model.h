/*
 * VMAF models inside the library: what a model file holds, and the
 * prediction arithmetic of libvmaf (normalisation, SVM, denormalisation,
 * score transform, clip, bootstrap statistics) as pure functions of a
 * feature vector, so they can be tested without any extractor.
 */
#ifndef TVMAF_MODEL_MODEL_H
#define TVMAF_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "tvmaf/tvmaf.h"
#include "core/feature.h"
#include "model/svm.h"

enum TvmafSvrType {
    TVMAF_SVR_UNKNOWN = 0,
    TVMAF_SVR_NUSVR,                  /* "LIBSVMNUSVR" */
    TVMAF_SVR_BOOTSTRAP_NUSVR,        /* "BOOTSTRAP_LIBSVMNUSVR" */
    TVMAF_SVR_RESIDUE_BOOTSTRAP_NUSVR, /* "RESIDUEBOOTSTRAP_LIBSVMNUSVR" */
};

enum TvmafNormType {
    TVMAF_NORM_UNKNOWN = 0,
    TVMAF_NORM_NONE,
    TVMAF_NORM_LINEAR_RESCALE,
};

/* Prediction-time flags (the model's own flags act when it is read). */
enum {
    TVMAF_PREDICT_NO_CLIP = 1u << 0,
    TVMAF_PREDICT_NO_TRANSFORM = 1u << 2,
};

#define TVMAF_MODEL_MAX_FEATURES 64
#define TVMAF_MODEL_MAX_KNOTS 10

/* An extractor option of a model feature, as text ("1", "true", ...). */
typedef struct TvmafModelOpt {
    char *key, *val;
} TvmafModelOpt;

typedef struct TvmafModelFeature {
    char *name;              /* provided feature, e.g. VMAF_integer_feature_adm2_score */
    double slope, intercept; /* linear_rescale of this feature */
    TvmafModelOpt *opt;      /* extractor options, in the order they were set */
    unsigned n_opt;
    const TvmafExtractor *ex; /* resolved extractor, or NULL */
    char *key;               /* collector key the feature is read from (after use) */
} TvmafModelFeature;

/* One SVM model: a model file's "model_dict". */
typedef struct TvmafSvr {
    char *name; /* key of its scores */
    enum TvmafSvrType type;
    enum TvmafNormType norm_type;
    double slope, intercept; /* denormalisation of the prediction */
    TvmafModelFeature *feature;
    unsigned n_features;
    struct {
        bool enabled;
        double min, max;
    } clip;
    struct {
        bool enabled;
        double parameter;
    } chroma_from_luma;
    struct {
        bool enabled;
        bool p0_on, p1_on, p2_on;
        double p0, p1, p2;
        bool knots_on;
        unsigned n_knots;
        double knot_x[TVMAF_MODEL_MAX_KNOTS], knot_y[TVMAF_MODEL_MAX_KNOTS];
        bool out_lte_in, out_gte_in;
    } transform;
    TvmafSvm *svm;
} TvmafSvr;

/* The public handle: a single model, or a bootstrap collection (its model
 * "0" as `main`, models "1".."N" as members named NAME_0001..NAME_N). */
struct TvmafModel {
    char *label;  /* the version or path it was loaded from */
    TvmafSvr *main;
    TvmafSvr **member;
    unsigned n_members;
    char *collection_name; /* NAME; NULL for a single model */
    char msg[1024];        /* last failure of a call taking this model */
};

/*
 * Reads a model file (or, with `text`, a JSON document in memory; `origin`
 * names it in messages) without looking for extractors. cfg may be NULL.
 */
int tvmaf_model_read(TvmafModel **model, const char *path, const TvmafModelConfig *cfg,
                     char *msg, size_t msg_len);
int tvmaf_model_read_text(TvmafModel **model, const char *text, size_t len,
                          const char *origin, const TvmafModelConfig *cfg,
                          char *msg, size_t msg_len);

/*
 * The score of one frame from its feature values (feature[i] is the value of
 * m->feature[i], before normalisation), exactly as libvmaf computes it.
 * flags: TVMAF_PREDICT_*. Returns 0, or -EINVAL (with a message) where the
 * model cannot be evaluated.
 */
int tvmaf_svr_predict(const TvmafSvr *m, const double *feature, unsigned flags,
                      double *score, char *msg, size_t msg_len);

/* The transform and clip steps alone, on a score predicted with
 * TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM: the result is the
 * score tvmaf_svr_predict() gives with `flags`. */
void tvmaf_svr_finish(const TvmafSvr *m, double *score, unsigned flags);

typedef struct TvmafBootstrapScore {
    double bagging, stddev, ci_p95_lo, ci_p95_hi;
} TvmafBootstrapScore;

/*
 * libvmaf's bootstrap statistics of one frame from the members' raw scores
 * (predicted with TVMAF_PREDICT_NO_CLIP | TVMAF_PREDICT_NO_TRANSFORM), in
 * member order; `first` (the first member) transforms and clips the results.
 * Sorts raw[] in place.
 */
void tvmaf_bootstrap_stats(const TvmafSvr *first, double *raw, unsigned n,
                           TvmafBootstrapScore *out);

/* Sets (or replaces) option `key` of a model feature. */
int tvmaf_model_feature_set_opt(TvmafModelFeature *f, const char *key, const char *val);

/* Finds the extractor providing each feature of m (CPU table first). */
int tvmaf_svr_resolve(TvmafSvr *m, char *msg, size_t msg_len);

/* The extractor (any backend, CPU first) that provides `feature`, or NULL. */
const TvmafExtractor *tvmaf_extractor_providing(const char *feature);

#endif
