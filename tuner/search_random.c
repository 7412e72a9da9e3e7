/* search_random.c — the `random` strategy: candidates drawn uniformly without
 * replacement (a Fisher-Yates shuffle drawn lazily from the driver's gsl_rng). */
#include <stdlib.h>

#include "search_internal.h"

typedef struct {
    size_t *perm; /* perm[0..drawn) are the draws so far */
    size_t drawn;
} random_state;

static bool random_init(tn_search *s)
{
    if (!s->rng)
        return false;
    random_state *r = calloc(1, sizeof *r);
    if (!r || !(r->perm = malloc((s->n ? s->n : 1) * sizeof *r->perm))) {
        free(r);
        return false;
    }
    for (size_t i = 0; i < s->n; i++)
        r->perm[i] = i;
    s->impl = r;
    return true;
}

static size_t random_ask(tn_search *s, size_t *idx, size_t max)
{
    random_state *r = s->impl;
    size_t k = 0;
    while (k < max && r->drawn < s->n) {
        size_t j = r->drawn + gsl_rng_uniform_int(s->rng, s->n - r->drawn);
        size_t t = r->perm[j];
        r->perm[j] = r->perm[r->drawn];
        r->perm[r->drawn++] = t;
        if (tn__untried(s, t) && !tn__kin_in(s, idx, k, t)) /* not one that runs alike */
            idx[k++] = t;
    }
    return k;
}

static void random_fini(tn_search *s)
{
    random_state *r = s->impl;
    if (r)
        free(r->perm);
    free(r);
}

const tn_strategy tn_strategy_random = {
    .init = random_init,
    .ask = random_ask,
    .fini = random_fini,
    .blind = true,
};
