/* kinds.c — the registry of target kinds: every kind, its facts and its
 * operations (npu.c, cpu.c), from which every list of kinds is derived. */
#include <string.h>

#include "internal.h"

/* The registry: one line per kind, at its sp_kind value. */
static const sp_kind_ops *const kinds[SP_NKIND] = {
    [SP_NPU] = &sp_npu_kind,
    [SP_CPU] = &sp_cpu_kind,
};

const sp_kind_info *sp_kind_get(int k)
{
    return k >= 0 && k < SP_NKIND ? &kinds[k]->info : NULL;
}

const sp_kind_ops *sp_kind_of(const sp_target *t)
{
    return kinds[t->kind < SP_NKIND ? t->kind : 0];
}

const sp_kind_info *sp_target_kind(const sp_target *t) { return &sp_kind_of(t)->info; }

const char *sp_kind_name(int k)
{
    const sp_kind_info *i = sp_kind_get(k);
    return i ? i->name : NULL;
}

int sp_kind_parse(const char *s)
{
    for (int k = 0; s && k < SP_NKIND; k++)
        if (strcmp(kinds[k]->info.name, s) == 0)
            return k;
    return -1;
}

const char *sp_kinds_with_micro(char *buf, size_t len)
{
    sp_text o = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    for (int k = 0; k < SP_NKIND; k++)
        if (kinds[k]->info.micro)
            sp_put(&o, "%s%s", o.used ? " and " : "", kinds[k]->info.name);
    return buf;
}

bool sp_target_computes(const sp_target *t, sp_dtype d)
{
    return d >= 0 && d < SP_NDTYPE && sp_kind_of(t)->computes(t, d);
}

size_t sp_target_signature(const sp_target *t, char buf[SP_SIGNATURE_MAX])
{
    sp_text o = {buf, SP_SIGNATURE_MAX, 0};
    buf[0] = '\0';
    sp_kind_of(t)->sign(t, &o);
    return o.used;
}

void sp_smallest(const sp_target *t, const sp_problem *p, sp_config *c)
{
    sp_ctx x;
    sp_ctx_init(&x, t, p);
    x.kind->smallest(&x, c);
}
