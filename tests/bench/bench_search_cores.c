/* bench_search_cores.c — the model search on a multi-core space against the exhaustive
 * optimum: reads a journal of tests/bench/search_cores.lua, re-estimates every config. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (rounds.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "csv.h"
#include "fixtures.h"
#include "search.h"
#include "search_drive.h"
#include "rounds.h"

enum { MAXSHAPES = 64, MAXROWS = 400000, NCORES = 6 };
static const int core_counts[NCORES] = {1, 2, 4, 8, 16, 32};

/* One journal row: its shape, config, simulated cycles (0: failed) and the
 * estimate the journal holds (the model of the binary that measured it). */
typedef struct {
    int shape, line;
    sp_config c;
    double cycles, est_then;
} row;

typedef struct {
    long M, N, K;
} shape;

static row rows[MAXROWS];
static shape shapes[MAXSHAPES];
static int nrows, nshapes;

static int shape_of(long M, long N, long K)
{
    for (int s = 0; s < nshapes; s++)
        if (shapes[s].M == M && shapes[s].N == N && shapes[s].K == K)
            return s;
    if (nshapes == MAXSHAPES)
        return -1;
    shapes[nshapes] = (shape){M, N, K};
    return nshapes++;
}

/* One journal row: a search row of fp16 batch 1 on the simulator. Rows of a
 * config seen before (a resumed run's) replace it. */
static bool journal_row(void *ctx, const char *const *v, const char *path, int lineno)
{
    (void)ctx;
    if (strcmp(v[12], "search") != 0)
        return true;
    int st = sp_strategy_parse(v[5]), sp = sp_split_parse(v[11]);
    if (strcmp(v[3], "1") != 0 || strcmp(v[4], "fp16") != 0 || strcmp(v[15], "sim") != 0 ||
        st < 0 || sp < 0) {
        fprintf(stderr, "bench_search_cores: %s:%d: not a row of search_cores.lua\n", path,
                lineno);
        return false;
    }
    int s = shape_of(atol(v[0]), atol(v[1]), atol(v[2]));
    if (s < 0 || nrows == MAXROWS) {
        fprintf(stderr, "bench_search_cores: %s: more than %d shapes or %d rows\n", path,
                MAXSHAPES, MAXROWS);
        return false;
    }
    row r = {.shape = s, .line = lineno,
             .c = {.m = atoi(v[6]), .n = atoi(v[7]), .k = atoi(v[8]), .cores = atoi(v[10]),
                   .strategy = (uint8_t)st, .double_buffer = (uint8_t)(atoi(v[9]) != 0),
                   .split = (uint8_t)sp},
             .cycles = strcmp(v[14], "ok") == 0 ? atof(v[13]) : 0,
             .est_then = atof(v[16])};
    rows[nrows++] = r;
    return true;
}

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->shape != y->shape)
        return x->shape < y->shape ? -1 : 1;
    int c = sp_cmp_config(&x->c, &y->c);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

typedef struct {
    const double *cycles;
} lookup_ctx;

static int lookup(void *ctx, size_t idx, double *value)
{
    const lookup_ctx *l = ctx;
    *value = l->cycles[idx];
    return l->cycles[idx] > 0;
}

/* Per core count (then the OS configs that split the reduction): est/sim of
 * the journal's estimates and of today's. */
static double *ratio[2][NCORES + 1];
static size_t nratio[NCORES + 1];

static int core_slot(int cores)
{
    for (int i = 0; i < NCORES; i++)
        if (core_counts[i] == cores)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_search_cores JOURNAL.csv\n"
                        "  a journal of tests/bench/search_cores.lua (every legal config "
                        "simulated)\n");
        return 2;
    }
    gsl_set_error_handler_off();
    static const char *const need[] = {"M", "N", "K", "batch", "dtype", "strategy", "m", "n",
                                       "k", "double_buffer", "cores", "split", "round",
                                       "measured", "status", "backend", "est_cycles"};
    if (!csv_read(argv[1], "bench_search_cores", need, sizeof need / sizeof *need, journal_row,
                  NULL))
        return 1;
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_row);
    int kept = 0; /* a config once, its last row */
    for (int i = 0; i < nrows; i++) {
        const row *last = kept ? &rows[kept - 1] : NULL;
        if (last && last->shape == rows[i].shape && !sp_cmp_config(&last->c, &rows[i].c))
            kept--;
        rows[kept++] = rows[i];
    }
    nrows = kept;
    bool mem = true;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i <= NCORES; i++)
            mem &= (ratio[p][i] = malloc((size_t)(nrows ? nrows : 1) * sizeof **ratio)) != NULL;
    sp_target t = fx_ascend910();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937); /* the model search draws nothing */
    if (!mem || !rng) {
        fprintf(stderr, "bench_search_cores: out of memory\n");
        return 1;
    }
    int met_search = 0, met_pick = 0, met_pick_then = 0;
    printf("%-15s %6s %6s %8s %10s %6s %9s %6s %10s\n", "shape", "legal", "budget", "measured",
           "search_gap", "within", "pick_gap", "within", "pick_then");
    for (int s = 0, at = 0; s < nshapes; s++) {
        int lo = at;
        while (at < nrows && rows[at].shape == s)
            at++;
        size_t n = (size_t)(at - lo);
        sp_problem p = fx_problem(shapes[s].M, shapes[s].N, shapes[s].K, 1, SP_FP16);
        sp_candidate *cands = malloc(n * sizeof *cands);
        double *cycles = malloc(n * sizeof *cycles);
        size_t budget = n / 100 ? n / 100 : 1, *seq = malloc(budget * sizeof *seq);
        if (!cands || !cycles || !seq) {
            fprintf(stderr, "bench_search_cores: out of memory\n");
            return 1;
        }
        double opt = INFINITY;
        size_t pick = 0, pick_then = 0;
        for (size_t i = 0; i < n; i++) {
            const row *r = &rows[lo + (int)i];
            cands[i].config = r->c;
            if (sp_check(&t, &p, &r->c)) {
                fprintf(stderr, "bench_search_cores: %s: a config of %ldx%ldx%ld is illegal "
                                "today\n", argv[1], shapes[s].M, shapes[s].N, shapes[s].K);
                return 1;
            }
            sp_model(&t, &p, &r->c, &cands[i].fig);
            cycles[i] = r->cycles;
            if (r->cycles > 0 && r->cycles < opt)
                opt = r->cycles;
            if (sp_cmp_time(&cands[i], &cands[pick]) < 0)
                pick = i;
            if (r->est_then < rows[lo + (int)pick_then].est_then)
                pick_then = i;
            int slot = core_slot(r->c.cores);
            if (r->cycles > 0 && slot >= 0) {
                ratio[0][slot][nratio[slot]] = r->est_then / r->cycles;
                ratio[1][slot][nratio[slot]++] = cands[i].fig.est_cycles / r->cycles;
                if (r->c.strategy == SP_OS && r->c.k < sp_pad(p.K, 16)) {
                    ratio[0][NCORES][nratio[NCORES]] = r->est_then / r->cycles;
                    ratio[1][NCORES][nratio[NCORES]++] = cands[i].fig.est_cycles / r->cycles;
                }
            }
        }
        tn_search_args a = {.cands = cands, .n = n, .budget = budget, .rng = rng};
        tn_search *srch = tn_search_open("model", &a);
        if (!srch) {
            fprintf(stderr, "bench_search_cores: out of memory\n");
            return 1;
        }
        lookup_ctx l = {cycles};
        size_t told = drive(srch, budget, lookup, &l, seq);
        tn_search_close(srch);
        double best = INFINITY;
        for (size_t i = 0; i < told; i++)
            if (cycles[seq[i]] > 0 && cycles[seq[i]] < best)
                best = cycles[seq[i]];
        double gap = best / opt - 1;
        double pg = cycles[pick] > 0 ? cycles[pick] / opt - 1 : INFINITY;
        double pt = cycles[pick_then] > 0 ? cycles[pick_then] / opt - 1 : INFINITY;
        bool within = gap <= 0.01 && told <= budget;
        met_search += within;
        met_pick += pg <= 0.01;
        met_pick_then += pt <= 0.01;
        char name[48];
        snprintf(name, sizeof name, "%ldx%ldx%ld", shapes[s].M, shapes[s].N, shapes[s].K);
        printf("%-15s %6zu %6zu %8zu %9.2f%% %6s %8.2f%% %6s %9.2f%%\n", name, n, budget, told,
               100 * gap, within ? "yes" : "no", 100 * pg, pg <= 0.01 ? "yes" : "no", 100 * pt);
        free(seq);
        free(cycles);
        free(cands);
    }
    printf("\nmodel search within 1%% of the optimum, measuring <= 1%% of the legal space: "
           "%d/%d shapes (goal >= 95%%: %s)\n",
           met_search, nshapes, met_search >= 0.95 * nshapes ? "met" : "NOT met");
    printf("the model's first pick within 1%%: %d/%d shapes (goal >= 90%%: %s); with the "
           "journal's estimates: %d/%d\n",
           met_pick, nshapes, met_pick >= 0.9 * nshapes ? "met" : "NOT met", met_pick_then,
           nshapes);
    printf("\nestimate / simulated cycles over every config (then: the journal's estimates; "
           "now: this build's model)\n");
    printf("%-10s %7s %10s %9s %10s %9s %10s %9s\n", "configs", "rows", "bias_then", "bias_now",
           "p10_then", "p10_now", "p90_then", "p90_now");
    for (int i = 0; i <= NCORES; i++) {
        size_t k = nratio[i];
        if (!k)
            continue;
        double p10[2], p90[2];
        for (int p = 0; p < 2; p++) {
            gsl_sort(ratio[p][i], 1, k);
            p10[p] = gsl_stats_quantile_from_sorted_data(ratio[p][i], 1, k, 0.1);
            p90[p] = gsl_stats_quantile_from_sorted_data(ratio[p][i], 1, k, 0.9);
        }
        char what[32];
        if (i < NCORES)
            snprintf(what, sizeof what, "cores=%d", core_counts[i]);
        else
            snprintf(what, sizeof what, "OS k<K");
        printf("%-10s %7zu %10.3f %9.3f %10.3f %9.3f %10.3f %9.3f\n", what, k,
               bench_sorted_median(ratio[0][i], k), bench_sorted_median(ratio[1][i], k), p10[0],
               p10[1], p90[0], p90[1]);
    }
    for (int p = 0; p < 2; p++)
        for (int i = 0; i <= NCORES; i++)
            free(ratio[p][i]);
    gsl_rng_free(rng);
    return 0;
}
