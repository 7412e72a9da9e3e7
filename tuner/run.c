/* run.c — `npu-tune SCRIPT.lua`: plans every problem first (legal space, user
 * constraint, model ranking), then measures, journals and writes the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "results.h"
#include "script.h"
#include "tuner.h"

/* What one problem will measure, and what it measured. */
typedef struct {
    const sp_problem *p;
    sp_counts counts;
    int64_t kept;          /* legal configs the constraint kept */
    sp_candidate *cands;   /* best first by the model */
    size_t n;
    ms_measurement *ms;
    long best;             /* index of the best ok measurement, -1 if none */
} plan;

static const char *const searches[] = {"model", NULL};

/* Legal candidates the constraint keeps, ranked by the model; the Lua
 * constraint runs here, on the main thread, after the parallel walk. */
static bool constrained(ls_script *s, const sp_target *t, const sp_problem *p, size_t budget,
                        plan *pl, char *err, size_t errlen)
{
    sp_candidate *all;
    size_t n = sp_enumerate(t, p, ls_space(s), &all, &pl->counts);
    if (n == (size_t)-1) {
        snprintf(err, errlen, "out of memory enumerating %s", p->name);
        return false;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int r = ls_constraint(s, p, &all[i].config, err, errlen);
        if (r < 0) {
            free(all);
            return false;
        }
        if (r)
            all[kept++] = all[i];
    }
    pl->kept = (int64_t)kept;
    sp_sort(all, kept, SP_BY_TIME);
    pl->n = kept < budget ? kept : budget;
    pl->cands = all;
    return true;
}

static bool plan_problem(ls_script *s, size_t i, plan *pl, char *err, size_t errlen)
{
    const sp_target *t = ls_target(s);
    const sp_problem *p = ls_problem(s, i);
    size_t budget = (size_t)ls_tune_get(s)->budget;
    pl->p = p;
    pl->best = -1;
    if (ls_has_constraint(s)) {
        if (!constrained(s, t, p, budget, pl, err, errlen))
            return false;
    } else {
        pl->cands = malloc(budget * sizeof *pl->cands);
        size_t got = pl->cands ? sp_rank_top(t, p, ls_space(s), SP_BY_TIME, budget, pl->cands,
                                             &pl->counts)
                               : (size_t)-1;
        if (got == (size_t)-1) {
            snprintf(err, errlen, "out of memory ranking %s", p->name);
            return false;
        }
        pl->n = got;
        pl->kept = pl->counts.legal;
    }
    const char *where = ls_where(s, "space");
    if (!*where)
        where = ls_problem_where(s, i);
    if (pl->counts.legal == 0) {
        snprintf(err, errlen,
                 "%s: space: no legal config for %s %lldx%lldx%lld on %s (%lld candidates, all "
                 "illegal); see npu-tune model --target %s --shape %lldx%lldx%lld",
                 where, p->name, (long long)p->M, (long long)p->N, (long long)p->K, t->name,
                 (long long)pl->counts.raw, t->name, (long long)p->M, (long long)p->N,
                 (long long)p->K);
        return false;
    }
    if (pl->kept == 0) {
        snprintf(err, errlen, "%s: constraint: rejects all %lld legal configs of %s %lldx%lldx%lld",
                 ls_where(s, "constraint"), (long long)pl->counts.legal, p->name,
                 (long long)p->M, (long long)p->N, (long long)p->K);
        return false;
    }
    return true;
}

static rs_row row_of(const ls_script *s, const ms_backend *b, const plan *pl, size_t i)
{
    rs_row r = {.problem = pl->p, .target = ls_target(s)->name, .cand = &pl->cands[i],
                .backend = b->name, .status = ms_status_name(pl->ms[i].status),
                .measured = pl->ms[i].value, .unit = b->unit};
    return r;
}

/* The index of the best ok measurement of pl, or -1. */
static long best_ok(const plan *pl)
{
    long best = -1;
    for (size_t i = 0; i < pl->n; i++)
        if (pl->ms[i].status == MS_OK && (best < 0 || pl->ms[i].value < pl->ms[best].value))
            best = (long)i;
    return best;
}

/* Measures a planned problem, verifies the winner against a reference when
 * the backend can (a failed check demotes it and the next one is tried),
 * then journals every measurement. */
static bool measure_problem(ls_script *s, ms_backend *b, rs_journal *j, plan *pl, char *err,
                            size_t errlen)
{
    pl->ms = calloc(pl->n ? pl->n : 1, sizeof *pl->ms);
    if (!pl->ms) {
        snprintf(err, errlen, "out of memory measuring %s", pl->p->name);
        return false;
    }
    ms_measure_all(b, ls_target(s), pl->p, pl->cands, pl->n, pl->ms);
    while ((pl->best = best_ok(pl)) >= 0 && b->verify) {
        ms_measurement *m = &pl->ms[pl->best];
        b->verify(b, ls_target(s), pl->p, &pl->cands[pl->best], m);
        if (m->status == MS_OK)
            break;
        tn_error("warning: %s: the best candidate failed verification (%s): %s",
                 pl->p->name, ms_status_name(m->status), m->detail);
    }
    for (size_t i = 0; i < pl->n; i++) {
        rs_row r = row_of(s, b, pl, i);
        if (!rs_journal_append(j, &r, err, errlen))
            return false;
    }
    return true;
}

static void summary(const ls_script *s, const ms_backend *b, const plan *pls, size_t n)
{
    const ls_tune *tu = ls_tune_get(s);
    printf("%-12s %-16s %12s %14s %9s  %-28s %s\n", "problem", "shape", "legal", "raw",
           "measured", "best config", "measured");
    for (size_t i = 0; i < n; i++) {
        const plan *pl = &pls[i];
        const sp_problem *p = pl->p;
        char shape[64], best[96] = "-", value[48] = "all failed";
        int w = snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)p->M,
                         (long long)p->N, (long long)p->K);
        if (p->batch > 1)
            snprintf(shape + w, sizeof shape - (size_t)w, " b%lld", (long long)p->batch);
        if (pl->best >= 0) {
            const sp_config *c = &pl->cands[pl->best].config;
            snprintf(best, sizeof best, "%s %dx%dx%d db=%d cores=%d %s",
                     sp_strategy_name(c->strategy), c->m, c->n, c->k, c->double_buffer,
                     c->cores, sp_split_name(c->split));
            snprintf(value, sizeof value, "%.6g %s", pl->ms[pl->best].value, b->unit);
        }
        printf("%-12s %-16s %12lld %14lld %9zu  %-28s %s\n", p->name, shape,
               (long long)pl->kept, (long long)pl->counts.raw, pl->n, best, value);
    }
    printf("journal: %s\ntable:   %s\n", tu->results, tu->table);
}

static int usage(void)
{
    fprintf(stderr, "usage: npu-tune SCRIPT.lua\n       npu-tune model --target T --shape MxNxK [...]\n"
                    "       npu-tune --help\n");
    return TN_USAGE;
}

int tn_run(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return usage();
    const char *path = argv[1];
    ls_options opts = {.measures = ms_backend_names, .default_measure = "sim",
                       .searches = searches, .default_search = "model"};
    ls_script *s = ls_open(&opts);
    if (!s) {
        tn_error("out of memory starting Lua");
        return TN_ERROR;
    }
    char err[LS_ERR_MAX];
    int rc = TN_ERROR;
    size_t np = 0;
    plan *pls = NULL;
    ms_backend *b = NULL;
    rs_journal *j = NULL;
    rs_row *rows = NULL;
    if (!ls_run_file(s, path, err, sizeof err))
        goto fail;
    np = ls_nproblems(s);
    pls = calloc(np, sizeof *pls);
    if (!pls) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < np; i++)
        if (!plan_problem(s, i, &pls[i], err, sizeof err))
            goto fail;
    const ls_tune *tu = ls_tune_get(s);
    if (!(b = ms_open(tu->measure, err, sizeof err)) ||
        !(j = rs_journal_create(tu->results, err, sizeof err)))
        goto fail;
    rows = calloc(np, sizeof *rows);
    if (!rows) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    size_t nrows = 0;
    for (size_t i = 0; i < np; i++) {
        if (!measure_problem(s, b, j, &pls[i], err, sizeof err))
            goto fail;
        if (pls[i].best >= 0)
            rows[nrows++] = row_of(s, b, &pls[i], (size_t)pls[i].best);
    }
    if (!rs_journal_close(j, err, sizeof err)) {
        j = NULL;
        goto fail;
    }
    j = NULL;
    if (!rs_table_write(tu->table, rows, nrows, err, sizeof err))
        goto fail;
    summary(s, b, pls, np);
    rc = nrows == np ? TN_OK : TN_ERROR;
    if (rc != TN_OK)
        tn_error("%zu of %zu problems have no successful measurement", np - nrows, np);
    goto done;
fail:
    tn_error("%s", err);
done:
    if (j) {
        char ignore[LS_ERR_MAX];
        rs_journal_close(j, ignore, sizeof ignore);
    }
    for (size_t i = 0; pls && i < np; i++) {
        free(pls[i].cands);
        free(pls[i].ms);
    }
    free(pls);
    free(rows);
    ms_close(b);
    ls_close(s);
    return rc;
}
