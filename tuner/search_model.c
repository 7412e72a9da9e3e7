/* search_model.c — the `model` strategy: the model's top few, then hill
 * climbing over neighbours of the best measured, then down the ranking. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "search_internal.h"

/* The model's best measured first, as one batch for a parallel backend. */
#define FIRST 8

typedef struct {
    size_t next;   /* model-order position before which every index was asked */
    double *ratio; /* measured / estimated of the ok measurements, ascending */
    size_t nratio;
} model_state;

static bool model_init(tn_search *s)
{
    model_state *m = calloc(1, sizeof *m);
    double *r = malloc((s->budget ? s->budget : 1) * sizeof *r);
    if (!m || !r) {
        free(m);
        free(r);
        return false;
    }
    m->ratio = r;
    s->impl = m;
    return true;
}

/* Kernel families: the configs of one share the model's error (on a CPU
 * whose prefetchers follow in-place rows worse than the model assumes, every
 * no-pack config is under-charged alike), so that one family can fill the
 * whole top, and the climb from its best never leaves it. */
enum { NFAMILY = 2 };

static int family_of(const sp_config *c)
{
    return c->nopack;
}

/* Estimates this close (relative) are one to the model: a batch measuring
 * two of them learns only the machine's noise (on a CPU the model charges a
 * WS block's rows nothing, so a whole top can differ in m alone). */
#define TIE 1e-9
/* The configs a first batch spreads over: those the model puts within
 * s->band of its best, at most POOL of them. */
#define POOL 1024

/* Whether the estimates of candidates i and j tie. */
static bool tied(const tn_search *s, size_t i, size_t j)
{
    double e = s->cands[i].fig.est_cycles, f = s->cands[j].fig.est_cycles;
    return fabs(e - f) <= TIE * fmax(fabs(e), fabs(f));
}

/* The axes a first batch covers: a config's value on each. */
enum { NAXES = 9 };

static void axes_of(const sp_config *c, int64_t *v)
{
    const int64_t a[NAXES] = {c->strategy, (int64_t)c->mr << 32 | c->nr, c->m, c->n, c->k,
                              c->double_buffer, c->nopack, c->cores, c->split};
    memcpy(v, a, sizeof a);
}

/* How many of candidate i's axis values none of idx[0..k) has. */
static int new_values(const tn_search *s, const size_t *idx, size_t k, size_t i)
{
    int64_t v[NAXES], w[NAXES];
    axes_of(&s->cands[i].config, v);
    bool seen[NAXES] = {false};
    for (size_t j = 0; j < k; j++) {
        axes_of(&s->cands[idx[j]].config, w);
        for (int a = 0; a < NAXES; a++)
            seen[a] |= v[a] == w[a];
    }
    int n = 0;
    for (int a = 0; a < NAXES; a++)
        n += !seen[a];
    return n;
}

/* The first batch: `want` untried from m->next. The model's best, then
 * among the configs within s->band of it (the model's error; one per
 * estimate) the one with the most axis values the batch has not (strategy,
 * micro-tile, m, n, k, double buffering, family, cores, split; the
 * better-ranked on a draw), and so on: where the model cannot tell configs
 * apart, the batch measures how the machine does across them instead of one
 * corner of them. Fewer configs in the band than places: the ranking fills
 * the rest. Configs that run alike (tn__kin_in) take one place. And one
 * place per family the batch leaves out goes to that family's best-ranked
 * (while at least one place is left): its error measured before the climb
 * commits. */
static size_t spread(tn_search *s, model_state *m, size_t *idx, size_t want)
{
    size_t best[NFAMILY], k = 0, npool = 0, pool[POOL];
    for (int f = 0; f < NFAMILY; f++)
        best[f] = TN_NONE;
    double top = NAN;
    for (size_t pos = m->next, found = 0; pos < s->n; pos++) {
        size_t i = s->order[pos];
        if (!tn__untried(s, i))
            continue;
        double e = s->cands[i].fig.est_cycles;
        if (isnan(top))
            top = e;
        bool in_band = npool < POOL && e <= top * (1 + s->band);
        if (!in_band && found == NFAMILY)
            break;
        int f = family_of(&s->cands[i].config);
        if (best[f] == TN_NONE)
            best[f] = i, found++;
        if (in_band && !(npool && tied(s, pool[npool - 1], i)) && /* in model order: a tie
                                                                   * is with the last */
            !tn__kin_in(s, pool, npool, i))
            pool[npool++] = i;
    }
    while (k < want && k < npool) {
        size_t pick = 0;
        int most = -1;
        for (size_t j = 0; j < npool; j++)
            if (!tn__in(idx, k, pool[j])) {
                int n = new_values(s, idx, k, pool[j]);
                if (n > most)
                    most = n, pick = pool[j];
            }
        idx[k++] = pick;
    }
    for (size_t pos = m->next; pos < s->n && k < want; pos++) {
        size_t i = s->order[pos];
        if (tn__untried(s, i) && !tn__kin_in(s, idx, k, i))
            idx[k++] = i;
    }
    bool in[NFAMILY] = {false};
    for (size_t j = 0; j < k; j++)
        in[family_of(&s->cands[idx[j]].config)] = true;
    size_t extra = 0;
    for (int f = 0; f < NFAMILY; f++)
        extra += best[f] != TN_NONE && !in[f];
    if (extra >= k)
        return k;
    k -= extra;
    for (int f = 0; f < NFAMILY; f++)
        if (best[f] != TN_NONE && !in[f])
            idx[k++] = best[f];
    return k;
}

/* The first batch: spread()'s, and the script's model's pick (s->pick)
 * where the search ranks by other figures and spread() leaves it out: it
 * takes the last of two or more places, so that the run's table weighs its
 * best against a measured pick. */
static size_t first_batch(tn_search *s, model_state *m, size_t *idx, size_t want)
{
    size_t k = spread(s, m, idx, want), p = s->pick;
    if (p == TN_NONE || want < 2 || !tn__untried(s, p) || tn__kin_in(s, idx, k, p))
        return k;
    k = spread(s, m, idx, want - 1);
    if (!tn__kin_in(s, idx, k, p))
        idx[k++] = p;
    return k;
}

static size_t model_ask(tn_search *s, size_t *idx, size_t max)
{
    model_state *m = s->impl;
    if (s->ntold == 0 || s->best == TN_NONE) /* the start, or all failed so far */
        return first_batch(s, m, idx, max < FIRST ? max : FIRST);
    size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, s->best, nb), k = 0;
    for (size_t j = 0; j < n && k < max; j++)
        if (tn__untried(s, nb[j]))
            idx[k++] = nb[j];
    if (k)
        return k;
    /* A full round of the best's neighbours brought no improvement. Go on
     * down the ranking (climbing again from whatever improves) only while the
     * next one could still beat the best: its estimate scaled by the lowest
     * measured / estimated ratio seen, made as much lower again as the
     * median ratio is above the lowest (the model's spread so far: a model
     * that ties configs the machine tells apart keeps the search going, an
     * exact one stops it at once); else stop short of the budget. */
    while (m->next < s->n && !tn__untried(s, s->order[m->next]))
        m->next++;
    if (m->next == s->n)
        return 0;
    if (m->nratio > 0) {
        double lo = m->ratio[0], med = gsl_stats_median_from_sorted_data(m->ratio, 1, m->nratio);
        if (s->cands[s->order[m->next]].fig.est_cycles * lo * (lo / med) >= s->value[s->best])
            return 0;
    }
    return tn__ranked(s, &m->next, idx, max < FIRST ? max : FIRST);
}

static void model_tell(tn_search *s, size_t idx, bool ok, double value)
{
    model_state *m = s->impl;
    double est = s->cands[idx].fig.est_cycles;
    if (!ok || !(est > 0) || m->nratio == s->budget)
        return;
    size_t at = m->nratio++; /* insertion keeps the ratios ascending */
    for (; at > 0 && m->ratio[at - 1] > value / est; at--)
        m->ratio[at] = m->ratio[at - 1];
    m->ratio[at] = value / est;
}

/* New estimates: the ranking from its top again (asked ones are skipped),
 * the ratios of what was told made again from them. */
static void model_rerank(tn_search *s)
{
    model_state *m = s->impl;
    m->next = 0;
    m->nratio = 0;
    for (size_t i = 0; i < s->ntold; i++)
        model_tell(s, s->told[i], isfinite(s->value[s->told[i]]), s->value[s->told[i]]);
}

static void free_model(tn_search *s)
{
    model_state *m = s->impl;
    if (m)
        free(m->ratio);
    free(m);
}

const tn_strategy tn_strategy_model = {
    .init = model_init,
    .ask = model_ask,
    .tell = model_tell,
    .fini = free_model,
    .rerank = model_rerank,
};
