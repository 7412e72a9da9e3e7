/* csv.c — the columns of the journal and of the tuning table, one table per
 * file, and formatting and parsing their rows by those tables. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "internal.h"

/* Each value's column name. */
static const char *const names[RS_NFIELDS] = {
    [RS_PROBLEM] = "problem", [RS_M] = "M", [RS_N] = "N", [RS_K] = "K", [RS_BATCH] = "batch",
    [RS_DTYPE] = "dtype", [RS_TARGET] = "target", [RS_STRATEGY] = "strategy", [RS_TILE_M] = "m",
    [RS_TILE_N] = "n", [RS_TILE_K] = "k", [RS_DOUBLE_BUFFER] = "double_buffer",
    [RS_CORES] = "cores", [RS_SPLIT] = "split", [RS_LOAD] = "load_volume_elems",
    [RS_EST] = "est_cycles", [RS_BACKEND] = "backend", [RS_STATUS] = "status",
    [RS_MEASURED] = "measured", [RS_UNIT] = "unit", [RS_MICRO] = "micro", [RS_ROUND] = "round",
    [RS_VERIFIED] = "verified", [RS_OP] = "op", [RS_SHAPE] = "shape",
    [RS_NODE] = "node", [RS_PACK] = "pack"};

/* The columns both files begin with: the problem and the config. */
#define PROBLEM_AND_CONFIG                                                                      \
    RS_PROBLEM, RS_M, RS_N, RS_K, RS_BATCH, RS_DTYPE, RS_TARGET, RS_STRATEGY, RS_TILE_M,        \
        RS_TILE_N, RS_TILE_K, RS_DOUBLE_BUFFER, RS_CORES, RS_SPLIT

/* The files' columns, in order (status comes before measured, which it
 * checks). Columns are added at the end: older files have the first ones.
 * The last, pack, only files with a no-pack config have. */
static const rs_field journal[] = {PROBLEM_AND_CONFIG, RS_LOAD,  RS_EST,   RS_BACKEND,
                                   RS_STATUS,          RS_MEASURED, RS_UNIT, RS_MICRO,
                                   RS_ROUND,           RS_OP,    RS_SHAPE, RS_NODE, RS_PACK};
static const rs_field table[] = {PROBLEM_AND_CONFIG, RS_MEASURED, RS_UNIT, RS_MICRO,
                                 RS_VERIFIED,        RS_OP,       RS_SHAPE, RS_PACK};
const rs_columns rs_journal_columns = {journal, sizeof journal / sizeof *journal};
const rs_columns rs_table_columns = {table, sizeof table / sizeof *table};

const char *rs_field_name(rs_field f)
{
    return f < RS_NFIELDS ? names[f] : "?";
}

size_t rs_header(char *buf, size_t len, const rs_columns *c, int n)
{
    const char *text[RS_NFIELDS];
    for (int i = 0; i < n && i < c->n; i++)
        text[i] = names[c->field[i]];
    return bs_csv_join(buf, len, text, n < c->n ? n : c->n);
}

/* Every string of the row must fit the unquoted CSV. */
bool rs_row_check(const rs_row *r, char *err, size_t errlen)
{
    const char *name = r->problem->name;
    const struct {
        const char *what, *value;
    } fields[] = {{"problem name", name}, {"target", r->target}, {"backend", r->backend},
                  {"status", r->status},  {"unit", r->unit},
                  {"node", r->node && *r->node ? r->node : "-"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!bs_csv_safe(fields[i].value)) {
            snprintf(err, errlen,
                     "cannot write a row of problem '%s': its %s '%s' is empty or has a comma, "
                     "quote or line break",
                     name, fields[i].what, fields[i].value ? fields[i].value : "");
            return false;
        }
    return true;
}

/* ---- formatting ---- */

static const char *integer_text(char *num, size_t len, long long v)
{
    snprintf(num, len, "%lld", v);
    return num;
}

/* The text of value f of row r: a string of r, or formatted into num.
 * Numbers are written so that they read back exactly (bs_csv_number):
 * a resumed run compares the values an uninterrupted one did. */
static const char *field_text(rs_field f, const rs_row *r, char *num, size_t len)
{
    const sp_problem *p = r->problem;
    const sp_config *c = &r->cand->config;
    num[0] = '\0';
    switch (f) {
    case RS_PROBLEM: return p->name;
    case RS_M: return integer_text(num, len, p->M);
    case RS_N: return integer_text(num, len, p->N);
    case RS_K: return integer_text(num, len, p->K);
    case RS_BATCH: return integer_text(num, len, p->batch);
    case RS_DTYPE: return sp_dtype_name(p->dtype);
    case RS_TARGET: return r->target;
    case RS_STRATEGY: return sp_strategy_name(c->strategy);
    case RS_TILE_M: return integer_text(num, len, c->m);
    case RS_TILE_N: return integer_text(num, len, c->n);
    case RS_TILE_K: return integer_text(num, len, c->k);
    case RS_DOUBLE_BUFFER: return c->double_buffer ? "1" : "0";
    case RS_CORES: return integer_text(num, len, c->cores);
    case RS_SPLIT: return sp_split_name(c->split);
    case RS_LOAD: bs_csv_number(num, len, r->cand->fig.load_elems); return num;
    case RS_EST: bs_csv_number(num, len, r->cand->fig.est_cycles); return num;
    case RS_BACKEND: return r->backend;
    case RS_STATUS: return r->status;
    case RS_MEASURED: /* not-finite figures of failed rows stay empty */
        if (strcmp(r->status, "ok") == 0)
            bs_csv_number(num, len, r->measured);
        return num;
    case RS_UNIT: return r->unit;
    case RS_MICRO: /* CPU configs: the register micro-tile */
        if (c->mr || c->nr)
            snprintf(num, len, "%dx%d", c->mr, c->nr);
        return num;
    case RS_ROUND: return r->round ? r->round : "search";
    case RS_VERIFIED: return r->verified ? "1" : "0";
    case RS_OP: return sp_op_name(p->op);
    case RS_SHAPE: sp_problem_shape(p, num, len); return num;
    case RS_NODE: return r->node ? r->node : "";
    case RS_PACK: /* CPU configs: 1 packs B blocks, 0 the no-pack family */
        return c->mr || c->nr ? (c->nopack ? "0" : "1") : "";
    case RS_NFIELDS: break;
    }
    return num;
}

size_t rs_format_row(char *buf, size_t len, const rs_row *r, const rs_columns *cols, int n)
{
    char num[RS_NFIELDS][SP_SHAPE_MAX];
    const char *text[RS_NFIELDS];
    for (int i = 0; i < n; i++)
        text[i] = field_text(cols->field[i], r, num[i], sizeof num[i]);
    return bs_csv_join(buf, len, text, n);
}

/* ---- parsing ---- */

typedef struct {
    const char *path;
    long line;
    char *err;
    size_t errlen;
} where;

__attribute__((format(printf, 2, 3)))
static bool fail(const where *w, const char *fmt, ...)
{
    int n = snprintf(w->err, w->errlen, "%s:%ld: ", w->path, w->line);
    if (n >= 0 && (size_t)n < w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* A decimal integer in [lo, hi], digits only. */
static bool integer(const where *w, rs_field f, const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    int64_t x = 0;
    if (!*s)
        return fail(w, "field '%s' is empty", names[f]);
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return fail(w, "field '%s' is not an integer: '%s'", names[f], s);
        if (x > (INT64_MAX - (*c - '0')) / 10)
            return fail(w, "field '%s' is out of range: '%s'", names[f], s);
        x = x * 10 + (*c - '0');
    }
    if (x < lo || x > hi)
        return fail(w, "field '%s' is out of range: '%s'", names[f], s);
    *v = x;
    return true;
}

/* 0 or 1. */
static bool bit(const where *w, rs_field f, const char *s, int *v)
{
    int64_t x;
    if (!integer(w, f, s, 0, INT64_MAX, &x))
        return false;
    if (x > 1)
        return fail(w, "field '%s' is not 0 or 1: '%s'", names[f], s);
    *v = (int)x;
    return true;
}

/* A dimension, tile or core count: 1 to SP_VALUE_MAX, as scripts and the
 * command line take them. */
static bool int32(const where *w, rs_field f, const char *s, int32_t *v)
{
    int64_t x;
    if (!integer(w, f, s, 1, SP_VALUE_MAX, &x))
        return false;
    *v = (int32_t)x;
    return true;
}

/* A finite number, nothing else in the field. */
static bool real(const where *w, rs_field f, const char *s, double *v)
{
    char *end;
    if (!*s)
        return fail(w, "field '%s' is empty", names[f]);
    if (isspace((unsigned char)*s))
        return fail(w, "field '%s' is not a number: '%s'", names[f], s);
    *v = strtod(s, &end);
    if (*end || !isfinite(*v))
        return fail(w, "field '%s' is not a number: '%s'", names[f], s);
    return true;
}

/* A non-empty string shorter than size, copied into out (if out). */
static bool text(const where *w, rs_field f, const char *s, char *out, size_t size)
{
    if (!*s)
        return fail(w, "field '%s' is empty", names[f]);
    if (!bs_csv_safe(s)) /* what no row written holds: a resumed journal could not go on */
        return fail(w, "field '%s' has a quote or a line break", names[f]);
    if (strlen(s) >= size)
        return fail(w, "field '%s' is longer than %zu characters", names[f], size - 1);
    if (out)
        memcpy(out, s, strlen(s) + 1);
    return true;
}

/* One of a name table (its parser and names) stored as a byte; "is not A,
 * B or C" otherwise. */
static bool choice(const where *w, rs_field f, const char *s, int (*parse)(const char *),
                   const char *(*name)(int), uint8_t *v)
{
    int x = parse(s);
    char list[64];
    if (x < 0)
        return fail(w, "field '%s' is not %s: '%s'", names[f],
                    sp_names(name, ", ", " or ", list, sizeof list), s);
    *v = (uint8_t)x;
    return true;
}

/* "MRxNR", each 1..255, or empty. */
static bool micro(const where *w, char *s, sp_config *c)
{
    if (!*s)
        return true;
    int64_t mr, nr;
    char *x = strchr(s, 'x');
    if (!x)
        return fail(w, "field '%s' is not a micro-tile MRxNR: '%s'", names[RS_MICRO], s);
    *x = '\0';
    bool ok = integer(w, RS_MICRO, s, 1, 255, &mr) && integer(w, RS_MICRO, x + 1, 1, 255, &nr);
    *x = 'x';
    if (ok) {
        c->mr = (uint8_t)mr;
        c->nr = (uint8_t)nr;
    }
    return ok;
}

/* The op's own shape text into p->dims, which must give the GEMM view the
 * row's M, N, K and batch columns hold (they come before it). */
static bool shape(const where *w, const char *s, sp_problem *p)
{
    const sp_op *o = sp_op_get(p->op);
    int64_t dims[SP_OP_DIMS_MAX];
    if (!text(w, RS_SHAPE, s, NULL, SP_SHAPE_MAX))
        return false;
    if (!o->parse(s, dims))
        return fail(w, "field '%s' is not a %s shape %s: '%s'", names[RS_SHAPE], o->name,
                    o->syntax, s);
    sp_problem q = *p;
    sp_problem_set(&q, p->op, dims);
    if (q.M != p->M || q.N != p->N || q.K != p->K || q.batch != p->batch)
        return fail(w,
                    "field '%s' '%s' computes as %lldx%lldx%lld batch %lld, not as the row's "
                    "%lldx%lldx%lld batch %lld",
                    names[RS_SHAPE], s, (long long)q.M, (long long)q.N, (long long)q.K,
                    (long long)q.batch, (long long)p->M, (long long)p->N, (long long)p->K,
                    (long long)p->batch);
    memcpy(p->dims, q.dims, sizeof p->dims);
    return true;
}

/* Checks field s as value f and stores it in e. */
static bool parse_field(const where *w, rs_field f, char *s, rs_entry *e)
{
    sp_problem *p = &e->problem;
    sp_config *c = &e->config;
    uint8_t v = 0;
    int db = 0;
    switch (f) {
    case RS_PROBLEM:
        if (!text(w, f, s, NULL, SIZE_MAX))
            return false;
        if (!sp_label_ok(s, strlen(s)))
            return fail(w, "field '%s' is not a name of 1 to %d characters from A-Z a-z 0-9 _ . -: '%.60s'",
                        names[f], SP_LABEL_MAX, s);
        strcpy(p->name, s);
        return true;
    case RS_M: return integer(w, f, s, 1, SP_VALUE_MAX, &p->M);
    case RS_N: return integer(w, f, s, 1, SP_VALUE_MAX, &p->N);
    case RS_K: return integer(w, f, s, 1, SP_VALUE_MAX, &p->K);
    case RS_BATCH: return integer(w, f, s, 1, SP_VALUE_MAX, &p->batch);
    case RS_DTYPE:
        if (!choice(w, f, s, sp_dtype_parse, sp_dtype_name, &v))
            return false;
        p->dtype = (sp_dtype)v;
        return true;
    case RS_TARGET: return text(w, f, s, e->target, sizeof e->target);
    case RS_STRATEGY: return choice(w, f, s, sp_strategy_parse, sp_strategy_name, &c->strategy);
    case RS_TILE_M: return int32(w, f, s, &c->m);
    case RS_TILE_N: return int32(w, f, s, &c->n);
    case RS_TILE_K: return int32(w, f, s, &c->k);
    case RS_DOUBLE_BUFFER:
        if (!bit(w, f, s, &db))
            return false;
        c->double_buffer = (uint8_t)db;
        return true;
    case RS_CORES: return int32(w, f, s, &c->cores);
    case RS_SPLIT: return choice(w, f, s, sp_split_parse, sp_split_name, &c->split);
    case RS_LOAD: /* model figures: empty for an illegal candidate */
        return !*s || real(w, f, s, &e->load_elems);
    case RS_EST: return !*s || real(w, f, s, &e->est_cycles);
    case RS_BACKEND: return text(w, f, s, e->backend, sizeof e->backend);
    case RS_STATUS: return text(w, f, s, e->status, sizeof e->status);
    case RS_MEASURED: {
        bool ok = strcmp(e->status, "ok") == 0;
        if (!*s && !ok)
            return true;
        if (!real(w, f, s, &e->measured))
            return false;
        if (ok && e->measured <= 0) /* a time or a cycle count */
            return fail(w, "field '%s' of an ok row is not positive: '%s'", names[f], s);
        return true;
    }
    case RS_UNIT: return text(w, f, s, e->unit, sizeof e->unit);
    case RS_MICRO: return micro(w, s, c);
    case RS_ROUND:
        if (strcmp(s, "search") && strcmp(s, "final") && strcmp(s, "verify"))
            return fail(w, "field '%s' is not search, final or verify: '%s'", names[f], s);
        strcpy(e->round, s);
        return true;
    case RS_VERIFIED: return bit(w, f, s, &e->verified);
    case RS_OP: return choice(w, f, s, sp_op_parse, sp_op_name, &p->op);
    case RS_SHAPE: return shape(w, s, p);
    case RS_NODE: return !*s || text(w, f, s, e->node, sizeof e->node);
    case RS_PACK: /* empty: a config without a micro-tile, which packs */
        if (!*s)
            return true;
        if (!bit(w, f, s, &db))
            return false;
        if (!db && !c->mr)
            return fail(w, "field '%s' is 0 (no packing) for a config without a micro-tile",
                        names[f]);
        c->nopack = (uint8_t)!db;
        return true;
    case RS_NFIELDS: break;
    }
    return fail(w, "no such field");
}

/* Splits a line of the first `want` columns of cols and checks every field
 * in column order; first error wins. A table row's status is ok, a row
 * without an op column of the default op, a row without a shape column of
 * the dimensions its GEMM view gives. */
bool rs_parse_row(char *line, const rs_columns *cols, int want, rs_entry *e, const char *path,
                  long lineno, char *err, size_t errlen)
{
    where w = {path, lineno, err, errlen};
    char *f[RS_NFIELDS];
    if (!*line)
        return fail(&w, "empty line");
    int n = bs_csv_split(line, f, want);
    if (n != want)
        return fail(&w, "%d fields, expected %d", n, want);
    memset(e, 0, sizeof *e);
    e->line = lineno;
    e->verified = -1;
    e->final = NAN;
    strcpy(e->status, "ok");
    bool shaped = false;
    for (int i = 0; i < want; i++) {
        if (!parse_field(&w, cols->field[i], f[i], e))
            return false;
        shaped |= cols->field[i] == RS_SHAPE;
    }
    if (!shaped && !sp_problem_from_gemm(&e->problem))
        return fail(&w, "a row of op %s needs a '%s' column", sp_op_name(e->problem.op),
                    names[RS_SHAPE]);
    return true;
}
