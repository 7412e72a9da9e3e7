/* fidelity.c — the model against the measurements of journals: their ok rows
 * grouped by problem, target and backend, ranked and compared with GSL. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "internal.h"

/* The k of rs_fidelity.recall. */
static const int recall_k[RS_NRECALL] = {1, 5, 10};

/* A row and where it was read. */
typedef struct {
    rs_entry e;
    size_t file;
} item;

static int cmp_int(long long a, long long b)
{
    return (a > b) - (a < b);
}

/* Orders rows by group: problem (name, op, dimensions, dtype), target, backend. */
static int group_cmp(const rs_entry *a, const rs_entry *b)
{
    int c = sp_problem_cmp(&a->problem, &b->problem, true);
    if (!c)
        c = strcmp(a->target, b->target);
    return c ? c : strcmp(a->backend, b->backend);
}

/* Where a row was read: file, then line. */
static int read_cmp(const item *x, const item *y)
{
    int c = cmp_int((long long)x->file, (long long)y->file);
    return c ? c : cmp_int(x->e.line, y->e.line);
}

/* Group, then config, then where it was read. */
static int by_config(const void *a, const void *b)
{
    const item *x = a, *y = b;
    int c = group_cmp(&x->e, &y->e);
    if (!c)
        c = sp_cmp_config(&x->e.config, &y->e.config);
    return c ? c : read_cmp(x, y);
}

/* Group, then where it was read: a group's rows in journal order. */
static int by_journal(const void *a, const void *b)
{
    const item *x = a, *y = b;
    int c = group_cmp(&x->e, &y->e);
    return c ? c : read_cmp(x, y);
}

double rs_estimate(const rs_entry *e, bool by_load)
{
    return by_load ? e->load_elems : e->est_cycles;
}

/* A row in the model's order: by estimate, ties to the lower load volume,
 * then the earlier row (a group's rows are in journal order). */
typedef struct {
    double est, load;
    const rs_entry *e;
} ranked;

static int model_order(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->est != y->est)
        return x->est < y->est ? -1 : 1;
    if (x->load != y->load)
        return x->load < y->load ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* Median of v[0..n) (sorted in place); NaN when n is 0. */
static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* The errors and bias of ratios q[0..n) (estimate/measured; sorted in place). */
static void ratio_figures(double *q, size_t n, double *work, rs_fidelity *f)
{
    f->bias = median(q, n);
    for (size_t i = 0; i < n; i++)
        work[i] = fabs(q[i] - 1);
    f->error_median = median(work, n);
    f->error_p90 = n ? gsl_stats_quantile_from_sorted_data(work, 1, n, 0.9) : NAN;
}

/* The figures of group g (rows e[0..n), in journal order); work holds 4n. */
static bool group_figures(rs_report_group *g, const rs_entry *e, size_t n, double *work)
{
    double *est = work, *meas = work + n, *q = work + 2 * n;
    rs_fidelity *f = &g->fig;
    *f = (rs_fidelity){.rows = n, .spearman = NAN, .kendall = NAN};
    ranked *order = malloc(n * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < n; i++)
        order[i] = (ranked){rs_estimate(&e[i], g->by_load), e[i].load_elems, &e[i]};
    qsort(order, n, sizeof *order, model_order);
    g->pick = g->best = order[0].e;
    for (size_t i = 0; i < n; i++) {
        est[i] = order[i].est;
        meas[i] = order[i].e->measured;
        if (meas[i] < g->best->measured)
            g->best = order[i].e;
    }
    free(order);
    f->regret = g->pick->measured / g->best->measured - 1;
    size_t rank = 0;
    while (meas[rank] != g->best->measured) /* the first of the best's ties */
        rank++;
    f->best_rank = (double)rank + 1;
    for (int k = 0; k < RS_NRECALL; k++)
        f->recall[k] = rank < (size_t)recall_k[k];
    if (!rs_kendall_tau_b(est, meas, n, &f->kendall))
        return false;
    if (n >= 2) /* GSL's ranks average ties; NaN when a sample is one value */
        f->spearman = gsl_stats_spearman(est, 1, meas, 1, n, q);
    for (size_t i = 0; i < n; i++)
        q[i] = g->scale * est[i] / meas[i];
    ratio_figures(q, n, q + n, f);
    return true;
}

/* ---- gathering ---- */

typedef struct {
    item *v;
    size_t n, cap;
} items;

static bool gather(const char *path, size_t file, items *all, char *err, size_t errlen)
{
    rs_cache *c;
    if (!rs_journal_read(path, true, &c, err, errlen))
        return false;
    rs_cache_apply_verdicts(c);
    bool ok = true;
    for (size_t i = 0; ok && i < rs_cache_size(c); i++) {
        const rs_entry *e = rs_cache_entry(c, i);
        if (all->n == all->cap) {
            size_t cap = all->cap ? 2 * all->cap : 256;
            item *v = realloc(all->v, cap * sizeof *v);
            if (!v) {
                snprintf(err, errlen, "cannot read '%s': out of memory", path);
                ok = false;
                break;
            }
            all->v = v;
            all->cap = cap;
        }
        all->v[all->n++] = (item){*e, file};
    }
    rs_cache_free(c);
    return ok;
}

/* A group's rows must share the unit and have the model's figures. */
static bool check_group(const item *v, size_t n, const char *const *paths, bool *by_load,
                        char *err, size_t errlen)
{
    *by_load = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].e.unit, v[0].e.unit) != 0) {
            snprintf(err, errlen,
                     "%s:%ld: row is in %s, %s:%ld is in %s; the rows of a problem, target and "
                     "backend share one unit",
                     paths[v[i].file], v[i].e.line, v[i].e.unit, paths[v[0].file], v[0].e.line,
                     v[0].e.unit);
            return false;
        }
        *by_load |= !(v[i].e.est_cycles > 0);
    }
    for (size_t i = 0; *by_load && i < n; i++)
        if (!(v[i].e.load_elems > 0)) {
            snprintf(err, errlen, "%s:%ld: an ok row without the model's figures (its "
                     "est_cycles and load_volume_elems are empty)", paths[v[i].file], v[i].e.line);
            return false;
        }
    return true;
}

/* ---- the report ---- */

/* Group g's rows in the report. */
static const rs_entry *rows_of(const rs_report *r, const rs_report_group *g)
{
    return r->rows + g->first;
}

/* Orders groups by scale set: target, backend, unit, estimate. */
static int set_cmp(const rs_report_group *x, const rs_report_group *y)
{
    int c = strcmp(x->target, y->target);
    if (!c)
        c = strcmp(x->backend, y->backend);
    if (!c)
        c = strcmp(x->unit, y->unit);
    return c ? c : (int)x->by_load - (int)y->by_load;
}

static int by_set(const void *a, const void *b)
{
    const rs_report_group *x = *(const rs_report_group *const *)a;
    const rs_report_group *y = *(const rs_report_group *const *)b;
    int c = set_cmp(x, y);
    return c ? c : (x > y) - (x < y);
}

/* The scale sets, by target, backend and unit, and each one's factor: 1 for
 * cycles against est_cycles, else the median measured/estimate of its rows;
 * each group takes its set's. O(n log n) in groups, O(n) in rows. */
static bool fit_scales(rs_report *r, double *work)
{
    const rs_report_group **by = malloc(r->ngroups * sizeof *by);
    if (!by)
        return false;
    for (size_t gi = 0; gi < r->ngroups; gi++)
        by[gi] = &r->group[gi];
    qsort(by, r->ngroups, sizeof *by, by_set);
    for (size_t lo = 0, hi; lo < r->ngroups; lo = hi) {
        const rs_report_group *g = by[lo];
        rs_report_scale *s = &r->scale[r->nscales++];
        *s = (rs_report_scale){.by_load = g->by_load,
                               .fitted = g->by_load || strcmp(g->unit, "cycles") != 0};
        strcpy(s->target, g->target);
        strcpy(s->backend, g->backend);
        strcpy(s->unit, g->unit);
        for (hi = lo; hi < r->ngroups && set_cmp(by[hi], g) == 0; hi++)
            for (const rs_entry *e = rows_of(r, by[hi]); e < rows_of(r, by[hi]) + by[hi]->fig.rows;
                 e++)
                work[s->rows++] = e->measured / rs_estimate(e, by[hi]->by_load);
        s->scale = s->fitted ? median(work, s->rows) : 1;
        for (size_t i = lo; i < hi; i++)
            r->group[by[i] - r->group].scale = s->scale;
    }
    free(by);
    return true;
}

/* The config axes of the bias table: a row's key on the axis (< 0: none)
 * and its text. */
static long axis_key(int axis, const sp_config *c)
{
    switch (axis) {
    case 0: return c->cores;
    case 1: return c->strategy;
    case 2: return c->split;
    case 3: return c->double_buffer != 0;
    case 4: return c->mr || c->nr ? c->mr * 256L + c->nr : -1;
    default: return c->mr || c->nr ? !c->nopack : -1;
    }
}
static const char *const axis_names[] = {"cores",         "strategy", "split",
                                         "double_buffer", "micro",    "pack"};
enum { PACK_AXIS = 5 }; /* in reports with a no-pack row only */
enum { NAXES = sizeof axis_names / sizeof *axis_names };

static void axis_text(int axis, long key, char *buf, size_t len)
{
    switch (axis) {
    case 1: snprintf(buf, len, "%s", sp_strategy_name((int)key)); break;
    case 2: snprintf(buf, len, "%s", sp_split_name((int)key)); break;
    case 4: snprintf(buf, len, "%dx%d", (uint8_t)(key / 256), (uint8_t)(key % 256)); break;
    default: snprintf(buf, len, "%ld", key);
    }
}

typedef struct {
    long key;
    double q;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->q > y->q) - (x->q < y->q);
}

/* The bias rows: per axis, per value, the rows' median ratio and error. */
static bool bias_table(rs_report *r, double *work)
{
    keyed *k = malloc(r->nrows * sizeof *k);
    if (!k || !(r->bias = malloc(NAXES * r->nrows * sizeof *r->bias))) {
        free(k);
        return false;
    }
    bool nopack = false;
    for (size_t gi = 0; gi < r->ngroups; gi++)
        for (const rs_entry *e = rows_of(r, &r->group[gi]);
             e < rows_of(r, &r->group[gi]) + r->group[gi].fig.rows; e++)
            nopack |= e->config.nopack != 0;
    for (int a = 0; a < NAXES; a++) {
        size_t n = 0;
        if (a == PACK_AXIS && !nopack)
            continue;
        for (size_t gi = 0; gi < r->ngroups; gi++) {
            const rs_report_group *g = &r->group[gi];
            for (const rs_entry *e = rows_of(r, g); e < rows_of(r, g) + g->fig.rows; e++) {
                long key = axis_key(a, &e->config);
                if (key >= 0)
                    k[n++] = (keyed){key, g->scale * rs_estimate(e, g->by_load) / e->measured};
            }
        }
        qsort(k, n, sizeof *k, cmp_keyed);
        for (size_t lo = 0, hi; lo < n; lo = hi) {
            for (hi = lo; hi < n && k[hi].key == k[lo].key; hi++)
                work[hi - lo] = k[hi].q;
            rs_report_bias *b = &r->bias[r->nbias++];
            rs_fidelity f;
            ratio_figures(work, hi - lo, work + (hi - lo), &f);
            *b = (rs_report_bias){.axis = axis_names[a], .rows = hi - lo, .bias = f.bias,
                                  .error_median = f.error_median};
            axis_text(a, k[lo].key, b->value, sizeof b->value);
        }
    }
    free(k);
    return true;
}

/* The overall figures: means over the groups, ratios of every row. */
static void overall(rs_report *r, double *work)
{
    rs_fidelity *a = &r->all;
    double *sum[] = {&a->spearman, &a->kendall, &a->regret};
    size_t defined[3] = {0};
    *a = (rs_fidelity){.rows = r->nrows, .best_rank = NAN};
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const rs_fidelity *f = &r->group[gi].fig;
        const double v[] = {f->spearman, f->kendall, f->regret};
        for (int i = 0; i < 3; i++)
            if (isfinite(v[i]))
                *sum[i] += v[i], defined[i]++;
        for (int k = 0; k < RS_NRECALL; k++)
            a->recall[k] += f->recall[k] / (double)r->ngroups;
    }
    for (int i = 0; i < 3; i++)
        *sum[i] = defined[i] ? *sum[i] / (double)defined[i] : NAN;
    size_t n = 0;
    for (size_t gi = 0; gi < r->ngroups; gi++) {
        const rs_report_group *g = &r->group[gi];
        for (const rs_entry *e = rows_of(r, g); e < rows_of(r, g) + g->fig.rows; e++)
            work[n++] = g->scale * rs_estimate(e, g->by_load) / e->measured;
    }
    ratio_figures(work, n, work + n, a);
}

/* A group's rows in the items sorted by_journal: lo to hi. */
typedef struct {
    const item *first;
    size_t lo, hi;
} span;

/* Groups in the order first met: by where their first row was read. */
static int cmp_span(const void *a, const void *b)
{
    return read_cmp(((const span *)a)->first, ((const span *)b)->first);
}

/* Keeps the last row of each (group, config) of the items sorted by_config
 * (a later journal's row replaces an earlier one's), if it is ok. */
static size_t last_ok(item *v, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool last = i + 1 == n || group_cmp(&v[i + 1].e, &v[i].e) != 0 ||
                    sp_cmp_config(&v[i + 1].e.config, &v[i].e.config) != 0;
        if (last && strcmp(v[i].e.status, "ok") == 0)
            v[kept++] = v[i];
    }
    return kept;
}

static bool build(rs_report *r, item *v, size_t n, const char *const *paths, char *err,
                  size_t errlen)
{
    span *sp = malloc(n * sizeof *sp);
    double *work = malloc(4 * n * sizeof *work);
    bool ok = sp && work && (r->rows = malloc(n * sizeof *r->rows)) &&
              (r->group = calloc(n, sizeof *r->group)) &&
              (r->scale = calloc(n, sizeof *r->scale));
    size_t ns = 0;
    for (size_t lo = 0, hi; ok && lo < n; lo = hi) {
        for (hi = lo; hi < n && group_cmp(&v[hi].e, &v[lo].e) == 0; hi++)
            ;
        sp[ns++] = (span){&v[lo], lo, hi};
    }
    if (ok)
        qsort(sp, ns, sizeof *sp, cmp_span);
    for (size_t s = 0; ok && s < ns; s++) {
        rs_report_group *g = &r->group[r->ngroups];
        const rs_entry *first = &v[sp[s].lo].e;
        ok = check_group(v + sp[s].lo, sp[s].hi - sp[s].lo, paths, &g->by_load, err, errlen);
        if (!ok)
            break;
        g->problem = first->problem;
        strcpy(g->target, first->target);
        strcpy(g->backend, first->backend);
        strcpy(g->unit, first->unit);
        g->first = r->nrows;
        g->fig.rows = sp[s].hi - sp[s].lo;
        r->ngroups++;
        for (size_t i = sp[s].lo; i < sp[s].hi; i++)
            r->rows[r->nrows++] = v[i].e;
    }
    if (ok) {
        ok = fit_scales(r, work);
        for (size_t gi = 0; ok && gi < r->ngroups; gi++) {
            rs_report_group *g = &r->group[gi];
            ok = group_figures(g, rows_of(r, g), g->fig.rows, work);
        }
        ok = ok && bias_table(r, work);
        if (ok)
            overall(r, work);
    }
    if (!ok && !*err)
        snprintf(err, errlen, "out of memory");
    free(sp), free(work);
    return ok;
}

/* The report of the items all (each (group, config) with its last row, if
 * ok); paths name their files in messages. Frees all's rows. */
static bool report_items(items *all, const char *const *paths, size_t n, rs_report *r,
                         char *err, size_t errlen)
{
    qsort(all->v, all->n, sizeof *all->v, by_config);
    all->n = last_ok(all->v, all->n);
    bool ok = all->n > 0;
    if (!ok)
        snprintf(err, errlen, "no measurements with status ok in %s%s", paths[0],
                 n > 1 ? " and the other journals" : "");
    if (ok) {
        qsort(all->v, all->n, sizeof *all->v, by_journal);
        ok = build(r, all->v, all->n, paths, err, errlen);
    }
    free(all->v);
    if (!ok)
        rs_report_free(r);
    return ok;
}

bool rs_report_read(const char *const *paths, size_t n, rs_report *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    items all = {0};
    bool ok = true;
    err[0] = '\0';
    for (size_t i = 0; ok && i < n; i++)
        ok = gather(paths[i], i, &all, err, errlen);
    if (!ok) {
        free(all.v);
        return false;
    }
    return report_items(&all, paths, n, r, err, errlen);
}

bool rs_report_rows(const rs_entry *rows, size_t n, const char *what, rs_report *r, char *err,
                    size_t errlen)
{
    memset(r, 0, sizeof *r);
    err[0] = '\0';
    items all = {malloc((n ? n : 1) * sizeof *all.v), n, n};
    if (!all.v) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        all.v[i] = (item){rows[i], 0};
    return report_items(&all, &what, 1, r, err, errlen);
}

void rs_report_free(rs_report *r)
{
    free(r->group);
    free(r->scale);
    free(r->bias);
    free(r->rows);
    memset(r, 0, sizeof *r);
}
