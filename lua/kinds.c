/* kinds.c — what a script declared, reconciled with its target's kind (NPU
 * or CPU): dtypes, micro-tiles and the measurement backend. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

__attribute__((format(printf, 5, 6)))
static bool fail(char *err, size_t errlen, const char *where, const char *what,
                 const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s%s%s: %s", where, where[0] ? ": " : "", what, msg);
    return false;
}

bool ls_check_kinds(ls_script *s, char *err, size_t errlen)
{
    const sp_target *t = &s->target;
    bool cpu = t->kind == SP_CPU;
    const char *kind = sp_kind_name(t->kind);
    char list[64];
    for (size_t i = 0; i < s->nproblems; i++) {
        sp_problem *p = &s->problems[i];
        if (p->dtype == SP_NDTYPE)
            p->dtype = cpu ? SP_FP32 : SP_FP16;
        if (!sp_target_computes(t, p->dtype))
            return fail(err, errlen, s->problem_where[i], "matmul",
                        "dtype '%s' does not run on target '%s' (%s: computes %s)",
                        sp_dtype_name(p->dtype), t->name, kind, sp_target_dtypes(t, list, sizeof list));
    }

    const sp_space *sp = &s->space;
    const char *sw = s->have_space ? s->space_where : s->path;
    if (sp->nmicro && !cpu)
        return fail(err, errlen, sw, "space",
                    "'micro' is a register micro-tile of cpu targets; target '%s' is an npu",
                    t->name);
    for (size_t i = 0; i < sp->nmicro; i++) {
        sp_micro u = sp->micro[i];
        if (sp_micro_fits(t, u))
            continue;
        if (u.nr % t->cpu.simd_floats)
            return fail(err, errlen, sw, "space",
                        "micro-tile %dx%d: nr must be a multiple of the %d-float vector of '%s'",
                        u.mr, u.nr, t->cpu.simd_floats, t->name);
        int nv = u.nr / t->cpu.simd_floats;
        return fail(err, errlen, sw, "space",
                    "micro-tile %dx%d needs %d vector registers (%d accumulators, %d B vectors, "
                    "1 broadcast), '%s' has %d",
                    u.mr, u.nr, u.mr * nv + nv + 1, u.mr * nv, nv, t->name, t->cpu.vregs);
    }

    ls_tune *tn = &s->tune;
    const char *tw = s->have_tune ? s->tune_where : s->path;
    const char *m = tn->measure ? tn->measure : "";
    /* An unnamed measure: the build's default, which on a CPU means the host
     * (the model backend works for both kinds and stays). */
    bool have_host = false;
    for (const char *const *b = s->opts.measures; b && *b; b++)
        have_host |= strcmp(*b, "host") == 0;
    if (!s->measure_given && cpu && have_host && strcmp(m, "host") != 0 &&
        strcmp(m, "model") != 0) {
        char *copy = malloc(sizeof "host");
        if (!copy) {
            snprintf(err, errlen, "%s: out of memory", s->path);
            return false;
        }
        strcpy(copy, "host");
        free((char *)tn->measure);
        tn->measure = copy;
        m = copy;
    }
    if (cpu && strcmp(m, "sim") == 0)
        return fail(err, errlen, tw, "tune",
                    "measure 'sim' simulates npu targets; target '%s' is a cpu (use measure = \"host\")",
                    t->name);
    if (!cpu && strcmp(m, "host") == 0)
        return fail(err, errlen, tw, "tune",
                    "measure 'host' runs kernels on the host cpu; target '%s' is an npu "
                    "(use target \"host\", or measure = \"sim\")",
                    t->name);
    return true;
}
