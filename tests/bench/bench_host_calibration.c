/* bench_host_calibration.c — the host model before and after calibration, on shapes the
 * fit did not see (tests/bench/host_calibration.sh): ranking, first pick, search speed. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (rounds.h) */
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
#include "rounds.h"

enum { MAXRUNS = 8, MAXROUNDS = 8 };

/* The goals of issue 24 for the host. */
#define GOAL_SPEARMAN 0.85
#define GOAL_PICK 0.05
#define GOAL_PICK_SHARE 0.80
#define WITHIN 0.02

/* A search's runs, one per round. */
typedef struct {
    const char *label;
    rs_cache *cache[MAXROUNDS];
    int rounds;
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

/* Whether e is an ok measurement of the search (not a final's). */
static bool ok_search(const rs_entry *e)
{
    return strcmp(e->status, "ok") == 0 && strcmp(e->round, "search") == 0;
}

/* Whether entry i of c is the first of its problem. */
static bool first_of_problem(const rs_cache *c, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (same_problem(rs_cache_entry(c, j), rs_cache_entry(c, i)))
            return false;
    return true;
}

/* The ok search rows of cache, their estimates on t (cycles). Returns how many. */
static size_t estimated(const rs_cache *cache, const sp_target *t, rs_entry *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (!ok_search(e))
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
           "measurement (as the sample's journal has it; bench_host_anchor's: each config's time\n"
           "over its shape's anchor, timed side by side); pick: how much slower the model's first\n"
           "pick measured than the sample's best (goals: spearman >= %.2f; pick within %.0f%% on\n"
           ">= %.0f%% of shapes)\n\n",
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

/* The figure of search row e: its own measurement, or where timed is given
 * the figure timed has for its config (INFINITY: none, or not ok). */
static double figure(const rs_entry *e, const rs_cache *timed)
{
    if (!ok_search(e))
        return INFINITY;
    if (!timed)
        return e->measured;
    const rs_entry *t = rs_cache_find(timed, &e->problem, &e->config);
    return t && ok_search(t) ? t->measured : INFINITY;
}

/* The best figure of problem p among the search rows of cache (INFINITY: none). */
static double best_of(const rs_cache *cache, const rs_entry *p, const rs_cache *timed)
{
    double best = INFINITY;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (same_problem(e, p) && figure(e, timed) < best)
            best = figure(e, timed);
    }
    return best;
}

/* How many of problem p's search rows of cache, in the order measured, it
 * took until one's figure was within WITHIN of goal (INFINITY: never);
 * *all: the rows. */
static double reach(const rs_cache *cache, const rs_entry *p, double goal, const rs_cache *timed,
                    size_t *all)
{
    size_t k = 0, at = 0;
    for (size_t i = 0; i < rs_cache_size(cache); i++) {
        const rs_entry *e = rs_cache_entry(cache, i);
        if (!same_problem(e, p) || strcmp(e->round, "search") != 0)
            continue;
        k++;
        if (!at && figure(e, timed) <= goal * (1 + WITHIN))
            at = k;
    }
    *all = k;
    return at ? (double)at : INFINITY;
}

/* "12" or "12.5", "-" for INFINITY. */
static const char *count_text(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", v == floor(v) ? 0 : 1, v);
    return buf;
}

/* The search runs: each label's rounds (runs[l].cache[0..rounds)), the
 * labels of one round run back to back. Per shape of the first label's
 * first round and per label, the medians over the rounds of: the
 * measurements to within WITHIN of the run's own final best, of the best of
 * its round (any label's), and the run's best over that best. A figure is
 * the run's own measurement, or with timed (every config the runs measured,
 * timed again side by side with an anchor) the time timed has for it: then
 * the runs are compared across the drift of the machine between them, and
 * the best any run of any round measured is the reference. */
static void searches(const run *runs, int nruns, const rs_cache *timed)
{
    int rounds = runs[0].rounds;
    printf("\nThe model search: measurements until within %.0f%% of the run's own final best / of\n"
           "the best any run of %s measured (-: never), and the run's best over that\n"
           "best; each the median over %d rounds; %s\n\n",
           100 * WITHIN, timed ? "any round" : "its round", rounds,
           timed ? "the figures: every config any run measured\n"
                   "timed again after the searches, side by side with an anchor"
                 : "the figures as each run measured them");
    printf("%-16s", "shape");
    for (int l = 0; l < nruns; l++)
        printf(" %22s", runs[l].label);
    printf("\n");
    enum { MAXCELLS = 64 * MAXROUNDS };
    double own[MAXRUNS][MAXCELLS], any[MAXRUNS][MAXCELLS];
    size_t cells = 0;
    const rs_cache *first = runs[0].cache[0];
    for (size_t i = 0; i < rs_cache_size(first) && cells + MAXROUNDS <= MAXCELLS; i++) {
        const rs_entry *p = rs_cache_entry(first, i);
        if (!first_of_problem(first, i))
            continue;
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(&p->problem, shape, sizeof shape);
        printf("%-16s", shape);
        /* each round's reference: the best of its runs, or of all with timed */
        double ref[MAXROUNDS], all_best = INFINITY;
        for (int r = 0; r < rounds; r++) {
            ref[r] = INFINITY;
            for (int o = 0; o < nruns; o++)
                ref[r] = fmin(ref[r], best_of(runs[o].cache[r], p, timed));
            all_best = fmin(all_best, ref[r]);
        }
        for (int r = 0; r < rounds && timed; r++)
            ref[r] = all_best;
        for (int l = 0; l < nruns; l++) {
            double a[MAXROUNDS], b[MAXROUNDS], ratio[MAXROUNDS];
            size_t all = 0;
            for (int r = 0; r < rounds; r++) {
                const rs_cache *c = runs[l].cache[r];
                double best = best_of(c, p, timed);
                own[l][cells + (size_t)r] = a[r] = reach(c, p, best, timed, &all);
                any[l][cells + (size_t)r] = b[r] = reach(c, p, ref[r], timed, &all);
                ratio[r] = best / ref[r];
            }
            char cell[64], x[16], y[16];
            snprintf(cell, sizeof cell, "%s/%s of %zu, %.3f",
                     count_text(bench_sorted_median(a, (size_t)rounds), x, sizeof x),
                     count_text(bench_sorted_median(b, (size_t)rounds), y, sizeof y), all,
                     bench_sorted_median(ratio, (size_t)rounds));
            printf(" %22s", cell);
        }
        printf("\n");
        cells += (size_t)rounds;
    }
    printf("\nmedian over the shapes and rounds of the measurements to within %.0f%% (own best / "
           "the best\nany run measured; -: most never got there), against %s's (goal: %s's half)\n",
           100 * WITHIN, runs[0].label, runs[0].label);
    double base[2] = {NAN, NAN};
    for (int l = 0; l < nruns; l++) {
        char text[2][48];
        double *v[2] = {own[l], any[l]};
        for (int k = 0; k < 2; k++) {
            double med = bench_sorted_median(v[k], cells);
            if (l == 0)
                base[k] = med;
            if (isfinite(med) && isfinite(base[k]))
                snprintf(text[k], sizeof text[k], "%5.1f (%.2fx)", med, med / base[k]);
            else if (isfinite(med)) /* the first never got there: no ratio */
                snprintf(text[k], sizeof text[k], "%5.1f", med);
            else
                snprintf(text[k], sizeof text[k], "%5s", "-");
        }
        printf("  %-22s %s / %s\n", runs[l].label, text[0], text[1]);
    }
}

/* The sample against itself: for each shape, its configs measured again
 * (AGAIN.csv, the same random configs in a later run), the Spearman of the
 * two measurements, the median |log| of their ratio about its median (the
 * noise of one config's figure once the drift is taken out) and the ceiling:
 * what a model that knew every config's true time would score against one
 * measurement, the square root of the retest's Spearman (Spearman's own
 * correction for attenuation: each run's noise is independent of the other's
 * and of the truth), so a goal above it is out of any model's reach. */
static void retest(const rs_cache *sample, const rs_cache *again)
{
    size_t n = rs_cache_size(sample);
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y),
           *d = malloc((n ? n : 1) * sizeof *d), *work = malloc((2 * n + 1) * sizeof *work);
    if (!x || !y || !d || !work)
        fail("out of memory");
    printf("\nThe measurement against itself: each shape's configs measured again in a later run;\n"
           "spearman of the two measurements; ceiling: what a model that knew every config's\n"
           "true time would score against one of them, the square root of that (the noise of\n"
           "each run is its own); noise: the median |log| of a config's ratio between the runs\n"
           "about the median ratio; drift: that median ratio (of every config's time, or of the\n"
           "anchor's where it is timed beside one)\n\n");
    printf("%-16s %5s %12s %8s %8s %8s\n", "shape", "pairs", "rho_retest", "ceiling", "noise",
           "drift");
    size_t good = 0, reach = 0, shapes = 0;
    for (size_t i = 0; i < n; i++) {
        const rs_entry *p = rs_cache_entry(sample, i);
        if (!first_of_problem(sample, i))
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++) {
            const rs_entry *e = rs_cache_entry(sample, j), *f;
            if (same_problem(e, p) && ok_search(e) &&
                (f = rs_cache_find(again, &e->problem, &e->config)) && ok_search(f)) {
                x[k] = e->measured, y[k] = f->measured;
                k++;
            }
        }
        if (k < 3)
            continue;
        shapes++;
        double rho = gsl_stats_spearman(x, 1, y, 1, k, work);
        for (size_t j = 0; j < k; j++)
            work[j] = y[j] / x[j];
        double drift = bench_sorted_median(work, k);
        for (size_t j = 0; j < k; j++)
            d[j] = fabs(log(y[j] / x[j] / drift));
        double ceiling = rho > 0 ? sqrt(rho) : 0;
        good += rho >= GOAL_SPEARMAN;
        reach += ceiling >= GOAL_SPEARMAN;
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(&p->problem, shape, sizeof shape);
        printf("%-16s %5zu %12.3f %8.3f %7.1f%% %8.3f\n", shape, k, rho, ceiling,
               100 * bench_sorted_median(d, k), drift);
    }
    printf("\nthe measurement against itself: spearman >= %.2f on %zu of %zu shapes; the ceiling "
           "of any model\nreaches the goal (spearman >= %.2f) on %zu of %zu\n",
           GOAL_SPEARMAN, good, shapes, GOAL_SPEARMAN, reach, shapes);
    free(x), free(y), free(d), free(work);
}

int main(int argc, char **argv)
{
    /* the options after SAMPLE.csv, then the labels */
    const char *again = NULL, *timed_path = NULL;
    int first_run = 3;
    while (first_run + 1 < argc && strncmp(argv[first_run], "--", 2) == 0) {
        if (strcmp(argv[first_run], "--retest") == 0)
            again = argv[first_run + 1];
        else if (strcmp(argv[first_run], "--searched") == 0)
            timed_path = argv[first_run + 1];
        else
            break;
        first_run += 2;
    }
    if (argc < 3 || (first_run < argc && strncmp(argv[first_run], "--", 2) == 0)) {
        fprintf(stderr,
                "usage: bench_host_calibration CALIBRATED.lua|host SAMPLE.csv [--retest AGAIN.csv]\n"
                "                              [--searched TIMED.csv]\n"
                "                              [LABEL=SEARCH.csv[,SEARCH.csv...]...]\n"
                "  SAMPLE.csv: random host configs of shapes the fit did not see (bench_host_anchor\n"
                "  times them beside an anchor), estimated on target \"host\" and on\n"
                "  CALIBRATED.lua (host: the same again); AGAIN.csv: the same configs measured\n"
                "  again; each LABEL's SEARCH.csv a model search of some of them per round (the\n"
                "  labels of a round run back to back), the first label the one the others are\n"
                "  compared with; TIMED.csv: every config the searches measured, timed again side\n"
                "  by side (bench_host_anchor), whose figures then judge the searches\n");
        return 2;
    }
    gsl_set_error_handler_off();
    char err[1024];
    hs_info h;
    sp_target t[2];
    hs_detect(&h);
    hs_target(&h, &t[0]); /* target "host": this machine's, as a run detects it */
    if (strcmp(argv[1], "host") == 0)
        t[1] = t[0];
    else if (!ls_builtin_target(argv[1], &t[1], err, sizeof err))
        fail(err);
    rs_cache *sample, *second = NULL, *timed = NULL;
    if (!rs_journal_read(argv[2], true, &sample, err, sizeof err) ||
        (again && !rs_journal_read(again, true, &second, err, sizeof err)) ||
        (timed_path && !rs_journal_read(timed_path, true, &timed, err, sizeof err)))
        fail(err);
    const char *const name[] = {"default figures:", "calibrated figures:"};
    ranking(sample, t, name);
    if (second)
        retest(sample, second);

    run runs[MAXRUNS];
    int nruns = 0;
    for (int i = first_run; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || nruns == MAXRUNS) {
            fprintf(stderr, "bench_host_calibration: '%s': expected LABEL=SEARCH.csv[,...] (at "
                    "most %d labels)\n", argv[i], MAXRUNS);
            return 2;
        }
        *eq = '\0';
        run *r = &runs[nruns++];
        *r = (run){.label = argv[i]};
        for (char *path = strtok(eq + 1, ","); path; path = strtok(NULL, ",")) {
            if (r->rounds == MAXROUNDS)
                fail("too many rounds");
            if (!rs_journal_read(path, true, &r->cache[r->rounds], err, sizeof err))
                fail(err);
            r->rounds++;
        }
        if (r->rounds == 0 || r->rounds != runs[0].rounds)
            fail("every label needs as many journals (rounds) as the first");
    }
    if (nruns)
        searches(runs, nruns, timed);
    for (int l = 0; l < nruns; l++)
        for (int r = 0; r < runs[l].rounds; r++)
            rs_cache_free(runs[l].cache[r]);
    rs_cache_free(sample);
    rs_cache_free(second);
    rs_cache_free(timed);
    return 0;
}
