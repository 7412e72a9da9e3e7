/* rank.h — how well estimates rank measurements (bench_rank): Spearman over the
 * measured candidates and among the fastest of them, and the regret of the
 * estimates' pick. A failed measurement takes no part in any of them. */
#ifndef NPU_TUNE_BENCH_RANK_H
#define NPU_TUNE_BENCH_RANK_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

typedef struct {
    size_t measured; /* candidates measured ok */
    double rho;      /* Spearman of estimate and measurement over them (NaN: fewer than 2) */
    double rho_top;  /* the same among the `top` fastest of them */
    double regret;   /* how much slower the estimates' pick measured than the fastest
                      * (0.05: 5%); NaN when the pick failed or nothing was measured */
    size_t pick;     /* the candidate the estimates rank first, measured or not */
} rank_score;

/* Scores estimates est[i] against measurements meas[i], i < n, of which only
 * those with ok[i] were measured; top is how many of the fastest rho_top
 * takes. False when memory ran out. */
static inline bool rank_score_of(const double *est, const double *meas, const bool *ok, size_t n,
                                 size_t top, rank_score *out)
{
    double *e = malloc((n ? n : 1) * sizeof *e), *m = malloc((n ? n : 1) * sizeof *m),
           *work = malloc((n ? 4 * n : 1) * sizeof *work);
    size_t *order = malloc((n ? n : 1) * sizeof *order), k = 0;
    bool ok_mem = e && m && work && order;
    *out = (rank_score){.rho = NAN, .rho_top = NAN, .regret = NAN};
    for (size_t i = 0; ok_mem && i < n; i++) {
        if (est[i] < est[out->pick])
            out->pick = i;
        if (ok[i])
            e[k] = est[i], m[k++] = meas[i];
    }
    out->measured = k;
    if (ok_mem && k >= 2)
        out->rho = gsl_stats_spearman(e, 1, m, 1, k, work);
    if (ok_mem && k >= 1) {
        gsl_sort_index(order, m, 1, k);
        if (top > k)
            top = k;
        double *te = work + 2 * n, *tm = work + 3 * n;
        for (size_t i = 0; i < top; i++)
            te[i] = e[order[i]], tm[i] = m[order[i]];
        if (top >= 2)
            out->rho_top = gsl_stats_spearman(te, 1, tm, 1, top, work);
        if (ok[out->pick])
            out->regret = meas[out->pick] / m[order[0]] - 1;
    }
    free(e), free(m), free(work), free(order);
    return ok_mem;
}

#endif
