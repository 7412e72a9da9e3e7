/* legal.c — which configs a target can run, asked of its kind (npu.c,
 * cpu.c), and what every kind shares: padding, core grids, explained rules. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int64_t sp_pad(int64_t x, int unit)
{
    return sp_ceil_div(x, unit) * unit;
}

void sp_ctx_init(sp_ctx *x, const sp_target *t, const sp_problem *p)
{
    const sp_dtype_info *d = sp_dtype_get(p->dtype);
    x->t = t;
    x->p = p;
    x->in = d->in_bytes;
    x->acc = d->acc_bytes;
    x->m0 = d->m0;
    x->n0 = d->n0;
    x->k0 = d->k0;
    x->Mp = sp_pad(p->M, d->m0);
    x->Np = sp_pad(p->N, d->n0);
    x->Kp = sp_pad(p->K, d->k0);
    for (int i = 0; i < SP_NPATH; i++) {
        x->inv_bw[i] = t->path[i].bandwidth > 0 ? 1.0 / t->path[i].bandwidth : 0;
        x->lat[i] = t->path[i].latency;
    }
    x->inv_macs = t->macs[p->dtype] > 0 ? 1.0 / t->macs[p->dtype] : 0;
    x->kind = sp_kind_of(t);
}

/* The MN grid r x c (r rows of cores) if it is a true 2-D grid within TM x
 * TN tiles that beats the best so far: less work for the busiest core, then
 * squarer, then fewer rows. */
static void try_grid(int r, int c, int64_t TM, int64_t TN, int64_t *best, int *best_skew,
                     int *gm, int *gn)
{
    if (r < 2 || c < 2 || r > TM || c > TN)
        return;
    int64_t work = sp_ceil_div(TM, r) * sp_ceil_div(TN, c);
    int skew = r > c ? r - c : c - r;
    if (*best < 0 || work < *best || (work == *best && skew < *best_skew) ||
        (work == *best && skew == *best_skew && r < *gm)) {
        *best = work;
        *best_skew = skew;
        *gm = r, *gn = c;
    }
}

bool sp_grid_div(int cores, int split, int64_t TM, int64_t TN, int *gm, int *gn)
{
    if (cores == 1) { /* a single core splits nothing */
        *gm = *gn = 1;
        return true;
    }
    switch (split) {
    case SP_SPLIT_M:
        *gm = cores, *gn = 1;
        return TM >= cores;
    case SP_SPLIT_N:
        *gm = 1, *gn = cores;
        return TN >= cores;
    case SP_SPLIT_MN: {
        /* A true 2-D grid (>= 2 each way) that minimises the busiest core's
         * tile count; each divisor d <= sqrt(cores) gives d x cores/d and
         * cores/d x d. */
        int64_t best = -1;
        int best_skew = 0;
        for (int d = 2; d <= cores / d; d++)
            if (cores % d == 0) {
                try_grid(d, cores / d, TM, TN, &best, &best_skew, gm, gn);
                try_grid(cores / d, d, TM, TN, &best, &best_skew, gm, gn);
            }
        return best >= 0;
    }
    }
    return false;
}

bool sp_grid(const sp_target *t, const sp_problem *p, const sp_config *c, int *gm, int *gn)
{
    return sp_kind_of(t)->grid(p, c, gm, gn);
}

unsigned sp_check(const sp_target *t, const sp_problem *p, const sp_config *c)
{
    sp_ctx x;
    sp_ctx_init(&x, t, p);
    return x.kind->check(&x, c);
}

void sp_explain_shared(const sp_ctx *x, const sp_config *c, unsigned bad, sp_text *o)
{
    const sp_target *t = x->t;
    if (bad & SP_BAD_CORES)
        sp_line(o, "cores = %d, but target '%s' has %d", c->cores, t->name, t->cores);
    if (bad & SP_BAD_DTYPE)
        sp_line(o, "target '%s' (%s) does not compute %s", t->name, x->kind->info.name,
                sp_dtype_name(x->p->dtype));
}

int sp_explain(const sp_target *t, const sp_problem *p, const sp_config *c, char *out,
               size_t outlen)
{
    sp_ctx x;
    sp_ctx_init(&x, t, p);
    unsigned bad = x.kind->check(&x, c);
    sp_text o = {out, outlen, 0};
    if (outlen)
        out[0] = '\0';
    x.kind->explain(&x, c, bad, &o);
    int lines = 0;
    for (unsigned b = bad; b; b &= b - 1)
        lines++;
    return lines;
}

int sp_explain_line(const sp_target *t, const sp_problem *p, const sp_config *c, char *out,
                    size_t outlen)
{
    char lines[2048];
    int n = sp_explain(t, p, c, lines, sizeof lines);
    size_t used = 0;
    if (outlen)
        out[0] = '\0';
    for (char *s = lines; *s && used + 1 < outlen;) {
        size_t len = strcspn(s, "\n");
        int w = snprintf(out + used, outlen - used, "%s%.*s", used ? "; " : "", (int)len, s);
        used = w > 0 && (size_t)w < outlen - used ? used + (size_t)w : outlen;
        s += len + (s[len] == '\n');
    }
    return n;
}
