/*
 * Number text of model files, read and written in the "C" locale whatever
 * the host application's locale is (a library must not depend on
 * LC_NUMERIC: "0.04" is 0.04 in every locale).
 */
#ifndef TVMAF_MODEL_NUMERIC_H
#define TVMAF_MODEL_NUMERIC_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

/* The "C" locale, created once; (locale_t)0 if it cannot be created. */
locale_t tvmaf_c_locale(void);

/*
 * Parses a decimal number of exactly `len` characters ([+-]digits[.digits]
 * [e[+-]digits]): the same double strtod gives in the "C" locale, which is
 * what libsvm's stream extraction and pdjson produce. No hex, inf or nan.
 */
bool tvmaf_parse_decimal(const char *s, size_t len, double *out);

/* Parses a decimal integer of exactly `len` characters that fits an int. */
bool tvmaf_parse_int(const char *s, size_t len, int *out);

/*
 * libvmaf's dictionary normalisation of an option value: text that reads as
 * a number (sscanf "%f" and nothing after it) is replaced by "%g" of its
 * float value (so "1.0" becomes "1" and "0.123456789" becomes "0.123457");
 * other text is copied. Returns 0, or -ENOSPC if out is too small.
 */
int tvmaf_normalize_option_value(const char *val, char *out, size_t out_len);

/* The same normalisation for a number already parsed to a double (a JSON
 * number): "%g" of the value rounded to float. */
int tvmaf_format_option_number(double v, char *out, size_t out_len);

#endif
