/* bench_host_model.c — how well the host model ranks what was measured: reads a host journal
 * (e.g. of tests/bench/host_sample.lua), re-estimates every ok row with today's model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "csv.h"
#include "host.h"

enum { MAXROWS = 100000, MAXGROUPS = 64, NBIN = 4 };

/* One measured row: its group (shape, dtype, cores), seconds, the estimate
 * the journal holds (the model of the binary that measured it) and today's,
 * double buffering, and the packed B block as a fraction of L2. */
typedef struct {
    int group;
    double measured, est_then, est_now, b_of_l2;
    int db;
} row;

typedef struct {
    sp_problem p;
    int cores, n;
} group;

static row rows[MAXROWS];
static group groups[MAXGROUPS];
static int nrows, ngroups;

/* The group of (p, cores), added when new; -1 when there are too many. */
static int group_of(const sp_problem *p, int cores)
{
    for (int g = 0; g < ngroups; g++)
        if (groups[g].p.M == p->M && groups[g].p.N == p->N && groups[g].p.K == p->K &&
            groups[g].p.batch == p->batch && groups[g].p.dtype == p->dtype &&
            groups[g].cores == cores)
            return g;
    if (ngroups == MAXGROUPS)
        return -1;
    groups[ngroups] = (group){*p, cores, 0};
    return ngroups++;
}

/* One row of a journal: an ok host measurement of the search (one per
 * candidate) is estimated on the target ctx points to and kept. */
static bool journal_row(void *ctx, const char *const *v, const char *path, int lineno)
{
    const sp_target *t = ctx;
    if (strcmp(v[14], "ok") != 0 || strcmp(v[16], "s") != 0 || strcmp(v[17], "search") != 0)
        return true; /* failed candidates; other backends' rows; the final's re-measurements */
    char spec[256];
    snprintf(spec, sizeof spec, "%s %s %s %s %s %s %s %s", v[5], v[6], v[7], v[8], v[9], v[10],
             v[11], v[12]);
    sp_problem p = {.M = atoll(v[0]), .N = atoll(v[1]), .K = atoll(v[2]), .batch = atoll(v[3])};
    int dtype = sp_dtype_parse(v[4]);
    sp_config c;
    if (dtype < 0 || !csv_config(spec, &c) || p.M < 1 || p.N < 1 || p.K < 1 || p.batch < 1) {
        fprintf(stderr, "bench_host_model: %s:%d: cannot read the row\n", path, lineno);
        return false;
    }
    p.dtype = (sp_dtype)dtype;
    snprintf(p.name, sizeof p.name, "row%d", lineno);
    int g = group_of(&p, c.cores);
    if (g < 0 || nrows == MAXROWS) {
        fprintf(stderr, "bench_host_model: %s: more than %d shapes or %d rows\n", path,
                MAXGROUPS, MAXROWS);
        return false;
    }
    sp_figures fig;
    sp_model(t, &p, &c, &fig);
    int64_t n = c.n < p.N ? c.n : p.N, kc = c.k < p.K ? c.k : p.K;
    int64_t nc = (n + c.nr - 1) / c.nr * c.nr; /* whole micro-tiles, as the kernel */
    rows[nrows++] = (row){.group = g, .measured = atof(v[15]), .est_then = atof(v[13]),
                          .est_now = fig.est_cycles, .db = c.double_buffer,
                          .b_of_l2 = (double)(kc * nc * 4) / (double)t->cpu.cache[SP_CL2]};
    groups[g].n++;
    return true;
}

/* Reads the ok rows of the journal at path, estimating each on t. */
static bool load(const char *path, sp_target *t)
{
    static const char *const need[] = {"M", "N", "K", "batch", "dtype", "strategy", "m", "n",
                                       "k", "double_buffer", "cores", "split", "micro",
                                       "est_cycles", "status", "measured", "unit", "round"};
    return csv_read(path, "bench_host_model", need, sizeof need / sizeof need[0], journal_row, t);
}

/* The median of v[0..n) (sorted in place), 0 when n is 0. */
static double median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* How much slower the config the estimates e rank first measured than the
 * fastest measured, in percent. */
static double pick_gap(const double *e, const double *m, size_t n)
{
    size_t best = 0, fastest = 0;
    for (size_t i = 1; i < n; i++) {
        if (e[i] < e[best])
            best = i;
        if (m[i] < m[fastest])
            fastest = i;
    }
    return 100.0 * (m[best] / m[fastest] - 1.0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_host_model JOURNAL.csv\n"
                        "  a journal of measure = \"host\" (e.g. of tests/bench/host_sample.lua)\n");
        return 2;
    }
    gsl_set_error_handler_off();
    hs_info h;
    sp_target t;
    hs_detect(&h);
    hs_target(&h, &t);
    if (!load(argv[1], &t))
        return 1;

    static double m[MAXROWS], then[MAXROWS], now[MAXROWS], work[2 * MAXROWS];
    static double ratio[2][MAXROWS], bins[NBIN][MAXROWS];
    size_t nbin[NBIN] = {0};
    printf("Spearman rank correlation of estimated and measured time, and how much slower\n"
           "the model's first pick measured than the fastest (the journal's estimates: the\n"
           "model that measured it; now: this build's model)\n\n");
    printf("%-16s %6s %5s %13s %12s %12s %11s %9s\n", "shape", "cores", "rows", "spearman_then",
           "spearman_now", "pick_then_%", "pick_now_%", "db1/db0");
    for (int g = 0; g < ngroups; g++) {
        size_t n = 0, nd[2] = {0, 0};
        for (int i = 0; i < nrows; i++)
            if (rows[i].group == g) {
                m[n] = rows[i].measured, then[n] = rows[i].est_then, now[n] = rows[i].est_now;
                ratio[rows[i].db][nd[rows[i].db]++] = rows[i].measured / rows[i].est_now;
                n++;
            }
        if (n < 3)
            continue;
        double rho_then = gsl_stats_spearman(then, 1, m, 1, n, work);
        double rho_now = gsl_stats_spearman(now, 1, m, 1, n, work);
        double gap_then = pick_gap(then, m, n), gap_now = pick_gap(now, m, n);
        /* measured/estimated: each row against the shape's median, so the
         * double-buffering and L2 figures pool over shapes */
        double all[MAXROWS];
        for (size_t i = 0; i < n; i++)
            all[i] = m[i] / now[i];
        double mid = median(all, n);
        double db = nd[0] && nd[1] ? median(ratio[1], nd[1]) / median(ratio[0], nd[0]) : 0;
        for (int i = 0; i < nrows; i++)
            if (rows[i].group == g) {
                int b = (int)(rows[i].b_of_l2 * NBIN);
                b = b < 0 ? 0 : b >= NBIN ? NBIN - 1 : b;
                bins[b][nbin[b]++] = rows[i].measured / rows[i].est_now / mid;
            }
        char shape[64];
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)groups[g].p.M,
                 (long long)groups[g].p.N, (long long)groups[g].p.K);
        printf("%-16s %6d %5zu %13.3f %12.3f %12.1f %11.1f ", shape, groups[g].cores, n,
               rho_then, rho_now, gap_then, gap_now);
        if (db > 0)
            printf("%9.3f\n", db);
        else
            printf("%9s\n", "-");
    }
    printf("\nmeasured/estimated, relative to each shape's median, by the packed B block's\n"
           "share of L2 (%lld bytes):\n",
           (long long)t.cpu.cache[SP_CL2]);
    for (int b = 0; b < NBIN; b++)
        printf("  B block %.2f-%s of L2: %4zu rows, median %.3f\n", (double)b / NBIN,
               b == NBIN - 1 ? "    " : (const char *[]){"0.25", "0.50", "0.75"}[b], nbin[b],
               median(bins[b], nbin[b]));
    return 0;
}
