/* search_anneal.c — the `anneal` strategy: simulated annealing over the
 * neighbour graph of the legal space, on log(value), cooling over the budget. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

#include "search_internal.h"

/* Temperatures on log(value): at the start a move 3% worse is accepted half
 * the time, at the end a move 1% worse one time in a hundred. */
#define T_START (0.03 / 0.6931471805599453)
#define T_END (0.01 / 4.605170185988092)
/* Proposals per ask (annealing is sequential; a few keep a backend busy). */
#define BATCH 4
/* Steps through measured neighbours before jumping to a random candidate. */
#define WALK 32

typedef struct {
    size_t cur;   /* the walk's state, TN_NONE before the first tell */
    double cur_e; /* its energy */
} anneal_state;

static double energy(double v)
{
    return v > 0 ? log(v) : -INFINITY;
}

static double temperature(const tn_search *s)
{
    double frac = s->budget > 1 ? (double)s->ntold / (double)(s->budget - 1) : 1;
    if (frac > 1)
        frac = 1;
    return T_START * pow(T_END / T_START, frac);
}

/* Metropolis: a move to energy e from the current state. */
static bool accept(tn_search *s, const anneal_state *a, double e)
{
    if (e <= a->cur_e)
        return true;
    if (isinf(e))
        return false;
    return gsl_rng_uniform(s->rng) < exp(-(e - a->cur_e) / temperature(s));
}

static bool anneal_init(tn_search *s)
{
    anneal_state *a = calloc(1, sizeof *a);
    if (!s->rng || !a) {
        free(a);
        return false;
    }
    a->cur = TN_NONE;
    s->impl = a;
    return true;
}

/* Up to max untried neighbours of the current state, in random order. */
static size_t proposals(tn_search *s, const anneal_state *a, size_t *idx, size_t max)
{
    size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, a->cur, nb), k = 0;
    for (size_t j = 0; j < n; j++)
        if (tn__untried(s, nb[j]))
            nb[k++] = nb[j];
    if (k > 1)
        gsl_ran_shuffle(s->rng, nb, k, sizeof *nb);
    if (k > max)
        k = max;
    for (size_t j = 0; j < k; j++)
        idx[j] = nb[j];
    return k;
}

static size_t anneal_ask(tn_search *s, size_t *idx, size_t max)
{
    anneal_state *a = s->impl;
    if (a->cur == TN_NONE) { /* start from the model's best */
        idx[0] = s->order[0];
        return 1;
    }
    if (max > BATCH)
        max = BATCH;
    for (int w = 0; w < WALK; w++) {
        size_t k = proposals(s, a, idx, max);
        if (k)
            return k;
        /* every neighbour measured: move through them at no cost */
        size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, a->cur, nb);
        if (n == 0)
            break;
        size_t j = nb[gsl_rng_uniform_int(s->rng, n)];
        if (accept(s, a, energy(s->value[j])))
            a->cur = j, a->cur_e = energy(s->value[j]);
    }
    idx[0] = tn__random_untried(s, NULL, 0); /* a jump, judged like any move */
    return idx[0] != TN_NONE;
}

static void anneal_tell(tn_search *s, size_t idx, bool ok, double value)
{
    (void)ok;
    anneal_state *a = s->impl;
    double e = energy(value);
    if (a->cur == TN_NONE || accept(s, a, e))
        a->cur = idx, a->cur_e = e;
}

static void anneal_fini(tn_search *s)
{
    free(s->impl);
}

const tn_strategy tn_strategy_anneal = {
    .init = anneal_init,
    .ask = anneal_ask,
    .tell = anneal_tell,
    .fini = anneal_fini,
};
