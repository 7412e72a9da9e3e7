/* search_exhaustive.c — the `exhaustive` strategy: every legal candidate, in
 * model order, so that a budget cut keeps the best-ranked. */
#include <stdlib.h>

#include "search_internal.h"

static bool exhaustive_init(tn_search *s)
{
    s->impl = calloc(1, sizeof(size_t)); /* the model-order position reached */
    return s->impl != NULL;
}

static size_t exhaustive_ask(tn_search *s, size_t *idx, size_t max)
{
    return tn__ranked(s, s->impl, idx, max);
}

static void exhaustive_fini(tn_search *s)
{
    free(s->impl);
}

const tn_strategy tn_strategy_exhaustive = {
    .init = exhaustive_init,
    .ask = exhaustive_ask,
    .fini = exhaustive_fini,
    .blind = true,
};
