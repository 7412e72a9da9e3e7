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
    const sp_kind_info *kind = sp_target_kind(t);
    char list[64];
    for (size_t i = 0; i < s->nproblems; i++) {
        sp_problem *p = &s->problems[i];
        if (p->dtype == SP_NDTYPE)
            p->dtype = kind->dtype;
        if (!sp_target_computes(t, p->dtype))
            return fail(err, errlen, s->problem_where[i], sp_op_name(p->op),
                        "dtype '%s' does not run on target '%s' (%s: computes %s)",
                        sp_dtype_name(p->dtype), t->name, kind->name,
                        sp_target_dtypes(t, list, sizeof list));
    }

    const sp_space *sp = &s->space;
    const char *sw = s->have_space ? s->space_where : s->path;
    if (sp->nmicro && !kind->micro)
        return fail(err, errlen, sw, "space",
                    "'micro' is a register micro-tile of %s targets; target '%s' is %s",
                    sp_kinds_with_micro(list, sizeof list), t->name, kind->a);
    if (sp->packs & 2 && !kind->micro)
        return fail(err, errlen, sw, "space",
                    "'pack = false' (the no-pack family) is a kernel of %s targets; target '%s' "
                    "is %s",
                    sp_kinds_with_micro(list, sizeof list), t->name, kind->a);
    for (size_t i = 0; i < sp->nmicro; i++) {
        char why[160];
        sp_micro_why(t, sp->micro[i], why, sizeof why);
        if (*why)
            return fail(err, errlen, sw, "space", "%s", why);
    }

    ls_tune *tn = &s->tune;
    const char *tw = s->have_tune ? s->tune_where : s->path;
    const char *m = tn->measure ? tn->measure : "";
    /* the kind's own measure, unless the script names one (the model, which
     * measures every kind, stays the default where the build's is) */
    const char *own = kind->measure;
    bool have_own = false;
    for (const char *const *b = s->opts.measures; b && *b; b++)
        have_own |= strcmp(*b, own) == 0;
    if (!s->measure_given && have_own && strcmp(m, own) != 0 && strcmp(m, "model") != 0) {
        char *copy = malloc(strlen(own) + 1);
        if (!copy) {
            snprintf(err, errlen, "%s: out of memory", s->path);
            return false;
        }
        strcpy(copy, own);
        free((char *)tn->measure);
        tn->measure = copy;
        m = copy;
    }
    const sp_kind_info *o;
    for (int k = 0; (o = sp_kind_get(k)); k++)
        if (o != kind && strcmp(m, o->measure) == 0)
            return fail(err, errlen, tw, "tune",
                        "measure '%s' %s; target '%s' is %s (use %smeasure = \"%s\")", m,
                        o->measure_does, t->name, kind->a, o->measure_needs, own);

    /* A dtype the target computes but its kind's kernels do not take (an
     * NPU's fp32 or bf16 cube rate): the model's alone. */
    for (size_t i = 0; strcmp(m, "model") != 0 && i < s->nproblems; i++) {
        sp_dtype d = s->problems[i].dtype;
        if (kind->kernels & 1u << d)
            continue;
        return fail(err, errlen, s->problem_where[i], sp_op_name(s->problems[i].op),
                    "dtype '%s' runs on target '%s' under measure = \"model\" only: %s kernels "
                    "take %s",
                    sp_dtype_name(d), t->name, kind->name, sp_kernel_dtypes(t, list, sizeof list));
    }
    return true;
}
