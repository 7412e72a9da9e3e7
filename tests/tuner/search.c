/* search.c — the search strategies on synthetic landscapes over a real
 * legal space: the ask/tell contract, budgets, seeds, failures, and quality. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "fixtures.h"
#include "search.h"
#include "search_drive.h"
#include "search_internal.h"

/* A legal space and a "measurement" of every candidate. */
typedef struct {
    sp_candidate *cands;
    size_t n;
    double *value; /* NAN = the measurement fails */
    int fail_all;
} land;

static uint64_t mix(const sp_config *c)
{
    uint64_t h = 1469598103934665603ULL;
    int32_t v[7] = {c->strategy, c->m, c->n, c->k, c->double_buffer, c->cores, c->split};
    for (int i = 0; i < 7; i++) {
        h ^= (uint64_t)(uint32_t)v[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static int measure(void *ctx, size_t idx, double *value)
{
    const land *l = ctx;
    *value = l->value[idx];
    return !l->fail_all && !isnan(l->value[idx]);
}

enum { BUMPY, SMOOTH, FAILING, EXACT, TIED };

/* How far apart two configs are (log2 ratios of the tile, 1 per other axis). */
static double config_distance(const sp_config *a, const sp_config *b)
{
    return fabs(log2((double)a->m / b->m)) + fabs(log2((double)a->n / b->n)) +
           fabs(log2((double)a->k / b->k)) + (a->strategy != b->strategy) +
           (a->double_buffer != b->double_buffer) + (a->cores != b->cores) + (a->split != b->split);
}

static int by_time(const void *a, const void *b)
{
    return sp_cmp_time(a, b);
}

/* The space of an M x N x K fp16 problem with the given cores and splits. */
static land make_land(long M, long N, long K, size_t ncores, int nsplit, int kind)
{
    sp_target t = fx_ascend910();
    int32_t cores[] = {1, 2, 4};
    sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    sp_problem p = fx_problem(M, N, K, 1, SP_FP16);
    sp_space sp = fx_space(1, 1, cores, ncores, splits, nsplit);
    land l = {0};
    l.n = sp_enumerate(&t, &p, &sp, &l.cands, NULL);
    sp_space_free(&sp);
    l.value = malloc(l.n * sizeof *l.value);
    /* the smooth landscape: a bowl around the model's 40th pick */
    sp_candidate *sorted = malloc(l.n * sizeof *sorted);
    memcpy(sorted, l.cands, l.n * sizeof *sorted);
    qsort(sorted, l.n, sizeof *sorted, by_time);
    sp_config centre = sorted[l.n > 40 ? 40 : 0].config;
    free(sorted);
    for (size_t i = 0; i < l.n; i++) {
        const sp_candidate *c = &l.cands[i];
        double u = (double)(mix(&c->config) % 1000) / 1000.0;
        if (kind == TIED) /* a model that rates every candidate the same */
            l.cands[i].fig.est_cycles = 1e6;
        if (kind == SMOOTH)
            l.value[i] = c->fig.est_cycles * (1 + 0.5 * config_distance(&c->config, &centre));
        else if (kind == EXACT)
            l.value[i] = 2 * c->fig.est_cycles;
        else
            l.value[i] = c->fig.est_cycles * (1 + 0.3 * u);
        if (kind == FAILING && u < 0.2)
            l.value[i] = NAN;
    }
    return l;
}

static void free_land(land *l)
{
    free(l->cands);
    free(l->value);
}

/* One run, blocks cut to `clamp` (NULL: none): the asked sequence into seq
 * (room for budget); returns its length. */
static size_t run_cut(const char *name, land *l, size_t budget, unsigned long seed,
                      const sp_problem *clamp, size_t *seq)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    tn_search_args a = {.cands = l->cands, .n = l->n, .budget = budget, .rng = rng,
                        .clamp = clamp};
    tn_search *s = tn_search_open(name, &a);
    size_t told = 0;
    if (CHECK(s != NULL)) {
        told = drive(s, budget, measure, l, seq);
        size_t idx[DRIVE_BATCH];
        CHECK_INT(tn_search_ask(s, idx, DRIVE_BATCH), 0); /* done stays done */
        tn_search_close(s);
    }
    gsl_rng_free(rng);
    return told;
}

static size_t run(const char *name, land *l, size_t budget, unsigned long seed, size_t *seq)
{
    return run_cut(name, l, budget, seed, NULL, seq);
}

static bool distinct(const size_t *seq, size_t k, size_t n)
{
    unsigned char *seen = calloc(n, 1);
    bool ok = true;
    for (size_t i = 0; i < k; i++) {
        if (seq[i] >= n || seen[seq[i]])
            ok = false;
        else
            seen[seq[i]] = 1;
    }
    free(seen);
    return ok;
}

static double best_of(const land *l, const size_t *seq, size_t k)
{
    double b = INFINITY;
    for (size_t i = 0; i < k; i++)
        if (!isnan(l->value[seq[i]]) && l->value[seq[i]] < b)
            b = l->value[seq[i]];
    return b;
}

static double optimum(const land *l)
{
    double b = INFINITY;
    for (size_t i = 0; i < l->n; i++)
        if (!isnan(l->value[i]) && l->value[i] < b)
            b = l->value[i];
    return b;
}

static bool randomised(const char *name)
{
    return strcmp(name, "random") == 0 || strcmp(name, "anneal") == 0 ||
           strcmp(name, "genetic") == 0;
}

/* Budget, no repeats, determinism by seed, on the bumpy and failing landscapes. */
static void test_contract(const char *name)
{
    static const int kinds[] = {BUMPY, FAILING};
    for (int ki = 0; ki < 2; ki++) {
        land l = make_land(64, 48, 80, 3, 3, kinds[ki]);
        CHECK(l.n > 400);
        size_t budget = 40, a[40], b[40], c[40];
        size_t na = run(name, &l, budget, 7, a), nb = run(name, &l, budget, 7, b),
               nc = run(name, &l, budget, 8, c);
        CHECK(na <= budget);
        CHECK(distinct(a, na, l.n));
        CHECK(distinct(c, nc, l.n));
        CHECK_INT(na, nb);
        CHECK(memcmp(a, b, na * sizeof *a) == 0);
        if (randomised(name))
            CHECK(na != nc || memcmp(a, c, na * sizeof *a) != 0);
        if (strcmp(name, "model") != 0) /* model may stop early, the others use it all */
            CHECK_INT(na, budget);
        else
            CHECK(na >= 8);
        CHECK(isfinite(best_of(&l, a, na))); /* found something that worked */
        free_land(&l);
    }
}

/* config c with its blocks cut to p */
static sp_config cut(sp_config c, const sp_problem *p)
{
    c.m = c.m > p->M ? (int32_t)p->M : c.m;
    c.n = c.n > p->N ? (int32_t)p->N : c.n;
    c.k = c.k > p->K ? (int32_t)p->K : c.k;
    return c;
}

/* Blocks cut to a problem smaller than the space's: configs that agree once
 * cut run alike, and a search measures one of each kind (all of them when
 * its budget allows, every one but the model's search), never two. */
static void test_kin(const char *name)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    sp_problem small = fx_problem(20, 24, 40, 1, SP_FP16);
    size_t kinds = 0;
    for (size_t i = 0; i < l.n; i++) {
        sp_config c = cut(l.cands[i].config, &small);
        bool first = true;
        for (size_t j = 0; j < i && first; j++) {
            sp_config d = cut(l.cands[j].config, &small);
            first = sp_cmp_config(&c, &d) != 0;
        }
        kinds += first;
    }
    CHECK(kinds > 20 && kinds < l.n / 2);
    size_t *seq = malloc(l.n * sizeof *seq), k = run_cut(name, &l, l.n, 3, &small, seq), twins = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++) {
            sp_config a = cut(l.cands[seq[i]].config, &small), b = cut(l.cands[seq[j]].config, &small);
            twins += sp_cmp_config(&a, &b) == 0;
        }
    CHECK_INT(twins, 0);
    if (strcmp(name, "model") != 0)
        CHECK_INT(k, kinds);
    free(seq);
    free_land(&l);
}

/* A budget beyond the space: every candidate once, then done. */
static void test_exhaustion(const char *name)
{
    land l = make_land(48, 32, 48, 2, 2, BUMPY);
    size_t budget = 1000, *seq = malloc(budget * sizeof *seq);
    size_t k = run(name, &l, budget, 3, seq);
    CHECK(distinct(seq, k, l.n));
    if (strcmp(name, "model") == 0)
        CHECK(k >= 8 && k <= l.n);
    else
        CHECK_INT(k, l.n);
    free(seq);
    free_land(&l);
}

/* Every measurement fails: strategies keep going to the end of the budget. */
static void test_all_failing(const char *name)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    l.fail_all = 1;
    size_t seq[30], k = run(name, &l, 30, 5, seq);
    CHECK_INT(k, 30);
    CHECK(distinct(seq, k, l.n));
    free_land(&l);
}

static void test_exhaustive(void)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    size_t *seq = malloc(l.n * sizeof *seq);
    size_t k = run("exhaustive", &l, l.n, 1, seq);
    CHECK_INT(k, l.n);
    CHECK_DBL(best_of(&l, seq, k), optimum(&l));
    for (size_t i = 1; i < k; i++) /* model order, so a cut keeps the best-ranked */
        if (!CHECK(sp_cmp_time(&l.cands[seq[i - 1]], &l.cands[seq[i]]) < 0))
            break;
    free(seq);
    free_land(&l);
}

/* A blind search (its asks not depending on its tells) asked for its whole
 * budget at once asks what it asks 8 at a time; the others say they are not. */
static void test_blind(const char *name)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    size_t budget = 300, *a = malloc(budget * sizeof *a), *b = malloc(budget * sizeof *b);
    size_t na = run(name, &l, budget, 11, a), nb = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    tn_search_args args = {.cands = l.cands, .n = l.n, .budget = budget, .rng = rng};
    tn_search *s = tn_search_open(name, &args);
    bool blind = strcmp(name, "exhaustive") == 0 || strcmp(name, "random") == 0;
    CHECK_INT(tn_search_blind(s), blind);
    if (blind) {
        nb = tn_search_ask(s, b, budget);
        for (size_t i = 0; i < nb; i++) {
            double v = 0;
            int ok = measure(&l, b[i], &v);
            tn_search_tell(s, b[i], ok, v);
        }
        CHECK_INT(nb, na);
        CHECK(memcmp(a, b, na * sizeof *a) == 0);
    }
    tn_search_close(s);
    gsl_rng_free(rng);
    free(a), free(b);
    free_land(&l);
}

/* A smooth landscape whose optimum the model ranks far down: the climb
 * walks there in few measurements. */
static void test_model_smooth(void)
{
    land l = make_land(128, 96, 160, 3, 3, SMOOTH);
    size_t budget = 60, seq[60];
    size_t k = run("model", &l, budget, 1, seq), first = 0;
    double opt = optimum(&l);
    while (first < k && l.value[seq[first]] != opt)
        first++;
    printf("model: smooth optimum found at measurement %zu of %zu\n", first + 1, k);
    CHECK(first < k);
    CHECK(first >= 8);  /* not in the first batch: the climb found it */
    CHECK(first < 30);
    free_land(&l);
}

/* Where model stops: at once after its climb when the model is exact (every
 * measured / estimated ratio alike), never short of the budget when it ties
 * every candidate that the measurements tell apart. */
static void test_model_stop(void)
{
    land exact = make_land(64, 48, 80, 3, 3, EXACT), tied = make_land(64, 48, 80, 3, 3, TIED);
    size_t budget = 60, seq[60];
    size_t ne = run("model", &exact, budget, 1, seq);
    CHECK(ne >= 8 && ne < budget / 2);
    CHECK_DBL(best_of(&exact, seq, ne), optimum(&exact));
    size_t nt = run("model", &tied, budget, 1, seq);
    CHECK_INT(nt, budget);
    CHECK(distinct(seq, nt, tied.n));
    free_land(&exact);
    free_land(&tied);
}

/* New estimates mid-search: the model's next first batch is the new order's
 * untried head, never one asked before; every strategy takes a rerank. */
static void test_rerank(void)
{
    land l = make_land(64, 48, 80, 3, 3, TIED);
    for (size_t i = 0; i < l.n; i++) /* first rated by config order, 10% apart: the batch
                                       * is the ranking's head, no spread within 5% */
        l.cands[i].fig.est_cycles = 1000 + 100 * (double)i;
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 40};
    tn_search *s = tn_search_open("model", &a);
    size_t idx[8], k = tn_search_ask(s, idx, 8);
    CHECK_INT(k, 8);
    for (size_t i = 0; i < k; i++) {
        CHECK_INT(idx[i], i);
        tn_search_tell(s, idx[i], 0, 0); /* failed: the model climbs nowhere */
    }
    for (size_t i = 0; i < l.n; i++) /* now the reverse */
        l.cands[i].fig.est_cycles = 1000 + 100 * (double)(l.n - i);
    CHECK(tn_search_rerank(s));
    k = tn_search_ask(s, idx, 8);
    CHECK_INT(k, 8);
    for (size_t i = 0; i < k; i++)
        CHECK_INT(idx[i], l.n - 1 - i);
    tn_search_close(s);
    a.rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (const char *const *name = tn_search_names; *name; name++) {
        tn_search *t = tn_search_open(*name, &a);
        CHECK(tn_search_ask(t, idx, 8) > 0 && tn_search_rerank(t));
        tn_search_close(t);
    }
    gsl_rng_free(a.rng);
    CHECK(!tn_search_rerank(NULL));
    free_land(&l);
}

/* The first batch hedges across kernel families: a top of one family
 * gives its last place to the other's best-ranked, outside the band too. */
static void test_model_families(void)
{
    land l = make_land(64, 48, 80, 3, 3, TIED);
    size_t half = l.n / 2, idx[8];
    for (size_t i = 0; i < l.n; i++) {
        l.cands[i].fig.est_cycles = 1000 + (double)i;
        l.cands[i].config.nopack = i < half; /* the top half is one family */
    }
    CHECK(half > 60);
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 40, .band = 0.05};
    tn_search *s = tn_search_open("model", &a);
    size_t k = tn_search_ask(s, idx, 8);
    CHECK_INT(k, 8);
    CHECK_INT(idx[0], 0);
    for (size_t i = 1; i + 1 < k; i++) /* within 5% of the best */
        CHECK(idx[i] <= 50);
    CHECK_INT(idx[7], half);
    for (size_t i = 0; i < k; i++)
        tn_search_tell(s, idx[i], 0, 0); /* failed: the next batch is a first one too */
    size_t again[8];
    k = tn_search_ask(s, again, 8);
    CHECK_INT(k, 8);
    CHECK_INT(again[7], half + 1);
    for (size_t i = 0; i < k; i++)
        CHECK(!tn__in(idx, 8, again[i]));
    tn_search_close(s);
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 1), 1);
    CHECK_INT(idx[0], 0);
    tn_search_close(s);
    for (size_t i = 0; i < l.n; i++) /* the families alternate: both in the band */
        l.cands[i].config.nopack = i % 2;
    s = tn_search_open("model", &a);
    k = tn_search_ask(s, idx, 8);
    CHECK_INT(k, 8);
    for (size_t i = 0; i < k; i++)
        CHECK(idx[i] <= 50);
    tn_search_close(s);
    free_land(&l);
}

/* Distinct values of the batch idx[0..k) summed over six of the axes a
 * first batch spreads over. */
static size_t coverage(const land *l, const size_t *idx, size_t k)
{
    size_t n = 0;
    for (int a = 0; a < 6; a++)
        for (size_t i = 0; i < k; i++) {
            bool first = true;
            for (size_t j = 0; j < i; j++) {
                const sp_config *x = &l->cands[idx[i]].config, *y = &l->cands[idx[j]].config;
                const int32_t u[] = {x->strategy, x->m, x->n, x->k, x->double_buffer, x->cores};
                const int32_t v[] = {y->strategy, y->m, y->n, y->k, y->double_buffer, y->cores};
                first &= u[a] != v[a];
            }
            n += first;
        }
    return n;
}

/* The first batch: the model's best, then the configs within the band of
 * it (5%) that the batch covers the axes with most, one per estimate (a tie
 * within 1e-9 is one); the ranking fills the places the band leaves; with
 * no band, the ranking's head. */
static void test_model_spread(void)
{
    land l = make_land(64, 48, 80, 3, 3, TIED);
    size_t idx[8], plain[8];
    for (size_t i = 0; i < l.n; i++) /* all within the band */
        l.cands[i].fig.est_cycles = 1000 + 1e-3 * (double)i;
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 40, .band = 0.05};
    tn_search *s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    tn_search_close(s);
    for (size_t i = 0; i < 8; i++)
        plain[i] = i;
    CHECK_INT(idx[0], 0);
    printf("first batch covers %zu axis values, the top 8 %zu\n", coverage(&l, idx, 8),
           coverage(&l, plain, 8));
    CHECK(coverage(&l, idx, 8) > coverage(&l, plain, 8) + 6);
    a.band = 0; /* a model as good as the simulator: the ranking's head */
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    for (size_t i = 0; i < 8; i++)
        CHECK_INT(idx[i], i);
    tn_search_close(s);
    a.band = 0.05;
    /* three in the band, 0..2, where 1 ties with 0: 0 and 2, then the ranking */
    for (size_t i = 0; i < l.n; i++)
        l.cands[i].fig.est_cycles = i == 1  ? 1000 * (1 + 1e-12)
                                    : i < 3 ? 1000 + (double)i
                                            : 2000 + (double)i;
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    CHECK_INT(idx[0], 0);
    CHECK_INT(idx[1], 2);
    CHECK_INT(idx[2], 1);
    for (size_t i = 3; i < 8; i++)
        CHECK_INT(idx[i], i);
    tn_search_close(s);
    free_land(&l);
}

/* The script's model's pick, given while the search ranks by other figures:
 * the last place of a first batch that leaves it out, none taken when the
 * batch holds it or has one place, and not asked again once told. */
static void test_model_pick(void)
{
    land l = make_land(64, 48, 80, 3, 3, TIED);
    size_t idx[8], pick = l.n - 1, top = 0;
    for (size_t i = 0; i < l.n; i++) /* the ranking's last is the script's pick */
        l.cands[i].fig.est_cycles = 1000 + (double)i;
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 40, .pick = &pick};
    tn_search *s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    for (size_t i = 0; i < 7; i++)
        CHECK_INT(idx[i], i);
    CHECK_INT(idx[7], pick);
    for (size_t i = 0; i < 8; i++)
        tn_search_tell(s, idx[i], 0, 0); /* all failed: the next batch is a first one */
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    for (size_t i = 0; i < 8; i++)
        CHECK_INT(idx[i], 7 + i);
    tn_search_close(s);
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 1), 1); /* one place: the ranking's top */
    CHECK_INT(idx[0], 0);
    tn_search_close(s);
    a.pick = &top; /* the pick heads the ranking: the plain batch */
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    for (size_t i = 0; i < 8; i++)
        CHECK_INT(idx[i], i);
    tn_search_close(s);
    size_t past = l.n; /* out of range: no pick */
    a.pick = &past;
    s = tn_search_open("model", &a);
    CHECK_INT(tn_search_ask(s, idx, 8), 8);
    CHECK_INT(idx[7], 7);
    tn_search_close(s);
    free_land(&l);
}

static void test_find(void)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    bool all = true;
    for (size_t i = 0; i < l.n; i++)
        all &= tn_search_find(l.cands, l.n, &l.cands[i].config) == i;
    CHECK(all);
    sp_config c = l.cands[0].config;
    c.m = 17;
    CHECK_INT(tn_search_find(l.cands, l.n, &c), (size_t)-1);
    c = l.cands[l.n - 1].config;
    c.split = SP_NSPLIT;
    CHECK_INT(tn_search_find(l.cands, l.n, &c), (size_t)-1);
    CHECK_INT(tn_search_find(l.cands, 0, &l.cands[0].config), (size_t)-1);
    free_land(&l);
}

/* Neighbours are legal, distinct, differ from the config, and reach each axis. */
static void test_neighbours(void)
{
    land l = make_land(64, 48, 80, 3, 3, BUMPY);
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 10};
    tn_search *s = tn_search_open("model", &a);
    CHECK(s != NULL);
    bool ok = true, changed[7] = {0};
    for (size_t i = 0; s && i < l.n; i++) {
        size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, i, nb);
        ok &= distinct(nb, n, l.n) && !tn__in(nb, n, i);
        for (size_t j = 0; j < n; j++) {
            const sp_config *x = &l.cands[i].config, *y = &l.cands[nb[j]].config;
            changed[0] |= x->strategy != y->strategy;
            changed[1] |= x->m != y->m;
            changed[2] |= x->n != y->n;
            changed[3] |= x->k != y->k;
            changed[4] |= x->double_buffer != y->double_buffer;
            changed[5] |= x->cores != y->cores;
            changed[6] |= x->split != y->split;
        }
    }
    CHECK(ok);
    for (int j = 0; j < 7; j++)
        CHECK(changed[j]);
    tn_search_close(s);
    free_land(&l);
}

/* The final's candidates: the fastest ok within the margin, in order, the
 * runner-up even beyond it, then the model's pick when it is ok and not one
 * of them. */
static void test_finalists(void)
{
    const double v[] = {5.0, 1.0, 1.05, 9.0, 1.02, 1.2, 1.08, 0.5};
    const bool ok[] = {true, true, true, true, true, true, true, false};
    size_t n = sizeof v / sizeof v[0], out[5];
    size_t nf = tn_finalists(v, ok, n, 3, 4, 0.10, out); /* pick far behind */
    CHECK_INT(nf, 5);
    CHECK(out[0] == 1 && out[1] == 4 && out[2] == 2 && out[3] == 6 && out[4] == 3);
    nf = tn_finalists(v, ok, n, 2, 4, 0.10, out); /* pick among them: not twice */
    CHECK_INT(nf, 4);
    CHECK(out[0] == 1 && out[1] == 4 && out[2] == 2 && out[3] == 6);
    nf = tn_finalists(v, ok, n, 7, 4, 0.10, out); /* pick failed */
    CHECK_INT(nf, 4);
    CHECK_INT(out[3], 6);
    nf = tn_finalists(v, ok, n, 1, 4, 0.01, out); /* one within 1%: the runner-up joins */
    CHECK_INT(nf, 2);
    CHECK(out[0] == 1 && out[1] == 4);
    nf = tn_finalists(v, ok, n, 0, 4, 0.01, out); /* and the pick */
    CHECK_INT(nf, 3);
    CHECK(out[0] == 1 && out[1] == 4 && out[2] == 0);
    nf = tn_finalists(v, ok, n, 1, 1, 0.10, out); /* room for one: the best alone */
    CHECK_INT(nf, 0);
    const double w[] = {1.0, 3.0, 2.0}; /* the runner-up found after the best */
    const bool all[] = {true, true, true};
    nf = tn_finalists(w, all, 3, 0, 4, 0.10, out);
    CHECK_INT(nf, 2);
    CHECK(out[0] == 0 && out[1] == 2);
    bool none[8] = {false}, one[8] = {false, false, true};
    CHECK_INT(tn_finalists(v, none, n, 0, 4, 0.10, out), 0);
    CHECK_INT(tn_finalists(v, one, n, 2, 4, 0.10, out), 0); /* one ok: nothing to compare */
}

/* A journal's final is whole when every finalist has a row and the rows are
 * consecutive: not after a kill between them, not from two finals. */
static void test_final_whole(void)
{
    const long whole[] = {41, 39, 40}, torn[] = {40, 0, 41}, two[] = {12, 40, 41},
               twice[] = {40, 40, 41};
    CHECK(tn_final_whole(whole, 3));
    CHECK(tn_final_whole(whole, 1));
    CHECK(!tn_final_whole(torn, 3));
    CHECK(!tn_final_whole(two, 3));
    CHECK(!tn_final_whole(twice, 3));
    CHECK(!tn_final_whole(whole, 0));
}

/* Drift between search and final: the largest ratio beyond the factor,
 * either way; failed (0) figures skipped. */
static void test_drift(void)
{
    const double search[] = {1.0, 2.0, 3.0, 4.0}, steady[] = {1.1, 1.9, 3.2, 4.0};
    const double slower[] = {1.1, 20.0, 3.0, 0}, faster[] = {0.5, 2.0, 0.001, 4.0};
    double r;
    CHECK(tn_drift(search, steady, 4, 1.5, &r) == (size_t)-1 && r == 1);
    CHECK(tn_drift(search, slower, 4, 1.5, &r) == 1 && r == 10);
    CHECK(tn_drift(search, faster, 4, 1.5, &r) == 2 && fabs(r - 3000) < 1e-9);
    CHECK(tn_drift(search, faster, 2, 1.5, &r) == 0 && r == 2);
    CHECK_INT(tn_drift(search, faster, 2, 2.5, &r), (size_t)-1);
}

static void test_api(void)
{
    land l = make_land(48, 32, 48, 2, 2, BUMPY);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    tn_search_args a = {.cands = l.cands, .n = l.n, .budget = 20, .rng = rng};
    CHECK(tn_search_open("simplex", &a) == NULL);
    CHECK(tn_search_open(NULL, &a) == NULL);
    CHECK(tn_search_open("Model", &a) == NULL);
    int names = 0;
    for (const char *const *n = tn_search_names; *n; n++, names++) {
        tn_search *s = tn_search_open(*n, &a);
        CHECK(s != NULL);
        size_t idx[DRIVE_BATCH], k = tn_search_ask(s, idx, DRIVE_BATCH);
        CHECK(k >= 1 && k <= DRIVE_BATCH);
        size_t more[DRIVE_BATCH];
        CHECK_INT(tn_search_ask(s, more, DRIVE_BATCH), 0); /* tells pending */
        tn_search_tell(s, l.n + 5, 1, 1.0);                /* never asked: ignored */
        for (size_t i = 0; i < k; i++)
            tn_search_tell(s, idx[i], 1, l.value[idx[i]]);
        tn_search_tell(s, idx[0], 1, 0.5); /* told twice: ignored */
        CHECK(tn_search_ask(s, more, 1) <= 1);
        tn_search_close(s);
    }
    CHECK_INT(names, 5);
    tn_search_close(NULL);
    /* an empty space and a zero budget end at once */
    tn_search_args empty = {.cands = l.cands, .n = 0, .budget = 20, .rng = rng};
    tn_search_args zero = {.cands = l.cands, .n = l.n, .budget = 0, .rng = rng};
    for (const char *const *n = tn_search_names; *n; n++) {
        size_t idx[DRIVE_BATCH];
        tn_search *s = tn_search_open(*n, &empty), *z = tn_search_open(*n, &zero);
        CHECK(s && z);
        CHECK_INT(tn_search_ask(s, idx, DRIVE_BATCH), 0);
        CHECK_INT(tn_search_ask(z, idx, DRIVE_BATCH), 0);
        tn_search_close(s);
        tn_search_close(z);
    }
    gsl_rng_free(rng);
    free_land(&l);
}

int main(void)
{
    for (const char *const *n = tn_search_names; *n; n++) {
        test_contract(*n);
        test_exhaustion(*n);
        test_all_failing(*n);
        test_blind(*n);
        test_kin(*n);
    }
    test_exhaustive();
    test_model_smooth();
    test_model_stop();
    test_model_families();
    test_model_spread();
    test_model_pick();
    test_find();
    test_rerank();
    test_finalists();
    test_final_whole();
    test_drift();
    test_neighbours();
    test_api();
    return CHECK_DONE();
}
