/* search.c — the ask/tell dispatcher every strategy runs behind (budget, never
 * asking twice, the best so far) and the helpers they share over the legal space. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_internal.h"

/* The registry: every strategy, in the order scripts' messages and --help
 * list them (the first is the default). Strategy NAME is tn_strategy_NAME,
 * defined in its own search_NAME.c, which CMake compiles by glob: adding a
 * strategy is that file and one line here. */
#define TN_SEARCHES(X) \
    X(model)           \
    X(exhaustive)      \
    X(random)          \
    X(anneal)          \
    X(genetic)

#define DECLARE(name) extern const tn_strategy tn_strategy_##name;
TN_SEARCHES(DECLARE)
#define NAME(name) #name,
const char *const tn_search_names[] = {TN_SEARCHES(NAME) NULL};
#define ENTRY(name) &tn_strategy_##name,
static const tn_strategy *const strategies[] = {TN_SEARCHES(ENTRY)};

/* Index of config c in a sorted candidate array, or (size_t)-1. */
size_t tn_search_find(const sp_candidate *cands, size_t n, const sp_config *c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = sp_cmp_config(&cands[mid].config, c);
        if (r == 0)
            return mid;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return TN_NONE;
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The distinct values of one axis (by field offset) over the candidates. */
static bool axis_values(const tn_search *s, size_t offset, tn_values *out)
{
    out->v = malloc((s->n ? s->n : 1) * sizeof *out->v);
    out->n = 0;
    if (!out->v)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        int32_t x;
        memcpy(&x, (const char *)&s->cands[i].config + offset, sizeof x);
        out->v[out->n++] = x;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_int32);
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++)
        if (k == 0 || out->v[k - 1] != out->v[i])
            out->v[k++] = out->v[i];
    out->n = k;
    return true;
}

static int by_model(const void *a, const void *b)
{
    return sp_cmp_time(*(const sp_candidate *const *)a, *(const sp_candidate *const *)b);
}

/* s->order: every index, best estimated time first. */
static bool model_order(tn_search *s)
{
    const sp_candidate **p = malloc((s->n ? s->n : 1) * sizeof *p);
    size_t *order = malloc((s->n ? s->n : 1) * sizeof *order);
    if (!p || !order) {
        free(p);
        free(order);
        return false;
    }
    free(s->order);
    s->order = order;
    for (size_t i = 0; i < s->n; i++)
        p[i] = &s->cands[i];
    qsort(p, s->n, sizeof *p, by_model);
    for (size_t i = 0; i < s->n; i++)
        s->order[i] = (size_t)(p[i] - s->cands);
    free(p);
    return true;
}

/* log2 of the numeric axes (m, n, k, cores) of a config. */
static void config_logs(const sp_config *c, float *l)
{
    l[0] = log2f((float)c->m);
    l[1] = log2f((float)c->n);
    l[2] = log2f((float)c->k);
    l[3] = log2f((float)c->cores);
}

/* A candidate's config with its blocks cut to the problem, and its index. */
typedef struct {
    sp_config cut;
    size_t i;
} cut_config;

static int by_cut(const void *a, const void *b)
{
    const cut_config *x = a, *y = b;
    int r = sp_cmp_config(&x->cut, &y->cut);
    return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* s->kin from p: the host kernel cuts each block to the rows, columns and
 * depth it has (codegen/host: a block of m >= M rows runs as one of M), so
 * candidates whose blocks agree once cut to M, N and K run alike. False if
 * memory ran out. */
static bool kin_rings(tn_search *s, const sp_problem *p)
{
    cut_config *c = malloc((s->n ? s->n : 1) * sizeof *c);
    s->kin = malloc((s->n ? s->n : 1) * sizeof *s->kin);
    if (!c || !s->kin) {
        free(c);
        return false;
    }
    for (size_t i = 0; i < s->n; i++) {
        c[i].cut = s->cands[i].config;
        c[i].cut.m = c[i].cut.m > p->M ? (int32_t)p->M : c[i].cut.m;
        c[i].cut.n = c[i].cut.n > p->N ? (int32_t)p->N : c[i].cut.n;
        c[i].cut.k = c[i].cut.k > p->K ? (int32_t)p->K : c[i].cut.k;
        c[i].i = i;
    }
    qsort(c, s->n, sizeof *c, by_cut);
    for (size_t lo = 0, hi; lo < s->n; lo = hi) {
        for (hi = lo + 1; hi < s->n && sp_cmp_config(&c[lo].cut, &c[hi].cut) == 0; hi++)
            s->kin[c[hi - 1].i] = c[hi].i;
        s->kin[c[hi - 1].i] = c[lo].i;
    }
    free(c);
    return true;
}

bool tn__kin_in(const tn_search *s, const size_t *idx, size_t k, size_t i)
{
    size_t j = i;
    do {
        if (tn__in(idx, k, j))
            return true;
        j = s->kin ? s->kin[j] : i;
    } while (j != i);
    return false;
}

/* A strategy by name over a; NULL if the name is unknown or memory ran out. */
tn_search *tn_search_open(const char *name, const tn_search_args *a)
{
    const tn_strategy *st = NULL;
    for (size_t i = 0; name && i < sizeof strategies / sizeof *strategies; i++)
        if (strcmp(tn_search_names[i], name) == 0)
            st = strategies[i];
    if (!st || !a || (a->n && !a->cands))
        return NULL;
    tn_search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->st = st;
    s->cands = a->cands;
    s->n = a->n;
    s->budget = a->budget < a->n ? a->budget : a->n;
    s->rng = a->rng;
    s->band = a->band >= 0 && a->band <= 1 ? a->band : 0;
    s->best = TN_NONE;
    s->pick = a->pick && *a->pick < a->n ? *a->pick : TN_NONE;
    size_t room = s->n ? s->n : 1;
    s->state = calloc(room, 1);
    s->value = malloc(room * sizeof *s->value);
    s->told = malloc((s->budget ? s->budget : 1) * sizeof *s->told);
    s->logs = malloc(4 * room * sizeof *s->logs);
    for (size_t i = 0; s->logs && i < s->n; i++)
        config_logs(&s->cands[i].config, s->logs + 4 * i);
    bool ok = s->state && s->value && s->told && s->logs && (!a->clamp || kin_rings(s, a->clamp)) &&
              model_order(s) &&
              axis_values(s, offsetof(sp_config, m), &s->m) &&
              axis_values(s, offsetof(sp_config, n), &s->nn) &&
              axis_values(s, offsetof(sp_config, k), &s->k) &&
              axis_values(s, offsetof(sp_config, cores), &s->cores) && st->init(s);
    if (!ok) {
        s->st = NULL; /* init failed or never ran: nothing for fini */
        tn_search_close(s);
        return NULL;
    }
    return s;
}

/* Up to max indices into a->cands to measure next, never one asked before;
 * 0 when done, when the budget is spent, or when earlier asks await tells. */
size_t tn_search_ask(tn_search *s, size_t *idx, size_t max)
{
    if (!s || !idx || s->ntold != s->nasked || s->nasked >= s->budget)
        return 0;
    size_t left = s->budget - s->nasked;
    if (max > left)
        max = left;
    if (max == 0)
        return 0;
    size_t got = s->st->ask(s, idx, max), k = 0;
    for (size_t i = 0; i < got && i < max; i++) /* the promise holds whatever a strategy does */
        if (idx[i] < s->n && s->state[idx[i]] == TN_ASK_UNTRIED) {
            s->state[idx[i]] = TN_ASK_PENDING;
            for (size_t j = s->kin ? s->kin[idx[i]] : idx[i]; j != idx[i]; j = s->kin[j])
                if (s->state[j] == TN_ASK_UNTRIED)
                    s->state[j] = TN_ASK_SAME, s->nsame++;
            idx[k++] = idx[i];
        }
    s->nasked += k;
    return k;
}

bool tn_search_blind(const tn_search *s)
{
    return s && s->st->blind;
}

/* Records the measurement of an asked index (ignored for an index not
 * awaiting a tell); a failed or non-finite measurement counts as +inf. */
void tn_search_tell(tn_search *s, size_t idx, int ok, double value)
{
    if (!s || idx >= s->n || s->state[idx] != TN_ASK_PENDING)
        return;
    bool good = ok && isfinite(value);
    s->state[idx] = TN_ASK_TOLD;
    s->value[idx] = good ? value : INFINITY;
    for (size_t j = s->kin ? s->kin[idx] : idx; j != idx; j = s->kin[j])
        s->value[j] = s->value[idx]; /* they run alike: a walk may pass through them */
    s->told[s->ntold++] = idx;
    if (good && (s->best == TN_NONE || value < s->value[s->best]))
        s->best = idx;
    if (s->st->tell)
        s->st->tell(s, idx, good, s->value[idx]);
}

bool tn_search_rerank(tn_search *s)
{
    if (!s || !model_order(s))
        return false;
    if (s->st->rerank)
        s->st->rerank(s);
    return true;
}

/* Frees the search (NULL is fine). */
void tn_search_close(tn_search *s)
{
    if (!s)
        return;
    if (s->st && s->st->fini)
        s->st->fini(s);
    free(s->state);
    free(s->value);
    free(s->told);
    free(s->logs);
    free(s->kin);
    free(s->order);
    free(s->m.v);
    free(s->nn.v);
    free(s->k.v);
    free(s->cores.v);
    free(s);
}

/* ---- neighbourhood ---- */

/* Position of x in the axis values (x is present: it came from a candidate). */
static size_t value_pos(const tn_values *a, int32_t x)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int32_t *field(sp_config *c, int axis)
{
    return axis == 0 ? &c->m : axis == 1 ? &c->n : axis == 2 ? &c->k : &c->cores;
}

static int32_t get(const sp_config *c, int axis)
{
    return axis == 0 ? c->m : axis == 1 ? c->n : axis == 2 ? c->k : c->cores;
}

static const tn_values *values(const tn_search *s, int axis)
{
    return axis == 0 ? &s->m : axis == 1 ? &s->nn : axis == 2 ? &s->k : &s->cores;
}

/* The candidate with the nearest value of an axis beyond c's in direction
 * dir and every other axis as in c, or TN_NONE. */
static size_t step(const tn_search *s, const sp_config *c, int axis, int dir)
{
    const tn_values *a = values(s, axis);
    sp_config x = *c;
    size_t pos = value_pos(a, get(c, axis));
    for (size_t j = pos; dir < 0 ? j > 0 : j + 1 < a->n;) {
        j = dir < 0 ? j - 1 : j + 1;
        *field(&x, axis) = a->v[j];
        size_t i = tn_search_find(s->cands, s->n, &x);
        if (i != TN_NONE)
            return i;
    }
    return TN_NONE;
}

static void add(size_t *out, size_t *k, size_t i, size_t self)
{
    if (i != TN_NONE && i != self && !tn__in(out, *k, i) && *k < TN_MAX_NEIGHBOURS)
        out[(*k)++] = i;
}

/* Candidate i's legal neighbours, one axis changed (see search_internal.h). */
size_t tn__neighbours(const tn_search *s, size_t i, size_t *out)
{
    const sp_config *c = &s->cands[i].config;
    size_t k = 0;
    for (int axis = 0; axis < 3; axis++) {
        add(out, &k, step(s, c, axis, -1), i);
        size_t up = step(s, c, axis, +1);
        add(out, &k, up, i);
        const tn_values *a = values(s, axis);
        size_t pos = value_pos(a, get(c, axis));
        if (up != TN_NONE || pos + 1 >= a->n)
            continue;
        /* blocked by a buffer: one step up, another tile axis as large as fits */
        for (int other = 0; other < 3; other++) {
            if (other == axis)
                continue;
            sp_config x = *c;
            *field(&x, axis) = a->v[pos + 1];
            add(out, &k, step(s, &x, other, -1), i);
        }
    }
    sp_config x = *c;
    x.double_buffer = !c->double_buffer;
    add(out, &k, tn_search_find(s->cands, s->n, &x), i);
    add(out, &k, step(s, c, 3, -1), i);
    add(out, &k, step(s, c, 3, +1), i);
    for (int sp = 0; sp < SP_NSPLIT; sp++) {
        x = *c;
        x.split = (uint8_t)sp;
        add(out, &k, tn_search_find(s->cands, s->n, &x), i);
    }
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        x = *c;
        x.strategy = (uint8_t)st;
        if (st != SP_OS && s->k.n)
            x.k = s->k.v[s->k.n - 1]; /* IS/WS hold the whole reduction */
        add(out, &k, tn_search_find(s->cands, s->n, &x), i);
    }
    /* the other kernel family: no-pack runs OS over the whole reduction (the
     * largest k) without double buffering; back, the same blocks */
    x = *c;
    x.nopack = !c->nopack;
    if (x.nopack) {
        x.strategy = SP_OS;
        x.double_buffer = 0;
        if (s->k.n)
            x.k = s->k.v[s->k.n - 1];
    }
    add(out, &k, tn_search_find(s->cands, s->n, &x), i);
    return k;
}

/* ---- picking untried candidates ---- */

/* Model order from *next on (see search_internal.h). */
size_t tn__ranked(tn_search *s, size_t *next, size_t *idx, size_t max)
{
    size_t k = 0;
    for (; *next < s->n && k < max; (*next)++)
        if (tn__untried(s, s->order[*next]))
            idx[k++] = s->order[*next];
    while (*next < s->n && !tn__untried(s, s->order[*next]))
        (*next)++;
    return k;
}

/* How far candidate i is from config c (l: c's logs): log2 ratios of m, n,
 * k and cores, 1 for another strategy, 1/2 each for double buffering, split
 * and the kernel family (pack). */
static double distance_to(const tn_search *s, size_t i, const sp_config *c, const float *l)
{
    const sp_config *x = &s->cands[i].config;
    const float *li = s->logs + 4 * i;
    return fabsf(li[0] - l[0]) + fabsf(li[1] - l[1]) + fabsf(li[2] - l[2]) + fabsf(li[3] - l[3]) +
           (x->strategy != c->strategy) + 0.5 * (x->double_buffer != c->double_buffer) +
           0.5 * (x->split != c->split) + 0.5 * (x->nopack != c->nopack);
}

/* The candidate nearest to c, lowest index on ties (see search_internal.h). */
size_t tn__nearest(const tn_search *s, const sp_config *c, bool untried_only, const size_t *skip,
                   size_t nskip)
{
    float l[4];
    config_logs(c, l);
    size_t best = TN_NONE;
    double bd = INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        if (untried_only && !tn__untried(s, i))
            continue;
        double d = distance_to(s, i, c, l);
        if (d < bd && !tn__in(skip, nskip, i))
            bd = d, best = i;
    }
    return best;
}

/* A uniformly drawn untried candidate outside skip, or TN_NONE. */
size_t tn__random_untried(tn_search *s, const size_t *skip, size_t nskip)
{
    size_t count = s->n - s->nasked - s->nsame;
    for (size_t j = 0; j < nskip; j++)
        count -= skip[j] < s->n && tn__untried(s, skip[j]);
    if (count == 0)
        return TN_NONE;
    size_t r = gsl_rng_uniform_int(s->rng, count);
    for (size_t i = 0; i < s->n; i++)
        if (tn__untried(s, i) && !tn__in(skip, nskip, i) && r-- == 0)
            return i;
    return TN_NONE;
}
