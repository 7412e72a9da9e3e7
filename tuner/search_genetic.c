/* search_genetic.c — the `genetic` strategy: a small population, tournament
 * selection, uniform crossover snapped to the legal space, neighbour mutation. */
#include <math.h>
#include <stdlib.h>

#include "search_internal.h"

#define POP 8          /* population, and children per generation */
#define MUTATION 0.4   /* chance a child moves to a random neighbour */

typedef struct {
    size_t pop[POP];  /* the best measured so far, best first */
    size_t npop;
    size_t generation;
} genetic_state;

static bool genetic_init(tn_search *s)
{
    genetic_state *g = calloc(1, sizeof *g);
    if (!s->rng || !g) {
        free(g);
        return false;
    }
    s->impl = g;
    return true;
}

/* The POP best ok measurements (value, then index) into g->pop. */
static void select_population(tn_search *s, genetic_state *g)
{
    g->npop = 0;
    for (size_t t = 0; t < s->ntold; t++) {
        size_t i = s->told[t];
        if (s->value[i] == INFINITY)
            continue;
        size_t j = g->npop < POP ? g->npop++ : POP;
        while (j > 0 && (s->value[g->pop[j - 1]] > s->value[i] ||
                         (s->value[g->pop[j - 1]] == s->value[i] && g->pop[j - 1] > i))) {
            if (j < POP)
                g->pop[j] = g->pop[j - 1];
            j--;
        }
        if (j < POP)
            g->pop[j] = i;
    }
}

/* Binary tournament: the better of two members drawn with replacement. */
static size_t tournament(tn_search *s, const genetic_state *g)
{
    size_t a = gsl_rng_uniform_int(s->rng, g->npop), b = gsl_rng_uniform_int(s->rng, g->npop);
    return g->pop[a < b ? a : b];
}

static size_t child(tn_search *s, const genetic_state *g, const size_t *batch, size_t nbatch)
{
    const sp_config *a = &s->cands[tournament(s, g)].config,
                    *b = &s->cands[tournament(s, g)].config;
    sp_config c = *a; /* the micro-tile stays the first parent's */
#define PICK(f) c.f = gsl_rng_uniform(s->rng) < 0.5 ? a->f : b->f
    PICK(strategy);
    PICK(m);
    PICK(n);
    PICK(k);
    PICK(double_buffer);
    PICK(cores);
    PICK(split);
    PICK(nopack);
#undef PICK
    size_t i = tn_search_find(s->cands, s->n, &c);
    if (i == TN_NONE)
        i = tn__nearest(s, &c, false, NULL, 0);
    if (gsl_rng_uniform(s->rng) < MUTATION) {
        size_t nb[TN_MAX_NEIGHBOURS], n = tn__neighbours(s, i, nb);
        if (n)
            i = nb[gsl_rng_uniform_int(s->rng, n)];
    }
    if (!tn__untried(s, i) || tn__in(batch, nbatch, i))
        i = tn__nearest(s, &s->cands[i].config, true, batch, nbatch);
    return i;
}

static size_t genetic_ask(tn_search *s, size_t *idx, size_t max)
{
    genetic_state *g = s->impl;
    size_t want = max < POP ? max : POP, k = 0;
    if (g->generation++ == 0) /* the model's best half, then random ones */
        for (size_t r = 0; r < s->n && k < (want + 1) / 2; r++)
            idx[k++] = s->order[r];
    else
        select_population(s, g);
    while (k < want) {
        size_t i = g->npop ? child(s, g, idx, k) : tn__random_untried(s, idx, k);
        if (i == TN_NONE)
            break;
        idx[k++] = i;
    }
    return k;
}

static void genetic_fini(tn_search *s)
{
    free(s->impl);
}

const tn_strategy tn_strategy_genetic = {
    .init = genetic_init,
    .ask = genetic_ask,
    .fini = genetic_fini,
};
