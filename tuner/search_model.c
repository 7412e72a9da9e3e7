/* search_model.c — the model-guided strategies: `model` (the model's top few,
 * then hill climbing over neighbours of the best measured) and `exhaustive`. */
#include <math.h>
#include <stdlib.h>

#include "search_internal.h"

/* The model's best measured first, as one batch for a parallel backend. */
#define FIRST 8

typedef struct {
    size_t next;   /* model-order position before which every index was asked */
    double ratio;  /* lowest measured / estimated so far (+inf before one) */
} model_state;

static bool model_init(tn_search *s)
{
    model_state *m = calloc(1, sizeof *m);
    if (!m)
        return false;
    m->ratio = INFINITY;
    s->impl = m;
    return true;
}

/* The next untried candidates in model order, up to max. */
static size_t ranked(tn_search *s, model_state *m, size_t *idx, size_t max)
{
    size_t k = 0;
    for (; m->next < s->n && k < max; m->next++)
        if (tn__untried(s, s->order[m->next]))
            idx[k++] = s->order[m->next];
    while (m->next < s->n && !tn__untried(s, s->order[m->next]))
        m->next++;
    return k;
}

static size_t model_ask(tn_search *s, size_t *idx, size_t max)
{
    model_state *m = s->impl;
    if (s->ntold == 0 || s->best == TN_NONE) /* the start, or all failed so far */
        return ranked(s, m, idx, max < FIRST ? max : FIRST);
    size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, s->best, nb), k = 0;
    for (size_t j = 0; j < n && k < max; j++)
        if (tn__untried(s, nb[j]))
            idx[k++] = nb[j];
    if (k)
        return k;
    /* A full round of the best's neighbours brought no improvement. Go on
     * down the ranking (climbing again from whatever improves) only while the
     * model, scaled by its most optimistic error seen, says the next one
     * could still beat the best; else stop short of the budget. */
    while (m->next < s->n && !tn__untried(s, s->order[m->next]))
        m->next++;
    if (m->next == s->n ||
        s->cands[s->order[m->next]].fig.est_cycles * m->ratio >= s->value[s->best])
        return 0;
    return ranked(s, m, idx, max < FIRST ? max : FIRST);
}

static void model_tell(tn_search *s, size_t idx, bool ok, double value)
{
    model_state *m = s->impl;
    double est = s->cands[idx].fig.est_cycles;
    if (ok && est > 0 && value / est < m->ratio)
        m->ratio = value / est;
}

static void free_impl(tn_search *s)
{
    free(s->impl);
}

const tn_strategy tn_strategy_model = {"model", model_init, model_ask, model_tell, free_impl};

/* ---- exhaustive: everything, in model order, so a budget cut keeps the best-ranked ---- */

static bool exhaustive_init(tn_search *s)
{
    s->impl = calloc(1, sizeof(model_state));
    return s->impl != NULL;
}

static size_t exhaustive_ask(tn_search *s, size_t *idx, size_t max)
{
    return ranked(s, s->impl, idx, max);
}

const tn_strategy tn_strategy_exhaustive = {"exhaustive", exhaustive_init, exhaustive_ask, NULL,
                                            free_impl};
