/* run.c — `npu-tune SCRIPT.lua`: plans every problem (legal space, user
 * constraint), then searches each within its budget, journaling as it goes. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "codegen.h"
#include "internal.h"
#include "measure.h"
#include "results.h"
#include "script.h"
#include "search.h"
#include "workers.h"

/* The final (backends that have one): the best TN_FINALISTS candidates of
 * the search, at most TN_FINAL_MARGIN slower than its best, and the model's
 * pick are timed again side by side. */
enum { TN_FINALISTS = 4, TN_FINAL_MAX = TN_FINALISTS + 1 };
#define TN_FINAL_MARGIN 0.10
/* A kernel this many times faster or slower in the final than in the search
 * means the machine's speed changed between them (another load, a frequency
 * step): worth a warning, as either figure may be off. */
#define TN_DRIFT_FACTOR 1.5

/* One problem: its legal space, what was measured, the winner. */
typedef struct {
    const sp_problem *p;
    sp_counts counts;
    sp_candidate *cands;   /* legal and kept by the constraint, config order */
    size_t n;
    ms_measurement *ms;    /* per candidate; status MS_NSTATUS = not measured */
    size_t measured, failed, resumed;
    long best;             /* index of the best verified measurement, -1 if none */
    long pick;             /* the model's pick (lowest est_cycles) */
    size_t fin[TN_FINAL_MAX], nfin; /* the candidates the final measured, if any */
} plan;

/* The legal candidates the constraint keeps (the Lua constraint runs here,
 * on the main thread, after the parallel walk). */
static bool plan_problem(ls_script *s, size_t i, plan *pl, char *err, size_t errlen)
{
    const sp_target *t = ls_target(s);
    const sp_problem *p = ls_problem(s, i);
    pl->p = p;
    pl->best = -1;
    size_t n = sp_enumerate(t, p, ls_space(s), &pl->cands, &pl->counts);
    if (n == (size_t)-1) {
        snprintf(err, errlen, "out of memory enumerating %s", p->name);
        return false;
    }
    const char *where = *ls_where(s, "space") ? ls_where(s, "space") : ls_problem_where(s, i);
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    const char *q = strchr(shape, ' ') ? "'" : ""; /* quoted for the shell if need be */
    if (n == 0) {
        snprintf(err, errlen,
                 "%s: space: no legal config for %s %s on %s (%lld candidates, all illegal); see "
                 "npu-tune model --target %s%s%s --shape %s%s%s",
                 where, p->name, shape, t->name, (long long)pl->counts.raw, t->name,
                 p->op ? " --op " : "", p->op ? sp_op_name(p->op) : "", q, shape, q);
        return false;
    }
    size_t kept = n;
    if (ls_has_constraint(s)) {
        kept = 0;
        for (size_t j = 0; j < n; j++) {
            int r = ls_constraint(s, p, &pl->cands[j].config, err, errlen);
            if (r < 0)
                return false;
            if (r)
                pl->cands[kept++] = pl->cands[j];
        }
        if (kept == 0) {
            snprintf(err, errlen, "%s: constraint: rejects all %zu legal configs of %s %s",
                     ls_where(s, "constraint"), n, p->name, shape);
            return false;
        }
    }
    pl->n = kept;
    pl->ms = calloc(kept, sizeof *pl->ms);
    if (!pl->ms) {
        snprintf(err, errlen, "out of memory planning %s", p->name);
        return false;
    }
    pl->pick = 0;
    for (size_t j = 0; j < kept; j++) {
        pl->ms[j].status = MS_NSTATUS;
        if (sp_cmp_time(&pl->cands[j], &pl->cands[pl->pick]) < 0)
            pl->pick = (long)j;
    }
    return true;
}

/* Signatures: a journal resumes only for the same target figures, the same
 * problems and legal spaces (after the constraint), the same backend, and
 * where the target's kind signs them (CPUs), the same generated kernels. */
static bool sign(const ls_script *s, const char *script, const plan *pls, size_t np,
                 rs_signature *sig)
{
    const sp_target *t = ls_target(s);
    const ls_tune *tu = ls_tune_get(s);
    char target[SP_SIGNATURE_MAX], *text = NULL;
    size_t len = 0;
    memset(sig, 0, sizeof *sig);
    bs_hash_hex(target, sp_target_signature(t, target), sig->target_sig);
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return false;
    for (size_t i = 0; i < np; i++) {
        const sp_problem *p = pls[i].p;
        fprintf(f, "%s %s %lld %lld %lld %lld", p->name, sp_dtype_name(p->dtype),
                (long long)p->M, (long long)p->N, (long long)p->K, (long long)p->batch);
        /* problems of the default op sign as they did before ops; another op
         * adds its name and dimensions */
        const sp_op *o = sp_op_get(p->op);
        if (p->op)
            fprintf(f, " %s", o->name);
        for (int d = 0; p->op && d < o->ndims; d++)
            fprintf(f, " %lld", (long long)p->dims[d]);
        fputc(':', f);
        for (size_t j = 0; j < pls[i].n; j++) {
            const sp_config *c = &pls[i].cands[j].config;
            fprintf(f, " %d %d %d %d %d %d %d", c->strategy, c->m, c->n, c->k,
                    c->double_buffer, c->cores, c->split);
            if (c->mr || c->nr)
                fprintf(f, "/%dx%d", c->mr, c->nr);
            if (c->nopack) /* packing configs sign as they did before the family */
                fputs("/nopack", f);
        }
        fputc('\n', f);
    }
    fclose(f);
    bs_hash_hex(text, len, sig->space_sig);
    free(text);
    cg_batch *b = malloc((np ? np : 1) * sizeof *b);
    if (!b)
        return false;
    for (size_t i = 0; i < np; i++)
        b[i] = (cg_batch){pls[i].p, pls[i].cands, pls[i].n};
    bool ok = cg_kernel_signature(t, b, np, sig->kernel_sig);
    free(b);
    if (!ok)
        return false;
    snprintf(sig->version, sizeof sig->version, "%s", tn_version());
    snprintf(sig->script, sizeof sig->script, "%s", script);
    snprintf(sig->target, sizeof sig->target, "%s", t->name);
    snprintf(sig->measure, sizeof sig->measure, "%s", tu->measure);
    snprintf(sig->clock_mhz, sizeof sig->clock_mhz, "%.17g", t->clock_mhz);
    return true;
}

static rs_row row_of(const ls_script *s, const ms_backend *b, const plan *pl, size_t i,
                     const char *round, const char *node)
{
    rs_row r = {.problem = pl->p, .target = ls_target(s)->name, .cand = &pl->cands[i],
                .backend = b->name, .status = ms_status_name(pl->ms[i].status),
                .measured = pl->ms[i].value, .unit = b->unit, .round = round, .node = node};
    return r;
}

static int status_of(const char *name)
{
    for (int st = 0; st < MS_NSTATUS; st++)
        if (strcmp(ms_status_name(st), name) == 0)
            return st;
    return MS_CRASH;
}

/* The best ok measurement not yet rejected by verification, or -1: among
 * the final's when there was one (they were timed side by side), else among
 * all. */
static long best_ok(const plan *pl)
{
    long best = -1;
    for (int pass = pl->nfin ? 0 : 1; pass < 2 && best < 0; pass++)
        for (size_t q = 0; q < (pass ? pl->n : pl->nfin); q++) {
            size_t i = pass ? q : pl->fin[q];
            if (pl->ms[i].status == MS_OK && (best < 0 || pl->ms[i].value < pl->ms[best].value))
                best = (long)i;
        }
    return best;
}

/* Where a batch's measurements go as they complete. */
typedef struct {
    tn_session *r;
    plan *pl;
    size_t pi, budget;
    const size_t *where;
    size_t done;       /* measurements of this batch so far */
    double best;       /* the best ok value so far, NaN before one */
    char *err;
    size_t errlen;
    bool ok;
} sink;

/* Journals one completed measurement at once (serialised by tn_measure),
 * with the node that took it, so a kill loses nothing that finished; the
 * progress line follows (a blind search's batch is long). */
static void journal_one(void *ctx, size_t i, const ms_measurement *m, const char *node)
{
    sink *s = ctx;
    s->pl->ms[s->where[i]] = *m;
    rs_row row = row_of(s->r->script, s->r->backend, s->pl, s->where[i], "search", node);
    if (s->ok && !rs_journal_append(s->r->journal, &row, s->err, s->errlen))
        s->ok = false;
    if (m->status == MS_OK && !(m->value >= s->best))
        s->best = m->value;
    tn_progress(s->r, s->pi, s->pl->measured + ++s->done, s->budget, s->best);
}

/* Whatever the search asks: from the journal when it is there (the figure
 * the search heard, not a final's: rs_journal_open), else measured (in
 * parallel) and journaled as each measurement completes. */
static bool fetch(tn_session *r, plan *pl, size_t pi, size_t budget, const size_t *idx, size_t n,
                  char *err, size_t errlen)
{
    sp_candidate *todo = malloc(n * sizeof *todo);
    size_t *where = malloc(n * sizeof *where), nt = 0;
    ms_measurement *got = malloc(n * sizeof *got);
    if (!todo || !where || !got) {
        free(todo), free(where), free(got);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const rs_entry *e = rs_cache_find(r->cache, pl->p, &pl->cands[idx[i]].config);
        ms_measurement *m = &pl->ms[idx[i]];
        if (e) {
            memset(m, 0, sizeof *m);
            m->status = status_of(e->status);
            m->value = e->measured;
            m->nsamples = 1;
            pl->resumed++;
        } else {
            todo[nt] = pl->cands[idx[i]];
            where[nt++] = idx[i];
        }
    }
    long b = best_ok(pl);
    sink s = {r, pl, pi, budget, where, 0, b >= 0 ? pl->ms[b].value : NAN, err, errlen, true};
    tn_measure(r, pl->p, todo, nt, got, journal_one, &s);
    free(todo), free(where), free(got);
    return s.ok;
}

static void config_text(const sp_config *c, char *out, size_t len)
{
    int w = snprintf(out, len, "%s %dx%dx%d db=%d cores=%d %s", sp_strategy_name(c->strategy),
                     c->m, c->n, c->k, c->double_buffer, c->cores, sp_split_name(c->split));
    if ((c->mr || c->nr) && w > 0 && (size_t)w < len)
        w += snprintf(out + w, len - (size_t)w, " u%dx%d", c->mr, c->nr);
    if (c->nopack && w > 0 && (size_t)w < len)
        snprintf(out + w, len - (size_t)w, " nopack");
}

/* The final, when the backend has one: the best few ok measurements of the
 * search (TN_FINALISTS, TN_FINAL_MARGIN) are timed again side by side, so
 * that drift of the machine between their separate measurements does not
 * choose the winner; the model's pick joins them when it measured ok, so the
 * summary's gap compares two figures of one final. Their final measurements
 * replace the search's and are journaled (round "final"); a finalist that
 * fails in it is journaled with its status, keeps its search measurement
 * (with a warning) and takes no part in the choice. */
static bool final_round(tn_session *r, plan *pl, char *err, size_t errlen)
{
    if (!r->backend->final || !ls_tune_get(r->script)->final || best_ok(pl) < 0)
        return true;
    double *value = malloc(sizeof *value * pl->n);
    bool *ok = malloc(sizeof *ok * pl->n);
    if (!value || !ok) {
        free(value), free(ok);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < pl->n; i++)
        value[i] = pl->ms[i].value, ok[i] = pl->ms[i].status == MS_OK;
    size_t fin[TN_FINAL_MAX];
    size_t nf = tn_finalists(value, ok, pl->n, (size_t)pl->pick, TN_FINALISTS, TN_FINAL_MARGIN, fin);
    free(value), free(ok);
    if (nf == 0)
        return true;
    /* A resumed run that measured nothing new, whose journal holds these
     * finalists' final whole: they stand with its figures, in the order of
     * its rows (of equal figures, the first wins), as in the run that held
     * it. A final cut short by a kill, or one mixed from two finals, is held
     * again. The search heard the search's figures (fetch). */
    const rs_entry *had[TN_FINAL_MAX];
    long line[TN_FINAL_MAX];
    for (size_t k = 0; k < nf; k++) {
        had[k] = rs_cache_find(r->cache, pl->p, &pl->cands[fin[k]].config);
        line[k] = had[k] ? had[k]->final_line : 0;
    }
    if (pl->resumed == pl->measured && tn_final_whole(line, nf)) {
        long first = line[0];
        for (size_t k = 1; k < nf; k++)
            first = line[k] < first ? line[k] : first;
        size_t by_line[TN_FINAL_MAX]; /* whole: lines first .. first + nf - 1 */
        for (size_t k = 0; k < nf; k++)
            by_line[line[k] - first] = k;
        for (size_t q = 0; q < nf; q++) {
            size_t k = by_line[q];
            if (!isfinite(had[k]->final)) /* it failed in the final */
                continue;
            pl->ms[fin[k]].value = had[k]->final;
            pl->fin[pl->nfin++] = fin[k];
        }
        return true;
    }
    sp_candidate c[TN_FINAL_MAX];
    ms_measurement got[TN_FINAL_MAX];
    for (size_t k = 0; k < nf; k++)
        c[k] = pl->cands[fin[k]];
    const char *node;
    tn_final(r, pl->p, c, nf, got, &node);
    char text[96];
    double before[TN_FINAL_MAX], after[TN_FINAL_MAX], ratio;
    for (size_t k = 0; k < nf; k++)
        before[k] = pl->ms[fin[k]].value, after[k] = got[k].status == MS_OK ? got[k].value : 0;
    size_t d = tn_drift(before, after, nf, TN_DRIFT_FACTOR, &ratio);
    if (d != (size_t)-1) {
        config_text(&c[d].config, text, sizeof text);
        tn_error("warning: %s: finalist %s measured %.3g %s in the final against %.3g %s in the "
                 "search (%.1fx %s): the machine's speed changed between them (another load?), "
                 "so these figures may be off; the final, timed side by side, decides",
                 pl->p->name, text, after[d], r->backend->unit, before[d], r->backend->unit,
                 ratio, after[d] > before[d] ? "slower" : "faster");
    }
    for (size_t k = 0; k < nf; k++) {
        rs_row row = row_of(r->script, r->backend, pl, fin[k], "final", node);
        row.status = ms_status_name(got[k].status);
        row.measured = got[k].value;
        if (!rs_journal_append(r->journal, &row, err, errlen))
            return false;
        if (got[k].status != MS_OK) {
            config_text(&c[k].config, text, sizeof text);
            tn_error("warning: %s: finalist %s failed in the final (%s): %s; its search "
                     "measurement stands",
                     pl->p->name, text, ms_status_name(got[k].status), got[k].detail);
            continue;
        }
        pl->ms[fin[k]] = got[k];
        pl->fin[pl->nfin++] = fin[k];
    }
    return true;
}


/* When no candidate of a problem measured ok: one line saying why the first
 * one failed (the compiler's error, the signal, the wrong element), since
 * every candidate usually fails alike (no compiler, a broken command). */
static void none_ok(const plan *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->ms[i].status != MS_NSTATUS) {
            char text[96];
            config_text(&pl->cands[i].config, text, sizeof text);
            tn_error("warning: %s: none of %zu candidates measured ok; the first, %s, is %s: %s",
                     pl->p->name, pl->measured, text, ms_status_name(pl->ms[i].status),
                     pl->ms[i].detail[0] ? pl->ms[i].detail : "no reason given");
            return;
        }
}

/* One warning when timings were taken on a busy machine (the backend saw
 * the kernel's threads wait long for a CPU): how many, and whether the
 * winner's is one. */
static void busy_warning(const plan *pl)
{
    size_t busy = 0, timed = 0;
    for (size_t i = 0; i < pl->n; i++)
        if (pl->ms[i].status == MS_OK) {
            timed++;
            busy += pl->ms[i].busy;
        }
    if (busy)
        tn_error("warning: %s: %zu of %zu timings were taken on a busy machine (the kernel's "
                 "threads waited for a CPU%s); their figures may be far off: tune on a "
                 "quiet machine",
                 pl->p->name, busy, timed,
                 pl->best >= 0 && pl->ms[pl->best].busy ? ", the winner's among them" : "");
}

/* Searches one problem within the budget, then verifies the winner against a
 * reference when the backend can and the script lets it (tune { verify }): a
 * failed check is journaled (so a resumed run knows it) and the next best is
 * tried. */
static bool tune_problem(tn_session *r, size_t pi, plan *pl, char *err, size_t errlen)
{
    const ls_tune *tu = ls_tune_get(r->script);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    gsl_rng_set(rng, r->seed * 1000003UL + pi);
    /* calibrating: the search ranks by a copy of the candidates with the
     * figures in use (the journal keeps the script's model's) */
    sp_candidate *rank = pl->cands;
    if (r->fits && (rank = malloc(pl->n * sizeof *rank))) {
        memcpy(rank, pl->cands, pl->n * sizeof *rank);
        tn_fits_rank(r->fits, pl->p, rank, pl->n);
    }
    const sp_kind_info *kind = sp_target_kind(ls_target(r->script));
    size_t pick = (size_t)pl->pick;
    tn_search_args a = {.cands = rank, .n = pl->n, .budget = (size_t)tu->budget, .rng = rng,
                        .band = kind->model_error, .clamp = kind->cuts_blocks ? pl->p : NULL,
                        .pick = pl->n ? &pick : NULL};
    tn_search *srch = rank ? tn_search_open(tu->search, &a) : NULL;
    bool ok = srch != NULL;
    if (!ok)
        snprintf(err, errlen, "cannot start search '%s'", tu->search);
    /* the step: fixed per search, so that a run does not depend on threads
     * or ranks */
    size_t step = tn_search_blind(srch) ? TN_BATCH_BLIND : TN_BATCH, told = 0;
    size_t *idx = ok ? malloc(step * sizeof *idx) : NULL;
    if (ok && !(ok = idx != NULL))
        snprintf(err, errlen, "out of memory");
    while (ok && told < a.budget) {
        size_t want = a.budget - told < step ? a.budget - told : step;
        size_t n = tn_search_ask(srch, idx, want);
        if (n == 0)
            break;
        if (!(ok = fetch(r, pl, pi, a.budget, idx, n, err, errlen)))
            break;
        for (size_t i = 0; i < n; i++) {
            const ms_measurement *m = &pl->ms[idx[i]];
            tn_search_tell(srch, idx[i], m->status == MS_OK, m->value);
            pl->measured++;
            pl->failed += m->status != MS_OK;
        }
        told += n;
        bool changed = false;
        if (r->fits && !(ok = tn_fits_batch(r->fits, pi, told, pl->p, pl->cands, idx, n, pl->ms,
                                            r->backend->unit, &changed, err, errlen)))
            break;
        if (changed) {
            tn_fits_rank(r->fits, pl->p, rank, pl->n);
            if (!(ok = tn_search_rerank(srch)))
                snprintf(err, errlen, "out of memory");
        }
        tn_progress(r, pi, pl->measured, a.budget, best_ok(pl) >= 0 ? pl->ms[best_ok(pl)].value : NAN);
    }
    free(idx);
    tn_search_close(srch);
    if (rank != pl->cands)
        free(rank);
    gsl_rng_free(rng);
    tn_progress_done(r, pl->measured);
    if (ok && pl->measured > 0 && best_ok(pl) < 0)
        none_ok(pl);
    if (ok)
        ok = final_round(r, pl, err, errlen);
    while (ok && (pl->best = best_ok(pl)) >= 0 && r->backend->verify && tu->verify) {
        ms_measurement *m = &pl->ms[pl->best];
        /* a verification the journal holds failed stands (the search replayed
         * what the search heard: an ok row); one that passed left no row */
        const rs_entry *e = rs_cache_find(r->cache, pl->p, &pl->cands[pl->best].config);
        if (e && rs_verdict_failed(e)) {
            m->status = status_of(e->verdict);
            snprintf(m->detail, sizeof m->detail, "failed verification (%s) in the run this resumes",
                     e->verdict);
            pl->failed++;
            continue;
        }
        const char *node;
        tn_verify(r, pl->p, &pl->cands[pl->best], m, &node);
        if (m->status == MS_OK)
            break;
        tn_error("warning: %s: the best candidate failed verification (%s): %s", pl->p->name,
                 ms_status_name(m->status), m->detail);
        rs_row row = row_of(r->script, r->backend, pl, (size_t)pl->best, "verify", node);
        ok = rs_journal_append(r->journal, &row, err, errlen);
        pl->failed++;
    }
    if (ok)
        busy_warning(pl);
    return ok;
}

/* GFLOP/s of a measurement in seconds (for the whole batch) and its
 * fraction of the machine's peak on the cores it used; NaN when the run
 * measures no seconds (resp. no peak). */
static void rate(const tn_session *r, const sp_problem *p, const sp_config *c, double seconds,
                 double *gflops, double *frac)
{
    *gflops = *frac = NAN;
    if (strcmp(r->backend->unit, "s") != 0 || !(seconds > 0))
        return;
    *gflops = sp_problem_flops(p) / seconds / 1e9;
    if (!r->have_peak)
        return;
    double peak = c->cores >= ls_target(r->script)->cores ? r->peak.gflops_all
                                                           : r->peak.gflops_core * c->cores;
    *frac = *gflops / peak;
}

/* The summary on stdout: per shape the best config and measurement, the
 * model's pick and its gap to the best, and the counts (runs in seconds:
 * GFLOP/s, and the fraction of the machine's peak when the backend has one). */
static void summary(const tn_session *r, const plan *pls, size_t np)
{
    const char *unit = r->backend->unit;
    int width = tn_kind_of(ls_target(r->script))->config_width;
    if (r->csv)
        printf("problem,M,N,K,batch,dtype,legal,raw,measured,failed,resumed,strategy,m,n,k,"
               "double_buffer,cores,split,measured_best,unit,model_pick,model_pick_measured,"
               "model_pick_gap_pct,micro,gflops,peak_fraction,pack\n");
    else
        printf("%-10s %-14s %8s %6s %6s  %-*s %12s  %-*s %8s\n", "problem", "shape", "legal",
               "meas", "failed", width, "best config", "measured", width, "model's pick", "gap");
    for (size_t i = 0; i < np; i++) {
        const plan *pl = &pls[i];
        const sp_problem *p = pl->p;
        char shape[64], best[96] = "-", pick[96], value[48] = "-", gap[32] = "-", gapnum[32] = "";
        sp_problem_shape(p, shape, sizeof shape);
        config_text(&pl->cands[pl->pick].config, pick, sizeof pick);
        const ms_measurement *pm = &pl->ms[pl->pick];
        if (pl->best >= 0) {
            config_text(&pl->cands[pl->best].config, best, sizeof best);
            snprintf(value, sizeof value, "%.6g", pl->ms[pl->best].value);
            if (pm->status == MS_OK) {
                double g = 100 * (pm->value / pl->ms[pl->best].value - 1);
                snprintf(gap, sizeof gap, "%.2f%%", g);
                snprintf(gapnum, sizeof gapnum, "%.2f", g);
            }
            else
                snprintf(gap, sizeof gap, pm->status == MS_NSTATUS ? "unmeasured" : "failed");
        }
        if (r->csv) {
            const sp_config *c = pl->best >= 0 ? &pl->cands[pl->best].config : NULL;
            printf("%s,%lld,%lld,%lld,%lld,%s,%zu,%lld,%zu,%zu,%zu,", p->name, (long long)p->M,
                   (long long)p->N, (long long)p->K, (long long)p->batch, sp_dtype_name(p->dtype),
                   pl->n, (long long)pl->counts.raw, pl->measured, pl->failed, pl->resumed);
            if (c)
                printf("%s,%d,%d,%d,%d,%d,%s,%s,%s,", sp_strategy_name(c->strategy), c->m, c->n,
                       c->k, c->double_buffer, c->cores, sp_split_name(c->split), value, unit);
            else
                printf(",,,,,,,,%s,", unit);
            printf("%s,", pick);
            if (pm->status == MS_OK)
                printf("%.6g,%s,", pm->value, gapnum);
            else
                printf(",,");
            double gf = NAN, frac = NAN;
            if (c)
                rate(r, p, c, pl->ms[pl->best].value, &gf, &frac);
            if (c && (c->mr || c->nr))
                printf("%dx%d", c->mr, c->nr);
            printf(",");
            if (isfinite(gf))
                printf("%.4g", gf);
            printf(",");
            if (isfinite(frac))
                printf("%.4f", frac);
            printf(",%s\n", !c || !(c->mr || c->nr) ? "" : c->nopack ? "0" : "1");
        } else {
            printf("%-10s %-14s %8zu %6zu %6zu  %-*s %12s  %-*s %8s\n", p->name, shape, pl->n,
                   pl->measured, pl->failed, width, best, value, width, pick, gap);
        }
    }
    if (r->csv)
        return;
    const ls_tune *tu = ls_tune_get(r->script);
    printf("measured in %s; journal: %s; table: %s\n", unit, tu->results, tu->table);
    size_t nfinal = 0;
    for (size_t i = 0; i < np; i++)
        nfinal += pls[i].nfin > 0;
    if (nfinal)
        printf("final: for %zu of %zu problems the search's best (up to %d, within %.0f%% of the "
               "best, and the runner-up) and the model's pick were timed again side by side; the "
               "best config is the final's\n",
               nfinal, np, TN_FINALISTS, 100 * TN_FINAL_MARGIN);
    const char *record = tn_fits_path(r->fits);
    size_t taken = tn_fits_count(r->fits), refused = tn_fits_refused(r->fits);
    if (taken || refused) {
        printf("calibrate: the search ranked by the model refitted %zu time%s to the run's "
               "measurements", taken, taken == 1 ? "" : "s");
        if (refused)
            printf(" (%zu more fit%s ranked them worse than the script's figures and %s not "
                   "taken)", refused, refused == 1 ? "" : "s", refused == 1 ? "was" : "were");
        printf("%s%s\n", record ? "; its figures: " : "", record ? record : "");
    }
    if (!r->have_peak)
        return;
    printf("%s roofline: %s\n", r->backend->name, r->peak.text);
    for (size_t i = 0; i < np; i++) {
        const plan *pl = &pls[i];
        double gf, frac;
        if (pl->best < 0)
            continue;
        const sp_config *c = &pl->cands[pl->best].config;
        rate(r, pl->p, c, pl->ms[pl->best].value, &gf, &frac);
        char shape[64];
        sp_problem_shape(pl->p, shape, sizeof shape);
        printf("  %-10s %-14s %8.1f GFLOP/s = %3.0f%% of the peak of %d core%s", pl->p->name,
               shape, gf, 100 * frac, c->cores, c->cores == 1 ? "" : "s");
        double kept = 1 - r->peak.lost; /* what a running thread gets */
        if (kept > 0 && kept < 1)
            printf("; %3.0f%% of the peak less the time lost", 100 * frac / kept);
        printf("\n");
    }
}

static int usage(const char *why)
{
    return tn_usage(NULL, "usage: npu-tune [--quiet] [--format text|csv] [--seed N] [--wait]\n"
                    "       [--safe] SCRIPT.lua\n", why);
}

/* The files of a run must be distinct (bs_paths_distinct): the script, the
 * journal with its sidecar and kernel directory, the table. A journal that
 * is written through (/dev/null) has neither: its kernels go where the
 * backend puts them by default (workdir NULL). */
static bool check_files(const char *script, const ls_tune *tu, char *workdir, size_t len,
                        char *err, size_t errlen)
{
    bool through = bs_written_through(tu->results);
    char sig[4096], fit[4096];
    if (strlen(tu->results) + sizeof ".kernels" > (len < sizeof sig ? len : sizeof sig)) {
        snprintf(err, errlen, "results path '%.64s...' is too long", tu->results);
        return false;
    }
    snprintf(sig, sizeof sig, "%s.sig", tu->results);
    snprintf(fit, sizeof fit, "%s.fit", tu->results);
    snprintf(workdir, len, "%s.kernels", tu->results);
    const bs_file files[] = {{"script", script, false},
                             {"results journal", tu->results, true},
                             {"journal's sidecar", through ? NULL : sig, true},
                             {"kernel directory", through ? NULL : workdir, true},
                             {"journal's fit record", through ? NULL : fit, true},
                             {"table", tu->table, true}};
    if (through)
        workdir[0] = '\0';
    return bs_paths_distinct(files, sizeof files / sizeof files[0], err, errlen);
}

/* Opens the run's journal (locked, its rows checked against the run's
 * problems): if another run holds it, fails naming it, or with --wait says
 * so (unless --quiet) and waits for it. Then the backend measures in the
 * unit of the journal's rows. */
static bool open_journal(tn_session *r, const plan *pls, size_t np, const rs_signature *sig,
                         bool wait, char *err, size_t errlen)
{
    const ls_tune *tu = ls_tune_get(r->script);
    const sp_problem **run = malloc((np ? np : 1) * sizeof *run);
    if (!run) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    rs_journal_opts o = {.problems = run, .nproblems = np};
    for (size_t i = 0; i < np; i++) {
        run[i] = pls[i].p;
        for (size_t j = 0; j < pls[i].n; j++) /* a no-pack config: the pack column */
            o.pack |= pls[i].cands[j].config.nopack != 0;
    }
    r->journal = rs_journal_open_with(tu->results, sig, &o, &r->cache, err, errlen);
    if (!r->journal && o.holder && wait) {
        if (!r->quiet)
            tn_error("%s; waiting for it", err);
        o.wait = true;
        r->journal = rs_journal_open_with(tu->results, sig, &o, &r->cache, err, errlen);
    } else if (!r->journal && o.holder) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, "; wait for it or pass --wait");
    }
    free(run);
    if (!r->journal)
        return false;
    long line;
    const char *unit = rs_journal_unit(r->journal, &line);
    if (*unit && !ms_backend_fix_unit(r->backend, unit)) {
        snprintf(err, errlen, "%s:%ld: row is in %s, this run measures in %s", tu->results, line,
                 unit, r->backend->unit);
        return false;
    }
    return true;
}

/* The run of rank 0 or of a process alone (workers NULL). */
static int run(tn_workers *workers, int argc, char **argv)
{
    static const struct option opts[] = {{"quiet", no_argument, 0, 'q'},
                                         {"format", required_argument, 0, 'f'},
                                         {"seed", required_argument, 0, 's'},
                                         {"wait", no_argument, 0, 'w'},
                                         {"safe", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    tn_session r = {.workers = workers};
    long long seed = -1;
    bool safe = false, wait = false;
    int o;
    char why[160];
    tn_node_name(r.node, sizeof r.node);
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (o) {
        case 'h': return tn_help_all();
        case 'q': r.quiet = 1; break;
        case 'w': wait = true; break;
        case 'S': safe = true; break;
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "csv"))
                return snprintf(why, sizeof why, "--format '%s' is not text or csv", optarg), usage(why);
            r.csv = strcmp(optarg, "csv") == 0;
            break;
        case 's':
            if (!tn_parse_dims(optarg, &seed, 1) && strcmp(optarg, "0"))
                return snprintf(why, sizeof why, "--seed '%s' must be a non-negative integer", optarg), usage(why);
            if (strcmp(optarg, "0") == 0)
                seed = 0;
            break;
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind != argc - 1)
        return usage(optind >= argc ? "a SCRIPT.lua is required" : "one SCRIPT.lua only");
    const char *path = argv[optind];
    ls_options lo = {.measures = ms_backend_names, .default_measure = "sim",
                     .searches = tn_search_names, .default_search = tn_search_names[0], .safe = safe};
    if (!(r.script = ls_open(&lo))) {
        tn_error("out of memory starting Lua");
        return TN_ERROR;
    }
    char err[LS_ERR_MAX];
    int rc = TN_ERROR;
    size_t np = 0, nrows = 0;
    plan *pls = NULL;
    rs_row *rows = NULL;
    rs_signature sig;
    if (!ls_run_file(r.script, path, err, sizeof err))
        goto fail;
    const ls_tune *tu = ls_tune_get(r.script);
    r.seed = seed >= 0 ? (unsigned long)seed : tu->seed;
    np = ls_nproblems(r.script);
    pls = calloc(np, sizeof *pls);
    rows = calloc(np, sizeof *rows);
    if (!pls || !rows) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < np; i++)
        if (!plan_problem(r.script, i, &pls[i], err, sizeof err))
            goto fail;
    if (!sign(r.script, path, pls, np, &sig)) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    char workdir[4096];
    if (!check_files(path, tu, workdir, sizeof workdir, err, sizeof err))
        goto fail;
    ms_settings mset = {.command = tu->command, .timeout = tu->timeout,
                        .workdir = *workdir ? workdir : NULL, .no_verify = !tu->verify};
    if (!(r.backend = ms_open(tu->measure, &mset, err, sizeof err)) ||
        !open_journal(&r, pls, np, &sig, wait, err, sizeof err) ||
        !tn_workers_setup(&r, &mset, err, sizeof err))
        goto fail;
    r.np = np;
    if ((tu->calibrate > 0 || (tu->calibrate < 0 && r.backend->hardware)) &&
        !(r.fits = tn_fits_open(tu->results, &sig, rs_cache_size(r.cache) > 0, ls_target(r.script),
                                err, sizeof err)))
        goto fail;
    if (r.backend->peak && (r.have_peak = tn_peak(&r, &r.peak)) && !r.quiet)
        fprintf(stderr, "npu-tune: %s roofline: %s\n", r.backend->name, r.peak.text);
    tn_progress_start(&r);
    for (size_t i = 0; i < np; i++) {
        r.problem = pls[i].p;
        if (!tune_problem(&r, i, &pls[i], err, sizeof err))
            goto fail;
    }
    tn_progress_end(&r);
    /* the rows in the run's unit, known by now; the table written while the
     * journal is still locked, so that runs waiting for it see both */
    for (size_t i = 0; i < np; i++)
        if (pls[i].best >= 0) {
            rows[nrows] = row_of(r.script, r.backend, &pls[i], (size_t)pls[i].best, NULL, NULL);
            rows[nrows++].verified = r.backend->checked || (r.backend->verify && tu->verify);
        }
    if (!rs_table_write(tu->table, &sig, ls_target(r.script), rows, nrows, err, sizeof err))
        goto fail;
    bool closed = rs_journal_close(r.journal, err, sizeof err);
    r.journal = NULL;
    if (!closed)
        goto fail;
    summary(&r, pls, np);
    rc = nrows == np ? TN_OK : TN_ERROR;
    if (rc != TN_OK)
        tn_error("%s: %zu of %zu problems have no successful measurement", path, np - nrows,
                 np);
    goto done;
fail:
    tn_progress_end(&r);
    tn_error("%s", err);
done:
    if (r.journal) {
        char ignore[LS_ERR_MAX];
        rs_journal_close(r.journal, ignore, sizeof ignore);
    }
    rs_cache_free(r.cache);
    tn_fits_close(r.fits);
    for (size_t i = 0; pls && i < np; i++) {
        free(pls[i].cands);
        free(pls[i].ms);
    }
    free(pls);
    free(rows);
    ms_close(r.backend);
    ls_close(r.script);
    return rc;
}

int tn_run(int argc, char **argv)
{
    tn_workers *w;
    int rc;
    if (!tn_join(&w, &rc))
        return rc;
    rc = run(w, argc, argv);
    tn_workers_close(w);
    return rc;
}
