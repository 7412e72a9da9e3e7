/* bench_coordinator.c — the ceiling of an MPI run's rank 0: the workers answer
 * with the model backend (a microsecond of work: a no-op measurement) while
 * rank 0 hands out candidates and journals every result, as a run does.
 * Results per second and bytes on the wire per candidate, with the whole
 * batch handed out at once and in steps of TN_BATCH, as a search asks.
 * Run under mpirun with 2 or more ranks: mpirun -n 3 bench_coordinator [N]. */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "search.h"
#include "workers.h"

extern const tn_transport nt_mpi_transport; /* tuner/mpi.c */

/* The transport, counting the bytes rank 0 sends and receives. */
static double sent, received;
static void count_send(int to, const void *buf, size_t len)
{
    sent += (double)len;
    nt_mpi_transport.send(to, buf, len);
}
static size_t count_recv(int *from, unsigned char **buf, size_t *cap)
{
    size_t len = nt_mpi_transport.recv(from, buf, cap);
    received += (double)len;
    return len;
}

typedef struct {
    rs_journal *j;
    const sp_problem *p;
    const sp_candidate *c;
    size_t base;
    bool ok;
} sink;

static void journal(void *ctx, size_t i, const ms_measurement *m, const char *node)
{
    sink *s = ctx;
    rs_row row = {.problem = s->p, .target = "ascend910", .cand = &s->c[s->base + i],
                  .backend = "model", .status = ms_status_name(m->status),
                  .measured = m->value, .unit = "cycles", .node = node};
    char err[256];
    if (s->ok && !rs_journal_append(s->j, &row, err, sizeof err)) {
        fprintf(stderr, "bench_coordinator: %s\n", err);
        s->ok = false;
    }
}

#define REPS 5

int main(int argc, char **argv)
{
    tn_transport counting = nt_mpi_transport;
    counting.send = count_send;
    counting.recv = count_recv;
    tn_workers *w;
    int rc;
    if (!tn_workers_join(&counting, &w, &rc))
        return rc;
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 200000;
    char dir[] = "/tmp/bench-coordinator-XXXXXX", path[256], err[LS_ERR_MAX];
    if (!w || !mkdtemp(dir) || n == 0) {
        fprintf(stderr, "bench_coordinator: run it under mpirun with 2 or more ranks\n");
        tn_workers_close(w);
        return 1;
    }
    snprintf(path, sizeof path, "%s/s.lua", dir);
    FILE *f = fopen(path, "w");
    fputs("target \"ascend910\"\nmatmul { name = \"b\", shapes = { {4096, 4096, 4096} } }\n"
          "space { double_buffer = { false, true } }\ntune { measure = \"model\" }\n", f);
    fclose(f);
    ls_options lo = {.measures = ms_backend_names, .default_measure = "model",
                     .searches = tn_search_names, .default_search = tn_search_names[0]};
    tn_session r = {.workers = w, .script = ls_open(&lo)};
    sp_candidate *legal = NULL, *c = malloc(n * sizeof *c);
    sp_counts counts;
    size_t nl = 0;
    bool ok = r.script && c && ls_run_file(r.script, path, err, sizeof err) &&
              (nl = sp_enumerate(ls_target(r.script), ls_problem(r.script, 0),
                                 ls_space(r.script), &legal, &counts)) != (size_t)-1 &&
              nl > 0 && (r.backend = ms_open("model", NULL, err, sizeof err));
    rs_signature sig = {.version = "0", .target = "ascend910", .target_sig = "0000000000000000",
                        .space_sig = "0000000000000000", .measure = "model"};
    ms_settings set = {0};
    tn_node_name(r.node, sizeof r.node);
    rs_cache *none = NULL;
    snprintf(path, sizeof path, "%s/setup.csv", dir);
    ok = ok && (r.journal = rs_journal_open(path, &sig, &none, err, sizeof err)) &&
         tn_workers_setup(&r, &set, err, sizeof err) && rs_journal_close(r.journal, err, sizeof err);
    rs_cache_free(none);
    unlink(path);
    strcat(path, ".sig");
    unlink(path);
    for (size_t i = 0; ok && i < n; i++) /* the legal space, over and over */
        c[i] = legal[i % nl];
    ms_measurement *out = malloc(n * sizeof *out);
    printf("%zu candidates (the legal space of 4096x4096x4096 on ascend910, %zu configs, "
           "cycled), each result journaled; median of %d runs\n",
           n, nl, REPS);
    printf("| handed out | results/s | bytes out per candidate | bytes back per candidate |\n"
           "|---|---|---|---|\n");
    size_t steps[] = {n, TN_BATCH};
    for (size_t s = 0; ok && out && s < 2; s++) {
        double rate[REPS];
        for (int rep = 0; ok && rep < REPS; rep++) {
            snprintf(path, sizeof path, "%s/j%zu-%d.csv", dir, s, rep);
            rs_cache *cache = NULL;
            sink k = {.j = rs_journal_open(path, &sig, &cache, err, sizeof err),
                      .p = ls_problem(r.script, 0), .c = c, .ok = true};
            rs_cache_free(cache);
            ok = k.j != NULL;
            sent = received = 0;
            double t0 = bs_now();
            for (k.base = 0; ok && k.base < n; k.base += steps[s]) {
                size_t m = n - k.base < steps[s] ? n - k.base : steps[s];
                tn_measure(&r, k.p, c + k.base, m, out + k.base, journal, &k);
            }
            rate[rep] = (double)n / (bs_now() - t0);
            ok = ok && k.ok && rs_journal_close(k.j, err, sizeof err);
            unlink(path);
            strcat(path, ".sig");
            unlink(path);
        }
        gsl_sort(rate, 1, REPS);
        if (ok)
            printf("| %s | %.3g | %.1f | %.1f |\n", s ? "8 at a time (a search's step)" : "all at once",
                   gsl_stats_median_from_sorted_data(rate, 1, REPS), sent / (double)n,
                   received / (double)n);
    }
    if (!ok)
        fprintf(stderr, "bench_coordinator: %s\n", err);
    snprintf(path, sizeof path, "%s/s.lua", dir);
    unlink(path);
    rmdir(dir);
    free(out), free(c), free(legal);
    ms_close(r.backend);
    ls_close(r.script);
    tn_workers_close(w);
    return ok ? 0 : 1;
}
