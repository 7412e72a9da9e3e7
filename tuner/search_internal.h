/* search_internal.h — what the search strategies share: the dispatcher's state
 * (what was asked and told, the best so far) and helpers over the legal space. */
#ifndef NPU_TUNE_SEARCH_INTERNAL_H
#define NPU_TUNE_SEARCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "search.h"

#define TN_NONE ((size_t)-1)
/* Most neighbours a config has (see tn__neighbours). */
#define TN_MAX_NEIGHBOURS 24

/* One strategy, named by its line in search.c's registry: init allocates
 * s->impl (false when memory ran out); ask gets 1 <= max <= what the budget
 * still allows and returns untried indices only (0 = done); tell (optional)
 * runs after the dispatcher has recorded the value; fini frees s->impl. */
typedef struct {
    bool (*init)(tn_search *s);
    size_t (*ask)(tn_search *s, size_t *idx, size_t max);
    void (*tell)(tn_search *s, size_t idx, bool ok, double value);
    void (*fini)(tn_search *s);
    /* Optional: the candidates' estimates changed and s->order was made
     * again from them (tn_search_rerank); whatever the strategy keeps of
     * them is to be made again too. */
    void (*rerank)(tn_search *s);
    /* True when what ask returns never depends on the tells in between
     * (only on the asks before it): the driver may then ask for many at
     * once, which keeps a parallel backend and many workers busy. */
    bool blind;
} tn_strategy;

/* Distinct values of one config axis among the candidates, ascending. */
typedef struct {
    int32_t *v;
    size_t n;
} tn_values;

/* TN_ASK_SAME: never asked, as a config that runs alike (its blocks cut to
 * the problem's dimensions, tn_search_args.clamp) was. */
enum { TN_ASK_UNTRIED, TN_ASK_PENDING, TN_ASK_TOLD, TN_ASK_SAME };

struct tn_search {
    const tn_strategy *st;
    const sp_candidate *cands;
    size_t n;
    size_t budget;          /* min(args budget, n) */
    double band;            /* args band, 0 to 1 */
    size_t pick;            /* args pick, TN_NONE without one */
    gsl_rng *rng;
    unsigned char *state;   /* TN_ASK_* per candidate */
    double *value;          /* told: the value, +inf when it failed */
    size_t *told;           /* indices in the order told (room for budget) */
    size_t nasked, ntold;
    size_t nsame;           /* candidates TN_ASK_SAME */
    size_t best;            /* best ok told index (first told on ties), TN_NONE */
    size_t *order;          /* every index, model order (sp_cmp_time) */
    float *logs;            /* per candidate: log2 of m, n, k, cores */
    size_t *kin;            /* per candidate: the next that runs alike, in a ring (itself
                             * when none does); NULL: no clamp */
    tn_values m, nn, k, cores; /* axis values present among the candidates */
    void *impl;
};

/* True if index i was never asked. */
static inline bool tn__untried(const tn_search *s, size_t i)
{
    return s->state[i] == TN_ASK_UNTRIED;
}

/* Whether candidate i or one that runs alike is among idx[0..k). */
bool tn__kin_in(const tn_search *s, const size_t *idx, size_t k, size_t i);

/* The legal neighbours of candidate i, each differing in one axis: m, n, k
 * one step down/up to the nearest value that is legal with the other axes
 * kept, double buffering flipped, cores down/up, the other splits, the other
 * strategies (k = K for IS/WS), and for tile axes blocked by a buffer, the
 * step up paired with the largest legal value of one other tile axis.
 * Deterministic order, no duplicates; returns how many (<= TN_MAX_NEIGHBOURS). */
size_t tn__neighbours(const tn_search *s, size_t i, size_t *out);

/* The candidate nearest to config c (distance: log2 ratios of m, n, k and
 * cores, 1 for another strategy, 1/2 each for double buffering and split),
 * untried only if asked, skipping the nskip indices in skip; lowest index on
 * ties; TN_NONE if all are excluded. */
size_t tn__nearest(const tn_search *s, const sp_config *c, bool untried_only, const size_t *skip,
                   size_t nskip);

/* The next untried candidates in model order (s->order) from position
 * *next, up to max; *next moves past every asked one. */
size_t tn__ranked(tn_search *s, size_t *next, size_t *idx, size_t max);

/* A uniformly random untried candidate not in skip[0..nskip), or TN_NONE. */
size_t tn__random_untried(tn_search *s, const size_t *skip, size_t nskip);

/* True if i is among a[0..n). */
static inline bool tn__in(const size_t *a, size_t n, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (a[j] == i)
            return true;
    return false;
}

#endif
