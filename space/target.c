/* target.c — consistency checks of a target description, so that a bad table
 * is rejected by field name before it can reach the model. */
#include <stdio.h>

#include "internal.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool sp_cpu_computes(sp_dtype d)
{
    return d == SP_FP32 || d == SP_BF16 || d == SP_FP16;
}

int64_t sp_cpu_row_floats(int64_t n)
{
    int64_t w = (n + 15) / 16 * 16;
    return w / 16 % 2 ? w : w + 16;
}

/* The dtypes d for which has(t, d), comma-separated, into buf. */
static const char *dtypes(const sp_target *t, bool (*has)(const sp_target *, sp_dtype), char *buf,
                          size_t len)
{
    sp_text o = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    for (int d = 0; d < SP_NDTYPE; d++)
        if (has(t, (sp_dtype)d))
            sp_put(&o, "%s%s", o.used ? ", " : "", sp_dtype_name(d));
    return buf;
}

static bool kernel_takes(const sp_target *t, sp_dtype d)
{
    return sp_target_kind(t)->kernels & 1u << d;
}

const char *sp_target_dtypes(const sp_target *t, char *buf, size_t len)
{
    return dtypes(t, sp_target_computes, buf, len);
}

const char *sp_kernel_dtypes(const sp_target *t, char *buf, size_t len)
{
    return dtypes(t, kernel_takes, buf, len);
}

bool sp_target_check(const sp_target *t, char *err, size_t errlen)
{
    const char *n = t->name[0] ? t->name : "(unnamed)";
    char kinds[64];
    if (t->kind >= SP_NKIND)
        FAIL("target '%s': field 'kind' must be %s", n,
             sp_names_quoted(sp_kind_name, ", ", " or ", kinds, sizeof kinds));
    if (t->cores < 1)
        FAIL("target '%s': field 'cores' must be a positive integer", n);
    if (!(t->clock_mhz > 0))
        FAIL("target '%s': field 'clock_mhz' must be positive", n);
    return sp_kind_of(t)->check_target(t, n, err, errlen);
}
