/* names.c — printable names of strategies, splits, dtypes, buffers and paths,
 * the dtype fact table (bytes per element, fractal shape), problem names, and
 * the text appender that messages and signatures are written with. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const strategy_names[SP_NSTRATEGY] = {"IS", "WS", "OS"};
static const char *const split_names[SP_NSPLIT] = {"M", "N", "MN"};
static const char *const buffer_names[SP_NBUF] = {"L1", "L0A", "L0B", "L0C", "UB"};
static const char *const path_names[SP_NPATH] = {"GM->L1", "L1->L0A", "L1->L0B",
                                                 "L0C->UB", "UB->GM"};

/* fp16: 16x16 fractals, fp32 accumulation; int8: 16x32 fractals (512 bytes,
 * as the cube takes them), int32 accumulation; fp32, and bf16 and fp16 as
 * storage on CPU targets: no fractal, but default axes step through blocks in 16s. */
static const sp_dtype_info dtypes[SP_NDTYPE] = {
    [SP_FP16] = {"fp16", 2, 4, 16, 16, 16},
    [SP_INT8] = {"int8", 1, 4, 16, 16, 32},
    [SP_FP32] = {"fp32", 4, 4, 16, 16, 16},
    [SP_BF16] = {"bf16", 2, 4, 16, 16, 16},
};

static const char *name_of(const char *const *names, int n, int i)
{
    return i >= 0 && i < n ? names[i] : NULL;
}

static int parse(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *sp_strategy_name(int s) { return name_of(strategy_names, SP_NSTRATEGY, s); }
const char *sp_split_name(int s) { return name_of(split_names, SP_NSPLIT, s); }
const char *sp_buffer_name(int b) { return name_of(buffer_names, SP_NBUF, b); }
const char *sp_path_name(int p) { return name_of(path_names, SP_NPATH, p); }

const char *sp_dtype_name(int d)
{
    return d >= 0 && d < SP_NDTYPE ? dtypes[d].name : NULL;
}

int sp_strategy_parse(const char *s) { return parse(strategy_names, SP_NSTRATEGY, s); }
int sp_split_parse(const char *s) { return parse(split_names, SP_NSPLIT, s); }

int sp_dtype_parse(const char *s)
{
    for (int d = 0; s && d < SP_NDTYPE; d++)
        if (strcmp(dtypes[d].name, s) == 0)
            return d;
    return -1;
}

const sp_dtype_info *sp_dtype_get(sp_dtype d) { return &dtypes[d]; }

bool sp_label_ok(const char *s, size_t len)
{
    return sp_name_ok(s, len, SP_LABEL_MAX);
}

bool sp_name_ok(const char *s, size_t len, size_t max)
{
    if (len < 1 || len > max)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

/* sp_names, each name between two quote strings q. */
static const char *join(const char *(*name)(int), const char *sep, const char *last,
                        const char *q, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; name(i) && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s%s%s",
                         i == 0 ? "" : name(i + 1) ? sep : last, q, name(i), q);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

const char *sp_names(const char *(*name)(int), const char *sep, const char *last, char *buf,
                     size_t len)
{
    return join(name, sep, last, "", buf, len);
}

const char *sp_names_quoted(const char *(*name)(int), const char *sep, const char *last,
                            char *buf, size_t len)
{
    return join(name, sep, last, "\"", buf, len);
}

static void vput(sp_text *o, const char *fmt, va_list ap)
{
    if (o->used >= o->len)
        return;
    int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
    if (n > 0)
        o->used += (size_t)n;
}

void sp_put(sp_text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(o, fmt, ap);
    va_end(ap);
}

void sp_line(sp_text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(o, fmt, ap);
    va_end(ap);
    sp_put(o, "\n");
}
