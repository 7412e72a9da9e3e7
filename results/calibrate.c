/* calibrate.c — the model's free figures fitted to measured rows by weighted
 * nonlinear least squares on log(estimate/measured) (GSL's multifit_nlinear). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "internal.h"

/* The figures a fit may move: the model's rates and latencies, which the
 * built-in targets take from data sheets or guess; not the sizes, counts
 * and cube rates that legality and the kernels depend on. Each applies to
 * the kinds its sp_target_fields entry names; `seconds`: only when the rows
 * are in seconds (the clock turns the model's cycles into time); `most`: the
 * largest value the target's check takes, 0 when none. */
static const struct {
    const char *name;
    bool seconds;
    double most;
} free_figures[] = {
    {"clock_mhz", true, 0},
    {"gm_l1.bandwidth", false, 0},  {"gm_l1.latency", false, 0},
    {"l1_l0a.bandwidth", false, 0}, {"l1_l0a.latency", false, 0},
    {"l1_l0b.bandwidth", false, 0}, {"l1_l0b.latency", false, 0},
    {"l0c_ub.bandwidth", false, 0}, {"l0c_ub.latency", false, 0},
    {"ub_gm.bandwidth", false, 0},  {"ub_gm.latency", false, 0},
    {"gm_bandwidth", false, 0},     {"bandwidth.l2", false, 0},
    {"bandwidth.l3", false, 0},     {"bandwidth.mem", false, 0},
    {"bandwidth.mem_shared", false, 0},
    {"fork_join", false, SP_CPU_FORK_JOIN_MAX},
    {"load_stall", false, SP_CPU_STALL_MAX},
    {"prefetch_stall", false, SP_CPU_STALL_MAX},
    {"alias_stall", false, SP_CPU_STALL_MAX},
    {"pack_stall", false, SP_CPU_STALL_MAX},
    {"stride_stall", false, SP_CPU_STALL_MAX},
};
enum { NFREE = sizeof free_figures / sizeof *free_figures };
_Static_assert((int)NFREE <= (int)RS_FIT_MAX, "RS_FIT_MAX holds every free figure");

/* Orders a fit keeps among the figures: `below` is never faster than
 * `above` (a farther level than a nearer one, one core's share than what
 * all cores share); `l3`: only on a CPU that has an L3 (the model reads no
 * bandwidth.l3 without one). In the order they apply, a level before the
 * one below it, so that a lowered figure lowers the next. */
static const struct {
    const char *below, *above;
    bool l3;
} orders[] = {
    {"bandwidth.l3", "bandwidth.l2", true},
    {"bandwidth.mem", "bandwidth.l3", true},
    {"bandwidth.mem", "bandwidth.l2", false},
    {"bandwidth.mem", "bandwidth.mem_shared", false},
    {"gm_l1.bandwidth", "gm_bandwidth", false},
    {"ub_gm.bandwidth", "gm_bandwidth", false},
};
enum { NORDERS = sizeof orders / sizeof *orders };

/* A figure moves at most this factor away from its start either way. */
#define REACH 1e6
/* A figure whose start is 0 (a latency, fork_join) starts at 1. */
#define FLOOR 1.0
/* No row depends on a figure when moving it PROBE times up or down changes
 * no estimate by a relative INERT; a figure is a combination of the others
 * when the QR pivot of its unit-length Jacobian column falls below
 * DEPENDENT. */
#define PROBE 100.0
/* The cosine between the residuals and a Jacobian column below which the
 * start is taken for a minimum when no step lowers the cost. */
#define STATIONARY 1e-6
/* Weighted residuals (logs of estimate/measured) whose rms is below this are
 * rounding: the model meets every row, whatever their angle to the Jacobian. */
#define EXACT 1e-12
/* A fitted figure whose 95% interval spans more than this factor is not
 * pinned down by the rows either. */
#define SPREAD 1000.0
#define INERT 1e-6
#define DEPENDENT 1e-6

/* The largest value the target's check takes of sp_target_fields[field]
 * (0: none). */
static double most_of(int field)
{
    for (int i = 0; i < NFREE; i++)
        if (strcmp(free_figures[i].name, sp_target_fields[field].name) == 0)
            return free_figures[i].most;
    return 0;
}

const char *rs_fit_free(int i)
{
    return i >= 0 && i < NFREE ? free_figures[i].name : NULL;
}

/* Orders rows by shape (problem name, op, M, N, K, batch, dtype). */
static int shape_cmp(const rs_entry *a, const rs_entry *b)
{
    return sp_problem_cmp(&a->problem, &b->problem, true);
}

/* ---- the model at given figures ---- */

typedef struct {
    const sp_target *start;
    const rs_entry *const *row; /* the rows fitted */
    size_t n;
    const int *field;           /* the figures fitted */
    size_t p;
    bool seconds;
    double *mid;                /* each log figure's start: the centre of its reach
                                 * (log(REACH) either way) and of its prior */
    double *top;                /* each log figure's ceiling: its reach, or less where
                                 * the target's check takes no more */
    double prior;               /* the prior's sd (0: none): then p residuals x - mid
                                 * follow the n rows' */
    int below[NORDERS], above[NORDERS]; /* the orders that apply to the start's target, */
    int norders;                        /* resolved once (resolve_orders) */
    size_t levels;              /* relative: the shapes fitted (their rows adjacent), each
                                 * with a level of its own that its rows' mean takes up;
                                 * absolute: 0 */
} problem;

/* Residuals of pb: its rows', then (with a prior) one per figure. */
static size_t nres(const problem *pb)
{
    return pb->n + (pb->prior > 0 ? pb->p : 0);
}

/* Whether sp_target_fields[f] is among pb's fitted figures. */
static bool fitted(const problem *pb, int f)
{
    for (size_t j = 0; j < pb->p; j++)
        if (pb->field[j] == f)
            return true;
    return false;
}

/* pb's orders: those of the table that apply to its start's target, their
 * fields resolved (once: target_at runs at every residual evaluation). */
static void resolve_orders(problem *pb)
{
    const sp_target *t = pb->start;
    pb->norders = 0;
    for (int i = 0; i < NORDERS; i++) {
        int below = sp_target_field_index(orders[i].below, t->kind);
        int above = sp_target_field_index(orders[i].above, t->kind);
        bool no_l3 = t->kind == SP_CPU && t->cpu.cache[SP_CL3] == 0;
        if (below >= 0 && above >= 0 && !(orders[i].l3 && no_l3)) {
            pb->below[pb->norders] = below;
            pb->above[pb->norders++] = above;
        }
    }
}

/* The start with the figures exp(x[j]), x kept within reach; then each
 * figure the fit keeps lowered, along the orders, to a fitted figure (or
 * one lowered before) it would pass; by[f] (when not NULL): the fitted
 * figure that lowered figure f, -1 for the others. A fitted figure is not
 * held back: one that passes the figure above it is at its edge, dropped
 * (a bound met mid-way would hold it where no step moves it). */
static void target_at(const problem *pb, const gsl_vector *x, sp_target *t, int *by)
{
    int from[SP_TARGET_NFIELDS];
    for (int f = 0; f < SP_TARGET_NFIELDS; f++)
        from[f] = -1;
    *t = *pb->start;
    for (size_t j = 0; j < pb->p; j++) {
        double v = gsl_vector_get(x, j);
        double lo = pb->mid[j] - log(REACH), hi = pb->top[j];
        v = v < lo ? lo : v > hi ? hi : v;
        *sp_target_figure_at(t, pb->field[j]) = exp(v);
        from[pb->field[j]] = pb->field[j];
    }
    for (int i = 0; i < pb->norders; i++) {
        int below = pb->below[i], above = pb->above[i];
        if (from[above] >= 0 && !fitted(pb, below) &&
            *sp_target_figure_at(t, below) > *sp_target_figure_at(t, above)) {
            *sp_target_figure_at(t, below) = *sp_target_figure_at(t, above);
            from[below] = from[above];
        }
    }
    for (int f = 0; by && f < SP_TARGET_NFIELDS; f++)
        by[f] = from[f] >= 0 && !fitted(pb, f) ? from[f] : -1;
}

/* The figure a fitted figure field[j] of t passes (the first order's
 * `above` it exceeds), or -1. */
static int passes(const problem *pb, const sp_target *t, int field)
{
    for (int i = 0; i < pb->norders; i++)
        if (pb->below[i] == field && sp_target_figure(t, field) > sp_target_figure(t, pb->above[i]))
            return pb->above[i];
    return -1;
}

/* The model's estimate of row e on t, in e's unit. */
static double estimate(const sp_target *t, const rs_entry *e, bool seconds)
{
    sp_figures f;
    sp_model(t, &e->problem, &e->config, &f);
    return seconds ? f.est_cycles / (t->clock_mhz * 1e6) : f.est_cycles;
}

double rs_fit_estimate(const sp_target *t, const rs_entry *e)
{
    return estimate(t, e, strcmp(e->unit, "s") == 0);
}

static int residuals(const gsl_vector *x, void *ctx, gsl_vector *f)
{
    const problem *pb = ctx;
    sp_target t;
    target_at(pb, x, &t, NULL);
    for (size_t i = 0; i < pb->n; i++) {
        double est = estimate(&t, pb->row[i], pb->seconds);
        double r = log(est / pb->row[i]->measured);
        if (!isfinite(r))
            return GSL_EDOM;
        gsl_vector_set(f, i, r);
    }
    /* relative: each shape's residuals less their mean (the rows of a shape
     * weigh alike), so a shape's level is free and only its ranking counts */
    for (size_t i = 1, lo = 0; pb->levels && i <= pb->n; i++) {
        if (i < pb->n && shape_cmp(pb->row[lo], pb->row[i]) == 0)
            continue;
        double sum = 0;
        for (size_t j = lo; j < i; j++)
            sum += gsl_vector_get(f, j);
        for (size_t j = lo; j < i; j++)
            gsl_vector_set(f, j, gsl_vector_get(f, j) - sum / (double)(i - lo));
        lo = i;
    }
    if (pb->prior > 0)
        for (size_t j = 0; j < pb->p; j++)
            gsl_vector_set(f, pb->n + j, gsl_vector_get(x, j) - pb->mid[j]);
    return GSL_SUCCESS;
}

/* ---- which rows, which figures ---- */

/* Orders rows by shape, then config, then round: an order of what the rows
 * hold, not of where they stand in the journal (a parallel batch journals
 * its rows as they complete), so the rows held out are the same every time. */
static int by_shape(const void *a, const void *b)
{
    const rs_entry *x = *(const rs_entry *const *)a, *y = *(const rs_entry *const *)b;
    int c = shape_cmp(x, y);
    const sp_config *p = &x->config, *q = &y->config;
    const long long u[] = {p->strategy, p->m, p->n, p->k, p->double_buffer, p->cores, p->split,
                           p->mr, p->nr, p->nopack};
    const long long v[] = {q->strategy, q->m, q->n, q->k, q->double_buffer, q->cores, q->split,
                           q->mr, q->nr, q->nopack};
    for (size_t i = 0; !c && i < sizeof u / sizeof *u; i++)
        c = (u[i] > v[i]) - (u[i] < v[i]);
    if (!c)
        c = strcmp(x->round, y->round);
    return c ? c : (x > y) - (x < y);
}

/* Splits rows (sorted by shape) into held[i] true/false: a share of the
 * rows, or of the shapes, chosen by a generator seeded with seed. Returns
 * the shapes. */
static size_t hold_out(const rs_entry *const *row, size_t n, const rs_fit_opts *o, bool *held,
                       size_t *nheld)
{
    size_t shapes = 0;
    size_t *first = malloc((n + 1) * sizeof *first);
    size_t *pick = malloc((n ? n : 1) * sizeof *pick);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    *nheld = 0;
    if (!first || !pick || !rng) {
        free(first), free(pick);
        if (rng)
            gsl_rng_free(rng);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (i == 0 || shape_cmp(row[i - 1], row[i]) != 0)
            first[shapes++] = i;
    first[shapes] = n;
    gsl_rng_set(rng, o->seed);
    size_t units = o->by_shape ? shapes : n;
    for (size_t i = 0; i < units; i++)
        pick[i] = i;
    gsl_ran_shuffle(rng, pick, units, sizeof *pick);
    size_t take = (size_t)floor(o->holdout * (double)units + 0.5);
    if (o->holdout > 0 && take == 0)
        take = 1;
    memset(held, 0, n * sizeof *held);
    for (size_t k = 0; k < take && k < units; k++) {
        size_t lo = o->by_shape ? first[pick[k]] : pick[k];
        size_t hi = o->by_shape ? first[pick[k] + 1] : pick[k] + 1;
        for (size_t i = lo; i < hi; i++)
            held[i] = true, ++*nheld;
    }
    free(first), free(pick);
    gsl_rng_free(rng);
    return shapes;
}

/* The figures of the kind that rows in this unit can move; explicit names
 * are checked against them. */
static bool choose(const sp_target *t, bool seconds, const rs_fit_opts *o, int *field,
                   size_t *p, char *err, size_t errlen)
{
    /* the clock scales every estimate of a shape alike: a relative fit has
     * no use for it */
    bool scaled = seconds && !o->relative;
    *p = 0;
    for (size_t k = 0; k < (o->fields ? o->nfields : (size_t)NFREE); k++) {
        const char *name = o->fields ? o->fields[k] : free_figures[k].name;
        int free_i = -1;
        for (int i = 0; i < NFREE; i++)
            if (strcmp(free_figures[i].name, name) == 0)
                free_i = i;
        int f = sp_target_field_index(name, t->kind);
        bool applies = f >= 0 && free_i >= 0 && (scaled || !free_figures[free_i].seconds);
        if (!applies && o->fields) {
            char names[512] = "";
            for (int i = 0, used = 0; i < NFREE; i++) {
                if (sp_target_field_index(free_figures[i].name, t->kind) >= 0 &&
                    (scaled || !free_figures[i].seconds))
                    used += snprintf(names + used, sizeof names - (size_t)used, "%s%s",
                                     used ? ", " : "", free_figures[i].name);
            }
            snprintf(err, errlen, "'%s' is not a figure the fit can move on %s target %s with "
                     "rows in %s%s (it can: %s)", name, sp_kind_name(t->kind), t->name,
                     seconds ? "seconds" : "cycles", o->relative ? ", fitted relative" : "",
                     names);
            return false;
        }
        bool dup = false;
        for (size_t j = 0; j < *p; j++)
            dup |= field[j] == f;
        if (applies && !dup)
            field[(*p)++] = f;
    }
    return true;
}

/* "a, b and c" of the figures field[idx[0..k)] into buf. */
static const char *names_of(const int *field, const size_t *idx, size_t k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == k ? " and " : ", ",
                         sp_target_fields[field[idx[i]]].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* Whether no row depends on figure j near x: moved PROBE times up or down
 * (the others kept), no row's estimate changes by a relative INERT. A
 * probe, not the slope at x, so that a figure starting far off (a
 * fork_join of 0) is not taken for inert. */
static bool inert(const problem *pb, const gsl_vector *x, size_t j, gsl_vector *f0, gsl_vector *f1,
                  gsl_vector *y)
{
    gsl_vector_memcpy(y, x);
    if (residuals(y, (void *)pb, f0) != GSL_SUCCESS)
        return false;
    for (int s = -1; s <= 1; s += 2) {
        gsl_vector_set(y, j, gsl_vector_get(x, j) + s * log(PROBE));
        if (residuals(y, (void *)pb, f1) != GSL_SUCCESS)
            return false;
        for (size_t i = 0; i < pb->n; i++)
            if (fabs(gsl_vector_get(f1, i) - gsl_vector_get(f0, i)) > INERT)
                return false;
    }
    return true;
}

/* The figures no row depends on near x (*inert) and those that are a
 * combination of the others there (*dep): of the weighted Jacobian J at x
 * with its columns scaled to unit length, the QR pivots below DEPENDENT. */
static bool judge(const problem *pb, const gsl_vector *x, const gsl_matrix *J, size_t *bad,
                  size_t *nbad, size_t *dep, size_t *ndep)
{
    size_t n = J->size1, p = J->size2;
    *nbad = *ndep = 0;
    size_t live[RS_FIT_MAX], nlive = 0;
    gsl_vector *f0 = gsl_vector_alloc(n), *f1 = gsl_vector_alloc(n), *y = gsl_vector_alloc(p);
    gsl_matrix *A = gsl_matrix_alloc(n, p);
    gsl_vector *tau = gsl_vector_alloc(p), *norm = gsl_vector_alloc(p);
    gsl_permutation *perm = gsl_permutation_alloc(p);
    bool ok = f0 && f1 && y && A && tau && norm && perm;
    for (size_t j = 0; ok && j < p; j++) {
        gsl_vector_const_view c = gsl_matrix_const_column(J, j);
        double len = gsl_blas_dnrm2(&c.vector);
        if (len == 0 || inert(pb, x, j, f0, f1, y)) {
            bad[(*nbad)++] = j;
            continue;
        }
        gsl_vector_view a = gsl_matrix_column(A, nlive);
        gsl_vector_memcpy(&a.vector, &c.vector);
        gsl_vector_scale(&a.vector, 1 / len);
        live[nlive++] = j;
    }
    if (ok && nlive >= 2 && n >= nlive) {
        gsl_matrix_view a = gsl_matrix_submatrix(A, 0, 0, n, nlive);
        gsl_vector_view t = gsl_vector_subvector(tau, 0, nlive), m = gsl_vector_subvector(norm, 0, nlive);
        gsl_permutation pv = {nlive, perm->data};
        int signum;
        ok = gsl_linalg_QRPT_decomp(&a.matrix, &t.vector, &pv, &signum, &m.vector) == GSL_SUCCESS;
        for (size_t k = 1; ok && k < nlive; k++)
            if (fabs(gsl_matrix_get(&a.matrix, k, k)) <= DEPENDENT)
                dep[(*ndep)++] = live[gsl_permutation_get(&pv, k)];
    }
    if (f0) gsl_vector_free(f0);
    if (f1) gsl_vector_free(f1);
    if (y) gsl_vector_free(y);
    if (A) gsl_matrix_free(A);
    if (tau) gsl_vector_free(tau);
    if (norm) gsl_vector_free(norm);
    if (perm) gsl_permutation_free(perm);
    return ok;
}

/* ---- the fit ---- */

/* Removes the figures idx[0..k) (ascending or not) from pb's list. */
static void drop(problem *pb, int *field, const size_t *idx, size_t k, int *kept, size_t *nkept)
{
    bool gone[RS_FIT_MAX] = {false};
    for (size_t i = 0; i < k; i++)
        gone[idx[i]] = true;
    size_t p = 0;
    for (size_t j = 0; j < pb->p; j++) {
        if (gone[j])
            kept[(*nkept)++] = field[j];
        else
            field[p++] = field[j];
    }
    pb->p = p;
}

/* The weighted sum of squared residuals at x: the rows' (rows_only), or all. */
static double cost_at(const problem *pb, const gsl_vector *x, const gsl_vector *wts, bool rows_only)
{
    gsl_vector *f = gsl_vector_alloc(nres(pb));
    double c = NAN;
    if (f && residuals(x, (void *)pb, f) == GSL_SUCCESS) {
        c = 0;
        for (size_t i = 0; i < (rows_only ? pb->n : nres(pb)); i++)
            c += gsl_vector_get(wts, i) * gsl_vector_get(f, i) * gsl_vector_get(f, i);
    }
    if (f)
        gsl_vector_free(f);
    return c;
}

/* Whether the weighted residuals f are orthogonal to every column of the
 * weighted Jacobian J (to STATIONARY in cosine), or rounding (EXACT): a
 * minimum, where the trust region finds no step that lowers the cost. */
static bool stationary(const gsl_matrix *J, const gsl_vector *f)
{
    double fn = gsl_blas_dnrm2(f);
    if (fn <= EXACT * sqrt((double)f->size))
        return true;
    for (size_t j = 0; j < J->size2; j++) {
        gsl_vector_const_view c = gsl_matrix_const_column(J, j);
        double g;
        gsl_blas_ddot(&c.vector, f, &g);
        if (fabs(g) > STATIONARY * gsl_blas_dnrm2(&c.vector) * fn)
            return false;
    }
    return true;
}

typedef enum { RUN_OK, RUN_FAILED, RUN_AGAIN } run_status;

/* One fit of pb's figures from the start; RUN_AGAIN when figures were
 * dropped (auto mode) and the fit must start over with the rest. */
static run_status run(problem *pb, int *field, const gsl_vector *rows_wts, double wsum,
                      bool chosen, size_t iterations, rs_fit *out, char *err, size_t errlen)
{
    size_t n = pb->n, p = pb->p, nr = nres(pb);
    gsl_vector *x = gsl_vector_alloc(p), *wts = gsl_vector_alloc(nr);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        x && wts && cov ? gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, nr, p) : NULL;
    run_status st = RUN_FAILED;
    char names[512];
    size_t bad[RS_FIT_MAX], nbad, dep[RS_FIT_MAX], ndep;
    if (!w) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* A prior weighs as (RS_FIT_NOISE / sd)^2 of an average row: a row's
     * log residual of sd RS_FIT_NOISE against a log figure of sd `prior`. */
    double wprior = pb->prior > 0 ? wsum / (double)n * pow(RS_FIT_NOISE / pb->prior, 2) : 0;
    for (size_t i = 0; i < nr; i++)
        gsl_vector_set(wts, i, i < n ? gsl_vector_get(rows_wts, i) : wprior);
    for (size_t j = 0; j < p; j++) {
        double v = sp_target_figure(pb->start, field[j]);
        double s = log(v > 0 ? v : FLOOR);
        gsl_vector_set(x, j, s);
        pb->mid[j] = s;
        double most = most_of(field[j]);
        pb->top[j] = most > 0 && log(most) < s + log(REACH) ? log(most) : s + log(REACH);
    }
    gsl_multifit_nlinear_fdf fdf = {.f = residuals, .n = nr, .p = p, .params = pb};
    int status = gsl_multifit_nlinear_winit(x, wts, &fdf, w);
    if (status != GSL_SUCCESS) {
        snprintf(err, errlen, "the model has no finite estimate at the start figures (%s)",
                 gsl_strerror(status));
        goto done;
    }
    /* At the start: figures no row moves, figures the others make up. */
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    if (!judge(pb, x, J, bad, &nbad, dep, &ndep)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (nbad || ndep) {
        size_t all[RS_FIT_MAX];
        memcpy(all, bad, nbad * sizeof *bad);
        memcpy(all + nbad, dep, ndep * sizeof *dep);
        if (chosen) {
            snprintf(err, errlen, "%s %s not identifiable from these rows (%s): fit without %s",
                     names_of(field, all, nbad + ndep, names, sizeof names),
                     nbad + ndep == 1 ? "is" : "are",
                     nbad ? (nbad + ndep == 1 ? "no row depends on it" : "no row depends on them")
                          : "they only act together with the others",
                     nbad + ndep == 1 ? "it" : "them");
            goto done;
        }
        drop(pb, field, all, nbad + ndep, out->kept, &out->nkept);
        st = RUN_AGAIN;
        goto done;
    }
    out->rms_before = sqrt(cost_at(pb, x, wts, true) / wsum);
    int info;
    status = gsl_multifit_nlinear_driver(iterations, 1e-8, 1e-8, 0.0, NULL, NULL, &info, w);
    out->iterations = gsl_multifit_nlinear_niter(w);
    if (status == GSL_EMAXITER && info == GSL_ENOPROG &&
        stationary(gsl_multifit_nlinear_jac(w), gsl_multifit_nlinear_residual(w)))
        status = GSL_SUCCESS; /* no step helps and none should: it is the minimum (at the
                               * start, or where rows the model fits exactly are met) */
    if (status != GSL_SUCCESS) {
        snprintf(err, errlen, "the fit of %zu figures to %zu rows did not converge%s (%s)", p, n,
                 status == GSL_EMAXITER ? " within its iterations" : "", gsl_strerror(status));
        goto done;
    }
    /* At the solution: still every figure pinned, none at its reach. */
    J = gsl_multifit_nlinear_jac(w);
    const gsl_vector *sol = gsl_multifit_nlinear_position(w);
    if (!judge(pb, sol, J, bad, &nbad, dep, &ndep)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* at its reach or its ceiling */
    size_t edge[RS_FIT_MAX], nedge = 0;
    for (size_t j = 0; j < p; j++)
        if (gsl_vector_get(sol, j) <= pb->mid[j] - log(REACH) ||
            gsl_vector_get(sol, j) >= pb->top[j])
            edge[nedge++] = j;
    /* past a figure it must not pass */
    sp_target at;
    target_at(pb, sol, &at, NULL);
    size_t past[RS_FIT_MAX], npast = 0;
    int over[RS_FIT_MAX];
    for (size_t j = 0; !nedge && j < p; j++)
        if ((over[npast] = passes(pb, &at, field[j])) >= 0)
            past[npast++] = j;
    if (npast && chosen) {
        snprintf(err, errlen, "%s runs past %s at the fit (%.6g against %.6g): fit without it",
                 sp_target_fields[field[past[0]]].name, sp_target_fields[over[0]].name,
                 sp_target_figure(&at, field[past[0]]), sp_target_figure(&at, over[0]));
        goto done;
    }
    if (npast) {
        for (size_t k = 0; k < npast; k++) {
            out->past[out->npast] = field[past[k]];
            out->past_of[out->npast++] = over[k];
        }
        drop(pb, field, past, npast, out->kept, &out->nkept);
        st = RUN_AGAIN;
        goto done;
    }
    if (nbad || ndep || nedge) {
        const size_t *which = nedge ? edge : nbad ? bad : dep;
        size_t k = nedge ? nedge : nbad ? nbad : ndep;
        if (chosen) {
            snprintf(err, errlen, "%s %s not identifiable from these rows (%s): fit without %s",
                     names_of(field, which, k, names, sizeof names), k == 1 ? "is" : "are",
                     nedge ? "the fit runs off to the edge of its range" :
                     nbad ? (k == 1 ? "no row depends on it at the fit"
                                    : "no row depends on them at the fit") :
                            "they only act together with the others at the fit",
                     k == 1 ? "it" : "them");
            goto done;
        }
        drop(pb, field, which, k, out->kept, &out->nkept);
        st = RUN_AGAIN;
        goto done;
    }
    out->rms_after = sqrt(cost_at(pb, sol, wts, true) / wsum);
    double chisq = cost_at(pb, sol, wts, false); /* with the prior's share */
    if (gsl_multifit_nlinear_covar(J, 0.0, cov) != GSL_SUCCESS) {
        snprintf(err, errlen, "the fit's covariance is singular");
        goto done;
    }
    /* The weights are not variances: the residuals' own scale, chisq / dof,
     * and Student's t for the 95% interval. */
    double dof = (double)(n - p - pb->levels), s2 = chisq / dof,
           t975 = gsl_cdf_tdist_Pinv(0.975, dof);
    rs_fit_figure fig[RS_FIT_MAX];
    size_t loose[RS_FIT_MAX], nloose = 0;
    for (size_t j = 0; j < p; j++) {
        double v = gsl_vector_get(sol, j), half = t975 * sqrt(s2 * gsl_matrix_get(cov, j, j));
        fig[j] = (rs_fit_figure){.field = field[j],
                                 .start = sp_target_figure(pb->start, field[j]),
                                 .value = exp(v), .lo = exp(v - half), .hi = exp(v + half)};
        if (!(fig[j].hi / fig[j].lo <= SPREAD))
            loose[nloose++] = j;
    }
    if (nloose && chosen) {
        snprintf(err, errlen, "%s %s not identifiable from these rows (%s 95%% interval%s more "
                 "than a factor of %g): fit without %s",
                 names_of(field, loose, nloose, names, sizeof names), nloose == 1 ? "is" : "are",
                 nloose == 1 ? "its" : "their", nloose == 1 ? " spans" : "s span", SPREAD,
                 nloose == 1 ? "it" : "them");
        goto done;
    }
    if (nloose) { /* the loosest goes: without it the others may be pinned */
        size_t worst = loose[0];
        for (size_t k = 1; k < nloose; k++)
            if (!(fig[loose[k]].hi / fig[loose[k]].lo <= fig[worst].hi / fig[worst].lo))
                worst = loose[k];
        drop(pb, field, &worst, 1, out->kept, &out->nkept);
        st = RUN_AGAIN;
        goto done;
    }
    int by[SP_TARGET_NFIELDS];
    target_at(pb, sol, &out->target, by);
    out->nlowered = 0;
    for (int f = 0; f < SP_TARGET_NFIELDS; f++)
        if (by[f] >= 0) {
            out->lowered[out->nlowered] = f;
            out->lowered_by[out->nlowered++] = by[f];
        }
    out->nfig = p;
    memcpy(out->fig, fig, p * sizeof *fig);
    st = RUN_OK;
done:
    if (w) gsl_multifit_nlinear_free(w);
    if (x) gsl_vector_free(x);
    if (wts) gsl_vector_free(wts);
    if (cov) gsl_matrix_free(cov);
    return st;
}

/* Judges the rows at target t: their estimates into copies whose
 * est_cycles the report compares. */
static bool accuracy(const sp_target *t, const rs_entry *const *row, const bool *held, bool want,
                     size_t n, rs_fidelity *f, char *err, size_t errlen)
{
    rs_entry *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!held || held[i] == want) {
            copy[k] = *row[i];
            copy[k].est_cycles = estimate(t, row[i], false);
            copy[k].line = (long)k + 2;
            k++;
        }
    rs_report r;
    bool ok = rs_report_rows(copy, k, "the rows", &r, err, errlen);
    if (ok) {
        *f = r.all;
        rs_report_free(&r);
    }
    free(copy);
    return ok;
}

bool rs_calibrate(const sp_target *start, const rs_entry *rows, size_t n, const rs_fit_opts *o,
                  rs_fit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->target = *start;
    err[0] = '\0';
    if (n == 0) {
        snprintf(err, errlen, "no rows to fit");
        return false;
    }
    if (!(o->holdout >= 0 && o->holdout < 1)) {
        snprintf(err, errlen, "the share held out must be from 0 to below 1, not %g", o->holdout);
        return false;
    }
    if (!(o->prior >= 0 && o->prior <= 100)) {
        snprintf(err, errlen, "the prior's sd must be from 0 (none) to 100, not %g", o->prior);
        return false;
    }
    const char *unit = rows[0].unit;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].unit, unit) != 0 || strcmp(rows[i].status, "ok") != 0 ||
            !(rows[i].measured > 0) || !isfinite(rows[i].measured)) {
            snprintf(err, errlen, "row %zu (line %ld) is not an ok measurement in %s", i,
                     rows[i].line, unit);
            return false;
        }
    bool seconds = strcmp(unit, "s") == 0;
    int field[RS_FIT_MAX];
    problem pb = {.start = start, .seconds = seconds, .field = field};
    resolve_orders(&pb);
    if (!choose(start, seconds, o, field, &pb.p, err, errlen))
        return false;
    const rs_entry **row = malloc(n * sizeof *row);
    const rs_entry **fit = malloc(n * sizeof *fit);
    bool *held = malloc(n * sizeof *held);
    gsl_vector *wts = gsl_vector_alloc(n);
    double mid[RS_FIT_MAX], top[RS_FIT_MAX];
    pb.mid = mid, pb.top = top, pb.prior = o->prior;
    bool ok = row && fit && held && wts;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; ok && i < n; i++)
        row[i] = &rows[i];
    if (ok) {
        qsort(row, n, sizeof *row, by_shape);
        out->rows = n;
        out->shapes = hold_out(row, n, o, held, &out->held_rows);
        ok = out->shapes > 0;
        if (!ok)
            snprintf(err, errlen, "out of memory");
    }
    if (ok && o->by_shape && o->holdout > 0 && out->shapes < 2) {
        snprintf(err, errlen, "holding out whole shapes needs rows of two shapes at least; "
                 "these are of one");
        ok = false;
    }
    /* The rows fitted, each shape weighing alike whatever its rows. */
    double wsum = 0;
    for (size_t i = 0, lo_i = 0; ok && i <= n; i++) {
        if (i < n && (i == 0 || shape_cmp(row[i - 1], row[i]) == 0))
            continue;
        size_t k = 0;
        for (size_t j = lo_i; j < i; j++)
            k += !held[j];
        for (size_t j = lo_i; j < i; j++)
            if (!held[j]) {
                gsl_vector_set(wts, pb.n, 1.0 / (double)k);
                wsum += 1.0 / (double)k;
                fit[pb.n++] = row[j];
            }
        pb.levels += o->relative && k > 0;
        lo_i = i;
    }
    out->fit_rows = pb.n;
    pb.row = fit;
    size_t iterations = o->iterations ? o->iterations : RS_FIT_ITERATIONS;
    run_status st = RUN_AGAIN;
    while (ok && st == RUN_AGAIN) {
        if (pb.p == 0) {
            char kept[512];
            size_t idx[RS_FIT_MAX];
            for (size_t j = 0; j < out->nkept; j++)
                idx[j] = j;
            snprintf(err, errlen, "no figure is identifiable from these %zu rows (%s: no row "
                     "depends on them, or only together)", pb.n,
                     out->nkept ? names_of(out->kept, idx, out->nkept, kept, sizeof kept) : "none");
            ok = false;
            break;
        }
        if (pb.n < RS_FIT_ROWS_PER_FIGURE * pb.p + pb.levels) {
            char levels[64] = "";
            if (pb.levels)
                snprintf(levels, sizeof levels, ", and one per shape for its level");
            snprintf(err, errlen, "%zu rows are too few to fit %zu figures (%zu at least: %d "
                     "per figure%s)", pb.n, pb.p, RS_FIT_ROWS_PER_FIGURE * pb.p + pb.levels,
                     RS_FIT_ROWS_PER_FIGURE, levels);
            ok = false;
            break;
        }
        gsl_vector_view wv = gsl_vector_subvector(wts, 0, pb.n);
        st = run(&pb, field, &wv.vector, wsum, o->fields != NULL, iterations, out, err, errlen);
        ok = st != RUN_FAILED;
    }
    /* the fitted target must be one scripts accept */
    ok = ok && sp_target_check(&out->target, err, errlen);
    if (ok) {
        bool any = out->held_rows > 0;
        out->in_sample = !any;
        ok = accuracy(start, row, any ? held : NULL, true, n, &out->before, err, errlen) &&
             accuracy(&out->target, row, any ? held : NULL, true, n, &out->after, err, errlen);
    }
    free(row), free(fit), free(held);
    if (wts)
        gsl_vector_free(wts);
    return ok;
}
