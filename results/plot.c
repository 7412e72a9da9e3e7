/* plot.c — the pictures of a results journal: reads its ok rows per shape
 * (rs_report_read), writes small data files and renders them with gnuplot
 * (scripts embedded or $NPU_TUNE_PLOTS). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

/* The registry of plots: NAME is drawn by draw_NAME from the gnuplot script
 * results/plots/NAME.gp (CMake embeds every script of that folder as
 * rs_plot_NAME_gp), and shows what the text says (--help lists it). */
#define RS_PLOTS(X)                                                                 \
    X(measured_vs_model, "every ok measurement against the model's estimate, the best " \
                         "and the model's first pick of each shape marked")        \
    X(strategies, "per shape, the best measurement of each strategy")              \
    X(tiles, "per shape (tiles_SHAPE), the measured tile plane of its best strategy")

#define EMBEDDED(name, what) extern const char rs_plot_##name##_gp[]; \
    extern const size_t rs_plot_##name##_gp_len;
RS_PLOTS(EMBEDDED)
#define INDEX(name, what) PLOT_##name,
enum { RS_PLOTS(INDEX) NPLOTS };
#define SCRIPT(name, what) {#name, #name ".gp", rs_plot_##name##_gp, &rs_plot_##name##_gp_len, what},

static const struct {
    const char *name;
    const char *file; /* its script's name in results/plots/ and $NPU_TUNE_PLOTS */
    const char *text;
    const size_t *len;
    const char *what;
} plots[NPLOTS] = {RS_PLOTS(SCRIPT)};

const char *rs_plot_name(int i) { return i >= 0 && i < NPLOTS ? plots[i].name : NULL; }
const char *rs_plot_what(int i) { return i >= 0 && i < NPLOTS ? plots[i].what : NULL; }

/* ---- a growing string, for gnuplot's -e argument ---- */

/* Appends name='value' with gnuplot's quoting ('' inside single quotes). */
static void sb_var(bs_buf *b, const char *name, const char *value)
{
    bs_buf_printf(b, "%s='", name);
    for (const char *p = value; *p; p++)
        bs_buf_printf(b, *p == '\'' ? "''" : "%c", *p);
    bs_buf_printf(b, "'; ");
}

/* The journal's ok rows per shape (rs_report: each config once, the model's
 * pick and the best measured), and which strategies they hold. */
typedef struct {
    rs_report r;
    bool has[SP_NSTRATEGY];
    const char *unit; /* a journal holds one */
} pdata;

/* How an axis over values in [lo, hi] is drawn, the plots' variables logx,
 * logy, logcb: 0 linear (they span less than a decade: a log axis would show
 * no power of ten), 1 log with numbers at 1, 2 and 5 times the powers of ten
 * (up to three decades), 2 log with numbers at the powers. */
static int axis_kind(double lo, double hi)
{
    return hi < 10 * lo ? 0 : hi < 1000 * lo ? 1 : 2;
}

/* The group's label: "problem SHAPE[ dtype]" (fp16 unsaid), the shape as
 * its op writes it ("512x768x768", "64x64x64 b4"). */
static void shape_label(const rs_report_group *g, char *buf, size_t len)
{
    const sp_problem *p = &g->problem;
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    int n = snprintf(buf, len, "%s %s", p->name, shape);
    if (p->dtype != SP_FP16 && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " %s", sp_dtype_name(p->dtype));
}

/* ---- data files ---- */

static bool write_model_data(FILE *f, void *ctx)
{
    const pdata *d = ctx;
    fprintf(f, "# estimate measured(%s) strategy problem M N K batch m n k double_buffer "
               "cores split mark (best: the best measured of its shape; pick: the model's "
               "first pick; both)\n", d->unit);
    for (size_t gi = 0; gi < d->r.ngroups; gi++) {
        const rs_report_group *g = &d->r.group[gi];
        const sp_problem *p = &g->problem;
        for (size_t i = g->first; i < g->first + g->fig.rows; i++) {
            const rs_entry *e = &d->r.rows[i];
            const sp_config *c = &e->config;
            bool best = e == g->best, pick = e == g->pick;
            fprintf(f, "%.10g %.10g %s %s %lld %lld %lld %lld %d %d %d %d %d %s %s\n",
                    rs_estimate(e, g->by_load), e->measured, sp_strategy_name(c->strategy),
                    p->name, (long long)p->M, (long long)p->N, (long long)p->K,
                    (long long)p->batch, c->m, c->n, c->k, c->double_buffer, c->cores,
                    sp_split_name(c->split),
                    best && pick ? "both" : best ? "best" : pick ? "pick" : "-");
        }
    }
    return true;
}

/* The strategies plot's data: the best measurement of each shape (group)
 * and strategy, best[g * SP_NSTRATEGY + s], 0 if none. */
typedef struct {
    const pdata *d;
    double *best;
} strategy_data;

static void fill_best(const pdata *d, double *best)
{
    for (size_t gi = 0; gi < d->r.ngroups; gi++) {
        const rs_report_group *g = &d->r.group[gi];
        double *b = &best[gi * SP_NSTRATEGY];
        for (size_t i = g->first; i < g->first + g->fig.rows; i++) {
            const rs_entry *e = &d->r.rows[i];
            double *x = &b[e->config.strategy];
            if (*x == 0 || e->measured < *x)
                *x = e->measured;
        }
    }
}

static bool write_strategy_data(FILE *f, void *ctx)
{
    const strategy_data *sd = ctx;
    const pdata *d = sd->d;
    fprintf(f, "# shape");
    for (int s = 0; s < SP_NSTRATEGY; s++)
        if (d->has[s])
            fprintf(f, " %s", sp_strategy_name(s));
    fprintf(f, "   (best measured, %s; - = none measured)\n", d->unit);
    for (size_t gi = 0; gi < d->r.ngroups; gi++) {
        char label[SP_NAME_MAX + SP_SHAPE_MAX + 16];
        shape_label(&d->r.group[gi], label, sizeof label);
        fprintf(f, "\"%s\"", label);
        for (int s = 0; s < SP_NSTRATEGY; s++) {
            double v = sd->best[gi * SP_NSTRATEGY + (size_t)s];
            if (v > 0)
                fprintf(f, " %.10g", v);
            else if (d->has[s])
                fprintf(f, " -");
        }
        fputc('\n', f);
    }
    return true;
}

/* The best row per (m, n) of one shape and strategy, sorted by m then n. */
typedef struct {
    const rs_entry **p;
    size_t n;
} tile_plane;

static int cmp_tile(const void *a, const void *b)
{
    const rs_entry *x = *(const rs_entry *const *)a, *y = *(const rs_entry *const *)b;
    if (x->config.m != y->config.m)
        return x->config.m < y->config.m ? -1 : 1;
    if (x->config.n != y->config.n)
        return x->config.n < y->config.n ? -1 : 1;
    return (x->measured > y->measured) - (x->measured < y->measured);
}

static bool write_tile_data(FILE *f, void *ctx)
{
    const tile_plane *t = ctx;
    fprintf(f, "# m n measured k double_buffer cores split (best over k and settings)\n");
    for (size_t i = 0; i < t->n; i++) {
        const sp_config *c = &t->p[i]->config;
        fprintf(f, "%d %d %.10g %d %d %d %s\n", c->m, c->n, t->p[i]->measured, c->k,
                c->double_buffer, c->cores, sp_split_name(c->split));
    }
    return true;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Smallest gap between distinct values (v sorted in place); 16 if one value. */
static int grid_step(int *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_int);
    int step = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[i - 1] && (step == 0 || v[i] - v[i - 1] < step))
            step = v[i] - v[i - 1];
    return step ? step : 16;
}

/* ---- running gnuplot ---- */

/* gnuplot's full path from PATH into out; false if none. */
static bool find_gnuplot(char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        int w = snprintf(out, len, "%.*s/gnuplot", (int)n, n ? path : ".");
        struct stat st;
        if (w > 0 && (size_t)w < len && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* The line of gnuplot's stderr worth showing: its "FILE" line N: error if
 * there is one, else the first non-blank line; script (if not NULL) is
 * replaced by name. */
static void gnuplot_message(char *text, const char *script, const char *name, char *out,
                            size_t len)
{
    char *pick = NULL;
    for (char *l = text; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        if (l[strspn(l, " \t\r")] != '\0') {
            if (!pick)
                pick = l;
            if (strstr(l, "\" line ") && strstr(l, ": ")) {
                pick = l;
                break;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    if (!pick) {
        snprintf(out, len, "no message");
        return;
    }
    pick += strspn(pick, " \t");
    pick[strcspn(pick, "\r")] = '\0';
    char *at = script ? strstr(pick, script) : NULL;
    if (at)
        snprintf(out, len, "%.*s%s%s", (int)(at - pick), pick, name, at + strlen(script));
    else
        snprintf(out, len, "%s", pick);
}

/* Runs gnuplot -e VARS SCRIPT; false with a one-line reason if it fails or
 * leaves no output file. A temporary script is called by its name in messages. */
static bool run_gnuplot(const char *gnuplot, const char *vars, const char *script,
                        const char *name, bool temporary, const char *term, const char *out,
                        char *err, size_t errlen)
{
    if (unlink(out) && errno != ENOENT) {
        snprintf(err, errlen, "cannot replace '%s': %s", out, strerror(errno));
        return false;
    }
    const char *argv[] = {gnuplot, "-e", vars, script, NULL};
    bs_spawn_opts o = {.argv = argv, .io = {BS_NULL, BS_NULL, BS_PIPE}};
    bs_result *r = malloc(sizeof *r);
    if (!r) {
        snprintf(err, errlen, "cannot run '%s': out of memory", gnuplot);
        return false;
    }
    bs_run(&o, 0, r); /* no timeout: gnuplot's time grows with the journal */
    if (r->spawn_error) {
        snprintf(err, errlen, "cannot run '%s': %s", gnuplot, strerror(r->spawn_error));
        free(r);
        return false;
    }
    struct stat st;
    bool ok = r->exited && r->code == 0;
    if (ok && (stat(out, &st) || st.st_size == 0)) {
        char msg[512];
        gnuplot_message(r->err, temporary ? script : NULL, name, msg, sizeof msg);
        snprintf(err, errlen, "gnuplot wrote no '%s' with %s (%s)", out, name, msg);
        ok = false;
    } else if (!ok) {
        char msg[512];
        if (r->errlen)
            gnuplot_message(r->err, temporary ? script : NULL, name, msg, sizeof msg);
        else if (r->exited)
            snprintf(msg, sizeof msg, "exit status %d", r->code);
        else
            snprintf(msg, sizeof msg, "killed by signal %d", r->signal);
        snprintf(err, errlen, "gnuplot failed on %s (%s): %s", name, term, msg);
    }
    free(r);
    return ok;
}

/* Where the scripts are read from: $NPU_TUNE_PLOTS, else temporary copies
 * of the embedded ones in the output directory. */
typedef struct {
    char *path[NPLOTS];
    bool temporary[NPLOTS];
} script_set;

static void scripts_free(script_set *s)
{
    for (int i = 0; i < NPLOTS; i++) {
        if (s->path[i] && s->temporary[i])
            unlink(s->path[i]);
        free(s->path[i]);
    }
}

typedef struct {
    const char *text;
    size_t len;
} script_text;

/* bs_write_atomic's writer of a script_text. */
static bool put_text(FILE *f, void *ctx)
{
    const script_text *t = ctx;
    return fwrite(t->text, 1, t->len, f) == t->len;
}

static bool scripts_prepare(script_set *s, const char *dir, char *err, size_t errlen)
{
    const char *from = getenv("NPU_TUNE_PLOTS");
    for (int i = 0; i < NPLOTS; i++) {
        size_t len = strlen(from && *from ? from : dir) + strlen(plots[i].file) + 32;
        if (!(s->path[i] = malloc(len))) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        if (from && *from) {
            snprintf(s->path[i], len, "%s/%s", from, plots[i].file);
            if (access(s->path[i], R_OK)) {
                snprintf(err, errlen, "NPU_TUNE_PLOTS: cannot read '%s': %s", s->path[i],
                         strerror(errno));
                return false;
            }
            continue;
        }
        /* DIR/.NAME.PID: this process's copy, written like every other file */
        snprintf(s->path[i], len, "%s/.%s.%ld", dir, plots[i].file, (long)getpid());
        script_text text = {plots[i].text, *plots[i].len};
        if (!bs_write_atomic(s->path[i], put_text, &text, err, errlen))
            return false;
        s->temporary[i] = true;
    }
    return true;
}

/* ---- the plots ---- */

typedef struct {
    const char *gnuplot, *dir;
    script_set scripts;
} renderer;

/* Renders script sc into DIR/base.png and DIR/base.svg with the variables
 * common (already formatted "a=1; b='x'; "). */
static bool render(renderer *r, int sc, const char *base, const char *data, const char *common,
                   char *err, size_t errlen)
{
    static const char *const terms[] = {"png", "svg"};
    for (int t = 0; t < 2; t++) {
        bs_buf vars = {0}, out = {0};
        bs_buf_printf(&out, "%s/%s.%s", r->dir, base, terms[t]);
        sb_var(&vars, "in", data);
        sb_var(&vars, "out", out.s ? out.s : "");
        sb_var(&vars, "term", terms[t]);
        bs_buf_printf(&vars, "%s", common);
        bool ok = !vars.oom && !out.oom;
        if (!ok)
            snprintf(err, errlen, "out of memory");
        else
            ok = run_gnuplot(r->gnuplot, vars.s, r->scripts.path[sc], plots[sc].file,
                             r->scripts.temporary[sc], terms[t], out.s, err, errlen);
        free(vars.s);
        free(out.s);
        if (!ok)
            return false;
    }
    return true;
}

/* Writes the data file DIR/base.dat with writer and renders script sc from
 * it with the variables vars; frees vars. Out of memory if vars ran out. */
static bool emit(renderer *r, int sc, const char *base, bs_buf *vars,
                 bool (*writer)(FILE *, void *), void *ctx, char *err, size_t errlen)
{
    bs_buf data = {0};
    bs_buf_printf(&data, "%s/%s.dat", r->dir, base);
    bool ok = !data.oom && !vars->oom;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else
        ok = bs_write_atomic(data.s, writer, ctx, err, errlen) &&
             render(r, sc, base, data.s, vars->s, err, errlen);
    free(data.s);
    free(vars->s);
    return ok;
}

/* The estimates' and the measurements' ranges; the estimate is in cycles, or
 * in elements where a shape's rows lack est_cycles. */
static bool draw_measured_vs_model(renderer *r, int sc, const pdata *d, bs_buf *common, char *err,
                                   size_t errlen)
{
    double elo = INFINITY, ehi = 0, mlo = INFINITY, mhi = 0;
    bool by_load = false;
    for (size_t gi = 0; gi < d->r.ngroups; gi++) {
        const rs_report_group *g = &d->r.group[gi];
        by_load |= g->by_load;
        for (size_t i = g->first; i < g->first + g->fig.rows; i++) {
            double e = rs_estimate(&d->r.rows[i], g->by_load), m = d->r.rows[i].measured;
            elo = fmin(elo, e), ehi = fmax(ehi, e), mlo = fmin(mlo, m), mhi = fmax(mhi, m);
        }
    }
    bs_buf vars = {0};
    /* the reference line: measured = scale x estimate (rs_report_scale), when
     * every shape has the same scale (else 0: no line) */
    double scale = d->r.ngroups ? d->r.group[0].scale : 0;
    for (size_t gi = 1; gi < d->r.ngroups; gi++)
        if (d->r.group[gi].scale != scale)
            scale = 0;
    bs_buf_printf(&vars, "%sscale=%.10g; logx=%d; logy=%d; ", common->s, scale, axis_kind(elo, ehi),
              axis_kind(mlo, mhi));
    sb_var(&vars, "estimate", by_load ? "cycles, or elements of load volume" : "cycles");
    return emit(r, sc, plots[sc].name, &vars, write_model_data, (void *)d, err, errlen);
}

static bool draw_strategies(renderer *r, int sc, const pdata *d, bs_buf *common, char *err,
                            size_t errlen)
{
    strategy_data sd = {d, calloc(d->r.ngroups * SP_NSTRATEGY + 1, sizeof *sd.best)};
    if (!sd.best) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    fill_best(d, sd.best);
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < d->r.ngroups * SP_NSTRATEGY; i++)
        if (sd.best[i] > 0)
            lo = fmin(lo, sd.best[i]), hi = fmax(hi, sd.best[i]);
    bs_buf vars = {0};
    bs_buf_printf(&vars, "%snshapes=%zu; logx=%d; low=%.10g; ", common->s, d->r.ngroups,
              axis_kind(lo, hi), lo);
    bool ok = emit(r, sc, plots[sc].name, &vars, write_strategy_data, &sd, err, errlen);
    free(sd.best);
    return ok;
}

/* The tile plane of group gi for its best strategy. */
static bool tile_plane_of(renderer *r, int sc, const pdata *d, size_t gi, bs_buf *common,
                          char *err, size_t errlen)
{
    const rs_report_group *g = &d->r.group[gi];
    const sp_problem *p = &g->problem;
    int best = g->best->config.strategy;
    size_t n = g->fig.rows;
    tile_plane t = {malloc(n * sizeof *t.p), 0};
    int *ms = malloc(n * sizeof *ms), *ns = malloc(n * sizeof *ns);
    bs_buf base = {0}, vars = {0};
    bool ok = t.p && ms && ns;
    if (ok) {
        for (size_t i = g->first; i < g->first + n; i++)
            if (d->r.rows[i].config.strategy == best)
                t.p[t.n++] = &d->r.rows[i];
        qsort(t.p, t.n, sizeof *t.p, cmp_tile);
        size_t kept = 0; /* the first of each (m, n) is its best */
        for (size_t i = 0; i < t.n; i++)
            if (kept == 0 || t.p[i]->config.m != t.p[kept - 1]->config.m ||
                t.p[i]->config.n != t.p[kept - 1]->config.n)
                t.p[kept++] = t.p[i];
        t.n = kept;
        double lo = INFINITY, hi = 0;
        for (size_t i = 0; i < t.n; i++) {
            ms[i] = t.p[i]->config.m;
            ns[i] = t.p[i]->config.n;
            lo = fmin(lo, t.p[i]->measured);
            hi = fmax(hi, t.p[i]->measured);
        }
        char label[SP_NAME_MAX + SP_SHAPE_MAX + 16];
        shape_label(g, label, sizeof label);
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(p, shape, sizeof shape);
        for (char *c = shape; (c = strchr(c, ' ')); ) /* a file name without spaces */
            *c = '_';
        bs_buf_printf(&base, "tiles_%s_%s", p->name, shape);
        if (p->dtype != SP_FP16)
            bs_buf_printf(&base, "_%s", sp_dtype_name(p->dtype));
        bs_buf_printf(&vars, "%s", common->s);
        sb_var(&vars, "label", label);
        sb_var(&vars, "strategy", sp_strategy_name(best));
        bs_buf_printf(&vars, "dm=%d; dn=%d; bestm=%d; bestn=%d; logcb=%d; ", grid_step(ms, t.n),
                  grid_step(ns, t.n), g->best->config.m, g->best->config.n, axis_kind(lo, hi));
        ok = !base.oom;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        free(vars.s);
    } else
        ok = emit(r, sc, base.s, &vars, write_tile_data, &t, err, errlen);
    free(t.p);
    free(ms);
    free(ns);
    free(base.s);
    return ok;
}

static bool draw_tiles(renderer *r, int sc, const pdata *d, bs_buf *common, char *err,
                       size_t errlen)
{
    bool ok = true;
    for (size_t i = 0; ok && i < d->r.ngroups; i++)
        ok = tile_plane_of(r, sc, d, i, common, err, errlen);
    return ok;
}

#define DRAW(name, what) draw_##name,
static bool (*const draw[NPLOTS])(renderer *, int, const pdata *, bs_buf *, char *,
                                  size_t) = {RS_PLOTS(DRAW)};

/* Reads the journal, writes the data files into dir, renders every plot as
 * PNG and SVG; the first failure stops it with a one-line reason. */
bool rs_plot(const char *journal, const char *dir, char *err, size_t errlen)
{
    pdata d = {0};
    renderer r = {.dir = dir};
    char gnuplot[4096];
    bs_buf common = {0};
    bool ok = rs_report_read(&journal, 1, &d.r, err, errlen);
    if (ok && !find_gnuplot(gnuplot, sizeof gnuplot)) {
        snprintf(err, errlen,
                 "gnuplot not found; install the gnuplot package (apt-get install gnuplot-nox)");
        ok = false;
    }
    r.gnuplot = gnuplot;
    ok = ok && bs_mkdirs(dir, err, errlen);
    ok = ok && scripts_prepare(&r.scripts, dir, err, errlen);
    if (ok) {
        d.unit = d.r.group[0].unit;
        for (size_t i = 0; i < d.r.nrows; i++)
            d.has[d.r.rows[i].config.strategy] = true;
        sb_var(&common, "unit", d.unit);
        bs_buf_printf(&common, "strategies='");
        for (int s = 0, n = 0; s < SP_NSTRATEGY; s++)
            if (d.has[s])
                bs_buf_printf(&common, "%s%s", n++ ? " " : "", sp_strategy_name(s));
        bs_buf_printf(&common, "'; ");
        if (common.oom) {
            snprintf(err, errlen, "out of memory");
            ok = false;
        }
    }
    for (int sc = 0; ok && sc < NPLOTS; sc++)
        ok = draw[sc](&r, sc, &d, &common, err, errlen);
    scripts_free(&r.scripts);
    free(common.s);
    rs_report_free(&d.r);
    return ok;
}
