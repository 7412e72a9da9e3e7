/* common.c — small pieces every command uses: one-line errors (usage errors
 * and --help too) and parsing of "MxNxK"-style dimension lists. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tuner.h"

void tn_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("npu-tune: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int tn_usage(const char *cmd, const char *text, const char *why)
{
    if (!why) { /* a write error: main's check of standard output */
        tn_help(text);
        return TN_OK;
    }
    if (cmd)
        tn_error("%s: %s (see 'npu-tune %s --help')", cmd, why, cmd);
    else
        tn_error("%s (see 'npu-tune --help')", why);
    return TN_USAGE;
}

int tn_parse_dims(const char *s, long long *v, int n)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        if (*p < '0' || *p > '9')
            return 0;
        char *end;
        v[i] = strtoll(p, &end, 10);
        if (v[i] < 1 || v[i] > SP_VALUE_MAX)
            return 0;
        p = end;
        if (i < n - 1) {
            if (*p != 'x')
                return 0;
            p++;
        }
    }
    return *p == '\0';
}
