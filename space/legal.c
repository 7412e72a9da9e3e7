/* legal.c — which configs a target can run: fractal alignment, buffer
 * capacities (halved by double buffering), k = K for IS/WS, core splits. */
#include <stdarg.h>
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

bool sp_grid(const sp_problem *p, const sp_config *c, int *gm, int *gn)
{
    if (c->mr || c->nr)
        return sp_cpu_grid(p, c, gm, gn);
    const sp_dtype_info *d = sp_dtype_get(p->dtype);
    if (c->m < 1 || c->n < 1)
        return false;
    int64_t TM = sp_ceil_div(sp_pad(p->M, d->m0), c->m);
    int64_t TN = sp_ceil_div(sp_pad(p->N, d->n0), c->n);
    return sp_grid_div(c->cores, c->split, TM, TN, gm, gn);
}

unsigned sp_check(const sp_target *t, const sp_problem *p, const sp_config *c)
{
    sp_ctx x;
    sp_ctx_init(&x, t, p);
    if (t->kind == SP_CPU)
        return sp_cpu_check(&x, c);
    unsigned bad = 0;
    int db = c->double_buffer ? 1 : 0;
    if (!sp_target_computes(t, p->dtype)) bad |= SP_BAD_DTYPE;
    if (c->mr || c->nr) bad |= SP_BAD_MICRO;
    if (c->m < 1 || c->m % x.m0) bad |= SP_BAD_ALIGN_M;
    if (c->n < 1 || c->n % x.n0) bad |= SP_BAD_ALIGN_N;
    if (c->k < 1 || c->k % x.k0) bad |= SP_BAD_ALIGN_K;
    if (c->m > x.Mp || c->n > x.Np || c->k > x.Kp) bad |= SP_BAD_DIM;
    if (c->strategy != SP_OS && c->k != x.Kp) bad |= SP_BAD_FULL_K;
    if (sp_need_l0a(&x, c->m, c->k, db) > t->buf_bytes[SP_L0A]) bad |= SP_BAD_L0A;
    if (sp_need_l0b(&x, c->k, c->n, db) > t->buf_bytes[SP_L0B]) bad |= SP_BAD_L0B;
    if (sp_need_l0c(&x, c->m, c->n) > t->buf_bytes[SP_L0C]) bad |= SP_BAD_L0C;
    if (sp_need_l1(&x, c->m, c->n, c->k, db) > t->buf_bytes[SP_L1]) bad |= SP_BAD_L1;
    if (c->cores < 1 || c->cores > t->cores) bad |= SP_BAD_CORES;
    int gm = 0, gn = 0;
    if (c->cores >= 1 && c->m >= 1 && c->n >= 1 && !sp_grid(p, c, &gm, &gn))
        bad |= SP_BAD_SPLIT;
    return bad;
}

/* Appends one formatted line to out at *used. */
__attribute__((format(printf, 4, 5)))
static void line(char *out, size_t outlen, size_t *used, const char *fmt, ...)
{
    if (*used >= outlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *used, outlen - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
    if (*used < outlen - 1) {
        out[(*used)++] = '\n';
        out[*used] = '\0';
    }
}

static void buffer_line(char *out, size_t outlen, size_t *used, const char *buf,
                        const char *what, int64_t need, int64_t have, int db)
{
    line(out, outlen, used, "%s overflows: %s needs %lld bytes%s, %s has %lld", buf, what,
         (long long)need, db ? " (double-buffered: two copies)" : "", buf, (long long)have);
}

/* The line of a CPU cache level of which `what` (bytes) may use only half,
 * the streams named by `rest` passing through the other. */
static void half_line(char *out, size_t outlen, size_t *used, const char *level,
                      const char *what, int64_t bytes, int db, int64_t have, const char *rest)
{
    line(out, outlen, used,
         "%s overflows: %s (%lld bytes%s) must fit half of %s (%lld of %lld; the rest streams "
         "%s)",
         level, what, (long long)bytes, db ? ", double-buffered: two copies" : "", level,
         (long long)have / 2, (long long)have, rest);
}

int sp_explain(const sp_target *t, const sp_problem *p, const sp_config *c, char *out,
               size_t outlen)
{
    sp_ctx x;
    sp_ctx_init(&x, t, p);
    unsigned bad = sp_check(t, p, c);
    int db = c->double_buffer ? 1 : 0;
    size_t used = 0;
    if (outlen)
        out[0] = '\0';
    const char *dt = sp_dtype_name(p->dtype);
    char tile[96];
    if (bad & SP_BAD_ALIGN_M)
        line(out, outlen, &used, "m = %d is not a multiple of %lld (the %s fractal)", c->m,
             (long long)x.m0, dt);
    if (bad & SP_BAD_ALIGN_N)
        line(out, outlen, &used, "n = %d is not a multiple of %lld (the %s fractal)", c->n,
             (long long)x.n0, dt);
    if (bad & SP_BAD_ALIGN_K)
        line(out, outlen, &used, "k = %d is not a multiple of %lld (the %s fractal)", c->k,
             (long long)x.k0, dt);
    if (bad & SP_BAD_DIM && t->kind == SP_CPU)
        line(out, outlen, &used, "blocks %dx%dx%d: each must be at least 1", c->m, c->n, c->k);
    else if (bad & SP_BAD_DIM)
        line(out, outlen, &used,
             "tile %dx%dx%d exceeds the padded shape %lldx%lldx%lld", c->m, c->n, c->k,
             (long long)x.Mp, (long long)x.Np, (long long)x.Kp);
    if (bad & SP_BAD_FULL_K)
        line(out, outlen, &used, "%s keeps its tile stationary over the whole reduction: needs k = K = %lld, not %d",
             sp_strategy_name(c->strategy), (long long)x.Kp, c->k);
    if (bad & SP_BAD_L0A) {
        snprintf(tile, sizeof tile, "A-tile %dx%d %s", c->m, c->k, dt);
        buffer_line(out, outlen, &used, "L0A", tile, sp_need_l0a(&x, c->m, c->k, db),
                    t->buf_bytes[SP_L0A], db);
    }
    if (bad & SP_BAD_L0B) {
        snprintf(tile, sizeof tile, "B-tile %dx%d %s", c->k, c->n, dt);
        buffer_line(out, outlen, &used, "L0B", tile, sp_need_l0b(&x, c->k, c->n, db),
                    t->buf_bytes[SP_L0B], db);
    }
    if (bad & SP_BAD_L0C) {
        snprintf(tile, sizeof tile, "C-tile %dx%d accumulators", c->m, c->n);
        buffer_line(out, outlen, &used, "L0C", tile, sp_need_l0c(&x, c->m, c->n),
                    t->buf_bytes[SP_L0C], 0);
    }
    if (bad & SP_BAD_L1)
        buffer_line(out, outlen, &used, "L1", "staging one A-tile and one B-tile",
                    sp_need_l1(&x, c->m, c->n, c->k, db), t->buf_bytes[SP_L1], db);
    if (bad & SP_BAD_CORES)
        line(out, outlen, &used, "cores = %d, but target '%s' has %d", c->cores, t->name,
             t->cores);
    if (bad & SP_BAD_DTYPE)
        line(out, outlen, &used, "target '%s' (%s) does not compute %s", t->name,
             sp_kind_name(t->kind), dt);
    if (bad & SP_BAD_MICRO) {
        const sp_cpu *u = &t->cpu;
        if (t->kind != SP_CPU)
            line(out, outlen, &used, "micro-tile %dx%d: NPU targets have no register micro-tile",
                 c->mr, c->nr);
        else if (c->mr < 1 || c->nr < 1 || c->nr % u->simd_floats)
            line(out, outlen, &used,
                 "micro-tile %dx%d: nr must be a positive multiple of the %d-float vector",
                 c->mr, c->nr, u->simd_floats);
        else {
            int nv = c->nr / u->simd_floats;
            line(out, outlen, &used,
                 "micro-tile %dx%d needs %d accumulators + %d B vectors + 1 broadcast = %d "
                 "vector registers, '%s' has %d",
                 c->mr, c->nr, c->mr * nv, nv, c->mr * nv + nv + 1, t->name, u->vregs);
        }
    }
    if (bad & SP_BAD_CACHE1) {
        snprintf(tile, sizeof tile, "the A micro-panel %dx%d fp32", c->mr, c->k);
        half_line(out, outlen, &used, "L1d", tile, sp_cpu_need(c, SP_CL1) / 2, 0,
                  t->cpu.cache[SP_CL1], "B and C");
    }
    if (bad & SP_BAD_CACHE2) {
        snprintf(tile, sizeof tile, "the packed B block %dx%d fp32", c->k, c->n);
        half_line(out, outlen, &used, "L2", tile, sp_cpu_need(c, SP_CL2) / 2, db,
                  t->cpu.cache[SP_CL2], "A and C");
    }
    if (bad & SP_BAD_CACHE3)
        line(out, outlen, &used,
             "L3 overflows: %s keeps the %s block %dx%d fp32 resident, %lld bytes%s, the L3 "
             "share of %d thread%s is %lld",
             sp_strategy_name(c->strategy), c->strategy == SP_IS ? "packed A" : "C",
             c->m, c->strategy == SP_IS ? c->k : c->n, (long long)sp_cpu_need(c, SP_CL3),
             db ? " (double-buffered: two copies)" : "", c->cores, c->cores == 1 ? "" : "s",
             (long long)sp_cpu_l3_share(t, c->cores));
    if (bad & SP_BAD_SPLIT && t->kind == SP_CPU && c->split == SP_SPLIT_MN) {
        line(out, outlen, &used,
             "split MN needs a grid of >= 2x2 threads dividing %d within %lldx%lld micro-tiles "
             "of %dx%d",
             c->cores, (long long)sp_ceil_div(p->M, c->mr), (long long)sp_ceil_div(p->N, c->nr),
             c->mr, c->nr);
    } else if (bad & SP_BAD_SPLIT && t->kind == SP_CPU) {
        line(out, outlen, &used,
             "split %s over %d threads leaves threads idle: %lldx%lld micro-tiles of %dx%d",
             sp_split_name(c->split), c->cores, (long long)sp_ceil_div(p->M, c->mr),
             (long long)sp_ceil_div(p->N, c->nr), c->mr, c->nr);
    } else if (bad & SP_BAD_SPLIT) {
        int64_t TM = sp_ceil_div(x.Mp, c->m), TN = sp_ceil_div(x.Np, c->n);
        if (c->split == SP_SPLIT_MN)
            line(out, outlen, &used,
                 "split MN needs a grid of >= 2x2 cores dividing %d within %lldx%lld tiles",
                 c->cores, (long long)TM, (long long)TN);
        else
            line(out, outlen, &used, "split %s over %d cores leaves cores idle: only %lld %s-tiles",
                 sp_split_name(c->split), c->cores,
                 (long long)(c->split == SP_SPLIT_M ? TM : TN), sp_split_name(c->split));
    }
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
