/* plot.c — the pictures of a results journal: reads its ok rows, writes small
 * data files and renders them with gnuplot (scripts embedded or $NPU_TUNE_PLOTS). */
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
    X(measured_vs_model, "every ok measurement against the model's estimate")      \
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

enum { MAX_STRATEGIES = 16, NAME_LEN = 16 };

/* One ok measurement of the journal. */
typedef struct {
    long long M, N, K, batch;
    int m, n, k, db, cores;
    int shape, strategy; /* indices into the plot's shapes and strategies */
    char split[NAME_LEN];
    double est, measured;
} prow;

/* A shape: the problem (name, dims, dtype) its rows belong to. */
typedef struct {
    char problem[SP_NAME_MAX]; /* as in the journal */
    char safe[SP_NAME_MAX];    /* [A-Za-z0-9_.-] only: for file names and titles */
    char dtype[NAME_LEN];
    long long M, N, K, batch;
    double best[MAX_STRATEGIES]; /* best measured per strategy; 0 = none */
} pshape;

typedef struct {
    const char *path;
    prow *rows;
    size_t n, cap;
    pshape *shapes;
    size_t nshapes, shapecap;
    char strategies[MAX_STRATEGIES][NAME_LEN]; /* in journal order until sorted */
    int nstrategies;
    char unit[NAME_LEN];
} pdata;

/* ---- a growing string, for gnuplot's -e argument ---- */

typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)(n < 0 ? 0 : n) + 1) * 2;
        char *s = n < 0 ? NULL : realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Appends name='value' with gnuplot's quoting ('' inside single quotes). */
static void sb_var(sbuf *b, const char *name, const char *value)
{
    sb_printf(b, "%s='", name);
    for (const char *p = value; *p; p++)
        sb_printf(b, *p == '\'' ? "''" : "%c", *p);
    sb_printf(b, "'; ");
}

/* ---- reading the journal ---- */

/* The journal columns the plot reads, found by name in the header (which
 * may have others, in any order). */
static const rs_field wanted[] = {
    RS_PROBLEM, RS_M, RS_N, RS_K, RS_BATCH, RS_DTYPE, RS_STRATEGY, RS_TILE_M, RS_TILE_N,
    RS_TILE_K, RS_DOUBLE_BUFFER, RS_CORES, RS_SPLIT, RS_EST, RS_STATUS, RS_MEASURED, RS_UNIT};

static bool parse_ll(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

static bool parse_positive(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || !isfinite(x) || x <= 0)
        return false;
    *v = x;
    return true;
}

static bool copy_name(char *dst, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= size)
        return false;
    memcpy(dst, s, n + 1);
    return true;
}

static bool safe_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

static bool name_safe(const char *s)
{
    for (; *s; s++)
        if (!safe_char(*s))
            return false;
    return true;
}

static int find_shape(pdata *d, const prow *r, const char *problem, const char *dtype)
{
    for (size_t i = d->nshapes; i-- > 0;) {
        const pshape *s = &d->shapes[i];
        if (s->M == r->M && s->N == r->N && s->K == r->K && s->batch == r->batch &&
            strcmp(s->problem, problem) == 0 && strcmp(s->dtype, dtype) == 0)
            return (int)i;
    }
    if (d->nshapes == d->shapecap) {
        size_t cap = d->shapecap ? 2 * d->shapecap : 16;
        pshape *s = realloc(d->shapes, cap * sizeof *s);
        if (!s)
            return -1;
        d->shapes = s;
        d->shapecap = cap;
    }
    pshape *s = &d->shapes[d->nshapes];
    memset(s, 0, sizeof *s);
    strcpy(s->problem, problem);
    strcpy(s->dtype, dtype);
    for (size_t i = 0; problem[i]; i++)
        s->safe[i] = safe_char(problem[i]) ? problem[i] : '_';
    s->M = r->M, s->N = r->N, s->K = r->K, s->batch = r->batch;
    return (int)d->nshapes++;
}

/* Parses one data row (fields f, the column of each value in col) into d;
 * false with err. */
static bool add_row(pdata *d, char **f, const int *col, long lineno, char *err, size_t errlen)
{
    prow r = {0};
    long long v[9];
    static const rs_field ints[] = {RS_M,      RS_N,      RS_K,             RS_BATCH, RS_TILE_M,
                                    RS_TILE_N, RS_TILE_K, RS_DOUBLE_BUFFER, RS_CORES};
    for (int i = 0; i < 9; i++) {
        const char *s = f[col[ints[i]]];
        bool bit = ints[i] == RS_DOUBLE_BUFFER;
        if (!parse_ll(s, bit ? 0 : 1, bit ? 1 : (1LL << 40), &v[i])) {
            snprintf(err, errlen, "%s:%ld: bad %s '%s'", d->path, lineno, rs_field_name(ints[i]),
                     s);
            return false;
        }
    }
    r.M = v[0], r.N = v[1], r.K = v[2], r.batch = v[3];
    r.m = (int)v[4], r.n = (int)v[5], r.k = (int)v[6], r.db = (int)v[7], r.cores = (int)v[8];
    const char *problem = f[col[RS_PROBLEM]], *dtype = f[col[RS_DTYPE]];
    const char *strategy = f[col[RS_STRATEGY]], *unit = f[col[RS_UNIT]];
    char dt[NAME_LEN];
    if (strlen(problem) == 0 || strlen(problem) >= SP_NAME_MAX || !copy_name(dt, sizeof dt, dtype) ||
        !copy_name(r.split, sizeof r.split, f[col[RS_SPLIT]]) || strlen(strategy) >= NAME_LEN ||
        !*strategy || !name_safe(strategy) || !name_safe(r.split) || !*unit ||
        strlen(unit) >= NAME_LEN || !name_safe(unit)) {
        snprintf(err, errlen, "%s:%ld: malformed problem, dtype, strategy, split or unit",
                 d->path, lineno);
        return false;
    }
    if (!parse_positive(f[col[RS_EST]], &r.est)) {
        snprintf(err, errlen, "%s:%ld: bad %s '%s'", d->path, lineno, rs_field_name(RS_EST),
                 f[col[RS_EST]]);
        return false;
    }
    if (!parse_positive(f[col[RS_MEASURED]], &r.measured)) {
        snprintf(err, errlen, "%s:%ld: bad %s '%s' (a positive number is needed)", d->path,
                 lineno, rs_field_name(RS_MEASURED), f[col[RS_MEASURED]]);
        return false;
    }
    if (!d->unit[0])
        strcpy(d->unit, unit);
    else if (strcmp(d->unit, unit) != 0) {
        snprintf(err, errlen, "%s:%ld: unit '%s' differs from '%s' of the rows before", d->path,
                 lineno, unit, d->unit);
        return false;
    }
    int si = 0;
    while (si < d->nstrategies && strcmp(d->strategies[si], strategy) != 0)
        si++;
    if (si == d->nstrategies) {
        if (si == MAX_STRATEGIES) {
            snprintf(err, errlen, "%s:%ld: more than %d strategies", d->path, lineno,
                     MAX_STRATEGIES);
            return false;
        }
        strcpy(d->strategies[d->nstrategies++], strategy);
    }
    r.strategy = si;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        prow *rows = realloc(d->rows, cap * sizeof *rows);
        if (rows) {
            d->rows = rows;
            d->cap = cap;
        }
    }
    if (d->n == d->cap || (r.shape = find_shape(d, &r, problem, dt)) < 0) {
        snprintf(err, errlen, "%s: out of memory", d->path);
        return false;
    }
    d->rows[d->n++] = r;
    return true;
}

/* Reads the journal's ok rows. Comment lines (#) are skipped, the header
 * names the columns (extra columns are allowed), a torn last line (no
 * newline) is dropped. */
static bool read_journal(pdata *d, char *err, size_t errlen)
{
    FILE *f = fopen(d->path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", d->path, strerror(errno));
        return false;
    }
    char *line = NULL, *fields[64];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int col[RS_NFIELDS], ncols = 0;
    bool ok = true;
    while (ok && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] != '\n')
            break; /* torn by a kill: not a row yet */
        line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if (line[0] == '#' || (len == 0 && ncols))
            continue;
        int n = bs_csv_split(line, fields, 64);
        if (!ncols) {
            ncols = n;
            for (size_t w = 0; ok && w < sizeof wanted / sizeof *wanted; w++) {
                const char *name = rs_field_name(wanted[w]);
                int *c = &col[wanted[w]];
                *c = -1;
                for (int i = 0; i < n && i < 64; i++)
                    if (strcmp(fields[i], name) == 0)
                        *c = i;
                if (*c < 0) {
                    snprintf(err, errlen, "%s:%ld: not a results journal (no column '%s')",
                             d->path, lineno, name);
                    ok = false;
                }
            }
        } else if (n != ncols) {
            snprintf(err, errlen, "%s:%ld: %d fields, the header has %d", d->path, lineno, n,
                     ncols);
            ok = false;
        } else if (strcmp(fields[col[RS_STATUS]], "ok") == 0) {
            ok = add_row(d, fields, col, lineno, err, errlen);
        }
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", d->path, strerror(errno));
        ok = false;
    }
    free(line);
    fclose(f);
    if (ok && !ncols) {
        snprintf(err, errlen, "%s: empty file, not a results journal", d->path);
        ok = false;
    }
    if (ok && d->n == 0) {
        snprintf(err, errlen, "%s: no measurements with status ok to plot", d->path);
        ok = false;
    }
    return ok;
}

/* Puts the strategies in the order IS, WS, OS, then unknown ones as found,
 * and fills each shape's best per strategy. */
static void order_strategies(pdata *d)
{
    int rank[MAX_STRATEGIES], map[MAX_STRATEGIES];
    for (int i = 0; i < d->nstrategies; i++) {
        int known = sp_strategy_parse(d->strategies[i]);
        rank[i] = known >= 0 ? known : SP_NSTRATEGY + i;
    }
    char sorted[MAX_STRATEGIES][NAME_LEN];
    for (int i = 0; i < d->nstrategies; i++) {
        int pos = 0;
        for (int j = 0; j < d->nstrategies; j++)
            pos += rank[j] < rank[i];
        map[i] = pos;
        strcpy(sorted[pos], d->strategies[i]);
    }
    memcpy(d->strategies, sorted, sizeof sorted);
    for (size_t i = 0; i < d->n; i++) {
        prow *r = &d->rows[i];
        r->strategy = map[r->strategy];
        double *b = &d->shapes[r->shape].best[r->strategy];
        if (*b == 0 || r->measured < *b)
            *b = r->measured;
    }
}

/* ---- data files ---- */

static bool write_model_data(FILE *f, void *ctx)
{
    const pdata *d = ctx;
    fprintf(f, "# est_cycles measured(%s) strategy problem M N K batch m n k double_buffer "
               "cores split\n", d->unit);
    for (size_t i = 0; i < d->n; i++) {
        const prow *r = &d->rows[i];
        fprintf(f, "%.10g %.10g %s %s %lld %lld %lld %lld %d %d %d %d %d %s\n", r->est,
                r->measured, d->strategies[r->strategy], d->shapes[r->shape].safe, r->M, r->N,
                r->K, r->batch, r->m, r->n, r->k, r->db, r->cores, r->split);
    }
    return true;
}

static void shape_label(const pshape *s, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s %lldx%lldx%lld", s->safe, s->M, s->N, s->K);
    if (s->batch > 1 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " batch %lld", s->batch);
    if (strcmp(s->dtype, "fp16") != 0 && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " %s", s->dtype);
}

static bool write_strategy_data(FILE *f, void *ctx)
{
    const pdata *d = ctx;
    fprintf(f, "# shape");
    for (int s = 0; s < d->nstrategies; s++)
        fprintf(f, " %s", d->strategies[s]);
    fprintf(f, "   (best measured, %s; - = none measured)\n", d->unit);
    for (size_t i = 0; i < d->nshapes; i++) {
        char label[SP_NAME_MAX + 96];
        shape_label(&d->shapes[i], label, sizeof label);
        fprintf(f, "\"%s\"", label);
        for (int s = 0; s < d->nstrategies; s++) {
            if (d->shapes[i].best[s] > 0)
                fprintf(f, " %.10g", d->shapes[i].best[s]);
            else
                fprintf(f, " -");
        }
        fputc('\n', f);
    }
    return true;
}

/* The best row per (m, n) of one shape and strategy, sorted by m then n. */
typedef struct {
    const prow **p;
    size_t n;
} tile_plane;

static int cmp_tile(const void *a, const void *b)
{
    const prow *x = *(const prow *const *)a, *y = *(const prow *const *)b;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return (x->measured > y->measured) - (x->measured < y->measured);
}

static bool write_tile_data(FILE *f, void *ctx)
{
    const tile_plane *t = ctx;
    fprintf(f, "# m n measured k double_buffer cores split (best over k and settings)\n");
    for (size_t i = 0; i < t->n; i++) {
        const prow *r = t->p[i];
        fprintf(f, "%d %d %.10g %d %d %d %s\n", r->m, r->n, r->measured, r->k, r->db, r->cores,
                r->split);
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
        sbuf vars = {0}, out = {0};
        sb_printf(&out, "%s/%s.%s", r->dir, base, terms[t]);
        sb_var(&vars, "in", data);
        sb_var(&vars, "out", out.s ? out.s : "");
        sb_var(&vars, "term", terms[t]);
        sb_printf(&vars, "%s", common);
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

static bool data_path(sbuf *b, const char *dir, const char *base)
{
    sb_printf(b, "%s/%s.dat", dir, base);
    return !b->oom;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool draw_measured_vs_model(renderer *r, int sc, const pdata *d, sbuf *common, char *err,
                                   size_t errlen)
{
    double scale = 1;
    if (strcmp(d->unit, "cycles") != 0) {
        /* A reference line through the median ratio: measured = scale * model. */
        double *q = malloc(d->n * sizeof *q);
        if (!q) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        for (size_t i = 0; i < d->n; i++)
            q[i] = d->rows[i].measured / d->rows[i].est;
        qsort(q, d->n, sizeof *q, cmp_double);
        scale = q[d->n / 2];
        free(q);
    }
    sbuf data = {0}, vars = {0};
    bool ok = data_path(&data, r->dir, plots[sc].name);
    sb_printf(&vars, "%sscale=%.10g; ", common->s, scale);
    if (!ok || vars.oom) {
        snprintf(err, errlen, "out of memory");
        ok = false;
    } else
        ok = bs_write_atomic(data.s, write_model_data, (void *)d, err, errlen) &&
             render(r, sc, plots[sc].name, data.s, vars.s, err, errlen);
    free(data.s);
    free(vars.s);
    return ok;
}

static bool draw_strategies(renderer *r, int sc, const pdata *d, sbuf *common, char *err,
                            size_t errlen)
{
    double lo = 0, hi = 0;
    for (size_t i = 0; i < d->nshapes; i++)
        for (int s = 0; s < d->nstrategies; s++) {
            double v = d->shapes[i].best[s];
            if (v > 0 && (lo == 0 || v < lo))
                lo = v;
            if (v > hi)
                hi = v;
        }
    sbuf data = {0}, vars = {0};
    bool ok = data_path(&data, r->dir, plots[sc].name);
    sb_printf(&vars, "%snshapes=%zu; logy=%d; ", common->s, d->nshapes, hi > 30 * lo);
    if (!ok || vars.oom) {
        snprintf(err, errlen, "out of memory");
        ok = false;
    } else
        ok = bs_write_atomic(data.s, write_strategy_data, (void *)d, err, errlen) &&
             render(r, sc, plots[sc].name, data.s, vars.s, err, errlen);
    free(data.s);
    free(vars.s);
    return ok;
}

/* The tile plane of shape si for its best strategy. */
static bool tile_plane_of(renderer *r, int sc, const pdata *d, size_t si, sbuf *common,
                          char *err, size_t errlen)
{
    const pshape *sh = &d->shapes[si];
    int best = 0;
    for (int s = 1; s < d->nstrategies; s++)
        if (sh->best[s] > 0 && (sh->best[best] == 0 || sh->best[s] < sh->best[best]))
            best = s;
    tile_plane t = {malloc(d->n * sizeof *t.p), 0};
    int *ms = malloc(d->n * sizeof *ms), *ns = malloc(d->n * sizeof *ns);
    sbuf base = {0}, data = {0}, vars = {0};
    bool ok = t.p && ms && ns;
    if (ok) {
        for (size_t i = 0; i < d->n; i++)
            if (d->rows[i].shape == (int)si && d->rows[i].strategy == best)
                t.p[t.n++] = &d->rows[i];
        qsort(t.p, t.n, sizeof *t.p, cmp_tile);
        size_t kept = 0; /* the first of each (m, n) is its best */
        for (size_t i = 0; i < t.n; i++)
            if (kept == 0 || t.p[i]->m != t.p[kept - 1]->m || t.p[i]->n != t.p[kept - 1]->n)
                t.p[kept++] = t.p[i];
        t.n = kept;
        const prow *top = t.p[0];
        double lo = t.p[0]->measured, hi = lo;
        for (size_t i = 0; i < t.n; i++) {
            ms[i] = t.p[i]->m;
            ns[i] = t.p[i]->n;
            if (t.p[i]->measured < top->measured)
                top = t.p[i];
            lo = fmin(lo, t.p[i]->measured);
            hi = fmax(hi, t.p[i]->measured);
        }
        char label[SP_NAME_MAX + 96];
        shape_label(sh, label, sizeof label);
        sb_printf(&base, "tiles_%s_%lldx%lldx%lld", sh->safe, sh->M, sh->N, sh->K);
        if (sh->batch > 1)
            sb_printf(&base, "_b%lld", sh->batch);
        if (strcmp(sh->dtype, "fp16") != 0)
            sb_printf(&base, "_%s", sh->dtype);
        sb_printf(&vars, "%s", common->s);
        sb_var(&vars, "label", label);
        sb_var(&vars, "strategy", d->strategies[best]);
        sb_printf(&vars, "dm=%d; dn=%d; bestm=%d; bestn=%d; logcb=%d; ", grid_step(ms, t.n),
                  grid_step(ns, t.n), top->m, top->n, hi > 10 * lo);
        ok = !base.oom && !vars.oom && data_path(&data, r->dir, base.s);
    }
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else
        ok = bs_write_atomic(data.s, write_tile_data, &t, err, errlen) &&
             render(r, sc, base.s, data.s, vars.s, err, errlen);
    free(t.p);
    free(ms);
    free(ns);
    free(base.s);
    free(data.s);
    free(vars.s);
    return ok;
}

static bool draw_tiles(renderer *r, int sc, const pdata *d, sbuf *common, char *err,
                       size_t errlen)
{
    bool ok = true;
    for (size_t i = 0; ok && i < d->nshapes; i++)
        ok = tile_plane_of(r, sc, d, i, common, err, errlen);
    return ok;
}

#define DRAW(name, what) draw_##name,
static bool (*const draw[NPLOTS])(renderer *, int, const pdata *, sbuf *, char *,
                                  size_t) = {RS_PLOTS(DRAW)};

/* Reads the journal, writes the data files into dir, renders every plot as
 * PNG and SVG; the first failure stops it with a one-line reason. */
bool rs_plot(const char *journal, const char *dir, char *err, size_t errlen)
{
    pdata d = {.path = journal};
    renderer r = {.dir = dir};
    char gnuplot[4096];
    sbuf probe = {0}, common = {0};
    bool ok = read_journal(&d, err, errlen);
    if (ok && !find_gnuplot(gnuplot, sizeof gnuplot)) {
        snprintf(err, errlen,
                 "gnuplot not found; install the gnuplot package (apt-get install gnuplot-nox)");
        ok = false;
    }
    r.gnuplot = gnuplot;
    if (ok) {
        sb_printf(&probe, "%s/x", dir);
        ok = !probe.oom && bs_make_parents(probe.s, err, errlen);
        if (probe.oom)
            snprintf(err, errlen, "out of memory");
    }
    ok = ok && scripts_prepare(&r.scripts, dir, err, errlen);
    if (ok) {
        order_strategies(&d);
        sb_var(&common, "unit", d.unit);
        sb_printf(&common, "strategies='");
        for (int s = 0; s < d.nstrategies; s++)
            sb_printf(&common, "%s%s", s ? " " : "", d.strategies[s]);
        sb_printf(&common, "'; ");
        if (common.oom) {
            snprintf(err, errlen, "out of memory");
            ok = false;
        }
    }
    for (int sc = 0; ok && sc < NPLOTS; sc++)
        ok = draw[sc](&r, sc, &d, &common, err, errlen);
    scripts_free(&r.scripts);
    free(probe.s);
    free(common.s);
    free(d.rows);
    free(d.shapes);
    return ok;
}
