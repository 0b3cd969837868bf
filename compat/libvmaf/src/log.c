/* The drop-in's messages on stderr. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "compat.h"

static atomic_int log_level = VMAF_LOG_LEVEL_INFO;

void compat_set_log_level(enum VmafLogLevel level)
{
    if ((int)level < VMAF_LOG_LEVEL_NONE) level = VMAF_LOG_LEVEL_NONE;
    if (level > VMAF_LOG_LEVEL_DEBUG) level = VMAF_LOG_LEVEL_DEBUG;
    atomic_store(&log_level, (int)level);
}

void compat_log(enum VmafLogLevel level, const char *fmt, ...)
{
    static const char *const name[] = { "", "ERROR", "WARNING", "INFO", "DEBUG" };
    if (level <= VMAF_LOG_LEVEL_NONE || level > VMAF_LOG_LEVEL_DEBUG ||
        (int)level > atomic_load(&log_level))
        return;
    /* one write per message, so lines of several threads do not interleave */
    char line[1536];
    int n = snprintf(line, sizeof(line), "libvmaf (tvmaf) %s: ", name[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(line)) vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

int compat_error(int tvmaf_err)
{
    return tvmaf_err == -ENOMEM ? -ENOMEM : -EINVAL;
}
