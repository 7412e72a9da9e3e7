/* enumerate.c — walks only the legal part of a search space, in parallel, and
 * either keeps the best few candidates per thread or collects all of them. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Where one thread puts the legal candidates it finds. */
typedef struct sp_sink {
    sp_order order;
    size_t keep;           /* top mode: heap of the `keep` best, worst at [0] */
    int all;               /* all mode: growing array */
    sp_candidate *v;
    size_t n, cap;
    int64_t legal;
    int oom;
    char pad[64];          /* keep threads' counters on separate cache lines */
} sink;

static inline int worse(const sink *s, const sp_candidate *a, const sp_candidate *b)
{
    return (s->order == SP_BY_TIME ? sp_cmp_time(a, b) : sp_cmp_volume(a, b)) > 0;
}

static void sift_down(sink *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < s->n && worse(s, &s->v[l], &s->v[w]))
            w = l;
        if (r < s->n && worse(s, &s->v[r], &s->v[w]))
            w = r;
        if (w == i)
            return;
        sp_candidate tmp = s->v[i];
        s->v[i] = s->v[w];
        s->v[w] = tmp;
        i = w;
    }
}

static void emit(sink *s, const sp_candidate *c)
{
    s->legal++;
    if (s->all) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 1024;
            sp_candidate *v = realloc(s->v, cap * sizeof *v);
            if (!v) {
                s->oom = 1;
                return;
            }
            s->v = v, s->cap = cap;
        }
        s->v[s->n++] = *c;
        return;
    }
    if (s->n < s->keep) { /* sift up */
        size_t i = s->n++;
        s->v[i] = *c;
        while (i > 0 && worse(s, &s->v[i], &s->v[(i - 1) / 2])) {
            sp_candidate tmp = s->v[i];
            s->v[i] = s->v[(i - 1) / 2];
            s->v[(i - 1) / 2] = tmp;
            i = (i - 1) / 2;
        }
        return;
    }
    /* Cheap reject on the primary key before the full comparison. */
    double key = s->order == SP_BY_TIME ? c->fig.est_cycles : c->fig.load_elems;
    double root = s->order == SP_BY_TIME ? s->v[0].fig.est_cycles : s->v[0].fig.load_elems;
    if (s->keep == 0 || key > root || !worse(s, &s->v[0], c))
        return;
    s->v[0] = *c;
    sift_down(s, 0);
}

/* The values of an axis that fit a padded dimension, ascending; an empty axis
 * stands for every multiple of the fractal. *owned is set if malloc'd. */
static size_t axis_values(const sp_axis *a, int64_t dim, int64_t unit, const int32_t **out,
                          int32_t **owned)
{
    *owned = NULL;
    if (a->n == 0) {
        size_t n = (size_t)(dim / unit);
        int32_t *v = malloc((n ? n : 1) * sizeof *v);
        if (!v)
            return (size_t)-1;
        for (size_t i = 0; i < n; i++)
            v[i] = (int32_t)((int64_t)(i + 1) * unit);
        *out = *owned = v;
        return n;
    }
    size_t n = 0;
    while (n < a->n && a->v[n] <= dim)
        n++;
    *out = a->v;
    return n;
}

struct sp_walk {
    sp_ctx x;
    const sp_space *s;
    const int32_t *mv, *nv, *kv;
    size_t nm, nn, nk;
    size_t ncores;         /* the values of the cores axis the target has */
    const sp_micro *micro; /* kinds with micro-tiles: those to try */
    size_t nmicro;
};

/* The CPU walk: blocks need no alignment, the micro-tile is one more axis,
 * and the cache rules judge (sp_cpu_check, as sp_check does). The no-pack
 * family (when the space allows it) runs strategy OS without double
 * buffering, over k blocks of the k axis's values below K, and all of K. */
void sp_cpu_walk(const sp_walk *w, int st, int db, int32_t m, sink *out)
{
    const sp_space *s = w->s;
    unsigned packs = s->packs ? s->packs : 1;
    for (int nopack = 0; nopack < 2; nopack++) {
        if (!(packs >> nopack & 1) || (nopack && (st != SP_OS || db)))
            continue;
        int32_t whole = (int32_t)w->x.p->K;
        size_t nk = w->nk;
        if (nopack) /* the values below K, then K */
            while (nk > 0 && w->kv[nk - 1] >= whole)
                nk--;
        for (size_t ki = 0; ki < nk + (size_t)nopack; ki++)
            for (size_t ni = 0; ni < w->nn; ni++)
                for (size_t ui = 0; ui < w->nmicro; ui++)
                    for (size_t ci = 0; ci < w->ncores; ci++) {
                        int32_t cores = s->cores.v[ci];
                        int nsplit = cores == 1 ? 1 : s->nsplit;
                        for (int si = 0; si < nsplit; si++) {
                            sp_candidate c;
                            c.config = (sp_config){.m = m, .n = w->nv[ni], .k = ki < nk ? w->kv[ki] : whole,
                                                   .cores = cores, .strategy = (uint8_t)st,
                                                   .double_buffer = (uint8_t)db,
                                                   .split = (uint8_t)s->split[si],
                                                   .mr = w->micro[ui].mr, .nr = w->micro[ui].nr,
                                                   .nopack = (uint8_t)nopack};
                            int gm, gn;
                            if (sp_cpu_check(&w->x, &c.config) || !sp_cpu_grid(w->x.p, &c.config, &gm, &gn))
                                continue;
                            sp_cpu_model(&w->x, &c.config, gm, gn, &c.fig);
                            emit(out, &c);
                        }
                    }
    }
}

/* The NPU walk. Axes ascend, so a capacity overflow ends the loop over the
 * growing axis. */
void sp_npu_walk(const sp_walk *w, int st, int db, int32_t m, sink *out)
{
    const sp_ctx *x = &w->x;
    const sp_target *t = x->t;
    const sp_space *s = w->s;
    if (m % x->m0)
        return;
    /* IS and WS need k = K: the axis's last value, if it is K (values
     * beyond the dimension are gone). */
    size_t k0 = st == SP_OS ? 0 : w->nk ? w->nk - 1 : 0;
    for (size_t ki = k0; ki < w->nk; ki++) {
        int32_t k = w->kv[ki];
        if (k % x->k0 || (st != SP_OS && k != x->Kp))
            continue;
        if (sp_need_l0a(x, m, k, db) > t->buf_bytes[SP_L0A])
            break;
        for (size_t ni = 0; ni < w->nn; ni++) {
            int32_t n = w->nv[ni];
            if (n % x->n0)
                continue;
            if (sp_need_l0b(x, k, n, db) > t->buf_bytes[SP_L0B] ||
                sp_need_l0c(x, m, n) > t->buf_bytes[SP_L0C] ||
                sp_need_l1(x, m, n, k, db) > t->buf_bytes[SP_L1])
                break;
            sp_plan pl;
            sp_plan_init(&pl, x, m, n, k);
            int64_t TM = pl.m.count[0] + pl.m.count[1], TN = pl.n.count[0] + pl.n.count[1];
            for (size_t ci = 0; ci < w->ncores; ci++) {
                int32_t cores = s->cores.v[ci];
                /* One core splits nothing: enumerate it once, under the
                 * first split the space lists. */
                int nsplit = cores == 1 ? 1 : s->nsplit;
                for (int si = 0; si < nsplit; si++) {
                    int gm, gn;
                    if (!sp_grid_div(cores, s->split[si], TM, TN, &gm, &gn))
                        continue;
                    sp_candidate c;
                    c.config = (sp_config){.m = m, .n = n, .k = k, .cores = cores,
                                           .strategy = (uint8_t)st,
                                           .double_buffer = (uint8_t)db,
                                           .split = (uint8_t)s->split[si]};
                    sp_model_plan(x, &c.config, &pl, gm, gn, &c.fig);
                    emit(out, &c);
                }
            }
        }
    }
}

/* All legal candidates with strategy st, double buffering db and tile rows m,
 * by the target's kind. */
static void walk_item(const sp_walk *w, int st, int db, int32_t m, sink *out)
{
    if (sp_target_computes(w->x.t, w->x.p->dtype)) /* as sp_check: SP_BAD_DTYPE */
        w->x.kind->walk(w, st, db, m, out);
}

/* a * b, or INT64_MAX when that does not fit (a, b >= 0). */
static int64_t mul_sat(int64_t a, int64_t b)
{
    return b && a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* Runs the walk over every (strategy, double_buffer, m) in parallel. Returns
 * the per-thread sinks (caller frees) and their count, or NULL on OOM. The
 * work is linear in each axis (for the cores axis, in its values up to the
 * target's cores: more are never legal). */
static sink *run(const sp_target *t, const sp_problem *p, const sp_space *s, int all,
                 sp_order order, size_t keep, sp_counts *counts, int *nsinks)
{
    sp_walk w;
    sp_ctx_init(&w.x, t, p);
    w.s = s;
    sp_micro dflt = sp_micro_default(t);
    w.micro = s->nmicro ? s->micro : &dflt;
    w.nmicro = !w.x.kind->info.micro ? 0 : s->nmicro ? s->nmicro : 1;
    int32_t *own_m, *own_n, *own_k;
    w.nm = axis_values(&s->m, w.x.Mp, w.x.m0, &w.mv, &own_m);
    w.nn = axis_values(&s->n, w.x.Np, w.x.n0, &w.nv, &own_n);
    w.nk = axis_values(&s->k, w.x.Kp, w.x.k0, &w.kv, &own_k);
    for (w.ncores = 0; w.ncores < s->cores.n && s->cores.v[w.ncores] <= t->cores; w.ncores++)
        ;
    int nthreads = omp_get_max_threads();
    sink *sinks = calloc((size_t)nthreads, sizeof *sinks);
    int ok = sinks && w.nm != (size_t)-1 && w.nn != (size_t)-1 && w.nk != (size_t)-1;

    int nst = 0, ndb = s->double_buffer[0] + s->double_buffer[1];
    for (int st = 0; st < SP_NSTRATEGY; st++)
        nst += s->strategy[st];
    if (counts && ok) {
        /* the k values of each kernel family the space allows: the axis's for
         * packing, those below K and K for no-pack, a family of the kinds with
         * micro-tiles */
        unsigned packs = w.nmicro && s->packs ? s->packs : 1;
        size_t below = w.nk;
        while (below > 0 && w.kv[below - 1] >= p->K)
            below--;
        int64_t nk = (packs & 1 ? (int64_t)w.nk : 0) + (packs & 2 ? (int64_t)below + 1 : 0);
        int64_t f[] = {nst, ndb, (int64_t)w.nm, (int64_t)w.nn, nk,
                       (int64_t)s->cores.n, s->nsplit, (int64_t)(w.nmicro ? w.nmicro : 1)};
        counts->raw = 1;
        for (size_t i = 0; i < sizeof f / sizeof *f; i++)
            counts->raw = mul_sat(counts->raw, f[i]);
        counts->legal = 0;
    }
    for (int i = 0; ok && i < nthreads; i++) {
        sinks[i] = (sink){.order = order, .keep = keep, .all = all};
        if (!all && keep && !(sinks[i].v = malloc(keep * sizeof(sp_candidate))))
            ok = 0;
    }
    if (ok) {
        long items = (long)nst * ndb * (long)w.nm;
        int sts[SP_NSTRATEGY], dbs[2], ns = 0, nd = 0;
        for (int st = 0; st < SP_NSTRATEGY; st++)
            if (s->strategy[st])
                sts[ns++] = st;
        for (int db = 0; db < 2; db++)
            if (s->double_buffer[db])
                dbs[nd++] = db;
#pragma omp parallel for schedule(dynamic, 1)
        for (long it = 0; it < items; it++) {
            long mi = it % (long)w.nm, rest = it / (long)w.nm;
            walk_item(&w, sts[rest / nd], dbs[rest % nd], w.mv[mi], &sinks[omp_get_thread_num()]);
        }
        for (int i = 0; i < nthreads; i++) {
            ok &= !sinks[i].oom;
            if (counts)
                counts->legal += sinks[i].legal;
        }
    }
    free(own_m);
    free(own_n);
    free(own_k);
    if (!ok && sinks) {
        for (int i = 0; i < nthreads; i++)
            free(sinks[i].v);
        free(sinks);
        return NULL;
    }
    *nsinks = nthreads;
    return sinks;
}

/* Concatenates the threads' candidates into one malloc'd array (*n of them)
 * and frees the sinks; NULL if memory ran out. */
static sp_candidate *gather(sink *sinks, int ns, size_t *n)
{
    size_t total = 0, at = 0;
    for (int i = 0; i < ns; i++)
        total += sinks[i].n;
    sp_candidate *all = malloc((total ? total : 1) * sizeof *all);
    for (int i = 0; i < ns; i++) {
        if (all && sinks[i].n)
            memcpy(all + at, sinks[i].v, sinks[i].n * sizeof *all);
        at += sinks[i].n;
        free(sinks[i].v);
    }
    free(sinks);
    *n = total;
    return all;
}

size_t sp_rank_top(const sp_target *t, const sp_problem *p, const sp_space *s, sp_order order,
                   size_t keep, sp_candidate *out, sp_counts *counts)
{
    int ns = 0;
    size_t total;
    sink *sinks = run(t, p, s, 0, order, keep, counts, &ns);
    sp_candidate *merged = sinks ? gather(sinks, ns, &total) : NULL;
    if (!merged)
        return (size_t)-1;
    sp_sort(merged, total, order);
    size_t got = total < keep ? total : keep;
    memcpy(out, merged, got * sizeof *out);
    free(merged);
    return got;
}

static int by_config(const void *a, const void *b)
{
    return sp_cmp_config(&((const sp_candidate *)a)->config, &((const sp_candidate *)b)->config);
}

size_t sp_enumerate(const sp_target *t, const sp_problem *p, const sp_space *s,
                    sp_candidate **out, sp_counts *counts)
{
    int ns = 0;
    size_t total;
    sink *sinks = run(t, p, s, 1, SP_BY_TIME, 0, counts, &ns);
    *out = sinks ? gather(sinks, ns, &total) : NULL;
    if (!*out)
        return (size_t)-1;
    qsort(*out, total, sizeof **out, by_config);
    return total;
}
