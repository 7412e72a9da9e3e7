/* search.h — search strategies over one problem's legal space, as ask/tell:
 * a strategy proposes candidates, the driver measures (or finds them in the journal). */
#ifndef NPU_TUNE_SEARCH_H
#define NPU_TUNE_SEARCH_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stddef.h>

#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

/* What a strategy searches: every legal candidate of one problem (after the
 * user's constraint), sorted by sp_cmp_config, with the model's figures. */
typedef struct {
    const sp_candidate *cands;
    size_t n;
    size_t budget;   /* at most this many tells will happen */
    gsl_rng *rng;    /* seeded by the driver; the only source of randomness */
    double band;     /* the model's error (sp_kind_info.model_error): configs estimated
                      * within this share of the best are alike to it; 0: only ties */
    const sp_problem *clamp; /* CPU: the problem, whose kernels cut each block to the rows,
                              * columns and depth there are, so that configs differing only
                              * in blocks past them run alike: the search measures one of
                              * them; NULL: every config is its own */
    const size_t *pick;      /* NULL, or a candidate the model strategy's first batch holds
                              * whatever the ranking: the script's model's pick, while the
                              * search ranks by figures refitted to the run's measurements */
} tn_search_args;

typedef struct tn_search tn_search;

/* Names of the strategies, NULL-terminated, in the order of the registry
 * (search.c); the first is the default. */
extern const char *const tn_search_names[];

/* A strategy by name over a; NULL if the name is unknown or memory ran out. */
tn_search *tn_search_open(const char *name, const tn_search_args *a);

/* Up to max indices into a->cands to measure next, never one asked before.
 * Returns 0 when the strategy is done (it may finish before the budget).
 * The same sequence of asks and tells gives the same answers. */
size_t tn_search_ask(tn_search *s, size_t *idx, size_t max);

/* The measurement of an asked index: value (lower is better), or
 * ok = 0 when it failed (wrong, timeout, crash, illegal). Every asked index
 * is told exactly once, in the order asked, before the next ask. */
void tn_search_tell(tn_search *s, size_t idx, int ok, double value);

void tn_search_close(tn_search *s);

/* True when the search's asks do not depend on its tells (exhaustive,
 * random): asking for many at once then asks what asking a few at a time
 * would, in the same order. */
bool tn_search_blind(const tn_search *s);

/* The model's estimates of the candidates changed: the caller refitted the
 * model and wrote its figures into the array a->cands pointed to (configs
 * and their order unchanged). The untried candidates are ranked by them
 * from now on, as if the search had started with them; what was asked and
 * told stands. False if memory ran out (the old order stands). */
bool tn_search_rerank(tn_search *s);

/* The final's candidates into out[0..most]: the fastest ok values (up to
 * `most`, in order, none more than `margin` above the best but the
 * runner-up, which always joins), then the model's pick when it is ok and
 * not among them. Returns how many, or 0 when fewer than two ok values
 * (nothing to compare side by side). */
size_t tn_finalists(const double *value, const bool *ok, size_t n, size_t pick, size_t most,
                    double margin, size_t *out);

/* Whether line[0..n), the journal lines of a final's rows (one per
 * finalist, 0: none), are one whole final's: every finalist has a row and
 * the rows are consecutive (a final journals its rows one after another).
 * Not so when a run was killed between them, or when they come from two
 * finals (a rerun with a larger budget held another). */
bool tn_final_whole(const long *line, size_t n);

/* Where the machine's speed changed between the search and the final: the
 * index i < n whose final[i] / search[i] (or its inverse, whichever is
 * above 1) is largest and above `factor`, with that ratio in *ratio; else
 * (size_t)-1. Figures that are not positive are skipped. */
size_t tn_drift(const double *search, const double *final, size_t n, double factor, double *ratio);

/* Index of config c in a sorted candidate array, or (size_t)-1. */
size_t tn_search_find(const sp_candidate *cands, size_t n, const sp_config *c);

#pragma GCC visibility pop

#endif
