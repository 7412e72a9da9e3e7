/* buf.c — a growing string, NUL-terminated after every append, that records
 * running out of memory once instead of failing each call. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* Room for n more bytes and the NUL; false (oom set) if there is none. */
static bool reserve(bs_buf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    size_t cap = (b->len + n + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void bs_buf_add(bs_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void bs_buf_printf(bs_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
