/* report_cmd.c — `npu-tune report JOURNAL.csv... [--format text|csv]`: how well
 * the model ranked and predicted what the journals measured (results/fidelity.c). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "results.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune report JOURNAL.csv... [--format text|csv]\n"
    "  the model's estimate against the journals' measurements, per problem and shape and\n"
    "  overall: rank correlations, the first pick's regret, top-k recall, errors, and the\n"
    "  bias per core count, strategy, split, double buffering and micro-tile\n";

static int usage(const char *why) { return tn_usage("report", usage_text, why); }

/* ---- text: aligned columns ---- */

enum { CELL = SP_SHAPE_MAX + 8, MAXCOLS = 20 };

typedef struct {
    const char *name;
    bool left; /* text, aligned left; numbers right */
} column;

/* Fills the cells of table row i (0 <= i < the rows table_print was given). */
typedef void row_fn(const void *ctx, size_t i, char (*cell)[CELL]);

/* Prints the column names and rows 0..nrows of fill in aligned columns: a
 * first pass finds each column's width, the second prints (nothing is kept
 * per row, however many there are). */
static void table_print(const column *col, int ncol, size_t nrows, row_fn *fill, const void *ctx)
{
    int width[MAXCOLS] = {0};
    char cell[MAXCOLS][CELL];
    for (int pass = 0; pass < 2; pass++)
        for (size_t r = 0; r <= nrows; r++) {
            memset(cell, 0, sizeof cell);
            for (int c = 0; r == 0 && c < ncol; c++)
                snprintf(cell[c], CELL, "%s", col[c].name);
            if (r > 0)
                fill(ctx, r - 1, cell);
            if (pass == 0) {
                for (int c = 0; c < ncol; c++)
                    if ((int)strlen(cell[c]) > width[c])
                        width[c] = (int)strlen(cell[c]);
                continue;
            }
            char line[MAXCOLS * (CELL + 2)];
            int n = 0;
            for (int c = 0; c < ncol; c++)
                n += snprintf(line + n, sizeof line - (size_t)n, "%s%*s", c ? "  " : "",
                              col[c].left ? -width[c] : width[c], cell[c]);
            while (n > 0 && line[n - 1] == ' ') /* no trailing blanks */
                line[--n] = '\0';
            puts(line);
        }
}

/* A figure as text: printf of v, or "-" when it is not a number. */
static void figure(char *cell, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(cell, CELL, fmt, v);
    else
        snprintf(cell, CELL, "-");
}

static const column shape_cols[] = {
    {"problem", true}, {"shape", true},   {"dtype", true},    {"target", true},
    {"backend", true}, {"unit", true},    {"rows", false},    {"spearman", false},
    {"kendall", false}, {"regret", false}, {"rank", false},   {"top1", false},
    {"top5", false},   {"top10", false},  {"err_med", false}, {"err_p90", false},
    {"bias", false}};
enum { NSHAPE_COLS = sizeof shape_cols / sizeof *shape_cols, FIRST_FIGURE = 6 };

/* The figures of f into the cells from "rows" on; recall of a group: yes or
 * no; overall (of ngroups): how many groups. */
static void figure_cells(char (*row)[CELL], const rs_fidelity *f, size_t ngroups, bool all)
{
    char (*cell)[CELL] = row + FIRST_FIGURE;
    snprintf(cell[0], CELL, "%zu", f->rows);
    figure(cell[1], "%.4f", f->spearman);
    figure(cell[2], "%.4f", f->kendall);
    figure(cell[3], "%.2f%%", 100 * f->regret);
    figure(cell[4], "%.0f", f->best_rank);
    for (int k = 0; k < RS_NRECALL; k++) {
        if (all)
            snprintf(cell[5 + k], CELL, "%.0f/%zu", f->recall[k] * (double)ngroups, ngroups);
        else
            snprintf(cell[5 + k], CELL, "%s", f->recall[k] > 0 ? "yes" : "no");
    }
    figure(cell[8], "%.2f%%", 100 * f->error_median);
    figure(cell[9], "%.2f%%", 100 * f->error_p90);
    figure(cell[10], "%.3f", f->bias);
}

/* The unit every group shares, or "" when they differ. */
static const char *common_unit(const rs_report *r)
{
    for (size_t i = 1; i < r->ngroups; i++)
        if (strcmp(r->group[i].unit, r->group[0].unit) != 0)
            return "";
    return r->group[0].unit;
}

/* What each figure means, printed under the tables. */
static const char *const legend[] = {
    "rows       configs measured ok, each once with the search's figure (a final's re-measurement is",
    "           left out: it is another protocol; a failed verification removes the config)",
    "spearman   Spearman's rank correlation of estimate and measurement (1: the same order)",
    "kendall    Kendall's tau-b: (concordant - discordant pairs) / sqrt(untied pairs of each sample)",
    "regret     how much slower the model's first pick among the rows measured than the best of them",
    "rank       the best measured config's place in the model's order of the rows (1: first);",
    "           top1, top5, top10: whether it is among the model's first 1, 5, 10",
    "err_med    median of |estimate/measured - 1|; err_p90: its 90th percentile",
    "bias       median estimate/measured: above 1 the model over-charges, below 1 it under-charges",
    "all        rows summed; spearman, kendall and regret averaged over the shapes (- where",
    "           undefined: one row, or one value); topN: the shapes that hit; errors and bias of every row",
};

/* Row i of the shapes' table: group i, then the overall line. */
static void shape_row(const void *ctx, size_t i, char (*cell)[CELL])
{
    const rs_report *r = ctx;
    if (i == r->ngroups) {
        snprintf(cell[0], CELL, "all");
        snprintf(cell[5], CELL, "%s", common_unit(r));
        figure_cells(cell, &r->all, r->ngroups, true);
        return;
    }
    const rs_report_group *g = &r->group[i];
    snprintf(cell[0], CELL, "%s", g->problem.name);
    sp_problem_shape(&g->problem, cell[1], CELL);
    snprintf(cell[2], CELL, "%s", sp_dtype_name(g->problem.dtype));
    snprintf(cell[3], CELL, "%s", g->target);
    snprintf(cell[4], CELL, "%s", g->backend);
    snprintf(cell[5], CELL, "%s", g->unit);
    figure_cells(cell, &g->fig, r->ngroups, false);
}

static const column bias_cols[] = {
    {"axis", true}, {"value", true}, {"rows", false}, {"bias", false}, {"err_med", false}};

static void bias_row(const void *ctx, size_t i, char (*cell)[CELL])
{
    const rs_report_bias *b = &((const rs_report *)ctx)->bias[i];
    snprintf(cell[0], CELL, "%s", b->axis);
    snprintf(cell[1], CELL, "%s", b->value);
    snprintf(cell[2], CELL, "%zu", b->rows);
    figure(cell[3], "%.3f", b->bias);
    figure(cell[4], "%.2f%%", 100 * b->error_median);
}

static void print_text(const rs_report *r, size_t njournals)
{
    printf("the model's estimate against %zu configs measured ok: %zu shape%s of %zu journal%s\n\n",
           r->nrows, r->ngroups, r->ngroups == 1 ? "" : "s", njournals, njournals == 1 ? "" : "s");
    table_print(shape_cols, NSHAPE_COLS, r->ngroups + 1, shape_row, r);
    printf("\nbias by config: the rows of every shape with that value\n");
    table_print(bias_cols, sizeof bias_cols / sizeof *bias_cols, r->nbias, bias_row, r);
    printf("\n");
    for (size_t i = 0; i < sizeof legend / sizeof *legend; i++)
        puts(legend[i]);
    for (size_t i = 0; i < r->nscales; i++) {
        const rs_report_scale *s = &r->scale[i];
        const char *est = s->by_load ? "load_volume_elems" : "est_cycles";
        if (s->fitted)
            printf("scale      %s on %s (%s): %s x %.4g %s per estimate unit, the median "
                   "measured/estimate of its %zu rows; errors and bias use the scaled estimate\n",
                   s->backend, s->target, s->unit, est, s->scale, s->unit, s->rows);
        else if (r->nscales > 1)
            printf("scale      %s on %s (%s): %s as it is\n", s->backend, s->target, s->unit, est);
    }
}

/* ---- csv ---- */

/* The CSV's columns: one row per shape, one for all rows, one per bias. */
enum {
    C_SCOPE, C_VALUE, C_PROBLEM, C_M, C_N, C_K, C_BATCH, C_DTYPE, C_TARGET, C_BACKEND, C_UNIT,
    C_ESTIMATE, C_SCALE, C_ROWS, C_SPEARMAN, C_KENDALL, C_REGRET, C_BEST_RANK, C_TOP1, C_TOP5,
    C_TOP10, C_ERROR_MEDIAN, C_ERROR_P90, C_BIAS, NCOLS
};
static const char *const csv_columns[NCOLS] = {
    "scope", "value", "problem", "M", "N", "K", "batch", "dtype", "target", "backend", "unit",
    "estimate", "scale", "rows", "spearman", "kendall_tau_b", "first_pick_regret", "best_rank",
    "top1", "top5", "top10", "error_median", "error_p90", "bias"};

/* One CSV row: each column's text (NULL: empty) and room for its numbers. */
typedef struct {
    const char *f[NCOLS];
    char text[NCOLS][32];
} csv_row;

/* Column c holds v: %.6g, empty when it is not a number. */
static void set_num(csv_row *w, int c, double v)
{
    if (isfinite(v)) {
        snprintf(w->text[c], sizeof w->text[c], "%.6g", v);
        w->f[c] = w->text[c];
    }
}

static void set_int(csv_row *w, int c, long long v)
{
    snprintf(w->text[c], sizeof w->text[c], "%lld", v);
    w->f[c] = w->text[c];
}

static void put_row(const csv_row *w)
{
    char line[2048];
    size_t n = bs_csv_join(line, sizeof line, w->f, NCOLS);
    fwrite(line, 1, n < sizeof line ? n : sizeof line - 1, stdout);
}

static void set_figures(csv_row *w, const rs_fidelity *f)
{
    set_int(w, C_ROWS, (long long)f->rows);
    const double v[] = {f->spearman, f->kendall, f->regret, f->best_rank, f->recall[0],
                        f->recall[1], f->recall[2], f->error_median, f->error_p90, f->bias};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        set_num(w, C_SPEARMAN + i, v[i]);
}

static void print_csv(const rs_report *r)
{
    csv_row head = {0};
    for (int c = 0; c < NCOLS; c++)
        head.f[c] = csv_columns[c];
    put_row(&head);
    for (size_t i = 0; i < r->ngroups; i++) {
        const rs_report_group *g = &r->group[i];
        const sp_problem *p = &g->problem;
        csv_row w = {.f = {[C_SCOPE] = "shape", [C_PROBLEM] = p->name,
                           [C_DTYPE] = sp_dtype_name(p->dtype), [C_TARGET] = g->target,
                           [C_BACKEND] = g->backend, [C_UNIT] = g->unit,
                           [C_ESTIMATE] = g->by_load ? "load_volume_elems" : "est_cycles"}};
        set_int(&w, C_M, (long long)p->M);
        set_int(&w, C_N, (long long)p->N);
        set_int(&w, C_K, (long long)p->K);
        set_int(&w, C_BATCH, (long long)p->batch);
        set_num(&w, C_SCALE, g->scale);
        set_figures(&w, &g->fig);
        put_row(&w);
    }
    csv_row all = {.f = {[C_SCOPE] = "all", [C_UNIT] = common_unit(r)}};
    set_figures(&all, &r->all);
    put_row(&all);
    for (size_t i = 0; i < r->nbias; i++) {
        const rs_report_bias *b = &r->bias[i];
        csv_row w = {.f = {[C_SCOPE] = b->axis, [C_VALUE] = b->value}};
        set_int(&w, C_ROWS, (long long)b->rows);
        set_num(&w, C_ERROR_MEDIAN, b->error_median);
        set_num(&w, C_BIAS, b->bias);
        put_row(&w);
    }
}

/* npu-tune report JOURNAL.csv... [--format text|csv] */
int tn_report(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool csv = false;
    char why[256];
    int o;
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "csv")) {
                snprintf(why, sizeof why, "--format '%s' is not text or csv", optarg);
                return usage(why);
            }
            csv = strcmp(optarg, "csv") == 0;
            break;
        case 'h': return usage(NULL);
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind >= argc)
        return usage("a JOURNAL.csv is required");
    rs_report r;
    char err[1024];
    size_t n = (size_t)(argc - optind);
    if (!rs_report_read((const char *const *)argv + optind, n, &r, err, sizeof err)) {
        tn_error("%s", err);
        return TN_ERROR;
    }
    if (csv)
        print_csv(&r);
    else
        print_text(&r, n);
    rs_report_free(&r);
    return TN_OK;
}
