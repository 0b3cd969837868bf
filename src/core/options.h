/* Extractor options: a table per extractor, values parsed into its state. */
#ifndef TVMAF_CORE_OPTIONS_H
#define TVMAF_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum TvmafOptionType {
    TVMAF_OPT_BOOL,
    TVMAF_OPT_INT,
    TVMAF_OPT_DOUBLE,
    TVMAF_OPT_STRING, /* stored as a char[TVMAF_OPT_STRING_LEN] */
};

#define TVMAF_OPT_STRING_LEN 64

typedef struct TvmafOption {
    const char *name;
    const char *help;
    size_t offset;
    enum TvmafOptionType type;
    union {
        bool b;
        int i;
        double d;
        const char *s;
    } def;
    double min, max; /* for INT and DOUBLE */
    unsigned flags;    /* TVMAF_OPT_FEATURE_PARAM */
    const char *alias; /* short name used in output key suffixes */
} TvmafOption;

/* A non-default value of this option is appended to the extractor's output
 * key names (libvmaf: "integer_adm2_egl_1.2"), so runs with different values
 * can be told apart. */
#define TVMAF_OPT_FEATURE_PARAM 1u
/* The option makes the extractor create directories or write files: a
 * model file (data) cannot set it, only the command line. */
#define TVMAF_OPT_WRITES_FILES 2u

/* Writes every option's default into priv. */
void tvmaf_options_set_defaults(const TvmafOption *opts, void *priv);

/*
 * Parses "opt=val:opt=val" (the part after "name=") into priv. On an unknown
 * option or a bad value returns -EINVAL with a message.
 */
int tvmaf_options_parse(const TvmafOption *opts, void *priv, const char *spec,
                        const char *feature, char *msg, size_t msg_len);

/* "feature X has no option Y" followed by the names of the options it has. */
void tvmaf_options_unknown_msg(const TvmafOption *opts, const char *feature, const char *opt,
                               char *msg, size_t msg_len);

#endif
