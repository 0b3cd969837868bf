#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/numeric.h"

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t tvmaf_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Checks the decimal grammar, so strtod cannot take hex, inf or nan. */
static bool decimal_syntax(const char *s, size_t len, bool integer)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && is_digit(s[i])) { i++; digits++; }
    if (!integer && i < len && s[i] == '.') {
        i++;
        while (i < len && is_digit(s[i])) { i++; digits++; }
    }
    if (!digits) return false;
    if (!integer && i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        size_t exp_digits = 0;
        while (i < len && is_digit(s[i])) { i++; exp_digits++; }
        if (!exp_digits) return false;
    }
    return i == len;
}

bool tvmaf_parse_decimal(const char *s, size_t len, double *out)
{
    char buf[128];
    if (!len || len >= sizeof(buf) || !decimal_syntax(s, len, false)) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    locale_t c = tvmaf_c_locale();
    if (!c) return false;
    char *end = NULL;
    errno = 0;
    const double v = strtod_l(buf, &end, c);
    /* an underflow to a subnormal is still the value strtod gives */
    if (end != buf + len || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool tvmaf_parse_int(const char *s, size_t len, int *out)
{
    char buf[32];
    if (!len || len >= sizeof(buf) || !decimal_syntax(s, len, true)) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    const long v = strtol(buf, &end, 10);
    if (errno || end != buf + len || v < INT_MIN || v > INT_MAX) return false;
    *out = (int)v;
    return true;
}

int tvmaf_normalize_option_value(const char *val, char *out, size_t out_len)
{
    locale_t c = tvmaf_c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    float ignore;
    char trailing;
    int n;
    /* one conversion and nothing but white space after it */
    const bool numeric = sscanf(val, "%f %c", &ignore, &trailing) == 1;
    if (numeric) {
        char *end = NULL;
        const double d = strtof(val, &end);
        if (d == 0 && end == val)
            n = snprintf(out, out_len, "%s", val);
        else
            n = snprintf(out, out_len, "%g", d);
    } else {
        n = snprintf(out, out_len, "%s", val);
    }
    if (old) uselocale(old);
    return n >= 0 && (size_t)n < out_len ? 0 : -ENOSPC;
}

int tvmaf_format_option_number(double v, char *out, size_t out_len)
{
    locale_t c = tvmaf_c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    const double d = (float)v;
    const int n = snprintf(out, out_len, "%g", d);
    if (old) uselocale(old);
    return n >= 0 && (size_t)n < out_len ? 0 : -ENOSPC;
}
