/* bench_host_calibration.c — the host model before and after calibration, on shapes the
 * fit did not see (tests/bench/host_calibration.sh): ranking, first pick, search speed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "host.h"
#include "results.h"
#include "script.h"

enum { MAXRUNS = 8 };

/* The goals of issue 24 for the host. */
#define GOAL_SPEARMAN 0.85
#define GOAL_PICK 0.05
#define GOAL_PICK_SHARE 0.80
#define WITHIN 0.02

typedef struct {
    const char *label, *path;
    rs_cache *cache;
} run;

static void fail(const char *what)
{
    fprintf(stderr, "bench_host_calibration: %s\n", what);
    exit(1);
}

/* Whether a and b are the same problem (name, op, shape, batch, dtype). */
static bool same_problem(const rs_entry *a, const rs_entry *b)
{
    return sp_problem_cmp(&a->problem, &b->problem, true) == 0;
}

/* The ok search rows of cache, their estimates on t (cycles). Returns how many. */
static size_t estimated(const rs_cache *cache, const sp_target *t, rs_entry *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (strcmp(e->status, "ok") != 0 || strcmp(e->round, "search") != 0)
            continue;
        sp_figures f;
        out[n] = *e;
        sp_model(t, &e->problem, &e->config, &f);
        out[n].est_cycles = f.est_cycles;
        out[n].line = (long)n + 2;
        n++;
    }
    return n;
}

/* The model's ranking of the sample against its measurements, per shape, on
 * each of the targets t[0..2); counts the shapes that meet the goals. */
static void ranking(const rs_cache *sample, const sp_target *t, const char *const *name)
{
    size_t n = rs_cache_size(sample);
    rs_entry *rows = malloc((n ? n : 1) * sizeof *rows);
    rs_report r[2];
    char err[1024];
    if (!rows)
        fail("out of memory");
    for (int k = 0; k < 2; k++) {
        size_t m = estimated(sample, &t[k], rows);
        if (!rs_report_rows(rows, m, "the sample", &r[k], err, sizeof err))
            fail(err);
    }
    printf("The model's ranking of the sample (shapes not in the fit): spearman of estimate and\n"
           "measurement; pick: how much slower the model's first pick measured than the sample's\n"
           "best (goals: spearman >= %.2f; pick within %.0f%% on >= %.0f%% of shapes)\n\n",
           GOAL_SPEARMAN, 100 * GOAL_PICK, 100 * GOAL_PICK_SHARE);
    printf("%-16s %5s %12s %12s %10s %10s\n", "shape", "rows", "rho_default", "rho_calib",
           "pick_def", "pick_cal");
    size_t good_rho[2] = {0, 0}, good_pick[2] = {0, 0}, shapes = r[0].ngroups;
    double *rv[2] = {malloc((shapes ? shapes : 1) * sizeof(double)),
                     malloc((shapes ? shapes : 1) * sizeof(double))};
    if (!rv[0] || !rv[1])
        fail("out of memory");
    for (size_t g = 0; g < shapes; g++) {
        const rs_report_group *a = &r[0].group[g], *b = &r[1].group[g];
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(&a->problem, shape, sizeof shape);
        printf("%-16s %5zu %12.3f %12.3f %9.1f%% %9.1f%%\n", shape, a->fig.rows, a->fig.spearman,
               b->fig.spearman, 100 * a->fig.regret, 100 * b->fig.regret);
        const rs_fidelity *f[2] = {&a->fig, &b->fig};
        for (int k = 0; k < 2; k++) {
            good_rho[k] += f[k]->spearman >= GOAL_SPEARMAN;
            good_pick[k] += f[k]->regret <= GOAL_PICK;
            rv[k][g] = f[k]->spearman;
        }
    }
    printf("\n");
    for (int k = 0; k < 2; k++) {
        gsl_sort(rv[k], 1, shapes);
        printf("%-22s spearman >= %.2f on %zu of %zu shapes (median %.3f); pick within %.0f%% "
               "on %zu of %zu (goal: %.0f%%)\n",
               name[k], GOAL_SPEARMAN, good_rho[k], shapes,
               shapes ? gsl_stats_median_from_sorted_data(rv[k], 1, shapes) : NAN, 100 * GOAL_PICK,
               good_pick[k], shapes, 100 * GOAL_PICK_SHARE);
    }
    for (int k = 0; k < 2; k++) {
        rs_report_free(&r[k]);
        free(rv[k]);
    }
    free(rows);
}

/* The best measured of problem p among the search rows of cache (INFINITY: none). */
static double best_of(const rs_cache *cache, const rs_entry *p)
{
    double best = INFINITY;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (same_problem(e, p) && strcmp(e->status, "ok") == 0 &&
            strcmp(e->round, "search") == 0 && e->measured < best)
            best = e->measured;
    }
    return best;
}

/* How many of problem p's search rows of cache, in the order measured, it
 * took until one was within WITHIN of goal (0: never); *all: the rows. */
static size_t reach(const rs_cache *cache, const rs_entry *p, double goal, size_t *all)
{
    size_t k = 0, at = 0;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (!same_problem(e, p) || strcmp(e->round, "search") != 0)
            continue;
        k++;
        if (!at && strcmp(e->status, "ok") == 0 && e->measured <= goal * (1 + WITHIN))
            at = k;
    }
    *all = k;
    return at;
}

/* The search runs side by side: per shape of the first, the measurements
 * each took to come within WITHIN of its own final best and of the best any
 * run or the sample measured. */
static void searches(const run *runs, int nruns, const rs_cache *sample)
{
    printf("\nThe model search: measurements until within %.0f%% of the run's own final best / of\n"
           "the best measured of the shape by any run or the sample (-: never), and the run's\n"
           "best over that best\n\n",
           100 * WITHIN);
    printf("%-16s", "shape");
    for (int r = 0; r < nruns; r++)
        printf(" %22s", runs[r].label);
    printf("\n");
    double own[MAXRUNS][64], any[MAXRUNS][64];
    size_t shapes = 0;
    const rs_cache *first = runs[0].cache;
    for (size_t i = 0; i < rs_cache_size(first); i++) {
        const rs_entry *p = rs_cache_entry(first, i);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_problem(rs_cache_entry(first, j), p);
        if (seen || shapes == 64)
            continue;
        shapes++;
        double ref = sample ? best_of(sample, p) : INFINITY;
        for (int r = 0; r < nruns; r++) {
            double b = best_of(runs[r].cache, p);
            ref = b < ref ? b : ref;
        }
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(&p->problem, shape, sizeof shape);
        printf("%-16s", shape);
        for (int r = 0; r < nruns; r++) {
            size_t all, a = reach(runs[r].cache, p, best_of(runs[r].cache, p), &all);
            size_t b = reach(runs[r].cache, p, ref, &all);
            char cell[64], bs[24] = "-";
            if (b)
                snprintf(bs, sizeof bs, "%zu", b);
            snprintf(cell, sizeof cell, "%zu/%s of %zu, %.3f", a, bs, all,
                     best_of(runs[r].cache, p) / ref);
            printf(" %22s", cell);
            own[r][shapes - 1] = a ? (double)a : INFINITY;
            any[r][shapes - 1] = b ? (double)b : INFINITY;
        }
        printf("\n");
    }
    printf("\nmedian over the shapes of the measurements to within %.0f%% (own best / any run's "
           "best; -: most never got there), against %s's\n", 100 * WITHIN, runs[0].label);
    double base[2] = {NAN, NAN};
    for (int r = 0; r < nruns; r++) {
        double med[2];
        char text[2][48];
        double *v[2] = {own[r], any[r]};
        for (int k = 0; k < 2; k++) {
            gsl_sort(v[k], 1, shapes);
            med[k] = shapes ? gsl_stats_median_from_sorted_data(v[k], 1, shapes) : NAN;
            if (r == 0)
                base[k] = med[k];
            if (isfinite(med[k]))
                snprintf(text[k], sizeof text[k], "%5.1f (%.2fx)", med[k], med[k] / base[k]);
            else
                snprintf(text[k], sizeof text[k], "%5s", "-");
        }
        printf("  %-22s %s / %s\n", runs[r].label, text[0], text[1]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr,
                "usage: bench_host_calibration CALIBRATED.lua SAMPLE.csv LABEL=SEARCH.csv...\n"
                "  SAMPLE.csv: random host configs of shapes the fit did not see, estimated on\n"
                "  target \"host\" and on CALIBRATED.lua; each SEARCH.csv a model search of some\n"
                "  of them, the first the one the others are compared with\n");
        return 2;
    }
    gsl_set_error_handler_off();
    char err[1024];
    hs_info h;
    sp_target t[2];
    hs_detect(&h);
    hs_target(&h, &t[0]); /* target "host": this machine's, as a run detects it */
    if (!ls_builtin_target(argv[1], &t[1], err, sizeof err))
        fail(err);
    rs_cache *sample;
    if (!rs_journal_read(argv[2], true, &sample, err, sizeof err))
        fail(err);
    const char *const name[] = {"default figures:", "calibrated figures:"};
    ranking(sample, t, name);

    run runs[MAXRUNS];
    int nruns = 0;
    for (int i = 3; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || nruns == MAXRUNS) {
            fprintf(stderr, "bench_host_calibration: '%s': expected LABEL=SEARCH.csv (at most %d)\n",
                    argv[i], MAXRUNS);
            return 2;
        }
        runs[nruns] = (run){.label = argv[i], .path = eq + 1};
        argv[i][eq - argv[i]] = '\0';
        if (!rs_journal_read(runs[nruns].path, true, &runs[nruns].cache, err, sizeof err))
            fail(err);
        nruns++;
    }
    searches(runs, nruns, sample);
    for (int r = 0; r < nruns; r++)
        rs_cache_free(runs[r].cache);
    rs_cache_free(sample);
    return 0;
}
