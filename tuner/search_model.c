/* search_model.c — the `model` strategy: the model's top few, then hill
 * climbing over neighbours of the best measured, then down the ranking. */
#include <math.h>
#include <stdlib.h>

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

/* The model's top `want` untried from m->next, but for one place per family
 * the top leaves out, given to that family's best-ranked (while at least one
 * place of the top is left): a batch that measures the model's error per
 * family before the climb commits to one. */
static size_t first_batch(tn_search *s, model_state *m, size_t *idx, size_t want)
{
    size_t best[NFAMILY], seen = 0;
    bool in_top[NFAMILY] = {false};
    for (int f = 0; f < NFAMILY; f++)
        best[f] = TN_NONE;
    /* down the ranking until past the top with every family's best found
     * (the whole of it only where a family is absent, as on an NPU) */
    for (size_t pos = m->next, found = 0; pos < s->n && (seen < want || found < NFAMILY); pos++) {
        size_t i = s->order[pos];
        if (!tn__untried(s, i))
            continue;
        int f = family_of(&s->cands[i].config);
        if (best[f] == TN_NONE)
            best[f] = i, found++;
        if (seen++ < want)
            in_top[f] = true;
    }
    size_t extra = 0;
    for (int f = 0; f < NFAMILY; f++)
        extra += best[f] != TN_NONE && !in_top[f];
    if (extra >= want)
        extra = 0;
    size_t k = tn__ranked(s, &m->next, idx, want - extra);
    for (int f = 0; f < NFAMILY && extra; f++)
        if (best[f] != TN_NONE && !in_top[f])
            idx[k++] = best[f];
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
